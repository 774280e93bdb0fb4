// SPDX-License-Identifier: GPL-2.0
/*
 * test_compat.c - what htbx takes because htb takes it: a ceil below the
 * rate. htb accepts it and the class then never sends more than its ceil
 * (its ctokens run out first); the glue passes such a configuration to
 * the core unchanged, so the core must hold the class to its ceil, keep
 * its invariants, and let the siblings have the rest.
 */
#include "harness.h"

#define CHECK(s, ts, n) do {						\
	const char *__e = core_check(&(s)->q, ts, n);			\
	if (__e) {							\
		FIG("invariant: %s", __e);				\
		return false;						\
	}								\
} while (0)

/* One class, rate 20 ceil 5 on a 1000 mbit link: 5 mbit. */
static bool t_ceil_below_rate(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls a;
	struct tcls *all[] = { &a };
	struct htbx_cfg c = mkcfg(MBIT(20), MBIT(5), 0, 1500);
	double r;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &a, NULL, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	sim_window(&s, 2 * SEC, 12 * SEC, all, 1);
	if (!sim_run(&s, 12 * SEC))
		return false;
	CHECK(&s, all, 1);
	r = win_rate(&s, &a) / MBIT(1);
	FIG("rate 20 ceil 5 mbit alone got %.4f mbit, overlimits %llu", r,
	    (unsigned long long)a.cl.overlimits);
	return near(r, 5, 1e-3) && a.cl.overlimits > 0;
}

/*
 * Parent 40/40; A rate 10 ceil 4, B rate 30 ceil 40, both backlogged: A is
 * held to 4, B gets its 30 and borrows the 6 A cannot use: 36.
 */
static bool t_ceil_below_rate_siblings(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, b;
	struct tcls *all[] = { &p, &a, &b };
	struct htbx_cfg pc = mkcfg(MBIT(40), MBIT(40), 0, 1500);
	struct htbx_cfg ac = mkcfg(MBIT(10), MBIT(4), 0, 1500);
	struct htbx_cfg bc = mkcfg(MBIT(30), MBIT(40), 0, 1500);
	double ra, rb;

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &ac, 1500);
	tc_add(&s, &b, &p, &bc, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	sim_window(&s, 2 * SEC, 12 * SEC, all, 3);
	if (!sim_run(&s, 12 * SEC))
		return false;
	CHECK(&s, all, 3);
	ra = win_rate(&s, &a) / MBIT(1);
	rb = win_rate(&s, &b) / MBIT(1);
	FIG("A rate 10 ceil 4 got %.4f, B rate 30 ceil 40 got %.4f mbit (borrowed %llu)",
	    ra, rb, (unsigned long long)b.cl.borrows);
	return near(ra, 4, 1e-3) && near(rb, 36, 1e-3) && b.cl.borrows > 0;
}

/*
 * A busy class changed to a ceil below its rate, and back: the rate
 * follows the ceil at once, the invariants hold after each change.
 */
static bool t_ceil_below_rate_change(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls a;
	struct tcls *all[] = { &a };
	struct htbx_cfg c = mkcfg(MBIT(20), MBIT(20), 0, 1500);
	double r1, r2, r3;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &a, NULL, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	sim_window(&s, 1 * SEC, 3 * SEC, all, 1);
	if (!sim_run(&s, 3 * SEC))
		return false;
	r1 = win_rate(&s, &a) / MBIT(1);

	c = mkcfg(MBIT(20), MBIT(2), 0, 1500);
	htbx_core_change(&s.q, &a.cl, &c, s.now);
	CHECK(&s, all, 1);
	sim_window(&s, 4 * SEC, 9 * SEC, all, 1);
	if (!sim_run(&s, 9 * SEC))
		return false;
	r2 = win_rate(&s, &a) / MBIT(1);
	CHECK(&s, all, 1);

	c = mkcfg(MBIT(20), MBIT(20), 0, 1500);
	htbx_core_change(&s.q, &a.cl, &c, s.now);
	sim_window(&s, 10 * SEC, 12 * SEC, all, 1);
	if (!sim_run(&s, 12 * SEC))
		return false;
	r3 = win_rate(&s, &a) / MBIT(1);
	CHECK(&s, all, 1);
	FIG("rate 20: ceil 20 %.4f, ceil 2 %.4f, ceil 20 again %.4f mbit",
	    r1, r2, r3);
	return near(r1, 20, 1e-3) && near(r2, 2, 1e-3) && near(r3, 20, 1e-3);
}

const struct utest tests_compat[] = {
	{ "ceil below rate: held to ceil", t_ceil_below_rate },
	{ "ceil below rate: siblings get the rest", t_ceil_below_rate_siblings },
	{ "ceil below rate: change and back", t_ceil_below_rate_change },
	{ NULL, NULL },
};
