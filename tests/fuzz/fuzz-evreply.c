// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the device-evidence reply parser
 * (src/evidence/fetch/evidence-reply.c). Input: two bytes of the requested type mask,
 * then datagrams, each a little-endian u16 length and its bytes (a length
 * past the end takes what is left; bit 15 marks it truncated). Beyond
 * crashes: every chunk lies within its object's length, lengths within
 * 16 MiB, objects begin in ascending requested order and end whole, and
 * success means every requested object arrived complete.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "fuzz-assert.h"

struct seen {
	uint32_t mask, begun, ended;
	int last;
	bool open;
	unsigned int type;
	uint32_t length, got;
};

static int s_begin(void *d, unsigned int type, uint32_t gen, uint32_t len)
{
	struct seen *s = d;

	(void)gen;
	FUZZ_ASSERT(type < EVIDENCE_NR_TYPES && (s->mask & (1u << type)));
	FUZZ_ASSERT(!s->open && (int)type > s->last && len <= EVIDENCE_OBJECT_MAX);
	s->open = true;
	s->type = type;
	s->length = len;
	s->got = 0;
	s->last = (int)type;
	s->begun |= 1u << type;
	return 0;
}

static int s_chunk(void *d, unsigned int type, const uint8_t *buf, size_t len)
{
	struct seen *s = d;

	FUZZ_ASSERT(s->open && type == s->type && len <= s->length - s->got);
	/* the bytes must be readable */
	for (size_t i = 0; i < len; i += 4096)
		(void)*(volatile const uint8_t *)(buf + i);
	s->got += (uint32_t)len;
	return 0;
}

static int s_end(void *d, unsigned int type)
{
	struct seen *s = d;

	FUZZ_ASSERT(s->open && type == s->type && s->got == s->length);
	s->open = false;
	s->ended |= 1u << type;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(8) uint8_t dg[1 << 16];
	struct seen s = { .last = -1 };
	const struct evidence_sink sink = { &s, s_begin, s_chunk, s_end, NULL };
	struct evidence_error e = { .miss_type = -1 };
	struct evidence_reply r;
	size_t off = 2;
	int rc = 0;

	if (size < 2)
		return 0;
	s.mask = (uint32_t)(data[0] | data[1] << 8) & EVIDENCE_ALL_TYPES;
	if (!s.mask)
		s.mask = 1;
	evidence_reply_init(&r, 0x1f, 1000, 4242, s.mask, &sink);
	while (off + 2 <= size && rc == 0) {
		size_t n = (size_t)(data[off] | data[off + 1] << 8);
		bool trunc = n & 0x8000;

		n &= 0x7fff;
		off += 2;
		if (n > size - off)
			n = size - off;
		memcpy(dg, data + off, n);	/* aligned, as recvmsg()'s buffer is */
		off += n;
		rc = evidence_reply_feed(&r, dg, n, trunc, &e);
		FUZZ_ASSERT(rc <= 1);
		FUZZ_ASSERT(rc >= 0 || (e.err == rc && e.stage != EVIDENCE_OK));
		/* a refusal is the kernel's errno (any, -EPROTO too); a malformed reply is said */
		FUZZ_ASSERT(e.stage != EVIDENCE_MALFORMED || (rc == -EPROTO && e.why));
	}
	if (rc == 1)
		FUZZ_ASSERT(!s.open && s.ended == s.mask && s.begun == s.mask);
	evidence_error_free(&e);
	return 0;
}
