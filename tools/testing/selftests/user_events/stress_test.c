// SPDX-License-Identifier: GPL-2.0
/*
 * user_events stress: several processes, each with several threads,
 * register and unregister events on shared and private enable words,
 * write events, fork writers, exec /bin/true, start short-lived threads,
 * close their files and exit (cleanly or with threads still busy), while
 * threads of the test process toggle tracefs enable files, attach and
 * detach perf events, create and delete events through dynamic_events and
 * DIAG_IOCSDEL and read the trace, status and format files.  One more
 * thread churns user namespaces: its children unshare(CLONE_NEWUSER),
 * register pool names (with a format of their own) in their namespace's
 * group, write and exit, while it traces them from the host (the
 * group's system enable file or perf).
 *
 * The run is bounded by UE_STRESS_SECONDS (default 20) and UE_STRESS_OPS
 * operations (default 5000000), whichever ends first.
 *
 * Invariants, checked without any timing assumption:
 *  - every operation returns success or one of the errors its situation
 *    allows (e.g. EADDRINUSE for a word another thread registered);
 *  - a checked event stays enabled for the whole run in a private trace
 *    instance whose ring buffer holds every record written (the number of
 *    checked records is capped accordingly); each record carries (writer
 *    id, sequence number, checksum, string).  After the run, every writer's
 *    records must be in the trace exactly once, with intact fields, and
 *    nothing else;
 *  - afterwards user_events_status shows the Active/Busy counts of before
 *    and no event of the test is left in tracefs or dynamic_events, nor
 *    any system of a namespace's group.
 *
 * Leaks are the debug kernel's kmemleak scan's business (the workbench
 * runs it after all tests): no machine-wide side effect here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ue_util.h"

#define ST_INST		"uet_stress"
#define ST_PREFIX	"uet_st_"
#define CHK_NAME	"uet_st_chk"
#define CHK_FIELDS	"u32 wid; u32 seq; u64 val; __data_loc char[] msg"
/* Fixed part of the checked payload: wid, seq, val, msg location */
#define CHK_FIXED	20

#define ST_WORKERS	3	/* worker processes alive at a time */
#define ST_CHURNERS	2	/* register/unregister threads per worker */
#define ST_MAX_WRITERS	65536	/* writer ids of checked records */
#define ST_MAX_FAILS	8
#define ST_LIVE_MAX	8	/* registrations one churn thread holds */
#define ST_PERF_MAX	6
#define ST_SLOTS	64	/* u64 enable words in a worker's page */
#define ST_SLOT_CHURN	24	/* slots 1..23: churn threads, fork children */
#define ST_SLOT_SHORT	8	/* slots 24..31: short-lived threads */
#define ST_RECORDS	150000	/* default cap of checked records */
#define ST_REC_BYTES	64	/* ring buffer bytes per checked record, max */
#define ST_NS_EVENTS	3	/* events of a namespace churn child */
#define ST_NS_FIELDS	"u32 nsv"

/* sizeof(struct trace_entry), from the format: base of __data_loc offsets */
static int st_entry;

enum st_fmt { FMT_U32, FMT_U64_ARR, FMT_U64_REL, FMT_DL, FMT_CHK };

static const char * const st_fmt_text[] = {
	[FMT_U32] = "u32 a",
	[FMT_U64_ARR] = "u64 a; char[8] b",
	[FMT_U64_REL] = "u64 a; __rel_loc char[] s",
	[FMT_DL] = "u32 a; __data_loc char[] s",
	[FMT_CHK] = CHK_FIELDS,
};

struct st_pool {
	const char *name;
	int fmt[2];
	int nfmt;
	__u16 flags;
	bool persist;	/* may also be registered USER_EVENT_REG_PERSIST */
	bool write;	/* churn threads write it */
};

/* Events of the run; "d" events are also created via dynamic_events. */
static const struct st_pool st_pool[] = {
	{ "uet_st_p0", { FMT_U32, FMT_U64_ARR }, 2, 0, true, true },
	{ "uet_st_p1", { FMT_U32, FMT_U64_REL }, 2, 0, true, true },
	{ "uet_st_p2", { FMT_U64_ARR }, 1, 0, false, true },
	{ "uet_st_p3", { FMT_DL, FMT_U32 }, 2, 0, false, true },
	{ "uet_st_m0", { FMT_U32, FMT_U64_REL }, 2,
	  USER_EVENT_REG_MULTI_FORMAT, false, true },
	{ "uet_st_m1", { FMT_DL, FMT_U64_ARR }, 2,
	  USER_EVENT_REG_MULTI_FORMAT, true, true },
	{ "uet_st_d0", { FMT_DL }, 1, 0, false, true },
	{ "uet_st_d1", { FMT_DL }, 1, 0, false, true },
	{ "uet_st_d2", { FMT_DL }, 1, 0, false, true },
	{ CHK_NAME, { FMT_CHK }, 1, 0, false, false },
};

#define ST_NPOOL	((int)ARRAY_SIZE(st_pool))
#define ST_DYN_FIRST	6
#define ST_NDYN		3
#define ST_CHK		(ST_NPOOL - 1)

enum st_op {
	OP_REG, OP_REG_INUSE, OP_UNREG, OP_WRITE, OP_WRITE_OFF, OP_CHK,
	OP_CLOSE, OP_PROC, OP_FORK, OP_EXEC, OP_VFORK, OP_THREAD,
	OP_EXIT_BUSY, OP_EXIT_CLEAN, OP_ENABLE, OP_PERF_OPEN, OP_PERF_CLOSE,
	OP_DYN_CREATE, OP_DYN_DELETE, OP_DEL, OP_READ, OP_NS_CHILD,
	OP_NS_TRACE, OP_NR
};

static const char * const st_op_name[] = {
	[OP_REG] = "reg", [OP_REG_INUSE] = "reg_inuse", [OP_UNREG] = "unreg",
	[OP_WRITE] = "write", [OP_WRITE_OFF] = "write_disabled",
	[OP_CHK] = "checked_write", [OP_CLOSE] = "close_reopen",
	[OP_PROC] = "worker_procs", [OP_FORK] = "fork_children",
	[OP_EXEC] = "exec_children", [OP_VFORK] = "vfork_exec",
	[OP_THREAD] = "threads", [OP_EXIT_BUSY] = "exit_busy",
	[OP_EXIT_CLEAN] = "exit_clean", [OP_ENABLE] = "enable_toggle",
	[OP_PERF_OPEN] = "perf_open", [OP_PERF_CLOSE] = "perf_close",
	[OP_DYN_CREATE] = "dyn_create", [OP_DYN_DELETE] = "dyn_delete",
	[OP_DEL] = "iocsdel", [OP_READ] = "tracefs_read",
	[OP_NS_CHILD] = "ns_children", [OP_NS_TRACE] = "ns_traced",
};

/* Shared by every process of a run (MAP_SHARED) */
struct st_shared {
	int stop;
	unsigned int nfail;
	__u64 ops;
	__u64 max_ops;
	__u64 chk_reserved;
	__u64 max_records;
	__u32 next_wid;
	__u64 count[OP_NR];
	char fail[ST_MAX_FAILS][256];
	__u32 wcount[ST_MAX_WRITERS];	/* records written per wid */
};

/* ---------------------------------------------------------------------
 * Small helpers, safe to use in a child forked from a threaded process
 */

static __u64 st_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((__u64)gettid() << 32 ^ ts.tv_nsec ^ (__u64)ts.tv_sec << 20) |
	       1;
}

static bool st_stopped(struct st_shared *sh)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE);
}

static void st_stop(struct st_shared *sh)
{
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
}

static void st_count(struct st_shared *sh, enum st_op op)
{
	__atomic_fetch_add(&sh->count[op], 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&sh->ops, 1, __ATOMIC_RELAXED) + 1 >= sh->max_ops)
		st_stop(sh);
}

static __printf(2, 3) void st_fail(struct st_shared *sh, const char *fmt, ...)
{
	unsigned int n = __atomic_fetch_add(&sh->nfail, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (n >= ST_MAX_FAILS)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->fail[n], sizeof(sh->fail[n]), fmt, ap);
	va_end(ap);
}

/*
 * @ret is 0/positive or -errno; @allowed lists the errnos this operation
 * may legitimately see, 0-terminated.  Anything else is a failure.
 * Returns true on success.
 */
static bool st_check(struct st_shared *sh, const char *what, long ret,
		     const int *allowed)
{
	int i;

	if (ret >= 0)
		return true;
	for (i = 0; allowed[i]; i++)
		if (ret == -allowed[i])
			return false;
	st_fail(sh, "%s: unexpected error %ld (%s)", what, ret,
		strerror((int)-ret));
	return false;
}

#define ST_OK(sh, what, ret, ...) \
	st_check(sh, what, ret, (const int[]){ __VA_ARGS__, 0 })

static int st_utoa(char *dst, __u32 v)
{
	char tmp[10];
	int n = 0, i;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
	return n;
}

static __u64 st_chk_val(__u32 wid, __u32 seq)
{
	__u64 x = ((__u64)wid << 32 | seq) * 0x9e3779b97f4a7c15ull;

	return x ^ x >> 29;
}

/* "w<wid>s<seq>"; returns its length without the NUL */
static int st_chk_msg(char *dst, __u32 wid, __u32 seq)
{
	int n = 0;

	dst[n++] = 'w';
	n += st_utoa(dst + n, wid);
	dst[n++] = 's';
	n += st_utoa(dst + n, seq);
	dst[n] = '\0';
	return n;
}

/* Take one of the checked records the ring buffer has room for. */
static bool st_reserve(struct st_shared *sh)
{
	return __atomic_fetch_add(&sh->chk_reserved, 1, __ATOMIC_RELAXED) <
	       sh->max_records;
}

/* Write checked record @seq of @wid; it must always be accepted. */
static bool st_chk_write(struct st_shared *sh, int fd, __u32 idx,
			 __u32 wid, __u32 seq)
{
	__u64 val = st_chk_val(wid, seq);
	char rec[64];
	ssize_t len, ret;
	__u32 loc;
	int mlen;

	/* [index][wid][seq][val][msg location] "w<wid>s<seq>" */
	mlen = st_chk_msg(rec + 4 + CHK_FIXED, wid, seq) + 1;
	loc = DYN_LOC(st_entry + CHK_FIXED, mlen);
	memcpy(rec, &idx, 4);
	memcpy(rec + 4, &wid, 4);
	memcpy(rec + 8, &seq, 4);
	memcpy(rec + 12, &val, 8);
	memcpy(rec + 20, &loc, 4);
	len = 4 + CHK_FIXED + mlen;

	ret = write(fd, rec, len);
	if (ret != len) {
		st_fail(sh, "checked write wid %u seq %u: %zd (%s)", wid, seq,
			ret, ret < 0 ? strerror(errno) : "short");
		return false;
	}
	__atomic_store_n(&sh->wcount[wid], seq + 1, __ATOMIC_RELEASE);
	st_count(sh, OP_CHK);
	return true;
}

static __u32 st_new_wid(struct st_shared *sh)
{
	return __atomic_fetch_add(&sh->next_wid, 1, __ATOMIC_RELAXED);
}

/* "name fields" of pool event @p in format @f */
static void st_cmd(char *buf, size_t len, int p, int f)
{
	snprintf(buf, len, "%s %s", st_pool[p].name,
		 st_fmt_text[st_pool[p].fmt[f]]);
}

/* Index + a valid payload for format @fmt; returns the write length. */
static size_t st_payload(char *buf, __u32 idx, int fmt, __u32 v)
{
	__u64 a = v;
	__u32 loc;

	memcpy(buf, &idx, sizeof(idx));
	buf += sizeof(idx);
	switch (fmt) {
	case FMT_U32:
		memcpy(buf, &v, 4);
		return 4 + 4;
	case FMT_U64_ARR:
		memcpy(buf, &a, 8);
		memcpy(buf + 8, "stress!", 8);
		return 4 + 16;
	case FMT_U64_REL:
		memcpy(buf, &a, 8);
		loc = DYN_LOC(0, 6);	/* right after the word */
		memcpy(buf + 8, &loc, 4);
		memcpy(buf + 12, "hello", 6);
		return 4 + 18;
	case FMT_DL:
		memcpy(buf, &v, 4);
		loc = DYN_LOC(st_entry + 8, 6);
		memcpy(buf + 4, &loc, 4);
		memcpy(buf + 8, "world", 6);
		return 4 + 14;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Worker processes
 */

struct st_worker {
	struct st_shared *sh;
	char *page;		/* ST_SLOTS u64 enable words */
	int chk_fd;
	__u32 chk_idx;
	int quit;
	int short_left;		/* registrations short threads leave behind */
};

static bool st_quit(struct st_worker *w)
{
	return __atomic_load_n(&w->quit, __ATOMIC_ACQUIRE) ||
	       st_stopped(w->sh);
}

/* A random (address, size, bit) in slots [first, first + n) */
static char *st_word(struct st_worker *w, __u64 *rs, int first, int n,
		     int *size, int *bit)
{
	char *addr = w->page + 8 * (first + ue_rand_n(rs, n));

	*size = ue_rand_n(rs, 2) ? 8 : 4;
	if (*size == 4)
		addr += 4 * ue_rand_n(rs, 2);
	*bit = ue_rand_n(rs, 8 * *size);
	return addr;
}

/* Register a random pool event (format, flags) at @addr. */
static int st_reg_pool(struct st_shared *sh, int fd, __u64 *rs, char *addr,
		       int size, int bit, int *pool, int *fmt, __u32 *idx,
		       bool persist_ok)
{
	int p = ue_rand_n(rs, ST_NPOOL);
	int f = ue_rand_n(rs, st_pool[p].nfmt);
	__u16 flags = st_pool[p].flags;
	char cmd[160];
	int ret;

	if (persist_ok && st_pool[p].persist && !ue_rand_n(rs, 8))
		flags |= USER_EVENT_REG_PERSIST;
	st_cmd(cmd, sizeof(cmd), p, f);
	ret = ue_reg(fd, cmd, addr, size, bit, flags, idx);
	st_count(sh, ret == -EADDRINUSE ? OP_REG_INUSE : OP_REG);
	ST_OK(sh, "register", ret, EADDRINUSE);
	*pool = p;
	*fmt = f;
	return ret;
}

struct st_live {
	char *addr;
	int size, bit, pool, fmt;
	__u32 idx;
	bool has_idx;
};

static void st_unreg(struct st_shared *sh, int fd, struct st_live *l)
{
	int ret = ue_unreg(fd, l->addr, l->bit);

	st_count(sh, OP_UNREG);
	/* Only this thread registered it: must succeed */
	ST_OK(sh, "unregister own registration", ret, 0);
}

/*
 * Churn thread: register / unregister on words shared with the other churn
 * thread of the process, write the events, close and reopen the file.
 */
static void *st_churn(void *arg)
{
	struct st_worker *w = arg;
	struct st_shared *sh = w->sh;
	struct st_live live[ST_LIVE_MAX];
	__u64 rs = st_seed();
	int nlive = 0, fd, i, ret;
	char buf[64];
	size_t len;

	fd = ue_open_data();
	if (fd < 0) {
		st_fail(sh, "churn: open user_events_data: %s", strerror(errno));
		return NULL;
	}

	while (!st_quit(w)) {
		unsigned int r = ue_rand_n(&rs, 100);
		struct st_live *l;

		if (r >= 96) {
			/* registrations stay: they belong to the process */
			close(fd);
			fd = ue_open_data();
			if (fd < 0) {
				st_fail(sh, "churn: reopen: %s", strerror(errno));
				break;
			}
			for (i = 0; i < nlive; i++)
				live[i].has_idx = false;
			st_count(sh, OP_CLOSE);
			continue;
		}
		if (nlive && (r >= 20 || nlive == ST_LIVE_MAX)) {
			l = &live[ue_rand_n(&rs, nlive)];
			if (r < 35 || nlive == ST_LIVE_MAX) {
				st_unreg(sh, fd, l);
				*l = live[--nlive];
				continue;
			}
			if (!l->has_idx || !st_pool[l->pool].write)
				continue;
			len = st_payload(buf, l->idx,
					 st_pool[l->pool].fmt[l->fmt],
					 ue_rand(&rs));
			ret = write(fd, buf, len);
			if (ret < 0)
				ret = -errno;
			st_count(sh, ret == -EBADF ? OP_WRITE_OFF : OP_WRITE);
			if (ST_OK(sh, "churn write", ret, EBADF) &&
			    ret != (int)len)
				st_fail(sh, "churn write: %d of %zu bytes", ret,
					len);
			continue;
		}
		l = &live[nlive];
		l->addr = st_word(w, &rs, 1, ST_SLOT_CHURN - 1, &l->size,
				  &l->bit);
		if (!st_reg_pool(sh, fd, &rs, l->addr, l->size, l->bit,
				 &l->pool, &l->fmt, &l->idx, true)) {
			l->has_idx = true;
			nlive++;
		}
	}

	for (i = 0; i < nlive; i++)
		st_unreg(sh, fd, &live[i]);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Short-lived thread: register, write, mostly unregister, exit. */
static void *st_short(void *arg)
{
	struct st_worker *w = arg;
	struct st_shared *sh = w->sh;
	__u64 rs = st_seed();
	struct st_live l;
	int fd = ue_open_data(), ret;
	char buf[64];
	size_t len;

	if (fd < 0) {
		st_fail(sh, "short thread: open: %s", strerror(errno));
		return NULL;
	}
	l.addr = st_word(w, &rs, ST_SLOT_CHURN, ST_SLOT_SHORT, &l.size, &l.bit);
	if (!st_reg_pool(sh, fd, &rs, l.addr, l.size, l.bit, &l.pool, &l.fmt,
			 &l.idx, false)) {
		if (st_pool[l.pool].write) {
			len = st_payload(buf, l.idx,
					 st_pool[l.pool].fmt[l.fmt], 7);
			ret = write(fd, buf, len);
			if (ret < 0)
				ret = -errno;
			st_count(sh, ret == -EBADF ? OP_WRITE_OFF : OP_WRITE);
			ST_OK(sh, "short thread write", ret, EBADF);
		}
		/* Sometimes left registered: the process exit cleans up */
		if (w->short_left < 4 && !ue_rand_n(&rs, 8))
			w->short_left++;
		else
			st_unreg(sh, fd, &l);
	}
	close(fd);
	return NULL;
}

static int st_wait_child(struct st_shared *sh, pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		st_fail(sh, "%s: waitpid: %s", what, strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		st_fail(sh, "%s: child status 0x%x", what, status);
		return -1;
	}
	return 0;
}

/* Forked child: checked records through the inherited file, then exit. */
static void st_child_writer(struct st_worker *w, __u64 rs)
{
	struct st_shared *sh = w->sh;
	__u32 wid = st_new_wid(sh), seq, n = 1 + ue_rand_n(&rs, 32);
	int fd, size, bit, p, f;
	char *addr;
	__u32 idx;

	for (seq = 0; wid < ST_MAX_WRITERS && seq < n; seq++) {
		if (!st_reserve(sh) ||
		    !st_chk_write(sh, w->chk_fd, w->chk_idx, wid, seq))
			break;
	}
	if (ue_rand_n(&rs, 2)) {
		/* left for the exit of this process to tear down */
		fd = ue_open_data();
		addr = st_word(w, &rs, 1, ST_SLOT_CHURN - 1, &size, &bit);
		if (fd >= 0)
			st_reg_pool(sh, fd, &rs, addr, size, bit, &p, &f, &idx,
				    false);
	}
	_exit(0);
}

static char *const st_true_argv[] = { "true", NULL };
static char *const st_true_envp[] = { NULL };

/* Forked child: register something, then exec (which tears it down). */
static void st_child_exec(struct st_worker *w, __u64 rs)
{
	int fd = ue_open_data(), size, bit, p, f;
	char *addr = st_word(w, &rs, 1, ST_SLOT_CHURN - 1, &size, &bit);
	__u32 idx;

	if (fd >= 0)
		st_reg_pool(w->sh, fd, &rs, addr, size, bit, &p, &f, &idx,
			    false);
	execve("/bin/true", st_true_argv, st_true_envp);
	_exit(127);
}

/* vfork() (CLONE_VM | CLONE_VFORK) a child that execs at once. */
static pid_t st_vfork_exec(void)
{
	pid_t pid = vfork();

	if (!pid) {
		execve("/bin/true", st_true_argv, st_true_envp);
		_exit(127);
	}
	return pid;
}

/* Forks, execs and short-lived threads. */
static void *st_forker(void *arg)
{
	struct st_worker *w = arg;
	struct st_shared *sh = w->sh;
	__u64 rs = st_seed();
	pthread_t th;
	pid_t pid;

	while (!st_quit(w)) {
		__u64 child_rs = ue_rand(&rs) | 1;

		switch (ue_rand_n(&rs, 4)) {
		case 0:
			pid = fork();
			if (!pid)
				st_child_writer(w, child_rs);
			if (pid < 0) {
				st_fail(sh, "fork: %s", strerror(errno));
				return NULL;
			}
			st_count(sh, OP_FORK);
			st_wait_child(sh, pid, "fork writer");
			break;
		case 1:
			pid = fork();
			if (!pid)
				st_child_exec(w, child_rs);
			if (pid < 0) {
				st_fail(sh, "fork: %s", strerror(errno));
				return NULL;
			}
			st_count(sh, OP_EXEC);
			st_wait_child(sh, pid, "fork+exec /bin/true");
			break;
		case 2:
			pid = st_vfork_exec();
			if (pid < 0) {
				st_fail(sh, "vfork: %s", strerror(errno));
				return NULL;
			}
			st_count(sh, OP_VFORK);
			st_wait_child(sh, pid, "vfork+exec /bin/true");
			break;
		default:
			if (pthread_create(&th, NULL, st_short, w)) {
				st_fail(sh, "pthread_create failed");
				return NULL;
			}
			st_count(sh, OP_THREAD);
			pthread_join(th, NULL);
			break;
		}
	}
	return NULL;
}

/*
 * A worker process.  Its main thread writes the checked event; after a
 * random quota it exits at once, other threads still busy, unless the
 * run is stopping, in which case it joins them and cleans up.
 */
static void st_worker_main(struct st_shared *sh)
{
	pthread_t th[ST_CHURNERS + 1];
	struct st_worker w = { .sh = sh };
	__u64 rs = st_seed();
	unsigned int quota = 50 + ue_rand_n(&rs, 450), done = 0;
	__u32 wid = st_new_wid(sh), seq = 0;
	int nth = 0, i, ret, size, bit, p, f;
	bool checked = wid < ST_MAX_WRITERS;
	char *addr, buf[64];
	size_t len;
	__u32 idx;

	w.page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w.chk_fd = ue_open_data();
	if (w.page == MAP_FAILED || w.chk_fd < 0) {
		st_fail(sh, "worker setup: %s", strerror(errno));
		_exit(1);
	}
	ret = ue_reg(w.chk_fd, CHK_NAME " " CHK_FIELDS, w.page, 8, 0, 0,
		     &w.chk_idx);
	st_count(sh, OP_REG);
	if (!ST_OK(sh, "register checked event", ret, 0))
		_exit(1);

	for (i = 0; i < ST_CHURNERS + 1; i++) {
		if (pthread_create(&th[i], NULL,
				   i < ST_CHURNERS ? st_churn : st_forker, &w)) {
			st_fail(sh, "worker: pthread_create failed");
			break;
		}
		st_count(sh, OP_THREAD);
		nth++;
	}

	while (!st_stopped(sh) && done++ < quota) {
		if (checked && ue_rand_n(&rs, 3) == 0 && st_reserve(sh)) {
			if (!st_chk_write(sh, w.chk_fd, w.chk_idx, wid, seq++))
				break;
			continue;
		}
		/* a private word: register, write when traced, unregister */
		addr = st_word(&w, &rs, 32, 16, &size, &bit);
		if (st_reg_pool(sh, w.chk_fd, &rs, addr, size, bit, &p, &f,
				&idx, false))
			continue;
		if (st_pool[p].write) {
			len = st_payload(buf, idx, st_pool[p].fmt[f], seq);
			ret = write(w.chk_fd, buf, len);
			if (ret < 0)
				ret = -errno;
			st_count(sh, ret == -EBADF ? OP_WRITE_OFF : OP_WRITE);
			ST_OK(sh, "worker write", ret, EBADF);
		}
		ret = ue_unreg(w.chk_fd, addr, bit);
		st_count(sh, OP_UNREG);
		ST_OK(sh, "worker unregister", ret, 0);
	}

	if (!st_stopped(sh)) {
		/* exit_group() with the other threads in the middle of things */
		st_count(sh, OP_EXIT_BUSY);
		_exit(0);
	}

	__atomic_store_n(&w.quit, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	ret = ue_unreg(w.chk_fd, w.page, 0);
	st_count(sh, OP_UNREG);
	ST_OK(sh, "unregister checked event", ret, 0);
	close(w.chk_fd);
	st_count(sh, OP_EXIT_CLEAN);
	_exit(0);
}

/*
 * Keeps ST_WORKERS workers alive until the run stops.  As a child
 * subreaper it also collects the children that outlive their worker, so
 * when it returns no process of the run is left.
 */
static void st_spawner(struct st_shared *sh)
{
	pid_t workers[ST_WORKERS] = { 0 };
	int live = 0, status, i;
	pid_t pid;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (;;) {
		while (!st_stopped(sh) && live < ST_WORKERS) {
			pid = fork();
			if (pid < 0) {
				st_fail(sh, "fork worker: %s", strerror(errno));
				st_stop(sh);
				break;
			}
			if (!pid)
				st_worker_main(sh);
			for (i = 0; workers[i]; i++)
				;
			workers[i] = pid;
			live++;
			st_count(sh, OP_PROC);
		}
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;		/* ECHILD: everything reaped */
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			st_fail(sh, "process %d ended with status 0x%x", pid,
				status);
		for (i = 0; i < ST_WORKERS; i++) {
			if (workers[i] == pid) {
				workers[i] = 0;
				live--;
			}
		}
	}
	_exit(0);
}

/* ---------------------------------------------------------------------
 * Threads of the test process: tracers, deleters, readers
 */

struct st_ctl {
	struct st_shared *sh;
	int ncpus;
};

/* Path of a random event's file @what ("enable", "id", ...); false: none */
static bool st_event_file(__u64 *rs, const char *what, char *path,
			  size_t len)
{
	char dir[PATH_MAX], names[16][UE_NAME_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (ue_rand_n(rs, 5)) {
		ue_tpath(path, len, "events/%s/%s/%s", UE_SYS,
			 st_pool[ue_rand_n(rs, ST_NPOOL)].name, what);
		return true;
	}
	d = opendir(ue_tpath(dir, sizeof(dir), "events/%s", UE_SYS_MULTI));
	if (!d)
		return false;
	while ((de = readdir(d)) && n < 16) {
		if (!strncmp(de->d_name, ST_PREFIX, strlen(ST_PREFIX)))
			snprintf(names[n++], UE_NAME_MAX, "%s", de->d_name);
	}
	closedir(d);
	if (!n)
		return false;
	ue_tpath(path, len, "events/%s/%s/%s", UE_SYS_MULTI,
		 names[ue_rand_n(rs, n)], what);
	return true;
}

/* A number from a tracefs file; 0 or -errno */
static int st_read_int(const char *path, int *val)
{
	char buf[32];
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, buf, sizeof(buf) - 1);
	if (got < 0)
		got = -errno;
	close(fd);
	if (got < 0)
		return got;
	buf[got] = '\0';
	*val = atoi(buf);
	return 0;
}

/* Read a whole file, discarding it; bytes read or -errno. */
static long st_read_file(const char *path)
{
	static __thread char buf[16384];
	long total = 0;
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		total += got;
	if (got < 0)
		total = -errno;
	close(fd);
	return total;
}

static void *st_toggler(void *arg)
{
	struct st_ctl *c = arg;
	__u64 rs = st_seed();
	char path[PATH_MAX];
	int ret;

	while (!st_stopped(c->sh)) {
		if (!st_event_file(&rs, "enable", path, sizeof(path)))
			continue;
		ret = ue_write_str(path, ue_rand_n(&rs, 2) ? "1" : "0", 0);
		st_count(c->sh, OP_ENABLE);
		/* the event may be gone, or go while we write */
		ST_OK(c->sh, "toggle enable", ret, ENOENT, ENODEV);
	}
	return NULL;
}

static void *st_perf(void *arg)
{
	struct st_ctl *c = arg;
	int fds[ST_PERF_MAX], n = 0, id = 0, fd, i;
	__u64 rs = st_seed();
	char path[PATH_MAX];
	long ret;

	while (!st_stopped(c->sh)) {
		if (n && (n == ST_PERF_MAX || ue_rand_n(&rs, 2))) {
			i = ue_rand_n(&rs, n);
			close(fds[i]);
			fds[i] = fds[--n];
			st_count(c->sh, OP_PERF_CLOSE);
			continue;
		}
		if (!st_event_file(&rs, "id", path, sizeof(path)))
			continue;
		ret = st_read_int(path, &id);
		if (!ST_OK(c->sh, "read id", ret, ENOENT, ENODEV))
			continue;
		if (id <= 0)
			continue;
		/* CPU-wide: it sees the writes of every process */
		fd = ue_perf_open_cpu(id, ue_rand_n(&rs, c->ncpus), false);
		st_count(c->sh, OP_PERF_OPEN);
		/* the event (id) may be gone */
		if (ST_OK(c->sh, "perf_event_open", fd < 0 ? -errno : fd,
			  EINVAL, ENOENT))
			fds[n++] = fd;
	}
	while (n)
		close(fds[--n]);
	return NULL;
}

/*
 * Delete pool event @p, which may be in use: DIAG_IOCSDEL or "-:NAME";
 * the dynamic_events ones also as "-:SYSTEM/NAME" and "!u:NAME FIELDS".
 */
static void st_delete(struct st_ctl *c, __u64 *rs, int p)
{
	const char *name = st_pool[p].name;
	bool dyn = p >= ST_DYN_FIRST && p < ST_DYN_FIRST + ST_NDYN;
	int how = ue_rand_n(rs, dyn ? 4 : 2), ret;
	char cmd[256];

	if (!how) {
		ret = ue_del_name(name);
		st_count(c->sh, OP_DEL);
		ST_OK(c->sh, "DIAG_IOCSDEL", ret, ENOENT, EBUSY);
		return;
	}
	if (how == 1)
		snprintf(cmd, sizeof(cmd), "-:%s", name);
	else if (how == 2)
		snprintf(cmd, sizeof(cmd), "-:%s/%s", UE_SYS, name);
	else
		snprintf(cmd, sizeof(cmd), "!u:%s %s", name,
			 st_fmt_text[FMT_DL]);
	ret = ue_dyn_cmd(cmd);
	st_count(c->sh, OP_DYN_DELETE);
	ST_OK(c->sh, "dynamic_events delete", ret, ENOENT, EBUSY);
}

/* dynamic_events create and delete */
static void *st_dyn(void *arg)
{
	struct st_ctl *c = arg;
	__u64 rs = st_seed();
	char cmd[256];
	int d, ret;

	while (!st_stopped(c->sh)) {
		d = ST_DYN_FIRST + ue_rand_n(&rs, ST_NDYN);
		if (ue_rand_n(&rs, 3)) {
			st_delete(c, &rs, d);
			continue;
		}
		/* same fields as every registration: never refused */
		snprintf(cmd, sizeof(cmd), "u:%s %s", st_pool[d].name,
			 st_fmt_text[FMT_DL]);
		ret = ue_dyn_cmd(cmd);
		st_count(c->sh, OP_DYN_CREATE);
		ST_OK(c->sh, "dynamic_events create", ret, 0);
	}
	return NULL;
}

static void *st_deleter(void *arg)
{
	struct st_ctl *c = arg;
	__u64 rs = st_seed();
	int p, ret;

	while (!st_stopped(c->sh)) {
		p = ue_rand_n(&rs, ST_NPOOL);
		if (p != ST_CHK) {
			st_delete(c, &rs, p);
			continue;
		}
		/* registered and traced all along: always busy */
		ret = ue_rand_n(&rs, 2) ? ue_del_name(CHK_NAME) :
		      ue_dyn_cmd("-:" CHK_NAME);
		st_count(c->sh, OP_DEL);
		if (ret != -EBUSY)
			st_fail(c->sh, "deleting the checked event: %d", ret);
	}
	return NULL;
}

static void *st_reader(void *arg)
{
	static const char * const files[] = {
		"trace", "user_events_status", "dynamic_events",
	};
	struct st_ctl *c = arg;
	__u64 rs = st_seed();
	char path[PATH_MAX];
	long ret;
	int i;

	while (!st_stopped(c->sh)) {
		i = ue_rand_n(&rs, 4);
		if (i < 3) {
			ret = st_read_file(ue_tpath(path, sizeof(path), "%s",
						    files[i]));
			st_count(c->sh, OP_READ);
			ST_OK(c->sh, files[i], ret, 0);
			continue;
		}
		if (!st_event_file(&rs, "format", path, sizeof(path)))
			continue;
		ret = st_read_file(path);
		st_count(c->sh, OP_READ);
		ST_OK(c->sh, "read format", ret, ENOENT, ENODEV);
	}
	return NULL;
}

/* A write of a namespace churn child: untraced, EBADF is normal */
static int st_ns_write(int fd, __u32 idx, __u32 v, bool traced)
{
	ssize_t ret = ue_emit(fd, idx, &v, sizeof(v));

	return ret >= 0 || (ret == -EBADF && !traced) ? 0 : -1;
}

/*
 * Child of st_ns_churn(): in a user namespace of its own, register
 * ST_NS_EVENTS pool names, send the namespace's inode number, maybe wait
 * for the host's word (1: it traces us, so our enable bits come on),
 * write and exit.  Exit status: 0, or the step that failed.
 */
static void st_ns_child(int sock, bool wait_host)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	__u32 words[ST_NS_EVENTS] = { 0 }, idx[ST_NS_EVENTS], v;
	char cmd[UE_NAME_MAX];
	__s64 msg;
	char go = 0;
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
		snprintf(cmd, sizeof(cmd), "%s " ST_NS_FIELDS,
			 st_pool[i].name);
		if (ue_reg(fd, cmd, &words[i], 4, 0, 0, &idx[i]))
			_exit(3);
	}
	msg = ue_userns_inum();
	if (send(sock, &msg, sizeof(msg), MSG_NOSIGNAL) != sizeof(msg))
		_exit(4);
	if (wait_host && (poll(&pfd, 1, UE_WAIT_SECS * 1000) != 1 ||
			  recv(sock, &go, 1, 0) != 1))
		_exit(5);
	for (i = 0; i < ST_NS_EVENTS; i++) {
		if (go && !ue_wait_bit(&words[i], 4, 0, true))
			_exit(6);
		/* untraced: EBADF, as in normal operation */
		for (v = 0; v < 4; v++)
			if (st_ns_write(fd, idx[i], v, go))
				_exit(7);
	}
	_exit(0);
}

/* Trace namespace @inum's events: its system's enable file, or perf */
static int st_ns_trace(struct st_ctl *c, __u64 *rs, unsigned long inum,
		       int *perf, int *nperf)
{
	char sys[64], path[PATH_MAX];
	int i, id, fd, ret, traced = 0;

	ue_ns_system(sys, sizeof(sys), inum, false);
	if (ue_rand_n(rs, 2)) {
		ret = ue_write_str(ue_tpath(path, sizeof(path),
					    "events/%s/enable", sys), "1", 0);
		/* the child may be gone, and its events with it */
		ST_OK(c->sh, "enable namespace system", ret, ENOENT, ENODEV,
		      EINVAL);
		return !ret;
	}
	for (i = 0; i < ST_NS_EVENTS; i++) {
		ret = st_read_int(ue_tpath(path, sizeof(path), "events/%s/%s/id",
					   sys, st_pool[i].name), &id);
		if (!ST_OK(c->sh, "read namespace event id", ret, ENOENT,
			   ENODEV) || id <= 0)
			continue;
		fd = ue_perf_open_cpu(id, ue_rand_n(rs, c->ncpus), false);
		if (ST_OK(c->sh, "perf_event_open (namespace)",
			  fd < 0 ? -errno : fd, EINVAL, ENOENT)) {
			perf[(*nperf)++] = fd;
			traced++;
		}
	}
	return traced == ST_NS_EVENTS;
}

/* Children in user namespaces of their own, traced from the host */
static void *st_ns_churn(void *arg)
{
	struct st_ctl *c = arg;
	__u64 rs = st_seed();
	int sv[2], perf[ST_NS_EVENTS], nperf, ret;
	char path[PATH_MAX], sys[64], go;
	struct pollfd pfd;
	bool wait_host;
	__s64 inum;
	pid_t pid;

	/* a kernel without namespace groups (or with them off): nothing */
	if (st_read_int(UE_NS_SYSCTL_GROUPS, &ret) || ret != 1) {
		ksft_print_msg("stress: no user_events namespace groups\n");
		return NULL;
	}
	while (!st_stopped(c->sh)) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			st_fail(c->sh, "socketpair: %s", strerror(errno));
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
			st_fail(c->sh, "fork (namespace): %s", strerror(errno));
			close(sv[0]);
			break;
		}
		st_count(c->sh, OP_NS_CHILD);
		pfd = (struct pollfd){ .fd = sv[0], .events = POLLIN };
		inum = 0;
		if (poll(&pfd, 1, UE_WAIT_SECS * 1000) != 1 ||
		    recv(sv[0], &inum, sizeof(inum), 0) != sizeof(inum))
			inum = 0;	/* the child's status says why */
		nperf = 0;
		go = 0;
		if (inum > 0) {
			go = st_ns_trace(c, &rs, inum, perf, &nperf);
			st_count(c->sh, OP_NS_TRACE);
		}
		send(sv[0], &go, 1, MSG_NOSIGNAL);
		ret = st_wait_child(c->sh, pid, "namespace child");
		close(sv[0]);
		/* detach; the events go after the child */
		while (nperf)
			close(perf[--nperf]);
		if (inum > 0) {
			ue_ns_system(sys, sizeof(sys), inum, false);
			ret = ue_write_str(ue_tpath(path, sizeof(path),
						    "events/%s/enable", sys),
					   "0", 0);
			ST_OK(c->sh, "disable namespace system", ret, ENOENT,
			      ENODEV, EINVAL);
		} else if (!ret && (inum == -EPERM || inum == -EINVAL)) {
			ksft_print_msg("stress: no user namespaces: %s\n",
				       strerror((int)-inum));
			break;
		} else if (inum < 0) {
			ST_OK(c->sh, "unshare(CLONE_NEWUSER)", inum, EPERM);
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------------
 * Checks after the run
 */

/* Value of " name=" in a trace line (decimal, 0x hex, "0x.. (..)") */
static bool st_field(const char *line, const char *name, __u64 *val)
{
	char key[32];
	const char *p;
	char *end;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	if (!p)
		return false;
	p += strlen(key);
	*val = strtoull(p, &end, 0);
	return end != p;
}

struct st_verify {
	__u64 records, expected, bad, dup, missing, stray;
	char first[256];
};

static __printf(2, 3) void st_bad(struct st_verify *v, const char *fmt, ...)
{
	va_list ap;

	if (!v->first[0]) {
		va_start(ap, fmt);
		vsnprintf(v->first, sizeof(v->first), fmt, ap);
		va_end(ap);
	}
}

/*
 * Every checked record of the instance trace: each (wid, seq) written
 * exactly once, with its checksum and string intact.
 */
static void st_verify_trace(struct st_shared *sh, struct st_verify *v)
{
	__u32 nwid = sh->next_wid < ST_MAX_WRITERS ? sh->next_wid :
			ST_MAX_WRITERS;
	__u64 *base = calloc(nwid + 1, sizeof(*base));
	__u64 wid, seq, val, in_buf = 0, written = 0;
	unsigned char *seen;
	char path[PATH_MAX], msg[32], want[32], *line = NULL, *p;
	size_t cap = 0;
	__u32 w;
	FILE *f;

	memset(v, 0, sizeof(*v));
	for (w = 0; base && w < nwid; w++)
		base[w + 1] = base[w] + sh->wcount[w];
	v->expected = base ? base[nwid] : 0;
	seen = calloc(v->expected / 8 + 1, 1);
	f = fopen(ue_tpath(path, sizeof(path), "instances/%s/trace", ST_INST),
		  "r");
	if (!base || !seen || !f) {
		st_bad(v, "cannot read %s", path);
		v->bad++;
		goto out;
	}

	while (getline(&line, &cap, f) > 0) {
		p = strstr(line, "entries-in-buffer/entries-written:");
		if (p) {
			if (sscanf(p, "entries-in-buffer/entries-written: %llu/%llu",
				   &in_buf, &written) != 2)
				st_bad(v, "cannot parse: %s", p);
			continue;
		}
		p = strstr(line, CHK_NAME ":");
		if (!p)
			continue;
		v->records++;
		msg[0] = '\0';
		if (strstr(p, " msg="))
			sscanf(strstr(p, " msg=") + 5, "%31s", msg);
		if (!st_field(p, "wid", &wid) || !st_field(p, "seq", &seq) ||
		    !st_field(p, "val", &val)) {
			v->bad++;
			st_bad(v, "unparsable record: %s", line);
			continue;
		}
		if (wid >= nwid || seq >= sh->wcount[wid]) {
			v->stray++;
			st_bad(v, "record never written: %s", line);
			continue;
		}
		st_chk_msg(want, wid, seq);
		if (val != st_chk_val(wid, seq) || strcmp(msg, want)) {
			v->bad++;
			st_bad(v, "corrupt record (want val=0x%llx msg=%s): %s",
			       st_chk_val(wid, seq), want, line);
			continue;
		}
		seq += base[wid];
		if (seen[seq / 8] & 1 << seq % 8) {
			v->dup++;
			st_bad(v, "duplicate record: %s", line);
		}
		seen[seq / 8] |= 1 << seq % 8;
	}

	for (w = 0; w < nwid; w++) {
		for (seq = 0; seq < sh->wcount[w]; seq++) {
			if (seen[(base[w] + seq) / 8] & 1 << (base[w] + seq) % 8)
				continue;
			if (!v->missing++)
				st_bad(v, "record wid %u seq %llu missing (%llu/%llu)",
				       w, seq, in_buf, written);
		}
	}
	if (in_buf != written)
		st_bad(v, "ring buffer overwrote records: %llu/%llu", in_buf,
		       written);
out:
	if (f)
		fclose(f);
	free(line);
	free(seen);
	free(base);
}

/* ---------------------------------------------------------------------
 * One run
 */

struct st_run {
	double secs;
	__u64 max_ops;
	__u64 max_records;
};

/* The threads of the test process */
static void *(*const st_tracer_fn[])(void *) = {
	st_toggler, st_perf, st_dyn, st_deleter, st_reader, st_ns_churn,
};

#define ST_TRACERS	((int)ARRAY_SIZE(st_tracer_fn))

static void st_report(struct st_shared *sh, double secs)
{
	char line[1024];
	int i, n = 0;

	for (i = 0; i < OP_NR; i++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s=%llu",
			      i ? " " : "", st_op_name[i], sh->count[i]);
	ksft_print_msg("stress: %.1f s, %llu operations: %s\n", secs, sh->ops,
		       line);
	ksft_print_msg("stress: %llu processes: %llu workers, %llu forked writers,\n",
		       sh->count[OP_PROC] + sh->count[OP_FORK] +
		       sh->count[OP_EXEC] + sh->count[OP_VFORK],
		       sh->count[OP_PROC], sh->count[OP_FORK]);
	ksft_print_msg("stress: %llu fork+exec, %llu vfork+exec children\n",
		       sh->count[OP_EXEC], sh->count[OP_VFORK]);
	ksft_print_msg("stress: %llu threads (+%d tracer threads), %u checked writers\n",
		       sh->count[OP_THREAD], ST_TRACERS, sh->next_wid);
}

static void st_buffer_size(const char *which, long kb)
{
	char path[PATH_MAX], val[32];

	snprintf(val, sizeof(val), "%ld", kb);
	ue_write_str(ue_tpath(path, sizeof(path), "%sbuffer_size_kb", which),
		     val, 0);
}

static int st_run(struct __test_metadata *_metadata, struct st_run *r)
{
	pthread_t th[ST_TRACERS];
	struct st_ctl ctl;
	struct st_shared *sh;
	struct st_verify v;
	struct timespec start;
	char path[PATH_MAX], left[128], inst[64], *old_top;
	int i, nth = 0, active0, busy0, active, busy, ret, failed = 0;
	pid_t spawner;
	double secs;

	/* what an interrupted earlier run may have left behind */
	if (ue_leftovers(ST_PREFIX, false, left, sizeof(left))) {
		rmdir(ue_tpath(path, sizeof(path), "instances/%s", ST_INST));
		for (i = 0; i < ST_NPOOL; i++) {
			ue_set_enable(UE_SYS, st_pool[i].name, false);
			ue_del_name(st_pool[i].name);
		}
	}
	ASSERT_EQ(0, ue_leftovers(ST_PREFIX, false, left, sizeof(left))) TH_LOG("%s", left);
	ASSERT_TRUE(ue_status_counts(&active0, &busy0));

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sh->max_ops = r->max_ops;
	sh->max_records = r->max_records;

	/* The checked event, traced in a private instance all along */
	snprintf(inst, sizeof(inst), "instances/%s/", ST_INST);
	rmdir(ue_tpath(path, sizeof(path), "instances/%s", ST_INST));
	ASSERT_EQ(0, mkdir(path, 0755)) TH_LOG("mkdir %s: %s", path,
					       strerror(errno));
	st_buffer_size(inst, r->max_records * ST_REC_BYTES / 1024 + 1024);
	ASSERT_EQ(0, ue_dyn_cmd("u:" CHK_NAME " " CHK_FIELDS));
	st_entry = ue_entry_size(UE_SYS, CHK_NAME);
	ASSERT_LT(0, st_entry);
	ASSERT_EQ(0, ue_write_str(ue_tpath(path, sizeof(path),
					   "%sevents/%s/%s/enable", inst,
					   UE_SYS, CHK_NAME), "1", 0));
	/* keep reading the main trace cheap */
	old_top = ue_read_all(ue_tpath(path, sizeof(path), "buffer_size_kb"));
	st_buffer_size("", 256);
	ue_tracing_on();

	clock_gettime(CLOCK_MONOTONIC, &start);
	spawner = fork();
	ASSERT_LE(0, spawner);
	if (!spawner)
		st_spawner(sh);

	ctl.sh = sh;
	ctl.ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ctl.ncpus < 1)
		ctl.ncpus = 1;
	for (i = 0; i < ST_TRACERS; i++) {
		if (pthread_create(&th[i], NULL, st_tracer_fn[i], &ctl)) {
			st_fail(sh, "pthread_create (tracers) failed");
			st_stop(sh);
			break;
		}
		nth++;
	}

	/* The duration bound; the operation bound stops the run by itself */
	while (!st_stopped(sh) && ue_elapsed(&start) < r->secs) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	st_stop(sh);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (waitpid(spawner, &ret, 0) != spawner || ret)
		st_fail(sh, "spawner status 0x%x", ret);
	secs = ue_elapsed(&start);

	/* Detach what the tracer threads may have left enabled */
	for (i = 0; i < ST_NPOOL; i++)
		ue_set_enable(UE_SYS, st_pool[i].name, false);
	{
		DIR *d = opendir(ue_tpath(path, sizeof(path), "events/%s",
					  UE_SYS_MULTI));
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, ST_PREFIX, strlen(ST_PREFIX)))
				ue_set_enable(UE_SYS_MULTI, de->d_name, false);
		if (d)
			closedir(d);
	}

	st_report(sh, secs);
	for (i = 0; i < (int)sh->nfail && i < ST_MAX_FAILS; i++)
		ksft_print_msg("stress failure: %s\n", sh->fail[i]);
	EXPECT_EQ(0, sh->nfail);
	failed |= sh->nfail != 0;

	st_verify_trace(sh, &v);
	ksft_print_msg("stress: %llu checked records written, %llu in the trace\n",
		       v.expected, v.records);
	ksft_print_msg("stress: %llu missing, %llu duplicated, %llu corrupt, %llu stray\n",
		       v.missing, v.dup, v.bad, v.stray);
	if (v.first[0])
		ksft_print_msg("stress: first bad record: %s\n", v.first);
	EXPECT_EQ(v.expected, v.records);
	EXPECT_EQ(0, v.missing + v.dup + v.bad + v.stray);
	EXPECT_NE(0, v.expected);
	failed |= v.first[0] != '\0';

	/* Clean up: everything is unused now, deletes cannot be refused */
	EXPECT_EQ(0, ue_write_str(ue_tpath(path, sizeof(path),
					   "%sevents/%s/%s/enable", inst,
					   UE_SYS, CHK_NAME), "0", 0));
	EXPECT_EQ(0, ue_del_name(CHK_NAME));
	for (i = 0; i < ST_NPOOL - 1; i++) {
		ret = ue_del_name(st_pool[i].name);
		if (ret && ret != -ENOENT) {
			EXPECT_EQ(0, ret) TH_LOG("delete %s", st_pool[i].name);
			failed = 1;
		}
	}
	EXPECT_EQ(0, rmdir(ue_tpath(path, sizeof(path), "instances/%s",
				    ST_INST))) TH_LOG("%s", strerror(errno));
	if (old_top) {
		st_buffer_size("", atol(old_top));
		free(old_top);
	}

	EXPECT_EQ(0, ue_leftovers(ST_PREFIX, false, left, sizeof(left))) TH_LOG("%s", left);
	if (!ue_wait_ns_systems_gone(left, sizeof(left))) {
		EXPECT_EQ(0, ue_ns_systems(left, sizeof(left))) TH_LOG("%s", left);
		failed = 1;
	}
	EXPECT_TRUE(ue_status_counts(&active, &busy));
	EXPECT_EQ(active0, active);
	EXPECT_EQ(busy0, busy);
	if (active != active0 || busy != busy0)
		failed = 1;

	munmap(sh, sizeof(*sh));
	return failed;
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
	struct st_run run = {
		.secs = ue_env("UE_STRESS_SECONDS", 20, 1, 600),
		.max_ops = ue_env("UE_STRESS_OPS", 5000000, 1000, LONG_MAX),
		.max_records = ue_env("UE_STRESS_RECORDS", ST_RECORDS, 1000,
				      1000000),
	};

	ksft_print_msg("stress: %.0f s, at most %llu operations, %llu checked records\n",
		       run.secs, run.max_ops, run.max_records);
	ksft_print_msg("stress: %d worker processes x %d threads\n",
		       ST_WORKERS, ST_CHURNERS + 2);
	ASSERT_EQ(0, st_run(_metadata, &run));
}

TEST_HARNESS_MAIN
