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
#include <sys/uio.h>

#include "internal.h"
#include "old_kernel.h"

unsigned int old_kernel_flags = ~0U;
int old_kernel_registrations;

bool old_kernel_fake;
bool old_kernel_notify;
uint64_t old_kernel_changes;
int old_kernel_loss_err;
struct user_loss old_kernel_loss, old_kernel_asked;

bool old_kernel_no_batch;
int old_kernel_batch_calls, old_kernel_writes;
unsigned int old_kernel_batch_max;
int old_kernel_batch_err;
int old_kernel_write_err[OLD_KERNEL_INDEXES];

/* One record as the played kernel writes it: 0 or -errno. */
static int fake_record(int fd, const void *buf, size_t len)
{
	uint32_t idx;

	if (len < sizeof(idx))
		return -EINVAL;
	memcpy(&idx, buf, sizeof(idx));
	if (idx < OLD_KERNEL_INDEXES && old_kernel_write_err[idx])
		return -old_kernel_write_err[idx];
	return write(fd, buf, len) == (ssize_t)len ? 0 : -EIO;
}

static int fake_batch(int fd, struct user_batch *b)
{
	const struct iovec *rec = (const struct iovec *)(uintptr_t)b->records;
	unsigned int i;
	int ret;

	if (old_kernel_batch_err)
		return -old_kernel_batch_err;
	if (b->size != sizeof(*b) || !b->count || b->count > USER_BATCH_MAX ||
	    b->__reserved)
		return -EINVAL;
	b->error = 0;
	for (i = 0; i < b->count; i++) {
		ret = fake_record(fd, rec[i].iov_base, rec[i].iov_len);
		if (ret) {
			b->error = -ret;
			break;
		}
	}
	return i;
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
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
	case DIAG_IOCSBATCH:
		return fake_batch(fd, arg);
	}
	return -ENOTTY;
}

int uel_ioctl(int fd, unsigned long request, void *arg)
{
	const struct user_reg *reg = arg;
	const struct user_batch *b = arg;
	int ret;

	if (request == DIAG_IOCSREG) {
		old_kernel_registrations++;
		if (reg->flags & ~old_kernel_flags)
			return -EINVAL;
	}
	if (request == DIAG_IOCSBATCH) {
		old_kernel_batch_calls++;
		if (old_kernel_no_batch)
			return -ENOTTY;
		if (b->count > old_kernel_batch_max)
			old_kernel_batch_max = b->count;
	}
	if (old_kernel_fake)
		return fake_ioctl(fd, request, arg);
	ret = ioctl(fd, request, arg);
	return ret == -1 ? -errno : ret;
}

ssize_t uel_write(int fd, const void *buf, size_t len)
{
	ssize_t n;
	int ret;

	old_kernel_writes++;
	if (old_kernel_fake) {
		ret = fake_record(fd, buf, len);
		return ret ? ret : (ssize_t)len;
	}
	n = write(fd, buf, len);
	return n < 0 ? -errno : n;
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
