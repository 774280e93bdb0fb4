// SPDX-License-Identifier: GPL-2.0
/*
 * test_units.c - unit tests of htbx_units.c (TAP on stdout): tc-htb's
 * number grammar, value for value, and tc's formats.
 */
#include <stdio.h>
#include <string.h>

#include "htbx_units.h"

static int htbx_n, htbx_failed;

static void htbx_ok(int cond, const char *what, const char *detail)
{
	htbx_n++;
	if (!cond)
		htbx_failed++;
	printf("%s %d - %s%s%s\n", cond ? "ok" : "not ok", htbx_n, what,
	       detail ? ": " : "", detail ? detail : "");
}

static void rate_is(const char *s, unsigned long long want)
{
	uint64_t got = 0;
	char msg[96], what[64];
	int rc = htbx_tc_rate(s, &got);

	snprintf(what, sizeof(what), "rate \"%s\" = %llu bytes/s", s, want);
	snprintf(msg, sizeof(msg), "rc %d got %llu", rc,
		 (unsigned long long)got);
	htbx_ok(rc == 0 && got == want, what, rc || got != want ? msg : NULL);
}

static void rate_bad(const char *s)
{
	uint64_t got;
	char what[64];

	snprintf(what, sizeof(what), "rate \"%s\" rejected", s);
	htbx_ok(htbx_tc_rate(s, &got) != 0, what, NULL);
}

static void size_is(const char *s, unsigned int want, int cell_log)
{
	uint32_t got = 0;
	int c = -2, rc = htbx_tc_size(s, &got, &c);
	char msg[96], what[64];

	snprintf(what, sizeof(what), "size \"%s\" = %u/%d", s, want, cell_log);
	snprintf(msg, sizeof(msg), "rc %d got %u/%d", rc, got, c);
	htbx_ok(rc == 0 && got == want && c == cell_log, what,
		rc || got != want || c != cell_log ? msg : NULL);
}

static void size_bad(const char *s)
{
	uint32_t got;
	char what[64];
	int c;

	snprintf(what, sizeof(what), "size \"%s\" rejected", s);
	htbx_ok(htbx_tc_size(s, &got, &c) != 0, what, NULL);
}

static void uint_is(const char *s, int base, uint32_t max, int ok,
		    uint32_t want)
{
	uint32_t got = 0;
	int rc = htbx_tc_uint(s, base, max, &got);
	char what[80];

	snprintf(what, sizeof(what), "u32 \"%s\" (base %d, max %u) %s%u", s,
		 base, max, ok ? "= " : "rejected", ok ? want : 0);
	htbx_ok(ok ? rc == 0 && got == want : rc != 0, what, NULL);
}

#define FMT_IS(fn, want, ...) do {					\
		char b[HTBX_FMT_LEN], w[80];				\
		fn(b, sizeof(b), __VA_ARGS__);				\
		snprintf(w, sizeof(w), #fn "(%s) = %s", #__VA_ARGS__, want); \
		htbx_ok(strcmp(b, want) == 0, w,			\
			strcmp(b, want) ? b : NULL);			\
	} while (0)

int main(void)
{
	int32_t s;
	double pct;

	/* tc's matches(): a non-empty prefix */
	htbx_ok(htbx_matches("def", "default") == 0, "matches def default", NULL);
	htbx_ok(htbx_matches("d", "default") == 0, "matches d default", NULL);
	htbx_ok(htbx_matches("default", "default") == 0, "matches default", NULL);
	htbx_ok(htbx_matches("defaults", "default") != 0, "defaults is no prefix", NULL);
	htbx_ok(htbx_matches("", "default") != 0, "the empty word matches nothing", NULL);
	htbx_ok(htbx_matches("dx", "default") != 0, "dx is no prefix", NULL);

	rate_is("8", 1);
	rate_is("8bit", 1);
	rate_is("20kbit", 2500);
	rate_is("20Kbit", 2500);
	rate_is("10mbit", 1250000);
	rate_is("10MBIT", 1250000);
	rate_is("1.5mbit", 187500);
	rate_is("0.3mbit", 37500);
	rate_is("1gbit", 125000000);
	rate_is("100gbit", 12500000000ULL);	/* beyond 32 bits */
	rate_is("8tbit", 1000000000000ULL);
	rate_is("9tbit", 1125000000000ULL);	/* tc-htb takes it */
	rate_is("1kibit", 128);
	rate_is("1mibit", 131072);
	rate_is("100bps", 100);
	rate_is("10kbps", 10000);		/* kbps: kilobytes/s, as tc */
	rate_is("1mbps", 1000000);
	rate_is("1kibps", 1024);
	rate_is("1gibps", 1073741824);
	rate_is("1e3kbit", 125000);		/* strtod, as tc */
	rate_is("0x10mbit", 2000000);		/* a hex float, as tc */
	rate_is("7bit", 0);			/* 0 bytes/s: tc-htb's "no rate" */
	rate_is("0", 0);
	rate_is(" 8", 1);			/* strtod skips blanks */
	rate_bad("-1mbit");
	rate_bad("10mbits");
	rate_bad("mbit");
	rate_bad("");
	rate_bad("inf");
	rate_bad("nan");
	rate_bad("1e30tbit");			/* beyond 2^64 bytes/s */

	htbx_ok(htbx_tc_percent("50%", &pct) == 0 && pct == 0.5,
		"percent 50% is 0.5", NULL);
	htbx_ok(htbx_tc_percent("0%", &pct) == 0 && pct == 0,
		"percent 0% is 0", NULL);
	htbx_ok(htbx_tc_percent("50%abc", &pct) == 0 && pct == 0.5,
		"percent: what follows [0-9.%] is ignored, as by tc", NULL);
	htbx_ok(htbx_tc_percent("101%", &pct) == 1, "percent 101% out of range",
		NULL);
	htbx_ok(htbx_tc_percent("%5", &pct) == -1, "percent %5 malformed", NULL);
	htbx_ok(htbx_tc_percent("5%0", &pct) == -1, "percent 5%0 malformed", NULL);

	size_is("1600", 1600, -1);
	size_is("1600b", 1600, -1);
	size_is("15k", 15360, -1);
	size_is("15kb", 15360, -1);
	size_is("15K", 15360, -1);
	size_is("2m", 2097152, -1);
	size_is("2mb", 2097152, -1);
	size_is("1g", 1073741824, -1);
	size_is("8kbit", 1024, -1);
	size_is("1.5k", 1536, -1);
	size_is("1.9", 1, -1);			/* tc cuts fractions */
	size_is("0", 0, -1);			/* tc-htb: the default */
	size_is("1000/8", 1000, 3);
	size_is("15k/64", 15360, 6);
	size_is("100/1", 100, 0);
	size_is("100/0x10", 100, 4);		/* cell: strtol base 0 */
	size_is("4294967295", 4294967295u, -1);
	size_bad("4g");				/* > u32 */
	size_bad("4294967296");
	size_bad("10q");
	size_bad("k");
	size_bad("-5");
	size_bad("100/3");			/* cell: power of two */
	size_bad("100/");
	size_bad("100/x");

	uint_is("0x10", 0, 100, 1, 16);
	uint_is("10", 16, 0xffff, 1, 16);	/* default: hex */
	uint_is("10000", 16, 0xffffffffu, 1, 65536);
	uint_is("8", 10, 7, 0, 0);
	uint_is("-1", 10, 0xffffffffu, 0, 0);
	uint_is("-0", 10, 7, 1, 0);		/* strtoul takes a sign, as tc */
	uint_is("4294967295", 10, 0xffffffffu, 1, 4294967295u);
	uint_is("4294967296", 0, 0xffffffffu, 0, 0);
	uint_is("3x", 10, 7, 0, 0);
	uint_is("", 10, 7, 0, 0);
	uint_is("65535", 10, 65535, 1, 65535);	/* get_u16 */
	uint_is("65536", 10, 65535, 0, 0);

	htbx_ok(htbx_parse_s32("-64", -64, -1, &s) == 0 && s == -64,
		"s32 -64", NULL);
	htbx_ok(htbx_parse_s32("-65", -64, -1, &s) != 0,
		"s32 -65 rejected", NULL);

	FMT_IS(htbx_fmt_rate, "20Kbit", 2500, 0);
	FMT_IS(htbx_fmt_rate, "10Mbit", 1250000, 0);
	FMT_IS(htbx_fmt_rate, "1500Kbit", 187500, 0);
	FMT_IS(htbx_fmt_rate, "8bit", 1, 0);
	FMT_IS(htbx_fmt_rate, "800bit", 100, 0);
	FMT_IS(htbx_fmt_rate, "1Gbit", 125000000, 0);
	FMT_IS(htbx_fmt_rate, "100Gbit", 12500000000ULL, 0);
	FMT_IS(htbx_fmt_rate, "8Tbit", 1000000000000ULL, 0);
	FMT_IS(htbx_fmt_rate, "1024bit", 128, 0);
	FMT_IS(htbx_fmt_rate, "1048Kbit", 131072, 0);
	FMT_IS(htbx_fmt_rate, "1Kibit", 128, 1);
	FMT_IS(htbx_fmt_rate, "9765Kibit", 1250000, 1);
	FMT_IS(htbx_fmt_size, "1600b", 1600);
	FMT_IS(htbx_fmt_size, "1000b", 1000);
	FMT_IS(htbx_fmt_size, "2Kb", 2048);
	FMT_IS(htbx_fmt_size, "15Kb", 15360);
	FMT_IS(htbx_fmt_size, "15000b", 15000);
	FMT_IS(htbx_fmt_size, "3200b", 3200);
	FMT_IS(htbx_fmt_size, "2Mb", 2097152);
	FMT_IS(htbx_fmt_size, "1250000b", 1250000);
	FMT_IS(htbx_fmt_size, "0b", 0);
	FMT_IS(htbx_fmt_size, "1Kb", 1039);
	FMT_IS(htbx_fmt_size, "1040b", 1040);
	FMT_IS(htbx_fmt_size, "1Mb", 1049599);
	FMT_IS(htbx_fmt_size, "4096Mb", 4294967295u);
	FMT_IS(htbx_fmt_size, "1e+06Kb", 1024000000);	/* %g, as tc */

	printf("%d passed, %d failed\n", htbx_n - htbx_failed, htbx_failed);
	return htbx_failed ? 1 : 0;
}
