// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.chain: each slot's chain through libcrypto's X509_verify_cert()
 * against the trust store (the chain's own certificates as untrusted
 * intermediates, the current time, CA constraints; X509_V_FLAG_PARTIAL_CHAIN
 * only when asked), then the SPDM leaf rules of DSP0274 ("Leaf certificate"):
 * an extendedKeyUsage, when present, names id-DMTF-eku-responder-auth, and a
 * keyUsage, when present, allows digitalSignature. --pin compares the root
 * certificate's SHA-384 with the one recorded at first use.
 */
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "evidence-verify-int.h"
#include "tsmctl/evidence-trust.h"
#include "tsmctl/util.h"

/* "2036-05-01" */
static char *day(int64_t t)
{
	return ev_time_text(t, true);
}

/* The advice for a verification error: what the administrator can do about it. */
static char *error_hint(int err, const struct ev_verify_opts *o, const struct spdm_cert *bad)
{
	char *when, *h;

	switch (err) {
	case X509_V_ERR_CERT_HAS_EXPIRED:
		when = day(bad->not_after);
		h = xasprintf("the certificate expired on %s: the vendor must provision the device "
			      "anew (or this machine's clock is wrong)", when);
		free(when);
		return h;
	case X509_V_ERR_CERT_NOT_YET_VALID:
		when = day(bad->not_before);
		h = xasprintf("the certificate is valid only from %s: check this machine's clock", when);
		free(when);
		return h;
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
		return xasprintf("no trust anchor in %s issued this chain: add the vendor's root CA "
				 "(PEM) if the device is the vendor's, else do not trust it",
				 o->store_path);
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
		return xstrdup("the device's certificate signs itself: it proves nothing about who made "
			       "the device");
	default:
		return NULL;
	}
}

/* DSP0274's leaf rules after libcrypto verified the path: NULL, or what is wrong. */
static char *leaf_misuse(const struct spdm_cert *leaf)
{
	uint32_t ku = X509_get_key_usage(leaf->x509);
	bool has_eku = X509_get_ext_by_NID(leaf->x509, NID_ext_key_usage, -1) >= 0;

	if (has_eku && !leaf->eku_responder_auth)
		return xstrdup("the leaf's extendedKeyUsage lacks id-DMTF-eku-responder-auth "
			       "(1.3.6.1.4.1.412.274.3): it may not authenticate an SPDM responder");
	if (ku != UINT32_MAX && !(ku & KU_DIGITAL_SIGNATURE))
		return xstrdup("the leaf's keyUsage lacks digitalSignature");
	if (leaf->ca)
		return xstrdup("the leaf is a CA certificate (basicConstraints cA)");
	return NULL;
}

/* X509_verify_cert() of chain C against STORE: 0, or its error with *DEPTH. */
static int verify_path(const struct spdm_chain *c, X509_STORE *store, bool partial, int *depth)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	STACK_OF(X509) *untrusted = sk_X509_new_null();
	const struct spdm_cert *leaf = spdm_chain_leaf(c);
	int ok, err;

	if (!ctx || !untrusted)
		out_of_memory();
	for (unsigned int i = 0; i + 1 < c->nr_certs; i++)
		if (!sk_X509_push(untrusted, c->certs[i].x509))
			out_of_memory();
	if (!X509_STORE_CTX_init(ctx, store, leaf->x509, untrusted))
		out_of_memory();
	if (partial)
		X509_STORE_CTX_set_flags(ctx, X509_V_FLAG_PARTIAL_CHAIN);
	ok = X509_verify_cert(ctx);
	err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
	if (ok != 1 && err == X509_V_OK)
		err = X509_V_ERR_UNSPECIFIED;
	*depth = X509_STORE_CTX_get_error_depth(ctx);
	X509_STORE_CTX_free(ctx);
	sk_X509_free(untrusted);
	ERR_clear_error();
	return err;
}

/* The certificate a path error at DEPTH is about: depth 0 is the leaf, the last one. */
static const struct spdm_cert *at_depth(const struct spdm_chain *c, int depth)
{
	if (depth < 0 || (unsigned int)depth >= c->nr_certs)
		return spdm_chain_leaf(c);
	return &c->certs[c->nr_certs - 1 - (unsigned int)depth];
}

/* A store holding only the chain's root, for a pinned root without a trust store. */
static X509_STORE *root_store(const struct spdm_chain *c)
{
	X509_STORE *s = X509_STORE_new();

	if (!s || !X509_STORE_add_cert(s, spdm_chain_root(c)->x509))
		out_of_memory();
	return s;
}

static void root_sha384(const struct spdm_chain *c, char hex[97])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	char *h;

	if (!EVP_Digest(spdm_chain_root(c)->der, spdm_chain_root(c)->der_len, md, &n, EVP_sha384(), NULL))
		out_of_memory();
	h = ev_hex(md, n);
	memcpy(hex, h, 97);
	free(h);
}

/*
 * The pin's word on slot K: 1 matches, 0 first use (recorded now), -1 changed
 * (*MSG says from what). No --pin: 2.
 */
static int pin_state(const struct ev_decoded *d, const struct ev_verify_opts *o, unsigned int k,
		     char **msg)
{
	const struct spdm_chain *c = &d->chain[k];
	const struct ev_pin *pin;
	char hex[97];

	if (!o->pins)
		return 2;
	root_sha384(c, hex);
	pin = ev_pin_find(o->pins, d->set->bdf, k);
	if (!pin) {
		ev_pin_add(o->pins, d->set->bdf, k, hex);
		*msg = xasprintf("root pinned on first use in %s (SHA-384 %.16s...)", o->pins->path, hex);
		return 0;
	}
	if (streq(pin->sha384, hex)) {
		*msg = xasprintf("root is the one pinned in %s", o->pins->path);
		return 1;
	}
	*msg = xasprintf("the root changed since it was pinned in %s: SHA-384 %.16s..., pinned "
			 "%.16s...", o->pins->path, hex, pin->sha384);
	return -1;
}

static void check_slot(const struct ev_decoded *d, const struct ev_verify_opts *o, unsigned int k,
		       struct ev_results *r)
{
	const struct spdm_chain *c = &d->chain[k];
	const char *obj = evidence_type_name(k);
	const struct spdm_cert *leaf = spdm_chain_leaf(c), *bad;
	X509_STORE *store = o->store;
	char *pin_msg = NULL, *misuse, *until, *anchor;
	int pin, err, depth = -1;

	if (!store && !o->pins) {
		ev_add(r, "evidence.chain", obj, AUDIT_SKIP,
		       xasprintf("put the device vendors' root CA certificates (PEM) in %s, or name a "
				 "store with --trust FILE|DIR; --pin FILE trusts the first root seen",
				 o->store_path), "no trust store: %s %s", o->store_path,
		       o->store_missing ? o->store_missing : "was not given");
		return;
	}
	pin = pin_state(d, o, k, &pin_msg);
	if (pin < 0) {
		ev_add(r, "evidence.chain", obj, AUDIT_FAIL,
		       xasprintf("the device (or its certificate authority) is not the one seen "
				 "before: if that is expected, remove its line from %s", o->pins->path),
		       "%s", pin_msg);
		free(pin_msg);
		return;
	}
	/* a pin without a trust store: the pinned root is the trust anchor */
	if (!store)
		store = root_store(c);
	err = verify_path(c, store, o->partial_chain, &depth);
	if (store != o->store)
		X509_STORE_free(store);
	if (err) {
		bad = at_depth(c, depth);
		ev_add(r, "evidence.chain", obj, AUDIT_FAIL, error_hint(err, o, bad),
		       "%s (certificate %s)%s%s", X509_verify_cert_error_string(err), bad->subject,
		       pin_msg ? "; " : "", pin_msg ? pin_msg : "");
	} else if ((misuse = leaf_misuse(leaf))) {
		ev_add(r, "evidence.chain", obj, AUDIT_FAIL, NULL, "%s", misuse);
		free(misuse);
	} else {
		until = day(leaf->not_after);
		anchor = o->store ? xasprintf("verified against %s", o->store_path) :
			 xstrdup("verified to its own root");
		ev_add(r, "evidence.chain", obj, pin == 0 && !o->store ? AUDIT_WARN : AUDIT_PASS,
		       pin == 0 && !o->store ?
		       xstrdup("trust on first use: compare the root's SHA-384 with the vendor's once, "
			       "then later reads are checked against it") : NULL,
		       "%s (%u certificates, root %s, leaf %s, %s %u, valid until %s)%s%s", anchor,
		       c->nr_certs, spdm_chain_root(c)->subject, leaf->subject,
		       spdm_key_type_name(leaf->key_type), leaf->key_bits, until,
		       pin_msg ? "; " : "", pin_msg ? pin_msg : "");
		free(until);
		free(anchor);
	}
	free(pin_msg);
}

void ev_check_chains(const struct ev_decoded *d, const struct ev_verify_opts *o,
		     struct ev_results *r)
{
	unsigned int seen = 0;

	for (unsigned int k = 0; k < EV_NR_SLOTS; k++) {
		if (!d->chain_part[k].present)
			continue;
		seen++;
		if (ev_parent_ok(d, k, r, "evidence.chain", evidence_type_name(k)))
			check_slot(d, o, k, r);
	}
	if (!seen)
		ev_add(r, "evidence.chain", "certificates", AUDIT_SKIP,
		       xstrdup("a device that authenticates with SPDM hands out at least slot 0's chain"),
		       EV_UNVERIFIABLE "every certificate slot is empty");
}
