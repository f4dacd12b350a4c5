// SPDX-License-Identifier: GPL-2.0
/*
 * A synthetic latency event built from two user events: hist triggers on the request start (saving
 * the timestamp per id) and end (computing the latency and firing onmatch().trace()) produce
 * exactly one latency record per request in the trace.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define SY_START	"uet_syn_req_start"
#define SY_END		"uet_syn_req_end"
#define SY_LAT		"uet_syn_lat"
#define SY_SYNTH	SY_LAT " u64 id; u64 lat"
#define SY_TRIG_START	"hist:keys=id:ts0=common_timestamp.usecs"
#define SY_TRIG_END	"hist:keys=id:lat=common_timestamp.usecs-$ts0:" \
	"onmatch(user_events." SY_START ").trace(" SY_LAT ",id,$lat)"
#define SY_REQS		8

/* tracefs writes of the test, undone in reverse order by the teardown */
static const struct {
	const char *file, *on, *off;
} steps[] = {
	{ "synthetic_events", SY_SYNTH, "!" SY_SYNTH },
	{ "events/" UE_SYS "/" SY_START "/trigger", SY_TRIG_START, "!" SY_TRIG_START },
	/* it refers to the synthetic event: removed before it */
	{ "events/" UE_SYS "/" SY_END "/trigger", SY_TRIG_END, "!" SY_TRIG_END },
	{ "events/synthetic/" SY_LAT "/enable", "1", "0" },
};

FIXTURE(synth) {
	struct ue_session *s;
	struct ue_event *start, *end;
	int done;		/* steps done */
};

static int step(int i, bool on)
{
	char path[PATH_MAX];

	ue_tpath(path, sizeof(path), "%s", steps[i].file);
	return ue_write_str(path, on ? steps[i].on : steps[i].off, O_APPEND);
}

FIXTURE_SETUP(synth)
{
	char path[PATH_MAX];

	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	if (access(ue_tpath(path, sizeof(path), "synthetic_events"), F_OK))
		SKIP(return, "no synthetic_events (CONFIG_SYNTH_EVENTS?)");
	ASSERT_EQ(0, ue_session_open(NULL, &self->s));
	ASSERT_EQ(0, ue_register(self->s, SY_START " u64 id", 0, &self->start));
	ASSERT_EQ(0, ue_register(self->s, SY_END " u64 id", 0, &self->end));
	ue_tpath(path, sizeof(path), "events/%s/%s/hist", UE_SYS, SY_START);
	if (access(path, F_OK))
		SKIP(return, "no hist file (CONFIG_HIST_TRIGGERS?)");
	ASSERT_EQ(0, ue_tracing_on());
	ASSERT_EQ(0, ue_trace_clear());
}

FIXTURE_TEARDOWN(synth)
{
	while (self->done--)
		EXPECT_EQ(0, step(self->done, false));
	ue_session_close(self->s);
}

TEST_F(synth, latency)
{
	unsigned long long id, lat;
	char *text, *line, *save, *p;
	unsigned int seen = 0;
	int i, got, records = 0;

	for (; self->done < (int)ARRAY_SIZE(steps); self->done++)
		ASSERT_EQ(0, step(self->done, true)) TH_LOG("%s", steps[self->done].on);
	ASSERT_TRUE(ue_wait_lib(self->start, true));
	ASSERT_TRUE(ue_wait_lib(self->end, true));

	/* start all, then end all in reverse order: ids are matched */
	for (i = 0; i < SY_REQS; i++)
		ASSERT_EQ(0, ue_write(self->start, (uint64_t)(1000 + i)));
	for (i = SY_REQS - 1; i >= 0; i--)
		ASSERT_EQ(0, ue_write(self->end, (uint64_t)(1000 + i)));

	text = ue_trace_read();
	ASSERT_TRUE(ue_nonnull(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, SY_LAT ": ");
		if (!p)
			continue;
		records++;
		got = sscanf(p, SY_LAT ": id=%llu lat=%llu", &id, &lat);
		ASSERT_EQ(2, got) TH_LOG("%s", line);
		ASSERT_LE(1000, id);
		ASSERT_GT(1000 + SY_REQS, id);
		EXPECT_FALSE(seen & (1U << (id - 1000))) TH_LOG("twice: %s", line);
		seen |= 1U << (id - 1000);
		if (records == 1)
			TH_LOG("trace: %s", line);
	}
	free(text);
	EXPECT_EQ(SY_REQS, records);
	EXPECT_EQ((1U << SY_REQS) - 1, seen);
}

TEST_HARNESS_MAIN
