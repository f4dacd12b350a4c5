// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the user_events command parser, the text match used when
 * an event is registered again, the record checks and the enable-bit
 * locator. Every table row is one parameterised case.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/unaligned.h>
#include <linux/user_events.h>

#include "trace_user_events.h"

/*
 * A command as a case description: quoted, with tabs and other
 * non-printable bytes escaped, so that "" and "e\tx" stay readable.
 */
static void uev_cmd_quote(const char *cmd, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"", (int)strlen(cmd),
		 cmd);
}

/* ---- commands that parse ----------------------------------------------- */

/* With @type set, the command has one field: its type as listed, its kind */
struct uev_cmd_case {
	const char	*cmd;
	const char	*name;
	int		nr_fields;
	u32		size;
	const char	*type;
	u8		kind;
	bool		is_signed;
	bool		is_string;
};

static const struct uev_cmd_case uev_cmd_cases[] = {
	{ "e u8 a", "e", 1, 1, "u8", UEV_FIELD_SCALAR, false },
	{ "e s8 a", "e", 1, 1, "s8", UEV_FIELD_SCALAR, true },
	{ "e char a", "e", 1, 1, "char", UEV_FIELD_SCALAR, true },
	{ "e unsigned char a", "e", 1, 1, "unsigned char", UEV_FIELD_SCALAR, false },
	{ "e u16 a", "e", 1, 2, "u16", UEV_FIELD_SCALAR, false },
	{ "e s16 a", "e", 1, 2, "s16", UEV_FIELD_SCALAR, true },
	{ "e short a", "e", 1, 2, "short", UEV_FIELD_SCALAR, true },
	{ "e unsigned short a", "e", 1, 2, "unsigned short", UEV_FIELD_SCALAR, false },
	{ "e u32 a", "e", 1, 4, "u32", UEV_FIELD_SCALAR, false },
	{ "e s32 a", "e", 1, 4, "s32", UEV_FIELD_SCALAR, true },
	{ "e int a", "e", 1, 4, "int", UEV_FIELD_SCALAR, true },
	{ "e unsigned int a", "e", 1, 4, "unsigned int", UEV_FIELD_SCALAR, false },
	{ "e u64 a", "e", 1, 8, "u64", UEV_FIELD_SCALAR, false },
	{ "e s64 a", "e", 1, 8, "s64", UEV_FIELD_SCALAR, true },
	{ "e char[20] a", "e", 1, 20, "char[20]", UEV_FIELD_ARRAY, true },
	{ "e unsigned char[20] a", "e", 1, 20, "unsigned char[20]", UEV_FIELD_ARRAY },
	/* the type is kept as written; N in any base kstrtouint() reads */
	{ "e char[0x14] a", "e", 1, 20, "char[0x14]", UEV_FIELD_ARRAY, true },
	{ "e char[024] a", "e", 1, 20, "char[024]", UEV_FIELD_ARRAY, true },
	{ "e char[1024] a", "e", 1, 1024, "char[1024]", UEV_FIELD_ARRAY, true },
	{ "e char[4]xy a", "e", 1, 4, "char[4]xy", UEV_FIELD_ARRAY, true },
	{ "e struct my_s a 20", "e", 1, 20, "struct my_s", UEV_FIELD_STRUCT, true },
	{ "e struct s a 100000", "e", 1, 100000, "struct s", UEV_FIELD_STRUCT, true },
	/* dynamic fields of any element type; char ones are strings */
	{ "e __data_loc char[] a", "e", 1, 4, "__data_loc char[]",
	  UEV_FIELD_DATA_LOC, true, true },
	{ "e __data_loc unsigned char[] a", "e", 1, 4, "__data_loc unsigned char[]",
	  UEV_FIELD_DATA_LOC, true, true },
	{ "e __rel_loc char[] a", "e", 1, 4, "__rel_loc char[]",
	  UEV_FIELD_REL_LOC, true, true },
	{ "e __rel_loc u8[] a", "e", 1, 4, "__rel_loc u8[]", UEV_FIELD_REL_LOC, true },
	{ "e __rel_loc u32[] a", "e", 1, 4, "__rel_loc u32[]", UEV_FIELD_REL_LOC, true },
	{ "e __data_loc u64[] a", "e", 1, 4, "__data_loc u64[]", UEV_FIELD_DATA_LOC, true },
	{ "e __data_loc s32[] a", "e", 1, 4, "__data_loc s32[]", UEV_FIELD_DATA_LOC, true },
	/* a trailing space gives an empty name, as upstream */
	{ "e u32 ", "e", 1, 4, "u32", UEV_FIELD_SCALAR, false },
	/* whole commands */
	{ "simple", "simple", 0, 0 },
	{ "e ", "e", 0, 0 },
	{ "e u8 a; u64 b;__rel_loc char[] c;struct x d 3", "e", 4, 16 },
	{ "e u32 a;;u32 b;", "e", 2, 8 },
	/* offsets past 64 KiB (pages of 256 KiB hold such records) */
	{ "e struct s a 70000; u32 b; struct t c 65536; u8 d", "e", 4, 135541 },
	{ "e u32 a;\tu32 b", "e", 2, 8 },
	/* names run to the first space: EventHeader's, dots, dashes */
	{ "MyProvider_L5K1Gmygroup u8 a", "MyProvider_L5K1Gmygroup", 1, 1 },
	{ "1st-event.v2 u8 a", "1st-event.v2", 1, 1 },
	{ "e\tx u8 a", "e\tx", 1, 1 },
	/* commands of existing clients: OpenTelemetry, .NET */
	{ "otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer",
	  "otlp_metrics", 3, 16 },
	{ "dotnet u8 version; u16 event_id; __rel_loc u8[] extension; __rel_loc u8[] payload",
	  "dotnet", 4, 11 },
};

static void uev_cmd_desc(const struct uev_cmd_case *c, char *desc)
{
	uev_cmd_quote(c->cmd, desc);
}

KUNIT_ARRAY_PARAM(uev_cmd, uev_cmd_cases, uev_cmd_desc);

static void parse_command(struct kunit *test)
{
	const struct uev_cmd_case *c = test->param_value;
	struct uev_format *fmt = uev_format_parse(c->cmd, NULL);
	u32 off = 0;
	int i;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(fmt), "refused: %ld", PTR_ERR(fmt));
	KUNIT_EXPECT_STREQ(test, uev_format_name(fmt), c->name);
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, c->nr_fields);
	/* packed: each field right after the one before, the record their sum */
	for (i = 0; i < fmt->nr_fields; i++) {
		KUNIT_EXPECT_EQ(test, fmt->fields[i].offset, off);
		off += fmt->fields[i].size;
	}
	KUNIT_EXPECT_EQ(test, off, c->size);
	KUNIT_EXPECT_EQ(test, fmt->size, c->size);
	if (c->type && fmt->nr_fields == 1) {
		KUNIT_EXPECT_STREQ(test, fmt->fields[0].type, c->type);
		KUNIT_EXPECT_EQ(test, fmt->fields[0].kind, c->kind);
		KUNIT_EXPECT_EQ(test, fmt->fields[0].is_signed, c->is_signed);
		KUNIT_EXPECT_EQ(test, fmt->fields[0].is_string, c->is_string);
	}
	kfree(fmt);
}

/* ---- commands refused with EINVAL -------------------------------------- */

static const char * const uev_bad_cases[] = {
	"", " e u32 a", "e:flag u32 a", "e: u32 a", "a/b u32 a", ". u8 a",
	".. u8 a", "e u32", "e u32 a b", "e long a", "e u31 a",
	"e unsigned u32 a", "e unsigned a", "e char[aa] a", "e char[9999] a",
	"e char[0] a", "e char[1025] a", "e char[00000001] a", "e char[] a",
	"e char[4 a", "e struct x a", "e struct x a 0", "e struct x a -1",
	"e struct x a 4294967296", "e char a 20", "e u32  a", "e u32 a ;u32 b",
	"e u32\ta", "e __rel_loc char[]",
	"e __data_loc cpumask_t[] a",
	"e struct a x 1073741823; struct b y 1073741823", "e u32 a; u64 a",
};

static void uev_bad_desc(const char * const *c, char *desc)
{
	uev_cmd_quote(*c, desc);
}

KUNIT_ARRAY_PARAM(uev_bad, uev_bad_cases, uev_bad_desc);

static void parse_refused(struct kunit *test)
{
	const char * const *cmd = test->param_value;
	struct uev_format *fmt = uev_format_parse(*cmd, NULL);

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(fmt), -EINVAL);
	if (!IS_ERR(fmt))
		kfree(fmt);
}

/* ---- what tracing/error_log says, and where the caret goes ------------ */

struct uev_where_case {
	const char	*cmd;
	u8		type;
	u16		pos;
};

static const struct uev_where_case uev_where_cases[] = {
	{ "e:flag u32 a", UEV_ERR_FLAGS, 1 },
	{ "a/b u32 a", UEV_ERR_BAD_NAME, 0 },
	{ "e u31 a", UEV_ERR_BAD_TYPE, 2 },
	{ "e u32 a; char[2000] b", UEV_ERR_BAD_ARRAY, 9 },
	{ "e struct s a 0", UEV_ERR_BAD_SIZE, 13 },
	{ "e u32 a; u64 a", UEV_ERR_DUP_FIELD, 13 },
	{ "e u32  a", UEV_ERR_BAD_FIELD, 7 },
	{ "e u32", UEV_ERR_BAD_FIELD, 2 },
};

static void uev_where_desc(const struct uev_where_case *c, char *desc)
{
	uev_cmd_quote(c->cmd, desc);
}

KUNIT_ARRAY_PARAM(uev_where, uev_where_cases, uev_where_desc);

static void parse_error_where(struct kunit *test)
{
	const struct uev_where_case *c = test->param_value;
	struct uev_err err = { .type = 0xff };

	KUNIT_EXPECT_EQ(test, PTR_ERR(uev_format_parse(c->cmd, &err)), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, c->type);
	KUNIT_EXPECT_EQ(test, err.pos, c->pos);
}

/* The parser takes any length: the 511 bytes are DIAG_IOCSREG's limit. */
static void parse_lengths(struct kunit *test)
{
	char *cmd = kunit_kzalloc(test, 2 * UEV_CMD_MAX + 2, GFP_KERNEL);
	struct uev_format *fmt;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	memset(cmd, 'n', 2 * UEV_CMD_MAX);
	memcpy(cmd + UEV_CMD_MAX, " u32 a", 6);
	fmt = uev_format_parse(cmd, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fmt));
	KUNIT_EXPECT_EQ(test, strlen(uev_format_name(fmt)), UEV_CMD_MAX);
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, 1);
	kfree(fmt);
}

/* ---- registering an existing name: the text must match ------------------- */

struct uev_match_case {
	const char	*registered;
	const char	*args;
	bool		match;
};

static const struct uev_match_case uev_match_cases[] = {
	{ "e u32 a; u32 b", "u32 a; u32 b", true },
	{ "e u32 a; u32 b", "u32 a;u32 b", true },
	{ "e u32 a; u32 b", "u32 a; u32 b;", true },
	{ "e u32 a; u32 b", "  u32\ta ;u32 b", false },
	{ "e u32 a; u32 b", "u32  a;  u32 b", true },
	{ "e", "", true },
	{ "e u32 a", "", false },
	{ "e struct s a 20", "struct s a 20", true },
	{ "e struct s a 20", "struct s a 21", false },
	{ "e char[0x10] a", "char[16] a", false },
	{ "e u32 a", "u32 b", false },
	{ "e u32 a; u32 b", "u32 b; u32 a", false },
	{ "e u32 a", "u32 a; u32 b", false },
	{ "e int a", "s32 a", false },
	{ "e __rel_loc u8[] a", "__rel_loc u8[] a", true },
	/* types of several words, word by word; a ';' only ends a field */
	{ "e unsigned int a; u32 b", "unsigned int a;u32 b;", true },
	{ "e unsigned int a", "unsigned  int\ta", true },
	{ "e unsigned int a", "unsigned; int a", false },
	{ "e struct s a 20; u32 b", "struct s a 20; u32 b", true },
	{ "e struct s a 20", "struct s a; 20", false },
	{ "e struct s a 20", "struct s a 20 ;", false },
	{ "e u32 a", "u32 a;;", false },
	{ "e u32 a", "u32; a", false },
	{ "e __data_loc char[] a; u32 b", "__data_loc char[] a;u32 b", true },
	{ "e u32 a; u32 b", "u32 a u32 b", false },
	/* an empty name is an empty word, which only the field's ';' ends */
	{ "e __data_loc f1 ; u32 b", "__data_loc f1 ; u32 b", true },
	{ "e __data_loc f1 ; u32 b", "__data_loc f1; u32 b", false },
	{ "e __data_loc f1 ; u32 b", "__data_loc f1 u32 b", false },
	{ "e u32 a; __data_loc f1 ", "u32 a; __data_loc f1", false },
	{ "e u32 a; __data_loc f1 ", "u32 a; __data_loc f1 ;", true },
};

static void uev_match_desc(const struct uev_match_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\" vs \"%*pE\"",
		 (int)strlen(c->registered), c->registered,
		 (int)strlen(c->args), c->args);
}

KUNIT_ARRAY_PARAM(uev_match, uev_match_cases, uev_match_desc);

static void match_text(struct kunit *test)
{
	const struct uev_match_case *c = test->param_value;
	struct uev_format *fmt = uev_format_parse(c->registered, NULL);
	size_t len = strlen(c->args);
	char *buf = kunit_kzalloc(test, 2 * len + 1, GFP_KERNEL);
	const char **argv = kunit_kcalloc(test, len + 1, sizeof(*argv),
					  GFP_KERNEL);
	int argc;

	KUNIT_ASSERT_FALSE(test, IS_ERR(fmt));
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, argv);
	argc = uev_split_fields(c->args, buf, argv, len + 1);
	KUNIT_ASSERT_GE(test, argc, 0);
	KUNIT_EXPECT_EQ(test, uev_format_match(fmt, argc, argv), c->match);
	kfree(fmt);
}

/* ---- record checks --------------------------------------------------------- */

#define HDR sizeof(struct trace_entry)

struct uev_record_case {
	const char	*desc;
	const char	*cmd;
	u32		loc;
	const char	*data;
	u32		dlen;
	int		ret;
};

static const struct uev_record_case uev_record_cases[] = {
	/* __data_loc offsets count from the record start, header included */
	{ "data_loc string", "e __data_loc char[] s", DYN_LOC(HDR + 4, 3),
	  "hi", 3, 0 },
	{ "data_loc past the end", "e __data_loc char[] s",
	  DYN_LOC(HDR + 4, 4), "hi", 3, -EFAULT },
	{ "data_loc without NUL", "e __data_loc char[] s",
	  DYN_LOC(HDR + 4, 2), "hi", 3, -EFAULT },
	{ "data_loc empty string", "e __data_loc char[] s",
	  DYN_LOC(HDR + 4, 0), "", 1, -EFAULT },
	{ "data_loc huge offset", "e __data_loc char[] s", DYN_LOC(0xffff, 1),
	  "", 1, -EFAULT },
	/* __rel_loc offsets count from the end of the loc word */
	{ "rel_loc string", "e __rel_loc char[] s", DYN_LOC(0, 3), "hi", 3, 0 },
	{ "rel_loc past the end", "e __rel_loc char[] s", DYN_LOC(1, 3), "hi",
	  3, -EFAULT },
	{ "rel_loc without NUL", "e __rel_loc char[] s", DYN_LOC(0, 3), "abc",
	  3, -EFAULT },
	/* unsigned char is a char type: a string, as upstream checks it */
	{ "rel_loc unsigned char without NUL", "e __rel_loc unsigned char[] s",
	  DYN_LOC(0, 3), "abc", 3, -EFAULT },
	{ "data_loc unsigned char string", "e __data_loc unsigned char[] s",
	  DYN_LOC(HDR + 4, 3), "ab", 3, 0 },
	/* binary element types are bytes: any content, empty too */
	{ "rel_loc u8 bytes", "e __rel_loc u8[] s", DYN_LOC(0, 3), "abc", 3, 0 },
	{ "rel_loc u8 empty", "e __rel_loc u8[] s", DYN_LOC(0, 0), "", 0, 0 },
	{ "rel_loc u32 past the end", "e __rel_loc u32[] s", DYN_LOC(0, 8),
	  "abcd", 4, -EFAULT },
	{ "data_loc u64 inside", "e __data_loc u64[] s", DYN_LOC(HDR + 4, 8),
	  "abcdefgh", 8, 0 },
};

static void uev_record_desc(const struct uev_record_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uev_record, uev_record_cases, uev_record_desc);

/* A record: HDR bytes, a u32 loc word at payload offset 0, then data. */
static void check_record(struct kunit *test)
{
	const struct uev_record_case *c = test->param_value;
	struct uev_format *fmt = uev_format_parse(c->cmd, NULL);
	u8 rec[64];

	KUNIT_ASSERT_FALSE(test, IS_ERR(fmt));
	memset(rec, 0xaa, sizeof(rec));
	put_unaligned(c->loc, (u32 *)(rec + HDR));
	memcpy(rec + HDR + 4, c->data, c->dlen);
	KUNIT_EXPECT_EQ(test, uev_format_check_record(fmt, rec,
						      HDR + 4 + c->dlen),
			c->ret);
	kfree(fmt);
}

/* ---- where the enable bit lies in its long, both byte orders -------------- */

struct uev_bit_case {
	unsigned int	off;
	u8		size;
	u8		bit;
	bool		big_endian;
	unsigned int	long_size;
	u8		lbit;
};

static const struct uev_bit_case uev_bit_cases[] = {
	{ 0, 4, 0, false, 8, 0 },
	{ 0, 4, 31, false, 8, 31 },
	{ 4, 4, 0, false, 8, 32 },
	{ 4, 4, 31, false, 8, 63 },
	{ 0, 8, 0, false, 8, 0 },
	{ 0, 8, 63, false, 8, 63 },
	{ 0, 4, 0, true, 8, 32 },
	{ 0, 4, 31, true, 8, 63 },
	{ 4, 4, 0, true, 8, 0 },
	{ 4, 4, 31, true, 8, 31 },
	{ 0, 8, 0, true, 8, 0 },
	{ 0, 8, 63, true, 8, 63 },
	{ 0, 4, 5, false, 4, 5 },
	{ 0, 4, 5, true, 4, 5 },
};

static void uev_bit_desc(const struct uev_bit_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s long%u: %u-byte value at +%u, bit %u",
		 c->big_endian ? "BE" : "LE", c->long_size * 8, c->size,
		 c->off, c->bit);
}

KUNIT_ARRAY_PARAM(uev_bit, uev_bit_cases, uev_bit_desc);

static void locate_bit(struct kunit *test)
{
	const struct uev_bit_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, uev_long_bit(c->off, c->size, c->bit,
					   c->big_endian, c->long_size),
			c->lbit);
}

/*
 * Enabler state stamps: a state the event can reach has its "on" bit equal
 * to the parity of its change count (every change flips it), a stale stamp
 * never does, across the wrap of the count too.
 */
static const u32 uev_state_cases[] = {
	0, 3, 4, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff,
};

static void uev_state_desc(const u32 *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "state %#010x", *c);
}

KUNIT_ARRAY_PARAM(uev_state, uev_state_cases, uev_state_desc);

static bool uev_state_reachable(u32 state)
{
	return (state & 1) == ((state >> 1) & 1);
}

static void state_stamps(struct kunit *test)
{
	u32 state = *(const u32 *)test->param_value;
	u32 next = uev_state_next(state, !(state & 1));

	KUNIT_ASSERT_TRUE(test, uev_state_reachable(state));
	KUNIT_EXPECT_EQ(test, next >> 1, ((state >> 1) + 1) & (U32_MAX >> 1));
	KUNIT_EXPECT_EQ(test, next & 1, !(state & 1));
	KUNIT_EXPECT_TRUE(test, uev_state_reachable(next));
	KUNIT_EXPECT_FALSE(test, uev_state_reachable(uev_state_stale(state)));
	KUNIT_EXPECT_NE(test, uev_state_stale(state), state);
	KUNIT_EXPECT_NE(test, uev_state_stale(state), next);
	/* the changes a file is told of, across the counter's wrap */
	KUNIT_EXPECT_EQ(test, uev_state_changes(state, state), 0);
	KUNIT_EXPECT_EQ(test, uev_state_changes(state, next), 1);
	KUNIT_EXPECT_EQ(test, uev_state_changes(state, uev_state_next(next, state & 1)), 2);
}

/*
 * The fault queue's index of a word: its distance from the first word
 * queued, folded so that the nearest words have the smallest indexes, one
 * index for each word either side, and back to the same address, up to
 * the ends of the address space; and so do the words around each case.
 */
struct uev_fault_case {
	unsigned long	base;
	unsigned long	addr;
	unsigned long	index;
};

#define UEV_LONG	sizeof(long)
#define UEV_TOP		(ULONG_MAX & ~(UEV_LONG - 1))	/* the last word */

static const struct uev_fault_case uev_fault_cases[] = {
	{ 0x10000, 0x10000, 0 },
	{ 0x10000, 0x10000 - UEV_LONG, 1 },
	{ 0x10000, 0x10000 + UEV_LONG, 2 },
	{ 0x10000, 0x10000 - 2 * UEV_LONG, 3 },
	{ 0x10000, 0x10000 + 511 * UEV_LONG, 1022 },
	{ 0x10000, 0x10000 - 512 * UEV_LONG, 1023 },
	{ 0, UEV_TOP, 2 * (ULONG_MAX / UEV_LONG) },
	{ UEV_TOP, 0, 2 * (ULONG_MAX / UEV_LONG) - 1 },
#if BITS_PER_LONG == 64
	/* a library's word, the first one queued the executable's */
	{ 0x555555554000, 0x7ffff7fc0000,
	  2 * ((0x7ffff7fc0000 - 0x555555554000) / UEV_LONG) },
#endif
};

static void uev_fault_desc(const struct uev_fault_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "word %#lx, first %#lx", c->addr,
		 c->base);
}

KUNIT_ARRAY_PARAM(uev_fault, uev_fault_cases, uev_fault_desc);

static void fault_index(struct kunit *test)
{
	const struct uev_fault_case *c = test->param_value;
	unsigned long a;
	long k;

	KUNIT_EXPECT_EQ(test, uev_fault_index(c->base, c->addr), c->index);
	KUNIT_EXPECT_EQ(test, uev_fault_addr(c->base, c->index), c->addr);
	/* the words around, within the address space */
	for (k = -128; k < 128; k++) {
		a = c->addr + k * (long)UEV_LONG;
		if ((k < 0 && a > c->addr) || (k > 0 && a < c->addr))
			continue;
		KUNIT_ASSERT_EQ(test, uev_fault_addr(c->base,
						     uev_fault_index(c->base, a)),
				a);
	}
}

static struct kunit_case uev_parser_cases[] = {
	KUNIT_CASE_PARAM(parse_command, uev_cmd_gen_params),
	KUNIT_CASE_PARAM(parse_refused, uev_bad_gen_params),
	KUNIT_CASE_PARAM(parse_error_where, uev_where_gen_params),
	KUNIT_CASE(parse_lengths),
	KUNIT_CASE_PARAM(match_text, uev_match_gen_params),
	KUNIT_CASE_PARAM(check_record, uev_record_gen_params),
	KUNIT_CASE_PARAM(locate_bit, uev_bit_gen_params),
	KUNIT_CASE_PARAM(state_stamps, uev_state_gen_params),
	KUNIT_CASE_PARAM(fault_index, uev_fault_gen_params),
	{}
};

static struct kunit_suite uev_parser_suite = {
	.name = "user_events_parser",
	.test_cases = uev_parser_cases,
};

kunit_test_suite(uev_parser_suite);

MODULE_DESCRIPTION("KUnit tests for user_events");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
