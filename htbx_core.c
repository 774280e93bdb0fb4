// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduling core of htbx; htbx_core.h has its API, the hooks it calls
 * and which of them may re-enter it. What mq mode shares between the
 * queues' cores is htbx_share.c's: the core calls it only for a node
 * whose tokens are shared (cl->bucket), behind one inline test.
 */
#include "htbx_core.h"
#include "htbx_share.h"
#include "htbx_hooks.h"	/* the build's own: see "Hooks" in htbx_core.h */


/*
 * How it works (mainline HTB semantics on simpler structures):
 *
 * Each class holds tokens (credit at its rate) and ctokens (at its ceil) as
 * nanoseconds of transmission time, updated lazily from t_c. Its mode is
 * CAN_SEND (tokens >= 0), MAY_BORROW (ctokens >= 0 only) or CANT_SEND. A
 * class that is not CAN_SEND waits in one event queue (a pairing heap keyed
 * by the ns when its mode can improve; a key may be early, never late).
 *
 * A backlogged leaf is "active" for its prio (single queue: also the leaf
 * a dequeue emptied, until another leaf becomes active or a dequeue finds
 * it empty). An active class that can send sits in row[level][prio]; one
 * that may borrow sits in its parent's feed[prio] and makes the parent
 * active for that prio, up to the first ancestor that can send. Dequeue
 * serves rows from level 0 up and prio 0 up, descends the feeds to a leaf
 * and charges the packet to every ancestor (rate only at and above the
 * serving level, ceil everywhere).
 *
 * Rows and feeds are DRR rings (lists): a leaf keeps the head while its
 * deficit for that level lasts; every rotation counts a turn of the ring,
 * and after n turns the ring's owner yields in its own ring, so the excess
 * is shared by quantum across all leaves below a lender. A class that left
 * a ring while it had the turn gets it back if it returns before the ring
 * moved on (mainline's last_ptr_id).
 *
 * Differences from sch_htb: no jiffies or tick tables (nanoseconds, exact
 * charges with carried remainders), one event queue with an event budget
 * instead of a time budget, no mode hysteresis, and debt that a single
 * packet causes is never cut, so that even 1 byte/s with 64 KB GSO packets
 * is enforced exactly (htb clamps a class's debt at 60 s of its rate, so
 * rates below about mtu/60 s pass more than they should). A leaf that the
 * dequeue empties stays active (single queue): htb deactivates it at
 * once, and on a link that is not congested every packet then activates
 * its leaf again through every borrowing ancestor (twice the work of the
 * charge at depth 8); the next activation of another leaf, or a dequeue
 * that finds it empty, takes it out, and when it is alone in the ring the
 * other leaf joins, that leaf takes its place in the list (packets in
 * turn to many leaves then cost one list replacement, not a leaf and its
 * ancestors in and out).
 *
 * Re-entry (see the hook contract in htbx_core.h): a leaf's dequeue may
 * deactivate that leaf. Everything after htbx_leaf_dequeue() therefore
 * rechecks ring membership instead of trusting the path it looked up: the
 * rotation moves only nodes still on their ring, and a leaf that gave NULL
 * is either gone from the rings or rotated away, so each retry makes
 * progress.
 */

/* ---- event queue: an intrusive pairing heap keyed by ns ---- */

/* Two heap roots (next/prev NULL) into one; the larger key becomes a child. */
static struct htbx_pq_node *htbx_pq_meld(struct htbx_pq_node *a,
					 struct htbx_pq_node *b)
{
	struct htbx_pq_node *t;

	if (!a)
		return b;
	if (!b)
		return a;
	if (b->key < a->key) {
		t = a;
		a = b;
		b = t;
	}
	b->prev = a;
	b->next = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	return a;
}

/* Two-pass pairing of a sibling list into one heap. */
static struct htbx_pq_node *htbx_pq_pairs(struct htbx_pq_node *first)
{
	struct htbx_pq_node *stack = NULL, *a, *b, *next, *res = NULL;

	/* pass 1: meld pairs left to right, push results on a stack */
	while (first) {
		a = first;
		b = a->next;
		next = b ? b->next : NULL;
		a->next = NULL;
		a->prev = NULL;
		if (b) {
			b->next = NULL;
			b->prev = NULL;
		}
		a = htbx_pq_meld(a, b);
		a->next = stack;
		stack = a;
		first = next;
	}
	/* pass 2: meld right to left */
	while (stack) {
		next = stack->next;
		stack->next = NULL;
		res = htbx_pq_meld(res, stack);
		stack = next;
	}
	return res;
}

void htbx_pq_insert(struct htbx_core_queue *q, struct htbx_core_node *cl,
		    u64 key)
{
	struct htbx_pq_node *n = &cl->pq;

	if (WARN_ON_ONCE(cl->in_pq))
		return;
	n->child = NULL;
	n->next = NULL;
	n->prev = NULL;
	n->key = key;
	q->events = htbx_pq_meld(q->events, n);
	cl->in_pq = true;
}

void htbx_pq_remove(struct htbx_core_queue *q, struct htbx_core_node *cl)
{
	struct htbx_pq_node *n = &cl->pq;
	struct htbx_pq_node *sub;

	if (!cl->in_pq)
		return;
	cl->in_pq = false;
	sub = htbx_pq_pairs(n->child);
	n->child = NULL;
	if (n == q->events) {
		q->events = sub;
		return;
	}
	/* unlink n from its parent's child list */
	if (n->prev->child == n)
		n->prev->child = n->next;
	else
		n->prev->next = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->next = NULL;
	n->prev = NULL;
	q->events = htbx_pq_meld(q->events, sub);
}

struct htbx_core_node *htbx_pq_first(const struct htbx_core_queue *q)
{
	if (!q->events)
		return NULL;
	return container_of(q->events, struct htbx_core_node, pq);
}

/* ---- rings ---- */

static void htbx_ring_init(struct htbx_ring *r)
{
	INIT_LIST_HEAD(&r->head);
	r->n = 0;
	r->turns = 0;
	r->resume = NULL;
}

/*
 * A class that left a ring while it had the turn (say it could send on its
 * own rate for one packet) gets the turn back when it returns before the
 * ring moved on, so that it keeps its DRR position as well as its deficit.
 */
static void htbx_ring_add(struct htbx_ring *r, struct htbx_core_node *cl,
			  int prio)
{
	if (r->resume == cl) {
		list_add(&cl->ring_node[prio], &r->head);
		r->resume = NULL;
	} else {
		list_add_tail(&cl->ring_node[prio], &r->head);
	}
	r->n++;
}

static void htbx_ring_del(struct htbx_ring *r, struct htbx_core_node *cl,
			  int prio)
{
	if (r->head.next == &cl->ring_node[prio])
		r->resume = cl;
	list_del_init(&cl->ring_node[prio]);
	r->n--;
}

static struct htbx_core_node *htbx_ring_head(struct htbx_ring *r, int prio)
{
	if (list_empty(&r->head))
		return NULL;
	return list_first_entry(&r->head, struct htbx_core_node,
				ring_node[prio]);
}

/* ---- modes and activity ---- */

/* Nanoseconds since cl's last update, capped at HTBX_TOKENS_MAX. */
static s64 htbx_diff(const struct htbx_core_node *cl, u64 now)
{
	if (now <= cl->t_c)
		return 0;
	return (s64)min_t(u64, now - cl->t_c, (u64)HTBX_TOKENS_MAX);
}

/* @toks less the charge @cost (>= 0), debt cut as HTBX_MBUFFER says. */
static s64 htbx_debit(s64 toks, u64 cost)
{
	s64 c = (s64)min_t(u64, cost, (u64)HTBX_TOKENS_MAX);
	/* max(toks - c, -HTBX_MBUFFER - c), one subtraction */
	s64 t = max_t(s64, toks, -HTBX_MBUFFER) - c;

	return max_t(s64, t, -HTBX_TOKENS_MAX);
}

static u64 htbx_key(u64 now, s64 wait)
{
	u64 k = now + (u64)wait;

	return k < now ? ~0ULL : k;
}

static int htbx_mode_of(s64 toks, s64 ctoks, s64 *wait)
{
	if (ctoks < 0) {
		*wait = -ctoks;
		return HTBX_CANT_SEND;
	}
	if (toks >= 0) {
		*wait = 0;
		return HTBX_CAN_SEND;
	}
	*wait = -toks;
	return HTBX_MAY_BORROW;
}

static int htbx_class_mode(const struct htbx_core_node *cl, s64 diff,
			   s64 *wait)
{
	return htbx_mode_of(cl->tokens + diff, cl->ctokens + diff, wait);
}

static void htbx_row_add(struct htbx_core_queue *q, struct htbx_core_node *cl,
			 unsigned long mask)
{
	int prio;

	for (; mask; mask &= mask - 1) {
		prio = __ffs(mask);
		htbx_ring_add(&q->row[cl->level][prio], cl, prio);
		q->row_mask[cl->level] |= BIT(prio);
	}
	q->level_mask |= BIT(cl->level);
}

static void htbx_row_del(struct htbx_core_queue *q, struct htbx_core_node *cl,
			 unsigned long mask)
{
	struct htbx_ring *r;
	int prio;

	for (; mask; mask &= mask - 1) {
		prio = __ffs(mask);
		r = &q->row[cl->level][prio];
		htbx_ring_del(r, cl, prio);
		if (!r->n)
			q->row_mask[cl->level] &= ~BIT(prio);
	}
	if (!q->row_mask[cl->level])
		q->level_mask &= ~BIT(cl->level);
}

/* mq: a node's activity is published; single queue pays the test only. */
static inline void htbx_publish(struct htbx_core_node *cl)
{
	if (unlikely(cl->bucket))
		htbx_share_publish(cl);
}

/*
 * Make cl's active prios visible: a borrowing class joins its parent's
 * feeds (the parent becomes active for the prios it was not active for
 * yet, and so on up), the first class that can send joins the row.
 */
static void htbx_activate_prios(struct htbx_core_queue *q,
				struct htbx_core_node *cl)
{
	struct htbx_core_node *p = cl->parent;
	unsigned long m = cl->prio_activity, todo;
	int prio;

	while (cl->cmode == HTBX_MAY_BORROW && p && m) {
		if (unlikely(cl->bucket))
			htbx_share_feed(cl, m, true);
		for (todo = m; todo; todo &= todo - 1) {
			prio = __ffs(todo);
			if (p->feed[prio].n)
				m &= ~BIT(prio);	/* p already active */
			htbx_ring_add(&p->feed[prio], cl, prio);
		}
		p->prio_activity |= m;
		htbx_publish(p);
		cl = p;
		p = cl->parent;
	}
	if (cl->cmode == HTBX_CAN_SEND && m)
		htbx_row_add(q, cl, m);
}

/* The mirror of htbx_activate_prios; cl->prio_activity is left as is. */
static void htbx_deactivate_prios(struct htbx_core_queue *q,
				  struct htbx_core_node *cl)
{
	struct htbx_core_node *p = cl->parent;
	unsigned long m = cl->prio_activity, todo, gone;
	int prio;

	while (cl->cmode == HTBX_MAY_BORROW && p && m) {
		if (unlikely(cl->bucket))
			htbx_share_feed(cl, m, false);
		gone = 0;
		for (todo = m; todo; todo &= todo - 1) {
			prio = __ffs(todo);
			htbx_ring_del(&p->feed[prio], cl, prio);
			if (!p->feed[prio].n)
				gone |= BIT(prio);
		}
		m = gone;
		p->prio_activity &= ~m;
		htbx_publish(p);
		cl = p;
		p = cl->parent;
	}
	if (cl->cmode == HTBX_CAN_SEND && m)
		htbx_row_del(q, cl, m);
}

/* cl takes mode @new: move it between row, feed and nowhere. */
static void htbx_set_mode(struct htbx_core_queue *q, struct htbx_core_node *cl,
			  int new)
{
	/*
	 * What htb counts: classes entering CANT_SEND; a shared class (mq)
	 * once, when the first of its nodes does (htbx_share_mode).
	 */
	if (unlikely(cl->bucket) ? htbx_share_mode(cl, new) :
	    new == HTBX_CANT_SEND) {
		cl->overlimits++;
		/* read without the qdisc lock by the qdisc dump */
		WRITE_ONCE(q->overlimits, q->overlimits + 1);
	}
	if (cl->prio_activity) {
		if (cl->cmode != HTBX_CANT_SEND)
			htbx_deactivate_prios(q, cl);
		cl->cmode = new;
		if (new != HTBX_CANT_SEND)
			htbx_activate_prios(q, cl);
	} else {
		cl->cmode = new;
	}
}

/*
 * Re-evaluate cl's mode @diff ns after its last update and move it between
 * row, feed and nowhere. The event queue is the caller's business; *wait
 * is how long until the mode can improve. Inline: per packet and level
 * the mode mostly stays, and the move is out of line.
 */
static inline void htbx_change_mode(struct htbx_core_queue *q,
				    struct htbx_core_node *cl, s64 diff,
				    s64 *wait)
{
	int new = htbx_class_mode(cl, diff, wait);

	if (unlikely(new != cl->cmode))
		htbx_set_mode(q, cl, new);
}

/* Mode from scratch at @now, with the event queue made to match. */
static void htbx_update_mode(struct htbx_core_queue *q,
			     struct htbx_core_node *cl, u64 now)
{
	s64 wait;

	if (cl->bucket)
		htbx_share_sync(cl, now);
	htbx_change_mode(q, cl, htbx_diff(cl, now), &wait);
	htbx_pq_remove(q, cl);
	if (cl->cmode != HTBX_CAN_SEND)
		htbx_pq_insert(q, cl, htbx_key(now, wait));
}

/* ---- entry points ---- */


static void htbx_node_apply(struct htbx_core_node *cl,
			    const struct htbx_cfg *cfg)
{
	if (cfg->rate != cl->cfg.rate)
		cl->rate_rem = 0;
	if (cfg->ceil != cl->cfg.ceil)
		cl->ceil_rem = 0;
	cl->cfg = *cfg;
	cl->buffer = htbx_bytes_to_ns(cfg->rate, cfg->burst);
	cl->cbuffer = htbx_bytes_to_ns(cfg->ceil, cfg->cburst);
	cl->rate_recip = htbx_rate_recip(cfg->rate);
	cl->ceil_recip = htbx_rate_recip(cfg->ceil);
}

/* Full tokens, CAN_SEND, inactive, in no ring: a class at rest at @now. */
static void htbx_node_rest(struct htbx_core_node *cl, u64 now)
{
	int i;

	cl->prio_activity = 0;
	if (unlikely(cl->bucket))
		htbx_share_rest(cl);
	for (i = 0; i < HTBX_CORE_NUMPRIO; i++) {
		INIT_LIST_HEAD(&cl->ring_node[i]);
		htbx_ring_init(&cl->feed[i]);
	}
	for (i = 0; i < HTBX_CORE_MAXDEPTH; i++)
		cl->deficit[i] = 0;
	cl->tokens = cl->buffer;
	cl->ctokens = cl->cbuffer;
	cl->t_c = now;
	cl->cmode = HTBX_CAN_SEND;
}

/**
 * htbx_node_setup - initialise a class that is not in the tree yet
 * @cl: the class; every core field is (re)initialised
 * @cfg: a validated configuration
 *
 * The class starts as an inactive leaf with full tokens.
 */
void htbx_node_setup(struct htbx_core_node *cl, const struct htbx_cfg *cfg)
{
	cl->rate_rem = 0;
	cl->ceil_rem = 0;
	cl->cfg = *cfg;
	htbx_node_apply(cl, cfg);
	cl->parent = NULL;
	/* mq: no bucket until the glue gives the node one, nothing shared */
	cl->bucket = NULL;
	cl->published = 0;
	cl->pub_active = false;
	cl->rate_vtime = 0;
	cl->infeed = 0;
	cl->borrow_vtime = 0;
	cl->level = 0;
	cl->children = 0;
	htbx_node_rest(cl, 0);
	cl->pq.child = NULL;
	cl->pq.next = NULL;
	cl->pq.prev = NULL;
	cl->pq.key = 0;
	cl->in_pq = false;
	cl->lends = 0;
	cl->borrows = 0;
	cl->giants = 0;
	cl->overlimits = 0;
}

/*
 * @cl leaves the ring it sits in at its level (deleted, or its level
 * changes): no ring may keep a turn for it.
 */
static void htbx_forget_turns(struct htbx_core_queue *q,
			      struct htbx_core_node *cl)
{
	int i;

	for (i = 0; i < HTBX_CORE_NUMPRIO; i++) {
		if (q->row[cl->level][i].resume == cl)
			q->row[cl->level][i].resume = NULL;
		if (cl->parent && cl->parent->feed[i].resume == cl)
			cl->parent->feed[i].resume = NULL;
	}
}

/**
 * htbx_core_add - link a set-up class into the tree
 * @q: the queue
 * @cl: a class prepared by htbx_node_setup
 * @parent: its parent, or NULL for a root class
 * @now: current time, ns
 *
 * A leaf parent becomes an inner class; its queue must be empty already.
 */
void htbx_core_add(struct htbx_core_queue *q, struct htbx_core_node *cl,
		   struct htbx_core_node *parent, u64 now)
{
	int i;

	if (parent && !parent->level) {
		/* leaf -> inner */
		htbx_core_deactivate(q, parent);
		htbx_pq_remove(q, parent);
		htbx_forget_turns(q, parent);
		if (unlikely(parent->bucket))
			htbx_share_mode(parent, HTBX_CAN_SEND);
		parent->cmode = HTBX_CAN_SEND;
		parent->level = (parent->parent ? parent->parent->level :
				 HTBX_CORE_MAXDEPTH) - 1;
		for (i = 0; i < HTBX_CORE_NUMPRIO; i++)
			htbx_ring_init(&parent->feed[i]);
		/* its tokens are kept: wait in the event queue if in debt */
		htbx_update_mode(q, parent, now);
	}
	cl->parent = parent;
	cl->level = 0;
	cl->t_c = now;
	if (parent)
		parent->children++;
}

/**
 * htbx_core_deactivate - leaf @cl has no packets any more (idempotent)
 * @q: the queue
 * @cl: the class
 *
 * A no-op on an inner class, whose activity is its children's business.
 */
void htbx_core_deactivate(struct htbx_core_queue *q,
			  struct htbx_core_node *cl)
{
	if (q->lazy == cl)
		q->lazy = NULL;
	if (!cl->prio_activity || cl->level)
		return;
	htbx_deactivate_prios(q, cl);
	cl->prio_activity = 0;
	htbx_publish(cl);
}

/*
 * The ring leaf @cl joins at @prio in its mode: row 0 if it can send, its
 * parent's feed if it borrows, none otherwise.
 */
static struct htbx_ring *htbx_leaf_ring(struct htbx_core_queue *q,
					struct htbx_core_node *cl, int prio)
{
	if (cl->cmode == HTBX_CAN_SEND)
		return &q->row[0][prio];
	if (cl->cmode == HTBX_MAY_BORROW && cl->parent)
		return &cl->parent->feed[prio];
	return NULL;
}

/**
 * htbx_activate_leaf - leaf @cl has packets and is not active yet
 * @q: the queue
 * @cl: the leaf
 *
 * The out-of-line part of htbx_core_activate (htbx_core.h), which tests
 * whether @cl is active already.
 */
void htbx_activate_leaf(struct htbx_core_queue *q, struct htbx_core_node *cl)
{
	struct htbx_core_node *w = q->lazy;
	u32 prio = cl->cfg.prio;
	struct htbx_ring *r;

	/*
	 * The leaf served last, if empty and in the ring cl joins, leaves
	 * now: the next dequeue would find it before cl. In another ring it
	 * may get its next packet before a dequeue looks there, and then it
	 * never left. When it is that ring's only member (packets in turn to
	 * many leaves, one at a time), cl takes its place: the ring, and the
	 * ancestors' activity above it, stay as they are.
	 */
	if (w) {
		q->lazy = NULL;
		if (w->cmode != cl->cmode || w->cfg.prio != prio ||
		    (w->parent != cl->parent && cl->cmode == HTBX_MAY_BORROW) ||
		    htbx_leaf_qlen(w)) {
			w = NULL;
		} else {
			r = htbx_leaf_ring(q, cl, prio);
			if (r && r->n == 1 &&
			    r->head.next == &w->ring_node[prio]) {
				list_replace_init(&w->ring_node[prio],
						  &cl->ring_node[prio]);
				r->resume = NULL;
				w->prio_activity = 0;
				htbx_publish(w);
				cl->prio_activity = BIT(prio);
				htbx_publish(cl);
				return;
			}
		}
	}
	cl->prio_activity = BIT(prio);
	htbx_publish(cl);
	htbx_activate_prios(q, cl);
	/* after cl joined, so that a parent they share stays where it is */
	if (w)
		htbx_core_deactivate(q, w);
}

/**
 * htbx_core_del - unlink a class that has no children
 * @q: the queue
 * @cl: the class
 * @now: the time, ns
 *
 * Return: true when the parent lost its last child and is a leaf again,
 * with full tokens; the caller then gives it a leaf queue.
 */
bool htbx_core_del(struct htbx_core_queue *q, struct htbx_core_node *cl,
		   u64 now)
{
	struct htbx_core_node *p = cl->parent;

	WARN_ON_ONCE(cl->children);
	htbx_core_deactivate(q, cl);
	htbx_pq_remove(q, cl);
	htbx_forget_turns(q, cl);
	/* mq: the class's count of nodes in CANT_SEND loses this one */
	if (unlikely(cl->bucket))
		htbx_share_mode(cl, HTBX_CAN_SEND);
	cl->cmode = HTBX_CAN_SEND;
	if (!p)
		return false;
	p->children--;
	if (p->children)
		return false;
	/* the parent is a leaf again */
	WARN_ON_ONCE(p->prio_activity);
	htbx_pq_remove(q, p);
	htbx_forget_turns(q, p);
	p->level = 0;
	htbx_node_rest(p, now);	/* inactive: its ring nodes are unlinked */
	return true;
}

/**
 * htbx_core_change - apply a validated configuration to a linked class
 * @q: the queue
 * @cl: the class
 * @cfg: the new configuration
 * @now: the time, ns
 *
 * Credit earned under the old configuration is kept (as time), clamped to
 * the new buffers; mode, event and activity (the prio may change) follow.
 */
void htbx_core_change(struct htbx_core_queue *q, struct htbx_core_node *cl,
		      const struct htbx_cfg *cfg, u64 now)
{
	int act = cl->prio_activity;
	s64 diff;

	if (cl->bucket)
		htbx_share_change(cl, cfg->quantum, now);
	diff = htbx_diff(cl, now);

	if (act && cl->cmode != HTBX_CANT_SEND)
		htbx_deactivate_prios(q, cl);
	cl->tokens = min_t(s64, cl->tokens + diff, cl->buffer);
	cl->ctokens = min_t(s64, cl->ctokens + diff, cl->cbuffer);
	cl->t_c = now;
	htbx_node_apply(cl, cfg);
	cl->tokens = min_t(s64, cl->tokens, cl->buffer);
	cl->ctokens = min_t(s64, cl->ctokens, cl->cbuffer);
	if (cl->bucket)
		htbx_share_hold(cl, now);
	if (act && !cl->level)
		act = BIT(cfg->prio);
	/* inactive while the mode is re-evaluated */
	cl->prio_activity = 0;
	htbx_update_mode(q, cl, now);
	cl->prio_activity = act;
	if (act && cl->cmode != HTBX_CANT_SEND)
		htbx_activate_prios(q, cl);
}

/*
 * Advance ring owners after @path[depth - 1] used its turn. A path member
 * that left its ring meanwhile (the leaf's dequeue deactivated the leaf,
 * and with it ancestors that had no other active child) stays out: moving
 * it would put back a node its ring does not count.
 */
static void htbx_rotate(struct htbx_core_queue *q, int level, int prio,
			struct htbx_core_node **path, int depth)
{
	struct list_head *node;
	struct htbx_ring *r;
	int i;

	for (i = depth - 1; i >= 0; i--) {
		r = i ? &path[i - 1]->feed[prio] : &q->row[level][prio];
		node = &path[i]->ring_node[prio];
		if (!list_empty(node))
			list_move_tail(node, &r->head);
		r->resume = NULL;
		if (++r->turns < r->n)
			break;
		r->turns = 0;
	}
}

/* Path from the head of row[level][prio] down the feeds to a leaf. */
static int htbx_lookup_leaf(struct htbx_core_queue *q, int level, int prio,
			    struct htbx_core_node **path)
{
	struct htbx_core_node *cl = htbx_ring_head(&q->row[level][prio], prio);
	int depth = 0;

	while (cl) {
		path[depth++] = cl;
		if (!cl->level)
			return depth;
		if (WARN_ON_ONCE(depth >= HTBX_CORE_MAXDEPTH))
			return 0;
		cl = htbx_ring_head(&cl->feed[prio], prio);
		WARN_ON_ONCE(!cl);
	}
	return 0;
}

/* Segments of a packet of @len bytes in @segs longer than @mtu. */
static u32 htbx_giants(u32 segs, u32 len, u32 mtu)
{
	if (segs <= 1)
		return len > mtu;
	/* GSO: equal segments but the last; headers are in every one */
	return DIV_ROUND_UP(len, segs) > mtu ? segs : 0;
}

/*
 * Account @pkt (@len bytes) sent by @leaf from row @level at @prio on
 * every ancestor.
 */
static void htbx_charge(struct htbx_core_queue *q, struct htbx_core_node *leaf,
			int level, int prio, const void *pkt, u32 len,
			u64 now)
{
	u32 segs = htbx_pkt_segs(pkt);
	struct htbx_core_node *c;
	s64 diff, t, wait;
	u64 wire;
	int old;

	leaf->giants += htbx_giants(segs, len, leaf->cfg.mtu);
	for (c = leaf; c; c = c->parent) {
		wire = htbx_wire_len(&c->cfg.len, len);
		if (unlikely(c->bucket)) {
			htbx_share_charge(c, level, prio, len, wire, now);
			goto mode;
		}
		diff = htbx_diff(c, now);
		t = min_t(s64, c->tokens + diff, c->buffer);
		if (c->level >= level) {
			if (c->level == level)
				c->lends++;
			t = htbx_debit(t, htbx_xmit_ns_r(c->cfg.rate,
							 c->rate_recip, wire,
							 &c->rate_rem));
		} else {
			c->borrows++;
		}
		c->tokens = t;
		t = min_t(s64, c->ctokens + diff, c->cbuffer);
		c->ctokens = htbx_debit(t, htbx_xmit_ns_r(c->cfg.ceil,
							  c->ceil_recip, wire,
							  &c->ceil_rem));
		c->t_c = now;
mode:
		old = c->cmode;
		htbx_change_mode(q, c, 0, &wait);
		if (c->cmode != old) {
			htbx_pq_remove(q, c);
			if (c->cmode != HTBX_CAN_SEND)
				htbx_pq_insert(q, c, htbx_key(now, wait));
		}
		htbx_node_sent(c, len, segs);
	}
}

#define HTBX_MAX_TRIES	4096	/* leaf dequeues per tree and call */

/* cl is in a row or feed for some prio (not only counted as active). */
static bool htbx_on_ring(const struct htbx_core_node *cl, int prio)
{
	return !list_empty(&cl->ring_node[prio]);
}

/*
 * mq: the modes on @path as the shared buckets have them at @now (other
 * queues may have spent what this queue's nodes last saw). True when one
 * changed: the path is not valid any more, look it up again.
 */
static bool htbx_path_stale(struct htbx_core_queue *q,
			    struct htbx_core_node **path, int depth, u64 now)
{
	bool changed = false;
	struct htbx_core_node *c;
	s64 wait;
	int i;

	for (i = 0; i < depth; i++) {
		c = path[i];
		htbx_share_sync(c, now);
		if (htbx_class_mode(c, 0, &wait) == c->cmode)
			continue;
		htbx_update_mode(q, c, now);
		changed = true;
	}
	if (changed)
		q->stale = true;
	return changed;
}

/*
 * mq: path[@i] yields (htbx_share_yield): move it behind its ring
 * mates. When every member of its parent's feed on this queue yielded in
 * a row (@skips[i] counts them), the parent yields in its own parent's
 * feed, and so on up to the row, whose members yield at most once round
 * (@skips[0]). False when the whole row yielded: nothing to send here.
 */
static bool htbx_skip(struct htbx_core_queue *q, int level, int prio,
		      struct htbx_core_node **path, int i, u32 *skips)
{
	struct htbx_ring *r;
	int j;

	for (; i > 0; i--) {
		for (j = i + 1; j < HTBX_CORE_MAXDEPTH; j++)
			skips[j] = 0;
		r = &path[i - 1]->feed[prio];
		if (++skips[i] < r->n) {
			list_move_tail(&path[i]->ring_node[prio], &r->head);
			r->resume = NULL;
			return true;
		}
	}
	for (j = 1; j < HTBX_CORE_MAXDEPTH; j++)
		skips[j] = 0;
	if (++skips[0] >= q->row[level][prio].n)
		return false;
	htbx_rotate(q, level, prio, path, 1);
	return true;
}

/*
 * Serve row[level][prio]: the leaf at the end of the head path, by DRR.
 * A leaf may change the rings while it dequeues (see htbx_core.h), so
 * after the call nothing looked up before it is trusted.
 */
static void *htbx_dequeue_tree(struct htbx_core_queue *q, int level, int prio,
			       u64 now)
{
	struct htbx_core_node *path[HTBX_CORE_MAXDEPTH];
	u32 skips[HTBX_CORE_MAXDEPTH] = { 0 };
	struct htbx_core_node *leaf, *start = NULL;
	int depth, tries = 0, i;
	void *pkt;
	u64 at;
	u32 len;
	s64 d;

	for (;;) {
		depth = htbx_lookup_leaf(q, level, prio, path);
		if (!depth)
			return NULL;
		leaf = path[depth - 1];
		if (unlikely(path[0]->bucket)) {
			/* mq: modes re-read, and the other queues asked */
			if (htbx_path_stale(q, path, depth, now)) {
				if (tries++ >= HTBX_MAX_TRIES)
					return NULL;
				continue;
			}
			i = htbx_share_yield(path, depth, prio, now, &at);
			if (i >= 0) {
				if (!q->poll || at < q->poll)
					q->poll = at;
				if (tries++ >= HTBX_MAX_TRIES ||
				    !htbx_skip(q, level, prio, path, i,
					       skips))
					return NULL;
				continue;
			}
		}
		if (unlikely(!htbx_leaf_qlen(leaf))) {
			/* emptied behind our back: leaves the rings */
			htbx_core_deactivate(q, leaf);
			if (leaf == start)
				start = NULL;
			continue;
		}
		/* every leaf left gave NULL once: they are not ready */
		if (leaf == start || tries++ >= HTBX_MAX_TRIES)
			return NULL;
		pkt = htbx_leaf_dequeue(leaf);
		if (likely(pkt))
			break;
		if (!htbx_leaf_qlen(leaf))
			htbx_core_deactivate(q, leaf);
		if (!htbx_on_ring(leaf, prio))
			continue;	/* it deactivated itself: progress */
		/* not work-conserving, packets but none ready: next leaf */
		if (!start)
			start = leaf;
		htbx_rotate(q, level, prio, path, depth);
	}

	len = htbx_pkt_len(pkt);
	d = (s64)leaf->deficit[level] - len;
	if (d < 0) {
		d += leaf->cfg.quantum;
		htbx_rotate(q, level, prio, path, depth);
	}
	d = max_t(s64, d, -0x7fffffffLL);
	leaf->deficit[level] = (s32)min_t(s64, d, 0x7fffffffLL);
	/*
	 * A leaf this emptied stays on its rings (single queue): on a link
	 * that is not congested every packet empties its leaf, and the next
	 * one would activate it again through every borrowing ancestor.
	 * A dequeue that finds it still empty deactivates it (above), and
	 * so does the activation of another leaf (q->lazy). mq: a node's
	 * activity is published (nactive, demand), so at once.
	 */
	if (unlikely(leaf->bucket)) {
		if (!htbx_leaf_qlen(leaf))
			htbx_core_deactivate(q, leaf);
	} else {
		q->lazy = leaf;
	}
	htbx_charge(q, leaf, level, prio, pkt, len, now);
	return pkt;
}

/**
 * htbx_core_dequeue - the next packet to send at @now, or NULL
 * @q: the queue
 * @now: the time, ns
 *
 * Return: the packet, or NULL; then q->next_event is when something may
 * become ready (0: nothing waits; @now: the event budget ran out, call
 * again right away).
 */
void *htbx_core_dequeue(struct htbx_core_queue *q, u64 now)
{
	unsigned long m, tried = 0;
	struct htbx_core_node *cl;
	int budget = HTBX_EVENT_BUDGET, restarts = 0;
	bool hit = false;
	int level, prio;
	void *pkt;
	s64 wait;

	while (q->events && q->events->key <= now) {
		if (!budget--) {
			WRITE_ONCE(q->budget_hits, q->budget_hits + 1);
			hit = true;
			break;
		}
		cl = htbx_pq_first(q);
		htbx_pq_remove(q, cl);
		if (cl->bucket)
			htbx_share_sync(cl, now);
		htbx_change_mode(q, cl, htbx_diff(cl, now), &wait);
		if (cl->cmode != HTBX_CAN_SEND)
			htbx_pq_insert(q, cl, htbx_key(now, wait));
	}

	q->stale = false;
	q->poll = 0;
	for (level = 0; level < HTBX_CORE_MAXDEPTH; level++) {
		/* the next level with members, if any */
		m = q->level_mask >> level;
		if (!m)
			break;
		level += __ffs(m);
		/* lowest prio first; a tree may empty the rest of the mask */
		while ((m = q->row_mask[level] & ~tried)) {
			prio = __ffs(m);
			tried |= BIT(prio);
			pkt = htbx_dequeue_tree(q, level, prio, now);
			if (likely(pkt))
				return pkt;
			/*
			 * mq: a path's modes were re-read from the shared
			 * buckets and one changed (a borrower that can send on
			 * its own again moved to a lower level): start over,
			 * as the levels already passed may hold it now.
			 */
			if (unlikely(q->stale) && restarts++ < HTBX_CORE_MAXDEPTH) {
				q->stale = false;
				tried = 0;
				level = -1;
				break;
			}
		}
		tried = 0;
	}

	if (hit)
		q->next_event = now;
	else
		q->next_event = q->events ? q->events->key : 0;
	if (unlikely(q->poll) && (!q->next_event || q->poll < q->next_event))
		q->next_event = q->poll;
	return NULL;
}

/**
 * htbx_core_reset_node - full tokens, CAN_SEND, inactive, out of all queues
 * @q: the queue
 * @cl: the class
 * @now: the time, ns
 *
 * Followed by htbx_core_reset once every class was reset. In mq mode this
 * resets the node on @q's queue only: the class's shared buckets keep
 * what the class owes, since the other queues may go on sending (a
 * shrinking queue count resets the queues above it alone), and the node
 * reads its tokens from them before it sends.
 */
void htbx_core_reset_node(struct htbx_core_queue *q, struct htbx_core_node *cl,
			  u64 now)
{
	htbx_pq_remove(q, cl);
	htbx_node_rest(cl, now);
}

void htbx_core_reset(struct htbx_core_queue *q)
{
	int level, prio;

	for (level = 0; level < HTBX_CORE_MAXDEPTH; level++) {
		for (prio = 0; prio < HTBX_CORE_NUMPRIO; prio++)
			htbx_ring_init(&q->row[level][prio]);
		q->row_mask[level] = 0;
	}
	q->level_mask = 0;
	q->events = NULL;
	q->next_event = 0;
	q->poll = 0;
	q->lazy = NULL;
}

void htbx_core_init(struct htbx_core_queue *q)
{
	htbx_core_reset(q);
	WRITE_ONCE(q->overlimits, 0);
	WRITE_ONCE(q->budget_hits, 0);
}

/**
 * htbx_core_mode - the mode @cl would have at @now
 * @cl: the class
 * @now: the time, ns
 * @wait: ns until it can improve (0 when CAN_SEND)
 *
 * Return: the mode, HTBX_CAN_SEND, HTBX_MAY_BORROW or HTBX_CANT_SEND.
 */
int htbx_core_mode(const struct htbx_core_node *cl, u64 now, s64 *wait)
{
	s64 toks, ctoks;

	if (cl->bucket) {
		htbx_share_toks(cl, now, &toks, &ctoks);
		return htbx_mode_of(toks, ctoks, wait);
	}
	return htbx_class_mode(cl, htbx_diff(cl, now), wait);
}

/**
 * htbx_node_xstats - fill the class xstats
 * @cl: the class
 * @xs: the xstats to fill
 *
 * tokens/ctokens are the values at the last update, as the UAPI documents.
 */
void htbx_node_xstats(const struct htbx_core_node *cl,
		      struct tc_htbx_xstats *xs)
{
	xs->version = HTBX_VERSION;
	xs->mode = cl->cmode;
	xs->lends = cl->lends;
	xs->borrows = cl->borrows;
	xs->giants = cl->giants;
	xs->tokens = cl->tokens;
	xs->ctokens = cl->ctokens;
	xs->deficit = cl->level ? 0 : cl->deficit[0];
	xs->quantum = cl->cfg.quantum;
}

