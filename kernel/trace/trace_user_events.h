/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal interface of user_events: the command parser and the payload
 * checks, shared by the core (trace_user_events.c) and its KUnit suite.
 */
#ifndef _TRACE_USER_EVENTS_H
#define _TRACE_USER_EVENTS_H

#include <linux/types.h>

/* Longest command accepted, without the terminating NUL (as upstream). */
#define UEV_CMD_MAX		511
/* Longest event name; leaves room for the ".<hex id>" of multi-format. */
#define UEV_NAME_MAX		128
/* Largest char[N] / unsigned char[N] array. */
#define UEV_ARRAY_MAX		1024
/* Digits allowed inside the brackets of char[N] ("1024", "0x0400"). */
#define UEV_ARRAY_DIGITS	6
/* Most fields an event may declare. */
#define UEV_FIELDS_MAX		64

/*
 * Largest payload (bytes after the write index) any consumer is guaranteed
 * to hold: a ring buffer sub-buffer of one page, less its header (16), the
 * event header (8), a time extend (8) and the common trace_entry (8).
 * Larger writes are refused with E2BIG before anything is recorded.
 */
#define UEV_MAX_PAYLOAD		(PAGE_SIZE - 40)

enum uev_field_kind {
	UEV_FIELD_SCALAR,	/* u8..s64, char, short, int and unsigned forms */
	UEV_FIELD_ARRAY,	/* char[N], unsigned char[N] */
	UEV_FIELD_STRUCT,	/* struct X name SIZE */
	UEV_FIELD_DATA_LOC,	/* __data_loc [unsigned] char[] */
	UEV_FIELD_REL_LOC,	/* __rel_loc [unsigned] char[] */
};

/**
 * struct uev_field - one field of a user event
 * @type:	canonical type text, as shown in the format file
 * @name:	field name
 * @offset:	offset of the field within the payload
 * @size:	size of the field in the payload
 * @kind:	&enum uev_field_kind
 * @is_signed:	the field is a signed integer
 * @is_string:	a dynamic char[] that must hold a NUL-terminated string
 */
struct uev_field {
	const char	*type;
	const char	*name;
	u16		offset;
	u16		size;
	u8		kind;
	bool		is_signed;
	bool		is_string;
};

/**
 * struct uev_format - a parsed event command: its name and fields
 * @name:	event name as registered (without any multi-format id)
 * @size:	bytes of fixed fields, the smallest valid payload
 * @nr_fields:	number of entries in @fields
 * @nr_locs:	number of __data_loc/__rel_loc fields (checked on write)
 * @fields:	the fields in declaration order
 *
 * One allocation holds the structure and all of its strings; free it
 * with kfree().
 */
struct uev_format {
	const char	*name;
	u32		size;
	u16		nr_fields;
	u16		nr_locs;
	struct uev_field fields[] __counted_by(nr_fields);
};

struct uev_format *uev_format_parse(const char *cmd);
bool uev_format_equal(const struct uev_format *a, const struct uev_format *b);
int uev_format_print(const struct uev_format *fmt, char *buf, int len);
int uev_format_check_record(const struct uev_format *fmt, const void *rec,
			    u32 len, u32 hdr);

#endif /* _TRACE_USER_EVENTS_H */
