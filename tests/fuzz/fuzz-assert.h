/* SPDX-License-Identifier: GPL-2.0-or-later */
/* FUZZ_ASSERT(): a broken invariant aborts, which libFuzzer reports as a crash with the input. */
#ifndef TSMCTL_FUZZ_ASSERT_H
#define TSMCTL_FUZZ_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(cond)                                                            \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "invariant broken: %s (%s:%d)\n", #cond,     \
				__FILE__, __LINE__);                                 \
			abort();                                                     \
		}                                                                    \
	} while (0)

#endif
