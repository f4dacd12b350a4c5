// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, seeded: UE_FUZZ_SEED (default 0x75e5eed), UE_FUZZ_CASES
 * (100000) cases from UE_FUZZ_FIRST (0).  A case draws from (seed, number)
 * only and runs in a batch of FZ_BATCH in a fresh child: a failure replays
 * by running its batch again (printed).  The cases: DIAG_IOCSREG (commands
 * valid, with known defects or mutated; user_reg of any size, flags, enable
 * word, in good, read-only or bad memory), DIAG_IOCSUNREG, write()/writev()
 * (mostly to the targets, events enabled in ftrace and perf), DIAG_IOCSDEL,
 * dynamic_events lines and other file operations.  A result must be success
 * or an error documented for the operation; with no defect success, with one
 * its errno; writes to the targets are predicted from the payload (grammar:
 * Documentation/trace/user_events.rst of 6.12; a duplicate field name is not
 * predicted).  After a batch no event of the fuzzer is left and
 * user_events_status shows the counts of before.
 */
#include "../kselftest_harness.h"
#include "fuzz.h"

__u32 fz_entry, fz_payload_max;
__u64 fz_unmapped;
char *fz_kptr;

struct fz_target fz_targets[] = {
	{ "uet_fz_t0 u8 a; s16 b; u32 c; u64 d", "uet_fz_t0", 0, false, 4,
	  { { FK_SCALAR, 1 }, { FK_SCALAR, 2 }, { FK_SCALAR, 4 }, { FK_SCALAR, 8 } } },
	{ "uet_fz_t1 char[16] s; unsigned char[3] r; struct uet_fz_s st 12",
	  "uet_fz_t1", 0, false, 3, { { FK_ARRAY, 16 }, { FK_ARRAY, 3 }, { FK_STRUCT, 12 } } },
	{ "uet_fz_t2 u32 n; __data_loc char[] s", "uet_fz_t2", 0, true, 2,
	  { { FK_SCALAR, 4 }, { FK_DL, 4, true } } },
	{ "uet_fz_t3 __rel_loc char[] s; __data_loc u8[] b; int x",
	  "uet_fz_t3", 0, false, 3, { { FK_RL, 4, true }, { FK_DL, 4 }, { FK_SCALAR, 4 } } },
	{ "uet_fz_t4", "uet_fz_t4", 0, false, 0, { } },
	/* unsigned char is a char type: c is a string */
	{ "uet_fz_t5 __data_loc char[] a; __rel_loc char[] b; __rel_loc unsigned char[] c",
	  "uet_fz_t5", 0, true, 3, { { FK_DL, 4, true }, { FK_RL, 4, true }, { FK_RL, 4, true } } },
	{ "uet_fz_t7 __rel_loc u32[] a; struct uet_fz_b b 5000", "uet_fz_t7", 0,
	  true, 2, { { FK_RL, 4 }, { FK_STRUCT, 5000 } } },
	{ "uet_fz_t6 u64 x; __data_loc char[] s", "uet_fz_t6", USER_EVENT_REG_MULTI_FORMAT,
	  false, 2, { { FK_SCALAR, 8 }, { FK_DL, 4, true } } },
};

const int fz_ntargets = ARRAY_SIZE(fz_targets);

static bool fz_is_target(const char *name)
{
	int t;

	for (t = 0; t < fz_ntargets; t++)
		if (!strcmp(name, fz_targets[t].name))
			return true;
	return false;
}

static void fz_unreg_all(struct fz_ctx *c)
{
	struct fz_live *l;

	while (c->nlive && !c->sh->failed) {
		l = &c->live[--c->nlive];
		fz_check(c, OP_UNREG, ue_unreg(c->fd_main, (void *)(uintptr_t)l->addr, l->bit),
			 l->maybe ? fz_set_of(fz_enoent) : fz_only(0),
			 "clean up: 0x%llx bit %d", l->addr, l->bit);
	}
}

/* Delete the names that may be persistent events (not live targets) */
static void fz_delete_names(struct fz_ctx *c, bool targets_live)
{
	int i, n = 0, ret;

	for (i = 0; i < c->nnames && !c->sh->failed; i++) {
		bool busy = targets_live && fz_is_target(c->names[i]);

		/* DIAG_IOCSDEL reads FZ_CMD_MAX bytes: longer names go by "-:" */
		if (strlen(c->names[i]) > FZ_CMD_MAX) {
			snprintf(fz_tmp, sizeof(fz_tmp), "-:%s", c->names[i]);
			ret = fz_dyn_write(fz_tmp, strlen(fz_tmp));
		} else {
			ret = ue_del_name(c->names[i]);
		}
		fz_check(c, OP_DEL, ret, fz_set_of(busy ? fz_enoent_ebusy : fz_enoent),
			 "clean up: delete %s", c->names[i]);
		if (busy)	/* a target that became persistent goes later */
			memmove(c->names[n++], c->names[i], FZ_NAME_MAX + 1);
	}
	c->nnames = n;
}

/*
 * The memory of a batch, one mapping: the arena (4 pages), its guard and a
 * PROT_NONE page, a read-only page, 2 pages of enable words, the write
 * buffer (3 pages) and its guard; addresses no write can read from.
 */
static int fz_setup_memory(struct fz_ctx *c)
{
	/* candidates for fz_unmapped: high for 64-bit, low for 32-bit programs */
	static const unsigned long long holes[] = {
		0x3e0000000000ull, 0x3e00000000ull, 0x3e000000ull,
	};
	long page = c->page = getpagesize();
	void *hole;
	int i;

	c->arena = mmap(NULL, 13 * page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c->names = calloc(FZ_NAMES_MAX * 2, FZ_NAME_MAX + 1);
	if (c->arena == MAP_FAILED || !c->names)
		return -ENOMEM;
	c->guard = c->arena + 4 * page;
	c->none = c->guard + page;
	c->ro = c->none + page;
	c->en = c->ro + page;
	c->wbuf = c->en + 2 * page;
	c->wguard = c->wbuf + 3 * page;
	if (mprotect(c->guard, 2 * page, PROT_NONE) || mprotect(c->ro, page, PROT_READ) ||
	    mprotect(c->wguard, page, PROT_NONE))
		return -errno;
	/* beyond a 32-bit program's address space, or the kernel's */
	fz_kptr = sizeof(void *) == 4 ? (char *)(uintptr_t)0xfffff000u :
		  (char *)(uintptr_t)FZ_KERNEL1;
	/* an address nothing is mapped at (and nothing will be) */
	for (i = 0; i < ARRAY_SIZE(holes) && !fz_unmapped; i++) {
		if (holes[i] != (uintptr_t)holes[i])
			continue;	/* beyond a 32-bit pointer */
		hole = mmap((void *)(uintptr_t)holes[i], page, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (hole == (void *)(uintptr_t)holes[i])
			fz_unmapped = holes[i];
		if (hole != MAP_FAILED)
			munmap(hole, page);
	}
	fz_unreg_addrs[3] = fz_unmapped;
	return fz_unmapped ? 0 : -EEXIST;
}

/* The targets: registered, enabled in ftrace, some in perf too */
static int fz_setup(struct fz_ctx *c)
{
	int i, cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN), id, ret = fz_setup_memory(c);
	struct fz_target *t = fz_targets;
	const char *sys;

	ue_tracing_on();
	c->fd_tgt = ue_open_data();
	c->fd_main = ue_open_data();
	c->fd_aux = ue_open_data();
	if (!ret && (c->fd_tgt < 0 || c->fd_main < 0 || c->fd_aux < 0))
		ret = -errno;
	for (i = 0; i < fz_ntargets && !ret; i++, t++) {
		sys = t->flags & USER_EVENT_REG_MULTI_FORMAT ? UE_SYS_MULTI : UE_SYS;
		for (id = t->size = 0; id < t->nf; id++)
			t->size += t->f[id].size;
		snprintf(t->tp, sizeof(t->tp), "%s", t->name);
		ret = ue_reg(c->fd_tgt, t->cmd, c->en + 8 * i, 8, 0, t->flags, &t->idx);
		if (!ret && (t->flags & USER_EVENT_REG_MULTI_FORMAT) &&
		    !ue_multi_versions(t->name, NULL, t->tp, sizeof(t->tp)))
			ret = -ENOENT;
		ret = ret ?: ue_set_enable(sys, t->tp, true);
		id = t->perf ? ue_event_id(sys, t->tp) : 0;
		for (cpu = 0; t->perf && cpu < ncpus && !ret; cpu++) {
			if (c->nperf == ARRAY_SIZE(c->perf_fd))
				return -ENOSPC;
			c->perf_fd[c->nperf] = ue_perf_open_cpu(id, cpu, false);
			if (c->perf_fd[c->nperf++] < 0)
				ret = -errno;
		}
	}
	ret = ret ?: ue_entry_size(UE_SYS, fz_targets[0].tp);
	if (ret < 0)
		return ret;
	fz_entry = ret;
	fz_payload_max = c->page - 24 - fz_entry;
	return (size_t)fz_payload_max + 4136 + 4 > sizeof(fz_tmp) ? -E2BIG : 0;
}

static void fz_teardown(struct fz_ctx *c)
{
	int i;

	while (c->nperf)
		close(c->perf_fd[--c->nperf]);
	for (i = 0; i < fz_ntargets; i++)
		ue_set_enable(fz_targets[i].flags & USER_EVENT_REG_MULTI_FORMAT ?
			      UE_SYS_MULTI : UE_SYS, fz_targets[i].tp, false);
	fz_unreg_all(c);
	for (i = 0; i < fz_ntargets && !c->sh->failed; i++)
		fz_check(c, OP_UNREG, ue_unreg(c->fd_tgt, c->en + 8 * i, 0), fz_only(0),
			 "clean up: target %d", i);
	close(c->fd_tgt);
	close(c->fd_main);
	close(c->fd_aux);
	fz_delete_names(c, false);
}

static void fz_batch(struct fz_shared *sh, __u64 seed, __u64 first,
		     __u64 end, char *baseline)
{
	static fz_case_fn * const cases[] = {
		fz_case_reg, fz_case_unreg, fz_case_write, fz_case_del, fz_case_dyn, fz_case_misc,
	};
	static const int pct[] = { 30, 38, 78, 85, 95, 100 };	/* cumulated */
	struct fz_ctx c = { .sh = sh, .seed = seed, .baseline = baseline };
	int ret = fz_setup(&c), r, k;
	__u64 rs;

	if (ret) {
		snprintf(sh->msg, sizeof(sh->msg), "batch set up failed: %s", strerror(-ret));
		sh->failed = 1;
		_exit(1);
	}
	for (c.ncase = first; c.ncase < end && !sh->failed; c.ncase++, sh->done++) {
		/* the case's own stream: from (seed, case number) only */
		rs = c.ncase;
		rs = seed ^ ue_rand(&rs);
		rs = ue_rand(&rs);
		if (c.nlive >= FZ_LIVE_MAX - 1 || c.nnames >= FZ_NAMES_MAX) {
			/* drop every fuzz registration and persistent event */
			fz_unreg_all(&c);
			close(c.fd_main);
			close(c.fd_aux);
			fz_delete_names(&c, true);
			c.fd_main = ue_open_data();
			c.fd_aux = ue_open_data();
		}
		r = ue_rand_n(&rs, 100);
		for (k = 0; r >= pct[k]; k++)
			;
		cases[k](&c, &rs);
	}
	if (!sh->failed)
		fz_teardown(&c);
	_exit(sh->failed);
}

static void fz_replay(__u64 seed, __u64 first, __u64 end)
{
	ksft_print_msg("replay: UE_FUZZ_SEED=0x%llx UE_FUZZ_FIRST=%llu UE_FUZZ_CASES=%llu\n",
		       seed, first, end - first);
}

FIXTURE(fuzz) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(fuzz)
{
	UE_SETUP(UE_ROOT);
}

FIXTURE_TEARDOWN(fuzz)
{
	UE_TEARDOWN();
}

TEST_F_TIMEOUT(fuzz, seeded, 1800)
{
	__u64 seed = ue_env("UE_FUZZ_SEED", FZ_SEED, 0, LLONG_MAX);
	__u64 cases = ue_env("UE_FUZZ_CASES", FZ_CASES, 0, LLONG_MAX);
	__u64 first = ue_env("UE_FUZZ_FIRST", 0, 0, LLONG_MAX), b, end;
	int active0, busy0, active, busy, status, op, e, n, failed = 0;
	struct fz_shared *sh;
	struct timespec start;
	char left[512], line[1024];
	char *baseline;
	pid_t pid;

	first -= first % FZ_BATCH;
	ksft_print_msg("fuzz: seed 0x%llx, cases %llu..%llu, batches of %d\n",
		       seed, first, first + cases - 1, FZ_BATCH);
	/* delete what an interrupted earlier run may have left */
	ue_leftovers(FZ_PREFIX, true, left, sizeof(left));
	ASSERT_EQ(0, ue_leftovers(FZ_PREFIX, true, left, sizeof(left))) TH_LOG("%s", left);
	ASSERT_TRUE(ue_status_counts(&active0, &busy0));
	baseline = ue_status_read();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (b = first; b < first + cases; b += FZ_BATCH) {
		end = b + FZ_BATCH;
		if (end > first + cases)
			end = first + cases;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			fz_batch(sh, seed, b, end, baseline);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (sh->failed || status) {	/* stop here, the state is unknown */
			ksft_print_msg("fuzz FAILED: %s (status 0x%x)\n", sh->msg, status);
			fz_replay(seed, b, end);
			failed++;
			break;
		}
		/* every event of the batch is gone: report, clean, go on */
		n = ue_leftovers(FZ_PREFIX, true, left, sizeof(left));
		if (ue_status_counts(&active, &busy) && !n && active == active0 && busy == busy0)
			continue;
		ksft_print_msg("fuzz FAILED: Active %d Busy %d (before %d %d), %d left:%s\n",
			       active, busy, active0, busy0, n, left);
		fz_replay(seed, b, end);
		failed++;
	}

	ksft_print_msg("fuzz: %llu cases in %.1f s (seed 0x%llx)\n", sh->done,
		       ue_elapsed(&start), seed);
	ksft_print_msg("fuzz: %llu predicted exactly, %llu events created\n",
		       sh->predicted, sh->created);
	for (op = 0; op < OP_NR; op++) {
		n = snprintf(line, sizeof(line), "%s: ok %llu", fz_op_name[op], sh->hist[op][0]);
		for (e = 1; e <= FZ_ERRNO_MAX; e++)
			if (sh->hist[op][e])
				n += snprintf(line + n, sizeof(line) - n, " %s %llu",
					      e < FZ_ERRNO_MAX ? fz_errname(e) : "other",
					      sh->hist[op][e]);
		ksft_print_msg("fuzz: %s\n", line);
	}
	EXPECT_EQ(0, failed);
	EXPECT_EQ(cases, sh->done);
	free(baseline);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
