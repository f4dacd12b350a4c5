// SPDX-License-Identifier: GPL-2.0
/*
 * user_events and user namespaces.  A user namespace other than the initial one has a group
 * of events of its own: systems user_events_ns<INUM> and user_events_multi_ns<INUM>, its own
 * names, limit (kernel.user_events_ns_max) and status; a registration belongs to the group
 * of whoever opened user_events_data.  Tests drive "kids", children that unshare their user
 * and mount namespaces and obey commands over a socket: without a uid map a kid keeps
 * its parent's uid, so as root it opens tracefs files as their owner, with no capability in
 * the initial namespace.  The test process (the host) traces, checks and sets the sysctls.
 */
#include "ue_util.h"
#include <dirent.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "../kselftest_harness.h"

#define NS_KIDS		4	/* kids of one test at most */
#define NS_EVENTS	8	/* registrations of a kid besides k_regn()'s */
#define NS_REGN_MAX	16	/* k_regn() registrations of a kid */
#define NS_PERF		64	/* perf fds of one test */
#define NS_LIMIT	4	/* user_events_ns_max of limits_per_group */
#define NS_WRITES	5
#define NS_SYSCTL_TOTAL	"/proc/sys/kernel/user_events_max"
/* Events each user may have in the groups of user namespaces (kernels with this limit) */
#define NS_SYSCTL_USER	"/proc/sys/user/max_user_events"
/* A test takes seconds on a debug kernel; its bounded waits may add up past 30 s */
#define NS_TIMEOUT	120

/*
 * A command to a kid: it runs fn(str, arg) and answers with what it returns (fn NULL: exit).
 * The kid is a fork of the host: fn and str (from before the fork) have the same address.
 */
struct ns_msg {
	__s64 (*fn)(const char *str, int arg);
	const char *str;
	int arg;
};

/* The names k_status() looks for */
static const char * const ns_look[] = { "uens_sta", "uens_stb", "uens_sth", "uens_shr" };
/* restored by the teardown */
static const char * const ns_sysctls[] = { UE_NS_SYSCTL_GROUPS, UE_NS_SYSCTL_MAX, NS_SYSCTL_TOTAL };

static int ns_send(int sock, const void *buf, size_t len)
{
	return send(sock, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -EPIPE;
}

/* The kid's own file (opened on demand), its registrations, the first one's file and index */
static struct {
	int own, nev, fd0;
	__u32 idx0, words[NS_EVENTS + NS_REGN_MAX];
} kid = { .own = -1 };

static int kid_own(void)
{
	if (kid.own < 0)
		kid.own = ue_open_data();
	return kid.own;
}

static __s64 kid_reg(int fd, const char *cmd, int flags)
{
	__u32 idx;
	int ret;

	if (kid.nev == ARRAY_SIZE(kid.words))
		return -ENOSPC;
	ret = ue_reg(fd, cmd, &kid.words[kid.nev], 4, 0, flags, &idx);
	if (!ret && !kid.nev++) {
		kid.fd0 = fd;
		kid.idx0 = idx;
	}
	return ret;
}

static __s64 k_reg(const char *str, int flags)
{
	return kid_reg(kid_own(), str, flags);
}

/* through file @fd: the host's, inherited */
static __s64 k_reg_fd(const char *str, int fd)
{
	return kid_reg(fd, str, 0);
}

static __s64 k_del(const char *str, int unused)
{
	return ue_del(kid_own(), str);
}

/* Wait for the enable bit of the kid's first event, then write @n records x=100.. */
static __s64 k_write(const char *unused, int n)
{
	__u32 val;
	ssize_t ret;

	if (!kid.nev)
		return -EINVAL;
	if (!ue_wait_bit(&kid.words[0], 4, 0, true))
		return -ETIMEDOUT;
	for (val = 100; val < 100 + n; val++) {
		ret = ue_emit(kid.fd0, kid.idx0, &val, sizeof(val));
		if (ret < 0)
			return ret;
	}
	return n;
}

/* @n registrations "uens_lim<i> u32 x": successes | errno << 8 */
static __s64 k_regn(const char *unused, int n)
{
	char cmd[64];
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		snprintf(cmd, sizeof(cmd), "uens_lim%d u32 x", i);
		ret = k_reg(cmd, 0);
	}
	return ret ? (i - 1) | (__s64)-ret << 8 : i;
}

/* Which of ns_look[] the kid's user_events_status lists | Active << 8 */
static __s64 k_status(const char *unused, int unused2)
{
	char line[UE_NAME_MAX];
	int active, busy, i;
	__s64 mask = 0;

	if (!ue_status_counts(&active, &busy))
		return -EIO;
	for (i = 0; i < ARRAY_SIZE(ns_look); i++)
		if (ue_status_line(ns_look[i], line, sizeof(line)))
			mask |= 1 << i;
	return mask | (__s64)active << 8;
}

/* Run commands until told to exit (0), the host is gone (1) or 6 * UE_WAIT_SECS pass (2) */
static int kid_main(int sock)
{
	struct ns_msg m;
	__s64 ret;

	for (;;) {
		if (ue_recv(sock, &m, sizeof(m), 6 * UE_WAIT_SECS))
			return 2;
		if (!m.fn)
			return 0;
		ret = m.fn(m.str, m.arg);
		if (ns_send(sock, &ret, sizeof(ret)))
			return 1;
	}
}

struct ns_kid {
	pid_t pid;
	int sock;	/* the host's end */
	unsigned long inum;
	char sys[64], sys_multi[64];
};

/* The answer, or -ETIMEDOUT, -EPIPE */
static __s64 ns_cmd(struct ns_kid *k, __s64 (*fn)(const char *, int), const char *str, int arg)
{
	struct ns_msg m = { fn, str, arg };
	__s64 val;
	int ret = ns_send(k->sock, &m, sizeof(m));

	if (!ret)
		ret = ue_recv(k->sock, &val, sizeof(val), UE_WAIT_SECS);
	return ret ? ret : val;
}

/* undone by the teardown */
struct ns_host {
	struct ns_kid kids[NS_KIDS];
	int nkids, nperf, perf[NS_PERF];
};

FIXTURE(ns) {
	UE_FIXTURE_MEMBERS;
	struct ns_host h;
	char *old[ARRAY_SIZE(ns_sysctls)];
	char *user_max;		/* NS_SYSCTL_USER to restore */
	struct ue_share share;	/* tracefs modes to restore */
};

/*
 * Start a kid as user @uid (0: the host's) in new user and mount namespaces; it registers
 * @reg (unless NULL).  Returns 0, the errno of unshare() (-EPERM, -EINVAL: no user namespaces
 * here) or of k_reg().
 */
static int ns_spawn_as(struct ns_host *h, uid_t uid, const char *reg, struct ns_kid **out)
{
	struct ns_kid *k = &h->kids[h->nkids];
	pid_t ppid = getpid();
	int sv[2], i;
	__s64 val;

	if (h->nkids == NS_KIDS)
		return -ENOSPC;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	memset(k, 0, sizeof(*k));
	k->pid = fork();
	if (!k->pid) {
		close(sv[0]);
		for (i = 0; i < h->nkids; i++)
			close(h->kids[i].sock);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(4);
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* after a uid change, which clears it */
		if (getppid() != ppid)
			_exit(3);
		val = unshare(CLONE_NEWUSER | CLONE_NEWNS) ? -errno : (__s64)ue_userns_inum();
		_exit(ns_send(sv[1], &val, sizeof(val)) || val <= 0 ? 0 : kid_main(sv[1]));
	}
	close(sv[1]);
	k->sock = sv[0];
	h->nkids++;
	if (k->pid < 0 || ue_recv(k->sock, &val, sizeof(val), UE_WAIT_SECS))
		return -ECHILD;
	if (val <= 0) {
		waitpid(k->pid, NULL, 0);
		k->pid = 0;
		return val ? val : -ENOENT;
	}
	k->inum = val;
	ue_ns_system(k->sys, sizeof(k->sys), k->inum, false);
	ue_ns_system(k->sys_multi, sizeof(k->sys_multi), k->inum, true);
	*out = k;
	return reg ? ns_cmd(k, k_reg, reg, 0) : 0;
}

static int ns_spawn(struct ns_host *h, const char *reg, struct ns_kid **out)
{
	return ns_spawn_as(h, 0, reg, out);
}

/* Exit status of kid @k told to exit (-1: none within UE_WAIT_SECS) */
static int ns_exit(struct ns_kid *k)
{
	struct ns_msg m = { NULL };
	pid_t pid = k->pid;
	int status;
	char c;

	if (pid <= 0)
		return -1;
	k->pid = 0;
	/* its end of the socket closes as it exits */
	if (ns_send(k->sock, &m, sizeof(m)) || ue_recv(k->sock, &c, 1, UE_WAIT_SECS) != -EPIPE)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Perf on tracepoint @id on every online CPU: the index of its first fd in h->perf */
static int ns_perf_all_cpus(struct ns_host *h, int id)
{
	int ncpus = sysconf(_SC_NPROCESSORS_CONF), cpu, fd, first = h->nperf;

	for (cpu = 0; cpu < ncpus; cpu++) {
		if (h->nperf == NS_PERF)
			return -ENOSPC;
		fd = ue_perf_open_cpu(id, cpu, false);
		if (fd < 0 && errno != ENODEV)	/* ENODEV: offline */
			return -errno;
		if (fd >= 0)
			h->perf[h->nperf++] = fd;
	}
	return h->nperf > first ? first : -ENODEV;
}

/* Sum of the counts of perf fds [first, first + n) */
static long long ns_perf_count(struct ns_host *h, int first, int n)
{
	long long sum = 0;
	__u64 count;
	int i;

	for (i = first; i < first + n; i++) {
		if (read(h->perf[i], &count, sizeof(count)) != sizeof(count))
			return -errno;
		sum += count;
	}
	return sum;
}

static int ns_perf_close(struct ns_host *h)
{
	while (h->nperf)
		close(h->perf[--h->nperf]);
	return 0;
}

FIXTURE_SETUP(ns)
{
	struct ns_kid *k;
	char left[256];
	int i, ret;

	if (ue_skip_reason(UE_ROOT))
		SKIP(return, "%s", ue_skip_reason(UE_ROOT));
	if (access(UE_NS_SYSCTL_GROUPS, F_OK))
		SKIP(return, "no namespace groups (%s)", UE_NS_SYSCTL_GROUPS);
	ret = ns_spawn(&self->h, NULL, &k);
	if (ret == -EPERM || ret == -EINVAL)
		SKIP(return, "no user namespaces: %s", strerror(-ret));
	ASSERT_EQ(0, ret) TH_LOG("unshare: %s", strerror(-ret));
	ASSERT_EQ(0, ns_exit(k));
	close(k->sock);
	self->h.nkids = 0;
	UE_SETUP(UE_ROOT | UE_TRACE);
	for (i = 0; i < ARRAY_SIZE(ns_sysctls); i++) {
		self->old[i] = ue_read_all(ns_sysctls[i]);
		ASSERT_TRUE(ue_nonnull(self->old[i])) TH_LOG("%s", ns_sysctls[i]);
	}
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_GROUPS, "1", 0));
	/* what an earlier run or test may still be reaping */
	ASSERT_TRUE(ue_wait_ns_systems_gone(left, sizeof(left)))
		TH_LOG("namespace systems left: %s", left);
}

FIXTURE_TEARDOWN(ns)
{
	char left[256];
	int i;

	ns_perf_close(&self->h);
	for (i = 0; i < self->h.nkids; i++) {
		ns_exit(&self->h.kids[i]);
		close(self->h.kids[i].sock);
	}
	UE_TEARDOWN();
	for (i = 0; i < ARRAY_SIZE(ns_sysctls); i++) {
		ue_write_str(ns_sysctls[i], self->old[i], 0);
		free(self->old[i]);
	}
	if (self->user_max)
		ue_write_str(NS_SYSCTL_USER, self->user_max, 0);
	free(self->user_max);
	ue_share_undo(&self->share);
	/* nothing of a namespace may outlive its processes and tracers */
	EXPECT_TRUE(ue_wait_ns_systems_gone(left, sizeof(left)))
		TH_LOG("namespace systems left: %s", left);
}

/* Lines of the trace holding @needle, -1 when it cannot be read */
static int ns_trace_count(const char *needle)
{
	char path[PATH_MAX];

	return ue_count_in(ue_tpath(path, sizeof(path), "trace"), needle);
}

TEST_F_TIMEOUT(ns, same_name_per_namespace, NS_TIMEOUT)
{
	struct ns_kid *a, *b;

	ASSERT_EQ(0, ns_spawn(&self->h, "uens_dup u32 a", &a));
	ASSERT_EQ(0, ns_spawn(&self->h, "uens_dup u64 b", &b));
	ASSERT_NE(a->inum, b->inum);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uens_dup char[8] c", self->page, 4, 0, NULL));
	ASSERT_TRUE(ue_event_exists(a->sys, "uens_dup"));
	ASSERT_TRUE(ue_event_exists(b->sys, "uens_dup"));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uens_dup"));
	EXPECT_TRUE(ue_format_has(a->sys, "uens_dup", "field:u32 a;"));
	EXPECT_FALSE(ue_format_has(a->sys, "uens_dup", "field:u64 b;"));
	EXPECT_TRUE(ue_format_has(b->sys, "uens_dup", "field:u64 b;"));
	EXPECT_FALSE(ue_format_has(b->sys, "uens_dup", "field:u32 a;"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uens_dup", "field:char c[8];"));
	EXPECT_NE(ue_event_id(a->sys, "uens_dup"), ue_event_id(b->sys, "uens_dup"));
	/* within one namespace the name is still unique */
	EXPECT_EQ(-EADDRINUSE, ns_cmd(a, k_reg, "uens_dup u64 other", 0));
	EXPECT_TRUE(ue_format_has(a->sys, "uens_dup", "field:u32 a;"));
}

/* Multi-format versions are NAME.<hex id>, numbered per group from 0 (as upstream) */
TEST_F_TIMEOUT(ns, multi_format_system, NS_TIMEOUT)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct ns_kid *a, *b;
	int versions = 0;
	DIR *d;

	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &a));
	ASSERT_EQ(0, ns_cmd(a, k_reg, "uens_mf u32 x", USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_EQ(0, ns_cmd(a, k_reg, "uens_mf u64 y", USER_EVENT_REG_MULTI_FORMAT));
	d = opendir(ue_tpath(path, sizeof(path), "events/%s", a->sys_multi));
	ASSERT_TRUE(ue_nonnull(d)) TH_LOG("%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		versions += ue_is_version_of(de->d_name, "uens_mf");
	closedir(d);
	EXPECT_EQ(2, versions);
	EXPECT_EQ(0, ue_multi_versions("uens_mf", NULL, NULL, 0));
	EXPECT_TRUE(ue_format_has(a->sys_multi, "uens_mf.0", "field:u32 x;"));
	EXPECT_TRUE(ue_format_has(a->sys_multi, "uens_mf.1", "field:u64 y;"));
	/* another group counts on its own */
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &b));
	ASSERT_EQ(0, ns_cmd(b, k_reg, "uens_mf u64 y", USER_EVENT_REG_MULTI_FORMAT));
	EXPECT_TRUE(ue_format_has(b->sys_multi, "uens_mf.0", "field:u64 y;"));
}

TEST_F_TIMEOUT(ns, status_per_namespace, NS_TIMEOUT)
{
	struct ns_kid *a, *b, *c;
	char line[UE_NAME_MAX];

	ASSERT_EQ(0, ns_spawn(&self->h, "uens_sta u32 a", &a));
	ASSERT_EQ(0, ns_spawn(&self->h, "uens_stb u32 b", &b));
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &c));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uens_sth u32 h", self->page, 4, 0, NULL));
	EXPECT_EQ(1 << 8 | 1, ns_cmd(a, k_status, NULL, 0));
	EXPECT_EQ(1 << 8 | 2, ns_cmd(b, k_status, NULL, 0));
	/* a namespace that never opened user_events_data has no events */
	EXPECT_EQ(0, ns_cmd(c, k_status, NULL, 0));
	EXPECT_TRUE(ue_status_line("uens_sth", line, sizeof(line)));
	EXPECT_FALSE(ue_status_line("uens_sta", line, sizeof(line)));
	EXPECT_FALSE(ue_status_line("uens_stb", line, sizeof(line)));
}

TEST_F_TIMEOUT(ns, host_ftrace, NS_TIMEOUT)
{
	struct ns_kid *a, *b;

	ASSERT_EQ(0, ns_spawn(&self->h, "uens_tr u32 a", &a));
	ASSERT_EQ(0, ns_spawn(&self->h, "uens_tr u32 b", &b));
	ASSERT_EQ(0, ue_track_enable(&self->t, a->sys, "uens_tr"));
	ASSERT_EQ(0, ue_track_enable(&self->t, b->sys, "uens_tr"));
	EXPECT_EQ(NS_WRITES, ns_cmd(a, k_write, NULL, NS_WRITES));
	EXPECT_EQ(NS_WRITES, ns_cmd(b, k_write, NULL, NS_WRITES));
	EXPECT_EQ(NS_WRITES, ns_trace_count(" uens_tr: a="));
	EXPECT_EQ(NS_WRITES, ns_trace_count(" uens_tr: b="));
	EXPECT_EQ(1, ns_trace_count(" uens_tr: a=0x68 (104)"));
	EXPECT_EQ(1, ns_trace_count(" uens_tr: b=0x68 (104)"));
}

TEST_F_TIMEOUT(ns, host_perf, NS_TIMEOUT)
{
	struct ns_kid *a, *b;
	int ida, idb, first_a, first_b;

	ASSERT_EQ(0, ns_spawn(&self->h, "uens_pf u32 a", &a));
	ASSERT_EQ(0, ns_spawn(&self->h, "uens_pf u32 b", &b));
	ida = ue_event_id(a->sys, "uens_pf");
	idb = ue_event_id(b->sys, "uens_pf");
	ASSERT_LT(0, ida);
	ASSERT_LT(0, idb);
	ASSERT_NE(ida, idb);
	first_a = ns_perf_all_cpus(&self->h, ida);
	ASSERT_LE(0, first_a);
	first_b = ns_perf_all_cpus(&self->h, idb);
	ASSERT_LE(0, first_b);
	EXPECT_EQ(NS_WRITES, ns_cmd(a, k_write, NULL, NS_WRITES));
	EXPECT_EQ(2 * NS_WRITES, ns_cmd(b, k_write, NULL, 2 * NS_WRITES));
	EXPECT_EQ(NS_WRITES, ns_perf_count(&self->h, first_a, first_b - first_a));
	EXPECT_EQ(2 * NS_WRITES, ns_perf_count(&self->h, first_b, first_b - first_a));
}

TEST_F_TIMEOUT(ns, host_events_out_of_reach, NS_TIMEOUT)
{
	struct ns_kid *a;
	__u32 idx, val = 7;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uens_prot u32 h", self->page, 4, 0, &idx));
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &a));
	/* the kid's group has no uens_prot: nothing to delete */
	EXPECT_EQ(-ENOENT, ns_cmd(a, k_del, "uens_prot", 0));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uens_prot"));
	ASSERT_TRUE(ue_format_has(UE_SYS, "uens_prot", "field:u32 h;"));
	/* its own uens_prot, with other fields: another event */
	ASSERT_EQ(0, ns_cmd(a, k_reg, "uens_prot u32 c", 0));
	ASSERT_TRUE(ue_event_exists(a->sys, "uens_prot"));
	EXPECT_TRUE(ue_format_has(a->sys, "uens_prot", "field:u32 c;"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uens_prot", "field:u32 h;"));
	/* and now it finds its own, in use */
	EXPECT_EQ(-EBUSY, ns_cmd(a, k_del, "uens_prot", 0));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uens_prot"));
	ASSERT_EQ(0, ue_track_enable(&self->t, a->sys, "uens_prot"));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	EXPECT_EQ(NS_WRITES, ns_cmd(a, k_write, NULL, NS_WRITES));
	ASSERT_EQ(sizeof(idx) + sizeof(val), ue_emit(self->t.fd, idx, &val, sizeof(val)));
	EXPECT_EQ(NS_WRITES, ns_trace_count(" uens_prot: c="));
	EXPECT_EQ(1, ns_trace_count(" uens_prot: h="));
	EXPECT_EQ(1, ns_trace_count(" uens_prot: h=0x7 (7)"));
}

TEST_F_TIMEOUT(ns, dynamic_events, NS_TIMEOUT)
{
	char want[128], cmd[128];
	struct ns_kid *a;

	ASSERT_EQ(0, ns_spawn(&self->h, "uens_dyn u32 x", &a));
	snprintf(want, sizeof(want), "u:%s/uens_dyn u32 x", a->sys);
	EXPECT_EQ(1, ue_dyn_count(want));
	EXPECT_EQ(0, ue_dyn_count("u:uens_dyn u32 x"));
	/* without a system, only the initial namespace's events match */
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:uens_dyn"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" UE_SYS "/uens_dyn"));
	snprintf(cmd, sizeof(cmd), "-:%s/uens_dyn", a->sys);
	EXPECT_EQ(-EBUSY, ue_dyn_cmd(cmd));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_dyn"));
	/* the host's own event of that name is another one */
	ASSERT_EQ(0, ue_dyn_add("uens_dyn", "u64 y"));
	ue_track_del(&self->t, "uens_dyn");
	EXPECT_EQ(1, ue_dyn_count("u:uens_dyn u64 y"));
	EXPECT_EQ(1, ue_dyn_count(want));
	EXPECT_EQ(0, ue_dyn_cmd("-:uens_dyn"));
	EXPECT_EQ(1, ue_dyn_count(want));
	/* gone with the kid */
	EXPECT_EQ(0, ns_exit(a));
	EXPECT_TRUE(ue_wait_gone(a->sys, NULL));
	EXPECT_EQ(0, ue_dyn_count(want));
}

TEST_F_TIMEOUT(ns, limits_per_group, NS_TIMEOUT)
{
	struct ns_kid *a, *b;
	char val[16];

	snprintf(val, sizeof(val), "%d", NS_LIMIT);
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_MAX, val, 0));
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &b));
	EXPECT_EQ(NS_LIMIT | EMFILE << 8, ns_cmd(a, k_regn, NULL, NS_LIMIT + 1));
	/* the host and another namespace are not charged */
	EXPECT_EQ(0, ue_track_reg(&self->t, "uens_limh u32 x", self->page, 4, 0, NULL));
	EXPECT_EQ(NS_LIMIT | EMFILE << 8, ns_cmd(b, k_regn, NULL, NS_LIMIT + 1));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_lim3"));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_lim4"));
	EXPECT_TRUE(ue_event_exists(b->sys, "uens_lim3"));
	EXPECT_FALSE(ue_event_exists(b->sys, "uens_lim4"));
}

/* kernel.user_events_max bounds the initial namespace's events and, apart, all others' */
TEST_F_TIMEOUT(ns, max_bounds_all_namespaces, NS_TIMEOUT)
{
	int active, busy, total;
	struct ns_kid *a, *b;
	char val[16];

	ASSERT_TRUE(ue_status_counts(&active, &busy));
	/* the host's events now, and room for two more */
	total = active + 2;
	if (total > NS_REGN_MAX)
		SKIP(return, "%d events of the host already", active);
	snprintf(val, sizeof(val), "%d", total);
	ASSERT_EQ(0, ue_write_str(NS_SYSCTL_TOTAL, val, 0));
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &b));
	/* the namespaces share @total (not charged for the host's events) */
	EXPECT_EQ(total - 1, ns_cmd(a, k_regn, NULL, total - 1));
	EXPECT_EQ(1 | EMFILE << 8, ns_cmd(b, k_regn, NULL, 2));
	/* the host has its own @total */
	EXPECT_EQ(0, ue_track_reg(&self->t, "uens_tot0 u32 x", self->page, 4, 0, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uens_tot1 u32 x", self->page, 4, 1, NULL));
	EXPECT_EQ(-EMFILE, ue_track_reg(&self->t, "uens_tot2 u32 x", self->page, 4, 2, NULL));
}

TEST_F_TIMEOUT(ns, host_opened_fd, NS_TIMEOUT)
{
	char line[UE_NAME_MAX];
	struct ns_kid *a;

	/* the host's file keeps its event */
	ue_track_del(&self->t, "uens_hfd");
	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &a));
	ASSERT_EQ(0, ns_cmd(a, k_reg_fd, "uens_hfd u32 x", self->t.fd));
	ASSERT_EQ(0, ns_cmd(a, k_reg, "uens_own u32 y", 0));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uens_hfd"));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_hfd"));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_own"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uens_own"));
	EXPECT_TRUE(ue_status_line("uens_hfd", line, sizeof(line)));
	EXPECT_FALSE(ue_status_line("uens_own", line, sizeof(line)));
}

TEST_F_TIMEOUT(ns, groups_off, NS_TIMEOUT)
{
	char line[UE_NAME_MAX];
	struct ns_kid *a;

	ue_track_del(&self->t, "uens_shr");
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_GROUPS, "0", 0));
	ASSERT_EQ(0, ns_spawn(&self->h, "uens_shr u32 z", &a));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uens_shr"));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_shr"));
	EXPECT_EQ(0, ue_ns_systems(line, sizeof(line))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_status_line("uens_shr", line, sizeof(line)));
	/* the shared group's status: ns_look[3] */
	EXPECT_EQ(8, ns_cmd(a, k_status, NULL, 0) & 0xff);
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_GROUPS, "1", 0));
}

/* A namespace without processes goes with its last tracer: perf (1) or ftrace (0) */
static void ns_teardown_with(struct __test_metadata *_metadata, struct ns_host *h,
			     struct ue_track *t, bool perf)
{
	const char *name = perf ? "uens_gone" : "uens_gone2";
	char want[128], line[UE_NAME_MAX];
	struct timespec start;
	int first = 0, id;
	struct ns_kid *a;

	snprintf(want, sizeof(want), "%s u32 x", name);
	ASSERT_EQ(0, ns_spawn(h, want, &a));
	id = ue_event_id(a->sys, name);
	ASSERT_LT(0, id);
	if (perf) {
		first = ns_perf_all_cpus(h, id);
		ASSERT_LE(0, first);
	} else {
		ASSERT_EQ(0, ue_track_enable(t, a->sys, name));
	}
	EXPECT_EQ(1, ns_cmd(a, k_write, NULL, 1));
	EXPECT_EQ(0, ns_exit(a));
	/* the namespace has no process left; the host still traces it */
	EXPECT_TRUE(ue_event_exists(a->sys, name));
	snprintf(want, sizeof(want), "u:%s/%s u32 x", a->sys, name);
	EXPECT_EQ(1, ue_dyn_count(want));
	EXPECT_FALSE(ue_status_line(name, line, sizeof(line)));
	EXPECT_EQ(1, perf ? ns_perf_count(h, first, h->nperf - first) :
		     ns_trace_count(" uens_gone2: x=0x64 (100)"));
	clock_gettime(CLOCK_MONOTONIC, &start);
	ASSERT_EQ(0, perf ? ns_perf_close(h) : ue_set_enable(a->sys, name, false));
	EXPECT_TRUE(ue_wait_gone(a->sys, name));
	EXPECT_TRUE(ue_wait_gone(a->sys, NULL));
	EXPECT_TRUE(ue_wait_gone(a->sys_multi, NULL));
	EXPECT_EQ(0, ue_dyn_count(want));
	ksft_print_msg("%s: gone %.3f s after the last %s\n", name, ue_elapsed(&start),
		       perf ? "close" : "disable");
}

TEST_F_TIMEOUT(ns, teardown_with_perf, NS_TIMEOUT)
{
	ns_teardown_with(_metadata, &self->h, &self->t, true);
}

TEST_F_TIMEOUT(ns, teardown_with_ftrace, NS_TIMEOUT)
{
	ns_teardown_with(_metadata, &self->h, &self->t, false);
}

TEST_F_TIMEOUT(ns, persist_refused, NS_TIMEOUT)
{
	struct ns_kid *a;

	ASSERT_EQ(0, ns_spawn(&self->h, NULL, &a));
	EXPECT_EQ(-EPERM, ns_cmd(a, k_reg, "uens_pers u32 x", USER_EVENT_REG_PERSIST));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_pers"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uens_pers"));
	/* the same without the flag is fine */
	EXPECT_EQ(0, ns_cmd(a, k_reg, "uens_pers u32 x", 0));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_pers"));
}

#define NS_FAIR_POOL	"32"	/* user_events_max of one_user_one_share */
#define NS_FAIR_USER	16	/* max_user_events of one_user_one_share */
#define NS_FAIR_NS	3	/* namespaces of the greedy user */
#define NS_UID_A	65533	/* the greedy user */
#define NS_UID_B	65532	/* another user */

/*
 * The groups of user namespaces share one pool of events (user_events_max), and each real
 * user may take only max_user_events of it, whatever its namespaces: a user who creates as
 * many events as it can, in several namespaces, is refused at its limit and leaves room for
 * other users.  Without the per-user limit it fills the pool and the next user gets EMFILE.
 */
TEST_F_TIMEOUT(ns, one_user_one_share, NS_TIMEOUT)
{
	static const int tries[NS_FAIR_NS] = { NS_FAIR_USER / 2, NS_FAIR_USER / 2, NS_FAIR_USER };
	struct ns_kid *a, *b;
	int i, total = 0, err = 0;
	char val[16];
	__s64 got;

	if (access(NS_SYSCTL_USER, F_OK))
		SKIP(return, "no per-user limit of events (%s)", NS_SYSCTL_USER);
	self->user_max = ue_read_all(NS_SYSCTL_USER);
	ASSERT_TRUE(ue_nonnull(self->user_max));
	ASSERT_EQ(0, ue_share_data(&self->share));
	/* the greedy user tries NS_FAIR_USER * 2: all of the pool */
	ASSERT_EQ(0, ue_write_str(NS_SYSCTL_TOTAL, NS_FAIR_POOL, 0));
	snprintf(val, sizeof(val), "%d", NS_FAIR_USER);
	ASSERT_EQ(0, ue_write_str(NS_SYSCTL_USER, val, 0));
	for (i = 0; i < NS_FAIR_NS; i++) {
		ASSERT_EQ(0, ns_spawn_as(&self->h, NS_UID_A, NULL, &a));
		got = ns_cmd(a, k_regn, NULL, tries[i]);
		ASSERT_LE(0, got) TH_LOG("namespace %d: %s", i, strerror(-got));
		total += got & 0xff;
		err = got >> 8;
	}
	EXPECT_EQ(NS_FAIR_USER, total);
	EXPECT_EQ(EMFILE, err) TH_LOG("%s", strerror(err));
	/* another user, in a namespace of its own, still has room */
	ASSERT_EQ(0, ns_spawn_as(&self->h, NS_UID_B, NULL, &b));
	EXPECT_EQ(NS_EVENTS, ns_cmd(b, k_regn, NULL, NS_EVENTS));
}

TEST_HARNESS_MAIN
