/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The measurements object's framing and the transcript its signature covers
 * (DSP0274 1.0-1.3 "MEASUREMENTS signature", ABI.md §1.7). The object is a
 * bare MEASUREMENTS response (the uapi's word), GET_MEASUREMENTS request and
 * MEASUREMENTS response pairs (as vendors' tools hand them out), or a whole
 * transcript that starts with the VCA (the staging sample's `transcript`,
 * libspdm's standard measurement transcripts). The last response is the
 * one that may be signed, over L1: from SPDM 1.2 the VCA, then every
 * request and response up to the signature.
 *
 * Pure: bytes in, spans and decoded messages out; no crypto, no allocation.
 * spdm-sig.h verifies a signature over what spdm_l1_candidate() lays out.
 */
#ifndef TSMCTL_SPDM_TRANSCRIPT_H
#define TSMCTL_SPDM_TRANSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/ev-decode.h"
#include "tsmctl/spdm-meas.h"
#include "tsmctl/spdm-vca.h"

#define SPDM_TX_MAX_PAIRS		256	/* GET_MEASUREMENTS(0), one per index 1..254, margin */
#define SPDM_MEAS_REQ_MAX		(4 + SPDM_NONCE_SIZE + 1 + SPDM_REQ_CONTEXT_SIZE)
#define SPDM_MEAS_ATTR_SIGNATURE	0x01	/* GET_MEASUREMENTS Param1: SignatureRequested */
#define SPDM_MEAS_OP_ALL		0xff	/* Param2: every block */
#define SPDM_SLOT_PROVISIONED		0x0f	/* SlotID 15: a key provisioned in the requester */

enum spdm_tx_form {
	SPDM_TX_RESPONSE,	/* the MEASUREMENTS response alone */
	SPDM_TX_EXCHANGE,	/* GET_MEASUREMENTS, MEASUREMENTS, ... */
	SPDM_TX_TRANSCRIPT,	/* the VCA, then the exchange */
};

/* A GET_MEASUREMENTS request as carried. */
struct spdm_meas_req {
	size_t offset, len;		/* in the object */
	uint8_t version;
	uint8_t attributes;		/* Param1: bit 0 SignatureRequested */
	uint8_t operation;		/* Param2: 0 the count, 1..0xfe an index, 0xff all */
	const uint8_t *nonce;		/* SPDM_NONCE_SIZE bytes with a signature, else NULL */
	bool has_slot;			/* 1.1+ with a signature */
	uint8_t slot_id;
	const uint8_t *context;		/* 1.3: SPDM_REQ_CONTEXT_SIZE bytes */
};

struct spdm_transcript {
	enum spdm_tx_form form;
	struct spdm_vca vca;		/* SPDM_TX_TRANSCRIPT: the one it starts with */
	size_t vca_len;			/* its bytes at offset 0; 0 for the other forms */
	unsigned int nr_pairs;		/* request and response pairs; 0 for a bare response */
	struct spdm_meas_req last;	/* the last request (nr_pairs > 0) */
	size_t pairs_offset;		/* where the first request starts */
	size_t response_offset;		/* where the last response starts */
	size_t signed_end;		/* where L1's share of the object ends: the signature's offset */
};

/*
 * Decode LEN bytes at BUF. ALGS (may be NULL) are what the VCA object
 * negotiated; a transcript that carries its own VCA is decoded by that one.
 * MEAS receives the last response (its offsets relative to that response,
 * its pointers into BUF). Requests and responses must speak one version,
 * pair up (a response's slot and requester context are its request's, its
 * block count what the request asked for), and only the last request may
 * ask for a signature. Returns 0 or -EBADMSG, ERR's offset into BUF.
 */
int spdm_transcript_decode(const uint8_t *buf, size_t len, const struct spdm_meas_algs *algs,
			   struct spdm_transcript *tx, struct spdm_meas *meas, struct ev_error *err);

/* The algorithms a decode used: the carried VCA's, else ALGS (NULL: none known). */
const struct spdm_meas_algs *spdm_transcript_algs(const struct spdm_transcript *tx,
						  const struct spdm_meas_algs *algs,
						  struct spdm_meas_algs *out);

/*
 * A GET_MEASUREMENTS request for a signature into OUT (SPDM_MEAS_REQ_MAX
 * bytes): VERSION's layout (the slot from 1.1, CONTEXT when not NULL), the
 * nonce given (32 bytes). Its length.
 */
size_t spdm_meas_request_build(uint8_t *out, uint8_t version, uint8_t operation,
			       const uint8_t nonce[SPDM_NONCE_SIZE], uint8_t slot_id,
			       const uint8_t *context);

/* L1 laid out in pieces, no copy of the object: the VCA, the pairs before, the request, the rest. */
#define SPDM_L1_MAX_PIECES	4
struct spdm_l1 {
	const uint8_t *piece[SPDM_L1_MAX_PIECES];
	size_t len[SPDM_L1_MAX_PIECES];
	unsigned int nr;
	bool rebuilt;			/* the request is one of ours, not the object's */
	uint8_t operation;		/* the request's Param2 */
	bool with_context;		/* the request carries a requester context */
	uint8_t request[SPDM_MEAS_REQ_MAX];
};

/*
 * Candidate N (0, 1, ...) of the L1 the last response's signature covers:
 * 0 when laid out, -ENOENT past the last. A carried request gives one
 * candidate. A bare response gives one per GET_MEASUREMENTS a provider may
 * have sent for it, rebuilt with NONCE (NULL: none known, no candidate):
 * every block or the one index it holds, and under 1.3 with and without
 * the requester context the response echoes. VCA (VCA_LEN bytes, NULL when
 * not known) goes first from 1.2; without it a 1.2+ L1 cannot be laid out
 * (-ENOENT). BUF and MEAS are what spdm_transcript_decode() had and made.
 */
int spdm_l1_candidate(const struct spdm_transcript *tx, const uint8_t *buf,
		      const struct spdm_meas *meas, const uint8_t *vca, size_t vca_len,
		      const uint8_t *nonce, unsigned int n, struct spdm_l1 *l1);

/* The bytes L1 holds. */
size_t spdm_l1_len(const struct spdm_l1 *l1);

#endif
