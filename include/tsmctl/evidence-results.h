/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A judgement (evidence-judge.h) for people and scripts: `evidence
 * --verify`'s lines in audit's style, each skip marked with the risk it
 * takes and whether an option took it, the counts, and the decision's line;
 * or its JSON document (schema/evidence-verify.schema.json).
 */
#ifndef TSMCTL_EVIDENCE_RESULTS_H
#define TSMCTL_EVIDENCE_RESULTS_H

#include <stdbool.h>
#include <stdio.h>

#include <json.h>

#include "tsmctl/evidence-judge.h"

/*
 * "evidence of generation N verified: ..." (the decision's line, for
 * GENERATION; "of several generations" when -1; the line alone when no
 * result was judged), allocated, not escaped.
 */
char *ev_judgement_line(const struct ev_judgement *jm, long long generation);

/* The results as audit --short prints them (hints with VERBOSE), the counts, the decision's line. */
void ev_judgement_print(FILE *out, const struct ev_judgement *jm, const struct evidence_set *s,
			bool verbose);

/*
 * {"schema_version": 1, "bdf", "source", "generation", "checks": [...],
 *  "summary": {...}, "decision": {...}}
 */
struct json_object *ev_judgement_json(const struct ev_judgement *jm, const struct evidence_set *s);

/*
 * The same document for a run that read no evidence: BDF (NULL or "" when
 * none was named validly), from a directory or the kernel, WHY as the
 * decision's one refusal (ev_decide_unread()).
 */
struct json_object *ev_unread_json(const char *bdf, bool from_dir, const char *why);

#endif
