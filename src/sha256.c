// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 as FIPS 180-4 §6.2 specifies it: the message is padded to a
 * multiple of 512 bits (a 1 bit, zeros, the 64-bit big-endian bit length)
 * and each block runs through 64 rounds of the compression function.
 */
#include <string.h>

#include "tsmctl/sha256.h"

/* §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* §4.1.2 */
#define CH(x, y, z)	(((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z)	(((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x)	(rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BSIG1(x)	(rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SSIG0(x)	(rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SSIG1(x)	(rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))

/* §6.2.2: one 512-bit block into the hash value */
static void compress(uint32_t h[8], const uint8_t block[64])
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
		       (uint32_t)block[4 * t + 2] << 8 | block[4 * t + 3];
	for (int t = 16; t < 64; t++)
		w[t] = SSIG1(w[t - 2]) + w[t - 7] + SSIG0(w[t - 15]) + w[t - 16];
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = hh + BSIG1(e) + CH(e, f, g) + K[t] + w[t];
		uint32_t t2 = BSIG0(a) + MAJ(a, b, c);

		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void sha256_init(struct sha256_ctx *c)
{
	/* §5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes */
	static const uint32_t H0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, H0, sizeof(H0));
	c->bytes = 0;
	c->fill = 0;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->bytes += len;
	while (len) {
		size_t n = sizeof(c->block) - c->fill;

		if (n > len)
			n = len;
		memcpy(c->block + c->fill, p, n);
		c->fill += n;
		p += n;
		len -= n;
		if (c->fill == sizeof(c->block)) {
			compress(c->h, c->block);
			c->fill = 0;
		}
	}
}

void sha256_final(struct sha256_ctx *c, uint8_t digest[SHA256_DIGEST_SIZE])
{
	uint64_t bits = c->bytes * 8;

	/* §5.1.1: a 1 bit, zeros up to 448 mod 512, then the length in 64 bits */
	c->block[c->fill++] = 0x80;
	if (c->fill > 56) {
		memset(c->block + c->fill, 0, sizeof(c->block) - c->fill);
		compress(c->h, c->block);
		c->fill = 0;
	}
	memset(c->block + c->fill, 0, 56 - c->fill);
	for (int i = 0; i < 8; i++)
		c->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	compress(c->h, c->block);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(c->h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)c->h[i];
	}
	memset(c, 0, sizeof(*c));
}

void sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX_SIZE])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, buf, len);
	sha256_final(&c, d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * SHA256_DIGEST_SIZE] = '\0';
}
