// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_race - test module for the VM harness: a data race on purpose. As
 * it loads, two kernel threads increment one plain counter for a second,
 * so that the kcsan kernel reports a race in htbx_race_bump(). lines/vm
 * fails such a boot only when it is told the module is its concern
 * (HTBX_KCSAN_MODULES), and otherwise counts the report
 * (tests/host/vm-detectors.sh checks both).
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/err.h>

static unsigned long htbx_race_counter;

static noinline void htbx_race_bump(void)
{
	htbx_race_counter++;
}

static int htbx_race_thread(void *arg)
{
	unsigned long end = jiffies + HZ;

	while (time_before(jiffies, end))
		htbx_race_bump();
	complete(arg);
	return 0;
}

static int __init htbx_race_init(void)
{
	struct completion done[2];
	struct task_struct *t;
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		init_completion(&done[i]);
		t = kthread_run(htbx_race_thread, &done[i], "htbx_race/%d", i);
		if (IS_ERR(t))
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		wait_for_completion(&done[i]);
	pr_info("htbx_race: %d threads, counter %lu\n", n, htbx_race_counter);
	return n == 2 ? 0 : -ENOMEM;
}

static void __exit htbx_race_exit(void)
{
}

module_init(htbx_race_init);
module_exit(htbx_race_exit);
MODULE_DESCRIPTION("sch_htbx harness test: a data race for KCSAN at load");
MODULE_LICENSE("GPL");
