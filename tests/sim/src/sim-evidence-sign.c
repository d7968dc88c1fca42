// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-evidence-sign.c: the device's side of a signed MEASUREMENTS exchange
 * (DSP0274 1.2/1.3, GET_MEASUREMENTS request format and "MEASUREMENTS
 * signature"; libspdm's responder signs the same way): the request a
 * provider sends, and the responder's signature over L1 = the VCA (from
 * 1.2), the request and the response up to the signature. From 1.2 the
 * message signed is the combined prefix (four times "dmtf-spdm-vX.Y.*",
 * zero padding, "responder-measurements signing") and Hash(L1); 1.0 and
 * 1.1 sign L1 itself. ECDSA goes on the wire as r || s, RSASSA as s, both
 * big-endian. The hash is SHA-384: every VCA the simulator serves (its own
 * and gen-evidence's) selects it.
 */
#define _GNU_SOURCE
#include <string.h>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "sim.h"

#define SPDM_GET_MEASUREMENTS	0xe0
#define ATTR_SIGNATURE		0x01
#define OP_ALL			0xff
#define PREFIX_SIZE		100

size_t sim_meas_request(uint8_t *out, uint8_t version, bool sign, const uint8_t nonce[32],
			uint8_t slot, const uint8_t *context)
{
	size_t n = 0;

	out[n++] = version;
	out[n++] = SPDM_GET_MEASUREMENTS;
	out[n++] = sign ? ATTR_SIGNATURE : 0;
	out[n++] = OP_ALL;			/* every block, as libspdm's standard transcript asks */
	if (sign) {
		memcpy(out + n, nonce, 32);
		n += 32;
		if (version >= 0x11)
			out[n++] = slot;	/* SlotIDParam */
	}
	if (version >= 0x13) {
		memcpy(out + n, context, 8);	/* RequesterContext, echoed by the response */
		n += 8;
	}
	return n;
}

EVP_PKEY *sim_leaf_key(const struct sim_model *m, const char *chain)
{
	char *name = sim_xasprintf("key:%s", chain);
	EVP_PKEY *key = NULL;

	for (size_t i = 0; i < m->nr_chains; i++) {
		BIO *bio;

		if (strcmp(m->chains[i].name, name))
			continue;
		bio = BIO_new_mem_buf(m->chains[i].data, (int)m->chains[i].len);
		key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
		BIO_free(bio);
		break;
	}
	free(name);
	return key;
}

/* DER ECDSA-Sig-Value into r || s, each HALF bytes. */
static size_t raw_ecdsa(const uint8_t *der, size_t len, size_t half, uint8_t *out)
{
	const unsigned char *p = der;
	ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)len);
	const BIGNUM *r, *s;
	size_t n = 0;

	if (es) {
		ECDSA_SIG_get0(es, &r, &s);
		if (BN_bn2binpad(r, out, (int)half) > 0 && BN_bn2binpad(s, out + half, (int)half) > 0)
			n = 2 * half;
		ECDSA_SIG_free(es);
	}
	return n;
}

size_t sim_meas_sign(EVP_PKEY *key, uint8_t version, const uint8_t *vca, size_t vca_len,
		     const uint8_t *req, size_t req_len, const uint8_t *rsp, size_t rsp_len,
		     uint8_t *sig)
{
	static const char ctx_text[] = "responder-measurements signing";
	uint8_t msg[PREFIX_SIZE + EVP_MAX_MD_SIZE], der[1024];
	EVP_MD_CTX *h = EVP_MD_CTX_new(), *s = EVP_MD_CTX_new();
	bool ec = EVP_PKEY_get_base_id(key) == EVP_PKEY_EC;
	size_t der_len = sizeof(der), n = 0;
	unsigned int hlen = 0;
	bool ok;

	/* L1 hashed; the message signed from 1.2 on is the prefix and that hash */
	ok = h && s && EVP_DigestInit_ex(h, EVP_sha384(), NULL) &&
	     (version < 0x12 || EVP_DigestUpdate(h, vca, vca_len)) &&
	     EVP_DigestUpdate(h, req, req_len) && EVP_DigestUpdate(h, rsp, rsp_len) &&
	     EVP_DigestFinal_ex(h, msg + PREFIX_SIZE, &hlen);
	for (int i = 0; ok && i < 4; i++) {
		memcpy(msg + 16 * i, "dmtf-spdm-v1.0.*", 16);
		msg[16 * i + 11] = (uint8_t)('0' + (version >> 4));
		msg[16 * i + 13] = (uint8_t)('0' + (version & 15));
	}
	memset(msg + 64, 0, 36 - (sizeof(ctx_text) - 1));
	memcpy(msg + PREFIX_SIZE - (sizeof(ctx_text) - 1), ctx_text, sizeof(ctx_text) - 1);
	ok = ok && EVP_DigestSignInit(s, NULL, EVP_sha384(), NULL, key);
	if (ok && version >= 0x12)
		ok = EVP_DigestSign(s, der, &der_len, msg, PREFIX_SIZE + hlen);
	else if (ok)	/* 1.0, 1.1: L1 (no VCA) itself through the hash */
		ok = EVP_DigestSignUpdate(s, req, req_len) && EVP_DigestSignUpdate(s, rsp, rsp_len) &&
		     EVP_DigestSignFinal(s, der, &der_len);
	if (ok && ec)
		n = raw_ecdsa(der, der_len, (size_t)(EVP_PKEY_get_bits(key) + 7) / 8, sig);
	else if (ok) {
		memcpy(sig, der, der_len);	/* RSASSA PKCS #1 v1.5: s, big-endian, modulus-sized */
		n = der_len;
	}
	EVP_MD_CTX_free(h);
	EVP_MD_CTX_free(s);
	return n;
}
