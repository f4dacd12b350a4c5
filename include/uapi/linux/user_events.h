/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * user_events: trace events defined and written by user programs.
 *
 * A program opens user_events_data in tracefs, registers each event with
 * DIAG_IOCSREG naming a bit in its own memory that the kernel keeps set
 * while anything traces the event, and writes events as
 * [u32 write_index][payload] with write() or writev().
 * See Documentation/trace/user_events.rst.
 */
#ifndef _UAPI_LINUX_USER_EVENTS_H
#define _UAPI_LINUX_USER_EVENTS_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Trace system of single-format events */
#define USER_EVENTS_SYSTEM "user_events"
/* Trace system of USER_EVENT_REG_MULTI_FORMAT events */
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"
/* Prefix of user events in dynamic_events */
#define USER_EVENTS_PREFIX "u:"

/*
 * Value of a __data_loc or __rel_loc field: the length of the data in the
 * upper 16 bits and its offset in the lower 16.
 */
#define DYN_LOC(offset, size) ((size) << 16 | (offset))

/**
 * enum user_reg_flag - flags of &struct user_reg
 * @USER_EVENT_REG_PERSIST: keep the event after its last user is gone,
 *	until DIAG_IOCSDEL; requires CAP_PERFMON.
 * @USER_EVENT_REG_MULTI_FORMAT: allow several formats of one name; the
 *	event is "name.<hex id>" in the user_events_multi system.
 * @USER_EVENT_REG_MAX: this and higher values up to bit 14 are not ABI; a
 *	kernel that does not know a flag fails the registration with EINVAL.
 * @USER_EVENT_REG_NOTIFY: wake the file's poll() and read() each time the
 *	event's enable state changes (a first tracer attaches, the last one
 *	leaves); see &struct user_loss for the other half of what a producer
 *	can learn. Extensions take flags from the top bit down, so that they
 *	stay clear of flags assigned from bit 0 up; a kernel without them
 *	fails the registration with EINVAL, which is how a program probes.
 */
enum user_reg_flag {
	USER_EVENT_REG_PERSIST		= 1U << 0,
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,
	USER_EVENT_REG_MAX		= 1U << 2,
	USER_EVENT_REG_NOTIFY		= 1U << 15,
};

/**
 * struct user_reg - argument of DIAG_IOCSREG
 * @size: input, sizeof(struct user_reg); larger values are accepted if the
 *	extra bytes are zero
 * @enable_bit: input, bit of the value at @enable_addr that the kernel sets
 *	while the event is traced and clears otherwise
 * @enable_size: input, size of that value: 4, or 8 on 64-bit kernels
 * @flags: input, &enum user_reg_flag values, 0 for none
 * @enable_addr: input, address of the value, naturally aligned and writable
 * @name_args: input, pointer to the NUL-terminated event command
 *	"name[ field[;field]...]"
 * @write_index: output, index to put in front of this event's payloads
 *	written to the same file descriptor
 */
struct user_reg {
	__u32	size;
	__u8	enable_bit;
	__u8	enable_size;
	__u16	flags;
	__u64	enable_addr;
	__u64	name_args;
	__u32	write_index;
} __attribute__((__packed__));

/**
 * struct user_unreg - argument of DIAG_IOCSUNREG
 * @size: input, sizeof(struct user_unreg)
 * @disable_bit: input, the @enable_bit that was registered
 * @__reserved: input, must be 0
 * @__reserved2: input, must be 0
 * @disable_addr: input, the @enable_addr that was registered
 */
struct user_unreg {
	__u32	size;
	__u8	disable_bit;
	__u8	__reserved;
	__u16	__reserved2;
	__u64	disable_addr;
} __attribute__((__packed__));

/**
 * struct user_loss - argument of DIAG_IOCGLOSS: what became of an event's
 *	records, counted since the event was created, for all its writers
 * @size: input, sizeof(struct user_loss), at least 16; output, the bytes
 *	filled: whole counters, fewer for an older kernel, never more than
 *	asked for
 * @write_index: input, the write index of the event on this file
 * @written: output, records written while a consumer was attached,
 *	failed writes (EFAULT, E2BIG) included
 * @lost_ftrace: output, records an ftrace buffer (the top level one or an
 *	instance) refused: full in non-overwrite mode, or recording off; one
 *	per buffer that refused
 * @lost_perf: output, records a perf ring had no room for (counted by
 *	perf per perf event: PERF_FORMAT_LOST), or that perf could not take
 *	on this CPU at the time (a write from an interrupt while perf was
 *	busy with another record); one per perf event or CPU
 * @lost_fault: output, records whose payload could not be read, or whose
 *	dynamic fields point outside the record (the write failed with
 *	EFAULT), lost to every consumer
 * @lost_size: output, records larger than a consumer takes (an ftrace
 *	sub-buffer, perf's largest raw sample); one per consumer
 *
 * Later kernels may append reasons; a program reads those its @size covers.
 * The kernel takes DIAG_IOCGLOSS whatever size its number encodes, so a
 * program built with a larger structure works with an older kernel.
 */
struct user_loss {
	__u32	size;
	__u32	write_index;
	__u64	written;
	__u64	lost_ftrace;
	__u64	lost_perf;
	__u64	lost_fault;
	__u64	lost_size;
};

/**
 * struct user_batch - argument of DIAG_IOCSBATCH: records written in one call
 * @size: input, sizeof(struct user_batch)
 * @count: input, the number of records, 1 to %USER_BATCH_MAX
 * @records: input, address of @count struct iovec, one per record, each
 *	a buffer as write() takes it: [u32 write_index][payload]
 * @error: output, 0 if every record was written, else the
 *	positive errno of the first record not written, the one write()
 *	of its buffer would have returned
 * @__reserved: input, must be 0
 *
 * The records are written in order, each as its own write() would write
 * it, by the calling thread: the same bytes, pid and CPU. The call returns
 * the number of records written, from the first; records after the first
 * one not written are not tried. As for write(), a record that one
 * consumer recorded before another found it changed or unreadable counts
 * as not written.
 */
struct user_batch {
	__u32	size;
	__u32	count;
	__u64	records;
	__s32	error;
	__u32	__reserved;
};

/* The most records one DIAG_IOCSBATCH takes (UIO_MAXIOV) */
#define USER_BATCH_MAX 1024

#define DIAG_IOC_MAGIC '*'

/* Register an event: struct user_reg * */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/* Delete an unused event by name: char * */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

/* Stop updating a registered bit: struct user_unreg * */
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

/*
 * Extensions number their ioctls from the top of user_events' range
 * ('*' 00-1F) down, with the size of their argument, so that they stay
 * clear of upstream's, numbered from 0 up. A kernel without one fails it
 * with ENOTTY.
 */

/* Counters of an event registered on this file: struct user_loss */
#define DIAG_IOCGLOSS _IOWR(DIAG_IOC_MAGIC, 0x1f, struct user_loss)
/* Write many records in one call: struct user_batch */
#define DIAG_IOCSBATCH _IOWR(DIAG_IOC_MAGIC, 0x1e, struct user_batch)

#endif /* _UAPI_LINUX_USER_EVENTS_H */
