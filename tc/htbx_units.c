// SPDX-License-Identifier: GPL-2.0
/*
 * htbx_units.c - tc's number grammar and tc's formats, for q_htbx.so.
 *
 * The parsers follow what iproute2's helpers accept (strtoul/strtod based,
 * with their unit tables and checks), so that every value a tc-htb
 * command line accepts means the same under htbx. They are written here
 * rather than called in tc because tc's own helpers changed their types
 * between releases (6.15, 6.18, 7.1). The formatters are the fallback for
 * tc 5.10, which exports no print_color_size or tc_print_rate.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "htbx_units.h"

int htbx_matches(const char *word, const char *keyword)
{
	size_t n = strlen(word);

	if (!n || n > strlen(keyword))
		return 1;
	return strncmp(word, keyword, n) != 0;
}

int htbx_tc_uint(const char *str, int base, uint32_t max, uint32_t *val)
{
	unsigned long res;
	char *end;

	if (!str || !*str)
		return -1;
	errno = 0;
	res = strtoul(str, &end, base);
	if (end == str || *end)
		return -1;
	if (res == ULONG_MAX && errno == ERANGE)
		return -1;
	if (res > max)
		return -1;
	*val = (uint32_t)res;
	return 0;
}

struct htbx_unit {
	const char *name;
	double scale;
};

/* tc's rate suffixes, to bits per second */
static const struct htbx_unit htbx_rate_units[] = {
	{ "bit",   1. },
	{ "kibit", 1024. },		{ "kbit", 1000. },
	{ "mibit", 1048576. },		{ "mbit", 1e6 },
	{ "gibit", 1073741824. },	{ "gbit", 1e9 },
	{ "tibit", 1099511627776. },	{ "tbit", 1e12 },
	{ "bps",   8. },
	{ "kibps", 8. * 1024 },		{ "kbps", 8e3 },
	{ "mibps", 8. * 1048576 },	{ "mbps", 8e6 },
	{ "gibps", 8. * 1073741824 },	{ "gbps", 8e9 },
	{ "tibps", 8. * 1099511627776. }, { "tbps", 8e12 },
};

/* tc's size suffixes, to bytes */
static const struct htbx_unit htbx_size_units[] = {
	{ "b",    1. },
	{ "k",    1024. },       { "kb", 1024. },       { "kbit", 1024. / 8 },
	{ "m",    1048576. },    { "mb", 1048576. },    { "mbit", 1048576. / 8 },
	{ "g",    1073741824. }, { "gb", 1073741824. }, { "gbit", 1073741824. / 8 },
};

static int htbx_unit(const struct htbx_unit *u, size_t n, const char *name,
		     double *scale)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcasecmp(u[i].name, name) == 0) {
			*scale = u[i].scale;
			return 0;
		}
	}
	return -1;
}

int htbx_tc_size(const char *str, uint32_t *bytes, int *cell_log)
{
	char num[64], *end;
	const char *slash = strchr(str, '/');
	size_t n = slash ? (size_t)(slash - str) : strlen(str);
	double sz, scale = 1;
	long cell;
	int i;

	if (n >= sizeof(num))
		return -1;
	memcpy(num, str, n);
	num[n] = '\0';
	sz = strtod(num, &end);
	if (end == num)
		return -1;
	if (*end && htbx_unit(htbx_size_units, sizeof(htbx_size_units) /
			      sizeof(htbx_size_units[0]), end, &scale))
		return -1;
	sz *= scale;
	/* tc stores the value in 32 bits and refuses what did not fit */
	if (!(sz >= 0 && sz < 4294967296.))
		return -1;
	*bytes = (uint32_t)sz;
	*cell_log = -1;
	if (!slash)
		return 0;
	errno = 0;
	cell = strtol(slash + 1, &end, 0);
	if (end == slash + 1 || *end || errno || cell < INT_MIN || cell > INT_MAX)
		return -1;
	for (i = 0; i < 31; i++) {
		if (cell == 1L << i) {
			*cell_log = i;
			return 0;
		}
	}
	return -1;
}

int htbx_tc_rate(const char *str, uint64_t *bytes_ps)
{
	double bps, scale = 1;
	char *end;

	bps = strtod(str, &end);
	if (end == str)
		return -1;
	if (*end && htbx_unit(htbx_rate_units, sizeof(htbx_rate_units) /
			      sizeof(htbx_rate_units[0]), end, &scale))
		return -1;
	bps = bps * scale / 8;
	if (!(bps >= 0 && bps < 18446744073709551616.))
		return -1;
	*bytes_ps = (uint64_t)bps;
	return 0;
}

int htbx_tc_percent(const char *str, double *frac)
{
	char buf[64], *end;
	size_t n = strspn(str, "0123456789.%");
	double v;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, str, n);
	buf[n] = '\0';
	v = strtod(buf, &end) / 100.;
	if (v > 1.0 || v < 0.0)
		return 1;
	if (*end && strcmp(end, "%"))
		return -1;
	*frac = v;
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

void htbx_fmt_rate(char *buf, size_t len, uint64_t bytes_ps, int iec)
{
	static const char *const prefix[] = { "", "K", "M", "G", "T" };
	unsigned long long kilo = iec ? 1024 : 1000;
	unsigned long long bits = bytes_ps << 3;
	unsigned int i;

	/* the largest unit that shows the rate exactly, or a >= 1000 one */
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]) - 1; i++) {
		if (bits < kilo)
			break;
		if (bits % kilo && bits < 1000 * kilo)
			break;
		bits /= kilo;
	}
	snprintf(buf, len, "%.0f%s%sbit", (double)bits, prefix[i],
		 iec ? "i" : "");
}

void htbx_fmt_size(char *buf, size_t len, uint32_t bytes)
{
	double b = bytes;
	double mb = (double)(((uint64_t)bytes + (1 << 19)) >> 20);
	double kb = (double)(((uint64_t)bytes + (1 << 9)) >> 10);
	double dmb = mb * 1048576 - b, dkb = kb * 1024 - b;

	/* within 1 KiB of a whole Mb, or 16 bytes of a whole Kb */
	if (bytes >= 1 << 20 && dmb < 1024 && dmb > -1024)
		snprintf(buf, len, "%gMb", mb);
	else if (bytes >= 1 << 10 && dkb < 16 && dkb > -16)
		snprintf(buf, len, "%gKb", kb);
	else
		snprintf(buf, len, "%ub", bytes);
}
