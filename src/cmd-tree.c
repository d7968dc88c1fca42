// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl tree: the PCI hierarchy below each host bridge, drawn as lsblk
 * draws its tree, with what matters on every node: a host bridge's pool and
 * TSMs, each port's IDE capability and the Selective blocks enabled in it,
 * each function's TSM and state, dependents and VFs under their DSM, and
 * every stream along the path it protects, its two partners marked.
 */
#include <errno.h>
#include <locale.h>
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

enum { COL_NAME, COL_TYPE, COL_VENDOR, COL_DEVICE, COL_TEE, COL_IDE, COL_DOE, COL_POOL, COL_TSM,
       COL_STATE, COL_STREAMS, COL_DSM, COL_BOUND, COL_DRIVER, COL_RELATION };

static const struct column tree_columns[] = {
	[COL_NAME] = { "NAME", 16, SCOLS_FL_TREE, "host bridge, or PCI address below it (the tree)" },
	[COL_TYPE] = { "TYPE", 10, 0, "host-bridge, or the PCIe device/port type" },
	[COL_VENDOR] = { "VENDOR", 0.2, SCOLS_FL_TRUNC, "vendor name (pci.ids)" },
	[COL_DEVICE] = { "DEVICE", 0.3, SCOLS_FL_TRUNC, "device name (pci.ids)" },
	[COL_TEE] = { "TEE", 3, 0, "DEVCAP TEE-IO supported" },
	[COL_IDE] = { "IDE", 10, 0, "IDE capability: link TCs, selective streams" },
	[COL_DOE] = { "DOE", 10, 0, "DOE features (VVVV:TT)" },
	[COL_POOL] = { "POOL", 4, SCOLS_FL_RIGHT,
		       "host bridge: available_secure_streams (none: no pool)" },
	[COL_TSM] = { "TSM", 5, 0,
		      "host bridge: the TSMs using it; function: its TSM, or the TSMs it provides" },
	[COL_STATE] = { "STATE", 10, 0,
			"connected, not-connected, dependent, locked, accepted, ..., provider" },
	[COL_STREAMS] = { "STREAMS", 20, 0,
			  "streams along the node (E/R block as endpoint/root port, via) and "
			  "enabled Selective blocks without a link" },
	[COL_DSM] = { "DSM", 12, 0, "device security manager of this function (tsm/dsm)" },
	[COL_BOUND] = { "BOUND", 6, 0, "TSM the function is bound to as a TDI" },
	[COL_DRIVER] = { "DRIVER", 8, 0, "bound kernel driver" },
	[COL_RELATION] = { "RELATION", 9, 0,
			   "dependent or vf: hung under its DSM; empty: below its bridge" },
};

static const int tree_defaults[] = { COL_NAME, COL_TYPE, COL_IDE, COL_POOL, COL_TSM, COL_STATE,
				     COL_STREAMS };

/* The function cells tree shares with devices (render_func_cell()); -1: tree's own. */
static const int func_cells[] = {
	[COL_NAME] = FC_BDF, [COL_TYPE] = FC_TYPE, [COL_VENDOR] = FC_VENDOR,
	[COL_DEVICE] = FC_DEVICE, [COL_TEE] = FC_TEE, [COL_IDE] = FC_IDE, [COL_DOE] = FC_DOE,
	[COL_POOL] = -1, [COL_TSM] = -1, [COL_STATE] = -1, [COL_STREAMS] = -1,
	[COL_DSM] = FC_DSM, [COL_BOUND] = FC_BOUND, [COL_DRIVER] = FC_DRIVER, [COL_RELATION] = -1,
};

struct node {
	const struct host_bridge *hb;	/* a host bridge, or */
	const struct pci_func *f;	/* a function */
	struct node *up;		/* where it hangs; NULL: a root */
	const char *relation;		/* "dependent", "vf"; NULL: below its bridge or host bridge */
	struct node **kids;
	size_t nkids;
	bool in;			/* in the tree, before the filters */
	bool shown;			/* passes them, or leads to a node that does */
	char *provides;			/* the TSMs it provides (func_provided_tsms()), NULL: none */
	struct json_object *jprovides;	/* its "provides" */
	struct strbuf streams;		/* the STREAMS cell */
	struct json_object *jstreams;	/* its "streams" */
	struct json_object *jblocks;	/* its "selective_blocks" (null: unknown, or a host bridge) */
};

struct tree {
	const struct tsm_snapshot *snap;
	struct node *hbs;	/* one per snap->hbs[i] */
	struct node *funcs;	/* one per snap->funcs[i] */
	struct node **roots;
	size_t nroots;
};

static struct node *func_node(const struct tree *t, const struct pci_func *f)
{
	struct pci_func *const *p = f ? bsearch(&f, t->snap->funcs, t->snap->nr_funcs,
						sizeof(*t->snap->funcs), func_cmp) : NULL;

	return p ? &t->funcs[p - t->snap->funcs] : NULL;
}

/* By identity, not bsearch: host bridges found through links or functions follow the sorted ones. */
static struct node *hb_node(const struct tree *t, const struct host_bridge *hb)
{
	for (size_t i = 0; hb && i < t->snap->nr_hbs; i++)
		if (t->snap->hbs[i] == hb)
			return &t->hbs[i];
	return NULL;
}

/* Where a function hangs by the bus alone: its bridge, else its host bridge. */
static struct node *bus_up(const struct tree *t, const struct pci_func *f)
{
	return f->parent ? func_node(t, f->parent) : hb_node(t, f->hb);
}

/* Dependents and VFs hang under their DSM when it is beside them (not a switch port above). */
static void place(struct tree *t, struct node *n)
{
	const struct pci_func *d = func_dsm_of(t->snap, n->f);

	if (d && !func_is_ancestor(d, n->f) && func_node(t, d)) {
		n->up = func_node(t, d);
		n->relation = n->f->physfn ? "vf" : "dependent";
	} else {
		n->up = bus_up(t, n->f);
		n->relation = NULL;
	}
}

/* A tree the kernel never makes (tsm/dsm naming each other) must not loop: such a node hangs by the bus. */
static void break_cycles(struct tree *t)
{
	size_t limit = t->snap->nr_funcs + t->snap->nr_hbs + 1;
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = 0; i < t->snap->nr_funcs; i++) {
			struct node *n = &t->funcs[i], *p = n->up;

			for (size_t k = 0; p && p != n && k < limit; k++)
				p = p->up;
			if (p == n) {
				n->up = bus_up(t, n->f);
				n->relation = NULL;
				changed = true;
			}
		}
	}
}

/* A port whose IDE capability the scan read (SCAN_IDE_PORTS): it can hold streams. */
static bool ide_port(const struct pci_func *f)
{
	int type = f->cfg.pcie_type;

	return func_cfg_known(f) && f->cfg.ide.present &&
	       (type == PCIE_TYPE_ROOT_PORT || type == PCIE_TYPE_UPSTREAM ||
		type == PCIE_TYPE_DOWNSTREAM);
}

static void add_kid(struct node *up, struct node *n)
{
	up->kids = xrealloc(up->kids, (up->nkids + 1) * sizeof(*up->kids));
	up->kids[up->nkids++] = n;
}

/* ---- streams along their paths ---- */

static void mark(struct node *n, const struct ide_stream *s, const char *role, const char *word,
		 bool endpoint)
{
	struct json_object *o = json_object_new_object();
	char *summary = NULL;
	bool partner = streq(role, "endpoint") || streq(role, "root_port");

	if (partner || streq(role, "host_bridge"))
		summary = render_partner_state(s, endpoint);
	if (partner)
		strbuf_join(&n->streams, ", ", "%s %s%u %s", s->name, word, endpoint ? s->e : s->r,
			    summary);
	else
		strbuf_join(&n->streams, ", ", "%s %s", s->name, summary ? summary : word);
	json_object_object_add(o, "name", js_str(s->name));
	json_object_object_add(o, "host_bridge", js_str(s->hb->name));
	json_object_object_add(o, "role", js_str(role));
	json_object_object_add(o, "block", partner ? js_u64(endpoint ? s->e : s->r) : NULL);
	json_object_object_add(o, "summary", js_str(summary));
	json_object_array_add(n->jstreams, o);
	free(summary);
}

/* A stream on its path: endpoint (block E), the switch ports it passes, root port (block R). */
static void mark_stream(struct tree *t, const struct ide_stream *s)
{
	struct node *n;

	if (stream_dangling(s) || !s->endpoint) {
		if ((n = hb_node(t, s->hb)))
			mark(n, s, "host_bridge", NULL, true);
		return;
	}
	if ((n = func_node(t, s->endpoint)) && n->in)
		mark(n, s, "endpoint", "E", true);
	for (const struct pci_func *p = s->endpoint->parent; p && p != s->root_port; p = p->parent)
		if ((n = func_node(t, p)) && n->in)
			mark(n, s, "switch", "via", false);
	if ((n = func_node(t, s->root_port)) && n->in)
		mark(n, s, "root_port", "R", false);
}

/* The stream whose partner block K of F is, if any. */
static const struct ide_stream *block_stream(const struct tsm_snapshot *snap,
					     const struct pci_func *f, unsigned int k)
{
	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];

		if (stream_is_real(s) && ((s->endpoint == f && s->e == k) ||
					  (s->root_port == f && s->r == k)))
			return s;
	}
	return NULL;
}

/* The Selective blocks enabled in F; those no stream link names are said in its cell too. */
static void mark_blocks(const struct tree *t, struct node *n)
{
	const struct ide_cap *ide = &n->f->cfg.ide;

	if (!func_cfg_known(n->f) || !ide->present)
		return;
	n->jblocks = json_object_new_array();
	for (unsigned int k = 0; k < ide->nr_sel; k++) {
		const struct ide_sel_stream *b = ide_sel_block(ide, k);
		const struct ide_stream *s;
		struct json_object *o;
		char *state;

		if (!b || !b->regs.enabled)
			continue;
		s = block_stream(t->snap, n->f, k);
		state = render_state(b);
		if (!s)
			strbuf_join(&n->streams, ", ", "block%u ID%u %s%s (no link)", k,
				    b->regs.stream_id, state, b->regs.ide_fail ? "+ide-fail" : "");
		o = json_object_new_object();
		json_object_object_add(o, "block", js_u64(k));
		json_object_object_add(o, "stream_id", js_u64(b->regs.stream_id));
		json_object_object_add(o, "state", js_str(state));
		json_object_object_add(o, "ide_fail", js_bool(b->regs.ide_fail));
		json_object_object_add(o, "stream", js_str(s ? s->name : NULL));
		json_object_array_add(n->jblocks, o);
		free(state);
	}
}

/* ---- building ---- */

/* The TSMs N's function provides, as its cell and its "provides". */
static void mark_provider(const struct tsm_snapshot *snap, struct node *n)
{
	const char **names = xcalloc(snap->nr_tsms + 1, sizeof(*names));
	struct strbuf text = STRBUF_INIT;
	size_t k = func_provided_tsms(snap, n->f, names);

	n->jprovides = json_object_new_array();
	for (size_t i = 0; i < k; i++) {
		strbuf_join(&text, ",", "%s", names[i]);
		json_object_array_add(n->jprovides, js_str(names[i]));
	}
	n->provides = k ? strbuf_take(&text) : NULL;
	free(names);
}

/* ALL (--all): every function the kernel lists, as lspci -t draws them; else the TSM's view. */
static void tree_build(struct tree *t, const struct tsm_snapshot *snap, bool all)
{
	size_t limit = snap->nr_funcs + snap->nr_hbs + 1;

	t->snap = snap;
	t->hbs = xcalloc(snap->nr_hbs + 1, sizeof(*t->hbs));
	t->funcs = xcalloc(snap->nr_funcs + 1, sizeof(*t->funcs));
	t->roots = xcalloc(snap->nr_hbs + snap->nr_funcs + 1, sizeof(*t->roots));
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		t->hbs[i] = (struct node){ .hb = snap->hbs[i], .in = true };
		t->hbs[i].jstreams = json_object_new_array();
		t->roots[t->nroots++] = &t->hbs[i];
	}
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];

		t->funcs[i] = (struct node){ .f = f };
		t->funcs[i].jstreams = json_object_new_array();
		/* a dangling link's target is in the snapshot too, but no function the kernel lists */
		t->funcs[i].in = (all && f->bus_listed) || f->listed || ide_port(f);
	}
	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];

		if (!s->dangling && func_node(t, s->endpoint))
			func_node(t, s->endpoint)->in = true;
		if (!s->dangling && func_node(t, s->root_port))
			func_node(t, s->root_port)->in = true;
	}
	for (size_t i = 0; i < snap->nr_funcs; i++)
		place(t, &t->funcs[i]);
	break_cycles(t);
	/* what a node hangs under is in the tree too */
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		struct node *p = t->funcs[i].in ? t->funcs[i].up : NULL;

		for (size_t k = 0; p && k < limit; k++, p = p->up)
			p->in = true;
	}
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		struct node *n = &t->funcs[i];

		if (!n->in)
			continue;
		if (n->up)
			add_kid(n->up, n);
		else
			t->roots[t->nroots++] = n;	/* below no host bridge the tree knows */
		mark_blocks(t, n);
		mark_provider(snap, n);
	}
	for (size_t i = 0; i < snap->nr_streams; i++)
		mark_stream(t, snap->streams[i]);
}

static void tree_free(struct tree *t)
{
	struct node *all[] = { t->hbs, t->funcs };
	size_t counts[] = { t->snap->nr_hbs, t->snap->nr_funcs };

	for (size_t a = 0; a < ARRAY_SIZE(all); a++)
		for (size_t i = 0; i < counts[a]; i++) {
			free(all[a][i].kids);
			free(all[a][i].provides);
			json_object_put(all[a][i].jprovides);
			strbuf_release(&all[a][i].streams);
			json_object_put(all[a][i].jstreams);
			json_object_put(all[a][i].jblocks);
		}
	free(t->hbs);
	free(t->funcs);
	free(t->roots);
}

/* ---- filters: a node passes them, and the path to one that does is kept ---- */

/* -d keeps a node that is, or hangs below, a function it names; -b and -t as elsewhere. */
static bool node_passes(const struct cmd_ctx *ctx, const struct node *n, bool below_d)
{
	if (n->hb)
		return !filter_active(&ctx->devices) && filter_match(&ctx->hbs, n->hb->name) &&
		       filter_match_hb_tsms(&ctx->tsms, n->hb);
	return (!filter_active(&ctx->devices) || below_d) &&
	       filter_match(&ctx->hbs, n->f->hb ? n->f->hb->name : NULL) &&
	       filter_match(&ctx->tsms, func_tsm(n->f));
}

static bool select_nodes(const struct cmd_ctx *ctx, struct node *n, bool below_d)
{
	bool d = below_d || (n->f && filter_active(&ctx->devices) &&
			     filter_match(&ctx->devices, n->f->bdf));

	n->shown = node_passes(ctx, n, d);
	for (size_t i = 0; i < n->nkids; i++)
		n->shown |= select_nodes(ctx, n->kids[i], d);
	return n->shown;
}

/* ---- output ---- */

static char *node_cell(const struct node *n, int col)
{
	char *s;

	if (n->f && func_cells[col] >= 0)
		return render_func_cell(n->f, (enum func_cell)func_cells[col]);
	switch (col) {
	case COL_NAME: return n->hb ? cell_str(n->hb->name) : NULL;
	case COL_TYPE: return n->hb ? cell_str("host-bridge") : NULL;
	case COL_POOL: return n->hb ? render_pool_cell(n->hb) : NULL;
	case COL_TSM:
		if (n->hb)
			return render_hb_tsms(n->hb);
		/* a TSM's own function (the PSP) names the TSM it provides */
		return cell_str(func_tsm(n->f) ? func_tsm(n->f) : n->provides);
	case COL_STATE:
		if (n->hb)
			return NULL;
		s = render_func_cell(n->f, FC_STATE);
		if (s && !*s && n->provides) {
			free(s);
			return xstrdup("provider");
		}
		return s;
	case COL_STREAMS: return n->streams.len ? xstrdup(n->streams.s) : NULL;
	case COL_RELATION: return cell_str(n->relation);
	}
	return NULL;
}

static void add_rows(const struct cmd_ctx *ctx, struct table *tb, const struct node *n,
		     struct table_row *up)
{
	char *values[OUTPUT_MAX_COLUMNS];
	struct table_row *row;

	if (!n->shown)
		return;
	for (size_t c = 0; c < ctx->out.ncols; c++)
		values[c] = node_cell(n, ctx->out.cols[c]);
	row = table_add_child_row(tb, up, values);
	for (size_t i = 0; i < n->nkids; i++)
		add_rows(ctx, tb, n->kids[i], row);
}

static struct json_object *node_json(const struct node *n)
{
	struct json_object *o = json_object_new_object(), *kids = json_object_new_array();

	for (size_t i = 0; i < n->nkids; i++)
		if (n->kids[i]->shown)
			json_object_array_add(kids, node_json(n->kids[i]));
	json_object_object_add(o, "name", js_str(n->hb ? n->hb->name : n->f->bdf));
	json_object_object_add(o, "kind", js_str(n->hb ? "host_bridge" : "function"));
	json_object_object_add(o, "relation", js_str(n->relation));
	json_object_object_add(o, "host_bridge", n->hb ? render_hb_json(n->hb) : NULL);
	json_object_object_add(o, "device", n->f ? render_device_json(n->f, NULL) : NULL);
	json_object_object_add(o, "streams", json_object_get(n->jstreams));
	json_object_object_add(o, "selective_blocks", json_object_get(n->jblocks));
	json_object_object_add(o, "provides", n->jprovides ? json_object_get(n->jprovides) :
				json_object_new_array());
	json_object_object_add(o, "children", kids);
	return o;
}

/* ---- explanations ---- */

/* The first -d function that exists but is not in the tree, and why. */
static char *not_in_tree(const struct cmd_ctx *ctx, const struct tree *t)
{
	for (size_t i = 0; i < ctx->devices.n; i++) {
		const struct node *n = func_node(t, snapshot_find_func(t->snap, ctx->devices.v[i]));

		if ((n && n->in) || strchr(ctx->devices.v[i], '*'))
			continue;
		return xasprintf("%s is not in the tree: it has no tsm/ group and is neither an IDE "
				 "port nor a stream partner ('tsmctl tree --all' shows every function)",
				 ctx->devices.v[i]);
	}
	return NULL;
}

static void explain_tree(const struct cmd_ctx *ctx, const struct tree *t, size_t shown)
{
	const struct tsm_snapshot *snap = t->snap;
	bool any_func = false;
	char *where, *why;

	for (size_t i = 0; i < snap->nr_funcs && !any_func; i++)
		any_func = t->funcs[i].in;
	if (!snap->nr_hbs && !any_func) {
		where = sysfs_display_path(SYS_DEVICES);
		cmd_error("tree", "no PCI host bridge (pciDDDD:BB) found below %s", where);
		free(where);
	} else if (!shown) {
		why = not_in_tree(ctx, t);
		filters_matched_nothing(ctx, "host bridge or function", why);
		free(why);
	} else if (!any_func && !ctx->all) {
		explain_no_devices(snap, "tree");
	}
	explain_bad_tsms(snap, "tree");
	explain_read_errors(snap, "tree");
	explain_bad_stream_links(snap, "tree");
	explain_needs_root(snap, "tree");
}

/* ---- the command ---- */

static const struct view tree_view = {
	.defaults = tree_defaults,
	.ndefaults = ARRAY_SIZE(tree_defaults),
};

static int run_tree(struct cmd_ctx *ctx)
{
	struct tsm_snapshot snap;
	struct tree t = { 0 };
	size_t shown = 0;
	int rc;

	if (!view_columns(ctx, &tree_view, &rc))
		return rc;
	snapshot_scan(&snap, SCAN_TSMS | SCAN_STREAMS | SCAN_IDE_PORTS | SCAN_TREE |
		      (ctx->all ? SCAN_ALL_FUNCS : SCAN_DEVICES));
	rc = filters_check(ctx, &snap);
	if (rc) {
		snapshot_free(&snap);
		return rc;
	}
	tree_build(&t, &snap, ctx->all);
	for (size_t i = 0; i < t.nroots; i++)
		shown += select_nodes(ctx, t.roots[i], false);
	if (ctx->out.json) {
		struct json_list w;

		json_list_begin(&w, stdout, ctx->cmd->json_name);
		for (size_t i = 0; i < t.nroots; i++)
			if (t.roots[i]->shown)
				json_list_item(&w, node_json(t.roots[i]));
		json_list_end(&w);
	} else {
		struct table *tb;

		/* libsmartcols draws the tree in UTF-8 where the locale is, else in ASCII */
		setlocale(LC_CTYPE, "");
		tb = table_new(&ctx->out, ctx->cmd->cols);
		for (size_t i = 0; i < t.nroots; i++)
			add_rows(ctx, tb, t.roots[i], NULL);
		table_print_free(tb);
	}
	explain_tree(ctx, &t, shown);
	tree_free(&t);
	snapshot_free(&snap);
	return EXIT_OK;
}

static const struct opt_def tree_options[] = {
	OPT_COMMON(COMMON_ALL), OPT_COMMON(COMMON_DEVICE), OPT_COMMON(COMMON_TSM),
	OPT_COMMON(COMMON_HOST_BRIDGE), OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_tree = {
	.name = "tree",
	.summary = "show the PCI hierarchy below each host bridge with TSM and IDE state",
	.description = "Show each host bridge with the ports, DSMs and functions below it as a\n"
		       "tree: pools and TSMs, IDE capabilities and enabled Selective blocks, each\n"
		       "function's TSM state, dependents and VFs under their DSM, and every stream\n"
		       "along the path it protects (E and R: its endpoint and root port blocks).\n"
		       "--all shows the whole hierarchy, every function the kernel lists (as\n"
		       "lspci -t draws it), the TSM's own provider function with the TSM named",
	.opts = tree_options,
	.cols = tree_columns,
	.ncols = ARRAY_SIZE(tree_columns),
	.json_name = "tree",
	.verbose_help = "report links that leave a --sysroot tree, on stderr",
	.run = run_tree,
};
