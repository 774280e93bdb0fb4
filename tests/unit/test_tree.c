#include "harness.h"
const struct utest tests_tree[] = { { NULL, NULL } };
