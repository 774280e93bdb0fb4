# vm-args: --smp 2 --timeout 900
# vm-kernels: kcsan
# SPDX-License-Identifier: GPL-2.0
#
# suite-mq-smp.sh - suite-mq.sh with two vCPUs: a pktgen thread on each
# floods every TX queue, so two queues' schedulers run at once and charge
# the shared buckets together; then htbx-fuzz -q 4. The rate bounds are
# 10 % below and 1 % above here (see suite-mq.sh). make check boots it on
# kcsan, whose multi-threaded TCG runs the two vCPUs on two host cores
# at once; the rates on several vCPUs of a kernel without KCSAN are
# mq-smp4's, on 7.3 (`tests/run-all -k 6.12 -s mq-smp` still runs it on
# plain TCG with 2 vCPUs).

. "${HTBX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/vm/suite-mq.sh"
