// SPDX-License-Identifier: GPL-2.0
/*
 * libuser_events example: a request handler that reports each request as
 * the user event "lib_example u32 id; u64 bytes; __rel_loc char[] path"
 * when (and only when) a tracer is listening.
 *
 * Usage: example [-n COUNT] [-w] [-b]
 *   -n COUNT  handle COUNT requests (default 10)
 *   -w        wait (up to 60 s) until a tracer enables the event, asleep
 *             until its enable state changes if the kernel can say
 *   -b        collect the records in a batch and write them together
 *
 * Try:
 *   echo 1 > /sys/kernel/tracing/events/user_events/lib_example/enable
 * while "example -w -n 5" waits, then read /sys/kernel/tracing/trace.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "user_events.h"

#define NFIELDS 3

static const struct ue_field fields[NFIELDS] = {
	{ .name = "id", .type = UE_TYPE_U32 },
	{ .name = "bytes", .type = UE_TYPE_U64 },
	{ .name = "path", .type = UE_TYPE_STRING },
};

static void print_help(FILE *out)
{
	fprintf(out, "usage: example [-n COUNT] [-w] [-b]\n");
}

/* Write the batch's records; report the first one not written. */
static void submit(struct ue_batch *b)
{
	int err, n;

	n = ue_batch_submit(b, &err);
	if (err)
		fprintf(stderr, "batch: record %d not written: %s\n", n,
			strerror(-err));
}

static int wait_enabled(struct ue_session *s, const struct ue_event *ev)
{
	time_t end = time(NULL) + 60;
	uint64_t changes;

	while (!ue_enabled(ev)) {
		if (time(NULL) > end)
			return -ETIMEDOUT;
		/* a kernel without UE_FLAG_NOTIFY: look again and again */
		if (ue_session_wait(s, 1000, &changes) == -EOPNOTSUPP)
			sched_yield();
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ue_batch *batch = NULL;
	struct ue_session *s;
	struct ue_event *ev;
	struct ue_loss loss;
	int count = 10, wait = 0, use_batch = 0, opt, i, ret;
	char path[64];

	while ((opt = getopt(argc, argv, "n:wbh")) != -1) {
		switch (opt) {
		case 'n':
			count = atoi(optarg);
			break;
		case 'w':
			wait = 1;
			break;
		case 'b':
			use_batch = 1;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			print_help(stderr);
			return 2;
		}
	}

	ret = ue_session_open(NULL, &s);
	if (ret) {
		fprintf(stderr, "user_events: %s\n", strerror(-ret));
		return 1;
	}
	ret = ue_register_fields(s, "lib_example", fields, NFIELDS,
				 UE_FLAG_NOTIFY, &ev);
	if (ret) {
		fprintf(stderr, "register: %s\n", strerror(-ret));
		ue_session_close(s);
		return 1;
	}

	/* 0, 0: a 64 KiB buffer, as many records as one system call takes */
	if (use_batch) {
		ret = ue_batch_open(s, 0, 0, &batch);
		if (ret)
			fprintf(stderr, "batch: %s\n", strerror(-ret));
	}

	if (wait && wait_enabled(s, ev))
		fprintf(stderr, "nobody enabled lib_example\n");

	for (i = 0; i < count; i++) {
		/* The work below is only done while someone traces. */
		if (!ue_enabled(ev))
			continue;
		snprintf(path, sizeof(path), "/request/%d", i);
		if (!batch) {
			ret = ue_write(ev, (unsigned int)i, (uint64_t)i * 512,
				       path);
		} else {
			/* the record is copied: path may change after this */
			ret = ue_batch_add(batch, ev, (unsigned int)i,
					   (uint64_t)i * 512, path);
			if (ret == -ENOSPC) {
				submit(batch);
				ret = ue_batch_add(batch, ev, (unsigned int)i,
						   (uint64_t)i * 512, path);
			}
		}
		if (ret && ret != -EBADF)
			fprintf(stderr, "write: %s\n", strerror(-ret));
	}
	if (batch) {
		submit(batch);
		ue_batch_close(batch);
	}

	if (!ue_event_loss(ev, &loss))
		printf("lib_example: %llu written, %llu lost\n",
		       (unsigned long long)loss.written,
		       (unsigned long long)(loss.lost_ftrace + loss.lost_perf +
					    loss.lost_fault + loss.lost_size));

	ue_session_close(s);
	return 0;
}
