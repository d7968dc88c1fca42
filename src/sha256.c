// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 from OpenSSL's libcrypto (EVP), as the hex report prints. libkmod
 * links libcrypto already, so every command has it loaded: this costs no
 * start-up, unlike a library of its own (see the commit adding it).
 */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "tsmctl/sha256.h"
#include "tsmctl/util.h"

#define SHA256_BYTES 32

_Static_assert(SHA256_HEX_SIZE == 2 * SHA256_BYTES + 1, "hex buffer fits the digest");

void sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(buf, len, digest, &n, EVP_sha256(), NULL) || n != SHA256_BYTES) {
		char why[256];

		ERR_error_string_n(ERR_get_error(), why, sizeof(why));
		cmd_error(NULL, "SHA-256 from libcrypto failed: %s", why);
		abort();
	}
	for (unsigned int i = 0; i < SHA256_BYTES; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * SHA256_BYTES] = '\0';
}
