// SPDX-License-Identifier: GPL-2.0
/* user_events ABI: DIAG_IOCSUNREG, unregistering an enable word */
#include "../kselftest_harness.h"
#include "ue_util.h"

FIXTURE(unreg) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(unreg)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(unreg)
{
	UE_TEARDOWN();
}

static int unreg_raw(int fd, void *arg)
{
	return ioctl(fd, DIAG_IOCSUNREG, arg) == -1 ? -errno : 0;
}

/* Unregistering what is not registered; per process: any user_events_data fd will do */
TEST_F(unreg, unknown)
{
	__u32 *w = (__u32 *)self->page;
	int fd2 = ue_open_data();

	ASSERT_LE(0, fd2);
	/* before this process registered anything at all */
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w, 0));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_unk u32 a", w, 4, 2, NULL));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w, 3));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w + 1, 2));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, NULL, 0));
	EXPECT_EQ(0, ue_unreg(self->t.fd, w, 2));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w, 2));
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_en_ofd u32 a", "uet_en_ofd", 6,
				    NULL));
	EXPECT_EQ(0, ue_unreg(fd2, self->page, 6));
	EXPECT_EQ(0, *(__u32 *)self->page);
	close(fd2);
}

/*
 * A word the kernel cannot clear, its page unmapped or read-only: DIAG_IOCSUNREG still removes
 * the registration but says EFAULT, as upstream does; a second one finds nothing.
 */
TEST_F(unreg, efault)
{
	int unmap;
	char *p;

	for (unmap = 0; unmap < 2; unmap++) {
		p = ue_map_page(PROT_READ | PROT_WRITE);
		ASSERT_TRUE(ue_nonnull(p));
		ASSERT_EQ(0, ue_reg(self->t.fd, "uet_en_efault u32 a", p + 8, 4, 1, 0, NULL));
		ASSERT_EQ(0, unmap ? munmap(p, getpagesize()) :
			  mprotect(p, getpagesize(), PROT_READ));
		EXPECT_EQ(-EFAULT, ue_unreg(self->t.fd, p + 8, 1)) TH_LOG("unmapped %d", unmap);
		EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, p + 8, 1)) TH_LOG("unmapped %d", unmap);
		if (!unmap)
			munmap(p, getpagesize());
	}
	/* the registrations are gone: the event goes with this fd's write index */
	close(self->t.fd);
	self->t.fd = -1;
	EXPECT_TRUE(ue_wait_gone(UE_SYS, "uet_en_efault"));
}

/*
 * struct user_unreg too small or big, reserved fields set, or bigger with a tail that is not
 * zero: refused, the registration kept, until a good one removes it.
 */
TEST_F(unreg, bad_args)
{
	struct {
		struct user_unreg unreg;
		__u8 tail[8];
	} big = { 0 };	/* packed: no padding */
	__u32 *w = (__u32 *)self->page;
	int i, ret;

	ASSERT_EQ(16, sizeof(struct user_unreg));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_uargs u32 a", w, 4, 0, NULL));
	big.unreg.disable_addr = (__u64)(uintptr_t)w;
	for (i = 0; (ret = ue_bad_arg_size(i, &big, sizeof(big.unreg))); i++)
		EXPECT_EQ(-ret, unreg_raw(self->t.fd, &big)) TH_LOG("size %u", big.unreg.size);
	big.unreg.size = sizeof(big.unreg);
	big.unreg.__reserved = 1;
	EXPECT_EQ(-EINVAL, unreg_raw(self->t.fd, &big));
	big.unreg.__reserved = 0;
	big.unreg.__reserved2 = 0x100;
	EXPECT_EQ(-EINVAL, unreg_raw(self->t.fd, &big));
	big.unreg.__reserved2 = 0;
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_en_uargs u32 a", w, 4, 0, 0, NULL));
	EXPECT_EQ(0, unreg_raw(self->t.fd, &big));
	ASSERT_EQ(0, ue_reg(self->t.fd, "uet_en_uargs u32 a", w, 4, 0, 0, NULL));
	big.unreg.size = sizeof(big);
	big.tail[7] = 1;
	/*
	 * Upstream says E2BIG or EINVAL by chance: after the failed copy it checks the reserved
	 * fields of a structure it never initialised
	 */
	EXPECT_EQ(-E2BIG, unreg_raw(self->t.fd, &big));
	big.tail[7] = 0;
	EXPECT_EQ(0, unreg_raw(self->t.fd, &big));
}

/* Upstream 6.4 "Ensure bit is cleared on unregister": DIAG_IOCSUNREG left it set */
TEST_F(unreg, unregister_clears_bit)
{
	__u32 *word = (__u32 *)self->page;
	int fd = ue_open_data();

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_LE(0, fd);
	/* persistent: stays enabled when its last user goes */
	ue_track_del(&self->t, "uet_rg_clear");
	ASSERT_EQ(0, ue_reg(fd, "uet_rg_clear u32 a", word, 4, 9, USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_clear"));
	ASSERT_TRUE(ue_wait_bit(word, 4, 9, true));
	word[0] |= 0x5;		/* bits the program owns */
	ASSERT_EQ(0, ue_unreg(fd, word, 9));
	EXPECT_EQ(0x5, __atomic_load_n(word, __ATOMIC_ACQUIRE));
	close(fd);
}

/*
 * For every enable size and bit: unregistering clears the bit of an enabled event and stops
 * its updates; the bit is free for a registration again
 */
TEST_F(unreg, clears_every_size_and_bit)
{
	__u32 *sentinel = (__u32 *)(self->page + 512);
	struct ue_en_word w;
	int i;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT))
		return;
	for (i = 0; i < UE_EN_CASES; i++) {
		ue_en_case(&w, self->page + UE_EN_CASE_SPAN, i, "uet_un_clears", "u32 a");
		ASSERT_EQ(0, ue_reg(self->t.fd, w.cmd, w.val, w.size, w.bit, 0, NULL));
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, w.name));
		ASSERT_TRUE(ue_wait_bit(w.val, w.size, w.bit, true)) TH_LOG("case %d", i);
		EXPECT_EQ(w.other | 1ull << w.bit, ue_word_read(w.val, w.size))
			TH_LOG("case %d", i);
		ASSERT_EQ(0, ue_unreg(self->t.fd, w.val, w.bit));
		EXPECT_EQ(w.other, ue_word_read(w.val, w.size)) TH_LOG("case %d", i);
		/* toggle; the sentinel's bit shows the kernel has done its updates */
		ASSERT_EQ(0, ue_set_enable(UE_SYS, w.name, false));
		ASSERT_EQ(0, ue_track_reg(&self->t, w.cmd, sentinel, 4, i, NULL));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, w.name, true));
		ASSERT_TRUE(ue_wait_bit(sentinel, 4, i, true));
		EXPECT_EQ(w.other, ue_word_read(w.val, w.size)) TH_LOG("case %d", i);
		/* the bit is free again */
		ASSERT_EQ(0, ue_track_reg(&self->t, w.cmd, w.val, w.size, w.bit, NULL));
		ASSERT_TRUE(ue_wait_bit(w.val, w.size, w.bit, true));
		EXPECT_EQ(w.other | 1ull << w.bit, ue_word_read(w.val, w.size))
			TH_LOG("case %d", i);
	}
}

TEST_HARNESS_MAIN
