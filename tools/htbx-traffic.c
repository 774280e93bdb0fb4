// SPDX-License-Identifier: GPL-2.0
/*
 * htbx-traffic - UDP/TCP flow generator and per-flow rate meter for the
 * sch_htbx VM suites.
 *
 * "send" runs one thread per flow, each paced to an absolute deadline
 * schedule (clock_nanosleep TIMER_ABSTIME), so the long-run rate is exact
 * even when single sends are late. "recv" listens on every port, starts its
 * window at the first packet, and reports each port's rate over
 * [warmup, window] in L2 bits, the way a qdisc on a veth counts them:
 * a UDP/IPv4 datagram of payload P is P + 42 bytes (14 Ethernet + 20 IP +
 * 8 UDP). See usage() for the interface; the suites depend on it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "channels.h"

#define HTBX_UDP_OVERHEAD	42	/* Ethernet 14 + IPv4 20 + UDP 8 */
#define HTBX_TCP_OVERHEAD	66	/* Ethernet 14 + IPv4 20 + TCP 20 + 12 options */
#define HTBX_MAX_FLOWS		64
#define HTBX_MAX_CONNS		256
#define HTBX_MAX_SECS		3600
#define HTBX_IDLE_LIMIT_NS	(15 * NSEC_PER_SEC)
#define NSEC_PER_SEC		1000000000LL

static const char *progname = "htbx-traffic";

static void usage(FILE *f)
{
	fprintf(f,
"usage: htbx-traffic recv [-t SECS] [-w WARMUP] [-j] [--tcp] PORT...\n"
"       htbx-traffic send -d ADDR [-t SECS] [-s PAYLOAD] [--tcp] FLOW...\n"
"       htbx-traffic tcrate -i DEV [-t SECS] [-w WARMUP] [-s]\n"
"       htbx-traffic channels [-p PAUSE] DEV TX...\n"
"       htbx-traffic --help\n"
"\n"
"recv: listen on each PORT (UDP, or TCP with --tcp). The measurement window\n"
"  starts at the first packet received on any port and lasts SECS (default 5);\n"
"  each port's rate is taken over [WARMUP, SECS] (WARMUP default 1) and counted\n"
"  in L2 bits as a qdisc on a veth counts them: a UDP/IPv4 datagram of payload\n"
"  P is (P + 42) * 8 bits. TCP is approximate: payload bytes * (1 + 66/MSS),\n"
"  i.e. 66 header bytes (Ethernet, IPv4, TCP with timestamps) per MSS-sized\n"
"  segment; ACKs in the other direction are not counted. Also reports the rate\n"
"  of every second of the window. Exits when the window ends; exits 1 if\n"
"  nothing arrives within 15 s.\n"
"  -t SECS     window length, seconds (default 5; decimals allowed)\n"
"  -w WARMUP   seconds at the start of the window left out of the rate (default 1)\n"
"  -j          JSON output:\n"
"              {\"window_s\":5,\"warmup_s\":1,\"flows\":[{\"port\":5001,\"mbit\":9.998,\n"
"               \"packets\":N,\"bytes\":N,\"per_second\":[...]}]}\n"
"  text output, one line per port:\n"
"              port 5001 mbit 9.998 packets 4462 bytes 6434204 per_sec 10.01 9.99 ...\n"
"  mbit = 10^6 bit/s; packets and bytes (L2) are those inside [WARMUP, SECS];\n"
"  for TCP, packets counts received segments' worth (bytes / (MSS + 66)).\n"
"\n"
"send: send all FLOWs concurrently to ADDR for SECS seconds (default 5), then\n"
"  stop and print one line per flow:\n"
"              port 5001 sent packets N bytes N errors N mbit X\n"
"  -d ADDR     destination IPv4 address (required)\n"
"  -t SECS     duration, seconds (default 5; decimals allowed)\n"
"  -s PAYLOAD  UDP payload / TCP write size in bytes (default 1400)\n"
"  --tcp       one TCP connection per flow instead of UDP\n"
"  FLOW = PORT[,rate=RATE][,mark=N][,tos=N][,prio=N]\n"
"    rate   target rate in L2 bits as above, with tc units: bit, kbit, mbit,\n"
"           gbit, tbit (10^3 steps), kibit, mibit, gibit (2^10 steps), and\n"
"           bps, kbps, mbps, gbps (BYTES per second, as in tc); a bare number\n"
"           is bit/s. Without rate: as fast as the socket allows.\n"
"           Pacing uses absolute deadlines (clock_nanosleep), so late sends\n"
"           are caught up and the average rate is exact.\n"
"    mark   SO_MARK (e.g. for tc fw filters)\n"
"    tos    IP_TOS byte (e.g. 0x10)\n"
"    prio   SO_PRIORITY; 0x10010 selects class 1:10 directly\n"
"  Numbers may be decimal or 0x hex. UDP send errors (ENOBUFS, ECONNREFUSED,\n"
"  ...) are counted, not fatal.\n"
"\n"
"tcrate: the rate of every tc class of DEV from its own counters: wait\n"
"  WARMUP seconds (default 0), read the counters (rtnetlink class dump), wait\n"
"  SECS (default 1), read them again; print one line per class present both\n"
"  times, and the interval, which runs between the midpoints of the two\n"
"  dumps (each dump's clock reads bracket the kernel filling it: no process\n"
"  start-up between the clock and the counters):\n"
"              class 1:10 mbit 7.998 bytes N packets N drops N secs 1.500012\n"
"  bytes, packets and drops are the increase over the interval; mbit is\n"
"  bytes * 8 / secs / 10^6.\n"
"  -i DEV      the device (in the current network namespace)\n"
"  -t SECS     the interval (default 1; decimals allowed)\n"
"  -w WARMUP   seconds to wait before the first read (default 0)\n"
"  -s          also how much of the interval the guest ran: the CPU time the\n"
"              kernel accounted on all CPUs (/proc/stat) over online CPUs x\n"
"              the time between the two reads, in %%, as a last line\n"
"              cpu acct_pct 99.8\n"
"              The kernels here account CPU time by tick: a busy guest that\n"
"              the host deschedules (plain TCG) misses ticks and shows less\n"
"              than 100 (idle time is counted by clock, so an idle guest\n"
"              shows 100 whatever the host did).\n"
"\n"
"channels: what `ethtool -L DEV tx TX` does, for each TX in turn (the RX\n"
"  count stays), PAUSE seconds (default 0; decimals allowed) before each;\n"
"  prints \"channels DEV tx TX\" after each change. Exits 1 on a refused\n"
"  change (the kernel's error printed), 3 when the device has no channels\n"
"  to set (EOPNOTSUPP: veth before Linux 5.14).\n");
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = {
		.tv_sec = t / NSEC_PER_SEC,
		.tv_nsec = t % NSEC_PER_SEC,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int parse_secs(const char *s, int64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > HTBX_MAX_SECS)
		return -1;
	*ns = (int64_t)(v * NSEC_PER_SEC + 0.5);
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s == '-' || *s == '\0')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_port(const char *s)
{
	unsigned long v;

	if (parse_uint(s, 65535, &v) || v == 0)
		return -1;
	return (int)v;
}

/* tc-style rate in bit/s (tc_util.c semantics: bare number = bit/s). */
static int parse_rate(const char *s, double *bps)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "bit", 1. },		{ "kibit", 1024. },
		{ "kbit", 1000. },	{ "mibit", 1024. * 1024. },
		{ "mbit", 1e6 },	{ "gibit", 1024. * 1024. * 1024. },
		{ "gbit", 1e9 },	{ "tibit", 1024. * 1024. * 1024. * 1024. },
		{ "tbit", 1e12 },	{ "bps", 8. },
		{ "kibps", 8. * 1024. }, { "kbps", 8000. },
		{ "mibps", 8. * 1024. * 1024. }, { "mbps", 8e6 },
		{ "gibps", 8. * 1024. * 1024. * 1024. }, { "gbps", 8e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -1;
	if (*end == '\0') {
		*bps = v;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcasecmp(end, units[i].name)) {
			*bps = v * units[i].mult;
			return 0;
		}
	}
	return -1;
}

static void set_int_opt(int fd, int level, int opt, int val, const char *what)
{
	if (setsockopt(fd, level, opt, &val, sizeof(val)) < 0)
		die("setsockopt %s=%d: %s", what, val, strerror(errno));
}

/* ---------------------------------------------------------------- send */

struct htbx_flow {
	int		port;
	double		rate;		/* bit/s, 0 = unpaced */
	long		mark, tos, prio;	/* -1 = not set */
	/* results */
	uint64_t	packets;
	uint64_t	bytes;		/* L2 */
	uint64_t	errors;
	int		fatal;
};

static struct {
	struct sockaddr_in	dst;
	int64_t			start, end;
	size_t			payload;
	int			tcp;
} tx;

/* A socket for flow @f with its mark, tos and priority set. */
static int flow_open(const struct htbx_flow *f)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	int fd;

	fd = socket(AF_INET, tx.tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (f->mark >= 0)
		set_int_opt(fd, SOL_SOCKET, SO_MARK, (int)f->mark, "SO_MARK");
	if (f->tos >= 0)
		set_int_opt(fd, IPPROTO_IP, IP_TOS, (int)f->tos, "IP_TOS");
	if (f->prio >= 0)
		set_int_opt(fd, SOL_SOCKET, SO_PRIORITY, (int)f->prio, "SO_PRIORITY");
	/* Blocked sends return now and then so the flow stops on time. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

static int flow_socket(struct htbx_flow *f)
{
	struct sockaddr_in dst = tx.dst;
	int fd = flow_open(f);

	dst.sin_port = htons(f->port);
	if (!tx.tcp) {
		if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0)
			die("connect udp %d: %s", f->port, strerror(errno));
		return fd;
	}
	/* The receiver may still be starting: retry for up to 5 s. */
	for (;;) {
		if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) == 0)
			return fd;
		if (now_ns() > tx.start + 5 * NSEC_PER_SEC || now_ns() > tx.end) {
			fprintf(stderr, "%s: connect tcp %d: %s\n", progname,
				f->port, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
		usleep(50000);
		fd = flow_open(f);
	}
}

static void *flow_main(void *arg)
{
	struct htbx_flow *f = arg;
	double l2bytes, mss = 1448;
	int64_t interval = 0, next;
	uint64_t n = 0;
	char *buf;
	int fd;

	buf = calloc(1, tx.payload ? tx.payload : 1);
	if (!buf)
		die("out of memory");
	sleep_until(tx.start);
	fd = flow_socket(f);
	if (fd < 0) {
		f->fatal = 1;
		free(buf);
		return NULL;
	}
	if (tx.tcp) {
		int v = 0;
		socklen_t len = sizeof(v);

		if (!getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &len) && v > 0)
			mss = v;
		l2bytes = tx.payload * (1. + HTBX_TCP_OVERHEAD / mss);
	} else {
		l2bytes = tx.payload + HTBX_UDP_OVERHEAD;
	}
	if (f->rate > 0)
		interval = (int64_t)(l2bytes * 8. * NSEC_PER_SEC / f->rate);

	next = now_ns();
	for (;;) {
		ssize_t r;
		int64_t t;

		if (interval) {
			/* Deadline n of an absolute schedule: no drift. */
			next = tx.start + (int64_t)n * interval;
			if (next >= tx.end)
				break;
			if (next > now_ns())
				sleep_until(next);
		}
		t = now_ns();
		if (t >= tx.end)
			break;
		r = send(fd, buf, tx.payload, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;	/* blocked for 100 ms: retry */
			f->errors++;
			if (tx.tcp) {
				/* Typically the receiver's window ended first. */
				if (errno != EPIPE && errno != ECONNRESET) {
					fprintf(stderr, "%s: tcp %d: %s\n", progname,
						f->port, strerror(errno));
					f->fatal = 1;
				}
				break;
			}
			n++;	/* a dropped datagram keeps its slot */
			continue;
		}
		n++;
		f->packets++;
		if (tx.tcp)
			f->bytes += (uint64_t)(r * (1. + HTBX_TCP_OVERHEAD / mss) + 0.5);
		else
			f->bytes += (uint64_t)r + HTBX_UDP_OVERHEAD;
	}
	close(fd);
	free(buf);
	return NULL;
}

static int parse_flow(const char *arg, struct htbx_flow *f)
{
	char *s = strdup(arg), *tok, *save = NULL;
	unsigned long v;
	int ret = -1;

	if (!s)
		die("out of memory");
	memset(f, 0, sizeof(*f));
	f->mark = f->tos = f->prio = -1;
	tok = strtok_r(s, ",", &save);
	if (!tok || (f->port = parse_port(tok)) < 0)
		goto out;
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *val = strchr(tok, '=');

		if (!val)
			goto out;
		*val++ = '\0';
		if (!strcmp(tok, "rate")) {
			if (parse_rate(val, &f->rate))
				goto out;
		} else if (!strcmp(tok, "mark")) {
			if (parse_uint(val, 0xffffffffUL, &v))
				goto out;
			f->mark = (long)v;
		} else if (!strcmp(tok, "tos")) {
			if (parse_uint(val, 255, &v))
				goto out;
			f->tos = (long)v;
		} else if (!strcmp(tok, "prio")) {
			if (parse_uint(val, 0xffffffffUL, &v))
				goto out;
			f->prio = (long)v;
		} else {
			goto out;
		}
	}
	ret = 0;
out:
	free(s);
	return ret;
}

static int cmd_send(int argc, char **argv)
{
	static struct htbx_flow flows[HTBX_MAX_FLOWS];
	pthread_t threads[HTBX_MAX_FLOWS];
	int64_t secs = 5 * NSEC_PER_SEC;
	const char *addr = NULL;
	int nflows = 0, i, fail = 0;
	unsigned long v;

	tx.payload = 1400;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-d") && i + 1 < argc) {
			addr = argv[++i];
		} else if (!strcmp(a, "-t") && i + 1 < argc) {
			if (parse_secs(argv[++i], &secs) || !secs)
				die("bad -t %s", argv[i]);
		} else if (!strcmp(a, "-s") && i + 1 < argc) {
			if (parse_uint(argv[++i], 65507, &v) || !v)
				die("bad -s %s (1..65507)", argv[i]);
			tx.payload = v;
		} else if (!strcmp(a, "--tcp")) {
			tx.tcp = 1;
		} else if (a[0] == '-') {
			die("send: unknown or incomplete option %s (see --help)", a);
		} else {
			if (nflows == HTBX_MAX_FLOWS)
				die("at most %d flows", HTBX_MAX_FLOWS);
			if (parse_flow(a, &flows[nflows]))
				die("bad flow \"%s\" (PORT[,rate=RATE][,mark=N][,tos=N][,prio=N])", a);
			nflows++;
		}
	}
	if (!addr)
		die("send: -d ADDR is required (see --help)");
	if (!nflows)
		die("send: no FLOW given (see --help)");
	tx.dst.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &tx.dst.sin_addr) != 1)
		die("bad address %s", addr);

	/* Common start a little ahead, so every thread starts together. */
	tx.start = now_ns() + 20 * 1000000LL;
	tx.end = tx.start + secs;
	for (i = 0; i < nflows; i++)
		if (pthread_create(&threads[i], NULL, flow_main, &flows[i]))
			die("pthread_create failed");
	for (i = 0; i < nflows; i++)
		pthread_join(threads[i], NULL);
	for (i = 0; i < nflows; i++) {
		struct htbx_flow *f = &flows[i];

		printf("port %d sent packets %llu bytes %llu errors %llu mbit %.3f\n",
		       f->port, (unsigned long long)f->packets,
		       (unsigned long long)f->bytes,
		       (unsigned long long)f->errors,
		       f->bytes * 8. / ((double)secs / NSEC_PER_SEC) / 1e6);
		fail |= f->fatal;
	}
	return fail;
}

/* ---------------------------------------------------------------- recv */

struct htbx_port {
	int		port;
	int		fd;		/* UDP socket or TCP listener */
	uint64_t	packets;	/* in [warmup, window] */
	uint64_t	bytes;		/* L2, in [warmup, window] */
	double		tcp_bytes;	/* TCP: L2 estimate before rounding */
	double		*per_sec;	/* L2 bytes per second of the window */
};

struct htbx_conn {
	int		fd;
	struct htbx_port *port;
	double		mss;
};

static struct {
	struct htbx_port	ports[HTBX_MAX_FLOWS];
	struct htbx_conn	conns[HTBX_MAX_CONNS];
	int			nports, nconns;
	int64_t			window, warmup, t0;
	int			nsec;	/* per-second buckets */
	int			tcp;
} rx;

/* One arrival of @l2 bytes at @t; for TCP @pkts is the MSS (segments are estimated). */
static void account(struct htbx_port *p, int64_t t, double l2, double pkts)
{
	int64_t off;
	int b;

	if (!rx.t0)
		rx.t0 = t;
	off = t - rx.t0;
	if (off >= rx.window)
		return;
	b = (int)(off / NSEC_PER_SEC);
	if (b < rx.nsec)
		p->per_sec[b] += l2;
	if (off >= rx.warmup) {
		if (rx.tcp) {
			p->tcp_bytes += l2;
			p->bytes = (uint64_t)(p->tcp_bytes + 0.5);
			p->packets = (uint64_t)(p->tcp_bytes / (pkts + HTBX_TCP_OVERHEAD) + 0.5);
		} else {
			p->bytes += (uint64_t)l2;
			p->packets++;
		}
	}
}

static void recv_udp(struct htbx_port *p)
{
	enum { BATCH = 32 };
	static char bufs[BATCH][2048];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	int i, n;

	for (;;) {
		memset(msgs, 0, sizeof(msgs));
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = sizeof(bufs[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(p->fd, msgs, BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
		if (n <= 0)
			return;
		int64_t t = now_ns();

		for (i = 0; i < n; i++)
			account(p, t, msgs[i].msg_len + HTBX_UDP_OVERHEAD, 1);
		if (n < BATCH)
			return;
	}
}

static void tcp_accept(struct htbx_port *p)
{
	struct htbx_conn *c;
	socklen_t len;
	int fd, v = 0;

	fd = accept(p->fd, NULL, NULL);
	if (fd < 0)
		return;
	if (rx.nconns == HTBX_MAX_CONNS) {
		close(fd);
		return;
	}
	c = &rx.conns[rx.nconns++];
	c->fd = fd;
	c->port = p;
	len = sizeof(v);
	c->mss = 1448;
	if (!getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &len) && v > 0)
		c->mss = v;
}

static void tcp_read(struct htbx_conn *c)
{
	static char buf[65536];
	ssize_t r;

	r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (r > 0) {
		account(c->port, now_ns(), r * (1. + HTBX_TCP_OVERHEAD / c->mss), c->mss);
	} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(c->fd);
		c->fd = -1;
	}
}

static int open_port(struct htbx_port *p)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(p->port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int fd, one = 1, sz = 8 << 20;

	fd = socket(AF_INET, rx.tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind port %d: %s", p->port, strerror(errno));
	if (rx.tcp && listen(fd, 16) < 0)
		die("listen port %d: %s", p->port, strerror(errno));
	return fd;
}

static void print_results(int json)
{
	double span = (double)(rx.window - rx.warmup) / NSEC_PER_SEC;
	int i, s;

	if (json)
		printf("{\"window_s\":%g,\"warmup_s\":%g,\"flows\":[",
		       (double)rx.window / NSEC_PER_SEC,
		       (double)rx.warmup / NSEC_PER_SEC);
	for (i = 0; i < rx.nports; i++) {
		struct htbx_port *p = &rx.ports[i];
		double mbit = span > 0 ? p->bytes * 8. / span / 1e6 : 0;

		if (json) {
			printf("%s{\"port\":%d,\"mbit\":%.3f,\"packets\":%llu,\"bytes\":%llu,\"per_second\":[",
			       i ? "," : "", p->port, mbit,
			       (unsigned long long)p->packets,
			       (unsigned long long)p->bytes);
		} else {
			printf("port %d mbit %.3f packets %llu bytes %llu per_sec",
			       p->port, mbit, (unsigned long long)p->packets,
			       (unsigned long long)p->bytes);
		}
		for (s = 0; s < rx.nsec; s++) {
			/* The last bucket may be shorter than a second. */
			double len = (double)(rx.window - (int64_t)s * NSEC_PER_SEC) / NSEC_PER_SEC;
			double r;

			if (len > 1)
				len = 1;
			r = len > 0 ? p->per_sec[s] * 8. / len / 1e6 : 0;
			if (json)
				printf("%s%.3f", s ? "," : "", r);
			else
				printf(" %.2f", r);
		}
		printf(json ? "]}" : "\n");
	}
	if (json)
		printf("]}\n");
}

static int cmd_recv(int argc, char **argv)
{
	struct pollfd pfds[HTBX_MAX_FLOWS + HTBX_MAX_CONNS];
	int64_t start, deadline;
	int json = 0, i, n;

	rx.window = 5 * NSEC_PER_SEC;
	rx.warmup = NSEC_PER_SEC;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-t") && i + 1 < argc) {
			if (parse_secs(argv[++i], &rx.window) || !rx.window)
				die("bad -t %s", argv[i]);
		} else if (!strcmp(a, "-w") && i + 1 < argc) {
			if (parse_secs(argv[++i], &rx.warmup))
				die("bad -w %s", argv[i]);
		} else if (!strcmp(a, "-j")) {
			json = 1;
		} else if (!strcmp(a, "--tcp")) {
			rx.tcp = 1;
		} else if (a[0] == '-') {
			die("recv: unknown or incomplete option %s (see --help)", a);
		} else {
			if (rx.nports == HTBX_MAX_FLOWS)
				die("at most %d ports", HTBX_MAX_FLOWS);
			if ((rx.ports[rx.nports].port = parse_port(a)) < 0)
				die("bad port %s", a);
			rx.nports++;
		}
	}
	if (!rx.nports)
		die("recv: no PORT given (see --help)");
	if (rx.warmup >= rx.window)
		die("warmup (-w) must be shorter than the window (-t)");
	rx.nsec = (int)((rx.window + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
	for (i = 0; i < rx.nports; i++) {
		rx.ports[i].fd = open_port(&rx.ports[i]);
		rx.ports[i].per_sec = calloc(rx.nsec, sizeof(double));
		if (!rx.ports[i].per_sec)
			die("out of memory");
	}

	start = now_ns();
	for (;;) {
		int64_t t = now_ns(), wait;

		deadline = rx.t0 ? rx.t0 + rx.window : start + HTBX_IDLE_LIMIT_NS;
		if (t >= deadline)
			break;
		wait = (deadline - t + 999999) / 1000000;
		n = 0;
		for (i = 0; i < rx.nports; i++) {
			pfds[n].fd = rx.ports[i].fd;
			pfds[n++].events = POLLIN;
		}
		for (i = 0; i < rx.nconns; i++) {
			pfds[n].fd = rx.conns[i].fd;	/* -1 is ignored */
			pfds[n++].events = POLLIN;
		}
		if (poll(pfds, n, (int)(wait > 1000 ? 1000 : wait)) <= 0)
			continue;
		for (i = 0; i < rx.nports; i++) {
			if (!(pfds[i].revents & POLLIN))
				continue;
			if (rx.tcp)
				tcp_accept(&rx.ports[i]);
			else
				recv_udp(&rx.ports[i]);
		}
		for (i = 0; i < n - rx.nports; i++)
			if (pfds[rx.nports + i].revents & (POLLIN | POLLHUP | POLLERR))
				tcp_read(&rx.conns[i]);
	}
	if (!rx.t0) {
		fprintf(stderr, "%s: recv: nothing arrived within %lld s\n", progname,
			(long long)(HTBX_IDLE_LIMIT_NS / NSEC_PER_SEC));
		return 1;
	}
	print_results(json);
	return 0;
}

/* ---------------------------------------------------------------- tcrate */

#define HTBX_MAX_CLASSES	256

struct htbx_tcclass {
	uint32_t	handle;
	uint64_t	bytes, packets;
	uint32_t	drops;
};

/* One RTM_GETTCLASS dump of @ifindex into @out; *@t is the middle of the
 * clock reads around the request (the kernel fills a small dump while it
 * handles the request). Returns the number of classes, -1 on error.
 */
static int tc_class_dump(int fd, int ifindex, struct htbx_tcclass *out, int max,
			 int64_t *t)
{
	struct {
		struct nlmsghdr	nh;
		struct tcmsg	tcm;
	} req;
	static char buf[1 << 16];
	static uint32_t seq;
	int64_t t0, t1 = 0;
	int n = 0, done = 0;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	req.nh.nlmsg_type = RTM_GETTCLASS;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = ++seq;
	req.tcm.tcm_family = AF_UNSPEC;
	req.tcm.tcm_ifindex = ifindex;
	t0 = now_ns();
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -1;
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (!t1)
			t1 = now_ns();
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)len);
		     nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tcm = NLMSG_DATA(nh);
			struct htbx_tcclass *c;
			struct rtattr *a;
			int alen;

			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (nh->nlmsg_type != RTM_NEWTCLASS || n == max)
				continue;
			c = &out[n++];
			memset(c, 0, sizeof(*c));
			c->handle = tcm->tcm_handle;
			alen = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tcm));
			for (a = (struct rtattr *)((char *)tcm + NLMSG_ALIGN(sizeof(*tcm)));
			     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				struct rtattr *b;
				int blen;

				if (a->rta_type != TCA_STATS2)
					continue;
				blen = RTA_PAYLOAD(a);
				for (b = RTA_DATA(a); RTA_OK(b, blen); b = RTA_NEXT(b, blen)) {
					if (b->rta_type == TCA_STATS_BASIC &&
					    RTA_PAYLOAD(b) >= 12) {
						struct gnet_stats_basic bs;

						memset(&bs, 0, sizeof(bs));
						memcpy(&bs, RTA_DATA(b),
						       RTA_PAYLOAD(b) < sizeof(bs) ?
						       RTA_PAYLOAD(b) : sizeof(bs));
						c->bytes = bs.bytes;
						if (!c->packets)
							c->packets = bs.packets;
					} else if (b->rta_type == TCA_STATS_PKT64 &&
						   RTA_PAYLOAD(b) >= 8) {
						memcpy(&c->packets, RTA_DATA(b), 8);
					} else if (b->rta_type == TCA_STATS_QUEUE &&
						   RTA_PAYLOAD(b) >= sizeof(struct gnet_stats_queue)) {
						struct gnet_stats_queue q;

						memcpy(&q, RTA_DATA(b), sizeof(q));
						c->drops = q.drops;
					}
				}
			}
		}
	}
	*t = t0 + (t1 - t0) / 2;
	return n;
}

/*
 * tcrate -s: the CPU time the kernel accounted on all CPUs so far
 * (/proc/stat's "cpu" line, user .. steal) in clock ticks, and *@t the
 * moment it was read; -1 when it cannot be read.
 */
static double cpu_ticks(int64_t *t)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	double sum = 0;
	int i, n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	*t = now_ns();
	fclose(f);
	if (n < 4)
		return -1;
	for (i = 0; i < 8; i++)
		sum += v[i];
	return sum;
}

static int cmd_tcrate(int argc, char **argv)
{
	static struct htbx_tcclass a[HTBX_MAX_CLASSES], b[HTBX_MAX_CLASSES];
	int64_t secs = NSEC_PER_SEC, warm = 0, ta, tb;
	const char *dev = NULL;
	int i, j, na, nb, fd, ifindex, acct = 0;
	double ca = 0, cb = 0;
	int64_t tca = 0, tcb = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-i") && i + 1 < argc) {
			dev = argv[++i];
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (parse_secs(argv[++i], &secs) || !secs)
				die("bad -t %s", argv[i]);
		} else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
			if (parse_secs(argv[++i], &warm))
				die("bad -w %s", argv[i]);
		} else if (!strcmp(argv[i], "-s")) {
			acct = 1;
		} else {
			die("tcrate: unknown or incomplete option %s (see --help)", argv[i]);
		}
	}
	if (!dev)
		die("tcrate: -i DEV is required (see --help)");
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex)
		die("tcrate: no device %s", dev);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		die("netlink socket: %s", strerror(errno));
	if (warm)
		sleep_until(now_ns() + warm);
	na = tc_class_dump(fd, ifindex, a, HTBX_MAX_CLASSES, &ta);
	if (na < 0)
		die("tcrate: class dump of %s: %s", dev, strerror(errno));
	if (acct)
		ca = cpu_ticks(&tca);
	sleep_until(ta + secs);
	nb = tc_class_dump(fd, ifindex, b, HTBX_MAX_CLASSES, &tb);
	if (nb < 0)
		die("tcrate: class dump of %s: %s", dev, strerror(errno));
	if (acct)
		cb = cpu_ticks(&tcb);
	close(fd);
	for (j = 0; j < nb; j++) {
		for (i = 0; i < na && a[i].handle != b[j].handle; i++)
			;
		if (i == na)
			continue;
		printf("class %x:%x mbit %.3f bytes %llu packets %llu drops %u secs %.6f\n",
		       b[j].handle >> 16, b[j].handle & 0xffff,
		       (b[j].bytes - a[i].bytes) * 8. / ((double)(tb - ta) / NSEC_PER_SEC) / 1e6,
		       (unsigned long long)(b[j].bytes - a[i].bytes),
		       (unsigned long long)(b[j].packets - a[i].packets),
		       b[j].drops - a[i].drops, (double)(tb - ta) / NSEC_PER_SEC);
	}
	if (acct && ca >= 0 && cb >= 0 && tcb > tca)
		printf("cpu acct_pct %.1f\n", (cb - ca) * 100. *
		       NSEC_PER_SEC / sysconf(_SC_CLK_TCK) /
		       sysconf(_SC_NPROCESSORS_ONLN) / (double)(tcb - tca));
	else if (acct)
		printf("cpu acct_pct unknown\n");
	return 0;
}

static int cmd_channels(int argc, char **argv)
{
	struct timespec pause = { 0 };
	const char *dev;
	double secs;
	int fd, i, err;
	char *end;
	long tx;

	if (argc >= 2 && !strcmp(argv[0], "-p")) {
		secs = strtod(argv[1], &end);
		if (*end || secs < 0 || secs > HTBX_MAX_SECS)
			die("channels: bad pause \"%s\"", argv[1]);
		pause.tv_sec = (time_t)secs;
		pause.tv_nsec = (long)((secs - pause.tv_sec) * NSEC_PER_SEC);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		die("channels: want DEV and at least one TX count");
	dev = argv[0];
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("channels: socket: %s", strerror(errno));
	for (i = 1; i < argc; i++) {
		tx = strtol(argv[i], &end, 0);
		if (*end || tx < 1 || tx > 4096)
			die("channels: bad TX count \"%s\"", argv[i]);
		nanosleep(&pause, NULL);
		err = set_channels(fd, dev, 0, tx);
		if (err) {
			fprintf(stderr, "%s: ethtool -L %s tx %ld: %s\n",
				progname, dev, tx, strerror(-err));
			close(fd);
			return err == -EOPNOTSUPP ? 3 : 1;
		}
		printf("channels %s tx %ld\n", dev, tx);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 2, argv + 2);
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 2, argv + 2);
	if (!strcmp(argv[1], "tcrate"))
		return cmd_tcrate(argc - 2, argv + 2);
	if (!strcmp(argv[1], "channels"))
		return cmd_channels(argc - 2, argv + 2);
	fprintf(stderr, "%s: unknown command \"%s\"\n", progname, argv[1]);
	usage(stderr);
	return 2;
}
