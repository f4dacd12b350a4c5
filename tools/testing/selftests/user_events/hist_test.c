// SPDX-License-Identifier: GPL-2.0
/*
 * Hist triggers on user events: "hist:keys=field" counts exactly the
 * events written, per key, for integer keys (with a value sum) and for
 * __rel_loc string keys.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "../kselftest_harness.h"
#include "ue_util.h"

#define HT_NAME		"uet_hist_ev"
#define HT_CMD		HT_NAME " u32 key; u64 val; __rel_loc char[] who"
#define HT_KEYS		5
#define HT_TRIG_INT	"hist:keys=key:vals=hitcount,val:sort=key"
#define HT_TRIG_STR	"hist:keys=who:vals=hitcount:sort=who"

FIXTURE(hist) {
	struct ue_session *s;
	struct ue_event *e;
	char trig[PATH_MAX];
	const char *active[2];
};

FIXTURE_SETUP(hist)
{
	char path[PATH_MAX];

	self->s = NULL;
	self->active[0] = NULL;
	self->active[1] = NULL;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	ue_tpath(self->trig, sizeof(self->trig), "events/%s/%s/trigger",
		 UE_SYS, HT_NAME);
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, HT_CMD, 0, &self->e));
	ue_tpath(path, sizeof(path), "events/%s/%s/hist", UE_SYS, HT_NAME);
	if (access(path, F_OK))
		SKIP(return, "no hist file (CONFIG_HIST_TRIGGERS?)");
}

FIXTURE_TEARDOWN(hist)
{
	char cmd[256];
	int i;

	for (i = 0; i < 2; i++) {
		if (!self->active[i])
			continue;
		snprintf(cmd, sizeof(cmd), "!%s", self->active[i]);
		EXPECT_EQ(0, ue_write_str(self->trig, cmd, O_APPEND));
	}
	ue_session_close(self->s);
}

static char *read_hist(void)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "events/%s/%s/hist", UE_SYS, HT_NAME);
	return ue_read_all(path);
}

/* key k is written k + 1 times with val 10 * k + 1 */
TEST_F(hist, int_key)
{
	unsigned long long hits, sum, total = 0;
	unsigned int key, seen = 0;
	char *text, *line, *save;
	int k, n;

	ASSERT_EQ(0, ue_write_str(self->trig, HT_TRIG_INT, O_APPEND));
	self->active[0] = HT_TRIG_INT;
	/* a hist trigger alone enables the event */
	ASSERT_TRUE(ue_wait_lib(self->e, true));

	for (k = 0; k < HT_KEYS; k++)
		for (n = 0; n <= k; n++)
			ASSERT_EQ(0, ue_write(self->e, (unsigned int)k,
					      (uint64_t)(10 * k + 1), "x"));

	text = read_hist();
	ASSERT_TRUE(ue_nonnull(text));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "{ key: %u } hitcount: %llu val: %llu",
			   &key, &hits, &sum) == 3) {
			ASSERT_LT(key, HT_KEYS) TH_LOG("%s", line);
			EXPECT_EQ(key + 1, hits) TH_LOG("%s", line);
			EXPECT_EQ((key + 1) * (10 * key + 1), sum)
				TH_LOG("%s", line);
			seen |= 1U << key;
			if (key == 3)
				TH_LOG("hist: %s", line);
		} else if (sscanf(line, " Hits: %llu", &hits) == 1) {
			total = hits;
		}
	}
	free(text);
	EXPECT_EQ((1U << HT_KEYS) - 1, seen);
	EXPECT_EQ(HT_KEYS * (HT_KEYS + 1) / 2, total);

	EXPECT_EQ(0, ue_write_str(self->trig, "!" HT_TRIG_INT, O_APPEND));
	self->active[0] = NULL;
	EXPECT_TRUE(ue_wait_lib(self->e, false));
}

/* keys on a __rel_loc string: "w<k>" written k + 1 times */
TEST_F(hist, string_key)
{
	unsigned long long hits, total = 0;
	char *text, *line, *save, who[32], want[32];
	unsigned int seen = 0;
	int k, n, got;

	ASSERT_EQ(0, ue_write_str(self->trig, HT_TRIG_STR, O_APPEND));
	self->active[1] = HT_TRIG_STR;
	ASSERT_TRUE(ue_wait_lib(self->e, true));

	for (k = 0; k < HT_KEYS; k++) {
		snprintf(want, sizeof(want), "w%d", k);
		for (n = 0; n <= k; n++)
			ASSERT_EQ(0, ue_write(self->e, 0u, (uint64_t)0, want));
	}

	text = read_hist();
	ASSERT_TRUE(ue_nonnull(text));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "{ who: %31s } hitcount: %llu", who,
			   &hits) == 2) {
			got = sscanf(who, "w%d", &k);
			ASSERT_EQ(1, got) TH_LOG("%s", line);
			ASSERT_LT(k, HT_KEYS);
			EXPECT_EQ((unsigned long long)k + 1, hits)
				TH_LOG("%s", line);
			seen |= 1U << k;
		} else if (sscanf(line, " Hits: %llu", &hits) == 1) {
			total = hits;
		}
	}
	if (seen != (1U << HT_KEYS) - 1) {
		free(text);
		text = read_hist();
		TH_LOG("%s", text);
	}
	free(text);
	EXPECT_EQ((1U << HT_KEYS) - 1, seen);
	EXPECT_EQ(HT_KEYS * (HT_KEYS + 1) / 2, total);
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
