// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdisp.c: the proposed guest-side TDISP verbs of a devsec TSM (tsm/lock,
 * tsm/accept, tsm/unlock; ABI.md §1.2) and the driver core's
 * sys/bus/pci/drivers/NAME/bind|unbind, which decide whether a driver is
 * bound (the state lock, accept and unlock refuse to disturb).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* kstrtobool(): only the first one or two characters count */
int kstrtobool(const char *s, bool *res)
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

static bool tsm_serves(const struct sim_tsm *t, const struct sim_dev *d)
{
	if (!t->nr_hbs)
		return true;
	for (size_t i = 0; i < t->nr_hbs; i++)
		if (!strcmp(t->hbs[i], d->hb->name))
			return true;
	return false;
}

/*
 * lock_store() after its sscanf: EBUSY for any existing context, ENXIO
 * unless tsmN is a devsec TSM, EBUSY while a driver is bound, then the
 * TSM's lock op (which declines devices off its host bridges).
 */
int sim_lock(struct sim_model *m, struct sim_dev *d, long tsm_id)
{
	struct sim_tsm *t;

	if (dev_has_ctx(d))
		return -EBUSY;
	t = model_find_tsm(m, tsm_id);
	if (!t || t->kind != TSM_DEVSEC)
		return -ENXIO;
	if (d->driver)
		return -EBUSY;	/* LOCKED would surprise a live driver */
	if (!tsm_serves(t, d))
		return -ENXIO;
	if (d->faults.lock_errno)
		return -d->faults.lock_errno;
	d->lock_tsm = t;
	d->accepted = false;
	return 0;
}

/* accept_store(): @buf is NUL-terminated. Repeated accepts succeed (staging's ACCEPT flag). */
int sim_accept(struct sim_model *m, struct sim_dev *d, const char *buf)
{
	bool yes;

	(void)m;
	if (kstrtobool(buf, &yes) || !yes)
		return -EINVAL;	/* no "unaccept": RUN only goes to UNLOCKED */
	if (!d->lock_tsm)
		return -EINVAL;	/* not locked (a link context is not a lock) */
	if (d->driver)
		return -EBUSY;
	if (d->accepted)
		return 0;
	if (d->faults.accept_errno)
		return -d->faults.accept_errno;
	d->accepted = true;
	return 0;
}

/* unlock_store(): EINVAL when not locked or another name, EBUSY with a driver */
int sim_unlock(struct sim_model *m, struct sim_dev *d, const char *buf,
	       size_t len)
{
	(void)m;
	if (!d->lock_tsm)
		return -EINVAL;
	if (!sysfs_streq(buf, len, d->lock_tsm->name))
		return -EINVAL;
	if (d->driver)
		return -EBUSY;
	d->lock_tsm = NULL;
	d->accepted = false;
	return 0;
}

/*
 * bind_store()/unbind_store() of sys/bus/pci/drivers/@driver: the device is
 * looked up by name (sysfs_streq), ENODEV if there is none; every driver
 * matches every device here (no id tables), so bind fails only with EBUSY
 * when a driver is already bound; unbind needs this driver bound (ENODEV).
 */
int sim_driver_bind(struct sim_model *m, const char *driver, const char *buf,
		    size_t len, bool bind)
{
	struct sim_dev *d = NULL;

	for (size_t i = 0; i < m->nr_devs && !d; i++)
		if (m->devs[i]->present && sysfs_streq(buf, len, m->devs[i]->name))
			d = m->devs[i];
	if (!d)
		return -ENODEV;
	if (!bind) {
		if (!d->driver || strcmp(d->driver, driver))
			return -ENODEV;
		free(d->driver);
		d->driver = NULL;
		return 0;
	}
	if (d->driver)
		return -EBUSY;	/* __driver_probe_device(): dev->driver set */
	d->driver = strdup(driver);
	if (!d->driver)
		return -ENOMEM;
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
		rc = parse_tsm_name(d->boot_lock, strlen(d->boot_lock), &id);
		if (!rc && !vis_devsec(m, d))
			rc = -ENXIO;	/* no tsm/lock there to write */
		d->driver = NULL;
		if (!rc)
			rc = sim_lock(m, d, id);
		if (!rc && d->boot_accepted)
			rc = sim_accept(m, d, "1");
		d->driver = drv;
		if (rc) {
			*err = xasprintf("%s: build-time lock to %s failed: %s",
					 d->name, d->boot_lock, strerror(-rc));
			return rc;
		}
	}
	return 0;
}
