// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl devices: TSM-capable PCI functions (--all: every IDE/TEE-capable one). */
#include <stdlib.h>

#include <libsmartcols.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

/* The columns are the function cells render.c makes for devices and tree alike. */
enum { COL_BDF = FC_BDF, COL_VENDOR_ID = FC_VENDOR_ID, COL_DEVICE_ID = FC_DEVICE_ID,
       COL_VENDOR = FC_VENDOR, COL_DEVICE = FC_DEVICE, COL_TYPE = FC_TYPE, COL_TEE = FC_TEE,
       COL_IDE = FC_IDE, COL_DOE = FC_DOE, COL_TSMDIR = FC_TSMDIR, COL_CONNECTED = FC_CONNECTED,
       COL_DSM = FC_DSM, COL_BOUND = FC_BOUND, COL_AUTH = FC_AUTH, COL_LOCKED = FC_LOCKED,
       COL_ACCEPTED = FC_ACCEPTED, COL_DRIVER = FC_DRIVER, COL_ROOT_PORT = FC_ROOT_PORT,
       COL_HB = FC_HB, COL_STATE = FC_STATE };

static const struct column dev_columns[] = {
	[COL_BDF] = { "BDF", 12, 0, "PCI address" },
	[COL_VENDOR_ID] = { "VENDOR-ID", 6, 0, "vendor ID" },
	[COL_DEVICE_ID] = { "DEVICE-ID", 6, 0, "device ID" },
	[COL_VENDOR] = { "VENDOR", 0.2, SCOLS_FL_TRUNC, "vendor name (pci.ids)" },
	[COL_DEVICE] = { "DEVICE", 0.3, SCOLS_FL_TRUNC, "device name (pci.ids)" },
	[COL_TYPE] = { "TYPE", 10, 0, "PCIe device/port type" },
	[COL_TEE] = { "TEE", 3, 0, "DEVCAP TEE-IO supported" },
	[COL_IDE] = { "IDE", 10, 0, "IDE capability: link TCs, selective streams" },
	[COL_DOE] = { "DOE", 10, 0, "DOE features (VVVV:TT)" },
	[COL_TSMDIR] = { "TSM-DIR", 3, 0, "has the tsm/ attribute group" },
	[COL_CONNECTED] = { "CONNECTED", 6, 0, "TSM the device is connected to" },
	[COL_DSM] = { "DSM", 12, 0, "device security manager of this function" },
	[COL_BOUND] = { "BOUND", 6, 0, "TSM the function is bound to as a TDI" },
	[COL_AUTH] = { "AUTH", 6, 0, "authenticated (TSM name, or 1/0 native SPDM)" },
	[COL_LOCKED] = { "LOCKED", 6, 0, "TSM holding the TDISP lock (guest)" },
	[COL_ACCEPTED] = { "ACCEPTED", 3, 0, "TDISP accepted (guest)" },
	[COL_DRIVER] = { "DRIVER", 8, 0, "bound kernel driver" },
	[COL_ROOT_PORT] = { "ROOT-PORT", 12, 0, "root port above the device" },
	[COL_HB] = { "HOST-BRIDGE", 10, 0, "host bridge" },
	[COL_STATE] = { "STATE", 10, 0, "TSM state in words: connected, locked, dependent, ..." },
};

static const int dev_defaults[] = { COL_BDF, COL_DEVICE, COL_TYPE, COL_TEE, COL_IDE,
				    COL_CONNECTED, COL_DSM, COL_BOUND };
/* A guest (tsm/lock, no link part): the TDISP state instead of the host's link columns. */
static const int dev_defaults_guest[] = { COL_BDF, COL_DEVICE, COL_TYPE, COL_TEE, COL_IDE,
					  COL_LOCKED, COL_ACCEPTED, COL_DRIVER };
/* Both a link and a devsec TSM (the devsec samples' rig): both. */
static const int dev_defaults_both[] = { COL_BDF, COL_DEVICE, COL_TYPE, COL_TEE, COL_IDE,
					 COL_CONNECTED, COL_DSM, COL_BOUND, COL_LOCKED,
					 COL_ACCEPTED };

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	(void)snap;
	return render_func_cell(item, (enum func_cell)col);
}

/* devices' own options: the state filters */
static struct dev_param {
	bool connected, not_connected, locked, accepted, can_connect;
} param;

/* --can-connect: not connected, and nothing the tree shows rules a connect out (the model's judgement). */
static bool can_connect(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	char *why;

	if (!func_not_connected(f) || !snapshot_first_link_tsm(snap))
		return false;
	why = snapshot_connect_blocker(snap, f);
	free(why);
	return !why;
}

/* The state filters (tsmctl-devices(8), STATE FILTERS), ANDed. */
static bool state_selected(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	return (!param.connected || func_connected(f)) &&
	       (!param.not_connected || func_not_connected(f)) &&
	       (!param.locked || func_lock_holder(f)) &&
	       (!param.accepted || func_accepted(f) == 1) &&
	       (!param.can_connect || can_connect(snap, f));
}

/* "connected and locked": the state filters given, for messages; "" without one. */
static char *state_words(void)
{
	const struct { bool on; const char *word; } flags[] = {
		{ param.connected, "connected" }, { param.not_connected, "not connected" },
		{ param.locked, "locked" }, { param.accepted, "accepted" },
		{ param.can_connect, "connectable" },
	};
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (flags[i].on)
			strbuf_join(&s, " and ", "%s", flags[i].word);
	return strbuf_take(&s);
}

static bool dev_selected(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			 const void *item)
{
	const struct pci_func *f = item;

	return f->listed && filter_match(&ctx->devices, f->bdf) &&
	       filter_match(&ctx->tsms, func_tsm(f)) &&
	       filter_match(&ctx->hbs, f->hb ? f->hb->name : NULL) && state_selected(snap, f);
}

/* Default columns follow the tree: lock state where the kernel shows tsm/lock. */
static const int *tree_defaults(const struct tsm_snapshot *snap, size_t *n)
{
	bool lock = false, link = false;

	for (size_t i = 0; i < snap->nr_funcs; i++) {
		lock |= snap->funcs[i]->has_lock;
		link |= snap->funcs[i]->has_connect || snap->funcs[i]->has_dsm;
	}
	if (!lock)
		return NULL;
	if (link) {
		*n = ARRAY_SIZE(dev_defaults_both);
		return dev_defaults_both;
	}
	*n = ARRAY_SIZE(dev_defaults_guest);
	return dev_defaults_guest;
}

/* The filters selected nothing: the first -d device that exists but is not in this view says why. */
static void explain_filtered(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap)
{
	char *reason = NULL, *states = state_words(), *what;

	for (size_t i = 0; i < ctx->devices.n && !reason; i++) {
		const struct pci_func *f = snapshot_find_func(snap, ctx->devices.v[i]);

		if (f && f->listed)
			continue;	/* in the view: another filter left it out */
		if (ctx->all)
			reason = xasprintf("%s shows neither an IDE capability nor DEVCAP.TEE-IO",
					   ctx->devices.v[i]);
		else if (!strchr(ctx->devices.v[i], '*'))
			reason = xasprintf("%s has no tsm/ group: it is no TSM-capable function 0 "
					   "(nor a connected DSM's dependent); 'tsmctl devices --all' "
					   "shows every IDE or TEE-IO capable function", ctx->devices.v[i]);
	}
	what = *states ? xasprintf("device that is %s", states) : xstrdup("device");
	if (filters_active(ctx))
		filters_matched_nothing(ctx, what, reason);
	else
		cmd_error("devices", "no %s", what);
	free(what);
	free(states);
	free(reason);
}

/* Any state filter given? */
static bool states_active(void)
{
	return param.connected || param.not_connected || param.locked || param.accepted ||
	       param.can_connect;
}

/* Said on stderr, after the view: shown devices that a connect would fail for (the model's judgement). */
static void explain_unconnectable(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];
		char *why;

		if (!dev_selected(ctx, snap, f) || !f->has_connect || func_connected(f))
			continue;
		why = snapshot_connect_blocker(snap, f);
		if (why)
			cmd_error("devices", "%s cannot be connected: %s", f->bdf, why);
		free(why);
	}
}

static const void *func_item(const struct tsm_snapshot *snap, size_t i)
{
	return i < snap->nr_funcs ? snap->funcs[i] : NULL;
}

static void func_detail_text(const struct tsm_snapshot *snap, const void *item)
{
	static bool first = true;

	/* a blank line between devices, as lspci -v */
	if (!first)
		putchar('\n');
	first = false;
	render_device_detail_text(snap, item);
}

static void explain_devices(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			    size_t shown)
{
	if (!shown && (filters_active(ctx) || states_active()))
		explain_filtered(ctx, snap);
	else if (!shown && snap->pci_devices_err)
		explain_no_devices(snap, "devices");
	else if (!shown && ctx->all)
		cmd_error("devices", "no PCIe function shows an IDE capability or DEVCAP.TEE-IO%s",
			  snap->any_needs_root || snap->nr_cfg_unreadable ?
			  " that tsmctl could read (see below)" : "");
	else if (!shown)
		explain_no_devices(snap, "devices");
	if (!ctx->verbose)	/* -v says it in each device's "Connect:" */
		explain_unconnectable(ctx, snap);
	explain_bad_tsms(snap, "devices");
	explain_read_errors(snap, "devices");
	explain_needs_root(snap, "devices");
}

static const struct view dev_view = {
	.scan = SCAN_TSMS | SCAN_HBS,
	.defaults = dev_defaults,
	.ndefaults = ARRAY_SIZE(dev_defaults),
	.tree_defaults = tree_defaults,
	.item = func_item,
	.selected = dev_selected,
	.cell = cell,
	.json = render_device_item_json,
	.explain = explain_devices,
};

/* -v: each device in full (text, or the document with "detail"); the same selection. */
static const struct view dev_detail_view = {
	.scan = SCAN_TSMS | SCAN_HBS | SCAN_STREAMS | SCAN_DETAIL,
	.defaults = dev_defaults,
	.ndefaults = ARRAY_SIZE(dev_defaults),
	.item = func_item,
	.selected = dev_selected,
	.cell = cell,
	.json = render_device_detail_item_json,
	.text = func_detail_text,
	.explain = explain_devices,
};

static int run_devices(struct cmd_ctx *ctx)
{
	const struct cmd_ctx *c = ctx;
	int rc;

	if (param.connected && (param.not_connected || param.can_connect))
		return usage_error(ctx->cmd, "--connected excludes --%s",
				   param.not_connected ? "not-connected" : "can-connect");
	/* -v prints every field: the table options have nothing to choose */
	if (ctx->verbose && !ctx->out.json && !ctx->list_columns &&
	    (c->output_arg || c->output_all || c->out.noheadings || c->out.raw || c->out.pairs ||
	     c->out.shellvar))
		return usage_error(ctx->cmd, "-v prints each device in full: it takes no %s (they "
				   "choose table columns)", c->output_arg ? "--output" :
				   c->output_all ? "--output-all" : c->out.noheadings ? "--noheadings" :
				   c->out.raw ? "--raw" : c->out.pairs ? "--pairs" : "--shell");
	/* BDF... as -d BDF...: "devices -v 41:00.0" */
	for (int i = 0; i < ctx->nargs; i++) {
		rc = filter_add_arg(ctx, COMMON_DEVICE, ctx->args[i]);
		if (rc)
			return rc;
	}
	ctx->nargs = 0;
	return view_run(ctx, ctx->verbose ? &dev_detail_view : &dev_view,
			ctx->all ? SCAN_ALL_FUNCS : SCAN_DEVICES);
}

static const struct opt_def dev_options[] = {
	OPT_COMMON_HELP(COMMON_ALL, "every PCIe function with IDE or TEE-IO, with or without tsm/"),
	OPT_COMMON(COMMON_DEVICE), OPT_COMMON(COMMON_TSM), OPT_COMMON(COMMON_HOST_BRIDGE),
	OPT_BOOLEAN(0, "connected", &param.connected, "only devices tsm/connect names a TSM for"),
	OPT_BOOLEAN(0, "not-connected", &param.not_connected,
		    "only devices whose tsm/connect reads empty"),
	OPT_BOOLEAN(0, "locked", &param.locked, "only devices locked to a devsec TSM (TDISP)"),
	OPT_BOOLEAN(0, "accepted", &param.accepted, "only devices whose tsm/accept reads 1"),
	OPT_BOOLEAN(0, "can-connect", &param.can_connect,
		    "only unconnected devices nothing rules a connect out for"),
	OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_devices = {
	.name = "devices",
	.args = "[BDF...]",
	.summary = "list TSM-capable PCI functions, or show them in full (-v)",
	.description = "List PCI functions with the tsm/ attribute group (connectable device\n"
		       "security managers and their dependent functions), or with --all every\n"
		       "PCIe function whose config space shows IDE or TEE-IO. BDF... selects as -d\n"
		       "does; -v shows each selected function in full",
	.opts = dev_options,
	.cols = dev_columns,
	.ncols = ARRAY_SIZE(dev_columns),
	.json_name = "devices",
	.verbose_help = "every field of each device (IDE registers, BARs, streams)",
	.run = run_devices,
};
