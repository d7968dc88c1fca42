/* SPDX-License-Identifier: GPL-2.0-or-later */
/* FUZZ_ASSERT(): a broken invariant aborts, which libFuzzer reports as a crash with the input. */
#ifndef TSMCTL_FUZZ_ASSERT_H
#define TSMCTL_FUZZ_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_invariant(int ok, const char *what, const char *file, int line)
{
	if (ok)
		return;
	fprintf(stderr, "invariant broken: %s (%s:%d)\n", what, file, line);
	abort();
}

#define FUZZ_ASSERT(cond) fuzz_invariant(!!(cond), #cond, __FILE__, __LINE__)

#endif
