// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.binding: the evidence belongs to the function judged. The
 * interface report ("report"): every reserved bit of its structure, its MMIO
 * range attributes and, in a whole TDISP response, its INTERFACE_ID is 0
 * (PCIe r7.0 §11.3.11), and that INTERFACE_ID's requester ID (and segment,
 * when valid) is the function's own. A report structure alone names no
 * function: the kernel read it for the BDF, which the message says. Each
 * chain's leaf ("certN"): where its device-info otherName carries a serial
 * in the Device Serial Number's form and the kernel shows the function's
 * serial_number (root only), they are one number.
 */
#include <errno.h>
#include <string.h>

#include "evidence-verify-int.h"
#include "tsmctl/evidence-device.h"
#include "tsmctl/names.h"
#include "tsmctl/util.h"

#define ID	"evidence.binding"

/* Every reserved bit the report sets, "; "-joined, or NULL. */
static char *reserved_bits(const struct tdisp_report *rep)
{
	char *bad = NULL;

	if (rep->form == TDISP_FORM_RESPONSE && (rep->function_id & TDISP_FUNCTION_ID_RESERVED))
		str_join(&bad, "; ", "FUNCTION_ID bits 31:25 are 0x%08x",
			 rep->function_id & TDISP_FUNCTION_ID_RESERVED);
	if (rep->form == TDISP_FORM_RESPONSE && rep->interface_reserved)
		str_join(&bad, "; ", "INTERFACE_ID's reserved bytes are 0x%016llx",
			 (unsigned long long)rep->interface_reserved);
	if (rep->info_reserved)
		str_join(&bad, "; ", "INTERFACE_INFO sets reserved bits 0x%04x", rep->info_reserved);
	if (rep->reserved)
		str_join(&bad, "; ", "the reserved field after INTERFACE_INFO is 0x%04x", rep->reserved);
	if (rep->msix_control & TDISP_MSIX_CTL_RESERVED)
		str_join(&bad, "; ", "MSI-X Message Control sets reserved bits 0x%04x",
			 rep->msix_control & TDISP_MSIX_CTL_RESERVED);
	if (rep->lnr_control & TDISP_LNR_CTL_RESERVED)
		str_join(&bad, "; ", "LNR control sets reserved bits 0x%04x",
			 rep->lnr_control & TDISP_LNR_CTL_RESERVED);
	if (rep->tph_control & TDISP_TPH_CTL_RESERVED)
		str_join(&bad, "; ", "TPH control sets reserved bits 0x%08x",
			 rep->tph_control & TDISP_TPH_CTL_RESERVED);
	for (unsigned int i = 0; i < rep->nr_ranges; i++)
		if (rep->ranges[i].reserved)
			str_join(&bad, "; ", "range %u's attributes set reserved bits 0x%04x", i,
				 rep->ranges[i].reserved);
	return bad;
}

/* INTERFACE_ID's function as text, "[SSSS:]BB:DD.F", into BUF. */
static void interface_text(const struct tdisp_report *rep, char *buf, size_t size)
{
	unsigned int rid = rep->requester_id;

	if (rep->segment_valid)
		snprintf(buf, size, "%04x:%02x:%02x.%x", rep->segment, rid >> 8, (rid >> 3) & 31, rid & 7);
	else
		snprintf(buf, size, "%02x:%02x.%x (no segment given)", rid >> 8, (rid >> 3) & 31, rid & 7);
}

/* Does INTERFACE_ID name BDF: its requester ID, and its segment when that is valid? */
static bool names_function(const struct tdisp_report *rep, const struct bdf *b)
{
	unsigned int rid = b->bus << 8 | b->dev << 3 | b->fn;

	return rep->requester_id == rid && (!rep->segment_valid || rep->segment == b->domain);
}

static void check_report(const struct ev_decoded *d, struct ev_results *r)
{
	const struct tdisp_report *rep = &d->report;
	const char *bdf = d->set->bdf;
	char *bad = reserved_bits(rep), named[48];
	struct bdf b;

	if (rep->form == TDISP_FORM_RESPONSE) {
		interface_text(rep, named, sizeof(named));
		if (bdf_parse(bdf, &b) || !names_function(rep, &b))
			str_join(&bad, "; ", "INTERFACE_ID names %s, not %s, the function judged",
				 named, bdf);
	}
	if (bad)
		ev_add(r, ID, "report", AUDIT_FAIL,
		       xstrdup("do not accept the device: its interface report is not a well-formed "
			       "TDISP report of this function; unlock it (tsmctl unlock BDF) and "
			       "report it to its vendor"), "%s", bad);
	else if (rep->form == TDISP_FORM_RESPONSE)
		ev_add(r, ID, "report", AUDIT_PASS, NULL,
		       "INTERFACE_ID names %s, the function judged; every reserved bit is 0", named);
	else
		ev_add(r, ID, "report", AUDIT_PASS, NULL,
		       "every reserved bit is 0; the report structure names no function (a whole "
		       "TDISP response carries INTERFACE_ID): it is %s's as %s", bdf,
		       d->set->from_dir ? "the saved manifest records" : "the kernel read it");
	free(bad);
}

/* The Device Serial Number slot K's leaf names in its device-info; false when it names none. */
static bool leaf_dsn(const struct spdm_chain *c, uint64_t *dsn, const char **text, size_t *len)
{
	const struct spdm_cert *leaf = spdm_chain_leaf(c);

	return leaf && leaf->device_info &&
	       !ev_device_info_serial(leaf->device_info, leaf->device_info_len, text, len) &&
	       !ev_parse_dsn(*text, *len, dsn);
}

static void check_serial(const struct ev_decoded *d, unsigned int k, struct ev_results *r)
{
	const struct evidence_set *s = d->set;
	const char *obj = evidence_type_name(k), *text;
	uint64_t want, got;
	size_t len;

	if (!leaf_dsn(&d->chain[k], &want, &text, &len))
		return;
	if (s->serial_err == -EACCES) {
		ev_add(r, ID, obj, AUDIT_NEEDS_ROOT, xstrdup("run as root"),
		       "the leaf's device-info names the serial %.*s; the function's serial_number, "
		       "which it must equal, is readable by root only", (int)len, text);
		return;
	}
	if (s->serial_err == -EBADMSG) {
		ev_add(r, ID, obj, AUDIT_FAIL, NULL, "the leaf's device-info names the serial %.*s; "
		       "the function's serial_number is no Device Serial Number (not the kernel's "
		       "\"%%8phD\")", (int)len, text);
		return;
	}
	/* no serial shown; the kernel's form (pci_serial_form_ok()) always parses */
	if (!s->serial || ev_parse_dsn(s->serial, strlen(s->serial), &got))
		return;
	if (got != want)
		ev_add(r, ID, obj, AUDIT_FAIL,
		       xstrdup("the certificate is another device's: do not trust this function's "
			       "evidence"),
		       "the leaf's device-info names the serial %.*s, but the function's Device Serial "
		       "Number is %s", (int)len, text, s->serial);
	else
		ev_add(r, ID, obj, AUDIT_PASS, NULL, "the leaf's device-info serial %.*s is the "
		       "function's Device Serial Number", (int)len, text);
}

void ev_check_binding(const struct ev_decoded *d, struct ev_results *r)
{
	if (d->report_part.present && ev_parent_ok(d, EV_REPORT_TYPE, r, ID, "report"))
		check_report(d, r);
	for (unsigned int k = 0; k < EV_NR_SLOTS; k++)
		if (d->chain_part[k].present && !d->chain_part[k].rc)
			check_serial(d, k, r);
}
