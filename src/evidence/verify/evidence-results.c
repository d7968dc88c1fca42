// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A judgement for people and scripts (evidence-results.h): one line per
 * result as `audit --short` prints them (hints with -v), each skip marked
 * with the risk it takes and whether its option took it, the counts and the
 * decision's line; or a JSON document of audit's family
 * (schema/evidence-verify.schema.json) that carries the decision.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-results.h"
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

char *ev_judgement_line(const struct ev_judgement *jm, long long generation)
{
	char *line = ev_decision_line(&jm->decision), *s;

	if (!jm->results.n)
		return line;
	if (generation >= 0)
		s = xasprintf("evidence of generation %lld %s", generation, line);
	else
		s = xasprintf("evidence of several generations %s", line);
	free(line);
	return s;
}

/* A skip's risk as the line ends: taken on trust under its option, or the option that would take it. */
static void risk_mark(FILE *out, const struct ev_result *res, const struct ev_decide_opts *o)
{
	const char *opt = ev_risk_option(res->risk);

	if (res->status != AUDIT_SKIP || !opt)
		return;
	fprintf(out, ev_decision_trusts(res, o) ? " [taken on trust: %s]" : " [%s takes this risk]", opt);
}

void ev_judgement_print(FILE *out, const struct ev_judgement *jm, const struct evidence_set *s,
			bool verbose)
{
	const struct ev_results *r = &jm->results;
	size_t idw = 0, objw = 0;
	char *line;

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
		risk_mark(out, res, &jm->decide);
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
	line = ev_judgement_line(jm, evset_generation(s));
	fputs_escaped(s->bdf, out);
	fputs(": ", out);
	fputs_escaped(line, out);
	fputc('\n', out);
	free(line);
}

static struct json_object *item_json(const struct ev_decision_item *it)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "check", js_str(it->check));
	json_object_object_add(o, "object", js_str(it->object));
	json_object_object_add(o, "text", js_str(it->text));
	json_object_object_add(o, "risk", js_str(ev_risk_name(it->risk)));
	json_object_object_add(o, "option", js_str(ev_risk_option(it->risk)));
	return o;
}

static struct json_object *items_json(const struct ev_decision_list *l)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(arr, item_json(&l->v[i]));
	return arr;
}

static struct json_object *decision_json(const struct ev_judgement *jm, long long generation)
{
	const struct ev_decision *d = &jm->decision;
	struct json_object *o = json_object_new_object();
	char *line = ev_judgement_line(jm, generation);

	json_object_object_add(o, "verdict", js_str(ev_verdict_name(d->verdict)));
	json_object_object_add(o, "accepted", js_bool(ev_decision_accepts(d)));
	json_object_object_add(o, "line", js_str(line));
	json_object_object_add(o, "signer_slot", js_u64((unsigned int)jm->decide.signer_slot));
	json_object_object_add(o, "verified", items_json(&d->verified));
	json_object_object_add(o, "taken_on_trust", items_json(&d->on_trust));
	json_object_object_add(o, "refused", items_json(&d->refused));
	free(line);
	return o;
}

struct json_object *ev_judgement_json(const struct ev_judgement *jm, const struct evidence_set *s)
{
	static const char *const keys[] = {
		[AUDIT_PASS] = "pass", [AUDIT_WARN] = "warn", [AUDIT_FAIL] = "fail",
		[AUDIT_SKIP] = "skip", [AUDIT_NEEDS_ROOT] = "needs_root",
	};
	const struct ev_results *r = &jm->results;
	struct json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *sum = json_object_new_object();

	json_object_object_add(doc, "schema_version", json_object_new_int(1));
	json_object_object_add(doc, "bdf", js_str(s->bdf[0] ? s->bdf : NULL));
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
		json_object_object_add(o, "risk", js_str(ev_risk_name(res->risk)));
		json_object_object_add(o, "taken_on_trust", js_bool(ev_decision_trusts(res, &jm->decide)));
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "checks", arr);
	json_object_object_add(sum, "total", js_u64(r->n));
	for (int st = 0; st < AUDIT_NR_STATUS; st++)
		json_object_object_add(sum, keys[st], js_u64(ev_results_count(r, (enum audit_status)st)));
	json_object_object_add(doc, "summary", sum);
	json_object_object_add(doc, "decision", decision_json(jm, evset_generation(s)));
	return doc;
}

struct json_object *ev_unread_json(const char *bdf, bool from_dir, const char *why)
{
	struct ev_judgement jm = { 0 };
	struct evidence_set s;
	struct json_object *doc;

	evset_init(&s);
	snprintf(s.bdf, sizeof(s.bdf), "%s", bdf ? bdf : "");
	s.from_dir = from_dir;
	ev_decide_unread(&jm.decision, why);
	doc = ev_judgement_json(&jm, &s);
	ev_judgement_release(&jm);
	evset_release(&s);
	return doc;
}
