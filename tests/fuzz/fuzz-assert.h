/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The evidence decoders' fuzz targets: an invariant that breaks aborts, naming itself. */
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
