/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 (FIPS 180-4), for the digests `report -J` prints of each blob. */
#ifndef TSMCTL_SHA256_H
#define TSMCTL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE (2 * SHA256_DIGEST_SIZE + 1)

struct sha256_ctx {
	uint32_t h[8];		/* intermediate hash value H(i) */
	uint64_t bytes;		/* message length so far */
	uint8_t block[64];	/* the block being filled */
	size_t fill;		/* bytes in block */
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, uint8_t digest[SHA256_DIGEST_SIZE]);

/* One-shot digest of BUF as lower-case hex, NUL-terminated. */
void sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX_SIZE]);

#endif
