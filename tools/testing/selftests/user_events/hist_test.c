// SPDX-License-Identifier: GPL-2.0
/*
 * Hist triggers on user events: "hist:keys=field" counts exactly the events written, per key, for
 * integer keys and for __rel_loc string keys, with a value sum.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define HT_NAME		"uet_hist_ev"
#define HT_CMD		HT_NAME " u32 key; u64 val; __rel_loc char[] who"
#define HT_KEYS		5

static char trig_path[PATH_MAX], hist_path[PATH_MAX];

FIXTURE(hist) {
	struct ue_session *s;
	struct ue_event *e;
	const char *active;	/* the trigger to remove */
};

FIXTURE_SETUP(hist)
{
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ue_tpath(trig_path, PATH_MAX, "events/%s/%s/trigger", UE_SYS, HT_NAME);
	ue_tpath(hist_path, PATH_MAX, "events/%s/%s/hist", UE_SYS, HT_NAME);
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, HT_CMD, 0, &self->e));
	if (access(hist_path, F_OK))
		SKIP(return, "no hist file (CONFIG_HIST_TRIGGERS?)");
}

/* Remove the hist trigger *@active */
static int trigger_off(const char **active)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "!%s", *active);
	*active = NULL;
	return ue_write_str(trig_path, cmd, O_APPEND);
}

FIXTURE_TEARDOWN(hist)
{
	if (self->active)
		EXPECT_EQ(0, trigger_off(&self->active));
	ue_session_close(self->s);
}

/*
 * Set hist trigger @trig, write key k (key k, val 10 * k + 1, who "w<k>") k + 1 times and check
 * the count and sum of val per key.
 */
static void check_hist(struct __test_metadata *_metadata, struct ue_event *e, const char **active,
		       const char *trig)
{
	unsigned long long hits, sum, total = 0;
	char *text, *line, *save, who[32];
	unsigned int key, seen = 0;
	int k, n;

	ASSERT_EQ(0, ue_write_str(trig_path, trig, O_APPEND));
	*active = trig;
	/* a hist trigger alone enables the event */
	ASSERT_TRUE(ue_wait_lib(e, true));
	for (k = 0; k < HT_KEYS; k++) {
		snprintf(who, sizeof(who), "w%d", k);
		for (n = 0; n <= k; n++)
			ASSERT_EQ(0, ue_write(e, (unsigned int)k, (uint64_t)(10 * k + 1), who));
	}
	text = ue_read_all(hist_path);
	ASSERT_TRUE(ue_nonnull(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "{ key: %u } hitcount: %llu val: %llu", &key, &hits, &sum) == 3 ||
		    sscanf(line, "{ who: w%u } hitcount: %llu val: %llu", &key, &hits, &sum) == 3) {
			ASSERT_LT(key, HT_KEYS) TH_LOG("%s", line);
			EXPECT_EQ(key + 1, hits) TH_LOG("%s", line);
			EXPECT_EQ((key + 1) * (10 * key + 1), sum) TH_LOG("%s", line);
			seen |= 1U << key;
			if (key == 3)
				TH_LOG("hist: %s", line);
		} else if (sscanf(line, " Hits: %llu", &hits) == 1) {
			total = hits;
		}
	}
	free(text);
	/* every key seen; a malformed key line leaves its hits unmatched */
	EXPECT_EQ((1U << HT_KEYS) - 1, seen);
	EXPECT_EQ(HT_KEYS * (HT_KEYS + 1) / 2, total);
	EXPECT_EQ(0, trigger_off(active));
	EXPECT_TRUE(ue_wait_lib(e, false));
}

TEST_F(hist, int_key)
{
	check_hist(_metadata, self->e, &self->active, "hist:keys=key:vals=hitcount,val:sort=key");
}

/* keys on a __rel_loc string */
TEST_F(hist, string_key)
{
	check_hist(_metadata, self->e, &self->active, "hist:keys=who:vals=hitcount,val:sort=who");
}

TEST_HARNESS_MAIN
