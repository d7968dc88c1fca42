/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the device-evidence decoders share (ABI.md §1.7): the error they
 * return ("malformed at offset N: why") and a cursor over the bytes that
 * checks every length before it reads. Pure: no I/O, no allocation.
 */
#ifndef TSMCTL_EV_DECODE_H
#define TSMCTL_EV_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EV_WHY_SIZE	192

/*
 * Why a decode stopped: the byte offset into the object where it went wrong
 * and a sentence without the offset. Zeroed (set false) on success.
 */
struct ev_error {
	bool set;
	size_t offset;
	char why[EV_WHY_SIZE];
};

/* Record the first error only: later ones are consequences. */
void ev_fail(struct ev_error *err, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "malformed at offset N: why" into OUT (always NUL-terminated); OUT. */
char *ev_error_str(const struct ev_error *err, char *out, size_t size);

/*
 * A decoder's first step: OUT (SIZE bytes) and ERR zeroed; -EINVAL for a
 * NULL *BUF with a length, and an empty *BUF instead of NULL. 0 to go on.
 */
int ev_begin(void *out, size_t size, const uint8_t **buf, size_t len, struct ev_error *err);

/* A read position in BUF[0..LEN); reads past the end fail instead of reading. */
struct ev_cursor {
	const uint8_t *buf;
	size_t len;
	size_t off;
};

static inline struct ev_cursor ev_cursor(const uint8_t *buf, size_t len)
{
	return (struct ev_cursor){ .buf = buf, .len = len, .off = 0 };
}

static inline size_t ev_left(const struct ev_cursor *c)
{
	return c->len - c->off;
}

/*
 * N more bytes at the cursor? If not, ERR says WHAT was cut short, how long it
 * needed to be and how much is left, at the cursor's offset.
 */
bool ev_need(const struct ev_cursor *c, size_t n, const char *what, struct ev_error *err);

/* Little-endian reads that the caller made room for with ev_need(). */
uint8_t ev_u8(struct ev_cursor *c);
uint16_t ev_u16(struct ev_cursor *c);
uint32_t ev_u24(struct ev_cursor *c);
uint32_t ev_u32(struct ev_cursor *c);
uint64_t ev_u64(struct ev_cursor *c);

/* Step over N bytes (made room for), returning where they start. */
const uint8_t *ev_skip(struct ev_cursor *c, size_t n);

/* Little-endian value of N <= 8 bytes at P, without a cursor. */
uint64_t ev_le(const uint8_t *p, size_t n);

#endif
