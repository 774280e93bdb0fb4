/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel side of mq mode: one class tree over every TX queue, each
 * queue with a qdisc of its own (the queue's qdisc, htbx_queue_ops) that
 * schedules the queue's node of every class. What the nodes of a class share
 * between the queues' cores is htbx_share.c's; this layer holds the
 * qdiscs, the copies of a class's leaf on every queue and their sync, the
 * nodes on queues the device starts to use and the dumps that sum the queues
 * (design/multiqueue.md).
 *
 * The interface, all called by the glue (sch_htbx_main.c) for a qdisc in
 * mq mode (q->mq), except where noted:
 *
 * Setup and teardown, under RTNL:
 *   htbx_mq_init(sch, extack)		a queue's qdisc for every TX queue
 *					of the device (htbx_init, mq given);
 *					classes get nodes on those it uses
 *   htbx_mq_destroy(sch)		any qdisc (mq or not): the leaf sync
 *					stops; queues' qdiscs not attached
 *					yet are put, attached ones forget
 *					the qdisc
 *
 * The data path, under the queue's lock:
 *   htbx_mq_enqueue(skb, sch, t, p, to_free)  enqueue on node p of queue
 *					t, the queue's qdisc following the
 *					leaf; the leaf's verdict
 *   htbx_mq_leaf_dequeue(p)		htbx_leaf_dequeue() of a node on a
 *					queue (include/htbx_hooks.h)
 *   htbx_mq_follow(p)			the queue's qdisc takes in what p's
 *					leaf holds now (htbx_purge_node too)
 *
 * Configuration, under RTNL; the glue changes a queue's nodes under that
 * queue's lock only, one queue at a time (htbx_lock_queue):
 *   htbx_mq_leaf_ok(leaf, extack)	may leaf be copied to every queue
 *   htbx_leaf_opts(leaf, skb)		leaf's options, as its dump has them
 *   htbx_clone_leaf(sch, leaf0, opt, i, classid, extack)  a copy of leaf0
 *					with options opt for node i
 *   htbx_leaf_put(leaf)		put any leaf, a copy's ops with it
 *					(also without mq)
 *   htbx_leaf_sync_work(work)		the look for a changed leaf, every
 *					HTBX_LEAF_SYNC_MS while a class has
 *					one to follow (q->leaf_sync)
 *
 * Nodes, under RTNL:
 *   htbx_mq_nodes_new(old, from, n)	a class's nodes above queue 0, for n
 *					queues (those of old kept)
 *   htbx_mq_nodes_put(nodes, from, n)	free those of queues from .. n - 1,
 *					their leaves with them, and the array
 *   htbx_mq_change_real_num_tx(sch, n)	the device uses n TX queues: a
 *					node of every class on each new one
 *
 * Dumps, under RTNL; each takes one queue's lock at a time:
 *   htbx_mq_sum(sch, &direct_pkts, &budget_hits)  the qdisc's counters,
 *					its queues' sums
 *   htbx_mq_class_stats(sch, cl, qs, xs, qlen)  add cl's counts on every
 *					queue
 */
#ifndef _HTBX_MQ_H
#define _HTBX_MQ_H

#include "sch_htbx.h"

/* mq: how often a change of a leaf is looked for (htbx_leaf_sync). */
#define HTBX_LEAF_SYNC_MS	500

int htbx_mq_init(struct Qdisc *sch, struct netlink_ext_ack *extack);
void htbx_mq_destroy(struct Qdisc *sch);

int htbx_mq_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		    struct htbx_queue *t, struct htbx_node *p,
		    struct sk_buff **to_free);
void *htbx_mq_leaf_dequeue(struct htbx_node *p);
void htbx_mq_follow(struct htbx_node *p);

bool htbx_mq_leaf_ok(const struct Qdisc *leaf, struct netlink_ext_ack *extack);
struct nlattr *htbx_leaf_opts(struct Qdisc *leaf, struct sk_buff *skb);
struct Qdisc *htbx_clone_leaf(struct Qdisc *sch, const struct Qdisc *leaf0,
			      struct nlattr *opt, unsigned int i, u32 classid,
			      struct netlink_ext_ack *extack);
void htbx_leaf_put(struct Qdisc *leaf);
void htbx_leaf_sync_work(struct work_struct *work);

struct htbx_node **htbx_mq_nodes_new(struct htbx_node **old,
				     unsigned int from, unsigned int n);
void htbx_mq_nodes_put(struct htbx_node **nodes, unsigned int from,
		       unsigned int n);
void htbx_mq_change_real_num_tx(struct Qdisc *sch, unsigned int n);

void htbx_mq_sum(struct Qdisc *sch, u64 *direct_pkts, u64 *budget_hits);
void htbx_mq_class_stats(struct Qdisc *sch, struct htbx_class *cl,
			 struct gnet_stats_queue *qs,
			 struct tc_htbx_xstats *xs, __u32 *qlen);

#endif /* _HTBX_MQ_H */
