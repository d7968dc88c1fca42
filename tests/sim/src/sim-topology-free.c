// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-topology-free.c: frees a model and everything the loader and the kernel state hung on it. */
#include <stdlib.h>

#include "sim.h"

/* @n strings and the array that holds them */
static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void dev_free(struct sim_dev *d)
{
	free(d->name);
	free(d->dir);
	free(d->driver);
	free(d->boot_driver);
	free(d->driver_override);
	free(d->deferred);
	free(d->children);
	free(d->vfs);
	free_strv(d->doe, d->nr_doe);
	for (size_t i = 0; i < d->nr_mbs; i++)
		free_strv(d->mbs[i].feat, d->mbs[i].nr_feat);
	free(d->mbs);
	free(d->ide.sel);
	free(d->ide.sel_boot);
	free(d->boot_connect);
	free(d->boot_lock);
	sim_evidence_free(d);
	free(d);
}

void sim_model_free(struct sim_model *m)
{
	if (!m)
		return;
	while (m->streams) {
		struct sim_ide_stream *s = m->streams;

		m->streams = s->next;
		free(s->name);
		free(s);
	}
	for (size_t i = 0; i < m->nr_devs; i++)
		dev_free(m->devs[i]);
	free(m->devs);
	for (size_t i = 0; i < m->nr_hbs; i++) {
		struct sim_host_bridge *hb = m->hbs[i];

		for (size_t j = 0; j < hb->nr_dangling; j++) {
			free(hb->dangling[j].name);
			free(hb->dangling[j].target);
		}
		free(hb->dangling);
		for (size_t j = 0; j < hb->nr_windows; j++)
			free(hb->windows[j].name);
		free(hb->windows);
		free(hb->owner);
		free(hb->acpi);
		free(hb->devs);
		free(hb->name);
		free(hb->dir);
		free(hb);
	}
	free(m->hbs);
	for (size_t i = 0; i < m->nr_tsms; i++) {
		struct sim_tsm *t = m->tsms[i];

		free_strv(t->hbs, t->nr_hbs);
		free(t->name);
		free(t->decl_name);
		free(t->dir);
		free(t->parent_dir);
		free(t->parent_faux);
		free(t->module_ids);
		free(t->parent_platform);
		free(t);
	}
	free(m->tsms);
	for (size_t i = 0; i < m->nr_modules; i++) {
		free_strv(m->modules[i].keys, m->modules[i].nr_params);
		free_strv(m->modules[i].vals, m->modules[i].nr_params);
		free_strv(m->modules[i].defaults, m->modules[i].nr_params);
		free(m->modules[i].name);
	}
	free(m->modules);
	for (size_t i = 0; i < m->nr_faux; i++) {
		free(m->faux[i].name);
		free(m->faux[i].dir);
	}
	free(m->faux);
	for (size_t i = 0; i < m->nr_platform; i++) {
		free(m->platform[i].name);
		free(m->platform[i].dir);
	}
	free(m->platform);
	for (size_t i = 0; i < m->nr_drivers; i++) {
		struct sim_driver *drv = &m->drivers[i];

		free_strv(drv->ids, drv->nr_ids);
		free_strv(drv->dynids, drv->nr_dynids);
		free(drv->defer_reason);
		free(drv->name);
	}
	free(m->drivers);
	sim_events_clear(m);
	free(m->events);
	sim_report_free_all(m);
	free(m->sample_certs);
	free(m->sample_transcript);
	for (size_t i = 0; i < m->nr_chains; i++) {
		free(m->chains[i].name);
		free(m->chains[i].data);
	}
	free(m->chains);
	free(m->tdx.version);
	free(m->tdx.seamldr_version);
	free(m);
}
