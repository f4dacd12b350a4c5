// SPDX-License-Identifier: GPL-2.0
/*
 * The user_events command grammar, seeded (see ue_gen.h).  The parser's
 * answers in the field descriptions are those of
 * Documentation/trace/user_events.rst: a field is "type name" or "struct
 * tag name size", its words split at single spaces; char[N] takes N of 1 to
 * 1024 in decimal, 0x hexadecimal or 0 octal within 7 bytes after '['; a
 * list refuses a field name used twice.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ue_gen.h"

#define UE_GEN_N(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* random numbers: splitmix64 */

__u64 ue_gen_rnd64(struct ue_gen *g)
{
	__u64 z = (g->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int ue_gen_rnd(struct ue_gen *g, unsigned int n)
{
	return n ? ue_gen_rnd64(g) % n : 0;
}

int ue_gen_chance(struct ue_gen *g, int percent)
{
	return ue_gen_rnd(g, 100) < (unsigned int)percent;
}

/* pick from weights w[0..n-1] */
int ue_gen_pick(struct ue_gen *g, const int *w, int n)
{
	int i, sum = 0, r;

	for (i = 0; i < n; i++)
		sum += w[i];
	r = ue_gen_rnd(g, sum);
	for (i = 0; i < n; i++) {
		if (r < w[i])
			return i;
		r -= w[i];
	}
	return n - 1;
}

void ue_gen_add(struct ue_gen_buf *b, const char *fmt, ...)
{
	int room = (int)sizeof(b->buf) - b->len, n;
	va_list ap;

	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, room, fmt, ap);
	va_end(ap);
	b->len += n < room ? n : room - 1;
}

/* names */

static const char name_first[] = "abcdefghijklmnopqrstuvwxyz_ABCXYZ";
static const char name_rest[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
static const char odd_chars[] = "-.:*?%$!@#&()[]{}<>=+,'\"\\|~^`";

static char ue_gen_char(struct ue_gen *g, const char *set, int n)
{
	return set[ue_gen_rnd(g, n - 1)];
}

/* @n characters of name_rest */
static void ue_gen_word(struct ue_gen *g, struct ue_gen_buf *b, int n)
{
	while (n--)
		ue_gen_add(b, "%c", ue_gen_char(g, name_rest, sizeof(name_rest)));
}

/* An event name: mostly an identifier; long, odd, with text flags */
void ue_gen_name(struct ue_gen *g, struct ue_gen_buf *b)
{
	static const int w[] = { 82, 4, 3, 3, 2, 2, 2, 2 };
	static const int lens[] = { 127, 128, 129, 200, 255, 256, 300, 450, 511, 512, 600 };
	static const char * const fl[] = { ":BPF_ITER", ":flag", ":", ":0", "::x" };
	int len, i, kind = ue_gen_pick(g, w, UE_GEN_N(w));
	char c;

	if (kind == 0)		/* plain */
		len = 1 + ue_gen_rnd(g, 12);
	else if (kind == 1)	/* long, around the limits */
		len = lens[ue_gen_rnd(g, UE_GEN_N(lens))];
	else
		len = 1 + ue_gen_rnd(g, 20);
	for (i = 0; i < len; i++) {
		if (i == 0)
			c = ue_gen_char(g, name_first, sizeof(name_first));
		else
			c = ue_gen_char(g, name_rest, sizeof(name_rest));
		switch (kind) {
		case 2:		/* digit first */
			if (i == 0)
				c = '0' + ue_gen_rnd(g, 10);
			break;
		case 3:		/* an odd character somewhere */
		case 4:
			if (i == len / 2 || ue_gen_chance(g, 10))
				c = ue_gen_char(g, odd_chars, sizeof(odd_chars));
			break;
		case 6:		/* upper case and digits */
			c = "ABCDEFGHIJ0123456789"[ue_gen_rnd(g, 20)];
			if (i == 0)
				c = 'Q';
			break;
		case 7:		/* dots and dashes */
			if (i && ue_gen_chance(g, 30))
				c = ".-"[ue_gen_rnd(g, 2)];
			break;
		}
		ue_gen_add(b, "%c", c);
	}
	if (kind == 5)		/* name:flag text */
		ue_gen_add(b, "%s", fl[ue_gen_rnd(g, UE_GEN_N(fl))]);
}

/* Is @name (@len bytes) a name: not empty, no ':' or '/', not "." or ".."? */
bool ue_gen_name_ok(const char *name, int len)
{
	return len && !memchr(name, ':', len) && !memchr(name, '/', len) &&
	       !(name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')));
}

/* white space before a command's name (refused, but after "u:") */
const char *ue_gen_lead(struct ue_gen *g)
{
	static const char * const lead[] = { "", " ", "\t", "  " };
	static const int w[] = { 90, 4, 3, 3 };

	return lead[ue_gen_pick(g, w, UE_GEN_N(w))];
}

/* between a name and its fields: a tab makes it part of the name */
const char *ue_gen_gap(struct ue_gen *g)
{
	return ue_gen_chance(g, 92) ? " " : ue_gen_chance(g, 50) ? "\t" : "  ";
}

/* fields */

const char * const ue_gen_basic_types[] = {
	"u8", "s8", "char", "u16", "s16", "short", "u32", "s32", "int",
	"u64", "s64", "unsigned char", "unsigned short", "unsigned int",
};

static const int basic_sizes[] = { 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 1, 2, 4 };

const int ue_gen_nbasic = UE_GEN_N(ue_gen_basic_types);

/* the first 12 in the conformance log, the others with ue_gen.wide */
#define UE_GEN_BAD_LOGGED	12
const char * const ue_gen_bad_types[] = {
	"long", "unsigned long", "float", "bool", "__u32", "u128", "unsigned",
	"char*", "signed char", "u8[]", "struct", "__data_loc",
	"char[]", "unsigned char[]", "unsigned u32", "__s32", "char[0x401]",
	"char[1e3]", "char[12", "char[08]", "char[4]abcdefg", "s8[4]", "u64 u64",
	"__data_loc cpumask_t[]",	/* the filter would read a whole mask */
};

const int ue_gen_nbad = UE_GEN_N(ue_gen_bad_types);

/* dynamic fields take any type: char ones hold strings */
static const char * const dyn_elems[] = {
	"char[]", "unsigned char[]", "u8[]", "u16[]", "u32[]", "u64[]",
	"s32[]", "char[]", "unsigned char[]", "char[4]", "int[]", "junk",
};

static void gen_field_name(struct ue_gen *g, struct ue_gen_buf *b, int k, int dupok)
{
	static const int w[] = { 94, 2, 1, 2, 1 };

	switch (ue_gen_pick(g, w, UE_GEN_N(w))) {
	case 0:
		ue_gen_add(b, "f%d", k);
		break;
	case 1:		/* maybe used twice */
		ue_gen_add(b, "%s", dupok ? "f0" : "dup");
		break;
	case 2:
		ue_gen_add(b, "%c%d", ue_gen_char(g, odd_chars, sizeof(odd_chars)), k);
		break;
	case 3:
		ue_gen_word(g, b, 1 + ue_gen_rnd(g, 70));
		break;
	case 4:
		ue_gen_add(b, "%d", k);
		break;
	}
}

/* N of char[N] into *@size (0: refused); does the parser take it? */
static bool gen_array_len(struct ue_gen *g, struct ue_gen_buf *b, int *size)
{
	static const int w[] = { 50, 12, 8, 3, 6, 2, 1, 1, 1, 2 };
	static const char * const bad[] = { "-1", "12x", "" };
	int n, k = ue_gen_pick(g, w, UE_GEN_N(w));

	*size = 0;
	switch (k) {
	case 0:
		n = 1 + ue_gen_rnd(g, 32);
		ue_gen_add(b, "%d", n);
		break;
	case 1:
		n = 1 + ue_gen_rnd(g, 64);
		ue_gen_add(b, "0x%x", n);
		break;
	case 2:
		n = 1 + ue_gen_rnd(g, 60);
		ue_gen_add(b, "0%o", n);
		break;
	case 3:
		ue_gen_add(b, "0");
		return false;
	case 4:		/* around the largest, 1024 */
		n = 1020 + ue_gen_rnd(g, 8);
		ue_gen_add(b, "%d", n);
		*size = n;
		return n <= 1024;
	case 5:
		ue_gen_add(b, "%d", 4096 + ue_gen_rnd(g, 70000));
		return false;
	case 6:
	case 7:
	case 8:
		ue_gen_add(b, "%s", bad[k - 6]);
		return false;
	default:	/* more than the 7 bytes read after '[' */
		ue_gen_add(b, "0000000000000004");
		*size = 4;
		return false;
	}
	*size = n;
	return true;
}

/* Field @k into @b, described in *@f; @dupok: its name may be "f0" */
static void gen_field(struct ue_gen *g, struct ue_gen_buf *b, int k, struct ue_gen_field *f,
		      int dupok)
{
	static const int w[] = { 60, 8, 8, 5, 12, 6, 1, 1, 2 };
	static const int sizes[] = { 1, 4, 8, 16, 24, 0, 4056, 4057, 70000, -1 };
	int t, size, e;

	memset(f, 0, sizeof(*f));
	f->name_len = -1;
	switch (ue_gen_pick(g, w, UE_GEN_N(w))) {
	case 0:		/* basic type */
		t = ue_gen_rnd(g, ue_gen_nbasic);
		ue_gen_add(b, "%s ", ue_gen_basic_types[t]);
		f->size = basic_sizes[t];
		break;
	case 1:
	case 2:		/* char[N] / unsigned char[N], what follows ']' ignored */
		ue_gen_add(b, "%schar[", ue_gen_chance(g, 50) ? "" : "unsigned ");
		f->err = gen_array_len(g, b, &size) ? 0 : EINVAL;
		ue_gen_add(b, "]%s ", ue_gen_chance(g, 5) ? "x" : "");
		f->size = size;
		break;
	case 3:		/* struct TAG name SIZE */
		f->form = UE_GEN_STRUCT;
		ue_gen_add(b, "struct ");
		ue_gen_word(g, b, 1 + ue_gen_rnd(g, 40));
		ue_gen_add(b, " ");
		f->name_at = b->len;
		gen_field_name(g, b, k, dupok);
		f->name_len = b->len - f->name_at;
		size = sizes[ue_gen_rnd(g, UE_GEN_N(sizes))];
		f->err = size > 0 ? 0 : EINVAL;
		if (ue_gen_chance(g, 5)) {	/* decimal only */
			ue_gen_add(b, " 0x10");
			f->err = EINVAL;
		} else if (ue_gen_chance(g, 5)) {	/* no size */
			f->err = EINVAL;
		} else {
			ue_gen_add(b, " %d", size);
		}
		f->size = size > 0 && size < 8192 ? size : 0;
		return;
	case 4:
	case 5:		/* dynamic */
		e = ue_gen_rnd(g, UE_GEN_N(dyn_elems));
		f->dyn = ue_gen_chance(g, 50) ? UE_GEN_DATA_LOC : UE_GEN_REL_LOC;
		ue_gen_add(b, "%s %s ", f->dyn == UE_GEN_DATA_LOC ? "__data_loc" : "__rel_loc",
			   dyn_elems[e]);
		f->size = 4;
		f->str = e == 0 || e == 7;
		break;
	case 6:		/* bad type */
		t = ue_gen_rnd(g, g->wide ? ue_gen_nbad : UE_GEN_BAD_LOGGED);
		ue_gen_add(b, "%s ", ue_gen_bad_types[t]);
		f->err = EINVAL;
		/* "__data_loc" takes the name as its type: bare */
		if (!strcmp(ue_gen_bad_types[t], "__data_loc"))
			f->form = UE_GEN_BARE;
		break;
	case 7:		/* type only, or too many words */
		t = ue_gen_rnd(g, ue_gen_nbasic);
		f->err = EINVAL;
		if (ue_gen_chance(g, 50)) {
			ue_gen_add(b, "%s", ue_gen_basic_types[t]);
			f->form = UE_GEN_BARE;
			return;
		}
		ue_gen_add(b, "%s a b", ue_gen_basic_types[t]);
		return;
	case 8:		/* odd spacing inside the field: an empty word, or one word */
		t = ue_gen_rnd(g, ue_gen_nbasic);
		ue_gen_add(b, "%s%s", ue_gen_basic_types[t], ue_gen_chance(g, 50) ? "\t" : "  ");
		f->size = basic_sizes[t];
		f->err = EINVAL;
		break;
	}
	f->name_at = b->len;
	gen_field_name(g, b, k, dupok);
	f->name_len = b->len - f->name_at;
}

/* A separator, which may end the field before it with a space or a tab */
static const char *gen_sep(struct ue_gen *g)
{
	static const char * const seps[] = {
		"; ", ";", " ;", " ; ", ";;", "; ;", ";\t", "\t;",
	};
	static const int w[] = { 70, 8, 6, 4, 3, 3, 3, 3 };

	return seps[ue_gen_pick(g, w, UE_GEN_N(w))];
}

/* Field @f followed by character @c, white space, before its ';' */
static void ue_gen_follow(struct ue_gen_field *f, char c)
{
	if (c == ' ') {		/* one more word: the empty name a bare type lacks */
		f->err = f->form == UE_GEN_BARE ? 0 : EINVAL;
		f->name_len = 0;
	} else if (c == '\t' && f->form == UE_GEN_STRUCT) {	/* in the size */
		f->err = EINVAL;
	} else if (c == '\t' && f->name_len >= 0) {		/* in the name */
		f->name_len++;
	}
}

/*
 * A field list into @b, described in @gf (room for UE_GEN_FIELDS_MAX);
 * returns the number of fields.
 */
int ue_gen_fields(struct ue_gen *g, struct ue_gen_buf *b, struct ue_gen_field *gf)
{
	/* how many: none, 1-3, 3-8, 9-28, 60-67, 63-66 (the most and beyond), by weight */
	static const int w[] = { 15, 45, 25, 10, 3, 2 };
	static const int from[] = { 0, 1, 3, 9, 60, 63 }, span[] = { 0, 3, 6, 20, 8, 4 };
	const char *sep;
	int n, i, j, k;

	k = ue_gen_pick(g, w, UE_GEN_N(w));
	n = from[k] + ue_gen_rnd(g, span[k]);
	if (n > UE_GEN_FIELDS_MAX)
		n = UE_GEN_FIELDS_MAX;
	for (i = 0; i < n; i++) {
		if (i) {
			sep = gen_sep(g);
			ue_gen_add(b, "%s", sep);
			if (*sep != ';')
				ue_gen_follow(&gf[i - 1], *sep);
		}
		gen_field(g, b, i, &gf[i], ue_gen_chance(g, 3));
	}
	if (n && ue_gen_chance(g, 8))
		ue_gen_add(b, "%s", ue_gen_chance(g, 50) ? ";" : "; ");
	/* a name used twice */
	for (i = 0; i < n; i++)
		for (j = 0; j < i && gf[i].name_len >= 0 && !gf[i].err; j++)
			if (gf[j].name_len == gf[i].name_len &&
			    !memcmp(b->buf + gf[j].name_at, b->buf + gf[i].name_at, gf[i].name_len))
				gf[i].err = EINVAL;
	return n;
}

/* What the parser says of the list @gf of @n fields: 0, EINVAL, UE_GEN_UNSURE */
int ue_gen_fields_err(const struct ue_gen_field *gf, int n)
{
	int i, err = 0;

	for (i = 0; i < n && err != EINVAL; i++)	/* one refused field: all */
		if (gf[i].err)
			err = gf[i].err;
	return err;
}
