/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The least of io_uring that writing records needs, on the raw system
 * calls (no liburing): one ring, write SQEs queued in order, one
 * io_uring_enter() that submits them and waits for all their completions.
 * Header-only: the selftests and workbench/bench/uebench.c both use it.
 */
#ifndef UE_URING_H
#define UE_URING_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

struct ue_uring {
	int fd;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqes_len;
	unsigned int queued;
};

static inline void ue_uring_exit(struct ue_uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_map && r->cq_map != MAP_FAILED)
		munmap(r->cq_map, r->cq_len);
	if (r->sq_map && r->sq_map != MAP_FAILED)
		munmap(r->sq_map, r->sq_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

static inline void *ue_uring_map(int fd, size_t len, off_t off)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		    fd, off);
}

/*
 * A ring of @entries SQEs. Returns 0 or io_uring_setup()'s negative errno
 * (-EPERM where kernel.io_uring_disabled forbids it).
 */
static inline int ue_uring_init(struct ue_uring *r, unsigned int entries)
{
	struct io_uring_params p;
	int err;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		err = -errno;
		r->fd = -1;
		return err;
	}
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sq_map = ue_uring_map(r->fd, r->sq_len, IORING_OFF_SQ_RING);
	r->cq_map = ue_uring_map(r->fd, r->cq_len, IORING_OFF_CQ_RING);
	r->sqes = ue_uring_map(r->fd, r->sqes_len, IORING_OFF_SQES);
	if (r->sq_map == MAP_FAILED || r->cq_map == MAP_FAILED ||
	    r->sqes == MAP_FAILED) {
		err = -errno;
		ue_uring_exit(r);
		return err;
	}
	r->sq_head = (unsigned int *)((char *)r->sq_map + p.sq_off.head);
	r->sq_tail = (unsigned int *)((char *)r->sq_map + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)r->sq_map + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)r->sq_map + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)r->cq_map + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)r->cq_map + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)r->cq_map + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_map + p.cq_off.cqes);
	return 0;
}

/* Queue a write of @len bytes at @buf to @fd, completed with @data. */
static inline void ue_uring_write(struct ue_uring *r, int fd, const void *buf,
				  unsigned int len, uint64_t data)
{
	unsigned int tail = *r->sq_tail + r->queued++;
	unsigned int i = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_WRITE;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->off = -1;		/* no file position */
	sqe->user_data = data;
	r->sq_array[i] = i;
}

/*
 * Submit what is queued and wait for as many completions. Returns the
 * number submitted or a negative errno.
 */
static inline int ue_uring_submit(struct ue_uring *r)
{
	unsigned int n = r->queued;
	int ret;

	__atomic_store_n(r->sq_tail, *r->sq_tail + n, __ATOMIC_RELEASE);
	r->queued = 0;
	ret = syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS,
		      NULL, 0);
	return ret < 0 ? -errno : ret;
}

/* The next completion into @cqe: 1, or 0 if there is none. */
static inline int ue_uring_reap(struct ue_uring *r, struct io_uring_cqe *cqe)
{
	unsigned int head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return 0;
	*cqe = r->cqes[head & *r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 1;
}

#endif /* UE_URING_H */
