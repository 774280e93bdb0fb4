/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htbx_units.h - tc units for q_htbx.so: parse rates and sizes the way tc
 * spells them, and format rates, sizes and times the way tc-htb prints
 * them. Pure functions, no tc dependency, so tests link them directly.
 */
#ifndef _HTBX_TC_UNITS_H
#define _HTBX_TC_UNITS_H

#include <stdint.h>
#include <stddef.h>

#define HTBX_FMT_LEN	32	/* enough for any formatted value below */

/*
 * Rate: "<number>[unit]", number may have a fraction. No unit: bit/s.
 * bit kbit mbit gbit tbit (x1000), kibit mibit gibit tibit (x1024),
 * bps kbps mbps gbps tbps / kibps ... (bytes per second), all case
 * insensitive. Result in bytes per second; 0 on success, -1 if the string
 * is not a rate or the value is not in 1 .. max.
 */
int htbx_parse_rate(const char *str, uint64_t max, uint64_t *bytes_ps);

/* "<number>%": the percentage (0 < p <= 100) in *pct; -1 if not a percent */
int htbx_parse_percent(const char *str, double *pct);

/*
 * Size: "<number>[unit]", b (bytes, default), k/kb, m/mb, g/gb (x1024),
 * kbit/mbit/gbit (x1024/8). A trailing "/cell" (tc-htb's cell size) is
 * accepted and ignored when cell is NULL. 0 on success, -1 otherwise
 * (including a value outside min .. max).
 */
int htbx_parse_size(const char *str, uint32_t min, uint32_t max,
		    uint32_t *bytes, uint32_t *cell);

/* Whole numbers as tc's get_u32 takes them (decimal, 0x.. hex, 0.. octal) */
int htbx_parse_u32(const char *str, int base, uint32_t min, uint32_t max,
		   uint32_t *val);
int htbx_parse_s32(const char *str, int32_t min, int32_t max, int32_t *val);

/* 10Mbit, 1500Kbit, 100Gbit (bytes/s in, bits in the text) */
void htbx_fmt_rate(char *buf, size_t len, uint64_t bytes_ps);
/* 1600b, 15Kb, 2Mb, like tc's sprint_size */
void htbx_fmt_size(char *buf, size_t len, uint32_t bytes);
/* 1.2ms, 850us, -3.1ms, 12ns: 4 significant digits at most */
void htbx_fmt_time(char *buf, size_t len, int64_t ns);

#endif /* _HTBX_TC_UNITS_H */
