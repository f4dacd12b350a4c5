// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events: define, enable-check and write Linux user_events.
 *
 * Registration passes the command to the kernel unchanged, with
 * DIAG_IOCSREG naming bit 0 of the handle's first word as the enable bit:
 * the kernel alone decides what is a valid command, and its errno is the
 * answer.  The library reads the command only to learn the payload layout
 * that ue_write() needs; a command whose layout it cannot tell still
 * registers, for ue_write_raw().  Writes build a stack iovec array: the
 * write index, the
 * fixed fields (integers copied to a stack buffer, arrays and structs
 * referenced in place), then the data of the __data_loc/__rel_loc fields,
 * and hand it to one writev().
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
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "user_events.h"

#define UEL_EXPORT		__attribute__((visibility("default")))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The kernel ABI (include/uapi/linux/user_events.h), restated so the
 * library builds against any libc headers.  Both structures are packed.
 */
#pragma pack(push, 1)
struct uel_kreg {
	uint32_t size;
	uint8_t enable_bit;
	uint8_t enable_size;
	uint16_t flags;
	uint64_t enable_addr;
	uint64_t name_args;
	uint32_t write_index;
};

struct uel_kunreg {
	uint32_t size;
	uint8_t disable_bit;
	uint8_t reserved;
	uint16_t reserved2;
	uint64_t disable_addr;
};

#pragma pack(pop)

static_assert(sizeof(struct uel_kreg) == 28, "struct user_reg");
static_assert(sizeof(struct uel_kunreg) == 16, "struct user_unreg");

#define UEL_IOC_REG		_IOWR('*', 0, struct uel_kreg *)
#define UEL_IOC_DEL		_IOW('*', 1, char *)
#define UEL_IOC_UNREG		_IOW('*', 2, struct uel_kunreg *)

#define UEL_KFLAGS		(UE_FLAG_PERSIST | UE_FLAG_MULTI_FORMAT)
#define UEL_ALL_FLAGS		(UEL_KFLAGS | UE_FLAG_STRICT)

/*
 * Most fields the layout of a command can have: the kernel takes commands
 * of up to 511 bytes, and each field but the last needs at least five
 * ("u8 a;").  A longer list cannot come from a command the kernel took.
 */
#define UEL_FIELDS_MAX		128
/* Largest char[N]: the kernel's bound, and the zero padding we keep */
#define UEL_ARRAY_MAX		1024
/* The offset and the length in a location word are 16 bits each */
#define UEL_LOC_MAX		0xffff
/* Common fields of a trace record (struct trace_entry) before the payload */
#define UEL_HDR_SIZE		8
/* write index + fixed fields and their padding + dynamic data */
#define UEL_IOV_MAX		(1 + 2 * UEL_FIELDS_MAX + UEL_FIELDS_MAX)

enum uel_kind {
	UEL_SCALAR,
	UEL_CHARS,	/* char[N]: a string, NUL padded */
	UEL_BYTES,	/* unsigned char[N] */
	UEL_STRUCT,
	UEL_LOC_STR,	/* __data_loc / __rel_loc of a char type: a string */
	UEL_LOC_BLOB,	/* __data_loc / __rel_loc of another type: bytes */
};

struct uel_field {
	const char *name;
	const char *type;	/* its words joined by one space, as written */
	uint32_t offset;
	uint32_t size;
	uint8_t kind;
	uint8_t data_loc;	/* 1: __data_loc, 0: __rel_loc */
	uint8_t is_signed;
};

struct ue_session {
	int fd;
	struct ue_event *events;	/* registered events, under uel_lock */
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
	uint16_t nfields;
	bool raw_only;		/* layout unknown: ue_write_raw() only */
	const char *name;	/* in @buf */
	char *buf;		/* the command split up: names and types */
	struct uel_field fields[];
};

static pthread_mutex_t uel_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t uel_once = PTHREAD_ONCE_INIT;
static const char uel_zeros[UEL_ARRAY_MAX];

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

/* The registration ioctl; a variable so the tests can play old kernels. */
static int uel_kernel_reg(int fd, struct uel_kreg *reg)
{
	return ioctl(fd, UEL_IOC_REG, reg) == -1 ? -errno : 0;
}

static int (*uel_reg_ioctl)(int fd, struct uel_kreg *reg) = uel_kernel_reg;

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

/* ue_find_tracefs() on a given mounts table. */
static int uel_find_tracefs_in(const char *mounts, char *buf, size_t len)
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
	struct uel_kunreg unreg;

	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = 0;
	unreg.disable_addr = (uint64_t)(uintptr_t)&e->head.enabled;

	return ioctl(e->fd, UEL_IOC_UNREG, &unreg) == -1 ? -errno : 0;
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

/* ---------------------------------------------------------------------
 * Command parser: the layout the kernel will derive from the command
 */

static const struct {
	const char *name;
	uint8_t size;
} uel_scalars[] = {
	{ "u8", 1 }, { "s8", 1 }, { "char", 1 }, { "unsigned char", 1 },
	{ "u16", 2 }, { "s16", 2 }, { "short", 2 }, { "unsigned short", 2 },
	{ "u32", 4 }, { "s32", 4 }, { "int", 4 }, { "unsigned int", 4 },
	{ "u64", 8 }, { "s64", 8 },
};

/*
 * N of "char[N]": what follows '[' is at most 7 bytes and holds the ']';
 * N is decimal, 0x hexadecimal or 0 octal; anything after ']' is ignored.
 */
static int uel_array_len(const char *type, uint32_t *out)
{
	const char *num = strchr(type, '[') + 1;
	char digits[8], *end;
	const char *close;
	unsigned long v;
	size_t n;

	n = strnlen(num, sizeof(digits));
	close = memchr(num, ']', n);
	if (!n || n == sizeof(digits) || !close)
		return -EINVAL;
	n = close - num;
	memcpy(digits, num, n);
	digits[n] = '\0';
	end = digits + (digits[0] == '+');
	if (!isdigit((unsigned char)*end))
		return -EINVAL;
	errno = 0;
	v = strtoul(end, &end, 0);
	if (errno || *end || !v || v > UEL_ARRAY_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Size and kind of @f from its type, or -EINVAL if the type is unknown. */
static int uel_type_layout(struct uel_field *f, const char *size_word)
{
	const char *t = f->type;
	unsigned long long v;
	char *end;
	size_t i;

	f->is_signed = t[0] != 'u';
	if (!strncmp(t, "struct ", 7)) {
		if (!size_word || !isdigit((unsigned char)*size_word))
			return -EINVAL;
		errno = 0;
		v = strtoull(size_word, &end, 10);
		if (errno || *end || !v || v > UINT32_MAX)
			return -EINVAL;
		f->kind = UEL_STRUCT;
		f->size = v;
		return 0;
	}
	if (size_word)
		return -EINVAL;
	if (!strncmp(t, "__data_loc ", 11) || !strncmp(t, "__rel_loc ", 10)) {
		f->kind = strstr(t, "char") ? UEL_LOC_STR : UEL_LOC_BLOB;
		f->data_loc = t[2] == 'd';
		f->size = sizeof(uint32_t);
		return 0;
	}
	if (!strncmp(t, "char[", 5) || !strncmp(t, "unsigned char[", 14)) {
		f->kind = t[0] == 'c' ? UEL_CHARS : UEL_BYTES;
		return uel_array_len(t, &f->size);
	}
	for (i = 0; i < ARRAY_SIZE(uel_scalars); i++) {
		if (!strcmp(t, uel_scalars[i].name)) {
			f->kind = UEL_SCALAR;
			f->size = uel_scalars[i].size;
			return 0;
		}
	}
	return -EINVAL;
}

/* Split @s at white space into at most @max words; -EINVAL if more. */
static int uel_split(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -EINVAL;
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/*
 * One field from its words: the type (one word; two after "unsigned",
 * "struct", "__data_loc" and "__rel_loc"; three after "__data_loc
 * unsigned" and "__rel_loc unsigned"), the name, and a struct's size.
 * The type is written at @*types, its words joined by one space.  A
 * missing name is empty: the kernel takes a field ending with a space.
 */
static int uel_parse_field(char **tok, int ntok, struct uel_field *f,
			   char **types)
{
	int ntype = 1, i;

	memset(f, 0, sizeof(*f));
	if (!strcmp(tok[0], "__data_loc") || !strcmp(tok[0], "__rel_loc"))
		ntype = ntok > 1 && !strcmp(tok[1], "unsigned") ? 3 : 2;
	else if (!strcmp(tok[0], "unsigned") || !strcmp(tok[0], "struct"))
		ntype = 2;
	if (ntok < ntype || ntok > ntype + 1 + !strcmp(tok[0], "struct"))
		return -EINVAL;

	f->type = *types;
	for (i = 0; i < ntype; i++)
		*types += sprintf(*types, "%s%s", i ? " " : "", tok[i]);
	(*types)++;
	f->name = ntok > ntype ? tok[ntype] : "";
	return uel_type_layout(f, ntok > ntype + 1 ? tok[ntype + 1] : NULL);
}

/*
 * The payload layout of the command @cmd (split up in place) as the
 * kernel derives it: @fields (room for UEL_FIELDS_MAX), their types
 * written to @types (room for the length of @cmd plus one), the name.
 * Only commands the kernel took matter, so this follows its grammar
 * loosely: a registration of an existing name is compared with it word
 * by word, whatever white space separates the words.
 * Returns the number of fields, or -EINVAL when the layout is unknown.
 */
static int uel_parse(char *cmd, char *types, const char **name,
		     struct uel_field *fields, uint32_t *fixed)
{
	char *args, *part, *tok[6];
	uint64_t off = 0;
	int n = 0, ntok, ret;

	*name = cmd;
	*fixed = 0;
	/* the name is everything up to the first space */
	args = strchr(cmd, ' ');
	if (!args)
		return 0;
	*args++ = '\0';

	while ((part = strsep(&args, ";")) != NULL) {
		ntok = uel_split(part, tok, ARRAY_SIZE(tok));
		if (ntok < 0)
			return ntok;
		if (!ntok)
			continue;
		if (n == UEL_FIELDS_MAX)
			return -EINVAL;
		ret = uel_parse_field(tok, ntok, &fields[n], &types);
		if (ret)
			return ret;
		fields[n].offset = off;
		off += fields[n].size;
		if (off > UINT32_MAX)
			return -EINVAL;
		n++;
	}
	*fixed = off;
	return n;
}

/* ---------------------------------------------------------------------
 * Registration
 */

static int uel_kreg(struct ue_event *e, const char *cmd, unsigned int flags)
{
	struct uel_kreg reg;
	int ret;

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(e->head.enabled);
	reg.flags = flags;
	reg.enable_addr = (uint64_t)(uintptr_t)&e->head.enabled;
	reg.name_args = (uint64_t)(uintptr_t)cmd;
	reg.write_index = UINT32_MAX;

	ret = uel_reg_ioctl(e->fd, &reg);
	if (!ret)
		e->index = reg.write_index;
	return ret;
}

UEL_EXPORT int ue_register(struct ue_session *s, const char *command,
			   unsigned int flags, struct ue_event **out)
{
	struct uel_field tmp[UEL_FIELDS_MAX];
	unsigned int want, kflags;
	size_t len;
	struct ue_event *e;
	const char *name;
	uint32_t fixed;
	char *copy;
	int n, ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!s || !command || (flags & ~UEL_ALL_FLAGS))
		return -EINVAL;

	/* the command split up, then room for the types of its fields */
	len = strlen(command) + 1;
	copy = malloc(2 * len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, command, len);
	n = uel_parse(copy, copy + len, &name, tmp, &fixed);

	e = calloc(1, sizeof(*e) + (n > 0 ? n : 0) * sizeof(e->fields[0]));
	if (!e) {
		free(copy);
		return -ENOMEM;
	}
	/* The kernel reads @command itself; @copy keeps our names. */
	e->buf = copy;
	e->name = name;
	e->head.abi = UE_EVENT_ABI;
	e->session = s;
	e->fd = s->fd;
	e->raw_only = n < 0;
	if (n > 0) {
		e->nfields = n;
		e->fixed_size = fixed;
		memcpy(e->fields, tmp, n * sizeof(tmp[0]));
	}

	want = flags & UEL_KFLAGS;
	kflags = want;
	uel_lock_all();
	for (;;) {
		ret = uel_kreg(e, command, kflags);
		if (ret != -EINVAL || !kflags || (flags & UE_FLAG_STRICT))
			break;
		/* Drop the newest flag first: MULTI_FORMAT (6.10), PERSIST (6.6) */
		if (kflags & UE_FLAG_MULTI_FORMAT)
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

/* ---------------------------------------------------------------------
 * Finding the event in tracefs
 */

static char *uel_read_file(const char *path)
{
	size_t cap = 4096, used = 0;
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

/*
 * Compare types, ignoring what is inside brackets: format files print
 * "char name[]" or "char name[4]" for a char[4] field, depending on the
 * kernel; the field size is compared separately.
 */
static bool uel_type_eq(const char *a, const char *b)
{
	for (;;) {
		if (*a == '[' && *b == '[') {
			a = strchr(a, ']');
			b = strchr(b, ']');
			if (!a || !b)
				return false;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * Does the format file text @fmt describe exactly the fields of @e?
 * Lines: "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;"
 */
static bool uel_format_matches(const struct ue_event *e, char *fmt)
{
	char *line, *save, *decl, *end, *fname, *br;
	char type[1024];
	unsigned int i = 0, off, size;

	for (line = strtok_r(fmt, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const struct uel_field *f;

		decl = strstr(line, "field:");
		if (!decl)
			continue;
		decl += strlen("field:");
		end = strchr(decl, ';');
		if (!end)
			return false;
		*end = '\0';
		if (sscanf(end + 1, " offset:%u; size:%u;", &off, &size) != 2)
			return false;
		fname = strrchr(decl, ' ');
		if (!fname)
			return false;
		*fname++ = '\0';
		if (!strncmp(fname, "common_", 7))
			continue;
		if (i == e->nfields)
			return false;
		f = &e->fields[i++];
		/* "char name[16]" is the type "char[16]" */
		br = strchr(fname, '[');
		snprintf(type, sizeof(type), "%s%s", decl, br ? br : "");
		if (br)
			*br = '\0';
		if (strcmp(fname, f->name) || !uel_type_eq(type, f->type) ||
		    off != UEL_HDR_SIZE + (unsigned int)f->offset || size != f->size)
			return false;
	}
	return i == e->nfields;
}

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
		n = snprintf(buf, len, "user_events/%s", e->name);
		return n >= (int)len ? -ENAMETOOLONG : n;
	}

	/* the versions are told apart by their fields */
	if (e->raw_only)
		return -EOPNOTSUPP;
	snprintf(path, sizeof(path), "%s/events/user_events_multi", tracefs);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, e->name, nlen) || d->d_name[nlen] != '.' ||
		    strlen(d->d_name) >= sizeof(found))
			continue;
		snprintf(path, sizeof(path), "%s/events/user_events_multi/%s/format",
			 tracefs, d->d_name);
		fmt = uel_read_file(path);
		if (!fmt)
			continue;
		if (uel_format_matches(e, fmt))
			uel_copy(found, sizeof(found), d->d_name);
		free(fmt);
		if (found[0])
			break;
	}
	closedir(dir);
	if (!found[0])
		return -ENOENT;
	n = snprintf(buf, len, "user_events_multi/%s", found);
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

struct uel_writer {
	struct iovec iov[UEL_IOV_MAX];
	struct iovec dyn[UEL_FIELDS_MAX];
	uint32_t locs[UEL_FIELDS_MAX];
	uint64_t scalars[UEL_FIELDS_MAX];
	unsigned int niov, ndyn;
	size_t dyn_size;
};

static void uel_add(struct iovec *iov, unsigned int *n, const void *p,
		    size_t len)
{
	iov[*n].iov_base = (void *)p;
	iov[*n].iov_len = len;
	(*n)++;
}

/* Store an integer of f->size bytes, in host byte order, in @slot. */
static const void *uel_scalar(uint64_t *slot, const struct uel_field *f,
			      uint64_t v)
{
	uint8_t v8 = v;
	uint16_t v16 = v;
	uint32_t v32 = v;

	switch (f->size) {
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

static int uel_emit(const struct ue_event *e, const struct ue_value *vals)
{
	struct uel_writer w;
	unsigned int i;
	size_t len;
	ssize_t ret;

	w.niov = 0;
	w.ndyn = 0;
	w.dyn_size = 0;
	uel_add(w.iov, &w.niov, &e->index, sizeof(e->index));

	for (i = 0; i < e->nfields; i++) {
		const struct uel_field *f = &e->fields[i];
		const struct ue_value *v = &vals[i];
		const void *data;
		size_t at;

		switch (f->kind) {
		case UEL_SCALAR:
			uel_add(w.iov, &w.niov,
				uel_scalar(&w.scalars[i], f, v->u), f->size);
			break;
		case UEL_CHARS:
			len = v->p ? strnlen((const char *)v->p, f->size - 1) : 0;
			if (len)
				uel_add(w.iov, &w.niov, v->p, len);
			uel_add(w.iov, &w.niov, uel_zeros, f->size - len);
			break;
		case UEL_BYTES:
		case UEL_STRUCT:
			if (!v->p)
				return -EFAULT;
			uel_add(w.iov, &w.niov, v->p, f->size);
			break;
		default:	/* __data_loc / __rel_loc */
			data = v->p;
			if (f->kind == UEL_LOC_STR) {
				/* NULL is the empty string */
				len = data ? strlen(data) + 1 : 1;
				if (!data)
					data = uel_zeros;
			} else {
				if (!data && v->len)
					return -EFAULT;
				len = v->len;
			}
			at = e->fixed_size + w.dyn_size;
			if (f->data_loc)
				at += UEL_HDR_SIZE;
			else
				at -= f->offset + sizeof(uint32_t);
			if (len > UEL_LOC_MAX || at > UEL_LOC_MAX)
				return -E2BIG;
			w.locs[i] = (uint32_t)len << 16 | at;
			uel_add(w.iov, &w.niov, &w.locs[i], sizeof(uint32_t));
			if (len)
				uel_add(w.dyn, &w.ndyn, data, len);
			w.dyn_size += len;
			break;
		}
	}

	memcpy(&w.iov[w.niov], w.dyn, w.ndyn * sizeof(w.dyn[0]));
	w.niov += w.ndyn;

	ret = writev(e->fd, w.iov, w.niov);
	return ret < 0 ? -errno : 0;
}

UEL_EXPORT int ue_write_values(const struct ue_event *e,
			       const struct ue_value *vals, unsigned int nvals)
{
	if (!e || nvals != e->nfields || (nvals && !vals))
		return -EINVAL;
	if (e->raw_only)
		return -EOPNOTSUPP;
	return uel_emit(e, vals);
}

UEL_EXPORT int ue_write(const struct ue_event *e, ...)
{
	struct ue_value vals[UEL_FIELDS_MAX];
	unsigned int i;
	va_list ap;

	if (!e)
		return -EINVAL;
	if (e->raw_only)
		return -EOPNOTSUPP;

	va_start(ap, e);
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
	va_end(ap);

	return uel_emit(e, vals);
}

UEL_EXPORT int ue_write_raw(const struct ue_event *e, const struct iovec *iov,
			    unsigned int iovcnt)
{
	struct iovec v[1024];
	ssize_t ret;

	if (!e || iovcnt >= 1024 || (iovcnt && !iov))
		return -EINVAL;
	v[0].iov_base = (void *)&e->index;
	v[0].iov_len = sizeof(e->index);
	memcpy(&v[1], iov, iovcnt * sizeof(*iov));

	ret = writev(e->fd, v, iovcnt + 1);
	return ret < 0 ? -errno : 0;
}

UEL_EXPORT int ue_delete(struct ue_session *s, const char *name)
{
	char path[PATH_MAX + 32];
	int fd, ret = 0;

	if (!s || !name)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/user_events_data", s->tracefs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, UEL_IOC_DEL, name) == -1)
		ret = -errno;
	close(fd);
	return ret;
}
