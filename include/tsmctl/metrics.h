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
#include "tsmctl/snapshot.h"

/* Write the metrics of SNAP and its audit REP; NOW is the Unix time of the scan, in seconds. */
void metrics_write(FILE *out, const struct tsm_snapshot *snap, const struct audit_report *rep,
		   double now);

#endif
