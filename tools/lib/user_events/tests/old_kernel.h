/* SPDX-License-Identifier: GPL-2.0 */
/*
 * old_kernel.c replaces the library's sys.o in lib_test: its registration
 * ioctl refuses the flags a test says the kernel does not know, as
 * kernels before 6.6 (PERSIST) and 6.10 (MULTI_FORMAT) and without the
 * extensions (NOTIFY) do, and DIAG_IOCSBATCH can fail as on kernels
 * without it.  A test may also have it play a whole kernel
 * (old_kernel_fake), so that it runs where there is no user_events.
 */
#ifndef _UEL_TEST_OLD_KERNEL_H
#define _UEL_TEST_OLD_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* Flags the played kernel knows (default: all); registrations counted */
extern unsigned int old_kernel_flags;
extern int old_kernel_registrations;

/*
 * Play the kernel instead of calling it: registrations succeed (with the
 * flags above), poll() and read() follow old_kernel_changes as they do
 * on a file with NOTIFY registrations and are upstream's otherwise,
 * DIAG_IOCGLOSS fails with old_kernel_loss_err or fills
 * old_kernel_loss.size bytes of old_kernel_loss.  old_kernel_asked is
 * the last struct user_loss the library passed.
 */
extern bool old_kernel_fake;
extern bool old_kernel_notify;
extern uint64_t old_kernel_changes;
extern int old_kernel_loss_err;
extern struct user_loss old_kernel_loss, old_kernel_asked;

/*
 * Batches.  With old_kernel_no_batch, DIAG_IOCSBATCH fails with ENOTTY,
 * on the running kernel too, as on kernels without it.  The counters
 * take every DIAG_IOCSBATCH the library issues, every write() of a
 * batch's record (sys.c's, not the writev() of ue_write()) and the
 * largest record count of one DIAG_IOCSBATCH.
 *
 * The played kernel writes each record it takes (from DIAG_IOCSBATCH or
 * write()) to the session's file, a plain file, unless the record is
 * shorter than its write index (EINVAL) or old_kernel_write_err[] holds
 * an errno for its write index; DIAG_IOCSBATCH fails as a whole with
 * old_kernel_batch_err when it is set, and with EINVAL for a count or a
 * reserved word the kernel refuses.
 */
#define OLD_KERNEL_INDEXES	64
extern bool old_kernel_no_batch;
extern int old_kernel_batch_calls, old_kernel_writes;
extern unsigned int old_kernel_batch_max;
extern int old_kernel_batch_err;
extern int old_kernel_write_err[OLD_KERNEL_INDEXES];

#endif
