#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the initramfs of a foreign guest (arm64, s390x): the userspace
# is busybox plus the static programs workbench/arch/initramfs.sh copied
# in at their host paths.  Like workbench/guest-init.sh: results go to the
# "wbresults" 9p share on /run/wb, the command is /run/wb/cmd.sh, its
# output /run/wb/output, its exit status /run/wb/status; then power off.

/bin/busybox mkdir -p /usr/bin /usr/sbin /sbin
/bin/busybox --install -s
PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin
HOME=/tmp
TERM=dumb
export PATH HOME TERM

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# what udev would add (the kselftest runner writes to /dev/stdout)
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# /tmp stays the initramfs' own (writable) directory: a repo checked out
# under /tmp (a CI clone) has its scripts and programs there
mkdir -p /tmp && chmod 1777 /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /run/wb /run/lock
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 wbresults /run/wb

off() {
	sync
	poweroff -f
	while :; do sleep 1; done
}

if [ ! -f /run/wb/cmd.sh ]; then
	echo "wb: no /run/wb/cmd.sh, nothing to do" > /dev/console
	off
fi

cd "$(cat /run/wb/cwd 2>/dev/null || echo /)" || cd /
echo "wb: running command" > /dev/kmsg
sh /run/wb/cmd.sh > /run/wb/output 2>&1 < /dev/null
echo $? > /run/wb/status.tmp
mv /run/wb/status.tmp /run/wb/status
echo "wb: command finished, status $(cat /run/wb/status)" > /dev/console
off
