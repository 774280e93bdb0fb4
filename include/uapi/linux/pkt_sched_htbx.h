/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pkt_sched_htbx.h - netlink interface of the htbx queueing discipline.
 *
 * Shared by sch_htbx.ko, the tc plugin q_htbx.so and the tests. This file is
 * append-only: attribute numbers, struct layouts and constants never change
 * meaning once released; new things are added at the end.
 *
 * Units: rates are bytes per second (64 bit), sizes are bytes, times are
 * nanoseconds. There are no rate tables and no "ticks": the kernel computes
 * transmission times itself from rate and length.
 *
 * One attribute space serves both the qdisc and its classes (as TCA_HTB_*
 * does); the kernel rejects a qdisc attribute on a class and vice versa.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_HTBX_H
#define _UAPI_LINUX_PKT_SCHED_HTBX_H

#include <linux/types.h>

#define HTBX_VERSION		1	/* of this interface; see TCA_HTBX_VERSION */

#define HTBX_MAXDEPTH		8	/* levels of the class tree, leaves included */
#define HTBX_NUMPRIO		8	/* prio 0 (served first) .. 7 */
#define HTBX_MAX_RATE		1000000000000ULL /* bytes/s (8 Tbit/s) */
#define HTBX_MIN_QUANTUM	1000	/* clamp bounds of a derived quantum */
#define HTBX_MAX_QUANTUM	200000
#define HTBX_DEFAULT_R2Q	10

/*
 * Default burst when a class gives none: the bytes the rate sends in
 * HTBX_DEFAULT_BURST_NS, but never less than HTBX_DEFAULT_BURST_MIN_MTUS
 * times the class mtu. Time based, so it does not depend on CONFIG_HZ or on
 * /proc/net/psched. The same rule gives cburst from ceil.
 */
#define HTBX_DEFAULT_BURST_NS		1000000ULL	/* 1 ms */
#define HTBX_DEFAULT_BURST_MIN_MTUS	2
#define HTBX_DEFAULT_MTU		1600

enum {
	HTBX_LINKLAYER_ETHERNET,	/* length as is */
	HTBX_LINKLAYER_ATM,		/* 53-byte cells, 48 bytes payload */
	__HTBX_LINKLAYER_MAX,
};
#define HTBX_LINKLAYER_MAX	(__HTBX_LINKLAYER_MAX - 1)

/* Class modes, as reported in tc_htbx_xstats.mode. */
enum {
	HTBX_CANT_SEND,		/* over ceil: waits */
	HTBX_MAY_BORROW,	/* over rate, under ceil: borrows */
	HTBX_CAN_SEND,		/* under rate: sends on its own */
};

enum {
	TCA_HTBX_UNSPEC,
	TCA_HTBX_PAD,

	/* qdisc attributes */
	TCA_HTBX_DEFCLS,	/* u32: default class, its low 16 bits the minor id */
	TCA_HTBX_R2Q,		/* u32: rate to quantum divisor (0, >= 2^31: 1) */
	TCA_HTBX_DIRECT_QLEN,	/* u32: limit of the direct queue, packets */
	TCA_HTBX_OFFLOAD,	/* flag: hardware offload (rejected) */
	TCA_HTBX_DIRECT_PKTS,	/* u64, dump only: packets sent direct */
	TCA_HTBX_VERSION,	/* u32, dump only: HTBX_VERSION */

	/* class attributes */
	TCA_HTBX_RATE,		/* u64: guaranteed rate, bytes/s */
	TCA_HTBX_CEIL,		/* u64: upper rate, bytes/s (0: rate) */
	TCA_HTBX_BURST,		/* u32: bytes at once above rate; 0: derived */
	TCA_HTBX_CBURST,	/* u32: bytes at once above ceil; 0: derived */
	TCA_HTBX_PRIO,		/* u32: 0..HTBX_NUMPRIO-1 (more: the last) */
	TCA_HTBX_QUANTUM,	/* u32: DRR quantum, bytes; 0: rate / r2q */
	TCA_HTBX_MTU,		/* u32: larger packets count as giants (0: 1600) */
	TCA_HTBX_MPU,		/* u32: minimum length charged */
	TCA_HTBX_OVERHEAD,	/* s32: added to every length charged */
	TCA_HTBX_LINKLAYER,	/* u8: HTBX_LINKLAYER_* */
	TCA_HTBX_LEVEL,		/* u32, dump only: 0 leaf .. 7 top */

	/* qdisc, appended */
	TCA_HTBX_BUDGET_HITS,	/* u64, dump only: dequeues out of event budget */
	TCA_HTBX_MQ,		/* flag, at creation only: one scheduler per TX
				 * queue, one class tree for all (root qdisc of
				 * a multi-queue device)
				 */
	__TCA_HTBX_MAX,
};
#define TCA_HTBX_MAX	(__TCA_HTBX_MAX - 1)

/*
 * Bounds. The first release refused everything outside them; since the
 * htb drop-in release (same HTBX_VERSION, nothing renumbered) the kernel
 * accepts every value tc-htb accepts and adjusts it as htb does, with an
 * extack warning (a message on a successful request):
 *
 *   prio above HTBX_MAX_PRIO	counts as HTBX_MAX_PRIO (htb: the same)
 *   r2q 0, and 2^31 and more	count as 1 (htb: the same, its r2q is an int)
 *   default above 0xffff	kept; only its low 16 bits name a class,
 *				as in htb (0x10000 names none)
 *   rate, ceil above HTBX_MAX_RATE  count as HTBX_MAX_RATE (htb: kept)
 *   ceil below rate		kept: the class is held to ceil (htb: the
 *				same)
 *   mtu above HTBX_MAX_MTU	counts as HTBX_MAX_MTU
 *   overhead			-64 (HTBX_MIN_OVERHEAD) .. 65535
 *				(HTBX_MAX_OVERHEAD_HTB, tc-htb's u16)
 *   direct_qlen		any u32 (htb: the same)
 *
 * HTBX_MAX_OVERHEAD and HTBX_MAX_DIRECT_QLEN are the first release's
 * bounds, kept for old sources; a new kernel accepts more.
 */
#define HTBX_MAX_PRIO		(HTBX_NUMPRIO - 1)
#define HTBX_MAX_MTU		(1U << 20)
#define HTBX_MAX_MPU		(1U << 16)
#define HTBX_MIN_OVERHEAD	(-64)
#define HTBX_MAX_OVERHEAD	1024
#define HTBX_MAX_DIRECT_QLEN	(1U << 24)
#define HTBX_MAX_OVERHEAD_HTB	65535

/*
 * Class changes (RTM_NEWTCLASS on an existing class) are partial: an
 * attribute that is absent keeps its value, one that is present replaces
 * it, and 0 in ceil, burst, cburst, quantum or mtu means "derive it" (from
 * rate, ceil and mtu, rate / r2q, 1600), now and on later changes. The
 * tc plugin sends every class attribute on every add, change and replace,
 * so that tc's result is tc-htb's (options not given take their
 * defaults); its word "partial" sends only the options given. A class
 * that has children keeps its prio and quantum on a change, as in htb:
 * they apply again when it is a leaf once more. A qdisc change is partial
 * for tc as well (htb has no qdisc change).
 */

/*
 * Class xstats (TCA_STATS_APP). Append new fields at the end; readers
 * check the length they got.
 */
struct tc_htbx_xstats {
	__u32	version;	/* HTBX_VERSION */
	__u32	mode;		/* HTBX_CANT_SEND .. HTBX_CAN_SEND */
	__u64	lends;		/* packets sent on this class's own rate */
	__u64	borrows;	/* packets this class sent on an ancestor's rate */
	__u64	giants;		/* segments longer than mtu (GSO: each) */
	__s64	tokens;		/* ns of rate credit at the last update */
	__s64	ctokens;	/* ns of ceil credit at the last update */
	__s32	deficit;	/* DRR deficit at level 0, bytes (leaves) */
	__u32	quantum;	/* DRR quantum in use, bytes */
};

/*
 * Qdisc xstats (TCA_STATS_APP of the qdisc): sent by the first release
 * only. tc prints an empty line for qdisc xstats that htb does not have,
 * so the counter moved to TCA_HTBX_BUDGET_HITS. Its second word is
 * HTBX_XSTATS_QDISC where the class xstats have a mode (0..2), so a reader
 * handed either tells them apart. Append new fields at the end.
 */
#define HTBX_XSTATS_QDISC	0x71646973	/* "qdis" */

struct tc_htbx_qdisc_xstats {
	__u32	version;	/* HTBX_VERSION */
	__u32	tag;		/* HTBX_XSTATS_QDISC */
	__u64	budget_hits;	/* dequeues that ran out of event budget */
};

#endif /* _UAPI_LINUX_PKT_SCHED_HTBX_H */
