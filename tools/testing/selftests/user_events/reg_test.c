// SPDX-License-Identifier: GPL-2.0
/* user_events ABI: DIAG_IOCSREG arguments, flags and write indexes; DIAG_IOCSDEL */
#include "../kselftest_harness.h"
#include "ue_util.h"
#include <pthread.h>

FIXTURE(reg) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(reg)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(reg)
{
	UE_TEARDOWN();
}

/* Each command registers its event with a write index, its word untouched. */
TEST_F(reg, basic)
{
	static const struct { const char *cmd; int off, size, bit; } ok[] = {
		{ "uet_reg_basic u32 a", 0, 4, 0 },
		{ "uet_reg_nofields", 8, 4, 0 },
		/* the highest valid bits */
		{ "uet_reg_top u32 a", 16, 4, 31 },
		{ "uet_reg_top u32 a", 24, 8, 63 },
	};
	char name[64], *w;
	__u32 idx;
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		w = self->page + ok[i].off;
		idx = UINT32_MAX;
		ue_cmd_name(name, sizeof(name), ok[i].cmd);
		ASSERT_EQ(0, ue_track_reg(&self->t, ok[i].cmd, w, ok[i].size, ok[i].bit, &idx))
			TH_LOG("'%s' bit %d", ok[i].cmd, ok[i].bit);
		EXPECT_NE(UINT32_MAX, idx);
		EXPECT_TRUE(ue_event_exists(UE_SYS, name));
		EXPECT_GT(ue_event_id(UE_SYS, name), 0);
		EXPECT_EQ(0, ok[i].size == 8 ? *(__u64 *)w : *(__u32 *)w);
	}
}

/* EINVAL, no event: enable sizes, misaligned words, bits, flags, bad or overlong commands */
TEST_F(reg, refused)
{
	/* the command is "uet_reg_args u32 a" unless given */
	static const struct {
		int size, off, bit, flags;
		const char *cmd;
	} bad[] = {
		{ 0 }, { 1 }, { 2 }, { 3 }, { 5 }, { 6 }, { 7 }, { 16 }, { 255 },
		{ 4, 1 }, { 4, 2 }, { 4, 3 }, { 8, 1 }, { 8, 4 }, { 8, 12 },
		{ 4, 0, 32 }, { 4, 0, 63 }, { 8, 0, 64 }, { 8, 0, 255 },
		{ 4, 0, 0, USER_EVENT_REG_MAX }, { 4, 0, 0, USER_EVENT_REG_MAX << 1 },
		{ 4, 0, 0, 1 << 14 }, { 4, 0, 0, 0xffff },
		{ 4, 0, 0, 0, "uet_reg_bad u128 a" },			/* unknown type */
		{ 4, 0, 0, 0, "uet_reg_bad long a" },			/* long is ambiguous */
		{ 4, 0, 0, 0, "uet_reg_bad u32" },			/* no field name */
		{ 4, 0, 0, 0, "uet_reg_bad u32 a b" },			/* trailing junk */
		{ 4, 0, 0, 0, "uet_reg_bad char[0] a" },		/* zero sized array */
		{ 4, 0, 0, 0, "uet_reg_bad char[abc] a" },		/* non-numeric size */
		{ 4, 0, 0, 0, "uet_reg_bad char[] a" },			/* missing size */
		{ 4, 0, 0, 0, "uet_reg_bad char[4 a" },			/* unterminated */
		{ 4, 0, 0, 0, "uet_reg_bad char[100000] a" },		/* too big */
		{ 4, 0, 0, 0, "uet_reg_bad struct foo a" },		/* struct needs a size */
		{ 4, 0, 0, 0, "uet_reg_bad struct foo a 0" },		/* zero sized struct */
		{ 4, 0, 0, 0, "uet_reg_bad struct foo a x" },		/* bad struct size */
		{ 4, 0, 0, 0, "uet_reg_bad __data_loc" },		/* incomplete */
		{ 4, 0, 0, 0, "uet_reg_bad:flag u32 a" },		/* no text flags exist */
		{ 4, 0, 0, 0, "uet_reg_bad u32 a; u64" },		/* second field broken */
		{ 4, 0, 0, 0, "uet_reg_bad u32  a" },			/* two spaces */
		{ 4, 0, 0, 0, "uet_reg_bad u32\ta" },			/* a tab in a field */
		{ 4, 0, 0, 0, "uet_reg_bad u32 a ;u32 b" },		/* a space before ';' */
		{ 4, 0, 0, 0, "uet_reg_bad char[0x0000001] a" },	/* over 7 bytes after [ */
		{ 4, 0, 0, 0, "uet_reg_bad __data_loc cpumask_t[] a" },	/* filters over-read */
		{ 4, 0, 0, 0, "uet/reg_bad u32 a" },			/* no tracefs directory */
		/* EXPECTED TO FAIL ON UPSTREAM: no check of duplicate field names */
		{ 4, 0, 0, 0, "uet_reg_dupf u32 a; u64 a" },
		/* EXPECTED TO FAIL ON UPSTREAM: 6.12 creates "" (then EADDRINUSE for the next) */
		{ 4, 0, 0, 0, "" },
		{ 4, 8, 0, 0, " u32 a" },
	};
	char cmd[1024], name[64];
	const char *c;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		c = bad[i].cmd ?: "uet_reg_args u32 a";
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, c, self->page + bad[i].off, bad[i].size,
					  bad[i].bit, bad[i].flags, NULL))
			TH_LOG("'%s' size %d offset %d bit %d flags %#x", c, bad[i].size,
			       bad[i].off, bad[i].bit, bad[i].flags);
		ue_cmd_name(name, sizeof(name), c);
		EXPECT_FALSE(name[0] && ue_event_exists(UE_SYS, name)) TH_LOG("'%s'", name);
	}
	/* overlong name */
	snprintf(cmd, sizeof(cmd), "uet_reg_long%0*d", (int)sizeof(cmd) - 13, 0);
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cmd, self->page, 4, 0, 0, NULL));
	/* well-formed fields one byte over the limit; one byte shorter, they are accepted */
	snprintf(cmd, sizeof(cmd), "uet_reg_long2 u32 a; u32 b%0*d", UE_CMD_MAX + 1 - 26, 0);
	ASSERT_EQ(UE_CMD_MAX + 1, strlen(cmd));
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cmd, self->page, 4, 0, 0, NULL));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_long2"));
	cmd[UE_CMD_MAX] = '\0';
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 0, NULL));
}

/* The size of struct user_reg: too small, too big, or bigger with a tail that must be zero */
TEST_F(reg, arg_size)
{
	struct {
		struct user_reg reg;
		__u8 tail[16];
	} big = { 0 };	/* user_reg/user_unreg are packed: no padding */
	int i, err;

	ASSERT_EQ(28, sizeof(struct user_reg));
	ue_fill_reg(&big.reg, "uet_reg_size u32 a", self->page, 4, 0, 0);
	for (i = 0; (err = ue_bad_arg_size(i, &big, sizeof(big.reg))); i++)
		EXPECT_EQ(-err, ue_reg_raw(self->t.fd, &big)) TH_LOG("size %u", big.reg.size);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_size"));
	ue_fill_reg(&big.reg, "uet_reg_tail u32 a", self->page, 4, 0, 0);
	big.reg.size = sizeof(big);
	big.tail[15] = 1;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->t.fd, &big));
	big.tail[15] = 0;
	big.reg.write_index = UINT32_MAX;
	ASSERT_EQ(0, ue_reg_raw(self->t.fd, &big));
	EXPECT_NE(UINT32_MAX, big.reg.write_index);
	EXPECT_EQ(0, ue_unreg(self->t.fd, self->page, 0));
}

/* mapped and writable, but out of the kernel's reach */
static char *secret_page(void)
{
	char *page = MAP_FAILED;
#ifdef __NR_memfd_secret
	int fd = syscall(__NR_memfd_secret, 0);

	if (fd >= 0 && !ftruncate(fd, getpagesize()))
		page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
#endif
	return page == MAP_FAILED ? NULL : page;
}

/*
 * EFAULT, no registration, for a word the kernel cannot write: not user memory, unmapped, not
 * writable (also once read faulted in), memfd_secret (when CONFIG_SECRETMEM is there).
 * EXPECTED TO FAIL ON UPSTREAM: 6.12 says ENOMEM for user addresses it fails to fault in.
 */
TEST_F(reg, unwritable_addr)
{
	char *gone = ue_map_page(PROT_READ | PROT_WRITE), *ro = ue_map_page(PROT_READ);
	char *none = ue_map_page(PROT_NONE), *secret = secret_page();
	/* kernel space (32-bit: its top page) */
	char *kernel = sizeof(void *) == 4 ? (char *)(uintptr_t)0xfffff000u :
		       (char *)(uintptr_t)0xffffffffff600000ull;
	const struct { char *addr; int size, bit; } cases[] = {
		{ gone, 4, 0 }, { gone + 8, 8, 3 }, { NULL, 4, 0 }, { kernel, 8, 0 },
		{ (char *)-8l, 8, 0 }, { ro, 4, 0 }, { ro + 8, 8, 1 }, { none, 4, 0 },
		{ secret, 4, 0 },
	};
	int i, n = ARRAY_SIZE(cases) - !secret;

	ASSERT_TRUE(ue_nonnull(gone));
	ASSERT_TRUE(ue_nonnull(ro));
	ASSERT_TRUE(ue_nonnull(none));
	ASSERT_EQ(0, munmap(gone, getpagesize()));
	if (secret)
		secret[0] = 1;	/* present and written by its owner */
	else
		TH_LOG("no memfd_secret: that case not run");
	for (i = 0; i < n; i++) {
		EXPECT_EQ(-EFAULT, ue_reg(self->t.fd, "uet_reg_unw u32 a", cases[i].addr,
					  cases[i].size, cases[i].bit, 0, NULL))
			TH_LOG("case %d", i);
		/* read fault the zero page in after the first try: still not writable */
		if (cases[i].addr == ro)
			EXPECT_EQ(0, __atomic_load_n((uint32_t *)ro, __ATOMIC_RELAXED));
	}
	for (i = 0; i < n; i++)
		EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, cases[i].addr, cases[i].bit))
			TH_LOG("case %d", i);
	if (secret)
		munmap(secret, getpagesize());
	munmap(ro, getpagesize());
	munmap(none, getpagesize());
}

/* (address, bit) is per process, any event or file: upstream 6.4 "Prevent same address..." */
TEST_F(reg, addr_bit_in_use)
{
	const char *cmd = "uet_reg_inuse u32 a", *cmd2 = "uet_reg_inuse2 u32 a";
	__u32 *w = (__u32 *)self->page;
	int fd2 = ue_open_data();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, w, 4, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd, w, 4, 3, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd2, w, 4, 3, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(fd2, cmd, w, 4, 3, 0, NULL));
	close(fd2);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_inuse2"));
	/* other bits of the word, the bit elsewhere: fine */
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd, w, 4, 4, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd2, w, 4, 5, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd2, w + 1, 4, 3, NULL));
	if (geteuid() != 0) {
		/* a skip, unless it would hide a failure above */
		if (_metadata->exit_code == KSFT_PASS)
			SKIP(return, "enabling needs root: that case not run");
		TH_LOG("enabling needs root: that case not run");
		return;
	}
	/* enabling one event sets its bits only */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_reg_inuse2"));
	EXPECT_TRUE(ue_wait_bit(w + 1, 4, 3, true));
	EXPECT_TRUE(ue_wait_bit(w, 4, 5, true));
	EXPECT_EQ(1u << 5, __atomic_load_n(w, __ATOMIC_ACQUIRE));
}

TEST_F(reg, name_conflict_fields)
{
	static const char * const conflicts[] = {
		"uet_reg_conflict u64 a",
		"uet_reg_conflict u32 b",
		"uet_reg_conflict u32 a; u32 b",
		"uet_reg_conflict",
		"uet_reg_conflict s32 a",
		"uet_reg_conflict unsigned int a",	/* compared as text */
		"uet_reg_conflict char[4] a",
		"uet_reg_conflict u32 a ;",		/* ";" a word alone */
	};
	int i;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_conflict u32 a", self->page, 4, 0, NULL));
	for (i = 0; i < ARRAY_SIZE(conflicts); i++)
		EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, conflicts[i], self->page + 8, 4, i,
					      0, NULL)) TH_LOG("'%s'", conflicts[i]);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_conflict_nf", self->page + 16, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_reg_conflict_nf u32 a",
				      self->page + 16, 4, 1, 0, NULL));
}

/* One event, one write index, whatever the bit, size, address or spacing of the fields */
TEST_F(reg, same_event_same_index)
{
	static const char * const same[] = {
		"uet_reg_same u32 x;u32 y",
		"uet_reg_same u32 x; u32 y",
		"uet_reg_same u32 x;u32 y;",
		"uet_reg_same u32 x; u32 y;",
		"uet_reg_same u32 x;  u32 y",
		"uet_reg_same  u32 x;u32 y",
		/* the words are compared, split at any white space */
		"uet_reg_same u32  x;\tu32\ty ",
	};
	__u32 first, idx;
	int i;

	ASSERT_EQ(0, ue_track_reg(&self->t, same[0], self->page, 4, 0, &first));
	for (i = 0; i < ARRAY_SIZE(same); i++) {
		idx = UINT32_MAX;
		EXPECT_EQ(0, ue_track_reg(&self->t, same[i], self->page, 4, i + 1, &idx))
			TH_LOG("'%s'", same[i]);
		EXPECT_EQ(first, idx);
	}
	ASSERT_EQ(0, ue_track_reg(&self->t, same[0], self->page + 8, 8, 40, &idx));
	EXPECT_EQ(first, idx);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_same_other u32 x;u32 y", self->page + 16, 4,
				  0, &idx));
	EXPECT_NE(first, idx);
}

TEST_F(reg, persist_flag)
{
	if (geteuid() != 0)
		SKIP(return, "USER_EVENT_REG_PERSIST needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_reg_persist");
	ASSERT_EQ(0, ue_reg_once("uet_reg_persist u32 a", self->page, USER_EVENT_REG_PERSIST));
	/* unreferenced, it stays; registering it again (without the flag) reuses it */
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_persist"));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_reg_persist u32 a", self->page + 8, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_reg_persist u64 a", self->page + 8, 4, 1,
				      0, NULL));
}

TEST_F(reg, multi_format)
{
	const char *name = "uet_reg_multi";
	__u16 multi = USER_EVENT_REG_MULTI_FORMAT;
	__u32 a, b, c, single;
	char tp[UE_NAME_MAX];
	struct ue_track *t = &self->t;

	ASSERT_EQ(0, ue_track_reg_fd(t, t->fd, "uet_reg_multi u32 a", self->page, 4, 0, multi,
				     &a));
	EXPECT_EQ(1, ue_multi_versions(name, NULL, tp, sizeof(tp)));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, tp));
	/* not under the plain name; another format is a new tracepoint, the same one is not */
	EXPECT_FALSE(ue_event_exists(UE_SYS, name));
	ASSERT_EQ(0, ue_track_reg_fd(t, t->fd, "uet_reg_multi u64 b", self->page, 4, 1, multi,
				     &b));
	EXPECT_NE(a, b);
	EXPECT_EQ(2, ue_multi_versions(name, NULL, NULL, 0));
	ASSERT_EQ(0, ue_track_reg_fd(t, t->fd, "uet_reg_multi u32 a", self->page, 4, 2, multi,
				     &c));
	EXPECT_EQ(a, c);
	EXPECT_EQ(2, ue_multi_versions(name, NULL, NULL, 0));
	/* single-format events have names of their own */
	ASSERT_EQ(0, ue_track_reg(t, "uet_reg_multi u16 c", self->page, 4, 3, &single));
	EXPECT_TRUE(ue_event_exists(UE_SYS, name));
	EXPECT_NE(a, single);
	EXPECT_NE(b, single);
}

/* DIAG_IOCSDEL of an unknown event, and of one our file and enabler reference */
TEST_F(reg, del_busy)
{
	EXPECT_EQ(-ENOENT, ue_del(self->t.fd, "uet_reg_never_existed"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_reg_never_existed2"));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_delbusy u32 a", self->page, 4, 0, NULL));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_reg_delbusy"));
	EXPECT_EQ(-EBUSY, ue_del(self->t.fd, "uet_reg_delbusy"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_delbusy"));
}

/* dynamic_events' events persist until deleted, busy while enabled */
TEST_F(reg, del_dynamic_event)
{
	if (geteuid() != 0)
		SKIP(return, "dynamic_events needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_reg_dyn");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_reg_dyn u32 a; u64 b"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_dyn"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_reg_dyn u32 a; u64 b"));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_dyn u32 a;u64 b", self->page, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_reg_dyn u32 a", self->page, 4, 1, 0,
				      NULL));
	/* never used: deleted at once; in use, then unused: deleted without waiting */
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_reg_dyn2 u32 a"));
	ue_track_del(&self->t, "uet_reg_dyn2");
	EXPECT_EQ(0, ue_del_name("uet_reg_dyn2"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_dyn2"));
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_reg_dyn2 u32 a"));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_reg_dyn2"));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_reg_dyn2"));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_reg_dyn2", false));
	EXPECT_EQ(0, ue_del_name("uet_reg_dyn2"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_dyn2"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_reg_dyn2"));
}

/*
 * Once the last user unregistered and closed: deleted (0) or gone (ENOENT), never EBUSY; the
 * name takes another format at once; a persistent one deletes.  EXPECTED TO FAIL ON
 * UPSTREAM: it drops the enabler's reference after an RCU grace period.
 */
TEST_F(reg, after_last_ref)
{
	int ret;

	ASSERT_EQ(0, ue_reg_once("uet_reg_dellast u32 a", self->page, 0));
	ret = ue_del_name("uet_reg_dellast");
	EXPECT_TRUE(ret == 0 || ret == -ENOENT) TH_LOG("DIAG_IOCSDEL: %d", ret);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_dellast"));

	ASSERT_EQ(0, ue_reg_once("uet_reg_reformat u32 a", self->page, 0));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_reg_reformat u64 b; u32 c", self->page, 4, 0,
				  NULL));
	if (geteuid() != 0) {
		/* a skip, unless it would hide a failure above */
		if (_metadata->exit_code == KSFT_PASS)
			SKIP(return, "USER_EVENT_REG_PERSIST needs CAP_PERFMON: that case not run");
		TH_LOG("USER_EVENT_REG_PERSIST needs CAP_PERFMON: that case not run");
		return;
	}
	ue_track_del(&self->t, "uet_reg_delpersist");
	ASSERT_EQ(0, ue_reg_once("uet_reg_delpersist u32 a", self->page + 8,
				 USER_EVENT_REG_PERSIST));
	EXPECT_EQ(0, ue_del_name("uet_reg_delpersist"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_delpersist"));
}

/* An address nothing can write is refused, and leaves no write index */
TEST_F(reg, unwritable_enable_addr)
{
	void *ro = ue_map_page(PROT_READ);
	__u32 idx = 7;

	ASSERT_TRUE(ue_nonnull(ro));
	EXPECT_EQ(-EFAULT, ue_reg(self->t.fd, "uet_di_ro u32 a", ro, 4, 0, 0, &idx));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_di_rw u32 a", self->page, 4, 0, &idx));
	EXPECT_EQ(0, idx);
	munmap(ro, getpagesize());
}

#define SLOT_THREADS	4
#define SLOT_EVENTS	48	/* per thread */
#define SLOT_N		(SLOT_THREADS * SLOT_EVENTS)
#define SLOT_SECS	2.0	/* rounds for this long, at least one */

/* A registering thread: its events at bit @bit of the u32 words at @words, on @fd */
struct slot_thread {
	int fd, t, bit, errors;
	char *words;
	__u32 idx[SLOT_EVENTS];
};

/* Register thread @t's event uet_rg_sl<t>_<k> at bit @bit of the u32 at @addr */
static int slot_reg(int fd, int t, int k, char *addr, int bit, __u32 *idx)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "uet_rg_sl%d_%d u32 a", t, k);
	return ue_reg(fd, cmd, addr, 4, bit, 0, idx);
}

/* Register all of thread @w->t's events, one to a word; counts the failures */
static void *slot_reg_all(void *arg)
{
	struct slot_thread *w = arg;
	int k;

	for (k = 0; k < SLOT_EVENTS; k++)
		w->errors += !!slot_reg(w->fd, w->t, k, w->words + 4 * k, w->bit, &w->idx[k]);
	return NULL;
}

/* Unregister all of thread @w->t's events */
static void slot_unreg_all(struct __test_metadata *_metadata, struct slot_thread *w)
{
	int k;

	for (k = 0; k < SLOT_EVENTS; k++)
		EXPECT_EQ(0, ue_unreg(w->fd, w->words + 4 * k, w->bit))
			TH_LOG("thread %d event %d bit %d", w->t, k, w->bit);
}

/* One round: threads grow a new file's write-index table at once; no slot lost or shared */
static void slot_round(struct __test_metadata *_metadata, char *page)
{
	struct slot_thread st[SLOT_THREADS];
	bool started[SLOT_THREADS], seen[SLOT_N] = { false };
	int fd = ue_open_data(), t, k;
	pthread_t th[SLOT_THREADS];
	__u32 idx;

	ASSERT_LE(0, fd);
	for (t = 0; t < SLOT_THREADS; t++) {
		st[t] = (struct slot_thread){ .fd = fd, .t = t,
					      .words = page + 4 * SLOT_EVENTS * t };
		started[t] = !pthread_create(&th[t], NULL, slot_reg_all, &st[t]);
		if (!started[t])
			st[t].errors = SLOT_EVENTS;
	}
	for (t = 0; t < SLOT_THREADS; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		EXPECT_EQ(0, st[t].errors);
		for (k = 0; !st[t].errors && k < SLOT_EVENTS; k++) {
			idx = st[t].idx[k];
			EXPECT_TRUE(idx < SLOT_N && !seen[idx])
				TH_LOG("index %u out of range or given twice", idx);
			if (idx < SLOT_N)
				seen[idx] = true;
		}
	}
	/* each event kept its slot: registering the first and last again finds the same */
	for (k = 0; k < 2; k++) {
		t = k ? SLOT_THREADS - 1 : 0;
		EXPECT_EQ(0, slot_reg(fd, t, k * (SLOT_EVENTS - 1), page + 4 * SLOT_N, k, &idx));
		EXPECT_EQ(st[t].idx[k * (SLOT_EVENTS - 1)], idx);
		EXPECT_EQ(0, ue_unreg(fd, page + 4 * SLOT_N, k));
	}
	for (t = 0; t < SLOT_THREADS; t++)
		slot_unreg_all(_metadata, &st[t]);
	close(fd);
}

/*
 * Write-index tables grow outside the lock all files share: a racing registration must not
 * lose its slot.  A registration of their own (bit 1) keeps the events between rounds.
 */
TEST_F_TIMEOUT(reg, slots_grow_concurrently, 60)
{
	struct slot_thread keep[SLOT_THREADS];
	int fd = ue_open_data(), t, rounds = 0;
	struct timespec start;
	char name[64];

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_LE(0, fd);
	for (t = 0; t < SLOT_THREADS; t++) {
		keep[t] = (struct slot_thread){ .fd = fd, .t = t, .bit = 1,
					      .words = self->page + 4 * SLOT_EVENTS * t };
		slot_reg_all(&keep[t]);
		ASSERT_EQ(0, keep[t].errors);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		slot_round(_metadata, self->page);
		rounds++;
	} while (_metadata->exit_code == KSFT_PASS && ue_elapsed(&start) < SLOT_SECS);
	TH_LOG("%d rounds in %.1f s", rounds, ue_elapsed(&start));
	for (t = 0; t < SLOT_THREADS; t++)
		slot_unreg_all(_metadata, &keep[t]);
	close(fd);
	ue_leftovers("uet_rg_sl", true, name, sizeof(name));
}

TEST_HARNESS_MAIN
