// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events: define, enable-check and write Linux user_events.
 *
 * Registration passes the command to the kernel unchanged, with
 * DIAG_IOCSREG naming bit 0 of the handle's first word as the enable bit:
 * the kernel alone decides what is a valid command, and its errno is the
 * answer.  The library reads the command only to learn the payload layout
 * that ue_write() needs (parse.c); a command whose layout it cannot tell
 * still registers, for ue_write_raw().  Writes build a stack iovec array:
 * the write index, the fixed fields (integers copied to the stack, arrays
 * and structs referenced in place), then the data of the __data_loc and
 * __rel_loc fields, and hand it to one writev().
 *
 * A batch lays its records out the same way (uel_layout()) and copies
 * each into its buffer, [write index][payload], at once: the kernel takes
 * them all with DIAG_IOCSBATCH, or one write() each where it does not know
 * that ioctl.
 *
 * No kernel limit is restated here: the kernel's answer is final.  The
 * library's own bounds come from the ABI (a location word holds 16-bit
 * offsets and lengths, DIAG_IOCSBATCH takes USER_BATCH_MAX records) and
 * from writev() (IOV_MAX vectors per write).
 *
 * Locking: one library-wide mutex serialises registration, unregistration
 * and the session lists; it is held across fork() (pthread_atfork) so a
 * child never inherits it locked.  A handle is immutable once published,
 * so writes and ue_enabled() take no lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "internal.h"
#include "user_events.h"

#define UEL_EXPORT		__attribute__((visibility("default")))

#define UEL_KFLAGS		(UE_FLAG_PERSIST | UE_FLAG_MULTI_FORMAT | \
				 UE_FLAG_NOTIFY)
#define UEL_ALL_FLAGS		(UEL_KFLAGS | UE_FLAG_STRICT)

static_assert(UE_FLAG_PERSIST == USER_EVENT_REG_PERSIST, "flag values");
static_assert(UE_FLAG_MULTI_FORMAT == USER_EVENT_REG_MULTI_FORMAT,
	      "flag values");
static_assert(UE_FLAG_NOTIFY == USER_EVENT_REG_NOTIFY, "flag values");

/* A location word: the data's length and offset, 16 bits each (DYN_LOC) */
#define UEL_LOC_MAX		0xffff
/*
 * The common fields of a trace record, before the payload: __data_loc
 * offsets count from the record's start (Documentation/trace/user_events.rst).
 */
#define UEL_COMMON_SIZE		8
/*
 * The most fields ue_write() lays out: each takes up to three of the
 * IOV_MAX vectors of one writev() (value or string, padding, dynamic
 * data), after the write index.  Events with more are written raw.
 */
#define UEL_FIELDS_MAX		((IOV_MAX - 1) / 3)
/* Zero padding of char[N] up to this N; longer arrays bring their own */
#define UEL_ZEROS		256
/* A batch's buffer and record slots when ue_batch_open() is given 0 */
#define UEL_BATCH_BYTES		65536
#define UEL_BATCH_RECORDS	USER_BATCH_MAX

struct ue_session {
	int fd;
	int no_batch;		/* DIAG_IOCSBATCH failed with ENOTTY (atomic) */
	struct ue_event *events;	/* registered events, under uel_lock */
	uint32_t common_size;	/* of trace records, 0: not read yet */
	char tracefs[PATH_MAX];
};

struct ue_event {
	struct ue_event_head head;	/* must stay first: see ue_enabled() */
	struct ue_session *session;
	struct ue_event *prev, *next;
	int fd;
	uint32_t index;
	unsigned int flags, dropped;
	uint32_t fixed_size;
	uint32_t common_size;	/* where __data_loc offsets start */
	uint16_t nfields;
	uint16_t nvec;		/* writev() vectors of the fixed part */
	bool raw_only;		/* layout unknown: ue_write_raw() only */
	const char *name;	/* in @buf */
	const char *zeros;	/* padding of char[N]: uel_zeros or own */
	char *buf;		/* the command split up: names and types */
	struct uel_field fields[];
};

/*
 * Records laid out for one write each, in @buf: @recs[i] is the i-th
 * record, [write index][payload], as write() takes it and as
 * DIAG_IOCSBATCH takes an array of them.
 */
struct ue_batch {
	struct ue_session *session;
	unsigned int max;	/* record slots */
	unsigned int count;	/* records added since the last submit */
	unsigned int dropped;	/* by the last submit: not traced any more */
	size_t size, used;	/* bytes of @buf */
	struct iovec *recs;
	char *buf;
};

static pthread_mutex_t uel_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t uel_once = PTHREAD_ONCE_INIT;
static const char uel_zeros[UEL_ZEROS];

static void uel_atfork_prepare(void)
{
	pthread_mutex_lock(&uel_lock);
}

static void uel_atfork_release(void)
{
	pthread_mutex_unlock(&uel_lock);
}

static void uel_init(void)
{
	pthread_atfork(uel_atfork_prepare, uel_atfork_release,
		       uel_atfork_release);
}

static void uel_lock_all(void)
{
	pthread_once(&uel_once, uel_init);
	pthread_mutex_lock(&uel_lock);
}

static void uel_unlock_all(void)
{
	pthread_mutex_unlock(&uel_lock);
}

/* ---------------------------------------------------------------------
 * tracefs
 */

/* Undo the octal escapes of /proc/mounts (\040 for a space...) in place. */
static void uel_unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

static bool uel_has_file(const char *dir, const char *file)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

static int uel_copy(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s, n + 1);
	return 0;
}

int uel_find_tracefs_in(const char *mounts, char *buf, size_t len)
{
	char line[3 * PATH_MAX], first[PATH_MAX] = "", debug[PATH_MAX] = "";
	char *dev, *dir, *type, *save;
	int ret = -ENOENT;
	FILE *fp;

	fp = fopen(mounts, "re");
	if (!fp)
		return -errno;

	while (fgets(line, sizeof(line), fp)) {
		dev = strtok_r(line, " \t\n", &save);
		dir = dev ? strtok_r(NULL, " \t\n", &save) : NULL;
		type = dir ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!type || strlen(dir) >= PATH_MAX)
			continue;
		uel_unescape(dir);

		if (!strcmp(type, "tracefs")) {
			if (uel_has_file(dir, "user_events_data")) {
				ret = uel_copy(buf, len, dir);
				goto out;
			}
			if (!first[0])
				uel_copy(first, sizeof(first), dir);
		} else if (!strcmp(type, "debugfs") && !debug[0] &&
			   strlen(dir) + sizeof("/tracing") <= PATH_MAX) {
			snprintf(debug, sizeof(debug), "%s/tracing", dir);
		}
	}

	if (first[0]) {
		ret = uel_copy(buf, len, first);
	} else if (debug[0]) {
		struct stat st;

		if (stat(debug, &st) == 0 && S_ISDIR(st.st_mode))
			ret = uel_copy(buf, len, debug);
	}
out:
	fclose(fp);
	return ret;
}

/* The contents of the file @path, NUL-terminated; NULL and errno. */
static char *uel_read_file(const char *path)
{
	size_t cap = getpagesize(), used = 0;
	char *buf = NULL, *bigger;
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || cap - used < 512) {
			cap *= 2;
			bigger = realloc(buf, cap);
			if (!bigger)
				break;
			buf = bigger;
		}
		got = read(fd, buf + used, cap - used - 1);
		if (got <= 0) {
			if (got == 0) {
				buf[used] = '\0';
				close(fd);
				return buf;
			}
			break;
		}
		used += got;
	}
	free(buf);
	close(fd);
	return NULL;
}

UEL_EXPORT int ue_find_tracefs(char *buf, size_t len)
{
	if (!buf || !len)
		return -EINVAL;
	return uel_find_tracefs_in("/proc/mounts", buf, len);
}

/* ---------------------------------------------------------------------
 * Sessions
 */

UEL_EXPORT int ue_session_open(const char *tracefs, struct ue_session **out)
{
	char path[PATH_MAX + 32];
	struct ue_session *s;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;

	if (tracefs)
		ret = uel_copy(s->tracefs, sizeof(s->tracefs), tracefs);
	else
		ret = ue_find_tracefs(s->tracefs, sizeof(s->tracefs));
	if (ret)
		goto fail;

	snprintf(path, sizeof(path), "%s/user_events_data", s->tracefs);
	s->fd = open(path, O_RDWR | O_CLOEXEC);
	if (s->fd < 0) {
		ret = -errno;
		goto fail;
	}

	*out = s;
	return 0;
fail:
	free(s);
	return ret;
}

static int uel_unregister(struct ue_event *e)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = 0,
		.disable_addr = (uint64_t)(uintptr_t)&e->head.enabled,
	};

	return uel_ioctl(e->fd, DIAG_IOCSUNREG, &unreg);
}

static void uel_unlink(struct ue_event *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		e->session->events = e->next;
	if (e->next)
		e->next->prev = e->prev;
}

static void uel_free(struct ue_event *e)
{
	if (e->zeros != uel_zeros)
		free((void *)e->zeros);
	free(e->buf);
	free(e);
}

UEL_EXPORT void ue_session_close(struct ue_session *s)
{
	struct ue_event *e;

	if (!s)
		return;

	uel_lock_all();
	while ((e = s->events) != NULL) {
		uel_unregister(e);
		uel_unlink(e);
		uel_free(e);
	}
	uel_unlock_all();

	close(s->fd);
	free(s);
}

UEL_EXPORT const char *ue_session_tracefs(const struct ue_session *s)
{
	return s->tracefs;
}

UEL_EXPORT int ue_session_fd(const struct ue_session *s)
{
	return s->fd;
}

/*
 * user_events_data is readable while the count of enable changes of its
 * NOTIFY events is not 0, and read() takes the count.  A file without
 * NOTIFY registrations, or a kernel without them, is always ready and
 * answers read() with EINVAL.
 */
UEL_EXPORT int ue_session_wait(struct ue_session *s, int timeout_ms,
			       uint64_t *changes)
{
	uint64_t n;
	ssize_t got;
	int ret;

	if (!s || !changes)
		return -EINVAL;
	ret = uel_poll(s->fd, POLLIN, timeout_ms);
	if (ret < 0)
		return ret;
	if (!ret)
		return -ETIMEDOUT;
	got = uel_read(s->fd, &n, sizeof(n));
	if (got == -EINVAL)
		return -EOPNOTSUPP;
	if (got < 0)
		return got;
	if (got != sizeof(n))
		return -EIO;
	*changes = n;
	return 0;
}

/* ---------------------------------------------------------------------
 * Registration
 */

static int uel_kreg(struct ue_event *e, const char *cmd, unsigned int flags)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = 0,
		.enable_size = sizeof(e->head.enabled),
		.flags = flags,
		.enable_addr = (uint64_t)(uintptr_t)&e->head.enabled,
		.name_args = (uint64_t)(uintptr_t)cmd,
		.write_index = UINT32_MAX,
	};
	int ret;

	ret = uel_ioctl(e->fd, DIAG_IOCSREG, &reg);
	if (!ret)
		e->index = reg.write_index;
	return ret;
}

/*
 * Where the payload starts in a trace record: read from a format file
 * every kernel with tracing has (the trace_marker's), else the 8 bytes
 * of common fields the documentation gives.  Under uel_lock.
 */
static uint32_t uel_common_size(struct ue_session *s)
{
	char path[PATH_MAX + 32];
	char *fmt;

	if (s->common_size)
		return s->common_size;
	snprintf(path, sizeof(path), "%s/events/ftrace/print/format",
		 s->tracefs);
	fmt = uel_read_file(path);
	if (fmt)
		s->common_size = uel_format_common_size(fmt);
	free(fmt);
	if (!s->common_size)
		s->common_size = UEL_COMMON_SIZE;
	return s->common_size;
}

/* The event's handle, its fields parsed from @command (raw_only if not). */
static struct ue_event *uel_event_new(struct ue_session *s,
				      const char *command)
{
	unsigned int max = uel_count_fields(command), i;
	size_t len = strlen(command) + 1;
	uint32_t pad = 0;
	struct ue_event *e;
	int n;

	if (max > UEL_FIELDS_MAX)
		max = UEL_FIELDS_MAX;
	e = calloc(1, sizeof(*e) + max * sizeof(e->fields[0]));
	/* the command split up, then room for the types of its fields */
	if (e)
		e->buf = malloc(2 * len);
	if (!e || !e->buf) {
		free(e);
		return NULL;
	}
	memcpy(e->buf, command, len);
	n = uel_parse(e->buf, e->buf + len, &e->name, e->fields, max,
		      &e->fixed_size);
	e->head.abi = UE_EVENT_ABI;
	e->session = s;
	e->fd = s->fd;
	e->zeros = uel_zeros;
	e->raw_only = n < 0;
	e->nfields = n > 0 ? n : 0;
	for (i = 0; i < e->nfields; i++) {
		const struct uel_field *f = &e->fields[i];

		/* char[N]: the string, then its zero padding */
		e->nvec += f->kind == UEL_CHARS ? 2 : 1;
		if (f->kind == UEL_CHARS && f->size > pad)
			pad = f->size;
	}
	if (pad > sizeof(uel_zeros)) {
		e->zeros = calloc(1, pad);
		if (!e->zeros) {
			e->zeros = uel_zeros;
			uel_free(e);
			return NULL;
		}
	}
	return e;
}

static bool uel_has_data_loc(const struct ue_event *e)
{
	unsigned int i;

	for (i = 0; i < e->nfields; i++)
		if (e->fields[i].kind >= UEL_LOC_STR && e->fields[i].data_loc)
			return true;
	return false;
}

UEL_EXPORT int ue_register(struct ue_session *s, const char *command,
			   unsigned int flags, struct ue_event **out)
{
	unsigned int want, kflags;
	struct ue_event *e;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!s || !command || (flags & ~UEL_ALL_FLAGS))
		return -EINVAL;

	/* The kernel reads @command itself; the handle keeps our names. */
	e = uel_event_new(s, command);
	if (!e)
		return -ENOMEM;

	want = flags & UEL_KFLAGS;
	kflags = want;
	uel_lock_all();
	if (uel_has_data_loc(e))
		e->common_size = uel_common_size(s);
	for (;;) {
		ret = uel_kreg(e, command, kflags);
		if (ret != -EINVAL || !kflags || (flags & UE_FLAG_STRICT))
			break;
		/*
		 * Drop the newest flag first: NOTIFY (an extension),
		 * MULTI_FORMAT (6.10), PERSIST (6.6)
		 */
		if (kflags & UE_FLAG_NOTIFY)
			kflags &= ~UE_FLAG_NOTIFY;
		else if (kflags & UE_FLAG_MULTI_FORMAT)
			kflags &= ~UE_FLAG_MULTI_FORMAT;
		else
			kflags = 0;
	}
	if (!ret) {
		e->next = s->events;
		if (e->next)
			e->next->prev = e;
		s->events = e;
	}
	uel_unlock_all();

	if (ret) {
		uel_free(e);
		return ret;
	}
	e->flags = kflags;
	e->dropped = want & ~kflags;
	*out = e;
	return 0;
}

static const char * const uel_type_names[] = {
	[UE_TYPE_U8] = "u8", [UE_TYPE_S8] = "s8",
	[UE_TYPE_U16] = "u16", [UE_TYPE_S16] = "s16",
	[UE_TYPE_U32] = "u32", [UE_TYPE_S32] = "s32",
	[UE_TYPE_U64] = "u64", [UE_TYPE_S64] = "s64",
	[UE_TYPE_CHAR_ARRAY] = "char", [UE_TYPE_BYTE_ARRAY] = "unsigned char",
	[UE_TYPE_STRING] = "__rel_loc char[]",
	[UE_TYPE_DATA_LOC_STRING] = "__data_loc char[]",
	/* u8, not unsigned char: a dynamic char type is a C string */
	[UE_TYPE_BLOB] = "__rel_loc u8[]",
	[UE_TYPE_STRUCT] = "struct",
};

/* snprintf() that appends at @*pos and counts what did not fit. */
static void uel_put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	size_t at = *pos < len ? *pos : len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf ? buf + at : NULL, len - at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += n;
}

UEL_EXPORT int ue_format_command(char *buf, size_t len, const char *name,
				 const struct ue_field *fields,
				 unsigned int nfields)
{
	size_t pos = 0;
	unsigned int i;

	if (!name || (nfields && !fields) || (len && !buf))
		return -EINVAL;
	uel_put(buf, len, &pos, "%s", name);
	for (i = 0; i < nfields; i++) {
		const struct ue_field *f = &fields[i];

		if (!f->name || f->type < UE_TYPE_U8 || f->type > UE_TYPE_STRUCT)
			return -EINVAL;
		uel_put(buf, len, &pos, "%s", i ? "; " : " ");
		switch (f->type) {
		case UE_TYPE_CHAR_ARRAY:
		case UE_TYPE_BYTE_ARRAY:
			if (!f->size)
				return -EINVAL;
			uel_put(buf, len, &pos, "%s[%u] %s",
				uel_type_names[f->type], f->size, f->name);
			break;
		case UE_TYPE_STRUCT:
			if (!f->size)
				return -EINVAL;
			uel_put(buf, len, &pos, "struct %s %s %u",
				f->tag ? f->tag : f->name, f->name, f->size);
			break;
		default:
			uel_put(buf, len, &pos, "%s %s",
				uel_type_names[f->type], f->name);
			break;
		}
	}
	if (pos > INT_MAX)
		return -EINVAL;
	return (int)pos;
}

UEL_EXPORT int ue_register_fields(struct ue_session *s, const char *name,
				  const struct ue_field *fields,
				  unsigned int nfields, unsigned int flags,
				  struct ue_event **out)
{
	char *cmd;
	int len, ret;

	if (out)
		*out = NULL;
	len = ue_format_command(NULL, 0, name, fields, nfields);
	if (len < 0)
		return len;
	/* however long: the kernel says whether it takes it */
	cmd = malloc(len + 1);
	if (!cmd)
		return -ENOMEM;
	ue_format_command(cmd, len + 1, name, fields, nfields);
	ret = ue_register(s, cmd, flags, out);
	free(cmd);
	return ret;
}

UEL_EXPORT int ue_event_close(struct ue_event *e)
{
	int ret;

	if (!e)
		return 0;
	uel_lock_all();
	ret = uel_unregister(e);
	uel_unlink(e);
	uel_unlock_all();
	uel_free(e);
	return ret;
}

UEL_EXPORT const char *ue_event_name(const struct ue_event *e)
{
	return e->name;
}

UEL_EXPORT unsigned int ue_event_flags(const struct ue_event *e)
{
	return e->flags;
}

UEL_EXPORT unsigned int ue_event_dropped_flags(const struct ue_event *e)
{
	return e->dropped;
}

UEL_EXPORT uint32_t ue_event_write_index(const struct ue_event *e)
{
	return e->index;
}

UEL_EXPORT unsigned int ue_event_field_count(const struct ue_event *e)
{
	return e->nfields;
}

UEL_EXPORT int ue_event_loss(const struct ue_event *e, struct ue_loss *out)
{
	/* the counters a kernel does not fill stay 0 */
	struct user_loss k = { .size = sizeof(k) };
	int ret;

	if (!e || !out)
		return -EINVAL;
	k.write_index = e->index;
	ret = uel_ioctl(e->fd, DIAG_IOCGLOSS, &k);
	if (ret == -ENOTTY)
		return -EOPNOTSUPP;
	if (ret)
		return ret;
	out->written = k.written;
	out->lost_ftrace = k.lost_ftrace;
	out->lost_perf = k.lost_perf;
	out->lost_fault = k.lost_fault;
	out->lost_size = k.lost_size;
	return 0;
}

/* ---------------------------------------------------------------------
 * Finding the event in tracefs
 */

UEL_EXPORT int ue_event_tracepoint(const struct ue_event *e, char *buf,
				   size_t len)
{
	const char *tracefs = e->session->tracefs;
	char path[PATH_MAX + 512], found[512] = "";
	size_t nlen = strlen(e->name);
	struct dirent *d;
	char *fmt;
	DIR *dir;
	int n;

	if (!(e->flags & UE_FLAG_MULTI_FORMAT)) {
		n = snprintf(buf, len, USER_EVENTS_SYSTEM "/%s", e->name);
		return n >= (int)len ? -ENAMETOOLONG : n;
	}

	/* the versions are told apart by their fields */
	if (e->raw_only)
		return -EOPNOTSUPP;
	snprintf(path, sizeof(path), "%s/events/" USER_EVENTS_MULTI_SYSTEM,
		 tracefs);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, e->name, nlen) || d->d_name[nlen] != '.' ||
		    strlen(d->d_name) >= sizeof(found))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs,
			 USER_EVENTS_MULTI_SYSTEM, d->d_name);
		fmt = uel_read_file(path);
		if (!fmt)
			continue;
		if (uel_format_matches(e->fields, e->nfields, fmt))
			uel_copy(found, sizeof(found), d->d_name);
		free(fmt);
		if (found[0])
			break;
	}
	closedir(dir);
	if (!found[0])
		return -ENOENT;
	n = snprintf(buf, len, USER_EVENTS_MULTI_SYSTEM "/%s", found);
	return n >= (int)len ? -ENAMETOOLONG : n;
}

UEL_EXPORT int ue_event_trace_id(const struct ue_event *e)
{
	char tp[512], path[PATH_MAX + 600];
	char *text;
	int ret;

	ret = ue_event_tracepoint(e, tp, sizeof(tp));
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/events/%s/id", e->session->tracefs, tp);
	text = uel_read_file(path);
	if (!text)
		return -errno;
	ret = atoi(text);
	free(text);
	return ret > 0 ? ret : -EINVAL;
}

/* ---------------------------------------------------------------------
 * Writing
 */

/* Point @v at @len bytes at @p. */
static void uel_vec(struct iovec *v, const void *p, size_t len)
{
	v->iov_base = (void *)p;
	v->iov_len = len;
}

/* Store the low @size bytes of @v, in host byte order, in @slot. */
static const void *uel_scalar(uint64_t *slot, uint32_t size, uint64_t v)
{
	uint8_t v8 = v;
	uint16_t v16 = v;
	uint32_t v32 = v;

	switch (size) {
	case 1:
		memcpy(slot, &v8, 1);
		break;
	case 2:
		memcpy(slot, &v16, 2);
		break;
	case 4:
		memcpy(slot, &v32, 4);
		break;
	default:
		memcpy(slot, &v, 8);
		break;
	}
	return slot;
}

/*
 * The location word of a dynamic field whose data goes @dyn bytes after
 * the fixed part, or -E2BIG.  Its data and length are set in @data, @len.
 */
static int64_t uel_loc(const struct ue_event *e, const struct uel_field *f,
		       const struct ue_value *v, size_t dyn,
		       const void **data, size_t *len)
{
	size_t at = e->fixed_size + dyn;

	*data = v->p;
	if (f->kind == UEL_LOC_STR) {
		/* NULL is the empty string */
		*len = v->p ? strlen(v->p) + 1 : 1;
		if (!v->p)
			*data = uel_zeros;
	} else {
		if (!v->p && v->len)
			return -EFAULT;
		*len = v->len;
	}
	if (f->data_loc)
		at += e->common_size;
	else
		at -= f->offset + sizeof(uint32_t);
	if (*len > UEL_LOC_MAX || at > UEL_LOC_MAX)
		return -E2BIG;
	return (int64_t)(*len << 16 | at);
}

/*
 * Lay out the record of @vals as the kernel reads it, in @iov (IOV_MAX
 * vectors): the write index, the e->nvec vectors of the fixed part, then
 * the dynamic data.  Integers and location words are copied to @slots
 * (UEL_FIELDS_MAX); everything else stays where the caller has it.
 * ue_write() hands the vectors to writev(), a batch copies them.
 * Return: the number of vectors, or a negative errno.
 */
static int uel_layout(const struct ue_event *e, const struct ue_value *vals,
		      struct iovec *iov, uint64_t *slots)
{
	struct iovec *fixed = iov + 1, *dyn = fixed + e->nvec;
	size_t len, dyn_size = 0;
	const void *data;
	unsigned int i;
	int64_t loc;

	uel_vec(&iov[0], &e->index, sizeof(e->index));
	for (i = 0; i < e->nfields; i++) {
		const struct uel_field *f = &e->fields[i];
		const struct ue_value *v = &vals[i];

		switch (f->kind) {
		case UEL_SCALAR:
			uel_vec(fixed++, uel_scalar(&slots[i], f->size, v->u),
				f->size);
			break;
		case UEL_CHARS:
			len = v->p ? strnlen(v->p, f->size - 1) : 0;
			uel_vec(fixed++, v->p, len);
			uel_vec(fixed++, e->zeros, f->size - len);
			break;
		case UEL_BYTES:
		case UEL_STRUCT:
			if (!v->p)
				return -EFAULT;
			uel_vec(fixed++, v->p, f->size);
			break;
		default:	/* __data_loc / __rel_loc */
			loc = uel_loc(e, f, v, dyn_size, &data, &len);
			if (loc < 0)
				return loc;
			uel_vec(fixed++, uel_scalar(&slots[i], 4, loc), 4);
			uel_vec(dyn++, data, len);
			dyn_size += len;
			break;
		}
	}
	return dyn - iov;
}

static int uel_batch_put(struct ue_batch *b, const struct iovec *iov,
			 unsigned int n);

/*
 * The record of @vals, laid out once: written with one writev(), or
 * copied into @b (ue_batch_add()) if not NULL.
 */
static int uel_emit(const struct ue_event *e, const struct ue_value *vals,
		    struct ue_batch *b)
{
	uint64_t slots[UEL_FIELDS_MAX];
	struct iovec iov[IOV_MAX];
	int n;

	n = uel_layout(e, vals, iov, slots);
	if (n < 0)
		return n;
	if (b)
		return uel_batch_put(b, iov, n);
	return writev(e->fd, iov, n) < 0 ? -errno : 0;
}

/*
 * The arguments of ue_write() or ue_batch_add() after @e, in @ap, emitted
 * as uel_emit() does.
 */
static int uel_emit_args(const struct ue_event *e, va_list ap,
			 struct ue_batch *b)
{
	struct ue_value vals[UEL_FIELDS_MAX];
	unsigned int i;

	if (e->raw_only)
		return -EOPNOTSUPP;

	for (i = 0; i < e->nfields; i++) {
		const struct uel_field *f = &e->fields[i];

		vals[i].len = 0;
		switch (f->kind) {
		case UEL_SCALAR:
			if (f->size == 8)
				vals[i].u = va_arg(ap, uint64_t);
			else if (f->is_signed)
				vals[i].s = va_arg(ap, int);
			else
				vals[i].u = va_arg(ap, unsigned int);
			break;
		case UEL_LOC_BLOB:
			vals[i].p = va_arg(ap, const void *);
			vals[i].len = va_arg(ap, size_t);
			break;
		default:
			vals[i].p = va_arg(ap, const void *);
			break;
		}
	}
	return uel_emit(e, vals, b);
}

UEL_EXPORT int ue_write_values(const struct ue_event *e,
			       const struct ue_value *vals, unsigned int nvals)
{
	if (!e || nvals != e->nfields || (nvals && !vals))
		return -EINVAL;
	if (e->raw_only)
		return -EOPNOTSUPP;
	return uel_emit(e, vals, NULL);
}

UEL_EXPORT int ue_write(const struct ue_event *e, ...)
{
	va_list ap;
	int ret;

	if (!e)
		return -EINVAL;
	va_start(ap, e);
	ret = uel_emit_args(e, ap, NULL);
	va_end(ap);
	return ret;
}

/* The write index, then the caller's @iovcnt vectors, in @v (IOV_MAX). */
static void uel_raw_layout(const struct ue_event *e, const struct iovec *iov,
			   unsigned int iovcnt, struct iovec *v)
{
	uel_vec(&v[0], &e->index, sizeof(e->index));
	if (iovcnt)
		memcpy(&v[1], iov, iovcnt * sizeof(*iov));
}

UEL_EXPORT int ue_write_raw(const struct ue_event *e, const struct iovec *iov,
			    unsigned int iovcnt)
{
	struct iovec v[IOV_MAX];
	ssize_t ret;

	if (!e || iovcnt >= IOV_MAX || (iovcnt && !iov))
		return -EINVAL;
	uel_raw_layout(e, iov, iovcnt, v);

	ret = writev(e->fd, v, iovcnt + 1);
	return ret < 0 ? -errno : 0;
}

/* ---------------------------------------------------------------------
 * Batches
 */

UEL_EXPORT int ue_batch_open(struct ue_session *s, size_t bytes,
			     unsigned int max_records, struct ue_batch **out)
{
	struct ue_batch *b;
	size_t len;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!s)
		return -EINVAL;
	if (!bytes)
		bytes = UEL_BATCH_BYTES;
	if (!max_records)
		max_records = UEL_BATCH_RECORDS;
	/* ue_batch_submit() returns a count of records as an int */
	if (max_records > INT_MAX)
		return -EINVAL;

	/* the handle, then the record slots */
	if (__builtin_mul_overflow(max_records, sizeof(b->recs[0]), &len) ||
	    __builtin_add_overflow(len, sizeof(*b), &len))
		return -ENOMEM;
	b = calloc(1, len);
	if (!b)
		return -ENOMEM;
	b->buf = malloc(bytes);
	if (!b->buf) {
		free(b);
		return -ENOMEM;
	}
	b->recs = (struct iovec *)(b + 1);
	b->session = s;
	b->max = max_records;
	b->size = bytes;
	*out = b;
	return 0;
}

UEL_EXPORT void ue_batch_close(struct ue_batch *b)
{
	if (!b)
		return;
	free(b->buf);
	free(b);
}

UEL_EXPORT unsigned int ue_batch_count(const struct ue_batch *b)
{
	return b->count;
}

UEL_EXPORT unsigned int ue_batch_dropped(const struct ue_batch *b)
{
	return b->dropped;
}

/*
 * What every add checks first, in this order: the arguments, the session,
 * then the enable word, so that a record nobody would see costs nothing
 * more.
 */
static int uel_batch_check(const struct ue_batch *b, const struct ue_event *e)
{
	if (!b || !e || e->session != b->session)
		return -EINVAL;
	if (!ue_enabled(e))
		return -EBADF;
	return 0;
}

/*
 * Copy the record of the @n vectors of @iov into @b, contiguous, and take
 * a slot for it.  Return: 0, -EMSGSIZE (larger than the whole buffer),
 * -ENOSPC (no room left), -EFAULT (a vector without its bytes).
 */
static int uel_batch_put(struct ue_batch *b, const struct iovec *iov,
			 unsigned int n)
{
	size_t len = 0;
	unsigned int i;
	char *at;

	for (i = 0; i < n; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			return -EFAULT;
		/* len <= b->size all along: no overflow */
		if (iov[i].iov_len > b->size - len)
			return -EMSGSIZE;
		len += iov[i].iov_len;
	}
	if (b->count == b->max || len > b->size - b->used)
		return -ENOSPC;

	at = b->buf + b->used;
	uel_vec(&b->recs[b->count], at, len);
	for (i = 0; i < n; i++) {
		if (iov[i].iov_len)
			memcpy(at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	b->used += len;
	b->count++;
	return 0;
}

UEL_EXPORT int ue_batch_add(struct ue_batch *b, const struct ue_event *e, ...)
{
	va_list ap;
	int ret;

	ret = uel_batch_check(b, e);
	if (ret)
		return ret;
	va_start(ap, e);
	ret = uel_emit_args(e, ap, b);
	va_end(ap);
	return ret;
}

UEL_EXPORT int ue_batch_add_values(struct ue_batch *b,
				   const struct ue_event *e,
				   const struct ue_value *vals,
				   unsigned int nvals)
{
	int ret;

	ret = uel_batch_check(b, e);
	if (ret)
		return ret;
	if (nvals != e->nfields || (nvals && !vals))
		return -EINVAL;
	if (e->raw_only)
		return -EOPNOTSUPP;
	return uel_emit(e, vals, b);
}

UEL_EXPORT int ue_batch_add_raw(struct ue_batch *b, const struct ue_event *e,
				const struct iovec *iov, unsigned int iovcnt)
{
	struct iovec v[IOV_MAX];
	int ret;

	ret = uel_batch_check(b, e);
	if (ret)
		return ret;
	if (iovcnt >= IOV_MAX || (iovcnt && !iov))
		return -EINVAL;
	uel_raw_layout(e, iov, iovcnt, v);
	return uel_batch_put(b, v, iovcnt + 1);
}

/*
 * Write the records of @b from @from on, USER_BATCH_MAX at most: with one
 * DIAG_IOCSBATCH, or with one write() each on a kernel without it (which
 * fails the ioctl with ENOTTY: remembered for the session).
 * Return: the number of records written, from @from on, with *@err 0 or
 * the negative errno of the next one, as its write() would have failed;
 * or a negative errno when the call failed as a whole, nothing written.
 */
static int uel_batch_write(struct ue_batch *b, unsigned int from, int *err)
{
	struct ue_session *s = b->session;
	unsigned int n = b->count - from, i;
	struct user_batch ub;
	ssize_t w;
	int ret;

	if (n > USER_BATCH_MAX)
		n = USER_BATCH_MAX;
	*err = 0;
	if (!__atomic_load_n(&s->no_batch, __ATOMIC_RELAXED)) {
		memset(&ub, 0, sizeof(ub));
		ub.size = sizeof(ub);
		ub.count = n;
		ub.records = (uint64_t)(uintptr_t)&b->recs[from];
		ret = uel_ioctl(s->fd, DIAG_IOCSBATCH, &ub);
		if (ret != -ENOTTY) {
			if (ret < 0)
				return ret;
			if ((unsigned int)ret >= n)
				return n;
			/* a stop without a reason would be the kernel's bug */
			*err = ub.error > 0 ? -ub.error : -EIO;
			return ret;
		}
		__atomic_store_n(&s->no_batch, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < n; i++) {
		w = uel_write(s->fd, b->recs[from + i].iov_base,
			      b->recs[from + i].iov_len);
		if (w < 0) {
			*err = (int)w;
			break;
		}
	}
	return i;
}

/*
 * Records the kernel refuses with EBADF are of events nobody traces any
 * more: dropped, as ue_write() of them would have been, and the rest is
 * written.  Any other refusal ends the submission.
 */
UEL_EXPORT int ue_batch_submit(struct ue_batch *b, int *error)
{
	unsigned int done = 0;
	int n, err = 0;

	if (error)
		*error = 0;
	if (!b)
		return -EINVAL;
	b->dropped = 0;
	while (done < b->count) {
		n = uel_batch_write(b, done, &err);
		if (n < 0) {
			err = n;
			break;
		}
		done += n;
		if (err == -EBADF) {
			b->dropped++;
			done++;
			err = 0;
		} else if (err) {
			break;
		}
	}
	b->count = 0;
	b->used = 0;
	if (error)
		*error = err;
	return done;
}

UEL_EXPORT int ue_delete(struct ue_session *s, const char *name)
{
	char path[PATH_MAX + 32];
	int fd, ret;

	if (!s || !name)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/user_events_data", s->tracefs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = uel_ioctl(fd, DIAG_IOCSDEL, (void *)name);
	close(fd);
	return ret;
}
