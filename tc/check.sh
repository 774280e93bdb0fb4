#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - host tests of q_htbx.so (run by `make -C tc check`), TAP.
#
# 1. ABI: every symbol the plugin imports from tc is exported by the
#    installed tc; htbx_qdisc_util is exported; no BIND_NOW.
# 2. Unit tests of the rate/size/time parsers and formatters.
# 3. The plugin driven by test_plugin (tc's helpers, no kernel; built as
#    tc 6.1, 6.15 and 5.10): tc-htb's grammar, every class attribute sent
#    (only the given ones with "partial"), errors send nothing, dumps print
#    as tc-htb prints them in each tc's layout.
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
weak=$(nm -D --undefined-only q_htbx.so | awk '$1 == "w" && $2 !~ /^(_ITM_|__gmon_start__)|@/ { print $2 }')
check "the helpers only some tc versions export are weak imports:" \
	sh -c "echo '$(echo $weak)' | grep -qw tc_print_rate && echo '$(echo $weak)' | grep -qw print_color_size"
echo "# weak: $(echo $weak)"
# other suites' tc (lines/fetch-tc): the strong imports must be there too
# (bullseye's tc is in sbin/, before merged /usr)
for otc in ../build/tc-*/root/usr/sbin/tc ../build/tc-*/root/sbin/tc; do
	[ -f "$otc" ] && [ ! -L "$otc" ] || continue
	oexp=$(nm -D --defined-only "$otc" | awk '{ print $3 }')
	missing=
	for sym in $imports; do grep -qxF "$sym" <<<"$oexp" || missing="$missing $sym"; done
	check "every tc symbol q_htbx.so imports is exported by $(cat "${otc%/root/*}/VERSION" 2>/dev/null) tc ($otc)" \
		test -z "$missing"
	[ -z "$missing" ] || echo "# missing:$missing"
done
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
# print_is NAME WANT [env TP=_510|_615] ARGS...: the plugin's print, newlines as |
print_is() {
	local name=$1 want=$2 got tp=; shift 2
	if [ "$1" = env ]; then tp=${2#TP=}; shift 2; fi
	got=$(./test_plugin$tp print "$@" | tr '\n' '|')
	if [ "$got" = "$want" ]; then ok "print: $name"
	else not_ok "print: $name"; echo "# want: $want"; echo "# got:  $got"; fi
}

# parse_warn NAME "STDERR REGEX" ARGS...: accepted (exit 0), with a warning
parse_warn() {
	local name=$1 re=$2 err rc; shift 2
	err=$(./test_plugin parse "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 0 ] && grep -Eq -- "$re" <<<"$err"; then ok "parse warns: $name"
	else not_ok "parse warns: $name (rc $rc)"; echo "$err" | diag; fi
}
# all KEY=VALUE...: every class attribute, as a full (tc-htb style) request
# sends them, with the defaults where no KEY=VALUE overrides one
all() {
	local k v out= d
	for d in RATE=0 CEIL=0 BURST=0 CBURST=0 PRIO=0 QUANTUM=0 MTU=1600 MPU=0 OVERHEAD=0 LINKLAYER=0; do
		k=${d%%=*} v=${d#*=}
		for o in "$@"; do [ "${o%%=*}" = "$k" ] && v=${o#*=}; done
		out="$out $k=$v"
	done
	echo "${out# }"
}

parse_is "qdisc without options sends an empty TCA_OPTIONS" "" qdisc add
parse_is "qdisc default is hex" "DEFCLS=16" qdisc add default 10
parse_is "qdisc default 0x1f" "DEFCLS=31" qdisc add default 0x1f
parse_is "qdisc 'def 30': tc-htb's abbreviations" "DEFCLS=48" qdisc add def 30
parse_is "qdisc 'd 1' is default" "DEFCLS=1" qdisc add d 1
parse_is "qdisc default 10000 (above 0xffff) is sent, the kernel warns" "DEFCLS=65536" \
	qdisc add default 10000
parse_is "qdisc all options" "DEFCLS=32 R2Q=5 DIRECT_QLEN=100 OFFLOAD" \
	qdisc add default 20 r2q 5 direct_qlen 100 offload
parse_is "qdisc mq (htbx's own: a flag, written out)" "DEFCLS=16 MQ" qdisc add default 10 mq
parse_bad "qdisc 'm' is no abbreviation of mq" 'What is "m"\?' qdisc add m
parse_is "qdisc abbreviations r, di, o" "R2Q=5 DIRECT_QLEN=7 OFFLOAD" qdisc add r 5 di 7 o
parse_is "qdisc r2q 0 is sent, the kernel makes it 1" "R2Q=0" qdisc add r2q 0
parse_is "qdisc change r2q only (a qdisc change is partial)" "R2Q=20" qdisc change r2q 20
parse_is "qdisc debug is taken and ignored" "R2Q=3" qdisc add debug 0123 r2q 3
parse_warn "qdisc debug" 'Warning: htbx: debug is ignored, as by htb' qdisc add debug 3
parse_is "qdisc direct_qlen 4294967295 is tc-htb's 'not given'" "" qdisc add direct_qlen 4294967295
parse_warn "qdisc direct_qlen 4294967295" 'direct_qlen 4294967295 means the default' \
	qdisc add direct_qlen 4294967295
parse_is "qdisc direct_qlen 16777217 (any u32)" "DIRECT_QLEN=16777217" qdisc add direct_qlen 16777217
parse_bad "unknown qdisc word" 'What is "foo"\?' qdisc add foo 3
parse_bad "default not hex" 'Illegal "default" value "zz"' qdisc add default zz
parse_bad "r2q -1" 'Illegal "r2q"' qdisc add r2q -1
parse_bad "r2q 4294967296" 'Illegal "r2q"' qdisc add r2q 4294967296
parse_bad "qdisc help" 'Usage: .*htbx \[default N\]' qdisc add help

parse_is "class rate only: every attribute, defaults for the rest" "$(all RATE=1250000)" \
	class add rate 10mbit
parse_is "class change sends every attribute (tc-htb's change)" "$(all RATE=250000)" \
	class change rate 2mbit
parse_is "class replace sends every attribute" "$(all RATE=125)" class replace rate 1kbit
parse_is "class 100gbit (u64)" "$(all RATE=12500000000)" class add rate 100gbit
parse_is "class 9tbit is sent, the kernel counts it as 8tbit" "$(all RATE=1125000000000)" \
	class add rate 9tbit
parse_is "class kbps is kilobytes/s" "$(all RATE=10000)" class add rate 10kbps
parse_is "class rate 1e6 (tc reads rates with strtod)" "$(all RATE=125000)" class add rate 1e6
parse_is "class rate 1.5mbit" "$(all RATE=187500)" class add rate 1.5mbit
parse_is "class every option" \
	"$(all RATE=2500 CEIL=187500 BURST=1000 CBURST=15360 PRIO=7 QUANTUM=3000 MTU=9000 MPU=64 OVERHEAD=4 LINKLAYER=1)" \
	class add rate 20kbit ceil 1.5mbit burst 1000 cburst 15k prio 7 \
	quantum 3000 mtu 9000 mpu 64 overhead 4 linklayer atm
parse_is "class abbreviations p m mp o l q b c (tc-htb's order)" \
	"$(all RATE=125000 PRIO=3 MTU=9000 MPU=64 OVERHEAD=4 LINKLAYER=1 QUANTUM=2000 BURST=10240 CBURST=20480)" \
	class add rate 1mbit p 3 m 9000 mp 64 o 4 l a q 2000 b 10k c 20k
parse_is "class buffer/maxburst/cbuffer/cmaxburst aliases" "$(all RATE=1 BURST=2048 CBURST=4096)" \
	class add rate 8bit buffer 2k cbuffer 4k
parse_is "class maxburst, cmaxburst" "$(all RATE=1 BURST=3 CBURST=4)" \
	class add rate 8bit maxburst 3 cmaxburst 4
parse_is "class burst with /cell (cell ignored)" "$(all RATE=1250000 BURST=1000)" \
	class add rate 10mbit burst 1000/8
parse_is "class burst 1.9 is 1 byte, as tc cuts it" "$(all RATE=1250000 BURST=1)" \
	class add rate 10mbit burst 1.9
parse_is "class linklayer adsl = atm" "$(all RATE=1 LINKLAYER=1)" class add rate 8 linklayer adsl
parse_is "class linklayer e(thernet)" "$(all RATE=1 LINKLAYER=0)" class add rate 8 linklayer e
parse_is "class prio 8 is sent, the kernel counts it as 7" "$(all RATE=125000 PRIO=8)" \
	class add rate 1mbit prio 8
parse_is "class prio 4294967295" "$(all RATE=125000 PRIO=4294967295)" class add rate 1mbit prio 4294967295
parse_is "class ceil below rate is sent (as htb)" "$(all RATE=250000 CEIL=125000)" \
	class add rate 2mbit ceil 1mbit
parse_is "class overhead 65535 (tc-htb's u16)" "$(all RATE=125000 OVERHEAD=65535)" \
	class add rate 1mbit overhead 65535
parse_is "class overhead -4 (htbx only)" "$(all RATE=125000 OVERHEAD=-4)" class add rate 1mbit overhead -4
parse_is "class mpu 65535" "$(all RATE=125000 MPU=65535)" class add rate 1mbit mpu 65535
parse_is "class mtu 2m (any u32; the kernel caps it)" "$(all RATE=125000 MTU=2097152)" \
	class add rate 1mbit mtu 2097152
parse_is "class burst 0, cburst 0, quantum 0, ceil 0, mtu 0 are the defaults" "$(all RATE=125000 MTU=0)" \
	class add rate 1mbit burst 0 cburst 0 quantum 0 ceil 0 mtu 0
parse_warn "class burst 0" 'Warning: htbx: burst 0 means the default burst, as in htb' \
	class add rate 1mbit burst 0
parse_warn "class quantum 0" 'Warning: htbx: quantum 0 means rate/r2q' class add rate 1mbit quantum 0
parse_warn "class ceil 0" 'Warning: htbx: ceil 0 means ceil = rate' class add rate 1mbit ceil 0
parse_is "class a zero rate, then a rate (tc-htb allows it)" "$(all RATE=125000)" \
	class add rate 7bit rate 1mbit
parse_is "class change partial: only what is given" "CEIL=125000" class change partial ceil 1mbit
parse_is "class change partial prio only" "PRIO=2" class change prio 2 partial
parse_is "class add partial still sends only what is given" "RATE=125000 PRIO=1" \
	class add partial rate 1mbit prio 1
parse_bad "class add without rate" '"rate" is required' class add ceil 1mbit
parse_bad "class change without rate (as tc-htb)" '"rate" is required' class change ceil 1mbit
parse_bad "class replace without rate" '"rate" is required' class replace prio 1
parse_bad "class add partial without rate" '"rate" is required' class add partial prio 1
parse_bad "rate 0" '"rate" is required' class add rate 0
parse_bad "rate 7bit is 0 bytes/s: no rate" '"rate" is required' class add rate 7bit
parse_bad "double rate" 'Double "rate" spec' class add rate 1mbit rate 2mbit
parse_bad "double ceil" 'Double "ceil" spec' class add rate 1mbit ceil 2mbit ceil 3mbit
parse_bad "rate junk" 'Illegal "rate" value "fast"' class add rate fast
parse_bad "rate -1mbit" 'Illegal "rate" value "-1mbit"' class add rate -1mbit
parse_bad "rate inf" 'Illegal "rate" value "inf"' class add rate inf
parse_bad "rate 10mbits" 'Illegal "rate"' class add rate 10mbits
parse_bad "rate without value" 'Illegal "rate".*needs a value' class add rate
parse_bad "rate N% on a device without a speed" 'Illegal "rate".*speed' class add rate 50%
parse_bad "rate 101%" 'Illegal "rate".*0..100%' class add rate 101%
parse_bad "ceil junk" 'Illegal "ceil"' class add rate 1mbit ceil 1xbit
parse_bad "prio -1" 'Illegal "prio"' class add rate 1mbit prio -1
parse_bad "prio 1x" 'Illegal "prio"' class add rate 1mbit prio 1x
parse_bad "burst 4g (beyond 32 bits)" 'Illegal "burst"' class add rate 1mbit burst 4g
parse_bad "burst 100/3 (cell: a power of two)" 'Illegal "burst"' class add rate 1mbit burst 100/3
parse_bad "cburst junk" 'Illegal "cburst"' class add rate 1mbit cburst x
parse_bad "buffer -5" 'Illegal "buffer"' class add rate 1mbit buffer -5
parse_bad "mpu 65536 (u16)" 'Illegal "mpu".*65535' class add rate 1mbit mpu 65536
parse_bad "overhead -65" 'Illegal "overhead".*-64..65535' class add rate 1mbit overhead -65
parse_bad "overhead 65536" 'Illegal "overhead"' class add rate 1mbit overhead 65536
parse_bad "mtu 4294967296" 'Illegal "mtu"' class add rate 1mbit mtu 4294967296
parse_bad "linklayer token-ring" 'Illegal "linklayer".*ethernet, atm, adsl' \
	class add rate 1mbit linklayer token-ring
parse_bad "unknown class word" 'What is "slot"\?' class add rate 1mbit slot 3
parse_bad "'r' is no abbreviation (rate is matched exactly)" 'What is "r"\?' class add r 1mbit
parse_bad "'ce' is no abbreviation (ceil is matched exactly)" 'What is "ce"\?' class add rate 1mbit ce 2mbit
parse_bad "class help" 'Usage: .*class add.* htbx rate' class add help
parse_bad "error after good options sends nothing" 'What is "bogus"' \
	class add rate 1mbit ceil 2mbit bogus

Q="R2Q=10 DEFCLS=16 DIRECT_PKTS=0 VERSION=1 DIRECT_QLEN=1000 BUDGET_HITS=4"
print_is "qdisc like tc-htb" "r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000" qdisc $Q
print_is "qdisc default 0, offload" "r2q 10 default 0 direct_packets_stat 5 direct_qlen 10 offload" \
	qdisc R2Q=10 DEFCLS=0 DIRECT_PKTS=5 DIRECT_QLEN=10 OFFLOAD
print_is "qdisc mq, after htb's fields" "r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000 mq" \
	qdisc R2Q=10 DEFCLS=16 DIRECT_PKTS=0 DIRECT_QLEN=1000 MQ
print_is "qdisc -d: ver, then htbx's budget_hits" \
	"r2q 10 default 0x10 direct_packets_stat 0 ver 1 direct_qlen 1000 budget_hits 4" qdisc -d $Q
print_is "qdisc r2q is printed as htb prints it (%d)" \
	"r2q -1 default 0x10000 direct_packets_stat 0 direct_qlen 1" \
	qdisc R2Q=4294967295 DEFCLS=65536 DIRECT_PKTS=0 DIRECT_QLEN=1
print_is "qdisc JSON: htb's keys, then budget_hits" \
	"r2q=10|default=0x10|direct_packets_stat=0|direct_qlen=1000|budget_hits=4|" qdisc -j $Q
print_is "qdisc xstats of an older sch_htbx: nothing" "" qxstats

CL="RATE=1250000 CEIL=2500000 BURST=15360 CBURST=1600 PRIO=0 QUANTUM=1500 MTU=1600 MPU=0 OVERHEAD=0 LINKLAYER=0"
print_is "class like tc-htb 6.1: no quantum, no level without -d" \
	"prio 0 rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b " class $CL LEVEL=0
print_is "inner class: no prio" "rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b " class $CL LEVEL=1
print_is "class -d like tc-htb 6.1, then htbx's mtu" \
	"prio 0 quantum 1500 rate 10Mbit ceil 20Mbit linklayer ethernet burst 15Kb/1 mpu 0b cburst 1600b/1 mpu 0b level 0 mtu 1600 " \
	class -d $CL LEVEL=0
print_is "inner class -d: no prio, no quantum" \
	"rate 10Mbit ceil 20Mbit linklayer ethernet burst 15Kb/1 mpu 0b cburst 1600b/1 mpu 0b level 7 mtu 1600 " \
	class -d $CL LEVEL=7
print_is "class overhead after rate, linklayer atm after ceil (as htb)" \
	"prio 3 rate 100Gbit overhead 4 ceil 100Gbit linklayer atm burst 12500000b cburst 2Kb " \
	class RATE=12500000000 CEIL=12500000000 BURST=12500000 CBURST=2048 PRIO=3 QUANTUM=1000 MTU=9000 MPU=64 OVERHEAD=4 LINKLAYER=1 LEVEL=0
print_is "class negative overhead (htbx only)" \
	"prio 0 rate 10Mbit overhead -4 ceil 20Mbit burst 15Kb cburst 1600b " \
	class RATE=1250000 CEIL=2500000 BURST=15360 CBURST=1600 OVERHEAD=-4 LEVEL=0
print_is "class quantum and prio printed as htb (%d)" \
	"prio 7 quantum -1 rate 10Mbit ceil 20Mbit linklayer ethernet burst 15Kb/1 mpu 64b cburst 1600b/1 mpu 64b level 0 mtu 1600 " \
	class -d RATE=1250000 CEIL=2500000 BURST=15360 CBURST=1600 PRIO=7 QUANTUM=4294967295 MPU=64 LEVEL=0
print_is "class -r: htb's raw buffer/cbuffer ticks" \
	"prio 0 rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b buffer [0002ee00] cbuffer [00002710] " \
	class -r $CL LEVEL=0
print_is "class -i: tc's IEC units" \
	"prio 0 rate 9765Kibit ceil 19531Kibit burst 15Kb cburst 1600b " class -i $CL LEVEL=0
print_is "class JSON: htb's keys, raw numbers, then mtu" \
	"prio=0|rate=1250000|ceil=2500000|burst=15360|cburst=1600|mtu=1600|" class -j $CL LEVEL=0
print_is "class JSON -d: htb's keys" \
	"prio=0|quantum=1500|rate=1250000|ceil=2500000|linklayer=ethernet|burst=15360|burst_cell=1|mpu_rate=0|cburst=1600|cburst_cell=1|mpu_ceil=0|level=0|mtu=1600|" \
	class -j -d $CL LEVEL=0
# the same dumps under tc 6.15 (6.2 layout) and tc 5.10 (no helpers)
print_is "tc 6.15: 'cburst %s' without a trailing blank" \
	"prio 0 rate 10Mbit ceil 20Mbit burst 15Kb cburst 1600b" env TP=_615 class $CL LEVEL=0
print_is "tc 6.15 -d: 'burst %s/%u' then 'mpu', no blank" \
	"prio 0 quantum 1500 rate 10Mbit ceil 20Mbit linklayer ethernet burst 15Kb/1mpu 0b cburst 1600b/1mpu 0b level 0 mtu 1600 " \
	env TP=_615 class -d $CL LEVEL=0
for args in "class $CL LEVEL=0" "class -d $CL LEVEL=7" "class -i $CL LEVEL=0" \
	"class RATE=12500000000 CEIL=1000000000000 BURST=1048000 CBURST=1048576 MPU=64 OVERHEAD=4 LINKLAYER=1 LEVEL=0" \
	"class -d RATE=1 CEIL=125 BURST=1023 CBURST=1025 LEVEL=0" "xstats lends=1 tokens=-64 ctokens=63" \
	"xstats -d tokens=9000000000000 ctokens=-9000000000000 deficit=-3 mode=1"; do
	# shellcheck disable=SC2086
	a=$(./test_plugin print $args | od -c) b=$(./test_plugin_510 print $args | od -c)
	check "tc 5.10 (htbx's formatting) prints what tc 6.1's helpers print: $args" test "$a" = "$b"
done
t=$(HTBX_TRACE=1 ./test_plugin print class -d $CL LEVEL=0 2>&1 >/dev/null)
check "tc 6.1: rates through tc_print_rate, sizes through print_color_size" \
	test "$t" = "[tc_print_rate][tc_print_rate][print_color_size][print_color_size][print_color_size][print_color_size]"
t=$(HTBX_TRACE=1 ./test_plugin_510 print class -d $CL LEVEL=0 2>&1 >/dev/null)
check "tc 5.10: no helper called (weak symbols are NULL)" test -z "$t"

print_is "xstats like tc-htb: tokens in 64 ns ticks" \
	" lended: 3 borrowed: 4 giants: 1| tokens: 18750 ctokens: -79|" \
	xstats lends=3 borrows=4 giants=1 tokens=1200000 ctokens=-5000
print_is "xstats ticks clamped to int32, as htb" \
	" lended: 0 borrowed: 0 giants: 0| tokens: 2147483647 ctokens: -2147483648|" \
	xstats tokens=1000000000000000000 ctokens=-1000000000000000000
print_is "xstats -d: htbx's third line" \
	" lended: 0 borrowed: 0 giants: 0| tokens: 0 ctokens: 39062500| mode: cant_send deficit: -30 tokens_ns: 0 ctokens_ns: 2500000000|" \
	xstats -d tokens=0 ctokens=2500000000 mode=0 deficit=-30
print_is "xstats JSON: htb's keys (ticks), then htbx's (ns)" \
	"lended=3|borrowed=4|giants=0|tokens=18750|ctokens=-79|mode=can_send|deficit=7|tokens_ns=1200000|ctokens_ns=-5000|" \
	xstats -j lends=3 borrows=4 tokens=1200000 ctokens=-5000 mode=2 deficit=7
print_is "tc 6.15 xstats: the same text" \
	" lended: 3 borrowed: 4 giants: 1| tokens: 18750 ctokens: -79|" \
	env TP=_615 xstats lends=3 borrows=4 giants=1 tokens=1200000 ctokens=-5000
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
	tcrun 2 "$K" qdisc add dev lo root handle 1: htbx r2q 0
	tcrun 2 "$K" qdisc add dev lo root handle 1: htbx def 12345 debug 1
	tcrun 1 '^What is "foo"\?' qdisc add dev lo root handle 1: htbx foo
	tcrun 1 'Illegal "r2q"' qdisc add dev lo root handle 1: htbx r2q x
	tcrun 1 'Illegal "default"' qdisc add dev lo root handle 1: htbx default 123456789
	tcrun 1 'Usage: .*htbx \[default N\]' qdisc add dev lo root htbx help
	# classes: no htbx parent exists on the host, the kernel says ENOENT
	tcrun 2 'RTNETLINK answers: No such file' class add dev lo parent 1: classid 1:1 htbx rate 100gbit ceil 200gbit burst 15k cburst 2k prio 1 quantum 1500 mtu 9000 mpu 64 overhead 4 linklayer atm
	tcrun 2 'RTNETLINK answers: No such file' class change dev lo parent 1: classid 1:1 htbx rate 1mbit
	tcrun 2 'RTNETLINK answers: No such file' class change dev lo parent 1: classid 1:1 htbx partial ceil 1mbit
	tcrun 2 'RTNETLINK answers: No such file' class add dev lo parent 1: classid 1:1 htbx rate 1mbit prio 9
	tcrun 1 '"rate" is required' class add dev lo parent 1: classid 1:1 htbx ceil 1mbit
	tcrun 1 '"rate" is required' class change dev lo parent 1: classid 1:1 htbx ceil 1mbit
	tcrun 1 '"rate" is required' class add dev lo parent 1: classid 1:1 htbx rate 0
	tcrun 1 'Illegal "mpu"' class add dev lo parent 1: classid 1:1 htbx rate 1mbit mpu 65536
	tcrun 1 'What is "slot"' class add dev lo parent 1: classid 1:1 htbx rate 1mbit slot 1
	tcrun 1 'Usage: .*class add.*htbx rate' class add dev lo parent 1: classid 1:1 htbx help
	# another suite's tc (lines/fetch-tc) loads the plugin as well
	for otc in ../build/tc-*/tc; do
		[ -x "$otc" ] || continue
		err=$(TC_LIB_DIR=$PWD unshare -n "$otc" qdisc add dev lo root handle 1: htbx def 10 2>&1)
		check "$("$otc" -V 2>&1 | head -n 1): the plugin loads and parses" \
			grep -q "$K" <<<"$err"
		err=$(TC_LIB_DIR=$PWD unshare -n "$otc" class add dev lo parent 1: classid 1:1 htbx rate 1mbit prio 9 2>&1)
		check "$("$otc" -V 2>&1 | head -n 1): a class reaches the kernel" \
			grep -q 'No such file' <<<"$err"
	done
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
