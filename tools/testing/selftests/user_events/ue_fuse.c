// SPDX-License-Identifier: GPL-2.0
/* A minimal FUSE daemon for the user_events selftests; see ue_fuse.h. */
#include "ue_fuse.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/fuse.h>

#define UF_ROOT		FUSE_ROOT_ID
#define UF_INO		2
#define UF_NAME		"f"
#define UF_VALID	3600	/* seconds an entry or attribute stays valid */
#define UF_BUF		(FUSE_MIN_READ_BUFFER + 128 * 1024)
#define UF_HELD		16	/* writes held at most; later ones are answered */

struct ue_fuse_ctl {	/* shared, __atomic accesses */
	int hold;	/* leave reads unanswered */
	int held;	/* reads left unanswered */
	int hold_writes;	/* leave writes unanswered until released */
	int held_writes;	/* writes so held */
	int inval;	/* 1: the invalidation is in the kernel; 0 or its -errno */
	size_t size;	/* of the file */
};

/* The daemon's state */
struct uf_daemon {
	int fd;		/* /dev/fuse */
	struct ue_fuse_ctl *ctl;
	char *data;	/* the file */
	int nheld;	/* writes held: their unique and size */
	struct {
		__u64 unique;
		__u32 size;
	} held[UF_HELD];
};

/* A reply (@err <= 0) or a notification (@err its code, @unique 0) */
static int uf_reply(int fd, __u64 unique, int err, const void *data, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (err < 0 ? 0 : len),
		.error = err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) }, { (void *)data, err < 0 ? 0 : len },
	};

	return writev(fd, iov, 2) == out.len ? 0 : -errno;
}

static void uf_attr(struct fuse_attr *a, __u64 ino, size_t size)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = ino == UF_ROOT ? 2 : 1;
	a->mode = ino == UF_ROOT ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->size = ino == UF_ROOT ? 0 : size;
	a->blocks = (a->size + 511) / 512;
	a->blksize = 4096;
}

/* The byte at @off of the file, as it starts */
static char uf_byte(__u64 off)
{
	return (char)(off * 13 + 5);
}

/* A thread of the daemon: notify the kernel that the file changed, which drops its pages */
static void *uf_inval(void *p)
{
	struct uf_daemon *d = p;
	struct fuse_notify_inval_inode_out inval = { .ino = UF_INO };	/* all of it */
	int ret = uf_reply(d->fd, 0, FUSE_NOTIFY_INVAL_INODE, &inval, sizeof(inval));

	__atomic_store_n(&d->ctl->inval, ret, __ATOMIC_RELEASE);
	return NULL;
}

/* A command of the test: 'i' invalidate (in a thread: it may block), 'w' answer held writes */
static void uf_command(struct uf_daemon *d, int sock)
{
	struct fuse_write_out wo = { 0 };
	pthread_t th;
	char c;

	if (read(sock, &c, 1) != 1)
		_exit(0);	/* the test is gone */
	if (c == 'i' && pthread_create(&th, NULL, uf_inval, d))
		__atomic_store_n(&d->ctl->inval, -EAGAIN, __ATOMIC_RELEASE);
	else if (c == 'i')
		pthread_detach(th);
	while (c == 'w' && d->nheld) {
		d->nheld--;
		wo.size = d->held[d->nheld].size;
		uf_reply(d->fd, d->held[d->nheld].unique, 0, &wo, sizeof(wo));
	}
}

/* Store a write, and answer it unless writes are held */
static void uf_write(struct uf_daemon *d, const struct fuse_in_header *in, size_t got)
{
	const struct fuse_write_in *w = (const void *)(in + 1);
	struct fuse_write_out wo = { .size = w->size };
	size_t size = d->ctl->size, n;

	n = w->offset < size ? size - w->offset : 0;
	n = n < w->size ? n : w->size;
	if (n && got >= sizeof(*in) + sizeof(*w) + n)
		memcpy(d->data + w->offset, w + 1, n);
	if (__atomic_load_n(&d->ctl->hold_writes, __ATOMIC_ACQUIRE) && d->nheld < UF_HELD) {
		d->held[d->nheld].unique = in->unique;
		d->held[d->nheld++].size = w->size;
		__atomic_add_fetch(&d->ctl->held_writes, 1, __ATOMIC_RELEASE);
		return;
	}
	uf_reply(d->fd, in->unique, 0, &wo, sizeof(wo));
}

static void uf_serve(int fd, int sock, struct ue_fuse_ctl *ctl)
{
	struct uf_daemon d = { .fd = fd, .ctl = ctl, .data = malloc(ctl->size) };
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = sock, .events = POLLIN } };
	char *buf = malloc(UF_BUF);
	struct fuse_in_header *in = (void *)buf;
	void *arg = buf + sizeof(*in);
	size_t size = ctl->size, i, n;
	ssize_t got;

	if (!buf || !d.data)
		_exit(2);
	for (i = 0; i < size; i++)
		d.data[i] = uf_byte(i);
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(2);
		}
		if (pfd[1].revents)
			uf_command(&d, sock);
		if (!pfd[0].revents)
			continue;
		got = read(fd, buf, UF_BUF);
		if (got < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (got < (ssize_t)sizeof(*in))
			_exit(0);	/* unmounted or aborted */
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = arg;
			struct fuse_init_out io = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead,
				.max_background = 16,
				.congestion_threshold = 12,
				.max_write = 4096,
				.time_gran = 1,
			};

			uf_reply(fd, in->unique, 0, &io, sizeof(io));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = {
				.nodeid = UF_INO,
				.entry_valid = UF_VALID,
				.attr_valid = UF_VALID,
			};

			uf_attr(&e.attr, UF_INO, size);
			if (in->nodeid == UF_ROOT && !strcmp(arg, UF_NAME))
				uf_reply(fd, in->unique, 0, &e, sizeof(e));
			else
				uf_reply(fd, in->unique, -ENOENT, NULL, 0);
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { .attr_valid = UF_VALID };

			uf_attr(&a.attr, in->nodeid, size);
			uf_reply(fd, in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			uf_reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			const struct fuse_read_in *r = arg;

			if (__atomic_load_n(&ctl->hold, __ATOMIC_ACQUIRE)) {
				__atomic_add_fetch(&ctl->held, 1, __ATOMIC_RELEASE);
				break;	/* never answered */
			}
			n = r->offset < size ? size - r->offset : 0;
			n = n < r->size ? n : r->size;
			uf_reply(fd, in->unique, 0, d.data + (n ? r->offset : 0), n);
			break;
		}
		case FUSE_WRITE:
			uf_write(&d, in, got);
			break;
		case FUSE_FLUSH:
		case FUSE_FSYNC:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			uf_reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;	/* no answer expected */
		default:
			uf_reply(fd, in->unique, -EOPNOTSUPP, NULL, 0);
		}
	}
}

int ue_fuse_start(struct ue_fuse *f, size_t size)
{
	char opts[128];
	int fd, ret, sock[2];

	memset(f, 0, sizeof(*f));
	f->ctl = mmap(NULL, sizeof(*f->ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (f->ctl == MAP_FAILED) {
		f->ctl = NULL;
		return -ENOMEM;
	}
	f->ctl->size = size;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? -ENODEV : -errno;
	snprintf(f->dir, sizeof(f->dir), "/tmp/uet_fuse.XXXXXX");
	if (!mkdtemp(f->dir)) {
		ret = -errno;
		f->dir[0] = '\0';
		close(fd);
		return ret;
	}
	snprintf(f->file, sizeof(f->file), "%s/" UF_NAME, f->dir);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("uet_fuse", f->dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		ret = errno == ENODEV ? -ENODEV : -errno;
		close(fd);
		return ret;
	}
	f->mounted = true;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	f->daemon = fork();
	if (!f->daemon) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(sock[0]);
		uf_serve(fd, sock[1], f->ctl);
	}
	ret = f->daemon < 0 ? -errno : 0;
	close(fd);	/* the daemon holds the only one: the connection ends with it */
	close(sock[1]);
	f->cmd = sock[0];
	if (f->daemon < 0) {
		f->daemon = 0;
		close(sock[0]);
	}
	return ret;
}

/* Send command @c to the daemon: 0 or -EPIPE */
static int uf_command_send(struct ue_fuse *f, char c)
{
	return f->daemon > 0 && send(f->cmd, &c, 1, MSG_NOSIGNAL) == 1 ? 0 : -EPIPE;
}

void ue_fuse_hold_reads(struct ue_fuse *f)
{
	__atomic_store_n(&f->ctl->hold, 1, __ATOMIC_RELEASE);
}

int ue_fuse_held(const struct ue_fuse *f)
{
	return f->ctl ? __atomic_load_n(&f->ctl->held, __ATOMIC_ACQUIRE) : 0;
}

void ue_fuse_hold_writes(struct ue_fuse *f)
{
	__atomic_store_n(&f->ctl->hold_writes, 1, __ATOMIC_RELEASE);
}

int ue_fuse_held_writes(const struct ue_fuse *f)
{
	return f->ctl ? __atomic_load_n(&f->ctl->held_writes, __ATOMIC_ACQUIRE) : 0;
}

int ue_fuse_release_writes(struct ue_fuse *f)
{
	__atomic_store_n(&f->ctl->hold_writes, 0, __ATOMIC_RELEASE);
	return uf_command_send(f, 'w');
}

int ue_fuse_inval(struct ue_fuse *f)
{
	__atomic_store_n(&f->ctl->inval, 1, __ATOMIC_RELEASE);
	return uf_command_send(f, 'i');
}

int ue_fuse_inval_state(const struct ue_fuse *f)
{
	return f->ctl ? __atomic_load_n(&f->ctl->inval, __ATOMIC_ACQUIRE) : -EPIPE;
}

void ue_fuse_stop(struct ue_fuse *f)
{
	/* a daemon's thread may wait in the kernel for the daemon: abort first */
	if (f->mounted)
		umount2(f->dir, MNT_FORCE);
	if (f->daemon > 0) {
		close(f->cmd);
		kill(f->daemon, SIGKILL);
		waitpid(f->daemon, NULL, 0);
		f->daemon = 0;
	}
	if (f->mounted)
		umount2(f->dir, MNT_DETACH);
	f->mounted = false;
	if (f->dir[0])
		rmdir(f->dir);
	f->dir[0] = '\0';
	if (f->ctl)
		munmap(f->ctl, sizeof(*f->ctl));
	f->ctl = NULL;
}
