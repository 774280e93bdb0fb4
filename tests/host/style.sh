#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make style in make check: checkpatch, kernel-doc and sparse (scripts/style)
# report nothing over the kernel-side sources. A line of TAP per checker,
# its findings below a failed one. About 12 s warm (20 s when sparse's
# tree in build/style-<release>/ is built first).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=$(scripts/style 2>&1)
rc=$?
n=0
for c in checkpatch kernel-doc sparse; do
	n=$((n + 1))
	if grep -qx "$c: 0 warnings" <<<"$out"; then
		echo "ok $n - style: $c, 0 warnings"
	else
		echo "not ok $n - style: $(grep "^$c: " <<<"$out" || echo "$c did not run")"
	fi
done
[ $rc = 0 ] || sed 's/^/# /' <<<"$out" | head -n 40
exit 0
