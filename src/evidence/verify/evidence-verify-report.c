// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evidence.report-ranges: the TDISP interface report's MMIO against the
 * function itself (evidence-device.h). First pages are 4 KiB page numbers
 * (ABI.md §1.7). Each range must lie inside the BAR its range ID names by
 * absolute address, and no two may overlap. The SEV-TIO guest alone reads
 * ranges as offsets from the lowest page of each range ID (its get_range():
 * a guest's BARs are not the host's the report was made with), so for a
 * function locked to its TSM (provider sev-guest) the ranges are judged by
 * offset and the result is a skip with EV_RISK_REPORT_OFFSETS: inside the
 * BARs by offset, their addresses not proven. The MSI-X table and PBA ranges
 * must hold what the MSI-X capability places in its BARs; non-TEE ranges are
 * listed.
 */
#include <errno.h>
#include <string.h>

#include "evidence-verify-int.h"
#include "tsmctl/evidence-device.h"
#include "tsmctl/util.h"

#define ID		"evidence.report-ranges"
#define SEV_GUEST	"sev-guest"	/* the SEV-TIO guest's TSM provider (ABI.md §1.1, §1.7) */

/* Where one range lies in its BAR, as far as it does. */
struct placed {
	uint64_t off, size;	/* in the BAR: from its start, or from the lowest page by offset */
	bool inside;
	bool spans;		/* its BAR is memory, its start and end fit 64 bits */
	bool before;		/* it starts OFF bytes before its BAR */
};

struct judged {
	struct placed *p;
	bool offsets;			/* read as offsets (the SEV-TIO guest) */
	char *bad, *non_tee;
	unsigned int per_bar[EV_NR_BARS];
};

static uint64_t bar_size(const struct ev_bar *b)
{
	return b->end - b->start + 1;
}

/* The lowest first page reported for range ID K, the base of its offsets. */
static uint64_t lowest_start(const struct tdisp_report *rep, unsigned int k)
{
	uint64_t lowest = UINT64_MAX, start, size;

	for (unsigned int i = 0; i < rep->nr_ranges; i++)
		if (rep->ranges[i].range_id == k &&
		    !tdisp_range_span(&rep->ranges[i], TDISP_UNIT_PAGE, &start, &size) && start < lowest)
			lowest = start;
	return lowest;
}

/* Place every range of BAR K: by its absolute address, or by offset from the lowest page. */
static void place_bar(const struct tdisp_report *rep, const struct ev_bar *bar, unsigned int k,
		      struct judged *j)
{
	uint64_t base = j->offsets ? lowest_start(rep, k) : bar->start, start, size;

	for (unsigned int i = 0; i < rep->nr_ranges; i++) {
		const struct tdisp_mmio_range *m = &rep->ranges[i];
		struct placed *p = &j->p[i];

		if (m->range_id != k || tdisp_range_span(m, TDISP_UNIT_PAGE, &start, &size))
			continue;
		p->spans = true;
		p->size = size;
		if (start < base) {
			p->before = true;
			p->off = base - start;
			continue;
		}
		p->off = start - base;
		p->inside = size <= bar_size(bar) && p->off <= bar_size(bar) - size;
		j->per_bar[k]++;
	}
}

/* Where range I is wrong about its BAR, into J->bad. */
static void range_misfit(const struct tdisp_report *rep, const struct ev_bar *bars, unsigned int i,
			 struct judged *j)
{
	const struct tdisp_mmio_range *m = &rep->ranges[i];
	const struct placed *p = &j->p[i];
	const char *pl = m->nr_pages == 1 ? "" : "s";

	if (m->range_id >= EV_NR_BARS || !bars[m->range_id].present)
		str_join(&j->bad, "; ", "range %u names BAR %u, which the function does not have", i,
			 m->range_id);
	else if (bars[m->range_id].io)
		str_join(&j->bad, "; ", "range %u names BAR %u, an I/O BAR", i, m->range_id);
	else if (!p->spans)
		str_join(&j->bad, "; ", "range %u: first page 0x%llx is past 64-bit addresses", i,
			 (unsigned long long)m->first_page);
	else if (p->before)
		str_join(&j->bad, "; ", "range %u (%u page%s at 0x%llx) starts 0x%llx bytes before "
			 "BAR %u (0x%llx)", i, m->nr_pages, pl,
			 (unsigned long long)(m->first_page * TDISP_PAGE_SIZE), (unsigned long long)p->off,
			 m->range_id, (unsigned long long)bars[m->range_id].start);
	else if (!p->inside)
		str_join(&j->bad, "; ", "range %u (%u page%s at BAR %u +0x%llx) ends past BAR %u "
			 "(0x%llx bytes)", i, m->nr_pages, pl, m->range_id, (unsigned long long)p->off,
			 m->range_id, (unsigned long long)bar_size(&bars[m->range_id]));
}

/* Do ranges A and B, both placed, share a byte? By offset only within one range ID. */
static bool overlap(const struct tdisp_report *rep, const struct judged *j, unsigned int a,
		    unsigned int b)
{
	const struct placed *x = &j->p[a], *y = &j->p[b];
	uint64_t xs, ys, xz, yz;

	if (!x->spans || !y->spans || !x->size || !y->size)
		return false;
	if (j->offsets) {
		if (rep->ranges[a].range_id != rep->ranges[b].range_id)
			return false;
		xs = x->off;
		ys = y->off;
	} else {
		tdisp_range_span(&rep->ranges[a], TDISP_UNIT_PAGE, &xs, &xz);
		tdisp_range_span(&rep->ranges[b], TDISP_UNIT_PAGE, &ys, &yz);
	}
	return xs < ys ? ys - xs < x->size : xs - ys < y->size;
}

static void judge_ranges(const struct tdisp_report *rep, const struct ev_bar *bars, struct judged *j)
{
	j->p = xcalloc(rep->nr_ranges ? rep->nr_ranges : 1, sizeof(*j->p));
	for (unsigned int k = 0; k < EV_NR_BARS; k++)
		if (bars[k].present && !bars[k].io)
			place_bar(rep, &bars[k], k, j);
	for (unsigned int i = 0; i < rep->nr_ranges; i++) {
		const struct tdisp_mmio_range *m = &rep->ranges[i];

		if (m->non_tee)
			str_join(&j->non_tee, ", ", "range %u (BAR %u +0x%llx, %u page%s)", i, m->range_id,
				 (unsigned long long)j->p[i].off, m->nr_pages,
				 m->nr_pages == 1 ? "" : "s");
		range_misfit(rep, bars, i, j);
		for (unsigned int k = 0; k < i; k++)
			if (overlap(rep, j, k, i))
				str_join(&j->bad, "; ", "ranges %u and %u overlap", k, i);
	}
}

/* The ranges marked WHAT hold [OFF, OFF + LEN) of BAR BIR, and one of them does. */
static void judge_msix_part(const struct tdisp_report *rep, const struct judged *j, bool table,
			    unsigned int bir, uint64_t off, uint64_t len, char **bad)
{
	const char *what = table ? "MSI-X table" : "MSI-X PBA";
	bool held = false;

	for (unsigned int i = 0; i < rep->nr_ranges; i++) {
		const struct tdisp_mmio_range *m = &rep->ranges[i];
		const struct placed *p = &j->p[i];

		if (!(table ? m->msix_table : m->msix_pba))
			continue;
		if (m->range_id == bir && p->inside && p->off <= off && off - p->off + len <= p->size)
			held = true;
		else
			str_join(bad, "; ", "range %u is marked %s but lies at BAR %u +0x%llx (%u "
				 "page%s), where the capability has no %s (BAR %u +0x%llx, %llu bytes)",
				 i, what, m->range_id, (unsigned long long)p->off, m->nr_pages,
				 m->nr_pages == 1 ? "" : "s", what, bir, (unsigned long long)off,
				 (unsigned long long)len);
	}
	if (!held)
		str_join(bad, "; ", "no range marked %s holds the one the capability places at BAR "
			 "%u +0x%llx (%llu bytes)", what, bir, (unsigned long long)off,
			 (unsigned long long)len);
}

static void judge_msix(const struct tdisp_report *rep, const struct ev_msix *x, const struct judged *j,
		       char **bad)
{
	bool marked = false;

	for (unsigned int i = 0; i < rep->nr_ranges; i++)
		marked |= rep->ranges[i].msix_table || rep->ranges[i].msix_pba;
	if (!x->present) {
		if (marked)
			str_join(bad, "; ", "ranges are marked MSI-X table or PBA, but the function has "
				 "no MSI-X capability");
		return;
	}
	if (rep->msix_table_size != x->table_size)
		str_join(bad, "; ", "the report's MSI-X Message Control says %u table entries, the "
			 "capability %u", rep->msix_table_size, x->table_size);
	judge_msix_part(rep, j, true, x->table_bir, x->table_offset, ev_msix_table_bytes(x), bad);
	judge_msix_part(rep, j, false, x->pba_bir, x->pba_offset, ev_msix_pba_bytes(x), bad);
}

/* The function's MSI-X, or the status and words for why it is not known. */
static enum audit_status read_msix(const struct evidence_set *s, struct ev_msix *x, char **why)
{
	int rc;

	if (!s->config) {
		*why = xstrdup(s->from_dir ? "the saved directory has no config file of the function" :
			       "the function's config space could not be read");
		return AUDIT_SKIP;
	}
	rc = ev_find_msix(s->config, s->config_len, x);
	if (!rc || rc == -ENOENT)
		return AUDIT_PASS;
	if (rc == -EACCES) {
		*why = xstrdup(s->from_dir ? "the saved config space is only the 64-byte header "
			       "(saved without root)" : "config space past the 64-byte header needs root");
		return s->from_dir ? AUDIT_SKIP : AUDIT_NEEDS_ROOT;
	}
	*why = xstrdup("the function's capability list does not walk");
	return AUDIT_FAIL;
}

static char *reading_text(const struct judged *j)
{
	char *s = NULL;

	for (unsigned int k = 0; k < EV_NR_BARS; k++)
		if (j->per_bar[k])
			str_join(&s, ", ", "BAR %u: %u", k, j->per_bar[k]);
	return s ? s : xstrdup("none");
}

static void report_result(const struct tdisp_report *rep, struct judged *j, enum audit_status mst,
			  const char *msix_why, const struct ev_msix *x, const char *provider,
			  struct ev_results *r)
{
	char *bars = reading_text(j), *msix;

	if (x->present)
		msix = xasprintf("MSI-X table (BAR %u +0x%x) and PBA (BAR %u +0x%x) where the capability "
				 "puts them", x->table_bir, x->table_offset, x->pba_bir, x->pba_offset);
	else
		msix = xstrdup(mst == AUDIT_PASS ? "no MSI-X capability, no MSI-X range" : msix_why);
	if (j->bad)
		ev_add(r, ID, "report", AUDIT_FAIL,
		       xstrdup("do not accept the device: its interface report claims MMIO it does not "
			       "have; unlock it (tsmctl unlock BDF) and report it to its vendor"),
		       "%s", j->bad);
	else if (mst != AUDIT_PASS)
		ev_add(r, ID, "report", mst, mst == AUDIT_NEEDS_ROOT ? xstrdup("run as root") : NULL,
		       "%u ranges inside their BARs (%s); MSI-X " EV_UNVERIFIABLE "%s; non-TEE: %s",
		       rep->nr_ranges, bars, msix_why, j->non_tee ? j->non_tee : "none");
	else if (j->offsets)
		ev_add_risk(r, ID, "report", EV_RISK_REPORT_OFFSETS,
			    xstrdup("the SEV-TIO guest's reports give each range as an offset from the "
				    "lowest page of its BAR: where the host put the BARs only the TSM "
				    "knows; taking the report on the platform's word is the risk"),
			    "%u range%s inside their BARs by offset from each BAR's lowest reported "
			    "page (%s), no two overlapping; %s; non-TEE: %s; the function is locked "
			    "to a TSM of %s, whose reports give offsets: their absolute addresses are "
			    "not proven", rep->nr_ranges, rep->nr_ranges == 1 ? "" : "s", bars, msix,
			    j->non_tee ? j->non_tee : "none", provider);
	else
		ev_add(r, ID, "report", AUDIT_PASS, NULL,
		       "%u range%s inside their BARs, as 4 KiB pages (%s); %s; non-TEE: %s; no two "
		       "overlap", rep->nr_ranges, rep->nr_ranges == 1 ? "" : "s", bars, msix,
		       j->non_tee ? j->non_tee : "none");
	free(bars);
	free(msix);
}

void ev_check_report(const struct ev_decoded *d, const struct ev_verify_opts *o,
		     struct ev_results *r)
{
	const struct evidence_set *s = d->set;
	struct ev_bar bars[EV_NR_BARS];
	struct ev_msix x = { 0 };
	struct judged j = { 0 };
	enum audit_status mst;
	char *msix_why = NULL;

	(void)o;
	if (!d->report_part.present) {
		ev_add(r, ID, "report", AUDIT_SKIP, NULL,
		       EV_UNVERIFIABLE "the interface report is empty (a provider gives a TDI's report)");
		return;
	}
	if (!ev_parent_ok(d, EV_REPORT_TYPE, r, ID, "report"))
		return;
	if (!s->resource) {
		ev_add(r, ID, "report", AUDIT_SKIP, NULL, EV_UNVERIFIABLE "%s",
		       s->from_dir ? "the saved directory has no resource file of the function, so "
		       "its BARs are not known" : "the function's resource file could not be read");
		return;
	}
	if (ev_parse_resource(s->resource, bars)) {
		ev_add(r, ID, "report", AUDIT_FAIL, NULL, "the function's resource file does not read");
		return;
	}
	j.offsets = s->tsm_provider && streq(s->tsm_provider, SEV_GUEST);
	judge_ranges(&d->report, bars, &j);
	mst = read_msix(s, &x, &msix_why);
	if (mst == AUDIT_PASS)
		judge_msix(&d->report, &x, &j, &j.bad);
	else if (mst == AUDIT_FAIL)
		str_join(&j.bad, "; ", "%s", msix_why);
	report_result(&d->report, &j, mst, msix_why, &x, s->tsm_provider, r);
	free(msix_why);
	free(j.p);
	free(j.bad);
	free(j.non_tee);
}
