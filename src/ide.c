// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pure decoding of PCI config space bytes: header, PCIe capability, DOE
 * presence and the IDE extended capability (ABI.md §3). No I/O. Every read
 * goes through cfg_read(), which checks it against the bytes we were given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/ide.h"

/* Type 0/1/2 header registers (PCI Local Bus spec) */
#define PCI_VENDOR_ID			0x00
#define PCI_DEVICE_ID			0x02
#define PCI_STATUS			0x06
#define  PCI_STATUS_CAP_LIST		0x0010
#define PCI_CLASS_REVISION		0x08
#define PCI_HEADER_TYPE			0x0e
#define  PCI_HEADER_TYPE_MASK		0x7f
#define  PCI_HEADER_TYPE_MFD		0x80
#define  PCI_HEADER_TYPE_NORMAL		0
#define  PCI_HEADER_TYPE_BRIDGE		1
#define  PCI_HEADER_TYPE_CARDBUS	2
#define PCI_CAPABILITY_LIST		0x34
#define PCI_CB_CAPABILITY_LIST		0x14
#define PCI_VENDOR_ID_NONE		0xffff

/* Standard capability entry and the PCI Express capability */
#define PCI_CAP_LIST_ID			0
#define PCI_CAP_LIST_NEXT		1
#define PCI_CAP_ID_EXP			0x10
#define PCI_CAP_ID_NONE			0xff
#define PCI_EXP_FLAGS			0x02
#define PCI_EXP_DEVCAP			0x04

/* Extended capability header */
#define PCI_EXT_CAP_START		0x100
#define PCI_EXT_CAP_ID(h)		((h) & 0xffffu)
#define PCI_EXT_CAP_NEXT(h)		((h) >> 20)
#define PCI_EXT_CAP_NONE		0xffffffffu

/* IDE extended capability (ABI.md §3) */
#define IDE_CAP_REG			0x04
#define IDE_CTL_REG			0x08
#define IDE_LINK_BLOCK_0		0x0c
#define IDE_LINK_BLOCK_SIZE		8
#define IDE_LINK_CTL			0x00
#define IDE_LINK_STATUS			0x04
#define IDE_SEL_CAP			0x00
#define IDE_SEL_CTL			0x04
#define IDE_SEL_STATUS			0x08
#define IDE_SEL_RID1			0x0c
#define IDE_SEL_RID2			0x10
#define IDE_SEL_ADDR_0			0x14
#define IDE_SEL_HDR_SIZE		20
#define IDE_ADDR_BLOCK_SIZE		12
#define IDE_ADDR_REG1			0x00
#define IDE_ADDR_REG2			0x04
#define IDE_ADDR_REG3			0x08
#define IDE_ADDR_LOW_BITS		20
#define IDE_ADDR_LIMIT_LOW		0xfffffu

#define BIT(n)				(1u << (n))

/* The bytes under decode, at most one 4 KiB config space. */
struct cfg_bytes {
	const uint8_t *buf;
	size_t len;
};

/* Bits hi..lo of v. */
static unsigned int field(uint32_t v, unsigned int hi, unsigned int lo)
{
	return (unsigned int)((v >> lo) & ((2ull << (hi - lo)) - 1));
}

static bool cfg_has(const struct cfg_bytes *c, size_t off, size_t n)
{
	return off <= c->len && n <= c->len - off;
}

/* Little-endian read of n bytes; anything out of range reads as 0. */
static uint32_t cfg_read(const struct cfg_bytes *c, size_t off, size_t n)
{
	uint32_t v = 0;

	if (!cfg_has(c, off, n))
		return 0;
	while (n--)
		v = v << 8 | c->buf[off + n];
	return v;
}

static uint8_t cfg_read8(const struct cfg_bytes *c, size_t off)
{
	return (uint8_t)cfg_read(c, off, 1);
}

static uint16_t cfg_read16(const struct cfg_bytes *c, size_t off)
{
	return (uint16_t)cfg_read(c, off, 2);
}

static uint32_t cfg_read32(const struct cfg_bytes *c, size_t off)
{
	return cfg_read(c, off, 4);
}

const char *pcie_type_name(int type)
{
	switch (type) {
	case PCIE_TYPE_ENDPOINT:	return "endpoint";
	case PCIE_TYPE_LEG_ENDPOINT:	return "legacy_endpoint";
	case PCIE_TYPE_ROOT_PORT:	return "root_port";
	case PCIE_TYPE_UPSTREAM:	return "upstream_port";
	case PCIE_TYPE_DOWNSTREAM:	return "downstream_port";
	case PCIE_TYPE_PCIE_BRIDGE:	return "pcie_pci_bridge";
	case PCIE_TYPE_PCI_BRIDGE:	return "pci_pcie_bridge";
	case PCIE_TYPE_RC_ENDPOINT:	return "rc_endpoint";
	case PCIE_TYPE_RC_EC:		return "rc_event_collector";
	default:			return NULL;
	}
}

const char *ide_state_name(unsigned int state)
{
	/* The kernel defines only these two; every other value is reserved (ABI.md §3). */
	switch (state) {
	case IDE_STATE_INSECURE:	return "insecure";
	case IDE_STATE_SECURE:		return "secure";
	default:			return NULL;
	}
}

const char *ide_algorithm_name(unsigned int alg)
{
	return alg == 0 ? "aes-gcm-256-96b" : NULL;
}

/* Returns false when nothing past the header can be trusted. */
static bool decode_header(const struct cfg_bytes *c, struct pci_cfg *cfg)
{
	uint8_t header_type;

	if (!cfg_has(c, 0, PCI_CFG_HDR_SIZE)) {
		cfg->malformed |= CFG_MAL_SHORT_HEADER;
		return false;
	}
	/*
	 * A function that is gone reads all ones. A VF reads 0xffff as Vendor
	 * and Device ID too (SR-IOV 3.4.1.1), but its class and header are real.
	 */
	if (cfg_read32(c, PCI_VENDOR_ID) == 0xffffffffu &&
	    cfg_read32(c, PCI_CLASS_REVISION) == 0xffffffffu &&
	    cfg_read32(c, PCI_CLASS_REVISION + 4) == 0xffffffffu) {
		cfg->malformed |= CFG_MAL_ALL_ONES;
		return false;
	}
	cfg->header_valid = true;
	cfg->vendor_id = cfg_read16(c, PCI_VENDOR_ID);
	cfg->device_id = cfg_read16(c, PCI_DEVICE_ID);
	cfg->class_code = cfg_read32(c, PCI_CLASS_REVISION) >> 8;
	header_type = cfg_read8(c, PCI_HEADER_TYPE);
	cfg->header_type = header_type & PCI_HEADER_TYPE_MASK;
	cfg->multifunction = header_type & PCI_HEADER_TYPE_MFD;
	return true;
}

/* Where the capability pointer lives for this header layout; 0 if it has none. */
static size_t cap_list_register(uint8_t header_type)
{
	switch (header_type) {
	case PCI_HEADER_TYPE_NORMAL:
	case PCI_HEADER_TYPE_BRIDGE:
		return PCI_CAPABILITY_LIST;
	case PCI_HEADER_TYPE_CARDBUS:
		return PCI_CB_CAPABILITY_LIST;
	default:
		return 0;
	}
}

static void decode_pcie_cap(const struct cfg_bytes *c, size_t pos, struct pci_cfg *cfg)
{
	if (!cfg_has(c, pos + PCI_EXP_FLAGS, 2)) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return;
	}
	cfg->pcie_type = (int)field(cfg_read16(c, pos + PCI_EXP_FLAGS), 7, 4);
	if (!cfg_has(c, pos + PCI_EXP_DEVCAP, 4)) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return;
	}
	cfg->devcap = cfg_read32(c, pos + PCI_EXP_DEVCAP);
	cfg->tee_io = cfg->devcap & PCI_EXP_DEVCAP_TEE;
}

/* Test and set bit n of a visited-offsets bitmap. */
static bool already_visited(uint8_t *seen, size_t n)
{
	bool was = seen[n / 8] & BIT(n % 8);

	seen[n / 8] |= (uint8_t)BIT(n % 8);
	return was;
}

static void walk_std_caps(const struct cfg_bytes *c, struct pci_cfg *cfg)
{
	uint8_t seen[PCI_CFG_SIZE / 4 / 8] = { 0 };
	size_t reg = cap_list_register(cfg->header_type);
	unsigned int pos;

	/* 64 bytes is what a non-root reader gets: header only, nothing wrong. */
	if (c->len <= PCI_CFG_HDR_SIZE || !reg)
		return;
	if (!(cfg_read16(c, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return;
	for (pos = cfg_read8(c, reg); pos; pos = cfg_read8(c, pos + PCI_CAP_LIST_NEXT)) {
		uint8_t id;

		/* Capabilities live after the header; the low two bits are reserved. */
		if (pos < PCI_CFG_HDR_SIZE) {
			cfg->malformed |= CFG_MAL_CAP_POINTER;
			return;
		}
		pos &= ~3u;
		if (!cfg_has(c, pos, 2)) {
			cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
			return;
		}
		if (already_visited(seen, pos / 4)) {
			cfg->malformed |= CFG_MAL_CAP_LOOP;
			return;
		}
		id = cfg_read8(c, pos + PCI_CAP_LIST_ID);
		/* The kernel stops here too: an ID of 0xff is a read of nothing. */
		if (id == PCI_CAP_ID_NONE)
			return;
		if (id == PCI_CAP_ID_EXP && cfg->pcie_type == PCIE_TYPE_NONE)
			decode_pcie_cap(c, pos, cfg);
	}
}

/* A block that does not fit: past 4 KiB the capability lies, else our buffer is short. */
static bool ide_span_fits(const struct cfg_bytes *c, size_t off, size_t n, struct pci_cfg *cfg)
{
	if (cfg_has(c, off, n))
		return true;
	cfg->malformed |= off + n > PCI_CFG_EXP_SIZE ? CFG_MAL_IDE_BLOCKS : CFG_MAL_CAP_TRUNCATED;
	return false;
}

static void decode_stream_regs(uint32_t ctl, uint32_t status, struct ide_stream_regs *regs)
{
	regs->ctl = ctl;
	regs->status = status;
	regs->enabled = ctl & BIT(0);
	regs->pcrc = ctl & BIT(8);
	regs->algorithm = field(ctl, 18, 14);
	regs->tc = field(ctl, 21, 19);
	regs->stream_id = field(ctl, 31, 24);
	regs->state = field(status, 3, 0);
	regs->ide_fail = status & BIT(31);
}

static void decode_ide_cap_reg(struct ide_cap *ide)
{
	uint32_t cap = ide->cap;

	ide->link_ide = cap & BIT(0);
	ide->selective_ide = cap & BIT(1);
	ide->flow_through = cap & BIT(2);
	ide->partial_header = cap & BIT(3);
	ide->aggregation = cap & BIT(4);
	ide->pcrc = cap & BIT(5);
	ide->ide_km = cap & BIT(6);
	ide->sel_cfg = cap & BIT(7);
	ide->algorithms = field(cap, 12, 8);
	ide->tee_limited = cap & BIT(24);
	ide->xt = cap & BIT(25);
	/* Both counts are encoded minus one and mean nothing without their feature bit. */
	ide->link_tcs = ide->link_ide ? field(cap, 15, 13) + 1 : 0;
	ide->sel_streams = ide->selective_ide ? field(cap, 23, 16) + 1 : 0;
}

/* Returns the offset just past the Link blocks, or 0 if they did not all fit. */
static size_t decode_link_blocks(const struct cfg_bytes *c, size_t pos, struct pci_cfg *cfg)
{
	struct ide_cap *ide = &cfg->ide;

	for (; ide->nr_link < ide->link_tcs; pos += IDE_LINK_BLOCK_SIZE) {
		struct ide_link_stream *link = &ide->link[ide->nr_link];

		if (!ide_span_fits(c, pos, IDE_LINK_BLOCK_SIZE, cfg))
			return 0;
		link->offset = (uint16_t)pos;
		decode_stream_regs(cfg_read32(c, pos + IDE_LINK_CTL),
				   cfg_read32(c, pos + IDE_LINK_STATUS), &link->regs);
		ide->nr_link++;
	}
	return pos;
}

/* Size of a Selective block: each carries its own address-association count. */
static size_t sel_block_size(unsigned int nr_addr)
{
	return IDE_SEL_HDR_SIZE + IDE_ADDR_BLOCK_SIZE * (size_t)nr_addr;
}

/* How many Selective blocks from pos fit, walking the spec layout as lspci does (ABI.md §3). */
static unsigned int count_sel_blocks(const struct cfg_bytes *c, size_t pos, struct pci_cfg *cfg)
{
	unsigned int n;

	for (n = 0; n < cfg->ide.sel_streams; n++) {
		size_t size;

		if (!ide_span_fits(c, pos + IDE_SEL_CAP, 4, cfg))
			break;
		size = sel_block_size(field(cfg_read32(c, pos + IDE_SEL_CAP), 3, 0));
		if (!ide_span_fits(c, pos, size, cfg))
			break;
		pos += size;
	}
	return n;
}

static void decode_addr_assoc(const struct cfg_bytes *c, size_t pos, struct ide_addr_assoc *addr)
{
	uint32_t reg1 = cfg_read32(c, pos + IDE_ADDR_REG1);
	uint64_t limit_hi = cfg_read32(c, pos + IDE_ADDR_REG2);
	uint64_t base_hi = cfg_read32(c, pos + IDE_ADDR_REG3);

	addr->valid = reg1 & BIT(0);
	addr->base = base_hi << 32 | (uint64_t)field(reg1, 19, 8) << IDE_ADDR_LOW_BITS;
	addr->limit = limit_hi << 32 | (uint64_t)field(reg1, 31, 20) << IDE_ADDR_LOW_BITS |
		      IDE_ADDR_LIMIT_LOW;
}

/*
 * Decodes the block at pos (already known to fit) into SEL, its address
 * associations into ADDR, and returns its size.
 */
static size_t decode_sel_block(const struct cfg_bytes *c, size_t pos, struct ide_sel_stream *sel,
			       struct ide_addr_assoc *addr)
{
	uint32_t ctl = cfg_read32(c, pos + IDE_SEL_CTL);
	unsigned int i;

	sel->offset = (uint16_t)pos;
	sel->cap = cfg_read32(c, pos + IDE_SEL_CAP);
	decode_stream_regs(ctl, cfg_read32(c, pos + IDE_SEL_STATUS), &sel->regs);
	sel->cfg_requests = ctl & BIT(9);
	sel->default_stream = ctl & BIT(22);
	sel->tee_limited = ctl & BIT(23);
	sel->rid1 = cfg_read32(c, pos + IDE_SEL_RID1);
	sel->rid2 = cfg_read32(c, pos + IDE_SEL_RID2);
	sel->rid_valid = sel->rid2 & BIT(0);
	sel->rid_base = (uint16_t)field(sel->rid2, 23, 8);
	sel->rid_limit = (uint16_t)field(sel->rid1, 23, 8);
	sel->rid_segment = (uint8_t)field(sel->rid2, 31, 24);
	sel->nr_addr = field(sel->cap, 3, 0);
	sel->addr = addr;
	for (i = 0; i < sel->nr_addr; i++)
		decode_addr_assoc(c, pos + IDE_SEL_ADDR_0 + IDE_ADDR_BLOCK_SIZE * (size_t)i,
				  &sel->addr[i]);
	return sel_block_size(sel->nr_addr);
}

static int decode_sel_blocks(const struct cfg_bytes *c, size_t pos, struct pci_cfg *cfg)
{
	struct ide_cap *ide = &cfg->ide;
	unsigned int n = count_sel_blocks(c, pos, cfg);
	size_t nr_addr = 0, p = pos;
	unsigned int i;

	if (!n)
		return 0;
	/* Sized to what the blocks hold, not 15 per block: hosts keep thousands of them. */
	for (i = 0; i < n; i++) {
		unsigned int k = field(cfg_read32(c, p + IDE_SEL_CAP), 3, 0);

		nr_addr += k;
		p += sel_block_size(k);
	}
	ide->sel = calloc(n, sizeof(*ide->sel));
	ide->addr_pool = nr_addr ? calloc(nr_addr, sizeof(*ide->addr_pool)) : NULL;
	if (!ide->sel || (nr_addr && !ide->addr_pool))
		return -ENOMEM;
	ide->nr_sel = n;
	nr_addr = 0;
	for (i = 0; i < n; i++) {
		/* no pool when no block has associations: NULL + 0 is undefined */
		pos += decode_sel_block(c, pos, &ide->sel[i],
					ide->addr_pool ? ide->addr_pool + nr_addr : NULL);
		nr_addr += ide->sel[i].nr_addr;
	}
	/* Linux strides by block 0's size and drops the rest at the first mismatch (ABI.md §3). */
	for (i = 1; i < n; i++)
		ide->sel[i].linux_skips = ide->sel[i - 1].linux_skips ||
					  ide->sel[i].nr_addr != ide->sel[0].nr_addr;
	return 0;
}

static int decode_ide(const struct cfg_bytes *c, size_t pos, struct pci_cfg *cfg)
{
	struct ide_cap *ide = &cfg->ide;
	size_t blocks;

	ide->present = true;
	ide->offset = (uint16_t)pos;
	if (!cfg_has(c, pos + IDE_CAP_REG, 4)) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return 0;
	}
	ide->cap = cfg_read32(c, pos + IDE_CAP_REG);
	decode_ide_cap_reg(ide);
	if (!cfg_has(c, pos + IDE_CTL_REG, 4)) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return 0;
	}
	ide->ctl = cfg_read32(c, pos + IDE_CTL_REG);
	/* Selective blocks follow the Link blocks, so a missing Link block hides them all. */
	blocks = decode_link_blocks(c, pos + IDE_LINK_BLOCK_0, cfg);
	if (!blocks)
		return 0;
	return decode_sel_blocks(c, blocks, cfg);
}

static int walk_ext_caps(const struct cfg_bytes *c, struct pci_cfg *cfg)
{
	uint8_t seen[PCI_CFG_EXP_SIZE / 4 / 8] = { 0 };
	size_t pos = PCI_EXT_CAP_START;

	/* Without bytes past 256 there is no extended space to walk: not an error. */
	if (c->len <= PCI_CFG_SIZE)
		return 0;
	for (;;) {
		uint32_t header;
		size_t next;
		int ret;

		if (!cfg_has(c, pos, 4)) {
			cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
			return 0;
		}
		if (already_visited(seen, pos / 4)) {
			cfg->malformed |= CFG_MAL_CAP_LOOP;
			return 0;
		}
		header = cfg_read32(c, pos);
		/* 0 is an empty list; all ones is no extended space (conventional device). */
		if (header == 0 || header == PCI_EXT_CAP_NONE)
			return 0;
		if (PCI_EXT_CAP_ID(header) == PCI_EXT_CAP_ID_DOE && !cfg->nr_doe++)
			cfg->doe_offset = (uint16_t)pos;
		if (PCI_EXT_CAP_ID(header) == PCI_EXT_CAP_ID_IDE && !cfg->ide.present) {
			ret = decode_ide(c, pos, cfg);
			if (ret)
				return ret;
		}
		next = PCI_EXT_CAP_NEXT(header);
		if (!next)
			return 0;
		/* Reserved low bits must be 0; follow the masked pointer as Linux and lspci do. */
		if (next & 3) {
			cfg->malformed |= CFG_MAL_CAP_POINTER;
			next &= ~(size_t)3;
		}
		if (next < PCI_EXT_CAP_START) {
			cfg->malformed |= CFG_MAL_CAP_POINTER;
			return 0;
		}
		pos = next;
	}
}

int pci_cfg_decode(const uint8_t *buf, size_t len, struct pci_cfg *cfg)
{
	struct cfg_bytes c = {
		.buf = buf,
		.len = !buf ? 0 : len < PCI_CFG_EXP_SIZE ? len : PCI_CFG_EXP_SIZE,
	};
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->pcie_type = PCIE_TYPE_NONE;
	cfg->len = c.len;
	cfg->ext_readable = c.len >= PCI_CFG_EXP_SIZE;
	if (!decode_header(&c, cfg))
		return 0;
	walk_std_caps(&c, cfg);
	ret = walk_ext_caps(&c, cfg);
	if (ret) {
		pci_cfg_release(cfg);
		memset(cfg, 0, sizeof(*cfg));
	}
	return ret;
}

void pci_cfg_release(struct pci_cfg *cfg)
{
	if (!cfg)
		return;
	free(cfg->ide.sel);
	free(cfg->ide.addr_pool);
	cfg->ide.sel = NULL;
	cfg->ide.addr_pool = NULL;
	cfg->ide.nr_sel = 0;
}

const struct ide_sel_stream *ide_sel_block(const struct ide_cap *ide, unsigned int idx)
{
	if (!ide || !ide->sel || idx >= ide->nr_sel)
		return NULL;
	return &ide->sel[idx];
}
