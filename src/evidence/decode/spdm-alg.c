// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DSP0274 (SPDM 1.0-1.3) algorithm and capability bits (ABI.md §1.7): the
 * NEGOTIATE_ALGORITHMS field definitions and the CAPABILITIES flag tables,
 * written from the specification's tables (libspdm's spdm.h agrees).
 */
#include <stddef.h>

#include "tsmctl/spdm-alg.h"

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

static const struct spdm_hash_alg hash_algs[] = {
	{ 1u << 0, "sha256", 32, "SHA256" },
	{ 1u << 1, "sha384", 48, "SHA384" },
	{ 1u << 2, "sha512", 64, "SHA512" },
	{ 1u << 3, "sha3_256", 32, "SHA3-256" },
	{ 1u << 4, "sha3_384", 48, "SHA3-384" },
	{ 1u << 5, "sha3_512", 64, "SHA3-512" },
	{ 1u << 6, "sm3_256", 32, "SM3" },	/* 1.2 */
};

/* MeasurementHashAlgo: bit 0 is "raw bit stream only", the digests start at bit 1. */
static const struct spdm_hash_alg meas_hash_algs[] = {
	{ 1u << 0, "raw_bit_stream_only", 0, NULL },
	{ 1u << 1, "sha256", 32, "SHA256" },
	{ 1u << 2, "sha384", 48, "SHA384" },
	{ 1u << 3, "sha512", 64, "SHA512" },
	{ 1u << 4, "sha3_256", 32, "SHA3-256" },
	{ 1u << 5, "sha3_384", 48, "SHA3-384" },
	{ 1u << 6, "sha3_512", 64, "SHA3-512" },
	{ 1u << 7, "sm3_256", 32, "SM3" },	/* 1.2 */
};

/* Key sizes as EVP_PKEY_get_bits() reports them (Ed25519 253, Ed448 456). */
static const struct spdm_asym_alg asym_algs[] = {
	{ 1u << 0, "rsassa_2048", 256, SPDM_KEY_RSA, 2048, NULL },
	{ 1u << 1, "rsapss_2048", 256, SPDM_KEY_RSA, 2048, NULL },
	{ 1u << 2, "rsassa_3072", 384, SPDM_KEY_RSA, 3072, NULL },
	{ 1u << 3, "rsapss_3072", 384, SPDM_KEY_RSA, 3072, NULL },
	{ 1u << 4, "ecdsa_p256", 64, SPDM_KEY_EC, 256, "prime256v1" },
	{ 1u << 5, "rsassa_4096", 512, SPDM_KEY_RSA, 4096, NULL },
	{ 1u << 6, "rsapss_4096", 512, SPDM_KEY_RSA, 4096, NULL },
	{ 1u << 7, "ecdsa_p384", 96, SPDM_KEY_EC, 384, "secp384r1" },
	{ 1u << 8, "ecdsa_p521", 132, SPDM_KEY_EC, 521, "secp521r1" },
	{ 1u << 9, "sm2_p256", 64, SPDM_KEY_SM2, 256, "SM2" },	/* 1.2 */
	{ 1u << 10, "ed25519", 64, SPDM_KEY_ED25519, 253, NULL },	/* 1.2 */
	{ 1u << 11, "ed448", 114, SPDM_KEY_ED448, 456, NULL },	/* 1.2 */
};

static const char *const dhe_names[] = {
	"ffdhe2048", "ffdhe3072", "ffdhe4096", "secp256r1", "secp384r1", "secp521r1",
	"sm2_p256",
};

static const char *const aead_names[] = {
	"aes_128_gcm", "aes_256_gcm", "chacha20_poly1305", "sm4_gcm",
};

static const char *const key_schedule_names[] = { "spdm" };

/* CAPABILITIES Flags (Responder), bit by bit; two-bit fields name each bit's meaning. */
static const char *const rsp_cap_names[] = {
	"cache_cap", "cert_cap", "chal_cap", "meas_cap_no_sig", "meas_cap_sig",
	"meas_fresh_cap", "encrypt_cap", "mac_cap", "mut_auth_cap", "key_ex_cap",
	"psk_cap", "psk_cap_with_context", "encap_cap", "hbeat_cap", "key_upd_cap",
	"handshake_in_the_clear_cap", "pub_key_id_cap", "chunk_cap", "alias_cert_cap",
	"set_cert_cap", "csr_cap", "cert_install_reset_cap", "ep_info_cap_no_sig",
	"ep_info_cap_sig", "mel_cap", "event_cap", "multi_key_cap_only",
	"multi_key_cap_neg", "get_key_pair_info_cap", "set_key_pair_info_cap",
};

/* GET_CAPABILITIES Flags (Requester): bits 0, 3-5 and 18-21 are the Responder's only. */
static const char *const req_cap_names[] = {
	NULL, "cert_cap", "chal_cap", NULL, NULL, NULL, "encrypt_cap", "mac_cap",
	"mut_auth_cap", "key_ex_cap", "psk_cap", NULL, "encap_cap", "hbeat_cap",
	"key_upd_cap", "handshake_in_the_clear_cap", "pub_key_id_cap", "chunk_cap",
	NULL, NULL, NULL, NULL, "ep_info_cap_no_sig", "ep_info_cap_sig", NULL,
	"event_cap", "multi_key_cap_only", "multi_key_cap_neg",
};

static const char *pick(const char *const *names, size_t n, unsigned int bit)
{
	return bit < n ? names[bit] : NULL;
}

static const struct spdm_hash_alg *find_hash(const struct spdm_hash_alg *t, size_t n, uint32_t sel)
{
	for (size_t i = 0; spdm_one_bit(sel) && i < n; i++)
		if (t[i].bit == sel)
			return &t[i];
	return NULL;
}

const struct spdm_hash_alg *spdm_hash_alg(uint32_t base_hash_sel)
{
	return find_hash(hash_algs, NAMES(hash_algs), base_hash_sel);
}

const struct spdm_hash_alg *spdm_meas_hash_alg(uint32_t measurement_hash_algo)
{
	return find_hash(meas_hash_algs, NAMES(meas_hash_algs), measurement_hash_algo);
}

const struct spdm_asym_alg *spdm_asym_alg(uint32_t base_asym_sel)
{
	for (size_t i = 0; spdm_one_bit(base_asym_sel) && i < NAMES(asym_algs); i++)
		if (asym_algs[i].bit == base_asym_sel)
			return &asym_algs[i];
	return NULL;
}

const char *spdm_hash_name(unsigned int bit)
{
	return bit < NAMES(hash_algs) ? hash_algs[bit].name : NULL;
}

const char *spdm_meas_hash_name(unsigned int bit)
{
	return bit < NAMES(meas_hash_algs) ? meas_hash_algs[bit].name : NULL;
}

const char *spdm_asym_name(unsigned int bit)
{
	return bit < NAMES(asym_algs) ? asym_algs[bit].name : NULL;
}

const char *spdm_dhe_name(unsigned int bit)
{
	return pick(dhe_names, NAMES(dhe_names), bit);
}

const char *spdm_aead_name(unsigned int bit)
{
	return pick(aead_names, NAMES(aead_names), bit);
}

const char *spdm_key_schedule_name(unsigned int bit)
{
	return pick(key_schedule_names, NAMES(key_schedule_names), bit);
}

const char *spdm_rsp_cap_name(unsigned int bit)
{
	return pick(rsp_cap_names, NAMES(rsp_cap_names), bit);
}

const char *spdm_req_cap_name(unsigned int bit)
{
	return pick(req_cap_names, NAMES(req_cap_names), bit);
}

const char *spdm_key_type_name(enum spdm_key_type type)
{
	switch (type) {
	case SPDM_KEY_RSA:
		return "rsa";
	case SPDM_KEY_RSA_PSS:
		return "rsa_pss";
	case SPDM_KEY_EC:
		return "ec";
	case SPDM_KEY_SM2:
		return "sm2";
	case SPDM_KEY_ED25519:
		return "ed25519";
	case SPDM_KEY_ED448:
		return "ed448";
	case SPDM_KEY_UNKNOWN:
		break;
	}
	return "unknown";
}
