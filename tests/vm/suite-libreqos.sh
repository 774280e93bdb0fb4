# vm-args: --icount --mem 5G --timeout 1500
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2086
#
# suite-libreqos.sh - LibreQoS's shapes (issue 31): the batch files of
# examples/libreqos-shapes (sites, access points, circuits with a leaf
# each, a flower filter per circuit on clsact egress that sets its TX
# queue and its class) loaded with `tc -f -b` on a veth with 4 TX queues
# (lq0 in NS_A; NS_B takes 10.64.0.0/10 as local addresses), in the
# generator's three layouts:
#   htb   mq + one htb per TX queue (what LibreQoS loads), each queue with
#         its own copy of every site and access point, each copy with the
#         full ceiling;
#   htbx  the same with htbx per TX queue;
#   mq    one `htbx ... mq` root, its site and AP classes over all queues.
# Each layout with fq_codel leaves and with cake leaves (10 sites of 4
# APs, circuits rate 1mbit ceil 2mbit, sites ceil 4mbit). For each:
#   1. the load: 1,000 circuits (cake: as many as fit the guest's memory,
#      see below), tc's exit status 0 and no failed line (tc's warnings,
#      the quantum of the 1gbit uplink clamped, counted, not failed); the
#      classes, leaves and filters counted; the load time (guest clock,
#      --icount: it repeats) and the memory it took (MemAvailable, Slab,
#      VmallocUsed) printed, htb beside htbx;
#   2. traffic: UDP from NS_A to eight circuits, each offered more than its
#      ceiling, one htbx-traffic sender per circuit address, rates from the
#      receiver's per-second series (a window of 15 s from the first
#      packet; each figure the mean of three whole seconds):
#      - circuits 8, 13, 18, 23 (sites 2-5, one a queue): each within 1 %
#        of its 2mbit ceiling (seconds 1-3);
#      - circuits 4, 5, 6, 7: one site (1), four APs, one a queue, 3mbit
#        each offered against a 4mbit site: mq holds the site to 4mbit
#        within 1 %; htb and htbx per queue pass more (each queue's copy
#        of the site has the full ceiling; 8 mbit), asserted above 4 and
#        printed: the point of the comparison;
#   3. LibreQoS's incremental update, live under that traffic, each batch
#      through `tc -f -b` with exit 0 and no failed line: 4.3 s in,
#      circuits 8 and 13 changed to rate 1mbit ceil 3mbit, and circuits
#      18 and 23 removed (filter, leaf, class); their classes, leaves and
#      filters are gone from tc's dumps; their packets land in the
#      default class (X:2: its packet count grows by at least 95 % of
#      what they are offered between the remove and the add), pass
#      unshaped (5mbit, what they are offered, within 2 %, seconds 6-8),
#      and no root counts a direct packet; 8 and 13 at their new 3mbit
#      ceiling within 1 %; 9.3 s in, 18 and 23 added again: back at 2mbit
#      within 1 % (seconds 11-13), 8 and 13 still at 3;
#   4. the tree deleted (root and clsact), nothing left; the memory given
#      back printed.
# At the end the namespaces go and sch_htbx unloads.
#
# Memory: a cake instance allocates its 8 tins whatever their use (690
# KB, which kvmalloc takes as 1 MB of contiguous pages: 1.08 MB a circuit
# measured on 6.12 and 7.3, in Slab), and in mq mode every class has a
# copy of its leaf on each TX queue: 1,000 circuits of cake take 1.07 GB
# in htb and htbx (a cake a circuit) and 4.17 GB in mq (four). So the
# suite boots alone, with 5 GB (vm-args). In a smaller guest each load
# takes as many circuits as leave 200 MB of MemAvailable (a multiple of
# 10, the same for htb and htbx), and a layout where fewer than 30 fit is
# a counted skip.
# Guest time: about 105 s.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

panic_on_hang
if ! modprobe sch_htbx; then
	fail "modprobe sch_htbx"
	exit 0
fi
for m in sch_htb sch_fq_codel sch_cake cls_flower act_skbedit; do
	load_qdisc_mod "$m" || echo "# $m: $LOAD_ERR"
done

GEN=$HTBX_TOP/examples/libreqos-shapes
TMP=/tmp/htbx-lq.$$
mkdir -p "$TMP"
DEV=lq0 PEER=lqb
Q=4 SITES=10 APS=4
# minors: 1 uplink, 2 default, 3.. sites, then APs, then circuits
CIRC_BASE=$((3 + SITES + SITES * APS))
TREE=$((2 + SITES + SITES * APS))	# classes of one tree without circuits
GOPTS="-d $DEV -q $Q -S $SITES -A $APS -r 1mbit -c 2mbit -s 4mbit"
CEIL=2 SITE_CEIL=4 NEW_CEIL=3
SITE_CIRC="4 5 6 7"	# site 1, APs 4-7, queues 0-3
FLOW_CIRC="8 13 18 23"	# sites 2-5, queues 0-3
CHG="8 13" RM="18 23"
SITE_OFFER=3mbit FLOW_OFFER=5mbit
PORT0=7000

NS_A=htbx-lq-a-$$ NS_B=htbx-lq-b-$$
export NS_A NS_B
netns_trap
for ns in "$NS_A" "$NS_B"; do
	echo_cmd "$IP" netns add "$ns" || { fail "netns add $ns"; exit 0; }
	HTBX_NETNS="$HTBX_NETNS $ns"
	in_ns "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6;
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
	in_ns "$ns" "$IP" link set lo up
done
if ! veth_mq_pair "$NS_A" "$DEV" 198.18.1.1 "$NS_B" "$PEER" 198.18.1.2 ||
   ! in_a "$IP" route add 10.64.0.0/10 via 198.18.1.2 dev "$DEV" ||
   ! in_b "$IP" route add local 10.64.0.0/10 dev lo; then
	fail "libreqos: a veth with 4 TX queues, 10.64.0.0/10 routed to NS_B"
	exit 0
fi

# ------------------------------------------------------------- helpers

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
uptime_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }
# shellcheck disable=SC2317
uptime_ge() { awk -v t="$1" '{ exit !($1 >= t) }' /proc/uptime; }
secs() { awk -v c="$1" 'BEGIN { printf "%.2f", c / 100 }'; }
addr() { echo "10.$((64 + $1 / 65536)).$(($1 / 256 % 256)).$(($1 % 256))"; }
hex() { printf '%x' "$1"; }
# major LAYOUT I: the qdisc that holds circuit I; cminor I: its class minor
major() { if [ "$1" = mq ]; then echo 1; else hex $(($2 % Q + 1)); fi; }
cminor() { hex $((CIRC_BASE + $1)); }
majors() { if [ "$1" = mq ]; then echo 1; else echo 1 2 3 4; fi; }

gen() { "$GEN" -l "$LAY" -L "$LEAF" -n "$N" $GOPTS "$@"; }

# batch WHAT FILE: tc -f -b FILE in NS_A; BATCH_WARN the warnings it
# printed; status 0 when tc exited 0 and printed nothing but warnings.
batch() {
	in_a "$TC" -f -b "$2" >"$TMP/batch.out" 2>&1
	_rc=$?
	BATCH_WARN=$(grep -c '^Warning' "$TMP/batch.out")
	_bad=$(grep -v '^Warning' "$TMP/batch.out" | head -n 5)
	if [ $_rc -eq 0 ] && [ -z "$_bad" ]; then
		return 0
	fi
	BATCH_ERR="exit $_rc: $_bad"
	return 1
}

# count_classes, count_leaves, count_filters: on $DEV now
count_classes() { tc_a class show dev "$DEV" | grep -c "^class $KIND "; }
count_leaves() { tc_a qdisc show dev "$DEV" | grep -c "^qdisc $LEAF "; }
count_filters() { tc_a filter show dev "$DEV" egress | grep -c 'handle 0x'; }

# pkts_minor2: packets of the default classes (X:2 of every tree)
pkts_minor2() {
	_s=0
	for _m in $(majors "$LAY"); do
		_p=$(tc_a -s class show dev "$DEV" classid "$_m:2" |
			sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1)
		_s=$((_s + ${_p:-0}))
	done
	echo "$_s"
}
# direct_pkts: direct_packets_stat summed over the roots of the layout
direct_pkts() {
	tc_a -s qdisc show dev "$DEV" |
		awk '/direct_packets_stat/ { for (i = 1; i < NF; i++) if ($i == "direct_packets_stat") s += $(i + 1) }
			END { print s + 0 }'
}

# mean PORT FROM TO: mean mbit of seconds FROM..TO of PORT in $JSON
mean() {
	_sum=0
	_i=$2
	while [ "$_i" -le "$3" ]; do
		_sum=$(awk -v a="$_sum" -v b="$(flow_field "$JSON" "$1" per_second "$_i")" 'BEGIN { print a + b }')
		_i=$((_i + 1))
	done
	awk -v s="$_sum" -v n=$(($3 - $2 + 1)) 'BEGIN { printf "%.3f\n", s / n }'
}
sum_means() {	# FROM TO CIRCUIT...
	_f=$1 _t=$2
	shift 2
	_tot=0
	for _c in "$@"; do
		_tot=$(awk -v a="$_tot" -v b="$(mean $((PORT0 + _c)) "$_f" "$_t")" 'BEGIN { print a + b }')
	done
	echo "$_tot"
}
near() { within "$1" "$2" "$3"; }
v() { eval "echo \"\${$1:--}\""; }	# v NAME: NAME's value, - when unset

# circuits_near DESC FROM TO EXPECT PCT CIRCUIT...: one TAP line
circuits_near() {
	_d=$1 _f=$2 _t=$3 _e=$4 _p=$5
	shift 5
	_line='' _okc=1
	for _c in "$@"; do
		_m=$(mean $((PORT0 + _c)) "$_f" "$_t")
		_line="$_line $_c:$_m"
		near "$_m" "$_e" "$_p" || _okc=0
	done
	if [ $_okc = 1 ]; then
		ok "$TAG: $_d: circuits$_line mbit (want $_e within $_p %)"
	else
		fail "$TAG: $_d" "circuits$_line mbit, want $_e within $_p %"
	fi
}

# ------------------------------------------------------------ one load

# load LAYOUT LEAF N: build N circuits, load them, count them.
load() {
	LAY=$1 LEAF=$2 N=$3 TAG="$1/$2"
	KIND=htbx
	[ "$LAY" = htb ] && KIND=htb
	gen build >"$TMP/build" || { fail "$TAG: libreqos-shapes build"; return 1; }
	m0=$(meminfo MemAvailable) s0=$(meminfo Slab) v0=$(meminfo VmallocUsed)
	t0=$(uptime_cs)
	batch load "$TMP/build"
	_brc=$?
	t1=$(uptime_cs)
	m1=$(meminfo MemAvailable) s1=$(meminfo Slab) v1=$(meminfo VmallocUsed)
	LOAD_T=$(secs $((t1 - t0)))
	eval "load_${LAY}_$LEAF=\$LOAD_T n_${LAY}_$LEAF=\$N"
	MEM_MB=$(((m0 - m1) / 1024))
	eval "mem_${LAY}_$LEAF=\$MEM_MB"
	if [ $_brc -ne 0 ]; then
		fail "$TAG: load of $N circuits ($(wc -l <"$TMP/build") lines)" "$BATCH_ERR"
		return 1
	fi
	ok "$TAG: $N circuits loaded, $(wc -l <"$TMP/build") lines through tc -f -b, exit 0, no failed line ($BATCH_WARN warnings), $LOAD_T s"
	echo "# $TAG: memory: MemAvailable -$MEM_MB MB, Slab +$(((s1 - s0) / 1024)) MB, VmallocUsed +$(((v1 - v0) / 1024)) MB"
	_trees=1
	[ "$LAY" = mq ] || _trees=$Q
	_ec=$((_trees * TREE + N)) _el=$((_trees + N))
	_c=$(count_classes) _l=$(count_leaves) _f=$(count_filters)
	if [ "$_c" = "$_ec" ] && [ "$_l" = "$_el" ] && [ "$_f" = "$N" ]; then
		ok "$TAG: $_c $KIND classes, $_l $LEAF leaves, $_f filters"
	else
		fail "$TAG: classes, leaves, filters" "$_c classes (want $_ec), $_l leaves (want $_el), $_f filters (want $N)"
	fi
	return 0
}

# unload: delete the tree and clsact; the memory back within 10 MB
unload() {
	m0=$(meminfo MemAvailable)
	t0=$(uptime_cs)
	tc_a qdisc del dev "$DEV" root
	_r1=$?
	tc_a qdisc del dev "$DEV" clsact
	_r2=$?
	t1=$(uptime_cs)
	m1=$(meminfo MemAvailable)
	_left=$(tc_a class show dev "$DEV" | grep -c .)
	if [ $_r1 = 0 ] && [ $_r2 = 0 ] && [ "$_left" = 0 ]; then
		ok "$TAG: tree deleted in $(secs $((t1 - t0))) s, MemAvailable +$(((m1 - m0) / 1024)) MB (the load took $MEM_MB)"
	else
		fail "$TAG: tree deleted" "root $_r1, clsact $_r2, $_left classes left"
	fi
}

# ------------------------------------------------------- traffic, reload

# run: the traffic and the live update on the loaded tree
run() {
	ports=
	for c in $SITE_CIRC $FLOW_CIRC; do
		ports="$ports $((PORT0 + c))"
	done
	JSON=$TMP/$LAY-$LEAF.json
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv -j -t 15 -w 0 $ports >"$JSON" 2>"$TMP/recv.err"
	rpid=$BG_PID
	HTBX_PIDS="$HTBX_PIDS $rpid"
	wait_until 10 port_listening "$NS_B" $((PORT0 + 23)) || echo "# receiver not listening"
	dpkt0=$(direct_pkts)
	T0=$(awk '{ print $1 }' /proc/uptime)
	spids=
	for c in $SITE_CIRC $FLOW_CIRC; do
		r=$FLOW_OFFER
		case " $SITE_CIRC " in *" $c "*) r=$SITE_OFFER ;; esac
		bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$(addr "$c")" -t 17 -s 1400 \
			"$((PORT0 + c)),rate=$r" >"$TMP/send.$c" 2>&1
		spids="$spids $BG_PID"
	done
	HTBX_PIDS="$HTBX_PIDS $spids"

	# 4.3 s in: change 8 and 13, remove 18 and 23
	wait_until 30 uptime_ge "$(awk -v t="$T0" 'BEGIN { print t + 4.3 }')"
	: >"$TMP/chg"
	for c in $CHG; do
		gen change "$c" "$c" 1mbit "${NEW_CEIL}mbit" >>"$TMP/chg"
	done
	: >"$TMP/rm"
	for c in $RM; do
		gen remove "$c" "$c" >>"$TMP/rm"
	done
	chg_ok=0 rm_ok=0
	batch change "$TMP/chg" && chg_ok=1
	[ $chg_ok = 1 ] || chg_err=$BATCH_ERR
	p2a=$(pkts_minor2)
	batch remove "$TMP/rm" && rm_ok=1
	[ $rm_ok = 1 ] || rm_err=$BATCH_ERR
	tr=$(awk '{ print $1 }' /proc/uptime)
	# what tc shows of the removed circuits
	cls=$(tc_a class show dev "$DEV")
	qds=$(tc_a qdisc show dev "$DEV")
	fls=$(tc_a filter show dev "$DEV" egress)
	gone=
	for c in $RM; do
		id=$(major "$LAY" "$c"):$(cminor "$c")
		printf '%s\n' "$cls" | grep -q "^class $KIND $id " && gone="$gone class $id;"
		printf '%s\n' "$qds" | grep -q " parent $id " && gone="$gone leaf of $id;"
		printf '%s\n' "$fls" | grep -q "handle 0x$(hex $((c + 1))) " && gone="$gone filter $((c + 1));"
	done
	ncls=$(printf '%s\n' "$cls" | grep -c "^class $KIND ")

	# 9.3 s in: add 18 and 23 again
	wait_until 30 uptime_ge "$(awk -v t="$T0" 'BEGIN { print t + 9.3 }')"
	: >"$TMP/add"
	for c in $RM; do
		gen add "$c" "$c" >>"$TMP/add"
	done
	p2b=$(pkts_minor2)
	ta=$(awk '{ print $1 }' /proc/uptime)
	add_ok=0
	batch add "$TMP/add" && add_ok=1
	[ $add_ok = 1 ] || add_err=$BATCH_ERR
	ncls2=$(count_classes)

	wait "$rpid"
	for p in $spids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	HTBX_PIDS=
	dpkt1=$(direct_pkts)
	if [ ! -s "$JSON" ]; then
		fail "$TAG: traffic: no result" "$(head -c 300 "$TMP/recv.err")"
		return
	fi

	# before the update: seconds 1-3
	circuits_near "one a site, one a queue, each at its ${CEIL}mbit ceiling" 1 3 "$CEIL" 1 $FLOW_CIRC
	site=$(sum_means 1 3 $SITE_CIRC)
	eval "site_${LAY}_$LEAF=\$site"
	each=
	for c in $SITE_CIRC; do
		each="$each $(mean $((PORT0 + c)) 1 3)"
	done
	if [ "$LAY" = mq ]; then
		if near "$site" "$SITE_CEIL" 1; then
			ok "$TAG: site 1's ${SITE_CEIL}mbit ceiling over 4 queues held: $site mbit (1 %; circuits$each)"
		else
			fail "$TAG: site 1's ${SITE_CEIL}mbit ceiling over 4 queues held" "$site mbit (circuits$each), want $SITE_CEIL within 1 %"
		fi
	elif awk -v s="$site" -v c="$SITE_CEIL" 'BEGIN { exit !(s > c * 1.05) }'; then
		ok "$TAG: site 1's ${SITE_CEIL}mbit ceiling, a copy per queue, passes $site mbit (circuits$each): one tree per queue cannot share it"
	else
		fail "$TAG: site 1 per queue passes more than its ceiling" "$site mbit (circuits$each), want more than $SITE_CEIL"
	fi

	# the update
	if [ $chg_ok = 1 ] && [ $rm_ok = 1 ]; then
		ok "$TAG: under traffic, change (circuits $CHG to ceil ${NEW_CEIL}mbit) and remove (circuits $RM) batches: exit 0, no failed line"
	else
		fail "$TAG: under traffic, change and remove batches" "change: ${chg_err:-ok}" "remove: ${rm_err:-ok}"
	fi
	_trees=1
	[ "$LAY" = mq ] || _trees=$Q
	want=$((_trees * TREE + N - 2))
	if [ -z "$gone" ] && [ "$ncls" = "$want" ]; then
		ok "$TAG: removed circuits gone from tc's dumps (classes, leaves, filters; $ncls classes)"
	else
		fail "$TAG: removed circuits gone from tc's dumps" "left:${gone:- none}; $ncls classes, want $want"
	fi
	circuits_near "changed circuits at their new ${NEW_CEIL}mbit ceiling" 6 8 "$NEW_CEIL" 1 $CHG
	circuits_near "removed circuits' packets pass unshaped" 6 8 5 2 $RM
	# the default classes took the removed circuits' packets: at least
	# what 5mbit each for the time between the remove and the add makes
	# (more: a sender held back by its socket's send buffer while its
	# circuit was shaped catches up once the class is gone)
	dur=$(awk -v a="$tr" -v b="$ta" 'BEGIN { print b - a }')
	want_p=$(awk -v m="$(sum_means 6 8 $RM)" -v d="$dur" 'BEGIN { printf "%d", m * 1e6 * d / 8 / 1442 }')
	d2=$((p2b - p2a))
	if [ "$dpkt1" = "$dpkt0" ] && awk -v a="$d2" -v e="$want_p" 'BEGIN { exit !(e > 0 && a >= e * 0.95) }'; then
		ok "$TAG: removed circuits' packets in the default class: $d2 packets in $dur s (at least $want_p), no direct packet"
	else
		fail "$TAG: removed circuits' packets in the default class" "default classes +$d2 packets in $dur s, want at least $want_p (95 % of 5mbit each); direct packets $dpkt0 -> $dpkt1"
	fi
	if [ $add_ok = 1 ] && [ "$ncls2" = $((want + 2)) ]; then
		ok "$TAG: under traffic, add batch (circuits $RM again): exit 0, no failed line, $ncls2 classes"
	else
		fail "$TAG: under traffic, add batch" "${add_err:-exit 0}; $ncls2 classes, want $((want + 2))"
	fi
	circuits_near "re-added circuits back at their ${CEIL}mbit ceiling" 11 13 "$CEIL" 1 $RM
	circuits_near "changed circuits still at ${NEW_CEIL}mbit" 11 13 "$NEW_CEIL" 1 $CHG
}

# ---------------------------------------------------------------- main

# Circuits of a layout and leaf: 1,000, or as many as leave 200 MB
# available (a multiple of 10), by what a circuit cost on 6.12 and 7.3
# (cake 1.08 MB, fq_codel 0.1 MB with their class and filter) times its
# leaf's copies (one, or one per queue in mq). Fewer than 30 (the
# traffic's circuits are 4-23) is a counted skip.
avail=$(meminfo MemAvailable)
START=$(uptime_cs)
fit_n() {	# LEAF COPIES
	awk -v a="$avail" -v l="$1" -v c="$2" 'BEGIN {
		mb = l == "cake" ? 1.08 : 0.1
		n = int((a - 200 * 1024) / (mb * 1024 * c) / 10) * 10
		print (n > 1000 ? 1000 : n) }'
}
echo "# MemAvailable $((avail / 1024)) MB: circuits that fit: cake $(fit_n cake 1) (htb, htbx), $(fit_n cake $Q) (mq); fq_codel $(fit_n fq_codel 1), $(fit_n fq_codel $Q)"

for leaf in fq_codel cake; do
	for lay in htb htbx mq; do
		c=1
		[ $lay = mq ] && c=$Q
		n=$(fit_n $leaf $c)
		if [ "$n" -lt 30 ]; then
			skip "$lay/$leaf: load, traffic, live update" "$((avail / 1024)) MB available: not 30 circuits with 200 MB to spare"
			continue
		fi
		echo "# libreqos: $lay, $leaf, $n circuits"
		if load "$lay" "$leaf" "$n"; then
			run
		fi
		unload
	done
	sum=''
	for lay in htb htbx mq; do
		sum="$sum, $lay $(v load_${lay}_$leaf) s ($(v n_${lay}_$leaf) circuits, $(v mem_${lay}_$leaf) MB)"
	done
	echo "# $leaf load time:${sum#,}"
	echo "# $leaf site 1 (ceil ${SITE_CEIL}mbit): htb $(v site_htb_$leaf), htbx $(v site_htbx_$leaf), mq $(v site_mq_$leaf) mbit"
done

# ------------------------------------------------------------ leftovers

netns_cleanup
ns_gone_then_rmmod "libreqos: namespaces deleted" "libreqos: rmmod sch_htbx after use"
rm -rf "$TMP"
echo "# libreqos: $(secs $(($(uptime_cs) - START))) s of guest time"
exit 0
