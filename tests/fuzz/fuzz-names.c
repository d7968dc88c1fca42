// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the name parsers in src/names.c. The input is one
 * string (cut at its first NUL), given to every parser. What a parser
 * accepts must be the kernel's own spelling of the value it returns, and a
 * BDF's canonical form must parse back to the same value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "fuzz-assert.h"

static void check_bdf(const char *s)
{
	struct bdf b, again;
	char canon[BDF_MAX], twice[BDF_MAX], spelled[64];
	int rc = bdf_parse(s, &b);

	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	FUZZ_ASSERT(bdf_canonical(s, canon) == rc);
	if (rc)
		return;
	FUZZ_ASSERT(b.bus <= 0xff && b.dev <= 0x1f && b.fn <= 7);
	/* Only hex digits and the two separators can have been accepted. */
	FUZZ_ASSERT(strspn(s, "0123456789abcdefABCDEF:.") == strlen(s));
	FUZZ_ASSERT(strlen(canon) < BDF_MAX);
	snprintf(spelled, sizeof(spelled), "%04x:%02x:%02x.%x", b.domain, b.bus, b.dev, b.fn);
	FUZZ_ASSERT(!strcmp(spelled, canon));
	/* Round trip: the canonical form parses to the same value and is a fixed point. */
	FUZZ_ASSERT(bdf_parse(canon, &again) == 0);
	FUZZ_ASSERT(again.domain == b.domain && again.bus == b.bus &&
		    again.dev == b.dev && again.fn == b.fn);
	FUZZ_ASSERT(bdf_canonical(canon, twice) == 0 && !strcmp(canon, twice));
}

static void check_tsm(const char *s)
{
	char spelled[32];
	int id = -1;

	if (tsm_name_parse(s, &id))
		return;
	FUZZ_ASSERT(id >= 0);
	snprintf(spelled, sizeof(spelled), "tsm%d", id);
	FUZZ_ASSERT(!strcmp(spelled, s));
}

static void check_hb(const char *s)
{
	unsigned int domain, bus;
	char spelled[32];

	if (hb_name_parse(s, &domain, &bus))
		return;
	FUZZ_ASSERT(bus <= 0xff);
	/* The kernel names host bridges "pci%04x:%02x" (ABI.md §1.3). */
	snprintf(spelled, sizeof(spelled), "pci%04x:%02x", domain, bus);
	FUZZ_ASSERT(!strcmp(spelled, s));
}

static void check_stream(const char *s)
{
	unsigned int h, r, e;
	char spelled[48];

	if (stream_name_parse(s, &h, &r, &e))
		return;
	FUZZ_ASSERT(h <= 255 && r <= 255 && e <= 255);
	snprintf(spelled, sizeof(spelled), "stream%u.%u.%u", h, r, e);
	FUZZ_ASSERT(!strcmp(spelled, s));
}

static void check_ulong(const char *s)
{
	unsigned long v;
	char spelled[32];

	if (parse_ulong(s, &v))
		return;
	snprintf(spelled, sizeof(spelled), "%lu", v);
	FUZZ_ASSERT(!strcmp(spelled, s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so a parser reading past the terminator is caught. */
	size_t len = strnlen((const char *)data, size);
	char *s = malloc(len + 1);

	if (!s)
		return 0;
	memcpy(s, data, len);
	s[len] = '\0';
	check_bdf(s);
	check_tsm(s);
	check_hb(s);
	check_stream(s);
	check_ulong(s);
	FUZZ_ASSERT(parse_ulong(NULL, &(unsigned long){ 0 }) == -EINVAL);
	free(s);
	return 0;
}
