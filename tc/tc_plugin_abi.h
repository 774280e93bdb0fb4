/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_plugin_abi.h - the part of tc's plugin ABI that q_htbx.so relies on.
 *
 * tc (iproute2) loads q_<kind>.so with dlopen() and looks up the symbol
 * <kind>_qdisc_util. This header declares that structure and the few tc
 * helpers the plugin calls, written from the ABI as it stands in iproute2
 * 5.9 .. 7.x, so that no iproute2 source is needed to build the plugin.
 *
 * The helpers imported strongly are those whose signature did not change
 * from tc 5.10 to 7.x (see the notes on tc 6.15/6.18 changes to
 * tc_calc_xmittime, print_color_size, sprint_size, tc_core_tick2time,
 * matches): a strong import must exist, unchanged, in every tc the plugin
 * supports, and `make -C tc check` verifies that each one is exported by
 * the installed tc. The rest are weak (at the end) and have a fallback;
 * rate and size parsing lives in htbx_units.c.
 */
#ifndef _HTBX_TC_PLUGIN_ABI_H
#define _HTBX_TC_PLUGIN_ABI_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/*
 * struct qdisc_util: eight pointers since iproute2 5.9 (has_block was
 * appended then; 6.9 made the first callback argument const, which does
 * not change the layout). tc fills in ->next itself.
 */
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* json_print.h: where a print_color_* call writes (values fixed since 4.x) */
enum output_type {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = 4,		/* whichever tc was asked for */
};

/* color.h: only "no colour" is used (value fixed since 4.x) */
enum color_attr {
	COLOR_NONE = 6,
};

/* libnetlink: building requests and reading replies */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);

/*
 * json_print: text with fmt when tc prints text, {key: value} when it
 * prints JSON (tc -j). Both go to stdout. The return type was void before
 * 5.x and int since; the plugin never reads it.
 */
int print_color_string(enum output_type t, enum color_attr c, const char *key,
		       const char *fmt, const char *value);
int print_color_uint(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, unsigned int value);
int print_color_int(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, int value);
int print_color_u64(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, __u64 value);
int print_color_0xhex(enum output_type t, enum color_attr c, const char *key,
		      const char *fmt, unsigned long long value);
int print_color_null(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, const char *value);
void print_nl(void);
bool is_json_context(void);

/* tc's command line switches: -s, -d */
extern int show_stats;
extern int show_details;

/*
 * Not exported by every tc the plugin may run under: weak, so the plugin
 * loads anyway and sees NULL where one is absent (`make -C tc check` lists
 * them as "w" imports). These are the helpers tc-htb prints with; where
 * tc has them the plugin calls them, so htbx's output is tc-htb's by
 * construction, and htbx_units.c stands in for tc 5.10.
 *
 * - tc_print_rate, print_color_size: tc 5.11 and later. print_color_size
 *   took a __u32 size until 6.17 and takes a __u64 from 6.18: declared
 *   __u64 here, and every size passed fits 32 bits, so a zero-extended
 *   64-bit register is read right by both.
 * - print_color_s64: tc 6.1 and later.
 * - show_raw (tc -r), use_iec (tc -i): data, there since 4.x, weak all
 *   the same; incomplete_command, there since 3.x.
 */
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate) __attribute__((weak));
int print_color_size(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, __u64 size) __attribute__((weak));
int print_color_s64(enum output_type t, enum color_attr c, const char *key,
		    const char *fmt, __s64 value) __attribute__((weak));
extern int show_raw __attribute__((weak));
extern int use_iec __attribute__((weak));
/* tc's NEXT_ARG() end: "Command line is not complete", exit(-1) */
void incomplete_command(void) __attribute__((weak, noreturn));

/*
 * Never called: only whether tc exports them is read. tc 6.2 changed
 * tc-htb's text layout (class JSON came with it: "cburst %s" lost its
 * trailing blank, "burst %s/%u" its blank before "mpu"), and 6.2 itself
 * exports nothing 6.1 lacks, but 6.3 added print_ext_msg, 6.4
 * print_color_bool_opt, 6.6 uint_to_str, 6.7 print_range and 6.15
 * print_num. A tc with any of them, or one printing JSON, prints htb in
 * the 6.2 layout (q_htbx.c: htbx_tc_layout_62).
 */
void print_ext_msg(void) __attribute__((weak));
void print_color_bool_opt(void) __attribute__((weak));
void uint_to_str(void) __attribute__((weak));
void print_range(void) __attribute__((weak));
void print_num(void) __attribute__((weak));

#endif /* _HTBX_TC_PLUGIN_ABI_H */
