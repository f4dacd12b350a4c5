/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user_events command grammar as a seeded generator, shared by the
 * fuzzer (fuzz_test, fz_gen.c) and the differential conformance harness
 * (workbench/conformance/ueconf.c): event names, field types and sizes,
 * arrays, dynamic fields, separators and bad types.  Each field it writes
 * comes with its description: the layout and what the parser of the
 * documented ABI makes of it.
 *
 * The conformance harness replays a log recorded on upstream's kernel from
 * these draws: what is drawn, and in which order, must not change unless
 * that log is recorded again.  Forms the log does not have go behind
 * ue_gen.wide.
 */
#ifndef _UE_GEN_H
#define _UE_GEN_H

#include <stdbool.h>
#include <linux/types.h>

#define UE_GEN_FIELDS_MAX	80	/* fields of one list */
#define UE_GEN_TEXT_MAX		4096	/* bytes of a ue_gen_buf */
#define UE_GEN_UNSURE		(-1)	/* ue_gen_field.err: either answer */

struct ue_gen {
	__u64 rng;		/* splitmix64 state: the seed */
	bool wide;		/* also forms the conformance log does not have */
};

/* text, cut at UE_GEN_TEXT_MAX - 1 bytes */
struct ue_gen_buf {
	char buf[UE_GEN_TEXT_MAX];
	int len;
};

enum { UE_GEN_FIXED, UE_GEN_DATA_LOC, UE_GEN_REL_LOC };
enum { UE_GEN_PLAIN, UE_GEN_STRUCT, UE_GEN_BARE };	/* bare: a type alone */

/* A generated field */
struct ue_gen_field {
	int size;		/* bytes in the fixed part (0: unknown type) */
	int dyn;		/* UE_GEN_FIXED, UE_GEN_DATA_LOC, UE_GEN_REL_LOC */
	int str;		/* a dynamic string (char) rather than bytes */
	int err;		/* what the parser says: 0, EINVAL or UE_GEN_UNSURE */
	int form;		/* UE_GEN_PLAIN, UE_GEN_STRUCT, UE_GEN_BARE */
	int name_at, name_len;	/* its name in the text */
};

extern const char * const ue_gen_basic_types[];
extern const int ue_gen_nbasic;
extern const char * const ue_gen_bad_types[];
extern const int ue_gen_nbad;

__u64 ue_gen_rnd64(struct ue_gen *g);
unsigned int ue_gen_rnd(struct ue_gen *g, unsigned int n);
int ue_gen_chance(struct ue_gen *g, int percent);
int ue_gen_pick(struct ue_gen *g, const int *w, int n);
void ue_gen_add(struct ue_gen_buf *b, const char *fmt, ...);

void ue_gen_name(struct ue_gen *g, struct ue_gen_buf *b);
bool ue_gen_name_ok(const char *name, int len);
const char *ue_gen_lead(struct ue_gen *g);
const char *ue_gen_gap(struct ue_gen *g);
int ue_gen_fields(struct ue_gen *g, struct ue_gen_buf *b, struct ue_gen_field *gf);
int ue_gen_fields_err(const struct ue_gen_field *gf, int n);

#endif /* _UE_GEN_H */
