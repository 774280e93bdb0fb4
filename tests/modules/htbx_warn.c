// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_warn - test module for the VM harness: it WARNs as it loads, so a
 * guest booted with panic_on_warn=1 must crash and lines/vm must report
 * the run as failed (tests/host/vm-warn.sh).
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init htbx_warn_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit htbx_warn_exit(void)
{
}

module_init(htbx_warn_init);
module_exit(htbx_warn_exit);
MODULE_DESCRIPTION("sch_htbx harness test: WARN_ON(1) at load");
MODULE_LICENSE("GPL");
