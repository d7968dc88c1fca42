// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl devices: TSM-capable PCI functions (--all: every IDE/TEE-capable one). */
#include <stdlib.h>

#include <libsmartcols.h>

#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/pci.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

enum { COL_BDF, COL_VENDOR_ID, COL_DEVICE_ID, COL_VENDOR, COL_DEVICE, COL_TYPE, COL_TEE,
       COL_IDE, COL_DOE, COL_TSMDIR, COL_CONNECTED, COL_DSM, COL_BOUND, COL_AUTH,
       COL_LOCKED, COL_ACCEPTED, COL_DRIVER, COL_ROOT_PORT, COL_HB };

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

static char *empty_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	const struct pci_func *f = item;
	char *s;

	(void)snap;
	switch (col) {
	case COL_BDF: return cell_str(f->bdf);
	case COL_VENDOR_ID: return f->ids_known ? cell_fmt("%04x", f->cfg.vendor_id) : NULL;
	case COL_DEVICE_ID: return f->ids_known ? cell_fmt("%04x", f->cfg.device_id) : NULL;
	case COL_VENDOR: return f->ids_known ? pci_vendor_name(f->cfg.vendor_id) : NULL;
	case COL_DEVICE:
		if (!f->ids_known)
			return NULL;
		s = pci_device_name(f->cfg.vendor_id, f->cfg.device_id);
		return s ? s : cell_fmt("[%04x:%04x]", f->cfg.vendor_id, f->cfg.device_id);
	case COL_TYPE: return cell_str(render_pcie_type(f));
	case COL_TEE:
		return func_cfg_known(f) ? cell_bool(f->cfg.tee_io) :
		       cell_str(f->needs_root || f->cfg_err ? "?" : NULL);
	case COL_IDE:
		s = render_ide_cap_text(f);
		return s ? s : cell_str(f->needs_root ? "needs-root" : f->cfg_err ? "unreadable" : NULL);
	case COL_DOE:
		return strv_join(f->doe_features, f->nr_doe_features, ",");
	case COL_TSMDIR: return cell_bool(f->tsm_dir);
	/* tsm/ there, its files unseen: the link part's cells are unknown, not empty */
	case COL_CONNECTED: return render_attr_cell(f->connect, f->connect_err ?: f->tsm_err);
	case COL_DSM: return render_attr_cell(f->dsm, f->dsm_err ?: f->tsm_err);
	case COL_BOUND: return render_attr_cell(f->bound, f->bound_err ?: f->tsm_err);
	case COL_AUTH: return render_attr_cell(f->authenticated, f->auth_err);
	case COL_LOCKED:
		return f->lock_err ? render_attr_cell(NULL, f->lock_err) : empty_null(func_lock_holder(f));
	case COL_ACCEPTED:
		if (f->accept_err)
			return render_attr_cell(NULL, f->accept_err);
		return func_accepted(f) < 0 ? NULL : cell_bool(func_accepted(f));
	case COL_DRIVER: return cell_str(f->driver);
	case COL_ROOT_PORT: return cell_str(f->root_port ? f->root_port->bdf : NULL);
	case COL_HB: return cell_str(f->hb ? f->hb->name : NULL);
	}
	return NULL;
}

static bool dev_selected(const struct cmd_ctx *ctx, const void *item)
{
	const struct pci_func *f = item;

	return f->listed && filter_match(&ctx->devices, f->bdf) &&
	       filter_match(&ctx->tsms, func_tsm(f)) &&
	       filter_match(&ctx->hbs, f->hb ? f->hb->name : NULL);
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
	char *reason = NULL;

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
	filters_matched_nothing(ctx, "device", reason);
	free(reason);
}

/* Said on stderr, after the view: shown devices that a connect would fail for (the model's judgement). */
static void explain_unconnectable(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];
		char *why;

		if (!dev_selected(ctx, f) || !f->has_connect || func_connected(f))
			continue;
		why = snapshot_connect_blocker(snap, f);
		if (why)
			print_error("tsmctl devices: %s cannot be connected: %s", f->bdf, why);
		free(why);
	}
}

static const void *func_item(const struct tsm_snapshot *snap, size_t i)
{
	return i < snap->nr_funcs ? snap->funcs[i] : NULL;
}

static struct json_object *func_json(const struct tsm_snapshot *snap, const void *item)
{
	(void)snap;
	return render_device_json(item);
}

static void explain_devices(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			    size_t shown)
{
	if (!shown && filters_active(ctx))
		explain_filtered(ctx, snap);
	else if (!shown && snap->pci_devices_err)
		explain_no_devices(snap, "devices");
	else if (!shown && ctx->all)
		print_error("tsmctl devices: no PCIe function shows an IDE capability or DEVCAP.TEE-IO%s",
			    snap->any_needs_root || snap->nr_cfg_unreadable ?
			    " that tsmctl could read (see below)" : "");
	else if (!shown)
		explain_no_devices(snap, "devices");
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
	.json = func_json,
	.explain = explain_devices,
};

static int run_devices(struct cmd_ctx *ctx)
{
	return view_run(ctx, &dev_view, ctx->all ? SCAN_ALL_FUNCS : SCAN_DEVICES);
}

static const struct opt_def dev_options[] = {
	OPT_COMMON_HELP(COMMON_ALL, "every PCIe function with IDE or TEE-IO, with or without tsm/"),
	OPT_COMMON(COMMON_DEVICE), OPT_COMMON(COMMON_TSM),
	OPT_COMMON(COMMON_HOST_BRIDGE), OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_devices = {
	.name = "devices",
	.summary = "list TSM-capable PCI functions",
	.description = "List PCI functions with the tsm/ attribute group (connectable device\n"
		       "security managers and their dependent functions), or with --all every\n"
		       "PCIe function whose config space shows IDE or TEE-IO",
	.opts = dev_options,
	.cols = dev_columns,
	.ncols = ARRAY_SIZE(dev_columns),
	.json_name = "devices",
	.verbose_help = "report links that leave a --sysroot tree, on stderr",
	.run = run_devices,
};
