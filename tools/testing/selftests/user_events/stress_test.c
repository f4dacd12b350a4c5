// SPDX-License-Identifier: GPL-2.0
/*
 * user_events stress: worker processes and their threads register, write, unregister, close,
 * fork, exec, vfork and exit (cleanly or busy), while threads of the test process toggle
 * enable files, attach perf events, create and delete events, read tracefs files and churn
 * user namespaces, for UE_STRESS_SECONDS (default 20) or UE_STRESS_OPS (5000000) operations.
 * Checked without timing assumptions: every operation succeeds or fails with an errno its
 * situation allows; every checked record, traced in a private instance that holds them all
 * (UE_STRESS_RECORDS), is there once and intact, and nothing else is; afterwards the
 * Active/Busy counts are those of before and nothing of the test is left (leaks: kmemleak).
 */
#include "../kselftest_harness.h"
#include <dirent.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/sysinfo.h>
#include "ue_util.h"

#define ST_INST		"uet_stress"
#define ST_PREFIX	"uet_st_"
#define CHK_NAME	"uet_st_chk"
#define CHK_FIELDS	"u32 wid; u32 seq; u64 val; __data_loc char[] msg"
#define CHK_FIXED	20	/* wid, seq, val, msg location */
/* The checked event's system, seen from events/ of the top instance */
#define ST_INST_SYS	"../instances/" ST_INST "/events/" UE_SYS
#define ST_WORKERS	3	/* worker processes alive at a time */
#define ST_CHURNERS	2	/* register/unregister threads per worker */
#define ST_MAX_WRITERS	65536	/* writer ids of checked records */
/* u64 slots: 1..23 churn threads and fork children, 24..31 short threads, 32..47 the worker */
#define ST_SLOT_CHURN	24
#define ST_SLOT_SHORT	8
#define ST_NS_EVENTS	3	/* events of a namespace churn child */
#define ST_RECORDS	150000	/* default cap of checked records */
#define ST_REC_BYTES	64	/* ring buffer bytes per checked record, max */
#define ST_PERF_MAX	6	/* perf events a tracer thread holds */

/* sizeof(struct trace_entry), from the format: base of __data_loc offsets */
static int st_entry;
static int st_ncpus;

enum st_fmt { FMT_U32, FMT_U64_ARR, FMT_U64_REL, FMT_DL, FMT_CHK };

/* Fields; a payload: index, value, a location (LOC_REL/LOC_DATA) of @tail or @tail itself */
enum { LOC_NONE, LOC_REL, LOC_DATA };
static const struct {
	const char *text, *tail;
	int vsize, loc;
} st_fmt[] = {
	[FMT_U32] = { "u32 a", NULL, 4, LOC_NONE },
	[FMT_U64_ARR] = { "u64 a; char[8] b", "stress!", 8, LOC_NONE },
	[FMT_U64_REL] = { "u64 a; __rel_loc char[] s", "hello", 8, LOC_REL },
	[FMT_DL] = { "u32 a; __data_loc char[] s", "world", 4, LOC_DATA },
	[FMT_CHK] = { CHK_FIELDS },
};

/* Events of the run: formats, flags, whether also registered PERSIST and written */
static const struct st_pool {
	const char *name;
	int fmt[2], nfmt;
	__u16 flags;
	bool persist, write;
} st_pool[] = {
	{ "uet_st_p0", { FMT_U32, FMT_U64_ARR }, 2, 0, true, true },
	{ "uet_st_p1", { FMT_U32, FMT_U64_REL }, 2, 0, true, true },
	{ "uet_st_p2", { FMT_U64_ARR }, 1, 0, false, true },
	{ "uet_st_p3", { FMT_DL, FMT_U32 }, 2, 0, false, true },
	{ "uet_st_m0", { FMT_U32, FMT_U64_REL }, 2, USER_EVENT_REG_MULTI_FORMAT, false, true },
	{ "uet_st_m1", { FMT_DL, FMT_U64_ARR }, 2, USER_EVENT_REG_MULTI_FORMAT, true, true },
	{ "uet_st_d0", { FMT_DL }, 1, 0, false, true },	/* d*: dynamic_events too */
	{ "uet_st_d1", { FMT_DL }, 1, 0, false, true },
	{ "uet_st_d2", { FMT_DL }, 1, 0, false, true },
	{ CHK_NAME, { FMT_CHK }, 1, 0, false, false },
};

#define ST_NPOOL	((int)ARRAY_SIZE(st_pool))
#define ST_DYN_FIRST	6
#define ST_NDYN		3
#define ST_CHK		(ST_NPOOL - 1)

enum st_op {
	OP_REG, OP_REG_INUSE, OP_UNREG, OP_WRITE, OP_WRITE_OFF, OP_CHK, OP_CLOSE, OP_PROC,
	OP_FORK, OP_EXEC, OP_VFORK, OP_THREAD, OP_EXIT_BUSY, OP_EXIT_CLEAN, OP_ENABLE,
	OP_PERF_OPEN, OP_PERF_CLOSE, OP_DYN_CREATE, OP_DYN_DELETE, OP_DEL, OP_READ, OP_NS_CHILD,
	OP_NS_TRACE, OP_NR
};

static const char * const st_op_name[OP_NR] = {
	"reg", "reg_inuse", "unreg", "write", "write_disabled", "checked_write", "close_reopen",
	"worker_procs", "fork_children", "exec_children", "vfork_exec", "threads", "exit_busy",
	"exit_clean", "enable_toggle", "perf_open", "perf_close", "dyn_create", "dyn_delete",
	"iocsdel", "tracefs_read", "ns_children", "ns_traced",
};

/* Shared by every process of a run (MAP_SHARED) */
static struct st_shared {
	int stop;
	unsigned int nfail;
	__u64 ops, max_ops, chk_reserved, max_records;
	__u32 next_wid;
	__u64 count[OP_NR];
	char fail[8][256];
	__u32 wcount[ST_MAX_WRITERS];	/* records written per wid */
} *st_sh;

/* The worker process this is (or was forked from): enable words, the checked event */
static struct {
	char *page;
	int chk_fd;
	__u32 chk_idx;
	int short_left;		/* registrations short threads leave behind */
} st_w;

static __u64 st_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((__u64)gettid() << 32 ^ ts.tv_nsec ^ (__u64)ts.tv_sec << 20) | 1;
}

static bool st_stopped(void)
{
	return __atomic_load_n(&st_sh->stop, __ATOMIC_ACQUIRE);
}

static void st_stop(void)
{
	__atomic_store_n(&st_sh->stop, 1, __ATOMIC_RELEASE);
}

static void st_count(enum st_op op)
{
	__atomic_fetch_add(&st_sh->count[op], 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&st_sh->ops, 1, __ATOMIC_RELAXED) + 1 >= st_sh->max_ops)
		st_stop();
}

static __printf(1, 2) void st_fail(const char *fmt, ...)
{
	unsigned int n = __atomic_fetch_add(&st_sh->nfail, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (n >= ARRAY_SIZE(st_sh->fail))
		return;
	va_start(ap, fmt);
	vsnprintf(st_sh->fail[n], sizeof(st_sh->fail[n]), fmt, ap);
	va_end(ap);
}

/* Count @op (unless OP_NR), which returned @ret: true if >= 0, fails on -errno not in @allowed */
static bool st_check(int op, const char *what, long ret, const int *allowed)
{
	int i;

	if (op < OP_NR)
		st_count(op);
	if (ret >= 0)
		return true;
	for (i = 0; allowed[i]; i++)
		if (ret == -allowed[i])
			return false;
	st_fail("%s: unexpected error %ld (%s)", what, ret, strerror((int)-ret));
	return false;
}

#define ST_OK(op, what, ret, ...) \
	st_check(op, what, ret, (const int[]){ __VA_ARGS__, 0 })

/* The val of checked record @seq of @wid */
static __u64 st_chk_val(__u32 wid, __u32 seq)
{
	__u64 x = ((__u64)wid << 32 | seq) * 0x9e3779b97f4a7c15ull;

	return x ^ x >> 29;
}

/* The msg of checked record @seq of @wid, into @buf (24 bytes); its length */
static int st_chk_msg(char *buf, __u32 wid, __u32 seq)
{
	return snprintf(buf, 24, "w%us%u", wid, seq);
}

/*
 * Checked record @seq of @wid: [index][wid][seq][val][msg loc]"w<wid>s<seq>", never refused.
 * False once the ring buffer has no room for more (or on failure).
 */
static bool st_chk_write(__u32 wid, __u32 seq)
{
	__u32 rec[12] = { st_w.chk_idx, wid, seq };
	__u64 val = st_chk_val(wid, seq);
	int mlen = st_chk_msg((char *)&rec[6], wid, seq) + 1;
	ssize_t len = 4 + CHK_FIXED + mlen, ret;

	if (__atomic_fetch_add(&st_sh->chk_reserved, 1, __ATOMIC_RELAXED) >= st_sh->max_records)
		return false;
	memcpy(&rec[3], &val, 8);
	rec[5] = DYN_LOC(st_entry + CHK_FIXED, mlen);
	ret = write(st_w.chk_fd, rec, len);
	if (ret != len) {
		st_fail("checked write wid %u seq %u: %zd (%s)", wid, seq, ret,
			ret < 0 ? strerror(errno) : "short");
		return false;
	}
	__atomic_store_n(&st_sh->wcount[wid], seq + 1, __ATOMIC_RELEASE);
	st_count(OP_CHK);
	return true;
}

struct st_live {
	char *addr;
	int size, bit, pool, fmt;
	__u32 idx;
	bool has_idx;
};

/* Register a random pool event at a random u32/u64 word and bit of slots [first, first + n) */
static int st_reg(int fd, __u64 *rs, int first, int n, struct st_live *l, bool persist_ok)
{
	int p = ue_rand_n(rs, ST_NPOOL), ret;
	__u16 flags = st_pool[p].flags;
	char cmd[160];

	l->addr = st_w.page + 8 * (first + ue_rand_n(rs, n));
	l->size = ue_rand_n(rs, 2) ? 8 : 4;
	if (l->size == 4)
		l->addr += 4 * ue_rand_n(rs, 2);
	l->bit = ue_rand_n(rs, 8 * l->size);
	l->pool = p;
	l->fmt = st_pool[p].fmt[ue_rand_n(rs, st_pool[p].nfmt)];
	if (persist_ok && st_pool[p].persist && !ue_rand_n(rs, 8))
		flags |= USER_EVENT_REG_PERSIST;
	snprintf(cmd, sizeof(cmd), "%s %s", st_pool[p].name, st_fmt[l->fmt].text);
	ret = ue_reg(fd, cmd, l->addr, l->size, l->bit, flags, &l->idx);
	ST_OK(ret == -EADDRINUSE ? OP_REG_INUSE : OP_REG, "register", ret, EADDRINUSE);
	l->has_idx = !ret;
	return ret;
}

/* Only this thread registered @l: its unregistration must succeed */
static void st_unreg(int fd, struct st_live *l)
{
	ST_OK(OP_UNREG, "unregister own registration", ue_unreg(fd, l->addr, l->bit), 0);
}

/* Write registration @l (if its event is written) with value @v: EBADF when disabled */
static void st_write(int fd, struct st_live *l, __u32 v, const char *what)
{
	const char *tail = st_fmt[l->fmt].tail;
	size_t n = 4, tlen = tail ? strlen(tail) + 1 : 0;
	__u64 v64 = v;
	char buf[64];
	ssize_t ret;
	__u32 loc;

	if (!st_pool[l->pool].write)
		return;
	memcpy(buf, &l->idx, 4);
	if (st_fmt[l->fmt].vsize == 8)
		memcpy(buf + n, &v64, 8);
	else
		memcpy(buf + n, &v, 4);
	n += st_fmt[l->fmt].vsize;
	if (st_fmt[l->fmt].loc) {
		/* __rel_loc: from the end of the word; __data_loc: from the record start */
		loc = DYN_LOC(st_fmt[l->fmt].loc == LOC_DATA ? st_entry + n : 0, tlen);
		memcpy(buf + n, &loc, 4);
		n += 4;
	}
	if (tail)
		memcpy(buf + n, tail, tlen);
	n += tlen;
	ret = write(fd, buf, n);
	if (ret < 0)
		ret = -errno;
	if (ST_OK(ret == -EBADF ? OP_WRITE_OFF : OP_WRITE, what, ret, EBADF) && ret != (ssize_t)n)
		st_fail("%s: %zd of %zu bytes", what, ret, n);
}

/* (Un)register on words shared with the other churner, write, close and reopen */
static void *st_churn(void *arg)
{
	struct st_live live[8], *l;	/* registrations it holds */
	int nlive = 0, fd = ue_open_data(), i;
	__u64 rs = st_seed();
	unsigned int r;

	while (fd >= 0 && !st_stopped()) {
		r = ue_rand_n(&rs, 100);
		if (r >= 96) {
			/* the registrations stay: they belong to the process */
			close(fd);
			fd = ue_open_data();
			for (i = 0; i < nlive; i++)
				live[i].has_idx = false;
			st_count(OP_CLOSE);
		} else if (nlive && (r >= 20 || nlive == ARRAY_SIZE(live))) {
			l = &live[ue_rand_n(&rs, nlive)];
			if (r < 35 || nlive == ARRAY_SIZE(live)) {
				st_unreg(fd, l);
				*l = live[--nlive];
			} else if (l->has_idx) {
				st_write(fd, l, ue_rand(&rs), "churn write");
			}
		} else if (!st_reg(fd, &rs, 1, ST_SLOT_CHURN - 1, &live[nlive], true)) {
			nlive++;
		}
	}
	if (fd < 0) {
		st_fail("churn: open user_events_data: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < nlive; i++)
		st_unreg(fd, &live[i]);
	close(fd);
	return NULL;
}

/* Register at slots [first, first + n), write @v, unregister (@leave: sometimes not) */
static void st_reg_write(int fd, __u64 *rs, int first, int n, __u32 v, bool leave)
{
	struct st_live l;

	if (st_reg(fd, rs, first, n, &l, false))
		return;
	st_write(fd, &l, v, leave ? "short thread write" : "worker write");
	/* sometimes left for the process exit to clean up */
	if (leave && st_w.short_left < 4 && !ue_rand_n(rs, 8))
		st_w.short_left++;
	else
		st_unreg(fd, &l);
}

/* A short-lived thread: register, write, mostly unregister, exit */
static void *st_short(void *arg)
{
	int fd = ue_open_data();
	__u64 rs = st_seed();

	if (fd < 0)
		st_fail("short thread: open: %s", strerror(errno));
	else
		st_reg_write(fd, &rs, ST_SLOT_CHURN, ST_SLOT_SHORT, 7, true);
	close(fd);
	return NULL;
}

/* 0 if child @pid exited with 0 */
static int st_wait_child(pid_t pid, const char *what)
{
	int status = 0;
	pid_t got = waitpid(pid, &status, 0);

	if (got != pid || status)
		st_fail("%s: waitpid %d, status 0x%x", what, got < 0 ? -errno : got, status);
	return got != pid || status;
}

/* Forked: checked records (writer), then a registration left to exit (sometimes) or exec */
static void st_child(__u64 rs, bool exec)
{
	__u32 wid, seq, n = 1 + ue_rand_n(&rs, 32);
	struct st_live l;
	int fd;

	if (!exec) {
		wid = __atomic_fetch_add(&st_sh->next_wid, 1, __ATOMIC_RELAXED);
		for (seq = 0; wid < ST_MAX_WRITERS && seq < n; seq++)
			if (!st_chk_write(wid, seq))
				break;
	}
	fd = exec || ue_rand_n(&rs, 2) ? ue_open_data() : -1;
	if (fd >= 0)
		st_reg(fd, &rs, 1, ST_SLOT_CHURN - 1, &l, false);
	if (!exec)
		_exit(0);
}

/* Forks (writers, exec), vfork+exec and short-lived threads */
static void *st_forker(void *arg)
{
	static const char * const what[] = { "fork writer", "fork+exec /bin/true", "vfork+exec" };
	static const enum st_op op[] = { OP_FORK, OP_EXEC, OP_VFORK };
	__u64 rs = st_seed(), child_rs;
	unsigned int kind;
	pthread_t th;
	pid_t pid;

	while (!st_stopped()) {
		child_rs = ue_rand(&rs) | 1;
		kind = ue_rand_n(&rs, 4);
		if (kind == 3) {
			if (pthread_create(&th, NULL, st_short, NULL)) {
				st_fail("pthread_create failed");
				break;
			}
			st_count(OP_THREAD);
			pthread_join(th, NULL);
			continue;
		}
		/* vfork(): CLONE_VM | CLONE_VFORK, a child that execs at once */
		pid = kind == 2 ? vfork() : fork();
		if (!pid && kind < 2)
			st_child(child_rs, kind == 1);
		if (!pid) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid < 0) {
			st_fail("%s: %s", what[kind], strerror(errno));
			break;
		}
		st_count(op[kind]);
		st_wait_child(pid, what[kind]);
	}
	return NULL;
}

/* A worker: writes the checked event; exits with busy threads after a quota, or at the stop */
static void st_worker_main(void)
{
	pthread_t th[ST_CHURNERS + 1];
	__u64 rs = st_seed();
	unsigned int quota = 50 + ue_rand_n(&rs, 450), done = 0;
	__u32 wid = __atomic_fetch_add(&st_sh->next_wid, 1, __ATOMIC_RELAXED), seq = 0;
	bool checked = wid < ST_MAX_WRITERS;
	int nth, ret;

	st_w.page = ue_map_page(PROT_READ | PROT_WRITE);
	st_w.chk_fd = ue_open_data();
	if (!st_w.page || st_w.chk_fd < 0) {
		st_fail("worker setup: %s", strerror(errno));
		_exit(1);
	}
	ret = ue_reg(st_w.chk_fd, CHK_NAME " " CHK_FIELDS, st_w.page, 8, 0, 0, &st_w.chk_idx);
	if (!ST_OK(OP_REG, "register checked event", ret, 0))
		_exit(1);

	for (nth = 0; nth < ST_CHURNERS + 1; nth++) {
		if (pthread_create(&th[nth], NULL, nth < ST_CHURNERS ? st_churn : st_forker,
				   NULL)) {
			st_fail("worker: pthread_create failed");
			break;
		}
		st_count(OP_THREAD);
	}

	while (!st_stopped() && done++ < quota) {
		if (checked && !ue_rand_n(&rs, 3)) {
			checked = st_chk_write(wid, seq++);
			continue;
		}
		st_reg_write(st_w.chk_fd, &rs, ST_SLOT_CHURN + ST_SLOT_SHORT, 16, seq, false);
	}

	if (!st_stopped()) {
		/* exit_group() with the other threads in the middle of things */
		st_count(OP_EXIT_BUSY);
		_exit(0);
	}
	while (nth)
		pthread_join(th[--nth], NULL);
	st_unreg(st_w.chk_fd, &(struct st_live){ .addr = st_w.page });
	close(st_w.chk_fd);
	st_count(OP_EXIT_CLEAN);
	_exit(0);
}

/* Keeps ST_WORKERS workers alive; a subreaper, it also reaps what outlives its worker */
static void st_spawner(void)
{
	pid_t workers[ST_WORKERS] = { 0 }, pid;
	int status, i;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	do {
		for (i = 0; i < ST_WORKERS && !st_stopped(); i++) {
			if (workers[i])
				continue;
			workers[i] = fork();
			if (!workers[i])
				st_worker_main();
			if (workers[i] > 0) {
				st_count(OP_PROC);
				continue;
			}
			st_fail("fork worker: %s", strerror(errno));
			st_stop();
		}
		pid = waitpid(-1, &status, 0);
		if (pid > 0 && status)
			st_fail("process %d ended with status 0x%x", pid, status);
		for (i = 0; pid > 0 && i < ST_WORKERS; i++)
			if (workers[i] == pid)
				workers[i] = 0;
	} while (pid > 0 || errno == EINTR);	/* ECHILD: everything reaped */
	_exit(0);
}

/* The multi-format versions of the run: each disabled (@rs NULL), or one picked to @name */
static int st_multi(__u64 *rs, char *name)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(ue_tpath(path, sizeof(path), "events/%s", UE_SYS_MULTI));

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, ST_PREFIX, strlen(ST_PREFIX)))
			continue;
		if (!rs)
			ue_set_enable(UE_SYS_MULTI, de->d_name, false);
		else if (!ue_rand_n(rs, ++n))
			snprintf(name, UE_NAME_MAX, "%s", de->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/* Every event of the run disabled: the pool names and the multi-format versions */
static void st_disable_all(void)
{
	int i;

	for (i = 0; i < ST_NPOOL; i++)
		ue_set_enable(UE_SYS, st_pool[i].name, false);
	st_multi(NULL, NULL);
}

/* A random event of the run, pool name or multi-format version; false: none */
static bool st_event(__u64 *rs, const char **sys, char *name)
{
	bool multi = !ue_rand_n(rs, 5);

	*sys = multi ? UE_SYS_MULTI : UE_SYS;
	if (multi)
		return st_multi(rs, name);
	snprintf(name, UE_NAME_MAX, "%s", st_pool[ue_rand_n(rs, ST_NPOOL)].name);
	return true;
}

/* A CPU-wide perf event on @sys/@name (@op: counted as), or -1: gone */
static int st_perf_open(__u64 *rs, const char *sys, const char *name, int op)
{
	int id = ue_event_id(sys, name), fd;

	if (!ST_OK(OP_NR, "read id", id, ENOENT, ENODEV) || id <= 0)
		return -1;
	/* CPU-wide: it sees the writes of every process */
	fd = ue_perf_open_cpu(id, ue_rand_n(rs, st_ncpus), false);
	/* the event (id) may be gone */
	ST_OK(op, "perf_event_open", fd < 0 ? -errno : fd, EINVAL, ENOENT);
	return fd;
}

/*
 * Delete pool event @p, which may be in use: DIAG_IOCSDEL or "-:NAME"; the
 * dynamic_events ones also "-:SYSTEM/NAME", "!u:NAME FIELDS".
 */
static void st_delete(__u64 *rs, int p)
{
	bool dyn = p >= ST_DYN_FIRST && p < ST_DYN_FIRST + ST_NDYN;
	const char *name = st_pool[p].name;
	int how = ue_rand_n(rs, dyn ? 4 : 2), ret;
	char cmd[256];

	if (how == 3)
		snprintf(cmd, sizeof(cmd), "!u:%s %s", name, st_fmt[FMT_DL].text);
	else
		snprintf(cmd, sizeof(cmd), "-:%s%s", how == 2 ? UE_SYS "/" : "", name);
	if (how)
		ret = ue_dyn_cmd(cmd);
	else
		ret = ue_del_name(name);
	if (p == ST_CHK) {
		/* registered and traced all along: always busy */
		st_count(OP_DEL);
		if (ret != -EBUSY)
			st_fail("deleting the checked event: %d", ret);
	} else if (how) {
		ST_OK(OP_DYN_DELETE, "dynamic_events delete", ret, ENOENT, EBUSY);
	} else {
		ST_OK(OP_DEL, "DIAG_IOCSDEL", ret, ENOENT, EBUSY);
	}
}

/* Create one of the dynamic_events events (same fields as every registration), or delete it */
static void st_dyn(__u64 *rs)
{
	int p = ST_DYN_FIRST + ue_rand_n(rs, ST_NDYN);

	if (ue_rand_n(rs, 3))
		st_delete(rs, p);
	else	/* never refused */
		ST_OK(OP_DYN_CREATE, "dynamic_events create",
		      ue_dyn_add(st_pool[p].name, st_fmt[FMT_DL].text), 0);
}

/* Toggle the enable file of an event of the run; it may be gone, or go while we write */
static void st_toggle(__u64 *rs)
{
	bool on = ue_rand_n(rs, 2);
	char name[UE_NAME_MAX];
	const char *sys;

	if (!st_event(rs, &sys, name))
		return;
	ST_OK(OP_ENABLE, "toggle enable", ue_set_enable(sys, name, on), ENOENT, ENODEV);
}

struct st_perf_fds {
	int fd[ST_PERF_MAX], n;
};

/* Close one of the perf events of @p, or open one on an event of the run */
static void st_perf(__u64 *rs, struct st_perf_fds *p)
{
	bool close_one = ue_rand_n(rs, 2);
	char name[UE_NAME_MAX];
	const char *sys;
	int i;

	if (p->n == ST_PERF_MAX || (p->n && close_one)) {
		i = ue_rand_n(rs, p->n);
		close(p->fd[i]);
		p->fd[i] = p->fd[--p->n];
		st_count(OP_PERF_CLOSE);
		return;
	}
	if (!st_event(rs, &sys, name))
		return;
	p->fd[p->n] = st_perf_open(rs, sys, name, OP_PERF_OPEN);
	if (p->fd[p->n] >= 0)
		p->n++;
}

/* Read a tracefs file, or the format of an event of the run (which may be gone) */
static void st_read(__u64 *rs)
{
	static const char * const files[] = { "trace", "user_events_status", "dynamic_events" };
	unsigned int f = ue_rand_n(rs, ARRAY_SIZE(files) + 1);
	char path[PATH_MAX], name[UE_NAME_MAX], *text = NULL;
	const char *sys;

	if (f < ARRAY_SIZE(files)) {
		text = ue_read_all(ue_tpath(path, sizeof(path), "%s", files[f]));
		ST_OK(OP_READ, files[f], text ? 0 : -errno, 0);
	} else if (st_event(rs, &sys, name)) {
		text = ue_format_read(sys, name);
		ST_OK(OP_READ, "read format", text ? 0 : -errno, ENOENT, ENODEV);
	}
	free(text);
}

enum { TR_TOGGLE, TR_PERF, TR_DYN, TR_DEL, TR_READ, TR_NS, ST_TRACERS };

/* A thread of the test process in role @arg (TR_NS: st_ns_churn()) */
static void *st_tracer(void *arg)
{
	struct st_perf_fds perf = { .n = 0 };
	__u64 rs = st_seed();
	int role = (long)arg;

	while (!st_stopped()) {
		switch (role) {
		case TR_TOGGLE:
			st_toggle(&rs);
			break;
		case TR_PERF:
			st_perf(&rs, &perf);
			break;
		case TR_DYN:
			st_dyn(&rs);
			break;
		case TR_DEL:
			st_delete(&rs, ue_rand_n(&rs, ST_NPOOL));
			break;
		case TR_READ:
			st_read(&rs);
			break;
		}
	}
	while (perf.n)
		close(perf.fd[--perf.n]);
	return NULL;
}

/*
 * In a user namespace of its own: register pool names, send the namespace's inode number,
 * maybe wait for the host's word (1: it traces us), write, exit: 0 or the failed step.
 */
static void st_ns_child(int sock, bool wait_host)
{
	__u32 words[ST_NS_EVENTS] = { 0 }, idx[ST_NS_EVENTS], v;
	char cmd[UE_NAME_MAX], go = 0;
	ssize_t ret;
	__s64 msg;
	int fd, i;

	if (unshare(CLONE_NEWUSER)) {
		msg = -errno;
		send(sock, &msg, sizeof(msg), MSG_NOSIGNAL);
		_exit(0);
	}
	fd = ue_open_data();
	if (fd < 0)
		_exit(2);
	for (i = 0; i < ST_NS_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "%s u32 nsv", st_pool[i].name);
		if (ue_reg(fd, cmd, &words[i], 4, 0, 0, &idx[i]))
			_exit(3);
	}
	msg = ue_userns_inum();
	if (send(sock, &msg, sizeof(msg), MSG_NOSIGNAL) != sizeof(msg))
		_exit(4);
	if (wait_host && ue_recv(sock, &go, 1, UE_WAIT_SECS))
		_exit(5);
	for (i = 0; i < ST_NS_EVENTS; i++) {
		if (go && !ue_wait_bit(&words[i], 4, 0, true))
			_exit(6);
		for (v = 0; v < 4; v++) {
			ret = ue_emit(fd, idx[i], &v, sizeof(v));
			/* untraced: EBADF, as in normal operation */
			if (ret < 0 && (ret != -EBADF || go))
				_exit(7);
		}
	}
	_exit(0);
}

/* Trace the events of namespace system @sys: its enable file, or perf; the child may be gone */
static bool st_ns_trace(__u64 *rs, const char *sys, int *perf, int *nperf)
{
	int i;

	if (ue_rand_n(rs, 2))
		return ST_OK(OP_NR, "enable namespace system", ue_set_enable(sys, NULL, true),
			     ENOENT, ENODEV, EINVAL);
	for (i = 0; i < ST_NS_EVENTS; i++) {
		perf[*nperf] = st_perf_open(rs, sys, st_pool[i].name, OP_NR);
		*nperf += perf[*nperf] >= 0;
	}
	return *nperf == ST_NS_EVENTS;
}

/* Children in user namespaces of their own, traced from the host */
static void *st_ns_churn(void *arg)
{
	char *groups = ue_read_all(UE_NS_SYSCTL_GROUPS), go, sys[64];
	bool on = groups && atoi(groups) == 1, wait_host;
	int sv[2], perf[ST_NS_EVENTS], nperf, ret;
	__u64 rs = st_seed();
	__s64 inum;
	pid_t pid;

	free(groups);
	if (!on) {
		ksft_print_msg("stress: no user_events namespace groups\n");
		return NULL;
	}
	while (!st_stopped()) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			st_fail("socketpair: %s", strerror(errno));
			break;
		}
		wait_host = ue_rand_n(&rs, 4);
		pid = fork();
		if (!pid) {
			close(sv[0]);
			st_ns_child(sv[1], wait_host);
		}
		close(sv[1]);
		if (pid < 0) {
			st_fail("fork (namespace): %s", strerror(errno));
			close(sv[0]);
			break;
		}
		st_count(OP_NS_CHILD);
		if (ue_recv(sv[0], &inum, sizeof(inum), UE_WAIT_SECS))
			inum = 0;	/* the child's status says why */
		nperf = 0;
		go = 0;
		if (inum > 0) {
			ue_ns_system(sys, sizeof(sys), inum, false);
			go = st_ns_trace(&rs, sys, perf, &nperf);
			st_count(OP_NS_TRACE);
		}
		send(sv[0], &go, 1, MSG_NOSIGNAL);
		ret = st_wait_child(pid, "namespace child");
		close(sv[0]);
		/* detach; the events go after the child */
		while (nperf)
			close(perf[--nperf]);
		if (inum > 0) {
			ST_OK(OP_NR, "disable namespace system", ue_set_enable(sys, NULL, false),
			      ENOENT, ENODEV, EINVAL);
		} else if (!ret && (inum == -EPERM || inum == -EINVAL)) {
			ksft_print_msg("stress: no user namespaces: %s\n", strerror((int)-inum));
			break;
		} else if (inum < 0) {
			ST_OK(OP_NR, "unshare(CLONE_NEWUSER)", inum, EPERM);
		}
	}
	return NULL;
}

/* Value of " name=" in a trace line (decimal, 0x hex, "0x.. (..)") */
static bool st_field(const char *line, const char *name, __u64 *val)
{
	const char *p = strstr(line, name);
	char *end;

	if (!p)
		return false;
	*val = strtoull(p + strlen(name), &end, 0);
	return end != p + strlen(name);
}

/* The instance trace: each checked (wid, seq) written exactly once, intact */
static void st_verify_trace(struct __test_metadata *_metadata)
{
	__u32 w, nwid = st_sh->next_wid < ST_MAX_WRITERS ? st_sh->next_wid : ST_MAX_WRITERS;
	__u64 *base = calloc(nwid + 1, sizeof(*base));
	__u64 wid, seq, val, in_buf = 0, written = 0, expected, records = 0;
	__u64 bad = 0, dup = 0, missing = 0, stray = 0;
	char path[PATH_MAX], msg[32], want[32], *line = NULL, *p, *m;
	unsigned char *seen;
	size_t cap = 0;
	FILE *f;

	for (w = 0; base && w < nwid; w++)
		base[w + 1] = base[w] + st_sh->wcount[w];
	expected = base ? base[nwid] : 0;
	seen = calloc(expected + 1, 1);
	f = fopen(ue_tpath(path, sizeof(path), "instances/%s/trace", ST_INST), "r");
	if (!base || !seen || !f) {
		st_fail("cannot read %s", path);
		bad++;
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		p = strstr(line, "entries-in-buffer/entries-written:");
		if (p) {
			if (sscanf(p, "entries-in-buffer/entries-written: %llu/%llu",
				   &in_buf, &written) != 2)
				st_fail("cannot parse: %s", p);
			continue;
		}
		p = strstr(line, CHK_NAME ":");
		if (!p)
			continue;
		records++;
		m = strstr(p, " msg=");
		if (!m || !st_field(p, " wid=", &wid) || !st_field(p, " seq=", &seq) ||
		    !st_field(p, " val=", &val) || sscanf(m + 5, "%31s", msg) != 1) {
			bad++;
			st_fail("unparsable record: %s", line);
			continue;
		}
		st_chk_msg(want, wid, seq);
		if (wid >= nwid || seq >= st_sh->wcount[wid]) {
			stray++;
			st_fail("record never written: %s", line);
		} else if (st_chk_val(wid, seq) != val || strcmp(msg, want)) {
			bad++;
			st_fail("corrupt record (want val=0x%llx msg=%s): %s",
				st_chk_val(wid, seq), want, line);
		} else if (seen[base[wid] + seq]) {
			dup++;
			st_fail("duplicate record: %s", line);
		} else {
			seen[base[wid] + seq] = 1;
		}
	}
	for (w = 0; w < nwid; w++) {
		for (seq = 0; seq < st_sh->wcount[w]; seq++) {
			if (seen[base[w] + seq])
				continue;
			if (!missing)
				st_fail("record wid %u seq %llu missing (%llu/%llu)",
					w, seq, in_buf, written);
			missing++;
		}
	}
	if (in_buf != written)
		st_fail("ring buffer overwrote records: %llu/%llu", in_buf, written);
out:
	if (f)
		fclose(f);
	free(line);
	free(seen);
	free(base);
	ksft_print_msg("stress: %llu/%llu traced; missing %llu dup %llu bad %llu stray %llu\n",
		       records, expected, missing, dup, bad, stray);
	EXPECT_EQ(expected, records);
	EXPECT_EQ(0, missing + dup + bad + stray);
	EXPECT_NE(0, expected);
}

static void st_buffer_size(const char *which, long kb)
{
	char path[PATH_MAX], val[32];

	snprintf(val, sizeof(val), "%ld", kb);
	ue_write_str(ue_tpath(path, sizeof(path), "%sbuffer_size_kb", which), val, 0);
}

FIXTURE(stress) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(stress)
{
	UE_SETUP(UE_ROOT);
}

FIXTURE_TEARDOWN(stress)
{
	UE_TEARDOWN();
}

TEST_F_TIMEOUT(stress, processes_threads_tracers, 1800)
{
	double secs = ue_env("UE_STRESS_SECONDS", 20, 1, 600);
	__u64 max_ops = ue_env("UE_STRESS_OPS", 5000000, 1000, LONG_MAX);
	__u64 max_records = ue_env("UE_STRESS_RECORDS", ST_RECORDS, 1000, 1000000);
	char path[PATH_MAX], left[128], line[1024], *old_top;
	int i, n, nth, active0, busy0, active, busy, ret;
	pthread_t th[ST_TRACERS];
	struct timespec start;
	pid_t spawner;

	ksft_print_msg("stress: %.0f s, ops <= %llu, records <= %llu, %d workers x %d threads\n",
		       secs, max_ops, max_records, ST_WORKERS, ST_CHURNERS + 2);

	/* what an interrupted earlier run may have left behind */
	rmdir(ue_tpath(path, sizeof(path), "instances/" ST_INST));
	st_disable_all();
	ue_leftovers(ST_PREFIX, true, left, sizeof(left));
	ASSERT_EQ(0, ue_leftovers(ST_PREFIX, false, left, sizeof(left))) TH_LOG("%s", left);
	ASSERT_TRUE(ue_status_counts(&active0, &busy0));

	st_sh = mmap(NULL, sizeof(*st_sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_TRUE(st_sh != MAP_FAILED);
	st_sh->max_ops = max_ops;
	st_sh->max_records = max_records;

	/* The checked event, traced in a private instance all along */
	ASSERT_EQ(0, mkdir(ue_tpath(path, sizeof(path), "instances/" ST_INST), 0755))
		TH_LOG("mkdir %s: %s", path, strerror(errno));
	st_buffer_size("instances/" ST_INST "/", max_records * ST_REC_BYTES / 1024 + 1024);
	ASSERT_EQ(0, ue_dyn_add(CHK_NAME, CHK_FIELDS));
	st_entry = ue_entry_size(UE_SYS, CHK_NAME);
	ASSERT_LT(0, st_entry);
	ASSERT_EQ(0, ue_set_enable(ST_INST_SYS, CHK_NAME, true));
	/* keep reading the main trace cheap */
	old_top = ue_read_all(ue_tpath(path, sizeof(path), "buffer_size_kb"));
	st_buffer_size("", 256);
	ue_tracing_on();

	st_ncpus = get_nprocs();
	clock_gettime(CLOCK_MONOTONIC, &start);
	spawner = fork();
	ASSERT_LE(0, spawner);
	if (!spawner)
		st_spawner();

	for (nth = 0; nth < ST_TRACERS; nth++) {
		if (pthread_create(&th[nth], NULL, nth == TR_NS ? st_ns_churn : st_tracer,
				   (void *)(long)nth)) {
			st_fail("pthread_create (tracers) failed");
			st_stop();
			break;
		}
	}
	/* The duration bound; the operation bound stops the run by itself */
	while (!st_stopped() && ue_elapsed(&start) < secs)
		usleep(50 * 1000);
	st_stop();
	while (nth)
		pthread_join(th[--nth], NULL);
	if (waitpid(spawner, &ret, 0) != spawner || ret)
		st_fail("spawner status 0x%x", ret);

	/* Detach what the tracer threads may have left enabled */
	st_disable_all();
	/* processes: worker_procs + the *_children and vfork_exec */
	for (i = 0, n = 0; i < OP_NR; i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%llu", st_op_name[i],
			      st_sh->count[i]);
	ksft_print_msg("stress: %.1f s, %llu operations:%s\n", ue_elapsed(&start), st_sh->ops,
		       line);
	ksft_print_msg("stress: %d tracer threads, %u checked writers\n", ST_TRACERS,
		       st_sh->next_wid);
	st_verify_trace(_metadata);
	for (i = 0; i < (int)st_sh->nfail && i < (int)ARRAY_SIZE(st_sh->fail); i++)
		ksft_print_msg("stress failure: %s\n", st_sh->fail[i]);
	EXPECT_EQ(0, st_sh->nfail);

	/* Clean up: everything is unused now, deletes cannot be refused */
	EXPECT_EQ(0, ue_set_enable(ST_INST_SYS, CHK_NAME, false));
	EXPECT_EQ(0, ue_del_name(CHK_NAME));
	for (i = 0; i < ST_NPOOL - 1; i++) {
		ret = ue_del_name(st_pool[i].name);
		EXPECT_TRUE(!ret || ret == -ENOENT) TH_LOG("delete %s: %d", st_pool[i].name, ret);
	}
	EXPECT_EQ(0, rmdir(ue_tpath(path, sizeof(path), "instances/" ST_INST)))
		TH_LOG("%s", strerror(errno));
	if (old_top)
		st_buffer_size("", atol(old_top));
	free(old_top);

	EXPECT_EQ(0, ue_leftovers(ST_PREFIX, false, left, sizeof(left))) TH_LOG("%s", left);
	EXPECT_TRUE(ue_wait_ns_systems_gone(left, sizeof(left))) TH_LOG("%s", left);
	EXPECT_TRUE(ue_status_counts(&active, &busy));
	EXPECT_EQ(active0, active);
	EXPECT_EQ(busy0, busy);
	munmap(st_sh, sizeof(*st_sh));
}

TEST_HARNESS_MAIN
