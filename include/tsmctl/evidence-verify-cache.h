/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one run has verified of certificates, so that a host of a thousand
 * devices sharing a few roots and intermediates verifies each distinct
 * certificate signature and each distinct chain once (evidence.chain). Keyed
 * by the SHA-384 of the exact DER bytes (of the issuer and the certificate,
 * or of the whole chain in order), never by names: a result stands only for
 * the very bytes it was made from. The trust store and the clock are the
 * run's, which is why the cache lives no longer than one run. Nothing per
 * device is kept here: the leaf rules, RootHash, the pin and the
 * measurements' signature are judged for each device every time.
 */
#ifndef TSMCTL_EVIDENCE_VERIFY_CACHE_H
#define TSMCTL_EVIDENCE_VERIFY_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/spdm-cert.h"

struct x509_store_st;

/* What X509_verify_cert() made of a chain (evidence-verify-chain.c). */
struct ev_path {
	int err, depth;
	struct x509_st *anchor;	/* a reference: the last certificate of the path it verified */
	bool above;		/* the anchor came from the store, above the first certificate */
	bool top;		/* the anchor stands in the first certificate's place (or above it) */
};

/* What was done and what was reused, for TSMCTL_DEBUG=evidence-stats and the tests. */
struct ev_cache_stats {
	unsigned long paths;		/* X509_verify_cert() runs */
	unsigned long path_hits;	/* chains whose path was known already */
	unsigned long signatures;	/* X509_verify() runs: one certificate under one key */
	unsigned long signature_hits;
};

struct ev_cache_entry;

struct ev_cache {
	const struct x509_store_st *store;	/* the run's trust store: the only one cached */
	struct ev_cache_entry *v;
	size_t n, cap;			/* cap a power of two, or 0 */
	struct ev_cache_stats stats;
	bool ready;
};

/* An empty cache for a run whose trust store is STORE (NULL: none). */
void ev_cache_init(struct ev_cache *c, const struct x509_store_st *store);
void ev_cache_release(struct ev_cache *c);

/*
 * Does SUBJECT's signature verify under ISSUER's key (X509_verify())? Once
 * per distinct pair of DER encodings; C NULL: every time.
 */
bool ev_cache_signed_by(struct ev_cache *c, const struct spdm_cert *issuer,
			const struct spdm_cert *subject);

/* Verifies CHAIN against STORE into P (P->anchor a new reference). */
typedef void ev_path_fn(const struct spdm_chain *chain, struct x509_store_st *store, bool partial,
			struct ev_path *p);

/*
 * CHAIN's path against STORE into P (P->anchor a new reference), VERIFY run
 * only for a chain whose exact certificates this run has not verified yet.
 * OWN: STORE holds only the chain's own first certificate (a pin's case),
 * else it must be the run's trust store to be cached. C NULL: every time.
 */
void ev_cache_path(struct ev_cache *c, const struct spdm_chain *chain, struct x509_store_st *store,
		   bool own, bool partial, ev_path_fn *verify, struct ev_path *p);

#endif
