/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libuser_events internals, shared by the library's objects and by its
 * tests (tools/lib/user_events/tests), which link the static library.
 * Nothing declared here is exported by the shared library.
 */
#ifndef _USER_EVENTS_LIB_INTERNAL_H
#define _USER_EVENTS_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel ABI: tools' copy, checked by check-headers.sh */
#include "../../include/uapi/linux/user_events.h"

/*
 * sys.c: the library's ways into the kernel other than the writev() of
 * ue_write(): ioctl(), poll() and read() on user_events_data, and the
 * write() of each record of a batch on a kernel without DIAG_IOCSBATCH,
 * returning -errno on failure.  sys.o defines nothing else, so a test
 * that links its own four ahead of libuser_events.a plays another kernel
 * (one that knows fewer flags, or no batches, say).
 */
/* ioctl(): its result, >= 0 (DIAG_IOCSBATCH: the records written) */
int uel_ioctl(int fd, unsigned long request, void *arg);
/* poll() of @fd alone: its revents, 0 on timeout */
int uel_poll(int fd, short events, int timeout_ms);
/* read(): the bytes read */
ssize_t uel_read(int fd, void *buf, size_t len);
/* write(): the bytes written */
ssize_t uel_write(int fd, const void *buf, size_t len);

/* ue_find_tracefs() on the mount table @mounts instead of /proc/mounts. */
int uel_find_tracefs_in(const char *mounts, char *buf, size_t len);

/* parse.c: the payload layout of a command */
enum uel_kind {
	UEL_SCALAR,
	UEL_CHARS,	/* char[N]: a string, NUL padded */
	UEL_BYTES,	/* unsigned char[N] */
	UEL_STRUCT,
	UEL_LOC_STR,	/* __data_loc / __rel_loc of a char type: a string */
	UEL_LOC_BLOB,	/* __data_loc / __rel_loc of another type: bytes */
};

struct uel_field {
	const char *name;
	const char *type;	/* its words joined by one space, as written */
	uint32_t offset;	/* in the payload */
	uint32_t size;
	uint8_t kind;
	uint8_t data_loc;	/* 1: __data_loc, 0: __rel_loc */
	uint8_t is_signed;
};

unsigned int uel_count_fields(const char *cmd);
int uel_parse(char *cmd, char *types, const char **name,
	      struct uel_field *fields, unsigned int max, uint32_t *fixed);
bool uel_format_matches(const struct uel_field *fields, unsigned int nfields,
			char *fmt);
uint32_t uel_format_common_size(const char *fmt);

#endif /* _USER_EVENTS_LIB_INTERNAL_H */
