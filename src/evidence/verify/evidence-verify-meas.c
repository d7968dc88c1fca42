// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.measurements: the MEASUREMENTS blocks against the reference
 * manifest (evidence-reference.h), one result per index, then the device
 * mode and the security version the manifest requires. Whether the device
 * signed them is evidence.signature's (evidence-verify-sig.c).
 */
#include <string.h>

#include "evidence-verify-int.h"
#include "tsmctl/evidence-reference.h"
#include "tsmctl/util.h"

#define ID		"evidence.measurements"
#define DEBUG_ACTIVE	0x3u	/* DeviceModeState: non-invasive, invasive debug active */

/* A value as people read it: its text when it is printable ASCII, else hex (cut short). */
static char *value_text(const uint8_t *p, size_t n)
{
	bool text = n > 0;
	char *hex, *s;

	for (size_t i = 0; i < n; i++)
		text &= p[i] >= 0x20 && p[i] < 0x7f;
	if (text)
		return xasprintf("\"%.*s\"", (int)n, (const char *)p);
	hex = ev_hex(p, n > 24 ? 24 : n);
	s = xasprintf("%s%s", hex, n > 24 ? "..." : "");
	free(hex);
	return s;
}

static bool one_of(const struct ev_ref_bytes *list, size_t n, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].len == len && !memcmp(list[i].p, p, len))
			return true;
	return false;
}

static const char *type_of(const struct spdm_meas_block *b)
{
	const char *name = b->dmtf ? spdm_meas_type_name(b->value_type) : NULL;

	return name ? name : b->dmtf ? "reserved type" : "non-DMTF";
}

static void judge_block(const struct spdm_meas_block *b, const struct ev_reference *ref,
			struct ev_results *r)
{
	const struct ev_ref_entry *e = ev_reference_entry(ref, b->index);
	char *obj = xasprintf("measurements/%u", b->index), *val;
	const char *form = b->raw || !b->dmtf ? "raw value" : "digest";

	if (!e) {
		static const enum audit_status st[] = {
			[EV_REF_UNKNOWN_WARN] = AUDIT_WARN, [EV_REF_UNKNOWN_FAIL] = AUDIT_FAIL,
			[EV_REF_UNKNOWN_IGNORE] = AUDIT_SKIP,
		};

		ev_add(r, ID, obj, st[ref->unknown],
		       xstrdup("add the index to the reference manifest with its accepted values"),
		       "index %u (%s %s) is not in the reference manifest%s", b->index, type_of(b),
		       form, ref->unknown == EV_REF_UNKNOWN_IGNORE ? ", which ignores unknown ones" : "");
	} else if (e->type >= 0 && (!b->dmtf || b->value_type != (unsigned int)e->type)) {
		ev_add(r, ID, obj, AUDIT_FAIL, NULL, "index %u is %s, the reference says %s", b->index,
		       type_of(b), spdm_meas_type_name((unsigned int)e->type));
	} else if (e->nr_digests || e->nr_values) {
		bool want_digest = e->nr_digests > 0, is_digest = b->dmtf && !b->raw;
		size_t n = want_digest ? e->nr_digests : e->nr_values;

		val = value_text(b->value, b->value_len);
		if (want_digest != is_digest)
			ev_add(r, ID, obj, AUDIT_FAIL, NULL, "index %u (%s) is a %s, the reference "
			       "lists %s", b->index, type_of(b), form, want_digest ? "digests" : "values");
		else if (one_of(want_digest ? e->digests : e->values, n, b->value, b->value_len))
			ev_add(r, ID, obj, AUDIT_PASS, NULL, "index %u (%s): the %s is one of the %zu "
			       "the reference accepts", b->index, type_of(b), form, n);
		else
			ev_add(r, ID, obj, AUDIT_FAIL, NULL, "index %u (%s): the %s %s is none of the %zu "
			       "the reference accepts", b->index, type_of(b), form, val, n);
		free(val);
	} else {
		ev_add(r, ID, obj, AUDIT_PASS, NULL, "index %u (%s %s): present; the reference "
		       "requires no value", b->index, type_of(b), form);
	}
	free(obj);
}

static const struct spdm_meas_block *find_raw(const struct spdm_meas *m, unsigned int type)
{
	for (unsigned int i = 0; i < m->nr_blocks; i++)
		if (m->blocks[i].dmtf && m->blocks[i].raw && m->blocks[i].value_type == type)
			return &m->blocks[i];
	return NULL;
}

static char *mode_names(uint32_t v, const char *(*name)(unsigned int))
{
	char *s = NULL;

	for (unsigned int bit = 0; bit < 32; bit++)
		if (v & (1u << bit))
			str_join(&s, "+", "%s", name(bit) ? name(bit) : "reserved");
	return s ? s : xstrdup("none");
}

static void judge_device_mode(const struct spdm_meas *m, const struct ev_reference *ref,
			      struct ev_results *r)
{
	const struct spdm_meas_block *b = find_raw(m, SPDM_MEAS_DEVICE_MODE);
	uint32_t op, dbg, bad_dbg = ref->debug == EV_REF_DEBUG_NEVER ? UINT32_MAX :
				    ref->debug == EV_REF_DEBUG_INACTIVE ? DEBUG_ACTIVE : 0;
	char *ops, *dbgs;

	if (!b || !b->has_device_mode) {
		ev_add(r, ID, "measurements/device-mode", AUDIT_FAIL, NULL,
		       "the reference requires a device mode; the measurements carry no raw device "
		       "mode block");
		return;
	}
	op = b->device_mode.operational_mode_state;
	dbg = b->device_mode.device_mode_state;
	ops = mode_names(op, ev_operational_mode_name);
	dbgs = mode_names(dbg, ev_device_mode_name);
	if (ref->operational >= 0 && op != 1u << ref->operational)
		ev_add(r, ID, "measurements/device-mode", AUDIT_FAIL, NULL,
		       "index %u: operational mode %s, the reference requires %s", b->index, ops,
		       ev_operational_mode_name((unsigned int)ref->operational));
	else if (dbg & bad_dbg)
		ev_add(r, ID, "measurements/device-mode", AUDIT_FAIL, NULL,
		       "index %u: device mode state %s, the reference allows %s", b->index, dbgs,
		       ref->debug == EV_REF_DEBUG_NEVER ? "no debug mode, ever" :
		       "no active debug mode");
	else
		ev_add(r, ID, "measurements/device-mode", AUDIT_PASS, NULL,
		       "index %u: operational mode %s, device mode state %s", b->index, ops, dbgs);
	free(ops);
	free(dbgs);
}

static void judge_svn(const struct spdm_meas *m, const struct ev_reference *ref,
		      struct ev_results *r)
{
	const struct spdm_meas_block *b = find_raw(m, SPDM_MEAS_SVN);

	if (!b || !b->has_svn)
		ev_add(r, ID, "measurements/svn", AUDIT_FAIL, NULL,
		       "the reference requires security version %llu or later; the measurements "
		       "carry no raw security version number", (unsigned long long)ref->min_svn);
	else if (b->svn < ref->min_svn)
		ev_add(r, ID, "measurements/svn", AUDIT_FAIL,
		       xstrdup("the firmware is older than the reference allows: update it"),
		       "index %u: security version %llu, the reference requires %llu or later",
		       b->index, (unsigned long long)b->svn, (unsigned long long)ref->min_svn);
	else
		ev_add(r, ID, "measurements/svn", AUDIT_PASS, NULL,
		       "index %u: security version %llu, at least the %llu required", b->index,
		       (unsigned long long)b->svn, (unsigned long long)ref->min_svn);
}

static void judge_missing(const struct spdm_meas *m, const struct ev_reference *ref,
			  struct ev_results *r)
{
	for (size_t i = 0; i < ref->nr_entries; i++) {
		const struct ev_ref_entry *e = &ref->entries[i];
		char *obj;

		if (spdm_meas_block(m, e->index))
			continue;
		obj = xasprintf("measurements/%u", e->index);
		ev_add(r, ID, obj, e->optional ? AUDIT_PASS : AUDIT_FAIL, NULL,
		       "index %u is in the reference manifest but not in the measurements%s", e->index,
		       e->optional ? " (optional)" : "");
		free(obj);
	}
}

void ev_check_measurements(const struct ev_decoded *d, const struct ev_verify_opts *o,
			   struct ev_results *r)
{
	const struct spdm_meas *m = d->meas;

	if (!d->meas_part.present) {
		/* nothing to compare; without a reference nothing would have been */
		if (o->ref)
			ev_add(r, ID, "measurements", AUDIT_SKIP, NULL,
			       EV_UNVERIFIABLE "the measurements object is empty");
		else
			ev_add_risk(r, ID, "measurements", EV_RISK_NO_REFERENCE, NULL,
				    EV_UNVERIFIABLE "the measurements object is empty, and there is "
				    "no reference manifest");
		return;
	}
	if (!ev_parent_ok(d, EV_MEAS_TYPE, r, ID, "measurements"))
		return;
	if (!o->ref) {
		ev_add_risk(r, ID, "measurements", EV_RISK_NO_REFERENCE,
			    xstrdup("write the vendor's reference values into a manifest "
				    "(tsmctl-evidence(8), REFERENCE MANIFEST) and name it with "
				    "--reference FILE"),
			    "no reference manifest: %u block%s not judged", m->nr_blocks,
			    m->nr_blocks == 1 ? "" : "s");
		return;
	}
	for (unsigned int i = 0; i < m->nr_blocks; i++)
		judge_block(&m->blocks[i], o->ref, r);
	judge_missing(m, o->ref, r);
	if (o->ref->has_device_mode)
		judge_device_mode(m, o->ref, r);
	if (o->ref->has_min_svn)
		judge_svn(m, o->ref, r);
}
