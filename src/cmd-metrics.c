// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl metrics: the state and the audit as node_exporter textfile metrics,
 * on stdout or written atomically into a file (outfile.h: temporary file in
 * the same directory, fsync, rename), so the collector never reads half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/audit.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/evidence-gate.h"
#include "tsmctl/modhint.h"
#include "tsmctl/metrics.h"
#include "tsmctl/outfile.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"

#define METRICS_SCAN	(SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES | SCAN_IDE_PORTS | SCAN_PLATFORM)

/* metrics' own options */
static struct metrics_param {
	const char *output_file;
	struct ev_judge_opts judge;	/* device.evidence's inputs and the risks it may take */
} param;

static int run_metrics(struct cmd_ctx *ctx)
{
	struct module_state mods[8];
	struct audit_opts opts = { 0 };
	struct audit_report rep;
	struct tsm_snapshot snap;
	struct outfile file = { .fd = -1 };
	struct timespec now;
	struct ev_gate gate;
	struct metrics_evidence ev;
	char *buf = NULL, *why = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	if (ctx->nargs)
		return extra_operand(ctx->cmd, ctx->args[0]);
	if (param.output_file && !*param.output_file)
		return usage_error(ctx->cmd, "--output needs a file name ('-': stdout)");
	/* a named input that cannot be used is an error before anything is written */
	if (ev_gate_init(&gate, &param.judge, &why)) {
		cmd_error("metrics", "%s", why);
		free(why);
		ev_gate_release(&gate);
		return EXIT_FAIL;
	}
	/* refused before anything is read: a device node or link is never replaced */
	rc = outfile_open(&file, param.output_file ? param.output_file : "-", 0644);
	if (rc) {
		why = outfile_error(&file, rc);
		cmd_error("metrics", "%s", why);
		free(why);
		ev_gate_release(&gate);
		return EXIT_FAIL;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	snapshot_scan(&snap, METRICS_SCAN);
	if (!snap.nr_tsms) {	/* as audit: the hints name the provider modules */
		opts.modules = mods;
		opts.nr_modules = provider_modules(mods, ARRAY_SIZE(mods));
	}
	/* device.evidence as audit decides it; each device's outcome becomes its series */
	gate.snap = &snap;
	opts.evidence = ev_gate_audit_fn;
	opts.evidence_arg = &gate;
	audit_run(&snap, &opts, &rep);
	ev = (struct metrics_evidence){ gate.outcomes, gate.nr_outcomes,
					ev_gate_has_trust_store(&gate) };
	mem = open_memstream(&buf, &len);
	if (!mem) {
		cmd_error("metrics", "%s", strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	metrics_write(mem, &snap, &rep, &ev, (double)now.tv_sec + (double)now.tv_nsec / 1e9);
	if (fclose(mem)) {
		cmd_error("metrics", "%s", strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	rc = outfile_write(&file, buf, len);
	if (!rc)
		rc = outfile_commit(&file);
	if (rc) {
		why = outfile_error(&file, rc);
		cmd_error("metrics", "%s", why);
		free(why);
	}
	rc = rc ? EXIT_FAIL : EXIT_OK;
out:
	outfile_discard(&file);
	free(buf);
	audit_report_free(&rep);
	snapshot_free(&snap);
	ev_gate_release(&gate);
	return rc;
}

static const struct opt_def metrics_opts[] = {
	OPT_STRING('o', "output", &param.output_file, "FILE",
		   "write to FILE atomically (temporary file, rename; '-': stdout)"),
	OPT_EV_JUDGE_READONLY(param.judge),
	OPT_STRING(0, "output-file", &param.output_file, "FILE", "the same as --output (its older name)"),
	OPT_END()
};

const struct cmd_def cmd_metrics = {
	.name = "metrics",
	.summary = "write TSM, stream and audit state as Prometheus textfile metrics",
	.description = "Write gauges for TSMs, connected devices, IDE streams by state per host\n"
		       "bridge, available secure streams, every audit check's status and each\n"
		       "device's evidence (verified, trusted, unverified and why, failed, as\n"
		       "audit's device.evidence decides) in the Prometheus text format, for\n"
		       "node_exporter's textfile collector. With -o FILE the file is replaced\n"
		       "atomically (temporary file, fsync, rename)",
	.opts = metrics_opts,
	.run = run_metrics,
};
