// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: USER_EVENT_REG_PERSIST and registration flags.  A persistent event outlives its
 * users until DIAG_IOCSDEL or a dynamic_events delete; the flag and such deletes need
 * CAP_PERFMON or CAP_SYS_ADMIN.  Unknown flags are EINVAL, so programs retry without them.
 *
 * EXPECTED TO FAIL ON UPSTREAM (6.12): it drops an event's last reference after a delay (EBUSY
 * on a delete right after the last close).
 */
#include "../kselftest_harness.h"
#include "ue_util.h"

#define PERSIST USER_EVENT_REG_PERSIST

static const int perfmon_caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };
#define NCAPS ARRAY_SIZE(perfmon_caps)

FIXTURE(persist) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(persist)
{
	UE_SETUP(UE_ROOT);
}

FIXTURE_TEARDOWN(persist)
{
	UE_TEARDOWN();
}

/* the enable word of reg_once() */
static __u32 once_word;
#define reg_once(cmd, flags) ue_reg_once(cmd, &once_word, flags)

struct nocap_reg {
	const char *cmd;
	__u16 flags;
};

static int nocap_cb(void *arg)
{
	struct nocap_reg *r = arg;

	return reg_once(r->cmd, r->flags);
}

/* reg_once() in a child without the @ncaps capabilities @caps */
static int nocap_reg(const int *caps, int ncaps, const char *cmd, __u16 flags)
{
	struct nocap_reg r = { cmd, flags };

	return ue_run_without_caps(caps, ncaps, nocap_cb, &r);
}

TEST_F(persist, survives_last_user)
{
	char line[256];
	int id;

	ue_track_del(&self->t, "uet_pe_survive");
	ASSERT_EQ(0, reg_once("uet_pe_survive u32 a", PERSIST));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_survive"));
	id = ue_event_id(UE_SYS, "uet_pe_survive");
	EXPECT_GT(id, 0);
	ASSERT_TRUE(ue_status_line("uet_pe_survive", line, sizeof(line)));
	EXPECT_STREQ("uet_pe_survive", line);
	ASSERT_TRUE(ue_dyn_line("uet_pe_survive", line, sizeof(line)));
	EXPECT_STREQ("u:uet_pe_survive u32 a", line);
	/* with or without the flag, users reuse it */
	ASSERT_EQ(0, reg_once("uet_pe_survive u32 a", 0));
	EXPECT_EQ(id, ue_event_id(UE_SYS, "uet_pe_survive"));
	ASSERT_EQ(0, reg_once("uet_pe_survive u32 a", PERSIST));
	EXPECT_EQ(id, ue_event_id(UE_SYS, "uet_pe_survive"));
	EXPECT_EQ(0, ue_del_name("uet_pe_survive"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_survive"));
	EXPECT_FALSE(ue_status_line("uet_pe_survive", line, sizeof(line)));
	EXPECT_FALSE(ue_dyn_line("uet_pe_survive", line, sizeof(line)));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_pe_survive"));
}

/* The flag on a registration that finds a non-persistent event changes nothing, as upstream */
TEST_F(persist, flag_on_existing_event)
{
	int fd = ue_open_data();
	__u32 i1, i2;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_pe_late u32 a", self->page, 4, 0, 0, &i1));
	ue_track_del(&self->t, "uet_pe_late");
	ASSERT_EQ(0, ue_reg(fd, "uet_pe_late u32 a", self->page, 4, 1, PERSIST, &i2));
	EXPECT_EQ(i1, i2);
	EXPECT_EQ(0, ue_unreg(fd, self->page, 0));
	EXPECT_EQ(0, ue_unreg(fd, self->page, 1));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_late"));
	close(fd);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_late"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_pe_late"));
}

/* A persistent event nobody uses keeps its fields. */
TEST_F(persist, keeps_format)
{
	ue_track_del(&self->t, "uet_pe_format");
	ASSERT_EQ(0, reg_once("uet_pe_format u32 a; u64 b", PERSIST));
	EXPECT_EQ(-EADDRINUSE, reg_once("uet_pe_format u32 a", 0));
	EXPECT_EQ(-EADDRINUSE, reg_once("uet_pe_format u32 a", PERSIST));
	EXPECT_EQ(-EADDRINUSE, reg_once("uet_pe_format", 0));
	EXPECT_EQ(0, reg_once("uet_pe_format u32 a;u64 b;", 0));
	EXPECT_EQ(0, ue_del_name("uet_pe_format"));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_pe_format u16 c", self->page, 4, 0, NULL));
}

TEST_F(persist, delete_busy)
{
	int fd = ue_open_data();
	__u32 idx;

	ue_track_del(&self->t, "uet_pe_busy");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_pe_busy u32 a", self->page, 4, 0, PERSIST, &idx));
	EXPECT_EQ(-EBUSY, ue_del(fd, "uet_pe_busy"));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_pe_busy"));
	/* the fd still has its write index */
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_pe_busy"));
	close(fd);
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_pe_busy"));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_pe_busy"));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_pe_busy", false));
	/* deleted at once, no waiting */
	EXPECT_EQ(0, ue_del_name("uet_pe_busy"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_busy"));
}

/* The event is written to and traced like any other while it persists. */
TEST_F(persist, usable_after_reopen)
{
	__u32 *word = (__u32 *)self->page;
	__u32 idx, val = 0x5eed;
	char line[512] = "";
	int fd;

	ue_track_del(&self->t, "uet_pe_reuse");
	ASSERT_EQ(0, reg_once("uet_pe_reuse u32 v", PERSIST));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_pe_reuse"));
	fd = ue_open_data();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_pe_reuse u32 v", word, 4, 5, 0, &idx));
	EXPECT_TRUE(ue_wait_bit(word, 4, 5, true));
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	EXPECT_EQ(sizeof(idx) + sizeof(val), ue_emit(fd, idx, &val, sizeof(val)));
	/* the value in decimal (maybe next to hex) */
	EXPECT_EQ(1, ue_trace_count("uet_pe_reuse", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, "uet_pe_reuse: v=")) &&
		    ue_nonnull(strstr(strstr(line, ": v=") ?: line, "24301"))) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_unreg(fd, word, 5));
	close(fd);
	/* disabled and unused, it still persists */
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_pe_reuse", false));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_reuse"));
	EXPECT_EQ(0, ue_del_name("uet_pe_reuse"));
}

/* The flag and deleting need CAP_PERFMON or CAP_SYS_ADMIN */
TEST_F(persist, capabilities)
{
	int i;

	ue_track_del(&self->t, "uet_pe_nocap");
	EXPECT_EQ(-EPERM, nocap_reg(perfmon_caps, NCAPS, "uet_pe_nocap u32 a", PERSIST));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_nocap"));
	EXPECT_EQ(-EPERM, nocap_reg(perfmon_caps, NCAPS, "uet_pe_nocap u32 a",
				    PERSIST | USER_EVENT_REG_MULTI_FORMAT));
	EXPECT_EQ(0, nocap_reg(perfmon_caps, NCAPS, "uet_pe_nocap u32 a", 0));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_nocap"));
	/* even if the event already exists and persists */
	ASSERT_EQ(0, reg_once("uet_pe_nocap u32 a", PERSIST));
	EXPECT_EQ(-EPERM, nocap_reg(perfmon_caps, NCAPS, "uet_pe_nocap u32 a", PERSIST));
	EXPECT_EQ(0, nocap_reg(perfmon_caps, NCAPS, "uet_pe_nocap u32 a", 0));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_nocap"));
	/* persistent and unused: only a holder of a capability deletes it */
	EXPECT_EQ(-EPERM, ue_run_without_caps(perfmon_caps, NCAPS, ue_cb_del, "uet_pe_nocap"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_nocap"));
	EXPECT_EQ(0, ue_del_name("uet_pe_nocap"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_nocap"));
	EXPECT_EQ(-ENOENT, ue_run_without_caps(perfmon_caps, NCAPS, ue_cb_del, "uet_pe_nocap"));
	/* CAP_PERFMON without CAP_SYS_ADMIN, then the other way round */
	ue_track_del(&self->t, "uet_pe_onecap");
	for (i = 1; i >= 0; i--) {
		EXPECT_EQ(0, nocap_reg(perfmon_caps + i, 1, "uet_pe_onecap u32 a", PERSIST));
		EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_onecap"));
		EXPECT_EQ(0, ue_run_without_caps(perfmon_caps + i, 1, ue_cb_del, "uet_pe_onecap"));
		EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_onecap"));
	}
}

/* Unknown flags: EINVAL, nothing registered, and the retry without flags works */
TEST_F(persist, retry_without_flags)
{
	static const __u16 unknown[] = {
		USER_EVENT_REG_MAX, USER_EVENT_REG_MAX << 3, 1u << 14,
		PERSIST | USER_EVENT_REG_MAX, USER_EVENT_REG_MULTI_FORMAT | (1u << 9)
	};
	__u32 idx;
	int i, fd;

	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		fd = ue_open_data();
		ASSERT_LE(0, fd);
		EXPECT_EQ(-EINVAL, ue_reg(fd, "uet_pe_retry u32 a", self->page, 4, 0,
					  unknown[i], &idx)) TH_LOG("flags 0x%x", unknown[i]);
		EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_retry"));
		EXPECT_FALSE(ue_event_exists(UE_SYS_MULTI, "uet_pe_retry"));
		EXPECT_EQ(-ENOENT, ue_unreg(fd, self->page, 0));
		idx = UINT32_MAX;
		EXPECT_EQ(0, ue_reg(fd, "uet_pe_retry u32 a", self->page, 4, 0, 0, &idx));
		EXPECT_NE(UINT32_MAX, idx);
		EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_pe_retry"));
		EXPECT_EQ(0, ue_unreg(fd, self->page, 0));
		close(fd);
		EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_pe_retry"));
	}
}

/*
 * An unused event that a tracer kept goes with the tracer: from the moment the tracer has
 * detached, user_events_status and dynamic_events agree on it, then its directory goes.  The
 * test keeps to one CPU at real-time priority, so that work the detach queued there cannot run
 * before both are read.
 */
TEST_F(persist, unused_goes_with_last_tracer)
{
	const char *name = "uet_pe_tracer";
	bool in_status, in_dyn;
	char line[256];
	int fd, perf;
	__u32 idx;

	ASSERT_LE(0, ue_pin_cpu());
	ue_rt(true);
	fd = ue_open_data();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_pe_tracer u32 a", self->page, 4, 0, 0, &idx));
	perf = ue_perf_open(ue_event_id(UE_SYS, name), false);
	ASSERT_LE(0, perf);
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	close(fd);
	EXPECT_TRUE(ue_status_line(name, line, sizeof(line)));
	EXPECT_TRUE(ue_dyn_line(name, line, sizeof(line)));
	close(perf);
	in_status = ue_status_line(name, line, sizeof(line));
	in_dyn = ue_dyn_line(name, line, sizeof(line));
	EXPECT_EQ(in_status, in_dyn);
	EXPECT_TRUE(ue_wait_gone(UE_SYS, name));
	EXPECT_FALSE(ue_status_line(name, line, sizeof(line)));
	EXPECT_FALSE(ue_dyn_line(name, line, sizeof(line)));
	EXPECT_EQ(-ENOENT, ue_del_name(name));
}

/* Upstream 6.4 freed the fields before a delete that failed: use the event after each */
TEST_F(persist, fields_kept_when_delete_fails)
{
	static const char * const dels[] = {
		"-:uet_rg_keep", "!u:uet_rg_keep u32 a; char[8] s", "-:user_events/uet_rg_keep",
	};
	struct {
		__u32 a;
		char s[8];
	} rec = { 0xabc, "keep" };	/* 12 bytes, no padding */
	char line[512];
	__u32 idx;
	int i;

	if (!ue_setup_more(_metadata, &self->flags, UE_TRACE))
		return;
	ue_track_del(&self->t, "uet_rg_keep");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_keep u32 a; char[8] s"));
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_keep u32 a; char[8] s",
				    "uet_rg_keep", 0, &idx));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_rg_keep"));
	for (i = 0; i < ARRAY_SIZE(dels); i++)
		EXPECT_EQ(-EBUSY, ue_dyn_cmd(dels[i])) TH_LOG("%s", dels[i]);
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_rg_keep"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_keep", " a;"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_keep", " s[8];\toffset:12;\tsize:8;"));
	ASSERT_TRUE(ue_dyn_line("uet_rg_keep", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_keep u32 a; char[8] s", line);
	EXPECT_EQ(sizeof(rec) + 4, ue_emit(self->t.fd, idx, &rec, sizeof(rec)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_keep", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " a=0xabc"))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " s=keep"))) TH_LOG("%s", line);
}

TEST_HARNESS_MAIN
