// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: what an unprivileged user may and may not do.  An administrator may hand
 * user_events_data to a group (chgrp, chmod); the root parent does that for each test, a
 * child with an unprivileged uid and gid (no capabilities) plays the member.
 */
#include "ue_util.h"
#include <grp.h>
#include <sys/socket.h>
#include "../kselftest_harness.h"

#define UNPRIV_ID	64711	/* an otherwise unused uid and gid */
#define CHILD_BROKEN	255	/* the exit of a child whose privilege drop failed */

/* The tracefs root (search permission) and the files the group gets (0: only restored) */
static const struct {
	const char *file;
	mode_t mode;
} perm_files[] = {
	{ "", 0 }, { "user_events_data", 0660 },
	{ "user_events_status", 0440 }, { "dynamic_events", 0 },
};

#define F_DYN	3

struct saved_perm {
	char path[PATH_MAX];
	struct stat st;
};

FIXTURE(unpriv) {
	UE_FIXTURE_MEMBERS;
	struct saved_perm perm[ARRAY_SIZE(perm_files)];
};

static int perm_set(struct saved_perm *p, mode_t mode)
{
	return chown(p->path, -1, UNPRIV_ID) || chmod(p->path, mode) ? -errno : 0;
}

FIXTURE_SETUP(unpriv)
{
	struct saved_perm *p = self->perm;
	int i;

	if (ue_skip_reason(UE_ROOT))
		SKIP(return, "%s", ue_skip_reason(UE_ROOT));
	for (i = 0; i < ARRAY_SIZE(perm_files); i++) {
		ue_tpath(p[i].path, PATH_MAX, "%s", perm_files[i].file);
		ASSERT_EQ(0, stat(p[i].path, &p[i].st)) TH_LOG("%s", p[i].path);
		if (perm_files[i].mode)
			ASSERT_EQ(0, perm_set(&p[i], perm_files[i].mode));
	}
	ASSERT_EQ(0, chmod(p[0].path, (p[0].st.st_mode & 07777) | 0011));
	ASSERT_EQ(0, ue_fixture_init(&self->t, &self->page, &self->perf_fd, 0));
}

FIXTURE_TEARDOWN(unpriv)
{
	struct saved_perm *p;
	int i;

	ue_fixture_fini(&self->t, self->page, self->perf_fd, 0);
	for (i = ARRAY_SIZE(perm_files) - 1; i >= 0; i--) {
		p = &self->perm[i];
		if (chown(p->path, p->st.st_uid, p->st.st_gid) ||
		    chmod(p->path, p->st.st_mode & 07777))
			fprintf(stderr, "# cannot restore %s\n", p->path);
	}
}

/* A child as UNPRIV_ID, no capabilities, exiting with -@fn(@arg) */
static pid_t fork_unpriv(int (*fn)(void *), void *arg)
{
	gid_t gid = UNPRIV_ID;
	pid_t pid = fork();
	int ret;

	if (pid)
		return pid;
	if (setgroups(1, &gid) || setgid(UNPRIV_ID) || setuid(UNPRIV_ID) ||
	    geteuid() != UNPRIV_ID || setuid(0) == 0)
		_exit(CHILD_BROKEN);
	ret = fn(arg);
	_exit(ret <= 0 && ret > -CHILD_BROKEN ? -ret : CHILD_BROKEN);
}

/* What @fn returned (0 or -errno), -ECHILD when the child could not run it */
static int wait_unpriv(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == CHILD_BROKEN)
		return -ECHILD;
	return -WEXITSTATUS(status);
}

static int run_unpriv(int (*fn)(void *), void *arg)
{
	return wait_unpriv(fork_unpriv(fn, arg));
}

struct reg_req {
	const char *cmd;
	__u16 flags;
};

static int do_reg(void *arg)
{
	struct reg_req *req = arg;
	static __u32 word;

	return ue_reg_once(req->cmd, &word, req->flags);
}

/* the group members can use user_events; the event goes with the registration */
TEST_F(unpriv, register_plain)
{
	struct reg_req req = { "uet_up_plain u32 a", 0 };

	EXPECT_EQ(0, run_unpriv(do_reg, &req));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_plain"));
}

/* PERSIST needs CAP_PERFMON, with or without MULTI_FORMAT */
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

/* unused, persistent: only a CAP_PERFMON holder may delete it */
TEST_F(unpriv, delete_persistent_eperm)
{
	ue_track_del(&self->t, "uet_up_pdel");
	ASSERT_EQ(0, ue_reg_once("uet_up_pdel u32 a", self->page, USER_EVENT_REG_PERSIST));
	EXPECT_EQ(-EPERM, run_unpriv(ue_cb_del, "uet_up_pdel"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_up_pdel"));
	EXPECT_EQ(0, ue_del_name("uet_up_pdel"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_pdel"));
}

TEST_F(unpriv, dynamic_events)
{
	char line[256];

	ue_track_del(&self->t, "uet_up_dyn");
	ue_track_del(&self->t, "uet_up_dyn_root");
	/* dynamic_events is root's: it does not open */
	EXPECT_EQ(-EACCES, run_unpriv(ue_cb_dyn, "u:uet_up_dyn u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_dyn"));
	/* writable by the group: "u:" needs CAP_PERFMON, to create or delete */
	ASSERT_EQ(0, perm_set(&self->perm[F_DYN], 0660));
	EXPECT_EQ(-EPERM, run_unpriv(ue_cb_dyn, "u:uet_up_dyn u32 a"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_dyn"));
	EXPECT_FALSE(ue_dyn_line("uet_up_dyn", line, sizeof(line)));
	ASSERT_EQ(0, ue_dyn_cmd("u:uet_up_dyn_root u32 a"));
	EXPECT_EQ(-EPERM, run_unpriv(ue_cb_dyn, "-:uet_up_dyn_root"));
	EXPECT_EQ(-EPERM, run_unpriv(ue_cb_dyn, "!u:uet_up_dyn_root"));
	EXPECT_EQ(-EPERM, run_unpriv(ue_cb_del, "uet_up_dyn_root"));
	EXPECT_TRUE(ue_dyn_line("uet_up_dyn_root", line, sizeof(line)));
	EXPECT_EQ(0, ue_dyn_cmd("-:uet_up_dyn_root"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_dyn_root"));
}

/* Root's registered event: the child may not delete it, the owner's registration works */
TEST_F(unpriv, delete_in_use_ebusy)
{
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_up_busy u32 a", self->page, 4, 0, NULL));
	EXPECT_EQ(-EBUSY, run_unpriv(ue_cb_del, "uet_up_busy"));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_up_busy"));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS, "uet_up_busy"));
	EXPECT_TRUE(ue_wait_bit(self->page, 4, 0, true));
}

/* Register at the read-only @map (and unregister); a change of its first @len bytes is fatal */
static int reg_readonly(const char *name, char *map, int size, int bit, const void *copy, int len)
{
	int fd = ue_open_data(), ret;
	char cmd[128];

	if (fd < 0)
		return -errno;
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ret = ue_reg(fd, cmd, map, size, bit, 0, NULL);
	if (!ret)
		ue_unreg(fd, map, bit);
	close(fd);
	return memcmp(copy, map, len) ? -ENOTRECOVERABLE : ret;
}

/* a patterned page made read-only */
static int do_reg_readonly(void *name)
{
	char *page = ue_map_page(PROT_READ | PROT_WRITE);
	char *copy = malloc(getpagesize());
	int i, size = getpagesize();

	if (!page || !copy)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		page[i] = (char)(i * 7 + 3);
	memcpy(copy, page, size);
	if (mprotect(page, size, PROT_READ))
		return -ENOMEM;
	return reg_readonly(name, page, 4, 0, copy, size) ?:
	       reg_readonly(name, page + 8, 8, 63, copy + 8, size - 8);
}

#define RO_FILE	"/tmp/uet_up_rofile"

/* a read-only shared mapping of a file the user can read */
static int do_reg_ro_file(void *name)
{
	int fd = open(RO_FILE, O_RDONLY | O_CLOEXEC), ret;
	char *map, copy[8];

	if (fd < 0)
		return -errno;
	map = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -ENOMEM;
	memcpy(copy, map, sizeof(copy));
	ret = reg_readonly(name, map, 8, 5, copy, sizeof(copy));
	munmap(map, getpagesize());
	return ret;
}

TEST_F(unpriv, readonly_efault)
{
	__u64 word = 0, back = 1;
	int fd;

	EXPECT_EQ(-EFAULT, run_unpriv(do_reg_readonly, "uet_up_ro"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_ro"));
	fd = open(RO_FILE, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, getpagesize()));
	ASSERT_EQ(sizeof(word), pwrite(fd, &word, sizeof(word), 0));
	EXPECT_EQ(-EFAULT, run_unpriv(do_reg_ro_file, "uet_up_rofile"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_up_rofile"));
	EXPECT_EQ(sizeof(back), pread(fd, &back, sizeof(back), 0));
	EXPECT_EQ(0, back);
	close(fd);
	unlink(RO_FILE);
}

/*
 * The kernel writes the registering process's memory only: a child registers on its own page
 * at the address of one of the parent's, the parent enables the event: both registrations
 * see the bit, the parent's page stays untouched.
 */
struct own_mem {
	char *addr;	/* same virtual address in both processes */
	int sv[2];	/* the parent's end, the child's end */
};

/* a failure bound only: the other side answers right away */
static int sock_wait(int fd)
{
	char c;

	if (ue_recv(fd, &c, 1, UE_WAIT_SECS))
		return -ETIMEDOUT;
	return c == 'y' ? 0 : -EIO;
}

static int sock_say(int fd, bool ok)
{
	return write(fd, ok ? "y" : "n", 1) == 1 ? 0 : -EIO;
}

static int do_own_mem(void *arg)
{
	struct own_mem *m = arg;
	int fd, ret, s = m->sv[1];
	char *mine;

	mine = mmap(m->addr, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (mine != m->addr)
		return -ENOMEM;
	fd = ue_open_data();
	if (fd < 0)
		return -errno;
	ret = ue_reg(fd, "uet_up_own u32 a", mine + 64, 4, 3, 0, NULL);
	sock_say(s, !ret);
	if (!ret) {
		ret = sock_wait(s);
		if (!ret && !ue_wait_bit(mine + 64, 4, 3, true))
			ret = -ETIME;
		sock_say(s, !ret);
		if (!ret)
			ret = sock_wait(s);
		ue_unreg(fd, mine + 64, 3);
	}
	close(fd);
	return ret;
}

TEST_F(unpriv, writes_only_own_memory)
{
	char *zero = calloc(1, getpagesize());
	struct own_mem m;
	int ret;
	pid_t pid;

	ASSERT_TRUE(ue_nonnull(zero));
	m.addr = ue_map_page(PROT_READ | PROT_WRITE);
	ASSERT_TRUE(ue_nonnull(m.addr));
	memset(m.addr, 0, getpagesize());
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, m.sv));
	pid = fork_unpriv(do_own_mem, &m);
	ASSERT_LE(0, pid);

	ret = sock_wait(m.sv[0]);
	EXPECT_EQ(0, ret);
	if (!ret) {
		ASSERT_EQ(0, ue_reg_enabled(&self->t, self->page, "uet_up_own u32 a", "uet_up_own",
					    3, NULL));
		sock_say(m.sv[0], true);
		EXPECT_EQ(0, sock_wait(m.sv[0]));
		EXPECT_EQ(0, memcmp(zero, m.addr, getpagesize()));
		sock_say(m.sv[0], true);
	}
	EXPECT_EQ(0, wait_unpriv(pid));
	EXPECT_EQ(0, memcmp(zero, m.addr, getpagesize()));
	close(m.sv[0]);
	close(m.sv[1]);
	munmap(m.addr, getpagesize());
	free(zero);
}

/* A write index is only valid on the fd that returned it */
static int do_index_per_fd(void *arg)
{
	__u32 a_idx, b_idx, c_idx, payload = 1, word = 0;
	int fd1 = ue_open_data(), fd2 = ue_open_data(), fd3 = ue_open_data();
	int ret = -EINVAL;

	if (fd1 < 0 || fd2 < 0 || fd3 < 0)
		return -EACCES;
	if (ue_reg(fd1, "uet_up_idx_a u32 a", &word, 4, 0, 0, &a_idx) ||
	    ue_reg(fd1, "uet_up_idx_b u32 a", &word, 4, 1, 0, &b_idx) ||
	    ue_reg(fd2, "uet_up_idx_c u32 a", &word, 4, 2, 0, &c_idx))
		goto out;
	if (ue_emit(fd3, a_idx, &payload, sizeof(payload)) != -ENOENT ||
	    ue_emit(fd3, b_idx, &payload, sizeof(payload)) != -ENOENT ||
	    (b_idx != c_idx && ue_emit(fd2, b_idx, &payload, sizeof(payload)) != -ENOENT) ||
	    (a_idx != c_idx && ue_emit(fd2, a_idx, &payload, sizeof(payload)) != -ENOENT))
		goto out;
	/* valid where they came from (nothing attached) */
	if (ue_emit(fd1, b_idx, &payload, sizeof(payload)) == -EBADF &&
	    ue_emit(fd2, c_idx, &payload, sizeof(payload)) == -EBADF)
		ret = 0;
out:
	ue_unreg(fd1, &word, 0);
	ue_unreg(fd1, &word, 1);
	ue_unreg(fd1, &word, 2);
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
