// SPDX-License-Identifier: GPL-2.0
/*
 * user_events regression tests, one per bug fixed upstream since 5.18 (the comment names the
 * fix); some bugs show only as a splat on the debug kernel (KASAN, lockdep, kmemleak).
 */
#include "ue_util.h"
#include <pthread.h>
#include "../kselftest_harness.h"

#define RG_SECS		5.0	/* budget of the repeated cases; at least one round */
#define RG_ROUNDS	100	/* ... and at most this many rounds, whichever ends first */

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

/* Upstream 6.4 "Ensure bit is cleared on unregister": DIAG_IOCSUNREG left it set */
TEST_F(regress, unregister_clears_bit)
{
	__u32 *word = (__u32 *)self->page;
	int fd = ue_open_data();

	ASSERT_LE(0, fd);
	/* persistent: stays enabled when its last user goes */
	ue_track_del(&self->t, "uet_rg_clear");
	ASSERT_EQ(0, ue_reg(fd, "uet_rg_clear u32 a", word, 4, 9, USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_clear"));
	ASSERT_TRUE(ue_wait_bit(word, 4, 9, true));
	word[0] |= 0x5;		/* bits the program owns */
	ASSERT_EQ(0, ue_unreg(fd, word, 9));
	EXPECT_EQ(0x5, __atomic_load_n(word, __ATOMIC_ACQUIRE));
	close(fd);
}

/* Upstream 6.4 bounds enable-word fault-ins: an unwritable word is not retried forever */
TEST_F_TIMEOUT(regress, fault_retries_bounded, 120)
{
	static const int prot[] = { PROT_READ, PROT_READ, PROT_NONE, PROT_NONE };
	static const char ev[] = "uet_rg_nofault";
	int i, j, ps = getpagesize();
	char *page = self->page, line[256];
	__u32 idx, val;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_nofault u32 a", page, 4, 0, &idx));
	for (i = 0; i < ARRAY_SIZE(prot); i++) {
		memset(page, 0, ps);
		if (i & 1)	/* not even present */
			ASSERT_EQ(0, madvise(page, ps, MADV_DONTNEED));
		ASSERT_EQ(0, mprotect(page, ps, prot[i]));
		for (j = 0; j < 20; j++) {
			ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, true));
			ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, false));
		}
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, ev));
		EXPECT_TRUE(ue_status_line(ev, line, sizeof(line)) && strstr(line, "ftrace"));
		ASSERT_EQ(0, ue_trace_clear());
		val = i;
		EXPECT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
		EXPECT_EQ(1, ue_trace_count(ev, NULL, 0));
		if (prot[i] == PROT_READ)	/* no forced write */
			EXPECT_FALSE(ue_bit_set(page, 4, 0));
		/* writable again: the next change reaches the word */
		ASSERT_EQ(0, mprotect(page, ps, PROT_READ | PROT_WRITE));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, false));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, true));
		EXPECT_TRUE(ue_wait_bit(page, 4, 0, true));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, ev, false));
		EXPECT_TRUE(ue_wait_bit(page, 4, 0, false));
	}
}

/* Upstream 6.4 "Remove RCU lock while pinning pages": each change pins and faults in */
TEST_F_TIMEOUT(regress, page_pin_not_in_rcu, 120)
{
	int mfd = memfd_create("uet_rg_rcu", MFD_CLOEXEC), i, size = getpagesize();
	struct timespec start;
	__u32 *word;
	char *map;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, size));
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	word = (__u32 *)(map + 128);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_rcu u32 a", word, 4, 4, NULL));
	/* a round is an enable and a disable */
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < 2 * RG_ROUNDS && (i % 2 || !i || ue_elapsed(&start) < RG_SECS); i++) {
		ASSERT_EQ(0, madvise(map, size, MADV_DONTNEED));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_rcu", !(i & 1)));
		ASSERT_TRUE(ue_wait_bit(word, 4, 4, !(i & 1))) TH_LOG("round %d", i / 2);
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

#define RACE_THREADS	3
#define RACE_FORKS	150	/* at most this many forks, within RG_SECS */
#define SLOT_THREADS	4
#define SLOT_EVENTS	48	/* per thread */
#define SLOT_N		(SLOT_THREADS * SLOT_EVENTS)
#define SLOT_SECS	2.0	/* rounds for this long, at least one */

/* A racing thread: registers at bit @bit of the u32 words at @words, on @fd */
struct rg_thread {
	int fd, t, bit, errors, loops;
	const int *stop;
	char *words;
	__u32 idx[SLOT_EVENTS];
};

static void *race_worker(void *arg)
{
	struct rg_thread *w = arg;

	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
		w->errors += ue_reg(w->fd, "uet_rg_race u32 a", w->words, 4, w->bit, 0, NULL) ||
			     ue_unreg(w->fd, w->words, w->bit);
		w->loops++;
	}
	return NULL;
}

/* Stable 6.12.y "... unregister races with fork": fork copied an enabler being freed */
TEST_F_TIMEOUT(regress, unregister_races_fork, 120)
{
	int i, forks, status, stop = 0, bad = 0, loops = 0, errors = 0;
	struct rg_thread w[RACE_THREADS];
	pthread_t th[RACE_THREADS];
	struct timespec start;
	pid_t pid;

	/* one registration stays: the event is enabled throughout */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_race u32 a", self->page + 8, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_rg_race"));
	for (i = 0; i < RACE_THREADS; i++) {
		w[i] = (struct rg_thread){ .fd = self->t.fd, .bit = i, .words = self->page,
					   .stop = &stop };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_worker, &w[i]));
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (forks = 0; forks < RACE_FORKS && (!forks || ue_elapsed(&start) < RG_SECS); forks++) {
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

/* Register thread @t's event uet_rg_sl<t>_<k> at bit @bit of the u32 at @addr */
static int slot_reg(int fd, int t, int k, char *addr, int bit, __u32 *idx)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "uet_rg_sl%d_%d u32 a", t, k);
	return ue_reg(fd, cmd, addr, 4, bit, 0, idx);
}

/* Register all of thread @w->t's events, one to a word; counts the failures */
static void *slot_reg_all(void *arg)
{
	struct rg_thread *w = arg;
	int k;

	for (k = 0; k < SLOT_EVENTS; k++)
		w->errors += !!slot_reg(w->fd, w->t, k, w->words + 4 * k, w->bit, &w->idx[k]);
	return NULL;
}

/* Unregister all of thread @w->t's events */
static void slot_unreg_all(struct __test_metadata *_metadata, struct rg_thread *w)
{
	int k;

	for (k = 0; k < SLOT_EVENTS; k++)
		EXPECT_EQ(0, ue_unreg(w->fd, w->words + 4 * k, w->bit))
			TH_LOG("thread %d event %d bit %d", w->t, k, w->bit);
}

/* One round: threads grow a new file's write-index table at once; no slot lost or shared */
static void slot_round(struct __test_metadata *_metadata, char *page)
{
	struct rg_thread st[SLOT_THREADS];
	bool started[SLOT_THREADS], seen[SLOT_N] = { false };
	int fd = ue_open_data(), t, k;
	pthread_t th[SLOT_THREADS];
	__u32 idx;

	ASSERT_LE(0, fd);
	for (t = 0; t < SLOT_THREADS; t++) {
		st[t] = (struct rg_thread){ .fd = fd, .t = t, .words = page + 4 * SLOT_EVENTS * t };
		started[t] = !pthread_create(&th[t], NULL, slot_reg_all, &st[t]);
		if (!started[t])
			st[t].errors = SLOT_EVENTS;
	}
	for (t = 0; t < SLOT_THREADS; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		EXPECT_EQ(0, st[t].errors);
		for (k = 0; !st[t].errors && k < SLOT_EVENTS; k++) {
			idx = st[t].idx[k];
			EXPECT_TRUE(idx < SLOT_N && !seen[idx])
				TH_LOG("index %u out of range or given twice", idx);
			if (idx < SLOT_N)
				seen[idx] = true;
		}
	}
	/* each event kept its slot: registering the first and last again finds the same */
	for (k = 0; k < 2; k++) {
		t = k ? SLOT_THREADS - 1 : 0;
		EXPECT_EQ(0, slot_reg(fd, t, k * (SLOT_EVENTS - 1), page + 4 * SLOT_N, k, &idx));
		EXPECT_EQ(st[t].idx[k * (SLOT_EVENTS - 1)], idx);
		EXPECT_EQ(0, ue_unreg(fd, page + 4 * SLOT_N, k));
	}
	for (t = 0; t < SLOT_THREADS; t++)
		slot_unreg_all(_metadata, &st[t]);
	close(fd);
}

/*
 * Write-index tables grow outside the lock all files share: a racing registration must not
 * lose its slot.  A registration of their own (bit 1) keeps the events between rounds.
 */
TEST_F_TIMEOUT(regress, slots_grow_concurrently, 60)
{
	struct rg_thread keep[SLOT_THREADS];
	int fd = ue_open_data(), t, rounds = 0;
	struct timespec start;
	char name[64];

	ASSERT_LE(0, fd);
	for (t = 0; t < SLOT_THREADS; t++) {
		keep[t] = (struct rg_thread){ .fd = fd, .t = t, .bit = 1,
					      .words = self->page + 4 * SLOT_EVENTS * t };
		slot_reg_all(&keep[t]);
		ASSERT_EQ(0, keep[t].errors);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		slot_round(_metadata, self->page);
		rounds++;
	} while (_metadata->exit_code == KSFT_PASS && ue_elapsed(&start) < SLOT_SECS);
	TH_LOG("%d rounds in %.1f s", rounds, ue_elapsed(&start));
	for (t = 0; t < SLOT_THREADS; t++)
		slot_unreg_all(_metadata, &keep[t]);
	close(fd);
	ue_leftovers("uet_rg_sl", true, name, sizeof(name));
}

/*
 * Upstream 6.6 "Fix non-spaced field matching": "u32 x;u32 y" did not match "u32 x; u32 y".
 * A field list of a dynamic_events delete splits at white space only, as upstream's does.
 */
TEST_F(regress, non_spaced_fields)
{
	char *pg = self->page, line[256];
	__u32 i1, i2, i3;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp u32 x;u32 y", pg, 4, 0, &i1));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp u32 x; u32 y", pg, 4, 1, &i2));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_nsp  u32 x;u32\t y;", pg, 4, 2, &i3));
	EXPECT_EQ(i1, i2);
	EXPECT_EQ(i1, i3);
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_nsp u32 x ;u32 y", pg, 4, 3, 0, NULL));
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

/* Upstream 6.6 "Fix struct arg size match check": "struct s a 20" matched "struct s a 21" */
TEST_F(regress, struct_size_matching)
{
	char *pg = self->page, line[256];

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_st struct s a 20", pg, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_st struct s a 21", pg, 4, 1, 0, NULL));
	EXPECT_EQ(0, ue_track_reg(&self->t, "uet_rg_st struct s a 20", pg, 4, 2, NULL));
	/* the same when deleting by fields through dynamic_events */
	ue_track_del(&self->t, "uet_rg_std");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_std struct s a 20"));
	EXPECT_NE(0, ue_dyn_cmd("!u:uet_rg_std struct s a 21"));
	EXPECT_TRUE(ue_dyn_line("uet_rg_std", line, sizeof(line)));
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_rg_std struct s a 20"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_std"));
}

/* Upstream 6.6 "Fix the incorrect trace record for empty arguments events" */
/* Upstream 6.4 "Handle matching arguments that is null from dyn_events" */
TEST_F(regress, event_without_fields)
{
	char line[512];
	__u32 idx;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_nof", "uet_rg_nof", 0, &idx));
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

static const char * const order_fields[] = { "first", "second", "third", "fourth" };

/* True when @pre<field>@post of each field first occurs in @text in declaration order */
static bool in_order(const char *text, const char *pre, const char *post)
{
	const char *prev = NULL, *p;
	char key[64];
	int i;

	for (i = 0; text && i < ARRAY_SIZE(order_fields); i++) {
		snprintf(key, sizeof(key), "%s%s%s", pre, order_fields[i], post);
		p = strstr(text, key);
		if (!p || p <= prev)
			return false;
		prev = p;
	}
	return text;
}

/* Upstream "Fix the order of fields in the print format": they were listed backwards */
TEST_F(regress, field_order)
{
	/* u32 11, u64 22, u16 33, u8 44, little endian, no padding */
	static const __u8 rec[15] = { 11, 0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 0, 33, 0, 44 };
	char line[1024], *fmt;
	int i, off, prev = -1;
	__u32 idx;

	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_order u32 first; u64 second; "
				    "u16 third; u8 fourth", "uet_rg_order", 0, &idx));
	fmt = ue_format_read(UE_SYS, "uet_rg_order");
	ASSERT_TRUE(ue_nonnull(fmt));
	EXPECT_TRUE(in_order(fmt, " ", ";")) TH_LOG("%s", fmt);
	EXPECT_TRUE(in_order(strstr(fmt, "print fmt:"), "", "=")) TH_LOG("%s", fmt);
	free(fmt);
	for (i = 0; i < ARRAY_SIZE(order_fields); i++) {
		off = ue_field_offset(UE_SYS, "uet_rg_order", order_fields[i]);
		EXPECT_GT(off, prev);
		prev = off;
	}
	ASSERT_EQ(sizeof(rec) + 4, ue_emit(self->t.fd, idx, rec, sizeof(rec)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_order", line, sizeof(line)));
	EXPECT_TRUE(in_order(line, " ", "=")) TH_LOG("%s", line);
}

/* Upstream 6.6 "Prevent same name but different args event": the 1st format decoded both */
TEST_F(regress, same_name_other_fields)
{
	int fd = ue_open_data();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_rg_same u32 first", self->page, 4, 0, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_rg_same u64 second", self->page, 4, 1,
				      0, NULL));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_rg_same"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_same", " first;"));
	EXPECT_FALSE(ue_format_has(UE_SYS, "uet_rg_same", " second;"));
	/* once the first is gone, the second gets its own format */
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	close(fd);
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_same u64 second", self->page, 4, 1, NULL));
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_rg_same"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_same", "u64 second;"));
	EXPECT_FALSE(ue_format_has(UE_SYS, "uet_rg_same", " first;"));
}

/* Upstream 6.4 freed the fields before a delete that failed: use the event after each */
TEST_F(regress, fields_kept_when_delete_fails)
{
	static const char * const dels[] = {
		"-:uet_rg_keep", "!u:uet_rg_keep u32 a; char[8] s", "-:user_events/uet_rg_keep",
	};
	struct {
		__u32 a;
		char s[8];
	} rec = { 0xabc, "keep" };	/* 12 bytes, no padding */
	char line[512];
	__u32 idx;
	int i;

	ue_track_del(&self->t, "uet_rg_keep");
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_rg_keep u32 a; char[8] s"));
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_keep u32 a; char[8] s",
				    "uet_rg_keep", 0, &idx));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_rg_keep"));
	for (i = 0; i < ARRAY_SIZE(dels); i++)
		EXPECT_EQ(-EBUSY, ue_dyn_cmd(dels[i])) TH_LOG("%s", dels[i]);
	ASSERT_TRUE(ue_event_exists(UE_SYS, "uet_rg_keep"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_keep", " a;"));
	EXPECT_TRUE(ue_format_has(UE_SYS, "uet_rg_keep", " s[8];\toffset:12;\tsize:8;"));
	ASSERT_TRUE(ue_dyn_line("uet_rg_keep", line, sizeof(line)));
	EXPECT_STREQ("u:uet_rg_keep u32 a; char[8] s", line);
	EXPECT_EQ(sizeof(rec) + 4, ue_emit(self->t.fd, idx, &rec, sizeof(rec)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_keep", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " a=0xabc"))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " s=keep"))) TH_LOG("%s", line);
}

/* Upstream 6.1 "Fix memory leak in user_event_create()": each refusal path, for kmemleak */
TEST_F_TIMEOUT(regress, no_leak_on_failed_create, 120)
{
	static const char * const bad[] = {
		/* no field name, unknown type, two spaces, struct sizes, bad types, bad names */
		"uet_rg_leak u32", "uet_rg_leak u33 a", "uet_rg_leak u32  a",
		"uet_rg_leak struct s a 0", "uet_rg_leak struct s a 1073741824",
		"uet_rg_leak char[0] a", "uet_rg_leak __data_loc cpumask_t[] a",
		"uet_rg_leak u32 a; bogus b; u32 c", "uet/rg_leak u32 a", "uet_rg_leak:x u32 a",
	};
	char many[600], *ro, *pg = self->page;
	int i, j, n, fd = self->t.fd;
	struct timespec start;

	/* 80 fields: longer than a command can be */
	n = snprintf(many, sizeof(many), "uet_rg_leak");
	for (i = 0; i < 80; i++)
		n += snprintf(many + n, sizeof(many) - n, " u8 %c%c;", 'a' + i / 26, 'a' + i % 26);
	ASSERT_GT(n, 511);
	ro = ue_map_page(PROT_READ);
	ASSERT_TRUE(ue_nonnull(ro));
	/* keeps "uet_rg_leak_used u32 a" in use for the mismatch path */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_rg_leak_used u32 a", pg, 4, 0, NULL));
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (j = 0; j < RG_ROUNDS && (!j || ue_elapsed(&start) < RG_SECS); j++) {
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			ASSERT_EQ(-EINVAL, ue_reg(fd, bad[i], pg, 4, 1, 0, NULL))
				TH_LOG("%s", bad[i]);
		ASSERT_EQ(-EINVAL, ue_reg(fd, many, pg, 4, 1, 0, NULL));
		/* other fields than the event in use */
		ASSERT_EQ(-EADDRINUSE, ue_reg(fd, "uet_rg_leak_used u64 a", pg, 4, 1, 0, NULL));
		/* parsed, then the enable word is refused */
		ASSERT_EQ(-EFAULT, ue_reg(fd, "uet_rg_leak_ro u32 a", ro, 4, 1, 0, NULL));
		/* (addr, bit) in use: refused before any event lookup */
		ASSERT_EQ(-EADDRINUSE, ue_reg(fd, "uet_rg_leak_new u32 a", pg, 4, 0, 0, NULL));
		ASSERT_EQ(-EINVAL, ue_dyn_cmd("u:uet_rg_leak u32  a"));
		ASSERT_EQ(-EADDRINUSE, ue_dyn_cmd("u:uet_rg_leak_used u64 a"));
	}
	munmap(ro, getpagesize());
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak_ro"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_rg_leak_new"));
}

/* Upstream 6.4 "Ensure user provided strings are safely formatted": '%' shown as written */
TEST_F(regress, user_strings_not_formats)
{
	static const char * const pct_cmds[] = {
		"uet_rg_%s u32 a", "uet_rg_pct%n u32 a", "uet_rg_pct1 u32 a%s",
		"uet_rg_pct2 u32 %n", "uet_rg_pct3 struct %s a 8",
		"uet_rg_pct4 struct s a%p 8", "uet_rg_pct5 __data_loc char[] %s",
	};
	char payload[40] = "%s%s%n", line[1024];
	__u32 idx, loc[2], val = 7;
	int i, base;

	for (i = 0; i < ARRAY_SIZE(pct_cmds); i++)
		EXPECT_EQ(0, ue_track_reg(&self->t, pct_cmds[i], self->page, 4, 1 + i, NULL))
			TH_LOG("%s", pct_cmds[i]);
	EXPECT_EQ(-EINVAL, ue_reg(self->t.fd, "uet_rg_pct6 char[%d] a", self->page, 4, 20, 0,
				  NULL));
	ue_track_del(&self->t, "uet_rg_%n");
	EXPECT_EQ(0, ue_dyn_cmd("u:uet_rg_%n u32 %s%s"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_rg_%n u32 %s%s"));
	/* a name and a field name with conversions, as written */
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_%p%n u32 %s%n", "uet_rg_%p%n",
				    21, &idx));
	ASSERT_EQ(8, ue_emit(self->t.fd, idx, &val, sizeof(val)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_%p%n", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " uet_rg_%p%n: %s%n=0x7 (7)"))) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_rg_%p%n", false));
	/* string payloads with conversions: msg at 0, dyn (data_loc) at 16, rel at 20 */
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_rg_pct char[16] msg; "
				    "__data_loc char[] dyn; __rel_loc char[] rel", "uet_rg_pct",
				    0, &idx));
	base = ue_field_offset(UE_SYS, "uet_rg_pct", "msg");
	ASSERT_GT(base, 0);
	ASSERT_EQ(base + 16, ue_field_offset(UE_SYS, "uet_rg_pct", "dyn"));
	ASSERT_EQ(base + 20, ue_field_offset(UE_SYS, "uet_rg_pct", "rel"));
	loc[0] = DYN_LOC(base + 24, 7);		/* from the entry's start */
	loc[1] = DYN_LOC(31 - 24, 9);		/* from the end of rel */
	memcpy(payload + 16, loc, sizeof(loc));
	memcpy(payload + 24, "%p%x%n", 7);
	memcpy(payload + 31, "%s%d%%%n", 9);
	ASSERT_EQ(sizeof(payload) + 4, ue_emit(self->t.fd, idx, payload, sizeof(payload)));
	ASSERT_EQ(1, ue_trace_count("uet_rg_pct", line, sizeof(line)));
	EXPECT_TRUE(ue_nonnull(strstr(line, " msg=%s%s%n "))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " dyn=%p%x%n "))) TH_LOG("%s", line);
	EXPECT_TRUE(ue_nonnull(strstr(line, " rel=%s%d%%%n"))) TH_LOG("%s", line);
}

TEST_HARNESS_MAIN
