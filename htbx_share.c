// SPDX-License-Identifier: GPL-2.0
/*
 * The core's side of mq mode: the sharing of one class tree across TX
 * queues (shared buckets, published prios, quantum across queues, and
 * the virtual times that keep a class's nodes fair). htbx_share.h has the
 * interface and its locking; design/multiqueue.md the reasons.
 */
#include "htbx_share.h"

/* The tokens of bucket word @v at @now, at most @buffer. */
static s64 htbx_bucket_toks(const atomic64_t *v, u64 now, s64 buffer)
{
	s64 t = (s64)now - atomic64_read(v);

	t = min_t(s64, t, buffer);
	return max_t(s64, t, -HTBX_TOKENS_MAX);
}

/*
 * Charge @cost ns to bucket word @v at @now, debt cut as htbx_debit cuts
 * it; returns the tokens left. Lock-free: other queues charge the same
 * word.
 */
static s64 htbx_bucket_charge(atomic64_t *v, u64 now, s64 buffer, u64 cost)
{
	s64 c = (s64)min_t(u64, cost, (u64)HTBX_TOKENS_MAX);
	s64 old = atomic64_read(v), nv;

	do {
		nv = max_t(s64, old, (s64)now - buffer);
		nv = min_t(s64, nv, (s64)now + HTBX_MBUFFER) + c;
	} while (!atomic64_try_cmpxchg(v, &old, nv));
	return max_t(s64, (s64)now - nv, -HTBX_TOKENS_MAX);
}

/**
 * htbx_share_sync - a node's tokens as its class's buckets have them
 * @cl: the node (cl->bucket set)
 * @now: the time, ns
 */
void htbx_share_sync(struct htbx_core_node *cl, u64 now)
{
	cl->tokens = htbx_bucket_toks(&cl->bucket->rate, now, cl->buffer);
	cl->ctokens = htbx_bucket_toks(&cl->bucket->ceil, now, cl->cbuffer);
	cl->t_c = now;
}

/* Bucket word @v: an empty time no earlier than @floor. */
static void htbx_bucket_raise(atomic64_t *v, s64 floor)
{
	s64 old = atomic64_read(v);

	while (old < floor && !atomic64_try_cmpxchg(v, &old, floor))
		;
}

/**
 * htbx_share_hold - the buckets hold no more than a node's tokens
 * @cl: the node (cl->bucket set), its new configuration applied
 * @now: the time, ns
 *
 * A change may grow the buffers, and an empty time further back than the
 * tokens the class had would credit its idle time up to the new burst at
 * once; single-queue htbx keeps the tokens it had, capped at the old
 * burst.
 */
void htbx_share_hold(struct htbx_core_node *cl, u64 now)
{
	htbx_bucket_raise(&cl->bucket->rate, (s64)now - cl->tokens);
	htbx_bucket_raise(&cl->bucket->ceil, (s64)now - cl->ctokens);
}

/*
 * mq: the quantum the parent counts at @prio for the class of node @cl
 * follows the class's quantum, if any node of the class is in the feed.
 * A change of the quantum writes it and then comes here; a node that
 * joins a feed comes here after its cmpxchg: with a full barrier on both
 * sides, at least one of them sees the other's write, and the cmpxchg
 * makes the fix once.
 */
static void htbx_feed_requantum(struct htbx_core_node *cl, int prio)
{
	struct htbx_bucket *b = cl->bucket;
	s64 word = atomic64_read(&b->infeed[prio]);
	u32 quantum;

	do {
		quantum = READ_ONCE(b->quantum);
		if (!htbx_infeed_nodes(word) ||
		    htbx_infeed_quantum(word) == quantum)
			return;
	} while (!atomic64_try_cmpxchg(&b->infeed[prio], &word,
				       htbx_infeed_word(htbx_infeed_nodes(word),
							quantum)));
	atomic64_add((s64)quantum - htbx_infeed_quantum(word),
		     &cl->parent->bucket->borrow_quanta[prio]);
}

/**
 * htbx_share_change - a node's class takes a new configuration
 * @cl: the node (cl->bucket set), still with its old configuration
 * @quantum: the new quantum
 * @now: the time, ns
 *
 * The node's tokens are read from the buckets; the quantum the parent
 * counts for the class (borrow_quanta) changes once, on the first queue's node.
 */
void htbx_share_change(struct htbx_core_node *cl, u32 quantum, u64 now)
{
	struct htbx_bucket *b = cl->bucket;
	int prio;

	htbx_share_sync(cl, now);
	if (READ_ONCE(b->quantum) == quantum)
		return;
	WRITE_ONCE(b->quantum, quantum);
	/* pairs with the barrier of a feed count's cmpxchg */
	smp_mb();
	for (prio = 0; prio < HTBX_CORE_NUMPRIO && cl->parent; prio++)
		htbx_feed_requantum(cl, prio);
}

/**
 * htbx_share_toks - a node's tokens at @now, as the buckets have them
 * @cl: the node (cl->bucket set)
 * @now: the time, ns
 * @toks: the tokens, ns
 * @ctoks: the ctokens, ns
 */
void htbx_share_toks(const struct htbx_core_node *cl, u64 now, s64 *toks,
		     s64 *ctoks)
{
	*toks = htbx_bucket_toks(&cl->bucket->rate, now, cl->buffer);
	*ctoks = htbx_bucket_toks(&cl->bucket->ceil, now, cl->cbuffer);
}

/**
 * htbx_bucket_fill - full buckets for a class's configuration
 * @b: the buckets
 * @cl: a node of the class, set up (htbx_node_setup)
 * @now: the time, ns
 */
void htbx_bucket_fill(struct htbx_bucket *b, const struct htbx_core_node *cl,
		      u64 now)
{
	atomic64_set(&b->rate, (s64)now - cl->buffer);
	atomic64_set(&b->ceil, (s64)now - cl->cbuffer);
	WRITE_ONCE(b->quantum, cl->cfg.quantum);
}

/**
 * htbx_share_publish - the buckets' counts say what a node's activity says
 * @cl: the node (cl->bucket set)
 *
 * For a leaf, active or not (its copies share its rate: nactive); for an
 * inner class, at which prios its children borrow (demand). Called
 * wherever a node's activity changes.
 */
void htbx_share_publish(struct htbx_core_node *cl)
{
	bool active = !cl->level && cl->prio_activity;
	unsigned long want, diff;
	int prio;
	u64 v;

	if (active != cl->pub_active) {
		/*
		 * The sum changes before the count when a node comes and
		 * after it when it goes: a reader between the two
		 * (htbx_yield) sees the sum with a term too many, which
		 * never makes a queue hold back, and never one too few.
		 */
		if (active) {
			v = atomic64_read(&cl->bucket->rate_sent);
			/* no credit for the time it was idle */
			cl->rate_vtime = max_t(u64, cl->rate_vtime, v);
			atomic64_add(cl->rate_vtime,
				     &cl->bucket->rate_vtime_sum);
			/* the sum, then the count: pairs with htbx_vtime_ahead */
			smp_mb__before_atomic();
			atomic_inc(&cl->bucket->nactive);
		} else {
			atomic_dec(&cl->bucket->nactive);
			/* the count, then the sum: pairs with htbx_vtime_ahead */
			smp_mb__after_atomic();
			atomic64_sub(cl->rate_vtime,
				     &cl->bucket->rate_vtime_sum);
		}
		cl->pub_active = active;
	}
	want = cl->level ? cl->prio_activity : 0;
	for (diff = want ^ cl->published; diff; diff &= diff - 1) {
		prio = __ffs(diff);
		if (want & BIT(prio))
			atomic_inc(&cl->bucket->demand[prio]);
		else
			atomic_dec(&cl->bucket->demand[prio]);
	}
	cl->published = want;
}

/*
 * mq: node @cl joins (@in) or leaves its parent's feed at @prio: the
 * class is counted in the parent's borrow_quanta while any of its nodes
 * is in a feed of the parent's. The first node in adds the class's
 * quantum, the last one out takes away what was added; the count and
 * the quantum counted change in one cmpxchg, so a change of the quantum
 * on another queue (htbx_share_change) meets either the count before or
 * after, never half of it.
 */
static void htbx_feed_count(struct htbx_core_node *cl, int prio, bool in)
{
	struct htbx_bucket *b = cl->bucket, *pb = cl->parent->bucket;
	s64 word, next;
	u32 nodes, counted;

	if (in == !!(cl->infeed & BIT(prio)))
		return;
	if (in)
		cl->infeed |= BIT(prio);
	else
		cl->infeed &= ~BIT(prio);
	word = atomic64_read(&b->infeed[prio]);
	do {
		nodes = htbx_infeed_nodes(word) + (in ? 1 : -1);
		counted = htbx_infeed_quantum(word);
		if (in && nodes == 1)
			counted = READ_ONCE(b->quantum);
		else if (!nodes)
			counted = 0;
		next = htbx_infeed_word(nodes, counted);
	} while (!atomic64_try_cmpxchg(&b->infeed[prio], &word, next));
	if (in && nodes == 1) {
		atomic64_add(counted, &pb->borrow_quanta[prio]);
		htbx_feed_requantum(cl, prio);
	} else if (!nodes) {
		atomic64_sub(htbx_infeed_quantum(word),
			     &pb->borrow_quanta[prio]);
	}
}

/**
 * htbx_share_feed - a node joins or leaves its parent's feeds
 * @cl: the node (cl->bucket set)
 * @mask: the prios of the feeds
 * @in: true: it joins them; false: it leaves them
 *
 * One call per level of an activation: the node's rings are the core's.
 */
void htbx_share_feed(struct htbx_core_node *cl, unsigned long mask, bool in)
{
	for (; mask; mask &= mask - 1)
		htbx_feed_count(cl, __ffs(mask), in);
}

/**
 * htbx_share_mode - a node of a shared class changes its mode
 * @cl: the node (cl->bucket set), cl->cmode still the old mode
 * @new: its new mode
 *
 * A class's nodes on several queues run out of ceil tokens at about the
 * same time, each on its own; the class entered CANT_SEND once, when the
 * first of them did, and that is the overlimit counted (htb counts each
 * entry of a class into CANT_SEND).
 *
 * Return: true when this node is the first of the class's in CANT_SEND.
 */
bool htbx_share_mode(struct htbx_core_node *cl, int new)
{
	bool was = cl->cmode == HTBX_CANT_SEND, is = new == HTBX_CANT_SEND;

	if (was == is)
		return false;
	if (is)
		return atomic_inc_return(&cl->bucket->cant_send) == 1;
	atomic_dec(&cl->bucket->cant_send);
	return false;
}

/**
 * htbx_share_rest - a node at rest is counted nowhere
 * @cl: the node (cl->bucket set), its prio_activity 0 already
 *
 * Its mode becomes CAN_SEND (htbx_node_rest), which the class's count of
 * nodes in CANT_SEND follows.
 */
void htbx_share_rest(struct htbx_core_node *cl)
{
	htbx_share_publish(cl);
	htbx_share_feed(cl, cl->infeed, false);
	htbx_share_mode(cl, HTBX_CAN_SEND);
}

/*
 * mq: leaf @x sent @len bytes on its own rate: advance the class's virtual
 * time (its bucket's rate_sent) by len and x's node's (rate_vtime) by len
 * times the queues x is active on, so a node that takes more than its
 * share of x's rate runs ahead. Its lead
 * is kept under HTBX_VLEAD bytes per active queue, and so is its lag: a
 * queue that sent alone while the others had packets but sent none (held
 * back by their leaves) does not owe them more than that when they
 * start, and one that was starved and leaves does not leave the others
 * owing it more.
 */
#define HTBX_VLEAD	(2 * 1514)

/* @x kept within @lim of @v either way (wrap-safe). */
static u64 htbx_vclamp(u64 x, u64 v, s64 lim)
{
	if ((s64)(x - v) > lim)
		return v + lim;
	if ((s64)(v - x) > lim)
		return v - lim;
	return x;
}

static void htbx_rate_advance(struct htbx_core_node *x, u64 len)
{
	struct htbx_bucket *b = x->bucket;
	u64 v = atomic64_add_return(len, &b->rate_sent);
	int active = atomic_read(&b->nactive);
	u64 n = max_t(int, active, 1);
	u64 lim = n * HTBX_VLEAD;
	u64 was = x->rate_vtime;

	/* lead and lag both bounded: see the comment above */
	x->rate_vtime = htbx_vclamp(was + len * n, v, (s64)lim);
	/*
	 * Only this queue moves x's virtual time, and it moves the sum by
	 * as much while x is counted in it (a leaf's last packet is
	 * charged after it left).
	 */
	if (x->pub_active)
		atomic64_add(x->rate_vtime - was, &b->rate_vtime_sum);
}

/*
 * mq: how much faster than its parent's feed at @prio the virtual time of
 * class @c runs (@node false) or that of c's node (@node true, leaves
 * only), 16.16 fixed point: the inverse of its share. The class's share
 * of the parent's excess is its quantum over the quanta of all children
 * counted in the feed (borrow_quanta); a leaf's nodes that are in one
 * (infeed) split its share equally, as they split its rate
 * (htbx_rate_advance). An inner class's nodes have no share of their
 * own: what each gets follows from its children's shares. At least 1.0
 * (a count another queue is changing may be read half-done); at most
 * 2^16 (a share of 2^-16), so len * factor cannot overflow.
 */
static u64 htbx_borrow_factor(const struct htbx_core_node *c, int prio,
			      bool node)
{
	u64 qn = max_t(u32, READ_ONCE(c->bucket->quantum), 1);
	u64 w = (u64)atomic64_read(&c->parent->bucket->borrow_quanta[prio]);
	u64 n = 1;

	if (node)
		n = max_t(u64, htbx_bucket_infeed(c->bucket, prio), 1);
	w = clamp_t(u64, w, qn, U32_MAX);
	n = min_t(u64, n, 1U << 14);
	return min_t(u64, div64_u64((w * n) << 16, qn), 1ULL << 32);
}

/*
 * mq: how far, in bytes of its own, class @c may run ahead of or behind
 * its share of a parent's excess: its quantum (what DRR lets a class send
 * in one turn and keep as deficit), at least 2 MTU. With TCP's 64 KB GSO
 * packets and quanta that large, less would forget most of a packet at
 * every charge and bend unequal quanta towards one packet each.
 */
static u64 htbx_borrow_lead(const struct htbx_core_node *c)
{
	return clamp_t(u64, READ_ONCE(c->bucket->quantum), HTBX_VLEAD,
		       1U << 24);
}

/*
 * mq: node @c borrowed @len bytes through its parent's feed at @prio.
 * The feed's virtual time (the parent's borrow_sent) grows by len, the
 * class's (its bucket's borrow_vtime) by len times the class's factor
 * (htbx_borrow_factor), so a class that took more than its share of the
 * excess on all queues runs ahead; a leaf's node keeps one more (its
 * borrow_vtime), among the leaf's nodes. As in htbx_rate_advance, lead
 * and lag are kept within a bound (htbx_borrow_lead) in bytes of the
 * class's (node's) own, which also makes up for time spent out of the
 * feed (sending on its own rate, or idle). The class's clamp is one
 * try: a queue that loses the race to another leaves it to that one.
 */
static void htbx_borrow_advance(struct htbx_core_node *c, int prio, u64 len)
{
	atomic64_t *cf = &c->bucket->borrow_vtime[prio];
	u64 v = atomic64_add_return(len,
				    &c->parent->bucket->borrow_sent[prio]);
	u64 f = htbx_borrow_factor(c, prio, false), lead = htbx_borrow_lead(c);
	s64 old, nx;

	old = atomic64_add_return((len * f) >> 16, cf);
	nx = htbx_vclamp(old, v, (lead * f) >> 16);
	if (nx != old)
		atomic64_try_cmpxchg(cf, &old, nx);
	if (c->level)
		return;
	f = htbx_borrow_factor(c, prio, true);
	c->borrow_vtime = htbx_vclamp(c->borrow_vtime + ((len * f) >> 16), v,
				      (lead * f) >> 16);
}

/*
 * mq: class @c, or its node if c is a leaf, took more of its parent's
 * excess than its share, by more than half the lead (htbx_borrow_advance).
 */
static bool htbx_borrowed_ahead(const struct htbx_core_node *c, int prio)
{
	u64 v = (u64)atomic64_read(&c->parent->bucket->borrow_sent[prio]);
	u64 f = htbx_borrow_factor(c, prio, false), lead = htbx_borrow_lead(c);

	if ((s64)(atomic64_read(&c->bucket->borrow_vtime[prio]) - v) >
	    (s64)((lead * f) >> 17))
		return true;
	if (c->level)
		return false;
	f = htbx_borrow_factor(c, prio, true);
	return (s64)(c->borrow_vtime - v) > (s64)((lead * f) >> 17);
}

/**
 * htbx_share_charge - the charge of one packet to a node, on the buckets
 * @c: the node (c->bucket set): the leaf that sent, or one of its ancestors
 * @level: the level of the row the packet was sent from
 * @prio: the prio it was sent at
 * @len: its length, bytes (htbx_pkt_len)
 * @wire: its length on the wire by @c's config (htbx_wire_len)
 * @now: the time, ns
 *
 * htbx_charge's step for a node whose tokens are its class's: the rate
 * bucket at and above the serving level, the ceil bucket on every level,
 * and the virtual times (htbx_rate_advance, htbx_borrow_advance). Leaves
 * the node's tokens as the buckets have them; its mode is the caller's.
 */
void htbx_share_charge(struct htbx_core_node *c, int level, int prio, u32 len,
		       u64 wire, u64 now)
{
	if (c->level >= level) {
		if (c->level == level)
			c->lends++;
		if (!c->level)	/* so level is 0: on its own rate */
			htbx_rate_advance(c, wire);
		c->tokens = htbx_bucket_charge(&c->bucket->rate, now, c->buffer,
					       htbx_xmit_ns_r(c->cfg.rate,
							      c->rate_recip,
							      wire,
							      &c->rate_rem));
	} else {
		c->borrows++;
		htbx_borrow_advance(c, prio, len);
		c->tokens = htbx_bucket_toks(&c->bucket->rate, now, c->buffer);
	}
	c->ctokens = htbx_bucket_charge(&c->bucket->ceil, now, c->cbuffer,
					htbx_xmit_ns_r(c->cfg.ceil,
						       c->ceil_recip, wire,
						       &c->ceil_rem));
	c->t_c = now;
}

/*
 * mq: x, a row member, has at most half its burst unspent; *@at is when
 * its tokens could reach half. Only then may a queue hold back from
 * sending through it (htbx_yield): a queue that is taking x's tokens
 * keeps them below half; one that is not (a leaf holding packets back, a
 * queue the driver stopped) lets them pile up, and then any queue takes
 * what is above half.
 */
static bool htbx_short(const struct htbx_core_node *x, u64 now, u64 *at)
{
	s64 wait = x->buffer / 2 - x->tokens;

	if (wait <= 0)
		return false;
	*at = now + max_t(s64, wait, 1000);
	return true;
}

/*
 * mq: leaf @x's node is ahead of the middle of the class's active nodes
 * by more than half the lead they are allowed (htbx_rate_advance), its
 * rate_vtime - rate_vtime_sum / nactive, taken as nactive x rate_vtime -
 * rate_vtime_sum: the difference of two sums modulo 2^64 is exact, and
 * small. The count is read on both sides of the sum, again while it
 * moves: a node that came or went between the reads would be counted in
 * one and not in the other (htbx_share_publish orders its two writes so
 * that a reader between them errs towards sending). A queue that cannot
 * get a steady count sends.
 */
static bool htbx_vtime_ahead(const struct htbx_core_node *x)
{
	struct htbx_bucket *b = x->bucket;
	int n, tries;
	u64 sum;
	s64 lead;

	for (tries = 0; tries < 3; tries++) {
		n = atomic_read(&b->nactive);
		/* count, sum, count: pairs with htbx_share_publish */
		smp_rmb();
		sum = atomic64_read(&b->rate_vtime_sum);
		/* as above */
		smp_rmb();
		if (n != atomic_read(&b->nactive))
			continue;
		if (n <= 1)
			return false;
		lead = (s64)((u64)n * x->rate_vtime - sum);
		return lead > (s64)n * n * HTBX_VLEAD / 2;
	}
	return false;
}

/*
 * mq: x being short (htbx_short), who on @path (row member first, down
 * the feeds to a leaf) should let the other queues go first at @prio?
 * 0: the row member, because another queue has children of x borrowing
 * at a lower prio (single-queue HTB would serve those first; x above
 * level 0), or x is a leaf whose node on this queue is ahead of the
 * middle of its active nodes (htbx_vtime_ahead: the copies of one
 * leaf share its rate; measured from the middle, not from the
 * class's virtual time, some node is never ahead, whichever nodes left
 * behind); i > 0: path[i], which took more than its share of its
 * parent's excess (htbx_borrowed_ahead: the parent's excess goes by
 * quantum across queues); -1: nobody.
 */
static int htbx_yield(struct htbx_core_node **path, int depth, int prio)
{
	const struct htbx_core_node *x = path[0];
	int p, i;

	for (p = 0; p < prio && x->level; p++)
		if (atomic_read(&x->bucket->demand[p]) >
		    !!(x->published & BIT(p)))
			return 0;
	if (!x->level)
		return htbx_vtime_ahead(x) ? 0 : -1;
	for (i = 1; i < depth; i++)
		if (htbx_borrowed_ahead(path[i], prio))
			return i;
	return -1;
}

/*
 * mq: the row member path[0] is not short (htbx_short): a queue behind
 * this one had the time to take its tokens and did not. What this
 * queue's nodes on @path ran ahead, of a leaf's virtual time (the row
 * member a leaf) or of a parent's feed at @prio (the members below it),
 * is dropped: a lead is owed to nodes behind it, and those may have left
 * (their queue emptied, or the device stopped using it). Kept, it would
 * outlive them: every node left is ahead, each waits for the others
 * while the row member is short, and the row member never spends below
 * half its burst, so it never borrows (harness: a leaf at 5 mbit whose
 * parent had 40 free passed 28).
 */
static void htbx_forgive(struct htbx_core_node **path, int depth, int prio)
{
	struct htbx_core_node *c = path[0];
	atomic64_t *cf;
	u64 v;
	s64 old;
	int i;

	if (!c->level) {
		v = atomic64_read(&c->bucket->rate_sent);
		if ((s64)(c->rate_vtime - v) > 0) {
			if (c->pub_active)
				atomic64_sub(c->rate_vtime - v,
					     &c->bucket->rate_vtime_sum);
			c->rate_vtime = v;
		}
		return;
	}
	for (i = 1; i < depth; i++) {
		c = path[i];
		v = atomic64_read(&c->parent->bucket->borrow_sent[prio]);
		cf = &c->bucket->borrow_vtime[prio];
		old = atomic64_read(cf);
		/* one try: a queue that loses the race leaves it to that one */
		if ((s64)(old - v) > 0)
			atomic64_try_cmpxchg(cf, &old, v);
		if (!c->level && (s64)(c->borrow_vtime - v) > 0)
			c->borrow_vtime = v;
	}
}

/**
 * htbx_share_yield - who on a path lets the other queues go first
 * @path: the row member first, down the feeds to a leaf (path[0]->bucket set)
 * @depth: its length
 * @prio: the prio it is served at
 * @now: the time, ns
 * @at: when to look again, set when the return is not -1
 *
 * Return: -1 when this queue may send through @path; else the index of
 * the member that yields (htbx_yield), while the row member is short of
 * tokens (htbx_short). When it is not, the leads of this queue's nodes
 * on @path end (htbx_forgive).
 */
int htbx_share_yield(struct htbx_core_node **path, int depth, int prio, u64 now,
		     u64 *at)
{
	if (!htbx_short(path[0], now, at)) {
		htbx_forgive(path, depth, prio);
		return -1;
	}
	return htbx_yield(path, depth, prio);
}
