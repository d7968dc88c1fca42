// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pure decoding of PCI config space: header, PCIe capability, DOE presence
 * and the IDE extended capability (ABI.md §3). The bytes come from a reader
 * (sysfs `config`, or a buffer), range by range as the parts asked for need
 * them, through a cache: every access goes through cfg_fetch().
 */
#include <errno.h>
#include <stdint.h>
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

/*
 * The bytes under decode: a cache over the reader, so that no byte is read
 * twice, with what is known of where the file ends.
 */
struct cfg_bytes {
	const struct cfg_reader *rd;
	size_t lo;		/* the file holds at least lo bytes */
	size_t hi;		/* ... and at most hi (SIZE_MAX while unknown) */
	int err;		/* the reader failed: the decode is void */
	uint8_t have[PCI_CFG_EXP_SIZE / 8];	/* bitmap of the bytes in buf */
	uint8_t buf[PCI_CFG_EXP_SIZE];
};

/* Bits hi..lo of v. */
static unsigned int field(uint32_t v, unsigned int hi, unsigned int lo)
{
	return (unsigned int)((v >> lo) & ((2ull << (hi - lo)) - 1));
}

static bool is_cached(const struct cfg_bytes *c, size_t i)
{
	return i < PCI_CFG_EXP_SIZE && (c->have[i / 8] & BIT(i % 8));
}

/* One read of [off, off + n); a short read marks the end of the file. */
static void cfg_load(struct cfg_bytes *c, size_t off, size_t n)
{
	ssize_t got = c->rd->read(c->rd->priv, off, c->buf + off, n);
	size_t i;

	if (got < 0) {
		c->err = (int)got;
		return;
	}
	if ((size_t)got > n)
		got = (ssize_t)n;
	for (i = off; i < off + (size_t)got; i++)
		c->have[i / 8] |= (uint8_t)BIT(i % 8);
	if (got > 0 && off + (size_t)got > c->lo)
		c->lo = off + (size_t)got;
	if ((size_t)got < n && off + (size_t)got < c->hi)
		c->hi = off + (size_t)got;
}

/*
 * Make [off, off + n) available, reading each missing run once and nothing
 * past a known end. False if the file ends before off + n, the range leaves
 * 4 KiB, or the reader failed.
 */
static bool cfg_fetch(struct cfg_bytes *c, size_t off, size_t n)
{
	size_t end = off + n, i = off;

	if (off > PCI_CFG_EXP_SIZE || n > PCI_CFG_EXP_SIZE - off)
		return false;
	while (i < end) {
		size_t run = i;

		/* eight cached bytes at a time: blocks are asked for again and again */
		if (i % 8 == 0 && end - i >= 8 && c->have[i / 8] == 0xff) {
			i += 8;
			continue;
		}
		if (is_cached(c, i)) {
			i++;
			continue;
		}
		if (c->err || i >= c->hi)
			return false;
		while (run < end && run < c->hi && !is_cached(c, run))
			run++;
		cfg_load(c, i, run - i);
	}
	return true;
}

/* Read ahead what the decode will ask for next, as far as 4 KiB. */
static void cfg_prefetch(struct cfg_bytes *c, size_t off, size_t n)
{
	if (off < PCI_CFG_EXP_SIZE)
		cfg_fetch(c, off, n < PCI_CFG_EXP_SIZE - off ? n : PCI_CFG_EXP_SIZE - off);
}

/* Does the file hold byte i? Known from earlier reads, or one byte is read to tell. */
static bool cfg_has_byte(struct cfg_bytes *c, size_t i)
{
	return i < c->lo || (i < c->hi && cfg_fetch(c, i, 1));
}

/*
 * Is [off, off + n) inside the file, without reading it? Exact for a buffer;
 * on sysfs, once a byte past 256 was read, 4 KiB as the kernel sizes config.
 */
static bool cfg_within(const struct cfg_bytes *c, size_t off, size_t n)
{
	size_t end = off + n;

	if (off > PCI_CFG_EXP_SIZE || n > PCI_CFG_EXP_SIZE - off)
		return false;
	return end <= c->lo || (end <= c->hi && c->lo > PCI_CFG_SIZE);
}

/* Little-endian read of n bytes, fetched if need be; anything unavailable reads as 0. */
static uint32_t cfg_read(struct cfg_bytes *c, size_t off, size_t n)
{
	uint32_t v = 0;

	if (!cfg_fetch(c, off, n))
		return 0;
	while (n--)
		v = v << 8 | c->buf[off + n];
	return v;
}

static uint8_t cfg_read8(struct cfg_bytes *c, size_t off)
{
	return (uint8_t)cfg_read(c, off, 1);
}

static uint16_t cfg_read16(struct cfg_bytes *c, size_t off)
{
	return (uint16_t)cfg_read(c, off, 2);
}

static uint32_t cfg_read32(struct cfg_bytes *c, size_t off)
{
	return cfg_read(c, off, 4);
}

size_t pci_cfg_accesses(size_t off, size_t n)
{
	size_t k = 0;

	if ((off & 1) && n) {
		k++;
		off++;
		n--;
	}
	if ((off & 3) && n > 2) {
		k++;
		n -= 2;
	}
	k += n / 4 + (n % 4 >= 2) + (n % 2);
	return k;
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

/*
 * The first 16 bytes: IDs, class, header type. Returns false when nothing
 * past the header can be trusted. That the file holds the whole 64-byte
 * header is checked once the decode is done (finish()): by then a later
 * read has usually told.
 */
static bool decode_header(struct cfg_bytes *c, struct pci_cfg *cfg)
{
	uint8_t header_type;

	cfg->parts |= CFG_PART_HEADER;
	if (!cfg_fetch(c, 0, 16)) {
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

/*
 * A bridge's memory window (0x20/0x22: address bits 31:20 in 15:4) and
 * prefetchable window (0x24/0x26, with the upper halves at 0x28/0x2c when
 * 64-bit); limits end in 0xfffff. A window whose base is above its limit is
 * closed.
 */
static void decode_windows(struct cfg_bytes *c, struct pci_cfg *cfg)
{
	uint16_t pb, pl;

	if (cfg->header_type != PCI_HEADER_TYPE_BRIDGE || !cfg_fetch(c, 0x20, 16))
		return;
	cfg->mem_window.base = (uint64_t)(cfg_read16(c, 0x20) & 0xfff0) << 16;
	cfg->mem_window.limit = (uint64_t)(cfg_read16(c, 0x22) & 0xfff0) << 16 |
				IDE_ADDR_LIMIT_LOW;
	pb = cfg_read16(c, 0x24);
	pl = cfg_read16(c, 0x26);
	cfg->pref_window.base = (uint64_t)(pb & 0xfff0) << 16;
	cfg->pref_window.limit = (uint64_t)(pl & 0xfff0) << 16 | IDE_ADDR_LIMIT_LOW;
	if ((pb & 0xf) == 1) {
		cfg->pref_window.base |= (uint64_t)cfg_read32(c, 0x28) << 32;
		cfg->pref_window.limit |= (uint64_t)cfg_read32(c, 0x2c) << 32;
	}
	cfg->mem_window.valid = cfg->mem_window.base <= cfg->mem_window.limit;
	cfg->pref_window.valid = cfg->pref_window.base <= cfg->pref_window.limit;
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

static void decode_pcie_cap(struct cfg_bytes *c, size_t pos, struct pci_cfg *cfg)
{
	if (!cfg_fetch(c, pos + PCI_EXP_FLAGS, 2)) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return;
	}
	cfg->pcie_type = (int)field(cfg_read16(c, pos + PCI_EXP_FLAGS), 7, 4);
	if (!cfg_fetch(c, pos + PCI_EXP_DEVCAP, 4)) {
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

/* To the PCIe capability, as pci_find_capability() does; with CHAINS to the end. */
static void walk_std_caps(struct cfg_bytes *c, struct pci_cfg *cfg, bool chains)
{
	uint8_t seen[PCI_CFG_SIZE / 4 / 8] = { 0 };
	size_t reg = cap_list_register(cfg->header_type);
	unsigned int pos;

	if (!reg || !(cfg_read16(c, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return;
	for (pos = cfg_read8(c, reg); pos; pos = cfg_read8(c, pos + PCI_CAP_LIST_NEXT)) {
		uint8_t id;

		/* Capabilities live after the header; the low two bits are reserved. */
		if (pos < PCI_CFG_HDR_SIZE) {
			/* 64 bytes is what a non-root reader gets: header only, nothing wrong. */
			if (cfg_has_byte(c, PCI_CFG_HDR_SIZE))
				cfg->malformed |= CFG_MAL_CAP_POINTER;
			return;
		}
		pos &= ~3u;
		/* ID, next and the PCIe capability's flags in one read */
		cfg_prefetch(c, pos, 4);
		if (!cfg_fetch(c, pos, 2)) {
			if (cfg_has_byte(c, PCI_CFG_HDR_SIZE))
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
		if (id == PCI_CAP_ID_EXP && cfg->pcie_type == PCIE_TYPE_NONE) {
			decode_pcie_cap(c, pos, cfg);
			if (!chains)
				return;
		}
	}
}

/*
 * Does [off, off + n) fit? Past 4 KiB the capability lies, else the file is
 * short. READ fetches the bytes; otherwise they only have to be there.
 */
static bool ide_span_fits(struct cfg_bytes *c, size_t off, size_t n, bool read,
			  struct pci_cfg *cfg)
{
	if (off + n > PCI_CFG_EXP_SIZE) {
		cfg->malformed |= CFG_MAL_IDE_BLOCKS;
		return false;
	}
	if (read ? cfg_fetch(c, off, n) : cfg_within(c, off, n))
		return true;
	cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
	return false;
}

static void decode_stream_regs(uint32_t ctl, uint32_t status, struct ide_stream_regs *regs)
{
	regs->ctl = ctl;
	regs->status = status;
	regs->enabled = ctl & BIT(0);
	regs->xt = ctl & BIT(1);
	regs->aggr_npr = field(ctl, 3, 2);
	regs->aggr_pr = field(ctl, 5, 4);
	regs->aggr_cpl = field(ctl, 7, 6);
	regs->pcrc = ctl & BIT(8);
	regs->partial_header = field(ctl, 13, 10);
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

/*
 * IDE Control at pos (the capability's +0x08) when CTL, then the Link blocks,
 * read when LINK, else only checked to be there. Returns the offset just
 * past the Link blocks, or 0 if they did not all fit.
 */
static size_t link_blocks(struct cfg_bytes *c, size_t pos, bool ctl, bool link, struct pci_cfg *cfg)
{
	struct ide_cap *ide = &cfg->ide;
	size_t blocks = IDE_LINK_BLOCK_SIZE * (size_t)ide->link_tcs;
	unsigned int i;

	if (ctl || link)	/* one read */
		cfg_prefetch(c, ctl ? pos : pos + 4, (ctl ? 4 : 0) + (link ? blocks : 0));
	if (!(ctl ? cfg_fetch(c, pos, 4) : cfg_within(c, pos, 4))) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return 0;
	}
	if (ctl)
		ide->ctl = cfg_read32(c, pos);
	for (i = 0, pos += 4; i < ide->link_tcs; i++, pos += IDE_LINK_BLOCK_SIZE) {
		if (!ide_span_fits(c, pos, IDE_LINK_BLOCK_SIZE, link, cfg))
			return 0;
		if (!link)
			continue;
		ide->link[i].offset = (uint16_t)pos;
		decode_stream_regs(cfg_read32(c, pos + IDE_LINK_CTL),
				   cfg_read32(c, pos + IDE_LINK_STATUS), &ide->link[i].regs);
		ide->nr_link++;
	}
	return pos;
}

/* Size of a Selective block: each carries its own address-association count. */
static size_t sel_block_size(unsigned int nr_addr)
{
	return IDE_SEL_HDR_SIZE + IDE_ADDR_BLOCK_SIZE * (size_t)nr_addr;
}

static bool sel_wanted(const struct cfg_want *want, unsigned int parts, unsigned int i)
{
	return (parts & CFG_PART_SEL) && (!want->sel || (want->sel[i / 8] & BIT(i % 8)));
}

/* A located block to decode: wanted, or (CFG_PART_ENABLED) found enabled. */
static bool sel_decoded(struct cfg_bytes *c, size_t pos, const struct cfg_want *want,
			unsigned int parts, unsigned int i)
{
	return sel_wanted(want, parts, i) ||
	       ((parts & CFG_PART_ENABLED) && (cfg_read32(c, pos + IDE_SEL_CTL) & BIT(0)));
}

/* Wanted Selective blocks in a row from i, up to last. */
static unsigned int sel_run(const struct cfg_want *want, unsigned int parts, unsigned int i,
			    unsigned int last)
{
	unsigned int n = 0;

	while (i + n < last && sel_wanted(want, parts, i + n))
		n++;
	return n;
}

/*
 * Locate the Selective blocks from pos as lspci walks them (ABI.md §3), up
 * to LAST, reading each one's capability register and a wanted block's
 * registers. Wanted blocks in a row are read at once when their
 * associations are wanted too: the first read takes them at the smallest
 * block size, so it never reads past them; then each is taken to be the
 * size of block 0, as Linux programs them alike, and a block that is not
 * costs one more read for what is still missing. Returns how many blocks
 * were located.
 */
static unsigned int locate_sel_blocks(struct cfg_bytes *c, size_t pos, const struct cfg_want *want,
				      unsigned int parts, unsigned int last, struct pci_cfg *cfg)
{
	bool addr = parts & CFG_PART_ADDR;
	size_t typical = 0;
	unsigned int n;

	for (n = 0; n < last; n++) {
		bool wanted = sel_wanted(want, parts, n);
		size_t size;

		if (wanted && !is_cached(c, pos))
			cfg_prefetch(c, pos, !addr ? IDE_SEL_HDR_SIZE : sel_run(want, parts, n, last) *
					     (typical ? typical : IDE_SEL_HDR_SIZE));
		/* to tell whether it is enabled: capability and control in one read */
		if (!wanted && (parts & CFG_PART_ENABLED) && !is_cached(c, pos))
			cfg_prefetch(c, pos, IDE_SEL_CTL + 4);
		if (!ide_span_fits(c, pos + IDE_SEL_CAP, 4, true, cfg))
			break;
		size = sel_block_size(field(cfg_read32(c, pos + IDE_SEL_CAP), 3, 0));
		if (pos + size > PCI_CFG_EXP_SIZE) {
			cfg->malformed |= CFG_MAL_IDE_BLOCKS;
			break;
		}
		if (!typical)
			typical = size;
		if (wanted && addr && !is_cached(c, pos + size - 1))
			cfg_prefetch(c, pos, size + (sel_run(want, parts, n, last) - 1) * typical);
		if (!wanted && (parts & CFG_PART_ENABLED)) {
			if (!ide_span_fits(c, pos, IDE_SEL_CTL + 4, true, cfg))
				break;
			wanted = sel_decoded(c, pos, want, parts, n);
		}
		if ((wanted && !ide_span_fits(c, pos, addr ? size : IDE_SEL_HDR_SIZE, true, cfg)) ||
		    !ide_span_fits(c, pos, size, false, cfg))
			break;
		pos += size;
	}
	return n;
}

static void decode_addr_assoc(struct cfg_bytes *c, size_t pos, struct ide_addr_assoc *addr)
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
 * The block at pos (located, its wanted bytes read) into SEL: its registers
 * when DECODE, its address associations into ADDR when that is not NULL.
 * Returns its size.
 */
static size_t decode_sel_block(struct cfg_bytes *c, size_t pos, bool decode,
			       struct ide_addr_assoc *addr, struct ide_sel_stream *sel)
{
	uint32_t ctl;
	unsigned int i;

	sel->offset = (uint16_t)pos;
	sel->cap = cfg_read32(c, pos + IDE_SEL_CAP);
	if (!decode)
		return sel_block_size(field(sel->cap, 3, 0));
	sel->decoded = true;
	ctl = cfg_read32(c, pos + IDE_SEL_CTL);
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
	if (addr) {
		sel->nr_addr = field(sel->cap, 3, 0);
		sel->addr = addr;
	}
	for (i = 0; i < sel->nr_addr; i++)
		decode_addr_assoc(c, pos + IDE_SEL_ADDR_0 + IDE_ADDR_BLOCK_SIZE * (size_t)i,
				  &sel->addr[i]);
	return sel_block_size(field(sel->cap, 3, 0));
}

/* How many Selective blocks to locate: all of them, or as far as the last one wanted. */
static unsigned int sel_last(const struct ide_cap *ide, const struct cfg_want *want,
			     unsigned int parts)
{
	unsigned int last = 0, i;

	if ((parts & (CFG_PART_LAYOUT | CFG_PART_ENABLED)) || ((parts & CFG_PART_SEL) && !want->sel))
		return ide->sel_streams;
	for (i = 0; i < ide->sel_streams; i++)
		if (sel_wanted(want, parts, i))
			last = i + 1;
	return last;
}

static int decode_sel_blocks(struct cfg_bytes *c, size_t pos, const struct cfg_want *want,
			     unsigned int parts, struct pci_cfg *cfg)
{
	struct ide_cap *ide = &cfg->ide;
	bool addr = parts & CFG_PART_ADDR;
	unsigned int n = locate_sel_blocks(c, pos, want, parts, sel_last(ide, want, parts), cfg);
	size_t nr_addr = 0, p = pos;
	unsigned int i;

	if (!n)
		return 0;
	/* Sized to what the blocks hold, not 15 per block: hosts keep thousands of them. */
	for (i = 0; i < n; i++) {
		unsigned int k = field(cfg_read32(c, p + IDE_SEL_CAP), 3, 0);

		if (addr && sel_decoded(c, p, want, parts, i))
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
		bool decode = sel_decoded(c, pos, want, parts, i);

		/* no pool when no block has associations: NULL + 0 is undefined */
		pos += decode_sel_block(c, pos, decode, decode && addr && ide->addr_pool ?
					ide->addr_pool + nr_addr : NULL, &ide->sel[i]);
		nr_addr += ide->sel[i].nr_addr;
	}
	/* Linux strides by block 0's size and drops the rest at the first mismatch (ABI.md §3). */
	for (i = 1; i < n; i++)
		ide->sel[i].linux_skips = ide->sel[i - 1].linux_skips ||
					  field(ide->sel[i].cap, 3, 0) != field(ide->sel[0].cap, 3, 0);
	return 0;
}

static int decode_ide(struct cfg_bytes *c, size_t pos, const struct cfg_want *want,
		      unsigned int parts, struct pci_cfg *cfg)
{
	struct ide_cap *ide = &cfg->ide;
	size_t blocks;

	ide->present = true;
	ide->offset = (uint16_t)pos;
	if (!cfg_fetch(c, pos + IDE_CAP_REG, 4)) {
		cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
		return 0;
	}
	ide->cap = cfg_read32(c, pos + IDE_CAP_REG);
	decode_ide_cap_reg(ide);
	if (!(parts & (CFG_PART_IDE_CTL | CFG_PART_LINK | CFG_PART_LAYOUT | CFG_PART_SEL |
		       CFG_PART_ENABLED)))
		return 0;
	/* Selective blocks follow the Link blocks, so a missing Link block hides them all. */
	if ((parts & CFG_PART_LINK) && ide->link_tcs) {
		ide->link = calloc(ide->link_tcs, sizeof(*ide->link));
		if (!ide->link)
			return -ENOMEM;
	}
	blocks = link_blocks(c, pos + IDE_CTL_REG, parts & CFG_PART_IDE_CTL, parts & CFG_PART_LINK,
			     cfg);
	if (!blocks || !(parts & (CFG_PART_LAYOUT | CFG_PART_SEL | CFG_PART_ENABLED)))
		return 0;
	return decode_sel_blocks(c, blocks, want, parts, cfg);
}

/*
 * To the IDE capability, as pci_find_ext_capability() does; with CHAINS to
 * the end. When the header was not asked for, the first extended header
 * tells that the function responds, and if it does not, the header says why.
 */
static int walk_ext_caps(struct cfg_bytes *c, const struct cfg_want *want, unsigned int parts,
			 struct pci_cfg *cfg)
{
	uint8_t seen[PCI_CFG_EXP_SIZE / 4 / 8] = { 0 };
	size_t pos = PCI_EXT_CAP_START;

	for (;;) {
		uint32_t header = 0;
		bool have = cfg_fetch(c, pos, 4);
		size_t next;
		int ret;

		if (c->err)
			return c->err;
		if (have)
			header = cfg_read32(c, pos);
		if (pos == PCI_EXT_CAP_START && !(cfg->parts & CFG_PART_HEADER)) {
			if (!have || header == PCI_EXT_CAP_NONE) {
				decode_header(c, cfg);
				return 0;
			}
			cfg->header_valid = true;
		}
		if (!have) {
			/* Without bytes past 256 there is no extended space to walk: not an error. */
			if (pos != PCI_EXT_CAP_START || cfg_has_byte(c, PCI_CFG_SIZE))
				cfg->malformed |= CFG_MAL_CAP_TRUNCATED;
			return 0;
		}
		if (already_visited(seen, pos / 4)) {
			cfg->malformed |= CFG_MAL_CAP_LOOP;
			return 0;
		}
		/* 0 is an empty list; all ones is no extended space (conventional device). */
		if (header == 0 || header == PCI_EXT_CAP_NONE)
			return 0;
		if (PCI_EXT_CAP_ID(header) == PCI_EXT_CAP_ID_DOE && !cfg->nr_doe++)
			cfg->doe_offset = (uint16_t)pos;
		if (PCI_EXT_CAP_ID(header) == PCI_EXT_CAP_ID_IDE && !cfg->ide.present) {
			ret = decode_ide(c, pos, want, parts, cfg);
			if (ret || !(parts & CFG_PART_CHAINS))
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

/*
 * What is left to know once the wanted parts are decoded: that the header
 * is whole (else nothing counts), whether this is the 64 bytes a non-root
 * reader gets, and the size to report.
 */
static void finish(struct cfg_bytes *c, struct pci_cfg *cfg)
{
	if (cfg->parts & CFG_PART_HEADER) {
		if (!cfg_has_byte(c, PCI_CFG_HDR_SIZE - 1)) {
			pci_cfg_release(cfg);
			memset(cfg, 0, sizeof(*cfg));
			cfg->parts = CFG_PART_HEADER;
			cfg->pcie_type = PCIE_TYPE_NONE;
			cfg->malformed = CFG_MAL_SHORT_HEADER;
		} else if (cfg->header_valid) {
			cfg_has_byte(c, PCI_CFG_HDR_SIZE);
		}
	}
	if (c->lo == c->hi) {
		cfg->len = c->lo;
	} else {
		size_t kernel = c->lo > PCI_CFG_SIZE ? PCI_CFG_EXP_SIZE : PCI_CFG_SIZE;

		cfg->len = c->hi < kernel ? c->hi : kernel;
	}
	cfg->ext_readable = cfg->len >= PCI_CFG_EXP_SIZE;
}

int pci_cfg_read(const struct cfg_reader *rd, const struct cfg_want *want, struct pci_cfg *cfg)
{
	struct cfg_bytes c;	/* buf is only read where have says so: not cleared */
	unsigned int parts = want->parts;
	int ret = 0;

	c.rd = rd;
	c.lo = 0;
	c.hi = SIZE_MAX;
	c.err = 0;
	memset(c.have, 0, sizeof(c.have));
	if (parts & (CFG_PART_LAYOUT | CFG_PART_LINK | CFG_PART_SEL | CFG_PART_ADDR |
		     CFG_PART_ENABLED | CFG_PART_IDE_CTL))
		parts |= CFG_PART_EXT;
	if (parts & (CFG_PART_PCIE | CFG_PART_WINDOWS))
		parts |= CFG_PART_HEADER;
	if (rd->size_known)
		c.lo = c.hi = rd->size < PCI_CFG_EXP_SIZE ? rd->size : PCI_CFG_EXP_SIZE;
	memset(cfg, 0, sizeof(*cfg));
	cfg->pcie_type = PCIE_TYPE_NONE;
	if (!(parts & CFG_PART_HEADER) || decode_header(&c, cfg)) {
		if (parts & CFG_PART_WINDOWS)
			decode_windows(&c, cfg);
		if (parts & CFG_PART_PCIE)
			walk_std_caps(&c, cfg, parts & CFG_PART_CHAINS);
		if (parts & CFG_PART_EXT)
			ret = walk_ext_caps(&c, want, parts, cfg);
	}
	cfg->parts |= parts & ~CFG_PART_HEADER;
	if (!ret && !c.err)
		finish(&c, cfg);
	if (!ret)
		ret = c.err;
	if (ret) {
		pci_cfg_release(cfg);
		memset(cfg, 0, sizeof(*cfg));
		cfg->pcie_type = PCIE_TYPE_NONE;
	}
	return ret;
}

/* A buffer in memory as a reader: the decoder knows its size. */
struct cfg_buffer {
	const uint8_t *buf;
	size_t len;
};

static ssize_t buffer_read(void *priv, size_t off, uint8_t *dst, size_t n)
{
	const struct cfg_buffer *b = priv;

	if (off >= b->len)
		return 0;
	if (n > b->len - off)
		n = b->len - off;
	memcpy(dst, b->buf + off, n);
	return (ssize_t)n;
}

int pci_cfg_decode(const uint8_t *buf, size_t len, struct pci_cfg *cfg)
{
	struct cfg_buffer b = { buf, buf ? len : 0 };
	struct cfg_reader rd = { buffer_read, &b, true, b.len };
	struct cfg_want want = { CFG_PART_ALL, NULL };

	return pci_cfg_read(&rd, &want, cfg);
}

void pci_cfg_release(struct pci_cfg *cfg)
{
	if (!cfg)
		return;
	free(cfg->ide.sel);
	free(cfg->ide.addr_pool);
	free(cfg->ide.link);
	cfg->ide.sel = NULL;
	cfg->ide.addr_pool = NULL;
	cfg->ide.link = NULL;
	cfg->ide.nr_sel = 0;
	cfg->ide.nr_link = 0;
}

size_t ide_sel_status_offset(const struct ide_sel_stream *sel)
{
	return (size_t)sel->offset + IDE_SEL_STATUS;
}

void ide_sel_set_status(struct ide_sel_stream *sel, uint32_t status)
{
	decode_stream_regs(sel->regs.ctl, status, &sel->regs);
}

const struct ide_sel_stream *ide_sel_block(const struct ide_cap *ide, unsigned int idx)
{
	if (!ide || !ide->sel || idx >= ide->nr_sel || !ide->sel[idx].decoded)
		return NULL;
	return &ide->sel[idx];
}
