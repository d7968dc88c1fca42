// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run's certificate cache (evidence-verify-cache.h): an open-addressing
 * table of SHA-384 keys. A key hashes a tag, then each certificate's length
 * and DER, so no two inputs (a pair, a chain, another order, another store)
 * can share one short of a SHA-384 collision.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tsmctl/evidence-verify-cache.h"
#include "tsmctl/util.h"

#define KEY_SIZE	48

struct ev_cache_entry {
	uint8_t key[KEY_SIZE];
	bool used;
	bool signed_ok;		/* a pair's */
	struct ev_path path;	/* a chain's; its anchor a reference the cache holds */
};

enum key_tag { TAG_SIGNED_BY = 1, TAG_PATH_STORE, TAG_PATH_OWN };

void ev_cache_init(struct ev_cache *c, const struct x509_store_st *store)
{
	memset(c, 0, sizeof(*c));
	c->store = store;
	c->ready = true;
}

void ev_cache_release(struct ev_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		if (c->v[i].used)
			X509_free(c->v[i].path.anchor);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static void key_begin(EVP_MD_CTX **ctx, enum key_tag tag, uint32_t extra)
{
	uint8_t head[5] = { (uint8_t)tag, (uint8_t)extra, (uint8_t)(extra >> 8),
			    (uint8_t)(extra >> 16), (uint8_t)(extra >> 24) };

	*ctx = EVP_MD_CTX_new();
	if (!*ctx || !EVP_DigestInit_ex(*ctx, EVP_sha384(), NULL) ||
	    !EVP_DigestUpdate(*ctx, head, sizeof(head)))
		out_of_memory();
}

/* A certificate into the key: its length first, so boundaries cannot move. */
static void key_cert(EVP_MD_CTX *ctx, const struct spdm_cert *cert)
{
	uint8_t len[4] = { (uint8_t)cert->der_len, (uint8_t)(cert->der_len >> 8),
			   (uint8_t)(cert->der_len >> 16), (uint8_t)(cert->der_len >> 24) };

	if (!EVP_DigestUpdate(ctx, len, sizeof(len)) ||
	    !EVP_DigestUpdate(ctx, cert->der, cert->der_len))
		out_of_memory();
}

static void key_end(EVP_MD_CTX *ctx, uint8_t key[KEY_SIZE])
{
	unsigned int n = 0;

	if (!EVP_DigestFinal_ex(ctx, key, &n) || n != KEY_SIZE)
		out_of_memory();
	EVP_MD_CTX_free(ctx);
}

/* KEY's slot: its entry, or the free one it would take. */
static struct ev_cache_entry *slot(const struct ev_cache *c, const uint8_t key[KEY_SIZE])
{
	uint64_t h;
	size_t i;

	memcpy(&h, key, sizeof(h));
	for (i = (size_t)h & (c->cap - 1); c->v[i].used; i = (i + 1) & (c->cap - 1))
		if (!memcmp(c->v[i].key, key, KEY_SIZE))
			break;
	return &c->v[i];
}

/* A new entry for KEY, the table kept at most half full. */
static struct ev_cache_entry *insert(struct ev_cache *c, const uint8_t key[KEY_SIZE])
{
	struct ev_cache_entry *e, *old = c->v;
	size_t old_cap = c->cap;

	if (2 * (c->n + 1) > c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = xcalloc(c->cap, sizeof(*c->v));
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].used)
				*slot(c, old[i].key) = old[i];
		free(old);
	}
	e = slot(c, key);
	memset(e, 0, sizeof(*e));
	memcpy(e->key, key, KEY_SIZE);
	e->used = true;
	c->n++;
	return e;
}

static struct ev_cache_entry *find(const struct ev_cache *c, const uint8_t key[KEY_SIZE])
{
	struct ev_cache_entry *e;

	if (!c->cap)
		return NULL;
	e = slot(c, key);
	return e->used ? e : NULL;
}

static bool verify_signature(const struct spdm_cert *issuer, const struct spdm_cert *subject)
{
	EVP_PKEY *key = X509_get0_pubkey(issuer->x509);
	bool ok = key && X509_verify(subject->x509, key) == 1;

	ERR_clear_error();
	return ok;
}

bool ev_cache_signed_by(struct ev_cache *c, const struct spdm_cert *issuer,
			const struct spdm_cert *subject)
{
	uint8_t key[KEY_SIZE];
	struct ev_cache_entry *e;
	EVP_MD_CTX *ctx;
	bool ok;

	if (!c || !c->ready)
		return verify_signature(issuer, subject);
	key_begin(&ctx, TAG_SIGNED_BY, 2);
	key_cert(ctx, issuer);
	key_cert(ctx, subject);
	key_end(ctx, key);
	e = find(c, key);
	if (e) {
		c->stats.signature_hits++;
		return e->signed_ok;
	}
	ok = verify_signature(issuer, subject);
	c->stats.signatures++;
	insert(c, key)->signed_ok = ok;
	return ok;
}

/* P's copy, with a reference of its own to the anchor. */
static void path_copy(struct ev_path *to, const struct ev_path *from)
{
	*to = *from;
	if (to->anchor)
		X509_up_ref(to->anchor);
}

void ev_cache_path(struct ev_cache *c, const struct spdm_chain *chain, struct x509_store_st *store,
		   bool own, bool partial, ev_path_fn *verify, struct ev_path *p)
{
	uint8_t key[KEY_SIZE];
	struct ev_cache_entry *e;
	EVP_MD_CTX *ctx;

	/* another store than the run's would answer differently: not cached */
	if (!c || !c->ready || (!own && store != c->store)) {
		verify(chain, store, partial, p);
		return;
	}
	key_begin(&ctx, own ? TAG_PATH_OWN : TAG_PATH_STORE, (partial ? 1u << 31 : 0) | chain->nr_certs);
	for (unsigned int i = 0; i < chain->nr_certs; i++)
		key_cert(ctx, &chain->certs[i]);
	key_end(ctx, key);
	e = find(c, key);
	if (e) {
		c->stats.path_hits++;
		path_copy(p, &e->path);
		return;
	}
	verify(chain, store, partial, p);
	c->stats.paths++;
	path_copy(&insert(c, key)->path, p);
}
