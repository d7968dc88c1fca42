// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libsmartcols.h>

#include "tsmctl/output.h"
#include "tsmctl/util.h"

static int column_by_name(const struct column *cols, size_t ncols, const char *name, size_t len)
{
	for (size_t i = 0; i < ncols; i++)
		if (strlen(cols[i].name) == len && !strncasecmp(cols[i].name, name, len))
			return (int)i;
	return -1;
}

static int add_column(struct output_opts *o, int id)
{
	if (o->ncols >= OUTPUT_MAX_COLUMNS)
		return -E2BIG;
	o->cols[o->ncols++] = id;
	return 0;
}

/* The columns NAMES name, appended to O: 0, or -errno with *WHY (when not NULL) said. */
static int add_named_columns(struct output_opts *o, const struct column *cols, size_t ncols,
			     char **names, size_t n, char **why)
{
	for (size_t i = 0; i < n; i++) {
		int id = column_by_name(cols, ncols, names[i], strlen(names[i]));

		if (id < 0) {
			if (why)
				*why = xasprintf("unknown column '%s'", names[i]);
			return -EINVAL;
		}
		if (add_column(o, id)) {
			if (why)
				*why = xasprintf("more than %d columns", OUTPUT_MAX_COLUMNS);
			return -E2BIG;
		}
	}
	return 0;
}

int columns_select(struct output_opts *o, const struct column *cols, size_t ncols,
		   const int *defaults, size_t ndefaults, const char *arg, bool all, char **why)
{
	const char *p = arg;
	char **names;
	size_t n;
	int rc;

	o->ncols = 0;
	if (all) {
		for (size_t i = 0; i < ncols; i++)
			add_column(o, (int)i);
		return 0;
	}
	if (!arg || *arg == '+') {
		for (size_t i = 0; i < ndefaults; i++)
			add_column(o, defaults[i]);
		if (!arg)
			return 0;
		p++;
	}
	if (list_split(p, &names, &n)) {
		if (why)
			*why = xasprintf("an empty value in the list '%s' (a comma with nothing before "
					 "or after it)", arg);
		return -EINVAL;
	}
	/* "-o +" appends nothing: as an empty value, a mistake */
	if (!n) {
		if (why)
			*why = xstrdup("no column given");
		return -EINVAL;
	}
	rc = add_named_columns(o, cols, ncols, names, n, why);
	strv_free(names, n);
	return rc;
}

void columns_print_help(FILE *out, const struct column *cols, size_t ncols)
{
	for (size_t i = 0; i < ncols; i++)
		fprintf(out, "%16s  %s\n", cols[i].name, cols[i].help);
}

void columns_print_json(FILE *out, const struct column *cols, size_t ncols)
{
	struct json_list w;

	json_list_begin(&w, out, "columns");
	for (size_t i = 0; i < ncols; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", js_str(cols[i].name));
		json_object_object_add(o, "description", js_str(cols[i].help));
		json_list_item(&w, o);
	}
	json_list_end(&w);
}

struct table {
	struct libscols_table *tb;
	size_t ncols;
};

struct table *table_new(const struct output_opts *o, const struct column *cols)
{
	struct table *t = xcalloc(1, sizeof(*t));

	scols_init_debug(0);
	t->tb = scols_new_table();
	if (!t->tb)
		out_of_memory();
	t->ncols = o->ncols;
	scols_table_enable_raw(t->tb, o->raw);
	scols_table_enable_export(t->tb, o->pairs);
	scols_table_enable_noheadings(t->tb, o->noheadings);
	scols_table_enable_shellvar(t->tb, o->shellvar);
	for (size_t i = 0; i < o->ncols; i++) {
		const struct column *c = &cols[o->cols[i]];
		/* raw and pairs list a tree's rows in its order, without drawing it (lsblk -r) */
		int flags = o->raw || o->pairs ? c->flags & ~SCOLS_FL_TREE : c->flags;

		if (!scols_table_new_column(t->tb, c->name, c->whint, flags))
			out_of_memory();
	}
	return t;
}

void table_add_row(struct table *t, char **values)
{
	table_add_child_row(t, NULL, values);
}

struct table_row *table_add_child_row(struct table *t, struct table_row *parent, char **values)
{
	struct libscols_line *ln = scols_table_new_line(t->tb, (struct libscols_line *)parent);

	if (!ln)
		out_of_memory();
	/* libsmartcols prints control bytes and '\' as \xNN in every mode: escaping first doubled it. */
	for (size_t i = 0; i < t->ncols; i++) {
		char *v = values[i];

		if (v && scols_line_refer_data(ln, i, v))
			free(v);
		values[i] = NULL;
	}
	return (struct table_row *)ln;
}

int table_print_free(struct table *t)
{
	int rc = scols_print_table(t->tb);

	scols_unref_table(t->tb);
	free(t);
	return rc;
}

/*
 * Each document's schema_version (README, "Compatibility"): a change that
 * could break a consumer raises that document's number, never the others'.
 */
static int schema_version(const char *name)
{
	/* 2: a host bridge's "tsm" (a name or null) became "tsms", a list: a pool may be shared */
	return streq(name, "host_bridges") ? 2 : 1;
}

/* A document was begun on stdout: a command that ends without one gets its empty one (tsmctl.c). */
static bool stdout_document;

bool json_document_printed(void)
{
	return stdout_document;
}

void json_list_begin(struct json_list *w, FILE *out, const char *name)
{
	*w = (struct json_list){ .out = out, .first = true };
	stdout_document |= out == stdout;
	fprintf(out, "{\n  \"schema_version\": %d,\n  \"%s\": [", schema_version(name), name);
}

/* Pretty-print ITEM with every line after the first indented by INDENT spaces. */
static void json_put_indented(FILE *out, struct json_object *item, const char *indent)
{
	const char *s = json_object_to_json_string_ext(item,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE);

	for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
		fwrite(s, 1, (size_t)(nl - s) + 1, out);
		fputs(indent, out);
	}
	fputs(s, out);
}

void json_list_item(struct json_list *w, struct json_object *item)
{
	fputs(w->first ? "\n    " : ",\n    ", w->out);
	w->first = false;
	json_put_indented(w->out, item, "    ");
	json_object_put(item);
}

void json_list_end_with(struct json_list *w, const char *key, struct json_object *value)
{
	fputs(w->first ? "]" : "\n  ]", w->out);
	if (key) {
		fprintf(w->out, ",\n  \"%s\": ", key);
		json_put_indented(w->out, value, "  ");
		json_object_put(value);
	}
	fputs("\n}\n", w->out);
	w->first = true;
}

void json_list_end(struct json_list *w)
{
	json_list_end_with(w, NULL, NULL);
}

void json_list_empty(FILE *out, const char *name)
{
	struct json_list w;

	json_list_begin(&w, out, name);
	json_list_end(&w);
}

void json_print_document(FILE *out, struct json_object *doc)
{
	stdout_document |= out == stdout;
	fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					     JSON_C_TO_STRING_NOSLASHESCAPE), out);
	fputc('\n', out);
	json_object_put(doc);
}

void json_list_single(FILE *out, const char *name, struct json_object *item)
{
	struct json_list w;

	json_list_begin(&w, out, name);
	json_list_item(&w, item);
	json_list_end(&w);
}

struct json_object *js_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct json_object *obj;
	size_t len, n = 0;
	char *clean;

	if (!s)
		return NULL;
	len = strlen(s);
	clean = xmalloc(len * 3 + 1);
	while (*p) {
		size_t k = utf8_seq(p);

		if (k) {
			memcpy(clean + n, p, k);
			n += k;
			p += k;
		} else {
			/* json-c passes raw bytes through: replace what is not UTF-8. */
			memcpy(clean + n, "\xef\xbf\xbd", 3);
			n += 3;
			p++;
		}
	}
	clean[n] = '\0';
	obj = json_object_new_string_len(clean, (int)n);
	free(clean);
	return obj;
}

struct json_object *js_u64(unsigned long long v)
{
	return json_object_new_uint64(v);
}

struct json_object *js_num(long long v)
{
	return v < 0 ? NULL : json_object_new_int64(v);
}

struct json_object *js_bool(bool v)
{
	return json_object_new_boolean(v);
}

struct json_object *js_strv(char **v, size_t n)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, js_str(v[i]));
	return arr;
}

char *cell_str(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *cell_bool(bool v)
{
	return xstrdup(v ? "yes" : "no");
}
