// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzzer: seeded and reproducible.
 *
 *   UE_FUZZ_SEED   seed (default 0x75e5eed), printed at the start
 *   UE_FUZZ_CASES  number of cases (default 100000)
 *   UE_FUZZ_FIRST  number of the first case (default 0), to replay a range
 *
 * Every case draws its random numbers from (seed, case number) only, and
 * the cases run in batches of FZ_BATCH, each in a fresh child process that
 * sets up the same state first; so a failing case is replayed exactly by
 * running its batch again (the failure message prints the command line).
 *
 * A case is one of:
 *  - DIAG_IOCSREG with a generated command (valid grammar, known defects,
 *    or random mutations: types, names, sizes, separators, lengths around
 *    511, NUL and non-ASCII bytes), struct user_reg of random size with or
 *    without trailing garbage, placed in good, read-only or bad memory,
 *    random flags, enable sizes, bits and addresses (valid, in use,
 *    misaligned, NULL, kernel, non-canonical, unmapped, read-only,
 *    PROT_NONE);
 *  - DIAG_IOCSUNREG with random sizes, reserved bits and addresses;
 *  - write()/writev() (up to 1100 iovecs) with random indexes, lengths of
 *    0..8 KiB, __data_loc/__rel_loc words, and bad buffers, mostly to
 *    events enabled in ftrace (some also in perf) whose formats are known;
 *  - DIAG_IOCSDEL with random names and pointers;
 *  - "u:" (create) and "-:" / "!u:" (delete) lines to dynamic_events;
 *  - unknown ioctls, read(), mmap(), closing and reopening the file.
 *
 * Every result must be success or one of the errors documented for that
 * operation (listed at fz_*_errs below).  In addition, when a case has no
 * defect at all it must succeed, and when it has exactly one defect it
 * must fail with that defect's errno; writes to enabled events of known
 * format are predicted exactly from the payload.
 *
 * The grammar modelled is upstream 6.12's (Documentation/trace/
 * user_events.rst, "The command"): the name runs to the first space, words
 * inside a field are separated by exactly one space, types are kept as
 * written, dynamic fields take any element type, and a registration of a
 * name that exists is compared with it as text before its fields are
 * checked.  Not predicted: a duplicate field name (success or EINVAL).
 *
 * The set of events stays bounded: registrations are capped and undone,
 * persistent events are deleted; after each batch user_events_status
 * must show the Active/Busy counts of before the run and no event of the
 * fuzzer may remain.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ue_test_util.h"

#define FZ_SEED		0x75e5eedull
#define FZ_CASES	100000
#define FZ_BATCH	5000
#define FZ_PREFIX	"uet_fz"

#define FZ_CMD_MAX	511	/* longest command the kernel takes */
#define FZ_NAME_MAX	4096	/* a name: up to a dynamic_events line */
#define FZ_LONG_NAME	250	/* longest name generated on purpose */
#define FZ_ARRAY_MAX	1024
#define FZ_ENTRY	8	/* struct trace_entry before the payload */
#define FZ_REG_SIZE	28	/* sizeof(struct user_reg) */
#define FZ_UNREG_SIZE	16	/* sizeof(struct user_unreg) */
#define FZ_IOV_MAX	1024	/* UIO_MAXIOV */
#define FZ_PERF_MAX	(8192 - 12)	/* payload of a perf sample */

#define FZ_LIVE_MAX	200	/* live fuzz registrations per batch */
#define FZ_NAMES_MAX	128	/* persistent names before a clean up */
#define FZ_SHARED	8	/* "uet_fz_n<k>" names shared by cases */

#define FZ_KERNEL1	0xffffffff81000000ull
#define FZ_KERNEL2	0xffff888000000000ull
#define FZ_NONCANON	0x8000000000000000ull

/*
 * Set by fz_setup(): no page size or address layout is assumed.
 *   fz_payload_max: the largest payload ftrace holds, PAGE_SIZE - 32:
 *                   the ring buffer's largest event (a page less its
 *                   16-byte header and 8 bytes) less the 8-byte
 *                   trace_entry (without absolute timestamps)
 *   fz_unmapped:    a user address kept unmapped (the first of a few
 *                   candidates that is free: 32-bit programs and small
 *                   address spaces cannot use the high one)
 *   fz_kptr:        a pointer no write() can read through, of the
 *                   program's own width: a kernel address, or above a
 *                   32-bit program's address space
 */
static __u32 fz_payload_max;
static __u64 fz_unmapped;
static char *fz_kptr;

/* ---------------------------------------------------------------------
 * Random numbers: one splitmix64 stream per case
 */

static __u64 fz_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

static __u64 fz_rnd(__u64 *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return fz_mix(*s);
}

static __u32 fz_n(__u64 *s, __u32 n)
{
	return n ? fz_rnd(s) % n : 0;
}

static bool fz_pct(__u64 *s, __u32 pct)
{
	return fz_n(s, 100) < pct;
}

/* ---------------------------------------------------------------------
 * Expected results
 */

enum fz_op {
	OP_REG, OP_UNREG, OP_WRITE, OP_WRITEV, OP_DEL, OP_DYN, OP_MISC,
	OP_NR
};

static const char * const fz_op_name[] = {
	"reg", "unreg", "write", "writev", "del", "dynamic_events", "misc",
};

#define FZ_ERRNO_MAX	128

/* The documented errors of each operation (besides success) */
static const int fz_reg_errs[] = { EINVAL, E2BIG, EFAULT, EADDRINUSE, 0 };
static const int fz_unreg_errs[] = { EINVAL, E2BIG, EFAULT, ENOENT, 0 };
/* EINVAL also: more than UIO_MAXIOV iovecs */
static const int fz_write_errs[] = { EFAULT, EINVAL, ENOENT, EBADF, E2BIG, 0 };
static const int fz_del_errs[] = { EFAULT, EINVAL, ENOENT, EBUSY, 0 };
static const int fz_dyn_errs[] = { EINVAL, EADDRINUSE, ENOENT, EBUSY, 0 };
static const int fz_enoent[] = { ENOENT, 0 };
static const int fz_enoent_ebusy[] = { ENOENT, EBUSY, 0 };

static const char *fz_errname(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "?";
}

struct fz_set {
	__u64 m[2];
	bool ok;
};

static void fz_set_add(struct fz_set *s, int err)
{
	if (err > 0 && err < FZ_ERRNO_MAX)
		s->m[err / 64] |= 1ull << err % 64;
}

static struct fz_set fz_set_of(bool ok, const int *errs)
{
	struct fz_set s = { .ok = ok };

	while (errs && *errs)
		fz_set_add(&s, *errs++);
	return s;
}

static struct fz_set fz_only(int err)
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

/*
 * Defects of one case.  No defect: success (or what @extra allows);
 * exactly one: its errno; more: anything of the documented set.
 */
struct fz_want {
	int ndef;
	int err;		/* errno of the (last) defect */
	bool unknown;		/* outcome not predictable: documented set */
	struct fz_set extra;	/* allowed besides the prediction */
};

static void fz_defect(struct fz_want *w, int err)
{
	w->ndef++;
	w->err = err;
}

static struct fz_set fz_expected(const struct fz_want *w, const int *doc)
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
 * State of one batch (child process)
 */

struct fz_field {
	int kind;		/* FK_* */
	int size;
	bool str;		/* dynamic char[]: must be NUL terminated */
};

enum { FK_SCALAR, FK_ARRAY, FK_STRUCT, FK_DL, FK_RL };

struct fz_target {
	const char *cmd;
	const char *name;
	__u16 flags;
	bool perf;
	int nf;
	struct fz_field f[4];
	int size;		/* fixed part */
	__u32 idx;
	char tp[UE_NAME_MAX];	/* tracefs name */
};

static struct fz_target fz_targets[] = {
	{ "uet_fz_t0 u8 a; s16 b; u32 c; u64 d", "uet_fz_t0", 0, false, 4,
	  { { FK_SCALAR, 1 }, { FK_SCALAR, 2 }, { FK_SCALAR, 4 },
	    { FK_SCALAR, 8 } } },
	{ "uet_fz_t1 char[16] s; unsigned char[3] r; struct uet_fz_s st 12",
	  "uet_fz_t1", 0, false, 3,
	  { { FK_ARRAY, 16 }, { FK_ARRAY, 3 }, { FK_STRUCT, 12 } } },
	{ "uet_fz_t2 u32 n; __data_loc char[] s", "uet_fz_t2", 0, true, 2,
	  { { FK_SCALAR, 4 }, { FK_DL, 4, true } } },
	{ "uet_fz_t3 __rel_loc char[] s; __data_loc u8[] b; int x",
	  "uet_fz_t3", 0, false, 3,
	  { { FK_RL, 4, true }, { FK_DL, 4 }, { FK_SCALAR, 4 } } },
	{ "uet_fz_t4", "uet_fz_t4", 0, false, 0, { } },
	/* unsigned char is a char type: c is a string */
	{ "uet_fz_t5 __data_loc char[] a; __rel_loc char[] b; __rel_loc unsigned char[] c",
	  "uet_fz_t5", 0, true, 3,
	  { { FK_DL, 4, true }, { FK_RL, 4, true }, { FK_RL, 4, true } } },
	{ "uet_fz_t7 __rel_loc u32[] a; struct uet_fz_b b 5000", "uet_fz_t7", 0,
	  true, 2, { { FK_RL, 4 }, { FK_STRUCT, 5000 } } },
	{ "uet_fz_t6 u64 x; __data_loc char[] s", "uet_fz_t6",
	  USER_EVENT_REG_MULTI_FORMAT, false, 2,
	  { { FK_SCALAR, 8 }, { FK_DL, 4, true } } },
};

#define FZ_NTARGETS	((int)ARRAY_SIZE(fz_targets))

struct fz_live {
	__u64 addr;
	int size;
	int bit;
	bool maybe;		/* registered only if an EFAULT came late */
};

/* Shared with the parent */
struct fz_shared {
	__u64 done;		/* cases run */
	__u64 hist[OP_NR][FZ_ERRNO_MAX + 1];	/* [0]: success */
	__u64 predicted;	/* cases with an exact prediction */
	__u64 created;	/* events created (reg + dyn) */
	int failed;
	char msg[2048];
};

struct fz_ctx {
	struct fz_shared *sh;
	__u64 seed;
	__u64 ncase;
	long page;
	/* memory */
	char *arena;		/* 4 pages RW, then a PROT_NONE guard */
	char *guard;
	char *ro;		/* read-only page */
	char *none;		/* PROT_NONE page */
	char *en;		/* 2 pages of enable words */
	char *wbuf;		/* 3 pages RW, then a PROT_NONE guard */
	char *wguard;
	/* files */
	int fd_tgt, fd_main, fd_aux;
	int perf_fd[64];
	int nperf;
	/* registrations and names to undo */
	struct fz_live live[FZ_LIVE_MAX];
	int nlive;
	char (*names)[FZ_NAME_MAX + 1];
	int nnames;
	/* baseline event names (never touched) */
	char *baseline;
};

static struct iovec fz_iov[FZ_IOV_MAX + 80];
/* a payload: up to PAGE_SIZE - 32 + 4136 bytes, 64 KiB pages included */
static char fz_tmp[(1 << 17) + 64];

/* ---------------------------------------------------------------------
 * Failure reporting
 */

static __printf(5, 6) bool fz_fail(struct fz_ctx *c, enum fz_op op, long ret,
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
static bool fz_check(struct fz_ctx *c, enum fz_op op, long ret,
		     const struct fz_set *s)
{
	fz_hist(c, op, ret);
	return ret >= 0 ? s->ok : fz_in(s, -ret);
}

/* printable excerpt of a command */
static const char *fz_show(const char *s, size_t len)
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
 * Command generator
 */

static const char * const fz_scalars[] = {
	"u8", "s8", "char", "u16", "s16", "short", "u32", "s32", "int",
	"u64", "s64", "unsigned char", "unsigned short", "unsigned int",
};

static const int fz_scalar_size[] = {
	1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 1, 2, 4,
};

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

struct fz_cmd {
	char buf[1200];
	int len;		/* bytes, without the NUL the kernel sees */
	char name[FZ_NAME_MAX + 64];
	bool fresh;		/* name never used before */
	bool shared;		/* name of FZ_SHARED, or of a target */
	bool has_f0;		/* the first field is named "f0" */
	bool lead_ws;		/* white space before the name: EINVAL */
	bool too_long;		/* over FZ_CMD_MAX: EINVAL for the ioctl */
	struct fz_want w;	/* parse defects (EINVAL) */
	bool mutated;
};

static int fz_put(struct fz_cmd *cmd, const char *s)
{
	int n = strlen(s);

	if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
		n = sizeof(cmd->buf) - 1 - cmd->len;
	memcpy(cmd->buf + cmd->len, s, n);
	cmd->len += n;
	cmd->buf[cmd->len] = '\0';
	return n;
}

static void fz_ident(__u64 *rs, char *out, int len)
{
	static const char first[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
	static const char rest[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
	int i;

	for (i = 0; i < len; i++)
		out[i] = i ? rest[fz_n(rs, sizeof(rest) - 1)] :
			 first[fz_n(rs, sizeof(first) - 1)];
	out[len] = '\0';
}

/*
 * Between the words of a field: exactly one space.  Two make an empty
 * word, always refused (a tab instead is not always: it joins two words
 * into one, which some positions take, e.g. "__rel_loc unsigned\tchar[]").
 */
static const char *fz_ws(__u64 *rs, struct fz_cmd *cmd)
{
	if (!fz_pct(rs, 3))
		return " ";
	fz_defect(&cmd->w, EINVAL);
	return fz_pct(rs, 50) ? "  " : "   ";
}

/* After the name: a space (a tab would be part of the name), then any */
static const char *fz_lead(__u64 *rs)
{
	static const char * const ws[] = { " ", " ", " ", "  ", " \t", " \v" };

	return ws[fz_n(rs, 6)];
}

/* Between fields: ';', then any white space or more ';' */
static const char *fz_sep(__u64 *rs, struct fz_cmd *cmd)
{
	static const char * const sep[] = {
		"; ", "; ", ";", ";\t", ";; ", ";\t ;  ", " ;", "; \t",
	};
	int k = fz_n(rs, 8);

	/* a space before the ';' makes an empty last word: refused */
	if (k == 6)
		fz_defect(&cmd->w, EINVAL);
	return sep[k];
}

/*
 * One valid field into @cmd; returns its size.  @i numbers the field
 * name.  @budget: payload bytes left.
 */
static int fz_gen_field(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd,
			int i, int budget)
{
	char word[96], name[40];
	int k, size, n;

	if (fz_pct(rs, 80)) {
		snprintf(name, sizeof(name), "f%d", i);
		if (!i)
			cmd->has_f0 = true;
	} else {
		fz_ident(rs, name, 1 + fz_n(rs, 12));
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			 "_%d", i);	/* unique */
	}

	switch (fz_n(rs, 10)) {
	case 0: case 1: case 2: case 3: case 4:
		k = fz_n(rs, 14);
		size = fz_scalar_size[k];
		if (size > budget)
			break;
		snprintf(word, sizeof(word), "%s", fz_scalars[k]);
		/* "unsigned  int": any white space between the words */
		if (!strncmp(word, "unsigned ", 9) && fz_pct(rs, 30)) {
			fz_put(cmd, "unsigned");
			fz_put(cmd, fz_ws(rs, cmd));
			fz_put(cmd, word + 9);
		} else {
			fz_put(cmd, word);
		}
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		return size;
	case 5: case 6:
		n = fz_pct(rs, 10) ? FZ_ARRAY_MAX : 1 + fz_n(rs, 64);
		if (n > budget)
			n = budget;
		if (n < 1)
			break;
		/* N in decimal, hexadecimal or octal, kept as written */
		k = fz_n(rs, 10);
		snprintf(word, sizeof(word), k < 2 ? "%schar[0x%x]" :
			 k < 3 ? "%schar[0%o]" : "%schar[%d]",
			 fz_pct(rs, 30) ? "unsigned " : "", n);
		fz_put(cmd, word);
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		return n;
	case 7:
		n = fz_pct(rs, 10) ? budget : 1 + fz_n(rs, 40);
		if (n > budget)
			n = budget;
		if (n < 1)
			break;
		fz_put(cmd, "struct");
		fz_put(cmd, fz_ws(rs, cmd));
		fz_ident(rs, word, 1 + fz_n(rs, 10));
		fz_put(cmd, word);
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		fz_put(cmd, fz_ws(rs, cmd));
		snprintf(word, sizeof(word), "%d", n);
		fz_put(cmd, word);
		return n;
	default:
		if (budget < 4)
			break;
		k = fz_n(rs, ARRAY_SIZE(fz_locs));
		if (k < 4 && k % 2 && fz_pct(rs, 30)) {
			/* "__rel_loc unsigned char[]", word by word */
			fz_put(cmd, k < 2 ? "__data_loc" : "__rel_loc");
			fz_put(cmd, fz_ws(rs, cmd));
			fz_put(cmd, "unsigned");
			fz_put(cmd, fz_ws(rs, cmd));
			fz_put(cmd, "char[]");
		} else {
			fz_put(cmd, fz_locs[k]);
		}
		fz_put(cmd, fz_ws(rs, cmd));
		fz_put(cmd, name);
		return 4;
	}
	/* out of budget: a zero-size choice is not possible, use u8 */
	if (budget < 1)
		return -1;
	fz_put(cmd, "u8");
	fz_put(cmd, fz_ws(rs, cmd));
	fz_put(cmd, name);
	return 1;
}

/* Mutations: the result may be anything (fz_cmd.mutated). */
static void fz_mutate(__u64 *rs, struct fz_cmd *cmd)
{
	int rounds = 1 + fz_n(rs, 4), pos, n, i;
	char *b = cmd->buf;

	while (rounds--) {
		pos = cmd->len ? fz_n(rs, cmd->len + 1) : 0;
		switch (fz_n(rs, 8)) {
		case 0:	/* flip a byte */
			if (pos < cmd->len)
				b[pos] = fz_rnd(rs);
			break;
		case 1:	/* special character */
			if (pos < cmd->len)
				b[pos] = fz_special[fz_n(rs, sizeof(fz_special) - 1)];
			break;
		case 2:	/* delete a range */
			n = fz_n(rs, 16);
			if (pos + n > cmd->len)
				n = cmd->len - pos;
			memmove(b + pos, b + pos + n, cmd->len - pos - n);
			cmd->len -= n;
			break;
		case 3:	/* insert random bytes (NUL, non-ASCII) */
			n = 1 + fz_n(rs, 8);
			if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
				break;
			memmove(b + pos + n, b + pos, cmd->len - pos);
			for (i = 0; i < n; i++)
				b[pos + i] = fz_pct(rs, 50) ? fz_rnd(rs) :
					fz_special[fz_n(rs, sizeof(fz_special) - 1)];
			cmd->len += n;
			break;
		case 4:	/* insert a type word */
			{
				const char *t = fz_pct(rs, 50) ?
					fz_scalars[fz_n(rs, 14)] :
					fz_bad_types[fz_n(rs, ARRAY_SIZE(fz_bad_types))];

				n = strlen(t);
				if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
					break;
				memmove(b + pos + n, b + pos, cmd->len - pos);
				memcpy(b + pos, t, n);
				cmd->len += n;
			}
			break;
		case 5:	/* duplicate a range */
			n = fz_n(rs, 32);
			if (pos + n > cmd->len)
				n = cmd->len - pos;
			if (cmd->len + n >= (int)sizeof(cmd->buf) - 1)
				break;
			memmove(b + pos + n, b + pos, cmd->len - pos);
			cmd->len += n;
			break;
		case 6:	/* digits: sizes and array lengths */
			if (pos < cmd->len)
				b[pos] = '0' + fz_n(rs, 10);
			break;
		default: /* truncate */
			cmd->len = pos;
			break;
		}
	}
	cmd->buf[cmd->len] = '\0';
	cmd->mutated = true;
}

/*
 * Generate a command: valid, with one known defect (EINVAL), and/or
 * mutated.  Returns with cmd->w describing the expected parse result.
 */
static void fz_gen_cmd(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd)
{
	int nf, i, budget = fz_payload_max, size, r, defect;
	char num[32];

	cmd->len = 0;
	cmd->buf[0] = '\0';
	memset(&cmd->w, 0, sizeof(cmd->w));
	cmd->fresh = false;
	cmd->shared = false;
	cmd->mutated = false;
	cmd->has_f0 = false;
	cmd->lead_ws = false;
	cmd->too_long = false;
	/* no limit but 1 GiB: sometimes structs far beyond a page */
	if (fz_pct(rs, 5))
		budget = 1 << 24;

	r = fz_n(rs, 100);
	if (r < 5) {
		/* exactly a target's command: the same event */
		const struct fz_target *t = &fz_targets[fz_n(rs, FZ_NTARGETS)];

		fz_put(cmd, t->cmd);
		snprintf(cmd->name, sizeof(cmd->name), "%s", t->name);
		cmd->shared = true;
		return;
	}
	if (r < 12) {
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_t%d",
			 fz_n(rs, FZ_NTARGETS));
		cmd->shared = true;
	} else if (r < 25) {
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_n%d",
			 fz_n(rs, FZ_SHARED));
		cmd->shared = true;
	} else if (r < 30) {
		/* long names: only the command's length limits them */
		i = 120 + fz_n(rs, FZ_LONG_NAME - 120 - 6 + 1);
		memcpy(cmd->name, FZ_PREFIX, 6);
		fz_ident(rs, cmd->name + 6, i);
		cmd->fresh = true;
	} else if (r < 33) {
		/* names that are no identifiers */
		snprintf(cmd->name, sizeof(cmd->name), "%d" FZ_PREFIX ".%llu-%u",
			 fz_n(rs, 10), c->ncase, fz_n(rs, 1000));
		cmd->fresh = true;
	} else {
		snprintf(cmd->name, sizeof(cmd->name), FZ_PREFIX "_%llu_%u",
			 c->ncase, fz_n(rs, 1000));
		cmd->fresh = true;
	}
	fz_put(cmd, cmd->name);

	r = fz_n(rs, 100);
	nf = r < 15 ? 0 : r < 95 ? 1 + fz_n(rs, 6) : 60 + fz_n(rs, 8);
	/* one known defect in 1/5 of the commands */
	defect = fz_pct(rs, 20) ? 1 + fz_n(rs, 12) : 0;
	if (nf)
		fz_put(cmd, fz_lead(rs));
	for (i = 0; i < nf; i++) {
		if (i)
			fz_put(cmd, nf > 40 ? ";" : fz_sep(rs, cmd));
		if (nf > 40) {
			/* many fields: keep them short to fit 511 bytes */
			snprintf(num, sizeof(num), "u8 f%d", i);
			fz_put(cmd, num);
			cmd->has_f0 = true;
			budget--;
			continue;
		}
		size = fz_gen_field(c, rs, cmd, i, budget);
		if (size < 0)
			break;
		budget -= size;
	}
	if (nf && fz_pct(rs, 10))
		fz_put(cmd, fz_pct(rs, 50) ? ";" : "; ");

	switch (defect) {
	case 1:
		fz_put(cmd, nf ? "; " : " ");
		fz_put(cmd, fz_bad_types[fz_n(rs, ARRAY_SIZE(fz_bad_types))]);
		fz_put(cmd, " bad");
		fz_defect(&cmd->w, EINVAL);
		break;
	case 2:	/* duplicate field name: not predicted */
		if (!nf)
			break;
		fz_put(cmd, "; u8 f0");
		if (cmd->has_f0)
			fz_set_add(&cmd->w.extra, EINVAL);
		break;
	case 3:	/* two spaces, or a tab, between the words of a field */
		fz_put(cmd, nf ? "; u32" : " u32");
		fz_put(cmd, fz_pct(rs, 50) ? "  a3" : "\ta3");
		fz_defect(&cmd->w, EINVAL);
		break;
	case 4:	/* too many words */
		fz_put(cmd, nf ? "; u32 x y" : " u32 x y");
		fz_defect(&cmd->w, EINVAL);
		break;
	case 5:	/* struct sizes */
		snprintf(num, sizeof(num), "%s struct s q %s", nf ? ";" : "",
			 fz_bad_sizes[fz_n(rs, ARRAY_SIZE(fz_bad_sizes))]);
		fz_put(cmd, num);
		fz_defect(&cmd->w, EINVAL);
		break;
	case 6:	/* fixed fields of 1 GiB or more */
		fz_put(cmd, nf ? "; struct s q1 1073741823; struct s q2 1" :
			" struct s q1 1073741823; struct s q2 1");
		fz_defect(&cmd->w, EINVAL);
		break;
	case 7:	/* text flags */
		memmove(cmd->buf + strlen(cmd->name) + 2, cmd->buf + strlen(cmd->name),
			cmd->len - strlen(cmd->name) + 1);
		memcpy(cmd->buf + strlen(cmd->name), ":x", 2);
		cmd->len += 2;
		fz_defect(&cmd->w, EINVAL);
		break;
	case 8:	/* a name tracefs cannot show: with a '/' */
		cmd->buf[fz_n(rs, strlen(cmd->name))] = '/';
		fz_defect(&cmd->w, EINVAL);
		cmd->fresh = false;
		cmd->shared = false;
		break;
	case 9:	/* exactly FZ_CMD_MAX + 1 .. + 80 bytes, else valid */
		i = FZ_CMD_MAX + 1 + fz_n(rs, 80);
		if (nf && cmd->len < i)
			fz_put(cmd, ";");
		while (cmd->len < i)
			fz_put(cmd, nf ? ";" : " ");
		cmd->too_long = true;
		fz_defect(&cmd->w, EINVAL);
		break;
	case 10: /* empty name */
		memmove(cmd->buf + 1, cmd->buf, cmd->len + 1);
		cmd->buf[0] = ' ';
		cmd->len++;
		cmd->lead_ws = true;
		fz_defect(&cmd->w, EINVAL);
		break;
	case 11: /* a trailing space: an empty last field name, accepted */
		if (nf && nf <= 40 && cmd->len < FZ_CMD_MAX - 6)
			fz_put(cmd, "; u16 ");
		break;
	default: /* exactly FZ_CMD_MAX bytes: still fine */
		/* after fields, empty ones; white space alone after a name */
		if (nf && cmd->len < FZ_CMD_MAX)
			fz_put(cmd, ";");
		while (cmd->len < FZ_CMD_MAX)
			fz_put(cmd, nf ? ";" : " ");
		break;
	}
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

/* The name the kernel saw in @cmd (up to a space); "" if invalid */
static void fz_cmd_name(const char *buf, char *name, size_t len)
{
	size_t n = strcspn(buf, " ");

	if (n > FZ_NAME_MAX || n >= len)
		n = 0;
	memcpy(name, buf, n);
	name[n] = '\0';
}

/* Is @name one of the events that existed before the run? */
static bool fz_is_baseline(struct fz_ctx *c, const char *name)
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
static void fz_track_name(struct fz_ctx *c, const char *name)
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
static __u64 fz_bad_ptr(struct fz_ctx *c, __u64 *rs)
{
	const __u64 bad[] = { 0, FZ_KERNEL1, fz_unmapped, (uintptr_t)c->none };

	return bad[fz_n(rs, 4)];
}

/* An enable word for the fuzz cases (the targets use words 0..15) */
static __u64 fz_valid_word(struct fz_ctx *c, __u64 *rs, int size)
{
	__u64 a = (__u64)(uintptr_t)c->en + 8 * (16 + fz_n(rs, 240));

	if (size == 4 && fz_pct(rs, 50))
		a += 4;
	return a;
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSREG
 */

static const int fz_bad_esize[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };

static void fz_case_reg(struct fz_ctx *c, __u64 *rs)
{
	static struct fz_cmd cmd;
	char *sbuf, *cbuf, name[FZ_NAME_MAX + 1];
	__u32 size = FZ_REG_SIZE, r;
	int esize, bit, fd, ret, kind, i, live;
	bool ro = false, garbage = false, into_guard = false, bad_cmd = false;
	struct fz_want w;
	struct user_reg reg;
	__u64 addr, cmd_ptr;
	struct fz_set s;
	void *arg;

	fz_gen_cmd(c, rs, &cmd);
	w = cmd.w;
	if (cmd.shared)		/* may be in use with other fields */
		fz_set_add(&w.extra, EADDRINUSE);
	memset(&reg, 0, sizeof(reg));

	/* flags */
	r = fz_n(rs, 100);
	reg.flags = r < 70 ? 0 : r < 80 ? USER_EVENT_REG_PERSIST :
		    r < 90 ? USER_EVENT_REG_MULTI_FORMAT :
		    r < 95 ? USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT :
		    (__u16)(USER_EVENT_REG_MAX << fz_n(rs, 14)) | fz_n(rs, 4);
	if (reg.flags & ~(USER_EVENT_REG_MAX - 1))
		fz_defect(&w, EINVAL);

	/* enable size and bit */
	r = fz_n(rs, 100);
	esize = r < 45 ? 4 : r < 90 ? 8 : fz_bad_esize[fz_n(rs, 9)];
	if (esize != 4 && esize != 8)
		fz_defect(&w, EINVAL);
	i = esize == 4 ? 32 : 64;
	bit = fz_pct(rs, 92) ? fz_n(rs, i) : i + fz_n(rs, 256 - i);
	if ((esize == 4 || esize == 8) && bit >= 8 * esize)
		fz_defect(&w, EINVAL);

	/* enable address */
	r = fz_n(rs, 100);
	kind = r < 72 ? FA_VALID : r < 77 ? FA_INUSE :
	       FA_MISALIGN + fz_n(rs, FA_NR - FA_MISALIGN);
	addr = fz_valid_word(c, rs, esize == 4 ? 4 : 8);
	switch (kind) {
	case FA_VALID:
		break;
	case FA_INUSE:
		/* a live word; the same bit if the size matches */
		if (c->nlive) {
			i = fz_n(rs, c->nlive);
			if (c->live[i].size == esize) {
				addr = c->live[i].addr;
				bit = c->live[i].bit;
			}
		}
		break;
	case FA_MISALIGN:
		if (esize == 4 || esize == 8) {
			addr = (addr & ~7ull) + 1 + fz_n(rs, esize - 1);
			fz_defect(&w, EINVAL);
		}
		break;
	case FA_NULL:
		addr = 0;
		fz_defect(&w, EFAULT);
		break;
	case FA_KERNEL:
		addr = fz_pct(rs, 50) ? FZ_KERNEL1 : FZ_KERNEL2;
		fz_defect(&w, EFAULT);
		break;
	case FA_NONCANON:
		addr = fz_pct(rs, 50) ? FZ_NONCANON : 0xfffffffffffffff8ull;
		fz_defect(&w, EFAULT);
		break;
	case FA_UNMAPPED:
		addr = fz_unmapped + 8 * fz_n(rs, 64);
		fz_defect(&w, EFAULT);
		break;
	case FA_RO:
		addr = (uintptr_t)c->ro + 2048 + 8 * fz_n(rs, 64);
		fz_defect(&w, EFAULT);
		break;
	default:
		addr = (uintptr_t)c->none + 8 * fz_n(rs, 64);
		fz_defect(&w, EFAULT);
		break;
	}
	/* the same bit of the same long as a live registration */
	live = -1;
	if ((esize == 4 || esize == 8) && !(addr & (esize - 1)) &&
	    bit < 8 * esize)
		live = fz_live_find(c, addr, esize, bit, false);
	if (live >= 0) {
		fz_defect(&w, EADDRINUSE);
		if (c->live[live].maybe)
			w.unknown = true;
	}

	/* the command text: arena page 2, or unreadable */
	cbuf = c->arena + 2 * c->page;
	r = fz_n(rs, 100);
	if (r < 88) {
		memcpy(cbuf, cmd.buf, cmd.len + 1);
	} else if (r < 94) {
		/* no NUL before the guard page: EFAULT, or EINVAL if long */
		i = fz_pct(rs, 70) ? 1 + fz_n(rs, FZ_CMD_MAX) :
		    FZ_CMD_MAX + 1 + fz_n(rs, 100);
		cbuf = c->guard - i;
		memset(cbuf, 'a', i);
		bad_cmd = true;
		w.unknown = false;	/* the text does not matter now */
		memset(&w.extra, 0, sizeof(w.extra));
		w.ndef -= cmd.w.ndef;
		fz_defect(&w, i > FZ_CMD_MAX ? EINVAL : EFAULT);
		if (live >= 0 && c->live[live].maybe)
			w.unknown = true;
	} else {
		cbuf = (char *)(uintptr_t)fz_bad_ptr(c, rs);
		bad_cmd = true;
		w.unknown = false;
		memset(&w.extra, 0, sizeof(w.extra));
		w.ndef -= cmd.w.ndef;
		fz_defect(&w, EFAULT);
		if (live >= 0 && c->live[live].maybe)
			w.unknown = true;
	}
	cmd_ptr = (uintptr_t)cbuf;

	/* struct size */
	r = fz_n(rs, 100);
	if (r < 75) {
		size = FZ_REG_SIZE;
	} else if (r < 83) {
		size = FZ_REG_SIZE + 1 + fz_n(rs, 64);	/* zero tail: fine */
	} else if (r < 87) {
		size = FZ_REG_SIZE + 1 + fz_n(rs, 64);
		garbage = true;
		fz_defect(&w, E2BIG);
	} else if (r < 91) {
		size = fz_n(rs, FZ_REG_SIZE);
		fz_defect(&w, EINVAL);
	} else if (r < 95) {
		size = fz_pct(rs, 70) ? c->page + 1 + fz_n(rs, 16) :
		       (__u32)fz_rnd(rs) | 0x80000000u;
		fz_defect(&w, E2BIG);
	} else if (r < 97) {
		size = c->page;			/* zeroes up to a page */
	} else {
		size = FZ_REG_SIZE + 8 + fz_n(rs, 64);
		into_guard = true;		/* the tail is unreadable */
		fz_defect(&w, EFAULT);
	}

	reg.size = size;
	reg.enable_bit = bit;
	reg.enable_size = esize;
	reg.enable_addr = addr;
	reg.name_args = cmd_ptr;
	reg.write_index = fz_rnd(rs);

	/* where the struct is */
	r = fz_n(rs, 100);
	if (r < 4) {
		/* the pointer itself is bad: nothing else can be read */
		arg = (void *)(uintptr_t)fz_bad_ptr(c, rs);
		w = (struct fz_want){ .ndef = 1, .err = EFAULT };
	} else if (into_guard) {
		sbuf = c->guard - FZ_REG_SIZE - fz_n(rs, 8);
		memset(sbuf, 0, c->guard - sbuf);
		memcpy(sbuf, &reg, sizeof(reg));
		arg = sbuf;
	} else if (r < 10 && !garbage && size >= FZ_REG_SIZE && size <= 64) {
		/* read-only: the kernel cannot store write_index */
		mprotect(c->ro, c->page, PROT_READ | PROT_WRITE);
		memset(c->ro, 0, 128);
		memcpy(c->ro, &reg, sizeof(reg));
		mprotect(c->ro, c->page, PROT_READ);
		arg = c->ro;
		ro = true;
		fz_defect(&w, EFAULT);
	} else {
		sbuf = size == c->page ? c->arena : c->arena + 8 * fz_n(rs, 8);
		memset(sbuf, 0, size == c->page ? size : 128);
		memcpy(sbuf, &reg, sizeof(reg));
		if (garbage)
			sbuf[FZ_REG_SIZE + fz_n(rs, size - FZ_REG_SIZE)] =
				1 + fz_n(rs, 255);
		arg = sbuf;
	}

	fd = fz_pct(rs, 70) ? c->fd_main : c->fd_aux;
	ret = ioctl(fd, DIAG_IOCSREG, arg);
	if (ret < 0)
		ret = -errno;

	s = fz_expected(&w, fz_reg_errs);
	if (!w.unknown && w.ndef <= 1)
		c->sh->predicted++;
	if (!fz_check(c, OP_REG, ret, &s)) {
		fz_fail(c, OP_REG, ret, &s,
			"flags 0x%x size %u esize %d bit %d addr 0x%llx (%d) ro %d cmd %s \"%s\"",
			reg.flags, size, esize, bit, addr, kind, ro,
			bad_cmd ? "unreadable" : "ok",
			fz_show(cmd.buf, cmd.len));
		return;
	}

	/* what may exist now */
	if (ret == 0 || (ret == -EFAULT && ro)) {
		fz_live_add(c, addr, esize, bit, ret != 0);
		if (ret == 0)
			c->sh->created++;
	}
	/*
	 * A persistent event is created before the enable word is checked,
	 * and stays when that check fails (as upstream): track it anyway.
	 */
	if ((reg.flags & USER_EVENT_REG_PERSIST) && !bad_cmd) {
		fz_cmd_name(cmd.buf, name, sizeof(name));
		fz_track_name(c, name);
	}
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSUNREG
 */

static __u64 fz_unreg_addrs[] = {
	0, FZ_KERNEL1, FZ_NONCANON, 0 /* fz_unmapped, by fz_setup() */,
};

static void fz_case_unreg(struct fz_ctx *c, __u64 *rs)
{
	__u32 size = FZ_UNREG_SIZE, r;
	struct fz_want w = { 0 };
	bool garbage = false, into_guard = false;
	char *sbuf = c->arena + 8 * fz_n(rs, 8);
	struct user_unreg u;
	int i = -1, ret, bit;
	struct fz_set s;
	__u64 addr;
	void *arg;

	memset(&u, 0, sizeof(u));
	if (c->nlive && fz_pct(rs, 60)) {
		i = fz_n(rs, c->nlive);
		addr = c->live[i].addr;
		bit = c->live[i].bit;
		if (c->live[i].maybe)
			w.unknown = true;
	} else {
		r = fz_n(rs, 10);
		if (r < 6) {
			addr = fz_valid_word(c, rs, 8);
			bit = fz_n(rs, 64);
			if (fz_live_find(c, addr, 0, bit, true) >= 0)
				w.unknown = true;
		} else {
			/* not even a word: only the documented set */
			addr = fz_unreg_addrs[r - 6];
			bit = fz_n(rs, 256);
			w.unknown = true;
		}
		fz_defect(&w, ENOENT);
	}
	u.disable_addr = addr;
	u.disable_bit = bit;

	r = fz_n(rs, 100);
	if (r < 6) {
		u.__reserved = 1 + fz_n(rs, 255);
		fz_defect(&w, EINVAL);
	} else if (r < 10) {
		u.__reserved2 = 1 + fz_n(rs, 65535);
		fz_defect(&w, EINVAL);
	}

	r = fz_n(rs, 100);
	if (r < 8) {
		size = fz_n(rs, FZ_UNREG_SIZE);
		fz_defect(&w, EINVAL);
	} else if (r < 14) {
		size = c->page + 1 + fz_n(rs, 16);
		fz_defect(&w, E2BIG);
	} else if (r < 20) {
		size = FZ_UNREG_SIZE + 1 + fz_n(rs, 48);
		garbage = true;
		fz_defect(&w, E2BIG);
	} else if (r < 26) {
		size = FZ_UNREG_SIZE + 1 + fz_n(rs, 48);	/* zero tail */
	} else if (r < 29) {
		size = FZ_UNREG_SIZE + 8 + fz_n(rs, 48);
		into_guard = true;
		fz_defect(&w, EFAULT);
	}
	u.size = size;

	if (fz_pct(rs, 4)) {
		arg = (void *)(uintptr_t)fz_bad_ptr(c, rs);
		w = (struct fz_want){ .ndef = 1, .err = EFAULT };
	} else if (into_guard) {
		sbuf = c->guard - FZ_UNREG_SIZE - fz_n(rs, 4);
		memset(sbuf, 0, c->guard - sbuf);
		memcpy(sbuf, &u, sizeof(u));
		arg = sbuf;
	} else {
		memset(sbuf, 0, 128);
		memcpy(sbuf, &u, sizeof(u));
		if (garbage)
			sbuf[FZ_UNREG_SIZE + fz_n(rs, size - FZ_UNREG_SIZE)] =
				1 + fz_n(rs, 255);
		arg = sbuf;
	}

	ret = ioctl(fz_pct(rs, 50) ? c->fd_main : c->fd_aux, DIAG_IOCSUNREG,
		    arg);
	if (ret < 0)
		ret = -errno;
	s = fz_expected(&w, fz_unreg_errs);
	if (!w.unknown && w.ndef <= 1)
		c->sh->predicted++;
	if (!fz_check(c, OP_UNREG, ret, &s)) {
		fz_fail(c, OP_UNREG, ret, &s,
			"size %u addr 0x%llx bit %d reserved %u/%u live %d",
			size, addr, bit, u.__reserved, u.__reserved2, i);
		return;
	}
	if (ret == 0) {
		i = fz_live_find(c, addr, 0, bit, true);
		if (i >= 0)
			c->live[i] = c->live[--c->nlive];
	}
}

/* ---------------------------------------------------------------------
 * write() / writev()
 */

/*
 * The kernel's record check (uev_format_check_record) on a payload of a
 * known format: 0, -EFAULT, or 1 when the answer depends on a byte of
 * the common header.
 */
static int fz_model_record(const struct fz_target *t, const unsigned char *p,
			   __u32 len)
{
	__u32 off = 0, loc, start, size, rec = FZ_ENTRY + len, last;
	int i, unsure = 0;

	for (i = 0; i < t->nf; off += t->f[i].size, i++) {
		if (t->f[i].kind != FK_DL && t->f[i].kind != FK_RL)
			continue;
		memcpy(&loc, p + off, 4);
		start = loc & 0xffff;
		size = loc >> 16;
		if (t->f[i].kind == FK_RL)
			start += FZ_ENTRY + off + 4;
		if (start + size > rec)
			return -EFAULT;
		if (!t->f[i].str)
			continue;
		if (!size)
			return -EFAULT;
		last = start + size - 1;
		if (last < FZ_ENTRY)
			unsure = 1;
		else if (p[last - FZ_ENTRY])
			return -EFAULT;
	}
	return unsure;
}

/* A payload for target @t into @p (room for 8 KiB); returns its length. */
static __u32 fz_gen_payload(__u64 *rs, const struct fz_target *t,
			    unsigned char *p)
{
	__u32 off = 0, end = t->size, len, n, loc, start, size;
	int i, mode = fz_n(rs, 100), k;

	for (i = 0; i < (int)t->size; i++)
		p[i] = fz_rnd(rs);
	if (mode < 8) {
		/* random everything, random length */
		len = fz_pct(rs, 50) ? fz_n(rs, 64) : fz_n(rs, 8193);
		for (i = t->size; i < (int)len; i++)
			p[i] = fz_rnd(rs);
		return len;
	}

	/* valid dynamic data after the fixed fields */
	for (i = 0; i < t->nf; off += t->f[i].size, i++) {
		if (t->f[i].kind != FK_DL && t->f[i].kind != FK_RL)
			continue;
		n = fz_pct(rs, 10) ? 200 + fz_n(rs, 2000) : 1 + fz_n(rs, 48);
		if (end + n > 8000)
			n = 1;
		for (k = 0; k < (int)n; k++)
			p[end + k] = t->f[i].str ? 0x20 + fz_n(rs, 0x5f) :
				     fz_rnd(rs);
		if (t->f[i].str)
			p[end + n - 1] = '\0';
		start = FZ_ENTRY + end;
		if (t->f[i].kind == FK_RL)
			start -= FZ_ENTRY + off + 4;
		size = n;
		if (mode < 30) {
			/* one small error */
			switch (fz_n(rs, 7)) {
			case 0:
				size++;
				break;
			case 1:
				start++;
				break;
			case 2:
				size = 0;
				break;
			case 3:
				p[end + size - 1] = 'x';
				break;
			case 4:
				start = fz_n(rs, FZ_ENTRY);
				break;
			case 5:
				start = fz_rnd(rs);
				break;
			default:
				size = fz_rnd(rs);
				break;
			}
		}
		loc = DYN_LOC(start & 0xffff, size & 0xffff);
		memcpy(p + off, &loc, 4);
		end += n;
	}
	len = end;
	switch (fz_n(rs, 10)) {
	case 0:	/* shorter than the fixed fields */
		len = fz_n(rs, t->size + 1);
		break;
	case 1:	/* over the limit */
		len = fz_payload_max + 1 + fz_n(rs, 4136);	/* 8 KiB at 4K */
		for (i = end; i < (int)len; i++)
			p[i] = fz_rnd(rs);
		break;
	case 2:	/* right at the limit */
		len = fz_payload_max - fz_n(rs, 2);
		if (len < end)
			len = end;
		for (i = end; i < (int)len; i++)
			p[i] = fz_rnd(rs);
		break;
	case 3:	/* extra bytes */
		len = end + fz_n(rs, 64);
		for (i = end; i < (int)len; i++)
			p[i] = fz_rnd(rs);
		break;
	default:
		break;
	}
	return len;
}

static void fz_case_write(struct fz_ctx *c, __u64 *rs)
{
	const struct fz_target *t = NULL;
	struct fz_want w = { 0 };
	unsigned char *data;
	__u32 count, plen = 0, readable, r;
	__s32 idx;
	int fd, niov = 1, i, ret, model;
	bool vec = fz_pct(rs, 40), kptr = false;
	enum fz_op op = vec ? OP_WRITEV : OP_WRITE;
	struct fz_set s;
	char *dst;

	r = fz_n(rs, 100);
	if (r < 65) {
		t = &fz_targets[fz_n(rs, FZ_NTARGETS)];
		fd = c->fd_tgt;
		idx = t->idx;
	} else if (r < 75) {
		fd = c->fd_tgt;
		idx = FZ_NTARGETS + fz_n(rs, 1000);
		fz_defect(&w, ENOENT);
	} else if (r < 82) {
		fd = c->fd_tgt;
		idx = -1 - (__s32)fz_n(rs, 0x7fffffff);
		fz_defect(&w, EINVAL);
	} else if (r < 88) {
		fd = fz_pct(rs, 50) ? c->fd_main : c->fd_aux;
		idx = (1 << 20) + fz_n(rs, 1 << 30);
		fz_defect(&w, ENOENT);
	} else {
		/* fuzz registrations: never traced, mostly */
		fd = fz_pct(rs, 50) ? c->fd_main : c->fd_aux;
		idx = fz_n(rs, 64);
		w.unknown = true;
	}

	/* payload in fz_tmp after the index */
	data = (unsigned char *)fz_tmp;
	memcpy(data, &idx, 4);
	if (t) {
		plen = fz_gen_payload(rs, t, data + 4);
	} else {
		plen = fz_pct(rs, 50) ? fz_n(rs, 64) : fz_n(rs, 8193);
		for (i = 0; i < (int)plen; i++)
			data[4 + i] = fz_rnd(rs);
	}
	count = 4 + plen;
	if (fz_pct(rs, 3))
		count = fz_n(rs, 4);	/* not even an index */

	/* where the bytes are: the end may run into the guard page */
	readable = count;
	dst = c->wbuf + fz_n(rs, 64);
	if (fz_pct(rs, 5) && count) {
		readable = fz_n(rs, count);
		dst = c->wguard - readable;
	}
	memcpy(dst, data, readable);

	/* the kernel's checks, in the order of the documentation */
	if (!count) {
		/* write(): less than an index; writev(): nothing to do */
		w = (struct fz_want){ .ndef = !vec, .err = EFAULT };
	} else if (count < 4 || readable < 4) {
		w = (struct fz_want){ .ndef = 1, .err = EFAULT };
	} else if (t) {
		/*
		 * enabled, known format: exact.  Too big means too big for
		 * every attached consumer: ftrace holds fz_payload_max bytes,
		 * perf FZ_PERF_MAX; a consumer too small drops it alone.
		 */
		bool big = plen > fz_payload_max &&
			   (!t->perf || plen > FZ_PERF_MAX);

		if (plen < (__u32)t->size) {
			fz_defect(&w, EINVAL);
		} else if (big) {
			fz_defect(&w, E2BIG);
		} else if (readable < count) {
			fz_defect(&w, EFAULT);
		} else {
			model = fz_model_record(t, data + 4, plen);
			if (model < 0)
				fz_defect(&w, EFAULT);
			else if (model > 0)
				fz_set_add(&w.extra, EFAULT);
		}
	}

	if (!vec) {
		if (fz_pct(rs, 2) && count) {
			dst = fz_kptr;
			kptr = true;
		}
		ret = write(fd, dst, count);
	} else {
		/* split into iovecs, some empty, maybe too many */
		r = fz_n(rs, 100);
		niov = r < 60 ? 1 + fz_n(rs, 8) : r < 90 ? 1 + fz_n(rs, 1024) :
		       FZ_IOV_MAX - 4 + fz_n(rs, 80);
		{
			__u32 pos = 0, cut;

			for (i = 0; i < niov; i++) {
				cut = i == niov - 1 ? count :
				      pos + fz_n(rs, (count - pos) / 2 + 2);
				if (cut > count)
					cut = count;
				fz_iov[i].iov_base = dst + pos;
				fz_iov[i].iov_len = cut - pos;
				pos = cut;
			}
		}
		if (fz_pct(rs, 2) && count) {
			/* a kernel pointer in a non-empty iovec */
			for (i = 0; i < niov && !fz_iov[i].iov_len; i++)
				;
			fz_iov[i].iov_base = fz_kptr;
			kptr = true;
		}
		ret = writev(fd, fz_iov, niov);
	}
	if (ret < 0)
		ret = -errno;

	if (vec && niov > FZ_IOV_MAX)
		w = (struct fz_want){ .ndef = 1, .err = EINVAL };
	else if (kptr)
		w = (struct fz_want){ .ndef = 1, .err = EFAULT };

	s = fz_expected(&w, fz_write_errs);
	if (!w.unknown && w.ndef <= 1)
		c->sh->predicted++;
	if (!fz_check(c, op, ret, &s)) {
		fz_fail(c, op, ret, &s,
			"target %s idx %d count %u readable %u iovecs %d",
			t ? t->name : "-", idx, count, readable, niov);
		return;
	}
	if (ret >= 0 && ret != (int)count)
		fz_fail(c, op, ret, &s, "wrote %d of %u bytes", ret, count);
}

/* ---------------------------------------------------------------------
 * DIAG_IOCSDEL
 */

static void fz_case_del(struct fz_ctx *c, __u64 *rs)
{
	struct fz_want w = { 0 };
	char *buf = c->arena + 3 * c->page, *arg = buf;
	__u32 r = fz_n(rs, 100), n, i;
	struct fz_set s;
	int ret;

	if (r < 40) {
		/* never used: random bytes, NUL and non-ASCII included */
		n = fz_pct(rs, 80) ? fz_n(rs, 64) : fz_n(rs, 700);
		memcpy(buf, FZ_PREFIX "_del_", 11);
		for (i = 0; i < n; i++)
			buf[11 + i] = fz_pct(rs, 90) ? 'a' + fz_n(rs, 26) :
				      fz_rnd(rs);
		buf[11 + n] = '\0';
		fz_defect(&w, strlen(buf) > FZ_CMD_MAX ? EINVAL : ENOENT);
	} else if (r < 55 && c->nnames) {
		snprintf(buf, 256, "%s", c->names[fz_n(rs, c->nnames)]);
		w.unknown = true;
	} else if (r < 65) {
		snprintf(buf, 256, "%s", fz_targets[fz_n(rs, FZ_NTARGETS)].name);
		fz_defect(&w, EBUSY);	/* registered and traced */
	} else if (r < 80) {
		snprintf(buf, 256, FZ_PREFIX "_n%u", fz_n(rs, FZ_SHARED));
		w.unknown = true;
	} else if (r < 88) {
		/* unterminated up to the guard page */
		n = fz_pct(rs, 60) ? 1 + fz_n(rs, FZ_CMD_MAX) :
		    FZ_CMD_MAX + 1 + fz_n(rs, 64);
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
	s = fz_expected(&w, fz_del_errs);
	if (!w.unknown && w.ndef <= 1)
		c->sh->predicted++;
	if (!fz_check(c, OP_DEL, ret, &s))
		fz_fail(c, OP_DEL, ret, &s, "name %s", arg == buf ?
			fz_show(buf, strlen(buf)) : "(bad pointer)");
}

/* ---------------------------------------------------------------------
 * dynamic_events
 */

static int fz_dyn_write(const char *buf, size_t len)
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

static void fz_case_dyn(struct fz_ctx *c, __u64 *rs)
{
	static struct fz_cmd cmd;
	static char line[5200];
	struct fz_want w = { 0 };
	char name[FZ_NAME_MAX + 1], *hash;
	__u32 r = fz_n(rs, 100);
	size_t len, i;
	struct fz_set s;
	int ret;

	if (r < 70) {
		fz_gen_cmd(c, rs, &cmd);
		w = cmd.w;
		if (cmd.shared)
			fz_set_add(&w.extra, EADDRINUSE);
		/* white space after "u:" is skipped: drop it, no defect */
		if (cmd.lead_ws && !cmd.mutated && cmd.buf[0] == ' ') {
			memmove(cmd.buf, cmd.buf + 1, cmd.len--);
			w.ndef--;
		}
		/* 511 bytes is the ioctl's limit: a line may be longer */
		if (cmd.too_long && !cmd.mutated)
			w.ndef--;
		memcpy(line, "u:", 2);
		memcpy(line + 2, cmd.buf, cmd.len);
		len = cmd.len + 2;
		/* one line: a newline would end the command */
		for (i = 2; i < len; i++)
			if (line[i] == '\n')
				line[i] = ' ';
		if (fz_pct(rs, 3)) {
			/* longer than a tracefs command line */
			while (len < 4100 + fz_n(rs, 1000))
				line[len++] = ' ';
			w = (struct fz_want){ .ndef = 1, .err = EINVAL };
		}
		/* a NUL ends the line early: refused */
		if (memchr(line, '\0', len))
			w = (struct fz_want){ .ndef = 1, .err = EINVAL };
		/* a '#' (comment) comes from a mutation: outcome unknown */
	} else {
		/* delete lines */
		const char *nm;

		if (r < 80 && c->nnames) {
			nm = c->names[fz_n(rs, c->nnames)];
			w.unknown = true;
		} else if (r < 86) {
			nm = fz_targets[fz_n(rs, FZ_NTARGETS)].name;
			fz_defect(&w, EBUSY);
		} else {
			snprintf(name, sizeof(name), FZ_PREFIX "_del_%llu",
				 c->ncase);
			nm = name;
			fz_defect(&w, ENOENT);
		}
		switch (fz_n(rs, 4)) {
		case 0:
			len = snprintf(line, sizeof(line), "-:%s", nm);
			break;
		case 1:
			len = snprintf(line, sizeof(line), "-:%s/%s",
				       fz_pct(rs, 50) ? UE_SYS : UE_SYS_MULTI,
				       nm);
			w.unknown = true;	/* system may not match */
			break;
		case 2:
			len = snprintf(line, sizeof(line), "!u:%s", nm);
			break;
		default:
			len = snprintf(line, sizeof(line), "!u:%s u32 a", nm);
			w.unknown = true;	/* fields may not match */
			break;
		}
		if (fz_is_baseline(c, nm))
			return;
	}

	ret = fz_dyn_write(line, len);
	s = fz_expected(&w, fz_dyn_errs);
	if (!w.unknown && w.ndef <= 1)
		c->sh->predicted++;
	if (!fz_check(c, OP_DYN, ret, &s)) {
		fz_fail(c, OP_DYN, ret, &s, "%zu bytes: \"%s\"", len,
			fz_show(line, len));
		return;
	}
	if (!ret && !strncmp(line, "u:", 2)) {
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
}

/* ---------------------------------------------------------------------
 * Other file operations
 */

static void fz_case_misc(struct fz_ctx *c, __u64 *rs)
{
	unsigned int cmd = 0, r = fz_n(rs, 100);
	const char *what;
	struct fz_set s;
	void *map;
	long ret;

	if (r < 50) {
		/* an unknown command of the user_events ioctl magic */
		do {
			cmd = _IOC(fz_n(rs, 4), DIAG_IOC_MAGIC, fz_n(rs, 256),
				   fz_n(rs, 1 << 14));
		} while (cmd == DIAG_IOCSREG || cmd == DIAG_IOCSDEL ||
			 cmd == DIAG_IOCSUNREG);
		what = "ioctl";
		ret = ioctl(c->fd_main, cmd, fz_rnd(rs));
		s = fz_only(ENOTTY);
	} else if (r < 65) {
		what = "read";
		ret = read(c->fd_main, fz_tmp, 1 + fz_n(rs, 64));
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

/* ---------------------------------------------------------------------
 * Batch set up and clean up
 */

static void fz_unreg_all(struct fz_ctx *c)
{
	struct fz_set s;
	int ret;

	while (c->nlive && !c->sh->failed) {
		struct fz_live *l = &c->live[--c->nlive];

		ret = ue_unreg(c->fd_main, (void *)(uintptr_t)l->addr, l->bit);
		s = l->maybe ? fz_set_of(true, fz_enoent) : fz_only(0);
		if (!fz_check(c, OP_UNREG, ret, &s))
			fz_fail(c, OP_UNREG, ret, &s, "clean up: 0x%llx bit %d",
				l->addr, l->bit);
	}
}

/* Delete the names that may be persistent events; nothing uses them. */
static void fz_delete_names(struct fz_ctx *c, bool targets_live)
{
	struct fz_set s;
	int i, t, ret;

	for (i = 0; i < c->nnames && !c->sh->failed; i++) {
		bool tgt = false;

		for (t = 0; t < FZ_NTARGETS; t++)
			tgt |= !strcmp(c->names[i], fz_targets[t].name);
		/*
		 * DIAG_IOCSDEL reads at most FZ_CMD_MAX bytes of name; a
		 * longer one (made through dynamic_events) goes there too.
		 */
		if (strlen(c->names[i]) > FZ_CMD_MAX) {
			snprintf(fz_tmp, sizeof(fz_tmp), "-:%s", c->names[i]);
			ret = fz_dyn_write(fz_tmp, strlen(fz_tmp));
		} else {
			ret = ue_del_name(c->names[i]);
		}
		s = fz_set_of(true, tgt && targets_live ? fz_enoent_ebusy :
			      fz_enoent);
		if (!fz_check(c, OP_DEL, ret, &s))
			fz_fail(c, OP_DEL, ret, &s, "clean up: delete %s",
				c->names[i]);
	}
	/* targets that became persistent must go later */
	for (i = t = 0; i < c->nnames; i++) {
		bool tgt = false;
		int k;

		for (k = 0; k < FZ_NTARGETS; k++)
			tgt |= !strcmp(c->names[i], fz_targets[k].name);
		if (tgt && targets_live)
			memmove(c->names[t++], c->names[i], FZ_NAME_MAX + 1);
	}
	c->nnames = t;
}

/* Mid-batch: drop every fuzz registration and persistent event. */
static void fz_recycle(struct fz_ctx *c)
{
	fz_unreg_all(c);
	close(c->fd_main);
	close(c->fd_aux);
	fz_delete_names(c, true);
	c->fd_main = ue_open_data();
	c->fd_aux = ue_open_data();
}

static int fz_multi_dir(const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t n = strlen(name);
	DIR *d;
	int found = -ENOENT;

	d = opendir(ue_tpath(path, sizeof(path), "events/%s", UE_SYS_MULTI));
	while (d && (de = readdir(d))) {
		if (!strncmp(de->d_name, name, n) && de->d_name[n] == '.') {
			snprintf(out, len, "%s", de->d_name);
			found = 0;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static char *fz_map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Candidates for fz_unmapped: high for 64-bit, low for 32-bit programs */
static const unsigned long long fz_holes[] = {
	0x3e0000000000ull, 0x3e00000000ull, 0x3e000000ull,
};

static int fz_setup(struct fz_ctx *c)
{
	struct perf_event_attr attr;
	int i, cpu, ncpus, id, ret;
	void *hole;

	c->page = getpagesize();
	c->arena = fz_map(5 * c->page, PROT_READ | PROT_WRITE);
	c->ro = fz_map(c->page, PROT_READ);
	c->none = fz_map(c->page, PROT_NONE);
	c->en = fz_map(2 * c->page, PROT_READ | PROT_WRITE);
	c->wbuf = fz_map(4 * c->page, PROT_READ | PROT_WRITE);
	c->names = calloc(FZ_NAMES_MAX * 2, FZ_NAME_MAX + 1);
	if (!c->arena || !c->ro || !c->none || !c->en || !c->wbuf || !c->names)
		return -ENOMEM;
	c->guard = c->arena + 4 * c->page;
	c->wguard = c->wbuf + 3 * c->page;
	if (mprotect(c->guard, c->page, PROT_NONE) ||
	    mprotect(c->wguard, c->page, PROT_NONE))
		return -errno;
	fz_payload_max = c->page - 32;
	if ((size_t)fz_payload_max + 4136 + 4 > sizeof(fz_tmp))
		return -E2BIG;
	/* beyond a 32-bit program's address space, or the kernel's */
	fz_kptr = sizeof(void *) == 4 ? (char *)(uintptr_t)0xfffff000u :
		  (char *)(uintptr_t)FZ_KERNEL1;
	/* an address nothing is mapped at (and nothing will be) */
	for (i = 0; i < ARRAY_SIZE(fz_holes) && !fz_unmapped; i++) {
		if (fz_holes[i] != (uintptr_t)fz_holes[i])
			continue;	/* beyond a 32-bit pointer */
		hole = mmap((void *)(uintptr_t)fz_holes[i], c->page, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
		if (hole == (void *)(uintptr_t)fz_holes[i])
			fz_unmapped = fz_holes[i];
		if (hole != MAP_FAILED)
			munmap(hole, c->page);
	}
	if (!fz_unmapped)
		return -EEXIST;
	fz_unreg_addrs[3] = fz_unmapped;

	ue_tracing_on();
	c->fd_tgt = ue_open_data();
	c->fd_main = ue_open_data();
	c->fd_aux = ue_open_data();
	if (c->fd_tgt < 0 || c->fd_main < 0 || c->fd_aux < 0)
		return -errno;

	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < FZ_NTARGETS; i++) {
		struct fz_target *t = &fz_targets[i];
		const char *sys = UE_SYS;

		t->size = 0;
		for (id = 0; id < t->nf; id++)
			t->size += t->f[id].size;
		ret = ue_reg(c->fd_tgt, t->cmd, c->en + 8 * i, 8, 0, t->flags,
			     &t->idx);
		if (ret)
			return ret;
		snprintf(t->tp, sizeof(t->tp), "%s", t->name);
		if (t->flags & USER_EVENT_REG_MULTI_FORMAT) {
			sys = UE_SYS_MULTI;
			ret = fz_multi_dir(t->name, t->tp, sizeof(t->tp));
			if (ret)
				return ret;
		}
		ret = ue_set_enable(sys, t->tp, true);
		if (ret)
			return ret;
		if (!t->perf)
			continue;
		id = ue_event_id(sys, t->tp);
		for (cpu = 0; cpu < ncpus; cpu++) {
			if (c->nperf == ARRAY_SIZE(c->perf_fd))
				return -ENOSPC;
			memset(&attr, 0, sizeof(attr));
			attr.size = sizeof(attr);
			attr.type = PERF_TYPE_TRACEPOINT;
			attr.config = id;
			attr.sample_type = PERF_SAMPLE_RAW;
			attr.sample_period = 1;
			ret = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
			if (ret < 0)
				return -errno;
			c->perf_fd[c->nperf++] = ret;
		}
	}
	return 0;
}

static void fz_teardown(struct fz_ctx *c)
{
	struct fz_set s = fz_only(0);
	int i, ret;

	while (c->nperf)
		close(c->perf_fd[--c->nperf]);
	for (i = 0; i < FZ_NTARGETS; i++)
		ue_set_enable(fz_targets[i].flags & USER_EVENT_REG_MULTI_FORMAT ?
			      UE_SYS_MULTI : UE_SYS, fz_targets[i].tp, false);
	fz_unreg_all(c);
	for (i = 0; i < FZ_NTARGETS && !c->sh->failed; i++) {
		ret = ue_unreg(c->fd_tgt, c->en + 8 * i, 0);
		if (!fz_check(c, OP_UNREG, ret, &s))
			fz_fail(c, OP_UNREG, ret, &s, "clean up: target %d", i);
	}
	close(c->fd_tgt);
	close(c->fd_main);
	close(c->fd_aux);
	fz_delete_names(c, false);
}

static void fz_batch(struct fz_shared *sh, __u64 seed, __u64 first,
		     __u64 end, char *baseline)
{
	struct fz_ctx c = { .sh = sh, .seed = seed, .baseline = baseline };
	__u64 rs;
	int ret, r;

	ret = fz_setup(&c);
	if (ret) {
		snprintf(sh->msg, sizeof(sh->msg), "batch set up failed: %s",
			 strerror(-ret));
		sh->failed = 1;
		_exit(1);
	}
	for (c.ncase = first; c.ncase < end && !sh->failed; c.ncase++) {
		rs = fz_mix(seed ^ fz_mix(c.ncase));
		if (c.nlive >= FZ_LIVE_MAX - 1 || c.nnames >= FZ_NAMES_MAX)
			fz_recycle(&c);
		r = fz_n(&rs, 100);
		if (r < 30)
			fz_case_reg(&c, &rs);
		else if (r < 38)
			fz_case_unreg(&c, &rs);
		else if (r < 78)
			fz_case_write(&c, &rs);
		else if (r < 85)
			fz_case_del(&c, &rs);
		else if (r < 95)
			fz_case_dyn(&c, &rs);
		else
			fz_case_misc(&c, &rs);
		sh->done++;
	}
	if (!sh->failed)
		fz_teardown(&c);
	_exit(sh->failed);
}

/* ---------------------------------------------------------------------
 * The test
 */

/* Names of our events left in user_events_status (deleted if possible) */
static int fz_leftovers(char *out, size_t len)
{
	char *text = ue_status_read(), *line, *save, *sp;
	int n = 0, pos = 0;

	out[0] = '\0';
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, FZ_PREFIX, strlen(FZ_PREFIX)))
			continue;
		sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		if (pos < (int)len)
			pos += snprintf(out + pos, len - pos, " %s", line);
		n++;
		sp = strchr(line, '.');	/* multi-format: delete by name */
		if (sp)
			*sp = '\0';
		ue_del_name(line);
	}
	free(text);
	return n;
}

static void fz_replay(__u64 seed, __u64 first, __u64 end)
{
	ksft_print_msg("replay: UE_FUZZ_SEED=0x%llx UE_FUZZ_FIRST=%llu UE_FUZZ_CASES=%llu\n",
		       seed, first, end - first);
}

static long fz_env(const char *name, long def)
{
	const char *val = getenv(name);

	return val ? strtoll(val, NULL, 0) : def;
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	if (geteuid() != 0)
		SKIP(return, "needs root: dynamic_events, perf, PERSIST");
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, seeded, 1800)
{
	__u64 seed = fz_env("UE_FUZZ_SEED", FZ_SEED);
	__u64 cases = fz_env("UE_FUZZ_CASES", FZ_CASES);
	__u64 first = fz_env("UE_FUZZ_FIRST", 0), b, end, total = 0;
	int active0, busy0, active, busy, status, op, e, n, failed = 0;
	struct fz_shared *sh;
	struct timespec start;
	char left[512], line[1024];
	char *baseline;
	pid_t pid;

	first -= first % FZ_BATCH;
	ksft_print_msg("fuzz: seed 0x%llx, cases %llu..%llu, batches of %d\n",
		       seed, first, first + cases - 1, FZ_BATCH);

	/* delete what an interrupted earlier run may have left */
	fz_leftovers(left, sizeof(left));
	ASSERT_EQ(0, fz_leftovers(left, sizeof(left))) TH_LOG("%s", left);
	ASSERT_TRUE(ue_status_counts(&active0, &busy0));
	baseline = ue_status_read();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (b = first; b < first + cases; b += FZ_BATCH) {
		end = first + cases;
		if (end > b + FZ_BATCH)
			end = b + FZ_BATCH;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			fz_batch(sh, seed, b, end, baseline);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		total = sh->done;

		if (!sh->failed && status)
			snprintf(sh->msg, sizeof(sh->msg),
				 "batch %llu..%llu: child status 0x%x", b,
				 end - 1, status);
		if (sh->failed || status) {
			/* a case failed: stop here, the state is unknown */
			ksft_print_msg("fuzz FAILED: %s\n", sh->msg);
			fz_replay(seed, b, end);
			failed++;
			break;
		}
		/* every event of the batch is gone; report, clean, go on */
		n = fz_leftovers(left, sizeof(left));
		if (!ue_status_counts(&active, &busy) || n ||
		    active != active0 || busy != busy0) {
			ksft_print_msg("fuzz FAILED after batch %llu..%llu:\n",
				       b, end - 1);
			ksft_print_msg("fuzz: Active %d Busy %d (before %d %d)\n",
				       active, busy, active0, busy0);
			ksft_print_msg("fuzz: %d events left:%s\n", n, left);
			fz_replay(seed, b, end);
			failed++;
		}
	}

	ksft_print_msg("fuzz: %llu cases in %.1f s (seed 0x%llx)\n", total,
		       ue_elapsed(&start), seed);
	ksft_print_msg("fuzz: %llu predicted exactly, %llu events created\n",
		       sh->predicted, sh->created);
	for (op = 0; op < OP_NR; op++) {
		n = snprintf(line, sizeof(line), "%s: ok %llu", fz_op_name[op],
			     sh->hist[op][0]);
		for (e = 1; e <= FZ_ERRNO_MAX; e++)
			if (sh->hist[op][e])
				n += snprintf(line + n, sizeof(line) - n,
					      " %s %llu", e < FZ_ERRNO_MAX ?
					      fz_errname(e) : "other",
					      sh->hist[op][e]);
		ksft_print_msg("fuzz: %s\n", line);
	}
	EXPECT_EQ(0, failed);
	EXPECT_EQ(cases, total);
	free(baseline);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
