// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: what an unprivileged user may and may not do.
 *
 * An administrator can hand user_events_data to a group (chgrp + chmod of
 * the tracefs files); members of that group register and write events
 * without any capability.  This test plays both roles: the root parent
 * opens the tracefs files to a test group, and a child that switched to an
 * unprivileged uid/gid (no capabilities left) does the unprivileged part.
 * The modes and owners are restored at the end of every test.
 *
 * Checked: PERSIST registration, deleting a persistent event and "u:" in
 * dynamic_events need CAP_PERFMON (EPERM; EACCES when the file itself is
 * not accessible); an event another process uses cannot be deleted
 * (EBUSY); a read-only enable word is refused (EFAULT) and not written;
 * the kernel writes the enable bit only into the registering process's
 * memory; a write index is private to the fd it was returned on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <grp.h>
#include <poll.h>
#include "../kselftest_harness.h"
#include "ue_util.h"

/* An otherwise unused uid/gid for the unprivileged side. */
#define UNPRIV_UID	64711
#define UNPRIV_GID	64711

/* Exit status of a child whose privilege drop or setup failed. */
#define CHILD_BROKEN	255

enum { F_ROOT, F_DATA, F_STATUS, F_DYN, F_NR };

struct saved_perm {
	char path[PATH_MAX];
	struct stat st;
	bool saved;
};

FIXTURE(unpriv) {
	struct ue_track t;
	struct saved_perm perm[F_NR];
	char *page;
};

static int perm_save(struct saved_perm *p, const char *path)
{
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (stat(p->path, &p->st))
		return -errno;
	p->saved = true;
	return 0;
}

static int perm_set(struct saved_perm *p, gid_t gid, mode_t mode)
{
	if (chown(p->path, -1, gid) || chmod(p->path, mode))
		return -errno;
	return 0;
}

static void perm_restore(struct saved_perm *p)
{
	if (!p->saved)
		return;
	/* best effort: teardown has no way to report a failure here */
	if (chown(p->path, p->st.st_uid, p->st.st_gid) ||
	    chmod(p->path, p->st.st_mode & 07777))
		fprintf(stderr, "# cannot restore %s\n", p->path);
	p->saved = false;
}

FIXTURE_SETUP(unpriv)
{
	char path[PATH_MAX];

	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	if (geteuid() != 0)
		SKIP(return, "needs root to hand the tracefs files to a test group");

	ASSERT_EQ(0, perm_save(&self->perm[F_ROOT], ue_tracefs()));
	ASSERT_EQ(0, perm_save(&self->perm[F_DATA],
			       ue_tpath(path, sizeof(path), "user_events_data")));
	ASSERT_EQ(0, perm_save(&self->perm[F_STATUS],
			       ue_tpath(path, sizeof(path), "user_events_status")));
	ASSERT_EQ(0, perm_save(&self->perm[F_DYN],
			       ue_tpath(path, sizeof(path), "dynamic_events")));

	/* search permission on the mount point, group access to the files */
	ASSERT_EQ(0, chmod(self->perm[F_ROOT].path,
			   (self->perm[F_ROOT].st.st_mode & 07777) | 0011));
	ASSERT_EQ(0, perm_set(&self->perm[F_DATA], UNPRIV_GID, 0660));
	ASSERT_EQ(0, perm_set(&self->perm[F_STATUS], UNPRIV_GID, 0440));

	ASSERT_EQ(0, ue_track_init(&self->t));
	self->page = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(self->page));
}

FIXTURE_TEARDOWN(unpriv)
{
	int i;

	ue_track_cleanup(&self->t);
	for (i = F_NR - 1; i >= 0; i--)
		perm_restore(&self->perm[i]);
	if (self->page)
		munmap(self->page, getpagesize());
}

/* In a forked child: become UNPRIV_UID/UNPRIV_GID, no capabilities. */
static int drop_privileges(void)
{
	gid_t gid = UNPRIV_GID;

	if (setgroups(1, &gid) || setgid(UNPRIV_GID) || setuid(UNPRIV_UID))
		return -1;
	/* must not be able to get root back */
	if (geteuid() != UNPRIV_UID || setuid(0) == 0)
		return -1;
	return 0;
}

/*
 * Run @fn(@arg) in an unprivileged child.  Returns what @fn returned
 * (0 or -errno), -ECHILD when the child could not run it.
 */
static int run_unpriv(int (*fn)(void *), void *arg)
{
	int status, ret;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (drop_privileges())
			_exit(CHILD_BROKEN);
		ret = fn(arg);
		_exit(ret <= 0 && ret > -CHILD_BROKEN ? -ret : CHILD_BROKEN);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == CHILD_BROKEN)
		return -ECHILD;
	return -WEXITSTATUS(status);
}

/* Register @cmd with @flags on a fresh fd of the (unprivileged) caller. */
struct reg_req {
	const char *cmd;
	__u16 flags;
};

static int do_reg(void *arg)
{
	struct reg_req *req = arg;
	char *page = ue_map_page(PROT_READ | PROT_WRITE);
	int fd, ret;

	if (!page)
		return -ENOMEM;
	fd = ue_open_data();
	if (fd < 0)
		return -errno;
	ret = ue_reg(fd, req->cmd, page, 4, 0, req->flags, NULL);
	if (!ret)
		ret = ue_unreg(fd, page, 0);
	close(fd);
	return ret;
}

static int do_del(void *arg)
{
	return ue_del_name(arg);
}

static int do_dyn(void *arg)
{
	return ue_dyn_cmd(arg);
}

/* The group members can use user_events at all: the setup works. */
TEST_F(unpriv, register_plain)
{
	struct reg_req req = { "uet_up_plain u32 a", 0 };

	EXPECT_EQ(0, run_unpriv(do_reg, &req));
	/* not persistent: gone with the child's registration */
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_plain"));
}

TEST_F(unpriv, register_persist_eperm)
{
	struct reg_req req = { "uet_up_persist u32 a", USER_EVENT_REG_PERSIST };

	ue_track_del(&self->t, "uet_up_persist");
	EXPECT_EQ(-EPERM, run_unpriv(do_reg, &req));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_persist"));

	req.flags = USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT;
	EXPECT_EQ(-EPERM, run_unpriv(do_reg, &req));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_up_persist"));
}

TEST_F(unpriv, delete_persistent_eperm)
{
	int fd;

	ue_track_del(&self->t, "uet_up_pdel");
	fd = ue_open_data();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_up_pdel u32 a", self->page, 4, 0,
			    USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	close(fd);

	/* unused, persistent: only a CAP_PERFMON holder may delete it */
	EXPECT_EQ(-EPERM, run_unpriv(do_del, "uet_up_pdel"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_up_pdel"));
	EXPECT_EQ(0, ue_del_name("uet_up_pdel"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_pdel"));
}

TEST_F(unpriv, dynamic_events)
{
	char line[256];

	ue_track_del(&self->t, "uet_up_dyn");
	ue_track_del(&self->t, "uet_up_dyn_root");

	/* dynamic_events is root's: the file cannot even be opened */
	EXPECT_EQ(-EACCES, run_unpriv(do_dyn, "u:uet_up_dyn u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_dyn"));

	/* writable by the group: the command itself needs CAP_PERFMON */
	ASSERT_EQ(0, perm_set(&self->perm[F_DYN], UNPRIV_GID, 0660));
	EXPECT_EQ(-EPERM, run_unpriv(do_dyn, "u:uet_up_dyn u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_dyn"));
	EXPECT_FALSE(ue_dyn_line("uet_up_dyn", line, sizeof(line)));

	/* nor can it delete a persistent event root created there */
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_up_dyn_root u32 a"));
	EXPECT_EQ(-EPERM, run_unpriv(do_dyn, "-:uet_up_dyn_root"));
	EXPECT_EQ(-EPERM, run_unpriv(do_dyn, "!u:uet_up_dyn_root"));
	EXPECT_EQ(-EPERM, run_unpriv(do_del, "uet_up_dyn_root"));
	EXPECT_TRUE(ue_dyn_line("uet_up_dyn_root", line, sizeof(line)));
	EXPECT_EQ(0, ue_dyn_cmd("-:uet_up_dyn_root"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_dyn_root"));
}

/* Root keeps a non-persistent event registered; the child may not delete it. */
TEST_F(unpriv, delete_in_use_ebusy)
{
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_up_busy u32 a", self->page,
				  4, 0, NULL));
	EXPECT_EQ(-EBUSY, run_unpriv(do_del, "uet_up_busy"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_up_busy"));

	/* and the owner's registration still works */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_up_busy"));
	EXPECT_TRUE(ue_wait_bit(self->page, 4, 0, true));
}

/* Fill a page with a pattern, make it read-only, try to register on it. */
static int do_reg_readonly(void *arg)
{
	const char *name = arg;
	char cmd[128], *page, *copy;
	int fd, ret, i, size = getpagesize();

	page = ue_map_page(PROT_READ | PROT_WRITE);
	copy = malloc(size);
	if (!page || !copy)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		page[i] = (char)(i * 7 + 3);
	memcpy(copy, page, size);
	if (mprotect(page, size, PROT_READ))
		return -ENOMEM;

	fd = ue_open_data();
	if (fd < 0)
		return -errno;
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ret = ue_reg(fd, cmd, page, 4, 0, 0, NULL);
	if (!ret)
		ue_unreg(fd, page, 0);
	if (!ret)
		ret = ue_reg(fd, cmd, page + 8, 8, 63, 0, NULL);
	close(fd);
	/* a changed page is reported as ENOTRECOVERABLE */
	if (memcmp(copy, page, size))
		ret = -ENOTRECOVERABLE;
	free(copy);
	return ret;
}

TEST_F(unpriv, readonly_enable_addr_efault)
{
	EXPECT_EQ(-EFAULT, run_unpriv(do_reg_readonly, "uet_up_ro"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_ro"));
}

/* The same with a read-only shared mapping of a file the user can read. */
struct ro_file {
	const char *path;
	const char *name;
};

static int do_reg_ro_file(void *arg)
{
	struct ro_file *rf = arg;
	char cmd[128], *map;
	uint64_t before;
	int fd, dfd, ret;

	fd = open(rf->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	map = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -ENOMEM;
	before = __atomic_load_n((uint64_t *)map, __ATOMIC_ACQUIRE);

	dfd = ue_open_data();
	if (dfd < 0)
		return -errno;
	snprintf(cmd, sizeof(cmd), "%s u32 a", rf->name);
	ret = ue_reg(dfd, cmd, map, 8, 5, 0, NULL);
	if (!ret)
		ue_unreg(dfd, map, 5);
	close(dfd);
	if (__atomic_load_n((uint64_t *)map, __ATOMIC_ACQUIRE) != before)
		ret = -ENOTRECOVERABLE;
	munmap(map, getpagesize());
	return ret;
}

TEST_F(unpriv, readonly_file_mapping_efault)
{
	struct ro_file rf = { "/tmp/uet_up_rofile", "uet_up_rofile" };
	uint64_t word = 0, back = 1;
	int fd;

	fd = open(rf.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, getpagesize()));
	ASSERT_EQ(sizeof(word), pwrite(fd, &word, sizeof(word), 0));

	EXPECT_EQ(-EFAULT, run_unpriv(do_reg_ro_file, &rf));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_rofile"));
	EXPECT_EQ(sizeof(back), pread(fd, &back, sizeof(back), 0));
	EXPECT_EQ(0, back);
	close(fd);
	unlink(rf.path);
}

/*
 * The kernel writes only the registering process's memory: a child maps
 * its own page at an address where the parent has a different page,
 * registers there and waits for the parent to enable the event.  The
 * parent's page must stay untouched, while the parent's own registration
 * (on another word) and the child's see the bit.
 */
struct own_mem {
	char *addr;		/* same virtual address in both processes */
	int to_child[2];	/* pipes for the handshake */
	int to_parent[2];
};

static int pipe_wait(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	/* a failure bound only: the other side answers right away */
	if (poll(&pfd, 1, UE_WAIT_SECS * 1000) != 1 || read(fd, &c, 1) != 1)
		return -ETIMEDOUT;
	return c == 'y' ? 0 : -EIO;
}

static int pipe_say(int fd, bool ok)
{
	char c = ok ? 'y' : 'n';

	return write(fd, &c, 1) == 1 ? 0 : -EIO;
}

static int do_own_mem(void *arg)
{
	struct own_mem *m = arg;
	char *mine;
	int fd, ret;

	/* a fresh page at the parent's address */
	mine = mmap(m->addr, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (mine != m->addr)
		return -ENOMEM;
	fd = ue_open_data();
	if (fd < 0)
		return -errno;
	ret = ue_reg(fd, "uet_up_own u32 a", mine + 64, 4, 3, 0, NULL);
	pipe_say(m->to_parent[1], !ret);
	if (ret)
		goto out;

	/* parent enables the event */
	ret = pipe_wait(m->to_child[0]);
	if (!ret && !ue_wait_bit(mine + 64, 4, 3, true))
		ret = -ETIME;
	pipe_say(m->to_parent[1], !ret);
	if (!ret)
		ret = pipe_wait(m->to_child[0]);
	ue_unreg(fd, mine + 64, 3);
out:
	close(fd);
	return ret;
}

TEST_F(unpriv, writes_only_own_memory)
{
	struct own_mem m;
	char *zero = calloc(1, getpagesize());
	int status, ret;
	pid_t pid;

	ASSERT_TRUE(ue_nonnull(zero));
	m.addr = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(m.addr));
	memset(m.addr, 0, getpagesize());
	ASSERT_EQ(0, pipe2(m.to_child, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(m.to_parent, O_CLOEXEC));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_privileges())
			_exit(CHILD_BROKEN);
		ret = do_own_mem(&m);
		_exit(ret <= 0 && ret > -CHILD_BROKEN ? -ret : CHILD_BROKEN);
	}

	ret = pipe_wait(m.to_parent[0]);
	EXPECT_EQ(0, ret);
	if (!ret) {
		/* the parent's own registration, same event, other page */
		ASSERT_EQ(0, ue_track_reg(&self->t, "uet_up_own u32 a",
					  self->page, 4, 3, NULL));
		ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_up_own"));
		EXPECT_TRUE(ue_wait_bit(self->page, 4, 3, true));
		pipe_say(m.to_child[1], true);
		EXPECT_EQ(0, pipe_wait(m.to_parent[0]));
		/* the child saw its bit: the parent's page is untouched */
		EXPECT_EQ(0, memcmp(zero, m.addr, getpagesize()));
		pipe_say(m.to_child[1], true);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, memcmp(zero, m.addr, getpagesize()));

	close(m.to_child[0]);
	close(m.to_child[1]);
	close(m.to_parent[0]);
	close(m.to_parent[1]);
	munmap(m.addr, getpagesize());
	free(zero);
}

/* A write index is only valid on the fd that returned it. */
static int do_index_per_fd(void *arg)
{
	__u32 a_idx, b_idx, c_idx, payload = 1;
	char *page = ue_map_page(PROT_READ | PROT_WRITE);
	int fd1, fd2, fd3, ret = -EINVAL;

	if (!page)
		return -ENOMEM;
	fd1 = ue_open_data();
	fd2 = ue_open_data();
	fd3 = ue_open_data();
	if (fd1 < 0 || fd2 < 0 || fd3 < 0)
		return -EACCES;

	if (ue_reg(fd1, "uet_up_idx_a u32 a", page, 4, 0, 0, &a_idx) ||
	    ue_reg(fd1, "uet_up_idx_b u32 a", page, 4, 1, 0, &b_idx) ||
	    ue_reg(fd2, "uet_up_idx_c u32 a", page, 4, 2, 0, &c_idx))
		goto out;

	/* fd3 has no index at all, fd2 only one */
	if (ue_emit(fd3, a_idx, &payload, sizeof(payload)) != -ENOENT ||
	    ue_emit(fd3, b_idx, &payload, sizeof(payload)) != -ENOENT ||
	    (b_idx != c_idx &&
	     ue_emit(fd2, b_idx, &payload, sizeof(payload)) != -ENOENT) ||
	    (a_idx != c_idx &&
	     ue_emit(fd2, a_idx, &payload, sizeof(payload)) != -ENOENT))
		goto out;
	/* the indexes are valid where they came from (nothing attached) */
	if (ue_emit(fd1, b_idx, &payload, sizeof(payload)) != -EBADF ||
	    ue_emit(fd2, c_idx, &payload, sizeof(payload)) != -EBADF)
		goto out;
	ret = 0;
out:
	ue_unreg(fd1, page, 0);
	ue_unreg(fd1, page, 1);
	ue_unreg(fd1, page, 2);
	close(fd1);
	close(fd2);
	close(fd3);
	return ret;
}

TEST_F(unpriv, write_index_per_fd)
{
	EXPECT_EQ(0, run_unpriv(do_index_per_fd, NULL));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_idx_a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_idx_c"));
}

TEST_HARNESS_MAIN
