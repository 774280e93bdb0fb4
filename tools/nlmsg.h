/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlmsg.h - the rtnetlink pieces htbx-nl and htbx-fuzz share: building a
 * request with attributes, reading an ack's extack.
 */
#ifndef HTBX_TOOLS_NLMSG_H
#define HTBX_TOOLS_NLMSG_H

#include <stdint.h>
#include <string.h>
#include <linux/netlink.h>

/*
 * Append attribute TYPE with LEN bytes of DATA to the message at N, which
 * has room for SIZE bytes in all. NULL when it does not fit.
 */
static inline struct nlattr *nlmsg_put(struct nlmsghdr *n, size_t size,
				       int type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(n->nlmsg_len);
	struct nlattr *nla = (struct nlattr *)((char *)n + off);

	if (off + NLA_HDRLEN + NLA_ALIGN(len) > size)
		return NULL;
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)nla + NLA_HDRLEN, data, len);
	memset((char *)nla + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	n->nlmsg_len = off + NLA_ALIGN(nla->nla_len);
	return nla;
}

/* Close a nest opened by nlmsg_put(n, size, type, NULL, 0). */
static inline void nlmsg_nest_end(struct nlmsghdr *n, struct nlattr *nest)
{
	nest->nla_len = (char *)n + n->nlmsg_len - (char *)nest;
}

/* The extack TLVs of an NLMSG_ERROR (ack or error): message and offset. */
static inline void nlmsg_extack(const struct nlmsghdr *h, const char **msg,
				int *offs)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const struct nlattr *nla;
	size_t off, end = h->nlmsg_len;

	*msg = NULL;
	*offs = -1;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	off = NLMSG_ALIGN(off);
	while (off + NLA_HDRLEN <= end) {
		nla = (const struct nlattr *)((const char *)h + off);
		if (nla->nla_len < NLA_HDRLEN || off + nla->nla_len > end)
			break;
		switch (nla->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			if (nla->nla_len > NLA_HDRLEN)
				*msg = (const char *)nla + NLA_HDRLEN;
			break;
		case NLMSGERR_ATTR_OFFS:
			if (nla->nla_len >= NLA_HDRLEN + sizeof(uint32_t))
				*offs = *(const uint32_t *)((const char *)nla + NLA_HDRLEN);
			break;
		}
		off += NLA_ALIGN(nla->nla_len);
	}
}

#endif /* HTBX_TOOLS_NLMSG_H */
