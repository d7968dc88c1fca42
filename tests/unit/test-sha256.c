// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/sha256.c: the FIPS 180-2 / NIST example vectors, and
 * that feeding a message in pieces gives the one-shot digest (every padding
 * boundary: 55, 56, 63, 64 bytes ...). Prints one line per failed check and
 * "N passed, N failed"; exits non-zero if anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/sha256.h"

static unsigned long passed, failed;

static void check_at(int ok, const char *what, int line)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL line %d: %s\n", line, what);
}

#define CHECK(cond) check_at(!!(cond), #cond, __LINE__)

static void vector(const char *msg, size_t len, const char *want, int line)
{
	char hex[SHA256_HEX_SIZE];

	sha256_hex(msg, len, hex);
	check_at(!strcmp(hex, want), msg, line);
	if (strcmp(hex, want))
		printf("  got %s\n  want %s\n", hex, want);
}

#define VECTOR(msg, want) vector((msg), strlen(msg), (want), __LINE__)

static void hex_of(struct sha256_ctx *c, char hex[SHA256_HEX_SIZE])
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_final(c, d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
}

int main(void)
{
	char hex[SHA256_HEX_SIZE], one[SHA256_HEX_SIZE];
	struct sha256_ctx c;
	uint8_t msg[300];
	char *million;

	/* FIPS 180-2 appendix B.1, B.2, and the NIST empty-message and 896-bit examples */
	VECTOR("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	VECTOR("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	VECTOR("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	VECTOR("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
	       "klmnopqrlmnopqrsmnopqrstnopqrstu",
	       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	/* FIPS 180-2 appendix B.3: one million 'a', fed in uneven pieces */
	million = malloc(1000000);
	if (!million)
		return 1;
	memset(million, 'a', 1000000);
	vector(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       __LINE__);
	sha256_init(&c);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step % 97 + 1)
		sha256_update(&c, million + off, off + step > 1000000 ? 1000000 - off : step);
	hex_of(&c, hex);
	CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
	free(million);

	/* every length across the padding boundaries: byte by byte equals one shot */
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(msg); len++) {
		sha256_hex(msg, len, one);
		sha256_init(&c);
		for (size_t i = 0; i < len; i++)
			sha256_update(&c, msg + i, 1);
		hex_of(&c, hex);
		check_at(!strcmp(hex, one), "byte-wise digest equals one-shot", __LINE__);
	}
	/* a known digest at the 64-byte boundary: 64 zero bytes (sha256sum) */
	memset(msg, 0, 64);
	vector((const char *)msg, 64, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b",
	       __LINE__);

	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
