// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SPDM certificate chain decoder (DSP0274 "Certificate chain format",
 * ABI.md §1.7). The DER is libcrypto's to read: ASN1_get_object() finds each
 * certificate's extent and bounds the nesting before d2i_X509() decodes it,
 * and the DMTF extension goes through d2i_ASN1_SEQUENCE_ANY().
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tsmctl/spdm-cert.h"

#define DER_SEQUENCE		0x30
#define ASN1_GET_ERROR		0x80	/* ASN1_get_object(): bad or overlong */
#define ASN1_GET_INDEFINITE	0x21	/* constructed with indefinite length: BER, not DER */
#define DMTF_SPDM_ARC		"1.3.6.1.4.1.412.274."
#define DMTF_SPDM_ARC_LEN	(sizeof(DMTF_SPDM_ARC) - 1)

static const char *const oid_names[] = {
	[SPDM_OID_UNKNOWN] = "unknown",
	[SPDM_OID_DEVICE_INFO] = "device_info",
	[SPDM_OID_HARDWARE_IDENTITY] = "hardware_identity",
	[SPDM_OID_EKU_RESPONDER_AUTH] = "eku_responder_auth",
	[SPDM_OID_EKU_REQUESTER_AUTH] = "eku_requester_auth",
	[SPDM_OID_MUTABLE_CERTIFICATE] = "mutable_certificate",
	[SPDM_OID_SPDM_EXTENSION] = "spdm_extension",
};

const char *spdm_oid_name(enum spdm_oid which)
{
	return (unsigned int)which < sizeof(oid_names) / sizeof(oid_names[0]) ? oid_names[which]
									: "unknown";
}

const struct spdm_cert *spdm_chain_first(const struct spdm_chain *chain)
{
	return chain->nr_certs ? &chain->certs[0] : NULL;
}

const struct spdm_cert *spdm_chain_leaf(const struct spdm_chain *chain)
{
	return chain->nr_certs ? &chain->certs[chain->nr_certs - 1] : NULL;
}

static long as_long(size_t n)
{
	return n > LONG_MAX ? LONG_MAX : (long)n;
}

/* libcrypto's reason for the last failure, and an empty queue for the next call. */
static const char *crypto_reason(void)
{
	const char *why = ERR_reason_error_string(ERR_peek_last_error());

	ERR_clear_error();
	return why ? why : "no reason given";
}

/*
 * Every TLV in P[0..LEN) is DER with a definite length, and constructed ones
 * nest at most SPDM_CERT_MAX_DEPTH deep. BASE is P's offset in the object.
 */
static bool der_nesting_ok(const unsigned char *p, long len, unsigned int depth, size_t base,
			   struct ev_error *err)
{
	const unsigned char *start = p, *end = p + len;

	while (p < end) {
		const unsigned char *q = p;
		long clen = 0;
		int tag, cls, r = ASN1_get_object(&q, &clen, &tag, &cls, end - p);

		if (r & ASN1_GET_ERROR) {
			ev_fail(err, base + (size_t)(p - start), "DER element does not decode: %s",
				crypto_reason());
			return false;
		}
		if (r == ASN1_GET_INDEFINITE) {
			ev_fail(err, base + (size_t)(p - start), "indefinite length: BER, not DER");
			return false;
		}
		if (r & V_ASN1_CONSTRUCTED) {
			if (depth + 1 > SPDM_CERT_MAX_DEPTH) {
				ev_fail(err, base + (size_t)(p - start), "DER nested deeper than %u",
					SPDM_CERT_MAX_DEPTH);
				return false;
			}
			if (!der_nesting_ok(q, clen, depth + 1, base + (size_t)(q - start), err))
				return false;
		}
		p = q + clen;
	}
	return true;
}

/* The extent of the certificate at OFF: a DER SEQUENCE with its length inside [OFF, END). */
static bool cert_extent(const uint8_t *buf, size_t off, size_t end, size_t *total,
			struct ev_error *err)
{
	const unsigned char *p = buf + off, *q = p;
	long clen = 0;
	int tag, cls, r;

	if (buf[off] != DER_SEQUENCE) {
		ev_fail(err, off, "byte 0x%02x where a certificate (a DER SEQUENCE) belongs",
			buf[off]);
		return false;
	}
	r = ASN1_get_object(&q, &clen, &tag, &cls, as_long(end - off));
	if (r & ASN1_GET_ERROR) {
		ev_fail(err, off, "a certificate's DER length runs past %zu or does not decode: %s",
			end, crypto_reason());
		return false;
	}
	if (r == ASN1_GET_INDEFINITE) {
		ev_fail(err, off, "a certificate with indefinite length: BER, not DER");
		return false;
	}
	*total = (size_t)(q - p) + (size_t)clen;
	return true;
}

/* Certificates tile [START, END) exactly: their number, without decoding them. */
static bool chain_layout(const uint8_t *buf, size_t start, size_t end, unsigned int *count,
			 struct ev_error *err)
{
	size_t off = start, total;

	*count = 0;
	if (start >= end) {
		ev_fail(err, start, "no certificate in the chain");
		return false;
	}
	while (off < end) {
		if (!cert_extent(buf, off, end, &total, err))
			return false;
		off += total;
		if (*count < UINT_MAX)
			(*count)++;
	}
	return true;
}

/* A libcrypto name as RFC 2253 text, allocated. */
static char *name_text(const X509_NAME *name)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data = NULL, *out = NULL;
	long n;

	if (!bio)
		return NULL;
	if (X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) >= 0) {
		n = BIO_get_mem_data(bio, &data);
		out = malloc((size_t)(n > 0 ? n : 0) + 1);
		if (out) {
			if (n > 0)
				memcpy(out, data, (size_t)n);
			out[n > 0 ? n : 0] = '\0';
		}
	}
	BIO_free(bio);
	return out;
}

char *spdm_subject_text(const struct x509_st *x)
{
	return name_text(X509_get_subject_name(x));
}

static char *serial_text(const ASN1_INTEGER *serial)
{
	BIGNUM *bn = ASN1_INTEGER_to_BN(serial, NULL);
	char *hex, *out = NULL;

	if (!bn)
		return NULL;
	hex = BN_bn2hex(bn);
	if (hex) {
		out = strdup(hex);
		for (char *s = out; s && *s; s++)
			if (*s >= 'A' && *s <= 'F')
				*s = (char)(*s - 'A' + 'a');
		OPENSSL_free(hex);
	}
	BN_free(bn);
	return out;
}

static bool time_of(const ASN1_TIME *t, int64_t *out)
{
	struct tm tm;

	if (!t || !ASN1_TIME_to_tm(t, &tm))
		return false;
	*out = (int64_t)timegm(&tm);
	return true;
}

static void decode_key(const X509 *x, struct spdm_cert *c)
{
	EVP_PKEY *key = X509_get0_pubkey(x);
	size_t n = 0;

	ERR_clear_error();	/* an unknown key algorithm is not a failure here */
	if (!key)
		return;
	c->key_bits = (unsigned int)(EVP_PKEY_get_bits(key) > 0 ? EVP_PKEY_get_bits(key) : 0);
	switch (EVP_PKEY_get_base_id(key)) {
	case EVP_PKEY_RSA:
		c->key_type = SPDM_KEY_RSA;
		break;
	case EVP_PKEY_RSA_PSS:
		c->key_type = SPDM_KEY_RSA_PSS;
		break;
	case EVP_PKEY_EC:
	case EVP_PKEY_SM2:
		if (!EVP_PKEY_get_group_name(key, c->key_group, sizeof(c->key_group), &n))
			c->key_group[0] = '\0';
		c->key_type = !strcmp(c->key_group, "SM2") ? SPDM_KEY_SM2 : SPDM_KEY_EC;
		break;
	case EVP_PKEY_ED25519:
		c->key_type = SPDM_KEY_ED25519;
		break;
	case EVP_PKEY_ED448:
		c->key_type = SPDM_KEY_ED448;
		break;
	default:
		c->key_type = SPDM_KEY_UNKNOWN;
	}
	ERR_clear_error();
}

/* Which DMTF SPDM OID the dotted text names, or -1 outside the arc. */
static int dmtf_oid(const char *txt)
{
	char *end;
	unsigned long n;

	if (strncmp(txt, DMTF_SPDM_ARC, DMTF_SPDM_ARC_LEN))
		return -1;
	n = strtoul(txt + DMTF_SPDM_ARC_LEN, &end, 10);
	if (*end || end == txt + DMTF_SPDM_ARC_LEN || n < SPDM_OID_DEVICE_INFO ||
	    n > SPDM_OID_SPDM_EXTENSION)
		return SPDM_OID_UNKNOWN;
	return (int)n;
}

/* Dotted text of OBJ; false when it does not fit (then it is no DMTF OID of ours). */
static bool oid_text(const ASN1_OBJECT *obj, char *buf, size_t size)
{
	int n = OBJ_obj2txt(buf, (int)size, obj, 1);

	return n > 0 && (size_t)n < size;
}

/* Record a DMTF OID found at PLACE, and what it says about the certificate. */
static void add_oid(struct spdm_cert *c, const ASN1_OBJECT *obj, enum spdm_oid_place place,
		    bool critical, size_t value_len)
{
	struct spdm_cert_oid *o;
	char txt[sizeof(o->oid)];
	int which;

	if (!oid_text(obj, txt, sizeof(txt)) || (which = dmtf_oid(txt)) < 0)
		return;
	if (which == SPDM_OID_HARDWARE_IDENTITY)
		c->hardware_identity = true;
	if (which == SPDM_OID_MUTABLE_CERTIFICATE)
		c->mutable_certificate = true;
	if (which == SPDM_OID_EKU_RESPONDER_AUTH && place == SPDM_OID_IN_EKU)
		c->eku_responder_auth = true;
	if (which == SPDM_OID_EKU_REQUESTER_AUTH && place == SPDM_OID_IN_EKU)
		c->eku_requester_auth = true;
	if (c->nr_oids >= SPDM_CERT_MAX_OIDS) {
		c->oids_capped = true;
		return;
	}
	o = &c->oids[c->nr_oids++];
	memcpy(o->oid, txt, sizeof(o->oid));
	o->which = (enum spdm_oid)which;
	o->place = place;
	o->critical = critical;
	o->value_len = value_len;
}

/*
 * One SPDMExtension ::= SEQUENCE { id OID, critical BOOLEAN DEFAULT FALSE,
 * extnValue OCTET STRING OPTIONAL }: the id alone is the usual form (the one
 * libspdm's test certificates carry for id-DMTF-hardware-identity).
 */
static bool decode_spdm_entry(struct spdm_cert *c, const ASN1_TYPE *t)
{
	const unsigned char *p;
	STACK_OF(ASN1_TYPE) *fields;
	const ASN1_TYPE *id, *crit = NULL, *value = NULL;
	bool ok;
	int n, i = 1;

	if (t->type != V_ASN1_SEQUENCE)
		return false;
	p = t->value.sequence->data;
	fields = d2i_ASN1_SEQUENCE_ANY(NULL, &p, t->value.sequence->length);
	if (!fields || p != t->value.sequence->data + t->value.sequence->length) {
		sk_ASN1_TYPE_pop_free(fields, ASN1_TYPE_free);
		return false;
	}
	n = sk_ASN1_TYPE_num(fields);
	id = n ? sk_ASN1_TYPE_value(fields, 0) : NULL;
	if (i < n && sk_ASN1_TYPE_value(fields, i)->type == V_ASN1_BOOLEAN)
		crit = sk_ASN1_TYPE_value(fields, i++);
	if (i < n && sk_ASN1_TYPE_value(fields, i)->type == V_ASN1_OCTET_STRING)
		value = sk_ASN1_TYPE_value(fields, i++);
	ok = id && id->type == V_ASN1_OBJECT && i == n;
	if (ok)
		add_oid(c, id->value.object, SPDM_OID_IN_SPDM_EXTENSION, crit && crit->value.boolean,
			value ? (size_t)ASN1_STRING_length(value->value.octet_string) : 0);
	sk_ASN1_TYPE_pop_free(fields, ASN1_TYPE_free);
	return ok;
}

/*
 * id-DMTF-SPDM-extension's value: SEQUENCE SIZE (1..MAX) OF SPDMExtension.
 * It is libcrypto's copy, not the object's bytes: errors name the certificate's offset.
 */
static bool decode_spdm_extension(struct spdm_cert *c, X509_EXTENSION *ext, unsigned int idx,
				  struct ev_error *err)
{
	const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(ext);
	const unsigned char *p = ASN1_STRING_get0_data(data), *start = p;
	long n = ASN1_STRING_length(data);
	STACK_OF(ASN1_TYPE) *list = NULL;
	struct ev_error nest = { 0 };
	bool ok = der_nesting_ok(p, n, 0, 0, &nest);

	if (ok) {
		list = d2i_ASN1_SEQUENCE_ANY(NULL, &p, n);
		ok = list && p == start + n && sk_ASN1_TYPE_num(list) > 0;
	}
	for (int i = 0; ok && i < sk_ASN1_TYPE_num(list); i++)
		ok = decode_spdm_entry(c, sk_ASN1_TYPE_value(list, i));
	sk_ASN1_TYPE_pop_free(list, ASN1_TYPE_free);
	ERR_clear_error();
	if (!ok)
		ev_fail(err, c->offset, "certificate %u: id-DMTF-SPDM-extension is not a SEQUENCE "
			"OF SPDMExtension%s%s", idx, nest.set ? ": " : "", nest.set ? nest.why : "");
	return ok;
}

/* DMTF OIDs that are extensions themselves; id-DMTF-SPDM-extension's list inside. */
static bool decode_dmtf_extensions(X509 *x, struct spdm_cert *c, unsigned int idx,
				   struct ev_error *err)
{
	for (int i = 0; i < X509_get_ext_count(x); i++) {
		X509_EXTENSION *ext = X509_get_ext(x, i);
		const ASN1_OBJECT *obj = X509_EXTENSION_get_object(ext);
		char txt[sizeof(c->oids[0].oid)];

		if (!oid_text(obj, txt, sizeof(txt)) || dmtf_oid(txt) < 0)
			continue;
		add_oid(c, obj, SPDM_OID_AS_EXTENSION, X509_EXTENSION_get_critical(ext),
			(size_t)ASN1_STRING_length(X509_EXTENSION_get_data(ext)));
		if (dmtf_oid(txt) == SPDM_OID_SPDM_EXTENSION && !decode_spdm_extension(c, ext, idx, err))
			return false;
	}
	return true;
}

static void decode_eku(X509 *x, struct spdm_cert *c)
{
	int crit = 0;
	EXTENDED_KEY_USAGE *eku = X509_get_ext_d2i(x, NID_ext_key_usage, &crit, NULL);

	for (int i = 0; eku && i < sk_ASN1_OBJECT_num(eku); i++)
		add_oid(c, sk_ASN1_OBJECT_value(eku, i), SPDM_OID_IN_EKU, crit > 0, 0);
	EXTENDED_KEY_USAGE_free(eku);
}

/* The SAN otherName id-DMTF-device-info: a UTF8String "manufacturer:product:serial". */
static bool decode_san(X509 *x, struct spdm_cert *c)
{
	int crit = 0;
	GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, &crit, NULL);
	bool ok = true;

	for (int i = 0; ok && names && i < sk_GENERAL_NAME_num(names); i++) {
		const GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, i);
		const ASN1_TYPE *v;
		char txt[sizeof(c->oids[0].oid)];

		if (gn->type != GEN_OTHERNAME || !oid_text(gn->d.otherName->type_id, txt, sizeof(txt)))
			continue;
		if (dmtf_oid(txt) < 0)
			continue;
		v = gn->d.otherName->value;
		add_oid(c, gn->d.otherName->type_id, SPDM_OID_IN_SAN, crit > 0,
			v && v->type == V_ASN1_UTF8STRING ? (size_t)v->value.utf8string->length : 0);
		if (dmtf_oid(txt) != SPDM_OID_DEVICE_INFO || c->device_info || !v ||
		    v->type != V_ASN1_UTF8STRING)
			continue;
		c->device_info_len = (size_t)v->value.utf8string->length;
		c->device_info = malloc(c->device_info_len + 1);
		if (!c->device_info) {
			ok = false;
			break;
		}
		memcpy(c->device_info, v->value.utf8string->data, c->device_info_len);
		c->device_info[c->device_info_len] = '\0';
	}
	GENERAL_NAMES_free(names);
	return ok;
}

/* The fields a view and the checks read, from libcrypto's decoded certificate. */
static int describe_cert(X509 *x, struct spdm_cert *c, unsigned int idx, struct ev_error *err)
{
	uint32_t flags = X509_get_extension_flags(x);

	if (flags & EXFLAG_INVALID) {
		ev_fail(err, c->offset, "certificate %u: its extensions do not decode", idx);
		return -EBADMSG;
	}
	c->ca = flags & EXFLAG_CA;
	c->self_issued = flags & EXFLAG_SI;
	c->version = X509_get_version(x) + 1;
	c->has_basic_constraints = flags & EXFLAG_BCONS;
	c->has_key_usage = flags & EXFLAG_KUSAGE;
	c->subject = name_text(X509_get_subject_name(x));
	c->issuer = name_text(X509_get_issuer_name(x));
	c->serial = serial_text(X509_get0_serialNumber(x));
	if (!c->subject || !c->issuer || !c->serial)
		return -ENOMEM;
	c->has_validity = time_of(X509_get0_notBefore(x), &c->not_before) &&
			  time_of(X509_get0_notAfter(x), &c->not_after);
	if (!c->has_validity) {
		ev_fail(err, c->offset, "certificate %u: its validity times do not decode", idx);
		return -EBADMSG;
	}
	c->sig_alg = OBJ_nid2sn(X509_get_signature_nid(x));
	decode_key(x, c);
	if (!decode_dmtf_extensions(x, c, idx, err))
		return -EBADMSG;
	decode_eku(x, c);
	if (!decode_san(x, c))
		return -ENOMEM;
	ERR_clear_error();
	return 0;
}

static int decode_cert(const uint8_t *buf, size_t off, size_t total, struct spdm_cert *c,
		       unsigned int idx, struct ev_error *err)
{
	const unsigned char *p = buf + off;

	c->offset = off;
	c->der = buf + off;
	c->der_len = total;
	if (!der_nesting_ok(p, as_long(total), 0, off, err))
		return -EBADMSG;
	c->x509 = d2i_X509(NULL, &p, as_long(total));
	if (!c->x509 || p != buf + off + total) {
		ev_fail(err, off, "certificate %u does not decode as X.509: %s", idx, crypto_reason());
		return -EBADMSG;
	}
	return describe_cert(c->x509, c, idx, err);
}

/* The certificates of [START, END): the first SPDM_CHAIN_MAX_CERTS decoded, all counted. */
static int decode_certs(const uint8_t *buf, size_t start, size_t end, struct spdm_chain *chain,
			struct ev_error *err)
{
	unsigned int count, n;
	size_t off = start, total;
	int rc;

	if (!chain_layout(buf, start, end, &count, err))
		return -EBADMSG;
	chain->certs_offset = start;
	chain->nr_seen = count;
	n = count < SPDM_CHAIN_MAX_CERTS ? count : SPDM_CHAIN_MAX_CERTS;
	chain->certs = calloc(n, sizeof(*chain->certs));
	if (!chain->certs)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		cert_extent(buf, off, end, &total, err);
		chain->nr_certs = i + 1;
		rc = decode_cert(buf, off, total, &chain->certs[i], i, err);
		if (rc)
			return rc;
		off += total;
	}
	if (count > SPDM_CHAIN_MAX_CERTS) {
		ev_fail(err, off, "%u certificates, more than the %u this decoder takes (the first "
			"%u decoded)", count, SPDM_CHAIN_MAX_CERTS, SPDM_CHAIN_MAX_CERTS);
		return -E2BIG;
	}
	return 0;
}

static const size_t root_hash_lens[] = { 32, 48, 64 };

/* Keep E in BEST when it got further into the object than what BEST holds. */
static void keep_furthest(struct ev_error *best, const struct ev_error *e)
{
	if (e->set && (!best->set || e->offset > best->offset))
		*best = *e;
}

/*
 * Which root hash lengths make a header layout: Length within the object,
 * Reserved 0, certificates tiling [4 + H, Length). BEST keeps why the header
 * does not fit, from the candidate that got furthest, for when no form fits.
 */
static unsigned int header_fits(const uint8_t *buf, size_t len, size_t hash_len,
				struct ev_error *best)
{
	size_t length;
	unsigned int fits = 0, count;

	if (len < SPDM_CHAIN_HDR_SIZE) {
		ev_fail(best, 0, "%zu bytes: shorter than the chain's 4-byte header", len);
		return 0;
	}
	if (ev_le(buf + 2, 2)) {
		ev_fail(best, 2, "the header's Reserved is 0x%04x, not 0", (unsigned int)ev_le(buf + 2, 2));
		return 0;
	}
	length = (size_t)ev_le(buf, 2);
	if (length > len) {
		ev_fail(best, 0, "the header's Length %zu runs past the object's %zu bytes", length, len);
		return 0;
	}
	for (unsigned int i = 0; i < sizeof(root_hash_lens) / sizeof(root_hash_lens[0]); i++) {
		size_t h = root_hash_lens[i], start = SPDM_CHAIN_HDR_SIZE + h;
		struct ev_error e = { 0 };

		if (hash_len && h != hash_len)
			continue;
		if (start >= length)
			ev_fail(&e, 0, "the header's Length %zu leaves no certificate after a %zu-byte "
				"RootHash", length, h);
		else if (buf[start] != DER_SEQUENCE)
			ev_fail(&e, start, "byte 0x%02x after a %zu-byte RootHash, where the first "
				"certificate (a DER SEQUENCE) belongs", buf[start], h);
		else if (chain_layout(buf, start, length, &count, &e))
			fits |= 1u << i;
		keep_furthest(best, &e);
	}
	if (!fits && !best->set)
		ev_fail(best, 0, "no RootHash length of %zu bytes fits the header", hash_len);
	return fits;
}

/*
 * Does the object start as a header would: Reserved 0 and a Length past the
 * header itself? Bare DER never does: its bytes 2 and 3 are a SEQUENCE's
 * length or the first certificate's own tag.
 */
static bool header_plausible(const uint8_t *buf, size_t len)
{
	return len >= SPDM_CHAIN_HDR_SIZE && !ev_le(buf + 2, 2) && ev_le(buf, 2) > SPDM_CHAIN_HDR_SIZE;
}

static int decode_header_form(const uint8_t *buf, size_t len, unsigned int fits,
			      struct spdm_chain *chain, struct ev_error *err)
{
	unsigned int i = 0;
	int rc;

	while (!(fits & (1u << i)))
		i++;
	chain->form = SPDM_CHAIN_HEADER;
	chain->length = (uint16_t)ev_le(buf, 2);
	chain->root_hash_fits = fits;
	chain->root_hash_offset = SPDM_CHAIN_HDR_SIZE;
	chain->root_hash_len = root_hash_lens[i];
	chain->root_hash = buf + SPDM_CHAIN_HDR_SIZE;
	rc = decode_certs(buf, SPDM_CHAIN_HDR_SIZE + root_hash_lens[i], chain->length, chain, err);
	if (rc)
		return rc;
	if (chain->length < len) {
		ev_fail(err, chain->length, "%zu bytes after the chain's Length (%u)",
			len - chain->length, chain->length);
		return -EBADMSG;
	}
	return 0;
}

int spdm_chain_decode(const uint8_t *buf, size_t len, size_t hash_len, struct spdm_chain *chain,
		      struct ev_error *err)
{
	struct ev_error header_err = { 0 }, bare_err = { 0 };
	unsigned int fits, count;
	int rc;

	rc = ev_begin(chain, sizeof(*chain), &buf, len, err);
	if (rc)
		return rc;
	if (!len) {
		ev_fail(err, 0, "an empty certificate chain");
		return -EBADMSG;
	}
	fits = header_fits(buf, len, hash_len, &header_err);
	if (fits) {
		rc = decode_header_form(buf, len, fits, chain, err);
	} else if (chain_layout(buf, 0, len, &count, &bare_err)) {
		chain->form = SPDM_CHAIN_BARE;
		rc = decode_certs(buf, 0, len, chain, err);
	} else {
		/* neither form: a header whose certificates do not fit is said as such */
		if (err)
			*err = header_plausible(buf, len) ? header_err : bare_err;
		rc = -EBADMSG;
	}
	ERR_clear_error();
	return rc;
}

static void cert_release(struct spdm_cert *c)
{
	X509_free(c->x509);
	free(c->subject);
	free(c->issuer);
	free(c->serial);
	free(c->device_info);
}

void spdm_chain_release(struct spdm_chain *chain)
{
	for (unsigned int i = 0; i < chain->nr_certs; i++)
		cert_release(&chain->certs[i]);
	free(chain->certs);
	chain->certs = NULL;
	chain->nr_certs = 0;
}
