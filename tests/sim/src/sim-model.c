// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-model.c: lookups and the kernel's visibility predicates over the model. */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

unsigned sim_dev_rid(const struct sim_dev *d)
{
	return (d->bus << 8) | (d->slot << 3) | d->fn;
}

bool sim_dev_is_pcie(const struct sim_dev *d)
{
	return d->type != PT_CONVENTIONAL;
}

/* is_pci_tsm_pf0(): ABI.md §2.1 */
bool sim_dev_is_pf0(const struct sim_dev *d)
{
	if (!sim_dev_is_pcie(d) || d->physfn)
		return false;
	if (d->type != PT_ENDPOINT && d->type != PT_UPSTREAM &&
	    d->type != PT_RCIEP)
		return false;
	if (!d->ide.usable && !d->tee)
		return false;
	return d->fn == 0;
}

bool sim_dev_has_doe(const struct sim_dev *d, const char *feature)
{
	for (size_t i = 0; i < d->nr_doe; i++)
		if (!strcmp(d->doe[i], feature))
			return true;
	return false;
}

/* pci_find_doe_mailbox(): the first mailbox (config order) offering @feature, -1 none */
int sim_dev_doe_mailbox(const struct sim_dev *d, const char *feature)
{
	for (size_t i = 0; i < d->nr_mbs; i++)
		for (size_t j = 0; j < d->mbs[i].nr_feat; j++)
			if (!strcmp(d->mbs[i].feat[j], feature))
				return (int)i;
	return -1;
}

/* pcie_find_root_port() */
struct sim_dev *sim_dev_root_port(struct sim_dev *d)
{
	for (struct sim_dev *p = d->parent; p; p = p->parent)
		if (p->type == PT_ROOT_PORT)
			return p;
	return NULL;
}

struct sim_dev *sim_model_find_dev(struct sim_model *m, const char *bdf)
{
	for (size_t i = 0; i < m->nr_devs; i++)
		if (!strcmp(m->devs[i]->name, bdf))
			return m->devs[i];
	return NULL;
}

struct sim_dev *sim_model_find_dev_dir(struct sim_model *m, const char *dir)
{
	for (size_t i = 0; i < m->nr_devs; i++)
		if (m->devs[i]->present && !strcmp(m->devs[i]->dir, dir))
			return m->devs[i];
	return NULL;
}

struct sim_tsm *sim_model_find_tsm(struct sim_model *m, long id)
{
	for (size_t i = 0; i < m->nr_tsms; i++)
		if ((long)m->tsms[i]->id == id && m->tsms[i]->pci_ready)
			return m->tsms[i];
	return NULL;
}

size_t sim_model_hb_index(struct sim_model *m, const struct sim_host_bridge *hb)
{
	for (size_t i = 0; i < m->nr_hbs; i++)
		if (m->hbs[i] == hb)
			return i;
	return 0;
}

unsigned sim_model_link_tsms(const struct sim_model *m)
{
	unsigned n = 0;

	for (size_t i = 0; i < m->nr_tsms; i++)
		n += m->tsms[i]->kind == TSM_LINK && m->tsms[i]->pci_ready;
	return n;
}

unsigned sim_model_devsec_tsms(const struct sim_model *m)
{
	unsigned n = 0;

	for (size_t i = 0; i < m->nr_tsms; i++)
		n += m->tsms[i]->kind == TSM_DEVSEC && m->tsms[i]->pci_ready;
	return n;
}

/* pci_tsm_link_group_visible(): also gates 'authenticated' */
bool sim_vis_link_group(const struct sim_model *m, const struct sim_dev *d)
{
	if (!sim_model_link_tsms(m) || !sim_dev_is_pcie(d))
		return false;
	return sim_dev_is_pf0(d) || d->ctx_tsm;
}

bool sim_vis_connect(const struct sim_model *m, const struct sim_dev *d)
{
	return sim_vis_link_group(m, d) && sim_dev_is_pf0(d);
}

bool sim_vis_dsm(const struct sim_model *m, const struct sim_dev *d)
{
	if (!sim_vis_link_group(m, d))
		return false;
	return sim_dev_is_pf0(d) || (d->ctx_tsm && d->ctx_dsm->tee);
}

bool sim_vis_bound(const struct sim_model *m, const struct sim_dev *d)
{
	if (!sim_vis_link_group(m, d))
		return false;
	return (sim_dev_is_pf0(d) && d->tee) || (d->ctx_tsm && d->ctx_dsm->tee);
}

/* proposed: lock/accept/unlock on DEVCAP.TEE functions with a devsec TSM */
bool sim_vis_devsec(const struct sim_model *m, const struct sim_dev *d)
{
	return m->abi == ABI_PROPOSED && sim_model_devsec_tsms(m) &&
	       sim_dev_is_pcie(d) && d->tee;
}

/* pdev->tsm != NULL: connected (or a DSM's dependent), or locked to a devsec TSM */
bool sim_dev_has_ctx(const struct sim_dev *d)
{
	return d->ctx_tsm || d->lock_tsm;
}

struct sim_driver *sim_model_find_driver(struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_drivers; i++)
		if (!strcmp(m->drivers[i].name, name))
			return &m->drivers[i];
	return NULL;
}

struct sim_module *sim_model_find_module(struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_modules; i++)
		if (!strcmp(m->modules[i].name, name))
			return &m->modules[i];
	return NULL;
}

/* Something of module @name is there: no such module (built in) or it is loaded. */
bool sim_module_live(const struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_modules; i++)
		if (!strcmp(m->modules[i].name, name))
			return m->modules[i].loaded;
	return true;
}

/* The driver core knows @drv: its module is loaded, or it is built in. */
bool sim_driver_registered(const struct sim_model *m, const struct sim_driver *drv)
{
	return sim_module_live(m, drv->name);
}

unsigned sim_hb_available(const struct sim_host_bridge *hb)
{
	unsigned n = hb->nr_streams;

	for (unsigned i = 0; i < hb->nr_streams; i++)
		if (hb->pool[i])
			n--;
	return n;
}

/* Does tsmN/pciDDDD:BB of @t lead to @hb (the proposed ABI's tsm_ide_streams entry)? */
bool sim_hb_links_tsm(const struct sim_model *m, const struct sim_host_bridge *hb,
		      const struct sim_tsm *t)
{
	return m->abi == ABI_PROPOSED && !m->rc1_links && hb->link_refs &&
	       !hb->link_stale && hb->link_owner == t;
}

/* Does @t's provider take @d's host bridge (its "host_bridges" list, or all)? */
bool sim_tsm_serves_dev(const struct sim_tsm *t, const struct sim_dev *d)
{
	if (!t->nr_hbs)
		return true;
	for (size_t i = 0; i < t->nr_hbs; i++)
		if (!strcmp(t->hbs[i], d->hb->name))
			return true;
	return false;
}

/* A VF's number below its PF (virtfnN), or the PF's total when it is none. */
unsigned sim_vf_index(const struct sim_dev *vf)
{
	const struct sim_dev *pf = vf->physfn;
	unsigned i = 0;

	while (pf && i < pf->nr_vfs_total && pf->vfs[i] != vf)
		i++;
	return pf ? i : 0;
}
