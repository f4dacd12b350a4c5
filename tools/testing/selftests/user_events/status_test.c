// SPDX-License-Identifier: GPL-2.0
/* user_events_status: "name [# Used by ftrace perf]" lines, a blank line, "Active: N", "Busy: M" */
#include "ue_util.h"
#include "../kselftest_harness.h"

/*
 * Parse a snapshot: a blank line ends the event lines, only the two counters follow, they count
 * the lines and the commented lines.  Other events come and go: each snapshot must be consistent.
 */
static void check_status(struct __test_metadata *_metadata, int min_active, int min_busy)
{
	int lines = 0, commented = 0, active = -1, busy = -1, counters = 0;
	char *text = ue_status_read(), *rest = text, *line;
	bool footer = false;

	ASSERT_TRUE(ue_nonnull(text));
	while ((line = strsep(&rest, "\n"))) {
		if (!rest && !*line)	/* after the final newline */
			break;
		if (!footer && !*line) {
			footer = true;
		} else if (!footer) {
			lines++;
			commented += !!strstr(line, " # ");
		} else if (sscanf(line, "Active: %d", &active) == 1 ||
			   sscanf(line, "Busy: %d", &busy) == 1) {
			counters++;
		} else {
			EXPECT_STREQ("Active:/Busy: line", line);
		}
	}
	free(text);
	EXPECT_TRUE(footer);
	EXPECT_EQ(2, counters);
	EXPECT_EQ(lines, active);
	EXPECT_EQ(commented, busy);
	EXPECT_LE(min_active, active);
	EXPECT_LE(min_busy, busy);
}

/* The status line of @name must be @want ("": must not be listed). */
static void expect_line(struct __test_metadata *_metadata, const char *name, const char *want)
{
	char line[256] = "";

	EXPECT_EQ(!!*want, ue_status_line(name, line, sizeof(line))) TH_LOG("%s", name);
	EXPECT_STREQ(want, line);
}

FIXTURE(status) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(status)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(status)
{
	UE_TEARDOWN();
}

TEST_F(status, used_by_perf)
{
	int id;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_perf u32 a", self->page, 4, 0, NULL));
	id = ue_event_id(UE_SYS, "uet_st_perf");
	ASSERT_GT(id, 0);
	self->perf_fd = ue_perf_open(id, false);
	/* ENOENT: no such tracepoint; no perf_event_paranoid: no perf */
	if (self->perf_fd < 0 &&
	    (errno == ENOENT || access("/proc/sys/kernel/perf_event_paranoid", F_OK)))
		SKIP(return, "perf tracepoint events not available");
	ASSERT_LE(0, self->perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	expect_line(_metadata, "uet_st_perf", "uet_st_perf # Used by perf");
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_st_perf"));
	expect_line(_metadata, "uet_st_perf", "uet_st_perf # Used by ftrace perf");
	close(self->perf_fd);
	self->perf_fd = -1;
	expect_line(_metadata, "uet_st_perf", "uet_st_perf # Used by ftrace");
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_perf", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	expect_line(_metadata, "uet_st_perf", "uet_st_perf");
}

/* An event ftrace holds stays after its users until ftrace lets go, then goes at once */
TEST_F(status, tracer_held_event_leaves_with_tracer)
{
	int fd = ue_open_data();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_st_held u32 a", self->page, 4, 3, 0, NULL));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_held", true));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 3, true));
	ASSERT_EQ(0, ue_unreg(fd, self->page, 3));
	close(fd);
	expect_line(_metadata, "uet_st_held", "uet_st_held # Used by ftrace");
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_held", false));
	expect_line(_metadata, "uet_st_held", "");
	/* removed by a work item, with nobody asking: soon */
	EXPECT_TRUE(ue_wait_gone(UE_SYS, "uet_st_held"));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_st_held"));
}

TEST_F(status, counters)
{
	static const char * const names[] = { "uet_st_cnt1", "uet_st_cnt2", "uet_st_cnt3" };
	char cmd[64];
	int i;

	check_status(_metadata, 0, 0);
	expect_line(_metadata, "uet_st_cnt1", "");
	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), "%s u32 a", names[i]);
		ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, i, NULL));
	}
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_st_cnt2"));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 1, true));
	check_status(_metadata, 3, 1);
	/* Nothing attached: no comment at all */
	expect_line(_metadata, "uet_st_cnt1", "uet_st_cnt1");
	expect_line(_metadata, "uet_st_cnt2", "uet_st_cnt2 # Used by ftrace");
	expect_line(_metadata, "uet_st_cnt3", "uet_st_cnt3");
	/* ftrace lets go: the comment goes */
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_cnt2", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 1, false));
	expect_line(_metadata, "uet_st_cnt2", "uet_st_cnt2");
}

TEST_HARNESS_MAIN
