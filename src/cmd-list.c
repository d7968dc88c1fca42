// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl list: the TSMs. */
#include <stdio.h>
#include <stdlib.h>

#include <libsmartcols.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

enum { COL_NAME, COL_ID, COL_MODE, COL_PROVIDER, COL_DRIVER, COL_MODULE,
       COL_DEVICES, COL_STREAMS, COL_HBS, COL_LOCKED, COL_ACCEPTED, COL_VERSION };

static const struct column list_columns[] = {
	[COL_NAME] = { "NAME", 6, 0, "TSM class device name" },
	[COL_ID] = { "ID", 3, SCOLS_FL_RIGHT, "TSM number" },
	[COL_MODE] = { "MODE", 6, 0, "pci_mode: link (host) or devsec (guest); empty on v6.19" },
	[COL_PROVIDER] = { "PROVIDER", 14, 0, "device that registered the TSM" },
	[COL_DRIVER] = { "DRIVER", 8, 0, "provider's driver" },
	[COL_MODULE] = { "MODULE", 8, 0, "provider driver's module" },
	[COL_DEVICES] = { "DEVICES", 3, SCOLS_FL_RIGHT, "devices connected to the TSM" },
	[COL_STREAMS] = { "STREAMS", 3, SCOLS_FL_RIGHT, "IDE streams of connected devices" },
	[COL_HBS] = { "HOST-BRIDGES", 14, 0, "host bridges carrying its streams" },
	[COL_LOCKED] = { "LOCKED", 3, SCOLS_FL_RIGHT, "devices locked to the TSM (TDISP, guest)" },
	[COL_ACCEPTED] = { "ACCEPTED", 3, SCOLS_FL_RIGHT,
			   "locked devices also accepted (TDISP RUN)" },
	[COL_VERSION] = { "VERSION", 7, 0, "provider's version attribute (the TDX module's)" },
};

static const int list_defaults[] = { COL_NAME, COL_MODE, COL_PROVIDER, COL_DRIVER,
				     COL_DEVICES, COL_STREAMS, COL_HBS };
/* With a devsec TSM registered: the TDISP counts too. */
static const int list_defaults_devsec[] = { COL_NAME, COL_MODE, COL_PROVIDER, COL_DRIVER,
					    COL_DEVICES, COL_LOCKED, COL_ACCEPTED, COL_STREAMS,
					    COL_HBS };
/* A provider with a version (tdx_host: the TDX module): that too. */
static const int list_defaults_version[] = { COL_NAME, COL_MODE, COL_PROVIDER, COL_DRIVER,
					     COL_VERSION, COL_DEVICES, COL_STREAMS, COL_HBS };

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	const struct tsm *t = item;
	struct strbuf joined = STRBUF_INIT;
	const char **hbs;
	size_t n, acc;

	switch (col) {
	case COL_NAME: return cell_str(t->name);
	case COL_ID: return cell_fmt("%d", t->id);
	case COL_MODE: return t->mode_err ? render_attr_cell(NULL, t->mode_err) : cell_str(t->mode);
	case COL_PROVIDER: return cell_str(t->provider);
	case COL_DRIVER: return cell_str(t->driver);
	case COL_MODULE: return cell_str(t->module);
	case COL_VERSION: return cell_str(t->provider_version);
	case COL_DEVICES: return cell_fmt("%zu", t->connected_devices);
	case COL_STREAMS: return cell_fmt("%zu", t->nr_streams);
	case COL_LOCKED: return cell_fmt("%zu", tsm_nr_locked(snap, t, &acc));
	case COL_ACCEPTED: tsm_nr_locked(snap, t, &acc); return cell_fmt("%zu", acc);
	case COL_HBS:
		hbs = xcalloc(snap->nr_hbs + 1, sizeof(*hbs));
		n = tsm_hb_names(snap, t, hbs);
		for (size_t i = 0; i < n; i++)
			strbuf_join(&joined, ",", "%s", hbs[i]);
		free(hbs);
		return strbuf_take(&joined);
	}
	return NULL;
}

/* Default columns follow the tree: TDISP counts with a devsec TSM, else a provider's version. */
static const int *tree_defaults(const struct tsm_snapshot *snap, size_t *n)
{
	bool devsec = false, version = false;

	for (size_t i = 0; i < snap->nr_tsms; i++) {
		devsec |= streq(snap->tsms[i]->mode, "devsec");
		version |= snap->tsms[i]->provider_version != NULL;
	}
	if (devsec) {
		*n = ARRAY_SIZE(list_defaults_devsec);
		return list_defaults_devsec;
	}
	*n = ARRAY_SIZE(list_defaults_version);
	return version ? list_defaults_version : NULL;
}

static const void *tsm_item(const struct tsm_snapshot *snap, size_t i)
{
	return i < snap->nr_tsms ? snap->tsms[i] : NULL;
}

static bool tsm_selected(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, const void *t)
{
	(void)snap;
	return filter_match(&ctx->tsms, ((const struct tsm *)t)->name);
}

static void explain_list(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, size_t shown)
{
	(void)ctx;
	(void)shown;
	if (!snap->nr_tsms)
		explain_no_tsm(snap, "list");
	explain_bad_tsms(snap, "list");
	explain_read_errors(snap, "list");
}

/* -v: a TSM in full, its PSP's security attributes for a SEV-TIO TSM (ABI.md §7.2). */
static void tsm_detail_text(const struct tsm_snapshot *snap, const void *item)
{
	static bool first = true;
	const struct tsm *t = item;
	char *hbs = cell(snap, t, COL_HBS), *mode = cell(snap, t, COL_MODE);
	size_t accepted, locked = tsm_nr_locked(snap, t, &accepted);

	if (!first)	/* a blank line between TSMs, as devices -v */
		putchar('\n');
	first = false;
	render_line(0, "%s", t->name);
	render_line(1, "Mode: %s", mode ? mode : "link (no pci_mode: the released kernels have link TSMs only)");
	render_line(1, "Provider: %s, driver %s, module %s", t->provider ? t->provider : "-",
		    t->driver ? t->driver : "none", t->module ? t->module : "built in");
	if (t->provider_version)
		render_line(1, "Version: %s (the provider's version attribute)", t->provider_version);
	render_line(1, "Devices: %zu connected, %zu locked (%zu accepted); streams: %zu; "
		    "host bridges: %s", t->connected_devices, locked, accepted, t->nr_streams,
		    hbs && *hbs ? hbs : "none");
	if (t->psp)
		render_psp_text(t->psp, 1);
	free(hbs);
	free(mode);
}

static const struct view list_view = {
	.scan = SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES | SCAN_PLATFORM,
	.defaults = list_defaults,
	.ndefaults = ARRAY_SIZE(list_defaults),
	.tree_defaults = tree_defaults,
	.item = tsm_item,
	.selected = tsm_selected,
	.cell = cell,
	.json = render_tsm_item_json,
	.explain = explain_list,
};

/* -v: each TSM in full (text, or the same document) */
static const struct view list_detail_view = {
	.scan = SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES | SCAN_PLATFORM,
	.defaults = list_defaults,
	.ndefaults = ARRAY_SIZE(list_defaults),
	.item = tsm_item,
	.selected = tsm_selected,
	.cell = cell,
	.json = render_tsm_item_json,
	.text = tsm_detail_text,
	.explain = explain_list,
};

static int run_list(struct cmd_ctx *ctx)
{
	const struct cmd_ctx *c = ctx;

	/* -v prints every field: the table options have nothing to choose */
	if (ctx->verbose && !ctx->out.json && !ctx->list_columns &&
	    (c->output_arg || c->output_all || c->out.noheadings || c->out.raw || c->out.pairs ||
	     c->out.shellvar))
		return usage_error(ctx->cmd, "-v prints each TSM in full: it takes no table options "
				   "(-o, --output-all, -n, -r, -P, -y)");
	return view_run(ctx, ctx->verbose ? &list_detail_view : &list_view, 0);
}

static const struct opt_def list_options[] = {
	OPT_COMMON(COMMON_TSM), OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_list = {
	.name = "list",
	.summary = "list the TEE Security Managers (TSMs)",
	.description = "List the TEE Security Managers registered in /sys/class/tsm, with their\n"
		       "mode, provider device, driver, and the devices and IDE streams they manage",
	.opts = list_options,
	.cols = list_columns,
	.ncols = ARRAY_SIZE(list_columns),
	.json_name = "tsms",
	.verbose_help = "each TSM in full, a SEV-TIO TSM's PSP security attributes too",
	.run = run_list,
};
