// SPDX-License-Identifier: GPL-2.0
/* harness.c - virtual link, class helpers, invariant checks (hooks: htbx_hooks.h). */
#define HARNESS_NO_WRAP
#include "harness.h"

unsigned long kshim_warnings;
long kshim_fence;
/* per thread: tsan_mq.c runs one core per thread */
__thread u64 harness_leaf_calls;

void *harness_dequeue(struct htbx_core_queue *q, u64 now)
{
	harness_leaf_calls = 0;
	return htbx_core_dequeue(q, now);
}

void sim_init(struct sim *s, u64 link)
{
	*s = (struct sim){ .link = link, .now = 1 * SEC };
	htbx_core_init(&s->q);
	s->win_end = ~0ULL;
}

struct htbx_cfg mkcfg(u64 rate, u64 ceil, u32 prio, u32 quantum)
{
	struct htbx_cfg c = {
		.rate = rate,
		.ceil = ceil,
		.prio = prio,
		.quantum = quantum,
		.mtu = HTBX_DEFAULT_MTU,
	};

	c.burst = htbx_default_burst(rate, c.mtu);
	c.cburst = htbx_default_burst(ceil, c.mtu);
	return c;
}

void tc_add(struct sim *s, struct tcls *t, struct tcls *parent,
	    const struct htbx_cfg *cfg, u32 len)
{
	memset(t, 0, sizeof(*t));
	t->core = &s->q;
	htbx_node_setup(&t->cl, cfg);
	if (parent && !parent->cl.children) {
		/* the glue purges a leaf that gets children */
		parent->qlen = 0;
		htbx_core_deactivate(&s->q, &parent->cl);
	}
	htbx_core_add(&s->q, &t->cl, parent ? &parent->cl : NULL, s->now);
	t->len = len;
}

void tc_fill(struct sim *s, struct tcls *t, u64 pkts)
{
	t->qlen += pkts;
	if (t->qlen)
		htbx_core_activate(&s->q, &t->cl);
}

void tc_empty(struct sim *s, struct tcls *t)
{
	t->qlen = 0;
	htbx_core_deactivate(&s->q, &t->cl);
}

void sim_window(struct sim *s, u64 start, u64 end, struct tcls **ts, int n)
{
	int i;

	s->win_start = start;
	s->win_end = end;
	for (i = 0; i < n; i++) {
		ts[i]->win_bytes = 0;
		ts[i]->win_pkts = 0;
	}
}

double win_rate(const struct sim *s, const struct tcls *t)
{
	return (double)t->win_bytes * SEC / (double)(s->win_end - s->win_start);
}

bool sim_run(struct sim *s, u64 until)
{
	struct tpkt *p;
	u64 ns, r;

	while (s->now < until) {
		p = harness_dequeue(&s->q, s->now);
		s->dequeues++;
		if (!p) {
			s->nulls++;
			if (!s->q.next_event)
				s->now = until;		/* idle */
			else if (s->q.next_event > s->now)
				s->now = s->q.next_event;
			else if (s->q.next_event < s->now)
				return false;		/* must never be in the past */
			continue;
		}
		if (!p->owner->seq || !p->owner->first_tx) {
			if (!p->owner->first_tx)
				p->owner->first_tx = s->now;
		}
		if (s->now == p->owner->first_tx)
			p->owner->at_start_bytes += p->len;
		p->owner->last_tx = s->now;
		if (s->now >= s->win_start && s->now < s->win_end) {
			p->owner->win_bytes += p->len;
			p->owner->win_pkts++;
		}
		if (s->link) {
			ns = div64_u64_rem((u64)p->len * SEC + s->link_rem, s->link, &r);
			s->link_rem = r;
			s->now += ns;
		}
	}
	return true;
}

static int list_len(const struct list_head *h)
{
	const struct list_head *p;
	int n = 0;

	list_for_each(p, h)
		n++;
	return n;
}

static bool on_list(const struct list_head *h, const struct list_head *e)
{
	const struct list_head *p;

	list_for_each(p, h)
		if (p == e)
			return true;
	return false;
}

static int pq_count(const struct htbx_pq_node *n, u64 min, const char **err)
{
	int c = 0;

	for (; n; n = n->next) {
		if (n->key < min)
			*err = "heap order violated";
		c += 1 + pq_count(n->child, n->key, err);
	}
	return c;
}

const char *core_check(const struct htbx_core_queue *q, struct tcls **ts,
		       int n)
{
	const char *err = NULL;
	int i, prio, level, inpq = 0;

	for (level = 0; level < HTBX_CORE_MAXDEPTH; level++) {
		for (prio = 0; prio < HTBX_CORE_NUMPRIO; prio++) {
			const struct htbx_ring *r = &q->row[level][prio];

			if ((int)r->n != list_len(&r->head))
				return "row count";
			if (!!(q->row_mask[level] & BIT(prio)) != !!r->n)
				return "row_mask";
		}
		if (!!(q->level_mask & BIT(level)) != !!q->row_mask[level])
			return "level_mask";
	}
	if (pq_count(q->events, 0, &err) < 0 || err)
		return err ? err : "heap";
	for (i = 0; i < n; i++) {
		const struct htbx_core_node *c = &ts[i]->cl;
		const struct htbx_core_node *p = c->parent;

		if (c->in_pq != (c->cmode != HTBX_CAN_SEND))
			return "in_pq iff not CAN_SEND";
		inpq += c->in_pq;
		/* single queue: a leaf that emptied stays active until
		 * another leaf activates or a dequeue finds it empty; mq:
		 * it leaves at once */
		if (!c->level && !c->prio_activity && ts[i]->qlen &&
		    !ts[i]->nonwc && !ts[i]->reenter)
			return "backlogged leaf inactive";
		if (!c->level && c->prio_activity && !ts[i]->qlen &&
		    c->bucket && !ts[i]->nonwc)
			return "mq: empty leaf active";
		for (prio = 0; prio < HTBX_CORE_NUMPRIO; prio++) {
			bool act = c->prio_activity & BIT(prio);
			bool in_row = on_list(&q->row[c->level][prio].head,
					      &c->ring_node[prio]);
			bool in_feed = p && on_list(&p->feed[prio].head,
						    &c->ring_node[prio]);

			if (in_row != (act && c->cmode == HTBX_CAN_SEND))
				return "row membership";
			if (in_feed != (act && c->cmode == HTBX_MAY_BORROW && p))
				return "feed membership";
			if (c->level) {
				if ((int)c->feed[prio].n != list_len(&c->feed[prio].head))
					return "feed count";
				if (act != !!c->feed[prio].n)
					return "inner active iff feed";
			}
		}
	}
	if (ts && inpq != pq_count(q->events, 0, &err))
		return "heap size";
	/* a deleted class must not stay there (its memory is gone) */
	for (i = 0; ts && q->lazy && i < n && &ts[i]->cl != q->lazy; i++)
		;
	if (ts && q->lazy && (i == n || q->lazy->level || q->lazy->bucket))
		return "lazy: not a known single-queue leaf";
	return NULL;
}

const char *core_check_time(const struct htbx_core_queue *q, struct tcls **ts,
			    int n, u64 now)
{
	const char *e = core_check(q, ts, n);
	int i, mode;
	s64 wait;

	if (e)
		return e;
	for (i = 0; i < n; i++) {
		const struct htbx_core_node *c = &ts[i]->cl;

		mode = htbx_core_mode(c, now, &wait);
		/* an event may come early, never late */
		if (c->in_pq && c->pq.key > now && mode != c->cmode)
			return "event later than the mode change";
		if (c->cmode == HTBX_CAN_SEND && mode != HTBX_CAN_SEND)
			return "CAN_SEND class that cannot send";
	}
	return NULL;
}
