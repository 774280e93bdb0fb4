// SPDX-License-Identifier: GPL-2.0
/*
 * htbx-fuzz - a seeded, reproducible netlink and configuration-churn fuzzer
 * for sch_htbx.
 *
 *   htbx-fuzz [-s SEED] [-n OPS] [-q QUEUES] [-v]
 *
 * Runs OPS operations (default 10000) drawn from a xorshift generator
 * seeded with SEED (default 1): the same seed gives the same sequence of
 * requests. It works in network namespaces of its own (unshare), so it
 * leaves nothing behind: each round creates a namespace with two devices,
 * churns trees on them, and ends by deleting the namespace with whatever
 * trees are left inside.
 *
 * Operations: RTM_NEWQDISC (root htbx, nested htbx, leaf qdiscs of
 * fifteen kinds) / RTM_DELQDISC, RTM_NEWTCLASS (add, change, replace) /
 * RTM_DELTCLASS, RTM_NEWTFILTER / RTM_DELTFILTER (matchall to a class),
 * device down/up. Some class and root qdisc requests carry a rate
 * estimator (TCA_RATE), mostly a valid one: on classes also in mq mode,
 * on an mq root refused by the kernel. Some root qdisc requests (add,
 * replace, change; mq and single-queue roots) carry a size table
 * (TCA_STAB), mostly one tc would send (an ethernet overhead, an ATM
 * table), else one the tc core refuses or a mutated one. TCA_HTBX_*
 * values come valid, at and beyond every edge of their range, with wrong
 * lengths, unknown types and random bytes; class ids and parents from a
 * small space, so that trees grow to depth 9 (one past htbx's limit) and
 * requests name classes that do and do not exist. A sender thread keeps
 * packets flowing through both devices (AF_PACKET, SO_PRIORITY naming a
 * class, IPv4 from many addresses so that the stack spreads them over
 * every TX queue) while all this happens.
 *
 * Checked from dumps every 64 operations and at the end of each round:
 *   - every class's parent is the qdisc or a class that exists;
 *   - with the sender paused and the tree quiet, the root's qlen and
 *     backlog are the sums of the leaf classes' (plus the direct queue's),
 *     a packet's length being its size by the root's table, if any;
 * after each round, once its namespace is gone: sch_htbx's reference count
 * is back where it was (no htbx qdisc outlives its namespace);
 * and for every refused htbx request: the kernel said why (extack text),
 * unless the tc core refused it before sch_htbx saw it (ENOENT, EEXIST,
 * EBUSY and the like; a size table the core refuses has its text).
 *
 * -q QUEUES (default 1): the devices get that many TX and RX queues and
 * most root qdiscs ask for mq mode (one scheduler per queue), the rest
 * are single-queue htbx on the same devices. Device fz0 is a dummy, fz1
 * a veth (its peer up in the same namespace; with one queue both are
 * dummies), whose real TX queue count an operation changes under traffic
 * as `ethtool -L fz1 rx N tx K` does (SIOCETHTOOL, ETHTOOL_SCHANNELS; K
 * from 1..N). veth takes that from Linux 5.14: before, the kernel answers
 * EOPNOTSUPP, counted as unsupported; any other refusal is a violation.
 * The end of the run prints how many size tables were sent and taken, and
 * how many queue-count changes were made and unsupported.
 *
 * Prints TAP lines and exits 1 on an invariant violation or a refusal
 * without extack, 0 otherwise. Needs CAP_NET_ADMIN and CAP_SYS_ADMIN, in
 * the initial namespaces or in a user namespace of its own (unshare -Urn):
 * a veth and its channels are the namespace owner's to change.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/gen_stats.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/veth.h>

#include "../include/uapi/linux/pkt_sched_htbx.h"
#include "channels.h"
#include "nlmsg.h"

#define FZ_BUFSZ	8192
#define FZ_MINORS	24	/* class minors 1..FZ_MINORS */
#define FZ_NDEV		2
#define FZ_VETH		1	/* with -q N > 1, device 1 is a veth */
#define FZ_ROUND_OPS	400	/* operations per namespace */
#define FZ_CHECK_EVERY	64

struct fz_req {
	struct nlmsghdr	n;
	union {
		struct tcmsg	 t;
		struct ifinfomsg i;
	};
	char		buf[FZ_BUFSZ];
};

static uint64_t fz_state;
static int fz_verbose;
static unsigned int fz_nq = 1;	/* TX queues per device (-q) */

static struct {
	unsigned long ops, accepted, refused, no_extack, violations, checks;
	unsigned long rounds, sent;
	unsigned long est;	/* class requests with an estimator taken */
	unsigned long txq, txq_unsupp;	/* ethtool -L: made, EOPNOTSUPP */
	unsigned long stab, stab_taken;	/* root requests with a size table */
	unsigned long sums, sums_stab;	/* sum checks of a queued tree, with a table */
} fz_stat;

static uint64_t fz_rand(void)
{
	fz_state ^= fz_state >> 12;
	fz_state ^= fz_state << 25;
	fz_state ^= fz_state >> 27;
	return fz_state * 2685821657736338717ULL;
}

static unsigned int fz_below(unsigned int n)
{
	return n ? fz_rand() % n : 0;
}

static int fz_chance(unsigned int percent)
{
	return fz_below(100) < percent;
}

static void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fz_stat.violations++;
	printf("# violation (op %lu): ", fz_stat.ops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ------------------------------------------------------------ netlink */

static int fz_nl = -1;
static uint32_t fz_seq;
static char fz_rbuf[65536];

static int fz_nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	if (fz_nl >= 0)
		close(fz_nl);
	fz_nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fz_nl < 0)
		return -1;
	setsockopt(fz_nl, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fz_nl, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return bind(fz_nl, (struct sockaddr *)&sa, sizeof(sa));
}

/*
 * Send REQ, read its ack: 0 or -errno; *EXT gets the extack text or NULL
 * (valid until the next call).
 */
static int fz_talk(struct fz_req *req, const char **ext)
{
	struct nlmsghdr *h;
	const char *msg;
	ssize_t len;
	int offs;

	*ext = NULL;
	req->n.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	req->n.nlmsg_seq = ++fz_seq;
	if (send(fz_nl, req, req->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = recv(fz_nl, fz_rbuf, sizeof(fz_rbuf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)fz_rbuf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != fz_seq || h->nlmsg_type != NLMSG_ERROR)
				continue;
			nlmsg_extack(h, &msg, &offs);
			*ext = msg;
			if (fz_verbose && req->n.nlmsg_type >= RTM_NEWQDISC)
				printf("# req type %d flags %#x if %d handle %x:%x parent %x:%x -> %d\n",
				       req->n.nlmsg_type, req->n.nlmsg_flags,
				       req->t.tcm_ifindex,
				       TC_H_MAJ(req->t.tcm_handle) >> 16,
				       TC_H_MIN(req->t.tcm_handle),
				       TC_H_MAJ(req->t.tcm_parent) >> 16,
				       TC_H_MIN(req->t.tcm_parent),
				       ((struct nlmsgerr *)NLMSG_DATA(h))->error);
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
		}
	}
}

static void fz_tc_init(struct fz_req *req, int type, int flags, int ifindex,
		       uint32_t handle, uint32_t parent)
{
	memset(req, 0, sizeof(req->n) + sizeof(req->t));
	req->n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	req->n.nlmsg_type = type;
	req->n.nlmsg_flags = flags;
	req->t.tcm_family = AF_UNSPEC;
	req->t.tcm_ifindex = ifindex;
	req->t.tcm_handle = handle;
	req->t.tcm_parent = parent;
}

static struct nlattr *fz_put(struct fz_req *req, int type, const void *d,
			     size_t len)
{
	/* through the whole request: n is its first member */
	return nlmsg_put((struct nlmsghdr *)(void *)req, sizeof(*req), type, d, len);
}

static void fz_put_str(struct fz_req *req, int type, const char *s)
{
	fz_put(req, type, s, strlen(s) + 1);
}

/* ------------------------------------------------------ htbx options */

/* A value for a u32/u64 field: in range, at an edge, or beyond it. */
static uint64_t fz_value(uint64_t lo, uint64_t hi)
{
	switch (fz_below(10)) {
	case 0:
		return lo;
	case 1:
		return hi;
	case 2:
		return hi + 1;
	case 3:
		return lo ? lo - 1 : ~0ULL;
	case 4:
		return fz_rand();
	default:
		return lo + fz_rand() % (hi - lo + 1);
	}
}

/* A rate in bytes/s, mostly shaping-sized, sometimes absurd. */
static uint64_t fz_rate(void)
{
	static const uint64_t rates[] = {
		1, 125, 12500, 125000, 1250000, 12500000, 125000000,
		HTBX_MAX_RATE, HTBX_MAX_RATE + 1, 0,
	};

	if (fz_chance(55))
		return 1000 + fz_below(25000000);
	/*
	 * Slow enough that packets are still queued when the sums are
	 * checked (few trees have any otherwise), and that the tree is quiet
	 * then: a packet a second or less, so that two dumps agree at once.
	 */
	if (fz_chance(33))
		return 8 + fz_below(1000);
	return rates[fz_below(sizeof(rates) / sizeof(rates[0]))];
}

/* One attribute of TYPE holding V in LEN bytes, or a mangled one. */
static void fz_attr(struct fz_req *req, int type, uint64_t v, size_t len)
{
	unsigned char junk[16];
	size_t i;

	switch (fz_below(40)) {
	case 0:	/* wrong length */
		len = fz_below(sizeof(junk) + 1);
		for (i = 0; i < len; i++)
			junk[i] = fz_rand();
		fz_put(req, type, junk, len);
		return;
	case 1:	/* unknown type */
		fz_put(req, TCA_HTBX_MAX + 1 + fz_below(100), &v, len);
		return;
	case 2:	/* a read-only or reserved attribute */
		type = fz_chance(50) ? TCA_HTBX_LEVEL : TCA_HTBX_PAD;
		break;
	}
	fz_put(req, type, &v, len);
}

static void fz_class_opts(struct fz_req *req, int create)
{
	struct nlattr *opt = fz_put(req, TCA_OPTIONS, NULL, 0);

	if (!opt)
		return;
	if (create || fz_chance(60))
		fz_attr(req, TCA_HTBX_RATE, fz_rate(), 8);
	if (fz_chance(50))
		fz_attr(req, TCA_HTBX_CEIL, fz_rate(), 8);
	if (fz_chance(25))
		fz_attr(req, TCA_HTBX_BURST, fz_value(0, 1 << 24), 4);
	if (fz_chance(25))
		fz_attr(req, TCA_HTBX_CBURST, fz_value(0, 1 << 24), 4);
	if (fz_chance(30))
		fz_attr(req, TCA_HTBX_PRIO, fz_value(0, HTBX_NUMPRIO - 1), 4);
	if (fz_chance(20))
		fz_attr(req, TCA_HTBX_QUANTUM, fz_value(0, HTBX_MAX_QUANTUM), 4);
	if (fz_chance(10))
		fz_attr(req, TCA_HTBX_MTU, fz_value(0, 1 << 20), 4);
	if (fz_chance(10))
		fz_attr(req, TCA_HTBX_MPU, fz_value(0, 65536), 4);
	if (fz_chance(10))
		fz_attr(req, TCA_HTBX_OVERHEAD, fz_value(0, 65535) - 64, 4);
	if (fz_chance(10))
		fz_attr(req, TCA_HTBX_LINKLAYER, fz_value(0, 1), 1);
	if (fz_chance(3))
		fz_put(req, TCA_HTBX_DEFCLS, &(uint32_t){ 1 }, 4);
	nlmsg_nest_end(&req->n, opt);
}

/*
 * TCA_RATE, @percent of the time: mostly an estimator the kernel takes
 * (interval -2..3: 250 ms .. 8 s; ewma_log 1..30), else one it refuses.
 * 1 when one was put.
 */
static int fz_estimator(struct fz_req *req, unsigned int percent)
{
	struct tc_estimator est;

	if (!fz_chance(percent))
		return 0;
	if (fz_chance(80)) {
		est.interval = (signed char)((int)fz_below(6) - 2);
		est.ewma_log = (unsigned char)(1 + fz_below(30));
	} else {
		int iv = 4 + (int)fz_below(100);

		est.interval = (signed char)(fz_chance(50) ? iv : -iv + 1);
		est.ewma_log = (unsigned char)fz_below(40);
	}
	fz_put(req, TCA_RATE, &est, sizeof(est));
	return 1;
}

/*
 * The bytes an ATM link sends for a packet of LEN bytes: 53-byte cells of
 * 48 bytes each, the packet first raised to MPU (as tc does).
 */
static unsigned int fz_atm_size(unsigned int len, unsigned int mpu)
{
	if (len < mpu)
		len = mpu;
	return (len + 47) / 48 * 53;
}

/*
 * TCA_STAB, @percent of the time: the size table of `tc qdisc add ...
 * stab ...`, which sizes each packet at the root (and so at every class
 * and leaf below it). Mostly one tc would send: an ethernet overhead alone
 * (no table), or an ATM table of TSIZE cells of 2^cell_log bytes, each
 * entry the link's bytes (in units of 2^size_log) for the longest packet
 * of its cell (cell_align -1: a packet of exactly 2^cell_log bytes is
 * still in cell 0). Else one the tc core refuses (base missing or short,
 * tsize not the data's length, data missing, a log above 30), or a valid
 * one with a random byte of its spec or data changed, which the kernel
 * takes or refuses. The table's lengths are the ones every count of the
 * tree must then agree on. 1 when one was put.
 */
static int fz_stab(struct fz_req *req, unsigned int percent)
{
	static uint16_t data[1024];
	struct tc_sizespec sz;
	struct nlattr *nest;
	unsigned int i, n = 0, kind;
	size_t dlen;

	if (!fz_chance(percent))
		return 0;
	memset(&sz, 0, sizeof(sz));
	kind = fz_below(10);
	if (kind < 4) {
		sz.linklayer = TC_LINKLAYER_ETHERNET;
		sz.overhead = (int)fz_below(69) - 4;
	} else {
		sz.linklayer = TC_LINKLAYER_ATM;
		sz.overhead = fz_below(65);
		sz.mpu = fz_chance(50) ? 64 : 0;
		sz.mtu = fz_chance(70) ? 2047 : 1500 + fz_below(8000);
		sz.tsize = fz_chance(70) ? 512 : 32u << fz_below(6);
		while ((sz.mtu >> sz.cell_log) > sz.tsize - 1)
			sz.cell_log++;
		sz.size_log = fz_chance(80) ? 0 : fz_below(4);
		sz.cell_align = -1;
		for (i = 0; i < sz.tsize; i++) {
			unsigned int b = fz_atm_size((i + 1) << sz.cell_log, sz.mpu);

			b >>= sz.size_log;
			data[i] = b > 0xffff ? 0xffff : b;
		}
		n = sz.tsize;
	}
	dlen = n * sizeof(data[0]);
	nest = fz_put(req, TCA_STAB, NULL, 0);
	if (!nest)
		return 0;
	switch (kind < 8 ? -1 : (int)fz_below(7)) {
	case 0:		/* no base: refused */
		break;
	case 1:		/* a base too short for the spec: refused */
		fz_put(req, TCA_STAB_BASE, &sz, fz_below(sizeof(sz)));
		break;
	case 2:		/* tsize and the data's length disagree: refused */
		if (n > 1 && fz_chance(50))
			sz.tsize = 1 + fz_below(n - 1);
		else
			sz.tsize = n + 1 + fz_below(8);
		fz_put(req, TCA_STAB_BASE, &sz, sizeof(sz));
		fz_put(req, TCA_STAB_DATA, data, dlen);
		break;
	case 3:		/* a table without its data: refused */
		sz.tsize = 1 + fz_below(512);
		fz_put(req, TCA_STAB_BASE, &sz, sizeof(sz));
		break;
	case 4:		/* a log the kernel cannot shift by: refused */
		if (fz_chance(50))
			sz.cell_log = 31 + fz_below(225);
		else
			sz.size_log = 31 + fz_below(225);
		fz_put(req, TCA_STAB_BASE, &sz, sizeof(sz));
		fz_put(req, TCA_STAB_DATA, data, dlen);
		break;
	case 5:		/* a random byte of the spec: either */
		((unsigned char *)&sz)[fz_below(sizeof(sz))] = fz_rand();
		fz_put(req, TCA_STAB_BASE, &sz, sizeof(sz));
		if (sz.tsize)
			fz_put(req, TCA_STAB_DATA, data, dlen);
		break;
	case 6:		/* a random byte of the data: taken */
		if (dlen)
			((unsigned char *)data)[fz_below(dlen)] = fz_rand();
		/* fall through */
	default:
		fz_put(req, TCA_STAB_BASE, &sz, sizeof(sz));
		if (n)
			fz_put(req, TCA_STAB_DATA, data, dlen);
		break;
	}
	nlmsg_nest_end(&req->n, nest);
	return 1;
}

static void fz_qdisc_opts(struct fz_req *req)
{
	struct nlattr *opt = fz_put(req, TCA_OPTIONS, NULL, 0);

	if (!opt)
		return;
	if (fz_chance(80))
		fz_attr(req, TCA_HTBX_DEFCLS, fz_value(0, FZ_MINORS + 1), 4);
	if (fz_chance(30))
		fz_attr(req, TCA_HTBX_R2Q, fz_value(0, 100), 4);
	if (fz_chance(30))
		fz_attr(req, TCA_HTBX_DIRECT_QLEN, fz_value(0, 2000), 4);
	if (fz_chance(3))
		fz_put(req, TCA_HTBX_OFFLOAD, NULL, 0);
	if (fz_chance(fz_nq > 1 ? 70 : 3))
		fz_put(req, TCA_HTBX_MQ, NULL, 0);
	if (fz_chance(3))
		fz_put(req, TCA_HTBX_RATE, &(uint64_t){ 1000 }, 8);
	nlmsg_nest_end(&req->n, opt);
}

/* ------------------------------------------------------------ devices */

static int fz_ifindex[FZ_NDEV];
static int fz_ioc = -1;		/* a socket of the round's namespace, for ioctls */

/* The attributes of device NAME: its name, queue length and queue counts. */
static void fz_link_attrs(struct fz_req *req, const char *name)
{
	fz_put_str(req, IFLA_IFNAME, name);
	fz_put(req, IFLA_TXQLEN, &(uint32_t){ 1000 }, 4);
	fz_put(req, IFLA_NUM_TX_QUEUES, &(uint32_t){ fz_nq }, 4);
	fz_put(req, IFLA_NUM_RX_QUEUES, &(uint32_t){ fz_nq }, 4);
}

/*
 * A dummy device NAME, or with PEER a veth pair NAME and PEER in this
 * namespace, each end with fz_nq TX and RX queues. A veth's real TX queue
 * count can change under its qdiscs (ethtool -L, from Linux 5.14); a
 * dummy's cannot.
 */
static int fz_link_add(const char *name, const char *peer)
{
	struct fz_req req;
	struct nlattr *li, *data, *pi;
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	const char *ext;

	memset(&req, 0, sizeof(req.n) + sizeof(req.i));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	req.n.nlmsg_type = RTM_NEWLINK;
	req.n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	fz_link_attrs(&req, name);
	li = fz_put(&req, IFLA_LINKINFO, NULL, 0);
	fz_put_str(&req, IFLA_INFO_KIND, peer ? "veth" : "dummy");
	if (peer) {
		/* the peer's own ifinfomsg, then its attributes */
		data = fz_put(&req, IFLA_INFO_DATA, NULL, 0);
		pi = fz_put(&req, VETH_INFO_PEER, &ifi, sizeof(ifi));
		fz_link_attrs(&req, peer);
		nlmsg_nest_end(&req.n, pi);
		nlmsg_nest_end(&req.n, data);
	}
	nlmsg_nest_end(&req.n, li);
	return fz_talk(&req, &ext);
}

static int fz_link_updown(int ifindex, int up)
{
	struct fz_req req;
	const char *ext;

	memset(&req, 0, sizeof(req.n) + sizeof(req.i));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	req.n.nlmsg_type = RTM_NEWLINK;
	req.i.ifi_family = AF_UNSPEC;
	req.i.ifi_index = ifindex;
	req.i.ifi_change = IFF_UP;
	req.i.ifi_flags = up ? IFF_UP : 0;
	return fz_talk(&req, &ext);
}

/*
 * ethtool -L fz1 rx N tx K, K drawn here from 1..N: the veth's real TX
 * queue count changes under its qdiscs, as the sender's packets go
 * through them. The queues past K are reset (and an mq root's qdiscs on
 * them go quiet), the carrier of both ends goes off and on (the stack
 * deactivates and activates every queue's qdisc). RX stays at N: veth
 * takes no zero count, and the peer's TX queues send to these RX queues.
 * 0, or -errno of GCHANNELS or SCHANNELS (-EOPNOTSUPP before 5.14).
 */
static int fz_set_txq(void)
{
	char name[IFNAMSIZ];

	snprintf(name, sizeof(name), "fz%d", FZ_VETH);
	return set_channels(fz_ioc, name, fz_nq, 1 + fz_below(fz_nq));
}

/* ------------------------------------------------------------ traffic */

static pthread_mutex_t fz_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fz_cond = PTHREAD_COND_INITIALIZER;
static int fz_paused, fz_idle, fz_stop;

/* The IPv4 header checksum of the LEN bytes at P. */
static uint16_t fz_ipsum(const unsigned char *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/*
 * The sender: frames of 60..1514 bytes to both devices, each naming a
 * class by its priority. The stack picks a frame's TX queue by the hash
 * of its flow (AF_PACKET sets no queue, and no device here has XPS or a
 * queue selector of its own), and a frame without an IP header hashes
 * the same every time, so it would reach one queue only: each frame is
 * IPv4 from an address of its own (198.18.0.0/15, for benchmarks), which
 * spreads the frames over every queue the device has at the moment. They
 * go to a unicast MAC address that is no one's: a veth's peer drops them
 * as another host's as soon as they reach its IP layer. PACKET_QDISC_BYPASS
 * stays off, so every frame goes through the qdiscs.
 */
static void *fz_sender(void *arg)
{
	unsigned char frame[1514], *ip = frame + ETH_HLEN;
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	uint64_t s = (uintptr_t)arg | 1;
	int fd, i, prio;
	size_t len;
	uint16_t sum;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	memset(frame, 0, sizeof(frame));
	memcpy(frame, "\x02\0\0\0\0\x01\x02\0\0\0\0\x02", 12);
	frame[12] = ETH_P_IP >> 8;
	frame[13] = ETH_P_IP & 0xff;
	ip[0] = 0x45;				/* IPv4, 20-byte header */
	ip[8] = 1;				/* TTL */
	ip[9] = 253;				/* for experiments */
	memcpy(ip + 12, "\xc6\x12\0\0\xc6\x13\0\x01", 8);
	for (;;) {
		pthread_mutex_lock(&fz_lock);
		while (fz_paused && !fz_stop) {
			fz_idle = 1;
			pthread_cond_broadcast(&fz_cond);
			pthread_cond_wait(&fz_cond, &fz_lock);
		}
		fz_idle = 0;
		pthread_mutex_unlock(&fz_lock);
		if (fz_stop)
			break;
		for (i = 0; i < 16; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			ll.sll_ifindex = fz_ifindex[s % FZ_NDEV];
			ll.sll_protocol = htons(ETH_P_IP);
			ll.sll_halen = 6;
			memcpy(ll.sll_addr, frame, 6);
			/* skb->priority 1:N picks class N directly (as htb) */
			prio = (1 << 16) | (unsigned int)((s >> 8) % (FZ_MINORS + 2));
			setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio));
			len = 60 + (s >> 20) % (sizeof(frame) - 60);
			/* length, source 198.18.x.y: the flow, and so the queue */
			ip[2] = (len - ETH_HLEN) >> 8;
			ip[3] = (len - ETH_HLEN) & 0xff;
			ip[13] = 0x12 | ((s >> 32) & 1);
			ip[14] = s >> 40;
			ip[15] = s >> 48;
			ip[10] = ip[11] = 0;
			sum = fz_ipsum(ip, 20);
			ip[10] = sum >> 8;
			ip[11] = sum & 0xff;
			if (sendto(fd, frame, len, MSG_DONTWAIT,
				   (struct sockaddr *)&ll, sizeof(ll)) > 0)
				__atomic_add_fetch(&fz_stat.sent, 1, __ATOMIC_RELAXED);
		}
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
	close(fd);
	return NULL;
}

static void fz_traffic(int run)
{
	pthread_mutex_lock(&fz_lock);
	fz_paused = !run;
	pthread_cond_broadcast(&fz_cond);
	while (!run && !fz_idle)
		pthread_cond_wait(&fz_cond, &fz_lock);
	pthread_mutex_unlock(&fz_lock);
}

/* -------------------------------------------------------------- dumps */

struct fz_obj {
	uint32_t handle, parent, qlen, backlog;
	int leaf;		/* class: no TCA_HTBX_LEVEL or level 0 */
	int stab;		/* qdisc: has a size table */
	char kind[16];
};

static struct fz_obj fz_cls[256], fz_qd[64];
static int fz_ncls, fz_nqd;

static void fz_parse(struct nlmsghdr *h, struct fz_obj *o)
{
	struct tcmsg *t = NLMSG_DATA(h);
	struct rtattr *a = (struct rtattr *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*t));

	memset(o, 0, sizeof(*o));
	o->handle = t->tcm_handle;
	o->parent = t->tcm_parent;
	o->leaf = 1;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == TCA_KIND)
			snprintf(o->kind, sizeof(o->kind), "%s", (char *)RTA_DATA(a));
		if (a->rta_type == TCA_STAB)
			o->stab = 1;
		if (a->rta_type == TCA_STATS2) {
			struct rtattr *s = RTA_DATA(a);
			int sl = RTA_PAYLOAD(a);

			for (; RTA_OK(s, sl); s = RTA_NEXT(s, sl)) {
				struct gnet_stats_queue *q = RTA_DATA(s);

				if (s->rta_type == TCA_STATS_QUEUE &&
				    RTA_PAYLOAD(s) >= sizeof(*q)) {
					o->qlen = q->qlen;
					o->backlog = q->backlog;
				}
			}
		}
		if (a->rta_type == TCA_OPTIONS) {
			struct rtattr *s = RTA_DATA(a);
			int sl = RTA_PAYLOAD(a);

			for (; RTA_OK(s, sl); s = RTA_NEXT(s, sl))
				if (s->rta_type == TCA_HTBX_LEVEL &&
				    RTA_PAYLOAD(s) >= 4 && *(uint32_t *)RTA_DATA(s))
					o->leaf = 0;
		}
	}
}

/* Dump classes (CLASS 1) or qdiscs of IFINDEX into fz_cls / fz_qd. */
static int fz_dump(int ifindex, int class)
{
	struct fz_req req;
	struct nlmsghdr *h;
	ssize_t len;
	int *n = class ? &fz_ncls : &fz_nqd;
	int max = class ? 256 : 64;

	fz_tc_init(&req, class ? RTM_GETTCLASS : RTM_GETQDISC,
		   NLM_F_REQUEST | NLM_F_DUMP, ifindex, 0, 0);
	req.n.nlmsg_seq = ++fz_seq;
	if (send(fz_nl, &req, req.n.nlmsg_len, 0) < 0)
		return -errno;
	*n = 0;
	for (;;) {
		len = recv(fz_nl, fz_rbuf, sizeof(fz_rbuf), 0);
		if (len < 0)
			return errno == EINTR ? 0 : -errno;
		for (h = (struct nlmsghdr *)fz_rbuf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != fz_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (((struct tcmsg *)NLMSG_DATA(h))->tcm_ifindex != ifindex)
				continue;
			if (*n < max)
				fz_parse(h, class ? &fz_cls[*n] : &fz_qd[*n]);
			(*n)++;
		}
	}
}

static const struct fz_obj *fz_find(const struct fz_obj *v, int n, uint32_t h)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].handle == h)
			return &v[i];
	return NULL;
}

/* The structural invariant: parents exist. */
static void fz_check_tree(int dev)
{
	const struct fz_obj *root = NULL;
	int i;

	if (fz_dump(fz_ifindex[dev], 0) || fz_dump(fz_ifindex[dev], 1))
		return;
	fz_stat.checks++;
	for (i = 0; i < fz_nqd && i < 64; i++)
		if (fz_qd[i].parent == TC_H_ROOT)
			root = &fz_qd[i];
	if (!root || strcmp(root->kind, "htbx"))
		return;
	for (i = 0; i < fz_ncls && i < 256; i++) {
		const struct fz_obj *c = &fz_cls[i];

		if (strcmp(c->kind, "htbx") || TC_H_MAJ(c->handle) != root->handle)
			continue;
		if (c->parent != root->handle && c->parent != TC_H_ROOT &&
		    !fz_find(fz_cls, fz_ncls, c->parent))
			fz_fail("dev %d: class %x:%x has parent %x:%x, which does not exist",
				dev, TC_H_MAJ(c->handle) >> 16, TC_H_MIN(c->handle),
				TC_H_MAJ(c->parent) >> 16, TC_H_MIN(c->parent));
	}
}

/*
 * The accounting invariant, with the sender paused: the root htbx's qlen
 * and backlog are the sums over its leaf classes, but for the direct
 * queue, which drains at once (no shaping): polled until two qdisc dumps
 * around the class dump agree, so nothing moved in between.
 */
static void fz_check_sums(int dev)
{
	uint32_t rq = 0, rb = 0, sq, sb;
	int tries, i, stable = 0, tab;

	for (tries = 0; tries < 50 && !stable; tries++) {
		const struct fz_obj *root = NULL;

		if (fz_dump(fz_ifindex[dev], 0))
			return;
		for (i = 0; i < fz_nqd && i < 64; i++)
			if (fz_qd[i].parent == TC_H_ROOT)
				root = &fz_qd[i];
		if (!root || strcmp(root->kind, "htbx"))
			return;
		rq = root->qlen, rb = root->backlog;
		tab = root->stab;
		if (fz_dump(fz_ifindex[dev], 1))
			return;
		sq = sb = 0;
		for (i = 0; i < fz_ncls && i < 256; i++) {
			if (strcmp(fz_cls[i].kind, "htbx") || !fz_cls[i].leaf ||
			    TC_H_MAJ(fz_cls[i].handle) != root->handle)
				continue;
			sq += fz_cls[i].qlen;
			sb += fz_cls[i].backlog;
		}
		if (fz_dump(fz_ifindex[dev], 0))
			return;
		for (i = 0; i < fz_nqd && i < 64; i++)
			if (fz_qd[i].parent == TC_H_ROOT)
				stable = fz_qd[i].qlen == rq && fz_qd[i].backlog == rb;
		if (!stable) {
			nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
			continue;
		}
		fz_stat.checks++;
		fz_stat.sums += rq != 0;
		fz_stat.sums_stab += rq && tab;
		if (sq != rq || sb != rb)
			fz_fail("dev %d: root qlen %u backlog %u, leaf classes' sums %u and %u",
				dev, rq, rb, sq, sb);
	}
}

/* --------------------------------------------------------- operations */

/*
 * Leaf kinds grafted on classes: in mq mode the first eleven are copied
 * to every queue, the rest refused with a message (classful, lockless or
 * with state outside their dump).
 */
static const char *const fz_leaf_kinds[] = {
	"pfifo", "bfifo", "pfifo_head_drop", "sfq", "fq_codel", "codel",
	"fq", "pie", "hhf", "fq_pie", "cake",
	"prio", "drr", "netem", "pfifo_fast",
};

/*
 * What the fuzzer believes exists, from the answers it got: requests then
 * name existing classes most of the time, so that trees grow deep instead
 * of every request being refused for a missing parent.
 */
static uint32_t fz_exists[FZ_NDEV];	/* bit N: class 1:N+1 */

static uint32_t fz_classid(void)
{
	return (1 << 16) | (1 + fz_below(FZ_MINORS));
}

static uint32_t fz_existing(int dev)
{
	uint32_t m = fz_exists[dev];
	int n = __builtin_popcount(m), k;

	if (!n || fz_chance(15))
		return fz_classid();
	for (k = fz_below(n); k; k--)
		m &= m - 1;
	return (1 << 16) | (__builtin_ctz(m) + 1);
}

static void fz_note(int dev, uint32_t cid, int exists)
{
	uint32_t bit = 1u << (TC_H_MIN(cid) - 1);

	if (exists)
		fz_exists[dev] |= bit;
	else
		fz_exists[dev] &= ~bit;
}

/* Count the outcome of one request of kind htbx (HTBX 1) or another. */
static void fz_outcome(int err, const char *ext, int htbx, const char *what)
{
	fz_stat.ops++;
	if (!err) {
		fz_stat.accepted++;
		if (fz_verbose)
			printf("# %s: ok\n", what);
		return;
	}
	fz_stat.refused++;
	/*
	 * The tc core refuses some requests before sch_htbx sees them, without
	 * text (no such class or qdisc, exists, busy); sch_htbx itself must
	 * always say why.
	 */
	if (htbx && !ext && err != -ENOENT && err != -EEXIST &&
	    err != -EBUSY && err != -ENODEV && err != -EOPNOTSUPP &&
	    err != -ENOBUFS) {
		fz_stat.no_extack++;
		printf("# refused without extack (op %lu): %s: %s\n",
		       fz_stat.ops, what, strerror(-err));
	}
	if (fz_verbose)
		printf("# %s: %s%s%s\n", what, strerror(-err), ext ? ": " : "",
		       ext ? ext : "");
}

static void fz_op(void)
{
	int dev = fz_below(FZ_NDEV), ifi = fz_ifindex[dev], err, pick;
	struct fz_req req;
	const char *ext;
	uint32_t cid, parent;
	int est, st;

	pick = fz_below(100);
	if (pick < 8) {			/* root qdisc add / replace */
		fz_tc_init(&req, RTM_NEWQDISC, NLM_F_CREATE |
			   (fz_chance(50) ? NLM_F_REPLACE : NLM_F_EXCL),
			   ifi, 1 << 16, TC_H_ROOT);
		fz_put_str(&req, TCA_KIND, "htbx");
		fz_qdisc_opts(&req);
		fz_estimator(&req, 5);
		st = fz_stab(&req, 40);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 1, "root qdisc add");
		fz_stat.stab += st;
		fz_stat.stab_taken += st && !err;
		if (!err && (req.n.nlmsg_flags & NLM_F_REPLACE))
			fz_exists[dev] = 0;
	} else if (pick < 12) {		/* qdisc change */
		fz_tc_init(&req, RTM_NEWQDISC, 0, ifi, 1 << 16, TC_H_ROOT);
		fz_put_str(&req, TCA_KIND, "htbx");
		fz_qdisc_opts(&req);
		st = fz_stab(&req, 40);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 1, "root qdisc change");
		fz_stat.stab += st;
		fz_stat.stab_taken += st && !err;
	} else if (pick < 14) {		/* root qdisc delete */
		fz_tc_init(&req, RTM_DELQDISC, 0, ifi, 0, TC_H_ROOT);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 0, "root qdisc del");
		if (!err)
			fz_exists[dev] = 0;
	} else if (pick < 50) {		/* class add / replace */
		cid = fz_classid();
		parent = fz_chance(20) ? TC_H_ROOT : fz_existing(dev);
		fz_tc_init(&req, RTM_NEWTCLASS, NLM_F_CREATE |
			   (fz_chance(80) ? NLM_F_EXCL : NLM_F_REPLACE),
			   ifi, cid, parent);
		fz_put_str(&req, TCA_KIND, "htbx");
		fz_class_opts(&req, 1);
		est = fz_estimator(&req, 15);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 1, "class add");
		if (!err)
			fz_note(dev, cid, 1);
		fz_stat.est += !err && est;
	} else if (pick < 65) {		/* class change */
		fz_tc_init(&req, RTM_NEWTCLASS, 0, ifi, fz_existing(dev), 0);
		fz_put_str(&req, TCA_KIND, "htbx");
		fz_class_opts(&req, 0);
		est = fz_estimator(&req, 10);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 1, "class change");
		fz_stat.est += !err && est;
	} else if (pick < 75) {		/* class delete */
		cid = fz_existing(dev);
		fz_tc_init(&req, RTM_DELTCLASS, 0, ifi, cid, 0);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 1, "class del");
		if (!err)
			fz_note(dev, cid, 0);
	} else if (pick < 86) {		/* leaf qdisc graft (or a nested htbx) */
		const char *k = fz_chance(15) ? "htbx" :
			fz_leaf_kinds[fz_below(sizeof(fz_leaf_kinds) / sizeof(fz_leaf_kinds[0]))];

		fz_tc_init(&req, RTM_NEWQDISC, NLM_F_CREATE |
			   (fz_chance(50) ? NLM_F_REPLACE : NLM_F_EXCL), ifi,
			   (2 + fz_below(30)) << 16, fz_existing(dev));
		fz_put_str(&req, TCA_KIND, k);
		if (!strcmp(k, "htbx"))
			fz_qdisc_opts(&req);
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 0, "leaf qdisc add");
	} else if (pick < 90) {		/* leaf qdisc delete */
		fz_tc_init(&req, RTM_DELQDISC, 0, ifi, 0, fz_existing(dev));
		err = fz_talk(&req, &ext);
		fz_outcome(err, ext, 0, "leaf qdisc del");
	} else if (pick < 95) {		/* filter add / delete: matchall to a class */
		struct nlattr *opt;

		if (fz_chance(60)) {
			fz_tc_init(&req, RTM_NEWTFILTER, NLM_F_CREATE, ifi, 0,
				   1 << 16);
			req.t.tcm_info = TC_H_MAKE((1 + fz_below(4)) << 16,
						   htons(ETH_P_ALL));
			fz_put_str(&req, TCA_KIND, "matchall");
			opt = fz_put(&req, TCA_OPTIONS, NULL, 0);
			cid = fz_existing(dev);
			fz_put(&req, TCA_MATCHALL_CLASSID, &cid, 4);
			nlmsg_nest_end(&req.n, opt);
			err = fz_talk(&req, &ext);
			fz_outcome(err, ext, 0, "filter add");
		} else {
			fz_tc_init(&req, RTM_DELTFILTER, 0, ifi, 0, 1 << 16);
			req.t.tcm_info = TC_H_MAKE((1 + fz_below(4)) << 16, 0);
			err = fz_talk(&req, &ext);
			fz_outcome(err, ext, 0, "filter del");
		}
	} else if (pick >= 97 && fz_nq > 1) {	/* ethtool -L on the veth */
		err = fz_set_txq();
		fz_stat.ops++;
		if (!err)
			fz_stat.txq++;
		else if (err == -EOPNOTSUPP)
			fz_stat.txq_unsupp++;
		else
			fz_fail("ethtool -L fz%d rx %u tx K: %s", FZ_VETH,
				fz_nq, strerror(-err));
	} else {			/* device down and up again */
		err = fz_link_updown(ifi, 0);
		fz_outcome(err, NULL, 0, "link down");
		err = fz_link_updown(ifi, 1);
		fz_outcome(err, NULL, 0, "link up");
	}
}

static long fz_refcnt(void);
static long fz_base = -1;
static int fz_each;

/* -c: htbx qdiscs the dumps show = sch_htbx's references, after each op. */
static void fz_check_refs(void)
{
	long want = 0, n;
	int d, i;

	for (d = 0; d < FZ_NDEV; d++) {
		if (fz_dump(fz_ifindex[d], 0))
			return;
		for (i = 0; i < fz_nqd && i < 64; i++)
			want += !strcmp(fz_qd[i].kind, "htbx");
	}
	n = fz_refcnt() - fz_base;
	if (n != want)
		fz_fail("sch_htbx holds %ld references, the dumps show %ld htbx qdiscs",
			n, want);
}

/* One namespace: devices, FZ_ROUND_OPS operations under traffic, checks. */
static int fz_round(unsigned long ops)
{
	pthread_t th;
	unsigned long i;
	int d;

	if (unshare(CLONE_NEWNET)) {
		perror("htbx-fuzz: unshare(CLONE_NEWNET)");
		return -1;
	}
	if (fz_nl_open()) {
		perror("htbx-fuzz: netlink");
		return -1;
	}
	fz_ioc = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fz_ioc < 0) {
		perror("htbx-fuzz: socket");
		return -1;
	}
	for (d = 0; d < FZ_NDEV; d++) {
		char name[IFNAMSIZ], peer[IFNAMSIZ];
		int veth = fz_nq > 1 && d == FZ_VETH;

		snprintf(name, sizeof(name), "fz%d", d);
		snprintf(peer, sizeof(peer), "fz%dp", d);
		if (fz_link_add(name, veth ? peer : NULL) ||
		    !(fz_ifindex[d] = if_nametoindex(name)) ||
		    fz_link_updown(fz_ifindex[d], 1) ||
		    (veth && fz_link_updown(if_nametoindex(peer), 1))) {
			fprintf(stderr, "htbx-fuzz: cannot create %s device %s\n",
				veth ? "veth" : "dummy", name);
			return -1;
		}
	}
	memset(fz_exists, 0, sizeof(fz_exists));
	fz_stop = fz_paused = 0;
	if (pthread_create(&th, NULL, fz_sender, (void *)(uintptr_t)fz_rand()))
		return -1;
	for (i = 0; i < ops; i++) {
		fz_op();
		if (fz_each)
			fz_check_refs();
		/*
		 * The sums too, with the sender paused for it: the end of a
		 * round alone sees few trees with packets queued under a
		 * size table.
		 */
		if (i % FZ_CHECK_EVERY == FZ_CHECK_EVERY - 1) {
			d = fz_below(FZ_NDEV);
			fz_check_tree(d);
			fz_traffic(0);
			fz_check_sums(d);
			fz_traffic(1);
		}
	}
	fz_traffic(0);
	for (d = 0; d < FZ_NDEV; d++) {
		fz_check_tree(d);
		fz_check_sums(d);
		if (fz_verbose && !fz_dump(fz_ifindex[d], 0))
			for (i = 0; i < (unsigned long)fz_nqd && i < 64; i++)
				printf("# end of round: dev %d qdisc %s %x: parent %x:%x qlen %u\n",
				       d, fz_qd[i].kind, fz_qd[i].handle >> 16,
				       TC_H_MAJ(fz_qd[i].parent) >> 16,
				       TC_H_MIN(fz_qd[i].parent), fz_qd[i].qlen);
	}
	pthread_mutex_lock(&fz_lock);
	fz_stop = 1;
	pthread_cond_broadcast(&fz_cond);
	pthread_mutex_unlock(&fz_lock);
	pthread_join(th, NULL);
	/*
	 * The devices go down, their trees stay for the namespace's deletion.
	 * Down resets every qdisc: a packet queued in a class of 1 B/s holds
	 * its socket, the socket its namespace, and the namespace would
	 * outlive the round by as long as the class takes to send it (mainline
	 * htb the same: measured on 6.12, a 8bit class's 5 packets keep
	 * sch_htb referenced after `ip netns del`).
	 */
	for (d = 0; d < FZ_NDEV; d++)
		fz_link_updown(fz_ifindex[d], 0);
	fz_stat.rounds++;
	return 0;
}

/* sch_htbx's module reference count: one per htbx qdisc alive; -1: none. */
static long fz_refcnt(void)
{
	FILE *f = fopen("/sys/module/sch_htbx/refcnt", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/*
 * After a round's namespace is gone (its cleanup runs in a workqueue):
 * every htbx qdisc it held must be freed, back to BASE. Polled for 20 s.
 */
static int fz_check_freed(long base)
{
	long n = -1;
	int i;

	for (i = 0; i < 400; i++) {
		n = fz_refcnt();
		if (n <= base)
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	fz_fail("round %lu: %ld htbx qdiscs outlive their namespace (sch_htbx refcnt %ld, %ld before)",
		fz_stat.rounds, n - base, n, base);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long ops = 10000, left, seed = 1;
	long base;
	int c, status;
	pid_t pid;

	while ((c = getopt(argc, argv, "s:n:q:vch")) != -1) {
		switch (c) {
		case 'q':
			fz_nq = strtoul(optarg, NULL, 0);
			if (fz_nq < 1 || fz_nq > 64) {
				fprintf(stderr, "htbx-fuzz: -q: 1 .. 64 queues\n");
				return 2;
			}
			break;
		case 'c':
			fz_each = 1;
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			ops = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			fz_verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: htbx-fuzz [-s SEED] [-n OPS] [-q QUEUES] [-v]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	fz_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	base = fz_base = fz_refcnt();

	/*
	 * Each round runs in a child: its namespace, with whatever trees are
	 * left in it, goes when the child exits. The child reports its
	 * counters through a pipe.
	 */
	for (left = ops; left; ) {
		unsigned long n = left < FZ_ROUND_OPS ? left : FZ_ROUND_OPS;
		int fds[2];

		if (pipe(fds))
			return 1;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			close(fds[0]);
			status = fz_round(n);
			if (write(fds[1], &fz_stat, sizeof(fz_stat)) != sizeof(fz_stat) ||
			    write(fds[1], &fz_state, sizeof(fz_state)) != sizeof(fz_state))
				status = -1;
			fflush(stdout);
			_exit(status ? 1 : 0);
		}
		close(fds[1]);
		if (read(fds[0], &fz_stat, sizeof(fz_stat)) != sizeof(fz_stat) ||
		    read(fds[0], &fz_state, sizeof(fz_state)) != sizeof(fz_state)) {
			printf("not ok - htbx-fuzz seed %lu: a round died (op %lu)\n",
			       seed, fz_stat.ops);
			return 1;
		}
		close(fds[0]);
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("not ok - htbx-fuzz seed %lu: round %lu failed to set up\n",
			       seed, fz_stat.rounds);
			return 1;
		}
		if (base >= 0 && fz_check_freed(base))
			break;
		left -= n;
	}

	printf("# htbx-fuzz seed %lu: %lu operations in %lu namespaces, %lu accepted, %lu refused, %lu packets sent, %lu dump checks, %lu class estimators taken\n",
	       seed, fz_stat.ops, fz_stat.rounds, fz_stat.accepted,
	       fz_stat.refused, fz_stat.sent, fz_stat.checks, fz_stat.est);
	printf("# htbx-fuzz seed %lu: %lu root requests with a size table, %lu taken; %lu sum checks of a tree with packets queued, %lu of them under a table\n",
	       seed, fz_stat.stab, fz_stat.stab_taken, fz_stat.sums,
	       fz_stat.sums_stab);
	if (fz_nq > 1)
		printf("# htbx-fuzz seed %lu: ethtool -L fz%d rx %u tx K under traffic: %lu queue-count changes, %lu unsupported (EOPNOTSUPP)\n",
		       seed, FZ_VETH, fz_nq, fz_stat.txq, fz_stat.txq_unsupp);
	printf("%s - htbx-fuzz seed %lu: %lu operations, invariants held in %lu dump checks (%lu violations)\n",
	       fz_stat.violations ? "not ok" : "ok", seed, fz_stat.ops,
	       fz_stat.checks, fz_stat.violations);
	printf("%s - htbx-fuzz seed %lu: every refusal by sch_htbx carried extack text (%lu of %lu without)\n",
	       fz_stat.no_extack ? "not ok" : "ok", seed, fz_stat.no_extack,
	       fz_stat.refused);
	return fz_stat.violations || fz_stat.no_extack;
}
