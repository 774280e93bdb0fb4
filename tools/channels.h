/* SPDX-License-Identifier: GPL-2.0 */
/*
 * channels.h - `ethtool -L IFNAME rx RX tx TX` for the guest tools, which
 * run where no ethtool binary is: SIOCETHTOOL with ETHTOOL_GCHANNELS, then
 * ETHTOOL_SCHANNELS. The device's real TX queue count changes under its
 * qdiscs (netif_set_real_num_tx_queues), as a NIC's does.
 */
#ifndef HTBX_TOOLS_CHANNELS_H
#define HTBX_TOOLS_CHANNELS_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

/*
 * set_channels - give IFNAME @rx RX and @tx TX channels through the socket
 * @fd; an @rx of 0 keeps the RX count the device has (veth takes no zero
 * count). Return: 0, or -errno of GCHANNELS or SCHANNELS (veth has
 * set_channels from Linux 5.14 on: -EOPNOTSUPP before).
 */
static inline int set_channels(int fd, const char *ifname, unsigned int rx,
			       unsigned int tx)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		return -errno;
	ch.cmd = ETHTOOL_SCHANNELS;
	if (rx)
		ch.rx_count = rx;
	ch.tx_count = tx;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		return -errno;
	return 0;
}

#endif /* HTBX_TOOLS_CHANNELS_H */
