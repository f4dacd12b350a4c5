// SPDX-License-Identifier: GPL-2.0
/*
 * uebench: user_events micro-benchmarks counted in guest instructions.
 *
 * Meant for a guest run by QEMU with -icount shift=0,sleep=off: the guest
 * clock then advances one nanosecond per guest instruction, so the
 * CLOCK_MONOTONIC difference around a loop of N operations, divided by N,
 * is the number of guest instructions per operation (the loop, the libc
 * wrapper, the syscall and whatever interrupts happen to land in it).
 *
 * Every workload runs in a child process of its own, so that no
 * registration, open file or tracing state leaks into the next one.
 *
 * Output lines:
 *	L <key> <label>		a row of the table, once per workload
 *	V <key> <value>		one measurement (instructions per operation)
 *	# <text>		a comment
 *
 * Usage: uebench [-r REPS] [-s SCALE] [-o KEY]...
 *	-r: measurements per workload (default 5)
 *	-s: multiplies every loop count (default 1)
 *	-o: run only the workload groups named (write, perf, peers,
 *	    disabled, reg, toggle, toggle_many, fork, forkrace, mem,
 *	    notify, dropped; profile runs only when named)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

/* the selftests' io_uring helpers (bench.sh: -I of their directory) */
#include "ue_uring.h"

#define TRACEFS		"/sys/kernel/tracing"
#define DATA_FILE	TRACEFS "/user_events_data"
#define EV_DIR		TRACEFS "/events/user_events"

/* Per-CPU ftrace buffer: small, so that warm-up wraps it (steady state). */
#define FTRACE_BUF_KB	"128"
/* perf ring data pages: holds a whole batch of samples, never fills */
#define PERF_PAGES	256
/* 1 KiB string (1023 chars + NUL) behind a __rel_loc word */
#define STR_LEN		1024
/* other processes of the enable toggle, registrations of the fork bench */
#define MAX_OTHERS	1000

typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* a fresh load every time (the kernel changes enable words behind us) */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static int reps = 5;
static double scale = 1.0;
static const char *only[16];
static int nr_only;

static void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "uebench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	fflush(stdout);
	exit(1);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static long scaled(long n)
{
	long v = (long)(n * scale);

	return v > 0 ? v : 1;
}

/* ---------------------------------------------------------------------
 * tracefs and user_events helpers
 */

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0)
		die("open %s", path);
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write '%s' to %s", val, path);
	close(fd);
}

static void event_path(char *buf, size_t len, const char *name,
		       const char *file)
{
	snprintf(buf, len, EV_DIR "/%s/%s", name, file);
}

static void event_enable(const char *name, bool on)
{
	char path[256];

	event_path(path, sizeof(path), name, "enable");
	write_file(path, on ? "1" : "0");
}

static int event_id(const char *name)
{
	char path[256], buf[32];
	ssize_t len;
	int fd;

	event_path(path, sizeof(path), name, "id");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	len = read(fd, buf, sizeof(buf) - 1);
	if (len <= 0)
		die("read %s", path);
	close(fd);
	buf[len] = 0;
	return atoi(buf);
}

static int data_open(void)
{
	int fd = open(DATA_FILE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open " DATA_FILE);
	return fd;
}

/*
 * Register @cmd with its enable bit @bit of the u32 at @word and the
 * registration flags @flags: the write index, or -1 with errno set.
 */
static int ue_reg_flags(int fd, const char *cmd, u32 *word, int bit,
			u16 flags)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = bit,
		.enable_size = sizeof(*word),
		.flags = flags,
		.enable_addr = (uintptr_t)word,
		.name_args = (uintptr_t)cmd,
	};

	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0)
		return -1;
	return reg.write_index;
}

/* Register @cmd with its enable bit @bit of the u32 at @word. */
static int ue_reg(int fd, const char *cmd, u32 *word, int bit)
{
	int idx = ue_reg_flags(fd, cmd, word, bit, 0);

	if (idx < 0)
		die("DIAG_IOCSREG '%s'", cmd);
	return idx;
}

static void ue_unreg(int fd, u32 *word, int bit)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = bit,
		.disable_addr = (uintptr_t)word,
	};

	if (ioctl(fd, DIAG_IOCSUNREG, &unreg) < 0)
		die("DIAG_IOCSUNREG");
}

/* ---------------------------------------------------------------------
 * The measured operations: each runs @n operations
 */

struct ctx {
	int fd;
	const void *buf;
	size_t len;
	int err;			/* expected errno of op_write_err */
	struct iovec iov[2];
	u32 *word;
	u32 mask;
	struct user_reg reg;
	struct user_unreg unreg;
	struct perf_event_mmap_page *pm;
	size_t ring;
	int perf_fd;
	struct user_batch *batch;	/* op_batch: the call */
	struct ue_uring *uring;		/* op_uring: the ring */
	const struct iovec *iov_n;	/* op_uring: its records */
	int per;			/* records per operation; 0: one */
};

static void op_write(struct ctx *c, long n)
{
	while (n--)
		if (write(c->fd, c->buf, c->len) != (ssize_t)c->len)
			die("write");
}

static void op_write_err(struct ctx *c, long n)
{
	while (n--)
		if (write(c->fd, c->buf, c->len) != -1 || errno != c->err) {
			errno = 0;
			die("write did not fail with errno %d", c->err);
		}
}

static void op_writev(struct ctx *c, long n)
{
	while (n--)
		if (writev(c->fd, c->iov, 2) != (ssize_t)c->len)
			die("writev");
}

/* prctl(PR_SET_NAME): the task:task_rename tracepoint, a TRACE_EVENT() */
static void op_rename(struct ctx *c, long n)
{
	(void)c;
	while (n--)
		if (prctl(PR_SET_NAME, "uebench"))
			die("prctl");
}

/* DIAG_IOCSBATCH of c->batch, all its records written */
static void op_batch(struct ctx *c, long n)
{
	while (n--)
		if (ioctl(c->fd, DIAG_IOCSBATCH, c->batch) !=
		    (int)c->batch->count)
			die("DIAG_IOCSBATCH");
}

/* c->per records through io_uring, one IORING_OP_WRITE each, one io_uring_enter() */
static void op_uring(struct ctx *c, long n)
{
	struct io_uring_cqe cqe;
	int i;

	while (n--) {
		for (i = 0; i < c->per; i++)
			ue_uring_write(c->uring, c->fd, c->iov_n[i].iov_base,
				       c->iov_n[i].iov_len, i);
		if (ue_uring_submit(c->uring) != c->per)
			die("io_uring_enter");
		for (i = 0; i < c->per; i++)
			if (!ue_uring_reap(c->uring, &cqe) ||
			    cqe.res != (int)c->iov_n[i].iov_len) {
				errno = cqe.res < 0 ? -cqe.res : 0;
				die("io_uring write");
			}
	}
}

/* What an application does for each event site while nobody traces it */
static void op_disabled(struct ctx *c, long n)
{
	u32 *word = c->word;
	u32 mask = c->mask;

	while (n--)
		if (READ_ONCE(*word) & mask)
			op_write(c, 1);
}

/*
 * A USDT-style probe site: the function starts with a nop (USDT sites are
 * nops; x86 uprobes emulate them). Called through a pointer so that the
 * compiler cannot inline it; uprobe_define() checks the nop is there.
 */
void uebench_usdt(void)
{
	asm volatile("nop" ::: "memory");
}

void (*usdt_fn)(void) = uebench_usdt;

static void op_usdt(struct ctx *c, long n)
{
	(void)c;
	while (n--)
		usdt_fn();
}

static void op_reg_unreg(struct ctx *c, long n)
{
	while (n--) {
		if (ioctl(c->fd, DIAG_IOCSREG, &c->reg) < 0)
			die("DIAG_IOCSREG");
		if (ioctl(c->fd, DIAG_IOCSUNREG, &c->unreg) < 0)
			die("DIAG_IOCSUNREG");
	}
}

static void op_fork(struct ctx *c, long n)
{
	int status;
	pid_t pid;

	(void)c;

	while (n--) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid || status)
			die("waitpid");
	}
}

/* Throw away everything in the perf ring (we only pay for producing). */
static void perf_consume(struct ctx *c)
{
	u64 head = __atomic_load_n(&c->pm->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&c->pm->data_tail, head, __ATOMIC_RELEASE);
}

static u64 perf_used(struct ctx *c)
{
	return __atomic_load_n(&c->pm->data_head, __ATOMIC_ACQUIRE) -
	       c->pm->data_tail;
}

static void label(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("L %s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * Warm up with @warm operations, then take reps measurements of @n
 * operations each and print instructions per operation.
 */
static void measure(const char *key, void (*op)(struct ctx *, long),
		    struct ctx *c, long n, long warm)
{
	u64 t0, t1;
	int r;

	n = scaled(n);
	if (c->pm)
		perf_consume(c);
	op(c, scaled(warm));
	for (r = 0; r < reps; r++) {
		if (c->pm)
			perf_consume(c);
		t0 = now_ns();
		op(c, n);
		t1 = now_ns();
		if (c->pm && perf_used(c) >= c->ring - sysconf(_SC_PAGESIZE))
			printf("# %s: perf ring full, samples lost\n", key);
		printf("V %s %.1f\n", key,
		       (double)(t1 - t0) / n / (c->per ? c->per : 1));
	}
	fflush(stdout);
}

/* ---------------------------------------------------------------------
 * Workloads
 */

/* write index + u64 value (as two u32: no padding, 12 bytes) */
struct b8_rec {
	u32 idx;
	u32 v[2];
};

struct b1k_rec {
	u32 idx;
	u32 loc;
	char str[STR_LEN];
};

static u32 enable_words[4];

/* 1., 2. and the profile of the ftrace write */
static void wl_write(void)
{
	static struct b1k_rec rk;
	char b64[4 + 64] = { 0 };
	struct b8_rec r8 = { .v = { 42 } };
	u32 r0, enoent[3] = { 1000 }, einval[3] = { -1 };
	struct ctx c = { 0 };
	int fd = data_open();

	r8.idx = ue_reg(fd, "uebench_b8 u64 v", &enable_words[0], 0);
	r0 = ue_reg(fd, "uebench_b0", &enable_words[1], 0);
	*(u32 *)b64 = ue_reg(fd, "uebench_b64 char[64] s",
				  &enable_words[2], 0);
	rk.idx = ue_reg(fd, "uebench_b1k __rel_loc char[] s",
			&enable_words[3], 0);
	rk.loc = DYN_LOC(0, STR_LEN);
	memset(rk.str, 'x', STR_LEN - 1);
	c.fd = fd;

	label("p_short", "write(), 2 bytes: shorter than an index (EFAULT)");
	c.buf = &r8;
	c.len = 2;
	c.err = EFAULT;
	measure("p_short", op_write_err, &c, 10000, 2000);

	label("p_einval", "write(), 12 bytes, negative write index (EINVAL)");
	c.buf = einval;
	c.len = sizeof(r8);
	c.err = EINVAL;
	measure("p_einval", op_write_err, &c, 10000, 2000);

	label("p_enoent", "write(), 12 bytes, unknown write index (ENOENT)");
	c.buf = enoent;
	c.len = sizeof(r8);
	c.err = ENOENT;
	measure("p_enoent", op_write_err, &c, 10000, 2000);

	label("p_ebadf", "write(), 8-byte event, nothing attached (EBADF)");
	c.buf = &r8;
	c.err = EBADF;
	measure("p_ebadf", op_write_err, &c, 10000, 2000);

	event_enable("uebench_b8", true);
	if (!(READ_ONCE(enable_words[0]) & 1)) {
		errno = 0;
		die("uebench_b8 enabled but its bit is clear");
	}
	label("b8_write", "write(), 8-byte payload, ftrace");
	measure("b8_write", op_write, &c, 10000, 20000);

	label("b8_writev", "writev() [index, payload], 8-byte payload, ftrace");
	c.iov[0].iov_base = &r8.idx;
	c.iov[0].iov_len = sizeof(r8.idx);
	c.iov[1].iov_base = r8.v;
	c.iov[1].iov_len = sizeof(r8.v);
	measure("b8_writev", op_writev, &c, 10000, 20000);

	label("p_off", "write(), 8-byte event, ftrace attached, tracing_on=0");
	write_file(TRACEFS "/tracing_on", "0");
	measure("p_off", op_write, &c, 10000, 2000);
	write_file(TRACEFS "/tracing_on", "1");
	event_enable("uebench_b8", false);

	label("p_b0", "write(), event without fields (index only), ftrace");
	event_enable("uebench_b0", true);
	c.buf = &r0;
	c.len = sizeof(r0);
	measure("p_b0", op_write, &c, 10000, 20000);
	event_enable("uebench_b0", false);

	label("p_b64", "write(), char[64] payload, ftrace");
	event_enable("uebench_b64", true);
	c.buf = b64;
	c.len = sizeof(b64);
	measure("p_b64", op_write, &c, 10000, 20000);
	event_enable("uebench_b64", false);

	label("b1k_write",
	      "write(), 1 KiB __rel_loc char[] payload (1023 chars + NUL), ftrace");
	event_enable("uebench_b1k", true);
	c.buf = &rk;
	c.len = sizeof(rk);
	measure("b1k_write", op_write, &c, 5000, 2000);
	event_enable("uebench_b1k", false);

	ue_unreg(fd, &enable_words[0], 0);
	ue_unreg(fd, &enable_words[1], 0);
	ue_unreg(fd, &enable_words[2], 0);
	ue_unreg(fd, &enable_words[3], 0);
	close(fd);
}

static void perf_open(struct ctx *c, const char *name)
{
	struct perf_event_attr pa = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	void *m;

	pa.type = PERF_TYPE_TRACEPOINT;
	pa.size = sizeof(pa);
	pa.config = event_id(name);
	pa.sample_period = 1;
	pa.sample_type = PERF_SAMPLE_RAW;
	c->perf_fd = syscall(__NR_perf_event_open, &pa, 0, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
	if (c->perf_fd < 0)
		die("perf_event_open");
	c->ring = PERF_PAGES * page;
	m = mmap(NULL, page + c->ring, PROT_READ | PROT_WRITE, MAP_SHARED,
		 c->perf_fd, 0);
	if (m == MAP_FAILED)
		die("mmap perf ring");
	c->pm = m;
}

/* 3. perf consumer (and the profile: perf + ftrace) */
static void wl_perf(void)
{
	struct b8_rec r8 = { .v = { 42 } };
	struct ctx c = { 0 };
	int fd = data_open();

	r8.idx = ue_reg(fd, "uebench_b8 u64 v", &enable_words[0], 0);
	c.fd = fd;
	c.buf = &r8;
	c.len = sizeof(r8);
	perf_open(&c, "uebench_b8");
	if (!(READ_ONCE(enable_words[0]) & 1)) {
		errno = 0;
		die("perf attached but the bit is clear");
	}
	label("b8_perf",
	      "write(), 8-byte payload, perf (RAW, period 1, mmap ring), ftrace off");
	measure("b8_perf", op_write, &c, 10000, 2000);

	label("p_both", "write(), 8-byte payload, ftrace and perf");
	event_enable("uebench_b8", true);
	measure("p_both", op_write, &c, 10000, 20000);
	event_enable("uebench_b8", false);

	munmap(c.pm, c.ring + sysconf(_SC_PAGESIZE));
	close(c.perf_fd);
	ue_unreg(fd, &enable_words[0], 0);
	close(fd);
}

/* Define the uprobe event uebench/usdt on the nop of uebench_usdt(). */
static void uprobe_define(void)
{
	uintptr_t site = (uintptr_t)uebench_usdt;
	char line[512], path[256], cmd[400];
	unsigned long start, end, off;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (*(const unsigned char *)site != 0x90) {
		errno = EINVAL;
		die("uebench_usdt() does not start with a nop");
	}
	if (!maps)
		die("/proc/self/maps");
	path[0] = 0;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end,
			   &off, path) != 4)
			continue;
		if (site >= start && site < end)
			break;
		path[0] = 0;
	}
	fclose(maps);
	if (!path[0]) {
		errno = ENOENT;
		die("no mapping for the probe site");
	}
	snprintf(cmd, sizeof(cmd), "p:uebench/usdt %s:0x%lx", path,
		 site - start + off);
	printf("# uprobe: %s\n", cmd);
	write_file(TRACEFS "/uprobe_events", cmd);
}

/* 4. peers: trace_marker_raw, a uprobe, the syscall floor */
static void wl_peers(void)
{
	struct b8_rec raw = { .idx = 1, .v = { 42 } };
	struct ctx c = { 0 };

	label("marker_raw", "trace_marker_raw write(), 4-byte id + 8 bytes");
	c.fd = open(TRACEFS "/trace_marker_raw", O_WRONLY | O_CLOEXEC);
	if (c.fd < 0)
		die("open trace_marker_raw");
	c.buf = &raw;
	c.len = sizeof(raw);
	measure("marker_raw", op_write, &c, 10000, 20000);
	close(c.fd);

	label("usdt", "uprobe (USDT nop) hit, ftrace, per call");
	uprobe_define();
	write_file(TRACEFS "/events/uebench/usdt/enable", "1");
	measure("usdt", op_usdt, &c, 10000, 20000);
	write_file(TRACEFS "/events/uebench/usdt/enable", "0");
	write_file(TRACEFS "/uprobe_events", "-:uebench/usdt");

	label("devnull", "write() 12 bytes to /dev/null (syscall floor)");
	c.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (c.fd < 0)
		die("open /dev/null");
	measure("devnull", op_write, &c, 10000, 2000);
	close(c.fd);
}

/* 5. the disabled check in the application */
static void wl_disabled(void)
{
	struct b8_rec r8 = { .v = { 42 } };
	struct ctx c = { 0 };
	int fd = data_open();

	r8.idx = ue_reg(fd, "uebench_b8 u64 v", &enable_words[0], 5);
	c.fd = fd;
	c.buf = &r8;
	c.len = sizeof(r8);
	c.word = &enable_words[0];
	c.mask = 1u << 5;
	label("disabled",
	      "disabled event site: load word, test bit, branch (per loop iteration)");
	measure("disabled", op_disabled, &c, 1000000, 10000);
	ue_unreg(fd, &enable_words[0], 5);
	close(fd);
}

/* 6. register + unregister */
static void wl_reg(void)
{
	static const char cmd[] = "uebench_reg u32 a; u64 b";
	struct ctx c = { 0 };

	c.fd = data_open();
	c.reg.size = sizeof(c.reg);
	c.reg.enable_bit = 3;
	c.reg.enable_size = sizeof(u32);
	c.reg.enable_addr = (uintptr_t)&enable_words[0];
	c.reg.name_args = (uintptr_t)cmd;
	c.unreg.size = sizeof(c.unreg);
	c.unreg.disable_bit = 3;
	c.unreg.disable_addr = (uintptr_t)&enable_words[0];
	label("reg_unreg", "DIAG_IOCSREG + DIAG_IOCSUNREG (existing event)");
	measure("reg_unreg", op_reg_unreg, &c, 1000, 100);
	close(c.fd);
}

/* ---------------------------------------------------------------------
 * 7. enable toggle with other processes holding other registrations
 */

struct others {
	int nr;
	pid_t pid[MAX_OTHERS];
	int go[2];		/* closed by the parent: the children exit */
	int ready[2];		/* one byte per registered child */
};

static void other_child(int i, struct others *o)
{
	static u32 word;
	char cmd[64], b = 0;
	int fd;

	close(o->go[1]);
	close(o->ready[0]);
	fd = data_open();
	snprintf(cmd, sizeof(cmd), "uebench_o%d u32 v", i);
	ue_reg(fd, cmd, &word, 0);
	if (write(o->ready[1], &b, 1) != 1)
		die("ready");
	/* blocks until the parent closes go[1] */
	while (read(o->go[0], &b, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void others_spawn(struct others *o, int want)
{
	int first = o->nr;
	char b;

	fflush(stdout);
	while (o->nr < want) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			other_child(o->nr, o);
		o->pid[o->nr++] = pid;
	}
	for (; first < want; first++)
		if (read(o->ready[0], &b, 1) != 1)
			die("child did not register");
}

static void others_reap(struct others *o)
{
	int status;

	close(o->go[1]);
	while (o->nr > 0)
		if (waitpid(o->pid[--o->nr], &status, 0) < 0 || status)
			die("other child failed");
	close(o->go[0]);
	close(o->ready[0]);
	close(o->ready[1]);
}

static void spin_until(u32 *word, bool set)
{
	long spins = 0;

	while (!!(READ_ONCE(*word) & 1) != set)
		if (++spins > 1000000000L) {
			errno = ETIMEDOUT;
			die("enable bit never became %d", set);
		}
}

/*
 * Let an RCU grace period pass (outside the measurements). Enabling a
 * tracepoint again soon after its last probe went away waits for a grace
 * period (tp_rcu_cond_sync()); the guest idles meanwhile and the icount
 * clock jumps to the next timer tick, which is not an instruction count.
 * Sleeping first makes that wait a no-op in both kernels.
 */
static void grace_period(void)
{
	struct timespec ts = { .tv_nsec = 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Toggle the event whose enable file is @path reps times n times; print
 * the mean of the enable write() (@kw), of enable until the bit at @word
 * is set (@kb) and of disable until it is clear (@kd). Without @word (an
 * event of another kind) only @kw and @kd.
 */
static void toggle_measure(const char *path, u32 *word, const char *kb,
			   const char *kw, const char *kd)
{
	u64 t0, t1, t2, t3, sw, sb, sd;
	int efd, r, i, slow, n = scaled(10);

	efd = open(path, O_WRONLY | O_CLOEXEC);
	if (efd < 0)
		die("open %s", path);
	for (r = -1; r < reps; r++) {
		sw = 0;
		sb = 0;
		sd = 0;
		slow = 0;
		for (i = 0; i < n; i++) {
			grace_period();
			t0 = now_ns();
			if (write(efd, "1", 1) != 1)
				die("enable");
			t1 = now_ns();
			if (word)
				spin_until(word, true);
			t2 = now_ns();
			if (write(efd, "0", 1) != 1)
				die("disable");
			if (word)
				spin_until(word, false);
			t3 = now_ns();
			sw += t1 - t0;
			sb += t2 - t0;
			sd += t3 - t2;
			slow += t3 - t0 > 1000000;
		}
		if (r < 0)	/* warm-up */
			continue;
		if (slow)
			printf("# %s: %d of %d toggles over 1M (idle time?)\n",
			       kw, slow, n);
		if (word)
			printf("V %s %.1f\n", kb, (double)sb / n);
		printf("V %s %.1f\n", kw, (double)sw / n);
		printf("V %s %.1f\n", kd, (double)sd / n);
	}
	fflush(stdout);
	close(efd);
}

static void wl_toggle(void)
{
	static const int stages[] = { 1, 100, 1000 };
	static struct others o;
	u32 *word = &enable_words[0];
	char kw[32], kb[32], kd[32], path[256];
	int fd, s;

	/* baseline: the same toggle of an event user_events has no part in */
	label("p_synth_en", "enable write() of a synthetic event (no user_events code)");
	label("p_synth_dis", "disable write() of a synthetic event (no user_events code)");
	write_file(TRACEFS "/synthetic_events", "uebench_synth u64 v");
	toggle_measure(TRACEFS "/events/synthetic/uebench_synth/enable", NULL,
		       NULL, "p_synth_en", "p_synth_dis");
	write_file(TRACEFS "/synthetic_events", "!uebench_synth");

	if (pipe(o.go) || pipe(o.ready))
		die("pipe");
	fd = data_open();
	for (s = 0; s < 3; s++) {
		int k = stages[s];

		snprintf(kb, sizeof(kb), "en_%d", k);
		snprintf(kw, sizeof(kw), "enw_%d", k);
		snprintf(kd, sizeof(kd), "dis_%d", k);
		label(kb, "enable until own bit seen, %d other processes", k);
		label(kw, "enable write() alone, %d other processes", k);
		label(kd, "disable until own bit clear, %d other processes", k);

		/* no registration of ours while forking: none is inherited */
		others_spawn(&o, k);
		ue_reg(fd, "uebench_tgl u32 v", word, 0);
		event_path(path, sizeof(path), "uebench_tgl", "enable");
		toggle_measure(path, word, kb, kw, kd);
		ue_unreg(fd, word, 0);
	}
	close(fd);
	others_reap(&o);
}

/*
 * 7b. a tracer's toggle of an event one process registered 65536 times:
 * how long the enable and disable write()s take, i.e. how long every
 * other tracer waits for event_mutex meanwhile.
 */
#define MANY_ENABLERS	65536

static void wl_toggle_many(void)
{
	static u32 words[MANY_ENABLERS / 32];
	char path[256];
	int fd = data_open(), i;

	label("enw_many", "enable write() alone, one process with %d registrations of the event",
	      MANY_ENABLERS);
	label("dis_many", "disable write() alone, one process with %d registrations of the event",
	      MANY_ENABLERS);
	for (i = 0; i < MANY_ENABLERS; i++)
		ue_reg(fd, "uebench_many u32 v", &words[i / 32], i % 32);
	event_path(path, sizeof(path), "uebench_many", "enable");
	toggle_measure(path, NULL, NULL, "enw_many", "dis_many");
	close(fd);
}

/* 8. fork + exit of a process holding registrations */
static void wl_fork(void)
{
	static const int stages[] = { 0, 100, 1000 };
	static u32 words[MAX_OTHERS];
	struct ctx c = { 0 };
	char key[32], cmd[64];
	int fd = data_open();
	int s, nr = 0;

	for (s = 0; s < 3; s++) {
		int k = stages[s];

		for (; nr < k; nr++) {
			snprintf(cmd, sizeof(cmd), "uebench_f%d u32 v", nr);
			ue_reg(fd, cmd, &words[nr], 0);
		}
		snprintf(key, sizeof(key), "fork_%d", k);
		label(key,
		      "fork() + _exit(0) + waitpid(), %d registrations (distinct events)",
		      k);
		fflush(stdout);
		measure(key, op_fork, &c, 100, 10);
	}
	while (nr > 0) {
		nr--;
		ue_unreg(fd, &words[nr], 0);
	}
	close(fd);
}

/*
 * Delete a dynamic_events event, retrying for up to 10 s: upstream drops
 * the references of exited processes and unregistered enablers late.
 */
static void dyn_delete(const char *cmd)
{
	int tries, fd;
	ssize_t ret;

	for (tries = 0; tries < 200; tries++) {
		fd = open(TRACEFS "/dynamic_events", O_WRONLY | O_APPEND);
		if (fd < 0)
			die("dynamic_events");
		ret = write(fd, cmd, strlen(cmd));
		close(fd);
		if (ret == (ssize_t)strlen(cmd))
			return;
		grace_period();
	}
	die("%s", cmd);
}

/*
 * 9. fork + exit while the process churns its registrations and a tracer
 * toggles the event: one thread registers and unregisters 48 enablers in
 * a loop, another process enables and disables the event, and the main
 * thread forks children that exit at once.  Instructions per completed
 * fork over a window of guest time (lower is better), and what the churn
 * thread and the tracer completed meanwhile, per fork (on one vCPU the
 * three share the CPU: a kernel whose churn and toggles block less leaves
 * the forks a smaller share).
 *
 * Upstream keeps registrations per thread: a thread's first registration
 * makes them, and only threads created later share them.  The main
 * thread therefore registers and unregisters once before it starts the
 * churn thread, so that every child inherits the churning enablers on
 * both kernels (forkrace).  forkrace_thr starts the churn thread first:
 * upstream's children then inherit nothing (a documented difference,
 * fork_test's fork.mm_owned_*), ours copy the enablers as always.  It
 * runs first: upstream keeps the main thread's registrations, even
 * unregistered, until the thread exits.
 */
#define CHURN_NR	48
#define FR_NAME		"uebench_fr"
#define FR_CMD		FR_NAME " u32 v"

static volatile int churn_stop;
/* churn rounds and toggles: in a shared page, the tracer is a process */
static long *race_count;

static void *churn_thread(void *arg)
{
	static u32 words[CHURN_NR];
	int fd = *(int *)arg, i;

	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_size = sizeof(u32),
		.name_args = (uintptr_t)FR_CMD,
	};
	struct user_unreg unreg = { .size = sizeof(unreg) };

	/*
	 * Errors do not stop the churn: upstream refuses the address of an
	 * enabler whose removal is still pending (EADDRINUSE) for a while.
	 */
	while (!churn_stop) {
		for (i = 0; i < CHURN_NR; i++) {
			reg.enable_addr = (uintptr_t)&words[i];
			ioctl(fd, DIAG_IOCSREG, &reg);
		}
		for (i = 0; i < CHURN_NR; i++) {
			unreg.disable_addr = (uintptr_t)&words[i];
			ioctl(fd, DIAG_IOCSUNREG, &unreg);
		}
		__atomic_fetch_add(&race_count[0], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static pid_t toggler_spawn(const char *path)
{
	pid_t pid;
	int efd;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid)
		return pid;
	efd = open(path, O_WRONLY | O_CLOEXEC);
	if (efd < 0)
		die("open %s", path);
	for (;;) {
		if (write(efd, "1", 1) != 1 || write(efd, "0", 1) != 1)
			die("toggle");
		__atomic_fetch_add(&race_count[1], 2, __ATOMIC_RELAXED);
	}
}

/* Row 9 under @key; @main_first: the main thread registers first */
static void forkrace(const char *key, bool main_first)
{
	u64 window = (u64)scaled(1) * 1000000000ull, t0, t1;
	static u32 anchor;
	long forks, churn0, tog0;
	char path[256];
	pthread_t thr;
	pid_t tog;
	int fd, r, status;

	race_count = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (race_count == MAP_FAILED)
		die("mmap");
	write_file(TRACEFS "/dynamic_events", "u:" FR_CMD);
	event_path(path, sizeof(path), FR_NAME, "enable");
	tog = toggler_spawn(path);
	fd = data_open();
	if (main_first) {
		ue_reg(fd, FR_CMD, &anchor, 0);
		ue_unreg(fd, &anchor, 0);
	}
	churn_stop = 0;
	if (pthread_create(&thr, NULL, churn_thread, &fd))
		die("pthread_create");
	for (r = -1; r < reps; r++) {
		forks = 0;
		churn0 = __atomic_load_n(&race_count[0], __ATOMIC_RELAXED);
		tog0 = __atomic_load_n(&race_count[1], __ATOMIC_RELAXED);
		t0 = now_ns();
		do {
			op_fork(NULL, 1);
			forks++;
			t1 = now_ns();
		} while (t1 - t0 < window);
		if (r < 0)
			continue;
		printf("V %s %.1f\n", key, (double)(t1 - t0) / forks);
		printf("V %s_churn %.3f\n", key,
		       (double)(__atomic_load_n(&race_count[0], __ATOMIC_RELAXED) -
				churn0) / forks);
		printf("V %s_toggles %.3f\n", key,
		       (double)(__atomic_load_n(&race_count[1], __ATOMIC_RELAXED) -
				tog0) / forks);
	}
	churn_stop = 1;
	pthread_join(thr, NULL);
	close(fd);
	kill(tog, SIGKILL);
	waitpid(tog, &status, 0);
	munmap(race_count, getpagesize());
	event_enable(FR_NAME, false);
	/* upstream deletes by name only an event without fields */
	dyn_delete("-:" FR_CMD);
	fflush(stdout);
}

static void wl_forkrace(void)
{
	label("forkrace", "fork() + _exit(0) + waitpid() while a thread registers and unregisters %d enablers and a tracer toggles the event, the enablers inherited by every child (per fork)",
	      CHURN_NR);
	label("forkrace_churn", "the same: rounds of %d registrations and %d unregistrations the thread completed meanwhile, per fork (count, higher is better)",
	      CHURN_NR, CHURN_NR);
	label("forkrace_toggles", "the same: enable file writes the tracer completed meanwhile, per fork (count, higher is better)");
	label("forkrace_thr", "the same, the churn thread started before the main thread's first registration (upstream's children inherit nothing; per fork)");
	label("forkrace_thr_churn", "the same: churn rounds per fork (count, higher is better)");
	label("forkrace_thr_toggles", "the same: enable file writes per fork (count, higher is better)");
	/* _thr first: upstream's main thread must not have registered yet */
	forkrace("forkrace_thr", false);
	forkrace("forkrace", true);
}

/*
 * 10. kernel memory: bytes of live slab objects (/proc/slabinfo) plus
 * vmalloc and per-CPU space (/proc/meminfo) added per event, per enabler
 * and by the first registration of a process.  Slab objects freed through RCU are
 * counted until a grace period passes, so each reading waits for one.
 */
static long long kmem_bytes(void)
{
	char line[512], name[64];
	long long total = 0, act, num, size, kb;
	FILE *f;

	grace_period();
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		die("/proc/slabinfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld %lld %lld", name, &act, &num,
			   &size) == 4)
			total += act * size;
	fclose(f);
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %lld kB", &kb) == 1 ||
		    sscanf(line, "Percpu: %lld kB", &kb) == 1)
			total += kb * 1024;
	fclose(f);
	return total;
}

#define MEM_MAX		10000

/* Wait (bounded) until no user event is left: upstream frees them late. */
static void mem_settle(void)
{
	char line[128];
	int tries, active;
	FILE *f;

	for (tries = 0; tries < 200; tries++) {
		active = -1;
		f = fopen(TRACEFS "/user_events_status", "r");
		if (!f)
			die("user_events_status");
		while (fgets(line, sizeof(line), f))
			sscanf(line, "Active: %d", &active);
		fclose(f);
		if (!active)
			return;
		grace_period();
	}
	printf("# user events still active after 10 s:");
	f = fopen(TRACEFS "/user_events_status", "r");
	while (f && fgets(line, sizeof(line), f))
		printf(" %s", strtok(line, "\n") ?: "");
	printf("\n");
	if (f)
		fclose(f);
}

static void mem_stage(const char *what, bool one_event, int nr)
{
	static u32 words[MEM_MAX];
	long long before, after;
	char key[32], cmd[64];
	int fd, r, i;

	snprintf(key, sizeof(key), "mem_%s_%d", what, nr);
	label(key, "kernel bytes per %s, %d of them", what, nr);
	for (r = 0; r < reps; r++) {
		mem_settle();
		fd = data_open();
		before = kmem_bytes();
		for (i = 0; i < nr; i++) {
			if (one_event)
				snprintf(cmd, sizeof(cmd), "uebench_m u32 v");
			else
				snprintf(cmd, sizeof(cmd), "uebench_m%d u32 v", i);
			ue_reg(fd, cmd, &words[i], 0);
		}
		after = kmem_bytes();
		if (r >= 0)
			printf("V %s %.1f\n", key, (double)(after - before) / nr);
		/* registrations belong to the process, not to the file */
		for (i = 0; i < nr; i++)
			ue_unreg(fd, &words[i], 0);
		close(fd);
	}
	fflush(stdout);
}

/*
 * Per process: @nr children each register the existing event uebench_mp
 * once, all after the first reading and before the second; the children
 * were forked before either.
 */
static void mem_first_reg(int nr)
{
	int go[2], ready[2], done[2], i, status;
	long long before, after;
	static u32 word;
	char b = 0;
	pid_t pid;

	if (pipe(go) || pipe(ready) || pipe(done))
		die("pipe");
	fflush(stdout);
	for (i = 0; i < nr; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid)
			continue;
		close(go[1]);
		close(done[1]);
		if (read(go[0], &b, 1) < 0)
			die("go");
		ue_reg(data_open(), "uebench_mp u32 v", &word, 0);
		if (write(ready[1], &b, 1) != 1)
			die("ready");
		if (read(done[0], &b, 1) < 0)
			die("done");
		_exit(0);
	}
	close(go[0]);
	close(done[0]);
	before = kmem_bytes();
	close(go[1]);
	for (i = 0; i < nr; i++)
		if (read(ready[0], &b, 1) != 1)
			die("child did not register");
	after = kmem_bytes();
	printf("V mem_first_reg %.1f\n", (double)(after - before) / nr);
	close(done[1]);
	while (waitpid(-1, &status, 0) > 0)
		if (status)
			die("mem child");
	close(ready[0]);
	close(ready[1]);
}

/*
 * Only at 1,000 and 10,000: slab objects are counted per slab (a CPU's
 * current slab counts as in use), too coarse for one object.
 */
static void wl_mem(void)
{
	static const int stages[] = { 1000, MEM_MAX };
	int s, r;

	/*
	 * First, while this process has never registered: a child of a
	 * process with registrations gets its per-process state at fork.
	 */
	label("mem_first_reg", "kernel bytes of a process's first registration (existing event; 1,000 processes)");
	write_file(TRACEFS "/dynamic_events", "u:uebench_mp u32 v");
	for (r = 0; r < reps; r++)
		mem_first_reg(1000);
	dyn_delete("-:uebench_mp u32 v");

	for (s = 0; s < 2; s++)
		mem_stage("event", false, stages[s]);
	for (s = 0; s < 2; s++)
		mem_stage("enabler", true, stages[s]);
	fflush(stdout);
}

/*
 * 7c. notify: a tracer's toggle of an event while files wait for enable
 * changes (USER_EVENT_REG_NOTIFY) of other events, and while they wait
 * for those of the toggled one: what the toggle costs the tracer (the
 * kernel wakes the files from a work item) and how soon the waiters run.
 * Upstream refuses the flag (EINVAL): nothing is printed there.
 */
#define NT_HELD		1000	/* NOTIFY registrations of the holder */
#define NT_WAITERS	100	/* processes waiting in poll() */
#define NT_NAME		"uebench_nt"
#define NT_CMD		NT_NAME " u32 v"

/* when each waiter last returned from poll(), shared with the tracer */
static u64 *nt_woken;

/* One process: NT_HELD NOTIFY registrations of as many events, one file. */
static void nt_holder(int i, struct others *o, const char *unused)
{
	static u32 words[NT_HELD];
	char cmd[64], b = 0;
	int fd, k;

	(void)i;
	(void)unused;
	close(o->go[1]);
	close(o->ready[0]);
	fd = data_open();
	for (k = 0; k < NT_HELD; k++) {
		snprintf(cmd, sizeof(cmd), "uebench_nh%d u32 v", k);
		if (ue_reg_flags(fd, cmd, &words[k], 0,
				 USER_EVENT_REG_NOTIFY) < 0)
			die("DIAG_IOCSREG '%s'", cmd);
	}
	if (write(o->ready[1], &b, 1) != 1)
		die("ready");
	while (read(o->go[0], &b, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * A waiter: a NOTIFY registration of @cmd on a file of its own, then a
 * ready byte just before each poll() of that file; after each return, the
 * time in nt_woken[@i] and a read() that takes the count of changes.
 * Leaves when the parent closes go[1].
 */
static void nt_waiter(int i, struct others *o, const char *cmd)
{
	struct pollfd pfd[2];
	static u32 word;
	u64 changes;
	char b = 0;

	close(o->go[1]);
	close(o->ready[0]);
	pfd[0].fd = data_open();
	pfd[0].events = POLLIN;
	pfd[1].fd = o->go[0];
	pfd[1].events = POLLIN;
	if (ue_reg_flags(pfd[0].fd, cmd, &word, 0, USER_EVENT_REG_NOTIFY) < 0)
		die("DIAG_IOCSREG '%s'", cmd);
	for (;;) {
		if (write(o->ready[1], &b, 1) != 1)
			die("ready");
		while (poll(pfd, 2, -1) < 0)
			if (errno != EINTR)
				die("poll");
		nt_woken[i] = now_ns();
		if (pfd[1].revents)
			_exit(0);
		if (read(pfd[0].fd, &changes, sizeof(changes)) !=
		    sizeof(changes))
			die("read the changes");
	}
}

/* A registration of @cmd without NOTIFY, until the parent closes go[1]. */
static void nt_plain(int i, struct others *o, const char *cmd)
{
	static u32 word;
	char b = 0;

	(void)i;
	close(o->go[1]);
	close(o->ready[0]);
	ue_reg(data_open(), cmd, &word, 0);
	if (write(o->ready[1], &b, 1) != 1)
		die("ready");
	while (read(o->go[0], &b, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Read @nr ready bytes. */
static void nt_wait_ready(struct others *o, int nr)
{
	char buf[NT_WAITERS + 1];
	ssize_t got;

	while (nr > 0) {
		got = read(o->ready[0], buf, nr < (int)sizeof(buf) ?
			   nr : (int)sizeof(buf));
		if (got <= 0)
			die("a child did not get ready");
		nr -= got;
	}
}

/* Fork children running @fn until @o has @want, each ready once. */
static void nt_spawn(struct others *o, int want,
		     void (*fn)(int, struct others *, const char *),
		     const char *cmd)
{
	int first = o->nr;

	fflush(stdout);
	while (o->nr < want) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			fn(o->nr, o, cmd);
		o->pid[o->nr++] = pid;
	}
	nt_wait_ready(o, want - first);
}

/* CPU time of this thread: what it ran itself, not who ran meanwhile */
static u64 cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Toggle the event of the enable file @path while the waiters 0 to @nr - 1
 * of @o wait for its changes (none: @nr 0); the means of n toggles, under
 * @key: the guest time of the enable write() (<key>_en), this thread's CPU
 * time around it (<key>_cpu: on one vCPU the tasks the toggle wakes may
 * run before the write() returns to the tracer) and from just before it
 * to the first and to the last waiter's return from poll() (<key>_first,
 * <key>_last). The disable is waited for, not measured.
 */
static void nt_wake_measure(const char *path, struct others *o, int nr,
			    const char *key)
{
	u64 c0, c1, t0, t1, t, first, last, sw, sc, sf, sl;
	int efd, r, i, k, n = scaled(10);

	efd = open(path, O_WRONLY | O_CLOEXEC);
	if (efd < 0)
		die("open %s", path);
	for (r = -1; r < reps; r++) {
		sw = 0;
		sc = 0;
		sf = 0;
		sl = 0;
		for (i = 0; i < n; i++) {
			/* every waiter wrote its byte: let them all block */
			grace_period();
			c0 = cpu_ns();
			t0 = now_ns();
			if (write(efd, "1", 1) != 1)
				die("enable");
			t1 = now_ns();
			c1 = cpu_ns();
			nt_wait_ready(o, nr);
			first = UINT64_MAX;
			last = 0;
			for (k = 0; k < nr; k++) {
				t = READ_ONCE(nt_woken[k]);
				if (t < t0) {
					errno = 0;
					die("waiter %d returned before the enable", k);
				}
				if (t < first)
					first = t;
				if (t > last)
					last = t;
			}
			sw += t1 - t0;
			sc += c1 - c0;
			if (nr) {
				sf += first - t0;
				sl += last - t0;
			}
			if (write(efd, "0", 1) != 1)
				die("disable");
			nt_wait_ready(o, nr);
		}
		if (r < 0)	/* warm-up */
			continue;
		printf("V %s_en %.1f\n", key, (double)sw / n);
		printf("V %s_cpu %.1f\n", key, (double)sc / n);
		if (!nr)
			continue;
		printf("V %s_first %.1f\n", key, (double)sf / n);
		printf("V %s_last %.1f\n", key, (double)sl / n);
	}
	fflush(stdout);
	close(efd);
}

static void wl_notify(void)
{
	/* pieces of the labels, too long for a line in one piece */
	static const char en[] = "enable write() alone";
	static const char dis[] = "disable write() alone";
	static const char held[] =
		"NOTIFY registrations of other events on one file";
	static const char pollers[] =
		"processes in poll() on files of their own with a NOTIFY registration of";
	static const char cpu[] =
		"the tracer's own CPU time around the enable write()";
	static const char one_cpu[] =
		"on one vCPU the work item and the woken waiters run before the write() returns";
	static const char since[] =
		"guest ns from just before the enable write()";
	static struct others o;
	u32 *word = &enable_words[0];
	char path[256];
	int fd;

	write_file(TRACEFS "/dynamic_events", "u:" NT_CMD);
	/*
	 * The probe on a file of its own: a file keeps watching an event
	 * after its NOTIFY registration is gone, until it is closed.
	 */
	fd = data_open();
	if (ue_reg_flags(fd, NT_CMD, word, 0, USER_EVENT_REG_NOTIFY) < 0) {
		if (errno != EINVAL)
			die("DIAG_IOCSREG '%s' with USER_EVENT_REG_NOTIFY",
			    NT_CMD);
		printf("# notify: USER_EVENT_REG_NOTIFY refused (EINVAL): skipped\n");
		close(fd);
		dyn_delete("-:" NT_CMD);
		return;
	}
	ue_unreg(fd, word, 0);
	close(fd);
	fd = data_open();
	nt_woken = mmap(NULL, (NT_WAITERS + 1) * sizeof(*nt_woken),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (nt_woken == MAP_FAILED)
		die("mmap");
	event_path(path, sizeof(path), NT_NAME, "enable");

	label("nt_plain_en", "%s, no NOTIFY registration anywhere (plain toggle)", en);
	label("nt_plain_dis", "%s, no NOTIFY registration anywhere (plain toggle)", dis);
	ue_reg(fd, NT_CMD, word, 0);
	toggle_measure(path, NULL, NULL, "nt_plain_en", "nt_plain_dis");
	ue_unreg(fd, word, 0);

	/*
	 * (a) nothing of theirs changes. No registration of ours while
	 * forking: the children would inherit it, one more bit to write.
	 */
	label("nt_idle_en", "%s, one process with %d %s and %d %s another event",
	      en, NT_HELD, held, NT_WAITERS, pollers);
	label("nt_idle_dis", "%s, the same %d + %d NOTIFY registrations of other events",
	      dis, NT_HELD, NT_WAITERS);
	if (pipe(o.go) || pipe(o.ready))
		die("pipe");
	nt_spawn(&o, NT_WAITERS, nt_waiter, "uebench_nx u32 v");
	nt_spawn(&o, NT_WAITERS + 1, nt_holder, NULL);
	ue_reg(fd, NT_CMD, word, 0);
	toggle_measure(path, NULL, NULL, "nt_idle_en", "nt_idle_dis");
	ue_unreg(fd, word, 0);
	others_reap(&o);

	/* the bits of 100 registrations of the event, no file to wake */
	label("nt_reg_en",
	      "%s, %d processes with a registration of the toggled event without NOTIFY",
	      en, NT_WAITERS);
	label("nt_reg_cpu", "the same: %s (CLOCK_THREAD_CPUTIME_ID)", cpu);
	if (pipe(o.go) || pipe(o.ready))
		die("pipe");
	nt_spawn(&o, NT_WAITERS, nt_plain, NT_CMD);
	ue_reg(fd, NT_CMD, word, 0);
	nt_wake_measure(path, &o, 0, "nt_reg");
	ue_unreg(fd, word, 0);
	others_reap(&o);

	/* (b) the same registrations with NOTIFY, each in poll() */
	label("nt_wake_en", "%s, %d %s the toggled event (%s)",
	      en, NT_WAITERS, pollers, one_cpu);
	label("nt_wake_cpu",
	      "the same: %s (CLOCK_THREAD_CPUTIME_ID; the wake-ups deferred to a work item)",
	      cpu);
	label("nt_wake_first", "the same: %s to the first waiter's return from poll()",
	      since);
	label("nt_wake_last",
	      "the same: %s to the last of the %d waiters' return from poll()",
	      since, NT_WAITERS);
	if (pipe(o.go) || pipe(o.ready))
		die("pipe");
	nt_spawn(&o, NT_WAITERS, nt_waiter, NT_CMD);
	ue_reg(fd, NT_CMD, word, 0);
	nt_wake_measure(path, &o, NT_WAITERS, "nt_wake");
	ue_unreg(fd, word, 0);
	others_reap(&o);

	close(fd);
	munmap(nt_woken, (NT_WAITERS + 1) * sizeof(*nt_woken));
	event_enable(NT_NAME, false);
	dyn_delete("-:" NT_CMD);
}

/*
 * 1b. dropped: write() of the 8-byte event enabled only in an instance
 * whose buffer is full and does not overwrite: every record is refused
 * (ours counts it for DIAG_IOCGLOSS, upstream does not).
 */
#define FULL_DIR	TRACEFS "/instances/uebench_full"

/* The records CPU 0's buffer of the instance refused so far. */
static long full_dropped(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(FULL_DIR "/per_cpu/cpu0/stats", "r");

	if (!f)
		die(FULL_DIR "/per_cpu/cpu0/stats");
	while (fgets(line, sizeof(line), f))
		sscanf(line, "dropped events: %ld", &v);
	fclose(f);
	if (v < 0) {
		errno = ENOENT;
		die("no dropped events in " FULL_DIR "/per_cpu/cpu0/stats");
	}
	return v;
}

/*
 * 12. many records per system call: 8-byte records of one event, ftrace,
 * per record; through DIAG_IOCSBATCH (upstream has none: ENOTTY; its row
 * to compare with is its single write, row 1) and through io_uring, one
 * IORING_OP_WRITE per record (upstream: each record handed to an io-wq
 * worker, which cannot write inline).
 */
static void wl_batch(void)
{
	static const int sizes[] = { 32, 8, 1 };
	static struct b8_rec r8[32];
	static struct iovec iov[32];
	struct user_batch b = { .size = sizeof(b), .records = (u64)(uintptr_t)iov };
	struct ue_uring ring;
	struct ctx c = { .batch = &b, .uring = &ring, .iov_n = iov };
	char key[32];
	unsigned int i;
	bool batch;
	u32 idx;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(key, sizeof(key), "bt_%d", sizes[i]);
		label(key, "DIAG_IOCSBATCH, %d 8-byte records per call, ftrace, per record",
		      sizes[i]);
		snprintf(key, sizeof(key), "ur_%d", sizes[i]);
		label(key, "io_uring, %d 8-byte writes per io_uring_enter(), ftrace, per record",
		      sizes[i]);
	}
	c.fd = data_open();
	idx = ue_reg(c.fd, "uebench_bt u64 v", &enable_words[0], 0);
	event_enable("uebench_bt", true);
	for (i = 0; i < ARRAY_SIZE(r8); i++) {
		r8[i] = (struct b8_rec){ .idx = idx, .v = { i } };
		iov[i].iov_base = &r8[i];
		iov[i].iov_len = sizeof(r8[i]);
	}
	b.count = 1;
	batch = ioctl(c.fd, DIAG_IOCSBATCH, &b) >= 0;
	if (!batch)
		printf("# batch: DIAG_IOCSBATCH: %s\n", strerror(errno));
	for (i = 0; batch && i < ARRAY_SIZE(sizes); i++) {
		snprintf(key, sizeof(key), "bt_%d", sizes[i]);
		b.count = c.per = sizes[i];
		measure(key, op_batch, &c, 20000 / sizes[i], 20000 / sizes[i]);
	}
	ret = ue_uring_init(&ring, 32);
	if (ret)
		printf("# batch: io_uring_setup: %s\n", strerror(-ret));
	for (i = 0; !ret && i < ARRAY_SIZE(sizes); i++) {
		snprintf(key, sizeof(key), "ur_%d", sizes[i]);
		c.per = sizes[i];
		measure(key, op_uring, &c, 20000 / sizes[i], 20000 / sizes[i]);
	}
	if (!ret)
		ue_uring_exit(&ring);
	event_enable("uebench_bt", false);
	close(c.fd);
}

/*
 * 13. what other events gain from the trace core's direct reserve and
 * commit (ours has it, upstream not): an ordinary TRACE_EVENT()
 * tracepoint that a system call fires. Row 4's uprobe is a probe event.
 */
static void wl_core(void)
{
	static const char en[] = TRACEFS "/events/task/task_rename/enable";
	struct ctx c = { 0 };

	label("tp_rename", "prctl(PR_SET_NAME), TRACE_EVENT() task:task_rename, ftrace");
	label("tp_rename_off", "prctl(PR_SET_NAME), task:task_rename not traced");
	measure("tp_rename_off", op_rename, &c, 10000, 2000);
	write_file(en, "1");
	measure("tp_rename", op_rename, &c, 10000, 20000);
	write_file(en, "0");
}

static void wl_dropped(void)
{
	static const char en[] = FULL_DIR "/events/user_events/uebench_drop/enable";
	struct user_loss loss = { .size = sizeof(loss) };
	struct b8_rec r8 = { .v = { 42 } };
	long before, want, tries;
	struct ctx c = { 0 };
	cpu_set_t cpus;
	int fd, i;

	/* one CPU's buffer to fill */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("sched_setaffinity");
	if (mkdir(FULL_DIR, 0755))
		die("mkdir " FULL_DIR);
	write_file(FULL_DIR "/buffer_size_kb", "4");
	write_file(FULL_DIR "/options/overwrite", "0");
	fd = data_open();
	r8.idx = ue_reg(fd, "uebench_drop u64 v", &enable_words[0], 0);
	write_file(en, "1");
	if (!(READ_ONCE(enable_words[0]) & 1)) {
		errno = 0;
		die("uebench_drop enabled but its bit is clear");
	}
	c.fd = fd;
	c.buf = &r8;
	c.len = sizeof(r8);
	for (tries = 0; !full_dropped(); tries++) {
		if (tries > 1000) {
			errno = ENOSPC;
			die(FULL_DIR " never filled");
		}
		op_write(&c, 100);
	}

	label("b8_dropped", "write(), 8-byte payload, ftrace buffer full (dropped)");
	before = full_dropped();
	measure("b8_dropped", op_write, &c, 10000, 2000);
	want = scaled(10000) * reps + scaled(2000);
	if (full_dropped() - before != want)
		printf("# b8_dropped: %ld of %ld writes dropped\n",
		       full_dropped() - before, want);
	loss.write_index = r8.idx;
	if (!ioctl(fd, DIAG_IOCGLOSS, &loss))
		printf("# b8_dropped: DIAG_IOCGLOSS lost_ftrace %llu written %llu\n",
		       (unsigned long long)loss.lost_ftrace,
		       (unsigned long long)loss.written);

	write_file(en, "0");
	ue_unreg(fd, &enable_words[0], 0);
	close(fd);
	/* the instance may be busy a little while after the disable */
	for (i = 0; rmdir(FULL_DIR); i++) {
		if (errno != EBUSY || i >= 200)
			die("rmdir " FULL_DIR);
		grace_period();
	}
	fflush(stdout);
}

/*
 * profile (only when named with -o): PROFILE_N writes of each kind, for
 * workbench/bench/profile.sh, which single-steps the last one of each in
 * the kernel: the 8-byte event with ftrace, the 1 KiB one with ftrace,
 * the 8-byte one with perf, and trace_marker_raw.  No timing: the steps are the measurement.
 */
#define PROFILE_N	200

/*
 * The profile's last part: DIAG_IOCSBATCH calls of 8 records of 8 bytes,
 * ftrace, on a kernel that has it (the profiler stops at the ioctl).
 */
static void profile_batch(void)
{
	static struct b8_rec r8[8];
	static struct iovec iov[8];
	struct user_batch b = { .size = sizeof(b), .count = 8,
				.records = (u64)(uintptr_t)iov };
	struct ctx c = { .batch = &b };
	unsigned int i;
	u32 idx;

	c.fd = data_open();
	idx = ue_reg(c.fd, "uebench_b8 u64 v", &enable_words[0], 0);
	for (i = 0; i < ARRAY_SIZE(r8); i++) {
		r8[i] = (struct b8_rec){ .idx = idx, .v = { 42 } };
		iov[i].iov_base = &r8[i];
		iov[i].iov_len = sizeof(r8[i]);
	}
	event_enable("uebench_b8", true);
	if (ioctl(c.fd, DIAG_IOCSBATCH, &b) == 8)
		op_batch(&c, PROFILE_N);
	event_enable("uebench_b8", false);
	ue_unreg(c.fd, &enable_words[0], 0);
	close(c.fd);
}

static void wl_profile(void)
{
	struct b8_rec r8 = { .v = { 42 } }, raw = { .idx = 1, .v = { 42 } };
	static struct b1k_rec rk;
	struct ctx c = { 0 };
	int fd = data_open();

	r8.idx = ue_reg(fd, "uebench_b8 u64 v", &enable_words[0], 0);
	rk.idx = ue_reg(fd, "uebench_b1k __rel_loc char[] s",
			&enable_words[3], 0);
	rk.loc = DYN_LOC(0, STR_LEN);
	memset(rk.str, 'x', STR_LEN - 1);
	c.fd = fd;
	c.buf = &r8;
	c.len = sizeof(r8);
	event_enable("uebench_b8", true);
	op_write(&c, PROFILE_N);
	event_enable("uebench_b8", false);
	c.buf = &rk;
	c.len = sizeof(rk);
	event_enable("uebench_b1k", true);
	op_write(&c, PROFILE_N);
	event_enable("uebench_b1k", false);
	ue_unreg(fd, &enable_words[3], 0);
	c.buf = &r8;
	c.len = sizeof(r8);
	perf_open(&c, "uebench_b8");
	op_write(&c, PROFILE_N);
	munmap(c.pm, c.ring + sysconf(_SC_PAGESIZE));
	close(c.perf_fd);
	ue_unreg(fd, &enable_words[0], 0);
	close(fd);

	c.fd = open(TRACEFS "/trace_marker_raw", O_WRONLY | O_CLOEXEC);
	if (c.fd < 0)
		die("open trace_marker_raw");
	c.buf = &raw;
	c.len = sizeof(raw);
	op_write(&c, PROFILE_N);
	close(c.fd);

	profile_batch();
	printf("# profile: %d writes of each kind done\n", PROFILE_N);
}

static const struct {
	const char *name;
	void (*fn)(void);
} workloads[] = {
	{ "write", wl_write },
	{ "perf", wl_perf },
	{ "peers", wl_peers },
	{ "disabled", wl_disabled },
	{ "reg", wl_reg },
	{ "toggle", wl_toggle },
	{ "toggle_many", wl_toggle_many },
	{ "fork", wl_fork },
	{ "forkrace", wl_forkrace },
	{ "mem", wl_mem },
	{ "notify", wl_notify },
	{ "dropped", wl_dropped },
	{ "batch", wl_batch },
	{ "core", wl_core },
	{ "profile", wl_profile },	/* only when named */
};

static bool selected(const char *name)
{
	int i;

	if (!nr_only)
		return strcmp(name, "profile") != 0;
	for (i = 0; i < nr_only; i++)
		if (!strcmp(only[i], name))
			return true;
	return false;
}

static void trace_setup(void)
{
	int fd;

	write_file(TRACEFS "/tracing_on", "0");
	write_file(TRACEFS "/current_tracer", "nop");
	write_file(TRACEFS "/options/overwrite", "1");
	write_file(TRACEFS "/buffer_size_kb", FTRACE_BUF_KB);
	fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);
	if (fd < 0)
		die("clear trace");
	close(fd);
	write_file(TRACEFS "/tracing_on", "1");
}

int main(int argc, char **argv)
{
	unsigned int i;
	int opt, status, failed = 0;
	struct utsname uts;
	pid_t pid;

	while ((opt = getopt(argc, argv, "r:s:o:")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			scale = atof(optarg);
			break;
		case 'o':
			if (nr_only < 16)
				only[nr_only++] = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r REPS] [-s SCALE] [-o GROUP]...\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	trace_setup();
	printf("# uebench reps %d scale %g\n", reps, scale);
	if (!uname(&uts))
		printf("# kernel %s %s\n", uts.release, uts.version);
	for (i = 0; i < ARRAY_SIZE(workloads); i++) {
		if (!selected(workloads[i].name))
			continue;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			workloads[i].fn();
			fflush(stdout);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || status) {
			printf("# workload %s FAILED (status %#x)\n",
			       workloads[i].name, status);
			failed = 1;
		}
	}
	return failed;
}
