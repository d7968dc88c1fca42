// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Evidence judged for a decision (evidence-gate.h): accept --verify, audit's
 * device.evidence and metrics, with the one rule of evidence-decision.c. The
 * transport is opened once, on first need; a failure to read is said in
 * explain-evidence.c's words. A tree no kernel serves is judged from the
 * evidence saved in it: the running kernel belongs to another machine, or
 * to another moment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "tsmctl/evidence-gate.h"
#include "tsmctl/evidence-results.h"
#include "tsmctl/explain.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

/* Evidence that cannot be read, live or from a capture (which says the same as its tree). */
#define UNREADABLE_HINT	"a kernel hands evidence out with the device-evidence family " \
			"(CONFIG_DEVICE_EVIDENCE, proposed) for a connected DSM or a locked TDI; " \
			"'tsmctl evidence BDF' says why it does not; a capture holds what " \
			"tsmctl-collect could save"

/* One evidence source judged for audit: what every function it speaks for is told. */
struct ev_gate_judged {
	char bdf[BDF_MAX];
	enum audit_status status;
	char *message, *hint;
	enum ev_gate_state state;
	unsigned int why;
};

const char *ev_gate_state_name(enum ev_gate_state st)
{
	static const char *const names[] = {
		[EV_STATE_VERIFIED] = "verified", [EV_STATE_TRUSTED] = "trusted",
		[EV_STATE_UNVERIFIED] = "unverified", [EV_STATE_FAILED] = "failed",
	};

	return st < EV_NR_STATES ? names[st] : "?";
}

const char *ev_gate_why_name(unsigned int bit)
{
	static const char *const names[] = {
		[EV_WHY_NO_TRUST_STORE - EV_NR_RISKS] = "no-trust-store",
		[EV_WHY_UNREADABLE - EV_NR_RISKS] = "unreadable",
		[EV_WHY_NEEDS_ROOT - EV_NR_RISKS] = "needs-root",
		[EV_WHY_UNPROVEN - EV_NR_RISKS] = "unproven",
	};

	if (bit < EV_NR_RISKS)
		return ev_risk_name((enum ev_risk)bit);
	return bit < EV_WHY_NR ? names[bit - EV_NR_RISKS] : NULL;
}

bool ev_gate_from_capture(void)
{
	return !sysfs_takes_stores();
}

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
	free(g->line);
	for (size_t i = 0; i < g->nr_judged; i++) {
		free(g->judged[i].message);
		free(g->judged[i].hint);
	}
	free(g->judged);
	free(g->outcomes);
	memset(g, 0, sizeof(*g));
}

bool ev_gate_has_trust_store(struct ev_gate *g)
{
	return !gate_judge(g) && g->judge.trust.store;
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

/*
 * A nonce of this reader's into S, and the generation before the refresh it
 * asks for (what evidence.generation compares): 0, or -errno with *MSG.
 */
static int gate_nonce(struct ev_gate *g, const char *bdf, struct evidence_set *s, char **msg)
{
	struct evidence_error e = { .miss_type = -1 };
	ssize_t n;

	do
		n = getrandom(s->nonce, EVIDENCE_NONCE_MAX, 0);
	while (n < 0 && errno == EINTR);
	if (n != EVIDENCE_NONCE_MAX) {
		*msg = xasprintf("no random bytes for a nonce from getrandom(): %s",
				 strerror(n < 0 ? errno : EIO));
		return n < 0 ? -errno : -EIO;
	}
	s->nonce_len = EVIDENCE_NONCE_MAX;
	if (evset_peek_generation(g->conn, bdf, EVIDENCE_NR_TYPES - 1, &s->generation_before, &e))
		s->generation_before = -1;
	evidence_error_free(&e);
	return 0;
}

/*
 * BDF's evidence into S: the objects saved in a capture's tsmctl-evidence/BDF,
 * or one dump from the kernel (refreshed first for a nonce of this reader's
 * when FRESH) and the function's resource and config. 0, or -errno with *MSG.
 */
static int gate_read(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf,
		     bool fresh, struct evidence_set *s, char **msg)
{
	struct evidence_request req = { .subsys = "pci", .dev = bdf, .type_mask = EVIDENCE_ALL_TYPES };
	struct evidence_error e = { .miss_type = -1 };
	struct evidence_stats st;
	char *why = NULL;
	int rc;

	if (ev_gate_from_capture()) {
		rc = evset_load_capture(s, bdf, &why);
		/* a capture and the tree it came from say the same: no path of either */
		if (rc == -ENOENT && why)
			*msg = why;	/* why tsmctl-collect saved none, in tsmctl's words then */
		else if (rc == -ENOENT)
			*msg = xasprintf("no evidence of %s is saved in this tree (%s/%s/), and it is no "
					 "kernel's (a capture or a copy): the running kernel's would be "
					 "another machine's", bdf, EVSET_CAPTURE_DIR, bdf);
		else if (rc)
			*msg = xasprintf("the evidence saved in this tree cannot be used: %s", why);
		if (rc && *msg != why)
			free(why);
		return rc;
	}
	rc = gate_conn(g, snap, bdf, msg);
	if (!rc && fresh)
		rc = gate_nonce(g, bdf, s, msg);
	if (rc)
		return rc;
	snprintf(s->bdf, sizeof(s->bdf), "%s", bdf);
	req.nonce = s->nonce_len ? s->nonce : NULL;
	req.nonce_len = s->nonce_len;
	rc = evset_fetch(s, g->conn, &req, &st, &e);
	if (rc == -EOPNOTSUPP && fresh)
		*msg = xasprintf("the provider cannot refresh %s's evidence for a nonce of this "
				 "reader's, so nothing shows it is not a replay: %s takes that risk "
				 "(its evidence is then read as it is) (EOPNOTSUPP)", bdf,
				 ev_risk_option(EV_RISK_NOT_FRESH));
	else if (rc)
		*msg = read_failure(snap, bdf, &e);
	else
		evset_read_device(s);
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
	struct ev_judgement jm;
	char *text;
	int rc;

	*msg = NULL;
	g->pins_due = false;
	if (gate_judge(g)) {
		*msg = text_escape(g->judge_why);
		return g->judge_rc;
	}
	evset_init(&s);
	/* a nonce of ours makes the evidence fresh, unless its absence is a risk taken */
	rc = gate_read(g, snap, bdf, !g->opts.allow[EV_RISK_NOT_FRESH], &s, msg);
	if (rc) {
		evset_release(&s);
		return rc;
	}
	/* accept's target is a TDI: its interface report must be proven */
	ev_judge_run(&g->judge, &s, !s.from_dir, ev_risk_mask(g->opts.allow), true, &jm);
	g->generation = evset_generation(&s);
	g->peek_type = smallest(&s);
	free(g->line);
	g->line = ev_judgement_line(&jm, g->generation);
	g->pins_due = ev_decision_accepts(&jm.decision);
	if (!g->pins_due) {
		text = xasprintf("not accepted: %s", g->line);
		*msg = text_escape(text);
		free(text);
		rc = -EACCES;
	}
	ev_judgement_release(&jm);
	evset_release(&s);
	return rc;
}

int ev_gate_save_pins(struct ev_gate *g, char **note, char **msg)
{
	char *pending, *why = NULL, *text;
	int rc;

	*note = *msg = NULL;
	if (!g->pins_due)
		return 0;
	g->pins_due = false;
	pending = ev_judge_pending_pins(&g->judge);
	if (!pending)
		return 0;
	rc = ev_judge_save_pins(&g->judge, true, &why);
	text = rc ? xasprintf("its root was not pinned: --pin %s", why) :
		    xasprintf("pinned %s in %s", pending, g->opts.pin);
	if (rc)
		*msg = text_escape(text);
	else
		*note = text_escape(text);
	free(text);
	free(why);
	free(pending);
	return rc;
}

int ev_gate_confirm(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg)
{
	struct evidence_error e = { .miss_type = -1 };
	long long now = -1;
	int rc;

	*msg = NULL;
	if (g->generation < 0)
		return -EINVAL;		/* nothing was decided on */
	if (ev_gate_from_capture())
		return 0;		/* a saved copy does not move */
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

/* ---- audit, metrics ---- */

static struct ev_gate_judged *judged_add(struct ev_gate *g, const char *bdf)
{
	struct ev_gate_judged *j;

	xgrow(&g->judged, &g->cap_judged, g->nr_judged, sizeof(*g->judged));
	j = &g->judged[g->nr_judged++];
	memset(j, 0, sizeof(*j));
	snprintf(j->bdf, sizeof(j->bdf), "%s", bdf);
	return j;
}

/* A source that could not be judged: STATUS with MESSAGE (taken over) and HINT (taken over). */
static void not_judged(struct ev_gate_judged *j, enum audit_status status, unsigned int why,
		       char *message, char *hint)
{
	j->status = status;
	j->state = EV_STATE_UNVERIFIED;
	j->why = 1u << why;
	j->message = message;
	j->hint = hint;
}

/* "--allow-x, --allow-y": the options that would take the risks refused. */
static char *risk_options(unsigned int risks)
{
	char *s = NULL;

	for (int k = EV_RISK_NONE + 1; k < EV_NR_RISKS; k++)
		if (risks & 1u << k)
			str_join(&s, ", ", "%s", ev_risk_option((enum ev_risk)k));
	return s;
}

/* J from the decision on SRC's evidence. */
static void from_decision(struct ev_gate *g, struct ev_gate_judged *j, const struct ev_judgement *jm,
			  long long generation)
{
	const struct ev_decision *d = &jm->decision;
	bool no_store = !g->judge.trust.store && !g->judge.has_pins;
	char *line = ev_judgement_line(jm, generation), *opts;

	switch (d->verdict) {
	case EV_PROVEN:
	case EV_TAKEN_ON_TRUST:
		j->status = AUDIT_PASS;
		j->state = d->verdict == EV_PROVEN ? EV_STATE_VERIFIED : EV_STATE_TRUSTED;
		j->message = line;
		return;
	case EV_FAILED:
		j->status = AUDIT_FAIL;
		j->state = EV_STATE_FAILED;
		j->hint = xasprintf("do not accept or trust the device; 'tsmctl evidence --verify -v "
				    "%s' shows each check", j->bdf);
		break;
	case EV_NEEDS_ROOT:
		j->status = AUDIT_NEEDS_ROOT;
		j->state = EV_STATE_UNVERIFIED;
		j->why = 1u << EV_WHY_NEEDS_ROOT;
		j->hint = xstrdup("run the audit as root");
		break;
	case EV_UNPROVEN:
		j->status = AUDIT_WARN;
		j->state = EV_STATE_UNVERIFIED;
		j->why = d->risks_refused | (d->unprovable ? 1u << EV_WHY_UNPROVEN : 0) |
			 (no_store ? 1u << EV_WHY_NO_TRUST_STORE : 0);
		opts = risk_options(d->risks_refused);
		j->hint = xasprintf("%s'tsmctl evidence --verify -v %s' says what each check could not "
				    "prove%s%s", no_store ? "put the device vendors' root CA "
				    "certificates (PEM) in the trust store, or name one with --trust; " :
				    "", j->bdf, opts ? "; a risk acceptable here is taken on trust with " :
				    "", opts ? opts : "");
		free(opts);
		j->message = xasprintf("%s%s", no_store ? "never verified (no trust store): " : "", line);
		free(line);
		return;
	}
	j->message = line;
}

/* SRC's evidence read and decided on, into a new judged entry. */
static struct ev_gate_judged *judge_source(struct ev_gate *g, const struct tsm_snapshot *snap,
					   const struct pci_func *src)
{
	struct ev_gate_judged *j = judged_add(g, src->bdf);
	struct evidence_set s;
	struct ev_judgement jm;
	char *msg = NULL;
	int rc;

	/* without the family a trust store would not help: say that first */
	if (!ev_gate_from_capture() && gate_conn(g, snap, src->bdf, &msg)) {
		not_judged(j, AUDIT_SKIP, EV_WHY_UNREADABLE, msg, xstrdup(UNREADABLE_HINT));
		return j;
	}
	evset_init(&s);
	/* no nonce: a refresh would move the generation under an accept in progress */
	rc = gate_read(g, snap, src->bdf, false, &s, &msg);
	if (rc == -EPERM || rc == -EACCES) {
		not_judged(j, AUDIT_NEEDS_ROOT, EV_WHY_NEEDS_ROOT, msg, xstrdup("run the audit as root"));
	} else if (rc) {
		not_judged(j, AUDIT_SKIP, EV_WHY_UNREADABLE, msg, xstrdup(UNREADABLE_HINT));
	} else if (gate_judge(g)) {
		/* the inputs are read only once there is evidence to judge */
		not_judged(j, AUDIT_SKIP, EV_WHY_NO_TRUST_STORE,
			   xasprintf("the trust store cannot be used: %s", g->judge_why),
			   xasprintf("fix or remove it (%s)", EV_TRUST_DEFAULT));
	} else {
		ev_judge_run(&g->judge, &s, !s.from_dir, ev_risk_mask(g->opts.allow),
			     func_lock_holder(src) != NULL, &jm);
		from_decision(g, j, &jm, evset_generation(&s));
		ev_judgement_release(&jm);
	}
	evset_release(&s);
	return j;
}

static const struct ev_gate_judged *judged_find(const struct ev_gate *g, const char *bdf)
{
	for (size_t i = 0; i < g->nr_judged; i++)
		if (streq(g->judged[i].bdf, bdf))
			return &g->judged[i];
	return NULL;
}

static void outcome_add(struct ev_gate *g, const char *bdf, enum ev_gate_state state, unsigned int why)
{
	struct ev_gate_outcome *o;

	xgrow(&g->outcomes, &g->cap_outcomes, g->nr_outcomes, sizeof(*g->outcomes));
	o = &g->outcomes[g->nr_outcomes++];
	snprintf(o->bdf, sizeof(o->bdf), "%s", bdf);
	o->state = state;
	o->why = why;
}

enum audit_status ev_gate_audit(struct ev_gate *g, const struct tsm_snapshot *snap,
				const struct pci_func *f, char **message, char **hint)
{
	const struct pci_func *src = func_evidence_holder(snap, f);
	const struct ev_gate_judged *j;

	*message = *hint = NULL;
	if (!src) {
		outcome_add(g, f->bdf, EV_STATE_UNVERIFIED, 1u << EV_WHY_UNREADABLE);
		*message = xstrdup("it has no evidence: neither a connected DSM, a locked TDI nor a "
				   "dependent of a connected DSM");
		return AUDIT_SKIP;
	}
	j = judged_find(g, src->bdf);
	if (!j)
		j = judge_source(g, snap, src);
	outcome_add(g, f->bdf, j->state, j->why);
	*message = src == f ? xstrdup(j->message) :
		   xasprintf("judged through its DSM %s: %s", src->bdf, j->message);
	*hint = j->hint ? xstrdup(j->hint) : NULL;
	return j->status;
}

enum audit_status ev_gate_audit_fn(const struct pci_func *f, void *gate, char **message,
				   char **hint)
{
	struct ev_gate *g = gate;

	return ev_gate_audit(g, g->snap, f, message, hint);
}
