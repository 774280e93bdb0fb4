// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched.c - bandwidth sharing: rates, shares, borrowing, ceil, prio,
 * DRR, burst, depth, drift and length rules, on the virtual link.
 */
#include "harness.h"

#define CHECK(s, ts, n) do {						\
	const char *__e = core_check(&(s)->q, ts, n);			\
	if (__e) {							\
		FIG("invariant: %s", __e);				\
		return false;						\
	}								\
} while (0)

/* parent P (rate p), two children with rates/ceils; measured 1..11 s. */
struct two {
	struct sim s;
	struct tcls p, a, b;
	struct tcls *all[3];
};

static bool two_run(struct two *t, u64 link, struct htbx_cfg pc,
		    struct htbx_cfg ac, struct htbx_cfg bc, bool a_on, bool b_on)
{
	sim_init(&t->s, link);
	tc_add(&t->s, &t->p, NULL, &pc, 0);
	tc_add(&t->s, &t->a, &t->p, &ac, 1500);
	tc_add(&t->s, &t->b, &t->p, &bc, 1500);
	t->all[0] = &t->p;
	t->all[1] = &t->a;
	t->all[2] = &t->b;
	if (a_on)
		tc_fill(&t->s, &t->a, INF_PKTS);
	if (b_on)
		tc_fill(&t->s, &t->b, INF_PKTS);
	sim_window(&t->s, 2 * SEC, 12 * SEC, t->all, 3);
	return sim_run(&t->s, 12 * SEC) && !core_check(&t->s.q, t->all, 3);
}

static bool t_single_rates(char *msg, size_t sz)
{
	static const u64 mbits[] = { 5, 20, 50 };
	double r[3];
	int i;

	for (i = 0; i < 3; i++) {
		struct sim s;
		struct tcls a, *all[] = { &a };
		struct htbx_cfg c = mkcfg(MBIT(mbits[i]), MBIT(mbits[i]), 0, 1500);

		sim_init(&s, MBIT(1000));
		tc_add(&s, &a, NULL, &c, 1000 + 17 * i);
		tc_fill(&s, &a, INF_PKTS);
		sim_window(&s, 2 * SEC, 12 * SEC, all, 1);
		if (!sim_run(&s, 12 * SEC))
			return false;
		r[i] = win_rate(&s, &a) / MBIT(mbits[i]);
	}
	FIG("5/20/50 mbit got %.5f %.5f %.5f of rate", r[0], r[1], r[2]);
	return near(r[0], 1, 1e-3) && near(r[1], 1, 1e-3) && near(r[2], 1, 1e-3);
}

static bool t_shares(char *msg, size_t sz)
{
	static struct two t, u;
	double ra, rb, ua, ub;

	/* no excess: 10 + 30 = 40 */
	if (!two_run(&t, MBIT(100), mkcfg(MBIT(40), MBIT(40), 0, 1500),
		     mkcfg(MBIT(10), MBIT(40), 0, 1500),
		     mkcfg(MBIT(30), MBIT(40), 0, 1500), true, true))
		return false;
	ra = win_rate(&t.s, &t.a);
	rb = win_rate(&t.s, &t.b);
	/* excess 20 split by quanta 1:3 */
	if (!two_run(&u, MBIT(100), mkcfg(MBIT(40), MBIT(40), 0, 1500),
		     mkcfg(MBIT(5), MBIT(40), 0, 5000),
		     mkcfg(MBIT(15), MBIT(40), 0, 15000), true, true))
		return false;
	ua = win_rate(&u.s, &u.a);
	ub = win_rate(&u.s, &u.b);
	FIG("10/30 of 40: %.4f:%.4f mbit ratio %.5f; 5/15 of 40 + excess by quantum: %.4f:%.4f ratio %.5f",
	    ra / MBIT(1), rb / MBIT(1), rb / ra, ua / MBIT(1), ub / MBIT(1), ub / ua);
	return near(rb / ra, 3, 1e-3) && near(ub / ua, 3, 1e-3) &&
	       near(ra + rb, MBIT(40), 1e-3) && near(ua + ub, MBIT(40), 1e-3);
}

static bool t_borrow(char *msg, size_t sz)
{
	static struct two alone, both;
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(10), MBIT(40), 0, 1500);
	struct htbx_cfg bc = mkcfg(MBIT(30), MBIT(40), 0, 1500);
	double a1, a2, b2;

	if (!two_run(&alone, MBIT(100), pc, ac, bc, true, false) ||
	    !two_run(&both, MBIT(100), pc, ac, bc, true, true))
		return false;
	a1 = win_rate(&alone.s, &alone.a) / MBIT(1);
	a2 = win_rate(&both.s, &both.a) / MBIT(1);
	b2 = win_rate(&both.s, &both.b) / MBIT(1);
	FIG("A alone %.3f mbit (borrows %llu); both A %.3f B %.3f mbit",
	    a1, (unsigned long long)alone.a.cl.borrows, a2, b2);
	return near(a1, 40, 1e-3) && near(a2, 10, 1e-3) && near(b2, 30, 1e-3) &&
	       alone.a.cl.borrows > 0;
}

static bool t_ceil(char *msg, size_t sz)
{
	static struct two t;
	double a, b;

	if (!two_run(&t, MBIT(1000), mkcfg(MBIT(100), MBIT(100), 0, 1500),
		     mkcfg(MBIT(10), MBIT(20), 0, 1500),
		     mkcfg(MBIT(5), MBIT(7), 0, 1500), true, true))
		return false;
	a = win_rate(&t.s, &t.a) / MBIT(1);
	b = win_rate(&t.s, &t.b) / MBIT(1);
	FIG("parent 100 mbit idle; A ceil 20 got %.3f, B ceil 7 got %.3f mbit; A overlimits %llu",
	    a, b, (unsigned long long)t.a.cl.overlimits);
	return near(a, 20, 1e-3) && near(b, 7, 1e-3) && t.a.cl.overlimits > 0;
}

static bool t_prio(char *msg, size_t sz)
{
	static struct two t, u;
	double a, b, a2, b2;

	/* A prio 0 takes all the excess */
	if (!two_run(&t, MBIT(100), mkcfg(MBIT(40), MBIT(40), 0, 1500),
		     mkcfg(MBIT(10), MBIT(40), 0, 1500),
		     mkcfg(MBIT(10), MBIT(40), 1, 1500), true, true))
		return false;
	a = win_rate(&t.s, &t.a) / MBIT(1);
	b = win_rate(&t.s, &t.b) / MBIT(1);
	/* swapped prios */
	if (!two_run(&u, MBIT(100), mkcfg(MBIT(40), MBIT(40), 0, 1500),
		     mkcfg(MBIT(10), MBIT(40), 3, 1500),
		     mkcfg(MBIT(10), MBIT(40), 2, 1500), true, true))
		return false;
	a2 = win_rate(&u.s, &u.a) / MBIT(1);
	b2 = win_rate(&u.s, &u.b) / MBIT(1);
	FIG("A prio0 %.3f B prio1 %.3f mbit; A prio3 %.3f B prio2 %.3f", a, b, a2, b2);
	return near(a, 30, 1e-3) && near(b, 10, 1e-3) &&
	       near(a2, 10, 1e-3) && near(b2, 30, 1e-3);
}

static bool t_drr(char *msg, size_t sz)
{
	static struct two t;
	double a, b;

	/* equal rates 10/10, quanta 1500:3000: excess 20 splits 1:2 */
	if (!two_run(&t, MBIT(100), mkcfg(MBIT(40), MBIT(40), 0, 1500),
		     mkcfg(MBIT(10), MBIT(40), 0, 1500),
		     mkcfg(MBIT(10), MBIT(40), 0, 3000), true, true))
		return false;
	a = win_rate(&t.s, &t.a) / MBIT(1) - 10;
	b = win_rate(&t.s, &t.b) / MBIT(1) - 10;
	FIG("excess A %.4f B %.4f mbit, ratio %.5f (want 2)", a, b, b / a);
	return near(b / a, 2, 2e-3) && near(a + b, 20, 1e-3);
}

/* three borrowers, quanta 1:2:3, and leaves under two inner classes */
static bool t_drr3(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls r, p1, p2, a, b, c, d;
	struct tcls *all[] = { &r, &p1, &p2, &a, &b, &c, &d };
	struct htbx_cfg rc = mkcfg(MBIT(60), MBIT(60), 0, 1500);
	struct htbx_cfg pc = mkcfg(MBIT(1), MBIT(60), 0, 1500);
	double ea, eb, ec, ed;

	sim_init(&s, MBIT(100));
	tc_add(&s, &r, NULL, &rc, 0);
	tc_add(&s, &p1, &r, &pc, 0);
	tc_add(&s, &p2, &r, &pc, 0);
	rc = mkcfg(MBIT(5), MBIT(60), 0, 1000);
	tc_add(&s, &a, &p1, &rc, 1000);
	rc.quantum = 2000;
	tc_add(&s, &b, &p1, &rc, 1000);
	rc.quantum = 3000;
	tc_add(&s, &c, &p1, &rc, 1000);
	rc.quantum = 1000;
	tc_add(&s, &d, &p2, &rc, 1000);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	tc_fill(&s, &c, INF_PKTS);
	sim_window(&s, 2 * SEC, 12 * SEC, all, 7);
	if (!sim_run(&s, 12 * SEC))
		return false;
	CHECK(&s, all, 7);
	ea = win_rate(&s, &a) / MBIT(1) - 5;
	eb = win_rate(&s, &b) / MBIT(1) - 5;
	ec = win_rate(&s, &c) / MBIT(1) - 5;
	/* D joins under the other inner class */
	tc_fill(&s, &d, INF_PKTS);
	sim_window(&s, 14 * SEC, 24 * SEC, all, 7);
	if (!sim_run(&s, 24 * SEC))
		return false;
	CHECK(&s, all, 7);
	ed = win_rate(&s, &d) / MBIT(1);
	FIG("excess over rate, quanta 1:2:3 -> %.3f:%.3f:%.3f mbit (%.4f:%.4f); D under another parent then gets %.3f mbit, total %.3f",
	    ea, eb, ec, eb / ea, ec / ea, ed,
	    (win_rate(&s, &a) + win_rate(&s, &b) + win_rate(&s, &c)) / MBIT(1) + ed);
	return near(eb / ea, 2, 3e-3) && near(ec / ea, 3, 3e-3) &&
	       near(ea + eb + ec, 45, 1e-3) && ed > 5 &&
	       near((win_rate(&s, &a) + win_rate(&s, &b) + win_rate(&s, &c) +
		     win_rate(&s, &d)) / MBIT(1), 60, 1e-3);
}

static bool t_burst(char *msg, size_t sz)
{
	struct sim s;
	struct tcls a, *all[] = { &a };
	struct htbx_cfg c = mkcfg(MBIT(1), MBIT(1), 0, 1500);
	u64 t0, want;
	double r;

	c.burst = 100000;
	c.cburst = 100000;
	sim_init(&s, 0);		/* infinitely fast link */
	tc_add(&s, &a, NULL, &c, 1000);
	/* idle for far longer than the bucket takes to fill */
	t0 = s.now + 5 * SEC;
	if (!sim_run(&s, t0))
		return false;
	tc_fill(&s, &a, INF_PKTS);
	sim_window(&s, t0 + 1, t0 + 10 * SEC + 1, all, 1);
	if (!sim_run(&s, t0 + 10 * SEC + 1))
		return false;
	CHECK(&s, all, 1);
	/* sends while tokens >= 0: burst bytes, plus the packet that overdraws */
	want = c.burst + 1000;
	r = win_rate(&s, &a) / MBIT(1);
	FIG("at once: %llu bytes (burst %u + one packet = %llu); then %.5f mbit",
	    (unsigned long long)a.at_start_bytes, c.burst,
	    (unsigned long long)want, r);
	return a.first_tx == t0 && a.at_start_bytes == want && near(r, 1, 1e-3);
}

/* 8 levels: rates grow 1..8 mbit up the chain, ceil 100; root ceil = rate. */
static bool t_depth(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls c[8];
	struct tcls *all[8];
	struct htbx_cfg cfg;
	double got, lent[8];
	char *p = msg;
	bool ok = true;
	int i;

	sim_init(&s, MBIT(100));
	for (i = 0; i < 8; i++) {
		/* c[0] is the root, c[7] the leaf */
		u64 r = MBIT(8 - i);

		cfg = mkcfg(r, i ? MBIT(100) : r, 0, 1500);
		tc_add(&s, &c[i], i ? &c[i - 1] : NULL, &cfg, 1500);
		all[i] = &c[i];
	}
	for (i = 0; i < 8; i++)
		if (c[i].cl.level != 7 - i) {
			FIG("level of class %d is %d", i, c[i].cl.level);
			return false;
		}
	tc_fill(&s, &c[7], INF_PKTS);
	if (!sim_run(&s, 2 * SEC))
		return false;
	for (i = 0; i < 8; i++)
		lent[i] = c[i].cl.lends;
	sim_window(&s, 2 * SEC, 12 * SEC, all, 8);
	if (!sim_run(&s, 12 * SEC))
		return false;
	CHECK(&s, all, 8);
	got = win_rate(&s, &c[7]) / MBIT(1);
	p += snprintf(p, sz, "leaf %.4f mbit (root rate 8); per-level mbit served:", got);
	for (i = 7; i >= 0; i--) {
		/* level 7-i served its own (rate - child's rate) */
		double l = (c[i].cl.lends - lent[i]) * 1500.0 / 10 / MBIT(1);

		p += snprintf(p, sz - (p - msg), " %.3f", l);
		ok &= near(l, 1, 2e-3);
	}
	return ok && near(got, 8, 1e-3);
}

static u32 odd_len(struct tcls *t, u64 seq)
{
	(void)t;
	return 61 + (u32)((seq * 7919 + seq / 3) % 1439);
}

/* 1e6 odd-length packets: each send time is exact to the nanosecond. */
static bool t_drift(char *msg, size_t sz)
{
	struct sim s;
	struct tcls a, *all[] = { &a };
	const u64 rate = 1234567;	/* bytes/s, odd */
	struct htbx_cfg c = mkcfg(rate, rate, 0, 1500);
	unsigned __int128 bytes = 0;
	u64 t0, i, want, mism = 0, maxerr = 0;
	s64 buf;

	c.burst = 3001;
	c.cburst = 3001;
	sim_init(&s, 0);
	tc_add(&s, &a, NULL, &c, 0);
	a.pattern = odd_len;
	tc_fill(&s, &a, 1000000);
	buf = a.cl.buffer;
	t0 = s.now;
	for (i = 0; i < 1000000; i++) {
		struct tpkt *p;
		u64 lin;

		while (!(p = htbx_core_dequeue(&s.q, s.now))) {
			if (s.q.next_event <= s.now)
				return false;
			s.now = s.q.next_event;
		}
		/* packet i may go when bytes*1e9/rate - buffer has elapsed */
		lin = (u64)(bytes * SEC / rate);
		want = lin > (u64)buf ? t0 + lin - buf : t0;
		if (s.now != want) {
			mism++;
			if (s.now - want > maxerr && s.now > want)
				maxerr = s.now - want;
			if (want - s.now > maxerr && want > s.now)
				maxerr = want - s.now;
		}
		bytes += p->len;
	}
	CHECK(&s, all, 1);
	FIG("%llu bytes in 1e6 packets at %llu B/s: last at +%.9f s, %llu sends off the exact time (max %llu ns)",
	    (unsigned long long)bytes, (unsigned long long)rate,
	    (double)(s.now - t0) / SEC, (unsigned long long)mism,
	    (unsigned long long)maxerr);
	return mism == 0;
}

/* Overhead / mpu / ATM applied to the charged length. */
static bool t_lenspec(char *msg, size_t sz)
{
	struct htbx_lenspec eth = { 0 }, ovh = { .overhead = 24 },
		neg = { .overhead = -64 }, mpu = { .mpu = 64 },
		atm = { .linklayer = HTBX_LINKLAYER_ATM },
		atmo = { .overhead = 10, .mpu = 96, .linklayer = HTBX_LINKLAYER_ATM };
	struct sim s;
	struct tcls a, b, *all[] = { &a, &b };
	struct htbx_cfg ca = mkcfg(MBIT(10), MBIT(10), 0, 1500);
	struct htbx_cfg cb = ca;
	double ra, rb;
	bool ok;

	ok = htbx_wire_len(&eth, 100) == 100 && htbx_wire_len(&ovh, 100) == 124 &&
	     htbx_wire_len(&neg, 50) == 1 && htbx_wire_len(&mpu, 40) == 64 &&
	     htbx_wire_len(&mpu, 65) == 65 && htbx_wire_len(&atm, 48) == 53 &&
	     htbx_wire_len(&atm, 49) == 106 && htbx_wire_len(&atm, 100) == 159 &&
	     htbx_wire_len(&atmo, 40) == 106 && htbx_wire_len(&atmo, 86) == 106 && htbx_wire_len(&atmo, 87) == 159 &&
	     htbx_wire_len(&atmo, 134) == 159 && htbx_wire_len(&atmo, 135) == 212;
	if (!ok) {
		FIG("htbx_wire_len table wrong");
		return false;
	}
	/* two roots at 10 mbit: A overhead 24 on 476-byte packets, B ATM */
	ca.len = ovh;
	cb.len = atm;
	sim_init(&s, MBIT(1000));
	tc_add(&s, &a, NULL, &ca, 476);
	tc_add(&s, &b, NULL, &cb, 100);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	sim_window(&s, 2 * SEC, 12 * SEC, all, 2);
	if (!sim_run(&s, 12 * SEC))
		return false;
	CHECK(&s, all, 2);
	ra = win_rate(&s, &a) / MBIT(10);
	rb = win_rate(&s, &b) / MBIT(10);
	FIG("wire_len table ok; payload share: overhead 24 on 476 B %.5f (want %.5f), ATM 100 B %.5f (want %.5f)",
	    ra, 476.0 / 500, rb, 100.0 / 159);
	return near(ra, 476.0 / 500, 1e-3) && near(rb, 100.0 / 159, 1e-3);
}

const struct utest tests_sched[] = {
	{ "single class rate", t_single_rates },
	{ "shares 1:3", t_shares },
	{ "borrowing", t_borrow },
	{ "ceil caps", t_ceil },
	{ "prio gets the excess first", t_prio },
	{ "DRR by quantum", t_drr },
	{ "DRR, three quanta and two parents", t_drr3 },
	{ "burst size", t_burst },
	{ "8 levels", t_depth },
	{ "no rounding drift", t_drift },
	{ "overhead/mpu/ATM", t_lenspec },
	{ NULL, NULL },
};
