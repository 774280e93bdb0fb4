/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The structures of the qdisc glue (sch_htbx_main.c) that the mq layer
 * (htbx_mq.c) and the core's kernel hooks (include/htbx_hooks.h) use too:
 * a class, its node on each queue, a queue and the qdisc (the nouns:
 * htbx_core.h).
 */
#ifndef _SCH_HTBX_H
#define _SCH_HTBX_H

#include <linux/types.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/sch_generic.h>
#include <net/gen_stats.h>
#include <net/netlink.h>

#include "htbx_core.h"
#include "htbx_share.h"

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
	/* htb's front: burst and cburst as given, in psched ticks */
	u32	htb_buffer;
	u32	htb_cbuffer;
};


struct htbx_queue;

/*
 * A node: a class on one TX queue, with the core's node of it, the leaf
 * queue and what was sent from it. A class has one; in mq mode one per
 * queue (node, then mq_nodes).
 */
struct htbx_node {
	/*
	 * What the class sent, one count per mode: bstats in single-queue
	 * mode (unused in mq mode); in mq mode cpu_bstats, the class's
	 * per-CPU count (a node does not know its class, so each holds a
	 * copy of cl->cpu_bstats). bstats, leaf and queue are read or written
	 * for every packet at every level, as are the first 160 bytes of
	 * core: together the node's first three cache lines.
	 */
	struct gnet_stats_basic_sync bstats;
	struct Qdisc		*leaf;		/* NULL for inner classes */
	struct htbx_queue	*queue;		/* mq: the node's queue */
	struct htbx_core_node	core;		/* owned by the core */
	struct htbx_bstats_cpu __percpu *cpu_bstats;
	u32			drops;		/* enqueue drops */
	/* mq: what of the leaf's counts the queue's qdisc holds */
	u32			qlen_seen;
	u32			backlog_seen;
} ____cacheline_aligned;

struct htbx_class {
	struct Qdisc_class_common common;
	struct htbx_node	node;		/* on the qdisc's queue, or queue 0 */
	struct htbx_class	*parent;
	struct htbx_params	params;		/* as configured */

	struct tcf_proto __rcu	*filter_list;	/* filters at this class */
	struct tcf_block	*block;
#ifdef HTBX_COMPAT_CLASS_FILTER_CNT
	unsigned int		filter_cnt;	/* see qdisc_class_in_use() */
#endif
	struct net_rate_estimator __rcu *rate_est;

	/* mq mode */
	struct htbx_bstats_cpu __percpu *cpu_bstats;	/* what its nodes sent */
	/*
	 * on queues 1 .. nq - 1, each node its own allocation: a node is
	 * linked into its queue's tree, so when the device uses more queues
	 * the array grows (htbx_mq_change_real_num_tx) and the nodes stay
	 */
	struct htbx_node	**mq_nodes;
	struct htbx_bucket	*bucket;	/* shared by its nodes */
	struct nlattr		*leaf_opt;	/* the options its copies have */
};

/*
 * A queue: a TX queue of the device and what schedules it, the core's
 * queue, its timer and the direct queue. The qdisc has one; in mq mode
 * each TX queue has its own, as the private data of the queue's qdisc
 * (htbx_queue_ops), and the htbx qdisc itself only holds the classes,
 * filters and configuration.
 */
struct htbx_queue {
	struct htbx_core_queue	core;
	struct qdisc_watchdog	watchdog;
	struct work_struct	work;		/* event budget ran out */
	struct qdisc_skb_head	direct_queue;	/* unclassified traffic */
	u64			direct_pkts;
	struct Qdisc		*sch;		/* whose qlen counts its packets */
	struct Qdisc		*root;		/* the htbx qdisc (NULL: gone) */
	unsigned int		idx;		/* its node of every class */
};

struct htbx_sched {
	/*
	 * The classes: the hash, changed under the tree lock, for walks and
	 * dumps and the single-queue data path's lookups (htbx_find); in mq
	 * mode also by minor id, for the lookups on every queue, which no one
	 * lock covers: the xarray is read under RCU.
	 */
	struct Qdisc_class_hash	clhash;
	struct xarray		classes;
	struct htbx_queue	queue;		/* not in mq mode */

	struct tcf_proto __rcu	*filter_list;	/* filters at the qdisc */
	struct tcf_block	*block;

	u32			defcls;		/* minor id of the default class */
	struct htbx_class	*defcl;		/* the class it names, if any */
	u32			r2q;
	u32			direct_qlen;	/* limit of direct_queue */

	/* mq mode: one qdisc per TX queue, grafted by htbx_attach() */
	bool			mq;
	/*
	 * nodes per class: the most TX queues the device has used since
	 * the qdisc was made (real_num_tx_queues); a queue above it drops
	 */
	unsigned int		nq;
	struct Qdisc		**queue_qdiscs;	/* [num_tx_queues], htbx_queue_ops */
	bool			attached;	/* the TX queues hold them */
	struct delayed_work	leaf_sync;	/* htbx_leaf_sync_work() */
};

static inline struct htbx_node *htbx_node_of(const struct htbx_core_node *c)
{
	return container_of(c, struct htbx_node, core);
}

/*
 * Class @cl on queue @i (0 without mq). The array of a class's nodes is
 * replaced by a larger one (htbx_mq_change_real_num_tx) while the queues
 * below its old size send: each queue reads one array or the other, with
 * the same node for it in both.
 */
static inline struct htbx_node *htbx_node_at(struct htbx_class *cl,
					     unsigned int i)
{
	return i ? READ_ONCE(cl->mq_nodes)[i - 1] : &cl->node;
}

/* Queue @i (0 without mq). */
static inline struct htbx_queue *htbx_queue_at(struct htbx_sched *q,
					       unsigned int i)
{
	return q->mq ? qdisc_priv(q->queue_qdiscs[i]) : &q->queue;
}

/* Levels from @cl up to the top of the tree (0 for none). */
static inline int htbx_depth(const struct htbx_class *cl)
{
	int depth = 0;

	for (; cl; cl = cl->parent)
		depth++;
	return depth;
}

static inline bool htbx_is_leaf(const struct htbx_class *cl)
{
	return !cl->node.core.children;
}

/*
 * Is @cl a leaf on queue @i, as the queue's data path sees it? A class
 * turns inner (or a leaf again) on one queue at a time, each under its
 * queue's lock.
 */
static inline bool htbx_is_leaf_on(struct htbx_class *cl, unsigned int i)
{
	return !htbx_node_at(cl, i)->core.children;
}

/* Nodes per class. */
static inline unsigned int htbx_nq(const struct htbx_sched *q)
{
	return q->mq ? q->nq : 1;
}

/* Where node @i's leaf queue lives. */
static inline struct netdev_queue *htbx_leaf_queue(struct Qdisc *sch,
						   unsigned int i)
{
	struct htbx_sched *q = qdisc_priv(sch);

	return q->mq ? netdev_get_tx_queue(qdisc_dev(sch), i) : sch->dev_queue;
}

/*
 * The glue's side of the interface with the mq layer (htbx_mq.h has the
 * other): what a queue's qdisc runs, and what a class's node holds.
 *
 *   htbx_queue_init(t, sch)		a queue, empty, for sch
 *   htbx_queue_enqueue(skb, sch, t, to_free)  classify on t->root, enqueue
 *					on t: a queue's qdisc's enqueue
 *   htbx_queue_dequeue(sch, t)		t's next packet: its dequeue
 *   htbx_queue_reset(t)		every class's node on t at rest, its
 *					packets dropped: its reset
 *   htbx_purge_node(q, cl, i)		drop what node i of cl holds, out of
 *					its queue's rings (under its queue's
 *					lock: htbx_lock_queue)
 *   htbx_new_leaf(sch, i, classid, extack)  a default pfifo leaf for node
 *					i (under RTNL, no lock)
 *
 * Each runs under the lock of t's (node i's) queue.
 */
void htbx_queue_init(struct htbx_queue *t, struct Qdisc *sch);
int htbx_queue_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct htbx_queue *t, struct sk_buff **to_free);
struct sk_buff *htbx_queue_dequeue(struct Qdisc *sch, struct htbx_queue *t);
void htbx_queue_reset(struct htbx_queue *t);
void htbx_purge_node(struct htbx_sched *q, struct htbx_class *cl,
		     unsigned int i);
struct Qdisc *htbx_new_leaf(struct Qdisc *sch, unsigned int i, u32 classid,
			    struct netlink_ext_ack *extack);

/*
 * The glue's side of the interface with a front, the netlink interface of
 * a qdisc kind: htbx's own (sch_htbx_main.c) and sch_htb's (htbx_htb.c,
 * kind htb). A front parses a request into the calls below and dumps
 * what the qdisc and its classes hold in its own attributes; everything
 * else is the glue's, and so are the ops tables at the bottom of
 * sch_htbx_main.c. Under RTNL.
 *
 *   htbx_setup_early(sch)		a front's init, first
 *   htbx_setup(sch, mq, extack)	then, the request validated
 *   htbx_qdisc_set(sch, defcls, r2q, direct_qlen, extack)
 *					the qdisc's options (NULL: kept;
 *					htbx_nla_u32_or_null() gives them)
 *   htbx_class_set(sch, classid, parentid, arg, params, rate_est,
 *		    extack)		a class made (*arg NULL) or changed;
 *					values beyond htbx's range held to it
 *   htbx_dump_class_ids(cl, tcm)	a class dump's header
 *   htbx_class_stats(sch, cl, d, xs)	a class's statistics but its xstats,
 *					which the front puts in its form
 */
/* The u32 of attribute @a, or NULL where it is absent: htbx_qdisc_set()'s. */
static inline const u32 *htbx_nla_u32_or_null(const struct nlattr *a)
{
	return a ? nla_data(a) : NULL;
}

void htbx_setup_early(struct Qdisc *sch);
int htbx_setup(struct Qdisc *sch, bool mq, struct netlink_ext_ack *extack);
void htbx_qdisc_set(struct Qdisc *sch, const u32 *defcls, const u32 *r2q,
		    const u32 *direct_qlen, struct netlink_ext_ack *extack);
int htbx_class_set(struct Qdisc *sch, u32 classid, u32 parentid,
		   unsigned long *arg, const struct htbx_params *params,
		   struct nlattr *rate_est, struct netlink_ext_ack *extack);
void htbx_dump_class_ids(const struct htbx_class *cl, struct tcmsg *tcm);
struct tc_htbx_xstats;
struct gnet_dump;
int htbx_class_stats(struct Qdisc *sch, struct htbx_class *cl,
		     struct gnet_dump *d, struct tc_htbx_xstats *xs);

#endif /* _SCH_HTBX_H */
