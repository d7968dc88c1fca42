// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Why reading a device's evidence failed, in words an administrator can act
 * on, from what the tree shows (ABI.md §1.6): no family, no privilege, a
 * device without evidence (connect it, lock it, or read its DSM), a
 * provider that cannot refresh, a context that went away, evidence that
 * kept changing, a reply that broke the protocol.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence.h"
#include "tsmctl/explain.h"
#include "tsmctl/names.h"
#include "tsmctl/util.h"

/* The only TSM of one kind (devsec or link), for a command to copy; "tsmN" when none or several. */
static const char *only_tsm(const struct tsm_snapshot *snap, bool devsec)
{
	const char *name = NULL;

	for (size_t i = 0; i < snap->nr_tsms; i++) {
		const struct tsm *t = snap->tsms[i];
		bool is_devsec = t->mode && streq(t->mode, "devsec");

		if (is_devsec != devsec || (!devsec && !tsm_is_link(t)))
			continue;
		if (name)
			return "tsmN";
		name = t->name;
	}
	return name ? name : "tsmN";
}

/* Function 0 of BDF's slot, as the kernel would name it. */
static void function0(const char *bdf, char out[BDF_MAX])
{
	struct bdf b;

	if (bdf_parse(bdf, &b)) {
		snprintf(out, BDF_MAX, "%s", bdf);
		return;
	}
	b.fn = 0;
	bdf_format(&b, out);
}

/* ENODEV: the device has no evidence. Which state keeps it from having any. */
static char *no_evidence(const struct tsm_snapshot *snap, const char *bdf)
{
	const struct pci_func *f = snapshot_find_func(snap, bdf);
	const char *holder = func_lock_holder(f);
	char pf0[BDF_MAX];

	/* a host with a link TSM (the devsec rig adds a devsec one, and tsm/lock): connect first */
	if (f && f->has_connect && !func_connected(f) && !holder && snapshot_first_link_tsm(snap))
		return xasprintf("it is not connected: on a host a DSM has evidence only while it "
				 "is connected to a link TSM; connect it first ('tsmctl connect %s %s')",
				 bdf, only_tsm(snap, false));
	if (f && f->has_lock && !holder && !func_connected(f))
		return xasprintf("it is not locked: in a guest a TDI has evidence only while it is "
				 "locked; lock it first ('tsmctl lock %s %s'), then 'tsmctl accept "
				 "--verify %s' reads and checks the evidence before it accepts",
				 bdf, only_tsm(snap, true), bdf);
	if (holder)
		return xasprintf("it is locked to %s, whose provider gives a locked TDI no evidence "
				 "(the devsec sample's TSM does not)", holder);
	if (func_connected(f))
		return xasprintf("it is connected to %s, whose provider gives it no evidence",
				 f->connect);
	if (f && f->has_connect)
		return xasprintf("it is not connected: on a host a DSM has evidence only while it "
				 "is connected to a link TSM, and no link TSM is registered");
	function0(bdf, pf0);
	if (!streq(pf0, bdf) && snapshot_find_func(snap, pf0))
		return xasprintf("it is not a DSM: its DSM is function 0, %s; connect that and read "
				 "its evidence ('tsmctl evidence %s')", pf0, pf0);
	return xasprintf("it has no TSM context: the kernel shows no tsm/ attributes on it, so "
			 "it is neither a DSM that can be connected nor a TDI that can be locked "
			 "(see 'tsmctl devices --all')");
}

static const char *attr_name(int type)
{
	static const char *const names[] = { NULL, "type", "type-mask", "flags", "subsys",
					     "dev-name", "nonce", "generation" };

	return type > 0 && (size_t)type < ARRAY_SIZE(names) ? names[type] : "an attribute";
}

/* What the kernel said of a request it refused or a dump it ended. */
static char *kernel_refusal(const struct evidence_error *e, bool nonce, unsigned int attempts)
{
	switch (-e->err) {
	case EPERM:
		return xasprintf("reading device evidence needs CAP_NET_ADMIN (the family's read "
				 "is admin-only): run it as root");
	case EOPNOTSUPP:
		if (e->stage == EVIDENCE_DUMP && nonce)
			return xasprintf("the provider cannot refresh its evidence, so it refuses a "
					 "nonce: read without --nonce, --nonce-file or --fresh (the "
					 "objects are then those of the last refresh, with nothing to "
					 "prove they are fresh)");
		return xasprintf("the kernel has no evidence provider for PCI devices");
	case ENXIO:
		return NULL;	/* said with the state, below */
	case EAGAIN:
		return xasprintf("the evidence kept changing: each of %u dumps saw a refresh "
				 "overtake it; try again once nothing else refreshes it", attempts);
	case EINTR:
		return xasprintf("the kernel's wait for the evidence lock was interrupted");
	case EMSGSIZE:
		return xasprintf("the kernel could not fit a reply message");
	}
	if (e->miss_type >= 0)
		return xasprintf("the kernel refused the request: %s is missing",
				 attr_name(e->miss_type));
	if (e->bad_attr)
		return xasprintf("the kernel refused the request's %s", e->bad_attr);
	return xasprintf("the kernel refused the request");
}

/* ENXIO during the dump: the context went; the tree says which way. */
static char *context_gone(const struct tsm_snapshot *snap, const char *bdf)
{
	const struct pci_func *f = snapshot_find_func(snap, bdf);

	if (!snap->nr_tsms)
		return xasprintf("its TSM went away during the read (no TSM is registered now): "
				 "the evidence went with it");
	if (f && f->has_connect && !func_connected(f))
		return xasprintf("it was disconnected during the read: the evidence went with its "
				 "TSM context; connect it again and read again");
	if (f && f->has_lock && !func_lock_holder(f) && !func_connected(f))
		return xasprintf("it was unlocked during the read: the evidence went with its TSM "
				 "context; lock it again and read again");
	return xasprintf("its TSM context went away during the read (disconnect, unlock or TSM "
			 "removal); read again once it is back");
}

char *explain_evidence_text(const struct tsm_snapshot *snap, const char *bdf,
			    const struct evidence_error *e, bool nonce, unsigned int attempts,
			    const char *file)
{
	const char *name = errno_symbol(-e->err);
	char *why = NULL, *kernel = NULL, *text;

	switch (e->stage) {
	case EVIDENCE_NO_FAMILY:
		/* the older family of the same purpose: named, never read (ABI.md §1.6) */
		if (e->why)
			return xasprintf("the kernel has no device-evidence generic netlink family "
					 "but the older %s one, which tsmctl does not read: its "
					 "attributes have other numbers, and it has no generation to "
					 "tie a read to what an accept then acts on, nor an object "
					 "length (ABI.md §1.6); use a kernel with device-evidence "
					 "(ENOENT)", e->why);
		return xstrdup("the kernel has no device-evidence generic netlink family: it was "
			       "built without CONFIG_DEVICE_EVIDENCE (which the TSM staging tree's "
			       "CONFIG_PCI_TSM selects; no released kernel has it, ABI.md §1.6) "
			       "(ENOENT)");
	case EVIDENCE_NO_READ:
		return xstrdup("the kernel's device-evidence family offers no read dump: a version "
			       "of the interface tsmctl does not know");
	case EVIDENCE_MALFORMED:
		return xasprintf("the kernel's answer breaks the device-evidence protocol: %s; "
				 "nothing was saved", e->why);
	case EVIDENCE_SOCKET:
		return xasprintf("%s: %s", e->why, strerror(-e->err));
	case EVIDENCE_SINK:
		return xasprintf("--output %s: %s; nothing was saved", file ? file : "DIR",
				 strerror(-e->err));
	default:
		break;
	}
	if (e->err == -ENODEV)
		why = no_evidence(snap, bdf);
	else if (e->err == -ENXIO && e->stage == EVIDENCE_DUMP)
		why = context_gone(snap, bdf);
	else
		why = kernel_refusal(e, nonce, attempts);
	if (e->ext_msg)
		kernel = xasprintf("; the kernel says: \"%s\"", e->ext_msg);
	text = xasprintf("no evidence: %s%s (%s)", why, kernel ? kernel : "",
			 name ? name : strerror(-e->err));
	free(why);
	free(kernel);
	return text;
}

void explain_evidence(const struct tsm_snapshot *snap, const char *bdf,
		      const struct evidence_error *e, bool nonce, unsigned int attempts,
		      const char *file)
{
	char *text = explain_evidence_text(snap, bdf, e, nonce, attempts, file);
	char *who = xasprintf("evidence %s", bdf);

	/* cmd_error() escapes the whole line, the kernel's text with it */
	cmd_error(who, "%s", text);
	free(who);
	free(text);
}
