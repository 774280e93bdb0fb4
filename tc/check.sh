#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - host tests of q_htbx.so (run by `make -C tc check`), TAP.
#
# 1. ABI: every symbol the plugin imports from tc is exported by the
#    installed tc; htbx_qdisc_util is exported; no BIND_NOW.
# 2. Unit tests of the rate/size/time parsers and formatters.
# 3. The plugin driven by test_plugin (tc's helpers, no kernel): exactly
#    the attributes the user gave are sent, errors send nothing, dumps
#    print in tc-htb style.
# 4. The plugin inside the real tc, in a private network namespace: a
#    parsed command reaches the kernel (which has no htbx on this host, so
#    it ends in "Specified qdisc kind is unknown"), a bad one stops in the
#    plugin with its own message and exit 1.
# 5. man/tc-htbx.8 renders without groff warnings.
set -u
cd "$(dirname "$0")"
TC=${TC:-$(command -v tc || echo /usr/sbin/tc)}
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
diag() { sed 's/^/# /'; }

# --- 1. ABI
imports=$(nm -D --undefined-only q_htbx.so | awk '$1 == "U" && $2 !~ /@/ { print $2 }')
exports=$(nm -D --defined-only "$TC" | awk '{ print $3 }')
missing=
for s in $imports; do
	grep -qxF "$s" <<<"$exports" || missing="$missing $s"
done
check "every tc symbol q_htbx.so imports is exported by $TC ($(wc -w <<<"$imports") symbols)" \
	test -z "$missing"
[ -z "$missing" ] || echo "# missing:$missing"
check "htbx_qdisc_util is exported" \
	sh -c "nm -D --defined-only q_htbx.so | grep -qw htbx_qdisc_util"
check "linked without -z now (no BIND_NOW)" \
	sh -c "! readelf -d q_htbx.so | grep -Eq 'BIND_NOW|FLAGS.*NOW'"

# --- 2. unit tests, renumbered into this TAP stream
while IFS= read -r line; do
	case $line in
	"ok "*) ok "units: ${line#ok * - }" ;;
	"not ok "*) not_ok "units: ${line#not ok * - }" ;;
	esac
done < <(./test_units)

# --- 3. test_plugin
# parse_is NAME "EXPECTED ATTRS" ARGS...: exit 0 and exactly these attrs
parse_is() {
	local name=$1 want=$2 got; shift 2
	got=$(./test_plugin parse "$@" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then ok "parse: $name"
	else not_ok "parse: $name"; echo "# want: $want"; echo "# got:  $got"; fi
}
# parse_bad NAME "STDERR REGEX" ARGS...: exit 1, message, nothing sent
parse_bad() {
	local name=$1 re=$2 out err rc; shift 2
	err=$(./test_plugin parse "$@" 2>&1 >/dev/null); rc=$?
	out=$(./test_plugin parse "$@" 2>/dev/null)
	if [ $rc -eq 1 ] && [ -z "$out" ] && grep -Eq -- "$re" <<<"$err"; then
		ok "parse rejects: $name"
	else
		not_ok "parse rejects: $name (rc $rc)"; echo "$err$out" | diag
	fi
}
print_is() {
	local name=$1 want=$2 got; shift 2
	got=$(./test_plugin print "$@" | tr '\n' '|')
	if [ "$got" = "$want" ]; then ok "print: $name"
	else not_ok "print: $name"; echo "# want: $want"; echo "# got:  $got"; fi
}

parse_is "qdisc without options sends an empty TCA_OPTIONS" "" qdisc add
parse_is "qdisc default is hex" "DEFCLS=16" qdisc add default 10
parse_is "qdisc default 0x1f" "DEFCLS=31" qdisc add default 0x1f
parse_is "qdisc all options" "DEFCLS=32 R2Q=5 DIRECT_QLEN=100 OFFLOAD" \
	qdisc add default 20 r2q 5 direct_qlen 100 offload
parse_is "qdisc change r2q only" "R2Q=20" qdisc change r2q 20
parse_is "class rate only: no burst computed here" "RATE=1250000" class add rate 10mbit
parse_is "class 100gbit (u64)" "RATE=12500000000" class add rate 100gbit
parse_is "class 8tbit (max)" "RATE=1000000000000" class add rate 8tbit
parse_is "class kbps is kilobytes/s" "RATE=10000" class add rate 10kbps
parse_is "class every option" \
	"RATE=2500 CEIL=187500 BURST=1000 CBURST=15360 PRIO=7 QUANTUM=3000 MTU=9000 MPU=64 OVERHEAD=-4 LINKLAYER=1" \
	class add rate 20kbit ceil 1.5mbit burst 1000 cburst 15k prio 7 \
	quantum 3000 mtu 9000 mpu 64 overhead -4 linklayer atm
parse_is "class buffer/maxburst/cbuffer/cmaxburst aliases" "RATE=1 BURST=2048 CBURST=4096" \
	class add rate 8bit buffer 2k cbuffer 4k
parse_is "class maxburst, cmaxburst" "RATE=1 BURST=3 CBURST=4" \
	class add rate 8bit maxburst 3 cmaxburst 4
parse_is "class burst with /cell (cell ignored)" "RATE=1250000 BURST=1000" \
	class add rate 10mbit burst 1000/8
parse_is "class linklayer adsl = atm" "RATE=1 LINKLAYER=1" class add rate 8 linklayer adsl
parse_is "class linklayer ethernet" "RATE=1 LINKLAYER=0" class add rate 8 linklayer ethernet
parse_is "class change: only what is given" "CEIL=125000" class change ceil 1mbit
parse_is "class change: prio only" "PRIO=2" class change prio 2
parse_is "class replace with rate" "RATE=125" class replace rate 1kbit
parse_bad "class add without rate" '"rate" is required' class add ceil 1mbit
parse_bad "class replace without rate" '"rate" is required' class replace prio 1
parse_bad "rate 0" 'Illegal "rate" value "0"' class add rate 0
parse_bad "rate 9tbit" 'Illegal "rate" value "9tbit".*8Tbit' class add rate 9tbit
parse_bad "rate junk" 'Illegal "rate" value "fast"' class add rate fast
parse_bad "rate without value" 'Illegal "rate".*needs a value' class add rate
parse_bad "rate N% on a device without a speed" 'Illegal "rate".*speed' class add rate 50%
parse_bad "ceil junk" 'Illegal "ceil"' class add rate 1mbit ceil 1xbit
parse_bad "prio 8" 'Illegal "prio" value "8": valid range 0..7' class add rate 1mbit prio 8
parse_bad "prio -1" 'Illegal "prio"' class add rate 1mbit prio -1
parse_bad "burst 0" 'Illegal "burst"' class add rate 1mbit burst 0
parse_bad "burst 5g" 'Illegal "burst"' class add rate 1mbit burst 5g
parse_bad "cburst junk" 'Illegal "cburst"' class add rate 1mbit cburst x
parse_bad "mtu too big" 'Illegal "mtu".*1048576' class add rate 1mbit mtu 2m
parse_bad "mpu too big" 'Illegal "mpu".*65536' class add rate 1mbit mpu 65537
parse_bad "overhead -65" 'Illegal "overhead".*-64..1024' class add rate 1mbit overhead -65
parse_bad "overhead 1025" 'Illegal "overhead"' class add rate 1mbit overhead 1025
parse_bad "quantum 0" 'Illegal "quantum"' class add rate 1mbit quantum 0
parse_bad "linklayer token-ring" 'Illegal "linklayer".*ethernet, atm, adsl' \
	class add rate 1mbit linklayer token-ring
parse_bad "unknown class word" 'What is "slot"\?' class add rate 1mbit slot 3
parse_bad "class help" 'Usage: .*class add .* htbx rate' class add help
parse_bad "unknown qdisc word" 'What is "debug"\?' qdisc add debug 3
parse_bad "r2q 0" 'Illegal "r2q" value "0"' qdisc add r2q 0
parse_bad "default not hex" 'Illegal "default" value "zz"' qdisc add default zz
parse_bad "default > ffff" 'Illegal "default"' qdisc add default 10000
parse_bad "direct_qlen too big" 'Illegal "direct_qlen".*16777216' qdisc add direct_qlen 16777217
parse_bad "qdisc help" 'Usage: .*htbx \[default N\]' qdisc add help
parse_bad "error after good options sends nothing" 'What is "bogus"' \
	class add rate 1mbit ceil 2mbit bogus

print_is "qdisc like tc-htb" "r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000" \
	qdisc R2Q=10 DEFCLS=16 DIRECT_PKTS=0 VERSION=1 DIRECT_QLEN=1000
print_is "qdisc default 0, offload" "r2q 10 default 0 direct_packets_stat 5 direct_qlen 10 offload" \
	qdisc R2Q=10 DEFCLS=0 DIRECT_PKTS=5 DIRECT_QLEN=10 OFFLOAD
print_is "qdisc -d adds ver" "r2q 10 default 0 direct_packets_stat 0 ver 1 direct_qlen 1000" \
	qdisc -d R2Q=10 DEFCLS=0 DIRECT_PKTS=0 VERSION=1 DIRECT_QLEN=1000
print_is "qdisc JSON keys, raw numbers" \
	"r2q=10|default=0x10|direct_packets_stat=7|direct_qlen=1000|" \
	qdisc -j R2Q=10 DEFCLS=16 DIRECT_PKTS=7 VERSION=1 DIRECT_QLEN=1000
CL="RATE=1250000 CEIL=2500000 BURST=15360 CBURST=1600 PRIO=0 QUANTUM=1500 MTU=1600 MPU=0 OVERHEAD=0 LINKLAYER=0"
print_is "class like tc-htb" \
	"prio 0 quantum 1500 rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b level 0 " \
	class $CL LEVEL=0
print_is "inner class: no prio/quantum" \
	"rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b level 1 " class $CL LEVEL=1
print_is "class -d: mtu mpu overhead linklayer" \
	"prio 0 quantum 1500 rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b mtu 1600 mpu 0 overhead 0 linklayer ethernet level 0 " \
	class -d $CL LEVEL=0
print_is "class non-default mtu/mpu/overhead/linklayer shown" \
	"prio 3 quantum 1000 rate 100Gbit ceil 100Gbit burst 12500000b cburst 2Kb mtu 9000 mpu 64 overhead -4 linklayer atm level 0 " \
	class RATE=12500000000 CEIL=12500000000 BURST=12500000 CBURST=2048 PRIO=3 QUANTUM=1000 MTU=9000 MPU=64 OVERHEAD=-4 LINKLAYER=1 LEVEL=0
print_is "class JSON: rate/ceil bytes/s, sizes bytes" \
	"prio=0|quantum=1500|rate=1250000|ceil=2500000|burst=15360|cburst=1600|level=0|" \
	class -j $CL LEVEL=0
print_is "xstats" " lended: 3 borrowed: 4 giants: 1| tokens: 1.2ms ctokens: -5us|" \
	xstats lends=3 borrows=4 giants=1 tokens=1200000 ctokens=-5000
print_is "xstats -d: mode, deficit" \
	" lended: 0 borrowed: 0 giants: 0| tokens: 0ns ctokens: 2.5s mode: cant_send deficit: -30|" \
	xstats -d tokens=0 ctokens=2500000000 mode=0 deficit=-30
print_is "xstats JSON: tokens in ns" \
	"lended=3|borrowed=4|giants=0|tokens=1200000|ctokens=-5000|mode=can_send|deficit=7|" \
	xstats -j -d lends=3 borrows=4 tokens=1200000 ctokens=-5000 mode=2 deficit=7
print_is "xstats too short: nothing printed" "" xstats len=40

# --- 4. inside the real tc
if unshare -n true 2>/dev/null; then
	# tcrun EXPECTED_RC STDERR_REGEX tc-args...
	tcrun() {
		local want=$1 re=$2 err rc; shift 2
		err=$(TC_LIB_DIR=$PWD unshare -n "$TC" "$@" 2>&1 >/dev/null); rc=$?
		if [ $rc -eq "$want" ] && grep -Eq -- "$re" <<<"$err"; then
			ok "tc $*"
		else
			not_ok "tc $* (rc $rc, want $want)"; echo "$err" | head -5 | diag
		fi
	}
	K='Specified qdisc kind is unknown'
	tcrun 2 "$K" qdisc add dev lo root handle 1: htbx
	tcrun 2 "$K" qdisc add dev lo root handle 1: htbx default 10 r2q 5 direct_qlen 100
	tcrun 2 "$K" qdisc add dev lo root handle 1: htbx offload
	tcrun 2 "$K" qdisc replace dev lo root handle 1: htbx default 1
	tcrun 1 '^What is "foo"\?' qdisc add dev lo root handle 1: htbx foo
	tcrun 1 'Illegal "r2q"' qdisc add dev lo root handle 1: htbx r2q 0
	tcrun 1 'Illegal "default"' qdisc add dev lo root handle 1: htbx default 12345
	tcrun 1 'Usage: .*htbx \[default N\]' qdisc add dev lo root htbx help
	# classes: no htbx parent exists on the host, the kernel says ENOENT
	tcrun 2 'RTNETLINK answers: No such file' class add dev lo parent 1: classid 1:1 htbx rate 100gbit ceil 200gbit burst 15k cburst 2k prio 1 quantum 1500 mtu 9000 mpu 64 overhead 4 linklayer atm
	tcrun 2 'RTNETLINK answers: No such file' class change dev lo parent 1: classid 1:1 htbx ceil 1mbit
	tcrun 1 '"rate" is required' class add dev lo parent 1: classid 1:1 htbx ceil 1mbit
	tcrun 1 'Illegal "prio" value "9"' class add dev lo parent 1: classid 1:1 htbx rate 1mbit prio 9
	tcrun 1 'Illegal "rate" value "0"' class add dev lo parent 1: classid 1:1 htbx rate 0
	tcrun 1 'What is "slot"' class add dev lo parent 1: classid 1:1 htbx rate 1mbit slot 1
	tcrun 1 'Usage: .*class add .*htbx rate' class add dev lo parent 1: classid 1:1 htbx help
	# show with no htbx present must still be fine, text and JSON
	check "tc -j qdisc show is valid JSON with the plugin loaded" \
		sh -c "TC_LIB_DIR=$PWD unshare -n $TC -j qdisc show | jq -e . >/dev/null"
else
	n=$((n + 1)); echo "ok $n # SKIP unshare -n not permitted (needs root)"
fi

# --- 5. man page
if command -v groff >/dev/null; then
	warn=$(groff -ww -z -man ../man/tc-htbx.8 2>&1)
	check "man/tc-htbx.8 renders without warnings" test -z "$warn"
	[ -z "$warn" ] || echo "$warn" | head -5 | diag
else
	n=$((n + 1)); echo "ok $n # SKIP groff missing (apt-get install groff-base)"
fi

if command -v man >/dev/null; then
	warn=$(MANWIDTH=80 man -l ../man/tc-htbx.8 2>&1 >/dev/null)
	check "man -l man/tc-htbx.8 prints no warnings" test -z "$warn"
	[ -z "$warn" ] || echo "$warn" | head -5 | diag
fi

# --- 6. make install into a staging directory
stage=$(mktemp -d)
if make -s install DESTDIR="$stage" >/dev/null 2>&1; then
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
	so=$stage/usr/lib/$ma/tc/q_htbx.so
	check "install: q_htbx.so in /usr/lib/$ma/tc, mode 0644" \
		test "$(stat -c %a "$so" 2>/dev/null)" = 644
	check "install: tc-htbx.8 in /usr/share/man/man8" \
		test -f "$stage/usr/share/man/man8/tc-htbx.8"
	check "install: the directory is the one the installed tc searches" \
		sh -c "strings '$TC' | grep -Eqx '/usr/lib/$ma/tc/?'"
else
	not_ok "make install DESTDIR=$stage"
fi
rm -rf "$stage"

echo "$((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
