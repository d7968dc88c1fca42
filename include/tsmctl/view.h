/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A view command (list, devices, streams, host-bridges) is a struct view:
 * what to scan, its default columns, and per object whether it is shown, its
 * cells and its JSON. view_run() does the rest the same way for all of them:
 * -H, -o, the scan, the filters, the table or JSON document, the exit status.
 */
#ifndef TSMCTL_VIEW_H
#define TSMCTL_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "tsmctl/cli.h"

struct host_bridge;
struct json_object;
struct tsm_snapshot;

struct view {
	unsigned int scan;		/* SCAN_* (view_run's caller may add to it) */
	const int *defaults;		/* default columns */
	size_t ndefaults;
	const int *verbose_extra;	/* columns -v adds to the defaults; NULL: none */
	size_t nverbose_extra;
	/* Defaults that follow the tree, when the user chose none; NULL: the static ones. */
	const int *(*tree_defaults)(const struct tsm_snapshot *snap, size_t *n);
	/* The view's objects in order: object I, or NULL past the last. */
	const void *(*item)(const struct tsm_snapshot *snap, size_t i);
	/* Before the rows, once the filters named things that exist: what selected() needs. */
	void (*prepare)(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap);
	/* Does the object pass the filters? NULL: every object is shown. */
	bool (*selected)(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			 const void *item);
	char *(*cell)(const struct tsm_snapshot *snap, const void *item, int col);
	struct json_object *(*json)(const struct tsm_snapshot *snap, const void *item);
	/* Without -J: the object in full as text (devices -v), instead of a table row. NULL: rows. */
	void (*text)(const struct tsm_snapshot *snap, const void *item);
	/* After the rows, on stderr: why SHOWN objects are all there is (or notes). */
	void (*explain)(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, size_t shown);
};

/* -t of an object several TSMs use (a shared host bridge): does any of HB's TSMs pass? */
bool filter_match_hb_tsms(const struct filter *f, const struct host_bridge *hb);

/*
 * -H, positional arguments and -o/--output-all for V: true to go on with the
 * columns set; false when the command is over, *status its exit status.
 */
bool view_columns(struct cmd_ctx *ctx, const struct view *v, int *status);

/* Run the view V (scan flags SCAN) for CTX's command; its exit status. */
int view_run(struct cmd_ctx *ctx, const struct view *v, unsigned int scan);

#endif
