// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_leak - test module for the detectors of the debug kernel: as it
 * loads it allocates HTBX_LEAK_N objects and drops every pointer to them, so
 * kmemleak must report them when lines/vm-init scans after the command,
 * and lines/vm must fail the run (tests/host/vm-detectors.sh).
 *
 * Several objects, not one: a copy of the last pointer can stay behind in a
 * dead stack frame, where kmemleak finds it and takes that object for still
 * referenced (lines/vm-init recycles the kept stacks of exited tasks
 * before it scans, but other copies may survive).
 */
#include <linux/module.h>
#include <linux/slab.h>

#define HTBX_LEAK_N	16
/* A size no other allocation in the guest is likely to have. */
#define HTBX_LEAK_SIZE	1213

static noinline void htbx_leak_one(void)
{
	char *p = kmalloc(HTBX_LEAK_SIZE, GFP_KERNEL);

	if (p)
		memset(p, 0x5a, HTBX_LEAK_SIZE);
	/*
	 * Keep the memset and this frame (no tail call into kmalloc), so that
	 * the report's backtrace names this function. Then p goes out of
	 * scope: nothing refers to the object any more.
	 */
	barrier_data(p);
}

static int __init htbx_leak_init(void)
{
	int i;

	for (i = 0; i < HTBX_LEAK_N; i++)
		htbx_leak_one();
	pr_info("htbx_leak: leaked %d objects of %d bytes\n", HTBX_LEAK_N, HTBX_LEAK_SIZE);
	return 0;
}

static void __exit htbx_leak_exit(void)
{
}

module_init(htbx_leak_init);
module_exit(htbx_leak_exit);
MODULE_DESCRIPTION("sch_htbx harness test: leaks allocations at load");
MODULE_LICENSE("GPL");
