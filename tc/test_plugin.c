// SPDX-License-Identifier: GPL-2.0
/*
 * test_plugin.c - drive q_htbx.so without tc and without a kernel.
 *
 * Plays tc's part: exports the helpers the plugin imports (built with
 * -rdynamic), dlopens ./q_htbx.so with RTLD_NOW (so a missing helper
 * fails here), and
 *   test_plugin parse qdisc|class add|change|replace OPTION...
 *	calls parse_qopt/parse_copt and prints the attributes put into
 *	TCA_OPTIONS, one "NAME=value" a line; exit 1 if the plugin refused.
 *   test_plugin print qdisc|class|xstats [-d] [-j] [-r] [-i] NAME=value...
 *	builds a dump from the pairs and prints what the plugin prints; -j
 *	prints "key=value" lines for what would go into JSON.
 *
 * Built three times, as three tc generations (tc/Makefile):
 *   test_plugin	tc 6.1: tc_print_rate, print_color_size, print_color_s64
 *   test_plugin_615	tc 6.15: the same and print_ext_msg (6.2 layout)
 *   test_plugin_510	tc 5.10: none of the weak helpers (the plugin's own
 *			formatting)
 * The helpers format as tc does (written here from iproute2's behaviour);
 * with HTBX_TRACE=1 each also names itself on stderr, so a test can see
 * that the plugin called tc's helper rather than its fallback.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tc_plugin_abi.h"
#include "../include/uapi/linux/pkt_sched_htbx.h"

#ifndef TC_VER
#define TC_VER 601
#endif

int show_stats, show_details, show_raw, use_iec;
static int json;

static const char *const names[TCA_HTBX_MAX + 1] = {
	[TCA_HTBX_DEFCLS] = "DEFCLS", [TCA_HTBX_R2Q] = "R2Q",
	[TCA_HTBX_DIRECT_QLEN] = "DIRECT_QLEN",
	[TCA_HTBX_OFFLOAD] = "OFFLOAD",
	[TCA_HTBX_DIRECT_PKTS] = "DIRECT_PKTS",
	[TCA_HTBX_VERSION] = "VERSION", [TCA_HTBX_RATE] = "RATE",
	[TCA_HTBX_CEIL] = "CEIL", [TCA_HTBX_BURST] = "BURST",
	[TCA_HTBX_CBURST] = "CBURST", [TCA_HTBX_PRIO] = "PRIO",
	[TCA_HTBX_QUANTUM] = "QUANTUM", [TCA_HTBX_MTU] = "MTU",
	[TCA_HTBX_MPU] = "MPU", [TCA_HTBX_OVERHEAD] = "OVERHEAD",
	[TCA_HTBX_LINKLAYER] = "LINKLAYER", [TCA_HTBX_LEVEL] = "LEVEL",
	[TCA_HTBX_BUDGET_HITS] = "BUDGET_HITS", [TCA_HTBX_MQ] = "MQ",
};

/* sizes of the attributes as the kernel's policy wants them */
static int attr_len(int type)
{
	switch (type) {
	case TCA_HTBX_OFFLOAD:
	case TCA_HTBX_MQ:		return 0;
	case TCA_HTBX_LINKLAYER:	return 1;
	case TCA_HTBX_RATE: case TCA_HTBX_CEIL:
	case TCA_HTBX_DIRECT_PKTS:
	case TCA_HTBX_BUDGET_HITS:	return 8;
	default:			return 4;
	}
}

/* the tc helpers */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen)
{
	int len = RTA_LENGTH(alen);
	struct rtattr *rta;

	if ((int)(NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(len)) > maxlen)
		return -1;
	rta = (struct rtattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));
	rta->rta_type = type;
	rta->rta_len = len;
	if (alen)
		memcpy(RTA_DATA(rta), data, alen);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(len);
	return 0;
}

struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type)
{
	struct rtattr *nest = (struct rtattr *)((char *)n +
						NLMSG_ALIGN(n->nlmsg_len));

	if (addattr_l(n, maxlen, type, NULL, 0))
		return NULL;
	return nest;
}

int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (char *)n + NLMSG_ALIGN(n->nlmsg_len) - (char *)nest;
	return n->nlmsg_len;
}

int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags)
{
	memset(tb, 0, sizeof(struct rtattr *) * (max + 1));
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		unsigned short type = rta->rta_type & ~flags;

		if (type <= max && !tb[type])
			tb[type] = rta;
	}
	return 0;
}

#define PRINT_BODY(jfmt, val)						\
	do {								\
		if (json && (t & (PRINT_JSON | PRINT_ANY)))		\
			printf("%s=" jfmt "\n", key, val);		\
		else if (!json && (t & (PRINT_FP | PRINT_ANY)) && fmt)	\
			printf(fmt, val);				\
		return 0;						\
	} while (0)

int print_color_string(enum output_type t, enum color_attr c, const char *key,
		       const char *fmt, const char *value)
{
	(void)c;
	PRINT_BODY("%s", value);
}

int print_color_uint(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, unsigned int value)
{
	(void)c;
	PRINT_BODY("%u", value);
}

int print_color_int(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, int value)
{
	(void)c;
	PRINT_BODY("%d", value);
}

int print_color_u64(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, __u64 value)
{
	(void)c;
	PRINT_BODY("%llu", value);
}

int print_color_0xhex(enum output_type t, enum color_attr c, const char *key,
		      const char *fmt, unsigned long long value)
{
	(void)c;
	PRINT_BODY("%#llx", value);
}

int print_color_null(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, const char *value)
{
	(void)c;
	(void)value;
	if (json && (t & (PRINT_JSON | PRINT_ANY)))
		printf("%s=null\n", key);
	else if (!json && (t & (PRINT_FP | PRINT_ANY)) && fmt)
		printf("%s", fmt);
	return 0;
}

void print_nl(void)
{
	if (!json)
		printf("\n");
}

static void __attribute__((unused)) trace(const char *fn)
{
	if (getenv("HTBX_TRACE"))
		fprintf(stderr, "[%s]", fn);
}

#if TC_VER >= 511
/* lib/json_print.c print_color_rate, with tc's use_iec */
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate)
{
	static const char *const units[] = { "", "K", "M", "G", "T" };
	unsigned long kilo = use_iec ? 1024 : 1000;
	char buf[64];
	int i;

	trace("tc_print_rate");
	if (json && (t & (PRINT_JSON | PRINT_ANY))) {
		printf("%s=%llu\n", key, rate);
		return;
	}
	rate <<= 3;
	for (i = 0; i < 4; i++) {
		if (rate < kilo || (rate % kilo && rate < 1000 * kilo))
			break;
		rate /= kilo;
	}
	snprintf(buf, sizeof(buf), "%.0f%s%sbit", (double)rate, units[i],
		 i > 0 && use_iec ? "i" : "");
	print_color_string(t, COLOR_NONE, key, fmt, buf);
}

/* lib/json_print_math.c sprint_size + print_color_size */
int print_color_size(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, __u64 sz)
{
	double tmp = (__u32)sz;
	char buf[64];

	trace("print_color_size");
	if (json && (t & (PRINT_JSON | PRINT_ANY)))
		return printf("%s=%u\n", key, (__u32)sz);
	if (sz >= 1048576 && fabs(1048576 * rint(tmp / 1048576) - tmp) < 1024)
		snprintf(buf, sizeof(buf), "%gMb", rint(tmp / 1048576));
	else if (sz >= 1024 && fabs(1024 * rint(tmp / 1024) - tmp) < 16)
		snprintf(buf, sizeof(buf), "%gKb", rint(tmp / 1024));
	else
		snprintf(buf, sizeof(buf), "%ub", (__u32)sz);
	return print_color_string(t, c, key, fmt, buf);
}

int print_color_s64(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, __s64 value)
{
	(void)c;
	trace("print_color_s64");
	PRINT_BODY("%lld", (long long)value);
}
#endif

#if TC_VER >= 603
void print_ext_msg(void)
{
}
#endif

bool is_json_context(void)
{
	return json;
}

static int type_of(const char *name)
{
	int i;

	for (i = 0; i <= TCA_HTBX_MAX; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	fprintf(stderr, "test_plugin: unknown attribute %s\n", name);
	exit(2);
}

static int do_parse(struct qdisc_util *qu, int argc, char **argv)
{
	static union {
		struct nlmsghdr n;
		char buf[8192];
	} req;
	struct rtattr *opt, *rta;
	int cls = strcmp(argv[0], "class") == 0, len, rc;

	req.n.nlmsg_len = NLMSG_LENGTH(0);
	if (strcmp(argv[1], "add") == 0)
		req.n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	else if (strcmp(argv[1], "replace") == 0)
		req.n.nlmsg_flags = NLM_F_CREATE;
	rc = (cls ? qu->parse_copt : qu->parse_qopt)(qu, argc - 2, argv + 2,
						     &req.n, "dummy0");
	if (rc) {
		if (req.n.nlmsg_len != NLMSG_LENGTH(0))
			printf("BUG: refused but added attributes\n");
		return 1;
	}
	opt = (struct rtattr *)((char *)&req.n + NLMSG_LENGTH(0));
	if (req.n.nlmsg_len == NLMSG_LENGTH(0) ||
	    (opt->rta_type & ~NLA_F_NESTED) != TCA_OPTIONS) {
		printf("BUG: no TCA_OPTIONS\n");
		return 3;
	}
	if (!(opt->rta_type & NLA_F_NESTED))
		printf("BUG: TCA_OPTIONS without NLA_F_NESTED\n");
	len = RTA_PAYLOAD(opt);
	for (rta = RTA_DATA(opt); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		int type = rta->rta_type, alen = RTA_PAYLOAD(rta);
		long long v = 0;

		if (type > TCA_HTBX_MAX || !names[type] ||
		    alen != attr_len(type)) {
			printf("BUG: attribute %d length %d\n", type, alen);
			continue;
		}
		if (alen == 8)
			memcpy(&v, RTA_DATA(rta), 8);
		else if (alen == 4 && type == TCA_HTBX_OVERHEAD)
			v = *(int32_t *)RTA_DATA(rta);
		else if (alen == 4)
			v = *(uint32_t *)RTA_DATA(rta);
		else if (alen == 1)
			v = *(uint8_t *)RTA_DATA(rta);
		if (alen)
			printf("%s=%lld\n", names[type], v);
		else
			printf("%s\n", names[type]);
	}
	return 0;
}

static int do_print(struct qdisc_util *qu, int argc, char **argv)
{
	static union {
		struct nlmsghdr n;
		char buf[8192];
	} req;
	struct tc_htbx_xstats st = { .version = HTBX_VERSION };
	struct rtattr *nest;
	const char *what = argv[0];
	int i, xlen = sizeof(st);

	req.n.nlmsg_len = NLMSG_LENGTH(0);
	nest = addattr_nest(&req.n, sizeof(req), TCA_OPTIONS | NLA_F_NESTED);
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		long long v;
		int type;

		if (strcmp(argv[i], "-d") == 0) {
			show_details = 1;
			continue;
		}
		if (strcmp(argv[i], "-j") == 0) {
			json = 1;
			continue;
		}
		if (strcmp(argv[i], "-r") == 0) {
			show_raw = 1;
			continue;
		}
		if (strcmp(argv[i], "-i") == 0) {
			use_iec = 1;
			continue;
		}
		if (!eq) {
			addattr_l(&req.n, sizeof(req), type_of(argv[i]), NULL, 0);
			continue;
		}
		*eq = '\0';
		v = strtoll(eq + 1, NULL, 0);
		if (strcmp(what, "xstats") == 0) {
			if (!strcmp(argv[i], "mode")) st.mode = v;
			else if (!strcmp(argv[i], "lends")) st.lends = v;
			else if (!strcmp(argv[i], "borrows")) st.borrows = v;
			else if (!strcmp(argv[i], "giants")) st.giants = v;
			else if (!strcmp(argv[i], "tokens")) st.tokens = v;
			else if (!strcmp(argv[i], "ctokens")) st.ctokens = v;
			else if (!strcmp(argv[i], "deficit")) st.deficit = v;
			else if (!strcmp(argv[i], "len")) xlen = v;
			continue;
		}
		type = type_of(argv[i]);
		addattr_l(&req.n, sizeof(req), type, &v, attr_len(type));
	}
	addattr_nest_end(&req.n, nest);
	if (strcmp(what, "qdisc") == 0)
		return qu->print_qopt(qu, stdout, nest);
	if (strcmp(what, "class") == 0)
		return qu->print_copt(qu, stdout, nest);
	req.n.nlmsg_len = NLMSG_LENGTH(0);
	nest = (struct rtattr *)((char *)&req.n + NLMSG_LENGTH(0));
	if (strcmp(what, "qxstats") == 0) {
		struct tc_htbx_qdisc_xstats qx = {
			.version = HTBX_VERSION, .tag = HTBX_XSTATS_QDISC,
		};

		addattr_l(&req.n, sizeof(req), 1, &qx, sizeof(qx));
	} else {
		addattr_l(&req.n, sizeof(req), 1, &st, xlen);
	}
	return qu->print_xstats(qu, stdout, nest) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *so = getenv("HTBX_SO") ? getenv("HTBX_SO") : "./q_htbx.so";
	struct qdisc_util *qu;
	void *h;

	if (argc < 3) {
		fprintf(stderr, "usage: test_plugin parse|print ...\n");
		return 2;
	}
	h = dlopen(so, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "test_plugin: %s\n", dlerror());
		return 2;
	}
	qu = dlsym(h, "htbx_qdisc_util");
	if (!qu || strcmp(qu->id, "htbx") || !qu->parse_qopt ||
	    !qu->print_qopt || !qu->print_xstats || !qu->parse_copt ||
	    !qu->print_copt) {
		fprintf(stderr, "test_plugin: bad htbx_qdisc_util\n");
		return 2;
	}
	if (strcmp(argv[1], "parse") == 0)
		return do_parse(qu, argc - 2, argv + 2);
	return do_print(qu, argc - 2, argv + 2);
}
