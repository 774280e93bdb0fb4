/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's hooks of the scheduling core, the calls htbx_core.c makes
 * per packet (contract in htbx_core.h). Static inline, so that they
 * inline into the core, which is its own object: included by htbx_core.c
 * alone, found through Kbuild's -I of include/. The unit harness has its
 * own htbx_hooks.h in tests/unit, which its -I finds instead; no file of
 * this name may sit next to htbx_core.c, where a quoted include would
 * look first.
 */
#ifndef _HTBX_HOOKS_H
#define _HTBX_HOOKS_H

#include <linux/skbuff.h>
#include <net/sch_generic.h>

#include "htbx_mq.h"

/*
 * May re-enter the core: a leaf that drops inside its ->dequeue (codel,
 * fq_codel, netem with a refusing child) reports it with
 * qdisc_tree_reduce_backlog(), which reaches htbx_qlen_notify() and
 * deactivates this class while the core is dequeueing from it. In mq
 * mode that report reaches the htbx qdisc, which cannot tell the queue:
 * htbx_mq_leaf_dequeue() sees the drop from the leaf's counts instead.
 */
static inline void *htbx_leaf_dequeue(struct htbx_core_node *c)
{
	struct htbx_node *p = htbx_node_of(c);
	struct Qdisc *leaf = p->leaf;
	struct sk_buff *skb;

	if (unlikely(!leaf))
		return NULL;
	if (unlikely(p->queue))
		return htbx_mq_leaf_dequeue(p);
	skb = qdisc_dequeue_peeked(leaf);
	if (unlikely(!skb) && leaf->q.qlen)
		qdisc_warn_nonwc("htbx", leaf);
	return skb;
}

static inline u32 htbx_leaf_qlen(const struct htbx_core_node *c)
{
	const struct htbx_node *p = htbx_node_of(c);

	return p->leaf ? p->leaf->q.qlen : 0;
}

static inline u32 htbx_pkt_len(const void *pkt)
{
	return qdisc_pkt_len((const struct sk_buff *)pkt);
}

static inline u32 htbx_pkt_segs(const void *pkt)
{
	const struct sk_buff *skb = pkt;

	return skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
}

static inline void htbx_node_sent(struct htbx_core_node *c, u32 len, u32 segs)
{
	struct htbx_node *p = htbx_node_of(c);

	/*
	 * mq (a node with shared buckets): the class's per-CPU count.
	 * c->bucket, not p->cpu_bstats: the charge has just read it (deep8
	 * lost 0.7 % of its pps to the other load)
	 */
	if (unlikely(c->bucket))
		htbx_bstats_cpu_update(p->cpu_bstats, len, segs);
	else
		_bstats_update(&p->bstats, len, segs);
}

#endif /* _HTBX_HOOKS_H */
