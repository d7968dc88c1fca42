// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.chain: each slot's chain walked as DSP0274 and libspdm walk it
 * (doc/EVIDENCE.md). The certificates are in order, each signed by the one
 * before; then libcrypto's X509_verify_cert() checks exactly that path (the
 * chain's own certificates as untrusted intermediates, never searched for
 * first in the store, no alternative chains) up to a trust anchor that either
 * is the first certificate or signed it. The anchor it verified to is the
 * root: RootHash (evidence.root-hash) and --pin speak of it, never of the
 * first certificate as such. Then libspdm's leaf rules
 * (evidence-verify-leaf.c). --pin: a root the pin file holds is the one the
 * operator vouched for; a chain whose own root no trust anchor vouches for is
 * trust on first use (EV_RISK_FIRST_USE), its pin proposed, written only when
 * the decision that takes the risk succeeds (evidence-judge.h). The
 * certificate signatures and the paths go through the run's cache
 * (evidence-verify-cache.h): each distinct one is verified once a run.
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
#include "tsmctl/evidence-verify-cache.h"
#include "tsmctl/util.h"

#define ID	"evidence.chain"

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

/* Is the store's answer "I do not know this chain's root" (so a pin may)? */
static bool root_unknown(int err)
{
	return err == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN ||
	       err == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
	       err == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT;
}

/*
 * DSP0274's order: certificate I is signed by certificate I - 1 (names,
 * key identifiers and keyCertSign as X509_check_issued() matches them, and
 * the signature under I - 1's key). 0, or the first I that is not.
 */
static unsigned int order_break(const struct spdm_chain *c, struct ev_cache *cache)
{
	for (unsigned int i = 1; i < c->nr_certs; i++) {
		bool ok = X509_check_issued(c->certs[i - 1].x509, c->certs[i].x509) == X509_V_OK &&
			  ev_cache_signed_by(cache, &c->certs[i - 1], &c->certs[i]);

		ERR_clear_error();
		if (!ok)
			return i;
	}
	return 0;
}

/* The first certificate when it is a root: a self-signed CA (libspdm_is_root_certificate()). */
static const struct spdm_cert *own_root(const struct spdm_chain *c, struct ev_cache *cache)
{
	const struct spdm_cert *first = spdm_chain_first(c);

	return first->self_issued && first->ca && ev_cache_signed_by(cache, first, first) ? first : NULL;
}

/*
 * The path libcrypto built is the chain's own, leaf up: certificate I from
 * the leaf is certs[n - 1 - I]. Only the anchor may come from the store: in
 * the place of one of the chain's certificates (the store's copy), or above
 * the first one (a chain without its root).
 */
static bool path_is_ours(const struct spdm_chain *c, STACK_OF(X509) *built, struct ev_path *p)
{
	int len = sk_X509_num(built);
	unsigned int n = c->nr_certs;

	if (len < 1 || (unsigned int)len > n + 1)
		return false;
	for (int i = 0; i + 1 < len; i++)
		if (X509_cmp(sk_X509_value(built, i), c->certs[n - 1 - (unsigned int)i].x509))
			return false;
	p->above = (unsigned int)len == n + 1;
	p->top = (unsigned int)len >= n;
	return true;
}

/* X509_verify_cert() of chain C, exactly its path, against STORE into P: P->err 0 or its error. */
static void verify_path(const struct spdm_chain *c, X509_STORE *store, bool partial, struct ev_path *p)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	STACK_OF(X509) *untrusted = sk_X509_new_null();
	const struct spdm_cert *leaf = spdm_chain_leaf(c);
	X509_VERIFY_PARAM *param;
	int ok;

	memset(p, 0, sizeof(*p));
	if (!ctx || !untrusted)
		out_of_memory();
	for (unsigned int i = 0; i + 1 < c->nr_certs; i++)
		if (!sk_X509_push(untrusted, c->certs[i].x509))
			out_of_memory();
	if (!X509_STORE_CTX_init(ctx, store, leaf->x509, untrusted))
		out_of_memory();
	/* no other path when the chain's fails; the path built is checked to be the chain's */
	param = X509_STORE_CTX_get0_param(ctx);
	X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_NO_ALT_CHAINS |
				    (partial ? X509_V_FLAG_PARTIAL_CHAIN : 0));
	ok = X509_verify_cert(ctx);
	p->err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
	if (ok != 1 && p->err == X509_V_OK)
		p->err = X509_V_ERR_UNSPECIFIED;
	p->depth = X509_STORE_CTX_get_error_depth(ctx);
	if (!p->err) {
		STACK_OF(X509) *built = X509_STORE_CTX_get0_chain(ctx);

		if (!path_is_ours(c, built, p)) {
			p->err = X509_V_ERR_UNSPECIFIED;
			p->depth = -1;
		} else {
			p->anchor = sk_X509_value(built, sk_X509_num(built) - 1);
			X509_up_ref(p->anchor);
		}
	}
	X509_STORE_CTX_free(ctx);
	sk_X509_free(untrusted);
	ERR_clear_error();
}

/* The certificate a path error at DEPTH is about: depth 0 is the leaf, the last one. */
static const struct spdm_cert *at_depth(const struct spdm_chain *c, int depth)
{
	if (depth < 0 || (unsigned int)depth >= c->nr_certs)
		return spdm_chain_leaf(c);
	return &c->certs[c->nr_certs - 1 - (unsigned int)depth];
}

/* A store holding only CERT: the chain's own root, for a pin to vouch for. */
static X509_STORE *store_of(X509 *cert)
{
	X509_STORE *s = X509_STORE_new();

	if (!s || !X509_STORE_add_cert(s, cert))
		out_of_memory();
	return s;
}

/* X's DER, allocated. */
static uint8_t *der_of(X509 *x, size_t *len)
{
	unsigned char *der = NULL;
	int n = i2d_X509(x, &der);
	uint8_t *copy;

	if (n <= 0)
		out_of_memory();
	copy = xmalloc((size_t)n);
	memcpy(copy, der, (size_t)n);
	OPENSSL_free(der);
	*len = (size_t)n;
	return copy;
}

/* The root of slot K: its DER, where it came from; or why it is not known. */
static void set_root(struct ev_roots *roots, unsigned int k, X509 *x, const char *from,
		     char *why)
{
	struct ev_root *root = &roots->slot[k];

	if (x) {
		root->der = der_of(x, &root->der_len);
		root->from = from;
		free(why);
	} else {
		root->why = why;
	}
}

/*
 * The root a path verified to: its anchor when that stands in the first
 * certificate's place or above it, else (a partial chain's anchor below) the
 * chain's own root.
 */
static void root_of_path(const struct spdm_chain *c, const struct spdm_cert *own,
			 const struct ev_path *p, struct ev_roots *roots, unsigned int k)
{
	if (p->above)
		set_root(roots, k, p->anchor, "the trust anchor that signed the first certificate", NULL);
	else if (p->top)
		set_root(roots, k, p->anchor, X509_cmp(p->anchor, spdm_chain_first(c)->x509) ?
			 "the trust store's certificate in the first one's place" : EV_ROOT_IN_CHAIN,
			 NULL);
	else if (own)
		set_root(roots, k, own->x509, EV_ROOT_IN_CHAIN, NULL);
	else
		set_root(roots, k, NULL, NULL,
			 xasprintf("the chain verified to a trust anchor inside it and does not carry "
				   "its root (its first certificate, %s, is issued by %s)",
				   spdm_chain_first(c)->subject, spdm_chain_first(c)->issuer));
}

static void sha384_hex(X509 *x, char hex[97])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	size_t len;
	uint8_t *der = der_of(x, &len);
	char *h;

	if (!EVP_Digest(der, len, md, &n, EVP_sha384(), NULL))
		out_of_memory();
	h = ev_hex(md, n);
	memcpy(hex, h, 97);
	free(h);
	free(der);
}

/* "3 certificates, root CN=..., leaf CN=..., ec 384, valid until 2036-05-01" */
static char *describe(const struct spdm_chain *c, const struct ev_path *p)
{
	const struct spdm_cert *leaf = spdm_chain_leaf(c);
	char *subject = spdm_subject_text(p->anchor), *until = day(leaf->not_after);
	char *s;

	if (!subject)
		out_of_memory();
	s = xasprintf("%u certificate%s%s, root %s, leaf %s, %s %u, valid until %s",
		      c->nr_certs, c->nr_certs == 1 ? "" : "s",
		      p->above ? " and the root from the trust store" : "", subject, leaf->subject,
		      spdm_key_type_name(leaf->key_type), leaf->key_bits, until);
	free(subject);
	free(until);
	return s;
}

/* Why a chain whose root is not in it, and not in a store, cannot be verified. */
static void no_anchor(const struct spdm_chain *c, const struct ev_verify_opts *o, const char *obj,
		      struct ev_results *r)
{
	const struct spdm_cert *first = spdm_chain_first(c);

	ev_add(r, ID, obj, AUDIT_SKIP,
	       xasprintf("put the device vendor's root CA certificate (PEM) in %s, or name a store "
			 "with --trust FILE|DIR: --pin cannot vouch for a root the chain does not carry",
			 o->store_path),
	       EV_UNVERIFIABLE "the chain does not carry its root certificate (its first, %s, is "
	       "issued by %s) and no trust store holds it: %s %s", first->subject, first->issuer,
	       o->store_path, o->store ? "does not" : o->store_missing ? o->store_missing :
	       "was not given");
}

/*
 * The pin's word once the path verified: a pass, a change (fail) or a first
 * use (a proposal, and EV_RISK_FIRST_USE when no trust anchor vouched).
 */
static void judge_pin(const struct ev_decoded *d, const struct ev_verify_opts *o, unsigned int k,
		      const struct ev_path *p, bool own, struct ev_results *r)
{
	const struct spdm_chain *c = &d->chain[k];
	const char *obj = evidence_type_name(k);
	const struct ev_pin *pin = o->pins ? ev_pin_find(o->pins, d->set->bdf, k) : NULL;
	char hex[97], *what = describe(c, p);

	sha384_hex(p->anchor, hex);
	if (pin && !streq(pin->sha384, hex))
		ev_add(r, ID, obj, AUDIT_FAIL,
		       xasprintf("the device (or its certificate authority) is not the one seen "
				 "before: if that is expected, remove its line from %s", o->pins->path),
		       "the root changed since it was pinned in %s: SHA-384 %.16s..., pinned %.16s... "
		       "(%s)", o->pins->path, hex, pin->sha384, what);
	else if (pin && own)
		ev_add(r, ID, obj, AUDIT_PASS, NULL, "verified to the root pinned in %s (%s)",
		       o->pins->path, what);
	else if (own)
		ev_add_risk(r, ID, obj, EV_RISK_FIRST_USE,
			    xasprintf("compare the root's SHA-384 with the vendor's (tsmctl evidence "
				      "%s -v lists the chain): a decision that takes this first use "
				      "pins it in %s, and later reads must match it; or put the "
				      "vendor's root CA in the trust store", d->set->bdf, o->pins->path),
			    "trust on first use: verified to its own root, which no trust anchor "
			    "issued and %s does not hold yet; it would be pinned there (SHA-384 "
			    "%.16s...) (%s)", o->pins->path, hex, what);
	else
		ev_add(r, ID, obj, AUDIT_PASS, NULL, "verified against %s (%s)%s%s%s", o->store_path,
		       what, !o->pins ? "" : pin ? "; root is the one pinned in " :
		       "; the root is not pinned yet: pinned in ", o->pins ? o->pins->path : "",
		       o->pins && !pin ? " once this decision succeeds" : "");
	if (!pin && o->pins)
		ev_pin_propose(o->pins, d->set->bdf, k, hex);
	free(what);
}

/* Verify against the trust store, or a pin's ROOT (the chain's own): into P, OWN set when the latter. */
static bool verify_anchored(const struct spdm_chain *c, const struct spdm_cert *root,
			    const struct ev_verify_opts *o, struct ev_path *p, bool *own)
{
	X509_STORE *s;

	*own = false;
	if (o->store) {
		ev_cache_path(o->cache, c, o->store, false, o->partial_chain, verify_path, p);
		if (!p->err || !root_unknown(p->err) || !o->pins || !root)
			return true;
		X509_free(p->anchor);
	}
	if (!o->pins || !root)
		return false;
	/* the store does not know the root: the chain's own root, for the pin to judge */
	s = store_of(root->x509);
	ev_cache_path(o->cache, c, s, true, false, verify_path, p);
	X509_STORE_free(s);
	*own = true;
	return true;
}

/* The chain's own root for evidence.root-hash when no path verified, or why there is none. */
static void root_unverified(const struct spdm_cert *root, struct ev_roots *roots, unsigned int k,
			    const char *why)
{
	set_root(roots, k, root ? root->x509 : NULL, EV_ROOT_IN_CHAIN,
		 root ? NULL : xasprintf("the chain does not carry its root certificate, and %s", why));
}

static void check_slot(const struct ev_decoded *d, const struct ev_verify_opts *o, unsigned int k,
		       struct ev_results *r, struct ev_roots *roots)
{
	const struct spdm_chain *c = &d->chain[k];
	const char *obj = evidence_type_name(k);
	const struct spdm_cert *bad, *own_first;
	unsigned int brk = order_break(c, o->cache);
	struct ev_path p = { 0 };
	char *misuse;
	bool own;

	if (brk) {
		ev_add(r, ID, obj, AUDIT_FAIL,
		       xstrdup("the chain is not one path from a root to the leaf: a certificate was "
			       "inserted, dropped or moved; do not trust the device"),
		       "certificate %u (%s) is not signed by certificate %u (%s) before it: DSP0274 "
		       "orders a chain from its root (or one the root signed) to the leaf, each "
		       "certificate signed by the one before", brk, c->certs[brk].subject, brk - 1,
		       c->certs[brk - 1].subject);
		set_root(roots, k, NULL, NULL, xstrdup("the chain is out of order"));
		return;
	}
	misuse = ev_leaf_misuse(d, k);
	own_first = own_root(c, o->cache);
	if (!o->store && !o->pins) {
		if (misuse)
			ev_add(r, ID, obj, AUDIT_FAIL, NULL, "%s", misuse);
		else
			ev_add(r, ID, obj, AUDIT_SKIP,
			       xasprintf("put the device vendors' root CA certificates (PEM) in %s, or "
					 "name a store with --trust FILE|DIR; --pin FILE trusts the first "
					 "root seen", o->store_path), "no trust store: %s %s",
			       o->store_path, o->store_missing ? o->store_missing : "was not given");
		root_unverified(own_first, roots, k, "there is no trust store to find it in");
	} else if (!verify_anchored(c, own_first, o, &p, &own)) {
		if (misuse)
			ev_add(r, ID, obj, AUDIT_FAIL, NULL, "%s", misuse);
		else
			no_anchor(c, o, obj, r);
		root_unverified(own_first, roots, k, "no trust store holds it");
	} else if (p.err) {
		bad = at_depth(c, p.depth);
		ev_add(r, ID, obj, AUDIT_FAIL, error_hint(p.err, o, bad), "%s (certificate %s)%s%s",
		       p.depth < 0 ? "libcrypto verified another path than the chain's own" :
		       X509_verify_cert_error_string(p.err), bad->subject, misuse ? "; " : "",
		       misuse ? misuse : "");
		root_unverified(own_first, roots, k, "it did not verify to one");
	} else {
		root_of_path(c, own_first, &p, roots, k);
		if (misuse)
			ev_add(r, ID, obj, AUDIT_FAIL, NULL, "%s", misuse);
		else
			judge_pin(d, o, k, &p, own, r);
	}
	free(misuse);
	X509_free(p.anchor);
}

void ev_check_chains(const struct ev_decoded *d, const struct ev_verify_opts *o,
		     struct ev_results *r, struct ev_roots *roots)
{
	unsigned int seen = 0;

	memset(roots, 0, sizeof(*roots));
	for (unsigned int k = 0; k < EV_NR_SLOTS; k++) {
		if (!d->chain_part[k].present)
			continue;
		seen++;
		if (ev_parent_ok(d, k, r, ID, evidence_type_name(k)))
			check_slot(d, o, k, r, roots);
	}
	if (!seen)
		ev_add(r, ID, "certificates", AUDIT_SKIP,
		       xstrdup("a device that authenticates with SPDM hands out at least slot 0's chain"),
		       EV_UNVERIFIABLE "every certificate slot is empty");
}

void ev_roots_release(struct ev_roots *roots)
{
	for (unsigned int k = 0; k < EV_NR_SLOTS; k++) {
		free(roots->slot[k].der);
		free(roots->slot[k].why);
	}
	memset(roots, 0, sizeof(*roots));
}
