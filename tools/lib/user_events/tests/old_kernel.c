// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events' way into the kernel (internal.h), linked ahead of
 * libuser_events.a so that the archive's sys.o is not used.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "internal.h"
#include "old_kernel.h"

unsigned int old_kernel_flags = ~0U;
int old_kernel_registrations;

bool old_kernel_fake;
bool old_kernel_notify;
uint64_t old_kernel_changes;
int old_kernel_loss_err;
struct user_loss old_kernel_loss, old_kernel_asked;

static int fake_ioctl(unsigned long request, void *arg)
{
	struct user_reg *reg = arg;
	struct user_loss *loss = arg;
	uint32_t size;

	switch (request) {
	case DIAG_IOCSREG:
		reg->write_index = old_kernel_registrations;
		if (reg->flags & USER_EVENT_REG_NOTIFY)
			old_kernel_notify = true;
		return 0;
	case DIAG_IOCSUNREG:
		return 0;
	case DIAG_IOCGLOSS:
		old_kernel_asked = *loss;
		if (old_kernel_loss_err)
			return -old_kernel_loss_err;
		size = loss->size < old_kernel_loss.size ? loss->size :
			old_kernel_loss.size;
		if (size < 16)
			return -EINVAL;
		memcpy((char *)loss + 8, (char *)&old_kernel_loss + 8, size - 8);
		loss->size = size;
		return 0;
	}
	return -ENOTTY;
}

int uel_ioctl(int fd, unsigned long request, void *arg)
{
	const struct user_reg *reg = arg;

	if (request == DIAG_IOCSREG) {
		old_kernel_registrations++;
		if (reg->flags & ~old_kernel_flags)
			return -EINVAL;
	}
	if (old_kernel_fake)
		return fake_ioctl(request, arg);
	return ioctl(fd, request, arg) == -1 ? -errno : 0;
}

int uel_poll(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	if (old_kernel_fake) {
		/* upstream: no poll method, always ready */
		if (!old_kernel_notify)
			return events;
		return old_kernel_changes ? events & POLLIN : 0;
	}
	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return -errno;
	return n ? p.revents : 0;
}

ssize_t uel_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	if (old_kernel_fake) {
		/* upstream: no read method */
		if (!old_kernel_notify || len < sizeof(old_kernel_changes))
			return -EINVAL;
		if (!old_kernel_changes)
			return -EAGAIN;
		memcpy(buf, &old_kernel_changes, sizeof(old_kernel_changes));
		old_kernel_changes = 0;
		return sizeof(old_kernel_changes);
	}
	n = read(fd, buf, len);
	return n < 0 ? -errno : n;
}
