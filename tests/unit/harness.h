/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - drives htbx_core.c with fake leaf queues, a virtual clock and
 * a virtual link; htbx_hooks.h here defines the hooks htbx_core.h asks
 * for. Everything is deterministic: time only moves when the link sends a
 * packet or when the scheduler asks to be woken up.
 */
#ifndef _HTBX_HARNESS_H
#define _HTBX_HARNESS_H

#include "kshim.h"
#include <linux/pkt_sched_htbx.h>

#include "htbx_core.h"

#define MBIT(x)		((u64)(x) * 125000ULL)	/* mbit/s in bytes/s */
#define NS		1ULL
#define MS		1000000ULL
#define SEC		1000000000ULL
#define INF_PKTS	(~0ULL >> 2)

/* xorshift64*: each test file keeps its own state, so each is repeatable. */
static inline u64 xorshift64s(u64 *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 2685821657736338717ULL;
}

struct tcls;

/*
 * Leaf queues that re-enter the core from their dequeue, as codel,
 * fq_codel and netem do in the kernel (qdisc_tree_reduce_backlog ->
 * qlen_notify -> htbx_core_deactivate):
 */
enum treenter {
	RE_NONE,
	RE_DEACT_NULL,		/* deactivate own class, keep packets, NULL */
	RE_DROP_REST,		/* drop all but one, deactivate, return it */
	RE_DROP_ALL,		/* drop everything, deactivate, NULL */
	RE_RANDOM,		/* one of the above or none, by seq */
};

struct tpkt {
	u32		len;
	struct tcls	*owner;
};

/* A class plus its fake leaf queue. */
struct tcls {
	struct htbx_core_node	cl;
	u64		qlen;		/* packets queued (INF_PKTS: endless) */
	u32		len;		/* packet length, unless pattern */
	u32		(*pattern)(struct tcls *t, u64 seq);
	bool		nonwc;		/* dequeue returns NULL */
	enum treenter	reenter;	/* what dequeue does to the core */
	u32		segs;		/* segments per packet (GSO), 0: 1 */
	struct htbx_core_queue *core;		/* for reenter: set by tc_add */
	u64		drops;		/* packets dropped by reenter */
	u64		bytes;		/* sent (htbx_node_sent) */
	u64		packets;	/* sent, in segments */
	u64		seq;		/* packets handed out */
	struct tpkt	pkt;		/* the one handed out last */
	u64		win_bytes;	/* sent inside the measuring window */
	u64		win_pkts;
	u64		last_tx;	/* time of its last packet */
	u64		first_tx;
	u64		at_start_bytes;	/* sent at the first instant it sent */
};

static inline struct tcls *to_tcls(const struct htbx_core_node *cl)
{
	return container_of(cl, struct tcls, cl);
}

/*
 * Every test's htbx_core_dequeue goes through harness_dequeue, which
 * bounds the leaf dequeues one call may make (a loop in the core aborts
 * the test run instead of hanging it).
 */
#define HARNESS_MAX_LEAF_CALLS	(2 * 4096 + 64)
void *harness_dequeue(struct htbx_core_queue *q, u64 now);
#ifndef HARNESS_NO_WRAP
#define htbx_core_dequeue(q, now)	harness_dequeue(q, now)
#endif

struct sim {
	struct htbx_core_queue q;
	u64		now;
	u64		link;		/* bytes/s, 0: infinitely fast */
	u64		link_rem;
	u64		win_start, win_end;	/* measuring window */
	u64		dequeues, nulls;
};

void sim_init(struct sim *s, u64 link);
/* A class with rate/ceil (bytes/s), default burst, quantum, prio. */
struct htbx_cfg mkcfg(u64 rate, u64 ceil, u32 prio, u32 quantum);
void tc_add(struct sim *s, struct tcls *t, struct tcls *parent,
	    const struct htbx_cfg *cfg, u32 len);
void tc_fill(struct sim *s, struct tcls *t, u64 pkts);
void tc_empty(struct sim *s, struct tcls *t);
/* Run until @until; false if the scheduler misbehaved. */
bool sim_run(struct sim *s, u64 until);
void sim_window(struct sim *s, u64 start, u64 end, struct tcls **ts, int n);
double win_rate(const struct sim *s, const struct tcls *t); /* bytes/s */
/* Structural invariants of the core; returns a message or NULL. */
const char *core_check(const struct htbx_core_queue *q, struct tcls **ts,
		       int n);
/* ... and that no event is late at @now. */
const char *core_check_time(const struct htbx_core_queue *q, struct tcls **ts,
			    int n, u64 now);

/* ---- TAP ---- */
struct utest {
	const char *name;
	bool (*fn)(char *msg, size_t sz);
};

#define FIG(...) snprintf(msg, sz, __VA_ARGS__)

static inline bool near(double got, double want, double rel)
{
	double d = got - want;

	if (d < 0)
		d = -d;
	return d <= rel * (want < 0 ? -want : want);
}

#endif /* _HTBX_HARNESS_H */
