// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verification results for people and scripts (evidence-verify.h): one line
 * per result as `audit --short` prints them (hints with -v) and a summary,
 * or a JSON document of audit's family (schema/evidence-verify.schema.json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-verify.h"
#include "tsmctl/output.h"
#include "tsmctl/util.h"

#define STATUS_WIDTH	11

static void padded(FILE *out, const char *s, size_t width)
{
	size_t n = strlen(s);

	fputs_escaped(s, out);
	for (; n < width; n++)
		fputc(' ', out);
}

char *ev_results_summary(const struct ev_results *r)
{
	struct strbuf b = STRBUF_INIT;

	for (int st = 0; st < AUDIT_NR_STATUS; st++)
		if (ev_results_count(r, (enum audit_status)st))
			strbuf_join(&b, ", ", "%zu %s", ev_results_count(r, (enum audit_status)st),
				    ev_status_name((enum audit_status)st));
	return strbuf_take(&b);
}

void ev_results_print(FILE *out, const struct ev_results *r, bool verbose)
{
	size_t idw = 0, objw = 0;

	for (size_t i = 0; i < r->n; i++) {
		idw = strlen(r->v[i].check->id) > idw ? strlen(r->v[i].check->id) : idw;
		objw = strlen(r->v[i].object) > objw ? strlen(r->v[i].object) : objw;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct ev_result *res = &r->v[i];

		padded(out, ev_status_name(res->status), STATUS_WIDTH);
		padded(out, res->check->id, idw + 1);
		padded(out, res->object, objw + 2);
		fputs_escaped(res->message, out);
		fputc('\n', out);
		if (verbose && res->hint) {
			padded(out, "", STATUS_WIDTH + idw + 1);
			fputs("hint: ", out);
			fputs_escaped(res->hint, out);
			fputc('\n', out);
		}
	}
	fprintf(out, "%zu result%s: %zu pass, %zu warn, %zu fail, %zu skip, %zu needs-root\n", r->n,
		r->n == 1 ? "" : "s", ev_results_count(r, AUDIT_PASS), ev_results_count(r, AUDIT_WARN),
		ev_results_count(r, AUDIT_FAIL), ev_results_count(r, AUDIT_SKIP),
		ev_results_count(r, AUDIT_NEEDS_ROOT));
}

struct json_object *ev_results_json(const struct ev_results *r, const struct evidence_set *s)
{
	static const char *const keys[] = {
		[AUDIT_PASS] = "pass", [AUDIT_WARN] = "warn", [AUDIT_FAIL] = "fail",
		[AUDIT_SKIP] = "skip", [AUDIT_NEEDS_ROOT] = "needs_root",
	};
	struct json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *sum = json_object_new_object();

	json_object_object_add(doc, "schema_version", json_object_new_int(1));
	json_object_object_add(doc, "bdf", js_str(s->bdf));
	json_object_object_add(doc, "source", js_str(s->from_dir ? "directory" : "kernel"));
	json_object_object_add(doc, "generation", js_num(evset_generation(s)));
	for (size_t i = 0; i < r->n; i++) {
		const struct ev_result *res = &r->v[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "id", js_str(res->check->id));
		json_object_object_add(o, "category", js_str("evidence"));
		json_object_object_add(o, "parent", js_str(res->check->parent));
		json_object_object_add(o, "object", js_str(res->object));
		json_object_object_add(o, "status", js_str(ev_status_name(res->status)));
		json_object_object_add(o, "message", js_str(res->message));
		json_object_object_add(o, "hint", js_str(res->hint));
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "checks", arr);
	json_object_object_add(sum, "total", js_u64(r->n));
	for (int st = 0; st < AUDIT_NR_STATUS; st++)
		json_object_object_add(sum, keys[st], js_u64(ev_results_count(r, (enum audit_status)st)));
	json_object_object_add(doc, "summary", sum);
	return doc;
}

char *ev_results_failures(const struct ev_results *r)
{
	struct strbuf b = STRBUF_INIT;
	char *s;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == AUDIT_FAIL)
			strbuf_join(&b, "; ", "%s %s: %s", r->v[i].check->id, r->v[i].object,
				    r->v[i].message);
	s = strbuf_take(&b);
	if (*s)
		return s;
	free(s);
	return NULL;
}
