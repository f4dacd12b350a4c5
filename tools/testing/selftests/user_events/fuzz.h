/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user_events fuzzer's shared declarations: fuzz_test.c (batches and
 * the test), fz_gen.c (generator), fz_oracle.c (expected results),
 * fz_case_reg.c and fz_case_io.c (the cases).
 */
#ifndef _UE_FUZZ_H
#define _UE_FUZZ_H

#include "ue_util.h"

#include <ctype.h>

#define FZ_SEED		0x75e5eedull
#define FZ_CASES	100000
#define FZ_BATCH	5000
#define FZ_PREFIX	"uet_fz"

#define FZ_CMD_MAX	511	/* longest command the kernel takes */
#define FZ_NAME_MAX	4096	/* a name: up to a dynamic_events line */
#define FZ_LONG_NAME	250	/* longest name generated on purpose */
#define FZ_ARRAY_MAX	1024
#define FZ_REG_SIZE	((__u32)sizeof(struct user_reg))
#define FZ_UNREG_SIZE	((__u32)sizeof(struct user_unreg))
#define FZ_IOV_MAX	1024	/* UIO_MAXIOV */
#define FZ_PERF_MAX	(8192 - 12)	/* payload of a perf sample */

#define FZ_LIVE_MAX	200	/* live fuzz registrations per batch */
#define FZ_NAMES_MAX	128	/* persistent names before a clean up */
#define FZ_SHARED	8	/* "uet_fz_n<k>" names shared by cases */

#define FZ_KERNEL1	0xffffffff81000000ull
#define FZ_KERNEL2	0xffff888000000000ull
#define FZ_NONCANON	0x8000000000000000ull
#define FZ_TMP_SIZE	((1 << 17) + 64)

/*
 * Set by fz_setup() (fuzz_test.c): no page size, record layout or
 * address layout is assumed.
 *   fz_entry:       sizeof(struct trace_entry), read from a format file
 *   fz_payload_max: the largest payload ftrace holds: the ring buffer's
 *                   largest event (a page less its 16-byte header and 8
 *                   bytes) less the trace_entry
 *   fz_unmapped:    a user address kept unmapped
 *   fz_kptr:        a pointer no write() can read through, of the
 *                   program's own width
 */
extern __u32 fz_entry, fz_payload_max;
extern __u64 fz_unmapped;
extern char *fz_kptr;

enum fz_op {
	OP_REG, OP_UNREG, OP_WRITE, OP_WRITEV, OP_DEL, OP_DYN, OP_MISC,
	OP_NR
};

#define FZ_ERRNO_MAX	128

struct fz_set {
	__u64 m[2];
	bool ok;
};

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

extern struct fz_target fz_targets[];
extern const int fz_ntargets;
extern const char * const fz_op_name[];
extern const int fz_reg_errs[], fz_unreg_errs[], fz_write_errs[],
	fz_del_errs[], fz_dyn_errs[], fz_enoent[], fz_enoent_ebusy[];
extern __u64 fz_unreg_addrs[];
extern char fz_tmp[FZ_TMP_SIZE];

/* fz_oracle.c */
const char *fz_errname(int e);
void fz_set_add(struct fz_set *s, int err);
struct fz_set fz_set_of(bool ok, const int *errs);
struct fz_set fz_only(int err);
void fz_defect(struct fz_want *w, int err);
struct fz_set fz_expected(const struct fz_want *w, const int *doc);
__printf(5, 6) bool fz_fail(struct fz_ctx *c, enum fz_op op, long ret,
			    const struct fz_set *s, const char *fmt, ...);
bool fz_check(struct fz_ctx *c, enum fz_op op, long ret,
	      const struct fz_set *s);
const char *fz_show(const char *s, size_t len);
int fz_model_record(const struct fz_target *t, const unsigned char *p,
		    __u32 len);
bool fz_judge(struct fz_ctx *c, enum fz_op op, long ret,
	      const struct fz_want *w, const int *doc, struct fz_set *s);
/* fz_gen.c */
bool fz_pct(__u64 *rs, __u32 pct);
void fz_gen_cmd(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd);
__u32 fz_gen_payload(__u64 *rs, const struct fz_target *t, unsigned char *p);
/* fz_case_reg.c */
void fz_cmd_name(const char *buf, char *name, size_t len);
bool fz_is_baseline(struct fz_ctx *c, const char *name);
void fz_track_name(struct fz_ctx *c, const char *name);
__u64 fz_bad_ptr(struct fz_ctx *c, __u64 *rs);
void fz_case_reg(struct fz_ctx *c, __u64 *rs);
void fz_case_unreg(struct fz_ctx *c, __u64 *rs);
/* fz_case_io.c */
void fz_case_write(struct fz_ctx *c, __u64 *rs);
void fz_case_del(struct fz_ctx *c, __u64 *rs);
int fz_dyn_write(const char *buf, size_t len);
void fz_case_dyn(struct fz_ctx *c, __u64 *rs);
void fz_case_misc(struct fz_ctx *c, __u64 *rs);
#endif /* _UE_FUZZ_H */
