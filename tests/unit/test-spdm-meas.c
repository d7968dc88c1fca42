// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/evidence/decode/spdm-meas.c on MEASUREMENTS responses built from
 * DSP0274's layout: every DMTF value type (digests and raw values, device
 * mode, SVN), SPDM 1.2 and 1.3 (requester context), signed and unsigned,
 * sizes from a decoded VCA transcript or none, and hostile input: every
 * truncation, record lengths and counts that lie, digests and structured
 * values of the wrong size, reserved and repeated indices, oversized opaque
 * data, a trailing signature of the wrong size, 16 MiB of zeros.
 * `--seeds DIR` also writes the responses built as fuzz seeds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/spdm-meas.h"
#include "tsmctl/spdm-vca.h"
#include "unit.h"
#include "vca-build.h"

#define P384_SIG	96
#define SHA384		48

struct block_spec {
	uint8_t index, spec, type;
	uint16_t len;		/* value bytes; the value is a counting pattern unless VALUE */
	const void *value;
};

struct meas_spec {
	uint8_t version, param1, param2;
	const struct block_spec *blocks;
	unsigned int nr;
	uint16_t opaque_len;
	size_t sig_len;
};

static void build_block(struct bytes *b, const struct block_spec *k)
{
	put8(b, k->index);
	put8(b, k->spec);
	if (k->spec != SPDM_MEAS_SPEC_DMTF) {
		put16(b, k->len);
		put_pattern(b, k->index, k->len);
		return;
	}
	put16(b, 3 + k->len);
	put8(b, k->type);
	put16(b, k->len);
	if (k->value)
		put_bytes(b, k->value, k->len);
	else
		put_pattern(b, k->index, k->len);
}

static void build_meas(struct bytes *b, const struct meas_spec *s)
{
	size_t record;

	put8(b, s->version);
	put8(b, 0x60);
	put8(b, s->param1);
	put8(b, s->param2);
	put8(b, s->nr);
	put24(b, 0);
	record = b->len;
	for (unsigned int i = 0; i < s->nr; i++)
		build_block(b, &s->blocks[i]);
	patch_le(b, 5, b->len - record, 3);
	put_pattern(b, 0xa0, SPDM_NONCE_SIZE);
	put16(b, s->opaque_len);
	put_pattern(b, 0x40, s->opaque_len);
	if (s->version >= 0x13)
		put_pattern(b, 0xc0, SPDM_REQ_CONTEXT_SIZE);
	put_pattern(b, 0x01, s->sig_len);
}

/* op caps: all modes; op state: normal; device caps: all debug bits; state: none active */
static const uint8_t device_mode[16] = { 0x3f, 0, 0, 0, 0x04, 0, 0, 0, 0x1f, 0, 0, 0 };
static const uint8_t svn[8] = { 5, 0, 0, 0, 0, 0, 0, 0 };

static const struct block_spec every_type[] = {
	{ 1, 1, SPDM_MEAS_IMMUTABLE_ROM, SHA384, NULL },
	{ 2, 1, SPDM_MEAS_MUTABLE_FIRMWARE, SHA384, NULL },
	{ 3, 1, SPDM_MEAS_HARDWARE_CONFIG, SHA384, NULL },
	{ 4, 1, SPDM_MEAS_FIRMWARE_CONFIG, SHA384, NULL },
	{ 5, 1, SPDM_MEAS_VERSION | SPDM_MEAS_RAW_BIT_STREAM, 5, "1.2.3" },
	{ 6, 1, SPDM_MEAS_SVN | SPDM_MEAS_RAW_BIT_STREAM, 8, svn },
	{ 7, 1, SPDM_MEAS_HASH_EXTEND, SHA384, NULL },
	{ 8, 1, SPDM_MEAS_INFORMATIONAL | SPDM_MEAS_RAW_BIT_STREAM, 12, "vendor: acme" },
	{ 9, 1, SPDM_MEAS_STRUCTURED_MANIFEST | SPDM_MEAS_RAW_BIT_STREAM, 40, NULL },
	{ 10, 1, SPDM_MEAS_MUTABLE_FIRMWARE | SPDM_MEAS_RAW_BIT_STREAM, 64, NULL },
	{ 0xfd, 1, SPDM_MEAS_MANIFEST | SPDM_MEAS_RAW_BIT_STREAM, 100, NULL },
	{ 0xfe, 1, SPDM_MEAS_DEVICE_MODE | SPDM_MEAS_RAW_BIT_STREAM, 16, device_mode },
};
#define NR_EVERY (sizeof(every_type) / sizeof(every_type[0]))

static const struct spdm_meas_algs p384 = { .base_asym_sel = 1u << 7, .meas_hash_algo = 1u << 2 };

/* The fuzz target's first byte names the sizes: 0x27 these P-384/SHA-384 ones, 0xff none. */
#define SEED_P384	0x27
#define SEED_NONE	0xff

static void write_meas_seed(const char *name, uint8_t sizes, const struct bytes *b)
{
	struct bytes seed = { 0 };

	put8(&seed, sizes);
	put_bytes(&seed, b->buf, b->len);
	write_seed(name, seed.buf, seed.len);
	bytes_free(&seed);
}

static int decode(const struct bytes *b, const struct spdm_meas_algs *algs, struct spdm_meas *m,
		  struct ev_error *err)
{
	uint8_t *copy = bytes_exact(b);
	int rc = spdm_meas_decode(copy, b->len, algs, m, err);

	/* the pointers must lie in the input; checked, then dropped with the copy */
	for (unsigned int i = 0; i < m->nr_blocks; i++)
		CHECK(!m->blocks[i].value || (m->blocks[i].value >= copy &&
		      m->blocks[i].value + m->blocks[i].value_len <= copy + b->len));
	CHECK(!m->signature || m->signature + m->sig_len == copy + b->len);
	free(copy);
	return rc;
}

static void test_every_type_13_signed(void)
{
	struct meas_spec s = { 0x13, 0, 0x21, every_type, NR_EVERY, 20, P384_SIG };
	struct bytes b = { 0 };
	struct spdm_meas m;
	struct ev_error err;
	const struct spdm_meas_block *k;

	build_meas(&b, &s);
	write_meas_seed("every-type-1.3-signed", SEED_P384, &b);
	CHECK(decode(&b, &p384, &m, &err) == 0 && !err.set);
	CHECK(m.version == 0x13 && m.slot_id == 1 && m.content_changed == 2);
	CHECK(m.nr_blocks == NR_EVERY && m.nr_blocks_declared == NR_EVERY);
	CHECK(m.record_offset == 8 && m.digest_sizes_checked);
	CHECK(m.blocks[0].index == 1 && m.blocks[0].dmtf && !m.blocks[0].raw &&
	      m.blocks[0].value_type == SPDM_MEAS_IMMUTABLE_ROM && m.blocks[0].value_len == SHA384);
	CHECK(m.blocks[0].value_offset == 8 + 4 + 3 && m.blocks[0].offset == 8);
	for (unsigned int i = 0; i < NR_EVERY; i++)
		CHECK(m.blocks[i].index == every_type[i].index &&
		      m.blocks[i].value_type == (every_type[i].type & 0x7f) &&
		      m.blocks[i].raw == !!(every_type[i].type & 0x80) &&
		      spdm_meas_type_name(m.blocks[i].value_type) != NULL);
	k = spdm_meas_block(&m, 0xfe);
	CHECK(k && k->has_device_mode && k->device_mode.operational_mode_caps == 0x3f &&
	      k->device_mode.operational_mode_state == 4 && k->device_mode.device_mode_caps == 0x1f &&
	      k->device_mode.device_mode_state == 0);
	k = spdm_meas_block(&m, 6);
	CHECK(k && k->has_svn && k->svn == 5 && !k->has_device_mode);
	k = spdm_meas_block(&m, 5);
	CHECK(k && k->raw && k->value_len == 5 && !k->has_svn);
	CHECK(!spdm_meas_block(&m, 11));
	CHECK(m.opaque_len == 20 && m.has_requester_context);
	CHECK(m.nonce_offset == 8 + m.record_len);
	CHECK(m.sig == SPDM_SIG_PRESENT && m.sig_len == P384_SIG && m.sig_offset == b.len - P384_SIG);
	CHECK(!strcmp(spdm_meas_type_name(SPDM_MEAS_SVN), "svn") && !spdm_meas_type_name(11));
	bytes_free(&b);
}

/* The quiet paths: unsigned 1.2 with sizes known; a signature whose size is not known. */
static void test_unsigned_and_undelimited(void)
{
	struct meas_spec s = { 0x12, 0, 0, every_type, 4, 0, 0 };
	struct bytes b = { 0 }, sig = { 0 };
	struct spdm_meas m;
	struct ev_error err;

	build_meas(&b, &s);
	write_meas_seed("four-1.2-unsigned", SEED_P384, &b);
	CHECK(decode(&b, &p384, &m, &err) == 0);
	CHECK(m.sig == SPDM_SIG_NONE && m.sig_len == 0 && !m.signature && !m.has_requester_context);
	CHECK(decode(&b, NULL, &m, &err) == 0 && m.sig == SPDM_SIG_NONE && !m.digest_sizes_checked);

	s.sig_len = P384_SIG;
	build_meas(&sig, &s);
	write_meas_seed("four-1.2-undelimited", SEED_NONE, &sig);
	CHECK(decode(&sig, NULL, &m, &err) == 0);
	CHECK(m.sig == SPDM_SIG_UNDELIMITED && m.sig_len == P384_SIG);
	bytes_free(&b);
	bytes_free(&sig);
}

/* The sizes from a decoded VCA: RSA-3072 and SHA-256, so a P-384 signature is wrong. */
static void test_sizes_from_vca(void)
{
	static const struct block_spec sha256[] = { { 1, 1, SPDM_MEAS_MUTABLE_FIRMWARE, 32, NULL } };
	struct vca_spec vs = vca_spec_12();
	struct meas_spec s = { 0x12, 0, 0, sha256, 1, 0, 384 };
	struct bytes vb = { 0 }, b = { 0 }, p = { 0 };
	struct spdm_vca v;
	struct spdm_meas_algs algs;
	struct spdm_meas m;
	struct ev_error err;
	char msg[256];

	vs.asym_offer = vs.asym_sel = 1u << 2;	/* RSASSA-3072 */
	vs.meas_hash = 1u << 1;			/* SHA-256 */
	build_vca(&vb, &vs);
	CHECK(spdm_vca_decode(vb.buf, vb.len, &v, &err) == 0);
	algs = (struct spdm_meas_algs){ v.selected.base_asym, v.selected.meas_hash, v.version };
	build_meas(&b, &s);
	CHECK(decode(&b, &algs, &m, &err) == 0 && m.sig == SPDM_SIG_PRESENT && m.sig_len == 384);

	s.sig_len = P384_SIG;
	build_meas(&p, &s);
	CHECK(decode(&p, &algs, &m, &err) == -EBADMSG && err.offset == p.len - P384_SIG);
	CHECK(!strcmp(ev_error_str(&err, msg, sizeof(msg)), "malformed at offset 81: 96 bytes "
		      "after the opaque data; the negotiated rsassa_3072 signature is 384"));
	CHECK(m.sig_len == P384_SIG && !m.signature);
	/* the SHA-256 digests are held to SHA-384 when that is what was negotiated */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && strstr(err.why, "sha384 is 48"));
	bytes_free(&vb);
	bytes_free(&b);
	bytes_free(&p);
}

/* A response must speak the version the VCA negotiated: 1.1 under 1.2 is malformed. */
static void test_version_of_the_exchange(void)
{
	struct vca_spec vs = vca_spec_12();
	struct meas_spec s = { 0x11, 0, 0, every_type, 4, 0, 0 };
	struct bytes vb = { 0 }, b = { 0 };
	struct spdm_meas_algs algs;
	struct spdm_vca v;
	struct spdm_meas m;
	struct ev_error err;
	char msg[256];

	build_vca(&vb, &vs);
	CHECK(spdm_vca_decode(vb.buf, vb.len, &v, &err) == 0 && v.version == 0x12);
	algs = (struct spdm_meas_algs){ v.selected.base_asym, v.selected.meas_hash, v.version };
	build_meas(&b, &s);
	CHECK(decode(&b, &algs, &m, &err) == -EBADMSG && err.offset == 0);
	CHECK(!strcmp(ev_error_str(&err, msg, sizeof(msg)), "malformed at offset 0: MEASUREMENTS "
		      "speaks SPDM 1.1, the VCA negotiated 1.2"));
	/* without a version to hold it to, the same bytes decode */
	algs.version = 0;
	CHECK(decode(&b, &algs, &m, &err) == 0 && m.version == 0x11);
	/* and 1.2 under the 1.2 VCA does */
	b.buf[0] = 0x12;
	algs.version = v.version;
	CHECK(decode(&b, &algs, &m, &err) == 0 && m.version == 0x12);
	bytes_free(&vb);
	bytes_free(&b);
}

/* Decode a response of BLOCKS under the P-384 sizes: its error, or "" when it decodes. */
static const char *decode_blocks(const struct block_spec *blocks, unsigned int n,
				 struct ev_error *err)
{
	struct meas_spec s = { 0x12, 0, 0, blocks, n, 0, 0 };
	struct bytes b = { 0 };
	struct spdm_meas m;
	int rc;

	build_meas(&b, &s);
	rc = decode(&b, &p384, &m, err);
	bytes_free(&b);
	return rc ? err->why : "";
}

static void test_bad_blocks(void)
{
	static const struct block_spec dup[] = { { 3, 1, 0, SHA384, NULL }, { 3, 1, 1, SHA384, NULL } };
	static const struct block_spec zero[] = { { 0, 1, 0, SHA384, NULL } };
	static const struct block_spec all[] = { { 0xff, 1, 0, SHA384, NULL } };
	static const struct block_spec mode15[] = { { 0xfe, 1, 0x85, 15, NULL } };
	static const struct block_spec svn4[] = { { 6, 1, 0x87, 4, NULL } };
	static const struct block_spec short_digest[] = { { 1, 1, 1, 32, NULL } };
	static const struct block_spec other_spec[] = { { 1, 2, 0, 7, NULL } };
	struct ev_error err;

	CHECK(strstr(decode_blocks(dup, 2, &err), "index 3 appears twice") && err.offset == 8 + 55);
	CHECK(strstr(decode_blocks(zero, 1, &err), "index 0 is reserved"));
	CHECK(strstr(decode_blocks(all, 1, &err), "index 255 is reserved"));
	CHECK(strstr(decode_blocks(mode15, 1, &err), "device mode of measurement 254 is 15 bytes"));
	CHECK(strstr(decode_blocks(svn4, 1, &err), "security version number of measurement 6"));
	CHECK(strstr(decode_blocks(short_digest, 1, &err), "digest is 32 bytes, sha384 is 48"));
	/* another specification's block is kept whole, not read as DMTF */
	CHECK(!strcmp(decode_blocks(other_spec, 1, &err), ""));
}

static void test_lying_lengths(void)
{
	struct meas_spec s = { 0x13, 0, 0, every_type, 3, 4, P384_SIG };
	struct bytes b = { 0 };
	struct spdm_meas m;
	struct ev_error err;
	size_t rec = 3 * (4 + 3 + SHA384), opaque_at = 8 + rec + SPDM_NONCE_SIZE;

	build_meas(&b, &s);
	patch_le(&b, 5, 0xffffff, 3);			/* record past the end */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && err.offset == 8);
	patch_le(&b, 5, rec - 1, 3);			/* record cutting the last block */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && m.nr_blocks == 2);
	patch_le(&b, 5, rec, 3);
	patch_le(&b, 4, 4, 1);				/* four blocks said, three there */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && m.nr_blocks == 3);
	patch_le(&b, 4, 2, 1);				/* two said: the third is slack */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG &&
	      strstr(err.why, "bytes in the measurement record after its 2 blocks"));
	patch_le(&b, 4, 3, 1);
	patch_le(&b, 8 + 2, 3 + SHA384 + 1, 2);		/* MeasurementSize one more than the value */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && err.offset == 8 + 5);
	patch_le(&b, 8 + 2, 3 + SHA384, 2);
	patch_le(&b, opaque_at, 2000, 2);		/* more opaque data than DSP0274 allows */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && err.offset == opaque_at);
	patch_le(&b, opaque_at, 1000, 2);		/* within the limit, past the end */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && strstr(err.why, "the opaque data"));
	patch_le(&b, opaque_at, 4, 2);
	CHECK(decode(&b, &p384, &m, &err) == 0);
	bytes_free(&b);
}

/* Every prefix fails, but one: cut exactly before the signature is a valid unsigned response. */
static void test_truncations(void)
{
	struct meas_spec s = { 0x13, 0, 0, every_type, NR_EVERY, 9, P384_SIG };
	struct bytes b = { 0 };
	struct spdm_meas m;
	struct ev_error err;
	unsigned int bad = 0;
	size_t unsigned_len;

	build_meas(&b, &s);
	unsigned_len = b.len - P384_SIG;
	for (size_t n = 0; n < b.len; n++) {
		struct bytes cut = { .buf = b.buf, .len = n };
		int rc = decode(&cut, &p384, &m, &err);

		if (n == unsigned_len ? rc || m.sig != SPDM_SIG_NONE
				      : rc != -EBADMSG || !err.set || err.offset > n)
			bad++;
	}
	CHECK(bad == 0);
	bytes_free(&b);
}

static void test_headers(void)
{
	struct meas_spec count = { 0x12, 12, 0, NULL, 0, 0, 0 };
	struct bytes b = { 0 };
	struct spdm_meas m;
	struct ev_error err;

	/* the answer to "how many measurements": no blocks, Param1 says */
	build_meas(&b, &count);
	write_meas_seed("count-only", SEED_NONE, &b);
	CHECK(decode(&b, NULL, &m, &err) == 0 && m.param1 == 12 && m.nr_blocks == 0);
	patch_le(&b, 1, 0x7f, 1);
	CHECK(decode(&b, NULL, &m, &err) == -EBADMSG && strstr(err.why, "ERROR response"));
	/* the sizes given are said to be held even when the header already fails (fuzz find) */
	CHECK(decode(&b, &p384, &m, &err) == -EBADMSG && m.digest_sizes_checked);
	patch_le(&b, 1, 0x60, 1);
	patch_le(&b, 0, 0x20, 1);
	CHECK(decode(&b, NULL, &m, &err) == -EBADMSG && err.offset == 0);

	CHECK(spdm_meas_decode(zero_blob(), ZERO_BLOB_SIZE, NULL, &m, &err) == -EBADMSG &&
	      err.offset == 1 && !strcmp(err.why, "code 0x00, not MEASUREMENTS (0x60)"));
	CHECK(spdm_meas_decode(NULL, 0, NULL, &m, &err) == -EBADMSG && err.offset == 0);
	bytes_free(&b);
}

int main(int argc, char **argv)
{
	seeds_from_args(argc, argv);
	test_every_type_13_signed();
	test_unsigned_and_undelimited();
	test_sizes_from_vca();
	test_version_of_the_exchange();
	test_bad_blocks();
	test_lying_lengths();
	test_truncations();
	test_headers();
	return unit_report();
}
