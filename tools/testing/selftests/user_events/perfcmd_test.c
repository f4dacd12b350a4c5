// SPDX-License-Identifier: GPL-2.0
/*
 * The perf tool on user events: "perf record -e user_events:NAME -- writer" and "perf script"
 * decode every field of every event, also with ":k" (exclude_user): a sample carries the
 * kernel's registers, as upstream's do, so ":u" (exclude_kernel) records none.  The event is
 * created persistent (dynamic_events) for perf to find; the writer (this binary) registers the
 * same format.
 */
#include "ue_util.h"
#include "../kselftest_harness.h"

#define PC_COUNT	20

FIXTURE(perfcmd) {
	char data[PATH_MAX], out[PATH_MAX];
};

FIXTURE_VARIANT(perfcmd) {
	const char *name, *modifier;
	bool none;	/* no sample expected */
};

FIXTURE_VARIANT_ADD(perfcmd, plain) { .name = "uet_pc_plain", .modifier = "" };
FIXTURE_VARIANT_ADD(perfcmd, kernel_only) { .name = "uet_pc_kernel", .modifier = ":k" };
FIXTURE_VARIANT_ADD(perfcmd, user_only) {
	.name = "uet_pc_user", .modifier = ":u", .none = true,
};

FIXTURE_SETUP(perfcmd)
{
	snprintf(self->data, sizeof(self->data), "/tmp/%s.data", variant->name);
	snprintf(self->out, sizeof(self->out), "/tmp/%s.out", variant->name);
	if (!ue_available())
		SKIP(return, "user_events not available (CONFIG_USER_EVENTS?)");
	if (!ue_have_tool("perf"))
		SKIP(return, "perf not installed (Debian: linux-perf)");
	ASSERT_EQ(0, ue_dyn_add(variant->name, UE_WRITER_FIELDS));
}

FIXTURE_TEARDOWN(perfcmd)
{
	EXPECT_EQ(0, ue_dyn_del(variant->name));
	unlink(self->data);
	unlink(self->out);
}

TEST_F_TIMEOUT(perfcmd, record_script, 240)
{
	char event[128], count[16], expect[128];
	int i, ret;

	snprintf(event, sizeof(event), "user_events:%s%s", variant->name, variant->modifier);
	snprintf(count, sizeof(count), "%d", PC_COUNT);
	ret = ue_run_tool(self->out, "perf", "record", "-q", "--no-buildid", "-e", event, "-o",
			  self->data, "--", ue_self(), UE_WRITER_ARG, variant->name, count, NULL);
	if (!ret)
		ret = ue_run_tool(self->out, "perf", "script", "-i", self->data, NULL);
	if (ret)
		ue_dump(self->out, 40);
	ASSERT_EQ(0, ret) TH_LOG("perf record or script failed");

	/* one sample per write, every field decoded */
	snprintf(expect, sizeof(expect), "user_events:%s:", variant->name);
	EXPECT_EQ(variant->none ? 0 : PC_COUNT, ue_count_in(self->out, expect));
	for (i = 0; i < PC_COUNT && !variant->none; i++) {
		ue_writer_text(expect, sizeof(expect) - 1, i);
		strcat(expect, "\n");
		EXPECT_EQ(1, ue_count_in(self->out, expect))
			TH_LOG("missing: %s", expect);
	}
	ue_writer_text(expect, sizeof(expect), 3);
	ue_show_line("perf script", self->out, expect);
	if (_metadata->exit_code != KSFT_PASS)
		ue_dump(self->out, 10);
}

int main(int argc, char **argv)
{
	return ue_main(argc, argv, test_harness_run);
}
