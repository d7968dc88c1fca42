/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoding of PCI config space: header, PCIe capability (type, DEVCAP
 * TEE), DOE presence and the IDE extended capability (ABI.md §3).
 * No I/O of its own: the decoder asks a reader for the byte ranges it
 * decodes, as libpci does, because on a host every dword of `config` is a
 * config cycle (about 1 us bare metal, tens of us in a confidential guest).
 */
#ifndef TSMCTL_IDE_H
#define TSMCTL_IDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PCI_CFG_HDR_SIZE	64	/* what a non-root reader gets */
#define PCI_CFG_SIZE		256
#define PCI_CFG_EXP_SIZE	4096

#define PCI_EXT_CAP_ID_DOE	0x2e
#define PCI_EXT_CAP_ID_IDE	0x30
#define PCI_EXP_DEVCAP_TEE	0x40000000u
#define IDE_RESERVED_STREAM_ID	255
#define IDE_STATE_INSECURE	0
#define IDE_STATE_SECURE	2
#define IDE_MAX_ADDR_ASSOC	15	/* 4-bit count field */
#define IDE_MAX_LINK_BLOCKS	8	/* 3-bit TC count field + 1 */
#define IDE_MAX_SEL_BLOCKS	256	/* 8-bit count field + 1 */

/* PCIe Capabilities register, Device/Port Type field */
enum pcie_type {
	PCIE_TYPE_NONE		= -1,	/* not PCI Express */
	PCIE_TYPE_ENDPOINT	= 0x0,
	PCIE_TYPE_LEG_ENDPOINT	= 0x1,
	PCIE_TYPE_ROOT_PORT	= 0x4,
	PCIE_TYPE_UPSTREAM	= 0x5,
	PCIE_TYPE_DOWNSTREAM	= 0x6,
	PCIE_TYPE_PCIE_BRIDGE	= 0x7,	/* PCIe to PCI/PCI-X bridge */
	PCIE_TYPE_PCI_BRIDGE	= 0x8,	/* PCI/PCI-X to PCIe bridge */
	PCIE_TYPE_RC_ENDPOINT	= 0x9,
	PCIE_TYPE_RC_EC		= 0xa,
};

/* Why part of a config space could not be decoded (bit flags). */
enum cfg_malformed {
	CFG_MAL_SHORT_HEADER	= 1u << 0,	/* fewer than 64 bytes */
	CFG_MAL_CAP_LOOP	= 1u << 1,	/* a capability chain revisits an offset */
	CFG_MAL_CAP_POINTER	= 1u << 2,	/* pointer out of range or unaligned */
	CFG_MAL_CAP_TRUNCATED	= 1u << 3,	/* a capability runs past the bytes we have */
	CFG_MAL_IDE_BLOCKS	= 1u << 4,	/* IDE claims more blocks than fit */
	CFG_MAL_ALL_ONES	= 1u << 5,	/* header reads 0xffff...: device gone */
};

/* Lowercase JSON-friendly name ("endpoint", "root_port", ...), or NULL. */
const char *pcie_type_name(int type);

/* Name of IDE state bits 3:0: "insecure", "secure", or NULL for reserved. */
const char *ide_state_name(unsigned int state);

/* Name of an IDE algorithm id (bits 18:14 / cap bits 12:8); NULL if unknown. */
const char *ide_algorithm_name(unsigned int alg);

struct ide_addr_assoc {
	bool valid;
	uint64_t base;
	uint64_t limit;		/* low 20 bits implied 0xfffff */
};

/* Fields shared by Link and Selective stream control/status registers. */
struct ide_stream_regs {
	uint32_t ctl;
	uint32_t status;
	bool enabled;		/* ctl bit 0 */
	bool xt;		/* ctl bit 1: XT enable (pciutils) */
	unsigned int aggr_npr, aggr_pr, aggr_cpl;	/* ctl 3:2, 5:4, 7:6: Tx aggregation, 0 none .. 3 up to 8 */
	bool pcrc;		/* ctl bit 8 */
	unsigned int partial_header;	/* ctl 13:10: 0 none, 1..4 = 17:2, 25:2, 33:2, 41:2 */
	unsigned int algorithm;	/* ctl 18:14 */
	unsigned int tc;	/* ctl 21:19 */
	unsigned int stream_id;	/* ctl 31:24 */
	unsigned int state;	/* status 3:0 */
	bool ide_fail;		/* status bit 31 */
};

struct ide_link_stream {
	uint16_t offset;	/* of the block in config space */
	struct ide_stream_regs regs;
};

struct ide_sel_stream {
	uint16_t offset;	/* of the block in config space */
	bool linux_skips;	/* address-assoc count differs from an earlier block (ABI.md §3) */
	uint32_t cap;
	struct ide_stream_regs regs;
	bool cfg_requests;	/* ctl bit 9 */
	bool default_stream;	/* ctl bit 22 */
	bool tee_limited;	/* ctl bit 23 */
	uint32_t rid1, rid2;
	bool rid_valid;		/* rid2 bit 0 */
	uint16_t rid_base;	/* rid2 23:8 */
	uint16_t rid_limit;	/* rid1 23:8 */
	uint8_t rid_segment;	/* rid2 31:24 */
	bool decoded;		/* registers read (else only located: offset and cap) */
	unsigned int nr_addr;	/* address associations decoded: cap 3:0 with CFG_PART_ADDR, else 0 */
	struct ide_addr_assoc *addr;	/* nr_addr entries, in the cap's pool */
};

struct ide_cap {
	bool present;
	uint16_t offset;	/* of the extended capability header */
	uint32_t cap;		/* +0x04 */
	uint32_t ctl;		/* +0x08: CFG_PART_IDE_CTL */
	bool link_ide, selective_ide, flow_through, partial_header;
	bool aggregation, pcrc, ide_km, sel_cfg, tee_limited, xt;
	unsigned int algorithms;	/* cap 12:8 (supported algorithm id) */
	unsigned int link_tcs;		/* cap 15:13 + 1, 0 without Link IDE */
	unsigned int sel_streams;	/* cap 23:16 + 1, 0 without Selective IDE */
	unsigned int nr_link;		/* Link blocks decoded (CFG_PART_LINK) */
	struct ide_link_stream *link;	/* heap array of nr_link, owned: most functions have none */
	unsigned int nr_sel;		/* Selective blocks located (<= sel_streams) */
	struct ide_sel_stream *sel;	/* heap array of nr_sel, owned */
	struct ide_addr_assoc *addr_pool;	/* every block's associations, owned */
};

struct pci_cfg {
	unsigned int parts;	/* enum cfg_part: what was decoded */
	/*
	 * Size of the config file, capped at 4096: exact when a read found its
	 * end; else the kernel's own sizing, 4096 once a byte past 256 was read.
	 */
	size_t len;
	/* >= 64 bytes, not all-ones; without CFG_PART_HEADER: the first extended header responds */
	bool header_valid;
	uint16_t vendor_id, device_id;	/* the header fields: CFG_PART_HEADER */
	uint32_t class_code;	/* 24 bits */
	uint8_t header_type;	/* low 7 bits */
	bool multifunction;
	int pcie_type;		/* enum pcie_type */
	uint32_t devcap;
	bool tee_io;		/* DEVCAP bit 30 */
	bool ext_readable;	/* len >= 4096: extended space present */
	unsigned int nr_doe;	/* DOE capabilities on the chain walked (all: CFG_PART_CHAINS) */
	uint16_t doe_offset;	/* first DOE capability, 0 if none */
	struct ide_cap ide;
	/* a type 1 header's downstream windows (CFG_PART_WINDOWS); valid: base <= limit */
	struct ide_addr_assoc mem_window, pref_window;
	unsigned int malformed;	/* enum cfg_malformed bits */
};

/* What a decode reads and decodes; each part brings what it needs to locate it. */
enum cfg_part {
	CFG_PART_HEADER	= 1u << 0,	/* IDs, class, header type (0x00-0x0f) */
	CFG_PART_PCIE	= 1u << 1,	/* the standard chain to the PCIe capability: type, DEVCAP */
	CFG_PART_EXT	= 1u << 2,	/* the extended chain to IDE, and IDE's capability register */
	CFG_PART_LAYOUT	= 1u << 3,	/* every Selective block located (its capability register) */
	CFG_PART_LINK	= 1u << 4,	/* the Link blocks */
	CFG_PART_SEL	= 1u << 5,	/* Selective blocks' registers: want->sel, or all */
	CFG_PART_ADDR	= 1u << 6,	/* the decoded Selective blocks' address associations */
	CFG_PART_CHAINS	= 1u << 7,	/* both chains to their end: every pointer checked, DOEs counted */
	CFG_PART_ENABLED = 1u << 8,	/* every Selective block's control; those enabled decoded */
	CFG_PART_IDE_CTL = 1u << 9,	/* the IDE Control register */
	CFG_PART_WINDOWS = 1u << 10,	/* a bridge's memory and prefetchable windows (0x20-0x2f) */
	CFG_PART_ALL	= 0x7ffu,
};

struct cfg_want {
	unsigned int parts;	/* enum cfg_part */
	const uint8_t *sel;	/* bitmap of Selective block indexes for CFG_PART_SEL; NULL: all */
};

/* Where the decoder's bytes come from: a sysfs `config` file, or a buffer. */
struct cfg_reader {
	/* Copy up to N bytes at OFF into BUF: the count, short only at the end of the file; or -errno. */
	ssize_t (*read)(void *priv, size_t off, uint8_t *buf, size_t n);
	void *priv;
	bool size_known;	/* a buffer: the decoder knows where it ends without reading */
	size_t size;
};

/*
 * Decode the parts of config space WANT asks for, reading only the ranges
 * they need (each byte at most once, adjacent wants in one read). What is
 * valid is decoded and the rest flagged in cfg->malformed. A file whose size
 * is not known is taken to end where a read comes back short; past 256
 * bytes, bytes never read are taken to be there up to 4 KiB, as the kernel
 * sizes config. Returns 0, or the reader's -errno or -ENOMEM (cfg is then
 * zeroed and safe to release).
 */
int pci_cfg_read(const struct cfg_reader *rd, const struct cfg_want *want, struct pci_cfg *cfg);

/* Every part of up to 4096 bytes in memory; never reads past buf[len-1]. */
int pci_cfg_decode(const uint8_t *buf, size_t len, struct pci_cfg *cfg);

/*
 * Config cycles the kernel's pci_read_config() makes for a read of N bytes
 * at OFF: a byte, then a word to align, dwords, a word and a byte at the end.
 */
size_t pci_cfg_accesses(size_t off, size_t n);
void pci_cfg_release(struct pci_cfg *cfg);

/*
 * A decoded Selective block's Status register, alone: where it lies, and
 * its new value decoded into the block (state, IDE_FAIL), as a watch
 * re-reads it. The control register stays as decoded.
 */
size_t ide_sel_status_offset(const struct ide_sel_stream *sel);
void ide_sel_set_status(struct ide_sel_stream *sel, uint32_t status);

/* Selective block by index if its registers were decoded, else NULL. */
const struct ide_sel_stream *ide_sel_block(const struct ide_cap *ide, unsigned int idx);

#endif
