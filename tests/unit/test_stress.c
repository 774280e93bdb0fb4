// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - random add/delete/change/fill/empty/run sequences on a
 * random tree, with leaves that hold packets back or re-enter the core from
 * their dequeue, every structural invariant checked after each step,
 * and all backlog drained at the end (no class is ever forgotten).
 */
#include "harness.h"

static u64 st = 0x2545f4914f6cdd1dULL;

static u64 rnd(void)
{
	return xorshift64s(&st);
}

enum { M = 48 };

struct world {
	struct sim	s;
	struct tcls	c[M];
	bool		used[M];
};

static int collect(struct world *w, struct tcls **all)
{
	int i, n = 0;

	for (i = 0; i < M; i++)
		if (w->used[i])
			all[n++] = &w->c[i];
	return n;
}

static struct htbx_cfg rnd_cfg(void)
{
	u64 rate = MBIT(1 + rnd() % 50);
	u64 ceil = rate + (rnd() % 2 ? MBIT(rnd() % 100) : 0);
	struct htbx_cfg c = mkcfg(rate, ceil, rnd() % 8, 500 + rnd() % 5000);

	if (rnd() % 4 == 0)
		c.burst = 1 + rnd() % 20000;
	if (rnd() % 4 == 0)
		c.cburst = 1 + rnd() % 20000;
	if (rnd() % 8 == 0)
		c.len.overhead = (s32)(rnd() % 100) - 50;
	if (rnd() % 8 == 0)
		c.len.linklayer = HTBX_LINKLAYER_ATM;
	return c;
}

static int pick(struct world *w, bool want_used, bool leaf_only)
{
	int i, k = (int)(rnd() % M);

	for (i = 0; i < M; i++) {
		int j = (k + i) % M;

		if (w->used[j] != want_used)
			continue;
		if (leaf_only && w->c[j].cl.children)
			continue;
		return j;
	}
	return -1;
}

static u32 rnd_len(struct tcls *t, u64 seq)
{
	(void)t;
	return 40 + (u32)((seq * 2654435761ULL) % 1461);
}

static bool t_stress(char *msg, size_t sz)
{
	static struct world w;
	static struct tcls *all[M];
	u64 step, resets = 0, ops[7] = { 0 };
	int n, i, k, rounds;
	const char *e;

	for (rounds = 0; rounds < 40; rounds++) {
		memset(&w, 0, sizeof(w));
		sim_init(&w.s, MBIT(50 + rnd() % 500));
		for (step = 0; step < 3000; step++) {
			int op = (int)(rnd() % 7);
			struct htbx_cfg cfg;

			switch (op) {
			case 0: /* add */
				k = pick(&w, false, false);
				i = rnd() % 4 ? pick(&w, true, false) : -1;
				if (k < 0)
					break;
				if (i >= 0 && !w.c[i].cl.children && w.c[i].cl.parent &&
				    w.c[i].cl.parent->level < 2)
					break;	/* too deep: the glue refuses */
				cfg = rnd_cfg();
				tc_add(&w.s, &w.c[k], i >= 0 ? &w.c[i] : NULL, &cfg, 0);
				w.c[k].pattern = rnd_len;
				w.used[k] = true;
				break;
			case 1: /* delete a leaf */
				k = pick(&w, true, true);
				if (k < 0)
					break;
				tc_empty(&w.s, &w.c[k]);
				if (htbx_core_del(&w.s.q, &w.c[k].cl, w.s.now) !=
				    (w.c[k].cl.parent && !w.c[k].cl.parent->children)) {
					FIG("del return value");
					return false;
				}
				w.used[k] = false;
				memset(&w.c[k], 0x5a, sizeof(w.c[k]));
				break;
			case 2: /* change */
				k = pick(&w, true, false);
				if (k < 0)
					break;
				cfg = rnd_cfg();
				htbx_core_change(&w.s.q, &w.c[k].cl, &cfg, w.s.now);
				break;
			case 3: /* fill */
				k = pick(&w, true, true);
				if (k >= 0)
					tc_fill(&w.s, &w.c[k], 1 + rnd() % 200);
				break;
			case 4: /* empty, or toggle a queue that holds back */
				k = pick(&w, true, true);
				if (k < 0)
					break;
				if (rnd() % 4)
					tc_empty(&w.s, &w.c[k]);
				else if (rnd() % 2)
					w.c[k].nonwc = !w.c[k].nonwc;
				else {	/* a leaf that re-enters the core */
					w.c[k].reenter = (enum treenter)(rnd() % (RE_RANDOM + 1));
					/* one that deactivated itself with
					 * packets is active again on the next
					 * enqueue
					 */
					if (!w.c[k].reenter)
						tc_fill(&w.s, &w.c[k], 0);
				}
				break;
			case 5: /* rarely: reset everything */
				if (rnd() % 50)
					goto run;
				n = collect(&w, all);
				for (i = 0; i < n; i++) {
					if (!all[i]->cl.children)
						all[i]->qlen = 0;
					htbx_core_reset_node(&w.s.q,
							     &all[i]->cl,
							     w.s.now);
				}
				htbx_core_reset(&w.s.q);
				resets++;
				break;
			default: /* run */
run:
				if (!sim_run(&w.s, w.s.now + rnd() % (50 * MS))) {
					FIG("next_event in the past");
					return false;
				}
				break;
			}
			ops[op]++;
			n = collect(&w, all);
			e = core_check_time(&w.s.q, all, n, w.s.now);
			if (e) {
				FIG("round %d step %llu op %d: %s", rounds,
				    (unsigned long long)step, op, e);
				return false;
			}
		}
		/* everything queued must drain */
		for (i = 0; i < M; i++) {
			w.c[i].nonwc = false;
			w.c[i].reenter = RE_NONE;
			/* a leaf that deactivated itself keeping packets */
			if (w.used[i] && !w.c[i].cl.children)
				tc_fill(&w.s, &w.c[i], 0);
		}
		if (!sim_run(&w.s, w.s.now + 3600 * SEC))
			return false;
		n = collect(&w, all);
		for (i = 0; i < n; i++)
			if (all[i]->qlen && !all[i]->cl.children) {
				FIG("round %d: a leaf kept %llu packets", rounds,
				    (unsigned long long)all[i]->qlen);
				return false;
			}
		if (core_check(&w.s.q, all, n))
			return false;
	}
	FIG("40 rounds x 3000 random steps (add %llu del %llu change %llu fill %llu empty %llu run %llu reset %llu): invariants held, all drained",
	    (unsigned long long)ops[0], (unsigned long long)ops[1],
	    (unsigned long long)ops[2], (unsigned long long)ops[3],
	    (unsigned long long)ops[4], (unsigned long long)(ops[5] + ops[6] - resets),
	    (unsigned long long)resets);
	return true;
}

const struct utest tests_stress[] = {
	{ "random tree operations", t_stress },
	{ NULL, NULL },
};
