/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every failure said in words an administrator can act on, in one place:
 * why a view is empty or partial (explain.c), why a connect, disconnect,
 * lock, accept or unlock store failed (explain-action.c), why a report
 * failed (explain-report.c). The decisions are made elsewhere; these only say.
 */
#ifndef TSMCTL_EXPLAIN_H
#define TSMCTL_EXPLAIN_H

#include "tsmctl/action.h"
#include "tsmctl/report.h"
#include "tsmctl/snapshot.h"

/* ---- views: printed on stderr, "tsmctl CMD: ..." ---- */
void explain_no_tsm(const struct tsm_snapshot *snap, const char *cmd);
void explain_no_devices(const struct tsm_snapshot *snap, const char *cmd);
void explain_needs_root(const struct tsm_snapshot *snap, const char *cmd);
/*
 * tsm_wait() (uevent.h) came back with ERR (not -EINTR) after SECONDS for
 * WHAT ("tsm0", "any TSM"; escaped by the caller): not ready, and the
 * provider modules' state; or the uevent socket could not be opened.
 */
void explain_not_ready(const char *cmd, const char *what, double seconds, int err);
/* Entries of sys/class/tsm that are no TSM, not listed: said once. */
void explain_bad_tsms(const struct tsm_snapshot *snap, const char *cmd);
/* Attributes that exist but could not be read, or read malformed: said once. */
void explain_read_errors(const struct tsm_snapshot *snap, const char *cmd);
/* Entries named stream* that are no stream link name, not shown: said once. */
void explain_bad_stream_links(const struct tsm_snapshot *snap, const char *cmd);

/* ---- the verbs (action.h): returned escaped, without the errno name (callers append it) ---- */

/*
 * Advice for plan->err, one entry per verb, from NOW: the rescan after a
 * store, or the snapshot that was checked when nothing was written.
 */
char *explain_action(const struct action_plan *plan, const struct tsm_snapshot *now);

/*
 * What is wrong with the TSM NAME for ACTION, whatever the device: none of
 * that name, a devsec TSM for connect, a link TSM for lock. NULL when fine.
 * Not escaped: print it with cmd_error().
 */
char *explain_tsm_unfit(const struct tsm_snapshot *now, enum tsm_action action, const char *name);

/*
 * Guest TDISP feature detection: NULL when some function shows tsm/lock,
 * else why none does (no TDISP guest ABI in this kernel, no devsec TSM).
 */
char *explain_tdisp_missing(const struct tsm_snapshot *snap);

/* ---- report (report.h): printed on stderr, "tsmctl report: ... (ERRNO)" ---- */

/* configfs or its tsm/report group is missing: MISSING is report_group_missing(). */
void explain_report_group_missing(const char *missing);
/* report_run() returned RC (< 0, not -EINTR) at res->step. */
void explain_report(const struct report_request *req, const struct report_result *res, int rc);
/* The entry could not be removed (res->rmdir_error). */
void explain_report_rmdir(const struct report_result *res);

/* ---- evidence (evidence.h): printed on stderr, "tsmctl evidence BDF: ... (ERRNO)" ---- */

struct evidence_error;
/*
 * A failed read of BDF's evidence, advised from SNAP (the tree before the
 * read, or after it when the context went away): NONCE whether one was
 * sent, ATTEMPTS the dumps made, FILE the -o file a write failed for.
 */
void explain_evidence(const struct tsm_snapshot *snap, const char *bdf,
		      const struct evidence_error *e, bool nonce, unsigned int attempts,
		      const char *file);
/* The same words, allocated and not escaped, after "tsmctl evidence BDF: " (accept --verify's). */
char *explain_evidence_text(const struct tsm_snapshot *snap, const char *bdf,
			    const struct evidence_error *e, bool nonce, unsigned int attempts,
			    const char *file);

#endif
