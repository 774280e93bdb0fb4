// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild links a module from objects named other than the module itself,
 * so the qdisc, sch_htbx.c, is compiled under this name into sch_htbx.ko.
 */
#include "sch_htbx.c"
