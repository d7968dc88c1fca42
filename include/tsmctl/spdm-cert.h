/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoder of an SPDM certificate chain (DSP0274, ABI.md §1.7), with or
 * without its header (Length, Reserved, RootHash), each certificate through
 * libcrypto: names, serial, validity, key, and the DMTF SPDM OIDs
 * (1.3.6.1.4.1.412.274.*). Bytes in, struct out; no I/O.
 */
#ifndef TSMCTL_SPDM_CERT_H
#define TSMCTL_SPDM_CERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/ev-decode.h"
#include "tsmctl/spdm-alg.h"

struct x509_st;		/* libcrypto's X509 */

#define SPDM_CHAIN_MAX_CERTS	32	/* decoder cap: real chains hold 2 to 6 */
#define SPDM_CERT_MAX_DEPTH	16	/* DER nesting; a certificate needs about 8 */
#define SPDM_CERT_MAX_OIDS	16	/* DMTF OIDs recorded per certificate */
#define SPDM_CHAIN_HDR_SIZE	4	/* Length, Reserved; the root hash follows */

/* Root hash lengths the header form may carry (SHA-256/384/512 and their kin). */
#define SPDM_ROOT_HASH_32	(1u << 0)
#define SPDM_ROOT_HASH_48	(1u << 1)
#define SPDM_ROOT_HASH_64	(1u << 2)

enum spdm_chain_form {
	SPDM_CHAIN_BARE,	/* DER certificates only */
	SPDM_CHAIN_HEADER,	/* DSP0274 Length, Reserved, RootHash, then the certificates */
};

/* The DMTF SPDM OIDs, id-DMTF-spdm 1..6 */
enum spdm_oid {
	SPDM_OID_UNKNOWN,		/* in the arc, not one DSP0274 1.3 defines */
	SPDM_OID_DEVICE_INFO,		/* .1: SAN otherName "manufacturer:product:serial" */
	SPDM_OID_HARDWARE_IDENTITY,	/* .2: the certificate identifies the hardware */
	SPDM_OID_EKU_RESPONDER_AUTH,	/* .3: EKU, may authenticate a Responder */
	SPDM_OID_EKU_REQUESTER_AUTH,	/* .4: EKU, may authenticate a Requester (mutual auth) */
	SPDM_OID_MUTABLE_CERTIFICATE,	/* .5: the certificate may be replaced in the field */
	SPDM_OID_SPDM_EXTENSION,	/* .6: the extension listing SPDM OIDs */
};

/* Where in the certificate a DMTF OID was found. */
enum spdm_oid_place {
	SPDM_OID_IN_SPDM_EXTENSION,	/* an entry of id-DMTF-SPDM-extension */
	SPDM_OID_IN_EKU,		/* extendedKeyUsage */
	SPDM_OID_IN_SAN,		/* subjectAltName otherName type-id */
	SPDM_OID_AS_EXTENSION,		/* an X.509 extension of its own */
};

struct spdm_cert_oid {
	char oid[48];			/* dotted, "1.3.6.1.4.1.412.274.2" */
	enum spdm_oid which;
	enum spdm_oid_place place;
	bool critical;			/* the entry's or extension's critical flag */
	size_t value_len;		/* its value's bytes (SPDM extension entries, extensions) */
};

struct spdm_cert {
	size_t offset;			/* of the DER in the object */
	size_t der_len;
	const uint8_t *der;		/* points into the input: the root hash covers these bytes */
	struct x509_st *x509;		/* owned, for X509_STORE and signature checks */
	char *subject, *issuer;		/* RFC 2253, libcrypto's escapes; escape again to print */
	char *serial;			/* lower-case hex in whole bytes ("01"), "-" first when negative */
	bool has_validity;
	int64_t not_before, not_after;	/* seconds since the epoch, UTC */
	enum spdm_key_type key_type;
	unsigned int key_bits;
	char key_group[32];		/* EC group ("secp384r1"), else "" */
	const char *sig_alg;		/* the issuer's signature algorithm, libcrypto's short name */
	unsigned int version;		/* X.509 version: 3 for v3 */
	bool ca;			/* basicConstraints cA */
	bool has_basic_constraints, has_key_usage;	/* the extensions are there */
	bool self_issued;		/* subject equals issuer (whether it signed itself: evidence.chain) */
	/* DMTF SPDM OIDs, wherever found, and what they say */
	unsigned int nr_oids;
	struct spdm_cert_oid oids[SPDM_CERT_MAX_OIDS];
	bool oids_capped;		/* more than SPDM_CERT_MAX_OIDS: the rest not listed */
	bool hardware_identity, mutable_certificate;
	bool eku_responder_auth, eku_requester_auth;
	char *device_info;		/* the SAN otherName's UTF8String, NUL-terminated, or NULL */
	size_t device_info_len;		/* its bytes (it may hold a NUL) */
};

struct spdm_chain {
	enum spdm_chain_form form;
	/* SPDM_CHAIN_HEADER only */
	uint16_t length;		/* the header's Length: the whole chain */
	const uint8_t *root_hash;	/* into the input */
	size_t root_hash_offset, root_hash_len;
	unsigned int root_hash_fits;	/* SPDM_ROOT_HASH_* lengths whose layout decoded */
	size_t certs_offset;		/* where the first certificate starts */
	unsigned int nr_certs;		/* decoded into certs[]: the first, each signing the next, the leaf last */
	unsigned int nr_seen;		/* certificates counted, past the cap too */
	struct spdm_cert *certs;	/* heap, owned */
};

/*
 * Decode LEN bytes at BUF. HASH_LEN is the negotiated hash size when known
 * (it picks the header's root hash length), 0 to try 32, 48 and 64. The
 * header form is taken when Length fits the object, Reserved is 0 and
 * certificates tile [4 + H, Length); otherwise bare DER. When neither fits,
 * ERR says why the header did not when the object starts as one (Reserved
 * 0, a Length past the header) and is no bare DER. Returns 0, -EBADMSG (ERR
 * says where and why), -E2BIG (more than SPDM_CHAIN_MAX_CERTS; the first ones
 * are decoded and nr_seen counts them all) or -ENOMEM. Release CHAIN either way.
 */
int spdm_chain_decode(const uint8_t *buf, size_t len, size_t hash_len, struct spdm_chain *chain,
		      struct ev_error *err);
void spdm_chain_release(struct spdm_chain *chain);

/*
 * The first and the last (leaf) certificate, NULL for an empty chain. The
 * first is the root or one the root signed (DSP0274): which root, only a
 * verification can say (evidence-verify-chain.c).
 */
const struct spdm_cert *spdm_chain_first(const struct spdm_chain *chain);
const struct spdm_cert *spdm_chain_leaf(const struct spdm_chain *chain);

/* X's subject as RFC 2253 text (libcrypto's escapes), allocated; NULL when out of memory. */
char *spdm_subject_text(const struct x509_st *x);

/* "device_info", "hardware_identity", ..., "unknown". */
const char *spdm_oid_name(enum spdm_oid which);

#endif
