// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_busydev - test netdev that pushes back: every busy_every-th call of
 * ndo_start_xmit returns NETDEV_TX_BUSY, the others consume the packet and
 * count it in the device's tx packets/bytes (ip -s link show busy0).
 *
 * NETDEV_TX_BUSY makes the stack hand the packet back to the root qdisc
 * (dev_requeue_skb), the driver push-back path htbx must survive without
 * charging a packet twice or losing it: every byte the qdisc counted as
 * sent must show up exactly once in tx_bytes here.
 *
 * One device, busy0, exists while the module is loaded, with `queues` TX
 * queues (1 to HTBX_BUSY_MAXQ); each queue counts its own calls, so every
 * queue pushes back every busy_every-th packet it is given. Like dummy it
 * has no ARP and a random MAC; give it an address and a static route to
 * make local traffic go through it. Pushed-back calls are counted in the
 * read-only parameter busy_returns, and per queue in busy_queue (one
 * number per queue, comma-separated), as are the packets each queue sent
 * (tx_packets); tx packets and bytes are kept per
 * queue, under that queue's tx lock, and summed for ip -s link.
 *
 * Writing tx_queues (1 .. queues) changes how many of the TX queues the
 * device uses, as a NIC's driver does on `ethtool -L`: the stack's
 * netif_set_real_num_tx_queues() under RTNL, which tells the root qdisc
 * (change_real_num_tx) and resets the qdiscs of the queues above the new
 * count. Unlike veth's set_channels it leaves the carrier up, so nothing
 * but the queue count changes under traffic.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <linux/atomic.h>
#include <linux/rtnetlink.h>

static unsigned int busy_every = 4;
module_param(busy_every, uint, 0644);
MODULE_PARM_DESC(busy_every, "return NETDEV_TX_BUSY on every Nth transmit (0: never)");

#define HTBX_BUSY_MAXQ	16

static unsigned int queues = 1;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "TX queues of busy0 (1 .. 16)");

/* written under each queue's tx lock, read after traffic stopped */
static unsigned long busy_queue[HTBX_BUSY_MAXQ];

/*
 * Not module_param_array: trixie's pahole segfaults making the
 * BTF of a module that has one (measured 2026-12-03).
 */
static int htbx_busydev_get_queues(char *buf, const struct kernel_param *kp)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < queues; i++)
		n += sysfs_emit_at(buf, n, "%s%lu", i ? "," : "",
				   READ_ONCE(busy_queue[i]));
	n += sysfs_emit_at(buf, n, "\n");
	return n;
}

static const struct kernel_param_ops htbx_busydev_queue_ops = {
	.get = htbx_busydev_get_queues,
};
module_param_cb(busy_queue, &htbx_busydev_queue_ops, NULL, 0444);
MODULE_PARM_DESC(busy_queue, "transmits answered with NETDEV_TX_BUSY, per TX queue");

static struct net_device *htbx_busydev;

struct htbx_busydev_txq {
	unsigned int	calls;		/* all three under the queue's tx lock */
	u64		packets;
	u64		bytes;
};

struct htbx_busydev_priv {
	struct htbx_busydev_txq	txq[HTBX_BUSY_MAXQ];
};

/* what each TX queue sent, read after traffic stopped */
static int htbx_busydev_get_packets(char *buf, const struct kernel_param *kp)
{
	struct htbx_busydev_priv *priv;
	unsigned int i;
	int n = 0;

	rtnl_lock();
	for (i = 0; htbx_busydev && i < queues; i++) {
		priv = netdev_priv(htbx_busydev);
		n += sysfs_emit_at(buf, n, "%s%llu", i ? "," : "",
				   READ_ONCE(priv->txq[i].packets));
	}
	rtnl_unlock();
	n += sysfs_emit_at(buf, n, "\n");
	return n;
}

static const struct kernel_param_ops htbx_busydev_packets_ops = {
	.get = htbx_busydev_get_packets,
};
module_param_cb(tx_packets, &htbx_busydev_packets_ops, NULL, 0444);
MODULE_PARM_DESC(tx_packets, "packets sent, per TX queue");

static atomic_long_t busy_returns = ATOMIC_LONG_INIT(0);
static unsigned long busy_returns_read;

static int htbx_busydev_get_busy(char *buf, const struct kernel_param *kp)
{
	busy_returns_read = atomic_long_read(&busy_returns);
	return param_get_ulong(buf, kp);
}

static const struct kernel_param_ops htbx_busydev_busy_ops = {
	.get = htbx_busydev_get_busy,
};
module_param_cb(busy_returns, &htbx_busydev_busy_ops, &busy_returns_read, 0444);
MODULE_PARM_DESC(busy_returns, "transmits answered with NETDEV_TX_BUSY");

static int htbx_busydev_set_txq(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	if (!n || n > queues)
		return -EINVAL;
	rtnl_lock();
	if (htbx_busydev)
		err = netif_set_real_num_tx_queues(htbx_busydev, n);
	rtnl_unlock();
	return err;
}

static int htbx_busydev_get_txq(char *buf, const struct kernel_param *kp)
{
	unsigned int n = queues;

	rtnl_lock();
	if (htbx_busydev)
		n = htbx_busydev->real_num_tx_queues;
	rtnl_unlock();
	return sysfs_emit(buf, "%u\n", n);
}

static const struct kernel_param_ops htbx_busydev_txq_ops = {
	.set = htbx_busydev_set_txq,
	.get = htbx_busydev_get_txq,
};
module_param_cb(tx_queues, &htbx_busydev_txq_ops, NULL, 0644);
MODULE_PARM_DESC(tx_queues, "TX queues busy0 uses (1 .. queues), as ethtool -L sets");

static netdev_tx_t htbx_busydev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct htbx_busydev_priv *priv = netdev_priv(dev);
	unsigned int qi = skb_get_queue_mapping(skb);
	unsigned int every = READ_ONCE(busy_every);
	struct htbx_busydev_txq *t = &priv->txq[qi];

	if (every && ++t->calls >= every) {
		t->calls = 0;
		WRITE_ONCE(busy_queue[qi], busy_queue[qi] + 1);
		atomic_long_inc(&busy_returns);
		return NETDEV_TX_BUSY;	/* the skb stays the stack's */
	}
	WRITE_ONCE(t->packets, t->packets + 1);
	WRITE_ONCE(t->bytes, t->bytes + skb->len);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static void htbx_busydev_stats(struct net_device *dev,
			       struct rtnl_link_stats64 *stats)
{
	struct htbx_busydev_priv *priv = netdev_priv(dev);
	unsigned int i;

	/* every queue: a queue no longer used keeps what it sent */
	for (i = 0; i < dev->num_tx_queues; i++) {
		stats->tx_packets += READ_ONCE(priv->txq[i].packets);
		stats->tx_bytes += READ_ONCE(priv->txq[i].bytes);
	}
}

static const struct net_device_ops htbx_busydev_ops = {
	.ndo_start_xmit		= htbx_busydev_xmit,
	.ndo_get_stats64	= htbx_busydev_stats,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= eth_mac_addr,
};

static void htbx_busydev_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &htbx_busydev_ops;
	dev->needs_free_netdev = true;
	dev->flags |= IFF_NOARP;
	dev->flags &= ~IFF_MULTICAST;
	dev->tx_queue_len = 1000;
	eth_hw_addr_random(dev);
}

static int __init htbx_busydev_init(void)
{
	struct net_device *dev;
	int err;

	if (!queues || queues > HTBX_BUSY_MAXQ)
		return -EINVAL;
	dev = alloc_netdev_mqs(sizeof(struct htbx_busydev_priv), "busy%d",
			       NET_NAME_ENUM, htbx_busydev_setup, queues, 1);
	if (!dev)
		return -ENOMEM;
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	htbx_busydev = dev;
	return 0;
}

static void __exit htbx_busydev_exit(void)
{
	unregister_netdev(htbx_busydev);	/* frees it: needs_free_netdev */
}

module_init(htbx_busydev_init);
module_exit(htbx_busydev_exit);
MODULE_DESCRIPTION("sch_htbx test netdev: NETDEV_TX_BUSY every Nth transmit");
MODULE_LICENSE("GPL");
