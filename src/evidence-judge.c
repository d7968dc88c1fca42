// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A verification's inputs and one evidence set judged with them
 * (evidence-judge.h): the glue between the loaders (trust, reference, pins)
 * and the pure checks.
 */
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-judge.h"

int ev_judge_load(struct ev_judge *j, const struct ev_judge_opts *o, char **why)
{
	int rc;

	memset(j, 0, sizeof(*j));
	j->partial_chain = o->partial_chain;
	rc = ev_trust_load(o->trust, &j->trust, why);
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
	ev_trust_release(&j->trust);
	if (j->has_ref)
		ev_reference_release(&j->ref);
	ev_pins_release(&j->pins);
	memset(j, 0, sizeof(*j));
}

void ev_judge_run(struct ev_judge *j, const struct evidence_set *s, bool live, struct ev_results *r)
{
	const struct ev_verify_opts o = {
		.store = j->trust.store, .store_path = j->trust.path, .store_missing = j->trust.missing,
		.partial_chain = j->partial_chain, .pins = j->has_pins ? &j->pins : NULL,
		.ref = j->has_ref ? &j->ref : NULL, .live = live,
	};
	struct ev_decoded d;

	if (j->has_pins)
		ev_pins_forget_pending(&j->pins);
	ev_decode_set(s, &d);
	ev_verify(&d, &o, r);
	ev_decoded_release(&d);
}

char *ev_judge_pending_pins(const struct ev_judge *j)
{
	return j->has_pins ? ev_pins_pending_text(&j->pins) : NULL;
}

int ev_judge_save_pins(struct ev_judge *j, char **why)
{
	char *pending = ev_judge_pending_pins(j);
	int rc = pending ? ev_pins_save(&j->pins, why) : 0;

	free(pending);
	return rc;
}
