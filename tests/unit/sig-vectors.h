/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The signed-measurement vectors tests/unit/sig-vectors/gen made with the
 * openssl command line (a key, its certificate, a VCA and a signed
 * GET_MEASUREMENTS || MEASUREMENTS): read from beside this header.
 */
#ifndef TSMCTL_TESTS_UNIT_SIG_VECTORS_H
#define TSMCTL_TESTS_UNIT_SIG_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

/* sig-vectors/NAME.EXT appended to B; a missing file ends the test (exit 2). */
static inline void read_vector(const char *name, const char *ext, struct bytes *b)
{
	const char *slash = strrchr(__FILE__, '/');
	char path[4096];
	uint8_t buf[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%.*ssig-vectors/%s.%s", slash ? (int)(slash - __FILE__ + 1) : 0,
		 __FILE__, name, ext);
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		put_bytes(b, buf, n);
	fclose(f);
}

/* The 32-byte nonce every vector's request carries: counting up from 0xa0. */
static inline const uint8_t *vector_nonce(void)
{
	static uint8_t nonce[32];

	for (unsigned int i = 0; i < sizeof(nonce); i++)
		nonce[i] = (uint8_t)(0xa0 + i);
	return nonce;
}

#endif
