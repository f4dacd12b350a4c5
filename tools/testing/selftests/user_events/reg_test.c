// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI: DIAG_IOCSREG argument checking and command parsing,
 * DIAG_IOCSDEL, registration flags.
 */
#include "../kselftest_harness.h"
#include "ue_util.h"

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

/* @cmd registers event @name with a write index, its word untouched */
static void reg_simple(struct __test_metadata *_metadata, struct ue_track *t,
		       __u32 *word, const char *cmd, const char *name)
{
	__u32 idx = UINT32_MAX;

	ASSERT_EQ(0, ue_track_reg(t, cmd, word, 4, 0, &idx));
	EXPECT_NE(UINT32_MAX, idx);
	EXPECT_TRUE(ue_event_exists(UE_SYS, name));
	EXPECT_GT(ue_event_id(UE_SYS, name), 0);
	EXPECT_EQ(0, *word);
}

TEST_F(reg, basic)
{
	reg_simple(_metadata, &self->t, (__u32 *)self->page, "uet_reg_basic u32 a",
		   "uet_reg_basic");
}

TEST_F(reg, no_fields)
{
	reg_simple(_metadata, &self->t, (__u32 *)self->page, "uet_reg_nofields",
		   "uet_reg_nofields");
}

TEST_F(reg, same_event_same_index)
{
	const char *cmd = "uet_reg_same u32 a";
	__u32 first, second, other;

	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 0, &first));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 1, &second));
	EXPECT_EQ(first, second);
	/* Even with different enable sizes / addresses */
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page + 8, 8, 40, &second));
	EXPECT_EQ(first, second);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_same_other u32 a",
				  self->page + 16, 4, 0, &other));
	EXPECT_NE(first, other);
}

TEST_F(reg, size_too_big)
{
	struct user_reg reg;

	ue_fill_reg(&reg, "uet_reg_big u32 a", self->page, 4, 0, 0);
	reg.size = getpagesize() + 1;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->t.fd, &reg));
	reg.size = UINT32_MAX;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->t.fd, &reg));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_big"));
}

TEST_F(reg, size_too_small)
{
	struct user_reg reg;
	__u32 sizes[] = { 0, 1, 4, sizeof(reg) - 1 };
	int i;

	ASSERT_EQ(28, sizeof(struct user_reg));
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ue_fill_reg(&reg, "uet_reg_small u32 a", self->page, 4, 0, 0);
		reg.size = sizes[i];
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->t.fd, &reg)) TH_LOG("size %u", sizes[i]);
	}
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_small"));
}

/* A bigger struct is fine as long as the unknown tail is zero. */
TEST_F(reg, size_larger_tail)
{
	struct {
		struct user_reg reg;
		__u8 tail[16];
	} big = { 0 };	/* user_reg/user_unreg are packed: no padding */

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

TEST_F(reg, bad_flags)
{
	__u16 flags[] = { USER_EVENT_REG_MAX, USER_EVENT_REG_MAX << 1, 1 << 15, 0xffff };
	int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_reg_flags u32 a", self->page, 4, 0,
					  flags[i], NULL)) TH_LOG("flags 0x%x", flags[i]);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_flags"));
}

TEST_F(reg, bad_enable_size)
{
	int sizes[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_reg_esize u32 a", self->page,
					  sizes[i], 0, 0, NULL)) TH_LOG("size %d", sizes[i]);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_esize"));
}

/* Misaligned addresses (offset, size), then bits out of range (size, bit) */
TEST_F(reg, misaligned_addr)
{
	static const int cases[][2] = { {1, 4}, {2, 4}, {3, 4}, {1, 8}, {4, 8}, {12, 8} };
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_reg_align u32 a",
					  self->page + cases[i][0], cases[i][1], 0, 0, NULL));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_align"));
}

TEST_F(reg, bit_out_of_range)
{
	static const int cases[][2] = { {4, 32}, {4, 63}, {8, 64}, {8, 255} };
	const char *cmd = "uet_reg_bits u32 a";
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cmd, self->page, cases[i][0],
					  cases[i][1], 0, NULL));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_bits"));
	/* The highest valid bits work */
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 31, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd, self->page + 8, 8, 63, NULL));
}

/*
 * An enable address the kernel cannot write is refused with EFAULT, whether
 * it is outside the user address space, unmapped or not writable.
 * EXPECTED TO FAIL ON UPSTREAM: 6.12 reports user addresses it fails to
 * fault in with ENOMEM, like an allocation failure.
 */
TEST_F(reg, unmapped_addr)
{
	int fd = self->t.fd;
	const char *cmd = "uet_reg_unmapped u32 a";
	char *gone = ue_map_page(PROT_READ | PROT_WRITE);

	ASSERT_TRUE(ue_nonnull(gone));
	ASSERT_EQ(0, munmap(gone, getpagesize()));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, gone, 4, 0, 0, NULL));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, gone + 8, 8, 3, 0, NULL));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, NULL, 4, 0, 0, NULL));
	/* Kernel half of the address space (32-bit: above its top page) */
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, sizeof(void *) == 4 ?
				  (void *)(uintptr_t)0xfffff000u :
				  (void *)(uintptr_t)0xffffffffff600000ull, 8, 0, 0, NULL));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, (void *)-8l, 8, 0, 0, NULL));
	/* None of that left a registration behind */
	EXPECT_EQ(-ENOENT, ue_unreg(fd, gone, 0));
	EXPECT_EQ(-ENOENT, ue_unreg(fd, NULL, 0));
}

/* memfd_secret memory: mapped and writable, but out of the kernel's reach */
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

/* Mapped but not writable by the kernel: EFAULT as well; the bit could never move. */
TEST_F(reg, readonly_addr)
{
	int fd = self->t.fd;
	const char *cmd = "uet_reg_ro u32 a";
	char *ro = ue_map_page(PROT_READ), *none = ue_map_page(PROT_NONE);
	char *secret = secret_page();

	ASSERT_TRUE(ue_nonnull(ro));
	ASSERT_TRUE(ue_nonnull(none));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, ro, 4, 0, 0, NULL));
	/* Read fault the zero page in first: still not writable */
	EXPECT_EQ(0, __atomic_load_n((uint32_t *)ro, __ATOMIC_RELAXED));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, ro + 8, 8, 1, 0, NULL));
	EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, none, 4, 0, 0, NULL));
	EXPECT_EQ(-ENOENT, ue_unreg(fd, ro, 0));
	if (secret) {	/* CONFIG_SECRETMEM */
		secret[0] = 1;	/* present and written by its owner */
		EXPECT_EQ(-EFAULT, ue_reg(fd, cmd, secret, 4, 0, 0, NULL));
		EXPECT_EQ(-ENOENT, ue_unreg(fd, secret, 0));
		munmap(secret, getpagesize());
	} else {
		TH_LOG("no memfd_secret: that case not run");
	}
	munmap(ro, getpagesize());
	munmap(none, getpagesize());
}

TEST_F(reg, addr_bit_in_use)
{
	const char *cmd = "uet_reg_inuse u32 a", *cmd2 = "uet_reg_inuse2 u32 a";
	int fd2 = ue_open_data();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 3, NULL));
	/* Same event, same address and bit; another event cannot take them either */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd, self->page, 4, 3, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd2, self->page, 4, 3, 0, NULL));
	/* The check is per process, not per file */
	EXPECT_EQ(-EADDRINUSE, ue_reg(fd2, cmd, self->page, 4, 3, 0, NULL));
	close(fd2);
	/* Other bits of the same word are fine */
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 4, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, cmd2, self->page, 4, 5, NULL));
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
	/* Also an event without fields against one with fields */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_conflict_nf", self->page + 16, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_reg_conflict_nf u32 a",
				      self->page + 16, 4, 1, 0, NULL));
}

TEST_F(reg, spacing_equivalent)
{
	static const char * const same[] = {
		"uet_reg_space u32 x; u32 y",
		"uet_reg_space u32 x;u32 y;",
		"uet_reg_space u32 x; u32 y;",
		"uet_reg_space u32 x;  u32 y",
		"uet_reg_space  u32 x;u32 y",
		/* the words are compared, split at any white space */
		"uet_reg_space u32  x;\tu32\ty ",
	};
	__u32 first, idx;
	int i;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_space u32 x;u32 y", self->page, 4, 0,
				  &first));
	for (i = 0; i < ARRAY_SIZE(same); i++) {
		idx = UINT32_MAX;
		EXPECT_EQ(0, ue_track_reg(&self->t, same[i], self->page, 4, i + 1, &idx))
			TH_LOG("'%s'", same[i]);
		EXPECT_EQ(first, idx);
	}
}

TEST_F(reg, malformed)
{
	static const char * const bad[] = {
		"uet_reg_bad u128 a",			/* unknown type */
		"uet_reg_bad long a",			/* long is ambiguous */
		"uet_reg_bad u32",			/* no field name */
		"uet_reg_bad u32 a b",			/* trailing junk */
		"uet_reg_bad char[0] a",		/* zero sized array */
		"uet_reg_bad char[abc] a",		/* non-numeric size */
		"uet_reg_bad char[] a",			/* missing size */
		"uet_reg_bad char[4 a",			/* unterminated */
		"uet_reg_bad char[100000] a",		/* too big */
		"uet_reg_bad struct foo a",		/* struct needs a size */
		"uet_reg_bad struct foo a 0",		/* zero sized struct */
		"uet_reg_bad struct foo a x",		/* bad struct size */
		"uet_reg_bad __data_loc",		/* incomplete */
		"uet_reg_bad:flag u32 a",		/* no text flags exist */
		"uet_reg_bad u32 a; u64",		/* second field broken */
		"uet_reg_bad u32  a",			/* two spaces */
		"uet_reg_bad u32\ta",			/* a tab in a field */
		"uet_reg_bad u32 a ;u32 b",		/* a space before ';' */
		"uet_reg_bad char[0x0000001] a",	/* over 7 bytes after [ */
		"uet_reg_bad __data_loc cpumask_t[] a",	/* filters over-read */
		"uet/reg_bad u32 a",			/* no tracefs directory */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, bad[i], self->page, 4, 0, 0, NULL))
			TH_LOG("'%s'", bad[i]);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_bad"));
}

TEST_F(reg, overlong)
{
	char cmd[1024];

	memset(cmd, 'n', sizeof(cmd) - 1);
	cmd[sizeof(cmd) - 1] = '\0';
	memcpy(cmd, "uet_reg_long", strlen("uet_reg_long"));
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cmd, self->page, 4, 0, 0, NULL));
	/* Long because of the fields */
	snprintf(cmd, sizeof(cmd), "uet_reg_long2 u32 a");
	while (strlen(cmd) < sizeof(cmd) - 16)
		strcat(cmd, "                ");
	strcat(cmd, "; u32 b");
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cmd, self->page, 4, 0, 0, NULL));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_long2"));
}

/*
 * Our kernel rejects an empty event name.  Upstream 6.12 creates an event
 * called "" (the second case then fails there with EADDRINUSE against it).
 * EXPECTED TO FAIL ON UPSTREAM.
 */
TEST_F(reg, empty_name)
{
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "", self->page, 4, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, " u32 a", self->page + 8, 4, 0, 0, NULL));
}

/* Two fields with the same name: EXPECTED TO FAIL ON UPSTREAM (no check there). */
TEST_F(reg, duplicate_field_name)
{
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_reg_dupf u32 a; u64 a", self->page, 4, 0, 0,
				  NULL));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_dupf"));
}

TEST_F(reg, all_types)
{
	static const char * const types[] = {
		"s8 f", "u8 f", "s16 f", "u16 f", "s32 f", "u32 f", "s64 f", "u64 f", "int f",
		"unsigned int f", "short f", "unsigned short f", "char f",
		"unsigned char f", "char[20] f", "unsigned char[3] f",
		"__data_loc char[] f", "__data_loc unsigned char[] f",
		"__rel_loc char[] f", "__rel_loc unsigned char[] f",
		"struct mystruct f 24",
		/* any dynamic element type; array sizes in any base */
		"__rel_loc u8[] f", "__data_loc u32[] f", "char[0x10] f",
		"unsigned char[010] f",
	};
	char cmd[128], name[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		snprintf(name, sizeof(name), "uet_reg_type%d", i);
		snprintf(cmd, sizeof(cmd), "%s %s", name, types[i]);
		EXPECT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 8, i, NULL))
			TH_LOG("'%s'", cmd);
		EXPECT_TRUE(ue_event_exists(UE_SYS, name));
	}
	/* And all of them in one event */
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_reg_mixed s8 a; u16 b; s64 c; char[5] d; "
				  "__data_loc char[] e; __rel_loc char[] f; "
				  "struct foo g 12; unsigned int h", self->page + 8, 4, 0, NULL));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_mixed"));
}

TEST_F(reg, persist_flag)
{
	if (geteuid() != 0)
		SKIP(return, "USER_EVENT_REG_PERSIST needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_reg_persist");
	ASSERT_EQ(0, ue_reg_once("uet_reg_persist u32 a", self->page, USER_EVENT_REG_PERSIST));
	/* Nothing references it any more, yet it stays around */
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_persist"));
	/* Registering it again, with or without the flag, reuses it */
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
	/* Multi-format events do not show up under the plain name */
	EXPECT_FALSE(ue_event_exists(UE_SYS, name));
	/* A different format under the same name is a new tracepoint */
	ASSERT_EQ(0, ue_track_reg_fd(t, t->fd, "uet_reg_multi u64 b", self->page, 4, 1, multi,
				     &b));
	EXPECT_NE(a, b);
	EXPECT_EQ(2, ue_multi_versions(name, NULL, NULL, 0));
	/* The same format maps to the same tracepoint again */
	ASSERT_EQ(0, ue_track_reg_fd(t, t->fd, "uet_reg_multi u32 a", self->page, 4, 2, multi,
				     &c));
	EXPECT_EQ(a, c);
	EXPECT_EQ(2, ue_multi_versions(name, NULL, NULL, 0));
	/* Single-format events live in their own namespace */
	ASSERT_EQ(0, ue_track_reg(t, "uet_reg_multi u16 c", self->page, 4, 3, &single));
	EXPECT_TRUE(ue_event_exists(UE_SYS, name));
	EXPECT_NE(a, single);
	EXPECT_NE(b, single);
}

/* DIAG_IOCSDEL */
TEST_F(reg, del_unknown)
{
	EXPECT_EQ(-ENOENT, ue_del(self->t.fd, "uet_reg_never_existed"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_reg_never_existed2"));
}

TEST_F(reg, del_busy_registered)
{
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_delbusy u32 a", self->page, 4, 0, NULL));
	/* Referenced by our file and our enabler */
	EXPECT_EQ(-EBUSY, ue_del_name("uet_reg_delbusy"));
	EXPECT_EQ(-EBUSY, ue_del(self->t.fd, "uet_reg_delbusy"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_delbusy"));
}

TEST_F(reg, del_busy_ftrace)
{
	if (geteuid() != 0)
		SKIP(return, "dynamic_events needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_reg_delftrace");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_reg_delftrace u32 a"));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_reg_delftrace"));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_reg_delftrace"));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_reg_delftrace"));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_reg_delftrace", false));
	EXPECT_EQ(0, ue_del_name("uet_reg_delftrace"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_delftrace"));
}

/* Events created through dynamic_events persist until deleted. */
TEST_F(reg, del_dynamic_event)
{
	if (geteuid() != 0)
		SKIP(return, "dynamic_events needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_reg_dyn");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_reg_dyn u32 a; u64 b"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_reg_dyn"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_reg_dyn u32 a; u64 b"));
	/* ioctl registration of the same format shares the event */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_reg_dyn u32 a;u64 b", self->page, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_reg_dyn u32 a", self->page, 4, 1, 0,
				      NULL));
	/* In use, then unused: delete must work without any waiting */
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_reg_dyn2 u32 a"));
	ue_track_del(&self->t, "uet_reg_dyn2");
	EXPECT_EQ(0, ue_del_name("uet_reg_dyn2"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_dyn2"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_reg_dyn2"));
}

/*
 * The next three act right after the last user unregistered and closed.
 * EXPECTED TO FAIL ON UPSTREAM: it drops the enabler's reference only after
 * an RCU grace period (EBUSY, EADDRINUSE in that window).
 */
TEST_F(reg, del_persist_after_unreg)
{
	if (geteuid() != 0)
		SKIP(return, "USER_EVENT_REG_PERSIST needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_reg_delpersist");
	ASSERT_EQ(0, ue_reg_once("uet_reg_delpersist u32 a", self->page, USER_EVENT_REG_PERSIST));
	EXPECT_EQ(0, ue_del_name("uet_reg_delpersist"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_delpersist"));
}

/* Not persistent: deleted now (0) or already (ENOENT), never EBUSY, and gone. */
TEST_F(reg, del_after_last_ref)
{
	int ret;

	ASSERT_EQ(0, ue_reg_once("uet_reg_dellast u32 a", self->page, 0));
	ret = ue_del_name("uet_reg_dellast");
	EXPECT_TRUE(ret == 0 || ret == -ENOENT) TH_LOG("DIAG_IOCSDEL: %d", ret);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_reg_dellast"));
}

/* Re-registering the name with another format succeeds at once. */
TEST_F(reg, rereg_new_format_after_last_ref)
{
	ASSERT_EQ(0, ue_reg_once("uet_reg_reformat u32 a", self->page, 0));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_reg_reformat u64 b; u32 c", self->page, 4, 0,
				  NULL));
}

TEST_HARNESS_MAIN
