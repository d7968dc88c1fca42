// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The error and the bounded cursor every evidence decoder uses (ABI.md §1.7),
 * so that each length is checked in one place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tsmctl/ev-decode.h"

void ev_fail(struct ev_error *err, size_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->set)
		return;
	err->set = true;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->why, sizeof(err->why), fmt, ap);
	va_end(ap);
}

int ev_begin(void *out, size_t size, const uint8_t **buf, size_t len, struct ev_error *err)
{
	memset(out, 0, size);
	if (err)
		memset(err, 0, sizeof(*err));
	if (!*buf && len)
		return -EINVAL;
	if (!*buf)
		*buf = (const uint8_t *)"";
	return 0;
}

char *ev_error_str(const struct ev_error *err, char *out, size_t size)
{
	if (!size)
		return out;
	if (!err || !err->set)
		snprintf(out, size, "well-formed");
	else
		snprintf(out, size, "malformed at offset %zu: %s", err->offset, err->why);
	return out;
}

bool ev_need(const struct ev_cursor *c, size_t n, const char *what, struct ev_error *err)
{
	if (n <= ev_left(c))
		return true;
	ev_fail(err, c->off, "%s needs %zu bytes, %zu left", what, n, ev_left(c));
	return false;
}

uint64_t ev_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The caller checked the room with ev_need(); this stays inside the buffer regardless. */
static uint64_t ev_take(struct ev_cursor *c, size_t n)
{
	uint64_t v;

	if (n > ev_left(c)) {
		c->off = c->len;
		return 0;
	}
	v = ev_le(c->buf + c->off, n);
	c->off += n;
	return v;
}

uint8_t ev_u8(struct ev_cursor *c)
{
	return (uint8_t)ev_take(c, 1);
}

uint16_t ev_u16(struct ev_cursor *c)
{
	return (uint16_t)ev_take(c, 2);
}

uint32_t ev_u24(struct ev_cursor *c)
{
	return (uint32_t)ev_take(c, 3);
}

uint32_t ev_u32(struct ev_cursor *c)
{
	return (uint32_t)ev_take(c, 4);
}

uint64_t ev_u64(struct ev_cursor *c)
{
	return ev_take(c, 8);
}

const uint8_t *ev_skip(struct ev_cursor *c, size_t n)
{
	const uint8_t *p = c->buf + c->off;

	c->off += n <= ev_left(c) ? n : ev_left(c);
	return p;
}
