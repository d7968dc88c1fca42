// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl streams: every streamH.R.E link with both partners' Selective IDE registers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libsmartcols.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

enum { COL_HB, COL_NAME, COL_ID, COL_TSM, COL_EP, COL_EP_STATE, COL_RP, COL_RP_STATE,
       COL_EP_BLOCK, COL_RP_BLOCK, COL_ALG, COL_TC, COL_IDE_FAIL, COL_EP_RID, COL_RP_RID,
       COL_EP_ADDR, COL_RP_ADDR };

static const struct column stream_columns[] = {
	[COL_HB] = { "HOST-BRIDGE", 10, 0, "host bridge holding the stream link" },
	[COL_NAME] = { "NAME", 11, 0, "link name streamH.R.E" },
	[COL_ID] = { "ID", 3, SCOLS_FL_RIGHT, "Stream ID (endpoint control register)" },
	[COL_TSM] = { "TSM", 5, 0, "TSM the endpoint is connected to" },
	[COL_EP] = { "ENDPOINT", 12, 0, "endpoint (E side)" },
	[COL_EP_STATE] = { "EP-STATE", 8, 0, "endpoint Selective block state" },
	[COL_RP] = { "ROOT-PORT", 12, 0, "root port (R side)" },
	[COL_RP_STATE] = { "RP-STATE", 8, 0, "root port Selective block state" },
	[COL_EP_BLOCK] = { "E", 2, SCOLS_FL_RIGHT, "Selective block index in the endpoint" },
	[COL_RP_BLOCK] = { "R", 2, SCOLS_FL_RIGHT, "Selective block index in the root port" },
	[COL_ALG] = { "ALGORITHM", 10, 0, "algorithm (endpoint)" },
	[COL_TC] = { "TC", 2, SCOLS_FL_RIGHT, "traffic class (endpoint)" },
	[COL_IDE_FAIL] = { "IDE-FAIL", 6, 0, "IDE_FAIL bit on either partner" },
	[COL_EP_RID] = { "EP-RID", 11, 0, "endpoint RID association base-limit" },
	[COL_RP_RID] = { "RP-RID", 11, 0, "root port RID association base-limit" },
	[COL_EP_ADDR] = { "EP-ADDR", 20, 0, "endpoint address association ranges" },
	[COL_RP_ADDR] = { "RP-ADDR", 20, 0, "root port address association ranges" },
};

static const int stream_defaults[] = { COL_HB, COL_NAME, COL_ID, COL_TSM, COL_EP, COL_EP_STATE,
				       COL_RP, COL_RP_STATE };
/* -v: the association ranges too */
static const int stream_verbose[] = { COL_EP_RID, COL_RP_RID, COL_EP_ADDR, COL_RP_ADDR };

static char *rid_text(const struct ide_sel_stream *b)
{
	if (!b)
		return NULL;
	return xasprintf("%04x-%04x%s", b->rid_base, b->rid_limit, b->rid_valid ? "" : "(invalid)");
}

static char *addr_text(const struct ide_sel_stream *b)
{
	struct strbuf s = STRBUF_INIT;

	if (!b)
		return NULL;
	for (unsigned int i = 0; i < b->nr_addr; i++)
		if (b->addr[i].valid)
			strbuf_join(&s, ",", "%#llx-%#llx", (unsigned long long)b->addr[i].base,
				    (unsigned long long)b->addr[i].limit);
	return strbuf_take(&s);
}

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	const struct ide_stream *s = item;
	const struct ide_sel_stream *ep = stream_partner_block(s, true);
	const struct ide_sel_stream *rp = stream_partner_block(s, false);

	(void)snap;
	switch (col) {
	case COL_HB: return cell_str(s->hb->name);
	case COL_NAME: return cell_str(s->name);
	case COL_ID: return ep ? cell_fmt("%u", ep->regs.stream_id) : NULL;
	case COL_TSM:
		/* an endpoint whose tsm/connect cannot be read (or used) is not "not connected" */
		if (s->endpoint && (s->endpoint->connect_err || s->endpoint->tsm_err))
			return render_attr_cell(s->endpoint->connect,
						s->endpoint->connect_err ?: s->endpoint->tsm_err);
		return stream_connected_tsm(s) ? cell_str(stream_connected_tsm(s)) : NULL;
	case COL_EP:
		/* a missing endpoint is named; a loop or a non-device target names none */
		return cell_str(s->endpoint ? s->endpoint->bdf : s->target &&
				(!s->link_err || s->link_err == -ENOENT) ? path_base(s->target) : NULL);
	case COL_EP_STATE: return render_partner_state(s, true);
	case COL_RP: return cell_str(s->root_port ? s->root_port->bdf : NULL);
	case COL_RP_STATE: return render_partner_state(s, false);
	case COL_EP_BLOCK: return cell_fmt("%u", s->e);
	case COL_RP_BLOCK: return cell_fmt("%u", s->r);
	case COL_ALG: return ep ? render_algorithm(ep->regs.algorithm) : NULL;
	case COL_TC: return ep ? cell_fmt("%u", ep->regs.tc) : NULL;
	case COL_IDE_FAIL:
		/* a stray link's blocks are its stream's: told on that stream's row */
		if ((!ep && !rp) || !stream_is_real(s))
			return NULL;
		return cell_bool(stream_ide_fail(s));
	case COL_EP_RID: return rid_text(ep);
	case COL_RP_RID: return rid_text(rp);
	case COL_EP_ADDR: return addr_text(ep);
	case COL_RP_ADDR: return addr_text(rp);
	}
	return NULL;
}

/* --state: the stream states asked for, a bit per enum stream_state, OR among them */
static struct stream_param {
	unsigned int states;
} param;

/* --state LIST, checked as it is read: 0 or EXIT_USAGE */
static int parse_states(const struct cmd_def *cmd, const char *arg, void *dest)
{
	unsigned int *states = dest;
	char **v;
	size_t n;
	int rc = option_list(cmd, "--state", arg, &v, &n);

	for (size_t k = 0; !rc && k < n; k++) {
		enum stream_state i = 0;

		/* every word of the model's but unknown, which says no state is known */
		while (i < STREAM_UNKNOWN && !streq(v[k], stream_state_name(i)))
			i++;
		if (i == STREAM_UNKNOWN)
			rc = usage_error(cmd, "invalid --state '%s' (expected secure, insecure, "
					 "ide-fail or dangling)", v[k]);
		else
			*states |= 1u << i;
	}
	if (!rc && !*states)
		rc = usage_error(cmd, "--state needs a value (secure, insecure, ide-fail, dangling)");
	strv_free(v, n);
	return rc;
}

/* The stream's one word is one of the --state states (tsmctl-streams(8), STATE FILTER). */
static bool state_selected(const struct ide_stream *s)
{
	return !param.states || (param.states & (1u << stream_state(s)));
}

static bool stream_selected(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			    const void *item)
{
	const struct ide_stream *s = item;
	bool dev = filter_match(&ctx->devices, s->endpoint ? s->endpoint->bdf : NULL) ||
		   (s->root_port && filter_match(&ctx->devices, s->root_port->bdf));

	(void)snap;
	return dev && filter_match(&ctx->hbs, s->hb->name) &&
	       filter_match(&ctx->tsms, s->endpoint ? s->endpoint->connect : NULL) &&
	       state_selected(s);
}

static const void *stream_item(const struct tsm_snapshot *snap, size_t i)
{
	return i < snap->nr_streams ? snap->streams[i] : NULL;
}

static void explain_streams(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			    size_t shown)
{
	if (!snap->nr_streams) {
		if (!snap->nr_tsms)
			explain_no_tsm(snap, "streams");
		else
			cmd_error("streams", "no IDE stream links on any host bridge: "
				  "no device is connected (see 'tsmctl devices')");
	} else if (!shown && param.states && !filters_active(ctx)) {
		cmd_error("streams", "no stream is in the --state asked for");
	} else if (!shown) {
		filters_matched_nothing(ctx, param.states ? "stream in the --state asked for" :
					"stream", NULL);
	}
	explain_bad_stream_links(snap, "streams");
	explain_needs_root(snap, "streams");
}

static const struct view stream_view = {
	.scan = SCAN_TSMS | SCAN_STREAMS,
	.defaults = stream_defaults,
	.ndefaults = ARRAY_SIZE(stream_defaults),
	.verbose_extra = stream_verbose,
	.nverbose_extra = ARRAY_SIZE(stream_verbose),
	.item = stream_item,
	.selected = stream_selected,
	.cell = cell,
	.json = render_stream_item_json,
	.explain = explain_streams,
};

static int run_streams(struct cmd_ctx *ctx)
{
	return view_run(ctx, &stream_view, 0);
}

static const struct opt_def stream_options[] = {
	OPT_COMMON(COMMON_DEVICE), OPT_COMMON(COMMON_TSM), OPT_COMMON(COMMON_HOST_BRIDGE),
	OPT_CALLBACK(0, "state", &param.states, "LIST",
		     "only streams in these states: secure, insecure, ide-fail, dangling",
		     parse_states),
	OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_streams = {
	.name = "streams",
	.summary = "list IDE streams with both partners' registers",
	.description = "List every streamH.R.E link on every host bridge, matched to its endpoint\n"
		       "and root port, with the Selective IDE registers of both partners decoded\n"
		       "(block E in the endpoint, block R in the root port); -v adds RID and address\n"
		       "association ranges",
	.opts = stream_options,
	.cols = stream_columns,
	.ncols = ARRAY_SIZE(stream_columns),
	.json_name = "streams",
	.verbose_help = "add the RID and address association columns",
	.run = run_streams,
};
