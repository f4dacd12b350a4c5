# SPDX-License-Identifier: GPL-2.0
# user_events workbench.  See README.md.
#
#   make run                 build, boot, demo the sample with ftrace + perf
#   make check               build, boot, KUnit + selftests, summary
#   make vm CMD='...'        run a command in the booted kernel
#   make kernel              build only (kernel, headers, selftests, sample)
#   make compat              (not implemented yet)
#   make clean               remove build outputs (keeps build/pristine)
#
# KERNEL=test|debug|upstream selects the kernel (default: test).
# TIMEOUT=seconds bounds each boot, ICOUNT=1 adds -icount shift=0,sleep=off,
# SPLAT_CHECK=0 ignores kernel warnings (vm), EXTRA_CONFIG='CONFIG_X=y ...'
# adds config symbols, SELFTESTS=dir builds selftests from another dir.

KERNEL ?= test
export KERNEL

WB := workbench

.PHONY: all run check vm kernel compat clean

all: check

run:
	$(WB)/run.sh

check:
	$(WB)/check.sh

kernel:
	$(WB)/build.sh all

vm:
	@test -n "$$CMD" || { echo "usage: make vm CMD='command'" >&2; exit 2; }
	@$(WB)/build.sh all
	@$(WB)/vm.sh "$$CMD"

compat:
	@echo "compat: not implemented yet" >&2

clean:
	rm -rf build/obj-test build/obj-debug build/obj-upstream build/src build/upstream
