/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sharing of one class tree across TX queues, the core's side of mq
 * mode: shared buckets, published prios and quantum across queues
 * (design/multiqueue.md). htbx_core.c calls it where a node of a class
 * whose tokens are shared (cl->bucket set) acts; a single-queue class
 * never gets here, and the core tests cl->bucket first, inline.
 *
 * In mq mode each TX queue has its own htbx_core_queue, under its own
 * lock; a class has a node in each, all pointing at one htbx_bucket. Only
 * the bucket words are shared between queues, and only through atomics.
 * An inner class's node publishes the prios its children borrow at; a
 * queue lends the class's excess at prio p only while no other queue
 * asks at a lower prio, or while the class has more than half its burst
 * unspent (the lower prio is not taking it), and polls otherwise
 * (design/multiqueue.md, "Published prios"). The same half-burst rule
 * keeps the queues of one class fair: a queue whose node sent more than
 * its share of the class's bytes (rate_sent / nactive) waits while the
 * class is short of tokens; and it shares a parent's excess by quantum
 * across queues: a child that borrowed more than its quantum's share of
 * what the parent lent at that prio on all queues (borrow_sent,
 * borrow_quanta) waits while the lender is short ("Quantum across
 * queues").
 *
 * The interface. All calls are made under the lock of the queue whose
 * node cl is (the queue's qdisc lock in the kernel); nothing else of a
 * node is touched by another queue, and the buckets only through atomics.
 * In mq mode every node of a queue's tree has a bucket, none otherwise,
 * so that the core tests one node for a whole path.
 *
 * Called by the core (htbx_core.c), only for a node with cl->bucket set:
 *   htbx_share_sync(cl, now)	the node's tokens and t_c as the buckets
 *				have them at now (before its mode is
 *				judged: the other queues may have spent)
 *   htbx_share_publish(cl)	the bucket's counts follow the node's
 *				prio_activity (nactive for a leaf, demand
 *				for an inner class); after every change of
 *				it
 *   htbx_share_feed(cl, mask, in)  the node joins (in) or leaves its
 *				parent's feeds at the prios of mask: the
 *				parent's borrow_quanta counts the class's
 *				quantum while any of its nodes is in
 *   htbx_share_rest(cl)	the node, at rest (prio_activity 0), is
 *				counted nowhere
 *   htbx_share_mode(cl, new)	the node's mode becomes new (cl->cmode is
 *				still the old one): true when the class
 *				enters CANT_SEND, its first node to
 *   htbx_share_change(cl, quantum, now)  before a new configuration: sync,
 *				and the quantum the parent counts; called on
 *				each queue in turn (a class change), the
 *				first call changes the quantum
 *   htbx_share_hold(cl, now)	after it: the buckets hold no more than
 *				the node's tokens
 *   htbx_share_charge(c, level, prio, len, wire, now)  the charge of one
 *				packet to node c, sent from row level at
 *				prio: rate (at and above level) and ceil
 *				buckets, the virtual times; c's tokens as
 *				the buckets have them after it
 *   htbx_share_toks(cl, now, &toks, &ctoks)  the node's tokens at now,
 *				nothing written (htbx_core_mode)
 *   htbx_share_yield(path, depth, prio, now, &at)  -1: this queue may send
 *				through path; i: path[i] lets the other
 *				queues go first, and *at is when to look
 *				again; a row member more than half full
 *				ends this queue's leads on path
 *
 * Called by the glue (sch_htbx_main.c; tests/unit for the harness), under
 * no queue's lock, when it gives the nodes of a new class a bucket
 * (cl->bucket = b on each, after htbx_node_setup, before any is linked),
 * or before the nodes of a class whose last child goes become leaves
 * again (the quantum is the one the class has):
 *   htbx_bucket_fill(b, cl, now)	full buckets for cl's configuration
 */
#ifndef _HTBX_SHARE_H
#define _HTBX_SHARE_H

#include "htbx_core.h"

/*
 * mq mode: a class's two token buckets, shared by its nodes on every TX
 * queue (one htbx_core_queue each). Each is kept as its "empty time" v:
 * the tokens at now are min(buffer, now - v); a charge of c ns is
 * v = max(v, now - buffer) + c, one cmpxchg on one word. v only grows
 * between charges, so a mode computed from it is never too optimistic
 * for long: a node re-reads it before it sends (htbx_share_sync).
 */
struct htbx_bucket {
	atomic64_t		rate;	/* ns, s64 */
	atomic64_t		ceil;
	/*
	 * Fairness among the queues of one leaf class: how many of its
	 * nodes are active (nactive), and the bytes it sent on its own rate
	 * on all queues (rate_sent, the class's virtual time; a node's
	 * rate_vtime runs nactive times faster while it sends, so a node
	 * ahead of the others is ahead of this), and the sum of the active
	 * nodes' rate_vtime (rate_vtime_sum, modulo 2^64: each node adds
	 * what it moves its own by while it is active, so the sum is exact
	 * whatever the queues race; rate_vtime_sum / nactive is where their
	 * middle is). rate_sent and the sum are written by every packet:
	 * they sit beside rate and ceil, on the line the charge writes.
	 */
	atomic_t		nactive;
	atomic64_t		rate_sent;
	atomic64_t		rate_vtime_sum;
	/*
	 * Inner class: for each prio, how many queues have children
	 * borrowing from it at that prio (its node's prio_activity, as
	 * published). Changed when a node's activity changes, never per
	 * packet; zero when the bucket is made (kzalloc), kept by
	 * htbx_bucket_fill.
	 */
	atomic_t		demand[HTBX_CORE_NUMPRIO];
	/*
	 * How many of the class's nodes are in CANT_SEND: the class enters
	 * it (an overlimit, counted once, as htb counts a class's) when the
	 * first of them does.
	 */
	atomic_t		cant_send;
	/*
	 * Quantum across queues: the parent's excess is shared by its
	 * children's quanta, whatever queues they borrow on. For each prio:
	 * how many of this class's nodes sit in their parent's feed, and the
	 * quantum the parent counts for the class while any does, in one
	 * word (infeed: htbx_infeed_nodes, htbx_infeed_quantum), so that a
	 * node joining a feed and a change of the class's quantum ("quantum",
	 * made on one queue while the others run) agree on what was counted;
	 * and for an inner class the quanta of its children that have a node
	 * in one of its feeds (borrow_quanta) and the bytes they borrowed
	 * through it on all queues (borrow_sent: the feed's virtual time, as
	 * rate_sent is the class's own).
	 */
	u32			quantum;
	atomic64_t		infeed[HTBX_CORE_NUMPRIO];
	atomic64_t		borrow_quanta[HTBX_CORE_NUMPRIO];
	atomic64_t		borrow_sent[HTBX_CORE_NUMPRIO];
	/*
	 * the class's own virtual time in its parent's feeds (all queues),
	 * ahead of the parent's borrow_sent when it borrowed more than its
	 * quantum's share (htbx_borrow_advance)
	 */
	atomic64_t		borrow_vtime[HTBX_CORE_NUMPRIO];
};

void htbx_share_sync(struct htbx_core_node *cl, u64 now);
void htbx_share_publish(struct htbx_core_node *cl);
void htbx_share_feed(struct htbx_core_node *cl, unsigned long mask, bool in);
void htbx_share_rest(struct htbx_core_node *cl);
bool htbx_share_mode(struct htbx_core_node *cl, int new);
void htbx_share_change(struct htbx_core_node *cl, u32 quantum, u64 now);
void htbx_share_hold(struct htbx_core_node *cl, u64 now);
void htbx_share_charge(struct htbx_core_node *c, int level, int prio, u32 len,
		       u64 wire, u64 now);
void htbx_share_toks(const struct htbx_core_node *cl, u64 now, s64 *toks,
		     s64 *ctoks);
int htbx_share_yield(struct htbx_core_node **path, int depth, int prio, u64 now,
		     u64 *at);

void htbx_bucket_fill(struct htbx_bucket *b, const struct htbx_core_node *cl,
		      u64 now);

/* A bucket's infeed word: nodes in the parent's feed, the quantum counted. */
static inline u32 htbx_infeed_nodes(s64 word)
{
	return (u32)word;
}

static inline u32 htbx_infeed_quantum(s64 word)
{
	return (u32)((u64)word >> 32);
}

static inline s64 htbx_infeed_word(u32 nodes, u32 quantum)
{
	return (s64)((u64)quantum << 32 | nodes);
}

/* How many nodes of the class of bucket @b are in its parent's feed at @prio. */
static inline u32 htbx_bucket_infeed(const struct htbx_bucket *b, int prio)
{
	return htbx_infeed_nodes(atomic64_read(&b->infeed[prio]));
}

#endif /* _HTBX_SHARE_H */
