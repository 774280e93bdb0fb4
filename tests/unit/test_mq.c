// SPDX-License-Identifier: GPL-2.0
/*
 * test_mq.c - mq mode in the harness: one class tree scheduled by several
 * cores (one per TX queue), each class's nodes sharing one htbx_bucket.
 * The queues run in turns of STEP of virtual time on a common clock, each
 * with its own link, as TX queues on different CPUs would.
 */
#include <math.h>

#include "harness.h"
#include "htbx_share.h"

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
		m->t[i][k].cl.bucket = &m->b[k];
	}
	htbx_bucket_fill(&m->b[k], &m->t[0][k].cl, m->s[0].now);
	if (k >= m->n)
		m->n = k + 1;
}

/* Every class's node on every queue reset, as the qdisc's reset does. */
static void mq_reset(struct mqtree *m, int nq)
{
	int i, k;

	for (i = 0; i < nq; i++)
		for (k = 0; k < m->n; k++)
			htbx_core_reset_node(&m->s[i].q, &m->t[i][k].cl,
					     m->s[i].now);
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

/*
 * What the shared buckets count, recounted from the nodes: each class's
 * cant_send is the number of its nodes in CANT_SEND, its infeed the
 * number in a feed at that prio, a parent's borrow_quanta the quanta
 * of its children counted there, and a leaf's rate_vtime_sum the sum of
 * its active nodes' virtual times.
 */
static const char *mq_counts(struct mqtree *m, int nq)
{
	static char why[128];
	int i, k, j, pr, n;
	s64 w;

	for (k = 0; k < m->n; k++) {
		/* rate_vtime_sum: the active nodes' virtual times, summed */
		for (w = 0, i = 0; i < nq; i++)
			if (m->t[i][k].cl.pub_active)
				w += m->t[i][k].cl.rate_vtime;
		if (w != atomic64_read(&m->b[k].rate_vtime_sum)) {
			snprintf(why, sizeof(why),
				 "class %d: rate_vtime_sum %lld (nodes %lld)", k,
				 (long long)atomic64_read(&m->b[k].rate_vtime_sum),
				 (long long)w);
			return why;
		}
		for (n = 0, i = 0; i < nq; i++)
			n += m->t[i][k].cl.cmode == HTBX_CANT_SEND;
		if (n != atomic_read(&m->b[k].cant_send)) {
			snprintf(why, sizeof(why),
				 "class %d: cant_send %d (nodes %d)", k,
				 atomic_read(&m->b[k].cant_send), n);
			return why;
		}
		for (pr = 0; pr < HTBX_CORE_NUMPRIO; pr++) {
			for (n = 0, i = 0; i < nq; i++)
				n += !!(m->t[i][k].cl.infeed & BIT(pr));
			for (w = 0, j = 0; j < m->n; j++)
				if (m->t[0][j].cl.parent == &m->t[0][k].cl &&
				    (int)htbx_bucket_infeed(&m->b[j], pr))
					w += m->b[j].quantum;
			if (n == (int)htbx_bucket_infeed(&m->b[k], pr) &&
			    w == atomic64_read(&m->b[k].borrow_quanta[pr]))
				continue;
			snprintf(why, sizeof(why),
				 "class %d prio %d: infeed %d (nodes %d), weight %lld (children %lld)",
				 k, pr, (int)htbx_bucket_infeed(&m->b[k], pr), n,
				 (long long)atomic64_read(
					 &m->b[k].borrow_quanta[pr]),
				 (long long)w);
			return why;
		}
	}
	return NULL;
}

/* After a reset of every node, nothing is counted in the buckets. */
static bool mq_reset_clean(struct mqtree *m, int nq, char *msg, size_t sz)
{
	const char *e;

	mq_reset(m, nq);
	e = mq_counts(m, nq);
	if (e)
		FIG("after reset: %s", e);
	return !e;
}

/* @m afresh: class 0 of config @c on @nq queues (100 mbit links), backlogged. */
static void mq_one_class(struct mqtree *m, int nq, const struct htbx_cfg *c)
{
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < nq; i++)
		sim_init(&m->s[i], MBIT(100));
	mq_add(m, nq, 0, -1, c, 1000);
	for (i = 0; i < nq; i++)
		tc_fill(&m->s[i], &m->t[i][0], INF_PKTS);
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
		mq_one_class(&m, nq, &c);
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
		/* the queues share the class fairly (htbx_rate_advance) */
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
 * with @pkts packets (INF_PKTS: endless) on @a_queues queues (the first ones, or with @a_last the last
 * ones) and B on every queue, each link 100 mbit; the leaves' rates over
 * @win, in mbit. NULL, or what went wrong. The queues take turns in index
 * order, and a queue that goes first sees fresh tokens first.
 */
static const char *mq_pair(struct mqtree *m, const struct htbx_cfg *pc,
			   const struct htbx_cfg *ac, const struct htbx_cfg *bc,
			   u32 len, u64 pkts, int a_queues, bool a_last,
			   u64 win, double *a, double *b)
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
			tc_fill(&m->s[i], &m->t[i][1], pkts);
		tc_fill(&m->s[i], &m->t[i][2], pkts);
	}
	mq_window(m, NQ, 200 * MS, 200 * MS + win);
	if (!mq_run(m, NQ, 200 * MS + win))
		return "an event in the past";
	*a = mq_rate(m, NQ, 1) / 125000;
	*b = mq_rate(m, NQ, 2) / 125000;
	return mq_check(m, NQ);
}

/*
 * Parent 1:1 rate = ceil 10 mbit; leaves A rate 2 and B rate 6, both ceil
 * 10, equal prio, A's flows on two of the four queues (the first ones or
 * the last ones: a queue that goes first sees fresh tokens first), B's on
 * every queue. HTB shares the parent's excess (2) by quantum: with equal
 * quanta 1 each (A 3, B 7), with A's quantum three times B's 1.5 and 0.5
 * (A 3.5, B 6.5). Before quantum across queues the excess went by the
 * order the queues asked in: A 2.5 asking first, 2.0 asking last.
 */
static bool mq_shares(char *msg, size_t sz, u32 aq, bool a_last,
		      double want_a)
{
	static struct mqtree m;
	struct htbx_cfg pc = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(2), MBIT(10), 0, aq);
	struct htbx_cfg bc = mkcfg(MBIT(6), MBIT(10), 0, 1500);
	const char *e;
	double p, a = 0, b = 0;

	e = mq_pair(&m, &pc, &ac, &bc, 1000, INF_PKTS, 2, a_last, 2000 * MS,
		    &a, &b);
	p = a + b;	/* what the parent passed: its leaves' packets */
	FIG("A on queues %s, quantum %u: parent %.3f (10), A %.3f (%.1f), B %.3f (%.1f) mbit %s",
	    a_last ? "2-3" : "0-1", aq, p, a, want_a, b, 10 - want_a,
	    e ?: "");
	if (e || !near(p, 10, 0.01) || !near(a, want_a, 0.02) ||
	    !near(b, 10 - want_a, 0.02))
		return false;
	return mq_reset_clean(&m, NQ, msg, sz);
}

/*
 * TCP-sized packets (60 KB, a GSO skb) and quanta near them, as tc
 * derives them from rates: 1:1 40 mbit, A rate 8 quantum 150000 on two
 * queues, B rate 24 quantum 50000 on all, bursts of 200 KB (a burst
 * under a packet loses tokens while the links carry 5 ms packets, on one
 * queue too); the excess 8 goes 3 : 1, A 14, B 26, over 8 s. With the
 * lead bounded at 2 MTU instead of the quantum, every charge forgot most
 * of a packet: one packet each (65 and 65 borrowed), A 11.88, B 27.90.
 */
static bool t_mq_shares_gso(char *msg, size_t sz)
{
	static struct mqtree m;
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(8), MBIT(40), 0, 150000);
	struct htbx_cfg bc = mkcfg(MBIT(24), MBIT(40), 0, 50000);
	const char *e;
	double a = 0, b = 0;

	ac.burst = ac.cburst = bc.burst = bc.cburst = 200000;
	e = mq_pair(&m, &pc, &ac, &bc, 60000, INF_PKTS, 2, false, 8000 * MS,
		    &a, &b);
	FIG("A %.3f (14), B %.3f (26) mbit %s", a, b, e ?: "");
	return !e && near(a, 14, 0.02) && near(b, 26, 0.02) &&
	       mq_reset_clean(&m, NQ, msg, sz);
}

static bool t_mq_shares(char *msg, size_t sz)
{
	return mq_shares(msg, sz, 1500, false, 3);
}

static bool t_mq_shares_last(char *msg, size_t sz)
{
	return mq_shares(msg, sz, 1500, true, 3);
}

static bool t_mq_shares_quantum(char *msg, size_t sz)
{
	return mq_shares(msg, sz, 4500, false, 3.5);
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
/* The two prios' tree: 1:1 40 mbit, 1:10 prio 0 and 1:20 prio 1 rate 5. */
static void mq_prio_cfg(struct htbx_cfg *pc, struct htbx_cfg *ac,
			struct htbx_cfg *bc)
{
	*pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	*ac = mkcfg(MBIT(5), MBIT(40), 0, 1500);
	*bc = mkcfg(MBIT(5), MBIT(40), 1, 1500);
}

static bool mq_prio(char *msg, size_t sz, int a_queues)
{
	static struct mqtree m;
	struct htbx_cfg pc, ac, bc;
	const char *e;
	double a = 0, b = 0;

	int d0, d1, i, k;

	mq_prio_cfg(&pc, &ac, &bc);
	e = mq_pair(&m, &pc, &ac, &bc, 1400, INF_PKTS, a_queues, true,
		    2000 * MS, &a, &b);
	/*
	 * 1:1's published demand: prio 0 on a_queues queues, prio 1 on all.
	 * A node of 1:20 sends on its own rate now and then (it has 5 of
	 * its own), and is out of 1:1's feed while it does: prio 1 must be
	 * published on every queue at once within 10 ms, not at one instant.
	 */
	d0 = atomic_read(&m.b[0].demand[0]);
	d1 = atomic_read(&m.b[0].demand[1]);
	for (k = 0; !e && d1 != NQ && k < 200; k++) {
		if (!mq_run(&m, NQ, STEP))
			e = "an event in the past";
		d1 = atomic_read(&m.b[0].demand[1]);
	}
	FIG("prio 0 on %d of %d queues %.3f (35), prio 1 on all %.3f (5) mbit, demand %d/%d %s",
	    a_queues, NQ, a, b, d0, d1, e ?: "");
	if (e || !near(a, 35, 0.01) || !near(b, 5, 0.02) ||
	    d0 != a_queues || d1 != NQ)
		return false;
	/* a reset takes back what every node published */
	mq_reset(&m, NQ);
	for (k = 0; k < m.n; k++)
		for (i = 0; i < HTBX_CORE_NUMPRIO; i++)
			if (atomic_read(&m.b[k].demand[i])) {
				FIG("bucket %d prio %d: demand %d after reset", k,
				    i, atomic_read(&m.b[k].demand[i]));
				return false;
			}
	return true;
}

/*
 * The same two prios with a finite backlog: 1:10 and 1:20 each 800
 * packets on every queue (@a_queues of them for 1:10), then nothing more.
 * At 40 mbit that is 1.8 s of traffic; after 6 s every node must have
 * sent all of it: a queue that waits for a lower prio asking elsewhere
 * must see it stop asking.
 */
static bool mq_prio_drain(char *msg, size_t sz, int a_queues)
{
	static struct mqtree m;
	struct htbx_cfg pc, ac, bc;
	const char *e;
	double a, b;
	u64 left = 0;
	int i;

	mq_prio_cfg(&pc, &ac, &bc);
	e = mq_pair(&m, &pc, &ac, &bc, 1400, 800, a_queues, false,
		    5800 * MS, &a, &b);
	for (i = 0; i < NQ; i++)
		left += m.t[i][1].qlen + m.t[i][2].qlen;
	FIG("prio 0 on %d of %d queues, prio 1 on all, 800 packets each: %llu left after 6 s %s",
	    a_queues, NQ, (unsigned long long)left, e ?: "");
	return !e && !left;
}

static bool t_mq_prio_drain(char *msg, size_t sz)
{
	return mq_prio_drain(msg, sz, NQ) && mq_prio_drain(msg, sz, 1);
}

static bool t_mq_prio(char *msg, size_t sz)
{
	return mq_prio(msg, sz, NQ);
}

static bool t_mq_prio_one(char *msg, size_t sz)
{
	return mq_prio(msg, sz, 1);
}

/*
 * Three levels: 1:1 rate = ceil 20 mbit over 1:10 (inner, rate 4,
 * quantum 1500) and the leaf 1:20 (rate 4, quantum 3000); under 1:10 the
 * leaves 1:11 and 1:12 (rate 1, quantum 1500 each). 1:20 sends on queue
 * 0, 1:11 on every queue, 1:12 on queues 2 and 3. Across queues every
 * class's excess goes to its borrowing children by their quanta, an
 * inner child with its own: 1:1's excess 12 is 8 for 1:20 and 4 for
 * 1:10, whose 4 + 4 its leaves share equally: 12 / 4 / 4 mbit; after
 * 1:20's quantum drops to 1000 under traffic, 4 + 12 * 1000 / 2500 = 8.8
 * and 5.6 / 5.6. Held within 2 % of the parent, the buckets' counts
 * matching the nodes all along. One queue (the core without shared
 * buckets, DRR over the leaves below a lender) is printed beside it: it
 * gives 1:10's leaves more (11 / 4.5 / 4.5 and 7 / 6.5 / 6.5).
 */
static bool t_mq_deep(char *msg, size_t sz)
{
	static struct mqtree m;
	static const int par[5] = { -1, 0, 0, 1, 1 };
	struct htbx_cfg c[5] = {
		mkcfg(MBIT(20), MBIT(20), 0, 1500),
		mkcfg(MBIT(4), MBIT(20), 0, 1500),
		mkcfg(MBIT(4), MBIT(20), 0, 3000),
		mkcfg(MBIT(1), MBIT(20), 0, 1500),
		mkcfg(MBIT(1), MBIT(20), 0, 1500),
	};
	/* queues each leaf's flows arrive on, by mode: one queue, mq */
	static const unsigned int on[5] = { 0, 0, 0x1, 0xf, 0xc };
	static const double want[2][5] = {
		{ 0, 0, 12, 4, 4 }, { 0, 0, 8.8, 5.6, 5.6 },
	};
	double r[2][2][5];
	struct htbx_cfg nc;
	const char *e;
	int mode, ph, nq, i, k;

	for (mode = 0; mode < 2; mode++) {
		nq = mode ? NQ : 1;
		memset(&m, 0, sizeof(m));
		for (i = 0; i < nq; i++)
			sim_init(&m.s[i], MBIT(100));
		for (k = 0; k < 5; k++)
			mq_add(&m, nq, k, par[k], &c[k], k >= 2 ? 1000 : 0);
		for (i = 0; i < nq && !mode; i++)
			for (k = 0; k < 5; k++)
				m.t[i][k].cl.bucket = NULL;
		for (i = 0; i < nq; i++)
			for (k = 2; k < 5; k++)
				if (!mode || (on[k] & BIT(i)))
					tc_fill(&m.s[i], &m.t[i][k], INF_PKTS);
		for (ph = 0; ph < 2; ph++) {
			if (ph) {
				nc = c[2];
				nc.quantum = 1000;
				for (i = 0; i < nq; i++)
					htbx_core_change(&m.s[i].q, &m.t[i][2].cl,
							 &nc, m.s[i].now);
			}
			mq_window(&m, nq, 200 * MS, 1200 * MS);
			if (!mq_run(&m, nq, 1200 * MS)) {
				FIG("%s: an event in the past", mode ? "mq" : "one queue");
				return false;
			}
			e = mq_check(&m, nq);
			if (!e && mode)
				e = mq_counts(&m, nq);
			if (e) {
				FIG("%s, phase %d: %s", mode ? "mq" : "one queue", ph, e);
				return false;
			}
			for (k = 2; k < 5; k++)
				r[mode][ph][k] = mq_rate(&m, nq, k) / 125000;
		}
	}
	FIG("1:20 1:11 1:12, one queue %.3f %.3f %.3f, mq %.3f %.3f %.3f; quantum 1000: %.3f %.3f %.3f, mq %.3f %.3f %.3f mbit",
	    r[0][0][2], r[0][0][3], r[0][0][4], r[1][0][2], r[1][0][3], r[1][0][4],
	    r[0][1][2], r[0][1][3], r[0][1][4], r[1][1][2], r[1][1][3], r[1][1][4]);
	for (ph = 0; ph < 2; ph++)
		for (k = 2; k < 5; k++)
			if (fabs(r[1][ph][k] - want[ph][k]) > 20 * 0.02)
				return false;
	return mq_reset_clean(&m, NQ, msg, sz);
}

/*
 * A burst raised on an idle class gives it no tokens it did not have.
 * The shared bucket keeps an empty time, and one far back would be worth
 * all of the new burst at once; single-queue htbx (and htb) keep tokens,
 * capped at the burst they had. 10 mbit on two 1 gbit queues, idle for a
 * second, burst and cburst raised to 1 MB, then backlogged: over 10 ms
 * it may send its old burst, 10 ms of its rate and a packet per queue.
 */
static bool t_mq_burst_raised(char *msg, size_t sz)
{
	static struct mqtree m;
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	u64 bytes = 0, most;
	int i;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < 2; i++)
		sim_init(&m.s[i], MBIT(1000));
	mq_add(&m, 2, 0, -1, &c, 1000);
	if (!mq_run(&m, 2, 1000 * MS)) {
		FIG("idle: an event in the past");
		return false;
	}
	most = c.cburst + MBIT(10) / 100 + 2 * 1000;
	c.burst = 1000000;
	c.cburst = 1000000;
	for (i = 0; i < 2; i++)
		htbx_core_change(&m.s[i].q, &m.t[i][0].cl, &c, m.s[i].now);
	for (i = 0; i < 2; i++)
		tc_fill(&m.s[i], &m.t[i][0], INF_PKTS);
	if (!mq_run(&m, 2, 10 * MS)) {
		FIG("backlogged: an event in the past");
		return false;
	}
	for (i = 0; i < 2; i++)
		bytes += m.t[i][0].bytes;
	FIG("10 ms after the burst went from %u to 1000000 bytes: %llu bytes sent (at most %llu)",
	    mkcfg(MBIT(10), MBIT(10), 0, 1500).cburst,
	    (unsigned long long)bytes, (unsigned long long)most);
	return bytes <= most;
}

/*
 * A reset of one queue leaves the class's shared buckets alone: when the
 * real queue count shrinks, qdisc_reset_all_tx_gt() resets the queues
 * above it while the others send, and a refill there would cancel the
 * debt of every class on every queue (the review modelled a 10 mbit
 * ceiling passing 12.6 mbit with one queue reset every 10 ms). 10 mbit
 * class backlogged on four 100 mbit queues, queue 3's nodes reset (and
 * its core, as htbx_queue_reset does) every 10 ms: 10 mbit within 1 %.
 */
static bool t_mq_queue_reset(char *msg, size_t sz)
{
	static struct mqtree m;
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	u64 t, t0;
	double r;

	mq_one_class(&m, NQ, &c);
	mq_window(&m, NQ, 200 * MS, 1200 * MS);
	t0 = m.s[0].now;
	for (t = 0; t < 1200 * MS; t += 10 * MS) {
		if (!mq_run(&m, NQ, 10 * MS)) {
			FIG("an event in the past");
			return false;
		}
		htbx_core_reset_node(&m.s[NQ - 1].q, &m.t[NQ - 1][0].cl,
				     m.s[NQ - 1].now);
		htbx_core_reset(&m.s[NQ - 1].q);
		/* its leaf is fed again at once (a flood) */
		htbx_core_activate(&m.s[NQ - 1].q, &m.t[NQ - 1][0].cl);
	}
	r = mq_rate(&m, NQ, 0);
	FIG("queue %d reset every 10 ms for %.1f s: %.4f mbit (ceil 10, 1 %%)",
	    NQ - 1, (double)(m.s[0].now - t0) / 1e9, r / 125000);
	return near(r, MBIT(10), 0.01);
}

/* @m afresh: no classes, every queue on a 100 mbit link. */
static void mq_fresh(struct mqtree *m)
{
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < NQ; i++)
		sim_init(&m->s[i], MBIT(100));
}

/*
 * Leaf @k of @m's tree backlogged with @fill packets on queues 0 .. NQ-2,
 * leaf @kl fed @n packets every @ms on the last queue for @dur ms, then
 * nothing; class @k's rate over the second after (from 100 ms on), in
 * mbit. NULL, or what went wrong.
 */
static const char *mq_laggard(struct mqtree *m, int k, int kl, u64 fill,
			      u32 n, u64 ms, u64 dur, double *r)
{
	u64 t;
	int i;

	for (i = 0; i < NQ - 1; i++)
		tc_fill(&m->s[i], &m->t[i][k], fill);
	for (t = 0; t < dur * MS; t += ms * MS) {
		tc_fill(&m->s[NQ - 1], &m->t[NQ - 1][kl], n);
		if (!mq_run(m, NQ, ms * MS))
			return "an event in the past";
	}
	mq_window(m, NQ, 100 * MS, 1100 * MS);
	if (!mq_run(m, NQ, 1100 * MS))
		return "an event in the past";
	*r = mq_rate(m, NQ, k) / 125000;
	return mq_counts(m, NQ);
}

/*
 * A queue that leaves a class behind, 1000-byte packets, 100 mbit links.
 * Leaf: 1:1 rate = ceil 40 mbit, 1:10 rate 5 ceil 40 under it (class 1),
 * backlogged on queues 0-2; queue 3 gets a packet every 2 ms (4 mbit,
 * under its share of 10) for 500 ms, and then nothing. Its node sends
 * less than its share while it is active, so the nodes on queues 0-2 run
 * ahead of the class's virtual time (htbx_rate_advance); when it leaves,
 * they still are. Over the next second 1:10 must get its ceiling, 40
 * mbit within 1 %, as on one queue: a node ahead of the class yields only
 * to a node behind it, and there is none (before htbx_forgive: 28.288).
 * Feed (@feed): 1:2 rate 10 ceil 40 under 1:1 (class 1), and below it A
 * and B rate 1 ceil 40 (classes 2 and 3), A on queues 0-2, B on queue 3
 * as above: both borrow from 1:2, A more than its share of 1:2's excess
 * while B is there (htbx_borrow_advance). When B has left, A must get 40
 * within 1 %: 1:2 lends to A alone, and borrows from 1:1 once its own 10
 * are spent (before htbx_forgive: 10.000, 1:2's rate).
 */
static const char *mq_laggard_tree(struct mqtree *m, bool feed, double *r)
{
	struct htbx_cfg top = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg mid = mkcfg(MBIT(10), MBIT(40), 0, 1500);
	struct htbx_cfg leaf = mkcfg(MBIT(feed ? 1 : 5), MBIT(40), 0, 1500);

	mq_fresh(m);
	mq_add(m, NQ, 0, -1, &top, 0);
	if (!feed) {
		mq_add(m, NQ, 1, 0, &leaf, 1000);
		return mq_laggard(m, 1, 1, INF_PKTS, 1, 2, 500, r);
	}
	mq_add(m, NQ, 1, 0, &mid, 0);
	mq_add(m, NQ, 2, 1, &leaf, 1000);
	mq_add(m, NQ, 3, 1, &leaf, 1000);
	return mq_laggard(m, 2, 3, INF_PKTS, 1, 2, 500, r);
}

static bool t_mq_laggard_leaves(char *msg, size_t sz)
{
	static struct mqtree m;
	double a = 0, b = 0;
	const char *e = mq_laggard_tree(&m, false, &a);

	if (!e)
		e = mq_laggard_tree(&m, true, &b);
	FIG("after queue 3 left: 1:10 on queues 0-2 %.3f mbit (ceil 40), through 1:2 A %.3f (40), 1 %% %s",
	    a, b, e ?: "");
	return !e && near(a, 40, 0.01) && near(b, 40, 0.01);
}

/*
 * The same with the kernel suite's tree (suite-mq: burst and cburst 15k,
 * 1400-byte packets): 1:10 holds 10000 packets on each of queues 0-2 and
 * is fed on queue 3 for a second, @n packets every @ms, then nothing;
 * over the second after, the backlog must drain at 40 mbit within 1 %.
 * With the leads measured from the class's virtual time, forgiving them
 * when the leaf was over half full was not enough: each queue woke at
 * its poll, found itself behind the other two, sent one packet and was
 * ahead again, and the three kept the leaf under half its burst at its
 * own rate: 2 packets every 5 ms gave 5.006 mbit, 1 every 10 ms 27.496
 * (5.10, the flow hash feeding one of four queues a fifth of the
 * others' packets: the backlog drained at 5 mbit of 40). Measured from
 * the middle of the active nodes (rate_vtime_sum), some node is never
 * ahead.
 */
static const char *mq_laggard_drain(struct mqtree *m, u32 n, u64 ms,
				    double *r)
{
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg lc = mkcfg(MBIT(5), MBIT(40), 0, 1500);

	pc.burst = pc.cburst = lc.burst = lc.cburst = 15360;
	mq_fresh(m);
	mq_add(m, NQ, 0, -1, &pc, 0);
	mq_add(m, NQ, 1, 0, &lc, 1400);
	return mq_laggard(m, 1, 1, 10000, n, ms, 1000, r);
}

static bool t_mq_laggard_drain(char *msg, size_t sz)
{
	static struct mqtree m;
	const char *e;
	double a = 0, b = 0;

	e = mq_laggard_drain(&m, 2, 5, &a);
	if (!e)
		e = mq_laggard_drain(&m, 1, 10, &b);
	FIG("backlog on queues 0-2 after queue 3 left, fed 2 packets / 5 ms: %.3f, 1 / 10 ms: %.3f mbit (ceil 40, 1 %%) %s",
	    a, b, e ?: "");
	return !e && near(a, 40, 0.01) && near(b, 40, 0.01);
}

/*
 * Overlimits count a class's entries into CANT_SEND, as htb's do, once
 * per class: one class, ceil 10 mbit, backlogged on 1 and on 4 queues
 * (100 mbit links) for 1 s. On 4 queues its nodes run out of tokens each
 * on its own; counted per node they gave 2338 against one queue's 1251.
 * At most 1.5 times one queue's, the qdisc's the class's, and the
 * buckets' count of nodes in CANT_SEND right.
 */
static bool t_mq_overlimits(char *msg, size_t sz)
{
	static struct mqtree m;
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	u64 cls[NQ + 1] = {}, qd[NQ + 1] = {};
	const char *e;
	int nq, i;

	for (nq = 1; nq <= NQ; nq *= 4) {
		mq_one_class(&m, nq, &c);
		if (!mq_run(&m, nq, 1000 * MS))
			return false;
		for (i = 0; i < nq; i++) {
			cls[nq] += m.t[i][0].cl.overlimits;
			qd[nq] += m.s[i].q.overlimits;
		}
		e = mq_counts(&m, nq);
		if (e) {
			FIG("%d queues: %s", nq, e);
			return false;
		}
	}
	FIG("overlimits of the class, 1 queue: %llu (qdisc %llu); 4 queues: %llu (qdisc %llu)",
	    (unsigned long long)cls[1], (unsigned long long)qd[1],
	    (unsigned long long)cls[NQ], (unsigned long long)qd[NQ]);
	return cls[NQ] <= cls[1] * 3 / 2 + 1 && qd[NQ] == cls[NQ];
}

const struct utest tests_mq[] = {
	{ "mq overlimits: once per class", t_mq_overlimits },
	{ "mq prio of the excess across queues", t_mq_prio },
	{ "mq prio of the excess, prio 0 on one queue", t_mq_prio_one },
	{ "mq prio across queues drains", t_mq_prio_drain },
	{ "mq ceil shared by queues", t_mq_ceil },
	{ "mq excess by quantum across queues", t_mq_shares },
	{ "mq excess by quantum, the borrower's queues ask last", t_mq_shares_last },
	{ "mq excess by quantum, unequal quanta", t_mq_shares_quantum },
	{ "mq excess by quantum, 60 KB packets", t_mq_shares_gso },
	{ "mq excess by quantum on three levels, quantum changed", t_mq_deep },
	{ "mq burst raised on an idle class: no credit for idle time", t_mq_burst_raised },
	{ "mq one queue reset under traffic: the ceiling holds", t_mq_queue_reset },
	{ "mq a queue that sent less than its share leaves, a leaf and a feed", t_mq_laggard_leaves },
	{ "mq a backlog drains after a queue that sent less left", t_mq_laggard_drain },
	{ NULL, NULL },
};
