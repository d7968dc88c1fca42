// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/evidence/decode/spdm-vca.c and the names in src/evidence/decode/spdm-alg.c, on VCA
 * transcripts built from DSP0274's layouts (tests/unit/vca-build.h): SPDM
 * 1.2 and 1.3 as devices answer, the 1.0 and 1.1 layouts, bytes after
 * ALGORITHMS (malformed in the object, a transcript's rest at the start of
 * a longer one), and hostile input: every truncation, Lengths that lie, two
 * algorithms selected, one never offered, a version VERSION did not offer,
 * an ERROR response, bad algorithm tables, 16 MiB of zeros.
 * `--seeds DIR` also writes the transcripts built as fuzz seeds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/spdm-vca.h"
#include "unit.h"
#include "vca-build.h"

static int decode(const struct bytes *b, struct spdm_vca *v, struct ev_error *err)
{
	uint8_t *copy = bytes_exact(b);
	int rc = spdm_vca_decode(copy, b->len, v, err);

	free(copy);
	return rc;
}

/* Which named flags FLAGS has, comma-separated, through NAME(). */
static const char *flag_names(uint32_t flags, const char *(*name)(unsigned int), char *out,
			      size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (unsigned int bit = 0; bit < 32; bit++)
		if ((flags & (1u << bit)) && name(bit))
			n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? "," : "",
					      name(bit));
	return out;
}

static void test_spdm_12(void)
{
	struct vca_spec s = vca_spec_12();
	struct bytes b = { 0 };
	struct spdm_vca v;
	struct ev_error err;
	size_t sum = 0;
	char names[512];

	build_vca(&b, &s);
	write_seed("spdm-1.2", b.buf, b.len);
	CHECK(decode(&b, &v, &err) == 0 && !err.set);
	CHECK(v.version == 0x12 && !v.newer_than_known);
	CHECK(v.nr_versions == 3 && v.versions[2] == 0x1200);
	CHECK(v.req_caps.has_flags && v.req_caps.flags == s.req_flags);
	CHECK(v.rsp_caps.flags == s.rsp_flags && v.rsp_caps.ct_exponent == 12);
	CHECK(v.rsp_caps.has_sizes && v.rsp_caps.data_transfer_size == 4096 &&
	      v.rsp_caps.max_spdm_msg_size == 65536);
	CHECK(!v.rsp_caps.has_supported_algs);
	CHECK(!strcmp(flag_names(v.rsp_caps.flags, spdm_rsp_cap_name, names, sizeof(names)),
		      "cert_cap,chal_cap,meas_cap_sig,meas_fresh_cap,encrypt_cap,mac_cap,"
		      "mut_auth_cap,key_ex_cap,encap_cap,hbeat_cap,key_upd_cap,"
		      "handshake_in_the_clear_cap,chunk_cap"));
	CHECK(!strcmp(flag_names(v.req_caps.flags, spdm_req_cap_name, names, sizeof(names)),
		      "cert_cap,chal_cap,encrypt_cap,mac_cap,key_ex_cap,encap_cap,hbeat_cap,"
		      "handshake_in_the_clear_cap"));
	CHECK(v.offered.base_asym == s.asym_offer && v.offered.base_hash == s.hash_offer);
	CHECK(v.offered.nr_tables == 4 && v.offered.dhe == s.dhe_offer && v.offered.key_schedule == s.ks_offer);
	CHECK(v.selected.base_asym == 0x80 && v.selected.base_hash == 0x02 &&
	      v.selected.meas_hash == 0x04);
	CHECK(v.selected.dhe == 0x10 && v.selected.aead == 0x02 && v.selected.req_base_asym == 0x80 &&
	      v.selected.key_schedule == 1);
	CHECK(v.selected.meas_spec == 1 && v.selected.other_params == 0x02);
	CHECK(spdm_vca_hash(&v) && spdm_vca_hash(&v)->size == 48 &&
	      !strcmp(spdm_vca_hash(&v)->md, "SHA384"));
	CHECK(spdm_vca_meas_hash(&v) && !strcmp(spdm_vca_meas_hash(&v)->name, "sha384"));
	CHECK(spdm_vca_asym(&v) && spdm_vca_asym(&v)->sig_size == 96 &&
	      spdm_vca_asym(&v)->key == SPDM_KEY_EC && !strcmp(spdm_vca_asym(&v)->group, "secp384r1"));
	for (int m = 0; m < SPDM_VCA_NR_MSGS; m++)
		sum += v.msg[m].len;
	CHECK(sum == b.len && v.end == b.len && v.trailing == 0);
	CHECK(v.msg[SPDM_VCA_GET_CAPABILITIES].len == 20 && v.msg[SPDM_VCA_CAPABILITIES].len == 20);
	CHECK(v.msg[SPDM_VCA_ALGORITHMS].len == 36 + 16);
	bytes_free(&b);
}

/* 1.3: the supported-algorithms block, MEL, external algorithms, a transcript that goes on. */
static void test_spdm_13(void)
{
	struct vca_spec s = vca_spec_13();
	struct bytes b = { 0 };
	struct spdm_vca v;
	struct ev_error err;

	s.ext_asym = 2;
	s.rsp_flags |= 1u << 24;	/* MEL_CAP */
	build_vca(&b, &s);
	write_seed("spdm-1.3", b.buf, b.len);
	CHECK(decode(&b, &v, &err) == 0 && v.trailing == 0 && v.end == b.len);
	vca_header(&b, 0x13, 0x81, 0);	/* GET_DIGESTS: the transcript continues */
	/* the VCA object is the six messages: anything after ALGORITHMS is malformed */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == b.len - 4 &&
	      strstr(err.why, "4 bytes after ALGORITHMS"));
	CHECK(v.version == 0x13 && v.trailing == 4 && v.end == b.len - 4);
	/* at the start of a longer transcript they are the transcript's rest */
	CHECK(spdm_vca_decode_prefix(b.buf, b.len, &v, &err) == 0 && !err.set);
	CHECK(v.version == 0x13 && v.trailing == 4 && v.end == b.len - 4);
	CHECK(v.req_caps.param1 == 1 && v.rsp_caps.has_supported_algs);
	CHECK(v.rsp_caps.supported_base_asym == s.asym_offer &&
	      v.rsp_caps.supported_base_hash == s.hash_offer);
	CHECK(v.rsp_caps.flags & (1u << 24));
	CHECK(!strcmp(spdm_rsp_cap_name(24), "mel_cap"));
	CHECK(v.offered.nr_ext_asym == 2 && v.offered.mel_spec == 1 && v.selected.mel_spec == 1);
	CHECK(v.msg[SPDM_VCA_CAPABILITIES].len == 20 + 30 + 8 + 16);
	bytes_free(&b);
}

/* The older layouts: 1.0 with a 4-byte GET_CAPABILITIES and no tables, 1.1 without sizes. */
static void test_older_layouts(void)
{
	struct vca_spec s = vca_spec_12();
	struct bytes b10 = { 0 }, b11 = { 0 };
	struct spdm_vca v;
	struct ev_error err;

	s.version = 0x10;
	s.nr_versions = 1;
	s.asym_offer = s.asym_sel = 0x04;	/* RSASSA-3072 */
	s.hash_offer = s.hash_sel = 0x01;	/* SHA-256 */
	s.meas_hash = 0x02;
	build_vca(&b10, &s);
	write_seed("spdm-1.0", b10.buf, b10.len);
	CHECK(decode(&b10, &v, &err) == 0);
	CHECK(v.version == 0x10 && !v.req_caps.has_flags && v.msg[SPDM_VCA_GET_CAPABILITIES].len == 4);
	CHECK(!v.rsp_caps.has_sizes && v.msg[SPDM_VCA_CAPABILITIES].len == 12);
	CHECK(v.selected.nr_tables == 0 && v.selected.dhe == 0 && v.selected.other_params == 0);
	CHECK(spdm_vca_asym(&v) && spdm_vca_asym(&v)->key == SPDM_KEY_RSA &&
	      spdm_vca_asym(&v)->key_bits == 3072 && spdm_vca_asym(&v)->sig_size == 384);

	s = vca_spec_12();
	s.version = 0x11;
	s.nr_versions = 2;
	build_vca(&b11, &s);
	write_seed("spdm-1.1", b11.buf, b11.len);
	CHECK(decode(&b11, &v, &err) == 0);
	CHECK(v.version == 0x11 && v.req_caps.has_flags && !v.req_caps.has_sizes);
	CHECK(v.msg[SPDM_VCA_GET_CAPABILITIES].len == 12 && v.selected.nr_tables == 4);
	CHECK(v.selected.other_params == 0);
	bytes_free(&b10);
	bytes_free(&b11);
}

static void test_truncations(void)
{
	struct vca_spec s = vca_spec_13();
	struct bytes b = { 0 };
	struct spdm_vca v;
	struct ev_error err;
	unsigned int bad = 0;

	s.ext_asym = 1;
	build_vca(&b, &s);
	for (size_t n = 0; n < b.len; n++) {
		struct bytes cut = { .buf = b.buf, .len = n };

		if (decode(&cut, &v, &err) != -EBADMSG || !err.set || err.offset > n)
			bad++;
	}
	CHECK(bad == 0);
	bytes_free(&b);
}

/* Build the 1.2 transcript with MUTATE applied to its spec, and decode it. */
static int decode_spec(void (*mutate)(struct vca_spec *), struct spdm_vca *v, struct ev_error *err)
{
	struct vca_spec s = vca_spec_12();
	struct bytes b = { 0 };
	int rc;

	mutate(&s);
	build_vca(&b, &s);
	rc = decode(&b, v, err);
	bytes_free(&b);
	return rc;
}

static void two_hashes(struct vca_spec *s) { s->hash_sel = 0x03; }
static void not_offered(struct vca_spec *s) { s->asym_sel = 0x08; }
static void dhe_not_offered(struct vca_spec *s) { s->dhe_sel = 0x08 | 0x10; }
static void old_versions(struct vca_spec *s) { s->nr_versions = 2; }

static void test_bad_selections(void)
{
	struct spdm_vca v;
	struct ev_error err;

	CHECK(decode_spec(two_hashes, &v, &err) == -EBADMSG);
	CHECK(strstr(err.why, "more than one BaseHashAlgo") != NULL);
	CHECK(decode_spec(not_offered, &v, &err) == -EBADMSG);
	CHECK(strstr(err.why, "BaseAsymAlgo 0x8, which NEGOTIATE_ALGORITHMS did not offer") != NULL);
	CHECK(decode_spec(dhe_not_offered, &v, &err) == -EBADMSG);
	CHECK(strstr(err.why, "DHE group") != NULL);
	/* GET_CAPABILITIES speaks 1.2, VERSION offers 1.0 and 1.1 only */
	CHECK(decode_spec(old_versions, &v, &err) == -EBADMSG && err.offset == 4 + 6 + 4);
	CHECK(strstr(err.why, "which VERSION does not offer") != NULL);
}

/* Offsets in the 1.2 transcript built by vca_spec_12(). */
#define OFF_VERSION	4
#define OFF_GET_CAPS	(OFF_VERSION + 6 + 3 * 2)
#define OFF_CAPS	(OFF_GET_CAPS + 20)
#define OFF_NEGOTIATE	(OFF_CAPS + 20)
#define OFF_ALGORITHMS	(OFF_NEGOTIATE + 32 + 16)

static void test_lying_fields(void)
{
	struct vca_spec s = vca_spec_12();
	struct bytes b = { 0 };
	struct spdm_vca v;
	struct ev_error err;
	char msg[256];

	build_vca(&b, &s);
	CHECK(b.len == OFF_ALGORITHMS + 36 + 16);

	patch_le(&b, OFF_ALGORITHMS + 4, 0xffff, 2);	/* ALGORITHMS Length past the end */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == OFF_ALGORITHMS + 4);
	CHECK(!strcmp(ev_error_str(&err, msg, sizeof(msg)), "malformed at offset 108: ALGORITHMS "
		      "Length 65535: needs 36 to 52"));
	CHECK(v.msg[SPDM_VCA_NEGOTIATE_ALGORITHMS].len == 48 && v.msg[SPDM_VCA_ALGORITHMS].len == 0);
	patch_le(&b, OFF_ALGORITHMS + 4, 36 + 16, 2);

	patch_le(&b, OFF_NEGOTIATE + 4, 20, 2);		/* shorter than its fixed fields */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == OFF_NEGOTIATE + 4);
	patch_le(&b, OFF_NEGOTIATE + 4, 32 + 16 - 4, 2);	/* the tables run past Length */
	CHECK(decode(&b, &v, &err) == -EBADMSG && strstr(err.why, "algorithm structure table"));
	patch_le(&b, OFF_NEGOTIATE + 4, 32 + 16, 2);

	patch_le(&b, OFF_NEGOTIATE + 28, 200, 1);	/* ExtAsymCount that lies */
	CHECK(decode(&b, &v, &err) == -EBADMSG && strstr(err.why, "external algorithm entries"));
	patch_le(&b, OFF_NEGOTIATE + 28, 0, 1);

	patch_le(&b, OFF_NEGOTIATE + 33, 0x30, 1);	/* FixedAlgCount 3 */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == OFF_NEGOTIATE + 33);
	patch_le(&b, OFF_NEGOTIATE + 33, 0x20, 1);

	patch_le(&b, OFF_NEGOTIATE + 36, 2, 1);		/* the AEAD table says DHE: twice */
	CHECK(decode(&b, &v, &err) == -EBADMSG && strstr(err.why, "second algorithm table"));
	patch_le(&b, OFF_NEGOTIATE + 36, 3, 1);

	patch_le(&b, OFF_ALGORITHMS, 0x11, 1);		/* ALGORITHMS in another version */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == OFF_ALGORITHMS);
	CHECK(strstr(err.why, "ALGORITHMS speaks SPDM 1.1, the exchange 1.2") != NULL);
	patch_le(&b, OFF_ALGORITHMS, 0x12, 1);

	patch_le(&b, OFF_CAPS + 1, 0x7f, 1);		/* an ERROR response */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == OFF_CAPS + 1);
	CHECK(strstr(err.why, "ERROR response") != NULL);
	patch_le(&b, OFF_CAPS + 1, 0x61, 1);

	patch_le(&b, OFF_VERSION + 5, 0, 1);		/* no version entries */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == OFF_VERSION + 5);
	patch_le(&b, OFF_VERSION + 5, 3, 1);

	patch_le(&b, 0, 0x12, 1);			/* GET_VERSION is always 1.0 */
	CHECK(decode(&b, &v, &err) == -EBADMSG && err.offset == 0);
	patch_le(&b, 0, 0x10, 1);

	CHECK(decode(&b, &v, &err) == 0);		/* and the repaired one is fine again */
	bytes_free(&b);
}

static void test_zero_blob(void)
{
	struct spdm_vca v;
	struct ev_error err;

	CHECK(spdm_vca_decode(zero_blob(), ZERO_BLOB_SIZE, &v, &err) == -EBADMSG &&
	      err.offset == 1 && !strcmp(err.why, "code 0x00 where GET_VERSION (0x84) belongs"));
	CHECK(spdm_vca_decode(NULL, 0, &v, &err) == -EBADMSG && err.offset == 0);
}

static void test_names(void)
{
	CHECK(!strcmp(spdm_rsp_cap_name(4), "meas_cap_sig") && !spdm_rsp_cap_name(31));
	CHECK(!spdm_req_cap_name(0) && !strcmp(spdm_req_cap_name(8), "mut_auth_cap"));
	CHECK(!strcmp(spdm_hash_name(1), "sha384") && !spdm_hash_name(7));
	CHECK(!strcmp(spdm_meas_hash_name(0), "raw_bit_stream_only"));
	CHECK(!strcmp(spdm_asym_name(7), "ecdsa_p384") && !strcmp(spdm_asym_name(11), "ed448"));
	CHECK(!strcmp(spdm_dhe_name(4), "secp384r1") && !strcmp(spdm_aead_name(1), "aes_256_gcm"));
	CHECK(!strcmp(spdm_key_schedule_name(0), "spdm") && !spdm_key_schedule_name(1));
	CHECK(spdm_meas_hash_alg(1) && spdm_meas_hash_alg(1)->size == 0);
	CHECK(!spdm_hash_alg(3) && !spdm_hash_alg(0) && !spdm_asym_alg(1u << 12));
	CHECK(spdm_asym_alg(1u << 10)->key == SPDM_KEY_ED25519);
	CHECK(!strcmp(spdm_key_type_name(SPDM_KEY_RSA_PSS), "rsa_pss"));
}

int main(int argc, char **argv)
{
	seeds_from_args(argc, argv);
	test_spdm_12();
	test_spdm_13();
	test_older_layouts();
	test_truncations();
	test_bad_selections();
	test_lying_fields();
	test_zero_blob();
	test_names();
	return unit_report();
}
