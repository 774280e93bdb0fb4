// SPDX-License-Identifier: GPL-2.0
/* test_math.c - psched_clock.h arithmetic and the event queue. */
#include "harness.h"

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	return xorshift64s(&rng_state);
}

/* Sum of carried-remainder charges equals the exact quotient. */
static bool t_xmit_exact(char *msg, size_t sz)
{
	static const u64 rates[] = { 1, 7, 125000, 1234567, 999999937ULL,
				     HTBX_MAX_RATE };
	unsigned int i;
	u64 n, worst = 0;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		unsigned __int128 bytes = 0, sum = 0, exact;
		u64 rem = 0;

		for (n = 0; n < 1000000; n++) {
			u64 len = 1 + rnd() % 65535;

			bytes += len;
			sum += htbx_xmit_ns(rates[i], len, &rem);
			if (rem >= rates[i])
				return false;
		}
		exact = bytes * SEC / rates[i];
		if (sum != exact) {
			FIG("rate %llu: charged %llu ns, exact %llu",
			    (unsigned long long)rates[i], (unsigned long long)sum,
			    (unsigned long long)exact);
			return false;
		}
		if ((u64)(sum - bytes * SEC / rates[i]) > worst)
			worst = sum - exact;
	}
	/* extremes cannot overflow */
	{
		u64 rem = HTBX_MAX_RATE - 1;
		struct htbx_lenspec atm = { .overhead = HTBX_MAX_OVERHEAD,
					    .linklayer = HTBX_LINKLAYER_ATM };
		u64 w = htbx_wire_len(&atm, U32_MAX);
		u64 t = htbx_xmit_ns(1, w, &rem);

		if (t != w * SEC + HTBX_MAX_RATE - 1 || rem)
			return false;
		if (htbx_bytes_to_ns(1, U32_MAX) != (s64)(U32_MAX * SEC) ||
		    htbx_bytes_to_ns(3, 1) != 333333334 ||
		    htbx_default_burst(HTBX_MAX_RATE, HTBX_MAX_MTU) != 1000000000 ||
		    htbx_default_burst(HTBX_MAX_RATE * 5, 1) != U32_MAX ||
		    htbx_default_burst(MBIT(1), 1600) != 3200 ||
		    htbx_default_burst(MBIT(100), 1600) != 12500)
			return false;
	}
	FIG("6 rates x 1e6 random lengths: sum of charges == floor(bytes*1e9/rate) exactly; extremes ok");
	return worst == 0;
}

/* A rate spread over every magnitude, 1 .. HTBX_MAX_RATE. */
static u64 rnd_rate(void)
{
	u64 r = rnd() >> (rnd() % 64);

	return 1 + r % HTBX_MAX_RATE;
}

/* The reciprocal form gives the divide's quotient and remainder. */
static bool t_xmit_recip(char *msg, size_t sz)
{
	static const u64 edge_rates[] = { 1, 2, 3, 7, 125000, 999999937ULL,
					  HTBX_MAX_RATE - 1, HTBX_MAX_RATE };
	static const u64 edge_bytes[] = { 1, 2, 1500, 65535, 0xffffffffULL,
					  (1ULL << 33) - 1 };
	u64 n, checked = 0;
	unsigned int i, j;

	for (n = 0; n < 4000000; n++) {
		u64 rate = rnd_rate();
		u64 bytes = 1 + rnd() % (1ULL << 33);
		u64 rem = rnd() % rate, rem2 = rem;
		u64 want = htbx_xmit_ns(rate, bytes, &rem);
		u64 got = htbx_xmit_ns_r(rate, htbx_rate_recip(rate), bytes,
					 &rem2);

		if (got != want || rem2 != rem) {
			FIG("rate %llu bytes %llu: %llu rem %llu, divide %llu rem %llu",
			    (unsigned long long)rate, (unsigned long long)bytes,
			    (unsigned long long)got, (unsigned long long)rem2,
			    (unsigned long long)want, (unsigned long long)rem);
			return false;
		}
		checked++;
	}
	for (i = 0; i < sizeof(edge_rates) / sizeof(edge_rates[0]); i++) {
		for (j = 0; j < sizeof(edge_bytes) / sizeof(edge_bytes[0]); j++) {
			u64 r = edge_rates[i], b = edge_bytes[j];
			u64 rems[] = { 0, r / 2, r - 1 };
			unsigned int k;

			for (k = 0; k < 3; k++) {
				u64 a = rems[k], c = rems[k];

				if (htbx_xmit_ns(r, b, &a) !=
				    htbx_xmit_ns_r(r, htbx_rate_recip(r), b, &c) ||
				    a != c)
					return false;
				checked++;
			}
		}
	}
	FIG("%llu (rate, bytes, remainder) triples, random and at the edges: same quotient and remainder as the divide",
	    (unsigned long long)checked);
	return true;
}

/* Pairing heap against a brute-force model. */
static bool t_pq_model(char *msg, size_t sz)
{
	enum { N = 1024 };
	static struct htbx_core_node c[N];
	static u64 key[N];
	static bool in[N];
	struct htbx_core_queue q;
	u64 ops, inserts = 0, removes = 0, pops = 0;
	int i, n_in = 0;

	htbx_core_init(&q);
	memset(c, 0, sizeof(c));
	memset(in, 0, sizeof(in));
	for (ops = 0; ops < 1000000; ops++) {
		u64 r = rnd();
		int k = (int)(r % N);
		int op = (int)((r >> 20) % 10);

		if (op < 5 && !in[k]) {
			key[k] = (r >> 32) % 100000;	/* many equal keys */
			htbx_pq_insert(&q, &c[k], key[k]);
			in[k] = true;
			n_in++;
			inserts++;
		} else if (op >= 5 && op < 8 && in[k]) {
			htbx_pq_remove(&q, &c[k]);
			in[k] = false;
			n_in--;
			removes++;
		} else if (op >= 8 && n_in) {
			struct htbx_core_node *m = htbx_pq_first(&q);
			u64 best = ~0ULL;

			for (i = 0; i < N; i++)
				if (in[i] && key[i] < best)
					best = key[i];
			if (!m || m->pq.key != best || !in[m - c]) {
				FIG("min mismatch after %llu ops", (unsigned long long)ops);
				return false;
			}
			htbx_pq_remove(&q, m);
			in[m - c] = false;
			n_in--;
			pops++;
		}
		if ((ops & 1023) == 0) {
			int cnt = 0;

			for (i = 0; i < N; i++) {
				if (c[i].in_pq != in[i])
					return false;
				cnt += in[i];
			}
			if (core_check(&q, NULL, 0) || cnt != n_in) {
				FIG("heap structure broken after %llu ops", (unsigned long long)ops);
				return false;
			}
		}
	}
	/* drain in order */
	{
		u64 last = 0;

		while (q.events) {
			struct htbx_core_node *m = htbx_pq_first(&q);

			if (m->pq.key < last)
				return false;
			last = m->pq.key;
			htbx_pq_remove(&q, m);
			n_in--;
		}
	}
	FIG("1e6 random ops (%llu inserts, %llu deletes, %llu pops) agree with a linear scan; drained sorted",
	    (unsigned long long)inserts, (unsigned long long)removes,
	    (unsigned long long)pops);
	return n_in == 0;
}

const struct utest tests_math[] = {
	{ "xmit_ns carries its remainder exactly", t_xmit_exact },
	{ "xmit_ns_r (reciprocal) equals xmit_ns", t_xmit_recip },
	{ "event queue vs brute-force model", t_pq_model },
	{ NULL, NULL },
};
