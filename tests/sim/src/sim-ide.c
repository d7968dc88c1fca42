// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-ide.c: the IDE register blocks of every port and the stream helpers the
 * kernel offers low-level TSM drivers (pci_ide_stream_alloc/register/setup/
 * enable/disable/teardown/unregister/free), acting on the model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define IDE_CAP_LINK (1u << 0)
#define IDE_CAP_SELECTIVE (1u << 1)
#define IDE_CAP_SEL_CFG (1u << 7)
#define IDE_CAP_TEE_LIMITED (1u << 24)
#define IDE_CTL_EN (1u << 0)
#define IDE_CTL_CFG_EN (1u << 9)
#define IDE_CTL_DEFAULT (1u << 22)
#define IDE_CTL_TEE_LIMITED (1u << 23)
#define IDE_CTL_ID_SHIFT 24
#define IDE_STS_FAIL (1u << 31)

/* A failed claim leaves the port without usable IDE, as pci_ide_init() does. */
static bool claim(struct sim_dev *d, unsigned id, int block)
{
	if (d->hb->ids[id])
		return false;
	d->hb->ids[id] = 1;
	if (block < 0)
		return true;
	if (d->ide.used[block])
		return false;
	d->ide.used[block] = 1;
	return true;
}

static void ide_init_dev(struct sim_dev *d)
{
	struct sim_dev_ide *ide = &d->ide;
	unsigned nr_sel;

	if (!sim_dev_is_pcie(d) || !ide->present || !(ide->cap & IDE_CAP_SELECTIVE))
		return;
	/* an Endpoint needs a Root Port with usable IDE (pci_ide_init) */
	if (d->type == PT_ENDPOINT) {
		struct sim_dev *rp = sim_dev_root_port(d);

		if (!rp || !rp->ide.usable)
			return;
	}
	ide->k_cfg = !!(ide->cap & IDE_CAP_SEL_CFG);
	ide->k_tee_limit = !!(ide->cap & IDE_CAP_TEE_LIMITED);

	/* Linux stops at the first block whose assoc count differs from block 0 */
	nr_sel = ide->nr_sel;
	for (unsigned i = 1; i < ide->nr_sel; i++)
		if (ide->sel[i].nr_assoc != ide->sel[0].nr_assoc) {
			nr_sel = i;
			break;
		}
	ide->k_nr_mem = ide->nr_sel ? ide->sel[0].nr_assoc : 0;

	/* streams already enabled at boot keep their Stream ID and block */
	for (unsigned i = 0; i < nr_sel; i++)
		if ((ide->sel[i].ctl & IDE_CTL_EN) &&
		    !claim(d, ide->sel[i].ctl >> IDE_CTL_ID_SHIFT, i))
			return;
	for (unsigned i = 0; i < ide->nr_link; i++)
		if ((ide->link_ctl[i] & IDE_CTL_EN) &&
		    !claim(d, ide->link_ctl[i] >> IDE_CTL_ID_SHIFT, -1))
			return;

	/* idle streams get the reserved ID 255 so they alias nothing */
	for (unsigned i = 0; i < nr_sel; i++)
		if (!(ide->sel[i].ctl & IDE_CTL_EN))
			ide->sel[i].ctl = (ide->sel[i].ctl & 0x00ffffff) |
					  ((uint32_t)SIM_RESERVED_ID << 24);
	for (unsigned i = 0; i < ide->nr_link; i++)
		if (!(ide->link_ctl[i] & IDE_CTL_EN))
			ide->link_ctl[i] = (ide->link_ctl[i] & 0x00ffffff) |
					   ((uint32_t)SIM_RESERVED_ID << 24);

	ide->usable = true;
	ide->k_nr_sel = nr_sel;
}

static int devfn_cmp(const void *a, const void *b)
{
	const struct sim_dev *x = *(struct sim_dev *const *)a, *y = *(struct sim_dev *const *)b;

	return (int)(x->slot * 8 + x->fn) - (int)(y->slot * 8 + y->fn);
}

/*
 * pci_ide_init() runs from pci_device_add() as the bus is scanned
 * (pci_scan_child_bus_extend(), 7.2 probe.c:3082, 7.3 :3083): every function of a bus in
 * devfn order, then each bridge's secondary bus in turn. Which of two
 * blocks enabled at boot with one Stream ID claims it depends on that order.
 * VFs come later, when SR-IOV is enabled.
 */
static void ide_init_bus(struct sim_dev **devs, size_t n)
{
	struct sim_dev **order = sim_xcalloc(n + 1, sizeof(*order));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!devs[i]->physfn)
			order[k++] = devs[i];
	qsort(order, k, sizeof(*order), devfn_cmp);
	for (size_t i = 0; i < k; i++)
		ide_init_dev(order[i]);
	for (size_t i = 0; i < k; i++)
		ide_init_bus(order[i]->children, order[i]->nr_children);
	free(order);
}

/* Every function of HB in the kernel's enumeration order, its VFs after them. */
static void ide_init_hb(struct sim_model *m, struct sim_host_bridge *hb)
{
	ide_init_bus(hb->devs, hb->nr_devs);
	for (size_t i = 0; i < m->nr_devs; i++)
		if (m->devs[i]->hb == hb && m->devs[i]->physfn && m->devs[i]->present)
			ide_init_dev(m->devs[i]);
}

/* Keep the power-on register state for a later re-enumeration. */
static void save_boot_regs(struct sim_dev *d)
{
	struct sim_dev_ide *ide = &d->ide;

	if (!ide->sel || ide->sel_boot)
		return;
	ide->sel_boot = sim_xcalloc(ide->nr_sel, sizeof(*ide->sel));
	memcpy(ide->sel_boot, ide->sel, ide->nr_sel * sizeof(*ide->sel));
}

/* What a TSM-enabled kernel does at enumeration: pci_ide_init_host_bridge() + pci_ide_init() */
void sim_ide_boot(struct sim_model *m)
{
	for (size_t i = 0; i < m->nr_devs; i++)
		save_boot_regs(m->devs[i]);
	if (m->abi == ABI_NONE)
		return;		/* no CONFIG_PCI_IDE: registers stay as the hardware left them */
	for (size_t i = 0; i < m->nr_hbs; i++) {
		m->hbs[i]->ids[SIM_RESERVED_ID] = 1;
		ide_init_hb(m, m->hbs[i]);
	}
}

/* A bus module loaded again: its devices come back in power-on state and are enumerated anew. */
void sim_ide_enumerate_hb(struct sim_model *m, struct sim_host_bridge *hb)
{
	memset(hb->pool, 0, sizeof(hb->pool));
	memset(hb->ids, 0, sizeof(hb->ids));
	/* a new pci_host_bridge: no tsm_ide_streams entry is keyed by it yet */
	hb->link_owner = NULL;
	hb->link_refs = 0;
	hb->link_stale = false;
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];
		struct sim_dev_ide *ide = &d->ide;

		if (d->hb != hb)
			continue;
		if (ide->sel_boot)
			memcpy(ide->sel, ide->sel_boot, ide->nr_sel * sizeof(*ide->sel));
		memset(ide->link_ctl, 0, sizeof(ide->link_ctl));
		memset(ide->link_sts, 0, sizeof(ide->link_sts));
		memset(ide->used, 0, sizeof(ide->used));
		ide->usable = ide->k_cfg = ide->k_tee_limit = false;
		ide->k_nr_sel = ide->k_nr_mem = 0;
	}
	if (m->abi == ABI_NONE)
		return;
	hb->ids[SIM_RESERVED_ID] = 1;
	ide_init_hb(m, hb);
}

static int lowest_free(const uint8_t *map, unsigned max, int forced)
{
	if (forced >= 0)
		return (unsigned)forced < max && !map[forced] ? forced : -1;
	for (unsigned i = 0; i < max; i++)
		if (!map[i])
			return i;
	return -1;
}

/* pci_ide_stream_alloc(): -ENOSPC stands for its NULL return */
int sim_ide_stream_alloc(struct sim_model *m, struct sim_dev *ep,
			 struct sim_ide_stream **out)
{
	struct sim_host_bridge *hb = ep->hb;
	struct sim_dev *rp = sim_dev_root_port(ep);
	struct sim_ide_stream *s;
	int h, r, e;

	(void)m;
	if (!sim_dev_is_pcie(ep) || ep->type != PT_ENDPOINT || !ep->ide.usable ||
	    !rp || !ep->parent || ep->faults.stream_alloc_fail)
		return -ENOSPC;
	h = lowest_free(hb->pool, hb->nr_streams, ep->boot_h);
	if (h < 0)
		return -ENOSPC;
	r = lowest_free(rp->ide.used, rp->ide.k_nr_sel, ep->boot_r);
	if (r < 0)
		return -ENOSPC;
	e = lowest_free(ep->ide.used, ep->ide.k_nr_sel, ep->boot_e);
	if (e < 0)
		return -ENOSPC;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	hb->pool[h] = 1;
	rp->ide.used[r] = 1;
	ep->ide.used[e] = 1;
	s->hb = hb;
	s->ep = ep;
	s->rp = rp;
	s->h = h;
	s->r = r;
	s->e = e;
	s->stream_id = -1;
	s->sample_id = -1;
	/* RP covers the endpoint and its VFs, EP covers the RP (ABI.md §2.3) */
	s->rp_rid_start = sim_dev_rid(ep);
	s->rp_rid_end = ep->nr_vfs ? sim_dev_rid(ep->vfs[ep->nr_vfs - 1]) : sim_dev_rid(ep);
	s->ep_rid_start = s->ep_rid_end = sim_dev_rid(rp);
	s->rp_cfg = rp->ide.k_cfg;
	s->rp_tee = rp->ide.k_tee_limit;
	s->ep_cfg = ep->ide.k_cfg;
	s->ep_tee = ep->ide.k_tee_limit;
	s->next = m->streams;
	m->streams = s;
	*out = s;
	return 0;
}

/* Is streamH.R.E @name linked below @hb, by a stream or a dangling link? */
bool sim_ide_stream_name_taken(const struct sim_model *m,
			       const struct sim_host_bridge *hb, const char *name)
{
	for (struct sim_ide_stream *s = m->streams; s; s = s->next)
		if (s->hb == hb && s->name && !strcmp(s->name, name))
			return true;
	for (size_t i = 0; i < hb->nr_dangling; i++)
		if (!strcmp(hb->dangling[i].name, name))
			return true;
	return false;
}

/* pci_ide_stream_register(): reserve the Stream ID, create streamH.R.E */
int sim_ide_stream_register(struct sim_model *m, struct sim_ide_stream *s)
{
	char *name;

	if (s->stream_id < 0 || s->stream_id > 255)
		return -ENXIO;
	if (s->hb->ids[s->stream_id])
		return -EBUSY;
	name = sim_xasprintf("stream%u.%u.%u", s->h, s->r, s->e);
	if (sim_ide_stream_name_taken(m, s->hb, name)) {
		free(name);
		return -EEXIST;	/* sysfs_create_link() on an existing name */
	}
	s->hb->ids[s->stream_id] = 1;
	s->id_reserved = true;
	s->name = name;
	return 0;
}

void sim_ide_stream_unregister(struct sim_ide_stream *s)
{
	free(s->name);
	s->name = NULL;
	if (s->id_reserved)
		s->hb->ids[s->stream_id] = 0;
	s->id_reserved = false;
}

static struct sim_sel_block *partner_block(struct sim_ide_stream *s, bool rp)
{
	return rp ? &s->rp->ide.sel[s->r] : &s->ep->ide.sel[s->e];
}

static uint32_t ctl_value(struct sim_ide_stream *s, bool rp, bool enable)
{
	uint32_t v = (uint32_t)(s->stream_id & 0xff) << IDE_CTL_ID_SHIFT;

	if (rp ? s->rp_default : s->ep_default)
		v |= IDE_CTL_DEFAULT;
	if (rp ? s->rp_cfg : s->ep_cfg)
		v |= IDE_CTL_CFG_EN;
	if (rp ? s->rp_tee : s->ep_tee)
		v |= IDE_CTL_TEE_LIMITED;
	if (enable)
		v |= IDE_CTL_EN;
	return v;
}

static void set_assoc(struct sim_sel_block *b, unsigned i, const struct sim_window *w)
{
	b->assoc[i][0] = 1u | (uint32_t)((w->base >> 20) & 0xfff) << 8 |
			 (uint32_t)((w->limit >> 20) & 0xfff) << 20;
	b->assoc[i][1] = (uint32_t)(w->limit >> 32);
	b->assoc[i][2] = (uint32_t)(w->base >> 32);
}

/*
 * pci_ide_stream_to_regs(): how many address associations the partner's
 * block gets. The root port's are the endpoint's upstream bridge memory
 * window, then its prefetchable one (pci_ide_stream_alloc()), as far as
 * the port has association blocks (pdev->nr_ide_mem); a provider may turn
 * the memory one off (TDX: rp_pref_only). The endpoint's are always off.
 */
unsigned sim_ide_stream_nr_addr(const struct sim_ide_stream *s, bool rp)
{
	const struct sim_dev *br = s->ep->parent;
	unsigned nr_mem = s->rp->ide.k_nr_mem, n = 0;

	if (!rp)
		return 0;
	if (nr_mem > n && br->mem.present && !s->rp_pref_only)
		n++;
	if (nr_mem > n && br->pref.present)
		n++;
	return n;
}

/* pci_ide_stream_setup(): RID/address association, control without enable */
void sim_ide_stream_setup(struct sim_ide_stream *s, bool rp)
{
	struct sim_dev *d = rp ? s->rp : s->ep;
	struct sim_sel_block *b = partner_block(s, rp);
	unsigned start = rp ? s->rp_rid_start : s->ep_rid_start;
	unsigned end = rp ? s->rp_rid_end : s->ep_rid_end;
	unsigned nr = sim_ide_stream_nr_addr(s, rp), n = 0;

	b->rid1 = (end & 0xffff) << 8;
	b->rid2 = 1u | (start & 0xffff) << 8;	/* segment only in Flit mode */
	if (nr && s->ep->parent->mem.present && !s->rp_pref_only)
		set_assoc(b, n++, &s->ep->parent->mem);
	if (n < nr)
		set_assoc(b, n++, &s->ep->parent->pref);
	/* "clear extra unused address association blocks" */
	for (unsigned i = n; i < d->ide.k_nr_mem && i < SIM_MAX_ASSOC; i++)
		memset(b->assoc[i], 0, sizeof(b->assoc[i]));
	b->ctl = ctl_value(s, rp, false);
	if (rp)
		s->rp_setup = true;
	else
		s->ep_setup = true;
}

void sim_ide_stream_teardown(struct sim_ide_stream *s, bool rp)
{
	struct sim_dev *d = rp ? s->rp : s->ep;
	struct sim_sel_block *b = partner_block(s, rp);

	b->ctl = 0;
	for (unsigned i = 0; i < d->ide.k_nr_mem && i < SIM_MAX_ASSOC; i++)
		memset(b->assoc[i], 0, sizeof(b->assoc[i]));
	b->rid2 = 0;
	b->rid1 = 0;
	if (rp)
		s->rp_setup = false;
	else
		s->ep_setup = false;
}

/* pci_ide_stream_enable(): the port answers with the state its fault knob says */
int sim_ide_stream_enable(struct sim_ide_stream *s, bool rp)
{
	struct sim_sel_block *b = partner_block(s, rp);
	const struct sim_dev_faults *f = &s->ep->faults;
	int state = rp ? f->rp_state : f->ep_state;

	b->ctl = ctl_value(s, rp, true);
	b->sts = (uint32_t)state;
	if (rp ? f->rp_ide_fail : f->ep_ide_fail)
		b->sts |= IDE_STS_FAIL;
	if (rp)
		s->rp_enable = true;
	else
		s->ep_enable = true;
	return state == STATE_SECURE ? 0 : -ENXIO;
}

/* pci_ide_stream_disable(): control cleared; the port drops to Insecure */
void sim_ide_stream_disable(struct sim_ide_stream *s, bool rp)
{
	struct sim_sel_block *b = partner_block(s, rp);

	b->ctl = 0;
	b->sts = STATE_INSECURE;
	if (rp)
		s->rp_enable = false;
	else
		s->ep_enable = false;
}

/*
 * tsm_ide_stream_register(). The 6.19-rc1 form (a4438f06b1db) linked
 * tsmN/streamH.R.E, EEXIST when another host bridge's stream of this TSM
 * already has the name (why it was reverted). The proposed form
 * (drivers/virt/coco/tsm-core.c as posted with "PCI/TSM: Report active IDE
 * streams per host bridge", intel-lab-lkp/linux 14f81181a285) keeps one
 * tsm_ide_streams entry per host bridge, whatever the TSM: the first
 * stream's TSM gets tsmN/pciDDDD:BB, later ones only count
 * (create_streams(), kref_get()).
 */
int sim_tsm_stream_register(struct sim_model *m, struct sim_ide_stream *s)
{
	struct sim_host_bridge *hb = s->hb;

	if (m->rc1_links)
		for (struct sim_ide_stream *o = m->streams; o; o = o->next)
			if (o != s && o->tsm == s->tsm && o->tsm_registered &&
			    o->name && s->name && !strcmp(o->name, s->name))
				return -EEXIST;
	if (!hb->link_refs++)
		hb->link_owner = s->tsm;
	s->tsm_registered = true;
	return 0;
}

/*
 * tsm_ide_stream_unregister(): only the entry's own TSM drops a count (the
 * last one removes the link); another TSM's stream hits the "no IDE streams
 * associated" WARN and leaves the count as it was.
 */
void sim_tsm_stream_unregister(struct sim_model *m, struct sim_ide_stream *s)
{
	struct sim_host_bridge *hb = s->hb;

	(void)m;
	if (!s->tsm_registered)
		return;
	s->tsm_registered = false;
	if (!hb->link_refs || hb->link_stale || hb->link_owner != s->tsm)
		return;
	if (!--hb->link_refs)
		hb->link_owner = NULL;
}

/* pci_ide_stream_free(): give back the pool slot and both register blocks */
void sim_ide_stream_free(struct sim_model *m, struct sim_ide_stream *s)
{
	struct sim_ide_stream **pp;

	s->hb->pool[s->h] = 0;
	s->rp->ide.used[s->r] = 0;
	s->ep->ide.used[s->e] = 0;
	for (pp = &m->streams; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	free(s->name);
	free(s);
}

/* pci_ide_stream_release(): undo whatever part of setup completed, in reverse */
void sim_ide_stream_release(struct sim_model *m, struct sim_ide_stream *s)
{
	if (s->rp_enable)
		sim_ide_stream_disable(s, true);
	if (s->ep_enable)
		sim_ide_stream_disable(s, false);
	sim_tsm_stream_unregister(m, s);
	if (s->rp_setup)
		sim_ide_stream_teardown(s, true);
	if (s->ep_setup)
		sim_ide_stream_teardown(s, false);
	if (s->name)
		sim_ide_stream_unregister(s);
	sim_ide_stream_free(m, s);
}
