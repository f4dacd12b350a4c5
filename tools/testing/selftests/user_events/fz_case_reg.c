// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, cases: DIAG_IOCSREG and DIAG_IOCSUNREG.
 * See fuzz_test.c.
 */
#include "fuzz.h"

/* The name the kernel saw in @cmd (up to a space); "" if invalid */
void fz_cmd_name(const char *buf, char *name, size_t len)
{
	size_t n = strcspn(buf, " ");

	if (n > FZ_NAME_MAX || n >= len)
		n = 0;
	memcpy(name, buf, n);
	name[n] = '\0';
}

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

/* Remember a name that may now be a persistent event. */
void fz_track_name(struct fz_ctx *c, const char *name)
{
	int i;

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
	__u64 byte = addr + size - 1 - bit / 8;
#else
	__u64 byte = addr + bit / 8;
#endif

	return byte * 8 + bit % 8;
}

/* The live registration of (@addr, @bit), or (@exact false) of that bit */
static int fz_live_find(struct fz_ctx *c, __u64 addr, int size, int bit,
			bool exact)
{
	struct fz_live *l = c->live;
	int i;

	for (i = 0; i < c->nlive; i++, l++)
		if (exact ? l->addr == addr && l->bit == bit :
		    fz_lbit(l->addr, l->size, l->bit) == fz_lbit(addr, size, bit))
			return i;
	return -1;
}

static void fz_live_add(struct fz_ctx *c, __u64 addr, int size, int bit,
			bool maybe)
{
	int i = fz_live_find(c, addr, size, bit, false);

	/* an overlapping "maybe" entry was not registered after all */
	if (i < 0 && c->nlive < FZ_LIVE_MAX)
		i = c->nlive++;
	if (i >= 0)
		c->live[i] = (struct fz_live){ addr, size, bit, maybe };
}

/* A pointer no read can go through */
__u64 fz_bad_ptr(struct fz_ctx *c, __u64 *rs)
{
	const __u64 bad[] = { 0, FZ_KERNEL1, fz_unmapped, (uintptr_t)c->none };

	return bad[ue_rand_n(rs, 4)];
}

/* An enable word for the fuzz cases (the targets use words 0..15) */
static __u64 fz_valid_word(struct fz_ctx *c, __u64 *rs, int size)
{
	__u64 a = (__u64)(uintptr_t)c->en + 8 * (16 + ue_rand_n(rs, 240));

	return a + (size == 4 && fz_pct(rs, 50) ? 4 : 0);
}

/*
 * Struct @s of @ssize bytes, size field @size, where the ioctl reads it:
 * at @buf, or ending up to @back bytes before the guard page, maybe with
 * garbage in its tail.
 */
static void *fz_place(struct fz_ctx *c, __u64 *rs, char *buf, const void *s,
		      __u32 ssize, __u32 size, int back, bool guard, bool garbage)
{
	if (guard) {
		buf = c->guard - ssize - ue_rand_n(rs, back);
		memset(buf, 0, c->guard - buf);
	} else {
		memset(buf, 0, size == c->page ? size : 128);
	}
	memcpy(buf, s, ssize);
	if (garbage)
		buf[ssize + ue_rand_n(rs, size - ssize)] = 1 + ue_rand_n(rs, 255);
	return buf;
}

enum fz_addr {
	FA_VALID, FA_INUSE, FA_MISALIGN, FA_NULL, FA_KERNEL, FA_NONCANON,
	FA_UNMAPPED, FA_RO, FA_NONE, FA_NR
};

static const int fz_bad_esize[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };

/* One DIAG_IOCSREG case as it is built */
struct fz_reg {
	struct fz_cmd cmd;
	struct fz_want w;
	struct user_reg reg;
	int kind, live;
	bool ro, garbage, into_guard, bad_cmd;
};

/* flags, enable size and bit */
static void fz_reg_flags(struct fz_reg *g, __u64 *rs)
{
	__u32 r = ue_rand_n(rs, 100);
	int esize, nbits;

	g->reg.flags = r < 70 ? 0 : r < 80 ? USER_EVENT_REG_PERSIST :
		r < 90 ? USER_EVENT_REG_MULTI_FORMAT :
		r < 95 ? USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT :
		(__u16)(USER_EVENT_REG_MAX << ue_rand_n(rs, 14)) | ue_rand_n(rs, 4);
	if (g->reg.flags & ~(USER_EVENT_REG_MAX - 1))
		fz_defect(&g->w, EINVAL);
	r = ue_rand_n(rs, 100);
	esize = r < 45 ? 4 : r < 90 ? 8 : fz_bad_esize[ue_rand_n(rs, 9)];
	nbits = esize == 4 ? 32 : 64;
	g->reg.enable_bit = fz_pct(rs, 92) ? ue_rand_n(rs, nbits) :
			    nbits + ue_rand_n(rs, 256 - nbits);
	if ((esize != 4 && esize != 8) || g->reg.enable_bit >= 8 * esize)
		fz_defect(&g->w, EINVAL);
	g->reg.enable_size = esize;
}

/* the enable address; EADDRINUSE for the bit of a live registration */
static void fz_reg_addr(struct fz_ctx *c, __u64 *rs, struct fz_reg *g)
{
	int esize = g->reg.enable_size, bit = g->reg.enable_bit, i;
	__u32 r = ue_rand_n(rs, 100);
	__u64 addr;

	g->kind = r < 72 ? FA_VALID : r < 77 ? FA_INUSE :
		  FA_MISALIGN + ue_rand_n(rs, FA_NR - FA_MISALIGN);
	addr = fz_valid_word(c, rs, esize == 4 ? 4 : 8);
	if (g->kind == FA_INUSE && c->nlive) {
		/* a live word; the same bit if the size matches */
		i = ue_rand_n(rs, c->nlive);
		if (c->live[i].size == esize) {
			addr = c->live[i].addr;
			bit = c->live[i].bit;
		}
	} else if (g->kind == FA_MISALIGN && (esize == 4 || esize == 8)) {
		addr = (addr & ~7ull) + 1 + ue_rand_n(rs, esize - 1);
		fz_defect(&g->w, EINVAL);
	} else if (g->kind > FA_MISALIGN) {
		addr = g->kind == FA_NULL ? 0 :
		       g->kind == FA_KERNEL ?
		       (fz_pct(rs, 50) ? FZ_KERNEL1 : 0xffff888000000000ull) :
		       g->kind == FA_NONCANON ?
		       (fz_pct(rs, 50) ? FZ_NONCANON : 0xfffffffffffffff8ull) :
		       g->kind == FA_UNMAPPED ? fz_unmapped + 8 * ue_rand_n(rs, 64) :
		       g->kind == FA_RO ? (uintptr_t)c->ro + 2048 + 8 * ue_rand_n(rs, 64) :
		       (uintptr_t)c->none + 8 * ue_rand_n(rs, 64);
		fz_defect(&g->w, EFAULT);
	}
	g->reg.enable_addr = addr;
	g->reg.enable_bit = bit;

	g->live = -1;
	if ((esize == 4 || esize == 8) && !(addr & (esize - 1)) && bit < 8 * esize)
		g->live = fz_live_find(c, addr, esize, bit, false);
	if (g->live >= 0) {
		fz_defect(&g->w, EADDRINUSE);
		g->w.unknown |= c->live[g->live].maybe;
	}
}

/* the command text: arena page 2, or unreadable (then only that counts) */
static void fz_reg_text(struct fz_ctx *c, __u64 *rs, struct fz_reg *g)
{
	char *cbuf = c->arena + 2 * c->page;
	__u32 r = ue_rand_n(rs, 100);
	int n;

	if (r < 88) {
		memcpy(cbuf, g->cmd.buf, g->cmd.len + 1);
		g->reg.name_args = (uintptr_t)cbuf;
		return;
	}
	g->bad_cmd = true;
	g->w.unknown = false;
	memset(&g->w.extra, 0, sizeof(g->w.extra));
	g->w.ndef -= g->cmd.w.ndef;
	if (r < 94) {
		/* no NUL before the guard page: EFAULT, or EINVAL if long */
		n = fz_pct(rs, 70) ? 1 + ue_rand_n(rs, FZ_CMD_MAX) :
		    FZ_CMD_MAX + 1 + ue_rand_n(rs, 100);
		cbuf = c->guard - n;
		memset(cbuf, 'a', n);
		fz_defect(&g->w, n > FZ_CMD_MAX ? EINVAL : EFAULT);
	} else {
		cbuf = (char *)(uintptr_t)fz_bad_ptr(c, rs);
		fz_defect(&g->w, EFAULT);
	}
	if (g->live >= 0 && c->live[g->live].maybe)
		g->w.unknown = true;
	g->reg.name_args = (uintptr_t)cbuf;
}

/* struct user_reg's size field */
static void fz_reg_size(struct fz_ctx *c, __u64 *rs, struct fz_reg *g)
{
	__u32 r = ue_rand_n(rs, 100);

	g->reg.size = FZ_REG_SIZE;
	if (r >= 75 && r < 87) {	/* a tail of zeroes, or garbage */
		g->reg.size += 1 + ue_rand_n(rs, 64);
		g->garbage = r >= 83;
	} else if (r >= 87 && r < 91) {
		g->reg.size = ue_rand_n(rs, FZ_REG_SIZE);
		fz_defect(&g->w, EINVAL);
	} else if (r >= 91 && r < 95) {
		g->reg.size = fz_pct(rs, 70) ? c->page + 1 + ue_rand_n(rs, 16) :
			      (__u32)ue_rand(rs) | 0x80000000u;
		fz_defect(&g->w, E2BIG);
	} else if (r >= 95 && r < 97) {
		g->reg.size = c->page;		/* zeroes up to a page */
	} else if (r >= 97) {
		g->reg.size += 8 + ue_rand_n(rs, 64);
		g->into_guard = true;		/* the tail is unreadable */
		fz_defect(&g->w, EFAULT);
	}
	if (g->garbage)
		fz_defect(&g->w, E2BIG);
	g->reg.write_index = ue_rand(rs);
}

/* Where the struct is: the ioctl's argument */
static void *fz_reg_place(struct fz_ctx *c, __u64 *rs, struct fz_reg *g)
{
	__u32 r = ue_rand_n(rs, 100), size = g->reg.size;

	if (r < 4) {
		/* the pointer itself is bad: nothing else can be read */
		g->w = (struct fz_want){ .ndef = 1, .err = EFAULT };
		return (void *)(uintptr_t)fz_bad_ptr(c, rs);
	}
	if (!g->into_guard && r < 10 && !g->garbage &&
	    size >= FZ_REG_SIZE && size <= 64) {
		/* read-only: the kernel cannot store write_index */
		mprotect(c->ro, c->page, PROT_READ | PROT_WRITE);
		memset(c->ro, 0, 128);
		memcpy(c->ro, &g->reg, sizeof(g->reg));
		mprotect(c->ro, c->page, PROT_READ);
		g->ro = true;
		fz_defect(&g->w, EFAULT);
		return c->ro;
	}
	return fz_place(c, rs, g->into_guard || size == c->page ? c->arena :
			c->arena + 8 * ue_rand_n(rs, 8), &g->reg, FZ_REG_SIZE,
			size, 8, g->into_guard, g->garbage);
}

void fz_case_reg(struct fz_ctx *c, __u64 *rs)
{
	static struct fz_reg g;
	char name[FZ_NAME_MAX + 1];
	void *arg;
	int ret;

	memset(&g, 0, sizeof(g));
	fz_gen_cmd(c, rs, &g.cmd);
	g.w = g.cmd.w;
	if (g.cmd.shared)	/* may be in use with other fields */
		fz_set_add(&g.w.extra, EADDRINUSE);
	fz_reg_flags(&g, rs);
	fz_reg_addr(c, rs, &g);
	fz_reg_text(c, rs, &g);
	fz_reg_size(c, rs, &g);
	arg = fz_reg_place(c, rs, &g);

	ret = ioctl(fz_pct(rs, 70) ? c->fd_main : c->fd_aux, DIAG_IOCSREG, arg);
	ret = ret < 0 ? -errno : 0;
	if (!fz_check(c, OP_REG, ret, fz_expect(c, &g.w, fz_reg_errs),
		      "flags 0x%x size %u esize %d bit %d addr 0x%llx (%d) ro %d cmd %s \"%s\"",
		      g.reg.flags, g.reg.size, g.reg.enable_size, g.reg.enable_bit,
		      (unsigned long long)g.reg.enable_addr, g.kind, g.ro,
		      g.bad_cmd ? "unreadable" : "ok", fz_show(g.cmd.buf, g.cmd.len)))
		return;
	if (ret == 0 || (ret == -EFAULT && g.ro)) {
		fz_live_add(c, g.reg.enable_addr, g.reg.enable_size,
			    g.reg.enable_bit, ret != 0);
		c->sh->created += !ret;
	}
	/* a persistent event stays if the enable word's check fails (as upstream) */
	if ((g.reg.flags & USER_EVENT_REG_PERSIST) && !g.bad_cmd) {
		fz_cmd_name(g.cmd.buf, name, sizeof(name));
		fz_track_name(c, name);
	}
}

__u64 fz_unreg_addrs[] = {
	0, FZ_KERNEL1, FZ_NONCANON, 0 /* fz_unmapped, by fz_setup() */,
};

void fz_case_unreg(struct fz_ctx *c, __u64 *rs)
{
	char *sbuf = c->arena + 8 * ue_rand_n(rs, 8);
	struct user_unreg u = { .size = FZ_UNREG_SIZE };
	struct fz_want w = { 0 };
	bool garbage = false, guard = false;
	int live = -1, ret;
	void *arg;
	__u32 r;

	/* (address, bit): a live registration's, or anything else (ENOENT) */
	r = c->nlive && fz_pct(rs, 60) ? 10 : ue_rand_n(rs, 10);
	if (r == 10) {
		live = ue_rand_n(rs, c->nlive);
		u.disable_addr = c->live[live].addr;
		u.disable_bit = c->live[live].bit;
		w.unknown = c->live[live].maybe;
	} else if (r < 6) {
		u.disable_addr = fz_valid_word(c, rs, 8);
		u.disable_bit = ue_rand_n(rs, 64);
		w.unknown = fz_live_find(c, u.disable_addr, 0, u.disable_bit, true) >= 0;
		fz_defect(&w, ENOENT);
	} else {	/* not even a word: only the documented set */
		u.disable_addr = fz_unreg_addrs[r - 6];
		u.disable_bit = ue_rand_n(rs, 256);
		w.unknown = true;
		fz_defect(&w, ENOENT);
	}
	/* reserved fields and the size field */
	r = ue_rand_n(rs, 100);
	if (r < 6)
		u.__reserved = 1 + ue_rand_n(rs, 255);
	else if (r < 10)
		u.__reserved2 = 1 + ue_rand_n(rs, 65535);
	if (r < 10)
		fz_defect(&w, EINVAL);
	r = ue_rand_n(rs, 100);
	if (r < 8) {
		u.size = ue_rand_n(rs, FZ_UNREG_SIZE);
		fz_defect(&w, EINVAL);
	} else if (r < 14) {
		u.size = c->page + 1 + ue_rand_n(rs, 16);
		fz_defect(&w, E2BIG);
	} else if (r < 26) {	/* a tail of garbage, or of zeroes */
		u.size += 1 + ue_rand_n(rs, 48);
		garbage = r < 20;
		if (garbage)
			fz_defect(&w, E2BIG);
	} else if (r < 29) {
		u.size += 8 + ue_rand_n(rs, 48);
		guard = true;
		fz_defect(&w, EFAULT);
	}
	if (fz_pct(rs, 4)) {
		w = (struct fz_want){ .ndef = 1, .err = EFAULT };
		arg = (void *)(uintptr_t)fz_bad_ptr(c, rs);
	} else {
		arg = fz_place(c, rs, sbuf, &u, FZ_UNREG_SIZE, u.size, 4, guard, garbage);
	}
	ret = ioctl(fz_pct(rs, 50) ? c->fd_main : c->fd_aux, DIAG_IOCSUNREG, arg);
	ret = ret < 0 ? -errno : 0;
	if (!fz_check(c, OP_UNREG, ret, fz_expect(c, &w, fz_unreg_errs),
		      "size %u addr 0x%llx bit %d reserved %u/%u live %d", u.size,
		      (unsigned long long)u.disable_addr, u.disable_bit,
		      u.__reserved, u.__reserved2, live) || ret)
		return;
	live = fz_live_find(c, u.disable_addr, 0, u.disable_bit, true);
	if (live >= 0)
		c->live[live] = c->live[--c->nlive];
}
