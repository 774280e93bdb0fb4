# vm-args: --icount --timeout 2400
# vm-kernels: 6.12
# SPDX-License-Identifier: GPL-2.0
#
# suite-compat.sh - htbx as a drop-in for htb. The same command sequences
# run through htb and through htbx in one boot (each kind in its own
# network namespace), and everything tc shows is compared after renaming
# the kind:
#
#   - the exit status of every command;
#   - text: `tc [-s [-d]] qdisc|class show` (3 views, each qdisc and class
#     show), with the host's tc (iproute2 6.1) and, when lines/fetch-tc
#     has staged it, trixie's tc 6.15 (the tc 6.2 text layout), run in the
#     guest with trixie's loader;
#   - JSON: `tc -j [-s [-d]] qdisc|class show` with tc 6.15 (3 views; tc
#     6.1 has no class JSON), and `tc -j [-s -d] qdisc show` with tc 6.1.
#
# Allowed differences, all of them (README.md "Migrating from htb"):
#   D1 ver: htb's qdisc "ver 3.17", htbx's "ver 1" (-d).
#   D2 htbx's own fields: text only with -d, after htb's fields ("mtu N" at
#      the end of a class line, a third xstats line " mode: M deficit: N
#      tokens_ns: N ctokens_ns: N", " budget_hits N" at the end of the
#      qdisc line); JSON keys mtu, mode, deficit, tokens_ns, ctokens_ns,
#      budget_hits. They are removed from htbx's output only where htbx
#      must print them; anything else left over is a difference.
#   D3 the default burst and cburst (htbx: 1 ms of rate, at least 2 mtu;
#      htb: rate/HZ + mtu), and so the tokens/ctokens of classes using
#      them: sequences that leave a burst or cburst to its default mask
#      those values ("B", "T"), and only those.
#   D4 tokens after a change that shrinks a class's bucket: htbx caps them
#      at the new bucket at once, htb at the class's next packet; and a
#      burst that htb's tick encoding cannot hold exactly (not a whole
#      multiple of 8 us at its rate: htb shows it up to a few bytes smaller,
#      12 KiB at 10mbit as 12287, and its tokens a tick lower). Sequences
#      with such changes or bursts mask them.
#   D5 stderr: htbx warns where htb adjusts silently. Only exit statuses
#      are compared.
# Differences that are htbx's on purpose are checked as such (E1..E4):
#   E1 a class whose parent does not exist: htb makes it a root class,
#      htbx refuses it (exit 2, "parent class 1:99 does not exist");
#   E2 rates above 8 Tbit: htbx counts them as 8 Tbit (and warns);
#   E3 qdisc change: htb has none (refused), htbx changes what is given;
#   E4 the overlimits of a parent at the rate of its one busy child
#      (sqm-scripts' layout): htb's count a few, htbx's about the child's.
#
# Then traffic: the same pings through both (every counter of every class
# and qdisc identical but tokens), a UDP flood above a class's rate (bytes
# within 5 %, and overlimits, borrowed, drops counted in both), a flood
# through sqm-scripts' layout (a parent's overlimits: E4 above, pinned),
# and FireQOS
# (lines/stage-fireqos): `fireqos start` with an htb config, and again
# with FireQOS's kind renamed to htbx, then `fireqos status` under the
# same traffic: the per-class figures of both runs within 10 %.
#
# TEST_COMPAT_ONLY="seq ..." runs only the named sequences;
# TEST_COMPAT_TCS="SUITE ..." (default: trixie) names the other suites whose
# tc (lines/fetch-tc, build/tc-SUITE) shows every view beside the host's:
# text with each, JSON (qdisc and class) with each from 6.2 on, qdisc JSON
# with the older ones; TEST_COMPAT_PARTS=views stops after the sequences
# (no differences on purpose, traffic or FireQOS). suite-tcver.sh uses
# these for tc 5.10 .. 7.3.

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/lib.sh"

W=/tmp/htbx-compat.$$
mkdir -p "$W"
TC61=$TC
# Each other suite's tc, loader and libraries copied into the guest's RAM:
# run from the 9p share, every exec read them through it (most of this
# suite's time). XTCS: the tags (suite names) of those that run;
# XTC_<tag> the wrapper, XV_<tag> its version, XJ_<tag> 1 when it has
# class JSON (iproute2 6.2 and later).
XTCS=
for _s in ${TEST_COMPAT_TCS-trixie}; do
	[ -x "$HTBX_TOP/build/tc-$_s/tc" ] || { skip "views with the tc of $_s" "not staged (lines/fetch-tc $_s)"; continue; }
	_w=$(stage_tc "$_s" "$W") || exit 1
	XTCS="$XTCS $_s"
	eval "XTC_$_s=\$_w"
done
FQ=$HTBX_TOP/build/fireqos

for m in sch_htbx sch_htb dummy veth sch_sfq sch_pfifo cls_u32 cls_matchall; do
	modprobe "$m" 2>/dev/null
done

NSH=htbx-cmp-h-$$
NSX=htbx-cmp-x-$$
netns_trap
for ns in "$NSH" "$NSX"; do
	"$IP" netns add "$ns" || { fail "netns $ns"; exit 1; }
	HTBX_NETNS="$HTBX_NETNS $ns"
	# IPv6 off before any device exists: no MLD or router solicitations
	# reach the qdiscs, whose counters are compared to the packet
	in_ns "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6;
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
	in_ns "$ns" "$IP" link set lo up
	in_ns "$ns" "$IP" link add d0 type dummy
	in_ns "$ns" "$IP" link set d0 up
	# a device with a speed (veth: 10000 Mbit/s), for N% rates
	in_ns "$ns" "$IP" link add v0 type veth peer name v1
	in_ns "$ns" "$IP" link set v0 up
	in_ns "$ns" "$IP" link set v1 up
done

tc_version() {
	"$1" -V 2>&1 | sed -n 's/.*iproute2-\([0-9.]*\).*/\1/p'
}
V61=$(tc_version "$TC61")
# tc 6.2 and later print class JSON (older ones print text for -j class)
has_class_json() {
	_maj=${1%%.*} _rest=${1#*.}
	[ "$_maj" -gt 6 ] || { [ "$_maj" -eq 6 ] && [ "${_rest%%.*}" -ge 2 ]; }
}
_jtxt=
TC615= V615=
for _s in $XTCS; do
	eval "_t=\$XTC_$_s"
	_v=$(tc_version "$_t")
	eval "XV_$_s=\$_v"
	if has_class_json "$_v"; then
		eval "XJ_$_s=1"
		_jtxt="$_jtxt, tc $_v (qdisc, class)"
		# the traffic part's class JSON: the first such tc
		[ -n "$TC615" ] || { TC615=$_t V615=$_v; }
	else
		eval "XJ_$_s="
		_jtxt="$_jtxt, tc $_v (qdisc)"
	fi
done
echo "# text: tc $V61$(for _s in $XTCS; do eval "printf ', tc %s' \"\$XV_$_s\""; done); JSON:${_jtxt#,}, tc $V61 (qdisc)"

# ------------------------------------------------------------ running

# t ARGS...: one tc command of a sequence, in the current kind's
# namespace, with the host's tc. Its exit status goes to the command log
# (compared between the kinds), its stderr to a log of its own.
t() {
	"$TC61" -n "$CNS" "$@" >/dev/null 2>>"$CDIR/stderr"
	echo "$? $*" | sed 's/htbx/htb/g' >>"$CDIR/cmds"
	return 0
}

# flags NAME: the tc switches a view file name stands for ("-s_-d": -s -d)
flags() {
	[ "$1" = - ] || echo "$1" | tr '_' ' '
}

# views DIR DEV: every view of DEV (plain, -s, and -s -d, which prints
# all that -d alone does: htbx's own -d fields and htb's ver are held
# to -d in both it and plain): 61.FLAGS.txt and TAG.FLAGS.txt for
# each other tc (qdisc then classes, one tc -batch run each: another
# suite's tc takes long to start in the guest), TAG.FLAGS.json (with class
# JSON) or TAG.qdisc.FLAGS.json, 61.qdisc.FLAGS.json (tc 6.1 prints
# classes as text even with -j)
views() {
	_d=$1 _dev=$2
	printf 'qdisc show dev %s\nclass show dev %s\n' "$_dev" "$_dev" >"$_d/batch"
	for _f in - -s -s_-d; do
		# shellcheck disable=SC2046
		"$TC61" -n "$CNS" $(flags $_f) -b "$_d/batch" >"$_d/61.$_f.txt" 2>&1
	done
	for _s in $XTCS; do
		eval "_t=\$XTC_$_s _j=\$XJ_$_s"
		for _f in - -s -s_-d; do
			# shellcheck disable=SC2046
			"$_t" -n "$CNS" $(flags $_f) -b "$_d/batch" >"$_d/$_s.$_f.txt" 2>&1
		done
		for _f in -j -j_-s -j_-s_-d; do
			if [ -n "$_j" ]; then
				# shellcheck disable=SC2046
				"$_t" -n "$CNS" $(flags $_f) -b "$_d/batch" >"$_d/$_s.$_f.json" 2>&1
			else
				# shellcheck disable=SC2046
				"$_t" -n "$CNS" $(flags $_f) qdisc show dev "$_dev" >"$_d/$_s.qdisc.$_f.json" 2>&1
			fi
		done
	done
	for _f in -j -j_-s_-d; do
		# shellcheck disable=SC2046
		"$TC61" -n "$CNS" $(flags $_f) qdisc show dev "$_dev" >"$_d/61.qdisc.$_f.json" 2>&1
	done
}

# mask_sed MASKS: a sed script replacing the masked values (D3, D4)
mask_sed() {
	for _m in $1; do
		case $_m in
		burst)	 echo 's/\([^c]\)burst [0-9.]*[KMG]\{0,1\}b/\1burst B/g' ;;
		cburst)	 echo 's/cburst [0-9.]*[KMG]\{0,1\}b/cburst B/g' ;;
		tokens)	 echo 's/^ tokens: -\{0,1\}[0-9]*/ tokens: T/' ;;
		ctokens) echo 's/ctokens: -\{0,1\}[0-9]*/ctokens: T/' ;;
		esac
	done
}

# norm_text KIND MASKS < text: the comparable form (D1, D2, D3, D4)
norm_text() {
	if [ "$1" = htbx ]; then
		sed -e 's/htbx/htb/g' \
		    -e 's/ budget_hits [0-9]*$//' \
		    -e 's/\(level [0-9]* \)mtu [0-9]* $/\1/' \
		    -e '/^ mode: [a-z_]* deficit: -\{0,1\}[0-9]* tokens_ns: -\{0,1\}[0-9]* ctokens_ns: -\{0,1\}[0-9]*$/d'
	else
		cat
	fi | sed -e 's/ ver [^ ]*/ ver V/' -e "$(mask_sed "$2")" -e 's/^$/(empty line)/'
}

# norm_json KIND MASKS FILE...: each FILE (a tc -j dump) in its comparable
# form, one object per line, into FILE.n; one jq run for all of them (jq
# takes seconds to start in the guest), file by file if one is no JSON
NORM_JSON_FILTER='
	def mask($f; $v): if ($m | contains(" " + $f + " ")) and has($f)
		then .[$f] = $v else . end;
	.[] |
	(if $k == "htbx" then
		(if has("kind") then .kind |= sub("htbx"; "htb") else . end) |
		(if has("class") then .class |= sub("htbx"; "htb") else . end) |
		del(.mtu) |
		(if has("options") then .options |= del(.budget_hits) else . end) |
		(if has("stats") then .stats |= del(.mode, .deficit, .tokens_ns, .ctokens_ns)
		 else . end)
	 else . end) |
	(if (.options | type) == "object" and (.options | has("ver"))
	 then .options.ver = "V" else . end) |
	walk(if type == "object" then
		mask("burst"; "B") | mask("cburst"; "B") |
		mask("tokens"; "T") | mask("ctokens"; "T")
	     else . end)'
norm_json() {
	_k=$1 _m=$2
	shift 2
	if jq -r --arg k "$_k" --arg m " $_m " \
		"$NORM_JSON_FILTER"' | "\(input_filename)\t\(tojson)"' "$@" \
		>"$W/norm.out" 2>"$W/norm.err"; then
		for _f in "$@"; do : >"$_f.n"; done
		awk -F '\t' '{ f = $1; sub(/^[^\t]*\t/, ""); print > (f ".n") }' "$W/norm.out"
	else
		for _f in "$@"; do
			jq -c --arg k "$_k" --arg m " $_m " "$NORM_JSON_FILTER" \
				<"$_f" >"$_f.n" 2>&1 || echo "(not JSON: $(head -c 200 "$_f"))" >>"$_f.n"
		done
	fi
}

# compare NAME WHAT text|json FILES...: the normalized htb and htbx files
# are equal
compare() {
	_name=$1 _what=$2 _fmt=$3
	shift 3
	_bad='' _n=0 _diff=''
	if [ "$_fmt" = json ]; then
		_hf='' _xf=''
		for _f in "$@"; do
			_hf="$_hf $W/$_name/htb/$_f" _xf="$_xf $W/$_name/htbx/$_f"
		done
		# shellcheck disable=SC2086
		norm_json htb "$MASKS" $_hf
		# shellcheck disable=SC2086
		norm_json htbx "$MASKS" $_xf
	fi
	for _f in "$@"; do
		_n=$((_n + 1))
		if [ "$_fmt" != json ]; then
			norm_text htb "$MASKS" <"$W/$_name/htb/$_f" >"$W/$_name/htb/$_f.n"
			norm_text htbx "$MASKS" <"$W/$_name/htbx/$_f" >"$W/$_name/htbx/$_f.n"
		fi
		if ! cmp -s "$W/$_name/htb/$_f.n" "$W/$_name/htbx/$_f.n"; then
			_bad="$_bad $_f"
			[ -z "$_diff" ] && _diff=$(diff -u "$W/$_name/htb/$_f.n" "$W/$_name/htbx/$_f.n" |
				sed -e "s|$W/||" | head -n 30)
		fi
	done
	if [ -z "$_bad" ]; then
		ok "$_name: $_what identical ($_n views${MASKS:+, masked: $MASKS})"
	else
		fail "$_name: $_what identical ($_n views${MASKS:+, masked: $MASKS})" \
			"differ:$_bad" "$_diff"
	fi
}

# run_seq NAME DEV "MASKS" FUNC: FUNC's commands through htb, then htbx,
# each on a clean device; then every comparison.
run_seq() {
	_name=$1 SDEV=$2 MASKS=$3 _fn=$4
	if [ -n "${TEST_COMPAT_ONLY:-}" ]; then
		case " $TEST_COMPAT_ONLY " in *" $_name "*) ;; *) return 0 ;; esac
	fi
	for K in htb htbx; do
		if [ $K = htb ]; then CNS=$NSH; else CNS=$NSX; fi
		CDIR=$W/$_name/$K
		rm -rf "$CDIR"
		mkdir -p "$CDIR"
		: >"$CDIR/cmds"
		for _dv in d0 v0; do
			"$TC61" -n "$CNS" qdisc del dev $_dv root 2>/dev/null
			"$IP" -n "$CNS" link set dev $_dv txqueuelen 1000
		done
		D=$SDEV
		$_fn
		views "$CDIR" "$SDEV"
	done
	# each kind's dumps name it (the comparisons rename htbx to htb)
	_kh=$(grep -c '^qdisc htb \|^class htb ' "$W/$_name/htb/61.-.txt")
	_kx=$(grep -c '^qdisc htbx \|^class htbx ' "$W/$_name/htbx/61.-.txt")
	if [ "$_kh" != "$_kx" ]; then
		fail "$_name: as many htbx qdiscs and classes as htb ones" "htb $_kh, htbx $_kx"
	elif cmp -s "$W/$_name/htb/cmds" "$W/$_name/htbx/cmds"; then
		ok "$_name: $(wc -l <"$W/$_name/htb/cmds") commands, every exit status alike, $_kx htbx qdiscs and classes"
	else
		fail "$_name: every exit status alike" \
			"$(diff "$W/$_name/htb/cmds" "$W/$_name/htbx/cmds" | head -n 20)" \
			"htbx stderr: $(head -c 600 "$W/$_name/htbx/stderr")"
	fi
	compare "$_name" "text, tc $V61" text 61.-.txt 61.-s.txt 61.-s_-d.txt
	for _s in $XTCS; do
		eval "_v=\$XV_$_s _j=\$XJ_$_s"
		compare "$_name" "text, tc $_v" text $_s.-.txt $_s.-s.txt $_s.-s_-d.txt
		if [ -n "$_j" ]; then
			compare "$_name" "JSON, tc $_v" json $_s.-j.json $_s.-j_-s.json $_s.-j_-s_-d.json
		else
			compare "$_name" "qdisc JSON, tc $_v" json $_s.qdisc.-j.json $_s.qdisc.-j_-s.json \
				$_s.qdisc.-j_-s_-d.json
		fi
	done
	compare "$_name" "qdisc JSON, tc $V61" json 61.qdisc.-j.json 61.qdisc.-j_-s_-d.json
}

# ---------------------------------------------------------- sequences
# Explicit bursts are chosen so that htb's tick encoding holds them
# exactly (a whole multiple of 8 us at the class's rate), which lets the
# sequences without masks compare tokens too.

# tc-htb(8): its SYNOPSIS forms (qdisc default and r2q; a class with
# rate, ceil, burst, cburst, prio, quantum; a parent given without minor)
seq_synopsis() {
	t qdisc add dev $D root handle 1: $K default 10 r2q 10
	t class add dev $D parent 1: classid 1:1 $K rate 10mbit ceil 10mbit burst 15k cburst 1600
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit ceil 10mbit burst 1000 cburst 1600 prio 1 quantum 1500
	t class add dev $D parent 1:1 classid 1:20 $K rate 2mbit ceil 5mbit burst 2000 cburst 2000 prio 2 quantum 3000
}

# tc-htb(8) NOTES: "a 10mbit rate requires a 12 kilobyte burst" (12 KiB
# at 10mbit is not a whole number of ticks: htb shows 12287 bytes, D4)
seq_notes() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 10mbit burst 12k cburst 12k
}

# The HTB user guide (devik), "link sharing": default bursts (D3)
seq_userguide() {
	t qdisc add dev $D root handle 1: $K default 12
	t class add dev $D parent 1: classid 1:1 $K rate 100kbps ceil 100kbps
	t class add dev $D parent 1:1 classid 1:10 $K rate 30kbps ceil 100kbps
	t class add dev $D parent 1:1 classid 1:11 $K rate 10kbps ceil 100kbps
	t class add dev $D parent 1:1 classid 1:12 $K rate 60kbps ceil 100kbps
	t filter add dev $D protocol ip parent 1:0 prio 1 u32 match ip src 1.2.3.4 match ip dport 80 0xffff flowid 1:10
	t filter add dev $D protocol ip parent 1:0 prio 1 u32 match ip src 1.2.3.4 flowid 1:11
}

# The LARTC HOWTO, HTB chapter: bursts given, cbursts left default (D3)
seq_lartc() {
	t qdisc add dev $D root handle 1: $K default 30
	t class add dev $D parent 1: classid 1:1 $K rate 6mbit burst 15k
	t class add dev $D parent 1:1 classid 1:10 $K rate 5mbit burst 15k
	t class add dev $D parent 1:1 classid 1:20 $K rate 3mbit ceil 6mbit burst 15k
	t class add dev $D parent 1:1 classid 1:30 $K rate 1kbit ceil 6mbit burst 15k
	t qdisc add dev $D parent 1:10 handle 10: sfq perturb 10
	t qdisc add dev $D parent 1:20 handle 20: sfq perturb 10
	t qdisc add dev $D parent 1:30 handle 30: sfq perturb 10
	t filter add dev $D protocol ip parent 1:0 prio 1 u32 match ip dport 80 0xffff flowid 1:10
	t filter add dev $D protocol ip parent 1:0 prio 1 u32 match ip sport 25 0xffff flowid 1:20
}

# Every default: a class given only a rate (D3)
seq_defaults() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 10mbit
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit ceil 10mbit
}

# prio: 0, 7, and what htb clamps to 7
seq_prio() {
	t qdisc add dev $D root handle 1: $K
	for p in 0 7 8 4294967295; do
		t class add dev $D parent 1: classid 1:$((p % 100 + 10)) $K rate 1mbit burst 1000 cburst 1000 prio $p
	done
	t class add dev $D parent 1: classid 1:9 $K rate 1mbit burst 1000 cburst 1000 prio 4294967296
	t class add dev $D parent 1: classid 1:8 $K rate 1mbit burst 1000 cburst 1000 prio -1
}

# quantum: given (1 .. 2^32-1), and derived and clamped to 1000/200000
seq_quantum() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 1000 cburst 1000 quantum 1
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit burst 1000 cburst 1000 quantum 200001
	t class add dev $D parent 1: classid 1:3 $K rate 1mbit burst 1000 cburst 1000 quantum 2147483647
	t class add dev $D parent 1: classid 1:4 $K rate 1mbit burst 1000 cburst 1000 quantum 4294967295
	t class add dev $D parent 1: classid 1:5 $K rate 1mbit burst 1000 cburst 1000 quantum 0
	t class add dev $D parent 1: classid 1:6 $K rate 1kbit burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:7 $K rate 1gbit burst 15000 cburst 15000
	t class add dev $D parent 1: classid 1:8 $K rate 80mbit burst 16000 cburst 16000
}

# r2q, default and direct_qlen edges, on nested qdiscs of the same kind
seq_qdisc_opts() {
	t qdisc add dev $D root handle 1: $K r2q 1 default 0 direct_qlen 0
	for i in 1 2 3 4 5 6 7; do
		t class add dev $D parent 1: classid 1:$i $K rate 1mbit burst 1000 cburst 1000
	done
	t qdisc add dev $D parent 1:1 handle 2: $K r2q 0 default ffff direct_qlen 1
	t qdisc add dev $D parent 1:2 handle 3: $K r2q 4294967295 def 10000 direct_qlen 4294967294
	t qdisc add dev $D parent 1:3 handle 4: $K r 7 d 10010 di 4294967295
	t qdisc add dev $D parent 1:4 handle 5: $K debug 3 default 1
	t qdisc add dev $D parent 1:5 handle 6: $K debug 0123 de 20
	t qdisc add dev $D parent 1:6 handle 7: $K default 0x30
	for q in 2 3 4 5 6 7; do
		t class add dev $D parent $q: classid $q:10 $K rate 1mbit burst 1000 cburst 1000
	done
	t qdisc add dev $D parent 1:7 handle 8: $K r2q x
	t qdisc add dev $D parent 1:7 handle 8: $K default zz
	t qdisc add dev $D parent 1:7 handle 8: $K direct_qlen 4294967296
	t qdisc add dev $D parent 1:7 handle 8: $K offload
	t qdisc add dev $D parent 1:7 handle 8: $K foo
}

# mpu, overhead, linklayer edges (tc-htb's u16s), and abbreviations
seq_lenspec() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 1000 cburst 1000 mpu 0 overhead 0 linklayer ethernet
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit burst 1000 cburst 1000 mpu 64 overhead 4 linklayer atm
	t class add dev $D parent 1: classid 1:3 $K rate 1mbit burst 1000 cburst 1000 mpu 65535 overhead 65535 linklayer adsl
	t class add dev $D parent 1: classid 1:4 $K rate 1mbit burst 1000 cburst 1000 mp 96 o 14 l a
	t class add dev $D parent 1: classid 1:5 $K rate 1mbit burst 1000 cburst 1000 l e
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit burst 1000 cburst 1000 mpu 65536
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit burst 1000 cburst 1000 overhead 65536
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit burst 1000 cburst 1000 linklayer token-ring
}

# mtu (htb uses it for its rate table and default burst only: not shown)
seq_mtu() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 1000 cburst 1000 mtu 9000
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit burst 1000 cburst 1000 mtu 65536
	t class add dev $D parent 1: classid 1:3 $K rate 1mbit burst 1000 cburst 1000 m 2097152
	t class add dev $D parent 1: classid 1:4 $K rate 1mbit burst 1000 cburst 1000 mtu 0
	t class add dev $D parent 1: classid 1:5 $K rate 1mbit burst 1000 cburst 1000 mtu 4294967296
}

# rates: bit/s .. 8tbit, fractions, bytes/s units, strtod forms
seq_rates() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 8bit burst 100 cburst 100
	t class add dev $D parent 1: classid 1:2 $K rate 1kbit burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:3 $K rate 1.5mbit burst 1500 cburst 1500
	t class add dev $D parent 1: classid 1:4 $K rate 100gbit burst 100000 cburst 100000
	t class add dev $D parent 1: classid 1:5 $K rate 8tbit burst 8000000 cburst 8000000
	t class add dev $D parent 1: classid 1:6 $K rate 1e6 burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:7 $K rate 125kbps burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:8 $K rate 1Mibit ceil 2MBIT burst 16384 cburst 1000
	t class add dev $D parent 1: classid 1:9 $K rate 7bit
	t class add dev $D parent 1: classid 1:9 $K rate 0
	t class add dev $D parent 1: classid 1:9 $K rate 10mbits
	t class add dev $D parent 1: classid 1:9 $K rate 1mbit rate 2mbit
	t class add dev $D parent 1: classid 1:9 $K rate 7bit rate 1mbit burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:10 $K rate
}

# ceil: = rate, above, below (htb takes it: held to ceil), 0 (= rate)
seq_ceil() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 2mbit ceil 2mbit burst 2000 cburst 2000
	t class add dev $D parent 1: classid 1:2 $K rate 2mbit ceil 8mbit burst 2000 cburst 2000
	t class add dev $D parent 1: classid 1:3 $K rate 2mbit ceil 1mbit burst 2000 cburst 2000
	t class add dev $D parent 1: classid 1:4 $K rate 2mbit ceil 0 burst 2000 cburst 2000
	t class add dev $D parent 1: classid 1:5 $K rate 2mbit ceil 1mbit ceil 3mbit burst 2000 cburst 2000
}

# burst spellings: abbreviations, aliases, /cell, fractions, 0 (D3)
seq_burst() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit b 2k c 3k
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit buffer 4k cbuffer 5k
	t class add dev $D parent 1: classid 1:3 $K rate 1mbit maxburst 6000 cmaxburst 7000
	t class add dev $D parent 1: classid 1:4 $K rate 1mbit bu 1000/8 cb 2000/64
	t class add dev $D parent 1: classid 1:5 $K rate 1mbit burst 1.9k cburst 16kbit
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit burst 1000/3
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit burst 4g
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit buf 1000
	t class add dev $D parent 1: classid 1:6 $K rate 1mbit max 1000
}
seq_burst0() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 0 cburst 0 quantum 0
}

# N% of the device speed (veth: 10000 Mbit/s)
seq_percent() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 10% ceil 50% burst 15000 cburst 5000
	t class add dev $D parent 1:1 classid 1:10 $K rate 0.01% ceil 100% burst 1000 cburst 10000
	t class add dev $D parent 1:1 classid 1:11 $K rate 101%
	t class add dev $D parent 1:1 classid 1:11 $K rate %5
}

# change: what is not given takes its default again (the issue's case:
# rate 6mbit on a class with ceil 5mbit)
seq_change_defaults() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 10mbit ceil 10mbit burst 15k cburst 15k
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit ceil 5mbit burst 15k cburst 15k prio 3 quantum 5000 mpu 64 overhead 4 linklayer atm
	t class change dev $D parent 1:1 classid 1:10 $K rate 6mbit
	t class change dev $D parent 1:1 classid 1:10 $K ceil 8mbit
	t class change dev $D classid 1:10 $K rate 2mbit prio 9
}
seq_change_explicit() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 10mbit ceil 10mbit burst 15k cburst 15k
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit ceil 5mbit burst 15k cburst 15k prio 3
	t class change dev $D parent 1:1 classid 1:10 $K rate 2mbit ceil 4mbit burst 1000 cburst 2000 prio 1 quantum 2000
	t class change dev $D parent 1:1 classid 1:10 $K rate 1mbit ceil 3mbit burst 500 cburst 3000 mpu 32 overhead 8
	t class change dev $D parent 1:1 classid 1:77 $K rate 1mbit
}

# replace: an existing class (all of it), and a new one (created)
seq_replace() {
	t qdisc add dev $D root handle 1: $K default 20
	t class add dev $D parent 1: classid 1:1 $K rate 10mbit ceil 10mbit burst 15k cburst 15k
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit ceil 5mbit burst 15k cburst 15k prio 3
	t class replace dev $D parent 1:1 classid 1:10 $K rate 2mbit burst 2000 cburst 2000
	t class replace dev $D parent 1:1 classid 1:20 $K rate 3mbit ceil 6mbit burst 3000 cburst 3000 prio 4
	t qdisc replace dev $D parent 1:20 handle 20: sfq
	t qdisc replace dev $D parent 1:20 handle 20: pfifo limit 5
}

# an inner class keeps prio and quantum (htb sets them for leaves only)
# and shows them again once it is a leaf
seq_inner() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 4mbit ceil 8mbit burst 4000 cburst 4000 prio 3 quantum 5000
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit burst 1000 cburst 1000
	t class change dev $D classid 1:1 $K rate 4mbit ceil 8mbit burst 4000 cburst 4000 prio 5 quantum 7000
	t class change dev $D classid 1:1 $K rate 2mbit ceil 8mbit burst 4000 cburst 4000
	t class del dev $D classid 1:10
}

# delete: leaves, refused deletes, the qdisc; the parent a leaf again
seq_delete() {
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 4mbit burst 4000 cburst 4000
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit burst 1000 cburst 1000
	t class add dev $D parent 1:1 classid 1:20 $K rate 1mbit burst 1000 cburst 1000
	t class add dev $D parent 1:20 classid 1:21 $K rate 1mbit burst 1000 cburst 1000
	t class del dev $D classid 1:1
	t class del dev $D classid 1:20
	t class del dev $D classid 1:21
	t class del dev $D classid 1:21
	t class del dev $D classid 1:10
	t class add dev $D parent 1:1 classid 1:10 $K rate 1mbit burst 1000 cburst 1000
	t qdisc add dev $D parent 1:10 handle 10: sfq
	t qdisc del dev $D parent 1:10 handle 10:
}

# refused alike
seq_errors() {
	t qdisc add dev $D root handle 1: $K
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:2 $K ceil 1mbit
	t class change dev $D classid 1:1 $K ceil 2mbit
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit slot 1
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit prio
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit ce 2mbit
	t class add dev $D parent 1: classid 1:2 $K r 1mbit
	t class add dev $D parent 1: classid 2:2 $K rate 1mbit
	t class change dev $D classid 1:99 $K rate 1mbit
	t class del dev $D classid 1:99
}

# direct_qlen follows the device's txqueuelen, 0 included (as htb)
seq_txqueuelen() {
	"$IP" -n "$CNS" link set dev $D txqueuelen 0
	t qdisc add dev $D root handle 1: $K
	t class add dev $D parent 1: classid 1:1 $K rate 1mbit burst 1000 cburst 1000
	t class add dev $D parent 1: classid 1:2 $K rate 1mbit burst 1000 cburst 1000
	"$IP" -n "$CNS" link set dev $D txqueuelen 77
	t qdisc add dev $D parent 1:1 handle 2: $K
	t qdisc add dev $D parent 1:2 handle 3: $K direct_qlen 5
}

# the deepest tree: 8 levels (the 9th refused by both)
seq_depth() {
	t qdisc add dev $D root handle 1: $K
	p=1:
	for i in 1 2 3 4 5 6 7 8 9; do
		t class add dev $D parent $p classid 1:$i $K rate 1mbit burst 1000 cburst 1000
		p=1:$i
	done
}

run_seq synopsis d0 "" seq_synopsis
run_seq notes d0 "burst cburst tokens ctokens" seq_notes
run_seq userguide d0 "burst cburst tokens ctokens" seq_userguide
run_seq lartc d0 "cburst ctokens" seq_lartc
run_seq defaults d0 "burst cburst tokens ctokens" seq_defaults
run_seq prio d0 "" seq_prio
run_seq quantum d0 "" seq_quantum
run_seq qdisc_opts d0 "" seq_qdisc_opts
run_seq lenspec d0 "" seq_lenspec
run_seq mtu d0 "" seq_mtu
run_seq rates d0 "" seq_rates
run_seq ceil d0 "" seq_ceil
run_seq burst d0 "" seq_burst
run_seq burst0 d0 "burst cburst tokens ctokens" seq_burst0
run_seq percent v0 "" seq_percent
run_seq change_defaults d0 "burst cburst tokens ctokens" seq_change_defaults
run_seq change_explicit d0 "tokens ctokens" seq_change_explicit
run_seq replace d0 "tokens ctokens" seq_replace
run_seq inner d0 "tokens ctokens" seq_inner
run_seq delete d0 "" seq_delete
run_seq errors d0 "" seq_errors
run_seq depth d0 "" seq_depth
run_seq txqueuelen d0 "" seq_txqueuelen
[ "${TEST_COMPAT_PARTS:-all}" = views ] && exit 0

# ------------------------------------------------ differences on purpose

# E1: a parent that does not exist
for K in htb htbx; do
	if [ $K = htb ]; then CNS=$NSH; else CNS=$NSX; fi
	in_ns "$CNS" "$TC61" qdisc del dev d0 root 2>/dev/null
	in_ns "$CNS" "$TC61" qdisc add dev d0 root handle 1: $K
done
out_h=$(in_ns "$NSH" "$TC61" class add dev d0 parent 1:99 classid 1:20 htb rate 1mbit 2>&1; echo "rc $?")
out_x=$(in_ns "$NSX" "$TC61" class add dev d0 parent 1:99 classid 1:20 htbx rate 1mbit 2>&1; echo "rc $?")
if printf '%s\n' "$out_h" | grep -q 'rc 0' &&
   in_ns "$NSH" "$TC61" class show dev d0 | grep -q '^class htb 1:20 root' &&
   printf '%s\n' "$out_x" | grep -q 'rc 2' &&
   printf '%s\n' "$out_x" | grep -q 'parent class 1:99 does not exist\|parent class does not exist' &&
   [ -z "$(in_ns "$NSX" "$TC61" class show dev d0)" ]; then
	ok "E1 parent 1:99 missing: htb makes 1:20 a root class, htbx refuses it: $(echo "$out_x" | head -n 1)"
else
	fail "E1 parent 1:99 missing: htb makes a root class, htbx refuses" "htb: $out_h" "htbx: $out_x"
fi

# E2: above 8 Tbit
out_h=$(in_ns "$NSH" "$TC61" class add dev d0 parent 1: classid 1:30 htb rate 9tbit burst 9000000 cburst 9000000 2>&1)
out_x=$(in_ns "$NSX" "$TC61" class add dev d0 parent 1: classid 1:30 htbx rate 9tbit burst 9000000 cburst 9000000 2>&1)
sh_=$(in_ns "$NSH" "$TC61" class show dev d0 classid 1:30)
sx_=$(in_ns "$NSX" "$TC61" class show dev d0 classid 1:30)
if printf '%s\n' "$sh_" | grep -q 'rate 9Tbit ceil 9Tbit' &&
   printf '%s\n' "$sx_" | grep -q 'rate 8Tbit ceil 8Tbit' &&
   printf '%s\n' "$out_x" | grep -q 'Warning: .*8Tbit'; then
	ok "E2 rate 9tbit: htb 9Tbit, htbx 8Tbit with a warning: $out_x"
else
	fail "E2 rate 9tbit: htb 9Tbit, htbx 8Tbit with a warning" "htb: $sh_ $out_h" "htbx: $sx_ $out_x"
fi

# E3: qdisc change
out_h=$(in_ns "$NSH" "$TC61" qdisc change dev d0 root handle 1: htb default 5 2>&1; echo "rc $?")
out_x=$(in_ns "$NSX" "$TC61" qdisc change dev d0 root handle 1: htbx default 5 2>&1; echo "rc $?")
if printf '%s\n' "$out_h" | grep -q 'rc [12]' && printf '%s\n' "$out_x" | grep -q 'rc 0' &&
   in_ns "$NSX" "$TC61" qdisc show dev d0 | grep -q 'default 0x5 '; then
	ok "E3 qdisc change: htb refuses it ($(echo "$out_h" | head -n 1)), htbx changes default"
else
	fail "E3 qdisc change: htb refuses, htbx changes" "htb: $out_h" "htbx: $out_x"
fi

# the warnings htbx adds where htb adjusts silently (D5), one of each kind
warn_is() {
	_w=$1
	shift
	_o=$(in_ns "$NSX" "$TC61" "$@" 2>&1)
	if printf '%s\n' "$_o" | grep -q "$_w"; then
		ok "warning: tc $* -> $_o"
	else
		fail "warning '$_w' for tc $*" "$_o"
	fi
}
in_ns "$NSX" "$TC61" qdisc del dev d0 root 2>/dev/null
warn_is 'r2q 0.*counts as 1' qdisc add dev d0 root handle 1: htbx r2q 0
warn_is 'only its low 16 bits name a class' qdisc change dev d0 root handle 1: htbx default 10000
warn_is 'debug is ignored' qdisc change dev d0 root handle 1: htbx debug 3
warn_is 'prio 8 counts as 7\|prio above 7 counts as 7' class add dev d0 parent 1: classid 1:1 htbx rate 1mbit prio 8
warn_is 'held to ceil' class add dev d0 parent 1: classid 1:2 htbx rate 2mbit ceil 1mbit
warn_is 'burst 0 means the default' class add dev d0 parent 1: classid 1:3 htbx rate 1mbit burst 0
warn_is 'quantum 0 means rate/r2q' class add dev d0 parent 1: classid 1:4 htbx rate 1mbit quantum 0
warn_is 'quantum .*clamped' class add dev d0 parent 1: classid 1:5 htbx rate 1kbit
warn_is 'mtu above 1048576' class add dev d0 parent 1: classid 1:6 htbx rate 1mbit mtu 2000000
in_ns "$NSX" "$TC61" class add dev d0 parent 1:6 classid 1:60 htbx rate 1mbit
warn_is 'keeps its prio and quantum' class change dev d0 classid 1:6 htbx rate 1mbit prio 4
warn_is 'adjusted as htb: prio 7; held to ceil < rate\|prio above 7' class add dev d0 parent 1: classid 1:7 htbx rate 2mbit ceil 1mbit prio 9

# default burst (D3): htbx's is 1 ms of the rate, at least 2 mtu
in_ns "$NSX" "$TC61" qdisc del dev d0 root 2>/dev/null
in_ns "$NSX" "$TC61" qdisc add dev d0 root handle 1: htbx
in_ns "$NSX" "$TC61" class add dev d0 parent 1: classid 1:1 htbx rate 100mbit ceil 1mbit 2>/dev/null
b=$(in_ns "$NSX" "$TC61" class show dev d0 classid 1:1)
if printf '%s\n' "$b" | grep -q 'burst 12500b cburst 3200b'; then
	ok "D3 htbx's default burst: 100mbit -> 12500b (1 ms), 1mbit -> 3200b (2 mtu)"
else
	fail "D3 htbx's default burst" "$b"
fi

# ------------------------------------------------------------ traffic

# traffic_tree KIND: one tree per kind, on VETH_A of its pair
traffic_tree() {
	_k=$1
	tc_a qdisc add dev "$VETH_A" root handle 1: "$_k" default 10
	tc_a class add dev "$VETH_A" parent 1: classid 1:1 "$_k" rate 8mbit ceil 8mbit burst 10000 cburst 10000
	tc_a class add dev "$VETH_A" parent 1:1 classid 1:10 "$_k" rate 2mbit ceil 8mbit burst 2000 cburst 10000 prio 1
	tc_a class add dev "$VETH_A" parent 1:1 classid 1:20 "$_k" rate 4mbit ceil 4mbit burst 4000 cburst 4000 prio 0
}

netns_pair || { fail "netns_pair for traffic"; exit 1; }
PA_H=$NS_A PB_H=$NS_B
netns_pair || { fail "netns_pair for traffic"; exit 1; }
PA_X=$NS_A PB_X=$NS_B

# 1. pings well below every rate: every counter identical but tokens
for K in htb htbx; do
	if [ $K = htb ]; then NS_A=$PA_H NS_B=$PB_H; else NS_A=$PA_X NS_B=$PB_X; fi
	traffic_tree $K
	in_a ping -c 20 -s 200 -W 1 "$ADDR_B" >/dev/null 2>&1
	in_a ping -c 5 -s 1000 -W 1 "$ADDR_B" >/dev/null 2>&1
	mkdir -p "$W/ping/$K"
	tc_a -s class show dev "$VETH_A" >"$W/ping/$K/61.class.-s.txt"
	tc_a -s -d qdisc show dev "$VETH_A" >"$W/ping/$K/61.qdisc.-s_-d.txt"
	tc_a -s -d class show dev "$VETH_A" >"$W/ping/$K/61.class.-s_-d.txt"
	if [ -n "$TC615" ]; then
		in_a "$TC615" -j -s class show dev "$VETH_A" >"$W/ping/$K/615.class.-j_-s.json"
	fi
done
MASKS="tokens ctokens"
compare ping "25 pings: class and qdisc counters, tc $V61" text 61.class.-s.txt \
	61.qdisc.-s_-d.txt 61.class.-s_-d.txt
[ -n "$TC615" ] && compare ping "25 pings: class counters JSON, tc $V615" json 615.class.-j_-s.json
sent=$(grep -c 'Sent [1-9]' "$W/ping/htbx/61.class.-s.txt")
check "ping: the classes on the path counted traffic ($sent classes with bytes)" test "$sent" -ge 2
check "ping: htb's run had htb classes, htbx's htbx classes" \
	sh -c "grep -q '^class htb ' '$W/ping/htb/61.class.-s.txt' && grep -q '^class htbx ' '$W/ping/htbx/61.class.-s.txt'"

# flood_both NAME TREE LEAF: for each kind, a new tree (TREE KIND), a
# short pfifo under class LEAF (so that the flood drops: the socket's send
# buffer would hold it back before pfifo's default 1000 packets), a 3 s
# UDP flood at 24 mbit into the default class; the class counters into
# $W/NAME-KIND.cls, `tc -s class show` into .txt, `tc -s qdisc show`
# into .qdisc.
flood_both() {
	for K in htb htbx; do
		if [ $K = htb ]; then NS_A=$PA_H NS_B=$PB_H; else NS_A=$PA_X NS_B=$PB_X; fi
		tc_a qdisc del dev "$VETH_A" root
		"$2" $K
		tc_a qdisc add dev "$VETH_A" parent "$3" handle "${3#1:}": pfifo limit 10
		measure -t 3 -w 1 -o "$W/$1-$K.json" 5001,rate=24mbit >/dev/null 2>&1
		class_stats "$VETH_A" >"$W/$1-$K.cls"
		tc_a -s class show dev "$VETH_A" >"$W/$1-$K.txt"
		tc_a -s qdisc show dev "$VETH_A" >"$W/$1-$K.qdisc"
		wait_until 20 tc_drained "$VETH_A"
	done
}

# 2. a UDP flood at 3x the default class's ceil
flood_both flood traffic_tree 1:10
check "flood: htb's run had htb classes, htbx's htbx classes" \
	sh -c "grep -q '^class htb ' '$W/flood-htb.txt' && grep -q '^class htbx ' '$W/flood-htbx.txt'"
for c in 1:1 1:10; do
	bh=$(cls_get "$(cat "$W/flood-htb.cls")" $c bytes)
	bx=$(cls_get "$(cat "$W/flood-htbx.cls")" $c bytes)
	if [ "$bh" -gt 0 ] && within "$bx" "$bh" 5; then
		ok "flood: class $c bytes htbx $bx, htb $bh (within 5 %)"
	else
		fail "flood: class $c bytes within 5 %" "htb $bh, htbx $bx"
	fi
done
for f in overlimits drops; do
	vh=$(cls_get "$(cat "$W/flood-htb.cls")" 1:10 $f)
	vx=$(cls_get "$(cat "$W/flood-htbx.cls")" 1:10 $f)
	if [ "$vh" -gt 0 ] && [ "$vx" -gt 0 ]; then
		ok "flood: class 1:10 $f counted by both (htb $vh, htbx $vx)"
	else
		fail "flood: class 1:10 $f counted by both" "htb $vh, htbx $vx"
	fi
done
xs() { awk -v c="$2" -v f="$3" '$1 == "class" { cur = $3 } cur == c && $0 ~ f ":" {
	for (i = 1; i < NF; i++) if ($i == f ":") { print $(i + 1); exit } }' "$1"; }
for f in lended borrowed; do
	vh=$(xs "$W/flood-htb.txt" 1:10 $f) vx=$(xs "$W/flood-htbx.txt" 1:10 $f)
	if [ "${vh:-0}" -gt 0 ] && [ "${vx:-0}" -gt 0 ]; then
		ok "flood: class 1:10 $f counted by both (htb $vh, htbx $vx)"
	else
		fail "flood: class 1:10 $f counted by both" "htb $vh, htbx $vx"
	fi
done

# 3. sqm-scripts' layout (simplest.qos): a parent at the rate and ceil of
# its one child, a UDP flood at 3x that rate into the child. The child
# sends on its own rate; what the parent's overlimits count differs, on
# purpose (README.md "Migrating from htb"): htb looks at the parent's
# events only when no class below can send, so the parent stays at its
# limit and counts a few; htbx runs every due event first and counts each
# entry, about as many as the child. Pinned here as the difference it is.
# sqm_tree KIND: simplest.qos's tree, on VETH_A
sqm_tree() {
	tc_a qdisc add dev "$VETH_A" root handle 1: "$1" default 11
	tc_a class add dev "$VETH_A" parent 1: classid 1:1 "$1" rate 8mbit ceil 8mbit
	tc_a class add dev "$VETH_A" parent 1:1 classid 1:11 "$1" rate 8mbit ceil 8mbit prio 0
}
flood_both sqm sqm_tree 1:11
oh=$(cls_get "$(cat "$W/sqm-htb.cls")" 1:1 overlimits)
ox=$(cls_get "$(cat "$W/sqm-htbx.cls")" 1:1 overlimits)
ch=$(cls_get "$(cat "$W/sqm-htb.cls")" 1:11 overlimits)
cx=$(cls_get "$(cat "$W/sqm-htbx.cls")" 1:11 overlimits)
bh=$(cls_get "$(cat "$W/sqm-htb.cls")" 1:11 bytes)
bx=$(cls_get "$(cat "$W/sqm-htbx.cls")" 1:11 bytes)
if [ "${bh:-0}" -gt 0 ] && within "$bx" "$bh" 5; then
	ok "sqm layout: the child's bytes htbx $bx, htb $bh (within 5 %)"
else
	fail "sqm layout: the child's bytes within 5 %" "htb $bh, htbx $bx"
fi
if [ "${ch:-0}" -gt 0 ] && [ "${cx:-0}" -gt 0 ] && [ "$((oh * 10))" -le "$ch" ] &&
   [ "$((ox * 2))" -ge "$cx" ]; then
	ok "sqm layout: overlimits of the parent at its one busy child's rate: htb $oh (child $ch), htbx $ox (child $cx), the documented difference"
else
	fail "sqm layout: overlimits of the parent: htb's a tenth of its child's at most, htbx's half of its child's at least" \
		"htb 1:1 $oh, 1:11 $ch; htbx 1:1 $ox, 1:11 $cx" "$(cat "$W/sqm-htb.qdisc" "$W/sqm-htbx.qdisc")"
fi

# ------------------------------------------------------------ FireQOS

fireqos_run() {
	# fireqos_run KIND DIR: start FireQOS from DIR in NS_A, flood, status
	_k=$1 _dir=$2
	tc_a qdisc del dev "$VETH_A" root 2>/dev/null
	rm -rf /var/run/fireqos /var/run/fireqos.lock
	mkdir -p /var/run
	cat >"$W/fireqos.conf" <<EOF
interface $VETH_A world output rate 10Mbit
	class voip commit 1Mbit
		match udp port 5060
	class bulk commit 2Mbit
		match udp port 5001
EOF
	# flock from the host (lines/stage-fireqos): busybox has none
	in_a env PATH="$_dir/bin:$PATH" bash "$_dir/fireqos" start "$W/fireqos.conf" \
		>"$W/fq-start-$_k.log" 2>&1 || return 1
	# the sender runs 14 s; status prints a line a second
	bg_in_ns "$NS_B" "$HTBX_TRAFFIC" recv -t 13 -w 1 5001 5060 >/dev/null 2>&1
	HTBX_PIDS="$HTBX_PIDS $BG_PID"
	sleep 1
	bg_in_ns "$NS_A" "$HTBX_TRAFFIC" send -d "$ADDR_B" -t 14 -s 1000 \
		5001,rate=12mbit 5060,rate=600kbit >/dev/null 2>&1
	HTBX_PIDS="$HTBX_PIDS $BG_PID"
	sleep 2
	in_a env PATH="$_dir/bin:$PATH" timeout 9 bash "$_dir/fireqos" status world \
		>"$W/fq-status-$_k.log" 2>&1
	wait
	HTBX_PIDS=
	tc_a -s class show dev "$VETH_A" >"$W/fq-class-$_k.txt"
	in_a env PATH="$_dir/bin:$PATH" bash "$_dir/fireqos" stop >/dev/null 2>&1
	return 0
}

# fq_figures LOG: per class (by name) the median of the figures FireQOS's
# status loop printed (one line a second after its "Class Utilization"
# banner; "-" is 0), the first line left out (a partial second)
fq_figures() {
	awk '
	/Class Utilization on/ {
		if (getline <= 0) exit
		n = NF
		for (i = 1; i <= n; i++) name[i] = $i
		loop = 1
		next
	}
	loop && NF == n {
		if (++rows == 1) next
		used++
		for (i = 1; i <= n; i++) {
			if ($i == "ERROR" || $i == "RESET") err++
			v[i, used] = ($i == "-") ? 0 : $i + 0
		}
	}
	END {
		if (!used) { print "none"; exit }
		for (i = 1; i <= n; i++) {
			# insertion sort of column i, then its middle
			for (a = 2; a <= used; a++)
				for (b = a; b > 1 && v[i, b - 1] > v[i, b]; b--) {
					t = v[i, b]; v[i, b] = v[i, b - 1]; v[i, b - 1] = t
				}
			m = (used % 2) ? v[i, (used + 1) / 2] :
				(v[i, used / 2] + v[i, used / 2 + 1]) / 2
			printf "%s=%.0f ", name[i], m
		}
		printf "lines=%d errors=%d\n", used, err + 0
	}' "$1"
}

if [ ! -e "$FQ/fireqos" ]; then
	skip "FireQOS: htb and htbx status figures" "FireQOS is not staged ($FQ: run scripts/setup, which installs the fireqos package and runs lines/stage-fireqos)"
else
	FQX=$W/fireqos-htbx
	mkdir -p "$FQX"
	cp -r "$FQ"/* "$FQX/"
	# the kind renamed: where FireQOS emits "htb" and where its status
	# parser matches it ($2 == "htb", TCSTATS_htb_*): the only change
	sed -i 's/htb/htbx/g' "$FQX/fireqos"
	echo "# FireQOS $(cat "$FQ/VERSION"): $(grep -c htbx "$FQX/fireqos") lines with the kind renamed"
	NS_A=$PA_H NS_B=$PB_H
	tc_a qdisc del dev "$VETH_A" root 2>/dev/null
	if ! fireqos_run htb "$FQ"; then
		fail "FireQOS start with htb" "$(tail -n 20 "$W/fq-start-htb.log")"
	else
		NS_A=$PA_X NS_B=$PB_X
		tc_a qdisc del dev "$VETH_A" root 2>/dev/null
		if ! fireqos_run htbx "$FQX"; then
			fail "FireQOS start with htbx" "$(tail -n 20 "$W/fq-start-htbx.log")"
		else
			check "FireQOS start: the htb run made htb classes" grep -q '^class htb ' "$W/fq-class-htb.txt"
			check "FireQOS start: the htbx run made htbx classes" grep -q '^class htbx ' "$W/fq-class-htbx.txt"
			fh=$(fq_figures "$W/fq-status-htb.log")
			fx=$(fq_figures "$W/fq-status-htbx.log")
			echo "# FireQOS status (Kbit/s), htb:  $fh"
			echo "# FireQOS status (Kbit/s), htbx: $fx"
			sed 's/^/# htbx status: /' "$W/fq-status-htbx.log" | tail -n 8
			if [ "$fh" = none ] || [ "$fx" = none ]; then
				fail "FireQOS status prints figures for both" "htb: $fh" "htbx: $fx" \
					"$(tail -n 12 "$W/fq-status-htbx.log")"
			else
				case $fx in *errors=0*) ok "FireQOS status on htbx: no ERROR/RESET cell" ;;
				*) fail "FireQOS status on htbx: no ERROR/RESET cell" "$fx" ;; esac
				for kv in $fh; do
					k=${kv%%=*} vh=${kv#*=}
					case $k in lines|errors) continue ;; esac
					vx=$(printf '%s\n' $fx | sed -n "s/^$k=//p")
					if [ "$vh" -le 50 ] && [ "${vx:-0}" -le 50 ]; then
						ok "FireQOS status $k: idle in both (htb $vh, htbx ${vx:-?} Kbit/s)"
					elif within "${vx:-x}" "$vh" 10; then
						ok "FireQOS status $k: htbx ${vx} Kbit/s, htb $vh (within 10 %)"
					else
						fail "FireQOS status $k within 10 %" "htb $vh, htbx ${vx:-none}"
					fi
				done
			fi
		fi
	fi
fi

netns_cleanup
check "no namespace left behind" netns_leak_check
rm -rf "$W"
exit 0
