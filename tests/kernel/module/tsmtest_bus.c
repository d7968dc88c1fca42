// SPDX-License-Identifier: GPL-2.0
/*
 * tsmtest_bus: emulated PCIe host bridges for tsmctl's kernel tests.
 *
 * Each host bridge sits in a domain of its own above the ACPI range, on the
 * faux device "tsmtest_bus". It holds @root_ports root ports (00:0N.0), each
 * with one endpoint of @functions functions below it (bus N+1). Every
 * function is a 4 KiB config space with a mask of the bits software may
 * change; a few registers are computed when read (DOE status and read
 * mailbox, IDE status). Function 0 of each endpoint is what a TSM connects:
 * DEVCAP.TEE, a DOE mailbox answering discovery (and SPDM GET_VERSION over
 * CMA), and an IDE capability whose Selective blocks store what the kernel
 * writes and read it back unchanged. Root ports carry IDE too (Link and
 * Selective blocks), and report SECURE once enabled, as real ports do.
 *
 * Each kernel interface used is named with its 7.x source file.
 */
#include <linux/bitfield.h>
#include <linux/device/faux.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-doe.h>
#include <linux/slab.h>

#include "tsmtest.h"

#define TT_MAX_HB 4
#define TT_MAX_RP 4
#define TT_BAR0_SIZE SZ_2M		/* every function: 64-bit prefetchable */
#define TT_BAR2_SIZE SZ_16K		/* function 0: 32-bit memory */
#define TT_PREF_PER_RP SZ_16M		/* 8 functions' BAR0 */
#define TT_MEM_PER_RP SZ_1M		/* a bridge window's granularity */

/* Config space layout of the emulated functions (offsets we chose). */
#define TT_EXP 0x40			/* PCI Express capability */
#define TT_DOE 0x100			/* DOE extended capability (function 0) */
#define TT_IDE_EP 0x180			/* IDE extended capability of function 0 */
#define TT_IDE_RP 0x100			/* IDE extended capability of a root port */
#define TT_RP_LINK_TCS 2		/* Link IDE blocks of a root port */
#define TT_RP_ASSOC 2			/* address associations per root port block */
#define TT_EP_ASSOC 1			/* address associations per endpoint block */

static int host_bridges = 2;
module_param(host_bridges, int, 0444);
MODULE_PARM_DESC(host_bridges, "emulated host bridges (1-4)");
static int root_ports = 2;
module_param(root_ports, int, 0444);
MODULE_PARM_DESC(root_ports, "root ports per host bridge, one endpoint below each (1-4)");
static int functions = 2;
module_param(functions, int, 0444);
MODULE_PARM_DESC(functions, "functions per endpoint (1-8); function 0 is the DSM");
static int sel_streams = 2;
module_param(sel_streams, int, 0444);
MODULE_PARM_DESC(sel_streams, "Selective IDE register blocks per port (1-8)");
static char refuse[32];
module_param_string(refuse, refuse, sizeof(refuse), 0444);
MODULE_PARM_DESC(refuse, "BDF of a function 0 whose DOE mailbox offers no CMA/SPDM");
static char insecure[32];
module_param_string(insecure, insecure, sizeof(insecure), 0644);
MODULE_PARM_DESC(insecure, "BDF of a function whose enabled IDE streams read INSECURE");

struct tt_doe {
	u32 req[16], rsp[16];
	int nreq, nrsp, rd;
	bool error;
};

struct tt_fn {
	u8 cfg[PCI_CFG_SPACE_EXP_SIZE];
	u8 wmask[PCI_CFG_SPACE_EXP_SIZE];	/* bits software may change */
	u16 ide;				/* IDE capability offset, 0 without */
	u8 nr_link, nr_sel, nr_assoc;
	bool doe, cma;
	struct tt_doe mb;
};

struct tt_hb {
	struct pci_sysdata sd;			/* x86's bus->sysdata (asm/pci.h) */
	struct pci_host_bridge *bridge;
	struct resource busr, mem, pref;
	struct tt_fn *rp[TT_MAX_RP];
	struct tt_fn *ep[TT_MAX_RP][8];
	int idx;
};

static struct faux_device *tt_faux;
static struct tt_hb *tt_hbs[TT_MAX_HB];

static void put32(struct tt_fn *f, int pos, u32 val, u32 wmask)
{
	for (int i = 0; i < 4; i++) {
		f->cfg[pos + i] = val >> (8 * i);
		f->wmask[pos + i] = wmask >> (8 * i);
	}
}

static u32 get32(const struct tt_fn *f, int pos)
{
	return f->cfg[pos] | f->cfg[pos + 1] << 8 | f->cfg[pos + 2] << 16 |
	       (u32)f->cfg[pos + 3] << 24;
}

/* The header both kinds share, and the PCI Express capability (pci_regs.h). */
static void init_common(struct tt_fn *f, u16 device, u32 class_rev, u8 type, u16 exp_type)
{
	put32(f, PCI_VENDOR_ID, 0x1234 | (u32)device << 16, 0);
	put32(f, PCI_COMMAND, PCI_STATUS_CAP_LIST << 16, 0x0547);
	put32(f, PCI_CLASS_REVISION, class_rev, 0);
	put32(f, PCI_CACHE_LINE_SIZE, (u32)type << 16, 0xff);
	put32(f, PCI_CAPABILITY_LIST, TT_EXP, 0);
	put32(f, PCI_INTERRUPT_LINE, 0, 0xff);
	put32(f, TT_EXP, PCI_CAP_ID_EXP | (2 | exp_type << 4) << 16, 0);
	put32(f, TT_EXP + PCI_EXP_DEVCTL, 0, 0xffff);
	put32(f, TT_EXP + PCI_EXP_LNKCAP, PCI_EXP_LNKCAP_SLS_2_5GB | 1 << 4, 0);
	put32(f, TT_EXP + PCI_EXP_LNKCTL,
	      (PCI_EXP_LNKSTA_CLS_2_5GB | PCI_EXP_LNKSTA_NLW_X1) << 16, 0xffff);
	put32(f, TT_EXP + PCI_EXP_DEVCTL2, 0, 0xffff);
	put32(f, TT_EXP + PCI_EXP_LNKCTL2, 0, 0xffff);
}

/*
 * The IDE extended capability (PCIe r7.0 §7.9.26, pci_regs.h PCI_IDE_*):
 * capability and control, @nr_link Link blocks, then @nr_sel Selective
 * blocks of @nr_assoc address associations each. Control, RID and
 * address registers are stored as written; status is computed (tt_status()).
 */
static void init_ide(struct tt_fn *f, u16 pos, u8 nr_link, u8 nr_sel, u8 nr_assoc, u32 caps)
{
	u32 cap = PCI_IDE_CAP_SELECTIVE | PCI_IDE_CAP_IDE_KM | caps |
		  FIELD_PREP(PCI_IDE_CAP_SEL_NUM, nr_sel - 1);
	int off = pos + PCI_IDE_LINK_STREAM_0;

	if (nr_link)
		cap |= PCI_IDE_CAP_LINK | FIELD_PREP(PCI_IDE_CAP_LINK_TC_NUM, nr_link - 1);
	f->ide = pos;
	f->nr_link = nr_link;
	f->nr_sel = nr_sel;
	f->nr_assoc = nr_assoc;
	put32(f, pos, PCI_EXT_CAP_ID_IDE | 1 << 16 | (get32(f, pos) & 0xfff00000), 0);
	put32(f, pos + PCI_IDE_CAP, cap, 0);
	put32(f, pos + PCI_IDE_CTL, 0, ~0u);
	for (int i = 0; i < nr_link; i++, off += PCI_IDE_LINK_BLOCK_SIZE)
		put32(f, off + PCI_IDE_LINK_CTL_0, 0, ~0u);
	for (int i = 0; i < nr_sel; i++, off += PCI_IDE_SEL_BLOCK_SIZE(nr_assoc)) {
		put32(f, off + PCI_IDE_SEL_CAP, FIELD_PREP(PCI_IDE_SEL_CAP_ASSOC_NUM, nr_assoc), 0);
		put32(f, off + PCI_IDE_SEL_CTL, 0, ~0u);
		put32(f, off + PCI_IDE_SEL_RID_1, 0, ~0u);
		put32(f, off + PCI_IDE_SEL_RID_2, 0, ~0u);
		for (int a = 0; a < nr_assoc; a++) {
			put32(f, off + PCI_IDE_SEL_ADDR_1(a), 0, ~0u);
			put32(f, off + PCI_IDE_SEL_ADDR_2(a), 0, ~0u);
			put32(f, off + PCI_IDE_SEL_ADDR_3(a), 0, ~0u);
		}
	}
}

static struct tt_fn *new_root_port(int rp)
{
	struct tt_fn *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	init_common(f, 0x5450, PCI_CLASS_BRIDGE_PCI_NORMAL << 8, PCI_HEADER_TYPE_BRIDGE,
		    PCI_EXP_TYPE_ROOT_PORT);
	/* bus numbers: primary 0, secondary and subordinate rp + 1 (pci_scan_bridge()) */
	put32(f, PCI_PRIMARY_BUS, (rp + 1) << 8 | (rp + 1) << 16, 0x00ffffff);
	/* windows closed until the kernel assigns them; no I/O window (wmask 0) */
	put32(f, PCI_MEMORY_BASE, 0x0000fff0, 0xfff0fff0);
	put32(f, PCI_PREF_MEMORY_BASE, 0x0001fff1, 0xfff0fff0);
	put32(f, PCI_PREF_BASE_UPPER32, 0, ~0u);
	put32(f, PCI_PREF_LIMIT_UPPER32, 0, ~0u);
	put32(f, PCI_INTERRUPT_LINE, 0, 0xffff00ff);	/* bridge control */
	put32(f, TT_EXP + PCI_EXP_RTCTL, 0, 0xffff);
	/* configuration requests over IDE, not TEE-limited (pci_ide_init(): ide_cfg, ide_tee_limit) */
	init_ide(f, TT_IDE_RP, TT_RP_LINK_TCS, sel_streams, TT_RP_ASSOC, PCI_IDE_CAP_SEL_CFG);
	return f;
}

/* Is the "refuse" parameter this function 0 (lib/string_helpers.c sysfs_streq())? */
static bool refused(int domain, int bus)
{
	char name[32];

	snprintf(name, sizeof(name), "%04x:%02x:00.0", domain, bus);
	return sysfs_streq(refuse, name);
}

static struct tt_fn *new_endpoint(int domain, int bus, int fn)
{
	struct tt_fn *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	init_common(f, 0x5445, PCI_CLASS_ACCELERATOR_PROCESSING << 16,
		    functions > 1 ? PCI_HEADER_TYPE_MFD : PCI_HEADER_TYPE_NORMAL,
		    PCI_EXP_TYPE_ENDPOINT);
	put32(f, TT_EXP + PCI_EXP_DEVCAP, PCI_EXP_DEVCAP_FLR | PCI_EXP_DEVCAP_TEE, 0);
	put32(f, PCI_BASE_ADDRESS_0, PCI_BASE_ADDRESS_MEM_TYPE_64 | PCI_BASE_ADDRESS_MEM_PREFETCH,
	      ~(TT_BAR0_SIZE - 1));
	put32(f, PCI_BASE_ADDRESS_1, 0, ~0u);
	if (fn)
		return f;
	put32(f, PCI_BASE_ADDRESS_2, 0, ~(TT_BAR2_SIZE - 1));
	/* DOE (PCIe r7.0 §7.9.24): version 2, next is IDE; no interrupt, so the kernel polls */
	put32(f, TT_DOE, PCI_EXT_CAP_ID_DOE | 2 << 16 | TT_IDE_EP << 20, 0);
	f->doe = true;
	f->cma = !refused(domain, bus);
	/* TEE-limited streams, no configuration requests (pci_ide_init()) */
	init_ide(f, TT_IDE_EP, 0, sel_streams, TT_EP_ASSOC, PCI_IDE_CAP_TEE_LIMITED);
	return f;
}

/*
 * Which emulated function answers (@bus, @devfn) of @h, or NULL: the root
 * bus holds the root ports (include/linux/pci.h pci_is_root_bus()), each
 * port's secondary bus its endpoint.
 */
static struct tt_fn *tt_lookup(struct tt_hb *h, struct pci_bus *bus, unsigned int devfn)
{
	if (pci_is_root_bus(bus))
		return PCI_FUNC(devfn) == 0 && PCI_SLOT(devfn) < root_ports ?
		       h->rp[PCI_SLOT(devfn)] : NULL;
	for (int rp = 0; rp < root_ports; rp++)
		if (h->rp[rp]->cfg[PCI_SECONDARY_BUS] == bus->number)
			return PCI_SLOT(devfn) == 0 && PCI_FUNC(devfn) < functions ?
			       h->ep[rp][PCI_FUNC(devfn)] : NULL;
	return NULL;
}

static struct tt_hb *to_tt_hb(struct pci_bus *bus)
{
	return container_of((struct pci_sysdata *)bus->sysdata, struct tt_hb, sd);
}

/* Does the "insecure" fault name this function (arch/x86/include/asm/pci.h pci_domain_nr())? */
static bool is_insecure(struct pci_bus *bus, unsigned int devfn)
{
	char name[32];

	snprintf(name, sizeof(name), "%04x:%02x:%02x.%d", pci_domain_nr(bus), bus->number,
		 PCI_SLOT(devfn), PCI_FUNC(devfn));
	return sysfs_streq(insecure, name);
}

/*
 * The status register an IDE block's control implies: SECURE once enabled
 * (unless the "insecure" fault names the function), else INSECURE. @pos is
 * a dword; false when it is no status register.
 */
static bool tt_status(struct tt_fn *f, int pos, bool bad, u32 *val)
{
	int off, ctl;

	if (!f->ide || pos < f->ide)
		return false;
	off = pos - f->ide - PCI_IDE_LINK_STREAM_0;
	if (off >= 0 && off < f->nr_link * PCI_IDE_LINK_BLOCK_SIZE) {
		if (off % PCI_IDE_LINK_BLOCK_SIZE != PCI_IDE_LINK_STS_0)
			return false;
		ctl = pos - PCI_IDE_LINK_STS_0 + PCI_IDE_LINK_CTL_0;
	} else {
		off -= f->nr_link * PCI_IDE_LINK_BLOCK_SIZE;
		if (off < 0 || off >= f->nr_sel * PCI_IDE_SEL_BLOCK_SIZE(f->nr_assoc) ||
		    off % PCI_IDE_SEL_BLOCK_SIZE(f->nr_assoc) != PCI_IDE_SEL_STS)
			return false;
		ctl = pos - PCI_IDE_SEL_STS + PCI_IDE_SEL_CTL;
	}
	*val = (get32(f, ctl) & PCI_IDE_SEL_CTL_EN) && !bad ?
	       PCI_IDE_SEL_STS_STATE_SECURE : PCI_IDE_SEL_STS_STATE_INSECURE;
	return true;
}

/* The dword at @pos as software reads it. */
static u32 tt_read32(struct tt_fn *f, int pos, bool bad)
{
	struct tt_doe *mb = &f->mb;
	u32 val;

	if (f->doe && pos == TT_DOE + PCI_DOE_STATUS)
		return (mb->error ? PCI_DOE_STATUS_ERROR : 0) |
		       (mb->rd < mb->nrsp ? PCI_DOE_STATUS_DATA_OBJECT_READY : 0);
	if (f->doe && pos == TT_DOE + PCI_DOE_READ)
		return mb->rd < mb->nrsp ? mb->rsp[mb->rd] : 0;
	if (tt_status(f, pos, bad, &val))
		return val;
	return get32(f, pos);
}

/*
 * A DOE request complete (GO): discovery (PCIe r7.0 §6.30.1.1) lists
 * discovery, CMA/SPDM and secure CMA/SPDM, or discovery alone on a
 * refusing device; a CMA request holding SPDM GET_VERSION (DSP0274, code
 * 0x84) is answered with VERSION 1.2. Anything else sets the error bit, as
 * drivers/pci/doe.c expects of a device that does not know a request.
 */
static void tt_doe_go(struct tt_fn *f)
{
	static const u8 features[] = { PCI_DOE_FEATURE_DISCOVERY, PCI_DOE_FEATURE_CMA,
				       PCI_DOE_FEATURE_SSESSION };
	struct tt_doe *mb = &f->mb;
	u32 hdr = mb->req[0];
	u16 vid = FIELD_GET(PCI_DOE_DATA_OBJECT_HEADER_1_VID, hdr);
	u8 type = FIELD_GET(PCI_DOE_DATA_OBJECT_HEADER_1_TYPE, hdr);
	int nr = f->cma ? ARRAY_SIZE(features) : 1;

	mb->rd = 0;
	mb->nrsp = 0;
	if (vid == PCI_VENDOR_ID_PCI_SIG && type == PCI_DOE_FEATURE_DISCOVERY && mb->nreq == 3) {
		u8 idx = FIELD_GET(PCI_DOE_DATA_OBJECT_DISC_REQ_3_INDEX, mb->req[2]);

		if (idx < nr) {
			mb->rsp[2] = FIELD_PREP(PCI_DOE_DATA_OBJECT_DISC_RSP_3_VID, PCI_VENDOR_ID_PCI_SIG) |
				     FIELD_PREP(PCI_DOE_DATA_OBJECT_DISC_RSP_3_TYPE, features[idx]) |
				     FIELD_PREP(PCI_DOE_DATA_OBJECT_DISC_RSP_3_NEXT_INDEX,
						idx + 1 < nr ? idx + 1 : 0);
			mb->nrsp = 3;
		}
	} else if (f->cma && vid == PCI_VENDOR_ID_PCI_SIG && type == PCI_DOE_FEATURE_CMA &&
		   mb->nreq >= 3 && (mb->req[2] & 0xff00) == 0x8400) {
		/* SPDMVersion 1.0, VERSION, one entry: 1.2 */
		mb->rsp[2] = 0x00000410;
		mb->rsp[3] = 0x12000100;
		mb->nrsp = 4;
	}
	if (!mb->nrsp) {
		mb->error = true;
		return;
	}
	mb->rsp[0] = hdr;
	mb->rsp[1] = FIELD_PREP(PCI_DOE_DATA_OBJECT_HEADER_2_LENGTH, mb->nrsp);
	mb->nreq = 0;
}

/* Writes to the DOE registers; true when @pos is one. */
static bool tt_doe_write(struct tt_fn *f, int pos, u32 val)
{
	struct tt_doe *mb = &f->mb;

	if (!f->doe || pos < TT_DOE + PCI_DOE_CTRL || pos > TT_DOE + PCI_DOE_READ)
		return false;
	if (pos == TT_DOE + PCI_DOE_CTRL && (val & PCI_DOE_CTRL_ABORT))
		*mb = (struct tt_doe){};
	else if (pos == TT_DOE + PCI_DOE_CTRL && (val & PCI_DOE_CTRL_GO))
		tt_doe_go(f);
	else if (pos == TT_DOE + PCI_DOE_WRITE && mb->nreq < ARRAY_SIZE(mb->req))
		mb->req[mb->nreq++] = val;
	else if (pos == TT_DOE + PCI_DOE_READ && mb->rd < mb->nrsp)
		mb->rd++;	/* a write to Read Data Mailbox takes the next dword */
	return true;
}

/* struct pci_ops .read (include/linux/pci.h), called under pci_lock (drivers/pci/access.c). */
static int tt_config_read(struct pci_bus *bus, unsigned int devfn, int where, int size, u32 *val)
{
	struct tt_fn *f = tt_lookup(to_tt_hb(bus), bus, devfn);
	u32 dw;

	if (!f || where < 0 || where + size > PCI_CFG_SPACE_EXP_SIZE) {
		PCI_SET_ERROR_RESPONSE(val);
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	dw = tt_read32(f, where & ~3, is_insecure(bus, devfn));
	dw >>= 8 * (where & 3);
	*val = size == 4 ? dw : dw & ((1u << (8 * size)) - 1);
	return PCIBIOS_SUCCESSFUL;
}

/* struct pci_ops .write: the writable bits change, the rest stays (and a DOE register acts). */
static int tt_config_write(struct pci_bus *bus, unsigned int devfn, int where, int size, u32 val)
{
	struct tt_fn *f = tt_lookup(to_tt_hb(bus), bus, devfn);

	if (!f || where < 0 || where + size > PCI_CFG_SPACE_EXP_SIZE)
		return PCIBIOS_DEVICE_NOT_FOUND;
	if (size == 4 && tt_doe_write(f, where, val))
		return PCIBIOS_SUCCESSFUL;
	for (int i = 0; i < size; i++) {
		u8 m = f->wmask[where + i];

		f->cfg[where + i] = (f->cfg[where + i] & ~m) | ((val >> (8 * i)) & m);
	}
	return PCIBIOS_SUCCESSFUL;
}

static struct pci_ops tt_pci_ops = {
	.read = tt_config_read,
	.write = tt_config_write,
};

/* The emulated functions and the windows (kernel/resource.c release_resource()) */
static void tt_free_hb(struct tt_hb *h)
{
	for (int rp = 0; rp < TT_MAX_RP; rp++) {
		kfree(h->rp[rp]);
		for (int fn = 0; fn < 8; fn++)
			kfree(h->ep[rp][fn]);
	}
	if (h->mem.parent)
		release_resource(&h->mem);
	if (h->pref.parent)
		release_resource(&h->pref);
}

/*
 * devm action: the root bus goes, under the rescan lock (drivers/pci/probe.c
 * pci_lock_rescan_remove(); drivers/pci/remove.c pci_stop_root_bus(),
 * drivers/pci/remove.c pci_remove_root_bus()).
 */
static void tt_remove_hb(void *data)
{
	struct tt_hb *h = data;

	tt_hbs[h->idx] = NULL;
	if (h->bridge && h->bridge->bus) {
		pci_lock_rescan_remove();
		pci_stop_root_bus(h->bridge->bus);
		pci_remove_root_bus(h->bridge->bus);
		pci_unlock_rescan_remove();
	}
	tt_free_hb(h);
}

/* Address space for a host bridge window (kernel/resource.c allocate_resource()). */
static int tt_window(struct resource *r, const char *name, unsigned long flags,
		     resource_size_t size, resource_size_t min, resource_size_t max)
{
	r->name = name;
	r->flags = flags;
	return allocate_resource(&iomem_resource, r, size, min, max, size, NULL, NULL);
}

static int tt_add_hb(struct device *dev, int idx)
{
	struct pci_host_bridge *bridge;
	struct tt_hb *h;
	int rc;

	/* drivers/pci/probe.c devm_pci_alloc_host_bridge(): freed with the faux device */
	bridge = devm_pci_alloc_host_bridge(dev, sizeof(*h));
	if (!bridge)
		return -ENOMEM;
	h = pci_host_bridge_priv(bridge);	/* include/linux/pci.h pci_host_bridge_priv() */
	h->bridge = bridge;
	h->idx = idx;
	/* drivers/pci/pci.c pci_bus_find_emul_domain_nr(): above the ACPI segments, as VMD does */
	bridge->domain_nr = pci_bus_find_emul_domain_nr(0, 0x10000, INT_MAX);
	if (bridge->domain_nr < 0)
		return bridge->domain_nr;
	h->sd.domain = bridge->domain_nr;	/* x86 pci_domain_nr() reads sysdata */
	h->sd.node = NUMA_NO_NODE;
	for (int rp = 0; rp < root_ports; rp++) {
		h->rp[rp] = new_root_port(rp);
		for (int fn = 0; fn < functions; fn++)
			h->ep[rp][fn] = new_endpoint(h->sd.domain, rp + 1, fn);
	}
	/* drivers/base/devres.c __devm_add_action(): runs before the bridge is freed */
	rc = devm_add_action(dev, tt_remove_hb, h);
	if (rc) {
		tt_free_hb(h);
		return rc;
	}
	for (int rp = 0; rp < root_ports; rp++)
		for (int fn = 0; fn < functions; fn++)
			if (!h->rp[rp] || !h->ep[rp][fn])
				return -ENOMEM;
	rc = tt_window(&h->mem, "tsmtest MMIO", IORESOURCE_MEM, TT_MEM_PER_RP * root_ports,
		       0, SZ_4G - 1);
	if (!rc)
		rc = tt_window(&h->pref, "tsmtest prefetchable",
			       IORESOURCE_MEM | IORESOURCE_MEM_64 | IORESOURCE_PREFETCH,
			       TT_PREF_PER_RP * root_ports, SZ_4G, U64_MAX);
	if (rc)
		return rc;
	h->busr = (struct resource){ .name = "tsmtest buses", .start = 0, .end = root_ports,
				     .flags = IORESOURCE_BUS | IORESOURCE_PCI_FIXED };
	/* drivers/pci/bus.c pci_add_resource(): the windows the root bus decodes */
	pci_add_resource(&bridge->windows, &h->busr);
	pci_add_resource(&bridge->windows, &h->mem);
	pci_add_resource(&bridge->windows, &h->pref);
	bridge->dev.parent = dev;
	bridge->sysdata = &h->sd;
	bridge->ops = &tt_pci_ops;
	/* no port services: nothing here raises interrupts (drivers/pci/pcie/portdrv.c) */
	bridge->native_aer = bridge->native_pme = bridge->native_pcie_hotplug = 0;
	bridge->native_dpc = bridge->native_ltr = 0;
	/*
	 * drivers/pci/probe.c pci_scan_root_bus_bridge(), then
	 * drivers/pci/setup-bus.c pci_assign_unassigned_bus_resources() (BARs
	 * and bridge windows) and drivers/pci/bus.c pci_bus_add_devices()
	 */
	pci_lock_rescan_remove();
	rc = pci_scan_root_bus_bridge(bridge);
	if (!rc) {
		pci_assign_unassigned_bus_resources(bridge->bus);
		pci_bus_add_devices(bridge->bus);
	}
	pci_unlock_rescan_remove();
	if (rc)
		return rc;
	tt_hbs[idx] = h;
	return 0;
}

/* drivers/pci/host-bridge.c pci_find_host_bridge(): one of ours? */
bool tsmtest_bus_owns(struct pci_dev *pdev)
{
	struct pci_host_bridge *bridge = pci_find_host_bridge(pdev->bus);

	for (int i = 0; i < TT_MAX_HB; i++)
		if (tt_hbs[i] && tt_hbs[i]->bridge == bridge)
			return true;
	return false;
}
EXPORT_SYMBOL_GPL(tsmtest_bus_owns);

struct pci_host_bridge *tsmtest_bus_bridge(int i)
{
	return i >= 0 && i < TT_MAX_HB && tt_hbs[i] ? tt_hbs[i]->bridge : NULL;
}
EXPORT_SYMBOL_GPL(tsmtest_bus_bridge);

/* faux_device_ops .probe (drivers/base/faux.c): the host bridges, in order. */
static int tt_probe(struct faux_device *fdev)
{
	for (int i = 0; i < host_bridges; i++) {
		int rc = tt_add_hb(&fdev->dev, i);

		if (rc)
			return rc;
	}
	return 0;
}

static const struct faux_device_ops tt_faux_ops = {
	.probe = tt_probe,
};

static int __init tt_init(void)
{
	if (host_bridges < 1 || host_bridges > TT_MAX_HB || root_ports < 1 ||
	    root_ports > TT_MAX_RP || functions < 1 || functions > 8 || sel_streams < 1 ||
	    sel_streams > 8)
		return -EINVAL;
	/* drivers/base/faux.c faux_device_create(): NULL when the probe fails */
	tt_faux = faux_device_create("tsmtest_bus", NULL, &tt_faux_ops);
	return tt_faux ? 0 : -ENODEV;
}
module_init(tt_init);

/* drivers/base/faux.c faux_device_destroy(): the probe's devm actions undo it all */
static void __exit tt_exit(void)
{
	faux_device_destroy(tt_faux);
}
module_exit(tt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tsmctl test rig: emulated PCIe host bridges with IDE and DOE");
