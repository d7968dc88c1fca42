/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus text exposition format (node_exporter's textfile collector)
 * for a snapshot and an audit report: every metric is a gauge, documented
 * in tsmctl-metrics(8).
 */
#ifndef TSMCTL_METRICS_H
#define TSMCTL_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include "tsmctl/audit.h"
#include "tsmctl/evidence-gate.h"
#include "tsmctl/snapshot.h"

/* What device.evidence decided of each device with evidence, for its per-device series. */
struct metrics_evidence {
	const struct ev_gate_outcome *v;
	size_t n;
	bool trust_store;	/* a trust store holding a certificate is configured */
};

/*
 * Write the metrics of SNAP, its audit REP and the evidence EV; NOW is the
 * Unix time of the scan, in seconds.
 */
void metrics_write(FILE *out, const struct tsm_snapshot *snap, const struct audit_report *rep,
		   const struct metrics_evidence *ev, double now);

#endif
