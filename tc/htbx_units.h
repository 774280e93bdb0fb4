/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htbx_units.h - tc units for q_htbx.so: read numbers, rates and sizes
 * exactly as tc-htb reads them (iproute2's get_u32, get_u16,
 * get_size_and_cell, get_rate64, matches), and format rates and sizes the
 * way tc prints them, for the tc versions that lack the helpers. Pure
 * functions, no tc dependency, so tests link them directly.
 *
 * Written for htbx from the documented behaviour of those helpers, not
 * copied: the plugin must accept whatever tc-htb accepts, with the same
 * value, under every tc it loads into.
 */
#ifndef _HTBX_TC_UNITS_H
#define _HTBX_TC_UNITS_H

#include <stdint.h>
#include <stddef.h>

#define HTBX_FMT_LEN	64	/* enough for any formatted value below */

/*
 * 0 when @word is a non-empty prefix of @keyword (tc's matches(): "def"
 * matches "default", "" matches nothing), else non-zero.
 */
int htbx_matches(const char *word, const char *keyword);

/*
 * A whole number as tc's get_u32 (get_u16: @max 65535) reads it: strtoul
 * in @base (0: decimal, 0x.. hex, 0.. octal), the whole string, at most
 * @max. Like strtoul it skips leading blanks and takes a sign ("-0" is 0).
 * 0 on success, -1 otherwise.
 */
int htbx_tc_uint(const char *str, int base, uint32_t max, uint32_t *val);

/*
 * A size as tc's get_size_and_cell reads it: a decimal number (fractions
 * are cut: "1.9" is 1), optional unit b, k/kb, m/mb, g/gb (x1024),
 * kbit/mbit/gbit (x1024/8), case insensitive; the result must fit 32 bits.
 * A trailing "/cell" must be a power of two; *cell_log gets its log2 (-1
 * when absent). 0 on success, -1 otherwise.
 */
int htbx_tc_size(const char *str, uint32_t *bytes, int *cell_log);

/*
 * A rate as tc's get_rate64 reads it: a decimal number, optional unit bit
 * kbit mbit gbit tbit (x1000), kibit mibit gibit tibit (x1024), bps kbps
 * mbps gbps tbps kibps mibps gibps tibps (BYTES per second), case
 * insensitive; no unit is bit/s. Bytes per second, fractions cut, so
 * "7bit" is 0 (which tc-htb then calls a missing rate). Negative or
 * non-finite values and rates beyond 2^64 - 1 bytes/s (whose value tc
 * leaves undefined) are refused. 0 on success, -1 otherwise.
 */
int htbx_tc_rate(const char *str, uint64_t *bytes_ps);

/*
 * "<number>%" as tc's get_percent_rate64 reads it (only the leading run of
 * digits, dots and '%' counts; "50%" and "50" both mean 50 %): the
 * fraction 0..1 in *frac. 0 on success, -1 if malformed, 1 if not within
 * 0..100 %.
 */
int htbx_tc_percent(const char *str, double *frac);

/* "10Mbit", "1500Kbit", "100Gbit" (with @iec: "Kibit".., x1024), as tc 5.10 */
void htbx_fmt_rate(char *buf, size_t len, uint64_t bytes_ps, int iec);
/* "1600b", "15Kb", "2Mb", as tc's sprint_size before 7.0 */
void htbx_fmt_size(char *buf, size_t len, uint32_t bytes);

/* A decimal int in min .. max, nothing else (htbx's negative overhead). */
int htbx_parse_s32(const char *str, int32_t min, int32_t max, int32_t *val);

#endif /* _HTBX_TC_UNITS_H */
