/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htbx_core.h - the scheduling core of htbx: token math, class tree, event
 * queue and DRR, with no kernel glue.
 *
 * Included (like include/net/codel_impl.h) by sch_htbx.c and by the
 * userspace harness in tests/unit/, which drives exactly this code with a
 * virtual clock. The includer provides, before including this file:
 *   - the types u8/u32/s32/u64/s64, bool, struct list_head and the list_*
 *     helpers, min_t/max_t, likely/unlikely, WARN_ON_ONCE, div64_u64_rem
 *     (the kernel's, or tests/unit/kshim.h);
 *   - three functions the core calls to reach a leaf's queue:
 *
 *	static void *htbx_leaf_dequeue(struct htbx_cls *cl);
 *		take the head packet of cl's leaf queue, or NULL;
 *	static u32 htbx_pkt_len(const void *pkt);
 *		its length as the qdisc sees it (skb len / pkt_len);
 *	static u32 htbx_leaf_qlen(const struct htbx_cls *cl);
 *		packets left in cl's leaf queue.
 *
 * Nothing here sleeps, allocates, or reads a clock: every entry point takes
 * the current time "now" in nanoseconds from the caller. All entry points
 * run under the qdisc tree lock (or single-threaded in the harness).
 *
 * API contract (names are stable; sch_htbx.c relies on them):
 *
 *   htbx_core_init(q)			empty scheduler
 *   htbx_cls_setup(cl, cfg)		validate-free: apply a checked config
 *					to a class not yet in the tree
 *   htbx_core_add(q, cl, parent, now)	link a set-up class under parent
 *					(NULL: a root class). If parent was a
 *					leaf it becomes inner: the caller must
 *					have emptied its leaf queue first
 *					(htbx_core_deactivate has run).
 *   htbx_core_del(q, cl, now)		unlink a class without children;
 *					returns true when its parent lost its
 *					last child and is a leaf again (the
 *					caller then gives it a leaf queue)
 *   htbx_core_change(q, cl, cfg, now)	apply a new config to a linked class,
 *					atomically w.r.t. the scheduler
 *   htbx_core_activate(q, cl)		leaf cl has packets (idempotent)
 *   htbx_core_deactivate(q, cl)	leaf cl is empty (idempotent)
 *   htbx_core_dequeue(q, now)		next packet to send, or NULL; on NULL
 *					q->next_event is when to try again
 *					(0: nothing is waiting)
 *   htbx_core_reset_cls(q, cl, now)	full tokens, CAN_SEND, inactive
 *   htbx_core_reset(q)			empty rows and event queue (after
 *					every class was reset)
 *   htbx_cls_xstats(cl, now, xs)	fill struct tc_htbx_xstats
 */
#ifndef _HTBX_CORE_H
#define _HTBX_CORE_H

#include "psched_clock.h"

#define HTBX_CORE_MAXDEPTH	8	/* == HTBX_MAXDEPTH of the UAPI */
#define HTBX_CORE_NUMPRIO	8	/* == HTBX_NUMPRIO */
#define HTBX_EVENT_BUDGET	64	/* events handled per dequeue call */

struct htbx_cls;

/* A validated class configuration, in core units. */
struct htbx_cfg {
	u64	rate;		/* bytes/s, 1 .. HTBX_MAX_RATE */
	u64	ceil;		/* bytes/s, >= rate */
	u32	burst;		/* bytes */
	u32	cburst;		/* bytes */
	u32	quantum;	/* bytes, > 0 (caller derives rate/r2q) */
	u32	prio;		/* 0 .. 7 */
	u32	mtu;		/* giants above this */
	struct htbx_lenspec len; /* mpu, overhead, linklayer */
};

/* One DRR ring: the active members of a row or a feed for one prio. */
struct htbx_ring {
	struct list_head	head;	/* first entry is served next */
	u32			n;	/* members */
	u32			turns;	/* rotations since the owner's last */
};

/* Event queue node (intrusive pairing heap, ordered by key). */
struct htbx_pq_node {
	struct htbx_pq_node	*child;
	struct htbx_pq_node	*next;	/* sibling */
	struct htbx_pq_node	*prev;	/* parent if first child, else sibling */
	u64			key;	/* ns when the class may change mode */
};

struct htbx_cls {
	/* configuration: read on every packet */
	struct htbx_cfg		cfg;
	s64			buffer;		/* ns, cfg.burst at cfg.rate */
	s64			cbuffer;	/* ns, cfg.cburst at cfg.ceil */

	/* tree */
	struct htbx_cls		*parent;
	int			level;		/* 0 leaf; inner: parent's - 1, top 7 */
	u32			children;

	/* token state, in ns of transmission time */
	s64			tokens;
	s64			ctokens;
	u64			t_c;		/* time of the last update */
	u64			rate_rem;	/* carried remainder of len*1e9/rate */
	u64			ceil_rem;
	int			cmode;		/* HTBX_CANT_SEND .. HTBX_CAN_SEND */

	/* activity: prios with a backlogged leaf at or below this class */
	u8			prio_activity;
	struct list_head	ring_node[HTBX_CORE_NUMPRIO]; /* in a row or parent feed */
	struct htbx_ring	feed[HTBX_CORE_NUMPRIO];	/* inner: borrowing children */
	s32			deficit[HTBX_CORE_MAXDEPTH];	/* leaf: DRR, per level */
	struct htbx_pq_node	pq;		/* in q->events when not CAN_SEND */
	bool			in_pq;

	/* statistics */
	u64			bytes;		/* sent, as counted by htbx_pkt_len */
	u64			packets;
	u64			lends;
	u64			borrows;
	u64			giants;
	u64			overlimits;	/* transitions into CANT_SEND */
};

struct htbx_core {
	struct htbx_ring	row[HTBX_CORE_MAXDEPTH][HTBX_CORE_NUMPRIO];
	u8			row_mask[HTBX_CORE_MAXDEPTH];	/* prios with members */
	struct htbx_pq_node	*events;	/* heap root: earliest key */
	u64			next_event;	/* see htbx_core_dequeue */
	u64			overlimits;	/* dequeues that found nothing ready */
	u64			budget_hits;	/* event budget exhausted */
};

/* ---- implementation below; the prototypes above are the contract ---- */

#endif /* _HTBX_CORE_H */
