// SPDX-License-Identifier: GPL-2.0
/*
 * user_events as a drop-in for upstream 6.12: the registrations deployed clients send
 * (OpenTelemetry exporters, the .NET runtime, EventHeader providers), payload sizes per
 * consumer, strings, names, the sysctl, and registrations owned by the address space, not the
 * registering thread.
 */
#include <pthread.h>
#include <stddef.h>

#include "ue_util.h"
#include "../kselftest_harness.h"

#define MAX_PATH	"/proc/sys/kernel/user_events_max"

FIXTURE(di) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(di)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(di)
{
	UE_TEARDOWN();
}

/* Register @cmd at bit 0 of the page, deleted at the end: its write index */
static __u32 di_reg(struct __test_metadata *_metadata, struct _test_data_di *self, const char *cmd,
		    bool enable)
{
	char name[UE_NAME_MAX];
	__u32 idx;
	int ret;

	ue_cmd_name(name, sizeof(name), cmd);
	ue_track_del(&self->t, name);
	ret = enable ? ue_reg_enabled(&self->t, self->page, cmd, name, 0, &idx) :
		       ue_track_reg(&self->t, cmd, self->page, 4, 0, &idx);
	ASSERT_EQ(0, ret) TH_LOG("%s", cmd);
	return idx;
}

/* Open perf on @name and map its ring: the perf fd */
static int di_ring_open(struct __test_metadata *_metadata, struct ue_ring *r, const char *name)
{
	int fd = ue_perf_open(ue_event_id(UE_SYS, name), false);

	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ue_ring_map(r, fd));
	return fd;
}

/* Register @cmd, write @len bytes of @payload with ftrace on, find it. */
static void di_client(struct __test_metadata *_metadata, struct _test_data_di *self,
		      const char *cmd, const void *payload, size_t len)
{
	__u32 idx = di_reg(_metadata, self, cmd, true);
	char *text;

	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ((ssize_t)(len + 4), ue_emit(self->t.fd, idx, payload, len));
	text = ue_trace_read();
	ASSERT_TRUE(ue_nonnull(text));
	EXPECT_TRUE(ue_nonnull(strstr(text, strtok(strdupa(cmd), " ")))) TH_LOG("trace: %s", text);
	free(text);
}

/* OpenTelemetry's metrics exporter: binary protobuf in __rel_loc u8[] */
TEST_F(di, otlp_metrics)
{
	/* naturally aligned: 22 bytes, without the tail padding */
	struct {
		__u32 protocol;
		char version[8];
		__u32 buffer;
		__u8 bytes[6];
	} p = { 0, "v0.1.0", DYN_LOC(0, 6), { 0x0a, 0x00, 0xff, 0x12, 0, 7 } };

	di_client(_metadata, self, "uet_di_otlp u32 protocol;char[8] version;__rel_loc u8[] buffer",
		  &p, offsetof(typeof(p), bytes) + sizeof(p.bytes));
}

/* The .NET runtime: two binary __rel_loc u8[] blobs without NULs */
TEST_F(di, dotnet_runtime)
{
	__u32 ext_loc = DYN_LOC(4, 3), data_loc = DYN_LOC(3, 5);
	/* u8 1, u16 42, two locations, 3 + 5 bytes: unaligned, byte by byte */
	__u8 p[19] = { 1, [11] = 1, 2, 3, 0xde, 0xad, 0xbe, 0xef, 0x01 };
	__u16 event_id = 42;

	memcpy(p + 1, &event_id, 2);
	memcpy(p + 3, &ext_loc, 4);
	memcpy(p + 7, &data_loc, 4);
	di_client(_metadata, self, "uet_di_dotnet u8 version; u16 event_id; "
		  "__rel_loc u8[] extension; __rel_loc u8[] payload", p, sizeof(p));
}

/* EventHeader names reach 255 bytes: plain and multi-format */
TEST_F(di, eventheader_long_name)
{
	char name[256], cmd[300];
	__u32 idx, idx2;
	int n = snprintf(name, sizeof(name), "uet_di_LongProvider_L5K1Gg");

	memset(name + n, 'x', 255 - n);
	name[255] = '\0';
	snprintf(cmd, sizeof(cmd), "%s __rel_loc u8[] eventheader_fields", name);
	idx = di_reg(_metadata, self, cmd, false);
	EXPECT_TRUE(ue_event_exists(UE_SYS, name));
	ASSERT_EQ(0, ue_track_reg_fd(&self->t, self->t.fd, cmd, self->page + 4, 4, 0,
				     USER_EVENT_REG_MULTI_FORMAT, &idx2));
	EXPECT_NE(idx, idx2);
}

/* A payload of 5,000 bytes reaches a perf-only consumer (perf holds 8 KiB) */
TEST_F(di, perf_takes_large_payload)
{
	size_t len = 5000;
	char *p = malloc(len);
	__u32 idx = di_reg(_metadata, self, "uet_di_big __rel_loc u8[] blob", false);
	struct ue_ring r;

	ASSERT_TRUE(ue_nonnull(p));
	self->perf_fd = di_ring_open(_metadata, &r, "uet_di_big");
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
#define DI_SZ2_TRIGGER	"events/" UE_SYS "/uet_di_sz2/trigger"
#define DI_SOFT		"enable_event:" UE_SYS ":uet_di_sz"

TEST_F(di, sizes_per_consumer)
{
	size_t big = 2 * getpagesize(), mid = 8000;
	char path[PATH_MAX];
	char *p = calloc(1, big > mid ? big : mid);
	__u32 idx = di_reg(_metadata, self, "uet_di_sz __rel_loc u8[] blob", true);
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
	ASSERT_EQ(0, ue_write_str(ue_tpath(path, sizeof(path), DI_SZ2_TRIGGER), DI_SOFT, O_TRUNC));
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, p, 4));
	EXPECT_EQ(0, ue_write_str(path, "!" DI_SOFT, O_TRUNC));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_di_sz", true));
	/* ftrace and perf: perf holds 8 KiB, more than a 4 KiB page */
	self->perf_fd = di_ring_open(_metadata, &r, "uet_di_sz");
	EXPECT_EQ((ssize_t)mid + 4, ue_emit(self->t.fd, idx, p, mid));
	EXPECT_EQ(-E2BIG, ue_emit(self->t.fd, idx, p, big));
	ue_ring_unmap(&r);
	free(p);
}

/* "unsigned char" is a char type: its dynamic strings need their NUL */
TEST_F(di, unsigned_char_string_needs_nul)
{
	struct {
		__u32 loc;
		char s[4];
	} p = { DYN_LOC(0, 4), "abcd" };
	__u32 idx = di_reg(_metadata, self, "uet_di_uc __rel_loc unsigned char[] s", true);

	EXPECT_EQ(-EFAULT, ue_emit(self->t.fd, idx, &p, sizeof(p)));
	p.s[3] = '\0';
	EXPECT_EQ((ssize_t)sizeof(p) + 4, ue_emit(self->t.fd, idx, &p, sizeof(p)));
}

/* Names: upstream's rules, and the names tracefs could not show */
TEST_F(di, names)
{
	static const char * const ok[] = { "uet_di-dash.dot", "1uet_di_digit", "uet_di_%$*?" };
	static const char * const bad[] = { "uet_di:flag", "uet_di/slash", ".", "..", "" };
	__u32 idx;
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		EXPECT_EQ(0, ue_reg(self->t.fd, ok[i], self->page, 4, i, 0, &idx))
			TH_LOG("%s", ok[i]);
		EXPECT_EQ(0, ue_unreg(self->t.fd, self->page, i));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, bad[i], self->page, 4, 0, 0, &idx))
			TH_LOG("'%s'", bad[i]);
}

/* An address nothing can write is refused, and leaves no write index */
TEST_F(di, unwritable_enable_addr)
{
	void *ro = ue_map_page(PROT_READ);
	__u32 idx = 7;

	ASSERT_TRUE(ue_nonnull(ro));
	EXPECT_EQ(-EFAULT, ue_reg(self->t.fd, "uet_di_ro u32 a", ro, 4, 0, 0, &idx));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_di_rw u32 a", self->page, 4, 0, &idx));
	EXPECT_EQ(0, idx);
	munmap(ro, getpagesize());
}

/* kernel.user_events_max=0 freezes the creation of new events */
TEST_F(di, max_zero)
{
	char *old = ue_read_all(MAX_PATH);
	__u32 idx;

	ASSERT_TRUE(ue_nonnull(old));
	ASSERT_EQ(0, ue_write_str(MAX_PATH, "0", O_TRUNC));
	EXPECT_EQ(-EMFILE, ue_reg(self->t.fd, "uet_di_max u32 a", self->page, 4, 0, 0, &idx));
	EXPECT_EQ(-EINVAL, ue_write_str(MAX_PATH, "-1", O_TRUNC));
	EXPECT_EQ(0, ue_write_str(MAX_PATH, old, O_TRUNC));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_di_max u32 a", self->page, 4, 0, &idx));
	free(old);
}

/* A malformed command says what and where in error_log, through dynamic_events and ioctl */
TEST_F(di, error_log)
{
	static const struct {
		const char *cmd, *msg, *caret;
	} cases[] = {
		{ "uet_di_el u31 a", "Unknown field type", "u31 a" },
		{ "uet_di_el char[2000] a", "Array size", "char[2000] a" },
		{ "uet_di_el:x u32 a", "Text flags", ":x u32 a" },
		{ "uet_di/el u32 a", "Event name", "uet_di/el u32 a" },
		{ "uet_di_el u32 a; u32 a", "Duplicate field name", "a" },
	};
	const char *at, *cmd, *eol, *caret;
	char dyn[128], path[160], *log;
	__u32 idx;
	int i;

	ue_tpath(path, sizeof(path), "error_log");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, ue_write_str(path, "", O_TRUNC));
		snprintf(dyn, sizeof(dyn), "u:%s", cases[i].cmd);
		EXPECT_EQ(-EINVAL, ue_dyn_cmd(dyn));
		EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, cases[i].cmd, self->page, 4, 0, 0, &idx));
		log = ue_read_all(path);
		ASSERT_TRUE(ue_nonnull(log));
		/* two entries; in each, the caret sits under the bad text */
		at = strstr(log, cases[i].msg);
		EXPECT_TRUE(ue_nonnull(at)) TH_LOG("%s: %s", cases[i].cmd, log);
		at = at ? strstr(at, "Command: ") : NULL;
		if (at) {
			cmd = at + strlen("Command: ");
			eol = strchr(cmd, '\n');
			caret = eol ? strchr(eol, '^') : NULL;
			ASSERT_TRUE(ue_nonnull(caret));
			/* the caret line is indented like "  Command: " */
			EXPECT_EQ(0, strncmp(cmd + (caret - (eol + 1)) - strlen("  Command: "),
					     cases[i].caret, strlen(cases[i].caret)))
				TH_LOG("%s", log);
		}
		free(log);
	}
}

/*
 * Only a privileged caller's malformed registration goes to error_log, as upstream writes
 * none: an unprivileged one gets its errno alone, so it cannot push root's entries out.
 */
TEST_F(di, error_log_privileged_only)
{
	static const int caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };
	char path[160], *log;

	if (geteuid())
		SKIP(return, "needs root (error_log)");
	ue_tpath(path, sizeof(path), "error_log");
	ASSERT_EQ(0, ue_write_str(path, "", O_TRUNC));
	EXPECT_EQ(-EINVAL, ue_run_without_caps(caps, ARRAY_SIZE(caps), ue_cb_reg,
					       "uet_di_elu u31 a"));
	log = ue_read_all(path);
	ASSERT_TRUE(ue_nonnull(log));
	EXPECT_STREQ("", log) TH_LOG("without CAP_PERFMON and CAP_SYS_ADMIN");
	free(log);
	/* either capability is enough */
	EXPECT_EQ(-EINVAL, ue_run_without_caps(caps, 1, ue_cb_reg, "uet_di_elu u31 a"));
	EXPECT_EQ(1, ue_count_in(path, "Unknown field type"));
	EXPECT_EQ(-EINVAL, ue_run_without_caps(caps + 1, 1, ue_cb_reg, "uet_di_elu u31 a"));
	EXPECT_EQ(2, ue_count_in(path, "Unknown field type"));
}

/* A thread that registers @page, meets the main thread at @sync and stays until it meets again */
struct stay {
	int fd, ret;
	void *page;
	pthread_barrier_t sync;
};

static void *reg_and_stay(void *arg)
{
	struct stay *st = arg;

	st->ret = ue_reg(st->fd, "uet_di_mm u32 a", st->page, 4, 0, 0, NULL);
	pthread_barrier_wait(&st->sync);
	pthread_barrier_wait(&st->sync);
	return NULL;
}

/*
 * A thread registers and exits (@alive false) or stays: the process's bit follows, and the main
 * thread, which never registered, forks a child that has the registration.
 */
static void mm_owned_fork(struct __test_metadata *_metadata, struct ue_track *t, void *page,
			  bool alive)
{
	struct stay st = { .fd = t->fd, .page = page };
	int pipefd[2], status;
	pthread_t th;
	pid_t pid;
	char c;

	ue_track_del(t, "uet_di_mm");
	if (alive) {
		ASSERT_EQ(0, pthread_barrier_init(&st.sync, NULL, 2));
		ASSERT_EQ(0, pthread_create(&th, NULL, reg_and_stay, &st));
		pthread_barrier_wait(&st.sync);
		ASSERT_EQ(0, st.ret);
	} else {
		ASSERT_EQ(0, ue_reg_in_thread(t->fd, "uet_di_mm u32 a", page, 0));
	}
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		/* wait for the parent's enable, then for the bit */
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(2);
		_exit(ue_wait_bit(page, 4, 0, true) ? 0 : 1);
	}
	close(pipefd[0]);
	ASSERT_EQ(0, ue_track_enable(t, UE_SYS, "uet_di_mm"));
	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	close(pipefd[1]);
	EXPECT_TRUE(ue_wait_bit(page, 4, 0, true));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_di_mm", false));
	EXPECT_TRUE(ue_wait_bit(page, 4, 0, false));
	EXPECT_EQ(0, ue_unreg(t->fd, page, 0));
	if (alive) {
		pthread_barrier_wait(&st.sync);
		ASSERT_EQ(0, pthread_join(th, NULL));
		pthread_barrier_destroy(&st.sync);
	}
}

TEST_F(di, mm_owned_thread_exit)
{
	mm_owned_fork(_metadata, &self->t, self->page, false);
}

/* The same with the registering thread still running (uebench's row 9 relies on it) */
TEST_F(di, mm_owned_thread_alive)
{
	mm_owned_fork(_metadata, &self->t, self->page, true);
}

/* After the last thread exits, its unused event is gone at once, not later */
TEST_F(di, mm_owned_gone_with_process)
{
	int status;
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(ue_reg_in_thread(ue_open_data(), "uet_di_mm u32 a", self->page, 0) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_di_mm"));
}

TEST_HARNESS_MAIN
