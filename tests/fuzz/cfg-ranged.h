/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoder as tsmctl runs it on sysfs: the bytes behind a reader that
 * does not tell where the file ends, every read logged. Shared by the unit
 * tests and the fuzz targets, which define RANGED_CHECK(cond): what a broken
 * rule does (count a failure, or abort).
 *
 * ranged_check_plans() decodes the same bytes with each read plan tsmctl
 * uses and checks each against the decode of the whole buffer: what a plan
 * decoded is what the whole decode says, no byte is read twice, nothing is
 * read past 4 KiB, and the size reported follows from what the reads found.
 */
#ifndef TSMCTL_TEST_CFG_RANGED_H
#define TSMCTL_TEST_CFG_RANGED_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tsmctl/ide.h"

struct log_reader {
	const uint8_t *buf;
	size_t len;
	unsigned int reads;
	unsigned int fail_at;	/* this read fails with -EIO (0: none) */
	size_t bytes, cycles;
	size_t lo, hi;		/* what the reads told of the end: >= lo, <= hi bytes */
	uint8_t asked[PCI_CFG_EXP_SIZE];	/* whether each byte was asked for */
	uint8_t twice;		/* some byte was asked for again */
	struct { size_t off, n; } log[64];	/* the first reads, in order */
};

static inline ssize_t log_read(void *priv, size_t off, uint8_t *dst, size_t n)
{
	struct log_reader *lr = priv;
	size_t got = 0, i;

	if (lr->reads < sizeof(lr->log) / sizeof(lr->log[0])) {
		lr->log[lr->reads].off = off;
		lr->log[lr->reads].n = n;
	}
	lr->reads++;
	RANGED_CHECK(n > 0 && off < PCI_CFG_EXP_SIZE && n <= PCI_CFG_EXP_SIZE - off);
	if (!n || off >= PCI_CFG_EXP_SIZE || n > PCI_CFG_EXP_SIZE - off)
		return -EINVAL;
	if (lr->fail_at && lr->reads == lr->fail_at)
		return -EIO;
	for (i = 0; i < n; i++)
		lr->twice |= lr->asked[off + i]++;
	if (off < lr->len)
		got = n < lr->len - off ? n : lr->len - off;
	memcpy(dst, lr->buf + off, got);
	lr->bytes += got;
	lr->cycles += pci_cfg_accesses(off, got);
	if (got && off + got > lr->lo)
		lr->lo = off + got;
	if (got < n && off + got < lr->hi)
		lr->hi = off + got;
	return (ssize_t)got;
}

/* Decode BUF through a logging reader of unknown size; checks that no byte was asked for twice. */
static inline int ranged_decode(const uint8_t *buf, size_t len, const struct cfg_want *want,
				struct log_reader *lr, struct pci_cfg *cfg)
{
	struct cfg_reader rd = { .read = log_read, .priv = lr };
	int ret;

	memset(lr, 0, sizeof(*lr));
	lr->buf = buf;
	lr->len = len;
	lr->hi = SIZE_MAX;
	ret = pci_cfg_read(&rd, want, cfg);
	RANGED_CHECK(!lr->twice);
	return ret;
}

/* The size a decode reports (ide.h): the end if a read found it, else the kernel's sizing. */
static inline size_t ranged_len(const struct log_reader *lr)
{
	size_t kernel = lr->lo > PCI_CFG_SIZE ? PCI_CFG_EXP_SIZE : PCI_CFG_SIZE;

	if (lr->lo == lr->hi)
		return lr->lo;
	return lr->hi < kernel ? lr->hi : kernel;
}

static inline int ranged_want_block(const struct cfg_want *want, unsigned int i)
{
	return (want->parts & CFG_PART_SEL) && (!want->sel || (want->sel[i / 8] >> (i % 8) & 1));
}

static inline void ranged_same_regs(const struct ide_stream_regs *a, const struct ide_stream_regs *b)
{
	RANGED_CHECK(!memcmp(a, b, sizeof(*a)));
}

/* A decoded Selective block against the whole decode's (which has every part). */
static inline void ranged_same_block(const struct ide_sel_stream *a, const struct ide_sel_stream *b,
				     int addr)
{
	RANGED_CHECK(a->offset == b->offset && a->cap == b->cap && a->linux_skips == b->linux_skips);
	ranged_same_regs(&a->regs, &b->regs);
	RANGED_CHECK(a->cfg_requests == b->cfg_requests && a->default_stream == b->default_stream &&
		     a->tee_limited == b->tee_limited && a->rid1 == b->rid1 && a->rid2 == b->rid2 &&
		     a->rid_valid == b->rid_valid && a->rid_base == b->rid_base &&
		     a->rid_limit == b->rid_limit && a->rid_segment == b->rid_segment);
	if (!addr) {
		RANGED_CHECK(a->nr_addr == 0 && a->addr == NULL);
		return;
	}
	RANGED_CHECK(a->nr_addr == b->nr_addr);
	if (a->nr_addr == b->nr_addr && a->nr_addr)
		RANGED_CHECK(!memcmp(a->addr, b->addr, a->nr_addr * sizeof(*a->addr)));
}

/* What the plan WANT decoded from BUF against FULL, the whole decode of the same bytes. */
static inline void ranged_check_plan(const uint8_t *buf, size_t len, const struct cfg_want *want,
				     const struct pci_cfg *full)
{
	struct log_reader lr;
	struct pci_cfg got;
	unsigned int parts, i, last = 0;
	int whole = len >= PCI_CFG_EXP_SIZE;	/* a config as the kernel sizes it */

	if (ranged_decode(buf, len, want, &lr, &got)) {
		RANGED_CHECK(0);	/* only the reader or malloc can fail a decode */
		return;
	}
	parts = got.parts;
	RANGED_CHECK(got.len == ranged_len(&lr));
	RANGED_CHECK(got.len <= PCI_CFG_EXP_SIZE);
	/* 64 bytes is a non-root reader's view: it must be known as such, never as "no IDE" */
	if (len == PCI_CFG_HDR_SIZE && full->header_valid)
		RANGED_CHECK(got.header_valid && got.len == PCI_CFG_HDR_SIZE);
	if (!full->header_valid) {
		if (parts & CFG_PART_HEADER)
			RANGED_CHECK(!got.header_valid && got.malformed == full->malformed);
		goto out;
	}
	if (parts & CFG_PART_HEADER)
		RANGED_CHECK(got.header_valid && got.vendor_id == full->vendor_id &&
			     got.device_id == full->device_id && got.class_code == full->class_code &&
			     got.header_type == full->header_type &&
			     got.multifunction == full->multifunction);
	if (parts & CFG_PART_PCIE)
		RANGED_CHECK(got.pcie_type == full->pcie_type && got.devcap == full->devcap &&
			     got.tee_io == full->tee_io);
	if (!(parts & CFG_PART_EXT) || !got.header_valid)
		goto out;
	RANGED_CHECK(got.ide.present == full->ide.present && got.ide.offset == full->ide.offset &&
		     got.ide.cap == full->ide.cap && got.ide.sel_streams == full->ide.sel_streams &&
		     got.ide.link_tcs == full->ide.link_tcs);
	if (parts & CFG_PART_LINK) {
		RANGED_CHECK(got.ide.nr_link == full->ide.nr_link);
		for (i = 0; i < got.ide.nr_link && i < full->ide.nr_link; i++)
			RANGED_CHECK(!memcmp(&got.ide.link[i], &full->ide.link[i], sizeof(got.ide.link[i])));
	} else {
		RANGED_CHECK(got.ide.nr_link == 0);
	}
	RANGED_CHECK(got.ide.ctl == (parts & CFG_PART_IDE_CTL ? full->ide.ctl : 0));
	for (i = 0; i < got.ide.nr_sel && i < full->ide.nr_sel; i++) {
		const struct ide_sel_stream *b = ide_sel_block(&got.ide, i);

		RANGED_CHECK(got.ide.sel[i].offset == full->ide.sel[i].offset);
		RANGED_CHECK(!b == !(ranged_want_block(want, i) ||
				     ((parts & CFG_PART_ENABLED) && full->ide.sel[i].regs.enabled)));
		if (b)
			ranged_same_block(b, &full->ide.sel[i], parts & CFG_PART_ADDR);
	}
	if ((parts & (CFG_PART_LAYOUT | CFG_PART_ENABLED)) || ((parts & CFG_PART_SEL) && !want->sel)) {
		last = got.ide.sel_streams;
	} else {
		for (i = 0; i < got.ide.sel_streams; i++)
			if (ranged_want_block(want, i))
				last = i + 1;
	}
	RANGED_CHECK(got.ide.nr_sel <= last);
	if (whole)	/* nothing left to assume: the same blocks are found */
		RANGED_CHECK(got.ide.nr_sel == (full->ide.nr_sel < last ? full->ide.nr_sel : last));
	if (want->parts == CFG_PART_ALL)
		RANGED_CHECK(got.malformed == full->malformed && got.nr_doe == full->nr_doe &&
			     got.doe_offset == full->doe_offset && got.ide.nr_sel == full->ide.nr_sel);
out:
	pci_cfg_release(&got);
}

/* Every plan tsmctl reads with (src/scan.c), and every part, on the same bytes. */
static inline void ranged_check_plans(const uint8_t *buf, size_t len, const struct pci_cfg *full)
{
	static const uint8_t first[IDE_MAX_SEL_BLOCKS / 8] = { 0x01 };
	static const uint8_t some[IDE_MAX_SEL_BLOCKS / 8] = { 0xa4, 0x01 };	/* 2, 5, 7, 8 */
	const unsigned int device = CFG_PART_HEADER | CFG_PART_PCIE | CFG_PART_EXT | CFG_PART_LAYOUT;
	const unsigned int audit = device | CFG_PART_CHAINS | CFG_PART_LINK | CFG_PART_ENABLED;
	const unsigned int streams = CFG_PART_EXT | CFG_PART_SEL | CFG_PART_ADDR;
	const struct cfg_want plans[] = {
		{ streams, first }, { streams, some }, { streams, NULL },
		{ device, NULL }, { audit, NULL },
		{ device | CFG_PART_SEL | CFG_PART_ADDR, some }, { audit | CFG_PART_SEL, some },
		{ CFG_PART_ENABLED | CFG_PART_ADDR | CFG_PART_IDE_CTL, first },
		{ CFG_PART_HEADER, NULL }, { CFG_PART_ALL, NULL },
	};

	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
		ranged_check_plan(buf, len, &plans[i], full);
}

#endif
