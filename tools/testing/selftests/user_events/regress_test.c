// SPDX-License-Identifier: GPL-2.0
/*
 * user_events regression tests: one test per bug fixed in upstream's
 * user_events (kernel/trace/trace_events_user.c) since it was merged in
 * 5.18.  Each test is written so that it would have failed on the kernel
 * that had the bug; the comment above it names the upstream fix.  Some of
 * them only show the bug as a splat on the debug kernel (KASAN, lockdep,
 * PROVE_RCU, DEBUG_ATOMIC_SLEEP, kmemleak): "make check" boots that kernel
 * too and fails on any splat.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include "../kselftest_harness.h"
#include "ue_util.h"

FIXTURE(regress) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(regress)
{
	UE_SETUP(UE_ROOT | UE_TRACE);
}

FIXTURE_TEARDOWN(regress)
{
	UE_TEARDOWN();
}

/*
 * Upstream fix: "tracing/user_events: Ensure write index cannot be
 * negative" (6.1).  The index was a signed int compared only against the
 * upper bound, so a negative one read before the index array.
 */
TEST_F(regress, negative_write_index)
{
	static const __s32 bad[] = { -1, -2, -4096, INT_MIN };
	__u32 idx, val = 7;
	int i;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page,
				    "uet_rg_neg u32 a", "uet_rg_neg", 0, &idx));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, ue_emit(self->t.fd, (__u32)bad[i], &val,
					   sizeof(val)));
	EXPECT_EQ(0, ue_trace_count("uet_rg_neg", NULL, 0));
	EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	EXPECT_EQ(1, ue_trace_count("uet_rg_neg", NULL, 0));
}

/*
 * Upstream fix: "tracing/user_events: Ensure bit is cleared on unregister"
 * (6.4).  DIAG_IOCSUNREG left the bit of an enabled event set, so the
 * program kept paying for writes that no longer went anywhere.
 */
TEST_F(regress, unregister_clears_bit)
{
	uint32_t *word = (uint32_t *)self->page;
	int fd;

	fd = ue_open_data();
	ASSERT_LE(0, fd);
	/* a persistent event stays enabled when its last user goes */
	ue_track_del(&self->t, "uet_rg_clear");
	ASSERT_EQ(0, ue_reg(fd, "uet_rg_clear u32 a", word, 4, 9,
			    USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_clear"));
	ASSERT_TRUE(ue_wait_bit(word, 4, 9, true));
	word[0] |= 0x5;		/* bits the program owns */

	ASSERT_EQ(0, ue_unreg(fd, word, 9));
	/* cleared by the time the ioctl returns, other bits intact */
	EXPECT_EQ(0x5, __atomic_load_n(word, __ATOMIC_ACQUIRE));
	close(fd);
}

/*
 * Upstream fix: "tracing/user_events: Prevent same address and bit per
 * process" (6.4).  Two registrations of one (address, bit) fought over the
 * bit: disabling one event cleared it while the other was still enabled.
 */
TEST_F(regress, same_address_and_bit)
{
	void *word = self->page + 64;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_dup1 u32 a", word, 4, 2,
				  NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_dup2 u32 a", word, 4,
				      2, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_dup1 u32 a", word, 4,
				      2, 0, NULL));
	/* the refused event was not created */
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_dup2"));
	/* another bit of the same word, or the same bit elsewhere, is fine */
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_dup2 u32 a", word, 4, 3,
				  NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_dup2 u32 a", word + 4, 4,
				  2, NULL));

	/* enabling one event sets only its bits */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_dup2"));
	EXPECT_TRUE(ue_wait_bit(word, 4, 3, true));
	EXPECT_FALSE(ue_bit_set(word, 4, 2));
}

/* True when user_events_status lists @name as used by ftrace. */
static bool status_ftrace(const char *name)
{
	char line[256];

	return ue_status_line(name, line, sizeof(line)) &&
	       strstr(line, "ftrace");
}

/*
 * Upstream bounds the asynchronous fault-in of an enable word
 * (user_event_mm_fault_in() gives up after a few attempts, since the
 * fault-in work of 6.4): a word that can never become writable must not
 * make the kernel retry forever.  The bit update is abandoned, the event,
 * tracing and the rest of the system keep working, and the next state
 * change retries once the page is writable again.
 */
TEST_F_TIMEOUT(regress, fault_retries_bounded, 120)
{
	static const struct {
		int prot;
		bool dontneed;
	} cases[] = {
		{ PROT_READ, false }, { PROT_READ, true },
		{ PROT_NONE, false }, { PROT_NONE, true },
	};
	char *page = self->page;
	__u32 idx, val;
	int i, j;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_nofault u32 a", page, 4, 0,
				  &idx));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(page, 0, getpagesize());
		if (cases[i].dontneed)
			ASSERT_EQ(0, madvise(page, getpagesize(),
					     MADV_DONTNEED));
		ASSERT_EQ(0, mprotect(page, getpagesize(), cases[i].prot));

		/* every state change finds a word it cannot write */
		for (j = 0; j < 20; j++) {
			ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_nofault",
						   true));
			ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_nofault",
						   false));
		}
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS,
					     "uet_rg_nofault"));

		/* the system answers: status, writes and trace work */
		EXPECT_TRUE(status_ftrace("uet_rg_nofault"));
		ASSERT_EQ(0, ue_trace_clear());
		val = i;
		EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
		EXPECT_EQ(1, ue_trace_count("uet_rg_nofault", NULL, 0));

		/* no forced write into the read-only page */
		if (cases[i].prot == PROT_READ)
			EXPECT_FALSE(ue_bit_set(page, 4, 0));

		/* writable again: the next change reaches the word */
		ASSERT_EQ(0, mprotect(page, getpagesize(),
				      PROT_READ | PROT_WRITE));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_nofault", false));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_nofault", true));
		EXPECT_TRUE(ue_wait_bit(page, 4, 0, true));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_nofault", false));
		EXPECT_TRUE(ue_wait_bit(page, 4, 0, false));
	}
}

/*
 * Upstream fix: "tracing/user_events: Remove RCU lock while pinning pages"
 * (6.4).  The enablers were walked under rcu_read_lock() while pinning the
 * enable page, which may sleep.  The page is made not present before every
 * change (MADV_DONTNEED on a shared memfd page keeps its content), so each
 * update takes the pin + fault-in path; the debug kernel (PROVE_RCU,
 * DEBUG_ATOMIC_SLEEP) reports a sleep in an RCU read section.
 */
TEST_F_TIMEOUT(regress, page_pin_not_in_rcu, 120)
{
	int mfd, i, size = getpagesize();
	struct timespec start;
	uint32_t *word;
	char *map;

	mfd = memfd_create("uet_rg_rcu", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, size));
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	word = (uint32_t *)(map + 128);

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_rcu u32 a", word, 4, 4,
				  NULL));
	/* 100 rounds or 5 s, whichever ends first; at least one */
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < 100 && (!i || ue_elapsed(&start) < 5.0); i++) {
		ASSERT_EQ(0, madvise(map, size, MADV_DONTNEED));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_rcu", true));
		ASSERT_TRUE(ue_wait_bit(word, 4, 4, true)) TH_LOG("round %d", i);
		ASSERT_EQ(0, madvise(map, size, MADV_DONTNEED));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_rcu", false));
		ASSERT_TRUE(ue_wait_bit(word, 4, 4, false)) TH_LOG("round %d", i);
	}

	/* unregister of an enabled event with the page not present */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_rcu"));
	ASSERT_TRUE(ue_wait_bit(word, 4, 4, true));
	ASSERT_EQ(0, madvise(map, size, MADV_DONTNEED));
	EXPECT_EQ(0, ue_unreg(self->t.fd, word, 4));
	EXPECT_FALSE(ue_bit_set(word, 4, 4));
	self->t.nregs = 0;

	munmap(map, size);
	close(mfd);
}

/*
 * Guards the use-after-free fixed by "tracing: user_events: ... unregister
 * races with fork" (stable 6.12.y; in the Debian 6.12 base): fork copied
 * the parent's enablers locklessly while another thread's DIAG_IOCSUNREG
 * freed one.  Threads register and unregister in a loop while the main
 * thread forks; KASAN on the debug kernel reports the race.
 */
#define RACE_THREADS	3
#define RACE_FORKS	150	/* at most this many forks ... */
#define RACE_SECS	5.0	/* ... or for this long, whichever ends first */

struct race {
	int fd;
	char *word;
	int stop;
	int errors;
	int loops;
};

struct race_thread {
	struct race *r;
	int bit;
	int loops;
};

static void *race_worker(void *arg)
{
	struct race_thread *rt = arg;
	struct race *r = rt->r;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (ue_reg(r->fd, "uet_rg_race u32 a", r->word, 4, rt->bit, 0,
			   NULL) ||
		    ue_unreg(r->fd, r->word, rt->bit))
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->loops, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&rt->loops, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Bounded by time, not by work: the debug kernel under TCG forks ~5 times
 * a second, the test kernel ~100 times.  The race needs forks while the
 * threads are busy, so every thread must have looped and at least one
 * fork must have happened.
 */
TEST_F_TIMEOUT(regress, unregister_races_fork, 120)
{
	struct race_thread rt[RACE_THREADS];
	pthread_t th[RACE_THREADS];
	struct race r = { 0 };
	int i, forks, status, bad = 0;
	struct timespec start;
	pid_t pid;

	r.fd = self->t.fd;
	r.word = self->page;
	/* one registration that stays, so the event is enabled throughout */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_race u32 a",
				  self->page + 8, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_race"));

	for (i = 0; i < RACE_THREADS; i++) {
		rt[i].r = &r;
		rt[i].bit = i;
		rt[i].loops = 0;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_worker, &rt[i]));
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < RACE_FORKS && ue_elapsed(&start) < RACE_SECS; i++) {
		pid = fork();
		if (pid < 0) {
			TH_LOG("fork: %s", strerror(errno));
			break;
		}
		if (!pid) {
			/* the child's copies are its own: drop them */
			ue_unreg(r.fd, r.word, 0);
			ue_unreg(r.fd, r.word, 1);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
	}
	forks = i;
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < RACE_THREADS; i++)
		pthread_join(th[i], NULL);

	TH_LOG("%d forks in %.1f s, %d register+unregister loops", forks,
	       ue_elapsed(&start), r.loops);
	EXPECT_LE(1, forks);
	for (i = 0; i < RACE_THREADS; i++)
		EXPECT_LE(1, rt[i].loops) TH_LOG("thread %d never looped", i);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, r.errors) TH_LOG("%d of %d loops failed", r.errors,
				      r.loops);
	/* nothing left registered by the threads */
	for (i = 0; i < RACE_THREADS; i++)
		EXPECT_EQ(-ENOENT, ue_unreg(r.fd, r.word, i));
}

#define SLOT_THREADS	4
#define SLOT_EVENTS	48	/* per thread */
#define SLOT_SECS	2.0	/* rounds for this long, at least one */

struct slot_thread {
	int fd, t, errors;
	char *words;
	__u32 idx[SLOT_EVENTS];
};

/* Event @k of thread @t: its command, or with @name its name only. */
static const char *slot_event(char *buf, size_t len, int t, int k, bool name)
{
	snprintf(buf, len, "uet_rg_sl%d_%d%s", t, k, name ? "" : " u32 a");
	return buf;
}

/* Register thread @st->t's events (bit @bit of its words) through @st->fd. */
static int slot_reg_all(struct slot_thread *st, int bit)
{
	char cmd[64];
	int k, errors = 0;

	for (k = 0; k < SLOT_EVENTS; k++)
		errors += !!ue_reg(st->fd,
				   slot_event(cmd, sizeof(cmd), st->t, k, false),
				   st->words + 4 * k, 4, bit, 0, &st->idx[k]);
	return errors;
}

static void *slot_worker(void *arg)
{
	struct slot_thread *st = arg;

	st->errors = slot_reg_all(st, 0);
	return NULL;
}

/*
 * One round: the threads register their events through a new file at
 * once, growing its write-index table under each other; no index may be
 * handed out twice, and each event must keep its slot.
 */
static int slot_round(struct __test_metadata *_metadata, char *page)
{
	struct slot_thread st[SLOT_THREADS];
	pthread_t th[SLOT_THREADS];
	bool started[SLOT_THREADS], seen[SLOT_THREADS * SLOT_EVENTS] = { false };
	char *spare = page + 4 * SLOT_EVENTS * SLOT_THREADS;
	int fd, t, k, bad = 0;
	char cmd[64];
	__u32 again;

	fd = ue_open_data();
	EXPECT_LE(0, fd);
	if (fd < 0)
		return -1;
	for (t = 0; t < SLOT_THREADS; t++) {
		st[t] = (struct slot_thread){ .fd = fd, .t = t };
		st[t].words = page + 4 * SLOT_EVENTS * t;
		started[t] = !pthread_create(&th[t], NULL, slot_worker, &st[t]);
		if (!started[t])
			st[t].errors = SLOT_EVENTS;
	}
	for (t = 0; t < SLOT_THREADS; t++)
		if (started[t])
			pthread_join(th[t], NULL);

	for (t = 0; t < SLOT_THREADS; t++) {
		EXPECT_EQ(0, st[t].errors);
		bad += !!st[t].errors;
		for (k = 0; !st[t].errors && k < SLOT_EVENTS; k++) {
			EXPECT_GT(SLOT_THREADS * SLOT_EVENTS, st[t].idx[k]);
			if (st[t].idx[k] >= SLOT_THREADS * SLOT_EVENTS) {
				bad++;
				continue;
			}
			EXPECT_FALSE(seen[st[t].idx[k]])
				TH_LOG("index %u given twice", st[t].idx[k]);
			bad += seen[st[t].idx[k]];
			seen[st[t].idx[k]] = true;
		}
	}
	/* each event kept its slot: registering it again finds the same */
	slot_event(cmd, sizeof(cmd), 0, 0, false);
	EXPECT_EQ(0, ue_reg(fd, cmd, spare, 4, 0, 0, &again));
	EXPECT_EQ(st[0].idx[0], again);
	bad += again != st[0].idx[0];
	slot_event(cmd, sizeof(cmd), SLOT_THREADS - 1, SLOT_EVENTS - 1, false);
	EXPECT_EQ(0, ue_reg(fd, cmd, spare, 4, 1, 0, &again));
	EXPECT_EQ(st[SLOT_THREADS - 1].idx[SLOT_EVENTS - 1], again);
	bad += again != st[SLOT_THREADS - 1].idx[SLOT_EVENTS - 1];

	EXPECT_EQ(0, ue_unreg(fd, spare, 0));
	EXPECT_EQ(0, ue_unreg(fd, spare, 1));
	for (t = 0; t < SLOT_THREADS; t++)
		for (k = 0; k < SLOT_EVENTS; k++)
			EXPECT_EQ(0, ue_unreg(fd, st[t].words + 4 * k, 0));
	close(fd);
	return bad;
}

/*
 * A larger write-index table is allocated without the lock that every
 * file shares, and a registration that raced must neither lose a slot nor
 * hand one index out twice. Bounded by time: rounds of concurrent growth
 * for SLOT_SECS. The events are kept between rounds by a registration of
 * their own (bit 1 of the same words), so a round costs no event creation.
 */
TEST_F_TIMEOUT(regress, slots_grow_concurrently, 60)
{
	struct slot_thread keep[SLOT_THREADS];
	struct timespec start;
	int fd, t, k, rounds = 0;
	char name[64];

	fd = ue_open_data();
	ASSERT_LE(0, fd);
	for (t = 0; t < SLOT_THREADS; t++) {
		keep[t] = (struct slot_thread){ .fd = fd, .t = t };
		keep[t].words = self->page + 4 * SLOT_EVENTS * t;
		ASSERT_EQ(0, slot_reg_all(&keep[t], 1));
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (slot_round(_metadata, self->page))
			break;
		rounds++;
	} while (ue_elapsed(&start) < SLOT_SECS);
	TH_LOG("%d rounds in %.1f s", rounds, ue_elapsed(&start));
	EXPECT_LE(1, rounds);

	for (t = 0; t < SLOT_THREADS; t++)
		for (k = 0; k < SLOT_EVENTS; k++)
			EXPECT_EQ(0, ue_unreg(fd, keep[t].words + 4 * k, 1));
	close(fd);
	for (t = 0; t < SLOT_THREADS; t++)
		for (k = 0; k < SLOT_EVENTS; k++)
			ue_del_name(slot_event(name, sizeof(name), t, k, true));
}

/*
 * Upstream fix: "tracing/user_events: Align set_bit() address for all
 * archs" (6.6).  A 4-byte enable value at an address that is 4 mod 8 was
 * handed to the long-sized bitops unaligned; the kernel must set the bit
 * in that value and nowhere else.
 */
TEST_F(regress, enable_u32_at_4_mod_8)
{
	static const int bits[] = { 0, 17, 31 };
	uint32_t *w = (uint32_t *)(self->page + 256);	/* 8-aligned */
	uint32_t val;
	int i;

	ASSERT_EQ(0, ((uintptr_t)w) & 7);
	for (i = 0; i < 3; i++) {
		w[0] = 0xa5a5a5a5;
		w[1] = 0;
		w[2] = 0x5a5a5a5a;
		ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_align u32 a",
					  &w[1], 4, bits[i], NULL));
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS,
					     "uet_rg_align"));
		ASSERT_TRUE(ue_wait_bit(&w[1], 4, bits[i], true));
		val = __atomic_load_n(&w[1], __ATOMIC_ACQUIRE);
		EXPECT_EQ(1u << bits[i], val);
		EXPECT_EQ(0xa5a5a5a5, w[0]);
		EXPECT_EQ(0x5a5a5a5a, w[2]);

		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_align", false));
		ASSERT_TRUE(ue_wait_bit(&w[1], 4, bits[i], false));
		EXPECT_EQ(0, w[1]);
		EXPECT_EQ(0xa5a5a5a5, w[0]);
		EXPECT_EQ(0x5a5a5a5a, w[2]);
		ue_track_cleanup(&self->t);
		ASSERT_EQ(0, ue_track_init(&self->t));
	}
}

/*
 * Upstream fix: "tracing/user_events: Fix non-spaced field matching"
 * (6.6).  "a u32 x;u32 y" did not match "a u32 x; u32 y", so the same
 * event could not be registered again.  The match splits the words at
 * white space and after each ';'; a ';' standing alone is a word of its
 * own and matches nothing.  A field list given to a dynamic_events delete
 * is split at white space only, as upstream splits it.
 */
TEST_F(regress, non_spaced_fields)
{
	__u32 i1, i2, i3;
	char line[256];

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp u32 x;u32 y",
				  self->page, 4, 0, &i1));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp u32 x; u32 y",
				  self->page, 4, 1, &i2));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp  u32 x;u32\t y;",
				  self->page, 4, 2, &i3));
	EXPECT_EQ(i1, i2);
	EXPECT_EQ(i1, i3);
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_nsp u32 x ;u32 y",
				      self->page, 4, 3, 0, NULL));

	ue_track_del(&self->t, "uet_rg_nspd");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_nspd u32 x;u32 y"));
	ASSERT_TRUE(ue_dyn_line("uet_rg_nspd", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_nspd u32 x; u32 y", line);
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_nspd u32 x; u32 y"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_nspd"));

	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_nspd u32 x; u32 y"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("!u:uet_rg_nspd u32 x;u32 y"));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_nspd u32 x;\tu32  y"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_nspd"));
}

/*
 * Upstream fix: "tracing/user_events: Fix struct arg size match check"
 * (6.6).  The size of a struct field was not compared, so "struct s a 20"
 * matched "struct s a 21".
 */
TEST_F(regress, struct_size_matching)
{
	char line[256];

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_st struct s a 20",
				  self->page, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_st struct s a 21",
				      self->page, 4, 1, 0, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_st struct s a 20",
				  self->page, 4, 2, NULL));

	/* the same when deleting by fields through dynamic_events */
	ue_track_del(&self->t, "uet_rg_std");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_std struct s a 20"));
	EXPECT_NE(0, ue_dyn_cmd("!u:uet_rg_std struct s a 21"));
	EXPECT_TRUE(ue_dyn_line("uet_rg_std", line, sizeof(line)));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_std struct s a 20"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_std"));
}

/*
 * Upstream fixes: "tracing/user_events: Fix the incorrect trace record for
 * empty arguments events" (6.6) and "tracing/user_events: Handle matching
 * arguments that is null from dyn_events" (6.4).  An event without fields
 * was refused or recorded wrongly, and deleting it through dynamic_events
 * dereferenced a NULL argument list.
 */
TEST_F(regress, event_without_fields)
{
	char line[512];
	__u32 idx;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page,
				    "uet_rg_nof", "uet_rg_nof", 0, &idx));
	EXPECT_EQ(4, ue_emit(self->t.fd, idx, NULL, 0));
	ASSERT_EQ(1, ue_trace_count("uet_rg_nof", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " uet_rg_nof:"))) TH_LOG("%s", line);

	ue_track_del(&self->t, "uet_rg_nofd");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_nofd"));
	ASSERT_TRUE(ue_dyn_line("uet_rg_nofd", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_nofd", line);
	EXPECT_NE(0, ue_dyn_cmd("!u:uet_rg_nofd u32 a"));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_nofd"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_nofd"));
}

/* Offset of @needle in @text, or -1. */
static long pos_of(const char *text, const char *needle)
{
	const char *p = text ? strstr(text, needle) : NULL;

	return p ? p - text : -1;
}

/*
 * Upstream fix: "tracing/user_events: Fix the order of fields in the
 * print format" -- fields were kept on a list in reverse, so the format
 * file and the printed record listed them backwards.  Both must follow
 * the declaration order.
 */
TEST_F(regress, field_order)
{
	static const char * const fields[] = { "first", "second", "third",
					       "fourth" };
	/* u32 11, u64 22, u16 33, u8 44, little endian, no padding */
	static const __u8 rec[15] = { 11, 0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 0,
				      33, 0, 44 };
	char key[64], line[1024], *fmt;
	long last = -1, p;
	int i, off, prev = -1;
	__u32 idx;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page,
				    "uet_rg_order u32 first; u64 second; "
				    "u16 third; u8 fourth", "uet_rg_order", 0,
				    &idx));
	fmt = ue_format_read(UE_SYS, "uet_rg_order");
	ASSERT_TRUE(ue_nonnull(fmt));
	for (i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), " %s;", fields[i]);
		p = pos_of(fmt, key);
		EXPECT_GT(p, last) TH_LOG("%s in:\n%s", key, fmt);
		last = p;
		off = ue_field_offset(UE_SYS, "uet_rg_order", fields[i]);
		EXPECT_GT(off, prev);
		prev = off;
	}
	/* print fmt too */
	p = pos_of(fmt, "print fmt:");
	ASSERT_GT(p, 0);
	last = p;
	for (i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "%s=", fields[i]);
		p = pos_of(fmt + last, key);
		EXPECT_GT(p, 0) TH_LOG("%s in:\n%s", key, fmt);
		last += p > 0 ? p : 0;
	}
	free(fmt);

	ASSERT_EQ(sizeof(rec) + 4, ue_emit(self->t.fd, idx, rec, sizeof(rec)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_order", line, sizeof(line)));
	last = -1;
	for (i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), " %s=", fields[i]);
		p = pos_of(line, key);
		EXPECT_GT(p, last) TH_LOG("%s in: %s", key, line);
		last = p;
	}
}

/*
 * Upstream fix: "tracing/user_events: Prevent same name but different
 * args event" (6.6).  Registering a name that exists with other fields
 * reused the first event, so the second program's payload was decoded
 * with the first program's format.
 */
TEST_F(regress, same_name_other_fields)
{
	char *fmt;
	int fd;

	fd = ue_open_data();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_rg_same u32 first", self->page, 4, 0, 0,
			    NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_same u64 second",
				      self->page, 4, 1, 0, NULL));
	fmt = ue_format_read(UE_SYS, "uet_rg_same");
	ASSERT_TRUE(ue_nonnull(fmt));
	EXPECT_TRUE(ue_nonnull(strstr(fmt, " first;")));
	EXPECT_FALSE(ue_nonnull(strstr(fmt, " second;")));
	free(fmt);

	/* once the first is gone, the second gets its own format */
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	close(fd);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_same u64 second",
				  self->page, 4, 1, NULL));
	fmt = ue_format_read(UE_SYS, "uet_rg_same");
	ASSERT_TRUE(ue_nonnull(fmt));
	EXPECT_TRUE(ue_nonnull(strstr(fmt, "u64 second;"))) TH_LOG("%s", fmt);
	EXPECT_FALSE(ue_nonnull(strstr(fmt, " first;"))) TH_LOG("%s", fmt);
	free(fmt);
}

/*
 * Upstream freed an event's fields before knowing whether its removal
 * would succeed (user_event_destroy(), fixed in 6.4 by freeing them only
 * with the event): a refused delete left a live event without fields.
 * Try every delete path while the event is busy, then use it.
 */
TEST_F(regress, fields_kept_when_delete_fails)
{
	struct {
		__u32 a;
		char s[8];
	} rec = { 0xabc, "keep" };	/* 12 bytes, no padding */
	char line[512], *fmt;
	__u32 idx;

	ue_track_del(&self->t, "uet_rg_keep");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_keep u32 a; char[8] s"));
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page,
				    "uet_rg_keep u32 a; char[8] s", "uet_rg_keep",
				    0, &idx));

	EXPECT_EQ(-EBUSY, ue_del_name("uet_rg_keep"));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:uet_rg_keep"));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("!u:uet_rg_keep u32 a; char[8] s"));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:user_events/uet_rg_keep"));

	fmt = ue_format_read(UE_SYS, "uet_rg_keep");
	ASSERT_TRUE(ue_nonnull(fmt));
	EXPECT_TRUE(ue_nonnull(strstr(fmt, " a;"))) TH_LOG("%s", fmt);
	EXPECT_TRUE(ue_nonnull(strstr(fmt, " s[8];\toffset:12;\tsize:8;"))) TH_LOG("%s", fmt);
	free(fmt);
	ASSERT_TRUE(ue_dyn_line("uet_rg_keep", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_keep u32 a; char[8] s", line);

	EXPECT_EQ(sizeof(rec) + 4, ue_emit(self->t.fd, idx, &rec, sizeof(rec)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_keep", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " a=0xabc"))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " s=keep"))) TH_LOG("%s", line);
}

/*
 * Upstream fix: "tracing/user_events: Fix memory leak in
 * user_event_create()" (6.1): a failed registration leaked the copied
 * name.  Every refusal path is taken many times; kmemleak on the debug
 * kernel reports what is left behind.
 */
TEST_F_TIMEOUT(regress, no_leak_on_failed_create, 120)
{
	static const char * const bad_cmds[] = {
		"uet_rg_leak u32",			/* no field name */
		"uet_rg_leak u33 a",			/* unknown type */
		"uet_rg_leak u32  a",			/* two spaces */
		"uet_rg_leak struct s a 0",		/* struct size */
		"uet_rg_leak struct s a 1073741824",
		"uet_rg_leak char[0] a",
		"uet_rg_leak __data_loc cpumask_t[] a",
		"uet_rg_leak u32 a; bogus b; u32 c",
		"uet/rg_leak u32 a",			/* bad name */
		"uet_rg_leak:x u32 a",
	};
	char many[600], *ro;
	struct timespec start;
	int i, j, n, ret;

	/* 80 fields: longer than a command can be */
	n = snprintf(many, sizeof(many), "uet_rg_leak");
	for (i = 0; i < 80; i++)
		n += snprintf(many + n, sizeof(many) - n, " u8 %c%c;",
			      'a' + i / 26, 'a' + i % 26);
	ASSERT_GT(n, 511);

	ro = ue_map_page(PROT_READ);
	ASSERT_TRUE(ue_nonnull(ro));
	/* keeps "uet_rg_leak_used u32 a" in use for the mismatch path */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_leak_used u32 a",
				  self->page, 4, 0, NULL));

	/* 100 rounds or 5 s, whichever ends first; at least one */
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (j = 0; j < 100 && (!j || ue_elapsed(&start) < 5.0); j++) {
		for (i = 0; i < ARRAY_SIZE(bad_cmds); i++) {
			ret = ue_reg(self->t.fd, bad_cmds[i], self->page, 4, 1,
				     0, NULL);
			ASSERT_EQ(-EINVAL, ret) TH_LOG("%s", bad_cmds[i]);
		}
		ASSERT_EQ(-EINVAL, ue_reg(self->t.fd, many, self->page, 4, 1,
					  0, NULL));
		/* other fields than the event in use */
		ASSERT_EQ(-EADDRINUSE, ue_reg(self->t.fd,
					      "uet_rg_leak_used u64 a",
					      self->page, 4, 1, 0, NULL));
		/* parsed, then the enable word is refused */
		ASSERT_EQ(-EFAULT, ue_reg(self->t.fd, "uet_rg_leak_ro u32 a",
					  ro, 4, 1, 0, NULL));
		/* (addr, bit) in use: refused before any event lookup */
		ASSERT_EQ(-EADDRINUSE, ue_reg(self->t.fd,
					      "uet_rg_leak_new u32 a",
					      self->page, 4, 0, 0, NULL));
		/* the same through dynamic_events */
		ASSERT_EQ(-EINVAL, ue_dyn_cmd("u:uet_rg_leak u32  a"));
		ASSERT_EQ(-EADDRINUSE, ue_dyn_cmd("u:uet_rg_leak_used u64 a"));
	}
	munmap(ro, getpagesize());

	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak_ro"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak_new"));
}

/*
 * Upstream fix: "tracing/user_events: Ensure user provided strings are
 * safely formatted" (6.4).  User supplied names ended up inside format
 * strings.  Names, types and field names holding '%' are accepted, as
 * upstream now does, and shown as they are; so are string payloads
 * holding conversions.
 */
TEST_F(regress, user_strings_not_formats)
{
	static const char * const pct_cmds[] = {
		"uet_rg_%s u32 a",
		"uet_rg_pct%n u32 a",
		"uet_rg_pct1 u32 a%s",
		"uet_rg_pct2 u32 %n",
		"uet_rg_pct3 struct %s a 8",
		"uet_rg_pct4 struct s a%p 8",
		"uet_rg_pct5 __data_loc char[] %s",
	};
	char payload[128], line[1024];
	int i, base, off_d, off_r, end;
	__u32 idx, loc, val = 7;

	for (i = 0; i < ARRAY_SIZE(pct_cmds); i++)
		EXPECT_EQ(0, ue_track_reg(&self->t, pct_cmds[i], self->page, 4,
					  1 + i, NULL)) TH_LOG("%s", pct_cmds[i]);
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_rg_pct6 char[%d] a",
				  self->page, 4, 20, 0, NULL));
	ue_track_del(&self->t, "uet_rg_%n");
	EXPECT_EQ(0, ue_dyn_cmd("u:uet_rg_%n u32 %s%s"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_rg_%n u32 %s%s"));

	/* a name and a field name with conversions, as written */
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page,
				    "uet_rg_%p%n u32 %s%n", "uet_rg_%p%n", 21,
				    &idx));
	ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_%p%n", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " uet_rg_%p%n: %s%n=0x7 (7)")))
		TH_LOG("%s", line);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_%p%n", false));

	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page,
				    "uet_rg_pct char[16] msg; "
				    "__data_loc char[] dyn; __rel_loc char[] rel",
				    "uet_rg_pct", 0, &idx));
	base = ue_field_offset(UE_SYS, "uet_rg_pct", "msg");
	off_d = ue_field_offset(UE_SYS, "uet_rg_pct", "dyn") - base;
	off_r = ue_field_offset(UE_SYS, "uet_rg_pct", "rel") - base;
	ASSERT_GT(base, 0);
	ASSERT_EQ(16, off_d);
	ASSERT_EQ(20, off_r);

	memset(payload, 0, sizeof(payload));
	memcpy(payload, "%s%s%n", 7);
	end = 24;
	loc = DYN_LOC(base + end, 7);
	memcpy(payload + off_d, &loc, sizeof(loc));
	memcpy(payload + end, "%p%x%n", 7);
	end += 7;
	loc = DYN_LOC(end - (off_r + 4), 9);
	memcpy(payload + off_r, &loc, sizeof(loc));
	memcpy(payload + end, "%s%d%%%n", 9);
	end += 9;

	ASSERT_EQ(end + 4, ue_emit(self->t.fd, idx, payload, end));
	ASSERT_EQ(1, ue_trace_count("uet_rg_pct", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " msg=%s%s%n "))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " dyn=%p%x%n "))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " rel=%s%d%%%n"))) TH_LOG("%s", line);
}

TEST_HARNESS_MAIN
