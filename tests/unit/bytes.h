/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small little-endian byte builder for the evidence decoders' unit tests:
 * messages are built field by field from the specification's layout, never
 * typed in as hex. Also writes what a test built as a fuzz seed.
 */
#ifndef TSMCTL_TESTS_UNIT_BYTES_H
#define TSMCTL_TESTS_UNIT_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bytes {
	uint8_t *buf;
	size_t len, cap;
};

static inline void bytes_room(struct bytes *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	b->cap = (b->len + n) * 2 + 64;
	b->buf = realloc(b->buf, b->cap);
	if (!b->buf) {
		perror("bytes");
		exit(2);
	}
}

/* Byte I of V, least significant first; zero past the eighth (a run of reserved bytes). */
static inline uint8_t le_byte(uint64_t v, size_t i)
{
	return i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
}

/* N bytes of V, least significant first. */
static inline void put_le(struct bytes *b, uint64_t v, size_t n)
{
	bytes_room(b, n);
	for (size_t i = 0; i < n; i++)
		b->buf[b->len++] = le_byte(v, i);
}

static inline void put8(struct bytes *b, uint64_t v) { put_le(b, v, 1); }
static inline void put16(struct bytes *b, uint64_t v) { put_le(b, v, 2); }
static inline void put24(struct bytes *b, uint64_t v) { put_le(b, v, 3); }
static inline void put32(struct bytes *b, uint64_t v) { put_le(b, v, 4); }
static inline void put64(struct bytes *b, uint64_t v) { put_le(b, v, 8); }

static inline void put_bytes(struct bytes *b, const void *p, size_t n)
{
	bytes_room(b, n);
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

/* N bytes counting up from SEED: recognisable contents for nonces and digests. */
static inline void put_pattern(struct bytes *b, uint8_t seed, size_t n)
{
	bytes_room(b, n);
	for (size_t i = 0; i < n; i++)
		b->buf[b->len++] = (uint8_t)(seed + i);
}

/* Overwrite N bytes at OFF with V (a length field filled in afterwards). */
static inline void patch_le(struct bytes *b, size_t off, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n && off + i < b->len; i++)
		b->buf[off + i] = le_byte(v, i);
}

static inline void bytes_free(struct bytes *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

/* An exact-size heap copy, so that ASan catches a read one byte past the end. */
static inline uint8_t *bytes_exact(const struct bytes *b)
{
	uint8_t *p = malloc(b->len ? b->len : 1);

	if (!p) {
		perror("bytes");
		exit(2);
	}
	if (b->len)
		memcpy(p, b->buf, b->len);
	return p;
}

/* What devsec.sh hands out as cert0: 16 MiB of zeros, made once, for every decoder. */
#define ZERO_BLOB_SIZE	(16u << 20)

static inline const uint8_t *zero_blob(void)
{
	static uint8_t *zeros;

	if (!zeros && !(zeros = calloc(1, ZERO_BLOB_SIZE))) {
		perror("zero_blob");
		exit(2);
	}
	return zeros;
}

/* With --seeds DIR the tests write what they built there, as fuzz seeds. */
static const char *seed_dir;

static inline void write_seed(const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	if (!seed_dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", seed_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static inline void seeds_from_args(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		seed_dir = argv[2];
}

#endif
