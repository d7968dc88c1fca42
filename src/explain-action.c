// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words for what a connect, disconnect, lock, accept or unlock store
 * came back with: an errno and what the tree shows now become advice an
 * administrator can act on (ABI.md §1.2, §2.1-2.7). action.c decides; this
 * file only says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/action.h"
#include "tsmctl/explain.h"
#include "tsmctl/names.h"
#include "tsmctl/render.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

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

/* "tsm1, tsm2": the TSMs whose pci_mode is devsec; "" when none. */
static char *devsec_names(const struct tsm_snapshot *snap)
{
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (streq(snap->tsms[i]->mode, "devsec"))
			strbuf_join(&s, ", ", "%s", snap->tsms[i]->name);
	return strbuf_take(&s);
}

char *explain_tsm_unfit(const struct tsm_snapshot *now, enum tsm_action action, const char *name)
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

/* pci_ide_stream_alloc() failed: which of its resources ran out (ABI.md §2.1, §2.3, §2.6). */
static char *explain_no_stream(const struct action_plan *plan, const struct pci_func *f)
{
	const char *type = render_pcie_type(f);
	char *no_pool = func_no_pool_reason(f), *msg, *why;

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
	/* a Stream ID not claimed at enumeration: pci_ide_stream_alloc() has no ide_cap */
	if (f && (why = func_ide_unusable_reason(f))) {
		msg = xasprintf("%s could not set up an IDE stream: the kernel gave the device no "
				"usable IDE: %s", plan->tsm, why);
		free(why);
		return msg;
	}
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

/*
 * T is registered but the kernel has not shown its PCI side yet: pci_mode
 * says so, or (v6.19) no function shows tsm/ while BDF is a DSM candidate.
 */
static bool pci_side_pending(const struct tsm_snapshot *now, const struct tsm *t, const char *bdf)
{
	struct tsm_snapshot all;
	bool candidate;

	switch (tsm_pci_side(now, t)) {
	case TSM_PCI_SHOWN:
		return false;
	case TSM_PCI_NOT_YET:
		return true;
	case TSM_PCI_NO_GROUP:
		break;
	}
	/* the device's config space says whether it would ever show tsm/connect */
	snapshot_scan(&all, SCAN_ALL_FUNCS);
	candidate = func_dsm_candidate(snapshot_find_func(&all, bdf));
	snapshot_free(&all);
	return candidate;
}

/* Why a function shows no tsm/connect (ABI.md §1.2 visibility, §2.1, §2.2). */
static char *explain_no_group(const struct tsm_snapshot *now, const struct pci_func *f,
			      const struct action_plan *plan)
{
	const char *attr = action_name(plan->action);
	char *links = tsm_names(now, true), *all = tsm_names(now, false), *msg;
	const struct tsm *t;
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
	else if (plan->action == ACTION_CONNECT && (t = snapshot_find_tsm(now, plan->tsm)) &&
		 pci_side_pending(now, t, plan->bdf))
		/* registered, not taken on for PCI yet (ABI.md §1.1, §2.8): no group shows yet */
		msg = xasprintf("%s is registered but not ready yet: the kernel shows tsm/%s on "
				"the devices once it has taken %s on for PCI operations (and says so "
				"with a change uevent); wait for that with 'tsmctl wait %s' or "
				"'tsmctl connect --wait SECONDS'", t->name, attr, t->name, t->name);
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

/*
 * EEXIST on the 6.19-rc1 flavour (ABI.md §1.1, §2.4): the TSM links each stream
 * in its own directory by streamH.R.E alone, which every host bridge starts
 * at stream0.0.0, so a second host bridge's stream collides. NULL elsewhere.
 */
static char *explain_rc1_collision(const struct tsm *t)
{
	char *names, *msg;

	if (!t || !t->nr_stream_links)
		return NULL;
	names = strv_join(t->stream_links, t->nr_stream_links, ", ");
	msg = xasprintf("%s links each stream in its own directory by its name alone "
			"(tsmN/streamH.R.E, the 6.19-rc1 flavour), and each host bridge numbers "
			"its streams from stream0.0.0, so this stream's name is taken there already "
			"(%s links %s) and the kernel refused the link: the reason upstream dropped "
			"these links (731bb3118f85). Disconnect the device holding that name on the "
			"other host bridge first, or run a kernel without them", t->name, t->name,
			names);
	free(names);
	return msg;
}

static char *connect_words(const struct action_plan *plan, const struct tsm_snapshot *now,
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
		else if (f && func_lock_holder(f))
			msg = xasprintf("locked to %s (TDISP, a devsec TSM's context), and a device "
					"has one TSM context at a time: run 'tsmctl unlock %s' first",
					func_lock_holder(f), plan->bdf);
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
		msg = explain_tsm_unfit(now, plan->action, plan->tsm);
		if (msg)
			break;
		if (f && f->doe_known && !f->nr_doe_features)
			msg = xasprintf("has no DOE mailbox, so %s cannot set up an SPDM session with "
					"it (no doe_features)", plan->tsm);
		else if (f && f->doe_known && !func_has_doe(f, DOE_FEATURE_CMA))
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
			char *why = f ? func_tdx_assoc_blocker(f) : NULL;

			msg = why ? xasprintf("%s could not set up an IDE stream: %s", plan->tsm, why) :
			      explain_seamcall(plan, now);
			free(why);
			break;
		}
		if (f && f->doe_known && !func_has_doe(f, DOE_FEATURE_SSESSION)) {
			msg = xasprintf("%s needs secure SPDM on the CMA mailbox, and doe_features "
					"lacks %s (SEV-TIO requires it)", plan->tsm, DOE_FEATURE_SSESSION);
			break;
		}
		if (func_doe_mailboxes_ambiguous(f) && !hb_no_pool(f->hb)) {
			/* doe_features is the union of the mailboxes: only dsm_connect() could tell */
			msg = xasprintf("%s needs secure SPDM on the DOE mailbox it uses for CMA, and the "
					"device has %u DOE mailboxes: secure SPDM (%s) is likely on "
					"another one (the kernel logs \"CMA DOE MB must support "
					"SSESSION\"); otherwise the stream allocation failed, see the "
					"kernel log", plan->tsm, f->cfg.nr_doe, DOE_FEATURE_SSESSION);
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
	case EEXIST:
		msg = explain_rc1_collision(snapshot_find_tsm(now, plan->tsm));
		if (msg)
			break;
		msg = xasprintf("%s failed the connect: %s; see the kernel log", plan->tsm,
				strerror(err));
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

static char *disconnect_words(const struct action_plan *plan, const struct tsm_snapshot *now,
			      const struct pci_func *f)
{
	int err = -plan->err;

	switch (err) {
	case ENXIO:
		if (f && func_lock_holder(f))
			return xasprintf("not connected, but locked to %s (TDISP, a devsec TSM's "
					 "context), which disconnect does not end: 'tsmctl unlock %s' "
					 "does", func_lock_holder(f), plan->bdf);
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

char *explain_tdisp_missing(const struct tsm_snapshot *snap)
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
	missing = explain_tdisp_missing(now);
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
	char *rel = xasprintf(PCI_DRIVERS "/%s/unbind", f->driver);
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

static char *lock_words(const struct action_plan *plan, const struct tsm_snapshot *now,
			const struct pci_func *f)
{
	const char *holder = f ? func_lock_holder(f) : NULL;
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
		msg = explain_tsm_unfit(now, plan->action, plan->tsm);
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

static char *accept_words(const struct action_plan *plan, const struct tsm_snapshot *now,
			  const struct pci_func *f)
{
	const char *holder = f ? func_lock_holder(f) : NULL;
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
	case EBUSY:
		/* --strict of a device in RUN already: nothing was written, nothing to blame */
		if (!plan->written && holder && func_accepted(f) == 1)
			return xasprintf("already accepted (locked to %s)", holder);
		/* fall through */
	default:
		return explain_busy_or_failed(plan, f, "the kernel accepts a device only before its "
					      "driver binds; accept, then bind the driver again");
	}
}

static char *unlock_words(const struct action_plan *plan, const struct tsm_snapshot *now,
			  const struct pci_func *f)
{
	const char *holder = f ? func_lock_holder(f) : NULL;
	char *ctx, *msg;

	(void)now;	/* the lock's holder says it all */
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

/* A connect's own errnos, and what the kernel left behind when it failed. */
static char *connect_failed_words(const struct action_plan *plan, const struct tsm_snapshot *now,
				  const struct pci_func *f)
{
	return rollback_note(plan, now, f, connect_words(plan, now, f));
}

/* A store refused because the tree is no kernel's (action_apply(), ACTION_FORCE). */
static char *refused_words(const char *attr)
{
	return xasprintf("not written: %s is neither a kernel's sysfs (its sys/ is no sysfs "
			 "mount) nor a live tsm-sim mount, so no kernel would take the store: "
			 "tsm/%s there is a plain file (a copy or a capture?) and writing it would "
			 "show what no kernel did; --force writes it all the same",
			 sysfs_root_path(), attr);
}

/* The errnos every verb's store can meet, as they apply to this one; NULL for the others. */
static char *common_words(const struct action_plan *plan, const struct tsm_snapshot *now,
			  const struct pci_func *f)
{
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
		if (plan->refused)
			return refused_words(attr);
		if (!sysfs_is_live())
			return xasprintf("%s is on a read-only file system: tsm/%s cannot be "
					 "written there", sysfs_root_path(), attr);
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
	return NULL;
}

typedef char *verb_words(const struct action_plan *plan, const struct tsm_snapshot *now,
			 const struct pci_func *f);

/* One entry per verb: its own errnos, after the common ones. */
static verb_words *const words[] = {
	[ACTION_CONNECT] = connect_failed_words,
	[ACTION_DISCONNECT] = disconnect_words,
	[ACTION_LOCK] = lock_words,
	[ACTION_ACCEPT] = accept_words,
	[ACTION_UNLOCK] = unlock_words,
};

char *explain_action(const struct action_plan *plan, const struct tsm_snapshot *now)
{
	const struct pci_func *f = snapshot_find_func(now, plan->bdf);
	char *msg = common_words(plan, now, f), *out;

	if (!msg)
		msg = words[plan->action](plan, now, f);
	/* messages quote attribute text from the tree: never let its control bytes reach a terminal */
	out = text_escape(msg);
	free(msg);
	return out;
}
