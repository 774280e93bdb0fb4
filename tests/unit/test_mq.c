// SPDX-License-Identifier: GPL-2.0
/*
 * test_mq.c - mq mode in the harness: one class tree scheduled by several
 * cores (one per TX queue), each class's nodes sharing one htbx_bucket.
 * The queues run in turns of STEP of virtual time on a common clock, each
 * with its own link, as TX queues on different CPUs would.
 */
#include "harness.h"

#define NQ	4
#define STEP	(50 * 1000ULL)	/* 50 us */

struct mqtree {
	struct sim		s[NQ];
	struct htbx_bucket	b[8];
	struct tcls		t[NQ][8];
	int			n;
};

/* Class @k (parent @pk, -1: root) on every queue, sharing bucket k. */
static void mq_add(struct mqtree *m, int nq, int k, int pk,
		   const struct htbx_cfg *cfg, u32 len)
{
	int i;

	for (i = 0; i < nq; i++) {
		tc_add(&m->s[i], &m->t[i][k], pk < 0 ? NULL : &m->t[i][pk],
		       cfg, len);
		m->t[i][k].cl.sh = &m->b[k];
	}
	htbx_bucket_fill(&m->b[k], &m->t[0][k].cl, m->s[0].now);
	if (k >= m->n)
		m->n = k + 1;
}

/* Run every queue for @dur from the common start (sim_init's clock). */
static bool mq_run(struct mqtree *m, int nq, u64 dur)
{
	u64 t, t0 = m->s[0].now;
	int i;

	for (t = t0 + STEP; t <= t0 + dur; t += STEP)
		for (i = 0; i < nq; i++)
			if (!sim_run(&m->s[i], t))
				return false;
	return true;
}

/* The measuring window, from the common start. */
static void mq_window(struct mqtree *m, int nq, u64 start, u64 end)
{
	struct tcls *ts[8];
	int i, k;

	start += m->s[0].now;
	end += m->s[0].now;
	for (i = 0; i < nq; i++) {
		for (k = 0; k < m->n; k++)
			ts[k] = &m->t[i][k];
		sim_window(&m->s[i], start, end, ts, m->n);
	}
}

/* Class @k's rate over the window, summed over the queues. */
static double mq_rate(const struct mqtree *m, int nq, int k)
{
	double r = 0;
	int i;

	for (i = 0; i < nq; i++)
		r += win_rate(&m->s[i], &m->t[i][k]);
	return r;
}

static const char *mq_check(struct mqtree *m, int nq)
{
	struct tcls *ts[8];
	const char *e;
	int i, k;

	for (i = 0; i < nq; i++) {
		for (k = 0; k < m->n; k++)
			ts[k] = &m->t[i][k];
		e = core_check(&m->s[i].q, ts, m->n);
		if (e)
			return e;
	}
	return NULL;
}

/* One class, ceil 10 mbit, flows on every queue (each link 100 mbit). */
static bool t_mq_ceil(char *msg, size_t sz)
{
	static struct mqtree m;
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	const char *e;
	double r, q = 0;
	int nq, i;

	for (nq = 1; nq <= NQ; nq *= 2) {
		memset(&m, 0, sizeof(m));
		for (i = 0; i < nq; i++)
			sim_init(&m.s[i], MBIT(100));
		mq_add(&m, nq, 0, -1, &c, 1000);
		for (i = 0; i < nq; i++)
			tc_fill(&m.s[i], &m.t[i][0], INF_PKTS);
		mq_window(&m, nq, 200 * MS, 1200 * MS);
		if (!mq_run(&m, nq, 1200 * MS)) {
			FIG("%d queues: an event in the past", nq);
			return false;
		}
		e = mq_check(&m, nq);
		r = mq_rate(&m, nq, 0);
		if (e || !near(r, MBIT(10), 0.001)) {
			FIG("%d queues: %.4f mbit (want 10, 0.1 %%) %s", nq,
			    r / 125000, e ?: "");
			return false;
		}
		/* the queues share the class fairly (htbx_vtime) */
		for (i = 0; i < nq; i++) {
			q = win_rate(&m.s[i], &m.t[i][0]);
			if (!near(q, r / nq, 0.02)) {
				FIG("%d queues: queue %d %.4f of %.4f mbit (want 1/%d, 2 %%)",
				    nq, i, q / 125000, r / 125000, nq);
				return false;
			}
		}
	}
	FIG("10 mbit class on 2 and 4 queues: %.4f mbit, queue 3 %.4f", r / 125000,
	    q / 125000);
	return true;
}

/*
 * Parent 1:1 (@pc) with leaves A (@ac) and B (@bc), @len-byte packets, A
 * backlogged on @a_queues queues (the first ones, or with @a_last the last
 * ones) and B on every queue, each link 100 mbit; the leaves' rates over
 * 2 s, in mbit. NULL, or what went wrong. The queues take turns in index
 * order, and a queue that goes first sees fresh tokens first.
 */
static const char *mq_pair(struct mqtree *m, const struct htbx_cfg *pc,
			   const struct htbx_cfg *ac, const struct htbx_cfg *bc,
			   u32 len, int a_queues, bool a_last, double *a,
			   double *b)
{
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < NQ; i++)
		sim_init(&m->s[i], MBIT(100));
	mq_add(m, NQ, 0, -1, pc, 0);
	mq_add(m, NQ, 1, 0, ac, len);
	mq_add(m, NQ, 2, 0, bc, len);
	for (i = 0; i < NQ; i++) {
		if (a_last ? i >= NQ - a_queues : i < a_queues)
			tc_fill(&m->s[i], &m->t[i][1], INF_PKTS);
		tc_fill(&m->s[i], &m->t[i][2], INF_PKTS);
	}
	mq_window(m, NQ, 200 * MS, 2200 * MS);
	if (!mq_run(m, NQ, 2200 * MS))
		return "an event in the past";
	*a = mq_rate(m, NQ, 1) / 125000;
	*b = mq_rate(m, NQ, 2) / 125000;
	return mq_check(m, NQ);
}

/*
 * Parent 1:1 rate = ceil 10 mbit; leaves A rate 2 and B rate 6, both ceil
 * 10, equal prio and quantum, A's flows on queues 0 and 1, B's on every
 * queue: the parent carries 10, each leaf at least its rate. HTB would
 * share the excess (2) by quantum, 1 each; across queues it goes to the
 * queue that asks first (quantum across queues is not built: A got 1.0
 * with its queues asking first, 0.5 with the leaves' copies sharing their
 * own rates fairly, 0 asking last). Printed, held to the guarantees.
 */
static bool t_mq_shares(char *msg, size_t sz)
{
	static struct mqtree m;
	struct htbx_cfg pc = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(2), MBIT(10), 0, 1500);
	struct htbx_cfg bc = mkcfg(MBIT(6), MBIT(10), 0, 1500);
	const char *e;
	double p, a = 0, b = 0;

	e = mq_pair(&m, &pc, &ac, &bc, 1000, 2, false, &a, &b);
	p = a + b;	/* what the parent passed: its leaves' packets */
	FIG("parent %.3f (10), A %.3f (>= 2), B %.3f (>= 6) mbit; HTB: 3 and 7 %s",
	    p, a, b, e ?: "");
	return !e && near(p, 10, 0.01) && a >= 2 * 0.98 && b >= 6 * 0.98;
}

/*
 * Prio across queues: 1:10 prio 0 and 1:20 prio 1, rate 5 each, ceil 40,
 * under 1:1 40, 1:20 backlogged on every queue and 1:10 on @a_queues of
 * them: the excess (30) goes to prio 0, as on one queue. With 1:10 on
 * every queue a queue's own prio order is enough; with 1:10 on queue 3
 * only, queues 0-2 see only 1:20 and would lend it the parent's excess
 * as fast as queue 0 lends it to 1:10 (before published prios: 1:10 got
 * 5 + 30 / 4 = 12.5), unless they know a lower prio asks elsewhere.
 */
static bool mq_prio(char *msg, size_t sz, int a_queues)
{
	static struct mqtree m;
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(5), MBIT(40), 0, 1500);
	struct htbx_cfg bc = mkcfg(MBIT(5), MBIT(40), 1, 1500);
	const char *e;
	double a = 0, b = 0;

	int d0, d1, i, k;

	e = mq_pair(&m, &pc, &ac, &bc, 1400, a_queues, true, &a, &b);
	/* 1:1's published demand: prio 0 on a_queues queues, prio 1 on all */
	d0 = atomic_read(&m.b[0].demand[0]);
	d1 = atomic_read(&m.b[0].demand[1]);
	FIG("prio 0 on %d of %d queues %.3f (35), prio 1 on all %.3f (5) mbit, demand %d/%d %s",
	    a_queues, NQ, a, b, d0, d1, e ?: "");
	if (e || !near(a, 35, 0.01) || !near(b, 5, 0.02) ||
	    d0 != a_queues || d1 != NQ)
		return false;
	/* a reset takes back what every node published */
	for (i = 0; i < NQ; i++)
		for (k = 0; k < m.n; k++)
			htbx_core_reset_cls(&m.s[i].q, &m.t[i][k].cl, m.s[i].now);
	for (k = 0; k < m.n; k++)
		for (i = 0; i < HTBX_CORE_NUMPRIO; i++)
			if (atomic_read(&m.b[k].demand[i])) {
				FIG("bucket %d prio %d: demand %d after reset", k,
				    i, atomic_read(&m.b[k].demand[i]));
				return false;
			}
	return true;
}

static bool t_mq_prio(char *msg, size_t sz)
{
	return mq_prio(msg, sz, NQ);
}

static bool t_mq_prio_one(char *msg, size_t sz)
{
	return mq_prio(msg, sz, 1);
}

const struct utest tests_mq[] = {
	{ "mq prio of the excess across queues", t_mq_prio },
	{ "mq prio of the excess, prio 0 on one queue", t_mq_prio_one },
	{ "mq ceil shared by queues", t_mq_ceil },
	{ "mq guarantees and excess across queues", t_mq_shares },
	{ NULL, NULL },
};
