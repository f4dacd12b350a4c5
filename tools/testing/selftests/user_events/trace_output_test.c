// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace on user events: the trace and trace_pipe files show every field
 * of every event with all field types decoded (u8..s64, the C integer
 * names, char[N], __data_loc and __rel_loc strings, struct); the format
 * file describes them; event filters work on integer and string fields.
 *
 * consumer.*: every consumer that needs the trace core's full reserve and
 * commit (a filter, triggers with and without a condition, pid filters,
 * the stacktrace options, tp_printk) still sees the records of an event
 * whose other records take the lean path, and so do a snapshot and an
 * instance.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "../kselftest_harness.h"
#include "ue_util.h"

#define FT_NAME		"uet_ft_all"
#define FT_CMD		FT_NAME " u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; " \
	"u64 g; s64 h; char[8] i; __data_loc char[] k; __rel_loc char[] l; " \
	"struct uet_pt n 8; unsigned int ui; short sh; char ch; int in"
#define FT_COUNT	4

struct uet_pt {
	uint32_t x, y;
};

/* ftrace prints the 8 bytes as a u64: 0x200000001 on either byte order */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UET_PT_INIT	{ 2, 1 }
#else
#define UET_PT_INIT	{ 1, 2 }
#endif

/* The event, registered and enabled in the top-level instance. */
struct ft_event {
	struct ue_session *s;
	struct ue_event *e;
	struct ue_track t;
};

static void ft_setup(struct __test_metadata *_metadata, struct ft_event *f)
{
	struct timespec start;

	f->s = NULL;
	f->t.fd = -1;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_track_init(&f->t));
	ASSERT_EQ(0, ue_session_open(NULL, &f->s));
	ASSERT_EQ(0, ue_register(f->s, FT_CMD, 0, &f->e));
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_track_enable(&f->t, UE_SYS, FT_NAME));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ue_enabled(f->e))
		ASSERT_LT(ue_elapsed(&start), UE_WAIT_SECS);
}

static void ft_teardown(struct ft_event *f)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "events/%s/%s/filter", UE_SYS, FT_NAME);
	ue_write_str(path, "0", O_TRUNC);
	ue_track_cleanup(&f->t);
	ue_session_close(f->s);
}

FIXTURE(ftrace) {
	struct ft_event f;
};

FIXTURE_SETUP(ftrace)
{
	ft_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN(ftrace)
{
	ft_teardown(&self->f);
}

static int ft_write(const struct ue_event *e, int j)
{
	struct uet_pt pt = UET_PT_INIT;
	char i[16], k[16], l[16];

	snprintf(i, sizeof(i), "hi%d", j);
	snprintf(k, sizeof(k), "dl-%d", j);
	snprintf(l, sizeof(l), "rl-%d", j);
	return ue_write(e, 'A' + j, -128, 0x1234 + j, -2, 0xdeadbeef, -7 - j,
			(uint64_t)0x123456789ull + j, (int64_t)-9, i, k, l, &pt,
			4000000000u, -300, 'z', -1);
}

/* print_event_fields() output for event @j */
static void ft_text(char *buf, size_t len, int j)
{
	size_t n;

	n = snprintf(buf, len, "%s: a='%c'(%d) b=(128) ", FT_NAME, 'A' + j,
		     'A' + j);
	n += snprintf(buf + n, len - n, "c=0x%x (%d) d=0xfffe (65534) ",
		      0x1234 + j, 0x1234 + j);
	n += snprintf(buf + n, len - n, "e=0xdeadbeef (-559038737) ");
	n += snprintf(buf + n, len - n, "f=0x%x (%d) ", (unsigned int)(-7 - j),
		      -7 - j);
	n += snprintf(buf + n, len - n, "g=0x%llx (%llu) ", 0x123456789ull + j,
		      0x123456789ull + j);
	n += snprintf(buf + n, len - n, "h=0xfffffffffffffff7 (-9) ");
	n += snprintf(buf + n, len - n, "i=hi%d k=dl-%d l=rl-%d ", j, j, j);
	n += snprintf(buf + n, len - n, "n=0x200000001 (8589934593) ");
	n += snprintf(buf + n, len - n, "ui=0xee6b2800 (-294967296) ");
	snprintf(buf + n, len - n,
		 "sh=0xfed4 (65236) ch='z'(122) in=0xffffffff (-1)\n");
}

/* Everything trace_pipe has now; it is consumed. */
static char *read_pipe_all(int want_lines)
{
	char path[PATH_MAX], *buf;
	size_t cap = 1 << 16, used = 0;
	struct timespec start;
	int fd, lines = 0;
	ssize_t n;

	ue_tpath(path, sizeof(path), "trace_pipe");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = calloc(1, cap);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (buf && lines < want_lines && used < cap - 1 &&
	       ue_elapsed(&start) < UE_WAIT_SECS) {
		n = read(fd, buf + used, cap - 1 - used);
		if (n > 0) {
			used += n;
			buf[used] = '\0';
			lines = ue_count_str(buf, FT_NAME ":");
		} else {
			sched_yield();
		}
	}
	close(fd);
	return buf;
}

TEST_F(ftrace, trace_file)
{
	char want[512], line[512], *text;
	int j;

	for (j = 0; j < FT_COUNT; j++)
		ASSERT_EQ(0, ft_write(self->f.e, j));

	text = ue_trace_read();
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(FT_COUNT, ue_count_str(text, FT_NAME ":"));
	for (j = 0; j < FT_COUNT; j++) {
		ft_text(want, sizeof(want), j);
		EXPECT_EQ(1, ue_count_str(text, want)) TH_LOG("missing %s", want);
	}
	if (ue_find_line(text, FT_NAME ":", line, sizeof(line)))
		TH_LOG("trace: %s", line);
	free(text);
}

TEST_F(ftrace, trace_pipe)
{
	char want[512], *text;
	int j;

	for (j = 0; j < FT_COUNT; j++)
		ASSERT_EQ(0, ft_write(self->f.e, j));

	text = read_pipe_all(FT_COUNT);
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(FT_COUNT, ue_count_str(text, FT_NAME ":"));
	for (j = 0; j < FT_COUNT; j++) {
		ft_text(want, sizeof(want), j);
		EXPECT_EQ(1, ue_count_str(text, want)) TH_LOG("missing %s", want);
	}
	free(text);

	/* consumed: trace has no more of them */
	text = ue_trace_read();
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(0, ue_count_str(text, FT_NAME ":"));
	free(text);
}

/*
 * The format file: offsets, sizes and signedness of every field.  A field
 * is signed unless its type starts with 'u', as upstream marks it: arrays,
 * dynamic strings and structs included.
 */
TEST_F(ftrace, format)
{
	static const struct {
		const char *decl;
		int off, size, is_signed;
	} f[] = {
		{ "u8 a", 8, 1, 0 }, { "s8 b", 9, 1, 1 },
		{ "u16 c", 10, 2, 0 }, { "s16 d", 12, 2, 1 },
		{ "u32 e", 14, 4, 0 }, { "s32 f", 18, 4, 1 },
		{ "u64 g", 22, 8, 0 }, { "s64 h", 30, 8, 1 },
		{ "char i[", 38, 8, 1 }, { "__data_loc char[] k", 46, 4, 1 },
		{ "__rel_loc char l[]", 50, 4, 1 },
		{ "struct uet_pt n", 54, 8, 1 },
		{ "unsigned int ui", 62, 4, 0 }, { "short sh", 66, 2, 1 },
		{ "char ch", 68, 1, 1 }, { "int in", 69, 4, 1 },
	};
	char path[PATH_MAX], want[128], *text;
	unsigned int i;

	ue_tpath(path, sizeof(path), "events/%s/%s/format", UE_SYS, FT_NAME);
	text = ue_read_all(path);
	ASSERT_TRUE(ue_nonnull(text));
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		snprintf(want, sizeof(want), "field:%s", f[i].decl);
		EXPECT_TRUE(ue_nonnull(strstr(text, want))) TH_LOG("no %s", want);
		snprintf(want, sizeof(want), "offset:%d;\tsize:%d;\tsigned:%d;",
			 f[i].off, f[i].size, f[i].is_signed);
		EXPECT_TRUE(ue_nonnull(strstr(text, want)))
			TH_LOG("no %s (%s)", want, f[i].decl);
	}
	EXPECT_TRUE(ue_nonnull(strstr(text, "__get_rel_str(l)")));
	EXPECT_TRUE(ue_nonnull(strstr(text, "__get_str(k)")));
	if (_metadata->exit_code != KSFT_PASS)
		TH_LOG("%s", text);
	free(text);
}

/* Event filters on an integer, a __rel_loc and a __data_loc string. */
TEST_F(ftrace, filter)
{
	static const struct { const char *filter; int hits[2]; } f[] = {
		{ "c == 0x1235 || l == \"rl-3\"", { 1, 3 } },
		{ "k ~ \"dl-[02]\"", { 0, 2 } },	/* a glob */
	};
	char path[PATH_MAX], want[512], *text;
	int i, j;

	ue_tpath(path, sizeof(path), "events/%s/%s/filter", UE_SYS, FT_NAME);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		ASSERT_EQ(0, ue_trace_clear());
		ASSERT_EQ(0, ue_write_str(path, f[i].filter, O_TRUNC));
		for (j = 0; j < FT_COUNT; j++)
			ASSERT_EQ(0, ft_write(self->f.e, j));
		text = ue_trace_read();
		ASSERT_TRUE(ue_nonnull(text));
		EXPECT_EQ(2, ue_count_str(text, FT_NAME ":"))
			TH_LOG("%s", f[i].filter);
		for (j = 0; j < 2; j++) {
			ft_text(want, sizeof(want), f[i].hits[j]);
			EXPECT_EQ(1, ue_count_str(text, want));
		}
		free(text);
	}
}

/*
 * A tracefs file (or, starting with '/', any file) and what to write to
 * it: "$PID" is the writer's pid, "$PPID" its parent's; a NULL value is
 * mkdir() (rmdir() when undoing).
 */
struct ft_act {
	const char *path, *val;
};

#define FT_EV		"events/" UE_SYS "/" FT_NAME "/"
#define FT_INST		"instances/uet_ft_consumer"
#define FT_KMSG		"/dev/kmsg"
#define FT_TP_PRINTK	"/proc/sys/kernel/tracepoint_printk"

FIXTURE(consumer) {
	struct ft_event f;
	int kmsg;
};

/*
 * Turn a consumer on, write FT_COUNT records, then count @needle in
 * @where: @want of them.  @after runs between the writes and the count,
 * @off (in order) at the end.  A consumer this kernel lacks (@on fails
 * with ENOENT, or tp_printk was not set up at boot) is a skip.
 */
FIXTURE_VARIANT(consumer) {
	struct ft_act on[3], after[1], off[3];
	const char *where, *needle, *absent;
	bool decoded;			/* each record's ft_text() once */
	int want;
	const char *state, *state_val;	/* a file to read after the writes */
};

FIXTURE_VARIANT_ADD(consumer, filter) {
	.on = { { FT_EV "filter", "c == 0x1235" } },
	.off = { { FT_EV "filter", "0" } },
	.where = "trace", .want = 1,
};

/* traceoff runs after the commit: the first record stops tracing */
FIXTURE_VARIANT_ADD(consumer, trigger) {
	.on = { { FT_EV "trigger", "traceoff" } },
	.off = { { FT_EV "trigger", "!traceoff" }, { "tracing_on", "1" } },
	.where = "trace", .want = 1,
	.state = "tracing_on", .state_val = "0",
};

/* with a condition on the record: the third one stops tracing */
FIXTURE_VARIANT_ADD(consumer, trigger_cond) {
	.on = { { FT_EV "trigger", "traceoff if c == 0x1236" } },
	.off = { { FT_EV "trigger", "!traceoff" }, { "tracing_on", "1" } },
	.where = "trace", .want = 3,
	.state = "tracing_on", .state_val = "0",
};

FIXTURE_VARIANT_ADD(consumer, pid_other) {
	.on = { { "set_event_pid", "$PPID" } },
	.off = { { "set_event_pid", "" } },
	.where = "trace", .want = 0,
};

FIXTURE_VARIANT_ADD(consumer, pid_self) {
	.on = { { "set_event_pid", "$PID" } },
	.off = { { "set_event_pid", "" } },
	.where = "trace", .want = FT_COUNT,
};

FIXTURE_VARIANT_ADD(consumer, notrace_pid_self) {
	.on = { { "set_event_notrace_pid", "$PID" } },
	.off = { { "set_event_notrace_pid", "" } },
	.where = "trace", .want = 0,
};

FIXTURE_VARIANT_ADD(consumer, stacktrace) {
	.on = { { "options/stacktrace", "1" } },
	.off = { { "options/stacktrace", "0" } },
	.where = "trace", .needle = "<stack trace>", .want = FT_COUNT,
};

FIXTURE_VARIANT_ADD(consumer, userstacktrace) {
	.on = { { "options/userstacktrace", "1" } },
	.off = { { "options/userstacktrace", "0" } },
	.where = "trace", .needle = "<user stack trace>", .want = FT_COUNT,
};

/*
 * Every record decoded as trace shows it (6.12's output_printk() hands
 * print_event_fields() no record length: "<OVERFLOW>" for every field,
 * and a lockdep WARN).
 */
FIXTURE_VARIANT_ADD(consumer, tp_printk) {
	.on = { { FT_TP_PRINTK, "1" } },
	.off = { { FT_TP_PRINTK, "0" } },
	.where = FT_KMSG, .decoded = true, .want = FT_COUNT,
	.absent = "<OVERFLOW>",
	.state = FT_TP_PRINTK, .state_val = "1",
};

/* a filter that passes all: the record is built in the buffered event */
FIXTURE_VARIANT_ADD(consumer, tp_printk_filtered) {
	.on = { { FT_EV "filter", "c != 0" }, { FT_TP_PRINTK, "1" } },
	.off = { { FT_TP_PRINTK, "0" }, { FT_EV "filter", "0" } },
	.where = FT_KMSG, .decoded = true, .want = FT_COUNT,
	.absent = "<OVERFLOW>",
	.state = FT_TP_PRINTK, .state_val = "1",
};

FIXTURE_VARIANT_ADD(consumer, snapshot) {
	.after = { { "snapshot", "1" } },
	.off = { { "snapshot", "0" } },
	.where = "snapshot", .want = FT_COUNT,
};

FIXTURE_VARIANT_ADD(consumer, instance) {
	.on = { { FT_INST, NULL }, { FT_INST "/" FT_EV "enable", "1" } },
	.off = { { FT_INST "/" FT_EV "enable", "0" }, { FT_INST, NULL } },
	.where = FT_INST "/trace", .want = FT_COUNT,
};

static char *ft_path(char *buf, size_t len, const char *path)
{
	if (path[0] == '/')
		snprintf(buf, len, "%s", path);
	else
		ue_tpath(buf, len, "%s", path);
	return buf;
}

/* Apply @a (undo it when @undo): 0 or -errno. */
static int ft_act_do(const struct ft_act *a, bool undo)
{
	char path[PATH_MAX], val[32];

	ft_path(path, sizeof(path), a->path);
	if (!a->val)
		return (undo ? rmdir(path) : mkdir(path, 0755)) ? -errno : 0;
	if (!strcmp(a->val, "$PID") || !strcmp(a->val, "$PPID"))
		snprintf(val, sizeof(val), "%d",
			 strcmp(a->val, "$PID") ? getppid() : getpid());
	else
		snprintf(val, sizeof(val), "%s", a->val);
	return ue_write_str(path, val, O_TRUNC);
}

/* What the kernel log got since @fd was opened (at its end). */
static char *ft_kmsg_read(int fd)
{
	size_t cap = 1 << 16, used = 0;
	char *buf = calloc(1, cap);
	ssize_t n;

	while (buf && used < cap - 1) {
		n = read(fd, buf + used, cap - 1 - used);
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n <= 0)
			break;
		used += n;
	}
	return buf;
}

FIXTURE_SETUP(consumer)
{
	char path[PATH_MAX];
	int i, ret;

	self->kmsg = -1;
	ft_setup(_metadata, &self->f);
	if (!strcmp(variant->where, FT_KMSG)) {
		self->kmsg = open(FT_KMSG, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, self->kmsg);
		ASSERT_LE(0, lseek(self->kmsg, 0, SEEK_END));
	}
	for (i = 0; i < ARRAY_SIZE(variant->on) && variant->on[i].path; i++) {
		ret = ft_act_do(&variant->on[i], false);
		if (ret == -ENOENT)
			SKIP(return, "no %s", variant->on[i].path);
		ASSERT_EQ(0, ret) TH_LOG("%s", variant->on[i].path);
	}
	if (variant->state && !strcmp(variant->state, FT_TP_PRINTK)) {
		char *v = ue_read_all(ft_path(path, sizeof(path), FT_TP_PRINTK));

		ret = v && v[0] == '1';
		free(v);
		if (!ret)
			SKIP(return, "tracepoint_printk needs tp_printk at boot");
	}
}

FIXTURE_TEARDOWN(consumer)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(variant->off) && variant->off[i].path; i++)
		ft_act_do(&variant->off[i], true);
	if (self->kmsg >= 0)
		close(self->kmsg);
	ft_teardown(&self->f);
}

TEST_F(consumer, sees_records)
{
	const char *needle = variant->needle ?: FT_NAME ":";
	char path[PATH_MAX], line[512], *text;
	int i, j;

	for (j = 0; j < FT_COUNT; j++)
		ASSERT_EQ(0, ft_write(self->f.e, j));
	for (i = 0; i < ARRAY_SIZE(variant->after) && variant->after[i].path;
	     i++)
		ASSERT_EQ(0, ft_act_do(&variant->after[i], false));
	if (variant->state && strcmp(variant->state, FT_TP_PRINTK)) {
		text = ue_read_all(ft_path(path, sizeof(path), variant->state));
		ASSERT_TRUE(ue_nonnull(text));
		EXPECT_EQ(0, strncmp(text, variant->state_val,
				     strlen(variant->state_val)))
			TH_LOG("%s: %s", variant->state, text);
		free(text);
	}
	if (self->kmsg >= 0)
		text = ft_kmsg_read(self->kmsg);
	else
		text = ue_read_all(ft_path(path, sizeof(path), variant->where));
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(variant->want, ue_count_str(text, needle))
		TH_LOG("%s in %s:\n%s", needle, variant->where, text);
	for (j = 0; variant->decoded && j < FT_COUNT; j++) {
		ft_text(line, sizeof(line), j);
		EXPECT_EQ(1, ue_count_str(text, line))
			TH_LOG("%s in %s:\n%s", line, variant->where, text);
	}
	if (variant->absent)
		EXPECT_EQ(0, ue_count_str(text, variant->absent))
			TH_LOG("%s in %s:\n%s", variant->absent,
			       variant->where, text);
	free(text);
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
