/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduling core of htbx: token math, class tree, event queue and DRR,
 * with no kernel glue. htbx_core.c is compiled into sch_htbx.ko and, as it
 * is, into the userspace harness of tests/unit, which drives it with a
 * virtual clock and fake leaf queues.
 *
 * Nothing in the core sleeps, allocates, or reads a clock: every entry point
 * takes the current time "now" in nanoseconds from the caller. All entry
 * points run under the qdisc tree lock (or single-threaded in the harness).
 *
 * Glossary: one noun per concept, in code, comments and design notes.
 *   class	a class of the tree, what tc names by classid (htbx_class)
 *   node	a class on one queue: one per class, in mq mode one per TX
 *		queue (glue: htbx_node, holding the core's htbx_core_node)
 *   queue	a TX queue and what schedules it (glue: htbx_queue, holding
 *		the core's htbx_core_queue); in mq mode each is the private
 *		data of a qdisc of its own, the queue's qdisc
 *   bucket	a class's rate and ceil tokens, shared by its nodes across
 *		queues in mq mode (htbx_bucket, htbx_share.h)
 *   leaf	a leaf class's qdisc; a copy: its twin on queues 1 .. N-1
 *   front	the netlink interface of a kind: htbx's (sch_htbx_main.c),
 *		sch_htb's (htbx_htb.c, kind htb in htb's place)
 * (htbx_pq_node and ring_node are links of the event queue and the rings.)
 */
#ifndef _HTBX_CORE_H
#define _HTBX_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/bug.h>
#include <linux/atomic.h>
#include <uapi/linux/pkt_sched_htbx.h>
#else
#include "kshim.h"	/* tests/unit: userspace stand-ins for the above */
#include <linux/pkt_sched_htbx.h>
#endif
#include "psched_clock.h"

#define HTBX_CORE_MAXDEPTH	8	/* == HTBX_MAXDEPTH of the UAPI */
#define HTBX_CORE_NUMPRIO	8	/* == HTBX_NUMPRIO */
#define HTBX_EVENT_BUDGET	64	/* events handled per dequeue call */

/*
 * Debt beyond what the current packet causes is cut at HTBX_MBUFFER (an
 * ancestor above the lending level can be charged while in debt, as in
 * HTB). Token values stay within +-HTBX_TOKENS_MAX and idle time is
 * credited up to HTBX_TOKENS_MAX, so no sum of two of them overflows.
 */
#define HTBX_MBUFFER		(60LL * (s64)HTBX_NSEC_PER_SEC)
#define HTBX_TOKENS_MAX		(1LL << 62)

/* A validated class configuration, in core units. */
struct htbx_cfg {
	u64	rate;		/* bytes/s, 1 .. HTBX_MAX_RATE */
	u64	ceil;		/* bytes/s, >= rate */
	u32	burst;		/* bytes */
	u32	cburst;		/* bytes */
	u32	quantum;	/* bytes, > 0 (caller derives rate/r2q) */
	u32	prio;		/* 0 .. 7 */
	u32	mtu;		/* segments above this are giants */
	struct htbx_lenspec len; /* mpu, overhead, linklayer */
};

struct htbx_core_node;

/* mq mode: a class's buckets, shared by its nodes (htbx_share.h) */
struct htbx_bucket;

/* One DRR ring: the active members of a row or a feed for one prio. */
struct htbx_ring {
	struct list_head	head;	/* first entry is served next */
	u32			n;	/* members */
	u32			turns;	/* rotations since the owner's last */
	struct htbx_core_node	*resume; /* left while it had the turn */
};

/* Event queue node (intrusive pairing heap, ordered by key). */
struct htbx_pq_node {
	struct htbx_pq_node	*child;
	struct htbx_pq_node	*next;	/* sibling */
	struct htbx_pq_node	*prev;	/* parent if first child, else sibling */
	u64			key;	/* ns when the class may change mode */
};

/* A node: a class on one queue, as the core schedules it. */
struct htbx_core_node {
	/*
	 * Ordered by use. The first 160 bytes are what the charge reads and
	 * writes for every packet at every level (with the glue's 32 bytes
	 * in front of them, three cache lines: sch_htbx.h, struct
	 * htbx_node); the leaf's DRR and activity state follows. The
	 * fields marked mq are htbx_share.c's: the core only zeroes them.
	 */
	struct htbx_cfg		cfg;
	s64			buffer;		/* ns, cfg.burst at cfg.rate */
	s64			cbuffer;	/* ns, cfg.cburst at cfg.ceil */
	u64			rate_recip;	/* htbx_rate_recip(cfg.rate) */
	u64			ceil_recip;	/* htbx_rate_recip(cfg.ceil) */
	/* mq mode: the buckets every queue's node of this class charges */
	struct htbx_bucket	*bucket;	/* NULL: tokens are its own */
	struct htbx_core_node	*parent;
	int			level;		/* 0 leaf; inner: parent's - 1, top 7 */
	int			cmode;		/* HTBX_CANT_SEND .. HTBX_CAN_SEND */

	/* token state, in ns of transmission time */
	s64			tokens;
	s64			ctokens;
	u64			t_c;		/* time of the last update */
	u64			rate_rem;	/* carried remainder of len*1e9/rate */
	u64			ceil_rem;

	/*
	 * Scheduler statistics. Bytes and packets are not kept here: the
	 * core reports every packet through htbx_node_sent() and the caller
	 * keeps the one counter set (the kernel: gnet bstats).
	 */
	u64			lends;		/* packets sent on its own rate */
	u64			borrows;	/* packets sent on an ancestor's */

	/* leaf: DRR per level, and its place in a row or its parent's feed */
	s32			deficit[HTBX_CORE_MAXDEPTH];
	u64			giants;		/* segments longer than cfg.mtu */
	/* activity: prios with a backlogged leaf at or below this class */
	u8			prio_activity;
	bool			in_pq;
	u8			published;	/* mq: in bucket->demand */
	bool			pub_active;	/* mq: in bucket->nactive */
	u8			infeed;		/* mq: in bucket->infeed */
	struct list_head	ring_node[HTBX_CORE_NUMPRIO]; /* in a row or parent feed */

	/* inner: borrowing children */
	struct htbx_ring	feed[HTBX_CORE_NUMPRIO];
	u32			children;
	struct htbx_pq_node	pq;		/* in q->events when not CAN_SEND */
	u64			rate_vtime;	/* mq: see htbx_rate_advance */
	u64			borrow_vtime;	/* mq: htbx_borrow_advance */
	u64			overlimits;	/* transitions into CANT_SEND */
};

/* A queue, as the core schedules it: its rows and event queue. */
struct htbx_core_queue {
	struct htbx_ring	row[HTBX_CORE_MAXDEPTH][HTBX_CORE_NUMPRIO];
	u8			row_mask[HTBX_CORE_MAXDEPTH];	/* prios with members */
	u8			level_mask;	/* levels whose row_mask is not 0 */
	struct htbx_pq_node	*events;	/* heap root: earliest key */
	struct htbx_core_node	*lazy;		/* single queue: last served */
	u64			next_event;	/* see htbx_core_dequeue */
	u64			poll;		/* mq: outranked, look again then */
	u64			overlimits;	/* sum of the classes' overlimits */
	u64			budget_hits;	/* event budget exhausted */
	bool			stale;		/* mq: a mode changed mid-dequeue */
};

/*
 * Hooks: the calls the core makes per packet, and nothing else outside
 * itself. Each build defines them static inline in a header of its own,
 * which htbx_core.c includes as "htbx_hooks.h" (so they inline into the
 * core): the kernel's is include/htbx_hooks.h, the unit harness's
 * tests/unit/htbx_hooks.h, each found through its build's -I.
 *
 * htbx_leaf_dequeue(cl)	take the head packet of leaf cl's queue, or
 *				NULL. The only hook that may re-enter the core,
 *				and only this way: while it runs, cl's queue
 *				may drop packets and may empty (a leaf qdisc
 *				dropping inside its own ->dequeue, as codel,
 *				fq_codel and netem do), and the hook may then
 *				call htbx_core_deactivate(q, cl) for cl itself
 *				(qdisc_tree_reduce_backlog -> qlen_notify). It
 *				may return NULL with packets still queued (a
 *				leaf that is not work-conserving: tbf, netem).
 *				Whatever it does, the core stays consistent and
 *				makes progress: a leaf that gave NULL is either
 *				inactive or rotated behind its ring mates, and
 *				no dequeue tries more than HTBX_MAX_TRIES.
 * htbx_leaf_qlen(cl)		packets left in leaf cl's queue. No re-entry.
 * htbx_pkt_len(pkt)		its length as the qdisc sees it (skb: the
 *				qdisc_pkt_len of the whole GSO packet).
 * htbx_pkt_segs(pkt)		segments it leaves the device as (GSO: gso_segs;
 *				else 1). Giants are counted per segment.
 * htbx_node_sent(cl, len, segs) account a packet of len bytes (htbx_pkt_len)
 *				leaving as segs segments (htbx_pkt_segs) to
 *				cl's byte and packet counters; called once
 *				per packet for the leaf and each ancestor.
 *				No re-entry.
 */
/*
 * API (sch_htbx_main.c and the harness rely on these names):
 *
 *   htbx_core_init(q)			empty queue, zeroed counters
 *   htbx_node_setup(cl, cfg)		apply a validated config to a class
 *					not yet in the tree (every field set)
 *   htbx_core_add(q, cl, parent, now)	link a set-up class under parent
 *					(NULL: a root class). If parent was a
 *					leaf it becomes inner: the caller must
 *					have emptied its queue first.
 *   htbx_core_del(q, cl, now)		unlink a class without children;
 *					true when its parent lost its last
 *					child and is a leaf again (the caller
 *					then gives it a leaf queue)
 *   htbx_core_change(q, cl, cfg, now)	apply a new config to a linked class
 *   htbx_core_activate(q, cl)		leaf cl has packets (idempotent);
 *					takes out the leaf served last if it
 *					is another and empty (htbx_leaf_qlen)
 *   htbx_core_deactivate(q, cl)	leaf cl is empty (idempotent; a no-op
 *					on an inner class and on a class that
 *					is not active)
 *   htbx_core_dequeue(q, now)		next packet to send, or NULL; on NULL
 *					q->next_event is when to try again
 *					(0: nothing waits; now: the event
 *					budget ran out, hand over and retry)
 *   htbx_core_reset_node(q, cl, now)	full tokens, CAN_SEND, inactive
 *					(mq: this node; the shared buckets
 *					keep the class's debt)
 *   htbx_core_reset(q)			empty rows and event queue (after
 *					every class was reset)
 *   htbx_core_mode(cl, now, &wait)	the mode cl would have at now, and the
 *					ns until it can improve
 *   htbx_node_xstats(cl, xs)		fill struct tc_htbx_xstats
 *
 * In mq mode each TX queue has its own htbx_core_queue, under its own
 * lock, and a class a node in each; what the nodes of a class share is
 * htbx_share.c's (the interface, and what the core calls when, is in
 * htbx_share.h).
 */
void htbx_core_init(struct htbx_core_queue *q);
void htbx_node_setup(struct htbx_core_node *cl, const struct htbx_cfg *cfg);
void htbx_core_add(struct htbx_core_queue *q, struct htbx_core_node *cl,
		   struct htbx_core_node *parent, u64 now);
bool htbx_core_del(struct htbx_core_queue *q, struct htbx_core_node *cl,
		   u64 now);
void htbx_core_change(struct htbx_core_queue *q, struct htbx_core_node *cl,
		      const struct htbx_cfg *cfg, u64 now);
void htbx_activate_leaf(struct htbx_core_queue *q, struct htbx_core_node *cl);
void htbx_core_deactivate(struct htbx_core_queue *q, struct htbx_core_node *cl);
void *htbx_core_dequeue(struct htbx_core_queue *q, u64 now);
void htbx_core_reset_node(struct htbx_core_queue *q, struct htbx_core_node *cl,
			  u64 now);
void htbx_core_reset(struct htbx_core_queue *q);
int htbx_core_mode(const struct htbx_core_node *cl, u64 now, s64 *wait);
void htbx_node_xstats(const struct htbx_core_node *cl,
		      struct tc_htbx_xstats *xs);

/**
 * htbx_core_activate - leaf @cl has packets (idempotent)
 * @q: the queue
 * @cl: the leaf
 *
 * Inline: a packet for a leaf that is active already (backlogged, or
 * emptied by the last dequeue) costs the enqueue two tests, and the
 * activation itself (htbx_activate_leaf) is out of line.
 */
static inline void htbx_core_activate(struct htbx_core_queue *q,
				      struct htbx_core_node *cl)
{
	if (WARN_ON_ONCE(cl->level) || cl->prio_activity)
		return;
	htbx_activate_leaf(q, cl);
}

/* The event queue on its own, for tests/unit's heap test. */
void htbx_pq_insert(struct htbx_core_queue *q, struct htbx_core_node *cl,
		    u64 key);
void htbx_pq_remove(struct htbx_core_queue *q, struct htbx_core_node *cl);
struct htbx_core_node *htbx_pq_first(const struct htbx_core_queue *q);

#endif /* _HTBX_CORE_H */
