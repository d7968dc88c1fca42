// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SPDM MEASUREMENTS response decoder (DSP0274 1.0-1.3, ABI.md §1.7):
 * header, measurement record, nonce, opaque data, the 1.3 requester context
 * and the signature, each length checked against the bytes and the record
 * against NumberOfBlocks and MeasurementRecordLength.
 */
#include <errno.h>

#include "tsmctl/spdm-alg.h"
#include "tsmctl/spdm-meas.h"

#define SPDM_MEASUREMENTS		0x60
#define SPDM_ERROR			0x7f
#define MEAS_HDR_SIZE			8	/* header, NumberOfBlocks, MeasurementRecordLength */
#define MEAS_BLOCK_HDR_SIZE		4	/* Index, MeasurementSpecification, MeasurementSize */
#define DMTF_VALUE_HDR_SIZE		3	/* ValueType, ValueSize */
#define MEAS_MAX_OPAQUE			1024	/* DSP0274: OpaqueDataLength shall not exceed it */
#define MEAS_INDEX_ALL			0xff	/* a request's "all", never a block's */
#define PARAM2_SLOT_ID			0x0f
#define PARAM2_CONTENT_CHANGED_SHIFT	4
#define PARAM2_CONTENT_CHANGED_MASK	0x3

static const char *const type_names[] = {
	"immutable_rom", "mutable_firmware", "hardware_config", "firmware_config",
	"manifest", "device_mode", "version", "svn", "hash_extend", "informational",
	"structured_manifest",
};

const char *spdm_meas_type_name(unsigned int value_type)
{
	return value_type < sizeof(type_names) / sizeof(type_names[0]) ? type_names[value_type] : NULL;
}

const struct spdm_meas_block *spdm_meas_block(const struct spdm_meas *meas, unsigned int index)
{
	for (unsigned int i = 0; i < meas->nr_blocks; i++)
		if (meas->blocks[i].index == index)
			return &meas->blocks[i];
	return NULL;
}

/* The structured values DSP0274 defines a size for: device mode and SVN. */
static bool decode_structured(struct spdm_meas_block *b, struct ev_error *err)
{
	if (!b->raw || (b->value_type != SPDM_MEAS_DEVICE_MODE && b->value_type != SPDM_MEAS_SVN))
		return true;
	if (b->value_type == SPDM_MEAS_DEVICE_MODE) {
		if (b->value_len != SPDM_MEAS_DEVICE_MODE_SIZE) {
			ev_fail(err, b->value_offset, "device mode of measurement %u is %u bytes, "
				"DSP0274 defines %u", b->index, b->value_len, SPDM_MEAS_DEVICE_MODE_SIZE);
			return false;
		}
		b->has_device_mode = true;
		b->device_mode.operational_mode_caps = (uint32_t)ev_le(b->value, 4);
		b->device_mode.operational_mode_state = (uint32_t)ev_le(b->value + 4, 4);
		b->device_mode.device_mode_caps = (uint32_t)ev_le(b->value + 8, 4);
		b->device_mode.device_mode_state = (uint32_t)ev_le(b->value + 12, 4);
		return true;
	}
	if (b->value_len != SPDM_MEAS_SVN_SIZE) {
		ev_fail(err, b->value_offset, "security version number of measurement %u is %u "
			"bytes, DSP0274 defines %u", b->index, b->value_len, SPDM_MEAS_SVN_SIZE);
		return false;
	}
	b->has_svn = true;
	b->svn = ev_le(b->value, SPDM_MEAS_SVN_SIZE);
	return true;
}

/* A digest must be the negotiated measurement hash's size, when that is known. */
static bool check_digest(const struct spdm_meas_block *b, const struct spdm_hash_alg *hash,
			 struct ev_error *err)
{
	if (b->raw || !hash)
		return true;
	if (!hash->size) {
		ev_fail(err, b->offset, "measurement %u is a digest, but the negotiated "
			"MeasurementHashAlgo is raw bit stream only", b->index);
		return false;
	}
	if (b->value_len != hash->size) {
		ev_fail(err, b->value_offset, "measurement %u's digest is %u bytes, %s is %u",
			b->index, b->value_len, hash->name, hash->size);
		return false;
	}
	return true;
}

/* The DMTF measurement inside a block: ValueType, ValueSize, Value filling the block. */
static bool decode_dmtf(struct ev_cursor *c, struct spdm_meas_block *b,
			const struct spdm_hash_alg *hash, struct ev_error *err)
{
	uint8_t type;

	if (b->size < DMTF_VALUE_HDR_SIZE) {
		ev_fail(err, b->offset + 2, "measurement %u: MeasurementSize %u is shorter than "
			"the DMTF value header", b->index, b->size);
		return false;
	}
	type = ev_u8(c);
	b->value_len = ev_u16(c);
	if ((size_t)b->value_len + DMTF_VALUE_HDR_SIZE != b->size) {
		ev_fail(err, b->offset + MEAS_BLOCK_HDR_SIZE + 1, "measurement %u: "
			"DMTFSpecMeasurementValueSize %u in a MeasurementSize of %u", b->index,
			b->value_len, b->size);
		return false;
	}
	b->dmtf = true;
	b->value_type = type & ~SPDM_MEAS_RAW_BIT_STREAM;
	b->raw = type & SPDM_MEAS_RAW_BIT_STREAM;
	b->value_offset = c->off;
	b->value = ev_skip(c, b->value_len);
	return check_digest(b, hash, err) && decode_structured(b, err);
}

static bool decode_block(struct ev_cursor *c, struct spdm_meas *m, struct spdm_meas_block *b,
			 const struct spdm_hash_alg *hash, struct ev_error *err)
{
	b->offset = c->off;
	if (!ev_need(c, MEAS_BLOCK_HDR_SIZE, "a measurement block header", err))
		return false;
	b->index = ev_u8(c);
	b->spec = ev_u8(c);
	b->size = ev_u16(c);
	if (!b->index || b->index == MEAS_INDEX_ALL) {
		ev_fail(err, b->offset, "measurement block index %u is reserved", b->index);
		return false;
	}
	if (spdm_meas_block(m, b->index)) {
		ev_fail(err, b->offset, "measurement index %u appears twice", b->index);
		return false;
	}
	if (!ev_need(c, b->size, "a measurement block", err))
		return false;
	if (b->spec != SPDM_MEAS_SPEC_DMTF) {
		/* another specification's format: kept whole, not interpreted */
		b->value_len = b->size;
		b->value_offset = c->off;
		b->value = ev_skip(c, b->size);
		return true;
	}
	return decode_dmtf(c, b, hash, err);
}

/* The record holds exactly NumberOfBlocks blocks in MeasurementRecordLength bytes. */
static int decode_record(struct ev_cursor *c, struct spdm_meas *m, unsigned int nr,
			 const struct spdm_hash_alg *hash, struct ev_error *err)
{
	struct ev_cursor rec = *c;

	if (!ev_need(c, m->record_len, "the measurement record", err))
		return -EBADMSG;
	rec.len = c->off + m->record_len;
	m->record_offset = c->off;
	for (unsigned int i = 0; i < nr; i++) {
		if (!decode_block(&rec, m, &m->blocks[i], hash, err))
			return -EBADMSG;
		m->nr_blocks = i + 1;
	}
	if (ev_left(&rec)) {
		ev_fail(err, rec.off, "%zu bytes in the measurement record after its %u blocks",
			ev_left(&rec), nr);
		return -EBADMSG;
	}
	c->off = rec.len;
	return 0;
}

/* What follows the opaque data: nothing, or the signature; its size from the algorithm. */
static int decode_signature(struct ev_cursor *c, struct spdm_meas *m,
			    const struct spdm_asym_alg *asym, struct ev_error *err)
{
	size_t rest = ev_left(c);

	m->sig_offset = c->off;
	m->sig_len = rest;
	m->signature = rest ? c->buf + c->off : NULL;
	if (!rest) {
		m->sig = SPDM_SIG_NONE;
		return 0;
	}
	if (!asym) {
		m->sig = SPDM_SIG_UNDELIMITED;
		return 0;
	}
	if (rest != asym->sig_size) {
		ev_fail(err, c->off, "%zu bytes after the opaque data; the negotiated %s signature "
			"is %u", rest, asym->name, asym->sig_size);
		m->signature = NULL;
		return -EBADMSG;
	}
	m->sig = SPDM_SIG_PRESENT;
	return 0;
}

static int decode_tail(struct ev_cursor *c, struct spdm_meas *m, const struct spdm_asym_alg *asym,
		       struct ev_error *err)
{
	if (!ev_need(c, SPDM_NONCE_SIZE, "the nonce", err))
		return -EBADMSG;
	m->nonce_offset = c->off;
	m->nonce = ev_skip(c, SPDM_NONCE_SIZE);
	if (!ev_need(c, 2, "OpaqueDataLength", err))
		return -EBADMSG;
	m->opaque_len = ev_u16(c);
	if (m->opaque_len > MEAS_MAX_OPAQUE) {
		ev_fail(err, c->off - 2, "OpaqueDataLength %u, more than the %u DSP0274 allows",
			m->opaque_len, MEAS_MAX_OPAQUE);
		return -EBADMSG;
	}
	if (!ev_need(c, m->opaque_len, "the opaque data", err))
		return -EBADMSG;
	m->opaque_offset = c->off;
	m->opaque = ev_skip(c, m->opaque_len);
	if (m->version >= 0x13) {
		if (!ev_need(c, SPDM_REQ_CONTEXT_SIZE, "the requester context", err))
			return -EBADMSG;
		m->has_requester_context = true;
		m->requester_context = ev_skip(c, SPDM_REQ_CONTEXT_SIZE);
	}
	return decode_signature(c, m, asym, err);
}

static bool decode_header(struct ev_cursor *c, struct spdm_meas *m, uint8_t negotiated,
			  struct ev_error *err)
{
	uint8_t code, param2;

	if (!ev_need(c, MEAS_HDR_SIZE, "the MEASUREMENTS header", err))
		return false;
	m->version = ev_u8(c);
	code = ev_u8(c);
	if (code == SPDM_ERROR) {
		ev_fail(err, 1, "an SPDM ERROR response (code 0x%02x), not MEASUREMENTS", c->buf[2]);
		return false;
	}
	if (code != SPDM_MEASUREMENTS) {
		ev_fail(err, 1, "code 0x%02x, not MEASUREMENTS (0x%02x)", code, SPDM_MEASUREMENTS);
		return false;
	}
	if (m->version >> 4 != 1) {
		ev_fail(err, 0, "SPDM version %u.%u, not 1.x", m->version >> 4, m->version & 15);
		return false;
	}
	/* DSP0274: every message after VERSION speaks the negotiated version */
	if (negotiated && m->version != negotiated) {
		ev_fail(err, 0, "MEASUREMENTS speaks SPDM %u.%u, the VCA negotiated %u.%u",
			m->version >> 4, m->version & 15, negotiated >> 4, negotiated & 15);
		return false;
	}
	m->param1 = ev_u8(c);
	param2 = ev_u8(c);
	m->slot_id = param2 & PARAM2_SLOT_ID;
	m->content_changed = (param2 >> PARAM2_CONTENT_CHANGED_SHIFT) & PARAM2_CONTENT_CHANGED_MASK;
	return true;
}

int spdm_meas_decode(const uint8_t *buf, size_t len, const struct spdm_meas_algs *algs,
		     struct spdm_meas *meas, struct ev_error *err)
{
	const struct spdm_hash_alg *hash = algs ? spdm_meas_hash_alg(algs->meas_hash_algo) : NULL;
	const struct spdm_asym_alg *asym = algs ? spdm_asym_alg(algs->base_asym_sel) : NULL;
	struct ev_cursor c;
	unsigned int nr;
	int rc;

	rc = ev_begin(meas, sizeof(*meas), &buf, len, err);
	if (rc)
		return rc;
	meas->digest_sizes_checked = hash != NULL;
	c = ev_cursor(buf, len);
	if (!decode_header(&c, meas, algs ? algs->version : 0, err))
		return -EBADMSG;
	nr = meas->nr_blocks_declared = ev_u8(&c);
	meas->record_len = ev_u24(&c);
	rc = decode_record(&c, meas, nr, hash, err);
	if (rc)
		return rc;
	return decode_tail(&c, meas, asym, err);
}
