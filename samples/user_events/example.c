// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal user_events producer.
 *
 * Registers the event "example u32 count; char[16] msg" and the rundown
 * event "example_rundown u32 pid; u32 count", waits until a tracer
 * (ftrace, perf, ...) enables example, then writes a few events,
 * prints the loss counts of example and unregisters.  Whenever a tracer
 * has attached to example_rundown meanwhile, the sample writes its
 * rundown: what a tracer that starts late needs to know.
 *
 * The events are registered with USER_EVENT_REG_NOTIFY, so that the
 * sample sleeps in poll() on user_events_data until their enable state
 * changes, and writes the rundown after each wake-up that finds
 * example_rundown enabled.  A kernel without that flag fails the
 * registration with EINVAL; the sample then registers without it, looks
 * at its bits every millisecond and writes the rundown when the bit of
 * example_rundown went from clear to set.
 *
 * With -b the sample lays its records out in memory first and writes
 * them all with one DIAG_IOCSBATCH ioctl (one per USER_BATCH_MAX
 * records); a kernel without it fails the ioctl with ENOTTY, and the
 * sample then write()s each record.
 *
 * Usage: example [-n COUNT] [-d DELAY_MS] [-b]
 *
 * -d waits DELAY_MS before each write, the rundown included, e.g. to give
 * a tracer that just enabled the event time to finish attaching (perf
 * attaches before it enables its events); with -b, before the batch.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#define ENABLE_BIT	31
#define RUNDOWN_BIT	30
#define WAIT_S		60
#define MSG_LEN		16
#define EXAMPLE_CMD	"example u32 count; char[16] msg"
#define RUNDOWN_CMD	"example_rundown u32 pid; u32 count"

/* Updated by the kernel when the events are enabled or disabled. */
static __u32 enabled;

/* One load and one bit test; the load is not cached by the compiler. */
static int event_enabled(int bit)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED) & (1U << bit);
}

static int tracefs_path(char *buf, size_t len)
{
	char line[4096], dev[256], dir[2048], type[64];
	FILE *fp = fopen("/proc/mounts", "r");
	int found = 0;

	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			if (sscanf(line, "%255s %2047s %63s", dev, dir, type) != 3)
				continue;
			if (strcmp(type, "tracefs") == 0) {
				found = 1;
				break;
			}
		}
		fclose(fp);
	}
	if (!found)
		snprintf(dir, sizeof(dir), "/sys/kernel/tracing");

	return snprintf(buf, len, "%s/user_events_data", dir) >= (int)len ?
		-1 : 0;
}

static int register_event(int fd, const char *cmd, int bit, __u16 flags,
			  __u32 *write_index)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_bit = bit;
	reg.enable_size = sizeof(enabled);
	reg.flags = flags;
	reg.enable_addr = (__u64)(unsigned long)&enabled;
	reg.name_args = (__u64)(unsigned long)cmd;

	if (ioctl(fd, DIAG_IOCSREG, &reg) == -1)
		return -1;

	*write_index = reg.write_index;
	return 0;
}

static int unregister_event(int fd, int bit)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_bit = bit;
	unreg.disable_addr = (__u64)(unsigned long)&enabled;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg);
}

static void unregister_all(int fd)
{
	unregister_event(fd, ENABLE_BIT);
	unregister_event(fd, RUNDOWN_BIT);
}

/* A tracer may have attached to example_rundown since the last rundown. */
static int rundown_pending = 1;

/*
 * Wait up to @timeout_ms for a change of the enable states: in poll()
 * until the kernel wakes the file, or, without USER_EVENT_REG_NOTIFY, a
 * millisecond and a look at the bit.
 */
static void wait_change(int fd, int notify, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	__u64 changes;

	if (!notify) {
		if (timeout_ms)
			usleep(1000);
		if (!event_enabled(RUNDOWN_BIT))
			rundown_pending = 1;
		return;
	}
	if (poll(&pfd, 1, timeout_ms) == 1 && (pfd.revents & POLLIN) &&
	    read(fd, &changes, sizeof(changes)) == sizeof(changes)) {
		printf("woken: %llu enable change(s)\n",
		       (unsigned long long)changes);
		/* The count says neither which event changed nor how. */
		rundown_pending = 1;
	}
}

/* Write the rundown: what a tracer that starts late needs to know. */
static void rundown(int fd, __u32 write_index, __u32 count, int delay_ms)
{
	__u32 pid = getpid();
	struct iovec io[3] = {
		{ &write_index, sizeof(write_index) },
		{ &pid, sizeof(pid) },
		{ &count, sizeof(count) },
	};

	if (!rundown_pending || !event_enabled(RUNDOWN_BIT))
		return;
	rundown_pending = 0;
	if (delay_ms > 0)
		usleep(delay_ms * 1000);
	if (writev(fd, io, 3) == -1)
		perror("writev example_rundown");
	else
		printf("wrote example_rundown pid=%u count=%u\n", pid, count);
}

/* The msg of example's record @count: char[16], NUL padded. */
static void make_msg(char *msg, __u32 count)
{
	char text[32];
	size_t len;

	len = snprintf(text, sizeof(text), "hello %u", count);
	memset(msg, 0, MSG_LEN);
	memcpy(msg, text, len < MSG_LEN ? len : MSG_LEN - 1);
}

/* A record of example as write() takes it: [write_index][payload] */
struct example_record {
	__u32 write_index;
	__u32 count;
	char msg[MSG_LEN];
};

/* The kernel failed DIAG_IOCSBATCH with ENOTTY: it does not know it. */
static int no_batch;

/*
 * Write the @n records of @io with one DIAG_IOCSBATCH or, on a kernel
 * without it, one write() each.  Return: the records written, from the
 * first; if fewer than @n, *@err is the errno of the next one.
 */
static __u32 write_records(int fd, const struct iovec *io, __u32 n,
			   int *err)
{
	struct user_batch batch = {0};
	__u32 i;
	int ret;

	if (!no_batch) {
		batch.size = sizeof(batch);
		batch.count = n;
		batch.records = (__u64)(unsigned long)io;
		ret = ioctl(fd, DIAG_IOCSBATCH, &batch);
		if (ret >= 0) {
			*err = batch.error;
			return ret;
		}
		if (errno != ENOTTY) {
			*err = errno;
			return 0;
		}
		no_batch = 1;
		printf("no DIAG_IOCSBATCH: one write() per record\n");
	}
	for (i = 0; i < n; i++) {
		if (write(fd, io[i].iov_base, io[i].iov_len) == -1) {
			*err = errno;
			break;
		}
	}
	return i;
}

/* -b: the records of example 1..@n, in as few system calls as can be. */
static int write_batch(int fd, __u32 write_index, __u32 n)
{
	struct example_record *rec = calloc(n, sizeof(*rec));
	struct iovec *io = calloc(n, sizeof(*io));
	__u32 i, done = 0, chunk, written;
	int err = 0;

	if (!rec || !io) {
		perror("calloc");
		err = ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		rec[i].write_index = write_index;
		rec[i].count = i + 1;
		make_msg(rec[i].msg, i + 1);
		io[i].iov_base = &rec[i];
		io[i].iov_len = sizeof(rec[i]);
	}
	while (done < n && !err) {
		chunk = n - done < USER_BATCH_MAX ? n - done : USER_BATCH_MAX;
		written = write_records(fd, &io[done], chunk, &err);
		for (i = done; i < done + written; i++)
			printf("wrote example count=%u msg=\"%s\"\n",
			       rec[i].count, rec[i].msg);
		done += written;
	}
	if (err)
		fprintf(stderr, "example count=%u not written: %s\n", done + 1,
			strerror(err));
out:
	free(rec);
	free(io);
	return err ? -1 : 0;
}

static void print_loss(int fd, __u32 write_index)
{
	struct user_loss loss = {0};

	loss.size = sizeof(loss);
	loss.write_index = write_index;
	if (ioctl(fd, DIAG_IOCGLOSS, &loss) == -1) {
		/* ENOTTY: a kernel without loss counts */
		if (errno != ENOTTY)
			perror("DIAG_IOCGLOSS");
		return;
	}
	printf("example: written %llu, lost: ftrace %llu perf %llu fault %llu size %llu\n",
	       (unsigned long long)loss.written,
	       (unsigned long long)loss.lost_ftrace,
	       (unsigned long long)loss.lost_perf,
	       (unsigned long long)loss.lost_fault,
	       (unsigned long long)loss.lost_size);
}

int main(int argc, char **argv)
{
	char path[4096], msg[MSG_LEN];
	__u32 write_index, rundown_index, count;
	__u16 flags = USER_EVENT_REG_NOTIFY;
	struct iovec io[3];
	int fd, opt, n = 10, delay_ms = 0, batch = 0, ret;
	time_t end;

	while ((opt = getopt(argc, argv, "n:d:b")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'd':
			delay_ms = atoi(optarg);
			break;
		case 'b':
			batch = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-d DELAY_MS] [-b]\n",
				argv[0]);
			return 2;
		}
	}

	if (tracefs_path(path, sizeof(path)) < 0) {
		fprintf(stderr, "tracefs path too long\n");
		return 1;
	}

	/* O_RDWR: read() takes the count of enable changes */
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 1;
	}

	/* A kernel without USER_EVENT_REG_NOTIFY fails it with EINVAL. */
	ret = register_event(fd, EXAMPLE_CMD, ENABLE_BIT, flags, &write_index);
	if (ret < 0 && errno == EINVAL) {
		flags = 0;
		ret = register_event(fd, EXAMPLE_CMD, ENABLE_BIT, flags,
				     &write_index);
	}
	if (ret == 0)
		ret = register_event(fd, RUNDOWN_CMD, RUNDOWN_BIT, flags,
				     &rundown_index);
	if (ret < 0) {
		perror("DIAG_IOCSREG");
		unregister_all(fd);
		return 1;
	}

	printf("registered example, write_index %u%s\n", write_index,
	       flags ? ", woken on enable changes" : "");
	printf("waiting for the enable bit\n");
	fflush(stdout);

	/* Registering is no change: a tracer may be attached already. */
	end = time(NULL) + WAIT_S;
	for (;;) {
		rundown(fd, rundown_index, 0, delay_ms);
		if (event_enabled(ENABLE_BIT))
			break;
		if (time(NULL) >= end) {
			fprintf(stderr, "timed out waiting for the enable bit\n");
			unregister_all(fd);
			return 1;
		}
		wait_change(fd, flags, 1000);
		fflush(stdout);
	}

	io[0].iov_base = &write_index;
	io[0].iov_len = sizeof(write_index);
	io[1].iov_base = &count;
	io[1].iov_len = sizeof(count);
	io[2].iov_base = msg;
	io[2].iov_len = sizeof(msg);

	/* -b: one rundown, one delay, then all the records together */
	if (batch) {
		wait_change(fd, flags, 0);
		rundown(fd, rundown_index, 0, delay_ms);
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		if (n > 0 && write_batch(fd, write_index, n) < 0) {
			unregister_all(fd);
			return 1;
		}
	}

	for (count = 1; !batch && count <= (__u32)n; count++) {
		wait_change(fd, flags, 0);
		rundown(fd, rundown_index, count - 1, delay_ms);
		if (delay_ms > 0)
			usleep(delay_ms * 1000);

		make_msg(msg, count);

		if (writev(fd, io, 3) == -1) {
			perror("writev");
			unregister_all(fd);
			return 1;
		}
		printf("wrote example count=%u msg=\"%s\"\n", count, msg);
	}

	print_loss(fd, write_index);

	if (unregister_event(fd, ENABLE_BIT) < 0 ||
	    unregister_event(fd, RUNDOWN_BIT) < 0) {
		perror("DIAG_IOCSUNREG");
		return 1;
	}

	close(fd);
	return 0;
}
