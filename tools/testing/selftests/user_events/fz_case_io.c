// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, cases: write()/writev(), DIAG_IOCSDEL,
 * dynamic_events and other file operations.  See fuzz_test.c.
 */
#include "fuzz.h"

/* a payload: up to PAGE_SIZE - 32 + 4136 bytes, 64 KiB pages included */
char fz_tmp[FZ_TMP_SIZE];

/* One write() or writev() case as it is built */
struct fz_wr {
	const struct fz_target *t;	/* NULL: not a target */
	struct fz_want w;
	char *dst;			/* where the bytes are written from */
	__u32 count, plen, readable;
	__s32 idx;
	int fd;
};

/* Whose index: a target's, unknown, negative, or a fuzz registration's */
static void fz_write_index(struct fz_ctx *c, __u64 *rs, struct fz_wr *x)
{
	__u32 r = ue_rand_n(rs, 100);

	x->fd = r < 82 ? c->fd_tgt : fz_pct(rs, 50) ? c->fd_main : c->fd_aux;
	if (r < 65) {
		x->t = &fz_targets[ue_rand_n(rs, fz_ntargets)];
		x->idx = x->t->idx;
	} else if (r < 75) {
		x->idx = fz_ntargets + ue_rand_n(rs, 1000);
	} else if (r < 82) {
		x->idx = -1 - (__s32)ue_rand_n(rs, 0x7fffffff);
		fz_defect(&x->w, EINVAL);
	} else if (r < 88) {
		x->idx = (1 << 20) + ue_rand_n(rs, 1 << 30);
	} else {	/* fuzz registrations: never traced, mostly */
		x->idx = ue_rand_n(rs, 64);
		x->w.unknown = true;
	}
	if ((r >= 65 && r < 75) || (r >= 82 && r < 88))
		fz_defect(&x->w, ENOENT);
}

/*
 * The bytes, and where they are (the end may run into the guard page),
 * and the kernel's checks, in the order of the documentation.
 */
static void fz_write_bytes(struct fz_ctx *c, __u64 *rs, struct fz_wr *x, bool vec)
{
	const struct fz_target *t = x->t;
	int model;

	memcpy(fz_tmp, &x->idx, 4);	/* the index, then the payload */
	x->plen = t ? fz_gen_payload(rs, t, (unsigned char *)fz_tmp + 4) :
		  fz_gen_random(rs, (unsigned char *)fz_tmp + 4, 0);
	x->count = fz_pct(rs, 3) ? ue_rand_n(rs, 4) : 4 + x->plen;	/* not even an index */
	x->readable = x->count;
	x->dst = c->wbuf + ue_rand_n(rs, 64);
	if (fz_pct(rs, 5) && x->count) {
		x->readable = ue_rand_n(rs, x->count);
		x->dst = c->wguard - x->readable;
	}
	memcpy(x->dst, fz_tmp, x->readable);

	if (x->count < 4 || x->readable < 4) {
		/* less than an index; writev() of nothing: nothing to do */
		x->w = (struct fz_want){ .ndef = x->count || !vec, .err = EFAULT };
		return;
	}
	if (!t)
		return;
	/*
	 * Enabled, known format: exact.  Too big means too big for every
	 * attached consumer: ftrace holds fz_payload_max bytes, perf
	 * FZ_PERF_MAX; a consumer too small drops it alone.
	 */
	model = x->plen < (__u32)t->size ? -EINVAL :
		x->plen > fz_payload_max && (!t->perf || x->plen > FZ_PERF_MAX) ? -E2BIG :
		x->readable < x->count ? -EFAULT :
		fz_model_record(t, (unsigned char *)fz_tmp + 4, x->plen);
	if (model < 0)
		fz_defect(&x->w, -model);
	else if (model > 0)
		fz_set_add(&x->w.extra, EFAULT);
}

/* writev() of the bytes split into iovecs, some empty, maybe too many */
static int fz_writev(__u64 *rs, struct fz_wr *x, int *niov, bool *kptr)
{
	static struct iovec iov[FZ_IOV_MAX + 80];
	__u32 r = ue_rand_n(rs, 100), pos = 0, cut, count = x->count;
	int i, n;

	n = r < 60 ? 1 + ue_rand_n(rs, 8) : r < 90 ? 1 + ue_rand_n(rs, 1024) :
	    FZ_IOV_MAX - 4 + ue_rand_n(rs, 80);
	for (i = 0; i < n; i++, pos = cut) {
		cut = i == n - 1 ? count : pos + ue_rand_n(rs, (count - pos) / 2 + 2);
		if (cut > count)
			cut = count;
		iov[i].iov_base = x->dst + pos;
		iov[i].iov_len = cut - pos;
	}
	if (fz_pct(rs, 2) && count) {
		/* a kernel pointer in a non-empty iovec */
		for (i = 0; i < n && !iov[i].iov_len; i++)
			;
		iov[i].iov_base = fz_kptr;
		*kptr = true;
	}
	*niov = n;
	return writev(x->fd, iov, n);
}

void fz_case_write(struct fz_ctx *c, __u64 *rs)
{
	bool vec = fz_pct(rs, 40), kptr = false;
	enum fz_op op = vec ? OP_WRITEV : OP_WRITE;
	struct fz_wr x = { 0 };
	int niov = 1, ret;

	fz_write_index(c, rs, &x);
	fz_write_bytes(c, rs, &x, vec);
	if (vec) {
		ret = fz_writev(rs, &x, &niov, &kptr);
	} else {
		if (fz_pct(rs, 2) && x.count) {
			x.dst = fz_kptr;
			kptr = true;
		}
		ret = write(x.fd, x.dst, x.count);
	}
	if (ret < 0)
		ret = -errno;
	if (niov > FZ_IOV_MAX)
		x.w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	else if (kptr)
		x.w = (struct fz_want){ .ndef = 1, .err = EFAULT };
	if (fz_check(c, op, ret, fz_expect(c, &x.w, fz_write_errs),
		     "target %s idx %d count %u readable %u iovecs %d",
		     x.t ? x.t->name : "-", x.idx, x.count, x.readable, niov) &&
	    ret >= 0 && ret != (int)x.count)
		fz_fail(c, "%s wrote %d of %u bytes", fz_op_name[op], ret, x.count);
}

void fz_case_del(struct fz_ctx *c, __u64 *rs)
{
	char *buf = c->arena + 3 * c->page, *arg = buf;
	__u32 r = ue_rand_n(rs, 100), n, i;
	struct fz_want w = { 0 };
	int ret;

	if (r < 40) {
		/* never used: random bytes, NUL and non-ASCII included */
		n = fz_pct(rs, 80) ? ue_rand_n(rs, 64) : ue_rand_n(rs, 700);
		memcpy(buf, FZ_PREFIX "_del_", 11);
		for (i = 0; i < n; i++)
			buf[11 + i] = fz_pct(rs, 90) ? 'a' + ue_rand_n(rs, 26) : ue_rand(rs);
		buf[11 + n] = '\0';
		fz_defect(&w, strlen(buf) > FZ_CMD_MAX ? EINVAL : ENOENT);
	} else if (r < 55 && c->nnames) {
		snprintf(buf, 256, "%s", c->names[ue_rand_n(rs, c->nnames)]);
		w.unknown = true;
	} else if (r < 65) {
		snprintf(buf, 256, "%s", fz_targets[ue_rand_n(rs, fz_ntargets)].name);
		fz_defect(&w, EBUSY);	/* registered and traced */
	} else if (r < 80) {
		snprintf(buf, 256, FZ_PREFIX "_n%u", ue_rand_n(rs, FZ_SHARED));
		w.unknown = true;
	} else if (r < 88) {
		/* unterminated up to the guard page */
		n = fz_pct(rs, 60) ? 1 + ue_rand_n(rs, FZ_CMD_MAX) :
		    FZ_CMD_MAX + 1 + ue_rand_n(rs, 64);
		arg = c->guard - n;
		memset(arg, 'q', n);
		fz_defect(&w, n > FZ_CMD_MAX ? EINVAL : EFAULT);
	} else {
		arg = (char *)(uintptr_t)fz_bad_ptr(c, rs);
		fz_defect(&w, EFAULT);
	}
	if (arg == buf && fz_is_baseline(c, buf))
		return;
	ret = ioctl(fz_pct(rs, 50) ? c->fd_main : c->fd_aux, DIAG_IOCSDEL, arg);
	ret = ret < 0 ? -errno : 0;
	fz_check(c, OP_DEL, ret, fz_expect(c, &w, fz_del_errs), "name %s",
		 arg == buf ? fz_show(buf, strlen(buf)) : "(bad pointer)");
}

int fz_dyn_write(const char *buf, size_t len)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	fd = open(ue_tpath(path, sizeof(path), "dynamic_events"),
		  O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* A "u:" line from a generated command into @line; its length */
static size_t fz_dyn_create(struct fz_ctx *c, __u64 *rs, char *line,
			    struct fz_want *w)
{
	static struct fz_cmd cmd;
	size_t len, i;

	fz_gen_cmd(c, rs, &cmd);
	*w = cmd.w;
	if (cmd.shared)
		fz_set_add(&w->extra, EADDRINUSE);
	/* white space after "u:" is skipped: drop it, no defect */
	if (cmd.lead_ws && !cmd.mutated && cmd.buf[0] == ' ') {
		memmove(cmd.buf, cmd.buf + 1, cmd.len--);
		w->ndef--;
	}
	/* 511 bytes is the ioctl's limit: a line may be longer */
	if (cmd.too_long && !cmd.mutated)
		w->ndef--;
	memcpy(line, "u:", 2);
	memcpy(line + 2, cmd.buf, cmd.len);
	len = cmd.len + 2;
	for (i = 2; i < len; i++)	/* one line: a newline would end it */
		if (line[i] == '\n')
			line[i] = ' ';
	if (fz_pct(rs, 3)) {
		/* longer than a tracefs command line */
		while (len < 4100 + ue_rand_n(rs, 1000))
			line[len++] = ' ';
		*w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	}
	/* a NUL ends the line early: refused ('#' from a mutation: unknown) */
	if (memchr(line, '\0', len))
		*w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	return len;
}

/* A delete line into @line (size @size); 0 for a baseline event */
static size_t fz_dyn_delete(struct fz_ctx *c, __u64 *rs, __u32 r,
			    char *line, size_t size, struct fz_want *w)
{
	static const char * const fmt[] = { "-:%s%s", "-:%s/%s", "!u:%s%s", "!u:%s%s u32 a" };
	char name[FZ_NAME_MAX + 1];
	const char *nm = name;
	size_t len;
	int k;

	if (r < 80 && c->nnames) {
		nm = c->names[ue_rand_n(rs, c->nnames)];
		w->unknown = true;
	} else if (r < 86) {
		nm = fz_targets[ue_rand_n(rs, fz_ntargets)].name;
		fz_defect(w, EBUSY);
	} else {
		snprintf(name, sizeof(name), FZ_PREFIX "_del_%llu", c->ncase);
		fz_defect(w, ENOENT);
	}
	/* with a system or fields that may not match: unknown */
	k = ue_rand_n(rs, 4);
	w->unknown |= k % 2;
	if (k == 1)
		len = snprintf(line, size, fmt[k], fz_pct(rs, 50) ? UE_SYS : UE_SYS_MULTI, nm);
	else
		len = snprintf(line, size, fmt[k], "", nm);
	return fz_is_baseline(c, nm) ? 0 : len;
}

void fz_case_dyn(struct fz_ctx *c, __u64 *rs)
{
	static char line[5200];
	char name[FZ_NAME_MAX + 1];
	struct fz_want w = { 0 };
	__u32 r = ue_rand_n(rs, 100);
	size_t len;
	int ret;

	if (r < 70)
		len = fz_dyn_create(c, rs, line, &w);
	else
		len = fz_dyn_delete(c, rs, r, line, sizeof(line), &w);
	if (!len)
		return;
	ret = fz_dyn_write(line, len);
	if (!fz_check(c, OP_DYN, ret, fz_expect(c, &w, fz_dyn_errs), "%zu bytes: \"%s\"", len,
		      fz_show(line, len)) || ret || strncmp(line, "u:", 2))
		return;
	/* what it created: the name after "u:" and white space, up to a '#' */
	line[len] = '\0';
	line[strcspn(line, "#")] = '\0';
	fz_cmd_name(line + 2 + strspn(line + 2, " \t\n\v\f\r"), name, sizeof(name));
	fz_track_name(c, name);
	c->sh->created++;
}

void fz_case_misc(struct fz_ctx *c, __u64 *rs)
{
	unsigned int cmd = 0, r = ue_rand_n(rs, 100);
	void *map;
	long ret;

	if (r < 50) {
		/* an unknown command of the user_events ioctl magic */
		do {
			cmd = _IOC(ue_rand_n(rs, 4), DIAG_IOC_MAGIC, ue_rand_n(rs, 256),
				   ue_rand_n(rs, 1 << 14));
		} while (cmd == DIAG_IOCSREG || cmd == DIAG_IOCSDEL ||
			 cmd == DIAG_IOCSUNREG);
		ret = ioctl(c->fd_main, cmd, ue_rand(rs));
	} else if (r < 65) {
		ret = read(c->fd_main, fz_tmp, 1 + ue_rand_n(rs, 64));
	} else if (r < 75) {
		map = mmap(NULL, c->page, PROT_READ, MAP_SHARED, c->fd_main, 0);
		ret = map == MAP_FAILED ? -1 : munmap(map, c->page);
	} else {	/* registrations stay (they belong to the process) */
		close(c->fd_aux);
		c->fd_aux = ue_open_data();
		ret = c->fd_aux;
	}
	fz_check(c, OP_MISC, ret < 0 ? -errno : 0,
		 fz_only(r < 50 ? ENOTTY : r < 65 ? EINVAL : r < 75 ? ENODEV : 0),
		 "%s 0x%x", r < 50 ? "ioctl" : r < 65 ? "read" : r < 75 ? "mmap" : "reopen", cmd);
}
