// SPDX-License-Identifier: GPL-2.0
/*
 * test_reenter.c - leaves that change the core from inside their dequeue
 * (the re-entry contract of htbx_core.h), and the accounting facts the
 * kernel glue dumps: overlimits, GSO segments and giants, exact enforcement
 * of very low rates.
 */
#include "harness.h"

#define CHECK(s, ts, n) do {						\
	const char *__e = core_check_time(&(s)->q, ts, n, (s)->now);	\
	if (__e) {							\
		FIG("line %d: invariant: %s", __LINE__, __e);		\
		return false;						\
	}								\
} while (0)

static const char *const re_name[] = {
	[RE_NONE]	= "none",
	[RE_DEACT_NULL]	= "deactivate+NULL",
	[RE_DROP_REST]	= "drop rest+last",
	[RE_DROP_ALL]	= "drop all+NULL",
	[RE_RANDOM]	= "random",
};

/*
 * Parent 10 mbit, two borrowing leaves A (re-entering) and B (plain) and a
 * third C under a second parent, all refilled every ms; every dequeue is
 * checked. Before the fix the rotation after a self-deactivating leaf put
 * it back on its ring uncounted, and its next activation was a list double
 * add (kshim aborts, as the kernel's list debugging BUGs).
 */
static bool reenter_one(enum treenter re, char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls r, p, p2, a, b, c;
	struct tcls *all[] = { &r, &p, &p2, &a, &b, &c };
	struct htbx_cfg rc = mkcfg(MBIT(20), MBIT(20), 0, 1500);
	struct htbx_cfg pc = mkcfg(MBIT(5), MBIT(20), 0, 1500);
	struct htbx_cfg lc = mkcfg(MBIT(1), MBIT(20), 0, 1000);
	u64 t, end, sent_a = 0, sent_b, sent_c;
	struct tpkt *pk;

	sim_init(&s, MBIT(100));
	tc_add(&s, &r, NULL, &rc, 0);
	tc_add(&s, &p, &r, &pc, 0);
	tc_add(&s, &p2, &r, &pc, 0);
	tc_add(&s, &a, &p, &lc, 1500);
	tc_add(&s, &b, &p, &lc, 1500);
	tc_add(&s, &c, &p2, &lc, 1000);
	a.reenter = re;
	for (t = s.now, end = s.now + 2 * SEC; t < end; ) {
		tc_fill(&s, &a, 3);
		tc_fill(&s, &b, 2);
		tc_fill(&s, &c, 1);
		pk = htbx_core_dequeue(&s.q, t);
		CHECK(&s, all, 6);
		if (pk) {
			if (pk->owner == &a)
				sent_a++;
			t += pk->len * SEC / MBIT(100);
		} else if (s.q.next_event > t) {
			t = s.q.next_event;
		} else if (s.q.next_event == t) {
			continue;	/* budget: again */
		} else {
			t += 10 * 1000;	/* nothing waits; refill */
		}
		s.now = t;
	}
	sent_b = b.packets;
	sent_c = c.packets;
	FIG("A %s: A sent %llu (drops %llu), B %llu, C %llu; root %llu pkts; every step consistent",
	    re_name[re], (unsigned long long)sent_a,
	    (unsigned long long)a.drops, (unsigned long long)sent_b,
	    (unsigned long long)sent_c, (unsigned long long)r.packets);
	/* B and C keep being served; counters add up at every parent */
	return sent_b > 100 && sent_c > 100 &&
	       r.packets == a.packets + b.packets + c.packets &&
	       p.packets == a.packets + b.packets &&
	       a.packets == sent_a &&
	       (re == RE_DEACT_NULL || re == RE_DROP_ALL ? !sent_a : sent_a > 0);
}

static bool t_deact_null(char *msg, size_t sz)
{
	return reenter_one(RE_DEACT_NULL, msg, sz);
}

static bool t_drop_rest(char *msg, size_t sz)
{
	return reenter_one(RE_DROP_REST, msg, sz);
}

static bool t_drop_all(char *msg, size_t sz)
{
	return reenter_one(RE_DROP_ALL, msg, sz);
}

static bool t_random(char *msg, size_t sz)
{
	return reenter_one(RE_RANDOM, msg, sz);
}

/* Every leaf of a ring deactivates itself at once: the dequeue ends. */
static bool t_all_reenter(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls l[64];
	struct tcls *all[64];
	struct htbx_cfg c = mkcfg(MBIT(1), MBIT(1), 0, 1500);
	void *pk;
	int i;

	sim_init(&s, 0);
	for (i = 0; i < 64; i++) {
		all[i] = &l[i];
		tc_add(&s, &l[i], NULL, &c, 1500);
		l[i].reenter = i % 2 ? RE_DROP_ALL : RE_DEACT_NULL;
		tc_fill(&s, &l[i], 5);
	}
	pk = htbx_core_dequeue(&s.q, s.now);
	CHECK(&s, all, 64);
	for (i = 0; i < 64; i++)
		if (l[i].cl.prio_activity)
			break;
	FIG("64 leaves that empty themselves: dequeue %s, %d still active",
	    pk ? "returned a packet" : "returned NULL", i < 64 ? 1 : 0);
	return !pk && i == 64 && !s.q.row_mask[0];
}

/* qdisc overlimits = sum of class transitions to CANT_SEND, as in htb. */
static bool t_overlimits(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls a, b;
	struct tcls *all[] = { &a, &b };
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(10), 0, 1500);

	sim_init(&s, MBIT(100));
	tc_add(&s, &a, NULL, &c, 1500);
	tc_add(&s, &b, NULL, &c, 1500);
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	u64 before;
	int i;

	if (!sim_run(&s, 3 * SEC))
		return false;
	CHECK(&s, all, 2);
	/* dequeues that find nothing ready are not overlimits */
	tc_empty(&s, &a);
	tc_empty(&s, &b);
	before = s.q.overlimits;
	for (i = 0; i < 100; i++)
		htbx_core_dequeue(&s.q, s.now + i);
	FIG("qdisc overlimits %llu = A %llu + B %llu; %llu dequeues gave NULL; 100 idle dequeues added %llu",
	    (unsigned long long)s.q.overlimits,
	    (unsigned long long)a.cl.overlimits,
	    (unsigned long long)b.cl.overlimits,
	    (unsigned long long)s.nulls,
	    (unsigned long long)(s.q.overlimits - before));
	return s.q.overlimits == a.cl.overlimits + b.cl.overlimits &&
	       a.cl.overlimits > 0 && s.q.overlimits == before;
}

/* A 64 KB GSO packet of 45 segments under mtu 1600 is 45 packets, 0 giants. */
static bool t_gso(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, g;
	struct tcls *all[] = { &p, &a, &g };
	struct htbx_cfg pc = mkcfg(MBIT(100), MBIT(100), 0, 1500);
	struct htbx_cfg c = mkcfg(MBIT(20), MBIT(100), 0, 1500);

	sim_init(&s, 0);
	tc_add(&s, &p, NULL, &pc, 0);
	tc_add(&s, &a, &p, &c, 65160);	/* 45 x 1448 payload, headers aside */
	tc_add(&s, &g, &p, &c, 9000);	/* a 9000 byte jumbo: a giant */
	a.segs = 45;
	tc_fill(&s, &a, 100);
	tc_fill(&s, &g, 10);
	if (!sim_run(&s, 2 * SEC))
		return false;
	CHECK(&s, all, 3);
	FIG("GSO leaf: %llu segments in %llu bytes, giants %llu; jumbo leaf %llu pkts, giants %llu; parent %llu pkts",
	    (unsigned long long)a.packets, (unsigned long long)a.bytes,
	    (unsigned long long)a.cl.giants, (unsigned long long)g.packets,
	    (unsigned long long)g.cl.giants, (unsigned long long)p.packets);
	return a.packets == 4500 && !a.cl.giants && g.cl.giants == 10 &&
	       p.packets == 4510 && a.cl.lends + a.cl.borrows == 100;
}

/*
 * 1 byte/s with 1500 byte packets, and 1000 bytes/s with 64 KB GSO packets:
 * each packet's debt is far beyond 60 s of the rate. Enforced exactly.
 */
static bool t_low_rate(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls a, b;
	struct tcls *all[] = { &a, &b };
	struct htbx_cfg ca = mkcfg(1, 1, 0, 1500);
	struct htbx_cfg cb = mkcfg(1000, 1000, 0, 1500);
	double ra, rb;

	sim_init(&s, 0);
	tc_add(&s, &a, NULL, &ca, 1500);
	tc_add(&s, &b, NULL, &cb, 65000);
	b.segs = 45;
	tc_fill(&s, &a, INF_PKTS);
	tc_fill(&s, &b, INF_PKTS);
	sim_window(&s, 10000 * SEC, 1510000 * SEC, all, 2);
	if (!sim_run(&s, 1510000 * SEC))
		return false;
	CHECK(&s, all, 2);
	ra = win_rate(&s, &a);
	rb = win_rate(&s, &b);
	FIG("1 B/s, 1500 B packets: %.4f B/s; 1000 B/s, 65000 B GSO packets: %.2f B/s (over 1.5e6 s)",
	    ra, rb);
	return near(ra, 1, 1e-3) && near(rb, 1000, 1e-3);
}

/* No ring keeps a turn for a deleted class or one whose level changed. */
static bool t_stale_turns(char *msg, size_t sz)
{
	static struct sim s;
	static struct tcls p, a, b, k;
	struct tcls *all[] = { &p, &b };
	struct htbx_cfg c = mkcfg(MBIT(10), MBIT(10), 0, 1000);
	int i, stale = 0;

	sim_init(&s, MBIT(100));
	tc_add(&s, &p, NULL, &c, 0);
	tc_add(&s, &a, &p, &c, 1500);
	tc_add(&s, &b, &p, &c, 1500);
	tc_fill(&s, &a, 1);	/* A leaves its rings while it has the turn */
	tc_fill(&s, &b, INF_PKTS);
	if (!sim_run(&s, s.now + 10 * MS))
		return false;
	tc_empty(&s, &a);
	htbx_core_del(&s.q, &a.cl, s.now);
	for (i = 0; i < HTBX_CORE_NUMPRIO; i++)
		stale += p.cl.feed[i].resume == &a.cl ||
			 s.q.row[0][i].resume == &a.cl;
	/* B turns inner: its row[0] turn must go too */
	tc_empty(&s, &b);
	tc_add(&s, &k, &b, &c, 1500);
	for (i = 0; i < HTBX_CORE_NUMPRIO; i++)
		stale += s.q.row[0][i].resume == &b.cl;
	all[0] = &p;
	all[1] = &b;
	CHECK(&s, all, 2);
	FIG("turns left for a deleted class or a leaf that turned inner: %d", stale);
	return !stale;
}

const struct utest tests_reenter[] = {
	{ "re-entry: leaf deactivates itself, returns NULL", t_deact_null },
	{ "re-entry: leaf drops all but one, deactivates", t_drop_rest },
	{ "re-entry: leaf drops everything", t_drop_all },
	{ "re-entry: random mix", t_random },
	{ "re-entry: a whole ring empties itself", t_all_reenter },
	{ "overlimits count CANT_SEND transitions", t_overlimits },
	{ "GSO segments and giants", t_gso },
	{ "rates far below mtu/60s", t_low_rate },
	{ "no stale DRR turns", t_stale_turns },
	{ NULL, NULL },
};
