// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for spdm_meas_decode() (src/evidence/decode/spdm-meas.c). Byte 0 picks
 * the negotiated sizes (bits 3:0 the BaseAsymAlgo bit, 7:4 the
 * MeasurementHashAlgo bit; 15 for unknown), the rest is one MEASUREMENTS
 * response. Checked besides crashes: 0 or an error with its offset in the
 * input; blocks follow each other inside the record, values inside their
 * blocks, indices unique; digests have the negotiated size; a success
 * accounts for every byte and its signature state fits what was known;
 * decoding twice gives the same result; a negotiated version other than the
 * response's makes it malformed.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tsmctl/spdm-alg.h"
#include "tsmctl/spdm-meas.h"
#include "fuzz-assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_blocks(const struct spdm_meas *m, const struct spdm_hash_alg *hash)
{
	size_t next = m->record_offset;

	FUZZ_ASSERT(m->nr_blocks <= m->nr_blocks_declared && m->nr_blocks <= SPDM_MEAS_MAX_BLOCKS);
	for (unsigned int i = 0; i < m->nr_blocks; i++) {
		const struct spdm_meas_block *b = &m->blocks[i];

		FUZZ_ASSERT(b->offset == next && b->index != 0 && b->index != 0xff);
		FUZZ_ASSERT(b->offset + 4 + b->size <= m->record_offset + m->record_len);
		FUZZ_ASSERT(b->value_offset + b->value_len <= b->offset + 4 + b->size);
		FUZZ_ASSERT(spdm_meas_block(m, b->index) == b);
		if (b->dmtf && !b->raw && hash)
			FUZZ_ASSERT(b->value_len == hash->size && hash->size);
		FUZZ_ASSERT(!b->has_device_mode || b->value_len == SPDM_MEAS_DEVICE_MODE_SIZE);
		FUZZ_ASSERT(!b->has_svn || b->value_len == SPDM_MEAS_SVN_SIZE);
		next = b->offset + 4 + b->size;
	}
}

static void check_success(const struct spdm_meas *m, const struct spdm_asym_alg *asym,
			  size_t size)
{
	FUZZ_ASSERT(m->nr_blocks == m->nr_blocks_declared);
	FUZZ_ASSERT(m->nonce_offset == m->record_offset + m->record_len);
	FUZZ_ASSERT(m->opaque_offset == m->nonce_offset + SPDM_NONCE_SIZE + 2 && m->opaque_len <= 1024);
	FUZZ_ASSERT(m->has_requester_context == (m->version >= 0x13));
	FUZZ_ASSERT(m->sig_offset + m->sig_len == size);
	FUZZ_ASSERT((m->sig == SPDM_SIG_NONE) == !m->sig_len);
	if (m->sig == SPDM_SIG_PRESENT)
		FUZZ_ASSERT(asym && m->sig_len == asym->sig_size);
	if (m->sig == SPDM_SIG_UNDELIMITED)
		FUZZ_ASSERT(!asym);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spdm_meas_algs algs;
	const struct spdm_hash_alg *hash;
	const struct spdm_asym_alg *asym;
	static struct spdm_meas m, again;	/* 12 KiB each: off the stack */
	struct ev_error err, err2;
	int rc;

	if (!size)
		return 0;
	algs.base_asym_sel = (data[0] & 15) == 15 ? 0 : 1u << (data[0] & 15);
	algs.meas_hash_algo = (data[0] >> 4) == 15 ? 0 : 1u << (data[0] >> 4);
	algs.version = 0;
	hash = spdm_meas_hash_alg(algs.meas_hash_algo);
	asym = spdm_asym_alg(algs.base_asym_sel);
	data++;
	size--;
	rc = spdm_meas_decode(data, size, &algs, &m, &err);
	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG);
	FUZZ_ASSERT(!rc == !err.set);
	FUZZ_ASSERT(!err.set || err.offset <= size);
	FUZZ_ASSERT(m.digest_sizes_checked == (hash != NULL));
	check_blocks(&m, hash);
	if (!rc)
		check_success(&m, asym, size);
	FUZZ_ASSERT(spdm_meas_decode(data, size, &algs, &again, &err2) == rc);
	FUZZ_ASSERT(!memcmp(&again, &m, sizeof(m)) && !memcmp(&err2, &err, sizeof(err)));
	if (!rc) {
		/* held to its own version it decodes the same; to another one it is malformed */
		algs.version = m.version;
		FUZZ_ASSERT(spdm_meas_decode(data, size, &algs, &again, &err2) == 0);
		algs.version = m.version ^ 1;
		FUZZ_ASSERT(spdm_meas_decode(data, size, &algs, &again, &err2) == -EBADMSG &&
			    err2.offset == 0);
	}
	return 0;
}
