// SPDX-License-Identifier: GPL-2.0
/*
 * user_events limits: kernel.user_events_max, the events (EMFILE beyond, unused ones reaped
 * first; unsigned: 0 stops creations, negative is EINVAL), the registrations per user and
 * per address space.
 * PARTLY EXPECTED TO FAIL ON UPSTREAM (6.12): it frees unused events after a delay.
 */
#include "../kselftest_harness.h"
#include "ue_util.h"

#define MAX_PATH	"/proc/sys/kernel/user_events_max"
#define NFDS		8
#define MULTI		USER_EVENT_REG_MULTI_FORMAT
#define PERSIST		USER_EVENT_REG_PERSIST

static int read_max(void)
{
	char *text = ue_read_all(MAX_PATH);
	int val = text ? atoi(text) : -errno;

	free(text);
	return val;
}

static int set_sysctl(const char *path, int val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", val);
	return ue_write_str(path, buf, 0);
}

#define set_max(val) set_sysctl(MAX_PATH, val)

static int active_events(void)
{
	int active, busy;

	return ue_status_counts(&active, &busy) ? active : -1;
}

FIXTURE(limits) {
	struct ue_track t;
	char *page, *saved;
	char *user_saved;	/* the per-user limit to restore (user_max_setup()) */
	int fds[NFDS];
	int n0;	/* the events when the test starts */
};

FIXTURE_SETUP(limits)
{
	int unused;

	memset(self->fds, -1, sizeof(self->fds));
	if (ue_skip_reason(0))
		SKIP(return, "%s", ue_skip_reason(0));
	if (access(MAX_PATH, F_OK))
		SKIP(return, "no " MAX_PATH);
	if (geteuid() != 0)
		SKIP(return, "changing " MAX_PATH " needs root");
	self->saved = ue_read_all(MAX_PATH);
	ASSERT_TRUE(ue_nonnull(self->saved));
	ASSERT_EQ(0, ue_fixture_init(&self->t, &self->page, &unused, 0));
	self->n0 = active_events();
	ASSERT_LE(0, self->n0);
}

FIXTURE_TEARDOWN(limits)
{
	int i;

	ue_write_str(MAX_PATH, self->saved, 0);
	free(self->saved);
	for (i = 0; i < NFDS; i++)
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	ue_fixture_fini(&self->t, self->page, -1, 0);
	if (self->user_saved) {
		ue_write_str(UE_USER_MAX_PATH, self->user_saved, 0);
		free(self->user_saved);
		ue_del_name("ue_lim_user");
	}
}

/* Slot @n: data fd @fds[n] (opened on demand), word @n of @page, bit 0 */
static int reg_on(int *fds, char *page, int n, const char *cmd, __u16 flags)
{
	if (fds[n] < 0)
		fds[n] = ue_open_data();
	if (fds[n] < 0)
		return -errno;
	return ue_reg(fds[n], cmd, page + 8 * n, 4, 0, flags, NULL);
}

/* Drop every user of slot @n: unregister, close */
static void drop(int *fds, char *page, int n)
{
	ue_unreg(fds[n], page + 8 * n, 0);
	close(fds[n]);
	fds[n] = -1;
}

#define SLOT_REG(n, cmd, flags) reg_on(self->fds, self->page, n, cmd, flags)
#define SLOT_DROP(n) drop(self->fds, self->page, n)

TEST_F(limits, sysctl_values)
{
	int orig = read_max();

	ASSERT_GT(orig, 0);
	EXPECT_EQ(-EINVAL, ue_write_str(MAX_PATH, "-1", 0));
	EXPECT_EQ(-EINVAL, ue_write_str(MAX_PATH, "many", 0));
	EXPECT_EQ(-EINVAL, ue_write_str(MAX_PATH, "4294967296", 0));
	EXPECT_EQ(orig, read_max());
	/* 0: no new event, through any path; existing ones still register */
	ASSERT_EQ(0, SLOT_REG(0, "uet_li_zero0 u32 a", 0));
	EXPECT_EQ(0, set_max(0));
	EXPECT_EQ(0, read_max());
	EXPECT_EQ(-EMFILE, SLOT_REG(1, "uet_li_zero1 u32 a", 0));
	EXPECT_EQ(-EMFILE, SLOT_REG(1, "uet_li_zero0 u32 a", MULTI));
	EXPECT_EQ(-EMFILE, ue_dyn_cmd("u:uet_li_zero1 u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_li_zero1"));
	EXPECT_EQ(0, SLOT_REG(1, "uet_li_zero0 u32 a", 0));
	SLOT_DROP(1);
	SLOT_DROP(0);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_li_zero0"));
	EXPECT_EQ(0, set_max(1));
	EXPECT_EQ(1, read_max());
	EXPECT_EQ(0, set_max(orig + 1));
	EXPECT_EQ(orig + 1, read_max());
}

/* each removal waits for RCU: seconds on a loaded machine */
TEST_F_TIMEOUT(limits, max_events, 120)
{
	ASSERT_EQ(0, set_max(self->n0 + 2));
	ASSERT_EQ(0, SLOT_REG(0, "uet_li_max0 u32 a", 0));
	ASSERT_EQ(0, SLOT_REG(1, "uet_li_max1 u32 a", 0));
	EXPECT_EQ(self->n0 + 2, active_events());
	/* every way of creating an event is refused, existing ones still register */
	EXPECT_EQ(-EMFILE, SLOT_REG(2, "uet_li_max2 u32 a", 0));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_li_max2"));
	EXPECT_EQ(-EMFILE, SLOT_REG(2, "uet_li_max2 u32 a", MULTI));
	EXPECT_EQ(-EMFILE, SLOT_REG(2, "uet_li_max0 u32 a", MULTI));
	ue_track_del(&self->t, "uet_li_max2");
	EXPECT_EQ(-EMFILE, SLOT_REG(2, "uet_li_max2 u32 a", PERSIST));
	EXPECT_EQ(-EMFILE, ue_dyn_cmd("u:uet_li_max2 u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_li_max2"));
	EXPECT_EQ(self->n0 + 2, active_events());
	EXPECT_EQ(0, SLOT_REG(2, "uet_li_max0 u32 a", 0));
	SLOT_DROP(2);
	/* freeing one makes room at once */
	SLOT_DROP(0);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_li_max0"));
	EXPECT_EQ(0, SLOT_REG(2, "uet_li_max2 u32 a", 0));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_li_max2"));
	EXPECT_EQ(-EMFILE, SLOT_REG(3, "uet_li_max3 u32 a", 0));
}

/* Persistent events count, and are not reaped to make room */
TEST_F(limits, persistent_count)
{
	ue_track_del(&self->t, "uet_li_pers");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_li_pers u32 a"));
	ASSERT_EQ(0, set_max(self->n0 + 1));
	EXPECT_EQ(-EMFILE, SLOT_REG(0, "uet_li_pers2 u32 a", 0));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_li_pers"));
	EXPECT_EQ(0, ue_del_name("uet_li_pers"));
	EXPECT_EQ(0, SLOT_REG(0, "uet_li_pers2 u32 a", 0));
}

/* An unused event kept only by a tracer: it stays, then is reaped when room is needed */
TEST_F(limits, reaps_unused)
{
	ASSERT_EQ(0, SLOT_REG(0, "uet_li_reap u32 a", 0));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_li_reap"));
	SLOT_DROP(0);
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_li_reap"));
	ASSERT_EQ(0, set_max(self->n0 + 1));
	EXPECT_EQ(-EMFILE, SLOT_REG(1, "uet_li_reap2 u32 a", 0));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_li_reap", false));
	EXPECT_EQ(0, SLOT_REG(1, "uet_li_reap2 u32 a", 0));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_li_reap"));
	EXPECT_EQ(-EMFILE, SLOT_REG(2, "uet_li_reap3 u32 a", 0));
}

/* Lowering the limit below the count removes nothing */
TEST_F(limits, lower_than_count)
{
	ASSERT_EQ(0, SLOT_REG(0, "uet_li_low0 u32 a", 0));
	ASSERT_EQ(0, SLOT_REG(1, "uet_li_low1 u32 a", 0));
	ASSERT_EQ(0, set_max(1));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_li_low0"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_li_low1"));
	EXPECT_EQ(self->n0 + 2, active_events());
	EXPECT_EQ(-EMFILE, SLOT_REG(2, "uet_li_low2 u32 a", 0));
	EXPECT_EQ(0, SLOT_REG(2, "uet_li_low1 u32 a", 0));
}

/* max_user_event_enablers: all of a user's registrations, inherited ones too (ENOSPC) */
#define USER_MAX	8
#define UID_A		4242
#define UID_B		4243

/* In a test: the per-user limit set to USER_MAX, restored by the teardown; false: skipped */
static bool user_max_setup(struct __test_metadata *_metadata, struct _test_data_limits *self)
{
	if (!ue_available() || access(UE_USER_MAX_PATH, F_OK))
		SKIP(return false, "no %s", UE_USER_MAX_PATH);
	if (geteuid())
		SKIP(return false, "changing %s needs root", UE_USER_MAX_PATH);
	self->user_saved = ue_read_all(UE_USER_MAX_PATH);
	ASSERT_TRUE(ue_nonnull(self->user_saved));
	ASSERT_EQ(0, set_sysctl(UE_USER_MAX_PATH, USER_MAX));
	return true;
}

/* Register bits [from, to) of @word: how many succeeded; *err: the first error */
static int reg_bits(int fd, __u32 *word, int from, int to, int *err)
{
	int bit, n = 0;

	*err = 0;
	for (bit = from; bit < to && !*err; bit++) {
		*err = ue_reg(fd, "ue_lim_user u32 a", word, sizeof(*word), bit, 0, NULL);
		n += !*err;
	}
	return n;
}

/*
 * A child that becomes @uid and registers @n bits: @want of them, then @err (sent on @report);
 * it keeps them until the write end of @hold closes.
 */
static pid_t user_child(struct __test_metadata *_metadata, uid_t uid, int n,
			int want, int err, const int *report, const int *hold)
{
	int fd, res[2] = { -1, -1 };
	pid_t pid = fork();
	__u32 *word;
	char c;

	if (!pid) {
		close(hold[1]);
		fd = ue_open_data();
		word = ue_map_page(PROT_READ | PROT_WRITE);
		if (fd < 0 || !word || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(2);
		res[0] = reg_bits(fd, word, 0, n, &res[1]);
		if (write(report[1], res, sizeof(res)) != sizeof(res))
			_exit(3);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	EXPECT_EQ(sizeof(res), read(report[0], res, sizeof(res)));
	EXPECT_EQ(want, res[0]);
	EXPECT_EQ(err, res[1]);
	return pid;
}

/* Capped across one user's processes, not another's; exits give the charges back */
TEST_F(limits, charged_per_user)
{
	int report[2], hold[2], status;
	pid_t a, b, c;

	if (!user_max_setup(_metadata, self))
		return;
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(hold));
	a = user_child(_metadata, UID_A, USER_MAX + 1, USER_MAX, -ENOSPC, report, hold);
	/* same user, another process: nothing left */
	b = user_child(_metadata, UID_A, 1, 0, -ENOSPC, report, hold);
	/* another user: its own allowance */
	c = user_child(_metadata, UID_B, USER_MAX, USER_MAX, 0, report, hold);
	close(hold[1]);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	EXPECT_EQ(0, status);
	ASSERT_EQ(b, waitpid(b, &status, 0));
	ASSERT_EQ(c, waitpid(c, &status, 0));

	ASSERT_EQ(0, pipe(hold));
	a = user_child(_metadata, UID_A, USER_MAX, USER_MAX, 0, report, hold);
	close(hold[1]);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	close(hold[0]);
	close(report[0]);
	close(report[1]);
}

/* Unregistering returns the charge; a fork that cannot be charged inherits none */
TEST_F(limits, unregister_and_fork)
{
	int fd, err, status;
	__u32 *word;
	pid_t pid;

	if (!user_max_setup(_metadata, self))
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		fd = ue_open_data();
		word = ue_map_page(PROT_READ | PROT_WRITE);
		if (fd < 0 || !word || setresuid(UID_A, UID_A, UID_A))
			_exit(2);
		if (reg_bits(fd, word, 0, USER_MAX, &err) != USER_MAX)
			_exit(3);
		if (ue_unreg(fd, word, 0) || reg_bits(fd, word, USER_MAX, USER_MAX + 1, &err) != 1)
			_exit(4);
		pid = fork();
		if (!pid)	/* no room to inherit: nothing to unregister */
			_exit(ue_unreg(fd, word, 1) == -ENOENT ? 0 : 5);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			_exit(6);
		_exit(ue_unreg(fd, word, 1) ? 7 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* kernel.user_events_max=0 freezes the creation of new events */
TEST_F(limits, max_zero)
{
	char *old = ue_read_all(MAX_PATH);
	__u32 idx;

	ASSERT_TRUE(ue_nonnull(old));
	ASSERT_EQ(0, ue_write_str(MAX_PATH, "0", O_TRUNC));
	EXPECT_EQ(-EMFILE, ue_reg(self->t.fd, "uet_di_max u32 a", self->page, 4, 0, 0, &idx));
	EXPECT_EQ(-EINVAL, ue_write_str(MAX_PATH, "-1", O_TRUNC));
	EXPECT_EQ(0, ue_write_str(MAX_PATH, old, O_TRUNC));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_di_max u32 a", self->page, 4, 0, &idx));
	free(old);
}

/*
 * An address space holds at most MM_CAP registrations; one more fails with ENOSPC, for any event,
 * and has no side effect.  The kernel finds a registration by the long that holds its bit: the
 * 65536 registrations take linear time, about 2 s under QEMU TCG.
 * EXPECTED TO FAIL ON UPSTREAM (6.12): it has no such cap.
 */
#define MM_CAP		65536

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

TEST_F_TIMEOUT(limits, per_mm_cap, 600)
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
