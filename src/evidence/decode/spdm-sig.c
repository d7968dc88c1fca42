// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verifying a MEASUREMENTS signature (spdm-sig.h, ABI.md §1.7): the message
 * each SPDM version signs, the signature's wire form turned into what
 * libcrypto takes (ECDSA r || s into an ECDSA-Sig-Value), and the padding
 * each BaseAsymAlgo names (RSASSA PKCS #1 v1.5; RSAPSS with a salt as long
 * as the digest, as libspdm signs).
 */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "tsmctl/spdm-sig.h"

#define SPDM_VERSION_12		0x12
#define PREFIX_VERSION_SIZE	16	/* "dmtf-spdm-v1.2.*" */
#define PREFIX_CONTEXT_SIZE	36	/* zero padding, then the context */
#define MEAS_SIGN_CONTEXT	"responder-measurements signing"

void spdm_sig_prefix(uint8_t version, uint8_t out[SPDM_SIGN_PREFIX_SIZE])
{
	static const char ctx[] = MEAS_SIGN_CONTEXT;
	char v[PREFIX_VERSION_SIZE + 1] = "dmtf-spdm-vX.Y.*";

	/* one digit each, as every SPDM version so far has */
	v[11] = (char)('0' + (version >> 4));
	v[13] = (char)('0' + (version & 15));
	for (int i = 0; i < 4; i++)
		memcpy(out + i * PREFIX_VERSION_SIZE, v, PREFIX_VERSION_SIZE);
	memset(out + 4 * PREFIX_VERSION_SIZE, 0, PREFIX_CONTEXT_SIZE);
	memcpy(out + SPDM_SIGN_PREFIX_SIZE - (sizeof(ctx) - 1), ctx, sizeof(ctx) - 1);
}

size_t spdm_sig_size_of_key(EVP_PKEY *key)
{
	switch (key ? EVP_PKEY_get_base_id(key) : EVP_PKEY_NONE) {
	case EVP_PKEY_EC:
		return 2 * (size_t)((EVP_PKEY_get_bits(key) + 7) / 8);
	case EVP_PKEY_RSA:
	case EVP_PKEY_RSA_PSS:
		return (size_t)EVP_PKEY_get_size(key);
	case EVP_PKEY_ED25519:
		return 64;
	case EVP_PKEY_ED448:
		return 114;
	}
	return 0;
}

/* Does KEY make the signatures ASYM names (kind, size, curve)? */
static bool key_fits(EVP_PKEY *key, const struct spdm_asym_alg *asym)
{
	int id = EVP_PKEY_get_base_id(key);
	char group[64] = "";
	size_t glen = 0;

	switch (asym->key) {
	case SPDM_KEY_RSA:
		/* an RSASSA-PSS-only key makes the PSS signatures alone */
		return (id == EVP_PKEY_RSA || (id == EVP_PKEY_RSA_PSS && strstr(asym->name, "rsapss"))) &&
		       EVP_PKEY_get_bits(key) == (int)asym->key_bits;
	case SPDM_KEY_EC:
		return id == EVP_PKEY_EC &&
		       EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group,
						      sizeof(group), &glen) &&
		       !strcmp(group, asym->group);
	case SPDM_KEY_ED25519:
		return id == EVP_PKEY_ED25519;
	case SPDM_KEY_ED448:
		return id == EVP_PKEY_ED448;
	default:
		return false;
	}
}

/* r || s, big-endian halves, as DER; its length, 0 on failure. *DER is allocated. */
static int ecdsa_der(const uint8_t *sig, size_t len, unsigned char **der)
{
	ECDSA_SIG *es = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(sig, (int)(len / 2), NULL);
	BIGNUM *s = BN_bin2bn(sig + len / 2, (int)(len / 2), NULL);
	int n = 0;

	*der = NULL;
	if (es && r && s && ECDSA_SIG_set0(es, r, s)) {
		r = s = NULL;	/* owned by ES now */
		n = i2d_ECDSA_SIG(es, der);
	}
	BN_free(r);
	BN_free(s);
	ECDSA_SIG_free(es);
	return n > 0 ? n : 0;
}

/* Hash(L1) under MD into OUT; its length, 0 on failure. */
static unsigned int hash_l1(const EVP_MD *md, const struct spdm_l1 *l1, uint8_t *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int n = 0;
	bool ok = ctx && EVP_DigestInit_ex(ctx, md, NULL);

	for (unsigned int i = 0; ok && i < l1->nr; i++)
		ok = EVP_DigestUpdate(ctx, l1->piece[i], l1->len[i]);
	if (!ok || !EVP_DigestFinal_ex(ctx, out, &n))
		n = 0;
	EVP_MD_CTX_free(ctx);
	return n;
}

/*
 * The signing context each key kind wants: RSA's padding; Ed448 signs with
 * DSP0274's context as its context string (libspdm's eddsa verify), which
 * libcrypto takes from 3.2 on.
 */
static int set_up(EVP_MD_CTX *ctx, EVP_PKEY *key, const EVP_MD *md,
		  const struct spdm_asym_alg *asym)
{
	OSSL_PARAM params[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
	EVP_PKEY_CTX *pctx = NULL;

	if (asym->key == SPDM_KEY_ED448) {
#ifdef OSSL_SIGNATURE_PARAM_CONTEXT_STRING
		static char ed448_ctx[] = MEAS_SIGN_CONTEXT;

		params[0] = OSSL_PARAM_construct_octet_string(OSSL_SIGNATURE_PARAM_CONTEXT_STRING,
							      ed448_ctx, sizeof(ed448_ctx) - 1);
#else
		return -EOPNOTSUPP;
#endif
	}
	if (!EVP_DigestVerifyInit_ex(ctx, &pctx, md ? EVP_MD_get0_name(md) : NULL, NULL, NULL,
				     key, params))
		return -EBADMSG;
	if (asym->key == SPDM_KEY_RSA && strstr(asym->name, "rsapss") &&
	    (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
	     EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) <= 0))
		return -EBADMSG;
	if (asym->key == SPDM_KEY_RSA && !strstr(asym->name, "rsapss") &&
	    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) <= 0)
		return -EBADMSG;
	return 0;
}

/*
 * The message: from 1.2 the prefix and Hash(L1), signed whole (EdDSA) or
 * through MD; before, L1 through MD.
 */
static int verify_message(EVP_MD_CTX *ctx, uint8_t version, const EVP_MD *md,
			  const struct spdm_l1 *l1, const uint8_t *sig, size_t sig_len)
{
	uint8_t m[SPDM_SIGN_PREFIX_SIZE + EVP_MAX_MD_SIZE];
	unsigned int hlen;

	if (version < SPDM_VERSION_12) {
		for (unsigned int i = 0; i < l1->nr; i++)
			if (!EVP_DigestVerifyUpdate(ctx, l1->piece[i], l1->len[i]))
				return -EBADMSG;
		return EVP_DigestVerifyFinal(ctx, sig, sig_len) == 1 ? 0 : -EBADMSG;
	}
	spdm_sig_prefix(version, m);
	hlen = hash_l1(md, l1, m + SPDM_SIGN_PREFIX_SIZE);
	if (!hlen)
		return -EOPNOTSUPP;
	return EVP_DigestVerify(ctx, sig, sig_len, m, SPDM_SIGN_PREFIX_SIZE + hlen) == 1 ? 0 :
	       -EBADMSG;
}

int spdm_sig_verify(uint8_t version, const struct spdm_asym_alg *asym,
		    const struct spdm_hash_alg *hash, EVP_PKEY *key,
		    const struct spdm_l1 *l1, const uint8_t *sig, size_t sig_len)
{
	bool eddsa = asym->key == SPDM_KEY_ED25519 || asym->key == SPDM_KEY_ED448;
	EVP_MD *md = hash && hash->md ? EVP_MD_fetch(NULL, hash->md, NULL) : NULL;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char *der = NULL;
	int rc;

	if (!ctx)
		rc = -ENOMEM;
	else if (asym->key == SPDM_KEY_SM2 || (eddsa && version < SPDM_VERSION_12) || !md)
		rc = -EOPNOTSUPP;
	else if (!key_fits(key, asym) || sig_len != asym->sig_size)
		rc = -EKEYREJECTED;
	else
		rc = set_up(ctx, key, eddsa ? NULL : md, asym);
	if (!rc && asym->key == SPDM_KEY_EC) {
		int n = ecdsa_der(sig, sig_len, &der);

		rc = n ? verify_message(ctx, version, md, l1, der, (size_t)n) : -EBADMSG;
	} else if (!rc) {
		rc = verify_message(ctx, version, md, l1, sig, sig_len);
	}
	OPENSSL_free(der);
	EVP_MD_CTX_free(ctx);
	EVP_MD_free(md);
	return rc;
}
