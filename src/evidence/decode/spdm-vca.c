// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SPDM VCA transcript decoder (DSP0274 1.0-1.3, ABI.md §1.7): the six
 * messages in their order, each at the layout of the version GET_CAPABILITIES
 * chose, every length and count checked against the bytes.
 */
#include <errno.h>

#include "tsmctl/spdm-vca.h"

#define SPDM_HDR_SIZE			4	/* SPDMVersion, code, Param1, Param2 */
#define SPDM_GET_VERSION		0x84
#define SPDM_VERSION			0x04
#define SPDM_GET_CAPABILITIES		0xe1
#define SPDM_CAPABILITIES		0x61
#define SPDM_NEGOTIATE_ALGORITHMS	0xe3
#define SPDM_ALGORITHMS			0x63
#define SPDM_ERROR			0x7f
#define SPDM_CAPS_SUPPORTED_ALGS	0x01	/* 1.3 Param1 bit 0 */

#define NEGOTIATE_FIXED_SIZE		32	/* up to MELSpecification */
#define ALGORITHMS_FIXED_SIZE		36	/* up to the reserved u16 */
#define SUPPORTED_ALGS_FIXED_SIZE	30	/* the 1.3 block: NEGOTIATE_ALGORITHMS from Param1 */
#define EXT_ALG_SIZE			4
#define ALG_TABLE_FIXED_COUNT		2	/* AlgSupported bytes, DSP0274's FixedAlgCount */

#define ALG_TYPE_DHE			2
#define ALG_TYPE_AEAD			3
#define ALG_TYPE_REQ_BASE_ASYM		4
#define ALG_TYPE_KEY_SCHEDULE		5

static const char *const msg_names[SPDM_VCA_NR_MSGS] = {
	"GET_VERSION", "VERSION", "GET_CAPABILITIES", "CAPABILITIES",
	"NEGOTIATE_ALGORITHMS", "ALGORITHMS",
};

static const uint8_t msg_codes[SPDM_VCA_NR_MSGS] = {
	SPDM_GET_VERSION, SPDM_VERSION, SPDM_GET_CAPABILITIES, SPDM_CAPABILITIES,
	SPDM_NEGOTIATE_ALGORITHMS, SPDM_ALGORITHMS,
};

/*
 * The header of message WHICH at the cursor: its code, and the version it
 * must speak (0: any, the caller checks). Leaves the cursor after the header.
 */
static bool header(struct ev_cursor *c, enum spdm_vca_msg which, uint8_t version,
		   struct ev_error *err)
{
	const char *name = msg_names[which];
	uint8_t ver, code;

	if (!ev_need(c, SPDM_HDR_SIZE, name, err))
		return false;
	ver = c->buf[c->off];
	code = c->buf[c->off + 1];
	if (code == SPDM_ERROR) {
		ev_fail(err, c->off + 1, "an SPDM ERROR response (code 0x%02x) where %s belongs",
			c->buf[c->off + 2], name);
		return false;
	}
	if (code != msg_codes[which]) {
		ev_fail(err, c->off + 1, "code 0x%02x where %s (0x%02x) belongs", code, name,
			msg_codes[which]);
		return false;
	}
	if (version && ver != version) {
		ev_fail(err, c->off, "%s speaks SPDM %u.%u, the exchange %u.%u", name, ver >> 4,
			ver & 15, version >> 4, version & 15);
		return false;
	}
	c->off += SPDM_HDR_SIZE;
	return true;
}

static int decode_version(struct ev_cursor *c, struct spdm_vca *v, struct ev_error *err)
{
	size_t count_off;

	if (!header(c, SPDM_VCA_VERSION, SPDM_VERSION_10, err) ||
	    !ev_need(c, 2, "VERSION's entry count", err))
		return -EBADMSG;
	ev_u8(c);
	count_off = c->off;
	v->nr_versions = ev_u8(c);
	if (!v->nr_versions) {
		ev_fail(err, count_off, "VERSION lists no version");
		return -EBADMSG;
	}
	if (!ev_need(c, 2u * v->nr_versions, "VERSION's entries", err))
		return -EBADMSG;
	for (unsigned int i = 0; i < v->nr_versions; i++)
		v->versions[i] = ev_u16(c);
	return 0;
}

/* The version GET_CAPABILITIES speaks is the one the exchange uses: VERSION must offer it. */
static int choose_version(const struct ev_cursor *c, struct spdm_vca *v, struct ev_error *err)
{
	uint8_t ver;

	if (!ev_need(c, SPDM_HDR_SIZE, "GET_CAPABILITIES", err))
		return -EBADMSG;
	ver = c->buf[c->off];
	for (unsigned int i = 0; i < v->nr_versions; i++) {
		if ((v->versions[i] >> 8) == ver && ver >= SPDM_VERSION_10) {
			v->version = ver;
			v->newer_than_known = ver > SPDM_VERSION_13;
			return 0;
		}
	}
	ev_fail(err, c->off, "GET_CAPABILITIES speaks SPDM %u.%u, which VERSION does not offer",
		ver >> 4, ver & 15);
	return -EBADMSG;
}

/* CTExponent and Flags, then from 1.2 DataTransferSize and MaxSPDMmsgSize. */
static bool decode_caps_fields(struct ev_cursor *c, uint8_t version, struct spdm_caps *caps,
			       const char *name, struct ev_error *err)
{
	if (!ev_need(c, 8, name, err))
		return false;
	ev_u8(c);
	caps->ct_exponent = ev_u8(c);
	ev_u16(c);
	caps->flags = ev_u32(c);
	caps->has_flags = true;
	if (version < SPDM_VERSION_12)
		return true;
	if (!ev_need(c, 8, name, err))
		return false;
	caps->data_transfer_size = ev_u32(c);
	caps->max_spdm_msg_size = ev_u32(c);
	caps->has_sizes = true;
	return true;
}

/* The external algorithm entries, skipped: DSP0274 registries, not decoded here. */
static bool skip_ext(struct ev_cursor *c, const struct spdm_algs *a, struct ev_error *err)
{
	size_t n = EXT_ALG_SIZE * ((size_t)a->nr_ext_asym + a->nr_ext_hash);

	if (!ev_need(c, n, "the external algorithm entries", err))
		return false;
	ev_skip(c, n);
	return true;
}

static uint16_t *table_slot(struct spdm_algs *a, uint8_t type)
{
	switch (type) {
	case ALG_TYPE_DHE:
		return &a->dhe;
	case ALG_TYPE_AEAD:
		return &a->aead;
	case ALG_TYPE_REQ_BASE_ASYM:
		return &a->req_base_asym;
	case ALG_TYPE_KEY_SCHEDULE:
		return &a->key_schedule;
	}
	return NULL;
}

/* Algorithm structure tables: AlgType, AlgCount, AlgSupported[2], AlgExternal[n]. */
static bool decode_tables(struct ev_cursor *c, struct spdm_algs *a, struct ev_error *err)
{
	unsigned int seen = 0;

	for (unsigned int i = 0; i < a->nr_tables; i++) {
		size_t at = c->off;
		uint8_t type, count;
		uint16_t *slot;

		if (!ev_need(c, 2, "an algorithm structure table", err))
			return false;
		type = ev_u8(c);
		count = ev_u8(c);
		if (count >> 4 != ALG_TABLE_FIXED_COUNT) {
			ev_fail(err, at + 1, "algorithm table type %u has FixedAlgCount %u, "
				"SPDM defines %u", type, count >> 4, ALG_TABLE_FIXED_COUNT);
			return false;
		}
		if (!ev_need(c, ALG_TABLE_FIXED_COUNT + EXT_ALG_SIZE * (size_t)(count & 15),
			     "an algorithm structure table", err))
			return false;
		slot = table_slot(a, type);
		if (slot && (seen & (1u << type))) {
			ev_fail(err, at, "a second algorithm table of type %u", type);
			return false;
		}
		/* types past KeySchedule (SPDM 1.4) are stepped over */
		if (slot) {
			seen |= 1u << type;
			*slot = ev_u16(c);
		} else {
			ev_u16(c);
		}
		ev_skip(c, EXT_ALG_SIZE * (size_t)(count & 15));
	}
	return true;
}

/*
 * The Length field of WHAT, two bytes at START + 4, counting from FROM: at
 * least FIXED, inside the bytes. Narrows the cursor to the message, so that
 * nothing after it can be read as part of it.
 */
static bool message_length(struct ev_cursor *c, size_t start, size_t from, size_t fixed,
			   const char *what, struct ev_error *err)
{
	size_t length = (size_t)ev_le(c->buf + start + SPDM_HDR_SIZE, 2);

	if (length < fixed || length > c->len - from) {
		ev_fail(err, start + SPDM_HDR_SIZE, "%s Length %zu: needs %zu to %zu", what, length,
			fixed, c->len - from);
		return false;
	}
	c->len = from + length;
	return true;
}

/* The message must end exactly where its Length says. */
static bool ends_at_length(const struct ev_cursor *c, const char *what, struct ev_error *err)
{
	if (!ev_left(c))
		return true;
	ev_fail(err, c->off, "%s has %zu bytes past its fields, inside its Length", what,
		ev_left(c));
	return false;
}

/*
 * NEGOTIATE_ALGORITHMS' fields from Param1 on (also the 1.3 CAPABILITIES
 * supported-algorithms block, which has the same fields): START is where the
 * SPDM header is or would be, two bytes before Param1; Length counts from
 * FROM (START for the message, Param1 for the block).
 */
static bool decode_offer(struct ev_cursor *c, size_t start, size_t from, uint8_t version,
			 bool tables, struct spdm_algs *a, const char *what, struct ev_error *err)
{
	struct ev_cursor m = *c;

	if (!message_length(&m, start, from, NEGOTIATE_FIXED_SIZE - (from - start), what, err))
		return false;
	a->nr_tables = tables ? m.buf[start + 2] : 0;
	m.off = start + 6;
	a->meas_spec = ev_u8(&m);
	a->other_params = ev_u8(&m);
	if (version < SPDM_VERSION_12)
		a->other_params = 0;
	a->base_asym = ev_u32(&m);
	a->base_hash = ev_u32(&m);
	ev_skip(&m, 12);
	a->nr_ext_asym = ev_u8(&m);
	a->nr_ext_hash = ev_u8(&m);
	ev_u8(&m);
	a->mel_spec = ev_u8(&m);
	if (!skip_ext(&m, a, err) || !decode_tables(&m, a, err) || !ends_at_length(&m, what, err))
		return false;
	c->off = m.len;
	return true;
}

static int decode_capabilities(struct ev_cursor *c, struct spdm_vca *v, struct ev_error *err)
{
	struct spdm_caps *caps = &v->rsp_caps;
	size_t start = c->off;
	struct spdm_algs supported = { 0 };

	if (!header(c, SPDM_VCA_CAPABILITIES, v->version, err))
		return -EBADMSG;
	caps->param1 = c->buf[start + 2];
	if (!decode_caps_fields(c, v->version, caps, "CAPABILITIES", err))
		return -EBADMSG;
	if (v->version < SPDM_VERSION_13 || !(caps->param1 & SPDM_CAPS_SUPPORTED_ALGS))
		return 0;
	/* the block starts with its Param1: its "header" would start two bytes earlier */
	if (!ev_need(c, SUPPORTED_ALGS_FIXED_SIZE, "the supported algorithms block", err) ||
	    !decode_offer(c, c->off - 2, c->off, v->version, true, &supported,
			  "the supported algorithms block", err))
		return -EBADMSG;
	caps->has_supported_algs = true;
	caps->supported_base_asym = supported.base_asym;
	caps->supported_base_hash = supported.base_hash;
	return 0;
}

static int decode_negotiate(struct ev_cursor *c, struct spdm_vca *v, struct ev_error *err)
{
	size_t start = c->off;

	if (!header(c, SPDM_VCA_NEGOTIATE_ALGORITHMS, v->version, err) ||
	    !ev_need(c, NEGOTIATE_FIXED_SIZE - SPDM_HDR_SIZE, "NEGOTIATE_ALGORITHMS", err) ||
	    !decode_offer(c, start, start, v->version, v->version >= SPDM_VERSION_11,
			  &v->offered, "NEGOTIATE_ALGORITHMS", err))
		return -EBADMSG;
	return 0;
}

/* A selection is one algorithm or none, and one the Requester offered. */
static bool check_pick(uint32_t sel, uint32_t offered, bool check_offer, size_t at,
		       const char *field, struct ev_error *err)
{
	if (sel && !spdm_one_bit(sel)) {
		ev_fail(err, at, "ALGORITHMS selects more than one %s (0x%x)", field, sel);
		return false;
	}
	if (check_offer && (sel & ~offered)) {
		ev_fail(err, at, "ALGORITHMS selects %s 0x%x, which NEGOTIATE_ALGORITHMS did not "
			"offer (0x%x)", field, sel, offered);
		return false;
	}
	return true;
}

static bool check_selection(const struct spdm_vca *v, size_t start, struct ev_error *err)
{
	const struct spdm_algs *s = &v->selected, *o = &v->offered;

	return check_pick(s->meas_hash, 0, false, start + 8, "MeasurementHashAlgo", err) &&
	       check_pick(s->base_asym, o->base_asym, true, start + 12, "BaseAsymAlgo", err) &&
	       check_pick(s->base_hash, o->base_hash, true, start + 16, "BaseHashAlgo", err) &&
	       check_pick(s->dhe, o->dhe, true, start, "DHE group", err) &&
	       check_pick(s->aead, o->aead, true, start, "AEAD suite", err) &&
	       check_pick(s->req_base_asym, o->req_base_asym, true, start, "ReqBaseAsymAlg", err) &&
	       check_pick(s->key_schedule, o->key_schedule, true, start, "KeySchedule", err);
}

static int decode_algorithms(struct ev_cursor *c, struct spdm_vca *v, struct ev_error *err)
{
	struct spdm_algs *a = &v->selected;
	size_t start = c->off;
	struct ev_cursor m;

	if (!header(c, SPDM_VCA_ALGORITHMS, v->version, err) ||
	    !ev_need(c, ALGORITHMS_FIXED_SIZE - SPDM_HDR_SIZE, "ALGORITHMS", err))
		return -EBADMSG;
	m = *c;
	if (!message_length(&m, start, start, ALGORITHMS_FIXED_SIZE, "ALGORITHMS", err))
		return -EBADMSG;
	a->nr_tables = v->version >= SPDM_VERSION_11 ? m.buf[start + 2] : 0;
	m.off = start + 6;
	a->meas_spec = ev_u8(&m);
	a->other_params = ev_u8(&m);
	a->meas_hash = ev_u32(&m);
	a->base_asym = ev_u32(&m);
	a->base_hash = ev_u32(&m);
	ev_skip(&m, 11);
	a->mel_spec = ev_u8(&m);
	a->nr_ext_asym = ev_u8(&m);
	a->nr_ext_hash = ev_u8(&m);
	ev_u16(&m);
	if (v->version < SPDM_VERSION_12)
		a->other_params = 0;
	if (!skip_ext(&m, a, err) || !decode_tables(&m, a, err) ||
	    !ends_at_length(&m, "ALGORITHMS", err) || !check_selection(v, start, err))
		return -EBADMSG;
	c->off = m.len;
	return 0;
}

/* Each step decodes one message at the cursor; the spans record where each was. */
static int decode_msg(struct ev_cursor *c, struct spdm_vca *v, enum spdm_vca_msg which,
		      struct ev_error *err)
{
	size_t start = c->off;
	int rc = 0;

	switch (which) {
	case SPDM_VCA_GET_VERSION:
		rc = header(c, which, SPDM_VERSION_10, err) ? 0 : -EBADMSG;
		break;
	case SPDM_VCA_VERSION:
		rc = decode_version(c, v, err);
		break;
	case SPDM_VCA_GET_CAPABILITIES:
		rc = choose_version(c, v, err);
		if (rc || !header(c, which, v->version, err))
			return -EBADMSG;
		v->req_caps.param1 = c->buf[start + 2];
		/* 1.0 requests are the header alone */
		if (v->version >= SPDM_VERSION_11 &&
		    !decode_caps_fields(c, v->version, &v->req_caps, "GET_CAPABILITIES", err))
			rc = -EBADMSG;
		break;
	case SPDM_VCA_CAPABILITIES:
		rc = decode_capabilities(c, v, err);
		break;
	case SPDM_VCA_NEGOTIATE_ALGORITHMS:
		rc = decode_negotiate(c, v, err);
		break;
	case SPDM_VCA_ALGORITHMS:
		rc = decode_algorithms(c, v, err);
		break;
	case SPDM_VCA_NR_MSGS:
		break;
	}
	if (!rc)
		v->msg[which] = (struct spdm_span){ .offset = start, .len = c->off - start };
	return rc;
}

int spdm_vca_decode_prefix(const uint8_t *buf, size_t len, struct spdm_vca *vca,
			   struct ev_error *err)
{
	struct ev_cursor c;
	int rc;

	rc = ev_begin(vca, sizeof(*vca), &buf, len, err);
	if (rc)
		return rc;
	c = ev_cursor(buf, len);
	for (int m = SPDM_VCA_GET_VERSION; m < SPDM_VCA_NR_MSGS; m++) {
		rc = decode_msg(&c, vca, (enum spdm_vca_msg)m, err);
		if (rc)
			return rc;
	}
	vca->end = c.off;
	vca->trailing = ev_left(&c);
	return 0;
}

int spdm_vca_decode(const uint8_t *buf, size_t len, struct spdm_vca *vca, struct ev_error *err)
{
	int rc = spdm_vca_decode_prefix(buf, len, vca, err);

	/* the object is the six messages: more bytes are no part of the negotiation */
	if (!rc && vca->trailing) {
		ev_fail(err, vca->end, "%zu bytes after ALGORITHMS: the VCA is the six messages "
			"from GET_VERSION to ALGORITHMS and nothing else", vca->trailing);
		rc = -EBADMSG;
	}
	return rc;
}

const struct spdm_hash_alg *spdm_vca_hash(const struct spdm_vca *vca)
{
	return spdm_hash_alg(vca->selected.base_hash);
}

const struct spdm_hash_alg *spdm_vca_meas_hash(const struct spdm_vca *vca)
{
	return spdm_meas_hash_alg(vca->selected.meas_hash);
}

const struct spdm_asym_alg *spdm_vca_asym(const struct spdm_vca *vca)
{
	return spdm_asym_alg(vca->selected.base_asym);
}
