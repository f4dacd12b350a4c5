// SPDX-License-Identifier: GPL-2.0
/*
 * user_events against programs that make the kernel's job hard: enable
 * words in memory that fork() does not copy, and a process that keeps its
 * own mmap_lock busy while tracers toggle its events.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "../kselftest_harness.h"
#include "ue_util.h"

/* Seconds the contention case runs: long enough for many toggles. */
#define HO_CHURN_SECS	2

FIXTURE(ho) {
	struct ue_track t;
};

FIXTURE_SETUP(ho)
{
	if (!ue_available())
		SKIP(return, "user_events not available (tracefs or root)");
	ASSERT_EQ(0, ue_track_init(&self->t));
}

FIXTURE_TEARDOWN(ho)
{
	ue_track_cleanup(&self->t);
}

/*
 * Register a word in a page marked with @advice, fork, remap that address
 * in the child as fresh memory, enable the event: the child's memory must
 * stay untouched, since it never held the parent's word.
 */
static void ho_not_inherited(struct __test_metadata *_metadata,
			     struct ue_track *t, int advice, const char *name)
{
	char cmd[64], c;
	int pipefd[2], status;
	__u32 *word = ue_map_page(PROT_READ | PROT_WRITE);
	pid_t pid;

	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, madvise(word, getpagesize(), advice));
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_track_reg(t, cmd, word, 4, 3, NULL));
	ue_track_del(t, name);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		__u32 *fresh;
		int i;

		close(pipefd[1]);
		/* DONTFORK: nothing is mapped; WIPEONFORK: zeroes. Map anew. */
		fresh = mmap(word, getpagesize(), PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (fresh != word)
			_exit(2);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(3);
		/* the parent's bit is set by now; give a stray write time */
		for (i = 0; i < 100; i++) {
			if (__atomic_load_n(fresh, __ATOMIC_RELAXED))
				_exit(1);
			usleep(1000);
		}
		_exit(0);
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

TEST_F(ho, madv_dontfork_not_inherited)
{
	ho_not_inherited(_metadata, &self->t, MADV_DONTFORK, "uet_ho_dontfork");
}

TEST_F(ho, madv_wipeonfork_not_inherited)
{
	ho_not_inherited(_metadata, &self->t, MADV_WIPEONFORK,
			 "uet_ho_wipeonfork");
}

struct ho_churn {
	bool stop;	/* __atomic accesses */
	long maps;
};

/* Take this process's mmap_lock for writing, over and over. */
static void *ho_churn_thread(void *p)
{
	struct ho_churn *c = p;
	size_t len = 64 * getpagesize();

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (m != MAP_FAILED)
			munmap(m, len);
		c->maps++;
	}
	return NULL;
}

/*
 * While another thread keeps the registrant's mmap_lock busy, tracers
 * toggle its event many times: the bit always ends in the latest state
 * (updates that found the lock taken are finished by the kernel's worker).
 */
TEST_F(ho, bit_converges_under_mmap_churn)
{
	struct ho_churn c = { 0 };
	struct timespec start;
	__u32 *word = ue_map_page(PROT_READ | PROT_WRITE);
	pthread_t th;
	int toggles = 0;
	bool on = false;

	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_ho_churn u32 a", word, 4, 0,
				  NULL));
	ue_track_del(&self->t, "uet_ho_churn");
	ASSERT_EQ(0, pthread_create(&th, NULL, ho_churn_thread, &c));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_elapsed(&start) < HO_CHURN_SECS) {
		on = !on;
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_churn", on));
		toggles++;
	}
	/* end disabled, then enabled: each final state must be reached */
	if (on)
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_churn", false));
	EXPECT_TRUE(ue_wait_bit(word, 4, 0, false));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_churn", true));
	EXPECT_TRUE(ue_wait_bit(word, 4, 0, true));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_churn", false));
	EXPECT_TRUE(ue_wait_bit(word, 4, 0, false));
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	EXPECT_GT(toggles, 1);
	EXPECT_GT(c.maps, 0);
	TH_LOG("%d toggles against %ld mmap/munmap in %d s", toggles, c.maps,
	       HO_CHURN_SECS);
}

/* True when all @n bits from @words are @want, waiting up to @secs. */
static bool ho_all_bits(const __u32 *words, int n, bool want, int secs)
{
	struct timespec start;
	int i = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (i < n) {
		if (ue_bit_set(&words[i / 32], 4, i % 32) == want) {
			i++;
			continue;
		}
		if (ue_elapsed(&start) > secs)
			return false;
		sched_yield();
	}
	return true;
}

#define HO_MANY		8192	/* enablers of one event: 32 inline batches */

/*
 * A toggle writes only the first enablers of an event itself and leaves
 * the others to a worker, so that a registrant cannot make every tracer
 * wait by registering more. Toggled over and over, every bit of every
 * enabler still ends in the latest state.
 */
TEST_F_TIMEOUT(ho, many_enablers_all_follow, 240)
{
	__u32 *words = ue_map_page(PROT_READ | PROT_WRITE);
	struct timespec start;
	int fd = ue_open_data(), i, toggles = 0;
	bool on = false;

	ASSERT_NE(MAP_FAILED, words);
	ASSERT_LE(0, fd);
	ASSERT_LE(HO_MANY / 8, getpagesize());
	for (i = 0; i < HO_MANY; i++)
		ASSERT_EQ(0, ue_reg(fd, "uet_ho_many u32 a", &words[i / 32],
				    4, i % 32, 0, NULL));
	ue_track_del(&self->t, "uet_ho_many");
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_elapsed(&start) < HO_CHURN_SECS) {
		on = !on;
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_many", on));
		toggles++;
	}
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_many", true));
	EXPECT_TRUE(ho_all_bits(words, HO_MANY, true, 60));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_many", false));
	EXPECT_TRUE(ho_all_bits(words, HO_MANY, false, 60));
	TH_LOG("%d toggles of an event with %d enablers", toggles, HO_MANY);
	close(fd);
}

#define HO_UFFD_WORDS	8	/* distinct enable words on the stuck page */

/*
 * Make the page at @page missing and hand its faults to a userfaultfd
 * nobody reads: a fault there waits until the descriptor is closed.
 */
static int ho_uffd_trap(void *page)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { (unsigned long)page, getpagesize() },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api) ||
	    madvise(page, getpagesize(), MADV_DONTNEED) ||
	    ioctl(fd, UFFDIO_REGISTER, &reg))
		return -1;
	return fd;
}

/*
 * A process whose enable words sit on a page that never faults in (a
 * userfaultfd nobody serves) must not hold up the fault workers: another
 * process's bit, on a page that only needs a fault, still follows its
 * tracer. (The kernel's fault-in does not wait for a userfaultfd; a slow
 * FUSE page would park one worker, the one of its address space.)
 */
TEST_F_TIMEOUT(ho, stuck_faults_stall_only_their_owner, 120)
{
	int ready[2], hold[2], status, i;
	__u32 *other = ue_map_page(PROT_READ | PROT_WRITE);
	char c = 0;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, other);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		__u32 *words = ue_map_page(PROT_READ | PROT_WRITE);
		int fd = ue_open_data(), uffd;

		close(hold[1]);
		for (i = 0; i < HO_UFFD_WORDS && fd >= 0 && words; i++)
			if (ue_reg(fd, "uet_ho_stuck u32 a", &words[4 * i], 4,
				   0, 0, NULL))
				_exit(2);
		uffd = ho_uffd_trap(words);
		c = uffd < 0;
		if (write(ready[1], &c, 1) != 1 || c)
			_exit(3);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);	/* closes the userfaultfd: faults give up */
	}
	close(hold[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	if (c) {
		close(hold[1]);
		waitpid(pid, &status, 0);
		SKIP(return, "no userfaultfd");
	}
	ue_track_del(&self->t, "uet_ho_stuck");
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_ho_free u32 a", other, 4, 0,
				  NULL));
	ue_track_del(&self->t, "uet_ho_free");
	/* the stuck process's words wait for faults that never end */
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_stuck", true));
	/* ours only needs a fault: it must not queue behind them */
	ASSERT_EQ(0, madvise(other, getpagesize(), MADV_DONTNEED));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_free", true));
	EXPECT_TRUE(ue_wait_bit(other, 4, 0, true));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_free", false));
	EXPECT_TRUE(ue_wait_bit(other, 4, 0, false));

	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_stuck", false));
	close(ready[0]);
	close(ready[1]);
}

TEST_HARNESS_MAIN
