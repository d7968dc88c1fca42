// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-tdisp.c: the proposed guest-side TDISP verbs of a devsec TSM (tsm/lock,
 * tsm/accept, tsm/unlock; ABI.md §1.2). Whether a driver is bound (the state
 * they refuse to disturb) is sim-module.c's driver model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* kstrtobool(): only the first one or two characters count */
int sim_kstrtobool(const char *s, bool *res)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

/*
 * lock_store() after its sscanf: EBUSY for any existing context, ENXIO
 * unless tsmN is a devsec TSM, EBUSY while a driver is bound, then the
 * TSM's lock op (which declines devices off its host bridges).
 */
int sim_lock(struct sim_model *m, struct sim_dev *d, long tsm_id)
{
	struct sim_tsm *t;

	if (sim_dev_has_ctx(d))
		return -EBUSY;
	t = sim_model_find_tsm(m, tsm_id);
	if (!t || t->kind != TSM_DEVSEC)
		return -ENXIO;
	if (d->driver)
		return -EBUSY;	/* LOCKED would surprise a live driver */
	if (!sim_tsm_serves_dev(t, d))
		return -ENXIO;
	if (d->faults.lock_errno)
		return -d->faults.lock_errno;
	d->lock_tsm = t;
	d->accepted = false;
	sim_evidence_create(m, d);	/* a provider's evidence of the locked TDI (ABI.md §1.6) */
	return 0;
}

/*
 * accept_store() + pci_tsm_accept() (drivers/pci/tsm/core.c, kernelorg-mirror/
 * linux_kernel_git_devsec_tsm 7b30e72c28f0). @buf is NUL-terminated.
 * Repeated accepts succeed (staging's ACCEPT flag). A link context (a
 * connected function or a DSM's dependent) reaches the link TSM's missing
 * accept op: a kernel oops, EFAULT here with nothing changed.
 */
int sim_accept(struct sim_model *m, struct sim_dev *d, const char *buf)
{
	bool yes;

	(void)m;
	if (sim_kstrtobool(buf, &yes) || !yes)
		return -EINVAL;	/* no "unaccept": RUN only goes to UNLOCKED */
	if (!sim_dev_has_ctx(d))
		return -EINVAL;	/* no pdev->tsm */
	if (d->driver)
		return -EBUSY;
	if (!d->lock_tsm)
		return -EFAULT;	/* the oops of a NULL ->accept */
	if (d->accepted)
		return 0;
	if (d->faults.accept_errno)
		return -d->faults.accept_errno;
	d->accepted = true;
	/* the devsec sample marks the device's MMIO encrypted in iomem */
	d->encrypted = d->lock_tsm->provider == PROV_DEVSEC_SAMPLE;
	return 0;
}

/* The devsec TSM's unlock: back to UNLOCKED, the encrypted resources go. */
void sim_unlock_dev(struct sim_dev *d)
{
	d->lock_tsm = NULL;
	d->accepted = false;
	d->encrypted = false;
}

/*
 * unlock_store() (drivers/pci/tsm/core.c 7b30e72c28f0): EINVAL without a
 * context or when @buf is not its TSM's name (either kind), EBUSY with a
 * driver; a link context written its link TSM's name calls the missing
 * unlock op: a kernel oops, EFAULT here with nothing changed.
 */
int sim_unlock(struct sim_model *m, struct sim_dev *d, const char *buf,
	       size_t len)
{
	struct sim_tsm *holder = d->ctx_tsm ? d->ctx_tsm : d->lock_tsm;

	(void)m;
	if (!holder)
		return -EINVAL;
	if (!sim_sysfs_streq(buf, len, holder->name))
		return -EINVAL;
	if (d->driver)
		return -EBUSY;
	if (!d->lock_tsm)
		return -EFAULT;	/* the oops of a NULL ->unlock */
	sim_unlock_dev(d);
	return 0;
}

/*
 * Boot-time TDISP state ("locked"/"accepted" device keys): the state a
 * guest reaches by lock, accept and then binding its driver, so a driver
 * named by the topology does not block it.
 */
int sim_boot_locks(struct sim_model *m, char **err)
{
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];
		char *drv = d->driver;
		long id = 0;
		int rc;

		if (!d->boot_lock)
			continue;
		rc = sim_parse_tsm_name(d->boot_lock, strlen(d->boot_lock), &id);
		if (!rc && !sim_vis_devsec(m, d))
			rc = -ENXIO;	/* no tsm/lock there to write */
		d->driver = NULL;
		if (!rc)
			rc = sim_lock(m, d, id);
		if (!rc && d->boot_accepted)
			rc = sim_accept(m, d, "1");
		d->driver = drv;
		if (rc) {
			*err = sim_xasprintf("%s: build-time lock to %s failed: %s",
					     d->name, d->boot_lock, strerror(-rc));
			return rc;
		}
	}
	return 0;
}
