// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: USER_EVENT_REG_MULTI_FORMAT.  Each (name, format) registered with the flag is one
 * event NAME.<hex id> of user_events_multi, shared by all who register it; other formats get
 * other versions, independent of the single-format event of the name.
 *
 * PARTLY EXPECTED TO FAIL ON UPSTREAM (6.12): it does not list versions in dynamic_events under
 * their tracepoint names, accepts "u:NAME.<hex>", and removes unused events and deletes only after
 * a delay (EBUSY).
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define MULTI USER_EVENT_REG_MULTI_FORMAT
#define PERSIST USER_EVENT_REG_PERSIST

FIXTURE(multi) { UE_FIXTURE_MEMBERS; };

FIXTURE_SETUP(multi)
{
	UE_SETUP(0);
}

FIXTURE_TEARDOWN(multi)
{
	UE_TEARDOWN();
}

/* Tracked multi-format registration at bit @bit of the fixture page */
#define REG_MULTI(fd, cmd, bit, idx) \
	ue_track_reg_fd(&self->t, fd, cmd, self->page, 4, bit, MULTI, idx)

/* The status file names the tracepoint, with its users */
TEST_F(multi, system_and_name)
{
	char tp[UE_NAME_MAX] = "", line[512], want[512];

	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_sys u32 a", 0, NULL));
	ASSERT_EQ(1, ue_multi_versions("uet_mu_sys", "a", tp, sizeof(tp)));
	ASSERT_TRUE(ue_is_version_of(tp, "uet_mu_sys")) TH_LOG("'%s'", tp);
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, tp));
	EXPECT_GT(ue_event_id(UE_SYS_MULTI, tp), 0);
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mu_sys"));
	EXPECT_FALSE(ue_event_exists(UE_SYS, tp));
	EXPECT_GE(ue_field_offset(UE_SYS_MULTI, tp, "a"), 0);
	ASSERT_TRUE(ue_status_line(tp, line, sizeof(line)));
	EXPECT_STREQ(tp, line);
	EXPECT_FALSE(ue_status_line("uet_mu_sys", line, sizeof(line)));
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS_MULTI, tp));
	ASSERT_TRUE(ue_status_line(tp, line, sizeof(line)));
	snprintf(want, sizeof(want), "%s # Used by ftrace", tp);
	EXPECT_STREQ(want, line);
	/* dynamic_events lists it by its registered name, no version id, as upstream */
	EXPECT_FALSE(ue_dyn_line(tp, line, sizeof(line)));
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_sys u32 a"));
}

/*
 * The same (name, format), also spaced otherwise, from another fd or another process (registering
 * first): the same tracepoint, which lives on while any of them uses it.
 */
TEST_F(multi, same_format_shared)
{
	char tp[UE_NAME_MAX] = "", tp2[UE_NAME_MAX] = "", c = 0;
	int sock, status, ret, fd2, id;
	__u32 word = 0;
	/* either side sees EOF if the other dies */
	pid_t pid = ue_sock_fork(&sock);

	ASSERT_LE(0, pid);
	if (!pid) {
		ret = ue_reg(ue_open_data(), "uet_mu_shared u32 a; u64 b", &word, 4, 0, MULTI,
			     NULL);
		c = ret ? 'E' : 'R';
		if (write(sock, &c, 1) != 1 || read(sock, &c, 1) != 1)
			_exit(2);
		_exit(ret ? 1 : 0);
	}
	ASSERT_EQ(1, read(sock, &c, 1));
	ASSERT_EQ('R', c);
	ASSERT_EQ(1, ue_multi_versions("uet_mu_shared", "a", tp, sizeof(tp)));
	id = ue_event_id(UE_SYS_MULTI, tp);
	ASSERT_GT(id, 0);
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_shared u32 a; u64 b", 0, NULL));
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_shared u32 a;u64 b;", 1, NULL));
	fd2 = ue_open_data();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, REG_MULTI(fd2, "uet_mu_shared  u32 a; u64 b", 2, NULL));
	EXPECT_EQ(1, ue_multi_versions("uet_mu_shared", "a", tp2, sizeof(tp2)));
	EXPECT_STREQ(tp, tp2);
	EXPECT_EQ(id, ue_event_id(UE_SYS_MULTI, tp));
	/* The child goes away; our registrations keep the tracepoint */
	ASSERT_EQ(1, write(sock, &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, tp));
	close(sock);
	ue_track_cleanup(&self->t);
	close(fd2);
	EXPECT_FALSE(ue_event_exists(UE_SYS_MULTI, tp));
	EXPECT_EQ(0, ue_multi_versions("uet_mu_shared", NULL, NULL, 0));
}

/* Other formats, other versions */
TEST_F(multi, other_format_other_version)
{
	char a[UE_NAME_MAX] = "", b[UE_NAME_MAX] = "", c[UE_NAME_MAX] = "";
	int fd = ue_open_data();
	__u32 ia, ib, ic;

	ASSERT_LE(0, fd);
	/* the oldest version, whose only user leaves below */
	ASSERT_EQ(0, ue_reg(fd, "uet_mu_vers u16 fz", self->page, 4, 3, MULTI, NULL));
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_vers u32 fa", 0, &ia));
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_vers u64 fb", 1, &ib));
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_vers", 2, &ic));
	EXPECT_EQ(4, ue_multi_versions("uet_mu_vers", NULL, NULL, 0));
	ASSERT_EQ(4, ue_multi_versions("uet_mu_vers", "fa", a, sizeof(a)));
	ASSERT_EQ(4, ue_multi_versions("uet_mu_vers", "fb", b, sizeof(b)));
	ASSERT_NE(0, strlen(a));
	ASSERT_NE(0, strlen(b));
	EXPECT_STRNE(a, b);
	/* Distinct tracepoint ids and write indexes */
	EXPECT_NE(ue_event_id(UE_SYS_MULTI, a), ue_event_id(UE_SYS_MULTI, b));
	EXPECT_NE(ia, ib);
	EXPECT_NE(ia, ic);
	EXPECT_NE(ib, ic);
	/* Listed separately in dynamic_events, each by name and fields */
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_vers u32 fa"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_vers u64 fb"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_vers"));
	EXPECT_FALSE(ue_dyn_line(a, c, sizeof(c)));
	/* A version whose only user leaves goes, alone */
	ASSERT_EQ(4, ue_multi_versions("uet_mu_vers", "fz", c, sizeof(c)));
	ASSERT_EQ(0, ue_unreg(fd, self->page, 3));
	close(fd);
	EXPECT_FALSE(ue_event_exists(UE_SYS_MULTI, c));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, a));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, b));
	EXPECT_EQ(3, ue_multi_versions("uet_mu_vers", NULL, NULL, 0));
	ue_track_cleanup(&self->t);
	EXPECT_EQ(0, ue_multi_versions("uet_mu_vers", NULL, NULL, 0));
}

/* Enabling (sys, tp) sets exactly the bits @on of @w, disabling clears them */
static void expect_bits(struct __test_metadata *_metadata, struct ue_track *t, __u32 *w,
			const char *sys, const char *tp, unsigned int on)
{
	int bit;

	ASSERT_EQ(0, ue_track_enable(t, sys, tp));
	for (bit = 0; bit < 4; bit++)
		if (on & (1u << bit))
			EXPECT_TRUE(ue_wait_bit(w, 4, bit, true)) TH_LOG("%s bit %d", tp, bit);
	EXPECT_EQ(on, __atomic_load_n(w, __ATOMIC_ACQUIRE)) TH_LOG("%s", tp);
	ASSERT_EQ(0, ue_set_enable(sys, tp, false));
	for (bit = 0; bit < 4; bit++)
		EXPECT_TRUE(ue_wait_bit(w, 4, bit, false)) TH_LOG("%s bit %d", tp, bit);
}

/*
 * Versions beside the single-format event of the name, registered before and after it: other
 * fields are no EADDRINUSE, the very same fields another event; each flips its own users' bits.
 */
TEST_F(multi, enable_one_version)
{
	char a[UE_NAME_MAX] = "", b[UE_NAME_MAX] = "";
	__u32 *w = (__u32 *)self->page, single, multi;
	int fd2 = ue_open_data();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_en u32 fa", 0, &multi));
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_mu_en u32 fa", self->page, 4, 3, &single));
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_en u64 fb", 1, NULL));
	ASSERT_EQ(0, REG_MULTI(fd2, "uet_mu_en u32 fa", 2, NULL));
	EXPECT_TRUE(ue_event_exists(UE_SYS, "uet_mu_en"));
	ASSERT_EQ(2, ue_multi_versions("uet_mu_en", "fa", a, sizeof(a)));
	ASSERT_EQ(2, ue_multi_versions("uet_mu_en", "fb", b, sizeof(b)));
	EXPECT_NE(single, multi);
	EXPECT_NE(ue_event_id(UE_SYS, "uet_mu_en"), ue_event_id(UE_SYS_MULTI, a));
	/* The single-format rules still apply to the single-format event */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->t.fd, "uet_mu_en u64 fb", self->page, 4, 4, 0, NULL));
	/* The single-format event first: its very fields still make a version of their own */
	ASSERT_EQ(0, ue_track_reg(&self->t, "uet_mu_en2 u64 x", self->page + 8, 4, 0, &single));
	ASSERT_EQ(0, ue_track_reg_fd(&self->t, self->t.fd, "uet_mu_en2 u64 x", self->page + 8, 4,
				     1, MULTI, &multi));
	EXPECT_EQ(1, ue_multi_versions("uet_mu_en2", "x", NULL, 0));
	EXPECT_NE(single, multi);
	expect_bits(_metadata, &self->t, w, UE_SYS_MULTI, a, 1u << 0 | 1u << 2);
	expect_bits(_metadata, &self->t, w, UE_SYS_MULTI, b, 1u << 1);
	expect_bits(_metadata, &self->t, w, UE_SYS, "uet_mu_en", 1u << 3);
	ue_track_cleanup(&self->t);
	close(fd2);
}

/* Register each of @cmds with PERSIST | MULTI, then drop all users. */
static int make_persistent(void *page, const char * const *cmds, int n)
{
	int fd, i, ret = 0;

	fd = ue_open_data();
	if (fd < 0)
		return -errno;
	for (i = 0; i < n && !ret; i++) {
		ret = ue_reg(fd, cmds[i], page, 4, i, PERSIST | MULTI, NULL);
		if (!ret)
			ret = ue_unreg(fd, page, i);
	}
	close(fd);
	return ret;
}

TEST_F(multi, iocsdel_deletes_every_version)
{
	static const char * const cmds[] = {
		"uet_mu_del u32 fa", "uet_mu_del u64 fb", "uet_mu_del",
	};
	char tp[UE_NAME_MAX] = "";
	int fd;

	if (geteuid() != 0)
		SKIP(return, "USER_EVENT_REG_PERSIST needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_mu_del");
	ASSERT_EQ(0, make_persistent(self->page, cmds, ARRAY_SIZE(cmds)));
	/* Nobody uses them, they persist */
	ASSERT_EQ(3, ue_multi_versions("uet_mu_del", "fa", tp, sizeof(tp)));
	/* One version in use: EBUSY, and that version stays */
	fd = ue_open_data();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, "uet_mu_del u32 fa", self->page, 4, 0, MULTI, NULL));
	ASSERT_EQ(3, ue_multi_versions("uet_mu_del", "fa", tp, sizeof(tp)));
	EXPECT_EQ(-EBUSY, ue_del_name("uet_mu_del"));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, tp));
	ASSERT_EQ(0, ue_unreg(fd, self->page, 0));
	close(fd);
	EXPECT_EQ(0, ue_del_name("uet_mu_del"));
	EXPECT_EQ(0, ue_multi_versions("uet_mu_del", NULL, NULL, 0));
	EXPECT_EQ(-ENOENT, ue_del_name("uet_mu_del"));
}

TEST_F(multi, dynamic_events_delete_one_version)
{
	static const char * const cmds[] = {
		"uet_mu_dyn u32 fa", "uet_mu_dyn u64 fb", "uet_mu_dyn char[8] fc",
	};
	char a[UE_NAME_MAX] = "", b[UE_NAME_MAX] = "", c[UE_NAME_MAX] = "";
	char cmd[UE_NAME_MAX + 64], line[512];

	if (geteuid() != 0)
		SKIP(return, "USER_EVENT_REG_PERSIST needs CAP_PERFMON");
	ue_track_del(&self->t, "uet_mu_dyn");
	ASSERT_EQ(0, make_persistent(self->page, cmds, ARRAY_SIZE(cmds)));
	ASSERT_EQ(3, ue_multi_versions("uet_mu_dyn", "fa", a, sizeof(a)));
	ASSERT_EQ(3, ue_multi_versions("uet_mu_dyn", "fb", b, sizeof(b)));
	ASSERT_EQ(3, ue_multi_versions("uet_mu_dyn", "fc", c, sizeof(c)));
	/* Listing: one line per version, by name and fields */
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_dyn u32 fa"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_dyn u64 fb"));
	EXPECT_EQ(1, ue_dyn_count("u:uet_mu_dyn char[8] fc"));
	/* The tracepoint name matches nothing, as upstream */
	snprintf(cmd, sizeof(cmd), "-:%s", a);
	EXPECT_EQ(-ENOENT, ue_dyn_cmd(cmd));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, a));
	/* One version: its name and fields */
	EXPECT_EQ(0, ue_dyn_cmd("!u:uet_mu_dyn u32 fa"));
	EXPECT_FALSE(ue_event_exists(UE_SYS_MULTI, a));
	EXPECT_EQ(0, ue_dyn_count("u:uet_mu_dyn u32 fa"));
	EXPECT_FALSE(ue_dyn_line(a, line, sizeof(line)));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, b));
	EXPECT_TRUE(ue_event_exists(UE_SYS_MULTI, c));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("!u:uet_mu_dyn u32 fa"));
	/* A version in use is busy */
	ASSERT_EQ(0, ue_track_enable(&self->t, UE_SYS_MULTI, b));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:uet_mu_dyn u64 fb"));
	ASSERT_EQ(0, ue_set_enable(UE_SYS_MULTI, b, false));
	/* All the remaining versions */
	EXPECT_EQ(0, ue_dyn_cmd("-:uet_mu_dyn"));
	EXPECT_EQ(0, ue_multi_versions("uet_mu_dyn", NULL, NULL, 0));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:uet_mu_dyn"));
}

/*
 * dynamic_events cannot create a version: "u:NAME.<id>" is just another
 * name, of a new single-format event, and the version is left alone.
 */
TEST_F(multi, dyn_create_version_refused)
{
	char tp[UE_NAME_MAX] = "", cmd[UE_NAME_MAX + 64];
	int id;

	if (geteuid() != 0)
		SKIP(return, "dynamic_events needs CAP_PERFMON");
	ASSERT_EQ(0, REG_MULTI(self->t.fd, "uet_mu_dyncr u32 a", 0, NULL));
	ASSERT_EQ(1, ue_multi_versions("uet_mu_dyncr", "a", tp, sizeof(tp)));
	id = ue_event_id(UE_SYS_MULTI, tp);
	snprintf(cmd, sizeof(cmd), "u:%s u32 a", tp);
	ue_track_del(&self->t, tp);
	EXPECT_EQ(0, ue_dyn_cmd(cmd));
	EXPECT_TRUE(ue_event_exists(UE_SYS, tp));
	EXPECT_EQ(1, ue_multi_versions("uet_mu_dyncr", NULL, NULL, 0));
	EXPECT_EQ(id, ue_event_id(UE_SYS_MULTI, tp));
	EXPECT_FALSE(ue_event_exists(UE_SYS, "uet_mu_dyncr"));
	EXPECT_EQ(0, ue_del_name(tp));
	EXPECT_FALSE(ue_event_exists(UE_SYS, tp));
	EXPECT_EQ(id, ue_event_id(UE_SYS_MULTI, tp));
}

TEST_HARNESS_MAIN
