// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot + audit → Prometheus text format 0.0.4. Every series of a family
 * is written, zeros included, so "absent" never stands in for 0; label values
 * come from strictly parsed names, or are escaped as every text tsmctl prints.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tsmctl/evidence-trust.h"
#include "tsmctl/metrics.h"
#include "tsmctl/render.h"
#include "tsmctl/util.h"

/* Severity order for a check's overall status: the worst of its findings. */
static const enum audit_status worst_order[] = {
	AUDIT_SKIP, AUDIT_PASS, AUDIT_NEEDS_ROOT, AUDIT_WARN, AUDIT_FAIL,
};

static void family(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/*
 * A label value: the text as a terminal gets it (text_escape: controls, C1,
 * '\' and invalid UTF-8 as \xNN, so no newline is left), then the format's
 * own escapes, \\ and \": a parser reads back the \xNN a table shows.
 */
static void label_value(FILE *out, const char *s)
{
	char *shown = text_escape(s);

	fputc('"', out);
	for (const char *p = shown; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
	free(shown);
}

static void write_tsms(FILE *out, const struct tsm_snapshot *snap)
{
	size_t funcs = 0, connected = 0;

	family(out, "tsmctl_tsms", "TSMs registered in /sys/class/tsm.");
	fprintf(out, "tsmctl_tsms %zu\n", snap->nr_tsms);
	family(out, "tsmctl_tsm_info",
	       "A registered TSM (value 1) with its pci_mode, provider device and driver.");
	for (size_t i = 0; i < snap->nr_tsms; i++) {
		const struct tsm *t = snap->tsms[i];

		fputs("tsmctl_tsm_info{tsm=", out);
		label_value(out, t->name);
		fputs(",mode=", out);
		label_value(out, t->mode);
		fputs(",provider=", out);
		label_value(out, t->provider);
		fputs(",driver=", out);
		label_value(out, t->driver);
		fputs("} 1\n", out);
	}
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];

		funcs += f->has_connect;
		connected += f->has_connect && func_connected(f);
	}
	family(out, "tsmctl_devices", "PCI functions that offer tsm/connect (DSM candidates).");
	fprintf(out, "tsmctl_devices %zu\n", funcs);
	family(out, "tsmctl_devices_connected", "PCI functions whose tsm/connect names a TSM.");
	fprintf(out, "tsmctl_devices_connected %zu\n", connected);
}

static void write_streams(FILE *out, const struct tsm_snapshot *snap)
{
	family(out, "tsmctl_streams", "IDE stream links on a host bridge, by state, as streams --state "
	       "says it (secure: enabled and SECURE on both partners, no IDE_FAIL; unknown: registers "
	       "unreadable).");
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		const struct host_bridge *hb = snap->hbs[i];

		for (enum stream_state k = 0; k < STREAM_NR_STATES; k++) {
			size_t n = 0;

			/* a stray link is no stream: its blocks are counted with their stream */
			for (size_t j = 0; j < hb->nr_streams; j++)
				n += !hb->streams[j]->dup_of &&
				     stream_state(hb->streams[j]) == k;
			fputs("tsmctl_streams{host_bridge=", out);
			label_value(out, hb->name);
			fprintf(out, ",state=\"%s\"} %zu\n", stream_state_name(k), n);
		}
	}
	family(out, "tsmctl_streams_ide_fail", "IDE streams on a host bridge with IDE_FAIL (received "
	       "an IDE Fail message) set on either partner.");
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		const struct host_bridge *hb = snap->hbs[i];
		size_t n = 0;

		for (size_t j = 0; j < hb->nr_streams; j++)
			n += stream_ide_fail(hb->streams[j]);
		fputs("tsmctl_streams_ide_fail{host_bridge=", out);
		label_value(out, hb->name);
		fprintf(out, "} %zu\n", n);
	}
	family(out, "tsmctl_available_secure_streams", "available_secure_streams of a host bridge "
	       "(only where the kernel shows the file).");
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		const struct host_bridge *hb = snap->hbs[i];

		if (hb->available_streams < 0)
			continue;
		fputs("tsmctl_available_secure_streams{host_bridge=", out);
		label_value(out, hb->name);
		fprintf(out, "} %lld\n", hb->available_streams);
	}
}

static void write_audit(FILE *out, const struct audit_report *rep)
{
	family(out, "tsmctl_audit_check_status", "Overall status of an audit check, one-hot: the worst "
	       "of its results (fail, warn, needs-root, pass, skip); all 0 when it applied to nothing.");
	for (size_t c = 0; c < audit_nr_checks; c++) {
		const struct audit_check *check = &audit_checks[c];
		int worst = -1;

		for (size_t i = 0; i < rep->n; i++) {
			if (rep->findings[i].check != check)
				continue;
			for (int k = 0; k < (int)ARRAY_SIZE(worst_order); k++)
				if (worst_order[k] == rep->findings[i].status && k > worst)
					worst = k;
		}
		for (int st = 0; st < AUDIT_NR_STATUS; st++)
			fprintf(out, "tsmctl_audit_check_status{check=\"%s\",status=\"%s\"} %d\n",
				check->id, audit_status_name(st),
				worst >= 0 && worst_order[worst] == (enum audit_status)st);
	}
	family(out, "tsmctl_audit_results", "Results of an audit check by status (one per object "
	       "checked).");
	for (size_t c = 0; c < audit_nr_checks; c++) {
		const struct audit_check *check = &audit_checks[c];
		size_t count[AUDIT_NR_STATUS] = { 0 };

		for (size_t i = 0; i < rep->n; i++)
			if (rep->findings[i].check == check)
				count[rep->findings[i].status]++;
		for (int st = 0; st < AUDIT_NR_STATUS; st++)
			fprintf(out, "tsmctl_audit_results{check=\"%s\",status=\"%s\"} %zu\n",
				check->id, audit_status_name(st), count[st]);
	}
}

/*
 * Each device's evidence, one-hot by state, and why an unverified one is,
 * every reason written (0 or 1) so that absent never stands in for 0.
 */
static void write_evidence(FILE *out, const struct metrics_evidence *ev)
{
	family(out, "tsmctl_evidence_trust_store", "1: a trust store holding a certificate is "
	       "configured (" EV_TRUST_DEFAULT ", or --trust), so unverified evidence is news.");
	fprintf(out, "tsmctl_evidence_trust_store %d\n", ev->trust_store);
	family(out, "tsmctl_device_evidence", "A device's evidence, one-hot: verified (proven), "
	       "trusted (accepted, taking on trust what the --allow-* options name), unverified "
	       "(not proven, or not read), failed (a check failed).");
	for (size_t i = 0; i < ev->n; i++)
		for (int st = 0; st < EV_NR_STATES; st++) {
			fputs("tsmctl_device_evidence{device=", out);
			label_value(out, ev->v[i].bdf);
			fprintf(out, ",state=\"%s\"} %d\n", ev_gate_state_name((enum ev_gate_state)st),
				ev->v[i].state == (enum ev_gate_state)st);
		}
	family(out, "tsmctl_device_evidence_unverified", "Why a device's evidence is unverified, "
	       "1 per reason that holds: a risk no option took (first-use, unsigned-measurements, "
	       "no-reference, replay, report-offsets), no-trust-store, unreadable, needs-root, "
	       "unproven.");
	for (size_t i = 0; i < ev->n; i++)
		for (unsigned int bit = EV_RISK_NONE + 1; bit < EV_WHY_NR; bit++) {
			fputs("tsmctl_device_evidence_unverified{device=", out);
			label_value(out, ev->v[i].bdf);
			fprintf(out, ",reason=\"%s\"} %d\n", ev_gate_why_name(bit),
				!!(ev->v[i].why & 1u << bit));
		}
}

void metrics_write(FILE *out, const struct tsm_snapshot *snap, const struct audit_report *rep,
		   const struct metrics_evidence *ev, double now)
{
	family(out, "tsmctl_scrape_success",
	       "1: tsmctl read the TSM state (a run that cannot writes no file).");
	/* a scan always completes: what it cannot read is counted as unknown below */
	fputs("tsmctl_scrape_success 1\n", out);
	family(out, "tsmctl_scrape_timestamp_seconds", "Unix time when tsmctl read the state.");
	fprintf(out, "tsmctl_scrape_timestamp_seconds %.3f\n", now);
	write_tsms(out, snap);
	write_streams(out, snap);
	write_audit(out, rep);
	write_evidence(out, ev);
}
