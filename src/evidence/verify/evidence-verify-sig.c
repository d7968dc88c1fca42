// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.signature: the MEASUREMENTS response's signature checked with the
 * leaf key of the slot its Param2 names (DSP0274 "MEASUREMENTS signature",
 * ABI.md §1.7), over the L1 the object carries or, for a bare response,
 * over the GET_MEASUREMENTS requests the nonce this reader sent rebuilds.
 * What it proves of that nonce is left in a verdict for evidence.generation.
 *
 * Trying several rebuilt requests cannot make a forgery pass: each one
 * carries the nonce sent, and the response's bytes are signed as they are
 * in every one, so whichever verifies proves that the key's holder signed
 * this very response in answer to this nonce. The candidates differ only in
 * fields that prove nothing here (which blocks were asked for, whether a
 * 1.3 request carried the context the response echoes anyway).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/x509.h>

#include "evidence-verify-int.h"
#include "tsmctl/spdm-sig.h"
#include "tsmctl/util.h"

#define ID		"evidence.signature"
#define OBJ		"measurements"
#define MEAS_CAP(flags)	(((flags) >> 3) & 3)	/* CAPABILITIES bits 4:3: 1 unsigned, 2 signed */
#define MEAS_CAP_SIG	2

/* What the check found out, for its one result and for the verdict. */
struct sig_ctx {
	const struct ev_decoded *d;
	const struct spdm_vca *vca;	/* the negotiation: the transcript's, else the object's */
	const uint8_t *vca_bytes;
	size_t vca_len;
	uint8_t nonce[SPDM_NONCE_SIZE];	/* the nonce sent, zero-padded as a request carries it */
	bool has_nonce;
	const struct spdm_cert *leaf;
	unsigned int slot;
	struct ev_sig_verdict *v;
	struct ev_results *r;
};

static void verdict(struct sig_ctx *c, enum audit_status st, enum ev_risk risk)
{
	c->v->status = st;
	c->v->risk = risk;
}

static void skip_unsigned(struct sig_ctx *c, char *hint, const char *why)
{
	ev_add_risk(c->r, ID, OBJ, EV_RISK_UNSIGNED, hint, EV_UNVERIFIABLE "%s", why);
	verdict(c, AUDIT_SKIP, EV_RISK_UNSIGNED);
}

static void fail(struct sig_ctx *c, const char *why)
{
	ev_add(c->r, ID, OBJ, AUDIT_FAIL, NULL, "%s", why);
	verdict(c, AUDIT_FAIL, EV_RISK_NONE);
}

/* The VCA the signature's L1 starts with: the transcript's own, else the vca object. */
static bool pick_vca(struct sig_ctx *c)
{
	const struct ev_decoded *d = c->d;
	const struct evset_object *o = &d->set->obj[EV_VCA_TYPE];

	if (d->tx.form == SPDM_TX_TRANSCRIPT) {
		c->vca = &d->tx.vca;
		c->vca_bytes = d->set->obj[EV_MEAS_TYPE].data;
		c->vca_len = d->tx.vca_len;
		/* two negotiations that differ: which one the device signed is not known */
		if (ev_vca_ok(d) && (d->vca.end != c->vca_len ||
				     memcmp(o->data, c->vca_bytes, c->vca_len))) {
			fail(c, "the transcript's VCA is not the vca object's: the evidence holds two "
			     "negotiations, and the signature can vouch for one at most");
			return false;
		}
	} else if (ev_vca_ok(c->d)) {
		c->vca = &d->vca;
		c->vca_bytes = o->data;
		c->vca_len = d->vca.end;
	}
	return true;
}

/* An unsigned response: a failure where the device says it signs. */
static void judge_unsigned(struct sig_ctx *c)
{
	unsigned int cap = c->vca ? MEAS_CAP(c->vca->rsp_caps.flags) : 0;
	char *why;

	if (cap == MEAS_CAP_SIG) {
		fail(c, "the measurements are unsigned, yet CAPABILITIES says the device signs them "
		     "(MEAS_CAP 2): the signed response was stripped, or a signature never asked for");
		return;
	}
	why = c->vca ? xasprintf("the measurements are unsigned: the device cannot sign them "
				 "(CAPABILITIES MEAS_CAP %u)", cap) :
		xstrdup("the measurements are unsigned, and without the VCA it is not known whether "
			"the device signs them");
	skip_unsigned(c, xstrdup("the TSM authenticated the device over SPDM: only its word vouches "
				 "for these measurements"), why);
	free(why);
}

/* The leaf of the slot the response names; false when the check is decided without it. */
static bool pick_leaf(struct sig_ctx *c)
{
	const struct ev_decoded *d = c->d;
	char *why;

	c->slot = d->meas->slot_id;
	if (c->slot == SPDM_SLOT_PROVISIONED) {
		skip_unsigned(c, NULL, "the response names slot 15, a key provisioned in the requester, "
			      "which the evidence does not carry");
		return false;
	}
	if (c->slot >= EV_NR_SLOTS) {
		why = xasprintf("the response's SlotID %u names no slot (0 to 7, or 15)", c->slot);
		fail(c, why);
		free(why);
		return false;
	}
	if (!d->chain_part[c->slot].present) {
		why = xasprintf("slot %u, whose key signed, has no certificate chain", c->slot);
		skip_unsigned(c, NULL, why);
		free(why);
		return false;
	}
	if (!ev_parent_ok(d, c->slot, c->r, ID, OBJ)) {
		verdict(c, AUDIT_SKIP, EV_RISK_NONE);
		return false;
	}
	c->leaf = spdm_chain_leaf(&d->chain[c->slot]);
	return true;
}

/* "slot 0's leaf (CN=..., ec 384)" */
static char *leaf_name(const struct sig_ctx *c)
{
	return xasprintf("slot %u's leaf (%s, %s %u)", c->slot, c->leaf->subject,
			 spdm_key_type_name(c->leaf->key_type), c->leaf->key_bits);
}

/* Without the negotiation nothing can be verified; the leaf's key may still show a forgery. */
static void judge_without_vca(struct sig_ctx *c, EVP_PKEY *key)
{
	size_t want = spdm_sig_size_of_key(key), got = c->d->meas->sig_len;
	char *leaf = leaf_name(c), *why;

	if (want && got != want) {
		why = xasprintf("%zu bytes follow the opaque data, where %s makes %zu-byte signatures",
				got, leaf, want);
		fail(c, why);
	} else {
		why = xasprintf("a %zu-byte signature, as %s makes, but without the VCA the negotiated "
				"hash (and from SPDM 1.2 the start of L1) is not known", got, leaf);
		skip_unsigned(c, xstrdup("a provider that hands out the VCA (or the whole transcript) "
					 "lets the signature be verified"), why);
	}
	free(why);
	free(leaf);
}

/* What the L1 that verified holds, in words. */
static char *l1_words(const struct sig_ctx *c, const struct spdm_l1 *l1)
{
	const struct spdm_transcript *tx = &c->d->tx;
	const char *vca = c->d->meas->version < 0x12 ? "" : tx->form == SPDM_TX_TRANSCRIPT ?
			  "the VCA it carries, " : "the vca object, ";
	char what[24];

	if (l1->operation == SPDM_MEAS_OP_ALL)
		snprintf(what, sizeof(what), "every block");
	else
		snprintf(what, sizeof(what), "index %u", l1->operation);
	if (!l1->rebuilt)
		return xasprintf("%s%u GET_MEASUREMENTS request%s and response%s carried", vca,
				 tx->nr_pairs, tx->nr_pairs == 1 ? "" : "s", tx->nr_pairs == 1 ? "" : "s");
	return xasprintf("%sGET_MEASUREMENTS rebuilt for the nonce sent (%s, slot %u%s), the response",
			 vca, what, c->slot, l1->with_context ? ", with the requester context" : "");
}

static void judge_verified(struct sig_ctx *c, const struct spdm_l1 *l1)
{
	const struct spdm_meas *m = c->d->meas;
	const struct spdm_transcript *tx = &c->d->tx;
	char *leaf = leaf_name(c), *words = l1_words(c, l1), *got, *sent, *why;

	if (tx->nr_pairs && c->has_nonce && memcmp(tx->last.nonce, c->nonce, SPDM_NONCE_SIZE)) {
		got = ev_hex(tx->last.nonce, SPDM_NONCE_SIZE);
		sent = ev_hex(c->nonce, SPDM_NONCE_SIZE);
		why = xasprintf("signed by %s, but over a GET_MEASUREMENTS with nonce %s, not the nonce "
				"sent (%s): a response replayed from another request", leaf, got, sent);
		fail(c, why);
		c->v->nonce_mismatch = true;
		free(got);
		free(sent);
		free(why);
	} else {
		ev_add(c->r, ID, OBJ, AUDIT_PASS, NULL, "signed by %s with %s over SPDM %u.%u's L1: %s",
		       leaf, spdm_vca_asym(c->vca)->name, m->version >> 4, m->version & 15, words);
		verdict(c, AUDIT_PASS, EV_RISK_NONE);
		c->v->over_nonce = l1->rebuilt || (c->has_nonce && tx->last.nonce);
	}
	free(leaf);
	free(words);
}

static void judge_failed(struct sig_ctx *c, unsigned int tried)
{
	char *leaf = leaf_name(c), *why;

	if (c->d->tx.nr_pairs)
		why = xasprintf("the signature does not verify with %s over the transcript carried: "
				"forged, made by another key, or covering other bytes", leaf);
	else
		why = xasprintf("the signature does not verify with %s over any of the %u "
				"GET_MEASUREMENTS requests the nonce sent rebuilds: forged, made by "
				"another key, or answering another nonce (a replay)", leaf, tried);
	fail(c, why);
	free(why);
	free(leaf);
}

/* Each L1 the object allows, until one verifies. */
static void verify(struct sig_ctx *c, EVP_PKEY *key)
{
	const struct ev_decoded *d = c->d;
	const struct spdm_meas *m = d->meas;
	const struct spdm_asym_alg *asym = spdm_vca_asym(c->vca);
	unsigned int n = 0;
	struct spdm_l1 l1;
	char *why;
	int rc = -EBADMSG;

	for (; spdm_l1_candidate(&d->tx, d->set->obj[EV_MEAS_TYPE].data, m, c->vca_bytes,
				 c->vca_len, c->has_nonce ? c->nonce : NULL, n, &l1) == 0; n++) {
		rc = spdm_sig_verify(m->version, asym, spdm_vca_hash(c->vca), key, &l1, m->signature,
				     m->sig_len);
		if (rc != -EBADMSG)
			break;
	}
	if (!rc) {
		judge_verified(c, &l1);
	} else if (rc == -EKEYREJECTED) {
		why = xasprintf("slot %u's leaf key (%s %u%s%s) cannot make the negotiated %s "
				"signature", c->slot, spdm_key_type_name(c->leaf->key_type),
				c->leaf->key_bits, *c->leaf->key_group ? " " : "", c->leaf->key_group,
				asym->name);
		fail(c, why);
		free(why);
	} else if (rc != -EBADMSG) {
		why = xasprintf("%s signatures under %s are not verified by this build",
				asym->name, spdm_vca_hash(c->vca) ? spdm_vca_hash(c->vca)->name : "no hash");
		skip_unsigned(c, NULL, why);
		free(why);
	} else if (!n) {
		skip_unsigned(c, xstrdup("--fresh (or --nonce) sends a nonce from which the request "
					 "can be rebuilt"),
			      "a bare MEASUREMENTS response: the GET_MEASUREMENTS it answers is not "
			      "handed out, and no nonce of this reader's was sent to rebuild it");
	} else {
		judge_failed(c, n);
	}
}

/* A signed response's Nonce is the responder's random choice (DSP0274): all zero is none. */
static bool responder_nonce_zero(const struct spdm_meas *m)
{
	for (unsigned int i = 0; i < SPDM_NONCE_SIZE; i++)
		if (m->nonce[i])
			return false;
	return true;
}

void ev_check_signature(const struct ev_decoded *d, const struct ev_verify_opts *o,
			struct ev_results *r, struct ev_sig_verdict *v)
{
	const struct evidence_set *s = d->set;
	struct sig_ctx c = { .d = d, .v = v, .r = r };
	EVP_PKEY *key;

	(void)o;
	memset(v, 0, sizeof(*v));
	if (!d->meas_part.present) {
		skip_unsigned(&c, NULL, "the measurements object is empty: nothing signed binds the "
			      "evidence to a device key");
		return;
	}
	if (!ev_parent_ok(d, EV_MEAS_TYPE, r, ID, OBJ)) {
		verdict(&c, AUDIT_SKIP, EV_RISK_NONE);
		return;
	}
	v->measured = true;
	c.has_nonce = s->nonce_len > 0;
	memcpy(c.nonce, s->nonce, s->nonce_len < SPDM_NONCE_SIZE ? s->nonce_len : SPDM_NONCE_SIZE);
	if (!pick_vca(&c))
		return;
	if (d->meas->sig == SPDM_SIG_NONE) {
		judge_unsigned(&c);
		return;
	}
	if (!pick_leaf(&c))
		return;
	key = X509_get0_pubkey(c.leaf->x509);
	if (!key) {
		fail(&c, "the signing slot's leaf certificate carries no key libcrypto can use");
		return;
	}
	if (!c.vca) {
		judge_without_vca(&c, key);
		return;
	}
	if (!spdm_vca_asym(c.vca)) {
		fail(&c, "the VCA selected no BaseAsymAlgo the device could sign with, yet bytes "
		     "follow the measurements' opaque data");
		return;
	}
	verify(&c, key);
	if (v->status == AUDIT_PASS && responder_nonce_zero(d->meas))
		ev_add(r, ID, "measurements/responder-nonce", AUDIT_FAIL, NULL,
		       "the responder's Nonce is all zero: DSP0274 has the responder choose it at "
		       "random for each signed response");
}
