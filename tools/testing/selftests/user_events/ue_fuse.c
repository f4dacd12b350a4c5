// SPDX-License-Identifier: GPL-2.0
/* A minimal FUSE daemon for the user_events selftests; see ue_fuse.h. */
#include "ue_fuse.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/fuse.h>

#define UF_ROOT		FUSE_ROOT_ID
#define UF_INO		2
#define UF_NAME		"f"
#define UF_VALID	3600	/* seconds an entry or attribute stays valid */
#define UF_BUF		(FUSE_MIN_READ_BUFFER + 128 * 1024)

struct ue_fuse_ctl {	/* shared, __atomic accesses */
	int hold;	/* leave reads unanswered */
	int held;	/* reads left unanswered */
	size_t size;	/* of the file */
};

static int uf_reply(int fd, __u64 unique, int err, const void *data, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (err ? 0 : len),
		.error = err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) }, { (void *)data, err ? 0 : len },
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

/* The byte at @off of the file */
static char uf_byte(__u64 off)
{
	return (char)(off * 13 + 5);
}

static void uf_serve(int fd, struct ue_fuse_ctl *ctl)
{
	char *buf = malloc(UF_BUF), data[4096];
	struct fuse_in_header *in = (void *)buf;
	void *arg = buf + sizeof(*in);
	size_t size = ctl->size, i, n;
	ssize_t got;

	if (!buf)
		_exit(2);
	for (;;) {
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
			n = n < sizeof(data) ? n : sizeof(data);
			for (i = 0; i < n; i++)
				data[i] = uf_byte(r->offset + i);
			uf_reply(fd, in->unique, 0, data, n);
			break;
		}
		case FUSE_FLUSH:
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
	int fd, ret;

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
	f->daemon = fork();
	if (!f->daemon) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		uf_serve(fd, f->ctl);
	}
	ret = f->daemon < 0 ? -errno : 0;
	close(fd);	/* the daemon holds the only one: the connection ends with it */
	if (f->daemon < 0)
		f->daemon = 0;
	return ret;
}

void ue_fuse_hold_reads(struct ue_fuse *f)
{
	__atomic_store_n(&f->ctl->hold, 1, __ATOMIC_RELEASE);
}

int ue_fuse_held(const struct ue_fuse *f)
{
	return f->ctl ? __atomic_load_n(&f->ctl->held, __ATOMIC_ACQUIRE) : 0;
}

void ue_fuse_stop(struct ue_fuse *f)
{
	if (f->daemon > 0) {
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
