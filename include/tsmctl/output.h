/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Columns + rows → a libsmartcols table (plain, raw, pairs), or a JSON
 * document written one top-level item at a time.
 */
#ifndef TSMCTL_OUTPUT_H
#define TSMCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json.h>

#include "tsmctl/util.h"

#define OUTPUT_MAX_COLUMNS 64

struct column {
	const char *name;	/* -o name, upper case */
	double whint;		/* libsmartcols width hint */
	int flags;		/* SCOLS_FL_* */
	const char *help;	/* one line, for -H and --help */
};

struct output_opts {
	bool json, raw, pairs, noheadings, shellvar;
	int cols[OUTPUT_MAX_COLUMNS];	/* selected column ids */
	size_t ncols;
};

/*
 * Resolve -o (NULL: defaults; "+LIST": defaults plus LIST; "LIST" alone) and
 * --output-all into o->cols. -EINVAL for an unknown or missing column, -E2BIG
 * for too many; then *why (when not NULL) says which, allocated.
 */
int columns_select(struct output_opts *o, const struct column *cols, size_t ncols,
		   const int *defaults, size_t ndefaults, const char *arg, bool all, char **why);
/* -H: every column with its help. */
void columns_print_help(FILE *out, const struct column *cols, size_t ncols);
/* -H -J: {"schema_version": 1, "columns": [{"name", "description"}, ...]} */
void columns_print_json(FILE *out, const struct column *cols, size_t ncols);

struct table;
struct table *table_new(const struct output_opts *o, const struct column *cols);
/* Add one row; VALUES[i] belongs to column o->cols[i] and is taken over (NULL: empty). */
void table_add_row(struct table *t, char **values);
/*
 * A tree (tsmctl tree): a row below PARENT (NULL: a root), drawn by the
 * column whose flags have SCOLS_FL_TREE, ASCII unless the locale is UTF-8.
 */
struct table_row;
struct table_row *table_add_child_row(struct table *t, struct table_row *parent, char **values);
int table_print_free(struct table *t);

/*
 * {"schema_version": 1, "<name>": [ item, ... ] } written as it goes, through
 * a writer handle: where it goes and whether an item was written yet.
 */
struct json_list {
	FILE *out;
	bool first;	/* no item yet: the next one opens the list */
};
void json_list_begin(struct json_list *w, FILE *out, const char *name);
void json_list_item(struct json_list *w, struct json_object *item);	/* takes the reference */
void json_list_end(struct json_list *w);
/* Close the list and add one more member, KEY: VALUE (takes the reference). */
void json_list_end_with(struct json_list *w, const char *key, struct json_object *value);
/* The document with an empty list: what -J prints when a command fails before any item. */
void json_list_empty(FILE *out, const char *name);
/* DOC whole, pretty-printed, and a newline (takes the reference). */
void json_print_document(FILE *out, struct json_object *doc);
/* Whether a document was begun on stdout in this run (json_list_begin(), json_print_document()). */
bool json_document_printed(void);
/* The document with ITEM alone in its list (takes the reference). */
void json_list_single(FILE *out, const char *name, struct json_object *item);

/* JSON values that map NULL / negative to null and keep strings valid UTF-8. */
struct json_object *js_str(const char *s);
struct json_object *js_u64(unsigned long long v);
struct json_object *js_num(long long v);	/* < 0 → null */
struct json_object *js_bool(bool v);
struct json_object *js_strv(char **v, size_t n);

/* Text cell helpers: NULL-safe copies and numbers. */
char *cell_str(const char *s);
#define cell_fmt(...) xasprintf(__VA_ARGS__)
char *cell_bool(bool v);

#endif
