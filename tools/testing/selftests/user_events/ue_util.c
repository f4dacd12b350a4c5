// SPDX-License-Identifier: GPL-2.0
/* Helpers of the user_events selftests; see ue_util.h. */
#include "ue_util.h"

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <linux/vhost.h>

/* Bound of a tool run by ue_run_tool(): a failure bound only */
#define UE_TOOL_SECS	300
#define UE_ARGS_MAX	32

/* ue_tpath() into a buffer that lives until the end of the enclosing block */
#define UE_TP(...)	ue_tpath((char [PATH_MAX]) { 0 }, PATH_MAX, __VA_ARGS__)

/* @cond's last value, polled @us apart (0: yield) for at most @secs: a failure bound only */
#define UE_POLL(cond, secs, us)						\
({									\
	double __end = ue_now() + (secs);				\
	unsigned int __us = (us);					\
	bool __ok;							\
									\
	while (!(__ok = (cond)) && ue_now() < __end)			\
		__us ? usleep(__us) : sched_yield();			\
	__ok;								\
})

/* Does tracefs mounted at @dir have user_events_data? */
static bool ue_has_data(const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/user_events_data", dir);
	return !access(path, F_OK);
}

/*
 * The first tracefs mount in /proc/mounts with user_events_data, else the first one; without
 * one, mount the standard place.
 */
static const char *ue_tracefs(void)
{
	static char root[PATH_MAX];
	char line[PATH_MAX + 256], dir[PATH_MAX], type[32];
	FILE *f;

	if (root[0])
		return root;
	f = fopen("/proc/mounts", "re");
	while (f && fgets(line, sizeof(line), f)) {
		/* device, mount point, type: the width is PATH_MAX - 1 */
		if (sscanf(line, "%*s %4095s %31s", dir, type) != 2 || strcmp(type, "tracefs"))
			continue;
		if (!root[0] || ue_has_data(dir))
			snprintf(root, sizeof(root), "%s", dir);
		if (ue_has_data(root))
			break;
	}
	if (f)
		fclose(f);
	if (!root[0]) {
		snprintf(root, sizeof(root), "/sys/kernel/tracing");
		mount("nodev", root, "tracefs", 0, NULL);
	}
	return root;
}

char *ue_tpath(char *buf, size_t len, const char *fmt, ...)
{
	int n = snprintf(buf, len, "%s/", ue_tracefs());
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return buf;
}

int ue_write_str(const char *path, const char *val, int oflags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | oflags), ret = 0;
	ssize_t len = strlen(val);

	if (fd < 0)
		return -errno;
	if (len && write(fd, val, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/* realloc() that aborts the test program when out of memory */
static void *ue_realloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("ue_util");
		abort();
	}
	return p;
}

char *ue_read_all(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 0, used = 0;
	ssize_t got = 1;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	while (got > 0) {
		if (cap - used < 1024) {
			cap = cap ? cap * 2 : 4096;
			buf = ue_realloc(buf, cap);
		}
		got = read(fd, buf + used, cap - used - 1);
		used += got > 0 ? got : 0;
	}
	close(fd);
	if (got) {
		free(buf);
		return NULL;
	}
	buf[used] = '\0';
	return buf;
}

/* CLOCK_MONOTONIC in seconds, the clock of every bounded wait */
static double ue_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
}

double ue_elapsed(const struct timespec *start)
{
	return ue_now() - (start->tv_sec + start->tv_nsec / 1e9);
}

int ue_pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : cpu;
}

void ue_rt(bool on)
{
	struct sched_param rt = { .sched_priority = 1 }, other = { 0 };

	sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, on ? &rt : &other);
}

/* In a child: own a vhost-net device, register @cmd, exit with both open (ue_vhost_round()) */
static int vhost_owner(const char *cmd, uid_t uid)
{
	__u32 *word = ue_map_page(PROT_READ | PROT_WRITE);
	int vfd = open("/dev/vhost-net", O_RDWR | O_CLOEXEC), fd;

	if (vfd < 0)
		return errno == ENOENT || errno == ENODEV || errno == ENXIO ? UE_NO_VHOST : 2;
	fd = ue_open_data();
	if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
		return 10;
	if (ioctl(vfd, VHOST_SET_OWNER, NULL))
		return 3;
	if (!word || fd < 0 || ue_reg(fd, cmd, word, 4, 0, 0, NULL))
		return 5;
	return 0;
}

int ue_vhost_round(const char *cmd, uid_t uid)
{
	pid_t pid = fork();
	int status;

	if (!pid)
		_exit(vhost_owner(cmd, uid));
	return pid < 0 || waitpid(pid, &status, 0) != pid ? -1 : status;
}

pid_t ue_sock_fork(int *fd)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	close(sv[!!pid]);
	*fd = sv[!pid];
	return pid;
}

int ue_recv(int fd, void *buf, size_t len, int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, secs * 1000);

	if (ret <= 0)
		return ret ? -errno : -ETIMEDOUT;
	return recv(fd, buf, len, MSG_WAITALL) == (ssize_t)len ? 0 : -EPIPE;
}

void *ue_map_page(int prot)
{
	void *page = mmap(NULL, getpagesize(), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return page == MAP_FAILED ? NULL : page;
}

bool ue_available(void)
{
	return !access(UE_TP("user_events_data"), F_OK);
}

bool ue_upstream(int fd)
{
	return ioctl(fd, DIAG_IOCSBATCH, NULL) == -1 && errno == ENOTTY;
}

int ue_open_data(void)
{
	return open(UE_TP("user_events_data"), O_RDWR | O_CLOEXEC);
}

void ue_fill_reg(struct user_reg *reg, const char *cmd, void *addr, int size,
		 int bit, __u16 flags)
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

int ue_reg_raw(int fd, void *arg)
{
	return ioctl(fd, DIAG_IOCSREG, arg) == -1 ? -errno : 0;
}

int ue_bad_arg_size(int i, void *arg, __u32 size)
{
	const struct { __u32 size; int err; } sizes[] = {
		{ 0, EINVAL }, { 1, EINVAL }, { 4, EINVAL }, { size - 1, EINVAL },
		{ getpagesize() + 1, E2BIG }, { UINT32_MAX, E2BIG },
	};

	if (i >= ARRAY_SIZE(sizes))
		return 0;
	memcpy(arg, &sizes[i].size, sizeof(__u32));
	return sizes[i].err;
}

int ue_reg(int fd, const char *cmd, void *addr, int size, int bit, __u16 flags, __u32 *index)
{
	struct user_reg reg;
	int ret;

	ue_fill_reg(&reg, cmd, addr, size, bit, flags);
	ret = ue_reg_raw(fd, &reg);
	if (!ret && index)
		*index = reg.write_index;
	return ret;
}

struct ue_thread_reg {
	int fd, bit, ret;
	const char *cmd;
	void *addr;
};

static void *ue_thread_reg(void *arg)
{
	struct ue_thread_reg *r = arg;

	r->ret = ue_reg(r->fd, r->cmd, r->addr, 4, r->bit, 0, NULL);
	return NULL;
}

int ue_reg_in_thread(int fd, const char *cmd, void *addr, int bit)
{
	struct ue_thread_reg r = { fd, bit, -ECHILD, cmd, addr };
	pthread_t th;
	int err = pthread_create(&th, NULL, ue_thread_reg, &r);

	if (!err)
		err = pthread_join(th, NULL);
	return err ? -err : r.ret;
}

int ue_unreg(int fd, void *addr, int bit)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = bit,
		.disable_addr = (__u64)(uintptr_t)addr,
	};

	return ioctl(fd, DIAG_IOCSUNREG, &unreg) == -1 ? -errno : 0;
}

int ue_reg_once(const char *cmd, void *addr, __u16 flags)
{
	int fd = ue_open_data(), ret;

	if (fd < 0)
		return -errno;
	ret = ue_reg(fd, cmd, addr, 4, 0, flags, NULL) ?: ue_unreg(fd, addr, 0);
	close(fd);
	return ret;
}

int ue_del(int fd, const char *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name) == -1 ? -errno : 0;
}

int ue_del_name(const char *name)
{
	int fd = ue_open_data(), ret;

	if (fd < 0)
		return -errno;
	ret = ue_del(fd, name);
	close(fd);
	return ret;
}

ssize_t ue_emit(int fd, __u32 idx, const void *payload, size_t len)
{
	struct iovec io[2] = {
		{ .iov_base = &idx, .iov_len = sizeof(idx) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	ssize_t ret = writev(fd, io, len ? 2 : 1);

	return ret < 0 ? -errno : ret;
}

__u64 ue_word_read(const void *addr, int size)
{
	if (size == 8)
		return __atomic_load_n((const __u64 *)addr, __ATOMIC_ACQUIRE);
	return __atomic_load_n((const __u32 *)addr, __ATOMIC_ACQUIRE);
}

bool ue_bit_set(const void *addr, int size, int bit)
{
	return ue_word_read(addr, size) >> bit & 1;
}

const struct ue_en_case ue_en_cases[UE_EN_CASES] = {
	{ .size = 4, .bit = 0, .offset = 0 },
	{ .size = 4, .bit = 7, .offset = 8 },
	{ .size = 4, .bit = 31, .offset = 16 },
	{ .size = 4, .bit = 0, .offset = 4 },
	{ .size = 4, .bit = 17, .offset = 20 },
	{ .size = 4, .bit = 31, .offset = 12 },
	{ .size = 8, .bit = 0, .offset = 0 },
	{ .size = 8, .bit = 31, .offset = 8 },
	{ .size = 8, .bit = 32, .offset = 16 },
	{ .size = 8, .bit = 63, .offset = 24 },
};

void ue_en_case(struct ue_en_word *w, char *base, int i, const char *prefix, const char *fields)
{
	const struct ue_en_case *c = &ue_en_cases[i];

	w->val = base + i * UE_EN_CASE_SPAN + c->offset;
	w->size = c->size;
	w->bit = c->bit;
	w->other = UE_FILLER64 & (c->size == 8 ? ~0ull : 0xffffffffull) & ~(1ull << c->bit);
	if (c->size == 8)
		*(__u64 *)w->val = w->other;
	else
		*(__u32 *)w->val = w->other;
	snprintf(w->name, sizeof(w->name), "%s_%d", prefix, i);
	snprintf(w->cmd, sizeof(w->cmd), "%s %s", w->name, fields);
}

bool ue_wait_bit(const void *addr, int size, int bit, bool want)
{
	return UE_POLL(ue_bit_set(addr, size, bit) == want, UE_WAIT_SECS, 0);
}

void ue_rec_init(struct ue_rec *r)
{
	r->fixed = 0;
	r->dyn = 0;
	r->nlocs = 0;
	r->overflow = false;
}

/* @n more bytes of fixed fields, or NULL (and an overflow) */
static char *ue_rec_room(struct ue_rec *r, size_t n)
{
	char *p = r->buf + r->fixed;

	if (r->overflow || n > sizeof(r->buf) - r->fixed) {
		r->overflow = true;
		return NULL;
	}
	r->fixed += n;
	return p;
}

void ue_rec_bytes(struct ue_rec *r, const void *p, size_t n)
{
	char *dst = ue_rec_room(r, n);

	if (dst)
		memcpy(dst, p, n);
}

void ue_rec_u8(struct ue_rec *r, __u8 v)
{
	ue_rec_bytes(r, &v, sizeof(v));
}

void ue_rec_u16(struct ue_rec *r, __u16 v)
{
	ue_rec_bytes(r, &v, sizeof(v));
}

void ue_rec_u32(struct ue_rec *r, __u32 v)
{
	ue_rec_bytes(r, &v, sizeof(v));
}

void ue_rec_u64(struct ue_rec *r, __u64 v)
{
	ue_rec_bytes(r, &v, sizeof(v));
}

void ue_rec_chars(struct ue_rec *r, const char *s, size_t n)
{
	char *dst = ue_rec_room(r, n);

	if (dst && n) {
		memset(dst, 0, n);
		memcpy(dst, s, strnlen(s, n - 1));
	}
}

/* The string goes to data now, its word (0 until ue_rec_end()) among the fixed fields */
static void ue_rec_loc(struct ue_rec *r, const char *s, bool rel)
{
	size_t len = strlen(s) + 1;

	if (r->nlocs == UE_REC_LOCS || len > sizeof(r->data) - r->dyn) {
		r->overflow = true;
		return;
	}
	r->locs[r->nlocs].word = r->fixed;
	r->locs[r->nlocs].at = r->dyn;
	r->locs[r->nlocs].len = len;
	r->locs[r->nlocs++].rel = rel;
	memcpy(r->data + r->dyn, s, len);
	r->dyn += len;
	ue_rec_u32(r, 0);
}

void ue_rec_data_loc(struct ue_rec *r, const char *s)
{
	ue_rec_loc(r, s, false);
}

void ue_rec_rel_loc(struct ue_rec *r, const char *s)
{
	ue_rec_loc(r, s, true);
}

/*
 * The strings after the fixed fields, and each word (length << 16 | offset): __data_loc counts
 * from the record's start, UE_COMMON_SIZE bytes before the payload, __rel_loc from the end of
 * the word.  Offsets and lengths stay below UE_REC_MAX + UE_COMMON_SIZE: they fit in 16 bits.
 */
int ue_rec_end(struct ue_rec *r)
{
	__u32 at, word;
	int i;

	if (r->overflow || r->dyn > sizeof(r->buf) - r->fixed)
		return -E2BIG;
	for (i = 0; i < r->nlocs; i++) {
		at = r->fixed + r->locs[i].at;
		if (r->locs[i].rel)
			at -= r->locs[i].word + sizeof(word);
		else
			at += UE_COMMON_SIZE;
		word = r->locs[i].len << 16 | at;
		memcpy(r->buf + r->locs[i].word, &word, sizeof(word));
	}
	memcpy(r->buf + r->fixed, r->data, r->dyn);
	return r->fixed + r->dyn;
}

int ue_rec_write(int fd, __u32 idx, struct ue_rec *r)
{
	int len = ue_rec_end(r);
	ssize_t ret;

	if (len < 0)
		return len;
	ret = ue_emit(fd, idx, r->buf, len);
	if (ret < 0)
		return ret;
	return ret == len + (ssize_t)sizeof(idx) ? 0 : -EIO;
}

int ue_set_enable(const char *sys, const char *name, bool on)
{
	const char *path = name ? UE_TP("events/%s/%s/enable", sys, name) :
				  UE_TP("events/%s/enable", sys);

	return ue_write_str(path, on ? "1" : "0", 0);
}

bool ue_event_exists(const char *sys, const char *name)
{
	struct stat st;

	return !stat(UE_TP("events/%s/%s", sys, name), &st);
}

int ue_event_id(const char *sys, const char *name)
{
	char *text = ue_read_all(UE_TP("events/%s/%s/id", sys, name));
	int id = text ? atoi(text) : -errno;

	free(text);
	return id;
}

char *ue_format_read(const char *sys, const char *name)
{
	return ue_read_all(UE_TP("events/%s/%s/format", sys, name));
}

char *ue_cmd_name(char *buf, size_t len, const char *cmd)
{
	snprintf(buf, len, "%.*s", (int)strcspn(cmd, " :"), cmd);
	return buf;
}

bool ue_format_has(const char *sys, const char *name, const char *str)
{
	char *text = ue_format_read(sys, name);
	bool found = text && strstr(text, str);

	free(text);
	return found;
}

/* From the "field:DECL NAME[N];<tab>offset:O;<tab>size:S;" lines of the format file */
int ue_field_offset(const char *sys, const char *name, const char *field)
{
	char *text = ue_format_read(sys, name), *line, *save, *semi, *f;
	int off, size, ret = -ENOENT;

	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		f = strstr(line, "field:");
		semi = f ? strchr(f, ';') : NULL;
		if (!semi || sscanf(semi, "; offset:%d; size:%d", &off, &size) != 2)
			continue;
		*semi = '\0';
		f = strrchr(f, ' ') ? strrchr(f, ' ') + 1 : f + strlen("field:");
		f[strcspn(f, "[")] = '\0';
		if (field && !strcmp(f, field)) {
			ret = off;
			break;
		}
		if (!field && !strncmp(f, "common_", 7) && off + size > ret)
			ret = off + size;
	}
	free(text);
	return ret;
}

int ue_entry_size(const char *sys, const char *name)
{
	return ue_field_offset(sys, name, NULL);
}

bool ue_is_version_of(const char *tp, const char *name)
{
	size_t nlen = strlen(name);
	const char *hex = tp + nlen + 1;

	return !strncmp(tp, name, nlen) && tp[nlen] == '.' && *hex &&
	       strspn(hex, "0123456789abcdefABCDEF") == strlen(hex);
}

int ue_multi_versions(const char *name, const char *field, char *tp, size_t len)
{
	DIR *dir = opendir(UE_TP("events/%s", UE_SYS_MULTI));
	struct dirent *de;
	int count = 0;

	while (dir && (de = readdir(dir))) {
		if (!ue_is_version_of(de->d_name, name))
			continue;
		count++;
		if (tp && (!field || ue_field_offset(UE_SYS_MULTI, de->d_name, field) >= 0))
			snprintf(tp, len, "%s", de->d_name);
	}
	if (dir)
		closedir(dir);
	return count;
}

int ue_tracing_on(void)
{
	return ue_write_str(UE_TP("tracing_on"), "1", 0);
}

int ue_trace_clear(void)
{
	return ue_write_str(UE_TP("trace"), "", O_TRUNC);
}

char *ue_trace_read(void)
{
	return ue_read_all(UE_TP("trace"));
}

/* The next trace line (strtok_r() of @text, @save) that holds @key; NULL at the end */
static char *ue_trace_next(char *text, char **save, const char *key)
{
	char *line;

	while ((line = strtok_r(text, "\n", save)) && (line[0] == '#' || !strstr(line, key)))
		text = NULL;
	return line;
}

int ue_trace_count(const char *name, char *last, size_t len)
{
	char *text = ue_trace_read(), *line, *save, key[UE_NAME_MAX + 3];
	int count = 0;

	if (!text)
		return -1;
	snprintf(key, sizeof(key), " %s:", name);
	for (line = ue_trace_next(text, &save, key); line; line = ue_trace_next(NULL, &save, key)) {
		if (last)
			snprintf(last, len, "%s", line);
		count++;
	}
	free(text);
	return count;
}

int ue_trace_seqs(const char *const *names, __u32 *seq, pid_t *pid, int max)
{
	char *text = ue_trace_read(), *line, *save, *p, key[UE_NAME_MAX + 3];
	const char *const *nm, *any = ": ";
	int n = 0;

	if (!text)
		return -1;
	for (line = ue_trace_next(text, &save, any); line; line = ue_trace_next(NULL, &save, any)) {
		for (nm = names; *nm; nm++) {
			snprintf(key, sizeof(key), " %s:", *nm);
			if (strstr(line, key))
				break;
		}
		if (!*nm)
			continue;
		p = strstr(line, " seq=");
		if (n >= max || !p) {
			n = -1;
			break;
		}
		seq[n] = strtoul(p + 5, NULL, 0);
		/* "  comm-PID  [CPU] ...": the pid ends where " [" starts */
		p = strstr(line, " [");
		while (p && p > line && p[-1] == ' ')
			p--;
		while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		pid[n++] = p ? atoi(p) : -1;
	}
	free(text);
	return n;
}

char *ue_status_read(void)
{
	return ue_read_all(UE_TP("user_events_status"));
}

bool ue_status_counts(int *active, int *busy)
{
	char *text = ue_status_read(), *p = text ? strstr(text, "\nActive: ") : NULL;
	bool ok = p && sscanf(p, "\nActive: %d\nBusy: %d", active, busy) == 2;

	free(text);
	return ok;
}

/* The line of tracefs @file whose first word is @prefix@name. */
static bool ue_line_of(const char *file, const char *prefix, const char *name, char *out,
		       size_t len)
{
	char *text = ue_read_all(UE_TP("%s", file)), *line, *save, *word;
	size_t plen = strlen(prefix);
	bool found = false;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		word = line + plen;
		if (strncmp(line, prefix, plen) || strncmp(word, name, strlen(name)))
			continue;
		word += strlen(name);
		found = !*word || *word == ' ';
		if (found)
			snprintf(out, len, "%s", line);
	}
	free(text);
	return found;
}

bool ue_status_line(const char *name, char *out, size_t len)
{
	return ue_line_of("user_events_status", "", name, out, len);
}

int ue_leftovers(const char *prefix, bool del, char *out, size_t len)
{
	static const char * const files[] = { "user_events_status", "dynamic_events" };
	static const char * const sys[] = { UE_SYS, UE_SYS_MULTI };
	size_t plen = strlen(prefix), pos = 0;
	char *text, *line, *save;
	struct dirent *de;
	int n = 0, i;
	DIR *d;

	out[0] = '\0';
	for (i = 0; i < 2; i++) {
		d = opendir(UE_TP("events/%s", sys[i]));
		while (d && (de = readdir(d)))
			if (!strncmp(de->d_name, prefix, plen) && ++n && pos < len)
				pos += snprintf(out + pos, len - pos, " %s/%s", sys[i], de->d_name);
		if (d)
			closedir(d);
	}
	for (i = 0; i < 2; i++) {
		text = ue_read_all(UE_TP("%s", files[i]));
		for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			line += i ? strcspn(line, ":") + 1 : 0;
			if (strncmp(line, prefix, plen))
				continue;
			line[strcspn(line, " ")] = '\0';
			if (++n && pos < len)
				pos += snprintf(out + pos, len - pos, " %s:%s", files[i], line);
			/* a multi-format NAME.ID is deleted by NAME */
			line[strcspn(line, ".")] = '\0';
			if (del && !i)
				ue_del_name(line);
		}
		free(text);
	}
	return n;
}

int ue_perf_open_cpu(int id, int cpu, bool exclude_kernel)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.config = id,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.wakeup_events = 1,
		.exclude_kernel = exclude_kernel,
	};

	return syscall(__NR_perf_event_open, &attr, cpu < 0 ? 0 : -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

int ue_perf_open(int id, bool exclude_kernel)
{
	return ue_perf_open_cpu(id, -1, exclude_kernel);
}

/* A metadata page, then UE_RING_PAGES of data */
#define UE_RING_PAGES	8

int ue_ring_map(struct ue_ring *r, int fd)
{
	r->size = getpagesize() * (1 + UE_RING_PAGES);
	r->base = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base != MAP_FAILED)
		return 0;
	r->base = NULL;
	return -errno;
}

void ue_ring_unmap(struct ue_ring *r)
{
	if (r->base)
		munmap(r->base, r->size);
	r->base = NULL;
}

/* Copy out of the ring's data pages, following the wrap-around. */
static void ue_ring_copy(struct ue_ring *r, __u64 pos, void *dst, size_t len)
{
	size_t page = getpagesize(), i;

	for (i = 0; i < len; i++)
		((char *)dst)[i] = r->base[page + (pos + i) % (r->size - page)];
}

__u32 ue_ring_next_raw(struct ue_ring *r, void *raw, size_t cap)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	__u64 head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = meta->data_tail;
	struct perf_event_header hdr;
	__u32 size = 0;

	for (; tail < head; tail += hdr.size) {
		ue_ring_copy(r, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;
		if (hdr.type != PERF_RECORD_SAMPLE)
			continue;
		ue_ring_copy(r, tail + sizeof(hdr), &size, sizeof(size));
		ue_ring_copy(r, tail + sizeof(hdr) + sizeof(size), raw, size < cap ? size : cap);
		tail += hdr.size;
		break;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return size;
}

unsigned long ue_userns_inum(void)
{
	struct stat st;

	return stat("/proc/self/ns/user", &st) ? 0 : st.st_ino;
}

char *ue_ns_system(char *buf, size_t len, unsigned long inum, bool multi)
{
	snprintf(buf, len, "%s_ns%lu", multi ? UE_SYS_MULTI : UE_SYS, inum);
	return buf;
}

/* Is @dir user_events_ns<INUM> or user_events_multi_ns<INUM>? */
static bool ue_is_ns_system(const char *dir)
{
	const char *p = dir + strlen(UE_SYS);

	if (strncmp(dir, UE_SYS, strlen(UE_SYS)))
		return false;
	p += strncmp(p, "_multi", 6) ? 0 : 6;
	return !strncmp(p, "_ns", 3) && p[3] && strspn(p + 3, "0123456789") == strlen(p + 3);
}

int ue_ns_systems(char *out, size_t len)
{
	DIR *d = opendir(UE_TP("events"));
	struct dirent *de;
	size_t pos = 0;
	int n = 0;

	if (len)
		out[0] = '\0';
	while (d && (de = readdir(d)))
		if (ue_is_ns_system(de->d_name) && ++n && pos < len)
			pos += snprintf(out + pos, len - pos, " %s", de->d_name);
	if (d)
		closedir(d);
	return n;
}

bool ue_wait_ns_systems_gone(char *out, size_t len)
{
	return UE_POLL(!ue_ns_systems(out, len), UE_WAIT_SECS, 10000);
}

bool ue_wait_gone(const char *sys, const char *name)
{
	const char *path = UE_TP("events/%s%s%s", sys, name ? "/" : "", name ?: "");
	struct stat st;

	return UE_POLL(stat(path, &st) != 0, UE_WAIT_SECS, 10000);
}

/* O_APPEND, as O_TRUNC would delete every event */
int ue_dyn_cmd(const char *cmd)
{
	return ue_write_str(UE_TP("dynamic_events"), cmd, O_APPEND);
}

int ue_dyn_add(const char *name, const char *fields)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "u:%s %s", name, fields);
	return ue_dyn_cmd(cmd);
}

int ue_dyn_del(const char *name)
{
	char cmd[300];
	int ret;

	snprintf(cmd, sizeof(cmd), "-:%s", name);
	UE_POLL((ret = ue_dyn_cmd(cmd)) != -EBUSY, UE_WAIT_SECS, 0);
	return ret;
}

bool ue_dyn_line(const char *name, char *out, size_t len)
{
	return ue_line_of("dynamic_events", "u:", name, out, len);
}

int ue_dyn_count(const char *want)
{
	char *text = ue_read_all(UE_TP("dynamic_events")), *line, *save;
	int n = 0;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += !strcmp(line, want);
	free(text);
	return n;
}

int ue_track_init(struct ue_track *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = ue_open_data();
	return t->fd < 0 ? -errno : 0;
}

static void ue_track_name(char ***list, int *n, const char *name)
{
	*list = ue_realloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = strdup(name);
}

int ue_track_reg_fd(struct ue_track *t, int fd, const char *cmd, void *addr,
		    int size, int bit, __u16 flags, __u32 *index)
{
	int ret = ue_reg(fd, cmd, addr, size, bit, flags, index);

	if (!ret) {
		t->regs = ue_realloc(t->regs, (t->nregs + 1) * sizeof(*t->regs));
		t->regs[t->nregs++] = (struct ue_track_reg){ fd, addr, bit };
	}
	return ret;
}

int ue_track_reg(struct ue_track *t, const char *cmd, void *addr, int size, int bit,
		 __u32 *index)
{
	return ue_track_reg_fd(t, t->fd, cmd, addr, size, bit, 0, index);
}

int ue_track_enable(struct ue_track *t, const char *sys, const char *name)
{
	int ret = ue_set_enable(sys, name, true);

	if (!ret)
		ue_track_name(&t->enabled, &t->nenabled, UE_TP("events/%s/%s/enable", sys, name));
	return ret;
}

void ue_track_del(struct ue_track *t, const char *name)
{
	ue_track_name(&t->dels, &t->ndels, name);
}

int ue_reg_enabled(struct ue_track *t, void *addr, const char *cmd, const char *name, int bit,
		   __u32 *index)
{
	int ret = ue_track_reg(t, cmd, addr, 4, bit, index);

	if (!ret)
		ret = ue_track_enable(t, UE_SYS, name);
	if (!ret && !ue_wait_bit(addr, 4, bit, true))
		ret = -ETIMEDOUT;
	return ret;
}

void ue_track_cleanup(struct ue_track *t)
{
	int i;

	for (i = 0; i < t->nenabled; i++) {
		ue_write_str(t->enabled[i], "0", 0);
		free(t->enabled[i]);
	}
	for (i = 0; i < t->nregs; i++)
		ue_unreg(t->regs[i].fd, t->regs[i].addr, t->regs[i].bit);
	if (t->fd >= 0)
		close(t->fd);
	for (i = 0; i < t->ndels; i++) {
		UE_POLL(ue_del_name(t->dels[i]) != -EBUSY, UE_WAIT_SECS, 0);
		free(t->dels[i]);
	}
	free(t->enabled);
	free(t->regs);
	free(t->dels);
	*t = (struct ue_track){ .fd = -1 };
}

const char *ue_skip_reason(int flags)
{
	if (!ue_available())
		return "user_events not available (CONFIG_USER_EVENTS?)";
	if ((flags & UE_ROOT) && geteuid())
		return "needs root (tracefs, dynamic_events, CAP_PERFMON)";
	return NULL;
}

int ue_fixture_init(struct ue_track *t, char **page, int *perf_fd, int flags)
{
	int ret;

	*perf_fd = -1;
	*page = ue_map_page(PROT_READ | PROT_WRITE);
	ret = ue_track_init(t) ?: (*page ? 0 : -ENOMEM);
	if (!ret && (flags & UE_TRACE))
		ret = ue_tracing_on() ?: ue_trace_clear();
	return ret;
}

void ue_fixture_fini(struct ue_track *t, char *page, int perf_fd, int flags)
{
	if (perf_fd >= 0)
		close(perf_fd);
	ue_track_cleanup(t);
	if (flags & UE_TRACE)
		ue_trace_clear();
	if (page)
		munmap(page, getpagesize());
}

/* In the child: 0..254 is -(what @fn returned), 255 that it could not run @fn */
int ue_run_without_caps(const int *caps, int ncaps, int (*fn)(void *), void *arg)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i, ret, status;
	pid_t pid = fork();

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

int ue_cb_del(void *name)
{
	return ue_del_name(name);
}

int ue_cb_dyn(void *cmd)
{
	return ue_dyn_cmd(cmd);
}

int ue_cb_reg(void *cmd)
{
	static __u32 word;

	return ue_reg_once(cmd, &word, 0);
}

/* The tracefs root and user_events_data, the bits ue_share_data() adds */
static const struct {
	const char *file;
	mode_t add;
} ue_shared[] = { { "", 0001 }, { "user_events_data", 0006 } };

int ue_share_data(struct ue_share *s)
{
	const char *path;
	struct stat st;

	for (s->nsaved = 0; s->nsaved < ARRAY_SIZE(ue_shared); s->nsaved++) {
		path = UE_TP("%s", ue_shared[s->nsaved].file);
		if (stat(path, &st))
			return -errno;
		s->mode[s->nsaved] = st.st_mode & 07777;
		if (chmod(path, s->mode[s->nsaved] | ue_shared[s->nsaved].add))
			return -errno;
	}
	return 0;
}

void ue_share_undo(struct ue_share *s)
{
	while (s->nsaved > 0) {
		s->nsaved--;
		chmod(UE_TP("%s", ue_shared[s->nsaved].file), s->mode[s->nsaved]);
	}
}

long long ue_env(const char *name, long long def, long long min, long long max)
{
	const char *val = getenv(name);
	long long n = val ? strtoll(val, NULL, 0) : def;

	return n < min ? min : n > max ? max : n;
}

/* splitmix64 */
__u64 ue_rand(__u64 *state)
{
	__u64 x = *state += 0x9e3779b97f4a7c15ull;

	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

__u32 ue_rand_n(__u64 *state, __u32 n)
{
	return n ? ue_rand(state) % n : 0;
}

void ue_writer_text(char *buf, size_t len, int i)
{
	snprintf(buf, len, "seq=%d neg=%d val=%d tag=t%d dl=dl-%d rl=rl-%d",
		 i, -i, i * 1000 + 7, i, i, i);
}

/* Exit status: 0 ok, 2 register failed, 3 never enabled, 4 write failed */
static int ue_writer_main(int argc, char **argv)
{
	char cmd[600], tag[16], dl[32], rl[32];
	static __u32 enabled;
	struct ue_rec r;
	int fd, i, n, ret = 0;
	__u32 idx;

	if (argc < 4)
		return 1;
	n = atoi(argv[3]);
	snprintf(cmd, sizeof(cmd), "%s %s", argv[2], UE_WRITER_FIELDS);
	fd = ue_open_data();
	if (fd < 0)
		return 2;
	if (ue_reg(fd, cmd, &enabled, sizeof(enabled), 0, 0, &idx)) {
		close(fd);
		return 2;
	}
	if (!ue_wait_bit(&enabled, sizeof(enabled), 0, true))
		ret = 3;
	for (i = 0; !ret && i < n; i++) {
		snprintf(tag, sizeof(tag), "t%d", i);
		snprintf(dl, sizeof(dl), "dl-%d", i);
		snprintf(rl, sizeof(rl), "rl-%d", i);
		ue_rec_init(&r);
		ue_rec_u32(&r, i);
		ue_rec_u32(&r, -i);
		ue_rec_u64(&r, (__u64)i * 1000 + 7);
		ue_rec_chars(&r, tag, 8);
		ue_rec_data_loc(&r, dl);
		ue_rec_rel_loc(&r, rl);
		if (ue_rec_write(fd, idx, &r))
			ret = 4;
	}
	ue_unreg(fd, &enabled, 0);
	close(fd);
	return ret;
}

int ue_main(int argc, char **argv, int (*harness)(int, char **))
{
	if (argc > 1 && !strcmp(argv[1], UE_WRITER_ARG))
		return ue_writer_main(argc, argv);
	return harness(argc, argv);
}

const char *ue_self(void)
{
	static char self[PATH_MAX];

	/* zero-filled: readlink()'s result stays NUL-terminated */
	if (!self[0] && readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		self[0] = '\0';
	return self;
}

bool ue_have_tool(const char *prog)
{
	char path[PATH_MAX], *dirs = strdup(getenv("PATH") ?: "/usr/bin:/bin"), *dir, *save;
	bool found = false;

	for (dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, prog);
		found = !access(path, X_OK);
	}
	free(dirs);
	return found;
}

int ue_run_tool(const char *out, const char *prog, ...)
{
	const char *argv[UE_ARGS_MAX + 1] = { prog };
	int status, fd, n = 1;
	pid_t pid, got;
	va_list ap;

	va_start(ap, prog);
	while (n < UE_ARGS_MAX && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(out ?: "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir("/tmp"))
			_exit(126);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	UE_POLL((got = waitpid(pid, &status, WNOHANG)) != 0, UE_TOOL_SECS, 10000);
	if (!got) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (got != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int ue_count_str(const char *text, const char *needle)
{
	const char *p;
	int n = 0;

	for (p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

int ue_count_in(const char *path, const char *needle)
{
	char *text = ue_read_all(path);
	int n = text ? ue_count_str(text, needle) : -1;

	free(text);
	return n;
}

void ue_show_line(const char *tool, const char *path, const char *needle)
{
	char *text = ue_read_all(path), *hit = text ? strstr(text, needle) : NULL, *start = hit;

	while (hit && start > text && start[-1] != '\n')
		start--;
	if (hit)
		fprintf(stderr, "# %s: %.*s\n", tool, (int)(strchrnul(hit, '\n') - start), start);
	free(text);
}

void ue_dump(const char *path, int max_lines)
{
	char *text = ue_read_all(path), *line, *save;
	int n = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && n < max_lines;
	     line = strtok_r(NULL, "\n", &save), n++)
		fprintf(stderr, "#   | %s\n", line);
	free(text);
}

/* [*@start, *@end): the text of kernel function @func, from /proc/kallsyms; 0 or -errno */
static int ue_symbol_range(const char *func, unsigned long long *start, unsigned long long *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char name[UE_NAME_MAX], type;
	unsigned long long addr;

	if (!f)
		return -errno;
	*start = 0;
	*end = ULLONG_MAX;
	while (fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, name) == 3)
		if (!strcmp(name, func) && strchr("tT", type))
			*start = addr;
	rewind(f);
	while (*start && fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, name) == 3)
		if (addr > *start && addr < *end)
			*end = addr;
	fclose(f);
	return *start && *end != ULLONG_MAX ? 0 : -EOPNOTSUPP;
}

/* Write @val to attribute @attr of fault injection @kind: 0 or -errno */
static int ue_fail_set(const char *kind, const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", kind, attr);
	return ue_write_str(path, val, 0);
}

int ue_fail_start(const char *kind, const char *func, int times)
{
	static const struct {
		const char *attr, *val;
		bool page_only;
	} set[] = {
		{ "task-filter", "N" }, { "ignore-gfp-wait", "N" }, { "space", "0" },
		{ "interval", "1" }, { "verbose", "0" }, { "stacktrace-depth", "32" },
		{ "ignore-gfp-highmem", "N", true }, { "min-order", "0", true },
	};
	unsigned long long start, end;
	char val[32];
	size_t i;
	int ret;

	if (ue_fail_set(kind, "require-start", "0") || ue_symbol_range(func, &start, &end))
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		ret = ue_fail_set(kind, set[i].attr, set[i].val);
		if (ret && !set[i].page_only)
			return ret;
	}
	snprintf(val, sizeof(val), "%#llx", start);
	ret = ue_fail_set(kind, "require-start", val);
	snprintf(val, sizeof(val), "%#llx", end);
	ret = ret ?: ue_fail_set(kind, "require-end", val);
	snprintf(val, sizeof(val), "%d", times);
	ret = ret ?: ue_fail_set(kind, "times", val);
	return ret ?: ue_fail_set(kind, "probability", "100");
}

int ue_fail_left(const char *kind)
{
	char path[128], *text;
	int left;

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", kind);
	text = ue_read_all(path);
	if (!text)
		return -errno;
	left = atoi(text);
	free(text);
	return left;
}

void ue_fail_stop(const char *kind)
{
	ue_fail_set(kind, "probability", "0");
	ue_fail_set(kind, "times", "1");
	ue_fail_set(kind, "require-start", "0");
	ue_fail_set(kind, "ignore-gfp-wait", "Y");
	ue_fail_set(kind, "ignore-gfp-highmem", "Y");
}
