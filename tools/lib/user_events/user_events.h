/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libuser_events: define, enable-check and write Linux user_events.
 *
 * A program opens a session (one file descriptor on user_events_data in
 * tracefs), registers events from a command string or a field list, tests
 * ue_enabled() before doing any work for an event, and writes events with
 * typed values.  See user_events(3).
 *
 * ABI: handles are opaque except for the first bytes of every event
 * handle, struct ue_event_head, which the inline ue_enabled() reads.  The
 * value types struct ue_field and struct ue_value are plain C layouts that
 * will not change within soname libuser_events.so.1.
 */
#ifndef _USER_EVENTS_LIB_H
#define _USER_EVENTS_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of struct ue_event_head, stored in its @abi member. */
#define UE_EVENT_ABI		1

/* Registration flags (ue_register(), ue_register_fields()). */
/* Keep the event after the last user is gone (needs CAP_PERFMON). */
#define UE_FLAG_PERSIST		0x1U
/* Allow several formats per name (system user_events_multi). */
#define UE_FLAG_MULTI_FORMAT	0x2U
/* Wake ue_session_wait() when the event's enable state changes. */
#define UE_FLAG_NOTIFY		0x8000U
/* Fail instead of retrying without flags the kernel does not know. */
#define UE_FLAG_STRICT		0x10000U

/**
 * DOC: Handles
 *
 * struct ue_session is an open user_events_data file and its events.  It
 * is opaque; ue_session_open() creates it, ue_session_close() destroys it.
 *
 * struct ue_event is a registered event.  It is opaque, except that it
 * starts with a &struct ue_event_head.  ue_register() or
 * ue_register_fields() create it, ue_event_close() or ue_session_close()
 * destroy it.
 *
 * struct ue_batch holds records of events of one session, to be written
 * together.  It is opaque; ue_batch_open() creates it, ue_batch_close()
 * destroys it.
 */
struct ue_session;
struct ue_event;
struct ue_batch;

/**
 * struct ue_event_head - the public, stable start of every &struct ue_event
 * @enabled: nonzero while at least one tracer (ftrace, perf, BPF, a hist
 *	trigger...) has the event enabled.  The kernel writes this word
 *	itself (it is the registration's enable address, bit 0); the library
 *	never does.  Read it with ue_enabled().
 * @abi: %UE_EVENT_ABI of the library that created the event.
 *
 * A pointer to a &struct ue_event may be converted to a pointer to this
 * structure; nothing else of the event is public.
 */
struct ue_event_head {
	uint32_t enabled;
	uint32_t abi;
};

/**
 * ue_enabled() - is the event being traced?
 * @e: the event
 *
 * One load and one test, no call: put it in front of any work needed only
 * to write the event.  A stale answer is harmless (the write then fails
 * with -EBADF, or an event is skipped while a tracer attaches).
 *
 * Return: true while a tracer has the event enabled.
 */
static inline bool ue_enabled(const struct ue_event *e)
{
	const struct ue_event_head *h = (const struct ue_event_head *)(const void *)e;

	/* GCC and Clang, C and C++: a plain load the compiler cannot cache */
	return __atomic_load_n(&h->enabled, __ATOMIC_RELAXED) != 0;
}

/**
 * enum ue_type - field types of ue_register_fields()
 * @UE_TYPE_U8: u8
 * @UE_TYPE_S8: s8
 * @UE_TYPE_U16: u16
 * @UE_TYPE_S16: s16
 * @UE_TYPE_U32: u32
 * @UE_TYPE_S32: s32
 * @UE_TYPE_U64: u64
 * @UE_TYPE_S64: s64
 * @UE_TYPE_CHAR_ARRAY: char[size], a fixed-size string
 * @UE_TYPE_BYTE_ARRAY: unsigned char[size], fixed-size bytes
 * @UE_TYPE_STRING: __rel_loc char[], a variable-length string
 * @UE_TYPE_DATA_LOC_STRING: __data_loc char[], a variable-length string
 * @UE_TYPE_BLOB: __rel_loc u8[], variable-length bytes (a dynamic field
 *	of a char type, unsigned char[] included, is a NUL-terminated string)
 * @UE_TYPE_STRUCT: struct tag name size, @size opaque bytes
 */
enum ue_type {
	UE_TYPE_U8 = 1,
	UE_TYPE_S8,
	UE_TYPE_U16,
	UE_TYPE_S16,
	UE_TYPE_U32,
	UE_TYPE_S32,
	UE_TYPE_U64,
	UE_TYPE_S64,
	UE_TYPE_CHAR_ARRAY,
	UE_TYPE_BYTE_ARRAY,
	UE_TYPE_STRING,
	UE_TYPE_DATA_LOC_STRING,
	UE_TYPE_BLOB,
	UE_TYPE_STRUCT,
};

/**
 * struct ue_field - one field of ue_register_fields()
 * @name: field name, one word (the kernel decides what it accepts)
 * @type: an &enum ue_type
 * @size: bytes of %UE_TYPE_CHAR_ARRAY, %UE_TYPE_BYTE_ARRAY and
 *	%UE_TYPE_STRUCT fields; 0 for the others
 * @tag: struct tag of %UE_TYPE_STRUCT fields (NULL: the field name)
 */
struct ue_field {
	const char *name;
	uint32_t type;
	uint32_t size;
	const char *tag;
};

/**
 * struct ue_value - the value of one field for ue_write_values()
 * @u: unsigned integer fields
 * @s: signed integer fields
 * @p: fixed arrays, structs, strings (NUL-terminated) and blobs
 * @len: bytes at @p for blob fields (__data_loc/__rel_loc of an element
 *	type other than char: u8[], u32[]...); ignored for every other field
 */
struct ue_value {
	union {
		uint64_t u;
		int64_t s;
		const void *p;
	};
	uint64_t len;
};

/**
 * struct ue_loss - what became of an event's records (ue_event_loss())
 * @written: records written while a consumer was attached
 * @lost_ftrace: records an ftrace buffer (the top level one or an
 *	instance) refused, full in non-overwrite mode or with recording off;
 *	one per buffer that refused
 * @lost_perf: records a perf ring buffer had no room for, or that perf
 *	could not take on a CPU at the time; one per perf event or CPU
 * @lost_fault: records whose payload could not be read (the write failed
 *	with -EFAULT), lost to every consumer
 * @lost_size: records larger than a consumer takes; one per consumer
 *
 * The counters are the event's, for all its writers in all processes,
 * since the event was created.  A counter the kernel does not report
 * reads 0.
 */
struct ue_loss {
	uint64_t written;
	uint64_t lost_ftrace;
	uint64_t lost_perf;
	uint64_t lost_fault;
	uint64_t lost_size;
};

/**
 * ue_find_tracefs() - locate the tracefs mount
 * @buf: receives the directory
 * @len: size of @buf
 *
 * Scans /proc/mounts: the first tracefs mount that offers user_events_data,
 * else the first tracefs mount, else "tracing" below a debugfs mount.
 * Mount points with escaped characters (spaces...) are handled.
 *
 * Return: 0, -ENOENT when nothing was found, -ENAMETOOLONG when @buf is
 * too small, or another negative errno.
 */
int ue_find_tracefs(char *buf, size_t len);

/**
 * ue_session_open() - open user_events_data
 * @tracefs: tracefs directory, or NULL to use ue_find_tracefs()
 * @out: receives the session
 *
 * The file is opened close-on-exec.  A session may be used by many
 * threads; it survives fork() (see ue_register()).
 *
 * Return: 0 or a negative errno (-ENOENT: no user_events in this kernel).
 */
int ue_session_open(const char *tracefs, struct ue_session **out);

/**
 * ue_session_close() - close a session
 * @s: the session (NULL is ignored)
 *
 * Unregisters and frees every event still registered on @s, then closes
 * the file.  Events nobody else uses (and that do not persist) are
 * removed by the kernel at once.
 */
void ue_session_close(struct ue_session *s);

/**
 * ue_session_tracefs() - the tracefs directory of a session
 * @s: the session
 *
 * Return: the directory, valid until ue_session_close().
 */
const char *ue_session_tracefs(const struct ue_session *s);

/**
 * ue_session_fd() - the user_events_data file descriptor of a session
 * @s: the session
 *
 * An event loop watches it for POLLIN (EPOLLIN) once an event of the
 * session is registered with %UE_FLAG_NOTIFY in effect, and then calls
 * ue_session_wait() with a timeout of 0.  Until then the descriptor is
 * always ready: do not watch it.
 *
 * Return: the descriptor, owned by the session.
 */
int ue_session_fd(const struct ue_session *s);

/**
 * ue_session_wait() - wait until an event's enable state changes
 * @s: the session
 * @timeout_ms: as for poll(2): -1 waits without limit, 0 not at all
 * @changes: receives the number of changes since the last call
 *
 * Waits until an event registered on @s with %UE_FLAG_NOTIFY in effect
 * changes its enable state (its first tracer attaches, its last one
 * leaves), then takes the count of such changes of all those events,
 * which starts again from 0.  The count says how often, not which event
 * nor in which direction: test each event with ue_enabled().
 * Registering an event is not a change: test ue_enabled() after
 * ue_register() before waiting.
 *
 * Only one thread at a time should wait on, or read, a session: another
 * reader can take the count between the wake-up and the read, and the
 * call then blocks until the next change, whatever @timeout_ms.
 *
 * Return: 0, -ETIMEDOUT, -EINTR (a signal), -EOPNOTSUPP (no event of @s
 * was ever registered with %UE_FLAG_NOTIFY in effect, or the kernel does
 * not know it: see ue_event_dropped_flags()), -EINVAL (NULL arguments),
 * or another negative errno.
 */
int ue_session_wait(struct ue_session *s, int timeout_ms, uint64_t *changes);

/**
 * ue_register() - register an event from a command string
 * @s: the session
 * @command: "name[ field[; field]...]", e.g. "req u32 id; __rel_loc char[] url"
 * @flags: %UE_FLAG_PERSIST, %UE_FLAG_MULTI_FORMAT, %UE_FLAG_NOTIFY,
 *	%UE_FLAG_STRICT
 * @out: receives the event
 *
 * The command goes to the kernel as given; the library only reads it to
 * learn the payload layout for ue_write() and ue_write_values().  Should it
 * not know the layout of a command the kernel accepted, or should the
 * fields need more vectors than one writev() takes (more than
 * (IOV_MAX - 1) / 3 fields), the event is registered all the same and can
 * be written with ue_write_raw() only.
 *
 * If the kernel rejects the registration with EINVAL while flags are set
 * and %UE_FLAG_STRICT is not, it is retried without %UE_FLAG_NOTIFY,
 * then without %UE_FLAG_MULTI_FORMAT, then without any flag (kernels
 * without the extension, before 6.10, before 6.6 do not know them);
 * ue_event_dropped_flags() reports what was dropped.
 *
 * Registrations are made under a library-wide mutex; writes take no lock.
 * After fork() the child has its own copy of every registration (the
 * kernel duplicates them into the child's address space, and the handles
 * live in memory the child also got a copy of): the child may test,
 * write and close the events it inherited without affecting the parent.
 *
 * Return: 0, -EINVAL (NULL arguments or unknown flags, or the kernel
 * refused the command), -EADDRINUSE (the name exists with other fields),
 * -EPERM (%UE_FLAG_PERSIST without CAP_PERFMON), -ENOMEM, or another
 * negative errno from the kernel.
 */
int ue_register(struct ue_session *s, const char *command, unsigned int flags,
		struct ue_event **out);

/**
 * ue_format_command() - build the command string of a field list
 * @buf: receives the command (may be NULL when @len is 0)
 * @len: size of @buf
 * @name: event name
 * @fields: the fields
 * @nfields: number of @fields
 *
 * Return: the length of the command without its NUL (as snprintf(); the
 * command was truncated if it is >= @len), or -EINVAL for an unknown type
 * or a missing size or name.
 */
int ue_format_command(char *buf, size_t len, const char *name,
		      const struct ue_field *fields, unsigned int nfields);

/**
 * ue_register_fields() - register an event from a field list
 * @s: the session
 * @name: event name
 * @fields: the fields, in payload order
 * @nfields: number of @fields
 * @flags: as for ue_register()
 * @out: receives the event
 *
 * Return: as ue_register().
 */
int ue_register_fields(struct ue_session *s, const char *name,
		       const struct ue_field *fields, unsigned int nfields,
		       unsigned int flags, struct ue_event **out);

/**
 * ue_event_close() - unregister and free an event
 * @e: the event (NULL is ignored)
 *
 * The kernel stops updating the enable word; the handle is freed.  The
 * event itself goes away once its last user (the open
 * user_events_data file of @e's handle included) is gone, unless it
 * persists.
 *
 * Return: 0, or the negative errno of the unregistration (the handle is
 * freed anyway).
 */
int ue_event_close(struct ue_event *e);

/**
 * ue_event_name() - the name the event was registered with
 * @e: the event
 *
 * Return: the name (without any multi-format suffix).
 */
const char *ue_event_name(const struct ue_event *e);

/**
 * ue_event_flags() - the registration flags in effect
 * @e: the event
 *
 * Return: the %UE_FLAG_* values the kernel accepted.
 */
unsigned int ue_event_flags(const struct ue_event *e);

/**
 * ue_event_dropped_flags() - flags dropped to register on an older kernel
 * @e: the event
 *
 * Return: the requested %UE_FLAG_* values that were not applied.
 */
unsigned int ue_event_dropped_flags(const struct ue_event *e);

/**
 * ue_event_write_index() - the kernel's write index of the event
 * @e: the event
 *
 * Return: the index that prefixes the event's payloads on the session fd.
 */
uint32_t ue_event_write_index(const struct ue_event *e);

/**
 * ue_event_field_count() - number of fields of the event
 * @e: the event
 *
 * Return: the number of fields, i.e. of values ue_write_values() takes.
 */
unsigned int ue_event_field_count(const struct ue_event *e);

/**
 * ue_event_loss() - the event's counts of written and lost records
 * @e: the event
 * @out: receives the counts (see &struct ue_loss)
 *
 * Records a consumer chose not to take (filters, pid filters, a
 * soft-disabled event, triggers) and the decisions of BPF programs are
 * not lost and not counted.  Perf's losses are read from perf when asked.
 *
 * Return: 0, -EOPNOTSUPP (the kernel has no loss counts), -EINVAL (NULL
 * arguments), or another negative errno.
 */
int ue_event_loss(const struct ue_event *e, struct ue_loss *out);

/**
 * ue_event_tracepoint() - "system/name" of the event in tracefs
 * @e: the event
 * @buf: receives the text
 * @len: size of @buf
 *
 * For a multi-format event the versioned name (name.<hex id>) is found by
 * comparing the format files of user_events_multi with the event's fields.
 *
 * Return: the length of the text, -ENOENT, -ENAMETOOLONG, -EOPNOTSUPP (a
 * multi-format event whose layout the library does not know) or another
 * negative errno.
 */
int ue_event_tracepoint(const struct ue_event *e, char *buf, size_t len);

/**
 * ue_event_trace_id() - the trace event id (perf_event_attr.config)
 * @e: the event
 *
 * Return: the id (> 0), or a negative errno.
 */
int ue_event_trace_id(const struct ue_event *e);

/**
 * ue_write() - write an event, values as arguments
 * @e: the event
 * @...: one argument per field, in order: an int or unsigned int for
 *	1-, 2- and 4-byte integers, an int64_t or uint64_t for 8-byte
 *	integers, a const char * string for char[N] (truncated to N - 1
 *	bytes, NUL padded) and string fields, a const void * for unsigned
 *	char[N] and struct fields (exactly their size is read), and a
 *	const void * followed by a size_t for blob fields
 *
 * One writev(), no allocation, no lock.
 *
 * Return: 0, -EBADF when no tracer is attached, -E2BIG when a string or
 * blob does not fit a location word (65535 bytes, at offsets up to 65535)
 * or no tracer could hold the record, -EOPNOTSUPP when the library does
 * not know the event's layout (see ue_register()), or another negative
 * errno.
 */
int ue_write(const struct ue_event *e, ...);

/**
 * ue_write_values() - write an event, values as an array
 * @e: the event
 * @vals: one value per field (see &struct ue_value)
 * @nvals: number of @vals; must equal ue_event_field_count()
 *
 * Return: as ue_write(); -EINVAL when @nvals is wrong.
 */
int ue_write_values(const struct ue_event *e, const struct ue_value *vals,
		    unsigned int nvals);

/**
 * ue_write_raw() - write a payload prepared by the caller
 * @e: the event
 * @iov: the payload (without the write index)
 * @iovcnt: number of @iov, fewer than IOV_MAX
 *
 * __data_loc offsets count from the start of the trace record, whose
 * common fields take 8 bytes before the payload; __rel_loc offsets count
 * from the end of the location word.
 *
 * Return: as ue_write().
 */
int ue_write_raw(const struct ue_event *e, const struct iovec *iov,
		 unsigned int iovcnt);

/**
 * DOC: Batches
 *
 * A batch collects records of events of one session and writes them in
 * one system call, DIAG_IOCSBATCH, each exactly as its own ue_write()
 * would write it (the same bytes, pid and CPU, in the order added).  On a
 * kernel without that ioctl (it fails with ENOTTY, remembered for the
 * session) the records are written with one write() each, with the same
 * results.
 *
 * Adding checks ue_enabled() first: the record of an event nobody traces
 * is not added (-EBADF) and costs nothing more.  Otherwise the record is
 * laid out as ue_write() lays it out and copied into the batch's buffer,
 * so the values need not outlive the call.
 *
 * A batch belongs to one thread at a time; distinct batches, and
 * ue_write(), may be used at the same time on the same session and
 * events.  An event must stay open while a record of it is in a batch
 * (until ue_batch_submit() or ue_batch_close()).
 */

/**
 * ue_batch_open() - create a batch
 * @s: the session whose events the batch takes
 * @bytes: size of its buffer, which holds the records as they are
 *	written, [u32 write_index][payload] each; 0: 65536
 * @max_records: records it takes; 0: 1024 (USER_BATCH_MAX of
 *	<linux/user_events.h>, what one DIAG_IOCSBATCH takes: more are
 *	written with several)
 * @out: receives the batch
 *
 * Return: 0, -EINVAL (NULL arguments, @max_records above INT_MAX) or
 * -ENOMEM.
 */
int ue_batch_open(struct ue_session *s, size_t bytes,
		  unsigned int max_records, struct ue_batch **out);

/**
 * ue_batch_close() - free a batch
 * @b: the batch (NULL is ignored)
 *
 * Records added since the last ue_batch_submit() are not written.
 */
void ue_batch_close(struct ue_batch *b);

/**
 * ue_batch_add() - add a record to a batch, values as arguments
 * @b: the batch
 * @e: the event, of the batch's session
 * @...: the values, as ue_write() takes them
 *
 * The values are read now: a pointer that ue_write() would answer with
 * -EFAULT after the kernel tried to read it must here point to readable
 * memory.
 *
 * Return: 0, -EBADF (no tracer has @e enabled: nothing added), -ENOSPC
 * (the buffer or the record slots are full: submit, then add again),
 * -EMSGSIZE (the record is larger than the whole buffer), -EINVAL (NULL
 * arguments, or @e is of another session), or what ue_write() would
 * return before writing: -E2BIG, -EFAULT, -EOPNOTSUPP.
 */
int ue_batch_add(struct ue_batch *b, const struct ue_event *e, ...);

/**
 * ue_batch_add_values() - add a record to a batch, values as an array
 * @b: the batch
 * @e: the event, of the batch's session
 * @vals: one value per field (see &struct ue_value)
 * @nvals: number of @vals; must equal ue_event_field_count()
 *
 * Return: as ue_batch_add(); -EINVAL when @nvals is wrong.
 */
int ue_batch_add_values(struct ue_batch *b, const struct ue_event *e,
			const struct ue_value *vals, unsigned int nvals);

/**
 * ue_batch_add_raw() - add a payload prepared by the caller to a batch
 * @b: the batch
 * @e: the event, of the batch's session
 * @iov: the payload (without the write index), as ue_write_raw() takes it
 * @iovcnt: number of @iov, fewer than IOV_MAX
 *
 * The payload is copied, unchecked: the kernel judges it when the batch
 * is submitted.
 *
 * Return: as ue_batch_add(); -EFAULT for a vector with a length and a
 * NULL base.
 */
int ue_batch_add_raw(struct ue_batch *b, const struct ue_event *e,
		     const struct iovec *iov, unsigned int iovcnt);

/**
 * ue_batch_count() - records waiting in a batch
 * @b: the batch
 *
 * Return: the records added since the last ue_batch_submit().
 */
unsigned int ue_batch_count(const struct ue_batch *b);

/**
 * ue_batch_submit() - write the records of a batch
 * @b: the batch
 * @error: receives 0, or the negative errno of the first record not
 *	written (may be NULL)
 *
 * Writes the records in the order they were added.  A record the kernel
 * refuses with EBADF, because its event is no longer traced, is dropped
 * as ue_write() would have had it refused, and the next records are
 * written all the same; ue_batch_dropped() counts them.  Any other
 * refusal ends the submission: the records after the refused one are not
 * tried.  Either way the batch is empty afterwards, ready for new
 * records.
 *
 * Return: n >= 0, the records dealt with, from the first: each of them
 * was written, unless it was dropped.  When n is less than
 * ue_batch_count() was, record [n] was not written, and *@error says why
 * (what ue_write() of it would have returned, or the error of the
 * system call that was to write it: -ENOMEM...); the records after it
 * were not tried.  When n equals it, *@error is 0.  -EINVAL when @b is
 * NULL.
 */
int ue_batch_submit(struct ue_batch *b, int *error);

/**
 * ue_batch_dropped() - records the last submit dropped
 * @b: the batch
 *
 * Return: how many records the last ue_batch_submit() of @b dropped
 * because their event was no longer traced (the kernel refused them with
 * EBADF).
 */
unsigned int ue_batch_dropped(const struct ue_batch *b);

/**
 * ue_delete() - delete an event by name
 * @s: the session
 * @name: the event name (for multi-format events: every version)
 *
 * Meant for persistent events.  Uses a private file descriptor.  Note
 * that a session's file keeps a reference to every event registered
 * through it until ue_session_close(), even after ue_event_close(): delete
 * an event from another session, or after closing the one that used it.
 *
 * Return: 0, -ENOENT, -EBUSY (still in use) or another negative errno.
 */
int ue_delete(struct ue_session *s, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* _USER_EVENTS_LIB_H */
