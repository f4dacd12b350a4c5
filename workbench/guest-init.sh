#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# init (PID 1) of the workbench guest.  The root is the host's / over 9p,
# read-only; results go to the "wbresults" 9p share mounted on /run/wb.
# The command to run is /run/wb/cmd.sh; its output goes to /run/wb/output
# and its exit status to /run/wb/status.  Then the guest powers off.

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/tmp
TERM=dumb
export PATH HOME TERM

mounted() { grep -q " $1 " /proc/mounts 2>/dev/null; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mounted /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/wb /run/lock /run/hosttmp
# Keep the host's /tmp reachable under the guest's own tmpfs /tmp.
mount --bind /tmp /run/hosttmp
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 wbresults /run/wb

# A repo checked out under the host's /tmp (a CI clone) stays visible.
wbcwd=$(cat /run/wb/cwd 2>/dev/null || echo /)
case $wbcwd in
/tmp/?*)
	top=${wbcwd#/tmp/}
	top=${top%%/*}
	mkdir -p "/tmp/$top" && mount --bind "/run/hosttmp/$top" "/tmp/$top"
	;;
esac

poweroff_now() {
	sync
	# reboot(LINUX_REBOOT_CMD_POWER_OFF) synchronously (perl-base is
	# essential in Debian); sysrq-o is asynchronous and lets init fault
	# on the already shut down 9p root.
	perl -e 'syscall(169, 0xfee1dead, 672274793, 0x4321fedc)' 2>/dev/null
	echo o > /proc/sysrq-trigger
	while :; do sleep 1; done
}

if [ ! -f /run/wb/cmd.sh ]; then
	echo "wb: no /run/wb/cmd.sh, nothing to do" > /dev/console
	poweroff_now
fi

cd "$wbcwd" || cd /
echo "wb: running command" > /dev/kmsg
/bin/sh /run/wb/cmd.sh > /run/wb/output 2>&1 < /dev/null
echo $? > /run/wb/status.tmp
mv /run/wb/status.tmp /run/wb/status
echo "wb: command finished, status $(cat /run/wb/status)" > /dev/console
poweroff_now
