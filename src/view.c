// SPDX-License-Identifier: GPL-2.0-or-later
/* One way to run a view: -H, columns, scan, filters, rows, explanations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/cli.h"
#include "tsmctl/output.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

bool filter_match_hb_tsms(const struct filter *f, const struct host_bridge *hb)
{
	if (!filter_active(f))
		return true;
	for (size_t i = 0; hb && i < hb->nr_tsms; i++)
		if (filter_match(f, hb->tsms[i]->name))
			return true;
	return false;
}

/* EXIT_OK after -H, EXIT_USAGE for an argument or a bad -o. */
bool view_columns(struct cmd_ctx *ctx, const struct view *v, int *status)
{
	const struct cmd_def *cmd = ctx->cmd;
	int defaults[OUTPUT_MAX_COLUMNS];
	size_t n = v->ndefaults;
	char *why = NULL;

	if (ctx->list_columns) {
		if (ctx->out.json)
			columns_print_json(stdout, cmd->cols, cmd->ncols);
		else
			columns_print_help(stdout, cmd->cols, cmd->ncols);
		*status = EXIT_OK;
		return false;
	}
	if (ctx->nargs) {
		*status = extra_operand(cmd, ctx->args[0]);
		return false;
	}
	/* the views' column lists are static: more than fit is a bug in the table, not input */
	if (n + v->nverbose_extra > OUTPUT_MAX_COLUMNS) {
		cmd_error(cmd->name, "internal error: %zu default columns", n + v->nverbose_extra);
		abort();
	}
	memcpy(defaults, v->defaults, n * sizeof(*defaults));
	if (ctx->verbose && v->verbose_extra) {
		memcpy(defaults + n, v->verbose_extra, v->nverbose_extra * sizeof(*defaults));
		n += v->nverbose_extra;
	}
	if (!columns_select(&ctx->out, cmd->cols, cmd->ncols, defaults, n, ctx->output_arg,
			    ctx->output_all, &why))
		return true;
	*status = usage_error(cmd, "--output: %s", why);
	free(why);
	return false;
}

/* Defaults that follow the tree replace the static ones, unless -o named fixed columns. */
static void view_tree_defaults(struct cmd_ctx *ctx, const struct view *v,
			       const struct tsm_snapshot *snap)
{
	const int *defaults;
	size_t n;

	if (!v->tree_defaults)
		return;
	defaults = v->tree_defaults(snap, &n);
	/* the same -o argument passed view_columns() already */
	if (!defaults || ctx->output_all || (ctx->output_arg && *ctx->output_arg != '+'))
		return;
	columns_select(&ctx->out, ctx->cmd->cols, ctx->cmd->ncols, defaults, n, ctx->output_arg,
		       false, NULL);
}

int view_run(struct cmd_ctx *ctx, const struct view *v, unsigned int scan)
{
	struct tsm_snapshot snap;
	struct json_list w;
	struct table *tb = NULL;
	const void *item;
	size_t shown = 0;
	int rc;

	if (!view_columns(ctx, v, &rc))
		return rc;
	snapshot_scan(&snap, v->scan | scan);
	/* a filter naming nothing in the tree ends the view (EXIT_FAIL) */
	rc = filters_check(ctx, &snap);
	if (rc) {
		snapshot_free(&snap);
		return rc;
	}
	view_tree_defaults(ctx, v, &snap);
	if (v->prepare)
		v->prepare(ctx, &snap);
	if (ctx->out.json)
		json_list_begin(&w, stdout, ctx->cmd->json_name);
	else if (!v->text)
		tb = table_new(&ctx->out, ctx->cmd->cols);
	for (size_t i = 0; (item = v->item(&snap, i)); i++) {
		char *values[OUTPUT_MAX_COLUMNS];

		if (v->selected && !v->selected(ctx, &snap, item))
			continue;
		shown++;
		if (ctx->out.json) {
			json_list_item(&w, v->json(&snap, item));
			continue;
		}
		if (v->text) {
			v->text(&snap, item);
			continue;
		}
		for (size_t c = 0; c < ctx->out.ncols; c++)
			values[c] = v->cell(&snap, item, ctx->out.cols[c]);
		table_add_row(tb, values);
	}
	if (ctx->out.json)
		json_list_end(&w);
	else if (tb)
		table_print_free(tb);
	if (v->explain)
		v->explain(ctx, &snap, shown);
	snapshot_free(&snap);
	return EXIT_OK;
}
