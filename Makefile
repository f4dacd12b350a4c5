# SPDX-License-Identifier: GPL-2.0
# user_events workbench.  See README.md.
#
#   make run                 build, boot, demo the sample with ftrace + perf
#   make check               build, boot, KUnit + selftests, summary; the test
#                            and the debug kernel unless KERNEL= is given
#   make vm CMD='...'        run a command in the booted kernel
#   make kernel              build only (kernel, headers, selftests, sample)
#   make bench               ours vs upstream in guest instructions; a full run
#                            writes workbench/bench/RESULTS.md and the README summary
#   make compat              upstream 6.12's own selftests, unmodified, on KERNEL
#   make conformance         the same generated sequences on ours and on upstream,
#                            differences grouped and shrunk (SEED=, COUNT=;
#                            build/conformance/REPORT.md)
#   make conformance-record  upstream's log for the conformance run of make check
#   make kunit               the KUnit suites through kunit.py (QEMU x86-64)
#   make fresh-check         static check of the tools ensure_deps installs, then
#                            a debootstrap Debian 12 root running the README's steps
#   make docs                render the .rst with docutils (warnings fail), compile their
#                            examples, check the references of README.md, the .rst and the
#                            cover letter, run the README's guest commands if a kernel is built
#   make differences         the differences from upstream 6.12 (workbench/series/cover-letter)
#   make lint                docs + sparse and W=1 on our objects + kernel-doc (findings fail)
#   make series              git format-patch series + cover letter in build/series, with
#                            proofs: git am, checkpatch --strict, every patch builds,
#                            boots and passes the selftests present at it
#   make clean               remove build outputs (keeps build/pristine)
#
# KERNEL=test|debug|upstream selects the kernel (default: test).
# ARCH=arm64|s390x [PAGES=64k] builds and boots that architecture (test
# kernel); "make check ARCH=all" runs x86_64 (test + debug) and all others.
# TIMEOUT=seconds bounds each boot, ICOUNT=1 adds -icount shift=0,sleep=off,
# SPLAT_CHECK=0 ignores kernel warnings (vm), EXTRA_CONFIG='CONFIG_X=y ...'
# adds config symbols, SELFTESTS=dir builds selftests from another dir.

KERNEL ?= test
export KERNEL
# ARCH=x86_64|arm64|s390x|all (check only), PAGES=4k|64k (arm64): see
# workbench/arch/README
ARCH ?= x86_64
PAGES ?= 4k
export ARCH PAGES

WB := workbench

.PHONY: all run check vm kernel bench compat docs lint series clean \
	kunit fresh-check conformance conformance-record differences

all: check

run:
	$(WB)/run.sh

# without KERNEL=: the test kernel and the debug kernel, one summary
check:
ifeq ($(ARCH),all)
	$(WB)/arch/check-all.sh
else
	$(WB)/check.sh $(if $(filter file,$(origin KERNEL)),$(if $(filter x86_64,$(ARCH)),test debug))
endif

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

# differential conformance against upstream (workbench/conformance.sh)
conformance:
	$(WB)/conformance.sh run

conformance-record:
	$(WB)/conformance.sh record

# the KUnit suites through tools/testing/kunit/kunit.py (build/obj-kunit)
kunit:
	$(WB)/kunit.sh

# a Debian 12 root from debootstrap (build/fresh): the README's commands
# from nothing; FRESH_CMD='make check' for the whole run
fresh-check:
	$(WB)/fresh-check.sh

docs:
	$(WB)/docs.sh

lint:
	$(WB)/lint.sh

# the table of differences from upstream, from the series' cover letter
differences:
	@awk '/^Differences from upstream$$/ { p = 1 } p && /^Figures$$/ { exit } p' \
		$(WB)/series/cover-letter

series:
	$(WB)/series.sh

clean:
	rm -rf build/obj-test build/obj-debug build/obj-upstream build/src build/upstream \
		build/obj-arm64 build/obj-arm64-64k build/obj-s390x build/arch \
		build/obj-series build/obj-lint build/docs build/lint build/series \
		build/series-git build/series-am
