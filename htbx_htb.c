// SPDX-License-Identifier: GPL-2.0
/*
 * htbx standing in for sch_htb: the qdisc kind "htb", with sch_htb's
 * netlink interface (TCA_HTB_*), over htbx's scheduler.
 *
 * Programs that know htb and nothing else (tc's built-in htb, netlink
 * libraries, exporters that read the kind) then get htbx's clock,
 * requeue path and errors unchanged. sch_htbx registers the kind when its
 * parameter "htb" is 1 (sch_htbx_main.c), and refuses where the kernel's
 * own sch_htb holds the kind.
 *
 * This file is a front (sch_htbx.h): it turns sch_htb's requests into the
 * glue's calls and the glue's state into sch_htb's dumps. What it takes,
 * and how:
 *
 *  - Qdisc: TCA_HTB_INIT (struct tc_htb_glob: version 3, rate2quantum,
 *    defcls) and TCA_HTB_DIRECT_QLEN, as sch_htb; TCA_HTB_OFFLOAD is
 *    refused. No options, or no TCA_HTB_INIT, is refused as sch_htb
 *    refuses it. sch_htb has no qdisc change, nor has this front.
 *  - Class: TCA_HTB_PARMS (struct tc_htb_opt) and TCA_HTB_RATE64 /
 *    TCA_HTB_CEIL64, all of it on every request (sch_htb's changes are
 *    whole). The rate tables TCA_HTB_RTAB / TCA_HTB_CTAB are taken and
 *    not used: htbx computes transmission times itself.
 *  - buffer and cbuffer are psched ticks (64 ns) of transmission at rate
 *    and ceil; htbx's bucket holds bytes, the bytes those ticks send
 *    (rounded down, at least one), so its depth is sch_htb's to within a
 *    byte's transmission time, and a dump gives the ticks back as given.
 *  - Overhead, mpu and linklayer come from the rate's tc_ratespec (tc puts
 *    the same in the ceil's). sch_htb counts no giants, so neither does
 *    this front: its classes have htbx's largest mtu.
 *  - The class xstats are struct tc_htb_xstats, tokens in psched ticks.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/gen_stats.h>
#include <uapi/linux/pkt_sched.h>
#include <uapi/linux/pkt_sched_htbx.h>

#include "sch_htbx.h"
#include "htbx_htb.h"

/*
 * The version sch_htb's dump reports, its major TC_HTB_PROTOVER: what tc
 * sends in tc_htb_glob.version, and sch_htb refuses any other.
 */
#define HTBX_HTB_VER	0x30011

/* The last attribute this front knows (TCA_HTB_OFFLOAD: compat.h). */
#define HTBX_HTB_MAX	TCA_HTB_OFFLOAD

/* sch_htb's policy: lengths at least these, anything else ignored. */
static const struct nla_policy htbx_htb_policy[HTBX_HTB_MAX + 1] = {
	[TCA_HTB_PARMS]		= { .len = sizeof(struct tc_htb_opt) },
	[TCA_HTB_INIT]		= { .len = sizeof(struct tc_htb_glob) },
	[TCA_HTB_CTAB]		= { .type = NLA_BINARY, .len = TC_RTAB_SIZE },
	[TCA_HTB_RTAB]		= { .type = NLA_BINARY, .len = TC_RTAB_SIZE },
	[TCA_HTB_DIRECT_QLEN]	= { .type = NLA_U32 },
	[TCA_HTB_RATE64]	= { .type = NLA_U64 },
	[TCA_HTB_CEIL64]	= { .type = NLA_U64 },
	[TCA_HTB_OFFLOAD]	= { .type = NLA_FLAG },
};

/*
 * What the policy refused, named (each a literal: before 6.3 an extack
 * only points at its message).
 */
static void htbx_htb_bad(struct netlink_ext_ack *extack,
			 const struct nlattr *bad)
{
	switch (nla_type(bad)) {
	case TCA_HTB_PARMS:
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid htb class parameters (TCA_HTB_PARMS): shorter than struct tc_htb_opt");
		break;
	case TCA_HTB_INIT:
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid htb qdisc parameters (TCA_HTB_INIT): shorter than struct tc_htb_glob");
		break;
	case TCA_HTB_CTAB:
	case TCA_HTB_RTAB:
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid htb rate table: longer than 1024 bytes");
		break;
	case TCA_HTB_DIRECT_QLEN:
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid direct_qlen: attribute length must be 4 bytes");
		break;
	case TCA_HTB_RATE64:
	case TCA_HTB_CEIL64:
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid rate64 or ceil64: attribute length must be 8 bytes");
		break;
	case TCA_HTB_OFFLOAD:
		NL_SET_ERR_MSG_ATTR(extack, bad, "invalid offload: a flag");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "malformed or truncated htb options");
	}
}

/* Parse @opt as sch_htb does (liberally), naming what it refuses. */
static int htbx_htb_parse(struct nlattr *opt, struct nlattr **tb,
			  struct netlink_ext_ack *extack)
{
	int err;

	err = nla_parse_nested_deprecated(tb, HTBX_HTB_MAX, opt,
					  htbx_htb_policy, extack);
	if (err && extack && extack->bad_attr)
		htbx_htb_bad(extack, extack->bad_attr);
	else if (err)
		NL_SET_ERR_MSG_MOD(extack, "malformed or truncated htb options");
	return err;
}

int htbx_htb_init(struct Qdisc *sch, struct nlattr *opt,
		  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[HTBX_HTB_MAX + 1];
	const struct tc_htb_glob *gopt;
	int err;

	htbx_setup_early(sch);
	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "no htb qdisc options (TCA_OPTIONS), as htb refuses");
		return -EINVAL;
	}
	err = htbx_htb_parse(opt, tb, extack);
	if (err < 0)
		return err;
	if (!tb[TCA_HTB_INIT]) {
		NL_SET_ERR_MSG_MOD(extack, "no htb qdisc parameters (TCA_HTB_INIT), as htb refuses");
		return -EINVAL;
	}
	gopt = nla_data(tb[TCA_HTB_INIT]);
	if (gopt->version != TC_HTB_PROTOVER) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HTB_INIT],
				    "htb qdisc parameters of version 3 expected, as htb");
		return -EINVAL;
	}
	if (tb[TCA_HTB_OFFLOAD]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HTB_OFFLOAD],
				    "offload is not supported by htbx in htb's place");
		return -EOPNOTSUPP;
	}
	err = htbx_setup(sch, false, extack);
	if (err)
		return err;
	htbx_qdisc_set(sch, &gopt->defcls, &gopt->rate2quantum,
		       htbx_nla_u32_or_null(tb[TCA_HTB_DIRECT_QLEN]), extack);
	return 0;
}

int htbx_htb_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct tc_htb_glob gopt;
	struct nlattr *nest;

	/* RTNL only: the data path may be running (as in htb_dump) */
	sch->qstats.overlimits = READ_ONCE(q->queue.core.overlimits);
	memset(&gopt, 0, sizeof(gopt));
	gopt.direct_pkts = READ_ONCE(q->queue.direct_pkts);
	gopt.version = HTBX_HTB_VER;
	gopt.rate2quantum = q->r2q;
	gopt.defcls = q->defcls;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put(skb, TCA_HTB_INIT, sizeof(gopt), &gopt) ||
	    nla_put_u32(skb, TCA_HTB_DIRECT_QLEN, q->direct_qlen))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

/*
 * The bytes @ticks of transmission at @rate send: at least one (0 would
 * be htbx's "derive"), at most what htbx's burst holds.
 */
static u32 htbx_htb_ticks_to_bytes(u32 ticks, u64 rate)
{
	u64 bytes = mul_u64_u64_div_u64(PSCHED_TICKS2NS((u64)ticks), rate,
					NSEC_PER_SEC);

	return clamp_t(u64, bytes, 1, U32_MAX);
}

static u8 htbx_htb_linklayer(const struct tc_ratespec *r)
{
	return (r->linklayer & TC_LINKLAYER_MASK) == TC_LINKLAYER_ATM ?
		HTBX_LINKLAYER_ATM : HTBX_LINKLAYER_ETHERNET;
}

int htbx_htb_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			  struct nlattr **tca, unsigned long *arg,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *opt = tca[TCA_OPTIONS];
	struct nlattr *tb[HTBX_HTB_MAX + 1];
	const struct tc_htb_opt *hopt;
	struct htbx_params params;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "no htb class options (TCA_OPTIONS), as htb refuses");
		return -EINVAL;
	}
	err = htbx_htb_parse(opt, tb, extack);
	if (err < 0)
		return err;
	if (!tb[TCA_HTB_PARMS]) {
		NL_SET_ERR_MSG_MOD(extack, "no htb class parameters (TCA_HTB_PARMS), as htb refuses");
		return -EINVAL;
	}
	hopt = nla_data(tb[TCA_HTB_PARMS]);
	if (!hopt->rate.rate || !hopt->ceil.rate) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_HTB_PARMS],
				    "rate and ceil must not be 0, as in htb");
		return -EINVAL;
	}

	/* sch_htb's rule: the larger of the 32-bit and the 64-bit rate */
	memset(&params, 0, sizeof(params));
	params.rate = max_t(u64, hopt->rate.rate,
			    tb[TCA_HTB_RATE64] ? nla_get_u64(tb[TCA_HTB_RATE64]) : 0);
	params.ceil = max_t(u64, hopt->ceil.rate,
			    tb[TCA_HTB_CEIL64] ? nla_get_u64(tb[TCA_HTB_CEIL64]) : 0);
	params.htb_buffer = hopt->buffer;
	params.htb_cbuffer = hopt->cbuffer;
	/* at the rates htbx holds the class to (htbx_class_set()) */
	params.burst = htbx_htb_ticks_to_bytes(hopt->buffer,
					       min_t(u64, params.rate, HTBX_MAX_RATE));
	params.cburst = htbx_htb_ticks_to_bytes(hopt->cbuffer,
						min_t(u64, params.ceil, HTBX_MAX_RATE));
	params.quantum = hopt->quantum;
	params.prio = hopt->prio;
	params.mtu = HTBX_MAX_MTU;
	params.mpu = hopt->rate.mpu;
	params.overhead = hopt->rate.overhead;
	params.linklayer = htbx_htb_linklayer(&hopt->rate);

	return htbx_class_set(sch, classid, parentid, arg, &params,
			      tca[TCA_RATE], extack);
}

static void htbx_htb_ratespec(struct tc_ratespec *r, u64 rate,
			      const struct htbx_cfg *cfg)
{
	r->rate = min_t(u64, rate, U32_MAX);
	r->overhead = cfg->len.overhead;
	r->mpu = cfg->len.mpu;
	r->linklayer = cfg->len.linklayer == HTBX_LINKLAYER_ATM ?
		TC_LINKLAYER_ATM : TC_LINKLAYER_ETHERNET;
}

int htbx_htb_dump_class(struct Qdisc *sch, unsigned long arg,
			struct sk_buff *skb, struct tcmsg *tcm)
{
	struct htbx_class *cl = (struct htbx_class *)arg;
	const struct htbx_cfg *cfg = &cl->node.core.cfg;
	struct tc_htb_opt opt;
	struct nlattr *nest;

	/* RTNL is held: the configuration cannot change under us. */
	htbx_dump_class_ids(cl, tcm);
	memset(&opt, 0, sizeof(opt));
	htbx_htb_ratespec(&opt.rate, cfg->rate, cfg);
	htbx_htb_ratespec(&opt.ceil, cfg->ceil, cfg);
	opt.buffer = cl->params.htb_buffer;
	opt.cbuffer = cl->params.htb_cbuffer;
	opt.quantum = cfg->quantum;
	opt.prio = cfg->prio;
	opt.level = cl->node.core.level;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put(skb, TCA_HTB_PARMS, sizeof(opt), &opt) ||
	    (cfg->rate > U32_MAX &&
	     nla_put_u64_64bit(skb, TCA_HTB_RATE64, cfg->rate, TCA_HTB_PAD)) ||
	    (cfg->ceil > U32_MAX &&
	     nla_put_u64_64bit(skb, TCA_HTB_CEIL64, cfg->ceil, TCA_HTB_PAD)))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -1;
}

int htbx_htb_dump_class_stats(struct Qdisc *sch, unsigned long arg,
			      struct gnet_dump *d)
{
	struct tc_htbx_xstats xs;
	struct tc_htb_xstats hx;

	if (htbx_class_stats(sch, (struct htbx_class *)arg, d, &xs) < 0)
		return -1;
	memset(&hx, 0, sizeof(hx));
	hx.lends = xs.lends;
	hx.borrows = xs.borrows;
	hx.tokens = clamp_t(s64, PSCHED_NS2TICKS(xs.tokens), INT_MIN, INT_MAX);
	hx.ctokens = clamp_t(s64, PSCHED_NS2TICKS(xs.ctokens), INT_MIN, INT_MAX);
	return gnet_stats_copy_app(d, &hx, sizeof(hx));
}
