#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fresh-check: prove that every tool the workbench calls comes from a
# minimal Debian 12 plus what ensure_deps (workbench/lib.sh) installs.
#
#   fresh-check.sh static   commands the workbench's shell scripts (host
#                           and guest side) and Python helpers invoke,
#                           each mapped to its Debian package on this
#                           machine: it must be in a minimal Debian 12
#                           (Essential or Priority: required) or in
#                           ensure_deps (with its dependencies)
#   fresh-check.sh [all]    static, then from nothing: a Debian 12 root by
#                           debootstrap --variant=minbase (this machine's
#                           apt sources) in build/fresh/root, the repo
#                           cloned into it (HEAD plus the working tree's
#                           uncommitted files), /proc, /sys, /dev mounted,
#                           and $FRESH_CMD run in it as root
#   fresh-check.sh clean    unmount and remove build/fresh/root
#
# Environment:
#   FRESH_CMD='...'   commands run in the root's repo after the README's
#                     bootstrap ("apt-get install make", always run
#                     first); default: make vm with one selftest
#                     (dependencies, all builds and one boot);
#                     FRESH_CMD='make check' for everything
#   FRESH_MIRROR=url  debootstrap mirror (default: the first Debian URI of
#                     this machine's apt sources)
#   FRESH_CCACHE=0    do not share this machine's ccache directory with
#                     the root (compiler output only; no tool comes from it)
set -euo pipefail
{
. "$(dirname "$0")/lib.sh"

FRESH=$BUILD/fresh
ROOT=$FRESH/root
BASE=$FRESH/base	# the debootstrap result, copied for every run
SUITE=bookworm
# the README's one manual step, then the command
FRESH_BOOT="apt-get update && apt-get install -y --no-install-recommends make"
FRESH_CMD=${FRESH_CMD:-"make vm CMD='build/obj-test/selftests/reg_test'"}

# ---------------------------------------------------------------------
# Static check.

# The packages ensure_deps installs on a machine that has none of them
# (x86_64), plus the other architectures' additions (pkgs+=(...)).
ensure_deps_pkgs() {
	(
		dpkg() { return 1; }
		apt-get() { [ "$1" = install ] && printf '%s\n' "$@"; return 0; }
		sudo() { "$@"; }
		TARBALL=/nonexistent ARCH=x86_64
		ensure_deps debootstrap 2>/dev/null
	) | grep -v -e '^install$' -e '^-'
	sed -n 's/.*pkgs+=(\([^)]*\)).*/\1/p' "$WB_DIR/lib.sh" | tr ' ' '\n'
}

static_check() {
	local pkgs
	pkgs=$(ensure_deps_pkgs | tr '\n' ' ')
	log "static check: commands of workbench/ vs. minimal Debian 12 + ensure_deps ($pkgs)"
	python3 - "$WB_DIR" "$pkgs" <<-'EOF'
	import os, re, shutil, subprocess, sys

	wb, pkgs = sys.argv[1], sys.argv[2].split()
	# shell words that are not commands, and builtins of bash and dash
	skip = set('''if then else elif fi for in do done while until case esac
	    function select time ! { } [[ ]] return local export declare set
	    shift unset readonly exit exec eval trap wait read echo printf cd
	    pwd test [ true false source . alias type command hash ulimit umask
	    kill jobs fg bg getopts let break continue builtin mapfile
	    readarray shopt disown suspend times caller compgen complete
	    enable help history logout popd pushd dirs'''.split())
	# words after which the next word is the command
	prefixes = {'sudo', 'env', 'nice', 'stdbuf', 'timeout', 'flock',
	            'xargs', 'chroot', 'ionice', 'setsid', 'exec', 'command',
	            'time', '!', 'then', 'else', 'do', 'elif', 'if', 'while',
	            'until', '{'}
	word = re.compile(r'^[A-Za-z_][A-Za-z0-9_.+-]*$')
	cmds = {}   # command -> first place it is used

	def note(c, where):
	    if word.match(c) and c not in skip:
	        cmds.setdefault(c, where)

	files = []
	for d, _, fs in os.walk(wb):
	    files += [os.path.join(d, f) for f in fs]
	funcs = set()
	for f in files:
	    if f.endswith('.sh'):
	        for m in re.finditer(r'^\s*([A-Za-z_][\w-]*)\s*\(\)',
	                             open(f, errors='replace').read(), re.M):
	            funcs.add(m.group(1))
	for f in sorted(files):
	    rel = os.path.relpath(f, os.path.dirname(wb))
	    # the foreign guests' /init runs busybox applets (build/arch)
	    if rel == 'workbench/arch/guest-init.sh':
	        continue
	    text = open(f, errors='replace').read()
	    if f.endswith('.py'):
	        for m in re.finditer(r'(?:subprocess\.\w+|check_output|Popen|run)'
	                             r'\(\s*\[\s*[\'"]([\w.+-]+)[\'"]', text):
	            note(m.group(1), rel)
	        continue
	    if not f.endswith('.sh'):
	        continue
	    heredoc = None
	    for n, line in enumerate(text.split('\n'), 1):
	        if heredoc:
	            if line.strip() == heredoc:
	                heredoc = None
	            continue
	        m = re.search(r"<<-?\s*'?\"?(\w+)", line)
	        if m:
	            heredoc = m.group(1)
	        line = re.sub(r"'[^']*'", "''", line)        # quoted text
	        line = re.sub(r'(^|\s)#.*', '', line)          # comments
	        line = re.sub(r'\$\(\([^)]*\)\)', '0', line)   # arithmetic
	        for seg in re.split(r'\|\||&&|[;|&()`]|\$\(', line):
	            ws = seg.replace('"', ' ').split()
	            while ws and ('=' in ws[0] and word.match(ws[0].split('=')[0])
	                          or ws[0] in prefixes or ws[0].startswith('-')
	                          or ws[0].isdigit()):
	                if ws[0] in prefixes:
	                    note(ws[0], '%s:%d' % (rel, n))
	                ws.pop(0)
	            if ws and ws[0] not in funcs:
	                note(ws[0], '%s:%d' % (rel, n))

	# programs the selftests run (ue_util.c: ue_have_tool("perf"), ...)
	st = os.path.join(os.path.dirname(wb), 'tools/testing/selftests/user_events')
	for f in sorted(os.listdir(st)) if os.path.isdir(st) else []:
	    if f.endswith('.c'):
	        for m in re.finditer(r'ue_have_tool\("([\w.+-]+)"\)',
	                             open(os.path.join(st, f)).read()):
	            note(m.group(1), 'selftests/%s' % f)

	def pkg_of(path):
	    for p in (path, os.path.realpath(path)):
	        for q in (p, '/usr' + p if not p.startswith('/usr/') else p[4:]):
	            r = subprocess.run(['dpkg', '-S', q], capture_output=True,
	                               text=True)
	            for l in r.stdout.split('\n'):
	                if l and not l.startswith('diversion by'):
	                    return l.split(':')[0].split(',')[0].strip()
	    return None

	st = subprocess.run(['dpkg-query', '-W', '-f',
	                     '${Package} ${Essential} ${Priority}\n'],
	                    capture_output=True, text=True).stdout.split('\n')
	base = {l.split()[0] for l in st
	        if len(l.split()) == 3 and
	        (l.split()[1] == 'yes' or l.split()[2] == 'required')}
	base.add('apt')     # debootstrap --variant=minbase: required + apt
	installed = {l.split()[0] for l in st if l.split()}
	deps = set(pkgs)
	r = subprocess.run(['apt-cache', 'depends', '--recurse', '--no-recommends',
	                    '--no-suggests', '--no-conflicts', '--no-breaks',
	                    '--no-replaces', '--no-enhances']
	                   + [p for p in pkgs if p in installed],
	                   capture_output=True, text=True)
	for l in r.stdout.split('\n'):
	    l = l.strip()
	    if l and not l.startswith('<'):
	        deps.add(l.split(':')[-1].strip().strip('<>') if ':' in l
	                 else l)
	bad = 0
	unknown = []
	# Debian's own directories only (not ~/.local, pyenv, /usr/local)
	path_env = '/usr/sbin:/usr/bin:/sbin:/bin'
	for c in sorted(cmds):
	    path = shutil.which(c, path=path_env)
	    if not path:
	        unknown.append(c)
	        continue
	    p = pkg_of(path)
	    if p in base:
	        how = 'minimal Debian'
	    elif p in pkgs:
	        how = 'ensure_deps'
	    elif p in deps:
	        how = 'ensure_deps (dependency)'
	    else:
	        how = 'MISSING from ensure_deps'
	        bad += 1
	    print('  %-24s %-28s %s' % (c, p or '(no package)', how))
	# words in command position that no Debian directory has: variables,
	# functions of other files, guest programs; listed, not judged
	print('  not a command here: %s' % ' '.join(unknown))
	print('static check: %d commands, %d not covered by ensure_deps'
	      % (len(cmds) - len(unknown), bad))
	sys.exit(1 if bad else 0)
	EOF
}

# ---------------------------------------------------------------------
# The root.

mounted_under() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts; }

umount_root() {
	local m
	# deepest first
	for m in $(mounted_under "$ROOT" | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	[ -z "$(mounted_under "$ROOT")" ] || die "still mounted under $ROOT"
}

remove_root() {
	umount_root
	# never with anything mounted below it (the host's /dev!)
	[ -z "$(mounted_under "$ROOT")" ] && rm -rf --one-file-system "$ROOT"
}

# This machine's apt source files; a Debian 12 image may have only
# deb822 ones (sources.list.d/debian.sources) and no sources.list.
apt_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		if [ -f "$f" ]; then echo "$f"; fi
	done
}

mirror() {
	if [ -n "${FRESH_MIRROR:-}" ]; then
		echo "$FRESH_MIRROR"
		return
	fi
	# no match is not an error here: make_base says what is missing
	apt_sources | xargs -r cat |
		{ grep -oE 'https?://[^ ]*/debian/?( |$)' || true; } |
		head -n 1 | tr -d ' '
}

make_base() {
	[ -x "$BASE/bin/bash" ] && [ -f "$BASE/.complete" ] && return 0
	local url
	url=$(mirror)
	[ -n "$url" ] || die "no Debian mirror in /etc/apt/sources*; set FRESH_MIRROR"
	log "debootstrap --variant=minbase $SUITE from $url into $BASE"
	rm -rf --one-file-system "$BASE"
	debootstrap --variant=minbase "$SUITE" "$BASE" "$url" \
		> "$FRESH/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$FRESH/debootstrap.log" >&2; die "debootstrap failed"; }
	touch "$BASE/.complete"
}

make_root() {
	remove_root
	log "copying $BASE to $ROOT"
	cp -a "$BASE" "$ROOT"
	# the same apt sources as this machine, and its name service
	rm -f "$ROOT"/etc/apt/sources.list "$ROOT"/etc/apt/sources.list.d/*
	local f
	for f in $(apt_sources); do
		cp "$f" "$ROOT$f"
	done
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
	# the repo: a clone of HEAD, then the working tree's changes on top
	log "cloning $REPO (HEAD $(git -C "$REPO" rev-parse --short HEAD) + working tree) into $ROOT$REPO"
	mkdir -p "$ROOT$(dirname "$REPO")"
	git clone -q --no-hardlinks "$REPO" "$ROOT$REPO"
	(cd "$REPO" && git ls-files -z -m -o --exclude-standard |
		tar --null -T - -cf -) | tar -C "$ROOT$REPO" -xf -
	(cd "$REPO" && git ls-files -z -d) | (cd "$ROOT$REPO" && xargs -0r rm -f)
	mount -t proc proc "$ROOT/proc"
	mount -t sysfs sysfs "$ROOT/sys"
	mount --bind /dev "$ROOT/dev"
	mount --bind /dev/pts "$ROOT/dev/pts"
	mount -t tmpfs tmpfs "$ROOT/dev/shm"
	if [ "${FRESH_CCACHE:-1}" = 1 ] && [ -d /root/.cache/ccache ]; then
		mkdir -p "$ROOT/root/.cache/ccache"
		mount --bind /root/.cache/ccache "$ROOT/root/.cache/ccache"
	fi
}

run_in_root() {
	log "in the root: $FRESH_BOOT && $FRESH_CMD"
	# a fresh login environment: nothing from this shell
	chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		CCACHE_COMPILERCHECK=content \
		/bin/bash -c "cd '$REPO' && $FRESH_BOOT && $FRESH_CMD"
}

case ${1:-all} in
static)
	static_check
	;;
clean)
	remove_root
	;;
all)
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount)"
	ensure_deps debootstrap
	static_check
	mkdir -p "$FRESH"
	t0=$(date +%s)
	make_base
	t1=$(date +%s)
	make_root
	trap umount_root EXIT
	rc=0
	run_in_root 2>&1 | tee "$FRESH/run.log" || rc=$?
	t2=$(date +%s)
	log "fresh-check: debootstrap $((t1 - t0)) s, in the root $((t2 - t1)) s, status $rc (log $FRESH/run.log)"
	exit "$rc"
	;;
*)
	die "usage: fresh-check.sh [static|all|clean]"
	;;
esac
}
