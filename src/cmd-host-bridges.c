// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl host-bridges: stream pools and links per host bridge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libsmartcols.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

enum { COL_NAME, COL_DOMAIN, COL_BUS, COL_AVAILABLE, COL_NSTREAMS, COL_STREAMS, COL_TSM };

static const struct column hb_columns[] = {
	[COL_NAME] = { "NAME", 10, 0, "host bridge device name" },
	[COL_DOMAIN] = { "DOMAIN", 4, 0, "PCI domain" },
	[COL_BUS] = { "BUS", 2, 0, "root bus" },
	[COL_AVAILABLE] = { "AVAILABLE", 3, SCOLS_FL_RIGHT, "available_secure_streams" },
	[COL_NSTREAMS] = { "NSTREAMS", 3, SCOLS_FL_RIGHT, "stream links in use" },
	[COL_STREAMS] = { "STREAMS", 20, 0, "stream link names" },
	[COL_TSM] = { "TSM", 5, 0, "TSMs whose streams use this host bridge" },
};

static const int hb_defaults[] = { COL_NAME, COL_AVAILABLE, COL_NSTREAMS, COL_STREAMS, COL_TSM };

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	const struct host_bridge *hb = item;

	(void)snap;
	switch (col) {
	case COL_NAME: return cell_str(hb->name);
	case COL_DOMAIN: return cell_fmt("%04x", hb->domain);
	case COL_BUS: return cell_fmt("%02x", hb->bus);
	case COL_AVAILABLE: return render_pool_cell(hb);
	case COL_NSTREAMS: return cell_fmt("%zu", hb->nr_streams);
	case COL_STREAMS: {
		/* a growing buffer, not one copy per link: a host bridge can hold thousands */
		struct strbuf names = STRBUF_INIT;

		for (size_t i = 0; i < hb->nr_streams; i++)
			strbuf_join(&names, ",", "%s", hb->streams[i]->name);
		return strbuf_take(&names);
	}
	case COL_TSM: return render_hb_tsms(hb);
	}
	return NULL;
}

static const void *hb_item(const struct tsm_snapshot *snap, size_t i)
{
	return i < snap->nr_hbs ? snap->hbs[i] : NULL;
}

/* host-bridges' own options */
static struct hb_param {
	bool exhausted;
} param;

/* -d: the host bridges of the functions it names (prepare_hbs()), one slot for each of the tree's */
static struct {
	const struct host_bridge **v;
	size_t n;
} named;

static void prepare_hbs(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap)
{
	free(named.v);
	named.v = xcalloc(snap->nr_hbs + 1, sizeof(*named.v));
	named.n = 0;
	for (size_t i = 0; i < ctx->devices.n; i++)
		snapshot_device_hbs(snap, ctx->devices.v[i], named.v, &named.n);
}

static bool hb_named(const struct host_bridge *hb)
{
	for (size_t i = 0; i < named.n; i++)
		if (named.v[i] == hb)
			return true;
	return false;
}

static bool hb_selected(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, const void *item)
{
	const struct host_bridge *hb = item;

	(void)snap;
	return filter_match(&ctx->hbs, hb->name) && filter_match_hb_tsms(&ctx->tsms, hb) &&
	       (!filter_active(&ctx->devices) || hb_named(hb)) &&
	       (!param.exhausted || hb_exhausted(hb));
}

static void explain_hbs(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, size_t shown)
{
	char *devices;

	explain_read_errors(snap, "host-bridges");
	explain_bad_stream_links(snap, "host-bridges");
	if (!snap->nr_hbs) {
		/* the tree's own place, not the running host's: a --sysroot capture says where it looked */
		devices = sysfs_display_path(SYS_DEVICES);
		cmd_error("host-bridges", "no PCI host bridge (pciDDDD:BB) found below %s", devices);
		free(devices);
	} else if (!shown && filter_active(&ctx->devices) && !named.n) {
		filters_matched_nothing(ctx, "host bridge", "no PCI host bridge holds that device");
	} else if (!shown && param.exhausted) {
		cmd_error("host-bridges", "no host bridge%s has an exhausted pool "
			  "(available_secure_streams 0)", filters_active(ctx) ? " that matches" : "");
	} else if (!shown) {
		filters_matched_nothing(ctx, "host bridge", filter_active(&ctx->tsms) ?
					"no stream of that TSM uses one" : NULL);
	}
	free(named.v);
	named.v = NULL;
	named.n = 0;
}

static const struct view hb_view = {
	.scan = SCAN_TSMS | SCAN_STREAMS,
	.defaults = hb_defaults,
	.ndefaults = ARRAY_SIZE(hb_defaults),
	.item = hb_item,
	.prepare = prepare_hbs,
	.selected = hb_selected,
	.cell = cell,
	.json = render_hb_item_json,
	.explain = explain_hbs,
};

static int run_host_bridges(struct cmd_ctx *ctx)
{
	return view_run(ctx, &hb_view, 0);
}

static const struct opt_def hb_options[] = {
	OPT_COMMON(COMMON_DEVICE), OPT_COMMON(COMMON_TSM), OPT_COMMON(COMMON_HOST_BRIDGE),
	OPT_BOOLEAN(0, "exhausted", &param.exhausted,
		    "only host bridges whose pool is used up (available_secure_streams 0)"),
	OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_host_bridges = {
	.name = "host-bridges",
	.summary = "list host bridges with their IDE stream pools",
	.description = "List PCI host bridges with available_secure_streams, the stream links\n"
		       "they hold and the TSMs using them; -d names the host bridge of a device",
	.opts = hb_options,
	.cols = hb_columns,
	.ncols = ARRAY_SIZE(hb_columns),
	.json_name = "host_bridges",
	.verbose_help = "report links that leave a --sysroot tree, on stderr",
	.run = run_host_bridges,
};
