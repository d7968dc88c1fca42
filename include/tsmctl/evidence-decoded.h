/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An evidence set (evidence-set.h) through the pure decoders, in the order
 * their sizes depend on each other: the VCA first (the negotiated hash
 * fixes the chains' root hash length, the hash and signature algorithms the
 * measurements' digest and signature sizes), then the chains, the
 * measurements and the interface report. No I/O.
 */
#ifndef TSMCTL_EVIDENCE_DECODED_H
#define TSMCTL_EVIDENCE_DECODED_H

#include <stdbool.h>

#include "tsmctl/evidence-set.h"
#include "tsmctl/spdm-cert.h"
#include "tsmctl/spdm-meas.h"
#include "tsmctl/spdm-transcript.h"
#include "tsmctl/spdm-vca.h"
#include "tsmctl/tdisp-report.h"

/* What the decoders made of one object. */
struct ev_part {
	bool present;		/* a non-empty object was there to decode */
	int rc;			/* the decoder's: 0, -EBADMSG, -E2BIG */
	struct ev_error err;
};

struct ev_decoded {
	const struct evidence_set *set;
	struct ev_part vca_part;
	struct spdm_vca vca;
	struct ev_part chain_part[8];		/* cert0..cert7 */
	struct spdm_chain chain[8];
	struct ev_part meas_part;
	struct spdm_transcript tx;	/* the measurements object's form: response, pairs, VCA */
	struct spdm_meas *meas;		/* heap: about 18 KiB; the last (signed) response */
	struct ev_part report_part;
	struct tdisp_report report;
};

#define EV_VCA_TYPE		8
#define EV_MEAS_TYPE		9
#define EV_REPORT_TYPE		10
#define EV_NR_SLOTS		8

void ev_decode_set(const struct evidence_set *s, struct ev_decoded *d);
void ev_decoded_release(struct ev_decoded *d);

/* The part of object TYPE (0..10). */
const struct ev_part *ev_decoded_part(const struct ev_decoded *d, unsigned int type);

/* Lower-case hex of N bytes, allocated. */
char *ev_hex(const uint8_t *p, size_t n);
/* T (seconds since the epoch) in UTC: "2036-05-01T12:00:00Z", or with DATE_ONLY "2036-05-01"; allocated. */
char *ev_time_text(int64_t t, bool date_only);

/* The VCA decoded whole (its algorithms can be used). */
static inline bool ev_vca_ok(const struct ev_decoded *d)
{
	return d->vca_part.present && !d->vca_part.rc;
}

#endif
