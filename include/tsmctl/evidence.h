/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device evidence over the proposed device-evidence generic netlink family
 * (ABI.md §1.6), on libmnl: resolve the family, send one dump request for
 * the wanted objects, reassemble the reply with every bound checked, and
 * stream each object to a sink as it arrives (a 16 MiB object is never held
 * whole). The interface's numbers live in src/evidence/fetch/evidence-abi.h alone; callers
 * see object types by index and name. Objects are opaque bytes here.
 */
#ifndef TSMCTL_EVIDENCE_H
#define TSMCTL_EVIDENCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVIDENCE_NR_TYPES	11
#define EVIDENCE_ALL_TYPES	((1u << EVIDENCE_NR_TYPES) - 1)
#define EVIDENCE_NONCE_MAX	32		/* bytes the kernel takes */
#define EVIDENCE_OBJECT_MAX	(16u << 20)	/* an object's largest length */
#define EVIDENCE_ATTEMPTS	3		/* dumps tried while the evidence keeps changing */
#define EVIDENCE_RECV_SIZE	32768		/* the kernel fills a dump datagram to 32 KiB less skb overhead */

/* "cert0".."cert7", "vca", "measurements", "report"; NULL past the last. */
const char *evidence_type_name(unsigned int type);
/* A type by name or by its number (0..10): the index, or -EINVAL. */
int evidence_type_parse(const char *s);

/* Where each object goes as it arrives; every callback returns 0 or -errno (which ends the fetch). */
struct evidence_sink {
	void *data;
	int (*begin)(void *data, unsigned int type, uint32_t generation, uint32_t length);
	int (*chunk)(void *data, unsigned int type, const uint8_t *buf, size_t len);
	int (*end)(void *data, unsigned int type);
	/* a new attempt starts: forget every object of the last one */
	void (*restart)(void *data);
};

/* Where a fetch stopped. */
enum evidence_stage {
	EVIDENCE_OK,
	EVIDENCE_SOCKET,	/* the socket could not be opened or used */
	EVIDENCE_NO_FAMILY,	/* nlctrl knows no device-evidence family (ENOENT) */
	EVIDENCE_NO_READ,	/* the family offers no read dump */
	EVIDENCE_REFUSED,	/* NLMSG_ERROR before the dump started */
	EVIDENCE_DUMP,		/* NLMSG_DONE carried an error */
	EVIDENCE_MALFORMED,	/* the reply broke the protocol (why says how) */
	EVIDENCE_SINK,		/* a sink callback failed */
	EVIDENCE_INTERRUPTED,	/* *stop became non-zero */
};

struct evidence_error {
	enum evidence_stage stage;
	int err;		/* -errno */
	char *ext_msg;		/* the kernel's extended-ack text, NULL if none */
	char *why;		/* MALFORMED, SOCKET: what happened; NO_FAMILY: another family's name */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE's attribute, else -1 */
	const char *bad_attr;	/* the request attribute NLMSGERR_ATTR_OFFS points at, else NULL */
};
void evidence_error_free(struct evidence_error *e);

/* The family as the kernel's controller describes it. */
struct evidence_family {
	uint16_t id;
	uint32_t version;
	bool has_read, has_validate;
	bool read_admin;	/* read needs CAP_NET_ADMIN (GENL_ADMIN_PERM) */
};

struct evidence_stats {
	unsigned long datagrams, messages;	/* received, all attempts */
	unsigned long long bytes;		/* datagram bytes received */
	unsigned int attempts;			/* dumps sent */
};

struct evidence_request {
	const char *subsys;	/* "pci" */
	const char *dev;	/* canonical BDF */
	uint32_t type_mask;	/* 1 << type for each wanted object */
	const uint8_t *nonce;	/* NULL: none (no refresh) */
	size_t nonce_len;
	volatile sig_atomic_t *stop;	/* non-zero: abandon (-EINTR); may be NULL */
};

struct evidence_conn;

/*
 * Open the transport and resolve the family: a netlink socket
 * (NETLINK_EXT_ACK and NETLINK_CAP_ACK on), or, when TSMCTL_EVIDENCE_SOCKET
 * (secure_getenv) names one, the simulator's AF_UNIX SOCK_SEQPACKET socket
 * speaking the same bytes. 0 or -errno with E filled.
 */
int evidence_open(struct evidence_conn **out, struct evidence_error *e);
const struct evidence_family *evidence_family(const struct evidence_conn *c);
/* "netlink", or the socket path TSMCTL_EVIDENCE_SOCKET named. */
const char *evidence_transport(const struct evidence_conn *c);
/*
 * One read dump of REQ's objects into SINK, retried in a new dump (after
 * sink->restart) while the kernel answers EAGAIN, EVIDENCE_ATTEMPTS in all.
 * 0 or -errno with E filled; ST counts what was received.
 */
int evidence_fetch(struct evidence_conn *c, const struct evidence_request *req,
		   const struct evidence_sink *sink, struct evidence_stats *st,
		   struct evidence_error *e);
void evidence_close(struct evidence_conn *c);

/*
 * The family's validate command (where its ops list it): record GENERATION
 * of DEV's evidence as the one verified. 0; -ESTALE when the evidence moved
 * on; -EOPNOTSUPP without the command; other -errno with E filled.
 */
int evidence_validate(struct evidence_conn *c, const char *subsys, const char *dev,
		      uint32_t generation, struct evidence_error *e);

/*
 * The reply parser, pure (the unit tests and the fuzz target feed it
 * datagrams). It checks every message's sequence and port, attribute
 * lengths, one first message per requested type in ascending order, chunks
 * within length, length within 16 MiB, and completeness at NLMSG_DONE.
 */
struct evidence_reply {
	uint16_t family;
	uint32_t seq, portid, mask;
	const struct evidence_sink *sink;
	const uint8_t *request;	/* the request sent, to name a bad attribute (may be NULL) */
	size_t request_len;
	bool started, in_object, done, have_generation;
	int last_type;
	uint32_t seen, generation, length, received;
	unsigned int type;
	unsigned long datagrams, messages;
};
void evidence_reply_init(struct evidence_reply *r, uint16_t family, uint32_t seq, uint32_t portid,
			 uint32_t mask, const struct evidence_sink *sink);
/* One datagram (TRUNCATED: it did not fit the buffer): 0 more to come, 1 done, or -errno with E. */
int evidence_reply_feed(struct evidence_reply *r, const uint8_t *buf, size_t len, bool truncated,
			struct evidence_error *e);

#endif
