/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The only way tsmctl changes kernel state: check a target against a
 * snapshot, then write the exact value once to tsm/connect, tsm/disconnect
 * or (proposed, guest TDISP) tsm/lock, tsm/accept, tsm/unlock (ABI.md §1.2).
 * The caller rescans to learn what the kernel did; the helpers here read
 * that rescan to verify; explain_action() (explain.h) reads the plan and turns
 * its errno into advice (explain calls here, never the other way round).
 */
#ifndef TSMCTL_ACTION_H
#define TSMCTL_ACTION_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "tsmctl/snapshot.h"

enum tsm_action {
	ACTION_CONNECT,
	ACTION_DISCONNECT,
	ACTION_LOCK,		/* TDISP UNLOCKED -> LOCKED to a devsec TSM */
	ACTION_ACCEPT,		/* LOCKED -> RUN */
	ACTION_UNLOCK,		/* LOCKED/RUN -> UNLOCKED */
};

/* lock, accept, unlock: the guest TDISP verbs. */
static inline bool action_is_tdisp(enum tsm_action action)
{
	return action == ACTION_LOCK || action == ACTION_ACCEPT || action == ACTION_UNLOCK;
}

struct action_plan {
	enum tsm_action action;
	char *bdf;		/* canonical target */
	char *tsm;		/* the TSM named (written, except by accept) */
	char *value;		/* what is (or would be) written: TSM name, "1" (accept) */
	char *path;		/* root-relative attribute path */
	bool already;		/* done already (held, accepted): nothing written */
	bool written;		/* the store reached the kernel */
	bool refused;		/* not written: the tree is no kernel's (err -EROFS) */
	int err;		/* 0 or -errno, from the checks or from the kernel's store */
};

/* How a store the kernel accepted looks in the rescan. */
enum action_verdict {
	VERDICT_OK,
	VERDICT_WARNING,	/* done, with something the administrator should know */
	VERDICT_INSECURE,	/* connected, but a stream is not SECURE or reports IDE_FAIL */
	VERDICT_FAILED,		/* accepted, but the kernel does not show what was asked */
};

/* "connect", "disconnect", "lock", ...: the attribute and the command name. */
const char *action_name(enum tsm_action action);

/* Does sys/bus/pci/devices/BDF exist? BDF must be canonical (no '/'). */
bool action_device_present(const char *bdf);

/* How action_apply() stores. */
enum action_flags {
	ACTION_DRY_RUN = 1 << 0,	/* check only: nothing written, nothing logged */
	ACTION_NO_SYSLOG = 1 << 1,	/* write without the audit line (auditlog.h) */
	ACTION_FORCE = 1 << 2,		/* write even where no kernel takes it (sysfs_takes_stores()) */
	ACTION_STRICT = 1 << 3,		/* action_classify(): done already, or done with a warning, fails */
};

/*
 * Check BDF against SNAP and, unless ACTION_DRY_RUN is in FLAGS, write the
 * TSM name once and log that store and the kernel's answer to the audit
 * trail (unless ACTION_NO_SYSLOG). Nothing that is not written is logged.
 * TSM may be NULL for a disconnect or an unlock (the TSM holding the device)
 * and is ignored by accept.
 * Check failures are the errno the kernel would give (ABI.md §1.2); a
 * pending SIGINT/SIGTERM (stop_signal, stopsig.h) abandons the store with -EINTR;
 * a tree that takes no stores (a copy) refuses it with -EROFS and
 * plan->refused, unless ACTION_FORCE.
 * Returns plan->err; release the plan with action_plan_release().
 */
int action_apply(const struct tsm_snapshot *snap, enum tsm_action action, const char *bdf,
		 const char *tsm, unsigned int flags, struct action_plan *plan);
void action_plan_release(struct action_plan *plan);

/*
 * A TSM named for ACTION, checked once before any device: 0 when it can
 * serve, else the errno a store naming it would get (no such TSM; a devsec
 * TSM for connect, a link TSM for lock). explain_tsm_unfit() says why.
 */
int action_check_tsm(const struct tsm_snapshot *snap, enum tsm_action action, const char *tsm);

/* After an accepted store: does AFTER show it done? *note says why not (or warns). */
enum action_verdict action_verify(const struct action_plan *plan, const struct tsm_snapshot *before,
				  const struct tsm_snapshot *after, char **note);


/*
 * connect --wait: tsm_wait() (uevent.h) for TSM, the same readiness as
 * tsmctl wait. 0, -ETIMEDOUT, -EINTR on SIGINT/SIGTERM, or the uevent
 * socket's -errno.
 */
/* What became of one target: action_classify()'s answer, which the command words. */
enum action_outcome {
	OUTCOME_ALREADY,		/* the state asked for holds already: nothing written */
	OUTCOME_ALREADY_STRICT,		/* the same, a failure with --strict */
	OUTCOME_WOULD_WRITE,		/* dry run: the checks pass */
	OUTCOME_DONE,			/* written, and the rescan shows it (perhaps with a warning) */
	OUTCOME_DONE_WARNED_STRICT,	/* written and shown, with a warning: a failure with --strict */
	OUTCOME_NOT_SHOWN,		/* written, but the rescan shows it insecure or not done */
	OUTCOME_RACED,			/* EBUSY: another writer stored what was asked first */
	OUTCOME_RACED_STRICT,		/* the same, a failure with --strict */
	OUTCOME_INTERRUPTED,		/* a stop signal came before the store: not attempted */
	OUTCOME_FAILED,			/* a check or the kernel refused the store (plan->err) */
};

/*
 * One target's outcome from its PLAN (action_apply()), the VERDICT of
 * action_verify() (read only when the kernel took the store: written, and
 * no error or an EINTR that came while the kernel held it), FLAGS
 * (ACTION_DRY_RUN, ACTION_STRICT), and RACED: the rescan shows what was
 * asked, so an EBUSY was another writer's. Pure.
 */
enum action_outcome action_classify(const struct action_plan *plan, enum action_verdict verdict,
				    unsigned int flags, bool raced);

/* The kernel took the store: written, and no error or an EINTR after it completed. */
static inline bool action_store_taken(const struct action_plan *plan)
{
	return plan->written && (!plan->err || plan->err == -EINTR);
}

int action_wait_ready(const char *tsm, double seconds);

#endif
