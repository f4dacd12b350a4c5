/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal FUSE file system on /dev/fuse, without libfuse: one regular file of @size bytes
 * (a pattern at first; writes are kept), served by a daemon process that can be told to stop
 * answering reads or, for a while, writes, and to invalidate the file's pages.
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
	int cmd;		/* commands to the daemon, if any */
	bool mounted;
	struct ue_fuse_ctl *ctl;	/* shared with the daemon */
};

/* Mount (root only) and start the daemon: 0, -ENODEV without /dev/fuse, or -errno */
int ue_fuse_start(struct ue_fuse *f, size_t size);
/* From now on read requests are taken but never answered; how many were so far */
void ue_fuse_hold_reads(struct ue_fuse *f);
int ue_fuse_held(const struct ue_fuse *f);
/* From now on write requests are taken but not answered; how many were so far; answer them all */
void ue_fuse_hold_writes(struct ue_fuse *f);
int ue_fuse_held_writes(const struct ue_fuse *f);
int ue_fuse_release_writes(struct ue_fuse *f);
/*
 * Have a thread of the daemon notify the kernel that the file changed (FUSE_NOTIFY_INVAL_INODE):
 * the kernel drops the file's pages, each dirty one locked until its write is answered
 * (fuse_launder_folio()).  ue_fuse_inval_state(): 1 while the notification is in the kernel,
 * then 0 or its -errno.
 */
int ue_fuse_inval(struct ue_fuse *f);
int ue_fuse_inval_state(const struct ue_fuse *f);
/* Abort the connection (held requests fail), kill the daemon, unmount, remove */
void ue_fuse_stop(struct ue_fuse *f);

#endif /* _UE_FUSE_H */
