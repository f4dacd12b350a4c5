// SPDX-License-Identifier: GPL-2.0
/*
 * trace-cmd on user events: after "trace-cmd start -e user_events:NAME", the writer (this binary),
 * "trace-cmd stop" and "extract", "trace-cmd report" decodes every field of every event,
 * __data_loc and __rel_loc strings included.  The event is created persistent (dynamic_events) for
 * trace-cmd to enable it before the writer registers the same format.  Not "trace-cmd record
 * WRITER": its recorders stop when the writer exits and may leave a CPU's last records unread.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define TC_NAME		"uet_tc_ev"
#define TC_DATA		"/tmp/uet_tc.dat"
#define TC_OUT		"/tmp/uet_tc.out"
#define TC_COUNT	20

FIXTURE(tracecmd) {
};

FIXTURE_SETUP(tracecmd)
{
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	if (!ue_have_tool("trace-cmd"))
		SKIP(return, "trace-cmd not installed");
	ASSERT_EQ(0, ue_dyn_add(TC_NAME, UE_WRITER_FIELDS));
}

FIXTURE_TEARDOWN(tracecmd)
{
	char path[PATH_MAX];

	/* trace-cmd leaves the event enabled and tracing off */
	ue_set_enable(UE_SYS, TC_NAME, false);
	ue_write_str(ue_tpath(path, sizeof(path), "set_event"), "", O_TRUNC);
	ue_tracing_on();
	EXPECT_EQ(0, ue_dyn_del(TC_NAME));
	unlink(TC_DATA);
	unlink(TC_OUT);
}

TEST_F_TIMEOUT(tracecmd, record_report, 240)
{
	char count[16], expect[128];
	int i, ret;

	snprintf(count, sizeof(count), "%d", TC_COUNT);
	ret = ue_run_tool(TC_OUT, "trace-cmd", "start", "-e", "user_events:" TC_NAME, NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, ue_self(), UE_WRITER_ARG, TC_NAME, count, NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, "trace-cmd", "stop", NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, "trace-cmd", "extract", "-o", TC_DATA, NULL);
	if (!ret)
		ret = ue_run_tool(TC_OUT, "trace-cmd", "report", "-i", TC_DATA, NULL);
	if (ret)
		ue_dump(TC_OUT, 40);
	ASSERT_EQ(0, ret) TH_LOG("trace-cmd start/writer/stop/extract/report failed");

	EXPECT_EQ(TC_COUNT, ue_count_in(TC_OUT, " " TC_NAME ":"));
	for (i = 0; i < TC_COUNT; i++) {
		ue_writer_text(expect, sizeof(expect) - 1, i);
		strcat(expect, "\n");
		EXPECT_EQ(1, ue_count_in(TC_OUT, expect))
			TH_LOG("missing: %s", expect);
	}
	ue_writer_text(expect, sizeof(expect), 3);
	ue_show_line("trace-cmd report", TC_OUT, expect);
	if (_metadata->exit_code != KSFT_PASS)
		ue_dump(TC_OUT, 10);
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
