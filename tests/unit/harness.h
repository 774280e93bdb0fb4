/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - drives htbx_core.h with fake leaf queues, a virtual clock and
 * a virtual link. Everything is deterministic: time only moves when the
 * link sends a packet or when the scheduler asks to be woken up.
 */
#ifndef _HTBX_HARNESS_H
#define _HTBX_HARNESS_H

#include "kshim.h"
#include <linux/pkt_sched_htbx.h>

struct htbx_cls;
static inline void *htbx_leaf_dequeue(struct htbx_cls *cl);
static inline u32 htbx_pkt_len(const void *pkt);
static inline u32 htbx_leaf_qlen(const struct htbx_cls *cl);

#include "htbx_core.h"

#define MBIT(x)		((u64)(x) * 125000ULL)	/* mbit/s in bytes/s */
#define NS		1ULL
#define MS		1000000ULL
#define SEC		1000000000ULL
#define INF_PKTS	(~0ULL >> 2)

struct tcls;

struct tpkt {
	u32		len;
	struct tcls	*owner;
};

/* A class plus its fake leaf queue. */
struct tcls {
	struct htbx_cls	cl;
	u64		qlen;		/* packets queued (INF_PKTS: endless) */
	u32		len;		/* packet length, unless pattern */
	u32		(*pattern)(struct tcls *t, u64 seq);
	bool		nonwc;		/* dequeue returns NULL */
	u64		seq;		/* packets handed out */
	struct tpkt	pkt;		/* the one handed out last */
	u64		win_bytes;	/* sent inside the measuring window */
	u64		win_pkts;
	u64		last_tx;	/* time of its last packet */
	u64		first_tx;
	u64		at_start_bytes;	/* sent at the first instant it sent */
};

static inline struct tcls *to_tcls(const struct htbx_cls *cl)
{
	return container_of(cl, struct tcls, cl);
}

static inline void *htbx_leaf_dequeue(struct htbx_cls *cl)
{
	struct tcls *t = to_tcls(cl);

	if (!t->qlen || t->nonwc)
		return NULL;
	t->qlen--;
	t->pkt.len = t->pattern ? t->pattern(t, t->seq) : t->len;
	t->pkt.owner = t;
	t->seq++;
	return &t->pkt;
}

static inline u32 htbx_pkt_len(const void *pkt)
{
	return ((const struct tpkt *)pkt)->len;
}

static inline u32 htbx_leaf_qlen(const struct htbx_cls *cl)
{
	u64 q = to_tcls(cl)->qlen;

	return q > U32_MAX ? U32_MAX : (u32)q;
}

struct sim {
	struct htbx_core q;
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
const char *core_check(const struct htbx_core *q, struct tcls **ts, int n);
/* ... and that no event is late at @now. */
const char *core_check_time(const struct htbx_core *q, struct tcls **ts, int n,
			    u64 now);

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
