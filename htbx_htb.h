/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The htb front (htbx_htb.c): the callbacks of the ops tables of kind
 * "htb" (sch_htbx_main.c) that speak sch_htb's netlink interface.
 */
#ifndef _HTBX_HTB_H
#define _HTBX_HTB_H

#include <net/sch_generic.h>

int htbx_htb_init(struct Qdisc *sch, struct nlattr *opt,
		  struct netlink_ext_ack *extack);
int htbx_htb_dump(struct Qdisc *sch, struct sk_buff *skb);
int htbx_htb_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			  struct nlattr **tca, unsigned long *arg,
			  struct netlink_ext_ack *extack);
int htbx_htb_dump_class(struct Qdisc *sch, unsigned long arg,
			struct sk_buff *skb, struct tcmsg *tcm);
int htbx_htb_dump_class_stats(struct Qdisc *sch, unsigned long arg,
			      struct gnet_dump *d);

#endif /* _HTBX_HTB_H */
