/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the newer kernel APIs the module uses, for older kernels.
 *
 * Force-included before every source file (see Kbuild). Each shim is
 * gated on an HTBX_COMPAT_HAVE_* define that compat/Kbuild.include sets
 * by probing the target kernel's headers, and names the mainline release
 * that introduced the API; a shim goes away when the oldest supported
 * kernel has the API. The module itself is written against the newest API
 * and never tests a kernel version.
 */
#ifndef _HTBX_COMPAT_H
#define _HTBX_COMPAT_H

#include <linux/netlink.h>
#include <linux/kernel.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <net/gen_stats.h>

/* 6.9: MODULE_ALIAS_NET_SCH() -> alias "net-sch-<kind>" for autoloading */
#ifndef HTBX_COMPAT_HAVE_MODULE_ALIAS_NET_SCH
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("net-sch-" id)
#endif
#endif

/*
 * 6.3: NL_SET_ERR_MSG_FMT_MOD() formats the message into the extack.
 * Older extacks only point at a string, and netlink_ack() reads it after
 * RTNL is dropped, so a text formatted into a module buffer could be
 * replaced by a concurrent request's: there, the constant @plain is
 * reported instead.
 */
#ifdef HTBX_COMPAT_HAVE_NL_SET_ERR_MSG_FMT_MOD
#define htbx_err_fmt(extack, plain, fmt, args...)			\
	NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##args)
#else
#define htbx_err_fmt(extack, plain, fmt, args...)			\
	NL_SET_ERR_MSG_MOD(extack, plain)
#endif

/*
 * htbx_err_values(): a message formatted with values (6.3+), and true;
 * before, nothing, and false: the caller reports a constant instead.
 */
#ifdef HTBX_COMPAT_HAVE_NL_SET_ERR_MSG_FMT_MOD
#define htbx_err_values(extack, fmt, args...)				\
	({ NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##args); true; })
#else
#define htbx_err_values(extack, fmt, args...)	false
#endif

/*
 * The message of @src, an extack of the module's own (whose attribute
 * pointers point into no request), into @dst: a formatted one (6.3+) is
 * in @src's buffer and is copied with it.
 */
static inline void htbx_extack_msg(struct netlink_ext_ack *dst,
				   const struct netlink_ext_ack *src)
{
	if (!dst || !src->_msg)
		return;
#ifdef HTBX_COMPAT_HAVE_NL_SET_ERR_MSG_FMT_MOD
	if (src->_msg == src->_msg_buf) {
		memcpy(dst->_msg_buf, src->_msg_buf, sizeof(dst->_msg_buf));
		dst->_msg = dst->_msg_buf;
		return;
	}
#endif
	dst->_msg = src->_msg;
}

/*
 * qdisc_class_in_use()/qdisc_class_get()/qdisc_class_put(): a count of the
 * filters that resolve to a class, kept in Qdisc_class_common (present in
 * Debian's 6.12.117, absent in 6.1.192). Without it, struct htbx_class
 * carries the counter itself (HTBX_COMPAT_CLASS_FILTER_CNT); the macros are
 * expanded in sch_htbx_main.c, where struct htbx_class is known.
 */
#ifndef HTBX_COMPAT_HAVE_QDISC_CLASS_IN_USE
#define HTBX_COMPAT_CLASS_FILTER_CNT
#define htbx_compat_filter_cnt(clc)	\
	(container_of(clc, struct htbx_class, common)->filter_cnt)
#define qdisc_class_in_use(clc)		(htbx_compat_filter_cnt(clc) > 0)
#define qdisc_class_get(clc)		((void)htbx_compat_filter_cnt(clc)++)
#define qdisc_class_put(clc)		\
	((void)(WARN_ON_ONCE(!htbx_compat_filter_cnt(clc)) ||	\
		htbx_compat_filter_cnt(clc)--))
#endif

/*
 * 5.16: struct gnet_stats_basic_sync, a u64_stats-protected byte/packet
 * count, and a bool @running for gen_new_estimator(),
 * gen_replace_estimator() and gnet_stats_copy_basic(): true when the
 * count may be updated while it is read (the reader then retries on the
 * count's own seqcount).
 *
 * Before, the count is a plain struct gnet_stats_basic_packed, updated
 * (bstats_update()) by the data path inside qdisc_run_begin()/_end() of
 * the root qdisc, which write the root's seqcount Qdisc::running; a
 * reader that may race with it passes that seqcount,
 * qdisc_root_sleeping_running(), instead of true (as 5.10's sch_htb does)
 * and retries on it. Callers pass htbx_stats_running(sch) for @running:
 * true on newer kernels, the root's seqcount on older ones. RTNL must be
 * held (qdisc_root_sleeping_running() asserts it); the estimator keeps
 * the pointer, which stays valid as long as the class's qdisc, since a
 * qdisc never moves to another root.
 */
#ifdef HTBX_COMPAT_HAVE_GNET_STATS_BASIC_SYNC
#define htbx_stats_running(sch)		((void)(sch), true)
/* @dst += @src (mq mode sums its queues' qdiscs for a dump) */
#define htbx_bstats_add(dst, src)	gnet_stats_add_basic(dst, NULL, src, true)
#else
#define gnet_stats_basic_sync		gnet_stats_basic_packed
static inline void
gnet_stats_basic_sync_init(struct gnet_stats_basic_packed *b)
{
	b->bytes = 0;
	b->packets = 0;
}
#define htbx_stats_running(sch)		qdisc_root_sleeping_running(sch)
static inline void htbx_bstats_add(struct gnet_stats_basic_packed *dst,
				   const struct gnet_stats_basic_packed *src)
{
	dst->bytes += READ_ONCE(src->bytes);
	dst->packets += READ_ONCE(src->packets);
}
/* the old order: (running, d, cpu, b) */
#define gnet_stats_copy_basic(d, cpu, b, running)			\
	((gnet_stats_copy_basic)(running, d, cpu, b))
#endif

/*
 * mq: a class dump reads each queue's node under that queue's lock
 * (htbx_dump_class_stats). Before 5.16 tc_fill_tclass() dumps a class
 * under the root qdisc's lock with BHs off (gnet_stats_start_copy took
 * qdisc_root_sleeping_lock(): in mq mode queue 0's), so the others nest
 * below it; since the series that made the counters u64_stats_t
 * (struct gnet_stats_basic_sync, probed in compat/Kbuild.include) it
 * holds none, and each queue's lock is taken with BHs off, as its data
 * path runs in softirq.
 */
#ifdef HTBX_COMPAT_HAVE_GNET_STATS_BASIC_SYNC
static inline void htbx_dump_lock(struct Qdisc *queue, unsigned int i)
	__acquires(qdisc_lock(queue))
{
	spin_lock_bh(qdisc_lock(queue));
}

static inline void htbx_dump_unlock(struct Qdisc *queue, unsigned int i)
	__releases(qdisc_lock(queue))
{
	spin_unlock_bh(qdisc_lock(queue));
}
#else
static inline void htbx_dump_lock(struct Qdisc *queue, unsigned int i)
{
	if (i)
		spin_lock_nested(qdisc_lock(queue), SINGLE_DEPTH_NESTING);
}

static inline void htbx_dump_unlock(struct Qdisc *queue, unsigned int i)
{
	if (i)
		spin_unlock(qdisc_lock(queue));
}
#endif

/*
 * A per-CPU count (mq mode: the nodes of a class count into one, each on
 * the CPU that runs its queue), for gen_new_estimator()'s @cpu_bstats and
 * gnet_stats_copy_basic()'s @cpu: 5.16 made it struct gnet_stats_basic_sync
 * with its own seqcount; before, struct gnet_stats_basic_cpu wraps a
 * struct gnet_stats_basic_packed and a seqcount. Allocated with
 * netdev_alloc_pcpu_stats(struct htbx_bstats_cpu); updated with BHs off
 * (in a queue's dequeue), as a lockless qdisc's cpu_bstats are.
 */
#ifdef HTBX_COMPAT_HAVE_GNET_STATS_BASIC_SYNC
#define htbx_bstats_cpu			gnet_stats_basic_sync
static inline void
htbx_bstats_cpu_update(struct htbx_bstats_cpu __percpu *cpu, u32 len,
		       u32 segs)
{
	_bstats_update(this_cpu_ptr(cpu), len, segs);
}
#else
#define htbx_bstats_cpu			gnet_stats_basic_cpu
static inline void
htbx_bstats_cpu_update(struct htbx_bstats_cpu __percpu *cpu, u32 len,
		       u32 segs)
{
	struct gnet_stats_basic_cpu *b = this_cpu_ptr(cpu);

	u64_stats_update_begin(&b->syncp);
	_bstats_update(&b->bstats, len, segs);
	u64_stats_update_end(&b->syncp);
}
#endif

/*
 * 5.15: tcf_classify() takes the tcf_block, for the skb extension that
 * clsact keeps the last chain in. A qdisc passes NULL, and without a
 * block the newer tcf_classify() does what the older one did.
 */
#ifndef HTBX_COMPAT_HAVE_TCF_CLASSIFY_BLOCK
#define tcf_classify(skb, block, tp, res, compat_mode)			\
	((void)(block), (tcf_classify)(skb, tp, res, compat_mode))
#endif

/*
 * 6.1: tc_qdisc_stats_dump(), one step of a qdisc_walker over the
 * classes: calls ->fn for @cl unless it is to be skipped; false when the
 * walk is to stop.
 */
#ifndef HTBX_COMPAT_HAVE_TC_QDISC_STATS_DUMP
static inline bool tc_qdisc_stats_dump(struct Qdisc *sch, unsigned long cl,
				       struct qdisc_walker *arg)
{
	if (arg->count >= arg->skip && arg->fn(sch, cl, arg) < 0) {
		arg->stop = 1;
		return false;
	}
	arg->count++;
	return true;
}
#endif

/*
 * 5.12: Qdisc_class_ops.delete() takes an extack. A qdisc's delete is
 * written with it; HTBX_CLASS_DELETE(fn) after its definition gives the
 * function to put into the class ops, htbx_class_delete_op(fn): fn
 * itself, or on older kernels a wrapper without the extack that calls
 * fn with NULL (every extack helper takes NULL: nothing is reported).
 */
#ifdef HTBX_COMPAT_HAVE_CLASS_DELETE_EXTACK
#define HTBX_CLASS_DELETE(fn)
#define htbx_class_delete_op(fn)	fn
#else
#define HTBX_CLASS_DELETE(fn)						\
static int fn##_noextack(struct Qdisc *sch, unsigned long arg)		\
{									\
	return fn(sch, arg, NULL);					\
}
#define htbx_class_delete_op(fn)	fn##_noextack
/* what the tests (and an operator's modinfo) learn of it */
#define HTBX_COMPAT_NO_CLASS_DELETE_EXTACK	" no-class-delete-extack"
#endif

/*
 * Qdisc_ops.change_real_num_tx(): the root qdisc is told before the
 * device uses another number of TX queues (ethtool -L). Without it mq
 * mode gives a class a node on every queue the device has, used or not.
 */
#ifdef HTBX_COMPAT_HAVE_CHANGE_REAL_NUM_TX
#define htbx_compat_real_num_tx(dev)	((dev)->real_num_tx_queues)
#define HTBX_OPS_CHANGE_REAL_NUM_TX(fn)	.change_real_num_tx = fn,
#else
#define htbx_compat_real_num_tx(dev)	((dev)->num_tx_queues)
#define HTBX_OPS_CHANGE_REAL_NUM_TX(fn)
#endif

/*
 * 5.13: TCA_HTB_OFFLOAD, the last of sch_htb's attributes. The htb front
 * (htbx_htb.c) refuses it; an older kernel's tc has none to send, and a
 * request that has it anyway is refused the same.
 */
#ifndef HTBX_COMPAT_HAVE_TCA_HTB_OFFLOAD
#define TCA_HTB_OFFLOAD		(TCA_HTB_PAD + 1)
#endif

/*
 * modinfo sch_htbx's "compat" field: the kernel features this build had to
 * do without, space separated ("" when none), e.g. a 5.10 build's refused
 * class deletes carry no message.
 */
#ifndef HTBX_COMPAT_NO_CLASS_DELETE_EXTACK
#define HTBX_COMPAT_NO_CLASS_DELETE_EXTACK	""
#endif
#define HTBX_COMPAT_MISSING	HTBX_COMPAT_NO_CLASS_DELETE_EXTACK

#endif /* _HTBX_COMPAT_H */
