// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: many records in one call (Documentation/trace/user_events.rst, "Writing many
 * records in one call").  DIAG_IOCSBATCH writes the records of an iovec array in order, each as
 * its own write() would, and stops at the first record not written: the call returns how many
 * were, struct user_batch's error why the next was not.  Kernels without the ioctl fail it with
 * ENOTTY: every test skips there.
 */
#include <pthread.h>
#include <sys/uio.h>

#include "ue_util.h"
#include "../kselftest_harness.h"

/* The events: a (u32 seq), b (u32 seq; u64 x), s (u32 seq; __rel_loc char[] str) */
#define BT_A		"uet_bt_a"
#define BT_B		"uet_bt_b"
#define BT_S		"uet_bt_s"
#define BT_MAX		64	/* records a test builds at most, USER_BATCH_MAX aside */

struct bt_rec {
	__u32 idx;
	__u32 seq;
	__u64 x;
};	/* no padding: the record as written */

FIXTURE(batch) {
	UE_FIXTURE_MEMBERS;
	__u32 a, b;			/* write indexes of BT_A and BT_B, both enabled */
	struct bt_rec rec[BT_MAX];
	struct iovec iov[BT_MAX];
};

/* DIAG_IOCSBATCH of @n records at @iov: records written, or -errno; *@err its error */
static int bt_submit(int fd, const struct iovec *iov, __u32 n, int *err)
{
	struct user_batch b = {
		.size = sizeof(b),
		.count = n,
		.records = (__u64)(uintptr_t)iov,
		.error = -1,
	};
	int ret = ioctl(fd, DIAG_IOCSBATCH, &b);

	if (err)
		*err = b.error;
	return ret < 0 ? -errno : ret;
}

/* Record @i: @idx's event, seq @seq (x: seq * 3), as one iovec of its own */
static void bt_set(struct _test_data_batch *self, int i, __u32 idx, __u32 seq)
{
	self->rec[i] = (struct bt_rec){ .idx = idx, .seq = seq, .x = seq * 3ull };
	self->iov[i].iov_base = &self->rec[i];
	self->iov[i].iov_len = idx == self->b ? sizeof(self->rec[i]) : 2 * sizeof(__u32);
}

/* @n records, alternating BT_A and BT_B, seq @first + i */
static void bt_fill(struct _test_data_batch *self, int n, __u32 first)
{
	int i;

	for (i = 0; i < n; i++)
		bt_set(self, i, i % 2 ? self->b : self->a, first + i);
}

/* The trace holds exactly the records seq @first .. @first + @n - 1, in order, from @tid */
static void bt_expect_trace(struct __test_metadata *_metadata, __u32 first, int n, pid_t tid)
{
	__u32 seq[BT_MAX + 1];
	pid_t pid[BT_MAX + 1];
	static const char *const names[] = { BT_A, BT_B, NULL };
	int i, got = ue_trace_seqs(names, seq, pid, BT_MAX + 1);

	ASSERT_EQ(n, got);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(first + i, seq[i]) TH_LOG("record %d", i);
		EXPECT_EQ(tid, pid[i]) TH_LOG("record %d", i);
	}
}

FIXTURE_SETUP(batch)
{
	int ret;

	UE_SETUP(UE_ROOT | UE_TRACE);
	if (ue_skip_reason(self->flags))
		return;
	ret = bt_submit(self->t.fd, NULL, 0, NULL);
	if (ret == -ENOTTY)
		SKIP(return, "DIAG_IOCSBATCH not supported (ENOTTY)");
	ASSERT_EQ(-EINVAL, ret);
	ue_track_del(&self->t, BT_A);
	ue_track_del(&self->t, BT_B);
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, BT_A " u32 seq", BT_A, 0, &self->a));
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, BT_B " u32 seq; u64 x", BT_B, 1,
				    &self->b));
	ASSERT_EQ(0, ue_trace_clear());
}

FIXTURE_TEARDOWN(batch)
{
	UE_TEARDOWN();
}

/* The records of two events reach ftrace in submission order, from the caller's pid */
TEST_F(batch, records_in_order)
{
	int err;

	bt_fill(self, 32, 100);
	ASSERT_EQ(32, bt_submit(self->t.fd, self->iov, 32, &err));
	EXPECT_EQ(0, err);
	bt_expect_trace(_metadata, 100, 32, getpid());
	/* one record is a batch too */
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(1, bt_submit(self->t.fd, self->iov, 1, &err));
	bt_expect_trace(_metadata, 100, 1, getpid());
}

struct bt_thread {
	struct _test_data_batch *self;
	pid_t tid;
	int ret, err;
};

static void *bt_thread_submit(void *arg)
{
	struct bt_thread *t = arg;

	t->tid = gettid();
	t->ret = bt_submit(t->self->t.fd, t->self->iov, 8, &t->err);
	return NULL;
}

/* A batch submitted by a thread shows that thread's id, as its write() would */
TEST_F(batch, writer_tid)
{
	struct bt_thread t = { .self = self };
	pthread_t th;

	bt_fill(self, 8, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, bt_thread_submit, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(8, t.ret);
	EXPECT_EQ(0, t.err);
	ASSERT_NE(getpid(), t.tid);
	bt_expect_trace(_metadata, 0, 8, t.tid);
}

/* Perf receives the same bytes from a batch as from write() of each record */
TEST_F(batch, perf_same_bytes)
{
	unsigned char raw[2][8][64];
	__u32 size[2][8];
	struct ue_ring r;
	int i, k, err;

	self->perf_fd = ue_perf_open(ue_event_id(UE_SYS, BT_B), false);
	if (self->perf_fd < 0)
		SKIP(return, "no perf tracepoint events");
	ASSERT_EQ(0, ue_ring_map(&r, self->perf_fd));
	for (i = 0; i < 8; i++)
		bt_set(self, i, self->b, i);
	for (i = 0; i < 8; i++)
		ASSERT_EQ((ssize_t)self->iov[i].iov_len,
			  write(self->t.fd, self->iov[i].iov_base, self->iov[i].iov_len));
	ASSERT_EQ(8, bt_submit(self->t.fd, self->iov, 8, &err));
	memset(raw, 0, sizeof(raw));
	for (k = 0; k < 2; k++)
		for (i = 0; i < 8; i++) {
			size[k][i] = ue_ring_next_raw(&r, raw[k][i], sizeof(raw[k][i]));
			ASSERT_LT(0, size[k][i])
				TH_LOG("sample %d of %s", i, k ? "batch" : "write");
		}
	EXPECT_EQ(0, ue_ring_next_raw(&r, NULL, 0));
	/*
	 * The same bytes but the header's context flags and preempt count (bytes 2 and 3), which
	 * say what the CPU was doing at that moment (a pending reschedule): its type and pid too.
	 */
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(size[0][i], size[1][i]);
		EXPECT_EQ(0, memcmp(raw[0][i], raw[1][i], 2)) TH_LOG("record %d: type", i);
		EXPECT_EQ(0, memcmp(raw[0][i] + 4, raw[1][i] + 4, sizeof(raw[0][i]) - 4))
			TH_LOG("record %d", i);
	}
	ue_ring_unmap(&r);
}

/* A record that the test makes bad, and what write() of it answers */
struct bt_bad {
	const char *what;
	int err;
	void (*make)(struct _test_data_batch *self, struct iovec *iov, void *aux);
};

static void bt_bad_index(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	((struct bt_rec *)iov->iov_base)->idx = 4096;
}

static void bt_bad_negative(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	((struct bt_rec *)iov->iov_base)->idx = -1;
}

static void bt_bad_partial_index(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	iov->iov_len = 2;
}

static void bt_bad_below_format(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	((struct bt_rec *)iov->iov_base)->idx = self->b;
	iov->iov_len = 2 * sizeof(__u32);	/* the index and seq, no x */
}

static void bt_bad_unmapped(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	iov->iov_base = aux;	/* a PROT_NONE page */
}

static void bt_bad_unmapped_payload(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	/* the index on the page before the PROT_NONE page, the payload on it */
	iov->iov_base = (char *)aux - sizeof(__u32);
	memcpy(iov->iov_base, &self->a, sizeof(__u32));
	iov->iov_len = 2 * sizeof(__u32);
}

static void bt_bad_kernel(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	iov->iov_base = (void *)(uintptr_t)-4096;
}

static void bt_bad_disabled(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	__u32 idx;

	/* registered on this file, never enabled */
	ue_track_del(&self->t, "uet_bt_off");
	if (ue_track_reg(&self->t, "uet_bt_off u32 seq", self->page + 64, 4, 0, &idx))
		idx = UINT32_MAX;
	((struct bt_rec *)iov->iov_base)->idx = idx;
}

static void bt_bad_other_file(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	char cmd[64];
	__u32 idx = UINT32_MAX;
	int fd = ue_open_data(), i;

	/* the index BT_A has on a second file, beyond this file's table */
	for (i = 0; fd >= 0 && i < 8; i++) {
		snprintf(cmd, sizeof(cmd), "uet_bt_o%d u32 seq", i);
		ue_reg(fd, i < 7 ? cmd : BT_A " u32 seq", self->page + 128 + 8 * i, 4, 0, 0,
		       &idx);
	}
	for (i = 0; fd >= 0 && i < 8; i++)
		ue_unreg(fd, self->page + 128 + 8 * i, 0);
	if (fd >= 0)
		close(fd);
	((struct bt_rec *)iov->iov_base)->idx = idx;
}

static void bt_bad_rel_loc(struct _test_data_batch *self, struct iovec *iov, void *aux)
{
	static struct {
		__u32 idx, seq, loc;
		char str[4];
	} rec;	/* no padding */
	__u32 idx;

	ue_track_del(&self->t, BT_S);
	if (ue_reg_enabled(&self->t, self->page, BT_S " u32 seq; __rel_loc char[] str", BT_S, 2,
			   &idx))
		idx = UINT32_MAX;
	/* four bytes at offset 0 after the location, "abcd": no terminating NUL */
	rec.idx = idx;
	rec.seq = 1;
	rec.loc = 4 << 16;
	memcpy(rec.str, "abcd", 4);
	iov->iov_base = &rec;
	iov->iov_len = sizeof(rec);
}

static const struct bt_bad bt_bads[] = {
	{ "index not registered", ENOENT, bt_bad_index },
	{ "negative index", EINVAL, bt_bad_negative },
	{ "another file's index", ENOENT, bt_bad_other_file },
	{ "shorter than its index", EFAULT, bt_bad_partial_index },
	{ "shorter than the event's fields", EINVAL, bt_bad_below_format },
	{ "record unmapped", EFAULT, bt_bad_unmapped },
	{ "payload unmapped", EFAULT, bt_bad_unmapped_payload },
	{ "kernel address", EFAULT, bt_bad_kernel },
	{ "event not traced", EBADF, bt_bad_disabled },
	{ "string without its NUL", EFAULT, bt_bad_rel_loc },
};

/*
 * A bad record k of a batch: records 0..k-1 are written, k gets the errno write() of it gets,
 * nothing after it is tried, and nothing is written twice.
 */
TEST_F(batch, bad_record_stops_the_batch)
{
	size_t ps = getpagesize();
	struct iovec bad;
	char *pages;
	int i, k, err, ret;

	pages = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(pages != MAP_FAILED);
	ASSERT_EQ(0, mprotect(pages + ps, ps, PROT_NONE));
	for (i = 0; i < ARRAY_SIZE(bt_bads); i++) {
		k = 1 + i % 3;
		bt_fill(self, 8, 0);
		bt_bads[i].make(self, &self->iov[k], pages + ps);
		bad = self->iov[k];
		ASSERT_EQ(-1, write(self->t.fd, bad.iov_base, bad.iov_len))
			TH_LOG("%s", bt_bads[i].what);
		EXPECT_EQ(bt_bads[i].err, errno) TH_LOG("write(): %s", bt_bads[i].what);
		ASSERT_EQ(0, ue_trace_clear());
		ret = bt_submit(self->t.fd, self->iov, 8, &err);
		EXPECT_EQ(k, ret) TH_LOG("%s", bt_bads[i].what);
		EXPECT_EQ(bt_bads[i].err, err) TH_LOG("%s", bt_bads[i].what);
		bt_expect_trace(_metadata, 0, k, getpid());
	}
	munmap(pages, 2 * ps);
}

/*
 * The call itself: its struct, its array and its file (open for writing), each refused before
 * any record is written
 */
TEST_F(batch, bad_call)
{
	size_t ps = getpagesize();
	struct user_batch b;
	struct iovec *many;
	char path[PATH_MAX], *ro;
	int i, err, ro_fd;
	__u32 idx;

	bt_fill(self, 2, 0);
	EXPECT_EQ(-EINVAL, bt_submit(self->t.fd, self->iov, 0, NULL));
	many = calloc(USER_BATCH_MAX + 1, sizeof(*many));
	ASSERT_TRUE(ue_nonnull(many));
	for (i = 0; i <= USER_BATCH_MAX; i++)
		many[i] = self->iov[i % 2];
	EXPECT_EQ(-EINVAL, bt_submit(self->t.fd, many, USER_BATCH_MAX + 1, NULL));
	EXPECT_EQ(-EFAULT, bt_submit(self->t.fd, NULL, 2, NULL));
	EXPECT_EQ(-EFAULT, bt_submit(self->t.fd, (void *)(uintptr_t)-4096, 2, NULL));
	/* an iov_len above SSIZE_MAX, as writev() */
	self->iov[1].iov_len = (size_t)-1;
	EXPECT_EQ(-EINVAL, bt_submit(self->t.fd, self->iov, 2, NULL));
	bt_fill(self, 2, 0);

	b = (struct user_batch){ .size = sizeof(b), .count = 2,
				 .records = (__u64)(uintptr_t)self->iov, .__reserved = 1 };
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCSBATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.__reserved = 0;
	b.size = sizeof(b) - 4;
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCSBATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	/* the struct where the answer cannot be stored */
	ro = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ro != MAP_FAILED);
	b.size = sizeof(b);
	memcpy(ro, &b, sizeof(b));
	ASSERT_EQ(0, mprotect(ro, ps, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCSBATCH, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, ps);
	bt_expect_trace(_metadata, 0, 0, getpid());

	/* a file open for reading only: registrations, but no records (EBADF, as write()) */
	ro_fd = open(ue_tpath(path, sizeof(path), "user_events_data"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro_fd);
	ASSERT_EQ(0, ue_reg(ro_fd, BT_A " u32 seq", self->page + 256, 4, 0, 0, &idx));
	self->iov[0].iov_base = &self->rec[0];
	self->rec[0].idx = idx;
	EXPECT_EQ(-1, write(ro_fd, self->iov[0].iov_base, self->iov[0].iov_len));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-EBADF, bt_submit(ro_fd, self->iov, 1, NULL));
	EXPECT_EQ(0, ue_unreg(ro_fd, self->page + 256, 0));
	close(ro_fd);
	bt_fill(self, 2, 0);
	bt_expect_trace(_metadata, 0, 0, getpid());

	/* the most records a call takes, all written */
	EXPECT_EQ(USER_BATCH_MAX, bt_submit(self->t.fd, many, USER_BATCH_MAX, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(USER_BATCH_MAX, ue_trace_count(BT_A, NULL, 0) + ue_trace_count(BT_B, NULL, 0));
	free(many);
}

struct bt_race {
	struct _test_data_batch *self;
	int stop;
	long calls, written, untraced, other;
};

static void *bt_race_submit(void *arg)
{
	struct bt_race *r = arg;
	int ret, err;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		ret = bt_submit(r->self->t.fd, r->self->iov, 16, &err);
		r->calls++;
		if (ret >= 0)
			r->written += ret;
		if (ret == 16)
			continue;
		if (ret >= 0 && err == EBADF)
			r->untraced++;
		else
			r->other++;
	}
	return NULL;
}

/*
 * Batches of two events race their unregistration, their deletion and their tracer: every
 * record is written or refused as not traced (the file's slots keep the events), nothing else
 */
TEST_F(batch, races_unreg_and_delete)
{
	struct bt_race r = { .self = self };
	struct timespec start;
	pthread_t th;
	__u32 idx;
	int rounds = 0;

	bt_fill(self, 16, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, bt_race_submit, &r));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_elapsed(&start) < 1.0) {
		ue_set_enable(UE_SYS, BT_B, false);
		ue_unreg(self->t.fd, self->page, 0);
		ue_del(self->t.fd, BT_A);	/* EBUSY: this file's slot holds it */
		ue_set_enable(UE_SYS, BT_B, true);
		ue_reg(self->t.fd, BT_A " u32 seq", self->page, 4, 0, 0, &idx);
		EXPECT_EQ(self->a, idx);
		rounds++;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_join(th, NULL));
	TH_LOG("%d rounds, %ld calls, %ld records, %ld stopped untraced", rounds, r.calls,
	       r.written, r.untraced);
	EXPECT_LT(0, r.calls);
	EXPECT_EQ(0, r.other);
	EXPECT_TRUE(ue_event_exists(UE_SYS, BT_A));
}

TEST_HARNESS_MAIN
