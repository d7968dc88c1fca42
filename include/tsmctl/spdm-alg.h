/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DSP0274 algorithm and capability registry (ABI.md §1.7): names for the
 * bits of NEGOTIATE_ALGORITHMS/ALGORITHMS and of the capability flags, and
 * what a selected algorithm implies (digest size, signature size, key).
 * Shared by the VCA, measurement and certificate decoders and their checks.
 */
#ifndef TSMCTL_SPDM_ALG_H
#define TSMCTL_SPDM_ALG_H

#include <stdint.h>

/* Public key kinds, as a certificate carries them and BaseAsymAlgo needs them. */
enum spdm_key_type {
	SPDM_KEY_UNKNOWN,
	SPDM_KEY_RSA,
	SPDM_KEY_RSA_PSS,	/* an RSASSA-PSS-only key (id-RSASSA-PSS) */
	SPDM_KEY_EC,
	SPDM_KEY_SM2,
	SPDM_KEY_ED25519,
	SPDM_KEY_ED448,
};

/* A BaseHashAlgo / MeasurementHashAlgo bit. */
struct spdm_hash_alg {
	uint32_t bit;
	const char *name;	/* "sha384" */
	unsigned int size;	/* digest bytes; 0 for raw-bit-stream-only */
	const char *md;		/* OpenSSL digest name ("SHA384"), NULL for none */
};

/* A BaseAsymAlgo bit: the signature it makes and the key it needs. */
struct spdm_asym_alg {
	uint32_t bit;
	const char *name;	/* "ecdsa_p384" */
	unsigned int sig_size;	/* signature bytes in an SPDM message */
	enum spdm_key_type key;
	unsigned int key_bits;	/* as OpenSSL's EVP_PKEY_get_bits() counts them */
	const char *group;	/* EC group as OpenSSL names it ("secp384r1"), or NULL */
};

/*
 * The algorithm one selection names: SEL must have exactly one known bit
 * set (an ALGORITHMS field); NULL otherwise.
 */
const struct spdm_hash_alg *spdm_hash_alg(uint32_t base_hash_sel);
const struct spdm_hash_alg *spdm_meas_hash_alg(uint32_t measurement_hash_algo);
const struct spdm_asym_alg *spdm_asym_alg(uint32_t base_asym_sel);

/*
 * Lowercase names of single bits (bit numbers, 0..31), NULL where DSP0274
 * 1.0-1.3 defines none: BaseHashAlgo, MeasurementHashAlgo, BaseAsymAlgo
 * (also ReqBaseAsymAlg), DHE, AEAD, KeySchedule, and the Responder's and
 * Requester's capability flags ("cert_cap", "meas_cap_sig", ...).
 */
const char *spdm_hash_name(unsigned int bit);
const char *spdm_meas_hash_name(unsigned int bit);
const char *spdm_asym_name(unsigned int bit);
const char *spdm_dhe_name(unsigned int bit);
const char *spdm_aead_name(unsigned int bit);
const char *spdm_key_schedule_name(unsigned int bit);
const char *spdm_rsp_cap_name(unsigned int bit);
const char *spdm_req_cap_name(unsigned int bit);

/* "rsa", "rsa_pss", "ec", "sm2", "ed25519", "ed448", "unknown". */
const char *spdm_key_type_name(enum spdm_key_type type);

/* Is exactly one bit set? (Selections are one algorithm or none.) */
static inline int spdm_one_bit(uint32_t v)
{
	return v && !(v & (v - 1));
}

#endif
