// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live evidence judged for a decision (evidence-gate.h): accept --verify and
 * audit's device.evidence. The transport is opened once, on first need; a
 * failure to read is said in explain-evidence.c's words.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-gate.h"
#include "tsmctl/explain.h"
#include "tsmctl/util.h"

#define CHAIN_MASK	0x1ffu	/* cert0..cert7 and the VCA that sizes their root hash */

/* The inputs, loaded on first need: 0, or -errno with g->judge_why. */
static int gate_judge(struct ev_gate *g)
{
	if (g->judge_rc > 0)
		g->judge_rc = ev_judge_load(&g->judge, &g->opts, &g->judge_why);
	return g->judge_rc;
}

int ev_gate_init(struct ev_gate *g, const struct ev_judge_opts *o, char **why)
{
	memset(g, 0, sizeof(*g));
	g->conn_rc = 1;
	g->conn_err.miss_type = -1;
	g->generation = -1;
	g->opts = *o;
	g->judge_rc = 1;
	if (!o->trust && !o->reference && !o->pin)
		return 0;
	if (gate_judge(g)) {
		*why = g->judge_why;
		g->judge_why = NULL;
	}
	return g->judge_rc;
}

void ev_gate_release(struct ev_gate *g)
{
	evidence_close(g->conn);
	evidence_error_free(&g->conn_err);
	ev_judge_release(&g->judge);
	free(g->judge_why);
	free(g->summary);
	memset(g, 0, sizeof(*g));
}

/* The words of a failed read, escaped for the terminal the caller prints them on. */
static char *read_failure(const struct tsm_snapshot *snap, const char *bdf,
			  const struct evidence_error *e)
{
	char *text = explain_evidence_text(snap, bdf, e, false, 1, NULL), *s = text_escape(text);

	free(text);
	return s;
}

/* The transport, opened on first use: 0, or its -errno with *MSG. */
static int gate_conn(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg)
{
	if (g->conn_rc > 0)
		g->conn_rc = evidence_open(&g->conn, &g->conn_err);
	if (g->conn_rc < 0)
		*msg = read_failure(snap, bdf, &g->conn_err);
	return g->conn_rc;
}

/* BDF's objects of MASK into S: 0, or -errno with *MSG. */
static int gate_fetch(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf,
		      uint32_t mask, struct evidence_set *s, char **msg)
{
	struct evidence_request req = { .subsys = "pci", .dev = bdf, .type_mask = mask };
	struct evidence_error e = { .miss_type = -1 };
	struct evidence_stats st;
	int rc = gate_conn(g, snap, bdf, msg);

	if (rc)
		return rc;
	snprintf(s->bdf, sizeof(s->bdf), "%s", bdf);
	rc = evset_fetch(s, g->conn, &req, &st, &e);
	if (rc)
		*msg = read_failure(snap, bdf, &e);
	evidence_error_free(&e);
	return rc;
}

/* The smallest object read: a re-read of it says the generation cheaply. */
static unsigned int smallest(const struct evidence_set *s)
{
	unsigned int best = 0;

	for (unsigned int t = 1; t < EVIDENCE_NR_TYPES; t++)
		if (s->obj[t].length < s->obj[best].length)
			best = t;
	return best;
}

int ev_gate_verify(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg)
{
	struct evidence_set s;
	struct ev_results r;
	char *failed, *why = NULL;
	int rc;

	*msg = NULL;
	if (gate_judge(g)) {
		*msg = text_escape(g->judge_why);
		return g->judge_rc;
	}
	evset_init(&s);
	rc = gate_fetch(g, snap, bdf, EVIDENCE_ALL_TYPES, &s, msg);
	if (rc) {
		evset_release(&s);
		return rc;
	}
	evset_read_device(&s);
	ev_judge_run(&g->judge, &s, true, &r);
	g->generation = evset_generation(&s);
	g->peek_type = smallest(&s);
	free(g->summary);
	g->summary = ev_results_summary(&r);
	failed = ev_results_failures(&r);
	if (failed) {
		char *text = xasprintf("not accepted: its evidence (generation %lld) does not verify: %s",
				       g->generation, failed);

		*msg = text_escape(text);
		free(text);
		rc = -EACCES;
	} else if (ev_judge_save_pins(&g->judge, &why)) {
		*msg = text_escape(why);
		rc = -EIO;
	}
	free(failed);
	free(why);
	ev_results_free(&r);
	evset_release(&s);
	return rc;
}

int ev_gate_confirm(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg)
{
	struct evidence_error e = { .miss_type = -1 };
	long long now = -1;
	int rc;

	*msg = NULL;
	if (g->generation < 0)
		return -EINVAL;		/* nothing was verified */
	rc = gate_conn(g, snap, bdf, msg);
	if (rc)
		return rc;
	if (evidence_family(g->conn)->has_validate) {
		rc = evidence_validate(g->conn, "pci", bdf, (uint32_t)g->generation, &e);
		if (rc == -ESTALE)
			*msg = xasprintf("not accepted: the evidence changed after it was verified (the "
					 "kernel's validate refused generation %lld): run accept --verify "
					 "again", g->generation);
	} else {
		rc = evset_peek_generation(g->conn, bdf, g->peek_type, &now, &e);
		if (!rc && now != g->generation) {
			*msg = xasprintf("not accepted: the evidence changed after it was verified "
					 "(generation %lld verified, %lld now): run accept --verify again",
					 g->generation, now);
			rc = -ESTALE;
		}
	}
	if (rc && !*msg)
		*msg = read_failure(snap, bdf, &e);
	evidence_error_free(&e);
	return rc;
}

enum audit_status ev_gate_audit(struct ev_gate *g, const struct tsm_snapshot *snap,
				const struct pci_func *f, char **message, char **hint)
{
	enum audit_status st = AUDIT_PASS;
	struct evidence_set s;
	struct ev_results r;
	char *bad = NULL, *good = NULL;

	*message = *hint = NULL;
	/* without the family a trust store would not help: say that first */
	if (gate_conn(g, snap, f->bdf, message)) {
		*hint = xstrdup("the evidence needs a kernel with the device-evidence family "
				"(CONFIG_DEVICE_EVIDENCE, proposed)");
		return AUDIT_SKIP;
	}
	if (gate_judge(g)) {
		*message = xasprintf("the trust store cannot be used: %s", g->judge_why);
		*hint = xasprintf("fix or remove it (%s)", EV_TRUST_DEFAULT);
		return AUDIT_SKIP;
	}
	if (!g->judge.trust.store) {
		*message = xasprintf("no trust store: %s %s", g->judge.trust.path,
				     g->judge.trust.missing);
		*hint = xasprintf("put the device vendors' root CA certificates (PEM) in %s, or name a "
				  "store with --trust FILE|DIR", g->judge.trust.path);
		return AUDIT_SKIP;
	}
	evset_init(&s);
	if (gate_fetch(g, snap, f->bdf, CHAIN_MASK, &s, message)) {
		evset_release(&s);
		*hint = xstrdup("read it with 'tsmctl evidence --verify BDF' once the kernel hands it out");
		return AUDIT_SKIP;
	}
	ev_judge_run(&g->judge, &s, true, &r);
	for (size_t i = 0; i < r.n; i++) {
		const struct ev_result *res = &r.v[i];

		if (!streq(res->check->id, "evidence.chain") &&
		    !(streq(res->check->id, "evidence.decode") && startswith(res->object, "cert")))
			continue;
		if (res->status == AUDIT_FAIL)
			str_join(&bad, "; ", "%s: %s", res->object, res->message);
		else if (res->status == AUDIT_PASS && streq(res->check->id, "evidence.chain"))
			str_join(&good, ", ", "%s", res->object);
	}
	if (bad) {
		st = AUDIT_FAIL;
		*message = bad;
	} else if (good) {
		*message = xasprintf("%s verified against %s (generation %lld)", good,
				     g->judge.trust.path, evset_generation(&s));
	} else {
		st = AUDIT_SKIP;
		*message = xstrdup("it hands out no certificate chain");
	}
	if (st != AUDIT_PASS)
		*hint = xasprintf("see 'tsmctl evidence --verify %s'", f->bdf);
	free(good);
	ev_results_free(&r);
	evset_release(&s);
	return st;
}
