// SPDX-License-Identifier: GPL-2.0
/*
 * user_events through tracefs dynamic_events: "u:NAME fields" creates a persistent event;
 * "-:NAME", "-:user_events/NAME", "!u:NAME" and "!u:NAME fields" (only if the fields match)
 * delete it.  It is listed as "u:NAME type a; type b", each type as written (char[0x10]
 * stays).  Grammar and matching are DIAG_IOCSREG's, but a delete's field list is split at
 * white space only, as upstream does ("a;u64" is a word).
 *
 * PARTLY EXPECTED TO FAIL ON UPSTREAM (6.12): there "-:NAME" and "!u:NAME" without fields only
 * match events without fields, and deletes right after the last close see EBUSY.
 */
#include "../kselftest_harness.h"
#include "ue_util.h"
#include <linux/elf.h>

/* Without both (2) creating and deleting fail with EPERM, even for uid 0 */
static const int perfmon_caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };

FIXTURE(dynevent) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(dynevent)
{
	UE_SETUP(UE_ROOT);
}

FIXTURE_TEARDOWN(dynevent)
{
	UE_TEARDOWN();
}

/* "u:NAME FIELDS", deleted by the teardown */
static int dyn_create(struct ue_track *t, const char *name, const char *fields)
{
	char cmd[1024];

	ue_track_del(t, name);
	snprintf(cmd, sizeof(cmd), "u:%s%s%s", name, *fields ? " " : "", fields);
	return ue_dyn_cmd(cmd);
}

/* @name is in dynamic_events, its line reading @want (if not NULL) */
static bool listed(const char *name, const char *want)
{
	char line[1200];

	if (!ue_dyn_line(name, line, sizeof(line)))
		return false;
	if (want && strcmp(want, line))
		ksft_print_msg("dynamic_events: '%s', not '%s'\n", line, want);
	return !want || !strcmp(want, line);
}

/* @cmd succeeds and event @name is gone from tracefs and the listing */
static bool deletes(const char *cmd, const char *name)
{
	return !ue_dyn_cmd(cmd) && !ue_event_exists(UE_SYS, name) && !listed(name, NULL);
}

/* Each way to delete @name (fields "u32 a") fails with @err, without perfmon_caps if @nocap */
static void no_delete(struct __test_metadata *_metadata, const char *name, int err, bool nocap)
{
	static const char * const fmts[] = { "-:%s", "-:user_events/%s", "!u:%s", "!u:%s u32 a" };
	char cmd[128];
	int i;

	for (i = 0; i < ARRAY_SIZE(fmts); i++) {
		snprintf(cmd, sizeof(cmd), fmts[i], name);
		EXPECT_EQ(err, nocap ? ue_run_without_caps(perfmon_caps, 2, ue_cb_dyn, cmd) :
			  ue_dyn_cmd(cmd)) TH_LOG("'%s'", cmd);
	}
	EXPECT_EQ(err, nocap ? ue_run_without_caps(perfmon_caps, 2, ue_cb_del, (void *)name) :
		  ue_del_name(name));
	EXPECT_TRUE(ue_event_exists(UE_SYS, name));
}

TEST_F(dynevent, create_list_delete)
{
	char line[256];

	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_basic", "u32 a; u64 b"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_basic"));
	EXPECT_GT(ue_event_id(UE_SYS, "uet_dy_basic"), 0);
	/* the same event again is fine, other fields are refused */
	EXPECT_EQ(0, dyn_create(&self->t, "uet_dy_basic", "u32 a;u64 b;"));
	EXPECT_EQ(-EADDRINUSE, dyn_create(&self->t, "uet_dy_basic", "u32 a"));
	EXPECT_EQ(-EADDRINUSE, dyn_create(&self->t, "uet_dy_basic", ""));
	EXPECT_EQ(-EADDRINUSE, dyn_create(&self->t, "uet_dy_basic", "u64 a; u32 b"));
	EXPECT_TRUE(listed("uet_dy_basic", "u:uet_dy_basic u32 a; u64 b"));
	/* unused: listed in the status file without comment */
	ASSERT_TRUE(ue_status_line("uet_dy_basic", line, sizeof(line)));
	EXPECT_STREQ("uet_dy_basic", line);
	EXPECT_TRUE(deletes("-:uet_dy_basic", "uet_dy_basic"));
	EXPECT_FALSE(ue_status_line("uet_dy_basic", line, sizeof(line)));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:uet_dy_basic"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_dy_basic"));
}

TEST_F(dynevent, persists_until_deleted)
{
	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_persist", "u32 a"));
	ASSERT_EQ(0, ue_reg_once("uet_dy_persist u32 a", self->page, 0));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_persist"));
	EXPECT_TRUE(listed("uet_dy_persist", NULL));
	EXPECT_EQ(0, ue_del_name("uet_dy_persist"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_dy_persist"));
	EXPECT_FALSE(listed("uet_dy_persist", NULL));
}

/*
 * "; " between fields, nothing else around them, struct sizes; the types as written (hex and
 * octal array sizes, text after the ']', any dynamic element type).  The listing round-trips:
 * it creates the same event again, and after a '!' deletes it.
 */
TEST_F(dynevent, canonical_listing)
{
	/* out: what follows "u:NAME" in the listing */
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "u32 a;u64 b;", " u32 a; u64 b" },
		{ "char[0x14] a;  unsigned char[010] b", " char[0x14] a; unsigned char[010] b" },
		{ "struct my_s a 24;;\t unsigned int b", " struct my_s a 24; unsigned int b" },
		{ "__data_loc char[] a; __rel_loc unsigned char[] b;__rel_loc u8[] c",
		  " __data_loc char[] a; __rel_loc unsigned char[] b; __rel_loc u8[] c" },
		{ "\ts8 a;\tunsigned short b;int c;", " s8 a; unsigned short b; int c" },
		{ "char[4]xy a", " char[4]xy a" },
		{ "u16 a;char[0x8] b;struct x c 3", " u16 a; char[0x8] b; struct x c 3" },
		{ "", "" },
	};
	char name[32], want[1200];	/* "!" + the listing */
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "uet_dy_canon%d", i);
		EXPECT_EQ(0, dyn_create(&self->t, name, cases[i].in)) TH_LOG("'%s'", cases[i].in);
		EXPECT_TRUE(ue_event_exists(UE_SYS, name)) TH_LOG("%s", name);
		snprintf(want, sizeof(want), "!u:%s%s", name, cases[i].out);
		EXPECT_TRUE(listed(name, want + 1));
		EXPECT_EQ(0, ue_dyn_cmd(want + 1)) TH_LOG("%s", want + 1);
		EXPECT_TRUE(listed(name, want + 1));
		EXPECT_TRUE(deletes(want, name)) TH_LOG("%s", want);
	}
}

TEST_F(dynevent, delete_syntaxes)
{
	static const char * const dels[] = {
		"-:uet_dy_del", "-:user_events/uet_dy_del", "!u:uet_dy_del",
		"!u:uet_dy_del u32 a; u64 b", "!u:uet_dy_del u32 a;   u64\t b;",
		"-:user_events_multi/uet_dy_del",	/* either system: upstream's rule */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(dels); i++) {
		ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_del", "u32 a; u64 b"));
		ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_dy_del"));
		EXPECT_TRUE(deletes(dels[i], "uet_dy_del")) TH_LOG("'%s'", dels[i]);
	}
}

TEST_F(dynevent, delete_no_match)
{
	static const char * const misses[] = {
		"!u:uet_dy_nomatch u32 a",		/* fewer fields */
		"!u:uet_dy_nomatch u32 a; u32 b",	/* other type */
		"!u:uet_dy_nomatch u32 b; u64 a",	/* other names */
		"!u:uet_dy_nomatch u32 a; u64 b; u8 c",	/* more fields */
		"!u:uet_dy_nomatch u32 a;u64 b",	/* split at white space only */
		"!u:uet_dy_nomatch u32 a ; u64 b",	/* ";" a word */
		"-:other_system/uet_dy_nomatch",
		"-:uet_dy_nomatc",			/* prefix only */
		"-:uet_dy_nomatch_",
	};
	int i;

	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_nomatch", "u32 a; u64 b"));
	for (i = 0; i < ARRAY_SIZE(misses); i++) {
		EXPECT_EQ(-ENOENT, ue_dyn_cmd(misses[i])) TH_LOG("'%s'", misses[i]);
		EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_nomatch"));
	}
	EXPECT_EQ(-EINVAL, ue_dyn_cmd("-:"));
	EXPECT_TRUE(listed("uet_dy_nomatch", NULL));
}

/* Held by a registration, a write index, ftrace or perf: EBUSY; let go: deleted */
TEST_F(dynevent, busy)
{
	int fd = ue_open_data();

	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_busyreg", "u32 a"));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_dy_busyreg u32 a", self->page, 4, 0, 0, NULL));
	no_delete(_metadata, "uet_dy_busyreg", -EBUSY, false);
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	no_delete(_metadata, "uet_dy_busyreg", -EBUSY, false);	/* the fd's write index */
	close(fd);
	EXPECT_TRUE(deletes("-:uet_dy_busyreg", "uet_dy_busyreg"));
	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_busyft", "u32 a"));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_dy_busyft"));
	no_delete(_metadata, "uet_dy_busyft", -EBUSY, false);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_dy_busyft", false));
	EXPECT_TRUE(deletes("-:uet_dy_busyft", "uet_dy_busyft"));
}

TEST_F(dynevent, busy_perf)
{
	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_busyperf", "u32 a"));
	ASSERT_GT(ue_event_id(UE_SYS, "uet_dy_busyperf"), 0);
	self->perf_fd = ue_perf_open(ue_event_id(UE_SYS, "uet_dy_busyperf"), false);
	if (self->perf_fd < 0 && errno == ENOENT)
		SKIP(return, "perf tracepoint events not available");
	ASSERT_LE(0, self->perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	no_delete(_metadata, "uet_dy_busyperf", -EBUSY, false);
	close(self->perf_fd);
	self->perf_fd = -1;
	EXPECT_TRUE(deletes("-:uet_dy_busyperf", "uet_dy_busyperf"));
}

/* Creating and deleting need CAP_PERFMON or CAP_SYS_ADMIN; either alone is enough */
TEST_F(dynevent, capabilities)
{
	int i;

	ue_track_del(&self->t, "uet_dy_nocap");
	EXPECT_EQ(-EPERM, ue_run_without_caps(perfmon_caps, 2, ue_cb_dyn, "u:uet_dy_nocap u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_dy_nocap"));
	EXPECT_FALSE(listed("uet_dy_nocap", NULL));
	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_nocapdel", "u32 a"));
	no_delete(_metadata, "uet_dy_nocapdel", -EPERM, true);
	EXPECT_TRUE(listed("uet_dy_nocapdel", NULL));
	EXPECT_EQ(0, ue_dyn_cmd("-:uet_dy_nocapdel"));
	ue_track_del(&self->t, "uet_dy_onecap");
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, ue_run_without_caps(perfmon_caps + i, 1, ue_cb_dyn,
						 "u:uet_dy_onecap u32 a"));
		EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_onecap"));
		EXPECT_EQ(0, ue_run_without_caps(perfmon_caps + i, 1, ue_cb_dyn,
						 "-:uet_dy_onecap")) TH_LOG("cap %d", i);
		EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_dy_onecap"));
	}
}

/* The same parser and matching rules as DIAG_IOCSREG */
TEST_F(dynevent, same_parser_as_ioctl)
{
	/* the first UET_DY_VALID are valid */
#define UET_DY_VALID	17
	static const char * const cmds[] = {
		"uet_dy_p0 u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; u64 g; s64 h",
		"uet_dy_p1 char a; unsigned char b; short c; unsigned short d",
		"uet_dy_p2 int a; unsigned int b",
		"uet_dy_p3 char[20] a; unsigned char[0x14] b; char[024] c",
		"uet_dy_p4 __data_loc char[] a; __rel_loc unsigned char[] b",
		"uet_dy_p5 struct s a 20",
		"uet_dy_p6 u32 a;;u32 b;",
		"_uet_dy_p7",
		"uet_dy_P8_9 u32 _x9",
		/* any name up to the first space, any field name */
		"uet_dy.p9 u32 a",
		"9uet_dy_p10 u32 9a",
		"uet-dy-p11 u32 a-b",
		/* dynamic fields of any element type, text after ']' */
		"uet_dy_p12 __data_loc char[4] a; __rel_loc u8[] b",
		"uet_dy_p13 __rel_loc u32[] a; __data_loc foo b",
		"uet_dy_p14 char[4]xyzab a",	/* 7 bytes after '[' */
		"uet_dy_p15 struct s a 100000",
		"uet_dy_p16 u32 a; struct s b 65536; char[1024] c",
		/* invalid */
		"uet_dy_bad u128 a",
		"uet_dy_bad long a",
		"uet_dy_bad u32",
		"uet_dy_bad u32 a b",
		"uet_dy_bad unsigned u32 a",
		"uet_dy_bad char[0] a",
		"uet_dy_bad char[aa] a",
		"uet_dy_bad char[] a",
		"uet_dy_bad char[9999] a",
		"uet_dy_bad char[1025] a",
		"uet_dy_bad char[0x0000000000001] a",
		"uet_dy_bad char[4]xyzabc a",	/* 8 bytes after '[' */
		"uet_dy_bad struct s a",
		"uet_dy_bad struct s a 0",
		"uet_dy_bad char a 20",
		"uet_dy_bad __data_loc cpumask_t[] a",
		"uet_dy_bad u32  a",
		"uet_dy_bad u32 a ;u32 b",
		"uet_dy_bad u32\ta",
		"uet_dy_bad:flag u32 a",
		"uet_dy_bad: u32 a",
		"uet/dy_bad u32 a",
		". u32 a",
		".. u32 a",
	};
	char dcmd[600], dname[UE_NAME_MAX];
	int i, ioc, dyn;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		ioc = ue_reg_once(cmds[i], self->page, 0);
		snprintf(dcmd, sizeof(dcmd), "u:%s", cmds[i]);
		ue_cmd_name(dname, sizeof(dname), cmds[i]);
		ue_track_del(&self->t, dname);
		dyn = ue_dyn_cmd(dcmd);
		if (!dyn) {
			snprintf(dcmd, sizeof(dcmd), "-:%s", dname);
			EXPECT_EQ(0, ue_dyn_cmd(dcmd));
		}
		EXPECT_EQ(ioc, dyn) TH_LOG("'%s'", cmds[i]);
		EXPECT_EQ(i < UET_DY_VALID ? 0 : -EINVAL, dyn) TH_LOG("'%s'", cmds[i]);
	}
#undef UET_DY_VALID
}

/*
 * Name length, command length and field count limits through both: the only one is
 * DIAG_IOCSREG's 511 bytes; a dynamic_events line may be longer, as upstream takes it.
 */
TEST_F(dynevent, same_limits_as_ioctl)
{
	const int lens[] = { 128, 129, 255, UE_CMD_MAX, UE_CMD_MAX + 1 };
	char name[600], cmd[1024], dcmd[1100];
	int ioc, len, i, fields;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(name, 'n', lens[i]);
		name[lens[i]] = '\0';
		memcpy(name, "uet_dy_len", strlen("uet_dy_len"));
		ioc = ue_reg_once(name, self->page, 0);
		/* gone with the last user: created anew */
		snprintf(dcmd, sizeof(dcmd), "u:%s", name);
		EXPECT_EQ(0, ue_dyn_cmd(dcmd)) TH_LOG("name length %d", lens[i]);
		EXPECT_EQ(lens[i] <= UE_CMD_MAX ? 0 : -EINVAL, ioc)
			TH_LOG("name length %d", lens[i]);
		snprintf(dcmd, sizeof(dcmd), "-:%s", name);
		EXPECT_EQ(0, ue_dyn_cmd(dcmd));
	}
	/* no field count limit: 64, 65, 80 fields of two-letter names */
	for (fields = 64; fields <= 80; fields += fields == 65 ? 15 : 1) {
		len = snprintf(cmd, sizeof(cmd), "uet_dy_nf%d", fields);
		for (i = 0; i < fields; i++)
			len += snprintf(cmd + len, sizeof(cmd) - len, "%su8 %c%c",
					i ? ";" : " ", 'a' + i / 26, 'a' + i % 26);
		ioc = ue_reg_once(cmd, self->page, 0);
		snprintf(name, sizeof(name), "uet_dy_nf%d", fields);
		ue_track_del(&self->t, name);
		snprintf(dcmd, sizeof(dcmd), "u:%s", cmd);
		EXPECT_EQ(ioc, ue_dyn_cmd(dcmd)) TH_LOG("%d fields", fields);
		EXPECT_EQ(0, ioc) TH_LOG("%d fields", fields);
	}
	/* Over 511 bytes of command: only the ioctl refuses it */
	len = snprintf(cmd, sizeof(cmd), "uet_dy_cmdlen u32 a;");
	while (len < 600)
		len += snprintf(cmd + len, sizeof(cmd) - len, "          ");
	snprintf(cmd + len, sizeof(cmd) - len, "; u32 b");
	EXPECT_EQ(-EINVAL, ue_reg_once(cmd, self->page, 0));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_dy_cmdlen"));
	ue_track_del(&self->t, "uet_dy_cmdlen");
	snprintf(dcmd, sizeof(dcmd), "u:%s", cmd);
	EXPECT_EQ(0, ue_dyn_cmd(dcmd));
	EXPECT_EQ(1, ue_dyn_count("u:uet_dy_cmdlen u32 a; u32 b"));
	EXPECT_EQ(0, ue_dyn_cmd("-:uet_dy_cmdlen"));
}

/* tracing prepared before the program registers */
TEST_F(dynevent, prepared_tracing)
{
	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_prep", "u32 id"));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_dy_prep"));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_dy_prep u32 id", self->page, 4, 7, NULL));
	EXPECT_TRUE(ue_wait_bit(self->page, 4, 7, true));
}

/* also events that do not persist */
TEST_F(dynevent, lists_registered_events)
{
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_dy_reglist  u32 a;char[0x4] b", self->page, 4,
				  0, NULL));
	EXPECT_TRUE(listed("uet_dy_reglist", "u:uet_dy_reglist u32 a; char[0x4] b"));
	ue_track_cleanup(&self->t);
	EXPECT_FALSE(listed("uet_dy_reglist", NULL));
}

/* truncating dynamic_events while a user event is in use: nothing goes */
TEST_F(dynevent, truncate_busy)
{
	char path[PATH_MAX];
	int fd;

	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_trunc", "u32 a"));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_dy_trunc_used u32 a", self->page, 4, 0, NULL));
	fd = open(ue_tpath(path, sizeof(path), "dynamic_events"), O_WRONLY | O_TRUNC | O_CLOEXEC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	if (fd >= 0)
		close(fd);
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_trunc"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_trunc_used"));
}

TEST_F(dynevent, ioctl_matches_dyn_event)
{
	/* the same words, whatever white space: ';' ends a word */
	static const char * const same[] = {
		"uet_dy_match u32 a; char[16] b; struct s c 8",
		"uet_dy_match  u32 a;char[16] b;struct s c 8;",
		"uet_dy_match u32\ta;  char[16]   b; struct  s  c\t8",
	};
	/* other fields under that name */
	static const char * const other[] = {
		"uet_dy_match u32 a",
		"uet_dy_match",
		"uet_dy_match u32 a; char[0x10] b; struct s c 8",
		"uet_dy_match u32 a ; char[16] b; struct s c 8",
		"uet_dy_match u32 a;; char[16] b; struct s c 8",
		"uet_dy_match u32 a; char[17] b; struct s c 8",
		"uet_dy_match u32 a; char[16] b; struct s c 9",
		"uet_dy_match u32 a; char[16] b; struct t c 8",
		"uet_dy_match s32 a; char[16] b; struct s c 8",
		"uet_dy_match u32 x; char[16] b; struct s c 8",
		"uet_dy_match char[16] b; u32 a; struct s c 8",
	};
	__u32 idx[ARRAY_SIZE(same)];
	int i, id;

	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_match", "u32 a;char[16] b;struct s c 8"));
	id = ue_event_id(UE_SYS, "uet_dy_match");
	ASSERT_GT(id, 0);
	for (i = 0; i < ARRAY_SIZE(same); i++) {
		EXPECT_EQ(0, ue_track_reg(&self->t, same[i], self->page, 4, i, &idx[i]))
			TH_LOG("'%s'", same[i]);
		EXPECT_EQ(idx[0], idx[i]);
	}
	for (i = 0; i < ARRAY_SIZE(other); i++)
		EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, other[i], self->page, 4, 16 + i, 0, NULL))
			TH_LOG("'%s'", other[i]);
	EXPECT_EQ(id, ue_event_id(UE_SYS, "uet_dy_match"));
}

/* "u:" for an event of the ioctl shares it, as upstream: it still goes with its last user */
TEST_F(dynevent, dyn_matches_ioctl_event)
{
	int fd = ue_open_data(), id;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_dy_adopt u32 a;u16 b", self->page, 4, 0, 0, NULL));
	id = ue_event_id(UE_SYS, "uet_dy_adopt");
	ASSERT_GT(id, 0);
	EXPECT_EQ(-EADDRINUSE, dyn_create(&self->t, "uet_dy_adopt", "u32 a"));
	EXPECT_EQ(0, dyn_create(&self->t, "uet_dy_adopt", "u32  a;  u16 b;"));
	EXPECT_EQ(id, ue_event_id(UE_SYS, "uet_dy_adopt"));
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_dy_adopt"));
	close(fd);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_dy_adopt"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:uet_dy_adopt"));
}

/* The file offset of @path's ELF entry point (an instruction), or -1 */
static long elf_entry_offset(const char *path)
{
	union {
		struct elf64_hdr e64;
		struct elf32_hdr e32;
	} eh;
	union {
		struct elf64_phdr p64;
		struct elf32_phdr p32;
	} ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), i, n;
	unsigned long long entry, vaddr, memsz, off, phoff;
	bool is64;
	size_t phsize;
	long ret = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e64.e_ident, ELFMAG, SELFMAG))
		goto out;
	is64 = eh.e64.e_ident[EI_CLASS] == ELFCLASS64;
	entry = is64 ? eh.e64.e_entry : eh.e32.e_entry;
	phoff = is64 ? eh.e64.e_phoff : eh.e32.e_phoff;
	n = is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	phsize = is64 ? sizeof(ph.p64) : sizeof(ph.p32);
	for (i = 0; i < n; i++) {
		if (pread(fd, &ph, phsize, phoff + i * phsize) != (ssize_t)phsize)
			break;
		if ((is64 ? ph.p64.p_type : ph.p32.p_type) != PT_LOAD)
			continue;
		vaddr = is64 ? ph.p64.p_vaddr : ph.p32.p_vaddr;
		memsz = is64 ? ph.p64.p_memsz : ph.p32.p_memsz;
		off = is64 ? ph.p64.p_offset : ph.p32.p_offset;
		if (entry >= vaddr && entry < vaddr + memsz) {
			ret = entry - vaddr + off;
			break;
		}
	}
out:
	close(fd);
	return ret;
}

#define DY_ROUNDS	4

/* Create @cmd through dynamic_events, see events/@sys/@name, delete it with "-:@sys/@name" */
static void other_event(struct __test_metadata *_metadata, const char *cmd, const char *sys,
			const char *name)
{
	char del[128];
	int i;

	snprintf(del, sizeof(del), "-:%s/%s", sys, name);
	for (i = 0; i < DY_ROUNDS; i++) {
		ASSERT_EQ(0, ue_dyn_cmd(cmd)) TH_LOG("'%s'", cmd);
		EXPECT_TRUE(ue_event_exists(sys, name)) TH_LOG("'%s'", cmd);
		EXPECT_EQ(0, ue_dyn_cmd(del)) TH_LOG("'%s'", del);
		EXPECT_FALSE(ue_event_exists(sys, name)) TH_LOG("'%s'", del);
	}
}

/*
 * Every dynamic_events line is offered to each kind of dynamic event in turn, user_events
 * among them: it must let the lines of the others (uprobes, kprobes, synthetic events) pass
 * untouched.  Freeing what it never initialised oopses on kernels whose stack is not
 * zeroed (CONFIG_INIT_STACK_ALL_PATTERN, CONFIG_INIT_STACK_NONE), at the first line.
 */
TEST_F(dynevent, other_kinds_pass)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64];
	long off = elf_entry_offset("/bin/true");
	int kinds = 0;

	if (off >= 0 && !access(ue_tpath(path, sizeof(path), "uprobe_events"), F_OK)) {
		snprintf(cmd, sizeof(cmd), "p:uprobes/uet_dy_up /bin/true:%#lx", off);
		other_event(_metadata, cmd, "uprobes", "uet_dy_up");
		kinds++;
	}
	if (!access(ue_tpath(path, sizeof(path), "synthetic_events"), F_OK)) {
		other_event(_metadata, "s:uet_dy_synth u64 a; char b[8]", "synthetic",
			    "uet_dy_synth");
		kinds++;
	}
	if (!access(ue_tpath(path, sizeof(path), "kprobe_events"), F_OK)) {
		other_event(_metadata, "p:kprobes/uet_dy_kp vfs_read", "kprobes", "uet_dy_kp");
		kinds++;
	}
	if (!kinds)
		SKIP(return, "no uprobe, synthetic or kprobe events (CONFIG_*_EVENTS)");
	/* and user events still work after them */
	ASSERT_EQ(0, dyn_create(&self->t, "uet_dy_after", "u32 a"));
	EXPECT_TRUE(deletes("-:uet_dy_after", "uet_dy_after"));
}

TEST_HARNESS_MAIN
