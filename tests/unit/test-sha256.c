// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/sha256.c, the wrapper around libcrypto's SHA-256: the
 * FIPS 180-2 / NIST example vectors (lengths across the padding boundaries,
 * a million bytes), as the lower-case hex report prints. Prints one line per
 * failed check and "N passed, N failed"; exits non-zero if anything failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/sha256.h"
#include "unit.h"

static void vector(const char *msg, size_t len, const char *want, int line)
{
	char hex[SHA256_HEX_SIZE];

	sha256_hex(msg, len, hex);
	check_at(!strcmp(hex, want), msg, line);
	if (strcmp(hex, want))
		printf("  got %s\n  want %s\n", hex, want);
}

#define VECTOR(msg, want) vector((msg), strlen(msg), (want), __LINE__)

int main(void)
{
	char hex[SHA256_HEX_SIZE];
	uint8_t msg[64];
	char *million;

	/* FIPS 180-2 appendix B.1, B.2, and the NIST empty-message and 896-bit examples */
	VECTOR("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	VECTOR("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	VECTOR("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	VECTOR("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
	       "klmnopqrlmnopqrsmnopqrstnopqrstu",
	       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	/* FIPS 180-2 appendix B.3: one million 'a' */
	million = malloc(1000000);
	if (!million)
		return 1;
	memset(million, 'a', 1000000);
	vector(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       __LINE__);
	free(million);

	/* the 64-byte boundary (sha256sum of 64 zero bytes): an inblob's size */
	memset(msg, 0, sizeof(msg));
	vector((const char *)msg, sizeof(msg),
	       "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b", __LINE__);

	/* the hex is NUL-terminated right after the 64 digits, never past the buffer */
	memset(hex, 'x', sizeof(hex));
	sha256_hex("abc", 3, hex);
	CHECK(hex[SHA256_HEX_SIZE - 1] == '\0' && strlen(hex) == SHA256_HEX_SIZE - 1);

	return unit_report();
}
