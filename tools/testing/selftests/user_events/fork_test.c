// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI: enable registrations across fork(), exec(), threads and
 * CLONE_VM children.
 *
 * Processes synchronise through pipes only; enable bits that the kernel
 * may update asynchronously are polled with a bounded loop.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ue_util.h"

#define EXEC_CHILD_ARG "--ue-exec-child"

/* Messages exchanged with children */
#define MSG_READY	'r'
#define MSG_GO		'g'
#define MSG_OK		'y'
#define MSG_SKIP	's'

static void send_msg(int fd, char msg)
{
	if (write(fd, &msg, 1) != 1)
		_exit(100);
}

/* Blocking read of one message; 0 when the peer went away. */
static char recv_msg(int fd)
{
	char msg;

	return read(fd, &msg, 1) == 1 ? msg : 0;
}

struct chan {
	int to_child[2];
	int to_parent[2];
};

static int chan_open(struct chan *c)
{
	if (pipe2(c->to_child, O_CLOEXEC))
		return -1;
	if (pipe2(c->to_parent, O_CLOEXEC))
		return -1;
	return 0;
}

/* Keep only the ends the caller needs after fork(). */
static void chan_child_side(struct chan *c)
{
	close(c->to_child[1]);
	close(c->to_parent[0]);
}

static void chan_parent_side(struct chan *c)
{
	close(c->to_child[0]);
	close(c->to_parent[1]);
}

/*
 * fork() with a channel: the child's pid in the parent, 0 in the child,
 * -1 on failure; each side keeps only its own ends of @c.
 */
static pid_t chan_fork(struct chan *c)
{
	pid_t pid;

	if (chan_open(c))
		return -1;
	pid = fork();
	if (pid == 0)
		chan_child_side(c);
	else if (pid > 0)
		chan_parent_side(c);
	return pid;
}

static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

FIXTURE(fork) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(fork)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(fork)
{
	UE_TEARDOWN();
}

/*
 * The child's copy of the enable word (a copy-on-write page after fork)
 * follows the event state just like the parent's.
 */
TEST_F(fork, child_inherits)
{
	uint32_t *w = (uint32_t *)self->page;
	struct chan c;
	pid_t pid;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_inherit u32 a", w, 4, 4,
				  NULL));
	*w = 0x10001;	/* other bits that must survive */
	pid = chan_fork(&c);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (recv_msg(c.to_child[0]) != MSG_GO)
			_exit(1);
		if (!ue_wait_bit(w, 4, 4, true) || *w != (0x10001 | 1 << 4))
			_exit(2);
		send_msg(c.to_parent[1], MSG_OK);

		if (recv_msg(c.to_child[0]) != MSG_GO)
			_exit(3);
		if (!ue_wait_bit(w, 4, 4, false) || *w != 0x10001)
			_exit(4);
		_exit(0);
	}

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_inherit"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 4, true));
	send_msg(c.to_child[1], MSG_GO);
	EXPECT_EQ(MSG_OK, recv_msg(c.to_parent[0]));

	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_fk_inherit", false));
	ASSERT_TRUE(ue_wait_bit(w, 4, 4, false));
	send_msg(c.to_child[1], MSG_GO);
	EXPECT_EQ(0, child_status(pid));
	EXPECT_EQ(0x10001, *w);
}

/*
 * fork() leaves the parent's page write-protected for copy-on-write; the
 * parent's bit must still follow the tracer before the enable write
 * returns, not some time later.
 */
TEST_F(fork, parent_bit_updated_at_once)
{
	uint32_t *w = (uint32_t *)self->page;
	struct chan c;
	pid_t pid;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_parent u32 a", w, 4, 2,
				  NULL));
	pid = chan_fork(&c);
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(recv_msg(c.to_child[0]) == MSG_GO ? 0 : 1);

	/* no ue_wait_bit(): the bit is read right after the write returns */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_parent"));
	EXPECT_EQ(1u << 2, __atomic_load_n(w, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_fk_parent", false));
	EXPECT_EQ(0, __atomic_load_n(w, __ATOMIC_ACQUIRE));

	send_msg(c.to_child[1], MSG_GO);
	EXPECT_EQ(0, child_status(pid));
}

/* Also when the child's page is not even present (never written). */
TEST_F(fork, child_inherits_untouched_page)
{
	char *fresh = ue_map_page(PROT_READ | PROT_WRITE);
	uint64_t *w;
	struct chan c;
	pid_t pid;

	ASSERT_TRUE(ue_nonnull(fresh));
	w = (uint64_t *)(fresh + 64);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_fresh u32 a", w, 8, 63,
				  NULL));
	ASSERT_EQ(0, madvise(fresh, getpagesize(), MADV_DONTNEED));
	pid = chan_fork(&c);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (recv_msg(c.to_child[0]) != MSG_GO)
			_exit(1);
		_exit(ue_wait_bit(w, 8, 63, true) ? 0 : 2);
	}

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_fresh"));
	ASSERT_TRUE(ue_wait_bit(w, 8, 63, true));
	send_msg(c.to_child[1], MSG_GO);
	EXPECT_EQ(0, child_status(pid));
}

TEST_F(fork, parent_unreg_child_keeps)
{
	uint32_t *w = (uint32_t *)self->page;
	uint32_t *sentinel = w + 1;
	struct chan c;
	pid_t pid;

	ASSERT_EQ(0, ue_reg(self->t.fd, "uet_fk_punreg u32 a", w, 4, 0, 0, NULL));
	pid = chan_fork(&c);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (recv_msg(c.to_child[0]) != MSG_GO)
			_exit(1);
		if (!ue_wait_bit(w, 4, 0, true))
			_exit(2);
		/* The child's registration is its own to remove */
		if (ue_unreg(self->t.fd, w, 0))
			_exit(3);
		_exit(*w == 0 ? 0 : 4);
	}

	ASSERT_EQ(0, ue_unreg(self->t.fd, w, 0));
	/* A parent-only registration shows when updates have happened */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_punreg u32 a", sentinel, 4, 0,
				  NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_punreg"));
	ASSERT_TRUE(ue_wait_bit(sentinel, 4, 0, true));
	EXPECT_EQ(0, *w);

	send_msg(c.to_child[1], MSG_GO);
	EXPECT_EQ(0, child_status(pid));
	EXPECT_EQ(0, *w);
}

TEST_F(fork, child_unreg_parent_keeps)
{
	uint32_t *w = (uint32_t *)self->page;
	uint32_t *sentinel = w + 1;
	struct chan c;
	pid_t pid;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_cunreg u32 a", w, 4, 2, NULL));
	pid = chan_fork(&c);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_unreg(self->t.fd, w, 2))
			_exit(1);
		/* Child-only sentinel to know when updates are done */
		if (ue_reg(self->t.fd, "uet_fk_cunreg u32 a", sentinel, 4, 0, 0,
			   NULL))
			_exit(2);
		send_msg(c.to_parent[1], MSG_READY);
		if (recv_msg(c.to_child[0]) != MSG_GO)
			_exit(3);
		if (!ue_wait_bit(sentinel, 4, 0, true))
			_exit(4);
		_exit(*w == 0 ? 0 : 5);
	}

	ASSERT_EQ(MSG_READY, recv_msg(c.to_parent[0]));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_cunreg"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 2, true));
	send_msg(c.to_child[1], MSG_GO);
	EXPECT_EQ(0, child_status(pid));
}

/* A child exiting does not take the parent's registration along. */
TEST_F(fork, child_exit_parent_keeps)
{
	uint32_t *w = (uint32_t *)self->page;
	pid_t pid;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_exit u32 a", w, 4, 9, NULL));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, child_status(pid));

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_exit"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 9, true));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_fk_exit", false));
	ASSERT_TRUE(ue_wait_bit(w, 4, 9, false));
}

/* ---------------------------------------------------------------------
 * exec() drops all registrations of the process
 */

static void *map_fixed_page(void)
{
	/* high ones first; the low ones fit 32-bit and 39-bit VA spaces */
	static const unsigned long long hints[] = {
		0x2a0000000000ull, 0x3b0000000000ull, 0x4c0000000000ull,
		0x2a000000ull, 0x3b000000ull, 0x4c000000ull,
	};
	void *page;
	int i;

	for (i = 0; i < ARRAY_SIZE(hints); i++) {
		if (hints[i] != (uintptr_t)hints[i])
			continue;	/* beyond a 32-bit pointer */
		page = mmap((void *)(uintptr_t)hints[i], getpagesize(),
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
		if (page == (void *)(uintptr_t)hints[i])
			return page;
		if (page != MAP_FAILED)
			munmap(page, getpagesize());
	}

	return NULL;
}

/*
 * Runs in the freshly exec()ed image:
 *   argv: EXEC_CHILD_ARG <addr> <bit> <command> <read fd> <write fd>
 * Maps a page at the address the parent registered before the exec and
 * checks that the old registration is gone.
 */
static int exec_child(int argc, char **argv)
{
	uintptr_t addr;
	int bit, rfd, wfd, fd;
	uint32_t *w;

	if (argc != 7)
		return 10;

	addr = strtoull(argv[2], NULL, 0);
	bit = atoi(argv[3]);
	rfd = atoi(argv[5]);
	wfd = atoi(argv[6]);

	w = mmap((void *)addr, getpagesize(), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (w != (void *)addr) {
		send_msg(wfd, MSG_SKIP);
		return 0;
	}
	*w = 0;		/* present, so any stale update would land at once */
	send_msg(wfd, MSG_READY);

	if (recv_msg(rfd) != MSG_GO)
		return 11;

	/* The event is enabled now: a surviving registration would show */
	if (*w != 0)
		return 12;

	/* And the address/bit pair is free for this process again */
	fd = ue_open_data();
	if (fd < 0)
		return 13;
	if (ue_reg(fd, argv[4], w, 4, bit, 0, NULL))
		return 14;
	if (!ue_wait_bit(w, 4, bit, true))
		return 15;
	if (ue_unreg(fd, w, bit))
		return 16;
	close(fd);

	send_msg(wfd, MSG_OK);
	return 0;
}

TEST_F(fork, exec_drops)
{
	const char *cmd = "uet_fk_exec u32 a";
	char addr[32], rfd[16], wfd[16];
	struct chan c;
	uint32_t *w;
	char msg;
	pid_t pid;

	w = map_fixed_page();
	if (!w)
		SKIP(return, "no free fixed address");
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, w, 4, 3, NULL));

	/* The child's ends must survive exec */
	ASSERT_EQ(0, pipe(c.to_child));
	ASSERT_EQ(0, pipe(c.to_parent));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		chan_child_side(&c);
		snprintf(addr, sizeof(addr), "%#lx", (unsigned long)(uintptr_t)w);
		snprintf(rfd, sizeof(rfd), "%d", c.to_child[0]);
		snprintf(wfd, sizeof(wfd), "%d", c.to_parent[1]);
		execl("/proc/self/exe", "fork_test", EXEC_CHILD_ARG, addr, "3",
		      cmd, rfd, wfd, (char *)NULL);
		_exit(20);
	}
	chan_parent_side(&c);

	msg = recv_msg(c.to_parent[0]);
	if (msg == MSG_SKIP) {
		child_status(pid);
		SKIP(return, "fixed address busy after exec");
	}
	ASSERT_EQ(MSG_READY, msg) TH_LOG("child exit %d", child_status(pid));

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_exec"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 3, true));
	send_msg(c.to_child[1], MSG_GO);

	EXPECT_EQ(MSG_OK, recv_msg(c.to_parent[0]));
	EXPECT_EQ(0, child_status(pid));
}

/* ---------------------------------------------------------------------
 * Threads and CLONE_VM children share the registrations of the mm
 */

struct thread_arg {
	int fd;
	void *addr;
	int ret;
};

/*
 * Note: upstream keeps the registrations per task group, created by the
 * first registering task; threads created before the process used
 * user_events at all would get their own set.  So register once first.
 */
TEST_F(fork, thread_shares)
{
	uint32_t *w = (uint32_t *)self->page;

	/* This process uses user_events before the thread is created */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_thread u32 a", w, 4, 5,
				  NULL));
	ASSERT_EQ(0, ue_reg_in_thread(self->t.fd, "uet_fk_thread u32 a", w,
				      0));

	/* The registering thread is gone; the registration lives on */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_fk_thread u32 a", w, 4, 0,
				      0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_thread"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 0, true));
	ASSERT_TRUE(ue_wait_bit(w, 4, 5, true));

	/* ... and any thread may unregister it */
	EXPECT_EQ(0, ue_unreg(self->t.fd, w, 0));
	EXPECT_EQ(1u << 5, *w);
}

static int clone_register(void *data)
{
	struct thread_arg *arg = data;

	arg->ret = ue_reg(arg->fd, "uet_fk_clonevm u32 a", arg->addr, 4, 1, 0,
			  NULL);
	return 0;
}

TEST_F(fork, clone_vm_shares)
{
	uint32_t *w = (uint32_t *)self->page;
	struct thread_arg arg = { .fd = self->t.fd, .addr = w, .ret = 1 };
	size_t stack_size = 256 * 1024;
	char *stack;
	pid_t pid;

	/* This process uses user_events before the clone */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_fk_clonevm u32 a", w, 4, 0,
				  NULL));

	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	ASSERT_TRUE(stack != MAP_FAILED);

	pid = clone(clone_register, stack + stack_size, CLONE_VM | SIGCHLD,
		    &arg);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, child_status(pid));
	munmap(stack, stack_size);
	ASSERT_EQ(0, arg.ret);

	/* The child exited, its registration belongs to the shared mm */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_fk_clonevm u32 a", w, 4, 1,
				      0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_fk_clonevm"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 0, true));
	ASSERT_TRUE(ue_wait_bit(w, 4, 1, true));

	EXPECT_EQ(0, ue_unreg(self->t.fd, w, 1));
	EXPECT_EQ(1, *w);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], EXEC_CHILD_ARG))
		return exec_child(argc, argv);

	return test_harness_run(argc, argv);
}

/* Send @fd over the unix socket @sock with SCM_RIGHTS. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec io = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* Same address in both processes after fork(): only one may change. */
static __u32 scm_word;

/*
 * A user_events_data fd opened by another process and passed with
 * SCM_RIGHTS registers the caller: the kernel updates the memory of the
 * process that issued DIAG_IOCSREG, never that of the opener.
 */
TEST(scm_rights_fd_updates_caller)
{
	const char *name = "uet_fork_scm";
	int sv[2], fd, status;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	scm_word = 0;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int own = ue_open_data();

		close(sv[0]);
		if (own < 0 || send_fd(sv[1], own))
			_exit(2);
		close(own);
		/* Wait until the parent has enabled and disabled the event. */
		if (recv_msg(sv[1]) != MSG_GO)
			_exit(3);
		_exit(scm_word ? 1 : 0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	ASSERT_GE(fd, 0);

	ASSERT_EQ(0, ue_reg(fd, "uet_fork_scm u32 a", &scm_word, 4, 5, 0, NULL));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, name, true));
	EXPECT_TRUE(ue_wait_bit(&scm_word, 4, 5, true));
	/* The opener's copy of the word was never touched. */
	send_msg(sv[0], MSG_GO);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	EXPECT_EQ(0, ue_set_enable(UE_SYS, name, false));
	EXPECT_TRUE(ue_wait_bit(&scm_word, 4, 5, false));
	EXPECT_EQ(0, ue_unreg(fd, &scm_word, 5));
	close(fd);
	close(sv[0]);
}
