// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild links a module from objects named other than the module itself,
 * so the qdisc, sch_htbx.c, is compiled under this name into sch_htbx.ko,
 * with the scheduling core (htbx_core.c, which the unit harness builds
 * with its own hooks) in the same unit: the hooks it calls per packet
 * (htbx_leaf_dequeue, htbx_pkt_len, htbx_cls_sent, ...) can be inlined.
 */
#include "sch_htbx.c"
#include "htbx_core.c"
