// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The device-evidence reply parser (src/evidence/fetch/evidence-reply.c) on message
 * buffers built here byte by byte: a good dump, and every malformed case
 * it must refuse (ABI.md §1.6): short header, nlmsg_len past the buffer,
 * attribute past its message, chunk past length, length over 16 MiB, a
 * type out of order, unrequested or repeated, a second first message,
 * NLMSG_ERROR in the middle, a wrong sequence number or port, a truncated
 * datagram, and the kernel's own errors with their extended-ack text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../src/evidence/fetch/evidence-abi.h"
#include "tsmctl/evidence.h"
#include "tsmctl/util.h"
#include "unit.h"

#define FAM	0x21
#define SEQ	1000
#define PORT	4242

/* ---- a datagram under construction ---- */
static _Alignas(8) uint8_t dg[1 << 16];
static size_t dglen;

static void dg_reset(void)
{
	memset(dg, 0, sizeof(dg));
	dglen = 0;
}

static struct nlmsghdr *msg_begin(uint16_t type, uint32_t seq, uint32_t pid)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(dg + dglen);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	return nlh;
}

static void msg_end(struct nlmsghdr *nlh)
{
	dglen += NLMSG_ALIGN(nlh->nlmsg_len);
}

static struct nlmsghdr *read_begin(void)
{
	struct nlmsghdr *nlh = msg_begin(FAM, SEQ, PORT);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = EV_CMD_READ;
	g->version = 1;
	return nlh;
}

/* A first message: type, generation, length, one val chunk. */
static void first(uint32_t type, uint32_t gen, uint32_t len, const void *val, size_t n)
{
	struct nlmsghdr *nlh = read_begin();

	mnl_attr_put_u32(nlh, EV_A_TYPE, type);
	mnl_attr_put_u32(nlh, EV_A_GENERATION, gen);
	mnl_attr_put_u32(nlh, EV_A_LENGTH, len);
	mnl_attr_put(nlh, EV_A_VAL, n, val);
	msg_end(nlh);
}

static void cont(const void *val, size_t n)
{
	struct nlmsghdr *nlh = read_begin();

	mnl_attr_put(nlh, EV_A_VAL, n, val);
	msg_end(nlh);
}

/* NLMSG_DONE with ERR and, when TEXT, its NLMSGERR_ATTR_MSG. */
static void done(int32_t err, const char *text)
{
	struct nlmsghdr *nlh = msg_begin(NLMSG_DONE, SEQ, PORT);
	int32_t *v = mnl_nlmsg_put_extra_header(nlh, sizeof(*v));

	*v = err;
	if (text) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, text);
	}
	msg_end(nlh);
}

/* The request as sent, for NLMSGERR_ATTR_OFFS and the uncapped echo. */
static _Alignas(8) uint8_t req[256];
static size_t req_len, dev_name_off;

static void build_request(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = FAM;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = SEQ;
	g->cmd = EV_CMD_READ;
	mnl_attr_put_u32(nlh, EV_A_TYPE_MASK, 0x201);
	mnl_attr_put_strz(nlh, EV_A_SUBSYS, "pci");
	dev_name_off = nlh->nlmsg_len;
	mnl_attr_put_strz(nlh, EV_A_DEV_NAME, "0000:41:00.0");
	req_len = nlh->nlmsg_len;
}

/* NLMSG_ERROR for the request: CAPPED or with the request echoed, TLVs after. */
static void error_msg(int32_t err, bool capped, const char *text, int miss, int bad_off)
{
	struct nlmsghdr *nlh = msg_begin(NLMSG_ERROR, SEQ, PORT);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	nlh->nlmsg_flags = capped ? NLM_F_CAPPED : 0;
	e->error = err;
	memcpy(&e->msg, req, sizeof(e->msg));
	if (!capped) {
		memcpy(mnl_nlmsg_get_payload_tail(nlh), req + NLMSG_HDRLEN, req_len - NLMSG_HDRLEN);
		nlh->nlmsg_len += NLMSG_ALIGN(req_len - NLMSG_HDRLEN);
	}
	if (text || miss >= 0 || bad_off >= 0)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (text)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, text);
	if (miss >= 0)
		mnl_attr_put_u32(nlh, 5 /* NLMSGERR_ATTR_MISS_TYPE */, (uint32_t)miss);
	if (bad_off >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, (uint32_t)bad_off);
	msg_end(nlh);
}

/* ---- a sink that writes down what it saw ---- */
static char seen[4096];
static size_t total;
static uint8_t last_byte;
static int fail_chunk;

static int s_begin(void *d, unsigned int type, uint32_t gen, uint32_t len)
{
	(void)d;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "begin %s g%u l%u;",
		 evidence_type_name(type), gen, len);
	return 0;
}

static int s_chunk(void *d, unsigned int type, const uint8_t *buf, size_t len)
{
	(void)d;
	(void)type;
	if (fail_chunk)
		return fail_chunk;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "chunk %zu;", len);
	total += len;
	last_byte = buf[len - 1];
	return 0;
}

static int s_end(void *d, unsigned int type)
{
	(void)d;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "end %s;",
		 evidence_type_name(type));
	return 0;
}

static const struct evidence_sink sink = { NULL, s_begin, s_chunk, s_end, NULL };

static struct evidence_reply r;
static struct evidence_error e;

static void start(uint32_t mask)
{
	evidence_error_free(&e);
	evidence_reply_init(&r, FAM, SEQ, PORT, mask, &sink);
	r.request = req;
	r.request_len = req_len;
	seen[0] = 0;
	total = 0;
	fail_chunk = 0;
	dg_reset();
}

static int feed(void)
{
	return evidence_reply_feed(&r, dg, dglen, false, &e);
}

/* The last feed was refused as malformed, saying WHAT. */
static int malformed(int rc, const char *what)
{
	if (rc != -EPROTO || e.stage != EVIDENCE_MALFORMED || !e.why || !strstr(e.why, what)) {
		printf("  expected malformed '%s', got rc %d stage %d why '%s'\n", what, rc, e.stage,
		       e.why ? e.why : "");
		return 0;
	}
	return 1;
}

static uint8_t blob[100];

static void test_good_dump(void)
{
	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)i;
	start(0x201);
	first(0, 5, 100, blob, 60);
	CHECK(feed() == 0);
	dg_reset();
	cont(blob + 60, 40);
	first(9, 5, 0, NULL, 0);
	done(0, NULL);
	CHECK(feed() == 1);
	CHECK(!strcmp(seen, "begin cert0 g5 l100;chunk 60;chunk 40;end cert0;"
		      "begin measurements g5 l0;end measurements;"));
	CHECK(total == 100 && last_byte == 99);
	CHECK(r.datagrams == 2 && r.messages == 4 && r.generation == 5);
	/* nothing may follow the end */
	dg_reset();
	cont(blob, 1);
	CHECK(malformed(feed(), "after NLMSG_DONE"));
}

static void test_framing(void)
{
	start(1);
	first(0, 1, 4, blob, 4);
	CHECK(malformed(evidence_reply_feed(&r, dg, dglen, true, &e), "truncated"));

	start(1);
	CHECK(malformed(evidence_reply_feed(&r, dg, 10, false, &e), "short header: 10 bytes"));

	start(1);
	first(0, 1, 4, blob, 4);
	dglen += 8;	/* eight stray bytes after a whole message */
	CHECK(malformed(feed(), "short header: 8 bytes left"));

	start(1);
	first(0, 1, 4, blob, 4);
	((struct nlmsghdr *)dg)->nlmsg_len += 64;
	CHECK(malformed(feed(), "runs past the datagram"));

	start(1);
	first(0, 1, 4, blob, 4);
	((struct nlmsghdr *)dg)->nlmsg_len = 12;
	CHECK(malformed(feed(), "below the header"));

	start(1);
	CHECK(malformed(evidence_reply_feed(&r, dg, 0, false, &e), "empty"));
}

/* The attribute at byte OFF of the first message, to break. */
static struct nlattr *attr_at(size_t off)
{
	return (struct nlattr *)(dg + NLMSG_HDRLEN + GENL_HDRLEN + off);
}

static void test_attributes(void)
{
	start(1);
	first(0, 1, 4, blob, 4);
	attr_at(24)->nla_len = 40;	/* the val attribute, 8 bytes, claims 40 */
	CHECK(malformed(feed(), "runs past its message"));

	start(1);
	first(0, 1, 4, blob, 4);
	attr_at(24)->nla_len = 2;
	CHECK(malformed(feed(), "below its own header"));

	start(1);
	{
		struct nlmsghdr *nlh = read_begin();

		mnl_attr_put_u16(nlh, EV_A_TYPE, 0);	/* a u16 where a u32 belongs */
		mnl_attr_put_u32(nlh, EV_A_GENERATION, 1);
		mnl_attr_put_u32(nlh, EV_A_LENGTH, 0);
		mnl_attr_put(nlh, EV_A_VAL, 0, NULL);
		msg_end(nlh);
	}
	CHECK(malformed(feed(), "type is not a u32"));

	start(1);
	{
		struct nlmsghdr *nlh = read_begin();

		mnl_attr_put_u32(nlh, EV_A_TYPE, 0);
		mnl_attr_put_u32(nlh, EV_A_GENERATION, 1);
		mnl_attr_put(nlh, EV_A_VAL, 0, NULL);
		msg_end(nlh);
	}
	CHECK(malformed(feed(), "lacks length"));

	start(1);
	{
		struct nlmsghdr *nlh = read_begin();

		mnl_attr_put_u32(nlh, EV_A_TYPE, 0);
		mnl_attr_put_u32(nlh, EV_A_GENERATION, 1);
		mnl_attr_put_u32(nlh, EV_A_LENGTH, 3);
		msg_end(nlh);
	}
	CHECK(malformed(feed(), "no val"));

	/* a future attribute (count, u64) is no error */
	start(1);
	{
		struct nlmsghdr *nlh = read_begin();

		mnl_attr_put_u32(nlh, EV_A_TYPE, 0);
		mnl_attr_put_u64(nlh, EV_A_COUNT, 7);
		mnl_attr_put_u32(nlh, EV_A_GENERATION, 1);
		mnl_attr_put_u32(nlh, EV_A_LENGTH, 2);
		mnl_attr_put(nlh, EV_A_VAL, 2, blob);
		msg_end(nlh);
	}
	done(0, NULL);
	CHECK(feed() == 1 && total == 2);
}

static void test_bounds(void)
{
	start(1);
	first(0, 1, 10, blob, 11);
	CHECK(malformed(feed(), "11-byte chunk runs past cert0's length (0 of 10"));

	start(1);
	first(0, 1, 10, blob, 6);
	cont(blob, 6);
	CHECK(malformed(feed(), "6-byte chunk runs past cert0's length (6 of 10"));

	start(1);
	first(0, 1, EVIDENCE_OBJECT_MAX + 1, blob, 4);
	CHECK(malformed(feed(), "over the 16777216-byte limit"));
	CHECK(!strstr(seen, "begin"));	/* nothing reached the sink */

	/* exactly 16 MiB is allowed */
	start(1);
	first(0, 1, EVIDENCE_OBJECT_MAX, blob, 4);
	CHECK(feed() == 0 && r.in_object);
}

/* The first messages of one malformed datagram, and what must be said of it. */
static const struct {
	uint32_t mask;
	unsigned int n;
	struct { uint32_t type, gen, len, chunk; } m[2];
	const char *why;
} type_cases[] = {
	{ 0x201, 2, { { 9, 1, 0, 0 }, { 0, 1, 0, 0 } }, "cert0 after measurements" },
	{ 0x201, 1, { { 1, 1, 0, 0 } }, "cert1 was not requested" },
	{ 0x201, 2, { { 0, 1, 1, 1 }, { 0, 1, 1, 1 } }, "cert0 is sent a second time" },
	{ 0x201, 2, { { 0, 1, 100, 10 }, { 9, 1, 0, 0 } },
	  "a second first message (type 9) while cert0 is at 10 of 100" },
	{ 0x201, 2, { { 0, 1, 0, 0 }, { 9, 2, 0, 0 } }, "one dump reads one generation" },
	{ 0x7ff, 1, { { 11, 1, 0, 0 } }, "unknown object type 11" },
};

static void test_types(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(type_cases); i++) {
		start(type_cases[i].mask);
		for (unsigned int k = 0; k < type_cases[i].n; k++)
			first(type_cases[i].m[k].type, type_cases[i].m[k].gen, type_cases[i].m[k].len,
			      blob, type_cases[i].m[k].chunk);
		CHECK(malformed(feed(), type_cases[i].why));
	}

	start(1);
	cont(blob, 3);
	CHECK(malformed(feed(), "outside any object"));
}

static void test_headers(void)
{
	start(1);
	first(0, 1, 1, blob, 1);
	((struct nlmsghdr *)dg)->nlmsg_seq = SEQ + 1;
	CHECK(malformed(feed(), "sequence number 1001, the request's is 1000"));

	start(1);
	first(0, 1, 1, blob, 1);
	((struct nlmsghdr *)dg)->nlmsg_pid = 1;
	CHECK(malformed(feed(), "port 1, this socket's is 4242"));

	start(1);
	first(0, 1, 1, blob, 1);
	((struct nlmsghdr *)dg)->nlmsg_type = FAM + 1;
	CHECK(malformed(feed(), "message type 34, the family's is 33"));

	start(1);
	first(0, 1, 1, blob, 1);
	((struct genlmsghdr *)(dg + NLMSG_HDRLEN))->cmd = 2;
	CHECK(malformed(feed(), "command 2"));
}

static void test_errors(void)
{
	/* the request refused before the dump: NLMSG_ERROR, capped, with text and missing type */
	start(1);
	error_msg(-EINVAL, true, "missing subsys name", EV_A_SUBSYS, -1);
	CHECK(feed() == -EINVAL && e.stage == EVIDENCE_REFUSED);
	CHECK(e.ext_msg && !strcmp(e.ext_msg, "missing subsys name") && e.miss_type == EV_A_SUBSYS);

	/* not capped: the request is echoed, and the bad attribute found by its offset */
	start(1);
	error_msg(-EINVAL, false, NULL, -1, (int)dev_name_off);
	CHECK(feed() == -EINVAL && e.bad_attr && !strcmp(e.bad_attr, "dev-name") && !e.ext_msg);

	start(1);
	error_msg(-ENODEV, false, "device 'pci:0000:41:00.0' evidence not found", -1, -1);
	CHECK(feed() == -ENODEV && e.ext_msg && strstr(e.ext_msg, "evidence not found"));

	/* no TLVs at all (no NETLINK_EXT_ACK): just the errno */
	start(1);
	error_msg(-EPERM, true, NULL, -1, -1);
	CHECK(feed() == -EPERM && !e.ext_msg && e.miss_type == -1);

	/* NLMSG_ERROR after the dump began is no kernel's */
	start(0x201);
	first(0, 1, 2, blob, 2);
	error_msg(-ENXIO, true, NULL, -1, -1);
	CHECK(malformed(feed(), "NLMSG_ERROR (-6) in the middle of the dump"));

	start(1);
	error_msg(0, true, NULL, -1, -1);
	CHECK(malformed(feed(), "an acknowledgement"));

	/* errors during the dump: NLMSG_DONE's */
	start(0x201);
	first(0, 1, 100, blob, 10);
	done(-EAGAIN, "evidence updated during read");
	CHECK(feed() == -EAGAIN && e.stage == EVIDENCE_DUMP);
	CHECK(e.ext_msg && !strcmp(e.ext_msg, "evidence updated during read"));

	start(1);
	done(-EOPNOTSUPP, "evidence refresh failed: -EOPNOTSUPP");
	CHECK(feed() == -EOPNOTSUPP && e.stage == EVIDENCE_DUMP);

	/* the end with an object cut short, or a type never sent */
	start(1);
	first(0, 1, 100, blob, 10);
	done(0, NULL);
	CHECK(malformed(feed(), "NLMSG_DONE with cert0 at 10 of 100 bytes"));

	start(0x201);
	first(0, 1, 0, NULL, 0);
	done(0, NULL);
	CHECK(malformed(feed(), "measurements was requested and never sent"));

	start(1);
	first(0, 1, 0, NULL, 0);
	done(0, NULL);
	dglen += 20;
	CHECK(malformed(feed(), "after NLMSG_DONE"));

	/* a sink that cannot write ends the fetch with its own errno */
	start(1);
	fail_chunk = -ENOSPC;
	first(0, 1, 4, blob, 4);
	CHECK(feed() == -ENOSPC && e.stage == EVIDENCE_SINK);
}

static void test_type_names(void)
{
	CHECK(evidence_type_parse("cert0") == 0 && evidence_type_parse("cert7") == 7);
	CHECK(evidence_type_parse("vca") == 8 && evidence_type_parse("measurements") == 9);
	CHECK(evidence_type_parse("report") == 10 && evidence_type_parse("10") == 10);
	CHECK(evidence_type_parse("11") == -EINVAL && evidence_type_parse("") == -EINVAL);
	CHECK(evidence_type_parse("cert8") == -EINVAL && evidence_type_parse("-1") == -EINVAL);
	CHECK(evidence_type_parse("0x1") == -EINVAL);
	CHECK(!strcmp(evidence_type_name(9), "measurements") && !evidence_type_name(11));
}

int main(void)
{
	build_request();
	test_good_dump();
	test_framing();
	test_attributes();
	test_bounds();
	test_types();
	test_headers();
	test_errors();
	test_type_names();
	evidence_error_free(&e);
	return unit_report();
}
