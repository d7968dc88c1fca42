// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The device-evidence transport (ABI.md §1.6) on libmnl: a generic netlink
 * socket, the family resolved by name through nlctrl (CTRL_CMD_GETFAMILY,
 * its ops read, never assumed), one read dump per attempt, datagrams into
 * evidence-reply.c. Under test TSMCTL_EVIDENCE_SOCKET names the
 * simulator's AF_UNIX SOCK_SEQPACKET socket instead: the bytes sent and
 * parsed are the same; only opening the socket differs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "evidence-abi.h"
#include "tsmctl/util.h"

#define RECV_TIMEOUT_S	30	/* a kernel always answers; a hung peer must not hang tsmctl */
#define REQUEST_MAX	512	/* the largest request: two short names, a nonce, two u32 */

struct evidence_conn {
	struct mnl_socket *nl;	/* NULL on the simulator's socket */
	int fd;
	char *path;		/* TSMCTL_EVIDENCE_SOCKET */
	uint32_t portid, seq;
	struct evidence_family fam;
	uint8_t *buf;		/* EVIDENCE_RECV_SIZE */
	uint8_t request[REQUEST_MAX];
	size_t request_len;
};

static int socket_error(struct evidence_error *e, int err, const char *what)
{
	free(e->why);
	e->why = xstrdup(what);
	e->stage = EVIDENCE_SOCKET;
	e->err = err;
	return err;
}

/* The netlink socket: auto-bound port, extended acks, errors without the request echoed. */
static int open_netlink(struct evidence_conn *c, struct evidence_error *e)
{
	int on = 1;

	c->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!c->nl)
		return socket_error(e, -errno, "opening a generic netlink socket");
	if (mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return socket_error(e, -errno, "binding the generic netlink socket");
	/* both are advice only: an old kernel without them still answers */
	mnl_socket_setsockopt(c->nl, NETLINK_EXT_ACK, &on, sizeof(on));
	mnl_socket_setsockopt(c->nl, NETLINK_CAP_ACK, &on, sizeof(on));
	c->fd = mnl_socket_get_fd(c->nl);
	c->portid = mnl_socket_get_portid(c->nl);
	return 0;
}

/*
 * The simulator's socket. Socket options cannot be set on AF_UNIX: the
 * simulator serves every connection as a netlink socket with the two
 * options above, bound as netlink_autobind() binds a process's first
 * socket, to the port of its thread-group id.
 */
static int open_unix(struct evidence_conn *c, const char *path, struct evidence_error *e)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sun.sun_path))
		return socket_error(e, -ENAMETOOLONG, "TSMCTL_EVIDENCE_SOCKET is too long a path");
	memcpy(sun.sun_path, path, strlen(path));
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return socket_error(e, -errno, "opening an AF_UNIX socket");
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		return socket_error(e, -errno, "connecting to TSMCTL_EVIDENCE_SOCKET");
	c->path = xstrdup(path);
	c->portid = (uint32_t)getpid();
	return 0;
}

static int send_request(struct evidence_conn *c, const struct nlmsghdr *nlh,
			struct evidence_error *e)
{
	ssize_t n;

	memcpy(c->request, nlh, nlh->nlmsg_len);
	c->request_len = nlh->nlmsg_len;
	do
		n = send(c->fd, nlh, nlh->nlmsg_len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return socket_error(e, -errno, "sending the request");
	if ((size_t)n != nlh->nlmsg_len)
		return socket_error(e, -EIO, "sending the request: short write");
	return 0;
}

/*
 * One datagram into c->buf: its length, or -errno. *TRUNC when it did not
 * fit. On netlink only the kernel's (port 0) count; others are dropped.
 */
static ssize_t recv_datagram(struct evidence_conn *c, bool *trunc, volatile sig_atomic_t *stop,
			     struct evidence_error *e)
{
	for (;;) {
		struct sockaddr_nl from = { 0 };
		struct iovec iov = { c->buf, EVIDENCE_RECV_SIZE };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (c->nl) {
			msg.msg_name = &from;
			msg.msg_namelen = sizeof(from);
		}
		n = recvmsg(c->fd, &msg, 0);
		if (n < 0 && errno == EINTR && !(stop && *stop))
			continue;
		if (n < 0 && errno == EINTR) {
			e->stage = EVIDENCE_INTERRUPTED;
			e->err = -EINTR;
			return -EINTR;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return socket_error(e, -ETIMEDOUT, "waiting for the kernel's answer");
		if (n < 0)
			return socket_error(e, -errno, "receiving the answer");
		if (n == 0)
			return socket_error(e, -ECONNRESET, "the peer closed the socket");
		if (c->nl && from.nl_pid != 0)
			continue;
		*trunc = msg.msg_flags & MSG_TRUNC;
		return n;
	}
}

/* ---- the family: CTRL_CMD_GETFAMILY ------------------------------------ */

static int op_attr(const struct nlattr *a, void *data)
{
	uint32_t *idflags = data;

	if (mnl_attr_get_type(a) == CTRL_ATTR_OP_ID && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		idflags[0] = mnl_attr_get_u32(a);
	if (mnl_attr_get_type(a) == CTRL_ATTR_OP_FLAGS && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		idflags[1] = mnl_attr_get_u32(a);
	return 0;
}

/* One entry of CTRL_ATTR_OPS: which command, and its flags. */
static int one_op(const struct nlattr *a, void *data)
{
	struct evidence_family *f = data;
	uint32_t idflags[2] = { 0, 0 };
	const char *why;

	if (ev_attr_walk(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a), op_attr, idflags,
			 &why))
		return -EPROTO;
	if (idflags[0] == EV_CMD_READ && (idflags[1] & GENL_CMD_CAP_DUMP)) {
		f->has_read = true;
		f->read_admin = idflags[1] & GENL_ADMIN_PERM;
	}
	if (idflags[0] == EV_CMD_VALIDATE && (idflags[1] & GENL_CMD_CAP_DO))
		f->has_validate = true;
	return 0;
}

struct family_parse {
	struct evidence_family *f;
	bool has_id;
};

static int family_attr(const struct nlattr *a, void *data)
{
	struct family_parse *fp = data;
	const char *why;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return -EPROTO;
		fp->f->id = mnl_attr_get_u16(a);
		fp->has_id = true;
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -EPROTO;
		fp->f->version = mnl_attr_get_u32(a);
		break;
	case CTRL_ATTR_OPS:
		return ev_attr_walk(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a), one_op,
				    fp->f, &why);
	}
	return 0;
}

/*
 * Send the request NLH (with NLM_F_ACK) and hand every message of the
 * answer to EACH (0 more, 1 done, -errno) until one ends it. WHO names the
 * answering side in errors.
 */
static int transact(struct evidence_conn *c, struct nlmsghdr *nlh, const char *who,
		    int (*each)(struct evidence_conn *c, const struct nlmsghdr *m, void *arg,
				struct evidence_error *e),
		    void *arg, struct evidence_error *e)
{
	int rc = send_request(c, nlh, e);

	while (!rc) {
		bool trunc = false;
		ssize_t n = recv_datagram(c, &trunc, NULL, e);
		size_t off = 0;

		if (n < 0)
			return (int)n;
		if (trunc)
			return ev_malformed(e, "%s's answer does not fit %d bytes", who, EVIDENCE_RECV_SIZE);
		while (!rc && off + NLMSG_HDRLEN <= (size_t)n) {
			const struct nlmsghdr *m = (const struct nlmsghdr *)(c->buf + off);

			if (m->nlmsg_len < NLMSG_HDRLEN || m->nlmsg_len > (size_t)n - off)
				return ev_malformed(e, "%s's answer has a bad message length", who);
			rc = each(c, m, arg, e);
			off += NLMSG_ALIGN(m->nlmsg_len);
		}
	}
	return rc;
}

/* The controller's answers: NEWFAMILY, then the ACK; 1 when that ACK came. */
static int family_message(struct evidence_conn *c, const struct nlmsghdr *nlh, void *arg,
			  struct evidence_error *e)
{
	struct family_parse *fp = arg;
	const struct nlmsgerr *err;
	const char *why;

	if (nlh->nlmsg_seq != c->seq || nlh->nlmsg_pid != c->portid)
		return ev_malformed(e, "nlctrl's answer has sequence %u and port %u, not %u and %u",
				    nlh->nlmsg_seq, nlh->nlmsg_pid, c->seq, c->portid);
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		err = mnl_nlmsg_get_payload(nlh);
		if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*err))
			return ev_malformed(e, "nlctrl's NLMSG_ERROR is too short");
		if (!err->error)
			return 1;
		e->stage = err->error == -ENOENT ? EVIDENCE_NO_FAMILY : EVIDENCE_REFUSED;
		ev_ext_ack(nlh, NLMSG_HDRLEN + sizeof(*err), err->error, NULL, 0, e);
		return err->error;
	}
	if (nlh->nlmsg_type != GENL_ID_CTRL || nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return ev_malformed(e, "message type %u from nlctrl", nlh->nlmsg_type);
	if (ev_attr_walk((const uint8_t *)mnl_nlmsg_get_payload(nlh) + GENL_HDRLEN,
			 nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, family_attr, fp, &why))
		return ev_malformed(e, "nlctrl's family description is malformed");
	return 0;
}

/* CTRL_CMD_GETFAMILY for NAME into F: 0, or -errno with E (ENOENT: no such family). */
static int get_family(struct evidence_conn *c, const char *name, struct evidence_family *f,
		      struct evidence_error *e)
{
	char req[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct genlmsghdr *g;
	struct family_parse fp = { f, false };
	int rc;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++c->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	rc = transact(c, nlh, "nlctrl", family_message, &fp, e);
	if (rc < 0)
		return rc;
	if (!fp.has_id)
		return ev_malformed(e, "nlctrl described %s without its id", name);
	return 0;
}

/*
 * No device-evidence family: is the older pci-tsm one there instead (ABI.md
 * §1.6)? Then E names it (why), still ENOENT: its numbers are never used.
 */
static void other_family(struct evidence_conn *c, struct evidence_error *e)
{
	struct evidence_family old = { 0 };
	struct evidence_error oe = { .miss_type = -1 };

	if (!get_family(c, EV_OLD_FAMILY_NAME, &old, &oe))
		e->why = xstrdup(EV_OLD_FAMILY_NAME);
	evidence_error_free(&oe);
}

static int resolve_family(struct evidence_conn *c, struct evidence_error *e)
{
	int rc = get_family(c, EV_FAMILY_NAME, &c->fam, e);

	if (rc == -ENOENT && e->stage == EVIDENCE_NO_FAMILY)
		other_family(c, e);
	if (rc < 0)
		return rc;
	if (!c->fam.has_read) {
		e->stage = EVIDENCE_NO_READ;
		e->err = -EOPNOTSUPP;
		return -EOPNOTSUPP;
	}
	return 0;
}

/* A request of the family's command CMD in BUF, with the next sequence number. */
static struct nlmsghdr *family_request(struct evidence_conn *c, char *buf, uint8_t cmd,
				       uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = c->fam.id;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = ++c->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = EV_FAMILY_VERSION;
	return nlh;
}

/* validate's answers: its reply (nothing in it is needed), then the ACK. */
static int validate_message(struct evidence_conn *c, const struct nlmsghdr *nlh, void *arg,
			    struct evidence_error *e)
{
	const struct nlmsgerr *err;

	(void)arg;
	if (nlh->nlmsg_seq != c->seq || nlh->nlmsg_pid != c->portid)
		return ev_malformed(e, "validate's answer has sequence %u and port %u, not %u and %u",
				    nlh->nlmsg_seq, nlh->nlmsg_pid, c->seq, c->portid);
	if (nlh->nlmsg_type != NLMSG_ERROR)
		return nlh->nlmsg_type == c->fam.id ? 0 :
		       ev_malformed(e, "message type %u in validate's answer", nlh->nlmsg_type);
	err = mnl_nlmsg_get_payload(nlh);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*err))
		return ev_malformed(e, "validate's NLMSG_ERROR is too short");
	if (!err->error)
		return 1;
	e->stage = EVIDENCE_REFUSED;
	ev_ext_ack(nlh, NLMSG_HDRLEN + sizeof(*err), err->error, c->request, c->request_len, e);
	return err->error;
}

int evidence_validate(struct evidence_conn *c, const char *subsys, const char *dev,
		      uint32_t generation, struct evidence_error *e)
{
	char req[REQUEST_MAX] = { 0 };	/* attribute padding is sent too */
	struct nlmsghdr *nlh;
	int rc;

	evidence_error_free(e);
	if (!c->fam.has_validate) {
		e->stage = EVIDENCE_NO_READ;
		e->err = -EOPNOTSUPP;
		return -EOPNOTSUPP;
	}
	if (strlen(dev) >= EV_NAME_LEN || strlen(subsys) >= EV_NAME_LEN)
		return socket_error(e, -EINVAL, "a request the kernel would refuse");
	nlh = family_request(c, req, EV_CMD_VALIDATE, NLM_F_REQUEST | NLM_F_ACK);
	mnl_attr_put_strz(nlh, EV_A_SUBSYS, subsys);
	mnl_attr_put_strz(nlh, EV_A_DEV_NAME, dev);
	mnl_attr_put_u32(nlh, EV_A_GENERATION, generation);
	rc = transact(c, nlh, "validate", validate_message, NULL, e);
	return rc < 0 ? rc : 0;
}

int evidence_open(struct evidence_conn **out, struct evidence_error *e)
{
	/* secure_getenv: a set-user-ID tsmctl never lets its caller choose the kernel */
	const char *path = secure_getenv("TSMCTL_EVIDENCE_SOCKET");
	struct evidence_conn *c = xcalloc(1, sizeof(*c));
	struct timeval tv = { .tv_sec = RECV_TIMEOUT_S };
	int rc;

	*e = (struct evidence_error){ .miss_type = -1 };
	c->fd = -1;
	c->buf = xmalloc(EVIDENCE_RECV_SIZE);
	c->seq = (uint32_t)time(NULL);
	rc = path && *path ? open_unix(c, path, e) : open_netlink(c, e);
	if (!rc && setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		rc = socket_error(e, -errno, "setting the receive timeout");
	if (!rc)
		rc = resolve_family(c, e);
	if (rc) {
		evidence_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

const struct evidence_family *evidence_family(const struct evidence_conn *c)
{
	return &c->fam;
}

const char *evidence_transport(const struct evidence_conn *c)
{
	return c->path ? c->path : "netlink";
}

void evidence_close(struct evidence_conn *c)
{
	if (!c)
		return;
	if (c->nl)
		mnl_socket_close(c->nl);
	else if (c->fd >= 0)
		close(c->fd);
	free(c->path);
	free(c->buf);
	free(c);
}

/* ---- the read dump ----------------------------------------------------- */

static void build_read(struct evidence_conn *c, const struct evidence_request *req, char *buf)
{
	struct nlmsghdr *nlh = family_request(c, buf, EV_CMD_READ, NLM_F_REQUEST | NLM_F_DUMP);

	mnl_attr_put_u32(nlh, EV_A_TYPE_MASK, req->type_mask);
	mnl_attr_put_strz(nlh, EV_A_SUBSYS, req->subsys);
	mnl_attr_put_strz(nlh, EV_A_DEV_NAME, req->dev);
	if (req->nonce)
		mnl_attr_put(nlh, EV_A_NONCE, req->nonce_len, req->nonce);
}

/* One dump, start to NLMSG_DONE: 0, or -errno with E. */
static int one_dump(struct evidence_conn *c, const struct evidence_request *req,
		    const struct evidence_sink *sink, struct evidence_stats *st,
		    struct evidence_error *e)
{
	char buf[REQUEST_MAX] = { 0 };	/* attribute padding is sent too */
	struct evidence_reply r;
	unsigned long before = st->messages;
	int rc;

	build_read(c, req, buf);
	rc = send_request(c, (struct nlmsghdr *)buf, e);
	if (rc)
		return rc;
	st->attempts++;
	evidence_reply_init(&r, c->fam.id, c->seq, c->portid, req->type_mask, sink);
	r.request = c->request;
	r.request_len = c->request_len;
	do {
		bool trunc = false;
		ssize_t n = recv_datagram(c, &trunc, req->stop, e);

		if (n < 0)
			return (int)n;
		st->datagrams++;
		st->bytes += (unsigned long long)n;
		rc = evidence_reply_feed(&r, c->buf, (size_t)n, trunc, e);
		st->messages = before + r.messages;
	} while (rc == 0);
	return rc < 0 ? rc : 0;
}

int evidence_fetch(struct evidence_conn *c, const struct evidence_request *req,
		   const struct evidence_sink *sink, struct evidence_stats *st,
		   struct evidence_error *e)
{
	int rc = -EAGAIN;

	*st = (struct evidence_stats){ 0 };
	if (req->nonce_len > EV_MAX_NONCE || strlen(req->dev) >= EV_NAME_LEN ||
	    strlen(req->subsys) >= EV_NAME_LEN || !req->type_mask ||
	    (req->type_mask & ~EV_TYPE_MASK_ALL))
		return socket_error(e, -EINVAL, "a request the kernel would refuse");
	for (unsigned int i = 0; i < EVIDENCE_ATTEMPTS; i++) {
		if (i && sink->restart)
			sink->restart(sink->data);
		evidence_error_free(e);
		rc = one_dump(c, req, sink, st, e);
		/* the evidence changed while it was read: a new dump reads one generation whole */
		if (!(rc == -EAGAIN && e->stage == EVIDENCE_DUMP))
			break;
	}
	return rc;
}
