// SPDX-License-Identifier: GPL-2.0-or-later
/* Why a view is empty or partial: no TSM, no device with tsm/, config space not readable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/explain.h"
#include "tsmctl/modhint.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

void explain_no_tsm(const struct tsm_snapshot *snap, const char *cmd)
{
	char *mods = provider_modules_summary(), *class = sysfs_display_path(TSM_CLASS);
	bool live = sysfs_is_live();

	/* a captured tree tells of the kernel it came from, not of the one running */
	if (!snap->have_tsm_class && (!snap->tsm_class_err || snap->tsm_class_err == -ENOENT))
		cmd_error(cmd, "no %s%s: %s PCI TSM support (CONFIG_PCI_TSM) or no TSM "
			  "provider module %s loaded [%s]", class, live ? "" : " in this tree",
			  live ? "the running kernel lacks" : "its kernel lacked",
			  live ? "is" : "was", mods);
	else if (snap->tsm_class_err)
		/* there, but not to be read: whether a TSM is registered is unknown */
		cmd_error(cmd, "%s is %s (%s): whether a TSM is registered is unknown",
			  class, bad_entry_kind(snap->tsm_class_err),
			  errno_symbol(-snap->tsm_class_err));
	else if (snap->nr_bad_tsms)
		cmd_error(cmd, "no TSM registered in %s%s, only entries that are no TSM "
			  "(see below)", class, live ? "" : " in this tree");
	else
		cmd_error(cmd, "no TSM registered in %s%s; the provider %s not come up [%s]",
			  class, live ? "" : " in this tree", live ? "has" : "had", mods);
	/* tdx_host exists on any TDX host; TDX Connect's TSM only where kernel and module have it */
	if (snap->tdx_module_version && !snap->nr_tsms)
		cmd_error(cmd, "a TDX host: tdx_host shows TDX module %s, but it registered "
			  "no TSM (its kernel driver or the TDX module has no TDX Connect)",
			  snap->tdx_module_version);
	free(class);
	free(mods);
}

void explain_no_devices(const struct tsm_snapshot *snap, const char *cmd)
{
	char *devices;

	if (snap->pci_devices_err) {
		/* no function can be looked up: nothing to say about tsm/ groups */
		devices = sysfs_display_path(PCI_DEVICES);
		cmd_error(cmd, "%s is %s (%s): no PCI function could be looked up",
			  devices, snap->pci_devices_err == -ENOENT ? "missing" :
			  bad_entry_kind(snap->pci_devices_err), errno_symbol(-snap->pci_devices_err));
		free(devices);
		return;
	}
	if (!snap->nr_tsms) {
		explain_no_tsm(snap, cmd);
		return;
	}
	cmd_error(cmd, "no PCI function has a tsm/ directory yet: none is a "
		  "TEE-IO/IDE-capable function 0 accepted by a link TSM (try --all)");
}

void explain_bad_tsms(const struct tsm_snapshot *snap, const char *cmd)
{
	const struct bad_entry *b = snap->bad_tsms;
	char *class;

	if (!snap->nr_bad_tsms)
		return;
	class = sysfs_display_path(TSM_CLASS);
	cmd_error(cmd, "%zu entr%s of %s %s no TSM, not listed: %s is %s%s",
		  snap->nr_bad_tsms, snap->nr_bad_tsms == 1 ? "y" : "ies", class,
		  snap->nr_bad_tsms == 1 ? "is" : "are", b->name, bad_entry_kind(b->err),
		  snap->nr_bad_tsms > 1 ? ", ..." : "");
	free(class);
}

/* The first attribute with ERR set, as "0000:41:00.0/tsm/connect", its error into *err. */
static char *first_read_error(const struct tsm_snapshot *snap, size_t *count, int *err)
{
	char *first = NULL;

	*count = 0;
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];
		const struct { const char *name; int err; } attrs[] = {
			{ "tsm", f->tsm_err }, { "tsm/connect", f->connect_err },
			{ "tsm/dsm", f->dsm_err }, { "tsm/bound", f->bound_err },
			{ "tsm/lock", f->lock_err }, { "tsm/accept", f->accept_err },
			{ "authenticated", f->auth_err },
		};

		for (size_t a = 0; a < ARRAY_SIZE(attrs); a++) {
			if (!attrs[a].err || (*count)++)
				continue;
			first = xasprintf("%s/%s", f->bdf, attrs[a].name);
			*err = attrs[a].err;
		}
	}
	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (snap->hbs[i]->available_err && !(*count)++) {
			first = xasprintf("%s/available_secure_streams", snap->hbs[i]->name);
			*err = snap->hbs[i]->available_err;
		}
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (snap->tsms[i]->mode_err && !(*count)++) {
			first = xasprintf("%s/pci_mode", snap->tsms[i]->name);
			*err = snap->tsms[i]->mode_err;
		}
	return first;
}

void explain_read_errors(const struct tsm_snapshot *snap, const char *cmd)
{
	size_t n;
	int err = 0;
	char *first = first_read_error(snap, &n, &err);

	if (!n)
		return;
	cmd_error(cmd, "%zu attribute%s could not be read or %s malformed (%s: %s%s): "
		  "shown as (unreadable) or (malformed), in JSON as null with a read_errors "
		  "entry, never as empty", n, n == 1 ? "" : "s", n == 1 ? "is" : "are",
		  first, err == -EBADMSG ? "not what the kernel prints" : strerror(-err),
		  n > 1 ? "; ..." : "");
	free(first);
}

void explain_bad_stream_links(const struct tsm_snapshot *snap, const char *cmd)
{
	size_t bad = 0;
	const char *first = NULL, *hb = NULL;

	/* the table shows dangling and duplicate links; malformed names it cannot show */
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		if (snap->hbs[i]->nr_bad_links && !first) {
			first = snap->hbs[i]->bad_links[0];
			hb = snap->hbs[i]->name;
		}
		bad += snap->hbs[i]->nr_bad_links;
	}
	if (bad)
		cmd_error(cmd, "%zu entr%s named stream* %s no streamH.R.E name the kernel "
			  "makes (%s/%s%s), not shown; see tsmctl audit (stream.link)", bad,
			  bad == 1 ? "y" : "ies", bad == 1 ? "is" : "are", hb, first,
			  bad > 1 ? ", ..." : "");
}

void explain_needs_root(const struct tsm_snapshot *snap, const char *cmd)
{
	/* said once per run: what could not be read, and why */
	if (snap->nr_cfg_unreadable)
		cmd_error(cmd, "config space of %zu function%s could not be read (%s%s): "
			  "IDE, TEE and DOE fields are unknown (null), not absent; IDs and names "
			  "come from the vendor, device and class files",
			  snap->nr_cfg_unreadable, snap->nr_cfg_unreadable == 1 ? "" : "s",
			  strerror(-snap->cfg_unreadable_err),
			  (snap->cfg_unreadable_err == -EACCES || snap->cfg_unreadable_err == -EPERM) &&
			  geteuid() ? "; run as root" : "");
	if (snap->any_needs_root)
		cmd_error(cmd, "config space past 64 bytes needs root: IDE and TEE "
			  "fields are unknown (null), not absent");
}

void explain_not_ready(const char *cmd, const char *what, double seconds, int err)
{
	char *mods;

	if (err != -ETIMEDOUT) {
		cmd_error(cmd, "cannot listen for kobject uevents (netlink): %s", strerror(-err));
		return;
	}
	if (seconds == 0)
		cmd_error(cmd, "%s not ready (--timeout 0: checked once)", what);
	else
		cmd_error(cmd, "%s not ready after %g s", what, seconds);
	mods = provider_modules_summary();
	if (mods && *mods)
		cmd_error(cmd, "TSM provider modules: %s", mods);
	free(mods);
}
