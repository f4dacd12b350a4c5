// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, cases: write()/writev(), DIAG_IOCSDEL,
 * dynamic_events and other file operations.  See fuzz_test.c.
 */
#include "fuzz.h"

static struct iovec fz_iov[FZ_IOV_MAX + 80];
/* a payload: up to PAGE_SIZE - 32 + 4136 bytes, 64 KiB pages included */
char fz_tmp[FZ_TMP_SIZE];

/* One write() or writev() case as it is built */
struct fz_wr {
	const struct fz_target *t;	/* NULL: not a target */
	struct fz_want w;
	unsigned char *data;		/* index + payload, in fz_tmp */
	char *dst;			/* where the bytes are written from */
	__u32 count, plen, readable;
	__s32 idx;
	int fd;
};

/* Whose index: a target's, unknown, negative, or a fuzz registration's */
static void fz_write_index(struct fz_ctx *c, __u64 *rs, struct fz_wr *x)
{
	__u32 r = ue_rand_n(rs, 100);

	x->fd = c->fd_tgt;
	if (r < 65) {
		x->t = &fz_targets[ue_rand_n(rs, fz_ntargets)];
		x->idx = x->t->idx;
	} else if (r < 75) {
		x->idx = fz_ntargets + ue_rand_n(rs, 1000);
		fz_defect(&x->w, ENOENT);
	} else if (r < 82) {
		x->idx = -1 - (__s32)ue_rand_n(rs, 0x7fffffff);
		fz_defect(&x->w, EINVAL);
	} else if (r < 88) {
		x->fd = fz_pct(rs, 50) ? c->fd_main : c->fd_aux;
		x->idx = (1 << 20) + ue_rand_n(rs, 1 << 30);
		fz_defect(&x->w, ENOENT);
	} else {
		/* fuzz registrations: never traced, mostly */
		x->fd = fz_pct(rs, 50) ? c->fd_main : c->fd_aux;
		x->idx = ue_rand_n(rs, 64);
		x->w.unknown = true;
	}
}

/* The bytes, and where they are: the end may run into the guard page */
static void fz_write_bytes(struct fz_ctx *c, __u64 *rs, struct fz_wr *x)
{
	int i;

	x->data = (unsigned char *)fz_tmp;
	memcpy(x->data, &x->idx, 4);
	if (x->t) {
		x->plen = fz_gen_payload(rs, x->t, x->data + 4);
	} else {
		x->plen = fz_pct(rs, 50) ? ue_rand_n(rs, 64) :
			  ue_rand_n(rs, 8193);
		for (i = 0; i < (int)x->plen; i++)
			x->data[4 + i] = ue_rand(rs);
	}
	x->count = 4 + x->plen;
	if (fz_pct(rs, 3))
		x->count = ue_rand_n(rs, 4);	/* not even an index */
	x->readable = x->count;
	x->dst = c->wbuf + ue_rand_n(rs, 64);
	if (fz_pct(rs, 5) && x->count) {
		x->readable = ue_rand_n(rs, x->count);
		x->dst = c->wguard - x->readable;
	}
	memcpy(x->dst, x->data, x->readable);
}

/* The kernel's checks, in the order of the documentation */
static void fz_write_expect(struct fz_wr *x, bool vec)
{
	const struct fz_target *t = x->t;
	bool big;
	int model;

	if (!x->count) {
		/* write(): less than an index; writev(): nothing to do */
		x->w = (struct fz_want){ .ndef = !vec, .err = EFAULT };
		return;
	}
	if (x->count < 4 || x->readable < 4) {
		x->w = (struct fz_want){ .ndef = 1, .err = EFAULT };
		return;
	}
	if (!t)
		return;
	/*
	 * Enabled, known format: exact.  Too big means too big for every
	 * attached consumer: ftrace holds fz_payload_max bytes, perf
	 * FZ_PERF_MAX; a consumer too small drops it alone.
	 */
	big = x->plen > fz_payload_max && (!t->perf || x->plen > FZ_PERF_MAX);
	if (x->plen < (__u32)t->size) {
		fz_defect(&x->w, EINVAL);
	} else if (big) {
		fz_defect(&x->w, E2BIG);
	} else if (x->readable < x->count) {
		fz_defect(&x->w, EFAULT);
	} else {
		model = fz_model_record(t, x->data + 4, x->plen);
		if (model < 0)
			fz_defect(&x->w, EFAULT);
		else if (model > 0)
			fz_set_add(&x->w.extra, EFAULT);
	}
}

/* writev() of the bytes split into iovecs, some empty, maybe too many */
static int fz_writev(__u64 *rs, struct fz_wr *x, int *niov, bool *kptr)
{
	__u32 r = ue_rand_n(rs, 100), pos = 0, cut, count = x->count;
	int i, n;

	n = r < 60 ? 1 + ue_rand_n(rs, 8) : r < 90 ? 1 + ue_rand_n(rs, 1024) :
	    FZ_IOV_MAX - 4 + ue_rand_n(rs, 80);
	for (i = 0; i < n; i++) {
		cut = i == n - 1 ? count :
		      pos + ue_rand_n(rs, (count - pos) / 2 + 2);
		if (cut > count)
			cut = count;
		fz_iov[i].iov_base = x->dst + pos;
		fz_iov[i].iov_len = cut - pos;
		pos = cut;
	}
	if (fz_pct(rs, 2) && count) {
		/* a kernel pointer in a non-empty iovec */
		for (i = 0; i < n && !fz_iov[i].iov_len; i++)
			;
		fz_iov[i].iov_base = fz_kptr;
		*kptr = true;
	}
	*niov = n;
	return writev(x->fd, fz_iov, n);
}

void fz_case_write(struct fz_ctx *c, __u64 *rs)
{
	bool vec = fz_pct(rs, 40), kptr = false;
	enum fz_op op = vec ? OP_WRITEV : OP_WRITE;
	struct fz_wr x = { 0 };
	int niov = 1, ret;
	struct fz_set s;

	fz_write_index(c, rs, &x);
	fz_write_bytes(c, rs, &x);
	fz_write_expect(&x, vec);
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
	if (vec && niov > FZ_IOV_MAX)
		x.w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	else if (kptr)
		x.w = (struct fz_want){ .ndef = 1, .err = EFAULT };

	if (!fz_judge(c, op, ret, &x.w, fz_write_errs, &s)) {
		fz_fail(c, op, ret, &s,
			"target %s idx %d count %u readable %u iovecs %d",
			x.t ? x.t->name : "-", x.idx, x.count, x.readable,
			niov);
		return;
	}
	if (ret >= 0 && ret != (int)x.count)
		fz_fail(c, op, ret, &s, "wrote %d of %u bytes", ret,
			x.count);
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSDEL
 */

void fz_case_del(struct fz_ctx *c, __u64 *rs)
{
	struct fz_want w = { 0 };
	char *buf = c->arena + 3 * c->page, *arg = buf;
	__u32 r = ue_rand_n(rs, 100), n, i;
	struct fz_set s;
	int ret;

	if (r < 40) {
		/* never used: random bytes, NUL and non-ASCII included */
		n = fz_pct(rs, 80) ? ue_rand_n(rs, 64) : ue_rand_n(rs, 700);
		memcpy(buf, FZ_PREFIX "_del_", 11);
		for (i = 0; i < n; i++)
			buf[11 + i] = fz_pct(rs, 90) ? 'a' + ue_rand_n(rs, 26) :
				      ue_rand(rs);
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
	if (ret < 0)
		ret = -errno;
	if (!fz_judge(c, OP_DEL, ret, &w, fz_del_errs, &s))
		fz_fail(c, OP_DEL, ret, &s, "name %s", arg == buf ?
			fz_show(buf, strlen(buf)) : "(bad pointer)");
}

/* ---------------------------------------------------------------------
 * dynamic_events
 */

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
	/* one line: a newline would end the command */
	for (i = 2; i < len; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	if (fz_pct(rs, 3)) {
		/* longer than a tracefs command line */
		while (len < 4100 + ue_rand_n(rs, 1000))
			line[len++] = ' ';
		*w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	}
	/* a NUL ends the line early: refused */
	if (memchr(line, '\0', len))
		*w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	/* a '#' (comment) comes from a mutation: outcome unknown */
	return len;
}

/* A delete line into @line (size @size); 0 for a baseline event */
static size_t fz_dyn_delete(struct fz_ctx *c, __u64 *rs, __u32 r,
			    char *line, size_t size, struct fz_want *w)
{
	char name[FZ_NAME_MAX + 1];
	const char *nm = name;
	size_t len;

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
	switch (ue_rand_n(rs, 4)) {
	case 0:
		len = snprintf(line, size, "-:%s", nm);
		break;
	case 1:
		len = snprintf(line, size, "-:%s/%s",
			       fz_pct(rs, 50) ? UE_SYS : UE_SYS_MULTI, nm);
		w->unknown = true;	/* system may not match */
		break;
	case 2:
		len = snprintf(line, size, "!u:%s", nm);
		break;
	default:
		len = snprintf(line, size, "!u:%s u32 a", nm);
		w->unknown = true;	/* fields may not match */
		break;
	}
	return fz_is_baseline(c, nm) ? 0 : len;
}

/* Remember what a "u:" line that succeeded created */
static void fz_dyn_created(struct fz_ctx *c, char *line, size_t len)
{
	char name[FZ_NAME_MAX + 1], *hash;
	size_t i;

	line[len] = '\0';
	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	/* the kernel skips white space after "u:" */
	for (i = 2; isspace((unsigned char)line[i]); i++)
		;
	fz_cmd_name(line + i, name, sizeof(name));
	fz_track_name(c, name);
	c->sh->created++;
}

void fz_case_dyn(struct fz_ctx *c, __u64 *rs)
{
	static char line[5200];
	struct fz_want w = { 0 };
	__u32 r = ue_rand_n(rs, 100);
	struct fz_set s;
	size_t len;
	int ret;

	if (r < 70)
		len = fz_dyn_create(c, rs, line, &w);
	else
		len = fz_dyn_delete(c, rs, r, line, sizeof(line), &w);
	if (!len)
		return;
	ret = fz_dyn_write(line, len);
	if (!fz_judge(c, OP_DYN, ret, &w, fz_dyn_errs, &s)) {
		fz_fail(c, OP_DYN, ret, &s, "%zu bytes: \"%s\"", len,
			fz_show(line, len));
		return;
	}
	if (!ret && !strncmp(line, "u:", 2))
		fz_dyn_created(c, line, len);
}

/* ---------------------------------------------------------------------
 * Other file operations
 */

void fz_case_misc(struct fz_ctx *c, __u64 *rs)
{
	unsigned int cmd = 0, r = ue_rand_n(rs, 100);
	const char *what;
	struct fz_set s;
	void *map;
	long ret;

	if (r < 50) {
		/* an unknown command of the user_events ioctl magic */
		do {
			cmd = _IOC(ue_rand_n(rs, 4), DIAG_IOC_MAGIC, ue_rand_n(rs, 256),
				   ue_rand_n(rs, 1 << 14));
		} while (cmd == DIAG_IOCSREG || cmd == DIAG_IOCSDEL ||
			 cmd == DIAG_IOCSUNREG);
		what = "ioctl";
		ret = ioctl(c->fd_main, cmd, ue_rand(rs));
		s = fz_only(ENOTTY);
	} else if (r < 65) {
		what = "read";
		ret = read(c->fd_main, fz_tmp, 1 + ue_rand_n(rs, 64));
		s = fz_only(EINVAL);
	} else if (r < 75) {
		what = "mmap";
		map = mmap(NULL, c->page, PROT_READ, MAP_SHARED, c->fd_main, 0);
		ret = map == MAP_FAILED ? -1 : 0;
		if (map != MAP_FAILED)
			munmap(map, c->page);
		s = fz_only(ENODEV);
	} else {
		/* registrations stay (they belong to the process) */
		what = "reopen";
		close(c->fd_aux);
		c->fd_aux = ue_open_data();
		ret = c->fd_aux < 0 ? -1 : 0;
		s = fz_only(0);
	}
	if (ret < 0)
		ret = -errno;
	if (!fz_check(c, OP_MISC, ret, &s))
		fz_fail(c, OP_MISC, ret, &s, "%s 0x%x", what, cmd);
}
