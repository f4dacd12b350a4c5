// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI: the user_events_status file.
 *
 *   name [# Used by ftrace perf ...]
 *   ...
 *   <empty line>
 *   Active: N
 *   Busy: M
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "../kselftest_harness.h"
#include "ue_util.h"

struct status_snapshot {
	int lines;	/* event lines */
	int commented;	/* event lines carrying a " # " comment */
	int active;	/* value of "Active:" */
	int busy;	/* value of "Busy:" */
	bool blank;	/* blank separator line seen before the counters */
	bool tail_ok;	/* nothing but the counters after the blank line */
};

static int status_parse(struct status_snapshot *snap)
{
	char *text = ue_status_read();
	char *rest = text, *line;
	bool in_footer = false;
	int counters = 0;

	memset(snap, 0, sizeof(*snap));
	snap->active = -1;
	snap->busy = -1;
	snap->tail_ok = true;
	if (!text)
		return -errno;

	while ((line = strsep(&rest, "\n"))) {
		/* The final newline leaves one empty token behind */
		if (!rest && !*line)
			break;

		if (!in_footer) {
			if (!*line) {
				in_footer = true;
				snap->blank = true;
			} else {
				snap->lines++;
				if (strstr(line, " # "))
					snap->commented++;
			}
			continue;
		}

		if (sscanf(line, "Active: %d", &snap->active) == 1 ||
		    sscanf(line, "Busy: %d", &snap->busy) == 1)
			counters++;
		else
			snap->tail_ok = false;
	}

	if (counters != 2)
		snap->tail_ok = false;

	free(text);
	return 0;
}

FIXTURE(status) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(status)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(status)
{
	UE_TEARDOWN();
}

TEST_F(status, listed)
{
	char line[256];

	EXPECT_FALSE(ue_status_line("uet_st_listed", line, sizeof(line)));

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_listed u32 a", self->page, 4,
				  0, NULL));
	ASSERT_TRUE(ue_status_line("uet_st_listed", line, sizeof(line)));
	/* Nothing attached: no comment at all */
	EXPECT_STREQ("uet_st_listed", line);
}

TEST_F(status, used_by_ftrace)
{
	char line[256];

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_ftrace u32 a", self->page, 4,
				  0, NULL));

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_st_ftrace"));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	ASSERT_TRUE(ue_status_line("uet_st_ftrace", line, sizeof(line)));
	EXPECT_STREQ("uet_st_ftrace # Used by ftrace", line);

	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_ftrace", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	ASSERT_TRUE(ue_status_line("uet_st_ftrace", line, sizeof(line)));
	EXPECT_STREQ("uet_st_ftrace", line);
}

TEST_F(status, used_by_perf)
{
	char line[256];
	int id;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_perf u32 a", self->page, 4,
				  0, NULL));
	id = ue_event_id(UE_SYS, "uet_st_perf");
	ASSERT_GT(id, 0);

	self->perf_fd = ue_perf_open(id, false);
	/* ENOENT: no such tracepoint; no perf_event_paranoid: no perf */
	if (self->perf_fd < 0 &&
	    (errno == ENOENT ||
	     access("/proc/sys/kernel/perf_event_paranoid", F_OK)))
		SKIP(return, "perf tracepoint events not available");
	ASSERT_LE(0, self->perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));

	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	ASSERT_TRUE(ue_status_line("uet_st_perf", line, sizeof(line)));
	EXPECT_STREQ("uet_st_perf # Used by perf", line);

	/* Both at once */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_st_perf"));
	ASSERT_TRUE(ue_status_line("uet_st_perf", line, sizeof(line)));
	EXPECT_STREQ("uet_st_perf # Used by ftrace perf", line);

	close(self->perf_fd);
	self->perf_fd = -1;
	ASSERT_TRUE(ue_status_line("uet_st_perf", line, sizeof(line)));
	EXPECT_STREQ("uet_st_perf # Used by ftrace", line);

	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_perf", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	ASSERT_TRUE(ue_status_line("uet_st_perf", line, sizeof(line)));
	EXPECT_STREQ("uet_st_perf", line);
}

/*
 * An event whose users are gone while ftrace holds it stays until ftrace
 * lets go; from then on it is not listed any more, without waiting for
 * anything to run in the background.
 */
TEST_F(status, tracer_held_event_leaves_with_tracer)
{
	char line[256];
	int fd;

	fd = ue_open_data();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_st_held u32 a", self->page, 4, 3, 0,
			    NULL));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_held", true));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 3, true));
	ASSERT_EQ(0, ue_unreg(fd, self->page, 3));
	close(fd);

	/* No user left, but ftrace holds it */
	ASSERT_TRUE(ue_status_line("uet_st_held", line, sizeof(line)));
	EXPECT_STREQ("uet_st_held # Used by ftrace", line);

	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_st_held", false));
	EXPECT_FALSE(ue_status_line("uet_st_held", line, sizeof(line)));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_st_held"));
}

/*
 * Other events may come and go concurrently, so only check that each
 * snapshot is self-consistent and includes what this test holds.
 */
TEST_F(status, counters)
{
	struct status_snapshot snap;
	uint32_t *w = (uint32_t *)self->page;
	char line[256];

	ASSERT_EQ(0, status_parse(&snap));
	EXPECT_TRUE(snap.blank);
	EXPECT_TRUE(snap.tail_ok);
	EXPECT_EQ(snap.lines, snap.active);
	EXPECT_EQ(snap.commented, snap.busy);

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_cnt1 u32 a", w, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_cnt2 u32 a", w, 4, 1, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_st_cnt3 u32 a", w, 4, 2, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_st_cnt2"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 1, true));

	ASSERT_EQ(0, status_parse(&snap));
	EXPECT_TRUE(snap.blank);
	EXPECT_TRUE(snap.tail_ok);
	EXPECT_EQ(snap.lines, snap.active);
	EXPECT_EQ(snap.commented, snap.busy);
	EXPECT_LE(3, snap.active);
	EXPECT_LE(1, snap.busy);

	EXPECT_TRUE(ue_status_line("uet_st_cnt1", line, sizeof(line)));
	EXPECT_TRUE(ue_status_line("uet_st_cnt2", line, sizeof(line)));
	EXPECT_STREQ("uet_st_cnt2 # Used by ftrace", line);
	EXPECT_TRUE(ue_status_line("uet_st_cnt3", line, sizeof(line)));
}

TEST_HARNESS_MAIN
