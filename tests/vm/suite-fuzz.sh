# vm-args:
# vm-kernels: debian debug kcsan
# SPDX-License-Identifier: GPL-2.0
#
# suite-fuzz.sh - tools/bin/htbx-fuzz on this kernel: a seeded run of
# HTBX_FUZZ_OPS operations (default 10000, 5000 on debug; valid and mutated
# qdisc, class and filter requests, size tables on root qdiscs, leaf
# grafts of fifteen kinds, device down/up, each round's namespace deleted with its trees inside, all
# under traffic), its invariants checked from dumps (see tools/htbx-fuzz.c);
# then the same on 4-queue devices in mq mode (-q 4: a dummy and a veth
# whose real TX queue count `ethtool -L` changes under traffic), as root and
# as uid 65534 in a user+net namespace of its own (the kinds mq mode refuses
# included), and on 64-queue devices as root. Each mq run must have
# changed the veth's queue count, but where the kernel's veth cannot
# (before 5.14: a counted skip). Then sch_htbx must unload: no qdisc or
# class outlives its namespace. On the debug kernel the boot's detectors
# (KASAN, lockdep, kmemleak scanned after the command) judge the same run.
#
# HTBX_FUZZ_SEED=N picks the seed (default 1: make check sends the same requests
# every run; the seed is printed with every result). The long run
# (make fuzz-long: 100000 operations per kernel) is this suite with
# HTBX_FUZZ_OPS=100000 and another seed.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

FUZZ=$HTBX_TOP/tools/bin/htbx-fuzz
seed=${HTBX_FUZZ_SEED:-1}
# On debug every operation runs under KASAN, lockdep and kmemleak and
# costs ten times what it does elsewhere (10 000 took 121 s there, 4-7 s
# on a Debian line): the first 5000 of the same seed's sequence, the
# mq-mode runs below whole. make fuzz-long sends 100 000 there.
ops=10000
[ "${HTBX_KLINE:-}" = debug ] && ops=5000
ops=${HTBX_FUZZ_OPS:-$ops}

if [ ! -x "$FUZZ" ]; then
	fail "htbx-fuzz is built" "missing: $FUZZ (make tools)"
	exit 0
fi
modprobe dummy 2>/dev/null
modprobe veth 2>/dev/null
modprobe sch_htbx || { fail "modprobe sch_htbx"; exit 0; }
for m in sch_sfq sch_fq_codel sch_codel sch_fq sch_pie sch_hhf sch_prio \
	 sch_fq_pie sch_cake sch_drr sch_netem cls_matchall; do
	modprobe "$m" 2>/dev/null
done

# txq_changes WHO OUT: the run whose output is OUT changed the veth's real TX
# queue count at least once (htbx-fuzz prints how often, and how often the
# kernel refused with EOPNOTSUPP: veth has set_channels from 5.14 on).
txq_changes() {
	_n=$(sed -n 's/.* \([0-9][0-9]*\) queue-count changes, .*/\1/p' "$2")
	_u=$(sed -n 's/.* \([0-9][0-9]*\) unsupported (EOPNOTSUPP).*/\1/p' "$2")
	if [ "${_n:-0}" -gt 0 ]; then
		ok "$1: ethtool -L changed the veth's TX queue count under traffic ($_n times, $_u unsupported)"
	elif [ "${_u:-0}" -gt 0 ]; then
		skip "$1: ethtool -L changes the veth's TX queue count under traffic" \
			"veth has no set_channels before 5.14 (all $_u requests: EOPNOTSUPP)"
	else
		fail "$1: ethtool -L changed the veth's TX queue count under traffic" \
			"$(grep 'queue-count' "$2" || tail -n 3 "$2")"
	fi
}

echo "# htbx-fuzz -s $seed -n $ops on $(uname -r)"
t0=$(cut -d' ' -f1 /proc/uptime)
"$FUZZ" -s "$seed" -n "$ops"
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "# htbx-fuzz: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
[ $rc -le 1 ] || fail "htbx-fuzz ran to its end" "exit $rc"

# fuzz_q NAME QUEUES OPS OUT [COMMAND...]: htbx-fuzz -q QUEUES, OPS
# operations, run by COMMAND if given (htbx-userns), its output kept in
# OUT and shown with its checks named "NAME: htbx-fuzz -q QUEUES"; NAME
# fails if it did not run to its end or reported nothing.
fuzz_q() {
	_n=$1 _q=$2 _ops=$3 _out=$4
	shift 4
	echo "# htbx-fuzz -q $_q -s $seed -n $_ops ($_n) on $(uname -r)"
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" "$FUZZ" -q "$_q" -s "$seed" -n "$_ops" >"$_out" 2>&1
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	sed -E "s/^(not ok|ok) - htbx-fuzz/\1 - $_n: htbx-fuzz -q $_q/" "$_out"
	echo "# htbx-fuzz -q $_q ($_n): exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	[ $rc -le 1 ] || fail "$_n: htbx-fuzz -q $_q ran to its end" "exit $rc"
	grep -qE '^(not ok|ok) - ' "$_out" ||
		fail "$_n: htbx-fuzz -q $_q reported" "$(tail -n 3 "$_out")"
}

# mq mode: the same kind of run on devices with 4 TX queues (htbx-fuzz
# -q 4: the roots are made with mq, so every class's leaf has a copy per
# queue and the buckets are shared), on every line and on debug, where
# KASAN, lockdep and kmemleak judge it; HTBX_MQ_FUZZ_OPS operations
# (default 3000). Its checks are named "mq:".
fuzz_q mq 4 "${HTBX_MQ_FUZZ_OPS:-3000}" /tmp/htbx-fuzz-mq.out
txq_changes "mq: htbx-fuzz -q 4" /tmp/htbx-fuzz-mq.out

# Namespaces go in a workqueue after their last process: poll.
# The same in mq mode as an unprivileged user: uid 65534 in a user and
# network namespace of its own (tools/bin/htbx-userns), as `unshare -Urn`.
USERNS=$HTBX_TOP/tools/bin/htbx-userns
if [ ! -x "$USERNS" ]; then
	fail "user: htbx-fuzz -q 4 as uid 65534" "missing: $USERNS (make tools)"
elif ! err=$("$USERNS" true 2>&1); then
	skip "user: htbx-fuzz -q 4 as uid 65534" "this kernel gives no user namespace to uid 65534: $err"
else
	fuzz_q user 4 "${HTBX_USER_FUZZ_OPS:-1000}" /tmp/htbx-fuzz-user.out "$USERNS"
	txq_changes "user: htbx-fuzz -q 4" /tmp/htbx-fuzz-user.out
fi

# Wide devices: 64 TX queues (a class has a node on each, and each change
# is a step per queue, under that queue's lock alone), HTBX_WIDE_FUZZ_OPS
# operations (default 300), as root; checks named "wide:".
fuzz_q wide 64 "${HTBX_WIDE_FUZZ_OPS:-300}" /tmp/htbx-fuzz-wide.out

unload() { rmmod sch_htbx 2>/dev/null; }
if wait_until 30 unload; then
	ok "sch_htbx unloads after the fuzz run (every namespace's trees gone)"
else
	fail "sch_htbx unloads after the fuzz run" "$(lsmod | grep htbx)"
fi
exit 0
