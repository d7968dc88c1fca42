/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Invariants of a decoded config space, shared by the decoder fuzz targets.
 * A broken invariant aborts, which libFuzzer reports as a crash with the input.
 */
#ifndef TSMCTL_FUZZ_CFG_CHECK_H
#define TSMCTL_FUZZ_CFG_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/ide.h"

#define CFG_MAL_KNOWN (CFG_MAL_SHORT_HEADER | CFG_MAL_CAP_LOOP | CFG_MAL_CAP_POINTER | \
		       CFG_MAL_CAP_TRUNCATED | CFG_MAL_IDE_BLOCKS | CFG_MAL_ALL_ONES)

#include "fuzz-assert.h"

/* Each read plan on the same bytes, through a reader that does not tell its size. */
#define RANGED_CHECK(cond) FUZZ_ASSERT(cond)
#include "cfg-ranged.h"

/* The region [off, off + n) lies inside the LEN bytes that were decoded. */
static inline int span_in(size_t off, size_t n, size_t len)
{
	return off <= len && n <= len - off;
}

static inline void check_stream_regs(const struct ide_stream_regs *r)
{
	FUZZ_ASSERT(r->enabled == !!(r->ctl & 1u));
	FUZZ_ASSERT(r->stream_id == r->ctl >> 24);
	FUZZ_ASSERT(r->state <= 0xf);
	FUZZ_ASSERT(r->tc <= 7);
	FUZZ_ASSERT(r->algorithm <= 0x1f);
	/* The name helpers must cope with whatever the registers hold. */
	(void)ide_state_name(r->state);
	(void)ide_algorithm_name(r->algorithm);
}

static inline void check_cfg(const struct pci_cfg *cfg, size_t input_len)
{
	const struct ide_cap *ide = &cfg->ide;
	size_t len = cfg->len;

	FUZZ_ASSERT(len == (input_len < PCI_CFG_EXP_SIZE ? input_len : PCI_CFG_EXP_SIZE));
	FUZZ_ASSERT(!(cfg->malformed & ~CFG_MAL_KNOWN));
	FUZZ_ASSERT(cfg->ext_readable == (len >= PCI_CFG_EXP_SIZE));
	(void)pcie_type_name(cfg->pcie_type);

	if (!cfg->header_valid) {
		/* Nothing past an unusable header may be decoded. */
		FUZZ_ASSERT(cfg->pcie_type == PCIE_TYPE_NONE);
		FUZZ_ASSERT(!ide->present && !ide->sel && !ide->nr_sel && !ide->nr_link);
		FUZZ_ASSERT(!cfg->nr_doe && !cfg->doe_offset);
		FUZZ_ASSERT(cfg->malformed & (CFG_MAL_SHORT_HEADER | CFG_MAL_ALL_ONES));
		return;
	}
	FUZZ_ASSERT(len >= PCI_CFG_HDR_SIZE);
	FUZZ_ASSERT(cfg->pcie_type == PCIE_TYPE_NONE || (cfg->pcie_type >= 0 && cfg->pcie_type <= 0xf));
	FUZZ_ASSERT(cfg->tee_io == !!(cfg->devcap & PCI_EXP_DEVCAP_TEE));

	if (cfg->nr_doe) {
		FUZZ_ASSERT(cfg->doe_offset >= 0x100 && cfg->doe_offset % 4 == 0);
		FUZZ_ASSERT(span_in(cfg->doe_offset, 4, len));
		/* Each DOE header is a distinct dword of the extended space. */
		FUZZ_ASSERT(cfg->nr_doe <= (PCI_CFG_EXP_SIZE - 0x100) / 4);
	} else {
		FUZZ_ASSERT(!cfg->doe_offset);
	}

	if (!ide->present) {
		FUZZ_ASSERT(!ide->sel && !ide->nr_sel && !ide->nr_link);
		return;
	}
	FUZZ_ASSERT(ide->offset >= 0x100 && ide->offset % 4 == 0);
	FUZZ_ASSERT(span_in(ide->offset, 4, len));
	if (ide->cap)
		FUZZ_ASSERT(span_in(ide->offset + 4u, 4, len));
	FUZZ_ASSERT(ide->link_tcs <= IDE_MAX_LINK_BLOCKS);
	FUZZ_ASSERT(ide->link_tcs == 0 || ide->link_ide);
	FUZZ_ASSERT(ide->sel_streams <= 256);
	FUZZ_ASSERT(ide->sel_streams == 0 || ide->selective_ide);
	FUZZ_ASSERT(ide->nr_link <= ide->link_tcs);
	FUZZ_ASSERT(ide->nr_sel <= ide->sel_streams);
	FUZZ_ASSERT(!ide->nr_sel == !ide->sel);
	if (ide->nr_link || ide->nr_sel)
		FUZZ_ASSERT(span_in(ide->offset, 12, len));
	/* Selective blocks are only reachable past every Link block. */
	FUZZ_ASSERT(!ide->nr_sel || ide->nr_link == ide->link_tcs);

	for (unsigned int i = 0; i < ide->nr_link; i++) {
		const struct ide_link_stream *l = &ide->link[i];

		FUZZ_ASSERT(l->offset == ide->offset + 12u + 8u * i);
		FUZZ_ASSERT(span_in(l->offset, 8, len));
		check_stream_regs(&l->regs);
	}

	size_t next = ide->offset + 12u + 8u * ide->nr_link, pool_used = 0;

	for (unsigned int i = 0; i < ide->nr_sel; i++) {
		const struct ide_sel_stream *s = ide_sel_block(ide, i);
		size_t size;

		FUZZ_ASSERT(s == &ide->sel[i]);
		FUZZ_ASSERT(s->nr_addr <= IDE_MAX_ADDR_ASSOC);
		FUZZ_ASSERT(s->nr_addr == (s->cap & 0xf));
		size = 20 + 12 * (size_t)s->nr_addr;
		/* Blocks follow each other, each sized by its own count (ABI.md §3). */
		FUZZ_ASSERT(s->offset == next);
		FUZZ_ASSERT(span_in(s->offset, size, len));
		next += size;
		check_stream_regs(&s->regs);
		FUZZ_ASSERT(s->rid_valid == !!(s->rid2 & 1u));
		/* the associations sit in the capability's pool, one block after the other */
		FUZZ_ASSERT(!s->nr_addr || (s->addr == ide->addr_pool + pool_used));
		pool_used += s->nr_addr;
		for (unsigned int a = 0; a < s->nr_addr; a++)
			FUZZ_ASSERT((s->addr[a].limit & 0xfffff) == 0xfffff);
		FUZZ_ASSERT(!s->linux_skips || i > 0);
		FUZZ_ASSERT(i == 0 || !ide->sel[i - 1].linux_skips || s->linux_skips);
	}
	FUZZ_ASSERT(ide_sel_block(ide, ide->nr_sel) == NULL);
	FUZZ_ASSERT(ide_sel_block(NULL, 0) == NULL);
}

/*
 * Decode BUF twice: same result (no hidden state), invariants hold, release
 * is clean; every read plan agrees with it and reads no byte twice.
 */
static inline void decode_and_check(const uint8_t *buf, size_t len)
{
	struct pci_cfg a, b;

	if (pci_cfg_decode(buf, len, &a))
		return;
	check_cfg(&a, len);
	ranged_check_plans(buf, len, &a);
	if (!pci_cfg_decode(buf, len, &b)) {
		FUZZ_ASSERT(a.ide.nr_sel == b.ide.nr_sel);
		for (unsigned int i = 0; i < a.ide.nr_sel; i++) {
			struct ide_sel_stream x = a.ide.sel[i], y = b.ide.sel[i];

			/* each decode's blocks point into its own pool, at the same place */
			FUZZ_ASSERT(!x.nr_addr || x.addr - a.ide.addr_pool == y.addr - b.ide.addr_pool);
			FUZZ_ASSERT(!x.nr_addr ||
				    !memcmp(x.addr, y.addr, x.nr_addr * sizeof(*x.addr)));
			x.addr = y.addr = NULL;
			FUZZ_ASSERT(!memcmp(&x, &y, sizeof(x)));
		}
		struct ide_sel_stream *own = b.ide.sel;
		struct ide_addr_assoc *own_pool = b.ide.addr_pool;
		struct ide_link_stream *own_link = b.ide.link;

		FUZZ_ASSERT(a.ide.nr_link == b.ide.nr_link);
		FUZZ_ASSERT(!a.ide.nr_link ||
			    !memcmp(a.ide.link, b.ide.link, a.ide.nr_link * sizeof(*a.ide.link)));
		b.ide.sel = a.ide.sel;
		b.ide.addr_pool = a.ide.addr_pool;
		b.ide.link = a.ide.link;
		FUZZ_ASSERT(!memcmp(&a, &b, sizeof(a)));
		b.ide.sel = own;
		b.ide.addr_pool = own_pool;
		b.ide.link = own_link;
		pci_cfg_release(&b);
	}
	pci_cfg_release(&a);
	FUZZ_ASSERT(!a.ide.sel && !a.ide.nr_sel && !a.ide.link && !a.ide.nr_link);
	pci_cfg_release(NULL);
}

#endif
