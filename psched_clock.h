/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one source of time and the rate arithmetic of htbx.
 *
 * Every duration in htbx is a 64-bit count of nanoseconds read from
 * ktime_get_ns() (CLOCK_MONOTONIC). Nothing depends on HZ, jiffies or a
 * tick scale: a transmission time is len * NSEC_PER_SEC / rate, computed
 * exactly, and the remainder of that division is carried to the next
 * packet so that rounding never accumulates (over any number of packets
 * the time charged differs from the exact value by less than 1 ns).
 *
 * No kernel-only dependencies beyond the basic types, div64_u64_rem and
 * mul_u64_u64_shr, so the userspace harness (tests/unit) includes this
 * file as it is and drives it with a virtual clock.
 */
#ifndef _HTBX_PSCHED_CLOCK_H
#define _HTBX_PSCHED_CLOCK_H

#define HTBX_NSEC_PER_SEC	1000000000ULL

#ifdef __KERNEL__
/* The only clock htbx reads. */
static inline u64 htbx_clock_ns(void)
{
	return ktime_get_ns();
}
#endif

/* How a packet's length maps to the length the rate is charged for. */
struct htbx_lenspec {
	u32	mpu;		/* minimum charged length */
	s32	overhead;	/* added per packet (may be negative) */
	u8	linklayer;	/* HTBX_LINKLAYER_ETHERNET or _ATM */
};

/**
 * htbx_wire_len - bytes a packet of @len occupies on the shaped link
 * @ls: the class's length rules
 * @len: the packet length as the qdisc sees it
 *
 * Overhead first, then mpu, then ATM cell padding (48 payload bytes in
 * 53-byte cells), the order tc-htb(8) documents.
 *
 * Return: the length on the wire, never below 1.
 */
static inline u64 htbx_wire_len(const struct htbx_lenspec *ls, u32 len)
{
	s64 l = (s64)len + ls->overhead;

	if (l < (s64)ls->mpu)
		l = ls->mpu;
	if (l < 1)
		l = 1;
	if (ls->linklayer == 1 /* HTBX_LINKLAYER_ATM */)
		l = ((l + 47) / 48) * 53;
	return (u64)l;
}

/**
 * htbx_xmit_ns - transmission time of @bytes at @rate, remainder carried
 * @rate: bytes per second, 1 .. HTBX_MAX_RATE
 * @bytes: from htbx_wire_len: below 2^33 even for a u32 length with the
 *	largest overhead and ATM padding (53/48 of it)
 * @rem: in: remainder left by the previous call (< @rate); out: new one
 *
 * Return: floor((bytes * 1e9 + *rem) / rate). bytes * 1e9 < 2^63 and
 * *rem < 2^40, so the sum cannot overflow. Carrying *rem makes the sum of
 * the results over any run of packets exactly floor(total * 1e9 / rate).
 */
static inline u64 htbx_xmit_ns(u64 rate, u64 bytes, u64 *rem)
{
	u64 r;
	u64 ns = div64_u64_rem(bytes * HTBX_NSEC_PER_SEC + *rem, rate, &r);

	*rem = r;
	return ns;
}

/* floor((2^64 - 1) / @rate): the multiplier htbx_xmit_ns_r takes. */
static inline u64 htbx_rate_recip(u64 rate)
{
	return div64_u64(~0ULL, rate);
}

/**
 * htbx_xmit_ns_r - htbx_xmit_ns with a multiply in place of the divide
 * @rate: as htbx_xmit_ns
 * @recip: htbx_rate_recip(@rate), computed when the rate is set
 * @bytes: as htbx_xmit_ns
 * @rem: as htbx_xmit_ns
 *
 * The same quotient and remainder as htbx_xmit_ns, bit for bit. With
 * n = bytes * 1e9 + *rem < 2^64 and R = 2^64: recip <= (R - 1) / rate, so
 * q' = floor(n * recip / R) is at most floor(n / rate); and recip >
 * (R - 1) / rate - 1, so n * recip / R > n / rate - 2 and q' falls short
 * by at most 2. Two compare-and-subtract steps on the remainder finish
 * it. A 64-bit divide costs tens of cycles on current CPUs, the high half
 * of a 64x64 multiply three or four; htbx_charge does two per level.
 *
 * Return: what htbx_xmit_ns returns.
 */
static inline u64 htbx_xmit_ns_r(u64 rate, u64 recip, u64 bytes, u64 *rem)
{
	u64 n = bytes * HTBX_NSEC_PER_SEC + *rem;
	u64 q = mul_u64_u64_shr(n, recip, 64);
	u64 r = n - q * rate;

	if (r >= rate) {
		r -= rate;
		q++;
		if (r >= rate) {
			r -= rate;
			q++;
		}
	}
	*rem = r;
	return q;
}

/* Time that @bytes take at @rate, rounded up (buffers, not charges). */
static inline s64 htbx_bytes_to_ns(u64 rate, u64 bytes)
{
	u64 r;
	u64 ns = div64_u64_rem(bytes * HTBX_NSEC_PER_SEC, rate, &r);

	return (s64)(ns + (r ? 1 : 0));
}

/**
 * htbx_default_burst - burst for a class that was given none
 * @rate: bytes per second
 * @mtu: the class mtu
 *
 * What the rate sends in HTBX_DEFAULT_BURST_NS, but at least
 * HTBX_DEFAULT_BURST_MIN_MTUS * mtu, at most U32_MAX.
 *
 * Return: the burst, bytes.
 */
static inline u32 htbx_default_burst(u64 rate, u32 mtu)
{
	u64 b = div64_u64(rate * HTBX_DEFAULT_BURST_NS, HTBX_NSEC_PER_SEC);
	u64 lo = (u64)HTBX_DEFAULT_BURST_MIN_MTUS * mtu;

	if (b < lo)
		b = lo;
	if (b > 0xffffffffULL)
		b = 0xffffffffULL;
	return (u32)b;
}

#endif /* _HTBX_PSCHED_CLOCK_H */
