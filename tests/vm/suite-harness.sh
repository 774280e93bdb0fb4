# vm-args: --icount
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-check, independent of htbx: mainline htb on the veth pair
# must shape 5 and 20 mbit within +-3 % as htbx-traffic measures it, and an
# unshaped paced flow must arrive at its pacing rate. If this fails, no rate
# figure from the other suites can be trusted. Deterministic under --icount.
. "${HTBX_TOP:-.}/tests/vm/lib.sh"

# An unshaped flow paced at 10 mbit: checks the sender's pacing and the
# receiver's L2 accounting against each other.
netns_pair || { fail "harness: netns_pair"; exit 1; }
if measure -t 3 -w 1 5001,rate=10mbit; then
	m=$(flow_mbit "$MEASURE_JSON" 5001)
	if within "$m" 10 1; then
		ok "paced 10mbit unshaped: $m mbit ($(pct "$m" 10)%)"
	else
		fail "paced 10mbit unshaped: $m mbit ($(pct "$m" 10)%)" "$(cat "$MEASURE_JSON")"
	fi
else
	fail "paced 10mbit unshaped: measure failed"
fi
netns_cleanup

# htb at RATE mbit, sender paced at 1.2x so the class stays backlogged.
for rate in 5 20; do
	netns_pair || { fail "htb ${rate}mbit: netns_pair"; continue; }
	tc_a qdisc add dev "$VETH_A" root handle 1: htb default 10 &&
	tc_a class add dev "$VETH_A" parent 1: classid 1:10 htb \
		rate "${rate}mbit" ceil "${rate}mbit" burst 15k cburst 15k quantum 1514 ||
		{ fail "htb ${rate}mbit: tc setup"; netns_cleanup; continue; }
	send=$(awk -v r="$rate" 'BEGIN { print r * 1.2 }')
	if measure -t 3 -w 1 "5001,rate=${send}mbit"; then
		m=$(flow_mbit "$MEASURE_JSON" 5001)
		if within "$m" "$rate" 3; then
			ok "htb ${rate}mbit: $m mbit ($(pct "$m" "$rate")%)"
		else
			fail "htb ${rate}mbit: $m mbit ($(pct "$m" "$rate")%)" \
				"$(cat "$MEASURE_JSON")" "$(tc_a -s class show dev "$VETH_A")"
		fi
	else
		fail "htb ${rate}mbit: measure failed"
	fi
	netns_cleanup
done

if netns_leak_check; then
	ok "no netns left behind"
else
	fail "no netns left behind"
fi
exit 0
