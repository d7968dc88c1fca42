// SPDX-License-Identifier: GPL-2.0-or-later
/* Why a view is empty or partial: no TSM, no device with tsm/, config space not readable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/explain.h"
#include "tsmctl/modhint.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

void explain_no_tsm(const struct tsm_snapshot *snap, const char *cmd)
{
	char *mods = provider_modules_summary(), *class = sysfs_display_path("sys/class/tsm");
	bool live = sysfs_is_live();

	/* a captured tree tells of the kernel it came from, not of the one running */
	if (!snap->have_tsm_class)
		print_error("tsmctl %s: no %s%s: %s PCI TSM support (CONFIG_PCI_TSM) or no TSM "
			    "provider module %s loaded [%s]", cmd, class, live ? "" : " in this tree",
			    live ? "the running kernel lacks" : "its kernel lacked",
			    live ? "is" : "was", mods);
	else
		print_error("tsmctl %s: no TSM registered in %s%s; the provider %s not come up [%s]",
			    cmd, class, live ? "" : " in this tree", live ? "has" : "had", mods);
	free(class);
	free(mods);
}

void explain_no_devices(const struct tsm_snapshot *snap, const char *cmd)
{
	if (!snap->nr_tsms) {
		explain_no_tsm(snap, cmd);
		return;
	}
	fprintf(stderr, "tsmctl %s: no PCI function has a tsm/ directory yet: none is a "
		"TEE-IO/IDE-capable function 0 accepted by a link TSM (try --all)\n", cmd);
}

void explain_needs_root(const struct tsm_snapshot *snap, const char *cmd)
{
	/* said once per run: what could not be read, and why */
	if (snap->nr_cfg_unreadable)
		print_error("tsmctl %s: config space of %zu function%s could not be read (%s%s): "
			    "IDE, TEE and DOE fields are unknown (null), not absent; IDs and names "
			    "come from the vendor, device and class files", cmd,
			    snap->nr_cfg_unreadable, snap->nr_cfg_unreadable == 1 ? "" : "s",
			    strerror(-snap->cfg_unreadable_err),
			    (snap->cfg_unreadable_err == -EACCES || snap->cfg_unreadable_err == -EPERM) &&
			    geteuid() ? "; run as root" : "");
	if (snap->any_needs_root)
		fprintf(stderr, "tsmctl %s: config space past 64 bytes needs root: IDE and TEE "
			"fields are unknown (null), not absent\n", cmd);
}

void explain_not_ready(const char *cmd, const char *what, double seconds, int err)
{
	char *mods;

	if (err != -ETIMEDOUT) {
		print_error("tsmctl %s: cannot listen for kobject uevents (netlink): %s", cmd,
			    strerror(-err));
		return;
	}
	if (seconds == 0)
		print_error("tsmctl %s: %s not ready (--timeout 0: checked once)", cmd, what);
	else
		print_error("tsmctl %s: %s not ready after %g s", cmd, what, seconds);
	mods = provider_modules_summary();
	if (mods && *mods)
		print_error("tsmctl %s: TSM provider modules: %s", cmd, mods);
	free(mods);
}
