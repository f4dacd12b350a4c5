/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal FUSE file system on /dev/fuse, without libfuse: one regular file of @size bytes
 * (a pattern), served by a daemon process that can be told to stop answering reads.
 */
#ifndef _UE_FUSE_H
#define _UE_FUSE_H

#include <stdbool.h>
#include <limits.h>
#include <sys/types.h>

struct ue_fuse_ctl;

struct ue_fuse {
	char dir[64];		/* the mount point */
	char file[PATH_MAX];	/* the file */
	pid_t daemon;		/* 0: none */
	bool mounted;
	struct ue_fuse_ctl *ctl;	/* shared with the daemon */
};

/* Mount (root only) and start the daemon: 0, -ENODEV without /dev/fuse, or -errno */
int ue_fuse_start(struct ue_fuse *f, size_t size);
/* From now on read requests are taken but never answered; how many were so far */
void ue_fuse_hold_reads(struct ue_fuse *f);
int ue_fuse_held(const struct ue_fuse *f);
/* Kill the daemon (which aborts the connection: held requests fail), unmount, remove */
void ue_fuse_stop(struct ue_fuse *f);

#endif /* _UE_FUSE_H */
