// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI: the enable bit the kernel maintains in user memory and
 * DIAG_IOCSUNREG.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "../kselftest_harness.h"
#include "ue_util.h"

/* Pattern kept in every bit we do not own, to catch stray writes. */
#define FILLER64	0xa5c3f00f5aa53cc3ull

static uint64_t filler_without(int size, int bit)
{
	uint64_t mask = size == 8 ? ~0ull : 0xffffffffull;

	return FILLER64 & mask & ~(1ull << bit);
}

static uint64_t word_read(const void *addr, int size)
{
	if (size == 8)
		return __atomic_load_n((const uint64_t *)addr, __ATOMIC_ACQUIRE);
	return __atomic_load_n((const uint32_t *)addr, __ATOMIC_ACQUIRE);
}

static void word_write(void *addr, int size, uint64_t val)
{
	if (size == 8)
		__atomic_store_n((uint64_t *)addr, val, __ATOMIC_RELEASE);
	else
		__atomic_store_n((uint32_t *)addr, (uint32_t)val, __ATOMIC_RELEASE);
}

FIXTURE(enable) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(enable)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(enable)
{
	UE_TEARDOWN();
}

FIXTURE_VARIANT(enable) {
	int size;	/* enable_size */
	int bit;	/* enable_bit */
	int offset;	/* offset of the value inside the page */
};

FIXTURE_VARIANT_ADD(enable, size4_bit0) { .size = 4, .bit = 0, .offset = 0 };
FIXTURE_VARIANT_ADD(enable, size4_bit7) { .size = 4, .bit = 7, .offset = 8 };
FIXTURE_VARIANT_ADD(enable, size4_bit31) { .size = 4, .bit = 31, .offset = 16 };
/* A 32-bit value that is not 64-bit aligned */
FIXTURE_VARIANT_ADD(enable, size4_off4_bit0) { .size = 4, .bit = 0, .offset = 4 };
FIXTURE_VARIANT_ADD(enable, size4_off4_bit31) { .size = 4, .bit = 31, .offset = 12 };
FIXTURE_VARIANT_ADD(enable, size8_bit0) { .size = 8, .bit = 0, .offset = 0 };
FIXTURE_VARIANT_ADD(enable, size8_bit31) { .size = 8, .bit = 31, .offset = 8 };
FIXTURE_VARIANT_ADD(enable, size8_bit32) { .size = 8, .bit = 32, .offset = 16 };
FIXTURE_VARIANT_ADD(enable, size8_bit63) { .size = 8, .bit = 63, .offset = 24 };

/*
 * Name the event after the test and variant so every variant uses its own
 * event.
 */
#define EVNAME(buf, what) \
	snprintf(buf, sizeof(buf), "uet_en_%s_%d_%d_%d", what, variant->size, \
		 variant->bit, variant->offset)

TEST_F(enable, toggle)
{
	void *val = self->page + variant->offset;
	uint64_t other = filler_without(variant->size, variant->bit);
	/* Neighbouring 32 bits must never change either */
	uint32_t *left = (uint32_t *)val - 1, *right;
	char name[64], cmd[96];
	int round;

	right = (uint32_t *)((char *)val + variant->size);
	if (variant->offset)
		*left = 0x5555aaaa;
	*right = 0xaaaa5555;
	word_write(val, variant->size, other);

	EVNAME(name, "toggle");
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, val, variant->size,
				  variant->bit, NULL));

	/* Registration must not set our bit nor touch others */
	EXPECT_EQ(other, word_read(val, variant->size));

	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, name));
		ASSERT_TRUE(ue_wait_bit(val, variant->size, variant->bit, true));
		EXPECT_EQ(other | (1ull << variant->bit),
			  word_read(val, variant->size));

		ASSERT_EQ(0, ue_set_enable(UE_SYS, name, false));
		ASSERT_TRUE(ue_wait_bit(val, variant->size, variant->bit, false));
		EXPECT_EQ(other, word_read(val, variant->size));
	}

	if (variant->offset)
		EXPECT_EQ(0x5555aaaa, *left);
	EXPECT_EQ(0xaaaa5555, *right);
}

/* A registration while the event is already enabled sees the bit at once. */
TEST_F(enable, register_while_enabled)
{
	void *val = self->page + variant->offset;
	uint64_t other = filler_without(variant->size, variant->bit);
	uint32_t *first = (uint32_t *)(self->page + 512);
	char name[64], cmd[96];

	EVNAME(name, "regen");
	snprintf(cmd, sizeof(cmd), "%s u64 a", name);

	/* A first registration elsewhere creates the event */
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, first, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, name));
	ASSERT_TRUE(ue_wait_bit(first, 4, 0, true));

	word_write(val, variant->size, other);
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, val, variant->size,
				  variant->bit, NULL));
	ASSERT_TRUE(ue_wait_bit(val, variant->size, variant->bit, true));
	EXPECT_EQ(other | (1ull << variant->bit), word_read(val, variant->size));

	ASSERT_EQ(0, ue_set_enable(UE_SYS, name, false));
	ASSERT_TRUE(ue_wait_bit(val, variant->size, variant->bit, false));
	EXPECT_EQ(other, word_read(val, variant->size));
}

TEST_F(enable, unreg_clears)
{
	void *val = self->page + variant->offset;
	uint64_t other = filler_without(variant->size, variant->bit);
	uint32_t *sentinel = (uint32_t *)(self->page + 512);
	char name[64], cmd[96];

	EVNAME(name, "unreg");
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);

	word_write(val, variant->size, other);
	ASSERT_EQ(0, ue_reg(self->t.fd, cmd, val, variant->size, variant->bit, 0,
			    NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, name));
	ASSERT_TRUE(ue_wait_bit(val, variant->size, variant->bit, true));

	/* Unregister clears the bit although the event is still enabled */
	ASSERT_EQ(0, ue_unreg(self->t.fd, val, variant->bit));
	EXPECT_EQ(other, word_read(val, variant->size));

	/*
	 * No further updates: toggle the event and use a second registration
	 * as a sentinel that shows the kernel has done its updates.
	 */
	ASSERT_EQ(0, ue_set_enable(UE_SYS, name, false));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, sentinel, 4, 0, NULL));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, name, true));
	ASSERT_TRUE(ue_wait_bit(sentinel, 4, 0, true));
	EXPECT_EQ(other, word_read(val, variant->size));

	/* The address and bit can be used again */
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, val, variant->size,
				  variant->bit, NULL));
	ASSERT_TRUE(ue_wait_bit(val, variant->size, variant->bit, true));
	EXPECT_EQ(other | (1ull << variant->bit), word_read(val, variant->size));
}

/* ---------------------------------------------------------------------
 * Tests that do not depend on the variant
 */

FIXTURE(misc) {
	UE_FIXTURE_MEMBERS;
};

FIXTURE_SETUP(misc)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(misc)
{
	UE_TEARDOWN();
}

/*
 * Every bit of a 4-byte word (8-byte aligned and 4 bytes past that) and
 * of an 8-byte word, one event per bit on the same word.  Whatever the
 * byte order, enabling bit N sets exactly the value 1 << N of an integer
 * of enable_size bytes: the one byte that holds it in memory (the last
 * ones first on a big-endian machine) and nothing else in the page.
 * 128 events and 256 state changes: over 30 s on the debug kernel under
 * TCG, hence its own timeout.
 */
TEST_F_TIMEOUT(misc, every_bit_both_sizes, 240)
{
	static const struct { int size, offset; } words[] = {
		{ 4, 0 }, { 4, 12 }, { 8, 16 },
	};
	const unsigned char *pg = (const unsigned char *)self->page;
	char name[64], cmd[96];
	int w, bit, i, size, at, want;
	char *val;

	for (w = 0; w < ARRAY_SIZE(words); w++) {
		size = words[w].size;
		val = self->page + words[w].offset;

		for (bit = 0; bit < size * 8; bit++) {
			snprintf(name, sizeof(name), "uet_en_every_%d_%d_%d",
				 size, words[w].offset, bit);
			snprintf(cmd, sizeof(cmd), "%s u32 a", name);
			ASSERT_EQ(0, ue_reg(self->t.fd, cmd, val, size, bit, 0,
					    NULL));
		}
		EXPECT_EQ(0, word_read(val, size));

		for (bit = 0; bit < size * 8; bit++) {
			snprintf(name, sizeof(name), "uet_en_every_%d_%d_%d",
				 size, words[w].offset, bit);
			ASSERT_EQ(0, ue_set_enable(UE_SYS, name, true));
			ASSERT_TRUE(ue_wait_bit(val, size, bit, true));
			EXPECT_EQ(1ull << bit, word_read(val, size))
				TH_LOG("size %d bit %d", size, bit);
			/* the page offset of the byte holding the bit */
			at = words[w].offset + bit / 8;
			if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
				at = words[w].offset + size - 1 - bit / 8;
			for (i = 0; i < getpagesize(); i++) {
				want = i == at ? 1 << (bit % 8) : 0;
				if (pg[i] != want)
					break;
			}
			EXPECT_EQ(getpagesize(), i)
				TH_LOG("size %d bit %d: page byte %d is %#x",
				       size, bit, i, pg[i]);
			ASSERT_EQ(0, ue_set_enable(UE_SYS, name, false));
			ASSERT_TRUE(ue_wait_bit(val, size, bit, false));
			EXPECT_EQ(0, word_read(val, size));
		}

		for (bit = 0; bit < size * 8; bit++)
			ASSERT_EQ(0, ue_unreg(self->t.fd, val, bit));
	}
}

TEST_F(misc, two_registrations_one_event)
{
	uint32_t *a = (uint32_t *)self->page;
	uint64_t *b = (uint64_t *)(self->page + 64);
	const char *name = "uet_en_two";

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_two u32 a", a, 4, 1, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_two u32 a", b, 8, 45, NULL));
	/* Same word, another bit */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_two u32 a", a, 4, 9, NULL));

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, name));
	ASSERT_TRUE(ue_wait_bit(a, 4, 1, true));
	ASSERT_TRUE(ue_wait_bit(a, 4, 9, true));
	ASSERT_TRUE(ue_wait_bit(b, 8, 45, true));
	EXPECT_EQ((1u << 1) | (1u << 9), *a);
	EXPECT_EQ(1ull << 45, *b);

	ASSERT_EQ(0, ue_set_enable(UE_SYS, name, false));
	ASSERT_TRUE(ue_wait_bit(a, 4, 1, false));
	ASSERT_TRUE(ue_wait_bit(a, 4, 9, false));
	ASSERT_TRUE(ue_wait_bit(b, 8, 45, false));
	EXPECT_EQ(0, *a);
	EXPECT_EQ(0, *b);
}

TEST_F(misc, events_share_word)
{
	uint32_t *w = (uint32_t *)self->page;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_sh1 u32 a", w, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_sh2 u32 a", w, 4, 1, NULL));

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_sh2"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 1, true));
	EXPECT_EQ(2, *w);

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_sh1"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 0, true));
	EXPECT_EQ(3, *w);

	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_sh2", false));
	ASSERT_TRUE(ue_wait_bit(w, 4, 1, false));
	EXPECT_EQ(1, *w);

	/* Unregistering one event leaves the other's bit alone */
	ASSERT_EQ(0, ue_unreg(self->t.fd, w, 1));
	EXPECT_EQ(1, *w);
	ASSERT_EQ(0, ue_unreg(self->t.fd, w, 0));
	EXPECT_EQ(0, *w);
}

/* A page that was never touched gets faulted in by the registration. */
TEST_F(misc, untouched_page)
{
	char *fresh = ue_map_page(PROT_READ | PROT_WRITE);
	uint64_t *val;

	ASSERT_TRUE(ue_nonnull(fresh));
	val = (uint64_t *)(fresh + 128);

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_fresh u32 a", val, 8, 33,
				  NULL));
	EXPECT_EQ(0, *val);

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_fresh"));
	ASSERT_TRUE(ue_wait_bit(val, 8, 33, true));
	EXPECT_EQ(1ull << 33, *val);

	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_fresh", false));
	ASSERT_TRUE(ue_wait_bit(val, 8, 33, false));

	ue_track_cleanup(&self->t);
	munmap(fresh, getpagesize());
}

/* Registering on an untouched page while the event is enabled. */
TEST_F(misc, untouched_page_enabled)
{
	char *fresh = ue_map_page(PROT_READ | PROT_WRITE);
	uint32_t *first = (uint32_t *)self->page;
	uint32_t *val;

	ASSERT_TRUE(ue_nonnull(fresh));
	val = (uint32_t *)(fresh + 4);

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_fresh2 u32 a", first, 4, 0,
				  NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_fresh2"));
	ASSERT_TRUE(ue_wait_bit(first, 4, 0, true));

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_fresh2 u32 a", val, 4, 17,
				  NULL));
	ASSERT_TRUE(ue_wait_bit(val, 4, 17, true));
	EXPECT_EQ(1u << 17, *val);

	ue_track_cleanup(&self->t);
	munmap(fresh, getpagesize());
}

/*
 * The page holding the value is dropped after registration; the kernel
 * must fault it back in when the state changes.
 */
TEST_F(misc, page_not_present)
{
	char *page = ue_map_page(PROT_READ | PROT_WRITE);
	uint32_t *val;
	int i;

	ASSERT_TRUE(ue_nonnull(page));
	val = (uint32_t *)(page + 256);

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_dontneed u32 a", val, 4, 5,
				  NULL));

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, madvise(page, getpagesize(), MADV_DONTNEED));
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_dontneed"));
		ASSERT_TRUE(ue_wait_bit(val, 4, 5, true));
		EXPECT_EQ(1u << 5, *val);

		ASSERT_EQ(0, madvise(page, getpagesize(), MADV_DONTNEED));
		ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_dontneed", false));
		ASSERT_TRUE(ue_wait_bit(val, 4, 5, false));
		EXPECT_EQ(0, *val);
	}

	/* Unregistering while the page is not present works as well */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_dontneed"));
	ASSERT_TRUE(ue_wait_bit(val, 4, 5, true));
	ASSERT_EQ(0, madvise(page, getpagesize(), MADV_DONTNEED));
	EXPECT_EQ(0, ue_unreg(self->t.fd, val, 5));
	EXPECT_EQ(0, *val);

	/* ... and stops all updates (sentinel shows updates are done) */
	*val = 0x100;
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_dontneed u32 a",
				  (uint32_t *)self->page, 4, 0, NULL));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_dontneed", false));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, false));
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_dontneed", true));
	ASSERT_TRUE(ue_wait_bit(self->page, 4, 0, true));
	EXPECT_EQ(0x100, *val);
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSUNREG argument checking
 */

static int unreg_raw(int fd, void *arg)
{
	return ioctl(fd, DIAG_IOCSUNREG, arg) == -1 ? -errno : 0;
}

TEST_F(misc, unreg_unknown)
{
	uint32_t *w = (uint32_t *)self->page;

	/* Before this process registered anything at all */
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w, 0));

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_unk u32 a", w, 4, 2, NULL));

	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w, 3));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w + 1, 2));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, NULL, 0));

	/* Works once, then it is gone */
	EXPECT_EQ(0, ue_unreg(self->t.fd, w, 2));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, w, 2));
}

/* Unregister is per process, any user_events_data fd will do. */
TEST_F(misc, unreg_other_fd)
{
	uint32_t *w = (uint32_t *)self->page;
	int fd2;

	ASSERT_EQ(0, ue_reg(self->t.fd, "uet_en_ofd u32 a", w, 4, 6, 0, NULL));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_ofd"));
	ASSERT_TRUE(ue_wait_bit(w, 4, 6, true));

	fd2 = ue_open_data();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, ue_unreg(fd2, w, 6));
	EXPECT_EQ(0, *w);
	close(fd2);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define UE_HI_BIT(bit)	(32 + (bit))
#else
#define UE_HI_BIT(bit)	(bit)
#endif

/*
 * Several registrations in one long: each is found, removed and updated
 * on its own, whichever order they come and go in; on 64-bit the same
 * bit named through a 4-byte and an 8-byte value is one bit.
 */
TEST_F(misc, same_long)
{
	uint32_t *lo = (uint32_t *)self->page, *hi = lo + 1;
	const char *cmd = "uet_en_long u32 a";

	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 0, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 1, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 2, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, hi, 4, 3, NULL));
	/* bit 3 of hi is bit 35 of the 8-byte value (bit 3 on big endian) */
	if (sizeof(long) == 8)
		EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd, lo, 8,
					      UE_HI_BIT(3), 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, cmd, lo, 4, 1, 0, NULL));

	/* last registered, a middle one, the first one */
	EXPECT_EQ(0, ue_unreg(self->t.fd, hi, 3));
	EXPECT_EQ(0, ue_unreg(self->t.fd, lo, 1));
	EXPECT_EQ(-ENOENT, ue_unreg(self->t.fd, lo, 1));
	EXPECT_EQ(0, ue_unreg(self->t.fd, lo, 0));

	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_en_long"));
	ASSERT_TRUE(ue_wait_bit(lo, 4, 2, true));
	EXPECT_EQ(1u << 2, *lo);
	EXPECT_EQ(0, *hi);

	/* the freed bits register again and follow the event at once */
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, lo, 4, 1, NULL));
	ASSERT_EQ(0, ue_track_reg(&self->t, cmd, hi, 4, 3, NULL));
	EXPECT_EQ(1u << 2 | 1u << 1, *lo);
	EXPECT_EQ(1u << 3, *hi);
	ASSERT_EQ(0, ue_set_enable(UE_SYS, "uet_en_long", false));
	ASSERT_TRUE(ue_wait_bit(lo, 4, 2, false));
	EXPECT_EQ(0, *lo);
	EXPECT_EQ(0, *hi);
}

TEST_F(misc, unreg_bad_size)
{
	uint32_t *w = (uint32_t *)self->page;
	struct user_unreg unreg;
	__u32 small[] = { 0, 1, 4, sizeof(unreg) - 1 };
	int i;

	ASSERT_EQ(16, sizeof(struct user_unreg));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_usize u32 a", w, 4, 0, NULL));

	for (i = 0; i < ARRAY_SIZE(small); i++) {
		memset(&unreg, 0, sizeof(unreg));
		unreg.size = small[i];
		unreg.disable_addr = (__u64)(uintptr_t)w;
		EXPECT_EQ(-EINVAL, unreg_raw(self->t.fd, &unreg))
			TH_LOG("size %u", small[i]);
	}

	memset(&unreg, 0, sizeof(unreg));
	unreg.size = getpagesize() + 1;
	unreg.disable_addr = (__u64)(uintptr_t)w;
	EXPECT_EQ(-E2BIG, unreg_raw(self->t.fd, &unreg));

	/* Still registered after all of that */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_en_usize u32 a", w, 4, 0,
				      0, NULL));
}

TEST_F(misc, unreg_reserved)
{
	uint32_t *w = (uint32_t *)self->page;
	struct user_unreg unreg;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_ures u32 a", w, 4, 0, NULL));

	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_addr = (__u64)(uintptr_t)w;
	unreg.__reserved = 1;
	EXPECT_EQ(-EINVAL, unreg_raw(self->t.fd, &unreg));

	unreg.__reserved = 0;
	unreg.__reserved2 = 0x100;
	EXPECT_EQ(-EINVAL, unreg_raw(self->t.fd, &unreg));

	unreg.__reserved2 = 0;
	EXPECT_EQ(0, unreg_raw(self->t.fd, &unreg));
}

/* Larger argument structs are accepted when the unknown tail is zero. */
TEST_F(misc, unreg_larger_tail)
{
	uint32_t *w = (uint32_t *)self->page;
	struct {
		struct user_unreg unreg;
		__u8 tail[8];
	} big;	/* user_reg/user_unreg are packed: no padding */
	int ret;

	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_en_utail u32 a", w, 4, 0, NULL));

	memset(&big, 0, sizeof(big));
	big.unreg.size = sizeof(big);
	big.unreg.disable_addr = (__u64)(uintptr_t)w;
	big.tail[7] = 1;
	/*
	 * Upstream reports E2BIG here, but may also say EINVAL as it checks
	 * the (then uninitialised) reserved fields after the failed copy.
	 */
	ret = unreg_raw(self->t.fd, &big);
	EXPECT_TRUE(ret == -E2BIG || ret == -EINVAL) TH_LOG("got %d", ret);

	big.tail[7] = 0;
	EXPECT_EQ(0, unreg_raw(self->t.fd, &big));
}

TEST_HARNESS_MAIN
