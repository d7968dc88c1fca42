// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/evidence/decode/spdm-transcript.c and src/evidence/decode/spdm-sig.c: the vectors of
 * tests/unit/sig-vectors (keys, transcripts and signatures the openssl
 * command line made, `gen` there remakes them) verify in every form the
 * measurements object may take (the whole transcript, request || response,
 * the bare response rebuilt from its nonce), under SPDM 1.1, 1.2 and 1.3,
 * ECDSA P-256 and P-384, RSASSA, RSAPSS and Ed25519; and fail when a byte
 * of the response changes, the signature is zeroed, another key or nonce
 * is used, or the VCA is left out of a 1.2 L1. The framing: request and
 * response pairs built from DSP0274's layouts (libspdm's multiple-request
 * transcript), each rule a pair must keep, every truncation, the candidates
 * a bare response gives. `--seeds DIR` also writes fuzz seeds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tsmctl/spdm-sig.h"
#include "tsmctl/spdm-transcript.h"
#include "sig-vectors.h"
#include "unit.h"
#include "vca-build.h"

/* A fuzz seed: the algorithms as fuzz-spdm-transcript's first two bytes read them, then the object. */
static void write_tx_seed(const char *name, const struct spdm_meas_algs *algs, const uint8_t *p,
			  size_t n)
{
	struct bytes seed = { 0 };

	put8(&seed, (algs && algs->base_asym_sel ? __builtin_ctz(algs->base_asym_sel) : 15) |
		    (algs && algs->meas_hash_algo ? __builtin_ctz(algs->meas_hash_algo) : 15) << 4);
	put8(&seed, algs ? algs->version : 0);
	put_bytes(&seed, p, n);
	write_seed(name, seed.buf, seed.len);
	bytes_free(&seed);
}

/* ---- the openssl-made vectors ---- */

struct vector {
	const char *name;
	uint8_t version;
	unsigned int nr_pieces;		/* L1: the VCA (1.2 on) and the exchange */
	struct bytes vca, exchange;
	X509 *cert;
	struct spdm_vca v;
	struct spdm_meas_algs algs;
};

static void load_vector(struct vector *t)
{
	struct bytes der = { 0 };
	const unsigned char *p;
	struct ev_error err;

	read_vector(t->name, "vca", &t->vca);
	read_vector(t->name, "exchange", &t->exchange);
	read_vector(t->name, "cert.der", &der);
	p = der.buf;
	t->cert = d2i_X509(NULL, &p, (long)der.len);
	bytes_free(&der);
	CHECK(t->cert != NULL);
	CHECK(spdm_vca_decode(t->vca.buf, t->vca.len, &t->v, &err) == 0 && t->v.version == t->version);
	t->algs = (struct spdm_meas_algs){ t->v.selected.base_asym, t->v.selected.meas_hash,
					   t->v.version };
}

static void free_vector(struct vector *t)
{
	bytes_free(&t->vca);
	bytes_free(&t->exchange);
	X509_free(t->cert);
}

static int verify_with(const struct vector *t, EVP_PKEY *key, const struct spdm_transcript *tx,
		       const uint8_t *buf, const struct spdm_meas *m, const uint8_t *vca,
		       size_t vca_len, const uint8_t *nonce, unsigned int n)
{
	struct spdm_l1 l1;
	int rc = spdm_l1_candidate(tx, buf, m, vca, vca_len, nonce, n, &l1);

	if (rc)
		return rc;
	return spdm_sig_verify(m->version, spdm_vca_asym(&t->v), spdm_vca_hash(&t->v), key, &l1,
			       m->signature, m->sig_len);
}

/* The first candidate that verifies: its number, or -1 when none does. */
static int first_verifying(const struct vector *t, EVP_PKEY *key, const struct spdm_transcript *tx,
			   const uint8_t *buf, const struct spdm_meas *m, const uint8_t *nonce)
{
	for (unsigned int n = 0; n < 16; n++) {
		int rc = verify_with(t, key, tx, buf, m, t->vca.buf, t->vca.len, nonce, n);

		if (!rc)
			return (int)n;
		if (rc == -ENOENT)
			break;
	}
	return -1;
}

/* request || response || signature, as the vector was signed. */
static void vector_exchange(struct vector *t)
{
	EVP_PKEY *key = X509_get0_pubkey(t->cert);
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	struct spdm_l1 l1;
	uint8_t *buf = bytes_exact(&t->exchange);

	CHECK(spdm_transcript_decode(buf, t->exchange.len, &t->algs, &tx, &m, &err) == 0);
	CHECK(tx.form == SPDM_TX_EXCHANGE && tx.nr_pairs == 1 && m.sig == SPDM_SIG_PRESENT);
	CHECK(tx.last.nonce && !memcmp(tx.last.nonce, vector_nonce(), SPDM_NONCE_SIZE));
	{
		char seed[64];

		snprintf(seed, sizeof(seed), "%s-exchange", t->name);
		write_tx_seed(seed, &t->algs, buf, t->exchange.len);
	}
	CHECK(tx.signed_end == t->exchange.len - m.sig_len);
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) == 0);
	CHECK(spdm_l1_candidate(&tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0, &l1) == 0 &&
	      l1.nr == t->nr_pieces && !l1.rebuilt &&
	      spdm_l1_len(&l1) == (t->version >= 0x12 ? t->vca.len : 0) + tx.signed_end);
	/* one carried request is one candidate */
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 1) == -ENOENT);
	if (t->version >= 0x12)	/* a 1.2 L1 starts with the VCA: without it, nothing to verify */
		CHECK(verify_with(t, key, &tx, buf, &m, NULL, 0, NULL, 0) == -ENOENT);
	else			/* 1.1 signs the exchange alone: the VCA is no part of it */
		CHECK(verify_with(t, key, &tx, buf, &m, NULL, 0, NULL, 0) == 0);
	free(buf);
}

/* The VCA in front: the staging sample's `transcript`, libspdm's standard transcript. */
static void vector_transcript(struct vector *t)
{
	EVP_PKEY *key = X509_get0_pubkey(t->cert);
	struct bytes b = { 0 };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	uint8_t *buf;
	char seed[64];

	put_bytes(&b, t->vca.buf, t->vca.len);
	put_bytes(&b, t->exchange.buf, t->exchange.len);
	buf = bytes_exact(&b);
	snprintf(seed, sizeof(seed), "%s-transcript", t->name);
	write_tx_seed(seed, NULL, b.buf, b.len);
	/* no algorithms given: the transcript's own VCA sizes the signature */
	CHECK(spdm_transcript_decode(buf, b.len, NULL, &tx, &m, &err) == 0);
	CHECK(tx.form == SPDM_TX_TRANSCRIPT && tx.vca_len == t->vca.len && tx.nr_pairs == 1);
	CHECK(tx.pairs_offset == t->vca.len && m.sig == SPDM_SIG_PRESENT);
	/* the carried VCA is L1's, whatever VCA object the caller has */
	CHECK(verify_with(t, key, &tx, buf, &m, NULL, 0, NULL, 0) == 0);
	free(buf);
	bytes_free(&b);
}

/* The bare response: the request is rebuilt from the nonce the reader sent. */
static void vector_response(struct vector *t)
{
	EVP_PKEY *key = X509_get0_pubkey(t->cert);
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	uint8_t other[SPDM_NONCE_SIZE], *buf;
	size_t at;
	char seed[64];

	CHECK(spdm_transcript_decode(t->exchange.buf, t->exchange.len, &t->algs, &tx, &m, &err) == 0);
	at = tx.response_offset;
	buf = malloc(t->exchange.len - at);
	memcpy(buf, t->exchange.buf + at, t->exchange.len - at);
	snprintf(seed, sizeof(seed), "%s-response", t->name);
	write_tx_seed(seed, &t->algs, buf, t->exchange.len - at);
	CHECK(spdm_transcript_decode(buf, t->exchange.len - at, &t->algs, &tx, &m, &err) == 0);
	CHECK(tx.form == SPDM_TX_RESPONSE && tx.nr_pairs == 0 && m.sig == SPDM_SIG_PRESENT);
	/* the vector asked for every block, with the 1.3 context: the first candidate */
	CHECK(first_verifying(t, key, &tx, buf, &m, vector_nonce()) == 0);
	/* no nonce: no request to rebuild */
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) == -ENOENT);
	/* another nonce: a response replayed from another request verifies over none */
	memcpy(other, vector_nonce(), sizeof(other));
	other[31] ^= 1;
	CHECK(first_verifying(t, key, &tx, buf, &m, other) == -1);
	free(buf);
}

/* Whatever is changed, the signature no longer verifies. */
static void vector_tampered(struct vector *t, EVP_PKEY *stranger)
{
	EVP_PKEY *key = X509_get0_pubkey(t->cert);
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	uint8_t *buf = bytes_exact(&t->exchange);
	size_t len = t->exchange.len;

	CHECK(spdm_transcript_decode(buf, len, &t->algs, &tx, &m, &err) == 0);
	/* a measurement's digest, one bit */
	buf[tx.response_offset + m.blocks[0].value_offset] ^= 0x01;
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) == -EBADMSG);
	buf[tx.response_offset + m.blocks[0].value_offset] ^= 0x01;
	/* the responder's nonce */
	buf[tx.response_offset + m.nonce_offset] ^= 0x80;
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) == -EBADMSG);
	buf[tx.response_offset + m.nonce_offset] ^= 0x80;
	/* the VCA: another negotiation (1.2 on, where L1 holds it) */
	t->vca.buf[t->vca.len - 1] ^= 0x01;
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) ==
	      (t->version >= 0x12 ? -EBADMSG : 0));
	t->vca.buf[t->vca.len - 1] ^= 0x01;
	/* another key of the same kind */
	if (stranger)
		CHECK(verify_with(t, stranger, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) == -EBADMSG);
	/* the signature zeroed */
	memset((uint8_t *)m.signature, 0, m.sig_len);
	CHECK(verify_with(t, key, &tx, buf, &m, t->vca.buf, t->vca.len, NULL, 0) == -EBADMSG);
	free(buf);
}

static void test_vectors(void)
{
	struct vector v[] = {
		{ .name = "p384-13", .version = 0x13, .nr_pieces = 2 },
		{ .name = "p256-11", .version = 0x11, .nr_pieces = 1 },
		{ .name = "rsapss-12", .version = 0x12, .nr_pieces = 2 },
		{ .name = "rsassa-12", .version = 0x12, .nr_pieces = 2 },
		{ .name = "ed25519-12", .version = 0x12, .nr_pieces = 2 },
	};
	EVP_PKEY *p384 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	EVP_PKEY *p256 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	EVP_PKEY *strangers[] = { p384, p256, NULL, NULL, ed };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		load_vector(&v[i]);
		vector_exchange(&v[i]);
		vector_transcript(&v[i]);
		vector_response(&v[i]);
		vector_tampered(&v[i], strangers[i]);
	}
	/* a key of another kind or size cannot make the negotiated signature */
	CHECK(spdm_transcript_decode(v[0].exchange.buf, v[0].exchange.len, &v[0].algs, &tx, &m,
				     &err) == 0);
	CHECK(verify_with(&v[0], X509_get0_pubkey(v[1].cert), &tx, v[0].exchange.buf, &m,
			  v[0].vca.buf, v[0].vca.len, NULL, 0) == -EKEYREJECTED);
	CHECK(verify_with(&v[0], X509_get0_pubkey(v[2].cert), &tx, v[0].exchange.buf, &m,
			  v[0].vca.buf, v[0].vca.len, NULL, 0) == -EKEYREJECTED);
	CHECK(spdm_transcript_decode(v[3].exchange.buf, v[3].exchange.len, &v[3].algs, &tx, &m,
				     &err) == 0);
	CHECK(verify_with(&v[3], X509_get0_pubkey(v[2].cert), &tx, v[3].exchange.buf, &m,
			  v[3].vca.buf, v[3].vca.len, NULL, 0) == -EKEYREJECTED);
	/* the signature sizes the keys make */
	CHECK(spdm_sig_size_of_key(X509_get0_pubkey(v[0].cert)) == 96);
	CHECK(spdm_sig_size_of_key(X509_get0_pubkey(v[1].cert)) == 64);
	CHECK(spdm_sig_size_of_key(X509_get0_pubkey(v[2].cert)) == 384);
	CHECK(spdm_sig_size_of_key(X509_get0_pubkey(v[3].cert)) == 256);
	CHECK(spdm_sig_size_of_key(X509_get0_pubkey(v[4].cert)) == 64);
	CHECK(spdm_sig_size_of_key(NULL) == 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		free_vector(&v[i]);
	EVP_PKEY_free(p384);
	EVP_PKEY_free(p256);
	EVP_PKEY_free(ed);
}

/* The combined prefix, byte for byte (DSP0274 1.2 "Signature generation"). */
static void test_prefix(void)
{
	static const char ctx[] = "responder-measurements signing";
	uint8_t p[SPDM_SIGN_PREFIX_SIZE];
	bool zero = true;

	spdm_sig_prefix(0x12, p);
	for (int i = 0; i < 4; i++)
		CHECK(!memcmp(p + 16 * i, "dmtf-spdm-v1.2.*", 16));
	for (int i = 64; i < 64 + 36 - (int)strlen(ctx); i++)
		zero &= !p[i];
	CHECK(zero && 36 - strlen(ctx) == 6);
	CHECK(!memcmp(p + SPDM_SIGN_PREFIX_SIZE - strlen(ctx), ctx, strlen(ctx)));
	spdm_sig_prefix(0x13, p);
	CHECK(!memcmp(p + 48, "dmtf-spdm-v1.3.*", 16));
}

/* ---- the framing, on pairs built from DSP0274's layouts ---- */

#define SHA384	48

/* A GET_MEASUREMENTS of VERSION: OP, a signature (nonce from 0xa0, SLOT) or not, 1.3's context. */
static void build_request(struct bytes *b, uint8_t version, uint8_t op, bool sign, uint8_t slot,
			  uint8_t ctx_seed)
{
	put8(b, version);
	put8(b, 0xe0);
	put8(b, sign ? 1 : 0);
	put8(b, op);
	if (sign) {
		put_pattern(b, 0xa0, SPDM_NONCE_SIZE);
		if (version >= 0x11)
			put8(b, slot);
	}
	if (version >= 0x13)
		put_pattern(b, ctx_seed, SPDM_REQ_CONTEXT_SIZE);
}

/* MEASUREMENTS with the blocks of INDICES (N), TOTAL in Param1, SLOT; a 96-byte signature when SIG. */
static void build_response(struct bytes *b, uint8_t version, const uint8_t *indices, unsigned int n,
			   uint8_t total, uint8_t slot, uint8_t ctx_seed, bool sig)
{
	size_t record;

	put8(b, version);
	put8(b, 0x60);
	put8(b, total);
	put8(b, slot);
	put8(b, n);
	put24(b, 0);
	record = b->len;
	for (unsigned int i = 0; i < n; i++) {
		put8(b, indices[i]);
		put8(b, 1);
		put16(b, 3 + SHA384);
		put8(b, 0x01);
		put16(b, SHA384);
		put_pattern(b, indices[i], SHA384);
	}
	patch_le(b, record - 3, b->len - record, 3);
	put_pattern(b, 0x50, SPDM_NONCE_SIZE);
	put16(b, 0);
	if (version >= 0x13)
		put_pattern(b, ctx_seed, SPDM_REQ_CONTEXT_SIZE);
	if (sig)
		put_pattern(b, 0x01, 96);
}

static const struct spdm_meas_algs p384_13 = { 1u << 7, 1u << 2, 0x13 };

static int decode_tx(const struct bytes *b, const struct spdm_meas_algs *algs,
		     struct spdm_transcript *tx, struct spdm_meas *m, struct ev_error *err)
{
	uint8_t *copy = bytes_exact(b);
	int rc = spdm_transcript_decode(copy, b->len, algs, tx, m, err);

	CHECK(!err->set || err->offset <= b->len);
	free(copy);
	return rc;
}

/* libspdm's multiple-request transcript: the count, each index, the last one signed. */
static void test_multiple_requests(void)
{
	static const uint8_t one = 1, two = 2, three = 3;
	struct bytes b = { 0 };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	size_t last;

	build_request(&b, 0x13, 0, false, 0, 0xc0);
	build_response(&b, 0x13, NULL, 0, 3, 0, 0xc0, false);
	build_request(&b, 0x13, 1, false, 0, 0xc1);
	build_response(&b, 0x13, &one, 1, 0, 0, 0xc1, false);
	build_request(&b, 0x13, 2, false, 0, 0xc2);
	build_response(&b, 0x13, &two, 1, 0, 0, 0xc2, false);
	last = b.len;
	build_request(&b, 0x13, 3, true, 2, 0xc3);
	build_response(&b, 0x13, &three, 1, 0, 2, 0xc3, true);
	write_tx_seed("multiple-requests-1.3", &p384_13, b.buf, b.len);
	CHECK(decode_tx(&b, &p384_13, &tx, &m, &err) == 0 && !err.set);
	CHECK(tx.form == SPDM_TX_EXCHANGE && tx.nr_pairs == 4 && tx.pairs_offset == 0);
	CHECK(tx.last.offset == last && tx.last.operation == 3 && tx.last.has_slot &&
	      tx.last.slot_id == 2 && tx.last.nonce && tx.last.context);
	CHECK(tx.response_offset == last + 4 + 32 + 1 + 8);
	CHECK(tx.signed_end == b.len - 96 && m.sig == SPDM_SIG_PRESENT && m.nr_blocks == 1 &&
	      m.blocks[0].index == 3 && m.slot_id == 2);
	bytes_free(&b);

	/* unsigned all the way: the transcript ends with its last response */
	build_request(&b, 0x12, 0xff, false, 0, 0);
	build_response(&b, 0x12, &one, 1, 0, 0, 0, false);
	CHECK(decode_tx(&b, NULL, &tx, &m, &err) == 0 && tx.nr_pairs == 1 &&
	      m.sig == SPDM_SIG_NONE && tx.signed_end == b.len && !tx.last.nonce);
	bytes_free(&b);
}

/* Each rule a request and its response keep: their errors and where they point. */
static void test_pairing_rules(void)
{
	static const uint8_t idx[] = { 1, 2 };
	struct bytes b = { 0 };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	struct spdm_meas_algs a12 = { 1u << 7, 1u << 2, 0x12 };

	/* the response names another slot than its request */
	build_request(&b, 0x13, 0xff, true, 1, 0xc0);
	build_response(&b, 0x13, idx, 2, 0, 3, 0xc0, true);
	CHECK(decode_tx(&b, &p384_13, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "names slot 3, its request slot 1"));
	bytes_free(&b);
	/* another requester context echoed */
	build_request(&b, 0x13, 0xff, true, 0, 0xc0);
	build_response(&b, 0x13, idx, 2, 0, 0, 0xd0, true);
	CHECK(decode_tx(&b, &p384_13, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "RequesterContext is not its request's") &&
	      err.offset == b.len - 96 - 8);
	bytes_free(&b);
	/* two blocks for a request of one index; blocks for the count alone */
	build_request(&b, 0x13, 1, true, 0, 0xc0);
	build_response(&b, 0x13, idx, 2, 0, 0, 0xc0, true);
	CHECK(decode_tx(&b, &p384_13, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "holds 2 blocks; its request asked for index 1"));
	bytes_free(&b);
	build_request(&b, 0x13, 0, false, 0, 0xc0);
	build_response(&b, 0x13, idx, 1, 0, 0, 0xc0, false);
	CHECK(decode_tx(&b, &p384_13, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "asked for the count alone"));
	bytes_free(&b);
	/* a request of another version than the VCA's, and a response of another than its request */
	build_request(&b, 0x13, 0xff, true, 0, 0xc0);
	build_response(&b, 0x13, idx, 2, 0, 0, 0xc0, true);
	CHECK(decode_tx(&b, &a12, &tx, &m, &err) == -EBADMSG && err.offset == 0 &&
	      strstr(err.why, "GET_MEASUREMENTS speaks SPDM 1.3, the exchange 1.2"));
	bytes_free(&b);
	build_request(&b, 0x12, 0xff, true, 0, 0);
	build_response(&b, 0x11, idx, 2, 0, 0, 0, true);
	CHECK(decode_tx(&b, NULL, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "MEASUREMENTS speaks SPDM 1.1, the VCA negotiated 1.2") &&
	      err.offset == 4 + 32 + 1);
	bytes_free(&b);
	/* after an unsigned response only another request may follow */
	build_request(&b, 0x12, 0xff, false, 0, 0);
	build_response(&b, 0x12, idx, 2, 0, 0, 0, false);
	put_pattern(&b, 0x01, 96);
	CHECK(decode_tx(&b, &a12, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "where GET_MEASUREMENTS (0xe0) belongs"));
	bytes_free(&b);
	/* a request for a signature whose response has none: the signature was stripped */
	build_request(&b, 0x12, 0xff, true, 0, 0);
	build_response(&b, 0x12, idx, 2, 0, 0, 0, false);
	CHECK(decode_tx(&b, &a12, &tx, &m, &err) == -EBADMSG && err.offset == b.len &&
	      strstr(err.why, "asked for a signature, and none follows its response"));
	bytes_free(&b);
	/* a signed response is the last: a signature of the wrong size is malformed */
	build_request(&b, 0x12, 0xff, true, 0, 0);
	build_response(&b, 0x12, idx, 2, 0, 0, 0, true);
	build_request(&b, 0x12, 0xff, true, 0, 0);
	CHECK(decode_tx(&b, &a12, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "after the opaque data; the negotiated ecdsa_p384 signature is 96"));
	bytes_free(&b);
}

/* A VCA then nothing; a VCA then garbage; a response that is an ERROR. */
static void test_transcript_edges(void)
{
	struct vca_spec s = vca_spec_13();
	struct bytes b = { 0 };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	static const uint8_t one = 1;

	build_vca(&b, &s);
	CHECK(decode_tx(&b, NULL, &tx, &m, &err) == -EBADMSG &&
	      strstr(err.why, "ends after ALGORITHMS: no GET_MEASUREMENTS") && err.offset == b.len);
	build_request(&b, 0x13, 0xff, true, 0, 0xc0);
	build_response(&b, 0x13, &one, 1, 0, 0, 0xc0, true);
	write_tx_seed("transcript-1.3", NULL, b.buf, b.len);
	CHECK(decode_tx(&b, NULL, &tx, &m, &err) == 0 && tx.form == SPDM_TX_TRANSCRIPT &&
	      m.sig == SPDM_SIG_PRESENT && m.sig_len == 96);
	/* the transcript's VCA decides, not the algorithms the caller had (a P-256 VCA object) */
	{
		struct spdm_meas_algs p256 = { 1u << 4, 1u << 2, 0x13 }, own;

		CHECK(decode_tx(&b, &p256, &tx, &m, &err) == 0 && m.sig_len == 96);
		CHECK(spdm_transcript_algs(&tx, &p256, &own) == &own && own.base_asym_sel == 1u << 7);
	}
	bytes_free(&b);
	/* a response of no known code: the response decoder says what it is */
	put8(&b, 0x12);
	put8(&b, 0x7f);
	put8(&b, 0x05);
	put8(&b, 0);
	put_le(&b, 0, 8);
	CHECK(decode_tx(&b, NULL, &tx, &m, &err) == -EBADMSG && tx.form == SPDM_TX_RESPONSE &&
	      strstr(err.why, "SPDM ERROR response"));
	bytes_free(&b);
}

/* Every cut of a signed transcript: an error inside the bytes, never a read past them. */
static void test_truncations(void)
{
	struct vca_spec s = vca_spec_13();
	struct bytes b = { 0 }, cut = { 0 };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct ev_error err;
	static const uint8_t one = 1;
	unsigned int right = 0;
	size_t first_pair;

	build_vca(&b, &s);
	build_request(&b, 0x13, 0, false, 0, 0xc0);
	build_response(&b, 0x13, NULL, 0, 1, 0, 0xc0, false);
	first_pair = b.len;
	build_request(&b, 0x13, 1, true, 0, 0xc1);
	build_response(&b, 0x13, &one, 1, 0, 0, 0xc1, true);
	/* only the cut after the first (unsigned) pair is a transcript of its own */
	for (size_t n = 0; n < b.len; n++) {
		int rc;

		cut.len = 0;
		put_bytes(&cut, b.buf, n);
		rc = decode_tx(&cut, NULL, &tx, &m, &err);
		right += n == first_pair ? rc == 0 && tx.nr_pairs == 1 : rc == -EBADMSG && err.set;
	}
	CHECK(right == b.len);
	CHECK(decode_tx(&b, NULL, &tx, &m, &err) == 0 && tx.nr_pairs == 2);
	bytes_free(&b);
	bytes_free(&cut);
}

/* What a bare response offers to try, in order; none without a nonce or a needed VCA. */
static void test_candidates(void)
{
	static const uint8_t one = 7, two[] = { 1, 2 };
	static const uint8_t vca[] = { 0x10, 0x84, 0, 0 };
	struct bytes b = { 0 };
	struct spdm_transcript tx;
	struct spdm_meas m;
	struct spdm_l1 l1;
	struct ev_error err;
	uint8_t *buf;

	build_response(&b, 0x13, &one, 1, 0, 5, 0xc0, true);
	buf = bytes_exact(&b);
	CHECK(spdm_transcript_decode(buf, b.len, &p384_13, &tx, &m, &err) == 0);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 0, &l1) == 0);
	CHECK(l1.rebuilt && l1.operation == 0xff && l1.with_context && l1.nr == 3);
	CHECK(l1.len[0] == 4 && l1.len[1] == 4 + 32 + 1 + 8 && l1.len[2] == b.len - 96);
	CHECK(l1.request[0] == 0x13 && l1.request[1] == 0xe0 && l1.request[2] == 1 &&
	      l1.request[3] == 0xff && l1.request[36] == 5 &&
	      !memcmp(l1.request + 4, vector_nonce(), 32) && l1.request[37] == 0xc0);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 1, &l1) == 0 &&
	      l1.operation == 0xff && !l1.with_context && l1.len[1] == 37);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 2, &l1) == 0 &&
	      l1.operation == 7 && l1.with_context);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 3, &l1) == 0 &&
	      l1.operation == 7 && !l1.with_context);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 4, &l1) == -ENOENT);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), NULL, 0, &l1) == -ENOENT);
	CHECK(spdm_l1_candidate(&tx, buf, &m, NULL, 0, vector_nonce(), 0, &l1) == -ENOENT);
	free(buf);
	bytes_free(&b);
	/* 1.2, two blocks: every block only, no context */
	build_response(&b, 0x12, two, 2, 0, 0, 0, true);
	buf = bytes_exact(&b);
	CHECK(spdm_transcript_decode(buf, b.len, &(struct spdm_meas_algs){ 1u << 7, 1u << 2, 0x12 },
				     &tx, &m, &err) == 0);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 0, &l1) == 0 &&
	      l1.len[1] == 37 && !l1.with_context);
	CHECK(spdm_l1_candidate(&tx, buf, &m, vca, sizeof(vca), vector_nonce(), 1, &l1) == -ENOENT);
	free(buf);
	bytes_free(&b);
}

int main(int argc, char **argv)
{
	seeds_from_args(argc, argv);
	test_prefix();
	test_vectors();
	test_multiple_requests();
	test_pairing_rules();
	test_transcript_edges();
	test_truncations();
	test_candidates();
	return unit_report();
}
