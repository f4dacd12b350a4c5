/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal interface of user_events: the command parser and the payload
 * checks, shared by the core (trace_user_events.c) and its KUnit suite.
 */
#ifndef _TRACE_USER_EVENTS_H
#define _TRACE_USER_EVENTS_H

#include <linux/limits.h>
#include <linux/types.h>
#include <linux/unaligned.h>

/* Longest DIAG_IOCSREG command, without the terminating NUL (as upstream). */
#define UEV_CMD_MAX		511
/* Largest char[N] / unsigned char[N] array (as upstream). */
#define UEV_ARRAY_MAX		1024
/* Bytes read after the '[' of char[N]: "1024]", "0x400]", "02000]". */
#define UEV_ARRAY_TAIL		7
/*
 * Largest total size of the fixed fields. Upstream has none and wraps its
 * 32-bit offsets; the trace core keeps field offsets in an int.
 */
#define UEV_FIELDS_SIZE_MAX	(INT_MAX / 2)

enum uev_field_kind {
	UEV_FIELD_SCALAR,	/* u8..s64, char, short, int and unsigned forms */
	UEV_FIELD_ARRAY,	/* char[N], unsigned char[N] */
	UEV_FIELD_STRUCT,	/* struct X name SIZE */
	UEV_FIELD_DATA_LOC,	/* __data_loc TYPE (any element type) */
	UEV_FIELD_REL_LOC,	/* __rel_loc TYPE (any element type) */
};

/**
 * struct uev_field - one field of a user event
 * @type:	type text as registered, as shown in the format file
 * @name:	field name
 * @offset:	offset of the field within the payload
 * @size:	size of the field in the payload
 * @kind:	&enum uev_field_kind
 * @is_signed:	the field is a signed integer
 * @is_string:	a dynamic field of a char type: must hold a NUL-terminated string
 */
struct uev_field {
	const char	*type;
	const char	*name;
	u32		offset;
	u32		size;
	u8		kind;
	bool		is_signed;
	bool		is_string;
};

/**
 * struct uev_loc - a __data_loc/__rel_loc field, as a write checks it
 * @word:	offset of its location word in the record (whose payload
 *		starts after a &struct trace_entry)
 * @base:	where the word's data offset counts from: 0 (the record's
 *		start) for __data_loc, the end of the word for __rel_loc
 * @is_string:	the data must be a NUL-terminated string
 */
struct uev_loc {
	u32	word;
	u32	base;
	bool	is_string;
};

/**
 * struct uev_format - a parsed event command: its name and fields
 * @size:	bytes of fixed fields, the smallest valid payload
 * @nr_fields:	number of entries in @fields
 * @nr_locs:	number of __data_loc/__rel_loc fields (checked on write)
 * @fields:	the fields in declaration order
 *
 * One allocation holds the structure, then @nr_locs &struct uev_loc
 * after @fields (uev_format_locs()), then the event name as registered
 * (without any multi-format id; uev_format_name()) and the strings of
 * the fields; free it with kfree().  A one-field event with short names
 * fits in 64 bytes.
 */
struct uev_format {
	u32		size;
	u16		nr_fields;
	u16		nr_locs;
	struct uev_field fields[] __counted_by(nr_fields);
};

/* Parse errors, as tracing/error_log shows them (see uev_format_parse()). */
enum uev_err_type {
	UEV_ERR_BAD_NAME,
	UEV_ERR_FLAGS,
	UEV_ERR_BAD_FIELD,
	UEV_ERR_BAD_TYPE,
	UEV_ERR_BAD_ARRAY,
	UEV_ERR_BAD_SIZE,
	UEV_ERR_DUP_FIELD,
	UEV_ERR_TOO_BIG,
};

/**
 * struct uev_err - where a command failed to parse
 * @type:	&enum uev_err_type
 * @pos:	offset of the offending text in the command
 */
struct uev_err {
	u8	type;
	u16	pos;
};

struct seq_file;

int uev_cmd_name_len(const char *cmd, struct uev_err *err);
struct uev_format *uev_format_parse(const char *cmd, struct uev_err *err);
bool uev_format_match(const struct uev_format *fmt, int argc,
		      const char **argv);
int uev_split_fields(const char *args, char *buf, const char **argv, int max);
void uev_format_print(const struct uev_format *fmt, struct seq_file *m);
const char *uev_field_conv(const struct uev_field *f);

#if IS_ENABLED(CONFIG_KUNIT)
u8 uev_long_bit(unsigned int off, u8 size, u8 bit, bool big_endian,
		unsigned int long_size);
u32 uev_state_next(u32 state, bool on);
u32 uev_state_stale(u32 state);
u32 uev_state_changes(u32 seen, u32 state);
unsigned long uev_fault_index(unsigned long base, unsigned long addr);
unsigned long uev_fault_addr(unsigned long base, unsigned long index);
#endif

/* The dynamic fields of @fmt, @fmt->nr_locs of them, in field order. */
static inline const struct uev_loc *
uev_format_locs(const struct uev_format *fmt)
{
	return (const struct uev_loc *)&fmt->fields[fmt->nr_fields];
}

/* The event name of @fmt, as registered. */
static inline const char *uev_format_name(const struct uev_format *fmt)
{
	return (const char *)(uev_format_locs(fmt) + fmt->nr_locs);
}

/**
 * uev_format_check_record() - check the dynamic fields of a record
 * @fmt: the event format
 * @rec: the record: a &struct trace_entry, then the payload
 * @len: bytes in @rec
 *
 * A __data_loc word holds (length << 16 | offset from the record start),
 * a __rel_loc word (length << 16 | offset from the end of the word). The
 * data must lie inside the record, and char strings must end with a NUL
 * inside their length. @rec is kernel memory the caller owns (the copy in
 * the consumer's buffer), so nothing can change it while it is checked.
 * Inline: every write of an event with dynamic fields runs it.
 *
 * Return: 0, or -EFAULT for a location outside the record or an
 * unterminated string.
 */
static __always_inline int uev_format_check_record(const struct uev_format *fmt,
						   const void *rec, u32 len)
{
	const struct uev_loc *l = uev_format_locs(fmt);
	const u8 *base = rec;
	u32 loc, start, stop;
	unsigned int n;

	for (n = fmt->nr_locs; n; n--, l++) {
		loc = get_unaligned((const u32 *)(base + l->word));
		start = (loc & 0xffff) + l->base;
		stop = start + (loc >> 16);
		if (stop > len)
			return -EFAULT;
		if (l->is_string && (stop == start || base[stop - 1]))
			return -EFAULT;
	}
	return 0;
}

#endif /* _TRACE_USER_EVENTS_H */
