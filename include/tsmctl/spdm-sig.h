/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A MEASUREMENTS signature checked against a public key (DSP0274 1.0-1.3,
 * "Signature generation" and the MEASUREMENTS response's Signature; libspdm's
 * libspdm_asym_verify_ex() does the same, ABI.md §1.7). SPDM 1.0 and 1.1
 * sign L1 itself; from 1.2 the message signed is the combined prefix, four
 * times "dmtf-spdm-vX.Y.*", zero padding and "responder-measurements
 * signing" (100 bytes), then Hash(L1) under the negotiated BaseHashAlgo.
 * ECDSA's r || s and RSA's signature are big-endian, EdDSA's RFC 8032's.
 * Through libcrypto; no I/O.
 */
#ifndef TSMCTL_SPDM_SIG_H
#define TSMCTL_SPDM_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "tsmctl/spdm-alg.h"
#include "tsmctl/spdm-transcript.h"

struct evp_pkey_st;	/* libcrypto's EVP_PKEY */

#define SPDM_SIGN_PREFIX_SIZE	100	/* 4 x 16 bytes of version, 36 of padded context */

/* The combined prefix of a MEASUREMENTS signature in VERSION (1.2 or later) into OUT. */
void spdm_sig_prefix(uint8_t version, uint8_t out[SPDM_SIGN_PREFIX_SIZE]);

/* The bytes of one SPDM signature KEY makes (EC 2 x the order's, RSA the modulus'); 0 unknown. */
size_t spdm_sig_size_of_key(struct evp_pkey_st *key);

/*
 * Does SIG (SIG_LEN bytes, as the response carries it) verify over L1 with
 * KEY, under VERSION, ASYM and HASH (what ALGORITHMS selected)? 0 it does;
 * -EBADMSG it does not; -EKEYREJECTED KEY cannot make an ASYM signature (or
 * SIG_LEN is not ASYM's); -EOPNOTSUPP an algorithm this build does not
 * verify (SM2, EdDSA before 1.2, a hash libcrypto lacks); -ENOMEM.
 */
int spdm_sig_verify(uint8_t version, const struct spdm_asym_alg *asym,
		    const struct spdm_hash_alg *hash, struct evp_pkey_st *key,
		    const struct spdm_l1 *l1, const uint8_t *sig, size_t sig_len);

#endif
