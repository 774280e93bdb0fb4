/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htbx_hooks.h - the harness's hooks of the scheduling core (contract in
 * htbx_core.h): fake leaf queues of struct tcls. htbx_core.c includes
 * this by name, found through the harness's -I of tests/unit (the
 * kernel's are include/htbx_hooks.h), so that they inline into the core
 * as the kernel's do.
 */
#ifndef _HTBX_HARNESS_HOOKS_H
#define _HTBX_HARNESS_HOOKS_H

/* htbx_core.c defines htbx_core_dequeue: no tests' wrapper here */
#define HARNESS_NO_WRAP
#include "harness.h"

/* leaf dequeues in this thread's current dequeue call (harness_dequeue) */
extern __thread u64 harness_leaf_calls;

static inline void *htbx_leaf_dequeue(struct htbx_core_node *cl)
{
	struct tcls *t = to_tcls(cl);
	enum treenter re = t->reenter;

	if (++harness_leaf_calls > HARNESS_MAX_LEAF_CALLS) {
		fprintf(stderr, "htbx_leaf_dequeue: %llu calls in one dequeue\n",
			(unsigned long long)harness_leaf_calls);
		abort();
	}
	if (re == RE_RANDOM)
		re = (enum treenter)((t->seq * 2654435761u >> 7) % RE_RANDOM);
	if (!t->qlen || t->nonwc)
		return NULL;
	switch (re) {
	case RE_DEACT_NULL:
		t->seq++;
		htbx_core_deactivate(t->core, cl);
		return NULL;
	case RE_DROP_ALL:
		t->drops += t->qlen;
		t->qlen = 0;
		t->seq++;
		htbx_core_deactivate(t->core, cl);
		return NULL;
	case RE_DROP_REST:
		t->drops += t->qlen - 1;
		t->qlen = 0;
		htbx_core_deactivate(t->core, cl);
		break;
	default:
		t->qlen--;
		break;
	}
	t->pkt.len = t->pattern ? t->pattern(t, t->seq) : t->len;
	t->pkt.owner = t;
	t->seq++;
	return &t->pkt;
}

static inline u32 htbx_pkt_len(const void *pkt)
{
	return ((const struct tpkt *)pkt)->len;
}

static inline u32 htbx_pkt_segs(const void *pkt)
{
	u32 segs = ((const struct tpkt *)pkt)->owner->segs;

	return segs ? segs : 1;
}

static inline u32 htbx_leaf_qlen(const struct htbx_core_node *cl)
{
	u64 q = to_tcls(cl)->qlen;

	return q > U32_MAX ? U32_MAX : (u32)q;
}

static inline void htbx_node_sent(struct htbx_core_node *cl, u32 len, u32 segs)
{
	struct tcls *t = to_tcls(cl);

	t->bytes += len;
	t->packets += segs;
}

#endif /* _HTBX_HARNESS_HOOKS_H */
