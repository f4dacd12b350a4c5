/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hooks through which fork, exec, exit and the teardown of an address
 * space keep user_events registrations attached to the address spaces
 * that made them.
 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <linux/err.h>
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <uapi/linux/user_events.h>

#ifdef CONFIG_USER_EVENTS
/*
 * task_struct.user_event_mm once the task's exit hook ran: no later put of
 * an address space is handed to it.
 */
#define USER_EVENT_MM_EXITED	((struct user_event_mm *)ERR_PTR(-ESRCH))

void user_event_mm_fork(struct task_struct *t, unsigned long clone_flags);
void user_event_mm_release(struct mm_struct *mm);
void user_event_mm_drop(struct user_event_mm *uemm);

/**
 * user_events_mm_init() - a new address space has no registrations
 * @mm: the address space, possibly a copy of its parent's
 */
static inline void user_events_mm_init(struct mm_struct *mm)
{
	mm->user_event_mm = NULL;
}

/**
 * user_events_mm_release() - an address space is torn down
 * @mm: the address space, whose last user is gone
 *
 * Called from __mmput(), in whatever context dropped the last reference.
 * When that is the exit of a task that used @mm (exit_mm(), or a file
 * closed by its exit that held @mm, as vhost's does) or its exec, the task
 * removes the registrations itself in user_events_exit() or
 * user_events_execve(), holding no lock; otherwise a work item does.
 */
static inline void user_events_mm_release(struct mm_struct *mm)
{
	if (unlikely(mm->user_event_mm))
		user_event_mm_release(mm);
}

/**
 * user_events_fork() - copy the registrations of current to a new task
 * @t: the new task, whose task_struct was copied from current
 * @clone_flags: flags of the clone
 *
 * A new address space gets a copy of its parent's registrations; threads
 * share them with the address space. Costs two loads for tasks of address
 * spaces without registrations.
 */
static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
	t->user_event_mm = NULL;
	if (unlikely(current->mm && READ_ONCE(current->mm->user_event_mm)) &&
	    !(clone_flags & CLONE_VM))
		user_event_mm_fork(t, clone_flags);
}

/**
 * user_events_execve() - the old image's registrations are gone
 * @t: the task that completed exec
 */
static inline void user_events_execve(struct task_struct *t)
{
	struct user_event_mm *uemm = t->user_event_mm;

	if (unlikely(uemm)) {
		t->user_event_mm = NULL;
		user_event_mm_drop(uemm);
	}
}

/**
 * user_events_exit() - the exiting task's registrations are gone
 * @t: the exiting task, after exit_mm() and exit_task_work(): the puts of
 *     address spaces that its exit made, its files' included, are done;
 *     any later one goes to a work item
 */
static inline void user_events_exit(struct task_struct *t)
{
	struct user_event_mm *uemm = t->user_event_mm;

	t->user_event_mm = USER_EVENT_MM_EXITED;
	if (unlikely(uemm))
		user_event_mm_drop(uemm);
}
#else
static inline void user_events_mm_init(struct mm_struct *mm)
{
}

static inline void user_events_mm_release(struct mm_struct *mm)
{
}

static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
}

static inline void user_events_execve(struct task_struct *t)
{
}

static inline void user_events_exit(struct task_struct *t)
{
}
#endif /* CONFIG_USER_EVENTS */

#endif /* _LINUX_USER_EVENTS_H */
