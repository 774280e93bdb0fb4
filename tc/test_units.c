// SPDX-License-Identifier: GPL-2.0
/*
 * test_units.c - unit tests of htbx_units.c (TAP on stdout).
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
	char msg[96];
	int rc = htbx_parse_rate(s, 1000000000000ULL, &got);

	snprintf(msg, sizeof(msg), "rc %d got %llu want %llu", rc,
		 (unsigned long long)got, want);
	htbx_ok(rc == 0 && got == want, s, rc || got != want ? msg : NULL);
}

static void rate_bad(const char *s)
{
	uint64_t got;
	char what[64];

	snprintf(what, sizeof(what), "rate \"%s\" rejected", s);
	htbx_ok(htbx_parse_rate(s, 1000000000000ULL, &got) != 0, what, NULL);
}

static void size_is(const char *s, unsigned int want, unsigned int cell)
{
	uint32_t got = 0, c = 0;
	char msg[96];
	int rc = htbx_parse_size(s, 0, 0xffffffffu, &got, &c);

	snprintf(msg, sizeof(msg), "rc %d got %u/%u want %u/%u", rc, got, c,
		 want, cell);
	htbx_ok(rc == 0 && got == want && c == cell, s,
		rc || got != want || c != cell ? msg : NULL);
}

static void size_bad(const char *s)
{
	uint32_t got;
	char what[64];

	snprintf(what, sizeof(what), "size \"%s\" rejected", s);
	htbx_ok(htbx_parse_size(s, 1, 0xffffffffu, &got, NULL) != 0, what,
		NULL);
}

#define FMT_IS(fn, val, want) do {					\
		char b[HTBX_FMT_LEN], w[64];				\
		fn(b, sizeof(b), val);					\
		snprintf(w, sizeof(w), #fn "(%s) = %s", #val, want);	\
		htbx_ok(strcmp(b, want) == 0, w,			\
			strcmp(b, want) ? b : NULL);			\
	} while (0)

int main(void)
{
	uint32_t u;
	int32_t s;
	double pct;

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
	rate_is("1kibit", 128);
	rate_is("1mibit", 131072);
	rate_is("100bps", 100);
	rate_is("10kbps", 10000);		/* kbps: kilobytes/s, as tc */
	rate_is("1mbps", 1000000);
	rate_is("1kibps", 1024);
	rate_is("1gibps", 1073741824);
	rate_bad("0");
	rate_bad("0mbit");
	rate_bad("7bit");			/* < 1 byte/s */
	rate_bad("9tbit");			/* > HTBX_MAX_RATE */
	rate_bad("-1mbit");
	rate_bad("10mbits");
	rate_bad("mbit");
	rate_bad("");
	rate_bad("inf");
	rate_bad("nan");
	rate_bad("0x10mbit");
	rate_bad("1e3kbit");

	htbx_ok(htbx_parse_percent("50%", &pct) == 0 && pct == 50,
		"percent 50%", NULL);
	htbx_ok(htbx_parse_percent("0%", &pct) != 0, "percent 0% rejected",
		NULL);
	htbx_ok(htbx_parse_percent("101%", &pct) != 0,
		"percent 101% rejected", NULL);
	htbx_ok(htbx_parse_percent("10mbit", &pct) != 0,
		"percent: 10mbit is not one", NULL);

	size_is("1600", 1600, 0);
	size_is("1600b", 1600, 0);
	size_is("15k", 15360, 0);
	size_is("15kb", 15360, 0);
	size_is("15K", 15360, 0);
	size_is("2m", 2097152, 0);
	size_is("2mb", 2097152, 0);
	size_is("1g", 1073741824, 0);
	size_is("8kbit", 1024, 0);
	size_is("1.5k", 1536, 0);
	size_is("1000/8", 1000, 8);
	size_is("15k/64", 15360, 64);
	size_bad("0");
	size_bad("4g");				/* > u32 */
	size_bad("10q");
	size_bad("k");
	size_bad("-5");
	size_bad("100/3");			/* cell: power of two */
	size_bad("100/");

	htbx_ok(htbx_parse_u32("0x10", 0, 0, 100, &u) == 0 && u == 16,
		"u32 0x10 (base 0)", NULL);
	htbx_ok(htbx_parse_u32("10", 16, 0, 0xffff, &u) == 0 && u == 16,
		"u32 10 (hex) is 16", NULL);
	htbx_ok(htbx_parse_u32("8", 10, 0, 7, &u) != 0, "u32 8 > 7 rejected",
		NULL);
	htbx_ok(htbx_parse_u32("-1", 10, 0, 7, &u) != 0, "u32 -1 rejected",
		NULL);
	htbx_ok(htbx_parse_u32("4294967296", 0, 0, 0xffffffffu, &u) != 0,
		"u32 2^32 rejected", NULL);
	htbx_ok(htbx_parse_u32("3x", 10, 0, 7, &u) != 0, "u32 3x rejected",
		NULL);
	htbx_ok(htbx_parse_s32("-64", -64, 1024, &s) == 0 && s == -64,
		"s32 -64", NULL);
	htbx_ok(htbx_parse_s32("-65", -64, 1024, &s) != 0,
		"s32 -65 rejected", NULL);

	FMT_IS(htbx_fmt_rate, 2500, "20Kbit");
	FMT_IS(htbx_fmt_rate, 1250000, "10Mbit");
	FMT_IS(htbx_fmt_rate, 187500, "1500Kbit");
	FMT_IS(htbx_fmt_rate, 1, "8bit");
	FMT_IS(htbx_fmt_rate, 100, "800bit");
	FMT_IS(htbx_fmt_rate, 125000000, "1Gbit");
	FMT_IS(htbx_fmt_rate, 12500000000ULL, "100Gbit");
	FMT_IS(htbx_fmt_rate, 1000000000000ULL, "8Tbit");
	FMT_IS(htbx_fmt_rate, 128, "1024bit");
	FMT_IS(htbx_fmt_rate, 131072, "1048Kbit");
	FMT_IS(htbx_fmt_size, 1600, "1600b");
	FMT_IS(htbx_fmt_size, 1000, "1000b");
	FMT_IS(htbx_fmt_size, 2048, "2Kb");
	FMT_IS(htbx_fmt_size, 15360, "15Kb");
	FMT_IS(htbx_fmt_size, 15000, "15000b");
	FMT_IS(htbx_fmt_size, 3200, "3200b");
	FMT_IS(htbx_fmt_size, 2097152, "2Mb");
	FMT_IS(htbx_fmt_size, 1250000, "1250000b");
	FMT_IS(htbx_fmt_size, 0, "0b");
	FMT_IS(htbx_fmt_time, 1200000, "1.2ms");
	FMT_IS(htbx_fmt_time, -3100000, "-3.1ms");
	FMT_IS(htbx_fmt_time, 850000, "850us");
	FMT_IS(htbx_fmt_time, 12, "12ns");
	FMT_IS(htbx_fmt_time, 0, "0ns");
	FMT_IS(htbx_fmt_time, 1234567, "1.235ms");
	FMT_IS(htbx_fmt_time, 2500000000LL, "2.5s");
	FMT_IS(htbx_fmt_time, -9223372036854775807LL - 1,
	       "-9223372037s");

	printf("%d passed, %d failed\n", htbx_n - htbx_failed, htbx_failed);
	return htbx_failed ? 1 : 0;
}
