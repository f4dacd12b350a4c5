// SPDX-License-Identifier: GPL-2.0
/* user_events fuzzer, generator: commands of the grammar (ue_gen.c), mutated; payloads */
#include "fuzz.h"

/* Defects of the fuzzer's own, on top of the grammar's (ue_gen.c) */
enum { FD_TOTAL, FD_SLASH, FD_PAD };
static const struct {
	int at, err;
} fz_defects[] = {
	{ FD_TOTAL, EINVAL },	/* fields of more than INT_MAX / 2 bytes */
	{ FD_SLASH, EINVAL },	/* a name tracefs cannot show */
	{ FD_PAD, EINVAL },	/* UE_CMD_MAX + 1 .. + 80 bytes */
	{ FD_PAD, 0 },		/* exactly UE_CMD_MAX bytes */
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
			t = fz_pct(rs, 50) ? ue_gen_basic_types[ue_rand_n(rs, ue_gen_nbasic)] :
			    ue_gen_bad_types[ue_rand_n(rs, ue_gen_nbad)];
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

/*
 * The event name into @name: a target's, a shared one or the grammar's, made
 * unique by the case; false when the command is a target's, complete.
 */
static bool fz_gen_name(struct fz_ctx *c, __u64 *rs, struct ue_gen *g, struct fz_cmd *cmd,
			struct ue_gen_buf *name)
{
	__u32 r = ue_rand_n(rs, 100);

	cmd->shared = r < 25;
	name->len = 0;
	if (r < 5) {	/* exactly a target's command: the same event */
		fz_put(cmd, "%s", fz_targets[ue_rand_n(rs, fz_ntargets)].cmd);
		return false;
	}
	if (r < 25) {	/* a target's name, or a shared one */
		ue_gen_add(name, FZ_PREFIX "_%c%d", r < 12 ? 't' : 'n',
			   ue_rand_n(rs, r < 12 ? fz_ntargets : FZ_SHARED));
	} else {
		ue_gen_add(name, FZ_PREFIX "_%llu_", c->ncase);
		ue_gen_name(g, name);
	}
	return true;
}

/*
 * A command of the grammar (ue_gen.c) with its defects and maybe one of the
 * fuzzer's, maybe mutated; cmd->w: the expected result.
 */
void fz_gen_cmd(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd)
{
	static struct ue_gen_field gf[UE_GEN_FIELDS_MAX];
	static struct ue_gen_buf name, fields;
	struct ue_gen g = { .rng = ue_rand(rs), .wide = true };
	const char *lead, *gap = "";
	int nf, d, r, len, err;

	memset(cmd, 0, sizeof(*cmd));
	/* white space first: an empty name for the ioctl, skipped after "u:" */
	lead = ue_gen_lead(&g);
	fz_put(cmd, "%s", lead);
	cmd->lead_ws = cmd->len;
	if (*lead == ' ')
		fz_defect(&cmd->w, EINVAL);
	cmd->lead_tab = *lead == '\t';
	if (!fz_gen_name(c, rs, &g, cmd, &name))
		return;
	fields.len = 0;
	fields.buf[0] = '\0';
	nf = ue_gen_fields(&g, &fields, gf);
	if (nf)		/* a tab joins the name and the first word */
		gap = ue_gen_gap(&g);
	/* one defect of the fuzzer's in 1/5 of the commands, -1 for none */
	d = fz_pct(rs, 20) ? (int)ue_rand_n(rs, ARRAY_SIZE(fz_defects)) : -1;
	r = d < 0 ? -1 : fz_defects[d].at;
	if (!ue_gen_name_ok(name.buf, name.len))
		fz_defect(&cmd->w, EINVAL);
	if (r == FD_SLASH) {
		name.buf[ue_rand_n(rs, name.len)] = '/';
		cmd->shared = false;
	}
	fz_put(cmd, "%s%s%s", name.buf, gap, fields.buf);
	err = ue_gen_fields_err(gf, nf);
	cmd->w.unknown |= *gap == '\t' || err == UE_GEN_UNSURE ||
			  fields.len >= UE_GEN_TEXT_MAX - 1;
	fz_defect(&cmd->w, err);
	if (r == FD_TOTAL)
		fz_put(cmd, "%s struct s q1 1073741823; struct s q2 1", nf ? ";" : "");
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
	cmd->w.unknown |= cmd->len >= (int)sizeof(cmd->buf) - 2;	/* cut */
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
		if (t->f[k].dyn == UE_GEN_FIXED)
			continue;
		n = fz_pct(rs, 10) ? 200 + ue_rand_n(rs, 2000) : 1 + ue_rand_n(rs, 48);
		if (end + n > 8000)
			n = 1;
		for (i = 0; i < n; i++)
			p[end + i] = t->f[k].str ? 0x20 + ue_rand_n(rs, 0x5f) : ue_rand(rs);
		if (t->f[k].str)
			p[end + n - 1] = '\0';
		start = fz_entry + end - (t->f[k].dyn == UE_GEN_REL_LOC ? fz_entry + off + 4 : 0);
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
