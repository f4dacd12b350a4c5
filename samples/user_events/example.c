// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal user_events producer.
 *
 * Registers the event "example u32 count; char[16] msg", waits until a
 * tracer (ftrace, perf, ...) enables it, then writes a few events and
 * unregisters.
 *
 * Usage: example [-n COUNT] [-d DELAY_MS]
 *
 * -d waits DELAY_MS before each write, e.g. to give a tracer that just
 * enabled the event time to finish attaching.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#define ENABLE_BIT	31
#define WAIT_MS		60000
#define MSG_LEN		16

/* Updated by the kernel when the event is enabled or disabled. */
static __u32 enabled;

/* One load and one bit test; the load is not cached by the compiler. */
static int event_enabled(void)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED) & (1U << ENABLE_BIT);
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

static int register_event(int fd, __u32 *write_index)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_bit = ENABLE_BIT;
	reg.enable_size = sizeof(enabled);
	reg.enable_addr = (__u64)(unsigned long)&enabled;
	reg.name_args = (__u64)(unsigned long)"example u32 count; char[16] msg";

	if (ioctl(fd, DIAG_IOCSREG, &reg) == -1)
		return -1;

	*write_index = reg.write_index;
	return 0;
}

static int unregister_event(int fd)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_bit = ENABLE_BIT;
	unreg.disable_addr = (__u64)(unsigned long)&enabled;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg);
}

int main(int argc, char **argv)
{
	char path[4096], msg[MSG_LEN];
	__u32 write_index, count;
	struct iovec io[3];
	int fd, opt, n = 10, delay_ms = 0, waited;

	while ((opt = getopt(argc, argv, "n:d:")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'd':
			delay_ms = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-d DELAY_MS]\n",
				argv[0]);
			return 2;
		}
	}

	if (tracefs_path(path, sizeof(path)) < 0) {
		fprintf(stderr, "tracefs path too long\n");
		return 1;
	}

	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 1;
	}

	if (register_event(fd, &write_index) < 0) {
		perror("DIAG_IOCSREG");
		return 1;
	}

	printf("registered example, write_index %u\n", write_index);
	printf("waiting for the enable bit\n");
	fflush(stdout);

	for (waited = 0; !event_enabled(); waited++) {
		if (waited >= WAIT_MS) {
			fprintf(stderr, "timed out waiting for the enable bit\n");
			unregister_event(fd);
			return 1;
		}
		usleep(1000);
	}

	io[0].iov_base = &write_index;
	io[0].iov_len = sizeof(write_index);
	io[1].iov_base = &count;
	io[1].iov_len = sizeof(count);
	io[2].iov_base = msg;
	io[2].iov_len = sizeof(msg);

	for (count = 1; count <= (__u32)n; count++) {
		if (delay_ms > 0)
			usleep(delay_ms * 1000);

		memset(msg, 0, sizeof(msg));
		snprintf(msg, sizeof(msg), "hello %u", count);

		if (writev(fd, io, 3) == -1) {
			perror("writev");
			unregister_event(fd);
			return 1;
		}
		printf("wrote example count=%u msg=\"%s\"\n", count, msg);
	}

	if (unregister_event(fd) < 0) {
		perror("DIAG_IOCSUNREG");
		return 1;
	}

	close(fd);
	return 0;
}
