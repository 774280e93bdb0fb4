#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# htbx-traffic on the host's loopback: the command line contract (help,
# bad arguments) and one short paced UDP measurement with a valid JSON
# report. The rate check is loose (host load varies); exact rates are the
# VM harness suite's job (tests/vm/suite-harness.sh, under icount).
top=$(cd "$(dirname "$0")/../.." && pwd)
ht=$top/tools/bin/htbx-traffic
if [ ! -x "$ht" ]; then
	make -s --no-print-directory -C "$top/tools" >/dev/null 2>&1 || {
		echo "not ok - htbx-traffic builds"; exit 0; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }

"$ht" --help >"$tmp/help" 2>&1
hrc=$?
t "--help exits 0 and documents recv, send, FLOW and the L2 accounting" \
	'[ $hrc -eq 0 ] && grep -q "recv \[-t SECS\]" "$tmp/help" && grep -q "FLOW = PORT" "$tmp/help" && grep -q "P + 42" "$tmp/help"'
for args in "" "bogus" "send 5001" "send -d 1.2.3.4" "send -d 1.2.3.4 0" \
	    "send -d 1.2.3.4 5001,rate=fast" "send -d 1.2.3.4 5001,color=red" \
	    "send -d nowhere 5001" "recv" "recv 70000" "recv -t 1 -w 2 5001"; do
	# shellcheck disable=SC2086
	timeout 5 "$ht" $args >/dev/null 2>&1
	rc=$?
	t "bad arguments \"$args\": exit 2 (got $rc)" "[ $rc -eq 2 ]"
done

port=$((20000 + $$ % 20000))
"$ht" recv -j -t 2 -w 0.5 "$port" $((port + 1)) >"$tmp/json" 2>"$tmp/err" &
rpid=$!
sleep 0.5
"$ht" send -d 127.0.0.1 -t 2.5 -s 1000 "$port,rate=4mbit" "$((port + 1)),rate=250kbps,tos=0x10,mark=3,prio=0x10010" \
	>"$tmp/send" 2>&1
src=$?
wait $rpid
rrc=$?
t "loopback send/recv exit 0 (send $src, recv $rrc)" "[ $src -eq 0 ] && [ $rrc -eq 0 ]"
t "recv -j is the documented JSON" \
	'jq -e ".window_s == 2 and .warmup_s == 0.5 and (.flows | length) == 2 and (.flows[0].per_second | length) == 2 and (.flows[0] | has(\"packets\") and has(\"bytes\") and has(\"mbit\"))" "$tmp/json" >/dev/null'
m1=$(jq -r ".flows[0].mbit" "$tmp/json" 2>/dev/null)
m2=$(jq -r ".flows[1].mbit" "$tmp/json" 2>/dev/null)
b1=$(jq -r ".flows[0].bytes" "$tmp/json" 2>/dev/null)
p1=$(jq -r ".flows[0].packets" "$tmp/json" 2>/dev/null)
t "L2 bytes are (payload + 42) per packet ($b1 bytes, $p1 packets)" '[ -n "$p1" ] && [ "$b1" = $((p1 * 1042)) ]'
t "4mbit flow measures 4 mbit within 20% on a loaded host ($m1)" \
	'awk -v m="$m1" "BEGIN { exit !(m >= 3.2 && m <= 4.8) }"'
t "250kbps (bytes, as tc) flow measures 2 mbit within 20% ($m2)" \
	'awk -v m="$m2" "BEGIN { exit !(m >= 1.6 && m <= 2.4) }"'
exit 0
