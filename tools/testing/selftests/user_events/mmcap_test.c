// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: an address space holds at most 65536 registrations; one
 * more fails with ENOSPC, for any event, and has no side effect.
 *
 * The kernel finds a registration by the long that holds its bit, so the
 * 65536 registrations take linear time: about 2 s under QEMU TCG.
 *
 * EXPECTED TO FAIL ON UPSTREAM (6.12): it has no such cap.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "../kselftest_harness.h"
#include "ue_util.h"

#define MM_CAP		65536

FIXTURE(mmcap) {
};

FIXTURE_SETUP(mmcap)
{
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
}

FIXTURE_TEARDOWN(mmcap)
{
}

struct mm_result {
	int reg_failed_at;	/* -1: all MM_CAP registrations worked */
	int reg_err;
	int over_same;		/* one more, same event */
	int over_other;		/* one more, another event */
	int other_exists;	/* the refused one left an event behind */
	int after_unreg;	/* after one unregister */
	int over_again;
	double secs;		/* MM_CAP registrations */
};

static void mm_cap_child(int out)
{
	size_t words = MM_CAP / 32 + 64;
	struct mm_result r = { .reg_failed_at = -1 };
	struct timespec start;
	uint32_t *w;
	int fd, i, ret;

	w = mmap(NULL, words * 4, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = ue_open_data();
	if (w == MAP_FAILED || fd < 0)
		_exit(3);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < MM_CAP; i++) {
		ret = ue_reg(fd, "uet_mm_cap u32 a", &w[i / 32], 4, i % 32, 0,
			     NULL);
		if (ret) {
			r.reg_failed_at = i;
			r.reg_err = ret;
			break;
		}
	}
	r.secs = ue_elapsed(&start);

	r.over_same = ue_reg(fd, "uet_mm_cap u32 a", &w[MM_CAP / 32], 4, 0, 0,
			     NULL);
	r.over_other = ue_reg(fd, "uet_mm_cap2 u32 a", &w[MM_CAP / 32], 4, 1, 0,
			      NULL);
	r.other_exists = ue_event_exists(UE_SYS, "uet_mm_cap2");
	r.after_unreg = ue_unreg(fd, &w[0], 0);
	if (!r.after_unreg)
		r.after_unreg = ue_reg(fd, "uet_mm_cap2 u32 a",
				       &w[MM_CAP / 32], 4, 2, 0, NULL);
	r.over_again = ue_reg(fd, "uet_mm_cap u32 a", &w[MM_CAP / 32], 4, 3, 0,
			      NULL);

	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(4);
	/* exit drops all registrations at once */
	_exit(0);
}

TEST_F_TIMEOUT(mmcap, per_mm_cap, 600)
{
	struct mm_result r;
	struct timespec start;
	int pipefd[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[0]);
		mm_cap_child(pipefd[1]);
	}
	close(pipefd[1]);

	ASSERT_EQ(sizeof(r), read(pipefd[0], &r, sizeof(r)));
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	TH_LOG("%d registrations took %.1f s, with exit %.1f s", MM_CAP,
	       r.secs, ue_elapsed(&start));

	EXPECT_EQ(-1, r.reg_failed_at) TH_LOG("registration %d: %d",
					      r.reg_failed_at, r.reg_err);
	EXPECT_EQ(-ENOSPC, r.over_same);
	EXPECT_EQ(-ENOSPC, r.over_other);
	/* A refused registration has no side effect */
	EXPECT_FALSE(r.other_exists);
	EXPECT_EQ(0, r.after_unreg);
	EXPECT_EQ(-ENOSPC, r.over_again);

	/* The exit dropped them all */
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mm_cap"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mm_cap2"));
}

TEST_HARNESS_MAIN
