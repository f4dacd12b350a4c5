/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the user_events selftests, linked into every program.  Documented ABI only (the uapi
 * header, tracefs, perf_event_open()); they return 0 or a negative errno unless said otherwise.
 */
#ifndef _UE_UTIL_H
#define _UE_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

#include "../kselftest.h"

#define UE_SYS		"user_events"
#define UE_SYS_MULTI	"user_events_multi"
/* Bound of every wait for the kernel or a tool: a failure bound only */
#define UE_WAIT_SECS	10
#define UE_NAME_MAX	256
/* The longest DIAG_IOCSREG command, without its NUL (as upstream) */
#define UE_CMD_MAX	511
/* Registrations one user may hold (kernels with the per-user limit) */
#define UE_USER_MAX_PATH	"/proc/sys/user/max_user_event_enablers"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* tracefs is mounted if need be; ue_read_all(): malloc()ed, NULL with errno set on failure */
__printf(3, 4) char *ue_tpath(char *buf, size_t len, const char *fmt, ...);
int ue_write_str(const char *path, const char *val, int oflags);
char *ue_read_all(const char *path);
double ue_elapsed(const struct timespec *start);
/* Keep the caller on the CPU it runs on: the CPU.  ue_rt(): real-time priority, where allowed */
int ue_pin_cpu(void);
void ue_rt(bool on);
void *ue_map_page(int prot);	/* a fresh, never touched anonymous page */
/* fork() with a socketpair: *@fd is this side's end; the other end is closed here */
pid_t ue_sock_fork(int *fd);
/* @len bytes of socket @fd, the first within @secs: 0, -ETIMEDOUT, -errno, -EPIPE (peer gone) */
int ue_recv(int fd, void *buf, size_t len, int secs);
/*
 * A child process that owns a vhost-net device (it holds the child's address space), registers
 * @cmd and exits with both open, as user @uid unless 0 (the device and the data file opened
 * before), reaped: its wait status (exit status UE_NO_VHOST: no /dev/vhost-net), or -1
 */
#define UE_NO_VHOST	4
int ue_vhost_round(const char *cmd, uid_t uid);

/* ue_reg_in_thread(): by a thread that exits right after; ue_del_name(): through a fd of its own */
bool ue_available(void);
/* Upstream's user_events (6.12), not this series': @fd (user_events_data) fails DIAG_IOCSBATCH */
bool ue_upstream(int fd);
int ue_open_data(void);
void ue_fill_reg(struct user_reg *reg, const char *cmd, void *addr, int size, int bit,
		 __u16 flags);
int ue_reg_raw(int fd, void *arg);
/* Give @arg (user_reg/unreg of @size bytes) the @i-th bad size: its error, 0 past the last */
int ue_bad_arg_size(int i, void *arg, __u32 size);
int ue_reg(int fd, const char *cmd, void *addr, int size, int bit, __u16 flags, __u32 *index);
int ue_reg_in_thread(int fd, const char *cmd, void *addr, int bit);
int ue_unreg(int fd, void *addr, int bit);
/* Register @cmd (bit 0 of the u32 at @addr) on a fd of its own, unregister, close */
int ue_reg_once(const char *cmd, void *addr, __u16 flags);
int ue_del(int fd, const char *name);
int ue_del_name(const char *name);
ssize_t ue_emit(int fd, __u32 idx, const void *payload, size_t len);
bool ue_bit_set(const void *addr, int size, int bit);
/* The enable word of @size bytes at @addr, read as the program reads it */
__u64 ue_word_read(const void *addr, int size);
/* The waits poll for at most UE_WAIT_SECS: false on timeout */
bool ue_wait_bit(const void *addr, int size, int bit, bool want);

/*
 * The enable sizes and bits a test of the enable word runs for, each at its own offset in a
 * UE_EN_CASE_SPAN-byte block (some 4-byte words not 64-bit aligned: upstream 6.6 "Align
 * set_bit() address for all archs").  ue_en_case() sets @w up for case @i: its word in the
 * @i-th block at @base (UE_EN_CASE_SPAN aligned), its other bits those of UE_FILLER64 so that a
 * stray write shows; the event @prefix_@i, registered as "@prefix_@i @fields".
 */
struct ue_en_case {
	int size, bit, offset;	/* enable_size, enable_bit, offset in the block */
};

#define UE_EN_CASES	10
#define UE_EN_CASE_SPAN	32
#define UE_FILLER64	0xa5c3f00f5aa53cc3ull
extern const struct ue_en_case ue_en_cases[UE_EN_CASES];

struct ue_en_word {
	char *val;		/* the word */
	int size, bit;
	__u64 other;		/* the word with the case's bit clear */
	char name[64], cmd[96];
};

void ue_en_case(struct ue_en_word *w, char *base, int i, const char *prefix, const char *fields);

/*
 * A payload built field by field in the order of the event's command: ue_rec_init(), a call per
 * field, then ue_rec_write() (or ue_rec_end(): the payload in buf, its length).  A char[N] is
 * truncated to N - 1 characters and NUL padded.  The strings of __data_loc and __rel_loc fields,
 * each with its NUL, follow the fixed fields in order; ue_rec_end() sets their location words
 * (Documentation/trace/user_events.rst, "Dynamic fields").  A payload of more than UE_REC_MAX
 * bytes or UE_REC_LOCS dynamic fields: -E2BIG.  ue_rec_write(): 0 or -errno of the write.
 */
#define UE_REC_MAX	1024
#define UE_REC_LOCS	8
/* The common fields of a trace record, before the payload: where __data_loc offsets start */
#define UE_COMMON_SIZE	8

struct ue_rec {
	__u32 fixed, dyn;	/* bytes of the fixed fields, of the strings */
	int nlocs;
	bool overflow;
	struct {
		__u32 word, at, len;	/* where the word is, where the string is in data */
		bool rel;
	} locs[UE_REC_LOCS];
	char buf[UE_REC_MAX];
	char data[UE_REC_MAX];
};

void ue_rec_init(struct ue_rec *r);
void ue_rec_u8(struct ue_rec *r, __u8 v);
void ue_rec_u16(struct ue_rec *r, __u16 v);
void ue_rec_u32(struct ue_rec *r, __u32 v);
void ue_rec_u64(struct ue_rec *r, __u64 v);
void ue_rec_chars(struct ue_rec *r, const char *s, size_t n);	/* char[n] */
void ue_rec_bytes(struct ue_rec *r, const void *p, size_t n);	/* struct of n bytes */
void ue_rec_data_loc(struct ue_rec *r, const char *s);
void ue_rec_rel_loc(struct ue_rec *r, const char *s);
int ue_rec_end(struct ue_rec *r);
int ue_rec_write(int fd, __u32 idx, struct ue_rec *r);

/*
 * ue_set_enable() of @name NULL: every event of @sys.  ue_field_offset() of @field NULL and
 * ue_entry_size(): where the common_ fields end.  ue_multi_versions(): how many NAME.<hex>
 * events, one with @field (NULL: any) to @tp.  ue_trace_count(): lines of event @name, the last
 * to @last.  ue_trace_seqs(): the "seq=" value of each line of the events @names (NULL ends
 * them), in trace order, and the pid the line shows (@max at most; -1 if more, or a line has
 * no seq=): how many.  ue_leftovers(): tracefs dirs, status and dynamic_events lines of
 * @prefix* events, as many as fit to @out; @del deletes them.
 */
int ue_set_enable(const char *sys, const char *name, bool on);
bool ue_event_exists(const char *sys, const char *name);
int ue_event_id(const char *sys, const char *name);
char *ue_format_read(const char *sys, const char *name);
/* The event name of command @cmd (its first word, up to a ':') in @buf */
char *ue_cmd_name(char *buf, size_t len, const char *cmd);
bool ue_format_has(const char *sys, const char *name, const char *str);
int ue_field_offset(const char *sys, const char *name, const char *field);
int ue_entry_size(const char *sys, const char *name);
bool ue_is_version_of(const char *tp, const char *name);
int ue_multi_versions(const char *name, const char *field, char *tp, size_t len);
int ue_tracing_on(void);
int ue_trace_clear(void);
char *ue_trace_read(void);
int ue_trace_count(const char *name, char *last, size_t len);
int ue_trace_seqs(const char *const *names, __u32 *seq, pid_t *pid, int max);
char *ue_status_read(void);
bool ue_status_counts(int *active, int *busy);
bool ue_status_line(const char *name, char *out, size_t len);
int ue_leftovers(const char *prefix, bool del, char *out, size_t len);
/* A perf event on a tracepoint: this process, or all of CPU @cpu >= 0; and its ring */
int ue_perf_open(int id, bool exclude_kernel);
int ue_perf_open_cpu(int id, int cpu, bool exclude_kernel);
struct ue_ring {
	char *base;
	size_t size;
};

int ue_ring_map(struct ue_ring *r, int fd);
void ue_ring_unmap(struct ue_ring *r);
/* Consume up to the next sample, copy up to @cap bytes of its raw data: their size or 0 */
__u32 ue_ring_next_raw(struct ue_ring *r, void *raw, size_t cap);

/* user namespaces: the tracefs systems of their groups (user_events_ns<INUM>) */
#define UE_NS_SYSCTL_GROUPS	"/proc/sys/kernel/user_events_ns_groups"
#define UE_NS_SYSCTL_MAX	"/proc/sys/kernel/user_events_ns_max"
unsigned long ue_userns_inum(void);
char *ue_ns_system(char *buf, size_t len, unsigned long inum, bool multi);
int ue_ns_systems(char *out, size_t len);
bool ue_wait_ns_systems_gone(char *out, size_t len);
bool ue_wait_gone(const char *sys, const char *name);

/* dynamic_events; ue_dyn_del() retries EBUSY, ue_dyn_count() counts lines equal to @want */
int ue_dyn_cmd(const char *cmd);
int ue_dyn_add(const char *name, const char *fields);
int ue_dyn_del(const char *name);
bool ue_dyn_line(const char *name, char *out, size_t len);
int ue_dyn_count(const char *want);

/*
 * What a test registered, enabled and must delete: ue_track_cleanup() disables, unregisters,
 * closes and deletes (retrying EBUSY).  ue_reg_enabled() registers, enables, waits for the bit.
 */
struct ue_track_reg {
	int fd;
	void *addr;
	int bit;
};

struct ue_track {
	int fd;
	int nregs, nenabled, ndels;
	struct ue_track_reg *regs;
	char **enabled, **dels;
};

int ue_track_init(struct ue_track *t);
int ue_track_reg_fd(struct ue_track *t, int fd, const char *cmd, void *addr, int size, int bit,
		    __u16 flags, __u32 *index);
int ue_track_reg(struct ue_track *t, const char *cmd, void *addr, int size, int bit, __u32 *index);
int ue_track_enable(struct ue_track *t, const char *sys, const char *name);
void ue_track_del(struct ue_track *t, const char *name);
int ue_reg_enabled(struct ue_track *t, void *addr, const char *cmd, const char *name, int bit,
		   __u32 *index);
void ue_track_cleanup(struct ue_track *t);

/*
 * The usual fixture: a tracked user_events_data fd (self->t), a zeroed page for enable words
 * (self->page), a perf fd closed at the end (self->perf_fd, -1).  UE_ROOT skips the tests
 * unless root, UE_TRACE turns tracing on and clears the trace before and after.
 */
#define UE_ROOT		1
#define UE_TRACE	2

const char *ue_skip_reason(int flags);
int ue_fixture_init(struct ue_track *t, char **page, int *perf_fd, int flags);
void ue_fixture_fini(struct ue_track *t, char *page, int perf_fd, int flags);

/* FIXTURE(x) { UE_FIXTURE_MEMBERS; }; FIXTURE_SETUP(x) { UE_SETUP(flags); } */
#define UE_FIXTURE_MEMBERS						\
	struct ue_track t;						\
	char *page;							\
	int perf_fd;							\
	int flags

#define UE_SETUP(fixture_flags)						\
	do {								\
		self->flags = (fixture_flags);				\
		if (ue_skip_reason(self->flags))			\
			SKIP(, "%s", ue_skip_reason(self->flags));	\
		else							\
			ASSERT_EQ(0, ue_fixture_init(&self->t, &self->page,	\
				  &self->perf_fd, self->flags));	\
	} while (0)

#define UE_TEARDOWN()							\
	ue_fixture_fini(&self->t, self->page, self->perf_fd, self->flags)

/* The budget of repeated cases: at least one round, at most this many or for this long */
#define UE_RACE_SECS	5.0
#define UE_RACE_ROUNDS	100

/*
 * Run fn(arg) in a child (same uid) without @caps in its effective and permitted sets:
 * what fn returned (0 or -errno), -ECHILD when the child could not run it.
 */
int ue_run_without_caps(const int *caps, int ncaps, int (*fn)(void *), void *arg);
int ue_cb_del(void *name);
int ue_cb_dyn(void *cmd);
int ue_cb_reg(void *cmd);	/* ue_reg_once(@cmd) */

/*
 * Let every user search the tracefs root and open user_events_data (o+x, o+rw), as an
 * administrator may; ue_share_undo() restores the modes (only what ue_share_data() changed).
 */
struct ue_share {
	mode_t mode[2];
	int nsaved;
};

int ue_share_data(struct ue_share *s);
void ue_share_undo(struct ue_share *s);

/* the number in environment variable @name (@def), within [min, max] */
long long ue_env(const char *name, long long def, long long min, long long max);
/* one seeded stream of pseudo-random numbers (splitmix64) */
__u64 ue_rand(__u64 *state);
__u32 ue_rand_n(__u64 *state, __u32 n);

/*
 * Consumer tests: external tools, and a writer mode of the test binary ("SELF --ue-writer NAME
 * COUNT") that registers NAME UE_WRITER_FIELDS, waits until a tracer enables it and writes COUNT
 * events; event i is seq=i neg=-i val=i*1000+7 tag=t<i> dl=dl-<i> rl=rl-<i>.  ue_run_tool(out,
 * prog, args..., NULL) runs in /tmp, output to @out (NULL: /dev/null): the exit status, 128 +
 * the signal, or -1.
 */
#define UE_WRITER_ARG	"--ue-writer"
#define UE_WRITER_FIELDS "u32 seq; s32 neg; u64 val; char[8] tag; " \
			 "__data_loc char[] dl; __rel_loc char[] rl"

void ue_writer_text(char *buf, size_t len, int i);
const char *ue_self(void);
bool ue_have_tool(const char *prog);
int ue_run_tool(const char *out, const char *prog, ...);
int ue_count_str(const char *text, const char *needle);
/* ASSERT_TRUE(ue_nonnull(p)), not ASSERT_NE(NULL, p): that warns on 32-bit builds */
#define ue_nonnull(p)	(!!(p))
int ue_count_in(const char *path, const char *needle);
/* Into the test log: the line of @path holding @needle; the first lines of @path */
void ue_show_line(const char *tool, const char *path, const char *needle);
void ue_dump(const char *path, int max_lines);

/*
 * Fault injection (Documentation/fault-injection): allocations of @kind ("failslab",
 * "fail_page_alloc") fail, @times times (-1: until stopped), made by anything the kernel function
 * @func calls.  -EOPNOTSUPP without fault injection, its stack filter or @func's symbol.
 * ue_fail_left(): failures still to come, or -errno.
 */
int ue_fail_start(const char *kind, const char *func, int times);
int ue_fail_left(const char *kind);
void ue_fail_stop(const char *kind);

/* main() of a test with the writer mode: ue_main(argc, argv, harness) */
int ue_main(int argc, char **argv, int (*harness)(int, char **));

#ifdef __KSELFTEST_HARNESS_H
/* Helpers that assert: for programs that include kselftest_harness.h before this header */

/* Register @cmd at bit 0 of @page (@enable: and enable it), deleted at the end: its write index */
static inline __u32 ue_reg_page(struct __test_metadata *_metadata, struct ue_track *t, char *page,
				const char *cmd, bool enable)
{
	char name[UE_NAME_MAX];
	__u32 idx;
	int ret;

	ue_cmd_name(name, sizeof(name), cmd);
	ue_track_del(t, name);
	ret = enable ? ue_reg_enabled(t, page, cmd, name, 0, &idx) :
		       ue_track_reg(t, cmd, page, 4, 0, &idx);
	ASSERT_EQ(0, ret) TH_LOG("%s", cmd);
	return idx;
}

/*
 * At the start of a test whose fixture (UE_SETUP()) was set up with fewer flags: what UE_SETUP()
 * of @more adds (the skip, the trace turned on and cleared, and cleared by UE_TEARDOWN()).
 * False when the test is skipped: it returns.
 */
static inline bool ue_setup_more(struct __test_metadata *_metadata, int *flags, int more)
{
	if (ue_skip_reason(more))
		SKIP(return false, "%s", ue_skip_reason(more));
	*flags |= more;
	if (more & UE_TRACE)
		ASSERT_EQ(0, ue_tracing_on() ?: ue_trace_clear());
	return true;
}
#endif /* __KSELFTEST_HARNESS_H */

#endif /* _UE_UTIL_H */
