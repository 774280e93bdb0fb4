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
 * The code is in layers (Kbuild's object list names them). The scheduling
 * itself is single-queue HTB in htbx_core.c (built as it is into the
 * userspace tests); mq mode, one class tree over every TX queue, is a
 * layer on top of it: htbx_share.c is its side in the core (what the
 * queues' cores share: buckets, published prios, quantum across queues),
 * htbx_mq.c its side in the kernel (a qdisc per TX queue, leaf copies,
 * the growth to new queues, summed dumps). This file is the qdisc glue:
 * netlink, classification, the leaf qdiscs, filters, statistics, the
 * single-queue data path and the watchdog. What differs from HTB:
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
#include <linux/rtnetlink.h>

#include "sch_htbx.h"
#include "htbx_mq.h"
#include "htbx_htb.h"

/* The direct queue, as a classification result. */
#define HTBX_DIRECT	((struct htbx_class *)-1L)

/* ---- attributes: their policies and messages (htbx_opts.h) ---- */

/*
 * The ranges are tc-htb's: every value htb takes is taken, and the ones
 * htb (or htbx) adjusts are adjusted with a warning (htbx_derive() for a
 * class, htbx_change() for the qdisc).
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
static_assert(TCA_HTBX_MAX == 20);

/* A line of htbx_opts.h for every attribute, none twice (an enumerator). */
#define HTBX_ATTR(ATTR, ...)	HTBX_ATTR_LINE_##ATTR,
enum {
#include "htbx_opts.h"
	HTBX_ATTR_LINES
};
#undef HTBX_ATTR
static_assert(HTBX_ATTR_LINES == TCA_HTBX_MAX);

/*
 * HTBX_IN_<object>_<owner>(): the entry of the policy of <object> for an
 * attribute of <owner>. Each message is a string literal put together
 * here: a reject_message and the kernel's NL_SET_ERR_MSG_ATTR() need a
 * constant (before 6.3 an extack only points at its message, and
 * netlink_ack() reads it after RTNL is dropped).
 */
#define HTBX_REJECT(msg)	{ .type = NLA_REJECT, .reject_message = msg }
#define HTBX_IN_QDISC_QDISC(name, range, policy...)	policy
#define HTBX_IN_QDISC_CLASS(name, range, policy...)			\
	HTBX_REJECT(name " is a class option, not a qdisc option")
#define HTBX_IN_CLASS_CLASS(name, range, policy...)	policy
#define HTBX_IN_CLASS_QDISC(name, range, policy...)			\
	HTBX_REJECT(name " is a qdisc option, not a class option")
#define HTBX_IN_QDISC_RO(name, range, policy...)			\
	HTBX_REJECT("invalid " name ": " range)
#define HTBX_IN_CLASS_RO	HTBX_IN_QDISC_RO
#define HTBX_IN_QDISC_PAD(name, range, policy...)	{ .type = NLA_UNSPEC }
#define HTBX_IN_CLASS_PAD	HTBX_IN_QDISC_PAD

#define HTBX_ATTR(ATTR, name, owner, len, range, policy...)		\
	[TCA_HTBX_##ATTR] = HTBX_IN_QDISC_##owner(name, range, ##policy),
static const struct nla_policy htbx_qdisc_policy[TCA_HTBX_MAX + 1] = {
#include "htbx_opts.h"
};
#undef HTBX_ATTR

#define HTBX_ATTR(ATTR, name, owner, len, range, policy...)		\
	[TCA_HTBX_##ATTR] = HTBX_IN_CLASS_##owner(name, range, ##policy),
static const struct nla_policy htbx_class_policy[TCA_HTBX_MAX + 1] = {
#include "htbx_opts.h"
};
#undef HTBX_ATTR

/* The attributes that take a value, of the length in htbx_opts.h. */
#define HTBX_HAS_LEN_QDISC	1
#define HTBX_HAS_LEN_CLASS	1
#define HTBX_HAS_LEN_RO		0
#define HTBX_HAS_LEN_PAD	0
/* The length a policy type checks (lib/nlattr.c's nla_attr_len). */
#define htbx_nla_len(t)							\
	((t) == NLA_U8 ? 1 : (t) == NLA_U32 || (t) == NLA_S32 ? 4 :	\
	 (t) == NLA_U64 ? 8 : 0)
/* ... of an attribute: its owner's policy's (the other one rejects it) */
#define HTBX_POLICY_LEN(attr)						\
	(htbx_nla_len(htbx_qdisc_policy[attr].type) +			\
	 htbx_nla_len(htbx_class_policy[attr].type))

/*
 * htbx_err_<ATTR>(): the message about an attribute the policy refused
 * with a generic message: a wrong length is named as such (in an
 * attribute that takes a value), anything else is answered with the
 * range. At build time: the attribute is one of htbx_attr_err[], and its
 * policy checks the length its message names.
 */
#define HTBX_ATTR(ATTR, name, owner, len, range, policy...)		\
static void htbx_err_##ATTR(struct netlink_ext_ack *extack,		\
			    const struct nlattr *bad)			\
{									\
	BUILD_BUG_ON(TCA_HTBX_##ATTR < TCA_HTBX_PAD);			\
	BUILD_BUG_ON(HTBX_HAS_LEN_##owner &&				\
		     HTBX_POLICY_LEN(TCA_HTBX_##ATTR) != (len));	\
	if (HTBX_HAS_LEN_##owner && nla_len(bad) != (len))		\
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid " name		\
				    ": attribute length must be " #len	\
				    " bytes");				\
	else								\
		NL_SET_ERR_MSG_ATTR(extack, bad,			\
				    "invalid " name ": " range);	\
}
#include "htbx_opts.h"
#undef HTBX_ATTR

#define HTBX_ATTR(ATTR, ...)						\
	[TCA_HTBX_##ATTR] = htbx_err_##ATTR,
static void (*const htbx_attr_err[TCA_HTBX_MAX + 1])(struct netlink_ext_ack *,
						     const struct nlattr *) = {
#include "htbx_opts.h"
};
#undef HTBX_ATTR

/**
 * htbx_parse - strictly parse htbx options against a policy
 * @opt: the TCA_OPTIONS attribute
 * @tb: result
 * @policy: htbx_qdisc_policy or htbx_class_policy
 * @extack: on failure, names the attribute and its valid range
 *
 * Strict: unknown attributes, trailing bytes and wrong lengths are errors.
 * The nest flag is not required (older tc does not set it). An attribute
 * the policy rejects (the other object's, or a read-only one) keeps the
 * policy's message; for any other the policy's generic message is
 * replaced by the attribute's own (htbx_err_<ATTR>()).
 *
 * Return: 0, or a negative errno with @extack set.
 */
static int htbx_parse(struct nlattr *opt, struct nlattr **tb,
		      const struct nla_policy *policy,
		      struct netlink_ext_ack *extack)
{
	const struct nlattr *bad;
	int err, type;

	err = __nla_parse(tb, TCA_HTBX_MAX, nla_data(opt), nla_len(opt),
			  policy, NL_VALIDATE_STRICT, extack);
	if (!err || !extack)
		return err;

	bad = extack->bad_attr;
	if (!bad || (const void *)bad < nla_data(opt) ||
	    (const void *)bad >= nla_data(opt) + nla_len(opt)) {
		NL_SET_ERR_MSG_MOD(extack, "malformed or truncated htbx options");
		return err;
	}
	/*
	 * The policy's own reject_message stands; a generic one is replaced
	 * by one that names the option.
	 */
	type = nla_type(bad);
	if (type <= TCA_HTBX_MAX && policy[type].type == NLA_REJECT &&
	    extack->_msg == policy[type].reject_message)
		return err;
	if (type >= TCA_HTBX_PAD && type <= TCA_HTBX_MAX)
		htbx_attr_err[type](extack, bad);
	else
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "unknown htbx attribute (known: 2..20)");
	return err;
}

/* ---- classification ---- */

/*
 * Under RTNL, or in the data path: without mq under the tree lock, which
 * the hash changes under too; in mq mode on any queue, under RCU, in the
 * xarray (the hash's one lock is no queue's).
 */
static struct htbx_class *htbx_find(u32 handle, struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *clc;

	if (q->mq)
		return TC_H_MAJ(handle ^ sch->handle) ? NULL :
		       xa_load(&q->classes, TC_H_MIN(handle));
	clc = qdisc_class_find(&q->clhash, handle);
	return clc ? container_of(clc, struct htbx_class, common) : NULL;
}

static unsigned long htbx_search(struct Qdisc *sch, u32 handle)
{
	return (unsigned long)htbx_find(handle, sch);
}

/* The class id the default names. */
static u32 htbx_defcls_id(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);

	return TC_H_MAKE(TC_H_MAJ(sch->handle), q->defcls);
}

/**
 * htbx_classify - find the leaf class of @skb
 * @skb: the packet
 * @sch: the htbx qdisc
 * @i: the queue it is classified on (0 without mq), whose nodes say which
 *	classes are leaves
 * @qerr: where the verdict goes when an action took the packet
 *
 * skb->priority naming the qdisc selects the direct queue, naming a leaf
 * selects it, naming an inner class starts at that class's filters.
 * Otherwise the filters run from the qdisc down: a result naming an inner
 * class continues with that class's filters, one naming the qdisc (X:0)
 * selects the direct queue. Without a match the default class is used if
 * it is a leaf, else the direct queue.
 *
 * Return: a leaf, HTBX_DIRECT, or NULL when an action consumed the packet
 * (*qerr then holds the verdict for the caller).
 */
static struct htbx_class *htbx_classify(struct sk_buff *skb, struct Qdisc *sch,
					unsigned int i, int *qerr)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl;
	struct tcf_result res;
	struct tcf_proto *tcf;
	int result, hops = 0;

	if (skb->priority == sch->handle)
		return HTBX_DIRECT;
	/* only an id of this qdisc can name one of its classes */
	cl = NULL;
	if (!TC_H_MAJ(skb->priority ^ sch->handle))
		cl = htbx_find(skb->priority, sch);
	if (cl) {
		if (htbx_is_leaf_on(cl, i))
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
		if (htbx_is_leaf_on(cl, i))
			return cl;
		/* Filters that send inner classes to each other: give up. */
		if (++hops > 2 * HTBX_MAXDEPTH)
			break;
		tcf = rcu_dereference_bh(cl->filter_list);
	}

	/* the default class, kept by every change that may move it */
	cl = READ_ONCE(q->defcl);
	if (!cl || !htbx_is_leaf_on(cl, i))
		return HTBX_DIRECT;
	return cl;
}

/* ---- data path ---- */

/* The leaf of @p refused a packet with @ret: count a drop if it was one. */
static int htbx_enqueue_refused(struct Qdisc *sch, struct htbx_node *p,
				int ret)
{
	if (net_xmit_drop_count(ret)) {
		qdisc_qstats_drop(sch);
		p->drops++;
	}
	return ret;
}

/*
 * Enqueue on @t, the queue of @sch: the htbx qdisc itself, or in mq mode
 * the qdisc of one TX queue (classes and filters are t->root's).
 */
int htbx_queue_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct htbx_queue *t, struct sk_buff **to_free)
{
	struct htbx_sched *q = qdisc_priv(t->root);
	unsigned int len = qdisc_pkt_len(skb);
	int ret = NET_XMIT_SUCCESS;
	struct htbx_class *cl;
	struct htbx_node *p;

	cl = htbx_classify(skb, t->root, t->idx, &ret);
	if (!cl) {
		if (ret & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return ret;
	}
	if (cl == HTBX_DIRECT) {
		if (t->direct_queue.qlen >= READ_ONCE(q->direct_qlen))
			return qdisc_drop(skb, sch, to_free);
		__qdisc_enqueue_tail(skb, &t->direct_queue);
		/* read by htbx_dump() without the qdisc lock */
		WRITE_ONCE(t->direct_pkts, t->direct_pkts + 1);
		goto out;
	}

	p = htbx_node_at(cl, t->idx);
	if (unlikely(p->queue)) {
		ret = htbx_mq_enqueue(skb, sch, t, p, to_free);
		if (unlikely(ret != NET_XMIT_SUCCESS))
			return htbx_enqueue_refused(sch, p, ret);
		return NET_XMIT_SUCCESS;
	}
	ret = qdisc_enqueue(skb, p->leaf, to_free);
	if (unlikely(ret != NET_XMIT_SUCCESS))
		return htbx_enqueue_refused(sch, p, ret);
	htbx_core_activate(&t->core, &p->core);
out:
	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

struct sk_buff *htbx_queue_dequeue(struct Qdisc *sch, struct htbx_queue *t)
{
	struct sk_buff *skb;
	u64 now;

	/* The direct queue is not shaped and goes first, as in HTB. */
	skb = __qdisc_dequeue_head(&t->direct_queue);
	if (skb)
		goto out;
	if (!sch->q.qlen)
		return NULL;

	now = htbx_clock_ns();
	skb = htbx_core_dequeue(&t->core, now);
	if (skb)
		goto out;

	if (likely(t->core.next_event > now))
		qdisc_watchdog_schedule_ns(&t->watchdog, t->core.next_event);
	else if (t->core.next_event)
		/*
		 * The event budget ran out with events still due: leave
		 * softirq and let process context kick the queue, as htb
		 * does, instead of re-arming the timer at "now".
		 */
		schedule_work(&t->work);
	return NULL;

out:
	qdisc_bstats_update(sch, skb);
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	return skb;
}

/* Every class's node on @t back to rest; their packets dropped. */
void htbx_queue_reset(struct htbx_queue *t)
{
	u64 now = htbx_clock_ns();
	struct htbx_class *cl;
	struct htbx_sched *q;
	struct htbx_node *p;
	unsigned int i;

	q = t->root ? qdisc_priv(t->root) : NULL;
	/* mq: a queue above the classes' nodes has none (htbx_mq_init) */
	if (q && t->idx < htbx_nq(q)) {
		for (i = 0; i < q->clhash.hashsize; i++) {
			hlist_for_each_entry(cl, &q->clhash.hash[i],
					     common.hnode) {
				p = htbx_node_at(cl, t->idx);
				if (p->leaf)
					qdisc_reset(p->leaf);
				p->qlen_seen = 0;	/* so is the queue's */
				p->backlog_seen = 0;
				htbx_core_reset_node(&t->core, &p->core, now);
			}
		}
	}
	htbx_core_reset(&t->core);
	qdisc_watchdog_cancel(&t->watchdog);
	__qdisc_reset_queue(&t->direct_queue);
}

static int htbx_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (unlikely(q->mq)) {
		/* never: the TX queues hold their own qdiscs */
		__qdisc_drop(skb, to_free);
		return NET_XMIT_DROP;
	}
	return htbx_queue_enqueue(skb, sch, &q->queue, to_free);
}

static struct sk_buff *htbx_dequeue(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (unlikely(q->mq))
		return NULL;
	return htbx_queue_dequeue(sch, &q->queue);
}

/* In mq mode the queues' qdiscs reset themselves (dev_deactivate). */
static void htbx_reset(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (!q->mq)
		htbx_queue_reset(&q->queue);
}

/* ---- locking: the qdisc's lock, or in mq mode one queue's at a time ---- */

/*
 * Configuration changes what a queue's data path reads on one queue at a
 * time, under that queue's lock alone (without mq: the qdisc's tree
 * lock), so that it never holds more than one: a device may have
 * thousands of queues. What every queue reads (the classes by id, the
 * default class, the direct queue's limit) is published under RTNL with
 * marked or RCU accesses, a class only once its nodes are on every queue
 * and taken away before they go (design/multiqueue.md, "Configuration").
 */
static void htbx_lock_queue(struct Qdisc *sch, unsigned int i)
	__acquires(qdisc_lock(sch))
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (q->mq) {
		spin_lock_bh(qdisc_lock(q->queue_qdiscs[i]));
		/* sparse: one context, whichever queue's it is */
		__release(qdisc_lock(q->queue_qdiscs[i]));
		__acquire(qdisc_lock(sch));
	} else {
		sch_tree_lock(sch);
	}
}

static void htbx_unlock_queue(struct Qdisc *sch, unsigned int i)
	__releases(qdisc_lock(sch))
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (q->mq) {
		__acquire(qdisc_lock(q->queue_qdiscs[i]));
		spin_unlock_bh(qdisc_lock(q->queue_qdiscs[i]));
		__release(qdisc_lock(sch));
	} else {
		sch_tree_unlock(sch);
	}
}

/*
 * Drop what node @i of @cl holds (under htbx_lock_queue(i)) and take it out of its
 * queue's rings. Without mq, qdisc_purge_queue() reports the drop up the
 * tree; in mq mode the queue's qdisc is not up the tree and follows here.
 */
void htbx_purge_node(struct htbx_sched *q, struct htbx_class *cl,
		     unsigned int i)
{
	struct htbx_node *p = htbx_node_at(cl, i);
	struct htbx_queue *t = htbx_queue_at(q, i);
	u32 qlen0;

	if (p->leaf) {
		if (p->queue) {
			qlen0 = p->qlen_seen;
			qdisc_reset(p->leaf);
			htbx_mq_follow(p);
			t->sch->qstats.drops += qlen0;
		} else {
			qdisc_purge_queue(p->leaf);
		}
	}
	htbx_core_deactivate(&t->core, &p->core);
}

/* ---- class configuration ---- */

/*
 * What htbx takes as htb takes it and then adjusts (htbx_opts.h): the
 * request succeeds, and an extack warning (a message on success) says
 * what was adjusted.
 */
#define HTBX_ADJ(ADJ, tag, text)	HTBX_ADJ_##ADJ,
enum htbx_adj {
#include "htbx_opts.h"
	HTBX_ADJ_NUM
};
#undef HTBX_ADJ

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
#define HTBX_ADJ(ADJ, tag, text)					\
	[HTBX_ADJ_##ADJ] = tag,
static const char *const htbx_adj_tag[HTBX_ADJ_NUM] = {
#include "htbx_opts.h"
};
#undef HTBX_ADJ

/*
 * htbx_adj_<ADJ>(): the warning about the adjustment alone, or, given
 * @several, the short forms of several; before 6.3 (an extack can only
 * point at a constant) the adjustment's text either way.
 */
#define HTBX_ADJ(ADJ, tag, text)					\
static void htbx_adj_##ADJ(struct netlink_ext_ack *extack,		\
			   const char *several)				\
{									\
	htbx_err_fmt(extack, text, "%s", several ?: text);		\
}
#include "htbx_opts.h"
#undef HTBX_ADJ

#define HTBX_ADJ(ADJ, tag, text)					\
	[HTBX_ADJ_##ADJ] = htbx_adj_##ADJ,
static void (*const htbx_adj_warn[HTBX_ADJ_NUM])(struct netlink_ext_ack *,
						 const char *) = {
#include "htbx_opts.h"
};
#undef HTBX_ADJ

/*
 * The warning about adjustment @bit alone with the values it names, where
 * the kernel can format one (6.3+): false where it cannot, or the warning
 * names none.
 */
static bool htbx_adj_values(struct netlink_ext_ack *extack, int bit,
			    const struct htbx_adj_info *w)
{
	switch (bit) {
	case HTBX_ADJ_PRIO:
		return htbx_err_values(extack, "prio %u counts as 7, as in htb",
				       w->prio);
	case HTBX_ADJ_CEIL_LOW:
		/* In bit/s, the unit users give rates in. */
		return htbx_err_values(extack,
				       "ceil %llubit < rate %llubit: held to ceil, as in htb",
				       w->ceil * 8, w->rate * 8);
	case HTBX_ADJ_QUANTUM:
		/* At most 80 characters reach the user (NETLINK_MAX_FMTMSG_LEN). */
		return htbx_err_values(extack,
				       "quantum of %x:%x clamped to %u (rate/r2q = %llu)",
				       TC_H_MAJ(w->classid) >> 16,
				       TC_H_MIN(w->classid), w->quantum,
				       w->rate_quantum);
	case HTBX_ADJ_R2Q:
		return htbx_err_values(extack, "r2q %u counts as 1, as in htb",
				       w->r2q);
	case HTBX_ADJ_DEFCLS:
		return htbx_err_values(extack,
				       "default %#x: only its low 16 bits name a class, as in htb",
				       w->defcls);
	}
	return false;
}

/**
 * htbx_report - the extack warning for the adjustments in @adj
 * @extack: where the warning goes
 * @adj: a bit per adjustment made to the request
 * @w: the values the messages name
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

	bit = __ffs(adj);
	if (one && htbx_adj_values(extack, bit, w))
		return;
	htbx_adj_warn[bit](extack, one ? NULL : buf);
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
 * Overwrite @p with the class attributes present in @tb (0 means auto).
 * What is beyond htbx's range htbx_class_set() adjusts, for every front.
 */
static void htbx_params_apply(struct htbx_params *p, struct nlattr **tb)
{
	if (tb[TCA_HTBX_RATE])
		p->rate = nla_get_u64(tb[TCA_HTBX_RATE]);
	if (tb[TCA_HTBX_CEIL])
		p->ceil = nla_get_u64(tb[TCA_HTBX_CEIL]);
	if (tb[TCA_HTBX_BURST])
		p->burst = nla_get_u32(tb[TCA_HTBX_BURST]);
	if (tb[TCA_HTBX_CBURST])
		p->cburst = nla_get_u32(tb[TCA_HTBX_CBURST]);
	if (tb[TCA_HTBX_PRIO])
		p->prio = nla_get_u32(tb[TCA_HTBX_PRIO]);
	if (tb[TCA_HTBX_QUANTUM])
		p->quantum = nla_get_u32(tb[TCA_HTBX_QUANTUM]);
	if (tb[TCA_HTBX_MTU])
		p->mtu = nla_get_u32(tb[TCA_HTBX_MTU]);
	if (tb[TCA_HTBX_MPU])
		p->mpu = nla_get_u32(tb[TCA_HTBX_MPU]);
	if (tb[TCA_HTBX_OVERHEAD])
		p->overhead = nla_get_s32(tb[TCA_HTBX_OVERHEAD]);
	if (tb[TCA_HTBX_LINKLAYER])
		p->linklayer = nla_get_u8(tb[TCA_HTBX_LINKLAYER]);
}

/*
 * Hold @p to htbx's range, as htb adjusts (prio) or beyond what htbx
 * shapes (rate, ceil, mtu): each adjustment a bit of @adj. A class's
 * stored parameters are in range, so only a request's values move.
 */
static void htbx_params_clamp(struct htbx_params *p, unsigned long *adj,
			      struct htbx_adj_info *w)
{
	if (p->rate > HTBX_MAX_RATE) {
		p->rate = HTBX_MAX_RATE;
		*adj |= BIT(HTBX_ADJ_RATE);
	}
	if (p->ceil > HTBX_MAX_RATE) {
		p->ceil = HTBX_MAX_RATE;
		*adj |= BIT(HTBX_ADJ_CEIL);
	}
	if (p->prio > HTBX_MAX_PRIO) {
		w->prio = p->prio;
		p->prio = HTBX_MAX_PRIO;
		*adj |= BIT(HTBX_ADJ_PRIO);
	}
	if (p->mtu > HTBX_MAX_MTU) {
		p->mtu = HTBX_MAX_MTU;
		*adj |= BIT(HTBX_ADJ_MTU);
	}
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
	struct htbx_sched *q = qdisc_priv(sch);

	if (cl->node.leaf)
		htbx_leaf_put(cl->node.leaf);
	htbx_mq_nodes_put(cl->mq_nodes, 1, htbx_nq(q));
	gen_kill_estimator(&cl->rate_est);
	tcf_block_put(cl->block);
	free_percpu(cl->cpu_bstats);
	kfree(cl->leaf_opt);
	kfree(cl->bucket);
	kfree(cl);
}

/*
 * A pfifo leaf for node @i of class @classid. Above queue 0 (mq) it is
 * not in the tree tc sees, and reports nothing up it, as a copy
 * (htbx_clone_leaf).
 */
struct Qdisc *htbx_new_leaf(struct Qdisc *sch, unsigned int i, u32 classid,
			    struct netlink_ext_ack *extack)
{
	struct Qdisc *leaf;

	leaf = qdisc_create_dflt(htbx_leaf_queue(sch, i), &pfifo_qdisc_ops,
				 classid, extack);
	if (leaf && i)
		leaf->flags |= TCQ_F_NOPARENT;
	return leaf;
}

/* Free @n leaves of @leaves (some may be NULL) and the array. */
static void htbx_put_leaves(struct Qdisc **leaves, unsigned int n)
{
	unsigned int i;

	if (!leaves)
		return;
	for (i = 0; i < n; i++)
		if (leaves[i])
			htbx_leaf_put(leaves[i]);
	kfree(leaves);
}

/* A pfifo leaf for every node of class @classid, or NULL. */
static struct Qdisc **htbx_new_leaves(struct Qdisc *sch, u32 classid,
				      struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct Qdisc **leaves;
	unsigned int i;

	leaves = kcalloc(htbx_nq(q), sizeof(*leaves), GFP_KERNEL_ACCOUNT);
	if (!leaves)
		return NULL;
	for (i = 0; i < htbx_nq(q); i++) {
		leaves[i] = htbx_new_leaf(sch, i, classid, extack);
		if (!leaves[i]) {
			htbx_put_leaves(leaves, i);
			return NULL;
		}
	}
	return leaves;
}

/* Class options: parsed, and none of the qdisc's (the policy rejects them). */
static int htbx_class_opts(struct nlattr *opt, struct nlattr **tb,
			   bool create, struct netlink_ext_ack *extack)
{
	int err;

	if (!opt) {
		if (create)
			NL_SET_ERR_MSG_MOD(extack, "no htbx class options: rate is required");
		else
			NL_SET_ERR_MSG_MOD(extack, "no htbx class options: nothing to change");
		return -EINVAL;
	}
	err = htbx_parse(opt, tb, htbx_class_policy, extack);
	if (err < 0)
		return err;
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
 * A validated configuration @cfg to every node of @cl, one queue at a
 * time, each under its queue's lock alone (htbx_lock_queue).
 */
static void htbx_class_apply(struct Qdisc *sch, struct htbx_class *cl,
			     const struct htbx_cfg *cfg)
{
	struct htbx_sched *q = qdisc_priv(sch);
	unsigned int i;

	for (i = 0; i < htbx_nq(q); i++) {
		htbx_lock_queue(sch, i);
		htbx_core_change(&htbx_queue_at(q, i)->core,
				 &htbx_node_at(cl, i)->core, cfg,
				 htbx_clock_ns());
		htbx_unlock_queue(sch, i);
	}
}

/*
 * Change: @given is the class's parameters with the request's applied. A
 * class with children keeps its prio and quantum, as htb does (it sets
 * them for leaves only): they apply when it is a leaf again.
 */
static int htbx_class_change(struct Qdisc *sch, struct htbx_class *cl,
			     const struct htbx_params *given,
			     unsigned long adj, struct htbx_adj_info *w,
			     struct nlattr *rate_est,
			     struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_params params = *given;
	struct htbx_cfg cfg;
	int err;

	/* derive: nothing is changed before it and the estimator succeeded */
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
		cfg.quantum = cl->node.core.cfg.quantum;
		adj &= ~BIT(HTBX_ADJ_QUANTUM);
	}
	if (rate_est) {
		err = gen_replace_estimator(&cl->node.bstats, cl->cpu_bstats,
					    &cl->rate_est,
					    NULL, htbx_stats_running(sch),
					    rate_est);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "invalid rate estimator parameters");
			return err;
		}
	}

	cl->params = params;
	htbx_class_apply(sch, cl, &cfg);
	htbx_adj_info_cfg(w, cl->common.classid, &cfg, q->r2q);
	htbx_report(extack, adj, w);
	return 0;
}

/*
 * Create: check everything, allocate and set up, then link the class's
 * node on each queue under that queue's lock, and only then publish the
 * class to the data path.
 */
static int htbx_class_create(struct Qdisc *sch, u32 classid, u32 parentid,
			     const struct htbx_params *params,
			     unsigned long adj, struct htbx_adj_info *w,
			     struct nlattr *rate_est, unsigned long *arg,
			     struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct Qdisc **leaves, **old_leaves = NULL;
	struct htbx_class *cl, *parent;
	struct htbx_queue *t;
	struct htbx_node *p;
	struct htbx_cfg cfg;
	unsigned int i;
	int err;

	/* validate and derive */
	err = htbx_class_place(sch, classid, parentid, &parent, extack);
	if (err)
		return err;
	htbx_derive(params, q->r2q, &cfg, &adj);

	/* allocate */
	/* what a user makes is charged to the user's memory cgroup */
	cl = kzalloc(sizeof(*cl), GFP_KERNEL_ACCOUNT);
	if (!cl)
		return -ENOBUFS;
	if (q->mq) {
		cl->mq_nodes = htbx_mq_nodes_new(NULL, 1, q->nq);
		cl->bucket = kzalloc(sizeof(*cl->bucket), GFP_KERNEL_ACCOUNT);
		cl->cpu_bstats = __netdev_alloc_pcpu_stats(struct htbx_bstats_cpu,
							   GFP_KERNEL_ACCOUNT);
		if (!cl->mq_nodes || !cl->bucket || !cl->cpu_bstats) {
			err = -ENOBUFS;
			goto err_free;
		}
	}
	for (i = 0; i < htbx_nq(q); i++) {
		gnet_stats_basic_sync_init(&htbx_node_at(cl, i)->bstats);
		htbx_node_at(cl, i)->cpu_bstats = cl->cpu_bstats;
	}
	cl->common.classid = classid;
	cl->parent = parent;
	cl->params = *params;
	if (parent && htbx_is_leaf(parent)) {
		old_leaves = kcalloc(htbx_nq(q), sizeof(*old_leaves),
				     GFP_KERNEL_ACCOUNT);
		if (!old_leaves) {
			err = -ENOBUFS;
			goto err_free;
		}
	}

	/* the slot its lookup takes, so that publishing cannot fail */
	err = xa_reserve(&q->classes, TC_H_MIN(classid), GFP_KERNEL_ACCOUNT);
	if (err)
		goto err_free;
	err = tcf_block_get(&cl->block, &cl->filter_list, sch, extack);
	if (err)
		goto err_slot;
	if (rate_est) {
		err = gen_new_estimator(&cl->node.bstats, cl->cpu_bstats,
					&cl->rate_est, NULL,
					htbx_stats_running(sch), rate_est);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "invalid rate estimator parameters");
			goto err_block;
		}
	}
	leaves = htbx_new_leaves(sch, classid, extack);
	if (!leaves) {
		err = -ENOBUFS;
		goto err_est;
	}

	for (i = 0; i < htbx_nq(q); i++) {
		p = htbx_node_at(cl, i);
		p->leaf = leaves[i];
		htbx_node_setup(&p->core, &cfg);
		if (q->mq) {
			p->queue = htbx_queue_at(q, i);
			p->core.bucket = cl->bucket;
		}
	}
	if (q->mq)
		htbx_bucket_fill(cl->bucket, &cl->node.core, htbx_clock_ns());

	/* apply, on one queue at a time */
	for (i = 0; i < htbx_nq(q); i++) {
		t = htbx_queue_at(q, i);
		htbx_lock_queue(sch, i);
		if (old_leaves) {
			/*
			 * The parent turns inner: its queued packets are
			 * dropped and the drop is reported up the tree, so
			 * that qlen and backlog of every ancestor qdisc stay
			 * exact.
			 */
			htbx_purge_node(q, parent, i);
			old_leaves[i] = htbx_node_at(parent, i)->leaf;
			htbx_node_at(parent, i)->leaf = NULL;
		}
		htbx_core_add(&t->core, &htbx_node_at(cl, i)->core,
			      parent ? &htbx_node_at(parent, i)->core : NULL,
			      htbx_clock_ns());
		htbx_unlock_queue(sch, i);
	}
	/* on every queue now: the data path may find it */
	xa_store(&q->classes, TC_H_MIN(classid), cl, GFP_KERNEL_ACCOUNT);
	sch_tree_lock(sch);
	qdisc_class_hash_insert(&q->clhash, &cl->common);
	sch_tree_unlock(sch);
	if (classid == htbx_defcls_id(sch))
		WRITE_ONCE(q->defcl, cl);

	kfree(leaves);
	/* one leaf is shown: queue 0's (mq: the others are its copies) */
	qdisc_hash_add(cl->node.leaf, true);
	qdisc_class_hash_grow(sch, &q->clhash);
	htbx_put_leaves(old_leaves, htbx_nq(q));
	if (old_leaves) {
		/* its grafted leaf is gone, and with it what to follow */
		kfree(parent->leaf_opt);
		parent->leaf_opt = NULL;
	}
	*arg = (unsigned long)cl;
	htbx_adj_info_cfg(w, classid, &cfg, q->r2q);
	htbx_report(extack, adj, w);
	return 0;

err_est:
	gen_kill_estimator(&cl->rate_est);
err_block:
	tcf_block_put(cl->block);
err_slot:
	xa_release(&q->classes, TC_H_MIN(classid));
err_free:
	kfree(old_leaves);
	free_percpu(cl->cpu_bstats);
	kfree(cl->bucket);
	htbx_mq_nodes_put(cl->mq_nodes, 1, htbx_nq(q));
	kfree(cl);
	return err;
}

/**
 * htbx_class_set - make class @classid, or change class *@arg
 * @sch: the qdisc
 * @classid: the class to make (unused for a change)
 * @parentid: its parent (unused for a change)
 * @arg: the class to change, or NULL; the class made
 * @given: the class's parameters, the request's applied (0: derive)
 * @rate_est: TCA_RATE of the request, or NULL
 * @extack: for an error, or the warning about what was adjusted
 *
 * What a front calls once it has parsed a class request. Values beyond
 * htbx's range are held to it here, with a warning (htbx_params_clamp()).
 *
 * Return: 0, or a negative errno with @extack set and nothing changed.
 */
int htbx_class_set(struct Qdisc *sch, u32 classid, u32 parentid,
		   unsigned long *arg, const struct htbx_params *given,
		   struct nlattr *rate_est, struct netlink_ext_ack *extack)
{
	struct htbx_class *cl = (struct htbx_class *)*arg;
	struct htbx_params params = *given;
	struct htbx_adj_info w = {};
	unsigned long adj = 0;

	htbx_params_clamp(&params, &adj, &w);
	if (cl)
		return htbx_class_change(sch, cl, &params, adj, &w, rate_est,
					 extack);
	return htbx_class_create(sch, classid, parentid, &params, adj, &w,
				 rate_est, arg, extack);
}

/*
 * htbx's class request: absent attributes keep their value (tc sends them
 * all, see the UAPI header).
 */
static int htbx_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			     struct nlattr **tca, unsigned long *arg,
			     struct netlink_ext_ack *extack)
{
	struct htbx_class *cl = (struct htbx_class *)*arg;
	struct nlattr *tb[TCA_HTBX_MAX + 1];
	struct htbx_params params;
	int err;

	err = htbx_class_opts(tca[TCA_OPTIONS], tb, !cl, extack);
	if (err)
		return err;
	if (cl)
		params = cl->params;
	else
		memset(&params, 0, sizeof(params));
	htbx_params_apply(&params, tb);
	return htbx_class_set(sch, classid, parentid, arg, &params,
			      tca[TCA_RATE], extack);
}

static int htbx_delete(struct Qdisc *sch, unsigned long arg,
		       struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl = (struct htbx_class *)arg;
	struct htbx_class *parent = cl->parent;
	struct Qdisc **new_leaves = NULL;
	bool parent_is_leaf = false;
	unsigned int i;

	if (!htbx_is_leaf(cl)) {
		NL_SET_ERR_MSG_MOD(extack, "class has child classes: delete them first");
		return -EBUSY;
	}
	if (qdisc_class_in_use(&cl->common)) {
		NL_SET_ERR_MSG_MOD(extack, "class is in use by filters: delete them first");
		return -EBUSY;
	}
	/* A parent losing its last child becomes a leaf: its queues first. */
	if (parent && parent->node.core.children == 1) {
		new_leaves = htbx_new_leaves(sch, parent->common.classid,
					     extack);
		if (!new_leaves)
			return -ENOBUFS;
	}

	/*
	 * Taken from the data path first, then off each queue in turn: a
	 * queue that finds no class by the id finds no node of it either.
	 */
	xa_erase(&q->classes, TC_H_MIN(cl->common.classid));
	sch_tree_lock(sch);
	qdisc_class_hash_remove(&q->clhash, &cl->common);
	sch_tree_unlock(sch);
	if (q->defcl == cl)
		WRITE_ONCE(q->defcl, NULL);
	/* the parent's buckets full, as a leaf's are made */
	if (new_leaves && q->mq)
		htbx_bucket_fill(parent->bucket, &parent->node.core,
				 htbx_clock_ns());
	for (i = 0; i < htbx_nq(q); i++) {
		htbx_lock_queue(sch, i);
		htbx_purge_node(q, cl, i);
		if (htbx_core_del(&htbx_queue_at(q, i)->core,
				  &htbx_node_at(cl, i)->core, htbx_clock_ns()) &&
		    parent && new_leaves) {
			htbx_node_at(parent, i)->leaf = new_leaves[i];
			new_leaves[i] = NULL;
			parent_is_leaf = true;
		}
		htbx_unlock_queue(sch, i);
	}

	if (parent_is_leaf)
		qdisc_hash_add(parent->node.leaf, true);
	htbx_put_leaves(new_leaves, htbx_nq(q));
	htbx_destroy_class(sch, cl);
	return 0;
}
HTBX_CLASS_DELETE(htbx_delete)

/* ---- leaves, filters ---- */

static int htbx_graft(struct Qdisc *sch, unsigned long arg, struct Qdisc *new,
		      struct Qdisc **old, struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_class *cl = (struct htbx_class *)arg;
	u32 classid = cl->common.classid;
	struct nlattr *opt = NULL, *leaf_opt = NULL;
	struct sk_buff *skb = NULL;
	struct Qdisc **leaves;
	struct htbx_node *p;
	struct Qdisc *tmp;
	unsigned int i;
	int err = -ENOBUFS;

	if (!htbx_is_leaf(cl)) {
		NL_SET_ERR_MSG_MOD(extack, "class has child classes: only a leaf holds a qdisc");
		return -EINVAL;
	}
	if (q->mq && new) {
		if (!htbx_mq_leaf_ok(new, extack))
			return -EOPNOTSUPP;
		skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
		if (!skb)
			return -ENOBUFS;
		opt = htbx_leaf_opts(new, skb);
		if (IS_ERR(opt)) {
			NL_SET_ERR_MSG_MOD(extack, "mq mode: the leaf's options do not fit one message");
			err = PTR_ERR(opt);
			goto out;
		}
		if (opt) {
			leaf_opt = kmemdup(opt, opt->nla_len,
					   GFP_KERNEL_ACCOUNT);
			if (!leaf_opt)
				goto out;
		}
	}
	leaves = kcalloc(htbx_nq(q), sizeof(*leaves), GFP_KERNEL_ACCOUNT);
	if (!leaves)
		goto out;
	for (i = 0; i < htbx_nq(q); i++) {
		if (!new)
			leaves[i] = htbx_new_leaf(sch, i, classid, extack);
		else if (!i)
			leaves[i] = new;
		else
			leaves[i] = htbx_clone_leaf(sch, new, opt, i, classid,
						    extack);
		if (!leaves[i]) {
			if (new)
				leaves[0] = NULL;	/* the caller's */
			htbx_put_leaves(leaves, i);
			goto out;
		}
	}

	/* Purges the old leaves; the class leaves its queues' rings. */
	for (i = 0; i < htbx_nq(q); i++) {
		p = htbx_node_at(cl, i);
		htbx_lock_queue(sch, i);
		htbx_purge_node(q, cl, i);
		tmp = p->leaf;
		p->leaf = leaves[i];
		leaves[i] = tmp;
		htbx_unlock_queue(sch, i);
	}

	/* the options the copies have, looked at by htbx_leaf_sync() */
	if (q->mq) {
		swap(cl->leaf_opt, leaf_opt);
		if (cl->leaf_opt)
			schedule_delayed_work(&q->leaf_sync,
					      msecs_to_jiffies(HTBX_LEAF_SYNC_MS));
	}
	*old = leaves[0];
	leaves[0] = NULL;
	htbx_put_leaves(leaves, htbx_nq(q));
	err = 0;
out:
	kfree(leaf_opt);
	kfree_skb(skb);
	return err;
}

static struct Qdisc *htbx_leaf(struct Qdisc *sch, unsigned long arg)
{
	struct htbx_class *cl = (struct htbx_class *)arg;

	return cl->node.leaf;
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

	/* mq: not told which queue; htbx_leaf_dequeue and the data path
	 * see the leaves' drops themselves
	 */
	if (!cl || q->mq)
		return;
	htbx_core_deactivate(&q->queue.core, &cl->node.core);
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

/**
 * htbx_dump_class_ids - what a class dump's header says of class @cl
 * @cl: the class
 * @tcm: the header
 */
void htbx_dump_class_ids(const struct htbx_class *cl, struct tcmsg *tcm)
{
	tcm->tcm_parent = cl->parent ? cl->parent->common.classid : TC_H_ROOT;
	tcm->tcm_handle = cl->common.classid;
	if (cl->node.leaf)
		tcm->tcm_info = cl->node.leaf->handle;
}

static int htbx_dump_class(struct Qdisc *sch, unsigned long arg,
			   struct sk_buff *skb, struct tcmsg *tcm)
{
	struct htbx_class *cl = (struct htbx_class *)arg;
	const struct htbx_cfg *cfg = &cl->node.core.cfg;
	struct nlattr *nest;

	/* RTNL is held: the configuration cannot change under us. */
	htbx_dump_class_ids(cl, tcm);
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
	    nla_put_u32(skb, TCA_HTBX_LEVEL, cl->node.core.level))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

/**
 * htbx_class_stats - a class's statistics, but for its xstats
 * @sch: the qdisc
 * @cl: the class
 * @d: the dump, given its basic, rate estimator and queue statistics
 * @xs: the class's xstats, for the front to put in its own form
 *
 * Called under the root qdisc's lock before 5.16 and under none since.
 * The node's state and counters are read under the lock its data path
 * holds (htbx_dump_lock: the root's without mq, each queue's in mq mode),
 * as the dump of a class that is sending while it is changed would read
 * them half-written otherwise (KCSAN saw it: tclass_notify() of a change
 * against the class's dequeue). What the class sent is its u64_stats
 * count (its per-CPU count in mq mode), which its estimator reads too.
 *
 * Return: 0, or -1 where the dump has no room.
 */
int htbx_class_stats(struct Qdisc *sch, struct htbx_class *cl,
		     struct gnet_dump *d, struct tc_htbx_xstats *xs)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct gnet_stats_queue qs = {};
	struct Qdisc *root;
	__u32 qlen = 0;

	memset(xs, 0, sizeof(*xs));
	if (!q->mq) {
		root = qdisc_root_sleeping(sch);
		htbx_dump_lock(root, 0);
		htbx_node_xstats(&cl->node.core, xs);
		qs.drops = cl->node.drops;
		qs.overlimits = cl->node.core.overlimits;
		if (cl->node.leaf) {
			qdisc_qstats_qlen_backlog(cl->node.leaf, &qlen,
						  &qs.backlog);
			qs.requeues = cl->node.leaf->qstats.requeues;
		}
		htbx_dump_unlock(root, 0);
		if (gnet_stats_copy_basic(d, NULL, &cl->node.bstats,
					  htbx_stats_running(sch)) < 0)
			return -1;
		goto rest;
	}
	/* configuration: RTNL, which this dump holds, keeps it */
	xs->version = HTBX_VERSION;
	xs->quantum = cl->node.core.cfg.quantum;
	htbx_mq_class_stats(sch, cl, &qs, xs, &qlen);
	if (gnet_stats_copy_basic(d, cl->cpu_bstats, &cl->node.bstats,
				  false) < 0)
		return -1;
rest:
	if (gnet_stats_copy_rate_est(d, &cl->rate_est) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, qlen) < 0)
		return -1;
	return 0;
}

static int htbx_dump_class_stats(struct Qdisc *sch, unsigned long arg,
				 struct gnet_dump *d)
{
	struct tc_htbx_xstats xs;

	if (htbx_class_stats(sch, (struct htbx_class *)arg, d, &xs) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xs, sizeof(xs));
}

static int htbx_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct htbx_sched *q = qdisc_priv(sch);
	u64 direct_pkts, budget_hits;
	struct nlattr *nest;

	if (q->mq) {
		htbx_mq_sum(sch, &direct_pkts, &budget_hits);
	} else {
		/* RTNL only: the data path may be running (as in htb_dump) */
		sch->qstats.overlimits = READ_ONCE(q->queue.core.overlimits);
		direct_pkts = READ_ONCE(q->queue.direct_pkts);
		budget_hits = READ_ONCE(q->queue.core.budget_hits);
	}

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_HTBX_DEFCLS, q->defcls) ||
	    nla_put_u32(skb, TCA_HTBX_R2Q, q->r2q) ||
	    nla_put_u32(skb, TCA_HTBX_DIRECT_QLEN, q->direct_qlen) ||
	    nla_put_u64_64bit(skb, TCA_HTBX_DIRECT_PKTS, direct_pkts,
			      TCA_HTBX_PAD) ||
	    /* an option, not qdisc xstats: htb has none, and tc prints an
	     * empty line for xstats it cannot show
	     */
	    nla_put_u64_64bit(skb, TCA_HTBX_BUDGET_HITS, budget_hits,
			      TCA_HTBX_PAD) ||
	    nla_put_u32(skb, TCA_HTBX_VERSION, HTBX_VERSION) ||
	    (q->mq && nla_put_flag(skb, TCA_HTBX_MQ)))
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

/**
 * htbx_qdisc_set - the qdisc's options, as a request gave them
 * @sch: the qdisc
 * @defcls: the default class (TCA_HTBX_DEFCLS), or NULL to keep it
 * @r2q: the rate to quantum divisor, or NULL to keep it
 * @direct_qlen: the direct queue's limit, or NULL to keep it
 * @extack: for the warning about what was adjusted, as htb adjusts it
 *
 * What a front calls once it has parsed a qdisc request: a default above
 * 0xffff is kept (its low 16 bits name the class), an r2q of 0 or of 2^31
 * and more counts as 1, and the derived quanta follow a new r2q.
 */
void htbx_qdisc_set(struct Qdisc *sch, const u32 *defcls, const u32 *r2q,
		    const u32 *direct_qlen, struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_adj_info w = {};
	unsigned long adj = 0, ignored = 0;
	struct htbx_class *cl;
	struct htbx_cfg cfg;
	unsigned int i;
	u32 new_r2q = q->r2q;

	if (defcls) {
		/* any u32, as htb: the default class is TC_H_MIN() of it */
		w.defcls = *defcls;
		if (*defcls > 0xffff)
			adj |= BIT(HTBX_ADJ_DEFCLS);
		q->defcls = *defcls;
	}
	if (r2q) {
		/* htb keeps r2q in an int: 0 and 2^31 and above count as 1 */
		new_r2q = *r2q;
		if ((s32)new_r2q < 1) {
			w.r2q = new_r2q;
			new_r2q = 1;
			adj |= BIT(HTBX_ADJ_R2Q);
		}
	}

	/* read by the data path of every queue */
	WRITE_ONCE(q->defcl, htbx_find(htbx_defcls_id(sch), sch));
	if (direct_qlen)
		WRITE_ONCE(q->direct_qlen, *direct_qlen);
	if (new_r2q != q->r2q) {
		/* Derived quanta of leaves follow the new r2q. */
		q->r2q = new_r2q;
		for (i = 0; i < q->clhash.hashsize; i++) {
			hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
				if (cl->params.quantum || !htbx_is_leaf(cl))
					continue;
				htbx_derive(&cl->params, new_r2q, &cfg, &ignored);
				htbx_class_apply(sch, cl, &cfg);
			}
		}
	}
	htbx_report(extack, adj, &w);
}

/* htbx's qdisc options, parsed into @tb: absent ones keep their value. */
static int htbx_qdisc_opts(struct Qdisc *sch, struct nlattr **tb,
			   struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (tb[TCA_HTBX_OFFLOAD]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HTBX_OFFLOAD],
				    "offload is not supported by htbx (use htb offload)");
		return -EOPNOTSUPP;
	}
	if (tb[TCA_HTBX_MQ] && !q->mq) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HTBX_MQ],
				    "mq is chosen when the qdisc is made (tc qdisc add or replace of another kind)");
		return -EINVAL;
	}
	htbx_qdisc_set(sch, htbx_nla_u32_or_null(tb[TCA_HTBX_DEFCLS]),
		       htbx_nla_u32_or_null(tb[TCA_HTBX_R2Q]),
		       htbx_nla_u32_or_null(tb[TCA_HTBX_DIRECT_QLEN]), extack);
	return 0;
}

static int htbx_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_HTBX_MAX + 1];
	int err;

	if (!opt)
		return 0;
	err = htbx_parse(opt, tb, htbx_qdisc_policy, extack);
	if (err < 0)
		return err;
	return htbx_qdisc_opts(sch, tb, extack);
}

/* Process context: the event budget ran out, run the queue again. */
static void htbx_work_func(struct work_struct *work)
{
	struct htbx_queue *t = container_of(work, struct htbx_queue, work);
	struct Qdisc *sch = t->watchdog.qdisc;

	rcu_read_lock();
	__netif_schedule(qdisc_root(sch));
	rcu_read_unlock();
}

void htbx_queue_init(struct htbx_queue *t, struct Qdisc *sch)
{
	qdisc_watchdog_init(&t->watchdog, sch);
	INIT_WORK(&t->work, htbx_work_func);
	/* direct_queue: qdisc_priv() is zeroed, an empty qdisc_skb_head */
	htbx_core_init(&t->core);
	t->sch = sch;
}

/**
 * htbx_setup_early - the part of a qdisc's state its destroy undoes
 * @sch: the qdisc
 *
 * A front's init calls it first: the qdisc's destroy runs after a failed
 * init too.
 */
void htbx_setup_early(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);

	xa_init_flags(&q->classes, XA_FLAGS_ACCOUNT);
	htbx_queue_init(&q->queue, sch);
	q->queue.root = sch;
	INIT_DELAYED_WORK(&q->leaf_sync, htbx_leaf_sync_work);
}

/**
 * htbx_setup - a qdisc without classes, with htb's defaults
 * @sch: the qdisc, after htbx_setup_early()
 * @mq: one scheduler per TX queue (mq mode)
 * @extack: why it failed
 *
 * A front's init calls it once the request is validated, then
 * htbx_qdisc_set() with the options given.
 *
 * Return: 0, or a negative errno with @extack set.
 */
int htbx_setup(struct Qdisc *sch, bool mq, struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	int err;

	err = qdisc_class_hash_init(&q->clhash);
	if (err < 0)
		return err;
	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	if (mq) {
		err = htbx_mq_init(sch, extack);
		if (err)
			return err;
	}
	q->r2q = HTBX_DEFAULT_R2Q;
	/* as htb: even a txqueuelen of 0 (then unclassified packets drop) */
	q->direct_qlen = qdisc_dev(sch)->tx_queue_len;
	return 0;
}

static int htbx_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_HTBX_MAX + 1];
	int err;

	htbx_setup_early(sch);
	/*
	 * As htb: a program that knows no htbx (a netlink library given an
	 * unknown kind) sends no options, and a qdisc made anyway would drop
	 * its default class without a word. tc always sends them.
	 */
	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "no htbx qdisc options: send TCA_OPTIONS, empty for the defaults");
		return -EINVAL;
	}
	err = htbx_parse(opt, tb, htbx_qdisc_policy, extack);
	if (err < 0)
		return err;
	err = htbx_setup(sch, tb[TCA_HTBX_MQ], extack);
	if (err)
		return err;
	return htbx_qdisc_opts(sch, tb, extack);
}

/* The device uses @n TX queues from now on (ethtool -L). */
static void htbx_change_real_num_tx(struct Qdisc *sch, unsigned int n)
{
	struct htbx_sched *q = qdisc_priv(sch);

	if (q->mq)
		htbx_mq_change_real_num_tx(sch, n);
}

/*
 * The qdisc becomes the device's root. Without mq it is every TX queue's
 * qdisc, as qdisc_graft() makes a qdisc without .attach (and as htb's
 * attach does); with mq each queue gets its own qdisc.
 */
static void htbx_attach(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *old, *s;
	unsigned int i;

	for (i = 0; i < dev->num_tx_queues; i++) {
		s = q->mq ? q->queue_qdiscs[i] : sch;
		old = dev_graft_qdisc(netdev_get_tx_queue(dev, i), s);
		if (!q->mq)
			qdisc_refcount_inc(sch);
		if (old)
			qdisc_put(old);
	}
	q->attached = true;
}

static void htbx_destroy(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct hlist_node *next;
	struct htbx_class *cl;
	unsigned int i;

	cancel_work_sync(&q->queue.work);
	qdisc_watchdog_cancel(&q->queue.watchdog);
	htbx_mq_destroy(sch);
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
	xa_destroy(&q->classes);
	__qdisc_reset_queue(&q->queue.direct_queue);
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
	.attach		=	htbx_attach,
	HTBX_OPS_CHANGE_REAL_NUM_TX(htbx_change_real_num_tx)
	.dump		=	htbx_dump,
	.owner		=	THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("htbx");

/*
 * Kind htb in sch_htb's place: the same scheduler, sch_htb's netlink
 * interface (htbx_htb.c). No qdisc change, as sch_htb has none; no mq
 * mode, which sch_htb's interface cannot ask for. No module alias: the
 * kernel's sch_htb answers to the kind's name unless the operator says
 * otherwise (the parameter below).
 */
static const struct Qdisc_class_ops htbx_htb_class_ops = {
	.graft		=	htbx_graft,
	.leaf		=	htbx_leaf,
	.qlen_notify	=	htbx_qlen_notify,
	.find		=	htbx_search,
	.change		=	htbx_htb_change_class,
	.delete		=	htbx_class_delete_op(htbx_delete),
	.walk		=	htbx_walk,
	.tcf_block	=	htbx_tcf_block,
	.bind_tcf	=	htbx_bind_filter,
	.unbind_tcf	=	htbx_unbind_filter,
	.dump		=	htbx_htb_dump_class,
	.dump_stats	=	htbx_htb_dump_class_stats,
};

static struct Qdisc_ops htbx_htb_qdisc_ops __read_mostly = {
	.cl_ops		=	&htbx_htb_class_ops,
	.id		=	"htb",
	.priv_size	=	sizeof(struct htbx_sched),
	.enqueue	=	htbx_enqueue,
	.dequeue	=	htbx_dequeue,
	.peek		=	qdisc_peek_dequeued,
	.init		=	htbx_htb_init,
	.reset		=	htbx_reset,
	.destroy	=	htbx_destroy,
	.attach		=	htbx_attach,
	.dump		=	htbx_htb_dump,
	.owner		=	THIS_MODULE,
};

/*
 * Parameter "htb": serve kind htb as well (1) or not (0), at load or
 * later through /sys/module/sch_htbx/parameters/htb. The kind is one
 * module's at a time: where the kernel's sch_htb holds it (loaded, or
 * built in), serving it is refused and nothing is registered. Turned
 * off, the htb qdiscs made meanwhile stay as they are (the module stays
 * loaded while they exist); new ones are sch_htb's again.
 */
static DEFINE_MUTEX(htbx_htb_mutex);
/* the parameter; while htbx_loaded, the kind is registered exactly then */
static bool htbx_htb_on;
static bool htbx_loaded;	/* module init done: the parameter acts */

/*
 * -EBUSY where the kind is taken: modprobe takes -EEXIST from a module's
 * init for "already loaded" and would report success.
 */
static int htbx_htb_register(void)
{
	int err = register_qdisc(&htbx_htb_qdisc_ops);

	if (err == -EEXIST) {
		pr_err("kind htb is the kernel's sch_htb's (loaded or built in): rmmod sch_htb first\n");
		return -EBUSY;
	}
	if (err)
		pr_err("kind htb not registered: %d\n", err);
	return err;
}

static int htbx_htb_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;
	mutex_lock(&htbx_htb_mutex);
	if (htbx_loaded && on && !htbx_htb_on)
		err = htbx_htb_register();
	else if (htbx_loaded && !on && htbx_htb_on)
		unregister_qdisc(&htbx_htb_qdisc_ops);
	if (!err)
		htbx_htb_on = on;
	mutex_unlock(&htbx_htb_mutex);
	return err;
}

static const struct kernel_param_ops htbx_htb_param_ops = {
	.set	= htbx_htb_param_set,
	.get	= param_get_bool,
};
module_param_cb(htb, &htbx_htb_param_ops, &htbx_htb_on, 0644);
MODULE_PARM_DESC(htb, "serve tc's kind htb too, with sch_htb's netlink interface (0/1)");

static int __init htbx_module_init(void)
{
	int err;

	err = register_qdisc(&htbx_qdisc_ops);
	if (err)
		return err;
	mutex_lock(&htbx_htb_mutex);
	if (htbx_htb_on) {
		err = htbx_htb_register();
		if (err) {
			mutex_unlock(&htbx_htb_mutex);
			unregister_qdisc(&htbx_qdisc_ops);
			return err;
		}
	}
	htbx_loaded = true;
	mutex_unlock(&htbx_htb_mutex);
	return 0;
}

static void __exit htbx_module_exit(void)
{
	/* the parameter's file outlives this: from here on it acts no more */
	mutex_lock(&htbx_htb_mutex);
	if (htbx_htb_on)
		unregister_qdisc(&htbx_htb_qdisc_ops);
	htbx_loaded = false;
	mutex_unlock(&htbx_htb_mutex);
	unregister_qdisc(&htbx_qdisc_ops);
}

module_init(htbx_module_init);
module_exit(htbx_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Hierarchical Token Bucket with a nanosecond clock (htbx)");
MODULE_VERSION(HTBX_MODULE_VERSION);
/* what this kernel lacks that htbx would use (compat.h), for modinfo */
MODULE_INFO(compat, HTBX_COMPAT_MISSING);
