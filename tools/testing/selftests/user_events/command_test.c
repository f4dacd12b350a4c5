// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: the command of DIAG_IOCSREG and dynamic_events: names, field types, spacing,
 * matching an existing event's fields as text, the format it makes, and error_log.
 */
#include "../kselftest_harness.h"
#include "ue_util.h"

FIXTURE(command) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(command)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(command)
{
	UE_TEARDOWN();
}

TEST_F(command, all_types)
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

/* Names: upstream's rules, and the names tracefs could not show */
TEST_F(command, names)
{
	static const char * const ok[] = { "uet_di-dash.dot", "1uet_di_digit", "uet_di_%$*?" };
	static const char * const bad[] = { "uet_di:flag", "uet_di/slash", ".", "..", "" };
	__u32 idx;
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		EXPECT_EQ(0, ue_reg(self->t.fd, ok[i], self->page, 4, i, 0, &idx))
			TH_LOG("%s", ok[i]);
		EXPECT_EQ(0, ue_unreg(self->t.fd, self->page, i));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, bad[i], self->page, 4, 0, 0, &idx))
			TH_LOG("'%s'", bad[i]);
}

/* EventHeader names reach 255 bytes: plain and multi-format */
TEST_F(command, eventheader_long_name)
{
	char name[256], cmd[300];
	__u32 idx, idx2;
	int n = snprintf(name, sizeof(name), "uet_di_LongProvider_L5K1Gg");

	memset(name + n, 'x', 255 - n);
	name[255] = '\0';
	snprintf(cmd, sizeof(cmd), "%s __rel_loc u8[] eventheader_fields", name);
	idx = ue_reg_page(_metadata, &self->t, self->page, cmd, false);
	EXPECT_TRUE(ue_event_exists(UE_SYS, name));
	ASSERT_EQ(0, ue_track_reg_fd(&self->t, self->t.fd, cmd, self->page + 4, 4, 0,
				     USER_EVENT_REG_MULTI_FORMAT, &idx2));
	EXPECT_NE(idx, idx2);
}

/* A malformed command says what and where in error_log, through dynamic_events and ioctl */
TEST_F(command, error_log)
{
	static const struct {
		const char *cmd, *msg, *caret;
	} cases[] = {
		{ "uet_di_el u31 a", "Unknown field type", "u31 a" },
		{ "uet_di_el char[2000] a", "Array size", "char[2000] a" },
		{ "uet_di_el:x u32 a", "Text flags", ":x u32 a" },
		{ "uet_di/el u32 a", "Event name", "uet_di/el u32 a" },
		{ "uet_di_el u32 a; u32 a", "Duplicate field name", "a" },
	};
	const char *at, *cmd, *eol, *caret;
	char dyn[128], path[160], *log;
	__u32 idx;
	int i;

	ue_tpath(path, sizeof(path), "error_log");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, ue_write_str(path, "", O_TRUNC));
		snprintf(dyn, sizeof(dyn), "u:%s", cases[i].cmd);
		EXPECT_EQ(-EINVAL, ue_dyn_cmd(dyn));
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cases[i].cmd, self->page, 4, 0, 0, &idx));
		log = ue_read_all(path);
		ASSERT_TRUE(ue_nonnull(log));
		/* two entries; in each, the caret sits under the bad text */
		at = strstr(log, cases[i].msg);
		EXPECT_TRUE(ue_nonnull(at)) TH_LOG("%s: %s", cases[i].cmd, log);
		at = at ? strstr(at, "Command: ") : NULL;
		if (at) {
			cmd = at + strlen("Command: ");
			eol = strchr(cmd, '\n');
			caret = eol ? strchr(eol, '^') : NULL;
			ASSERT_TRUE(ue_nonnull(caret));
			/* the caret line is indented like "  Command: " */
			EXPECT_EQ(0, strncmp(cmd + (caret - (eol + 1)) - strlen("  Command: "),
					     cases[i].caret, strlen(cases[i].caret)))
				TH_LOG("%s", log);
		}
		free(log);
	}
}

/*
 * Only a privileged caller's malformed registration goes to error_log, as upstream writes
 * none: an unprivileged one gets its errno alone, so it cannot push root's entries out.
 */
TEST_F(command, error_log_privileged_only)
{
	static const int caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };
	char path[160], *log;

	if (geteuid())
		SKIP(return, "needs root (error_log)");
	ue_tpath(path, sizeof(path), "error_log");
	ASSERT_EQ(0, ue_write_str(path, "", O_TRUNC));
	EXPECT_EQ(-EINVAL, ue_run_without_caps(caps, ARRAY_SIZE(caps), ue_cb_reg,
					       "uet_di_elu u31 a"));
	log = ue_read_all(path);
	ASSERT_TRUE(ue_nonnull(log));
	EXPECT_STREQ("", log) TH_LOG("without CAP_PERFMON and CAP_SYS_ADMIN");
	free(log);
	/* either capability is enough */
	EXPECT_EQ(-EINVAL, ue_run_without_caps(caps, 1, ue_cb_reg, "uet_di_elu u31 a"));
	EXPECT_EQ(1, ue_count_in(path, "Unknown field type"));
	EXPECT_EQ(-EINVAL, ue_run_without_caps(caps + 1, 1, ue_cb_reg, "uet_di_elu u31 a"));
	EXPECT_EQ(2, ue_count_in(path, "Unknown field type"));
}

/*
 * Upstream 6.6 "Fix non-spaced field matching": "u32 x;u32 y" did not match "u32 x; u32 y".
 * A field list of a dynamic_events delete splits at white space only, as upstream's does.
 */
TEST_F(command, non_spaced_fields)
{
	char *pg = self->page, line[256];
	__u32 i1, i2, i3;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp u32 x;u32 y", pg, 4, 0, &i1));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp u32 x; u32 y", pg, 4, 1, &i2));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp  u32 x;u32\t y;", pg, 4, 2, &i3));
	EXPECT_EQ(i1, i2);
	EXPECT_EQ(i1, i3);
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_nsp u32 x ;u32 y", pg, 4, 3, 0, NULL));
	ue_track_del(&self->t, "uet_rg_nspd");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_nspd u32 x;u32 y"));
	ASSERT_TRUE(ue_dyn_line("uet_rg_nspd", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_nspd u32 x; u32 y", line);
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_nspd u32 x; u32 y"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_nspd"));
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_nspd u32 x; u32 y"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("!u:uet_rg_nspd u32 x;u32 y"));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_nspd u32 x;\tu32  y"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_nspd"));
}

/* Upstream 6.6 "Fix struct arg size match check": "struct s a 20" matched "struct s a 21" */
TEST_F(command, struct_size_matching)
{
	char *pg = self->page, line[256];

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_st struct s a 20", pg, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_st struct s a 21", pg, 4, 1, 0, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_st struct s a 20", pg, 4, 2, NULL));
	/* the same when deleting by fields through dynamic_events */
	ue_track_del(&self->t, "uet_rg_std");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_std struct s a 20"));
	EXPECT_NE(0, ue_dyn_cmd("!u:uet_rg_std struct s a 21"));
	EXPECT_TRUE(ue_dyn_line("uet_rg_std", line, sizeof(line)));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_std struct s a 20"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_std"));
}

/* Upstream 6.6 "Fix the incorrect trace record for empty arguments events" */
/* Upstream 6.4 "Handle matching arguments that is null from dyn_events" */
TEST_F(command, event_without_fields)
{
	char line[512];
	__u32 idx;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_nof", "uet_rg_nof", 0, &idx));
	EXPECT_EQ(4, ue_emit(self->t.fd, idx, NULL, 0));
	ASSERT_EQ(1, ue_trace_count("uet_rg_nof", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " uet_rg_nof:"))) TH_LOG("%s", line);
	ue_track_del(&self->t, "uet_rg_nofd");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_nofd"));
	ASSERT_TRUE(ue_dyn_line("uet_rg_nofd", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_nofd", line);
	EXPECT_NE(0, ue_dyn_cmd("!u:uet_rg_nofd u32 a"));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_nofd"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_nofd"));
}

static const char * const order_fields[] = { "first", "second", "third", "fourth" };

/* True when @pre<field>@post of each field first occurs in @text in declaration order */
static bool in_order(const char *text, const char *pre, const char *post)
{
	const char *prev = NULL, *p;
	char key[64];
	int i;

	for (i = 0; text && i < ARRAY_SIZE(order_fields); i++) {
		snprintf(key, sizeof(key), "%s%s%s", pre, order_fields[i], post);
		p = strstr(text, key);
		if (!p || p <= prev)
			return false;
		prev = p;
	}
	return text;
}

/* Upstream "Fix the order of fields in the print format": they were listed backwards */
TEST_F(command, field_order)
{
	/* u32 11, u64 22, u16 33, u8 44, little endian, no padding */
	static const __u8 rec[15] = { 11, 0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 0, 33, 0, 44 };
	char line[1024], *fmt;
	int i, off, prev = -1;
	__u32 idx;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_order u32 first; u64 second; "
				    "u16 third; u8 fourth", "uet_rg_order", 0, &idx));
	fmt = ue_format_read(UE_SYS, "uet_rg_order");
	ASSERT_TRUE(ue_nonnull(fmt));
	EXPECT_TRUE(in_order(fmt, " ", ";")) TH_LOG("%s", fmt);
	EXPECT_TRUE(in_order(strstr(fmt, "print fmt:"), "", "=")) TH_LOG("%s", fmt);
	free(fmt);
	for (i = 0; i < ARRAY_SIZE(order_fields); i++) {
		off = ue_field_offset(UE_SYS, "uet_rg_order", order_fields[i]);
		EXPECT_GT(off, prev);
		prev = off;
	}
	ASSERT_EQ(sizeof(rec) + 4, ue_emit(self->t.fd, idx, rec, sizeof(rec)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_order", line, sizeof(line)));
	EXPECT_TRUE(in_order(line, " ", "=")) TH_LOG("%s", line);
}

/* Upstream 6.6 "Prevent same name but different args event": the 1st format decoded both */
TEST_F(command, same_name_other_fields)
{
	int fd = ue_open_data();

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_rg_same u32 first", self->page, 4, 0, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_same u64 second", self->page, 4, 1,
				      0, NULL));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_rg_same"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_same", " first;"));
	EXPECT_FALSE(ue_format_has(UE_SYS, "uet_rg_same", " second;"));
	/* once the first is gone, the second gets its own format */
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	close(fd);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_same u64 second", self->page, 4, 1, NULL));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_rg_same"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_same", "u64 second;"));
	EXPECT_FALSE(ue_format_has(UE_SYS, "uet_rg_same", " first;"));
}

/* Upstream 6.1 "Fix memory leak in user_event_create()": each refusal path, for kmemleak */
TEST_F_TIMEOUT(command, no_leak_on_failed_create, 120)
{
	static const char * const bad[] = {
		/* no field name, unknown type, two spaces, struct sizes, bad types, bad names */
		"uet_rg_leak u32", "uet_rg_leak u33 a", "uet_rg_leak u32  a",
		"uet_rg_leak struct s a 0", "uet_rg_leak struct s a 1073741824",
		"uet_rg_leak char[0] a", "uet_rg_leak __data_loc cpumask_t[] a",
		"uet_rg_leak u32 a; bogus b; u32 c", "uet/rg_leak u32 a", "uet_rg_leak:x u32 a",
	};
	char many[600], *ro, *pg = self->page;
	int i, j, n, fd = self->t.fd;
	struct timespec start;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	/* 80 fields: longer than a command can be */
	n = snprintf(many, sizeof(many), "uet_rg_leak");
	for (i = 0; i < 80; i++)
		n += snprintf(many + n, sizeof(many) - n, " u8 %c%c;", 'a' + i / 26, 'a' + i % 26);
	ASSERT_GT(n, 511);
	ro = ue_map_page(PROT_READ);
	ASSERT_TRUE(ue_nonnull(ro));
	/* keeps "uet_rg_leak_used u32 a" in use for the mismatch path */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_leak_used u32 a", pg, 4, 0, NULL));
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (j = 0; j < UE_RACE_ROUNDS && (!j || ue_elapsed(&start) < UE_RACE_SECS); j++) {
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			ASSERT_EQ(-EINVAL, ue_reg(fd, bad[i], pg, 4, 1, 0, NULL))
				TH_LOG("%s", bad[i]);
		ASSERT_EQ(-EINVAL, ue_reg(fd, many, pg, 4, 1, 0, NULL));
		/* other fields than the event in use */
		ASSERT_EQ(-EADDRINUSE, ue_reg(fd, "uet_rg_leak_used u64 a", pg, 4, 1, 0, NULL));
		/* parsed, then the enable word is refused */
		ASSERT_EQ(-EFAULT, ue_reg(fd, "uet_rg_leak_ro u32 a", ro, 4, 1, 0, NULL));
		/* (addr, bit) in use: refused before any event lookup */
		ASSERT_EQ(-EADDRINUSE, ue_reg(fd, "uet_rg_leak_new u32 a", pg, 4, 0, 0, NULL));
		ASSERT_EQ(-EINVAL, ue_dyn_cmd("u:uet_rg_leak u32  a"));
		ASSERT_EQ(-EADDRINUSE, ue_dyn_cmd("u:uet_rg_leak_used u64 a"));
	}
	munmap(ro, getpagesize());
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak_ro"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak_new"));
}

/* Upstream 6.4 "Ensure user provided strings are safely formatted": '%' shown as written */
TEST_F(command, user_strings_not_formats)
{
	static const char * const pct_cmds[] = {
		"uet_rg_%s u32 a", "uet_rg_pct%n u32 a", "uet_rg_pct1 u32 a%s",
		"uet_rg_pct2 u32 %n", "uet_rg_pct3 struct %s a 8",
		"uet_rg_pct4 struct s a%p 8", "uet_rg_pct5 __data_loc char[] %s",
	};
	char payload[40] = "%s%s%n", line[1024];
	__u32 idx, loc[2], val = 7;
	int i, base;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	for (i = 0; i < ARRAY_SIZE(pct_cmds); i++)
		EXPECT_EQ(0, ue_track_reg(&self->t, pct_cmds[i], self->page, 4, 1 + i, NULL))
			TH_LOG("%s", pct_cmds[i]);
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_rg_pct6 char[%d] a", self->page, 4, 20, 0,
				  NULL));
	ue_track_del(&self->t, "uet_rg_%n");
	EXPECT_EQ(0, ue_dyn_cmd("u:uet_rg_%n u32 %s%s"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_rg_%n u32 %s%s"));
	/* a name and a field name with conversions, as written */
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_%p%n u32 %s%n", "uet_rg_%p%n",
				    21, &idx));
	ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_%p%n", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " uet_rg_%p%n: %s%n=0x7 (7)"))) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_%p%n", false));
	/* string payloads with conversions: msg at 0, dyn (data_loc) at 16, rel at 20 */
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_pct char[16] msg; "
				    "__data_loc char[] dyn; __rel_loc char[] rel", "uet_rg_pct",
				    0, &idx));
	base = ue_field_offset(UE_SYS, "uet_rg_pct", "msg");
	ASSERT_GT(base, 0);
	ASSERT_EQ(base + 16, ue_field_offset(UE_SYS, "uet_rg_pct", "dyn"));
	ASSERT_EQ(base + 20, ue_field_offset(UE_SYS, "uet_rg_pct", "rel"));
	loc[0] = DYN_LOC(base + 24, 7);		/* from the entry's start */
	loc[1] = DYN_LOC(31 - 24, 9);		/* from the end of rel */
	memcpy(payload + 16, loc, sizeof(loc));
	memcpy(payload + 24, "%p%x%n", 7);
	memcpy(payload + 31, "%s%d%%%n", 9);
	ASSERT_EQ(sizeof(payload) + 4, ue_emit(self->t.fd, idx, payload, sizeof(payload)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_pct", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " msg=%s%s%n "))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " dyn=%p%x%n "))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " rel=%s%d%%%n"))) TH_LOG("%s", line);
}

TEST_HARNESS_MAIN
