// SPDX-License-Identifier: GPL-2.0
/*
 * ueconf: seeded generator and executor of user_events operation sequences
 * for the differential conformance harness (workbench/conformance.sh).
 *
 *   ueconf --seed S --count N [--from K]     run sequences K .. K+N-1
 *   ueconf --seed S --batch FILE              run "ID SEQ OPS" lines, OPS
 *                                             being "all" or "i,j,k" (the
 *                                             op numbers of SEQ to keep)
 *   ueconf --seed S --seq I --list            print the ops of sequence I
 *   ueconf --seed S --list --batch FILE       the ops of each "ID SEQ" line,
 *                                             "ID OP ..." with the text escaped
 *   ueconf --seed S --seq I [--ops i,j,k]     run sequence I (those ops only)
 *
 * Sequence I depends only on (S, I): its operations are drawn completely
 * before any of them runs, so a subset of them (shrinking) means the same
 * thing.  Each sequence runs in a child process (enable registrations belong
 * to the address space and go away with it); the parent then removes every
 * event left and waits, bounded, until user_events_status is empty.
 *
 * Output: one observation per line, "ID.OP text" (OP = op number, "c" for
 * the clean-up after the sequence, "e" for the state at its end).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ue_gen.h"

typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TRACEFS "/sys/kernel/tracing"
#define MAX_OPS 16
#define NSLOTS 3	/* event names per sequence */
#define NFDS 3		/* user_events_data files per sequence */
#define NWORDS 8	/* enable words in the enable page */
#define CMD_MAX 2048
#define PAYLOAD_MAX 9000

/* ------------------------------------------------------------------ */
/* random numbers: one stream per sequence, the grammar's (ue_gen.c) */

static struct ue_gen gen;

#define rnd64()		ue_gen_rnd64(&gen)
#define rnd(n)		ue_gen_rnd(&gen, n)
#define chance(p)	ue_gen_chance(&gen, p)
#define pick(w, n)	ue_gen_pick(&gen, w, n)

/* ------------------------------------------------------------------ */
/* sequence description */

enum op_kind {
	OP_REG, OP_UNREG, OP_DEL, OP_DYN, OP_WRITE, OP_MAX, OP_FTRACE,
	OP_PERF, OP_OPEN, OP_CLOSE, OP_STATUS, OP_KINDS
};

static const char *const op_names[] = {
	"reg", "unreg", "del", "dyn", "write", "max", "ftrace", "perf",
	"open", "close", "status",
};

/* where an enable (or disable) address points */
enum addr_kind {
	A_WORD, A_UNALIGNED, A_RDONLY, A_UNMAPPED, A_SECRET, A_STACK, A_NULL,
	A_KERNEL, A_PAGE_END, A_KINDS
};

static const char *const addr_names[] = {
	"word", "unaligned", "rdonly", "unmapped", "secret", "stack", "null",
	"kernel", "pageend",
};

struct op {
	int kind;
	int fd;			/* fd slot */
	int slot;		/* event name slot */
	int ref;		/* op number of a registration, or -1 */
	char *text;		/* command, dynamic_events line, name */
	/* reg / unreg */
	u32 size;
	int tail;		/* reg: 0 zero tail, 1 non-zero tail */
	int flags;
	int esize;
	int bit;
	int akind;
	int aoff;		/* word number or byte offset */
	int nullname;
	int resv;		/* unreg: reserved fields non-zero */
	/* layout of the command (reg) */
	int nfields;
	struct ue_gen_field *fields;
	/* write */
	int idxmode;		/* 0 ref's index, 1 raw value */
	s32 rawidx;
	int plen;		/* payload length mode */
	int dynmode;
	int vec;		/* 0 write, 1 writev whole, 2 writev split idx */
	u64 pseed;
	long value;		/* max; ftrace on/off; perf */
};

struct seq {
	u64 id;
	int nops;
	struct op ops[MAX_OPS];
	char *names[NSLOTS];
	char *fieldtext[NSLOTS];	/* the slot's usual field list */
	int nf[NSLOTS];
	struct ue_gen_field gf[NSLOTS][UE_GEN_FIELDS_MAX];
	/* names whose NAME.<hex> is normalised: slots, registered commands */
	char *mnames[NSLOTS + MAX_OPS];
	int nmnames;
};

static u64 seed;
static struct seq S;	/* the sequence being run */

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		abort();
	return p;
}

/* whole command for a slot: name, separator, fields, decorations */
static char *gen_cmd(struct seq *s, int slot, struct op *o, int variant)
{
	struct ue_gen_buf b = { .len = 0 };

	ue_gen_add(&b, "%s", ue_gen_lead(&gen));
	ue_gen_add(&b, "%s", s->names[slot]);
	if (variant == 0) {
		if (s->fieldtext[slot][0])
			ue_gen_add(&b, "%s%s", ue_gen_gap(&gen), s->fieldtext[slot]);
		o->nfields = s->nf[slot];
		o->fields = s->gf[slot];
	} else {
		struct ue_gen_buf f = { .len = 0 };

		o->fields = calloc(UE_GEN_FIELDS_MAX, sizeof(struct ue_gen_field));
		if (!o->fields)
			abort();
		o->nfields = ue_gen_fields(&gen, &f, o->fields);
		if (f.len)
			ue_gen_add(&b, " %s", f.buf);
	}
	if (chance(4))
		ue_gen_add(&b, " ");
	if (chance(3))
		ue_gen_add(&b, "\n");
	return xstrdup(b.buf);
}

/* ---- operations ---- */

static int reg_ops_before(struct seq *s, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		if (s->ops[i].kind == OP_REG)
			return i;
	return -1;
}

static int any_reg_before(struct seq *s, int n)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if (s->ops[i].kind == OP_REG)
			c++;
	if (!c)
		return -1;
	c = rnd(c);
	for (i = 0; i < n; i++)
		if (s->ops[i].kind == OP_REG && c-- == 0)
			return i;
	return -1;
}

static void gen_reg(struct seq *s, struct op *o, int n)
{
	static const int vw[] = { 70, 20, 10 };
	static const int sizes[] = { 28, 28, 28, 28, 28, 28, 32, 64, 27, 8, 0,
				     4096, 4097, 100000 };
	static const int fw[] = { 50, 12, 20, 12, 2, 1, 1 };
	static const int flags[] = { 0, USER_EVENT_REG_PERSIST,
				     USER_EVENT_REG_MULTI_FORMAT,
				     USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT,
				     USER_EVENT_REG_MAX, 0x8000, 0xffff };
	static const int ew[] = { 48, 48, 1, 1, 1, 1, 1 };
	static const int esz[] = { 4, 8, 0, 1, 2, 16, 3 };
	static const int aw[] = { 84, 3, 2, 2, 2, 2, 2, 1, 2 };
	int prev = reg_ops_before(s, n), variant;

	o->slot = rnd(NSLOTS);
	o->fd = chance(85) ? 0 : rnd(NFDS);
	variant = pick(vw, ARRAY_SIZE(vw));
	if (variant == 2) {	/* some other command text entirely */
		struct ue_gen_buf b = { .len = 0 };

		ue_gen_name(&gen, &b);
		if (chance(70)) {
			struct ue_gen_buf f = { .len = 0 };

			o->fields = calloc(UE_GEN_FIELDS_MAX, sizeof(struct ue_gen_field));
			if (!o->fields)
				abort();
			o->nfields = ue_gen_fields(&gen, &f, o->fields);
			ue_gen_add(&b, " %s", f.buf);
		}
		o->text = xstrdup(b.buf);
	} else {
		o->text = gen_cmd(s, o->slot, o, variant);
	}
	o->size = sizes[rnd(ARRAY_SIZE(sizes))];
	if (chance(80))
		o->size = 28;
	o->tail = chance(30);
	o->flags = flags[pick(fw, ARRAY_SIZE(fw))];
	o->esize = esz[pick(ew, ARRAY_SIZE(ew))];
	o->akind = pick(aw, ARRAY_SIZE(aw));
	o->aoff = rnd(NWORDS);
	if (o->akind == A_UNALIGNED)
		o->aoff = o->aoff * 8 + 1 + rnd(7);
	o->bit = o->esize == 8 ? rnd(64) : rnd(32);
	if (chance(4))
		o->bit = 32 + rnd(39);
	o->nullname = chance(2);
	/* the same address and bit as an earlier registration */
	if (prev >= 0 && chance(15)) {
		struct op *p = &s->ops[prev];

		o->akind = p->akind;
		o->aoff = p->aoff;
		o->bit = p->bit;
		o->esize = p->esize;
		if (chance(50)) {	/* or the very same registration */
			free(o->text);
			o->text = xstrdup(p->text);
			o->nfields = p->nfields;
			o->fields = p->fields;
			o->slot = p->slot;
			o->flags = p->flags;
			o->size = p->size;
			o->tail = p->tail;
		}
	}
}

static void gen_unreg(struct seq *s, struct op *o, int n)
{
	static const int sizes[] = { 16, 16, 16, 16, 15, 20, 8, 0, 4097 };
	int r = any_reg_before(s, n);

	o->fd = chance(85) ? 0 : rnd(NFDS);
	o->ref = chance(85) ? r : -1;
	o->size = sizes[rnd(ARRAY_SIZE(sizes))];
	o->tail = chance(20);
	o->resv = chance(8) ? 1 + rnd(3) : 0;
	o->akind = chance(80) ? A_WORD : rnd(A_KINDS);
	o->aoff = rnd(NWORDS);
	o->bit = rnd(64);
	if (o->ref >= 0 && chance(15))
		o->bit = (s->ops[o->ref].bit + 1) % 64;
	if (o->ref >= 0 && chance(10))
		o->aoff = (s->ops[o->ref].aoff + 1) % NWORDS;
}

static void gen_dyn(struct seq *s, struct op *o)
{
	static const int w[] = { 30, 6, 20, 6, 6, 5, 5, 5, 5, 4, 4 };
	struct ue_gen_buf b = { .len = 0 };
	int slot = rnd(NSLOTS);
	const char *nm = s->names[slot];

	o->slot = slot;
	switch (pick(w, ARRAY_SIZE(w))) {
	case 0:
		ue_gen_add(&b, "u:%s%s%s", nm, s->fieldtext[slot][0] ? " " : "",
			   s->fieldtext[slot]);
		break;
	case 1:
		ue_gen_add(&b, "u: %s", nm);
		break;
	case 2:
		ue_gen_add(&b, "-:%s", nm);
		break;
	case 3:
		ue_gen_add(&b, "-:user_events/%s", nm);
		break;
	case 4:
		ue_gen_add(&b, "-:user_events_multi/%s", nm);
		break;
	case 5:
		ue_gen_add(&b, "!u:%s %s", nm, s->fieldtext[slot]);
		break;
	case 6:		/* upstream cannot delete an event named "SYS/NAME" */
		ue_gen_add(&b, "u:%s u32 a;u32 b", nm);
		break;
	case 7:
		ue_gen_add(&b, "-:mysys/%s", nm);
		break;
	case 8:
		{
			struct ue_gen_field gf[UE_GEN_FIELDS_MAX];
			struct ue_gen_buf f = { .len = 0 };

			ue_gen_fields(&gen, &f, gf);
			ue_gen_add(&b, "u:%s %s", nm, f.buf);
		}
		break;
	case 9:
		ue_gen_add(&b, "u:%s:BPF_ITER u32 a", nm);
		break;
	case 10:
		ue_gen_add(&b, "u:%s\tu32 a", nm);
		break;
	}
	if (chance(30))
		ue_gen_add(&b, "\n");
	o->text = xstrdup(b.buf);
}

static void gen_write(struct seq *s, struct op *o, int n)
{
	static const int iw[] = { 85, 15 };
	static const s32 raw[] = { -1, 1, 2, 7, 100, 65536, INT_MIN,
				       INT_MAX };
	static const int pw[] = { 40, 10, 8, 8, 8, 6, 5, 5, 5, 5 };

	o->fd = chance(85) ? 0 : rnd(NFDS);
	o->ref = any_reg_before(s, n);
	o->idxmode = o->ref < 0 ? 1 : pick(iw, ARRAY_SIZE(iw));
	o->rawidx = raw[rnd(ARRAY_SIZE(raw))];
	if (chance(30))
		o->rawidx = 0;
	o->plen = pick(pw, ARRAY_SIZE(pw));
	o->dynmode = rnd(8);
	o->vec = rnd(10) < 6 ? 0 : (chance(50) ? 1 : 2);
	o->pseed = rnd64();
}

static void gen_seq(struct seq *s, u64 id)
{
	static const int kw[] = {
		[OP_REG] = 34, [OP_UNREG] = 7, [OP_DEL] = 6, [OP_DYN] = 7,
		[OP_WRITE] = 22, [OP_MAX] = 3, [OP_FTRACE] = 9, [OP_PERF] = 5,
		[OP_OPEN] = 2, [OP_CLOSE] = 3, [OP_STATUS] = 2,
	};
	static const long maxv[] = { 0, 1, 2, 3, 5, 32768, -1, 4294967296L };
	int i;

	memset(s, 0, sizeof(*s));
	s->id = id;
	gen.rng = seed ^ (id * 0xd1342543de82ef95ULL) ^ 0x5eed;
	rnd64();
	for (i = 0; i < NSLOTS; i++) {
		struct ue_gen_buf b = { .len = 0 }, f = { .len = 0 };

		ue_gen_name(&gen, &b);
		if (i && chance(10))	/* sometimes two slots share a name */
			s->names[i] = xstrdup(s->names[i - 1]);
		else
			s->names[i] = xstrdup(b.buf);
		s->nf[i] = ue_gen_fields(&gen, &f, s->gf[i]);
		s->fieldtext[i] = xstrdup(f.buf);
	}
	s->nops = 1 + rnd(chance(20) ? MAX_OPS : 8);
	for (i = 0; i < s->nops; i++) {
		struct op *o = &s->ops[i];

		o->ref = -1;
		o->kind = i == 0 && chance(80) ? OP_REG : pick(kw, ARRAY_SIZE(kw));
		switch (o->kind) {
		case OP_REG:
			gen_reg(s, o, i);
			break;
		case OP_UNREG:
			gen_unreg(s, o, i);
			break;
		case OP_DEL:
			o->fd = rnd(NFDS);
			o->slot = rnd(NSLOTS);
			o->text = xstrdup(chance(90) ? s->names[o->slot] : "nosuchevent");
			break;
		case OP_DYN:
			gen_dyn(s, o);
			break;
		case OP_WRITE:
			gen_write(s, o, i);
			break;
		case OP_MAX:
			o->value = maxv[rnd(ARRAY_SIZE(maxv))];
			break;
		case OP_FTRACE:
			o->slot = rnd(NSLOTS);
			o->value = chance(75);
			o->flags = chance(25);	/* the multi-format twin */
			break;
		case OP_PERF:
			o->slot = rnd(NSLOTS);
			o->flags = chance(25);
			break;
		case OP_OPEN:
		case OP_CLOSE:
			o->fd = rnd(NFDS);
			break;
		case OP_STATUS:
			break;
		}
	}
}

/* the names the commands of a sequence register under */
static void gen_mnames(struct seq *s)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		s->mnames[s->nmnames++] = xstrdup(s->names[i]);
	for (i = 0; i < s->nops; i++) {
		const char *t = s->ops[i].text;
		char *nm;

		if (s->ops[i].kind != OP_REG || !t)
			continue;
		while (*t == ' ' || *t == '\t')
			t++;
		nm = strndup(t, strcspn(t, " "));
		if (!nm)
			abort();
		s->mnames[s->nmnames++] = nm;
	}
}

static void free_seq(struct seq *s)
{
	int i;

	for (i = 0; i < s->nops; i++) {
		if (s->ops[i].fields && s->ops[i].fields != s->gf[s->ops[i].slot]) {
			int j, shared = 0;

			for (j = 0; j < i; j++)
				if (s->ops[j].fields == s->ops[i].fields)
					shared = 1;
			if (!shared)
				free(s->ops[i].fields);
		}
		free(s->ops[i].text);
	}
	for (i = 0; i < NSLOTS; i++) {
		free(s->names[i]);
		free(s->fieldtext[i]);
	}
	for (i = 0; i < s->nmnames; i++)
		free(s->mnames[i]);
	s->nmnames = 0;
}

/* the text of an op on one line: \\, \" and bytes outside 0x20..0x7e escaped */
static void print_escaped(const char *t)
{
	for (; *t; t++) {
		unsigned char c = *t;

		if (c == '\\' || c == '"')
			printf("\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

/* prefix: NULL for the readable listing (text as is), else each line's */
static void print_ops(struct seq *s, const char *prefix)
{
	int i;

	for (i = 0; i < s->nops; i++) {
		struct op *o = &s->ops[i];

		printf("%s%s%d %s fd=%d slot=%d ref=%d size=%u flags=%#x esize=%d bit=%d ",
		       prefix ? prefix : "", prefix ? " " : "",
		       i, op_names[o->kind], o->fd, o->slot, o->ref, o->size,
		       o->flags, o->esize, o->bit);
		printf("addr=%s+%d idx=%s/%d plen=%d dyn=%d vec=%d value=%ld text=\"",
		       addr_names[o->akind], o->aoff,
		       o->idxmode ? "raw" : "ref", o->rawidx, o->plen,
		       o->dynmode, o->vec, o->value);
		if (prefix)
			print_escaped(o->text ? o->text : "");
		else
			fputs(o->text ? o->text : "", stdout);
		fputs("\"\n", stdout);
	}
}

/* --list --batch FILE: the ops of each "ID SEQ ..." line, one op a line */
static int list_batch(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], id[64];
	unsigned long long sq;

	if (!f) {
		perror(path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu", id, &sq) != 2)
			continue;
		gen_seq(&S, sq);
		print_ops(&S, id);
		free_seq(&S);
	}
	fclose(f);
	return 0;
}

/* ------------------------------------------------------------------ */
/* execution (in the child) */

static const char *run_id;
static int cur_op;

static void obs(const char *fmt, ...)
{
	va_list ap;

	if (cur_op >= 0)
		printf("%s.%d:%s ", run_id, cur_op, op_names[S.ops[cur_op].kind]);
	else
		printf("%s.%s ", run_id, cur_op == -1 ? "e:end" : "c:clean");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *err_name(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EADDRINUSE: return "EADDRINUSE";
	case EALREADY: return "EALREADY";
	case ENODATA: return "ENODATA";
	case EOVERFLOW: return "EOVERFLOW";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

/* "ret=V" or "err=NAME" */
static const char *rstr(long ret, int e)
{
	static char buf[64];

	if (ret < 0)
		snprintf(buf, sizeof(buf), "err=%s", err_name(e));
	else
		snprintf(buf, sizeof(buf), "ret=%ld", ret);
	return buf;
}

static u64 fnv(const void *p, size_t n)
{
	const unsigned char *c = p;
	u64 h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* NAME.<hex> of a multi-format event of this sequence becomes NAME.M */
static size_t norm_multi(char *out, size_t size, const char *t, size_t n)
{
	size_t i = 0, o = 0;
	int k;

	while (i < n && o < size - 4) {
		for (k = 0; k < S.nmnames; k++) {
			size_t l = strlen(S.mnames[k]), j;

			if (!S.mnames[k][0] || i + l + 1 >= n ||
			    memcmp(t + i, S.mnames[k], l) || t[i + l] != '.')
				continue;
			if (i && is_word(t[i - 1]))
				continue;
			for (j = i + l + 1; j < n && strchr("0123456789abcdef", t[j]); j++)
				;
			if (j == i + l + 1 || (j < n && is_word(t[j])))
				continue;
			if (o + l + 3 >= size)
				break;
			memcpy(out + o, t + i, l);
			o += l;
			memcpy(out + o, ".M", 2);
			o += 2;
			i = j;
			break;
		}
		if (k == S.nmnames)
			out[o++] = t[i++];
	}
	out[o] = 0;
	return o;
}

/* print a possibly long, possibly binary text compactly and unambiguously */
static void obs_text(const char *tag, const char *t0, size_t n0)
{
	static char nbuf[1 << 16];
	size_t n = norm_multi(nbuf, sizeof(nbuf), t0,
			      n0 < sizeof(nbuf) - 8 ? n0 : sizeof(nbuf) - 8);
	const char *t = nbuf;
	char buf[200];
	size_t i, o = 0;

	for (i = 0; i < n && o < sizeof(buf) - 5; i++) {
		unsigned char c = t[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = c;
		else
			o += snprintf(buf + o, 5, "\\x%02x", c);
	}
	buf[o] = 0;
	if (i < n)
		obs("%s %s... len=%zu h=%016llx", tag, buf, n,
		    (unsigned long long)fnv(t, n));
	else
		obs("%s %s", tag, buf);
}

static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, len = 0;

	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

static int write_str(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret, e;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	return ret < 0 ? -e : 0;
}

/* state of a running sequence */
static int keep[MAX_OPS];
static int fds[NFDS];
static int widx[MAX_OPS];	/* write_index of successful regs, -1 */
static int regok[MAX_OPS];
static unsigned char *epage;	/* enable words */
static unsigned char *ropage, *unmapped, *secret;
static u64 *stackword;
static u64 shown[NWORDS + 2];
static int ftrace_used, formats_shown[NSLOTS * 2];
static int perf_fd[4], nperf;
static void *perf_ring[4];

#define RING_PAGES 8
#define dynfile TRACEFS "/dynamic_events"

static void *stack_thread(void *arg)
{
	u64 word = 0;
	int *pfd = arg;
	char c;

	stackword = &word;
	__atomic_store_n(&pfd[1], -2, __ATOMIC_RELEASE);
	/* the word lives as long as the child */
	while (read(pfd[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static u64 *get_stackword(void)
{
	static int pfd[2];
	pthread_t t;

	if (stackword)
		return stackword;
	if (pipe(pfd))
		return NULL;
	if (pthread_create(&t, NULL, stack_thread, pfd))
		return NULL;
	while (__atomic_load_n(&pfd[1], __ATOMIC_ACQUIRE) != -2)
		sched_yield();
	return stackword;
}

static u64 addr_of(int kind, int off)
{
	switch (kind) {
	case A_WORD:
		return (u64)(uintptr_t)(epage + 8 * (off % NWORDS));
	case A_UNALIGNED:
		return (u64)(uintptr_t)(epage + off % (8 * NWORDS));
	case A_RDONLY:
		return (u64)(uintptr_t)ropage;
	case A_UNMAPPED:
		return (u64)(uintptr_t)unmapped;
	case A_SECRET:
		if (!secret) {
			int fd = syscall(SYS_memfd_secret, 0);

			if (fd >= 0 && ftruncate(fd, 4096) == 0)
				secret = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					      MAP_SHARED, fd, 0);
			if (secret == MAP_FAILED)
				secret = NULL;
			if (fd >= 0)
				close(fd);
			if (secret)
				memset(secret, 0, 8);
		}
		return (u64)(uintptr_t)secret;
	case A_STACK:
		return (u64)(uintptr_t)get_stackword();
	case A_NULL:
		return 0;
	case A_KERNEL:
		return 0xffffffff81000000ULL;
	case A_PAGE_END:
		return (u64)(uintptr_t)(epage + 4096 - 4);
	}
	return 0;
}

static void show_words(void)
{
	u64 v[NWORDS + 2];
	int i;

	for (i = 0; i < NWORDS; i++)
		memcpy(&v[i], epage + 8 * i, 8);
	v[NWORDS] = secret ? __atomic_load_n((u64 *)secret, __ATOMIC_RELAXED) : 0;
	v[NWORDS + 1] = stackword ? __atomic_load_n(stackword, __ATOMIC_RELAXED) : 0;
	for (i = 0; i < NWORDS + 2; i++) {
		if (v[i] == shown[i])
			continue;
		if (i < NWORDS)
			obs("word%d=%#llx", i, (unsigned long long)v[i]);
		else
			obs("%s=%#llx", i == NWORDS ? "secret" : "stack",
			    (unsigned long long)v[i]);
		shown[i] = v[i];
	}
}

/* status: names sorted, multi-format suffixes normalised */
static int name_slot(const char *tp, size_t len, int *multi)
{
	int i;

	*multi = 0;
	for (i = 0; i < NSLOTS; i++) {
		size_t n = strlen(S.names[i]);
		const char *p;

		if (len == n && !memcmp(tp, S.names[i], n))
			return i;
		if (len > n + 1 && !memcmp(tp, S.names[i], n) && tp[n] == '.') {
			for (p = tp + n + 1; p < tp + len; p++)
				if (!strchr("0123456789abcdef", *p))
					break;
			if (p == tp + len) {
				*multi = 1;
				return i;
			}
		}
	}
	return -1;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char statbuf[1 << 16];

/* find the tracepoint name of slot's (multi-format) event in the status */
static int find_tp(int slot, int multi, char *out, size_t size)
{
	char *line, *save = NULL;

	if (!multi) {
		snprintf(out, size, "user_events/%s", S.names[slot]);
		return 0;
	}
	if (read_file(TRACEFS "/user_events_status", statbuf, sizeof(statbuf)) < 0)
		return -1;
	for (line = strtok_r(statbuf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		int m;

		if (sp)
			*sp = 0;
		if (name_slot(line, strlen(line), &m) == slot && m) {
			snprintf(out, size, "user_events_multi/%s", line);
			return 0;
		}
	}
	return -1;
}

static void show_status(void)
{
	char *lines[512], *line, *save = NULL;
	int n = 0, i;

	if (read_file(TRACEFS "/user_events_status", statbuf, sizeof(statbuf)) < 0) {
		obs("status unreadable %s", err_name(errno));
		return;
	}
	for (line = strtok_r(statbuf, "\n", &save); line && n < 512;
	     line = strtok_r(NULL, "\n", &save))
		lines[n++] = line;
	qsort(lines, n, sizeof(lines[0]), cmpstr);
	for (i = 0; i < n; i++) {
		char *sp = strchr(lines[i], ' ');
		size_t len = sp ? (size_t)(sp - lines[i]) : strlen(lines[i]);
		int multi, slot = name_slot(lines[i], len, &multi);

		if (slot >= 0 && multi)
			obs("status %.*s.M%s", (int)strlen(S.names[slot]), lines[i],
			    sp ? sp : "");
		else
			obs_text("status", lines[i], strlen(lines[i]));
	}
}

static char fmtbuf[1 << 16];

static void show_format(int slot, int multi)
{
	char path[1024], tp[700], *line, *save = NULL;

	if (formats_shown[slot * 2 + multi])
		return;
	formats_shown[slot * 2 + multi] = 1;
	if (find_tp(slot, multi, tp, sizeof(tp))) {
		obs("format %d%s: no tracepoint", slot, multi ? "m" : "");
		return;
	}
	snprintf(path, sizeof(path), TRACEFS "/events/%s/format", tp);
	if (read_file(path, fmtbuf, sizeof(fmtbuf)) < 0) {
		obs("format %d%s: %s", slot, multi ? "m" : "", err_name(errno));
		return;
	}
	for (line = strtok_r(fmtbuf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *t = line, norm[4096];
		const char *tpn = strchr(tp, '/') + 1;
		size_t o = 0, tl = strlen(tpn);

		if (!strncmp(line, "ID:", 3))
			continue;
		/* the multi-format suffix */
		while (*t && o < sizeof(norm) - 8) {
			if (multi && !strncmp(t, tpn, tl)) {
				o += snprintf(norm + o, sizeof(norm) - o, "%s.M",
					      S.names[slot]);
				t += tl;
			} else {
				norm[o++] = *t++;
			}
		}
		norm[o] = 0;
		obs_text("format", norm, o);
	}
}

static void show_dynamic_events(void)
{
	char *lines[512], *line, *save = NULL;
	int n = 0, i;

	if (read_file(dynfile, statbuf, sizeof(statbuf)) < 0) {
		obs("dynamic_events unreadable %s", err_name(errno));
		return;
	}
	for (line = strtok_r(statbuf, "\n", &save); line && n < 512;
	     line = strtok_r(NULL, "\n", &save))
		lines[n++] = line;
	qsort(lines, n, sizeof(lines[0]), cmpstr);
	for (i = 0; i < n; i++)
		obs_text("dynev", lines[i], strlen(lines[i]));
}

static char tracebuf[1 << 20];

static void show_trace(void)
{
	char *line, *save = NULL;

	if (read_file(TRACEFS "/trace", tracebuf, sizeof(tracebuf)) < 0) {
		obs("trace unreadable %s", err_name(errno));
		return;
	}
	for (line = strtok_r(tracebuf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		while (*line == ' ')
			line++;
		obs_text("trace", line, strlen(line));
	}
	write_str(TRACEFS "/trace", "", O_TRUNC);
}

static void drain_perf(void)
{
	int i;

	for (i = 0; i < nperf; i++) {
		struct perf_event_mmap_page *pg = perf_ring[i];
		unsigned char *data = (unsigned char *)perf_ring[i] + 4096;
		u64 size = 4096ULL * RING_PAGES, head, tail;

		if (!pg)
			continue;
		head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		tail = pg->data_tail;
		while (tail < head) {
			struct perf_event_header h;
			unsigned char rec[70000];
			u64 k;

			for (k = 0; k < sizeof(h); k++)
				((unsigned char *)&h)[k] = data[(tail + k) % size];
			for (k = 0; k < h.size && k < sizeof(rec); k++)
				rec[k] = data[(tail + k) % size];
			if (h.type == PERF_RECORD_SAMPLE && h.size >= 12) {
				u32 rsz;

				memcpy(&rsz, rec + 8, 4);
				/* skip the common header (type holds the id) */
				if (rsz >= 8 && 12 + rsz <= h.size)
					obs_text("perf", (char *)rec + 12 + 8, rsz - 8);
				else
					obs("perf raw size %u", rsz);
			} else if (h.type == PERF_RECORD_LOST) {
				obs("perf lost");
			}
			if (!h.size)
				break;
			tail += h.size;
		}
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	}
}

/* ---- the operations ---- */

static void do_reg(struct op *o, int n)
{
	unsigned char buf[4200 + 8];
	struct user_reg *r = (void *)buf;
	u64 addr = addr_of(o->akind, o->aoff);
	int fd = fds[o->fd], ret, e;

	memset(buf, 0, sizeof(buf));
	r->size = o->size;
	r->enable_bit = o->bit;
	r->enable_size = o->esize;
	r->flags = o->flags;
	r->enable_addr = addr;
	r->name_args = o->nullname ? 0 : (u64)(uintptr_t)o->text;
	r->write_index = 0xdead;
	if (o->tail && o->size > sizeof(*r))
		buf[sizeof(*r) + (o->size - sizeof(*r)) % 32] = 1;
	if (o->size > sizeof(buf)) {
		/* bigger than a page: the kernel looks at the size only */
		r->size = o->size;
	}
	ret = ioctl(fd, DIAG_IOCSREG, r);
	e = errno;
	if (ret == 0) {
		obs("reg %s idx=%u", rstr(ret, e), r->write_index);
		widx[n] = r->write_index;
		regok[n] = 1;
	} else {
		obs("reg %s", rstr(ret, e));
	}
	show_words();
	if (ret == 0 && o->slot >= 0) {
		size_t len = strlen(S.names[o->slot]);
		const char *t = o->text;

		while (*t == ' ' || *t == '\t')
			t++;
		/* only commands that start with the slot's name */
		if (!strncmp(t, S.names[o->slot], len) &&
		    (t[len] == 0 || t[len] == ' ' || t[len] == '\t' ||
		     t[len] == '\n'))
			show_format(o->slot, !!(o->flags & USER_EVENT_REG_MULTI_FORMAT));
	}
}

static void do_unreg(struct op *o)
{
	unsigned char buf[4200];
	struct user_unreg *u = (void *)buf;
	int ret, e;

	memset(buf, 0, sizeof(buf));
	u->size = o->size;
	if (o->ref >= 0) {
		struct op *r = &S.ops[o->ref];

		u->disable_addr = addr_of(r->akind, r->aoff);
		u->disable_bit = r->bit;
		if (o->bit != r->bit && o->bit % 7 == 0)
			u->disable_bit = o->bit;
	} else {
		u->disable_addr = addr_of(o->akind, o->aoff);
		u->disable_bit = o->bit;
	}
	if (o->resv & 1)
		u->__reserved = 1;
	if (o->resv & 2)
		u->__reserved2 = 0x100;
	if (o->tail && o->size > sizeof(*u))
		buf[o->size - 1] = 7;
	ret = ioctl(fds[o->fd], DIAG_IOCSUNREG, u);
	e = errno;
	obs("unreg %s", rstr(ret, e));
	show_words();
}

static void do_del(struct op *o)
{
	int ret = ioctl(fds[o->fd], DIAG_IOCSDEL, o->text), e = errno;

	obs("del %s", rstr(ret, e));
	show_words();
}

static void do_dyn(struct op *o)
{
	int ret = write_str(dynfile, o->text, O_APPEND);

	obs("dyn %s", ret ? err_name(-ret) : "ok");
	if (!ret && o->text[0] == 'u')
		show_format(o->slot, 0);
	show_words();
}

/* payload: the index, then the fields as the command laid them out */
static unsigned char pbuf[PAYLOAD_MAX + 64];

static size_t build_payload(struct op *o, s32 idx)
{
	struct op *r = o->ref >= 0 ? &S.ops[o->ref] : NULL;
	static const int big[] = { 4055, 4056, 4057, 4096, 8192, 8200, 8999 };
	size_t fixed = 0, len, i, pos, dynat;
	u64 save = gen.rng;

	gen.rng = o->pseed;
	for (i = 0; i < sizeof(pbuf); i++)
		pbuf[i] = 'a' + rnd(26);
	if (chance(30))
		for (i = 0; i < sizeof(pbuf); i++)
			pbuf[i] = rnd(256);
	memcpy(pbuf, &idx, 4);
	if (r)
		for (i = 0; i < (size_t)r->nfields; i++)
			fixed += r->fields[i].size;
	switch (o->plen) {
	case 0:
		len = fixed + rnd(3) * 8 + (o->dynmode ? 40 : 0);
		break;
	case 1:
		len = fixed;
		break;
	case 2:
		len = fixed ? fixed - 1 : 0;
		break;
	case 3:
		len = 0;
		break;
	case 4:
		len = 1 + rnd(3);
		break;
	case 5:
		len = rnd(64);
		break;
	case 6:
		len = big[rnd(ARRAY_SIZE(big))] - 4;
		break;
	case 7:
		len = fixed + 1024;
		break;
	default:
		len = fixed + rnd(200);
		break;
	}
	if (len > PAYLOAD_MAX - 4)
		len = PAYLOAD_MAX - 4;
	/* dynamic words */
	pos = 0;
	dynat = fixed;
	for (i = 0; r && i < (size_t)r->nfields; i++) {
		struct ue_gen_field *g = &r->fields[i];
		u32 off, sz, w;

		if (g->dyn && pos + 4 <= len) {
			sz = 1 + rnd(24);
			off = dynat;
			switch (o->dynmode) {
			case 1:
				off = len + rnd(16);	/* outside */
				break;
			case 2:
				sz = len;		/* too long */
				break;
			case 3:
				sz = 0;
				break;
			case 4:
				off = rnd(8);		/* into the fixed part */
				break;
			}
			if (off + sz <= len) {
				memset(pbuf + 4 + off, 'x', sz);
				/* strings: NUL terminated unless mode 5 */
				if (o->dynmode != 5 && sz)
					pbuf[4 + off + sz - 1] = 0;
				dynat = off + sz;
			}
			/*
			 * __data_loc offsets count from the start of the
			 * record, whose 8-byte common header (type, flags,
			 * preempt count, pid) precedes the payload; never
			 * point there (the pid and type differ between runs).
			 * __rel_loc ones count from the end of their word.
			 */
			w = g->dyn == 2 ? off - (pos + 4) : off + 8;
			if (o->dynmode == 6)
				w = off + 8;	/* absolute in a rel_loc */
			memcpy(pbuf + 4 + pos, &(u32){ (sz << 16) | (w & 0xffff) }, 4);
		}
		pos += g->size;
	}
	gen.rng = save;
	return len + 4;
}

static void do_write(struct op *o)
{
	s32 idx = o->rawidx;
	size_t len;
	ssize_t ret;
	int e;

	if (o->idxmode == 0 && o->ref >= 0)
		idx = regok[o->ref] ? widx[o->ref] : -1;
	len = build_payload(o, idx);
	if (o->vec == 0) {
		ret = write(fds[o->fd], pbuf, len);
	} else {
		struct iovec iov[3];
		int n = 0;

		if (o->vec == 2) {	/* the index split over two iovecs */
			iov[n].iov_base = pbuf;
			iov[n++].iov_len = 1;
			iov[n].iov_base = pbuf + 1;
			iov[n++].iov_len = len < 4 ? len - 1 : 3;
			if (len > 4) {
				iov[n].iov_base = pbuf + 4;
				iov[n++].iov_len = len - 4;
			}
		} else {
			iov[n].iov_base = pbuf;
			iov[n++].iov_len = 4;
			iov[n].iov_base = pbuf + 4;
			iov[n++].iov_len = len - 4;
		}
		ret = writev(fds[o->fd], iov, n);
	}
	e = errno;
	obs("write len=%zu %s", len, rstr(ret, e));
	drain_perf();
}

static void do_max(struct op *o)
{
	char v[32];
	int ret;

	snprintf(v, sizeof(v), "%ld", o->value);
	ret = write_str("/proc/sys/kernel/user_events_max", v, 0);
	obs("max %s %s", v, ret ? err_name(-ret) : "ok");
}

static void do_ftrace(struct op *o)
{
	char tp[700], path[1024];
	int ret;

	if (find_tp(o->slot, o->flags, tp, sizeof(tp))) {
		obs("ftrace no tracepoint");
		return;
	}
	snprintf(path, sizeof(path), TRACEFS "/events/%s/enable", tp);
	ret = write_str(path, o->value ? "1" : "0", 0);
	if (!ret && o->value)
		ftrace_used = 1;
	obs("ftrace %ld %s", o->value, ret ? err_name(-ret) : "ok");
	show_words();
}

static void do_perf(struct op *o)
{
	char tp[700], path[1024], id[32];
	struct perf_event_attr a;
	int fd;

	if (nperf >= 4)
		return;
	if (find_tp(o->slot, o->flags, tp, sizeof(tp))) {
		obs("perf no tracepoint");
		return;
	}
	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", tp);
	if (read_file(path, id, sizeof(id)) < 0) {
		obs("perf id %s", err_name(errno));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = strtoull(id, NULL, 10);
	a.sample_type = PERF_SAMPLE_RAW;
	a.sample_period = 1;
	a.wakeup_events = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		obs("perf open %s", err_name(errno));
		return;
	}
	perf_ring[nperf] = mmap(NULL, 4096 * (RING_PAGES + 1),
				PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (perf_ring[nperf] == MAP_FAILED)
		perf_ring[nperf] = NULL;
	perf_fd[nperf++] = fd;
	obs("perf ok");
	show_words();
}

static void do_open(struct op *o)
{
	int fd;

	if (fds[o->fd] >= 0)
		close(fds[o->fd]);
	fd = open(TRACEFS "/user_events_data", O_RDWR);
	obs("open %s", fd < 0 ? err_name(errno) : "ok");
	fds[o->fd] = fd;
}

static void do_close(struct op *o)
{
	int ret = close(fds[o->fd]), e = errno;

	obs("close %s", rstr(ret, e));
	fds[o->fd] = -1;
	show_words();
}

static void run_child(void)
{
	int i;

	epage = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ropage = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(unmapped, 4096);
	memset(epage, 0, 4096);
	for (i = 0; i < NFDS; i++) {
		fds[i] = open(TRACEFS "/user_events_data", O_RDWR);
		if (fds[i] < 0)
			obs("open data %s", err_name(errno));
	}
	for (i = 0; i < S.nops; i++) {
		struct op *o = &S.ops[i];

		widx[i] = -1;
		if (!keep[i])
			continue;
		cur_op = i;
		switch (o->kind) {
		case OP_REG:
			do_reg(o, i);
			break;
		case OP_UNREG:
			do_unreg(o);
			break;
		case OP_DEL:
			do_del(o);
			break;
		case OP_DYN:
			do_dyn(o);
			break;
		case OP_WRITE:
			do_write(o);
			break;
		case OP_MAX:
			do_max(o);
			break;
		case OP_FTRACE:
			do_ftrace(o);
			break;
		case OP_PERF:
			do_perf(o);
			break;
		case OP_OPEN:
			do_open(o);
			break;
		case OP_CLOSE:
			do_close(o);
			break;
		case OP_STATUS:
			show_status();
			break;
		}
	}
	cur_op = -1;
	show_status();
	show_dynamic_events();
	if (ftrace_used)
		show_trace();
	fflush(stdout);
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* the parent: one child per sequence, then clean-up */

static char default_max[32];
static int cleanup_secs = 2;
static char left[64][700];	/* events the last clean-up could not remove */
static int nleft;
static int dirs_stuck;		/* and the tracefs directories it left */
static int ctl_fd = -1;

static void disable_all(void)
{
	write_str(TRACEFS "/events/user_events/enable", "0", 0);
	write_str(TRACEFS "/events/user_events_multi/enable", "0", 0);
}

/* DIAG_IOCSDEL each name a command of the sequence may have created */
static void delete_op_names(void)
{
	char name[CMD_MAX];
	int i, j;

	for (i = 0; i < S.nops; i++) {
		const char *t = S.ops[i].text;
		size_t n;

		if (!t || (S.ops[i].kind != OP_REG && S.ops[i].kind != OP_DYN))
			continue;
		if (S.ops[i].kind == OP_DYN) {
			if (strncmp(t, "u:", 2))
				continue;
			t += 2;
		}
		/* up to a space; then without leading white space: up to a
		 * space, up to any white space, up to a colon
		 */
		for (j = 0; j < 4; j++) {
			if (j == 1)
				while (*t == ' ' || *t == '\t')
					t++;
			n = strcspn(t, j < 2 ? " " : j == 2 ? " \t\n" : " \t\n:");
			if (n >= sizeof(name))
				continue;
			memcpy(name, t, n);
			name[n] = 0;
			ioctl(ctl_fd, DIAG_IOCSDEL, name);
		}
	}
}

/*
 * "-:NAME FIELDS" for each "u:NAME FIELDS" of dynamic_events: upstream
 * deletes an event with fields that way only when they are given, and its
 * DIAG_IOCSDEL takes names shorter than 512 bytes only.
 */
static void delete_dynamic_events(void)
{
	char *line, *save = NULL, cmd[CMD_MAX + 8];

	if (read_file(dynfile, statbuf, sizeof(statbuf)) < 0)
		return;
	for (line = strtok_r(statbuf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "u:", 2))
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s", line + 2);
		write_str(dynfile, cmd, O_APPEND);
	}
}

/*
 * Whether an event's tracefs directory is still there: an event whose last
 * tracer left has gone from user_events_status, and its directory goes a
 * moment later.
 */
static int dirs_left(void)
{
	static const char * const sys[] = { "user_events", "user_events_multi" };
	char path[64];
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/%s", sys[i]);
		d = opendir(path);
		while (d && (de = readdir(d)))
			n += de->d_type == DT_DIR && strcmp(de->d_name, ".") &&
			     strcmp(de->d_name, "..");
		if (d)
			closedir(d);
	}
	return n;
}

/* delete whatever is left; wait (bounded) for deferred deletions */
static void cleanup(void)
{
	struct timespec t0, t;
	int round;
	char cur[32];

	cur_op = -2;
	if (read_file("/proc/sys/kernel/user_events_max", cur, sizeof(cur)) > 0 &&
	    strcmp(cur, default_max))
		write_str("/proc/sys/kernel/user_events_max", default_max, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0;; round++) {
		char *line, *save = NULL, names[64][700];
		int n = 0, i, busy = 0;

		if (read_file(TRACEFS "/user_events_status", statbuf,
			      sizeof(statbuf)) < 0)
			return;
		for (line = strtok_r(statbuf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sp = strchr(line, ' ');

			if (!strncmp(line, "Active:", 7) || !strncmp(line, "Busy:", 5))
				continue;
			if (sp && strstr(sp, "Used by"))
				busy = 1;
			if (sp)
				*sp = 0;
			if (n < 64)
				snprintf(names[n++], sizeof(names[0]), "%s", line);
		}
		/* the same events as after the last sequence: stuck, do not wait */
		if (n && n <= nleft && round >= 2) {
			int same = 1;

			for (i = 0; i < n; i++) {
				int j, found = 0;

				for (j = 0; j < nleft; j++)
					if (!strcmp(names[i], left[j]))
						found = 1;
				same &= found;
			}
			if (same) {
				for (i = 0; i < n; i++)
					obs_text("left", names[i], strlen(names[i]));
				return;
			}
		}
		if (!n && dirs_left() <= dirs_stuck) {
			if (getenv("UECONF_TIMING")) {
				clock_gettime(CLOCK_MONOTONIC, &t);
				fprintf(stderr, "%s clean-up %ld ms, %d rounds\n", run_id,
					(t.tv_sec - t0.tv_sec) * 1000 +
					(t.tv_nsec - t0.tv_nsec) / 1000000, round);
			}
			return;
		}
		if (busy)
			disable_all();
		if (round == 1)
			delete_op_names();
		if (round == 2)
			delete_dynamic_events();
		for (i = 0; i < n; i++) {
			int multi, slot = name_slot(names[i], strlen(names[i]), &multi);

			/* a multi-format event is deleted by its name */
			char *dot = strrchr(names[i], '.');

			if (slot >= 0 && multi) {
				ioctl(ctl_fd, DIAG_IOCSDEL, S.names[slot]);
				continue;
			}
			if (ioctl(ctl_fd, DIAG_IOCSDEL, names[i]) == 0)
				continue;
			/* upstream's ioctl takes names of up to 511 bytes */
			if (strlen(names[i]) >= 500) {
				char cmd[720];

				snprintf(cmd, sizeof(cmd), "-:%s", names[i]);
				write_str(dynfile, cmd, O_APPEND);
			}
			/* a name that ended in a newline is split over lines */
			{
				char nl[720];

				snprintf(nl, sizeof(nl), "%s\n", names[i]);
				ioctl(ctl_fd, DIAG_IOCSDEL, nl);
			}
			if (!dot)
				continue;
			/* a multi-format event of an earlier sequence */
			*dot = 0;
			ioctl(ctl_fd, DIAG_IOCSDEL, names[i]);
			*dot = '.';
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >=
		    cleanup_secs * 1000) {
			for (i = 0; i < n; i++)
				obs_text("left", names[i], strlen(names[i]));
			nleft = n;
			memcpy(left, names, sizeof(names));
			dirs_stuck = dirs_left();
			return;
		}
		if (round)
			usleep(round < 20 ? 500 : 2000);
	}
}

/*
 * The trace core wipes the trace buffers at the first dynamic_events
 * deletion after an event that had been enabled went away, and forgets it
 * then.  Whether the clean-up wrote such a deletion depends on how fast
 * the kernel removed the events: one that matches nothing makes every
 * sequence start alike.
 */
static void reset_trace_latch(void)
{
	write_str(dynfile, "-:user_events/ueconf_no_such_event", O_APPEND);
}

static void run_seq(const char *id, u64 seqno, const char *opsel)
{
	pid_t pid;
	int st, i;

	gen_seq(&S, seqno);
	gen_mnames(&S);
	for (i = 0; i < MAX_OPS; i++)
		keep[i] = !opsel || !strcmp(opsel, "all");
	if (opsel && strcmp(opsel, "all")) {
		const char *p = opsel;

		while (*p) {
			int k = strtol(p, (char **)&p, 10);

			if (k >= 0 && k < MAX_OPS)
				keep[k] = 1;
			if (*p == ',')
				p++;
			else
				break;
		}
	}
	run_id = id;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		alarm(20);
		run_child();
	}
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	cur_op = -2;
	if (WIFSIGNALED(st))
		obs("child signal %d", WTERMSIG(st));
	cleanup();
	reset_trace_latch();
	free_seq(&S);
}

static void setup(void)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	if (read_file("/proc/sys/kernel/user_events_max", default_max,
		      sizeof(default_max)) <= 0)
		snprintf(default_max, sizeof(default_max), "32768\n");
	ctl_fd = open(TRACEFS "/user_events_data", O_RDWR);
	if (ctl_fd < 0) {
		perror("user_events_data");
		exit(1);
	}
	/* trace lines without task, pid, CPU and time stamp */
	write_str(TRACEFS "/trace_options", "nocontext-info", 0);
	write_str(TRACEFS "/buffer_size_kb", "512", 0);
	write_str(TRACEFS "/trace", "", O_TRUNC);
	reset_trace_latch();
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (getenv("UECONF_CLEANUP_SECS"))
		cleanup_secs = atoi(getenv("UECONF_CLEANUP_SECS"));
}

static void usage(void)
{
	fputs("ueconf --seed S (--count N [--from K] | [--list] --batch FILE |\n"
	      "                --seq I [--list] [--ops I,J,...])\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	u64 from = 0, count = 0, one = 0;
	const char *batch = NULL, *opsel = NULL;
	int list = 0, i, have_seq = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--list")) {
			list = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(a, "--seed")) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--count")) {
			count = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--from")) {
			from = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--batch")) {
			batch = argv[++i];
		} else if (!strcmp(a, "--ops")) {
			opsel = argv[++i];
		} else if (!strcmp(a, "--seq")) {
			one = strtoull(argv[++i], NULL, 0);
			have_seq = 1;
		} else {
			usage();
		}
	}
	if (list) {
		if (batch)
			return list_batch(batch);
		if (!have_seq)
			usage();
		gen_seq(&S, one);
		print_ops(&S, NULL);
		return 0;
	}
	setup();
	if (batch) {
		FILE *f = fopen(batch, "r");
		char line[512], id[64], ops[400];
		unsigned long long sq;

		if (!f) {
			perror(batch);
			return 1;
		}
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%63s %llu %399s", id, &sq, ops) != 3)
				continue;
			run_seq(id, sq, ops);
		}
		fclose(f);
	} else {
		char id[32];
		u64 k;

		if (have_seq) {
			snprintf(id, sizeof(id), "%llu", (unsigned long long)one);
			run_seq(id, one, opsel);
			fflush(stdout);
			return 0;
		}
		for (k = from; k < from + count; k++) {
			snprintf(id, sizeof(id), "%llu", (unsigned long long)k);
			run_seq(id, k, NULL);
		}
	}
	fflush(stdout);
	return 0;
}
