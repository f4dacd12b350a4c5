# SPDX-License-Identifier: GPL-2.0
# user_events workbench.  See README.md.
#
#   make run                 build, boot, demo the sample with ftrace + perf
#   make check               build, boot, KUnit + selftests, summary; the test
#                            and the debug kernel unless KERNEL= is given
#   make vm CMD='...'        run a command in the booted kernel
#   make kernel              build only (kernel, headers, selftests, sample)
#   make bench               ours vs upstream in guest instructions (build/bench/results.md)
#   make compat              upstream 6.12's own selftests, unmodified, on KERNEL
#   make docs                render the .rst with docutils (warnings fail), compile their examples
#   make lint                docs + sparse and W=1 on our objects + kernel-doc (findings fail)
#   make series              git format-patch series + cover letter in build/series, with
#                            proofs: git am, checkpatch --strict, every patch builds
#   make series-stages       the files the series splits over several patches, as
#                            of each patch, in build/series-stages/ to edit;
#                            SAVE=1 turns the edited trees back into stage diffs
#   make clean               remove build outputs (keeps build/pristine)
#
# KERNEL=test|debug|upstream selects the kernel (default: test).
# TIMEOUT=seconds bounds each boot, ICOUNT=1 adds -icount shift=0,sleep=off,
# SPLAT_CHECK=0 ignores kernel warnings (vm), EXTRA_CONFIG='CONFIG_X=y ...'
# adds config symbols, SELFTESTS=dir builds selftests from another dir.

KERNEL ?= test
export KERNEL

WB := workbench

.PHONY: all run check vm kernel bench compat docs lint series series-stages clean

all: check

run:
	$(WB)/run.sh

# without KERNEL=: the test kernel and the debug kernel, one summary
check:
	$(WB)/check.sh $(if $(filter file,$(origin KERNEL)),test debug)

kernel:
	$(WB)/build.sh all

bench:
	$(WB)/bench.sh

vm:
	@test -n "$$CMD" || { echo "usage: make vm CMD='command'" >&2; exit 2; }
	@$(WB)/build.sh all
	@$(WB)/vm.sh "$$CMD"

compat:
	$(WB)/compat.sh

docs:
	$(WB)/docs.sh

lint:
	$(WB)/lint.sh

series:
	$(WB)/series.sh

series-stages:
	python3 $(WB)/series.py $(if $(SAVE),stages-save,stages-export) \
		build/series-stages --repo $(CURDIR)

clean:
	rm -rf build/obj-test build/obj-debug build/obj-upstream build/src build/upstream \
		build/obj-series build/obj-lint build/docs build/lint build/series \
		build/series-git build/series-am
