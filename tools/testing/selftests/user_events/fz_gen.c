// SPDX-License-Identifier: GPL-2.0
/* user_events fuzzer, generator: commands (valid, with a known defect, mutated), payloads */
#include "fuzz.h"

static const char * const fz_scalars[] = {
	"u8", "s8", "char", "u16", "s16", "short", "u32", "s32", "int",
	"u64", "s64", "unsigned char", "unsigned short", "unsigned int",
};

static const int fz_scalar_size[] = { 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 1, 2, 4 };

/* Dynamic fields: any element type; char ones are strings */
static const char * const fz_locs[] = {
	"__data_loc char[]", "__data_loc unsigned char[]",
	"__rel_loc char[]", "__rel_loc unsigned char[]",
	"__rel_loc u8[]", "__data_loc u32[]", "__rel_loc s64[]",
	"__data_loc char[8]", "__rel_loc u32",
};

static const char * const fz_bad_types[] = {
	"u128", "float", "char[]", "unsigned u32", "__data_loc cpumask_t[]",
	"__data_loc", "long", "__s32", "unsigned", "char[0]",
	"char[1025]", "char[0x401]", "char[-1]", "char[1e3]", "char[12",
	"unsigned char[]", "struct", "s8[4]", "u64 u64", "char[4]abcdefg",
	"char[08]",
};

static const char * const fz_bad_sizes[] = {
	"0", "1073741824", "4294967296", "-1", "0x10", "12x", "",
};

static const char * const fz_two_ws[] = { "  a3", "\ta3" };

/* The known defects of a command: where, text (%s: one of @args), what it gives */
enum { FD_FIELD, FD_HAS_FIELDS, FD_LEAD, FD_SLASH, FD_FLAGS, FD_PAD };
static const struct {
	int at;
	const char *text;
	const char * const *args;
	int nargs, err;		/* err < 0: -err allowed if the first field is "f0" */
} fz_defects[] = {
	{ FD_FIELD, " %s bad", fz_bad_types, ARRAY_SIZE(fz_bad_types), EINVAL },
	{ FD_FIELD, " u32%s", fz_two_ws, ARRAY_SIZE(fz_two_ws), EINVAL },
	{ FD_FIELD, " u32 x y", NULL, 0, EINVAL },
	{ FD_FIELD, " struct s q %s", fz_bad_sizes, ARRAY_SIZE(fz_bad_sizes), EINVAL },
	{ FD_FIELD, " struct s q1 1073741823; struct s q2 1", NULL, 0, EINVAL },	/* total */
	{ FD_HAS_FIELDS, " u8 f0", NULL, 0, -EINVAL },	/* a duplicate name: not predicted */
	{ FD_HAS_FIELDS, " u16 ", NULL, 0, 0 },	/* an empty last field name: accepted */
	{ FD_LEAD, " ", NULL, 0, EINVAL },	/* an empty name */
	{ FD_SLASH, "/", NULL, 0, EINVAL },	/* a name tracefs cannot show */
	{ FD_FLAGS, ":x", NULL, 0, EINVAL },	/* text flags */
	{ FD_PAD, "", NULL, 0, EINVAL },	/* UE_CMD_MAX + 1 .. + 80 bytes */
	{ FD_PAD, "", NULL, 0, 0 },		/* exactly UE_CMD_MAX bytes */
};

static const char fz_special[] = " \t\n;;[]:.,#-_0xX\\\"'/\r\v\f";

bool fz_pct(__u64 *rs, __u32 pct)
{
	return ue_rand_n(rs, 100) < pct;
}

/*
 * A row of table @k of @n rows (shares adding up to 100: the last row takes what the
 * others leave); its errno into @w if any.
 */
int fz_pick(__u64 *rs, const struct fz_kind *k, int n, struct fz_want *w)
{
	int r = ue_rand_n(rs, 100), i;

	for (i = 0; i < n - 1 && r >= k[i].pct; i++)
		r -= k[i].pct;
	if (w)
		fz_defect(w, k[i].err);
	return i;
}

/* Append to @cmd what fits (the last byte of the buffer stays free, as in fz_gap()) */
static __printf(2, 3) void fz_put(struct fz_cmd *cmd, const char *fmt, ...)
{
	int room = sizeof(cmd->buf) - 1 - cmd->len, n;
	va_list ap;

	if (room < 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(cmd->buf + cmd->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		cmd->len += fz_min(n, room - 1);
}

static void fz_ident(__u64 *rs, char *out, int len)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
	int i;

	for (i = 0; i < len; i++)	/* no digit first */
		out[i] = chars[ue_rand_n(rs, sizeof(chars) - (i ? 1 : 11))];
	out[len] = '\0';
}

/*
 * Field text @s; a space may become two or three: an empty word, always refused
 * (a tab is not always: it joins two words into one, which some positions take).
 */
static void fz_words(__u64 *rs, struct fz_cmd *cmd, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' && fz_pct(rs, 3)) {
			fz_defect(&cmd->w, EINVAL);
			fz_put(cmd, fz_pct(rs, 50) ? " " : "  ");
		}
		fz_put(cmd, "%c", *s);
	}
}

/* One valid field named @name: its size, at most @budget (-1 if nothing fits) */
static int fz_gen_field(__u64 *rs, struct fz_cmd *cmd, const char *name, int budget)
{
	static const char * const arr[] = { "%schar[0x%x] %s", "%schar[0%o] %s", "%schar[%d] %s" };
	char f[160], id[16];
	int k = ue_rand_n(rs, 10), n;

	if (k < 5) {
		k = ue_rand_n(rs, ARRAY_SIZE(fz_scalars));
		n = fz_scalar_size[k];
		snprintf(f, sizeof(f), "%s %s", fz_scalars[k], name);
	} else if (k < 7) {	/* N in decimal, hexadecimal or octal, kept as written */
		n = fz_min(fz_pct(rs, 10) ? 1024 : 1 + ue_rand_n(rs, 64), budget);
		k = ue_rand_n(rs, 10);
		snprintf(f, sizeof(f), arr[k < 2 ? 0 : k < 3 ? 1 : 2],
			 fz_pct(rs, 30) ? "unsigned " : "", n, name);
	} else if (k < 8) {
		n = fz_min(fz_pct(rs, 10) ? budget : 1 + ue_rand_n(rs, 40), budget);
		fz_ident(rs, id, 1 + ue_rand_n(rs, 10));
		snprintf(f, sizeof(f), "struct %s %s %d", id, name, n);
	} else {
		n = 4;
		snprintf(f, sizeof(f), "%s %s", fz_locs[ue_rand_n(rs, ARRAY_SIZE(fz_locs))], name);
	}
	if (n < 1 || n > budget) {	/* out of budget: a zero-size field is not possible */
		if (budget < 1)
			return -1;
		n = 1;
		snprintf(f, sizeof(f), "u8 %s", name);
	}
	fz_words(rs, cmd, f);
	return n;
}

/* Open a gap of @n bytes at @pos (a copy of what follows); false if full */
static bool fz_gap(struct fz_cmd *cmd, int pos, int n)
{
	if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
		return false;
	memmove(cmd->buf + pos + n, cmd->buf + pos, cmd->len - pos);
	cmd->len += n;
	return true;
}

static char fz_byte(__u64 *rs, int kind)
{
	return !kind ? ue_rand(rs) : kind == 6 ? '0' + ue_rand_n(rs, 10) :
	       fz_special[ue_rand_n(rs, sizeof(fz_special) - 1)];
}

/* Mutations: the result may be anything */
static void fz_mutate(__u64 *rs, struct fz_cmd *cmd)
{
	int rounds = 1 + ue_rand_n(rs, 4), pos, n, op;
	const char *t;

	while (rounds--) {
		pos = ue_rand_n(rs, cmd->len + 1);
		op = ue_rand_n(rs, 8);
		n = fz_min(ue_rand_n(rs, op == 2 ? 16 : 32), cmd->len - pos);
		if (op == 7) {		/* truncate */
			cmd->len = pos;
		} else if (op == 2) {	/* delete a range */
			memmove(cmd->buf + pos, cmd->buf + pos + n, cmd->len - pos - n);
			cmd->len -= n;
		} else if (op == 5) {	/* duplicate a range */
			fz_gap(cmd, pos, n);
		} else if (op == 4) {	/* insert a type word */
			t = fz_pct(rs, 50) ? fz_scalars[ue_rand_n(rs, ARRAY_SIZE(fz_scalars))] :
			    fz_bad_types[ue_rand_n(rs, ARRAY_SIZE(fz_bad_types))];
			if (fz_gap(cmd, pos, strlen(t)))
				memcpy(cmd->buf + pos, t, strlen(t));
		} else if (op == 3) {	/* insert random or special bytes: NUL, non-ASCII */
			for (n = 1 + ue_rand_n(rs, 8); n-- && fz_gap(cmd, pos, 1);)
				cmd->buf[pos] = fz_byte(rs, fz_pct(rs, 50) ? 0 : 1);
		} else if (pos < cmd->len) {	/* a random, special or digit byte */
			cmd->buf[pos] = fz_byte(rs, op);
		}
	}
	cmd->buf[cmd->len] = '\0';
	cmd->mutated = true;
}

/* The event name into @name (@size bytes); false when the command is a target's, complete */
static bool fz_gen_name(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd, char *name, int size)
{
	__u32 r = ue_rand_n(rs, 100);
	int n;

	cmd->shared = r < 25;
	if (r < 5) {	/* exactly a target's command: the same event */
		fz_put(cmd, "%s", fz_targets[ue_rand_n(rs, fz_ntargets)].cmd);
		return false;
	}
	if (r < 25) {	/* a target's name, or a shared one */
		snprintf(name, size, FZ_PREFIX "_%c%d", r < 12 ? 't' : 'n',
			 ue_rand_n(rs, r < 12 ? fz_ntargets : FZ_SHARED));
	} else if (r < 30) {	/* long names: only the command limits them */
		n = snprintf(name, size, FZ_PREFIX);
		fz_ident(rs, name + n, fz_min(120 + ue_rand_n(rs, 125), size - n - 1));
	} else if (r < 33) {	/* names that are no identifiers */
		snprintf(name, size, "%d" FZ_PREFIX ".%llu-%u", ue_rand_n(rs, 10), c->ncase,
			 ue_rand_n(rs, 1000));
	} else {
		snprintf(name, size, FZ_PREFIX "_%llu_%u", c->ncase, ue_rand_n(rs, 1000));
	}
	return true;
}

/* @nf fields after the name, within a payload of @budget bytes: is the first "f0"? */
static bool fz_gen_fields(__u64 *rs, struct fz_cmd *cmd, int nf, int budget)
{
	static const char * const lead[] = { " ", " ", " ", "  ", " \t", " \v" };
	static const char * const sep[] = {
		"; ", "; ", ";", ";\t", ";; ", ";\t ;  ", " ;", "; \t",
	};
	bool has_f0 = nf > 40;
	char name[40];
	int i, k, n, size;

	if (nf)	/* a space after the name (a tab would be part of it) */
		fz_put(cmd, "%s", lead[ue_rand_n(rs, ARRAY_SIZE(lead))]);
	for (i = 0; i < nf && nf > 40; i++)	/* many fields: short ones, to fit 511 bytes */
		fz_put(cmd, "%su8 f%d", i ? ";" : "", i);
	for (i = 0; i < nf && nf <= 40; i++, budget -= size) {
		k = i ? ue_rand_n(rs, ARRAY_SIZE(sep)) : 0;
		if (k == 6)	/* " ;" makes an empty last word */
			fz_defect(&cmd->w, EINVAL);
		fz_put(cmd, "%s", i ? sep[k] : "");
		/* "f<i>", or an identifier made unique */
		fz_ident(rs, name, fz_pct(rs, 80) ? 0 : 1 + ue_rand_n(rs, 12));
		n = strlen(name);
		snprintf(name + n, sizeof(name) - n, n ? "_%d" : "f%d", i);
		has_f0 |= !strcmp(name, "f0");
		size = fz_gen_field(rs, cmd, name, budget);
		if (size < 0)
			break;
	}
	if (nf && fz_pct(rs, 10))
		fz_put(cmd, fz_pct(rs, 50) ? ";" : "; ");
	return has_f0;
}

/* A command, valid, with a known defect and/or mutated; cmd->w: expected */
void fz_gen_cmd(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd)
{
	/* no limit but 1 GiB: sometimes structs far beyond a page */
	int nf, d, r, len, budget = fz_pct(rs, 5) ? 1 << 24 : fz_payload_max;
	char name[300];
	bool has_f0;

	memset(cmd, 0, sizeof(*cmd));
	if (!fz_gen_name(c, rs, cmd, name, sizeof(name)))
		return;
	r = ue_rand_n(rs, 100);
	nf = r < 15 ? 0 : r < 95 ? 1 + ue_rand_n(rs, 6) : 60 + ue_rand_n(rs, 8);
	/* one known defect in 1/5 of the commands, -1 for none */
	d = fz_pct(rs, 20) ? (int)ue_rand_n(rs, ARRAY_SIZE(fz_defects)) : -1;
	r = d < 0 ? -1 : fz_defects[d].at;
	cmd->lead_ws = r == FD_LEAD;
	if (r == FD_SLASH) {
		name[ue_rand_n(rs, strlen(name))] = '/';
		cmd->shared = false;
	}
	fz_put(cmd, "%s%s%s", r == FD_LEAD ? " " : "", name, r == FD_FLAGS ? ":x" : "");
	has_f0 = fz_gen_fields(rs, cmd, nf, budget);
	if (r == FD_FIELD || (r == FD_HAS_FIELDS && nf)) {
		fz_put(cmd, "%s", nf ? ";" : "");
		fz_put(cmd, fz_defects[d].text, fz_defects[d].nargs ?
		       fz_defects[d].args[ue_rand_n(rs, fz_defects[d].nargs)] : "");
		if (fz_defects[d].err < 0 && has_f0)
			fz_set_add(&cmd->w.extra, -fz_defects[d].err);
	}
	/* padded with empty fields (or spaces) to UE_CMD_MAX (+ 1 .. 80) bytes */
	cmd->too_long = r == FD_PAD && fz_defects[d].err;
	len = UE_CMD_MAX + (cmd->too_long ? 1 + ue_rand_n(rs, 80) : 0);
	while (r == FD_PAD && cmd->len < len)
		fz_put(cmd, nf ? ";" : " ");
	if (d >= 0)
		fz_defect(&cmd->w, fz_defects[d].err);
	/* a valid command may have gone over the limit by itself */
	if (cmd->len > UE_CMD_MAX && !cmd->w.ndef) {
		cmd->too_long = true;
		fz_defect(&cmd->w, EINVAL);
	}
	if (fz_pct(rs, 25)) {
		fz_mutate(rs, cmd);
		cmd->w.unknown = true;
	}
}

/* Random bytes from @p[@from] to a random length, which it returns */
__u32 fz_gen_random(__u64 *rs, unsigned char *p, __u32 from)
{
	__u32 i, len = fz_pct(rs, 50) ? ue_rand_n(rs, 64) : ue_rand_n(rs, 8193);

	for (i = from; i < len; i++)
		p[i] = ue_rand(rs);
	return len;
}

/* A payload for target @t into @p (room for 8 KiB); returns its length. */
__u32 fz_gen_payload(__u64 *rs, const struct fz_target *t, unsigned char *p)
{
	__u32 off = 0, end = t->size, len, n, start, size, loc, i;
	int mode = ue_rand_n(rs, 100), k;

	for (i = 0; i < end; i++)
		p[i] = ue_rand(rs);
	if (mode < 8)	/* random everything, random length */
		return fz_gen_random(rs, p, end);
	/* valid dynamic data after the fixed fields, or one small error */
	for (k = 0; k < t->nf; off += t->f[k].size, k++) {
		if (t->f[k].kind == FK_FIXED)
			continue;
		n = fz_pct(rs, 10) ? 200 + ue_rand_n(rs, 2000) : 1 + ue_rand_n(rs, 48);
		if (end + n > 8000)
			n = 1;
		for (i = 0; i < n; i++)
			p[end + i] = t->f[k].str ? 0x20 + ue_rand_n(rs, 0x5f) : ue_rand(rs);
		if (t->f[k].str)
			p[end + n - 1] = '\0';
		start = fz_entry + end - (t->f[k].kind == FK_RL ? fz_entry + off + 4 : 0);
		i = mode < 30 ? ue_rand_n(rs, 7) : 7;
		size = i == 0 ? n + 1 : i == 2 ? 0 : i == 6 ? ue_rand(rs) : n;
		start = i == 1 ? start + 1 : i == 4 ? ue_rand_n(rs, fz_entry) :
			i == 5 ? ue_rand(rs) : start;
		if (i == 3)
			p[end + n - 1] = 'x';
		loc = DYN_LOC(start & 0xffff, size & 0xffff);
		memcpy(p + off, &loc, 4);
		end += n;
	}
	k = ue_rand_n(rs, 10);
	if (!k)	/* shorter than the fixed fields */
		return ue_rand_n(rs, t->size + 1);
	/* over the limit (up to 8 KiB at 4K pages), right at it, extra bytes */
	len = k == 1 ? fz_payload_max + 1 + ue_rand_n(rs, 4136) :
	      k == 2 ? fz_payload_max - ue_rand_n(rs, 2) : k == 3 ? end + ue_rand_n(rs, 64) : end;
	if (k == 2 && len < end)
		len = end;
	for (i = end; i < len; i++)
		p[i] = ue_rand(rs);
	return len;
}
