// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the user_events command parser and payload checks.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/user_events.h>

#include "trace_user_events.h"

static struct uev_format *parse_ok(struct kunit *test, const char *cmd)
{
	struct uev_format *fmt = uev_format_parse(cmd);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(fmt), "rejected: \"%s\"", cmd);
	return fmt;
}

static void expect_einval(struct kunit *test, const char *cmd)
{
	struct uev_format *fmt = uev_format_parse(cmd);

	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(fmt), -EINVAL,
			    "accepted: \"%s\"", cmd);
	if (!IS_ERR(fmt))
		kfree(fmt);
}

static void parse_name_only(struct kunit *test)
{
	struct uev_format *fmt = parse_ok(test, "simple");

	KUNIT_EXPECT_STREQ(test, fmt->name, "simple");
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, 0);
	KUNIT_EXPECT_EQ(test, fmt->size, 0);
	kfree(fmt);
}

static const struct {
	const char *cmd;
	const char *type;
	u16 size;
	bool is_signed;
} scalar_cases[] = {
	{ "e u8 a", "u8", 1, false },
	{ "e s8 a", "s8", 1, true },
	{ "e char a", "char", 1, true },
	{ "e unsigned char a", "unsigned char", 1, false },
	{ "e u16 a", "u16", 2, false },
	{ "e s16 a", "s16", 2, true },
	{ "e short a", "short", 2, true },
	{ "e unsigned short a", "unsigned short", 2, false },
	{ "e u32 a", "u32", 4, false },
	{ "e s32 a", "s32", 4, true },
	{ "e int a", "int", 4, true },
	{ "e unsigned int a", "unsigned int", 4, false },
	{ "e u64 a", "u64", 8, false },
	{ "e s64 a", "s64", 8, true },
	{ "e char[20] a", "char[20]", 20, false },
	{ "e unsigned char[20] a", "unsigned char[20]", 20, false },
	{ "e char[0x14] a", "char[20]", 20, false },
	{ "e char[1024] a", "char[1024]", 1024, false },
	{ "e __data_loc char[] a", "__data_loc char[]", 4, false },
	{ "e __data_loc unsigned char[] a", "__data_loc unsigned char[]", 4, false },
	{ "e __rel_loc char[] a", "__rel_loc char[]", 4, false },
	{ "e __rel_loc unsigned char[] a", "__rel_loc unsigned char[]", 4, false },
	{ "e struct my_s a 20", "struct my_s", 20, false },
};

static void parse_every_type(struct kunit *test)
{
	struct uev_format *fmt;
	int i;

	for (i = 0; i < ARRAY_SIZE(scalar_cases); i++) {
		fmt = parse_ok(test, scalar_cases[i].cmd);
		KUNIT_EXPECT_EQ(test, fmt->nr_fields, 1);
		KUNIT_EXPECT_STREQ(test, fmt->fields[0].type, scalar_cases[i].type);
		KUNIT_EXPECT_STREQ(test, fmt->fields[0].name, "a");
		KUNIT_EXPECT_EQ(test, fmt->fields[0].size, scalar_cases[i].size);
		KUNIT_EXPECT_EQ(test, fmt->fields[0].is_signed,
				scalar_cases[i].is_signed);
		KUNIT_EXPECT_EQ(test, fmt->size, scalar_cases[i].size);
		kfree(fmt);
	}
}

static void parse_layout(struct kunit *test)
{
	struct uev_format *fmt;

	fmt = parse_ok(test, "e u8 a; u64 b;__rel_loc char[] c;struct x d 3");
	KUNIT_ASSERT_EQ(test, fmt->nr_fields, 4);
	KUNIT_EXPECT_EQ(test, fmt->fields[0].offset, 0);
	KUNIT_EXPECT_EQ(test, fmt->fields[1].offset, 1);	/* packed */
	KUNIT_EXPECT_EQ(test, fmt->fields[2].offset, 9);
	KUNIT_EXPECT_EQ(test, fmt->fields[3].offset, 13);
	KUNIT_EXPECT_EQ(test, fmt->size, 16);
	KUNIT_EXPECT_EQ(test, fmt->nr_locs, 1);
	KUNIT_EXPECT_TRUE(test, fmt->fields[2].is_string);
	KUNIT_EXPECT_EQ(test, fmt->fields[2].kind, UEV_FIELD_REL_LOC);
	kfree(fmt);
}

static void parse_rejects(struct kunit *test)
{
	static const char * const bad[] = {
		"", " e u32 a", "e:flag u32 a", "e: u32 a", "1e u32 a",
		"e-x u32 a", "e u32", "e u32 a b", "e long a", "e u31 a",
		"e unsigned u32 a", "e unsigned a", "e char[aa] a",
		"e char[9999] a", "e char[0] a", "e char[1025] a",
		"e char[0x0000000000001] a", "e char[] a", "e char[4 a",
		"e struct x a", "e struct x a 0", "e struct x a -1",
		"e struct x a 70000", "e char a 20", "e u32 a; u32 a",
		"e u32 1a", "e u32 a-b", "e __data_loc u32[] a",
		"e __data_loc char a", "e __rel_loc char[]",
		"e struct x-y a 4",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		expect_einval(test, bad[i]);
}

static void parse_limits(struct kunit *test)
{
	char *cmd = kunit_kzalloc(test, 1024, GFP_KERNEL);
	int i, pos;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	/* Names: UEV_NAME_MAX characters pass, one more fails. */
	memset(cmd, 'n', UEV_NAME_MAX);
	kfree(parse_ok(test, cmd));
	cmd[UEV_NAME_MAX] = 'n';
	expect_einval(test, cmd);

	/* Commands: UEV_CMD_MAX bytes pass, one more fails. */
	memset(cmd, 0, 1024);
	pos = sprintf(cmd, "e u8 a");
	memset(cmd + pos, ';', UEV_CMD_MAX - pos);
	kfree(parse_ok(test, cmd));
	cmd[UEV_CMD_MAX] = ';';
	expect_einval(test, cmd);

	/* Fields: UEV_FIELDS_MAX pass, one more fails. */
	pos = sprintf(cmd, "e");
	for (i = 0; i < UEV_FIELDS_MAX; i++)
		pos += sprintf(cmd + pos, "%su8 f%d", i ? ";" : " ", i);
	kfree(parse_ok(test, cmd));
	sprintf(cmd + pos, ";u8 z");
	expect_einval(test, cmd);

	/* Fixed payload larger than any consumer holds. */
	sprintf(cmd, "e struct a x %lu; u8 y", UEV_MAX_PAYLOAD);
	expect_einval(test, cmd);
}

static bool formats_match(struct kunit *test, const char *a, const char *b)
{
	struct uev_format *fa = parse_ok(test, a), *fb = parse_ok(test, b);
	bool eq = uev_format_equal(fa, fb);

	kfree(fa);
	kfree(fb);
	return eq;
}

static void match_rules(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, formats_match(test, "e u32 a; u32 b", "e u32 a;u32 b"));
	KUNIT_EXPECT_TRUE(test, formats_match(test, "e u32 a; u32 b", "e u32 a; u32 b;"));
	KUNIT_EXPECT_TRUE(test, formats_match(test, "e  u32   a ;  u32 b", "e u32 a; u32 b"));
	KUNIT_EXPECT_TRUE(test, formats_match(test, "e char[0x10] a", "e char[16] a"));
	KUNIT_EXPECT_TRUE(test, formats_match(test, "e", "e "));
	KUNIT_EXPECT_TRUE(test, formats_match(test, "e struct s a 20", "e struct s a 20"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e u32 a", "e u32 b"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e u32 a; u32 b", "e u32 b; u32 a"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e u64 a", "e u32 a"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e struct s a 20", "e struct s a 21"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e struct s a 20", "e struct t a 20"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e u32 a", "e u32 a; u32 b"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e", "f"));
	KUNIT_EXPECT_FALSE(test, formats_match(test, "e int a", "e s32 a"));
}

static void print_canonical(struct kunit *test)
{
	struct uev_format *fmt;
	char buf[128];
	int len;

	fmt = parse_ok(test, "e  u32 a;char[0x4] b;struct s c 3;__rel_loc char[] d;");
	len = uev_format_print(fmt, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "e u32 a; char[4] b; struct s c 3; __rel_loc char[] d");
	KUNIT_EXPECT_EQ(test, len, (int)strlen(buf));
	/* Truncation reports the full length like snprintf(). */
	KUNIT_EXPECT_EQ(test, uev_format_print(fmt, buf, 8), len);
	KUNIT_EXPECT_EQ(test, strlen(buf), 7);
	KUNIT_EXPECT_EQ(test, uev_format_print(fmt, NULL, 0), len);
	kfree(fmt);
}

#define HDR 8

/* Build a record: HDR bytes, a u32 loc word at payload offset 0, data. */
static u32 record_with(u8 *rec, u32 loc, const char *data, u32 dlen)
{
	memset(rec, 0xaa, HDR);
	put_unaligned(loc, (u32 *)(rec + HDR));
	memcpy(rec + HDR + 4, data, dlen);
	return HDR + 4 + dlen;
}

static void check_data_loc(struct kunit *test)
{
	struct uev_format *fmt = parse_ok(test, "e __data_loc char[] s");
	u8 rec[64];
	u32 len;

	/* data_loc offsets count from the record start (header included) */
	len = record_with(rec, DYN_LOC(HDR + 4, 3), "hi", 3);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), 0);
	/* one byte past the end */
	len = record_with(rec, DYN_LOC(HDR + 4, 4), "hi", 3);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), -EFAULT);
	/* not NUL-terminated */
	len = record_with(rec, DYN_LOC(HDR + 4, 2), "hi", 3);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), -EFAULT);
	/* empty strings need their NUL too */
	len = record_with(rec, DYN_LOC(HDR + 4, 0), "", 1);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), -EFAULT);
	/* huge offset */
	len = record_with(rec, DYN_LOC(0xffff, 1), "", 1);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), -EFAULT);
	kfree(fmt);
}

static void check_rel_loc(struct kunit *test)
{
	struct uev_format *fmt = parse_ok(test, "e __rel_loc char[] s");
	struct uev_format *raw = parse_ok(test, "e __rel_loc unsigned char[] s");
	u8 rec[64];
	u32 len;

	/* rel_loc offsets count from the end of the loc word */
	len = record_with(rec, DYN_LOC(0, 3), "hi", 3);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), 0);
	len = record_with(rec, DYN_LOC(1, 3), "hi", 3);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), -EFAULT);
	len = record_with(rec, DYN_LOC(0, 3), "abc", 3);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec, len, HDR), -EFAULT);
	/* unsigned char[] is bytes, not a string: no NUL required */
	KUNIT_EXPECT_EQ(test, uev_format_check_record(raw, rec, len, HDR), 0);
	len = record_with(rec, DYN_LOC(0, 0), "", 0);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(raw, rec, len, HDR), 0);
	kfree(fmt);
	kfree(raw);
}

static struct kunit_case uev_parser_cases[] = {
	KUNIT_CASE(parse_name_only),
	KUNIT_CASE(parse_every_type),
	KUNIT_CASE(parse_layout),
	KUNIT_CASE(parse_rejects),
	KUNIT_CASE(parse_limits),
	KUNIT_CASE(match_rules),
	KUNIT_CASE(print_canonical),
	KUNIT_CASE(check_data_loc),
	KUNIT_CASE(check_rel_loc),
	{}
};

static struct kunit_suite uev_parser_suite = {
	.name = "user_events_parser",
	.test_cases = uev_parser_cases,
};

kunit_test_suite(uev_parser_suite);

MODULE_DESCRIPTION("KUnit tests for user_events");
MODULE_LICENSE("GPL");
