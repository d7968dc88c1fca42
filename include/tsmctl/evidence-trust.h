/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a device's certificate chain is verified against: the trust store
 * (PEM or DER certificates in a file, or in the regular files of a
 * directory, default /etc/tsmctl/trust.d/) as a libcrypto X509_STORE, and
 * the pin file of --pin (trust on first use: one line per device and slot,
 * "BDF SLOT SHA-384-of-the-root-certificate"). A first use is proposed while
 * a chain is judged and written only when the decision that takes it
 * succeeds (evidence-judge.h).
 */
#ifndef TSMCTL_EVIDENCE_TRUST_H
#define TSMCTL_EVIDENCE_TRUST_H

#include <stdbool.h>
#include <stddef.h>

#include "tsmctl/names.h"

#define EV_TRUST_DEFAULT	"/etc/tsmctl/trust.d"
#define EV_TRUST_MAX_FILE	(1u << 20)
#define EV_TRUST_MAX_CERTS	4096
#define EV_PINS_MAX_FILE	(1u << 20)

struct x509_store_st;

struct ev_trust {
	struct x509_store_st *store;	/* NULL: no trust store */
	char *path;			/* the store read (or looked for) */
	unsigned int nr_certs;
	const char *missing;		/* why there is none: "does not exist", "holds no certificate" */
};

/*
 * Load the store at PATH (NULL: the default). A default that does not exist
 * or holds no certificate is no store (T->missing says why); a PATH named
 * that cannot be read, or a file that does not parse, is -errno with *WHY.
 */
int ev_trust_load(const char *path, struct ev_trust *t, char **why);
void ev_trust_release(struct ev_trust *t);

struct ev_pin {
	char bdf[BDF_MAX];
	unsigned int slot;
	char sha384[97];
	bool pending;		/* a first use proposed, not in the file yet */
};

struct ev_pins {
	char *path;
	struct ev_pin *v;
	size_t n;
};

/* Read the pin file (a missing one is empty). 0, or -errno with *WHY. */
int ev_pins_load(const char *path, struct ev_pins *p, char **why);
/*
 * Write the pins, the pending ones too (to a temporary file, renamed into
 * place); they are pinned from then on. 0, or -errno with *WHY.
 */
int ev_pins_save(struct ev_pins *p, char **why);
void ev_pins_release(struct ev_pins *p);
/* The pin the file holds for BDF's SLOT (a pending one is none), or NULL. */
const struct ev_pin *ev_pin_find(const struct ev_pins *p, const char *bdf, unsigned int slot);
/* Propose SHA384 as BDF's SLOT's pin (replacing an earlier proposal): pending until ev_pins_save(). */
void ev_pin_propose(struct ev_pins *p, const char *bdf, unsigned int slot, const char *sha384);
/* Drop the pending pins (a decision that did not take them). */
void ev_pins_forget_pending(struct ev_pins *p);
/* "0000:01:00.0 slot 0 (SHA-384 0123456789abcdef...), ..." of the pending pins, or NULL. */
char *ev_pins_pending_text(const struct ev_pins *p);

#endif
