// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: no program stalls a tracer, and its bits still end in the latest state
 * ("The enable bit"), against programs that make the kernel's job hard: a process that keeps
 * its own mmap_lock busy while tracers toggle its events, enable pages that never fault in or
 * whose faults wait for a FUSE daemon that never answers, an enable page FUSE keeps locked until
 * its daemon answers a write, an address space vhost keeps past its owner's exit, many
 * registrations of one event, and all of it at once by an unprivileged user while a privileged
 * tracer works on other events.
 */
#include "../kselftest_harness.h"
#include "ue_util.h"
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <linux/userfaultfd.h>
#include "ue_fuse.h"

#define HO_CHURN_SECS	2	/* the contention cases: long enough for many toggles */
#define HO_MANY		8192	/* enablers of one event: 32 inline batches */
#define HO_UFFD_WORDS	8	/* distinct enable words on a stuck page */
#define HO_UID		65534	/* the hostile user */
#define HO_LOAD		"uet_ho_load"
#define HO_QUIET	"uet_ho_quiet"
#define HO_PROBE	"uet_ho_probe"
#define HO_SECS		300	/* failure bound of the hostile processes' setup and checks */
#define HO_HELD_SECS	60	/* failure bound of the FUSE holder's first held read */
#define HO_FUSE_PROCS	8	/* twice the kernel's fault workers */
#define HO_FUSE_SECS	5	/* bound of a bit update that needs a fault */
#define HO_UID2		65533	/* the innocent user */
#define HO_LAUNDER	"uet_ho_launder"
#define HO_TRACER_SECS	1	/* bound of a tracer's enable */

/*
 * fuse_held_workers: HO_FUSE_PROCS processes of the hostile user each write to a private
 * mapping of a file a FUSE daemon serves (a private copy of the page), register an enable word
 * there, then drop the copy and the page cache, so that the next write to the word reads the
 * file: the daemon now never answers reads.  A thread of each keeps its mmap_lock busy, so a
 * tracer's toggle cannot write the word at once and leaves it to the kernel's fault work,
 * whose fault waits for the daemon.  Another user's bit, on a page that needs a fault, must
 * still follow its tracer.
 */
struct ho_fuse_ctl {	/* shared, __atomic accesses (ho_get(), ho_add()) */
	int ready;	/* processes registered */
	int dropped;	/* hostile processes churning on a dropped page */
	int drop;	/* hostile processes: drop the page now */
	int phase;	/* the innocent: 1, 2 drop the page; 3 exit */
	int done;	/* the innocent: phases done */
};

/* The innocent's enable word: the page after @ctl, shared with the test */
static __u32 *ho_fuse_word(struct ho_fuse_ctl *ctl)
{
	return (__u32 *)((char *)ctl + getpagesize());
}

/* Kill and reap the @n processes of @pids (0: none) */
static void ho_reap(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	memset(pids, 0, n * sizeof(*pids));
}

FIXTURE(nostall) {
	struct ue_track t;
	struct ue_fuse fuse;	/* the daemon of tracers_not_stalled or fuse_setup(), if started */
	char user_max[32];	/* limit to restore, if changed */
	bool hostile;		/* hostile processes were started */
	struct ho_fuse_ctl *ctl;	/* fuse_setup(): and the innocent's word, a page further */
	pid_t pids[HO_FUSE_PROCS + 1];	/* the last one the innocent */
	void *map;	/* a shared mapping of the FUSE file */
};

FIXTURE_SETUP(nostall)
{
	self->ctl = MAP_FAILED;
	self->map = MAP_FAILED;
	if (!ue_available())
		SKIP(return, "user_events not available (tracefs or root)");
	ASSERT_EQ(0, ue_track_init(&self->t));
}

FIXTURE_TEARDOWN(nostall)
{
	/* the daemon's end first: held reads fail, so blocked faults end */
	ue_fuse_stop(&self->fuse);
	ho_reap(self->pids, ARRAY_SIZE(self->pids));
	if (self->hostile) {	/* in the process group made for the test */
		signal(SIGTERM, SIG_IGN);
		kill(0, SIGTERM);
	}
	if (self->user_max[0])
		ue_write_str(UE_USER_MAX_PATH, self->user_max, 0);
	if (self->ctl != MAP_FAILED) {	/* fuse_setup() */
		ue_set_enable(UE_SYS, "uet_ho_fuse", false);
		ue_set_enable(UE_SYS, "uet_ho_innocent", false);
		ue_set_enable(UE_SYS, HO_LAUNDER, false);
	}
	ue_track_cleanup(&self->t);
	if (self->ctl != MAP_FAILED)
		munmap(self->ctl, 2 * getpagesize());
	if (self->map != MAP_FAILED)
		munmap(self->map, getpagesize());
}

/* A thread's loop: told to stop (__atomic accesses), its rounds, its failures */
struct ho_loop {
	bool stop;
	long n;
	int failed;
};

/* Take this process's mmap_lock for writing, over and over */
static void *ho_churn_thread(void *p)
{
	struct ho_loop *c = p;
	size_t len = 64 * getpagesize();
	void *m;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (m != MAP_FAILED)
			munmap(m, len);
		c->n++;
	}
	return NULL;
}

/* True when all @n bits from @words are @want, waiting up to @secs */
static bool ho_all_bits(const __u32 *words, int n, bool want, int secs)
{
	struct timespec start;
	int i = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (i < n) {
		if (ue_bit_set(&words[i / 32], 4, i % 32) == want)
			i++;
		else if (ue_elapsed(&start) <= secs)
			usleep(1000);	/* many checkers may wait: leave the CPU */
		else
			return false;
	}
	return true;
}

/*
 * Toggle @name for HO_CHURN_SECS, ending disabled, then (the churn of @c, if any, stopped)
 * enable and disable it: all @n bits at @words reach each final state within @secs.  Returns
 * the toggles.
 */
static int ho_toggle_follow(struct __test_metadata *_metadata, const char *name,
			    const __u32 *words, int n, int secs, struct ho_loop *c)
{
	struct timespec start;
	int toggles = 0, ret = 0, on;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ret && (ue_elapsed(&start) < HO_CHURN_SECS || toggles % 2))
		ret = ue_set_enable(UE_SYS, name, toggles++ % 2 == 0);
	if (c)
		__atomic_store_n(&c->stop, true, __ATOMIC_RELAXED);
	ASSERT_EQ(0, ret);
	ASSERT_GT(toggles, 1);
	EXPECT_TRUE(ho_all_bits(words, n, false, secs));
	for (on = 1; on >= 0; on--) {
		ASSERT_EQ(0, ue_set_enable(UE_SYS, name, on));
		EXPECT_TRUE(ho_all_bits(words, n, on, secs));
	}
	return toggles;
}

/* Register @n enablers of @cmd: bit i % 32 of word i / 32 (@spread: bit 0 of word 4 * i) */
static int ho_reg_n(int fd, const char *cmd, __u32 *words, int n, bool spread)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = ue_reg(fd, cmd, &words[spread ? 4 * i : i / 32], 4, spread ? 0 : i % 32, 0,
			     NULL);
	return ret;
}

/*
 * While another thread keeps the registrant's mmap_lock busy, tracers toggle its event many
 * times: once it stops, the bit ends in the latest state (the kernel's worker, which only
 * tries that lock, finishes the updates it could not make meanwhile).
 */
TEST_F(nostall, bit_converges_under_mmap_churn)
{
	__u32 *word = ue_map_page(PROT_READ | PROT_WRITE);
	struct ho_loop c = { 0 };
	pthread_t th;
	int toggles;

	ASSERT_TRUE(ue_nonnull(word));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_ho_churn u32 a", word, 4, 0, NULL));
	ue_track_del(&self->t, "uet_ho_churn");
	ASSERT_EQ(0, pthread_create(&th, NULL, ho_churn_thread, &c));
	toggles = ho_toggle_follow(_metadata, "uet_ho_churn", word, 1, UE_WAIT_SECS, &c);
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	EXPECT_GT(c.n, 0);
	TH_LOG("%d toggles against %ld mmap/munmap in %d s", toggles, c.n, HO_CHURN_SECS);
}

/*
 * A toggle writes the first enablers of an event itself and leaves the others to a worker,
 * so that no registrant makes tracers wait; every bit still ends in the latest state.
 */
TEST_F_TIMEOUT(nostall, many_enablers_all_follow, 240)
{
	__u32 *words = ue_map_page(PROT_READ | PROT_WRITE);
	int fd = ue_open_data(), toggles;

	ASSERT_TRUE(ue_nonnull(words));
	ASSERT_LE(0, fd);
	ASSERT_LE(HO_MANY / 8, getpagesize());
	ASSERT_EQ(0, ho_reg_n(fd, "uet_ho_many u32 a", words, HO_MANY, false));
	ue_track_del(&self->t, "uet_ho_many");
	toggles = ho_toggle_follow(_metadata, "uet_ho_many", words, HO_MANY, 60, NULL);
	TH_LOG("%d toggles of an event with %d enablers", toggles, HO_MANY);
	close(fd);
}

/* A userfaultfd, or -1 (made while privileged, armed later) */
static int ho_uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC);

	if (fd >= 0 && ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Make @page missing, its faults handed to @fd that nobody reads: they wait for its close */
static int ho_uffd_arm(int fd, void *page)
{
	struct uffdio_register reg = {
		.range = { (unsigned long)page, getpagesize() },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	return fd < 0 || madvise(page, getpagesize(), MADV_DONTNEED) ||
	       ioctl(fd, UFFDIO_REGISTER, &reg) ? -1 : 0;
}

/*
 * Enable words on a page that never faults in (a userfaultfd nobody serves) do not hold up
 * the fault workers: another process's bit, on a page that needs a fault, follows its tracer.
 */
TEST_F_TIMEOUT(nostall, stuck_faults_stall_only_their_owner, 120)
{
	__u32 *other = ue_map_page(PROT_READ | PROT_WRITE);
	int ready[2], hold[2], status;
	char c = 0;
	pid_t pid;

	ASSERT_TRUE(ue_nonnull(other));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		__u32 *words = ue_map_page(PROT_READ | PROT_WRITE);
		int fd = ue_open_data();

		close(hold[1]);
		if (!words || fd < 0 ||
		    ho_reg_n(fd, "uet_ho_stuck u32 a", words, HO_UFFD_WORDS, true))
			_exit(2);
		c = ho_uffd_arm(ho_uffd_open(), words) < 0;
		if (write(ready[1], &c, 1) != 1 || c)
			_exit(3);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);	/* closes the userfaultfd: faults give up */
	}
	close(hold[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the stuck process failed to set up");
	if (c) {
		close(hold[1]);
		waitpid(pid, &status, 0);
		SKIP(return, "no userfaultfd");
	}
	ue_track_del(&self->t, "uet_ho_stuck");
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_ho_free u32 a", other, 4, 0, NULL));
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
}

/*
 * tracers_not_stalled: the hostile user (nobody) runs UE_HOSTILE_PROCS processes holding
 * UE_HOSTILE_ENABLERS registrations of HO_LOAD each and forking children that exit at once,
 * one that keeps its mmap_lock busy, one whose enable page sits behind a userfaultfd nobody
 * serves, one forking children that watch a MADV_WIPEONFORK word, a FUSE holder (its word on
 * a dropped page of a file whose daemon answers no more reads, ho_fuse_hold()) and one
 * process after another that owns a vhost-net device and exits holding its registration; a
 * root thread toggles HO_LOAD (without /dev/fuse or /dev/vhost-net that holder is left out).
 * For UE_HOSTILE_SECS a real-time tracer toggles another event, opens and closes a perf
 * tracepoint and creates and deletes a probe event, each taking event_mutex.  Checked: every
 * operation succeeds, wiped words stay zero and, once the forking stops, every hostile bit
 * follows.  The longest wait of each operation is printed ("# V hostile_... NS", for make
 * bench under -icount; not judged here: it would measure the host).
 */
struct ho_ctl {		/* shared by every process, __atomic accesses */
	int procs, n;	/* forkers and their registrations */
	int ready;	/* hostile processes set up */
	int go;		/* all are: start forking */
	int stop;	/* stop forking and churning */
	int phase;	/* 1: check the bits are set, 2: clear */
	int checked[3];	/* processes done with phase n */
	int wrong;	/* bits not right, wiped words written */
	int no_vhost;	/* no /dev/vhost-net: no vhost owners */
	long forks;	/* children forked by hostile processes */
	long vhosts;	/* vhost owners that exited holding a registration */
	char fuse[PATH_MAX];	/* the FUSE holder's file; empty: no FUSE */
};

static int ho_get(int *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void ho_add(int *v)
{
	__atomic_add_fetch(v, 1, __ATOMIC_RELEASE);
}

/* Wait up to @secs for *@v to reach @want; false if not, or if one of the @n @pids ended */
static bool ho_wait_for(int *v, int want, int secs, const pid_t *pids, int n)
{
	struct timespec start;
	int i, status;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ho_get(v) < want) {
		for (i = 0; i < n; i++)
			if (waitpid(pids[i], &status, WNOHANG))
				return false;
		if (ue_elapsed(&start) > secs)
			return false;
		usleep(10000);
	}
	return true;
}

/*
 * A FUSE holder: register @cmd as the hostile user on a private copy of the first page of the
 * FUSE file @path, count itself in *@ready and wait for *@drop.  Then drop the copy and the
 * page cache, so that the next write to the word reads the file, from a daemon that by then
 * answers no reads, and keep this process's mmap_lock busy from a thread, so that a tracer's
 * toggle cannot write the word at once and leaves it to the kernel's fault work, whose fault
 * waits for the daemon.  Returns with the thread running; exits on failure.
 */
static void ho_fuse_hold(const char *path, const char *cmd, int *ready, int *drop)
{
	int ffd = open(path, O_RDONLY | O_CLOEXEC), fd = ue_open_data();
	static struct ho_loop c;	/* the churn of this process, until it ends */
	size_t ps = getpagesize();
	pthread_t th;
	__u32 *word;

	if (ffd < 0 || fd < 0)
		_exit(2);
	word = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE, ffd, 0);
	if (word == MAP_FAILED)
		_exit(3);
	*word = 0;	/* a private copy: the kernel's bit writes land there */
	if (setresgid(HO_UID, HO_UID, HO_UID) || setresuid(HO_UID, HO_UID, HO_UID))
		_exit(10);
	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* after the uid change, which clears it */
	if (ue_reg(fd, cmd, word, 4, 0, 0, NULL))
		_exit(4);
	ho_add(ready);
	ho_wait_for(drop, 1, INT_MAX, NULL, 0);
	/* the next fault of the word reads the file, from a daemon that never answers */
	if (madvise(word, ps, MADV_DONTNEED) || posix_fadvise(ffd, 0, 0, POSIX_FADV_DONTNEED))
		_exit(5);
	if (pthread_create(&th, NULL, ho_churn_thread, &c))
		_exit(6);
}

/* Map @len bytes (madvise @advice), then as the hostile user register @n enablers there */
static __u32 *ho_hostile(size_t len, int advice, int n, bool spread)
{
	__u32 *words = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = ue_open_data();

	if (words == MAP_FAILED || fd < 0 || (advice && madvise(words, len, advice)))
		_exit(2);
	if (setresgid(HO_UID, HO_UID, HO_UID) || setresuid(HO_UID, HO_UID, HO_UID))
		_exit(10);
	if (ho_reg_n(fd, HO_LOAD " u32 a", words, n, spread))
		_exit(3);
	return words;
}

/* After the stop: check @n bits at @words in both phases, as told */
static void ho_check_phases(struct ho_ctl *ctl, const __u32 *words, int n)
{
	int phase;

	for (phase = 1; phase <= 2; phase++) {
		ho_wait_for(&ctl->phase, phase, INT_MAX, NULL, 0);
		if (!ho_all_bits(words, n, phase == 1, HO_SECS))
			ho_add(&ctl->wrong);
		ho_add(&ctl->checked[phase]);
	}
}

/* Ready; from the go to the stop fork children that exit at once (counted) or watch @wiped */
static void ho_fork_loop(struct ho_ctl *ctl, const __u32 *wiped)
{
	int status;
	pid_t pid;

	ho_add(&ctl->ready);
	ho_wait_for(&ctl->go, 1, INT_MAX, NULL, 0);
	while (!ho_get(&ctl->stop)) {
		pid = fork();
		if (!pid && wiped)
			usleep(2000);	/* the tracer toggles meanwhile */
		if (!pid)
			_exit(wiped && __atomic_load_n(wiped, __ATOMIC_RELAXED));
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			usleep(1000);
		else if (wiped && status)
			ho_add(&ctl->wrong);
		else if (!wiped)
			__atomic_add_fetch(&ctl->forks, 1, __ATOMIC_RELAXED);
	}
}

/* ctl->procs forking processes with ctl->n registrations each; the first one reaps them */
static void ho_forkers(struct ho_ctl *ctl)
{
	int n = ctl->n, i, status, ret = 0;
	size_t len = (n / 8 + getpagesize()) & ~(size_t)(getpagesize() - 1);
	__u32 *words = ho_hostile(len, 0, n, false);
	pid_t pid = 1;

	for (i = 1; i < ctl->procs && pid > 0; i++)
		pid = fork();
	if (pid < 0)
		_exit(4);
	ho_fork_loop(ctl, NULL);
	ho_check_phases(ctl, words, n);
	if (!pid)
		_exit(0);
	while (waitpid(-1, &status, 0) > 0)
		ret |= status;
	_exit(ret ? 5 : 0);
}

/* A process that keeps its own mmap_lock busy */
static void ho_churner(struct ho_ctl *ctl)
{
	__u32 *word = ho_hostile(getpagesize(), 0, 1, false);
	struct ho_loop c = { 0 };
	pthread_t th;

	if (pthread_create(&th, NULL, ho_churn_thread, &c))
		_exit(3);
	ho_add(&ctl->ready);
	ho_wait_for(&ctl->stop, 1, INT_MAX, NULL, 0);
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ho_check_phases(ctl, word, 1);
	_exit(0);
}

/* A process whose enable words never fault in, until it exits */
static void ho_stuck(struct ho_ctl *ctl)
{
	int uffd = ho_uffd_open();	/* while privileged */
	__u32 *words = ho_hostile(getpagesize(), 0, HO_UFFD_WORDS, true);

	if (ho_uffd_arm(uffd, words))
		_exit(4);
	ho_add(&ctl->ready);
	ho_wait_for(&ctl->stop, 1, INT_MAX, NULL, 0);
	_exit(0);
}

/* A registration on a MADV_WIPEONFORK page: children see zeroes only */
static void ho_wiper(struct ho_ctl *ctl)
{
	__u32 *word = ho_hostile(getpagesize(), MADV_WIPEONFORK, 1, false);

	ho_fork_loop(ctl, word);
	ho_check_phases(ctl, word, 1);
	_exit(0);
}

/* A FUSE holder (ho_fuse_hold()) from the go, when the daemon holds reads, to the stop */
static void ho_fuse_holder(struct ho_ctl *ctl)
{
	if (ctl->fuse[0])
		ho_fuse_hold(ctl->fuse, HO_LOAD " u32 a", &ctl->ready, &ctl->go);
	else
		ho_add(&ctl->ready);
	ho_wait_for(&ctl->stop, 1, INT_MAX, NULL, 0);
	_exit(0);
}

/* One hostile vhost owner after another (ue_vhost_round()) from the go to the stop */
static void ho_vhoster(struct ho_ctl *ctl)
{
	int status = ue_vhost_round(HO_LOAD " u32 a", HO_UID);

	if (WIFEXITED(status) && WEXITSTATUS(status) == UE_NO_VHOST)
		ho_add(&ctl->no_vhost);
	else if (status)
		_exit(2);
	ho_add(&ctl->ready);
	ho_wait_for(&ctl->go, 1, INT_MAX, NULL, 0);
	while (!ho_get(&ctl->no_vhost) && !ho_get(&ctl->stop)) {
		if (ue_vhost_round(HO_LOAD " u32 a", HO_UID))
			_exit(3);
		__atomic_add_fetch(&ctl->vhosts, 1, __ATOMIC_RELAXED);
	}
	ho_wait_for(&ctl->stop, 1, INT_MAX, NULL, 0);
	_exit(0);
}

/* The hostile processes, each role in a process of its own (the forkers in procs) */
static void (*const ho_roles[])(struct ho_ctl *ctl) = {
	ho_churner, ho_stuck, ho_wiper, ho_fuse_holder, ho_vhoster, ho_forkers,
};

#define HO_ROLES	((int)ARRAY_SIZE(ho_roles))

/*
 * Toggle the hostile processes' event until told to stop, a toggle per millisecond, at
 * real-time priority like the tracer: a toggle holding event_mutex must not wait for the CPU
 * behind the hostile processes (no mutex lends its waiter's priority).
 */
static void *ho_toggle_thread(void *p)
{
	struct ho_loop *tg = p;

	ue_rt(true);
	while (!__atomic_load_n(&tg->stop, __ATOMIC_RELAXED)) {
		tg->failed += !!ue_set_enable(UE_SYS, HO_LOAD, !(tg->n++ % 2));
		usleep(1000);
	}
	return NULL;
}

enum { HO_OP_TOGGLE, HO_OP_PERF, HO_OP_PROBE, HO_OPS };

static const char * const ho_op_name[HO_OPS] = { "toggle", "perf", "probe" };

/* The tracer's operations: how many, how many failed, the longest (ns) */
struct ho_lat {
	struct timespec start;	/* end of the previous operation */
	long long max[HO_OPS];
	long nr[HO_OPS];
	int failed[HO_OPS];
};

/* An operation @op that returned @ret has just ended */
static void ho_lap(struct ho_lat *l, int op, int ret)
{
	long long ns = ue_elapsed(&l->start) * 1e9;

	clock_gettime(CLOCK_MONOTONIC, &l->start);
	if (ns > l->max[op])
		l->max[op] = ns;
	l->nr[op]++;
	l->failed[op] += ret < 0;
}

/*
 * The probe event the tracer creates: a kprobe where the kernel has kprobe events, else a
 * uprobe on this program (the same locks; never enabled, so the offset is not used).
 */
static int ho_probe_cmd(char *path, size_t plen, char *cmd, size_t clen)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (!access(ue_tpath(path, plen, "kprobe_events"), W_OK)) {
		snprintf(cmd, clen, "p:%s vfs_read", HO_PROBE);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0 || access(ue_tpath(path, plen, "uprobe_events"), W_OK))
		return -1;
	exe[n] = '\0';
	snprintf(cmd, clen, "p:%s %s:0x0", HO_PROBE, exe);
	return 0;
}

/* The tracer's rounds for @secs; at real-time priority when it may. */
static void ho_trace(struct ho_lat *l, int id, int secs)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64];
	struct timespec start;
	int probe = !ho_probe_cmd(path, sizeof(path), cmd, sizeof(cmd));
	int fd;

	ue_rt(true);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_elapsed(&start) < secs) {
		clock_gettime(CLOCK_MONOTONIC, &l->start);
		ho_lap(l, HO_OP_TOGGLE, ue_set_enable(UE_SYS, HO_QUIET, true));
		ho_lap(l, HO_OP_TOGGLE, ue_set_enable(UE_SYS, HO_QUIET, false));
		fd = ue_perf_open(id, false);
		ho_lap(l, HO_OP_PERF, fd);
		if (fd >= 0)
			close(fd);
		ho_lap(l, HO_OP_PERF, 0);
		if (probe) {
			ho_lap(l, HO_OP_PROBE, ue_write_str(path, cmd, O_APPEND));
			ho_lap(l, HO_OP_PROBE, ue_write_str(path, "-:" HO_PROBE, O_APPEND));
		}
		usleep(10000);	/* between rounds */
	}
	ue_rt(false);
}

/* Raise the per-user limit to @need if lower, keeping the old value. */
static void ho_user_max(struct __test_metadata *_metadata, char *saved, size_t len, long need)
{
	char *text = ue_read_all(UE_USER_MAX_PATH), val[32];

	if (text && atol(text) < need) {	/* NULL: no such limit */
		snprintf(saved, len, "%s", text);
		snprintf(val, sizeof(val), "%ld", need);
		ASSERT_EQ(0, ue_write_str(UE_USER_MAX_PATH, val, 0));
	}
	free(text);
}

TEST_F_TIMEOUT(nostall, tracers_not_stalled, 600)
{
	int procs = ue_env("UE_HOSTILE_PROCS", 4, 1, 256);
	int n = ue_env("UE_HOSTILE_ENABLERS", 4096, 1, 65536);
	int secs = ue_env("UE_HOSTILE_SECS", 3, 1, 3600);
	int checkers = procs + 2, status, op, i, held = 0, ret;
	struct ho_loop tg = { 0 };
	__u32 *quiet = ue_map_page(PROT_READ | PROT_WRITE);
	struct ho_ctl *ctl;
	struct ho_lat l = { 0 };
	struct timespec start;
	pid_t pids[HO_ROLES];
	pthread_t th;

	ASSERT_TRUE(ue_nonnull(quiet));
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ctl != MAP_FAILED);
	ctl->procs = procs;
	ctl->n = n;
	/* the forkers' children hold copies until they exit */
	ho_user_max(_metadata, self->user_max, sizeof(self->user_max), 2L * procs * n + 64);
	ue_track_del(&self->t, HO_LOAD);
	ret = ue_fuse_start(&self->fuse, getpagesize());
	if (ret == -ENODEV)
		TH_LOG("no FUSE (/dev/fuse, CONFIG_FUSE_FS): no FUSE holder");
	else
		ASSERT_EQ(0, ret) TH_LOG("FUSE mount: %s", strerror(-ret));
	if (!ret)
		snprintf(ctl->fuse, sizeof(ctl->fuse), "%s", self->fuse.file);

	/* before our own registration: the forkers inherit nothing more */
	clock_gettime(CLOCK_MONOTONIC, &start);
	self->hostile = true;	/* the teardown stops what is left */
	for (i = 0; i < HO_ROLES; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			ho_roles[i](ctl);
	}
	ASSERT_TRUE(ho_wait_for(&ctl->ready, procs + HO_ROLES - 1, HO_SECS, pids, HO_ROLES))
		TH_LOG("a hostile process failed");
	TH_LOG("set up: %d processes x %d registrations in %.1f s", procs, n, ue_elapsed(&start));
	if (ho_get(&ctl->no_vhost))
		TH_LOG("no /dev/vhost-net (CONFIG_VHOST_NET): no vhost owners");
	if (ctl->fuse[0])	/* the FUSE holder drops its page at the go */
		ue_fuse_hold_reads(&self->fuse);
	ASSERT_EQ(0, ue_track_reg(&self->t, HO_QUIET " u32 a", quiet, 4, 0, NULL));
	ue_track_del(&self->t, HO_QUIET);
	ho_add(&ctl->go);

	ASSERT_EQ(0, pthread_create(&th, NULL, ho_toggle_thread, &tg));
	ho_trace(&l, ue_event_id(UE_SYS, HO_QUIET), secs);
	/* a loaded machine may not have faulted the FUSE holder's word yet: toggle on (bounded) */
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ctl->fuse[0] && !ue_fuse_held(&self->fuse) && ue_elapsed(&start) < HO_HELD_SECS)
		usleep(10000);
	__atomic_store_n(&tg.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	__atomic_store_n(&ctl->stop, 1, __ATOMIC_RELEASE);
	/* as the stuck process's exit ends its faults: held reads fail */
	held = ue_fuse_held(&self->fuse);
	ue_fuse_stop(&self->fuse);

	/* the forking stopped: every hostile bit follows the tracer */
	for (i = 1; i <= 2; i++) {
		ASSERT_EQ(0, ue_set_enable(UE_SYS, HO_LOAD, i == 1));
		ho_add(&ctl->phase);
		EXPECT_TRUE(ho_wait_for(&ctl->checked[i], checkers, HO_SECS + 10, NULL, 0));
	}
	for (i = 0; i < HO_ROLES; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_EQ(0, status) TH_LOG("hostile process %d: %#x", i, status);
	}
	self->hostile = false;	/* all reaped */
	EXPECT_EQ(0, ho_get(&ctl->wrong));
	EXPECT_EQ(0, tg.failed);
	EXPECT_LT(0, tg.n);
	EXPECT_LT(0, ctl->forks);
	if (ctl->fuse[0])
		EXPECT_LT(0, held) TH_LOG("no fault of the FUSE holder's word read the file");
	if (!ho_get(&ctl->no_vhost))
		EXPECT_LT(0, ctl->vhosts);

	printf("# %d processes x %d registrations, %ld forks, %ld toggles of %s in %d s\n",
	       procs, n, ctl->forks, tg.n, HO_LOAD, secs);
	printf("# holders of registrations: FUSE %s, %d reads held; %ld vhost owners%s\n",
	       ctl->fuse[0] ? "held" : "absent", held, ctl->vhosts,
	       ho_get(&ctl->no_vhost) ? " (no vhost-net)" : "");
	printf("# V hostile_forks %ld\n# V hostile_toggles %ld\n", ctl->forks, tg.n);
	for (op = 0; op < HO_OPS; op++) {
		EXPECT_EQ(0, l.failed[op]) TH_LOG("%s failed", ho_op_name[op]);
		if (!l.nr[op])
			continue;
		printf("# V hostile_%s %lld\n", ho_op_name[op], l.max[op]);
		printf("# %s: %ld operations, the longest %.3f ms\n", ho_op_name[op], l.nr[op],
		       l.max[op] / 1e6);
	}
	munmap(ctl, sizeof(*ctl));
}

/* A hostile process on the FUSE file @path (ho_fuse_hold()); ends only when killed */
static void ho_fuse_hostile(struct ho_fuse_ctl *ctl, const char *path)
{
	ho_fuse_hold(path, "uet_ho_fuse u32 a", &ctl->ready, &ctl->drop);
	ho_add(&ctl->dropped);
	for (;;)
		pause();
}

/* The innocent user: registers its word, drops its page when told, until told to exit */
static void ho_fuse_innocent(struct ho_fuse_ctl *ctl)
{
	__u32 *word = ho_fuse_word(ctl);
	int fd = ue_open_data(), phase;

	if (fd < 0 || setresgid(HO_UID2, HO_UID2, HO_UID2) ||
	    setresuid(HO_UID2, HO_UID2, HO_UID2))
		_exit(2);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (ue_reg(fd, "uet_ho_innocent u32 a", word, 4, 0, 0, NULL))
		_exit(3);
	ho_add(&ctl->ready);
	for (phase = 1; phase < 3; phase++) {
		ho_wait_for(&ctl->phase, phase, INT_MAX, NULL, 0);
		/* the shared page keeps the word: an update must fault it in again */
		if (madvise(word, getpagesize(), MADV_DONTNEED))
			_exit(4);
		ho_add(&ctl->done);
	}
	ho_wait_for(&ctl->phase, phase, INT_MAX, NULL, 0);
	_exit(0);
}

/* In a test: the FUSE daemon, the innocent's page and the events of the FUSE tests */
static bool fuse_setup(struct __test_metadata *_metadata, struct _test_data_nostall *self)
{
	int ret;

	if (ue_skip_reason(UE_ROOT))
		SKIP(return false, "%s", ue_skip_reason(UE_ROOT));
	ue_track_del(&self->t, "uet_ho_fuse");
	ue_track_del(&self->t, "uet_ho_innocent");
	ue_track_del(&self->t, HO_LAUNDER);
	self->ctl = mmap(NULL, 2 * getpagesize(), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(self->ctl != MAP_FAILED);
	ret = ue_fuse_start(&self->fuse, getpagesize());
	if (ret == -ENODEV)
		SKIP(return false, "no FUSE (/dev/fuse, CONFIG_FUSE_FS)");
	ASSERT_EQ(0, ret) TH_LOG("FUSE mount: %s", strerror(-ret));
	return true;
}

/* Enable or disable the innocent's event: its bit follows within HO_FUSE_SECS */
static bool ho_follows(__u32 *word, bool on)
{
	struct timespec start;

	if (ue_set_enable(UE_SYS, "uet_ho_innocent", on))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_bit_set(word, 4, 0) != on && ue_elapsed(&start) < HO_FUSE_SECS)
		usleep(1000);
	return ue_bit_set(word, 4, 0) == on;
}

/*
 * The kernel runs a few fault work items at a time (4): the hostile processes' items block
 * in their FUSE reads for good unless the fault gives up its wait, and the innocent's item
 * then never runs.
 */
TEST_F_TIMEOUT(nostall, held_faults_stall_only_their_owners, 180)
{
	const int n = HO_FUSE_PROCS + 1;
	struct ho_fuse_ctl *ctl;
	struct timespec start;
	int i, on, toggles = 0;

	if (!fuse_setup(_metadata, self))
		return;
	ctl = self->ctl;
	for (i = 0; i < n; i++) {
		self->pids[i] = fork();
		ASSERT_LE(0, self->pids[i]);
		if (!self->pids[i] && i < HO_FUSE_PROCS)
			ho_fuse_hostile(ctl, self->fuse.file);
		if (!self->pids[i])
			ho_fuse_innocent(ctl);
	}
	ASSERT_TRUE(ho_wait_for(&ctl->ready, n, 6 * UE_WAIT_SECS, self->pids, n))
		TH_LOG("a process failed to set up");
	ue_fuse_hold_reads(&self->fuse);
	ho_add(&ctl->drop);
	ASSERT_TRUE(ho_wait_for(&ctl->dropped, HO_FUSE_PROCS, 6 * UE_WAIT_SECS, self->pids, n))
		TH_LOG("a hostile process failed to drop its page");
	/* toggles for a second, ending enabled: the hostile words need faults */
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_elapsed(&start) < 1 || toggles % 2 == 0)
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_ho_fuse", toggles++ % 2 == 0));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_fuse_held(&self->fuse) < 4 && ue_elapsed(&start) < 3)
		usleep(10000);
	TH_LOG("%d toggles, %d reads the daemon never answers", toggles,
	       ue_fuse_held(&self->fuse));
	for (on = 1; on >= 0; on--) {
		ho_add(&ctl->phase);	/* the innocent drops its page */
		ASSERT_TRUE(ho_wait_for(&ctl->done, 2 - on, 6 * UE_WAIT_SECS, self->pids, n));
		EXPECT_TRUE(ho_follows(ho_fuse_word(ctl), on))
			TH_LOG("the innocent's bit did not follow the %s within %d s",
			       on ? "enable" : "disable", HO_FUSE_SECS);
	}
	ho_add(&ctl->phase);
}

/* A tracer's enable in a thread of its own: whether it returned, how, and when */
struct ho_enable {
	int done;	/* __atomic */
	int ret;
	double secs;
};

/* Wait up to UE_WAIT_SECS for @get(@f) to be @want */
static bool ho_fuse_wait(const struct ue_fuse *f, int (*get)(const struct ue_fuse *f), int want)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (get(f) != want && ue_elapsed(&start) < UE_WAIT_SECS)
		usleep(10000);
	return get(f) == want;
}

static void *ho_enable_thread(void *p)
{
	struct ho_enable *e = p;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	e->ret = ue_set_enable(UE_SYS, HO_LAUNDER, true);
	e->secs = ue_elapsed(&start);
	ho_add(&e->done);
	return NULL;
}

/*
 * A tracer never waits for a registrant's folio lock.  The enable word is on a dirty page of a
 * shared writable mapping of the FUSE file when the daemon notifies that the file changed and
 * leaves the write-back of the page unanswered: FUSE's launder holds the page's lock, with the
 * page unmapped, until the daemon answers.  The tracer's enable (under event_mutex) returns at
 * once all the same, and the bit follows once the daemon answers.
 */
TEST_F_TIMEOUT(nostall, launder_never_stalls_tracers, 120)
{
	static struct ho_enable e;	/* the thread may outlive a failed test */
	struct timespec start;
	pthread_t th;
	__u32 *word;
	int fd;

	if (!fuse_setup(_metadata, self))
		return;
	fd = open(self->fuse.file, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	self->map = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_TRUE(self->map != MAP_FAILED);
	word = self->map;
	*word = 0;	/* a dirty page: dropping it writes it back */
	ASSERT_EQ(0, ue_track_reg(&self->t, HO_LAUNDER " u32 a", word, 4, 0, NULL));
	ue_fuse_hold_writes(&self->fuse);
	ASSERT_EQ(0, ue_fuse_inval(&self->fuse));
	/* the notification waits in the launder for the write, the page locked */
	ASSERT_TRUE(ho_fuse_wait(&self->fuse, ue_fuse_held_writes, 1)) TH_LOG("no write held");
	usleep(200 * 1000);
	ASSERT_EQ(1, ue_fuse_inval_state(&self->fuse)) TH_LOG("the invalidation did not wait");

	/* no access to the word until the daemon answers: its fault would wait for the lock */
	ASSERT_EQ(0, pthread_create(&th, NULL, ho_enable_thread, &e));
	ho_wait_for(&e.done, 1, HO_TRACER_SECS, NULL, 0);
	EXPECT_EQ(1, ho_get(&e.done)) TH_LOG("the enable waited for the daemon");
	EXPECT_EQ(1, ue_fuse_inval_state(&self->fuse));	/* the page is still locked */
	ASSERT_EQ(0, ue_fuse_release_writes(&self->fuse));
	clock_gettime(CLOCK_MONOTONIC, &start);
	ASSERT_TRUE(ho_wait_for(&e.done, 1, UE_WAIT_SECS, NULL, 0));
	pthread_join(th, NULL);
	EXPECT_EQ(0, e.ret);
	EXPECT_TRUE(ho_fuse_wait(&self->fuse, ue_fuse_inval_state, 0));

	/* the bit follows the tracer once the daemon answered */
	EXPECT_TRUE(ue_wait_bit(word, 4, 0, true));
	TH_LOG("the enable took %.3f s, the bit followed %.3f s after the daemon answered",
	       e.secs, ue_elapsed(&start));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, HO_LAUNDER, false));
	EXPECT_TRUE(ue_wait_bit(word, 4, 0, false));
	EXPECT_EQ(0, ue_unreg(self->t.fd, word, 0));
}

TEST_HARNESS_MAIN
