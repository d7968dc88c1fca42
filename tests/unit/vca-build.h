/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Builds SPDM VCA transcripts (GET_VERSION .. ALGORITHMS) from DSP0274's
 * message layouts for the VCA and measurement unit tests: one description,
 * every version's layout (1.0 without tables, 1.1 CAPABILITIES flags, 1.2
 * sizes, 1.3 supported-algorithms block and MEL).
 */
#ifndef TSMCTL_TESTS_UNIT_VCA_BUILD_H
#define TSMCTL_TESTS_UNIT_VCA_BUILD_H

#include "bytes.h"

/* What a transcript negotiates; zero fields are left zero in the messages. */
struct vca_spec {
	uint8_t version;		/* 0x10 .. 0x13: the one GET_CAPABILITIES speaks */
	unsigned int nr_versions;	/* VERSION offers 1.0 up to 1.0 + nr_versions - 1 */
	uint32_t req_flags, rsp_flags;
	bool supported_block;		/* 1.3: CAPABILITIES carries the supported algorithms */
	uint32_t asym_offer, hash_offer;
	uint32_t asym_sel, hash_sel, meas_hash;
	uint16_t dhe_offer, aead_offer, req_asym_offer, ks_offer;
	uint16_t dhe_sel, aead_sel, req_asym_sel, ks_sel;
	unsigned int ext_asym;		/* external algorithm entries NEGOTIATE_ALGORITHMS offers */
};

static inline void vca_header(struct bytes *b, uint8_t version, uint8_t code, uint8_t p1)
{
	put8(b, version);
	put8(b, code);
	put8(b, p1);
	put8(b, 0);
}

/* The four algorithm structure tables: AlgType, AlgCount 0x20, AlgSupported. */
static inline void vca_tables(struct bytes *b, uint16_t dhe, uint16_t aead, uint16_t asym,
			      uint16_t ks)
{
	const uint16_t v[] = { dhe, aead, asym, ks };

	for (unsigned int t = 0; t < 4; t++) {
		put8(b, 2 + t);
		put8(b, 0x20);
		put16(b, v[t]);
	}
}

static inline void vca_caps_fields(struct bytes *b, uint8_t version, uint32_t flags)
{
	put8(b, 0);
	put8(b, 12);			/* CTExponent */
	put16(b, 0);
	put32(b, flags);
	if (version < 0x12)
		return;
	put32(b, 4096);			/* DataTransferSize */
	put32(b, 65536);		/* MaxSPDMmsgSize */
}

/* NEGOTIATE_ALGORITHMS from Param1 on: also the 1.3 supported-algorithms block. */
static inline void vca_offer(struct bytes *b, const struct vca_spec *s, size_t length_at,
			     size_t length_from, bool tables)
{
	put8(b, s->version >= 0x12 ? 0x02 : 0);	/* OtherParamsSupport: opaque format 1 */
	put32(b, s->asym_offer);
	put32(b, s->hash_offer);
	put_le(b, 0, 12);
	put8(b, s->ext_asym);
	put8(b, 0);
	put8(b, 0);
	put8(b, s->version >= 0x13 ? 1 : 0);	/* MELSpecification */
	for (unsigned int i = 0; i < s->ext_asym; i++)
		put32(b, 0x00010000u + i);	/* RegistryID, reserved, AlgorithmID */
	if (tables)
		vca_tables(b, s->dhe_offer, s->aead_offer, s->req_asym_offer, s->ks_offer);
	patch_le(b, length_at, b->len - length_from, 2);
}

static inline void build_vca(struct bytes *b, const struct vca_spec *s)
{
	bool tables = s->version >= 0x11;
	size_t start;

	vca_header(b, 0x10, 0x84, 0);				/* GET_VERSION */
	vca_header(b, 0x10, 0x04, 0);				/* VERSION */
	put8(b, 0);
	put8(b, s->nr_versions);
	for (unsigned int i = 0; i < s->nr_versions; i++)
		put16(b, (uint16_t)((0x10 + i) << 8));
	vca_header(b, s->version, 0xe1, s->supported_block);	/* GET_CAPABILITIES */
	if (s->version >= 0x11)
		vca_caps_fields(b, s->version, s->req_flags);
	vca_header(b, s->version, 0x61, s->supported_block);	/* CAPABILITIES */
	vca_caps_fields(b, s->version, s->rsp_flags);
	if (s->supported_block) {
		start = b->len;
		put8(b, 4);					/* Param1: four tables */
		put8(b, 0);
		put16(b, 0);					/* Length, patched */
		put8(b, 1);					/* DMTF measurements */
		vca_offer(b, s, start + 2, start, true);
	}
	start = b->len;
	vca_header(b, s->version, 0xe3, tables ? 4 : 0);	/* NEGOTIATE_ALGORITHMS */
	put16(b, 0);
	put8(b, 1);
	vca_offer(b, s, start + 4, start, tables);
	start = b->len;
	vca_header(b, s->version, 0x63, tables ? 4 : 0);	/* ALGORITHMS */
	put16(b, 0);
	put8(b, 1);
	put8(b, s->version >= 0x12 ? 0x02 : 0);
	put32(b, s->meas_hash);
	put32(b, s->asym_sel);
	put32(b, s->hash_sel);
	put_le(b, 0, 11);
	put8(b, s->version >= 0x13 ? 1 : 0);			/* MELSpecificationSel */
	put8(b, 0);
	put8(b, 0);
	put16(b, 0);
	if (tables)
		vca_tables(b, s->dhe_sel, s->aead_sel, s->req_asym_sel, s->ks_sel);
	patch_le(b, start + 4, b->len - start, 2);
}

/* An SPDM 1.2 exchange as a device would answer: ECDSA P-384, SHA-384 (bits per DSP0274). */
static inline struct vca_spec vca_spec_12(void)
{
	return (struct vca_spec){
		.version = 0x12, .nr_versions = 3,
		.req_flags = 0x0000b2c6, .rsp_flags = 0x0002f3f6,
		.asym_offer = 0x0094, .hash_offer = 0x0003,
		.asym_sel = 0x0080, .hash_sel = 0x0002, .meas_hash = 0x0004,
		.dhe_offer = 0x0018, .aead_offer = 0x0003, .req_asym_offer = 0x0084, .ks_offer = 1,
		.dhe_sel = 0x0010, .aead_sel = 0x0002, .req_asym_sel = 0x0080, .ks_sel = 1,
	};
}

/* The same device speaking 1.3, with the supported-algorithms block. */
static inline struct vca_spec vca_spec_13(void)
{
	struct vca_spec s = vca_spec_12();

	s.version = 0x13;
	s.nr_versions = 4;
	s.supported_block = true;
	return s;
}

#endif
