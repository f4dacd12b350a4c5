// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace on user events: the format file describes every field type (u8..s64, the C integer names,
 * char[N], __data_loc and __rel_loc strings, struct); consumer.*: trace and trace_pipe decode them,
 * and every consumer needing the trace core's full reserve and commit (filters on integers and
 * strings, triggers, pid filters, stacktraces, tp_printk, snapshot, instance) still sees the
 * records of an event whose other records take the lean path.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define FT_NAME		"uet_ft_all"
#define FT_CMD		FT_NAME " u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; " \
	"u64 g; s64 h; char[8] i; __data_loc char[] k; __rel_loc char[] l; " \
	"struct uet_pt n 8; unsigned int ui; short sh; char ch; int in"
#define FT_COUNT	4

struct uet_pt {
	__u32 x, y;
};

/* ftrace prints the 8 bytes as a u64: 0x200000001 on either byte order */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UET_PT_INIT	{ 2, 1 }
#else
#define UET_PT_INIT	{ 1, 2 }
#endif

FIXTURE(ftrace) {
	struct ue_session *s;
	struct ue_event *e;
};

FIXTURE_SETUP(ftrace)
{
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, FT_CMD, 0, &self->e));
}

FIXTURE_TEARDOWN(ftrace)
{
	ue_session_close(self->s);
}

/* Write the FT_COUNT records: record j has the values ft_text(j) shows */
static void ft_write(struct __test_metadata *_metadata, const struct ue_event *e)
{
	struct uet_pt pt = UET_PT_INIT;
	char i[16], k[16], l[16];
	int j;

	for (j = 0; j < FT_COUNT; j++) {
		snprintf(i, sizeof(i), "hi%d", j);
		snprintf(k, sizeof(k), "dl-%d", j);
		snprintf(l, sizeof(l), "rl-%d", j);
		ASSERT_EQ(0, ue_write(e, 'A' + j, -128, 0x1234 + j, -2, 0xdeadbeef, -7 - j,
				      (__u64)0x123456789ull + j, (__s64)-9,
				      i, k, l, &pt, 4000000000u, -300, 'z', -1));
	}
}

/* print_event_fields() output for record @j */
#define FT_TEXT	"%s: a='%c'(%d) b=(128) c=0x%x (%d) d=0xfffe (65534) " \
	"e=0xdeadbeef (-559038737) f=0x%x (%d) g=0x%llx (%llu) " \
	"h=0xfffffffffffffff7 (-9) i=hi%d k=dl-%d l=rl-%d " \
	"n=0x200000001 (8589934593) ui=0xee6b2800 (-294967296) " \
	"sh=0xfed4 (65236) ch='z'(122) in=0xffffffff (-1)\n"

static void ft_text(char *buf, size_t len, int j)
{
	snprintf(buf, len, FT_TEXT, FT_NAME, 'A' + j, 'A' + j, 0x1234 + j,
		 0x1234 + j, (unsigned int)(-7 - j), -7 - j,
		 0x123456789ull + j, 0x123456789ull + j, j, j, j);
}

/*
 * What the O_NONBLOCK @fd has now: until @want records came (bounded by UE_WAIT_SECS), or with
 * @want 0 until there is no more.
 */
static char *ft_read_fd(int fd, int want)
{
	size_t cap = 1 << 16, used = 0;
	char *buf = calloc(1, cap);
	struct timespec start;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (buf && used < cap - 1 && (!want || ue_count_str(buf, FT_NAME ":") < want)) {
		n = read(fd, buf + used, cap - 1 - used);
		if (n < 0 && errno == EPIPE)
			continue;	/* /dev/kmsg overwritten: read on */
		if (n > 0)
			used += n;
		else if (want && ue_elapsed(&start) < UE_WAIT_SECS)
			sched_yield();
		else
			break;
	}
	return buf;
}

/*
 * The format file: offsets, sizes and signedness of every field.  A field is signed unless its type
 * starts with 'u', as upstream marks it: arrays, dynamic strings and structs included.
 */
TEST_F(ftrace, format)
{
	static const struct {
		const char *decl;
		int off, size, is_signed;
	} f[] = {
		{ "u8 a", 8, 1, 0 }, { "s8 b", 9, 1, 1 }, { "u16 c", 10, 2, 0 },
		{ "s16 d", 12, 2, 1 }, { "u32 e", 14, 4, 0 }, { "s32 f", 18, 4, 1 },
		{ "u64 g", 22, 8, 0 }, { "s64 h", 30, 8, 1 }, { "char i[", 38, 8, 1 },
		{ "__data_loc char[] k", 46, 4, 1 }, { "__rel_loc char l[]", 50, 4, 1 },
		{ "struct uet_pt n", 54, 8, 1 }, { "unsigned int ui", 62, 4, 0 },
		{ "short sh", 66, 2, 1 }, { "char ch", 68, 1, 1 }, { "int in", 69, 4, 1 },
	};
	char want[128], *text = ue_format_read(UE_SYS, FT_NAME);
	unsigned int i;

	ASSERT_TRUE(ue_nonnull(text));
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		snprintf(want, sizeof(want), "field:%s", f[i].decl);
		EXPECT_TRUE(ue_nonnull(strstr(text, want))) TH_LOG("no %s", want);
		snprintf(want, sizeof(want), "offset:%d;\tsize:%d;\tsigned:%d;",
			 f[i].off, f[i].size, f[i].is_signed);
		EXPECT_TRUE(ue_nonnull(strstr(text, want))) TH_LOG("no %s (%s)", want, f[i].decl);
	}
	EXPECT_TRUE(ue_nonnull(strstr(text, "__get_rel_str(l)")));
	EXPECT_TRUE(ue_nonnull(strstr(text, "__get_str(k)")));
	if (_metadata->exit_code != KSFT_PASS)
		TH_LOG("%s", text);
	free(text);
}

/*
 * A tracefs file (or, starting with '/', any file) and what to write to it to turn a consumer on
 * and off: "$PID" is the writer's pid, "$PPID" its parent's; no values is mkdir() and rmdir().
 */
struct ft_act {
	const char *path, *on, *off;
};

#define FT_EV		"events/" UE_SYS "/" FT_NAME "/"
#define FT_INST		"instances/uet_ft_consumer"
#define FT_TP_PRINTK	"/proc/sys/kernel/tracepoint_printk"
#define FT_SOFT		"enable_event:" UE_SYS ":" FT_NAME

/* The event, registered and enabled in the top-level instance */
FIXTURE(consumer) {
	struct ue_session *s;
	struct ue_event *e;
	struct ue_track t;
	int fd;		/* /dev/kmsg or trace_pipe, read by ft_read_fd() */
};

/*
 * Turn a consumer on (@act), write FT_COUNT records, then count @needle (NULL: the records) in
 * @where (NULL: trace; trace_pipe: consumed, the trace has none left): @want of them.  A consumer
 * this kernel lacks (ENOENT, or no tp_printk at boot) is a skip.
 */
FIXTURE_VARIANT(consumer) {
	struct ft_act act[2];	/* undone in reverse order */
	const char *where, *needle;
	int want;
	unsigned int hits;	/* bit j: record j decoded once, else absent (0: unchecked) */
	bool traceoff;	/* tracing_on reads 0 after the writes */
	bool snapshot;	/* take a snapshot after the writes */
	bool kmsg;	/* in /dev/kmsg instead, no <OVERFLOW> */
};

FIXTURE_VARIANT_ADD(consumer, trace_file) { .want = FT_COUNT, .hits = 0xf };
FIXTURE_VARIANT_ADD(consumer, trace_pipe) { .where = "trace_pipe", .want = FT_COUNT, .hits = 0xf };

FIXTURE_VARIANT_ADD(consumer, filter) {
	.act = { { FT_EV "filter", "c == 0x1235", "0" } }, .want = 1, .hits = 1 << 1,
};

/* on an integer or a __rel_loc string */
FIXTURE_VARIANT_ADD(consumer, filter_or) {
	.act = { { FT_EV "filter", "c == 0x1235 || l == \"rl-3\"", "0" } },
	.want = 2, .hits = 1 << 1 | 1 << 3,
};

/* a glob on a __data_loc string */
FIXTURE_VARIANT_ADD(consumer, filter_glob) {
	.act = { { FT_EV "filter", "k ~ \"dl-[02]\"", "0" } },
	.want = 2, .hits = 1 << 0 | 1 << 2,
};

/* traceoff runs after the commit: the first record stops tracing */
FIXTURE_VARIANT_ADD(consumer, trigger) {
	.act = { { FT_EV "trigger", "traceoff", "!traceoff" } }, .want = 1, .traceoff = true,
};

/* with a condition on the record: the third one stops tracing */
FIXTURE_VARIANT_ADD(consumer, trigger_cond) {
	.act = { { FT_EV "trigger", "traceoff if c == 0x1236", "!traceoff" } },
	.want = 3, .traceoff = true,
};

/*
 * Soft-disabled, with a trigger that enables it (soft mode): the first record only runs the
 * trigger and is dropped, the others are recorded.
 */
FIXTURE_VARIANT_ADD(consumer, soft_disabled) {
	.act = { { FT_EV "enable", "0", "1" }, { FT_EV "trigger", FT_SOFT, "!" FT_SOFT } },
	.want = FT_COUNT - 1, .hits = 0xe,
};

FIXTURE_VARIANT_ADD(consumer, pid_other) { .act = { { "set_event_pid", "$PPID", "" } } };
FIXTURE_VARIANT_ADD(consumer, pid_self) {
	.act = { { "set_event_pid", "$PID", "" } }, .want = FT_COUNT,
};

FIXTURE_VARIANT_ADD(consumer, notrace_pid_self) {
	.act = { { "set_event_notrace_pid", "$PID", "" } },
};

FIXTURE_VARIANT_ADD(consumer, stacktrace) {
	.act = { { "options/stacktrace", "1", "0" } }, .needle = "<stack trace>", .want = FT_COUNT,
};

FIXTURE_VARIANT_ADD(consumer, userstacktrace) {
	.act = { { "options/userstacktrace", "1", "0" } },
	.needle = "<user stack trace>", .want = FT_COUNT,
};

/*
 * Every record decoded as trace shows it (6.12's output_printk() hands print_event_fields() no
 * record length: "<OVERFLOW>" for every field, and a lockdep WARN).
 */
FIXTURE_VARIANT_ADD(consumer, tp_printk) {
	.act = { { FT_TP_PRINTK, "1", "0" } }, .want = FT_COUNT, .hits = 0xf, .kmsg = true,
};

/* a filter that passes all: the record is built in the buffered event */
FIXTURE_VARIANT_ADD(consumer, tp_printk_filtered) {
	.act = { { FT_EV "filter", "c != 0", "0" }, { FT_TP_PRINTK, "1", "0" } },
	.want = FT_COUNT, .hits = 0xf, .kmsg = true,
};

FIXTURE_VARIANT_ADD(consumer, snapshot) { .where = "snapshot", .want = FT_COUNT, .snapshot = true };

FIXTURE_VARIANT_ADD(consumer, instance) {
	.act = { { FT_INST }, { FT_INST "/" FT_EV "enable", "1", "0" } },
	.where = FT_INST "/trace", .want = FT_COUNT,
};

/* Turn @a on or off: 0 or -errno. */
static int ft_act_do(const struct ft_act *a, bool on)
{
	const char *v = on ? a->on : a->off;
	char path[PATH_MAX], val[64];

	if (a->path[0] == '/')
		snprintf(path, sizeof(path), "%s", a->path);
	else
		ue_tpath(path, sizeof(path), "%s", a->path);
	if (!v)
		return (on ? mkdir(path, 0755) : rmdir(path)) ? -errno : 0;
	if (!strcmp(v, "$PID") || !strcmp(v, "$PPID"))
		snprintf(val, sizeof(val), "%d", strcmp(v, "$PID") ? getppid() : getpid());
	else
		snprintf(val, sizeof(val), "%s", v);
	return ue_write_str(path, val, O_TRUNC);
}

static const struct ft_act ft_tracing_on = { "tracing_on", "1", "0" };
static const struct ft_act ft_snapshot = { "snapshot", "1", "0" };

FIXTURE_SETUP(consumer)
{
	char *v;
	int i, ret;

	self->fd = -1;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_track_init(&self->t));
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, FT_CMD, 0, &self->e));
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, FT_NAME));
	ASSERT_TRUE(ue_wait_lib(self->e, true));
	if (variant->kmsg) {
		self->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
		ASSERT_LE(0, lseek(self->fd, 0, SEEK_END));
	}
	for (i = 0; i < ARRAY_SIZE(variant->act) && variant->act[i].path; i++) {
		ret = ft_act_do(&variant->act[i], true);
		if (ret == -ENOENT)
			SKIP(return, "no %s", variant->act[i].path);
		ASSERT_EQ(0, ret) TH_LOG("%s", variant->act[i].path);
	}
	if (variant->kmsg) {
		v = ue_read_all(FT_TP_PRINTK);
		ret = v && v[0] == '1';
		free(v);
		if (!ret)
			SKIP(return, "tracepoint_printk needs tp_printk at boot");
	}
}

FIXTURE_TEARDOWN(consumer)
{
	int i;

	for (i = ARRAY_SIZE(variant->act) - 1; i >= 0; i--)
		if (variant->act[i].path)
			ft_act_do(&variant->act[i], false);
	if (variant->traceoff)
		ft_act_do(&ft_tracing_on, true);
	if (variant->snapshot)
		ft_act_do(&ft_snapshot, false);
	if (self->fd >= 0)
		close(self->fd);
	ue_track_cleanup(&self->t);
	ue_session_close(self->s);
}

TEST_F(consumer, sees_records)
{
	const char *needle = variant->needle ?: FT_NAME ":";
	const char *where = variant->where ?: "trace";
	bool pipe = !strcmp(where, "trace_pipe");
	char path[PATH_MAX], want[512], *text;
	int i;

	ft_write(_metadata, self->e);
	if (variant->snapshot)
		ASSERT_EQ(0, ft_act_do(&ft_snapshot, true));
	if (variant->traceoff) {
		text = ue_read_all(ue_tpath(path, sizeof(path), "tracing_on"));
		ASSERT_TRUE(ue_nonnull(text));
		EXPECT_EQ('0', text[0]) TH_LOG("tracing_on: %s", text);
		free(text);
	}
	ue_tpath(path, sizeof(path), "%s", where);
	if (pipe) {
		self->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
	}
	if (self->fd >= 0)
		text = ft_read_fd(self->fd, pipe ? FT_COUNT : 0);
	else
		text = ue_read_all(path);
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(variant->want, ue_count_str(text, needle))
		TH_LOG("%s in %s:\n%s", needle, where, text);
	for (i = 0; variant->hits && i < FT_COUNT; i++) {
		ft_text(want, sizeof(want), i);
		EXPECT_EQ(variant->hits >> i & 1, ue_count_str(text, want)) TH_LOG("%s", want);
	}
	if (variant->kmsg)
		EXPECT_EQ(0, ue_count_str(text, "<OVERFLOW>")) TH_LOG("%s", text);
	free(text);
	if (pipe) {
		text = ue_trace_read();
		ASSERT_TRUE(ue_nonnull(text));
		EXPECT_EQ(0, ue_count_str(text, FT_NAME ":"));
		free(text);
	}
}

TEST_HARNESS_MAIN
