# vm-args: --smp 4 --timeout 900
# vm-kernels: 7.3
# SPDX-License-Identifier: GPL-2.0
#
# suite-mq-smp4.sh - suite-mq.sh on plain TCG with four vCPUs on the
# newest kernel line: a pktgen thread on each floods the TX queues, so up
# to four queues' schedulers charge the shared buckets at once; then
# htbx-fuzz -q 4. This host has two cores and lines/vm runs every vCPU
# on one host thread (single-threaded TCG), so the four interleave, they
# do not run in parallel: this is a correctness run, not a scaling one
# (bench/scale.sh). Bounds as in suite-mq-smp.sh.

echo "# mq-smp4: $(grep -c ^processor /proc/cpuinfo) vCPUs"
. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/suite-mq.sh"
