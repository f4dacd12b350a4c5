// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: an address space holds at most 65536 registrations; one more fails with ENOSPC, for
 * any event, and has no side effect.  The kernel finds a registration by the long that holds its
 * bit: the 65536 registrations take linear time, about 2 s under QEMU TCG.
 * EXPECTED TO FAIL ON UPSTREAM (6.12): it has no such cap.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define MM_CAP		65536

FIXTURE(mmcap) {};

FIXTURE_SETUP(mmcap)
{
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
}

FIXTURE_TEARDOWN(mmcap)
{
}

/* Registration @i of @cmd: bit i % 32 of w[i / 32] */
static int reg(int fd, const char *cmd, __u32 *w, int i)
{
	return ue_reg(fd, cmd, &w[i / 32], 4, i % 32, 0, NULL);
}

/* In a child (its exit drops all registrations at once); _metadata is shared */
static void mm_cap_child(struct __test_metadata *_metadata)
{
	__u32 *w = mmap(NULL, (MM_CAP / 32 + 64) * 4, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = ue_open_data(), i, ret = 0;
	struct timespec start;

	if (w == MAP_FAILED || fd < 0)
		_exit(3);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < MM_CAP && !ret; i++)
		ret = reg(fd, "uet_mm_cap u32 a", w, i);
	EXPECT_EQ(0, ret) TH_LOG("registration %d: %d", i - 1, ret);
	TH_LOG("%d registrations took %.1f s", MM_CAP, ue_elapsed(&start));
	/* one more, same event or another one */
	EXPECT_EQ(-ENOSPC, reg(fd, "uet_mm_cap u32 a", w, MM_CAP));
	EXPECT_EQ(-ENOSPC, reg(fd, "uet_mm_cap2 u32 a", w, MM_CAP + 1));
	/* A refused registration has no side effect */
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mm_cap2"));
	/* one unregistered: one more, then the cap again */
	EXPECT_EQ(0, ue_unreg(fd, &w[0], 0));
	EXPECT_EQ(0, reg(fd, "uet_mm_cap2 u32 a", w, MM_CAP + 2));
	EXPECT_EQ(-ENOSPC, reg(fd, "uet_mm_cap u32 a", w, MM_CAP + 3));
	_exit(0);
}

TEST_F_TIMEOUT(mmcap, per_mm_cap, 600)
{
	struct timespec start;
	int status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		mm_cap_child(_metadata);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	TH_LOG("with the exit: %.1f s", ue_elapsed(&start));
	/* The exit dropped them all */
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mm_cap"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mm_cap2"));
}

TEST_HARNESS_MAIN
