/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Readiness checks over a snapshot → findings. Pure: no I/O, no printing.
 * One table (audit_checks[]) defines every check: evaluation order, the
 * tree (parent ids), --verbose text and the man page sections come from it.
 */
#ifndef TSMCTL_AUDIT_H
#define TSMCTL_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "tsmctl/modhint.h"
#include "tsmctl/snapshot.h"

enum audit_status {
	AUDIT_PASS,
	AUDIT_WARN,
	AUDIT_FAIL,
	AUDIT_SKIP,
	AUDIT_NEEDS_ROOT,
	AUDIT_NR_STATUS
};

/* What kind of object a check is evaluated on. */
enum audit_scope {
	AUDIT_SCOPE_PLATFORM,	/* one result, object "platform" */
	AUDIT_SCOPE_TSM,	/* tsmN */
	AUDIT_SCOPE_FUNC,	/* DDDD:BB:DD.F */
	AUDIT_SCOPE_STREAM,	/* pciDDDD:BB/streamH.R.E */
	AUDIT_SCOPE_HB,		/* pciDDDD:BB */
};

struct audit_run;
struct audit_check;
struct audit_finding;

/* Whether a per-object check has a result for OBJ (of its scope's type) at all. */
typedef bool (*audit_applies_fn)(const struct audit_run *run, const void *obj);
/* A per-object check: F is OBJ's open result, to be completed with result_done(). */
typedef void (*audit_object_fn)(struct audit_run *run, struct audit_finding *f, const void *obj);
/* A stream check over both partners' Selective blocks, found and readable. */
typedef void (*audit_blocks_fn)(struct audit_run *run, struct audit_finding *f,
				const struct ide_stream *s, const struct ide_sel_stream *ep,
				const struct ide_sel_stream *rp);

struct audit_check {
	const char *id;		/* stable: tests and the man page pin it */
	const char *category;
	const char *parent;	/* id of the check this one depends on, NULL for a root */
	enum audit_scope scope;
	const char *description;	/* one line: what is tested */
	const char *hint;		/* the generic fix, when a result has none of its own */
	/* The whole check; NULL: the engine's loop over the scope's objects (audit_for_each()). */
	void (*eval)(struct audit_run *run, const struct audit_check *check);
	audit_applies_fn applies;	/* NULL: every object of the scope */
	audit_object_fn eval_object;	/* one object of the scope, its result opened */
	audit_blocks_fn eval_blocks;	/* a stream check's part once both blocks are readable */
};

extern const struct audit_check audit_checks[];
extern const size_t audit_nr_checks;

const struct audit_check *audit_check_lookup(const char *id);
/* "pass", "warn", "fail", "skip", "needs-root" */
const char *audit_status_name(enum audit_status st);

struct audit_finding {
	const struct audit_check *check;
	char *object;
	enum audit_status status;
	char *message;		/* one line, observed values */
	char *hint;		/* NULL when passing */
	const void *subject;	/* the snapshot object (for parent lookups) */
	/* What the -d/-t/-b filters match; NULL: not related to such an object. */
	const char *devices[2];
	const char *tsm;
	const struct host_bridge *hb_tsms;	/* -t matches any TSM using this host bridge */
	const char *hb;
	bool global;		/* platform result: shown whatever the filters */
	bool needs_root;	/* skipped only because config needed root */
};

struct audit_opts {
	bool strict;			/* warnings become failures */
	bool require_all;		/* --require-connected all */
	char *const *require;		/* --require-connected BDFs (canonical) */
	size_t nr_require;
	const bool *require_absent;	/* per require[]: no such PCI device in sysfs (NULL: all exist) */
	const char *sys;		/* the tree's sys/ as the user named it; NULL: "/sys" */
	const struct module_state *modules;	/* provider modules, for hints */
	size_t nr_modules;
	/*
	 * When set, each finding is handed to emit() as soon as it is complete,
	 * and its strings are freed after: a fleet-sized report is streamed.
	 * The report then keeps none of them (n stays 0).
	 */
	void (*emit)(const struct audit_finding *f, void *arg);
	void *emit_arg;
	/*
	 * device.evidence: F's evidence judged (I/O, the command's: evidence-gate.c),
	 * *MESSAGE and *HINT allocated. NULL: not examined (skip).
	 */
	enum audit_status (*evidence)(const struct pci_func *f, void *arg, char **message,
				      char **hint);
	void *evidence_arg;
	bool require_verified_all;		/* --require-verified all */
	char *const *require_verified;		/* --require-verified BDFs (canonical) */
	size_t nr_require_verified;
	const bool *require_verified_absent;	/* per require_verified[]: no such PCI device */
};

struct audit_report {
	struct audit_finding *findings;	/* in check-table order, then object order */
	size_t n, cap;
};

/* Run every check over SNAP. Allocation failure is fatal (util.h). */
void audit_run(const struct tsm_snapshot *snap, const struct audit_opts *opts,
	       struct audit_report *report);
void audit_report_free(struct audit_report *report);

#endif
