// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, oracle: the documented errors of each operation, the
 * expected result of a case from its defects, the kernel's record check on a
 * known format, and failure reports.
 */
#include "fuzz.h"

const char * const fz_op_name[] = {
	"reg", "unreg", "write", "writev", "del", "dynamic_events", "misc",
};

/* The documented errors of each operation besides success (write: EINVAL for > UIO_MAXIOV) */
static const int fz_doc[OP_NR][6] = {
	[OP_REG] = { EINVAL, E2BIG, EFAULT, EADDRINUSE },
	[OP_UNREG] = { EINVAL, E2BIG, EFAULT, ENOENT },
	[OP_WRITE] = { EFAULT, EINVAL, ENOENT, EBADF, E2BIG },
	[OP_WRITEV] = { EFAULT, EINVAL, ENOENT, EBADF, E2BIG },
	[OP_DEL] = { EFAULT, EINVAL, ENOENT, EBUSY },
	[OP_DYN] = { EINVAL, EADDRINUSE, ENOENT, EBUSY },
};

const char *fz_errname(int e)
{
	return strerrorname_np(e) ?: "?";
}

/* @err: an errno, 0 for success */
void fz_set_add(struct fz_set *s, int err)
{
	if (err >= 0 && err < FZ_ERRNO_MAX)
		s->m[err / 64] |= 1ull << err % 64;
}

static bool fz_in(const struct fz_set *s, int err)
{
	return err >= 0 && err < FZ_ERRNO_MAX && s->m[err / 64] >> err % 64 & 1;
}

/* Success and the errors of the 0-terminated list @errs */
struct fz_set fz_set_of(const int *errs)
{
	struct fz_set s = { { 1 } };

	while (*errs)
		fz_set_add(&s, *errs++);
	return s;
}

/* A defect of errno @err (none for @err <= 0) */
void fz_defect(struct fz_want *w, int err)
{
	if (err <= 0)
		return;
	w->ndef++;
	w->err = err;
}

/* A failure of case c->ncase: stops the run */
void fz_fail(struct fz_ctx *c, const char *fmt, ...)
{
	int n = snprintf(c->sh->msg, sizeof(c->sh->msg), "seed 0x%llx case %llu: ",
			 c->seed, c->ncase);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->sh->msg + n, sizeof(c->sh->msg) - n, fmt, ap);
	va_end(ap);
	c->sh->failed = 1;
}

/* Count result @ret of @op; if @s does not allow it, fail. */
bool fz_check(struct fz_ctx *c, enum fz_op op, long ret, struct fz_set s,
	      const char *fmt, ...)
{
	char set[256] = "", what[1024];
	int e, n = 0;
	va_list ap;

	c->sh->hist[op][ret >= 0 ? 0 : -ret < FZ_ERRNO_MAX ? -ret : FZ_ERRNO_MAX]++;
	if (fz_in(&s, ret >= 0 ? 0 : -ret))
		return true;
	for (e = 0; e < FZ_ERRNO_MAX; e++)
		if (fz_in(&s, e) && n < (int)sizeof(set))
			n += snprintf(set + n, sizeof(set) - n, " %s",
				      e ? fz_errname(e) : "success");
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fz_fail(c, "%s returned %ld (%s), expected {%s }: %s", fz_op_name[op],
		ret, ret < 0 ? fz_errname(-ret) : "ok", set, what);
	return false;
}

/* What a case of @op with defects @w may return: exact with at most one defect */
struct fz_set fz_expect(struct fz_ctx *c, const struct fz_want *w, enum fz_op op)
{
	struct fz_set s = w->extra;

	if (w->unknown || w->ndef > 1)
		return fz_set_of(fz_doc[op]);
	c->sh->predicted++;
	fz_set_add(&s, w->ndef ? w->err : 0);
	return s;
}

/* A printable excerpt of a command */
const char *fz_show(const char *s, size_t len)
{
	static char out[200];
	size_t i, n = 0;

	for (i = 0; i < len && n < sizeof(out) - 5; i++) {
		unsigned char ch = s[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			out[n++] = ch;
		else
			n += snprintf(out + n, sizeof(out) - n, "\\x%02x", ch);
	}
	out[n] = '\0';
	return out;
}

/*
 * The kernel's record check (uev_format_check_record) on a payload of a known
 * format: 0, -EFAULT, or 1 when the answer depends on a byte of the common header.
 */
int fz_model_record(const struct fz_target *t, const unsigned char *p, __u32 len)
{
	__u32 off = 0, loc, start, size, rec = fz_entry + len, last;
	int i, unsure = 0;

	for (i = 0; i < t->nf; off += t->f[i].size, i++) {
		if (t->f[i].dyn == UE_GEN_FIXED)
			continue;
		memcpy(&loc, p + off, 4);
		start = (loc & 0xffff) + (t->f[i].dyn == UE_GEN_REL_LOC ? fz_entry + off + 4 : 0);
		size = loc >> 16;
		if (start + size > rec || (t->f[i].str && !size))
			return -EFAULT;
		last = start + size - 1;
		if (t->f[i].str && last < fz_entry)
			unsure = 1;
		else if (t->f[i].str && p[last - fz_entry])
			return -EFAULT;
	}
	return unsure;
}
