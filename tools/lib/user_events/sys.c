// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events: the ioctls of user_events_data, and nothing else (see
 * internal.h: the library's tests replace this object).
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "internal.h"

int uel_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) == -1 ? -errno : 0;
}
