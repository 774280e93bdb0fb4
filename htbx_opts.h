/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every netlink attribute of the qdisc and its classes, once, with its
 * policy and what the kernel says about it; and every adjustment htbx
 * makes to a request, as htb does, with its warning.
 *
 * X-macro lists, without an include guard: sch_htbx_main.c defines
 * HTBX_ATTR() (or HTBX_ADJ(), below) and includes this file wherever it
 * builds something of every attribute (the policies, the messages). A
 * line is
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

/*
 * What htbx takes as htb takes it and then adjusts: the request succeeds,
 * and an extack warning says so. A line is
 *
 *   HTBX_ADJ(ADJ, tag, text)
 *
 *   ADJ	HTBX_ADJ_<ADJ>, its bit in the adjustments of a request
 *   tag	its short form, in "adjusted as htb: <tag>; <tag>" about several
 *   text	the warning about it alone (htbx_report() names the values
 *		instead where it has them and the kernel can format)
 */
#ifdef HTBX_ADJ
HTBX_ADJ(PRIO, "prio 7", "prio above 7 counts as 7, as in htb")
HTBX_ADJ(RATE, "rate 8Tbit",
	 "rate above 8Tbit counts as 8Tbit, the most htbx shapes")
HTBX_ADJ(CEIL, "ceil 8Tbit",
	 "ceil above 8Tbit counts as 8Tbit, the most htbx shapes")
HTBX_ADJ(CEIL_LOW, "held to ceil < rate",
	 "ceil is below rate: the class is held to ceil, as in htb")
HTBX_ADJ(MTU, "mtu 1048576", "mtu above 1048576 counts as 1048576")
HTBX_ADJ(INNER, "inner class keeps prio/quantum",
	 "a class with children keeps its prio and quantum, as in htb")
HTBX_ADJ(QUANTUM, "quantum clamped",
	 "quantum clamped to 1000..200000 (rate/r2q is out of it)")
HTBX_ADJ(R2Q, "r2q 1", "r2q 0 (or 2^31 and more) counts as 1, as in htb")
HTBX_ADJ(DEFCLS, "default: low 16 bits",
	 "default above 0xffff: only its low 16 bits name a class, as in htb")
#endif
