// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * connect / disconnect and the guest TDISP verbs lock / accept / unlock: the
 * checks in the kernel's own order, one store, and the words for what came
 * back (ABI.md §1.2, §2.1-2.4). Nothing here prints except -v's "writing";
 * the command decides what to say.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/action.h"
#include "tsmctl/auditlog.h"
#include "tsmctl/cli.h"
#include "tsmctl/names.h"
#include "tsmctl/render.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/uevent.h"
#include "tsmctl/util.h"

#define PCI_DEVICES	"sys/bus/pci/devices"
#define TSM_CLASS	"sys/class/tsm"

volatile sig_atomic_t action_signal;

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
	char *path = path_join(PCI_DEVICES, bdf);
	bool present = sysfs_exists(path);

	free(path);
	return present;
}

/* v6.19 has no pci_mode: every TSM registered there is a link TSM (ABI.md §1.1). */
static bool tsm_is_link(const struct tsm *t)
{
	return !t->has_pci_mode || streq(t->mode, "link");
}

static bool func_connected(const struct pci_func *f)
{
	return f && f->connect && *f->connect;
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

/* pci_mode says the TSM is not a devsec one; without pci_mode the kernel must tell. */
static bool tsm_not_devsec(const struct tsm *t)
{
	return t->has_pci_mode && t->mode && !streq(t->mode, "devsec");
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
	const char *holder = f ? render_lock_holder(f) : NULL;
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
		if (render_accepted(f) == 1) {
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
	if (action_signal)
		return plan->err = -EINTR;	/* abandoned before the store: nothing changed */
	if (tsmctl_verbose) {
		char *shown = sysfs_display_path(plan->path);

		print_error("tsmctl %s: writing '%s' to %s", action_name(action), plan->value,
			    shown);
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

/* "tsm0 (link), tsm1 (devsec)"; only link TSMs when LINK_ONLY; "" when none. */
static char *tsm_names(const struct tsm_snapshot *snap, bool link_only)
{
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < snap->nr_tsms; i++) {
		const struct tsm *t = snap->tsms[i];

		if (link_only && !tsm_is_link(t))
			continue;
		if (t->has_pci_mode && !link_only)
			strbuf_join(&s, ", ", "%s (%s)", t->name, t->mode ? t->mode : "unknown mode");
		else
			strbuf_join(&s, ", ", "%s", t->name);
	}
	return strbuf_take(&s);
}

/* NAME is not a registered TSM; ALL lists the ones that are. */
static char *no_such_tsm(const struct tsm_snapshot *now, const char *name, const char *all)
{
	if (!now->nr_tsms)
		return xasprintf("there is no TSM named %s: none is registered (see 'tsmctl list')",
				 name);
	return xasprintf("there is no TSM named %s; registered: %s", name, all);
}

static char *devsec_names(const struct tsm_snapshot *snap);

/*
 * What is wrong with the TSM NAME for ACTION, whatever the device: none of
 * that name, a devsec TSM for connect, a link TSM for lock. NULL when fine.
 */
static char *explain_tsm(const struct tsm_snapshot *now, enum tsm_action action, const char *name)
{
	const struct tsm *t = snapshot_find_tsm(now, name);
	char *all = tsm_names(now, false), *others = NULL, *msg = NULL;

	if (!t) {
		msg = no_such_tsm(now, name, all);
	} else if (action == ACTION_CONNECT && !tsm_is_link(t)) {
		others = tsm_names(now, true);
		msg = xasprintf("%s is a %s TSM (pci_mode), which secures devices inside a guest "
				"(lock/accept); connect needs a link TSM%s%s", t->name,
				t->mode ? t->mode : "non-link",
				*others ? ": " : ", and none is registered", others);
	} else if (action == ACTION_LOCK && tsm_not_devsec(t)) {
		others = devsec_names(now);
		msg = xasprintf("%s is not a devsec TSM (pci_mode %s): lock needs the guest's devsec "
				"TSM%s%s", t->name, t->mode, *others ? ": " : ", and none is registered",
				others);
	}
	free(others);
	free(all);
	return msg;
}

char *action_check_tsm(const struct tsm_snapshot *snap, enum tsm_action action, const char *tsm,
		       int *err)
{
	/* the errno the kernel gives a store naming it: ENXIO, or EINVAL where the name must match */
	*err = action == ACTION_CONNECT || action == ACTION_LOCK ? -ENXIO : -EINVAL;
	return tsm && action != ACTION_ACCEPT ? explain_tsm(snap, action, tsm) : NULL;
}

/* pci_ide_stream_alloc() failed: which of its resources ran out (ABI.md §2.1, §2.3, §2.6). */
static char *explain_no_stream(const struct action_plan *plan, const struct pci_func *f)
{
	const char *type = render_pcie_type(f);
	char *no_pool = render_no_pool_reason(f), *msg;

	if (type && !streq(type, "endpoint"))
		return xasprintf("%s could not set up an IDE stream: the device is a %s, and the "
				 "kernel's IDE helpers set up streams only for PCIe endpoints",
				 plan->tsm, streq(type, "upstream_port") ? "switch upstream port" :
				 streq(type, "rc_endpoint") ? "root complex integrated endpoint" :
				 type);
	if (no_pool) {
		msg = xasprintf("%s could not set up an IDE stream: %s, so no TSM can connect a "
				"device below it (on Intel TDX Connect the pool comes from the ACPI "
				"KEYP table: this host bridge has no entry)", plan->tsm, no_pool);
		free(no_pool);
		return msg;
	}
	if (f && f->hb && f->hb->available_streams == 0)
		return xasprintf("the %s stream pool is used up (available_secure_streams 0): "
				 "disconnect another device below %s first", f->hb->name,
				 f->hb->name);
	return xasprintf("%s could not set up an IDE stream: no free Selective IDE register "
			 "block in the endpoint or in its root port%s%s, or the TSM itself ran "
			 "out of stream resources (the TDX module's, with TDX Connect); see the "
			 "kernel log", plan->tsm, f && f->root_port ? " " : "",
			 f && f->root_port ? f->root_port->bdf : "");
}

/* TDX Connect: a failed SEAMCALL (the module refused the stream or the session) is EFAULT. */
static char *explain_seamcall(const struct action_plan *plan, const struct tsm_snapshot *now)
{
	const struct tsm *t = snapshot_find_tsm(now, plan->tsm);

	return xasprintf("the TDX module refused (a SEAMCALL failed, which %s reports as "
			 "EFAULT): check that TDX Connect is enabled in the firmware and the "
			 "module supports it (tdx_host version %s), and the kernel log for the "
			 "SEAMCALL's status code", plan->tsm,
			 t && t->provider_version ? t->provider_version : "unknown");
}

/* Does function 0 of B's slot exist with tsm/ATTR? Its name into PF0. */
static bool slot_pf0_has(const struct bdf *b, const char *attr, char pf0[BDF_MAX])
{
	struct bdf zero = *b;
	char *path;
	bool has;

	zero.fn = 0;
	bdf_format(&zero, pf0);
	path = xasprintf("%s/%s/tsm/%s", PCI_DEVICES, pf0, attr);
	has = sysfs_exists(path);
	free(path);
	return has;
}

/* Why a function shows no tsm/connect (ABI.md §1.2 visibility, §2.1, §2.2). */
static char *explain_no_group(const struct tsm_snapshot *now, const struct pci_func *f,
			      const struct action_plan *plan)
{
	const char *attr = action_name(plan->action);
	char *links = tsm_names(now, true), *all = tsm_names(now, false), *msg;
	char pf0[BDF_MAX];
	struct bdf b;

	if (!action_device_present(plan->bdf))
		msg = xstrdup("the device is gone (removed or hot-unplugged)");
	else if (!now->nr_tsms)
		msg = xasprintf("no TSM is registered, and the kernel shows tsm/%s only while a "
				"link TSM is (see 'tsmctl list'; is the provider module loaded?)", attr);
	else if (!*links)
		msg = xasprintf("no link TSM is registered (only %s), and the kernel shows tsm/%s "
				"only while one is", all, attr);
	else if (f && f->dsm && *f->dsm)
		msg = xasprintf("a dependent function has no tsm/%s: its DSM %s manages it; "
				"%s %s instead", attr, f->dsm, attr, f->dsm);
	else if (render_pcie_type(f) && (streq(render_pcie_type(f), "root_port") ||
					   streq(render_pcie_type(f), "downstream_port")))
		msg = xasprintf("has no tsm/%s: it is a %s, one partner of the streams of the "
				"devices below it; the kernel %ss the device (function 0 of the "
				"endpoint or switch upstream port below)", attr,
				streq(render_pcie_type(f), "root_port") ? "root port" :
				"switch downstream port", attr);
	else if (!bdf_parse(plan->bdf, &b) && b.fn != 0 && slot_pf0_has(&b, attr, pf0))
		/* only a function 0 that is there and has the attribute is worth naming */
		msg = xasprintf("has no tsm/%s: the kernel connects a slot through its function 0 "
				"(%s), and that covers the other functions", attr, pf0);
	else
		msg = xasprintf("has no tsm/%s: the kernel offers it only on function 0 of a PCIe "
				"endpoint, switch upstream port or RCiEP with IDE or TEE-IO "
				"(see 'tsmctl devices --all')", attr);
	free(links);
	free(all);
	return msg;
}

static char *explain_connect(const struct action_plan *plan, const struct tsm_snapshot *now,
			     const struct pci_func *f)
{
	int err = -plan->err;
	char *msg;

	switch (err) {
	case EBUSY:
		if (func_connected(f) && streq(f->connect, plan->tsm))
			msg = xasprintf("already connected to %s", f->connect);
		else if (func_connected(f))
			msg = xasprintf("already connected to %s; to move it to %s, first run "
					"'tsmctl disconnect %s'", f->connect, plan->tsm, plan->bdf);
		else if (f && render_lock_holder(f))
			msg = xasprintf("locked to %s (TDISP, a devsec TSM's context), and a device "
					"has one TSM context at a time: run 'tsmctl unlock %s' first",
					render_lock_holder(f), plan->bdf);
		else if (f && f->lock && *f->lock)
			msg = xasprintf("has a TSM context from %s (tsm/lock names it), and a device "
					"has one at a time", f->lock);
		else if (plan->written)
			/* no context to be seen: what is busy is the stream the TSM wanted */
			msg = xasprintf("the kernel found the device busy, yet tsm/connect%s reads "
					"empty: %s found no free Stream ID for a new stream on %s (all "
					"in use, or one is held by a stream that was enabled at boot); "
					"disconnect another device there first",
					f && f->has_lock ? " and tsm/lock" : "", plan->tsm,
					f && f->hb ? f->hb->name : "its host bridge");
		else
			msg = xasprintf("%s reported the device busy; see the kernel log", plan->tsm);
		break;
	case ENXIO:
		msg = explain_tsm(now, plan->action, plan->tsm);
		if (msg)
			break;
		if (f && f->doe_known && !f->nr_doe_features)
			msg = xasprintf("has no DOE mailbox, so %s cannot set up an SPDM session with "
					"it (no doe_features)", plan->tsm);
		else if (f && f->doe_known && !render_has_doe(f, DOE_FEATURE_CMA))
			msg = xasprintf("has no CMA/SPDM DOE mailbox (doe_features lacks %s), so %s "
					"cannot authenticate it", DOE_FEATURE_CMA, plan->tsm);
		else
			msg = xasprintf("%s declined the device: it does not serve %s, its probe "
					"failed%s, or the IDE stream did not come up SECURE and was "
					"released; see the kernel log", plan->tsm,
					f && f->hb ? f->hb->name : "its host bridge",
					f && f->doe_known ? "" : " (no CMA/SPDM DOE mailbox? this "
					"kernel shows no doe_features)");
		break;
	case EFAULT:
		if (tsm_is_tdx_connect(snapshot_find_tsm(now, plan->tsm))) {
			msg = explain_seamcall(plan, now);
			break;
		}
		if (f && f->doe_known && !render_has_doe(f, DOE_FEATURE_SSESSION)) {
			msg = xasprintf("%s needs secure SPDM on the CMA mailbox, and doe_features "
					"lacks %s (SEV-TIO requires it)", plan->tsm, DOE_FEATURE_SSESSION);
			break;
		}
		/* SEV-TIO reports a failed stream allocation as EFAULT */
		/* fall through */
	case ENOMEM:
		msg = explain_no_stream(plan, f);
		break;
	case EINVAL:
		msg = xasprintf("%s rejected the request (with SEV-TIO: the PSP returned an error "
				"status); see the kernel log", plan->tsm);
		break;
	case ENODEV:
		msg = xasprintf("the device or %s went away during the connect", plan->tsm);
		break;
	case EIO:
		if (!plan->written) {
			msg = xstrdup("tsm/connect exists but could not be read");
			break;
		}
		/* fall through */
	default:
		msg = xasprintf("%s failed the connect: %s; see the kernel log", plan->tsm,
				strerror(err));
		break;
	}
	return msg;
}

static char *explain_disconnect(const struct action_plan *plan, const struct tsm_snapshot *now,
				const struct pci_func *f)
{
	int err = -plan->err;

	switch (err) {
	case ENXIO:
		if (f && render_lock_holder(f))
			return xasprintf("not connected, but locked to %s (TDISP, a devsec TSM's "
					 "context), which disconnect does not end: 'tsmctl unlock %s' "
					 "does", render_lock_holder(f), plan->bdf);
		if (plan->written)
			return xstrdup("not connected (any more: did another process disconnect it?)");
		return xstrdup("not connected to any TSM; nothing to disconnect");
	case EINVAL:
		if (func_connected(f))
			return xasprintf("connected to %s, not %s%s: run 'tsmctl disconnect %s' "
					 "(the TSM may be left out)", f->connect, plan->tsm,
					 snapshot_find_tsm(now, plan->tsm) ? "" :
					 " (and there is no TSM of that name)", plan->bdf);
		return xasprintf("the kernel did not accept '%s' as the connected TSM's name",
				 plan->tsm ? plan->tsm : "");
	case EIO:
		if (!plan->written)
			return xstrdup("tsm/connect exists but could not be read");
		/* fall through */
	default:
		return xasprintf("%s failed the disconnect: %s; see the kernel log",
				 plan->tsm ? plan->tsm : "the TSM", strerror(err));
	}
}

/* ---- guest TDISP (proposed: ABI.md §1.2 tsm/lock, accept, unlock; §2.1, §2.5, §2.7) ---- */

/* "tsm1, tsm2": the TSMs whose pci_mode is devsec; "" when none. */
static char *devsec_names(const struct tsm_snapshot *snap)
{
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (streq(snap->tsms[i]->mode, "devsec"))
			strbuf_join(&s, ", ", "%s", snap->tsms[i]->name);
	return strbuf_take(&s);
}

char *action_tdisp_missing(const struct tsm_snapshot *snap)
{
	bool any_mode = false;
	char *devsec, *all, *msg;

	for (size_t i = 0; i < snap->nr_funcs; i++)
		if (snap->funcs[i]->has_lock)
			return NULL;
	for (size_t i = 0; i < snap->nr_tsms; i++)
		any_mode |= snap->tsms[i]->has_pci_mode;
	devsec = devsec_names(snap);
	all = tsm_names(snap, false);
	if (*devsec)
		msg = xasprintf("the devsec TSM %s is registered, but no PCI function shows "
				"tsm/lock: the kernel offers it only on PCIe functions with "
				"DEVCAP.TEE (see 'tsmctl devices --all')", devsec);
	else if (!snap->nr_tsms)
		msg = xasprintf("no PCI function has tsm/lock: either %s lacks the TDISP guest "
				"ABI (tsm/lock, tsm/accept, tsm/unlock: proposed, not in v6.19), or "
				"no devsec TSM is registered (the guest's sev-guest, tdx-guest or "
				"arm-cca-guest driver registers one)", sysfs_kernel_words());
	else if (any_mode)
		msg = xasprintf("no devsec TSM is registered (only %s), and the kernel shows "
				"tsm/lock only while one is: lock, accept and unlock are for "
				"devices inside a confidential guest", all);
	else
		msg = xasprintf("%s lacks the TDISP guest ABI: tsm/lock, tsm/accept and tsm/unlock "
				"are proposed, not in v6.19 (no TSM has pci_mode, no device has "
				"tsm/lock)", sysfs_kernel_words());
	free(devsec);
	free(all);
	return msg;
}

/* Why a function shows no tsm/lock (or tsm/accept). */
static char *explain_no_lock(const struct tsm_snapshot *now, const struct pci_func *f,
			     const struct action_plan *plan)
{
	char *missing;

	if (!action_device_present(plan->bdf))
		return xstrdup("the device is gone (removed or hot-unplugged)");
	missing = action_tdisp_missing(now);
	if (missing)
		return missing;
	if (f && f->has_lock)
		return xasprintf("has tsm/lock but no tsm/accept: %s offers no accept step",
				 sysfs_kernel_words());
	return xstrdup("not a TDISP-capable device (no DEVCAP.TEE / no devsec TSM): it has no "
		       "tsm/lock, which the kernel offers on PCIe functions with DEVCAP.TEE while "
		       "a devsec TSM is registered (see 'tsmctl devices --all')");
}

/* "driver NAME is bound ...: unbind it first (echo BDF > .../drivers/NAME/unbind)" */
static char *driver_advice(const struct action_plan *plan, const struct pci_func *f,
			   const char *why)
{
	char *rel = xasprintf("sys/bus/pci/drivers/%s/unbind", f->driver);
	char *shown = sysfs_display_path(rel);
	char *msg = xasprintf("driver %s is bound, and %s: unbind it first (echo %s > %s)",
			      f->driver, why, plan->bdf, shown);

	free(rel);
	free(shown);
	return msg;
}

/* The TSM context a function has that is not a devsec lock: a link TSM's connection. */
static char *link_context(const struct pci_func *f)
{
	if (f->dsm && *f->dsm && !streq(f->dsm, f->bdf))
		return xasprintf("has a TSM context from link TSM %s (its DSM %s is connected)",
				 f->lock, f->dsm);
	return xasprintf("is connected via link TSM %s", f->lock);
}

static char *explain_lock(const struct action_plan *plan, const struct tsm_snapshot *now,
			  const struct pci_func *f)
{
	const char *holder = f ? render_lock_holder(f) : NULL;
	char *ctx, *msg;

	switch (-plan->err) {
	case EBUSY:
		if (holder && streq(holder, plan->tsm))
			return xasprintf("already locked by %s", holder);
		if (holder)
			return xasprintf("already locked by %s, and a device has one TSM "
					 "context at a time: run 'tsmctl unlock %s' first", holder,
					 plan->bdf);
		if (f && f->lock && *f->lock) {
			ctx = link_context(f);
			msg = xasprintf("%s, and a device has one TSM context at a time: run "
					"'tsmctl disconnect %s' first", ctx,
					f->dsm && *f->dsm ? f->dsm : plan->bdf);
			free(ctx);
			return msg;
		}
		if (f && f->driver)
			return driver_advice(plan, f, "the kernel locks only a device without a "
					     "driver");
		return xasprintf("%s reported the device busy (another TSM context or a driver "
				 "that has gone again?); see the kernel log", plan->tsm);
	case ENXIO:
		msg = explain_tsm(now, plan->action, plan->tsm);
		if (msg)
			return msg;
		return xasprintf("%s declined to lock the device (it does not serve %s, or its lock "
				 "op failed); see the kernel log", plan->tsm,
				 f && f->hb ? f->hb->name : "its host bridge");
	case EINVAL:
		return xasprintf("the kernel did not accept '%s' as a TSM name", plan->tsm);
	default:
		return xasprintf("%s failed the lock: %s; see the kernel log", plan->tsm,
				 strerror(-plan->err));
	}
}

/* EBUSY with a driver bound (DRIVER_NOTE says why that matters), or another errno of the TSM. */
static char *explain_busy_or_failed(const struct action_plan *plan, const struct pci_func *f,
				    const char *driver_note)
{
	const char *tsm = plan->tsm ? plan->tsm : "the TSM";

	if (plan->err == -EBUSY && f && f->driver)
		return driver_advice(plan, f, driver_note);
	if (plan->err == -EBUSY)
		return xasprintf("%s reported the device busy; see the kernel log", tsm);
	return xasprintf("%s failed the %s: %s; see the kernel log", tsm,
			 action_name(plan->action), strerror(-plan->err));
}

static char *explain_accept(const struct action_plan *plan, const struct tsm_snapshot *now,
			    const struct pci_func *f)
{
	const char *holder = f ? render_lock_holder(f) : NULL;
	char *devsec, *ctx, *msg;

	switch (-plan->err) {
	case EINVAL:
		if (holder)
			return xasprintf("the kernel refused the accept although tsm/lock "
					 "reads %s; see the kernel log", holder);
		if (f && f->lock && *f->lock) {
			ctx = link_context(f);
			msg = xasprintf("%s and is not locked: accept applies to a device locked "
					"by a devsec TSM", ctx);
			free(ctx);
			return msg;
		}
		devsec = devsec_names(now);
		msg = xasprintf("not locked%s: lock it first (tsmctl lock %s %s)",
				plan->written ? " (any more: did another process unlock it?)" : "",
				plan->bdf, *devsec && !strchr(devsec, ',') ? devsec : "TSM");
		free(devsec);
		return msg;
	default:
		return explain_busy_or_failed(plan, f, "the kernel accepts a device only before its "
					      "driver binds; accept, then bind the driver again");
	}
}

static char *explain_unlock(const struct action_plan *plan, const struct pci_func *f)
{
	const char *holder = f ? render_lock_holder(f) : NULL;
	char *ctx, *msg;

	switch (-plan->err) {
	case EINVAL:
		if (holder && plan->tsm && !streq(holder, plan->tsm))
			return xasprintf("locked by %s, not %s: run 'tsmctl unlock %s' (the "
					 "TSM may be left out)", holder, plan->tsm, plan->bdf);
		if (holder)
			return xasprintf("the kernel did not accept '%s' as the lock holder's name",
					 plan->tsm);
		if (f && f->lock && *f->lock) {
			ctx = link_context(f);
			msg = xasprintf("%s and is not locked: 'tsmctl disconnect %s' ends a link "
					"connection", ctx, f->dsm && *f->dsm ? f->dsm : plan->bdf);
			free(ctx);
			return msg;
		}
		if (plan->written)
			return xstrdup("not locked (any more: did another process unlock it?)");
		return xstrdup("not locked; nothing to unlock");
	default:
		return explain_busy_or_failed(plan, f, "the kernel unlocks a device only without a "
					      "driver");
	}
}

/* Streams the snapshot links to BDF's device, counted; the first name into *first. */
static size_t func_streams(const struct tsm_snapshot *snap, const char *bdf, const char **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];

		if (s->endpoint && streq(s->endpoint->bdf, bdf) && !n++)
			*first = s->name;
	}
	return n;
}

/* A failed connect the kernel saw: say whether it cleaned up (ABI.md §1.2: "torn down"). */
static char *rollback_note(const struct action_plan *plan, const struct tsm_snapshot *now,
			   const struct pci_func *f, char *msg)
{
	const char *stream;
	char *next;

	if (plan->action != ACTION_CONNECT || !plan->written || func_connected(f) ||
	    plan->err == -EACCES || plan->err == -EPERM || plan->err == -EROFS ||
	    plan->err == -ENOENT)
		return msg;
	if (func_streams(now, plan->bdf, &stream))
		next = xasprintf("%s; %s is still registered", msg, stream);
	else
		next = xasprintf("%s; nothing is left behind (tsm/connect reads empty, no stream)",
				 msg);
	free(msg);
	return next;
}

static char *explain(const struct action_plan *plan, const struct tsm_snapshot *now)
{
	const struct pci_func *f = snapshot_find_func(now, plan->bdf);
	const char *attr = action_name(plan->action);
	bool tdisp = action_is_tdisp(plan->action);
	char *msg;

	switch (-plan->err) {
	case 0:
		return xstrdup("");
	case EACCES:
	case EPERM:
		if (geteuid() != 0)
			return xasprintf("writing tsm/%s needs root (CAP_SYS_ADMIN): run tsmctl as "
					 "root", attr);
		return xasprintf("permission denied writing tsm/%s although running as root "
				 "(a security module, or a read-only /sys?)", attr);
	case EROFS:
		return xasprintf("/sys is mounted read-only here (inside a container?): tsm/%s "
				 "cannot be written", attr);
	case EINTR:
		if (!plan->written)
			return xstrdup("interrupted before writing; nothing was changed");
		if (tdisp)
			return xasprintf("interrupted while the kernel waited for its TSM lock; "
					 "tsm/lock now reads %s",
					 f && f->lock && *f->lock ? f->lock : "empty");
		msg = xasprintf("interrupted while the kernel waited for its TSM lock; tsm/connect "
				"now reads %s", func_connected(f) ? f->connect : "empty");
		return msg;
	case ENOENT:
		return tdisp ? explain_no_lock(now, f, plan) : explain_no_group(now, f, plan);
	case EIO:
		if (tdisp && !plan->written)
			return xasprintf("tsm/%s exists but could not be read",
					 f && f->has_lock && !f->lock ? "lock" : "accept");
		break;
	}
	if (plan->action == ACTION_LOCK)
		return explain_lock(plan, now, f);
	if (plan->action == ACTION_ACCEPT)
		return explain_accept(plan, now, f);
	if (plan->action == ACTION_UNLOCK)
		return explain_unlock(plan, f);
	if (plan->action == ACTION_DISCONNECT)
		return explain_disconnect(plan, now, f);
	return rollback_note(plan, now, f, explain_connect(plan, now, f));
}

char *action_explain(const struct action_plan *plan, const struct tsm_snapshot *now)
{
	return printable(explain(plan, now));
}

bool action_stream_secure(const struct ide_stream *s)
{
	const struct ide_sel_stream *ep = stream_partner_block(s, true);
	const struct ide_sel_stream *rp = stream_partner_block(s, false);

	return ep && rp && ep->regs.enabled && rp->regs.enabled &&
	       ep->regs.state == IDE_STATE_SECURE && rp->regs.state == IDE_STATE_SECURE;
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
		const struct ide_sel_stream *ep, *rp;

		if (s->endpoint != f)
			continue;
		nr++;
		ep = stream_partner_block(s, true);
		rp = stream_partner_block(s, false);
		if ((!ep && f->needs_root) || (!rp && s->root_port && s->root_port->needs_root)) {
			unverified = true;
		} else if (!action_stream_secure(s)) {
			char *eps = render_partner_state(s, true), *rps = render_partner_state(s, false);

			list_add(&bad, xasprintf("%s on %s: endpoint %s, root port %s", s->name,
						 s->hb->name, eps, rps));
			free(eps);
			free(rps);
		} else if (ep->regs.ide_fail || rp->regs.ide_fail) {
			list_add(&failbits, xasprintf("%s: %s reports IDE_FAIL (it received an IDE "
						      "Fail message)", s->name,
						      ep->regs.ide_fail && rp->regs.ide_fail ?
						      "both partners" : ep->regs.ide_fail ?
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
	const char *holder = render_lock_holder(f);
	int accepted = render_accepted(f);

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

static void on_signal(int sig)
{
	action_signal = sig;
}

void action_catch_signals(void)
{
	/* No SA_RESTART: an interrupted store must never be issued a second time. */
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static bool ready(const char *tsm, char *const *bdfs, size_t n)
{
	bool ok = true;

	if (tsm) {
		char *path = path_join(TSM_CLASS, tsm);

		ok = sysfs_exists(path);
		free(path);
	}
	for (size_t i = 0; ok && i < n; i++) {
		/* the group, not a provider's glue dir that is also named tsm/ (ABI.md §1.2) */
		char *path = xasprintf("%s/%s/tsm/connect", PCI_DEVICES, bdfs[i]);

		ok = sysfs_exists(path);
		free(path);
	}
	return ok;
}

int action_wait_ready(const char *tsm, char *const *bdfs, size_t n, double seconds)
{
	char *const names[] = { (char *)tsm };
	int rc;

	/*
	 * The TSM's KOBJ_CHANGE comes after the kernel re-evaluated the tsm/ groups
	 * (ABI.md §1.2, §2.8): once it is ready, a missing tsm/connect stays missing,
	 * so there is nothing left to wait for and the store's checks explain it.
	 */
	rc = tsm_wait(names, tsm ? 1 : 0, seconds, &action_signal, tsm ? "connect" : "disconnect",
		      NULL);
	if (rc)
		return rc;
	return ready(NULL, bdfs, n) ? 0 : -ENOENT;
}
