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

static void fz_put(struct fz_cmd *cmd, const char *s)
{
	int n = strlen(s);

	if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
		n = sizeof(cmd->buf) - 1 - cmd->len;
	memcpy(cmd->buf + cmd->len, s, n);
	cmd->len += n;
	cmd->buf[cmd->len] = '\0';
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
 * The words of a field (NULL-terminated), each after exactly one space.
 * Two make an empty word, always refused (a tab is not always: it joins
 * two words into one, which some positions take).
 */
static void fz_words(__u64 *rs, struct fz_cmd *cmd, const char *word, ...)
{
	va_list ap;

	va_start(ap, word);
	for (fz_put(cmd, word); (word = va_arg(ap, const char *)); fz_put(cmd, word)) {
		if (!fz_pct(rs, 3)) {
			fz_put(cmd, " ");
			continue;
		}
		fz_defect(&cmd->w, EINVAL);
		fz_put(cmd, fz_pct(rs, 50) ? "  " : "   ");
	}
	va_end(ap);
}

/* One valid field named @name; returns its size (@budget: bytes left) */
static int fz_gen_field(__u64 *rs, struct fz_cmd *cmd, const char *name,
			int budget)
{
	char word[96], num[16];
	int k, n;

	switch (ue_rand_n(rs, 10)) {
	case 0 ... 4:
		k = ue_rand_n(rs, 14);
		if (fz_scalar_size[k] > budget)
			break;
		/* "unsigned  int": any white space between the words */
		if (!strncmp(fz_scalars[k], "unsigned ", 9) && fz_pct(rs, 30))
			fz_words(rs, cmd, "unsigned", fz_scalars[k] + 9, name, NULL);
		else
			fz_words(rs, cmd, fz_scalars[k], name, NULL);
		return fz_scalar_size[k];
	case 5 ... 6:
		n = fz_pct(rs, 10) ? 1024 : 1 + ue_rand_n(rs, 64);
		if (n > budget)
			n = budget;
		if (n < 1)
			break;
		/* N in decimal, hexadecimal or octal, kept as written */
		k = ue_rand_n(rs, 10);
		snprintf(word, sizeof(word), k < 2 ? "%schar[0x%x]" :
			 k < 3 ? "%schar[0%o]" : "%schar[%d]",
			 fz_pct(rs, 30) ? "unsigned " : "", n);
		fz_words(rs, cmd, word, name, NULL);
		return n;
	case 7:
		n = fz_pct(rs, 10) ? budget : 1 + ue_rand_n(rs, 40);
		if (n > budget)
			n = budget;
		if (n < 1)
			break;
		fz_words(rs, cmd, "struct", "", NULL);
		fz_ident(rs, word, 1 + ue_rand_n(rs, 10));
		snprintf(num, sizeof(num), "%d", n);
		fz_words(rs, cmd, word, name, num, NULL);
		return n;
	default:
		if (budget < 4)
			break;
		k = ue_rand_n(rs, ARRAY_SIZE(fz_locs));
		if (k < 4 && k % 2 && fz_pct(rs, 30))	/* "unsigned char[]" */
			fz_words(rs, cmd, k < 2 ? "__data_loc" : "__rel_loc",
				 "unsigned", "char[]", name, NULL);
		else
			fz_words(rs, cmd, fz_locs[k], name, NULL);
		return 4;
	}
	/* out of budget: a zero-size choice is not possible, use u8 */
	if (budget < 1)
		return -1;
	fz_words(rs, cmd, "u8", name, NULL);
	return 1;
}

/* Open a gap of @n bytes at @pos (a copy of what follows); false if full */
static bool fz_gap(struct fz_cmd *cmd, int pos, int n)
{
	if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
		return false;
	memmove(cmd->buf + pos + n, cmd->buf + pos, cmd->len - pos);
	cmd->len += n;
	cmd->buf[cmd->len] = '\0';
	return true;
}

/* Mutations: the result may be anything (fz_cmd.mutated). */
static void fz_mutate(__u64 *rs, struct fz_cmd *cmd)
{
	int rounds = 1 + ue_rand_n(rs, 4), pos, n, i, op;
	char *b = cmd->buf;
	const char *t;

	while (rounds--) {
		pos = cmd->len ? ue_rand_n(rs, cmd->len + 1) : 0;
		switch ((op = ue_rand_n(rs, 8))) {
		case 0: case 1: case 6:	/* a random, special or digit byte */
			if (pos < cmd->len)
				b[pos] = !op ? ue_rand(rs) : op == 6 ? '0' + ue_rand_n(rs, 10) :
					 fz_special[ue_rand_n(rs, sizeof(fz_special) - 1)];
			break;
		case 2: case 5:	/* delete or duplicate a range */
			n = ue_rand_n(rs, op == 2 ? 16 : 32);
			if (pos + n > cmd->len)
				n = cmd->len - pos;
			if (op == 5) {
				fz_gap(cmd, pos, n);
				break;
			}
			memmove(b + pos, b + pos + n, cmd->len - pos - n);
			cmd->len -= n;
			break;
		case 3:	/* insert random bytes (NUL, non-ASCII) */
			n = 1 + ue_rand_n(rs, 8);
			if (!fz_gap(cmd, pos, n))
				break;
			for (i = 0; i < n; i++)
				b[pos + i] = fz_pct(rs, 50) ? ue_rand(rs) :
					fz_special[ue_rand_n(rs, sizeof(fz_special) - 1)];
			break;
		case 4:	/* insert a type word */
			t = fz_pct(rs, 50) ? fz_scalars[ue_rand_n(rs, 14)] :
			    fz_bad_types[ue_rand_n(rs, ARRAY_SIZE(fz_bad_types))];
			if (fz_gap(cmd, pos, strlen(t)))
				memcpy(b + pos, t, strlen(t));
			break;
		default: /* truncate */
			cmd->len = pos;
			break;
		}
	}
	cmd->buf[cmd->len] = '\0';
	cmd->mutated = true;
}

/* The event name; false when the command is a target's, complete */
static bool fz_gen_name(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd)
{
	__u32 r = ue_rand_n(rs, 100);
	const struct fz_target *t;

	cmd->shared = r < 25;
	if (r < 5) {	/* exactly a target's command: the same event */
		t = &fz_targets[ue_rand_n(rs, fz_ntargets)];
		fz_put(cmd, t->cmd);
		snprintf(cmd->name, sizeof(cmd->name), "%s", t->name);
		return false;
	}
	if (r < 25) {	/* a target's name, or a shared one */
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_%c%d", r < 12 ? 't' : 'n',
			 ue_rand_n(rs, r < 12 ? fz_ntargets : FZ_SHARED));
	} else if (r < 30) {	/* long names: only the command limits them */
		memcpy(cmd->name, FZ_PREFIX, 6);
		fz_ident(rs, cmd->name + 6, 120 + ue_rand_n(rs, 250 - 120 - 6 + 1));
	} else if (r < 33) {	/* names that are no identifiers */
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
static void fz_gen_fields(__u64 *rs, struct fz_cmd *cmd, int nf, int budget)
{
	static const char * const lead[] = { " ", " ", " ", "  ", " \t", " \v" };
	static const char * const sep[] = {
		"; ", "; ", ";", ";\t", ";; ", ";\t ;  ", " ;", "; \t",
	};
	char name[40];
	int i, k, size;

	if (nf)	/* a space after the name (a tab would be part of it) */
		fz_put(cmd, lead[ue_rand_n(rs, 6)]);
	for (i = 0; i < nf; i++) {
		if (nf > 40) {	/* many fields: short ones, to fit 511 bytes */
			snprintf(name, sizeof(name), "%su8 f%d", i ? ";" : "", i);
			fz_put(cmd, name);
			cmd->has_f0 = true;
			continue;
		}
		k = i ? ue_rand_n(rs, 8) : 0;
		if (k == 6)	/* " ;" makes an empty last word */
			fz_defect(&cmd->w, EINVAL);
		if (i)
			fz_put(cmd, sep[k]);
		if (fz_pct(rs, 80)) {
			snprintf(name, sizeof(name), "f%d", i);
			cmd->has_f0 |= !i;
		} else {	/* an identifier, made unique */
			fz_ident(rs, name, 1 + ue_rand_n(rs, 12));
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "_%d", i);
		}
		size = fz_gen_field(rs, cmd, name, budget);
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

/* One known defect (EINVAL); none for 0, 2, 11 and 12 */
static void fz_gen_defect(__u64 *rs, struct fz_cmd *cmd, int defect, int nf)
{
	/* fields with a bad type, spaces, words, struct size, total size */
	static const char * const bad[] = { [1] = "%s %s bad", [3] = "%s u32%s",
		[4] = "%s u32 x y%s", [5] = "%s struct s q %s",
		[6] = "%s struct s q1 1073741823; struct s q2 1%s" };
	const char *arg = "";
	char buf[80];

	switch (defect) {
	case 1: case 3: case 4: case 5: case 6:
		if (defect == 1)
			arg = fz_bad_types[ue_rand_n(rs, ARRAY_SIZE(fz_bad_types))];
		else if (defect == 3)	/* two spaces, or a tab */
			arg = fz_pct(rs, 50) ? "  a3" : "\ta3";
		else if (defect == 5)
			arg = fz_bad_sizes[ue_rand_n(rs, ARRAY_SIZE(fz_bad_sizes))];
		snprintf(buf, sizeof(buf), bad[defect], nf ? ";" : "", arg);
		fz_put(cmd, buf);
		break;
	case 2:	/* duplicate field name: not predicted */
		if (nf)
			fz_put(cmd, "; u8 f0");
		if (nf && cmd->has_f0)
			fz_set_add(&cmd->w.extra, EINVAL);
		return;
	case 7:	/* text flags */
		fz_gap(cmd, strlen(cmd->name), 2);
		memcpy(cmd->buf + strlen(cmd->name), ":x", 2);
		break;
	case 8:	/* a name tracefs cannot show: with a '/' */
		cmd->buf[ue_rand_n(rs, strlen(cmd->name))] = '/';
		cmd->shared = false;
		break;
	case 9:	/* exactly FZ_CMD_MAX + 1 .. + 80 bytes, else valid */
		fz_pad(cmd, nf, FZ_CMD_MAX + 1 + ue_rand_n(rs, 80));
		cmd->too_long = true;
		break;
	case 10: /* empty name */
		fz_gap(cmd, 0, 1);
		cmd->buf[0] = ' ';
		cmd->lead_ws = true;
		break;
	case 11: /* a trailing space: an empty last field name, accepted */
		if (nf && nf <= 40 && cmd->len < FZ_CMD_MAX - 6)
			fz_put(cmd, "; u16 ");
		return;
	default: /* exactly FZ_CMD_MAX bytes, still fine: pad */
		fz_pad(cmd, nf, FZ_CMD_MAX);
		return;
	}
	fz_defect(&cmd->w, EINVAL);
}

/* A command, valid, with a known defect and/or mutated; cmd->w: expected */
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
	fz_gen_fields(rs, cmd, nf, budget);
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
		if (t->f[k].kind != FK_DL && t->f[k].kind != FK_RL)
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
	      k == 2 ? fz_payload_max - ue_rand_n(rs, 2) :
	      k == 3 ? end + ue_rand_n(rs, 64) : end;
	if (k == 2 && len < end)
		len = end;
	for (i = end; i < len; i++)
		p[i] = ue_rand(rs);
	return len;
}
