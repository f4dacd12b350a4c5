// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace on user events: the trace and trace_pipe files show every field
 * of every event with all field types decoded (u8..s64, the C integer
 * names, char[N], __data_loc and __rel_loc strings, struct); the format
 * file describes them; event filters work on integer and string fields.
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

FIXTURE(ftrace) {
	struct ue_session *s;
	struct ue_event *e;
	struct ue_track t;
};

FIXTURE_SETUP(ftrace)
{
	struct timespec start;

	self->s = NULL;
	self->t.fd = -1;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_track_init(&self->t));
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, FT_CMD, 0, &self->e));
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, FT_NAME));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ue_enabled(self->e))
		ASSERT_LT(ue_elapsed(&start), UE_WAIT_SECS);
}

FIXTURE_TEARDOWN(ftrace)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "events/%s/%s/filter", UE_SYS, FT_NAME);
	ue_write_str(path, "0", O_TRUNC);
	ue_track_cleanup(&self->t);
	ue_session_close(self->s);
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
		ASSERT_EQ(0, ft_write(self->e, j));

	text = ue_trace_read();
	ASSERT_NE(NULL, text);
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
		ASSERT_EQ(0, ft_write(self->e, j));

	text = read_pipe_all(FT_COUNT);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(FT_COUNT, ue_count_str(text, FT_NAME ":"));
	for (j = 0; j < FT_COUNT; j++) {
		ft_text(want, sizeof(want), j);
		EXPECT_EQ(1, ue_count_str(text, want)) TH_LOG("missing %s", want);
	}
	free(text);

	/* consumed: trace has no more of them */
	text = ue_trace_read();
	ASSERT_NE(NULL, text);
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
	ASSERT_NE(NULL, text);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		snprintf(want, sizeof(want), "field:%s", f[i].decl);
		EXPECT_NE(NULL, strstr(text, want)) TH_LOG("no %s", want);
		snprintf(want, sizeof(want), "offset:%d;\tsize:%d;\tsigned:%d;",
			 f[i].off, f[i].size, f[i].is_signed);
		EXPECT_NE(NULL, strstr(text, want))
			TH_LOG("no %s (%s)", want, f[i].decl);
	}
	EXPECT_NE(NULL, strstr(text, "__get_rel_str(l)"));
	EXPECT_NE(NULL, strstr(text, "__get_str(k)"));
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
			ASSERT_EQ(0, ft_write(self->e, j));
		text = ue_trace_read();
		ASSERT_NE(NULL, text);
		EXPECT_EQ(2, ue_count_str(text, FT_NAME ":"))
			TH_LOG("%s", f[i].filter);
		for (j = 0; j < 2; j++) {
			ft_text(want, sizeof(want), f[i].hits[j]);
			EXPECT_EQ(1, ue_count_str(text, want));
		}
		free(text);
	}
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
