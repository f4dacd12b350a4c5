// SPDX-License-Identifier: GPL-2.0
/*
 * BPF on user events, with nothing but the bpf() syscall: a hand-assembled BPF_PROG_TYPE_TRACEPOINT
 * program, attached with PERF_EVENT_IOC_SET_BPF, counts its runs and sums the first payload field
 * (u32) in an array map: after N writes the count is N and the sum is that of the values written.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"
#include <linux/bpf.h>

#define BT_NAME		"uet_bpf_ev"
#define BT_CMD		BT_NAME " u32 val; u64 other; __rel_loc char[] s"
#define BT_WRITES	50

#define INSN(c, d, s, o, i)	\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define XADD_DW(d, s, o)	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* v = &map[0]; v[1] += *(u32 *)(ctx + val_off); v[0] += 1; return 0 */
static int prog_load(int map_fd, int val_off, char *log, size_t log_size)
{
	struct bpf_insn prog[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, val_off, 0),
		/* ld_imm64 of the address of the map's value: two insns */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_VALUE, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		XADD_DW(BPF_REG_1, BPF_REG_2, 8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1),
		XADD_DW(BPF_REG_1, BPF_REG_2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_TRACEPOINT, .insns = (uintptr_t)prog,
		.insn_cnt = ARRAY_SIZE(prog), .license = (uintptr_t)"GPL",
		.log_buf = (uintptr_t)log, .log_size = log_size, .log_level = 1,
	};

	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/* A perf event of tracepoint @id running @prog_fd, -1 (errno) on failure */
static int attach(int id, int prog_fd)
{
	int fd = ue_perf_open(id, false);

	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE(bpf) {
	struct ue_session *s;
	struct ue_event *e;
	int map_fd, prog_fd, perf_fd, id;
	__u64 *v;	/* the map's value: runs, sum of val */
};

FIXTURE_SETUP(bpf)
{
	union bpf_attr attr = { .map_type = BPF_MAP_TYPE_ARRAY, .key_size = sizeof(__u32),
				.value_size = 2 * sizeof(__u64), .max_entries = 1,
				.map_flags = BPF_F_MMAPABLE };
	static char log[65536];
	int val_off;

	self->perf_fd = -1;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, BT_CMD, 0, &self->e));
	self->id = ue_event_trace_id(self->e);
	ASSERT_LT(0, self->id);

	/* the sysctl exists where the bpf() system call does */
	if (access("/proc/sys/kernel/unprivileged_bpf_disabled", F_OK))
		SKIP(return, "no bpf() system call (CONFIG_BPF_SYSCALL?)");
	self->map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	ASSERT_LE(0, self->map_fd) TH_LOG("map: %s", strerror(errno));
	self->v = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->map_fd, 0);
	ASSERT_TRUE(self->v != MAP_FAILED) TH_LOG("map: %s", strerror(errno));
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
	/* only a completed setup is torn down: map_fd and prog_fd are open */
	close(self->perf_fd);
	close(self->prog_fd);
	munmap(self->v, getpagesize());
	close(self->map_fd);
	ue_session_close(self->s);
}

/* A failing write (bad payload) runs no program, each write runs it once. */
TEST_F(bpf, count_and_sum)
{
	__u64 want = BT_WRITES * 1000 + 7 * BT_WRITES * (BT_WRITES - 1) / 2;
	__u32 short_payload = 5;
	struct iovec iov = { &short_payload, sizeof(short_payload) };
	int i;

	self->perf_fd = attach(self->id, self->prog_fd);
	if (self->perf_fd < 0 &&
	    (errno == ENOENT || access("/proc/sys/kernel/perf_event_paranoid", F_OK)))
		SKIP(return, "cannot attach BPF to a tracepoint: %s", strerror(errno));
	EXPECT_EQ(0, self->v[0]);
	ASSERT_LE(0, self->perf_fd) TH_LOG("attach: %s", strerror(errno));
	ASSERT_TRUE(ue_wait_lib(self->e, true));
	EXPECT_EQ(-EINVAL, ue_write_raw(self->e, &iov, 1));
	EXPECT_EQ(0, self->v[0]);
	for (i = 0; i < BT_WRITES; i++)
		ASSERT_EQ(0, ue_write(self->e, 1000u + 7 * i, (uint64_t)~0ull, "s"));
	EXPECT_EQ(BT_WRITES, self->v[0]);
	EXPECT_EQ(want, self->v[1]);
	TH_LOG("bpf: %llu runs, sum %llu", (unsigned long long)self->v[0],
	       (unsigned long long)self->v[1]);

	/* detached: the program no longer runs, the bit clears */
	close(self->perf_fd);
	self->perf_fd = -1;
	ASSERT_TRUE(ue_wait_lib(self->e, false));
	EXPECT_EQ(-EBADF, ue_write(self->e, 1u, (uint64_t)0, "s"));
	EXPECT_EQ(BT_WRITES, self->v[0]);
}

TEST_HARNESS_MAIN
