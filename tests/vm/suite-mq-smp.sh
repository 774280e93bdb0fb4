# vm-args: --smp 2 --timeout 900
# vm-kernels: 6.12 kcsan
# SPDX-License-Identifier: GPL-2.0
#
# suite-mq-smp.sh - suite-mq.sh on plain TCG with two vCPUs: a pktgen
# thread on each floods every TX queue, so two queues' schedulers run at
# once and charge the shared buckets together; then htbx-fuzz -q 4. The
# rate bounds are 10 % below and 1 % above here (see suite-mq.sh).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/suite-mq.sh"
