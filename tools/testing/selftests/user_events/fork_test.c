// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI: enable registrations across fork(), exec(), threads, CLONE_VM children and
 * a user_events_data fd passed to another process.  Processes synchronise through a
 * socketpair; enable bits the kernel may update asynchronously are polled, bounded.
 */
#include "../kselftest_harness.h"
#include "ue_util.h"
#include <pthread.h>
#include <sys/socket.h>

#define EXEC_CHILD_ARG	"--ue-exec-child"
#define EXEC_CMD	"uet_fk_exec u32 a"
#define EXEC_BIT	3
#define MSG_GO		'g'
#define MSG_OK		'y'
#define MSG_SKIP	's'

static void send_msg(int fd, char msg)
{
	if (write(fd, &msg, 1) != 1)
		_exit(100);
}

/* Blocking read of one message; 0 when the peer went away */
static char recv_msg(int fd)
{
	char msg;

	return read(fd, &msg, 1) == 1 ? msg : 0;
}

static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Enable (tracked) or disable @name and wait until bit @bit of @w follows */
static bool toggle(struct ue_track *t, const char *name, bool on, void *w, int size, int bit)
{
	if (on ? ue_track_enable(t, UE_SYS, name) : ue_set_enable(UE_SYS, name, false))
		return false;
	return ue_wait_bit(w, size, bit, on);
}

FIXTURE(fork) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(fork)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(fork)
{
	UE_TEARDOWN();
}

static bool word_is(const void *w, int size, __u64 val)
{
	return size == 8 ? *(const __u64 *)w == val : *(const __u32 *)w == val;
}

/*
 * The child's copy of the enable word @w this process registered for @name follows the event
 * like the parent's, other bits (@other) kept.  With @at_once (a present page, write-protected
 * by fork() for copy-on-write) the parent's bit follows before the enable write returns.
 */
static void inherit(struct __test_metadata *_metadata, struct ue_track *t, const char *name,
		    void *w, int size, int bit, __u64 other, bool at_once)
{
	int fd, on;
	pid_t pid = ue_sock_fork(&fd);

	ASSERT_LE(0, pid);
	if (pid == 0) {
		for (on = 1; on >= 0; on--) {
			if (recv_msg(fd) != MSG_GO || !ue_wait_bit(w, size, bit, on) ||
			    !word_is(w, size, other | (__u64)on << bit))
				_exit(1 + on);
			send_msg(fd, MSG_OK);
		}
		_exit(0);
	}
	for (on = 1; on >= 0; on--) {
		ASSERT_EQ(0, on ? ue_track_enable(t, UE_SYS, name) :
			  ue_set_enable(UE_SYS, name, false));
		if (at_once)
			EXPECT_TRUE(word_is(w, size, other | (__u64)on << bit));
		ASSERT_TRUE(ue_wait_bit(w, size, bit, on));
		send_msg(fd, MSG_GO);
		EXPECT_EQ(MSG_OK, recv_msg(fd));
	}
	EXPECT_EQ(0, child_status(pid));
	EXPECT_TRUE(word_is(w, size, other));
	/* the child's exit did not take the parent's registration along */
	ASSERT_TRUE(toggle(t, name, true, w, size, bit));
	ASSERT_TRUE(toggle(t, name, false, w, size, bit));
}

/* A copy-on-write page after fork, and a page not even present in the child (never written) */
TEST_F(fork, child_inherits)
{
	char *fresh = ue_map_page(PROT_READ | PROT_WRITE);
	__u32 *w = (__u32 *)self->page;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_inherit u32 a", w, 4, 4, NULL));
	*w = 0x10001;	/* other bits that must survive */
	inherit(_metadata, &self->t, "uet_fk_inherit", w, 4, 4, 0x10001, true);
	ASSERT_TRUE(ue_nonnull(fresh));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_fresh u32 a", fresh + 64, 8, 63, NULL));
	ASSERT_EQ(0, madvise(fresh, getpagesize(), MADV_DONTNEED));
	inherit(_metadata, &self->t, "uet_fk_fresh", fresh + 64, 8, 63, 0, false);
}

TEST_F(fork, parent_unreg_child_keeps)
{
	__u32 *w = (__u32 *)self->page;
	int fd;
	pid_t pid;

	ASSERT_EQ(0, ue_reg(self->t.fd, "uet_fk_punreg u32 a", w, 4, 0, 0, NULL));
	pid = ue_sock_fork(&fd);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* the child's registration is its own to remove */
		if (recv_msg(fd) != MSG_GO || !ue_wait_bit(w, 4, 0, true) ||
		    ue_unreg(self->t.fd, w, 0))
			_exit(1);
		_exit(*w == 0 ? 0 : 2);
	}
	ASSERT_EQ(0, ue_unreg(self->t.fd, w, 0));
	/* a parent-only registration (w + 1) shows when updates happened */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_punreg u32 a", w + 1, 4, 0, NULL));
	ASSERT_TRUE(toggle(&self->t, "uet_fk_punreg", true, w + 1, 4, 0));
	EXPECT_EQ(0, *w);
	send_msg(fd, MSG_GO);
	EXPECT_EQ(0, child_status(pid));
	EXPECT_EQ(0, *w);
}

TEST_F(fork, child_unreg_parent_keeps)
{
	__u32 *w = (__u32 *)self->page;
	int fd;
	pid_t pid;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_cunreg u32 a", w, 4, 2, NULL));
	pid = ue_sock_fork(&fd);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* a child-only sentinel (w + 1) shows when updates are done */
		if (ue_unreg(self->t.fd, w, 2) ||
		    ue_reg(self->t.fd, "uet_fk_cunreg u32 a", w + 1, 4, 0, 0, NULL))
			_exit(1);
		send_msg(fd, MSG_OK);
		if (recv_msg(fd) != MSG_GO || !ue_wait_bit(w + 1, 4, 0, true))
			_exit(2);
		_exit(*w == 0 ? 0 : 3);
	}
	ASSERT_EQ(MSG_OK, recv_msg(fd));
	ASSERT_TRUE(toggle(&self->t, "uet_fk_cunreg", true, w, 4, 2));
	send_msg(fd, MSG_GO);
	EXPECT_EQ(0, child_status(pid));
}

/* A page at @addr exactly, or NULL */
static void *map_at(uintptr_t addr)
{
	void *p = mmap((void *)addr, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != MAP_FAILED && p != (void *)addr)
		munmap(p, getpagesize());
	return p == (void *)addr ? p : NULL;
}

/*
 * A page at a fixed address, so that an exec()ed image can map it again: high ones first;
 * the low ones fit 32-bit and 39-bit VA spaces, those beyond a 32-bit pointer do not count.
 */
static void *map_fixed_page(void)
{
	static const unsigned long long hints[] = {
		0x2a0000000000ull, 0x3b0000000000ull, 0x4c0000000000ull,
		0x2a000000ull, 0x3b000000ull, 0x4c000000ull,
	};
	void *page = NULL;
	int i;

	for (i = 0; i < ARRAY_SIZE(hints) && !page; i++)
		if (hints[i] == (uintptr_t)hints[i])
			page = map_at(hints[i]);
	return page;
}

/* The exec()ed image (EXEC_CHILD_ARG <addr> <socket fd>): the registration is gone */
static int exec_child(char **argv)
{
	__u32 *w = map_at(strtoull(argv[2], NULL, 0));
	int sock = atoi(argv[3]), fd;

	if (!w) {
		send_msg(sock, MSG_SKIP);
		return 0;
	}
	*w = 0;		/* present, so any stale update would land at once */
	send_msg(sock, MSG_OK);
	/* the event is enabled now: a surviving registration would show */
	if (recv_msg(sock) != MSG_GO || *w != 0)
		return 11;
	fd = ue_open_data();
	if (fd < 0 || ue_reg(fd, EXEC_CMD, w, 4, EXEC_BIT, 0, NULL) ||
	    !ue_wait_bit(w, 4, EXEC_BIT, true) || ue_unreg(fd, w, EXEC_BIT))
		return 12;
	close(fd);
	send_msg(sock, MSG_OK);
	return 0;
}

/* exec() drops all registrations of the process */
TEST_F(fork, exec_drops)
{
	__u32 *w = map_fixed_page();
	char addr[32], sock[16], msg;
	int fd;
	pid_t pid;

	if (!w)
		SKIP(return, "no free fixed address");
	ASSERT_EQ(0, ue_track_reg(&self->t, EXEC_CMD, w, 4, EXEC_BIT, NULL));
	pid = ue_sock_fork(&fd);	/* the child's end survives exec */
	ASSERT_LE(0, pid);
	if (pid == 0) {
		snprintf(addr, sizeof(addr), "%#lx", (unsigned long)(uintptr_t)w);
		snprintf(sock, sizeof(sock), "%d", fd);
		execl("/proc/self/exe", "fork_test", EXEC_CHILD_ARG, addr, sock, (char *)NULL);
		_exit(20);
	}
	msg = recv_msg(fd);
	if (msg == MSG_SKIP) {
		child_status(pid);
		SKIP(return, "fixed address busy after exec");
	}
	ASSERT_EQ(MSG_OK, msg) TH_LOG("child exit %d", child_status(pid));
	ASSERT_TRUE(toggle(&self->t, "uet_fk_exec", true, w, 4, EXEC_BIT));
	send_msg(fd, MSG_GO);
	EXPECT_EQ(MSG_OK, recv_msg(fd));
	EXPECT_EQ(0, child_status(pid));
}

/*
 * Threads and CLONE_VM children share the registrations of the mm (upstream keeps them per task
 * group, created by the first registering task: so this process registers @bit first).  @reg_other
 * registers @other from a task that exits at once: it lives on and any task may unregister it.
 */
static void shared_mm(struct __test_metadata *_metadata, struct ue_track *t,
		      __u32 *w, const char *name, int bit, int other,
		      int (*reg_other)(int, const char *, void *, int))
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_track_reg(t, cmd, w, 4, bit, NULL));
	ASSERT_EQ(0, reg_other(t->fd, cmd, w, other));
	EXPECT_EQ(-EADDRINUSE, ue_reg(t->fd, cmd, w, 4, other, 0, NULL));
	ASSERT_TRUE(toggle(t, name, true, w, 4, bit));
	ASSERT_TRUE(ue_wait_bit(w, 4, other, true));
	EXPECT_EQ(0, ue_unreg(t->fd, w, other));
	EXPECT_EQ(1u << bit, *w);
}

struct clone_arg {
	int fd, bit, ret;
	const char *cmd;
	void *addr;
};

static int clone_fn(void *data)
{
	struct clone_arg *a = data;

	a->ret = ue_reg(a->fd, a->cmd, a->addr, 4, a->bit, 0, NULL);
	return 0;
}

/* ue_reg_in_thread(), but from a CLONE_VM child process */
static int clone_reg(int fd, const char *cmd, void *addr, int bit)
{
	struct clone_arg a = { fd, bit, -ECHILD, cmd, addr };
	size_t size = 256 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t pid;

	if (stack == MAP_FAILED)
		return -ENOMEM;
	pid = clone(clone_fn, stack + size, CLONE_VM | SIGCHLD, &a);
	if (pid <= 0 || child_status(pid))
		a.ret = -ECHILD;
	munmap(stack, size);
	return a.ret;
}

TEST_F(fork, mm_shares)
{
	shared_mm(_metadata, &self->t, (__u32 *)self->page, "uet_fk_thread", 5, 0,
		  ue_reg_in_thread);
	shared_mm(_metadata, &self->t, (__u32 *)self->page + 1, "uet_fk_clonevm", 0, 1,
		  clone_reg);
}

/* Send @fd over the unix socket @sock with SCM_RIGHTS, or receive one */
static int pass_fd(int sock, int fd, bool send)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'f';
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	if (send) {
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
		return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
	}
	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* Same address in both processes after fork(): only one may change */
static __u32 scm_word;

/*
 * A user_events_data fd opened by another process and passed with SCM_RIGHTS registers the caller:
 * the kernel updates the memory of the process that issued DIAG_IOCSREG, never that of the opener.
 */
TEST_F(fork, scm_rights_fd_updates_caller)
{
	int sock, fd, own;
	pid_t pid;

	scm_word = 0;
	pid = ue_sock_fork(&sock);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		own = ue_open_data();
		if (own < 0 || pass_fd(sock, own, true))
			_exit(2);
		close(own);
		/* wait until the parent has enabled and disabled the event */
		if (recv_msg(sock) != MSG_GO)
			_exit(3);
		_exit(scm_word ? 1 : 0);
	}
	fd = pass_fd(sock, -1, false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ue_reg(fd, "uet_fork_scm u32 a", &scm_word, 4, 5, 0, NULL));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_fork_scm", true));
	EXPECT_TRUE(ue_wait_bit(&scm_word, 4, 5, true));
	/* the opener's copy of the word was never touched */
	send_msg(sock, MSG_GO);
	EXPECT_EQ(0, child_status(pid));
	EXPECT_EQ(0, ue_set_enable(UE_SYS, "uet_fork_scm", false));
	EXPECT_TRUE(ue_wait_bit(&scm_word, 4, 5, false));
	EXPECT_EQ(0, ue_unreg(fd, &scm_word, 5));
	close(fd);
	close(sock);
}

#define WINDOW_SECS	2	/* forks for this long */
#define WINDOW_BALLAST	(16 << 20)	/* populated memory fork() copies after the word */
#define WINDOW_BIT	7
#define WINDOW_CMD	"uet_fk_window u32 a"

/* A thread registering and unregistering one word until told to stop */
struct window_reg {
	int fd, failed;
	__u32 *word;
	bool stop;	/* __atomic */
	long rounds;
};

static void *window_reg_loop(void *arg)
{
	struct window_reg *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		r->failed += !!ue_reg(r->fd, WINDOW_CMD, r->word, 4, WINDOW_BIT, 0, NULL);
		r->failed += !!ue_unreg(r->fd, r->word, WINDOW_BIT);
		r->rounds++;
	}
	return NULL;
}

/*
 * In a child forked while the parent's thread (un)registers @w: 1 if the child inherited
 * the registration of @w but its bit, while the event is enabled, stays clear.
 */
static int window_child(int fd, __u32 *w)
{
	int i;

	if (ue_bit_set(w, 4, WINDOW_BIT))
		return 0;
	/* a registration of a used (address, bit) is refused: was it inherited? */
	if (ue_reg(fd, WINDOW_CMD, w, 4, WINDOW_BIT, 0, NULL) != -EADDRINUSE)
		return 0;
	for (i = 0; i < 200 && !ue_bit_set(w, 4, WINDOW_BIT); i++)	/* 2 s */
		usleep(10000);
	return !ue_bit_set(w, 4, WINDOW_BIT);
}

struct window_arg {
	int fd;
	__u32 *word;
};

static int window_child_fn(void *arg)
{
	struct window_arg *a = arg;

	_exit(window_child(a->fd, a->word));
}

/*
 * fork() for window_child(); as root in new network, PID and UTS namespaces, whose making,
 * between the copy of the memory and that of the registrations, widens the window from
 * microseconds to milliseconds.  Without them (not root, not configured) a plain fork().
 */
static pid_t window_fork(struct window_arg *a, char *stack, size_t size)
{
	static int flags = CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWNET;
	pid_t pid = -1;

	if (flags && !geteuid())
		pid = clone(window_child_fn, stack + size, flags | SIGCHLD, a);
	if (pid < 0) {
		flags = 0;
		pid = clone(window_child_fn, stack + size, SIGCHLD, a);
	}
	return pid;
}

/*
 * A registration by a sibling thread while the process forks: between the copy of the memory
 * and the copy of the registrations, the bit it sets lands in the parent's page only, and a
 * child that inherits the registration must still see the bit of an enabled event.  (An
 * unregistration in that window can leave the child's bit set until the next toggle: a
 * known limitation, not checked.)
 */
TEST_F(fork, reg_in_fork_window)
{
	struct window_reg r = { .fd = self->t.fd };
	char *ballast = mmap(NULL, WINDOW_BALLAST, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	size_t stack_size = 16 * getpagesize();
	char *stack;
	__u32 *sentinel = (__u32 *)self->page;
	struct window_arg a;
	int forks = 0, bad = 0, status;
	struct timespec start;
	pthread_t th;
	pid_t pid;

	ASSERT_TRUE(ballast != MAP_FAILED);
	stack = ballast + WINDOW_BALLAST - stack_size;	/* the child's, in its copy */
	/* mapped after the ballast, so below it: fork() copies the word first */
	r.word = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(r.word));
	*r.word = 0;
	a = (struct window_arg){ self->t.fd, r.word };
	ASSERT_EQ(0, ue_track_reg(&self->t, WINDOW_CMD, sentinel, 4, 0, NULL));
	ASSERT_TRUE(toggle(&self->t, "uet_fk_window", true, sentinel, 4, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, window_reg_loop, &r));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!bad && ue_elapsed(&start) < WINDOW_SECS) {
		pid = window_fork(&a, stack, stack_size);
		if (pid < 0)
			break;
		forks++;
		if (waitpid(pid, &status, 0) != pid || status)
			bad++;
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	TH_LOG("%d forks against %ld registrations", forks, r.rounds);
	EXPECT_LT(0, forks);
	EXPECT_EQ(0, r.failed);
	EXPECT_EQ(0, bad) TH_LOG("a child inherited a registration whose bit it never saw");
	munmap(r.word, getpagesize());
	munmap(ballast, WINDOW_BALLAST);
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

TEST_F(fork, mm_owned_thread_exit)
{
	mm_owned_fork(_metadata, &self->t, self->page, false);
}

/* The same with the registering thread still running (uebench's row 9 relies on it) */
TEST_F(fork, mm_owned_thread_alive)
{
	mm_owned_fork(_metadata, &self->t, self->page, true);
}

/* After the last thread exits, its unused event is gone at once, not later */
TEST_F(fork, mm_owned_gone_with_process)
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

#define RACE_THREADS	3
#define RACE_FORKS	150	/* at most this many forks, within UE_RACE_SECS */

/* A racing thread: registers at bit @bit of the u32 words at @words, on @fd */
struct race_thread {
	int fd, bit, errors, loops;
	const int *stop;
	char *words;
};

static void *race_worker(void *arg)
{
	struct race_thread *w = arg;

	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
		w->errors += ue_reg(w->fd, "uet_rg_race u32 a", w->words, 4, w->bit, 0, NULL) ||
			     ue_unreg(w->fd, w->words, w->bit);
		w->loops++;
	}
	return NULL;
}

/* Stable 6.12.y "... unregister races with fork": fork copied an enabler being freed */
TEST_F_TIMEOUT(fork, unregister_races_fork, 120)
{
	int i, forks, status, stop = 0, bad = 0, loops = 0, errors = 0;
	struct race_thread w[RACE_THREADS];
	pthread_t th[RACE_THREADS];
	struct timespec start;
	pid_t pid;

	if (!ue_setup_more(_metadata, &self->flags, UE_ROOT | UE_TRACE))
		return;
	/* one registration stays: the event is enabled throughout */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_race u32 a", self->page + 8, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_race"));
	for (i = 0; i < RACE_THREADS; i++) {
		w[i] = (struct race_thread){ .fd = self->t.fd, .bit = i, .words = self->page,
					   .stop = &stop };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_worker, &w[i]));
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (forks = 0; forks < RACE_FORKS && (!forks || ue_elapsed(&start) < UE_RACE_SECS);
	     forks++) {
		pid = fork();
		if (pid < 0) {
			TH_LOG("fork: %s", strerror(errno));
			break;
		}
		if (!pid) {	/* the child's copies are its own */
			ue_unreg(self->t.fd, self->page, 0);
			ue_unreg(self->t.fd, self->page, 1);
			_exit(0);
		}
		bad += waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		       WEXITSTATUS(status);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < RACE_THREADS; i++) {
		pthread_join(th[i], NULL);
		loops += w[i].loops;
		errors += w[i].errors;
		EXPECT_LE(1, w[i].loops) TH_LOG("thread %d never looped", i);
		EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, self->page, i));
	}
	TH_LOG("%d forks in %.1f s, %d register+unregister loops", forks,
	       ue_elapsed(&start), loops);
	EXPECT_LE(1, forks);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, errors) TH_LOG("%d of %d loops failed", errors, loops);
}

/*
 * Register a word in a page marked with @advice, fork, map that address anew in the child,
 * enable the event: the child's memory stays untouched, it never held the parent's word.
 */
static void not_inherited(struct __test_metadata *_metadata, struct ue_track *t, int advice,
			  const char *name)
{
	__u32 *word = ue_map_page(PROT_READ | PROT_WRITE);
	int pipefd[2], status, i;
	char cmd[64], c;
	pid_t pid;

	ASSERT_TRUE(ue_nonnull(word));
	ASSERT_EQ(0, madvise(word, getpagesize(), advice));
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_track_reg(t, cmd, word, 4, 3, NULL));
	ue_track_del(t, name);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(pipefd[1]);
		/* DONTFORK: nothing is mapped; WIPEONFORK: zeroes */
		if (mmap(word, getpagesize(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != word)
			_exit(2);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(3);
		/* the parent's bit is set by now; give a stray write time */
		for (i = 0; i < 100 && !__atomic_load_n(word, __ATOMIC_RELAXED); i++)
			usleep(1000);
		_exit(i < 100);
	}
	close(pipefd[0]);
	ASSERT_EQ(0, ue_track_enable(t, UE_SYS, name));
	EXPECT_TRUE(ue_wait_bit(word, 4, 3, true));
	ASSERT_EQ(1, write(pipefd[1], "x", 1));
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("1: the child's memory changed");
}

TEST_F(fork, madv_dontfork_not_inherited)
{
	not_inherited(_metadata, &self->t, MADV_DONTFORK, "uet_ho_dontfork");
}

TEST_F(fork, madv_wipeonfork_not_inherited)
{
	not_inherited(_metadata, &self->t, MADV_WIPEONFORK, "uet_ho_wipeonfork");
}

#define VHOST_ROUNDS	4

/*
 * vhost takes a reference to its owner's address space (VHOST_SET_OWNER) and drops it when
 * its file is released, which for an exiting owner is after the owner's exit hooks ran: the
 * last reference to the address space goes from exit_task_work().  The registrations of that
 * address space must still go with it: the event, created persistent so that it outlives
 * them, can be deleted as soon as the owner is reaped.
 */
TEST_F(fork, vhost_owner_exit)
{
	char left[256];
	int i, status;

	if (ue_skip_reason(UE_ROOT))
		SKIP(return, "%s", ue_skip_reason(UE_ROOT));
	ue_track_del(&self->t, "uet_ho_vhost");
	for (i = 0; i < VHOST_ROUNDS; i++) {
		ASSERT_EQ(0, ue_dyn_add("uet_ho_vhost", "u32 a"));
		status = ue_vhost_round("uet_ho_vhost u32 a", 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == UE_NO_VHOST)
			SKIP(return, "no /dev/vhost-net (CONFIG_VHOST_NET)");
		ASSERT_EQ(0, status) TH_LOG("the vhost owner failed: %#x", status);
		/* reaped: nothing of it may hold the event */
		EXPECT_EQ(0, ue_del_name("uet_ho_vhost")) TH_LOG("round %d", i);
	}
	EXPECT_EQ(0, ue_leftovers("uet_ho_vhost", true, left, sizeof(left))) TH_LOG("%s", left);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], EXEC_CHILD_ARG))
		return argc == 4 ? exec_child(argv) : 10;
	return test_harness_run(argc, argv);
}
