// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-evidence-netlink.c: the proposed device-evidence generic netlink
 * family (ABI.md §1.6) in the kernel's wire format, served on an AF_UNIX
 * SOCK_SEQPACKET socket of its own (a socket node inside the FUSE mount
 * would not reach this process); its path is in DIR/tsm-sim-evidence.
 * Each connection is one netlink socket: bound, as netlink_autobind() binds
 * a process's first socket, to the peer's thread-group id, with the
 * options tsmctl sets (NETLINK_EXT_ACK, NETLINK_CAP_ACK) unless the control
 * file turns them off, since AF_UNIX cannot carry them.
 *
 * What it copies (intel-staging/tdx 9167426addf0 unless said):
 *   netlink_rcv_skb(), genl_family_rcv_msg()   net/netlink (v6.19): request
 *       walk, ENOENT for an unknown family, EOPNOTSUPP, EPERM (admin-perm from
 *       the peer's CapEff), strict attribute validation
 *   ctrl_getfamily(), ctrl_fill_info()         net/netlink/genetlink.c (v6.19)
 *   netlink_ack(), netlink_dump_done()         net/netlink/af_netlink.c (v6.19)
 *   device_evidence_nl_read_pre(), _dumpit(), __device_evidence_read()
 *                                              drivers/base/evidence.c
 *   the request policy                         drivers/base/device-evidence-netlink.c
 *   validate                                   tools/testing/devsec/main.c 32bc926b67fc
 *                                              (request only; its kernel side is a guess)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "sim-fuse.h"

#define FAMILY_NAME	"device-evidence"
#define FAMILY_ID	0x1f	/* dynamic in a kernel; tsmctl resolves it */
/* the devsec mirror's older family (pci-tsm.yaml, 5b515d6ee6ba): named, its ops listed, not served */
#define OLD_FAMILY_NAME	"pci-tsm"
#define OLD_FAMILY_ID	0x1e
#define FAMILY_VERSION	1
#define CMD_READ	1
#define CMD_VALIDATE	2
enum { A_TYPE = 1, A_TYPE_MASK, A_FLAGS, A_SUBSYS, A_DEV_NAME, A_NONCE, A_GENERATION,
       A_COUNT, A_LENGTH, A_VAL };
#define TYPE_MASK_ALL	0x7ffu
#define FLAG_DIGEST	1u
#define NAME_LEN	32	/* DEVICE_EVIDENCE_NAME_LEN */
#define NONCE_MAX	32
/* a dump skb: the reader's recvmsg() size capped at SKB_WITH_OVERHEAD(32768) on x86-64 */
#define DUMP_SKB	32448
#define REQ_MAX		65536
#ifndef NLMSGERR_ATTR_MISS_TYPE
#define NLMSGERR_ATTR_MISS_TYPE 5
#endif
#define CAP_NET_ADMIN_BIT 12

static int listen_fd = -1;
static char *sock_dir, *sock_path;
static pthread_t accept_thread;
static bool serving;

/* ---- building messages (the netlink helpers, written out) ---- */

struct skb {
	uint8_t *p;
	size_t len, cap;
};

static void *skb_put(struct skb *s, size_t n)
{
	void *at;

	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->p = sim_xrealloc(s->p, s->cap, 1);
	}
	at = s->p + s->len;
	memset(at, 0, n);
	s->len += n;
	return at;
}

static struct nlmsghdr *msg_put(struct skb *s, uint16_t type, uint16_t flags, uint32_t seq,
				uint32_t pid)
{
	size_t off = s->len;
	struct nlmsghdr *nlh = skb_put(s, NLMSG_HDRLEN);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	nlh->nlmsg_len = NLMSG_HDRLEN;
	(void)off;
	return nlh;
}

/* The message starting at OFF ends at the tail now (nlmsg_end()). */
static void msg_end(struct skb *s, size_t off)
{
	((struct nlmsghdr *)(s->p + off))->nlmsg_len = (uint32_t)(s->len - off);
}

static void attr_put(struct skb *s, uint16_t type, const void *data, size_t n)
{
	struct nlattr *a = skb_put(s, NLA_ALIGN(NLA_HDRLEN + n));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + n);
	if (n)
		memcpy((uint8_t *)a + NLA_HDRLEN, data, n);
}

static void attr_u32(struct skb *s, uint16_t type, uint32_t v)
{
	attr_put(s, type, &v, sizeof(v));
}

static void attr_str(struct skb *s, uint16_t type, const char *str)
{
	attr_put(s, type, str, strlen(str) + 1);
}

static void genl_put(struct skb *s, uint8_t cmd, uint8_t version)
{
	struct genlmsghdr *g = skb_put(s, GENL_HDRLEN);

	g->cmd = cmd;
	g->version = version;
}

/* ---- a connection: one netlink socket ---- */

struct conn {
	int fd;
	uint32_t portid;
	bool cap_net_admin;
	bool ext_ack, cap_ack;
};

/* What a request's handler leaves for netlink_ack(). */
struct extack {
	const char *msg;
	char buf[128];
	int miss_type;			/* -1 none */
	const struct nlattr *bad;	/* in the request */
};

static int send_skb(struct conn *c, struct skb *s)
{
	ssize_t n = send(c->fd, s->p, s->len, MSG_NOSIGNAL);

	s->len = 0;
	return n < 0 ? -errno : 0;
}

/* netlink_ack(): NLMSG_ERROR with ERR, the request (unless capped or ERR is 0), the TLVs */
static int send_ack(struct conn *c, const struct nlmsghdr *req, int err, const struct extack *x)
{
	struct skb s = { 0 };
	bool capped = !err || c->cap_ack;
	bool tlvs = c->ext_ack && x && (x->msg || (err && (x->bad || x->miss_type >= 0)));
	struct nlmsghdr *nlh = msg_put(&s, NLMSG_ERROR, (capped ? NLM_F_CAPPED : 0) |
				       (tlvs ? NLM_F_ACK_TLVS : 0), req->nlmsg_seq, c->portid);
	struct nlmsgerr *e = skb_put(&s, sizeof(*e));
	int rc;

	(void)nlh;
	e->error = err;
	e->msg = *req;
	if (!capped)
		memcpy(skb_put(&s, NLMSG_ALIGN(req->nlmsg_len - NLMSG_HDRLEN)),
		       (const uint8_t *)req + NLMSG_HDRLEN, req->nlmsg_len - NLMSG_HDRLEN);
	if (tlvs && x->msg)
		attr_str(&s, NLMSGERR_ATTR_MSG, x->msg);
	if (tlvs && err && x->bad)
		attr_u32(&s, NLMSGERR_ATTR_OFFS, (uint32_t)((const uint8_t *)x->bad - (const uint8_t *)req));
	if (tlvs && err && x->miss_type >= 0)
		attr_u32(&s, NLMSGERR_ATTR_MISS_TYPE, (uint32_t)x->miss_type);
	msg_end(&s, 0);
	rc = send_skb(c, &s);
	free(s.p);
	return rc;
}

/* ---- attribute validation, as genl's strict parse with a policy does ---- */

enum pol { P_NONE, P_U32, P_NUL_STRING, P_BINARY_32 };

/* to the next attribute: its aligned length, at most what is left */
static size_t attr_step(const struct nlattr *a, size_t rem)
{
	size_t n = NLA_ALIGN((size_t)a->nla_len);

	return n < rem ? n : rem;
}

struct parsed {
	const struct nlattr *a[A_VAL + 1];
};

static int parse_attrs(const struct nlmsghdr *nlh, const enum pol *policy, int maxattr,
		       struct parsed *out, struct extack *x)
{
	const uint8_t *p = (const uint8_t *)nlh + NLMSG_HDRLEN + GENL_HDRLEN;
	size_t rem = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	memset(out, 0, sizeof(*out));
	while (rem >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		int type = a->nla_type & NLA_TYPE_MASK;
		size_t n;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			break;
		n = a->nla_len - NLA_HDRLEN;
		if (type == 0 || type > maxattr) {
			x->msg = "Unknown attribute type";
			x->bad = a;
			return -EINVAL;
		}
		switch (policy[type]) {
		case P_NONE:
			x->msg = "Unsupported attribute";
			x->bad = a;
			return -EINVAL;
		case P_U32:
			if (n != 4) {
				x->msg = "invalid attribute length";
				x->bad = a;
				return -EINVAL;
			}
			break;
		case P_NUL_STRING:
			if (!n || !memchr((const uint8_t *)a + NLA_HDRLEN, 0, n)) {
				x->msg = "Attribute failed policy validation";
				x->bad = a;
				return -EINVAL;
			}
			break;
		case P_BINARY_32:
			if (n > NONCE_MAX) {
				x->msg = "Attribute failed policy validation";
				x->bad = a;
				return -ERANGE;
			}
			break;
		}
		out->a[type] = a;
		n = attr_step(a, rem);
		p += n;
		rem -= n;
	}
	if (rem) {
		x->msg = "bytes leftover after parsing attributes";
		return -EINVAL;
	}
	return 0;
}

static const void *payload(const struct nlattr *a)
{
	return (const uint8_t *)a + NLA_HDRLEN;
}

static uint32_t get_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, payload(a), sizeof(v));
	return v;
}

/* nla_strscpy() into NAME_LEN bytes: -E2BIG when it does not fit */
static int strscpy_attr(char *dst, const struct nlattr *a)
{
	size_t n = strnlen(payload(a), a->nla_len - NLA_HDRLEN);

	if (n >= NAME_LEN)
		return -E2BIG;
	memcpy(dst, payload(a), n);
	dst[n] = 0;
	return 0;
}

/* GENL_REQ_ATTR_CHECK() and nla_strscpy() of one name: 0, or -EINVAL with the extack */
static int name_attr(const struct parsed *pa, int type, const char *missing, char *out,
		     struct extack *x)
{
	if (!pa->a[type]) {
		x->msg = missing;
		x->miss_type = type;
		return -EINVAL;
	}
	if (strscpy_attr(out, pa->a[type])) {
		x->bad = pa->a[type];
		return -EINVAL;
	}
	return 0;
}

/* device_evidence_ctx_setup(): subsys, dev-name, the provider, the device */
static int ctx_setup(const struct parsed *pa, struct sim_dev **dev, struct extack *x)
{
	char subsys[NAME_LEN], name[NAME_LEN];
	struct sim_dev *d;

	if (name_attr(pa, A_SUBSYS, "missing subsys name", subsys, x) ||
	    name_attr(pa, A_DEV_NAME, "missing device name", name, x))
		return -EINVAL;
	if (strcmp(subsys, "pci")) {
		snprintf(x->buf, sizeof(x->buf), "no evidence provider for subsys '%s'", subsys);
		x->msg = x->buf;
		return -EOPNOTSUPP;
	}
	/* pci_tsm_evidence_find_device(): the device, and evidence on it now */
	pthread_rwlock_rdlock(&sim_fuse.rwsem);
	d = sim_model_find_dev(sim_fuse.m, name);
	if (!d || !sim_evidence_present(sim_fuse.m, d))
		d = NULL;
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	if (!d) {
		snprintf(x->buf, sizeof(x->buf), "device '%s:%s' evidence not found", subsys, name);
		x->msg = x->buf;
		return -ENODEV;
	}
	*dev = d;
	return 0;
}

/* ---- the read dump ---- */

struct dump {
	struct sim_dev *d;
	uint32_t mask, flags, seq;
	uint8_t nonce[NONCE_MAX];
	size_t nonce_len;
	bool has_nonce;
	bool started;		/* DEVICE_EVIDENCE_START passed: generation taken */
	bool obj_start;		/* the next message is a first one */
	uint32_t generation, offset;
	long messages;
};

/* NLMSG_DONE with ERR and TEXT, appended to S (netlink_dump_done()) */
static void done_put(struct conn *c, struct skb *s, uint32_t seq, int err, const char *text)
{
	size_t off = s->len;
	bool tlv = text && c->ext_ack;
	struct nlmsghdr *nlh = msg_put(s, NLMSG_DONE, NLM_F_MULTI | (tlv ? NLM_F_ACK_TLVS : 0), seq,
				       c->portid);
	int32_t *v = skb_put(s, sizeof(*v));

	(void)nlh;
	*v = err;
	if (tlv)
		attr_str(s, NLMSGERR_ATTR_MSG, text);
	msg_end(s, off);
}

static unsigned current_type(uint32_t mask)
{
	return (unsigned)__builtin_ctz(mask);
}

/*
 * One dump call (__device_evidence_read() under evidence_read_begin()):
 * one message into S. 1 more to come, 0 done, or -errno with *TEXT.
 */
static int dump_one(struct conn *c, struct dump *du, struct skb *s, const char **text)
{
	struct sim_dev *d = du->d;
	const uint8_t *data;
	size_t len, off = s->len, room, n;
	unsigned type;

	pthread_rwlock_rdlock(&sim_fuse.rwsem);
	if (!sim_evidence_present(sim_fuse.m, d)) {
		pthread_rwlock_unlock(&sim_fuse.rwsem);
		*text = "failed to acquire evidence context";
		return -ENXIO;
	}
	if (!du->started) {
		du->generation = d->ev.generation;
		du->started = true;
		du->obj_start = true;
	}
	if (du->generation != d->ev.generation) {
		pthread_rwlock_unlock(&sim_fuse.rwsem);
		*text = "evidence updated during read";
		return -EAGAIN;
	}
	type = current_type(du->mask);
	sim_evidence_object(sim_fuse.m, d, type, du->flags & FLAG_DIGEST, &data, &len);
	msg_put(s, FAMILY_ID, NLM_F_MULTI, du->seq, c->portid);
	genl_put(s, CMD_READ, FAMILY_VERSION);
	if (du->obj_start) {
		attr_u32(s, A_TYPE, type);
		attr_u32(s, A_GENERATION, du->generation);
		attr_u32(s, A_LENGTH, (uint32_t)len);
		du->offset = 0;
		du->obj_start = false;
	}
	/* available - (nla_total_size(0) + NLA_ALIGNTO) */
	room = DUMP_SKB - s->len - (NLA_HDRLEN + NLA_ALIGNTO);
	n = len - du->offset < room ? len - du->offset : room;
	attr_put(s, A_VAL, n ? data + du->offset : NULL, n);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	msg_end(s, off);
	du->offset += (uint32_t)n;
	du->messages++;
	if (du->offset < len)
		return 1;
	du->mask &= ~(1u << type);
	du->obj_start = true;
	return du->mask ? 1 : 0;
}

/* The knobs of the control file, between two dump calls. */
static void dump_faults(struct dump *du)
{
	struct sim_dev *d = du->d;
	struct sim_tsm *t = NULL;

	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	if ((d->ev.fault == EVF_EAGAIN || d->ev.fault == EVF_REMOVE_TSM) &&
	    d->ev.fault_times > 0 && du->messages == d->ev.fault_after) {
		d->ev.fault_times--;
		if (d->ev.fault == EVF_EAGAIN)
			d->ev.generation++;	/* a refresh racing the dump */
		else
			t = d->ctx_tsm ? d->ctx_tsm : d->lock_tsm;
		if (!d->ev.fault_times)
			d->ev.fault = EVF_NONE;
	}
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	/* tsm_unregister() while the dump is between two calls */
	if (t)
		sim_fuse_tsm_unregister(t);
}

/*
 * EVF_REFRESH: once AFTER whole dumps were read, the evidence is refreshed
 * (as another reader's nonce refreshes it), before this dump's NLMSG_DONE
 * goes out, so the next request is sure to see the new generation.
 */
static void dump_done_faults(struct dump *du)
{
	struct sim_dev *d = du->d;

	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	if (d->ev.fault == EVF_REFRESH && d->ev.fault_times > 0 && --d->ev.fault_after <= 0) {
		if (sim_evidence_refresh(sim_fuse.m, d, NULL, 0))
			d->ev.generation++;	/* a provider without refresh: the generation alone */
		if (!--d->ev.fault_times)
			d->ev.fault = EVF_NONE;
	}
	pthread_rwlock_unlock(&sim_fuse.rwsem);
}

static int run_dump(struct conn *c, struct dump *du)
{
	struct skb s = { 0 };
	const char *text = NULL;
	int rc = 1, err = 0;

	/* device_evidence_nl_read_dumpit(): a nonce refreshes before the first read */
	if (du->has_nonce) {
		pthread_rwlock_wrlock(&sim_fuse.rwsem);
		err = sim_evidence_present(sim_fuse.m, du->d) ?
		      sim_evidence_refresh(sim_fuse.m, du->d, du->nonce, du->nonce_len) : -ENXIO;
		pthread_rwlock_unlock(&sim_fuse.rwsem);
		if (err) {
			char buf[96];

			snprintf(buf, sizeof(buf), "evidence refresh failed: -%s",
				 err == -EOPNOTSUPP ? "EOPNOTSUPP" : "ENXIO");
			done_put(c, &s, du->seq, err, buf);
			rc = send_skb(c, &s);
			free(s.p);
			return rc;
		}
	}
	while (rc > 0) {
		rc = dump_one(c, du, &s, &text);
		if (rc < 0) {
			err = rc;
			break;
		}
		if (rc > 0) {
			if (send_skb(c, &s))
				break;
			dump_faults(du);
		}
	}
	if (!err)
		dump_done_faults(du);
	/* the end: NLMSG_DONE in the same datagram when it fits, else its own */
	if (s.len && DUMP_SKB - s.len < NLMSG_HDRLEN + sizeof(int32_t))
		send_skb(c, &s);
	done_put(c, &s, du->seq, err, err ? text : NULL);
	rc = send_skb(c, &s);
	free(s.p);
	return rc;
}

static const enum pol read_policy[A_NONCE + 1] = {
	[A_TYPE_MASK] = P_U32, [A_FLAGS] = P_U32, [A_SUBSYS] = P_NUL_STRING,
	[A_DEV_NAME] = P_NUL_STRING, [A_NONCE] = P_BINARY_32,
};

static const enum pol validate_policy[A_GENERATION + 1] = {
	[A_SUBSYS] = P_NUL_STRING, [A_DEV_NAME] = P_NUL_STRING, [A_GENERATION] = P_U32,
};

/* device_evidence_nl_read_pre(), then the dump. */
static int do_read(struct conn *c, const struct nlmsghdr *nlh)
{
	struct extack x = { .miss_type = -1 };
	struct dump du = { .seq = nlh->nlmsg_seq };
	struct parsed pa;
	int rc = parse_attrs(nlh, read_policy, A_NONCE, &pa, &x);

	if (!rc)
		rc = ctx_setup(&pa, &du.d, &x);
	if (!rc && !pa.a[A_TYPE_MASK]) {
		x.msg = "missing object request mask";
		x.miss_type = A_TYPE_MASK;
		rc = -EINVAL;
	}
	if (!rc) {
		du.mask = get_u32(pa.a[A_TYPE_MASK]);
		if (du.mask & ~TYPE_MASK_ALL) {
			snprintf(x.buf, sizeof(x.buf), "unsupported object request %#x",
				 du.mask & ~TYPE_MASK_ALL);
			x.msg = x.buf;
			rc = -EINVAL;
		} else if (!du.mask) {
			x.msg = "no evidence type requested";
			rc = -EINVAL;
		}
	}
	if (!rc && pa.a[A_FLAGS]) {
		du.flags = get_u32(pa.a[A_FLAGS]);
		if (du.flags & ~FLAG_DIGEST) {
			x.bad = pa.a[A_FLAGS];
			rc = -EINVAL;
		}
	}
	if (rc)
		return send_ack(c, nlh, rc, &x);
	if (pa.a[A_NONCE]) {
		du.has_nonce = true;
		du.nonce_len = pa.a[A_NONCE]->nla_len - NLA_HDRLEN;
		memcpy(du.nonce, payload(pa.a[A_NONCE]), du.nonce_len);
	}
	return run_dump(c, &du);
}

/* validate (main.c's tree): the kernel side was not read; this follows the account. */
static int do_validate(struct conn *c, const struct nlmsghdr *nlh)
{
	struct extack x = { .miss_type = -1 };
	struct sim_dev *d = NULL;
	struct parsed pa;
	int rc = parse_attrs(nlh, validate_policy, A_GENERATION, &pa, &x);

	if (!rc)
		rc = ctx_setup(&pa, &d, &x);
	if (!rc && !pa.a[A_GENERATION]) {
		x.msg = "missing generation";
		x.miss_type = A_GENERATION;
		rc = -EINVAL;
	}
	if (!rc) {
		pthread_rwlock_wrlock(&sim_fuse.rwsem);
		if (!sim_evidence_present(sim_fuse.m, d))
			rc = -ENXIO;
		else if (get_u32(pa.a[A_GENERATION]) != d->ev.generation)
			rc = -ESTALE;
		else
			d->ev.validated = d->ev.generation;
		pthread_rwlock_unlock(&sim_fuse.rwsem);
	}
	if (!rc) {
		struct skb s = { 0 };

		msg_put(&s, FAMILY_ID, 0, nlh->nlmsg_seq, c->portid);
		genl_put(&s, CMD_VALIDATE, FAMILY_VERSION);
		attr_u32(&s, A_GENERATION, get_u32(pa.a[A_GENERATION]));
		msg_end(&s, 0);
		rc = send_skb(c, &s);
		free(s.p);
		if (!rc && (nlh->nlmsg_flags & NLM_F_ACK))
			rc = send_ack(c, nlh, 0, NULL);
		return rc;
	}
	return send_ack(c, nlh, rc, &x);
}

/* The family this "kernel" registered: device-evidence, or (evidence-family) the older pci-tsm. */
static const char *family_name(void)
{
	return sim_fuse.m->ev_old_family ? OLD_FAMILY_NAME : FAMILY_NAME;
}

static uint16_t family_id(void)
{
	return sim_fuse.m->ev_old_family ? OLD_FAMILY_ID : FAMILY_ID;
}

/* ctrl_fill_info() for the one family; pci-tsm has evidence-read (1) alone */
static void family_put(struct skb *s, uint16_t flags, uint32_t seq, uint32_t pid)
{
	size_t off = s->len, ops, op;
	uint16_t id = family_id();
	bool validate = sim_fuse.m->ev_validate && !sim_fuse.m->ev_old_family;

	msg_put(s, GENL_ID_CTRL, flags, seq, pid);
	genl_put(s, CTRL_CMD_NEWFAMILY, 2);
	attr_str(s, CTRL_ATTR_FAMILY_NAME, family_name());
	attr_put(s, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
	attr_u32(s, CTRL_ATTR_VERSION, FAMILY_VERSION);
	attr_u32(s, CTRL_ATTR_HDRSIZE, 0);
	attr_u32(s, CTRL_ATTR_MAXATTR, 0);	/* per-op policies only */
	ops = s->len;
	attr_put(s, CTRL_ATTR_OPS, NULL, 0);
	for (unsigned i = 0; i < (validate ? 2u : 1u); i++) {
		op = s->len;
		attr_put(s, (uint16_t)(i + 1), NULL, 0);
		attr_u32(s, CTRL_ATTR_OP_ID, i ? CMD_VALIDATE : CMD_READ);
		attr_u32(s, CTRL_ATTR_OP_FLAGS, GENL_ADMIN_PERM | GENL_CMD_CAP_HASPOL |
			 (i ? GENL_CMD_CAP_DO : GENL_CMD_CAP_DUMP));
		((struct nlattr *)(s->p + op))->nla_len = (uint16_t)(s->len - op);
	}
	((struct nlattr *)(s->p + ops))->nla_len = (uint16_t)(s->len - ops);
	msg_end(s, off);
}

/* ctrl_getfamily() (and its dump), for the one family this "kernel" has */
static int do_ctrl(struct conn *c, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = (const void *)((const uint8_t *)nlh + NLMSG_HDRLEN);
	const uint8_t *p = (const uint8_t *)g + GENL_HDRLEN;
	size_t rem = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	bool dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP, found = false, asked = false;
	struct extack x = { .miss_type = -1 };
	struct skb s = { 0 };
	int rc;

	if (g->cmd != CTRL_CMD_GETFAMILY)
		return send_ack(c, nlh, -EOPNOTSUPP, NULL);
	if (dump) {
		family_put(&s, NLM_F_MULTI, nlh->nlmsg_seq, c->portid);
		done_put(c, &s, nlh->nlmsg_seq, 0, NULL);
		rc = send_skb(c, &s);
		free(s.p);
		return rc;
	}
	while (rem >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			break;
		if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len == NLA_HDRLEN + 2) {
			asked = true;
			found = *(const uint16_t *)payload(a) == family_id();
		} else if (a->nla_type == CTRL_ATTR_FAMILY_NAME && !asked) {
			asked = true;
			found = (size_t)(a->nla_len - NLA_HDRLEN) == strlen(family_name()) + 1 &&
				!memcmp(payload(a), family_name(), strlen(family_name()) + 1);
		}
		step = attr_step(a, rem);
		p += step;
		rem -= step;
	}
	if (!asked)
		return send_ack(c, nlh, -EINVAL, &x);
	if (!found)
		return send_ack(c, nlh, -ENOENT, &x);
	family_put(&s, 0, nlh->nlmsg_seq, c->portid);
	rc = send_skb(c, &s);
	free(s.p);
	if (!rc && (nlh->nlmsg_flags & NLM_F_ACK))
		rc = send_ack(c, nlh, 0, NULL);
	return rc;
}

/* genl_family_rcv_msg() for the device-evidence family */
static int do_family(struct conn *c, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g;
	bool dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return send_ack(c, nlh, -EINVAL, NULL);
	g = (const void *)((const uint8_t *)nlh + NLMSG_HDRLEN);
	if (!((g->cmd == CMD_READ && dump) ||
	      (g->cmd == CMD_VALIDATE && !dump && sim_fuse.m->ev_validate)))
		return send_ack(c, nlh, -EOPNOTSUPP, NULL);
	/* GENL_ADMIN_PERM: netlink_capable(skb, CAP_NET_ADMIN), before any attribute */
	if (!c->cap_net_admin)
		return send_ack(c, nlh, -EPERM, NULL);
	return g->cmd == CMD_READ ? do_read(c, nlh) : do_validate(c, nlh);
}

/* netlink_rcv_skb(): every message of a request datagram in turn */
static int handle(struct conn *c, const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (off + NLMSG_HDRLEN <= len) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)(buf + off);
		int rc = 0;

		if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len - off)
			return 0;
		if (!(nlh->nlmsg_flags & NLM_F_REQUEST) || nlh->nlmsg_type < NLMSG_MIN_TYPE) {
			if (nlh->nlmsg_flags & NLM_F_ACK)
				rc = send_ack(c, nlh, 0, NULL);
		} else if (nlh->nlmsg_type == GENL_ID_CTRL) {
			rc = do_ctrl(c, nlh);
		} else if (nlh->nlmsg_type == family_id() && sim_fuse.m->ev_old_family) {
			rc = send_ack(c, nlh, -EOPNOTSUPP, NULL);	/* pci-tsm's read: not simulated */
		} else if (nlh->nlmsg_type == family_id()) {
			rc = do_family(c, nlh);
		} else {
			rc = send_ack(c, nlh, -ENOENT, NULL);	/* no family of that id */
		}
		if (rc)
			return rc;
		off += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	return 0;
}

/* The peer's CAP_NET_ADMIN, from its effective set (netlink_capable() checks the opener's). */
static bool peer_net_admin(pid_t pid, uid_t uid)
{
	char path[64], line[256];
	unsigned long long caps = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return uid == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found ? (caps >> CAP_NET_ADMIN_BIT) & 1 : uid == 0;
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	uint8_t *buf = sim_xcalloc(1, REQ_MAX);

	for (;;) {
		ssize_t n = recv(c->fd, buf, REQ_MAX, 0);

		if (n <= 0 || handle(c, buf, (size_t)n))
			break;
	}
	free(buf);
	close(c->fd);
	free(c);
	return NULL;
}

static void *accept_main(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		struct ucred cred;
		socklen_t cl = sizeof(cred);
		struct conn *c;
		pthread_t th;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		c = sim_xcalloc(1, sizeof(*c));
		c->fd = fd;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
			c->portid = (uint32_t)cred.pid;
			c->cap_net_admin = peer_net_admin(cred.pid, cred.uid);
		}
		pthread_rwlock_rdlock(&sim_fuse.rwsem);
		c->ext_ack = sim_fuse.m->ev_ext_ack;
		c->cap_ack = sim_fuse.m->ev_cap_ack;
		pthread_rwlock_unlock(&sim_fuse.rwsem);
		if (pthread_create(&th, NULL, conn_main, c)) {
			close(fd);
			free(c);
			continue;
		}
		pthread_detach(th);
	}
}

int sim_evnl_listen(char **path)
{
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int rc;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	sock_dir = sim_xasprintf("%s/tsm-sim-evidence.XXXXXX", tmp);
	if (!mkdtemp(sock_dir))
		return -errno;
	/* any user may connect: the family itself refuses those without CAP_NET_ADMIN */
	chmod(sock_dir, 0755);
	sock_path = sim_path_join(sock_dir, "device-evidence.sock");
	if (strlen(sock_path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, sock_path, strlen(sock_path));
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		return -errno;
	if (bind(listen_fd, (struct sockaddr *)&sun, sizeof(sun)) || chmod(sock_path, 0777) ||
	    listen(listen_fd, 64)) {
		rc = -errno;
		close(listen_fd);
		listen_fd = -1;
		return rc;
	}
	*path = sock_path;
	return 0;
}

int sim_evnl_start(void)
{
	if (listen_fd < 0)
		return 0;
	if (pthread_create(&accept_thread, NULL, accept_main, NULL))
		return -EAGAIN;
	serving = true;
	return 0;
}

void sim_evnl_stop(void)
{
	if (listen_fd >= 0) {
		shutdown(listen_fd, SHUT_RDWR);
		close(listen_fd);
		listen_fd = -1;
	}
	if (serving) {
		pthread_join(accept_thread, NULL);
		serving = false;
	}
	if (sock_path)
		unlink(sock_path);
	if (sock_dir)
		rmdir(sock_dir);
	free(sock_path);
	free(sock_dir);
	sock_path = sock_dir = NULL;
}
