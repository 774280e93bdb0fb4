// SPDX-License-Identifier: GPL-2.0
/*
 * htbx-nl - send raw htbx qdisc/class requests over rtnetlink, bypassing
 * tc's own checks, so that tests reach the kernel module's validation.
 *
 *   htbx-nl [OPTS] qdisc add|change|replace dev DEV [parent P|root]
 *           [handle H] [ATTR...]
 *   htbx-nl [OPTS] class add|change|replace dev DEV [parent P|root]
 *           classid C [ATTR...]
 *   htbx-nl [OPTS] class del dev DEV classid C
 *
 * ATTR is TYPE:NAME=VALUE, put inside TCA_OPTIONS (^TYPE:NAME=VALUE: at the
 * top level of the message, after TCA_OPTIONS, e.g. ^raw:5=HEX for TCA_RATE):
 *   TYPE   u8 u16 u32 u64 s32 (number, C syntax), raw (hex bytes, any
 *          length), flag (no "=VALUE")
 *   NAME   a TCA_HTBX_* name without the prefix (RATE, prio, ...) or a
 *          number (any attribute type, known or not)
 * OPTS:
 *   --no-nest     put the ATTRs at the top level of the message instead of
 *                 inside TCA_OPTIONS
 *   --no-options  send no TCA_OPTIONS at all (default: always send it,
 *                 empty when no ATTR is given)
 *   --nest-flag   set NLA_F_NESTED on TCA_OPTIONS
 *   --kind K      TCA_KIND (default htbx; "" sends none)
 *   --trail HEX   append these bytes after the last ATTR (no attribute
 *                 header: a malformed tail)
 *
 * Prints "ok" (plus warning="<extack>" when the kernel gave one) or
 * error=<ENAME> extack="<text>" [offset=N]. Exit status: 0 on success,
 * 2 when the kernel refused, 1 on a usage or local error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>

#include "../include/uapi/linux/pkt_sched_htbx.h"
#include "nlmsg.h"

#define HTBX_NL_BUFSZ	8192

static const char *const htbx_nl_names[TCA_HTBX_MAX + 1] = {
	[TCA_HTBX_PAD]		= "PAD",
	[TCA_HTBX_DEFCLS]	= "DEFCLS",
	[TCA_HTBX_R2Q]		= "R2Q",
	[TCA_HTBX_DIRECT_QLEN]	= "DIRECT_QLEN",
	[TCA_HTBX_OFFLOAD]	= "OFFLOAD",
	[TCA_HTBX_DIRECT_PKTS]	= "DIRECT_PKTS",
	[TCA_HTBX_VERSION]	= "VERSION",
	[TCA_HTBX_RATE]		= "RATE",
	[TCA_HTBX_CEIL]		= "CEIL",
	[TCA_HTBX_BURST]	= "BURST",
	[TCA_HTBX_CBURST]	= "CBURST",
	[TCA_HTBX_PRIO]		= "PRIO",
	[TCA_HTBX_QUANTUM]	= "QUANTUM",
	[TCA_HTBX_MTU]		= "MTU",
	[TCA_HTBX_MPU]		= "MPU",
	[TCA_HTBX_OVERHEAD]	= "OVERHEAD",
	[TCA_HTBX_LINKLAYER]	= "LINKLAYER",
	[TCA_HTBX_LEVEL]	= "LEVEL",
	[TCA_HTBX_BUDGET_HITS]	= "BUDGET_HITS",
};

struct htbx_nl_req {
	struct nlmsghdr	n;
	struct tcmsg	t;
	char		buf[HTBX_NL_BUFSZ];
};

static void __attribute__((noreturn)) htbx_nl_usage(const char *why)
{
	if (why)
		fprintf(stderr, "htbx-nl: %s\n", why);
	fprintf(stderr,
		"usage: htbx-nl [--no-nest] [--no-options] [--nest-flag] [--kind K] [--trail HEX]\n"
		"         qdisc add|change|replace dev DEV [parent P|root] [handle H] [ATTR...]\n"
		"       htbx-nl [...] class add|change|replace dev DEV [parent P|root] classid C [ATTR...]\n"
		"       htbx-nl [...] class del dev DEV classid C\n"
		"ATTR: [^]u8|u16|u32|u64|s32|raw|flag:NAME[=VALUE], NAME a TCA_HTBX_ suffix or a number\n"
		"      (^: outside TCA_OPTIONS, NAME then a plain number)\n");
	exit(1);
}

static struct nlattr *htbx_nl_put(struct htbx_nl_req *req, int type,
				  const void *data, size_t len)
{
	struct nlattr *nla = nlmsg_put(&req->n, sizeof(*req), type, data, len);

	if (!nla)
		htbx_nl_usage("request too long");
	return nla;
}

/* "root", "none", "M:", "M:N", "N" (all hex, as tc). */
static uint32_t htbx_nl_handle(const char *s)
{
	unsigned long maj = 0, min = 0;
	const char *colon;
	char *end;

	if (!strcmp(s, "root"))
		return TC_H_ROOT;
	if (!strcmp(s, "none"))
		return TC_H_UNSPEC;
	colon = strchr(s, ':');
	if (colon) {
		if (colon != s) {
			maj = strtoul(s, &end, 16);
			if (end != colon || maj > 0xffff)
				htbx_nl_usage("bad handle");
		}
		if (colon[1]) {
			min = strtoul(colon + 1, &end, 16);
			if (*end || min > 0xffff)
				htbx_nl_usage("bad handle");
		}
	} else {
		min = strtoul(s, &end, 16);
		if (!*s || *end || min > 0xffff)
			htbx_nl_usage("bad handle");
	}
	return (uint32_t)(maj << 16 | min);
}

static int htbx_nl_attr_type(const char *name, size_t len)
{
	char *end;
	long v;
	int i;

	if (len && name[0] >= '0' && name[0] <= '9') {
		v = strtol(name, &end, 0);
		if ((size_t)(end - name) != len || v < 0 || v > 0x3fff)
			htbx_nl_usage("bad attribute number");
		return (int)v;
	}
	if (len > 9 && !strncasecmp(name, "TCA_HTBX_", 9)) {
		name += 9;
		len -= 9;
	}
	for (i = 0; i <= TCA_HTBX_MAX; i++)
		if (htbx_nl_names[i] && strlen(htbx_nl_names[i]) == len &&
		    !strncasecmp(htbx_nl_names[i], name, len))
			return i;
	htbx_nl_usage("unknown attribute name");
}

static unsigned long long htbx_nl_num(const char *s, int is_signed,
				      long long lo, unsigned long long hi)
{
	char *end;

	errno = 0;
	if (is_signed) {
		long long v = strtoll(s, &end, 0);

		if (!*s || *end || errno || v < lo || v > (long long)hi)
			htbx_nl_usage("bad attribute value");
		return (unsigned long long)v;
	} else {
		unsigned long long v = strtoull(s, &end, 0);

		if (!*s || *end || errno || s[0] == '-' || v > hi)
			htbx_nl_usage("bad attribute value");
		return v;
	}
}

/* One TYPE:NAME[=VALUE] word. */
static void htbx_nl_attr(struct htbx_nl_req *req, const char *arg)
{
	const char *colon = strchr(arg, ':'), *name, *eq;
	unsigned char raw[HTBX_NL_BUFSZ / 2];
	size_t tlen, nlen, n;
	int type;

	if (!colon)
		htbx_nl_usage("attribute needs TYPE:NAME");
	tlen = colon - arg;
	name = colon + 1;
	eq = strchr(name, '=');
	nlen = eq ? (size_t)(eq - name) : strlen(name);
	type = htbx_nl_attr_type(name, nlen);

#define IS(t) (tlen == sizeof(t) - 1 && !strncmp(arg, t, tlen))
	if (IS("flag")) {
		if (eq)
			htbx_nl_usage("flag takes no value");
		htbx_nl_put(req, type, NULL, 0);
		return;
	}
	if (!eq)
		htbx_nl_usage("attribute needs =VALUE");
	eq++;
	if (IS("u8")) {
		uint8_t v = htbx_nl_num(eq, 0, 0, UINT8_MAX);

		htbx_nl_put(req, type, &v, sizeof(v));
	} else if (IS("u16")) {
		uint16_t v = htbx_nl_num(eq, 0, 0, UINT16_MAX);

		htbx_nl_put(req, type, &v, sizeof(v));
	} else if (IS("u32")) {
		uint32_t v = htbx_nl_num(eq, 0, 0, UINT32_MAX);

		htbx_nl_put(req, type, &v, sizeof(v));
	} else if (IS("u64")) {
		uint64_t v = htbx_nl_num(eq, 0, 0, UINT64_MAX);

		htbx_nl_put(req, type, &v, sizeof(v));
	} else if (IS("s32")) {
		int32_t v = htbx_nl_num(eq, 1, INT32_MIN, INT32_MAX);

		htbx_nl_put(req, type, &v, sizeof(v));
	} else if (IS("raw")) {
		if (strlen(eq) % 2)
			htbx_nl_usage("raw needs an even number of hex digits");
		for (n = 0; eq[2 * n]; n++) {
			char hex[3] = { eq[2 * n], eq[2 * n + 1], 0 };
			char *end;

			if (n >= sizeof(raw))
				htbx_nl_usage("raw value too long");
			raw[n] = strtoul(hex, &end, 16);
			if (*end)
				htbx_nl_usage("raw needs hex digits");
		}
		htbx_nl_put(req, type, raw, n);
	} else {
		htbx_nl_usage("unknown attribute TYPE");
	}
#undef IS
}

int main(int argc, char **argv)
{
	int no_nest = 0, no_opts = 0, nest_flag = 0, is_class, i, fd, one = 1;
	const char *kind = "htbx", *trail = NULL, *dev = NULL, *obj, *verb, *msg;
	static struct htbx_nl_req req;
	static char rbuf[65536];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlattr *opts = NULL;
	struct nlmsghdr *h;
	ssize_t len;
	int offs, first;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--no-nest"))
			no_nest = 1;
		else if (!strcmp(argv[i], "--no-options"))
			no_opts = 1;
		else if (!strcmp(argv[i], "--nest-flag"))
			nest_flag = 1;
		else if (!strcmp(argv[i], "--kind") && i + 1 < argc)
			kind = argv[++i];
		else if (!strcmp(argv[i], "--trail") && i + 1 < argc)
			trail = argv[++i];
		else if (!strcmp(argv[i], "--help"))
			htbx_nl_usage(NULL);
		else
			htbx_nl_usage("unknown option");
	}
	if (argc - i < 2)
		htbx_nl_usage(NULL);
	obj = argv[i++];
	verb = argv[i++];
	if (!strcmp(obj, "qdisc"))
		is_class = 0;
	else if (!strcmp(obj, "class"))
		is_class = 1;
	else
		htbx_nl_usage("expected qdisc or class");

	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = 1;
	req.t.tcm_family = AF_UNSPEC;
	if (!strcmp(verb, "add")) {
		req.n.nlmsg_flags |= NLM_F_CREATE | NLM_F_EXCL;
		req.n.nlmsg_type = is_class ? RTM_NEWTCLASS : RTM_NEWQDISC;
	} else if (!strcmp(verb, "change")) {
		req.n.nlmsg_type = is_class ? RTM_NEWTCLASS : RTM_NEWQDISC;
	} else if (!strcmp(verb, "replace")) {
		req.n.nlmsg_flags |= NLM_F_CREATE | NLM_F_REPLACE;
		req.n.nlmsg_type = is_class ? RTM_NEWTCLASS : RTM_NEWQDISC;
	} else if (is_class && !strcmp(verb, "del")) {
		req.n.nlmsg_type = RTM_DELTCLASS;
		no_opts = 1;
		kind = "";
	} else {
		htbx_nl_usage("unknown command");
	}

	for (; i < argc; i++) {
		const char *k = argv[i];

		if (!strcmp(k, "root")) {
			req.t.tcm_parent = TC_H_ROOT;
			continue;
		}
		if (!strchr(k, ':') || !strcmp(k, "dev") || !strcmp(k, "parent") ||
		    !strcmp(k, "handle") || !strcmp(k, "classid")) {
			if (i + 1 >= argc)
				htbx_nl_usage("missing value");
			if (!strcmp(k, "dev"))
				dev = argv[++i];
			else if (!strcmp(k, "parent"))
				req.t.tcm_parent = htbx_nl_handle(argv[++i]);
			else if (!strcmp(k, "handle") && !is_class)
				req.t.tcm_handle = htbx_nl_handle(argv[++i]);
			else if (!strcmp(k, "classid") && is_class)
				req.t.tcm_handle = htbx_nl_handle(argv[++i]);
			else
				htbx_nl_usage("unexpected word");
			continue;
		}
		break;
	}
	if (!dev)
		htbx_nl_usage("dev is required");
	req.t.tcm_ifindex = if_nametoindex(dev);
	if (!req.t.tcm_ifindex) {
		fprintf(stderr, "htbx-nl: no device %s\n", dev);
		return 1;
	}
	if (kind[0])
		htbx_nl_put(&req, TCA_KIND, kind, strlen(kind) + 1);
	if (!no_opts && !no_nest)
		opts = htbx_nl_put(&req, TCA_OPTIONS | (nest_flag ? NLA_F_NESTED : 0),
				   NULL, 0);
	first = i;
	for (; i < argc; i++) {
		if (argv[i][0] == '^')
			continue;
		if (no_opts && !no_nest)
			htbx_nl_usage("attributes given with --no-options");
		htbx_nl_attr(&req, argv[i]);
	}
	if (trail) {
		size_t n, off = NLMSG_ALIGN(req.n.nlmsg_len);

		if (strlen(trail) % 2 || strlen(trail) / 2 > 64)
			htbx_nl_usage("--trail needs up to 64 hex bytes");
		for (n = 0; trail[2 * n]; n++) {
			char hex[3] = { trail[2 * n], trail[2 * n + 1], 0 };
			char *end;

			((unsigned char *)&req)[off + n] = strtoul(hex, &end, 16);
			if (*end)
				htbx_nl_usage("--trail needs hex digits");
		}
		req.n.nlmsg_len = off + n;
	}
	if (opts)
		opts->nla_len = (char *)&req + req.n.nlmsg_len - (char *)opts;
	for (i = first; i < argc; i++)
		if (argv[i][0] == '^')
			htbx_nl_attr(&req, argv[i] + 1);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		perror("htbx-nl: socket");
		return 1;
	}
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one))) {
		perror("htbx-nl: setsockopt");
		return 1;
	}
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		perror("htbx-nl: sendto");
		return 1;
	}
	for (;;) {
		len = recv(fd, rbuf, sizeof(rbuf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			perror("htbx-nl: recv");
			return 1;
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_seq != req.n.nlmsg_seq ||
			    h->nlmsg_type != NLMSG_ERROR)
				continue;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
				fprintf(stderr, "htbx-nl: short ack\n");
				return 1;
			}
			nlmsg_extack(h, &msg, &offs);
			close(fd);
			if (!e->error) {
				if (msg)
					printf("ok warning=\"%s\"\n", msg);
				else
					printf("ok\n");
				return 0;
			}
			printf("error=%s extack=\"%s\"",
			       strerrorname_np(-e->error) ?: "?", msg ?: "");
			if (offs >= 0)
				printf(" offset=%d", offs);
			printf("\n");
			return 2;
		}
	}
}
