// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd on user events: "trace-cmd record -e user_events:NAME writer"
 * and "trace-cmd report" decode every field of every event, __data_loc
 * and __rel_loc strings included.
 *
 * The event is created persistent through dynamic_events first, so
 * trace-cmd can enable it before the writer (this binary in writer mode)
 * registers the same format.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "../kselftest_harness.h"
#include "ue_test_util.h"
#include "consumer_util.h"

#define TC_NAME		"uet_tc_ev"
#define TC_DATA		"/tmp/uet_tc.dat"
#define TC_OUT		"/tmp/uet_tc.out"
#define TC_COUNT	20

FIXTURE(tracecmd) {
	bool created;
};

FIXTURE_SETUP(tracecmd)
{
	self->created = false;
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	if (!cu_have("trace-cmd"))
		SKIP(return, "trace-cmd not installed");
	ASSERT_EQ(0, cu_dyn_add(TC_NAME, CU_FIELDS));
	self->created = true;
}

FIXTURE_TEARDOWN(tracecmd)
{
	char path[PATH_MAX];

	/* trace-cmd leaves the event enabled */
	ue_set_enable(UE_SYS, TC_NAME, false);
	ue_tpath(path, sizeof(path), "set_event");
	ue_write_str(path, "", O_TRUNC);
	if (self->created)
		EXPECT_EQ(0, cu_dyn_del(TC_NAME));
	unlink(TC_DATA);
	unlink(TC_OUT);
}

TEST_F_TIMEOUT(tracecmd, record_report, 240)
{
	char count[16], expect[128], needle[160];
	int i, ret;

	snprintf(count, sizeof(count), "%d", TC_COUNT);
	ret = cu_run(TC_OUT, "trace-cmd", "record", "-q",
		     "-e", "user_events:" TC_NAME, "-o", TC_DATA,
		     cu_self(), CU_WRITER_ARG, TC_NAME, count, NULL);
	if (ret)
		cu_dump(TC_OUT, 40);
	ASSERT_EQ(0, ret) TH_LOG("trace-cmd record failed");

	ret = cu_run(TC_OUT, "trace-cmd", "report", "-i", TC_DATA, NULL);
	if (ret)
		cu_dump(TC_OUT, 40);
	ASSERT_EQ(0, ret) TH_LOG("trace-cmd report failed");

	EXPECT_EQ(TC_COUNT, cu_count_in(TC_OUT, " " TC_NAME ":"));
	for (i = 0; i < TC_COUNT; i++) {
		cu_expect_text(expect, sizeof(expect), i);
		snprintf(needle, sizeof(needle), "%s\n", expect);
		EXPECT_EQ(1, cu_count_in(TC_OUT, needle))
			TH_LOG("missing: %s", expect);
	}
	cu_expect_text(expect, sizeof(expect), 3);
	cu_show("trace-cmd report", TC_OUT, expect);
	if (_metadata->exit_code != KSFT_PASS)
		cu_dump(TC_OUT, 10);
}

int main(int argc, char **argv)
{
	return cu_main(argc, argv);
}
