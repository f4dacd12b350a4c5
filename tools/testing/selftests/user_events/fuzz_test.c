// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer: seeded and reproducible.
 *
 *   UE_FUZZ_SEED   seed (default 0x75e5eed), printed at the start
 *   UE_FUZZ_CASES  number of cases (default 100000)
 *   UE_FUZZ_FIRST  number of the first case (default 0), to replay a range
 *
 * Every case draws its random numbers from (seed, case number) only, and
 * the cases run in batches of FZ_BATCH, each in a fresh child process that
 * sets up the same state first; so a failing case is replayed exactly by
 * running its batch again (the failure message prints the command line).
 *
 * A case is one of:
 *  - DIAG_IOCSREG with a generated command (valid grammar, known defects,
 *    or random mutations: types, names, sizes, separators, lengths around
 *    511, NUL and non-ASCII bytes), struct user_reg of random size with or
 *    without trailing garbage, placed in good, read-only or bad memory,
 *    random flags, enable sizes, bits and addresses (valid, in use,
 *    misaligned, NULL, kernel, non-canonical, unmapped, read-only,
 *    PROT_NONE);
 *  - DIAG_IOCSUNREG with random sizes, reserved bits and addresses;
 *  - write()/writev() (up to 1100 iovecs) with random indexes, lengths of
 *    0..8 KiB, __data_loc/__rel_loc words, and bad buffers, mostly to
 *    events enabled in ftrace (some also in perf) whose formats are known;
 *  - DIAG_IOCSDEL with random names and pointers;
 *  - "u:" (create) and "-:" / "!u:" (delete) lines to dynamic_events;
 *  - unknown ioctls, read(), mmap(), closing and reopening the file.
 *
 * Every result must be success or one of the errors documented for that
 * operation (listed at fz_*_errs below).  In addition, when a case has no
 * defect at all it must succeed, and when it has exactly one defect it
 * must fail with that defect's errno; writes to enabled events of known
 * format are predicted exactly from the payload.
 *
 * The grammar modelled is upstream 6.12's (Documentation/trace/
 * user_events.rst, "The command"): the name runs to the first space, words
 * inside a field are separated by exactly one space, types are kept as
 * written, dynamic fields take any element type, and a registration of a
 * name that exists is compared with it as text before its fields are
 * checked.  Not predicted: a duplicate field name (success or EINVAL).
 *
 * The set of events stays bounded: registrations are capped and undone,
 * persistent events are deleted; after each batch user_events_status
 * must show the Active/Busy counts of before the run and no event of the
 * fuzzer may remain.
 */
#include <dirent.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "fuzz.h"

__u32 fz_entry, fz_payload_max;
__u64 fz_unmapped;
char *fz_kptr;

struct fz_target fz_targets[] = {
	{ "uet_fz_t0 u8 a; s16 b; u32 c; u64 d", "uet_fz_t0", 0, false, 4,
	  { { FK_SCALAR, 1 }, { FK_SCALAR, 2 }, { FK_SCALAR, 4 },
	    { FK_SCALAR, 8 } } },
	{ "uet_fz_t1 char[16] s; unsigned char[3] r; struct uet_fz_s st 12",
	  "uet_fz_t1", 0, false, 3,
	  { { FK_ARRAY, 16 }, { FK_ARRAY, 3 }, { FK_STRUCT, 12 } } },
	{ "uet_fz_t2 u32 n; __data_loc char[] s", "uet_fz_t2", 0, true, 2,
	  { { FK_SCALAR, 4 }, { FK_DL, 4, true } } },
	{ "uet_fz_t3 __rel_loc char[] s; __data_loc u8[] b; int x",
	  "uet_fz_t3", 0, false, 3,
	  { { FK_RL, 4, true }, { FK_DL, 4 }, { FK_SCALAR, 4 } } },
	{ "uet_fz_t4", "uet_fz_t4", 0, false, 0, { } },
	/* unsigned char is a char type: c is a string */
	{ "uet_fz_t5 __data_loc char[] a; __rel_loc char[] b; __rel_loc unsigned char[] c",
	  "uet_fz_t5", 0, true, 3,
	  { { FK_DL, 4, true }, { FK_RL, 4, true }, { FK_RL, 4, true } } },
	{ "uet_fz_t7 __rel_loc u32[] a; struct uet_fz_b b 5000", "uet_fz_t7", 0,
	  true, 2, { { FK_RL, 4 }, { FK_STRUCT, 5000 } } },
	{ "uet_fz_t6 u64 x; __data_loc char[] s", "uet_fz_t6",
	  USER_EVENT_REG_MULTI_FORMAT, false, 2,
	  { { FK_SCALAR, 8 }, { FK_DL, 4, true } } },
};

const int fz_ntargets = ARRAY_SIZE(fz_targets);

/* ---------------------------------------------------------------------
 * Batch set up and clean up
 */

static void fz_unreg_all(struct fz_ctx *c)
{
	struct fz_set s;
	int ret;

	while (c->nlive && !c->sh->failed) {
		struct fz_live *l = &c->live[--c->nlive];

		ret = ue_unreg(c->fd_main, (void *)(uintptr_t)l->addr, l->bit);
		s = l->maybe ? fz_set_of(true, fz_enoent) : fz_only(0);
		if (!fz_check(c, OP_UNREG, ret, &s))
			fz_fail(c, OP_UNREG, ret, &s, "clean up: 0x%llx bit %d",
				l->addr, l->bit);
	}
}

/* Delete the names that may be persistent events; nothing uses them. */
static void fz_delete_names(struct fz_ctx *c, bool targets_live)
{
	struct fz_set s;
	int i, t, ret;

	for (i = 0; i < c->nnames && !c->sh->failed; i++) {
		bool tgt = false;

		for (t = 0; t < fz_ntargets; t++)
			tgt |= !strcmp(c->names[i], fz_targets[t].name);
		/*
		 * DIAG_IOCSDEL reads at most FZ_CMD_MAX bytes of name; a
		 * longer one (made through dynamic_events) goes there too.
		 */
		if (strlen(c->names[i]) > FZ_CMD_MAX) {
			snprintf(fz_tmp, sizeof(fz_tmp), "-:%s", c->names[i]);
			ret = fz_dyn_write(fz_tmp, strlen(fz_tmp));
		} else {
			ret = ue_del_name(c->names[i]);
		}
		s = fz_set_of(true, tgt && targets_live ? fz_enoent_ebusy :
			      fz_enoent);
		if (!fz_check(c, OP_DEL, ret, &s))
			fz_fail(c, OP_DEL, ret, &s, "clean up: delete %s",
				c->names[i]);
	}
	/* targets that became persistent must go later */
	for (i = t = 0; i < c->nnames; i++) {
		bool tgt = false;
		int k;

		for (k = 0; k < fz_ntargets; k++)
			tgt |= !strcmp(c->names[i], fz_targets[k].name);
		if (tgt && targets_live)
			memmove(c->names[t++], c->names[i], FZ_NAME_MAX + 1);
	}
	c->nnames = t;
}

/* Mid-batch: drop every fuzz registration and persistent event. */
static void fz_recycle(struct fz_ctx *c)
{
	fz_unreg_all(c);
	close(c->fd_main);
	close(c->fd_aux);
	fz_delete_names(c, true);
	c->fd_main = ue_open_data();
	c->fd_aux = ue_open_data();
}

static char *fz_map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Candidates for fz_unmapped: high for 64-bit, low for 32-bit programs */
static const unsigned long long fz_holes[] = {
	0x3e0000000000ull, 0x3e00000000ull, 0x3e000000ull,
};

/* The memory of a batch: buffers, guard pages, bad addresses */
static int fz_setup_memory(struct fz_ctx *c)
{
	void *hole;
	int i;

	c->page = getpagesize();
	c->arena = fz_map(5 * c->page, PROT_READ | PROT_WRITE);
	c->ro = fz_map(c->page, PROT_READ);
	c->none = fz_map(c->page, PROT_NONE);
	c->en = fz_map(2 * c->page, PROT_READ | PROT_WRITE);
	c->wbuf = fz_map(4 * c->page, PROT_READ | PROT_WRITE);
	c->names = calloc(FZ_NAMES_MAX * 2, FZ_NAME_MAX + 1);
	if (!c->arena || !c->ro || !c->none || !c->en || !c->wbuf || !c->names)
		return -ENOMEM;
	c->guard = c->arena + 4 * c->page;
	c->wguard = c->wbuf + 3 * c->page;
	if (mprotect(c->guard, c->page, PROT_NONE) ||
	    mprotect(c->wguard, c->page, PROT_NONE))
		return -errno;
	/* beyond a 32-bit program's address space, or the kernel's */
	fz_kptr = sizeof(void *) == 4 ? (char *)(uintptr_t)0xfffff000u :
		  (char *)(uintptr_t)FZ_KERNEL1;
	/* an address nothing is mapped at (and nothing will be) */
	for (i = 0; i < ARRAY_SIZE(fz_holes) && !fz_unmapped; i++) {
		if (fz_holes[i] != (uintptr_t)fz_holes[i])
			continue;	/* beyond a 32-bit pointer */
		hole = mmap((void *)(uintptr_t)fz_holes[i], c->page, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
		if (hole == (void *)(uintptr_t)fz_holes[i])
			fz_unmapped = fz_holes[i];
		if (hole != MAP_FAILED)
			munmap(hole, c->page);
	}
	if (!fz_unmapped)
		return -EEXIST;
	fz_unreg_addrs[3] = fz_unmapped;

	return 0;
}

/* The targets: registered, enabled in ftrace, some in perf too */
static int fz_setup(struct fz_ctx *c)
{
	int i, cpu, ncpus, id, ret = fz_setup_memory(c);

	if (ret)
		return ret;
	ue_tracing_on();
	c->fd_tgt = ue_open_data();
	c->fd_main = ue_open_data();
	c->fd_aux = ue_open_data();
	if (c->fd_tgt < 0 || c->fd_main < 0 || c->fd_aux < 0)
		return -errno;

	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < fz_ntargets; i++) {
		struct fz_target *t = &fz_targets[i];
		const char *sys = UE_SYS;

		t->size = 0;
		for (id = 0; id < t->nf; id++)
			t->size += t->f[id].size;
		ret = ue_reg(c->fd_tgt, t->cmd, c->en + 8 * i, 8, 0, t->flags,
			     &t->idx);
		if (ret)
			return ret;
		snprintf(t->tp, sizeof(t->tp), "%s", t->name);
		if (t->flags & USER_EVENT_REG_MULTI_FORMAT) {
			sys = UE_SYS_MULTI;
			if (!ue_multi_versions(t->name, NULL, t->tp,
					       sizeof(t->tp)))
				return -ENOENT;
		}
		ret = ue_set_enable(sys, t->tp, true);
		if (ret)
			return ret;
		if (!t->perf)
			continue;
		id = ue_event_id(sys, t->tp);
		for (cpu = 0; cpu < ncpus; cpu++) {
			if (c->nperf == ARRAY_SIZE(c->perf_fd))
				return -ENOSPC;
			ret = ue_perf_open_cpu(id, cpu, false);
			if (ret < 0)
				return -errno;
			c->perf_fd[c->nperf++] = ret;
		}
	}
	ret = ue_entry_size(UE_SYS, fz_targets[0].tp);
	if (ret < 0)
		return ret;
	fz_entry = ret;
	fz_payload_max = c->page - 24 - fz_entry;
	if ((size_t)fz_payload_max + 4136 + 4 > sizeof(fz_tmp))
		return -E2BIG;
	return 0;
}

static void fz_teardown(struct fz_ctx *c)
{
	struct fz_set s = fz_only(0);
	int i, ret;

	while (c->nperf)
		close(c->perf_fd[--c->nperf]);
	for (i = 0; i < fz_ntargets; i++)
		ue_set_enable(fz_targets[i].flags & USER_EVENT_REG_MULTI_FORMAT ?
			      UE_SYS_MULTI : UE_SYS, fz_targets[i].tp, false);
	fz_unreg_all(c);
	for (i = 0; i < fz_ntargets && !c->sh->failed; i++) {
		ret = ue_unreg(c->fd_tgt, c->en + 8 * i, 0);
		if (!fz_check(c, OP_UNREG, ret, &s))
			fz_fail(c, OP_UNREG, ret, &s, "clean up: target %d", i);
	}
	close(c->fd_tgt);
	close(c->fd_main);
	close(c->fd_aux);
	fz_delete_names(c, false);
}

static void fz_batch(struct fz_shared *sh, __u64 seed, __u64 first,
		     __u64 end, char *baseline)
{
	struct fz_ctx c = { .sh = sh, .seed = seed, .baseline = baseline };
	__u64 rs;
	int ret, r;

	ret = fz_setup(&c);
	if (ret) {
		snprintf(sh->msg, sizeof(sh->msg), "batch set up failed: %s",
			 strerror(-ret));
		sh->failed = 1;
		_exit(1);
	}
	for (c.ncase = first; c.ncase < end && !sh->failed; c.ncase++) {
		/* the case's own stream: from (seed, case number) only */
		rs = c.ncase;
		rs = seed ^ ue_rand(&rs);
		rs = ue_rand(&rs);
		if (c.nlive >= FZ_LIVE_MAX - 1 || c.nnames >= FZ_NAMES_MAX)
			fz_recycle(&c);
		r = ue_rand_n(&rs, 100);
		if (r < 30)
			fz_case_reg(&c, &rs);
		else if (r < 38)
			fz_case_unreg(&c, &rs);
		else if (r < 78)
			fz_case_write(&c, &rs);
		else if (r < 85)
			fz_case_del(&c, &rs);
		else if (r < 95)
			fz_case_dyn(&c, &rs);
		else
			fz_case_misc(&c, &rs);
		sh->done++;
	}
	if (!sh->failed)
		fz_teardown(&c);
	_exit(sh->failed);
}

/* ---------------------------------------------------------------------
 * The test
 */

/* Names of our events left in user_events_status (deleted if possible) */
static int fz_leftovers(char *out, size_t len)
{
	char *text = ue_status_read(), *line, *save, *sp;
	int n = 0, pos = 0;

	out[0] = '\0';
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, FZ_PREFIX, strlen(FZ_PREFIX)))
			continue;
		sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		if (pos < (int)len)
			pos += snprintf(out + pos, len - pos, " %s", line);
		n++;
		sp = strchr(line, '.');	/* multi-format: delete by name */
		if (sp)
			*sp = '\0';
		ue_del_name(line);
	}
	free(text);
	return n;
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
	__u64 first = ue_env("UE_FUZZ_FIRST", 0, 0, LLONG_MAX), b, end, total = 0;
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
	fz_leftovers(left, sizeof(left));
	ASSERT_EQ(0, fz_leftovers(left, sizeof(left))) TH_LOG("%s", left);
	ASSERT_TRUE(ue_status_counts(&active0, &busy0));
	baseline = ue_status_read();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (b = first; b < first + cases; b += FZ_BATCH) {
		end = first + cases;
		if (end > b + FZ_BATCH)
			end = b + FZ_BATCH;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			fz_batch(sh, seed, b, end, baseline);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		total = sh->done;

		if (!sh->failed && status)
			snprintf(sh->msg, sizeof(sh->msg),
				 "batch %llu..%llu: child status 0x%x", b,
				 end - 1, status);
		if (sh->failed || status) {
			/* a case failed: stop here, the state is unknown */
			ksft_print_msg("fuzz FAILED: %s\n", sh->msg);
			fz_replay(seed, b, end);
			failed++;
			break;
		}
		/* every event of the batch is gone; report, clean, go on */
		n = fz_leftovers(left, sizeof(left));
		if (!ue_status_counts(&active, &busy) || n ||
		    active != active0 || busy != busy0) {
			ksft_print_msg("fuzz FAILED after batch %llu..%llu:\n",
				       b, end - 1);
			ksft_print_msg("fuzz: Active %d Busy %d (before %d %d)\n",
				       active, busy, active0, busy0);
			ksft_print_msg("fuzz: %d events left:%s\n", n, left);
			fz_replay(seed, b, end);
			failed++;
		}
	}

	ksft_print_msg("fuzz: %llu cases in %.1f s (seed 0x%llx)\n", total,
		       ue_elapsed(&start), seed);
	ksft_print_msg("fuzz: %llu predicted exactly, %llu events created\n",
		       sh->predicted, sh->created);
	for (op = 0; op < OP_NR; op++) {
		n = snprintf(line, sizeof(line), "%s: ok %llu", fz_op_name[op],
			     sh->hist[op][0]);
		for (e = 1; e <= FZ_ERRNO_MAX; e++)
			if (sh->hist[op][e])
				n += snprintf(line + n, sizeof(line) - n,
					      " %s %llu", e < FZ_ERRNO_MAX ?
					      fz_errname(e) : "other",
					      sh->hist[op][e]);
		ksft_print_msg("fuzz: %s\n", line);
	}
	EXPECT_EQ(0, failed);
	EXPECT_EQ(cases, total);
	free(baseline);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
