// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: trace events that user programs define, enable-check with
 * one load and one bit test, and write into the ftrace, perf and BPF
 * pipelines like any kernel tracepoint.
 *
 * Data flow
 * ---------
 * DIAG_IOCSREG: command -> event (found or created) -> enabler (address,
 *	bit) on the event and on the caller's address space -> the bit is
 *	written with the event's state now, and again at every change.
 * A tracer attaches or detaches -> the event's state changes -> every
 *	enabler's bit is written (uev_event_sync()).
 * write(): write index -> the file's slot -> the event -> its probes
 *	(ftrace, perf, BPF) copy the payload into their buffers; the event
 *	counts the record, and each consumer that did not receive it, for
 *	DIAG_IOCGLOSS and user_events_loss.
 * A change of the event's state also wakes the files that registered it
 *	with USER_EVENT_REG_NOTIFY (uev_event_notify()).
 *
 * The ftrace probe reserves and commits as every event does; the trace
 * core takes a record that no consumer but the ring buffer would see
 * straight to the ring buffer ("tracing: Let event records skip the
 * consumers that are off"), and user events rely on that for their cost.
 *
 * The command parser is in trace_user_events_parse.c: a command becomes a
 * struct uev_format (trace_user_events.h), immutable once made.
 *
 * Objects
 * -------
 * struct user_event	one event: its trace_event_call, tracepoint, parsed
 *			format and the list of enablers that mirror its state.
 * struct uev_enabler	one (address, bit) a process registered for an event;
 *			linked both on its event and on its user_event_mm.
 * struct user_event_mm	the registrations of one address space
 *			(mm->user_event_mm), whichever thread made them.
 * struct uev_faults	the words of one address space whose update waits
 *			for a fault or for its mmap_lock; made on first need.
 * struct uev_file	one open user_events_data: its write-index table.
 * struct uev_notify	what a file with USER_EVENT_REG_NOTIFY registrations
 *			was not yet told; one struct uev_watch per event.
 *			Made by the first such registration or poll().
 * struct uev_consumers	what an event keeps once a consumer attached or a
 *			file watches it: its counts, its open perf events
 *			and watching files. Made on first need: most
 *			events of a big program are never traced.
 * struct uev_perf	a perf event open on a user event, whose ring's
 *			losses the event reports as its own.
 * struct uev_group	the events of one user namespace: their tracefs
 *			systems, their count against the limits.
 *
 * Locks
 * -----
 * Each lock is taken only under the locks above it on its branch; locks on
 * different branches never nest:
 *
 *   user_event_mm.lock		(at fork: the parent's, then the child's)
 *     user_event.lock
 *       mmap_lock (read, tried), folio lock (tried)
 *     uev_slots_lock
 *     mmap_lock (read) of the child or the parent, at fork only
 *   event_mutex
 *     user_event.lock (tried)
 *       mmap_lock (read, tried), folio lock (tried)
 *     (and waits for sync_work, which takes user_event.lock, and for
 *      notify_work, which takes uev_watch_lock, when it removes an event:
 *      then the event has no enabler to write and no file to tell)
 *     uev_perf_lock
 *   uev_watch_lock
 *     the wait queue of a struct uev_notify
 *
 * user_event_mm.lock	the enablers of one mm (mm_link, words, nr_enablers). A
 *			registration holds it from the (address, bit) check
 *			until the enabler is linked. Fork (parent's and
 *			child's), teardown and a fault work's rescan
 *			(uev_faults_rescan()) hold it across all the mm's
 *			enablers and reschedule (uev_resched()) holding no
 *			other lock.
 * event_mutex		(trace core) the event table (uev_table), the groups
 *			(uev_groups, their counts, their last put),
 *			creating and removing events, the dyn_event list,
 *			user_event.status, reg_flags and the writes of
 *			user_event.state. Held by the trace core around
 *			uev_event_reg(), so attach/detach run under it.
 * user_event.lock	the enablers of one event (ev_link, nr_enablers,
 *			sync_left, sync_state) and every enabler's state.
 *			Held while a bit is written; the state is read once
 *			under it, and a change of the state made meanwhile
 *			is followed by a visit of every enabler under it
 *			(sync_work), so the bit in user memory always ends
 *			in the latest state. A tracer's toggle (under
 *			event_mutex) only tries it, and then writes at most
 *			UEV_SYNC_INLINE enablers; sync_work writes the rest
 *			in batches, dropping it in between. Registrants
 *			hold it (registering, unregistering, forking,
 *			exiting or exec, their fault work) and may be
 *			scheduled out holding it: a tracer must never wait
 *			for it.
 * mmap_lock (read)	of the mm being written; held across pin, write and
 *			unpin of the page, so fork's dup_mmap() (write side)
 *			never sees a half-done update. Under the locks above
 *			it is only tried (uev_poke()): a process that keeps
 *			its own mmap_lock busy must not stall tracing for
 *			everyone; what cannot be done at once goes to uev_wq.
 *			Likewise the folio lock that dirtying the page takes
 *			(a filesystem may hold it across I/O a user serves),
 *			and mmap_lock in the fault work. Exceptions: fork
 *			looks up and faults in the child's words
 *			(uev_dup_page_get(), uev_mm_settle()) and faults
 *			in the parent's (uev_cow(), uev_prefault()) holding
 *			user_event_mm locks, in the forking task, before
 *			the child runs.
 * uev_slots_lock	the write-index tables of all open files: finding or
 *			adding a slot, moving a full table into a larger one.
 *			Taken under user_event_mm.lock only, never under
 *			event_mutex; a leaf, held across no allocation. One
 *			lock, not one per file: that would triple what every
 *			open file costs.
 * uev_watch_lock	every uev_consumers.watchers and uev_notify.watches:
 *			an event's notify_work wakes its files under it;
 *			registrations and releases of files take it alone.
 *			A toggle only queues notify_work, so that files a
 *			user makes watch cost a tracer nothing.
 * uev_perf_lock	every uev_consumers.perf_events and perf_lost: perf
 *			opens and closes and user_events_loss (under
 *			event_mutex), DIAG_IOCGLOSS (alone).
 * No lock above is taken while faulting a page in: faults happen in the
 * registering task before any lock (uev_prefault()), in the unregistering
 * task after its locks are dropped (uev_enabler_remove()), in a work item
 * of the mm holding only mmap_lock and waiting for no I/O (uev_fault_work()),
 * or in a forking parent holding only the lock of its child's
 * user_event_mm (uev_mm_settle(), uev_mm_unshare()): before the child runs,
 * only fault work queued for the child's enablers can want that lock, and
 * it waits holding nothing the fault needs. A write's payload is copied
 * with page faults disabled under the probes' preempt_disable; if it was
 * not present, the writer faults it in holding nothing and calls the
 * probes again (uev_write_retry()).
 *
 * Work that a user's memory can hold up (a FUSE daemon that never answers
 * a read, a page_mkwrite waiting for writeback) runs on uev_wq, at most
 * UEV_USER_FAULTS_MAX works of each owner (uev_owner_get(): a user, or a
 * container that root made) at a time (UCOUNT_USER_EVENT_FAULTS): an owner
 * holds that many workers at most, and a word that cannot be written yet
 * is retried with a backoff, for minutes, and again from the next change
 * of its event.
 *
 * References and lifetime
 * -----------------------
 * An event is in uev_table from its creation to its removal, both under
 * event_mutex. user_event.users counts its users: each enabler, each
 * uev_file slot; an event is removed only when it has none, so a user's
 * pointer stays valid. Tracers are not counted (the trace core tracks them
 * itself and refuses removal while attached). The count is not the
 * event's lifetime, which the table holds: 0 is an event that is unused,
 * not one that is gone. So it is an atomic_long_t rather than a
 * refcount_t, and it cannot overflow: every user costs kernel memory (an
 * enabler, a slot pointer), and a long counts more users than fit in the
 * address space. It goes up from 0 only under event_mutex, and down to 0
 * only under event_mutex (uev_event_put()). An event whose count reaches
 * zero is removed at once, unless it persists
 * (USER_EVENT_REG_PERSIST) or a tracer still holds it: such an unused event
 * is removed synchronously by whoever next needs its name (register,
 * DIAG_IOCSDEL, dynamic_events), and otherwise by uev_reap_work once the
 * tracer detaches; until then user_events_status, user_events_loss and
 * dynamic_events leave it out (uev_event_reaped()). No user-visible
 * operation ever waits on a deferred free.
 * The places that remove an event: uev_event_put_locked() (last user),
 * uev_reap_locked() (last tracer, from uev_reap_work or when a group is at
 * its limit), uev_event_get_or_create() (an unused event of the name with
 * other fields), uev_delete_by_name() (DIAG_IOCSDEL) and uev_dyn_free()
 * (dynamic_events); all through uev_event_destroy(), under event_mutex.
 *
 * A user_event_mm belongs to its address space: mm->user_event_mm is set
 * (cmpxchg) by the first registration of any thread and cleared by
 * __mmput(). The task whose exit or exec put the address space removes the
 * enablers itself, holding no lock, before it can be reaped or run the new
 * image (user_event_mm_drop()); an exit hands over every put it makes up
 * to its exit hook, after exit_task_work(), so that a file it closes that
 * held the address space (vhost) puts it in time. Any other put queues
 * that removal (uev_mm_release_work) because its caller may hold any lock.
 * While any task uses the address space, mm->user_event_mm cannot change
 * under it. Its enablers are charged to the real user of the task that
 * made it (user_event_mm.ucounts, UCOUNT_USER_EVENT_ENABLERS) while they
 * are linked. Events of user namespaces' groups are charged to the owner
 * of their maker (user_event.ucounts, UCOUNT_USER_EVENTS, uev_owner_get())
 * until they are freed, so that the pool of user_events_max those groups
 * share has room for every user and every container.
 * user_event_mm.refs keeps the structure (and its mmgrab()) alive: one for
 * the address space (handed to the exiting task or to the work), one
 * while its fault work (which updates the words that had to wait, one
 * work per address space) is queued, pending its delay included. The fault
 * work holds its owner's ucounts, and the owner's UCOUNT_USER_EVENT_FAULTS
 * charge, only while it runs.
 *
 * A uev_group is referenced by each of its events and each file opened
 * in its namespace, and holds a reference on that user namespace; the last
 * put, under event_mutex, unhashes and frees it. The initial namespace's
 * group is static and keeps a reference of its own. A namespace therefore
 * lives until its last event is gone: an event a host tracer still holds
 * outlives every process of the namespace and goes, like any unused event,
 * when the tracer leaves (uev_reap_work).
 *
 * uev_file slots hold event references until the file is released, so the
 * write path needs no reference of its own. The slot table is replaced on
 * growth and freed after an RCU grace period: the write path reads it under
 * rcu_read_lock() only.
 *
 * A struct uev_consumers is made by an event's first attach (ftrace or
 * perf) or USER_EVENT_REG_NOTIFY registration, and freed with the event:
 * an event that is never traced or watched costs no counts, and one that
 * was keeps them for user_events_loss as long as it exists. A writer
 * reaches it only through an event it saw traced (user_event.status).
 *
 * A struct uev_watch lives from the first USER_EVENT_REG_NOTIFY
 * registration of its event on its file until the file is released, which
 * unhooks it before it puts the slot references that keep the event.
 *
 * A struct uev_perf lives from TRACE_REG_PERF_OPEN to TRACE_REG_PERF_CLOSE
 * of its perf event, which the trace core pairs, and an event with perf
 * events open is busy, so it outlives none.
 *
 * The write path takes no lock: it reads the slot under RCU and calls the
 * tracepoint's probes under preempt_disable (tracepoint RCU rules).
 */
#define pr_fmt(fmt) "user_events: " fmt

#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/ioctl.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/ring_buffer.h>
#include <linux/sched/mm.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/tracefs.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <linux/user_events.h>
#include <linux/user_namespace.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_output.h"
#include "trace_user_events.h"

/* Enablers one address space may hold, against memory exhaustion. */
#define UEV_MM_ENABLERS_MAX	65536
/* Default of /proc/sys/user/max_user_event_enablers: enablers per user. */
#define UEV_USER_ENABLERS_MAX	(16 * UEV_MM_ENABLERS_MAX)
/*
 * Default of /proc/sys/user/max_user_events: events each user may make
 * outside the initial namespace's group, so that no user fills the pool of
 * user_events_max that all user namespaces' groups share.
 */
#define UEV_USER_EVENTS_MAX	1024
/* Default of /proc/sys/user/max_user_event_faults: see uev_fault_work(). */
#define UEV_USER_FAULTS_MAX	4
/* Write indexes one open file may hold. */
#define UEV_FILE_SLOTS_MAX	65536
/* Payloads from this size on are copied with non-temporal stores. */
#define UEV_NOCACHE_MIN		256
/* Times an unregistering task faults in the word it clears, at most. */
#define UEV_CLEAR_TRIES		8
/*
 * A word of a fault queue: the passes of the fault work it waited for, in
 * units of UEV_FAULT_PASS, and UEV_FAULT_AGAIN once queued again since the
 * work last read it. It is given up after UEV_FAULT_PASSES passes, of which
 * a fault that fails outright counts UEV_FAULT_HARD, until queued again;
 * passes are at most UEV_FAULT_BACKOFF_MAX apart.
 */
#define UEV_FAULT_AGAIN		1UL
#define UEV_FAULT_PASS		2UL
#define UEV_FAULT_PASSES	64
#define UEV_FAULT_HARD		8
#define UEV_FAULT_BACKOFF_MAX	(4 * HZ)
/*
 * Enablers a tracer's toggle writes itself, holding event_mutex, when the
 * event's lock is free; a work item writes the others, this many per hold
 * of the event's lock, so that no registrant can make every tracer wait
 * by registering more.
 */
#define UEV_SYNC_INLINE		256
#define UEV_SYNC_BATCH		256
/* Iterations of a loop over registrations between two cond_resched() */
#define UEV_RESCHED_EVERY	64

#ifdef __BIG_ENDIAN
#define UEV_BIG_ENDIAN		true
#else
#define UEV_BIG_ENDIAN		false
#endif

/* user_event.status: who is attached. */
#define UEV_STATUS_FTRACE	BIT(0)
#define UEV_STATUS_PERF		BIT(1)
#define UEV_STATUS_OTHER	BIT(2)

/*
 * user_event.state: UEV_STATE_ON while a tracer is attached; the bits
 * above count the changes (modulo 2^31). Every change flips UEV_STATE_ON,
 * so a count goes with one state only, and the state with the other
 * UEV_STATE_ON is one the event never has (uev_state_stale()). A count
 * rather than the bit alone: a writer that read a state before a change
 * must see that its stamp is old. 32 bits, so no architecture tears it.
 */
#define UEV_STATE_ON		1U

/*
 * Why a consumer did not receive a record (struct user_loss): an ftrace
 * buffer refused it, a perf ring had no room (counted by perf, see struct
 * uev_perf) or perf was busy on the CPU, the payload could not be read,
 * or the record was larger than the consumer takes.
 */
enum uev_loss {
	UEV_LOST_FTRACE,
	UEV_LOST_PERF,
	UEV_LOST_FAULT,
	UEV_LOST_SIZE,
	UEV_LOST_NR
};

/**
 * struct user_event - one user event
 * @call:	the trace event, in the user_events or user_events_multi system
 * @class:	its class: fields, reg callback, probes
 * @tracepoint:	probes attached by ftrace, perf and others
 * @devent:	entry on the dyn_event list
 * @node:	entry in uev_table (event_mutex)
 * @fmt:	the parsed command, immutable
 * @cons:	counts, perf events and watching files: NULL until a
 *		consumer attaches or a file watches the event, then set once
 *		(uev_consumers_get()) and kept until the event is freed
 * @written:	@cons->written, for the write path (one load fewer): set
 *		with @cons, before uev_consumers_get() returns; beside @fmt,
 *		which the write path reads too
 * @group:	the group (user namespace) that owns the event; referenced,
 *		immutable
 * @ucounts:	the owner charged for the event (UCOUNT_USER_EVENTS, see
 *		uev_owner_get()) outside the initial namespace's group, else
 *		NULL; referenced, set once before the event is visible
 * @users:	enablers and file slots; 0 when unused (see the top of the
 *		file)
 * @reg_flags:	USER_EVENT_REG_PERSIST, USER_EVENT_REG_MULTI_FORMAT (event_mutex)
 * @status:	UEV_STATUS_* of the attached probes (event_mutex, read locklessly)
 * @state:	what the enablers mirror: UEV_STATE_ON while a tracer is
 *		attached, above it a count of the changes (written under
 *		event_mutex, read once by each writer of a bit, under @lock)
 * @lock:	protects @enablers, @sync_state and the enablers' state
 * @enablers:	registrations of this event, in every mm (@lock); those
 *		not yet visited since @state last changed first
 * @nr_enablers: number of @enablers (@lock)
 * @sync_state:	the @state that @sync_left counts for (@lock)
 * @sync_left:	enablers at the head of @enablers still to visit (@lock)
 * @sync_work:	visits them when a toggle left some or could not
 *		take @lock
 * @reap_link:	on uev_reap_list while unused, not persistent and just left
 *		by its last tracer (event_mutex)
 * @tp_name:	tracepoint name: the event name, or name.<hex id> (multi-format);
 *		an allocation of its own, so that events come from a cache of
 *		their exact size (uev_event_cache)
 */
struct user_event {
	struct trace_event_call		call;
	struct trace_event_class	class;
	struct tracepoint		tracepoint;
	struct dyn_event		devent;
	struct hlist_node		node;
	struct uev_format		*fmt;
	struct uev_consumers		*cons;
	u64 __percpu			*written;
	struct uev_group		*group;
	struct ucounts			*ucounts;
	atomic_long_t			users;
	u16				reg_flags;
	u8				status;
	u32				state;
	struct mutex			lock;	/* see kernel-doc above */
	struct list_head		enablers;
	unsigned int			nr_enablers;
	u32				sync_state;
	unsigned int			sync_left;
	struct work_struct		sync_work;
	struct list_head		reap_link;
	char				*tp_name;
};

/**
 * struct uev_consumers - what an event keeps once it is heard or watched
 * @written:	records written while a consumer was attached, per CPU (the
 *		writer's)
 * @lost:	records a consumer did not receive, by enum uev_loss (atomic)
 * @perf_lost:	samples lost by perf events of the event since closed
 *		(uev_perf_lock)
 * @perf_events: the open perf events of the event, struct uev_perf
 *		(uev_perf_lock): their rings' losses are read when asked
 * @watchers:	the files told of the event's enable changes, struct
 *		uev_watch (uev_watch_lock; tested for emptiness locklessly)
 * @notify_work: tells them (uev_notify_work())
 * @ev:		the event, which frees this with itself
 *
 * Made by the first tracer's attach (before its probe is added, so that
 * a writer that sees the event traced sees this) or the first
 * registration with USER_EVENT_REG_NOTIFY.
 */
struct uev_consumers {
	u64 __percpu		*written;
	atomic64_t		lost[UEV_LOST_NR];
	u64			perf_lost;
	struct list_head	perf_events;
	struct list_head	watchers;
	struct work_struct	notify_work;
	struct user_event	*ev;
};

/* Events come by the thousand: a cache of their size, not kmalloc-512. */
static struct kmem_cache *uev_event_cache __ro_after_init;

/**
 * struct uev_enabler - one registered (address, bit) of one mm for an event
 * @mm_link:	entry on @uemm->enablers (uemm->lock)
 * @word_node:	entry in @uemm->words or @uemm->word (uemm->lock)
 * @ev_link:	entry on @ev->enablers (ev->lock)
 * @ev:		the event; the enabler holds a reference
 * @uemm:	the address space whose memory is written
 * @addr:	the naturally aligned long holding the bit
 * @state:	@ev->state last written to memory (ev->lock)
 * @bit:	bit within the long at @addr
 * @ubit:	enable_bit as registered, to match DIAG_IOCSUNREG
 * @uoff:	enable_addr as registered, less @addr: to match DIAG_IOCSUNREG
 */
struct uev_enabler {
	struct list_head	mm_link;
	struct hlist_node	word_node;
	struct list_head	ev_link;
	struct user_event	*ev;
	struct user_event_mm	*uemm;
	unsigned long		addr;
	u32			state;
	u8			bit;
	u8			ubit;
	u8			uoff;
};

/* Enablers are numerous: a cache of their exact size, not kmalloc-96. */
static struct kmem_cache *uev_enabler_cache __ro_after_init;

/* See the design note: the write-index tables of all open files. */
static DEFINE_MUTEX(uev_slots_lock);
/* See the design note: the files told of events' enable changes. */
static DEFINE_MUTEX(uev_watch_lock);
/* See the design note: the open perf events of all events. */
static DEFINE_MUTEX(uev_perf_lock);

/**
 * struct user_event_mm - the registrations of one address space
 * @mm:		the address space, kept by mmgrab(); mm->user_event_mm points
 *		here from the first registration until __mmput()
 * @ucounts:	the user charged for @nr_enablers (UCOUNT_USER_EVENT_ENABLERS):
 *		the real user of the task that made the structure; referenced,
 *		and so is its user namespace; immutable
 * @faults:	the words whose update had to wait, allocated by the first
 *		update that has to wait (uev_faults_get()); set once, read
 *		with READ_ONCE()
 * @release:	removes the registrations once the address space is gone,
 *		unless the task whose exit or exec put it does
 * @lock:	protects @enablers, @words/@word, @words_bits and @nr_enablers
 * @enablers:	the registrations (struct uev_enabler)
 * @words:	the registrations hashed by the long that holds their bit, in
 *		a table of 1 << @words_bits buckets; while @words_bits is 0,
 *		its one chain is @word, in the structure
 * @word:	the chain of a table of one bucket
 * @refs:	lifetime: one for the address space (dropped when the
 *		registrations are removed), one while @faults' work is queued
 * @words_bits:	log2 of the buckets of @words
 * @nr_enablers: number of @enablers, capped at UEV_MM_ENABLERS_MAX
 *
 * Every process that registers pays for one: 128 bytes on 64-bit without
 * lock debugging. What few processes need (a hash table, a fault queue) is
 * allocated when they first need it.
 */
struct user_event_mm {
	struct mm_struct	*mm;
	struct ucounts		*ucounts;
	struct uev_faults	*faults;
	struct work_struct	release;
	struct mutex		lock;	/* see kernel-doc above */
	struct list_head	enablers;
	union {
		struct hlist_head	*words;
		struct hlist_head	word;
	};
	refcount_t		refs;
	unsigned int		words_bits;
	unsigned int		nr_enablers;
};

/**
 * struct uev_faults - the words of one address space whose update waits
 * @words:	the words, indexed by uev_fault_index(), each a value entry
 *		(UEV_FAULT_PASS, UEV_FAULT_AGAIN; the XArray's own lock)
 * @base:	address of the first word queued, from which the indexes count;
 *		set before @uemm->faults is published by cmpxchg(), immutable
 * @work:	updates them, one word after the other; queued on uev_wq with a
 *		reference on @uemm
 * @delay:	jiffies before the next retry of words that could not be
 *		written (only @work uses it)
 * @uemm:	the address space, which frees this structure with itself
 * @flags:	UEV_FAULTS_RESCAN: a word could not be added to @words for want
 *		of memory, and @work looks for every word behind its event
 *		(atomic bit operations)
 */
struct uev_faults {
	struct xarray		words;
	unsigned long		base;
	struct delayed_work	work;
	unsigned long		delay;
	struct user_event_mm	*uemm;
	unsigned long		flags;
};

#define UEV_FAULTS_RESCAN	0

/**
 * struct uev_slots - write-index table of one open file
 * @rcu:	frees a table replaced by a bigger one
 * @nr:		slots in use; published with release, read with acquire
 * @cap:	slots allocated
 * @ev:		event of each write index; each slot holds a reference
 */
struct uev_slots {
	struct rcu_head		rcu;
	u32			nr;
	u32			cap;
	struct user_event	*ev[] __counted_by(cap);
};

/**
 * struct uev_file - one open user_events_data
 * @slots:	the write-index table (uev_slots_lock), read under RCU by the
 *		write path
 * @group:	where its registrations and deletions look names up: the group
 *		of the opener's user namespace; referenced, immutable
 * @notify:	allocated by the first USER_EVENT_REG_NOTIFY registration,
 *		set once (cmpxchg), read with acquire
 */
struct uev_file {
	struct uev_slots __rcu	*slots;
	struct uev_group	*group;
	struct uev_notify	*notify;
};

/**
 * struct uev_notify - the enable changes an open user_events_data is told
 * of: those of the events registered on it with USER_EVENT_REG_NOTIFY
 * @wait:	the file's pollers and readers
 * @changes:	changes since the file was last read
 * @watches:	the file's struct uev_watch (uev_watch_lock)
 * @armed:	a registration with USER_EVENT_REG_NOTIFY succeeded: poll()
 *		and read() answer for the changes (read locklessly); until
 *		then as a file without a poll or read method does
 */
struct uev_notify {
	wait_queue_head_t	wait;
	atomic_long_t		changes;
	struct list_head	watches;
	bool			armed;
};

/**
 * struct uev_watch - one event one file is told of
 * @ev_link:	entry on the event's uev_consumers.watchers (uev_watch_lock)
 * @file_link:	entry on @notify->watches (uev_watch_lock)
 * @ev:		the event, held by a slot of the file
 * @notify:	the file's
 * @seen:	@ev->state when the file was last told (uev_watch_lock)
 * @users:	registrations that made or reused it, failed ones taken back
 *		(uev_watch_lock); it stays until the file is released
 */
struct uev_watch {
	struct list_head	ev_link;
	struct list_head	file_link;
	struct user_event	*ev;
	struct uev_notify	*notify;
	u32			seen;
	unsigned int		users;
};

/**
 * struct uev_perf - one perf event of a user event, open
 * @link:	entry on the event's uev_consumers.perf_events (uev_perf_lock)
 * @event:	the perf event, which counts the samples its ring had no room
 *		for (lost_samples)
 */
struct uev_perf {
	struct list_head	link;
	struct perf_event	*event;
};

/* "user_events_multi_ns" and a 32-bit inode number */
#define UEV_SYSTEM_LEN		32

/**
 * struct uev_group - the user events of one user namespace
 * @node:	entry in uev_groups (event_mutex)
 * @ns:		the namespace; the group holds a reference
 * @refs:	its events and its open files; the last put is made under
 *		event_mutex. The initial namespace's group holds one more, so
 *		that it is never freed.
 * @count:	its events (event_mutex)
 * @multi_id:	id of its next multi-format event, from 0 (event_mutex)
 * @id:		the namespace's inode number; 0 for the initial namespace
 * @system:	tracefs system of its single-format events
 * @system_multi: tracefs system of its multi-format events
 */
struct uev_group {
	struct hlist_node	node;
	struct user_namespace	*ns;
	refcount_t		refs;
	unsigned int		count;
	u64			multi_id;
	u32			id;
	char			system[UEV_SYSTEM_LEN];
	char			system_multi[UEV_SYSTEM_LEN];
};

/*
 * Describes one write() in flight: the payload is @len bytes at @ubuf, or
 * in @from if @ubuf is NULL (else @from is not set); probes report back
 * through @err and @committed. @retry: a try after the payload faulted
 * (uev_write_retry()). @outcome: the three, for one store to clear them.
 */
struct uev_write {
	struct user_event	*ev;
	const void __user	*ubuf;
	struct iov_iter		*from;
	u32			len;
	union {
		struct {
			int		err;
			u16		committed;
			bool		retry;
		};
		u64			outcome;
	};
};

/*
 * Fault-in work, none of it on workers shared with the rest of the kernel.
 * Each user runs at most UEV_USER_FAULTS_MAX works at a time, so a user
 * whose pages never fault in (a FUSE daemon that never answers) holds that
 * many of the many workers here. No task waits for work that runs there.
 */
static struct workqueue_struct *uev_wq;

static DEFINE_HASHTABLE(uev_table, 8);
static unsigned int uev_max = 32768;

/* Groups of namespaces other than the initial one, by namespace. */
static DEFINE_HASHTABLE(uev_groups, 6);
/* Events of all those groups, at most uev_max (event_mutex). */
static unsigned int uev_ns_count;
/* Events of one of those groups. */
static unsigned int uev_ns_max = 1024;
/* 0: every namespace shares the initial namespace's group. */
static unsigned int uev_ns_groups = 1;

static void uev_reap(struct work_struct *work);
static DECLARE_WORK(uev_reap_work, uev_reap);
/* Unused events their last tracer just left (event_mutex). */
static LIST_HEAD(uev_reap_list);

static struct dyn_event_operations uev_dyn_ops;

#define UEV_SYSTEM	USER_EVENTS_SYSTEM
#define UEV_SYSTEM_MULTI USER_EVENTS_MULTI_SYSTEM

static struct uev_group uev_init_group = {
	.ns		= &init_user_ns,
	.refs		= REFCOUNT_INIT(1),	/* never freed */
	.system		= UEV_SYSTEM,
	.system_multi	= UEV_SYSTEM_MULTI,
};

/* ---------------------------------------------------------------------
 * Writing the enable bit into a process's memory
 */

/**
 * uev_long_bit() - where a bit of an enable value lies in its long
 * @off: offset of the value within its naturally aligned long
 * @size: size of the value, 4 or 8 bytes
 * @bit: bit within the value
 * @big_endian: byte order of the machine
 * @long_size: sizeof(long) of the kernel
 *
 * Return: the bit number within the long, as the bitops count them.
 */
VISIBLE_IF_KUNIT u8 uev_long_bit(unsigned int off, u8 size, u8 bit,
				 bool big_endian, unsigned int long_size)
{
	if (big_endian)
		return (long_size - off - size) * BITS_PER_BYTE + bit;
	return off * BITS_PER_BYTE + bit;
}
EXPORT_SYMBOL_IF_KUNIT(uev_long_bit);

/*
 * Registrations name a 4- or 8-byte value and a bit in it; the kernel
 * updates the naturally aligned long that contains the value, so that one
 * atomic bitop works for every size and alignment the ABI allows (a 4-byte
 * value at 4 mod 8 is the upper or lower half of its long).
 */
static void uev_locate_bit(u64 uaddr, u8 size, u8 bit, unsigned long *addr,
			   u8 *lbit)
{
	unsigned int off = uaddr & (sizeof(long) - 1);

	*addr = uaddr - off;
	*lbit = uev_long_bit(off, size, bit, UEV_BIG_ENDIAN, sizeof(long));
}

/*
 * Set or clear @bit of the long at @addr; mmap_lock held, no fault. Unless
 * @wait, the folio lock that dirtying the folio takes is only tried, dirty
 * or not (its state may change until the lock is held): a filesystem may
 * hold it across I/O that a user serves (FUSE's launder), and the callers
 * hold locks that tracers and other users wait for, or a shared worker.
 * Return: 0, -EFAULT when the page is not present or not writable, or
 * -EAGAIN when the folio lock is taken.
 */
static int uev_poke_locked(struct mm_struct *mm, unsigned long addr, u8 bit,
			   bool set, bool wait)
{
	struct folio *folio;
	struct page *page;
	unsigned long *word;
	bool locked = false;
	long ret;

	mmap_assert_locked(mm);
	ret = pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | FOLL_NOFAULT,
				    &page, NULL);
	if (ret != 1)
		return ret < 0 ? ret : -EFAULT;
	folio = page_folio(page);
	if (!wait) {
		locked = folio_trylock(folio);
		if (!locked) {
			unpin_user_page(page);
			return -EAGAIN;
		}
	}
	word = kmap_local_page(page) + offset_in_page(addr);
	if (set)
		set_bit(bit, word);
	else
		clear_bit(bit, word);
	kunmap_local(word);
	if (locked) {
		folio_mark_dirty(folio);
		folio_unlock(folio);
		unpin_user_page(page);
	} else {
		unpin_user_pages_dirty_lock(&page, 1, true);
	}
	return 0;
}

/*
 * Set or clear @bit of the long at @addr in @mm without faulting, and
 * without waiting for @mm's mmap_lock: the caller may hold event_mutex,
 * and a process must not be able to stall every tracer by keeping its own
 * mmap_lock busy.
 * Return: 0, -EFAULT when the page is not present or not writable now,
 * -EAGAIN when mmap_lock or the folio lock is taken, -ESRCH when the
 * address space is gone.
 */
static int uev_poke(struct mm_struct *mm, unsigned long addr, u8 bit, bool set)
{
	int ret;

	if (!mmget_not_zero(mm))
		return -ESRCH;
	if (!mmap_read_trylock(mm)) {
		mmput_async(mm);
		return -EAGAIN;
	}
	ret = uev_poke_locked(mm, addr, bit, set, false);
	mmap_read_unlock(mm);
	mmput_async(mm);
	return ret;
}

/* As uev_poke(), for a caller that holds none of our locks: may wait. */
static int uev_poke_wait(struct mm_struct *mm, unsigned long addr, u8 bit,
			 bool set)
{
	int ret;

	if (!mmget_not_zero(mm))
		return -ESRCH;
	mmap_read_lock(mm);
	ret = uev_poke_locked(mm, addr, bit, set, true);
	mmap_read_unlock(mm);
	mmput(mm);
	return ret;
}

/*
 * Fault in @addr of @mm for writing, as @mm's own task would: may wait for
 * I/O and for mmap_lock. Only for the task that unregisters, in its own
 * address space, and for a forking task, in its child's.
 */
static int uev_fault_in(struct mm_struct *mm, unsigned long addr)
{
	int ret = -ESRCH;

	if (mmget_not_zero(mm)) {
		mmap_read_lock(mm);
		ret = fixup_user_fault(mm, addr,
				       FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE,
				       NULL);
		mmap_read_unlock(mm);
		mmput(mm);
	}
	return ret;
}

/*
 * Fault in @addr of @mm for writing from a worker, waiting for nothing the
 * process controls: mmap_lock is only tried, and a fault that needs I/O
 * starts it and returns (FOLL_NOWAIT), as swap-in, userfaultfd and most
 * filesystems allow. What can still block (a synchronous FUSE read, a
 * page_mkwrite) holds one of the few workers a user may have: see
 * uev_fault_work().
 * Return: 0 when the page is present and writable now, -EAGAIN to try
 * again later, -ESRCH when @mm is gone, or another errno.
 */
static int uev_fault_in_nowait(struct mm_struct *mm, unsigned long addr)
{
	struct page *page;
	long ret = -EAGAIN;

	if (!mmget_not_zero(mm))
		return -ESRCH;
	if (mmap_read_trylock(mm)) {
		ret = pin_user_pages_remote(mm, addr, 1,
					    FOLL_WRITE | FOLL_NOWAIT, &page,
					    NULL);
		mmap_read_unlock(mm);
		if (ret == 1)
			unpin_user_page(page);
		ret = ret == 1 ? 0 : ret ? ret : -EAGAIN;
	}
	mmput(mm);
	return ret;
}

/*
 * Make current's enable word present and writable now, so that the update
 * made under the locks works, and refuse a word the kernel could never
 * write (a read-only, VM_IO or VM_PFNMAP mapping, memfd_secret memory):
 * its bit would never move.
 */
static int uev_prefault(unsigned long uaddr)
{
	struct page *page;

	if (pin_user_pages_fast(uaddr, 1, FOLL_WRITE, &page) != 1)
		return -EFAULT;
	unpin_user_page(page);
	return 0;
}

static void uev_queue_fault(struct user_event_mm *uemm, unsigned long addr);

/* Bring @en's word up to date with its event now: 0, or uev_poke()'s error. */
static int uev_enabler_poke(struct uev_enabler *en)
{
	u32 state = READ_ONCE(en->ev->state);
	int ret;

	lockdep_assert_held(&en->ev->lock);
	if (en->state == state)
		return 0;
	ret = uev_poke(en->uemm->mm, en->addr, en->bit, state & UEV_STATE_ON);
	if (!ret)
		en->state = state;
	return ret;
}

/*
 * Bring @en's word up to date with its event. A page that is not present,
 * or a lock that is taken, is handed to the fault work of its address
 * space, which faults the page in and tries again (uev_fault_work()).
 */
static void uev_enabler_write(struct uev_enabler *en)
{
	int ret = uev_enabler_poke(en);

	if (ret == -EAGAIN || ret == -EFAULT)
		uev_queue_fault(en->uemm, en->addr);
}

/*
 * Visit up to @budget enablers not yet visited since @ev last changed,
 * moving each behind the others: true when some are left. A change
 * meanwhile starts the visit again. An enabler unlinked meanwhile makes a
 * visited one come round again, which finds it up to date; one linked
 * meanwhile was written by whoever linked it.
 */
static bool uev_sync_batch(struct user_event *ev, unsigned int budget)
{
	u32 state = READ_ONCE(ev->state);
	struct uev_enabler *en;

	lockdep_assert_held(&ev->lock);
	if (ev->sync_state != state) {
		ev->sync_state = state;
		ev->sync_left = ev->nr_enablers;
	}
	ev->sync_left = min(ev->sync_left, ev->nr_enablers);
	for (; ev->sync_left && budget; ev->sync_left--, budget--) {
		en = list_first_entry(&ev->enablers, struct uev_enabler,
				      ev_link);
		uev_enabler_write(en);
		list_move_tail(&en->ev_link, &ev->enablers);
	}
	return ev->sync_left;
}

static void uev_sync_work(struct work_struct *work)
{
	struct user_event *ev = container_of(work, struct user_event,
					     sync_work);
	bool more = false;

	do {
		scoped_guard(mutex, &ev->lock)
			more = uev_sync_batch(ev, UEV_SYNC_BATCH);
		cond_resched();
	} while (more);
}

/* The state after @state when a tracer attaches (@on) or the last leaves. */
VISIBLE_IF_KUNIT u32 uev_state_next(u32 state, bool on)
{
	return ((state & ~UEV_STATE_ON) + 2) | on;
}
EXPORT_SYMBOL_IF_KUNIT(uev_state_next);

/* A stamp for an enabler no state of its event matches: it gets written. */
VISIBLE_IF_KUNIT u32 uev_state_stale(u32 state)
{
	return state ^ UEV_STATE_ON;
}
EXPORT_SYMBOL_IF_KUNIT(uev_state_stale);

/* Changes of an event's state from @seen to @state (uev_state_next()). */
VISIBLE_IF_KUNIT u32 uev_state_changes(u32 seen, u32 state)
{
	return ((state >> 1) - (seen >> 1)) & (U32_MAX >> 1);
}
EXPORT_SYMBOL_IF_KUNIT(uev_state_changes);

/*
 * A tracer attached or detached: mirror the new state to every enabler,
 * the first UEV_SYNC_INLINE now, the others from sync_work. The event's
 * lock is only tried: a registrant that holds it may be scheduled out on
 * a busy CPU, and every tracer waits for event_mutex meanwhile. If it is
 * taken, sync_work writes them all once it is free; whoever holds it
 * reads the new state or leaves its enabler to that visit. Not on uev_wq,
 * whose workers may all wait for slow faults: the toggle waits for
 * nothing, and sync_work only for the event's lock.
 */
static void uev_event_sync(struct user_event *ev, bool enabled)
{
	bool more = true;

	lockdep_assert_held(&event_mutex);
	WRITE_ONCE(ev->state, uev_state_next(ev->state, enabled));
	if (mutex_trylock(&ev->lock)) {
		more = uev_sync_batch(ev, UEV_SYNC_INLINE);
		mutex_unlock(&ev->lock);
	}
	/*
	 * Queued or already pending, the work runs after this point and
	 * reads the state just written: queue_work() orders the write
	 * before it even when it finds the work pending (test_and_set_bit()
	 * is fully ordered), and the worker clears pending before it runs.
	 */
	if (more)
		queue_work(system_unbound_wq, &ev->sync_work);
}

/* ---------------------------------------------------------------------
 * Address spaces: struct user_event_mm and fork/exec/exit
 */

/* Key of the per-mm hash: the long holding the bit, whatever the size. */
static unsigned long uev_word(unsigned long addr)
{
	return addr / sizeof(long);
}

/*
 * The chain that holds the enablers of @addr's long. The hash starts as
 * one chain in the structure, so that a process with one or two
 * registrations pays for no table; a table four times larger replaces the
 * current one whenever chains average more than two.
 */
static struct hlist_head *uev_words_chain(struct user_event_mm *uemm,
					  unsigned long addr)
{
	lockdep_assert_held(&uemm->lock);
	/* hash_long() cannot make 0 bits: it would shift by BITS_PER_LONG */
	if (!uemm->words_bits)
		return &uemm->word;
	return &uemm->words[hash_long(uev_word(addr), uemm->words_bits)];
}

/* Free the table, if the hash has one rather than its one chain. */
static void uev_words_free(struct user_event_mm *uemm)
{
	if (uemm->words_bits)
		kvfree(uemm->words);
}

/* Back to the one chain, empty, freeing any table. */
static void uev_words_reset(struct user_event_mm *uemm)
{
	uev_words_free(uemm);
	uemm->words_bits = 0;
	INIT_HLIST_HEAD(&uemm->word);
}

/* A table of 1 << @bits buckets, if it can be had; else longer chains. */
static void uev_words_resize(struct user_event_mm *uemm, unsigned int bits)
{
	struct hlist_head *table;
	struct uev_enabler *en;

	table = kvmalloc_array(1UL << bits, sizeof(*table), GFP_KERNEL_ACCOUNT);
	if (!table)
		return;
	__hash_init(table, 1UL << bits);
	uev_words_free(uemm);
	uemm->words = table;
	uemm->words_bits = bits;
	list_for_each_entry(en, &uemm->enablers, mm_link)
		hlist_add_head(&en->word_node, uev_words_chain(uemm, en->addr));
}

/*
 * Hash @en, which is already on @uemm->enablers, then grow the table if
 * chains got long: a table that cannot be had leaves @en in the old one.
 */
static void uev_word_add(struct user_event_mm *uemm, struct uev_enabler *en)
{
	hlist_add_head(&en->word_node, uev_words_chain(uemm, en->addr));
	if (uemm->nr_enablers > 2U << uemm->words_bits)
		uev_words_resize(uemm, uemm->words_bits + 2);
}

/*
 * In a loop over up to UEV_MM_ENABLERS_MAX registrations, which would
 * otherwise hold the CPU (and with it every RCU grace period) for tens of
 * milliseconds: reschedule every UEV_RESCHED_EVERY iterations, counted in
 * *@n.
 */
static inline void uev_resched(unsigned int *n)
{
	if (!(++*n % UEV_RESCHED_EVERY))
		cond_resched();
}

static void uev_mm_release_work(struct work_struct *work);
static void uev_fault_work(struct work_struct *work);

/*
 * Charge one registration to the user of @ucounts, in its user namespace
 * and in each one above, never past that namespace's max_user_* on the way
 * (as inc_ucount() does, for a ucounts the caller already holds): 0, or
 * -ENOSPC. The registrations of an address space (UCOUNT_USER_EVENT_ENABLERS)
 * are charged to the real user of the task that made its user_event_mm.
 */
/* Count one more of @type in @ucounts, unless it holds @max already. */
static bool uev_count_one(struct ucounts *ucounts, enum ucount_type type,
			  long max)
{
	long val = atomic_long_read(&ucounts->ucount[type]);

	do {
		if (val >= max)
			return false;
	} while (!atomic_long_try_cmpxchg(&ucounts->ucount[type], &val,
					  val + 1));
	return true;
}

static int uev_charge(struct ucounts *ucounts, enum ucount_type type)
{
	struct ucounts *iter, *over;

	for (iter = ucounts; iter; iter = iter->ns->ucounts) {
		if (!uev_count_one(iter, type,
				   READ_ONCE(iter->ns->ucount_max[type])))
			goto undo;
	}
	return 0;
undo:
	over = iter;
	for (iter = ucounts; iter != over; iter = iter->ns->ucounts)
		atomic_long_dec(&iter->ucount[type]);
	return -ENOSPC;
}

static void uev_uncharge(struct ucounts *ucounts, enum ucount_type type,
			 long n)
{
	struct ucounts *iter;

	for (iter = ucounts; iter; iter = iter->ns->ucounts)
		atomic_long_sub(n, &iter->ucount[type]);
}

/**
 * uev_owner_get() - whom the events and fault works of a user are charged to
 * @ucounts: the user, in its user namespace
 *
 * The user of the initial namespace that made the outermost user namespace
 * above @ucounts (or @ucounts itself, in the initial namespace), so that
 * the nested namespaces and subordinate ids of one user share its budget;
 * but a user namespace that root made (a container runtime's) is an owner
 * of its own, with all the namespaces below it, so that containers do not
 * share root's budget.
 *
 * Return: the owner, referenced (put_ucounts()), or NULL without memory.
 */
static struct ucounts *uev_owner_get(struct ucounts *ucounts)
{
	struct user_namespace *top = NULL;
	struct ucounts *iter;

	for (iter = ucounts; iter->ns != &init_user_ns; iter = iter->ns->ucounts)
		top = iter->ns;
	if (top && uid_eq(iter->uid, GLOBAL_ROOT_UID))
		return alloc_ucounts(top, GLOBAL_ROOT_UID);
	return get_ucounts(iter);
}

/*
 * Charge one object of @type to @owner, never past the initial namespace's
 * max_user_* for it: 0, or -ENOSPC. The events made outside the initial
 * namespace's group (UCOUNT_USER_EVENTS) and the fault works running
 * (UCOUNT_USER_EVENT_FAULTS) are charged so.
 */
static int uev_owner_charge(struct ucounts *owner, enum ucount_type type)
{
	return uev_count_one(owner, type,
			     READ_ONCE(init_user_ns.ucount_max[type])) ?
	       0 : -ENOSPC;
}

static void uev_owner_uncharge(struct ucounts *owner, enum ucount_type type)
{
	atomic_long_dec(&owner->ucount[type]);
}

/*
 * A user_event_mm for @mm charged to @ucounts, whose reference (from
 * get_ucounts(), NULL when saturated) it takes. A ucounts pins its user
 * namespace, and each namespace the one above it and its maker's
 * ucounts: the walk up in uev_charge() needs nothing more.
 */
static struct user_event_mm *uev_mm_alloc(struct mm_struct *mm,
					  struct ucounts *ucounts)
{
	struct user_event_mm *uemm;

	if (!ucounts)
		return NULL;
	uemm = kzalloc(sizeof(*uemm), GFP_KERNEL_ACCOUNT);
	if (!uemm) {
		put_ucounts(ucounts);
		return NULL;
	}
	uemm->ucounts = ucounts;
	uemm->mm = mm;
	mmgrab(mm);
	refcount_set(&uemm->refs, 1);
	INIT_WORK(&uemm->release, uev_mm_release_work);
	mutex_init(&uemm->lock);
	INIT_LIST_HEAD(&uemm->enablers);
	INIT_HLIST_HEAD(&uemm->word);
	return uemm;
}

static void uev_mm_put(struct user_event_mm *uemm)
{
	if (!refcount_dec_and_test(&uemm->refs))
		return;
	mmdrop(uemm->mm);
	put_ucounts(uemm->ucounts);
	if (uemm->faults) {
		xa_destroy(&uemm->faults->words);
		kfree(uemm->faults);
	}
	uev_words_free(uemm);
	kfree(uemm);
}

/*
 * The user_event_mm of current's address space, created on first use. It
 * stays until the address space is torn down, which cannot happen while
 * current uses it.
 */
static struct user_event_mm *uev_current_mm(void)
{
	struct mm_struct *mm = current->mm;
	struct user_event_mm *uemm = READ_ONCE(mm->user_event_mm), *old;

	if (uemm)
		return uemm;
	uemm = uev_mm_alloc(mm, get_ucounts(current_ucounts()));
	if (!uemm)
		return NULL;
	/* Pairs with READ_ONCE() above: a racing thread may have won. */
	old = cmpxchg(&mm->user_event_mm, NULL, uemm);
	if (old) {
		uev_mm_put(uemm);
		return old;
	}
	return uemm;
}

/*
 * The index of the word at @addr in a fault queue whose first word was at
 * @base: the distance in words, folded as 0, -1, 1, -2, ... -> 0, 1, 2, 3.
 * An XArray's node holds 64 indexes and its depth follows the largest
 * index: the first word alone needs no node, words within a page of it one
 * or two levels, where an index of address / sizeof(long) needs eight
 * levels on x86-64. Words far from @base (a library's, when the first was
 * the executable's) get large indexes, as before.
 */
VISIBLE_IF_KUNIT unsigned long uev_fault_index(unsigned long base,
					       unsigned long addr)
{
	long d = (long)(addr / sizeof(long) - base / sizeof(long));

	return d >= 0 ? 2 * d : -2 * d - 1;
}
EXPORT_SYMBOL_IF_KUNIT(uev_fault_index);

/* The address of the word at @index of a fault queue: see above. */
VISIBLE_IF_KUNIT unsigned long uev_fault_addr(unsigned long base,
					      unsigned long index)
{
	long d = index & 1 ? -(long)(index >> 1) - 1 : (long)(index >> 1);

	return (base / sizeof(long) + d) * sizeof(long);
}
EXPORT_SYMBOL_IF_KUNIT(uev_fault_addr);

/* Write every enabler of the word at @addr: 0, or the last error. */
static int uev_word_write(struct user_event_mm *uemm, unsigned long addr)
{
	struct uev_enabler *en;
	int ret = 0, err;

	guard(mutex)(&uemm->lock);
	hlist_for_each_entry(en, uev_words_chain(uemm, addr), word_node) {
		if (en->addr != addr)
			continue;
		scoped_guard(mutex, &en->ev->lock)
			err = uev_enabler_poke(en);
		if (err)
			ret = err;
	}
	return ret;
}

/*
 * Run the fault work of @faults again later: soon after a pass that wrote
 * a word, then backing off to UEV_FAULT_BACKOFF_MAX while none can be
 * written. Only the work itself calls this, so @faults->delay needs no
 * lock.
 */
static void uev_faults_retry(struct uev_faults *faults, bool progress)
{
	faults->delay = progress ? 1 :
		clamp_t(unsigned long, faults->delay * 2, 1,
			UEV_FAULT_BACKOFF_MAX);
	refcount_inc(&faults->uemm->refs);
	if (!queue_delayed_work(uev_wq, &faults->work, faults->delay))
		uev_mm_put(faults->uemm);	/* queued meanwhile */
}

/* Will another try at the word fix what stopped this one? */
static bool uev_fault_transient(int err)
{
	return err == -EAGAIN || err == -ENOMEM || err == -EBUSY ||
	       err == -EINTR;
}

/*
 * One pass over the word at @index of @faults, whose entry the work read
 * as @entry: fault it in and write its enablers. The entry stays in place
 * while the word is handled, so that nothing has to be allocated to keep
 * it: it is removed once the word is written or given up, or updated with
 * the passes made; a word queued again meanwhile (UEV_FAULT_AGAIN) is left
 * for the next pass. Return: whether the word wants another pass.
 */
static bool uev_fault_one(struct uev_faults *faults, unsigned long index,
			  void *entry, bool *progress)
{
	struct user_event_mm *uemm = faults->uemm;
	unsigned long v = xa_to_value(entry), passes;
	unsigned long addr = uev_fault_addr(faults->base, index);
	void *next;
	int ret;

	/* what is queued from now on comes after the state written below */
	if (v & UEV_FAULT_AGAIN) {
		v &= ~UEV_FAULT_AGAIN;
		next = xa_mk_value(v);
		if (xa_cmpxchg(&faults->words, index, entry, next,
			       GFP_KERNEL) != entry)
			return true;
		entry = next;
	}
	ret = uev_fault_in_nowait(uemm->mm, addr);
	if (!ret)
		ret = uev_word_write(uemm, addr);
	*progress |= !ret;
	passes = v / UEV_FAULT_PASS +
		 (uev_fault_transient(ret) ? 1 : UEV_FAULT_HARD);
	next = NULL;
	if (ret && ret != -ESRCH && passes < UEV_FAULT_PASSES)
		next = xa_mk_value(passes * UEV_FAULT_PASS);
	/* replacing or removing an entry allocates nothing */
	if (xa_cmpxchg(&faults->words, index, entry, next, GFP_KERNEL) != entry)
		return true;
	return next;
}

/*
 * Queue the word at @index of @faults, or have the work look at it again
 * from its first pass if it is queued: 0, or -ENOMEM.
 */
static int uev_faults_add(struct uev_faults *faults, unsigned long index)
{
	void *old = xa_load(&faults->words, index), *cur;
	int ret;

	for (;;) {
		if (!old) {
			ret = xa_insert(&faults->words, index, xa_mk_value(0),
					GFP_KERNEL_ACCOUNT);
			if (ret != -EBUSY)
				return ret;
			old = xa_load(&faults->words, index);
			continue;
		}
		cur = xa_cmpxchg(&faults->words, index, old,
				 xa_mk_value(UEV_FAULT_AGAIN), GFP_KERNEL);
		if (cur == old)
			return 0;
		old = cur;
	}
}

/*
 * Queue every word of @faults' address space that is behind its event,
 * since one could not be queued for want of memory: 0, or -ENOMEM when one
 * still cannot be. An enabler's state is only a hint here: a word queued
 * needlessly is written as it is.
 */
static int uev_faults_rescan(struct uev_faults *faults)
{
	struct user_event_mm *uemm = faults->uemm;
	struct uev_enabler *en;
	unsigned int n = 0;

	guard(mutex)(&uemm->lock);
	list_for_each_entry(en, &uemm->enablers, mm_link) {
		uev_resched(&n);
		if (READ_ONCE(en->state) == READ_ONCE(en->ev->state))
			continue;
		if (uev_faults_add(faults, uev_fault_index(faults->base,
							   en->addr)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Update the words of @uemm whose update had to wait: fault each one in,
 * then write its enablers. A word that cannot be written yet is kept for
 * UEV_FAULT_PASSES passes while the reason is transient (a lock taken,
 * I/O in flight, no memory), a few if the fault fails outright (a word
 * unmapped or made read-only), and from the next change of its event on
 * again (uev_queue_fault()).
 *
 * No work waits here for anything the process controls (see
 * uev_fault_in_nowait()), and what can still block is bounded per owner:
 * at most UEV_USER_FAULTS_MAX works of one owner's address spaces run at a
 * time (UCOUNT_USER_EVENT_FAULTS, see uev_owner_get()), so a user whose
 * FUSE daemon never answers holds that many workers, and other users' bits
 * keep following tracers; the user's other works wait their turn,
 * retrying.
 */
static void uev_fault_work(struct work_struct *work)
{
	struct uev_faults *faults = container_of(to_delayed_work(work),
						 struct uev_faults, work);
	struct user_event_mm *uemm = faults->uemm;
	bool again = false, progress = false;
	struct ucounts *owner;
	unsigned long index;
	void *entry;

	/* gone: its words go with it (uev_mm_put()) */
	if (!atomic_read(&uemm->mm->mm_users))
		goto out;
	owner = uev_owner_get(uemm->ucounts);
	if (!owner || uev_owner_charge(owner, UCOUNT_USER_EVENT_FAULTS)) {
		if (owner)
			put_ucounts(owner);
		uev_faults_retry(faults, false);
		goto out;
	}
	if (test_and_clear_bit(UEV_FAULTS_RESCAN, &faults->flags) &&
	    uev_faults_rescan(faults)) {
		set_bit(UEV_FAULTS_RESCAN, &faults->flags);
		again = true;
	}
	xa_for_each(&faults->words, index, entry) {
		again |= uev_fault_one(faults, index, entry, &progress);
		cond_resched();
	}
	uev_owner_uncharge(owner, UCOUNT_USER_EVENT_FAULTS);
	put_ucounts(owner);
	if (again)
		uev_faults_retry(faults, progress);
out:
	uev_mm_put(uemm);
}

/*
 * The fault queue of @uemm, allocated on first use, when @addr is the word
 * queued first; NULL without memory.
 */
static struct uev_faults *uev_faults_get(struct user_event_mm *uemm,
					 unsigned long addr)
{
	struct uev_faults *cur = READ_ONCE(uemm->faults);
	struct uev_faults *faults __free(kfree) = NULL;

	if (cur)
		return cur;
	/* not charged to whoever first waits: often a tracer, not the owner */
	faults = kzalloc(sizeof(*faults), GFP_KERNEL);
	if (faults) {
		xa_init(&faults->words);
		faults->base = addr;
		INIT_DELAYED_WORK(&faults->work, uev_fault_work);
		faults->uemm = uemm;
		/* Full barrier: initialised before it is seen. */
		cur = cmpxchg(&uemm->faults, NULL, faults) ?: no_free_ptr(faults);
	}
	return cur;
}

/*
 * Have the word at @addr updated once its page is faulted in or its locks
 * are free, all its enablers at once, by the work of @uemm: one per
 * address space, run at once. Without memory for the word, the work looks
 * for it among all the words of @uemm; without memory for the work (a
 * small GFP_KERNEL allocation fails only in a task being OOM-killed, or
 * under fault injection), the update waits for the next change.
 */
static void uev_queue_fault(struct user_event_mm *uemm, unsigned long addr)
{
	struct uev_faults *faults = uev_faults_get(uemm, addr);

	if (!faults) {
		pr_warn_ratelimited("no memory to retry an enable bit update\n");
		return;
	}
	if (uev_faults_add(faults, uev_fault_index(faults->base, addr)))
		set_bit(UEV_FAULTS_RESCAN, &faults->flags);
	refcount_inc(&uemm->refs);
	/* sooner than a retry that is waiting; pending already: not the last */
	if (mod_delayed_work(uev_wq, &faults->work, 0))
		uev_mm_put(uemm);
}

static void uev_event_put(struct user_event *ev);

/* Unlink every enabler of @uemm and drop their event references. */
static void uev_mm_teardown(struct user_event_mm *uemm)
{
	struct uev_enabler *en, *next;
	unsigned int n = 0;
	LIST_HEAD(dead);

	mutex_lock(&uemm->lock);
	list_for_each_entry_safe(en, next, &uemm->enablers, mm_link) {
		mutex_lock(&en->ev->lock);
		list_del(&en->ev_link);
		en->ev->nr_enablers--;
		mutex_unlock(&en->ev->lock);
		list_move(&en->mm_link, &dead);
		uev_resched(&n);
	}
	uev_words_reset(uemm);
	uev_uncharge(uemm->ucounts, UCOUNT_USER_EVENT_ENABLERS,
		     uemm->nr_enablers);
	uemm->nr_enablers = 0;
	mutex_unlock(&uemm->lock);

	list_for_each_entry_safe(en, next, &dead, mm_link) {
		uev_event_put(en->ev);
		kmem_cache_free(uev_enabler_cache, en);
		uev_resched(&n);
	}
}

static void uev_mm_release_work(struct work_struct *work)
{
	struct user_event_mm *uemm = container_of(work, struct user_event_mm,
						  release);

	uev_mm_teardown(uemm);
	uev_mm_put(uemm);
}

/**
 * user_event_mm_release() - an address space with registrations is gone
 * @mm: the address space, in __mmput()
 *
 * The caller may hold any lock (a tracer's event_mutex, when a uprobe
 * drops the last reference), so the registrations are removed later. When
 * this is the exit or exec of a task, that task removes them itself in
 * user_event_mm_drop(), where it holds no lock: a program that saw the
 * task exit never finds its registrations still in place, and no worker
 * has to be woken and waited for. An exit hands over until its exit hook,
 * which comes after exit_task_work(): a file that held @mm and was closed
 * by the exit (vhost's owner reference) puts it there, after exit_mm().
 * Any other put queues a work item.
 */
void user_event_mm_release(struct mm_struct *mm)
{
	struct user_event_mm *uemm = mm->user_event_mm;

	mm->user_event_mm = NULL;
	/*
	 * A put during an exit, before the exit hook set USER_EVENT_MM_EXITED
	 * (exit_mm(), or the release of a file that held @mm), or during an
	 * exec: the hook that runs next, holding no lock, takes over the
	 * address space's reference. Not only the task's own @mm: the hook
	 * removes whichever it is handed, and a second one goes to a work.
	 */
	if ((current->flags & PF_EXITING || current->in_execve) &&
	    !current->user_event_mm) {
		current->user_event_mm = uemm;
		return;
	}
	/*
	 * Not on uev_wq: its workers may all be waiting for slow page
	 * faults, and tearing down must not wait for those.
	 */
	queue_work(system_unbound_wq, &uemm->release);
}

/**
 * user_event_mm_drop() - remove the registrations a task's exit or exec put
 * @uemm: what user_event_mm_release() handed to current, which holds no
 *        lock and has taken it back from its task_struct
 */
void user_event_mm_drop(struct user_event_mm *uemm)
{
	uev_mm_release_work(&uemm->release);
}

/*
 * The child's copy of one page of enable words, looked up once for all the
 * parent's enablers in it: the enablers of a program's events usually
 * share a page.
 * @addr:	the page, -1UL before the first
 * @page:	the page dup_mmap() left there, referenced; NULL if none is
 *		present
 * @inherited:	the child has a copy of the parent's memory there: not
 *		where MADV_DONTFORK left no mapping, nor where MADV_WIPEONFORK
 *		left zeroes, since a bit written there would land in memory
 *		the child uses otherwise
 * @shared:	a shared mapping: a word not present is the parent's own
 */
struct uev_dup_page {
	unsigned long		addr;
	struct page		*page;
	bool			inherited;
	bool			shared;
};

static void uev_dup_page_put(struct uev_dup_page *p)
{
	if (p->page)
		put_page(p->page);
	p->page = NULL;
}

/* Make @p the child's page of @addr in @mm, looking it up if it is not. */
static void uev_dup_page_get(struct uev_dup_page *p, struct mm_struct *mm,
			     unsigned long addr)
{
	struct vm_area_struct *vma;

	if ((addr & PAGE_MASK) == p->addr)
		return;
	uev_dup_page_put(p);
	p->addr = addr & PAGE_MASK;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	p->inherited = vma && !(vma->vm_flags & VM_WIPEONFORK);
	p->shared = vma && (vma->vm_flags & VM_SHARED);
	if (p->inherited &&
	    get_user_pages_remote(mm, addr, 1, FOLL_NOFAULT, &p->page,
				  NULL) != 1)
		p->page = NULL;
	mmap_read_unlock(mm);
}

/*
 * The state of @en's event that the copy of its word on @p shows: the
 * event's state if the bit there agrees with it, else a stale stamp.
 * Not @en's own stamp: a sibling thread may have registered @en, or its
 * fault work written it, after dup_mmap() copied the word, which then
 * lacks the bit. A private word that is not present is taken as stale.
 * Nothing writes the child's memory until its enablers are linked to
 * their events (uev_copies_link()), so @p stays the child's page.
 */
static u32 uev_copied_state(const struct uev_dup_page *p,
			    struct uev_enabler *en)
{
	u32 state = READ_ONCE(en->ev->state);
	unsigned long *word;
	bool set;

	/* not copied by dup_mmap(): a shared word is the parent's own */
	if (!p->page)
		return p->shared ? READ_ONCE(en->state) :
				   uev_state_stale(state);
	word = kmap_local_page(p->page) + offset_in_page(en->addr);
	set = test_bit(en->bit, word);
	kunmap_local(word);
	return set == (state & UEV_STATE_ON) ? state : uev_state_stale(state);
}

/*
 * Add to @new, @t's user_event_mm, a copy of @en, its parent's enabler,
 * whose word is on @p: false if it cannot be charged or allocated. The
 * copy is linked to its event by uev_copies_link().
 */
static bool uev_enabler_copy(struct user_event_mm *new, struct uev_enabler *en,
			     const struct uev_dup_page *p)
{
	struct uev_enabler *copy;

	lockdep_assert_held(&new->lock);
	if (uev_charge(new->ucounts, UCOUNT_USER_EVENT_ENABLERS))
		return false;
	copy = kmem_cache_alloc(uev_enabler_cache, GFP_KERNEL_ACCOUNT);
	if (!copy) {
		uev_uncharge(new->ucounts, UCOUNT_USER_EVENT_ENABLERS, 1);
		return false;
	}
	/* not *en whole: its lists and state are others' to write */
	copy->ev = en->ev;
	copy->addr = en->addr;
	copy->bit = en->bit;
	copy->ubit = en->ubit;
	copy->uoff = en->uoff;
	copy->uemm = new;
	copy->state = uev_copied_state(p, en);	/* what the word shows */
	atomic_long_inc(&en->ev->users);	/* @en is one: not from 0 */
	list_add_tail(&copy->mm_link, &new->enablers);
	uev_word_add(new, copy);
	new->nr_enablers++;
	return true;
}

/*
 * Link the enablers of @new, copied by uev_enabler_copy(), to their events,
 * each stamped with its event's state if its word showed it, stale if not
 * or if the event changed since: the number of stale ones, written before
 * the child runs (uev_mm_settle()).
 */
static unsigned int uev_copies_link(struct user_event_mm *new)
{
	unsigned int n = 0, stale = 0;
	struct uev_enabler *copy;
	u32 state;

	lockdep_assert_held(&new->lock);
	list_for_each_entry(copy, &new->enablers, mm_link) {
		scoped_guard(mutex, &copy->ev->lock) {
			state = READ_ONCE(copy->ev->state);
			if (copy->state != state) {
				copy->state = uev_state_stale(state);
				stale++;
			}
			list_add_tail(&copy->ev_link, &copy->ev->enablers);
			copy->ev->nr_enablers++;
		}
		uev_resched(&n);
	}
	return stale;
}

/*
 * Copy @old's enablers into a new user_event_mm for @t's mm, charged to
 * @t's user; *@stale: how many of the copies are stale. The child's memory
 * is a copy of the parent's taken by dup_mmap(), earlier: each copied word
 * whose bit does not show its event's latest state is stamped stale
 * (uev_copied_state()) and written before the child runs
 * (uev_mm_settle()). An enabler that a sibling thread unregistered between
 * dup_mmap() and now is not copied, and its bit stays set in the child's
 * copy of the word until the child writes there. What cannot be charged
 * or allocated is not inherited.
 */
static struct user_event_mm *uev_mm_dup(struct user_event_mm *old,
					struct task_struct *t,
					unsigned int *stale)
{
	struct uev_dup_page p = { .addr = -1UL };
	struct user_event_mm *new;
	struct uev_enabler *en;
	unsigned int lost = 0, n = 0;

	/* @t, not yet running, keeps its credentials and their ucounts */
	new = uev_mm_alloc(t->mm, get_ucounts(task_ucounts(t)));
	if (!new)
		return NULL;
	mutex_lock(&old->lock);
	mutex_lock_nested(&new->lock, SINGLE_DEPTH_NESTING);
	if (old->words_bits > new->words_bits)	/* one table for all copies */
		uev_words_resize(new, old->words_bits);
	list_for_each_entry(en, &old->enablers, mm_link) {
		uev_dup_page_get(&p, t->mm, en->addr);
		if (p.inherited && !uev_enabler_copy(new, en, &p))
			lost++;
		uev_resched(&n);
	}
	uev_dup_page_put(&p);
	*stale = uev_copies_link(new);
	if (lost)
		pr_warn_ratelimited("fork: %u registrations not inherited\n",
				    lost);
	mutex_unlock(&new->lock);
	mutex_unlock(&old->lock);
	return new;
}

/* Is @addr in a private mapping of current, write-protected by fork? */
static bool uev_cow(unsigned long addr)
{
	struct vm_area_struct *vma;
	bool ret;

	mmap_read_lock(current->mm);
	vma = vma_lookup(current->mm, addr);
	ret = vma && !(vma->vm_flags & VM_SHARED);
	mmap_read_unlock(current->mm);
	return ret;
}

/*
 * Write the child's copies of words that do not show their event's state
 * (uev_copied_state()) before the child runs: a write fault of the child's
 * page by the forking task, as ptrace's writes do, then the bit. What still
 * fails is left to the child's fault work. @stale: how many uev_mm_dup()
 * stamped stale; the walk ends after that many, since a tracer's toggle
 * writes any that go stale meanwhile. Only the child's fault work can
 * want @new's lock meanwhile, and it waits holding nothing the fault needs.
 */
static void uev_mm_settle(struct user_event_mm *new, unsigned int stale)
{
	struct uev_enabler *en;
	unsigned int n = 0;
	int ret;

	guard(mutex)(&new->lock);
	list_for_each_entry(en, &new->enablers, mm_link) {
		if (!stale)
			break;
		uev_resched(&n);
		if (READ_ONCE(en->state) == READ_ONCE(en->ev->state))
			continue;
		stale--;
		if (uev_fault_in(new->mm, en->addr))
			continue;
		scoped_guard(mutex, &en->ev->lock)
			ret = uev_enabler_poke(en);
		if (ret == -EAGAIN || ret == -EFAULT)
			uev_queue_fault(new, en->addr);
	}
}

/*
 * dup_mmap() write-protected the parent's private pages for copy-on-write,
 * and a bit update does not fault: give the parent its own copy of each
 * such enable word again (a write fault of current on its own memory, as
 * when it writes there), so that its bits keep following tracers at once
 * rather than through a fault work item. Shared mappings are not copied
 * on write, and a write fault would only dirty their file. @new is the
 * child's copy of the parent's enablers, at the same addresses.
 */
static void uev_mm_unshare(struct user_event_mm *new)
{
	unsigned long done = -1UL;	/* page last looked at */
	struct uev_enabler *en;
	unsigned int n = 0;

	mutex_lock(&new->lock);
	list_for_each_entry(en, &new->enablers, mm_link) {
		uev_resched(&n);
		if ((en->addr & PAGE_MASK) == done)
			continue;
		done = en->addr & PAGE_MASK;
		if (uev_cow(en->addr))
			uev_prefault(en->addr);
	}
	mutex_unlock(&new->lock);
}

/**
 * user_event_mm_fork() - copy current's registrations to a new mm
 * @t: the new task, with its own new mm
 * @clone_flags: its clone flags (without CLONE_VM)
 *
 * The copy is updated independently from then on.
 */
void user_event_mm_fork(struct task_struct *t, unsigned long clone_flags)
{
	struct user_event_mm *new;
	unsigned int stale;

	new = uev_mm_dup(READ_ONCE(current->mm->user_event_mm), t, &stale);
	if (!new)
		return;
	t->mm->user_event_mm = new;
	uev_mm_settle(new, stale);
	uev_mm_unshare(new);
}

/* The enabler of @uemm whose bit is @bit of the @size bytes at @uaddr. */
static struct uev_enabler *uev_enabler_find(struct user_event_mm *uemm,
					    u64 uaddr, u8 size, u8 bit)
{
	struct uev_enabler *en;
	unsigned long addr;
	u8 lbit;

	lockdep_assert_held(&uemm->lock);
	uev_locate_bit(uaddr, size, bit, &addr, &lbit);
	hlist_for_each_entry(en, uev_words_chain(uemm, addr), word_node) {
		if (en->addr == addr && en->bit == lbit)
			return en;
	}
	return NULL;
}

/*
 * A new, unlinked enabler for @reg in @uemm. Checked before anything is
 * linked, so a refused registration has no side effect.
 */
static struct uev_enabler *uev_enabler_new(struct user_event_mm *uemm,
					   const struct user_reg *reg)
{
	struct uev_enabler *en;

	if (uev_enabler_find(uemm, reg->enable_addr, reg->enable_size,
			     reg->enable_bit))
		return ERR_PTR(-EADDRINUSE);
	if (uemm->nr_enablers >= UEV_MM_ENABLERS_MAX ||
	    uev_charge(uemm->ucounts, UCOUNT_USER_EVENT_ENABLERS))
		return ERR_PTR(-ENOSPC);
	en = kmem_cache_zalloc(uev_enabler_cache, GFP_KERNEL_ACCOUNT);
	if (!en) {
		uev_uncharge(uemm->ucounts, UCOUNT_USER_EVENT_ENABLERS, 1);
		return ERR_PTR(-ENOMEM);
	}
	en->uemm = uemm;
	uev_locate_bit(reg->enable_addr, reg->enable_size, reg->enable_bit,
		       &en->addr, &en->bit);
	en->uoff = reg->enable_addr - en->addr;
	en->ubit = reg->enable_bit;
	return en;
}

/* Link @en for @ev, taking over a reference, and write the current state. */
static void uev_enabler_link(struct uev_enabler *en, struct user_event *ev)
{
	lockdep_assert_held(&en->uemm->lock);
	en->ev = ev;
	list_add_tail(&en->mm_link, &en->uemm->enablers);
	uev_word_add(en->uemm, en);
	en->uemm->nr_enablers++;

	mutex_lock(&ev->lock);
	en->state = uev_state_stale(READ_ONCE(ev->state)); /* write it now */
	list_add_tail(&en->ev_link, &ev->enablers);
	ev->nr_enablers++;
	uev_enabler_write(en);
	mutex_unlock(&ev->lock);
}

/*
 * Unregister (@uaddr, @ubit) of current and clear the bit: 0, -ENOENT, or
 * -EFAULT when the bit could not be cleared (the registration is gone all
 * the same).
 */
static int uev_enabler_remove(struct user_event_mm *uemm, u64 uaddr, u8 ubit)
{
	struct uev_enabler *en;
	int tries, ret = -EFAULT;

	mutex_lock(&uemm->lock);
	hlist_for_each_entry(en, uev_words_chain(uemm, uaddr), word_node) {
		if (en->addr + (u64)en->uoff == uaddr && en->ubit == ubit)
			goto found;
	}
	mutex_unlock(&uemm->lock);
	return -ENOENT;
found:
	list_del(&en->mm_link);
	hash_del(&en->word_node);
	uemm->nr_enablers--;
	uev_uncharge(uemm->ucounts, UCOUNT_USER_EVENT_ENABLERS, 1);
	mutex_lock(&en->ev->lock);
	list_del(&en->ev_link);
	en->ev->nr_enablers--;
	mutex_unlock(&en->ev->lock);
	mutex_unlock(&uemm->lock);

	/* Nothing updates the word any more: clear it, faulting as needed. */
	for (tries = 0; tries < UEV_CLEAR_TRIES; tries++) {
		ret = uev_poke_wait(uemm->mm, en->addr, en->bit, false);
		if (ret != -EFAULT || uev_fault_in(uemm->mm, en->addr))
			break;
	}
	uev_event_put(en->ev);
	kmem_cache_free(uev_enabler_cache, en);
	return ret ? -EFAULT : 0;
}

/* ---------------------------------------------------------------------
 * Groups: the events of one user namespace
 */

/* Does @ns register in the initial namespace's group? */
static bool uev_group_shared(struct user_namespace *ns)
{
	return ns == &init_user_ns || !READ_ONCE(uev_ns_groups);
}

/* The group @ns registers in, if it exists (event_mutex). */
static struct uev_group *uev_group_find(struct user_namespace *ns)
{
	struct uev_group *g;

	lockdep_assert_held(&event_mutex);
	if (uev_group_shared(ns))
		return &uev_init_group;
	hash_for_each_possible(uev_groups, g, node, (unsigned long)ns)
		if (g->ns == ns)
			return g;
	return NULL;
}

static struct uev_group *uev_group_new(struct user_namespace *ns)
{
	struct uev_group *g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);

	if (!g)
		return NULL;
	g->ns = get_user_ns(ns);
	g->id = ns->ns.inum;
	refcount_set(&g->refs, 1);
	snprintf(g->system, sizeof(g->system), UEV_SYSTEM "_ns%u", g->id);
	snprintf(g->system_multi, sizeof(g->system_multi),
		 UEV_SYSTEM_MULTI "_ns%u", g->id);
	hash_add(uev_groups, &g->node, (unsigned long)ns);
	return g;
}

/*
 * The group of @ns with a reference, made on first use. The initial
 * namespace takes no lock here: its group is static.
 */
static struct uev_group *uev_group_get(struct user_namespace *ns)
{
	struct uev_group *g = &uev_init_group;

	if (!uev_group_shared(ns)) {
		guard(mutex)(&event_mutex);
		g = uev_group_find(ns);
		if (!g)
			return uev_group_new(ns);
	}
	refcount_inc(&g->refs);
	return g;
}

/* The initial namespace's group keeps a reference of its own. */
static void uev_group_put_locked(struct uev_group *g)
{
	lockdep_assert_held(&event_mutex);
	if (!refcount_dec_and_test(&g->refs))
		return;
	hash_del(&g->node);
	put_user_ns(g->ns);
	kfree(g);
}

static void uev_group_put(struct uev_group *g)
{
	if (refcount_dec_not_one(&g->refs))
		return;
	guard(mutex)(&event_mutex);
	uev_group_put_locked(g);
}

/* May @g hold one more event? */
static bool uev_group_has_room(const struct uev_group *g)
{
	if (g == &uev_init_group)
		return g->count < READ_ONCE(uev_max);
	return g->count < READ_ONCE(uev_ns_max) &&
	       uev_ns_count < READ_ONCE(uev_max);
}

static void uev_group_charge(struct uev_group *g, int n)
{
	lockdep_assert_held(&event_mutex);
	g->count += n;
	if (g != &uev_init_group)
		uev_ns_count += n;
}

/* ---------------------------------------------------------------------
 * Events: trace_event_call setup, lookup, lifetime
 */

static u32 uev_hash(const struct uev_group *g, const char *name)
{
	return jhash(name, strlen(name), g->id);
}

static bool uev_is_multi(const struct user_event *ev)
{
	return ev->reg_flags & USER_EVENT_REG_MULTI_FORMAT;
}

static bool uev_is_persistent(const struct user_event *ev)
{
	return ev->reg_flags & USER_EVENT_REG_PERSIST;
}

/*
 * The fields as the trace core wants them: it lays them out packed after
 * the common fields (align 1) and shows char[N] with its length.
 */
static int uev_define_fields(struct trace_event_call *call)
{
	const struct uev_format *fmt = ((struct user_event *)call->data)->fmt;
	int i, ret;

	for (i = 0; i < fmt->nr_fields; i++) {
		const struct uev_field *f = &fmt->fields[i];

		ret = trace_define_field_ext(call, f->type, f->name,
					     sizeof(struct trace_entry) + f->offset,
					     f->size, f->is_signed, FILTER_OTHER,
					     f->kind == UEV_FIELD_ARRAY ? f->size : 0,
					     0);
		if (ret)
			return ret;
	}
	return 0;
}

/* The fields of every user event: its format's, whenever asked. */
static struct trace_event_fields uev_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = uev_define_fields },
	{}
};

static enum print_line_t uev_print_trace(struct trace_iterator *iter,
					 int flags, struct trace_event *event)
{
	return print_event_fields(iter, event);
}

static struct trace_event_functions uev_event_funcs = {
	.trace = uev_print_trace,
};

/*
 * print_fmt for tools decoding the format file (perf, trace-cmd): every
 * field as name=value, C strings of dynamic char fields through
 * __get_str() and __get_rel_str().
 */
static char *uev_print_fmt(const struct uev_format *fmt)
{
	char *buf __free(kfree) = NULL;
	size_t len = 3;
	struct seq_buf s;
	int i;

	for (i = 0; i < fmt->nr_fields; i++)
		len += 2 * strlen(fmt->fields[i].name) + 24;
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return NULL;
	seq_buf_init(&s, buf, len);
	seq_buf_putc(&s, '"');
	for (i = 0; i < fmt->nr_fields; i++)
		seq_buf_printf(&s, "%s%s=%s", i ? " " : "",
			       fmt->fields[i].name,
			       uev_field_conv(&fmt->fields[i]));
	seq_buf_putc(&s, '"');
	for (i = 0; i < fmt->nr_fields; i++) {
		const struct uev_field *f = &fmt->fields[i];

		if (!f->is_string)
			seq_buf_printf(&s, ", REC->%s", f->name);
		else if (f->kind == UEV_FIELD_DATA_LOC)
			seq_buf_printf(&s, ", __get_str(%s)", f->name);
		else
			seq_buf_printf(&s, ", __get_rel_str(%s)", f->name);
	}
	seq_buf_str(&s);
	WARN_ON_ONCE(seq_buf_has_overflowed(&s));
	/* it lives as long as the event: no room to spare */
	return kstrdup(buf, GFP_KERNEL_ACCOUNT);
}

/*
 * Charge a new event of a user namespace's group to its maker's owner
 * (uev_owner_get()), so that no user can take every group's share of
 * user_events_max.
 */
static int uev_event_charge(struct user_event *ev)
{
	struct ucounts *owner;

	if (ev->group == &uev_init_group)
		return 0;
	owner = uev_owner_get(current_ucounts());
	if (!owner)
		return -ENOMEM;
	if (uev_owner_charge(owner, UCOUNT_USER_EVENTS)) {
		put_ucounts(owner);
		return -EMFILE;
	}
	ev->ucounts = owner;
	return 0;
}

static void uev_consumers_free(struct uev_consumers *c)
{
	if (!c)
		return;
	free_percpu(c->written);
	kfree(c);
}

DEFINE_FREE(uev_consumers, struct uev_consumers *, uev_consumers_free(_T))

static void uev_event_free(struct user_event *ev)
{
	if (ev->ucounts) {
		uev_owner_uncharge(ev->ucounts, UCOUNT_USER_EVENTS);
		put_ucounts(ev->ucounts);
	}
	uev_group_put_locked(ev->group);
	kfree(ev->call.print_fmt);
	kfree(ev->fmt);
	kfree(ev->tp_name);
	uev_consumers_free(ev->cons);
	kmem_cache_free(uev_event_cache, ev);
}

static int uev_event_reg(struct trace_event_call *call, enum trace_reg type,
			 void *data);
static void uev_notify_work(struct work_struct *work);
static void uev_ftrace_probe(void *data, struct uev_write *w);
static void uev_perf_probe(void *data, struct uev_write *w);

/*
 * Build an event of @g for @fmt (taking it over); not yet visible anywhere.
 * It takes a reference on @g.
 */
static struct user_event *uev_event_alloc(struct uev_group *g,
					  struct uev_format *fmt, u16 flags)
{
	const char *name = uev_format_name(fmt);
	struct user_event *ev;

	lockdep_assert_held(&event_mutex);	/* @g->multi_id */
	ev = kmem_cache_zalloc(uev_event_cache, GFP_KERNEL_ACCOUNT);
	if (!ev)
		goto nomem;
	ev->fmt = fmt;
	ev->group = g;
	refcount_inc(&g->refs);
	if (flags & USER_EVENT_REG_MULTI_FORMAT) {
		ev->tp_name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx", name,
					g->multi_id);
		if (ev->tp_name)
			g->multi_id++;
	} else {
		ev->tp_name = kstrdup(name, GFP_KERNEL_ACCOUNT);
	}
	ev->call.print_fmt = uev_print_fmt(fmt);
	if (!ev->tp_name || !ev->call.print_fmt) {
		uev_event_free(ev);
		return ERR_PTR(-ENOMEM);
	}

	ev->reg_flags = flags;
	mutex_init(&ev->lock);
	INIT_LIST_HEAD(&ev->enablers);
	INIT_WORK(&ev->sync_work, uev_sync_work);
	INIT_LIST_HEAD(&ev->reap_link);
	ev->tracepoint.name = ev->tp_name;

	ev->class.system = (flags & USER_EVENT_REG_MULTI_FORMAT) ?
			   g->system_multi : g->system;
	ev->class.reg = uev_event_reg;
	ev->class.fields_array = uev_fields_array;
	ev->class.probe = uev_ftrace_probe;
#ifdef CONFIG_PERF_EVENTS
	ev->class.perf_probe = uev_perf_probe;
#endif
	INIT_LIST_HEAD(&ev->class.fields);

	ev->call.class = &ev->class;
	ev->call.tp = &ev->tracepoint;
	ev->call.flags = TRACE_EVENT_FL_TRACEPOINT;
	ev->call.data = ev;
	ev->call.event.funcs = &uev_event_funcs;
	dyn_event_init(&ev->devent, &uev_dyn_ops);
	return ev;
nomem:
	kfree(fmt);
	return ERR_PTR(-ENOMEM);
}

static bool uev_event_busy(struct user_event *ev)
{
	lockdep_assert_held(&event_mutex);
	return atomic_long_read(&ev->users) || ev->status ||
	       trace_event_dyn_busy(&ev->call);
}

/* Remove an unused event from tracefs and free it. */
static int uev_event_destroy(struct user_event *ev)
{
	int ret;

	lockdep_assert_held(&event_mutex);
	if (uev_event_busy(ev))
		return -EBUSY;
	ret = trace_remove_event_call(&ev->call);
	if (ret)
		return ret;
	dyn_event_remove(&ev->devent);
	hash_del(&ev->node);
	/* Unused: a sync left over has nothing to visit; let it finish. */
	cancel_work_sync(&ev->sync_work);
	if (ev->cons) {
		cancel_work_sync(&ev->cons->notify_work);
		/* a slot holds the event while a file watches it */
		WARN_ON_ONCE(!list_empty(&ev->cons->watchers));
	}
	list_del(&ev->reap_link);
	uev_group_charge(ev->group, -1);
	uev_event_free(ev);
	return 0;
}

/* Is @ev unused, and left by its last tracer: due for uev_reap_work? */
static bool uev_event_reaped(struct user_event *ev)
{
	lockdep_assert_held(&event_mutex);
	return !list_empty(&ev->reap_link) && !atomic_long_read(&ev->users) &&
	       !uev_is_persistent(ev) && !ev->status;
}

/*
 * Remove the unused events whose last tracer just left: only those can be
 * unused and still present, so nothing else is looked at.
 */
static void uev_reap_locked(void)
{
	struct user_event *ev, *next;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry_safe(ev, next, &uev_reap_list, reap_link) {
		list_del_init(&ev->reap_link);
		if (!atomic_long_read(&ev->users) && !uev_is_persistent(ev))
			uev_event_destroy(ev);
	}
}

static void uev_reap(struct work_struct *work)
{
	mutex_lock(&event_mutex);
	uev_reap_locked();
	mutex_unlock(&event_mutex);
}

static int uev_event_register(struct user_event *ev)
{
	int ret;

	lockdep_assert_held(&event_mutex);
	if (!uev_group_has_room(ev->group))
		uev_reap_locked();
	if (!uev_group_has_room(ev->group))
		return -EMFILE;
	ret = uev_event_charge(ev);
	if (ret)
		return ret;
	if (!register_trace_event(&ev->call.event))
		return -ENODEV;
	ret = trace_add_event_call(&ev->call);
	if (ret) {
		unregister_trace_event(&ev->call.event);
		return ret;
	}
	dyn_event_add(&ev->devent, &ev->call);
	hash_add(uev_table, &ev->node,
		 uev_hash(ev->group, uev_format_name(ev->fmt)));
	uev_group_charge(ev->group, 1);
	return 0;
}

/* A new user of @ev, which may have been unused. */
static void uev_event_get_locked(struct user_event *ev)
{
	lockdep_assert_held(&event_mutex);
	atomic_long_inc(&ev->users);
}

/* A user leaves; the last one removes an event that does not persist. */
static void uev_event_put_locked(struct user_event *ev)
{
	long users = atomic_long_dec_return(&ev->users);

	lockdep_assert_held(&event_mutex);
	if (WARN_ON_ONCE(users < 0))
		atomic_long_set(&ev->users, 0);
	else if (!users && !uev_is_persistent(ev))
		uev_event_destroy(ev);	/* -EBUSY: a tracer holds it */
}

static void uev_event_put(struct user_event *ev)
{
	/* not the last: the last one's decrement is event_mutex's */
	if (atomic_long_add_unless(&ev->users, -1, 1))
		return;
	mutex_lock(&event_mutex);
	uev_event_put_locked(ev);
	mutex_unlock(&event_mutex);
}

/**
 * struct uev_cmd - a registration command, as matched and parsed
 * @name:	the event name
 * @argc:	number of words in @argv
 * @argv:	the field words, to match an existing event
 * @fmt:	the parsed format, once needed (or an ERR_PTR())
 * @text:	the command as the user wrote it
 * @loc:	where it was written, for tracing/error_log
 * @capable_only: log only for callers with CAP_PERFMON or CAP_SYS_ADMIN
 * @err:	why and where @fmt is invalid
 *
 * A command that names an existing event is compared with it as text
 * before its fields are checked: the fields are parsed only to create an
 * event, so that a registration that matches never fails on them.
 */
struct uev_cmd {
	char			*name;
	int			argc;
	const char		**argv;
	struct uev_format	*fmt;
	const char		*text;
	const char		*loc;
	bool			capable_only;
	struct uev_err		err;
};

static const char * const uev_err_text[] = {
	[UEV_ERR_BAD_NAME]	= "Event name empty, '.', '..' or holding a '/'",
	[UEV_ERR_FLAGS]		= "Text flags (name:flag) are not supported",
	[UEV_ERR_BAD_FIELD]	= "Field is not 'type name' with single spaces",
	[UEV_ERR_BAD_TYPE]	= "Unknown field type",
	[UEV_ERR_BAD_ARRAY]	= "Array size must be 1 to 1024",
	[UEV_ERR_BAD_SIZE]	= "Struct size must be 1 to 1073741823",
	[UEV_ERR_DUP_FIELD]	= "Duplicate field name",
	[UEV_ERR_TOO_BIG]	= "Fields larger than 1073741823 bytes",
};

/*
 * Show why @c does not parse in tracing/error_log, caret and all. The log
 * is shared and short: a command from user_events_data is logged only for
 * a privileged caller, so that no user can push others' entries out (and
 * the check, made only here, is not audited).
 */
static void uev_cmd_log_err(const struct uev_cmd *c)
{
	if (c->capable_only &&
	    !ns_capable_noaudit(&init_user_ns, CAP_PERFMON) &&
	    !ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN))
		return;
	tracing_log_err(NULL, c->loc, c->text, (const char **)uev_err_text,
			c->err.type, c->err.pos);
}

static void uev_cmd_free(struct uev_cmd *c)
{
	if (!c)
		return;
	if (!IS_ERR(c->fmt))
		kfree(c->fmt);
	kfree(c->argv);
	kfree(c->name);
}

DEFINE_FREE(uev_cmd, struct uev_cmd *, uev_cmd_free(_T))

/*
 * Split and parse @text, which @loc names and @c refers to until freed
 * (@capable_only: see struct uev_cmd): 0, or -EINVAL for a name that
 * cannot be used.
 */
static int uev_cmd_init(struct uev_cmd *c, const char *text, const char *loc,
			bool capable_only)
{
	int name_len;
	const char *args;
	size_t len;

	memset(c, 0, sizeof(*c));
	c->text = text;
	c->loc = loc;
	c->capable_only = capable_only;
	name_len = uev_cmd_name_len(text, &c->err);
	if (name_len < 0) {
		uev_cmd_log_err(c);
		return -EINVAL;
	}
	args = text + name_len;
	len = strlen(args);
	/* the name, then the words: at most two bytes per byte of @args */
	c->name = kmalloc(name_len + 1 + 2 * len + 1, GFP_KERNEL);
	c->argv = kmalloc_array(len + 1, sizeof(*c->argv), GFP_KERNEL);
	if (!c->name || !c->argv)
		return -ENOMEM;
	memcpy(c->name, text, name_len);
	c->name[name_len] = '\0';
	c->argc = uev_split_fields(args, c->name + name_len + 1, c->argv,
				   len + 1);
	return 0;
}

/*
 * The event of @g named by @c, found or created, with a reference held. A
 * single-format name is unique in its group: when its fields differ, an
 * unused event of that name gives way at once, a used one is EADDRINUSE.
 * Multi-format events are shared per (name, fields).
 */
static struct user_event *uev_event_get_or_create(struct uev_group *g,
						  struct uev_cmd *c, u16 flags)
{
	bool multi = flags & USER_EVENT_REG_MULTI_FORMAT;
	struct user_event *ev;
	int ret;

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible(uev_table, ev, node, uev_hash(g, c->name)) {
		if (ev->group != g || uev_is_multi(ev) != multi ||
		    strcmp(uev_format_name(ev->fmt), c->name))
			continue;
		if (uev_format_match(ev->fmt, c->argc, c->argv)) {
			uev_event_get_locked(ev);
			return ev;
		}
		if (multi)
			continue;
		if (uev_is_persistent(ev) || uev_event_destroy(ev))
			return ERR_PTR(-EADDRINUSE);
		break;
	}

	/* A new event: now the fields must be valid. */
	c->fmt = uev_format_parse(c->text, &c->err);
	if (IS_ERR(c->fmt)) {
		if (PTR_ERR(c->fmt) == -EINVAL)
			uev_cmd_log_err(c);
		return ERR_CAST(c->fmt);
	}
	ev = uev_event_alloc(g, c->fmt, flags);
	c->fmt = NULL;		/* taken over, or freed */
	if (IS_ERR(ev))
		return ev;
	ret = uev_event_register(ev);
	if (ret) {
		uev_event_free(ev);
		return ERR_PTR(ret);
	}
	atomic_long_set(&ev->users, 1);
	return ev;
}

/* Delete every event of @g (all formats) registered as @name. */
static int uev_delete_by_name(struct uev_group *g, const char *name)
{
	struct hlist_node *tmp;
	struct user_event *ev;
	int ret = -ENOENT;

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible_safe(uev_table, ev, tmp, node,
				    uev_hash(g, name)) {
		if (ev->group != g || strcmp(uev_format_name(ev->fmt), name))
			continue;
		if (uev_event_busy(ev))
			return -EBUSY;
		if (uev_is_persistent(ev) && !perfmon_capable())
			return -EPERM;
		ret = uev_event_destroy(ev);
		if (ret)
			return ret;
	}
	return ret;
}

/* ---------------------------------------------------------------------
 * Tracers: attach/detach and the probes
 */

/*
 * Tell the files that registered @ev with USER_EVENT_REG_NOTIFY of the
 * changes of its enable state since they were last told: a count and a
 * wake-up each, whether anyone waits or not.
 */
static void uev_notify_work(struct work_struct *work)
{
	struct uev_consumers *c = container_of(work, struct uev_consumers,
					       notify_work);
	struct uev_watch *w;
	unsigned int n = 0;
	u32 state, d;

	guard(mutex)(&uev_watch_lock);
	state = READ_ONCE(c->ev->state);
	list_for_each_entry(w, &c->watchers, ev_link) {
		d = uev_state_changes(w->seen, state);
		if (!d)
			continue;
		w->seen = state;
		atomic_long_add(d, &w->notify->changes);
		wake_up_interruptible_poll(&w->notify->wait,
					   EPOLLIN | EPOLLRDNORM);
		uev_resched(&n);
	}
}

/*
 * @ev's enable state changed (event_mutex): have its watching files told,
 * by a work item, so that a tracer's toggle costs the same however many
 * files a user makes watch. Full barrier: either a registration that adds
 * a watch (uev_watch_add()) then writes its bit reads the new state, or
 * this sees its watch.
 */
static void uev_event_notify(struct user_event *ev)
{
	struct uev_consumers *c;

	smp_mb();	/* the state written, then the watchers read */
	c = READ_ONCE(ev->cons);
	if (c && !list_empty(&c->watchers))
		queue_work(system_highpri_wq, &c->notify_work);
}

/*
 * The counts, perf events and watching files of @ev, made on first need
 * (see struct uev_consumers); NULL without memory.
 */
static struct uev_consumers *uev_consumers_get(struct user_event *ev)
{
	/* Pairs with the cmpxchg() below: seen initialised. */
	struct uev_consumers *cur = smp_load_acquire(&ev->cons);
	struct uev_consumers *c __free(uev_consumers) = NULL;

	if (!cur) {
		c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
		if (!c)
			return NULL;
		c->written = alloc_percpu_gfp(u64, GFP_KERNEL_ACCOUNT);
		if (!c->written)
			return NULL;
		INIT_LIST_HEAD(&c->perf_events);
		INIT_LIST_HEAD(&c->watchers);
		INIT_WORK(&c->notify_work, uev_notify_work);
		c->ev = ev;
		/* Full barrier: initialised before it is seen. */
		cur = cmpxchg(&ev->cons, NULL, c) ?: no_free_ptr(c);
	}
	/*
	 * Whoever made it, found it or lost the race stores the same value,
	 * before its caller can attach a probe; once, so that registrations
	 * leave the line the write path reads alone.
	 */
	if (!READ_ONCE(ev->written))
		WRITE_ONCE(ev->written, cur->written);
	return cur;
}

static void uev_event_update_status(struct user_event *ev)
{
	struct tracepoint_func *f;
	u8 status = 0;

	lockdep_assert_held(&event_mutex);
	f = rcu_dereference_protected(ev->tracepoint.funcs,
				      lockdep_is_held(&event_mutex));
	for (; f && f->func; f++) {
		if (f->func == uev_ftrace_probe)
			status |= UEV_STATUS_FTRACE;
		else if (f->func == uev_perf_probe)
			status |= UEV_STATUS_PERF;
		else
			status |= UEV_STATUS_OTHER;
	}
	/*
	 * Release: a writer that sees the event traced sees @ev->cons, which
	 * the REGISTER or PERF_REGISTER that any probe came by made (or
	 * found, made by a watching file: hence a release, not a barrier
	 * of this CPU's own stores only).
	 */
	smp_store_release(&ev->status, status);
	if (!!status != (ev->state & UEV_STATE_ON)) {
		uev_event_sync(ev, status);
		uev_event_notify(ev);
	}
	/* The last tracer of an event nobody uses: remove it soon. */
	if (!status && !atomic_long_read(&ev->users) && !uev_is_persistent(ev) &&
	    list_empty(&ev->reap_link)) {
		list_add_tail(&ev->reap_link, &uev_reap_list);
		schedule_work(&uev_reap_work);
	}
}

#ifdef CONFIG_PERF_EVENTS
/*
 * Keep @p, a perf event opened on @ev, for the losses of its ring. An
 * inherited event sends its samples, and counts their losses, through its
 * parent: only parents are kept. The tracepoint PMU leaves pmu_private to
 * the event's class; ours points to the entry, so that a close is O(1)
 * however many perf events a user opens.
 */
static int uev_perf_open(struct user_event *ev, struct perf_event *p)
{
	struct uev_consumers *c;
	struct uev_perf *up;

	if (p->parent)
		return 0;
	/* made by TRACE_REG_PERF_REGISTER, which the perf core calls first */
	c = ev->cons;
	if (WARN_ON_ONCE(!c || p->pmu_private))
		return -EBUSY;
	up = kmalloc(sizeof(*up), GFP_KERNEL_ACCOUNT);
	if (!up)
		return -ENOMEM;
	up->event = p;
	p->pmu_private = up;
	guard(mutex)(&uev_perf_lock);
	list_add_tail(&up->link, &c->perf_events);
	return 0;
}

/* @p, a perf event of @ev, is closed: keep what its ring lost. */
static void uev_perf_close(struct user_event *ev, struct perf_event *p)
{
	struct uev_perf *up = p->pmu_private;

	if (!up)	/* inherited */
		return;
	scoped_guard(mutex, &uev_perf_lock) {
		/* made by uev_perf_open() */
		ev->cons->perf_lost += atomic64_read(&p->lost_samples);
		list_del(&up->link);
	}
	p->pmu_private = NULL;
	kfree(up);
}

/* Samples the perf rings of @c had no room for, closed ones included. */
static u64 uev_perf_lost(struct uev_consumers *c)
{
	struct uev_perf *up;
	unsigned int n = 0;
	u64 lost;

	guard(mutex)(&uev_perf_lock);
	lost = c->perf_lost;
	list_for_each_entry(up, &c->perf_events, link) {
		lost += atomic64_read(&up->event->lost_samples);
		uev_resched(&n);
	}
	return lost;
}
#else
static u64 uev_perf_lost(struct uev_consumers *c)
{
	return 0;
}
#endif

static int uev_event_reg(struct trace_event_call *call, enum trace_reg type,
			 void *data)
{
	struct user_event *ev = call->data;
	int ret = 0;

	/* what the probes count into, made before the first one attaches */
	if ((type == TRACE_REG_REGISTER || type == TRACE_REG_PERF_REGISTER) &&
	    !uev_consumers_get(ev))
		return -ENOMEM;
	switch (type) {
	case TRACE_REG_REGISTER:
		ret = tracepoint_probe_register(call->tp, call->class->probe,
						data);
		break;
	case TRACE_REG_UNREGISTER:
		tracepoint_probe_unregister(call->tp, call->class->probe, data);
		break;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		ret = tracepoint_probe_register(call->tp,
						call->class->perf_probe, call);
		break;
	case TRACE_REG_PERF_UNREGISTER:
		tracepoint_probe_unregister(call->tp, call->class->perf_probe,
					    call);
		break;
	case TRACE_REG_PERF_OPEN:
		return uev_perf_open(ev, data);
	case TRACE_REG_PERF_CLOSE:
		uev_perf_close(ev, data);
		return 0;
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	if (!ret)
		uev_event_update_status(ev);
	return ret;
}

/*
 * Copy the payload into @dst without faulting; 0 or -EFAULT. Large
 * payloads use non-temporal stores: the record is read much later, by
 * another CPU or after being overwritten, and should not evict the
 * writer's cache.
 */
static int uev_copy_payload_iter(void *dst, struct uev_write *w)
{
	struct iov_iter from = *w->from;
	size_t copied;

	pagefault_disable();
	if (w->len >= UEV_NOCACHE_MIN)
		copied = copy_from_iter_nocache(dst, w->len, &from);
	else
		copied = copy_from_iter(dst, w->len, &from);
	pagefault_enable();
	return likely(copied == w->len) ? 0 : -EFAULT;
}

/*
 * The same from one user range (@w->ubuf: write(), or one iovec): no
 * iterator to copy and advance. access_ok() was checked for all of it:
 * by vfs_write() for write(), by uev_data_write_iter() for an iterator.
 */
static __always_inline int uev_copy_payload(void *dst, struct uev_write *w)
{
	unsigned long left;

	if (!w->ubuf)
		return uev_copy_payload_iter(dst, w);
	pagefault_disable();
	if (w->len >= UEV_NOCACHE_MIN)
		left = copy_from_user_inatomic_nontemporal(dst, w->ubuf,
							   w->len);
	else
		left = __copy_from_user_inatomic(dst, w->ubuf, w->len);
	pagefault_enable();
	return likely(!left) ? 0 : -EFAULT;
}

/* Fill a reserved record: payload copy and dynamic field checks. */
static __always_inline int uev_fill_record(struct trace_entry *entry,
					   struct uev_write *w)
{
	int ret = uev_copy_payload(entry + 1, w);

	if (likely(!ret) && w->ev->fmt->nr_locs)
		ret = uev_format_check_record(w->ev->fmt, entry,
					      sizeof(*entry) + w->len);
	if (unlikely(ret))
		w->err = ret;
	return ret;
}

/*
 * A consumer did not receive the record of @w, for @why. A retry after a
 * fault (uev_write_retry()) counts nothing more: a consumer that refused
 * the first try is counted once, even in the rare case that it takes the
 * retry; remembering each try's losses would cost every write a store.
 */
static void uev_lost(struct uev_write *w, enum uev_loss why)
{
	if (!w->retry)
		atomic64_inc(&w->ev->cons->lost[why]);
}

/*
 * A record larger than a consumer can hold is dropped for that consumer;
 * the write fails with E2BIG only when no consumer took it, also one that
 * would not have recorded it (@lost false: soft-disabled, pid filtered),
 * which is not counted as a loss.
 */
static void uev_too_big(struct uev_write *w, bool lost)
{
	if (!w->err)
		w->err = -E2BIG;
	if (lost)
		uev_lost(w, UEV_LOST_SIZE);
}

/*
 * Does the trace core want this task's records in @file: neither
 * soft-disabled nor filtered out by pid (trace_trigger_soft_disabled()
 * without running the triggers)? If so, a reservation that fails is the
 * buffer's refusal (full, recording off): a loss.
 */
static bool uev_ftrace_wanted(struct trace_event_file *file)
{
	unsigned long flags = READ_ONCE(file->flags);

	if (flags & EVENT_FILE_FL_SOFT_DISABLED)
		return false;
	return !(flags & EVENT_FILE_FL_PID_FILTER) ||
	       !trace_event_ignore_this_pid(file);
}

static void uev_ftrace_probe(void *data, struct uev_write *w)
{
	struct trace_event_file *file = data;
	/* filled by the reserve: no zeroing on the hot path */
	struct trace_event_buffer fbuf __uninitialized;
	struct trace_entry *entry;
	u32 size = sizeof(*entry) + w->len;
	bool skipped;

	/*
	 * Runs the triggers (not on a retry: they ran with the first try);
	 * not a loss when soft-disabled or pid filtered.
	 */
	skipped = unlikely(w->retry) ? !uev_ftrace_wanted(file) :
				       trace_trigger_soft_disabled(file);
	entry = skipped ? NULL : trace_event_buffer_reserve(&fbuf, file, size);
	if (!entry) {
		bool refused = !skipped && uev_ftrace_wanted(file);

		if (size > ring_buffer_max_event_size(file->tr->array_buffer.buffer))
			uev_too_big(w, refused);
		else if (refused)
			uev_lost(w, UEV_LOST_FTRACE);
		return;
	}
	if (unlikely(uev_fill_record(entry, w))) {
		__trace_event_discard_commit(fbuf.buffer, fbuf.event);
		return;
	}
	trace_event_buffer_commit(&fbuf);
	w->committed++;
}

#ifdef CONFIG_PERF_EVENTS
/*
 * Perf and BPF. The sample carries the registers of the writer in the
 * kernel, as every tracepoint's does (perf's callchain adds the user part),
 * and BPF programs attached to the event run (perf_trace_run_bpf_submit()).
 */
static void uev_perf_probe(void *data, struct uev_write *w)
{
	struct trace_event_call *call = data;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	bool bpf = bpf_prog_array_valid(call);
	struct trace_entry *entry;
	struct pt_regs *regs;
	int size, rctx;

	if (!bpf && hlist_empty(head))
		return;
	size = ALIGN(sizeof(*entry) + w->len + sizeof(u32), sizeof(u64)) -
	       sizeof(u32);
	/* perf_trace_buf_alloc() would WARN: any user could trigger it */
	if (unlikely(size > PERF_MAX_TRACE_SIZE)) {
		uev_too_big(w, true);
		return;
	}
	entry = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!entry) {		/* perf is busy on this CPU (recursion) */
		uev_lost(w, UEV_LOST_PERF);
		return;
	}
	if (unlikely(uev_fill_record(entry, w))) {
		perf_swevent_put_recursion_context(rctx);
		return;
	}
	perf_fetch_caller_regs(regs);
	/*
	 * Without a BPF program perf_trace_run_bpf_submit() is a call of
	 * perf_tp_event() with its arguments passed on: save it the trip.
	 * A program attached since the test above sees the next write.
	 */
	if (bpf)
		perf_trace_run_bpf_submit(entry, size, rctx, call, 1, regs, head,
					  NULL);
	else
		perf_tp_event(call->event.type, 1, entry, size, regs, head, rctx,
			      NULL);
	w->committed++;
}
#else
static void uev_perf_probe(void *data, struct uev_write *w)
{
}
#endif

/* Hand one write to every attached probe (tracepoint RCU rules). */
static __always_inline void uev_call_probes(struct user_event *ev,
					    struct uev_write *w)
{
	struct tracepoint_func *f;

	preempt_disable_notrace();
	f = rcu_dereference_sched(ev->tracepoint.funcs);
	if (likely(f)) {
		do {
			((void (*)(void *, struct uev_write *))f->func)(f->data, w);
		} while ((++f)->func);
	}
	preempt_enable_notrace();
}

/* ---------------------------------------------------------------------
 * user_events_data: write path
 */

/*
 * A write that some probe did not take: retry a payload that was not
 * present after faulting it in, outside the atomic section (twice at
 * most), and forgive a record too big for one consumer if another took it.
 */
static noinline int uev_write_retry(struct uev_write *w)
{
	int attempt;

	for (attempt = 1; attempt <= 2; attempt++) {
		if (w->err != -EFAULT || w->committed)
			break;
		if (w->ubuf ? fault_in_readable(w->ubuf, w->len) :
			      fault_in_iov_iter_readable(w->from, w->len))
			break;
		w->err = 0;
		w->committed = 0;
		w->retry = true;
		uev_call_probes(w->ev, w);
	}
	if (w->err == -EFAULT)
		atomic64_inc(&w->ev->cons->lost[UEV_LOST_FAULT]);
	return w->committed && w->err == -E2BIG ? 0 : w->err;
}

/*
 * Write one event: @idx was read from the first four bytes, @w holds the
 * payload (@w->ubuf, or @w->from if NULL, and @w->len). Returns 0 or a
 * negative errno. Inlined in both write methods: this is the path whose
 * every instruction each traced event pays.
 */
static __always_inline int uev_write_event(struct uev_file *uf, int idx,
					   struct uev_write *w)
{
	struct uev_slots *slots;
	struct user_event *ev;

	rcu_read_lock();
	slots = rcu_dereference(uf->slots);
	/*
	 * Pairs with the release in uev_file_slot(): ev[idx] is set. A
	 * negative index is out of range too, but has an errno of its own.
	 */
	if (unlikely(!slots || (u32)idx >= smp_load_acquire(&slots->nr))) {
		rcu_read_unlock();
		return idx < 0 ? -EINVAL : -ENOENT;
	}
	ev = slots->ev[idx];	/* stays valid: the slot holds a reference */
	rcu_read_unlock();

	if (unlikely(w->len < ev->fmt->size))
		return -EINVAL;
	/* Pairs with the release in uev_event_update_status(): @ev->written. */
	if (unlikely(!smp_load_acquire(&ev->status)))
		return -EBADF;
	w->ev = ev;
	w->outcome = 0;
	this_cpu_inc(*ev->written);
	uev_call_probes(ev, w);
	return likely(!w->err) ? 0 : uev_write_retry(w);
}

/*
 * One record, [u32 index][payload], from one user buffer that access_ok()
 * accepted, of at most MAX_RW_COUNT bytes: a write() or one record of a
 * batch. Returns 0 or a negative errno.
 */
static __always_inline int uev_write_buf(struct uev_file *uf,
					 const char __user *ubuf, size_t count)
{
	/* every member is set before use: no zeroing on the hot path */
	struct uev_write w __uninitialized;
	int idx;

	if (unlikely(count < sizeof(idx) || get_user(idx, (int __user *)ubuf)))
		return -EFAULT;
	w.ubuf = ubuf + sizeof(idx);	/* @w.from is not read then */
	w.len = count - sizeof(idx);
	return uev_write_event(uf, idx, &w);
}

/* write(): one record from one buffer, no kiocb or iovec. */
static ssize_t uev_data_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	int ret = uev_write_buf(file->private_data, ubuf, count);

	return ret ? ret : count;
}

/* writev(): the index may be its own iovec, as the ABI documents. */
static ssize_t uev_data_write_iter(struct kiocb *kiocb, struct iov_iter *from)
{
	struct uev_write w __uninitialized;
	size_t count = iov_iter_count(from);
	int idx, ret;

	if (unlikely(count < sizeof(idx) ||
		     copy_from_iter(&idx, sizeof(idx), from) != sizeof(idx)))
		return -EFAULT;
	/*
	 * What remains may be one user range, copied as write()'s: checked
	 * here rather than trusted to every maker of such an iterator.
	 */
	w.ubuf = iter_is_ubuf(from) ? iter_iov_addr(from) : NULL;
	w.from = from;
	w.len = iov_iter_count(from);
	if (w.ubuf && unlikely(!access_ok(w.ubuf, w.len)))
		return -EFAULT;
	ret = uev_write_event(kiocb->ki_filp->private_data, idx, &w);
	return ret ? ret : count;
}

/* ---------------------------------------------------------------------
 * user_events_data: registration ioctls
 */

/*
 * An empty write-index table of at least @want slots, and of as many more
 * as its allocation has room for, up to UEV_FILE_SLOTS_MAX. A file's first
 * table has one slot (32 bytes); each later one at least twice as many.
 */
static struct uev_slots *uev_slots_alloc(u32 want)
{
	struct uev_slots *slots;
	size_t bytes;
	u32 cap;

	want = min_t(u32, want, UEV_FILE_SLOTS_MAX);
	bytes = kmalloc_size_roundup(struct_size(slots, ev, want));
	cap = (bytes - offsetof(struct uev_slots, ev)) / sizeof(slots->ev[0]);
	cap = clamp_t(u32, cap, want, UEV_FILE_SLOTS_MAX);
	/* up to 512 KiB: not one high-order allocation */
	slots = kvzalloc(struct_size(slots, ev, cap), GFP_KERNEL_ACCOUNT);
	if (slots)
		slots->cap = cap;
	return slots;
}

/*
 * Under uev_slots_lock: the slot of @ev in @uf's table, or a new one with
 * a reference, moving the table into *@bigger (which it then owns) if it
 * is full and *@bigger is larger. -EAGAIN, with the capacity to allocate
 * in *@want, when a larger table is needed first.
 */
static int uev_slot_add(struct uev_file *uf, struct user_event *ev,
			struct uev_slots **bigger, u32 *want)
{
	struct uev_slots *slots;
	u32 i, cap;

	lockdep_assert_held(&uev_slots_lock);
	slots = rcu_dereference_protected(uf->slots,
					  lockdep_is_held(&uev_slots_lock));
	cap = slots ? slots->cap : 0;
	for (i = 0; slots && i < slots->nr; i++) {
		if (slots->ev[i] == ev)
			return i;
	}
	if (!slots || slots->nr == cap) {
		if (cap == UEV_FILE_SLOTS_MAX)
			return -EMFILE;
		if (!*bigger || (*bigger)->cap <= cap) {
			*want = cap ? cap * 2 : 1;
			return -EAGAIN;
		}
		if (slots) {
			memcpy((*bigger)->ev, slots->ev, slots->nr * sizeof(ev));
			(*bigger)->nr = slots->nr;
		}
		rcu_assign_pointer(uf->slots, *bigger);
		if (slots)
			kvfree_rcu(slots, rcu);
		slots = *bigger;
		*bigger = NULL;
	}
	atomic_long_inc(&ev->users);	/* the registration's: not from 0 */
	i = slots->nr;
	slots->ev[i] = ev;
	/* Publish ev[i] before the write path can see the index. */
	smp_store_release(&slots->nr, i + 1);
	return i;
}

/*
 * Slot of @ev in @uf's write-index table, added with a reference. A larger
 * table is allocated without the lock, which every file shares.
 */
static int uev_file_slot(struct uev_file *uf, struct user_event *ev)
{
	struct uev_slots *bigger = NULL;
	u32 want = 0;
	int ret;

	for (;;) {
		scoped_guard(mutex, &uev_slots_lock)
			ret = uev_slot_add(uf, ev, &bigger, &want);
		if (ret != -EAGAIN)
			break;
		kvfree(bigger);
		bigger = uev_slots_alloc(want);
		if (!bigger)
			return -ENOMEM;
	}
	kvfree(bigger);
	return ret;
}

static int uev_check_reg(const struct user_reg *reg)
{
	if (reg->flags & ~((USER_EVENT_REG_MAX - 1) | USER_EVENT_REG_NOTIFY))
		return -EINVAL;
	if (reg->enable_size != 4 &&
	    !(reg->enable_size == 8 && BITS_PER_LONG == 64))
		return -EINVAL;
	if (reg->enable_addr & (reg->enable_size - 1))
		return -EINVAL;
	if (reg->enable_bit >= reg->enable_size * BITS_PER_BYTE)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(reg->enable_addr), reg->enable_size))
		return -EFAULT;
	return 0;
}

/* Copy in a size-versioned ioctl struct (struct user_reg/user_unreg). */
static int uev_copy_struct(void *dst, size_t ksize, size_t minsize,
			   const void __user *src)
{
	u32 size;

	if (get_user(size, (const u32 __user *)src))
		return -EFAULT;
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < minsize)
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, src, size);
}

/*
 * The event of a registration, with a reference. Errors come in the order
 * the ABI gives them: the command's name, then the capability, then the
 * event.
 */
static struct user_event *uev_reg_event(struct uev_group *g,
					const struct user_reg *reg)
{
	char *text __free(kfree) = strndup_user(u64_to_user_ptr(reg->name_args),
						UEV_CMD_MAX + 1);
	struct uev_cmd cmd, *c __free(uev_cmd) = NULL;
	int ret;

	if (IS_ERR(text))
		return ERR_CAST(no_free_ptr(text));
	c = &cmd;
	ret = uev_cmd_init(c, text, "user_events_data", true);
	if (ret)
		return ERR_PTR(ret);
	if ((reg->flags & USER_EVENT_REG_PERSIST) && !perfmon_capable())
		return ERR_PTR(-EPERM);
	guard(mutex)(&event_mutex);
	return uev_event_get_or_create(g, c,
				       reg->flags & ~USER_EVENT_REG_NOTIFY);
}

/*
 * Link a new enabler for @reg in @uemm to @ev, which it takes the caller's
 * reference of, and give @ev a write index in @uf: the index, or a negative
 * errno with nothing changed and the reference still the caller's.
 */
static int uev_reg_attach(struct uev_file *uf, struct user_event_mm *uemm,
			  const struct user_reg *reg, struct user_event *ev)
{
	struct uev_enabler *en;
	int idx;

	guard(mutex)(&uemm->lock);
	en = uev_enabler_new(uemm, reg);
	if (IS_ERR(en))
		return PTR_ERR(en);
	idx = uev_file_slot(uf, ev);
	if (idx < 0) {
		uev_uncharge(uemm->ucounts, UCOUNT_USER_EVENT_ENABLERS, 1);
		kmem_cache_free(uev_enabler_cache, en);
		return idx;
	}
	uev_enabler_link(en, ev);
	return idx;
}

/* The notification state of @uf, made on first use; NULL without memory. */
static struct uev_notify *uev_notify_get(struct uev_file *uf)
{
	/* Pairs with the cmpxchg() below: seen initialised. */
	struct uev_notify *cur = smp_load_acquire(&uf->notify);
	struct uev_notify *nt __free(kfree) = NULL;

	if (cur)
		return cur;
	nt = kzalloc(sizeof(*nt), GFP_KERNEL_ACCOUNT);
	if (!nt)
		return NULL;
	init_waitqueue_head(&nt->wait);
	INIT_LIST_HEAD(&nt->watches);
	/* Full barrier: initialised before pollers and readers see it. */
	return cmpxchg(&uf->notify, NULL, nt) ?: no_free_ptr(nt);
}

/*
 * Have @nt told of @ev's enable changes, before the registration writes
 * its bit (see uev_event_notify()): @w, unless @nt has a watch of @ev
 * already, which is then used (and @w freed). Return: the watch, for
 * uev_watch_put() if the registration fails.
 */
static struct uev_watch *uev_watch_add(struct uev_notify *nt,
				       struct uev_consumers *c,
				       struct uev_watch *w)
{
	struct user_event *ev = c->ev;
	struct uev_watch *cur;

	scoped_guard(mutex, &uev_watch_lock) {
		list_for_each_entry(cur, &c->watchers, ev_link) {
			if (cur->notify == nt) {
				cur->users++;
				kfree(w);
				w = cur;
				goto linked;
			}
		}
		w->ev = ev;
		w->notify = nt;
		w->users = 1;
		w->seen = READ_ONCE(ev->state);
		list_add_tail(&w->ev_link, &c->watchers);
		list_add_tail(&w->file_link, &nt->watches);
	}
linked:
	smp_mb();	/* the watch linked, then the state read: see above */
	/* registering is no change; a toggle from now on is told */
	scoped_guard(mutex, &uev_watch_lock)
		w->seen = READ_ONCE(ev->state);
	return w;
}

/* A registration that relied on @w failed: unlink it if it was the last. */
static void uev_watch_put(struct uev_watch *w)
{
	scoped_guard(mutex, &uev_watch_lock) {
		if (--w->users)
			return;
		list_del(&w->ev_link);
		list_del(&w->file_link);
	}
	kfree(w);
}

/* The first registration with USER_EVENT_REG_NOTIFY made it: arm @nt. */
static void uev_notify_arm(struct uev_notify *nt)
{
	if (READ_ONCE(nt->armed))
		return;
	WRITE_ONCE(nt->armed, true);
	/* pollers that saw an unarmed file look again */
	wake_up_interruptible_poll(&nt->wait, EPOLLOUT | EPOLLWRNORM);
}

/* Unhook and free the notification state of a file being released. */
static void uev_notify_free(struct uev_notify *nt)
{
	struct uev_watch *w, *next;

	if (!nt)
		return;
	scoped_guard(mutex, &uev_watch_lock) {
		list_for_each_entry(w, &nt->watches, file_link)
			list_del(&w->ev_link);
	}
	list_for_each_entry_safe(w, next, &nt->watches, file_link)
		kfree(w);
	kfree(nt);
}

static long uev_ioctl_reg(struct uev_file *uf, struct user_reg __user *ureg)
{
	struct uev_watch *w __free(kfree) = NULL;
	struct uev_watch *watch = NULL;
	struct uev_notify *nt = NULL;
	struct user_event_mm *uemm;
	struct user_event *ev;
	struct user_reg reg;
	int ret;

	ret = uev_copy_struct(&reg, sizeof(reg),
			      offsetofend(struct user_reg, write_index), ureg);
	if (!ret)
		ret = uev_check_reg(&reg);
	if (ret)
		return ret;
	if (!current->mm)
		return -EINVAL;
	if (reg.flags & USER_EVENT_REG_NOTIFY) {
		nt = uev_notify_get(uf);
		w = kmalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
		if (!nt || !w)
			return -ENOMEM;
	}
	uemm = uev_current_mm();
	if (!uemm)
		return -ENOMEM;
	/* A used (address, bit) is refused before the command is read. */
	scoped_guard(mutex, &uemm->lock) {
		if (uev_enabler_find(uemm, reg.enable_addr, reg.enable_size,
				     reg.enable_bit))
			return -EADDRINUSE;
	}
	ev = uev_reg_event(uf->group, &reg);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	if (nt) {
		struct uev_consumers *c = uev_consumers_get(ev);

		if (!c) {
			uev_event_put(ev);
			return -ENOMEM;
		}
		watch = uev_watch_add(nt, c, w);
		retain_and_null_ptr(w);
	}
	/* No lock held: fault the word in, refuse one nothing can write. */
	ret = uev_prefault(reg.enable_addr);
	if (!ret)
		ret = uev_reg_attach(uf, uemm, &reg, ev);
	if (ret < 0) {
		if (watch)
			uev_watch_put(watch);
		uev_event_put(ev);
		return ret;
	}
	if (nt)
		uev_notify_arm(nt);
	/* Outside the mm lock: put_user() may fault. */
	return put_user((u32)ret, &ureg->write_index);
}

static long uev_ioctl_unreg(struct user_unreg __user *uunreg)
{
	struct user_event_mm *uemm;
	struct user_unreg unreg;
	int ret;

	ret = uev_copy_struct(&unreg, sizeof(unreg), sizeof(unreg), uunreg);
	if (ret)
		return ret;
	if (unreg.__reserved || unreg.__reserved2)
		return -EINVAL;
	if (!current->mm)
		return -EINVAL;
	uemm = uev_current_mm();
	if (!uemm)
		return -ENOMEM;
	return uev_enabler_remove(uemm, unreg.disable_addr, unreg.disable_bit);
}

static long uev_ioctl_del(struct uev_file *uf, const char __user *uname)
{
	char *name __free(kfree) = strndup_user(uname, UEV_CMD_MAX + 1);

	if (IS_ERR(name))
		return PTR_ERR(no_free_ptr(name));
	guard(mutex)(&event_mutex);
	return uev_delete_by_name(uf->group, name);
}

/* The event of write index @idx of @uf, held by its slot; NULL if none. */
static struct user_event *uev_file_event(struct uev_file *uf, u32 idx)
{
	struct uev_slots *slots;
	struct user_event *ev = NULL;

	rcu_read_lock();
	slots = rcu_dereference(uf->slots);
	/* Pairs with the release in uev_file_slot(): ev[idx] is set. */
	if (slots && idx < smp_load_acquire(&slots->nr))
		ev = slots->ev[idx];
	rcu_read_unlock();
	return ev;
}

/* What became of @ev's records: struct user_loss, @size and index aside. */
static void uev_loss_read(struct user_event *ev, struct user_loss *loss)
{
	/* Pairs with the cmpxchg() of uev_consumers_get(). */
	struct uev_consumers *c = smp_load_acquire(&ev->cons);
	int cpu;

	if (!c)		/* never traced: nothing written, nothing lost */
		return;
	for_each_possible_cpu(cpu)
		loss->written += *per_cpu_ptr(c->written, cpu);
	loss->lost_ftrace = atomic64_read(&c->lost[UEV_LOST_FTRACE]);
	loss->lost_perf = atomic64_read(&c->lost[UEV_LOST_PERF]) +
			  uev_perf_lost(c);
	loss->lost_fault = atomic64_read(&c->lost[UEV_LOST_FAULT]);
	loss->lost_size = atomic64_read(&c->lost[UEV_LOST_SIZE]);
}

static long uev_ioctl_loss(struct uev_file *uf, struct user_loss __user *uloss)
{
	struct user_loss loss = {};
	struct user_event *ev;
	u32 size, idx;

	if (get_user(size, &uloss->size) ||
	    get_user(idx, &uloss->write_index))
		return -EFAULT;
	if (size < offsetofend(struct user_loss, written))
		return -EINVAL;
	ev = uev_file_event(uf, idx);
	if (!ev)
		return -ENOENT;
	uev_loss_read(ev, &loss);
	/* whole counters only */
	loss.size = round_down(min_t(u32, size, sizeof(loss)), sizeof(u64));
	loss.write_index = idx;
	return copy_to_user(uloss, &loss, loss.size) ? -EFAULT : 0;
}

/*
 * Write the records of @vec in order, each as write() writes its buffer
 * (with vfs_write()'s checks and limits), until one is not written: its
 * errno in *@err. A fatal signal stops the batch (-EINTR): a batch is at
 * most USER_BATCH_MAX records, but each may wait for its payload's pages.
 * Return: the records written.
 */
static unsigned int uev_write_batch(struct uev_file *uf,
				    const struct iovec *vec, unsigned int nr,
				    int *err)
{
	unsigned int i, n = 0;
	size_t len;

	for (i = 0; i < nr; i++) {
		if (unlikely(i && fatal_signal_pending(current))) {
			*err = -EINTR;
			break;
		}
		len = min_t(size_t, vec[i].iov_len, MAX_RW_COUNT);
		if (unlikely(!access_ok(vec[i].iov_base, vec[i].iov_len)))
			*err = -EFAULT;
		else
			*err = uev_write_buf(uf, vec[i].iov_base, len);
		if (unlikely(*err))
			break;
		uev_resched(&n);
	}
	return i;
}

/*
 * Read struct user_batch: its fields one by one where @size is this
 * kernel's (the call's fixed cost is paid once per batch, but also by a
 * batch of one), else under the rules of every size-versioned struct.
 */
static int uev_batch_get(struct user_batch *batch,
			 const struct user_batch __user *ubatch)
{
	if (get_user(batch->size, &ubatch->size))
		return -EFAULT;
	if (unlikely(batch->size != sizeof(*batch)))
		return uev_copy_struct(batch, sizeof(*batch), sizeof(*batch),
				       ubatch);
	if (!user_read_access_begin(ubatch, sizeof(*ubatch)))
		return -EFAULT;
	unsafe_get_user(batch->count, &ubatch->count, fault);
	unsafe_get_user(batch->records, &ubatch->records, fault);
	unsafe_get_user(batch->__reserved, &ubatch->__reserved, fault);
	user_read_access_end();
	return 0;
fault:
	user_read_access_end();
	return -EFAULT;
}

/*
 * DIAG_IOCSBATCH: many records in one call, so that a program that emits
 * many events pays one system call for them, with each record's own
 * answer. The file must be open for writing and pass the checks of a
 * write(), as each record would. Return: the records written, from the
 * first; if fewer than asked, @ubatch->error says why the next one was
 * not.
 */
static long uev_ioctl_batch(struct file *file,
			    struct user_batch __user *ubatch)
{
	struct iovec fast[UIO_FASTIOV], *vec;
	struct user_batch batch;
	unsigned int done;
	int ret, err = 0;

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	ret = rw_verify_area(WRITE, file, NULL, 0);
	if (ret)
		return ret;
	ret = uev_batch_get(&batch, ubatch);
	if (ret)
		return ret;
	static_assert(USER_BATCH_MAX <= UIO_MAXIOV);
	if (!batch.count || batch.count > USER_BATCH_MAX || batch.__reserved)
		return -EINVAL;
	/* a struct the answer cannot be stored in fails before any write */
	if (put_user(0, &ubatch->error))
		return -EFAULT;
	vec = iovec_from_user(u64_to_user_ptr(batch.records), batch.count,
			      ARRAY_SIZE(fast), fast, in_compat_syscall());
	if (IS_ERR(vec))
		return PTR_ERR(vec);
	done = uev_write_batch(file->private_data, vec, batch.count, &err);
	if (vec != fast)
		kfree(vec);
	if (done)
		fsnotify_modify(file);
	/* records are written: a struct unmapped meanwhile loses the errno */
	if (err && put_user(-err, &ubatch->error) && !done)
		return -EFAULT;
	return done;
}

/*
 * DIAG_IOCGLOSS of any size: struct user_loss grows at its end, and its
 * @size says how much of it the caller has.
 */
static bool uev_is_loss_cmd(unsigned int cmd)
{
	return _IOC_TYPE(cmd) == _IOC_TYPE(DIAG_IOCGLOSS) &&
	       _IOC_NR(cmd) == _IOC_NR(DIAG_IOCGLOSS) &&
	       _IOC_DIR(cmd) == _IOC_DIR(DIAG_IOCGLOSS);
}

static long uev_data_ioctl(struct file *file, unsigned int cmd,
			   unsigned long uarg)
{
	void __user *arg = (void __user *)uarg;

	if (uev_is_loss_cmd(cmd))
		return uev_ioctl_loss(file->private_data, arg);
	switch (cmd) {
	case DIAG_IOCSBATCH:
		return uev_ioctl_batch(file, arg);
	case DIAG_IOCSREG:
		return uev_ioctl_reg(file->private_data, arg);
	case DIAG_IOCSDEL:
		return uev_ioctl_del(file->private_data, arg);
	case DIAG_IOCSUNREG:
		return uev_ioctl_unreg(arg);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/*
 * 32-bit programs: struct user_reg and struct user_unreg have one layout
 * for every ABI (explicit sizes, 64-bit addresses), but the command
 * numbers encode the size of a pointer, 4 bytes here.
 */
#define UEV_COMPAT_IOCSREG	_IOWR(DIAG_IOC_MAGIC, 0, compat_uptr_t)
#define UEV_COMPAT_IOCSDEL	_IOW(DIAG_IOC_MAGIC, 1, compat_uptr_t)
#define UEV_COMPAT_IOCSUNREG	_IOW(DIAG_IOC_MAGIC, 2, compat_uptr_t)

static long uev_data_compat_ioctl(struct file *file, unsigned int cmd,
				  unsigned long uarg)
{
	switch (cmd) {
	case UEV_COMPAT_IOCSREG:
		cmd = DIAG_IOCSREG;
		break;
	case UEV_COMPAT_IOCSDEL:
		cmd = DIAG_IOCSDEL;
		break;
	case UEV_COMPAT_IOCSUNREG:
		cmd = DIAG_IOCSUNREG;
		break;
	case DIAG_IOCSBATCH:	/* one layout, no pointer in its number */
		break;
	default:
		if (!uev_is_loss_cmd(cmd))	/* no pointer in its number */
			return -ENOTTY;
	}
	return uev_data_ioctl(file, cmd, (unsigned long)compat_ptr(uarg));
}
#else
#define uev_data_compat_ioctl	NULL
#endif

static int uev_data_open(struct inode *inode, struct file *file)
{
	struct uev_file *uf;
	int ret;

	ret = tracing_check_open_get_tr(NULL);
	if (ret)
		return ret;
	uf = kzalloc(sizeof(*uf), GFP_KERNEL_ACCOUNT);
	if (!uf)
		return -ENOMEM;
	/* Events belong to the namespace of whoever opened the file. */
	uf->group = uev_group_get(file->f_cred->user_ns);
	if (!uf->group) {
		kfree(uf);
		return -ENOMEM;
	}
	file->private_data = uf;
	/* a write waits for nothing but the writer's memory: see uev_data_fops */
	file->f_mode |= FMODE_NOWAIT;
	return 0;
}

static int uev_data_release(struct inode *inode, struct file *file)
{
	struct uev_file *uf = file->private_data;
	struct uev_slots *slots = rcu_dereference_protected(uf->slots, true);
	unsigned int n = 0;
	u32 i;

	/* before the slots: their references keep the watched events */
	uev_notify_free(uf->notify);
	for (i = 0; slots && i < slots->nr; i++) {
		uev_event_put(slots->ev[i]);
		uev_resched(&n);	/* up to UEV_FILE_SLOTS_MAX */
	}
	kvfree(slots);
	uev_group_put(uf->group);
	kfree(uf);
	return 0;
}

/*
 * A file with USER_EVENT_REG_NOTIFY registrations is readable while some
 * enable change was not read; any other is ready for everything at once,
 * as a file without a poll method is.
 */
static __poll_t uev_data_poll(struct file *file, poll_table *pt)
{
	struct uev_file *uf = file->private_data;
	/* Pairs with uev_notify_get()'s cmpxchg(): seen initialised. */
	struct uev_notify *nt = smp_load_acquire(&uf->notify);
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	/* a waiter (epoll) may come before the registrations: it waits too */
	if (!nt && !poll_does_not_wait(pt))
		nt = uev_notify_get(uf);
	if (!nt)
		return DEFAULT_POLLMASK;
	poll_wait(file, &nt->wait, pt);
	if (!READ_ONCE(nt->armed))
		return DEFAULT_POLLMASK;
	if (atomic_long_read(&nt->changes))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/*
 * read(): the enable changes of the file's USER_EVENT_REG_NOTIFY events
 * since the last read, as a u64, waiting for one unless O_NONBLOCK. A file
 * without such registrations cannot be read, as one without a read method.
 */
static ssize_t uev_data_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct uev_file *uf = file->private_data;
	/* Pairs with uev_notify_get()'s cmpxchg(): seen initialised. */
	struct uev_notify *nt = smp_load_acquire(&uf->notify);
	u64 changes;
	int ret;

	if (!nt || !READ_ONCE(nt->armed) || count < sizeof(changes))
		return -EINVAL;
	for (;;) {
		changes = atomic_long_xchg(&nt->changes, 0);
		if (changes)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(nt->wait,
					       atomic_long_read(&nt->changes));
		if (ret)
			return ret;
	}
	if (put_user(changes, (u64 __user *)ubuf)) {
		atomic_long_add(changes, &nt->changes);
		wake_up_interruptible_poll(&nt->wait, EPOLLIN | EPOLLRDNORM);
		return -EFAULT;
	}
	return sizeof(changes);
}

/*
 * A write waits for nothing but the writer's own memory, so io_uring may
 * write inline, in the submitting task (FMODE_NOWAIT, and the flag that
 * lets a regular file take IOCB_NOWAIT writes), instead of handing each
 * record to a worker thread whose pid and CPU it would then carry.
 */
static const struct file_operations uev_data_fops = {
	.fop_flags	= FOP_BUFFER_WASYNC,
	.open		= uev_data_open,
	.read		= uev_data_read,
	.poll		= uev_data_poll,
	.write		= uev_data_write,
	.write_iter	= uev_data_write_iter,
	.unlocked_ioctl	= uev_data_ioctl,
	.compat_ioctl	= uev_data_compat_ioctl,
	.release	= uev_data_release,
	.llseek		= noop_llseek,
};

/* ---------------------------------------------------------------------
 * user_events_status
 */

/*
 * Does a reader of user_events_status or user_events_loss in @g's namespace
 * see @ev?  Not one whose last tracer just left: it is as good as gone
 * (dynamic_events does not list it either).
 */
static bool uev_event_shown(struct user_event *ev, struct uev_group *g)
{
	return ev->group == g && !uev_event_reaped(ev);
}

/* The events of the reader's namespace. */
static int uev_status_show(struct seq_file *m, void *unused)
{
	struct user_event *ev;
	struct uev_group *g;
	int bkt, active = 0, busy = 0;

	mutex_lock(&event_mutex);
	g = uev_group_find(m->file->f_cred->user_ns);
	hash_for_each(uev_table, bkt, ev, node) {
		if (!uev_event_shown(ev, g))
			continue;
		active++;
		seq_puts(m, ev->tp_name);
		if (ev->status) {
			busy++;
			seq_puts(m, " # Used by");
			if (ev->status & UEV_STATUS_FTRACE)
				seq_puts(m, " ftrace");
			if (ev->status & UEV_STATUS_PERF)
				seq_puts(m, " perf");
			if (ev->status & UEV_STATUS_OTHER)
				seq_puts(m, " other");
		}
		seq_putc(m, '\n');
	}
	mutex_unlock(&event_mutex);
	seq_printf(m, "\nActive: %d\nBusy: %d\n", active, busy);
	return 0;
}

/* The read-only files: the inode's data is the file's show function. */
static int uev_show_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, inode->i_private, NULL);
}

static const struct file_operations uev_show_fops = {
	.open		= uev_show_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* ---------------------------------------------------------------------
 * user_events_loss: "NAME written N ftrace N perf N fault N size N"
 */

/* The events of the reader's namespace, what became of their records. */
static int uev_loss_show(struct seq_file *m, void *unused)
{
	struct user_event *ev;
	struct uev_group *g;
	int bkt;

	guard(mutex)(&event_mutex);
	g = uev_group_find(m->file->f_cred->user_ns);
	hash_for_each(uev_table, bkt, ev, node) {
		struct user_loss loss = {};

		if (!uev_event_shown(ev, g))
			continue;
		uev_loss_read(ev, &loss);
		seq_printf(m, "%s written %llu ftrace %llu perf %llu fault %llu size %llu\n",
			   ev->tp_name, loss.written, loss.lost_ftrace,
			   loss.lost_perf, loss.lost_fault, loss.lost_size);
		cond_resched();
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * dynamic_events: "u:NAME fields" creates a persistent event
 */

static struct user_event *uev_from_dyn(struct dyn_event *dev)
{
	return container_of(dev, struct user_event, devent);
}

static int uev_dyn_create(const char *raw)
{
	struct uev_cmd cmd, *c __free(uev_cmd) = NULL;
	struct user_event *ev;
	int ret;

	/* every dynamic event command comes here: leave the others alone */
	if (!str_has_prefix(raw, USER_EVENTS_PREFIX))
		return -ECANCELED;
	if (!perfmon_capable())
		return -EPERM;
	c = &cmd;	/* freed from here on: uev_cmd_init() clears it first */
	ret = uev_cmd_init(c, skip_spaces(raw + strlen(USER_EVENTS_PREFIX)),
			   "dynamic_events", false);
	if (ret)
		return ret;
	/* perfmon_capable(): the writer is in the initial namespace */
	guard(mutex)(&event_mutex);
	ev = uev_event_get_or_create(&uev_init_group, c,
				     USER_EVENT_REG_PERSIST);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	uev_event_put_locked(ev);
	return 0;
}

/*
 * Listed by its name: multi-format versions all show the same one. Events
 * of other namespaces are prefixed with their system. As in
 * user_events_status, one whose last tracer just left is not listed.
 * Called under event_mutex (dyn_event_seq_start()).
 */
static int uev_dyn_show(struct seq_file *m, struct dyn_event *dev)
{
	struct user_event *ev = uev_from_dyn(dev);

	if (uev_event_reaped(ev))
		return 0;
	seq_puts(m, USER_EVENTS_PREFIX);
	if (ev->group != &uev_init_group)
		seq_printf(m, "%s/", ev->group->system);
	uev_format_print(ev->fmt, m);
	seq_putc(m, '\n');
	return 0;
}

static bool uev_dyn_is_busy(struct dyn_event *dev)
{
	return uev_event_busy(uev_from_dyn(dev));
}

static int uev_dyn_free(struct dyn_event *dev)
{
	struct user_event *ev = uev_from_dyn(dev);

	if (uev_is_persistent(ev) && !perfmon_capable())
		return -EPERM;
	return uev_event_destroy(ev);
}

/*
 * "-:[SYSTEM/]NAME [fields]" and "!u:NAME [fields]". Without fields, every
 * event of that name matches, as for every other dynamic event type.
 * Without a system, only the initial namespace's events match.
 */
static bool uev_dyn_match(const char *system, const char *event, int argc,
			  const char **argv, struct dyn_event *dev)
{
	struct user_event *ev = uev_from_dyn(dev);
	struct uev_group *g = ev->group;

	if (!system && g != &uev_init_group)
		return false;
	if (system && strcmp(system, g->system) &&
	    strcmp(system, g->system_multi))
		return false;
	return !strcmp(event, uev_format_name(ev->fmt)) &&
	       (!argc || uev_format_match(ev->fmt, argc, argv));
}

static struct dyn_event_operations uev_dyn_ops = {
	.create		= uev_dyn_create,
	.show		= uev_dyn_show,
	.is_busy	= uev_dyn_is_busy,
	.free		= uev_dyn_free,
	.match		= uev_dyn_match,
};

/* ---------------------------------------------------------------------
 * Setup
 */

static struct ctl_table uev_sysctls[] = {
	{
		.procname	= "user_events_max",
		.data		= &uev_max,
		.maxlen		= sizeof(uev_max),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "user_events_ns_max",
		.data		= &uev_ns_max,
		.maxlen		= sizeof(uev_ns_max),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "user_events_ns_groups",
		.data		= &uev_ns_groups,
		.maxlen		= sizeof(uev_ns_groups),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init uev_init(void)
{
	int ret;

	init_user_ns.ucount_max[UCOUNT_USER_EVENT_ENABLERS] =
		UEV_USER_ENABLERS_MAX;
	init_user_ns.ucount_max[UCOUNT_USER_EVENTS] = UEV_USER_EVENTS_MAX;
	init_user_ns.ucount_max[UCOUNT_USER_EVENT_FAULTS] = UEV_USER_FAULTS_MAX;
	uev_event_cache = KMEM_CACHE(user_event, SLAB_ACCOUNT);
	uev_enabler_cache = KMEM_CACHE(uev_enabler, SLAB_ACCOUNT);
	uev_wq = alloc_workqueue("user_events", WQ_UNBOUND, 0);
	if (!uev_event_cache || !uev_enabler_cache || !uev_wq) {
		kmem_cache_destroy(uev_event_cache);
		kmem_cache_destroy(uev_enabler_cache);
		if (uev_wq)
			destroy_workqueue(uev_wq);
		return -ENOMEM;
	}
	ret = dyn_event_register(&uev_dyn_ops);
	if (ret) {
		pr_warn("cannot register dynamic event type: %d\n", ret);
		return ret;
	}
	if (tracing_init_dentry())
		return 0;
	if (!trace_create_file("user_events_data", TRACE_MODE_WRITE, NULL,
			       NULL, &uev_data_fops) ||
	    !trace_create_file("user_events_status", TRACE_MODE_READ, NULL,
			       uev_status_show, &uev_show_fops) ||
	    !trace_create_file("user_events_loss", TRACE_MODE_READ, NULL,
			       uev_loss_show, &uev_show_fops))
		pr_warn("cannot create tracefs files\n");
	register_sysctl_init("kernel", uev_sysctls);
	return 0;
}
fs_initcall(uev_init);
