// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for js_str() in src/output.c: whatever bytes a sysfs file
 * held, the JSON string must be valid UTF-8, keep valid input unchanged,
 * and survive serialising and parsing back. The validator below is written
 * independently of output.c's, from RFC 3629 §4.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "tsmctl/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "fuzz-assert.h"

/* Decode code points one by one; reject overlongs, surrogates, > U+10FFFF, truncation. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		unsigned int need, cp;
		uint32_t min;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			need = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			need = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			need = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (n - i <= need)
			return false;
		for (unsigned int k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = strnlen((const char *)data, size);
	char *in = malloc(len + 1);
	struct json_object *obj, *back;
	const char *out, *text;
	size_t out_len;

	if (!in)
		return 0;
	memcpy(in, data, len);
	in[len] = '\0';

	obj = js_str(in);
	FUZZ_ASSERT(obj && json_object_is_type(obj, json_type_string));
	out = json_object_get_string(obj);
	out_len = (size_t)json_object_get_string_len(obj);
	FUZZ_ASSERT(strlen(out) == out_len);
	FUZZ_ASSERT(valid_utf8((const unsigned char *)out, out_len));
	/* Valid input passes through untouched; every bad byte costs one U+FFFD. */
	if (valid_utf8((const unsigned char *)in, len))
		FUZZ_ASSERT(out_len == len && !memcmp(out, in, len));
	else
		FUZZ_ASSERT(out_len >= len + 2 && out_len <= 3 * len && strstr(out, "\xef\xbf\xbd"));

	/* The document text is UTF-8 too, and parses back to the same string. */
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	FUZZ_ASSERT(text && valid_utf8((const unsigned char *)text, strlen(text)));
	for (const char *p = text; *p; p++)
		FUZZ_ASSERT((unsigned char)*p >= 0x20);	/* control characters are escaped */
	back = json_tokener_parse(text);
	FUZZ_ASSERT(back && json_object_is_type(back, json_type_string));
	FUZZ_ASSERT((size_t)json_object_get_string_len(back) == out_len &&
		    !memcmp(json_object_get_string(back), out, out_len));
	json_object_put(back);
	json_object_put(obj);

	FUZZ_ASSERT(js_str(NULL) == NULL);
	free(in);
	return 0;
}
