#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/host/deb.sh [SUITE] - the Debian packages (make deb) as TAP.
#
# SUITE bookworm (the default), on the host: both build; lintian reports no
# error and no warning (its info tags are shown); each package holds what
# it must and nothing of the other's; dkms.conf's BUILD_EXCLUSIVE_KERNEL
# admits every line's release.
#
# Then, for SUITE (bookworm here, trixie from deb-trixie.sh): installed
# with apt in a build root of that suite, for its kernel lines (see below):
# dkms builds the packaged sources through dkms.conf's MAKE line for each,
# with no warning in its make.log, and the installed files run in a VM of
# each.
set -u
suite=${1:-bookworm}

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
	n=$((n + 1)) bad=$((bad + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}

tmp=$(mktemp -d /tmp/htbx-deb.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Each suite's job builds into its own directory: they may run at once.
dout=build/deb
[ "$suite" = bookworm ] || dout=build/deb-$suite
if ! debs=$(scripts/make-deb "$dout" 2>"$tmp/err"); then
	fail "$suite: make deb builds the packages" "$(cat "$tmp/err")"
	echo "1..$n"
	exit 1
fi
ok "$suite: make deb builds the packages: $(echo $debs)"
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
dkms_deb=$dout/sch-htbx-dkms_${ver}_all.deb
tc_deb=$dout/tc-htbx_${ver}_$(dpkg --print-architecture).deb

# Lines whose packages come from SUITE (or its backports): the first one's
# headers are in the build root before the packages, each other one's are
# installed after them (dkms's autoinstall builds for it).
lines=()
for l in $(lines/kline list debian); do
	s=$(lines/kline suite "$l")
	[ "${s%-backports}" = "$suite" ] && lines+=("$l")
done
[ ${#lines[@]} -gt 0 ] || { fail "$suite: no kernel line of lines/versions.mk comes from $suite"; echo "1..$n"; exit 1; }
rootsuite=$suite
for l in "${lines[@]}"; do
	s=$(lines/kline suite "$l")
	[ "$s" = "$suite" ] || rootsuite=$s
done

if [ "$suite" = bookworm ]; then

# lintian: no error or warning; info tags are listed as diagnostics.
if lintian --fail-on error,warning -I build/deb/*.changes >"$tmp/lintian" 2>&1; then
	ok "lintian: no error or warning ($(grep -c '^I:' "$tmp/lintian") info tags)"
	sed 's/^/# /' "$tmp/lintian" | grep -v 'root privileges'
else
	fail "lintian: no error or warning" "$(cat "$tmp/lintian")"
fi

# contents DEB: the paths it installs, one a line
contents() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|'; }
contents "$dkms_deb" >"$tmp/dkms.list"
contents "$tc_deb" >"$tmp/tc.list"
src=/usr/src/sch_htbx-$ver
# dkms.conf and the files the module is built from (the Makefile's list)
want_dkms="$src/dkms.conf $(make -s --no-print-directory print-module-files |
	tr ' ' '\n' | sed "s|^|$src/|")"
miss=
for f in $want_dkms; do grep -qx "$f" "$tmp/dkms.list" || miss="$miss $f"; done
if [ -z "$miss" ] && ! grep -q 'q_htbx\|/man/' "$tmp/dkms.list"; then
	ok "sch-htbx-dkms holds the module's sources under $src and nothing of tc-htbx"
else
	fail "sch-htbx-dkms contents" "missing:$miss" "$(cat "$tmp/dkms.list")"
fi
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if grep -qx "/usr/lib/$ma/tc/q_htbx.so" "$tmp/tc.list" &&
   grep -qx /usr/share/man/man8/tc-htbx.8.gz "$tmp/tc.list" &&
   grep -qx /usr/lib/sqm/htbx_simple.qos "$tmp/tc.list" &&
   grep -qx /usr/lib/sqm/htbx_simple.qos.help "$tmp/tc.list" &&
   ! grep -q '^/usr/src' "$tmp/tc.list"; then
	ok "tc-htbx holds q_htbx.so where tc looks (/usr/lib/$ma/tc), tc-htbx(8) and sqm-scripts' htbx_simple.qos (/usr/lib/sqm)"
else
	fail "tc-htbx contents" "$(cat "$tmp/tc.list")"
fi
dep_dkms=$(dpkg-deb -f "$dkms_deb" Depends)
dep_tc=$(dpkg-deb -f "$tc_deb" Depends)
case "$dep_dkms|$dep_tc" in
*dkms*"|"*dkms*) fail "only sch-htbx-dkms depends on dkms" "$dep_dkms" "$dep_tc" ;;
*dkms*"|"*iproute2*) ok "depends: sch-htbx-dkms on $dep_dkms; tc-htbx on $dep_tc" ;;
*) fail "depends: dkms and iproute2" "$dep_dkms" "$dep_tc" ;;
esac
dpkg-deb -e "$dkms_deb" "$tmp/ctl"
if grep -q 'common.postinst' "$tmp/ctl/postinst" 2>/dev/null &&
   grep -q 'dkms remove\|common.prerm\|dkms' "$tmp/ctl/prerm" 2>/dev/null; then
	ok "sch-htbx-dkms: postinst builds through dkms, prerm removes"
else
	fail "sch-htbx-dkms maintainer scripts" "$(ls "$tmp/ctl")"
fi

# dkms.conf: its names, and its BUILD_EXCLUSIVE_KERNEL admits every line.
# The packaged sources are built through dkms.conf's MAKE by dkms itself,
# in the install steps below (bookworm's lines here, trixie's and
# trixie-backports' in deb-trixie.sh); bullseye, sid and the test kernels
# built from source have no package test, lines/kmake builds for them.
dpkg-deb -x "$dkms_deb" "$tmp/root"
# htbx in htb's place: offered, not done (every line commented out)
mp=/etc/modprobe.d/sch-htbx-dkms.conf
if grep -qx "$mp" "$tmp/dkms.list" && grep -q '^#options sch_htbx htb=1$' "$tmp/root$mp" &&
   ! grep -qv '^#' "$tmp/root$mp"; then
	ok "sch-htbx-dkms ships $mp, htbx in htb's place commented out"
else
	fail "sch-htbx-dkms ships $mp, every line commented" "$(cat "$tmp/root$mp" 2>&1)"
fi
conf=$tmp/root$src/dkms.conf
# shellcheck disable=SC1090
( set +u; . "$conf" && [ "$PACKAGE_NAME" = sch_htbx ] && [ "$PACKAGE_VERSION" = "$ver" ] ) &&
	ok "dkms.conf: PACKAGE_NAME sch_htbx, PACKAGE_VERSION $ver" ||
	fail "dkms.conf names and version" "$(cat "$conf")"
excl=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
for line in $(lines/kline list); do
	krel=$(lines/kline krel "$line")
	if ! [[ $krel =~ $excl ]]; then
		fail "[$line] BUILD_EXCLUSIVE_KERNEL ($excl) admits $krel"
		continue
	fi
	ls=$(lines/kline suite "$line")
	ls=${ls%-backports}
	if [ "$(lines/kline kind "$line")" != debian ]; then
		by="a test kernel built from source: built by lines/kmake only"
	elif [ "$ls" = "$suite" ]; then
		by="built by dkms below"
	elif [ -n "$ls" ] && [ -e "tests/host/deb-$ls.sh" ]; then
		by="built by $ls's dkms: tests/host/deb-$ls.sh"
	else
		by="no package test: built by lines/kmake only"
	fi
	ok "[$line] BUILD_EXCLUSIVE_KERNEL admits $krel ($by)"
done
fi	# bookworm

# ------------------------------------------------------------------
# Installed with apt in a build root of SUITE (lines/buildroot: dkms,
# iproute2, openssl and the first line's headers; the other lines' headers
# fetched, not installed), on a throw-away overlay of it: apt install
# ./*.deb builds the module through dkms, signed with dkms's MOK key (the
# key Secure Boot users enroll); installing another line's headers builds
# it for that kernel too (dkms's autoinstall hook); the installed files
# work in a VM of each kernel; apt remove leaves nothing of either package.
k1=$(lines/kline krel "${lines[0]}")
later=()
for l in "${lines[@]:1}"; do later+=("$(lines/kline krel "$l")"); done
hdrs=()
for k in "${later[@]}"; do hdrs+=("linux-headers-$k"); done
# (under the lock lines/kmake takes: one maker per suite's build root)
mkdir -p "$(lines/cachedir)/buildroot"
if ! root=$(flock "$(lines/cachedir)/buildroot/.lock-$rootsuite" lines/buildroot "$rootsuite" --install dkms iproute2 openssl "linux-headers-$k1" \
		${hdrs[0]:+--download "${hdrs[@]}"} 2>"$tmp/br"); then
	fail "$suite build root (lines/buildroot $rootsuite)" "$(cat "$tmp/br")"
	echo "1..$n"
	exit 1
fi
inst=$top/tests/out/deb-install-$suite
rm -rf "$inst"
mkdir -p "$inst"
cp "$dkms_deb" "$tc_deb" "$tmp/"
w=$tmp/ov
mkdir -p "$w"
cat >"$tmp/steps.sh" <<EOF
# each step's result as "STEP rc" in /x/results; files into /x/out
export DEBIAN_FRONTEND=noninteractive
mkdir -p /x/out
r() { echo "\$1 \$2" >>/x/results; }
# grab KREL: the module dkms installed for KREL, and dkms's make.log of
# its build, into /x/out/KREL/
grab() {
	mkdir -p /x/out/\$1
	f=\$(find /lib/modules/\$1 -name 'sch_htbx.ko*' | head -n 1)
	[ -n "\$f" ] && cp "\$f" /x/out/\$1/
	cp /var/lib/dkms/sch_htbx/$ver/\$1/*/log/make.log /x/out/\$1/ 2>/dev/null
}
cd /x
# A chroot boots nothing: no initramfs for the kernel the headers pull in.
dpkg-divert --local --rename --add /usr/sbin/update-initramfs >/dev/null &&
	ln -s /bin/true /usr/sbin/update-initramfs
apt-get install -y /x/sch-htbx-dkms_${ver}_all.deb /x/$(basename "$tc_deb") >/x/apt-install.log 2>&1
r install \$?
dkms status >/x/dkms-status-1 2>&1
[ -f /var/lib/dkms/mok.pub ] && cp /var/lib/dkms/mok.pub /x/out/
grab $k1
cp /usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/tc/q_htbx.so /x/out/ 2>/dev/null
for k in ${later[*]}; do
	apt-get install -y --no-download --no-install-recommends linux-headers-\$k >/x/apt-headers-\$k.log 2>&1
	r headers-\$k \$?
	dkms status >/x/dkms-status-\$k 2>&1
	grab \$k
done
apt-get remove -y sch-htbx-dkms tc-htbx >/x/apt-remove.log 2>&1
r remove \$?
{ ls -d /usr/src/sch_htbx* /var/lib/dkms/sch_htbx 2>/dev/null
  find /lib/modules /usr/lib/*/tc -name 'sch_htbx.ko*' -o -name 'q_htbx.so' 2>/dev/null
  dpkg -l sch-htbx-dkms tc-htbx 2>/dev/null | grep '^[ir]i'; } >/x/left
r left \$(wc -l </x/left)
EOF
: >"$tmp/results"
unshare --mount --propagation private bash -c '
	set -e
	w=$1 root=$2 tmp=$3
	mount -t tmpfs tmpfs "$w"
	mkdir "$w/up" "$w/work" "$w/m"
	mount -t overlay overlay -o "lowerdir=$root,upperdir=$w/up,workdir=$w/work" "$w/m"
	mount -t proc proc "$w/m/proc"
	mount --rbind /dev "$w/m/dev"
	mkdir -p "$w/m/x"
	mount --bind "$tmp" "$w/m/x"
	chroot "$w/m" /bin/sh /x/steps.sh
' _ "$w" "$root" "$tmp" >"$tmp/steps.log" 2>&1
res() { awk -v s="$1" '$1 == s { print $2 }' "$tmp/results"; }
# warned KREL: dkms's build for KREL logged warnings, or no log was kept;
# make_log KREL: its warnings, for a failure's details
warned() { [ ! -s "$tmp/out/$1/make.log" ] || grep -qi warning "$tmp/out/$1/make.log"; }
make_log() { echo "dkms's make.log: $(grep -i -B2 -A2 warning "$tmp/out/$1/make.log" 2>/dev/null || echo none kept)"; }
if [ "$(res install)" = 0 ] && grep -q "sch_htbx/$ver, $k1, .*installed" "$tmp/dkms-status-1" && ! warned "$k1"; then
	ok "$suite: apt install ./*.deb builds and installs sch_htbx $ver for $k1 through dkms (no warnings)"
else
	fail "$suite: apt install ./*.deb builds through dkms" "$(tail -n 25 "$tmp/apt-install.log" 2>/dev/null)" \
		"$(cat "$tmp/dkms-status-1" "$tmp/steps.log" 2>/dev/null)" \
		"$(make_log "$k1")"
fi
ko1=$(ls "$tmp/out/$k1/"sch_htbx.ko* 2>/dev/null | head -n 1)
signer=$([ -n "$ko1" ] && modinfo -F signer "$ko1" 2>/dev/null)
if [ "$signer" = "DKMS module signing key" ] && [ -s "$tmp/out/mok.pub" ]; then
	ok "$suite: dkms signed it with its MOK key (signer \"$signer\"; /var/lib/dkms/mok.pub to enroll)"
else
	fail "$suite: dkms signs the module" "signer: '$signer'" "$(ls -la "$tmp/out" 2>&1)"
fi
for k in "${later[@]}"; do
	if [ "$(res "headers-$k")" = 0 ] && grep -q "sch_htbx/$ver, $k, .*installed" "$tmp/dkms-status-$k" && ! warned "$k"; then
		ok "$suite: installing $k's headers builds it for $k too (autoinstall, no warnings)"
	else
		fail "$suite: a second kernel's headers ($k): autoinstall" "$(tail -n 25 "$tmp/apt-headers-$k.log" 2>/dev/null)" \
			"$(cat "$tmp/dkms-status-$k" 2>/dev/null)" \
			"$(make_log "$k")"
	fi
done
if [ "$(res remove)" = 0 ] && [ "$(res left)" = 0 ]; then
	ok "$suite: apt remove leaves nothing (no sources, dkms tree, module or plugin)"
else
	fail "$suite: apt remove leaves nothing" "$(cat "$tmp/left" 2>/dev/null)" \
		"$(tail -n 20 "$tmp/apt-remove.log" 2>/dev/null)"
fi

# The installed module and plugin, in a VM of each kernel: the guest's own
# sch_htbx.ko and q_htbx.so (from this checkout) are replaced by them.
cp -a "$tmp/out/." "$inst/" 2>/dev/null
for line in "${lines[@]}"; do
	krel=$(lines/kline krel "$line")
	# (dkms compresses it as the kernel's own modules are: .ko.xz on 6.12)
	if ! ls "$inst/$krel/"sch_htbx.ko* >/dev/null 2>&1 || [ ! -e "$inst/q_htbx.so" ]; then
		fail "[$line] the installed module and plugin in a VM" "nothing installed for $krel"
		continue
	fi
	o=$(TEST_SUITE=$suite lines/vm --kernel "$line" --timeout 300 -- sh -c '
		ma=x86_64-linux-gnu
		find /lib/modules -name "sch_htbx.ko*" -delete
		mkdir -p /lib/modules/$HTBX_KREL/updates/dkms
		cp tests/out/deb-install-$TEST_SUITE/$HTBX_KREL/sch_htbx.ko* /lib/modules/$HTBX_KREL/updates/dkms/
		cp tests/out/deb-install-$TEST_SUITE/q_htbx.so /usr/lib/$ma/tc/q_htbx.so
		depmod -a && modprobe sch_htbx || exit 1
		echo "version $(cat /sys/module/sch_htbx/version)"
		tc qdisc add dev lo root handle 1: htbx default 10 &&
		tc class add dev lo parent 1: classid 1:10 htbx rate 1mbit ceil 2mbit &&
		tc class show dev lo && tc qdisc del dev lo root && rmmod sch_htbx' 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$o" | grep -qx "version $ver" &&
	   printf '%s\n' "$o" | grep -q 'class htbx 1:10 root prio 0 rate 1Mbit ceil 2Mbit'; then
		ok "[$line] the dkms-built module (version $ver) and the packaged plugin: modprobe, tc qdisc/class add ... htbx"
	else
		fail "[$line] the installed module and plugin in a VM (vm exit $rc)" "$o"
	fi
done

echo "1..$n"
[ $bad -eq 0 ]
