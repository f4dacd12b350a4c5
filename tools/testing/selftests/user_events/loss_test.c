// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: loss counts (Documentation/trace/user_events.rst, "Loss counts").
 * DIAG_IOCGLOSS on user_events_data and the tracefs file user_events_loss tell what became of
 * an event's records (struct user_loss), for all its writers since the event was created:
 * written while a consumer was attached, refused by an ftrace buffer, lost by a perf ring,
 * unreadable payloads, records too large for a consumer.  Kernels without the ioctl fail it
 * with ENOTTY: every test skips there.
 */
#include <ctype.h>
#include <grp.h>

#include "ue_util.h"
#include "../kselftest_harness.h"

#define LS_INST		"instances/uet_loss"
#define LS_FILE		"user_events_loss"
#define LS_SENTINEL	0x5a5a5a5a5a5a5a5aull
/* A field of an expected struct user_loss not to compare */
#define LS_ANY		UINT64_MAX
#define LS_UNPRIV_ID	64712	/* an otherwise unused uid and gid */
/* The payload of the ftrace buffer tests: u32 seq; char[60] pad */
#define LS_PAD		60

struct ls_payload {
	__u32 seq;
	char pad[LS_PAD];
};

FIXTURE(loss) {
	UE_FIXTURE_MEMBERS;
	bool inst;		/* LS_INST made by the test, removed at teardown */
	int fd2;		/* a second data file, closed at teardown */
	void *addr2[4];		/* registrations on it, bit 0 of each, unregistered before */
	int nregs2;
	mode_t root_mode, file_mode;	/* restored if saved */
	bool modes_saved;
};

/* DIAG_IOCGLOSS of @idx on @fd, asking for @size bytes; the rest of @l is LS_SENTINEL */
static int ls_get_size(int fd, __u32 idx, __u32 size, struct user_loss *l)
{
	memset(l, 0x5a, sizeof(*l));
	l->size = size;
	l->write_index = idx;
	return ioctl(fd, DIAG_IOCGLOSS, l) ? -errno : 0;
}

static int ls_get(int fd, __u32 idx, struct user_loss *l)
{
	return ls_get_size(fd, idx, sizeof(*l), l);
}

/*
 * A line of user_events_loss: "NAME written N ftrace N perf N fault N size N", then perhaps
 * more "KEY N" pairs.  @line is split in place; 0 or -EINVAL.
 */
static int ls_parse_line(char *line, char **name, struct user_loss *l)
{
	static const char * const keys[] = { "written", "ftrace", "perf", "fault", "size" };
	__u64 *val[] = { &l->written, &l->lost_ftrace, &l->lost_perf, &l->lost_fault,
			 &l->lost_size };
	char *save, *key, *num, *end;
	int i;

	*name = strtok_r(line, " ", &save);
	if (!*name)
		return -EINVAL;
	for (i = 0; (key = strtok_r(NULL, " ", &save)); i++) {
		num = strtok_r(NULL, " ", &save);
		if (!num || !isdigit((unsigned char)*num) || !islower((unsigned char)*key))
			return -EINVAL;
		errno = 0;
		if (i < ARRAY_SIZE(keys)) {
			if (strcmp(key, keys[i]))
				return -EINVAL;
			*val[i] = strtoull(num, &end, 10);
		} else {
			strtoull(num, &end, 10);
		}
		if (*end || errno)
			return -EINVAL;
	}
	return i >= ARRAY_SIZE(keys) ? 0 : -EINVAL;
}

/* The user_events_loss line of @name into @l: 0, -ENOENT, -EINVAL (malformed) or -errno */
static int ls_file_line(const char *name, struct user_loss *l)
{
	char path[PATH_MAX], *text, *line, *save, *first;
	int ret = -ENOENT;

	text = ue_read_all(ue_tpath(path, sizeof(path), LS_FILE));
	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line && ret == -ENOENT;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, name, strlen(name)) || line[strlen(name)] != ' ')
			continue;
		ret = ls_parse_line(line, &first, l);
	}
	free(text);
	return ret;
}

/* @what of the counters of @idx on @fd (event @name), LS_ANY for any; returns them */
static struct user_loss ls_expect(struct __test_metadata *_metadata, int fd, __u32 idx,
				  const char *name, struct user_loss want)
{
	struct user_loss l, again, line;

	ASSERT_EQ(0, ls_get(fd, idx, &l)) TH_LOG("%s", name);
	EXPECT_EQ(sizeof(l), l.size);
	EXPECT_EQ(idx, l.write_index);
	if (want.written != LS_ANY)
		EXPECT_EQ(want.written, l.written) TH_LOG("%s: written", name);
	if (want.lost_ftrace != LS_ANY)
		EXPECT_EQ(want.lost_ftrace, l.lost_ftrace) TH_LOG("%s: lost_ftrace", name);
	if (want.lost_perf != LS_ANY)
		EXPECT_EQ(want.lost_perf, l.lost_perf) TH_LOG("%s: lost_perf", name);
	if (want.lost_fault != LS_ANY)
		EXPECT_EQ(want.lost_fault, l.lost_fault) TH_LOG("%s: lost_fault", name);
	if (want.lost_size != LS_ANY)
		EXPECT_EQ(want.lost_size, l.lost_size) TH_LOG("%s: lost_size", name);
	/* the file says the same, and neither reading changed anything */
	ASSERT_EQ(0, ls_file_line(name, &line)) TH_LOG("%s in " LS_FILE, name);
	ASSERT_EQ(0, ls_get(fd, idx, &again));
	EXPECT_EQ(0, memcmp(&l, &again, sizeof(l))) TH_LOG("%s: the ioctl changed", name);
	EXPECT_EQ(l.written, line.written) TH_LOG("%s: " LS_FILE, name);
	EXPECT_EQ(l.lost_ftrace, line.lost_ftrace) TH_LOG("%s: " LS_FILE, name);
	EXPECT_EQ(l.lost_perf, line.lost_perf) TH_LOG("%s: " LS_FILE, name);
	EXPECT_EQ(l.lost_fault, line.lost_fault) TH_LOG("%s: " LS_FILE, name);
	EXPECT_EQ(l.lost_size, line.lost_size) TH_LOG("%s: " LS_FILE, name);
	return l;
}

/* An expected struct user_loss: written, ftrace, perf, fault, size */
static struct user_loss ls_want(__u64 written, __u64 ftrace, __u64 perf, __u64 fault, __u64 size)
{
	return (struct user_loss){ .written = written, .lost_ftrace = ftrace, .lost_perf = perf,
				   .lost_fault = fault, .lost_size = size };
}

/* Register @cmd at bit @bit of the page on the fixture's fd, deleted at the end: its index */
static __u32 ls_reg(struct __test_metadata *_metadata, struct _test_data_loss *self,
		    const char *cmd, int bit, bool enable)
{
	char name[UE_NAME_MAX];
	__u32 idx;
	int ret;

	ue_cmd_name(name, sizeof(name), cmd);
	ue_track_del(&self->t, name);
	ret = enable ? ue_reg_enabled(&self->t, self->page, cmd, name, bit, &idx) :
		       ue_track_reg(&self->t, cmd, self->page, 4, bit, &idx);
	ASSERT_EQ(0, ret) TH_LOG("%s", cmd);
	return idx;
}

/* Register @cmd on the second data file, at a word of its own (bit 0): its index */
static __u32 ls_reg2(struct __test_metadata *_metadata, struct _test_data_loss *self,
		     const char *cmd)
{
	void *addr = self->page + 2048 + 8 * self->nregs2;
	__u32 idx;

	ASSERT_GT(ARRAY_SIZE(self->addr2), self->nregs2);
	if (self->fd2 < 0)
		self->fd2 = ue_open_data();
	ASSERT_LE(0, self->fd2);
	ASSERT_EQ(0, ue_reg(self->fd2, cmd, addr, 4, 0, 0, &idx)) TH_LOG("%s", cmd);
	self->addr2[self->nregs2++] = addr;
	return idx;
}

/* Did perf_event_open() fail for want of perf tracepoint events? */
static bool ls_no_perf(int err)
{
	return err == ENOENT || access("/proc/sys/kernel/perf_event_paranoid", F_OK);
}

/* perf_event_open() of @name with PERF_FORMAT_LOST: its fd, or -1 without perf */
static int ls_perf(struct __test_metadata *_metadata, const char *name)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.config = ue_event_id(UE_SYS, name),
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.wakeup_events = 1,
		.read_format = PERF_FORMAT_LOST,
	};
	int fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0 && ls_no_perf(errno))
		return -1;
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	return fd;
}

static char *ls_inst_path(char *buf, size_t len, const char *file)
{
	return ue_tpath(buf, len, LS_INST "/%s", file);
}

static int ls_inst_write(const char *file, const char *val)
{
	char path[PATH_MAX];

	return ue_write_str(ls_inst_path(path, sizeof(path), file), val, O_TRUNC);
}

/* Remove LS_INST, its events disabled first: 0 or -errno */
static int ls_inst_remove(void)
{
	char path[PATH_MAX];
	int i;

	ls_inst_write("events/enable", "0");
	ls_inst_path(path, sizeof(path), "");
	for (i = 0; rmdir(path) && errno == EBUSY && i < UE_WAIT_SECS * 100; i++)
		usleep(10000);
	return access(path, F_OK) ? 0 : -errno;
}

/*
 * A tracefs instance LS_INST of @kb KiB per CPU that refuses records when full (overwrite
 * off); its buffer's size in bytes per CPU as it reports it.
 */
static long ls_instance(struct __test_metadata *_metadata, struct _test_data_loss *self,
			const char *kb)
{
	char path[PATH_MAX], *text;
	long size;

	ls_inst_remove();
	ASSERT_EQ(0, mkdir(ls_inst_path(path, sizeof(path), ""), 0755))
		TH_LOG("mkdir %s: %s", path, strerror(errno));
	self->inst = true;
	ASSERT_EQ(0, ls_inst_write("buffer_size_kb", kb));
	ASSERT_EQ(0, ls_inst_write("options/overwrite", "0"));
	ASSERT_EQ(0, ls_inst_write("tracing_on", "1"));
	text = ue_read_all(ls_inst_path(path, sizeof(path), "buffer_size_kb"));
	ASSERT_TRUE(ue_nonnull(text));
	size = atol(text) * 1024;
	free(text);
	ASSERT_LT(0, size);
	return size;
}

/* Enable or disable @name in LS_INST */
static int ls_inst_enable(const char *name, bool on)
{
	char file[UE_NAME_MAX + 64];

	snprintf(file, sizeof(file), "events/%s/%s/enable", UE_SYS, name);
	return ls_inst_write(file, on ? "1" : "0");
}

/* Records of @name that LS_INST holds */
static int ls_inst_held(const char *name)
{
	char path[PATH_MAX], needle[UE_NAME_MAX + 3];

	snprintf(needle, sizeof(needle), " %s:", name);
	return ue_count_in(ls_inst_path(path, sizeof(path), "trace"), needle);
}

/* "dropped events" of LS_INST's buffer of @cpu, or -1 */
static long long ls_inst_dropped(int cpu)
{
	char path[PATH_MAX], file[64], *text, *p;
	long long n = -1;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = ue_read_all(ls_inst_path(path, sizeof(path), file));
	p = text ? strstr(text, "dropped events:") : NULL;
	if (p)
		n = atoll(p + strlen("dropped events:"));
	free(text);
	return n;
}

FIXTURE_SETUP(loss)
{
	struct user_loss l;
	int ret;

	self->fd2 = -1;
	UE_SETUP(UE_ROOT | UE_TRACE);
	if (ue_skip_reason(self->flags))
		return;
	/* no registration on the fd: ENOENT, or ENOTTY without the ioctl */
	ret = ls_get(self->t.fd, 0, &l);
	if (ret == -ENOTTY)
		SKIP(return, "DIAG_IOCGLOSS not supported (ENOTTY)");
	ASSERT_EQ(-ENOENT, ret);
}

FIXTURE_TEARDOWN(loss)
{
	char path[PATH_MAX];
	int i;

	if (self->inst && ls_inst_remove())
		TH_LOG("cannot remove " LS_INST);
	for (i = 0; i < self->nregs2; i++)
		ue_unreg(self->t.fd, self->addr2[i], 0);
	if (self->fd2 >= 0)
		close(self->fd2);
	if (self->modes_saved) {
		chmod(ue_tpath(path, sizeof(path), LS_FILE), self->file_mode);
		chmod(ue_tpath(path, sizeof(path), "%s", ""), self->root_mode);
	}
	UE_TEARDOWN();
}

/*
 * ENOENT for an index not registered on this file (another file's, huge ones), EINVAL for a
 * size under 16, EFAULT for a bad pointer, reading or writing; a size of 16 or 24 fills that
 * much and leaves the rest alone.
 */
TEST_F(loss, errors)
{
	static const __u32 small[] = { 0, 1, 4, 8, 15 };
	static const __u32 huge[] = { 1000, INT32_MAX, UINT32_MAX };
	size_t ps = getpagesize();
	struct user_loss l, *ro;
	__u32 idx, idx2, other;
	void *gone;
	int i;

	idx = ls_reg(_metadata, self, "uet_ls_err u32 a", 0, false);
	idx2 = ls_reg(_metadata, self, "uet_ls_err2 u32 a", 1, false);
	EXPECT_EQ(0, ls_get(self->t.fd, idx, &l));
	EXPECT_EQ(0, ls_get(self->t.fd, idx2, &l));
	/* a file with one registration: index 0 only */
	other = ls_reg2(_metadata, self, "uet_ls_err u32 a");
	ASSERT_LT(other, idx2 > idx ? idx2 : idx);
	EXPECT_EQ(0, ls_get(self->fd2, other, &l));
	EXPECT_EQ(-ENOENT, ls_get(self->fd2, idx2 > idx ? idx2 : idx, &l));
	for (i = 0; i < ARRAY_SIZE(huge); i++)
		EXPECT_EQ(-ENOENT, ls_get(self->t.fd, huge[i], &l)) TH_LOG("index %u", huge[i]);
	for (i = 0; i < ARRAY_SIZE(small); i++)
		EXPECT_EQ(-EINVAL, ls_get_size(self->t.fd, idx, small[i], &l))
			TH_LOG("size %u", small[i]);
	/* the oldest layout: size, index and written */
	ASSERT_EQ(0, ls_get_size(self->t.fd, idx, 16, &l));
	EXPECT_EQ(16, l.size);
	EXPECT_EQ(idx, l.write_index);
	EXPECT_EQ(0, l.written);
	EXPECT_EQ(LS_SENTINEL, l.lost_ftrace);
	EXPECT_EQ(LS_SENTINEL, l.lost_size);
	ASSERT_EQ(0, ls_get_size(self->t.fd, idx, 24, &l));
	EXPECT_EQ(24, l.size);
	EXPECT_EQ(0, l.lost_ftrace);
	EXPECT_EQ(LS_SENTINEL, l.lost_perf);
	/* bad pointers */
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCGLOSS, NULL));
	EXPECT_EQ(EFAULT, errno);
	gone = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(gone));
	ASSERT_EQ(0, munmap(gone, ps));
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCGLOSS, gone));
	EXPECT_EQ(EFAULT, errno);
	/* a valid request in read-only memory: the answer cannot be written */
	ro = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(ro));
	ro->size = sizeof(*ro);
	ro->write_index = idx;
	ASSERT_EQ(0, mprotect(ro, ps, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCGLOSS, ro));
	EXPECT_EQ(EFAULT, errno);
	/* a request that ends in an unmapped page */
	ASSERT_EQ(0, munmap(ro, ps));
	ro = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ro != MAP_FAILED);
	ASSERT_EQ(0, munmap((char *)ro + ps, ps));
	ro = (struct user_loss *)((char *)ro + ps - 8);
	ro->size = sizeof(*ro);
	ro->write_index = idx;
	EXPECT_EQ(-1, ioctl(self->t.fd, DIAG_IOCGLOSS, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap((char *)ro - ps + 8, ps);
}

/*
 * Counts are per event, for all writers: records written on two files while ftrace is
 * attached; none without a consumer (EBADF); the counts stay with the event while it exists.
 */
TEST_F(loss, written_all_writers)
{
	__u32 idx = ls_reg(_metadata, self, "uet_ls_wr u32 a", 0, true), idx2, val = 1;
	__u32 quiet = ls_reg(_metadata, self, "uet_ls_wr_quiet u32 a", 1, false);
	int i;

	ls_expect(_metadata, self->t.fd, idx, "uet_ls_wr", ls_want(0, 0, 0, 0, 0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	idx2 = ls_reg2(_metadata, self, "uet_ls_wr u32 a");
	for (i = 0; i < 2; i++)
		ASSERT_EQ(8, ue_emit(self->fd2, idx2, &val, sizeof(val)));
	EXPECT_EQ(5, ue_trace_count("uet_ls_wr", NULL, 0));
	ls_expect(_metadata, self->t.fd, idx, "uet_ls_wr", ls_want(5, 0, 0, 0, 0));
	ls_expect(_metadata, self->fd2, idx2, "uet_ls_wr", ls_want(5, 0, 0, 0, 0));
	/* no consumer: EBADF, not counted */
	EXPECT_EQ(-EBADF, ue_emit(self->t.fd, quiet, &val, sizeof(val)));
	ls_expect(_metadata, self->t.fd, quiet, "uet_ls_wr_quiet", ls_want(0, 0, 0, 0, 0));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ls_wr", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	EXPECT_EQ(-EBADF, ue_emit(self->fd2, idx2, &val, sizeof(val)));
	/* the first registration gone, the event stays (the second): so do its counts */
	ASSERT_EQ(0, ue_unreg(self->t.fd, self->page, 0));
	ls_expect(_metadata, self->fd2, idx2, "uet_ls_wr", ls_want(5, 0, 0, 0, 0));
}

/*
 * The exact counts of a full ftrace buffer: an instance of a few KiB per CPU that refuses
 * records when full, two events enabled there only, the writer on one CPU, writing them in
 * turn well past full.  Per event: written is all of its writes, lost_ftrace those the
 * instance does not hold; the buffer's own "dropped events" is the sum of both.
 */
TEST_F_TIMEOUT(loss, ftrace_full_exact, 120)
{
	static const char * const names[] = { "uet_ls_fa", "uet_ls_fb" };
	struct ls_payload p = { 0 };
	__u64 n[2] = { 0, 0 };
	int cpu = ue_pin_cpu(), i, held[2], failed = 0;
	long long total, dropped;
	char cmd[96];
	__u32 idx[2];
	long size;

	ASSERT_LE(0, cpu);
	size = ls_instance(_metadata, self, "4");
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s u32 seq; char[%d] pad", names[i], LS_PAD);
		idx[i] = ls_reg(_metadata, self, cmd, i, false);
		ASSERT_EQ(0, ls_inst_enable(names[i], true));
		ASSERT_TRUE(ue_wait_bit(self->page, 4, i, true));
	}
	/* a record takes more than its payload: 4 times the buffer (and a reader page) */
	total = 4 * (size + getpagesize()) / sizeof(p);
	for (p.seq = 0; p.seq < total; p.seq++) {
		i = p.seq & 1;
		n[i]++;
		failed += ue_emit(self->t.fd, idx[i], &p, sizeof(p)) != (ssize_t)sizeof(p) + 4;
	}
	EXPECT_EQ(0, failed) TH_LOG("writes refused by a full buffer fail");
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ls_inst_enable(names[i], false));
	dropped = ls_inst_dropped(cpu);
	for (i = 0; i < 2; i++) {
		held[i] = ls_inst_held(names[i]);
		TH_LOG("%s: %llu written, %d held (%ld bytes per CPU, cpu %d dropped %lld)",
		       names[i], (unsigned long long)n[i], held[i], size, cpu, dropped);
		EXPECT_LT(0, held[i]);
		EXPECT_GT(n[i], held[i]) TH_LOG("the buffer never filled");
		ls_expect(_metadata, self->t.fd, idx[i], names[i],
			  ls_want(n[i], n[i] - held[i], 0, 0, 0));
	}
	if (dropped >= 0)
		EXPECT_EQ(n[0] + n[1] - held[0] - held[1], dropped);
}

/* Recording off in a buffer: each record it refuses counts, as many as were written */
TEST_F(loss, ftrace_recording_off)
{
	__u32 idx = ls_reg(_metadata, self, "uet_ls_off u32 a", 0, false), val = 7;
	int i;

	ls_instance(_metadata, self, "64");
	ASSERT_EQ(0, ls_inst_enable("uet_ls_off", true));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	ASSERT_EQ(0, ls_inst_write("tracing_on", "0"));
	for (i = 0; i < 10; i++)
		ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ls_inst_write("tracing_on", "1"));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	EXPECT_EQ(3, ls_inst_held("uet_ls_off"));
	ls_expect(_metadata, self->t.fd, idx, "uet_ls_off", ls_want(13, 10, 0, 0, 0));
}

/*
 * A perf ring of one page that nobody reads: lost_perf is what does not fit, as perf counts it
 * itself (PERF_FORMAT_LOST), and stays after the perf event is closed.
 */
TEST_F(loss, perf_ring_full)
{
	__u32 idx = ls_reg(_metadata, self, "uet_ls_perf u32 a", 0, false), val = 3;
	struct { __u64 value, lost; } counts = { 0, 0 };
	__u64 m = getpagesize() / 8, held = 0, i;
	struct ue_ring r;
	int failed = 0;

	self->perf_fd = ls_perf(_metadata, "uet_ls_perf");
	if (self->perf_fd < 0)
		SKIP(return, "perf tracepoint events not available");
	r.size = 2 * getpagesize();
	r.base = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, self->perf_fd, 0);
	ASSERT_TRUE(r.base != MAP_FAILED);
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	for (i = 0; i < m; i++)
		failed += ue_emit(self->t.fd, idx, &val, sizeof(val)) != 8;
	EXPECT_EQ(0, failed) TH_LOG("writes lost by a full ring fail");
	while (ue_ring_next_raw(&r, NULL, 0))
		held++;
	ASSERT_EQ((ssize_t)sizeof(counts), read(self->perf_fd, &counts, sizeof(counts)));
	TH_LOG("%llu written, %llu in the ring, perf counts %llu, lost %llu",
	       (unsigned long long)m, (unsigned long long)held,
	       (unsigned long long)counts.value, (unsigned long long)counts.lost);
	EXPECT_LT(0, held);
	EXPECT_GT(m, held) TH_LOG("the ring never filled");
	EXPECT_EQ(m - held, counts.lost);
	ls_expect(_metadata, self->t.fd, idx, "uet_ls_perf", ls_want(m, 0, m - held, 0, 0));
	ue_ring_unmap(&r);
	close(self->perf_fd);
	self->perf_fd = -1;
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	ls_expect(_metadata, self->t.fd, idx, "uet_ls_perf", ls_want(m, 0, m - held, 0, 0));
}

/* The largest record the top level ftrace buffer holds, about: its sub-buffer's size */
static long ls_subbuf_size(void)
{
	char path[PATH_MAX], *text = ue_read_all(ue_tpath(path, sizeof(path),
							  "buffer_subbuf_size_kb"));
	long size = text ? atol(text) * 1024 : 0;

	free(text);
	return size > getpagesize() ? size : getpagesize();
}

/*
 * A record larger than a consumer takes counts lost_size once per consumer that could not
 * take it: the write fails with E2BIG when none did.  ftrace takes about a sub-buffer, perf
 * 8 KiB (where the sub-buffer is smaller, a record between them reaches perf only).
 */
#define LS_PERF_MAX	8192

TEST_F(loss, too_big)
{
	__u32 idx = ls_reg(_metadata, self, "uet_ls_big __rel_loc u8[] blob", 0, true);
	long sub = ls_subbuf_size(), mid = 6000;
	size_t big = 2 * (sub > LS_PERF_MAX ? sub : LS_PERF_MAX);
	struct user_loss l, l2;
	char *p = calloc(1, big);
	struct ue_ring r;

	ASSERT_TRUE(ue_nonnull(p));
	*(__u32 *)p = DYN_LOC(0, big - 4);
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	l = ls_expect(_metadata, self->t.fd, idx, "uet_ls_big", ls_want(LS_ANY, 0, 0, 0, 1));
	TH_LOG("written after one record too big for all: %llu", (unsigned long long)l.written);
	self->perf_fd = ls_perf(_metadata, "uet_ls_big");
	if (self->perf_fd < 0)
		SKIP(return, "perf tracepoint events not available");
	ASSERT_EQ(0, ue_ring_map(&r, self->perf_fd));
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	l = ls_expect(_metadata, self->t.fd, idx, "uet_ls_big", ls_want(LS_ANY, 0, 0, 0, 3));
	if (sub + 256 < mid) {
		*(__u32 *)p = DYN_LOC(0, mid - 4);
		EXPECT_EQ(mid + 4, ue_emit(self->t.fd, idx, p, mid));
		EXPECT_LT(0, ue_ring_next_raw(&r, NULL, 0));
		l2 = ls_expect(_metadata, self->t.fd, idx, "uet_ls_big",
			       ls_want(LS_ANY, 0, 0, 0, 4));
		EXPECT_EQ(l.written + 1, l2.written) TH_LOG("perf took it");
	} else {
		TH_LOG("sub-buffer of %ld bytes: no record for perf only", sub);
	}
	ue_ring_unmap(&r);
	free(p);
}

/*
 * A payload that cannot be read (write() and writev() from an unmapped page) fails with EFAULT
 * and counts lost_fault once, however many consumers are attached.
 */
TEST_F(loss, fault)
{
	__u32 idx = ls_reg(_metadata, self, "uet_ls_flt u32 a", 0, true), val = 5;
	size_t ps = getpagesize();
	struct user_loss l, l2;
	int consumers = 1;
	char *pages;

	self->perf_fd = ls_perf(_metadata, "uet_ls_flt");
	if (self->perf_fd >= 0)
		consumers++;
	pages = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(pages != MAP_FAILED);
	ASSERT_EQ(0, munmap(pages + ps, ps));
	EXPECT_EQ(-EFAULT, ue_emit(self->t.fd, idx, pages + ps, sizeof(val)));
	l = ls_expect(_metadata, self->t.fd, idx, "uet_ls_flt", ls_want(LS_ANY, 0, 0, 1, 0));
	TH_LOG("%d consumers; written after a fault: %llu", consumers,
	       (unsigned long long)l.written);
	/* write(): the index readable, the payload not */
	memcpy(pages + ps - sizeof(idx), &idx, sizeof(idx));
	EXPECT_EQ(-1, write(self->t.fd, pages + ps - sizeof(idx), sizeof(idx) + sizeof(val)));
	EXPECT_EQ(EFAULT, errno);
	l = ls_expect(_metadata, self->t.fd, idx, "uet_ls_flt", ls_want(LS_ANY, 0, 0, 2, 0));
	/* and a good one is written */
	ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	l2 = ls_expect(_metadata, self->t.fd, idx, "uet_ls_flt", ls_want(LS_ANY, 0, 0, 2, 0));
	EXPECT_EQ(l.written + 1, l2.written);
	munmap(pages, ps);
}

/* Every line of LS_FILE parses; as many lines as user_events_status has events */
static int ls_file_check(struct __test_metadata *_metadata, int *nlines)
{
	char path[PATH_MAX], *text, *line, *save, *name;
	struct user_loss l;
	int bad = 0;

	*nlines = 0;
	text = ue_read_all(ue_tpath(path, sizeof(path), LS_FILE));
	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		(*nlines)++;
		if (ls_parse_line(line, &name, &l)) {
			bad++;
			TH_LOG("bad line %d: %s", *nlines, line);
		}
	}
	free(text);
	return bad ? -EINVAL : 0;
}

/* Lines of LS_FILE whose first word is @name, the last to @out */
static int ls_lines_of(const char *name, char *out, size_t len)
{
	char path[PATH_MAX], *text, *line, *save;
	size_t nlen = strlen(name);
	int n = 0;

	text = ue_read_all(ue_tpath(path, sizeof(path), LS_FILE));
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, name, nlen) || (line[nlen] && line[nlen] != ' '))
			continue;
		snprintf(out, len, "%s", line);
		n++;
	}
	free(text);
	return n;
}

#define LS_LINE_B	"uet_ls_file_b written 0 ftrace 0 perf 0 fault 0 size 0"

/*
 * LS_FILE: "NAME written N ftrace N perf N fault N size N" per event, those keys in that
 * order, as the ioctl says; one line per event of the group, as user_events_status has.
 */
TEST_F(loss, file_format)
{
	__u32 a = ls_reg(_metadata, self, "uet_ls_file_a u32 a", 0, true), val = 2;
	__u32 b = ls_reg(_metadata, self, "uet_ls_file_b u32 a", 1, false);
	int nlines = -1, active = -1, busy, i;
	char line[256];
	void *gone;

	ASSERT_EQ(8, ue_emit(self->t.fd, a, &val, sizeof(val)));
	ASSERT_EQ(8, ue_emit(self->t.fd, a, &val, sizeof(val)));
	gone = ue_map_page(PROT_READ);
	ASSERT_TRUE(ue_nonnull(gone));
	munmap(gone, getpagesize());
	EXPECT_EQ(-EFAULT, ue_emit(self->t.fd, a, gone, sizeof(val)));
	ls_expect(_metadata, self->t.fd, a, "uet_ls_file_a", ls_want(LS_ANY, 0, 0, 1, 0));
	ls_expect(_metadata, self->t.fd, b, "uet_ls_file_b", ls_want(0, 0, 0, 0, 0));
	/* events come and go (reaped): the two counts must agree once in a few tries */
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, ls_file_check(_metadata, &nlines));
		ASSERT_TRUE(ue_status_counts(&active, &busy));
		if (nlines == active)
			break;
		usleep(100000);
	}
	EXPECT_EQ(active, nlines);
	EXPECT_LE(2, nlines);
	/* the line is the documented one, exactly, with numbers in decimal */
	ASSERT_TRUE(ue_status_line("uet_ls_file_b", line, sizeof(line)));
	EXPECT_EQ(1, ls_lines_of("uet_ls_file_b", line, sizeof(line)));
	EXPECT_EQ(0, strncmp(line, LS_LINE_B, strlen(LS_LINE_B))) TH_LOG("%s", line);
	EXPECT_TRUE(!line[strlen(LS_LINE_B)] || line[strlen(LS_LINE_B)] == ' ') TH_LOG("%s", line);
}

/*
 * A user the file's mode lets read (here: the administrator adds o+r, and o+x to the tracefs
 * root) sees the same lines; while the mode does not let them, they cannot open it.
 */
static int ls_unpriv_read(const char *name, const struct user_loss *want, bool may)
{
	char path[PATH_MAX];
	struct user_loss l;
	int fd;

	if (setgroups(0, NULL) || setgid(LS_UNPRIV_ID) || setuid(LS_UNPRIV_ID))
		return 10;
	fd = open(ue_tpath(path, sizeof(path), LS_FILE), O_RDONLY);
	if (!may)
		return fd < 0 && errno == EACCES ? 0 : 11;
	if (fd < 0)
		return 12;
	close(fd);
	if (ls_file_line(name, &l))
		return 13;
	return l.written == want->written && l.lost_fault == want->lost_fault &&
	       l.lost_ftrace == want->lost_ftrace && l.lost_perf == want->lost_perf &&
	       l.lost_size == want->lost_size ? 0 : 14;
}

static int ls_unpriv(const char *name, const struct user_loss *want, bool may)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(ls_unpriv_read(name, want, may));
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(loss, file_unprivileged)
{
	__u32 idx = ls_reg(_metadata, self, "uet_ls_unpriv u32 a", 0, true), val = 9;
	char path[PATH_MAX];
	struct user_loss l;
	struct stat st;

	ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	l = ls_expect(_metadata, self->t.fd, idx, "uet_ls_unpriv", ls_want(1, 0, 0, 0, 0));
	ASSERT_EQ(0, stat(ue_tpath(path, sizeof(path), "%s", ""), &st));
	self->root_mode = st.st_mode & 07777;
	ASSERT_EQ(0, stat(ue_tpath(path, sizeof(path), LS_FILE), &st));
	self->file_mode = st.st_mode & 07777;
	self->modes_saved = true;
	TH_LOG(LS_FILE " mode %#o", self->file_mode);
	ASSERT_EQ(0, chmod(ue_tpath(path, sizeof(path), "%s", ""), self->root_mode | 0001));
	if (!(self->file_mode & 0004))
		EXPECT_EQ(0, ls_unpriv("uet_ls_unpriv", &l, false));
	ASSERT_EQ(0, chmod(ue_tpath(path, sizeof(path), LS_FILE), self->file_mode | 0444));
	EXPECT_EQ(0, ls_unpriv("uet_ls_unpriv", &l, true));
}

TEST_HARNESS_MAIN
