// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-config.c: the bytes of a function's config space, generated from the model:
 * type 0/1 header, PCIe capability at 0x40 (then MSI-X at 0x80 when the
 * topology gives one), extended capabilities from 0x100
 * (the topology's "ext_caps" others, then DOE 0x2E, SR-IOV 0x10, IDE 0x30 laid
 * out as in ABI.md §3).
 */
#include <string.h>

#include "sim.h"

#define CAP_PCIE_OFF 0x40
#define PCIE_CAP_SIZE 0x3c
#define CAP_MSIX_OFF 0x80	/* after the PCIe capability */
#define EXT_DOE_SIZE 0x18
#define EXT_SRIOV_SIZE 0x40
#define EXT_DSN_SIZE 0x0c

static void put16(uint8_t *b, unsigned off, uint16_t v)
{
	b[off] = v & 0xff;
	b[off + 1] = v >> 8;
}

static void put32(uint8_t *b, unsigned off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + i] = (v >> (8 * i)) & 0xff;
}

size_t sim_config_size(const struct sim_dev *d)
{
	/* conventional PCI functions have no extended config space */
	return sim_dev_is_pcie(d) ? 4096 : 256;
}

bool sim_config_is_bridge(const struct sim_dev *d)
{
	return d->type == PT_ROOT_PORT || d->type == PT_UPSTREAM ||
	       d->type == PT_DOWNSTREAM || d->type == PT_PCIE_PCI_BRIDGE ||
	       (d->class >> 8) == 0x0604;
}

static bool multifunction(const struct sim_dev *d)
{
	struct sim_dev **sib = d->parent ? d->parent->children : d->hb->devs;
	size_t n = d->parent ? d->parent->nr_children : d->hb->nr_devs;

	if (d->physfn)
		return false;
	for (size_t i = 0; i < n; i++)
		if (sib[i] != d && sib[i]->bus == d->bus &&
		    sib[i]->slot == d->slot && !sib[i]->physfn)
			return true;
	return false;
}

static void header(const struct sim_dev *d, uint8_t *b)
{
	bool vf = d->physfn != NULL;

	/* a VF's Vendor/Device ID registers read all-ones (SR-IOV spec) */
	put16(b, 0x00, vf ? 0xffff : d->vendor);
	put16(b, 0x02, vf ? 0xffff : d->device);
	put16(b, 0x04, d->driver || sim_config_is_bridge(d) ? 0x0006 : 0x0000);
	put16(b, 0x06, sim_dev_is_pcie(d) ? 0x0010 : 0x0000);
	b[0x08] = d->revision;
	b[0x09] = d->class & 0xff;
	b[0x0a] = (d->class >> 8) & 0xff;
	b[0x0b] = (d->class >> 16) & 0xff;
	b[0x0e] = (sim_config_is_bridge(d) ? 1 : 0) | (multifunction(d) ? 0x80 : 0);
	if (sim_config_is_bridge(d)) {
		b[0x18] = d->bus;
		b[0x19] = d->secondary;
		b[0x1a] = d->subordinate;
		/* no I/O window: base above limit, as firmware leaves it */
		b[0x1c] = 0xf0;
		b[0x1d] = 0x00;
		/* memory window: bits 31:20 of base/limit in bits 15:4 */
		if (d->mem.present) {
			put16(b, 0x20, (d->mem.base >> 16) & 0xfff0);
			put16(b, 0x22, (d->mem.limit >> 16) & 0xfff0);
		} else {
			put16(b, 0x20, 0xfff0);
			put16(b, 0x22, 0x0000);
		}
		if (d->pref.present) {
			put16(b, 0x24, ((d->pref.base >> 16) & 0xfff0) | 1);
			put16(b, 0x26, ((d->pref.limit >> 16) & 0xfff0) | 1);
			put32(b, 0x28, d->pref.base >> 32);
			put32(b, 0x2c, d->pref.limit >> 32);
		} else {
			put16(b, 0x24, 0xfff1);
			put16(b, 0x26, 0x0001);
		}
	} else {
		for (int i = 0; i < 6; i++) {
			const struct sim_bar *bar = &d->bars[i];
			uint32_t lo;

			if (!bar->present)
				continue;
			lo = (uint32_t)bar->base | (bar->is64 ? 0x4 : 0) |
			     (bar->prefetch ? 0x8 : 0);
			put32(b, 0x10 + 4 * i, lo);
			if (bar->is64 && i < 5)
				put32(b, 0x14 + 4 * i, bar->base >> 32);
		}
		put16(b, 0x2c, d->subvendor);
		put16(b, 0x2e, d->subdevice);
	}
	if (sim_dev_is_pcie(d))
		b[0x34] = CAP_PCIE_OFF;
}

static void pcie_cap(const struct sim_dev *d, uint8_t *b)
{
	unsigned o = CAP_PCIE_OFF;
	uint16_t flags = 0x2 | (d->type & 0xf) << 4;
	uint32_t devcap = 0x2;	/* Max_Payload_Size 512 */
	bool has_link = d->type != PT_RCIEP && d->type != PT_RCEC;

	if (d->type == PT_ROOT_PORT || d->type == PT_DOWNSTREAM)
		flags |= 0x100;	/* slot implemented */
	if (d->flr)
		devcap |= 1u << 28;
	if (d->tee)
		devcap |= 1u << 30;	/* PCI_EXP_DEVCAP_TEE */
	b[o] = 0x10;
	b[o + 1] = 0;
	put16(b, o + 0x02, flags);
	put32(b, o + 0x04, devcap);
	put16(b, o + 0x08, 0x2810);
	if (has_link) {
		put32(b, o + 0x0c, (uint32_t)d->link_port << 24 |
				   (uint32_t)(d->link_width & 0x3f) << 4 |
				   (d->link_speed & 0xf));
		put16(b, o + 0x12, (d->link_width & 0x3f) << 4 |
				   (d->link_speed & 0xf));
	}
}

static unsigned ide_cap_size(const struct sim_dev_ide *ide)
{
	unsigned sz = 0x0c + 8 * ide->nr_link;

	for (unsigned i = 0; i < ide->nr_sel; i++)
		sz += 20 + 12 * ide->sel[i].nr_assoc;
	return sz;
}

static void ext_header(uint8_t *b, unsigned off, unsigned id, unsigned ver,
		       unsigned next)
{
	put32(b, off, id | ver << 16 | next << 20);
}

/*
 * "ext_caps": capabilities a PCIe function carries besides those modelled,
 * in a typical order and at their spec sizes; registers read as zero.
 */
static const struct { uint16_t id; uint16_t size; } ext_fillers[] = {
	{ 0x0001, 0x48 },	/* Advanced Error Reporting */
	{ 0x000d, 0x08 },	/* Access Control Services */
	{ 0x000e, 0x08 },	/* Alternative Routing-ID */
	{ 0x0018, 0x08 },	/* Latency Tolerance Reporting */
	{ 0x001e, 0x10 },	/* L1 PM Substates */
	{ 0x0019, 0x10 },	/* Secondary PCI Express */
	{ 0x0025, 0x0c },	/* Data Link Feature */
	{ 0x0026, 0x20 },	/* Physical Layer 16.0 GT/s */
	{ 0x001f, 0x0c },	/* Precision Time Measurement */
	{ 0x000b, 0x14 },	/* Vendor-Specific */
};

static unsigned ext_filler_size(unsigned i)
{
	return ext_fillers[i % (sizeof(ext_fillers) / sizeof(ext_fillers[0]))].size;
}

static void ide_cap(const struct sim_dev *d, uint8_t *b, unsigned o)
{
	const struct sim_dev_ide *ide = &d->ide;
	unsigned p = o + 0x0c;

	put32(b, o + 0x04, ide->cap);
	put32(b, o + 0x08, ide->ctl);
	for (unsigned i = 0; i < ide->nr_link; i++, p += 8) {
		put32(b, p, ide->link_ctl[i]);
		put32(b, p + 4, ide->link_sts[i]);
	}
	/* spec layout: each block sized by its own association count */
	for (unsigned i = 0; i < ide->nr_sel; i++) {
		const struct sim_sel_block *s = &ide->sel[i];

		put32(b, p + 0x00, s->nr_assoc & 0xf);
		put32(b, p + 0x04, s->ctl);
		put32(b, p + 0x08, s->sts);
		put32(b, p + 0x0c, s->rid1);
		put32(b, p + 0x10, s->rid2);
		for (unsigned a = 0; a < s->nr_assoc; a++) {
			put32(b, p + 0x14 + 12 * a, s->assoc[a][0]);
			put32(b, p + 0x18 + 12 * a, s->assoc[a][1]);
			put32(b, p + 0x1c + 12 * a, s->assoc[a][2]);
		}
		p += 20 + 12 * s->nr_assoc;
	}
}

/* Offsets of the extended capabilities, 0 = absent; also used by the loader to check fit. */
static unsigned ext_layout(const struct sim_dev *d, unsigned *doe,
			   unsigned *sriov, unsigned *ide)
{
	unsigned off = 0x100;

	*doe = *sriov = *ide = 0;
	for (unsigned i = 0; i < d->ext_caps; i++)
		off += ext_filler_size(i);
	if (d->nr_mbs) {
		*doe = off;
		off += EXT_DOE_SIZE * d->nr_mbs;	/* one capability per mailbox */
	}
	if (d->nr_vfs_total) {
		*sriov = off;
		off += EXT_SRIOV_SIZE;
	}
	if (d->ide.present) {
		*ide = off;
		off += ide_cap_size(&d->ide);
	}
	/* the Device Serial Number last, so the others keep the offsets they always had */
	if (d->dsn)
		off += EXT_DSN_SIZE;
	return off;
}

/* The DSN capability's offset (after every other one), 0 without a DSN. */
static unsigned dsn_offset(const struct sim_dev *d)
{
	unsigned a, b, c, end = ext_layout(d, &a, &b, &c);

	return d->dsn ? end - EXT_DSN_SIZE : 0;
}

/* MSI-X (PCI Local Bus 3.0 6.8.2, pci_regs.h PCI_MSIX_*): Message Control, Table and PBA Offset/BIR. */
static void msix_cap(const struct sim_dev *d, uint8_t *b)
{
	const struct sim_msix *x = &d->msix;

	b[CAP_PCIE_OFF + 1] = CAP_MSIX_OFF;
	b[CAP_MSIX_OFF] = 0x11;
	b[CAP_MSIX_OFF + 1] = 0;
	put16(b, CAP_MSIX_OFF + 2, (uint16_t)(x->vectors - 1));
	put32(b, CAP_MSIX_OFF + 4, x->table_offset | x->table_bar);
	put32(b, CAP_MSIX_OFF + 8, x->pba_offset | x->pba_bar);
}

void sim_config_build(const struct sim_dev *d, uint8_t *b)
{
	unsigned doe, sriov, ide, dsn = dsn_offset(d);

	memset(b, 0, sim_config_size(d));
	header(d, b);
	if (!sim_dev_is_pcie(d))
		return;
	pcie_cap(d, b);
	if (d->msix.present)
		msix_cap(d, b);
	ext_layout(d, &doe, &sriov, &ide);
	for (unsigned i = 0, off = 0x100; i < d->ext_caps; i++) {
		unsigned next = off + ext_filler_size(i);

		/* the last one leads to the first modelled capability, if any */
		if (i + 1 == d->ext_caps)
			next = doe ? doe : sriov ? sriov : ide ? ide : dsn;
		ext_header(b, off, ext_fillers[i % (sizeof(ext_fillers) / sizeof(ext_fillers[0]))].id,
			   1, next);
		off += ext_filler_size(i);
	}
	for (size_t i = 0; doe && i < d->nr_mbs; i++) {
		unsigned off = doe + EXT_DOE_SIZE * (unsigned)i;

		ext_header(b, off, 0x2e, 1, i + 1 < d->nr_mbs ? off + EXT_DOE_SIZE :
			   sriov ? sriov : ide ? ide : dsn);
	}
	if (sriov) {
		ext_header(b, sriov, 0x10, 1, ide ? ide : dsn);
		put32(b, sriov + 0x04, 0x2);	/* ARI capable hierarchy preserved */
		put16(b, sriov + 0x08, d->nr_vfs ? 0x9 : 0);	/* VF enable + MSE */
		put16(b, sriov + 0x0c, d->nr_vfs_total);	/* InitialVFs */
		put16(b, sriov + 0x0e, d->nr_vfs_total);	/* TotalVFs */
		put16(b, sriov + 0x10, d->nr_vfs);		/* NumVFs */
		put16(b, sriov + 0x14, d->vf_offset);
		put16(b, sriov + 0x16, d->vf_stride);
		put16(b, sriov + 0x1a, d->vf_device);
		put32(b, sriov + 0x1c, 0x553);
		put32(b, sriov + 0x20, 0x1);
	}
	if (ide) {
		ext_header(b, ide, 0x30, 1, dsn);
		ide_cap(d, b, ide);
	}
	/* PCIe r6.0 7.9.3: capability 0x0003, the serial's low dword then its high one */
	if (dsn) {
		ext_header(b, dsn, 0x03, 1, 0);
		put32(b, dsn + 4, (uint32_t)d->dsn);
		put32(b, dsn + 8, (uint32_t)(d->dsn >> 32));
	}
}

/* Bytes the extended capabilities need; the loader refuses what does not fit. */
unsigned sim_config_ext_end(const struct sim_dev *d)
{
	unsigned a, b, c;

	return ext_layout(d, &a, &b, &c);
}
