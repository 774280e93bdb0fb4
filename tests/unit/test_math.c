// SPDX-License-Identifier: GPL-2.0
/* test_math.c - psched_clock.h arithmetic and the event queue. */
#include "harness.h"

const struct utest tests_math[] = {
	{ NULL, NULL },
};
