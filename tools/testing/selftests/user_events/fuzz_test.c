// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, seeded: UE_FUZZ_SEED (default 0x75e5eed), UE_FUZZ_CASES
 * (100000) cases from UE_FUZZ_FIRST (0).  A case draws from (seed, number)
 * only and runs in a batch of FZ_BATCH in a fresh child: a failure replays by
 * running its batch again (printed).  Cases: DIAG_IOCSREG, DIAG_IOCSUNREG,
 * write()/writev() (mostly to the targets, enabled in ftrace and perf),
 * DIAG_IOCSDEL, dynamic_events lines, other file operations.  A result must
 * be success or an error documented for the operation; with no defect
 * success, with one its errno (grammar: Documentation/trace/user_events.rst
 * of 6.12).  After a batch no event of the fuzzer is left and
 * user_events_status shows the counts of before.
 */
#include "../kselftest_harness.h"
#include "fuzz.h"

#define FZ_BATCH	5000

__u32 fz_entry, fz_payload_max;
__u64 fz_unmapped;
char *fz_kptr;
char fz_tmp[(1 << 17) + 64];	/* 64 KiB pages included */

/* the targets' dynamic fields, @s: a string */
#define FZ_DL(s)	{ 4, UE_GEN_DATA_LOC, s }
#define FZ_RL(s)	{ 4, UE_GEN_REL_LOC, s }

struct fz_target fz_targets[] = {
	{ "uet_fz_t0 u8 a; s16 b; u32 c; u64 d", 0, false,
	  { { 1 }, { 2 }, { 4 }, { 8 } } },
	{ "uet_fz_t1 char[16] s; unsigned char[3] r; struct uet_fz_s st 12", 0, false,
	  { { 16 }, { 3 }, { 12 } } },
	{ "uet_fz_t2 u32 n; __data_loc char[] s", 0, true, { { 4 }, FZ_DL(true) } },
	{ "uet_fz_t3 __rel_loc char[] s; __data_loc u8[] b; int x", 0, false,
	  { FZ_RL(true), FZ_DL(false), { 4 } } },
	{ "uet_fz_t4" },
	/* unsigned char is a char type: c is a string */
	{ "uet_fz_t5 __data_loc char[] a; __rel_loc char[] b; __rel_loc unsigned char[] c", 0, true,
	  { FZ_DL(true), FZ_RL(true), FZ_RL(true) } },
	{ "uet_fz_t7 __rel_loc u32[] a; struct uet_fz_b b 5000", 0, true,
	  { FZ_RL(false), { 5000 } } },
	{ "uet_fz_t6 u64 x; __data_loc char[] s", USER_EVENT_REG_MULTI_FORMAT, false,
	  { { 8 }, FZ_DL(true) } },
};

const int fz_ntargets = ARRAY_SIZE(fz_targets);

/* Undo every fuzz registration and persistent event; @end: the targets too, else reopen */
static void fz_clean(struct fz_ctx *c, bool end)
{
	static const int ok[] = { 0 }, ok_enoent[] = { ENOENT, 0 };
	static const int ok_enoent_ebusy[] = { EBUSY, ENOENT, 0 };
	struct fz_live *l;
	int i, t, n = 0, ret;
	bool busy;

	for (i = 0; i < fz_ntargets && end; i++)
		ue_set_enable(fz_targets[i].flags & USER_EVENT_REG_MULTI_FORMAT ?
			      UE_SYS_MULTI : UE_SYS, fz_targets[i].tp, false);
	while (c->nlive && !c->sh->failed) {
		l = &c->live[--c->nlive];
		fz_check(c, OP_UNREG, ue_unreg(c->fd_main, (void *)(uintptr_t)l->addr, l->bit),
			 fz_set_of(l->maybe ? ok_enoent : ok), "clean up: 0x%llx bit %d", l->addr,
			 l->bit);
	}
	for (i = 0; i < fz_ntargets && end && !c->sh->failed; i++)
		fz_check(c, OP_UNREG, ue_unreg(c->fd_tgt, c->en + 8 * i, 0), fz_set_of(ok),
			 "clean up: target %d", i);
	close(end ? c->fd_tgt : -1);
	close(c->fd_main);
	close(c->fd_aux);
	for (i = 0; i < c->nnames && !c->sh->failed; i++) {
		for (t = 0, busy = false; t < fz_ntargets && !end; t++)
			busy |= !strcmp(c->names[i], fz_targets[t].name);
		/* DIAG_IOCSDEL reads UE_CMD_MAX bytes: longer names go by "-:" */
		if (strlen(c->names[i]) > UE_CMD_MAX) {
			snprintf(fz_tmp, sizeof(fz_tmp), "-:%s", c->names[i]);
			ret = fz_dyn_write(fz_tmp, strlen(fz_tmp));
		} else {
			ret = ue_del_name(c->names[i]);
		}
		fz_check(c, OP_DEL, ret, fz_set_of(busy ? ok_enoent_ebusy : ok_enoent),
			 "clean up: delete %s", c->names[i]);
		if (busy)	/* a target that became persistent goes at the end */
			memmove(c->names[n++], c->names[i], FZ_NAME_MAX + 1);
	}
	c->nnames = n;
	c->fd_main = end ? -1 : ue_open_data();
	c->fd_aux = end ? -1 : ue_open_data();
}

/*
 * The memory of a batch, one mapping: the arena (4 pages), its guard and a
 * PROT_NONE page, a read-only page, 2 pages of enable words, the write
 * buffer (3 pages) and its guard; addresses no write can read from.  Then
 * the targets: registered, enabled in ftrace, some in perf too.
 */
static int fz_setup(struct fz_ctx *c)
{
	/* candidates for fz_unmapped: high for 64-bit, low for 32-bit programs */
	static const unsigned long long holes[] = {
		0x3e0000000000ull, 0x3e00000000ull, 0x3e000000ull,
	};
	int i, cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN), id, ret;
	long page = c->page = getpagesize();
	struct fz_target *t = fz_targets;
	const char *sys;
	void *hole;

	c->arena = mmap(NULL, 13 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
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
	fz_kptr = (char *)(uintptr_t)(sizeof(void *) == 4 ? 0xfffff000u : FZ_KERNEL1);
	/* an address nothing is mapped at (and nothing will be), within a pointer */
	for (i = 0; i < ARRAY_SIZE(holes) && !fz_unmapped; i++) {
		hole = mmap((void *)(uintptr_t)holes[i], page, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (hole == (void *)(uintptr_t)holes[i] && holes[i] == (uintptr_t)holes[i])
			fz_unmapped = holes[i];
		if (hole != MAP_FAILED)
			munmap(hole, page);
	}
	ret = fz_unmapped ? 0 : -EEXIST;
	ue_tracing_on();
	c->fd_tgt = ue_open_data();
	c->fd_main = ue_open_data();
	c->fd_aux = ue_open_data();
	if (!ret && (c->fd_tgt < 0 || c->fd_main < 0 || c->fd_aux < 0))
		ret = -errno;
	for (i = 0; i < fz_ntargets && !ret; i++, t++) {
		sys = t->flags & USER_EVENT_REG_MULTI_FORMAT ? UE_SYS_MULTI : UE_SYS;
		for (t->nf = t->size = 0; t->nf < 4 && t->f[t->nf].size; t->nf++)
			t->size += t->f[t->nf].size;
		ue_cmd_name(t->name, sizeof(t->name), t->cmd);
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

static void fz_batch(struct fz_shared *sh, __u64 seed, __u64 first, __u64 end, char *baseline)
{
	static fz_case_fn * const cases[] = {
		fz_case_reg, fz_case_unreg, fz_case_write, fz_case_del, fz_case_dyn, fz_case_misc,
	};
	static const struct fz_kind pct[] = { { 30 }, { 8 }, { 40 }, { 7 }, { 10 }, { 5 } };
	struct fz_ctx c = { .sh = sh, .seed = seed, .baseline = baseline };
	int ret = fz_setup(&c);
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
		if (c.nlive >= FZ_LIVE_MAX - 1 || c.nnames >= FZ_NAMES_MAX)
			fz_clean(&c, false);
		cases[fz_pick(&rs, pct, ARRAY_SIZE(pct), NULL)](&c, &rs);
	}
	while (c.nperf)
		close(c.perf_fd[--c.nperf]);
	if (!sh->failed)
		fz_clean(&c, true);
	_exit(sh->failed);
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
	__u64 seed = ue_env("UE_FUZZ_SEED", 0x75e5eed, 0, LLONG_MAX);
	__u64 cases = ue_env("UE_FUZZ_CASES", 100000, 0, LLONG_MAX);
	__u64 first = ue_env("UE_FUZZ_FIRST", 0, 0, LLONG_MAX), b, end;
	int active0, busy0, active, busy, status, op, e, n, failed = 0;
	char left[512], line[1024], *baseline;
	struct fz_shared *sh;
	struct timespec start;
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
		if (sh->failed || status) {
			ksft_print_msg("fuzz FAILED: %s (status 0x%x)\n", sh->msg, status);
		} else {	/* every event of the batch is gone: report, clean, go on */
			n = ue_leftovers(FZ_PREFIX, true, left, sizeof(left));
			if (ue_status_counts(&active, &busy) && !n && active == active0 &&
			    busy == busy0)
				continue;
			ksft_print_msg("fuzz FAILED: Active %d Busy %d (was %d %d), %d left:%s\n",
				       active, busy, active0, busy0, n, left);
		}
		ksft_print_msg("replay UE_FUZZ_SEED=0x%llx UE_FUZZ_FIRST=%llu UE_FUZZ_CASES=%llu\n",
			       seed, b, end - b);
		failed++;
		if (sh->failed || status)	/* stop here, the state is unknown */
			break;
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
