// SPDX-License-Identifier: GPL-2.0
/* user_events fuzzer, cases: write()/writev(), DIAG_IOCSDEL, dynamic_events, other file ops */
#include <ctype.h>

#include "fuzz.h"

/* writev() of @count bytes at @dst split into iovecs, some empty, maybe too many */
static int fz_writev(__u64 *rs, int fd, char *dst, __u32 count, int *niov, bool *kptr)
{
	static struct iovec iov[FZ_IOV_MAX + 80];
	__u32 r = ue_rand_n(rs, 100), pos = 0, cut;
	int i, n;

	n = r < 60 ? 1 + ue_rand_n(rs, 8) : r < 90 ? 1 + ue_rand_n(rs, 1024) :
	    FZ_IOV_MAX - 4 + ue_rand_n(rs, 80);
	for (i = 0; i < n; i++, pos = cut) {
		cut = i == n - 1 ? count : pos + ue_rand_n(rs, (count - pos) / 2 + 2);
		cut = cut > count ? count : cut;
		iov[i] = (struct iovec){ dst + pos, cut - pos };
	}
	if (fz_pct(rs, 2) && count) {	/* a kernel pointer in a non-empty iovec */
		for (i = 0; !iov[i].iov_len; i++)
			;
		iov[i].iov_base = fz_kptr;
		*kptr = true;
	}
	*niov = n;
	return writev(fd, iov, n);
}

/*
 * To a target (enabled in ftrace, some in perf: the result is predicted from the
 * payload), an unknown, negative or huge index, or a fuzz registration's.
 */
void fz_case_write(struct fz_ctx *c, __u64 *rs)
{
	/* a target's, unknown, negative, huge, a fuzz registration's (never traced, mostly) */
	static const struct fz_kind idx[] = { { 65 }, { 10, ENOENT }, { 7, EINVAL }, { 6, ENOENT },
					      { 12 } };
	bool vec = fz_pct(rs, 40), kptr = false;
	const struct fz_target *t = NULL;
	struct fz_want w = { 0 };
	int k = fz_pick(rs, idx, ARRAY_SIZE(idx), &w), niov = 1, model, ret, fd = c->fd_tgt;
	__u32 plen, count, readable;
	char *dst;
	__s32 i;

	switch (k) {
	case 0:
		t = &fz_targets[ue_rand_n(rs, fz_ntargets)];
		i = t->idx;
		break;
	case 1:
		i = fz_ntargets + ue_rand_n(rs, 1000);
		break;
	case 2:
		i = -1 - (__s32)ue_rand_n(rs, 0x7fffffff);
		break;
	case 3:
		i = (1 << 20) + ue_rand_n(rs, 1 << 30);
		break;
	default:
		i = ue_rand_n(rs, 64);
		w.unknown = true;
	}
	dst = c->wbuf + ue_rand_n(rs, 64);
	if (k >= 3)
		fd = fz_pct(rs, 50) ? c->fd_main : c->fd_aux;
	memcpy(fz_tmp, &i, 4);	/* the index, then the payload */
	plen = t ? fz_gen_payload(rs, t, (unsigned char *)fz_tmp + 4) :
	       fz_gen_random(rs, (unsigned char *)fz_tmp + 4, 0);
	count = fz_pct(rs, 3) ? ue_rand_n(rs, 4) : 4 + plen;	/* not even an index */
	readable = count;
	if (fz_pct(rs, 5) && count) {	/* the end runs into the guard page */
		readable = ue_rand_n(rs, count);
		dst = c->wguard - readable;
	}
	memcpy(dst, fz_tmp, readable);
	/*
	 * The kernel's checks in the order of the documentation.  Too big means too
	 * big for every attached consumer: ftrace holds fz_payload_max bytes, perf
	 * FZ_PERF_MAX; a consumer too small drops it alone.
	 */
	if (count < 4 || readable < 4 || !t)
		model = 0;
	else if (plen < (__u32)t->size)
		model = -EINVAL;
	else if (plen > fz_payload_max && (!t->perf || plen > FZ_PERF_MAX))
		model = -E2BIG;
	else if (readable < count)
		model = -EFAULT;
	else
		model = fz_model_record(t, (unsigned char *)fz_tmp + 4, plen);
	fz_defect(&w, -model);
	if (model > 0)
		fz_set_add(&w.extra, EFAULT);
	if (count < 4 || readable < 4)	/* less than an index; writev() of nothing: nothing */
		w = (struct fz_want){ .ndef = count || !vec, .err = EFAULT };
	if (vec) {
		ret = fz_writev(rs, fd, dst, count, &niov, &kptr);
	} else {
		kptr = fz_pct(rs, 2) && count;
		ret = write(fd, kptr ? fz_kptr : dst, count);
	}
	if (niov > FZ_IOV_MAX || kptr)
		w = (struct fz_want){ .ndef = 1, .err = niov > FZ_IOV_MAX ? EINVAL : EFAULT };
	if (fz_check(c, vec ? OP_WRITEV : OP_WRITE, ret < 0 ? -errno : ret,
		     fz_expect(c, &w, vec ? OP_WRITEV : OP_WRITE),
		     "target %s idx %d count %u readable %u iovecs %d",
		     t ? t->name : "-", i, count, readable, niov) && ret >= 0 && ret != (int)count)
		fz_fail(c, "%s wrote %d of %u bytes", vec ? "writev" : "write", ret, count);
}

void fz_case_del(struct fz_ctx *c, __u64 *rs)
{
	char *buf = c->arena + 3 * c->page, *arg = buf;
	__u32 r = ue_rand_n(rs, 100), n, i;
	struct fz_want w = { 0 };
	int ret;

	if (r < 40) {	/* never used: random bytes, NUL and non-ASCII included */
		n = fz_pct(rs, 80) ? ue_rand_n(rs, 64) : ue_rand_n(rs, 700);
		for (i = snprintf(buf, c->page, FZ_PREFIX "_del_"); n--; i++)
			buf[i] = fz_pct(rs, 90) ? 'a' + ue_rand_n(rs, 26) : ue_rand(rs);
		buf[i] = '\0';
		fz_defect(&w, strlen(buf) > UE_CMD_MAX ? EINVAL : ENOENT);
	} else if (r < 55 && c->nnames) {
		snprintf(buf, 256, "%s", c->names[ue_rand_n(rs, c->nnames)]);
		w.unknown = true;
	} else if (r < 65) {	/* registered and traced */
		snprintf(buf, 256, "%s", fz_targets[ue_rand_n(rs, fz_ntargets)].name);
		fz_defect(&w, EBUSY);
	} else if (r < 80) {
		snprintf(buf, 256, FZ_PREFIX "_n%u", ue_rand_n(rs, FZ_SHARED));
		w.unknown = true;
	} else {
		arg = fz_bad_str(c, rs, &w);
	}
	if (arg == buf && fz_is_baseline(c, buf))
		return;
	ret = ioctl(fz_pct(rs, 50) ? c->fd_main : c->fd_aux, DIAG_IOCSDEL, arg) < 0 ? -errno : 0;
	fz_check(c, OP_DEL, ret, fz_expect(c, &w, OP_DEL), "name %s",
		 arg == buf ? fz_show(buf, strlen(buf)) : "(bad string)");
}

int fz_dyn_write(const char *buf, size_t len)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	fd = open(ue_tpath(path, sizeof(path), "dynamic_events"), O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* dynamic_events refuses a line of 4095 bytes and up, 4096 and up with no newline (ours) */
#define FZ_DYN_WRITE_MAX	4095

/* A "u:" line from a generated command into @line; its length */
static size_t fz_dyn_create(struct fz_ctx *c, __u64 *rs, char *line, struct fz_want *w)
{
	static struct fz_cmd cmd;
	size_t len, i, end;

	fz_gen_cmd(c, rs, &cmd);
	*w = cmd.w;
	if (cmd.shared)
		fz_set_add(&w->extra, EADDRINUSE);
	/* white space after "u:" is skipped: drop it, no defect */
	if (cmd.lead_ws && !cmd.mutated) {
		w->ndef -= cmd.buf[0] == ' ';
		cmd.len -= cmd.lead_ws;
		memmove(cmd.buf, cmd.buf + cmd.lead_ws, cmd.len + 1);
	}
	/* 511 bytes is the ioctl's limit: a line may be longer */
	w->ndef -= cmd.too_long && !cmd.mutated;
	memcpy(line, "u:", 2);
	memcpy(line + 2, cmd.buf, cmd.len);
	len = 2 + cmd.len;
	for (i = 2; i < len; i++)	/* one line: a newline would end it */
		line[i] = line[i] == '\n' ? ' ' : line[i];
	/*
	 * A name of more than UE_CMD_MAX bytes with white space in it (a tab
	 * joins a name and a field) could not be deleted: DIAG_IOCSDEL takes
	 * no more, a "-:" line splits at white space.  '_' for that space.
	 */
	for (i = 2; i < len && isspace(line[i]); i++)
		;
	for (end = i; end < len && line[end] && line[end] != ' ' && line[end] != '#'; end++)
		;
	if (end - i > UE_CMD_MAX)
		for (; i < end; i++)
			line[i] = isspace(line[i]) ? '_' : line[i];
	if (fz_pct(rs, 3))	/* longer than a tracefs command line */
		while (len < 4100 + ue_rand_n(rs, 1000))
			line[len++] = ' ';
	/* a '#' starts a comment, in a name or a field name too: unknown */
	w->unknown |= !!memchr(line, '#', len);
	/* a NUL ends the line early: refused */
	if (len > FZ_DYN_WRITE_MAX || memchr(line, '\0', len))
		*w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	return len;
}

/* A delete line into @line (@size bytes); its length, 0 for a baseline event */
static size_t fz_dyn_delete(struct fz_ctx *c, __u64 *rs, __u32 r, char *line, int size,
			    struct fz_want *w)
{
	static const char * const fmt[] = { "-:%s%s", "-:%s/%s", "!u:%s%s", "!u:%s%s u32 a" };
	char name[FZ_NAME_MAX + 1];
	const char *nm = name;
	int k, len;

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
	if (fz_is_baseline(c, nm))
		return 0;
	return fz_min(len, size - 1);
}

void fz_case_dyn(struct fz_ctx *c, __u64 *rs)
{
	static char line[5200];
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
	if (!fz_check(c, OP_DYN, ret, fz_expect(c, &w, OP_DYN), "%zu bytes: \"%s\"", len,
		      fz_show(line, len)) || ret || r >= 70)
		return;
	/* what it created: the name after "u:" and white space, up to a '#' */
	line[len] = '\0';
	line[strcspn(line, "#")] = '\0';
	fz_track_name(c, line + 2 + strspn(line + 2, " \t\n\v\f\r"));
	c->sh->created++;
}

/* DIAG_IOCGLOSS, which a kernel with it takes with any size in the number */
static bool fz_is_loss_cmd(unsigned int cmd)
{
	return _IOC_NR(cmd) == _IOC_NR(DIAG_IOCGLOSS) && _IOC_DIR(cmd) == _IOC_DIR(DIAG_IOCGLOSS);
}

void fz_case_misc(struct fz_ctx *c, __u64 *rs)
{
	unsigned int cmd = 0, r = ue_rand_n(rs, 100);
	struct fz_set s = { { 0 } };
	void *map;
	long ret;

	if (r < 50) {	/* an unknown command of the user_events ioctl magic */
		do {
			cmd = _IOC(ue_rand_n(rs, 4), DIAG_IOC_MAGIC, ue_rand_n(rs, 256),
				   ue_rand_n(rs, 1 << 14));
		} while (cmd == DIAG_IOCSREG || cmd == DIAG_IOCSDEL || cmd == DIAG_IOCSUNREG ||
			 cmd == DIAG_IOCSBATCH || fz_is_loss_cmd(cmd));
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
	fz_set_add(&s, r < 50 ? ENOTTY : r < 65 ? EINVAL : r < 75 ? ENODEV : 0);
	fz_check(c, OP_MISC, ret < 0 ? -errno : 0, s, "%s 0x%x",
		 r < 50 ? "ioctl" : r < 65 ? "read" : r < 75 ? "mmap" : "reopen", cmd);
}
