/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoder of an SPDM VCA transcript (DSP0274 1.0-1.3, ABI.md §1.7):
 * GET_VERSION, VERSION, GET_CAPABILITIES, CAPABILITIES, NEGOTIATE_ALGORITHMS
 * and ALGORITHMS back to back, as the kernel's evidence object holds them.
 * Bytes in, struct out; no allocation.
 */
#ifndef TSMCTL_SPDM_VCA_H
#define TSMCTL_SPDM_VCA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/ev-decode.h"
#include "tsmctl/spdm-alg.h"

#define SPDM_VERSION_10		0x10
#define SPDM_VERSION_11		0x11
#define SPDM_VERSION_12		0x12
#define SPDM_VERSION_13		0x13
#define SPDM_MAX_VERSION_ENTRIES 255	/* VersionNumberEntryCount is one byte */

enum spdm_vca_msg {
	SPDM_VCA_GET_VERSION,
	SPDM_VCA_VERSION,
	SPDM_VCA_GET_CAPABILITIES,
	SPDM_VCA_CAPABILITIES,
	SPDM_VCA_NEGOTIATE_ALGORITHMS,
	SPDM_VCA_ALGORITHMS,
	SPDM_VCA_NR_MSGS,
};

/* Where one message sits in the transcript. */
struct spdm_span {
	size_t offset, len;
};

/* GET_CAPABILITIES (the Requester's) or CAPABILITIES (the Responder's). */
struct spdm_caps {
	uint8_t param1;			/* 1.3: bit 0, supported algorithms asked for / included */
	bool has_flags;			/* the request carries flags from 1.1, the response always */
	uint8_t ct_exponent;
	uint32_t flags;			/* names: spdm_req_cap_name() / spdm_rsp_cap_name() per bit */
	bool has_sizes;			/* 1.2+: the two sizes below */
	uint32_t data_transfer_size, max_spdm_msg_size;
	/* 1.3 CAPABILITIES with param1 bit 0: the supported-algorithms block */
	bool has_supported_algs;
	uint32_t supported_base_asym, supported_base_hash;
};

/*
 * An algorithm set: what NEGOTIATE_ALGORITHMS offered (masks of bits) or
 * what ALGORITHMS chose (at most one bit each; names in spdm-alg.h).
 */
struct spdm_algs {
	uint8_t meas_spec;		/* bit 0: DMTF measurement specification */
	uint8_t other_params;		/* 1.2+: bits 3:0 opaque data format; 1.3 bit 4 multi-key */
	uint8_t mel_spec;		/* 1.3 */
	uint32_t meas_hash;		/* ALGORITHMS only: MeasurementHashAlgo */
	uint32_t base_asym, base_hash;
	unsigned int nr_ext_asym, nr_ext_hash;
	/* 1.1+ algorithm structure tables */
	unsigned int nr_tables;
	uint16_t dhe, aead, req_base_asym, key_schedule;
};

struct spdm_vca {
	struct spdm_span msg[SPDM_VCA_NR_MSGS];
	unsigned int nr_versions;
	uint16_t versions[SPDM_MAX_VERSION_ENTRIES];	/* major 15:12, minor 11:8, update 7:4, alpha 3:0 */
	uint8_t version;		/* negotiated: major << 4 | minor, e.g. 0x12 */
	bool newer_than_known;		/* above 1.3: decoded with the 1.3 layout */
	struct spdm_caps req_caps, rsp_caps;
	struct spdm_algs offered;	/* NEGOTIATE_ALGORITHMS */
	struct spdm_algs selected;	/* ALGORITHMS */
	size_t end;			/* offset just after ALGORITHMS */
	size_t trailing;		/* bytes after ALGORITHMS: a transcript's rest, or an error */
};

/*
 * Decode the VCA object: the six messages and nothing after them. Returns 0
 * or -EBADMSG (ERR says where and why); on an error VCA holds the messages
 * decoded before it (bytes after ALGORITHMS: all six, and vca->trailing).
 */
int spdm_vca_decode(const uint8_t *buf, size_t len, struct spdm_vca *vca, struct ev_error *err);

/*
 * The same at the start of a longer transcript (spdm-transcript.h): bytes
 * after ALGORITHMS are counted in vca->trailing, not an error.
 */
int spdm_vca_decode_prefix(const uint8_t *buf, size_t len, struct spdm_vca *vca,
			   struct ev_error *err);

/* The negotiated algorithms (NULL when none or not a single known bit). */
const struct spdm_hash_alg *spdm_vca_hash(const struct spdm_vca *vca);
const struct spdm_hash_alg *spdm_vca_meas_hash(const struct spdm_vca *vca);
const struct spdm_asym_alg *spdm_vca_asym(const struct spdm_vca *vca);

#endif
