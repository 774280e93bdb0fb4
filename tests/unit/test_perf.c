// SPDX-License-Identifier: GPL-2.0
/*
 * test_perf.c - cost of a dequeue: one class ("perf 1"), a chain of 8
 * levels that borrows through all of them ("perf deep8"), 10, 1000 and
 * 10000 backlogged leaves under inner classes of 100, borrowing ("perf
 * N"), and the rate math alone ("perf div"). "perf 1 pulse" and "perf
 * deep8 pulse" drive the first two as pktgen drives the qdisc: one packet
 * in, one out, so every dequeue also pays for the leaf's activation and
 * deactivation; "perf 64 pulse" sends each packet to the next of 64
 * leaves (bench/pps.sh's 64leaves). Run by name only; `make callgrind`
 * counts the instructions of perf_loop.
 */
#include <time.h>
#include "harness.h"

#define PERF_DEQ	200000

/* pulse mode: the leaves that get one packet before each dequeue, in turn */
static struct tcls *perf_pulse;
static u64 perf_npulse, perf_turn;

/* Kept out of line so that callgrind can count just this. */
noinline u64 perf_loop(struct sim *s, u64 n)
{
	struct tpkt *p;
	u64 i, got = 0;

	for (i = 0; i < n; i++) {
		if (perf_pulse)
			tc_fill(s, &perf_pulse[perf_turn++ % perf_npulse], 1);
		p = htbx_core_dequeue(&s->q, s->now);
		if (p) {
			got++;
			s->now += (u64)p->len * SEC / s->link;
		} else if (s->q.next_event > s->now) {
			s->now = s->q.next_event;
		}
	}
	return got;
}

/* Warm up, then time PERF_DEQ dequeues of the tree built in @s. */
static bool perf_run(struct sim *s, const char *what, char *msg, size_t sz)
{
	struct timespec a, b;
	u64 got;

	perf_loop(s, PERF_DEQ / 4);
	clock_gettime(CLOCK_MONOTONIC, &a);
	got = perf_loop(s, PERF_DEQ);
	clock_gettime(CLOCK_MONOTONIC, &b);
	FIG("%s: %d dequeue calls (%llu packets) in %.1f ns each",
	    what, PERF_DEQ, (unsigned long long)got,
	    ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / PERF_DEQ);
	return got > PERF_DEQ / 2;
}

static struct sim s;
static struct tcls root, in[100], lf[10000];

static bool perf(int n, char *msg, size_t sz)
{
	int ni = n >= 100 ? n / 100 : 1, i;
	struct htbx_cfg rc = mkcfg(MBIT(100) * n, MBIT(100) * n, 0, 1500);
	struct htbx_cfg ic = mkcfg(MBIT(50) * (n / ni), MBIT(100) * n, 0, 1500);
	struct htbx_cfg lc = mkcfg(MBIT(10), MBIT(100) * n, 0, 1500);
	char what[32];

	sim_init(&s, MBIT(100) * n);	/* the root is the bottleneck */
	tc_add(&s, &root, NULL, &rc, 0);
	for (i = 0; i < ni; i++)
		tc_add(&s, &in[i], &root, &ic, 0);
	for (i = 0; i < n; i++) {
		lc.prio = i % 3;
		tc_add(&s, &lf[i], &in[i % ni], &lc, 1000 + i % 500);
		tc_fill(&s, &lf[i], INF_PKTS);
	}
	snprintf(what, sizeof(what), "%d leaves", n);
	return perf_run(&s, what, msg, sz);
}

/*
 * The shapes of bench/pps.sh: one class at 10gbit on a 1gbit link (it
 * never waits), and 1:1 at 10gbit above a chain of 7 classes at 1mbit ceil
 * 10gbit (the leaf at the bottom borrows through every level, each packet).
 */
static bool p1(char *msg, size_t sz)
{
	struct htbx_cfg c = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);

	sim_init(&s, MBIT(1000));
	tc_add(&s, &lf[0], NULL, &c, 60);
	tc_fill(&s, &lf[0], perf_pulse ? 0 : INF_PKTS);
	return perf_run(&s, "1 class", msg, sz);
}

static bool pdeep8(char *msg, size_t sz)
{
	struct htbx_cfg rc = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(1), MBIT(10000), 0, 1500);
	int i;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &in[0], NULL, &rc, 0);
	for (i = 1; i < 7; i++)
		tc_add(&s, &in[i], &in[i - 1], &c, 0);
	tc_add(&s, &lf[0], &in[6], &c, 60);
	tc_fill(&s, &lf[0], perf_pulse ? 0 : INF_PKTS);
	return perf_run(&s, "depth 8, borrowing", msg, sz);
}

/* @shape fed one packet before each dequeue, to @n leaves in turn. */
static bool pulsed(bool (*shape)(char *, size_t), u64 n, char *msg,
		   size_t sz)
{
	bool ok;

	perf_pulse = &lf[0];
	perf_npulse = n;
	perf_turn = 0;
	ok = shape(msg, sz);
	perf_pulse = NULL;
	return ok;
}

/*
 * bench/pps.sh's 64leaves: 1:1 at 10gbit, 64 leaves at 1mbit ceil
 * 10gbit below it, every packet to the next leaf.
 */
static bool p64(char *msg, size_t sz)
{
	struct htbx_cfg rc = mkcfg(MBIT(10000), MBIT(10000), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(1), MBIT(10000), 0, 1500);
	int i;

	sim_init(&s, MBIT(1000));
	tc_add(&s, &in[0], NULL, &rc, 0);
	for (i = 0; i < 64; i++)
		tc_add(&s, &lf[i], &in[0], &c, 60);
	return perf_run(&s, "64 leaves in turn", msg, sz);
}

static bool p1pulse(char *msg, size_t sz) { return pulsed(p1, 1, msg, sz); }
static bool pdeep8pulse(char *msg, size_t sz) { return pulsed(pdeep8, 1, msg, sz); }
static bool p64pulse(char *msg, size_t sz) { return pulsed(p64, 64, msg, sz); }

/*
 * The rate math alone: htbx_charge's two transmission times per level,
 * by divide (htbx_xmit_ns) and by reciprocal (htbx_xmit_ns_r), over the
 * same inputs. TSC ticks per call: the host has no PMU for perf stat, and
 * the TSC runs at a fixed rate near the nominal clock.
 */
#define DIV_N		4096
#define DIV_ROUNDS	256

static u64 div_rate[DIV_N], div_recip[DIV_N], div_len[DIV_N];

static noinline u64 div_loop(void)
{
	u64 rem = 0, sum = 0;
	int i;

	for (i = 0; i < DIV_N; i++)
		sum += htbx_xmit_ns(div_rate[i], div_len[i], &rem);
	return sum + rem;
}

static noinline u64 recip_loop(void)
{
	u64 rem = 0, sum = 0;
	int i;

	for (i = 0; i < DIV_N; i++)
		sum += htbx_xmit_ns_r(div_rate[i], div_recip[i], div_len[i],
				      &rem);
	return sum + rem;
}

static double ticks_per_call(u64 (*fn)(void), u64 *out)
{
	u64 best = ~0ULL, t;
	int r;

	for (r = 0; r < DIV_ROUNDS; r++) {
		t = __builtin_ia32_rdtsc();
		*out = fn();
		t = __builtin_ia32_rdtsc() - t;
		if (t < best)
			best = t;
	}
	return (double)best / DIV_N;
}

static bool pdiv(char *msg, size_t sz)
{
	u64 seed = 0x2545f4914f6cdd1dULL, a, b;
	double d, m;
	int i;

	for (i = 0; i < DIV_N; i++) {
		/* leaf rates of 1 kbit .. 10 gbit, packets of 64 .. 64k */
		div_rate[i] = 125 + xorshift64s(&seed) % 1250000000ULL;
		div_recip[i] = htbx_rate_recip(div_rate[i]);
		div_len[i] = 64 + xorshift64s(&seed) % 65472;
	}
	/* rem stays below every rate: the smallest is 125 */
	d = ticks_per_call(div_loop, &a);
	m = ticks_per_call(recip_loop, &b);
	FIG("rate math per call: divide %.1f, reciprocal %.1f TSC ticks (%.2fx); same sums: %s",
	    d, m, m / d, a == b ? "yes" : "NO");
	return a == b;
}

static bool p10(char *msg, size_t sz) { return perf(10, msg, sz); }
static bool p1000(char *msg, size_t sz) { return perf(1000, msg, sz); }
static bool p10000(char *msg, size_t sz) { return perf(10000, msg, sz); }

const struct utest tests_perf[] = {
	{ "perf div", pdiv },
	{ "perf 1", p1 },
	{ "perf deep8", pdeep8 },
	{ "perf 1 pulse", p1pulse },
	{ "perf deep8 pulse", pdeep8pulse },
	{ "perf 64 pulse", p64pulse },
	{ "perf 10", p10 },
	{ "perf 1000", p1000 },
	{ "perf 10000", p10000 },
	{ NULL, NULL },
};
