// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events' way into the kernel (internal.h), linked ahead of
 * libuser_events.a so that the archive's sys.o is not used.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "internal.h"
#include "old_kernel.h"

unsigned int old_kernel_flags = ~0U;
int old_kernel_registrations;

int uel_ioctl(int fd, unsigned long request, void *arg)
{
	const struct user_reg *reg = arg;

	if (request == DIAG_IOCSREG) {
		old_kernel_registrations++;
		if (reg->flags & ~old_kernel_flags)
			return -EINVAL;
	}
	return ioctl(fd, request, arg) == -1 ? -errno : 0;
}
