// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-fuse-store.c: a write(2) in the live mount, dispatched to the kernel store() it reaches. */
#define FUSE_USE_VERSION 312
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fuse.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim-fuse.h"

/*
 * The subsystem a kobject's uevents name: dev_uevent_name() (drivers/base/core.c),
 * its bus's or class's name, which the subsystem link names; a driver's is its
 * kset's, "drivers". NULL: a device on no bus and in no class (a host bridge,
 * the faux root), whose events dev_uevent_filter() drops.
 */
static char *kobject_subsystem(const char *dir)
{
	char *link = sim_xasprintf("%s/%s/subsystem", sim_fuse.root, dir), target[PATH_MAX];
	const char *drivers = strstr(dir, "/drivers/");
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	char *base;

	free(link);
	if (!strncmp(dir, "sys/bus/", 8) && drivers && !strchr(drivers + 9, '/'))
		return sim_xstrdup("drivers");
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	base = strrchr(target, '/');
	return sim_xstrdup(base ? base + 1 : target);
}

/*
 * A write to a kobject's uevent file: uevent_store() (drivers/base/core.c, and
 * the drivers' in bus.c) -> kobject_synth_uevent() (lib/kobject_uevent.c):
 * the action, SYNTH_UUID and SYNTH_ARG_* sent as a synthetic event.
 */
static int uevent_store(const char *path, const char *buf, size_t len)
{
	char *dir = sim_xstrdup(path[0] == '/' ? path + 1 : path), *slash, *subsystem;
	int rc;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	subsystem = kobject_subsystem(dir);
	rc = sim_uevent_synth(dir, subsystem, buf, len, sim_fuse.uevents_ok);
	free(subsystem);
	free(dir);
	return rc;
}

/*
 * A connect's slow SPDM phase (spdm_manually): what the provider did so far
 * is in the tree (the pool slot, the set-up blocks), the store holds the
 * lock until spdm-done. The hold is armed before the tree shows it.
 */
void sim_fuse_connect_pause(struct sim_model *m, struct sim_dev *d)
{
	struct sim_hold *h = sim_fuse_hold_arm("spdm-done", d->name);

	sim_tree_sync(m, sim_fuse.root);
	sim_fuse_hold_wait(h);
}

/*
 * A store to one of the device's tsm/ attributes, under pci_tsm_rwsem: for
 * write, but accept for read with the device lock (staging core.c
 * pci_tsm_accept(), intel-staging/tdx 36ae7ba2d3e2), which one mutex for
 * every device stands in for.
 */
static int tsm_store(struct sim_dev *d, const char *attr, const char *buf,
		     size_t len)
{
	bool conn = !strcmp(attr, "tsm/connect"), lock = !strcmp(attr, "tsm/lock");
	bool accept = !strcmp(attr, "tsm/accept");
	char *str = strndup(buf, len);	/* the NUL-terminated copy kernfs passes */
	long id = 0;
	int rc;

	if (!str)
		return -ENOMEM;
	/* connect and lock parse before taking the lock, as their store()s do */
	if ((conn || lock) && sim_parse_tsm_name(buf, len, &id)) {
		free(str);
		return -EINVAL;
	}
	sim_fuse_rwsem_lock(fuse_get_context()->pid, !accept);
	if (accept)
		pthread_mutex_lock(&sim_fuse.accept_lock);
	if (!d->present) {
		rc = -ENODEV;
		goto out;
	}
	if (d->faults.store_manually)
		sim_fuse_hold_wait(sim_fuse_hold_arm("store-done", d->name));
	else if (d->faults.write_delay_ms)
		sim_fuse_sleep_ms(d->faults.write_delay_ms);
	if (conn)
		rc = sim_connect(sim_fuse.m, d, id);
	else if (lock)
		rc = sim_lock(sim_fuse.m, d, id);
	else if (accept)
		rc = sim_accept(sim_fuse.m, d, str);
	else if (!strcmp(attr, "tsm/unlock"))
		rc = sim_unlock(sim_fuse.m, d, buf, len);
	else
		rc = sim_disconnect(sim_fuse.m, d, buf, len);
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
out:
	if (accept)
		pthread_mutex_unlock(&sim_fuse.accept_lock);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	free(str);
	return rc;
}

/* Is @attr sys/devices/faux/FAUX/A (*first = true) or sys/devices/faux/FAUX/B? */
static bool faux_attr_is(const char *attr, const char *faux, const char *a,
			 const char *b, bool *first)
{
	char *pa = sim_xasprintf("sys/devices/faux/%s/%s", faux, a);
	char *pb = sim_xasprintf("sys/devices/faux/%s/%s", faux, b);
	bool hit;

	*first = !strcmp(attr, pa);
	hit = *first || !strcmp(attr, pb);
	free(pa);
	free(pb);
	return hit;
}

/*
 * The devsec sample link TSM whose faux device holds @attr as tsm_bind,
 * tsm_unbind or tsm_request: there from module load, whether or not the
 * TSM registered (faux_device_create_with_groups()).
 */
static struct sim_tsm *sample_trigger(const char *attr, enum sim_sample_op *op)
{
	for (size_t i = 0; i < sim_fuse.m->nr_tsms; i++) {
		struct sim_tsm *t = sim_fuse.m->tsms[i];
		bool bind, req;

		if (t->provider != PROV_DEVSEC_SAMPLE || t->kind != TSM_LINK || !t->parent_faux ||
		    !sim_module_live(sim_fuse.m, t->parent_faux))
			continue;
		if (faux_attr_is(attr, t->parent_faux, "tsm_bind", "tsm_unbind", &bind)) {
			*op = bind ? SAMPLE_BIND : SAMPLE_UNBIND;
			return t;
		}
		if (faux_attr_is(attr, t->parent_faux, "tsm_request", "tsm_request", &req)) {
			*op = SAMPLE_REQUEST;
			return t;
		}
	}
	return NULL;
}

enum drv_op { DRV_BIND, DRV_UNBIND, DRV_NEW_ID, DRV_REMOVE_ID };

/* The registered driver whose sys/bus/pci/drivers/NAME/{bind,unbind,new_id,remove_id} @attr is */
static struct sim_driver *driver_trigger(const char *attr, enum drv_op *op)
{
	static const char prefix[] = "sys/bus/pci/drivers/";
	static const char *const ops[] = { "/bind", "/unbind", "/new_id", "/remove_id" };
	const char *name = attr + sizeof(prefix) - 1, *slash;
	struct sim_driver *drv = NULL;
	char *n;

	if (strncmp(attr, prefix, sizeof(prefix) - 1) ||
	    !(slash = strchr(name, '/')))
		return NULL;
	for (int i = 0; i < 4; i++)
		if (!strcmp(slash, ops[i])) {
			*op = (enum drv_op)i;
			n = strndup(name, slash - name);
			if (!n)
				return NULL;
			drv = sim_model_find_driver(sim_fuse.m, n);
			free(n);
			break;
		}
	return drv && sim_driver_registered(sim_fuse.m, drv) ? drv : NULL;
}

/* Send what the last operation queued (taken under the lock, sent after it). */
static void flush_events(void)
{
	struct sim_event *ev;
	size_t n;

	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	ev = sim_fuse.m->events;
	n = sim_fuse.m->nr_events;
	sim_fuse.m->events = NULL;
	sim_fuse.m->nr_events = 0;
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	for (size_t i = 0; i < n; i++) {
		if (sim_fuse.uevents_ok)
			sim_uevent_send(ev[i].action, ev[i].dir, ev[i].subsystem);
		free(ev[i].action);
		free(ev[i].dir);
		free(ev[i].subsystem);
	}
	free(ev);
}

/* kstrtou16(buf, 0): decimal, 0x hex or 0 octal, one trailing newline */
static int parse_u16(const char *buf, size_t len, unsigned *out)
{
	char tmp[16], *end;
	unsigned long v;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(tmp) || buf[0] == '-' || buf[0] == '+' || buf[0] == ' ')
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	errno = 0;
	v = strtoul(tmp, &end, 0);
	if (errno || *end || v > 0xffff)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* Run STEP on the model under the lock, then show the tree and send what it queued. */
static void model_step(void (*step)(struct sim_dev *), struct sim_dev *d)
{
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	step(d);
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	flush_events();
}

/* pci_iov_add_virtfn() → pci_device_add() → device_add(): there, its add uevent out */
static void vf_add(struct sim_dev *vf)
{
	vf->present = true;
	vf->faults.writes = vf->faults.opens = 0;
	sim_event_queue(sim_fuse.m, "add", vf->dir, "pci");
}

/* ... then pci_tsm_init(): a context, and with it a tsm/ group, no uevent */
static void vf_tsm_init(struct sim_dev *vf)
{
	sim_tsm_init(sim_fuse.m, vf);
}

/* pci_iov_remove_virtfn(): the device goes as a removal takes it (pci_tsm_destroy()) */
static void vf_remove(struct sim_dev *vf)
{
	if (!vf->present)
		return;
	sim_vanish(sim_fuse.m, vf);
	sim_event_queue(sim_fuse.m, "remove", vf->dir, "pci");
}

/*
 * sriov_numvfs_store() (7.2 and 7.3 drivers/pci/iov.c:463-520): ERANGE past
 * sriov_totalvfs, nothing to do for the count it has, ENOENT without a
 * driver (every driver here configures SR-IOV), 0 removes the VFs, EBUSY
 * while some are enabled; else each VF is added as sriov_add_vfs() does:
 * its add uevent, then pci_tsm_init() (with vfs.tsm_init_manually once the
 * control file says pci-tsm-init VF: the gap a connect in flight, holding
 * pci_tsm_rwsem, would make).
 */
static int sriov_store(struct sim_dev *pf, const char *buf, size_t len)
{
	unsigned n;
	int rc = parse_u16(buf, len, &n);

	if (rc)
		return rc;
	if (n > pf->nr_vfs_total)
		return -ERANGE;
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	rc = n == pf->nr_vfs ? 1 : !pf->driver ? -ENOENT : n && pf->nr_vfs ? -EBUSY : 0;
	if (!rc && !n) {
		for (unsigned i = pf->nr_vfs; i > 0; i--)
			vf_remove(pf->vfs[i - 1]);
		pf->nr_vfs = 0;
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
	} else if (!rc) {
		pf->nr_vfs = n;	/* iov->num_VFs, before the VFs are added */
	}
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	flush_events();
	for (unsigned i = 0; !rc && n && i < n; i++) {
		struct sim_hold *h = pf->vf_tsm_init_manually ?
			sim_fuse_hold_arm("pci-tsm-init", pf->vfs[i]->name) : NULL;

		model_step(vf_add, pf->vfs[i]);
		if (h)
			sim_fuse_hold_wait(h);
		model_step(vf_tsm_init, pf->vfs[i]);
	}
	return rc == 1 ? 0 : rc;
}

/* The evidence-input TSM whose faux device holds @attr (certs or transcript) */
static struct sim_tsm *evidence_input(const char *attr, bool *certs)
{
	for (size_t i = 0; i < sim_fuse.m->nr_tsms; i++) {
		struct sim_tsm *t = sim_fuse.m->tsms[i];

		if (t->evidence_inputs &&
		    faux_attr_is(attr, t->parent_faux, "certs", "transcript", certs))
			return t;
	}
	return NULL;
}

/*
 * samples/devsec/common.c evidence_write() (intel-staging/tdx 28c48e992e59):
 * the bytes land at their offset in the one storage both sample modules
 * share; past 16 MiB is EFBIG, any write EBUSY while a sample DSM is
 * connected (its evidence points there), a one-byte write at 0 empties it.
 */
static int evidence_write(bool certs, const char *buf, size_t size, off_t off)
{
	struct sim_model *m = sim_fuse.m;
	uint8_t **data = certs ? &m->sample_certs : &m->sample_transcript;
	size_t *len = certs ? &m->sample_certs_len : &m->sample_transcript_len;
	size_t end = (size_t)off + size;
	int rc = (int)size;

	if (end > SIM_EV_MAX_OBJECT)
		return -EFBIG;
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	if (sim_sample_evidence_busy(m)) {
		rc = -EBUSY;
	} else if (end == 1) {
		free(*data);
		*data = NULL;
		*len = 0;
	} else {
		if (end > *len) {
			uint8_t *nb = realloc(*data, end);

			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			memset(nb + *len, 0, end - *len);
			*data = nb;
			*len = end;
		}
		memcpy(*data + off, buf, size);
	}
out:
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	return rc;
}

bool sim_fuse_evidence_read(const char *attr, char *buf, size_t size, off_t off, int *got)
{
	struct sim_model *m = sim_fuse.m;
	const uint8_t *data;
	size_t len, n = 0;
	bool certs;

	if (!evidence_input(attr, &certs))
		return false;
	pthread_rwlock_rdlock(&sim_fuse.rwsem);
	data = certs ? m->sample_certs : m->sample_transcript;
	len = certs ? m->sample_certs_len : m->sample_transcript_len;
	if ((size_t)off < len) {
		n = len - (size_t)off < size ? len - (size_t)off : size;
		memcpy(buf, data + off, n);
	}
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	*got = (int)n;
	return true;
}

static int control_store(const char *buf, size_t len)
{
	enum sim_control_op op;
	struct sim_tsm *t;
	int rc = sim_cost_control(buf, len);

	if (rc == 1)
		rc = sim_fuse_hold_release(buf, len);	/* the holder has the lock: not under it */
	if (rc != 1)
		return rc;
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	rc = sim_control_apply(sim_fuse.m, buf, len, &op, &t);
	if (!rc && (op == CTL_NONE || op == CTL_MODULE))
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	if (!rc && op == CTL_REGISTER)
		sim_fuse_tsm_register(t);
	else if (!rc && op == CTL_PCI_REGISTER)
		sim_fuse_tsm_pci_register(t);
	else if (!rc && op == CTL_UNREGISTER)
		sim_fuse_tsm_unregister(t);
	flush_events();
	return rc;
}

/*
 * A store of the platform state (sim-platform.c), under the lock the model
 * shares: kernfs hands a write of at most a page to the bin or text store.
 */
static bool platform_store(struct sim_fuse_handle *h, const char *buf, size_t size, off_t off,
			   int *rc)
{
	ssize_t n = 0;
	bool hit;

	if (h->dev)
		return false;
	if (size > SYSFS_PAGE)
		size = SYSFS_PAGE;	/* kernfs_fop_write_iter() */
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	hit = sim_platform_store(sim_fuse.m, h->attr, buf, size, off, &n);
	if (hit && n > 0)
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	*rc = (int)n;
	return hit;
}

int sim_fuse_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct sim_fuse_handle *h = (struct sim_fuse_handle *)(uintptr_t)fi->fh;
	const char *attr = h->attr;
	struct sim_driver *drv;
	enum sim_sample_op sop;
	struct sim_tsm *t;
	enum drv_op op;
	bool bind;
	int rc;

	(void)path;
	if (!size)
		return 0;
	if (h->rep && sim_report_attr_is_bin(h->rattr))
		return sim_fuse_report_write_bin(h, buf, size, off);
	if (!h->dev && evidence_input(attr, &bind))
		return evidence_write(bind, buf, size, off);
	/* before platform_store(), which takes pci_tsm_rwsem that a held connect keeps */
	if (!h->dev && !strcmp(attr, CONTROL_FILE)) {
		size = size < SYSFS_PAGE - 1 ? size : SYSFS_PAGE - 1;
		rc = control_store(buf, size);
		return rc ? rc : (int)size;
	}
	if (platform_store(h, buf, size, off, &rc))
		return rc;
	/* sysfs stores see each write() whole, at any offset */
	if (size > SYSFS_PAGE - 1)
		size = SYSFS_PAGE - 1;
	if (h->rep)
		return sim_fuse_report_write_text(h, buf, size);
	if (h->dev && !h->dev->present)
		return -ENODEV;
	if (h->dev && (!strcmp(attr, "tsm/connect") ||
		       !strcmp(attr, "tsm/disconnect") ||
		       !strcmp(attr, "tsm/lock") ||
		       !strcmp(attr, "tsm/accept") ||
		       !strcmp(attr, "tsm/unlock"))) {
		rc = tsm_store(h->dev, attr, buf, size);
	} else if (!h->dev && (drv = driver_trigger(attr, &op))) {
		char *str = strndup(buf, size);

		if (!str)
			return -ENOMEM;
		pthread_rwlock_wrlock(&sim_fuse.rwsem);
		if (op == DRV_BIND || op == DRV_UNBIND)
			rc = sim_driver_bind_store(sim_fuse.m, drv, buf, size, op == DRV_BIND);
		else
			rc = sim_driver_id_store(sim_fuse.m, drv, str, op == DRV_NEW_ID);
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
		pthread_rwlock_unlock(&sim_fuse.rwsem);
		free(str);
		flush_events();
	} else if (h->dev && !strcmp(attr, "driver_override")) {
		pthread_rwlock_wrlock(&sim_fuse.rwsem);
		rc = h->dev->present ? sim_driver_override_store(h->dev, buf, size) : -ENODEV;
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
		pthread_rwlock_unlock(&sim_fuse.rwsem);
	} else if (h->dev && !strcmp(attr, "sriov_numvfs") && h->dev->nr_vfs_total) {
		rc = sriov_store(h->dev, buf, size);
	} else if (h->dev && !strcmp(attr, "config")) {
		rc = -EPERM;	/* deliberate: the tool must never write config */
	} else if (!h->dev && (t = sample_trigger(attr, &sop))) {
		pthread_rwlock_wrlock(&sim_fuse.rwsem);
		rc = sim_sample_trigger(sim_fuse.m, t, buf, size, sop);
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
		pthread_rwlock_unlock(&sim_fuse.rwsem);
	} else if (!strcmp(sim_fuse_base_name(attr), "uevent")) {
		rc = uevent_store(h->path, buf, size);
	} else {
		rc = -EOPNOTSUPP;	/* e.g. remove, rescan: not simulated */
	}
	if (h->dev)
		sim_fuse_count_op(h->dev, true);
	return rc ? rc : (int)size;
}
