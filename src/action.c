// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * connect / disconnect and the guest TDISP verbs lock / accept / unlock: the
 * checks in the kernel's own order, one store, and the verification of what
 * the rescan shows (ABI.md §1.2, §2.1-2.4); the words for a failed store are
 * in explain-action.c. Nothing here prints except -v's "writing"; the
 * command decides what to say.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/action.h"
#include "tsmctl/auditlog.h"
#include "tsmctl/log.h"
#include "tsmctl/names.h"
#include "tsmctl/render.h"
#include "tsmctl/stopsig.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/uevent.h"
#include "tsmctl/util.h"

/* Messages quote attribute text from the tree: never let its control bytes reach a terminal. */
static char *printable(char *msg)
{
	char *out = text_escape(msg);

	free(msg);
	return out;
}

const char *action_name(enum tsm_action action)
{
	static const char *const names[] = {
		[ACTION_CONNECT] = "connect", [ACTION_DISCONNECT] = "disconnect",
		[ACTION_LOCK] = "lock", [ACTION_ACCEPT] = "accept", [ACTION_UNLOCK] = "unlock",
	};

	return names[action];
}

bool action_device_present(const char *bdf)
{
	return sysfs_attr_exists(PCI_DEVICES, bdf);
}

/* connect_store(): EBUSY for any context is checked before the TSM lookup (ENXIO). */
static int check_connect(const struct tsm_snapshot *snap, const struct pci_func *f,
			 const char *tsm, bool *already)
{
	const struct tsm *t;

	if (!f || !f->has_connect)
		return -ENOENT;
	if (!f->connect)
		return -EIO;	/* present, but the read failed */
	if (*f->connect) {
		*already = streq(f->connect, tsm);
		return *already ? 0 : -EBUSY;
	}
	/* a devsec TSM's lock is a TSM context too: tsm/connect then reads empty (ABI.md §2.2) */
	if (f->has_lock && (!f->lock || *f->lock))
		return f->lock ? -EBUSY : -EIO;
	t = snapshot_find_tsm(snap, tsm);
	if (!t || !tsm_is_link(t))
		return -ENXIO;
	return 0;
}

/*
 * lock_store(), accept_store(), unlock_store() in the kernel's order (ABI.md
 * §1.2): lock: EBUSY for any context, ENXIO unless a devsec TSM, EBUSY with
 * a driver; accept: EINVAL unless locked, EBUSY with a driver; unlock:
 * EINVAL unless locked by that name, EBUSY with a driver. Sets plan->tsm
 * and plan->value.
 */
static int check_tdisp(const struct tsm_snapshot *snap, const struct pci_func *f, const char *tsm,
		       struct action_plan *plan)
{
	const char *holder = f ? func_lock_holder(f) : NULL;
	const struct tsm *t;

	if (plan->action == ACTION_LOCK) {
		plan->tsm = xstrdup(tsm);
		plan->value = xstrdup(tsm);
	} else if (plan->action == ACTION_ACCEPT) {
		plan->tsm = holder ? xstrdup(holder) : NULL;
		plan->value = xstrdup("1");
	} else if (tsm || holder) {
		plan->tsm = xstrdup(tsm ? tsm : holder);
		plan->value = xstrdup(plan->tsm);
	}
	if (!f || !f->has_lock)
		return -ENOENT;
	if (!f->lock)
		return -EIO;	/* present, but the read failed */
	switch (plan->action) {
	case ACTION_LOCK:
		if (*f->lock) {
			plan->already = streq(holder, tsm);
			return plan->already ? 0 : -EBUSY;
		}
		t = snapshot_find_tsm(snap, tsm);
		if (!t || tsm_not_devsec(t))
			return -ENXIO;
		return f->driver ? -EBUSY : 0;
	case ACTION_ACCEPT:
		if (!holder)
			return -EINVAL;
		if (!f->has_accept)
			return -ENOENT;
		if (!f->accept)
			return -EIO;
		/* RUN already: a second store would rerun the TSM's accept op (ABI.md §1.2) */
		if (func_accepted(f) == 1) {
			plan->already = true;
			return 0;
		}
		return f->driver ? -EBUSY : 0;
	default:
		/* nothing holds it: unlocked already, as disconnect of a device not connected */
		if (!*f->lock) {
			plan->already = true;
			return 0;
		}
		if (!holder || (tsm && !streq(tsm, holder)))
			return -EINVAL;
		return f->driver ? -EBUSY : 0;
	}
}

/*
 * disconnect_store(): ENXIO without a context, EINVAL for any other name
 * (sysfs_streq). Not connected at all is done already; a devsec lock is a
 * context disconnect cannot end (ENXIO: no link connection).
 */
static int check_disconnect(const struct pci_func *f, const char *tsm, bool *already)
{
	if (!f || !f->has_connect)
		return -ENOENT;
	if (!f->connect)
		return -EIO;
	if (!*f->connect) {
		if (f->has_lock && (!f->lock || *f->lock))
			return -ENXIO;
		*already = true;
		return 0;
	}
	if (tsm && !streq(f->connect, tsm))
		return -EINVAL;
	return 0;
}

int action_apply(const struct tsm_snapshot *snap, enum tsm_action action, const char *bdf,
		 const char *tsm, unsigned int flags, struct action_plan *plan)
{
	const struct pci_func *f = snapshot_find_func(snap, bdf);
	char canon[BDF_MAX];
	int id;

	memset(plan, 0, sizeof(*plan));
	plan->action = action;
	plan->bdf = xstrdup(bdf);
	/* Names go into a path and into the kernel: only the strict spellings. */
	if (action == ACTION_ACCEPT)
		tsm = NULL;	/* accept's store takes a boolean, not a name */
	if (bdf_canonical(bdf, canon) || !streq(canon, bdf) ||
	    (tsm && tsm_name_parse(tsm, &id)) ||
	    ((action == ACTION_CONNECT || action == ACTION_LOCK) && !tsm))
		return plan->err = -EINVAL;
	plan->path = xasprintf("%s/%s/tsm/%s", PCI_DEVICES, bdf, action_name(action));
	if (action == ACTION_CONNECT) {
		plan->tsm = xstrdup(tsm);
		plan->err = check_connect(snap, f, tsm, &plan->already);
	} else if (action == ACTION_DISCONNECT) {
		plan->err = check_disconnect(f, tsm, &plan->already);
		if (tsm || func_connected(f))
			plan->tsm = xstrdup(tsm ? tsm : f->connect);
	} else {
		plan->err = check_tdisp(snap, f, tsm, plan);
	}
	if (!plan->value && plan->tsm)
		plan->value = xstrdup(plan->tsm);
	if (plan->err || plan->already || (flags & ACTION_DRY_RUN))
		return plan->err;
	if (stop_signal)
		return plan->err = -EINTR;	/* abandoned before the store: nothing changed */
	/* a copy or capture takes a write as a file and would show what no kernel did */
	if (!(flags & ACTION_FORCE) && !sysfs_takes_stores()) {
		plan->refused = true;
		return plan->err = -EROFS;
	}
	if (log_verbose()) {
		char *shown = sysfs_display_path(plan->path);

		cmd_error(action_name(action), "writing '%s' to %s", plan->value, shown);
		free(shown);
	}
	plan->written = true;
	plan->err = sysfs_write(plan->path, plan->value);
	/* the one store of tsmctl: logged here, whichever command made it */
	if (!(flags & ACTION_NO_SYSLOG))
		auditlog_store(action_name(action), plan->bdf, plan->tsm, plan->err);
	return plan->err;
}

void action_plan_release(struct action_plan *plan)
{
	free(plan->bdf);
	free(plan->tsm);
	free(plan->value);
	free(plan->path);
	memset(plan, 0, sizeof(*plan));
}

int action_check_tsm(const struct tsm_snapshot *snap, enum tsm_action action, const char *tsm)
{
	const struct tsm *t;

	if (!tsm || action == ACTION_ACCEPT)
		return 0;
	t = snapshot_find_tsm(snap, tsm);
	if (t && !(action == ACTION_CONNECT && !tsm_is_link(t)) &&
	    !(action == ACTION_LOCK && tsm_not_devsec(t)))
		return 0;
	/* the errno the kernel gives a store naming it: ENXIO, or EINVAL where the name must match */
	return action == ACTION_CONNECT || action == ACTION_LOCK ? -ENXIO : -EINVAL;
}

/*
 * Both blocks the link names are SECURE; on the devsec sample's rig (ABI.md
 * §4) its emulated root port is never enabled, so the endpoint's block alone
 * says whether the connect worked.
 */
static bool link_secure(const struct ide_stream *s)
{
	return stream_block_secure(s, true) &&
	       (stream_block_secure(s, false) || func_is_devsec_sample_port(s->root_port));
}

/* Append "WHAT" to a "; "-separated list. */
static void list_add(char **list, char *what)
{
	str_join(list, "; ", "%s", what);
	free(what);
}

static enum action_verdict verify_connect(const struct action_plan *plan,
					  const struct tsm_snapshot *after,
					  const struct pci_func *f, char **note)
{
	char *bad = NULL, *failbits = NULL;
	bool unverified = false;
	size_t nr = 0;

	if (!streq(f->connect, plan->tsm)) {
		*note = xasprintf("the kernel accepted '%s' but tsm/connect reads %s", plan->tsm,
				  func_connected(f) ? f->connect : "empty");
		return VERDICT_FAILED;
	}
	for (size_t i = 0; i < after->nr_streams; i++) {
		const struct ide_stream *s = after->streams[i];
		bool ep_fail, rp_fail;

		if (s->endpoint != f)
			continue;
		nr++;
		ep_fail = stream_block_ide_fail(s, true);
		rp_fail = stream_block_ide_fail(s, false);
		if ((!stream_partner_block(s, true) && f->needs_root) ||
		    (!stream_partner_block(s, false) && s->root_port && s->root_port->needs_root)) {
			unverified = true;
		} else if (!link_secure(s)) {
			char *eps = render_partner_state(s, true), *rps = render_partner_state(s, false);
			char *why = stream_enable_story(s);

			list_add(&bad, xasprintf("%s on %s: endpoint %s, root port %s%s%s", s->name,
						 s->hb->name, eps, rps, why ? ": " : "",
						 why ? why : ""));
			free(why);
			free(eps);
			free(rps);
		} else if (ep_fail || rp_fail) {
			list_add(&failbits, xasprintf("%s: %s reports IDE_FAIL (it received an IDE "
						      "Fail message)", s->name,
						      ep_fail && rp_fail ? "both partners" : ep_fail ?
						      "the endpoint" : "the root port"));
		}
	}
	if (bad) {
		*note = xasprintf("connected to %s, but the stream is not SECURE on both partners "
				  "(%s); the TSM kept it registered: 'tsmctl disconnect %s' "
				  "releases it", plan->tsm, bad, plan->bdf);
		free(bad);
		free(failbits);
		return VERDICT_INSECURE;
	}
	/* an IDE Fail message received: the link is not what audit would pass (stream.ide-fail) */
	if (failbits) {
		*note = xasprintf("connected to %s, but %s; 'tsmctl disconnect %s' releases the "
				  "stream", plan->tsm, failbits, plan->bdf);
		free(failbits);
		return VERDICT_INSECURE;
	}
	if (!nr) {
		*note = xstrdup("no IDE stream was set up (an SPDM session only)");
		return VERDICT_WARNING;
	}
	if (unverified) {
		*note = xstrdup("stream state not verified: config space past 64 bytes needs root");
		return VERDICT_WARNING;
	}
	return VERDICT_OK;
}

static bool stream_still_there(const struct tsm_snapshot *after, const struct ide_stream *old)
{
	for (size_t i = 0; i < after->nr_streams; i++) {
		const struct ide_stream *s = after->streams[i];

		if (streq(s->name, old->name) && streq(s->hb->name, old->hb->name))
			return true;
	}
	return false;
}

static enum action_verdict verify_disconnect(const struct action_plan *plan,
					     const struct tsm_snapshot *before,
					     const struct tsm_snapshot *after,
					     const struct pci_func *f, char **note)
{
	char *left = NULL;

	if (func_connected(f)) {
		*note = xasprintf("the kernel accepted the disconnect but tsm/connect still reads %s",
				  f->connect);
		return VERDICT_FAILED;
	}
	for (size_t i = 0; i < before->nr_streams; i++) {
		const struct ide_stream *s = before->streams[i];

		if (s->endpoint && streq(s->endpoint->bdf, plan->bdf) && stream_still_there(after, s))
			list_add(&left, xasprintf("%s on %s", s->name, s->hb->name));
	}
	if (left) {
		*note = xasprintf("disconnected, but the stream link is still there: %s", left);
		free(left);
		return VERDICT_FAILED;
	}
	return VERDICT_OK;
}

static const char *lock_text(const struct pci_func *f)
{
	return !f->lock ? "unreadable" : *f->lock ? f->lock : "empty";
}

static const char *accept_text(const struct pci_func *f)
{
	return !f->has_accept ? "absent" : !f->accept ? "unreadable" : f->accept;
}

/* lock: tsm/lock names the TSM, accept 0; accept: accept 1; unlock: lock empty, accept 0. */
static enum action_verdict verify_tdisp(const struct action_plan *plan, const struct pci_func *f,
					char **note)
{
	const char *holder = func_lock_holder(f);
	int accepted = func_accepted(f);

	switch (plan->action) {
	case ACTION_LOCK:
		if (!streq(holder, plan->tsm)) {
			*note = xasprintf("the kernel accepted '%s' but tsm/lock reads %s",
					  plan->tsm, lock_text(f));
			return VERDICT_FAILED;
		}
		if (accepted != 0) {
			*note = xasprintf("locked to %s, but tsm/accept reads %s where a fresh "
					  "lock reads 0", plan->tsm, accept_text(f));
			return accepted == 1 ? VERDICT_FAILED : VERDICT_WARNING;
		}
		return VERDICT_OK;
	case ACTION_ACCEPT:
		if (accepted != 1) {
			*note = xasprintf("the kernel accepted the accept but tsm/accept reads %s",
					  accept_text(f));
			return VERDICT_FAILED;
		}
		if (!holder) {
			*note = xasprintf("tsm/accept reads 1 but tsm/lock reads %s", lock_text(f));
			return VERDICT_FAILED;
		}
		return VERDICT_OK;
	default:
		if (!f->lock || *f->lock) {
			*note = xasprintf("the kernel accepted the unlock but tsm/lock reads %s",
					  lock_text(f));
			return VERDICT_FAILED;
		}
		if (accepted != 0) {
			*note = xasprintf("unlocked, but tsm/accept reads %s where it should "
					  "read 0", accept_text(f));
			return accepted == 1 ? VERDICT_FAILED : VERDICT_WARNING;
		}
		return VERDICT_OK;
	}
}

enum action_verdict action_verify(const struct action_plan *plan, const struct tsm_snapshot *before,
				  const struct tsm_snapshot *after, char **note)
{
	const struct pci_func *f = snapshot_find_func(after, plan->bdf);
	bool tdisp = action_is_tdisp(plan->action);
	enum action_verdict v;

	*note = NULL;
	/* the TSM unregistered while the kernel held the store: its contexts went with it */
	if (plan->tsm && plan->action != ACTION_ACCEPT && snapshot_find_tsm(before, plan->tsm) &&
	    !snapshot_find_tsm(after, plan->tsm)) {
		*note = printable(xasprintf("%s went away during the %s: it is no longer registered "
					    "(its provider module unloaded, or the platform shut it "
					    "down), and what it held for the device went with it",
					    plan->tsm, action_name(plan->action)));
		return VERDICT_FAILED;
	}
	if (!f || !(tdisp ? f->has_lock : f->has_connect)) {
		*note = xasprintf("the device%s is gone after the %s (surprise removal?)",
				  action_device_present(plan->bdf) ? "'s tsm/ group" : "",
				  action_name(plan->action));
		return VERDICT_FAILED;
	}
	if (tdisp)
		v = verify_tdisp(plan, f, note);
	else if (plan->action == ACTION_CONNECT)
		v = verify_connect(plan, after, f, note);
	else
		v = verify_disconnect(plan, before, after, f, note);
	if (*note)
		*note = printable(*note);
	return v;
}

enum action_outcome action_classify(const struct action_plan *plan, enum action_verdict verdict,
				    unsigned int flags, bool raced)
{
	bool strict = flags & ACTION_STRICT;

	if (!plan->err && plan->already)
		return strict ? OUTCOME_ALREADY_STRICT : OUTCOME_ALREADY;
	if (!plan->err && (flags & ACTION_DRY_RUN))
		return OUTCOME_WOULD_WRITE;
	if (action_store_taken(plan)) {
		if (verdict == VERDICT_OK || (verdict == VERDICT_WARNING && !strict))
			return OUTCOME_DONE;
		/* an EINTR with a warning under --strict is told as the verification said */
		return verdict == VERDICT_WARNING && !plan->err ? OUTCOME_DONE_WARNED_STRICT :
		       OUTCOME_NOT_SHOWN;
	}
	if (plan->written && plan->err == -EBUSY && raced)
		return strict ? OUTCOME_RACED_STRICT : OUTCOME_RACED;
	if (plan->err == -EINTR && !plan->written)
		return OUTCOME_INTERRUPTED;
	return OUTCOME_FAILED;
}

int action_wait_ready(const char *tsm, double seconds)
{
	char *const names[] = { (char *)tsm };

	/*
	 * The TSM's KOBJ_CHANGE comes after the kernel re-evaluated the tsm/ groups
	 * (ABI.md §1.2, §2.8): once it is ready, a missing tsm/connect stays missing,
	 * so there is nothing left to wait for and the store's checks explain it.
	 */
	return tsm_wait(names, 1, seconds, &stop_signal, "connect", NULL);
}
