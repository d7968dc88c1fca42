/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The proposed device-evidence generic netlink family (ABI.md §1.6), the one
 * place tsmctl knows its numbers. Pinned to intel-staging/tdx 9167426addf0
 * (Documentation/netlink/specs/device-evidence.yaml, the uapi header
 * include/uapi/linux/device-evidence.h generated from it, and
 * drivers/base/evidence.c); the validate command to
 * tools/testing/devsec/main.c at 32bc926b67fc. Private to src/evidence-*.c.
 */
#ifndef TSMCTL_EVIDENCE_ABI_H
#define TSMCTL_EVIDENCE_ABI_H

#define EV_FAMILY_NAME		"device-evidence"	/* DEVICE_EVIDENCE_FAMILY_NAME */
/*
 * The devsec mirror's older family of the same purpose (pci-tsm.yaml,
 * 5b515d6ee6ba; ABI.md §1.6): other attribute numbers, no generation, no
 * length. Only its name is used here, to refuse it by name; none of its
 * numbers is, and none of the above is ever sent to it.
 */
#define EV_OLD_FAMILY_NAME	"pci-tsm"
#define EV_FAMILY_VERSION	1			/* DEVICE_EVIDENCE_FAMILY_VERSION */

/* enum { DEVICE_EVIDENCE_CMD_READ = 1, (main.c's tree:) ..._VALIDATE } */
#define EV_CMD_READ		1
#define EV_CMD_VALIDATE		2

/* the object attribute set, DEVICE_EVIDENCE_A_OBJECT_* */
#define EV_A_TYPE		1	/* u32, reply */
#define EV_A_TYPE_MASK		2	/* u32, request */
#define EV_A_FLAGS		3	/* u32, request (bit 0: digest) */
#define EV_A_SUBSYS		4	/* NUL-terminated string, request */
#define EV_A_DEV_NAME		5	/* NUL-terminated string, request */
#define EV_A_NONCE		6	/* binary, at most EV_MAX_NONCE, request */
#define EV_A_GENERATION		7	/* u32, reply */
#define EV_A_COUNT		8	/* u64, defined, never sent */
#define EV_A_LENGTH		9	/* u32, at most EV_MAX_OBJECT, reply */
#define EV_A_VAL		10	/* binary, multi-attr, reply */
#define EV_A_MAX		10

#define EV_MAX_OBJECT		0x01000000u	/* DEVICE_EVIDENCE_MAX_OBJECT_SIZE */
#define EV_MAX_NONCE		32		/* DEVICE_EVIDENCE_MAX_NONCE_SIZE */
#define EV_NAME_LEN		32		/* DEVICE_EVIDENCE_NAME_LEN (evidence.c) */
#define EV_SUBSYS_PCI		"pci"		/* pci_tsm_evidence_ops.subsys_name */

/* enum device_evidence_type: cert0..cert7, vca, measurements, report */
#define EV_NR_TYPES		11
#define EV_TYPE_MASK_ALL	0x7ffu		/* DEVICE_EVIDENCE_TYPE_FLAG_MASK */

#endif

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "tsmctl/evidence.h"

/* ---- shared by evidence-reply.c and evidence-netlink.c ---- */

/* E becomes a protocol error (EVIDENCE_MALFORMED, -EPROTO) saying WHY; returns -EPROTO. */
int ev_malformed(struct evidence_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Walk the attributes in LEN bytes at P strictly: every header whole, every
 * length within what is left, nothing left over. CB (0 to go on, else its
 * return) sees each one. 0, CB's value, or -EPROTO with *WHY set (static).
 */
int ev_attr_walk(const uint8_t *p, size_t len, int (*cb)(const struct nlattr *a, void *data),
		 void *data, const char **why);

/*
 * An NLMSG_ERROR (or NLMSG_DONE's payload from OFF on) into E: the errno
 * and the extended ack's text, missing type and bad attribute (named from
 * the REQUEST sent). ERR < 0 expected.
 */
void ev_ext_ack(const struct nlmsghdr *nlh, size_t tlv_off, int err, const uint8_t *request,
		size_t request_len, struct evidence_error *e);
