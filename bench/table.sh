#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# table.sh - bench/pps.sh's output as bench/README.md's table.
#
#   bench/pps.sh --kernel 6.12 --leaves 1024 >pps-6.12.txt
#   bench/pps.sh --kernel 7.3 --leaves 1024 >pps-7.3.txt
#   bench/table.sh pps-6.12.txt pps-7.3.txt		print the table
#   bench/table.sh --update bench/README.md pps-6.12.txt pps-7.3.txt
#
# One column group per output, in the order given, headed by the kernel's
# version (6.12.117+deb12-amd64 -> 6.12): htbx and htb pps, ratio, cost
# and htbx/pfifo, as pps.sh printed them (nothing is computed again).
# Below the table, a line per
# output: its release, pfifo's and prio's pps, the packet count, and
# whether every row accounted for every packet (qdisc Sent = count or
# count + 1, 0 dropped, for both kinds).
#
# --update FILE replaces what lies between the lines
# "<!-- bench/table.sh: begin -->" and "<!-- bench/table.sh: end -->" in
# FILE (both must be there, once) and leaves the rest of it as it was.
# An output without pps.sh's header or rows is an error: nothing is
# written.

usage="usage: bench/table.sh [--update FILE] PPS_OUTPUT..."
update=
if [ "${1:-}" = --update ]; then
	[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
	update=$2
	shift 2
fi
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
for f in "$@"; do
	[ -r "$f" ] || { echo "table: cannot read $f" >&2; exit 2; }
	if ! grep -q '^# pps.sh: ' "$f" || ! grep -q '^tree  *htbx  *htb' "$f"; then
		echo "table: $f is not bench/pps.sh's output" >&2
		exit 2
	fi
done

table=$(awk '
# 357365 -> "357 365"
function grp(n,    s) {
	if (n !~ /^[0-9]+$/)
		return n
	s = ""
	while (length(n) > 3) {
		s = " " substr(n, length(n) - 2) s
		n = substr(n, 1, length(n) - 3)
	}
	return n s
}
FNR == 1 { k++; rows[k] = 0; whole[k] = 1; body = 0 }
/^# pps.sh: / {
	rel[k] = $3; sub(/,$/, "", rel[k])
	split(rel[k], v, /[.+-]/); name[k] = v[1] "." v[2]
	cnt[k] = $6
}
$1 == "pfifo" { pfifo[k] = $2 }
$1 == "prio" { prio[k] = $2 }
$1 == "tree" { body = 1; next }
body && NF >= 6 && $1 ~ /^[0-9a-z]+$/ {
	t = $1
	if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
	fig[k, t] = grp($2) " | " grp($3) " | " $4 " | " $5 " | " $6
	# (htbx 200000 sent 0 dropped, ...; htb 200000 sent 0 dropped, ...)
	n = split($0, w, /[ (;,]+/)
	for (i = 1; i < n; i++)
		if (w[i] == "htbx" || w[i] == "htb")
			if (w[i + 1] + 0 < cnt[k] || w[i + 1] + 0 > cnt[k] + 1 ||
			    w[i + 3] != 0)
				whole[k] = 0
	rows[k]++
}
END {
	for (i = 1; i <= k; i++)
		if (!rows[i] || name[i] == "") {
			print "table: output " i " has no rows" > "/dev/stderr"
			exit 2
		}
	h = "| tree |"; s = "|---|"
	for (i = 1; i <= k; i++) {
		h = h sprintf(" %s htbx | %s htb | ratio | **cost** | htbx/pfifo |",
			      name[i], name[i])
		s = s "---|---|---|---|---|"
	}
	print h; print s
	for (j = 1; j <= nt; j++) {
		l = "| " order[j] " |"
		for (i = 1; i <= k; i++) {
			c = "| | | |"
			if ((i, order[j]) in fig)
				c = fig[i, order[j]]
			l = l " " c " |"
		}
		print l
	}
	print ""
	for (i = 1; i <= k; i++) {
		msg = "every row accounted for every packet (Sent = count, 0 dropped)"
		if (!whole[i])
			msg = "**a row lost or dropped packets: see the output**"
		printf "%s: `%s`, pfifo %s, prio %s pps; %s packets a row, %s.\n",
			name[i], rel[i], grp(pfifo[i]), grp(prio[i]), grp(cnt[i]), msg
	}
}' "$@") || exit 2

if [ -z "$update" ]; then
	printf '%s\n' "$table"
	exit 0
fi
begin='<!-- bench/table.sh: begin -->'
end='<!-- bench/table.sh: end -->'
if [ "$(grep -cxF "$begin" "$update")" != 1 ] || [ "$(grep -cxF "$end" "$update")" != 1 ]; then
	echo "table: $update needs the lines '$begin' and '$end', once each" >&2
	exit 2
fi
# into a temporary file first, then over FILE (which keeps its mode)
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
if ! printf '%s\n' "$table" | awk -v b="$begin" -v e="$end" '
	FNR == NR { t = t $0 "\n"; next }
	$0 == b { print; printf "%s", t; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' - "$update" >"$tmp"; then
	exit 2
fi
cat "$tmp" >"$update" || exit 2
