// SPDX-License-Identifier: GPL-2.0
/*
 * tsan_mq.c - mq mode from real threads, built with ThreadSanitizer
 * (bin/unit-tsan; `make check` runs it with halt_on_error=1).
 *
 * One pthread per TX queue, each owning its htbx_core_queue and its
 * nodes of one class tree, all nodes of a class sharing one htbx_bucket,
 * as in the kernel: a queue's core is touched under that queue's lock only
 * (here a mutex per queue, held by its thread around each batch of
 * enqueues and dequeues), and configuration (htbx_core_change, class add
 * and delete) runs on one queue at a time, each under that queue's lock
 * only, as the kernel's does; a reset runs with every queue's lock held.
 * A dump reads each queue's nodes and core under that queue's lock, one
 * queue at a time (htbx_dump_class_stats,
 * htbx_mq_class_stats, htbx_mq_sum, on the kernels where a class dump
 * holds no lock of its own). Whatever two queues touch at once must then
 * be atomic or marked (kshim.h maps READ_ONCE/WRITE_ONCE to relaxed
 * atomics under TSan): any report is a race in htbx_core.c,
 * htbx_share.c or a wrong model here.
 *
 * The clock is CLOCK_MONOTONIC, read under the queue's lock (as
 * htbx_clock_ns() in the kernel), so each core sees its own time move
 * forward and the ceiling can be checked against real elapsed time.
 *
 * Tree (C is the root's rate = ceil):
 *   0 root C
 *   1 inner C/4 ---- leaves 3 (C/32, prio 0), 4 (C/64, prio 1, ceil C/2),
 *                    5 (C/64, prio 2)
 *   2 inner C/4 ---- leaf 7 (C/32, prio 1), inner 6 (C/16) --- leaves
 *                    8 (C/64, prio 0), 9 (C/64, prio 3), 10 (C/64,
 *                    prio 2; added and deleted under traffic)
 * Rates of children sum below their parent's, so a class sending on its
 * own rate (which HTB does not check against its ancestors' ceilings)
 * can put the root over its ceiling by no more than its burst.
 */
#include <pthread.h>
#include <time.h>
#include <sched.h>
#include <stdarg.h>

#include "harness.h"
#include "htbx_share.h"

#define MAXQ	4
#define NCLS	11
#define CHURN	10		/* the class added and deleted */
#define BUSY	3		/* a leaf queue 0 keeps backlogged */
#define BURST	4000		/* every class below the root */
#define RBURST	30000		/* the root's burst and cburst */
#define MAXPKT	1514

static const int par[NCLS] = { -1, 0, 0, 1, 1, 1, 2, 2, 6, 6, 6 };
static const bool inner[NCLS] = { 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0 };
/* rate as C / div, ceil as C / cdiv, prio, quantum */
static const u32 rdiv[NCLS] = { 1, 4, 4, 32, 64, 64, 16, 32, 64, 64, 64 };
static const u32 cdiv[NCLS] = { 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1 };
static const u32 prio0[NCLS] = { 0, 0, 0, 0, 1, 2, 0, 1, 0, 3, 2 };
static const u32 quant0[NCLS] = { 1500, 3000, 1500, 1500, 4500, 1000, 2000,
				  3028, 1500, 6000, 3000 };

struct queue {
	pthread_mutex_t	lock;
	pthread_t	thr;
	int		idx;
	struct sim	s;		/* s.q: this queue's core */
	struct tcls	t[NCLS];	/* this queue's node of each class */
	bool		linked[NCLS];	/* t[k] is in this queue's tree */
	u64		seed;
	/* this thread's own, read after the join */
	u64		bytes, pkts, deqs, nulls, sleeps, loops;
	const char	*err;
};

static struct htbx_bucket b[NCLS];
static struct queue qs[MAXQ];
static int nq;
static u64 C;			/* root rate = ceil, bytes/s */
static bool present[NCLS];	/* the config thread's own */
static int stop;		/* atomic */

/* config thread's counts */
static u64 n_change, n_add, n_del, n_reset, n_dump;
static u64 dump_sum;		/* so the dump's reads are used */

static u64 clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * SEC + (u64)ts.tv_nsec;
}

static void sleep_ns(u64 ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / SEC),
			       .tv_nsec = (long)(ns % SEC) };

	nanosleep(&ts, NULL);
}

/* Lengths 64..1514, different per class and packet. */
static u32 pkt_pattern(struct tcls *t, u64 seq)
{
	u64 h = (seq + 1) * 0x9e3779b97f4a7c15ULL ^ (u64)t->len * 0xbf58476d1ce4e5b9ULL;

	return 64 + (u32)((h >> 29) % (MAXPKT - 64 + 1));
}

static struct htbx_cfg cls_cfg(int k, u32 rdivk, u32 cdivk, u32 prio,
			       u32 quantum)
{
	struct htbx_cfg c = mkcfg(C / rdivk, C / cdivk, prio, quantum);

	if (c.ceil < c.rate)
		c.ceil = c.rate;
	c.burst = c.cburst = k ? BURST : RBURST;
	return c;
}

/* Class @k's node on queue @i, as htbx_class_create links it. */
static void node_add(int i, int k, const struct htbx_cfg *cfg, u64 now)
{
	struct queue *q = &qs[i];
	struct tcls *t = &q->t[k];

	memset(t, 0, sizeof(*t));
	t->core = &q->s.q;
	t->len = (u32)k;
	t->pattern = pkt_pattern;
	htbx_node_setup(&t->cl, cfg);
	t->cl.bucket = &b[k];
	htbx_core_add(&q->s.q, &t->cl, par[k] < 0 ? NULL : &q->t[par[k]].cl,
		      now);
}

/*
 * As htbx_class_create: the bucket filled for the class's configuration,
 * then its node linked on each queue in turn, under that queue's lock.
 */
static void cls_add(int k, const struct htbx_cfg *cfg)
{
	struct htbx_core_node setup;
	int i;

	memset(&b[k], 0, sizeof(b[k]));		/* kzalloc */
	htbx_node_setup(&setup, cfg);
	htbx_bucket_fill(&b[k], &setup, clock_ns());
	for (i = 0; i < nq; i++) {
		pthread_mutex_lock(&qs[i].lock);
		node_add(i, k, cfg, clock_ns());
		qs[i].linked[k] = true;
		pthread_mutex_unlock(&qs[i].lock);
	}
	present[k] = true;
}

/* As htbx_delete: on each queue in turn, its leaf purged, its node unlinked. */
static void cls_del(int k)
{
	int i;

	present[k] = false;
	for (i = 0; i < nq; i++) {
		pthread_mutex_lock(&qs[i].lock);
		qs[i].linked[k] = false;
		qs[i].t[k].qlen = 0;
		htbx_core_deactivate(&qs[i].s.q, &qs[i].t[k].cl);
		if (htbx_core_del(&qs[i].s.q, &qs[i].t[k].cl, clock_ns()))
			qs[i].err = "churn: parent became a leaf";
		pthread_mutex_unlock(&qs[i].lock);
	}
}

/*
 * As htbx_queue_reset on every queue: leaves emptied, nodes at rest, the
 * shared buckets left as they are (they keep what a class owes).
 */
static void reset_all(u64 now)
{
	int i, k;

	for (i = 0; i < nq; i++) {
		for (k = 0; k < NCLS; k++) {
			if (!qs[i].linked[k])
				continue;
			qs[i].t[k].qlen = 0;
			htbx_core_reset_node(&qs[i].s.q, &qs[i].t[k].cl, now);
		}
		htbx_core_reset(&qs[i].s.q);
	}
}

static int nodes(struct queue *q, struct tcls **ts)
{
	int k, n = 0;

	for (k = 0; k < NCLS; k++)
		if (q->linked[k])
			ts[n++] = &q->t[k];
	return n;
}

static bool mine(const struct queue *q, const struct tpkt *p)
{
	return p->owner >= &q->t[0] && p->owner < &q->t[NCLS] &&
	       &p->owner->pkt == p && !p->owner->cl.level;
}

static void *queue_thread(void *arg)
{
	struct queue *q = arg;
	struct tcls *ts[NCLS];
	struct tpkt *p = NULL;
	u64 now, next, r;
	int k, j, n;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && !q->err) {
		pthread_mutex_lock(&q->lock);
		now = clock_ns();
		/*
		 * Bursty feeding: an idle leaf gets 1..32 packets now and
		 * then, more often on some queues than on others; now and
		 * then a leaf drops all it holds (purge). Queue 0 keeps
		 * leaf BUSY backlogged: its class never goes idle, and its
		 * nodes on the other queues come and go beside it.
		 */
		for (k = 0; k < NCLS; k++) {
			if (inner[k] || !q->linked[k])
				continue;
			r = xorshift64s(&q->seed);
			if (k == BUSY && !q->idx) {
				if (q->t[k].qlen < 8)
					tc_fill(&q->s, &q->t[k], 64);
			} else if (!q->t[k].qlen &&
			    !(r % (u64)(4 << ((k + q->idx) % 3))))
				tc_fill(&q->s, &q->t[k], 1 + (r >> 32) % 64);
			else if (q->t[k].qlen && !((r >> 20) % 1024))
				tc_empty(&q->s, &q->t[k]);
		}
		for (j = 0; j < 16; j++) {
			p = htbx_core_dequeue(&q->s.q, now);
			q->deqs++;
			if (!p)
				break;
			if (!mine(q, p)) {
				q->err = "a packet of another queue's node";
				break;
			}
			q->bytes += p->len;
			q->pkts++;
		}
		if (!p)
			q->nulls++;
		if (!(++q->loops % 512)) {
			n = nodes(q, ts);
			if (!q->err)
				q->err = core_check(&q->s.q, ts, n);
		}
		next = q->s.q.next_event;
		pthread_mutex_unlock(&q->lock);
		if (!p && next > now) {
			/* the watchdog: wake at the next event */
			q->sleeps++;
			sleep_ns(min_t(u64, next - now, 200 * 1000));
		} else if (!p) {
			sched_yield();
		}
	}
	return NULL;
}

static void lock_all(void)
{
	int i;

	for (i = 0; i < nq; i++)
		pthread_mutex_lock(&qs[i].lock);
}

static void unlock_all(void)
{
	int i;

	for (i = nq; i-- > 0;)
		pthread_mutex_unlock(&qs[i].lock);
}

/*
 * What a dump reads: queue 0's nodes (xstats) and the counters of every
 * queue's nodes and core, each under its queue's lock.
 */
static u64 dump_queue(int i)
{
	u64 s = 0;
	int k;

	/* a deleted node's counters are still there to read */
	for (k = 0; k < NCLS; k++) {
		s += qs[i].t[k].cl.overlimits;
		s += qs[i].t[k].cl.lends;
		s += qs[i].t[k].cl.borrows;
		s += qs[i].t[k].cl.giants;
	}
	s += qs[i].s.q.overlimits;
	s += qs[i].s.q.budget_hits;
	return s;
}

static void dump(void)
{
	struct tc_htbx_xstats xs;
	u64 s = 0;
	int i, k;

	pthread_mutex_lock(&qs[0].lock);
	for (k = 0; k < NCLS; k++)
		if (present[k]) {
			htbx_node_xstats(&qs[0].t[k].cl, &xs);
			s += xs.lends + xs.tokens;
		}
	s += dump_queue(0);
	pthread_mutex_unlock(&qs[0].lock);
	for (i = 1; i < nq; i++) {
		pthread_mutex_lock(&qs[i].lock);
		s += dump_queue(i);
		pthread_mutex_unlock(&qs[i].lock);
	}
	dump_sum += s;
	n_dump++;
}

/*
 * Configuration about every half millisecond, a queue at a time: a
 * class's rate, ceil, prio and (leaves) quantum; the churn class deleted
 * or added again; rarely a reset of everything, with every queue's lock.
 */
static void *config_thread(void *arg)
{
	static const u32 quanta[] = { 1000, 1500, 3000, 6000, 20000 };
	struct htbx_cfg cfg;
	u64 seed = 0x5eed, r;
	int i, k;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		sleep_ns(500 * 1000);
		dump();
		r = xorshift64s(&seed);
		if (r % 256 == 0) {
			lock_all();
			reset_all(clock_ns());
			unlock_all();
			n_reset++;
		} else if (r % 8 == 1) {
			if (present[CHURN]) {
				cls_del(CHURN);
				n_del++;
			} else {
				cfg = cls_cfg(CHURN, rdiv[CHURN], 1,
					      prio0[CHURN], quant0[CHURN]);
				cls_add(CHURN, &cfg);
				n_add++;
			}
		} else {
			/*
			 * Any class below the root: its rate at most the one
			 * it starts with, so rates stay under parents'; an
			 * inner class's ceiling stays the root's, so the
			 * leaves together can fill the root's.
			 */
			k = 1 + (int)((r >> 8) % (NCLS - 1));
			if (present[k]) {
				cfg = cls_cfg(k, rdiv[k] << ((r >> 16) % 3),
					      inner[k] ? 1 : 1u << ((r >> 20) % 3),
					      (r >> 24) % 4,
					      quanta[(r >> 28) % 5]);
				/* the kernel keeps an inner class's quantum */
				if (inner[k])
					cfg.quantum = qs[0].t[k].cl.cfg.quantum;
				/* as htbx_class_change: a queue at a time */
				for (i = 0; i < nq; i++) {
					pthread_mutex_lock(&qs[i].lock);
					htbx_core_change(&qs[i].s.q,
							 &qs[i].t[k].cl, &cfg,
							 clock_ns());
					pthread_mutex_unlock(&qs[i].lock);
				}
				n_change++;
			}
		}
	}
	return NULL;
}

/*
 * The buckets' counts, recounted from the nodes (every thread joined):
 * nactive (leaves' active nodes), demand (inner nodes' published prios),
 * infeed (nodes in a parent's feed) and borrow_quanta (quanta of the children
 * counted in a feed) and rate_vtime_sum (the active nodes' virtual times,
 * summed). @zero: and all of them 0.
 */
static const char *counts(bool zero)
{
	static char why[160];
	int i, k, j, pr, n, want;
	s64 w;

	for (k = 0; k < NCLS; k++) {
		if (!present[k])
			continue;
		for (n = 0, i = 0; i < nq; i++)
			n += qs[i].t[k].cl.pub_active;
		if (n != atomic_read(&b[k].nactive) || (zero && n)) {
			snprintf(why, sizeof(why), "class %d: nactive %d, nodes %d",
				 k, atomic_read(&b[k].nactive), n);
			return why;
		}
		/* the active nodes' virtual times, whatever the queues raced */
		for (w = 0, i = 0; i < nq; i++)
			if (qs[i].t[k].cl.pub_active)
				w += qs[i].t[k].cl.rate_vtime;
		if (w != atomic64_read(&b[k].rate_vtime_sum)) {
			snprintf(why, sizeof(why), "class %d: rate_vtime_sum %lld, nodes %lld (%d active)",
				 k, (long long)atomic64_read(&b[k].rate_vtime_sum),
				 (long long)w, n);
			return why;
		}
		for (n = 0, i = 0; i < nq; i++)
			n += qs[i].t[k].cl.cmode == HTBX_CANT_SEND;
		if (n != atomic_read(&b[k].cant_send) || (zero && n)) {
			snprintf(why, sizeof(why), "class %d: cant_send %d, nodes %d",
				 k, atomic_read(&b[k].cant_send), n);
			return why;
		}
		for (pr = 0; pr < HTBX_CORE_NUMPRIO; pr++) {
			for (n = 0, want = 0, i = 0; i < nq; i++) {
				n += !!(qs[i].t[k].cl.infeed & BIT(pr));
				want += !!(qs[i].t[k].cl.published & BIT(pr));
			}
			for (w = 0, j = 0; j < NCLS; j++)
				if (present[j] && par[j] == k &&
				    (int)htbx_bucket_infeed(&b[j], pr))
					w += b[j].quantum;
			if (n == (int)htbx_bucket_infeed(&b[k], pr) &&
			    want == atomic_read(&b[k].demand[pr]) &&
			    w == atomic64_read(&b[k].borrow_quanta[pr]) &&
			    (!zero || !(n | want | w)))
				continue;
			snprintf(why, sizeof(why),
				 "class %d prio %d: infeed %d (nodes %d), demand %d (nodes %d), borrow_quanta %lld (children %lld)",
				 k, pr, (int)htbx_bucket_infeed(&b[k], pr), n,
				 atomic_read(&b[k].demand[pr]), want,
				 (long long)atomic64_read(
					 &b[k].borrow_quanta[pr]),
				 (long long)w);
			return why;
		}
	}
	return NULL;
}

static int tapn, failed;

static void tap(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tapn);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed += !ok;
}

static void run(int n, u64 dur)
{
	struct tcls *ts[NCLS];
	pthread_t cfgt;
	struct htbx_cfg cfg;
	u64 t0, t1, sent = 0, pkts = 0, deqs = 0, most, el, slack;
	unsigned long w0 = kshim_warnings;
	const char *e = NULL;
	int i, k;

	nq = n;
	memset(b, 0, sizeof(b));
	memset(qs, 0, sizeof(qs));
	memset(present, 0, sizeof(present));
	n_change = n_add = n_del = n_reset = n_dump = 0;
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	t0 = clock_ns();
	for (i = 0; i < nq; i++) {
		pthread_mutex_init(&qs[i].lock, NULL);
		qs[i].idx = i;
		qs[i].seed = 0x9e3779b97f4a7c15ULL * (u64)(i + 1);
		sim_init(&qs[i].s, 0);
		qs[i].s.now = t0;
	}
	for (k = 0; k < NCLS; k++) {
		cfg = cls_cfg(k, rdiv[k], cdiv[k], prio0[k], quant0[k]);
		cls_add(k, &cfg);
	}
	for (i = 0; i < nq; i++)
		pthread_create(&qs[i].thr, NULL, queue_thread, &qs[i]);
	pthread_create(&cfgt, NULL, config_thread, NULL);
	sleep_ns(dur);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nq; i++)
		pthread_join(qs[i].thr, NULL);
	pthread_join(cfgt, NULL);
	t1 = clock_ns();

	for (i = 0; i < nq; i++) {
		sent += qs[i].bytes;
		pkts += qs[i].pkts;
		deqs += qs[i].deqs;
		if (!e)
			e = qs[i].err;
	}
	tap(!e && kshim_warnings == w0 && n_change && pkts,
	    "tsan mq, %d queues: %.2f s, %llu dequeues, %llu packets, %llu changes, %llu adds, %llu deletes, %llu resets, %llu dumps%s%s%s",
	    nq, (double)(t1 - t0) / SEC, (unsigned long long)deqs,
	    (unsigned long long)pkts, (unsigned long long)n_change,
	    (unsigned long long)n_add, (unsigned long long)n_del,
	    (unsigned long long)n_reset, (unsigned long long)n_dump,
	    e ? ": " : "", e ?: "",
	    kshim_warnings != w0 ? " [WARN fired]" : "");

	for (e = NULL, i = 0; i < nq && !e; i++)
		e = core_check(&qs[i].s.q, ts, nodes(&qs[i], ts));
	tap(!e, "tsan mq, %d queues: every core's invariants after the join%s%s",
	    nq, e ? ": " : "", e ?: "");

	e = counts(false);
	if (!e) {
		reset_all(t1);
		e = counts(true);
	}
	tap(!e, "tsan mq, %d queues: buckets' counts match the nodes, all 0 after a reset%s%s",
	    nq, e ? ": " : "", e ?: "");

	/*
	 * The root's ceiling: C x elapsed + its cburst, + one packet per
	 * queue (queues that read its last tokens at once), + the burst of
	 * every class below it (on its own rate a class is not held to
	 * its ancestors' ceilings, as in HTB), again after each reset
	 * (full buckets) and for each add of the churn class.
	 */
	el = t1 - t0;
	most = (u64)((double)C * el / SEC) + RBURST + (u64)nq * MAXPKT;
	slack = (n_reset + 1) * (RBURST + (NCLS - 1) * BURST) - RBURST +
		n_add * BURST;
	tap(sent <= most + slack,
	    "tsan mq, %d queues: root ceil held: %llu bytes in %.3f s, %.1f %% of ceil, %lld bytes over ceil x time (allowed %llu + %llu for bursts below)",
	    nq, (unsigned long long)sent, (double)el / SEC,
	    100.0 * sent / ((double)C * el / SEC),
	    (long long)(sent - (s64)((double)C * el / SEC)),
	    (unsigned long long)(most - (u64)((double)C * el / SEC)),
	    (unsigned long long)slack);
	for (i = 0; i < nq; i++)
		pthread_mutex_destroy(&qs[i].lock);
}


/*
 * rate_vtime_sum under races alone: one leaf class, its node on each of @n
 * queues driven by a thread of its own (each node is its queue's, as
 * under that queue's lock in the kernel). Every thread charges packets
 * of 64..1514 bytes; those of queues 1..n-1 make their nodes active and
 * inactive every few packets, while queue 0's stays active throughout,
 * so that the class never goes idle. After the join, the bucket's sum
 * must be the nodes'.
 */
static struct htbx_bucket race_bucket;
static struct htbx_core_node race_node[MAXQ];
static u64 race_iters;

static void *race_thread(void *arg)
{
	struct htbx_core_node *cl = arg;
	int i = (int)(cl - race_node);
	u64 seed = 0x9e3779b97f4a7c15ULL * (u64)(i + 1), r, j;
	u32 len;

	for (j = 0; j < race_iters; j++) {
		r = xorshift64s(&seed);
		if (i && !(r % 4)) {
			cl->prio_activity ^= BIT(0);
			htbx_share_publish(cl);
		}
		len = 64 + (u32)((r >> 32) % (MAXPKT - 64 + 1));
		htbx_share_charge(cl, 0, 0, len, len, clock_ns());
	}
	return NULL;
}

static void lead_race(int n, u64 iters)
{
	struct htbx_cfg cfg = mkcfg(C, C, 0, 1500);
	pthread_t thr[MAXQ];
	s64 w = 0;
	int i, act = 0;

	memset(&race_bucket, 0, sizeof(race_bucket));
	memset(race_node, 0, sizeof(race_node));
	race_iters = iters;
	for (i = 0; i < n; i++) {
		htbx_node_setup(&race_node[i], &cfg);
		race_node[i].bucket = &race_bucket;
	}
	htbx_bucket_fill(&race_bucket, &race_node[0], clock_ns());
	race_node[0].prio_activity = BIT(0);
	htbx_share_publish(&race_node[0]);
	for (i = 0; i < n; i++)
		pthread_create(&thr[i], NULL, race_thread, &race_node[i]);
	for (i = 0; i < n; i++)
		pthread_join(thr[i], NULL);
	for (i = 0; i < n; i++) {
		if (!race_node[i].pub_active)
			continue;
		act++;
		w += race_node[i].rate_vtime;
	}
	tap(act == atomic_read(&race_bucket.nactive) &&
	    w == atomic64_read(&race_bucket.rate_vtime_sum),
	    "tsan mq, %d queues: rate_vtime_sum after %llu packets per queue, nodes joining and leaving: %lld, nodes %lld (%d active, nactive %d)",
	    n, (unsigned long long)iters,
	    (long long)atomic64_read(&race_bucket.rate_vtime_sum), (long long)w,
	    act, atomic_read(&race_bucket.nactive));
}


int main(int argc, char **argv)
{
	const char *ms = getenv("TSAN_MQ_MS");
	u64 dur = (ms ? strtoull(ms, NULL, 0) : 500) * MS;
	int n;

	(void)argc;
	(void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	C = MBIT(getenv("TSAN_MQ_MBIT") ? strtoull(getenv("TSAN_MQ_MBIT"), NULL, 0) : 100);
	for (n = 2; n <= MAXQ; n++)
		run(n, dur);
	lead_race(MAXQ, getenv("TSAN_MQ_RACE") ?
		  strtoull(getenv("TSAN_MQ_RACE"), NULL, 0) : 200000);
	printf("1..%d\n%d passed, %d failed\n", tapn, tapn - failed, failed);
	return failed ? 1 : 0;
}
