// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A verification's inputs and one evidence set judged with them
 * (evidence-judge.h): the glue between the loaders (trust, reference, pins),
 * the pure checks and the decision.
 */
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-judge.h"
#include "tsmctl/log.h"
#include "tsmctl/util.h"

int ev_judge_load(struct ev_judge *j, const struct ev_judge_opts *o, char **why)
{
	int rc;

	memset(j, 0, sizeof(*j));
	j->partial_chain = o->partial_chain;
	rc = ev_trust_load(o->trust, &j->trust, why);
	ev_cache_init(&j->cache, j->trust.store);
	if (!rc && o->reference) {
		rc = ev_reference_load(o->reference, &j->ref, why);
		j->has_ref = !rc;
	}
	if (!rc && o->pin) {
		rc = ev_pins_load(o->pin, &j->pins, why);
		j->has_pins = true;
	}
	return rc;
}

void ev_judge_release(struct ev_judge *j)
{
	const struct ev_cache_stats *st = &j->cache.stats;

	/* for benchmarks: a thousand devices of a few chains verify each chain once */
	if (j->cache.ready && debug_on(DEBUG_EVIDENCE_STATS))
		cmd_note(NULL, "evidence: %lu chain paths verified, %lu reused; %lu certificate "
			 "signatures verified, %lu reused", st->paths, st->path_hits, st->signatures,
			 st->signature_hits);
	ev_cache_release(&j->cache);
	ev_trust_release(&j->trust);
	if (j->has_ref)
		ev_reference_release(&j->ref);
	ev_pins_release(&j->pins);
	memset(j, 0, sizeof(*j));
}

bool ev_judge_opts_given(const struct ev_judge_opts *o)
{
	return o->trust || o->reference || o->pin || o->partial_chain || ev_risk_any(o->allow);
}

/* The slot whose key signed the measurements; 0, the slot the TSMs authenticate with, when unsigned. */
static int signer_slot(const struct ev_decoded *d)
{
	if (d->meas_part.present && !d->meas_part.rc && d->meas->sig == SPDM_SIG_PRESENT)
		return d->meas->slot_id;
	return 0;
}

void ev_judge_run(struct ev_judge *j, const struct evidence_set *s, bool live, unsigned int allow,
		  bool need_report, struct ev_judgement *out)
{
	const struct ev_verify_opts o = {
		.store = j->trust.store, .store_path = j->trust.path, .store_missing = j->trust.missing,
		.partial_chain = j->partial_chain, .pins = j->has_pins ? &j->pins : NULL,
		.ref = j->has_ref ? &j->ref : NULL, .live = live, .cache = &j->cache,
	};
	struct ev_decoded d;

	if (j->has_pins)
		ev_pins_forget_pending(&j->pins);
	ev_decode_set(s, &d);
	ev_verify(&d, &o, &out->results);
	out->decide = (struct ev_decide_opts){ .allow = allow, .signer_slot = signer_slot(&d),
					       .need_report = need_report };
	ev_decide(&out->results, &out->decide, &out->decision);
	ev_decoded_release(&d);
}

void ev_judgement_release(struct ev_judgement *jm)
{
	ev_results_free(&jm->results);
	ev_decision_release(&jm->decision);
}

char *ev_judge_pending_pins(const struct ev_judge *j)
{
	return j->has_pins ? ev_pins_pending_text(&j->pins) : NULL;
}

int ev_judge_save_pins(struct ev_judge *j, bool accepted, char **why)
{
	char *pending;
	int rc = 0;

	if (!accepted)
		return 0;
	pending = ev_judge_pending_pins(j);
	if (pending)
		rc = ev_pins_save(&j->pins, why);
	free(pending);
	return rc;
}
