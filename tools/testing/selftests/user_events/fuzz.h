/* SPDX-License-Identifier: GPL-2.0 */
/* The user_events fuzzer: fuzz_test.c, fz_gen.c (on ue_gen.c), fz_oracle.c, fz_case_*.c */
#ifndef _UE_FUZZ_H
#define _UE_FUZZ_H

#include "ue_util.h"
#include "ue_gen.h"

#define FZ_PREFIX	"uet_fz"
#define FZ_NAME_MAX	4096	/* a name: up to a dynamic_events line */
#define FZ_IOV_MAX	1024	/* UIO_MAXIOV */
#define FZ_PERF_MAX	(8192 - 12)	/* payload of a perf sample */
#define FZ_LIVE_MAX	200	/* live fuzz registrations per batch */
#define FZ_NAMES_MAX	128	/* persistent names before a clean up */
#define FZ_SHARED	8	/* "uet_fz_n<k>" names shared by cases */
#define FZ_KERNEL1	0xffffffff81000000ull
#define FZ_ERRNO_MAX	128

/* fz_setup(): sizeof(struct trace_entry) (a format file), the largest payload ftrace holds */
extern __u32 fz_entry, fz_payload_max;
extern __u64 fz_unmapped;	/* kept unmapped */
extern char *fz_kptr;		/* of the program's width, no write() reads through it */
extern char fz_tmp[];		/* a payload: up to a page less 32 bytes + 4136 */

static inline int fz_min(int a, int b)
{
	return a < b ? a : b;
}

enum fz_op { OP_REG, OP_UNREG, OP_WRITE, OP_WRITEV, OP_DEL, OP_DYN, OP_MISC, OP_NR };

struct fz_set {			/* allowed results: bit e for errno e, bit 0 for success */
	__u64 m[2];
};

/* No defect: success; one: its errno; more (or unknown): the documented set */
struct fz_want {
	int ndef, err;		/* count, errno of the last one */
	bool unknown;
	struct fz_set extra;	/* allowed besides the prediction */
};

/* A row of a table of choices for fz_pick(): its share in percent, the errno it plants */
struct fz_kind {
	int pct, err;
};

struct fz_target {
	const char *cmd;
	__u16 flags;
	bool perf;
	struct ue_gen_field f[4];	/* size, dynamic, string */
	int nf, size;		/* fields, fixed part: by fz_setup() */
	__u32 idx;
	char name[UE_NAME_MAX], tp[UE_NAME_MAX];	/* tp: tracefs name */
};

struct fz_live {
	__u64 addr;
	int size, bit;
	bool maybe;		/* registered only if an EFAULT came late */
};

struct fz_shared {		/* with the parent */
	__u64 done, predicted, created;	/* cases, exact ones, events */
	__u64 hist[OP_NR][FZ_ERRNO_MAX + 1];	/* [0]: success */
	int failed;
	char msg[2048];
};

struct fz_ctx {
	struct fz_shared *sh;
	__u64 seed, ncase;
	long page;
	char *arena, *guard, *none, *ro, *en, *wbuf, *wguard;	/* fz_setup() */
	int fd_tgt, fd_main, fd_aux, perf_fd[64], nperf;
	struct fz_live live[FZ_LIVE_MAX];	/* to undo */
	int nlive, nnames;
	char (*names)[FZ_NAME_MAX + 1];	/* may be persistent events */
	char *baseline;		/* user_events_status before the run */
};

struct fz_cmd {
	char buf[UE_GEN_TEXT_MAX + 600];	/* a name and a field list */
	int len;		/* bytes, without the NUL the kernel sees */
	bool shared;		/* name of FZ_SHARED, or of a target */
	int lead_ws;		/* bytes of white space before the name */
	bool lead_tab;		/* a tab: for the ioctl part of the name */
	bool too_long;		/* over UE_CMD_MAX: EINVAL for the ioctl */
	bool mutated;
	struct fz_want w;	/* parse defects */
};

extern struct fz_target fz_targets[];
extern const int fz_ntargets;
extern const char * const fz_op_name[];

/* fz_oracle.c */
const char *fz_errname(int e);
void fz_set_add(struct fz_set *s, int err);
struct fz_set fz_set_of(const int *errs);
void fz_defect(struct fz_want *w, int err);
__printf(2, 3) void fz_fail(struct fz_ctx *c, const char *fmt, ...);
__printf(5, 6) bool fz_check(struct fz_ctx *c, enum fz_op op, long ret,
			     struct fz_set s, const char *fmt, ...);
struct fz_set fz_expect(struct fz_ctx *c, const struct fz_want *w, enum fz_op op);
const char *fz_show(const char *s, size_t len);
int fz_model_record(const struct fz_target *t, const unsigned char *p, __u32 len);
/* fz_gen.c */
bool fz_pct(__u64 *rs, __u32 pct);
int fz_pick(__u64 *rs, const struct fz_kind *k, int n, struct fz_want *w);
void fz_gen_cmd(struct fz_ctx *c, __u64 *rs, struct fz_cmd *cmd);
__u32 fz_gen_random(__u64 *rs, unsigned char *p, __u32 from);
__u32 fz_gen_payload(__u64 *rs, const struct fz_target *t, unsigned char *p);
/* fz_case_reg.c */
bool fz_is_baseline(struct fz_ctx *c, const char *name);
void fz_track_name(struct fz_ctx *c, const char *name);
char *fz_bad_str(struct fz_ctx *c, __u64 *rs, struct fz_want *w);
/* fz_case_io.c */
int fz_dyn_write(const char *buf, size_t len);
/* the cases */
typedef void fz_case_fn(struct fz_ctx *c, __u64 *rs);
fz_case_fn fz_case_reg, fz_case_unreg, fz_case_write, fz_case_del, fz_case_dyn, fz_case_misc;
#endif /* _UE_FUZZ_H */
