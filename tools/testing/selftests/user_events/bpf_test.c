// SPDX-License-Identifier: GPL-2.0
/*
 * BPF on user events, with nothing but the bpf() syscall: a hand-assembled
 * BPF_PROG_TYPE_TRACEPOINT program reads the first payload field (u32 at
 * offset 8 of the raw record) and adds it to one slot of an array map,
 * counting runs in another.  It is attached through perf_event_open() +
 * PERF_EVENT_IOC_SET_BPF; after N writes the count is N and the sum is
 * the sum of the values written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/bpf.h>

#include "../kselftest_harness.h"
#include "ue_util.h"

#define BT_NAME		"uet_bpf_ev"
#define BT_CMD		BT_NAME " u32 val; u64 other; __rel_loc char[] s"
#define BT_WRITES	50

/* Hand assembler */
#define INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ST_W(d, o, i)		INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define LDX_W(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define XADD_DW(d, s, o)	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, \
				     BPF_ADD)
/* ld_imm64 of a map fd: two instructions */
#define LD_MAP_FD(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, \
				     BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM64_HI()		INSN(0, 0, 0, 0, 0)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define R0 0
#define R1 1
#define R2 2
#define R6 6
#define R10 10

#define SLOT_COUNT	0
#define SLOT_SUM	1

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(__u32);
	attr.value_size = sizeof(__u64);
	attr.max_entries = 2;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

static int map_get(int fd, __u32 key, __u64 *val)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (__u64)(uintptr_t)&key;
	attr.value = (__u64)(uintptr_t)val;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

/*
 *	r6 = ctx
 *	map[SLOT_COUNT] += 1
 *	map[SLOT_SUM] += *(u32 *)(ctx + val_off)
 *	return 0
 */
static int prog_load(int map_fd, int val_off, char *log, size_t log_size)
{
	struct bpf_insn prog[] = {
		/* 0 */ MOV64_REG(R6, R1),
		/* 1 */ ST_W(R10, -4, SLOT_COUNT),
		/* 2 */ MOV64_REG(R2, R10),
		/* 3 */ ADD64_IMM(R2, -4),
		/* 4 */ LD_MAP_FD(R1, map_fd),
		/* 5 */ LD_IMM64_HI(),
		/* 6 */ CALL(BPF_FUNC_map_lookup_elem),
		/* 7 */ JEQ_IMM(R0, 0, 11),	/* -> 19 */
		/* 8 */ MOV64_IMM(R1, 1),
		/* 9 */ XADD_DW(R0, R1, 0),
		/* 10 */ ST_W(R10, -4, SLOT_SUM),
		/* 11 */ MOV64_REG(R2, R10),
		/* 12 */ ADD64_IMM(R2, -4),
		/* 13 */ LD_MAP_FD(R1, map_fd),
		/* 14 */ LD_IMM64_HI(),
		/* 15 */ CALL(BPF_FUNC_map_lookup_elem),
		/* 16 */ JEQ_IMM(R0, 0, 2),	/* -> 19 */
		/* 17 */ LDX_W(R1, R6, val_off),
		/* 18 */ XADD_DW(R0, R1, 0),
		/* 19 */ MOV64_IMM(R0, 0),
		/* 20 */ EXIT(),
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	attr.insns = (__u64)(uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (__u64)(uintptr_t)"GPL";
	attr.log_buf = (__u64)(uintptr_t)log;
	attr.log_size = log_size;
	attr.log_level = 1;
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

FIXTURE(bpf) {
	struct ue_session *s;
	struct ue_event *e;
	int map_fd, prog_fd, perf_fd;
};

FIXTURE_SETUP(bpf)
{
	static char log[65536];
	int val_off;

	self->s = NULL;
	self->map_fd = -1;
	self->prog_fd = -1;
	self->perf_fd = -1;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, BT_CMD, 0, &self->e));

	/* the sysctl exists where the bpf() system call does */
	if (access("/proc/sys/kernel/unprivileged_bpf_disabled", F_OK))
		SKIP(return, "no bpf() system call (CONFIG_BPF_SYSCALL?)");
	self->map_fd = map_create();
	ASSERT_LE(0, self->map_fd) TH_LOG("map: %s", strerror(errno));
	/* val's offset in the record, after the common fields */
	val_off = ue_field_offset(UE_SYS, BT_NAME, "val");
	ASSERT_LT(0, val_off);
	log[0] = '\0';
	self->prog_fd = prog_load(self->map_fd, val_off, log, sizeof(log));
	/* an unknown program type fails before the verifier writes a log */
	if (self->prog_fd < 0 && errno == EINVAL && !log[0])
		SKIP(return, "no tracepoint programs (CONFIG_BPF_EVENTS?)");
	ASSERT_LE(0, self->prog_fd) TH_LOG("load: %s\n%s", strerror(errno), log);
}

FIXTURE_TEARDOWN(bpf)
{
	if (self->perf_fd >= 0)
		close(self->perf_fd);
	if (self->prog_fd >= 0)
		close(self->prog_fd);
	if (self->map_fd >= 0)
		close(self->map_fd);
	ue_session_close(self->s);
}

static int attach(int id, int prog_fd)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST_F(bpf, count_and_sum)
{
	struct timespec start;
	__u64 count = 0, sum = 0, want = 0;
	int id, i;

	id = ue_event_trace_id(self->e);
	ASSERT_LT(0, id);
	EXPECT_EQ(0, map_get(self->map_fd, SLOT_COUNT, &count));
	EXPECT_EQ(0, count);

	self->perf_fd = attach(id, self->prog_fd);
	if (self->perf_fd < 0 &&
	    (errno == ENOENT || access("/proc/sys/kernel/perf_event_paranoid", F_OK)))
		SKIP(return, "cannot attach BPF to a tracepoint: %s",
		     strerror(errno));
	ASSERT_LE(0, self->perf_fd) TH_LOG("attach: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ue_enabled(self->e))
		ASSERT_LT(ue_elapsed(&start), UE_WAIT_SECS);

	for (i = 0; i < BT_WRITES; i++) {
		__u32 val = 1000 + 7 * i;

		ASSERT_EQ(0, ue_write(self->e, val, (uint64_t)~0ull, "s"));
		want += val;
	}

	ASSERT_EQ(0, map_get(self->map_fd, SLOT_COUNT, &count));
	ASSERT_EQ(0, map_get(self->map_fd, SLOT_SUM, &sum));
	EXPECT_EQ(BT_WRITES, count);
	EXPECT_EQ(want, sum);
	TH_LOG("bpf: %llu runs, sum %llu (expected %d, %llu)",
	       (unsigned long long)count, (unsigned long long)sum, BT_WRITES,
	       (unsigned long long)want);

	/* detached: the program no longer runs, the bit clears */
	close(self->perf_fd);
	self->perf_fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (ue_enabled(self->e))
		ASSERT_LT(ue_elapsed(&start), UE_WAIT_SECS);
	EXPECT_EQ(-EBADF, ue_write(self->e, 1u, (uint64_t)0, "s"));
	ASSERT_EQ(0, map_get(self->map_fd, SLOT_COUNT, &count));
	EXPECT_EQ(BT_WRITES, count);
}

/* A failing write (bad payload) runs no program. */
TEST_F(bpf, not_run_on_error)
{
	struct timespec start;
	__u64 count = 1;
	__u32 short_payload = 5;
	struct iovec iov = { &short_payload, sizeof(short_payload) };
	int id;

	id = ue_event_trace_id(self->e);
	ASSERT_LT(0, id);
	self->perf_fd = attach(id, self->prog_fd);
	ASSERT_LE(0, self->perf_fd) TH_LOG("attach: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!ue_enabled(self->e))
		ASSERT_LT(ue_elapsed(&start), UE_WAIT_SECS);

	EXPECT_EQ(-EINVAL, ue_write_raw(self->e, &iov, 1));
	ASSERT_EQ(0, map_get(self->map_fd, SLOT_COUNT, &count));
	EXPECT_EQ(0, count);
	EXPECT_EQ(0, ue_write(self->e, 3u, (uint64_t)0, "s"));
	ASSERT_EQ(0, map_get(self->map_fd, SLOT_COUNT, &count));
	EXPECT_EQ(1, count);
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
