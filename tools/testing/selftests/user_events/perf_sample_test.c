// SPDX-License-Identifier: GPL-2.0
/* user_events ABI: perf attaching to user events, enable bit and PERF_SAMPLE_RAW contents. */
#include "ue_util.h"
#include "../kselftest_harness.h"

FIXTURE(perf) {
	UE_FIXTURE_MEMBERS;
	char name[64];
	int id, base;		/* tracepoint id, offset of the field */
	__u32 idx;
	struct ue_ring ring;
};

FIXTURE_SETUP(perf)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(perf)
{
	ue_ring_unmap(&self->ring);
	UE_TEARDOWN();
}

/*
 * Register @cmd (enable bit 0 of the page's word 0), open a perf event
 * with a ring on it, wait for the bit and find the offset of @field.
 */
static void open_event(struct __test_metadata *_metadata, struct _test_data_perf *self,
		       const char *cmd, const char *field, bool exclude_kernel)
{
	snprintf(self->name, sizeof(self->name), "%.*s", (int)strcspn(cmd, " "), cmd);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, self->page, 4, 0, &self->idx));
	self->id = ue_event_id(UE_SYS, self->name);
	ASSERT_GT(self->id, 0);
	self->perf_fd = ue_perf_open(self->id, exclude_kernel);
	ASSERT_LE(0, self->perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ue_ring_map(&self->ring, self->perf_fd)) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	self->base = ue_field_offset(UE_SYS, self->name, field);
	ASSERT_GT(self->base, 0);
}

/* Write @payload: one sample, with it at base, our pid and type */
static void expect_sample(struct __test_metadata *_metadata, struct _test_data_perf *self,
			  const void *payload, int len)
{
	int pid_off = ue_field_offset(UE_SYS, self->name, "common_pid");
	char raw[256];
	__u16 type;
	__s32 pid;

	ASSERT_LE(0, pid_off);
	/* only perf is attached: the write must still be accepted */
	ASSERT_EQ(len + 4, ue_emit(self->t.fd, self->idx, payload, len));
	ASSERT_GE(sizeof(raw), self->base + len);
	ASSERT_LE(self->base + len, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
	EXPECT_EQ(0, memcmp(raw + self->base, payload, len));
	memcpy(&type, raw, sizeof(type));
	EXPECT_EQ(self->id, type);
	memcpy(&pid, raw + pid_off, sizeof(pid));
	EXPECT_EQ(getpid(), pid);
	EXPECT_EQ(0, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
}

TEST_F(perf, sets_bit)
{
	int id, fd;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_pf_bit u32 a", self->page, 8, 42, NULL));
	id = ue_event_id(UE_SYS, "uet_pf_bit");
	ASSERT_GT(id, 0);
	EXPECT_FALSE(ue_bit_set(self->page, 8, 42));
	fd = ue_perf_open(id, false);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_TRUE(ue_wait_bit(self->page, 8, 42, true));
	close(fd);
	ASSERT_TRUE(ue_wait_bit(self->page, 8, 42, false));
}

TEST_F(perf, raw_sample)
{
	__u32 a = 0xfeedf00d;
	__u64 b = 0x0123456789abcdefull;
	char payload[12];

	memcpy(payload, &a, 4);
	memcpy(payload + 4, &b, 8);
	open_event(_metadata, self, "uet_pf_raw u32 a; u64 b", "a", false);
	ASSERT_EQ(self->base + 4, ue_field_offset(UE_SYS, self->name, "b"));
	expect_sample(_metadata, self, payload, sizeof(payload));
}

TEST_F(perf, validation)
{
	char raw[256], payload[16] = { 0 };
	__u32 loc = DYN_LOC(0, 7);		/* past the end */

	open_event(_metadata, self, "uet_pf_valid __rel_loc char[] s", "s", false);
	memcpy(payload + 4, "perf!", 6);
	memcpy(payload, &loc, 4);
	EXPECT_EQ(-EFAULT, ue_emit(self->t.fd, self->idx, payload, 10));
	EXPECT_EQ(0, ue_ring_next_raw(&self->ring, raw, sizeof(raw)));
	loc = DYN_LOC(0, 6);
	memcpy(payload, &loc, 4);
	expect_sample(_metadata, self, payload, 10);
}

/*
 * Samples are delivered to an exclude_kernel perf event as well: the data comes from user space.
 * Upstream 6.12 records the kernel's registers for the sample and thus filters it out. EXPECTED TO
 * FAIL ON UPSTREAM (improvement).
 */
TEST_F(perf, exclude_kernel)
{
	__u32 val = 0x600dcafe;

	open_event(_metadata, self, "uet_pf_exkern u32 v", "v", true);
	expect_sample(_metadata, self, &val, sizeof(val));
}

TEST_HARNESS_MAIN
