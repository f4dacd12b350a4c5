/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user_events ABI selftests.
 *
 * Everything here talks to the kernel only through the documented ABI:
 * the tracefs files user_events_data / user_events_status, the per-event
 * tracefs directories and perf_event_open().  Functions return 0 or a
 * negative errno so tests can compare against the expected error directly.
 */
#ifndef _UE_TEST_UTIL_H
#define _UE_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

#define UE_SYS		"user_events"
#define UE_SYS_MULTI	"user_events_multi"

/* Upper bound for asynchronous enable-bit updates; a failure bound only. */
#define UE_WAIT_SECS	10

/* Number of registrations / enables / deletes one test may track. */
#define UE_TRACK_MAX	32
#define UE_NAME_MAX	256

/* Longest tracefs mount point we handle */
#define UE_ROOT_MAX	512

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* ---------------------------------------------------------------------
 * tracefs location and plain file helpers
 */

static inline bool ue_has_data_file(const char *root)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/user_events_data", root);
	return access(path, F_OK) == 0;
}

/*
 * Find the tracefs mount point: the first tracefs entry in /proc/mounts,
 * otherwise the standard /sys/kernel/tracing (mounting it there when we
 * are allowed to and nothing is mounted yet).
 */
static inline const char *ue_tracefs(void)
{
	static char root[UE_ROOT_MAX];
	char line[PATH_MAX + 256], first[UE_ROOT_MAX] = "";
	char dev[256], dir[UE_ROOT_MAX], type[64];
	FILE *mounts;

	if (root[0])
		return root;

	mounts = fopen("/proc/mounts", "r");
	if (mounts) {
		while (fgets(line, sizeof(line), mounts)) {
			if (sscanf(line, "%255s %511s %63s", dev, dir, type) != 3)
				continue;
			if (strcmp(type, "tracefs"))
				continue;
			if (ue_has_data_file(dir)) {
				snprintf(root, sizeof(root), "%s", dir);
				break;
			}
			if (!first[0])
				snprintf(first, sizeof(first), "%s", dir);
		}
		fclose(mounts);
	}

	if (!root[0] && first[0])
		snprintf(root, sizeof(root), "%s", first);

	if (!root[0]) {
		snprintf(root, sizeof(root), "/sys/kernel/tracing");
		if (!ue_has_data_file(root))
			mount("nodev", root, "tracefs", 0, NULL);
	}

	return root;
}

/* Build "<tracefs>/<fmt...>" into buf. */
static inline char *ue_tpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(buf, len, "%s/", ue_tracefs());
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);

	return buf;
}

static inline int ue_write_str(const char *path, const char *val, int oflags)
{
	ssize_t len = strlen(val);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | oflags);
	if (fd < 0)
		return -errno;

	if (len && write(fd, val, len) != len)
		ret = -errno;

	close(fd);
	return ret;
}

/* Read a whole file into a NUL-terminated malloc()ed buffer. */
static inline char *ue_read_all(const char *path)
{
	size_t cap = 4096, used = 0;
	char *buf, *bigger;
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;

	buf = malloc(cap);
	while (buf) {
		if (cap - used < 1024) {
			cap *= 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
		}

		got = read(fd, buf + used, cap - used - 1);
		if (got < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (got == 0)
			break;
		used += got;
	}

	if (buf)
		buf[used] = '\0';

	close(fd);
	return buf;
}

/* ---------------------------------------------------------------------
 * user_events_data ABI wrappers
 */

static inline bool ue_available(void)
{
	return ue_has_data_file(ue_tracefs());
}

static inline int ue_open_data(void)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "user_events_data");
	return open(path, O_RDWR | O_CLOEXEC);
}

static inline void ue_fill_reg(struct user_reg *reg, const char *cmd,
			       void *addr, int size, int bit, __u16 flags)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->enable_bit = bit;
	reg->enable_size = size;
	reg->flags = flags;
	reg->enable_addr = (__u64)(uintptr_t)addr;
	reg->name_args = (__u64)(uintptr_t)cmd;
	reg->write_index = UINT32_MAX;
}

/* Issue DIAG_IOCSREG on an already filled in (possibly odd) argument. */
static inline int ue_reg_raw(int fd, void *arg)
{
	return ioctl(fd, DIAG_IOCSREG, arg) == -1 ? -errno : 0;
}

static inline int ue_reg(int fd, const char *cmd, void *addr, int size,
			 int bit, __u16 flags, __u32 *index)
{
	struct user_reg reg;
	int ret;

	ue_fill_reg(&reg, cmd, addr, size, bit, flags);
	ret = ue_reg_raw(fd, &reg);
	if (!ret && index)
		*index = reg.write_index;

	return ret;
}

static inline int ue_unreg(int fd, void *addr, int bit)
{
	struct user_unreg unreg;

	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = bit;
	unreg.disable_addr = (__u64)(uintptr_t)addr;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg) == -1 ? -errno : 0;
}

static inline int ue_del(int fd, const char *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name) == -1 ? -errno : 0;
}

/*
 * Emit an event: writev() of the write index followed by the payload.
 * Returns the number of bytes written or -errno.
 */
static inline ssize_t ue_emit(int fd, __u32 idx, const void *payload,
			      size_t len)
{
	struct iovec io[2] = {
		{ .iov_base = &idx, .iov_len = sizeof(idx) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	ssize_t ret = writev(fd, io, len ? 2 : 1);

	return ret < 0 ? -errno : ret;
}

/* Delete through a private fd, so the caller's fd holds no reference. */
static inline int ue_del_name(const char *name)
{
	int fd = ue_open_data();
	int ret;

	if (fd < 0)
		return -errno;

	ret = ue_del(fd, name);
	close(fd);
	return ret;
}

/* ---------------------------------------------------------------------
 * Enable word helpers
 */

static inline bool ue_bit_set(const void *addr, int size, int bit)
{
	if (size == 8)
		return (__atomic_load_n((const uint64_t *)addr, __ATOMIC_ACQUIRE) >>
			bit) & 1;

	return (__atomic_load_n((const uint32_t *)addr, __ATOMIC_ACQUIRE) >>
		bit) & 1;
}

static inline double ue_elapsed(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) +
	       (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * The kernel may update an enable bit asynchronously (e.g. when the page
 * has to be faulted in first).  Poll, yielding the CPU, until the bit has
 * the wanted value; give up only after a generous bound.
 */
static inline bool ue_wait_bit(const void *addr, int size, int bit, bool want)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);

	while (ue_bit_set(addr, size, bit) != want) {
		if (ue_elapsed(&start) > UE_WAIT_SECS)
			return ue_bit_set(addr, size, bit) == want;
		sched_yield();
	}

	return true;
}

/* A fresh anonymous private page that has never been touched. */
static inline void *ue_map_page(int prot)
{
	void *page = mmap(NULL, getpagesize(), prot,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return page == MAP_FAILED ? NULL : page;
}

/* ---------------------------------------------------------------------
 * Per-event tracefs helpers
 */

static inline int ue_set_enable(const char *sys, const char *name, bool on)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "events/%s/%s/enable", sys, name);
	return ue_write_str(path, on ? "1" : "0", 0);
}

static inline bool ue_event_exists(const char *sys, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	ue_tpath(path, sizeof(path), "events/%s/%s", sys, name);
	return stat(path, &st) == 0;
}

static inline int ue_event_id(const char *sys, const char *name)
{
	char path[PATH_MAX];
	char *text;
	int id;

	ue_tpath(path, sizeof(path), "events/%s/%s/id", sys, name);
	text = ue_read_all(path);
	if (!text)
		return -errno;

	id = atoi(text);
	free(text);
	return id;
}

/*
 * Offset of a field inside the trace record, as published in the event's
 * format file ("field:<decl> <name>[N];<tab>offset:<o>;...").
 */
static inline int ue_field_offset(const char *sys, const char *name,
				  const char *field)
{
	char path[PATH_MAX], decl[256], *text, *line, *save, *end, *tok;
	int off, ret = -ENOENT;

	ue_tpath(path, sizeof(path), "events/%s/%s/format", sys, name);
	text = ue_read_all(path);
	if (!text)
		return -errno;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *decl_start = strstr(line, "field:");
		char *off_start = strstr(line, "offset:");

		if (!decl_start || !off_start)
			continue;

		decl_start += strlen("field:");
		end = strchr(decl_start, ';');
		if (!end || end - decl_start >= (long)sizeof(decl))
			continue;

		memcpy(decl, decl_start, end - decl_start);
		decl[end - decl_start] = '\0';

		/* The name is the last token, minus any array suffix. */
		tok = strrchr(decl, ' ');
		tok = tok ? tok + 1 : decl;
		end = strchr(tok, '[');
		if (end)
			*end = '\0';

		if (strcmp(tok, field))
			continue;

		if (sscanf(off_start, "offset:%d", &off) == 1)
			ret = off;
		break;
	}

	free(text);
	return ret;
}

/* ---------------------------------------------------------------------
 * Trace buffer and status helpers
 */

static inline int ue_tracing_on(void)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "tracing_on");
	return ue_write_str(path, "1", 0);
}

static inline int ue_trace_clear(void)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "trace");
	return ue_write_str(path, "", O_TRUNC);
}

static inline char *ue_trace_read(void)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "trace");
	return ue_read_all(path);
}

static inline char *ue_status_read(void)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "user_events_status");
	return ue_read_all(path);
}

/* The "Active: N" and "Busy: M" counters of user_events_status. */
static inline bool ue_status_counts(int *active, int *busy)
{
	char *text = ue_status_read(), *p;
	bool ok;

	if (!text)
		return false;
	p = strstr(text, "\nActive: ");
	ok = p && sscanf(p, "\nActive: %d\nBusy: %d", active, busy) == 2;
	free(text);
	return ok;
}

/*
 * Copy the line of @text that mentions @needle (first occurrence) into
 * @out.  Returns false when no line matches.
 */
static inline bool ue_find_line(const char *text, const char *needle,
				char *out, size_t len)
{
	const char *hit = text ? strstr(text, needle) : NULL;
	const char *start, *stop;

	if (!hit)
		return false;

	start = hit;
	while (start > text && start[-1] != '\n')
		start--;

	stop = strchr(hit, '\n');
	if (!stop)
		stop = hit + strlen(hit);

	snprintf(out, len, "%.*s", (int)(stop - start), start);
	return true;
}

/*
 * Look up an event's line in user_events_status.  The event name must be
 * the whole first word of the line.  Returns true and copies the line.
 */
static inline bool ue_status_line(const char *name, char *out, size_t len)
{
	char *text = ue_status_read();
	char *line, *save;
	size_t nlen = strlen(name);
	bool found = false;

	if (!text)
		return false;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, name, nlen))
			continue;
		if (line[nlen] != '\0' && line[nlen] != ' ')
			continue;

		snprintf(out, len, "%s", line);
		found = true;
		break;
	}

	free(text);
	return found;
}

/* ---------------------------------------------------------------------
 * perf helpers
 */

static inline int ue_perf_open(int id, bool exclude_kernel)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	attr.exclude_kernel = exclude_kernel;

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* ---------------------------------------------------------------------
 * Per-test resource tracking, so teardown can always leave a clean system
 */

struct ue_track {
	int fd;
	int nregs;
	struct {
		int fd;
		void *addr;
		int bit;
	} regs[UE_TRACK_MAX];
	int nenabled;
	char enabled[UE_TRACK_MAX][UE_NAME_MAX];
	int ndels;
	char dels[UE_TRACK_MAX][UE_NAME_MAX];
};

static inline int ue_track_init(struct ue_track *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = ue_open_data();
	return t->fd < 0 ? -errno : 0;
}

/* Register on @fd and remember (addr, bit) for the final unregister. */
static inline int ue_track_reg_fd(struct ue_track *t, int fd, const char *cmd,
				  void *addr, int size, int bit, __u16 flags,
				  __u32 *index)
{
	int ret = ue_reg(fd, cmd, addr, size, bit, flags, index);

	if (!ret && t->nregs < UE_TRACK_MAX) {
		t->regs[t->nregs].fd = fd;
		t->regs[t->nregs].addr = addr;
		t->regs[t->nregs].bit = bit;
		t->nregs++;
	}

	return ret;
}

static inline int ue_track_reg(struct ue_track *t, const char *cmd, void *addr,
			       int size, int bit, __u32 *index)
{
	return ue_track_reg_fd(t, t->fd, cmd, addr, size, bit, 0, index);
}

/* Enable an event via tracefs and remember to disable it again. */
static inline int ue_track_enable(struct ue_track *t, const char *sys,
				  const char *name)
{
	int ret = ue_set_enable(sys, name, true);

	if (!ret && t->nenabled < UE_TRACK_MAX)
		snprintf(t->enabled[t->nenabled++], UE_NAME_MAX, "%s/%s",
			 sys, name);

	return ret;
}

/* Remember an event name that must be deleted explicitly (persistent). */
static inline void ue_track_del(struct ue_track *t, const char *name)
{
	if (t->ndels < UE_TRACK_MAX)
		snprintf(t->dels[t->ndels++], UE_NAME_MAX, "%s", name);
}

/*
 * Undo everything: disable, unregister, close and delete.  Deleting may
 * transiently report EBUSY while the kernel drops its last references, so
 * it is retried for a bounded time.
 */
static inline void ue_track_cleanup(struct ue_track *t)
{
	char path[PATH_MAX];
	struct timespec start;
	int i;

	for (i = 0; i < t->nenabled; i++) {
		ue_tpath(path, sizeof(path), "events/%s/enable", t->enabled[i]);
		ue_write_str(path, "0", 0);
	}

	for (i = 0; i < t->nregs; i++)
		ue_unreg(t->regs[i].fd, t->regs[i].addr, t->regs[i].bit);

	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;

	for (i = 0; i < t->ndels; i++) {
		clock_gettime(CLOCK_MONOTONIC, &start);
		while (ue_del_name(t->dels[i]) == -EBUSY &&
		       ue_elapsed(&start) < UE_WAIT_SECS)
			sched_yield();
	}

	t->nenabled = 0;
	t->nregs = 0;
	t->ndels = 0;
}

/* ---------------------------------------------------------------------
 * dynamic_events and capabilities
 */

/* One command to dynamic_events; O_APPEND, as O_TRUNC deletes everything. */
static inline int ue_dyn_cmd(const char *cmd)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "dynamic_events");
	return ue_write_str(path, cmd, O_APPEND);
}

/* Copy the dynamic_events line whose first word is "u:<name>". */
static inline bool ue_dyn_line(const char *name, char *out, size_t len)
{
	char path[PATH_MAX], *text, *line, *save;
	size_t nlen = strlen(name);
	bool found = false;

	text = ue_read_all(ue_tpath(path, sizeof(path), "dynamic_events"));
	if (!text)
		return false;

	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "u:", 2) || strncmp(line + 2, name, nlen) ||
		    (line[nlen + 2] != '\0' && line[nlen + 2] != ' '))
			continue;
		snprintf(out, len, "%s", line);
		found = true;
	}

	free(text);
	return found;
}

/* Number of dynamic_events lines that read exactly @want. */
static inline int ue_dyn_count(const char *want)
{
	char path[PATH_MAX], *text, *line, *save;
	int n = 0;

	text = ue_read_all(ue_tpath(path, sizeof(path), "dynamic_events"));
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		n += !strcmp(line, want);
	free(text);
	return n;
}

/*
 * Run @fn(@arg) in a child process (same uid) that dropped the
 * capabilities @caps from its effective and permitted sets.  Returns what
 * @fn returned (0 or -errno), -ECHILD when the child could not run it.
 */
static inline int ue_run_without_caps(const int *caps, int ncaps,
				      int (*fn)(void *), void *arg)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i, ret, status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (syscall(SYS_capget, &hdr, data))
			_exit(255);
		for (i = 0; i < ncaps; i++) {
			data[CAP_TO_INDEX(caps[i])].effective &= ~CAP_TO_MASK(caps[i]);
			data[CAP_TO_INDEX(caps[i])].permitted &= ~CAP_TO_MASK(caps[i]);
		}
		if (syscall(SYS_capset, &hdr, data))
			_exit(255);
		ret = fn(arg);
		_exit(ret <= 0 && ret > -255 ? -ret : 255);
	}

	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -ECHILD;
	return -WEXITSTATUS(status);
}

#endif /* _UE_TEST_UTIL_H */
