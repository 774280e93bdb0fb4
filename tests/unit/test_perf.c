// SPDX-License-Identifier: GPL-2.0
/*
 * test_perf.c - cost of a dequeue with 10, 1000 and 10000 backlogged
 * leaves (under inner classes of 100, borrowing). Run by name only
 * ("perf N"); `make callgrind` counts the instructions of perf_loop.
 */
#include <time.h>
#include "harness.h"

#define PERF_DEQ	200000

/* Kept out of line so that callgrind can count just this. */
__attribute__((noinline)) u64 perf_loop(struct sim *s, u64 n)
{
	struct tpkt *p;
	u64 i, got = 0;

	for (i = 0; i < n; i++) {
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

static bool perf(int n, char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls root, in[100], lf[10000];
	int ni = n >= 100 ? n / 100 : 1, i;
	struct htbx_cfg rc = mkcfg(MBIT(100) * n, MBIT(100) * n, 0, 1500);
	struct htbx_cfg ic = mkcfg(MBIT(50) * (n / ni), MBIT(100) * n, 0, 1500);
	struct htbx_cfg lc = mkcfg(MBIT(10), MBIT(100) * n, 0, 1500);
	struct timespec a, b;
	u64 got;

	sim_init(&s, MBIT(100) * n);	/* the root is the bottleneck */
	tc_add(&s, &root, NULL, &rc, 0);
	for (i = 0; i < ni; i++)
		tc_add(&s, &in[i], &root, &ic, 0);
	for (i = 0; i < n; i++) {
		lc.prio = i % 3;
		tc_add(&s, &lf[i], &in[i % ni], &lc, 1000 + i % 500);
		tc_fill(&s, &lf[i], INF_PKTS);
	}
	perf_loop(&s, PERF_DEQ / 4);	/* warm up */
	clock_gettime(CLOCK_MONOTONIC, &a);
	got = perf_loop(&s, PERF_DEQ);
	clock_gettime(CLOCK_MONOTONIC, &b);
	FIG("%d leaves: %d dequeue calls (%llu packets) in %.1f ns each",
	    n, PERF_DEQ, (unsigned long long)got,
	    ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / PERF_DEQ);
	return got > PERF_DEQ / 2;
}

static bool p10(char *msg, size_t sz) { return perf(10, msg, sz); }
static bool p1000(char *msg, size_t sz) { return perf(1000, msg, sz); }
static bool p10000(char *msg, size_t sz) { return perf(10000, msg, sz); }

const struct utest tests_perf[] = {
	{ "perf 10", p10 },
	{ "perf 1000", p1000 },
	{ "perf 10000", p10000 },
	{ NULL, NULL },
};
