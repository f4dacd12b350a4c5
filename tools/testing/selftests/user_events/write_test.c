// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI: write()/writev() of [u32 write_index][payload], also through io_uring and
 * pwritev2(RWF_NOWAIT); the ftrace records
 */
#include <stddef.h>

#include "../kselftest_harness.h"
#include "ue_util.h"
#include "ue_uring.h"

FIXTURE(write) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(write)
{
	UE_SETUP(UE_TRACE);
}

FIXTURE_TEARDOWN(write)
{
	UE_TEARDOWN();
}

/* one write() of one buffer */
static ssize_t emit_flat(int fd, __u32 idx, const void *payload, size_t len)
{
	char buf[512];
	ssize_t ret;

	if (len + sizeof(idx) > sizeof(buf))
		return -ENOSPC;
	memcpy(buf, &idx, sizeof(idx));
	memcpy(buf + sizeof(idx), payload, len);
	ret = write(fd, buf, len + sizeof(idx));
	return ret < 0 ? -errno : ret;
}

/* Does the first " @field=" of @line start with @str? */
static bool shows_str(const char *line, const char *field, const char *str)
{
	char key[64];
	const char *pos;

	snprintf(key, sizeof(key), " %s=", field);
	pos = strstr(line, key);
	return pos && !strncmp(pos + strlen(key), str, strlen(str));
}

/* Does the first " @field=" of @line start with @val in decimal or 0x-hex? */
static bool shows_num(const char *line, const char *field, unsigned long long val)
{
	char dec[32], hex[32];

	snprintf(dec, sizeof(dec), "%llu", val);
	snprintf(hex, sizeof(hex), "0x%llx", val);
	return shows_str(line, field, dec) || shows_str(line, field, hex);
}

/* No fields: a partial index is EFAULT, enabled or not; the index alone or with more is fine */
TEST_F(write, short_write)
{
	char buf[4] = { 0 }, junk[3] = "ab";
	int len, on;
	__u32 idx;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_wr_short", self->page, 4, 0, &idx));
	memcpy(buf, &idx, sizeof(idx));
	for (on = 0; on < 2; on++) {
		if (on) {
			ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_wr_short"));
			ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
		}
		for (len = 1; len < 4; len++) {
			EXPECT_EQ(-1, write(self->t.fd, buf, len));
			EXPECT_EQ(EFAULT, errno);
		}
	}
	EXPECT_EQ(0, ue_trace_count("uet_wr_short", NULL, 0));
	EXPECT_EQ(4, write(self->t.fd, buf, 4));
	EXPECT_EQ(4, ue_emit(self->t.fd, idx, NULL, 0));
	EXPECT_EQ(7, ue_emit(self->t.fd, idx, junk, sizeof(junk)));
	EXPECT_EQ(3, ue_trace_count("uet_wr_short", NULL, 0));
}

/*
 * Negative indexes (upstream 6.1 "Ensure write index cannot be negative": it read before the
 * array), unknown ones or another file's are refused and record nothing.
 */
TEST_F(write, bad_index)
{
	static const __s32 neg[] = { -1, -2, -4096, INT_MIN };
	__u32 idx, val = 7;
	int i, fd2;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_wr_bad u32 a", "uet_wr_bad", 0,
				    &idx));
	for (i = 0; i < ARRAY_SIZE(neg); i++) {
		EXPECT_EQ(-EINVAL, ue_emit(self->t.fd, (__u32)neg[i], &val, sizeof(val)));
		EXPECT_EQ(-EINVAL, emit_flat(self->t.fd, (__u32)neg[i], &val, sizeof(val)));
	}
	EXPECT_EQ(-ENOENT, ue_emit(self->t.fd, idx + 1, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(self->t.fd, 1000, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(self->t.fd, INT_MAX, &val, sizeof(val)));
	fd2 = ue_open_data();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, ue_emit(fd2, idx, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(fd2, 0, &val, sizeof(val)));
	close(fd2);
	EXPECT_EQ(0, ue_trace_count("uet_wr_bad", NULL, 0));
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	EXPECT_EQ(1, ue_trace_count("uet_wr_bad", NULL, 0));
}

/* Writes need the event enabled; the index stays valid on its file after DIAG_IOCSUNREG */
TEST_F(write, not_enabled)
{
	__u32 idx, val = 0x12345;
	char line[1024];

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_wr_off u32 a", self->page, 4, 0, &idx));
	EXPECT_EQ(-EBADF, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	EXPECT_EQ(-EBADF, emit_flat(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_wr_off"));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_wr_off", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	EXPECT_EQ(-EBADF, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_wr_off", true));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	ASSERT_EQ(0, ue_unreg(self->t.fd, self->page, 0));
	EXPECT_EQ(0, *(__u32 *)self->page);
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(2, ue_trace_count("uet_wr_off", line, sizeof(line)));
	EXPECT_TRUE(shows_num(line, "a", val)) TH_LOG("%s", line);
}

TEST_F(write, payload_too_short)
{
	char payload[16] = { 0 };
	__u32 idx;
	int len;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_wr_min u32 a; u64 b", self->page, 4, 0, &idx));
	/* the size check comes first; then the fixed size or more is fine */
	EXPECT_EQ(-EINVAL, ue_emit(self->t.fd, idx, payload, 11));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_wr_min"));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	for (len = 0; len < 12; len++)
		EXPECT_EQ(-EINVAL, ue_emit(self->t.fd, idx, payload, len)) TH_LOG("%d bytes", len);
	EXPECT_EQ(0, ue_trace_count("uet_wr_min", NULL, 0));
	EXPECT_EQ(16, ue_emit(self->t.fd, idx, payload, 12));
	EXPECT_EQ(20, emit_flat(self->t.fd, idx, payload, 16));
	EXPECT_EQ(2, ue_trace_count("uet_wr_min", NULL, 0));
}

TEST_F(write, ftrace_fields)
{
	static const char * const fields[] = { "a", "b", "c", "d", "e" };
	const char *name = "uet_wr_out";
	__u64 b = 0x1122334455667788ull;
	char payload[128] = { 0 }, line[1024];
	__u32 idx, loc, a = 0x1234abcd;
	int off[5], base, end, i;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_wr_out u32 a; u64 b; char[8] c; "
				    "__data_loc char[] d; __rel_loc char[] e", name, 0, &idx));
	/* as the format file lays it out; dynamic data after the fixed fields */
	for (i = 0; i < 5; i++) {
		off[i] = ue_field_offset(UE_SYS, name, fields[i]);
		ASSERT_GT(off[i], i ? off[i - 1] : 0) TH_LOG("%s", fields[i]);
	}
	base = off[0];
	memcpy(payload + off[0] - base, &a, sizeof(a));
	memcpy(payload + off[1] - base, &b, sizeof(b));
	memcpy(payload + off[2] - base, "chars", 6);
	end = off[4] + 4 - base;
	loc = DYN_LOC(base + end, 8);
	memcpy(payload + off[3] - base, &loc, sizeof(loc));
	memcpy(payload + end, "dynamic", 8);
	end += 8;
	/* __rel_loc: from the end of the field */
	loc = DYN_LOC(base + end - (off[4] + 4), 9);
	memcpy(payload + off[4] - base, &loc, sizeof(loc));
	memcpy(payload + end, "relative", 9);
	end += 9;

	ASSERT_EQ(end + 4, ue_emit(self->t.fd, idx, payload, end));
	ASSERT_EQ(1, ue_trace_count(name, line, sizeof(line)));
	EXPECT_TRUE(shows_num(line, "a", a)) TH_LOG("%s", line);
	EXPECT_TRUE(shows_num(line, "b", b)) TH_LOG("%s", line);
	EXPECT_TRUE(shows_str(line, "c", "chars")) TH_LOG("%s", line);
	EXPECT_TRUE(shows_str(line, "d", "dynamic")) TH_LOG("%s", line);
	EXPECT_TRUE(shows_str(line, "e", "relative")) TH_LOG("%s", line);
}

/* The payload may be split across iovecs at will; writes return all they took */
TEST_F(write, writev_split)
{
	const char *name = "uet_wr_split";
	__u64 x = 0xdeadbeefcafef00dull;
	__u32 idx, y = 0x0badf00d;
	char raw[12], line[1024];
	struct iovec io[5] = {
		{ &idx, sizeof(idx) }, { raw, 3 }, { raw + 3, 0 }, { raw + 3, 6 }, { raw + 9, 3 },
	};

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_wr_split u64 x; u32 y", name, 0,
				    &idx));
	ASSERT_EQ(8, ue_field_offset(UE_SYS, name, "y") - ue_field_offset(UE_SYS, name, "x"));
	memcpy(raw, &x, 8);
	memcpy(raw + 8, &y, 4);
	EXPECT_EQ(16, emit_flat(self->t.fd, idx, raw, sizeof(raw)));
	EXPECT_EQ(16, ue_emit(self->t.fd, idx, raw, sizeof(raw)));
	EXPECT_EQ(16, writev(self->t.fd, io, 5));
	ASSERT_EQ(3, ue_trace_count(name, line, sizeof(line)));
	EXPECT_TRUE(shows_num(line, "x", x)) TH_LOG("%s", line);
	EXPECT_TRUE(shows_num(line, "y", y)) TH_LOG("%s", line);
}

/*
 * A __data_loc or __rel_loc string out of the payload or without its NUL is refused, a good
 * one recorded.  __data_loc: offsets in the record; __rel_loc: from the end of the field.
 */
static void loc_bounds(struct __test_metadata *_metadata, struct ue_track *t,
		       void *page, const char *type)
{
	static const struct { int off, len; const char *why; } bad[] = {
		{ 100, 6, "offset past the end" },
		{ 0, 60, "length past the end" },
		{ 1, 6, "one byte too far" },
		{ 0, 5, "misses the NUL" },
		{ 0, 6, "not NUL terminated" },
	};
	char cmd[64], name[16], payload[64] = { 0 }, line[1024];
	bool rel = !strcmp(type, "__rel_loc");
	__u32 idx, loc;
	int i, start = 0;

	snprintf(name, sizeof(name), "uet_wr_%s", rel ? "rl" : "dl");
	snprintf(cmd, sizeof(cmd), "%s %s char[] s", name, type);
	ASSERT_EQ(0, ue_reg_enabled(t, page, cmd, name, 0, &idx));
	if (!rel) {
		/* [loc][string] */
		start = ue_field_offset(UE_SYS, name, "s");
		ASSERT_GT(start, 0);
		start += 4;
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		loc = DYN_LOC(start + bad[i].off, bad[i].len);
		memcpy(payload, &loc, 4);
		memcpy(payload + 4, i == ARRAY_SIZE(bad) - 1 ? "hello!" : "hello", 6);
		EXPECT_EQ(-EFAULT, ue_emit(t->fd, idx, payload, 10))
			TH_LOG("%s %s", type, bad[i].why);
	}
	EXPECT_EQ(0, ue_trace_count(name, NULL, 0));
	loc = DYN_LOC(start, 6);
	memcpy(payload, &loc, 4);
	memcpy(payload + 4, "hello", 6);
	EXPECT_EQ(14, ue_emit(t->fd, idx, payload, 10));
	ASSERT_EQ(1, ue_trace_count(name, line, sizeof(line)));
	EXPECT_TRUE(shows_str(line, "s", "hello")) TH_LOG("%s", line);
}

TEST_F(write, data_loc_bounds)
{
	loc_bounds(_metadata, &self->t, self->page, "__data_loc");
}

TEST_F(write, rel_loc_bounds)
{
	loc_bounds(_metadata, &self->t, self->page, "__rel_loc");
}

/* Open perf on @name and map its ring: the perf fd */
static int ring_open(struct __test_metadata *_metadata, struct ue_ring *r, const char *name)
{
	int fd = ue_perf_open(ue_event_id(UE_SYS, name), false);

	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ue_ring_map(r, fd));
	return fd;
}

/* Register @cmd, write @len bytes of @payload with ftrace on, find it. */
static void wr_client(struct __test_metadata *_metadata, struct _test_data_write *self,
		      const char *cmd, const void *payload, size_t len)
{
	__u32 idx = ue_reg_page(_metadata, &self->t, self->page, cmd, true);
	char *text;

	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ((ssize_t)(len + 4), ue_emit(self->t.fd, idx, payload, len));
	text = ue_trace_read();
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_TRUE(ue_nonnull(strstr(text, strtok(strdupa(cmd), " ")))) TH_LOG("trace: %s", text);
	free(text);
}

/* OpenTelemetry's metrics exporter: binary protobuf in __rel_loc u8[] */
TEST_F(write, otlp_metrics)
{
	/* naturally aligned: 22 bytes, without the tail padding */
	struct {
		__u32 protocol;
		char version[8];
		__u32 buffer;
		__u8 bytes[6];
	} p = { 0, "v0.1.0", DYN_LOC(0, 6), { 0x0a, 0x00, 0xff, 0x12, 0, 7 } };

	wr_client(_metadata, self, "uet_di_otlp u32 protocol;char[8] version;__rel_loc u8[] buffer",
		  &p, offsetof(typeof(p), bytes) + sizeof(p.bytes));
}

/* The .NET runtime: two binary __rel_loc u8[] blobs without NULs */
TEST_F(write, dotnet_runtime)
{
	__u32 ext_loc = DYN_LOC(4, 3), data_loc = DYN_LOC(3, 5);
	/* u8 1, u16 42, two locations, 3 + 5 bytes: unaligned, byte by byte */
	__u8 p[19] = { 1, [11] = 1, 2, 3, 0xde, 0xad, 0xbe, 0xef, 0x01 };
	__u16 event_id = 42;

	memcpy(p + 1, &event_id, 2);
	memcpy(p + 3, &ext_loc, 4);
	memcpy(p + 7, &data_loc, 4);
	wr_client(_metadata, self, "uet_di_dotnet u8 version; u16 event_id; "
		  "__rel_loc u8[] extension; __rel_loc u8[] payload", p, sizeof(p));
}

/* A payload of 5,000 bytes reaches a perf-only consumer (perf holds 8 KiB) */
TEST_F(write, perf_takes_large_payload)
{
	size_t len = 5000;
	char *p = malloc(len);
	__u32 idx = ue_reg_page(_metadata, &self->t, self->page, "uet_di_big __rel_loc u8[] blob",
				 false);
	struct ue_ring r;

	ASSERT_TRUE(ue_nonnull(p));
	self->perf_fd = ring_open(_metadata, &r, "uet_di_big");
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	memset(p, 0x5a, len);
	*(__u32 *)p = DYN_LOC(0, len - 4);
	EXPECT_EQ((ssize_t)(len + 4), ue_emit(self->t.fd, idx, p, len));
	/* raw: the common fields + payload, padded for perf's alignment */
	EXPECT_GE(ue_ring_next_raw(&r, NULL, 0), len + ue_entry_size(UE_SYS, "uet_di_big"));
	ue_ring_unmap(&r);
	free(p);
}

/*
 * A record no attached consumer can hold is refused with E2BIG (upstream drops it silently, and
 * perf above 8 KiB WARNs), also while ftrace's is soft-disabled; one that perf can hold is
 * written whether or not ftrace can hold it.
 */
#define SZ2_TRIGGER	"events/" UE_SYS "/uet_di_sz2/trigger"
#define SZ_SOFT		"enable_event:" UE_SYS ":uet_di_sz"

TEST_F(write, sizes_per_consumer)
{
	size_t big = 2 * getpagesize(), mid = 8000;
	char path[PATH_MAX];
	char *p = calloc(1, big > mid ? big : mid);
	__u32 idx = ue_reg_page(_metadata, &self->t, self->page, "uet_di_sz __rel_loc u8[] blob",
				 true);
	struct ue_ring r;

	ASSERT_TRUE(ue_nonnull(p));
	*(__u32 *)p = DYN_LOC(0, 0);
	/* ftrace only: a record beyond a ring-buffer page */
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, p, 4));
	/* soft-disabled by another event's trigger: the same, though nothing is recorded */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_di_sz2 u32 a", self->page, 4, 1, NULL));
	ue_track_del(&self->t, "uet_di_sz2");
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_di_sz", false));
	ASSERT_EQ(0, ue_write_str(ue_tpath(path, sizeof(path), SZ2_TRIGGER), SZ_SOFT, O_TRUNC));
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, p, 4));
	EXPECT_EQ(0, ue_write_str(path, "!" SZ_SOFT, O_TRUNC));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_di_sz", true));
	/* ftrace and perf: perf holds 8 KiB, more than a 4 KiB page */
	self->perf_fd = ring_open(_metadata, &r, "uet_di_sz");
	EXPECT_EQ((ssize_t)mid + 4, ue_emit(self->t.fd, idx, p, mid));
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	ue_ring_unmap(&r);
	free(p);
}

/* "unsigned char" is a char type: its dynamic strings need their NUL */
TEST_F(write, unsigned_char_string_needs_nul)
{
	struct {
		__u32 loc;
		char s[4];
	} p = { DYN_LOC(0, 4), "abcd" };
	__u32 idx = ue_reg_page(_metadata, &self->t, self->page,
				 "uet_di_uc __rel_loc unsigned char[] s", true);

	EXPECT_EQ(-EFAULT, ue_emit(self->t.fd, idx, &p, sizeof(p)));
	p.s[3] = '\0';
	EXPECT_EQ((ssize_t)sizeof(p) + 4, ue_emit(self->t.fd, idx, &p, sizeof(p)));
}

/*
 * Writes through io_uring and with RWF_NOWAIT.  This series' user_events_data takes
 * non-blocking I/O: io_uring writes each record in the submitting thread, in submission order;
 * upstream 6.12's hands every write to an io_uring worker thread and fails RWF_NOWAIT.
 */
#define WR_UR		"uet_wr_ur"
#define WR_UR_CMD	WR_UR " u32 seq; u32 x"
#define WR_UR_N		32	/* records of one submission at most */

struct wr_ur_rec {
	__u32 idx, seq, x;
};	/* no padding: the record as written */

/* @n records of write index @idx, seq @first + i, each an iovec of its own at @iov */
static void wr_ur_fill(struct wr_ur_rec *rec, struct iovec *iov, int n, __u32 idx, __u32 first)
{
	int i;

	for (i = 0; i < n; i++) {
		rec[i] = (struct wr_ur_rec){ .idx = idx, .seq = first + i, .x = i };
		iov[i] = (struct iovec){ .iov_base = &rec[i], .iov_len = sizeof(rec[i]) };
	}
}

/*
 * @n records through io_uring, one IORING_OP_WRITE each, submitted by one io_uring_enter();
 * each completion's result into @res.  Returns 0, or a negative errno of io_uring itself.
 */
static int wr_uring(int fd, const struct iovec *iov, int n, int *res)
{
	struct io_uring_cqe cqe;
	struct ue_uring r;
	int i, ret;

	ret = ue_uring_init(&r, WR_UR_N);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		ue_uring_write(&r, fd, iov[i].iov_base, iov[i].iov_len, i);
	ret = ue_uring_submit(&r);
	for (i = 0; i < n; i++)
		res[i] = -ENODATA;
	while (ret == n && ue_uring_reap(&r, &cqe))
		if (cqe.user_data < (__u64)n)
			res[cqe.user_data] = cqe.res;
	ue_uring_exit(&r);
	return ret == n ? 0 : ret < 0 ? ret : -EIO;
}

/* Why io_uring cannot run here, from wr_uring()'s @ret; NULL if it can */
static const char *wr_uring_missing(int ret)
{
	if (ret && access("/proc/sys/kernel/io_uring_disabled", F_OK))
		return "no io_uring in this kernel";
	return ret == -EPERM ? "io_uring disabled (kernel.io_uring_disabled)" : NULL;
}

/*
 * The trace holds exactly WR_UR's records of seq @want[0..@n-1]: in that order and from this
 * thread, or (@upstream) in any order and each from a thread other than this one
 */
static void wr_ur_expect(struct __test_metadata *_metadata, const __u32 *want, int n,
			 bool upstream)
{
	__u32 seq[WR_UR_N + 1];
	pid_t pid[WR_UR_N + 1];
	static const char *const names[] = { WR_UR, NULL };
	int i, j, got = ue_trace_seqs(names, seq, pid, WR_UR_N + 1);

	ASSERT_EQ(n, got);
	for (i = 0; i < n; i++) {
		if (!upstream) {
			EXPECT_EQ(want[i], seq[i]) TH_LOG("line %d", i);
			EXPECT_EQ(gettid(), pid[i]) TH_LOG("line %d", i);
			continue;
		}
		for (j = 0; j < n && seq[j] != want[i]; j++)
			;
		EXPECT_LT(j, n) TH_LOG("seq %u not traced", want[i]);
		EXPECT_GT(pid[i], 0) TH_LOG("line %d", i);
		EXPECT_NE(gettid(), pid[i]) TH_LOG("line %d", i);
	}
}

/* io_uring writes each record as write() does, with write()'s result in its completion */
TEST_F(write, io_uring)
{
	struct wr_ur_rec rec[WR_UR_N];
	struct iovec iov[WR_UR_N];
	__u32 want[WR_UR_N];
	int i, ret, res[WR_UR_N];
	__u32 idx = ue_reg_page(_metadata, &self->t, self->page, WR_UR_CMD, true);

	wr_ur_fill(rec, iov, WR_UR_N, idx, 300);
	ret = wr_uring(self->t.fd, iov, WR_UR_N, res);
	if (wr_uring_missing(ret))
		SKIP(return, "%s", wr_uring_missing(ret));
	ASSERT_EQ(0, ret);
	for (i = 0; i < WR_UR_N; i++) {
		EXPECT_EQ((int)sizeof(rec[i]), res[i]) TH_LOG("record %d", i);
		want[i] = 300 + i;
	}
	wr_ur_expect(_metadata, want, WR_UR_N, ue_upstream(self->t.fd));
}

/* Through io_uring each record gets its own result: a bad one fails alone, with write()'s errno */
TEST_F(write, io_uring_record_errors)
{
	static const __u32 want[] = { 400, 401, 402, 404, 406, 407 };
	struct wr_ur_rec rec[8];
	struct iovec iov[8];
	int i, ret, res[8];
	__u32 idx = ue_reg_page(_metadata, &self->t, self->page, WR_UR_CMD, true);

	wr_ur_fill(rec, iov, 8, idx, 400);
	rec[3].idx = 4096;				/* no such write index: ENOENT */
	iov[5].iov_len = offsetof(struct wr_ur_rec, x);	/* no x: EINVAL */
	ret = wr_uring(self->t.fd, iov, 8, res);
	if (wr_uring_missing(ret))
		SKIP(return, "%s", wr_uring_missing(ret));
	ASSERT_EQ(0, ret);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i == 3 ? -ENOENT : i == 5 ? -EINVAL : (int)iov[i].iov_len, res[i])
			TH_LOG("record %d", i);
	wr_ur_expect(_metadata, want, ARRAY_SIZE(want), ue_upstream(self->t.fd));
}

/* pwritev2() with RWF_NOWAIT writes as without it (upstream: EOPNOTSUPP, nothing written) */
TEST_F(write, rwf_nowait)
{
	static const __u32 want[] = { 7 };
	bool upstream = ue_upstream(self->t.fd);
	struct wr_ur_rec rec;
	struct iovec iov;
	ssize_t ret;

	wr_ur_fill(&rec, &iov, 1, ue_reg_page(_metadata, &self->t, self->page, WR_UR_CMD, true),
		   7);
	ret = pwritev2(self->t.fd, &iov, 1, -1, RWF_NOWAIT);
	EXPECT_EQ(upstream ? -EOPNOTSUPP : (ssize_t)sizeof(rec), ret < 0 ? -errno : ret);
	rec.idx = 4096;
	ret = pwritev2(self->t.fd, &iov, 1, -1, RWF_NOWAIT);
	EXPECT_EQ(upstream ? -EOPNOTSUPP : -ENOENT, ret < 0 ? -errno : ret);
	if (!upstream)
		wr_ur_expect(_metadata, want, 1, false);
	EXPECT_EQ(upstream ? 0 : 1, ue_trace_count(WR_UR, NULL, 0));
}

TEST_HARNESS_MAIN
