// SPDX-License-Identifier: GPL-2.0
/* runner.c - runs every unit test and prints TAP. */
#include "harness.h"

extern const struct utest tests_math[], tests_sched[], tests_tree[], tests_stress[],
	tests_reenter[], tests_compat[],
	tests_perf[], tests_mq[];

static const struct utest *const suites[] = {
	tests_math, tests_sched, tests_tree, tests_stress, tests_reenter,
	tests_compat, tests_perf, tests_mq
};

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, n = 0;
	const char *only = argc > 1 ? argv[1] : NULL;
	bool exact = false;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);

	/* A name that is a test's whole name runs that test alone ("perf 10"
	 * is not also "perf 1000"); any other runs every test containing it. */
	if (only) {
		for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
			const struct utest *t;

			for (t = suites[i]; t->name; t++)
				if (!strcmp(t->name, only))
					exact = true;
		}
	}

	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		const struct utest *t;

		for (t = suites[i]; t->name; t++) {
			char msg[512] = "";
			unsigned long w = kshim_warnings;
			bool ok;

			if (only ? (exact ? strcmp(t->name, only) != 0 :
					    !strstr(t->name, only)) :
				   !strncmp(t->name, "perf", 4))
				continue;	/* perf tests run by name only */
			ok = t->fn(msg, sizeof(msg));
			if (kshim_warnings != w) {
				ok = false;
				strncat(msg, " [WARN fired]", sizeof(msg) - strlen(msg) - 1);
			}
			printf("%s %d - %s: %s\n", ok ? "ok" : "not ok", ++n,
			       t->name, msg);
			if (ok)
				passed++;
			else
				failed++;
		}
	}
	printf("1..%d\n%d passed, %d failed\n", n, passed, failed);
	return failed ? 1 : 0;
}
