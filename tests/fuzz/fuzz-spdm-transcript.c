// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for spdm_transcript_decode() and spdm_l1_candidate()
 * (src/evidence/decode/spdm-transcript.c), and spdm_sig_verify() (src/evidence/decode/spdm-sig.c) over
 * what they lay out. Byte 0 picks the negotiated algorithms as the
 * spdm-meas target does (bits 3:0 the BaseAsymAlgo bit, 7:4 the
 * MeasurementHashAlgo bit; 15 for unknown), byte 1 the negotiated version
 * (0: none), the rest is one measurements object. Checked besides crashes:
 * 0 or an error with its offset in the object; a success's form, pairs and
 * spans follow each other inside the object, the last response's
 * signature ends it; every L1 candidate lies inside the object (or the
 * request it rebuilt, or the VCA given) and ends where the signature
 * starts; a carried request is one candidate, a bare response at most
 * four, none without a nonce; no candidate verifies with a key made here;
 * decoding twice gives the same result.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>

#include "tsmctl/spdm-sig.h"
#include "tsmctl/spdm-transcript.h"
#include "fuzz-assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fake_vca[] = { 0x10, 0x84, 0x00, 0x00 };

static void check_spans(const struct spdm_transcript *tx, const struct spdm_meas *m, size_t size)
{
	FUZZ_ASSERT(tx->nr_pairs <= SPDM_TX_MAX_PAIRS);
	FUZZ_ASSERT(tx->signed_end <= size);
	FUZZ_ASSERT(tx->signed_end == tx->response_offset + m->sig_offset);
	FUZZ_ASSERT(tx->response_offset + m->sig_offset + m->sig_len == size);
	switch (tx->form) {
	case SPDM_TX_RESPONSE:
		FUZZ_ASSERT(!tx->nr_pairs && !tx->response_offset && !tx->vca_len);
		break;
	case SPDM_TX_EXCHANGE:
	case SPDM_TX_TRANSCRIPT:
		FUZZ_ASSERT(tx->nr_pairs >= 1);
		FUZZ_ASSERT(tx->pairs_offset == tx->vca_len);
		FUZZ_ASSERT((tx->form == SPDM_TX_TRANSCRIPT) == (tx->vca_len > 0));
		FUZZ_ASSERT(tx->last.offset >= tx->pairs_offset);
		FUZZ_ASSERT(tx->last.offset + tx->last.len == tx->response_offset);
		FUZZ_ASSERT(tx->last.version == m->version);
		FUZZ_ASSERT(!(tx->last.attributes & SPDM_MEAS_ATTR_SIGNATURE) ||
			    m->sig != SPDM_SIG_NONE);
		break;
	}
}

/* Each piece inside the object, the request rebuilt or the VCA given; L1 ends at the signature. */
static void check_l1(const struct spdm_l1 *l1, const uint8_t *data, size_t signed_end)
{
	const uint8_t *last_end = NULL;

	FUZZ_ASSERT(l1->nr >= 1 && l1->nr <= SPDM_L1_MAX_PIECES);
	for (unsigned int i = 0; i < l1->nr; i++) {
		const uint8_t *p = l1->piece[i];
		size_t n = l1->len[i];

		FUZZ_ASSERT((p >= data && p + n <= data + signed_end) ||
			    (p == l1->request && n <= SPDM_MEAS_REQ_MAX) ||
			    (p == fake_vca && n == sizeof(fake_vca)));
		last_end = p + n;
	}
	FUZZ_ASSERT(last_end == data + signed_end);
}

static EVP_PKEY *fuzz_key(void)
{
	static EVP_PKEY *key;

	if (!key)
		key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	return key;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct spdm_meas m, again;	/* about 18 KiB each: off the stack */
	static struct spdm_transcript tx, tx2;
	static const uint8_t nonce[SPDM_NONCE_SIZE] = { 0xa0, 0xa1, 0xa2 };
	struct spdm_meas_algs algs, own;
	const struct spdm_meas_algs *used;
	struct ev_error err, err2;
	struct spdm_l1 l1;
	unsigned int n;
	int rc;

	if (size < 2)
		return 0;
	algs.base_asym_sel = (data[0] & 15) == 15 ? 0 : 1u << (data[0] & 15);
	algs.meas_hash_algo = (data[0] >> 4) == 15 ? 0 : 1u << (data[0] >> 4);
	algs.version = data[1];
	data += 2;
	size -= 2;
	rc = spdm_transcript_decode(data, size, &algs, &tx, &m, &err);
	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG);
	FUZZ_ASSERT(!rc == !err.set);
	FUZZ_ASSERT(!err.set || err.offset <= size);
	FUZZ_ASSERT(spdm_transcript_decode(data, size, &algs, &tx2, &again, &err2) == rc);
	FUZZ_ASSERT(!memcmp(&tx2, &tx, sizeof(tx)) && !memcmp(&err2, &err, sizeof(err)) &&
		    !memcmp(&again, &m, sizeof(m)));
	if (rc)
		return 0;
	check_spans(&tx, &m, size);
	used = spdm_transcript_algs(&tx, &algs, &own);
	FUZZ_ASSERT(tx.form == SPDM_TX_TRANSCRIPT ? used == &own : used == &algs);
	for (n = 0; spdm_l1_candidate(&tx, data, &m, fake_vca, sizeof(fake_vca), nonce, n, &l1) == 0;
	     n++) {
		check_l1(&l1, data, tx.signed_end);
		FUZZ_ASSERT(l1.rebuilt == !tx.nr_pairs);
		/* a key made here signed nothing the input could carry */
		if (!n && m.sig == SPDM_SIG_PRESENT && spdm_asym_alg(used->base_asym_sel))
			FUZZ_ASSERT(spdm_sig_verify(m.version, spdm_asym_alg(used->base_asym_sel),
						    spdm_hash_alg(1u << 1), fuzz_key(), &l1,
						    m.signature, m.sig_len) != 0);
	}
	FUZZ_ASSERT(tx.nr_pairs ? n <= 1 : n <= 4);
	FUZZ_ASSERT(tx.nr_pairs || spdm_l1_candidate(&tx, data, &m, fake_vca, sizeof(fake_vca), NULL,
						     0, &l1) == -ENOENT);
	return 0;
}
