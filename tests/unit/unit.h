/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the small unit tests share: the counters, CHECK() with one line per
 * failed check, and the closing "N passed, N failed" with the exit status.
 */
#ifndef TSMCTL_TESTS_UNIT_H
#define TSMCTL_TESTS_UNIT_H

#include <stdio.h>

static unsigned long passed, failed;

static inline void check_at(int ok, const char *what, int line)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL line %d: %s\n", line, what);
}

#define CHECK(cond) check_at(!!(cond), #cond, __LINE__)

/* The summary line; main()'s exit status. */
static inline int unit_report(void)
{
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
