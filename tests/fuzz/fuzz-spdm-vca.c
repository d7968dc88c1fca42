// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for spdm_vca_decode() (src/evidence/decode/spdm-vca.c). The input is one
 * VCA transcript. Checked besides crashes: 0 or an error with its offset in
 * the input; the decoded messages follow each other from offset 0 inside the
 * input; a success accounts for every byte (nothing after ALGORITHMS), chose
 * a version VERSION offers, and selected at most one algorithm of each kind,
 * one that was offered;
 * decoding twice gives the same result; the prefix form (a transcript that
 * goes on) succeeds exactly where the object failed only for its rest.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tsmctl/spdm-vca.h"
#include "fuzz-assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_spans(const struct spdm_vca *v, size_t size)
{
	size_t next = 0;

	for (int m = 0; m < SPDM_VCA_NR_MSGS && v->msg[m].len; m++) {
		FUZZ_ASSERT(v->msg[m].offset == next);
		FUZZ_ASSERT(v->msg[m].len <= size - next);
		next += v->msg[m].len;
	}
}

static void check_success(const struct spdm_vca *v, size_t size)
{
	const struct spdm_algs *s = &v->selected, *o = &v->offered;
	const struct spdm_span *last = &v->msg[SPDM_VCA_ALGORITHMS];
	bool offered = false;

	FUZZ_ASSERT(v->end == last->offset + last->len && v->end + v->trailing == size);
	FUZZ_ASSERT(!v->trailing);
	for (unsigned int i = 0; i < v->nr_versions; i++)
		offered |= (v->versions[i] >> 8) == v->version;
	FUZZ_ASSERT(offered && v->version >= SPDM_VERSION_10);
	FUZZ_ASSERT(!s->base_asym || (spdm_one_bit(s->base_asym) && (s->base_asym & o->base_asym)));
	FUZZ_ASSERT(!s->base_hash || (spdm_one_bit(s->base_hash) && (s->base_hash & o->base_hash)));
	FUZZ_ASSERT(!s->meas_hash || spdm_one_bit(s->meas_hash));
	FUZZ_ASSERT(!s->dhe || (spdm_one_bit(s->dhe) && (s->dhe & o->dhe)));
	FUZZ_ASSERT(!s->key_schedule || spdm_one_bit(s->key_schedule));
	FUZZ_ASSERT(v->rsp_caps.has_sizes == (v->version >= SPDM_VERSION_12));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spdm_vca v, again;
	struct ev_error err, err2;
	int rc = spdm_vca_decode(data, size, &v, &err), rc2;

	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG);
	FUZZ_ASSERT(!rc == !err.set);
	FUZZ_ASSERT(!err.set || err.offset <= size);
	FUZZ_ASSERT(v.nr_versions <= SPDM_MAX_VERSION_ENTRIES);
	check_spans(&v, size);
	if (!rc)
		check_success(&v, size);
	FUZZ_ASSERT(spdm_vca_decode(data, size, &again, &err2) == rc);
	FUZZ_ASSERT(!memcmp(&again, &v, sizeof(v)) && !memcmp(&err2, &err, sizeof(err)));
	/* the prefix form decodes the same messages; it fails exactly when they do */
	rc2 = spdm_vca_decode_prefix(data, size, &again, &err2);
	FUZZ_ASSERT(rc2 == 0 || rc2 == -EBADMSG);
	FUZZ_ASSERT(!rc2 == (!rc || v.trailing));
	if (!rc2)
		FUZZ_ASSERT(again.end + again.trailing == size && again.end == v.end);
	return 0;
}
