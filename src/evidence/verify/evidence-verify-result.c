// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The evidence checks' table and their results: recording one (ev_add(),
 * the parent rule ev_parent_ok()), counting, naming and freeing them. Every
 * check calls into this file and it calls none, so the engine and the checks
 * never call each other back.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "evidence-verify-int.h"
#include "tsmctl/util.h"

const struct ev_check_def ev_checks[] = {
	{ "evidence.decode", NULL,
	  "Each evidence object decodes as its format (DSP0274 certificate chain, VCA transcript, "
	  "MEASUREMENTS; TDISP interface report) with every length consistent.",
	  "the device or its TSM handed out malformed evidence: save it (tsmctl evidence BDF -o DIR) "
	  "and report it to the device's vendor; do not accept the device" },
	{ "evidence.chain", "evidence.decode",
	  "Each certificate chain is in DSP0274's order (each certificate signed by the one before) "
	  "and verifies along exactly that path to a trust anchor that is its first certificate or "
	  "signed it (signatures, validity times, CA constraints); its leaf keeps libspdm's rules "
	  "(X.509 v3, keyUsage digitalSignature, basicConstraints cA FALSE, no requester-only EKU, "
	  "no hardware identity in the alias model); with --pin the root it verified to is the one "
	  "pinned, or a first use taken on trust.",
	  "put the device vendor's root CA certificate (PEM) in " "/etc/tsmctl/trust.d/ or name it "
	  "with --trust FILE|DIR; a chain that does not verify is not proof of the vendor's device" },
	{ "evidence.root-hash", "evidence.decode",
	  "Each chain's RootHash is the digest of its root certificate under the negotiated hash "
	  "algorithm: the first certificate when it is the root, else the trust anchor that signed "
	  "it.",
	  "the chain's header does not describe its own root certificate: the evidence is "
	  "inconsistent; report it to the device's vendor" },
	{ "evidence.algorithms", "evidence.decode",
	  "The leaf certificate's key fits the negotiated BaseAsymAlgo, and the negotiated "
	  "algorithms are among those the reference manifest allows.",
	  "the device negotiated algorithms its certificate or the reference does not allow: "
	  "update the device's firmware or the reference manifest's \"algorithms\"" },
	{ "evidence.signature", "evidence.decode",
	  "The MEASUREMENTS response is signed by the leaf key of the slot it names, over the L1 "
	  "transcript (from SPDM 1.2 the VCA first) the object carries or, for a bare response, over "
	  "a GET_MEASUREMENTS rebuilt from the nonce sent; a device that says it signs (MEAS_CAP 2) "
	  "must have signed.",
	  "the measurements are not the signed word of the device that holds the leaf key: do not "
	  "accept the device; read its evidence again with --fresh, and report it" },
	{ "evidence.measurements", "evidence.decode",
	  "Each measurement block matches the reference manifest: digests or values per index, the "
	  "device mode required, the minimum security version; unknown and missing indices are "
	  "reported.",
	  "the device does not run what the reference manifest accepts: update its firmware, or the "
	  "manifest (from the vendor's reference values)" },
	{ "evidence.report-ranges", "evidence.decode",
	  "Every MMIO range of the TDISP interface report lies inside the BAR its range ID names, "
	  "by absolute address (by offset, a risk taken on trust, where the platform reports "
	  "offsets: the SEV-TIO guest), no two overlap, and the MSI-X table and PBA ranges are "
	  "where the MSI-X capability puts them; non-TEE ranges are listed.",
	  "the interface report describes MMIO the function does not have: do not accept the "
	  "device; unlock it and report it" },
	{ "evidence.binding", "evidence.decode",
	  "The evidence is the function's: the interface report's reserved bits are 0 and a whole "
	  "TDISP response's INTERFACE_ID names the function judged; where the kernel shows the "
	  "function's Device Serial Number, a leaf's device-info serial is that number.",
	  "the evidence describes another function or device: do not accept it; unlock the device "
	  "and report it" },
	{ "evidence.generation", NULL,
	  "Every object came from one generation of the evidence; with a nonce, the evidence was "
	  "refreshed for it and the measurements are signed over it.",
	  "read the evidence again in one dump (tsmctl evidence BDF -o DIR), with --fresh for a "
	  "refresh of its own" },
};
const size_t ev_nr_checks = ARRAY_SIZE(ev_checks);

static const struct ev_check_def *check_lookup(const char *id)
{
	for (size_t i = 0; i < ev_nr_checks; i++)
		if (streq(ev_checks[i].id, id))
			return &ev_checks[i];
	return NULL;
}

const char *ev_status_name(enum audit_status st)
{
	static const char *const names[] = {
		[AUDIT_PASS] = "pass", [AUDIT_WARN] = "warn", [AUDIT_FAIL] = "fail",
		[AUDIT_SKIP] = "skip", [AUDIT_NEEDS_ROOT] = "needs-root",
	};

	return st < AUDIT_NR_STATUS ? names[st] : "?";
}

static void add_result(struct ev_results *r, const char *id, const char *object,
		       enum audit_status st, enum ev_risk risk, char *hint, const char *fmt,
		       va_list ap)
{
	struct ev_result *res;

	xgrow(&r->v, &r->cap, r->n, sizeof(*r->v));
	res = &r->v[r->n++];
	res->check = check_lookup(id);
	res->object = xstrdup(object);
	res->status = st;
	res->risk = risk;
	res->message = xvasprintf(fmt, ap);
	if (st == AUDIT_PASS) {
		free(hint);
		hint = NULL;
	} else if (!hint) {
		hint = xstrdup(res->check->hint);
	}
	res->hint = hint;
}

void ev_add(struct ev_results *r, const char *id, const char *object, enum audit_status st,
	    char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_result(r, id, object, st, EV_RISK_NONE, hint, fmt, ap);
	va_end(ap);
}

void ev_add_risk(struct ev_results *r, const char *id, const char *object, enum ev_risk risk,
		 char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_result(r, id, object, AUDIT_SKIP, risk, hint, fmt, ap);
	va_end(ap);
}

bool ev_parent_ok(const struct ev_decoded *d, unsigned int type, struct ev_results *r,
		  const char *id, const char *object)
{
	const struct ev_part *p = ev_decoded_part(d, type);

	if (!p->present || !p->rc)
		return true;
	ev_add(r, id, object, AUDIT_SKIP, xstrdup("resolve evidence.decode first"),
	       "parent check evidence.decode failed (%s)", evidence_type_name(type));
	return false;
}

void ev_results_free(struct ev_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].object);
		free(r->v[i].message);
		free(r->v[i].hint);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

size_t ev_results_count(const struct ev_results *r, enum audit_status st)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->v[i].status == st;
	return n;
}
