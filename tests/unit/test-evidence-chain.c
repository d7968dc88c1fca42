// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.chain and evidence.root-hash (evidence-verify-chain.c,
 * evidence-verify-leaf.c) on certificates made with the openssl command line
 * (tests/vectors/gen-chains, committed in tests/vectors/chains/): the four
 * profiles of libspdm's sample responder chains pass; each leaf rule of
 * libspdm_x509_certificate_check() fails the leaf that breaks it; chains out
 * of order (shuffled, a foreign certificate inserted, a decoy root first)
 * fail; a chain without its root verifies to the trust store's root, which
 * RootHash is then checked against; --pin proposes a first use as
 * EV_RISK_FIRST_USE, only for a chain that verified, and writes nothing
 * until asked. The run's cache verifies a chain shared by two devices once,
 * a chain one byte off on its own, and keeps RootHash and the leaf rules
 * each device's. TSMCTL_VECTORS names another vectors directory.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "bytes.h"
#include "vca-build.h"
#include "tsmctl/evidence-trust.h"
#include "tsmctl/evidence-verify.h"
#include "tsmctl/evidence-verify-cache.h"
#include "tsmctl/util.h"
#include "unit.h"

#define ALIAS_CERT_CAP	(1u << 18)

static const char *vectors = "tests/vectors/chains";

static X509 *load_cert(const char *name)
{
	char *path = xasprintf("%s/%s.pem", vectors, name);
	FILE *f = fopen(path, "r");
	X509 *x = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;

	if (!x) {
		fprintf(stderr, "test-evidence-chain: cannot read %s (run from the top of the tree, "
			"or set TSMCTL_VECTORS)\n", path);
		exit(2);
	}
	fclose(f);
	free(path);
	return x;
}

static void put_cert(struct bytes *b, const char *name)
{
	X509 *x = load_cert(name);
	unsigned char *der = NULL;
	int n = i2d_X509(x, &der);

	put_bytes(b, der, (size_t)n);
	OPENSSL_free(der);
	X509_free(x);
}

/* The certificates NAMES (NULL-terminated), DER back to back: a bare chain. */
static void bare_chain(struct bytes *b, const char *const *names)
{
	for (; *names; names++)
		put_cert(b, *names);
}

static void read_file(struct bytes *b, const char *name)
{
	char *path = xasprintf("%s/%s", vectors, name);
	FILE *f = fopen(path, "rb");
	uint8_t buf[4096];
	size_t n;

	if (!f) {
		fprintf(stderr, "test-evidence-chain: cannot read %s\n", path);
		exit(2);
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		put_bytes(b, buf, n);
	fclose(f);
	free(path);
}

static X509_STORE *store_of(const char *root)
{
	X509_STORE *s = X509_STORE_new();
	X509 *x = load_cert(root);

	X509_STORE_add_cert(s, x);
	X509_free(x);
	return s;
}

/* A set of BDF 0000:01:00.0 holding CHAIN as cert0 and, when VCA has bytes, the VCA. */
static void make_set(struct evidence_set *s, const struct bytes *chain, const struct bytes *vca)
{
	const struct bytes *objs[2] = { chain, vca };
	const unsigned int types[2] = { 0, 8 };

	evset_init(s);
	snprintf(s->bdf, sizeof(s->bdf), "0000:01:00.0");
	for (unsigned int i = 0; i < 2; i++) {
		if (!objs[i] || !objs[i]->len)
			continue;
		s->obj[types[i]] = (struct evset_object){ .present = true, .generation = 1,
							  .length = (uint32_t)objs[i]->len,
							  .received = (uint32_t)objs[i]->len };
		s->obj[types[i]].data = malloc(objs[i]->len);
		memcpy(s->obj[types[i]].data, objs[i]->buf, objs[i]->len);
	}
}

struct verdict {
	char text[1024];	/* "status: message" */
	enum ev_risk risk;
};

/* The run's cache judge() verifies through: NULL, none. */
static struct ev_cache *judge_cache;

/* Judge S with STORE and PINS; check ID's result about OBJECT into V. */
static void judge(const struct evidence_set *s, X509_STORE *store, struct ev_pins *pins,
		  const char *id, const char *object, struct verdict *v)
{
	struct ev_verify_opts o = { .store = store, .store_path = store ? "trust.pem" : "/none",
				    .store_missing = "does not exist", .pins = pins, .live = true,
				    .cache = judge_cache };
	struct ev_decoded d;
	struct ev_results r;

	ev_decode_set(s, &d);
	ev_verify(&d, &o, &r);
	snprintf(v->text, sizeof(v->text), "no result");
	v->risk = EV_RISK_NONE;
	for (size_t i = 0; i < r.n; i++) {
		if (strcmp(r.v[i].check->id, id) || strcmp(r.v[i].object, object))
			continue;
		snprintf(v->text, sizeof(v->text), "%s: %s", ev_status_name(r.v[i].status),
			 r.v[i].message);
		v->risk = r.v[i].risk;
	}
	ev_results_free(&r);
	ev_decoded_release(&d);
}

#define EXPECT_PREFIX(got, want) do { \
		CHECK(!strncmp((got), (want), strlen(want))); \
		if (strncmp((got), (want), strlen(want))) \
			printf("  got:  %s\n  want: %s...\n", (got), (want)); \
	} while (0)
#define EXPECT_HAS(got, part) do { \
		CHECK(strstr((got), (part)) != NULL); \
		if (!strstr((got), (part))) \
			printf("  got:  %s\n  lacks: %s\n", (got), (part)); \
	} while (0)

static void vca_of(struct bytes *b, uint8_t version, uint32_t extra_rsp_flags)
{
	struct vca_spec vs = version >= 0x13 ? vca_spec_13() : vca_spec_12();

	vs.rsp_flags |= extra_rsp_flags;
	build_vca(b, &vs);
}

/* Chain ROOT, INTER, LEAF under a store holding ROOT, with VCA of VERSION (0: none). */
static void judge_leaf(const char *set, const char *leaf, uint8_t version, uint32_t rsp_flags,
		       struct verdict *v)
{
	char *root = xasprintf("%s.root", set), *inter = xasprintf("%s.inter", set);
	const char *names[] = { root, inter, leaf, NULL };
	struct bytes chain = { 0 }, vca = { 0 };
	struct evidence_set s;
	X509_STORE *store = store_of(root);

	bare_chain(&chain, names);
	if (version)
		vca_of(&vca, version, rsp_flags);
	make_set(&s, &chain, &vca);
	judge(&s, store, NULL, "evidence.chain", "cert0", v);
	evset_release(&s);
	X509_STORE_free(store);
	bytes_free(&chain);
	bytes_free(&vca);
	free(root);
	free(inter);
}

/* libspdm's sample responder chains: serverAuth/clientAuth/OCSP EKUs, no SPDM EKU, all pass. */
static void test_libspdm_profiles(void)
{
	static const char *const sets[] = { "ecp256", "ecp384", "rsa2048", "rsa3072" };
	struct verdict v;

	for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
		char *leaf = xasprintf("%s.leaf", sets[i]), *want;

		judge_leaf(sets[i], leaf, 0, 0, &v);
		want = xasprintf("pass: verified against trust.pem (3 certificates, root CN=vectors %s "
				 "root CA, leaf CN=vectors %s responder", sets[i], sets[i]);
		EXPECT_PREFIX(v.text, want);
		judge_leaf(sets[i], leaf, 0x13, 0, &v);
		EXPECT_PREFIX(v.text, want);
		free(want);
		free(leaf);
	}
}

/* One leaf rule broken per leaf (libspdm_x509_certificate_check()), and the EKUs it accepts. */
static void test_leaf_rules(void)
{
	static const struct {
		const char *leaf;
		uint8_t version;
		uint32_t rsp_flags;
		const char *want;
	} cases[] = {
		{ "leaf-no-ku", 0x13, 0, "fail: the leaf has no keyUsage" },
		{ "leaf-ku-no-ds", 0x13, 0, "fail: the leaf's keyUsage lacks digitalSignature" },
		{ "leaf-v1", 0x12, 0, "fail: the leaf is an X.509 v1 certificate, not v3" },
		{ "leaf-no-bc", 0x13, 0, "fail: the leaf has no basicConstraints, which SPDM 1.3 "
					  "requires (cA FALSE)" },
		{ "leaf-no-bc", 0x12, 0, "pass: verified against" },
		{ "leaf-no-bc", 0, 0, "pass: verified against" },
		{ "leaf-ca", 0x12, 0, "fail: the leaf's basicConstraints is not cA FALSE (it is a CA "
				       "certificate)" },
		{ "leaf-req-eku", 0x13, 0, "fail: the leaf's extendedKeyUsage names "
					    "id-DMTF-eku-requester-auth" },
		{ "leaf-req-rsp-eku", 0x13, 0, "pass: verified against" },
		{ "leaf-rsp-eku", 0x13, 0, "pass: verified against" },
		{ "leaf-no-eku", 0x13, 0, "pass: verified against" },
		/* the alias certificate model: no hardware identity in the leaf */
		{ "ecp384.leaf", 0x13, ALIAS_CERT_CAP, "fail: the responder uses the alias "
						       "certificate model (ALIAS_CERT_CAP) but the leaf "
						       "carries id-DMTF-hardware-identity" },
		{ "ecp384.leaf", 0x13, 0, "pass: verified against" },
		{ "leaf-no-hwid", 0x13, ALIAS_CERT_CAP, "pass: verified against" },
		{ "leaf-dsn", 0x13, 0, "pass: verified against" },
	};
	struct verdict v;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		judge_leaf("ecp384", cases[i].leaf, cases[i].version, cases[i].rsp_flags, &v);
		EXPECT_PREFIX(v.text, cases[i].want);
	}
	/* a v1 leaf breaks more than the version: keyUsage and basicConstraints too */
	judge_leaf("ecp384", "leaf-v1", 0x13, 0, &v);
	EXPECT_HAS(v.text, "; the leaf has no keyUsage");
	EXPECT_HAS(v.text, "; the leaf has no basicConstraints");
}

/* Chains out of DSP0274's order fail, whatever the store or the pins say. */
static void test_order(void)
{
	static const char *const shuffled[] = { "ecp384.inter", "ecp384.root", "ecp384.leaf", NULL };
	static const char *const foreign[] = { "ecp384.root", "other.leaf", "ecp384.inter",
					       "ecp384.leaf", NULL };
	static const char *const decoy[] = { "other.root", "ecp384.root", "ecp384.inter",
					     "ecp384.leaf", NULL };
	const char *const *chains[] = { shuffled, foreign, decoy };
	static const char *const want[] = {
		"fail: certificate 1 (CN=vectors ecp384 root CA) is not signed by certificate 0 "
		"(CN=vectors ecp384 intermediate) before it",
		"fail: certificate 1 (CN=vectors other device) is not signed by certificate 0 "
		"(CN=vectors ecp384 root CA) before it",
		"fail: certificate 1 (CN=vectors ecp384 root CA) is not signed by certificate 0 "
		"(CN=vectors other root CA) before it",
	};
	X509_STORE *store = store_of("ecp384.root");
	X509 *decoy_root = load_cert("other.root");
	struct ev_pins pins;
	struct verdict v;
	char *why = NULL, hex[97];
	unsigned char md[48];
	unsigned char *der = NULL;
	int n = i2d_X509(decoy_root, &der);

	/* the decoy's first certificate is the root the pin file holds for this device */
	EVP_Digest(der, (size_t)n, md, NULL, EVP_sha384(), NULL);
	for (unsigned int i = 0; i < 48; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	CHECK(ev_pins_load("/nonexistent/pins", &pins, &why) == 0);
	ev_pin_propose(&pins, "0000:01:00.0", 0, hex);
	pins.v[0].pending = false;	/* as if read from the file */
	for (size_t i = 0; i < ARRAY_SIZE(chains); i++) {
		struct bytes chain = { 0 };
		struct evidence_set s;

		bare_chain(&chain, chains[i]);
		make_set(&s, &chain, NULL);
		judge(&s, store, NULL, "evidence.chain", "cert0", &v);
		EXPECT_PREFIX(v.text, want[i]);
		judge(&s, store, &pins, "evidence.chain", "cert0", &v);
		EXPECT_PREFIX(v.text, want[i]);
		CHECK(!strstr(v.text, "pinned"));
		judge(&s, NULL, NULL, "evidence.chain", "cert0", &v);
		EXPECT_PREFIX(v.text, want[i]);
		evset_release(&s);
		bytes_free(&chain);
	}
	CHECK(!ev_pins_pending_text(&pins));
	ev_pins_release(&pins);
	OPENSSL_free(der);
	X509_free(decoy_root);
	X509_STORE_free(store);
}

/* A chain without its root verifies to the store's root; RootHash is that root's digest. */
static void test_chain_without_root(void)
{
	struct bytes chain = { 0 }, vca = { 0 }, zero = { 0 };
	X509_STORE *store = store_of("ecp384.root"), *other = store_of("other.root");
	struct evidence_set s;
	struct ev_pins pins;
	struct verdict v;
	char *why = NULL;

	read_file(&chain, "no-root.spdm-chain");
	vca_of(&vca, 0x13, 0);
	make_set(&s, &chain, &vca);
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified against trust.pem (2 certificates and the root from "
		      "the trust store, root CN=vectors ecp384 root CA, leaf CN=vectors ecp384 "
		      "responder");
	judge(&s, store, NULL, "evidence.root-hash", "cert0", &v);
	CHECK(!strcmp(v.text, "pass: RootHash is the root certificate's sha384 (negotiated "
		      "BaseHashAlgo); the root is the trust anchor that signed the first "
		      "certificate"));
	/* another vendor's store: the issuer is not found */
	judge(&s, other, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: unable to get local issuer certificate");
	judge(&s, other, NULL, "evidence.root-hash", "cert0", &v);
	EXPECT_PREFIX(v.text, "skip: cannot be verified from this evidence: the root certificate "
		      "is not known: the chain does not carry its root certificate");
	/* no store: nothing to find the root in; a pin cannot vouch for a root not carried */
	judge(&s, NULL, NULL, "evidence.root-hash", "cert0", &v);
	EXPECT_PREFIX(v.text, "skip: cannot be verified from this evidence: the root certificate "
		      "is not known");
	CHECK(ev_pins_load("/nonexistent/pins", &pins, &why) == 0);
	judge(&s, NULL, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "skip: cannot be verified from this evidence: the chain does not "
		      "carry its root certificate (its first, CN=vectors ecp384 intermediate, is "
		      "issued by CN=vectors ecp384 root CA) and no trust store holds it");
	CHECK(v.risk == EV_RISK_NONE && !ev_pins_pending_text(&pins));
	ev_pins_release(&pins);
	evset_release(&s);
	/* the root's RootHash zeroed: the store's root is what it must be the digest of */
	put_bytes(&zero, chain.buf, chain.len);
	memset(zero.buf + 4, 0, 48);
	make_set(&s, &zero, &vca);
	judge(&s, store, NULL, "evidence.root-hash", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: RootHash 0000");
	EXPECT_HAS(v.text, "; the root is the trust anchor that signed the first certificate");
	evset_release(&s);
	/* the whole chain: the root is its first certificate */
	bytes_free(&chain);
	read_file(&chain, "good.spdm-chain");
	make_set(&s, &chain, &vca);
	judge(&s, NULL, NULL, "evidence.root-hash", "cert0", &v);
	CHECK(!strcmp(v.text, "pass: RootHash is the root certificate's sha384 (negotiated "
		      "BaseHashAlgo)"));
	evset_release(&s);
	X509_STORE_free(store);
	X509_STORE_free(other);
	bytes_free(&chain);
	bytes_free(&vca);
	bytes_free(&zero);
}

/*
 * --pin: a root the file holds passes; a new one verified to the chain's own
 * root is EV_RISK_FIRST_USE, proposed, and on disk only after ev_pins_save();
 * a chain that fails proposes nothing; a changed root fails.
 */
static void test_pins(void)
{
	static const char *const good[] = { "ecp384.root", "ecp384.inter", "ecp384.leaf", NULL };
	static const char *const bad[] = { "ecp384.root", "ecp384.inter", "leaf-req-eku", NULL };
	char dir[] = "/tmp/test-evidence-chain.XXXXXX", *path, *why = NULL, *text;
	struct bytes chain = { 0 }, broken = { 0 };
	X509_STORE *store = store_of("ecp384.root");
	struct evidence_set s, sb;
	struct ev_pins pins;
	struct verdict v;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	path = xasprintf("%s/pins", dir);
	bare_chain(&chain, good);
	bare_chain(&broken, bad);
	make_set(&s, &chain, NULL);
	make_set(&sb, &broken, NULL);

	CHECK(ev_pins_load(path, &pins, &why) == 0 && pins.n == 0);
	/* a chain that fails its leaf rules proposes no pin */
	judge(&sb, NULL, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: the leaf's extendedKeyUsage names id-DMTF-eku-requester-auth");
	CHECK(!ev_pins_pending_text(&pins));
	/* first use: skip with its risk, proposed, nothing written */
	judge(&s, NULL, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "skip: trust on first use: verified to its own root, which no trust "
		      "anchor issued and ");
	EXPECT_HAS(v.text, "does not hold yet; it would be pinned there (SHA-384 ");
	CHECK(v.risk == EV_RISK_FIRST_USE);
	text = ev_pins_pending_text(&pins);
	CHECK(text && !strncmp(text, "0000:01:00.0 slot 0 (SHA-384 ", 29));
	free(text);
	CHECK(access(path, F_OK) < 0 && errno == ENOENT);
	/* judged again: one proposal for the slot, not two */
	judge(&s, NULL, &pins, "evidence.chain", "cert0", &v);
	CHECK(pins.n == 1);
	/* a trust anchor vouches: a pass, the pin still proposed */
	ev_pins_forget_pending(&pins);
	CHECK(pins.n == 0);
	judge(&s, store, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified against trust.pem (3 certificates");
	EXPECT_HAS(v.text, "; the root is not pinned yet: pinned in ");
	CHECK(pins.n == 1 && pins.v[0].pending);
	/* written: the root vouched for since, with or without the store */
	CHECK(ev_pins_save(&pins, &why) == 0 && !pins.v[0].pending);
	CHECK(!ev_pins_pending_text(&pins));
	ev_pins_release(&pins);
	CHECK(ev_pins_load(path, &pins, &why) == 0 && pins.n == 1);
	judge(&s, NULL, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified to the root pinned in ");
	CHECK(v.risk == EV_RISK_NONE && !ev_pins_pending_text(&pins));
	judge(&s, store, &pins, "evidence.chain", "cert0", &v);
	EXPECT_HAS(v.text, "; root is the one pinned in ");
	/* another root in the pinned slot: a failure */
	memset(pins.v[0].sha384, '0', 96);
	judge(&s, store, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: the root changed since it was pinned in ");
	judge(&s, NULL, &pins, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: the root changed since it was pinned in ");
	CHECK(!ev_pins_pending_text(&pins));
	ev_pins_release(&pins);

	/* a pin file that cannot be written: an error, the pins still pending */
	free(path);
	path = xasprintf("%s/no-such-dir/pins", dir);
	CHECK(ev_pins_load(path, &pins, &why) == 0);
	judge(&s, NULL, &pins, "evidence.chain", "cert0", &v);
	CHECK(v.risk == EV_RISK_FIRST_USE);
	CHECK(ev_pins_save(&pins, &why) < 0 && why);
	CHECK(pins.n == 1 && pins.v[0].pending);
	free(why);
	ev_pins_release(&pins);

	evset_release(&s);
	evset_release(&sb);
	free(path);
	path = xasprintf("%s/pins", dir);
	unlink(path);
	rmdir(dir);
	free(path);
	X509_STORE_free(store);
	bytes_free(&chain);
	bytes_free(&broken);
}

/* STATS is what the cache did so far: N paths and SIGS signatures verified, and the reuses. */
static bool stats_are(const struct ev_cache *c, unsigned long paths, unsigned long path_hits,
		      unsigned long sigs, unsigned long sig_hits)
{
	const struct ev_cache_stats *st = &c->stats;

	if (st->paths == paths && st->path_hits == path_hits && st->signatures == sigs &&
	    st->signature_hits == sig_hits)
		return true;
	printf("  cache: %lu paths (%lu reused), %lu signatures (%lu reused)\n", st->paths,
	       st->path_hits, st->signatures, st->signature_hits);
	return false;
}

/*
 * A thousand devices of one vendor share their chain: the run verifies its
 * path once and each certificate's signature once. Anything else stays each
 * device's: a chain one byte off is verified on its own (and fails), a
 * RootHash is compared, and the leaf rules applied, for every device.
 */
static void test_cache(void)
{
	static const char *const other_leaf[] = { "ecp384.root", "ecp384.inter", "leaf-no-eku", NULL };
	X509_STORE *store = store_of("ecp384.root");
	struct bytes chain = { 0 }, vca = { 0 }, alias = { 0 }, off = { 0 }, hash = { 0 };
	struct evidence_set s;
	struct ev_cache cache;
	struct verdict v;

	ev_cache_init(&cache, store);
	judge_cache = &cache;
	read_file(&chain, "good.spdm-chain");
	vca_of(&vca, 0x13, 0);
	make_set(&s, &chain, &vca);
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified against trust.pem (3 certificates");
	/* the root's own signature, the intermediate's and the leaf's; one path */
	CHECK(stats_are(&cache, 1, 0, 3, 0));
	/* a second device of the same chain: nothing verified again */
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified against trust.pem (3 certificates");
	CHECK(stats_are(&cache, 1, 1, 3, 3));
	evset_release(&s);
	/* the leaf's last byte (its signature) changed: that pair is verified anew, and fails; the
	   root and the intermediate are known */
	put_bytes(&off, chain.buf, chain.len);
	off.buf[off.len - 1] ^= 1;
	make_set(&s, &off, &vca);
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: certificate 2 (CN=vectors ecp384 responder) is not signed by "
		      "certificate 1");
	CHECK(stats_are(&cache, 1, 1, 4, 4));
	evset_release(&s);
	/* the same certificates under a zeroed RootHash: the path is reused, RootHash still fails */
	put_bytes(&hash, chain.buf, chain.len);
	memset(hash.buf + 4, 0, 48);
	make_set(&s, &hash, &vca);
	judge(&s, store, NULL, "evidence.root-hash", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: RootHash 0000");
	CHECK(stats_are(&cache, 1, 2, 4, 7));
	evset_release(&s);
	/* the same chain from a device of the alias certificate model: its leaf rule fails */
	vca_of(&alias, 0x13, ALIAS_CERT_CAP);
	make_set(&s, &chain, &alias);
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "fail: the responder uses the alias certificate model");
	CHECK(stats_are(&cache, 1, 3, 4, 10));
	evset_release(&s);
	/* another leaf under the same intermediate: its signature and its path are its own */
	bytes_free(&off);
	bare_chain(&off, other_leaf);
	make_set(&s, &off, &vca);
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified against trust.pem (3 certificates");
	CHECK(stats_are(&cache, 2, 3, 5, 12));
	evset_release(&s);
	/* a chain without its root: other bytes, another path */
	bytes_free(&off);
	read_file(&off, "no-root.spdm-chain");
	make_set(&s, &off, &vca);
	judge(&s, store, NULL, "evidence.chain", "cert0", &v);
	EXPECT_PREFIX(v.text, "pass: verified against trust.pem (2 certificates and the root");
	CHECK(stats_are(&cache, 3, 3, 5, 13));
	evset_release(&s);
	judge_cache = NULL;
	ev_cache_release(&cache);
	X509_STORE_free(store);
	bytes_free(&chain);
	bytes_free(&vca);
	bytes_free(&alias);
	bytes_free(&off);
	bytes_free(&hash);
}

int main(void)
{
	if (getenv("TSMCTL_VECTORS"))
		vectors = getenv("TSMCTL_VECTORS");
	test_libspdm_profiles();
	test_leaf_rules();
	test_order();
	test_chain_without_root();
	test_pins();
	test_cache();
	return unit_report();
}
