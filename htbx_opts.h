/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every netlink attribute of the qdisc and its classes, once, with its
 * policy and what the kernel says about it.
 *
 * An X-macro list, without an include guard: sch_htbx_main.c defines
 * HTBX_ATTR() and includes this file wherever it builds something of
 * every attribute (the policies, the messages). A line is
 *
 *   HTBX_ATTR(ATTR, name, owner, len, range, policy...)
 *
 *   ATTR	TCA_HTBX_<ATTR>
 *   name	its tc keyword, which every message about it names
 *   owner	QDISC or CLASS: the object it configures, whose policy takes
 *		it with @policy; the other object's policy rejects it with
 *		"<name> is a qdisc option, not a class option" (or v.v.).
 *		RO: read-only (dumped only), both policies reject it with
 *		"invalid <name>: <range>". PAD: not an option (the padding
 *		of 64-bit values), unknown to both.
 *   len	its length in bytes, for
 *		"invalid <name>: attribute length must be <len> bytes"
 *   range	what it takes, for "invalid <name>: <range>"
 *
 * Every line once, every attribute a line (sch_htbx_main.c asserts both).
 */
#ifdef HTBX_ATTR
HTBX_ATTR(PAD, "pad", PAD, 0, "not an option")
HTBX_ATTR(DEFCLS, "default", QDISC, 4,
	  "u32, its low 16 bits the class minor", { .type = NLA_U32 })
HTBX_ATTR(R2Q, "r2q", QDISC, 4,
	  "u32 (0 and 2^31 and more count as 1)", { .type = NLA_U32 })
HTBX_ATTR(DIRECT_QLEN, "direct_qlen", QDISC, 4,
	  "u32 packets", { .type = NLA_U32 })
HTBX_ATTR(OFFLOAD, "offload", QDISC, 0,
	  "not supported", { .type = NLA_FLAG })
HTBX_ATTR(DIRECT_PKTS, "direct_packets_stat", RO, 8, "read-only")
HTBX_ATTR(VERSION, "version", RO, 4, "read-only")
HTBX_ATTR(RATE, "rate", CLASS, 8,
	  "u64 bytes/s, at least 1 (above 10^12 counts as 10^12)",
	  NLA_POLICY_FULL_RANGE(NLA_U64, &htbx_rate_range))
HTBX_ATTR(CEIL, "ceil", CLASS, 8,
	  "u64 bytes/s, 0 (rate) or more", { .type = NLA_U64 })
HTBX_ATTR(BURST, "burst", CLASS, 4,
	  "u32 bytes, 0 (auto)..4294967295", { .type = NLA_U32 })
HTBX_ATTR(CBURST, "cburst", CLASS, 4,
	  "u32 bytes, 0 (auto)..4294967295", { .type = NLA_U32 })
HTBX_ATTR(PRIO, "prio", CLASS, 4,
	  "u32, 0..7 (more counts as 7)", { .type = NLA_U32 })
HTBX_ATTR(QUANTUM, "quantum", CLASS, 4,
	  "u32 bytes, 0 (rate/r2q)..4294967295", { .type = NLA_U32 })
HTBX_ATTR(MTU, "mtu", CLASS, 4,
	  "u32 bytes, 0 (1600) or more", { .type = NLA_U32 })
HTBX_ATTR(MPU, "mpu", CLASS, 4, "u32 bytes, 0..65536",
	  NLA_POLICY_FULL_RANGE(NLA_U32, &htbx_mpu_range))
HTBX_ATTR(OVERHEAD, "overhead", CLASS, 4, "s32 bytes, -64..65535",
	  NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32, &htbx_overhead_range))
HTBX_ATTR(LINKLAYER, "linklayer", CLASS, 1,
	  "u8, 0 (ethernet) or 1 (atm)",
	  NLA_POLICY_MAX(NLA_U8, HTBX_LINKLAYER_MAX))
HTBX_ATTR(LEVEL, "level", RO, 4, "read-only")
HTBX_ATTR(BUDGET_HITS, "budget_hits", RO, 8, "read-only")
HTBX_ATTR(MQ, "mq", QDISC, 0, "a flag", { .type = NLA_FLAG })
#endif
