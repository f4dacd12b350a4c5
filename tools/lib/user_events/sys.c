// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events: the ioctls, poll and read of user_events_data and the
 * writes of batches, and nothing else (see internal.h: the library's tests
 * replace this object).
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "internal.h"

int uel_ioctl(int fd, unsigned long request, void *arg)
{
	int ret = ioctl(fd, request, arg);

	return ret == -1 ? -errno : ret;
}

int uel_poll(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return n ? p.revents : 0;
}

ssize_t uel_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

ssize_t uel_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}
