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

	while (p && (p = strstr(p, name))) {
		if ((p == c->baseline || p[-1] == '\n') &&
		    (p[n] == '\n' || p[n] == ' ' || p[n] == '.'))
			return true;
		p += n;
	}
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

/* ---------------------------------------------------------------------
 * Addresses
 */

enum fz_addr {
	FA_VALID, FA_INUSE, FA_MISALIGN, FA_NULL, FA_KERNEL, FA_NONCANON,
	FA_UNMAPPED, FA_RO, FA_NONE, FA_NR
};

/*
 * Where a registered bit is: the long holding it and byte * 8 + bit in
 * that byte, the same for a 4- or 8-byte word on either byte order.
 */
static void fz_lbit(__u64 addr, int size, int bit, __u64 *l, int *lb)
{
	/* the byte holding the bit: the word's last byte first on big-endian */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	__u64 byte = addr + size - 1 - bit / 8;
#else
	__u64 byte = addr + bit / 8;
#endif

	*l = byte & ~7ull;
	*lb = (byte & 7) * 8 + bit % 8;
}

static int fz_live_find(struct fz_ctx *c, __u64 addr, int size, int bit,
			bool exact)
{
	__u64 l, ll;
	int i, lb, llb;

	fz_lbit(addr, size, bit, &l, &lb);
	for (i = 0; i < c->nlive; i++) {
		if (exact) {
			if (c->live[i].addr == addr && c->live[i].bit == bit)
				return i;
			continue;
		}
		fz_lbit(c->live[i].addr, c->live[i].size, c->live[i].bit, &ll,
			&llb);
		if (ll == l && llb == lb)
			return i;
	}
	return -1;
}

static void fz_live_add(struct fz_ctx *c, __u64 addr, int size, int bit,
			bool maybe)
{
	int i = fz_live_find(c, addr, size, bit, false);

	/* an overlapping "maybe" entry was not registered after all */
	if (i >= 0) {
		c->live[i] = (struct fz_live){ addr, size, bit, maybe };
		return;
	}
	if (c->nlive < FZ_LIVE_MAX)
		c->live[c->nlive++] = (struct fz_live){ addr, size, bit, maybe };
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

	if (size == 4 && fz_pct(rs, 50))
		a += 4;
	return a;
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSREG
 */

static const int fz_bad_esize[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };

/* One DIAG_IOCSREG case as it is built */
struct fz_reg {
	struct fz_cmd cmd;
	struct fz_want w;
	struct user_reg reg;
	__u32 size;
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
		(__u16)(USER_EVENT_REG_MAX << ue_rand_n(rs, 14)) |
		ue_rand_n(rs, 4);
	if (g->reg.flags & ~(USER_EVENT_REG_MAX - 1))
		fz_defect(&g->w, EINVAL);

	r = ue_rand_n(rs, 100);
	esize = r < 45 ? 4 : r < 90 ? 8 : fz_bad_esize[ue_rand_n(rs, 9)];
	if (esize != 4 && esize != 8)
		fz_defect(&g->w, EINVAL);
	nbits = esize == 4 ? 32 : 64;
	g->reg.enable_bit = fz_pct(rs, 92) ? ue_rand_n(rs, nbits) :
			    nbits + ue_rand_n(rs, 256 - nbits);
	if ((esize == 4 || esize == 8) && g->reg.enable_bit >= 8 * esize)
		fz_defect(&g->w, EINVAL);
	g->reg.enable_size = esize;
}

/* A bad enable address of kind @kind, with its defect */
static __u64 fz_reg_bad_addr(struct fz_ctx *c, __u64 *rs, int kind,
			     __u64 addr, int esize, struct fz_want *w)
{
	switch (kind) {
	case FA_MISALIGN:
		if (esize != 4 && esize != 8)
			return addr;
		fz_defect(w, EINVAL);
		return (addr & ~7ull) + 1 + ue_rand_n(rs, esize - 1);
	case FA_NULL:
		addr = 0;
		break;
	case FA_KERNEL:
		addr = fz_pct(rs, 50) ? FZ_KERNEL1 : FZ_KERNEL2;
		break;
	case FA_NONCANON:
		addr = fz_pct(rs, 50) ? FZ_NONCANON : 0xfffffffffffffff8ull;
		break;
	case FA_UNMAPPED:
		addr = fz_unmapped + 8 * ue_rand_n(rs, 64);
		break;
	case FA_RO:
		addr = (uintptr_t)c->ro + 2048 + 8 * ue_rand_n(rs, 64);
		break;
	default:
		addr = (uintptr_t)c->none + 8 * ue_rand_n(rs, 64);
		break;
	}
	fz_defect(w, EFAULT);
	return addr;
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
	} else if (g->kind > FA_INUSE) {
		addr = fz_reg_bad_addr(c, rs, g->kind, addr, esize, &g->w);
	}
	g->reg.enable_addr = addr;
	g->reg.enable_bit = bit;

	g->live = -1;
	if ((esize == 4 || esize == 8) && !(addr & (esize - 1)) &&
	    bit < 8 * esize)
		g->live = fz_live_find(c, addr, esize, bit, false);
	if (g->live >= 0) {
		fz_defect(&g->w, EADDRINUSE);
		if (c->live[g->live].maybe)
			g->w.unknown = true;
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

	if (r < 75) {
		g->size = FZ_REG_SIZE;
	} else if (r < 83) {
		g->size = FZ_REG_SIZE + 1 + ue_rand_n(rs, 64); /* zero tail */
	} else if (r < 87) {
		g->size = FZ_REG_SIZE + 1 + ue_rand_n(rs, 64);
		g->garbage = true;
		fz_defect(&g->w, E2BIG);
	} else if (r < 91) {
		g->size = ue_rand_n(rs, FZ_REG_SIZE);
		fz_defect(&g->w, EINVAL);
	} else if (r < 95) {
		g->size = fz_pct(rs, 70) ? c->page + 1 + ue_rand_n(rs, 16) :
			  (__u32)ue_rand(rs) | 0x80000000u;
		fz_defect(&g->w, E2BIG);
	} else if (r < 97) {
		g->size = c->page;		/* zeroes up to a page */
	} else {
		g->size = FZ_REG_SIZE + 8 + ue_rand_n(rs, 64);
		g->into_guard = true;		/* the tail is unreadable */
		fz_defect(&g->w, EFAULT);
	}
	g->reg.size = g->size;
	g->reg.write_index = ue_rand(rs);
}

/* Where the struct is: the ioctl's argument */
static void *fz_reg_place(struct fz_ctx *c, __u64 *rs, struct fz_reg *g)
{
	__u32 r = ue_rand_n(rs, 100), size = g->size;
	char *sbuf;

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
	if (g->into_guard) {
		sbuf = c->guard - FZ_REG_SIZE - ue_rand_n(rs, 8);
		memset(sbuf, 0, c->guard - sbuf);
	} else {
		sbuf = size == c->page ? c->arena :
		       c->arena + 8 * ue_rand_n(rs, 8);
		memset(sbuf, 0, size == c->page ? size : 128);
	}
	memcpy(sbuf, &g->reg, sizeof(g->reg));
	if (g->garbage)
		sbuf[FZ_REG_SIZE + ue_rand_n(rs, size - FZ_REG_SIZE)] =
			1 + ue_rand_n(rs, 255);
	return sbuf;
}

/* What may exist after a registration that passed the oracle */
static void fz_reg_track(struct fz_ctx *c, struct fz_reg *g, int ret)
{
	char name[FZ_NAME_MAX + 1];

	if (ret == 0 || (ret == -EFAULT && g->ro)) {
		fz_live_add(c, g->reg.enable_addr, g->reg.enable_size,
			    g->reg.enable_bit, ret != 0);
		if (ret == 0)
			c->sh->created++;
	}
	/*
	 * A persistent event is created before the enable word is checked,
	 * and stays when that check fails (as upstream): track it anyway.
	 */
	if ((g->reg.flags & USER_EVENT_REG_PERSIST) && !g->bad_cmd) {
		fz_cmd_name(g->cmd.buf, name, sizeof(name));
		fz_track_name(c, name);
	}
}

void fz_case_reg(struct fz_ctx *c, __u64 *rs)
{
	static struct fz_reg g;
	struct fz_set s;
	void *arg;
	int fd, ret;

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

	fd = fz_pct(rs, 70) ? c->fd_main : c->fd_aux;
	ret = ioctl(fd, DIAG_IOCSREG, arg) < 0 ? -errno : 0;
	if (!fz_judge(c, OP_REG, ret, &g.w, fz_reg_errs, &s)) {
		fz_fail(c, OP_REG, ret, &s,
			"flags 0x%x size %u esize %d bit %d addr 0x%llx (%d) ro %d cmd %s \"%s\"",
			g.reg.flags, g.size, g.reg.enable_size,
			g.reg.enable_bit, (unsigned long long)g.reg.enable_addr,
			g.kind, g.ro, g.bad_cmd ? "unreadable" : "ok",
			fz_show(g.cmd.buf, g.cmd.len));
		return;
	}
	fz_reg_track(c, &g, ret);
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSUNREG
 */

__u64 fz_unreg_addrs[] = {
	0, FZ_KERNEL1, FZ_NONCANON, 0 /* fz_unmapped, by fz_setup() */,
};

/* One DIAG_IOCSUNREG case as it is built */
struct fz_unreg {
	struct user_unreg u;
	struct fz_want w;
	bool garbage, into_guard;
	int live;
};

/* (address, bit): a live registration's, or anything else (ENOENT) */
static void fz_unreg_target(struct fz_ctx *c, __u64 *rs, struct fz_unreg *g)
{
	int i = -1;
	__u32 r;

	if (c->nlive && fz_pct(rs, 60)) {
		i = ue_rand_n(rs, c->nlive);
		g->u.disable_addr = c->live[i].addr;
		g->u.disable_bit = c->live[i].bit;
		g->w.unknown = c->live[i].maybe;
		g->live = i;
		return;
	}
	r = ue_rand_n(rs, 10);
	if (r < 6) {
		g->u.disable_addr = fz_valid_word(c, rs, 8);
		g->u.disable_bit = ue_rand_n(rs, 64);
		g->w.unknown = fz_live_find(c, g->u.disable_addr, 0,
					    g->u.disable_bit, true) >= 0;
	} else {
		/* not even a word: only the documented set */
		g->u.disable_addr = fz_unreg_addrs[r - 6];
		g->u.disable_bit = ue_rand_n(rs, 256);
		g->w.unknown = true;
	}
	g->live = i;
	fz_defect(&g->w, ENOENT);
}

/* reserved fields and the size field */
static void fz_unreg_fields(struct fz_ctx *c, __u64 *rs, struct fz_unreg *g)
{
	__u32 r = ue_rand_n(rs, 100);

	if (r < 6) {
		g->u.__reserved = 1 + ue_rand_n(rs, 255);
		fz_defect(&g->w, EINVAL);
	} else if (r < 10) {
		g->u.__reserved2 = 1 + ue_rand_n(rs, 65535);
		fz_defect(&g->w, EINVAL);
	}
	g->u.size = FZ_UNREG_SIZE;
	r = ue_rand_n(rs, 100);
	if (r < 8) {
		g->u.size = ue_rand_n(rs, FZ_UNREG_SIZE);
		fz_defect(&g->w, EINVAL);
	} else if (r < 14) {
		g->u.size = c->page + 1 + ue_rand_n(rs, 16);
		fz_defect(&g->w, E2BIG);
	} else if (r < 20) {
		g->u.size = FZ_UNREG_SIZE + 1 + ue_rand_n(rs, 48);
		g->garbage = true;
		fz_defect(&g->w, E2BIG);
	} else if (r < 26) {
		g->u.size = FZ_UNREG_SIZE + 1 + ue_rand_n(rs, 48); /* zeroes */
	} else if (r < 29) {
		g->u.size = FZ_UNREG_SIZE + 8 + ue_rand_n(rs, 48);
		g->into_guard = true;
		fz_defect(&g->w, EFAULT);
	}
}

/* Where the struct is: the ioctl's argument (@sbuf unless bad) */
static void *fz_unreg_place(struct fz_ctx *c, __u64 *rs, struct fz_unreg *g,
			    char *sbuf)
{
	if (fz_pct(rs, 4)) {
		g->w = (struct fz_want){ .ndef = 1, .err = EFAULT };
		return (void *)(uintptr_t)fz_bad_ptr(c, rs);
	}
	if (g->into_guard) {
		sbuf = c->guard - FZ_UNREG_SIZE - ue_rand_n(rs, 4);
		memset(sbuf, 0, c->guard - sbuf);
	} else {
		memset(sbuf, 0, 128);
	}
	memcpy(sbuf, &g->u, sizeof(g->u));
	if (g->garbage)
		sbuf[FZ_UNREG_SIZE + ue_rand_n(rs, g->u.size - FZ_UNREG_SIZE)] =
			1 + ue_rand_n(rs, 255);
	return sbuf;
}

void fz_case_unreg(struct fz_ctx *c, __u64 *rs)
{
	char *sbuf = c->arena + 8 * ue_rand_n(rs, 8);
	struct fz_unreg g = { 0 };
	struct fz_set s;
	void *arg;
	int ret, i;

	fz_unreg_target(c, rs, &g);
	fz_unreg_fields(c, rs, &g);
	arg = fz_unreg_place(c, rs, &g, sbuf);
	ret = ioctl(fz_pct(rs, 50) ? c->fd_main : c->fd_aux, DIAG_IOCSUNREG,
		    arg);
	if (ret < 0)
		ret = -errno;
	if (!fz_judge(c, OP_UNREG, ret, &g.w, fz_unreg_errs, &s)) {
		fz_fail(c, OP_UNREG, ret, &s,
			"size %u addr 0x%llx bit %d reserved %u/%u live %d",
			g.u.size, (unsigned long long)g.u.disable_addr,
			g.u.disable_bit, g.u.__reserved, g.u.__reserved2,
			g.live);
		return;
	}
	if (ret == 0) {
		i = fz_live_find(c, g.u.disable_addr, 0, g.u.disable_bit,
				 true);
		if (i >= 0)
			c->live[i] = c->live[--c->nlive];
	}
}
