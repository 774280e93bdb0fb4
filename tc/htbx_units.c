// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_units.c - parsing and formatting of tc units for q_htbx.so.
 *
 * Written for htbx rather than borrowed from tc: tc's own helpers changed
 * their types and rounding between releases (6.15, 6.18), and the plugin
 * has to print the same thing under every tc it loads into.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "htbx_units.h"

struct htbx_unit {
	const char *name;
	double scale;
};

/* multipliers to bits per second */
static const struct htbx_unit htbx_rate_units[] = {
	{ "",      1. },
	{ "bit",   1. },
	{ "kbit",  1e3 },  { "kibit", 1024. },
	{ "mbit",  1e6 },  { "mibit", 1048576. },
	{ "gbit",  1e9 },  { "gibit", 1073741824. },
	{ "tbit",  1e12 }, { "tibit", 1099511627776. },
	{ "bps",   8. },
	{ "kbps",  8e3 },  { "kibps", 8. * 1024 },
	{ "mbps",  8e6 },  { "mibps", 8. * 1048576 },
	{ "gbps",  8e9 },  { "gibps", 8. * 1073741824 },
	{ "tbps",  8e12 }, { "tibps", 8. * 1099511627776. },
};

/* multipliers to bytes */
static const struct htbx_unit htbx_size_units[] = {
	{ "",     1. },
	{ "b",    1. },
	{ "k",    1024. },       { "kb", 1024. },       { "kbit", 1024. / 8 },
	{ "m",    1048576. },    { "mb", 1048576. },    { "mbit", 1048576. / 8 },
	{ "g",    1073741824. }, { "gb", 1073741824. }, { "gbit", 1073741824. / 8 },
};

static int htbx_lookup_unit(const struct htbx_unit *u, size_t n,
			    const char *name, size_t len, double *scale)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strlen(u[i].name) == len &&
		    strncasecmp(u[i].name, name, len) == 0) {
			*scale = u[i].scale;
			return 0;
		}
	}
	return -1;
}

/* Round a non-negative value to a whole number without libm. */
static double htbx_round(double x)
{
	if (x >= 9e18)		/* beyond every range checked here anyway */
		return x;
	return (double)(unsigned long long)(x + 0.5);
}

/* A finite, non-negative decimal number at the start of str. */
static int htbx_number(const char *str, double *val, char **end)
{
	if (!*str || *str == '-' || *str == '+' || *str == ' ')
		return -1;
	errno = 0;
	*val = strtod(str, end);
	if (*end == str || errno || *val != *val || *val > 1e300 || *val < 0)
		return -1;
	/* strtod also takes "inf", "nan", hex floats: only digits and '.' */
	for (; str < *end; str++)
		if ((*str < '0' || *str > '9') && *str != '.')
			return -1;
	return 0;
}

int htbx_parse_rate(const char *str, uint64_t max, uint64_t *bytes_ps)
{
	double val, scale, bits;
	char *end;

	if (htbx_number(str, &val, &end))
		return -1;
	if (htbx_lookup_unit(htbx_rate_units,
			     sizeof(htbx_rate_units) / sizeof(htbx_rate_units[0]),
			     end, strlen(end), &scale))
		return -1;
	/* round in bits first: 0.3mbit is 300000 bits, not 299999.99.. */
	bits = htbx_round(val * scale);
	if (bits / 8 < 1 || bits / 8 > (double)max)
		return -1;
	*bytes_ps = (uint64_t)bits / 8;
	return 0;
}

int htbx_parse_percent(const char *str, double *pct)
{
	double val;
	char *end;

	if (htbx_number(str, &val, &end) || strcmp(end, "%") != 0)
		return -1;
	if (val <= 0 || val > 100)
		return -1;
	*pct = val;
	return 0;
}

int htbx_parse_size(const char *str, uint32_t min, uint32_t max,
		    uint32_t *bytes, uint32_t *cell)
{
	const char *slash = strchr(str, '/');
	size_t ulen;
	double val, scale, b;
	char *end;
	uint32_t c = 0;

	if (htbx_number(str, &val, &end))
		return -1;
	ulen = slash ? (size_t)(slash - end) : strlen(end);
	if (slash && slash < end)
		return -1;
	if (htbx_lookup_unit(htbx_size_units,
			     sizeof(htbx_size_units) / sizeof(htbx_size_units[0]),
			     end, ulen, &scale))
		return -1;
	if (slash) {
		/* a cell size: a power of two, as tc-htb wants it */
		if (htbx_parse_u32(slash + 1, 10, 1, 1U << 20, &c) ||
		    (c & (c - 1)))
			return -1;
	}
	b = htbx_round(val * scale);
	if (b < min || b > max)
		return -1;
	*bytes = (uint32_t)b;
	if (cell)
		*cell = c;
	return 0;
}

int htbx_parse_u32(const char *str, int base, uint32_t min, uint32_t max,
		   uint32_t *val)
{
	unsigned long long v;
	char *end;

	if (!*str || *str == '-' || *str == '+' || *str == ' ')
		return -1;
	errno = 0;
	v = strtoull(str, &end, base);
	if (*end || errno || v < min || v > max)
		return -1;
	*val = (uint32_t)v;
	return 0;
}

int htbx_parse_s32(const char *str, int32_t min, int32_t max, int32_t *val)
{
	long long v;
	char *end;

	if (!*str || *str == ' ')
		return -1;
	errno = 0;
	v = strtoll(str, &end, 10);
	if (*end || errno || v < min || v > max)
		return -1;
	*val = (int32_t)v;
	return 0;
}

void htbx_fmt_rate(char *buf, size_t len, uint64_t bytes_ps)
{
	static const char *const prefix[] = { "", "K", "M", "G", "T" };
	uint64_t bits = bytes_ps * 8;
	unsigned int i;

	/* the largest unit that shows the rate exactly, or a >= 1000 one */
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]) - 1; i++) {
		if (bits < 1000)
			break;
		if (bits % 1000 && bits < 1000 * 1000)
			break;
		bits /= 1000;
	}
	snprintf(buf, len, "%llu%sbit", (unsigned long long)bits, prefix[i]);
}

void htbx_fmt_size(char *buf, size_t len, uint32_t bytes)
{
	uint64_t b = bytes;
	uint64_t mb = (b + (1 << 19)) >> 20, kb = (b + (1 << 9)) >> 10;
	uint64_t dmb = mb << 20 > b ? (mb << 20) - b : b - (mb << 20);
	uint64_t dkb = kb << 10 > b ? (kb << 10) - b : b - (kb << 10);

	/* close to a whole Mb (within 1 KiB) or Kb (within 16 bytes) */
	if (b >= 1 << 20 && dmb < 1024)
		snprintf(buf, len, "%lluMb", (unsigned long long)mb);
	else if (b >= 1 << 10 && dkb < 16)
		snprintf(buf, len, "%lluKb", (unsigned long long)kb);
	else
		snprintf(buf, len, "%ub", bytes);
}

void htbx_fmt_time(char *buf, size_t len, int64_t ns)
{
	/* magnitude as unsigned: INT64_MIN has no positive counterpart */
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	const char *sign = ns < 0 ? "-" : "";

	if (mag >= 1000000000000ULL)
		snprintf(buf, len, "%s%.0fs", sign, mag / 1e9);
	else if (mag >= 1000000000ULL)
		snprintf(buf, len, "%s%.4gs", sign, mag / 1e9);
	else if (mag >= 1000000ULL)
		snprintf(buf, len, "%s%.4gms", sign, mag / 1e6);
	else if (mag >= 1000ULL)
		snprintf(buf, len, "%s%.4gus", sign, mag / 1e3);
	else
		snprintf(buf, len, "%s%lluns", sign, (unsigned long long)mag);
}
