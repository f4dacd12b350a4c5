#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /usr/bin/timeout of a foreign guest: coreutils' options that
# kselftest/runner.sh and guest-check.sh use (--foreground, -k SECS) are
# dropped, the rest goes to busybox's timeout ([-s SIG] SECS PROG ARGS).
while [ $# -gt 0 ]; do
	case $1 in
	--foreground) shift ;;
	-k) shift 2 ;;
	-k?*|--kill-after=*) shift ;;
	*) break ;;
	esac
done
exec /bin/busybox timeout "$@"
