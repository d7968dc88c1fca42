// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-module.c: loadable modules and the PCI driver model they bring along.
 *
 * A module of the topology is what its name stands for elsewhere in it: the
 * faux device NAME (kernel/module + drivers/base/faux.c), with the TSMs and
 * host bridges below it (tsm_register(), pci_scan_root_bus_bridge()), and the
 * PCI driver NAME (pci_register_driver()). Loading runs their init in that
 * order, removal their exit in reverse, as module_init()/module_exit() of the
 * samples/devsec modules do. The driver model follows drivers/base/bus.c
 * (bind_store, unbind_store, bus_add_driver), drivers/base/dd.c (probe,
 * deferred probe, driver_detach) and drivers/pci/pci-driver.c
 * (pci_match_device, new_id_store, remove_id_store).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void sim_event_queue(struct sim_model *m, const char *action, const char *dir,
		     const char *subsystem)
{
	struct sim_event *n = sim_xrealloc(m->events, m->nr_events + 1, sizeof(*n));

	m->events = n;
	m->events[m->nr_events++] = (struct sim_event){
		.action = sim_xstrdup(action), .dir = sim_xstrdup(dir),
		.subsystem = sim_xstrdup(subsystem) };
}

void sim_events_clear(struct sim_model *m)
{
	for (size_t i = 0; i < m->nr_events; i++) {
		free(m->events[i].action);
		free(m->events[i].dir);
		free(m->events[i].subsystem);
	}
	m->nr_events = 0;
}

/*
 * tdx-host.c seamldr_init() (torvalds/linux 637315cb400e): with runtime
 * updates the probe's firmware_upload_register() adds the firmware class
 * device tdx_module below tdx_host (KOBJ_ADD); devm removes it at unbind.
 */
static void tdx_fw_upload_event(struct sim_model *m, const struct sim_faux *f, const char *action)
{
	char *dir;

	if (!m->tdx.present || !m->tdx.seamldr_version || strcmp(f->name, "tdx_host"))
		return;
	dir = sim_xasprintf("%s/firmware/tdx_module", f->dir);
	sim_event_queue(m, action, dir, "firmware");
	free(dir);
}

/* ida_alloc() over the registered TSMs: the lowest free number */
void sim_tsm_assign_id(struct sim_model *m, struct sim_tsm *t)
{
	unsigned id = 0;

	for (bool taken = true; taken; id += taken) {
		taken = false;
		for (size_t i = 0; i < m->nr_tsms; i++)
			if (m->tsms[i] != t && m->tsms[i]->registered &&
			    m->tsms[i]->id == id)
				taken = true;
	}
	t->id = id;
	free(t->name);
	free(t->dir);
	t->name = sim_xasprintf("tsm%u", id);
	t->dir = sim_xasprintf("%s/tsm/%s", t->parent_dir, t->name);
}

/*
 * What a provider does just before tsm_register(). TDX: tdx_connect_init() ->
 * tdx_setup_nr_ide_stream() (tdx-host.c, kernelorg-mirror/linux_kernel_git_devsec_tsm
 * 85c942cc1d9a) sets every host bridge's pool from ACPI KEYP: the entry's
 * stream count plus one, 0 without an entry (pci_ide_set_nr_streams()).
 * Nothing resets it at unload: the pools stay as set.
 */
void sim_tsm_platform_init(struct sim_model *m, const struct sim_tsm *t)
{
	if (t->provider != PROV_TDX_CONNECT || m->abi == ABI_NONE)
		return;
	for (size_t i = 0; i < m->nr_hbs; i++) {
		struct sim_host_bridge *hb = m->hbs[i];

		hb->nr_streams = hb->keyp_streams < 0 ? 0 : (unsigned)hb->keyp_streams + 1;
	}
}

/* tsm_unregister(): contexts torn down, then the class device goes (KOBJ_REMOVE) */
void sim_tsm_unregister_now(struct sim_model *m, struct sim_tsm *t)
{
	sim_tsm_teardown(m, t);
	t->pci_ready = false;
	t->registered = false;
	if (t->uevents)
		sim_event_queue(m, "remove", t->dir, "tsm");
}

static bool id_listed(char **ids, size_t n, const struct sim_dev *d)
{
	char id[10];

	snprintf(id, sizeof(id), "%04x:%04x", d->vendor, d->device);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ids[i], id))
			return true;
	return false;
}

/*
 * pci_match_device(): driver_override decides alone when set; then new_id
 * entries, then the id table (override_only entries need the override). A
 * driver without a known table binds anything through "bind" (@manual) and
 * claims at probe time only the devices the topology boots bound to it.
 */
static bool driver_matches(const struct sim_driver *drv,
			   const struct sim_dev *d, bool manual)
{
	if (d->driver_override)
		return !strcmp(d->driver_override, drv->name);
	if (d->boot_driver && !strcmp(d->boot_driver, drv->name))
		return true;
	if (id_listed(drv->dynids, drv->nr_dynids, d))
		return true;
	if (!drv->has_ids)
		return manual;
	return !drv->override_only && id_listed(drv->ids, drv->nr_ids, d);
}

/* The driver's probe() as the topology describes it. */
static int driver_probe(const struct sim_driver *drv, const struct sim_dev *d)
{
	if (d->accepted && drv->accepted_errno)
		return -drv->accepted_errno;
	if (!d->accepted && drv->defer_reason)
		return -EPROBE_DEFER;
	return 0;
}

static void deferred_probe_trigger(struct sim_model *m);

/* __driver_probe_device() + really_probe(): 0 bound, -EBUSY, or the probe's error */
static int probe_device(struct sim_model *m, const struct sim_driver *drv,
			struct sim_dev *d)
{
	int rc;

	if (d->driver)
		return -EBUSY;
	rc = driver_probe(drv, d);
	if (rc == -EPROBE_DEFER) {
		/* driver_deferred_probe_add(); dev_err_probe() keeps "DRIVER: reason" */
		free(d->deferred);
		d->deferred = sim_xasprintf("%s: %s\n", drv->name, drv->defer_reason);
		return rc;
	}
	if (rc)
		return rc;
	d->driver = sim_xstrdup(drv->name);
	/* driver_bound(): off the deferred list, and the others are retried */
	free(d->deferred);
	d->deferred = NULL;
	sim_event_queue(m, "bind", d->dir, "pci");
	deferred_probe_trigger(m);
	return 0;
}

/* __device_attach(): the first registered driver that matches and probes wins */
static void device_attach(struct sim_model *m, struct sim_dev *d, bool initial)
{
	for (size_t i = 0; i < m->nr_drivers && !d->driver; i++) {
		struct sim_driver *drv = &m->drivers[i];
		struct sim_module *mod = sim_model_find_module(m, drv->name);

		if (!sim_driver_registered(m, drv) || !driver_matches(drv, d, false))
			continue;
		/* at a device's arrival the module's autoprobe policy applies */
		if (initial && mod && (!mod->autoprobe || mod->trust == TRUST_NONE))
			continue;
		if (probe_device(m, drv, d) == -EPROBE_DEFER)
			break;
	}
}

/* deferred_probe_work_func(): each deferred device is probed again */
static void deferred_probe_trigger(struct sim_model *m)
{
	static bool running;
	bool again = true;

	if (running)
		return;		/* the outer loop sees what a nested bind changed */
	running = true;
	while (again) {
		again = false;
		for (size_t i = 0; i < m->nr_devs; i++) {
			struct sim_dev *d = m->devs[i];

			if (!d->present || !d->deferred || d->driver)
				continue;
			device_attach(m, d, false);
			again |= d->driver != NULL;
		}
	}
	running = false;
}

/* driver_attach() at bus_add_driver() or new_id: every matching unbound device */
static void driver_attach(struct sim_model *m, struct sim_driver *drv,
			  bool policy)
{
	struct sim_module *mod = sim_model_find_module(m, drv->name);

	if (policy && mod && (!mod->autoprobe || mod->trust == TRUST_NONE))
		return;		/* "autoprobe=0" / "trust=none": userspace binds */
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];

		if (!d->present || d->driver || !driver_matches(drv, d, false))
			continue;
		if (policy && mod && mod->trust == TRUST_TCB && !d->accepted)
			continue;	/* "trust=tcb": only devices in the TCB */
		probe_device(m, drv, d);
	}
}

/* device_release_driver() */
static void device_release(struct sim_model *m, struct sim_dev *d)
{
	if (!d->driver)
		return;
	free(d->driver);
	d->driver = NULL;
	sim_event_queue(m, "unbind", d->dir, "pci");
}

static struct sim_dev *dev_by_name(struct sim_model *m, const char *buf,
				   size_t len)
{
	for (size_t i = 0; i < m->nr_devs; i++)
		if (m->devs[i]->present && sim_sysfs_streq(buf, len, m->devs[i]->name))
			return m->devs[i];
	return NULL;
}

/*
 * bind_store()/unbind_store(): ENODEV when there is no such device or the
 * driver does not match it (unbind: is not its driver); bind then returns
 * EBUSY for a bound device, EAGAIN when the probe defers, or the probe's
 * own error.
 */
int sim_driver_bind_store(struct sim_model *m, struct sim_driver *drv,
			  const char *buf, size_t len, bool bind)
{
	struct sim_dev *d = dev_by_name(m, buf, len);
	int rc;

	if (!d)
		return -ENODEV;
	if (!bind) {
		if (!d->driver || strcmp(d->driver, drv->name))
			return -ENODEV;
		device_release(m, d);
		return 0;
	}
	if (!driver_matches(drv, d, true))
		return -ENODEV;
	rc = probe_device(m, drv, d);
	return rc == -EPROBE_DEFER ? -EAGAIN : rc;
}

/*
 * new_id_store()/remove_id_store(): "VVVV DDDD [...]" in hex. new_id is
 * EEXIST when the driver matches such a device already, then attaches;
 * remove_id is ENODEV for an id it does not have.
 */
int sim_driver_id_store(struct sim_model *m, struct sim_driver *drv,
			const char *buf, bool add)
{
	unsigned v, dv;
	char *id;

	if (sscanf(buf, "%x %x", &v, &dv) != 2 || v > 0xffff || dv > 0xffff)
		return -EINVAL;
	id = sim_xasprintf("%04x:%04x", v, dv);
	for (size_t i = 0; i < drv->nr_dynids; i++) {
		if (strcmp(drv->dynids[i], id))
			continue;
		if (add) {
			free(id);
			return -EEXIST;
		}
		free(drv->dynids[i]);
		drv->dynids[i] = drv->dynids[--drv->nr_dynids];
		free(id);
		return 0;
	}
	if (!add) {
		free(id);
		return -ENODEV;
	}
	for (size_t i = 0; drv->has_ids && !drv->override_only && i < drv->nr_ids; i++)
		if (!strcmp(drv->ids[i], id)) {
			free(id);
			return -EEXIST;
		}
	drv->dynids = sim_xrealloc(drv->dynids, drv->nr_dynids + 1, sizeof(char *));
	drv->dynids[drv->nr_dynids++] = id;
	driver_attach(m, drv, false);
	return 0;
}

/* driver_set_override(): up to the first newline; empty clears */
int sim_driver_override_store(struct sim_dev *d, const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len);
	size_t n = nl ? (size_t)(nl - buf) : len;

	if (len >= 4095)
		return -EINVAL;
	n = strnlen(buf, n);
	free(d->driver_override);
	d->driver_override = n ? strndup(buf, n) : NULL;
	return n && !d->driver_override ? -ENOMEM : 0;	/* driver_set_override()'s kstrndup() */
}

static struct sim_faux *faux_named(struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_faux; i++)
		if (!strcmp(m->faux[i].name, name))
			return &m->faux[i];
	return NULL;
}

/* a name the topology implies (faux device, driver) but does not list as a module */
static bool builtin(struct sim_model *m, const char *name)
{
	return faux_named(m, name) || sim_model_find_driver(m, name);
}

static bool tsm_is_late(const struct sim_tsm *t)
{
	return t->register_after_ms >= 0 || t->register_manually;
}

/* pci_stop_root_bus() + pci_remove_root_bus(): devices go in reverse, then the bridge */
static void remove_host_bridge(struct sim_model *m, struct sim_host_bridge *hb)
{
	for (size_t i = m->nr_devs; i > 0; i--) {
		struct sim_dev *d = m->devs[i - 1];

		if (d->hb != hb || !d->present)
			continue;
		device_release(m, d);
		sim_event_queue(m, "remove", d->dir, "pci");
	}
	for (size_t i = hb->nr_devs; i > 0; i--)
		if (!hb->devs[i - 1]->physfn)
			sim_vanish(m, hb->devs[i - 1]);
	hb->present = false;
}

/* pci_scan_root_bus_bridge() + pci_bus_add_devices(): enumerate, then initial probe */
static void add_host_bridge(struct sim_model *m, struct sim_host_bridge *hb)
{
	hb->present = true;
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];

		if (d->hb != hb)
			continue;
		/* VFs: those the PF's driver enables at probe (the topology's count) */
		d->present = !d->physfn || sim_vf_index(d) < d->physfn->nr_vfs_boot;
		if (d->nr_vfs_total)
			d->nr_vfs = d->nr_vfs_boot;
		d->faults.writes = d->faults.opens = 0;
	}
	sim_ide_enumerate_hb(m, hb);
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];

		if (d->hb != hb || !d->present)
			continue;
		sim_event_queue(m, "add", d->dir, "pci");
		device_attach(m, d, true);
	}
}

static void set_param_defaults(struct sim_module *mod)
{
	for (size_t i = 0; i < mod->nr_params; i++) {
		free(mod->vals[i]);
		mod->vals[i] = sim_xstrdup(mod->defaults[i]);
	}
	mod->autoprobe = true;
	mod->trust = TRUST_AUTO;
}

/*
 * load_module()'s parse_args(): declared parameters take their value; the
 * generic "autoprobe" (kstrtobool, ignored when not a boolean) and "trust"
 * options are the module core's; anything else is an unknown parameter,
 * which the simulator reports as EBADMSG (the kernel: ENOENT).
 */
static int parse_params(struct sim_module *mod, char **params, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *eq = strchr(params[i], '=');
		size_t klen = eq ? (size_t)(eq - params[i]) : strlen(params[i]);
		const char *val = eq ? eq + 1 : NULL;
		bool b, found = false;

		if (klen == 9 && !strncmp(params[i], "autoprobe", 9)) {
			if (!sim_kstrtobool(val ? val : "1", &b))
				mod->autoprobe = b;
			continue;
		}
		if (klen == 5 && !strncmp(params[i], "trust", 5)) {
			if (val && !strcmp(val, "none"))
				mod->trust = TRUST_NONE;
			else if (val && !strcmp(val, "auto"))
				mod->trust = TRUST_AUTO;
			else if (val && !strcmp(val, "tcb"))
				mod->trust = TRUST_TCB;
			else
				return -EINVAL;
			continue;
		}
		for (size_t k = 0; k < mod->nr_params; k++)
			if (strlen(mod->keys[k]) == klen &&
			    !strncmp(mod->keys[k], params[i], klen)) {
				free(mod->vals[k]);
				mod->vals[k] = sim_xstrdup(val ? val : "Y");
				found = true;
			}
		if (!found)
			return -EBADMSG;
	}
	return 0;
}

/*
 * modprobe NAME [PARAM=VALUE...]: ENOENT unknown, EEXIST loaded already or
 * built in, EINVAL/EBADMSG a bad parameter; else module_init() runs.
 */
int sim_module_load(struct sim_model *m, const char *name, char **params, size_t n)
{
	struct sim_module *mod = sim_model_find_module(m, name);
	struct sim_faux *f;
	struct sim_driver *drv;
	int rc;

	if (!mod)
		return builtin(m, name) ? -EEXIST : -ENOENT;
	if (mod->loaded)
		return -EEXIST;
	set_param_defaults(mod);
	rc = parse_params(mod, params, n);
	if (rc) {
		set_param_defaults(mod);
		return rc;
	}
	mod->loaded = true;
	f = faux_named(m, name);
	if (f) {
		/* faux_device_create(): the device, then its probe */
		f->present = true;
		sim_event_queue(m, "add", f->dir, "faux");
		tdx_fw_upload_event(m, f, "add");
	}
	for (size_t i = 0; f && i < m->nr_tsms; i++) {
		struct sim_tsm *t = m->tsms[i];

		if (!t->parent_faux || strcmp(t->parent_faux, name) || tsm_is_late(t))
			continue;
		sim_tsm_platform_init(m, t);
		sim_tsm_assign_id(m, t);
		t->registered = t->pci_ready = true;
		if (t->uevents) {
			sim_event_queue(m, "add", t->dir, "tsm");
			sim_event_queue(m, "change", t->dir, "tsm");
		}
	}
	for (size_t i = 0; i < m->nr_hbs; i++)
		if (m->hbs[i]->owner && !strcmp(m->hbs[i]->owner, name))
			add_host_bridge(m, m->hbs[i]);
	drv = sim_model_find_driver(m, name);
	if (drv)
		driver_attach(m, drv, true);
	return 0;
}

/* modprobe -r NAME: ENOENT unknown, EPERM built in, ESRCH not loaded; else module_exit() */
int sim_module_unload(struct sim_model *m, const char *name)
{
	struct sim_module *mod = sim_model_find_module(m, name);
	struct sim_driver *drv;
	struct sim_faux *f;

	if (!mod)
		return builtin(m, name) ? -EPERM : -ENOENT;
	if (!mod->loaded)
		return -ESRCH;
	drv = sim_model_find_driver(m, name);
	if (drv) {
		/* bus_remove_driver(): driver_detach(), the new_id entries go too */
		for (size_t i = m->nr_devs; i > 0; i--) {
			struct sim_dev *d = m->devs[i - 1];

			if (d->driver && !strcmp(d->driver, name))
				device_release(m, d);
			if (d->deferred && !strncmp(d->deferred, name, strlen(name)) &&
			    d->deferred[strlen(name)] == ':') {
				free(d->deferred);
				d->deferred = NULL;
			}
		}
		for (size_t i = 0; i < drv->nr_dynids; i++)
			free(drv->dynids[i]);
		drv->nr_dynids = 0;
	}
	for (size_t i = m->nr_hbs; i > 0; i--)
		if (m->hbs[i - 1]->owner && !strcmp(m->hbs[i - 1]->owner, name) &&
		    m->hbs[i - 1]->present)
			remove_host_bridge(m, m->hbs[i - 1]);
	for (size_t i = m->nr_tsms; i > 0; i--) {
		struct sim_tsm *t = m->tsms[i - 1];

		if (t->parent_faux && !strcmp(t->parent_faux, name) && t->registered)
			sim_tsm_unregister_now(m, t);
	}
	f = faux_named(m, name);
	if (f && f->present) {
		f->present = false;
		tdx_fw_upload_event(m, f, "remove");
		sim_event_queue(m, "remove", f->dir, "faux");
	}
	mod->loaded = false;
	set_param_defaults(mod);
	return 0;
}

/* Modules the topology leaves unloaded: what the kernel shows before modprobe. */
int sim_module_boot(struct sim_model *m, char **err)
{
	for (size_t i = 0; i < m->nr_modules; i++) {
		struct sim_module *mod = &m->modules[i];
		struct sim_faux *f;

		mod->trust = TRUST_AUTO;
		if (mod->loaded)
			continue;
		f = faux_named(m, mod->name);
		if (f)
			f->present = false;
		for (size_t j = 0; j < m->nr_tsms; j++) {
			struct sim_tsm *t = m->tsms[j];

			if (t->parent_faux && !strcmp(t->parent_faux, mod->name))
				t->registered = t->pci_ready = false;
		}
		for (size_t j = 0; j < m->nr_hbs; j++)
			if (m->hbs[j]->owner && !strcmp(m->hbs[j]->owner, mod->name))
				m->hbs[j]->present = false;
		for (size_t j = 0; j < m->nr_devs; j++) {
			struct sim_dev *d = m->devs[j];

			if (!d->hb->present) {
				if (d->boot_connect || d->boot_lock || d->boot_bound) {
					*err = sim_xasprintf("%s: connected, locked or bound at boot, but bus module %s is not loaded",
							     d->name, d->hb->owner);
					return -EINVAL;
				}
				d->present = false;
				free(d->driver);
				d->driver = NULL;
			}
			if (d->driver && !strcmp(d->driver, mod->name)) {
				free(d->driver);
				d->driver = NULL;
			}
		}
	}
	return 0;
}
