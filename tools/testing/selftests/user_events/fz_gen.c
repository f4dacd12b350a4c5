// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, generator: commands (valid grammar, known
 * defects, mutations) and write payloads.  See fuzz_test.c.
 */
#include "fuzz.h"

bool fz_pct(__u64 *rs, __u32 pct)
{
	return ue_rand_n(rs, 100) < pct;
}

/* ---------------------------------------------------------------------
 * Command generator
 */

static const char * const fz_scalars[] = {
	"u8", "s8", "char", "u16", "s16", "short", "u32", "s32", "int",
	"u64", "s64", "unsigned char", "unsigned short", "unsigned int",
};

static const int fz_scalar_size[] = {
	1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 1, 2, 4,
};

/* Dynamic fields: any element type; char ones are strings */
static const char * const fz_locs[] = {
	"__data_loc char[]", "__data_loc unsigned char[]",
	"__rel_loc char[]", "__rel_loc unsigned char[]",
	"__rel_loc u8[]", "__data_loc u32[]", "__rel_loc s64[]",
	"__data_loc char[8]", "__rel_loc u32",
};

/* Types no kernel accepts */
static const char * const fz_bad_types[] = {
	"u128", "float", "char[]", "unsigned u32", "__data_loc cpumask_t[]",
	"__data_loc", "long", "__s32", "unsigned", "char[0]",
	"char[1025]", "char[0x401]", "char[-1]", "char[1e3]", "char[12",
	"unsigned char[]", "struct", "s8[4]", "u64 u64", "char[4]abcdefg",
	"char[08]",
};

/* Sizes of struct fields no kernel accepts */
static const char * const fz_bad_sizes[] = {
	"0", "1073741824", "4294967296", "-1", "0x10", "12x", "",
};

/* Characters of the mutations */
static const char fz_special[] = " \t\n;;[]:.,#-_0xX\\\"'/\r\v\f";

static int fz_put(struct fz_cmd *cmd, const char *s)
{
	int n = strlen(s);

	if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
		n = sizeof(cmd->buf) - 1 - cmd->len;
	memcpy(cmd->buf + cmd->len, s, n);
	cmd->len += n;
	cmd->buf[cmd->len] = '\0';
	return n;
}

static void fz_ident(__u64 *rs, char *out, int len)
{
	static const char first[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
	static const char rest[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
	int i;

	for (i = 0; i < len; i++)
		out[i] = i ? rest[ue_rand_n(rs, sizeof(rest) - 1)] :
			 first[ue_rand_n(rs, sizeof(first) - 1)];
	out[len] = '\0';
}

/*
 * Between the words of a field: exactly one space.  Two make an empty
 * word, always refused (a tab instead is not always: it joins two words
 * into one, which some positions take, e.g. "__rel_loc unsigned\tchar[]").
 */
static const char *fz_ws(__u64 *rs, struct fz_cmd *cmd)
{
	if (!fz_pct(rs, 3))
		return " ";
	fz_defect(&cmd->w, EINVAL);
	return fz_pct(rs, 50) ? "  " : "   ";
}

/* After the name: a space (a tab would be part of the name), then any */
static const char *fz_lead(__u64 *rs)
{
	static const char * const ws[] = { " ", " ", " ", "  ", " \t", " \v" };

	return ws[ue_rand_n(rs, 6)];
}

/* Between fields: ';', then any white space or more ';' */
static const char *fz_sep(__u64 *rs, struct fz_cmd *cmd)
{
	static const char * const sep[] = {
		"; ", "; ", ";", ";\t", ";; ", ";\t ;  ", " ;", "; \t",
	};
	int k = ue_rand_n(rs, 8);

	/* a space before the ';' makes an empty last word: refused */
	if (k == 6)
		fz_defect(&cmd->w, EINVAL);
	return sep[k];
}

/*
 * One valid field into @cmd; returns its size.  @i numbers the field
 * name.  @budget: payload bytes left.
 */
static int fz_gen_field(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd,
			int i, int budget)
{
	char word[96], name[40];
	int k, size, n;

	if (fz_pct(rs, 80)) {
		snprintf(name, sizeof(name), "f%d", i);
		if (!i)
			cmd->has_f0 = true;
	} else {
		fz_ident(rs, name, 1 + ue_rand_n(rs, 12));
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			 "_%d", i);	/* unique */
	}

	switch (ue_rand_n(rs, 10)) {
	case 0: case 1: case 2: case 3: case 4:
		k = ue_rand_n(rs, 14);
		size = fz_scalar_size[k];
		if (size > budget)
			break;
		snprintf(word, sizeof(word), "%s", fz_scalars[k]);
		/* "unsigned  int": any white space between the words */
		if (!strncmp(word, "unsigned ", 9) && fz_pct(rs, 30)) {
			fz_put(cmd, "unsigned");
			fz_put(cmd, fz_ws(rs, cmd));
			fz_put(cmd, word + 9);
		} else {
			fz_put(cmd, word);
		}
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		return size;
	case 5: case 6:
		n = fz_pct(rs, 10) ? FZ_ARRAY_MAX : 1 + ue_rand_n(rs, 64);
		if (n > budget)
			n = budget;
		if (n < 1)
			break;
		/* N in decimal, hexadecimal or octal, kept as written */
		k = ue_rand_n(rs, 10);
		snprintf(word, sizeof(word), k < 2 ? "%schar[0x%x]" :
			 k < 3 ? "%schar[0%o]" : "%schar[%d]",
			 fz_pct(rs, 30) ? "unsigned " : "", n);
		fz_put(cmd, word);
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		return n;
	case 7:
		n = fz_pct(rs, 10) ? budget : 1 + ue_rand_n(rs, 40);
		if (n > budget)
			n = budget;
		if (n < 1)
			break;
		fz_put(cmd, "struct");
		fz_put(cmd, fz_ws(rs, cmd));
		fz_ident(rs, word, 1 + ue_rand_n(rs, 10));
		fz_put(cmd, word);
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		fz_put(cmd, fz_ws(rs, cmd));
		snprintf(word, sizeof(word), "%d", n);
		fz_put(cmd, word);
		return n;
	default:
		if (budget < 4)
			break;
		k = ue_rand_n(rs, ARRAY_SIZE(fz_locs));
		if (k < 4 && k % 2 && fz_pct(rs, 30)) {
			/* "__rel_loc unsigned char[]", word by word */
			fz_put(cmd, k < 2 ? "__data_loc" : "__rel_loc");
			fz_put(cmd, fz_ws(rs, cmd));
			fz_put(cmd, "unsigned");
			fz_put(cmd, fz_ws(rs, cmd));
			fz_put(cmd, "char[]");
		} else {
			fz_put(cmd, fz_locs[k]);
		}
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		return 4;
	}
	/* out of budget: a zero-size choice is not possible, use u8 */
	if (budget < 1)
		return -1;
	fz_put(cmd, "u8");
	fz_put(cmd, fz_ws(rs, cmd));
	fz_put(cmd, name);
	return 1;
}

/* Mutations: the result may be anything (fz_cmd.mutated). */
static void fz_mutate(__u64 *rs, struct fz_cmd *cmd)
{
	int rounds = 1 + ue_rand_n(rs, 4), pos, n, i;
	char *b = cmd->buf;

	while (rounds--) {
		pos = cmd->len ? ue_rand_n(rs, cmd->len + 1) : 0;
		switch (ue_rand_n(rs, 8)) {
		case 0:	/* flip a byte */
			if (pos < cmd->len)
				b[pos] = ue_rand(rs);
			break;
		case 1:	/* special character */
			if (pos < cmd->len)
				b[pos] = fz_special[ue_rand_n(rs, sizeof(fz_special) - 1)];
			break;
		case 2:	/* delete a range */
			n = ue_rand_n(rs, 16);
			if (pos + n > cmd->len)
				n = cmd->len - pos;
			memmove(b + pos, b + pos + n, cmd->len - pos - n);
			cmd->len -= n;
			break;
		case 3:	/* insert random bytes (NUL, non-ASCII) */
			n = 1 + ue_rand_n(rs, 8);
			if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
				break;
			memmove(b + pos + n, b + pos, cmd->len - pos);
			for (i = 0; i < n; i++)
				b[pos + i] = fz_pct(rs, 50) ? ue_rand(rs) :
					fz_special[ue_rand_n(rs, sizeof(fz_special) - 1)];
			cmd->len += n;
			break;
		case 4:	/* insert a type word */
			{
				const char *t = fz_pct(rs, 50) ?
					fz_scalars[ue_rand_n(rs, 14)] :
					fz_bad_types[ue_rand_n(rs, ARRAY_SIZE(fz_bad_types))];

				n = strlen(t);
				if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
					break;
				memmove(b + pos + n, b + pos, cmd->len - pos);
				memcpy(b + pos, t, n);
				cmd->len += n;
			}
			break;
		case 5:	/* duplicate a range */
			n = ue_rand_n(rs, 32);
			if (pos + n > cmd->len)
				n = cmd->len - pos;
			if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
				break;
			memmove(b + pos + n, b + pos, cmd->len - pos);
			cmd->len += n;
			break;
		case 6:	/* digits: sizes and array lengths */
			if (pos < cmd->len)
				b[pos] = '0' + ue_rand_n(rs, 10);
			break;
		default: /* truncate */
			cmd->len = pos;
			break;
		}
	}
	cmd->buf[cmd->len] = '\0';
	cmd->mutated = true;
}

/*
 * Generate a command: valid, with one known defect (EINVAL), and/or
 * mutated.  Returns with cmd->w describing the expected parse result.
 */
/* The event name; false when the command is a target's, complete */
static bool fz_gen_name(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd)
{
	__u32 r = ue_rand_n(rs, 100);
	const struct fz_target *t;
	int n;

	cmd->shared = r < 25;
	cmd->fresh = !cmd->shared;
	if (r < 5) {
		/* exactly a target's command: the same event */
		t = &fz_targets[ue_rand_n(rs, fz_ntargets)];
		fz_put(cmd, t->cmd);
		snprintf(cmd->name, sizeof(cmd->name), "%s", t->name);
		return false;
	}
	if (r < 12) {
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_t%d",
			 ue_rand_n(rs, fz_ntargets));
	} else if (r < 25) {
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_n%d",
			 ue_rand_n(rs, FZ_SHARED));
	} else if (r < 30) {
		/* long names: only the command's length limits them */
		n = 120 + ue_rand_n(rs, FZ_LONG_NAME - 120 - 6 + 1);
		memcpy(cmd->name, FZ_PREFIX, 6);
		fz_ident(rs, cmd->name + 6, n);
	} else if (r < 33) {
		/* names that are no identifiers */
		snprintf(cmd->name, sizeof(cmd->name), "%d" FZ_PREFIX ".%llu-%u",
			 ue_rand_n(rs, 10), c->ncase, ue_rand_n(rs, 1000));
	} else {
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_%llu_%u",
			 c->ncase, ue_rand_n(rs, 1000));
	}
	fz_put(cmd, cmd->name);
	return true;
}

/* @nf fields after the name, within a payload of @budget bytes */
static void fz_gen_fields(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd,
			  int nf, int budget)
{
	char num[32];
	int i, size;

	if (nf)
		fz_put(cmd, fz_lead(rs));
	for (i = 0; i < nf; i++) {
		if (i)
			fz_put(cmd, nf > 40 ? ";" : fz_sep(rs, cmd));
		if (nf > 40) {
			/* many fields: keep them short to fit 511 bytes */
			snprintf(num, sizeof(num), "u8 f%d", i);
			fz_put(cmd, num);
			cmd->has_f0 = true;
			budget--;
			continue;
		}
		size = fz_gen_field(c, rs, cmd, i, budget);
		if (size < 0)
			break;
		budget -= size;
	}
	if (nf && fz_pct(rs, 10))
		fz_put(cmd, fz_pct(rs, 50) ? ";" : "; ");
}

/* Pad the command to @len bytes with empty fields (or spaces) */
static void fz_pad(struct fz_cmd *cmd, int nf, int len)
{
	if (nf && cmd->len < len)
		fz_put(cmd, ";");
	while (cmd->len < len)
		fz_put(cmd, nf ? ";" : " ");
}

/* Text and flag defects that have nothing to do with a field */
static void fz_gen_text_defect(__u64 *rs, struct fz_cmd *cmd, int defect,
			       int nf)
{
	size_t nlen = strlen(cmd->name);

	switch (defect) {
	case 7:	/* text flags */
		memmove(cmd->buf + nlen + 2, cmd->buf + nlen,
			cmd->len - nlen + 1);
		memcpy(cmd->buf + nlen, ":x", 2);
		cmd->len += 2;
		break;
	case 8:	/* a name tracefs cannot show: with a '/' */
		cmd->buf[ue_rand_n(rs, nlen)] = '/';
		cmd->fresh = false;
		cmd->shared = false;
		break;
	case 9:	/* exactly FZ_CMD_MAX + 1 .. + 80 bytes, else valid */
		fz_pad(cmd, nf, FZ_CMD_MAX + 1 + ue_rand_n(rs, 80));
		cmd->too_long = true;
		break;
	default: /* 10: empty name */
		memmove(cmd->buf + 1, cmd->buf, cmd->len + 1);
		cmd->buf[0] = ' ';
		cmd->len++;
		cmd->lead_ws = true;
		break;
	}
	fz_defect(&cmd->w, EINVAL);
}

/* One known defect (or none: 0 and 12) */
static void fz_gen_defect(__u64 *rs, struct fz_cmd *cmd, int defect, int nf)
{
	const char *sep = nf ? "; " : " ";
	char num[32];

	switch (defect) {
	case 1:
		fz_put(cmd, sep);
		fz_put(cmd, fz_bad_types[ue_rand_n(rs, ARRAY_SIZE(fz_bad_types))]);
		fz_put(cmd, " bad");
		break;
	case 2:	/* duplicate field name: not predicted */
		if (nf)
			fz_put(cmd, "; u8 f0");
		if (nf && cmd->has_f0)
			fz_set_add(&cmd->w.extra, EINVAL);
		return;
	case 3:	/* two spaces, or a tab, between the words of a field */
		fz_put(cmd, nf ? "; u32" : " u32");
		fz_put(cmd, fz_pct(rs, 50) ? "  a3" : "\ta3");
		break;
	case 4:	/* too many words */
		fz_put(cmd, nf ? "; u32 x y" : " u32 x y");
		break;
	case 5:	/* struct sizes */
		snprintf(num, sizeof(num), "%s struct s q %s", nf ? ";" : "",
			 fz_bad_sizes[ue_rand_n(rs, ARRAY_SIZE(fz_bad_sizes))]);
		fz_put(cmd, num);
		break;
	case 6:	/* fixed fields of 1 GiB or more */
		fz_put(cmd, sep);
		fz_put(cmd, "struct s q1 1073741823; struct s q2 1");
		break;
	case 7 ... 10:
		fz_gen_text_defect(rs, cmd, defect, nf);
		return;
	case 11: /* a trailing space: an empty last field name, accepted */
		if (nf && nf <= 40 && cmd->len < FZ_CMD_MAX - 6)
			fz_put(cmd, "; u16 ");
		return;
	default: /* exactly FZ_CMD_MAX bytes: still fine */
		/* after fields, empty ones; white space alone after a name */
		fz_pad(cmd, nf, FZ_CMD_MAX);
		return;
	}
	fz_defect(&cmd->w, EINVAL);
}

void fz_gen_cmd(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd)
{
	int nf, defect, budget = fz_payload_max;
	__u32 r;

	memset(cmd, 0, sizeof(*cmd));
	/* no limit but 1 GiB: sometimes structs far beyond a page */
	if (fz_pct(rs, 5))
		budget = 1 << 24;
	if (!fz_gen_name(c, rs, cmd))
		return;
	r = ue_rand_n(rs, 100);
	nf = r < 15 ? 0 : r < 95 ? 1 + ue_rand_n(rs, 6) : 60 + ue_rand_n(rs, 8);
	/* one known defect in 1/5 of the commands */
	defect = fz_pct(rs, 20) ? 1 + ue_rand_n(rs, 12) : 0;
	fz_gen_fields(c, rs, cmd, nf, budget);
	fz_gen_defect(rs, cmd, defect, nf);
	/* a valid command may have gone over the limit by itself */
	if (cmd->len > FZ_CMD_MAX && !cmd->w.ndef) {
		cmd->too_long = true;
		fz_defect(&cmd->w, EINVAL);
	}
	if (fz_pct(rs, 25)) {
		fz_mutate(rs, cmd);
		cmd->w.unknown = true;
	}
}

__u32 fz_gen_payload(__u64 *rs, const struct fz_target *t,
		     unsigned char *p)
{
	__u32 off = 0, end = t->size, len, n, loc, start, size;
	int i, mode = ue_rand_n(rs, 100), k;

	for (i = 0; i < (int)t->size; i++)
		p[i] = ue_rand(rs);
	if (mode < 8) {
		/* random everything, random length */
		len = fz_pct(rs, 50) ? ue_rand_n(rs, 64) : ue_rand_n(rs, 8193);
		for (i = t->size; i < (int)len; i++)
			p[i] = ue_rand(rs);
		return len;
	}

	/* valid dynamic data after the fixed fields */
	for (i = 0; i < t->nf; off += t->f[i].size, i++) {
		if (t->f[i].kind != FK_DL && t->f[i].kind != FK_RL)
			continue;
		n = fz_pct(rs, 10) ? 200 + ue_rand_n(rs, 2000) : 1 + ue_rand_n(rs, 48);
		if (end + n > 8000)
			n = 1;
		for (k = 0; k < (int)n; k++)
			p[end + k] = t->f[i].str ? 0x20 + ue_rand_n(rs, 0x5f) :
				     ue_rand(rs);
		if (t->f[i].str)
			p[end + n - 1] = '\0';
		start = fz_entry + end;
		if (t->f[i].kind == FK_RL)
			start -= fz_entry + off + 4;
		size = n;
		if (mode < 30) {
			/* one small error */
			switch (ue_rand_n(rs, 7)) {
			case 0:
				size++;
				break;
			case 1:
				start++;
				break;
			case 2:
				size = 0;
				break;
			case 3:
				p[end + size - 1] = 'x';
				break;
			case 4:
				start = ue_rand_n(rs, fz_entry);
				break;
			case 5:
				start = ue_rand(rs);
				break;
			default:
				size = ue_rand(rs);
				break;
			}
		}
		loc = DYN_LOC(start & 0xffff, size & 0xffff);
		memcpy(p + off, &loc, 4);
		end += n;
	}
	len = end;
	switch (ue_rand_n(rs, 10)) {
	case 0:	/* shorter than the fixed fields */
		len = ue_rand_n(rs, t->size + 1);
		break;
	case 1:	/* over the limit */
		len = fz_payload_max + 1 + ue_rand_n(rs, 4136);	/* 8 KiB at 4K */
		for (i = end; i < (int)len; i++)
			p[i] = ue_rand(rs);
		break;
	case 2:	/* right at the limit */
		len = fz_payload_max - ue_rand_n(rs, 2);
		if (len < end)
			len = end;
		for (i = end; i < (int)len; i++)
			p[i] = ue_rand(rs);
		break;
	case 3:	/* extra bytes */
		len = end + ue_rand_n(rs, 64);
		for (i = end; i < (int)len; i++)
			p[i] = ue_rand(rs);
		break;
	default:
		break;
	}
	return len;
}
