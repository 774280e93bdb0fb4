// SPDX-License-Identifier: GPL-2.0
/*
 * q_htbx.c - tc plugin for the htbx qdisc (Hierarchical Token Bucket with
 * a nanosecond clock).
 *
 * tc loads this file as q_htbx.so when it meets the kind "htbx" and calls
 * the five callbacks of htbx_qdisc_util: parse and print the qdisc
 * options, parse and print the class options, print the class xstats.
 *
 * A drop-in for tc-htb: renaming "htb" to "htbx" in a script changes
 * nothing else.
 *
 *  - Input: tc-htb's grammar, word for word: the same keywords with the
 *    same abbreviations (tc's matches(), tested in tc-htb's order), the
 *    same number, rate and size syntax (htbx_units.c), the same defaults.
 *    A class add, change or replace sends the whole class configuration,
 *    as tc-htb does: what the command does not give takes its default
 *    (ceil = rate; burst, cburst and quantum 0 = derived by the kernel
 *    from the new rate, ceil, mtu and r2q; prio 0; mtu 1600; mpu,
 *    overhead 0; ethernet). The word "partial" (htbx only) sends just the
 *    options given, and the kernel keeps the others.
 *    Values tc-htb takes and then adjusts are sent as given; the kernel
 *    adjusts them as htb does and says so in an extack warning. Values
 *    tc-htb itself turns into defaults (burst 0, quantum 0, ...) draw a
 *    "Warning: htbx: ..." from here. Every error is found before anything
 *    is added to the request, so a refused command sends nothing.
 *  - Output: the fields tc-htb prints, in its order, under its conditions
 *    (-s, -d, -r), in its units (tokens in 64 ns ticks) and with the same
 *    tc helpers (tc_print_rate, print_color_size) where tc exports them,
 *    in the text layout of the running tc (6.2 changed it). htbx's own
 *    fields follow htb's: in text only with -d, in JSON always, under
 *    names htb does not use (mtu, mode, deficit, tokens_ns, ctokens_ns,
 *    budget_hits).
 */
#include <stdbool.h>
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
"Usage: ... qdisc add ... htbx [default N] [r2q N] [direct_qlen P] [mq] [offload]\n"
" default      minor id (hex) of the class unclassified packets go to {0: none,\n"
"              they go to the direct queue}\n"
" r2q          quantum of a class without one = rate in bytes/s / r2q,\n"
"              clamped to %u..%u {%u}; 0 (or 2^31 and more) counts as 1\n"
" direct_qlen  limit of the direct queue in packets {txqueuelen of the device}\n"
" debug        accepted and ignored, as by htb\n"
" mq           one scheduler per TX queue, one class tree for all (root of a\n"
"              device with several TX queues; only when the qdisc is made)\n"
" offload      hardware offload: not supported, the kernel refuses it\n"
"A qdisc change or replace changes only the options given.\n",
		HTBX_MIN_QUANTUM, HTBX_MAX_QUANTUM, HTBX_DEFAULT_R2Q);
}

static void htbx_explain_class(void)
{
	fprintf(stderr,
"Usage: ... class add|change|replace ... htbx rate R1 [ceil R2] [burst B1]\n"
"                       [cburst B2] [prio P] [quantum Q] [mtu MTU] [mpu MPU]\n"
"                       [overhead O] [linklayer TYPE] [partial]\n"
" rate       rate guaranteed to the class {required}\n"
" ceil       most the class may send when it borrows {rate}\n"
" burst      bytes the class may send at once above rate; also buffer,\n"
"            maxburst {%llu ms of rate, at least %u x mtu}\n"
" cburst     the same for ceil; also cbuffer, cmaxburst {%llu ms of ceil,\n"
"            at least %u x mtu}\n"
" prio       priority of a leaf, 0 (served first) .. %u {0}; more is %u\n"
" quantum    bytes a leaf sends per DRR round among equal prio\n"
"            {rate / r2q of the qdisc, clamped to %u..%u}\n"
" mtu        longer packets count as giants {%u}\n"
" mpu        minimum length charged, 0..65535 {0}\n"
" overhead   bytes added to every length charged, %d..65535 {0}\n"
" linklayer  ethernet | atm | adsl (adsl = atm: 48 bytes per 53-byte cell)\n"
"            {ethernet}\n"
" partial    change only the options given (htbx only; without it, as with\n"
"            htb, every option not given takes its default)\n"
"Rates: NUMBER[bit|kbit|mbit|gbit|tbit] (bit/s, x1000), kibit mibit gibit\n"
"       tibit (x1024), bps kbps mbps gbps tbps kibps .. (BYTES/s), or N%%\n"
"       of the device speed; up to %llu bytes/s (8Tbit).\n"
"Sizes: NUMBER[b|k|kb|m|mb|g|gb] (bytes, x1024), kbit mbit gbit (bits).\n",
		(unsigned long long)(HTBX_DEFAULT_BURST_NS / 1000000),
		HTBX_DEFAULT_BURST_MIN_MTUS,
		(unsigned long long)(HTBX_DEFAULT_BURST_NS / 1000000),
		HTBX_DEFAULT_BURST_MIN_MTUS,
		HTBX_MAX_PRIO, HTBX_MAX_PRIO, HTBX_MIN_QUANTUM,
		HTBX_MAX_QUANTUM, HTBX_DEFAULT_MTU, HTBX_MIN_OVERHEAD,
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

/* Where tc-htb silently turns a value into a default, htbx says so. */
static void htbx_warn(const char *msg)
{
	fprintf(stderr, "Warning: htbx: %s.\n", msg);
}

/*
 * Speed of @dev in Mbit/s from sysfs, as tc's get_percent_rate64 reads it;
 * -1 with a message when unknown (virtual devices without a speed).
 */
static long long htbx_dev_mbit(const char *dev)
{
	char path[128], buf[64], *end;
	long long mbit;
	FILE *f;

	if (!dev || !*dev) {
		fprintf(stderr, "No device specified; specify device to rate limit by percentage\n");
		return -1;
	}
	if (strchr(dev, '/'))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", dev);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		fprintf(stderr, "htbx: the speed of %s is unknown (%s)\n", dev,
			path);
		return -1;
	}
	fclose(f);
	mbit = strtoll(buf, &end, 0);
	if (end == buf || (*end && *end != '\n') || mbit <= 0) {
		fprintf(stderr, "htbx: the speed of %s is unknown (%s)\n", dev,
			path);
		return -1;
	}
	return mbit;
}

/* rate or ceil: a rate, or N% of the device speed, as tc-htb reads them */
static int htbx_get_rate(const char *opt, const char *str, const char *dev,
			 uint64_t *rate)
{
	long long mbit;
	double frac;
	int rc;

	if (strchr(str, '%')) {
		rc = htbx_tc_percent(str, &frac);
		if (rc)
			return htbx_illegal(opt, str, rc > 0 ?
				"a percentage must be 0..100%" :
				"a percentage is NUMBER%, e.g. 50%");
		mbit = htbx_dev_mbit(dev);
		if (mbit < 0)
			return htbx_illegal(opt, str,
				"a percentage needs the device speed");
		*rate = (uint64_t)(frac * (double)mbit * 1e6 / 8);
		return 0;
	}
	if (htbx_tc_rate(str, rate))
		return htbx_illegal(opt, str,
			"a rate is NUMBER[UNIT], e.g. 10mbit, 1.5gbit, 100kbps (bytes/s)");
	return 0;
}

/*
 * The value after option argv[0]; none ends tc as tc-htb's NEXT_ARG() does
 * (incomplete_command(): a message and exit status 255).
 */
#define HTBX_NEXT_ARG(opt) do {						\
		argc--, argv++;						\
		if (argc <= 0) {					\
			if (incomplete_command)				\
				incomplete_command();			\
			return htbx_illegal(opt, NULL,			\
					    "needs a value (try \"help\")"); \
		}							\
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
	unsigned int given;	/* 1 << TCA_HTBX_* of what is sent */
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
	const char *w;

	(void)qu;
	(void)dev;
	/* tc-htb's keywords, abbreviations and order */
	for (; argc > 0; argc--, argv++) {
		w = *argv;
		if (!htbx_matches(w, "r2q")) {
			HTBX_NEXT_ARG("r2q");
			if (htbx_tc_uint(*argv, 10, UINT32_MAX, &o.r2q))
				return htbx_illegal("r2q", *argv,
					"a whole number, 0..4294967295");
			o.given |= 1U << TCA_HTBX_R2Q;
		} else if (!htbx_matches(w, "default")) {
			HTBX_NEXT_ARG("default");
			if (htbx_tc_uint(*argv, 16, UINT32_MAX, &o.defcls))
				return htbx_illegal("default", *argv,
					"a class minor id in hex, e.g. 10 or 0x1f");
			o.given |= 1U << TCA_HTBX_DEFCLS;
		} else if (!htbx_matches(w, "debug")) {
			HTBX_NEXT_ARG("debug");
			htbx_warn("debug is ignored, as by htb");
		} else if (!htbx_matches(w, "direct_qlen")) {
			HTBX_NEXT_ARG("direct_qlen");
			if (htbx_tc_uint(*argv, 10, UINT32_MAX, &o.direct_qlen))
				return htbx_illegal("direct_qlen", *argv,
					"packets, 0..4294967295");
			if (o.direct_qlen == UINT32_MAX) {
				/* tc-htb's "not given" */
				htbx_warn("direct_qlen 4294967295 means the default (the device's txqueuelen), as in htb");
				o.given &= ~(1U << TCA_HTBX_DIRECT_QLEN);
			} else {
				o.given |= 1U << TCA_HTBX_DIRECT_QLEN;
			}
		} else if (!htbx_matches(w, "offload")) {
			o.given |= 1U << TCA_HTBX_OFFLOAD;
		} else if (strcmp(w, "mq") == 0) {
			o.given |= 1U << TCA_HTBX_MQ;
		} else if (strcmp(w, "help") == 0) {
			htbx_explain_qdisc();
			return -1;
		} else {
			return htbx_what_is(w, htbx_explain_qdisc);
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
	if (HTBX_GIVEN(&o, TCA_HTBX_MQ) && htbx_put(n, TCA_HTBX_MQ, NULL, 0))
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

/* Text and JSON as the running tc prints tc-htb ---------------------- */

/*
 * tc 6.2 and later print tc-htb's class options in the "6.2 layout"
 * (print_* calls that also make class JSON; "cburst %s" without its
 * trailing blank, "burst %s/%u" without the blank before "mpu"), older tc
 * with fprintf. tc 6.2 itself cannot be told from 6.1 in text mode: it
 * gets 6.1's two blanks (see tc_plugin_abi.h).
 */
static bool htbx_tc_layout_62(void)
{
	return is_json_context() || print_ext_msg || print_color_bool_opt ||
	       uint_to_str || print_range || print_num;
}

/* A line break inside an option dump: tc-htb's, per layout. */
static void htbx_nl(bool l62)
{
	if (l62)
		print_nl();
	else	/* fprintf(f, "...\n"): even under tc -oneline */
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", "\n");
}

static int htbx_use_iec(void)
{
	return &use_iec ? use_iec : 0;
}

/* tc_print_rate where tc has it (tc 5.11+), else the same text */
static void htbx_print_rate(const char *key, const char *fmt, uint64_t rate)
{
	char buf[HTBX_FMT_LEN];

	if (tc_print_rate) {
		tc_print_rate(PRINT_ANY, key, fmt, rate);
		return;
	}
	htbx_fmt_rate(buf, sizeof(buf), rate, htbx_use_iec());
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
	print_color_u64(PRINT_JSON, COLOR_NONE, key, NULL, rate);
}

/* print_size (print_color_size) where tc has it (tc 5.11+), else the same */
static void htbx_print_size(const char *key, const char *fmt, uint32_t size)
{
	char buf[HTBX_FMT_LEN];

	if (print_color_size) {
		print_color_size(PRINT_ANY, COLOR_NONE, key, fmt, size);
		return;
	}
	htbx_fmt_size(buf, sizeof(buf), size);
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
	print_color_uint(PRINT_JSON, COLOR_NONE, key, NULL, size);
}

/* A signed 64-bit value: print_color_s64 (tc 6.1+), else a string. */
static void htbx_print_s64(enum output_type t, const char *key,
			   const char *fmt_lld, const char *fmt_s, int64_t v)
{
	char buf[32];

	if (print_color_s64) {
		print_color_s64(t, COLOR_NONE, key, fmt_lld, v);
		return;
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	print_color_string(t, COLOR_NONE, key, fmt_s, buf);
}

/* htb's unit for tokens: PSCHED_NS2TICKS (ns >> 6), clamped to int32 */
static int htbx_ticks(int64_t ns)
{
	int64_t t = ns >> 6;	/* arithmetic: floor, as the kernel's s64 >> */

	if (t > INT32_MAX)
		return INT32_MAX;
	if (t < INT32_MIN)
		return INT32_MIN;
	return (int)t;
}

/* ticks of the time @bytes take at @rate, as htb keeps buffer/cbuffer */
static uint32_t htbx_buffer_ticks(uint64_t rate, uint32_t bytes)
{
	unsigned __int128 ns;

	if (!rate)
		return 0;
	ns = ((unsigned __int128)bytes * 1000000000u + rate - 1) / rate;
	ns >>= 6;
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static int htbx_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_HTBX_MAX + 1];
	uint32_t v;
	uint64_t v64;
	char ver[16];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	htbx_parse_opt_attr(tb, opt);

	/* tc-htb's fields, formats and order */
	if (htbx_u32(tb[TCA_HTBX_R2Q], &v))
		print_color_int(PRINT_ANY, COLOR_NONE, "r2q", "r2q %d", (int)v);
	if (htbx_u32(tb[TCA_HTBX_DEFCLS], &v))
		print_color_0xhex(PRINT_ANY, COLOR_NONE, "default",
				  " default %#llx", v);
	if (htbx_u64(tb[TCA_HTBX_DIRECT_PKTS], &v64))
		print_color_u64(PRINT_ANY, COLOR_NONE, "direct_packets_stat",
				" direct_packets_stat %llu", v64);
	if (show_details && htbx_u32(tb[TCA_HTBX_VERSION], &v)) {
		snprintf(ver, sizeof(ver), "%u", v);
		print_color_string(PRINT_ANY, COLOR_NONE, "ver", " ver %s", ver);
	}
	if (htbx_u32(tb[TCA_HTBX_DIRECT_QLEN], &v))
		print_color_uint(PRINT_ANY, COLOR_NONE, "direct_qlen",
				 " direct_qlen %u", v);
	if (tb[TCA_HTBX_OFFLOAD])
		print_color_null(PRINT_ANY, COLOR_NONE, "offload", " offload",
				 NULL);
	if (tb[TCA_HTBX_MQ])
		print_color_null(PRINT_ANY, COLOR_NONE, "mq", " mq", NULL);

	/* htbx's own: text with -d, JSON always */
	if (htbx_u64(tb[TCA_HTBX_BUDGET_HITS], &v64))
		print_color_u64(show_details ? PRINT_ANY : PRINT_JSON,
				COLOR_NONE, "budget_hits", " budget_hits %llu",
				v64);
	return 0;
}

/* class */

struct htbx_copt {
	unsigned int given;	/* 1 << TCA_HTBX_* of what is sent */
	unsigned int typed_zero; /* ... of what the user gave as 0 */
	bool partial;
	uint64_t rate, ceil;
	uint32_t burst, cburst, prio, quantum, mtu, mpu;
	int32_t overhead;
	uint8_t linklayer;
};

/* burst, cburst and their aliases: tc's size syntax, 0 = the default */
static int htbx_parse_burst(const char *opt, const char *str, uint32_t *val)
{
	int cell_log;

	if (htbx_tc_size(str, val, &cell_log))
		return htbx_illegal(opt, str,
			"bytes, 0..4294967295, e.g. 1600, 15k, 2m (a /CELL, a power of two, is ignored)");
	return 0;
}

static int htbx_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			   struct nlmsghdr *n, const char *dev)
{
	struct htbx_copt o = { 0 };
	struct rtattr *tail;
	const char *w;
	uint32_t u;
	uint64_t *r;

	(void)qu;
	/* tc-htb's keywords, abbreviations (matches()) and order */
	for (; argc > 0; argc--, argv++) {
		w = *argv;
		if (!htbx_matches(w, "prio")) {
			HTBX_NEXT_ARG("prio");
			if (htbx_tc_uint(*argv, 10, UINT32_MAX, &o.prio))
				return htbx_illegal("prio", *argv,
					"a whole number, 0 (served first) .. 7; more counts as 7");
			o.given |= 1U << TCA_HTBX_PRIO;
		} else if (!htbx_matches(w, "mtu")) {
			HTBX_NEXT_ARG("mtu");
			if (htbx_tc_uint(*argv, 10, UINT32_MAX, &o.mtu))
				return htbx_illegal("mtu", *argv,
					"bytes, a whole number");
			o.given |= 1U << TCA_HTBX_MTU;
		} else if (!htbx_matches(w, "mpu")) {
			HTBX_NEXT_ARG("mpu");
			if (htbx_tc_uint(*argv, 10, 65535, &o.mpu))
				return htbx_illegal("mpu", *argv,
					"bytes, 0..65535");
			o.given |= 1U << TCA_HTBX_MPU;
		} else if (!htbx_matches(w, "overhead")) {
			HTBX_NEXT_ARG("overhead");
			/* tc-htb's u16, and htbx's negative overhead */
			if (htbx_tc_uint(*argv, 10, 65535, &u) == 0)
				o.overhead = (int32_t)u;
			else if (htbx_parse_s32(*argv, HTBX_MIN_OVERHEAD, -1,
						&o.overhead))
				return htbx_illegal("overhead", *argv,
					"bytes, -64..65535");
			o.given |= 1U << TCA_HTBX_OVERHEAD;
		} else if (!htbx_matches(w, "linklayer")) {
			HTBX_NEXT_ARG("linklayer");
			if (!htbx_matches(*argv, "ethernet"))
				o.linklayer = HTBX_LINKLAYER_ETHERNET;
			else if (!htbx_matches(*argv, "atm") ||
				 !htbx_matches(*argv, "adsl"))
				o.linklayer = HTBX_LINKLAYER_ATM;
			else
				return htbx_illegal("linklayer", *argv,
					"one of ethernet, atm, adsl");
			o.given |= 1U << TCA_HTBX_LINKLAYER;
		} else if (!htbx_matches(w, "quantum")) {
			HTBX_NEXT_ARG("quantum");
			if (htbx_tc_uint(*argv, 10, UINT32_MAX, &o.quantum))
				return htbx_illegal("quantum", *argv,
					"bytes, a whole number");
			o.given |= 1U << TCA_HTBX_QUANTUM;
		} else if (!htbx_matches(w, "burst") || strcmp(w, "buffer") == 0 ||
			   strcmp(w, "maxburst") == 0) {
			HTBX_NEXT_ARG(w);
			if (htbx_parse_burst(w, *argv, &o.burst))
				return -1;
			o.given |= 1U << TCA_HTBX_BURST;
		} else if (!htbx_matches(w, "cburst") || strcmp(w, "cbuffer") == 0 ||
			   strcmp(w, "cmaxburst") == 0) {
			HTBX_NEXT_ARG(w);
			if (htbx_parse_burst(w, *argv, &o.cburst))
				return -1;
			o.given |= 1U << TCA_HTBX_CBURST;
		} else if (strcmp(w, "ceil") == 0 || strcmp(w, "rate") == 0) {
			r = w[0] == 'c' ? &o.ceil : &o.rate;
			HTBX_NEXT_ARG(w);
			/* as tc-htb: a second one only after a zero one */
			if (*r) {
				fprintf(stderr, "Double \"%s\" spec\n", w);
				return -1;
			}
			if (htbx_get_rate(w, *argv, dev, r))
				return -1;
			o.given |= 1U << (w[0] == 'c' ? TCA_HTBX_CEIL :
					  TCA_HTBX_RATE);
		} else if (strcmp(w, "partial") == 0) {
			o.partial = true;
		} else if (strcmp(w, "help") == 0) {
			htbx_explain_class();
			return -1;
		} else {
			return htbx_what_is(w, htbx_explain_class);
		}
	}

	/*
	 * tc-htb wants a rate on every command; "partial" on a change
	 * (no NLM_F_CREATE) does not. A rate that came out as 0 bytes/s
	 * ("7bit") is tc-htb's missing rate.
	 */
	if ((!o.partial || (n->nlmsg_flags & NLM_F_CREATE) ||
	     HTBX_GIVEN(&o, TCA_HTBX_RATE)) && !o.rate) {
		fprintf(stderr, "\"rate\" is required.\n");
		htbx_explain_class();
		return -1;
	}
	/*
	 * Zeros mean "the default" in tc-htb. They are sent as 0, which the
	 * kernel derives (ceil: the rate; burst, cburst: from rate, ceil and
	 * mtu; quantum: rate / r2q; mtu: 1600), now and on later changes.
	 */
#define HTBX_ZERO(attr, val) do {					\
		if (HTBX_GIVEN(&o, attr) && !(val))			\
			o.typed_zero |= 1U << (attr);			\
	} while (0)
	HTBX_ZERO(TCA_HTBX_BURST, o.burst);
	HTBX_ZERO(TCA_HTBX_CBURST, o.cburst);
	HTBX_ZERO(TCA_HTBX_QUANTUM, o.quantum);
	HTBX_ZERO(TCA_HTBX_MTU, o.mtu);
	HTBX_ZERO(TCA_HTBX_CEIL, o.ceil);
#undef HTBX_ZERO
	/* tc-htb's change: the whole class, defaults for what is not given */
	if (!o.partial) {
		if (!HTBX_GIVEN(&o, TCA_HTBX_MTU))
			o.mtu = HTBX_DEFAULT_MTU;
		o.given = ~0U;
	}
	/* what tc-htb turns into defaults without a word */
	if (o.typed_zero & (1U << TCA_HTBX_BURST))
		htbx_warn("burst 0 means the default burst, as in htb");
	if (o.typed_zero & (1U << TCA_HTBX_CBURST))
		htbx_warn("cburst 0 means the default cburst, as in htb");
	if (o.typed_zero & (1U << TCA_HTBX_QUANTUM))
		htbx_warn("quantum 0 means rate/r2q, as in htb");
	if (o.typed_zero & (1U << TCA_HTBX_MTU))
		htbx_warn("mtu 0 means the default mtu, 1600");
	if (o.typed_zero & (1U << TCA_HTBX_CEIL))
		htbx_warn("ceil 0 means ceil = rate, as in htb");

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

static int htbx_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_HTBX_MAX + 1];
	uint32_t level = 0, prio = 0, quantum = 0, burst = 0, cburst = 0;
	uint32_t mtu = HTBX_DEFAULT_MTU, mpu = 0, ov = 0;
	uint64_t rate = 0, ceil = 0;
	uint8_t ll = HTBX_LINKLAYER_ETHERNET;
	bool l62 = htbx_tc_layout_62();
	int32_t overhead;
	char raw[64];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	htbx_parse_opt_attr(tb, opt);
	if (!htbx_u64(tb[TCA_HTBX_RATE], &rate))
		return 0;	/* not a class dump */
	htbx_u32(tb[TCA_HTBX_LEVEL], &level);
	htbx_u32(tb[TCA_HTBX_PRIO], &prio);
	htbx_u32(tb[TCA_HTBX_QUANTUM], &quantum);
	htbx_u64(tb[TCA_HTBX_CEIL], &ceil);
	htbx_u32(tb[TCA_HTBX_BURST], &burst);
	htbx_u32(tb[TCA_HTBX_CBURST], &cburst);
	htbx_u32(tb[TCA_HTBX_MTU], &mtu);
	htbx_u32(tb[TCA_HTBX_MPU], &mpu);
	htbx_u32(tb[TCA_HTBX_OVERHEAD], &ov);
	overhead = (int32_t)ov;
	if (tb[TCA_HTBX_LINKLAYER] && RTA_PAYLOAD(tb[TCA_HTBX_LINKLAYER]) >= 1)
		ll = *(uint8_t *)RTA_DATA(tb[TCA_HTBX_LINKLAYER]);

	/* tc-htb's fields, formats, conditions and order */
	if (!level) {
		print_color_int(PRINT_ANY, COLOR_NONE, "prio", "prio %d ",
				(int)prio);
		if (show_details)
			print_color_int(PRINT_ANY, COLOR_NONE, "quantum",
					"quantum %d ", (int)quantum);
	}
	htbx_print_rate("rate", "rate %s ", rate);
	if (overhead > 0)
		print_color_uint(PRINT_ANY, COLOR_NONE, "overhead",
				 "overhead %u ", (unsigned int)overhead);
	else if (overhead < 0)	/* htbx only: htb's overhead is unsigned */
		print_color_int(PRINT_ANY, COLOR_NONE, "overhead",
				"overhead %d ", overhead);
	htbx_print_rate("ceil", "ceil %s ", ceil);
	if (ll != HTBX_LINKLAYER_ETHERNET || show_details)
		print_color_string(PRINT_ANY, COLOR_NONE, "linklayer",
				   "linklayer %s ", ll <= HTBX_LINKLAYER_MAX ?
				   htbx_linklayers[ll] : "unknown");
	if (show_details) {
		/* no cell sizes: "/1", as the kernel's htb dumps cell_log 0 */
		htbx_print_size("burst", "burst %s/", burst);
		print_color_uint(PRINT_ANY, COLOR_NONE, "burst_cell",
				 l62 ? "%u" : "%u ", 1);
		htbx_print_size("mpu_rate", "mpu %s ", mpu);
		htbx_print_size("cburst", "cburst %s/", cburst);
		print_color_uint(PRINT_ANY, COLOR_NONE, "cburst_cell",
				 l62 ? "%u" : "%u ", 1);
		htbx_print_size("mpu_ceil", "mpu %s ", mpu);
		print_color_int(PRINT_ANY, COLOR_NONE, "level", "level %d ",
				(int)level);
	} else {
		htbx_print_size("burst", "burst %s ", burst);
		htbx_print_size("cburst", l62 ? "cburst %s" : "cburst %s ",
				cburst);
	}
	if (&show_raw && show_raw) {
		snprintf(raw, sizeof(raw), "buffer [%08x] cbuffer [%08x] ",
			 htbx_buffer_ticks(rate, burst),
			 htbx_buffer_ticks(ceil, cburst));
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s", raw);
	}

	/* htbx's own: text with -d, after htb's; JSON always */
	print_color_uint(show_details ? PRINT_ANY : PRINT_JSON, COLOR_NONE,
			 "mtu", "mtu %u ", mtu);
	return 0;
}

static int htbx_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	enum output_type extra = show_details ? PRINT_ANY : PRINT_JSON;
	bool l62 = htbx_tc_layout_62();
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
		/* the qdisc's, from an older sch_htbx: budget_hits is an option now */
		if (qx.tag == HTBX_XSTATS_QDISC)
			return 0;
	}
	if (len < offsetof(struct tc_htbx_xstats, deficit))
		return -1;
	memset(&st, 0, sizeof(st));
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	/* tc-htb's, tokens in its 64 ns ticks */
	print_color_u64(PRINT_ANY, COLOR_NONE, "lended", " lended: %llu ",
			st.lends);
	print_color_u64(PRINT_ANY, COLOR_NONE, "borrowed", "borrowed: %llu ",
			st.borrows);
	print_color_u64(PRINT_ANY, COLOR_NONE, "giants", "giants: %llu",
			st.giants);
	htbx_nl(l62);
	print_color_int(PRINT_ANY, COLOR_NONE, "tokens", " tokens: %d ",
			htbx_ticks(st.tokens));
	print_color_int(PRINT_ANY, COLOR_NONE, "ctokens", "ctokens: %d",
			htbx_ticks(st.ctokens));
	htbx_nl(l62);

	/* htbx's own: a third line with -d; JSON always */
	print_color_string(extra, COLOR_NONE, "mode", " mode: %s",
			   st.mode <= HTBX_CAN_SEND ? htbx_modes[st.mode] :
			   "unknown");
	if (len >= offsetof(struct tc_htbx_xstats, quantum))
		print_color_int(extra, COLOR_NONE, "deficit", " deficit: %d",
				st.deficit);
	htbx_print_s64(extra, "tokens_ns", " tokens_ns: %lld",
		       " tokens_ns: %s", st.tokens);
	htbx_print_s64(extra, "ctokens_ns", " ctokens_ns: %lld",
		       " ctokens_ns: %s", st.ctokens);
	if (show_details)
		htbx_nl(l62);
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
