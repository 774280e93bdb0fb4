// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical Token Bucket, done again
 *
 * htbx shapes like HTB: every class has a guaranteed rate and a ceiling,
 * sends on its own tokens first, then borrows from the nearest ancestor
 * that has tokens to spare, never beyond its ceil; lower prio is served
 * first and classes of equal prio share by DRR with their quantum. Leaves
 * hold a qdisc (pfifo by default), inner classes only schedule.
 *
 * The scheduling itself lives in htbx_core.c (built as it is into the
 * userspace tests); this file is the kernel glue: netlink, classification, the leaf
 * qdiscs, filters, statistics and the watchdog. What differs from HTB:
 *
 *  - Time is a 64-bit count of nanoseconds from ktime (psched_clock.h).
 *    There is no tick counter, no psched ticks and no rate tables: the
 *    transmission time of a packet is len * 1e9 / rate, computed exactly,
 *    and the remainder of that division is carried to the next packet, so
 *    rounding never accumulates. Nothing depends on CONFIG_HZ.
 *  - Rates are 64-bit bytes per second end to end.
 *  - The event loop's work per dequeue is bounded by a number of events
 *    (HTBX_EVENT_BUDGET), not by elapsed ticks; classes waiting for tokens
 *    sit in a pairing heap keyed by the ns when their mode changes, and the
 *    active classes of a level and prio form DRR rings.
 *  - The watchdog is the qdisc hrtimer, armed at the core's next event.
 *  - .peek is qdisc_peek_dequeued: a packet is charged exactly once, when
 *    the core dequeues it. A packet a parent peeked, or that the driver
 *    pushed back (dev_requeue_skb), is never charged again.
 *  - Every rejection carries an extack message naming the option and its
 *    valid range; a rejected request changes nothing. What htb takes, htbx
 *    takes, and where htb adjusts a value (prio above 7, r2q 0, ceil below
 *    rate, ...) htbx does the same and says so in an extack warning
 *    (htbx_report()). A netlink change applies only the attributes given
 *    (tc sends them all, as tc-htb does); values left "auto" (ceil, burst,
 *    cburst, quantum) are derived again from the new rate, ceil, mtu and
 *    r2q.
 *  - The default burst is time based: what the rate sends in 1 ms, but at
 *    least two mtus (htbx_default_burst()).
 *
 * Locking: configuration runs under RTNL; everything that touches the
 * scheduler runs under the qdisc tree lock.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <net/netlink.h>
#include <net/sch_generic.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <net/gen_stats.h>
#include <uapi/linux/pkt_sched_htbx.h>

#include <linux/workqueue.h>

#include "htbx_core.h"

/* Class parameters as the user gave them; 0 means "derive" where allowed. */
struct htbx_params {
	u64	rate;
	u64	ceil;
	u32	burst;
	u32	cburst;
	u32	quantum;
	u32	prio;
	u32	mtu;
	u32	mpu;
	s32	overhead;
	u8	linklayer;
};

struct htbx_class {
	struct Qdisc_class_common common;
	struct htbx_cls		cls;		/* scheduler state, owned by the core */
	struct htbx_class	*parent;
	struct Qdisc		*leaf;		/* NULL for inner classes */
	struct htbx_params	params;		/* as configured */

	struct tcf_proto __rcu	*filter_list;	/* filters at this class */
	struct tcf_block	*block;
#ifdef HTBX_COMPAT_CLASS_FILTER_CNT
	unsigned int		filter_cnt;	/* see qdisc_class_in_use() */
#endif

	/* statistics */
	struct gnet_stats_basic_sync bstats;	/* sent: the class's one count */
	struct net_rate_estimator __rcu *rate_est;
	struct gnet_stats_queue	qstats;		/* enqueue drops */
};

struct htbx_sched {
	struct Qdisc_class_hash	clhash;
	struct htbx_core	core;
	struct qdisc_watchdog	watchdog;
	struct work_struct	work;		/* event budget ran out */

	struct tcf_proto __rcu	*filter_list;	/* filters at the qdisc */
	struct tcf_block	*block;

	u32			defcls;		/* minor id of the default class */
	u32			r2q;
	u32			direct_qlen;	/* limit of direct_queue */
	struct qdisc_skb_head	direct_queue;	/* unclassified traffic */
	u64			direct_pkts;
};

/* The direct queue, as a classification result. */
#define HTBX_DIRECT	((struct htbx_class *)-1L)

static inline struct htbx_class *htbx_class_of(const struct htbx_cls *c)
{
	return container_of(c, struct htbx_class, cls);
}

static inline bool htbx_is_leaf(const struct htbx_class *cl)
{
	return !cl->cls.children;
}

/* ---- the hooks of the scheduling core (contract in htbx_core.h) ---- */

/*
 * May re-enter the core: a leaf that drops inside its ->dequeue (codel,
 * fq_codel, netem with a refusing child) reports it with
 * qdisc_tree_reduce_backlog(), which reaches htbx_qlen_notify() and
 * deactivates this class while the core is dequeueing from it.
 */
void *htbx_leaf_dequeue(struct htbx_cls *c)
{
	struct htbx_class *cl = htbx_class_of(c);
	struct sk_buff *skb;

	if (unlikely(!cl->leaf))
		return NULL;
	skb = qdisc_dequeue_peeked(cl->leaf);
	if (unlikely(!skb) && cl->leaf->q.qlen)
		qdisc_warn_nonwc("htbx", cl->leaf);
	return skb;
}

u32 htbx_leaf_qlen(const struct htbx_cls *c)
{
	const struct htbx_class *cl = htbx_class_of(c);

	return cl->leaf ? cl->leaf->q.qlen : 0;
}

u32 htbx_pkt_len(const void *pkt)
{
	return qdisc_pkt_len((const struct sk_buff *)pkt);
}

u32 htbx_pkt_segs(const void *pkt)
{
	const struct sk_buff *skb = pkt;

	return skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
}

void htbx_cls_sent(struct htbx_cls *c, const void *pkt)
{
	bstats_update(&htbx_class_of(c)->bstats, (const struct sk_buff *)pkt);
}

/* ---- attribute names and ranges for the error messages ---- */

/*
 * Every message about one attribute, as constant strings. Constant, not
 * formatted: before 6.3 an extack can only point at a message, and
 * netlink_ack() reads it after RTNL is dropped, so a text formatted into a
 * shared buffer could be another request's by then.
 */
struct htbx_attr_text {
	const char	*range;		/* value out of range */
	const char	*len;		/* attribute of the wrong length */
	const char	*obj;		/* given to the wrong object */
	u8		size;		/* the right length */
};

static const struct htbx_attr_text htbx_attr_text[TCA_HTBX_MAX + 1] = {
	[TCA_HTBX_PAD] = {
		.range	= "invalid pad: not an option",
		.len	= "invalid pad: attribute length must be 0 bytes",
		.obj	= "pad is a qdisc option, not a class option",
		.size	= 0,
	},
	[TCA_HTBX_DEFCLS] = {
		.range	= "invalid default: u32, its low 16 bits the class minor",
		.len	= "invalid default: attribute length must be 4 bytes",
		.obj	= "default is a qdisc option, not a class option",
		.size	= 4,
	},
	[TCA_HTBX_R2Q] = {
		.range	= "invalid r2q: u32 (0 and 2^31 and more count as 1)",
		.len	= "invalid r2q: attribute length must be 4 bytes",
		.obj	= "r2q is a qdisc option, not a class option",
		.size	= 4,
	},
	[TCA_HTBX_DIRECT_QLEN] = {
		.range	= "invalid direct_qlen: u32 packets",
		.len	= "invalid direct_qlen: attribute length must be 4 bytes",
		.obj	= "direct_qlen is a qdisc option, not a class option",
		.size	= 4,
	},
	[TCA_HTBX_OFFLOAD] = {
		.range	= "invalid offload: not supported",
		.len	= "invalid offload: attribute length must be 0 bytes",
		.obj	= "offload is a qdisc option, not a class option",
		.size	= 0,
	},
	[TCA_HTBX_DIRECT_PKTS] = {
		.range	= "invalid direct_packets_stat: read-only",
		.len	= "invalid direct_packets_stat: attribute length must be 8 bytes",
		.obj	= "direct_packets_stat is a qdisc option, not a class option",
		.size	= 8,
	},
	[TCA_HTBX_VERSION] = {
		.range	= "invalid version: read-only",
		.len	= "invalid version: attribute length must be 4 bytes",
		.obj	= "version is a qdisc option, not a class option",
		.size	= 4,
	},
	[TCA_HTBX_RATE] = {
		.range	= "invalid rate: u64 bytes/s, at least 1 (above 10^12 counts as 10^12)",
		.len	= "invalid rate: attribute length must be 8 bytes",
		.obj	= "rate is a class option, not a qdisc option",
		.size	= 8,
	},
	[TCA_HTBX_CEIL] = {
		.range	= "invalid ceil: u64 bytes/s, 0 (rate) or more",
		.len	= "invalid ceil: attribute length must be 8 bytes",
		.obj	= "ceil is a class option, not a qdisc option",
		.size	= 8,
	},
	[TCA_HTBX_BURST] = {
		.range	= "invalid burst: u32 bytes, 0 (auto)..4294967295",
		.len	= "invalid burst: attribute length must be 4 bytes",
		.obj	= "burst is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_CBURST] = {
		.range	= "invalid cburst: u32 bytes, 0 (auto)..4294967295",
		.len	= "invalid cburst: attribute length must be 4 bytes",
		.obj	= "cburst is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_PRIO] = {
		.range	= "invalid prio: u32, 0..7 (more counts as 7)",
		.len	= "invalid prio: attribute length must be 4 bytes",
		.obj	= "prio is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_QUANTUM] = {
		.range	= "invalid quantum: u32 bytes, 0 (rate/r2q)..4294967295",
		.len	= "invalid quantum: attribute length must be 4 bytes",
		.obj	= "quantum is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_MTU] = {
		.range	= "invalid mtu: u32 bytes, 0 (1600) or more",
		.len	= "invalid mtu: attribute length must be 4 bytes",
		.obj	= "mtu is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_MPU] = {
		.range	= "invalid mpu: u32 bytes, 0..65536",
		.len	= "invalid mpu: attribute length must be 4 bytes",
		.obj	= "mpu is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_OVERHEAD] = {
		.range	= "invalid overhead: s32 bytes, -64..65535",
		.len	= "invalid overhead: attribute length must be 4 bytes",
		.obj	= "overhead is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_LINKLAYER] = {
		.range	= "invalid linklayer: u8, 0 (ethernet) or 1 (atm)",
		.len	= "invalid linklayer: attribute length must be 1 bytes",
		.obj	= "linklayer is a class option, not a qdisc option",
		.size	= 1,
	},
	[TCA_HTBX_LEVEL] = {
		.range	= "invalid level: read-only",
		.len	= "invalid level: attribute length must be 4 bytes",
		.obj	= "level is a class option, not a qdisc option",
		.size	= 4,
	},
	[TCA_HTBX_BUDGET_HITS] = {
		.range	= "invalid budget_hits: read-only",
		.len	= "invalid budget_hits: attribute length must be 8 bytes",
		.obj	= "budget_hits is a qdisc option, not a class option",
		.size	= 8,
	},
};

/* An error about @attr with a message of static storage (no module prefix). */
static void htbx_set_err(struct netlink_ext_ack *extack,
			 const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	extack->_msg = msg;
	extack->bad_attr = attr;
	extack->policy = NULL;	/* as every kernel's NL_SET_ERR_MSG_ATTR */
}

/* @attr is an attribute of the other object: the qdisc's on a class or v.v. */
static void htbx_err_wrong_obj(struct netlink_ext_ack *extack,
			       const struct nlattr *attr)
{
	htbx_set_err(extack, attr, htbx_attr_text[nla_type(attr)].obj);
}

/*
 * The ranges are tc-htb's: every value htb takes is taken, and the ones
 * htb (or htbx) adjusts are adjusted in htbx_adjust_*() with a warning.
 */
static struct netlink_range_validation htbx_rate_range = {
	.min = 1,
	.max = U64_MAX,
};

static struct netlink_range_validation htbx_mpu_range = {
	.max = HTBX_MAX_MPU,
};

static struct netlink_range_validation_signed htbx_overhead_range = {
	.min = HTBX_MIN_OVERHEAD,
	.max = HTBX_MAX_OVERHEAD_HTB,
};

/* TCA_HTBX_MAX must match the "known" range of htbx_parse's message */
static_assert(TCA_HTBX_MAX == 19);

static const struct nla_policy htbx_policy[TCA_HTBX_MAX + 1] = {
	[TCA_HTBX_DEFCLS]	= { .type = NLA_U32 },
	[TCA_HTBX_R2Q]		= { .type = NLA_U32 },
	[TCA_HTBX_DIRECT_QLEN]	= { .type = NLA_U32 },
	[TCA_HTBX_OFFLOAD]	= { .type = NLA_FLAG },
	[TCA_HTBX_DIRECT_PKTS]	= { .type = NLA_REJECT,
				    .reject_message = "direct_packets_stat is read-only" },
	[TCA_HTBX_VERSION]	= { .type = NLA_REJECT,
				    .reject_message = "version is read-only" },
	[TCA_HTBX_RATE]		= NLA_POLICY_FULL_RANGE(NLA_U64, &htbx_rate_range),
	[TCA_HTBX_CEIL]		= { .type = NLA_U64 },
	[TCA_HTBX_BURST]	= { .type = NLA_U32 },
	[TCA_HTBX_CBURST]	= { .type = NLA_U32 },
	[TCA_HTBX_PRIO]		= { .type = NLA_U32 },
	[TCA_HTBX_QUANTUM]	= { .type = NLA_U32 },
	[TCA_HTBX_MTU]		= { .type = NLA_U32 },
	[TCA_HTBX_MPU]		= NLA_POLICY_FULL_RANGE(NLA_U32, &htbx_mpu_range),
	[TCA_HTBX_OVERHEAD]	= NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32,
							       &htbx_overhead_range),
	[TCA_HTBX_LINKLAYER]	= NLA_POLICY_MAX(NLA_U8, HTBX_LINKLAYER_MAX),
	[TCA_HTBX_LEVEL]	= { .type = NLA_REJECT,
				    .reject_message = "level is read-only" },
	[TCA_HTBX_BUDGET_HITS]	= { .type = NLA_REJECT,
				    .reject_message = "budget_hits is read-only" },
};

/**
 * htbx_parse - strictly parse htbx options against htbx_policy
 * @opt: the TCA_OPTIONS attribute
 * @tb: result
 * @extack: on failure, names the attribute and its valid range
 *
 * Strict: unknown attributes, trailing bytes and wrong lengths are errors.
 * The nest flag is not required (older tc does not set it).
 */
static int htbx_parse(struct nlattr *opt, struct nlattr **tb,
		      struct netlink_ext_ack *extack)
{
	const struct nlattr *bad;
	int err, type;

	err = __nla_parse(tb, TCA_HTBX_MAX, nla_data(opt), nla_len(opt),
			  htbx_policy, NL_VALIDATE_STRICT, extack);
	if (!err || !extack)
		return err;

	/* Replace the generic policy message by one that names the option. */
	bad = extack->bad_attr;
	if (!bad || (const void *)bad < nla_data(opt) ||
	    (const void *)bad >= nla_data(opt) + nla_len(opt)) {
		NL_SET_ERR_MSG_MOD(extack, "malformed or truncated htbx options");
		return err;
	}
	type = nla_type(bad);
	if (type < TCA_HTBX_PAD || type > TCA_HTBX_MAX)
		htbx_set_err(extack, bad, "unknown htbx attribute (known: 2..19)");
	else if (nla_len(bad) != htbx_attr_text[type].size &&
		 htbx_policy[type].type != NLA_REJECT &&
		 htbx_policy[type].type != NLA_UNSPEC)
		htbx_set_err(extack, bad, htbx_attr_text[type].len);
	else
		htbx_set_err(extack, bad, htbx_attr_text[type].range);
	return err;
}

/* ---- classification ---- */

static struct htbx_class *htbx_find(u32 handle, struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *clc;

	clc = qdisc_class_find(&q->clhash, handle);
	return clc ? container_of(clc, struct htbx_class, common) : NULL;
}

static unsigned long htbx_search(struct Qdisc *sch, u32 handle)
{
	return (unsigned long)htbx_find(handle, sch);
}

/**
 * htbx_classify - find the leaf class of @skb
 *
 * skb->priority naming the qdisc selects the direct queue, naming a leaf
 * selects it, naming an inner class starts at that class's filters.
 * Otherwise the filters run from the qdisc down: a result naming an inner
 * class continues with that class's filters, one naming the qdisc (X:0)
 * selects the direct queue. Without a match the default class is used if
 * it is a leaf, else the direct queue.
 *
 * Returns a leaf, HTBX_DIRECT, or NULL when an action consumed the packet
 * (*qerr then holds the verdict for the caller).
 */
static struct htbx_class *htbx_classify(struct sk_buff *skb, struct Qdisc *sch,
					int *qerr)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl;
	struct tcf_result res;
	struct tcf_proto *tcf;
	int result, hops = 0;

	if (skb->priority == sch->handle)
		return HTBX_DIRECT;
	cl = htbx_find(skb->priority, sch);
	if (cl) {
		if (htbx_is_leaf(cl))
			return cl;
		tcf = rcu_dereference_bh(cl->filter_list);
	} else {
		tcf = rcu_dereference_bh(q->filter_list);
	}

	*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	while (tcf && (result = tcf_classify(skb, NULL, tcf, &res, false)) >= 0) {
#ifdef CONFIG_NET_CLS_ACT
		switch (result) {
		case TC_ACT_QUEUED:
		case TC_ACT_STOLEN:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
			fallthrough;
		case TC_ACT_SHOT:
			return NULL;
		}
#endif
		cl = (struct htbx_class *)res.class;
		if (!cl) {
			if (res.classid == sch->handle)
				return HTBX_DIRECT;
			cl = htbx_find(res.classid, sch);
			if (!cl)
				break;
		}
		if (htbx_is_leaf(cl))
			return cl;
		/* Filters that send inner classes to each other: give up. */
		if (++hops > 2 * HTBX_MAXDEPTH)
			break;
		tcf = rcu_dereference_bh(cl->filter_list);
	}

	cl = htbx_find(TC_H_MAKE(TC_H_MAJ(sch->handle), q->defcls), sch);
	if (!cl || !htbx_is_leaf(cl))
		return HTBX_DIRECT;
	return cl;
}

/* ---- data path ---- */

static int htbx_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	struct htbx_sched *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	int ret = NET_XMIT_SUCCESS;
	struct htbx_class *cl;

	cl = htbx_classify(skb, sch, &ret);
	if (!cl) {
		if (ret & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return ret;
	}
	if (cl == HTBX_DIRECT) {
		if (q->direct_queue.qlen >= q->direct_qlen)
			return qdisc_drop(skb, sch, to_free);
		__qdisc_enqueue_tail(skb, &q->direct_queue);
		/* read by htbx_dump() without the qdisc lock */
		WRITE_ONCE(q->direct_pkts, q->direct_pkts + 1);
	} else {
		ret = qdisc_enqueue(skb, cl->leaf, to_free);
		if (unlikely(ret != NET_XMIT_SUCCESS)) {
			if (net_xmit_drop_count(ret)) {
				qdisc_qstats_drop(sch);
				cl->qstats.drops++;
			}
			return ret;
		}
		htbx_core_activate(&q->core, &cl->cls);
	}

	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *htbx_dequeue(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now;

	/* The direct queue is not shaped and goes first, as in HTB. */
	skb = __qdisc_dequeue_head(&q->direct_queue);
	if (skb)
		goto out;
	if (!sch->q.qlen)
		return NULL;

	now = htbx_clock_ns();
	skb = htbx_core_dequeue(&q->core, now);
	if (skb)
		goto out;

	if (likely(q->core.next_event > now))
		qdisc_watchdog_schedule_ns(&q->watchdog, q->core.next_event);
	else if (q->core.next_event)
		/*
		 * The event budget ran out with events still due: leave
		 * softirq and let process context kick the queue, as htb
		 * does, instead of re-arming the timer at "now".
		 */
		schedule_work(&q->work);
	return NULL;

out:
	qdisc_bstats_update(sch, skb);
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	return skb;
}

static void htbx_reset(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	u64 now = htbx_clock_ns();
	struct htbx_class *cl;
	unsigned int i;

	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			if (cl->leaf)
				qdisc_reset(cl->leaf);
			htbx_core_reset_cls(&q->core, &cl->cls, now);
		}
	}
	htbx_core_reset(&q->core);
	qdisc_watchdog_cancel(&q->watchdog);
	__qdisc_reset_queue(&q->direct_queue);
}

/* ---- class configuration ---- */

static int htbx_depth(const struct htbx_class *cl)
{
	int depth = 0;

	for (; cl; cl = cl->parent)
		depth++;
	return depth;
}

/*
 * What htbx takes as htb takes it and then adjusts: the request succeeds,
 * and an extack warning (a message on success) says what was adjusted.
 */
enum htbx_adj {
	HTBX_ADJ_PRIO,		/* prio above 7 counts as 7 (htb) */
	HTBX_ADJ_RATE,		/* rate above HTBX_MAX_RATE counts as it */
	HTBX_ADJ_CEIL,		/* ceil above HTBX_MAX_RATE counts as it */
	HTBX_ADJ_CEIL_LOW,	/* ceil below rate: held to ceil (htb) */
	HTBX_ADJ_MTU,		/* mtu above HTBX_MAX_MTU counts as it */
	HTBX_ADJ_INNER,		/* an inner class keeps prio, quantum (htb) */
	HTBX_ADJ_QUANTUM,	/* derived quantum clamped (htb) */
	HTBX_ADJ_R2Q,		/* r2q 0 or >= 2^31 counts as 1 (htb's int) */
	HTBX_ADJ_DEFCLS,	/* default above 0xffff: low 16 bits (htb) */
	HTBX_ADJ_NUM
};

/* What a warning names: the values as given and as used. */
struct htbx_adj_info {
	u32	classid;
	u32	prio;		/* as given */
	u64	rate, ceil;	/* as used, bytes/s */
	u32	quantum;	/* as used */
	u64	rate_quantum;	/* rate / r2q */
	u32	defcls;
	u32	r2q;		/* as given */
};

/* Short forms, for a request that needed several adjustments. */
static const char *const htbx_adj_tag[HTBX_ADJ_NUM] = {
	[HTBX_ADJ_PRIO]		= "prio 7",
	[HTBX_ADJ_RATE]		= "rate 8Tbit",
	[HTBX_ADJ_CEIL]		= "ceil 8Tbit",
	[HTBX_ADJ_CEIL_LOW]	= "held to ceil < rate",
	[HTBX_ADJ_MTU]		= "mtu 1048576",
	[HTBX_ADJ_INNER]	= "inner class keeps prio/quantum",
	[HTBX_ADJ_QUANTUM]	= "quantum clamped",
	[HTBX_ADJ_R2Q]		= "r2q 1",
	[HTBX_ADJ_DEFCLS]	= "default: low 16 bits",
};

/**
 * htbx_report - the extack warning for the adjustments in @adj
 *
 * One adjustment gets its own message, with the values where the kernel
 * can format one (6.3+); several get their short forms, and before 6.3 the
 * first one's message (an extack can only point at a constant there).
 */
static void htbx_report(struct netlink_ext_ack *extack, unsigned long adj,
			const struct htbx_adj_info *w)
{
	/* NETLINK_MAX_FMTMSG_LEN (80) less the "sch_htbx: " prefix */
	char buf[69];
	bool one = hweight_long(adj) == 1;
	int bit, n;

	if (!adj)
		return;
	n = scnprintf(buf, sizeof(buf), "adjusted as htb:");
	for_each_set_bit(bit, &adj, HTBX_ADJ_NUM)
		n += scnprintf(buf + n, sizeof(buf) - n, "%s %s",
			       n > 16 ? ";" : "", htbx_adj_tag[bit]);

	switch (__ffs(adj)) {
	case HTBX_ADJ_PRIO:
		if (one)
			htbx_err_fmt(extack, "prio above 7 counts as 7, as in htb",
				     "prio %u counts as 7, as in htb", w->prio);
		else
			htbx_err_fmt(extack, "prio above 7 counts as 7, as in htb",
				     "%s", buf);
		break;
	case HTBX_ADJ_RATE:
		htbx_err_fmt(extack, "rate above 8Tbit counts as 8Tbit, the most htbx shapes",
			     "%s", one ? "rate above 8Tbit counts as 8Tbit, the most htbx shapes" : buf);
		break;
	case HTBX_ADJ_CEIL:
		htbx_err_fmt(extack, "ceil above 8Tbit counts as 8Tbit, the most htbx shapes",
			     "%s", one ? "ceil above 8Tbit counts as 8Tbit, the most htbx shapes" : buf);
		break;
	case HTBX_ADJ_CEIL_LOW:
		/* In bit/s, the unit users give rates in. */
		if (one)
			htbx_err_fmt(extack, "ceil is below rate: the class is held to ceil, as in htb",
				     "ceil %llubit < rate %llubit: held to ceil, as in htb",
				     w->ceil * 8, w->rate * 8);
		else
			htbx_err_fmt(extack, "ceil is below rate: the class is held to ceil, as in htb",
				     "%s", buf);
		break;
	case HTBX_ADJ_MTU:
		htbx_err_fmt(extack, "mtu above 1048576 counts as 1048576",
			     "%s", one ? "mtu above 1048576 counts as 1048576" : buf);
		break;
	case HTBX_ADJ_INNER:
		htbx_err_fmt(extack, "a class with children keeps its prio and quantum, as in htb",
			     "%s", one ? "a class with children keeps its prio and quantum, as in htb" : buf);
		break;
	case HTBX_ADJ_QUANTUM:
		/* At most 80 characters reach the user (NETLINK_MAX_FMTMSG_LEN). */
		if (one)
			htbx_err_fmt(extack, "quantum clamped to 1000..200000 (rate/r2q is out of it)",
				     "quantum of %x:%x clamped to %u (rate/r2q = %llu)",
				     TC_H_MAJ(w->classid) >> 16, TC_H_MIN(w->classid),
				     w->quantum, w->rate_quantum);
		else
			htbx_err_fmt(extack, "quantum clamped to 1000..200000 (rate/r2q is out of it)",
				     "%s", buf);
		break;
	case HTBX_ADJ_R2Q:
		if (one)
			htbx_err_fmt(extack, "r2q 0 (or 2^31 and more) counts as 1, as in htb",
				     "r2q %u counts as 1, as in htb", w->r2q);
		else
			htbx_err_fmt(extack, "r2q 0 (or 2^31 and more) counts as 1, as in htb",
				     "%s", buf);
		break;
	case HTBX_ADJ_DEFCLS:
		if (one)
			htbx_err_fmt(extack, "default above 0xffff: only its low 16 bits name a class, as in htb",
				     "default %#x: only its low 16 bits name a class, as in htb",
				     w->defcls);
		else
			htbx_err_fmt(extack, "default above 0xffff: only its low 16 bits name a class, as in htb",
				     "%s", buf);
		break;
	}
}

/**
 * htbx_derive - turn user parameters into a core configuration
 * @p: the parameters, 0 meaning "auto" for ceil/burst/cburst/quantum/mtu
 * @r2q: the qdisc's rate to quantum divisor
 * @cfg: result
 * @adj: HTBX_ADJ_CEIL_LOW, HTBX_ADJ_QUANTUM are added when they apply
 *
 * A ceil below the rate is kept, as htb keeps it: the class then sends at
 * most its ceil (tests/unit "ceil below rate").
 */
static void htbx_derive(const struct htbx_params *p, u32 r2q,
			struct htbx_cfg *cfg, unsigned long *adj)
{
	u64 quantum;

	memset(cfg, 0, sizeof(*cfg));
	cfg->rate = p->rate;
	cfg->ceil = p->ceil ?: p->rate;
	if (cfg->ceil < cfg->rate)
		*adj |= BIT(HTBX_ADJ_CEIL_LOW);
	cfg->mtu = p->mtu ?: HTBX_DEFAULT_MTU;
	cfg->burst = p->burst ?: htbx_default_burst(cfg->rate, cfg->mtu);
	cfg->cburst = p->cburst ?: htbx_default_burst(cfg->ceil, cfg->mtu);
	cfg->prio = p->prio;
	cfg->len.mpu = p->mpu;
	cfg->len.overhead = p->overhead;
	cfg->len.linklayer = p->linklayer;

	if (p->quantum) {
		cfg->quantum = p->quantum;
	} else {
		quantum = div_u64(cfg->rate, r2q);
		if (quantum < HTBX_MIN_QUANTUM || quantum > HTBX_MAX_QUANTUM) {
			quantum = clamp_t(u64, quantum, HTBX_MIN_QUANTUM,
					  HTBX_MAX_QUANTUM);
			*adj |= BIT(HTBX_ADJ_QUANTUM);
		}
		cfg->quantum = quantum;
	}
}

/*
 * Overwrite @p with the class attributes present in @tb (0 means auto),
 * adjusting what htb adjusts and what is beyond htbx's range.
 */
static void htbx_params_apply(struct htbx_params *p, struct nlattr **tb,
			      unsigned long *adj, struct htbx_adj_info *w)
{
	if (tb[TCA_HTBX_RATE]) {
		p->rate = nla_get_u64(tb[TCA_HTBX_RATE]);
		if (p->rate > HTBX_MAX_RATE) {
			p->rate = HTBX_MAX_RATE;
			*adj |= BIT(HTBX_ADJ_RATE);
		}
	}
	if (tb[TCA_HTBX_CEIL]) {
		p->ceil = nla_get_u64(tb[TCA_HTBX_CEIL]);
		if (p->ceil > HTBX_MAX_RATE) {
			p->ceil = HTBX_MAX_RATE;
			*adj |= BIT(HTBX_ADJ_CEIL);
		}
	}
	if (tb[TCA_HTBX_BURST])
		p->burst = nla_get_u32(tb[TCA_HTBX_BURST]);
	if (tb[TCA_HTBX_CBURST])
		p->cburst = nla_get_u32(tb[TCA_HTBX_CBURST]);
	if (tb[TCA_HTBX_PRIO]) {
		p->prio = nla_get_u32(tb[TCA_HTBX_PRIO]);
		w->prio = p->prio;
		if (p->prio > HTBX_MAX_PRIO) {
			p->prio = HTBX_MAX_PRIO;
			*adj |= BIT(HTBX_ADJ_PRIO);
		}
	}
	if (tb[TCA_HTBX_QUANTUM])
		p->quantum = nla_get_u32(tb[TCA_HTBX_QUANTUM]);
	if (tb[TCA_HTBX_MTU]) {
		p->mtu = nla_get_u32(tb[TCA_HTBX_MTU]);
		if (p->mtu > HTBX_MAX_MTU) {
			p->mtu = HTBX_MAX_MTU;
			*adj |= BIT(HTBX_ADJ_MTU);
		}
	}
	if (tb[TCA_HTBX_MPU])
		p->mpu = nla_get_u32(tb[TCA_HTBX_MPU]);
	if (tb[TCA_HTBX_OVERHEAD])
		p->overhead = nla_get_s32(tb[TCA_HTBX_OVERHEAD]);
	if (tb[TCA_HTBX_LINKLAYER])
		p->linklayer = nla_get_u8(tb[TCA_HTBX_LINKLAYER]);
}

/* The values a warning about class @classid names. */
static void htbx_adj_info_cfg(struct htbx_adj_info *w, u32 classid,
			      const struct htbx_cfg *cfg, u32 r2q)
{
	w->classid = classid;
	w->rate = cfg->rate;
	w->ceil = cfg->ceil;
	w->quantum = cfg->quantum;
	w->rate_quantum = div_u64(cfg->rate, r2q);
}

static void htbx_destroy_class(struct Qdisc *sch, struct htbx_class *cl)
{
	if (cl->leaf)
		qdisc_put(cl->leaf);
	gen_kill_estimator(&cl->rate_est);
	tcf_block_put(cl->block);
	kfree(cl);
}

/* Class options: parsed, and none of the qdisc's. */
static int htbx_class_opts(struct nlattr *opt, struct nlattr **tb,
			   bool create, struct netlink_ext_ack *extack)
{
	int err, i;

	if (!opt) {
		if (create)
			NL_SET_ERR_MSG_MOD(extack, "no htbx class options: rate is required");
		else
			NL_SET_ERR_MSG_MOD(extack, "no htbx class options: nothing to change");
		return -EINVAL;
	}
	err = htbx_parse(opt, tb, extack);
	if (err < 0)
		return err;
	for (i = TCA_HTBX_DEFCLS; i <= TCA_HTBX_VERSION; i++) {
		if (tb[i]) {
			htbx_err_wrong_obj(extack, tb[i]);
			return -EINVAL;
		}
	}
	if (create && !tb[TCA_HTBX_RATE]) {
		NL_SET_ERR_MSG_MOD(extack, "rate is required: u64 bytes/s, 1..1000000000000");
		return -EINVAL;
	}
	return 0;
}

/* Where a new class goes: its id is free-form within the qdisc's major. */
static int htbx_class_place(struct Qdisc *sch, u32 classid, u32 parentid,
			    struct htbx_class **parentp,
			    struct netlink_ext_ack *extack)
{
	struct htbx_class *parent = NULL;

	if (!TC_H_MIN(classid) || TC_H_MAJ(classid) != TC_H_MAJ(sch->handle)) {
		htbx_err_fmt(extack,
			     "invalid classid: major must be the qdisc's, minor 1..ffff",
			     "invalid classid %x:%x: must be %x:1..%x:ffff",
			     TC_H_MAJ(classid) >> 16, TC_H_MIN(classid),
			     TC_H_MAJ(sch->handle) >> 16,
			     TC_H_MAJ(sch->handle) >> 16);
		return -EINVAL;
	}
	if (parentid != TC_H_ROOT && parentid != sch->handle) {
		if (TC_H_MAJ(parentid) != TC_H_MAJ(sch->handle)) {
			htbx_err_fmt(extack, "parent belongs to another qdisc",
				     "parent %x:%x belongs to another qdisc (this is %x:)",
				     TC_H_MAJ(parentid) >> 16,
				     TC_H_MIN(parentid),
				     TC_H_MAJ(sch->handle) >> 16);
			return -EINVAL;
		}
		parent = htbx_find(parentid, sch);
		if (!parent) {
			htbx_err_fmt(extack, "parent class does not exist",
				     "parent class %x:%x does not exist",
				     TC_H_MAJ(parentid) >> 16,
				     TC_H_MIN(parentid));
			return -ENOENT;
		}
	}
	if (htbx_depth(parent) + 1 > HTBX_MAXDEPTH) {
		NL_SET_ERR_MSG_MOD(extack, "tree is too deep: at most 8 levels");
		return -EINVAL;
	}
	*parentp = parent;
	return 0;
}

/*
 * Change: absent attributes keep their value (tc sends them all, see the
 * UAPI header). A class with children keeps its prio and quantum, as htb
 * does (it sets them for leaves only): they apply when it is a leaf again.
 */
static int htbx_class_change(struct Qdisc *sch, struct htbx_class *cl,
			     struct nlattr **tb, struct nlattr *rate_est,
			     struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_params params = cl->params;
	struct htbx_adj_info w = {};
	unsigned long adj = 0;
	struct htbx_cfg cfg;
	int err;

	/* parse -> derive: nothing is changed before both succeeded */
	htbx_params_apply(&params, tb, &adj, &w);
	if (!htbx_is_leaf(cl)) {
		adj &= ~BIT(HTBX_ADJ_PRIO);
		if (params.prio != cl->params.prio ||
		    params.quantum != cl->params.quantum)
			adj |= BIT(HTBX_ADJ_INNER);
		params.prio = cl->params.prio;
		params.quantum = cl->params.quantum;
	}
	htbx_derive(&params, q->r2q, &cfg, &adj);
	if (!htbx_is_leaf(cl)) {
		/* the quantum in use stays, derived or not */
		cfg.quantum = cl->cls.cfg.quantum;
		adj &= ~BIT(HTBX_ADJ_QUANTUM);
	}
	if (rate_est) {
		err = gen_replace_estimator(&cl->bstats, NULL, &cl->rate_est,
					    NULL, htbx_stats_running(sch),
					    rate_est);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "invalid rate estimator parameters");
			return err;
		}
	}

	/* apply */
	sch_tree_lock(sch);
	cl->params = params;
	htbx_core_change(&q->core, &cl->cls, &cfg, htbx_clock_ns());
	sch_tree_unlock(sch);
	htbx_adj_info_cfg(&w, cl->common.classid, &cfg, q->r2q);
	htbx_report(extack, adj, &w);
	return 0;
}

/* Create: check everything, allocate, then take the lock and link. */
static int htbx_class_create(struct Qdisc *sch, u32 classid, u32 parentid,
			     struct nlattr **tb, struct nlattr *rate_est,
			     unsigned long *arg, struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl, *parent;
	struct Qdisc *old_leaf = NULL;
	struct htbx_adj_info w = {};
	struct htbx_params params;
	unsigned long adj = 0;
	struct htbx_cfg cfg;
	int err;

	/* validate and derive */
	err = htbx_class_place(sch, classid, parentid, &parent, extack);
	if (err)
		return err;
	memset(&params, 0, sizeof(params));
	htbx_params_apply(&params, tb, &adj, &w);
	htbx_derive(&params, q->r2q, &cfg, &adj);

	/* allocate */
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return -ENOBUFS;
	gnet_stats_basic_sync_init(&cl->bstats);
	cl->common.classid = classid;
	cl->parent = parent;
	cl->params = params;

	err = tcf_block_get(&cl->block, &cl->filter_list, sch, extack);
	if (err)
		goto err_free;
	if (rate_est) {
		err = gen_new_estimator(&cl->bstats, NULL, &cl->rate_est, NULL,
					htbx_stats_running(sch), rate_est);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "invalid rate estimator parameters");
			goto err_block;
		}
	}
	cl->leaf = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops, classid,
				     extack);
	if (!cl->leaf) {
		err = -ENOBUFS;
		goto err_est;
	}

	/* apply */
	sch_tree_lock(sch);
	if (parent && htbx_is_leaf(parent)) {
		/*
		 * The parent turns inner: its queued packets are dropped and
		 * the drop is reported up the tree, so that qlen and backlog
		 * of every ancestor qdisc stay exact.
		 */
		qdisc_purge_queue(parent->leaf);
		htbx_core_deactivate(&q->core, &parent->cls);
		old_leaf = parent->leaf;
		parent->leaf = NULL;
	}
	htbx_cls_setup(&cl->cls, &cfg);
	htbx_core_add(&q->core, &cl->cls, parent ? &parent->cls : NULL,
		      htbx_clock_ns());
	qdisc_class_hash_insert(&q->clhash, &cl->common);
	sch_tree_unlock(sch);

	qdisc_hash_add(cl->leaf, true);
	qdisc_class_hash_grow(sch, &q->clhash);
	if (old_leaf)
		qdisc_put(old_leaf);
	*arg = (unsigned long)cl;
	htbx_adj_info_cfg(&w, classid, &cfg, q->r2q);
	htbx_report(extack, adj, &w);
	return 0;

err_est:
	gen_kill_estimator(&cl->rate_est);
err_block:
	tcf_block_put(cl->block);
err_free:
	kfree(cl);
	return err;
}

static int htbx_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			     struct nlattr **tca, unsigned long *arg,
			     struct netlink_ext_ack *extack)
{
	struct htbx_class *cl = (struct htbx_class *)*arg;
	struct nlattr *tb[TCA_HTBX_MAX + 1];
	int err;

	err = htbx_class_opts(tca[TCA_OPTIONS], tb, !cl, extack);
	if (err)
		return err;
	if (cl)
		return htbx_class_change(sch, cl, tb, tca[TCA_RATE], extack);
	return htbx_class_create(sch, classid, parentid, tb, tca[TCA_RATE],
				 arg, extack);
}

static int htbx_delete(struct Qdisc *sch, unsigned long arg,
		       struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl = (struct htbx_class *)arg;
	struct htbx_class *parent = cl->parent;
	struct Qdisc *new_leaf = NULL;
	bool parent_is_leaf = false;

	if (!htbx_is_leaf(cl)) {
		NL_SET_ERR_MSG_MOD(extack, "class has child classes: delete them first");
		return -EBUSY;
	}
	if (qdisc_class_in_use(&cl->common)) {
		NL_SET_ERR_MSG_MOD(extack, "class is in use by filters: delete them first");
		return -EBUSY;
	}
	/* A parent losing its last child becomes a leaf: its queue first. */
	if (parent && parent->cls.children == 1) {
		new_leaf = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					     parent->common.classid, extack);
		if (!new_leaf)
			return -ENOBUFS;
	}

	sch_tree_lock(sch);
	if (cl->leaf)
		qdisc_purge_queue(cl->leaf);
	htbx_core_deactivate(&q->core, &cl->cls);
	qdisc_class_hash_remove(&q->clhash, &cl->common);
	if (htbx_core_del(&q->core, &cl->cls, htbx_clock_ns()) && parent &&
	    new_leaf) {
		parent->leaf = new_leaf;
		parent_is_leaf = true;
	}
	sch_tree_unlock(sch);

	if (parent_is_leaf)
		qdisc_hash_add(parent->leaf, true);
	else if (new_leaf)
		qdisc_put(new_leaf);
	htbx_destroy_class(sch, cl);
	return 0;
}
HTBX_CLASS_DELETE(htbx_delete)

/* ---- leaves, filters ---- */

static int htbx_graft(struct Qdisc *sch, unsigned long arg, struct Qdisc *new,
		      struct Qdisc **old, struct netlink_ext_ack *extack)
{
	struct htbx_class *cl = (struct htbx_class *)arg;

	if (!htbx_is_leaf(cl)) {
		NL_SET_ERR_MSG_MOD(extack, "class has child classes: only a leaf holds a qdisc");
		return -EINVAL;
	}
	if (!new) {
		new = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					cl->common.classid, extack);
		if (!new)
			return -ENOBUFS;
	}
	/* Purges the old leaf; qlen_notify deactivates the class. */
	*old = qdisc_replace(sch, new, &cl->leaf);
	return 0;
}

static struct Qdisc *htbx_leaf(struct Qdisc *sch, unsigned long arg)
{
	struct htbx_class *cl = (struct htbx_class *)arg;

	return cl->leaf;
}

/*
 * The leaf queue of @arg became empty. Idempotent, and may run inside
 * htbx_leaf_dequeue() (see there). @arg is 0 when the child that reported
 * it is not (or no longer) one of our leaves.
 */
static void htbx_qlen_notify(struct Qdisc *sch, unsigned long arg)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl = (struct htbx_class *)arg;

	if (!cl)
		return;
	htbx_core_deactivate(&q->core, &cl->cls);
}

static struct tcf_block *htbx_tcf_block(struct Qdisc *sch, unsigned long arg,
					struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl = (struct htbx_class *)arg;

	return cl ? cl->block : q->block;
}

static unsigned long htbx_bind_filter(struct Qdisc *sch, unsigned long parent,
				      u32 classid)
{
	struct htbx_class *cl = htbx_find(classid, sch);

	if (cl)
		qdisc_class_get(&cl->common);
	return (unsigned long)cl;
}

static void htbx_unbind_filter(struct Qdisc *sch, unsigned long arg)
{
	struct htbx_class *cl = (struct htbx_class *)arg;

	if (cl)
		qdisc_class_put(&cl->common);
}

/* ---- dumps ---- */

static int htbx_dump_class(struct Qdisc *sch, unsigned long arg,
			   struct sk_buff *skb, struct tcmsg *tcm)
{
	struct htbx_class *cl = (struct htbx_class *)arg;
	const struct htbx_cfg *cfg = &cl->cls.cfg;
	struct nlattr *nest;

	/* RTNL is held: the configuration cannot change under us. */
	tcm->tcm_parent = cl->parent ? cl->parent->common.classid : TC_H_ROOT;
	tcm->tcm_handle = cl->common.classid;
	if (cl->leaf)
		tcm->tcm_info = cl->leaf->handle;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u64_64bit(skb, TCA_HTBX_RATE, cfg->rate, TCA_HTBX_PAD) ||
	    nla_put_u64_64bit(skb, TCA_HTBX_CEIL, cfg->ceil, TCA_HTBX_PAD) ||
	    nla_put_u32(skb, TCA_HTBX_BURST, cfg->burst) ||
	    nla_put_u32(skb, TCA_HTBX_CBURST, cfg->cburst) ||
	    nla_put_u32(skb, TCA_HTBX_PRIO, cfg->prio) ||
	    nla_put_u32(skb, TCA_HTBX_QUANTUM, cfg->quantum) ||
	    nla_put_u32(skb, TCA_HTBX_MTU, cfg->mtu) ||
	    nla_put_u32(skb, TCA_HTBX_MPU, cfg->len.mpu) ||
	    nla_put_s32(skb, TCA_HTBX_OVERHEAD, cfg->len.overhead) ||
	    nla_put_u8(skb, TCA_HTBX_LINKLAYER, cfg->len.linklayer) ||
	    nla_put_u32(skb, TCA_HTBX_LEVEL, cl->cls.level))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

/* Called with the qdisc root lock held (gnet_stats_start_copy). */
static int htbx_dump_class_stats(struct Qdisc *sch, unsigned long arg,
				 struct gnet_dump *d)
{
	struct htbx_class *cl = (struct htbx_class *)arg;
	struct gnet_stats_queue qs = {
		.drops		= cl->qstats.drops,
		.overlimits	= cl->cls.overlimits,
	};
	struct tc_htbx_xstats xs;
	__u32 qlen = 0;

	if (cl->leaf) {
		qdisc_qstats_qlen_backlog(cl->leaf, &qlen, &qs.backlog);
		qs.requeues = cl->leaf->qstats.requeues;
	}

	memset(&xs, 0, sizeof(xs));
	htbx_cls_xstats(&cl->cls, &xs);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats,
				  htbx_stats_running(sch)) < 0 ||
	    gnet_stats_copy_rate_est(d, &cl->rate_est) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xs, sizeof(xs));
}

static int htbx_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct nlattr *nest;

	/* RTNL only: the data path may be running (as in htb_dump) */
	sch->qstats.overlimits = READ_ONCE(q->core.overlimits);

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_HTBX_DEFCLS, q->defcls) ||
	    nla_put_u32(skb, TCA_HTBX_R2Q, q->r2q) ||
	    nla_put_u32(skb, TCA_HTBX_DIRECT_QLEN, q->direct_qlen) ||
	    nla_put_u64_64bit(skb, TCA_HTBX_DIRECT_PKTS, READ_ONCE(q->direct_pkts),
			      TCA_HTBX_PAD) ||
	    /* an option, not qdisc xstats: htb has none, and tc prints an
	     * empty line for xstats it cannot show
	     */
	    nla_put_u64_64bit(skb, TCA_HTBX_BUDGET_HITS,
			      READ_ONCE(q->core.budget_hits), TCA_HTBX_PAD) ||
	    nla_put_u32(skb, TCA_HTBX_VERSION, HTBX_VERSION))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

static void htbx_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl;
	unsigned int i;

	if (arg->stop)
		return;
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			if (!tc_qdisc_stats_dump(sch, (unsigned long)cl, arg))
				return;
		}
	}
}

/* ---- qdisc setup ---- */

static int htbx_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_HTBX_MAX + 1];
	u32 r2q = q->r2q, defcls = q->defcls, direct_qlen = q->direct_qlen;
	struct htbx_adj_info w = {};
	unsigned long adj = 0, ignored = 0;
	struct htbx_class *cl;
	struct htbx_cfg cfg;
	unsigned int i;
	int err;

	if (!opt)
		return 0;
	err = htbx_parse(opt, tb, extack);
	if (err < 0)
		return err;
	if (tb[TCA_HTBX_OFFLOAD]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HTBX_OFFLOAD],
				    "offload is not supported by htbx (use htb offload)");
		return -EOPNOTSUPP;
	}
	for (i = TCA_HTBX_RATE; i <= TCA_HTBX_LEVEL; i++) {
		if (tb[i]) {
			htbx_err_wrong_obj(extack, tb[i]);
			return -EINVAL;
		}
	}
	if (tb[TCA_HTBX_DEFCLS]) {
		/* any u32, as htb: the default class is TC_H_MIN() of it */
		defcls = nla_get_u32(tb[TCA_HTBX_DEFCLS]);
		w.defcls = defcls;
		if (defcls > 0xffff)
			adj |= BIT(HTBX_ADJ_DEFCLS);
	}
	if (tb[TCA_HTBX_R2Q]) {
		/* htb keeps r2q in an int: 0 and 2^31 and above count as 1 */
		r2q = nla_get_u32(tb[TCA_HTBX_R2Q]);
		if ((s32)r2q < 1) {
			w.r2q = r2q;
			r2q = 1;
			adj |= BIT(HTBX_ADJ_R2Q);
		}
	}
	if (tb[TCA_HTBX_DIRECT_QLEN])
		direct_qlen = nla_get_u32(tb[TCA_HTBX_DIRECT_QLEN]);

	sch_tree_lock(sch);
	q->defcls = defcls;
	q->direct_qlen = direct_qlen;
	if (r2q != q->r2q) {
		/* Derived quanta of leaves follow the new r2q. */
		q->r2q = r2q;
		for (i = 0; i < q->clhash.hashsize; i++) {
			hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
				if (cl->params.quantum || !htbx_is_leaf(cl))
					continue;
				htbx_derive(&cl->params, r2q, &cfg, &ignored);
				htbx_core_change(&q->core, &cl->cls, &cfg,
						 htbx_clock_ns());
			}
		}
	}
	sch_tree_unlock(sch);
	htbx_report(extack, adj, &w);
	return 0;
}

/* Process context: the event budget ran out, run the queue again. */
static void htbx_work_func(struct work_struct *work)
{
	struct htbx_sched *q = container_of(work, struct htbx_sched, work);
	struct Qdisc *sch = q->watchdog.qdisc;

	rcu_read_lock();
	__netif_schedule(qdisc_root(sch));
	rcu_read_unlock();
}

static int htbx_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	int err;

	qdisc_watchdog_init(&q->watchdog, sch);
	INIT_WORK(&q->work, htbx_work_func);
	/* direct_queue: qdisc_priv() is zeroed, an empty qdisc_skb_head */
	htbx_core_init(&q->core);

	err = qdisc_class_hash_init(&q->clhash);
	if (err < 0)
		return err;
	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;

	q->r2q = HTBX_DEFAULT_R2Q;
	/* as htb: even a txqueuelen of 0 (then unclassified packets drop) */
	q->direct_qlen = qdisc_dev(sch)->tx_queue_len;
	return htbx_change(sch, opt, extack);
}

static void htbx_destroy(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct hlist_node *next;
	struct htbx_class *cl;
	unsigned int i;

	cancel_work_sync(&q->work);
	qdisc_watchdog_cancel(&q->watchdog);
	/*
	 * Filters first: they can point at classes (and a class's filters
	 * at other classes), so no class may go before every block is gone.
	 */
	tcf_block_put(q->block);
	q->block = NULL;
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			tcf_block_put(cl->block);
			cl->block = NULL;
		}
	}
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry_safe(cl, next, &q->clhash.hash[i],
					  common.hnode)
			htbx_destroy_class(sch, cl);
	}
	qdisc_class_hash_destroy(&q->clhash);
	__qdisc_reset_queue(&q->direct_queue);
}

static const struct Qdisc_class_ops htbx_class_ops = {
	.graft		=	htbx_graft,
	.leaf		=	htbx_leaf,
	.qlen_notify	=	htbx_qlen_notify,
	.find		=	htbx_search,
	.change		=	htbx_change_class,
	.delete		=	htbx_class_delete_op(htbx_delete),
	.walk		=	htbx_walk,
	.tcf_block	=	htbx_tcf_block,
	.bind_tcf	=	htbx_bind_filter,
	.unbind_tcf	=	htbx_unbind_filter,
	.dump		=	htbx_dump_class,
	.dump_stats	=	htbx_dump_class_stats,
};

static struct Qdisc_ops htbx_qdisc_ops __read_mostly = {
	.cl_ops		=	&htbx_class_ops,
	.id		=	"htbx",
	.priv_size	=	sizeof(struct htbx_sched),
	.enqueue	=	htbx_enqueue,
	.dequeue	=	htbx_dequeue,
	.peek		=	qdisc_peek_dequeued,
	.init		=	htbx_init,
	.reset		=	htbx_reset,
	.destroy	=	htbx_destroy,
	.change		=	htbx_change,
	.dump		=	htbx_dump,
	.owner		=	THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("htbx");

static int __init htbx_module_init(void)
{
	return register_qdisc(&htbx_qdisc_ops);
}

static void __exit htbx_module_exit(void)
{
	unregister_qdisc(&htbx_qdisc_ops);
}

module_init(htbx_module_init);
module_exit(htbx_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Hierarchical Token Bucket with a nanosecond clock (htbx)");
MODULE_VERSION(HTBX_MODULE_VERSION);
/* what this kernel lacks that htbx would use (compat.h), for modinfo */
MODULE_INFO(compat, HTBX_COMPAT_MISSING);
