// SPDX-License-Identifier: GPL-2.0
/* user_events fuzzer, cases: DIAG_IOCSREG and DIAG_IOCSUNREG */
#include "fuzz.h"

/* Is @name one of the events that existed before the run? */
bool fz_is_baseline(struct fz_ctx *c, const char *name)
{
	const char *p = c->baseline;
	size_t n = strlen(name);

	for (; p && (p = strstr(p, name)); p += n)
		if ((p == c->baseline || p[-1] == '\n') &&
		    (p[n] == '\n' || p[n] == ' ' || p[n] == '.'))
			return true;
	return false;
}

/* Remember the name of command @buf (up to a space): it may now be a persistent event */
void fz_track_name(struct fz_ctx *c, const char *buf)
{
	int i, n = strcspn(buf, " ");
	char name[FZ_NAME_MAX + 1];

	snprintf(name, sizeof(name), "%.*s", n <= FZ_NAME_MAX ? n : 0, buf);
	if (!name[0] || fz_is_baseline(c, name))
		return;
	for (i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], name))
			return;
	if (c->nnames < FZ_NAMES_MAX * 2)
		snprintf(c->names[c->nnames++], FZ_NAME_MAX + 1, "%s", name);
}

/* The address in bits of a registered bit, of a 4- or 8-byte word */
static __u64 fz_lbit(__u64 addr, int size, int bit)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (addr + size - 1 - bit / 8) * 8 + bit % 8;
#else
	return (addr + bit / 8) * 8 + bit % 8;
#endif
}

/* The live registration of (@addr, @bit), or (@exact false) of that bit */
static int fz_live_find(struct fz_ctx *c, __u64 addr, int size, int bit, bool exact)
{
	struct fz_live *l = c->live;
	int i;

	for (i = 0; i < c->nlive; i++, l++)
		if (exact ? l->addr == addr && l->bit == bit :
		    fz_lbit(l->addr, l->size, l->bit) == fz_lbit(addr, size, bit))
			return i;
	return -1;
}

/* An address no access goes through (@ro: or only a read) */
static __u64 fz_bad_addr(struct fz_ctx *c, __u64 *rs, bool ro)
{
	const __u64 bad[] = {
		0, fz_pct(rs, 50) ? FZ_KERNEL1 : 0xffff888000000000ull,
		fz_pct(rs, 50) ? 0x8000000000000000ull : 0xfffffffffffffff8ull,
		fz_unmapped + 8 * ue_rand_n(rs, 64), (uintptr_t)c->none + 8 * ue_rand_n(rs, 64),
		(uintptr_t)c->ro + 2048 + 8 * ue_rand_n(rs, 64),
	};

	return bad[ue_rand_n(rs, ro ? 6 : 5)];
}

/* A string no read goes through: unterminated before the guard page, or a bad pointer */
char *fz_bad_str(struct fz_ctx *c, __u64 *rs, struct fz_want *w)
{
	int n = 1 + ue_rand_n(rs, UE_CMD_MAX) + (fz_pct(rs, 35) ? UE_CMD_MAX : 0);

	if (fz_pct(rs, 50)) {
		fz_defect(w, EFAULT);
		return (char *)(uintptr_t)fz_bad_addr(c, rs, false);
	}
	fz_defect(w, n > UE_CMD_MAX ? EINVAL : EFAULT);	/* EINVAL: too long first */
	return memset(c->guard - n, 'q', n);
}

/* An enable word for the fuzz cases (the targets use words 0..15) */
static __u64 fz_valid_word(struct fz_ctx *c, __u64 *rs, int size)
{
	__u64 a = (__u64)(uintptr_t)c->en + 8 * (16 + ue_rand_n(rs, 240));

	return a + (size == 4 && fz_pct(rs, 50) ? 4 : 0);
}

/*
 * The size field of struct @s of @ssize bytes and where the ioctl reads it, the
 * defects into @w.  @ro: maybe in the read-only page (the kernel stores into it).
 */
static void *fz_arg(struct fz_ctx *c, __u64 *rs, void *s, __u32 ssize, struct fz_want *w,
		    bool *ro)
{
	/* as is, a tail of zeroes or of garbage, short, too big, a page, into the guard */
	static const struct fz_kind kinds[] = {
		{ 71 }, { 7 }, { 5, E2BIG }, { 6, EINVAL }, { 5, E2BIG }, { 2 }, { 4, EFAULT },
	};
	char *buf = c->arena + 8 * ue_rand_n(rs, 8);
	int k = fz_pick(rs, kinds, ARRAY_SIZE(kinds), w);
	__u32 size;

	switch (k) {
	case 1:		/* a tail of zeroes */
	case 2:		/* a tail of garbage */
		size = ssize + 1 + ue_rand_n(rs, 64);
		break;
	case 3:		/* short */
		size = ue_rand_n(rs, ssize);
		break;
	case 4:		/* too big */
		if (fz_pct(rs, 70))
			size = c->page + 1 + ue_rand_n(rs, 16);
		else
			size = (__u32)ue_rand(rs) | 0x80000000u;
		break;
	case 5:		/* a page */
		size = c->page;
		break;
	case 6:		/* into the guard page */
		size = ssize + 8 + ue_rand_n(rs, 64);
		break;
	default:
		size = ssize;
	}
	memcpy(s, &size, sizeof(size));
	if (fz_pct(rs, 4)) {	/* the pointer itself is bad: nothing else can be read */
		*w = (struct fz_want){ .ndef = 1, .err = EFAULT };
		return (void *)(uintptr_t)fz_bad_addr(c, rs, false);
	}
	if (ro && k < 2 && size <= 64 && fz_pct(rs, 6)) {
		mprotect(c->ro, c->page, PROT_READ | PROT_WRITE);
		memset(c->ro, 0, 128);
		memcpy(c->ro, s, ssize);
		mprotect(c->ro, c->page, PROT_READ);
		fz_defect(w, EFAULT);
		*ro = true;
		return c->ro;
	}
	if (k == 6)	/* ending up to 8 bytes before the guard page */
		buf = c->guard - ssize - ue_rand_n(rs, 8);
	memset(buf, 0, k == 6 ? c->guard - buf : k == 5 ? c->page : 128);
	memcpy(buf, s, ssize);
	if (k == 2)
		buf[ssize + ue_rand_n(rs, size - ssize)] = 1 + ue_rand_n(rs, 255);
	return buf;
}

void fz_case_reg(struct fz_ctx *c, __u64 *rs)
{
	static const struct fz_kind flags[] = { { 70 }, { 10 }, { 10 }, { 5 }, { 5, EINVAL } };
	static const __u16 flag[] = {
		0, USER_EVENT_REG_PERSIST, USER_EVENT_REG_MULTI_FORMAT,
		USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT,
	};
	/* valid, in use, misaligned, bad (null, kernel, non-canonical, unmapped, ...) */
	static const struct fz_kind addrs[] = { { 72 }, { 5 }, { 5 }, { 18, EFAULT } };
	static const int bad_esize[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };
	struct user_reg reg = { .write_index = ue_rand(rs) };
	static struct fz_cmd cmd;
	struct fz_want w = { 0 };
	int k, i, esize, live = -1, ret, r = ue_rand_n(rs, 100);
	char *text = c->arena + 2 * c->page;
	bool ro = false;
	void *arg;

	/* the command text: arena page 2, or unreadable (then only that counts) */
	fz_gen_cmd(c, rs, &cmd);
	reg.name_args = (uintptr_t)text;
	if (r < 88) {
		memcpy(text, cmd.buf, cmd.len + 1);
		w = cmd.w;
		w.unknown |= cmd.lead_tab;
		if (cmd.shared)	/* may be in use with other fields */
			fz_set_add(&w.extra, EADDRINUSE);
	} else {
		reg.name_args = (uintptr_t)fz_bad_str(c, rs, &w);
	}
	/* flags (unknown ones: bits 2 to 14; 15 is USER_EVENT_REG_NOTIFY), enable size and bit */
	k = fz_pick(rs, flags, ARRAY_SIZE(flags), &w);
	reg.flags = k < 4 ? flag[k] : (__u16)(USER_EVENT_REG_MAX << ue_rand_n(rs, 13)) |
		    ue_rand_n(rs, 4);
	k = ue_rand_n(rs, 100);
	esize = k < 45 ? 4 : k < 90 ? 8 : bad_esize[ue_rand_n(rs, ARRAY_SIZE(bad_esize))];
	reg.enable_size = esize;
	k = esize == 4 ? 32 : 64;
	reg.enable_bit = fz_pct(rs, 92) ? ue_rand_n(rs, k) : k + ue_rand_n(rs, 256 - k);
	if ((esize != 4 && esize != 8) || reg.enable_bit >= 8 * esize)
		fz_defect(&w, EINVAL);
	/* the enable address; EADDRINUSE for the bit of a live registration */
	k = fz_pick(rs, addrs, ARRAY_SIZE(addrs), &w);
	reg.enable_addr = k == 3 ? fz_bad_addr(c, rs, true) : fz_valid_word(c, rs, esize);
	if (k == 1 && c->nlive) {	/* a live word; the same bit if the size matches */
		i = ue_rand_n(rs, c->nlive);
		if (c->live[i].size == esize) {
			reg.enable_addr = c->live[i].addr;
			reg.enable_bit = c->live[i].bit;
		}
	} else if (k == 2 && (esize == 4 || esize == 8)) {
		reg.enable_addr = (reg.enable_addr & ~7ull) + 1 + ue_rand_n(rs, esize - 1);
		fz_defect(&w, EINVAL);
	}
	if ((esize == 4 || esize == 8) && !(reg.enable_addr & (esize - 1)) &&
	    reg.enable_bit < 8 * esize)
		live = fz_live_find(c, reg.enable_addr, esize, reg.enable_bit, false);
	if (live >= 0) {
		fz_defect(&w, EADDRINUSE);
		w.unknown |= c->live[live].maybe;
	}
	arg = fz_arg(c, rs, &reg, sizeof(reg), &w, &ro);

	ret = ioctl(fz_pct(rs, 70) ? c->fd_main : c->fd_aux, DIAG_IOCSREG, arg) < 0 ? -errno : 0;
	if (!fz_check(c, OP_REG, ret, fz_expect(c, &w, OP_REG),
		      "flags 0x%x size %u esize %d bit %d addr 0x%llx (%d) ro %d cmd %s \"%s\"",
		      reg.flags, reg.size, esize, reg.enable_bit,
		      (unsigned long long)reg.enable_addr, k, ro, r < 88 ? "ok" : "unreadable",
		      fz_show(cmd.buf, cmd.len)))
		return;
	if (ret == 0 || (ret == -EFAULT && ro)) {
		/* an overlapping "maybe" entry was not registered after all */
		i = fz_live_find(c, reg.enable_addr, esize, reg.enable_bit, false);
		if (i < 0 && c->nlive < FZ_LIVE_MAX)
			i = c->nlive++;
		if (i >= 0)
			c->live[i] = (struct fz_live){ reg.enable_addr, esize, reg.enable_bit,
						       !!ret };
		c->sh->created += !ret;
	}
	/* a persistent event stays if the enable word's check fails (as upstream) */
	if ((reg.flags & USER_EVENT_REG_PERSIST) && r < 88 &&
	    strnlen(cmd.buf, UE_CMD_MAX + 1) <= UE_CMD_MAX)
		fz_track_name(c, cmd.buf);
}

void fz_case_unreg(struct fz_ctx *c, __u64 *rs)
{
	/* reserved fields: none, __reserved, __reserved2 */
	static const struct fz_kind resv[] = { { 90 }, { 6, EINVAL }, { 4, EINVAL } };
	struct user_unreg u = { 0 };
	struct fz_want w = { 0 };
	int live = -1, ret, k;
	void *arg;

	/* (address, bit): a live registration's, or anything else (ENOENT) */
	k = c->nlive && fz_pct(rs, 60) ? 10 : ue_rand_n(rs, 10);
	if (k == 10) {
		live = ue_rand_n(rs, c->nlive);
		u.disable_addr = c->live[live].addr;
		u.disable_bit = c->live[live].bit;
		w.unknown = c->live[live].maybe;
	} else if (k < 6) {
		u.disable_addr = fz_valid_word(c, rs, 8);
		u.disable_bit = ue_rand_n(rs, 64);
		w.unknown = fz_live_find(c, u.disable_addr, 0, u.disable_bit, true) >= 0;
		fz_defect(&w, ENOENT);
	} else {	/* not even a word: only the documented set */
		u.disable_addr = fz_bad_addr(c, rs, false);
		u.disable_bit = ue_rand_n(rs, 256);
		w.unknown = true;
		fz_defect(&w, ENOENT);
	}
	k = fz_pick(rs, resv, ARRAY_SIZE(resv), &w);
	u.__reserved = k == 1 ? 1 + ue_rand_n(rs, 255) : 0;
	u.__reserved2 = k == 2 ? 1 + ue_rand_n(rs, 65535) : 0;
	arg = fz_arg(c, rs, &u, sizeof(u), &w, NULL);
	ret = ioctl(fz_pct(rs, 50) ? c->fd_main : c->fd_aux, DIAG_IOCSUNREG, arg) < 0 ? -errno : 0;
	if (!fz_check(c, OP_UNREG, ret, fz_expect(c, &w, OP_UNREG),
		      "size %u addr 0x%llx bit %d reserved %u/%u live %d", u.size,
		      (unsigned long long)u.disable_addr, u.disable_bit,
		      u.__reserved, u.__reserved2, live) || ret)
		return;
	live = fz_live_find(c, u.disable_addr, 0, u.disable_bit, true);
	if (live >= 0)
		c->live[live] = c->live[--c->nlive];
}
