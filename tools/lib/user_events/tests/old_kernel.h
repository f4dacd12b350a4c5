/* SPDX-License-Identifier: GPL-2.0 */
/*
 * old_kernel.c replaces the library's sys.o in lib_test: its registration
 * ioctl refuses the flags a test says the kernel does not know, as
 * kernels before 6.6 (PERSIST) and 6.10 (MULTI_FORMAT) do.
 */
#ifndef _UEL_TEST_OLD_KERNEL_H
#define _UEL_TEST_OLD_KERNEL_H

/* Flags the played kernel knows (default: all); registrations counted */
extern unsigned int old_kernel_flags;
extern int old_kernel_registrations;

#endif
