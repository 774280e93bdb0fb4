# vm-args: --timeout 600
# SPDX-License-Identifier: GPL-2.0
#
# suite-mqleaf.sh - which leaf qdiscs htbx's mq mode takes, and that what
# it takes behaves on every TX queue as on queue 0; as root and as an
# unprivileged user in a user+net namespace.
#
#   netns $NS_A (root) / tools/bin/htbx-userns: uid 65534 (user)
#   +---------------------------------------------+
#   | mql0: dummy, 4 TX queues, 198.19.1.1/24      |
#   | root htbx 1: default 20 mq                   |
#   |   1:1 -- 1:10 (the leaf under test, UDP)     |
#   | clsact: UDP to queue 3 (skbedit)             |
#   +---------------------------------------------+
#
# In mq mode a class has a copy of its leaf on every TX queue, made from
# the leaf's dump. A leaf kind whose dump does not hold all of it cannot
# be copied exactly and is refused at graft, with a message that says why
# and what to use:
#   - classful kinds (prio, drr, tbf, ets, sfb, ...): the classes, child
#     qdiscs and filters below them are not in their dump; a change that
#     flushes a child of a copy, whose handle is 0, also WARNed in
#     qdisc_tree_reduce_backlog() (found as uid 65534: prio bands 3 -> 2);
#   - pfifo_fast: lockless, it counts its queue per CPU and q.qlen stays 0
#     on a copy, so every packet looked dropped;
#   - netem: its delay distribution is not in its dump; red, choke and
#     gred: neither is their table;
#   - anything else not known to copy exactly.
# What it takes: pfifo, bfifo, pfifo_head_drop, fq_codel, fq_pie, cake,
# sfq, fq, codel, pie, hhf, each grafted and passing packets on queue 3.
#
# A size table on the mq root (SQM's ATM/overhead accounting) applies on
# every queue (1000-byte UDP payloads are 1042 bytes on the wire; with overhead
# 500, 1542 in the class's byte count). The kernel applies a root's table
# only (a leaf's is taken and ignored, as under htb).
#
# A leaf changed with `tc qdisc change` reaches its copies (the leaf on
# queue 0 is the one tc changes; htbx follows it on the other queues).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

panic_on_hang
modprobe dummy numdummies=0 2>/dev/null
if ! modprobe sch_htbx; then
	fail "modprobe sch_htbx"
	exit 0
fi
load_qdisc_mod cls_u32
load_qdisc_mod act_skbedit
load_qdisc_mod sch_ingress

NS_A=htbx-mql-$$
export NS_A
netns_trap
"$IP" netns add "$NS_A" || exit 1
HTBX_NETNS="$HTBX_NETNS $NS_A"
DEV=mql0

REFUSED="prio drr tbf ets sfb qfq hfsc htb multiq cbs pfifo_fast netem red"
TAKEN="pfifo bfifo pfifo_head_drop fq_codel fq_pie cake sfq fq codel pie hhf"

# leaf_args KIND: the options a kind needs to be made at all
leaf_args() {
	case $1 in
	tbf) echo "tbf rate 10mbit burst 10k latency 50ms" ;;
	ets) echo "ets bands 2" ;;
	red) echo "red limit 400000 min 30000 max 90000 avpkt 1000 burst 55 bandwidth 40mbit" ;;
	cbs) echo "cbs idleslope 1000 sendslope -9000 hicredit 10 locredit -90" ;;
	*) echo "$1" ;;
	esac
}

# The whole check as one script, so that it runs the same as root in
# $NS_A and as uid 65534 in a namespace of its own. It prints
#   taken KIND | refused KIND MESSAGE | gone KIND | fail WHAT DETAIL
# and the class byte counts: bytes NAME BYTES PACKETS
cat >/tmp/htbx-mqleaf.$$.sh <<'EOF'
TC=$1 IP=$2 DEV=$3 TRAFFIC=$4
shift 4
$IP link add "$DEV" numtxqueues 4 type dummy || { echo "fail link add"; exit 0; }
$IP link set "$DEV" up
$IP addr add 198.19.1.1/24 dev "$DEV"
# the test's UDP to 1:10; the rest (IPv6's own packets) to the direct queue
root() {
	$TC qdisc del dev "$DEV" root 2>/dev/null
	$TC qdisc add dev "$DEV" root handle 1: "$@" htbx default 20 mq &&
	$TC class add dev "$DEV" parent 1: classid 1:1 htbx rate 100mbit &&
	$TC class add dev "$DEV" parent 1:1 classid 1:10 htbx rate 50mbit ceil 100mbit &&
	$TC filter add dev "$DEV" parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff flowid 1:10
}
steer() {
	$TC qdisc add dev "$DEV" clsact 2>/dev/null
	$TC filter add dev "$DEV" egress protocol ip prio 1 u32 \
		match ip protocol 17 0xff action skbedit queue_mapping 3 2>/dev/null
}
# a few 1000-byte UDP datagrams (paced: the first at once, then one each
# 80 ms), sent without waiting for anything
send3() {
	"$TRAFFIC" send -d 198.19.1.2 -t 0.2 -s 1000 7000,rate=100kbit >/dev/null 2>&1
}
# bytes NAME: class 1:10's byte and packet counts
bytes() {
	$TC -s class show dev "$DEV" classid 1:10 |
		awk -v n="$1" '$1 == "Sent" { print "bytes", n, $2, $4; exit }'
}
root || { echo "fail root"; exit 0; }
steer
for leaf in "$@"; do
	kind=${leaf%% *}
	# shellcheck disable=SC2086
	if err=$($TC qdisc replace dev "$DEV" parent 1:10 handle 10: $leaf 2>&1); then
		send3
		if $TC -s class show dev "$DEV" classid 1:10 | grep -q 'Sent [1-9]'; then
			echo "taken $kind"
		else
			echo "gone $kind"
		fi
		# what the copies did: a classful leaf's child flushed
		case $kind in
		prio) $TC qdisc change dev "$DEV" parent 1:10 handle 10: prio bands 2 \
			priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2>/dev/null ;;
		esac
		root || echo "fail root again"
	else
		echo "refused $kind $(printf '%s' "$err" | head -n 1)"
	fi
done
# a size table on the mq root, and none
root stab overhead 500 linklayer ethernet && { send3; bytes root-stab; }
root && { send3; bytes none; }
$TC qdisc del dev "$DEV" root
$IP link del "$DEV"
EOF

leaves=
for k in $REFUSED $TAKEN; do
	case $k in pfifo|bfifo|pfifo_head_drop|pfifo_fast) ;; *) load_qdisc_mod "sch_$k" ;; esac
	leaves="$leaves|$(leaf_args "$k")"
done

# judge WHO OUTPUT: the TAP lines for one run of the script
judge() {
	_who=$1 _out=$2
	if printf '%s\n' "$_out" | grep -q '^fail'; then
		fail "$_who: setup" "$(printf '%s\n' "$_out" | grep '^fail')"
		return
	fi
	for _k in $REFUSED; do
		_l=$(printf '%s\n' "$_out" | awk -v k="$_k" '$2 == k')
		case $_l in
		"") skip "$_who: $_k is refused in mq mode" "this kernel has no sch_$_k" ;;
		refused*mq*)
			ok "$_who: $_k is refused in mq mode (${_l#refused "$_k" })" ;;
		*) fail "$_who: $_k is refused in mq mode with a message" "$_l" ;;
		esac
	done
	for _k in $TAKEN; do
		_l=$(printf '%s\n' "$_out" | awk -v k="$_k" '$2 == k')
		case $_l in
		"") skip "$_who: $_k is taken in mq mode" "this kernel has no sch_$_k" ;;
		"taken $_k") ok "$_who: $_k is taken in mq mode and passes packets on queue 3" ;;
		# the man page's exception: cake's dump always carries its nat
		# flag, which cake refuses on a kernel without conntrack
		"refused cake"*conntrack*)
			skip "$_who: cake is taken in mq mode" "this kernel has no conntrack: ${_l#refused cake }" ;;
		*) fail "$_who: $_k is taken in mq mode and passes packets on queue 3" "$_l" ;;
		esac
	done
	_none=$(printf '%s\n' "$_out" | awk '$1 == "bytes" && $2 == "none" { print $3 / $4 }')
	for _s in root-stab; do
		_b=$(printf '%s\n' "$_out" | awk -v s="$_s" '$1 == "bytes" && $2 == s { print $3 / $4 }')
		if [ "$_b" = 1542 ] && [ "$_none" = 1042 ]; then
			ok "$_who: a stab on the ${_s%-stab} counts on queue 3 (1542 bytes a packet, 1042 without)"
		else
			fail "$_who: a stab on the ${_s%-stab} counts on queue 3" \
				"${_b:-none} bytes a packet (want 1542), ${_none:-none} without (want 1042)"
		fi
	done
}

# the leaves as arguments, one each
IFS='|'
# shellcheck disable=SC2086
set -- ${leaves#|}
unset IFS
out=$(in_a sh /tmp/htbx-mqleaf.$$.sh "$TC" "$IP" "$DEV" "$HTBX_TRAFFIC" "$@" 2>&1)
judge "root" "$out"
USERNS=$HTBX_TOP/tools/bin/htbx-userns
if [ ! -x "$USERNS" ]; then
	fail "user: every leaf check as uid 65534 in a user+net namespace" "missing: $USERNS (make tools)"
elif ! err=$("$USERNS" true 2>&1); then
	skip "user: every leaf check as uid 65534 in a user+net namespace" \
		"this kernel gives no user namespace to uid 65534: $err"
else
	out=$("$USERNS" sh /tmp/htbx-mqleaf.$$.sh "$TC" "$IP" "$DEV" "$HTBX_TRAFFIC" "$@" 2>&1)
	judge "user" "$out"
fi
rm -f /tmp/htbx-mqleaf.$$.sh

netns_cleanup
if modprobe -r sch_htbx; then
	ok "sch_htbx unloads after the leaf checks"
else
	fail "sch_htbx unloads after the leaf checks" "$(lsmod | grep sch_htbx)"
fi
exit 0
