// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl host-bridges: stream pools and links per host bridge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libsmartcols.h>

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

/* "tsm0,tsm1": a pool may serve several TSMs' streams. */
static char *hb_tsm_names(const struct host_bridge *hb)
{
	struct strbuf names = STRBUF_INIT;

	for (size_t i = 0; i < hb->nr_tsms; i++)
		strbuf_join(&names, ",", "%s", hb->tsms[i]->name);
	return strbuf_take(&names);
}

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	const struct host_bridge *hb = item;

	(void)snap;
	switch (col) {
	case COL_NAME: return cell_str(hb->name);
	case COL_DOMAIN: return cell_fmt("%04x", hb->domain);
	case COL_BUS: return cell_fmt("%02x", hb->bus);
	case COL_AVAILABLE:
		/* no file: no pool at all, unlike a full one (0) */
		if (hb->available_err)
			return render_attr_cell(NULL, hb->available_err);
		return hb->available_streams >= 0 ? cell_fmt("%lld", hb->available_streams) :
		       cell_str(hb_no_pool(hb) ? "none" : NULL);
	case COL_NSTREAMS: return cell_fmt("%zu", hb->nr_streams);
	case COL_STREAMS: {
		/* a growing buffer, not one copy per link: a host bridge can hold thousands */
		struct strbuf names = STRBUF_INIT;

		for (size_t i = 0; i < hb->nr_streams; i++)
			strbuf_join(&names, ",", "%s", hb->streams[i]->name);
		return strbuf_take(&names);
	}
	case COL_TSM: return hb_tsm_names(hb);
	}
	return NULL;
}

static struct json_object *hb_json(const struct tsm_snapshot *snap, const void *item)
{
	const struct host_bridge *hb = item;
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *tsms = json_object_new_array(), *errors;

	(void)snap;
	for (size_t i = 0; i < hb->nr_streams; i++)
		json_object_array_add(arr, js_str(hb->streams[i]->name));
	for (size_t i = 0; i < hb->nr_tsms; i++)
		json_object_array_add(tsms, js_str(hb->tsms[i]->name));
	json_object_object_add(o, "name", js_str(hb->name));
	json_object_object_add(o, "domain", js_u64(hb->domain));
	json_object_object_add(o, "bus", js_u64(hb->bus));
	json_object_object_add(o, "available_secure_streams", js_num(hb->available_streams));
	json_object_object_add(o, "streams", arr);
	json_object_object_add(o, "tsms", tsms);
	errors = json_object_new_object();
	render_read_error(errors, "available_secure_streams", hb->available_err);
	json_object_object_add(o, "read_errors", errors);
	return o;
}

static const void *hb_item(const struct tsm_snapshot *snap, size_t i)
{
	return i < snap->nr_hbs ? snap->hbs[i] : NULL;
}

static bool hb_selected(const struct cmd_ctx *ctx, const void *item)
{
	const struct host_bridge *hb = item;

	return filter_match(&ctx->hbs, hb->name) && filter_match_hb_tsms(&ctx->tsms, hb);
}

static void explain_hbs(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, size_t shown)
{
	char *devices;

	explain_read_errors(snap, "host-bridges");
	explain_bad_stream_links(snap, "host-bridges");
	if (!snap->nr_hbs) {
		/* the tree's own place, not the running host's: a --sysroot capture says where it looked */
		devices = sysfs_display_path("sys/devices");
		print_error("tsmctl host-bridges: no PCI host bridge (pciDDDD:BB) found below %s",
			    devices);
		free(devices);
	} else if (!shown)
		filters_matched_nothing(ctx, "host bridge", filter_active(&ctx->tsms) ?
					"no stream of that TSM uses one" : NULL);
}

static const struct view hb_view = {
	.scan = SCAN_TSMS | SCAN_STREAMS,
	.defaults = hb_defaults,
	.ndefaults = ARRAY_SIZE(hb_defaults),
	.item = hb_item,
	.selected = hb_selected,
	.cell = cell,
	.json = hb_json,
	.explain = explain_hbs,
};

static int run_host_bridges(struct cmd_ctx *ctx)
{
	return view_run(ctx, &hb_view, 0);
}

static const struct opt_def hb_options[] = {
	OPT_COMMON(COMMON_TSM), OPT_COMMON(COMMON_HOST_BRIDGE), OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_host_bridges = {
	.name = "host-bridges",
	.summary = "list host bridges with their IDE stream pools",
	.description = "List PCI host bridges with available_secure_streams, the stream links\n"
		       "they hold and the TSM using them",
	.opts = hb_options,
	.cols = hb_columns,
	.ncols = ARRAY_SIZE(hb_columns),
	.json_name = "host_bridges",
	.verbose_help = "report links that leave a --sysroot tree, on stderr",
	.run = run_host_bridges,
};
