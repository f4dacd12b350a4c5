// SPDX-License-Identifier: GPL-2.0
/* user_events ABI: the enable bit the kernel keeps in user memory */
#include "../kselftest_harness.h"
#include "ue_util.h"

/* Enable (tracked) or disable @name; bit @bit of @val follows, its other bits stay @other */
static void flip(struct __test_metadata *_metadata, struct ue_track *t, const char *name, bool on,
		 void *val, int size, int bit, __u64 other)
{
	ASSERT_EQ(0, on ? ue_track_enable(t, UE_SYS, name) : ue_set_enable(UE_SYS, name, false));
	ASSERT_TRUE(ue_wait_bit(val, size, bit, on)) TH_LOG("%s", name);
	EXPECT_EQ(other | (__u64)on << bit, ue_word_read(val, size)) TH_LOG("%s", name);
}

/* Register @cmd at @val: the word is @want at once */
static void reg_check(struct __test_metadata *_metadata, struct ue_track *t, const char *cmd,
		      void *val, int size, int bit, __u64 want)
{
	ASSERT_EQ(0, ue_track_reg(t, cmd, val, size, bit, NULL)) TH_LOG("%s", cmd);
	ASSERT_TRUE(ue_wait_bit(val, size, bit, want >> bit & 1)) TH_LOG("%s", cmd);
	EXPECT_EQ(want, ue_word_read(val, size)) TH_LOG("%s", cmd);
}

FIXTURE(enable) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(enable)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(enable)
{
	UE_TEARDOWN();
}

/*
 * For every enable size and bit: registration leaves the word alone; three rounds of enable,
 * disable; the words on either side untouched
 */
TEST_F(enable, toggle_every_size_and_bit)
{
	struct ue_en_word w;
	__u32 *left, *right;
	int i, round;

	for (i = 0; i < UE_EN_CASES; i++) {
		ue_en_case(&w, self->page + UE_EN_CASE_SPAN, i, "uet_en_toggle", "u32 a");
		left = (__u32 *)w.val - 1;
		right = (__u32 *)(w.val + w.size);
		*left = 0x5555aaaa;
		*right = 0xaaaa5555;
		reg_check(_metadata, &self->t, w.cmd, w.val, w.size, w.bit, w.other);
		for (round = 0; round < 6; round++) {
			flip(_metadata, &self->t, w.name, !(round & 1), w.val, w.size, w.bit,
			     w.other);
			EXPECT_EQ(0x5555aaaa, *left) TH_LOG("%s", w.name);
			EXPECT_EQ(0xaaaa5555, *right) TH_LOG("%s", w.name);
		}
	}
}

/*
 * For every enable size and bit: a registration while the event is enabled (registered
 * elsewhere) sees the bit at once
 */
TEST_F(enable, register_while_enabled_every_size_and_bit)
{
	struct ue_en_word w;
	int i;

	for (i = 0; i < UE_EN_CASES; i++) {
		ue_en_case(&w, self->page + UE_EN_CASE_SPAN, i, "uet_en_rwe", "u64 a");
		ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page + 512, w.cmd, w.name, i, NULL))
			TH_LOG("%s", w.name);
		reg_check(_metadata, &self->t, w.cmd, w.val, w.size, w.bit,
			  w.other | 1ull << w.bit);
		flip(_metadata, &self->t, w.name, false, w.val, w.size, w.bit, w.other);
	}
}

/*
 * Every bit of 4-byte words (8-byte aligned and not) and of an 8-byte word, an event each:
 * enabling bit N sets the value 1 << N of enable_size bytes, i.e. one byte in memory (the
 * last ones first on big endian), nothing else in the page.  3.6 s on the x86_64 debug kernel
 * under TCG; the timeout leaves room for slower machines and emulated architectures.
 */
TEST_F_TIMEOUT(enable, every_bit_both_sizes, 240)
{
	static const struct { int size, off; } words[] = { { 4, 0 }, { 4, 12 }, { 8, 16 } };
	unsigned char *pg = (unsigned char *)self->page;
	int w, bit, i, size, off, at;
	char name[64], cmd[96];

	for (w = 0; w < ARRAY_SIZE(words); w++) {
		size = words[w].size;
		off = words[w].off;
		for (bit = 0; bit < size * 8; bit++) {
			snprintf(cmd, sizeof(cmd), "uet_en_every_%d_%d_%d u32 a", size, off, bit);
			ASSERT_EQ(0, ue_reg(self->t.fd, cmd, pg + off, size, bit, 0, NULL));
		}
		EXPECT_EQ(0, ue_word_read(pg + off, size));
		for (bit = 0; bit < size * 8; bit++) {
			snprintf(name, sizeof(name), "uet_en_every_%d_%d_%d", size, off, bit);
			ASSERT_EQ(0, ue_set_enable(UE_SYS, name, true));
			ASSERT_TRUE(ue_wait_bit(pg + off, size, bit, true));
			EXPECT_EQ(1ull << bit, ue_word_read(pg + off, size))
				TH_LOG("size %d bit %d", size, bit);
			at = off + bit / 8;
			if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
				at = off + size - 1 - bit / 8;
			for (i = 0; i < getpagesize(); i++)
				if (pg[i] != (i == at ? 1 << (bit % 8) : 0))
					break;
			EXPECT_EQ(getpagesize(), i)
				TH_LOG("size %d bit %d: page byte %d is %#x", size, bit, i, pg[i]);
			ASSERT_EQ(0, ue_set_enable(UE_SYS, name, false));
			ASSERT_TRUE(ue_wait_bit(pg + off, size, bit, false));
			EXPECT_EQ(0, ue_word_read(pg + off, size));
		}
		for (bit = 0; bit < size * 8; bit++)
			ASSERT_EQ(0, ue_unreg(self->t.fd, self->page + off, bit));
	}
}

/*
 * One event at several words and bits sets and clears them all; two events on one word keep
 * to their own bits, also when one of them is unregistered.
 */
TEST_F(enable, shared_words)
{
	__u32 *a = (__u32 *)self->page, *w = (__u32 *)(self->page + 128);
	__u64 *b = (__u64 *)(self->page + 64);
	int on;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_two u32 a", a, 4, 1, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_two u32 a", b, 8, 45, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_two u32 a", a, 4, 9, NULL));
	for (on = 1; on >= 0; on--) {
		ASSERT_EQ(0, on ? ue_track_enable(&self->t, UE_SYS, "uet_en_two") :
				  ue_set_enable(UE_SYS, "uet_en_two", false));
		ASSERT_TRUE(ue_wait_bit(a, 4, 1, on));
		ASSERT_TRUE(ue_wait_bit(a, 4, 9, on));
		ASSERT_TRUE(ue_wait_bit(b, 8, 45, on));
		EXPECT_EQ(on ? (1u << 1) | (1u << 9) : 0, *a);
		EXPECT_EQ((__u64)on << 45, *b);
	}
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_sh1 u32 a", w, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_sh2 u32 a", w, 4, 1, NULL));
	flip(_metadata, &self->t, "uet_en_sh2", true, w, 4, 1, 0);
	flip(_metadata, &self->t, "uet_en_sh1", true, w, 4, 0, 2);
	flip(_metadata, &self->t, "uet_en_sh2", false, w, 4, 1, 1);
	ASSERT_EQ(0, ue_unreg(self->t.fd, w, 1));
	EXPECT_EQ(1, *w);
	ASSERT_EQ(0, ue_unreg(self->t.fd, w, 0));
	EXPECT_EQ(0, *w);
}

/* A never touched page is faulted in by the registration, enabled or not */
TEST_F(enable, untouched_page)
{
	char *fresh = ue_map_page(PROT_READ | PROT_WRITE);
	const char *cmd = "uet_en_fresh2 u32 a";

	ASSERT_TRUE(ue_nonnull(fresh));
	reg_check(_metadata, &self->t, "uet_en_fresh u32 a", fresh + 128, 8, 33, 0);
	flip(_metadata, &self->t, "uet_en_fresh", true, fresh + 128, 8, 33, 0);
	flip(_metadata, &self->t, "uet_en_fresh", false, fresh + 128, 8, 33, 0);
	fresh = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(fresh));
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, cmd, "uet_en_fresh2", 0, NULL));
	reg_check(_metadata, &self->t, cmd, fresh + 4, 4, 17, 1u << 17);
}

/*
 * The enable word's page is dropped after registration: the kernel faults it back in on each
 * change.  Shared memory keeps its contents through MADV_DONTNEED, so every state, off too, is
 * seen only if the kernel wrote it.  Then words in the pages below and above too, beside a bit
 * to keep: the kernel queues words by their distance from the first one it queued.
 */
TEST_F(enable, page_not_present)
{
	const int ps = getpagesize();
	int mfd = memfd_create("uet_en_dontneed", MFD_CLOEXEC), i;
	const char *name = "uet_en_dontneed", *cmd = "uet_en_dontneed u32 a";
	__u32 *val, *lo, *hi;
	char *pages;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, 3 * ps));
	pages = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	ASSERT_TRUE(pages != MAP_FAILED);
	lo = (__u32 *)(pages + 64);
	val = (__u32 *)(pages + ps + 256);
	hi = (__u32 *)(pages + 2 * ps + 64);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, val, 4, 5, NULL));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, madvise(pages + ps, ps, MADV_DONTNEED));
		flip(_metadata, &self->t, name, i % 2 == 0, val, 4, 5, 0);
	}
	*lo = 1;
	*hi = 1;
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 6, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, hi, 4, 7, NULL));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, madvise(pages, 3 * ps, MADV_DONTNEED));
		flip(_metadata, &self->t, name, i % 2 == 0, val, 4, 5, 0);
		ASSERT_TRUE(ue_wait_bit(lo, 4, 6, i % 2 == 0));
		ASSERT_TRUE(ue_wait_bit(hi, 4, 7, i % 2 == 0));
		EXPECT_EQ(1 | (__u32)(i % 2 == 0) << 6, *lo);
		EXPECT_EQ(1 | (__u32)(i % 2 == 0) << 7, *hi);
	}
	EXPECT_EQ(0, ue_unreg(self->t.fd, lo, 6));
	EXPECT_EQ(0, ue_unreg(self->t.fd, hi, 7));
	/* unregistering while the page is not present clears the bit and stops all updates */
	flip(_metadata, &self->t, name, true, val, 4, 5, 0);
	ASSERT_EQ(0, madvise(pages + ps, ps, MADV_DONTNEED));
	EXPECT_EQ(0, ue_unreg(self->t.fd, val, 5));
	EXPECT_EQ(0, *val);
	*val = 0x100;
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 0, NULL));
	flip(_metadata, &self->t, name, false, self->page, 4, 0, 0);
	flip(_metadata, &self->t, name, true, self->page, 4, 0, 0);
	EXPECT_EQ(0x100, *val);
	munmap(pages, 3 * ps);
}

/*
 * Out of memory while the kernel updates a word that was not present: the bit still ends in the
 * latest state once memory is back.  Fault injection fails the page allocations of the fault-in a
 * few times (the kernel retries the word), then the kernel's record of the word to update (the
 * kernel then looks for every word behind its event).  Kernels without fault injection skip.
 */
TEST_F(enable, page_not_present_no_memory)
{
	const int ps = getpagesize();
	const char *name = "uet_en_nomem", *cmd = "uet_en_nomem u32 a";
	char *pages = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u32 *lo = (__u32 *)pages, *hi = (__u32 *)(pages + ps);
	int ret;

	ASSERT_TRUE(pages != MAP_FAILED);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, hi, 4, 1, NULL));
	ASSERT_EQ(0, madvise(pages, ps, MADV_DONTNEED));
	ret = ue_fail_start("fail_page_alloc", "uev_fault_work", 3);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no fault injection with a stack filter, or no uev_fault_work");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, ue_track_enable(&self->t, UE_SYS, name));
	EXPECT_TRUE(ue_wait_bit(lo, 4, 0, true));
	EXPECT_EQ(0, ue_fail_left("fail_page_alloc"));
	ue_fail_stop("fail_page_alloc");
	EXPECT_EQ(1, *lo);
	EXPECT_EQ(2, *hi);

	flip(_metadata, &self->t, name, false, lo, 4, 0, 0);
	ASSERT_EQ(0, madvise(pages + ps, ps, MADV_DONTNEED));
	ASSERT_EQ(0, ue_fail_start("failslab", "uev_queue_fault", 1000));
	EXPECT_EQ(0, ue_track_enable(&self->t, UE_SYS, name));
	ret = ue_fail_left("failslab");
	ue_fail_stop("failslab");
	EXPECT_GT(1000, ret);
	EXPECT_TRUE(ue_wait_bit(hi, 4, 1, true));
	EXPECT_EQ(1, *lo);
	munmap(pages, 2 * ps);
}

/*
 * Several registrations in one long are found, removed and updated each on its own, in any
 * order; on 64-bit, bit 3 of the second u32 (hi) is bit 35 of the 8-byte value, but bit 3 on
 * big endian, where hi is the lower half.
 */
TEST_F(enable, same_long)
{
	__u32 *lo = (__u32 *)self->page, *hi = lo + 1;
	const char *cmd = "uet_en_long u32 a";
	int bit, hi3 = 35;

	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		hi3 = 3;
	for (bit = 0; bit < 3; bit++)
		ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, bit, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, hi, 4, 3, NULL));
	if (sizeof(long) == 8)
		EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd, lo, 8, hi3, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd, lo, 4, 1, 0, NULL));
	/* last registered, a middle one, the first one */
	EXPECT_EQ(0, ue_unreg(self->t.fd, hi, 3));
	EXPECT_EQ(0, ue_unreg(self->t.fd, lo, 1));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, lo, 1));
	EXPECT_EQ(0, ue_unreg(self->t.fd, lo, 0));
	flip(_metadata, &self->t, "uet_en_long", true, lo, 4, 2, 0);
	EXPECT_EQ(0, *hi);
	/* the freed bits register again and follow the event at once */
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 1, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, hi, 4, 3, NULL));
	EXPECT_EQ(1u << 2 | 1u << 1, *lo);
	EXPECT_EQ(1u << 3, *hi);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_long", false));
	ASSERT_TRUE(ue_wait_bit(lo, 4, 2, false));
	EXPECT_EQ(0, *lo);
	EXPECT_EQ(0, *hi);
}

/* Upstream 6.4 bounds enable-word fault-ins: an unwritable word is not retried forever */
TEST_F_TIMEOUT(enable, fault_retries_bounded, 120)
{
	static const int prot[] = { PROT_READ, PROT_READ, PROT_NONE, PROT_NONE };
	static const char ev[] = "uet_rg_nofault";
	int i, j, ps = getpagesize();
	char *page = self->page, line[256];
	__u32 idx, val;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_nofault u32 a", page, 4, 0, &idx));
	for (i = 0; i < ARRAY_SIZE(prot); i++) {
		memset(page, 0, ps);
		if (i & 1)	/* not even present */
			ASSERT_EQ(0, madvise(page, ps, MADV_DONTNEED));
		ASSERT_EQ(0, mprotect(page, ps, prot[i]));
		for (j = 0; j < 20; j++) {
			ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, true));
			ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, false));
		}
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, ev));
		EXPECT_TRUE(ue_status_line(ev, line, sizeof(line)) && strstr(line, "ftrace"));
		ASSERT_EQ(0, ue_trace_clear());
		val = i;
		EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
		EXPECT_EQ(1, ue_trace_count(ev, NULL, 0));
		if (prot[i] == PROT_READ)	/* no forced write */
			EXPECT_FALSE(ue_bit_set(page, 4, 0));
		/* writable again: the next change reaches the word */
		ASSERT_EQ(0, mprotect(page, ps, PROT_READ | PROT_WRITE));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, false));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, true));
		EXPECT_TRUE(ue_wait_bit(page, 4, 0, true));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, false));
		EXPECT_TRUE(ue_wait_bit(page, 4, 0, false));
	}
}

/* Upstream 6.4 "Remove RCU lock while pinning pages": each change pins and faults in */
TEST_F_TIMEOUT(enable, page_pin_not_in_rcu, 120)
{
	int mfd = memfd_create("uet_rg_rcu", MFD_CLOEXEC), i, size = getpagesize();
	struct timespec start;
	__u32 *word;
	char *map;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, size));
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	word = (__u32 *)(map + 128);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_rcu u32 a", word, 4, 4, NULL));
	/* a round is an enable and a disable */
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < 2 * UE_RACE_ROUNDS && (i % 2 || !i || ue_elapsed(&start) < UE_RACE_SECS);
	     i++) {
		ASSERT_EQ(0, madvise(map, size, MADV_DONTNEED));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_rcu", !(i & 1)));
		ASSERT_TRUE(ue_wait_bit(word, 4, 4, !(i & 1))) TH_LOG("round %d", i / 2);
	}
	/* unregister of an enabled event with the page not present */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_rcu"));
	ASSERT_TRUE(ue_wait_bit(word, 4, 4, true));
	ASSERT_EQ(0, madvise(map, size, MADV_DONTNEED));
	EXPECT_EQ(0, ue_unreg(self->t.fd, word, 4));
	EXPECT_FALSE(ue_bit_set(word, 4, 4));
	self->t.nregs = 0;
	munmap(map, size);
	close(mfd);
}

TEST_HARNESS_MAIN
