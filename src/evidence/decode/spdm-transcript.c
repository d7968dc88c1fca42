// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The measurements object's framing and the L1 its signature covers
 * (spdm-transcript.h, DSP0274 "MEASUREMENTS signature", ABI.md §1.7): which
 * form the object has, each GET_MEASUREMENTS request against the response
 * that answers it, and the ways L1 can be laid out for the last response.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tsmctl/spdm-transcript.h"

#define SPDM_HDR_SIZE		4
#define SPDM_GET_VERSION	0x84
#define SPDM_GET_MEASUREMENTS	0xe0
#define SPDM_VERSION_11		0x11
#define SPDM_VERSION_12		0x12
#define SPDM_VERSION_13		0x13
#define MEAS_OP_COUNT		0x00	/* Param2 0: TotalNumberOfMeasurement, no block */

/* A GET_MEASUREMENTS request's length in VERSION's layout. */
static size_t request_len(uint8_t version, bool signature)
{
	size_t n = SPDM_HDR_SIZE;

	if (signature)
		n += SPDM_NONCE_SIZE + (version >= SPDM_VERSION_11 ? 1 : 0);
	return n + (version >= SPDM_VERSION_13 ? SPDM_REQ_CONTEXT_SIZE : 0);
}

/* The request at the cursor, in the exchange's VERSION (0: the first sets it). */
static bool decode_request(struct ev_cursor *c, uint8_t *version, struct spdm_meas_req *q,
			   struct ev_error *err)
{
	const uint8_t *p;

	memset(q, 0, sizeof(*q));
	q->offset = c->off;
	if (!ev_need(c, SPDM_HDR_SIZE, "GET_MEASUREMENTS", err))
		return false;
	p = c->buf + c->off;
	if (p[1] != SPDM_GET_MEASUREMENTS) {
		ev_fail(err, c->off + 1, "code 0x%02x where GET_MEASUREMENTS (0x%02x) belongs", p[1],
			SPDM_GET_MEASUREMENTS);
		return false;
	}
	if (p[0] >> 4 != 1) {
		ev_fail(err, c->off, "SPDM version %u.%u, not 1.x", p[0] >> 4, p[0] & 15);
		return false;
	}
	if (*version && p[0] != *version) {
		ev_fail(err, c->off, "GET_MEASUREMENTS speaks SPDM %u.%u, the exchange %u.%u",
			p[0] >> 4, p[0] & 15, *version >> 4, *version & 15);
		return false;
	}
	*version = q->version = p[0];
	q->attributes = p[2];
	q->operation = p[3];
	q->len = request_len(q->version, q->attributes & SPDM_MEAS_ATTR_SIGNATURE);
	if (!ev_need(c, q->len, "GET_MEASUREMENTS", err))
		return false;
	ev_skip(c, SPDM_HDR_SIZE);
	if (q->attributes & SPDM_MEAS_ATTR_SIGNATURE) {
		q->nonce = ev_skip(c, SPDM_NONCE_SIZE);
		if (q->version >= SPDM_VERSION_11) {
			q->has_slot = true;
			q->slot_id = ev_u8(c) & 0x0f;
		}
	}
	if (q->version >= SPDM_VERSION_13)
		q->context = ev_skip(c, SPDM_REQ_CONTEXT_SIZE);
	return true;
}

/* Does a response of M's blocks answer measurement operation OP? */
static bool answers(uint8_t op, const struct spdm_meas *m)
{
	if (op == MEAS_OP_COUNT)
		return !m->nr_blocks;
	if (op == SPDM_MEAS_OP_ALL)
		return m->nr_blocks > 0;
	return m->nr_blocks == 1 && m->blocks[0].index == op;
}

/*
 * The response (at AT in the object BASE) answers its request: slot,
 * requester context and blocks, as libspdm's requester checks them.
 */
static bool pairs_up(const struct spdm_meas_req *q, const struct spdm_meas *m,
		     const uint8_t *base, size_t at, struct ev_error *err)
{
	if (q->has_slot && m->slot_id != q->slot_id) {
		ev_fail(err, at + 3, "MEASUREMENTS names slot %u, its request slot %u", m->slot_id,
			q->slot_id);
		return false;
	}
	if (q->context && memcmp(q->context, m->requester_context, SPDM_REQ_CONTEXT_SIZE)) {
		ev_fail(err, (size_t)(m->requester_context - base),
			"MEASUREMENTS' RequesterContext is not its request's");
		return false;
	}
	if (!answers(q->operation, m)) {
		char asked[16];

		snprintf(asked, sizeof(asked), "index %u", q->operation);
		ev_fail(err, at + 4, "MEASUREMENTS holds %u block%s; its request asked for %s",
			m->nr_blocks, m->nr_blocks == 1 ? "" : "s",
			q->operation == MEAS_OP_COUNT ? "the count alone" :
			q->operation == SPDM_MEAS_OP_ALL ? "every block" : asked);
		return false;
	}
	return true;
}

/* One response at the cursor, decoded into MEAS with the error's offset in the object. */
static int decode_response(struct ev_cursor *c, const struct spdm_meas_algs *algs,
			   struct spdm_meas *meas, struct ev_error *err)
{
	int rc = spdm_meas_decode(c->buf + c->off, c->len - c->off, algs, meas, err);

	if (rc && err)
		err->offset += c->off;
	return rc;
}

/*
 * The pairs from the cursor on: each request, then its response; a request
 * without a signature leaves the rest to the next request, one with a
 * signature is the last (the signature ends the object).
 */
static int decode_pairs(struct ev_cursor *c, const struct spdm_meas_algs *algs,
			struct spdm_transcript *tx, struct spdm_meas *meas, struct ev_error *err)
{
	struct spdm_meas_algs a = algs ? *algs : (struct spdm_meas_algs){ 0 };
	uint8_t version = a.version;
	int rc;

	tx->pairs_offset = c->off;
	for (;;) {
		bool signed_req;

		if (tx->nr_pairs == SPDM_TX_MAX_PAIRS) {
			ev_fail(err, c->off, "more than %u GET_MEASUREMENTS requests",
				SPDM_TX_MAX_PAIRS);
			return -EBADMSG;
		}
		if (!decode_request(c, &version, &tx->last, err))
			return -EBADMSG;
		tx->nr_pairs++;
		signed_req = tx->last.attributes & SPDM_MEAS_ATTR_SIGNATURE;
		a.version = version;
		/* a response to an unsigned request ends where its fields do */
		a.base_asym_sel = signed_req && algs ? algs->base_asym_sel : 0;
		tx->response_offset = c->off;
		rc = decode_response(c, &a, meas, err);
		if (rc)
			return rc;
		if (!pairs_up(&tx->last, meas, c->buf, c->off, err))
			return -EBADMSG;
		tx->signed_end = c->off + meas->sig_offset;
		if (signed_req && meas->sig == SPDM_SIG_NONE) {
			ev_fail(err, tx->signed_end, "GET_MEASUREMENTS asked for a signature, and "
				"none follows its response");
			return -EBADMSG;
		}
		if (signed_req || tx->signed_end == c->len)
			return 0;
		c->off = tx->signed_end;
	}
}

int spdm_transcript_decode(const uint8_t *buf, size_t len, const struct spdm_meas_algs *algs,
			   struct spdm_transcript *tx, struct spdm_meas *meas, struct ev_error *err)
{
	struct spdm_meas_algs own;
	struct ev_cursor c;
	int rc;

	rc = ev_begin(tx, sizeof(*tx), &buf, len, err);
	if (rc)
		return rc;
	c = ev_cursor(buf, len);
	if (len >= 2 && buf[1] == SPDM_GET_VERSION) {
		tx->form = SPDM_TX_TRANSCRIPT;
		rc = spdm_vca_decode_prefix(buf, len, &tx->vca, err);
		if (rc)
			return rc;
		tx->vca_len = tx->vca.end;
		if (!tx->vca.trailing) {
			ev_fail(err, len, "the transcript ends after ALGORITHMS: no GET_MEASUREMENTS");
			return -EBADMSG;
		}
		c.off = tx->vca_len;
		return decode_pairs(&c, spdm_transcript_algs(tx, algs, &own), tx, meas, err);
	}
	if (len >= 2 && buf[1] == SPDM_GET_MEASUREMENTS) {
		tx->form = SPDM_TX_EXCHANGE;
		return decode_pairs(&c, algs, tx, meas, err);
	}
	/* anything else is read as the response, whose decoder names what it is instead */
	tx->form = SPDM_TX_RESPONSE;
	rc = decode_response(&c, algs, meas, err);
	tx->signed_end = meas->sig_offset;
	return rc;
}

const struct spdm_meas_algs *spdm_transcript_algs(const struct spdm_transcript *tx,
						  const struct spdm_meas_algs *algs,
						  struct spdm_meas_algs *out)
{
	if (tx->form != SPDM_TX_TRANSCRIPT)
		return algs;
	*out = (struct spdm_meas_algs){ .base_asym_sel = tx->vca.selected.base_asym,
					.meas_hash_algo = tx->vca.selected.meas_hash,
					.version = tx->vca.version };
	return out;
}

size_t spdm_meas_request_build(uint8_t *out, uint8_t version, uint8_t operation,
			       const uint8_t nonce[SPDM_NONCE_SIZE], uint8_t slot_id,
			       const uint8_t *context)
{
	size_t n = 0;

	out[n++] = version;
	out[n++] = SPDM_GET_MEASUREMENTS;
	out[n++] = SPDM_MEAS_ATTR_SIGNATURE;
	out[n++] = operation;
	memcpy(out + n, nonce, SPDM_NONCE_SIZE);
	n += SPDM_NONCE_SIZE;
	if (version >= SPDM_VERSION_11)
		out[n++] = slot_id;
	if (context) {
		memcpy(out + n, context, SPDM_REQ_CONTEXT_SIZE);
		n += SPDM_REQ_CONTEXT_SIZE;
	}
	return n;
}

static void add_piece(struct spdm_l1 *l1, const uint8_t *p, size_t n)
{
	l1->piece[l1->nr] = p;
	l1->len[l1->nr++] = n;
}

/*
 * The requests a provider may have sent for a bare response, in the order
 * tried: every block (libspdm's single-request transcript), else the one
 * index the response holds; under 1.3 with the requester context the
 * response echoes, then without it (a provider on an older layout).
 */
static bool rebuild_request(const struct spdm_meas *m, const uint8_t *nonce, unsigned int n,
			    struct spdm_l1 *l1)
{
	unsigned int nr_ctx = m->version >= SPDM_VERSION_13 ? 2 : 1;
	unsigned int nr_ops = m->nr_blocks == 1 ? 2 : 1;
	size_t len;

	if (!nonce || n >= nr_ops * nr_ctx)
		return false;
	l1->operation = n / nr_ctx ? m->blocks[0].index : SPDM_MEAS_OP_ALL;
	l1->with_context = nr_ctx == 2 && n % nr_ctx == 0;
	len = spdm_meas_request_build(l1->request, m->version, l1->operation, nonce, m->slot_id,
				      l1->with_context ? m->requester_context : NULL);
	l1->rebuilt = true;
	add_piece(l1, l1->request, len);
	return true;
}

int spdm_l1_candidate(const struct spdm_transcript *tx, const uint8_t *buf,
		      const struct spdm_meas *meas, const uint8_t *vca, size_t vca_len,
		      const uint8_t *nonce, unsigned int n, struct spdm_l1 *l1)
{
	memset(l1, 0, sizeof(*l1));
	/* DSP0274 1.2 on: L1 starts with the VCA; 1.0 and 1.1 sign the exchange alone */
	if (meas->version >= SPDM_VERSION_12) {
		if (tx->form == SPDM_TX_TRANSCRIPT)
			add_piece(l1, buf, tx->vca_len);
		else if (vca)
			add_piece(l1, vca, vca_len);
		else
			return -ENOENT;
	}
	if (tx->nr_pairs) {
		if (n)
			return -ENOENT;
		l1->operation = tx->last.operation;
		l1->with_context = tx->last.context != NULL;
		add_piece(l1, buf + tx->pairs_offset, tx->signed_end - tx->pairs_offset);
		return 0;
	}
	if (!rebuild_request(meas, nonce, n, l1))
		return -ENOENT;
	add_piece(l1, buf, meas->sig_offset);
	return 0;
}

size_t spdm_l1_len(const struct spdm_l1 *l1)
{
	size_t n = 0;

	for (unsigned int i = 0; i < l1->nr; i++)
		n += l1->len[i];
	return n;
}
