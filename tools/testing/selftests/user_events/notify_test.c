// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: wake-up on attach (Documentation/trace/user_events.rst, "Wake-up on attach").
 * USER_EVENT_REG_NOTIFY registrations make their user_events_data file count the enable
 * changes of their events (a first tracer attaches, the last one leaves): poll() reports the
 * file readable while the count is not 0, read() of 8 bytes returns it and resets it.
 * Kernels without the flag refuse it with EINVAL: every test skips there.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>

#include "ue_util.h"
#include "../kselftest_harness.h"

#define NT_POLL_ALL	(POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)
#define NT_POLL_IDLE	(POLLOUT | POLLWRNORM)
/* Extra data files of a test: the scale test's and a few */
#define NT_FDS_MAX	128
/* Time a waiter thread gets to block before the test acts */
#define NT_SETTLE_US	20000
/* The loose bound of a wake-up's delay (the goal is < 1 ms of guest time) */
#define NT_DELAY_MAX_US	1000000.0
#define NT_SCALE_REGS	1000
#define NT_SCALE_FILES	100

/* A thread blocked in poll() (POLLIN) or read() of a data file */
struct nt_waiter {
	pthread_t th;
	int fd;
	bool use_read;
	int timeout_ms;		/* of poll() */
	int started, done;	/* set by the thread (atomics) */
	ssize_t ret;
	int err;
	short revents;
	__u64 count;
	struct timespec woke;
};

/* A thread waiting in epoll_wait() until each of @nfds files was reported (EPOLLONESHOT) */
struct nt_epoller {
	pthread_t th;
	int epfd, nfds;
	int started, done;
	int seen;
	bool hit[NT_FDS_MAX];
	struct timespec woke;	/* when the last one was reported */
};

/*
 * The usual fixture; the extra data files (closed at teardown, after their registrations),
 * registrations at consecutive bits of the page (unregistered at teardown), the waiters
 * (here, not on a test's stack, as they may outlive a failed test until its process exits).
 */
FIXTURE(notify) {
	UE_FIXTURE_MEMBERS;
	int fds[NT_FDS_MAX];
	int nfds;
	int nbits;
	struct nt_waiter w;
	struct nt_epoller ep;
	bool notify;	/* the kernel has USER_EVENT_REG_NOTIFY: else only upstream's answers */
};

static void nt_on_signal(int sig)
{
}

/* A data file opened with @oflags, closed at teardown: its fd or -errno */
static int nt_open(struct _test_data_notify *self, int oflags)
{
	char path[PATH_MAX];
	int fd;

	if (self->nfds == NT_FDS_MAX)
		return -EMFILE;
	fd = open(ue_tpath(path, sizeof(path), "user_events_data"), oflags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	self->fds[self->nfds++] = fd;
	return fd;
}

/* The enable word of registration bit @bit of the page */
static __u32 *nt_word(struct _test_data_notify *self, int bit)
{
	return (__u32 *)self->page + bit / 32;
}

/* Register @cmd on @fd at the next free bit of the page (to *@bit if not NULL): 0 or -errno */
static int nt_reg(struct _test_data_notify *self, int fd, const char *cmd, __u16 flags, int *bit)
{
	int b = self->nbits++;

	if (bit)
		*bit = b;
	return ue_reg(fd, cmd, nt_word(self, b), 4, b % 32, flags, NULL);
}

/* The events poll() reports at once of NT_POLL_ALL, or -errno */
static int nt_revents(int fd)
{
	struct pollfd p = { .fd = fd, .events = NT_POLL_ALL };
	int ret = poll(&p, 1, 0);

	return ret < 0 ? -errno : p.revents;
}

/* read() of the count: the count, 0 for EAGAIN, -ENODATA for a count of 0, or -errno */
static long long nt_read(int fd)
{
	__u64 val = 0;
	ssize_t n = read(fd, &val, sizeof(val));

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n != sizeof(val))
		return -EMSGSIZE;
	return val ? (long long)val : -ENODATA;
}

/* The count, once @fd is readable (0 if it does not become so within @ms milliseconds) */
static long long nt_count_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return 0;
	return nt_read(fd);
}

static long long nt_count(int fd)
{
	return nt_count_in(fd, UE_WAIT_SECS * 1000);
}

/*
 * The sum of the counts read until it reaches @want (each read once @fd is readable), then
 * of any that follow at once: where the kernel counts after the trigger returned, the count
 * may come in parts.
 */
static long long nt_drain(int fd, long long want)
{
	long long sum = 0, n;

	while (sum < want && (n = nt_count(fd)) > 0)
		sum += n;
	while ((n = nt_count_in(fd, 0)) > 0)
		sum += n;
	return n < 0 ? n : sum;
}

static double nt_us(const struct timespec *from, const struct timespec *to)
{
	return (to->tv_sec - from->tv_sec) * 1e6 + (to->tv_nsec - from->tv_nsec) / 1e3;
}

static void *nt_waiter_fn(void *arg)
{
	struct nt_waiter *w = arg;
	struct pollfd p = { .fd = w->fd, .events = POLLIN };

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	if (w->use_read) {
		w->ret = read(w->fd, &w->count, sizeof(w->count));
	} else {
		w->ret = poll(&p, 1, w->timeout_ms);
		w->revents = p.revents;
	}
	w->err = errno;
	clock_gettime(CLOCK_MONOTONIC, &w->woke);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start a waiter on @fd and let it block: 0, -errno, or -EALREADY if it returned at once */
static int nt_waiter_start(struct nt_waiter *w, int fd, bool use_read, int timeout_ms)
{
	int ret;

	*w = (struct nt_waiter){ .fd = fd, .use_read = use_read, .timeout_ms = timeout_ms };
	ret = pthread_create(&w->th, NULL, nt_waiter_fn, w);
	if (ret)
		return -ret;
	while (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(NT_SETTLE_US);
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE) ? -EALREADY : 0;
}

/*
 * Join thread @th once it sets *@done, within @ms milliseconds; from @kick_ms on, SIGUSR1 it
 * every 10 ms (-1: never).  False if it did not return: it is left to the end of the process.
 */
static bool nt_join(pthread_t th, int *done, int ms, int kick_ms)
{
	int waited;

	for (waited = 0; !__atomic_load_n(done, __ATOMIC_ACQUIRE); waited++) {
		if (waited >= ms)
			return false;
		if (kick_ms >= 0 && waited >= kick_ms && waited % 10 == 0)
			pthread_kill(th, SIGUSR1);
		usleep(1000);
	}
	return !pthread_join(th, NULL);
}

static bool nt_waiter_join(struct nt_waiter *w, int ms, int kick_ms)
{
	return nt_join(w->th, &w->done, ms, kick_ms);
}

static void *nt_epoller_fn(void *arg)
{
	struct nt_epoller *ep = arg;
	struct epoll_event ev[NT_FDS_MAX];
	struct timespec end, now;
	int n, i, left_ms;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += UE_WAIT_SECS;
	__atomic_store_n(&ep->started, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&ep->seen, __ATOMIC_ACQUIRE) < ep->nfds) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left_ms = nt_us(&now, &end) / 1000;
		if (left_ms <= 0)
			break;
		n = epoll_wait(ep->epfd, ev, NT_FDS_MAX, left_ms);
		for (i = 0; i < n; i++) {
			if (ev[i].data.u64 >= NT_FDS_MAX || ep->hit[ev[i].data.u64])
				continue;
			ep->hit[ev[i].data.u64] = true;
			__atomic_add_fetch(&ep->seen, 1, __ATOMIC_RELEASE);
		}
		if (n > 0)
			clock_gettime(CLOCK_MONOTONIC, &ep->woke);
	}
	__atomic_store_n(&ep->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

FIXTURE_SETUP(notify)
{
	int fd, ret;

	UE_SETUP(UE_ROOT);
	if (ue_skip_reason(self->flags))
		return;
	/* the fds and bits are the teardown's from here on */
	self->nfds = 0;
	self->nbits = 0;
	fd = nt_open(self, O_RDWR);
	ASSERT_LE(0, fd);
	ret = nt_reg(self, fd, "uet_nt_probe u32 a", USER_EVENT_REG_NOTIFY, NULL);
	if (ret != -EINVAL)
		ASSERT_EQ(0, ret);
	self->notify = !ret;	/* without it, upstream's answers only */
	ue_track_del(&self->t, "uet_nt_probe");
}

/* Unregister before the close: the registrations belong to the address space, not the file */
FIXTURE_TEARDOWN(notify)
{
	int i;

	for (i = 0; i < self->nbits; i++)
		ue_unreg(self->t.fd, nt_word(self, i), i % 32);
	for (i = 0; i < self->nfds; i++)
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	UE_TEARDOWN();
}

/* Register @cmd with NOTIFY on a new file (O_RDWR | @oflags), event deleted at the end */
static int nt_file_with(struct __test_metadata *_metadata, struct _test_data_notify *self,
			const char *cmd, int oflags)
{
	char name[UE_NAME_MAX];
	int fd = nt_open(self, O_RDWR | oflags);

	ASSERT_LE(0, fd);
	ue_track_del(&self->t, ue_cmd_name(name, sizeof(name), cmd));
	ASSERT_EQ(0, nt_reg(self, fd, cmd, USER_EVENT_REG_NOTIFY, NULL)) TH_LOG("%s", cmd);
	return fd;
}

/* Wait until the enable bit of the last registration is @on */
static bool nt_wait_last_bit(struct _test_data_notify *self, bool on)
{
	int bit = self->nbits - 1;

	return ue_wait_bit(nt_word(self, bit), 4, bit % 32, on);
}

/* perf_event_open() of @name: its fd, or skips the test without perf tracepoints */
static int nt_perf(struct __test_metadata *_metadata, const char *name)
{
	int fd = ue_perf_open(ue_event_id(UE_SYS, name), false);

	if (fd < 0 && (errno == ENOENT || access("/proc/sys/kernel/perf_event_paranoid", F_OK)))
		SKIP(return -1, "perf tracepoint events not available");
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	return fd;
}

/* Files without NOTIFY registrations answer as upstream's: always ready, read() EINVAL */
TEST_F(notify, without_notify_upstream_answers)
{
	int fd = nt_open(self, O_RDWR | O_NONBLOCK), bit;

	ASSERT_LE(0, fd);
	EXPECT_EQ(NT_POLL_ALL, nt_revents(self->t.fd));
	EXPECT_EQ(-EINVAL, nt_read(self->t.fd));
	ASSERT_EQ(0, nt_reg(self, fd, "uet_nt_plain u32 a", 0, &bit));
	ue_track_del(&self->t, "uet_nt_plain");
	EXPECT_EQ(NT_POLL_ALL, nt_revents(fd));
	EXPECT_EQ(-EINVAL, nt_read(fd));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_plain"));
	ASSERT_TRUE(ue_wait_bit(nt_word(self, bit), 4, bit % 32, true));
	EXPECT_EQ(NT_POLL_ALL, nt_revents(fd));
	EXPECT_EQ(-EINVAL, nt_read(fd));
}

/*
 * The count: registering is no change; each enable and disable is one; read() returns the
 * changes since the last read() and resets them; poll() says readable while there are some;
 * O_NONBLOCK: EAGAIN at 0; a buffer under 8 bytes: EINVAL, the count stays; an unwritable
 * one: EFAULT.  The file stays one with NOTIFY registrations when they are unregistered.
 */
TEST_F(notify, count_poll_read)
{
	char small[7], *ro;
	int fd, i, bit;
	__u64 val;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	fd = nt_file_with(_metadata, self, "uet_nt_count u32 a", O_NONBLOCK);
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	EXPECT_EQ(0, nt_read(fd));
	EXPECT_EQ(-1, read(fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_count"));
	EXPECT_EQ(1, nt_count(fd));
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	EXPECT_EQ(0, nt_read(fd));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_count", false));
	ASSERT_EQ(1, poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, UE_WAIT_SECS * 1000));
	EXPECT_EQ(NT_POLL_ALL, nt_revents(fd));
	/* a short buffer consumes nothing */
	EXPECT_EQ(-1, read(fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NT_POLL_ALL, nt_revents(fd));
	EXPECT_EQ((ssize_t)sizeof(val), read(fd, &val, sizeof(val)));
	EXPECT_EQ(1, val);
	/* five changes add up; an enable while enabled (and the same for disable) is none */
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_count", !(i & 1)));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_count", !(i & 1)));
		ASSERT_TRUE(nt_wait_last_bit(self, !(i & 1)));
	}
	EXPECT_EQ(5, nt_drain(fd, 5));
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	/* a buffer that cannot be written: EFAULT */
	ro = ue_map_page(PROT_READ);
	ASSERT_TRUE(ue_nonnull(ro));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_count", false));
	ASSERT_EQ(1, poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, UE_WAIT_SECS * 1000));
	EXPECT_EQ(-1, read(fd, ro, sizeof(val)));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, getpagesize());
	nt_drain(fd, 0);	/* whether the failed read() reset the count is not said */
	/* unregistered, it stays a file with NOTIFY registrations */
	bit = self->nbits - 1;
	ASSERT_EQ(0, ue_unreg(fd, nt_word(self, bit), bit % 32));
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	EXPECT_EQ(0, nt_read(fd));
}

/*
 * Only NOTIFY registrations count, on their own file: a plain registration of another event
 * on the same file, or of the same event on another file, is not told; every file that
 * registered the event with the flag is, once per change however often it registered it.
 * A registration while the event is enabled is no change.
 */
TEST_F(notify, who_is_told)
{
	int fd, fd2, plain, bit;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	fd = nt_file_with(_metadata, self, "uet_nt_who u32 a", O_NONBLOCK);
	fd2 = nt_file_with(_metadata, self, "uet_nt_who u32 a", O_NONBLOCK);
	plain = nt_open(self, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, plain);
	ASSERT_EQ(0, nt_reg(self, fd, "uet_nt_who2 u32 a", 0, &bit));
	ue_track_del(&self->t, "uet_nt_who2");
	ASSERT_EQ(0, nt_reg(self, fd2, "uet_nt_who u32 a", USER_EVENT_REG_NOTIFY, NULL));
	ASSERT_EQ(0, nt_reg(self, plain, "uet_nt_who u32 a", 0, NULL));
	/* the plain event: nothing, also at the next change of the other */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_who2"));
	ASSERT_TRUE(ue_wait_bit(nt_word(self, bit), 4, bit % 32, true));
	EXPECT_EQ(0, nt_read(fd));
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_who"));
	EXPECT_EQ(1, nt_drain(fd, 1));
	EXPECT_EQ(1, nt_drain(fd2, 1));
	EXPECT_EQ(NT_POLL_ALL, nt_revents(plain));
	EXPECT_EQ(-EINVAL, nt_read(plain));
	/* registered while enabled: no change, until the next one */
	fd = nt_file_with(_metadata, self, "uet_nt_who u32 a", O_NONBLOCK);
	EXPECT_EQ(0, nt_read(fd));
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	ASSERT_EQ(0, nt_reg(self, fd, "uet_nt_who2 u32 a", USER_EVENT_REG_NOTIFY, NULL));
	EXPECT_EQ(0, nt_read(fd));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_who", false));
	EXPECT_EQ(1, nt_drain(fd, 1));
	EXPECT_EQ(1, nt_drain(fd2, 1));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_who2", false));
	EXPECT_EQ(1, nt_drain(fd, 1));
	EXPECT_EQ(0, nt_read(fd2));
}

/*
 * A file in an epoll set before its first registration with the flag is told of the changes
 * from then on; a registration with the flag that fails leaves the file as one without.
 */
TEST_F(notify, epoll_before_registration)
{
	struct epoll_event ev = { .events = EPOLLIN }, got;
	int fd = nt_open(self, O_RDWR | O_NONBLOCK), epfd = epoll_create1(EPOLL_CLOEXEC);

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	ASSERT_LE(0, fd);
	ASSERT_LE(0, epfd);
	ASSERT_EQ(0, epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev));
	EXPECT_EQ(-EINVAL, nt_reg(self, fd, "uet_nt_ep u31 a", USER_EVENT_REG_NOTIFY, NULL));
	EXPECT_EQ(NT_POLL_ALL, nt_revents(fd));
	EXPECT_EQ(-EINVAL, nt_read(fd));
	ue_track_del(&self->t, "uet_nt_ep");
	ASSERT_EQ(0, nt_reg(self, fd, "uet_nt_ep u32 a", USER_EVENT_REG_NOTIFY, NULL));
	EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	while (epoll_wait(epfd, &got, 1, 0) == 1)	/* what the set saw before */
		;
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_ep"));
	EXPECT_EQ(1, epoll_wait(epfd, &got, 1, UE_WAIT_SECS * 1000));
	EXPECT_EQ(1, nt_read(fd));
	close(epfd);
}

/*
 * perf_event_open() and close() are changes as ftrace's enable is; a tracer that comes while
 * another is attached, or leaves while another stays, is none.
 */
TEST_F(notify, tracers_come_and_go)
{
	int fd, p1, p2;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	fd = nt_file_with(_metadata, self, "uet_nt_tr u32 a", O_NONBLOCK);
	p1 = nt_perf(_metadata, "uet_nt_tr");
	if (p1 < 0)
		return;
	self->perf_fd = p1;
	EXPECT_EQ(1, nt_drain(fd, 1));
	p2 = nt_perf(_metadata, "uet_nt_tr");
	ASSERT_LE(0, p2);
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_tr"));
	EXPECT_EQ(0, nt_read(fd));
	EXPECT_EQ(0, close(p2));
	EXPECT_EQ(0, close(p1));
	self->perf_fd = -1;
	EXPECT_EQ(0, nt_read(fd));
	EXPECT_TRUE(nt_wait_last_bit(self, true));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_tr", false));
	EXPECT_EQ(1, nt_drain(fd, 1));
	/* ftrace first, then perf: still one change each way */
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_tr", true));
	self->perf_fd = nt_perf(_metadata, "uet_nt_tr");
	ASSERT_LE(0, self->perf_fd);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_tr", false));
	EXPECT_EQ(1, nt_drain(fd, 1));
	close(self->perf_fd);
	self->perf_fd = -1;
	EXPECT_EQ(1, nt_drain(fd, 1));
	ASSERT_TRUE(nt_wait_last_bit(self, false));
}

/* read() needs a readable file: EBADF on O_WRONLY, NOTIFY or not */
TEST_F(notify, write_only_file)
{
	int fd, wo;
	__u64 val;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	fd = nt_file_with(_metadata, self, "uet_nt_wo u32 a", 0);
	wo = nt_open(self, O_WRONLY);
	ASSERT_LE(0, wo);
	ASSERT_EQ(0, nt_reg(self, wo, "uet_nt_wo u32 a", USER_EVENT_REG_NOTIFY, NULL));
	EXPECT_EQ(-1, read(wo, &val, sizeof(val)));
	EXPECT_EQ(EBADF, errno);
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_wo"));
	EXPECT_EQ(1, nt_drain(fd, 1));
	EXPECT_EQ(-1, read(wo, &val, sizeof(val)));
	EXPECT_EQ(EBADF, errno);
}

/* A blocking read() sleeps while the count is 0, returns the change, is interrupted by signals */
TEST_F(notify, blocking_read)
{
	struct sigaction sa = { .sa_handler = nt_on_signal };	/* no SA_RESTART */
	int fd;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	fd = nt_file_with(_metadata, self, "uet_nt_block u32 a", 0);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, nt_waiter_start(&self->w, fd, true, 0));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_block"));
	ASSERT_TRUE(nt_waiter_join(&self->w, UE_WAIT_SECS * 1000, -1));
	EXPECT_EQ((ssize_t)sizeof(__u64), self->w.ret) TH_LOG("read: %s", strerror(self->w.err));
	EXPECT_EQ(1, self->w.count);
	/* nothing more: it sleeps until a signal */
	ASSERT_EQ(0, nt_waiter_start(&self->w, fd, true, 0));
	ASSERT_TRUE(nt_waiter_join(&self->w, UE_WAIT_SECS * 1000, 0));
	EXPECT_EQ(-1, self->w.ret);
	EXPECT_EQ(EINTR, self->w.err);
	/* and still gets the next change */
	ASSERT_EQ(0, nt_waiter_start(&self->w, fd, true, 0));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_block", false));
	ASSERT_TRUE(nt_waiter_join(&self->w, UE_WAIT_SECS * 1000, -1));
	EXPECT_EQ((ssize_t)sizeof(__u64), self->w.ret) TH_LOG("read: %s", strerror(self->w.err));
	EXPECT_EQ(1, self->w.count);
}

/* One round of wake_latency: the delay from just before @trigger to the wake-up, in us */
static double nt_wake_delay(struct __test_metadata *_metadata, struct _test_data_notify *self,
			    int fd, bool use_read, int (*trigger)(struct _test_data_notify *))
{
	struct timespec t0;

	ASSERT_EQ(0, nt_waiter_start(&self->w, fd, use_read, UE_WAIT_SECS * 1000));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, trigger(self));
	ASSERT_TRUE(nt_waiter_join(&self->w, UE_WAIT_SECS * 1000, -1));
	if (use_read) {
		EXPECT_EQ((ssize_t)sizeof(__u64), self->w.ret);
		EXPECT_EQ(1, self->w.count);
	} else {
		EXPECT_EQ(1, self->w.ret);
		EXPECT_EQ(POLLIN, self->w.revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL));
		EXPECT_EQ(1, nt_read(fd));
	}
	return nt_us(&t0, &self->w.woke);
}

static int nt_trig_on(struct _test_data_notify *self)
{
	return ue_set_enable(UE_SYS, "uet_nt_lat", true);
}

static int nt_trig_off(struct _test_data_notify *self)
{
	return ue_set_enable(UE_SYS, "uet_nt_lat", false);
}

static int nt_trig_perf_open(struct _test_data_notify *self)
{
	self->perf_fd = ue_perf_open(ue_event_id(UE_SYS, "uet_nt_lat"), false);
	return self->perf_fd < 0 ? -errno : 0;
}

static int nt_trig_perf_close(struct _test_data_notify *self)
{
	int ret = close(self->perf_fd);

	self->perf_fd = -1;
	return ret;
}

/*
 * The delay from just before the trigger (ftrace's enable write, perf_event_open() or close())
 * to the wake-up of a thread in poll() or read().  The goal is < 1 ms of guest time; wall time
 * under emulation is slower, so only a loose bound is asserted and the figures are printed.
 */
#define NT_LAT_ROUNDS	5

TEST_F(notify, wake_latency)
{
	static const struct {
		const char *what;
		int (*trigger)(struct _test_data_notify *self);
		bool use_read;
	} steps[] = {
		{ "enable write, poll()", nt_trig_on, false },
		{ "disable write, poll()", nt_trig_off, false },
		{ "perf_event_open(), poll()", nt_trig_perf_open, false },
		{ "perf close(), read()", nt_trig_perf_close, true },
	};
	double d, min[ARRAY_SIZE(steps)], max[ARRAY_SIZE(steps)];
	int fd, i, r, bfd;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	fd = nt_file_with(_metadata, self, "uet_nt_lat u32 a", O_NONBLOCK);
	bfd = nt_open(self, O_RDWR);
	ASSERT_LE(0, bfd);
	ASSERT_EQ(0, nt_reg(self, bfd, "uet_nt_lat u32 a", USER_EVENT_REG_NOTIFY, NULL));
	self->perf_fd = nt_perf(_metadata, "uet_nt_lat");
	if (self->perf_fd < 0)
		return;
	ASSERT_EQ(0, nt_trig_perf_close(self));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_lat"));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_lat", false));
	EXPECT_EQ(4, nt_drain(fd, 4));
	EXPECT_EQ(4, nt_drain(bfd, 4));
	for (r = 0; r < NT_LAT_ROUNDS; r++) {
		for (i = 0; i < ARRAY_SIZE(steps); i++) {
			d = nt_wake_delay(_metadata, self, steps[i].use_read ? bfd : fd,
					  steps[i].use_read, steps[i].trigger);
			EXPECT_GT(NT_DELAY_MAX_US, d) TH_LOG("%s: %.0f us", steps[i].what, d);
			min[i] = r && min[i] < d ? min[i] : d;
			max[i] = r && max[i] > d ? max[i] : d;
			/* the other file saw the same change */
			EXPECT_EQ(1, nt_drain(steps[i].use_read ? fd : bfd, 1));
		}
	}
	for (i = 0; i < ARRAY_SIZE(steps); i++)
		TH_LOG("wake-up after %s: %.0f-%.0f us (%d rounds)", steps[i].what, min[i], max[i],
		       NT_LAT_ROUNDS);
}

/*
 * A file closed by one thread while another waits on it in poll() or read(): the waiter
 * returns (poll() at the latest at its timeout; a read() at the latest when signalled), the
 * file goes with it, and the event's later changes still reach its other files.
 */
static void nt_close_blocked(struct __test_metadata *_metadata, struct _test_data_notify *self,
			     bool use_read)
{
	struct sigaction sa = { .sa_handler = nt_on_signal };	/* no SA_RESTART */
	int other = nt_file_with(_metadata, self, "uet_nt_close u32 a", O_NONBLOCK);
	int fd = nt_file_with(_metadata, self, "uet_nt_close u32 a", 0);
	struct timespec t0;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, nt_waiter_start(&self->w, fd, use_read, 1000));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	self->fds[self->nfds - 1] = -1;
	ASSERT_EQ(0, close(fd));
	ASSERT_TRUE(nt_waiter_join(&self->w, UE_WAIT_SECS * 1000, use_read ? 500 : -1));
	TH_LOG("%s returned %zd (%s, revents %#x) %.0f us after the close",
	       use_read ? "read()" : "poll()", self->w.ret,
	       self->w.ret < 0 ? strerror(self->w.err) : "-", self->w.revents,
	       nt_us(&t0, &self->w.woke));
	if (!use_read)
		EXPECT_LE(0, self->w.ret);
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_nt_close"));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_nt_close", false));
	EXPECT_EQ(2, nt_drain(other, 2));
}

TEST_F(notify, close_while_in_poll)
{
	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	nt_close_blocked(_metadata, self, false);
}

TEST_F(notify, close_while_in_read)
{
	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	nt_close_blocked(_metadata, self, true);
}

/* Distinct events of one file: each change of each counts */
#define NT_EVENTS	100

TEST_F(notify, many_events)
{
	int fd = nt_open(self, O_RDWR | O_NONBLOCK), i, on;
	char name[64], cmd[96];

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	ASSERT_LE(0, fd);
	for (i = 0; i < NT_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "uet_nt_ev%d u32 a", i);
		ue_track_del(&self->t, ue_cmd_name(name, sizeof(name), cmd));
		ASSERT_EQ(0, nt_reg(self, fd, cmd, USER_EVENT_REG_NOTIFY, NULL));
	}
	for (on = 1; on >= 0; on--) {
		for (i = 0; i < NT_EVENTS; i++) {
			snprintf(name, sizeof(name), "uet_nt_ev%d", i);
			ASSERT_EQ(0, on ? ue_track_enable(&self->t, UE_SYS, name) :
					  ue_set_enable(UE_SYS, name, false));
		}
		EXPECT_EQ(NT_EVENTS, nt_drain(fd, NT_EVENTS));
		EXPECT_EQ(NT_POLL_IDLE, nt_revents(fd));
	}
}

/*
 * Scale: one file with NT_SCALE_REGS registrations of an event, NT_SCALE_FILES files with one
 * each, all in one epoll set, a thread waiting: each change of the event wakes every file and
 * counts one on each (one change of the event, however many registrations of the file).
 */
TEST_F_TIMEOUT(notify, scale, 120)
{
	const char *cmd = "uet_nt_scale u32 a";
	int files[NT_SCALE_FILES + 1], epfd, i, on, bit0;
	struct epoll_event ev;
	struct timespec t0;
	double d;

	if (!self->notify)
		SKIP(return, "USER_EVENT_REG_NOTIFY not supported (EINVAL)");
	ASSERT_LT(NT_SCALE_FILES + 2, NT_FDS_MAX);
	ASSERT_GE(getpagesize() * 8, NT_SCALE_REGS + NT_SCALE_FILES + 32);
	files[0] = nt_file_with(_metadata, self, cmd, O_NONBLOCK);
	bit0 = self->nbits - 1;
	for (i = 1; i < NT_SCALE_REGS; i++)
		ASSERT_EQ(0, nt_reg(self, files[0], cmd, USER_EVENT_REG_NOTIFY, NULL));
	for (i = 1; i <= NT_SCALE_FILES; i++)
		files[i] = nt_file_with(_metadata, self, cmd, O_NONBLOCK);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, epfd);
	self->fds[self->nfds++] = epfd;
	for (on = 1; on >= 0; on--) {
		memset(&self->ep, 0, sizeof(self->ep));
		self->ep.epfd = epfd;
		self->ep.nfds = NT_SCALE_FILES + 1;
		for (i = 0; i <= NT_SCALE_FILES; i++) {
			ev.events = EPOLLIN | EPOLLONESHOT;
			ev.data.u64 = i;
			ASSERT_EQ(0, epoll_ctl(epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, files[i],
					       &ev));
		}
		ASSERT_EQ(0, pthread_create(&self->ep.th, NULL, nt_epoller_fn, &self->ep));
		while (!__atomic_load_n(&self->ep.started, __ATOMIC_ACQUIRE))
			sched_yield();
		usleep(NT_SETTLE_US);
		EXPECT_EQ(0, __atomic_load_n(&self->ep.seen, __ATOMIC_ACQUIRE));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(0, on ? ue_track_enable(&self->t, UE_SYS, "uet_nt_scale") :
				  ue_set_enable(UE_SYS, "uet_nt_scale", false));
		ASSERT_TRUE(nt_join(self->ep.th, &self->ep.done, (UE_WAIT_SECS + 5) * 1000, -1));
		EXPECT_EQ(NT_SCALE_FILES + 1, self->ep.seen);
		d = nt_us(&t0, &self->ep.woke);
		EXPECT_GT(NT_DELAY_MAX_US, d);
		TH_LOG("%s: %d of %d files woken, the last %.0f us after the write",
		       on ? "enable" : "disable", self->ep.seen, NT_SCALE_FILES + 1, d);
		for (i = 0; i <= NT_SCALE_FILES; i++)
			EXPECT_EQ(1, nt_drain(files[i], 1)) TH_LOG("file %d", i);
		for (i = 0; i < NT_SCALE_REGS; i++)
			ASSERT_TRUE(ue_wait_bit(nt_word(self, bit0 + i), 4, (bit0 + i) % 32, on));
	}
}

TEST_HARNESS_MAIN
