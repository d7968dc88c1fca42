// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The device-evidence read dump's reply, reassembled datagram by datagram
 * (ABI.md §1.6; drivers/base/evidence.c __device_evidence_read() at
 * intel-staging/tdx 9167426addf0 writes it): per requested type in
 * ascending order, a first message with type, generation, length and a
 * val chunk, then val-only messages, then NLMSG_DONE. Every bound is
 * checked; objects stream out to a sink. Pure: no I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "evidence-abi.h"
#include "tsmctl/util.h"

#ifndef NLMSGERR_ATTR_MISS_TYPE
#define NLMSGERR_ATTR_MISS_TYPE 5	/* linux/netlink.h since 6.1 */
#endif

static const char *const type_names[EV_NR_TYPES] = {
	"cert0", "cert1", "cert2", "cert3", "cert4", "cert5", "cert6", "cert7",
	"vca", "measurements", "report",
};

_Static_assert(EVIDENCE_NR_TYPES == EV_NR_TYPES, "one list of object types");
_Static_assert(EVIDENCE_ALL_TYPES == EV_TYPE_MASK_ALL, "the mask covers every type");
_Static_assert(EVIDENCE_OBJECT_MAX == EV_MAX_OBJECT, "one object limit");
_Static_assert(EVIDENCE_NONCE_MAX == EV_MAX_NONCE, "one nonce limit");

const char *evidence_type_name(unsigned int type)
{
	return type < EV_NR_TYPES ? type_names[type] : NULL;
}

int evidence_type_parse(const char *s)
{
	unsigned long long v;
	char *end;

	for (unsigned int i = 0; i < EV_NR_TYPES; i++)
		if (streq(s, type_names[i]))
			return (int)i;
	/* the test tool takes the number too (main.c parse_type()) */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || *end || v >= EV_NR_TYPES ? -EINVAL : (int)v;
}

void evidence_error_free(struct evidence_error *e)
{
	free(e->ext_msg);
	free(e->why);
	*e = (struct evidence_error){ .miss_type = -1 };
}

int ev_malformed(struct evidence_error *e, const char *fmt, ...)
{
	va_list ap;

	free(e->why);
	va_start(ap, fmt);
	e->why = xvasprintf(fmt, ap);
	va_end(ap);
	e->stage = EVIDENCE_MALFORMED;
	e->err = -EPROTO;
	return -EPROTO;
}

int ev_attr_walk(const uint8_t *p, size_t len, int (*cb)(const struct nlattr *a, void *data),
		 void *data, const char **why)
{
	while (len) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step;
		int rc;

		if (len < NLA_HDRLEN) {
			*why = "stray bytes after the last attribute";
			return -EPROTO;
		}
		if (a->nla_len < NLA_HDRLEN) {
			*why = "an attribute length below its own header";
			return -EPROTO;
		}
		if (a->nla_len > len) {
			*why = "an attribute runs past its message";
			return -EPROTO;
		}
		rc = cb(a, data);
		if (rc)
			return rc;
		/* the last attribute need not be padded out */
		step = NLA_ALIGN(a->nla_len);
		if (step > len)
			step = len;
		p += step;
		len -= step;
	}
	return 0;
}

static const char *request_attr_name(int type)
{
	static const char *const names[] = {
		[EV_A_TYPE_MASK] = "type-mask", [EV_A_FLAGS] = "flags", [EV_A_SUBSYS] = "subsys",
		[EV_A_DEV_NAME] = "dev-name", [EV_A_NONCE] = "nonce", [EV_A_GENERATION] = "generation",
	};

	return type > 0 && (size_t)type < ARRAY_SIZE(names) ? names[type] : NULL;
}

/* The attribute of the request at byte OFF from its header, by name. */
static const char *attr_at(const uint8_t *req, size_t len, uint32_t off)
{
	size_t pos = NLMSG_HDRLEN + GENL_HDRLEN;

	if (!req || len < pos)
		return NULL;
	while (pos + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const struct nlattr *)(req + pos);

		if (a->nla_len < NLA_HDRLEN)
			return NULL;
		if (pos == off)
			return request_attr_name(a->nla_type & NLA_TYPE_MASK);
		pos += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

struct ack_tlvs {
	struct evidence_error *e;
	const uint8_t *req;
	size_t req_len;
};

static int ack_tlv(const struct nlattr *a, void *data)
{
	struct ack_tlvs *t = data;
	const char *s = (const char *)a + NLA_HDRLEN;
	size_t n = a->nla_len - NLA_HDRLEN;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case NLMSGERR_ATTR_MSG:
		/* a string: up to its NUL, never past the attribute */
		free(t->e->ext_msg);
		t->e->ext_msg = xstrndup(s, strnlen(s, n));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (n == 4)
			t->e->bad_attr = attr_at(t->req, t->req_len, *(const uint32_t *)s);
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (n == 4)
			t->e->miss_type = (int)*(const uint32_t *)s;
		break;
	}
	return 0;
}

void ev_ext_ack(const struct nlmsghdr *nlh, size_t tlv_off, int err, const uint8_t *request,
		size_t request_len, struct evidence_error *e)
{
	struct ack_tlvs t = { e, request, request_len };
	const char *why;

	e->err = err;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || tlv_off > nlh->nlmsg_len)
		return;
	/* the text is advice only: a malformed TLV list just ends it */
	ev_attr_walk((const uint8_t *)nlh + tlv_off, nlh->nlmsg_len - tlv_off, ack_tlv, &t, &why);
}

void evidence_reply_init(struct evidence_reply *r, uint16_t family, uint32_t seq, uint32_t portid,
			 uint32_t mask, const struct evidence_sink *sink)
{
	*r = (struct evidence_reply){ .family = family, .seq = seq, .portid = portid, .mask = mask,
				      .sink = sink, .last_type = -1 };
}

/* "datagram 3, message 7: " before what went wrong */
#define FAIL(r, e, fmt, ...) \
	ev_malformed(e, "datagram %lu, message %lu: " fmt, (r)->datagrams, (r)->messages, ##__VA_ARGS__)

static int sink_failed(struct evidence_error *e, int rc)
{
	e->stage = EVIDENCE_SINK;
	e->err = rc;
	return rc;
}

/* One read message's attributes, first pass: the header attributes and how many val. */
struct read_attrs {
	bool has_type, has_gen, has_len, twice;
	uint32_t type, gen, len;
	unsigned int nvals;
	int bad_u32;		/* an attribute that should be a u32 and is not */
};

static int read_attr(const struct nlattr *a, void *data)
{
	struct read_attrs *ra = data;
	int t = a->nla_type & NLA_TYPE_MASK;
	uint32_t n = a->nla_len - NLA_HDRLEN;
	bool *has;
	uint32_t *v;

	switch (t) {
	case EV_A_TYPE: has = &ra->has_type; v = &ra->type; break;
	case EV_A_GENERATION: has = &ra->has_gen; v = &ra->gen; break;
	case EV_A_LENGTH: has = &ra->has_len; v = &ra->len; break;
	case EV_A_VAL:
		ra->nvals++;
		return 0;
	default:
		return 0;	/* count (u64, never sent) and future attributes */
	}
	if (n != sizeof(uint32_t)) {
		ra->bad_u32 = t;
		return 0;
	}
	ra->twice |= *has;
	*has = true;
	*v = mnl_attr_get_u32((const struct nlattr *)a);
	return 0;
}

struct val_pass {
	struct evidence_reply *r;
	struct evidence_error *e;
};

static int deliver_val(const struct nlattr *a, void *data)
{
	struct val_pass *vp = data;
	struct evidence_reply *r = vp->r;
	uint32_t n = a->nla_len - NLA_HDRLEN;
	int rc;

	if ((a->nla_type & NLA_TYPE_MASK) != EV_A_VAL)
		return 0;
	if (n > r->length - r->received)
		return FAIL(r, vp->e, "a %u-byte chunk runs past %s's length (%u of %u bytes so far)",
			    n, type_names[r->type], r->received, r->length);
	if (n && r->sink && r->sink->chunk) {
		rc = r->sink->chunk(r->sink->data, r->type, (const uint8_t *)a + NLA_HDRLEN, n);
		if (rc)
			return sink_failed(vp->e, rc);
	}
	r->received += n;
	return 0;
}

static const char *u32_attr_name(int t)
{
	return t == EV_A_TYPE ? "type" : t == EV_A_GENERATION ? "generation" : "length";
}

/* A first message: checks that it may start an object here, then the sink's begin. */
static int object_begin(struct evidence_reply *r, const struct read_attrs *ra,
			struct evidence_error *e)
{
	uint32_t bit;
	int rc;

	if (r->in_object)
		return FAIL(r, e, "a second first message (type %u) while %s is at %u of %u bytes",
			    ra->type, type_names[r->type], r->received, r->length);
	if (!ra->has_gen || !ra->has_len)
		return FAIL(r, e, "the first message of type %u lacks %s", ra->type,
			    ra->has_gen ? "length" : "generation");
	if (ra->type >= EV_NR_TYPES)
		return FAIL(r, e, "unknown object type %u", ra->type);
	bit = 1u << ra->type;
	if (!(r->mask & bit))
		return FAIL(r, e, "%s was not requested", type_names[ra->type]);
	if (r->seen & bit)
		return FAIL(r, e, "%s is sent a second time", type_names[ra->type]);
	if (r->last_type > (int)ra->type)
		return FAIL(r, e, "%s after %s: types must come in ascending order",
			    type_names[ra->type], type_names[r->last_type]);
	if (ra->len > EV_MAX_OBJECT)
		return FAIL(r, e, "%s claims %u bytes, over the %u-byte limit", type_names[ra->type],
			    ra->len, EV_MAX_OBJECT);
	if (r->have_generation && ra->gen != r->generation)
		return FAIL(r, e, "%s is of generation %u, the objects before of %u: one dump "
			    "reads one generation", type_names[ra->type], ra->gen, r->generation);
	r->generation = ra->gen;
	r->have_generation = true;
	r->in_object = true;
	r->type = ra->type;
	r->length = ra->len;
	r->received = 0;
	r->seen |= bit;
	r->last_type = (int)ra->type;
	if (r->sink && r->sink->begin) {
		rc = r->sink->begin(r->sink->data, ra->type, ra->gen, ra->len);
		if (rc)
			return sink_failed(e, rc);
	}
	return 0;
}

static int read_message(struct evidence_reply *r, const struct nlmsghdr *nlh,
			struct evidence_error *e)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const uint8_t *attrs = (const uint8_t *)g + GENL_HDRLEN;
	size_t alen = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct read_attrs ra = { .bad_u32 = 0 };
	struct val_pass vp = { r, e };
	const char *why;
	int rc;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return FAIL(r, e, "%u bytes: shorter than a generic netlink header", nlh->nlmsg_len);
	if (g->cmd != EV_CMD_READ)
		return FAIL(r, e, "command %u where the read dump's (%u) belongs", g->cmd, EV_CMD_READ);
	r->started = true;
	rc = ev_attr_walk(attrs, alen, read_attr, &ra, &why);
	if (rc)
		return FAIL(r, e, "%s", why);
	if (ra.bad_u32)
		return FAIL(r, e, "attribute %s is not a u32", u32_attr_name(ra.bad_u32));
	if (ra.twice)
		return FAIL(r, e, "type, generation or length twice in one message");
	if (ra.has_type) {
		rc = object_begin(r, &ra, e);
		if (rc)
			return rc;
	} else if (ra.has_gen || ra.has_len) {
		return FAIL(r, e, "generation or length without a type");
	} else if (!r->in_object) {
		return FAIL(r, e, "a val chunk outside any object");
	}
	if (!ra.nvals)
		return FAIL(r, e, "no val in a message of %s", type_names[r->type]);
	rc = ev_attr_walk(attrs, alen, deliver_val, &vp, &why);
	if (rc)
		return rc;
	if (r->received == r->length) {
		r->in_object = false;
		if (r->sink && r->sink->end) {
			rc = r->sink->end(r->sink->data, r->type);
			if (rc)
				return sink_failed(e, rc);
		}
	}
	return 0;
}

/* NLMSG_DONE: the dump's errno, or the end, with every object whole. */
static int done_message(struct evidence_reply *r, const struct nlmsghdr *nlh,
			struct evidence_error *e)
{
	int32_t v;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(v))
		return FAIL(r, e, "NLMSG_DONE without its error field");
	memcpy(&v, mnl_nlmsg_get_payload(nlh), sizeof(v));
	if (v < 0) {
		e->stage = EVIDENCE_DUMP;
		ev_ext_ack(nlh, NLMSG_HDRLEN + sizeof(v), v, r->request, r->request_len, e);
		return v;
	}
	if (r->in_object)
		return FAIL(r, e, "NLMSG_DONE with %s at %u of %u bytes", type_names[r->type],
			    r->received, r->length);
	for (unsigned int t = 0; t < EV_NR_TYPES; t++)
		if ((r->mask & (1u << t)) && !(r->seen & (1u << t)))
			return FAIL(r, e, "NLMSG_DONE, but %s was requested and never sent",
				    type_names[t]);
	r->done = true;
	return 1;
}

/* NLMSG_ERROR: only before the dump, where it is the request's refusal. */
static int error_message(struct evidence_reply *r, const struct nlmsghdr *nlh,
			 struct evidence_error *e)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = NLMSG_HDRLEN + sizeof(*err);

	if (nlh->nlmsg_len < off)
		return FAIL(r, e, "NLMSG_ERROR shorter than its header");
	if (r->started)
		return FAIL(r, e, "NLMSG_ERROR (%d) in the middle of the dump", err->error);
	if (err->error >= 0)
		return FAIL(r, e, "an acknowledgement (%d) where the dump belongs", err->error);
	/* without NETLINK_CAP_ACK the request comes back before the TLVs */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && err->msg.nlmsg_len >= NLMSG_HDRLEN)
		off += NLMSG_ALIGN(err->msg.nlmsg_len - NLMSG_HDRLEN);
	e->stage = EVIDENCE_REFUSED;
	ev_ext_ack(nlh, off, err->error, r->request, r->request_len, e);
	return err->error;
}

static int one_message(struct evidence_reply *r, const struct nlmsghdr *nlh,
		       struct evidence_error *e)
{
	if (r->done)
		return FAIL(r, e, "a message after NLMSG_DONE");
	if (nlh->nlmsg_seq != r->seq)
		return FAIL(r, e, "sequence number %u, the request's is %u", nlh->nlmsg_seq, r->seq);
	if (nlh->nlmsg_pid != r->portid)
		return FAIL(r, e, "port %u, this socket's is %u", nlh->nlmsg_pid, r->portid);
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return 0;
	case NLMSG_ERROR:
		return error_message(r, nlh, e);
	case NLMSG_DONE:
		return done_message(r, nlh, e);
	case NLMSG_OVERRUN:
		return FAIL(r, e, "NLMSG_OVERRUN: the kernel dropped data");
	}
	if (nlh->nlmsg_type != r->family)
		return FAIL(r, e, "message type %u, the family's is %u", nlh->nlmsg_type, r->family);
	return read_message(r, nlh, e);
}

int evidence_reply_feed(struct evidence_reply *r, const uint8_t *buf, size_t len, bool truncated,
			struct evidence_error *e)
{
	size_t off = 0;

	r->datagrams++;
	if (truncated)
		return ev_malformed(e, "datagram %lu: truncated (more than %d bytes)", r->datagrams,
				    EVIDENCE_RECV_SIZE);
	if (r->done)
		return ev_malformed(e, "datagram %lu: data after NLMSG_DONE", r->datagrams);
	if (!len)
		return ev_malformed(e, "datagram %lu: empty", r->datagrams);
	while (off < len) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)(buf + off);
		size_t left = len - off, step;
		int rc;

		r->messages++;
		if (left < NLMSG_HDRLEN)
			return FAIL(r, e, "a short header: %zu bytes left", left);
		if (nlh->nlmsg_len < NLMSG_HDRLEN)
			return FAIL(r, e, "nlmsg_len %u is below the header's 16", nlh->nlmsg_len);
		if (nlh->nlmsg_len > left)
			return FAIL(r, e, "nlmsg_len %u runs past the datagram (%zu bytes left)",
				    nlh->nlmsg_len, left);
		rc = one_message(r, nlh, e);
		if (rc < 0)
			return rc;
		step = NLMSG_ALIGN(nlh->nlmsg_len);
		off += step < left ? step : left;
		if (rc == 1 && off < len)
			return FAIL(r, e, "%zu bytes after NLMSG_DONE", len - off);
	}
	return r->done ? 1 : 0;
}
