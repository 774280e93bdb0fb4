#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# profile-map.sh - the host side of `bench/pps.sh --profile TREE`: stages
# the host's perf for the guest, boots LINE under --icount with pps.sh's
# guest part on TREE only, and maps htbx's samples to source lines.
#
#   bench/profile-map.sh LINE COUNT TREE     (called by bench/pps.sh)
#
# perf is Debian's linux-perf (an ELF binary at /usr/bin/perf on bookworm);
# it, the libraries ldd names and the dynamic loader are copied once into
# $(lines/cachedir)/perf/BUILDID/, which the guest sees because lines/vm
# shares the current directory: the VM is started from there. Each run's
# output goes to a directory of its own below it, removed at the end.
#
# htbx's samples are mapped with nm and addr2line on the module the guest
# loaded (build/RELEASE/sch_htbx.ko, built with the kernel's debug info):
# by function (the innermost inlined one) and by line (up to three inlined
# frames, innermost first). Figures are % of htbx's own samples.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 3 ] || { echo "usage: bench/profile-map.sh LINE COUNT TREE" >&2; exit 2; }
line=$1 count=$2 tree=$3
case $tree in
1class|1prio|1u32|deep8|deep8u32|[0-9]leaves|[0-9][0-9]leaves|[0-9]*flow) ;;
*) echo "pps: --profile: no tree '$tree' (1class 1prio 1u32 deep8 deep8u32 NNleaves Nflow)" >&2
   exit 2 ;;
esac

perf=$(command -v perf || true)
if [ -z "$perf" ] || ! "$perf" --version >/dev/null 2>&1; then
	echo "pps: --profile needs the host's perf: apt-get install linux-perf" >&2
	exit 1
fi
id=$(readelf -n "$perf" 2>/dev/null | awk '/Build ID/ { print $3; exit }')
[ -n "$id" ] || id=$(sha256sum "$perf" | cut -c1-40)
stage=$("$top/lines/cachedir")/perf/$id
if [ ! -e "$stage/.complete" ]; then
	rm -rf "$stage"
	mkdir -p "$stage/lib"
	cp "$perf" "$stage/perf"
	ldd "$perf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' |
		while read -r lib; do cp -L "$lib" "$stage/lib/"; done
	[ -e "$stage/lib/ld-linux-x86-64.so.2" ] || { echo "pps: no ld-linux-x86-64.so.2 for perf" >&2; exit 1; }
	touch "$stage/.complete"
fi

out=$(mktemp -d "$stage/run.XXXXXX")
trap 'rm -rf "$out"' EXIT
cd "$stage"
HTBX_PERF_DIR=$stage HTBX_PERF_OUT=$out \
	"$top/lines/vm" --kernel "$line" --icount --mem 2048 --timeout 3000 -- \
	sh "$top/bench/pps.sh" --guest "$count" --profile "$tree"

rel=$(cat "$out/release")
ko=$top/build/$rel/sch_htbx.ko
[ -s "$out/symoff.htbx" ] || { echo "pps: no samples of htbx" >&2; exit 1; }
[ -e "$ko" ] || { echo "pps: $ko is missing (make module)" >&2; exit 1; }

# "COUNT SYM+0xOFF" of the module's functions -> "COUNT ADDR" in the .ko
nm "$ko" | awk '$2 ~ /^[tT]$/ { print $3, $1 }' | sort >"$out/syms"
awk '{ n = index($2, "+0x"); if (n) print substr($2, 1, n - 1), substr($2, n + 3), $1 }' \
	"$out/symoff.htbx" | sort >"$out/samples"
join "$out/samples" "$out/syms" | while read -r _sym off cnt base; do
	printf '%d 0x%x\n' "$cnt" $((0x$base + 0x$off))
done >"$out/addrs"
awk '{ print $2 }' "$out/addrs" | xargs addr2line -a -f -i -e "$ko" >"$out/lines"

echo "# htbx $tree: its module's samples by function and by line (% of them)"
awk -v want=20 '
	FNR == NR { cnt[$2] = $1; total += $1; next }
	/^0x/ { flush(); a = $0; sub(/^0x0*/, "0x", a); nfr = 0; next }
	{ if (fn == "") fn = $0; else { f = $0; sub(/.*\//, "", f); sub(/ .*/, "", f)
	  fr[++nfr] = fn "@" f; fn = "" } }
	function flush(   k, c, i) {
		if (a == "" || nfr == 0) return
		c = cnt[a]; k = fr[1]; sub(/@.*/, "", k); byfn[k] += c
		k = fr[1]; for (i = 2; i <= nfr && i <= 3; i++) k = k " < " fr[i]
		byline[k] += c
	}
	END {
		flush()
		for (k in byfn) printf "fn %6.1f%% %s\n", 100 * byfn[k] / total, k
		for (k in byline) printf "ln %6.1f%% %s\n", 100 * byline[k] / total, k
	}' "$out/addrs" "$out/lines" >"$out/report"
grep '^fn' "$out/report" | sort -k2 -rn | head -n 25 | cut -c4-
echo "# by line (innermost inlined frame first)"
grep '^ln' "$out/report" | sort -k2 -rn | head -n 30 | cut -c4-
