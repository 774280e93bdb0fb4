// SPDX-License-Identifier: GPL-2.0
/*
 * test_tree.c - tree operations under traffic: activation, change, delete,
 * leaf/inner conversions, event budget, reset, 10 000 classes.
 */
#include <time.h>
#include "harness.h"

#define CHECK(s, ts, n) do {						\
	const char *__e = core_check(&(s)->q, ts, n);			\
	if (__e) {							\
		FIG("line %d: invariant: %s", __LINE__, __e);		\
		return false;						\
	}								\
} while (0)

#define RUN(s, t) do {							\
	if (!sim_run(s, t)) {						\
		FIG("line %d: next_event in the past", __LINE__);	\
		return false;						\
	}								\
} while (0)

static double nsec_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e9 + (b.tv_nsec - a->tv_nsec);
}

static bool t_idempotent(char *msg, size_t sz)
{
	struct sim s;
	struct tcls p, a, *all[] = { &p, &a };
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(20), 3, 1500);

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &c, 0);
	tc_add(&s, &a, &p, &c, 1000);
	a.qlen = 5;
	htbx_core_activate(&s.q, &a.cl);
	htbx_core_activate(&s.q, &a.cl);
	CHECK(&s, all, 2);
	if (s.q.row[0][3].n != 1 || s.q.row_mask[0] != BIT(3) ||
	    a.cl.prio_activity != BIT(3))
		return false;
	a.qlen = 0;
	htbx_core_deactivate(&s.q, &a.cl);
	htbx_core_deactivate(&s.q, &a.cl);
	CHECK(&s, all, 2);
	if (s.q.row[0][3].n || s.q.row_mask[0] || p.cl.prio_activity)
		return false;
	/* the same while a borrows (in p's feed) */
	tc_fill(&s, &a, INF_PKTS);
	RUN(&s, s.now + 100 * MS);
	if (a.cl.cmode != HTBX_MAY_BORROW) {
		/* step until it borrows */
		while (a.cl.cmode != HTBX_MAY_BORROW)
			RUN(&s, s.now + 1);
	}
	htbx_core_activate(&s.q, &a.cl);
	CHECK(&s, all, 2);
	if (p.cl.feed[3].n != 1)
		return false;
	tc_empty(&s, &a);
	htbx_core_deactivate(&s.q, &a.cl);
	CHECK(&s, all, 2);
	FIG("double activate/deactivate, in a row and in a feed: structure unchanged");
	return p.cl.feed[3].n == 0 && !s.q.row_mask[1] && !p.cl.prio_activity;
}

/*
 * @n packets in turn to leaves @x and @y, one at a time, each dequeued at
 * once: the leaf that gets one is in @mode, the other inactive, and @r
 * (if given) holds one member; the packet comes out of the leaf it went
 * to. @all (@nall) keep their invariants throughout.
 */
static bool in_turn(struct sim *s, struct tcls **all, int nall,
		    struct tcls *x, struct tcls *y, int n, int mode,
		    const struct htbx_ring *r, char *msg, size_t sz)
{
	struct tpkt *pkt;
	const char *e;
	int i;

	for (i = 0; i < n; i++) {
		struct tcls *t = i & 1 ? y : x, *o = i & 1 ? x : y;

		tc_fill(s, t, 1);
		e = core_check(&s->q, all, nall);
		if (e) {
			FIG("packet %d: invariant: %s", i, e);
			return false;
		}
		if (t->cl.cmode != mode || (r && r->n != 1) ||
		    o->cl.prio_activity) {
			FIG("packet %d: mode %d, want %d; %u in the ring; the leaf emptied before it %sactive",
			    i, t->cl.cmode, mode, r ? r->n : 0,
			    o->cl.prio_activity ? "still " : "in");
			return false;
		}
		pkt = harness_dequeue(&s->q, s->now);
		if (!pkt || pkt->owner != t) {
			FIG("packet %d: not from the leaf that got it", i);
			return false;
		}
		s->now += 8000;
	}
	return true;
}

/*
 * Packets in turn to leaves, one at a time (bench/pps.sh's 64leaves): a
 * leaf that a dequeue empties stays active, but the activation of a leaf
 * that joins the same ring takes it out (the next dequeue finds the new
 * leaf first); one in another ring stays (it may get its next packet
 * before a dequeue looks there). The leaf that gets the next packet
 * itself stays as it is.
 */
static bool t_lazy(char *msg, size_t sz)
{
	struct sim s;
	struct tcls p, a, b, c, *all[] = { &p, &a, &b, &c };
	struct htbx_cfg pc = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);
	struct htbx_cfg bc = mkcfg(1000, MBIT(10000), 0, 1500);
	struct htbx_cfg cc = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);
	struct tpkt *pkt;
	int i;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &bc, 1000);
	tc_add(&s, &b, &p, &bc, 1000);
	tc_add(&s, &c, NULL, &cc, 1000);
	/* a and b in debt at their rate (1000 B/s): they borrow from now on */
	tc_fill(&s, &a, 100);
	tc_fill(&s, &b, 100);
	RUN(&s, s.now + 10 * MS);
	if (!in_turn(&s, all, 4, &a, &b, 40, HTBX_MAY_BORROW, NULL, msg, sz))
		return false;
	/* the same leaf again: it stays active throughout */
	for (i = 0; i < 10; i++) {
		tc_fill(&s, &b, 1);
		pkt = harness_dequeue(&s.q, s.now);
		if (!pkt || pkt->owner != &b || !b.cl.prio_activity)
			return false;
		s.now += 8000;
	}
	/* c can send on its own (row 0), b borrows (p's feed): b stays */
	tc_fill(&s, &c, 1);
	CHECK(&s, all, 4);
	if (c.cl.cmode != HTBX_CAN_SEND || !b.cl.prio_activity) {
		FIG("a leaf in another ring taken out");
		return false;
	}
	pkt = harness_dequeue(&s.q, s.now);
	if (!pkt || pkt->owner != &c)
		return false;
	/* b, found empty, leaves at the next dequeue that meets it */
	tc_fill(&s, &a, 1);
	pkt = harness_dequeue(&s.q, s.now);
	CHECK(&s, all, 4);
	if (!pkt || pkt->owner != &a || b.cl.prio_activity ||
	    c.cl.prio_activity)
		return false;
	FIG("40 packets in turn to 2 borrowing leaves: the emptied one out at the other's activation; not for a leaf in another ring");
	return true;
}

/*
 * Packets in turn to leaves, one at a time, where the leaf served last is
 * its ring's only member: the next leaf takes its place (row 0 for leaves
 * that can send, the parent's feed for borrowers), and the ring keeps one
 * member. With a backlogged leaf in the same ring the emptied one leaves
 * as before, and the backlogged one keeps its DRR share.
 */
static bool t_lazy_replace(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, e, f, a, b, d;
	struct tcls *all[] = { &p, &e, &f, &a, &b, &d };
	struct htbx_cfg pc = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);
	struct htbx_cfg fast = mkcfg(MBIT(5000), MBIT(10000), 0, 1500);
	struct htbx_cfg slow = mkcfg(1000, MBIT(10000), 0, 1500);
	struct htbx_ring *r;
	struct tpkt *pkt;
	u64 fromd = 0, sent;
	int i;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &e, &p, &fast, 1000);
	tc_add(&s, &f, &p, &fast, 1000);
	tc_add(&s, &a, &p, &slow, 1000);
	tc_add(&s, &b, &p, &slow, 1000);
	tc_add(&s, &d, &p, &slow, 1000);
	/* e and f can send: row 0, alone in turn */
	r = &s.q.row[0][0];
	if (!in_turn(&s, all, 6, &e, &f, 20, HTBX_CAN_SEND, r, msg, sz))
		return false;
	/* f, emptied, leaves when the next dequeue finds it so */
	if (harness_dequeue(&s.q, s.now) || f.cl.prio_activity || r->n) {
		FIG("row 0: the last leaf still active after a dequeue found it empty");
		return false;
	}
	CHECK(&s, all, 6);
	/* a and b borrow: p's feed, alone in turn */
	tc_fill(&s, &a, 100);
	tc_fill(&s, &b, 100);
	RUN(&s, s.now + 10 * MS);
	r = &p.cl.feed[0];
	if (!in_turn(&s, all, 6, &a, &b, 20, HTBX_MAY_BORROW, r, msg, sz))
		return false;
	/* d backlogged in the same feed: two a packet's turn, d its share */
	sent = a.packets + b.packets;
	tc_fill(&s, &d, 1000);
	for (i = 0; i < 10; i++) {	/* spends its burst: borrows */
		if (!harness_dequeue(&s.q, s.now))
			return false;
		s.now += 8000;
	}
	if (d.cl.cmode != HTBX_MAY_BORROW) {
		FIG("d does not borrow");
		return false;
	}
	for (i = 0; i < 40; i++) {
		struct tcls *t = i & 1 ? &b : &a;
		int k;

		tc_fill(&s, t, 1);
		CHECK(&s, all, 6);
		if (r->n < 2 || !d.cl.prio_activity) {
			FIG("with d backlogged, packet %d: %u in the ring, d %sactive",
			    i, r->n, d.cl.prio_activity ? "" : "in");
			return false;
		}
		for (k = 0; k < 2; k++) {
			pkt = harness_dequeue(&s.q, s.now);
			if (!pkt) {
				FIG("with d backlogged, packet %d: nothing dequeued", i);
				return false;
			}
			fromd += pkt->owner == &d;
			s.now += 8000;
		}
		CHECK(&s, all, 6);
	}
	if (a.packets + b.packets + a.qlen + b.qlen != sent + 40) {
		FIG("with d backlogged: %llu packets of a and b sent or queued, want %llu",
		    (unsigned long long)(a.packets + b.packets + a.qlen + b.qlen),
		    (unsigned long long)(sent + 40));
		return false;
	}
	/* DRR, quantum 1500 of 1000-byte packets: d about half */
	if (fromd < 36 || fromd > 44) {
		FIG("with d backlogged: %llu of 80 packets from d, want about 40",
		    (unsigned long long)fromd);
		return false;
	}
	FIG("20 packets in turn to 2 leaves in row 0 and 20 to 2 borrowers: one ring member throughout; with a backlogged ring mate, %llu of 80 packets from it",
	    (unsigned long long)fromd);
	return true;
}

/* Rate up and down, prio move, all under backlog. */
static bool t_change(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, b;
	struct tcls *all[] = { &p, &a, &b };
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	struct htbx_cfg bc = mkcfg(MBIT(5), MBIT(40), 1, 1500);
	double r1, r2, r3, b1, b2, b3, a4, b4;

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &ac, 1500);
	tc_add(&s, &b, &p, &bc, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	sim_window(&s, 2 * SEC, 7 * SEC, all, 3);
	RUN(&s, 7 * SEC);
	r1 = win_rate(&s, &a) / MBIT(1);
	b1 = win_rate(&s, &b) / MBIT(1);

	ac = mkcfg(MBIT(20), MBIT(25), 0, 1500);	/* up */
	htbx_core_change(&s.q, &a.cl, &ac, s.now);
	CHECK(&s, all, 3);
	sim_window(&s, 8 * SEC, 13 * SEC, all, 3);
	RUN(&s, 13 * SEC);
	r2 = win_rate(&s, &a) / MBIT(1);
	b2 = win_rate(&s, &b) / MBIT(1);

	ac = mkcfg(MBIT(3), MBIT(4), 0, 1500);		/* down */
	htbx_core_change(&s.q, &a.cl, &ac, s.now);
	CHECK(&s, all, 3);
	sim_window(&s, 14 * SEC, 19 * SEC, all, 3);
	RUN(&s, 19 * SEC);
	r3 = win_rate(&s, &a) / MBIT(1);
	b3 = win_rate(&s, &b) / MBIT(1);

	/* A to ceil 40 at prio 2, below B: B (prio 1) now takes the excess */
	ac = mkcfg(MBIT(3), MBIT(40), 2, 1500);
	htbx_core_change(&s.q, &a.cl, &ac, s.now);
	CHECK(&s, all, 3);
	sim_window(&s, 20 * SEC, 25 * SEC, all, 3);
	RUN(&s, 25 * SEC);
	CHECK(&s, all, 3);
	a4 = win_rate(&s, &a) / MBIT(1);
	b4 = win_rate(&s, &b) / MBIT(1);
	FIG("A 10/10 -> 20/25 -> 3/4 -> 3/40 prio2: A %.3f %.3f %.3f %.3f, B %.3f %.3f %.3f %.3f mbit",
	    r1, r2, r3, a4, b1, b2, b3, b4);
	return near(r1, 10, 1e-3) && near(b1, 30, 1e-3) &&
	       near(r2, 25, 1e-3) && near(b2, 15, 2e-3) &&
	       near(r3, 4, 1e-3) && near(b3, 36, 1e-3) &&
	       near(a4, 3, 1e-3) && near(b4, 37, 1e-3);
}

/* An inner class's rate and ceil change under its children's backlog. */
static bool t_change_inner(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls r, p, a, b;
	struct tcls *all[] = { &r, &p, &a, &b };
	struct htbx_cfg rc = mkcfg(MBIT(100), MBIT(100), 0, 1500);
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(5), MBIT(100), 0, 1500);
	double s1, s2, s3;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &r, NULL, &rc, 0);
	tc_add(&s, &p, &r, &pc, 0);
	tc_add(&s, &a, &p, &c, 1500);
	tc_add(&s, &b, &p, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	sim_window(&s, 2 * SEC, 7 * SEC, all, 4);
	RUN(&s, 7 * SEC);
	s1 = (win_rate(&s, &a) + win_rate(&s, &b)) / MBIT(1);
	pc = mkcfg(MBIT(20), MBIT(20), 0, 1500);
	htbx_core_change(&s.q, &p.cl, &pc, s.now);
	CHECK(&s, all, 4);
	sim_window(&s, 8 * SEC, 13 * SEC, all, 4);
	RUN(&s, 13 * SEC);
	s2 = (win_rate(&s, &a) + win_rate(&s, &b)) / MBIT(1);
	pc = mkcfg(MBIT(20), MBIT(70), 0, 1500);
	htbx_core_change(&s.q, &p.cl, &pc, s.now);
	CHECK(&s, all, 4);
	sim_window(&s, 14 * SEC, 19 * SEC, all, 4);
	RUN(&s, 19 * SEC);
	CHECK(&s, all, 4);
	s3 = (win_rate(&s, &a) + win_rate(&s, &b)) / MBIT(1);
	FIG("children of P sum: P 40/40 %.3f, 20/20 %.3f, 20/70 %.3f mbit",
	    s1, s2, s3);
	return near(s1, 40, 1e-3) && near(s2, 20, 1e-3) && near(s3, 70, 1e-3);
}

static bool t_delete_busy(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, b;
	struct tcls *all[] = { &p, &b };
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(40), 0, 1500);
	double rb;
	bool last;

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &c, 1500);
	tc_add(&s, &b, &p, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	RUN(&s, 3 * SEC + 12345);
	/* the glue purges the queue, then deletes */
	tc_empty(&s, &a);
	last = htbx_core_del(&s.q, &a.cl, s.now);
	memset(&a, 0xa5, sizeof(a));	/* poison: the core must not touch it */
	CHECK(&s, all, 2);
	sim_window(&s, 4 * SEC, 9 * SEC, all, 2);
	RUN(&s, 9 * SEC);
	CHECK(&s, all, 2);
	rb = win_rate(&s, &b) / MBIT(1);
	FIG("A deleted mid-backlog; B alone %.3f mbit, parent children %u", rb,
	    p.cl.children);
	return !last && near(rb, 40, 1e-3) && p.cl.children == 1;
}

/* leaf P with traffic -> inner (child C) -> leaf again -> inner again */
static bool t_convert(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls r, p, c;
	struct tcls *all[] = { &r, &p, &c };
	struct htbx_cfg rc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg pc = mkcfg(MBIT(10), MBIT(20), 0, 1500);
	struct htbx_cfg cc = mkcfg(MBIT(5), MBIT(30), 0, 1500);
	double r1, r2, r3, r4;
	bool back;

	sim_init(&s, MBIT(100));
	tc_add(&s, &r, NULL, &rc, 0);
	tc_add(&s, &p, &r, &pc, 1500);
	tc_fill(&s, &p, INF_PKTS);
	sim_window(&s, 2 * SEC, 4 * SEC, all, 3);
	RUN(&s, 4 * SEC + 777);
	r1 = win_rate(&s, &p) / MBIT(1);		/* ceil 20 */

	tc_add(&s, &c, &p, &cc, 1000);		/* purges P, P becomes inner */
	CHECK(&s, all, 3);
	if (p.cl.level != 6 || r.cl.level != 7 || c.cl.level)
		return false;
	tc_fill(&s, &c, INF_PKTS);
	sim_window(&s, 5 * SEC, 8 * SEC, all, 3);
	RUN(&s, 8 * SEC);
	CHECK(&s, all, 3);
	r2 = win_rate(&s, &c) / MBIT(1);		/* P's ceil 20 */

	tc_empty(&s, &c);
	back = htbx_core_del(&s.q, &c.cl, s.now);
	CHECK(&s, all, 2);
	if (!back || p.cl.level || p.cl.cmode != HTBX_CAN_SEND ||
	    p.cl.tokens != p.cl.buffer)
		return false;
	tc_fill(&s, &p, INF_PKTS);
	sim_window(&s, 9 * SEC, 12 * SEC, all, 2);
	RUN(&s, 12 * SEC);
	CHECK(&s, all, 2);
	r3 = win_rate(&s, &p) / MBIT(1);

	tc_add(&s, &c, &p, &cc, 1000);
	tc_fill(&s, &c, INF_PKTS);
	sim_window(&s, 13 * SEC, 16 * SEC, all, 3);
	RUN(&s, 16 * SEC);
	CHECK(&s, all, 3);
	r4 = win_rate(&s, &c) / MBIT(1);
	FIG("P leaf %.3f, P inner (child) %.3f, leaf again %.3f, inner again %.3f mbit",
	    r1, r2, r3, r4);
	return near(r1, 20, 1e-3) && near(r2, 20, 1e-3) &&
	       near(r3, 20, 1e-3) && near(r4, 20, 1e-3);
}

/* 200 classes due at the same instant, none backlogged. */
static bool t_budget(char *msg, size_t sz)
{
	enum { N = 200 };
	static struct sim s;
	static struct tcls c[N];
	struct tcls *all[N];
	struct htbx_cfg cfg = mkcfg(MBIT(1), MBIT(1), 0, 1500);
	u64 due, calls = 0;
	int i;

	cfg.burst = 1000;
	cfg.cburst = 1000;
	sim_init(&s, 0);
	for (i = 0; i < N; i++) {
		tc_add(&s, &c[i], NULL, &cfg, 1500);
		all[i] = &c[i];
		tc_fill(&s, &c[i], 1);
	}
	/* each sends one packet at once and goes over ceil */
	for (i = 0; i < N; i++)
		if (!htbx_core_dequeue(&s.q, s.now))
			return false;
	CHECK(&s, all, N);
	due = s.q.events->key;
	for (i = 0; i < N; i++)
		if (!c[i].cl.in_pq || c[i].cl.pq.key != due)
			return false;
	s.now = due;
	while (htbx_core_dequeue(&s.q, s.now) == NULL && s.q.next_event == s.now) {
		calls++;
		if (calls > N)
			return false;
	}
	CHECK(&s, all, N);
	FIG("%d due at once: %llu calls returned next_event=now (budget %d), budget_hits %llu, then next_event %llu",
	    N, (unsigned long long)calls, HTBX_EVENT_BUDGET,
	    (unsigned long long)s.q.budget_hits, (unsigned long long)s.q.next_event);
	return calls == (N - 1) / HTBX_EVENT_BUDGET && s.q.next_event == 0 &&
	       s.q.budget_hits == calls && !s.q.events;
}

/* A leaf whose queue gives nothing (non-work-conserving) must not stall. */
static bool t_nonwc(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, b;
	struct tcls *all[] = { &p, &a, &b };
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(40), 0, 1500);
	double rb;

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &c, 1500);
	tc_add(&s, &b, &p, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	a.nonwc = true;
	sim_window(&s, 2 * SEC, 7 * SEC, all, 3);
	RUN(&s, 7 * SEC);
	CHECK(&s, all, 3);
	rb = win_rate(&s, &b) / MBIT(1);
	FIG("A's queue holds packets but yields none: B %.3f mbit, A %llu", rb,
	    (unsigned long long)a.win_bytes);
	return near(rb, 40, 1e-3) && !a.win_bytes;
}

static bool t_reset_xstats(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, b;
	struct tcls *all[] = { &p, &a, &b };
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(40), 0, 1500);
	struct tc_htbx_xstats xs;
	int i;

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &c, 1500);
	tc_add(&s, &b, &p, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	RUN(&s, 2 * SEC + 333);
	htbx_node_xstats(&a.cl, &xs);
	if (xs.version != HTBX_VERSION || !xs.lends || !xs.borrows ||
	    xs.quantum != 1500 || xs.tokens != a.cl.tokens || xs.mode != (u32)a.cl.cmode)
		return false;
	for (i = 0; i < 3; i++) {
		all[i]->qlen = 0;
		htbx_core_reset_node(&s.q, &all[i]->cl, s.now);
	}
	htbx_core_reset(&s.q);
	CHECK(&s, all, 3);
	if (s.q.events || s.q.row_mask[0] || s.q.row_mask[7] ||
	    p.cl.tokens != p.cl.buffer || a.cl.ctokens != a.cl.cbuffer)
		return false;
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	sim_window(&s, 4 * SEC, 9 * SEC, all, 3);
	RUN(&s, 9 * SEC);
	CHECK(&s, all, 3);
	FIG("xstats ok (lends %llu borrows %llu); after reset A %.3f B %.3f mbit",
	    (unsigned long long)xs.lends, (unsigned long long)xs.borrows,
	    win_rate(&s, &a) / MBIT(1), win_rate(&s, &b) / MBIT(1));
	return near(win_rate(&s, &a), MBIT(20), 1e-3) &&
	       near(win_rate(&s, &b), MBIT(20), 1e-3);
}

static bool t_stats(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls r, p, a, b;
	struct tcls *all[] = { &r, &p, &a, &b };
	struct htbx_cfg rc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg pc = mkcfg(MBIT(20), MBIT(40), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(5), MBIT(40), 0, 1500);

	sim_init(&s, MBIT(100));
	tc_add(&s, &r, NULL, &rc, 0);
	tc_add(&s, &p, &r, &pc, 0);
	tc_add(&s, &a, &p, &c, 1500);
	tc_add(&s, &b, &p, &c, 1700);	/* above mtu 1600: giants */
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	RUN(&s, 5 * SEC);
	CHECK(&s, all, 4);
	FIG("A %llu pkts = %llu lends + %llu borrows; P %llu = A + B, lends %llu borrows %llu; root lends %llu; B giants %llu",
	    (unsigned long long)a.packets, (unsigned long long)a.cl.lends,
	    (unsigned long long)a.cl.borrows, (unsigned long long)p.packets,
	    (unsigned long long)p.cl.lends, (unsigned long long)p.cl.borrows,
	    (unsigned long long)r.cl.lends, (unsigned long long)b.cl.giants);
	return a.cl.lends + a.cl.borrows == a.packets &&
	       b.cl.lends + b.cl.borrows == b.packets &&
	       p.packets == a.packets + b.packets &&
	       p.bytes == a.bytes + b.bytes &&
	       r.packets == p.packets && r.cl.borrows == 0 &&
	       p.cl.lends + p.cl.borrows + a.cl.lends + b.cl.lends == p.packets &&
	       r.cl.lends == p.cl.borrows && p.cl.borrows > 0 &&
	       b.cl.giants == b.packets && !a.cl.giants &&
	       a.bytes == a.packets * 1500;
}

/* 100 inner x 100 leaves at 1 mbit each, under a 10 gbit root. */
static bool t_10k(char *msg, size_t sz)
{
	enum { NI = 100, NL = 100, N = NI * NL };
	static struct sim s;
	static struct tcls root, in[NI], lf[N];
	static struct tcls *all[N + NI + 1];
	struct htbx_cfg rc = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);
	struct htbx_cfg ic = mkcfg(MBIT(100), MBIT(10000), 0, 1500);
	struct htbx_cfg lc;
	struct timespec t0;
	double add_ns, run_ns, del_ns, total, minr = 1e18, maxr = 0;
	u64 deq0;
	int i, j, n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	sim_init(&s, MBIT(20000));
	tc_add(&s, &root, NULL, &rc, 0);
	all[n++] = &root;
	for (i = 0; i < NI; i++) {
		tc_add(&s, &in[i], &root, &ic, 0);
		all[n++] = &in[i];
		for (j = 0; j < NL; j++) {
			lc = mkcfg(MBIT(1), MBIT(10000), j % 8, 1500);
			tc_add(&s, &lf[i * NL + j], &in[i], &lc, 1500);
			all[n++] = &lf[i * NL + j];
		}
	}
	for (i = 0; i < N; i++)
		tc_fill(&s, &lf[i], INF_PKTS);
	add_ns = nsec_since(&t0);
	CHECK(&s, all, n);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	deq0 = s.dequeues;
	sim_window(&s, 1 * SEC + 200 * MS, 2 * SEC + 200 * MS, all, n);
	RUN(&s, 2 * SEC + 200 * MS);
	run_ns = nsec_since(&t0);
	CHECK(&s, all, n);
	total = 0;
	for (i = 0; i < N; i++) {
		double r = win_rate(&s, &lf[i]);

		total += r;
		if (r < minr)
			minr = r;
		if (r > maxr)
			maxr = r;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = N - 1; i >= 0; i--) {
		tc_empty(&s, &lf[i]);
		if (htbx_core_del(&s.q, &lf[i].cl, s.now) != (i % NL == 0))
			return false;
	}
	for (i = 0; i < NI; i++)
		if (htbx_core_del(&s.q, &in[i].cl, s.now) != (i == NI - 1))
			return false;
	del_ns = nsec_since(&t0);
	if (s.q.events && s.q.events != &root.cl.pq)
		return false;
	for (i = 0; i < HTBX_CORE_MAXDEPTH; i++)
		if (s.q.row_mask[i])
			return false;
	FIG("%d leaves: total %.2f mbit (root 10000), leaf min %.3f max %.3f mbit; add %.1f ms, %llu dequeues in %.1f ms (%.0f ns each), delete %.1f ms",
	    N, total / MBIT(1), minr / MBIT(1), maxr / MBIT(1), add_ns / 1e6,
	    (unsigned long long)(s.dequeues - deq0), run_ns / 1e6,
	    run_ns / (s.dequeues - deq0), del_ns / 1e6);
	return near(total, MBIT(10000), 2e-3) && minr >= MBIT(1) * 0.99 &&
	       root.cl.children == 0;
}

const struct utest tests_tree[] = {
	{ "activate/deactivate idempotent", t_idempotent },
	{ "an emptied leaf leaves at the next activation", t_lazy },
	{ "an emptied leaf alone in its ring: the next leaf takes its place", t_lazy_replace },
	{ "change under backlog", t_change },
	{ "change of an inner class", t_change_inner },
	{ "delete a backlogged leaf", t_delete_busy },
	{ "leaf/inner conversions", t_convert },
	{ "event budget", t_budget },
	{ "non-work-conserving leaf", t_nonwc },
	{ "reset and xstats", t_reset_xstats },
	{ "statistics", t_stats },
	{ "10000 classes", t_10k },
	{ NULL, NULL },
};
