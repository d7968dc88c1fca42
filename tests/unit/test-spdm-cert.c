// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/evidence/decode/spdm-cert.c on certificate chains made here with
 * libcrypto (X509_new, EC P-384 and RSA-3072 keys, validity, the DMTF SPDM
 * extension, EKU and SAN otherName, signed): with and without the DSP0274
 * header (root hash 32, 48, 64), the expired, not-yet-valid, wrong-issuer and
 * self-signed-leaf variants the checks will judge, and hostile input: every
 * truncation, Lengths that lie, nesting deeper than the cap, 2000
 * certificates, a SEQUENCE that is no certificate, BER, 16 MiB of zeros.
 * `--seeds DIR` also writes the chains built as fuzz seeds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tsmctl/spdm-cert.h"
#include "bytes.h"
#include "unit.h"

#define T0		1700000000	/* 2023-11-14: the chains' notBefore */
#define T_END		2000000000	/* 2033-05-18: their notAfter */
#define DAY		86400
#define OID_SPDM	"1.3.6.1.4.1.412.274."

static void die(const char *what)
{
	fprintf(stderr, "test-spdm-cert: %s failed\n", what);
	exit(2);
}

static void *need(void *p, const char *what)
{
	if (!p)
		die(what);
	return p;
}

/* ---- DER values made by libcrypto: ASN1_TYPE stacks encoded with i2d ---- */

static ASN1_TYPE *type_of(int type, void *value)
{
	ASN1_TYPE *t = need(ASN1_TYPE_new(), "ASN1_TYPE_new");

	ASN1_TYPE_set(t, type, value);
	return t;
}

static ASN1_TYPE *oid_type(const char *oid)
{
	return type_of(V_ASN1_OBJECT, need(OBJ_txt2obj(oid, 1), oid));
}

static ASN1_TYPE *octets_type(const void *p, int n)
{
	ASN1_OCTET_STRING *s = need(ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new");

	ASN1_OCTET_STRING_set(s, p, n);
	return type_of(V_ASN1_OCTET_STRING, s);
}

/* The DER of SEQUENCE { items }, consuming them. */
static ASN1_STRING *sequence_der(STACK_OF(ASN1_TYPE) *items)
{
	unsigned char *der = NULL;
	int n = i2d_ASN1_SEQUENCE_ANY(items, &der);
	ASN1_STRING *s = need(ASN1_STRING_new(), "ASN1_STRING_new");

	if (n <= 0)
		die("i2d_ASN1_SEQUENCE_ANY");
	ASN1_STRING_set(s, der, n);
	OPENSSL_free(der);
	sk_ASN1_TYPE_pop_free(items, ASN1_TYPE_free);
	return s;
}

static STACK_OF(ASN1_TYPE) *items(ASN1_TYPE *a, ASN1_TYPE *b)
{
	STACK_OF(ASN1_TYPE) *s = need(sk_ASN1_TYPE_new_null(), "sk_ASN1_TYPE_new_null");

	sk_ASN1_TYPE_push(s, a);
	if (b)
		sk_ASN1_TYPE_push(s, b);
	return s;
}

/* id-DMTF-SPDM-extension's value: SEQUENCE OF SEQUENCE { id, extnValue } for each OID. */
static ASN1_STRING *spdm_ext_value(const char *const *oids, unsigned int n)
{
	STACK_OF(ASN1_TYPE) *list = need(sk_ASN1_TYPE_new_null(), "sk_ASN1_TYPE_new_null");

	for (unsigned int i = 0; i < n; i++)
		sk_ASN1_TYPE_push(list, type_of(V_ASN1_SEQUENCE,
						sequence_der(items(oid_type(oids[i]),
								   octets_type("", 0)))));
	return sequence_der(list);
}

/* The same with the id alone in each entry, as extnValue is OPTIONAL (libspdm's test certificates). */
static ASN1_STRING *spdm_ext_ids(const char *const *oids, unsigned int n)
{
	STACK_OF(ASN1_TYPE) *list = need(sk_ASN1_TYPE_new_null(), "sk_ASN1_TYPE_new_null");

	for (unsigned int i = 0; i < n; i++)
		sk_ASN1_TYPE_push(list, type_of(V_ASN1_SEQUENCE, sequence_der(items(oid_type(oids[i]),
										     NULL))));
	return sequence_der(list);
}

/* DEPTH SEQUENCEs, each holding the next, around one OCTET STRING. */
static ASN1_STRING *nested_der(unsigned int depth)
{
	ASN1_STRING *s = sequence_der(items(octets_type("x", 1), NULL));

	while (--depth)
		s = sequence_der(items(type_of(V_ASN1_SEQUENCE, s), NULL));
	return s;
}

/* ---- certificates ---- */

struct cert_spec {
	const char *cn;
	EVP_PKEY *key;
	X509 *issuer;			/* NULL: self-signed with KEY */
	EVP_PKEY *issuer_key;
	long serial;
	int64_t not_before, not_after;
	bool ca;
	const char *issuer_cn;		/* wrong issuer: this name instead of the issuer's */
	const char *const *spdm_oids;	/* entries of id-DMTF-SPDM-extension */
	unsigned int nr_spdm_oids;
	ASN1_STRING *spdm_value;	/* a ready value for it instead (consumed) */
	const char *eku;		/* extendedKeyUsage, OpenSSL's config syntax */
	const char *san;		/* subjectAltName, likewise */
};

static void add_conf_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;

	X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
	e = need(X509V3_EXT_conf_nid(NULL, &ctx, nid, value), value);
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
}

static void add_spdm_ext(X509 *x, ASN1_STRING *value)
{
	ASN1_OBJECT *obj = need(OBJ_txt2obj(OID_SPDM "6", 1), "the SPDM OID");
	X509_EXTENSION *e = need(X509_EXTENSION_create_by_OBJ(NULL, obj, 0, value), "extension");

	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	ASN1_OBJECT_free(obj);
	ASN1_STRING_free(value);
}

static X509_NAME *cn_name(const char *cn)
{
	X509_NAME *n = need(X509_NAME_new(), "X509_NAME_new");

	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC, (const unsigned char *)"tsmctl tests", -1,
				   -1, 0);
	return n;
}

static X509 *make_cert(const struct cert_spec *s)
{
	X509 *x = need(X509_new(), "X509_new");
	X509_NAME *subject = cn_name(s->cn);
	X509_NAME *issuer = s->issuer_cn ? cn_name(s->issuer_cn) : NULL;

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), s->serial);
	ASN1_TIME_set(X509_getm_notBefore(x), (time_t)s->not_before);
	ASN1_TIME_set(X509_getm_notAfter(x), (time_t)s->not_after);
	X509_set_pubkey(x, s->key);
	X509_set_subject_name(x, subject);
	X509_set_issuer_name(x, issuer ? issuer : s->issuer ? X509_get_subject_name(s->issuer) : subject);
	add_conf_ext(x, s->issuer, NID_basic_constraints, s->ca ? "critical,CA:TRUE" : "CA:FALSE");
	add_conf_ext(x, s->issuer, NID_key_usage, s->ca ? "critical,keyCertSign,cRLSign" :
							   "critical,digitalSignature");
	add_conf_ext(x, s->issuer, NID_subject_key_identifier, "hash");
	if (s->spdm_value)
		add_spdm_ext(x, s->spdm_value);
	else if (s->nr_spdm_oids)
		add_spdm_ext(x, spdm_ext_value(s->spdm_oids, s->nr_spdm_oids));
	if (s->eku)
		add_conf_ext(x, s->issuer, NID_ext_key_usage, s->eku);
	if (s->san)
		add_conf_ext(x, s->issuer, NID_subject_alt_name, s->san);
	if (!X509_sign(x, s->issuer_key ? s->issuer_key : s->key, EVP_sha384()))
		die("X509_sign");
	X509_NAME_free(subject);
	X509_NAME_free(issuer);
	return x;
}

static void put_der(struct bytes *b, X509 *x)
{
	unsigned char *der = NULL;
	int n = i2d_X509(x, &der);

	if (n <= 0)
		die("i2d_X509");
	put_bytes(b, der, (size_t)n);
	OPENSSL_free(der);
}

/* The DSP0274 structure: Length, Reserved, root hash under MD, the certificates. */
static void build_chain(struct bytes *b, X509 *const *certs, unsigned int n, const EVP_MD *md)
{
	struct bytes der = { 0 }, root = { 0 };
	unsigned char hash[EVP_MAX_MD_SIZE];
	unsigned int hlen = 0;

	for (unsigned int i = 0; i < n; i++)
		put_der(&der, certs[i]);
	if (!md) {
		put_bytes(b, der.buf, der.len);
		bytes_free(&der);
		return;
	}
	put_der(&root, certs[0]);
	EVP_Digest(root.buf, root.len, hash, &hlen, md, NULL);
	put16(b, 4 + hlen + der.len);
	put16(b, 0);
	put_bytes(b, hash, hlen);
	put_bytes(b, der.buf, der.len);
	bytes_free(&der);
	bytes_free(&root);
}

static EVP_PKEY *ec_key, *rsa_key, *leaf_key;
static X509 *root, *inter;

/* The root, the intermediate and LEAF: in MD's header, or bare DER with MD NULL. */
static void standard_chain(struct bytes *b, X509 *leaf, const EVP_MD *md)
{
	X509 *certs[] = { root, inter, leaf };

	build_chain(b, certs, 3, md);
}

static const char *const leaf_oids[] = { OID_SPDM "2" };		/* hardware identity */
static const char *const inter_oids[] = { OID_SPDM "5", "1.2.3.4" };	/* mutable; and a stranger */

static void make_keys_and_cas(void)
{
	ec_key = need(EVP_EC_gen("P-384"), "EC P-384 key");
	leaf_key = need(EVP_EC_gen("P-384"), "EC P-384 key");
	rsa_key = need(EVP_RSA_gen(3072), "RSA-3072 key");
	root = make_cert(&(struct cert_spec){ .cn = "tsmctl test root", .key = ec_key, .serial = 1,
					       .not_before = T0, .not_after = T_END, .ca = true });
	inter = make_cert(&(struct cert_spec){
		.cn = "tsmctl test intermediate", .key = ec_key, .issuer = root, .issuer_key = ec_key,
		.serial = 0x1234567890abcdefL, .not_before = T0, .not_after = T_END, .ca = true,
		.spdm_oids = inter_oids, .nr_spdm_oids = 2 });
}

/* A device leaf under the intermediate: the SPDM OIDs, EKU and device info; KEY, validity, issuer as given. */
static X509 *make_leaf(EVP_PKEY *key, int64_t nb, int64_t na, const char *issuer_cn, bool self)
{
	return make_cert(&(struct cert_spec){
		.cn = "tsmctl test device", .key = key, .issuer = self ? NULL : inter,
		.issuer_key = self ? key : ec_key, .serial = 77, .not_before = nb, .not_after = na,
		.issuer_cn = issuer_cn, .spdm_oids = leaf_oids, .nr_spdm_oids = 1,
		.eku = OID_SPDM "3," OID_SPDM "4",
		.san = "otherName:" OID_SPDM "1;UTF8:ACME:widget:0001" });
}

static int decode(const struct bytes *b, size_t hash_len, struct spdm_chain *c, struct ev_error *err)
{
	uint8_t *copy = bytes_exact(b);
	int rc = spdm_chain_decode(copy, b->len, hash_len, c, err);

	for (unsigned int i = 0; i < c->nr_certs; i++)
		CHECK(c->certs[i].der == copy + c->certs[i].offset &&
		      c->certs[i].offset + c->certs[i].der_len <= b->len);
	CHECK(!c->root_hash || c->root_hash == copy + SPDM_CHAIN_HDR_SIZE);
	/* the pointers die with the copy: compare through offsets from here on */
	for (unsigned int i = 0; i < c->nr_certs; i++)
		c->certs[i].der = NULL;
	c->root_hash = NULL;
	free(copy);
	return rc;
}

static bool has_oid(const struct spdm_cert *c, enum spdm_oid which, enum spdm_oid_place place)
{
	for (unsigned int i = 0; i < c->nr_oids; i++)
		if (c->oids[i].which == which && c->oids[i].place == place)
			return true;
	return false;
}

static void check_header_chain(const struct bytes *b, const struct spdm_chain *c)
{
	unsigned char hash[EVP_MAX_MD_SIZE];
	unsigned int hlen = 0;

	CHECK(c->form == SPDM_CHAIN_HEADER && c->length == b->len);
	CHECK(c->root_hash_len == 48 && c->root_hash_fits == SPDM_ROOT_HASH_48);
	CHECK(c->root_hash_offset == 4 && c->certs_offset == 52);
	CHECK(c->nr_certs == 3 && c->nr_seen == 3);
	/* the header's hash is over exactly the bytes certs[0] names */
	EVP_Digest(b->buf + c->certs[0].offset, c->certs[0].der_len, hash, &hlen, EVP_sha384(), NULL);
	CHECK(hlen == 48 && !memcmp(hash, b->buf + 4, 48));
}

static void check_cas(const struct spdm_chain *c)
{
	const struct spdm_cert *r = spdm_chain_first(c), *i = &c->certs[1];

	CHECK(r == &c->certs[0] && r->ca && r->self_issued && r->x509);
	CHECK(r->version == 3 && r->has_basic_constraints && r->has_key_usage);
	CHECK(!strcmp(r->subject, "O=tsmctl tests,CN=tsmctl test root"));
	CHECK(!strcmp(r->issuer, r->subject) && !strcmp(r->serial, "01"));
	CHECK(r->has_validity && r->not_before == T0 && r->not_after == T_END);
	CHECK(r->key_type == SPDM_KEY_EC && r->key_bits == 384 && !strcmp(r->key_group, "secp384r1"));
	CHECK(!strcmp(r->sig_alg, "ecdsa-with-SHA384") && r->nr_oids == 0);
	CHECK(i->ca && !i->self_issued && !strcmp(i->serial, "1234567890abcdef"));
	CHECK(!strcmp(i->issuer, r->subject));
	CHECK(i->mutable_certificate && !i->hardware_identity);
	CHECK(has_oid(i, SPDM_OID_SPDM_EXTENSION, SPDM_OID_AS_EXTENSION));
	CHECK(has_oid(i, SPDM_OID_MUTABLE_CERTIFICATE, SPDM_OID_IN_SPDM_EXTENSION));
	CHECK(i->nr_oids == 2);		/* 1.2.3.4 in the list is not DMTF's: not recorded */
}

static void check_leaf(const struct spdm_chain *c, enum spdm_key_type type, unsigned int bits)
{
	const struct spdm_cert *l = spdm_chain_leaf(c);

	CHECK(l == &c->certs[c->nr_certs - 1] && !l->ca && !l->self_issued);
	CHECK(l->version == 3 && l->has_basic_constraints && l->has_key_usage);
	CHECK(!strcmp(l->subject, "O=tsmctl tests,CN=tsmctl test device"));
	CHECK(!strcmp(l->issuer, c->certs[1].subject) && !strcmp(l->serial, "4d"));
	CHECK(l->key_type == type && l->key_bits == bits);
	CHECK(l->hardware_identity && !l->mutable_certificate);
	CHECK(l->eku_responder_auth && l->eku_requester_auth);
	CHECK(l->device_info && !strcmp(l->device_info, "ACME:widget:0001") &&
	      l->device_info_len == 16);
	CHECK(has_oid(l, SPDM_OID_HARDWARE_IDENTITY, SPDM_OID_IN_SPDM_EXTENSION));
	CHECK(has_oid(l, SPDM_OID_EKU_RESPONDER_AUTH, SPDM_OID_IN_EKU));
	CHECK(has_oid(l, SPDM_OID_EKU_REQUESTER_AUTH, SPDM_OID_IN_EKU));
	CHECK(has_oid(l, SPDM_OID_DEVICE_INFO, SPDM_OID_IN_SAN));
	CHECK(l->nr_oids == 5 && !l->oids_capped);
	CHECK(!strcmp(l->oids[0].oid, OID_SPDM "6") && !l->oids[0].critical);
}

static void test_header_chain(void)
{
	X509 *leaf = make_leaf(leaf_key, T0, T_END, NULL, false);
	struct bytes b = { 0 }, bare = { 0 };
	struct spdm_chain c;
	struct ev_error err;

	standard_chain(&b, leaf, EVP_sha384());
	write_seed("p384-header", b.buf, b.len);
	CHECK(decode(&b, 0, &c, &err) == 0 && !err.set);
	check_header_chain(&b, &c);
	check_cas(&c);
	check_leaf(&c, SPDM_KEY_EC, 384);
	spdm_chain_release(&c);
	/* the negotiated hash length picks the same layout */
	CHECK(decode(&b, 48, &c, &err) == 0 && c.form == SPDM_CHAIN_HEADER);
	spdm_chain_release(&c);
	/* a negotiated SHA-256 does not fit a 48-byte root hash: no chain at all */
	CHECK(decode(&b, 32, &c, &err) == -EBADMSG && c.nr_certs == 0);
	spdm_chain_release(&c);

	standard_chain(&bare, leaf, NULL);
	write_seed("p384-bare", bare.buf, bare.len);
	CHECK(decode(&bare, 0, &c, &err) == 0 && c.form == SPDM_CHAIN_BARE && !c.root_hash_len);
	CHECK(c.certs_offset == 0 && c.nr_certs == 3);
	check_cas(&c);
	check_leaf(&c, SPDM_KEY_EC, 384);
	spdm_chain_release(&c);
	X509_free(leaf);
	bytes_free(&b);
	bytes_free(&bare);
}

static void test_rsa_leaf_and_hash_sizes(void)
{
	X509 *leaf = make_leaf(rsa_key, T0, T_END, NULL, false);
	struct bytes b32 = { 0 }, b64 = { 0 };
	struct spdm_chain c;
	struct ev_error err;

	standard_chain(&b32, leaf, EVP_sha256());
	write_seed("rsa3072-header-sha256", b32.buf, b32.len);
	CHECK(decode(&b32, 0, &c, &err) == 0 && c.root_hash_len == 32 &&
	      c.root_hash_fits == SPDM_ROOT_HASH_32);
	check_leaf(&c, SPDM_KEY_RSA, 3072);
	CHECK(!strcmp(c.certs[2].sig_alg, "ecdsa-with-SHA384"));
	spdm_chain_release(&c);

	standard_chain(&b64, leaf, EVP_sha512());
	CHECK(decode(&b64, 64, &c, &err) == 0 && c.root_hash_len == 64 && c.certs_offset == 68);
	spdm_chain_release(&c);
	X509_free(leaf);
	bytes_free(&b32);
	bytes_free(&b64);
}

/* The variants the chain check will judge decode as themselves, nothing hidden. */
static void test_variants(void)
{
	X509 *expired = make_leaf(leaf_key, T0 - 10 * DAY, T0 - DAY, NULL, false);
	X509 *early = make_leaf(leaf_key, T_END - DAY, T_END, NULL, false);
	X509 *stranger = make_leaf(leaf_key, T0, T_END, "someone else", false);
	X509 *self = make_leaf(leaf_key, T0, T_END, NULL, true);
	X509 *leaves[] = { expired, early, stranger, self };
	static const char *const names[] = { "expired", "not-yet-valid", "wrong-issuer", "self-signed" };
	struct spdm_chain c[4];
	struct ev_error err;

	for (unsigned int i = 0; i < 4; i++) {
		struct bytes b = { 0 };
		char seed[64];

		standard_chain(&b, leaves[i], EVP_sha384());
		snprintf(seed, sizeof(seed), "p384-%s", names[i]);
		write_seed(seed, b.buf, b.len);
		CHECK(decode(&b, 48, &c[i], &err) == 0 && c[i].nr_certs == 3);
		bytes_free(&b);
	}
	CHECK(c[0].certs[2].not_after == T0 - DAY && c[0].certs[2].not_before == T0 - 10 * DAY);
	CHECK(c[1].certs[2].not_before == T_END - DAY);
	CHECK(!strcmp(c[2].certs[2].issuer, "O=tsmctl tests,CN=someone else"));
	CHECK(strcmp(c[2].certs[2].issuer, c[2].certs[1].subject));
	/* whether a self-issued certificate signed itself is evidence.chain's to verify */
	CHECK(c[3].certs[2].self_issued && !c[3].certs[2].ca);
	CHECK(!c[2].certs[2].self_issued);
	CHECK(!strcmp(c[3].certs[2].issuer, c[3].certs[2].subject));
	for (unsigned int i = 0; i < 4; i++) {
		spdm_chain_release(&c[i]);
		X509_free(leaves[i]);
	}
}

/* A leaf whose id-DMTF-SPDM-extension value is VALUE, in the standard chain, decoded. */
static int decode_with_spdm_value(ASN1_STRING *value, const char *seed, struct spdm_chain *c,
				  struct ev_error *err)
{
	X509 *leaf = make_cert(&(struct cert_spec){
		.cn = "tsmctl test device", .key = leaf_key, .issuer = inter, .issuer_key = ec_key,
		.serial = 78, .not_before = T0, .not_after = T_END, .spdm_value = value });
	struct bytes b = { 0 };
	int rc;

	standard_chain(&b, leaf, EVP_sha384());
	write_seed(seed, b.buf, b.len);
	rc = decode(&b, 48, c, err);
	bytes_free(&b);
	X509_free(leaf);
	return rc;
}

/* SPDMExtension's extnValue is OPTIONAL and critical DEFAULT FALSE: every legal field list decodes. */
static void test_spdm_entry_forms(void)
{
	static const char *const hw[] = { OID_SPDM "2" };
	STACK_OF(ASN1_TYPE) *entry, *list;
	struct spdm_chain c;
	struct ev_error err;
	ASN1_TYPE *yes;

	/* the id alone (libspdm's test certificates) */
	CHECK(decode_with_spdm_value(spdm_ext_ids(hw, 1), "spdm-extension-id-only", &c, &err) == 0);
	CHECK(spdm_chain_leaf(&c)->hardware_identity);
	CHECK(has_oid(spdm_chain_leaf(&c), SPDM_OID_HARDWARE_IDENTITY, SPDM_OID_IN_SPDM_EXTENSION));
	spdm_chain_release(&c);
	/* id and critical TRUE, no value */
	yes = need(ASN1_TYPE_new(), "ASN1_TYPE_new");
	ASN1_TYPE_set(yes, V_ASN1_BOOLEAN, (void *)1);
	entry = items(oid_type(hw[0]), yes);
	list = items(type_of(V_ASN1_SEQUENCE, sequence_der(entry)), NULL);
	CHECK(decode_with_spdm_value(sequence_der(list), "spdm-extension-critical", &c, &err) == 0);
	CHECK(spdm_chain_leaf(&c)->oids[1].critical && !spdm_chain_leaf(&c)->oids[1].value_len);
	spdm_chain_release(&c);
	/* the value before the critical flag is no SPDMExtension */
	yes = need(ASN1_TYPE_new(), "ASN1_TYPE_new");
	ASN1_TYPE_set(yes, V_ASN1_BOOLEAN, (void *)1);
	entry = items(oid_type(hw[0]), octets_type("v", 1));
	sk_ASN1_TYPE_push(entry, yes);
	list = items(type_of(V_ASN1_SEQUENCE, sequence_der(entry)), NULL);
	CHECK(decode_with_spdm_value(sequence_der(list), "spdm-extension-swapped", &c, &err) == -EBADMSG);
	CHECK(strstr(err.why, "id-DMTF-SPDM-extension is not a SEQUENCE OF SPDMExtension") != NULL);
	spdm_chain_release(&c);
}

/* Header form: no prefix decodes. Bare form: only prefixes ending at a certificate do. */
static void test_truncations(void)
{
	X509 *leaf = make_leaf(leaf_key, T0, T_END, NULL, false);
	struct bytes b = { 0 }, bare = { 0 };
	struct spdm_chain c;
	struct ev_error err;
	unsigned int bad = 0, ok = 0;
	size_t ends[3], at = 0;

	standard_chain(&b, leaf, EVP_sha384());
	standard_chain(&bare, leaf, NULL);
	for (size_t n = 0; n < b.len; n++) {
		struct bytes cut = { .buf = b.buf, .len = n };

		if (decode(&cut, 0, &c, &err) != -EBADMSG || !err.set || err.offset > n)
			bad++;
		spdm_chain_release(&c);
	}
	CHECK(bad == 0);
	CHECK(decode(&bare, 0, &c, &err) == 0);
	for (unsigned int i = 0; i < 3; i++)
		ends[i] = at += c.certs[i].der_len;
	spdm_chain_release(&c);
	for (size_t n = 0; n < bare.len; n++) {
		struct bytes cut = { .buf = bare.buf, .len = n };
		int rc = decode(&cut, 0, &c, &err);

		if (n == ends[0] || n == ends[1])
			ok += rc == 0 && c.nr_certs == (n == ends[0] ? 1u : 2u);
		else if (rc != -EBADMSG || err.offset > n)
			bad++;
		spdm_chain_release(&c);
	}
	CHECK(bad == 0 && ok == 2);
	X509_free(leaf);
	bytes_free(&b);
	bytes_free(&bare);
}

static void test_lying_header(void)
{
	X509 *leaf = make_leaf(leaf_key, T0, T_END, NULL, false);
	struct bytes b = { 0 }, two = { 0 };
	struct spdm_chain c;
	struct ev_error err;
	size_t len;

	standard_chain(&b, leaf, EVP_sha384());
	len = b.len;
	patch_le(&b, 0, len + 1, 2);			/* Length past the object */
	CHECK(decode(&b, 0, &c, &err) == -EBADMSG && c.nr_certs == 0);
	spdm_chain_release(&c);
	patch_le(&b, 0, len - 1, 2);			/* Length cutting the leaf */
	CHECK(decode(&b, 0, &c, &err) == -EBADMSG);
	CHECK(err.offset > 52 && strstr(err.why, "runs past"));	/* the header's error, furthest in */
	spdm_chain_release(&c);
	patch_le(&b, 0, len, 2);
	patch_le(&b, 2, 1, 2);				/* Reserved not 0 */
	CHECK(decode(&b, 0, &c, &err) == -EBADMSG);
	spdm_chain_release(&c);
	patch_le(&b, 2, 0, 2);
	CHECK(decode(&b, 0, &c, &err) == 0);
	spdm_chain_release(&c);

	/* Length ends after the intermediate: two certificates, and bytes after the chain */
	build_chain(&two, (X509 *[]){ root, inter }, 2, EVP_sha384());
	patch_le(&b, 0, two.len, 2);
	CHECK(decode(&b, 0, &c, &err) == -EBADMSG && c.nr_certs == 2 && err.offset == two.len);
	CHECK(strstr(err.why, "bytes after the chain's Length") != NULL);
	spdm_chain_release(&c);
	X509_free(leaf);
	bytes_free(&b);
	bytes_free(&two);
}

/*
 * A header that does not fit says so: its error is kept, not replaced by the
 * bare reading's "byte 0x.. where a certificate belongs" at offset 0 (the
 * Length's low byte).
 */
static void test_header_error_kept(void)
{
	X509 *leaf = make_leaf(leaf_key, T0, T_END, NULL, false);
	struct bytes b = { 0 }, cut = { 0 };
	struct spdm_chain c;
	struct ev_error err;
	char msg[256];

	standard_chain(&b, leaf, EVP_sha384());
	/* a negotiated SHA-256: the 48-byte RootHash leaves no certificate where 32 bytes end */
	CHECK(decode(&b, 32, &c, &err) == -EBADMSG);
	CHECK(err.offset == 36 && strstr(err.why, "after a 32-byte RootHash, where the first "
					 "certificate (a DER SEQUENCE) belongs") != NULL);
	CHECK(!strstr(err.why, "where a certificate (a DER SEQUENCE) belongs"));
	spdm_chain_release(&c);
	/* cut short: the header's Length runs past the object */
	put_bytes(&cut, b.buf, b.len - 10);
	CHECK(decode(&cut, 0, &c, &err) == -EBADMSG);
	snprintf(msg, sizeof(msg), "the header's Length %zu runs past the object's %zu bytes",
		 b.len, cut.len);
	CHECK(err.offset == 0 && !strcmp(err.why, msg));
	spdm_chain_release(&c);
	/* a Reserved that is not 0: the object is no header, and no bare DER either */
	patch_le(&b, 2, 7, 2);
	CHECK(decode(&b, 0, &c, &err) == -EBADMSG && err.offset == 0);
	CHECK(strstr(err.why, "where a certificate (a DER SEQUENCE) belongs") != NULL);
	spdm_chain_release(&c);
	X509_free(leaf);
	bytes_free(&b);
	bytes_free(&cut);
}

static void test_deep_nesting(void)
{
	ASN1_STRING *deep = nested_der(40);
	X509 *bad_ext;
	struct bytes b = { 0 }, e = { 0 };
	struct spdm_chain c;
	struct ev_error err;

	/* as the object itself: one SEQUENCE, 40 deep */
	put_bytes(&b, ASN1_STRING_get0_data(deep), (size_t)ASN1_STRING_length(deep));
	CHECK(decode(&b, 0, &c, &err) == -EBADMSG && strstr(err.why, "nested deeper than 16"));
	CHECK(err.offset == 2 * SPDM_CERT_MAX_DEPTH);	/* the 17th SEQUENCE, two bytes each */
	spdm_chain_release(&c);
	ASN1_STRING_free(deep);

	/* inside a certificate's id-DMTF-SPDM-extension, where the certificate walk does not look */
	bad_ext = make_cert(&(struct cert_spec){ .cn = "deep", .key = ec_key, .serial = 9,
						  .not_before = T0, .not_after = T_END,
						  .spdm_value = nested_der(40) });
	put_der(&e, bad_ext);
	write_seed("deep-spdm-extension", e.buf, e.len);
	CHECK(decode(&e, 0, &c, &err) == -EBADMSG && err.offset == 0);
	CHECK(strstr(err.why, "id-DMTF-SPDM-extension is not a SEQUENCE OF SPDMExtension: DER "
			      "nested deeper than 16") != NULL);
	spdm_chain_release(&c);
	X509_free(bad_ext);
	bytes_free(&b);
	bytes_free(&e);
}

/* Two thousand certificates: the first 32 decoded, all counted, and the cap said. */
static void test_thousands(void)
{
	struct bytes b = { 0 };
	struct spdm_chain c;
	struct ev_error err;

	for (unsigned int i = 0; i < 2000; i++)
		put_der(&b, root);
	CHECK(decode(&b, 0, &c, &err) == -E2BIG);
	CHECK(c.nr_certs == SPDM_CHAIN_MAX_CERTS && c.nr_seen == 2000);
	CHECK(c.certs[31].x509 && !strcmp(c.certs[31].serial, "01"));
	CHECK(err.offset == 32 * c.certs[0].der_len && strstr(err.why, "2000 certificates"));
	spdm_chain_release(&c);
	bytes_free(&b);
}

static void test_not_certificates(void)
{
	struct bytes seq = { 0 }, ber = { 0 };
	ASN1_STRING *s = sequence_der(items(octets_type("abc", 3), oid_type("1.2.3")));
	struct spdm_chain c;
	struct ev_error err;
	char msg[256];

	CHECK(spdm_chain_decode(zero_blob(), ZERO_BLOB_SIZE, 0, &c, &err) == -EBADMSG);
	CHECK(!strcmp(ev_error_str(&err, msg, sizeof(msg)), "malformed at offset 0: byte 0x00 "
		      "where a certificate (a DER SEQUENCE) belongs"));
	spdm_chain_release(&c);

	/* a well-formed SEQUENCE that is no certificate */
	put_bytes(&seq, ASN1_STRING_get0_data(s), (size_t)ASN1_STRING_length(s));
	CHECK(decode(&seq, 0, &c, &err) == -EBADMSG && c.nr_certs == 1 && !c.certs[0].x509);
	CHECK(strstr(err.why, "certificate 0 does not decode as X.509") != NULL);
	spdm_chain_release(&c);
	ASN1_STRING_free(s);

	/* BER's indefinite length, which no DER encoder makes: SEQUENCE, 0x80, ..., end-of-contents */
	put8(&ber, V_ASN1_SEQUENCE | V_ASN1_CONSTRUCTED);
	put8(&ber, 0x80);
	put_der(&ber, root);
	put16(&ber, 0);
	CHECK(decode(&ber, 0, &c, &err) == -EBADMSG && err.offset == 0 && strstr(err.why, "BER"));
	spdm_chain_release(&c);

	CHECK(spdm_chain_decode(NULL, 0, 0, &c, &err) == -EBADMSG && err.offset == 0);
	CHECK(spdm_chain_decode(NULL, 1, 0, &c, &err) == -EINVAL);
	CHECK(!strcmp(spdm_oid_name(SPDM_OID_EKU_REQUESTER_AUTH), "eku_requester_auth"));
	CHECK(!strcmp(spdm_oid_name((enum spdm_oid)99), "unknown"));
	bytes_free(&seq);
	bytes_free(&ber);
}

int main(int argc, char **argv)
{
	seeds_from_args(argc, argv);
	make_keys_and_cas();
	test_header_chain();
	test_rsa_leaf_and_hash_sizes();
	test_variants();
	test_spdm_entry_forms();
	test_truncations();
	test_lying_header();
	test_header_error_kept();
	test_deep_nesting();
	test_thousands();
	test_not_certificates();
	X509_free(root);
	X509_free(inter);
	EVP_PKEY_free(ec_key);
	EVP_PKEY_free(leaf_key);
	EVP_PKEY_free(rsa_key);
	return unit_report();
}
