// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_uaf - test module for the detectors of the debug kernel: it reads an
 * object after freeing it as it loads, so KASAN must report a
 * use-after-free and lines/vm must fail the run
 * (tests/host/vm-detectors.sh). On a kernel without KASAN the read is of
 * freed slab memory and harmless.
 */
#include <linux/module.h>
#include <linux/slab.h>

static noinline int htbx_uaf_read(const char *p)
{
	return READ_ONCE(p[8]);
}

static int __init htbx_uaf_init(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 64);
	kfree(p);
	pr_info("htbx_uaf: read after free: %d\n", htbx_uaf_read(p));
	return 0;
}

static void __exit htbx_uaf_exit(void)
{
}

module_init(htbx_uaf_init);
module_exit(htbx_uaf_exit);
MODULE_DESCRIPTION("sch_htbx harness test: use after free at load");
MODULE_LICENSE("GPL");
