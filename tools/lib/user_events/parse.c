// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events: the payload layout of an event command.
 *
 * The kernel alone decides which commands are valid; this parser runs on
 * commands the kernel may take and reports the layout it derives from
 * them, or -EINVAL when it cannot tell (the event is then written raw).
 * It restates no kernel limit: sizes are whatever the command says.
 *
 * The field declarations of a format file are read by the same parser:
 * uel_format_matches() turns each one back into command words.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* Longest format file line we read a field from */
#define UEL_DECL_MAX		1024

static const struct {
	const char *name;
	uint8_t size;
} uel_scalars[] = {
	{ "u8", 1 }, { "s8", 1 }, { "char", 1 }, { "unsigned char", 1 },
	{ "u16", 2 }, { "s16", 2 }, { "short", 2 }, { "unsigned short", 2 },
	{ "u32", 4 }, { "s32", 4 }, { "int", 4 }, { "unsigned int", 4 },
	{ "u64", 8 }, { "s64", 8 },
};

/*
 * N of "char[N]" up to the ']': decimal, 0x hexadecimal or 0 octal, with
 * an optional '+'.  Anything after the ']' is ignored, as by the kernel.
 */
static int uel_array_len(const char *type, uint32_t *out)
{
	const char *num = strchr(type, '[') + 1;
	unsigned long long v;
	char *end;

	if (*num == '+')
		num++;
	if (!isdigit((unsigned char)*num))
		return -EINVAL;
	errno = 0;
	v = strtoull(num, &end, 0);
	if (errno || *end != ']' || !v || v > UINT32_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Size and kind of @f from its type, or -EINVAL if the type is unknown. */
static int uel_type_layout(struct uel_field *f, const char *size_word)
{
	const char *t = f->type;
	unsigned long long v;
	char *end;
	size_t i;

	f->is_signed = t[0] != 'u';
	if (!strncmp(t, "struct ", 7)) {
		if (!size_word || !isdigit((unsigned char)*size_word))
			return -EINVAL;
		errno = 0;
		v = strtoull(size_word, &end, 10);
		if (errno || *end || !v || v > UINT32_MAX)
			return -EINVAL;
		f->kind = UEL_STRUCT;
		f->size = v;
		return 0;
	}
	if (size_word)
		return -EINVAL;
	if (!strncmp(t, "__data_loc ", 11) || !strncmp(t, "__rel_loc ", 10)) {
		f->kind = strstr(t, "char") ? UEL_LOC_STR : UEL_LOC_BLOB;
		f->data_loc = t[2] == 'd';
		f->size = sizeof(uint32_t);
		return 0;
	}
	if (!strncmp(t, "char[", 5) || !strncmp(t, "unsigned char[", 14)) {
		f->kind = t[0] == 'c' ? UEL_CHARS : UEL_BYTES;
		return uel_array_len(t, &f->size);
	}
	for (i = 0; i < ARRAY_SIZE(uel_scalars); i++) {
		if (!strcmp(t, uel_scalars[i].name)) {
			f->kind = UEL_SCALAR;
			f->size = uel_scalars[i].size;
			return 0;
		}
	}
	return -EINVAL;
}

/* Split @s at white space into at most @max words; -EINVAL if more. */
static int uel_split(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -EINVAL;
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/*
 * One field from its words: the type (one word; two after "unsigned",
 * "struct", "__data_loc" and "__rel_loc"; three after "__data_loc
 * unsigned" and "__rel_loc unsigned"), the name, and a struct's size.
 * The type is written at @*types, its words joined by one space.  A
 * missing name is empty: the kernel takes a field ending with a space.
 */
static int uel_parse_field(char **tok, int ntok, struct uel_field *f,
			   char **types)
{
	int ntype = 1, i;

	memset(f, 0, sizeof(*f));
	if (!strcmp(tok[0], "__data_loc") || !strcmp(tok[0], "__rel_loc"))
		ntype = ntok > 1 && !strcmp(tok[1], "unsigned") ? 3 : 2;
	else if (!strcmp(tok[0], "unsigned") || !strcmp(tok[0], "struct"))
		ntype = 2;
	if (ntok < ntype || ntok > ntype + 1 + !strcmp(tok[0], "struct"))
		return -EINVAL;

	f->type = *types;
	for (i = 0; i < ntype; i++)
		*types += sprintf(*types, "%s%s", i ? " " : "", tok[i]);
	(*types)++;
	f->name = ntok > ntype ? tok[ntype] : "";
	return uel_type_layout(f, ntok > ntype + 1 ? tok[ntype + 1] : NULL);
}

/* At least the number of fields of @cmd: its ';' plus one. */
unsigned int uel_count_fields(const char *cmd)
{
	unsigned int n = 1;

	while ((cmd = strchr(cmd, ';')) != NULL) {
		cmd++;
		n++;
	}
	return n;
}

/*
 * The payload layout of the command @cmd (split up in place) as the
 * kernel derives it: the name, at most @max @fields (uel_count_fields()
 * is enough), their types written to @types (room for the length of @cmd
 * plus one), the size of the fixed part.  A registration of an existing
 * name is compared with it word by word, so any white space between the
 * words gives the same layout.
 * Returns the number of fields, or -EINVAL when the layout is unknown.
 */
int uel_parse(char *cmd, char *types, const char **name,
	      struct uel_field *fields, unsigned int max, uint32_t *fixed)
{
	char *args, *part, *tok[6];
	unsigned int n = 0;
	uint64_t off = 0;
	int ntok, ret;

	*name = cmd;
	*fixed = 0;
	/* the name is everything up to the first space */
	args = strchr(cmd, ' ');
	if (!args)
		return 0;
	*args++ = '\0';

	while ((part = strsep(&args, ";")) != NULL) {
		ntok = uel_split(part, tok, ARRAY_SIZE(tok));
		if (ntok < 0)
			return ntok;
		if (!ntok)
			continue;
		if (n == max)
			return -EINVAL;
		ret = uel_parse_field(tok, ntok, &fields[n], &types);
		if (ret)
			return ret;
		fields[n].offset = off;
		off += fields[n].size;
		if (off > UINT32_MAX)
			return -EINVAL;
		n++;
	}
	*fixed = off;
	return n;
}

/*
 * A format file's "TYPE NAME[N]" (the trace core moves brackets behind
 * the name, and its N may be missing) as the field "TYPE[SIZE] NAME" of
 * a command, parsed into @f.  A struct gets its size word back.  The
 * words and the type are written to @buf (UEL_DECL_MAX * 2 bytes).
 */
static int uel_format_field(char *decl, unsigned int size,
			    struct uel_field *f, char *buf)
{
	char *name = strrchr(decl, ' '), *br, *tok[6], *types;
	char dims[16] = "", tail[16] = "";
	int ntok;

	if (!name)
		return -EINVAL;
	*name++ = '\0';
	br = strchr(name, '[');
	if (br) {
		*br = '\0';
		/* dynamic arrays keep "[]"; fixed ones take their size */
		if (!strncmp(decl, "__", 2))
			snprintf(dims, sizeof(dims), "[]");
		else
			snprintf(dims, sizeof(dims), "[%u]", size);
	}
	if (!strncmp(decl, "struct ", 7))
		snprintf(tail, sizeof(tail), " %u", size);
	if (snprintf(buf, UEL_DECL_MAX, "%s%s %s%s", decl, dims, name, tail) >=
	    UEL_DECL_MAX)
		return -EINVAL;
	ntok = uel_split(buf, tok, ARRAY_SIZE(tok));
	if (ntok <= 0)
		return -EINVAL;
	types = buf + UEL_DECL_MAX;
	return uel_parse_field(tok, ntok, f, &types);
}

/*
 * Types are compared without what is inside brackets: "char[0x4]" is
 * "char[4]" in the format file.  The sizes are compared besides.
 */
static bool uel_type_eq(const char *a, const char *b)
{
	for (;;) {
		if (*a == '[' && *b == '[') {
			a = strchr(a, ']');
			b = strchr(b, ']');
			if (!a || !b)
				return false;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * Does the format file text @fmt describe exactly @fields?  Lines:
 * "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tsigned:X;", first the common
 * fields, then the payload, whose offsets count from their end.
 */
bool uel_format_matches(const struct uel_field *fields, unsigned int nfields,
			char *fmt)
{
	char *line, *save, *decl, *end, *name, buf[2 * UEL_DECL_MAX];
	unsigned int i = 0, off, size, base = 0;
	const struct uel_field *f;
	struct uel_field got;

	for (line = strtok_r(fmt, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		decl = strstr(line, "field:");
		if (!decl)
			continue;
		decl += strlen("field:");
		end = strchr(decl, ';');
		if (!end || sscanf(end + 1, " offset:%u; size:%u;", &off,
				   &size) != 2)
			return false;
		*end = '\0';
		name = strrchr(decl, ' ');
		if (name && !strncmp(name + 1, "common_", 7)) {
			base = off + size;
			continue;
		}
		if (i == nfields || uel_format_field(decl, size, &got, buf))
			return false;
		f = &fields[i++];
		if (strcmp(got.name, f->name) || !uel_type_eq(got.type, f->type) ||
		    got.size != f->size || off - base != f->offset)
			return false;
	}
	return i == nfields;
}

/* End of the common fields ("common_*") in the format file text @fmt. */
uint32_t uel_format_common_size(const char *fmt)
{
	const char *p = fmt;
	unsigned int off, size;
	uint32_t end = 0;

	while ((p = strstr(p, " common_")) != NULL) {
		p = strchr(p, ';');
		if (!p || sscanf(p + 1, " offset:%u; size:%u;", &off, &size) != 2)
			return 0;
		if (off + size > end)
			end = off + size;
	}
	return end;
}
