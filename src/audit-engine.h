/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between audit's result engine (audit.c) and its checks (audit-checks.c):
 * a check opens a result for a subject with result_start(), which says skip
 * when the parent check did not pass, and completes it with result_done().
 */
#ifndef TSMCTL_AUDIT_ENGINE_H
#define TSMCTL_AUDIT_ENGINE_H

#include "tsmctl/audit.h"
#include "tsmctl/util.h"

struct result_slot;

struct audit_run {
	const struct tsm_snapshot *snap;
	const struct audit_opts *opts;
	struct audit_report *rep;
	struct result_slot *slots;	/* open addressing, size a power of two */
	size_t nr_slots, used_slots;
	bool *is_parent;		/* by check index: some check hangs below it */
};

/* The object a result is about, and what the filters match it by. */
struct subject {
	const void *ptr;
	const char *object;
	const char *dev0, *dev1, *tsm, *hb;
	const struct host_bridge *hb_tsms;	/* -t: any TSM using this host bridge */
	bool global;
};

extern const struct subject subject_platform;
struct subject subject_func(const struct pci_func *f);
/* SUBJ.object points into BUF (freed by the caller). */
struct subject subject_stream(const struct ide_stream *s, char **buf);
struct subject subject_hb(const struct host_bridge *hb);
struct subject subject_tsm(const struct tsm *t);

/*
 * A per-object check's run: for each object of C's scope, in the snapshot's
 * order, that C->applies to, open its result and hand it to C->eval_object.
 * A check's own eval calls it when it has results beyond its scope's objects.
 */
void audit_for_each(struct audit_run *run, const struct audit_check *c);

/*
 * Open a result of check C for subject S. When its parent failed or was
 * skipped the result is recorded as skip and NULL returned; otherwise the
 * caller fills it in with result_done(). Only one result is open at a time.
 */
struct audit_finding *result_start(struct audit_run *run, const struct audit_check *c,
				   const struct subject *s);
/* Fill in the open result; HINT is taken over (NULL: the check's generic hint). */
void result_done(struct audit_run *run, struct audit_finding *f, enum audit_status st,
		 char *hint, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Skipped only for lack of privilege: its children still try. */
void result_skip_needs_root(struct audit_run *run, struct audit_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The tree's sys/ as the user named it ("/sys", "./capture/sys"), for messages. */
const char *audit_sys(const struct audit_run *run);

/* Append "; "-separated text to *s (allocated, may be NULL). */
void audit_text_add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last path component; NULL for NULL. */
static inline const char *base_name(const char *path)
{
	return path ? path_base(path) : NULL;
}

#endif
