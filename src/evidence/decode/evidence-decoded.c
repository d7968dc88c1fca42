// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decode an evidence set object by object (evidence-decoded.h): the VCA's
 * negotiated algorithms size what the other decoders read. No I/O.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsmctl/evidence-decoded.h"
#include "tsmctl/util.h"

const struct ev_part *ev_decoded_part(const struct ev_decoded *d, unsigned int type)
{
	if (type < EV_NR_SLOTS)
		return &d->chain_part[type];
	return type == EV_VCA_TYPE ? &d->vca_part : type == EV_MEAS_TYPE ? &d->meas_part :
	       &d->report_part;
}

/* The object's bytes when there are any: a part to decode. */
static bool present(const struct evidence_set *s, unsigned int type, struct ev_part *p)
{
	p->present = s->obj[type].present && s->obj[type].length && s->obj[type].data;
	return p->present;
}

void ev_decode_set(const struct evidence_set *s, struct ev_decoded *d)
{
	const struct evset_object *o;
	struct spdm_meas_algs algs = { 0 };
	size_t hash_len = 0;

	memset(d, 0, sizeof(*d));
	d->set = s;
	o = &s->obj[EV_VCA_TYPE];
	if (present(s, EV_VCA_TYPE, &d->vca_part))
		d->vca_part.rc = spdm_vca_decode(o->data, o->length, &d->vca, &d->vca_part.err);
	if (ev_vca_ok(d)) {
		hash_len = spdm_vca_hash(&d->vca) ? spdm_vca_hash(&d->vca)->size : 0;
		algs.base_asym_sel = d->vca.selected.base_asym;
		algs.meas_hash_algo = d->vca.selected.meas_hash;
		algs.version = d->vca.version;
	}
	for (unsigned int k = 0; k < EV_NR_SLOTS; k++) {
		o = &s->obj[k];
		if (present(s, k, &d->chain_part[k]))
			d->chain_part[k].rc = spdm_chain_decode(o->data, o->length, hash_len,
								&d->chain[k], &d->chain_part[k].err);
	}
	o = &s->obj[EV_MEAS_TYPE];
	if (present(s, EV_MEAS_TYPE, &d->meas_part)) {
		d->meas = xmalloc(sizeof(*d->meas));
		d->meas_part.rc = spdm_transcript_decode(o->data, o->length,
							 ev_vca_ok(d) ? &algs : NULL, &d->tx, d->meas,
							 &d->meas_part.err);
	}
	o = &s->obj[EV_REPORT_TYPE];
	if (present(s, EV_REPORT_TYPE, &d->report_part))
		d->report_part.rc = tdisp_report_decode(o->data, o->length, &d->report,
							&d->report_part.err);
}

char *ev_hex(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

char *ev_time_text(int64_t t, bool date_only)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), date_only ? "%Y-%m-%d" : "%Y-%m-%dT%H:%M:%SZ", &tm))
		return xstrdup("?");
	return xstrdup(buf);
}

void ev_decoded_release(struct ev_decoded *d)
{
	for (unsigned int k = 0; k < EV_NR_SLOTS; k++)
		spdm_chain_release(&d->chain[k]);
	free(d->meas);
	tdisp_report_release(&d->report);
	memset(d, 0, sizeof(*d));
}
