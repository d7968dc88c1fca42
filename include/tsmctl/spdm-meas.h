/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoder of an SPDM MEASUREMENTS response (DSP0274 1.0-1.3, ABI.md
 * §1.7): the measurement record's blocks (index, specification, DMTF value
 * type, digest or raw value), the responder nonce, opaque data, the 1.3
 * requester context and the signature. Bytes in, struct out; no allocation.
 */
#ifndef TSMCTL_SPDM_MEAS_H
#define TSMCTL_SPDM_MEAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/ev-decode.h"

#define SPDM_MEAS_MAX_BLOCKS	255	/* NumberOfBlocks is one byte */
#define SPDM_NONCE_SIZE		32
#define SPDM_REQ_CONTEXT_SIZE	8	/* 1.3 */
#define SPDM_MEAS_SPEC_DMTF	0x01

/* DMTFSpecMeasurementValueType bits 6:0 */
enum spdm_meas_type {
	SPDM_MEAS_IMMUTABLE_ROM		= 0,
	SPDM_MEAS_MUTABLE_FIRMWARE	= 1,
	SPDM_MEAS_HARDWARE_CONFIG	= 2,
	SPDM_MEAS_FIRMWARE_CONFIG	= 3,
	SPDM_MEAS_MANIFEST		= 4,	/* freeform measurement manifest */
	SPDM_MEAS_DEVICE_MODE		= 5,	/* structured debug and device mode */
	SPDM_MEAS_VERSION		= 6,	/* mutable firmware's version number */
	SPDM_MEAS_SVN			= 7,	/* mutable firmware's security version number */
	SPDM_MEAS_HASH_EXTEND		= 8,	/* 1.3: hash-extended measurement */
	SPDM_MEAS_INFORMATIONAL		= 9,	/* 1.3 */
	SPDM_MEAS_STRUCTURED_MANIFEST	= 10,	/* 1.3 */
};
#define SPDM_MEAS_RAW_BIT_STREAM	0x80	/* value type bit 7: raw value, else a digest */
#define SPDM_MEAS_DEVICE_MODE_SIZE	16
#define SPDM_MEAS_SVN_SIZE		8

/* The structured device mode (value type 5, raw) */
struct spdm_device_mode {
	uint32_t operational_mode_caps, operational_mode_state;
	uint32_t device_mode_caps, device_mode_state;
};

struct spdm_meas_block {
	size_t offset;			/* of the block in the response */
	uint8_t index;			/* 1..254; 0xfd manifest, 0xfe device mode by convention */
	uint8_t spec;			/* MeasurementSpecification, bit 0 DMTF */
	uint16_t size;			/* MeasurementSize */
	bool dmtf;			/* a DMTF-format measurement, decoded below */
	uint8_t value_type;		/* bits 6:0, enum spdm_meas_type */
	bool raw;			/* bit 7: raw bit stream (else a digest) */
	uint16_t value_len;
	const uint8_t *value;		/* the digest or raw value; points into the input */
	size_t value_offset;
	bool has_device_mode;		/* value type 5, raw, 16 bytes */
	struct spdm_device_mode device_mode;
	bool has_svn;			/* value type 7, raw, 8 bytes */
	uint64_t svn;
};

/* What the signature at the end of the response is, as far as the bytes tell. */
enum spdm_meas_sig {
	SPDM_SIG_NONE,		/* nothing after the opaque data (and requester context) */
	SPDM_SIG_PRESENT,	/* exactly the negotiated algorithm's signature size */
	SPDM_SIG_UNDELIMITED,	/* bytes there, but no algorithm was given to say how many */
};

/* What the VCA negotiated, when the caller has it (zero: unknown). */
struct spdm_meas_algs {
	uint32_t base_asym_sel;		/* ALGORITHMS BaseAsymSel: the signature size */
	uint32_t meas_hash_algo;	/* ALGORITHMS MeasurementHashAlgo: the digest size */
	uint8_t version;		/* the version the exchange speaks: the response must too */
};

/* About 18 KiB with every block slot in it: mind it on small stacks. */
struct spdm_meas {
	uint8_t version;		/* the response's SPDMVersion */
	uint8_t param1;			/* TotalNumberOfMeasurement when that was asked, else 0 */
	uint8_t slot_id;		/* Param2 bits 3:0 */
	uint8_t content_changed;	/* Param2 bits 5:4 (1.2) */
	unsigned int nr_blocks_declared;	/* NumberOfBlocks */
	unsigned int nr_blocks;		/* decoded: all of them on success */
	uint32_t record_len;		/* MeasurementRecordLength */
	size_t record_offset;
	struct spdm_meas_block blocks[SPDM_MEAS_MAX_BLOCKS];
	const uint8_t *nonce;		/* SPDM_NONCE_SIZE bytes; into the input */
	size_t nonce_offset;
	uint16_t opaque_len;
	const uint8_t *opaque;
	size_t opaque_offset;
	bool has_requester_context;	/* 1.3 */
	const uint8_t *requester_context;
	enum spdm_meas_sig sig;
	size_t sig_offset, sig_len;
	const uint8_t *signature;
	bool digest_sizes_checked;	/* every digest was held to MeasurementHashAlgo */
};

/*
 * Decode LEN bytes at BUF. ALGS (may be NULL) gives the negotiated sizes:
 * with them every digest and the signature must have exactly those sizes;
 * without, the signature is whatever follows (SPDM_SIG_UNDELIMITED). With
 * its version, a response speaking another one is malformed.
 * Returns 0 or -EBADMSG (ERR says where and why); on an error MEAS holds
 * what was decoded before it. Pointers point into BUF.
 */
int spdm_meas_decode(const uint8_t *buf, size_t len, const struct spdm_meas_algs *algs,
		     struct spdm_meas *meas, struct ev_error *err);

/* The block with INDEX, or NULL. */
const struct spdm_meas_block *spdm_meas_block(const struct spdm_meas *meas, unsigned int index);

/* "immutable_rom", "mutable_firmware", ..., NULL for a reserved type. */
const char *spdm_meas_type_name(unsigned int value_type);

#endif
