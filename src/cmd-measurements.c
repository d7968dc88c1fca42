// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl measurements: a guest's measurement registers (tsm-mr, ABI.md §7.1). */
#include <stdlib.h>

#include <libsmartcols.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

enum { COL_NAME, COL_FILE, COL_DEVICE, COL_HASH, COL_SIZE, COL_EXTEND, COL_VALUE };

static const struct column mr_columns[] = {
	[COL_NAME] = { "NAME", 8, 0, "register name" },
	[COL_FILE] = { "FILE", 12, 0, "the attribute in measurements/ (NAME:HASH)" },
	[COL_DEVICE] = { "DEVICE", 9, 0, "misc device of the guest driver (tdx_guest)" },
	[COL_HASH] = { "HASH", 6, 0, "hash algorithm the register extends with" },
	[COL_SIZE] = { "SIZE", 3, SCOLS_FL_RIGHT, "bytes" },
	[COL_EXTEND] = { "EXTEND", 3, 0, "root may extend it (RTMR, mode 0644)" },
	[COL_VALUE] = { "VALUE", 96, 0, "current value, hex" },
};

static const int mr_defaults[] = { COL_NAME, COL_HASH, COL_EXTEND, COL_VALUE };

/* The registers named as arguments, and whether any named nothing. */
static struct mr_param {
	char **names;
	int nr_names;
	bool missing;
} param;

/* Register I over every group, in the snapshot's order; *G its group. */
static const struct measurement_register *reg_at(const struct tsm_snapshot *snap, size_t i,
						 const struct measurements **g)
{
	for (size_t k = 0; k < snap->nr_mr_groups; k++) {
		if (i < snap->mr_groups[k].nr_regs) {
			*g = &snap->mr_groups[k];
			return &snap->mr_groups[k].regs[i];
		}
		i -= snap->mr_groups[k].nr_regs;
	}
	return NULL;
}

static const struct measurements *group_of(const struct tsm_snapshot *snap,
					   const struct measurement_register *r)
{
	for (size_t k = 0; k < snap->nr_mr_groups; k++)
		if (r >= snap->mr_groups[k].regs &&
		    r < snap->mr_groups[k].regs + snap->mr_groups[k].nr_regs)
			return &snap->mr_groups[k];
	return NULL;
}

static const void *mr_item(const struct tsm_snapshot *snap, size_t i)
{
	const struct measurements *g;

	return reg_at(snap, i, &g);
}

static bool mr_selected(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			const void *item)
{
	const struct measurement_register *r = item;

	(void)ctx;
	(void)snap;
	for (int i = 0; i < param.nr_names; i++)
		if (streq(param.names[i], r->name) || streq(param.names[i], r->file))
			return true;
	return !param.nr_names;
}

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	const struct measurement_register *r = item;

	switch (col) {
	case COL_NAME: return cell_str(r->name);
	case COL_FILE: return cell_str(r->file);
	case COL_DEVICE: return cell_str(group_of(snap, r)->device);
	case COL_HASH: return cell_str(r->hash);
	case COL_SIZE: return r->value ? cell_fmt("%zu", r->len) : NULL;
	case COL_EXTEND: return cell_bool(r->mode & 0200);
	case COL_VALUE:
		return r->value ? render_hex(r->value, r->len) : render_attr_cell(NULL, r->err);
	}
	return NULL;
}

static struct json_object *mr_json(const struct tsm_snapshot *snap, const void *item)
{
	return render_mr_json(group_of(snap, item), item);
}

static void explain_mrs(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, size_t shown)
{
	(void)ctx;
	for (int i = 0; i < param.nr_names; i++)
		if (!snapshot_find_mr(snap, param.names[i], NULL)) {
			cmd_error("measurements", "no measurement register '%s'%s", param.names[i],
				  snap->nr_mr_groups ? " (tsmctl measurements lists them)" : "");
			param.missing = true;
		}
	if (!snap->nr_mr_groups)
		cmd_error("measurements", "no measurement registers: no misc device in %s has a "
			  "measurements/ group (tsm-mr, Linux 6.16 or later); inside a TDX guest the "
			  "tdx_guest module shows them (%s); an SEV-SNP guest has none in sysfs, its "
			  "launch measurement is in the attestation report (tsmctl report)",
			  "/sys/class/misc", sysfs_attr_exists("sys/module", "tdx_guest") ?
			  "it is loaded, but shows none" : "it is not loaded");
	for (size_t g = 0; g < snap->nr_mr_groups; g++)
		if (snap->mr_groups[g].err)
			cmd_error("measurements", "%s's measurements/ cannot be listed (%s)",
				  snap->mr_groups[g].device,
				  render_read_error_word(snap->mr_groups[g].err));
	(void)shown;
}

static const struct view mr_view = {
	.scan = SCAN_MEASUREMENTS,
	.defaults = mr_defaults,
	.ndefaults = ARRAY_SIZE(mr_defaults),
	.item = mr_item,
	.selected = mr_selected,
	.cell = cell,
	.json = mr_json,
	.explain = explain_mrs,
};

static int run_measurements(struct cmd_ctx *ctx)
{
	int rc;

	/* REGISTER... selects as the names they are: rtmr2 or rtmr2:sha384 */
	param.names = ctx->args;
	param.nr_names = ctx->list_columns ? 0 : ctx->nargs;
	if (!ctx->list_columns)
		ctx->nargs = 0;
	rc = view_run(ctx, &mr_view, 0);
	return rc ? rc : param.missing ? EXIT_FAIL : EXIT_OK;
}

static const struct opt_def mr_options[] = { OPT_VIEW_OUTPUT(), OPT_END() };

const struct cmd_def cmd_measurements = {
	.name = "measurements",
	.args = "[REGISTER...]",
	.summary = "show a guest's measurement registers (MRTD, RTMRs)",
	.description = "Show the measurement registers a confidential guest's driver exposes in\n"
		       "/sys/class/misc/*/measurements (tsm-mr: tdx_guest's MRTD, MRCONFIGID,\n"
		       "MROWNER, MROWNERCONFIG and RTMR0-3). REGISTER... selects by name (rtmr2)\n"
		       "or file name (rtmr2:sha384)",
	.opts = mr_options,
	.cols = mr_columns,
	.ncols = ARRAY_SIZE(mr_columns),
	.json_name = "measurements",
	.run = run_measurements,
};
