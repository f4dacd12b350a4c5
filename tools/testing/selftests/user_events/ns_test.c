// SPDX-License-Identifier: GPL-2.0
/*
 * user_events and user namespaces.
 *
 * The events of a user namespace other than the initial one form a group
 * of their own: tracefs systems user_events_ns<INUM> and
 * user_events_multi_ns<INUM>, names unique per group, their own limit
 * (kernel.user_events_ns_max), their own user_events_status.  The group
 * of a registration is the one of whoever opened user_events_data.
 *
 * Each test drives "kids": children that unshare(CLONE_NEWUSER |
 * CLONE_NEWNS) and then obey simple commands sent over a socket (register,
 * write, delete, read the status, exit), each answered with a number.
 * Without a uid map the kid's uid in the kernel is still that of its
 * parent, so as root it opens tracefs files as their owner, without any
 * capability in the initial namespace.  The test process is the host: it
 * traces, checks tracefs and dynamic_events, changes the sysctls.
 *
 * Skipped unless root, with user_events, with namespace groups
 * (/proc/sys/kernel/user_events_ns_groups) and with CONFIG_USER_NS.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "../kselftest_harness.h"
#include "ue_util.h"

#define NS_KIDS		4	/* kids of one test at most */
#define NS_EVENTS	8	/* registrations of a kid (not K_REGN) */
#define NS_REGN_MAX	16	/* K_REGN registrations of a kid */
#define NS_PERF		64	/* perf fds of one test */
#define NS_LIMIT	4	/* user_events_ns_max of the limits test */
#define NS_WRITES	5
#define NS_SYS_LEN	64
#define NS_SYSCTL_TOTAL	"/proc/sys/kernel/user_events_max"
/*
 * A test takes a few seconds on a debug kernel; its bounded waits (kids,
 * reaping, each UE_WAIT_SECS) may add up to more than the default 30 s
 * when it fails.
 */
#define NS_TIMEOUT	120
#define NS_KID_IDLE	(6 * UE_WAIT_SECS)	/* a kid's bound between commands */

/* Commands to a kid: op | a << 8 | b << 32 */
enum ns_op {
	K_WRITE = 1,	/* a: event; b: count.  Waits for its enable bit */
	K_REG,		/* a: plan->extra[a]; b: flags */
	K_REGN,		/* b: count of "uens_lim<i> u32 x" */
	K_DEL,		/* DIAG_IOCSDEL plan->del */
	K_STATUS,	/* mask of ns_look[] in its status | Active << 8 */
	K_EXIT,
};

/* The names K_STATUS looks for in a kid's user_events_status */
static const char * const ns_look[] = {
	"uens_sta", "uens_stb", "uens_sth", "uens_shr",
};

/*
 * What a kid does: register reg[] at start (reg[0] through the host's
 * file when @host_fd >= 0), later extra[] (K_REG) and del (K_DEL).
 */
struct ns_plan {
	const char *reg[NS_EVENTS];
	const char *extra[NS_EVENTS];
	const char *del;
	int host_fd;
	bool no_open;	/* open no user_events_data of its own */
};

/* A kid; @sock is the host's end of its socket pair, or in the kid its own */
struct ns_kid {
	pid_t pid;
	int sock;
	unsigned long inum;
	char sys[NS_SYS_LEN];
	char sys_multi[NS_SYS_LEN];
};

/* ---------------------------------------------------------------------
 * Messages: one 64-bit number each way
 */

static int ns_send(struct ns_kid *k, __s64 val)
{
	return send(k->sock, &val, sizeof(val), MSG_NOSIGNAL) == sizeof(val) ?
	       0 : -EPIPE;
}

/* The kid waits longer: the host may be polling for something */
static int ns_recv_within(struct ns_kid *k, __s64 *val, int secs)
{
	struct pollfd p = { .fd = k->sock, .events = POLLIN };
	int ret = poll(&p, 1, secs * 1000);

	if (ret <= 0)
		return ret ? -errno : -ETIMEDOUT;
	return recv(k->sock, val, sizeof(*val), MSG_WAITALL) == sizeof(*val) ?
	       0 : -EPIPE;
}

static int ns_recv(struct ns_kid *k, __s64 *val)
{
	return ns_recv_within(k, val, UE_WAIT_SECS);
}

/* Send a command, return the answer (or -ETIMEDOUT, -EPIPE) */
static __s64 ns_cmd(struct ns_kid *k, int op, __u32 a, __u32 b)
{
	__s64 val;
	int ret = ns_send(k, op | (__s64)a << 8 | (__s64)b << 32);

	if (!ret)
		ret = ns_recv(k, &val);
	return ret ? ret : val;
}

/* ---------------------------------------------------------------------
 * The kid's side
 */

struct ns_kid_state {
	int own_fd;
	int nev;
	int fd[NS_EVENTS];
	__u32 idx[NS_EVENTS];
};

/* Enable words, one per event: [0, NS_EVENTS) and then K_REGN's */
static __u32 ns_words[NS_EVENTS + NS_REGN_MAX];

static int ns_kid_reg(struct ns_kid_state *s, int fd, const char *cmd,
		      __u16 flags)
{
	int ret;

	if (s->nev == NS_EVENTS)
		return -ENOSPC;
	ret = ue_reg(fd, cmd, &ns_words[s->nev], 4, 0, flags,
		     &s->idx[s->nev]);
	if (!ret)
		s->fd[s->nev++] = fd;
	else
		fprintf(stderr, "# kid: register \"%s\": %s\n", cmd,
			strerror(-ret));
	return ret;
}

/* Wait for event @i's enable bit, then write @n records x=100.. */
static __s64 ns_kid_write(struct ns_kid_state *s, __u32 i, __u32 n)
{
	__u32 j, val;
	ssize_t ret;

	if (i >= (__u32)s->nev)
		return -EINVAL;
	if (!ue_wait_bit(&ns_words[i], 4, 0, true))
		return -ETIMEDOUT;
	for (j = 0; j < n; j++) {
		val = 100 + j;
		ret = ue_emit(s->fd[i], s->idx[i], &val, sizeof(val));
		if (ret < 0)
			return ret;
	}
	return n;
}

/* @n registrations uens_lim<i>: successes | -(first error) << 8 */
static __s64 ns_kid_regn(struct ns_kid_state *s, __u32 n)
{
	char cmd[64];
	__s64 ok = 0;
	__u32 i;
	int ret;

	for (i = 0; i < n && i < NS_REGN_MAX; i++) {
		snprintf(cmd, sizeof(cmd), "uens_lim%u u32 x", i);
		ret = ue_reg(s->own_fd, cmd, &ns_words[NS_EVENTS + i], 4, 0, 0,
			     NULL);
		if (ret)
			return ok | (__s64)-ret << 8;
		ok++;
	}
	return ok;
}

static __s64 ns_kid_status(void)
{
	char line[UE_NAME_MAX];
	int active, busy, i;
	__s64 mask = 0;

	if (!ue_status_counts(&active, &busy))
		return -EIO;
	for (i = 0; i < (int)ARRAY_SIZE(ns_look); i++)
		if (ue_status_line(ns_look[i], line, sizeof(line)))
			mask |= 1 << i;
	return mask | (__s64)active << 8;
}

/* Answer 0 after the registrations of @p (else -errno), then commands */
static int ns_kid_main(struct ns_kid *k, const struct ns_plan *p)
{
	struct ns_kid_state s = { .own_fd = -1 };
	__s64 cmd, ret = 0;
	__u32 a, b;
	int i;

	if (!p->no_open) {
		s.own_fd = ue_open_data();
		if (s.own_fd < 0)
			ret = -errno;
	}
	for (i = 0; !ret && i < NS_EVENTS && p->reg[i]; i++)
		ret = ns_kid_reg(&s, !i && p->host_fd >= 0 ? p->host_fd :
				 s.own_fd, p->reg[i], 0);
	if (ns_send(k, ret))
		return 1;
	while (!ns_recv_within(k, &cmd, NS_KID_IDLE)) {
		a = cmd >> 8 & 0xffffff;
		b = cmd >> 32;
		switch (cmd & 0xff) {
		case K_WRITE:
			ret = ns_kid_write(&s, a, b);
			break;
		case K_REG:
			ret = a < NS_EVENTS && p->extra[a] ?
			      ns_kid_reg(&s, s.own_fd, p->extra[a], b) :
			      -EINVAL;
			break;
		case K_REGN:
			ret = ns_kid_regn(&s, b);
			break;
		case K_DEL:
			ret = ue_del(s.own_fd, p->del);
			break;
		case K_STATUS:
			ret = ns_kid_status();
			break;
		case K_EXIT:
			return 0;
		default:
			ret = -EINVAL;
		}
		if (ns_send(k, ret))
			return 1;
	}
	/* no command within NS_KID_IDLE, or the host is gone */
	return 2;
}

/* ---------------------------------------------------------------------
 * The host's side
 */

/* The host's kids and perf fds, all undone by the teardown */
struct ns_host {
	struct ns_kid kids[NS_KIDS];
	int nkids;
	int perf[NS_PERF];
	int nperf;
};

FIXTURE(ns) {
	UE_FIXTURE_MEMBERS;
	struct ns_host h;
	char *old_groups;
	char *old_max;
	char *old_total;
};

/*
 * Start a kid in new user and mount namespaces, running plan @p.
 * Returns 0, or the errno of unshare() (-EPERM, -EINVAL: no user
 * namespaces here) or of its setup.
 */
static int ns_spawn(struct ns_host *h, const struct ns_plan *p,
		    struct ns_kid **out)
{
	struct ns_kid *k = &h->kids[h->nkids];
	pid_t ppid = getpid();
	int sv[2], status, i;
	__s64 val;

	if (h->nkids == NS_KIDS)
		return -ENOSPC;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	memset(k, 0, sizeof(*k));
	k->pid = fork();
	if (k->pid < 0) {
		k->pid = -errno;
		close(sv[0]);
		close(sv[1]);
		return k->pid;
	}
	if (!k->pid) {
		close(sv[0]);
		k->sock = sv[1];
		for (i = 0; i < h->nkids; i++)
			close(h->kids[i].sock);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != ppid)
			_exit(3);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
			ns_send(k, -errno);
			_exit(0);
		}
		ns_send(k, ue_userns_inum());
		_exit(ns_kid_main(k, p));
	}
	close(sv[1]);
	k->sock = sv[0];
	h->nkids++;
	/* the kid's namespace, or why it has none */
	if (ns_recv(k, &val))
		return -ECHILD;
	if (val <= 0) {
		waitpid(k->pid, &status, 0);
		k->pid = 0;
		return val ? val : -ENOENT;
	}
	k->inum = val;
	ue_ns_system(k->sys, sizeof(k->sys), k->inum, false);
	ue_ns_system(k->sys_multi, sizeof(k->sys_multi), k->inum, true);
	/* its registrations */
	if (ns_recv(k, &val))
		return -ECHILD;
	*out = k;
	return val;
}

/* Exit status of kid @k after K_EXIT (-1: none within UE_WAIT_SECS) */
static int ns_exit(struct ns_kid *k)
{
	struct timespec start;
	pid_t pid = k->pid, got;
	int status;

	if (pid <= 0)
		return -1;
	k->pid = 0;
	ns_send(k, K_EXIT);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!(got = waitpid(pid, &status, WNOHANG))) {
		if (ue_elapsed(&start) > UE_WAIT_SECS)
			break;
		usleep(10000);	/* a bounded poll, not a synchronisation */
	}
	if (got != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Perf on tracepoint @id on every CPU, fds kept in h->perf */
static int ns_perf_all_cpus(struct ns_host *h, int id, int *first)
{
	int ncpus = sysconf(_SC_NPROCESSORS_CONF), cpu, fd, n = 0;

	*first = h->nperf;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (h->nperf == NS_PERF)
			return -ENOSPC;
		fd = ue_perf_open_cpu(id, cpu, false);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0)
			return -errno;
		h->perf[h->nperf++] = fd;
		n++;
	}
	return n ? 0 : -ENODEV;
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

static void ns_perf_close(struct ns_host *h)
{
	while (h->nperf)
		close(h->perf[--h->nperf]);
}

/* 0 if this kernel lets us make user namespaces, else why not */
static int ns_supported(void)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNS) ? errno : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

FIXTURE_SETUP(ns)
{
	char left[256];
	int ret;

	memset(&self->h, 0, sizeof(self->h));
	self->old_groups = NULL;
	self->old_max = NULL;
	self->old_total = NULL;
	if (ue_skip_reason(UE_ROOT))
		SKIP(return, "%s", ue_skip_reason(UE_ROOT));
	if (access(UE_NS_SYSCTL_GROUPS, F_OK))
		SKIP(return, "no namespace groups (%s)", UE_NS_SYSCTL_GROUPS);
	ret = ns_supported();
	if (ret == -EPERM || ret == -EINVAL)
		SKIP(return, "no user namespaces: %s", strerror(-ret));
	ASSERT_EQ(0, ret) TH_LOG("unshare: %s", strerror(-ret));
	UE_SETUP(UE_ROOT);
	self->old_groups = ue_read_all(UE_NS_SYSCTL_GROUPS);
	self->old_max = ue_read_all(UE_NS_SYSCTL_MAX);
	self->old_total = ue_read_all(NS_SYSCTL_TOTAL);
	ASSERT_TRUE(ue_nonnull(self->old_groups));
	ASSERT_TRUE(ue_nonnull(self->old_max));
	ASSERT_TRUE(ue_nonnull(self->old_total));
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
	for (i = 0; i < self->h.nkids; i++)
		ns_exit(&self->h.kids[i]);
	for (i = 0; i < self->h.nkids; i++)
		close(self->h.kids[i].sock);
	UE_TEARDOWN();
	if (self->old_groups)
		ue_write_str(UE_NS_SYSCTL_GROUPS, self->old_groups, 0);
	if (self->old_max)
		ue_write_str(UE_NS_SYSCTL_MAX, self->old_max, 0);
	if (self->old_total)
		ue_write_str(NS_SYSCTL_TOTAL, self->old_total, 0);
	free(self->old_groups);
	free(self->old_max);
	free(self->old_total);
	/* nothing of a namespace may outlive its processes and tracers */
	EXPECT_TRUE(ue_wait_ns_systems_gone(left, sizeof(left)))
		TH_LOG("namespace systems left: %s", left);
}

static bool ns_format_has(const char *sys, const char *name,
			  const char *field)
{
	char *text = ue_format_read(sys, name);
	bool found = text && strstr(text, field);

	free(text);
	return found;
}

/* Lines of the trace holding @needle, -1 when it cannot be read. */
static int ns_trace_count(const char *needle)
{
	char *trace = ue_trace_read();
	int n = trace ? ue_count_str(trace, needle) : -1;

	free(trace);
	return n;
}

TEST_F_TIMEOUT(ns, same_name_per_namespace, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_dup u32 a" }, .host_fd = -1,
			      .extra = { "uens_dup u64 other" } };
	struct ns_plan pb = { .reg = { "uens_dup u64 b" }, .host_fd = -1 };
	struct ns_kid *a, *b;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, &pb, &b));
	ASSERT_NE(a->inum, b->inum);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uens_dup char[8] c", self->page,
				  4, 0, NULL));

	ASSERT_TRUE(ue_event_exists(a->sys, "uens_dup"));
	ASSERT_TRUE(ue_event_exists(b->sys, "uens_dup"));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uens_dup"));
	EXPECT_TRUE(ns_format_has(a->sys, "uens_dup", "field:u32 a;"));
	EXPECT_FALSE(ns_format_has(a->sys, "uens_dup", "field:u64 b;"));
	EXPECT_TRUE(ns_format_has(b->sys, "uens_dup", "field:u64 b;"));
	EXPECT_FALSE(ns_format_has(b->sys, "uens_dup", "field:u32 a;"));
	EXPECT_TRUE(ns_format_has(UE_SYS, "uens_dup", "field:char c[8];"));
	EXPECT_NE(ue_event_id(a->sys, "uens_dup"),
		  ue_event_id(b->sys, "uens_dup"));

	/* within one namespace the name is still unique */
	EXPECT_EQ(-EADDRINUSE, ns_cmd(a, K_REG, 0, 0));
	EXPECT_TRUE(ns_format_has(a->sys, "uens_dup", "field:u32 a;"));
}

TEST_F_TIMEOUT(ns, multi_format_system, NS_TIMEOUT)
{
	struct ns_plan pa = { .host_fd = -1,
			      .extra = { "uens_mf u32 x", "uens_mf u64 y" } };
	char path[PATH_MAX];
	struct dirent *de;
	struct ns_kid *a;
	int versions = 0;
	DIR *d;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_cmd(a, K_REG, 0, USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_EQ(0, ns_cmd(a, K_REG, 1, USER_EVENT_REG_MULTI_FORMAT));
	d = opendir(ue_tpath(path, sizeof(path), "events/%s", a->sys_multi));
	ASSERT_TRUE(ue_nonnull(d)) TH_LOG("%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		versions += ue_is_version_of(de->d_name, "uens_mf");
	closedir(d);
	EXPECT_EQ(2, versions);
	EXPECT_EQ(0, ue_multi_versions("uens_mf", NULL, NULL, 0));
}

TEST_F_TIMEOUT(ns, status_per_namespace, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_sta u32 a" }, .host_fd = -1 };
	struct ns_plan pb = { .reg = { "uens_stb u32 b" }, .host_fd = -1 };
	struct ns_plan pc = { .host_fd = -1, .no_open = true };
	struct ns_kid *a, *b, *c;
	char line[UE_NAME_MAX];

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, &pb, &b));
	ASSERT_EQ(0, ns_spawn(&self->h, &pc, &c));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uens_sth u32 h", self->page, 4,
				  0, NULL));

	/* Active << 8 | which of ns_look[] */
	EXPECT_EQ(1 << 8 | 1, ns_cmd(a, K_STATUS, 0, 0));
	EXPECT_EQ(1 << 8 | 2, ns_cmd(b, K_STATUS, 0, 0));
	/* a namespace that never opened user_events_data has no events */
	EXPECT_EQ(0, ns_cmd(c, K_STATUS, 0, 0));

	EXPECT_TRUE(ue_status_line("uens_sth", line, sizeof(line)));
	EXPECT_FALSE(ue_status_line("uens_sta", line, sizeof(line)));
	EXPECT_FALSE(ue_status_line("uens_stb", line, sizeof(line)));
}

TEST_F_TIMEOUT(ns, host_ftrace, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_tr u32 a" }, .host_fd = -1 };
	struct ns_plan pb = { .reg = { "uens_tr u32 b" }, .host_fd = -1 };
	struct ns_kid *a, *b;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, &pb, &b));
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_track_enable(&self->t, a->sys, "uens_tr"));
	ASSERT_EQ(0, ue_track_enable(&self->t, b->sys, "uens_tr"));

	/* each kid waits for its enable bit, then writes */
	EXPECT_EQ(NS_WRITES, ns_cmd(a, K_WRITE, 0, NS_WRITES));
	EXPECT_EQ(NS_WRITES, ns_cmd(b, K_WRITE, 0, NS_WRITES));

	EXPECT_EQ(NS_WRITES, ns_trace_count(" uens_tr: a="));
	EXPECT_EQ(NS_WRITES, ns_trace_count(" uens_tr: b="));
	EXPECT_EQ(1, ns_trace_count(" uens_tr: a=0x68 (104)"));
	EXPECT_EQ(1, ns_trace_count(" uens_tr: b=0x68 (104)"));
	ue_trace_clear();
}

TEST_F_TIMEOUT(ns, host_perf, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_pf u32 a" }, .host_fd = -1 };
	struct ns_plan pb = { .reg = { "uens_pf u32 b" }, .host_fd = -1 };
	int first_a, first_b, ida, idb;
	struct ns_kid *a, *b;
	int n;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, &pb, &b));
	ida = ue_event_id(a->sys, "uens_pf");
	idb = ue_event_id(b->sys, "uens_pf");
	ASSERT_LT(0, ida);
	ASSERT_LT(0, idb);
	ASSERT_NE(ida, idb);
	ASSERT_EQ(0, ns_perf_all_cpus(&self->h, ida, &first_a));
	n = self->h.nperf - first_a;
	ASSERT_EQ(0, ns_perf_all_cpus(&self->h, idb, &first_b));

	EXPECT_EQ(NS_WRITES, ns_cmd(a, K_WRITE, 0, NS_WRITES));
	EXPECT_EQ(2 * NS_WRITES, ns_cmd(b, K_WRITE, 0, 2 * NS_WRITES));
	EXPECT_EQ(NS_WRITES, ns_perf_count(&self->h, first_a, n));
	EXPECT_EQ(2 * NS_WRITES, ns_perf_count(&self->h, first_b, n));
}

TEST_F_TIMEOUT(ns, host_events_out_of_reach, NS_TIMEOUT)
{
	struct ns_plan pa = { .host_fd = -1, .del = "uens_prot",
			      .extra = { "uens_prot u32 c" } };
	struct ns_kid *a;
	__u32 idx, val = 7;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uens_prot u32 h", self->page, 4,
				  0, &idx));
	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));

	/* the kid's group has no uens_prot: nothing to delete */
	EXPECT_EQ(-ENOENT, ns_cmd(a, K_DEL, 0, 0));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uens_prot"));
	ASSERT_TRUE(ns_format_has(UE_SYS, "uens_prot", "field:u32 h;"));

	/* its own uens_prot, with other fields: another event */
	ASSERT_EQ(0, ns_cmd(a, K_REG, 0, 0));
	ASSERT_TRUE(ue_event_exists(a->sys, "uens_prot"));
	EXPECT_TRUE(ns_format_has(a->sys, "uens_prot", "field:u32 c;"));
	EXPECT_TRUE(ns_format_has(UE_SYS, "uens_prot", "field:u32 h;"));
	/* and now it finds its own, in use */
	EXPECT_EQ(-EBUSY, ns_cmd(a, K_DEL, 0, 0));

	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uens_prot"));
	ASSERT_EQ(0, ue_track_enable(&self->t, a->sys, "uens_prot"));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	EXPECT_EQ(NS_WRITES, ns_cmd(a, K_WRITE, 0, NS_WRITES));
	ASSERT_EQ(sizeof(idx) + sizeof(val),
		  ue_emit(self->t.fd, idx, &val, sizeof(val)));

	EXPECT_EQ(NS_WRITES, ns_trace_count(" uens_prot: c="));
	EXPECT_EQ(1, ns_trace_count(" uens_prot: h="));
	EXPECT_EQ(1, ns_trace_count(" uens_prot: h=0x7 (7)"));
	ue_trace_clear();
}

TEST_F_TIMEOUT(ns, dynamic_events, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_dyn u32 x" }, .host_fd = -1 };
	char want[128], cmd[128];
	struct ns_kid *a;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
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
	struct ns_plan pa = { .host_fd = -1 };
	struct ns_plan pb = { .host_fd = -1 };
	struct ns_kid *a, *b;
	char val[16];

	snprintf(val, sizeof(val), "%d", NS_LIMIT);
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_MAX, val, 0));
	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, &pb, &b));

	/* successes | errno << 8 */
	EXPECT_EQ(NS_LIMIT | EMFILE << 8, ns_cmd(a, K_REGN, 0, NS_LIMIT + 1));
	/* the host and another namespace are not charged */
	EXPECT_EQ(0, ue_track_reg(&self->t, "uens_limh u32 x", self->page, 4,
				  0, NULL));
	EXPECT_EQ(NS_LIMIT | EMFILE << 8, ns_cmd(b, K_REGN, 0, NS_LIMIT + 1));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_lim3"));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_lim4"));
	EXPECT_TRUE(ue_event_exists(b->sys, "uens_lim3"));
	EXPECT_FALSE(ue_event_exists(b->sys, "uens_lim4"));
}

/*
 * kernel.user_events_max bounds the initial namespace's events and, apart,
 * the sum of every other namespace's.
 */
TEST_F_TIMEOUT(ns, max_bounds_all_namespaces, NS_TIMEOUT)
{
	struct ns_plan pa = { .host_fd = -1 };
	struct ns_plan pb = { .host_fd = -1 };
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
	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ns_spawn(&self->h, &pb, &b));

	/* the namespaces share @total (not charged for the host's events) */
	EXPECT_EQ(total - 1, ns_cmd(a, K_REGN, 0, total - 1));
	EXPECT_EQ(1 | EMFILE << 8, ns_cmd(b, K_REGN, 0, 2));
	/* the host has its own @total */
	EXPECT_EQ(0, ue_track_reg(&self->t, "uens_tot0 u32 x", self->page, 4,
				  0, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uens_tot1 u32 x", self->page, 4,
				  1, NULL));
	EXPECT_EQ(-EMFILE, ue_track_reg(&self->t, "uens_tot2 u32 x",
					self->page, 4, 2, NULL));
}

TEST_F_TIMEOUT(ns, host_opened_fd, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_hfd u32 x", "uens_own u32 y" },
			      .host_fd = self->t.fd };
	char line[UE_NAME_MAX];
	struct ns_kid *a;

	/* the host's file keeps its event: delete it at the end */
	ue_track_del(&self->t, "uens_hfd");
	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uens_hfd"));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_hfd"));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_own"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uens_own"));
	EXPECT_TRUE(ue_status_line("uens_hfd", line, sizeof(line)));
	EXPECT_FALSE(ue_status_line("uens_own", line, sizeof(line)));
}

TEST_F_TIMEOUT(ns, groups_off, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_shr u32 z" }, .host_fd = -1 };
	char line[UE_NAME_MAX];
	struct ns_kid *a;

	ue_track_del(&self->t, "uens_shr");
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_GROUPS, "0", 0));
	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uens_shr"));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_shr"));
	EXPECT_EQ(0, ue_ns_systems(line, sizeof(line))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_status_line("uens_shr", line, sizeof(line)));
	/* the shared group's status: ns_look[3] */
	EXPECT_EQ(8, ns_cmd(a, K_STATUS, 0, 0) & 0xff);
	ASSERT_EQ(0, ue_write_str(UE_NS_SYSCTL_GROUPS, "1", 0));
}

TEST_F_TIMEOUT(ns, teardown_with_perf, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_gone u32 x" }, .host_fd = -1 };
	char want[128], line[UE_NAME_MAX];
	struct timespec start;
	struct ns_kid *a;
	int first, id;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	id = ue_event_id(a->sys, "uens_gone");
	ASSERT_LT(0, id);
	ASSERT_EQ(0, ns_perf_all_cpus(&self->h, id, &first));
	EXPECT_EQ(1, ns_cmd(a, K_WRITE, 0, 1));
	EXPECT_EQ(0, ns_exit(a));

	/* the namespace has no process left; the host still traces it */
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_gone"));
	snprintf(want, sizeof(want), "u:%s/uens_gone u32 x", a->sys);
	EXPECT_EQ(1, ue_dyn_count(want));
	EXPECT_FALSE(ue_status_line("uens_gone", line, sizeof(line)));
	EXPECT_EQ(1, ns_perf_count(&self->h, first, self->h.nperf - first));

	clock_gettime(CLOCK_MONOTONIC, &start);
	ns_perf_close(&self->h);
	EXPECT_TRUE(ue_wait_gone(a->sys, "uens_gone"));
	EXPECT_TRUE(ue_wait_gone(a->sys, NULL));
	EXPECT_TRUE(ue_wait_gone(a->sys_multi, NULL));
	EXPECT_EQ(0, ue_dyn_count(want));
	ksft_print_msg("teardown_with_perf: gone %.3f s after the last close\n",
		       ue_elapsed(&start));
}

TEST_F_TIMEOUT(ns, teardown_with_ftrace, NS_TIMEOUT)
{
	struct ns_plan pa = { .reg = { "uens_gone2 u32 x" }, .host_fd = -1 };
	struct timespec start;
	struct ns_kid *a;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	ASSERT_EQ(0, ue_track_enable(&self->t, a->sys, "uens_gone2"));
	EXPECT_EQ(1, ns_cmd(a, K_WRITE, 0, 1));
	EXPECT_EQ(0, ns_exit(a));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_gone2"));

	clock_gettime(CLOCK_MONOTONIC, &start);
	ASSERT_EQ(0, ue_set_enable(a->sys, "uens_gone2", false));
	EXPECT_TRUE(ue_wait_gone(a->sys, "uens_gone2"));
	EXPECT_TRUE(ue_wait_gone(a->sys, NULL));
	ksft_print_msg("teardown_with_ftrace: gone %.3f s after the disable\n",
		       ue_elapsed(&start));
}

TEST_F_TIMEOUT(ns, persist_refused, NS_TIMEOUT)
{
	struct ns_plan pa = { .host_fd = -1,
			      .extra = { "uens_pers u32 x" } };
	struct ns_kid *a;

	ASSERT_EQ(0, ns_spawn(&self->h, &pa, &a));
	EXPECT_EQ(-EPERM, ns_cmd(a, K_REG, 0, USER_EVENT_REG_PERSIST));
	EXPECT_FALSE(ue_event_exists(a->sys, "uens_pers"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uens_pers"));
	/* the same without the flag is fine */
	EXPECT_EQ(0, ns_cmd(a, K_REG, 0, 0));
	EXPECT_TRUE(ue_event_exists(a->sys, "uens_pers"));
}

TEST_HARNESS_MAIN
