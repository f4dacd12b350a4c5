// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events: every public function, its error paths, the flag
 * fallback for older kernels, batches with and without DIAG_IOCSBATCH,
 * fork and threads, on the running kernel; the argument checks, the
 * answers to older kernels and the batches also without one (fixtures
 * nokernel and fakebatch).
 *
 * Linked with libuser_events.a; old_kernel.o stands in for the library's
 * ioctls, poll, read and batch writes, and the mount table parser is
 * reached through internal.h.
 * The test's own view of tracefs (a few files read and written) is below;
 * it uses nothing of the library, so that it can judge it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "internal.h"
#include "old_kernel.h"
#include "user_events.h"

#define SYS		USER_EVENTS_SYSTEM "/"
#define LIB_MNT		"/tmp/uet lib mnt"
#define LIB_MOUNTS	"/tmp/uet_lib_mounts"
#define FAKE_DIR	"/tmp/uet_lib_fake"
#define FAKE_DATA	FAKE_DIR "/user_events_data"
#define WAIT_SECS	10
#define THREADS		8
#define THREAD_WRITES	50
#define THREAD_EVENTS	4

/* The persistent events the tests make: deleted by the teardown. */
static const char * const persistent[] = {
	"uet_lib_persist", "uet_lib_fb1", "uet_lib_fb4",
};

/* ---------------------------------------------------------------------
 * The test's view of tracefs
 */

static char tracefs[PATH_MAX];

/* The usual mount points, the first one with user_events. */
static bool tfs_find(void)
{
	static const char * const where[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		snprintf(path, sizeof(path), "%s/user_events_data", where[i]);
		if (!access(path, F_OK)) {
			snprintf(tracefs, sizeof(tracefs), "%s", where[i]);
			return true;
		}
	}
	return false;
}

/* Open the tracefs file named by @fmt. */
static int tfs_open(int flags, const char *fmt, ...)
{
	char rel[PATH_MAX], path[2 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	return open(path, flags | O_CLOEXEC);
}

/* Everything left to read on @fd, NUL-terminated; closes @fd. */
static char *tfs_slurp(int fd)
{
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
	char *text = NULL;
	size_t cap = 0;

	if (!fp) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* tracefs text holds no NUL: the one "line" is the whole file */
	if (getdelim(&text, &cap, '\0', fp) < 0) {
		free(text);
		text = ferror(fp) ? NULL : strdup("");
	}
	fclose(fp);
	return text;
}

/* Write @text to @fd and close it: 0 or -errno. */
static int tfs_put(int fd, const char *text)
{
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Enable or disable the tracepoint @tp ("system/name") for ftrace. */
static int tfs_enable(const char *tp, bool on)
{
	return tfs_put(tfs_open(O_WRONLY, "events/%s/enable", tp), on ? "1" : "0");
}

static bool tfs_exists(const char *tp)
{
	int fd = tfs_open(O_RDONLY | O_DIRECTORY, "events/%s", tp);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int tfs_id(const char *tp)
{
	char *text = tfs_slurp(tfs_open(O_RDONLY, "events/%s/id", tp));
	int id = text ? atoi(text) : -1;

	free(text);
	return id;
}

/* Occurrences of @needle in the trace. */
static int trace_count(const char *needle)
{
	char *text = tfs_slurp(tfs_open(O_RDONLY, "trace"));
	const char *at = text;
	int n = -1;

	if (text)
		for (n = 0; (at = strstr(at, needle)) != NULL; at++)
			n++;
	free(text);
	return n;
}

/* Is there a line "NAME ..." in user_events_status? */
static bool status_lists(const char *name)
{
	char *text = tfs_slurp(tfs_open(O_RDONLY, "user_events_status"));
	size_t len = strlen(name);
	bool found = false;
	char *line;

	for (line = text; line && *line && !found; line = strchr(line, '\n')) {
		line += *line == '\n';
		found = !strncmp(line, name, len) &&
			(line[len] == ' ' || line[len] == '\n');
	}
	free(text);
	return found;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t0->tv_sec + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Wait until the kernel has set (@on) or cleared the event's word. */
static bool wait_word(const struct ue_event *e, bool on)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ue_enabled(e) != on) {
		if (since(&t0) > WAIT_SECS)
			return false;
		sched_yield();
	}
	return true;
}

static bool enable_and_wait(const char *tp, const struct ue_event *e)
{
	return !tfs_enable(tp, true) && wait_word(e, true);
}

static int write_mounts(const char *text)
{
	int fd = open(LIB_MOUNTS, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	return tfs_put(fd, text);
}

/* The counts of @l in @buf: "written ftrace perf fault size" */
static const char *loss_text(const struct ue_loss *l, char *buf, size_t len)
{
	snprintf(buf, len, "%llu %llu %llu %llu %llu",
		 (unsigned long long)l->written,
		 (unsigned long long)l->lost_ftrace,
		 (unsigned long long)l->lost_perf,
		 (unsigned long long)l->lost_fault,
		 (unsigned long long)l->lost_size);
	return buf;
}

/* --------------------------------------------------------------------- */

FIXTURE(lib) {
	struct ue_session *s;
};

FIXTURE_SETUP(lib)
{
	self->s = NULL;
	if (!tfs_find())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, tfs_put(tfs_open(O_WRONLY, "tracing_on"), "1"));
	ASSERT_EQ(0, tfs_put(tfs_open(O_WRONLY | O_TRUNC, "trace"), ""));
}

FIXTURE_TEARDOWN(lib)
{
	struct ue_session *s;
	size_t i;

	old_kernel_flags = ~0U;
	tfs_enable(USER_EVENTS_SYSTEM, false);
	tfs_enable(USER_EVENTS_MULTI_SYSTEM, false);
	ue_session_close(self->s);
	if (!ue_session_open(NULL, &s)) {
		for (i = 0; i < ARRAY_SIZE(persistent); i++)
			ue_delete(s, persistent[i]);
		ue_session_close(s);
	}
	unlink(LIB_MOUNTS);
}

TEST_F(lib, find_tracefs)
{
	char buf[PATH_MAX], tiny[4];

	ASSERT_EQ(0, ue_find_tracefs(buf, sizeof(buf)));
	EXPECT_STREQ(tracefs, buf);
	EXPECT_EQ(-ENAMETOOLONG, ue_find_tracefs(tiny, sizeof(tiny)));
	EXPECT_EQ(-EINVAL, ue_find_tracefs(NULL, 10));
	EXPECT_EQ(-EINVAL, ue_find_tracefs(buf, 0));
}

/* The mount table parser on made-up tables. */
TEST_F(lib, find_tracefs_parser)
{
	char buf[PATH_MAX], text[PATH_MAX * 2];
	struct stat st;

	ASSERT_EQ(0, write_mounts(""));
	EXPECT_EQ(-ENOENT, uel_find_tracefs_in(LIB_MOUNTS, buf, sizeof(buf)));
	EXPECT_EQ(-ENOENT, uel_find_tracefs_in("/tmp/uet_lib_none", buf,
					       sizeof(buf)));

	/* a tracefs without user_events_data is the fallback only */
	snprintf(text, sizeof(text),
		 "proc /proc proc rw 0 0\n"
		 "none /no/such\\040dir tracefs rw 0 0\n"
		 "tracefs %s tracefs rw,relatime 0 0\n", tracefs);
	ASSERT_EQ(0, write_mounts(text));
	ASSERT_EQ(0, uel_find_tracefs_in(LIB_MOUNTS, buf, sizeof(buf)));
	EXPECT_STREQ(tracefs, buf);

	ASSERT_EQ(0, write_mounts("none /no/such\\040dir tracefs rw 0 0\n"));
	ASSERT_EQ(0, uel_find_tracefs_in(LIB_MOUNTS, buf, sizeof(buf)));
	EXPECT_STREQ("/no/such dir", buf);

	/* no tracefs: debugfs/tracing, if the kernel provides it */
	ASSERT_EQ(0, write_mounts("debugfs /sys/kernel/debug debugfs rw 0 0\n"));
	if (stat("/sys/kernel/debug/tracing", &st) == 0) {
		ASSERT_EQ(0, uel_find_tracefs_in(LIB_MOUNTS, buf, sizeof(buf)));
		EXPECT_STREQ("/sys/kernel/debug/tracing", buf);
	} else {
		EXPECT_EQ(-ENOENT, uel_find_tracefs_in(LIB_MOUNTS, buf,
						       sizeof(buf)));
	}
	ASSERT_EQ(0, write_mounts("debugfs /no/debug debugfs rw 0 0\n"));
	EXPECT_EQ(-ENOENT, uel_find_tracefs_in(LIB_MOUNTS, buf, sizeof(buf)));
}

/* A second tracefs mount at a path with spaces. */
TEST_F(lib, non_default_mount)
{
	struct ue_session *s2 = NULL;
	struct ue_event *e = NULL;
	char buf[PATH_MAX];

	mkdir(LIB_MNT, 0755);
	if (mount("nodev", LIB_MNT, "tracefs", 0, NULL)) {
		rmdir(LIB_MNT);
		SKIP(return, "cannot mount tracefs: %s", strerror(errno));
	}

	EXPECT_EQ(0, ue_session_open(LIB_MNT, &s2));
	if (s2) {
		EXPECT_STREQ(LIB_MNT, ue_session_tracefs(s2));
		EXPECT_EQ(0, ue_register(s2, "uet_lib_mnt u32 a", 0, &e));
		/* the same tracefs instance, seen through both mounts */
		EXPECT_TRUE(tfs_exists(SYS "uet_lib_mnt"));
		if (e)
			EXPECT_EQ(tfs_id(SYS "uet_lib_mnt"), ue_event_trace_id(e));
		ue_session_close(s2);
	}

	/* the parser unescapes the mount point */
	ASSERT_EQ(0, write_mounts("nodev /tmp/uet\\040lib\\040mnt tracefs rw 0 0\n"));
	EXPECT_EQ(0, uel_find_tracefs_in(LIB_MOUNTS, buf, sizeof(buf)));
	EXPECT_STREQ(LIB_MNT, buf);

	EXPECT_EQ(0, umount(LIB_MNT));
	rmdir(LIB_MNT);
}

TEST_F(lib, session)
{
	char longpath[PATH_MAX + 16];
	struct ue_session *s2 = (struct ue_session *)1;
	int fd = ue_session_fd(self->s);

	EXPECT_STREQ(tracefs, ue_session_tracefs(self->s));
	EXPECT_LE(0, fd);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);

	EXPECT_EQ(-ENOENT, ue_session_open("/tmp/uet_lib_nodir", &s2));
	EXPECT_TRUE(!s2);
	EXPECT_EQ(-EINVAL, ue_session_open(NULL, NULL));
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	EXPECT_EQ(-ENAMETOOLONG, ue_session_open(longpath, &s2));
	ue_session_close(NULL);
}

TEST_F(lib, register_command)
{
	const char *tp = SYS "uet_lib_cmd";
	struct ue_event *e, *e2;
	char buf[256];

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_cmd u32 a;u64 b; ", 0, &e));
	EXPECT_STREQ("uet_lib_cmd", ue_event_name(e));
	EXPECT_EQ(2, ue_event_field_count(e));
	EXPECT_EQ(0, ue_event_flags(e));
	EXPECT_EQ(0, ue_event_dropped_flags(e));
	EXPECT_EQ(UE_EVENT_ABI, ((struct ue_event_head *)e)->abi);
	EXPECT_FALSE(ue_enabled(e));
	EXPECT_TRUE(status_lists("uet_lib_cmd"));

	EXPECT_EQ((int)strlen(tp), ue_event_tracepoint(e, buf, sizeof(buf)));
	EXPECT_STREQ(tp, buf);
	EXPECT_EQ(-ENAMETOOLONG, ue_event_tracepoint(e, buf, 5));
	EXPECT_EQ(tfs_id(tp), ue_event_trace_id(e));

	/* the kernel writes the public word, the layout is the kernel's */
	ASSERT_TRUE(enable_and_wait(tp, e));
	EXPECT_EQ(1, ((struct ue_event_head *)e)->enabled);
	EXPECT_EQ(0, ue_write(e, 3u, (uint64_t)1 << 40));
	EXPECT_EQ(1, trace_count(" b=0x10000000000 (1099511627776)\n"));
	ASSERT_EQ(0, tfs_enable(tp, false));
	EXPECT_TRUE(wait_word(e, false));

	/*
	 * A second registration of the same event has its own enable word;
	 * the kernel hands out the same write index on the same file.
	 */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_cmd u32 a; u64 b", 0, &e2));
	EXPECT_EQ(ue_event_write_index(e), ue_event_write_index(e2));
	ASSERT_TRUE(enable_and_wait(tp, e2));
	EXPECT_TRUE(ue_enabled(e));
	ASSERT_EQ(0, tfs_enable(tp, false));
	EXPECT_TRUE(wait_word(e2, false));
	EXPECT_EQ(0, ue_event_close(e2));

	EXPECT_EQ(0, ue_event_close(e));
	EXPECT_EQ(0, ue_event_close(NULL));
	/* the session's file still holds the event until it is closed */
	ue_session_close(self->s);
	self->s = NULL;
	EXPECT_FALSE(tfs_exists(tp));
}

TEST_F(lib, register_errors)
{
	static const char * const bad[] = {
		"", " uet_lib_err u32 a", "uet_lib_err:x u32 a",
		"uet/lib_err u32 a", "uet_lib_err u32", "uet_lib_err u128 a",
		"uet_lib_err unsigned u32 a", "uet_lib_err u32  a",
		"uet_lib_err char[0] a", "uet_lib_err char[1025] a",
		"uet_lib_err char[x] a", "uet_lib_err struct s a",
		"uet_lib_err struct s a 0", "uet_lib_err u32 a b c d e",
	};
	struct ue_event *e = (struct ue_event *)1, *ok;
	char cmd[1024];
	size_t i;
	int n;

	EXPECT_EQ(-EINVAL, ue_register(self->s, "uet_lib_err u32 a", 0, NULL));
	EXPECT_EQ(-EINVAL, ue_register(NULL, "uet_lib_err u32 a", 0, &e));
	EXPECT_TRUE(!e);
	EXPECT_EQ(-EINVAL, ue_register(self->s, NULL, 0, &e));
	EXPECT_EQ(-EINVAL, ue_register(self->s, "uet_lib_err u32 a", 1U << 5,
				       &e));

	/* malformed commands: the kernel's answer comes back */
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, ue_register(self->s, bad[i], 0, &e))
			TH_LOG("bad[%zu]", i);

	/* 512 bytes: one more than the kernel reads */
	memset(cmd, 0, sizeof(cmd));
	n = snprintf(cmd, sizeof(cmd), "uet_lib_err u32 a;");
	memset(cmd + n, ' ', 512 - n);
	EXPECT_EQ(-EINVAL, ue_register(self->s, cmd, 0, &e));
	EXPECT_TRUE(!e);

	/* refused by the kernel: the name exists with other fields */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_err u32 a", 0, &ok));
	EXPECT_EQ(-EADDRINUSE, ue_register(self->s, "uet_lib_err u64 a", 0,
					   &e));
	EXPECT_TRUE(!e);
	EXPECT_EQ(0, ue_event_close(ok));
}

/*
 * Commands the kernel takes that a stricter parser would refuse: names
 * that are no identifiers, 80 fields, dynamic fields of any element type,
 * array lengths in any base, a registration matching an existing event
 * word by word.  Each registers, and ue_write() lays the payload out as
 * the kernel reads it.
 */
TEST_F(lib, kernel_decides)
{
	char cmd[512], name[201], tp[256];
	struct ue_value v[80];
	struct ue_event *e, *e2;
	int i, n;

	/* names: a leading digit, dots and dashes, 200 bytes */
	ASSERT_EQ(0, ue_register(self->s, "1uet_lib.name-x u32 a", 0, &e));
	EXPECT_STREQ("1uet_lib.name-x", ue_event_name(e));
	ASSERT_TRUE(enable_and_wait(SYS "1uet_lib.name-x", e));
	EXPECT_EQ(0, ue_write(e, 7u));
	EXPECT_EQ(1, trace_count("1uet_lib.name-x: a=0x7 (7)"));
	EXPECT_EQ(0, tfs_enable(SYS "1uet_lib.name-x", false));
	EXPECT_EQ(0, ue_event_close(e));

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memcpy(name, "uet_lib_", 8);
	snprintf(cmd, sizeof(cmd), "%s u8 a", name);
	snprintf(tp, sizeof(tp), SYS "%s", name);
	ASSERT_EQ(0, ue_register(self->s, cmd, 0, &e));
	EXPECT_STREQ(name, ue_event_name(e));
	EXPECT_TRUE(tfs_exists(tp));
	EXPECT_EQ(tfs_id(tp), ue_event_trace_id(e));
	EXPECT_EQ(0, ue_event_close(e));

	/* 80 fields, a..z A..Z z0..z27, in fewer than 512 bytes */
	n = snprintf(cmd, sizeof(cmd), "uet_lib_many u8 a");
	for (i = 1; i < 80; i++) {
		if (i < 52)
			n += snprintf(cmd + n, sizeof(cmd) - n, ";u8 %c",
				      i < 26 ? 'a' + i : 'A' + i - 26);
		else
			n += snprintf(cmd + n, sizeof(cmd) - n, ";u8 z%d",
				      i - 52);
	}
	ASSERT_GT((int)sizeof(cmd), n);
	ASSERT_EQ(0, ue_register(self->s, cmd, 0, &e));
	ASSERT_EQ(80, ue_event_field_count(e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_many", e));
	memset(v, 0, sizeof(v));
	v[0].u = 'A';
	v[79].u = 'Z';
	EXPECT_EQ(0, ue_write_values(e, v, 80));
	EXPECT_EQ(1, trace_count("uet_lib_many: a='A'(65) b=(0)"));
	EXPECT_EQ(1, trace_count(" z27='Z'(90)\n"));
	EXPECT_EQ(0, tfs_enable(SYS "uet_lib_many", false));
	EXPECT_EQ(0, ue_event_close(e));

	/*
	 * Dynamic fields of any element type: u32[] (even without brackets)
	 * holds bytes; unsigned char[] is a char type, so a string.  char[N]
	 * keeps N as written (hexadecimal here).
	 */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_loc __rel_loc u32[] a; "
				 "__data_loc u16 b; __rel_loc unsigned char[] c; "
				 "char[0x4] d", 0, &e));
	ASSERT_EQ(4, ue_event_field_count(e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_loc", e));
	EXPECT_EQ(0, ue_write(e, "\x01\x02\x03\x04", (size_t)4, "\xff",
			      (size_t)1, "str", "abcdef"));
	EXPECT_EQ(1, trace_count("uet_lib_loc: a=01,02,03,04 b=ff c=str d=abc\n"));
	EXPECT_EQ(0, tfs_enable(SYS "uet_lib_loc", false));

	/* the same fields with other white space: the same event */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_loc __rel_loc  u32[] a;"
				 "__data_loc\tu16 b;  __rel_loc unsigned char[] c;"
				 "char[0x4] d;", 0, &e2));
	EXPECT_EQ(ue_event_write_index(e), ue_event_write_index(e2));
	EXPECT_EQ(4, ue_event_field_count(e2));
	EXPECT_EQ(0, ue_event_close(e2));
	/* but char[4] is not char[0x4] */
	EXPECT_EQ(-EADDRINUSE, ue_register(self->s, "uet_lib_loc __rel_loc u32[] a; "
					   "__data_loc u16 b; __rel_loc unsigned char[] c; "
					   "char[4] d", 0, &e2));
	EXPECT_EQ(0, ue_event_close(e));
}

struct uet_pt {
	uint32_t x, y;
};

/* ftrace prints the 8 bytes as a u64: 0x200000001 on either byte order */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UET_PT_INIT	{ 2, 1 }
#define ABCD_U32	"0x61626364 (1633837924)"
#define X0102_U16	"0x102 (258)"
#else
#define UET_PT_INIT	{ 1, 2 }
#define ABCD_U32	"0x64636261 (1684234849)"
#define X0102_U16	"0x201 (513)"
#endif

/* Every field type, and how ftrace prints the values written below. */
#define ALL_FIELDS "u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; u64 g; s64 h; " \
	"char[8] i; unsigned char[3] j; __data_loc char[] k; " \
	"__rel_loc char[] l; __rel_loc u8[] m; struct uet_pt n 8"
#define ALL_TEXT "a='A'(65) b=(128) c=0x1234 (4660) d=0xfffe (65534) " \
	"e=0xdeadbeef (-559038737) f=0xfffffff9 (-7) g=0x123456789 " \
	"(4886718345) h=0xfffffffffffffff7 (-9) i=hi j=xyz k=dl-str " \
	"l=rl-str m=62,6c,6f,62 n=0x200000001 (8589934593)"

/* The values of ALL_TEXT, and @o for a 15th field (struct o o 2) */
static void all_values(struct ue_value *v, const struct uet_pt *pt,
		       const char *o)
{
	memset(v, 0, 15 * sizeof(*v));
	v[0].u = 'A';
	v[1].s = -128;
	v[2].u = 0x1234;
	v[3].s = -2;
	v[4].u = 0xdeadbeef;
	v[5].s = -7;
	v[6].u = 0x123456789ull;
	v[7].s = -9;
	v[8].p = "hi";
	v[9].p = "xyz";
	v[10].p = "dl-str";
	v[11].p = "rl-str";
	v[12].p = "blob";
	v[12].len = 4;
	v[13].p = pt;
	v[14].p = o;
}

TEST_F(lib, format_command)
{
	static const struct ue_field all[] = {
		{ "a", UE_TYPE_U8 }, { "b", UE_TYPE_S8 },
		{ "c", UE_TYPE_U16 }, { "d", UE_TYPE_S16 },
		{ "e", UE_TYPE_U32 }, { "f", UE_TYPE_S32 },
		{ "g", UE_TYPE_U64 }, { "h", UE_TYPE_S64 },
		{ "i", UE_TYPE_CHAR_ARRAY, 8 }, { "j", UE_TYPE_BYTE_ARRAY, 3 },
		{ "k", UE_TYPE_DATA_LOC_STRING }, { "l", UE_TYPE_STRING },
		{ "m", UE_TYPE_BLOB }, { "n", UE_TYPE_STRUCT, 8, "uet_pt" },
		{ "o", UE_TYPE_STRUCT, 2 },
	};
	const char *want = "uet_lib_fmt " ALL_FIELDS "; struct o o 2";
	struct ue_field bad = { "x", UE_TYPE_U32 }, many[20];
	static const uint32_t bad_types[] = {
		0, UE_TYPE_STRUCT + 1, UE_TYPE_CHAR_ARRAY, UE_TYPE_STRUCT,
	};
	struct uet_pt pt = UET_PT_INIT;
	char buf[512], small[8];
	struct ue_value v[15];
	struct ue_event *e;
	size_t i;

	ASSERT_EQ((int)strlen(want),
		  ue_format_command(buf, sizeof(buf), "uet_lib_fmt", all, 15));
	EXPECT_STREQ(want, buf);
	EXPECT_EQ((int)strlen(want),
		  ue_format_command(NULL, 0, "uet_lib_fmt", all, 15));
	EXPECT_EQ((int)strlen(want),
		  ue_format_command(small, sizeof(small), "uet_lib_fmt", all,
				    15));
	EXPECT_STREQ("uet_lib", small);
	EXPECT_EQ(11, ue_format_command(buf, sizeof(buf), "uet_lib_fmt", NULL,
					0));
	EXPECT_STREQ("uet_lib_fmt", buf);

	EXPECT_EQ(-EINVAL, ue_format_command(buf, sizeof(buf), NULL, all, 1));
	EXPECT_EQ(-EINVAL, ue_format_command(NULL, 5, "x", all, 1));
	EXPECT_EQ(-EINVAL, ue_format_command(buf, sizeof(buf), "x", NULL, 1));
	/* unknown types; arrays and structs without a size */
	for (i = 0; i < ARRAY_SIZE(bad_types); i++) {
		bad.type = bad_types[i];
		EXPECT_EQ(-EINVAL, ue_format_command(buf, sizeof(buf), "x",
						     &bad, 1));
	}
	bad.type = UE_TYPE_U32;
	bad.name = NULL;
	EXPECT_EQ(-EINVAL, ue_format_command(buf, sizeof(buf), "x", &bad, 1));

	/* registered from the list: the kernel lays it out as the command */
	ASSERT_EQ(0, ue_register_fields(self->s, "uet_lib_fmt", all, 15, 0,
					&e));
	EXPECT_EQ(15, ue_event_field_count(e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_fmt", e));
	all_values(v, &pt, "\x01\x02");
	EXPECT_EQ(0, ue_write_values(e, v, 15));
	EXPECT_EQ(1, trace_count(ALL_TEXT " o=" X0102_U16 "\n"));
	EXPECT_EQ(0, tfs_enable(SYS "uet_lib_fmt", false));
	EXPECT_EQ(0, ue_event_close(e));

	EXPECT_EQ(-EINVAL, ue_register_fields(self->s, "uet_lib_fmt", &bad, 1,
					      0, &e));
	/* longer than the kernel takes: its EINVAL */
	memset(many, 0, sizeof(many));
	for (i = 0; i < ARRAY_SIZE(many); i++) {
		many[i].name = "a_rather_long_field_name";
		many[i].type = UE_TYPE_U64;
	}
	EXPECT_LT(511, ue_format_command(NULL, 0, "uet_lib_fmt", many, 20));
	EXPECT_EQ(-EINVAL, ue_register_fields(self->s, "uet_lib_fmt", many,
					      20, 0, &e));
	EXPECT_TRUE(!e);
	EXPECT_EQ(-EINVAL, ue_register_fields(self->s, NULL, all, 1, 0, &e));
}

TEST_F(lib, write_all_types)
{
	struct uet_pt pt = UET_PT_INIT;
	struct ue_value v[15];
	struct ue_event *e;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_all " ALL_FIELDS, 0, &e));
	ASSERT_EQ(14, ue_event_field_count(e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_all", e));

	ASSERT_EQ(0, ue_write(e, 'A', -128, 0x1234, -2, 0xdeadbeef, -7,
			      (uint64_t)0x123456789ull, (int64_t)-9, "hi",
			      "xyz", "dl-str", "rl-str", "blob", (size_t)4,
			      &pt));
	all_values(v, &pt, NULL);
	ASSERT_EQ(0, ue_write_values(e, v, 14));
	EXPECT_EQ(2, trace_count("uet_lib_all: " ALL_TEXT "\n"));

	/* truncation of char[N], NULL strings, empty blobs */
	v[8].p = "0123456789";
	v[10].p = NULL;
	v[11].p = "";
	v[12].p = NULL;
	v[12].len = 0;
	ASSERT_EQ(0, ue_write_values(e, v, 14));
	EXPECT_EQ(1, trace_count(" i=0123456 j=xyz k= l= m= n=0x2"));
	EXPECT_EQ(0, ue_event_close(e));

	/* the longest char[N]: its own zero padding */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_pad char[1024] a; u32 b",
				 0, &e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_pad", e));
	EXPECT_EQ(0, ue_write(e, "pad", 7u));
	EXPECT_EQ(1, trace_count("uet_lib_pad: a=pad b=0x7 (7)\n"));
	EXPECT_EQ(0, ue_event_close(e));
}

TEST_F(lib, write_raw)
{
	uint32_t a = 77, loc;
	struct iovec iov[3];
	struct ue_event *e;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_raw u32 a; __rel_loc char[] s",
				 0, &e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_raw", e));

	loc = DYN_LOC(0, 4);
	iov[0].iov_base = &a;
	iov[0].iov_len = 4;
	iov[1].iov_base = &loc;
	iov[1].iov_len = 4;
	iov[2].iov_base = "raw";
	iov[2].iov_len = 4;
	EXPECT_EQ(0, ue_write_raw(e, iov, 3));
	EXPECT_EQ(1, trace_count("uet_lib_raw: a=0x4d (77) s=raw"));

	/* the kernel checks the location */
	loc = DYN_LOC(1, 4);
	EXPECT_EQ(-EFAULT, ue_write_raw(e, iov, 3));
	EXPECT_EQ(-EINVAL, ue_write_raw(e, iov, IOV_MAX));
	EXPECT_EQ(-EINVAL, ue_write_raw(e, NULL, 1));
	EXPECT_EQ(-EINVAL, ue_write_raw(NULL, iov, 1));
	/* too short for the fixed fields */
	EXPECT_EQ(-EINVAL, ue_write_raw(e, iov, 1));
	EXPECT_EQ(0, ue_event_close(e));
}

TEST_F(lib, write_errors)
{
	static char big[70000];
	struct ue_event *e, *b;
	struct ue_value v[3];
	int page = getpagesize();

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_werr u32 a; __rel_loc char[] s; "
				 "unsigned char[4] r", 0, &e));
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_werr2 __data_loc u8[] d; "
				 "struct x x 4", 0, &b));

	/* nobody traces the event */
	EXPECT_FALSE(ue_enabled(e));
	EXPECT_EQ(-EBADF, ue_write(e, 1u, "x", "abcd"));

	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_werr", e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_werr2", b));
	EXPECT_EQ(0, ue_write(e, 1u, "x", "abcd"));

	memset(v, 0, sizeof(v));
	EXPECT_EQ(-EINVAL, ue_write_values(e, v, 2));
	EXPECT_EQ(-EINVAL, ue_write_values(e, NULL, 3));
	EXPECT_EQ(-EINVAL, ue_write_values(NULL, v, 3));
	EXPECT_EQ(-EINVAL, ue_write(NULL));
	/* unsigned char[4] needs its bytes */
	EXPECT_EQ(-EFAULT, ue_write_values(e, v, 3));

	/* a string longer than a location word can describe */
	memset(big, 'x', sizeof(big) - 1);
	EXPECT_EQ(-E2BIG, ue_write(e, 1u, big, "abcd"));
	/*
	 * A record of more than a page: more than ftrace takes, yet short
	 * enough for a location word with 64 KiB pages too.
	 */
	big[page - 20] = '\0';
	EXPECT_EQ(-E2BIG, ue_write(e, 1u, big, "abcd"));
	big[page - 20] = 'x';

	/* blobs: NULL with a length, struct without bytes */
	EXPECT_EQ(-EFAULT, ue_write(b, NULL, (size_t)3, "abcd"));
	EXPECT_EQ(-EFAULT, ue_write(b, "abc", (size_t)3, NULL));
	EXPECT_EQ(0, ue_write(b, "abc", (size_t)3, "abcd"));
	EXPECT_EQ(0, ue_write(b, NULL, (size_t)0, "abcd"));
	EXPECT_EQ(1, trace_count("uet_lib_werr2: d=61,62,63 x=" ABCD_U32));
	EXPECT_EQ(1, trace_count("uet_lib_werr2: d= x=" ABCD_U32));

	EXPECT_EQ(0, ue_event_close(e));
	EXPECT_EQ(0, ue_event_close(b));
}

TEST_F(lib, persist)
{
	const char *name = "uet_lib_persist";
	struct ue_event *e;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_persist u32 a",
				 UE_FLAG_PERSIST, &e));
	EXPECT_EQ(UE_FLAG_PERSIST, ue_event_flags(e));
	EXPECT_EQ(0, ue_event_dropped_flags(e));

	/* in use: this open file still holds it */
	EXPECT_EQ(-EBUSY, ue_delete(self->s, name));
	EXPECT_EQ(0, ue_event_close(e));
	ue_session_close(self->s);
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	EXPECT_TRUE(tfs_exists(SYS "uet_lib_persist"));

	EXPECT_EQ(0, ue_delete(self->s, name));
	EXPECT_FALSE(tfs_exists(SYS "uet_lib_persist"));
	EXPECT_EQ(-ENOENT, ue_delete(self->s, name));
	EXPECT_EQ(-EINVAL, ue_delete(self->s, NULL));
	EXPECT_EQ(-EINVAL, ue_delete(NULL, name));
}

TEST_F(lib, multi_format)
{
	const char *prefix = USER_EVENTS_MULTI_SYSTEM "/uet_lib_multi.";
	char tp1[256], tp2[256], small[10];
	struct ue_event *e1, *e2;
	int id1, id2;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_multi u32 a",
				 UE_FLAG_MULTI_FORMAT, &e1));
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_multi u64 a; char[4] b; "
				 "__rel_loc char[] c; struct t d 2",
				 UE_FLAG_MULTI_FORMAT, &e2));
	EXPECT_EQ(UE_FLAG_MULTI_FORMAT, ue_event_flags(e1));
	EXPECT_EQ(UE_FLAG_MULTI_FORMAT, ue_event_flags(e2));

	ASSERT_LT(0, ue_event_tracepoint(e1, tp1, sizeof(tp1)));
	ASSERT_LT(0, ue_event_tracepoint(e2, tp2, sizeof(tp2)));
	EXPECT_EQ(0, strncmp(tp1, prefix, strlen(prefix)));
	EXPECT_EQ(0, strncmp(tp2, prefix, strlen(prefix)));
	EXPECT_STRNE(tp1, tp2);
	EXPECT_EQ(-ENAMETOOLONG, ue_event_tracepoint(e1, small, sizeof(small)));

	id1 = ue_event_trace_id(e1);
	id2 = ue_event_trace_id(e2);
	EXPECT_EQ(tfs_id(tp1), id1);
	EXPECT_EQ(tfs_id(tp2), id2);
	EXPECT_LT(0, id1);
	EXPECT_NE(id1, id2);

	/* each handle's word follows its own version */
	ASSERT_TRUE(enable_and_wait(tp1, e1));
	EXPECT_FALSE(ue_enabled(e2));
	ASSERT_TRUE(enable_and_wait(tp2, e2));
	EXPECT_EQ(0, ue_write(e1, 5u));
	EXPECT_EQ(0, ue_write(e2, (uint64_t)6, "abc", "str", "\x01\x02"));
	EXPECT_EQ(1, trace_count(": a=0x5 (5)"));
	EXPECT_EQ(1, trace_count(": a=0x6 (6) b=abc c=str d=" X0102_U16));

	EXPECT_EQ(0, ue_event_close(e1));
	EXPECT_EQ(0, ue_event_close(e2));
}

/* A kernel older than MULTI_FORMAT (6.6 .. 6.9) or than any flag. */
TEST_F(lib, flag_fallback)
{
	unsigned int both = UE_FLAG_PERSIST | UE_FLAG_MULTI_FORMAT;
	struct ue_event *e;

	old_kernel_flags = UE_FLAG_PERSIST;
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fb1 u32 a", both, &e));
	EXPECT_EQ(UE_FLAG_PERSIST, ue_event_flags(e));
	EXPECT_EQ(UE_FLAG_MULTI_FORMAT, ue_event_dropped_flags(e));
	EXPECT_TRUE(tfs_exists(SYS "uet_lib_fb1"));
	EXPECT_EQ(0, ue_event_close(e));

	old_kernel_flags = 0;
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fb2 u32 a", both, &e));
	EXPECT_EQ(0, ue_event_flags(e));
	EXPECT_EQ(both, ue_event_dropped_flags(e));
	EXPECT_EQ(0, ue_event_close(e));

	/* strict: the kernel's answer is final */
	old_kernel_registrations = 0;
	EXPECT_EQ(-EINVAL, ue_register(self->s, "uet_lib_fb3 u32 a",
				       UE_FLAG_PERSIST | UE_FLAG_STRICT, &e));
	EXPECT_EQ(1, old_kernel_registrations);

	/* other errors are not retried */
	old_kernel_flags = both;
	old_kernel_registrations = 0;
	EXPECT_EQ(-EADDRINUSE, ue_register(self->s, "uet_lib_fb2 u64 a",
					   UE_FLAG_PERSIST, &e));
	EXPECT_EQ(1, old_kernel_registrations);

	/* the real kernel knows both flags: nothing dropped */
	old_kernel_flags = ~0U;
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fb4 u32 a",
				 both | UE_FLAG_STRICT, &e));
	EXPECT_EQ(both, ue_event_flags(e));
	EXPECT_EQ(0, ue_event_dropped_flags(e));
	EXPECT_EQ(0, ue_event_close(e));
}

/*
 * An event registered with NOTIFY wakes its session at each change of
 * its enable state, not at its registration; a session without such an
 * event has nothing to wait for.
 */
TEST_F(lib, notify)
{
	const char *tp = SYS "uet_lib_notify";
	struct ue_session *s2;
	struct ue_event *e, *plain;
	uint64_t n = 0;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_notify u32 a",
				 UE_FLAG_NOTIFY, &e));
	if (ue_event_dropped_flags(e) & UE_FLAG_NOTIFY) {
		EXPECT_EQ(-EOPNOTSUPP, ue_session_wait(self->s, 0, &n));
		EXPECT_EQ(0, ue_event_close(e));
		SKIP(return, "the kernel has no USER_EVENT_REG_NOTIFY");
	}
	EXPECT_EQ(UE_FLAG_NOTIFY, ue_event_flags(e));
	EXPECT_EQ(-ETIMEDOUT, ue_session_wait(self->s, 0, &n));

	ASSERT_EQ(0, tfs_enable(tp, true));
	EXPECT_EQ(0, ue_session_wait(self->s, WAIT_SECS * 1000, &n));
	EXPECT_EQ(1, n);
	EXPECT_TRUE(wait_word(e, true));
	EXPECT_EQ(-ETIMEDOUT, ue_session_wait(self->s, 0, &n));

	ASSERT_EQ(0, tfs_enable(tp, false));
	EXPECT_EQ(0, ue_session_wait(self->s, WAIT_SECS * 1000, &n));
	EXPECT_EQ(1, n);
	EXPECT_TRUE(wait_word(e, false));

	/* another session: its events are not registered with NOTIFY */
	ASSERT_EQ(0, ue_session_open(NULL, &s2));
	EXPECT_EQ(-EOPNOTSUPP, ue_session_wait(s2, 0, &n));
	ASSERT_EQ(0, ue_register(s2, "uet_lib_notify u32 a", 0, &plain));
	EXPECT_EQ(-EOPNOTSUPP, ue_session_wait(s2, 0, &n));
	ue_session_close(s2);
	EXPECT_EQ(0, ue_event_close(e));
}

/* Records written while traced are counted; nothing is lost here. */
TEST_F(lib, loss)
{
	const char *tp = SYS "uet_lib_loss";
	struct ue_loss l;
	char text[128];
	struct ue_event *e;
	int ret;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_loss u32 a", 0, &e));
	memset(&l, 0xff, sizeof(l));
	ret = ue_event_loss(e, &l);
	if (ret == -EOPNOTSUPP) {
		EXPECT_EQ(0, ue_event_close(e));
		SKIP(return, "the kernel has no DIAG_IOCGLOSS");
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, l.written);
	EXPECT_EQ(-EBADF, ue_write(e, 1u));

	ASSERT_TRUE(enable_and_wait(tp, e));
	EXPECT_EQ(0, ue_write(e, 1u));
	EXPECT_EQ(0, ue_write(e, 2u));
	ASSERT_EQ(0, ue_event_loss(e, &l));
	EXPECT_STREQ("2 0 0 0 0", loss_text(&l, text, sizeof(text)));
	EXPECT_EQ(0, tfs_enable(tp, false));
	EXPECT_EQ(0, ue_event_close(e));
}

/* ---------------------------------------------------------------------
 * Batches on the running kernel: through DIAG_IOCSBATCH (variant ioctl,
 * where the kernel has it) and through one write() per record (variant
 * write: old_kernel.c fails the ioctl as a kernel without it does).
 */

/* Does the kernel know DIAG_IOCSBATCH?  It refuses a count of 0. */
static bool kernel_has_batch(int fd)
{
	struct user_batch b = { .size = sizeof(b) };

	return ioctl(fd, DIAG_IOCSBATCH, &b) == -1 && errno == EINVAL;
}

/*
 * Add to @bt a record of @a or @b for each letter of @which ('a' or 'b'),
 * its one u32 the values from @val on: 0, or the first failure.
 */
static int add_ab(struct ue_batch *bt, struct ue_event *a, struct ue_event *b,
		  const char *which, uint32_t val)
{
	int ret = 0;

	for (; *which && !ret; which++, val++)
		ret = ue_batch_add(bt, *which == 'a' ? a : b, val);
	return ret;
}

FIXTURE(batch) {
	struct ue_session *s;
	struct ue_batch *b;
	bool ioctl;		/* records go through DIAG_IOCSBATCH */
	bool asked;		/* the session tried DIAG_IOCSBATCH */
};

FIXTURE_VARIANT(batch) {
	bool no_batch;		/* play a kernel without DIAG_IOCSBATCH */
};

FIXTURE_VARIANT_ADD(batch, ioctl) { .no_batch = false };
FIXTURE_VARIANT_ADD(batch, write) { .no_batch = true };

FIXTURE_SETUP(batch)
{
	if (!tfs_find())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, tfs_put(tfs_open(O_WRONLY, "tracing_on"), "1"));
	ASSERT_EQ(0, tfs_put(tfs_open(O_WRONLY | O_TRUNC, "trace"), ""));
	self->ioctl = !variant->no_batch &&
		      kernel_has_batch(ue_session_fd(self->s));
	if (!variant->no_batch && !self->ioctl)
		TH_LOG("the kernel has no DIAG_IOCSBATCH: one write() per record");
	old_kernel_no_batch = variant->no_batch;
	old_kernel_batch_calls = 0;
	old_kernel_writes = 0;
	ASSERT_EQ(0, ue_batch_open(self->s, 0, 0, &self->b));
}

FIXTURE_TEARDOWN(batch)
{
	old_kernel_no_batch = false;
	ue_batch_close(self->b);
	tfs_enable(USER_EVENTS_SYSTEM, false);
	ue_session_close(self->s);
}

/*
 * The system calls of submits that tried @tried records in @calls
 * DIAG_IOCSBATCH (@ioctl) or, without the ioctl, in one DIAG_IOCSBATCH
 * that failed, the session's first, then a write() each.
 */
/* A submit of @bt: @n records written, error @e (0: none), @dropped dropped */
#define EXPECT_SUBMITTED(bt, n, e, dropped) do {			\
	struct ue_batch *bt_ = (bt);					\
	int err_ = 1;							\
									\
	EXPECT_EQ(n, ue_batch_submit(bt_, &err_));			\
	EXPECT_EQ(e, err_);						\
	EXPECT_EQ(dropped, ue_batch_dropped(bt_));			\
} while (0)

#define EXPECT_SUBMIT_CALLS(ioctl, calls, tried) do {			\
	if (ioctl) {							\
		EXPECT_EQ(calls, old_kernel_batch_calls);		\
		EXPECT_EQ(0, old_kernel_writes);			\
	} else {							\
		EXPECT_EQ(self->asked ? 0 : 1, old_kernel_batch_calls);	\
		EXPECT_EQ(tried, old_kernel_writes);			\
	}								\
	self->asked = true;						\
	old_kernel_batch_calls = 0;					\
	old_kernel_writes = 0;						\
} while (0)
#define EXPECT_CALLS(calls, tried) \
	EXPECT_SUBMIT_CALLS(self->ioctl, calls, tried)

/* The records of all three adds, as ue_write() writes them. */
TEST_F(batch, records)
{
	struct uet_pt pt = UET_PT_INIT;
	uint32_t a = 77, loc = DYN_LOC(0, 4);
	struct iovec iov[3] = {
		{ &a, 4 }, { &loc, 4 }, { "raw", 4 },
	};
	struct ue_event *e, *r;
	struct ue_value v[15];
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_ball " ALL_FIELDS, 0, &e));
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_braw u32 a; __rel_loc char[] s",
				 0, &r));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_ball", e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_braw", r));

	EXPECT_EQ(0, ue_batch_count(self->b));
	ASSERT_EQ(0, ue_batch_add(self->b, e, 'A', -128, 0x1234, -2, 0xdeadbeef,
				  -7, (uint64_t)0x123456789ull, (int64_t)-9,
				  "hi", "xyz", "dl-str", "rl-str", "blob",
				  (size_t)4, &pt));
	all_values(v, &pt, NULL);
	ASSERT_EQ(0, ue_batch_add_values(self->b, e, v, 14));
	ASSERT_EQ(0, ue_batch_add_raw(self->b, r, iov, 3));
	/* copied at add: the caller's memory may change before the submit */
	a = 0;
	EXPECT_EQ(3, ue_batch_count(self->b));
	EXPECT_EQ(0, trace_count("uet_lib_b"));

	EXPECT_SUBMITTED(self->b, 3, 0, 0);
	EXPECT_EQ(0, ue_batch_count(self->b));
	EXPECT_CALLS(1, 3);
	EXPECT_EQ(2, trace_count("uet_lib_ball: " ALL_TEXT "\n"));
	EXPECT_EQ(1, trace_count("uet_lib_braw: a=0x4d (77) s=raw"));

	/* empty, reusable; an empty batch makes no call */
	EXPECT_EQ(0, ue_batch_submit(self->b, &err));
	EXPECT_EQ(0, err);
	ASSERT_EQ(0, ue_batch_add(self->b, r, 5u, "again"));
	EXPECT_EQ(1, ue_batch_submit(self->b, NULL));
	EXPECT_CALLS(1, 1);
	EXPECT_EQ(1, trace_count("uet_lib_braw: a=0x5 (5) s=again"));

	EXPECT_EQ(0, ue_event_close(e));
	EXPECT_EQ(0, ue_event_close(r));
}

/* An event nobody traces: its records are not even added. */
TEST_F(batch, untraced)
{
	uint32_t a = 1;
	struct iovec iov = { &a, 4 };
	struct ue_value v = { .u = 1 };
	struct ue_event *e;
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_boff u32 a", 0, &e));
	EXPECT_FALSE(ue_enabled(e));
	EXPECT_EQ(-EBADF, ue_batch_add(self->b, e, 1u));
	EXPECT_EQ(-EBADF, ue_batch_add_values(self->b, e, &v, 1));
	EXPECT_EQ(-EBADF, ue_batch_add_raw(self->b, e, &iov, 1));
	EXPECT_EQ(0, ue_batch_count(self->b));
	EXPECT_EQ(0, ue_batch_submit(self->b, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, old_kernel_batch_calls);
	EXPECT_EQ(0, old_kernel_writes);
	EXPECT_EQ(0, ue_event_close(e));
}

/*
 * An event disabled between add and submit: its records are dropped
 * (the kernel refuses each with EBADF), the others are all written.
 */
TEST_F(batch, disabled_before_submit)
{
	struct ue_event *a, *b;
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_bka u32 n", 0, &a));
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_bkb u32 n", 0, &b));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_bka", a));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_bkb", b));

	ASSERT_EQ(0, add_ab(self->b, a, b, "ababa", 1));
	ASSERT_EQ(0, tfs_enable(SYS "uet_lib_bkb", false));
	ASSERT_TRUE(wait_word(b, false));

	EXPECT_SUBMITTED(self->b, 5, 0, 2);
	/* stopped at each dropped record, then went on from the next */
	EXPECT_CALLS(3, 5);
	EXPECT_EQ(3, trace_count("uet_lib_bka: n="));
	EXPECT_EQ(1, trace_count("uet_lib_bka: n=0x5 (5)"));
	EXPECT_EQ(0, trace_count("uet_lib_bkb: n="));

	/* the count is the last submit's */
	ASSERT_EQ(0, ue_batch_add(self->b, a, 6u));
	EXPECT_EQ(1, ue_batch_submit(self->b, &err));
	EXPECT_EQ(0, ue_batch_dropped(self->b));

	EXPECT_EQ(0, ue_event_close(a));
	EXPECT_EQ(0, ue_event_close(b));
}

/*
 * A record the kernel refuses for another reason ends the submit: the
 * ones before it are written, it and the ones after it are not.
 */
TEST_F(batch, bad_record)
{
	uint32_t a = 2, loc = DYN_LOC(1, 4);
	struct iovec iov[3] = {
		{ &a, 4 }, { &loc, 4 }, { "bad", 4 },
	};
	struct ue_event *e;
	int err = 0;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_bbad u32 a; __rel_loc char[] s",
				 0, &e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_bbad", e));

	/* a location beyond the payload: EFAULT, as ue_write_raw() */
	ASSERT_EQ(0, ue_batch_add(self->b, e, 1u, "one"));
	ASSERT_EQ(0, ue_batch_add_raw(self->b, e, iov, 3));
	ASSERT_EQ(0, ue_batch_add(self->b, e, 3u, "three"));
	EXPECT_EQ(1, ue_batch_submit(self->b, &err));
	EXPECT_EQ(-EFAULT, err);
	EXPECT_EQ(0, ue_batch_count(self->b));
	EXPECT_CALLS(1, 2);
	EXPECT_EQ(1, trace_count("uet_lib_bbad: a=0x1 (1) s=one"));
	EXPECT_EQ(0, trace_count("uet_lib_bbad: a=0x3"));

	/* shorter than the fixed fields: EINVAL; the first one already */
	ASSERT_EQ(0, ue_batch_add_raw(self->b, e, iov, 1));
	ASSERT_EQ(0, ue_batch_add(self->b, e, 4u, "four"));
	EXPECT_EQ(0, ue_batch_submit(self->b, &err));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_CALLS(1, 1);

	/* the batch goes on */
	ASSERT_EQ(0, ue_batch_add(self->b, e, 5u, "five"));
	EXPECT_EQ(1, ue_batch_submit(self->b, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(1, trace_count("uet_lib_bbad: a=0x5 (5) s=five"));
	EXPECT_EQ(0, trace_count("uet_lib_bbad: a=0x4"));
	EXPECT_EQ(0, ue_event_close(e));
}

/* More records than one DIAG_IOCSBATCH takes. */
TEST_F(batch, more_than_one_call)
{
	const unsigned int n = USER_BATCH_MAX + 100;
	struct ue_batch *big;
	struct ue_event *e;
	unsigned int i;
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_bmany u32 n", 0, &e));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_bmany", e));
	ASSERT_EQ(0, ue_batch_open(self->s, 0, n, &big));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ue_batch_add(big, e, i));
	EXPECT_EQ(-ENOSPC, ue_batch_add(big, e, i));
	EXPECT_EQ((int)n, ue_batch_submit(big, &err));
	EXPECT_EQ(0, err);
	EXPECT_CALLS(2, (int)n);
	EXPECT_EQ((int)n, trace_count("uet_lib_bmany: n="));
	EXPECT_EQ(1, trace_count("uet_lib_bmany: n=0x0 (0)\n"));
	EXPECT_EQ(1, trace_count("uet_lib_bmany: n=0x463 (1123)\n"));
	ue_batch_close(big);
	EXPECT_EQ(0, ue_event_close(e));
}

/* ---------------------------------------------------------------------
 * Without a kernel: old_kernel.c plays it, on a session whose
 * user_events_data is a plain file.
 */

FIXTURE(nokernel) {
	struct ue_session *s;
};

FIXTURE_SETUP(nokernel)
{
	self->s = NULL;
	mkdir(FAKE_DIR, 0700);
	ASSERT_EQ(0, tfs_put(open(FAKE_DATA, O_RDWR | O_CREAT | O_CLOEXEC,
				  0600), ""));
	old_kernel_fake = true;
	ASSERT_EQ(0, ue_session_open(FAKE_DIR, &self->s));
}

FIXTURE_TEARDOWN(nokernel)
{
	ue_session_close(self->s);
	old_kernel_fake = false;
	old_kernel_notify = false;
	old_kernel_changes = 0;
	old_kernel_loss_err = 0;
	old_kernel_flags = ~0U;
	memset(&old_kernel_loss, 0, sizeof(old_kernel_loss));
	unlink(FAKE_DATA);
	rmdir(FAKE_DIR);
}

TEST_F(nokernel, arguments)
{
	struct ue_event *e;
	struct ue_loss l;
	uint64_t n;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_args u32 a", 0, &e));
	EXPECT_EQ(-EINVAL, ue_session_wait(NULL, 0, &n));
	EXPECT_EQ(-EINVAL, ue_session_wait(self->s, 0, NULL));
	EXPECT_EQ(-EINVAL, ue_event_loss(NULL, &l));
	EXPECT_EQ(-EINVAL, ue_event_loss(e, NULL));
	EXPECT_EQ(0, ue_event_close(e));
}

/* A kernel without NOTIFY: the flag is dropped first, or fails strict. */
TEST_F(nokernel, notify_fallback)
{
	unsigned int mf = UE_FLAG_MULTI_FORMAT, p = UE_FLAG_PERSIST;
	struct ue_event *e;
	uint64_t n;

	old_kernel_flags = mf | p;
	old_kernel_registrations = 0;
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_nf1 u32 a",
				 UE_FLAG_NOTIFY | mf, &e));
	EXPECT_EQ(2, old_kernel_registrations);
	EXPECT_EQ(mf, ue_event_flags(e));
	EXPECT_EQ(UE_FLAG_NOTIFY, ue_event_dropped_flags(e));
	/* upstream's file: always ready, read() EINVAL */
	EXPECT_EQ(-EOPNOTSUPP, ue_session_wait(self->s, 0, &n));
	EXPECT_EQ(0, ue_event_close(e));

	old_kernel_registrations = 0;
	EXPECT_EQ(-EINVAL, ue_register(self->s, "uet_lib_nf2 u32 a",
				       UE_FLAG_NOTIFY | UE_FLAG_STRICT, &e));
	EXPECT_EQ(1, old_kernel_registrations);

	/* before 6.6: NOTIFY, then every flag */
	old_kernel_flags = 0;
	old_kernel_registrations = 0;
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_nf3 u32 a",
				 UE_FLAG_NOTIFY | p, &e));
	EXPECT_EQ(3, old_kernel_registrations);
	EXPECT_EQ(0, ue_event_flags(e));
	EXPECT_EQ(UE_FLAG_NOTIFY | p, ue_event_dropped_flags(e));
	EXPECT_EQ(0, ue_event_close(e));
}

TEST_F(nokernel, wait)
{
	struct ue_event *e;
	uint64_t n = 77;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_wait u32 a",
				 UE_FLAG_NOTIFY | UE_FLAG_STRICT, &e));
	EXPECT_EQ(UE_FLAG_NOTIFY, ue_event_flags(e));
	EXPECT_EQ(-ETIMEDOUT, ue_session_wait(self->s, 0, &n));
	EXPECT_EQ(77, n);

	old_kernel_changes = 3;
	EXPECT_EQ(0, ue_session_wait(self->s, 0, &n));
	EXPECT_EQ(3, n);
	EXPECT_EQ(-ETIMEDOUT, ue_session_wait(self->s, 0, &n));
	EXPECT_EQ(0, ue_event_close(e));
}

TEST_F(nokernel, loss)
{
	struct ue_event *e, *e2;
	struct ue_loss l;
	char text[128];

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_lo1 u32 a", 0, &e));
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_lo2 u32 a", 0, &e2));

	/* a kernel without it: ENOTTY */
	old_kernel_loss_err = ENOTTY;
	EXPECT_EQ(-EOPNOTSUPP, ue_event_loss(e, &l));
	old_kernel_loss_err = ENOENT;
	EXPECT_EQ(-ENOENT, ue_event_loss(e, &l));
	old_kernel_loss_err = 0;

	old_kernel_loss = (struct user_loss){
		.size = sizeof(struct user_loss), .written = 10,
		.lost_ftrace = 1, .lost_perf = 2, .lost_fault = 3,
		.lost_size = 4,
	};
	memset(&l, 0xff, sizeof(l));
	ASSERT_EQ(0, ue_event_loss(e2, &l));
	EXPECT_EQ(sizeof(struct user_loss), old_kernel_asked.size);
	EXPECT_EQ(ue_event_write_index(e2), old_kernel_asked.write_index);
	EXPECT_STREQ("10 1 2 3 4", loss_text(&l, text, sizeof(text)));

	/* a kernel that knows fewer counters: the others read 0 */
	old_kernel_loss.size = 24;
	memset(&l, 0xff, sizeof(l));
	ASSERT_EQ(0, ue_event_loss(e, &l));
	EXPECT_EQ(ue_event_write_index(e), old_kernel_asked.write_index);
	EXPECT_STREQ("10 1 0 0 0", loss_text(&l, text, sizeof(text)));

	EXPECT_EQ(0, ue_event_close(e));
	EXPECT_EQ(0, ue_event_close(e2));
}

/* ---------------------------------------------------------------------
 * Batches without a kernel: the played kernel writes the records it takes
 * to the session's file, which the tests read back.
 */

FIXTURE(fakebatch) {
	struct ue_session *s;
	struct ue_batch *b;
	bool asked;		/* the session tried DIAG_IOCSBATCH */
};

FIXTURE_VARIANT(fakebatch) {
	bool no_batch;
};

FIXTURE_VARIANT_ADD(fakebatch, ioctl) { .no_batch = false };
FIXTURE_VARIANT_ADD(fakebatch, write) { .no_batch = true };

FIXTURE_SETUP(fakebatch)
{
	mkdir(FAKE_DIR, 0700);
	ASSERT_EQ(0, tfs_put(open(FAKE_DATA, O_RDWR | O_CREAT | O_TRUNC |
				  O_CLOEXEC, 0600), ""));
	old_kernel_fake = true;
	old_kernel_no_batch = variant->no_batch;
	old_kernel_registrations = 0;
	old_kernel_batch_calls = 0;
	old_kernel_writes = 0;
	old_kernel_batch_max = 0;
	ASSERT_EQ(0, ue_session_open(FAKE_DIR, &self->s));
	ASSERT_EQ(0, ue_batch_open(self->s, 0, 0, &self->b));
}

FIXTURE_TEARDOWN(fakebatch)
{
	ue_batch_close(self->b);
	ue_session_close(self->s);
	old_kernel_fake = false;
	old_kernel_no_batch = false;
	old_kernel_batch_err = 0;
	memset(old_kernel_write_err, 0, sizeof(old_kernel_write_err));
	unlink(FAKE_DATA);
	rmdir(FAKE_DIR);
}

/* The played kernel's enable word of @e: the test sets it. */
static void fake_enable(struct ue_event *e, bool on)
{
	__atomic_store_n(&((struct ue_event_head *)e)->enabled, on,
			 __ATOMIC_RELAXED);
}

/* Register @prefix"a u32 n" as *@a and @prefix"b u32 n" as *@b, traced */
static int fake_two(struct ue_session *s, const char *prefix,
		    struct ue_event **a, struct ue_event **b)
{
	char cmd[64];
	int ret;

	snprintf(cmd, sizeof(cmd), "%sa u32 n", prefix);
	ret = ue_register(s, cmd, 0, a);
	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "%sb u32 n", prefix);
	ret = ue_register(s, cmd, 0, b);
	if (ret)
		return ret;
	fake_enable(*a, true);
	fake_enable(*b, true);
	return 0;
}

/* Everything written to the played kernel's file: its length, or -1. */
static ssize_t fake_written(void *buf, size_t len)
{
	int fd = open(FAKE_DATA, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

/* The u32 records "[index][n]" written, in @idx and @val: their count. */
static int fake_records(uint32_t *idx, uint32_t *val, int max)
{
	uint32_t buf[256];
	ssize_t len = fake_written(buf, sizeof(buf));
	int i;

	if (len < 0 || len % 8)
		return -1;
	for (i = 0; i < len / 8 && i < max; i++) {
		idx[i] = buf[2 * i];
		val[i] = buf[2 * i + 1];
	}
	return len / 8;
}

/* The system calls of submits, the ioctl played */
#define EXPECT_FAKE_CALLS(calls, tried) \
	EXPECT_SUBMIT_CALLS(!variant->no_batch, calls, tried)

/* A batch's records are, byte for byte, what ue_write() writes. */
TEST_F(fakebatch, same_bytes)
{
	static char once[4096], twice[8192];
	struct uet_pt pt = UET_PT_INIT;
	struct ue_value v[15];
	uint32_t a = 77, loc = DYN_LOC(0, 4);
	struct iovec iov[3] = {
		{ &a, 4 }, { &loc, 4 }, { "raw", 4 },
	};
	struct ue_event *e, *r;
	ssize_t len;
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fball " ALL_FIELDS, 0, &e));
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbraw u32 a; __rel_loc char[] s",
				 0, &r));
	fake_enable(e, true);
	fake_enable(r, true);
	all_values(v, &pt, NULL);

	ASSERT_EQ(0, ue_write(e, 'A', -128, 0x1234, -2, 0xdeadbeef, -7,
			      (uint64_t)0x123456789ull, (int64_t)-9, "hi",
			      "xyz", "dl-str", "rl-str", "blob", (size_t)4,
			      &pt));
	ASSERT_EQ(0, ue_write_values(e, v, 14));
	ASSERT_EQ(0, ue_write_raw(r, iov, 3));
	len = fake_written(once, sizeof(once));
	ASSERT_LT(0, len);

	ASSERT_EQ(0, ue_batch_add(self->b, e, 'A', -128, 0x1234, -2, 0xdeadbeef,
				  -7, (uint64_t)0x123456789ull, (int64_t)-9,
				  "hi", "xyz", "dl-str", "rl-str", "blob",
				  (size_t)4, &pt));
	ASSERT_EQ(0, ue_batch_add_values(self->b, e, v, 14));
	ASSERT_EQ(0, ue_batch_add_raw(self->b, r, iov, 3));
	EXPECT_EQ(3, ue_batch_submit(self->b, &err));
	EXPECT_EQ(0, err);
	EXPECT_FAKE_CALLS(1, 3);
	ASSERT_EQ(2 * len, fake_written(twice, sizeof(twice)));
	EXPECT_EQ(0, memcmp(once, twice + len, len));
}

TEST_F(fakebatch, arguments)
{
	struct ue_batch *b = (struct ue_batch *)1;
	struct ue_session *s2;
	struct ue_event *e, *other;
	struct ue_value v = { .u = 1 };
	uint32_t n = 1;
	struct iovec iov[2] = { { &n, 4 }, { NULL, 1 } };
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbarg u32 a", 0, &e));
	fake_enable(e, true);

	EXPECT_EQ(-EINVAL, ue_batch_open(NULL, 0, 0, &b));
	EXPECT_TRUE(!b);
	EXPECT_EQ(-EINVAL, ue_batch_open(self->s, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, ue_batch_open(self->s, 0, (unsigned int)INT_MAX + 1,
					 &b));
	ue_batch_close(NULL);

	EXPECT_EQ(-EINVAL, ue_batch_add(NULL, e, 1u));
	EXPECT_EQ(-EINVAL, ue_batch_add(self->b, NULL));
	EXPECT_EQ(-EINVAL, ue_batch_add_values(self->b, e, &v, 2));
	EXPECT_EQ(-EINVAL, ue_batch_add_values(self->b, e, NULL, 1));
	EXPECT_EQ(-EINVAL, ue_batch_add_values(NULL, e, &v, 1));
	EXPECT_EQ(-EINVAL, ue_batch_add_raw(self->b, e, NULL, 1));
	EXPECT_EQ(-EINVAL, ue_batch_add_raw(self->b, e, iov, IOV_MAX));
	EXPECT_EQ(-EFAULT, ue_batch_add_raw(self->b, e, iov, 2));
	EXPECT_EQ(-EINVAL, ue_batch_submit(NULL, &err));
	EXPECT_EQ(0, err);

	/* an event of another session (another file) */
	ASSERT_EQ(0, ue_session_open(FAKE_DIR, &s2));
	ASSERT_EQ(0, ue_register(s2, "uet_lib_fbarg u32 a", 0, &other));
	fake_enable(other, true);
	EXPECT_EQ(-EINVAL, ue_batch_add(self->b, other, 1u));
	EXPECT_EQ(-EINVAL, ue_batch_add_values(self->b, other, &v, 1));
	EXPECT_EQ(-EINVAL, ue_batch_add_raw(self->b, other, iov, 1));
	ue_session_close(s2);

	/* a record ue_write() refuses before writing is refused at add */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbarg2 struct x x 4", 0,
				 &other));
	fake_enable(other, true);
	EXPECT_EQ(-EFAULT, ue_batch_add(self->b, other, NULL));
	EXPECT_EQ(0, ue_batch_count(self->b));
	EXPECT_EQ(0, ue_event_close(other));

	/* a layout the library does not know: raw only */
	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbarg3 u32 a b c", 0,
				 &other));
	fake_enable(other, true);
	EXPECT_EQ(-EOPNOTSUPP, ue_batch_add(self->b, other, 1u));
	EXPECT_EQ(0, ue_batch_add_raw(self->b, other, iov, 1));
	EXPECT_EQ(1, ue_batch_count(self->b));
	EXPECT_EQ(0, ue_event_close(other));
	EXPECT_EQ(0, ue_event_close(e));
}

TEST_F(fakebatch, untraced)
{
	struct ue_event *e;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fboff u32 a", 0, &e));
	EXPECT_EQ(-EBADF, ue_batch_add(self->b, e, 1u));
	EXPECT_EQ(0, ue_batch_count(self->b));
	fake_enable(e, true);
	EXPECT_EQ(0, ue_batch_add(self->b, e, 1u));
	fake_enable(e, false);
	EXPECT_EQ(-EBADF, ue_batch_add(self->b, e, 2u));
	EXPECT_EQ(1, ue_batch_count(self->b));
	EXPECT_EQ(0, ue_event_close(e));
}

/* Full: of bytes, of record slots; a record larger than the buffer. */
TEST_F(fakebatch, full)
{
	static char big[200];
	struct iovec iov = { big, sizeof(big) };
	uint32_t idx[8], val[8];
	struct ue_batch *b;
	struct ue_event *e;
	int i, err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbfull u32 n", 0, &e));
	fake_enable(e, true);

	/* 20 bytes: two 8-byte records fit, a third does not */
	ASSERT_EQ(0, ue_batch_open(self->s, 20, 0, &b));
	EXPECT_EQ(0, ue_batch_add(b, e, 1u));
	EXPECT_EQ(0, ue_batch_add(b, e, 2u));
	EXPECT_EQ(-ENOSPC, ue_batch_add(b, e, 3u));
	EXPECT_EQ(2, ue_batch_count(b));
	EXPECT_EQ(2, ue_batch_submit(b, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, ue_batch_add(b, e, 3u));
	EXPECT_EQ(1, ue_batch_submit(b, &err));
	EXPECT_EQ(3, fake_records(idx, val, 8));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(ue_event_write_index(e), idx[i]);
		EXPECT_EQ(i + 1, val[i]);
	}
	/* never fits: not -ENOSPC, which asks for a submit */
	EXPECT_EQ(-EMSGSIZE, ue_batch_add_raw(b, e, &iov, 1));
	ue_batch_close(b);

	/* two record slots */
	ASSERT_EQ(0, ue_batch_open(self->s, 0, 2, &b));
	EXPECT_EQ(0, ue_batch_add(b, e, 4u));
	EXPECT_EQ(0, ue_batch_add(b, e, 5u));
	EXPECT_EQ(-ENOSPC, ue_batch_add(b, e, 6u));
	EXPECT_EQ(2, ue_batch_submit(b, &err));
	EXPECT_EQ(0, ue_batch_add(b, e, 6u));
	/* closed with a record in it: not written */
	ue_batch_close(b);
	EXPECT_EQ(5, fake_records(idx, val, 8));
	EXPECT_EQ(0, ue_event_close(e));
}

/* The kernel stops at each EBADF record; the library goes on after it. */
TEST_F(fakebatch, drop_untraced)
{
	uint32_t idx[8], val[8];
	struct ue_event *a, *b;

	ASSERT_EQ(0, fake_two(self->s, "uet_lib_fbk", &a, &b));
	ASSERT_GT(OLD_KERNEL_INDEXES, ue_event_write_index(b));
	ASSERT_EQ(0, add_ab(self->b, a, b, "babbab", 1));
	old_kernel_write_err[ue_event_write_index(b)] = EBADF;

	EXPECT_SUBMITTED(self->b, 6, 0, 4);
	EXPECT_FAKE_CALLS(4, 6);
	ASSERT_EQ(2, fake_records(idx, val, 8));
	EXPECT_EQ(2, val[0]);
	EXPECT_EQ(5, val[1]);
	EXPECT_EQ(0, ue_event_close(a));
	EXPECT_EQ(0, ue_event_close(b));
}

/* Another refusal: the count before it, its errno, nothing after it. */
TEST_F(fakebatch, stop)
{
	uint32_t idx[8], val[8];
	struct ue_event *a, *b;
	int err = 0;

	ASSERT_EQ(0, fake_two(self->s, "uet_lib_fbs", &a, &b));
	ASSERT_EQ(0, add_ab(self->b, a, b, "aaba", 1));
	old_kernel_write_err[ue_event_write_index(b)] = E2BIG;

	EXPECT_SUBMITTED(self->b, 2, -E2BIG, 0);
	EXPECT_EQ(0, ue_batch_count(self->b));
	EXPECT_FAKE_CALLS(1, 3);
	ASSERT_EQ(2, fake_records(idx, val, 8));
	EXPECT_EQ(1, val[0]);
	EXPECT_EQ(2, val[1]);

	/* after a dropped record too: the count is of the whole batch */
	old_kernel_write_err[ue_event_write_index(a)] = EBADF;
	ASSERT_EQ(0, add_ab(self->b, a, b, "ab", 5));
	EXPECT_SUBMITTED(self->b, 1, -E2BIG, 1);
	EXPECT_FAKE_CALLS(2, 2);

	/* a refusal of the whole call: nothing written, not retried */
	if (!variant->no_batch) {
		old_kernel_batch_err = ENOMEM;
		ASSERT_EQ(0, ue_batch_add(self->b, b, 7u));
		EXPECT_EQ(0, ue_batch_submit(self->b, &err));
		EXPECT_EQ(-ENOMEM, err);
		EXPECT_FAKE_CALLS(1, 0);
		/* an EBADF of the whole call is no dropped record */
		old_kernel_batch_err = EBADF;
		ASSERT_EQ(0, add_ab(self->b, a, b, "bb", 8));
		EXPECT_SUBMITTED(self->b, 0, -EBADF, 0);
		EXPECT_FAKE_CALLS(1, 0);
	}
	EXPECT_EQ(2, fake_records(idx, val, 8));
	EXPECT_EQ(0, ue_event_close(a));
	EXPECT_EQ(0, ue_event_close(b));
}

/* ENOTTY once: the session writes without the ioctl from then on. */
TEST_F(fakebatch, remembered)
{
	struct ue_session *s2;
	struct ue_batch *b2;
	struct ue_event *e, *e2;
	int i;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbrem u32 n", 0, &e));
	fake_enable(e, true);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ue_batch_add(self->b, e, 1u));
		ASSERT_EQ(0, ue_batch_add(self->b, e, 2u));
		EXPECT_EQ(2, ue_batch_submit(self->b, NULL));
	}
	EXPECT_FAKE_CALLS(3, 6);

	/* by session: another one asks the kernel again */
	ASSERT_EQ(0, ue_session_open(FAKE_DIR, &s2));
	ASSERT_EQ(0, ue_register(s2, "uet_lib_fbrem u32 n", 0, &e2));
	fake_enable(e2, true);
	ASSERT_EQ(0, ue_batch_open(s2, 0, 0, &b2));
	ASSERT_EQ(0, ue_batch_add(b2, e2, 1u));
	EXPECT_EQ(1, ue_batch_submit(b2, NULL));
	self->asked = false;
	EXPECT_FAKE_CALLS(1, 1);
	ue_batch_close(b2);
	ue_session_close(s2);
	EXPECT_EQ(0, ue_event_close(e));
}

/* More records than one DIAG_IOCSBATCH takes: several calls. */
TEST_F(fakebatch, more_than_one_call)
{
	const unsigned int n = 2 * USER_BATCH_MAX + 1;
	struct ue_batch *big;
	struct ue_event *e;
	unsigned int i;
	struct stat st;
	int err = 1;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fbmany u32 n", 0, &e));
	fake_enable(e, true);
	ASSERT_EQ(0, ue_batch_open(self->s, 8 * n, n, &big));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ue_batch_add(big, e, i));
	EXPECT_EQ(-ENOSPC, ue_batch_add(big, e, i));
	EXPECT_EQ((int)n, ue_batch_submit(big, &err));
	EXPECT_EQ(0, err);
	if (!variant->no_batch)
		EXPECT_EQ(USER_BATCH_MAX, old_kernel_batch_max);
	EXPECT_FAKE_CALLS(3, (int)n);
	ASSERT_EQ(0, stat(FAKE_DATA, &st));
	EXPECT_EQ(8 * n, st.st_size);
	ue_batch_close(big);
	EXPECT_EQ(0, ue_event_close(e));
}

/* --------------------------------------------------------------------- */

/* The child's exit status, or -1 when it did not end in time. */
static int wait_child(pid_t pid)
{
	struct timespec t0;
	int status;
	pid_t got;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((got = waitpid(pid, &status, WNOHANG)) == 0) {
		if (since(&t0) > 4 * WAIT_SECS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		sched_yield();
	}
	if (got != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * The child inherits the registration: the kernel updates the child's
 * copy of the word, and the child writes and closes on its own.
 */
TEST_F(lib, fork)
{
	const char *tp = SYS "uet_lib_fork";
	struct ue_event *e;
	char needle[64];
	pid_t pid;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_fork u32 who", 0, &e));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int ret = 0;

		if (!enable_and_wait(tp, e))
			_exit(1);
		if (ue_write(e, (unsigned int)getpid()))
			ret = 2;
		if (ue_event_close(e))
			ret = 3;
		tfs_enable(tp, false);
		_exit(ret);
	}
	ASSERT_EQ(0, wait_child(pid));

	snprintf(needle, sizeof(needle), "uet_lib_fork: who=0x%x (%d)", pid,
		 pid);
	EXPECT_EQ(1, trace_count(needle));

	/* the parent's registration is untouched by the child's close */
	EXPECT_TRUE(wait_word(e, false));
	ASSERT_TRUE(enable_and_wait(tp, e));
	EXPECT_EQ(0, ue_write(e, (unsigned int)getpid()));
	snprintf(needle, sizeof(needle), "uet_lib_fork: who=0x%x", getpid());
	EXPECT_EQ(1, trace_count(needle));
	EXPECT_EQ(0, tfs_enable(tp, false));
	EXPECT_TRUE(wait_word(e, false));
	EXPECT_EQ(0, ue_event_close(e));
}

struct churn {
	struct ue_session *s;
	int stop;
	int errors;
	int loops;
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	struct ue_event *e;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		if (ue_register(c->s, "uet_lib_churn u32 a", 0, &e) ||
		    ue_event_close(e))
			c->errors++;
		__atomic_fetch_add(&c->loops, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * fork() while another thread registers: the child never deadlocks.
 * 20 forks or 5 s, whichever ends first: bounded by time, not work.
 */
TEST_F_TIMEOUT(lib, fork_while_registering, 120)
{
	struct churn c = { .s = self->s };
	struct timespec t0;
	pthread_t th;
	int i;

	ASSERT_EQ(0, pthread_create(&th, NULL, churn_thread, &c));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 20 && (!i || since(&t0) < 5.0); i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			struct ue_event *e;

			if (ue_register(self->s, "uet_lib_churn u32 a", 0, &e))
				_exit(1);
			_exit(ue_event_close(e) ? 2 : 0);
		}
		EXPECT_EQ(0, wait_child(pid));
	}
	/* the thread must have run at least once */
	while (!__atomic_load_n(&c.loops, __ATOMIC_RELAXED) &&
	       since(&t0) < WAIT_SECS)
		sched_yield();
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	TH_LOG("%d forks, %d register+close loops", i, c.loops);
	EXPECT_LE(1, c.loops);
	EXPECT_EQ(0, c.errors);
}

struct worker {
	struct ue_session *s;
	const struct ue_event *shared;
	struct ue_event *own[THREAD_EVENTS];
	uint32_t idx[THREAD_EVENTS];
	int id;
	int errors;
};

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	char cmd[64];
	int i;

	for (i = 0; i < THREAD_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "uet_lib_thr_%d_%d u32 a", w->id, i);
		if (ue_register(w->s, cmd, 0, &w->own[i]))
			w->errors++;
		else
			w->idx[i] = ue_event_write_index(w->own[i]);
	}
	for (i = 0; i < THREAD_WRITES; i++)
		if (ue_write(w->shared, (unsigned int)w->id))
			w->errors++;
	for (i = 0; i < THREAD_EVENTS; i++)
		if (w->own[i] && ue_event_close(w->own[i]))
			w->errors++;
	return NULL;
}

/* Concurrent registration and lock-free writes from many threads. */
TEST_F_TIMEOUT(lib, threads, 120)
{
	const int nidx = THREADS * THREAD_EVENTS;
	struct worker w[THREADS];
	pthread_t th[THREADS];
	struct ue_event *shared;
	char needle[64];
	uint32_t a, b;
	int i, j;

	ASSERT_EQ(0, ue_register(self->s, "uet_lib_thr u32 id", 0, &shared));
	ASSERT_TRUE(enable_and_wait(SYS "uet_lib_thr", shared));

	memset(w, 0, sizeof(w));
	for (i = 0; i < THREADS; i++) {
		w[i].s = self->s;
		w[i].shared = shared;
		w[i].id = i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_thread, &w[i]));
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}

	for (i = 0; i < THREADS; i++) {
		snprintf(needle, sizeof(needle), "uet_lib_thr: id=0x%x (%d)\n",
			 i, i);
		EXPECT_EQ(THREAD_WRITES, trace_count(needle));
	}
	/* every registration got its own write index */
	for (i = 0; i < nidx; i++) {
		a = w[i / THREAD_EVENTS].idx[i % THREAD_EVENTS];
		for (j = i + 1; j < nidx; j++) {
			b = w[j / THREAD_EVENTS].idx[j % THREAD_EVENTS];
			EXPECT_NE(a, b);
		}
	}
	EXPECT_EQ(0, ue_event_close(shared));
}

TEST_HARNESS_MAIN
