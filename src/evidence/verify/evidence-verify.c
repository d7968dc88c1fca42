// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verification engine (evidence-verify.h): ev_verify() runs the checks in
 * the table's order, and the checks that need nothing but the decoded
 * objects are here: evidence.decode, evidence.root-hash, evidence.algorithms
 * and evidence.generation. The chain, signature, measurement, report and
 * binding checks are in evidence-verify-{chain,sig,meas,report,binding}.c;
 * the table and the results in evidence-verify-result.c, which every check
 * calls and which calls none.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "evidence-verify-int.h"
#include "tsmctl/evidence-reference.h"
#include "tsmctl/util.h"

/* ---- evidence.decode ---- */

static char *part_summary(const struct ev_decoded *d, unsigned int type)
{
	if (type < EV_NR_SLOTS) {
		const struct spdm_chain *c = &d->chain[type];

		return xasprintf("%u certificate%s, %s", c->nr_certs, c->nr_certs == 1 ? "" : "s",
				 c->form == SPDM_CHAIN_HEADER ? "with the DSP0274 header" :
				 "bare DER (no DSP0274 header)");
	}
	if (type == EV_VCA_TYPE)
		return xasprintf("SPDM %u.%u negotiated in six messages", d->vca.version >> 4,
				 d->vca.version & 15);
	if (type == EV_MEAS_TYPE)
		return xasprintf("%u measurement block%s, %s%s", d->meas->nr_blocks,
				 d->meas->nr_blocks == 1 ? "" : "s",
				 d->meas->sig == SPDM_SIG_PRESENT ? "signed" :
				 d->meas->sig == SPDM_SIG_NONE ? "unsigned" :
				 "followed by bytes no negotiated algorithm delimits",
				 d->tx.form == SPDM_TX_TRANSCRIPT ? ", in a transcript with its VCA" :
				 d->tx.form == SPDM_TX_EXCHANGE ? ", after its GET_MEASUREMENTS" : "");
	return xasprintf("%u MMIO range%s%s", d->report.nr_ranges, d->report.nr_ranges == 1 ? "" : "s",
			 d->report.form == TDISP_FORM_RESPONSE ? ", in its TDISP response message" : "");
}

static void check_decode(const struct ev_decoded *d, struct ev_results *r)
{
	unsigned int seen = 0;

	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++) {
		const struct ev_part *p = ev_decoded_part(d, t);
		char why[EV_WHY_SIZE + 64], *sum;

		if (!p->present)
			continue;
		seen++;
		if (p->rc) {
			ev_add(r, "evidence.decode", evidence_type_name(t), AUDIT_FAIL, NULL, "%s",
			       ev_error_str(&p->err, why, sizeof(why)));
			continue;
		}
		sum = part_summary(d, t);
		ev_add(r, "evidence.decode", evidence_type_name(t), AUDIT_PASS, NULL,
		       "well-formed: %s", sum);
		free(sum);
	}
	if (!seen)
		ev_add(r, "evidence.decode", "evidence", AUDIT_SKIP,
		       xstrdup("read the evidence of a connected DSM (host) or a locked TDI (guest)"),
		       "every object is empty: there is nothing to verify");
}

/* ---- evidence.root-hash ---- */

/* The digest of P under OpenSSL's MD name into OUT; its length, 0 when unavailable. */
static unsigned int digest_of(const char *md_name, const uint8_t *p, size_t n, uint8_t *out)
{
	EVP_MD *md = EVP_MD_fetch(NULL, md_name, NULL);
	unsigned int len = 0;

	if (!md || !EVP_Digest(p, n, out, &len, md, NULL))
		len = 0;
	EVP_MD_free(md);
	return len;
}

/* Hash algorithms by digest size, for a chain read without the VCA. */
static const char *const candidates[][2] = {
	{ "sha256", "SHA256" }, { "sha3_256", "SHA3-256" }, { "sm3_256", "SM3" },
	{ "sha384", "SHA384" }, { "sha3_384", "SHA3-384" },
	{ "sha512", "SHA512" }, { "sha3_512", "SHA3-512" },
};

/* "; the root is ..." when the root is not the chain's first certificate, else "". */
static const char *root_from(const struct ev_root *root)
{
	return root->from && !streq(root->from, EV_ROOT_IN_CHAIN) ? "; the root is " : "";
}

static void root_hash_without_vca(const struct spdm_chain *c, const struct ev_root *root,
				  const char *obj, struct ev_results *r)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	char *fits = NULL;

	for (unsigned int i = 0; i < 3; i++)
		if (c->root_hash_fits & (1u << i))
			str_join(&fits, ", ", "%u", i == 0 ? 32 : i == 1 ? 48 : 64);
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		if (digest_of(candidates[i][1], root->der, root->der_len, md) != c->root_hash_len ||
		    memcmp(md, c->root_hash, c->root_hash_len))
			continue;
		ev_add(r, "evidence.root-hash", obj, AUDIT_PASS, NULL,
		       "without the VCA the hash algorithm is not known: the %zu-byte RootHash is the "
		       "root certificate's %s (header lengths that fitted: %s)%s%s", c->root_hash_len,
		       candidates[i][0], fits, root_from(root), root_from(root)[0] ? root->from : "");
		free(fits);
		return;
	}
	ev_add(r, "evidence.root-hash", obj, AUDIT_FAIL, NULL,
	       "the %zu-byte RootHash is no digest of the root certificate (no VCA: tried every "
	       "%zu-byte DSP0274 hash; header lengths that fitted: %s)%s%s", c->root_hash_len,
	       c->root_hash_len, fits, root_from(root), root_from(root)[0] ? root->from : "");
	free(fits);
}

/*
 * DSP0274's RootHash is the digest of the root certificate: the first one
 * when it is the root, else the one that signed it, which only the trust
 * anchor the chain verified to can be (evidence.chain found it).
 */
void ev_check_root_hash(const struct ev_decoded *d, const struct ev_roots *roots,
			struct ev_results *r)
{
	const struct spdm_hash_alg *hash = ev_vca_ok(d) ? spdm_vca_hash(&d->vca) : NULL;

	for (unsigned int k = 0; k < EV_NR_SLOTS; k++) {
		const struct spdm_chain *c = &d->chain[k];
		const struct ev_root *root = &roots->slot[k];
		const char *obj = evidence_type_name(k);
		uint8_t md[EVP_MAX_MD_SIZE];
		char *got, *want;

		if (!d->chain_part[k].present || !ev_parent_ok(d, k, r, "evidence.root-hash", obj))
			continue;
		if (c->form == SPDM_CHAIN_BARE) {
			ev_add(r, "evidence.root-hash", obj, AUDIT_SKIP,
			       xstrdup("a provider that hands out the DSP0274 CERT_CHAIN whole lets the "
				       "root hash be checked"),
			       EV_UNVERIFIABLE "the chain came without its DSP0274 header, so it "
			       "carries no RootHash");
			continue;
		}
		if (!root->der) {
			ev_add(r, "evidence.root-hash", obj, AUDIT_SKIP,
			       xstrdup("a trust store holding the vendor's root CA (--trust) lets the "
				       "root certificate be known"),
			       EV_UNVERIFIABLE "the root certificate is not known: %s", root->why);
			continue;
		}
		if (!hash) {
			root_hash_without_vca(c, root, obj, r);
			continue;
		}
		if (digest_of(hash->md, root->der, root->der_len, md) == c->root_hash_len &&
		    !memcmp(md, c->root_hash, c->root_hash_len)) {
			ev_add(r, "evidence.root-hash", obj, AUDIT_PASS, NULL,
			       "RootHash is the root certificate's %s (negotiated BaseHashAlgo)%s%s",
			       hash->name, root_from(root), root_from(root)[0] ? root->from : "");
			continue;
		}
		got = ev_hex(c->root_hash, c->root_hash_len);
		want = ev_hex(md, hash->size);
		ev_add(r, "evidence.root-hash", obj, AUDIT_FAIL, NULL,
		       "RootHash %s is not the root certificate's %s %s%s%s", got, hash->name, want,
		       root_from(root), root_from(root)[0] ? root->from : "");
		free(got);
		free(want);
	}
}

/* ---- evidence.algorithms ---- */

/* Does the certificate's key make the signatures ASYM names? NULL, or why not. */
static char *key_misfit(const struct spdm_cert *leaf, const struct spdm_asym_alg *asym)
{
	bool kind = leaf->key_type == asym->key ||
		    (asym->key == SPDM_KEY_RSA && leaf->key_type == SPDM_KEY_RSA_PSS &&
		     strstr(asym->name, "rsapss"));

	if (kind && leaf->key_bits == asym->key_bits &&
	    (!asym->group || streq(leaf->key_group, asym->group)))
		return NULL;
	return xasprintf("the leaf's key is %s %u%s%s, the negotiated BaseAsymAlgo %s needs %s %u%s%s",
			 spdm_key_type_name(leaf->key_type), leaf->key_bits,
			 *leaf->key_group ? " " : "", leaf->key_group, asym->name,
			 spdm_key_type_name(asym->key), asym->key_bits, asym->group ? " " : "",
			 asym->group ? asym->group : "");
}

/* The names the reference does not allow, "; "-joined, or NULL. */
static char *disallowed(const struct ev_decoded *d, const struct ev_reference *ref)
{
	const struct spdm_hash_alg *h = spdm_vca_hash(&d->vca), *mh = spdm_vca_meas_hash(&d->vca);
	const struct spdm_asym_alg *a = spdm_vca_asym(&d->vca);
	char *bad = NULL;

	if (!ref)
		return NULL;
	if (a && !ev_ref_allows(&ref->base_asym, a->name))
		str_join(&bad, "; ", "BaseAsymAlgo %s is not among the reference's", a->name);
	if (h && !ev_ref_allows(&ref->base_hash, h->name))
		str_join(&bad, "; ", "BaseHashAlgo %s is not among the reference's", h->name);
	if (mh && !ev_ref_allows(&ref->meas_hash, mh->name))
		str_join(&bad, "; ", "MeasurementHashAlgo %s is not among the reference's", mh->name);
	return bad;
}

void ev_check_algorithms(const struct ev_decoded *d, const struct ev_verify_opts *o,
			 struct ev_results *r)
{
	const struct spdm_asym_alg *asym;
	const struct spdm_hash_alg *hash;
	unsigned int slot = 0;
	char *misfit, *bad;

	if (!d->vca_part.present) {
		ev_add(r, "evidence.algorithms", "vca", AUDIT_SKIP,
		       xstrdup("a provider that hands out the VCA transcript lets the algorithms be "
			       "checked"),
		       EV_UNVERIFIABLE "the VCA transcript is empty, so the negotiated algorithms "
		       "are not known");
		return;
	}
	if (!ev_parent_ok(d, EV_VCA_TYPE, r, "evidence.algorithms", "vca"))
		return;
	asym = spdm_vca_asym(&d->vca);
	hash = spdm_vca_hash(&d->vca);
	/* the slot that signed the measurements, else slot 0 (the one the kernel's TSMs use) */
	if (d->meas_part.present && !d->meas_part.rc && d->meas->sig == SPDM_SIG_PRESENT)
		slot = d->meas->slot_id;
	bad = disallowed(d, o->ref);
	if (!asym) {
		ev_add(r, "evidence.algorithms", "vca", bad ? AUDIT_FAIL : AUDIT_WARN, NULL,
		       "no BaseAsymAlgo was selected: the device signs nothing%s%s",
		       bad ? "; " : "", bad ? bad : "");
	} else if (slot >= EV_NR_SLOTS || !d->chain_part[slot].present) {
		ev_add(r, "evidence.algorithms", "vca", bad ? AUDIT_FAIL : AUDIT_SKIP, NULL,
		       "%s%s" EV_UNVERIFIABLE "slot %u, whose key signs, has no certificate chain",
		       bad ? bad : "", bad ? "; " : "", slot);
	} else if (d->chain_part[slot].rc) {
		ev_parent_ok(d, slot, r, "evidence.algorithms", "vca");
	} else if ((misfit = key_misfit(spdm_chain_leaf(&d->chain[slot]), asym)) || bad) {
		ev_add(r, "evidence.algorithms", "vca", AUDIT_FAIL, NULL, "%s%s%s",
		       misfit ? misfit : "", misfit && bad ? "; " : "", bad ? bad : "");
		free(misfit);
	} else {
		ev_add(r, "evidence.algorithms", "vca", AUDIT_PASS, NULL,
		       "SPDM %u.%u: %s with the %s %u key of slot %u's leaf, %s%s%s%s", d->vca.version >> 4,
		       d->vca.version & 15, asym->name, spdm_key_type_name(asym->key), asym->key_bits,
		       slot, hash ? hash->name : "no BaseHashAlgo",
		       spdm_vca_meas_hash(&d->vca) ? ", measurements " : "",
		       spdm_vca_meas_hash(&d->vca) ? spdm_vca_meas_hash(&d->vca)->name : "",
		       o->ref ? "; all allowed by the reference" : "");
	}
	free(bad);
}

/* ---- evidence.generation ---- */

/*
 * What the measurements' signature says of the nonce sent: only a signature
 * over a request that carried it shows the evidence was made for this read.
 */
static void judge_nonce(const struct evidence_set *s, const struct ev_verify_opts *o,
			const struct ev_sig_verdict *v, struct ev_results *r)
{
	if (v->nonce_mismatch)
		ev_add(r, "evidence.generation", "nonce", AUDIT_FAIL, NULL,
		       "the transcript's GET_MEASUREMENTS carries another nonce than the one sent: "
		       "the evidence was made for another request (evidence.signature)");
	else if (v->status == AUDIT_PASS && v->over_nonce && o->live)
		ev_add(r, "evidence.generation", "nonce", AUDIT_PASS, NULL,
		       "the measurements are signed over the %zu-byte nonce this reader sent: made "
		       "for this read", s->nonce_len);
	else if (v->status == AUDIT_PASS && v->over_nonce)
		ev_add_risk(r, "evidence.generation", "nonce", EV_RISK_NOT_FRESH,
			    xstrdup("read the evidence live with --fresh to have it made for this read"),
			    "the measurements are signed over the nonce the saved manifest records; "
			    "a saved directory cannot show who sent it, or when");
	else if (v->status == AUDIT_SKIP && v->risk == EV_RISK_UNSIGNED)
		ev_add_risk(r, "evidence.generation", "nonce", EV_RISK_UNSIGNED, NULL,
			    EV_UNVERIFIABLE "only the measurements' signature binds the nonce, and "
			    "it cannot be checked here (evidence.signature)");
	else
		ev_add(r, "evidence.generation", "nonce", AUDIT_SKIP, NULL,
		       "not shown: the measurements' signature does not vouch for the nonce sent "
		       "(evidence.signature)");
}

static void check_generation(const struct ev_decoded *d, const struct ev_verify_opts *o,
			     struct ev_results *r, const struct ev_sig_verdict *v)
{
	const struct evidence_set *s = d->set;
	long long g = evset_generation(s), lo = -1, hi = -1;
	unsigned int n = 0;

	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++) {
		if (!s->obj[t].present)
			continue;
		n++;
		lo = lo < 0 || s->obj[t].generation < lo ? s->obj[t].generation : lo;
		hi = s->obj[t].generation > hi ? s->obj[t].generation : hi;
	}
	if (!n)
		ev_add(r, "evidence.generation", "evidence", AUDIT_SKIP, NULL, "no object was read");
	else if (g < 0)
		ev_add(r, "evidence.generation", "evidence", AUDIT_FAIL, NULL,
		       "the objects are of generations %lld to %lld: %s", lo, hi,
		       s->from_dir ? "the directory mixes reads" : "they were not read in one dump");
	else
		ev_add(r, "evidence.generation", "evidence", AUDIT_PASS, NULL,
		       "%s %u object%s %s of generation %lld%s", n == 1 ? "its" : "all", n,
		       n == 1 ? "" : "s", n == 1 ? "is" : "are", g,
		       s->from_dir ? " (as the saved manifest records)" : ", read in one dump");
	if (!s->nonce_len) {
		ev_add_risk(r, "evidence.generation", "nonce", EV_RISK_NOT_FRESH,
			    xstrdup("--fresh (or --nonce) has the provider refresh the evidence for "
				    "a nonce of this reader's"),
			    "no nonce was sent: the evidence is as old as generation %lld, and a "
			    "replay of older evidence is not excluded", g);
		return;
	}
	if (!o->live || s->generation_before < 0)
		ev_add(r, "evidence.generation", "refresh", AUDIT_SKIP, NULL,
		       EV_UNVERIFIABLE "%s", s->from_dir ?
		       "a saved directory does not record the generation before the nonce's refresh" :
		       "the generation before the refresh was not read");
	else if (g > s->generation_before)
		ev_add(r, "evidence.generation", "refresh", AUDIT_PASS, NULL,
		       "the nonce refreshed the evidence: generation %lld before, %lld after",
		       s->generation_before, g);
	else
		ev_add(r, "evidence.generation", "refresh", AUDIT_FAIL, NULL,
		       "a nonce was sent but the generation did not move (%lld before, %lld after)",
		       s->generation_before, g);
	judge_nonce(s, o, v, r);
}

void ev_verify(const struct ev_decoded *d, const struct ev_verify_opts *o, struct ev_results *r)
{
	struct ev_sig_verdict sig;
	struct ev_roots roots;

	memset(r, 0, sizeof(*r));
	check_decode(d, r);
	ev_check_chains(d, o, r, &roots);
	ev_check_root_hash(d, &roots, r);
	ev_roots_release(&roots);
	ev_check_algorithms(d, o, r);
	ev_check_signature(d, o, r, &sig);
	ev_check_measurements(d, o, r);
	ev_check_report(d, o, r);
	ev_check_binding(d, r);
	check_generation(d, o, r, &sig);
}
