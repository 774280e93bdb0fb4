// SPDX-License-Identifier: GPL-2.0
/*
 * q_htbx.c - tc plugin for the htbx qdisc (Hierarchical Token Bucket with
 * a nanosecond clock).
 *
 * tc loads this file as q_htbx.so when it meets the kind "htbx" and calls
 * the five callbacks of htbx_qdisc_util: parse and print the qdisc
 * options, parse and print the class options, print the class xstats.
 *
 * The grammar is tc-htb(8)'s. Differences that follow from the kernel
 * side: rates and sizes are sent as plain 64/32-bit numbers (no rate
 * tables, no ticks), and only the options the user gave are sent, so a
 * "change" changes exactly those and the kernel derives the rest (the
 * default burst is HTBX_DEFAULT_BURST_NS of the rate, at least
 * HTBX_DEFAULT_BURST_MIN_MTUS mtus; nothing here reads /proc/net/psched).
 *
 * Every error is found before anything is added to the request, so a
 * command with a bad option sends nothing.
 *
 * Output: one field per print_color_* call, text and JSON from the same
 * place. Numbers tc-htb shows in human units (rates, sizes, times) are
 * printed twice, human text for PRINT_FP and the raw number for PRINT_JSON:
 * rates in bytes per second, sizes in bytes, tokens in nanoseconds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc_plugin_abi.h"
#include "htbx_units.h"
#include "../include/uapi/linux/pkt_sched_htbx.h"

#define HTBX_REQ_MAX	4096	/* room tc leaves for TCA_OPTIONS */

static const char *const htbx_linklayers[] = {
	[HTBX_LINKLAYER_ETHERNET]	= "ethernet",
	[HTBX_LINKLAYER_ATM]		= "atm",
};

static const char *const htbx_modes[] = {
	[HTBX_CANT_SEND]	= "cant_send",
	[HTBX_MAY_BORROW]	= "may_borrow",
	[HTBX_CAN_SEND]		= "can_send",
};

static void htbx_explain_qdisc(void)
{
	fprintf(stderr,
"Usage: ... qdisc add ... htbx [default N] [r2q N] [direct_qlen P] [offload]\n"
" default      minor id (hex) of the class unclassified packets go to {0: none,\n"
"              they go to the direct queue}\n"
" r2q          quantum of a class without one = rate in bytes/s / r2q,\n"
"              clamped to %u..%u {%u}; 1..4294967295\n"
" direct_qlen  limit of the direct queue in packets, 0..%u\n"
"              {txqueuelen of the device}\n"
" offload      hardware offload: not supported, the kernel refuses it\n",
		HTBX_MIN_QUANTUM, HTBX_MAX_QUANTUM, HTBX_DEFAULT_R2Q,
		HTBX_MAX_DIRECT_QLEN);
}

static void htbx_explain_class(void)
{
	fprintf(stderr,
"Usage: ... class add ... htbx rate R1 [ceil R2] [burst B1] [cburst B2]\n"
"                       [prio P] [quantum Q] [mtu MTU] [mpu MPU]\n"
"                       [overhead O] [linklayer TYPE]\n"
" rate       rate guaranteed to the class {required on add; change keeps it}\n"
" ceil       most the class may send when it borrows {rate}\n"
" burst      bytes the class may send at once above rate; also buffer,\n"
"            maxburst {%llu ms of rate, at least %u x mtu}\n"
" cburst     the same for ceil; also cbuffer, cmaxburst {%llu ms of ceil,\n"
"            at least %u x mtu}\n"
" prio       priority of a leaf, 0 (served first) .. %u {0}\n"
" quantum    bytes a leaf sends per DRR round among equal prio, 1..%u\n"
"            {rate / r2q of the qdisc, clamped to %u..%u}\n"
" mtu        longer packets count as giants, 1..%u {%u}\n"
" mpu        minimum length charged, 0..%u {0}\n"
" overhead   bytes added to every length charged, %d..%d {0}\n"
" linklayer  ethernet | atm | adsl (adsl = atm: 48 bytes per 53-byte cell)\n"
"            {ethernet}\n"
"Rates: NUMBER[bit|kbit|mbit|gbit|tbit] (bit/s, x1000), kibit mibit gibit\n"
"       tibit (x1024), bps kbps mbps gbps tbps kibps .. (BYTES/s), or N%%\n"
"       of the device speed; 1 byte/s .. %llu bytes/s (8Tbit).\n"
"Sizes: NUMBER[b|k|kb|m|mb|g|gb] (bytes, x1024), kbit mbit gbit (bits).\n",
		(unsigned long long)(HTBX_DEFAULT_BURST_NS / 1000000),
		HTBX_DEFAULT_BURST_MIN_MTUS,
		(unsigned long long)(HTBX_DEFAULT_BURST_NS / 1000000),
		HTBX_DEFAULT_BURST_MIN_MTUS,
		HTBX_MAX_PRIO, UINT32_MAX, HTBX_MIN_QUANTUM, HTBX_MAX_QUANTUM,
		HTBX_MAX_MTU, HTBX_DEFAULT_MTU, HTBX_MAX_MPU,
		HTBX_MIN_OVERHEAD, HTBX_MAX_OVERHEAD,
		(unsigned long long)HTBX_MAX_RATE);
}

static int htbx_illegal(const char *opt, const char *val, const char *range)
{
	fprintf(stderr, "Illegal \"%s\"%s%s%s: %s\n", opt,
		val ? " value \"" : "", val ? val : "", val ? "\"" : "", range);
	return -1;
}

static int htbx_what_is(const char *word, void (*explain)(void))
{
	fprintf(stderr, "What is \"%s\"?\n", word);
	explain();
	return -1;
}

/* Speed of dev in bytes/s from sysfs, 0 if unknown (virtual devices). */
static uint64_t htbx_dev_speed(const char *dev)
{
	char path[128];
	long long mbit = -1;
	FILE *f;

	if (!dev || strchr(dev, '/'))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", dev);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lld", &mbit) != 1)
		mbit = -1;
	fclose(f);
	return mbit > 0 ? (uint64_t)mbit * 1000000 / 8 : 0;
}

static int htbx_get_rate(const char *opt, const char *str, const char *dev,
			 uint64_t *rate)
{
	double pct;
	uint64_t speed;

	if (htbx_parse_percent(str, &pct) == 0) {
		speed = htbx_dev_speed(dev);
		if (!speed)
			return htbx_illegal(opt, str,
				"a percentage needs the device speed, which is unknown for this device");
		*rate = (uint64_t)(speed * pct / 100);
		if (*rate < 1 || *rate > HTBX_MAX_RATE)
			return htbx_illegal(opt, str, "the rate must be 1 byte/s .. 8Tbit");
		return 0;
	}
	if (htbx_parse_rate(str, HTBX_MAX_RATE, rate))
		return htbx_illegal(opt, str,
			"valid: 8bit .. 8Tbit, e.g. 10mbit, 1.5gbit, 100kbps (bytes/s)");
	return 0;
}

/* The value after option argv[0], or an error if there is none. */
#define HTBX_NEXT_ARG(opt) do {						\
		argc--, argv++;						\
		if (argc <= 0)						\
			return htbx_illegal(opt, NULL,			\
					    "needs a value (try \"help\")"); \
	} while (0)

static int htbx_put(struct nlmsghdr *n, int type, const void *data, int len)
{
	if (addattr_l(n, HTBX_REQ_MAX, type, data, len)) {
		fprintf(stderr, "htbx: request too long\n");
		return -1;
	}
	return 0;
}

static struct rtattr *htbx_nest(struct nlmsghdr *n)
{
	return addattr_nest(n, HTBX_REQ_MAX, TCA_OPTIONS | NLA_F_NESTED);
}

/* qdisc */

struct htbx_qopt {
	unsigned int given;	/* 1 << TCA_HTBX_* of what the user said */
	uint32_t defcls;
	uint32_t r2q;
	uint32_t direct_qlen;
};

#define HTBX_GIVEN(o, attr)	((o)->given & (1U << (attr)))

static int htbx_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			   struct nlmsghdr *n, const char *dev)
{
	struct htbx_qopt o = { 0 };
	struct rtattr *tail;
	char range[64];

	(void)qu;
	(void)dev;
	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "default") == 0) {
			HTBX_NEXT_ARG("default");
			if (htbx_parse_u32(*argv, 16, 0, 0xffff, &o.defcls))
				return htbx_illegal("default", *argv,
					"a class minor id in hex, 0..ffff");
			o.given |= 1U << TCA_HTBX_DEFCLS;
		} else if (strcmp(*argv, "r2q") == 0) {
			HTBX_NEXT_ARG("r2q");
			if (htbx_parse_u32(*argv, 0, 1, UINT32_MAX, &o.r2q))
				return htbx_illegal("r2q", *argv,
					"valid range 1..4294967295");
			o.given |= 1U << TCA_HTBX_R2Q;
		} else if (strcmp(*argv, "direct_qlen") == 0) {
			HTBX_NEXT_ARG("direct_qlen");
			if (htbx_parse_u32(*argv, 0, 0, HTBX_MAX_DIRECT_QLEN,
					   &o.direct_qlen)) {
				snprintf(range, sizeof(range),
					 "valid range 0..%u packets",
					 HTBX_MAX_DIRECT_QLEN);
				return htbx_illegal("direct_qlen", *argv, range);
			}
			o.given |= 1U << TCA_HTBX_DIRECT_QLEN;
		} else if (strcmp(*argv, "offload") == 0) {
			o.given |= 1U << TCA_HTBX_OFFLOAD;
		} else if (strcmp(*argv, "help") == 0) {
			htbx_explain_qdisc();
			return -1;
		} else {
			return htbx_what_is(*argv, htbx_explain_qdisc);
		}
	}

	tail = htbx_nest(n);
	if (!tail)
		return -1;
	if (HTBX_GIVEN(&o, TCA_HTBX_DEFCLS) &&
	    htbx_put(n, TCA_HTBX_DEFCLS, &o.defcls, sizeof(o.defcls)))
		return -1;
	if (HTBX_GIVEN(&o, TCA_HTBX_R2Q) &&
	    htbx_put(n, TCA_HTBX_R2Q, &o.r2q, sizeof(o.r2q)))
		return -1;
	if (HTBX_GIVEN(&o, TCA_HTBX_DIRECT_QLEN) &&
	    htbx_put(n, TCA_HTBX_DIRECT_QLEN, &o.direct_qlen,
		     sizeof(o.direct_qlen)))
		return -1;
	if (HTBX_GIVEN(&o, TCA_HTBX_OFFLOAD) &&
	    htbx_put(n, TCA_HTBX_OFFLOAD, NULL, 0))
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

/* Reading dump attributes: present and long enough, or not there at all. */
static int htbx_u32(struct rtattr *a, uint32_t *v)
{
	if (!a || RTA_PAYLOAD(a) < sizeof(*v))
		return 0;
	memcpy(v, RTA_DATA(a), sizeof(*v));
	return 1;
}

static int htbx_u64(struct rtattr *a, uint64_t *v)
{
	uint32_t v32;

	if (a && RTA_PAYLOAD(a) >= sizeof(*v)) {
		memcpy(v, RTA_DATA(a), sizeof(*v));
		return 1;
	}
	if (htbx_u32(a, &v32)) {	/* tolerate a 32-bit counter */
		*v = v32;
		return 1;
	}
	return 0;
}

static int htbx_parse_opt_attr(struct rtattr **tb, struct rtattr *opt)
{
	memset(tb, 0, sizeof(*tb) * (TCA_HTBX_MAX + 1));
	return parse_rtattr_flags(tb, TCA_HTBX_MAX, RTA_DATA(opt),
				  RTA_PAYLOAD(opt), NLA_F_NESTED);
}

static int htbx_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_HTBX_MAX + 1];
	uint32_t v;
	uint64_t v64;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	htbx_parse_opt_attr(tb, opt);

	if (htbx_u32(tb[TCA_HTBX_R2Q], &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "r2q", "r2q %u", v);
	if (htbx_u32(tb[TCA_HTBX_DEFCLS], &v))
		print_color_0xhex(PRINT_ANY, COLOR_NONE, "default",
				  " default %#llx", v);
	if (htbx_u64(tb[TCA_HTBX_DIRECT_PKTS], &v64))
		print_color_u64(PRINT_ANY, COLOR_NONE, "direct_packets_stat",
				" direct_packets_stat %llu", v64);
	if (show_details && htbx_u32(tb[TCA_HTBX_VERSION], &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "ver", " ver %u", v);
	if (htbx_u32(tb[TCA_HTBX_DIRECT_QLEN], &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "direct_qlen",
				 " direct_qlen %u", v);
	if (tb[TCA_HTBX_OFFLOAD])
		print_color_null(PRINT_ANY, COLOR_NONE, "offload", " offload",
				 NULL);
	return 0;
}

/* class */

struct htbx_copt {
	unsigned int given;	/* 1 << TCA_HTBX_* of what the user said */
	uint64_t rate, ceil;
	uint32_t burst, cburst, prio, quantum, mtu, mpu;
	int32_t overhead;
	uint8_t linklayer;
};

/* Class options that take a size in bytes, with their aliases and ranges. */
static const struct htbx_size_opt {
	const char	*name;
	int		attr;
	uint32_t	min, max;
	size_t		off;
} htbx_size_opts[] = {
#define HTBX_SIZE_OPT(n, a, lo, hi, f) \
	{ n, a, lo, hi, offsetof(struct htbx_copt, f) }
	HTBX_SIZE_OPT("burst", TCA_HTBX_BURST, 1, UINT32_MAX, burst),
	HTBX_SIZE_OPT("buffer", TCA_HTBX_BURST, 1, UINT32_MAX, burst),
	HTBX_SIZE_OPT("maxburst", TCA_HTBX_BURST, 1, UINT32_MAX, burst),
	HTBX_SIZE_OPT("cburst", TCA_HTBX_CBURST, 1, UINT32_MAX, cburst),
	HTBX_SIZE_OPT("cbuffer", TCA_HTBX_CBURST, 1, UINT32_MAX, cburst),
	HTBX_SIZE_OPT("cmaxburst", TCA_HTBX_CBURST, 1, UINT32_MAX, cburst),
	HTBX_SIZE_OPT("quantum", TCA_HTBX_QUANTUM, 1, UINT32_MAX, quantum),
	HTBX_SIZE_OPT("mtu", TCA_HTBX_MTU, 1, HTBX_MAX_MTU, mtu),
	HTBX_SIZE_OPT("mpu", TCA_HTBX_MPU, 0, HTBX_MAX_MPU, mpu),
#undef HTBX_SIZE_OPT
};

static const struct htbx_size_opt *htbx_size_opt(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(htbx_size_opts) / sizeof(htbx_size_opts[0]); i++)
		if (strcmp(name, htbx_size_opts[i].name) == 0)
			return &htbx_size_opts[i];
	return NULL;
}

static int htbx_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			   struct nlmsghdr *n, const char *dev)
{
	const struct htbx_size_opt *so;
	struct htbx_copt o = { 0 };
	struct rtattr *tail;
	const char *opt;
	char range[80];

	(void)qu;
	for (; argc > 0; argc--, argv++) {
		opt = *argv;
		if (strcmp(opt, "rate") == 0 || strcmp(opt, "ceil") == 0) {
			int ceil = opt[0] == 'c';

			HTBX_NEXT_ARG(opt);
			if (htbx_get_rate(opt, *argv, dev,
					  ceil ? &o.ceil : &o.rate))
				return -1;
			o.given |= 1U << (ceil ? TCA_HTBX_CEIL : TCA_HTBX_RATE);
		} else if ((so = htbx_size_opt(opt)) != NULL) {
			uint32_t *val = (uint32_t *)((char *)&o + so->off);

			HTBX_NEXT_ARG(opt);
			if (htbx_parse_size(*argv, so->min, so->max, val, NULL)) {
				snprintf(range, sizeof(range),
					 "bytes, %u..%u (suffixes b k m g)",
					 so->min, so->max);
				return htbx_illegal(opt, *argv, range);
			}
			o.given |= 1U << so->attr;
		} else if (strcmp(opt, "prio") == 0) {
			HTBX_NEXT_ARG(opt);
			if (htbx_parse_u32(*argv, 10, 0, HTBX_MAX_PRIO, &o.prio)) {
				snprintf(range, sizeof(range),
					 "valid range 0..%u", HTBX_MAX_PRIO);
				return htbx_illegal(opt, *argv, range);
			}
			o.given |= 1U << TCA_HTBX_PRIO;
		} else if (strcmp(opt, "overhead") == 0) {
			HTBX_NEXT_ARG(opt);
			if (htbx_parse_s32(*argv, HTBX_MIN_OVERHEAD,
					   HTBX_MAX_OVERHEAD, &o.overhead)) {
				snprintf(range, sizeof(range),
					 "bytes, %d..%d", HTBX_MIN_OVERHEAD,
					 HTBX_MAX_OVERHEAD);
				return htbx_illegal(opt, *argv, range);
			}
			o.given |= 1U << TCA_HTBX_OVERHEAD;
		} else if (strcmp(opt, "linklayer") == 0) {
			HTBX_NEXT_ARG(opt);
			if (strcmp(*argv, "ethernet") == 0)
				o.linklayer = HTBX_LINKLAYER_ETHERNET;
			else if (strcmp(*argv, "atm") == 0 ||
				 strcmp(*argv, "adsl") == 0)
				o.linklayer = HTBX_LINKLAYER_ATM;
			else
				return htbx_illegal(opt, *argv,
					"one of ethernet, atm, adsl");
			o.given |= 1U << TCA_HTBX_LINKLAYER;
		} else if (strcmp(opt, "help") == 0) {
			htbx_explain_class();
			return -1;
		} else {
			return htbx_what_is(opt, htbx_explain_class);
		}
	}

	/* add and replace create the class: they need a rate */
	if ((n->nlmsg_flags & NLM_F_CREATE) &&
	    !HTBX_GIVEN(&o, TCA_HTBX_RATE)) {
		fprintf(stderr, "htbx: \"rate\" is required.\n");
		htbx_explain_class();
		return -1;
	}

	tail = htbx_nest(n);
	if (!tail)
		return -1;
	if ((HTBX_GIVEN(&o, TCA_HTBX_RATE) &&
	     htbx_put(n, TCA_HTBX_RATE, &o.rate, sizeof(o.rate))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_CEIL) &&
	     htbx_put(n, TCA_HTBX_CEIL, &o.ceil, sizeof(o.ceil))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_BURST) &&
	     htbx_put(n, TCA_HTBX_BURST, &o.burst, sizeof(o.burst))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_CBURST) &&
	     htbx_put(n, TCA_HTBX_CBURST, &o.cburst, sizeof(o.cburst))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_PRIO) &&
	     htbx_put(n, TCA_HTBX_PRIO, &o.prio, sizeof(o.prio))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_QUANTUM) &&
	     htbx_put(n, TCA_HTBX_QUANTUM, &o.quantum, sizeof(o.quantum))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_MTU) &&
	     htbx_put(n, TCA_HTBX_MTU, &o.mtu, sizeof(o.mtu))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_MPU) &&
	     htbx_put(n, TCA_HTBX_MPU, &o.mpu, sizeof(o.mpu))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_OVERHEAD) &&
	     htbx_put(n, TCA_HTBX_OVERHEAD, &o.overhead,
		      sizeof(o.overhead))) ||
	    (HTBX_GIVEN(&o, TCA_HTBX_LINKLAYER) &&
	     htbx_put(n, TCA_HTBX_LINKLAYER, &o.linklayer,
		      sizeof(o.linklayer))))
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

/* Human text for PRINT_FP, the raw number for PRINT_JSON. */
static void htbx_print_rate(const char *key, const char *fmt, uint64_t rate)
{
	char buf[HTBX_FMT_LEN];

	htbx_fmt_rate(buf, sizeof(buf), rate);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
	print_color_u64(PRINT_JSON, COLOR_NONE, key, NULL, rate);
}

static void htbx_print_size(const char *key, const char *fmt, uint32_t size)
{
	char buf[HTBX_FMT_LEN];

	htbx_fmt_size(buf, sizeof(buf), size);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
	print_color_uint(PRINT_JSON, COLOR_NONE, key, NULL, size);
}

static const char *htbx_fmt_s64(char *buf, size_t sz, int64_t v)
{
	snprintf(buf, sz, "%lld", (long long)v);
	return buf;
}

static void htbx_print_ns(const char *key, const char *fmt, int64_t ns)
{
	char buf[HTBX_FMT_LEN];

	htbx_fmt_time(buf, sizeof(buf), ns);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
	/* the exact value, never clamped: s64 where tc has it */
	if (print_color_s64)
		print_color_s64(PRINT_JSON, COLOR_NONE, key, NULL, ns);
	else if (ns >= INT32_MIN && ns <= INT32_MAX)
		print_color_int(PRINT_JSON, COLOR_NONE, key, NULL, (int)ns);
	else if (ns > 0)
		print_color_u64(PRINT_JSON, COLOR_NONE, key, NULL, ns);
	else	/* old tc without s64: a JSON string keeps the value exact */
		print_color_string(PRINT_JSON, COLOR_NONE, key, NULL,
				   htbx_fmt_s64(buf, sizeof(buf), ns));
}

static int htbx_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_HTBX_MAX + 1];
	uint32_t v, level = 0, mtu = HTBX_DEFAULT_MTU;
	uint64_t v64;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	htbx_parse_opt_attr(tb, opt);
	htbx_u32(tb[TCA_HTBX_LEVEL], &level);

	/* prio and quantum matter for leaves only, as in tc-htb */
	if ((level == 0 || show_details) && htbx_u32(tb[TCA_HTBX_PRIO], &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "prio", "prio %u ", v);
	if ((level == 0 || show_details) && htbx_u32(tb[TCA_HTBX_QUANTUM], &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "quantum",
				 "quantum %u ", v);
	if (htbx_u64(tb[TCA_HTBX_RATE], &v64))
		htbx_print_rate("rate", "rate %s ", v64);
	if (htbx_u64(tb[TCA_HTBX_CEIL], &v64))
		htbx_print_rate("ceil", "ceil %s ", v64);
	if (htbx_u32(tb[TCA_HTBX_BURST], &v))
		htbx_print_size("burst", "burst %s ", v);
	if (htbx_u32(tb[TCA_HTBX_CBURST], &v))
		htbx_print_size("cburst", "cburst %s ", v);
	if (htbx_u32(tb[TCA_HTBX_MTU], &mtu) &&
	    (show_details || mtu != HTBX_DEFAULT_MTU))
		print_color_uint(PRINT_ANY, COLOR_NONE, "mtu", "mtu %u ", mtu);
	if (htbx_u32(tb[TCA_HTBX_MPU], &v) && (show_details || v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "mpu", "mpu %u ", v);
	if (htbx_u32(tb[TCA_HTBX_OVERHEAD], &v) && (show_details || v))
		print_color_int(PRINT_ANY, COLOR_NONE, "overhead",
				"overhead %d ", (int)v);
	if (tb[TCA_HTBX_LINKLAYER] && RTA_PAYLOAD(tb[TCA_HTBX_LINKLAYER]) >= 1) {
		uint8_t ll = *(uint8_t *)RTA_DATA(tb[TCA_HTBX_LINKLAYER]);

		if (show_details || ll != HTBX_LINKLAYER_ETHERNET)
			print_color_string(PRINT_ANY, COLOR_NONE, "linklayer",
					   "linklayer %s ",
					   ll <= HTBX_LINKLAYER_MAX ?
					   htbx_linklayers[ll] : "unknown");
	}
	if (tb[TCA_HTBX_LEVEL])
		print_color_uint(PRINT_ANY, COLOR_NONE, "level", "level %u ",
				 level);
	return 0;
}

static int htbx_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_htbx_qdisc_xstats qx;
	struct tc_htbx_xstats st;
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	/* older or newer kernels: use the fields both sides know */
	len = RTA_PAYLOAD(xstats);
	if (len >= offsetof(struct tc_htbx_qdisc_xstats, budget_hits) + 8) {
		memcpy(&qx, RTA_DATA(xstats), sizeof(qx));
		if (qx.tag == HTBX_XSTATS_QDISC) {
			/* the qdisc's: htb prints none, so -d only */
			if (show_details)
				print_color_u64(PRINT_ANY, COLOR_NONE,
						"budget_hits",
						" budget_hits %llu",
						qx.budget_hits);
			return 0;
		}
	}
	if (len < offsetof(struct tc_htbx_xstats, deficit))
		return -1;
	memset(&st, 0, sizeof(st));
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	print_color_u64(PRINT_ANY, COLOR_NONE, "lended", " lended: %llu ",
			st.lends);
	print_color_u64(PRINT_ANY, COLOR_NONE, "borrowed", "borrowed: %llu ",
			st.borrows);
	print_color_u64(PRINT_ANY, COLOR_NONE, "giants", "giants: %llu",
			st.giants);
	print_nl();
	htbx_print_ns("tokens", " tokens: %s ", st.tokens);
	htbx_print_ns("ctokens", "ctokens: %s", st.ctokens);
	if (show_details) {
		print_color_string(PRINT_ANY, COLOR_NONE, "mode", " mode: %s",
				   st.mode <= HTBX_CAN_SEND ?
				   htbx_modes[st.mode] : "unknown");
		if (len >= offsetof(struct tc_htbx_xstats, quantum))
			print_color_int(PRINT_ANY, COLOR_NONE, "deficit",
					" deficit: %d", st.deficit);
	}
	print_nl();
	return 0;
}

struct qdisc_util htbx_qdisc_util = {
	.id		= "htbx",
	.parse_qopt	= htbx_parse_qopt,
	.print_qopt	= htbx_print_qopt,
	.print_xstats	= htbx_print_xstats,
	.parse_copt	= htbx_parse_copt,
	.print_copt	= htbx_print_copt,
};
