/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hooks through which fork, exec and exit keep user_events registrations
 * attached to the right address spaces.
 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <linux/sched.h>
#include <uapi/linux/user_events.h>

#ifdef CONFIG_USER_EVENTS
void user_event_mm_fork(struct task_struct *t, unsigned long clone_flags);
void user_event_mm_remove(struct task_struct *t);

/**
 * user_events_fork() - hand the registrations of current to a new task
 * @t: the new task, whose task_struct was copied from current
 * @clone_flags: flags of the clone
 *
 * Costs one load for tasks without registrations.
 */
static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
	t->user_event_mm = NULL;
	if (unlikely(current->user_event_mm))
		user_event_mm_fork(t, clone_flags);
}

/**
 * user_events_execve() - drop the registrations of the old image
 * @t: the task that completed exec
 */
static inline void user_events_execve(struct task_struct *t)
{
	if (unlikely(t->user_event_mm))
		user_event_mm_remove(t);
}

/**
 * user_events_exit() - drop the registrations of an exiting task
 * @t: the exiting task
 */
static inline void user_events_exit(struct task_struct *t)
{
	if (unlikely(t->user_event_mm))
		user_event_mm_remove(t);
}
#else
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
