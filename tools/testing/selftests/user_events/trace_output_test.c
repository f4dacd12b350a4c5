// SPDX-License-Identifier: GPL-2.0
/*
 * User events reach every consumer: ftrace (the format file of every field type; the trace text,
 * also through every consumer needing the trace core's full reserve and commit, as an ordinary
 * tracepoint's), hist and synthetic triggers, perf samples, BPF programs, and the perf and
 * trace-cmd tools.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"
#include <linux/bpf.h>
#include <sys/prctl.h>

#define FT_NAME		"uet_ft_all"
#define FT_CMD		FT_NAME " u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; " \
	"u64 g; s64 h; char[8] i; __data_loc char[] k; __rel_loc char[] l; " \
	"struct uet_pt n 8; unsigned int ui; short sh; char ch; int in"
#define FT_COUNT	4
#define FT_EV		"events/" UE_SYS "/" FT_NAME "/"
#define FT_INST		"instances/uet_ft_consumer"
#define FT_TP_PRINTK	"/proc/sys/kernel/tracepoint_printk"
#define FT_SOFT		"enable_event:" UE_SYS ":" FT_NAME

/* The fixture's page word @word, whose bit 0 is an event's enable bit */
#define EV_WORD(word)		((__u32 *)self->page + (word))
#define EV_WAIT(word, on)	ue_wait_bit(EV_WORD(word), 4, 0, on)

/*
 * A tracefs file (or, starting with '/', any file) and what to write to it to turn a consumer on
 * and off: "$PID" is the writer's pid, "$PPID" its parent's; no values is mkdir() and rmdir().
 * Removals ("!...") are appended: O_TRUNC would clear every trigger or synthetic event.
 */
struct ft_act {
	const char *path, *on, *off;
};

static int ft_act_do(const struct ft_act *a, bool on)
{
	const char *v = on ? a->on : a->off;
	char path[PATH_MAX], val[16];

	if (a->path[0] == '/')
		snprintf(path, sizeof(path), "%s", a->path);
	else
		ue_tpath(path, sizeof(path), "%s", a->path);
	if (!v)
		return (on ? mkdir(path, 0755) : rmdir(path)) ? -errno : 0;
	if (v[0] == '$') {
		snprintf(val, sizeof(val), "%d", strcmp(v, "$PID") ? getppid() : getpid());
		v = val;
	}
	return ue_write_str(path, v, a->off && a->off[0] == '!' ? O_APPEND : O_TRUNC);
}

/* Turn on the consumers of @act (up to @n, until one without a path): 0, or *@failed's error */
static int ft_acts_on(const struct ft_act *act, int n, const struct ft_act **failed)
{
	int i, ret = 0;

	for (i = 0; i < n && act[i].path && !ret; i++)
		ret = ft_act_do(&act[i], true);
	*failed = &act[i ? i - 1 : 0];
	return ret;
}

/* Turn them off, in reverse order */
static void ft_acts_off(const struct ft_act *act, int n)
{
	while (n--)
		if (act[n].path)
			ft_act_do(&act[n], false);
}

/* Which test's setup ran, for the teardown */
enum to_kind {
	TO_NONE, TO_CONSUMER, TO_TP_CONSUMER, TO_HIST, TO_SYNTH, TO_PERF, TO_BPF, TO_TRACECMD
};

/* Every test's members: the usual ones, then those of the setup it ran (to_kind) */
FIXTURE(trace_output) {
	UE_FIXTURE_MEMBERS;
	enum to_kind kind;
	__u32 idx;	/* consumer, hist, perf, bpf: the event's write index */
	int fd;		/* consumer: /dev/kmsg or trace_pipe, read by ft_read_fd() */
	const struct consumer_variant *cv;	/* consumer, tp_consumer: the case */
	char comm[16];	/* tp_consumer */
	const struct ft_act *active;	/* hist: the trigger to remove */
	__u32 start, end;	/* synth: write indexes */
	int done;		/* synth: steps done */
	char name[64];	/* perf */
	int id, base;		/* perf, bpf: tracepoint id; perf: offset of the field */
	struct ue_ring ring;	/* perf */
	int map_fd, prog_fd;	/* bpf */
	__u64 *v;	/* bpf: the map's value: runs, sum of val */
};

static void consumer_teardown(struct __test_metadata *_metadata,
			      struct _test_data_trace_output *self);
static void hist_teardown(struct __test_metadata *_metadata, struct _test_data_trace_output *self);
static void synth_teardown(struct __test_metadata *_metadata,
			   struct _test_data_trace_output *self);
static void tracecmd_teardown(struct __test_metadata *_metadata,
			      struct _test_data_trace_output *self);

FIXTURE_SETUP(trace_output)
{
	self->fd = -1;
	self->map_fd = -1;
	self->prog_fd = -1;
	self->v = MAP_FAILED;
	UE_SETUP(0);
}

/* What the test's setup did, undone, then the usual */
FIXTURE_TEARDOWN(trace_output)
{
	switch (self->kind) {
	case TO_CONSUMER:
	case TO_TP_CONSUMER:
		consumer_teardown(_metadata, self);
		break;
	case TO_HIST:
		hist_teardown(_metadata, self);
		break;
	case TO_SYNTH:
		synth_teardown(_metadata, self);
		break;
	case TO_PERF:
		ue_ring_unmap(&self->ring);
		break;
	case TO_TRACECMD:
		tracecmd_teardown(_metadata, self);
		break;
	default:
		break;
	}
	UE_TEARDOWN();
	/* bpf: perf_fd first */
	if (self->prog_fd >= 0)
		close(self->prog_fd);
	if (self->v != MAP_FAILED)
		munmap(self->v, getpagesize());
	if (self->map_fd >= 0)
		close(self->map_fd);
}

/* A field is signed unless its type starts with 'u', as upstream marks it: arrays included. */
TEST_F(trace_output, ftrace_format)
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
	char want[128], *text;
	unsigned int i;

	ASSERT_EQ(0, ue_track_reg(&self->t, FT_CMD, EV_WORD(0), 4, 0, NULL));
	text = ue_format_read(UE_SYS, FT_NAME);
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
 * A consumer case: the event (the fixture's, or task:task_rename), registered and enabled in the
 * top-level instance.  Turn a consumer on (@act, undone in reverse order), write FT_COUNT
 * records, then count @needle (NULL: the records) in @where (NULL: trace; trace_pipe: consumed,
 * the trace has none left): @want of them.  A consumer this kernel lacks (ENOENT, or no
 * tp_printk at boot) is left out, and the test then skips.
 */
struct consumer_variant {
	const char *name;
	struct ft_act act[2];
	const char *where, *needle;
	int want;
	unsigned int hits;	/* bit j: record j decoded once, else absent (0: unchecked) */
	bool traceoff;	/* tracing_on reads 0 after the writes */
	bool snapshot;	/* take a snapshot after the writes */
	bool kmsg;	/* in /dev/kmsg instead, no <OVERFLOW> */
};

static const struct consumer_variant consumer_cases[] = {
	{ .name = "trace_file", .want = FT_COUNT, .hits = 0xf },
	{ .name = "trace_pipe", .where = "trace_pipe", .want = FT_COUNT, .hits = 0xf },
	{ .name = "filter", .act = { { FT_EV "filter", "c == 0x1235", "0" } },
	  .want = 1, .hits = 1 << 1 },
	/* on an integer or a __rel_loc string; a glob on a __data_loc string */
	{ .name = "filter_or", .act = { { FT_EV "filter", "c == 0x1235 || l == \"rl-3\"", "0" } },
	  .want = 2, .hits = 1 << 1 | 1 << 3 },
	{ .name = "filter_glob", .act = { { FT_EV "filter", "k ~ \"dl-[02]\"", "0" } },
	  .want = 2, .hits = 1 << 0 | 1 << 2 },
	/* traceoff runs after the commit: the first record (the third, by condition) stops it */
	{ .name = "trigger", .act = { { FT_EV "trigger", "traceoff", "!traceoff" } },
	  .want = 1, .traceoff = true },
	{ .name = "trigger_cond",
	  .act = { { FT_EV "trigger", "traceoff if c == 0x1236", "!traceoff" } },
	  .want = 3, .traceoff = true },
	/* soft mode: the first record only runs the trigger and is dropped, the others recorded */
	{ .name = "soft_disabled",
	  .act = { { FT_EV "enable", "0", "1" }, { FT_EV "trigger", FT_SOFT, "!" FT_SOFT } },
	  .want = FT_COUNT - 1, .hits = 0xe },
	{ .name = "pid_other", .act = { { "set_event_pid", "$PPID", "" } } },
	{ .name = "pid_self", .act = { { "set_event_pid", "$PID", "" } }, .want = FT_COUNT },
	{ .name = "notrace_pid_self", .act = { { "set_event_notrace_pid", "$PID", "" } } },
	{ .name = "stacktrace", .act = { { "options/stacktrace", "1", "0" } },
	  .needle = "<stack trace>", .want = FT_COUNT },
	{ .name = "userstacktrace", .act = { { "options/userstacktrace", "1", "0" } },
	  .needle = "<user stack trace>", .want = FT_COUNT },
	/*
	 * Every record decoded as trace shows it (6.12's output_printk() hands print_event_fields()
	 * no record length: "<OVERFLOW>" for every field, and a lockdep WARN); filtered: the record
	 * is built in the buffered event.
	 */
	{ .name = "tp_printk", .act = { { FT_TP_PRINTK, "1", "0" } },
	  .want = FT_COUNT, .hits = 0xf, .kmsg = true },
	{ .name = "tp_printk_filtered",
	  .act = { { FT_EV "filter", "c != 0", "0" }, { FT_TP_PRINTK, "1", "0" } },
	  .want = FT_COUNT, .hits = 0xf, .kmsg = true },
	{ .name = "snapshot", .where = "snapshot", .want = FT_COUNT, .snapshot = true },
	{ .name = "instance", .act = { { FT_INST }, { FT_INST "/" FT_EV "enable", "1", "0" } },
	  .where = FT_INST "/trace", .want = FT_COUNT },
};

static const struct ft_act ft_snapshot = { "snapshot", "1", "0" };

/* The case's consumer on, for consumer_teardown(); false: this kernel lacks it */
static bool consumer_setup(struct __test_metadata *_metadata, struct _test_data_trace_output *self,
			   const struct consumer_variant *variant)
{
	const struct ft_act *a;
	bool tp_printk;
	char *v;
	int ret;

	self->kind = TO_CONSUMER;
	self->cv = variant;
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_set_enable(UE_SYS, FT_NAME, true));
	ASSERT_TRUE(EV_WAIT(0, true));
	if (variant->kmsg) {
		self->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
		ASSERT_LE(0, lseek(self->fd, 0, SEEK_END));
	}
	ret = ft_acts_on(variant->act, ARRAY_SIZE(variant->act), &a);
	if (ret == -ENOENT) {
		TH_LOG("%s: no %s", variant->name, a->path);
		return false;
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", a->path);
	v = variant->kmsg ? ue_read_all(FT_TP_PRINTK) : NULL;
	tp_printk = v && v[0] == '1';
	free(v);
	if (variant->kmsg && !tp_printk) {
		TH_LOG("%s: tracepoint_printk needs tp_printk at boot", variant->name);
		return false;
	}
	return true;
}

/* The consumer of either kind of case off, its event disabled; the case named if it failed */
static void consumer_teardown(struct __test_metadata *_metadata,
			      struct _test_data_trace_output *self)
{
	const struct consumer_variant *variant = self->cv;

	if (_metadata->exit_code != KSFT_PASS)
		TH_LOG("consumer %s", variant->name);
	ft_acts_off(variant->act, ARRAY_SIZE(variant->act));
	if (variant->traceoff)
		ue_tracing_on();
	if (variant->snapshot)
		ft_act_do(&ft_snapshot, false);
	if (self->fd >= 0)
		close(self->fd);
	self->fd = -1;
	if (self->kind == TO_TP_CONSUMER) {
		ue_set_enable("task", "task_rename", false);
		prctl(PR_SET_NAME, self->comm);
	} else {
		ue_set_enable(UE_SYS, FT_NAME, false);
	}
	self->kind = TO_NONE;
}

/* What the O_NONBLOCK @fd has: until @want records came (bounded), or with @want 0 no more */
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

/* Record j of FT_CMD */
static int ft_write(int fd, __u32 idx, int j)
{
	char hi[16], dl[16], rl[16];
	__u64 n = 0x200000001ull;
	struct ue_rec r;

	snprintf(hi, sizeof(hi), "hi%d", j);
	snprintf(dl, sizeof(dl), "dl-%d", j);
	snprintf(rl, sizeof(rl), "rl-%d", j);
	ue_rec_init(&r);
	ue_rec_u8(&r, 'A' + j);
	ue_rec_u8(&r, (__u8)-128);
	ue_rec_u16(&r, 0x1234 + j);
	ue_rec_u16(&r, (__u16)-2);
	ue_rec_u32(&r, 0xdeadbeef);
	ue_rec_u32(&r, -7 - j);
	ue_rec_u64(&r, 0x123456789ull + j);
	ue_rec_u64(&r, (__u64)-9);
	ue_rec_chars(&r, hi, 8);
	ue_rec_data_loc(&r, dl);
	ue_rec_rel_loc(&r, rl);
	ue_rec_bytes(&r, &n, sizeof(n));
	ue_rec_u32(&r, 4000000000u);
	ue_rec_u16(&r, (__u16)-300);
	ue_rec_u8(&r, 'z');
	ue_rec_u32(&r, (__u32)-1);
	return ue_rec_write(fd, idx, &r);
}

/* print_event_fields() output for record j; struct n's 8 bytes print as a u64 */
#define FT_TEXT	"%s: a='%c'(%d) b=(128) c=0x%x (%d) d=0xfffe (65534) " \
	"e=0xdeadbeef (-559038737) f=0x%x (%d) g=0x%llx (%llu) " \
	"h=0xfffffffffffffff7 (-9) i=hi%d k=dl-%d l=rl-%d " \
	"n=0x200000001 (8589934593) ui=0xee6b2800 (-294967296) " \
	"sh=0xfed4 (65236) ch='z'(122) in=0xffffffff (-1)\n"

/* The case's consumer, on, sees each record as ftrace prints it */
static void consumer_sees_records(struct __test_metadata *_metadata,
				  struct _test_data_trace_output *self,
				  const struct consumer_variant *variant)
{
	const char *needle = variant->needle ?: FT_NAME ":", *where = variant->where ?: "trace";
	char path[PATH_MAX], want[512], *text;
	bool pipe = !strcmp(where, "trace_pipe");
	int j;

	for (j = 0; j < FT_COUNT; j++)
		ASSERT_EQ(0, ft_write(self->t.fd, self->idx, j));
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
	text = self->fd >= 0 ? ft_read_fd(self->fd, pipe ? FT_COUNT : 0) : ue_read_all(path);
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(variant->want, ue_count_str(text, needle))
		TH_LOG("%s in %s:\n%s", needle, where, text);
	for (j = 0; variant->hits && j < FT_COUNT; j++) {
		snprintf(want, sizeof(want), FT_TEXT, FT_NAME, 'A' + j, 'A' + j, 0x1234 + j,
			 0x1234 + j, (unsigned int)(-7 - j), -7 - j,
			 0x123456789ull + j, 0x123456789ull + j, j, j, j);
		EXPECT_EQ(variant->hits >> j & 1, ue_count_str(text, want)) TH_LOG("%s", want);
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

/*
 * The same consumers on an ordinary TRACE_EVENT() tracepoint, task:task_rename, which
 * prctl(PR_SET_NAME) fires: the trace core takes a record to the ring buffer directly only when
 * none of them is on, for every event.  Record j renames the test to "uet_rn<j>".
 */
#define TR_EV		"events/task/task_rename/"
#define TR_INST		"instances/uet_tp_consumer"
#define TR_SOFT		"enable_event:task:task_rename"

static const struct consumer_variant tp_consumer_cases[] = {
	{ .name = "plain", .want = FT_COUNT },
	{ .name = "pid_other", .act = { { "set_event_pid", "$PPID", "" } } },
	{ .name = "notrace_pid_self", .act = { { "set_event_notrace_pid", "$PID", "" } } },
	{ .name = "filter", .act = { { TR_EV "filter", "newcomm == \"uet_rn1\"", "0" } },
	  .want = 1 },
	{ .name = "soft_disabled",
	  .act = { { TR_EV "enable", "0", "1" }, { TR_EV "trigger", TR_SOFT, "!" TR_SOFT } },
	  .want = FT_COUNT - 1 },
	{ .name = "trigger", .act = { { TR_EV "trigger", "traceoff", "!traceoff" } },
	  .want = 1, .traceoff = true },
	{ .name = "trigger_cond",
	  .act = { { TR_EV "trigger", "traceoff if newcomm == \"uet_rn2\"", "!traceoff" } },
	  .want = 3, .traceoff = true },
	{ .name = "stacktrace", .act = { { "options/stacktrace", "1", "0" } },
	  .needle = "<stack trace>", .want = FT_COUNT },
	{ .name = "instance", .act = { { TR_INST }, { TR_INST "/" TR_EV "enable", "1", "0" } },
	  .where = TR_INST "/trace", .want = FT_COUNT },
};

/* The case's consumer on, for consumer_teardown(); false: this kernel lacks it */
static bool tp_consumer_setup(struct __test_metadata *_metadata,
			      struct _test_data_trace_output *self,
			      const struct consumer_variant *variant)
{
	const struct ft_act *a;
	int ret;

	ASSERT_EQ(0, prctl(PR_GET_NAME, self->comm));
	self->kind = TO_TP_CONSUMER;
	self->cv = variant;
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ret = ue_set_enable("task", "task_rename", true);
	if (ret == -ENOENT) {
		TH_LOG("%s: no task:task_rename", variant->name);
		return false;
	}
	ASSERT_EQ(0, ret);
	ret = ft_acts_on(variant->act, ARRAY_SIZE(variant->act), &a);
	if (ret == -ENOENT) {
		TH_LOG("%s: no %s", variant->name, a->path);
		return false;
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", a->path);
	return true;
}

/* The case's consumer, on, sees each renaming */
static void tp_consumer_sees_records(struct __test_metadata *_metadata,
				     struct _test_data_trace_output *self,
				     const struct consumer_variant *variant)
{
	const char *where = variant->where ?: "trace";
	char path[PATH_MAX], comm[16], *text;
	int j;

	for (j = 0; j < FT_COUNT; j++) {
		snprintf(comm, sizeof(comm), "uet_rn%d", j);
		ASSERT_EQ(0, prctl(PR_SET_NAME, comm));
	}
	text = ue_read_all(ue_tpath(path, sizeof(path), "%s", where));
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_EQ(variant->want, ue_count_str(text, variant->needle ?: "task_rename:"))
		TH_LOG("in %s:\n%s", where, text);
	free(text);
}

/*
 * Each case of @cases (@n), its consumer on in turn, then off: it sees the records, or the first
 * that does not is named.  Skipped if this kernel lacks a consumer, once the others have run.
 */
static void consumers_run(struct __test_metadata *_metadata, struct _test_data_trace_output *self,
			  const struct consumer_variant *cases, int n, bool tp)
{
	const struct consumer_variant *c;
	int missing = 0;

	for (c = cases; c < cases + n; c++) {
		if (!tp && consumer_setup(_metadata, self, c))
			consumer_sees_records(_metadata, self, c);
		else if (tp && tp_consumer_setup(_metadata, self, c))
			tp_consumer_sees_records(_metadata, self, c);
		else
			missing++;
		consumer_teardown(_metadata, self);
		if (_metadata->exit_code != KSFT_PASS)
			return;
	}
	if (missing)
		SKIP(return, "%d consumer(s) missing", missing);
}

TEST_F_TIMEOUT(trace_output, consumers, 300)
{
	ASSERT_EQ(0, ue_track_reg(&self->t, FT_CMD, EV_WORD(0), 4, 0, &self->idx));
	consumers_run(_metadata, self, consumer_cases, ARRAY_SIZE(consumer_cases), false);
}

TEST_F_TIMEOUT(trace_output, tp_consumers, 300)
{
	consumers_run(_metadata, self, tp_consumer_cases, ARRAY_SIZE(tp_consumer_cases), true);
}

/* hist: key k (val 10 * k + 1, who "w<k>") written k + 1 times */
#define HT_NAME		"uet_hist_ev"
#define HT_CMD		HT_NAME " u32 key; u64 val; __rel_loc char[] who"
#define HT_KEYS		5
#define HT_INT		"hist:keys=key:vals=hitcount,val:sort=key"
#define HT_STR		"hist:keys=who:vals=hitcount,val:sort=who"
#define HT_EV		"events/" UE_SYS "/" HT_NAME "/"

static const struct ft_act ht_trig[] = {
	{ HT_EV "trigger", HT_INT, "!" HT_INT }, { HT_EV "trigger", HT_STR, "!" HT_STR },
};

/* In a test: the event; false: skipped */
static bool hist_setup(struct __test_metadata *_metadata, struct _test_data_trace_output *self)
{
	char path[PATH_MAX];

	ASSERT_EQ(0, ue_track_reg(&self->t, HT_CMD, EV_WORD(0), 4, 0, &self->idx));
	if (access(ue_tpath(path, sizeof(path), HT_EV "hist"), F_OK))
		SKIP(return false, "no hist file (CONFIG_HIST_TRIGGERS?)");
	self->kind = TO_HIST;
	return true;
}

static void hist_teardown(struct __test_metadata *_metadata, struct _test_data_trace_output *self)
{
	if (self->active)
		EXPECT_EQ(0, ft_act_do(self->active, false));
}

static void check_hist(struct __test_metadata *_metadata, struct _test_data_trace_output *self,
		       const struct ft_act *trig)
{
	unsigned long long hits, sum, total = 0;
	char path[PATH_MAX], *text, *line, *save, who[32];
	unsigned int key, seen = 0;
	struct ue_rec r;
	int k, n;

	ASSERT_EQ(0, ft_act_do(trig, true));
	self->active = trig;
	/* a hist trigger alone enables the event */
	ASSERT_TRUE(EV_WAIT(0, true));
	for (k = 0; k < HT_KEYS; k++) {
		snprintf(who, sizeof(who), "w%d", k);
		ue_rec_init(&r);
		ue_rec_u32(&r, k);
		ue_rec_u64(&r, 10ull * k + 1);
		ue_rec_rel_loc(&r, who);
		for (n = 0; n <= k; n++)
			ASSERT_EQ(0, ue_rec_write(self->t.fd, self->idx, &r));
	}
	text = ue_read_all(ue_tpath(path, sizeof(path), HT_EV "hist"));
	ASSERT_TRUE(ue_nonnull(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "{ key: %u } hitcount: %llu val: %llu", &key, &hits, &sum) == 3 ||
		    sscanf(line, "{ who: w%u } hitcount: %llu val: %llu", &key, &hits, &sum) == 3) {
			ASSERT_LT(key, HT_KEYS) TH_LOG("%s", line);
			EXPECT_EQ(key + 1, hits) TH_LOG("%s", line);
			EXPECT_EQ((key + 1) * (10 * key + 1), sum) TH_LOG("%s", line);
			seen |= 1U << key;
			if (key == 3)
				TH_LOG("hist: %s", line);
		} else if (sscanf(line, " Hits: %llu", &hits) == 1) {
			total = hits;
		}
	}
	free(text);
	/* every key seen; a malformed key line leaves its hits unmatched */
	EXPECT_EQ((1U << HT_KEYS) - 1, seen);
	EXPECT_EQ(HT_KEYS * (HT_KEYS + 1) / 2, total);
	self->active = NULL;
	EXPECT_EQ(0, ft_act_do(trig, false));
	EXPECT_TRUE(EV_WAIT(0, false));
}

TEST_F(trace_output, hist_int_key)
{
	if (!hist_setup(_metadata, self))
		return;
	check_hist(_metadata, self, &ht_trig[0]);
}

/* keys on a __rel_loc string */
TEST_F(trace_output, hist_string_key)
{
	if (!hist_setup(_metadata, self))
		return;
	check_hist(_metadata, self, &ht_trig[1]);
}

/* synth: start saves the timestamp per id, end computes the latency and fires onmatch().trace() */
#define SY_START	"uet_syn_req_start"
#define SY_END		"uet_syn_req_end"
#define SY_LAT		"uet_syn_lat"
#define SY_SYNTH	SY_LAT " u64 id; u64 lat"
#define SY_TRIG_START	"hist:keys=id:ts0=common_timestamp.usecs"
#define SY_TRIG_END	"hist:keys=id:lat=common_timestamp.usecs-$ts0:" \
	"onmatch(user_events." SY_START ").trace(" SY_LAT ",id,$lat)"
#define SY_REQS		8

/* undone in reverse order by the teardown */
static const struct ft_act sy_steps[] = {
	{ "synthetic_events", SY_SYNTH, "!" SY_SYNTH },
	{ "events/" UE_SYS "/" SY_START "/trigger", SY_TRIG_START, "!" SY_TRIG_START },
	/* it refers to the synthetic event: removed before it */
	{ "events/" UE_SYS "/" SY_END "/trigger", SY_TRIG_END, "!" SY_TRIG_END },
	{ "events/synthetic/" SY_LAT "/enable", "1", "0" },
};

/* In a test: start at EV_WORD(0), end at EV_WORD(1); false: skipped */
static bool synth_setup(struct __test_metadata *_metadata, struct _test_data_trace_output *self)
{
	char path[PATH_MAX];

	ASSERT_EQ(0, ue_track_reg(&self->t, SY_START " u64 id", EV_WORD(0), 4, 0, &self->start));
	if (access(ue_tpath(path, sizeof(path), "synthetic_events"), F_OK))
		SKIP(return false, "no synthetic_events (CONFIG_SYNTH_EVENTS?)");
	ASSERT_EQ(0, ue_track_reg(&self->t, SY_END " u64 id", EV_WORD(1), 4, 0, &self->end));
	if (access(ue_tpath(path, sizeof(path), "events/%s/%s/hist", UE_SYS, SY_START), F_OK))
		SKIP(return false, "no hist file (CONFIG_HIST_TRIGGERS?)");
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	self->kind = TO_SYNTH;
	return true;
}

static void synth_teardown(struct __test_metadata *_metadata,
			   struct _test_data_trace_output *self)
{
	while (self->done--)
		EXPECT_EQ(0, ft_act_do(&sy_steps[self->done], false));
}

/* A record of SY_START or SY_END */
static int sy_write(int fd, __u32 idx, __u64 id)
{
	struct ue_rec r;

	ue_rec_init(&r);
	ue_rec_u64(&r, id);
	return ue_rec_write(fd, idx, &r);
}

/* one latency record per request: all started, then ended in reverse order */
TEST_F(trace_output, synth_latency)
{
	unsigned long long id, lat;
	char *text, *line, *save, *p;
	unsigned int seen = 0;
	int i, got, records = 0;

	if (!synth_setup(_metadata, self))
		return;
	for (; self->done < (int)ARRAY_SIZE(sy_steps); self->done++)
		ASSERT_EQ(0, ft_act_do(&sy_steps[self->done], true))
			TH_LOG("%s", sy_steps[self->done].on);
	ASSERT_TRUE(EV_WAIT(0, true));
	ASSERT_TRUE(EV_WAIT(1, true));
	for (i = 0; i < SY_REQS; i++)
		ASSERT_EQ(0, sy_write(self->t.fd, self->start, 1000 + i));
	for (i = SY_REQS - 1; i >= 0; i--)
		ASSERT_EQ(0, sy_write(self->t.fd, self->end, 1000 + i));
	text = ue_trace_read();
	ASSERT_TRUE(ue_nonnull(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, SY_LAT ": ");
		if (!p)
			continue;
		if (!records++)
			TH_LOG("trace: %s", line);
		got = sscanf(p, SY_LAT ": id=%llu lat=%llu", &id, &lat);
		ASSERT_EQ(2, got) TH_LOG("%s", line);
		ASSERT_LE(1000, id);
		ASSERT_GT(1000 + SY_REQS, id);
		EXPECT_FALSE(seen & (1U << (id - 1000))) TH_LOG("twice: %s", line);
		seen |= 1U << (id - 1000);
	}
	free(text);
	EXPECT_EQ(SY_REQS, records);
	EXPECT_EQ((1U << SY_REQS) - 1, seen);
}

/*
 * perf on user events: attaching sets the enable bit; a write is accepted with only perf attached
 * and its PERF_SAMPLE_RAW has the payload, our pid and the event's type.
 */
/* Register @cmd (bit 0 of the page's word 0), with a perf ring on it; @field's offset */
static void open_event(struct __test_metadata *_metadata, struct _test_data_trace_output *self,
		       const char *cmd, const char *field, bool exclude_kernel)
{
	ue_cmd_name(self->name, sizeof(self->name), cmd);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 0, &self->idx));
	self->id = ue_event_id(UE_SYS, self->name);
	ASSERT_GT(self->id, 0);
	self->perf_fd = ue_perf_open(self->id, exclude_kernel);
	ASSERT_LE(0, self->perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ue_ring_map(&self->ring, self->perf_fd)) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	self->base = ue_field_offset(UE_SYS, self->name, field);
	ASSERT_GT(self->base, 0);
}

static void expect_sample(struct __test_metadata *_metadata, struct _test_data_trace_output *self,
			  const void *payload, int len)
{
	int pid_off = ue_field_offset(UE_SYS, self->name, "common_pid");
	char raw[256];
	__u16 type;
	__s32 pid;

	ASSERT_LE(0, pid_off);
	ASSERT_EQ(len + 4, ue_emit(self->t.fd, self->idx, payload, len));
	ASSERT_GE(sizeof(raw), self->base + len);
	ASSERT_LE(self->base + len, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
	EXPECT_EQ(0, memcmp(raw + self->base, payload, len));
	memcpy(&type, raw, sizeof(type));
	EXPECT_EQ(self->id, type);
	memcpy(&pid, raw + pid_off, sizeof(pid));
	EXPECT_EQ(getpid(), pid);
	EXPECT_EQ(0, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
}

TEST_F(trace_output, perf_sets_bit)
{
	int id, fd;

	self->kind = TO_PERF;
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_pf_bit u32 a", self->page, 8, 42, NULL));
	id = ue_event_id(UE_SYS, "uet_pf_bit");
	ASSERT_GT(id, 0);
	EXPECT_FALSE(ue_bit_set(self->page, 8, 42));
	fd = ue_perf_open(id, false);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_TRUE(ue_wait_bit(self->page, 8, 42, true));
	close(fd);
	ASSERT_TRUE(ue_wait_bit(self->page, 8, 42, false));
}

TEST_F(trace_output, perf_raw_sample)
{
	__u32 a = 0xfeedf00d;
	__u64 b = 0x0123456789abcdefull;
	char p[12];

	self->kind = TO_PERF;
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 8);
	open_event(_metadata, self, "uet_pf_raw u32 a; u64 b", "a", false);
	ASSERT_EQ(self->base + 4, ue_field_offset(UE_SYS, self->name, "b"));
	expect_sample(_metadata, self, p, sizeof(p));
}

TEST_F(trace_output, perf_validation)
{
	struct {
		__u32 loc;
		char s[12];
	} p = { DYN_LOC(0, 7), "perf!" };	/* one byte past the end */
	char raw[256];

	self->kind = TO_PERF;
	open_event(_metadata, self, "uet_pf_valid __rel_loc char[] s", "s", false);
	EXPECT_EQ(-EFAULT, ue_emit(self->t.fd, self->idx, &p, 10));
	EXPECT_EQ(0, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
	p.loc = DYN_LOC(0, 6);
	expect_sample(_metadata, self, &p, 10);
}

/*
 * A sample carries the kernel's registers (those of the write() or writev() call), as
 * upstream's do: an exclude_kernel event gets no sample (one without gets it: raw_sample).
 */
TEST_F(trace_output, perf_exclude_kernel)
{
	__u32 val = 0x600dcafe;
	char raw[256];

	self->kind = TO_PERF;
	open_event(_metadata, self, "uet_pf_exkern u32 v", "v", true);
	ASSERT_EQ(4 + sizeof(val), ue_emit(self->t.fd, self->idx, &val, sizeof(val)));
	EXPECT_EQ(0, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
}

/*
 * BPF with nothing but bpf(): a hand-assembled BPF_PROG_TYPE_TRACEPOINT program, attached with
 * PERF_EVENT_IOC_SET_BPF, counts its runs and sums the u32 field val in an array map.
 */
#define BT_NAME		"uet_bpf_ev"
#define BT_CMD		BT_NAME " u32 val; u64 other; __rel_loc char[] s"
#define BT_WRITES	50
#define INSN(c, d, s, o, i)	\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define XADD_DW(d, s, o)	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)

/* v = &map[0]; v[1] += *(u32 *)(ctx + val_off); v[0] += 1; return 0 */
static int prog_load(int map_fd, int val_off, char *log, size_t log_size)
{
	struct bpf_insn prog[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, val_off, 0),
		/* ld_imm64 of the address of the map's value: two insns */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_VALUE, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		XADD_DW(BPF_REG_1, BPF_REG_2, 8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1),
		XADD_DW(BPF_REG_1, BPF_REG_2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_TRACEPOINT, .insns = (uintptr_t)prog,
		.insn_cnt = ARRAY_SIZE(prog), .license = (uintptr_t)"GPL",
		.log_buf = (uintptr_t)log, .log_size = log_size, .log_level = 1,
	};

	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

/* In a test: the event, the map and the program; false: skipped */
static bool bpf_setup(struct __test_metadata *_metadata, struct _test_data_trace_output *self)
{
	union bpf_attr map = { .map_type = BPF_MAP_TYPE_ARRAY, .key_size = sizeof(__u32),
			       .value_size = 2 * sizeof(__u64), .max_entries = 1,
			       .map_flags = BPF_F_MMAPABLE };
	static char log[65536];
	int val_off;

	ASSERT_EQ(0, ue_track_reg(&self->t, BT_CMD, EV_WORD(0), 4, 0, &self->idx));
	self->id = ue_event_id(UE_SYS, BT_NAME);
	ASSERT_LT(0, self->id);
	/* the sysctl exists where the bpf() system call does */
	if (access("/proc/sys/kernel/unprivileged_bpf_disabled", F_OK))
		SKIP(return false, "no bpf() system call (CONFIG_BPF_SYSCALL?)");
	self->map_fd = syscall(__NR_bpf, BPF_MAP_CREATE, &map, sizeof(map));
	ASSERT_LE(0, self->map_fd) TH_LOG("map: %s", strerror(errno));
	self->v = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->map_fd, 0);
	ASSERT_TRUE(self->v != MAP_FAILED) TH_LOG("map: %s", strerror(errno));
	val_off = ue_field_offset(UE_SYS, BT_NAME, "val");
	ASSERT_LT(0, val_off);
	log[0] = '\0';
	self->prog_fd = prog_load(self->map_fd, val_off, log, sizeof(log));
	/* an unknown program type fails before the verifier writes a log */
	if (self->prog_fd < 0 && errno == EINVAL && !log[0])
		SKIP(return false, "no tracepoint programs (CONFIG_BPF_EVENTS?)");
	ASSERT_LE(0, self->prog_fd) TH_LOG("load: %s\n%s", strerror(errno), log);
	self->kind = TO_BPF;
	return true;
}

/* A record of BT_NAME: val @val */
static int bt_write(int fd, __u32 idx, __u32 val)
{
	struct ue_rec r;

	ue_rec_init(&r);
	ue_rec_u32(&r, val);
	ue_rec_u64(&r, ~0ull);
	ue_rec_rel_loc(&r, "s");
	return ue_rec_write(fd, idx, &r);
}

/* A failing write (bad payload) runs no program, each write runs it once; detached, none. */
TEST_F(trace_output, bpf_count_and_sum)
{
	__u64 want = BT_WRITES * 1000 + 7 * BT_WRITES * (BT_WRITES - 1) / 2;
	__u32 short_payload = 5;	/* 4 bytes: the fixed fields take 16 */
	int i, ret;

	if (!bpf_setup(_metadata, self))
		return;
	self->perf_fd = ue_perf_open(self->id, false);
	ret = self->perf_fd < 0 ? -1 : ioctl(self->perf_fd, PERF_EVENT_IOC_SET_BPF, self->prog_fd);
	if (ret && (errno == ENOENT || access("/proc/sys/kernel/perf_event_paranoid", F_OK)))
		SKIP(return, "cannot attach BPF to a tracepoint: %s", strerror(errno));
	EXPECT_EQ(0, self->v[0]);
	ASSERT_EQ(0, ret) TH_LOG("attach: %s", strerror(errno));
	ASSERT_TRUE(EV_WAIT(0, true));
	EXPECT_EQ(-EINVAL, ue_emit(self->t.fd, self->idx, &short_payload, sizeof(short_payload)));
	EXPECT_EQ(0, self->v[0]);
	for (i = 0; i < BT_WRITES; i++)
		ASSERT_EQ(0, bt_write(self->t.fd, self->idx, 1000u + 7 * i));
	EXPECT_EQ(BT_WRITES, self->v[0]);
	EXPECT_EQ(want, self->v[1]);
	TH_LOG("bpf: %llu runs, sum %llu", (unsigned long long)self->v[0],
	       (unsigned long long)self->v[1]);
	close(self->perf_fd);
	self->perf_fd = -1;
	ASSERT_TRUE(EV_WAIT(0, false));
	EXPECT_EQ(-EBADF, bt_write(self->t.fd, self->idx, 1));
	EXPECT_EQ(BT_WRITES, self->v[0]);
}

/*
 * trace-cmd start, the writer (this binary, see ue_main()), stop, extract and report decode every
 * field of every record.  The event is created persistent (dynamic_events) for trace-cmd to enable
 * it before the writer registers the same format.  Not "trace-cmd record WRITER": its recorders
 * stop when the writer exits and may leave a CPU's last records unread.
 */
#define TC_NAME		"uet_tc_ev"
#define TC_DATA		"/tmp/uet_tc.dat"
#define TC_OUT		"/tmp/uet_tc.out"
#define TC_COUNT	20

/* In a test: the persistent event; false: skipped */
static bool tracecmd_setup(struct __test_metadata *_metadata, struct _test_data_trace_output *self)
{
	if (!ue_have_tool("trace-cmd"))
		SKIP(return false, "trace-cmd not installed");
	ASSERT_EQ(0, ue_dyn_add(TC_NAME, UE_WRITER_FIELDS));
	self->kind = TO_TRACECMD;
	return true;
}

static void tracecmd_teardown(struct __test_metadata *_metadata,
			      struct _test_data_trace_output *self)
{
	char path[PATH_MAX];

	/* trace-cmd leaves the event enabled and tracing off */
	ue_set_enable(UE_SYS, TC_NAME, false);
	ue_write_str(ue_tpath(path, sizeof(path), "set_event"), "", O_TRUNC);
	ue_tracing_on();
	EXPECT_EQ(0, ue_dyn_del(TC_NAME));
	unlink(TC_DATA);
	unlink(TC_OUT);
}

TEST_F_TIMEOUT(trace_output, tracecmd_record_report, 240)
{
	char count[16], expect[128];
	int i, ret;

	if (!tracecmd_setup(_metadata, self))
		return;
	snprintf(count, sizeof(count), "%d", TC_COUNT);
	ret = ue_run_tool(TC_OUT, "trace-cmd", "start", "-e", "user_events:" TC_NAME, NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, ue_self(), UE_WRITER_ARG, TC_NAME, count, NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, "trace-cmd", "stop", NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, "trace-cmd", "extract", "-o", TC_DATA, NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, "trace-cmd", "report", "-i", TC_DATA, NULL);
	if (ret)
		ue_dump(TC_OUT, 40);
	ASSERT_EQ(0, ret) TH_LOG("trace-cmd start/writer/stop/extract/report failed");
	EXPECT_EQ(TC_COUNT, ue_count_in(TC_OUT, " " TC_NAME ":"));
	for (i = 0; i < TC_COUNT; i++) {
		ue_writer_text(expect, sizeof(expect) - 1, i);
		strcat(expect, "\n");
		EXPECT_EQ(1, ue_count_in(TC_OUT, expect)) TH_LOG("missing: %s", expect);
	}
	ue_writer_text(expect, sizeof(expect), 3);
	ue_show_line("trace-cmd report", TC_OUT, expect);
	if (_metadata->exit_code != KSFT_PASS)
		ue_dump(TC_OUT, 10);
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
