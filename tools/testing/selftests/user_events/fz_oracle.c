// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer, oracle: the documented errors of each operation,
 * the expected result of a case from its defects, the kernel's record
 * check on a known format, and failure reports.  See fuzz_test.c.
 */
#include "fuzz.h"

/* ---------------------------------------------------------------------
 * Expected results
 */

const char * const fz_op_name[] = {
	"reg", "unreg", "write", "writev", "del", "dynamic_events", "misc",
};

/* The documented errors of each operation (besides success) */
const int fz_reg_errs[] = { EINVAL, E2BIG, EFAULT, EADDRINUSE, 0 };
const int fz_unreg_errs[] = { EINVAL, E2BIG, EFAULT, ENOENT, 0 };
/* EINVAL also: more than UIO_MAXIOV iovecs */
const int fz_write_errs[] = { EFAULT, EINVAL, ENOENT, EBADF, E2BIG, 0 };
const int fz_del_errs[] = { EFAULT, EINVAL, ENOENT, EBUSY, 0 };
const int fz_dyn_errs[] = { EINVAL, EADDRINUSE, ENOENT, EBUSY, 0 };
const int fz_enoent[] = { ENOENT, 0 };
const int fz_enoent_ebusy[] = { ENOENT, EBUSY, 0 };

const char *fz_errname(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "?";
}

void fz_set_add(struct fz_set *s, int err)
{
	if (err > 0 && err < FZ_ERRNO_MAX)
		s->m[err / 64] |= 1ull << err % 64;
}

struct fz_set fz_set_of(bool ok, const int *errs)
{
	struct fz_set s = { .ok = ok };

	while (errs && *errs)
		fz_set_add(&s, *errs++);
	return s;
}

struct fz_set fz_only(int err)
{
	struct fz_set s = { .ok = !err };

	fz_set_add(&s, err);
	return s;
}

static bool fz_in(const struct fz_set *s, int err)
{
	return err > 0 && err < FZ_ERRNO_MAX && s->m[err / 64] >> err % 64 & 1;
}

static int fz_set_str(const struct fz_set *s, char *buf, size_t len)
{
	int n = snprintf(buf, len, "{%s", s->ok ? " success" : "");
	int e;

	for (e = 1; e < FZ_ERRNO_MAX; e++)
		if (fz_in(s, e))
			n += snprintf(buf + n, len > n ? len - n : 0, " %s",
				      fz_errname(e));
	n += snprintf(buf + n, len > n ? len - n : 0, " }");
	return n;
}

void fz_defect(struct fz_want *w, int err)
{
	w->ndef++;
	w->err = err;
}

struct fz_set fz_expected(const struct fz_want *w, const int *doc)
{
	struct fz_set s;
	int i;

	if (w->unknown || w->ndef > 1)
		return fz_set_of(true, doc);
	s = fz_only(w->ndef ? w->err : 0);
	s.ok |= w->extra.ok;
	for (i = 0; i < 2; i++)
		s.m[i] |= w->extra.m[i];
	return s;
}

/* ---------------------------------------------------------------------
 * Failure reporting
 */

__printf(5, 6) bool fz_fail(struct fz_ctx *c, enum fz_op op, long ret,
			    const struct fz_set *s, const char *fmt, ...)
{
	char set[256];
	va_list ap;
	int n;

	fz_set_str(s, set, sizeof(set));
	n = snprintf(c->sh->msg, sizeof(c->sh->msg),
		     "seed 0x%llx case %llu: %s returned %ld (%s), expected %s: ",
		     c->seed, c->ncase, fz_op_name[op], ret,
		     ret < 0 ? fz_errname(-ret) : "ok", set);
	va_start(ap, fmt);
	vsnprintf(c->sh->msg + n, sizeof(c->sh->msg) - n, fmt, ap);
	va_end(ap);
	c->sh->failed = 1;
	return false;
}

static void fz_hist(struct fz_ctx *c, enum fz_op op, long ret)
{
	long e = ret < 0 ? -ret : 0;

	c->sh->hist[op][e < FZ_ERRNO_MAX ? e : FZ_ERRNO_MAX]++;
}

/* Count one result; true if @s allows it (else call fz_fail()) */
bool fz_check(struct fz_ctx *c, enum fz_op op, long ret,
	      const struct fz_set *s)
{
	fz_hist(c, op, ret);
	return ret >= 0 ? s->ok : fz_in(s, -ret);
}

/*
 * The verdict on a case with defects @w of an operation documented to
 * fail with @doc: count it, true if allowed; @s gets the expectation.
 */
bool fz_judge(struct fz_ctx *c, enum fz_op op, long ret,
	      const struct fz_want *w, const int *doc, struct fz_set *s)
{
	*s = fz_expected(w, doc);
	if (!w->unknown && w->ndef <= 1)
		c->sh->predicted++;
	return fz_check(c, op, ret, s);
}

/* printable excerpt of a command */
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

/* ---------------------------------------------------------------------
 * write() / writev()
 */

/*
 * The kernel's record check (uev_format_check_record) on a payload of a
 * known format: 0, -EFAULT, or 1 when the answer depends on a byte of
 * the common header.
 */
int fz_model_record(const struct fz_target *t, const unsigned char *p,
		    __u32 len)
{
	__u32 off = 0, loc, start, size, rec = fz_entry + len, last;
	int i, unsure = 0;

	for (i = 0; i < t->nf; off += t->f[i].size, i++) {
		if (t->f[i].kind != FK_DL && t->f[i].kind != FK_RL)
			continue;
		memcpy(&loc, p + off, 4);
		start = loc & 0xffff;
		size = loc >> 16;
		if (t->f[i].kind == FK_RL)
			start += fz_entry + off + 4;
		if (start + size > rec)
			return -EFAULT;
		if (!t->f[i].str)
			continue;
		if (!size)
			return -EFAULT;
		last = start + size - 1;
		if (last < fz_entry)
			unsure = 1;
		else if (p[last - fz_entry])
			return -EFAULT;
	}
	return unsure;
}

/* A payload for target @t into @p (room for 8 KiB); returns its length. */
