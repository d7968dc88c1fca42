// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/ide.c: config spaces are built by hand, decoded, and
 * every field compared. Self-contained: prints one line per failed check and
 * ends with "N passed, N failed"; exits non-zero if anything failed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/ide.h"

/* ---- harness ---------------------------------------------------------- */

static unsigned long passed, failed;
static char test_name[128];

static void set_test(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test_name, sizeof(test_name), fmt, ap);
	va_end(ap);
}

static void check_at(int ok, const char *what, int line)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s (line %d): %s\n", test_name, line, what);
}

static void check_eq_at(uint64_t got, uint64_t want, const char *what, int line)
{
	if (got == want) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s (line %d): %s: got 0x%llx, want 0x%llx\n", test_name, line, what,
	       (unsigned long long)got, (unsigned long long)want);
}

static void check_str_at(const char *got, const char *want, const char *what, int line)
{
	if (got == want || (got && want && !strcmp(got, want))) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s (line %d): %s: got \"%s\", want \"%s\"\n", test_name, line, what,
	       got ? got : "(null)", want ? want : "(null)");
}

#define CHECK(cond)		check_at(!!(cond), #cond, __LINE__)
#define CHECK_EQ(got, want)	check_eq_at((uint64_t)(got), (uint64_t)(want), #got, __LINE__)
#define CHECK_STR(got, want)	check_str_at((got), (want), #got, __LINE__)

/* Every decode below is also run with each read plan through a reader of unknown size. */
#define RANGED_CHECK(cond)	CHECK(cond)
#include "../fuzz/cfg-ranged.h"

/* ---- config space builder ---------------------------------------------- */

#define EXT_CAP_VERSION		1
#define PCIE_CAP_VERSION	2
#define DEVCAP_FLR		0x10000000u
#define STATUS_CAP_LIST		0x0010
#define PCI_EXT_CAP_ID_AER	0x0001	/* a filler ahead of capabilities placed high */
#define DEVSEC_IDE_CAP		0x01006043u	/* devsec rig: Link+Sel, IDE_KM, TEE-limited, 4 TCs, 1 stream */

struct builder {
	uint8_t cfg[PCI_CFG_EXP_SIZE];
	size_t std_link;	/* byte that points at the next standard capability */
	size_t ext_last;	/* last extended capability header, 0 if none yet */
};

/* Writes past 4 KiB are dropped, so a test can describe a capability that runs off the end. */
static void put8(struct builder *b, size_t off, uint8_t v)
{
	if (off < sizeof(b->cfg))
		b->cfg[off] = v;
}

static void put16(struct builder *b, size_t off, uint16_t v)
{
	put8(b, off, (uint8_t)v);
	put8(b, off + 1, (uint8_t)(v >> 8));
}

static void put32(struct builder *b, size_t off, uint32_t v)
{
	put16(b, off, (uint16_t)v);
	put16(b, off + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *buf, size_t off)
{
	return (uint16_t)(buf[off] | buf[off + 1] << 8);
}

static uint32_t get32(const uint8_t *buf, size_t off)
{
	return get16(buf, off) | (uint32_t)get16(buf, off + 2) << 16;
}

static void put_header(struct builder *b, uint16_t vendor, uint16_t device, uint32_t class_code,
		       uint8_t header_type)
{
	memset(b, 0, sizeof(*b));
	put16(b, 0x00, vendor);
	put16(b, 0x02, device);
	put16(b, 0x06, STATUS_CAP_LIST);
	put32(b, 0x08, class_code << 8 | 0x01);	/* revision 1 */
	put8(b, 0x0e, header_type);
	b->std_link = (header_type & 0x7f) == 2 ? 0x14 : 0x34;
}

static void put_std_cap(struct builder *b, size_t off, uint8_t id)
{
	put8(b, off, id);
	put8(b, off + 1, 0);
	put8(b, b->std_link, (uint8_t)off);
	b->std_link = off + 1;
}

static void put_pcie_cap(struct builder *b, size_t off, unsigned int type, uint32_t devcap)
{
	put_std_cap(b, off, 0x10);
	put16(b, off + 2, (uint16_t)(PCIE_CAP_VERSION | type << 4));
	put32(b, off + 4, devcap);
}

/* Appends an extended capability and links the previous one to it. */
static void put_ext_cap(struct builder *b, size_t off, uint16_t id)
{
	put32(b, off, id | EXT_CAP_VERSION << 16);
	if (b->ext_last)
		put32(b, b->ext_last, (get32(b->cfg, b->ext_last) & 0xfffff) | (uint32_t)off << 20);
	b->ext_last = off;
}

/* Overwrites the next pointer of the extended capability at off. */
static void set_ext_next(struct builder *b, size_t off, uint32_t next)
{
	put32(b, off, (get32(b->cfg, off) & 0xfffff) | next << 20);
}

static void put_doe(struct builder *b, size_t off)
{
	put_ext_cap(b, off, PCI_EXT_CAP_ID_DOE);
	put32(b, off + 0x04, 0);	/* DOE capabilities */
	put32(b, off + 0x08, 0);	/* DOE control */
	put32(b, off + 0x0c, 0);	/* DOE status */
}

struct test_link {
	uint32_t ctl, status;
};

struct test_addr {
	uint32_t reg1, reg2, reg3;
};

struct test_sel {
	uint32_t cap, ctl, status, rid1, rid2;
	struct test_addr addr[IDE_MAX_ADDR_ASSOC];
};

/*
 * An IDE capability with exactly nr_link Link and nr_sel Selective blocks
 * (NULL means all-zero registers), whatever the capability register claims.
 * Returns the offset just past the last block.
 */
static size_t put_ide(struct builder *b, size_t off, uint32_t cap, uint32_t ctl,
		      unsigned int nr_link, const struct test_link *link,
		      unsigned int nr_sel, const struct test_sel *sel)
{
	size_t pos = off + 0x0c;
	unsigned int i, j;

	put_ext_cap(b, off, PCI_EXT_CAP_ID_IDE);
	put32(b, off + 4, cap);
	put32(b, off + 8, ctl);
	for (i = 0; i < nr_link; i++, pos += 8) {
		put32(b, pos, link ? link[i].ctl : 0);
		put32(b, pos + 4, link ? link[i].status : 0);
	}
	for (i = 0; i < nr_sel; i++) {
		static const struct test_sel zero;
		const struct test_sel *s = sel ? &sel[i] : &zero;

		put32(b, pos + 0x00, s->cap);
		put32(b, pos + 0x04, s->ctl);
		put32(b, pos + 0x08, s->status);
		put32(b, pos + 0x0c, s->rid1);
		put32(b, pos + 0x10, s->rid2);
		pos += 0x14;
		for (j = 0; j < (s->cap & 0xf); j++, pos += 12) {
			put32(b, pos, s->addr[j].reg1);
			put32(b, pos + 4, s->addr[j].reg2);
			put32(b, pos + 8, s->addr[j].reg3);
		}
	}
	return pos;
}

/* devsec rig endpoint function 0 (ABI.md §4): PCIe at 0x40, DOE at 0x100, IDE at 0x200. */
#define RIG_EP_DOE	0x100
#define RIG_EP_IDE	0x200
#define RIG_EP_IDE_END	(RIG_EP_IDE + 0x0c + 4 * 8 + 20 + 12)

static void build_rig_endpoint(struct builder *b, const struct test_link *link,
			       const struct test_sel *sel)
{
	static const struct test_sel one_addr = { .cap = 1 };

	put_header(b, 0x8086, 0xffff, 0x120000, 0x80);
	put_pcie_cap(b, 0x40, PCIE_TYPE_ENDPOINT, DEVCAP_FLR | PCI_EXP_DEVCAP_TEE);
	put_doe(b, RIG_EP_DOE);
	put_ide(b, RIG_EP_IDE, DEVSEC_IDE_CAP, 0, 4, link, 1, sel ? sel : &one_addr);
}

static int decode(const struct builder *b, size_t len, struct pci_cfg *cfg)
{
	int ret = pci_cfg_decode(b->cfg, len, cfg);

	if (!ret)
		ranged_check_plans(b->cfg, len, cfg);
	return ret;
}

/* ---- invariants every decode must satisfy, checked against the raw bytes ---- */

static void check_stream_regs(const uint8_t *buf, size_t off, const struct ide_stream_regs *r)
{
	uint32_t ctl = get32(buf, off), status = get32(buf, off + 4);

	CHECK_EQ(r->ctl, ctl);
	CHECK_EQ(r->status, status);
	CHECK_EQ(r->enabled, ctl & 1);
	CHECK_EQ(r->pcrc, (ctl >> 8) & 1);
	CHECK_EQ(r->algorithm, (ctl >> 14) & 0x1f);
	CHECK_EQ(r->tc, (ctl >> 19) & 7);
	CHECK_EQ(r->stream_id, ctl >> 24);
	CHECK_EQ(r->state, status & 0xf);
	CHECK_EQ(r->ide_fail, status >> 31);
}

static void check_sel_invariants(const uint8_t *buf, size_t have, const struct ide_cap *ide)
{
	size_t pos = ide->offset + 0x0c + 8u * ide->nr_link;
	unsigned int i, j;

	CHECK(ide->nr_sel <= ide->sel_streams);
	CHECK_EQ(ide->nr_sel == 0, ide->sel == NULL);
	CHECK(ide_sel_block(ide, ide->nr_sel) == NULL);
	if (ide->nr_sel)
		CHECK_EQ(ide->nr_link, ide->link_tcs);
	for (i = 0; i < ide->nr_sel; i++) {
		const struct ide_sel_stream *s = &ide->sel[i];
		size_t size = 20 + 12u * s->nr_addr;

		CHECK(ide_sel_block(ide, i) == s);
		CHECK_EQ(s->offset, pos);
		CHECK(s->offset + size <= have);
		if (s->offset + size > have)
			return;	/* reading the raw bytes below would overrun */
		CHECK_EQ(s->cap, get32(buf, pos));
		CHECK_EQ(s->nr_addr, s->cap & 0xf);
		check_stream_regs(buf, pos + 4, &s->regs);
		CHECK_EQ(s->cfg_requests, (s->regs.ctl >> 9) & 1);
		CHECK_EQ(s->default_stream, (s->regs.ctl >> 22) & 1);
		CHECK_EQ(s->tee_limited, (s->regs.ctl >> 23) & 1);
		CHECK_EQ(s->rid1, get32(buf, pos + 0x0c));
		CHECK_EQ(s->rid2, get32(buf, pos + 0x10));
		CHECK_EQ(s->rid_valid, s->rid2 & 1);
		CHECK_EQ(s->rid_base, (s->rid2 >> 8) & 0xffff);
		CHECK_EQ(s->rid_limit, (s->rid1 >> 8) & 0xffff);
		CHECK_EQ(s->rid_segment, s->rid2 >> 24);
		for (j = 0; j < s->nr_addr; j++) {
			size_t a = pos + 0x14 + 12u * j;
			uint32_t r1 = get32(buf, a);

			CHECK_EQ(s->addr[j].valid, r1 & 1);
			CHECK_EQ(s->addr[j].base,
				 (uint64_t)get32(buf, a + 8) << 32 | (uint64_t)((r1 >> 8) & 0xfff) << 20);
			CHECK_EQ(s->addr[j].limit,
				 (uint64_t)get32(buf, a + 4) << 32 | (uint64_t)(r1 >> 20) << 20 | 0xfffff);
		}
		if (i == 0)
			CHECK(!s->linux_skips);
		else
			CHECK_EQ(s->linux_skips,
				 ide->sel[i - 1].linux_skips || s->nr_addr != ide->sel[0].nr_addr);
		pos += size;
	}
}

static void check_ide_invariants(const uint8_t *buf, size_t have, const struct ide_cap *ide)
{
	unsigned int i;

	if (!ide->present) {
		CHECK_EQ(ide->nr_link, 0);
		CHECK_EQ(ide->nr_sel, 0);
		CHECK(ide->sel == NULL);
		return;
	}
	CHECK(ide->offset >= 0x100);
	CHECK_EQ(ide->offset % 4, 0);
	CHECK(ide->offset + 4u <= have);
	if (ide->offset + 4u > have)
		return;
	CHECK_EQ(get32(buf, ide->offset) & 0xffff, PCI_EXT_CAP_ID_IDE);
	CHECK_EQ(ide->cap, ide->offset + 8u <= have ? get32(buf, ide->offset + 4) : 0);
	CHECK_EQ(ide->ctl, ide->offset + 12u <= have ? get32(buf, ide->offset + 8) : 0);
	CHECK_EQ(ide->link_tcs, (ide->cap & 1) ? ((ide->cap >> 13) & 7) + 1 : 0);
	CHECK_EQ(ide->sel_streams, (ide->cap & 2) ? ((ide->cap >> 16) & 0xff) + 1 : 0);
	CHECK(ide->nr_link <= ide->link_tcs);
	CHECK(ide->nr_link <= IDE_MAX_LINK_BLOCKS);
	for (i = 0; i < ide->nr_link && i < IDE_MAX_LINK_BLOCKS; i++) {
		size_t off = ide->offset + 0x0c + 8u * i;

		CHECK_EQ(ide->link[i].offset, off);
		CHECK(off + 8 <= have);
		if (off + 8 <= have)
			check_stream_regs(buf, off, &ide->link[i].regs);
	}
	check_sel_invariants(buf, have, ide);
}

static void check_invariants(const uint8_t *buf, size_t len, const struct pci_cfg *cfg)
{
	size_t have = len < PCI_CFG_EXP_SIZE ? len : PCI_CFG_EXP_SIZE;

	CHECK_EQ(cfg->len, have);
	CHECK_EQ(cfg->ext_readable, have >= PCI_CFG_EXP_SIZE);
	CHECK_EQ(cfg->malformed & ~0x3fu, 0);
	if (!cfg->header_valid) {
		CHECK(cfg->malformed & (CFG_MAL_SHORT_HEADER | CFG_MAL_ALL_ONES));
		CHECK_EQ(cfg->pcie_type, PCIE_TYPE_NONE);
		CHECK_EQ(cfg->nr_doe, 0);
		CHECK(!cfg->ide.present);
		CHECK(cfg->ide.sel == NULL);
		return;
	}
	CHECK(have >= PCI_CFG_HDR_SIZE);
	CHECK_EQ(cfg->vendor_id, get16(buf, 0));
	CHECK_EQ(cfg->device_id, get16(buf, 2));
	CHECK_EQ(cfg->class_code, get32(buf, 8) >> 8);
	CHECK_EQ(cfg->header_type, buf[0x0e] & 0x7f);
	CHECK_EQ(cfg->multifunction, buf[0x0e] >> 7);
	CHECK_EQ(cfg->tee_io, (cfg->devcap >> 30) & 1);
	if (cfg->pcie_type == PCIE_TYPE_NONE)
		CHECK_EQ(cfg->devcap, 0);
	else
		CHECK(cfg->pcie_type >= 0 && cfg->pcie_type <= 0xf);
	if (have == PCI_CFG_HDR_SIZE) {
		CHECK_EQ(cfg->malformed, 0);
		CHECK_EQ(cfg->pcie_type, PCIE_TYPE_NONE);
	}
	if (have <= PCI_CFG_SIZE) {
		CHECK_EQ(cfg->nr_doe, 0);
		CHECK(!cfg->ide.present);
	}
	CHECK_EQ(cfg->nr_doe == 0, cfg->doe_offset == 0);
	if (cfg->nr_doe) {
		CHECK(cfg->doe_offset >= 0x100 && cfg->doe_offset % 4 == 0);
		CHECK(cfg->doe_offset + 4u <= have);
		if (cfg->doe_offset + 4u <= have)
			CHECK_EQ(get32(buf, cfg->doe_offset) & 0xffff, PCI_EXT_CAP_ID_DOE);
	}
	check_ide_invariants(buf, have, &cfg->ide);
}

/* ---- tests ------------------------------------------------------------- */

static void test_names(void)
{
	static const struct { int type; const char *name; } types[] = {
		{ PCIE_TYPE_ENDPOINT, "endpoint" },
		{ PCIE_TYPE_LEG_ENDPOINT, "legacy_endpoint" },
		{ PCIE_TYPE_ROOT_PORT, "root_port" },
		{ PCIE_TYPE_UPSTREAM, "upstream_port" },
		{ PCIE_TYPE_DOWNSTREAM, "downstream_port" },
		{ PCIE_TYPE_PCIE_BRIDGE, "pcie_pci_bridge" },
		{ PCIE_TYPE_PCI_BRIDGE, "pci_pcie_bridge" },
		{ PCIE_TYPE_RC_ENDPOINT, "rc_endpoint" },
		{ PCIE_TYPE_RC_EC, "rc_event_collector" },
		{ PCIE_TYPE_NONE, NULL }, { 2, NULL }, { 3, NULL }, { 0xb, NULL },
		{ 0xf, NULL }, { 0x10, NULL }, { -2, NULL },
	};
	size_t i;

	set_test("names");
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		CHECK_STR(pcie_type_name(types[i].type), types[i].name);
	CHECK_STR(ide_state_name(0), "insecure");
	CHECK_STR(ide_state_name(1), NULL);
	CHECK_STR(ide_state_name(2), "secure");
	CHECK_STR(ide_state_name(3), NULL);
	CHECK_STR(ide_state_name(0xf), NULL);
	CHECK_STR(ide_state_name(0x12), NULL);
	CHECK_STR(ide_algorithm_name(0), "aes-gcm-256-96b");
	CHECK_STR(ide_algorithm_name(1), NULL);
	CHECK_STR(ide_algorithm_name(0x1f), NULL);
}

/* The devsec rig's capability register, on an idle (never programmed) endpoint. */
static void test_rig_endpoint(void)
{
	static struct builder b;
	struct pci_cfg cfg;
	const struct ide_cap *ide = &cfg.ide;
	unsigned int i;

	set_test("rig endpoint");
	build_rig_endpoint(&b, NULL, NULL);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.len, 4096);
	CHECK(cfg.header_valid);
	CHECK_EQ(cfg.vendor_id, 0x8086);
	CHECK_EQ(cfg.device_id, 0xffff);
	CHECK_EQ(cfg.class_code, 0x120000);
	CHECK_EQ(cfg.header_type, 0);
	CHECK(cfg.multifunction);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_ENDPOINT);
	CHECK_STR(pcie_type_name(cfg.pcie_type), "endpoint");
	CHECK_EQ(cfg.devcap, DEVCAP_FLR | PCI_EXP_DEVCAP_TEE);
	CHECK(cfg.tee_io);
	CHECK(cfg.ext_readable);
	CHECK_EQ(cfg.nr_doe, 1);
	CHECK_EQ(cfg.doe_offset, RIG_EP_DOE);
	CHECK_EQ(cfg.malformed, 0);

	CHECK(ide->present);
	CHECK_EQ(ide->offset, RIG_EP_IDE);
	CHECK_EQ(ide->cap, DEVSEC_IDE_CAP);
	CHECK_EQ(ide->ctl, 0);
	CHECK(ide->link_ide);
	CHECK(ide->selective_ide);
	CHECK(!ide->flow_through);
	CHECK(!ide->partial_header);
	CHECK(!ide->aggregation);
	CHECK(!ide->pcrc);
	CHECK(ide->ide_km);
	CHECK(!ide->sel_cfg);
	CHECK(ide->tee_limited);
	CHECK(!ide->xt);
	CHECK_EQ(ide->algorithms, 0);
	CHECK_EQ(ide->link_tcs, 4);
	CHECK_EQ(ide->sel_streams, 1);
	CHECK_EQ(ide->nr_link, 4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(ide->link[i].offset, RIG_EP_IDE + 0x0c + 8 * i);
		CHECK(!ide->link[i].regs.enabled);
		CHECK_EQ(ide->link[i].regs.state, IDE_STATE_INSECURE);
	}
	CHECK_EQ(ide->nr_sel, 1);
	CHECK(ide->sel != NULL);
	if (ide->nr_sel == 1) {
		CHECK_EQ(ide->sel[0].offset, RIG_EP_IDE + 0x0c + 4 * 8);
		CHECK_EQ(ide->sel[0].cap, 1);
		CHECK_EQ(ide->sel[0].nr_addr, 1);
		CHECK(!ide->sel[0].linux_skips);
		CHECK(!ide->sel[0].regs.enabled);
		CHECK(!ide->sel[0].rid_valid);
		CHECK(!ide->sel[0].addr[0].valid);
		CHECK_EQ(ide->sel[0].addr[0].base, 0);
		CHECK_EQ(ide->sel[0].addr[0].limit, 0xfffff);
	}
	CHECK(ide_sel_block(ide, 0) == ide->sel);
	CHECK(ide_sel_block(ide, 1) == NULL);
	CHECK(ide_sel_block(NULL, 0) == NULL);
	check_invariants(b.cfg, sizeof(b.cfg), &cfg);
	pci_cfg_release(&cfg);
}

/* The rig's root port: type 1 header, IDE straight at 0x100, no DOE. */
static void test_rig_root_port(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("rig root port");
	put_header(&b, 0x8086, 0x7075, 0x060400, 0x01);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_ROOT_PORT, 0);
	put_ide(&b, 0x100, DEVSEC_IDE_CAP, 0, 4, NULL, 1, &(struct test_sel){ .cap = 1 });
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.header_type, 1);
	CHECK(!cfg.multifunction);
	CHECK_EQ(cfg.class_code, 0x060400);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_ROOT_PORT);
	CHECK_STR(pcie_type_name(cfg.pcie_type), "root_port");
	CHECK(!cfg.tee_io);
	CHECK_EQ(cfg.nr_doe, 0);
	CHECK_EQ(cfg.doe_offset, 0);
	CHECK(cfg.ide.present);
	CHECK_EQ(cfg.ide.offset, 0x100);
	CHECK_EQ(cfg.ide.nr_link, 4);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	if (cfg.ide.nr_sel)
		CHECK_EQ(cfg.ide.sel[0].offset, 0x100 + 0x0c + 32);
	CHECK_EQ(cfg.malformed, 0);
	check_invariants(b.cfg, sizeof(b.cfg), &cfg);
	pci_cfg_release(&cfg);
}

/* Every capability register bit on its own, and the counts at their maximum. */
static void test_cap_bits(void)
{
	static const struct { uint32_t bit; size_t field; } bits[] = {
		{ 1u << 2, offsetof(struct ide_cap, flow_through) },
		{ 1u << 3, offsetof(struct ide_cap, partial_header) },
		{ 1u << 4, offsetof(struct ide_cap, aggregation) },
		{ 1u << 5, offsetof(struct ide_cap, pcrc) },
		{ 1u << 6, offsetof(struct ide_cap, ide_km) },
		{ 1u << 7, offsetof(struct ide_cap, sel_cfg) },
		{ 1u << 24, offsetof(struct ide_cap, tee_limited) },
		{ 1u << 25, offsetof(struct ide_cap, xt) },
	};
	static struct builder b;
	struct pci_cfg cfg;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		set_test("cap bit 0x%08x", bits[i].bit);
		put_header(&b, 0x1234, 0x5678, 0, 0);
		put_ide(&b, 0x100, bits[i].bit, 0, 0, NULL, 0, NULL);
		CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
		CHECK(*(const bool *)((const char *)&cfg.ide + bits[i].field));
		CHECK(!cfg.ide.link_ide);
		CHECK(!cfg.ide.selective_ide);
		CHECK_EQ(cfg.ide.link_tcs, 0);
		CHECK_EQ(cfg.ide.sel_streams, 0);
		CHECK_EQ(cfg.malformed, 0);
		pci_cfg_release(&cfg);
	}

	set_test("cap algorithm field");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ide(&b, 0x100, 0x1f00, 0, 0, NULL, 0, NULL);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.algorithms, 0x1f);
	CHECK_STR(ide_algorithm_name(cfg.ide.algorithms), NULL);
	pci_cfg_release(&cfg);

	set_test("cap max counts");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ide(&b, 0x100, 0x00ffe003, 0, 8, NULL, 256, NULL);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.link_tcs, 8);
	CHECK_EQ(cfg.ide.sel_streams, 256);
	CHECK_EQ(cfg.ide.nr_link, 8);
	/* 0x10c + 64 = 0x14c; 20-byte blocks up to 4096: (4096 - 0x14c) / 20 = 188 */
	CHECK_EQ(cfg.ide.nr_sel, 188);
	CHECK_EQ(cfg.malformed, CFG_MAL_IDE_BLOCKS);
	check_invariants(b.cfg, sizeof(b.cfg), &cfg);
	pci_cfg_release(&cfg);
}

/* A stream the kernel programmed: every control, status, RID and address field. */
static void test_programmed_stream(void)
{
	static struct builder b;
	const struct test_link link[4] = {
		[1] = { .ctl = 1 | 1u << 8 | 5u << 19 | 7u << 24, .status = IDE_STATE_SECURE },
	};
	const struct test_sel sel = {
		.cap = 2,
		.ctl = 1u << 0 | 1u << 8 | 1u << 9 | 3u << 19 | 1u << 22 | 1u << 23 | 0x2au << 24,
		.status = IDE_STATE_SECURE,
		.rid1 = 0x01ffu << 8,
		.rid2 = 1u | 0x0100u << 8 | 0x5au << 24,
		.addr = {
			{ .reg1 = 1 | 0x123u << 8 | 0x456u << 20, .reg2 = 0x1, .reg3 = 0x1 },
			{ .reg1 = 0xfff00u, .reg2 = 0xffffffffu, .reg3 = 0x80000000u },
		},
	};
	struct pci_cfg cfg;
	const struct ide_sel_stream *s;
	const struct ide_stream_regs *l;

	set_test("programmed stream");
	put_header(&b, 0x8086, 0xffff, 0x120000, 0x80);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_ENDPOINT, PCI_EXP_DEVCAP_TEE);
	put_ide(&b, 0x100, DEVSEC_IDE_CAP, 1u << 2, 4, link, 1, &sel);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.malformed, 0);
	CHECK_EQ(cfg.ide.ctl, 1u << 2);
	l = &cfg.ide.link[1].regs;
	CHECK(l->enabled);
	CHECK(l->pcrc);
	CHECK_EQ(l->tc, 5);
	CHECK_EQ(l->stream_id, 7);
	CHECK_EQ(l->algorithm, 0);
	CHECK_EQ(l->state, IDE_STATE_SECURE);
	CHECK(!l->ide_fail);
	CHECK(!cfg.ide.link[0].regs.enabled);
	s = ide_sel_block(&cfg.ide, 0);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ(s->offset, 0x100 + 0x0c + 32);
		CHECK_EQ(s->cap, 2);
		CHECK_EQ(s->nr_addr, 2);
		CHECK(!s->linux_skips);
		CHECK_EQ(s->regs.ctl, sel.ctl);
		CHECK(s->regs.enabled);
		CHECK(s->regs.pcrc);
		CHECK(s->cfg_requests);
		CHECK_EQ(s->regs.tc, 3);
		CHECK(s->default_stream);
		CHECK(s->tee_limited);
		CHECK_EQ(s->regs.stream_id, 0x2a);
		CHECK_EQ(s->regs.algorithm, 0);
		CHECK_EQ(s->regs.state, IDE_STATE_SECURE);
		CHECK_STR(ide_state_name(s->regs.state), "secure");
		CHECK(!s->regs.ide_fail);
		CHECK_EQ(s->rid1, sel.rid1);
		CHECK_EQ(s->rid2, sel.rid2);
		CHECK(s->rid_valid);
		CHECK_EQ(s->rid_base, 0x0100);
		CHECK_EQ(s->rid_limit, 0x01ff);
		CHECK_EQ(s->rid_segment, 0x5a);
		CHECK(s->addr[0].valid);
		CHECK_EQ(s->addr[0].base, 0x112300000ull);
		CHECK_EQ(s->addr[0].limit, 0x1456fffffull);
		CHECK(!s->addr[1].valid);
		CHECK_EQ(s->addr[1].base, 0x80000000fff00000ull);
		CHECK_EQ(s->addr[1].limit, 0xffffffff000fffffull);
	}
	check_invariants(b.cfg, sizeof(b.cfg), &cfg);
	pci_cfg_release(&cfg);

	set_test("unprogrammed fields clear");
	{
		const struct test_sel other = { .cap = 0, .ctl = 0x1fu << 14, .rid2 = 0xfffffefeu };

		put_header(&b, 0x8086, 0xffff, 0x120000, 0);
		put_ide(&b, 0x100, 0x00000002, 0, 0, NULL, 1, &other);
		CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
		s = ide_sel_block(&cfg.ide, 0);
		CHECK(s != NULL);
		if (s) {
			CHECK_EQ(s->offset, 0x10c);
			CHECK_EQ(s->nr_addr, 0);
			CHECK(!s->regs.enabled);
			CHECK(!s->cfg_requests);
			CHECK(!s->default_stream);
			CHECK(!s->tee_limited);
			CHECK_EQ(s->regs.algorithm, 0x1f);
			CHECK(!s->rid_valid);
			CHECK_EQ(s->rid_base, 0xfffe);
			CHECK_EQ(s->rid_segment, 0xff);
		}
		pci_cfg_release(&cfg);
	}
}

static void test_ide_fail_and_states(void)
{
	static struct builder b;
	struct test_sel sel[1] = { { .cap = 1 } };
	struct test_link link[4] = { { 0 } };
	struct pci_cfg cfg;
	unsigned int state;

	set_test("IDE_FAIL");
	sel[0].status = 1u << 31 | IDE_STATE_SECURE;
	link[3].status = 1u << 31;
	build_rig_endpoint(&b, link, sel);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(cfg.ide.nr_sel == 1 && cfg.ide.sel[0].regs.ide_fail);
	CHECK(cfg.ide.nr_sel == 1 && cfg.ide.sel[0].regs.state == IDE_STATE_SECURE);
	CHECK(cfg.ide.link[3].regs.ide_fail);
	CHECK_EQ(cfg.ide.link[3].regs.state, IDE_STATE_INSECURE);
	CHECK(!cfg.ide.link[2].regs.ide_fail);
	pci_cfg_release(&cfg);

	/* reserved values are reported raw, and have no name */
	for (state = 0; state < 16; state++) {
		set_test("state %u", state);
		sel[0].status = 0xfffffff0u | state;
		link[0].status = state;
		build_rig_endpoint(&b, link, sel);
		CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
		CHECK(cfg.ide.nr_sel == 1 && cfg.ide.sel[0].regs.state == state);
		CHECK(cfg.ide.nr_sel == 1 && cfg.ide.sel[0].regs.ide_fail);
		CHECK_EQ(cfg.ide.link[0].regs.state, state);
		CHECK_STR(ide_state_name(state),
			  state == 0 ? "insecure" : state == 2 ? "secure" : NULL);
		pci_cfg_release(&cfg);
	}
}

/* Blocks sized by their own counts; Linux stops using them at the first mismatch. */
static void test_linux_skips(void)
{
	static struct builder b;
	struct test_sel sel[4] = {
		{ .cap = 1 },
		{ .cap = 2, .addr = { [1] = { .reg1 = 1 | 0x001u << 8 | 0x002u << 20 } } },
		{ .cap = 1, .ctl = 9u << 24 },
		{ .cap = 0, .ctl = 10u << 24 },
	};
	struct pci_cfg cfg;
	size_t start = 0x100 + 0x0c;

	set_test("linux_skips 1,2,1,0");
	put_header(&b, 0x8086, 0xffff, 0x120000, 0);
	put_ide(&b, 0x100, 0x00030002, 0, 0, NULL, 4, sel);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.malformed, 0);
	CHECK_EQ(cfg.ide.sel_streams, 4);
	CHECK_EQ(cfg.ide.nr_sel, 4);
	if (cfg.ide.nr_sel == 4) {
		CHECK_EQ(cfg.ide.sel[0].offset, start);
		CHECK_EQ(cfg.ide.sel[1].offset, start + 32);
		CHECK_EQ(cfg.ide.sel[2].offset, start + 32 + 44);
		CHECK_EQ(cfg.ide.sel[3].offset, start + 32 + 44 + 32);
		CHECK(!cfg.ide.sel[0].linux_skips);
		CHECK(cfg.ide.sel[1].linux_skips);
		CHECK(cfg.ide.sel[2].linux_skips);	/* same count as block 0, but after a skip */
		CHECK(cfg.ide.sel[3].linux_skips);
		CHECK_EQ(cfg.ide.sel[1].nr_addr, 2);
		CHECK(cfg.ide.sel[1].addr[1].valid);
		CHECK_EQ(cfg.ide.sel[1].addr[1].base, 0x00100000);
		CHECK_EQ(cfg.ide.sel[1].addr[1].limit, 0x002fffff);
		CHECK_EQ(cfg.ide.sel[2].regs.stream_id, 9);
		CHECK_EQ(cfg.ide.sel[3].regs.stream_id, 10);
	}
	check_invariants(b.cfg, sizeof(b.cfg), &cfg);
	pci_cfg_release(&cfg);

	set_test("linux_skips uniform");
	sel[1].cap = sel[2].cap = sel[3].cap = 1;
	put_header(&b, 0x8086, 0xffff, 0x120000, 0);
	put_ide(&b, 0x100, 0x00030002, 0, 0, NULL, 4, sel);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.nr_sel, 4);
	for (unsigned int i = 0; i < cfg.ide.nr_sel; i++) {
		CHECK(!cfg.ide.sel[i].linux_skips);
		CHECK_EQ(cfg.ide.sel[i].offset, start + 32 * i);
	}
	pci_cfg_release(&cfg);

	set_test("linux_skips late mismatch");
	sel[3].cap = 15;
	put_header(&b, 0x8086, 0xffff, 0x120000, 0);
	put_ide(&b, 0x100, 0x00030002, 0, 0, NULL, 4, sel);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.nr_sel, 4);
	if (cfg.ide.nr_sel == 4) {
		CHECK(!cfg.ide.sel[2].linux_skips);
		CHECK(cfg.ide.sel[3].linux_skips);
		CHECK_EQ(cfg.ide.sel[3].nr_addr, 15);
	}
	check_invariants(b.cfg, sizeof(b.cfg), &cfg);
	pci_cfg_release(&cfg);
}

/* Counts mean nothing without their feature bit. */
static void test_feature_bits_gate_counts(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("no Link IDE");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ide(&b, 0x100, 0x0000e002, 0, 0, NULL, 1, &(struct test_sel){ .cap = 0, .ctl = 3u << 24 });
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(!cfg.ide.link_ide);
	CHECK_EQ(cfg.ide.link_tcs, 0);
	CHECK_EQ(cfg.ide.nr_link, 0);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	if (cfg.ide.nr_sel) {
		CHECK_EQ(cfg.ide.sel[0].offset, 0x10c);
		CHECK_EQ(cfg.ide.sel[0].regs.stream_id, 3);
	}
	pci_cfg_release(&cfg);

	set_test("no Selective IDE");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ide(&b, 0x100, 0x00ff0001, 0, 1, NULL, 4, NULL);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(!cfg.ide.selective_ide);
	CHECK_EQ(cfg.ide.sel_streams, 0);
	CHECK_EQ(cfg.ide.link_tcs, 1);
	CHECK_EQ(cfg.ide.nr_link, 1);
	CHECK_EQ(cfg.ide.nr_sel, 0);
	CHECK(cfg.ide.sel == NULL);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);
}

static void test_header_variants(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("cardbus capability pointer");
	put_header(&b, 0x104c, 0xac56, 0x060700, 0x02);
	put_pcie_cap(&b, 0x80, PCIE_TYPE_LEG_ENDPOINT, PCI_EXP_DEVCAP_TEE);
	CHECK_EQ(b.cfg[0x14], 0x80);
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.header_type, 2);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_LEG_ENDPOINT);
	CHECK(cfg.tee_io);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("unknown header layout has no capabilities");
	put_header(&b, 0x1234, 0x5678, 0, 0x03);
	b.cfg[0x34] = 0x40;
	put_pcie_cap(&b, 0x40, PCIE_TYPE_ENDPOINT, 0);
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	pci_cfg_release(&cfg);

	set_test("status without capability list");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_ENDPOINT, 0);
	put16(&b, 0x06, 0);
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("PCIe cap after others, pointer low bits masked");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0x50, 0x01);	/* power management */
	put_std_cap(&b, 0x60, 0x05);	/* MSI */
	put_pcie_cap(&b, 0x70, PCIE_TYPE_RC_EC, 0);
	b.cfg[0x61] = 0x73;
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_RC_EC);
	CHECK_STR(pcie_type_name(cfg.pcie_type), "rc_event_collector");
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("capability ID 0xff ends the list");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0x50, 0xff);
	put_pcie_cap(&b, 0x70, PCIE_TYPE_ENDPOINT, 0);
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("two DOE mailboxes");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_UPSTREAM, 0);
	put_ext_cap(&b, 0x100, PCI_EXT_CAP_ID_AER);
	put_doe(&b, 0x148);
	put_doe(&b, 0x160);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.nr_doe, 2);
	CHECK_EQ(cfg.doe_offset, 0x148);
	CHECK(!cfg.ide.present);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("empty extended space");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_DOWNSTREAM, 0);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_DOWNSTREAM);
	CHECK(cfg.ext_readable);
	CHECK_EQ(cfg.nr_doe, 0);
	CHECK(!cfg.ide.present);
	CHECK_EQ(cfg.malformed, 0);
	memset(b.cfg + 0x100, 0xff, 0xf00);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.malformed, 0);
	CHECK(!cfg.ide.present);
	pci_cfg_release(&cfg);

	set_test("second IDE capability ignored");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ide(&b, 0x100, 0x00000001, 0, 1, NULL, 0, NULL);
	put_ide(&b, 0x200, 0x00000002, 0, 0, NULL, 1, NULL);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.offset, 0x100);
	CHECK_EQ(cfg.ide.nr_link, 1);
	CHECK_EQ(cfg.ide.nr_sel, 0);
	pci_cfg_release(&cfg);
}

/* Non-root readers get 64 bytes: a header, and nothing is wrong. */
static void test_short_buffers(void)
{
	static struct builder b;
	static uint8_t big[2 * PCI_CFG_EXP_SIZE];
	struct pci_cfg cfg;

	build_rig_endpoint(&b, NULL, NULL);

	set_test("64-byte buffer");
	CHECK_EQ(decode(&b, 64, &cfg), 0);
	CHECK(cfg.header_valid);
	CHECK_EQ(cfg.vendor_id, 0x8086);
	CHECK_EQ(cfg.device_id, 0xffff);
	CHECK_EQ(cfg.class_code, 0x120000);
	CHECK(cfg.multifunction);
	CHECK(!cfg.ext_readable);
	CHECK_EQ(cfg.malformed, 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	CHECK(!cfg.tee_io);
	CHECK_EQ(cfg.nr_doe, 0);
	CHECK(!cfg.ide.present);
	pci_cfg_release(&cfg);

	set_test("256-byte buffer");
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_ENDPOINT);
	CHECK(cfg.tee_io);
	CHECK(!cfg.ext_readable);
	CHECK_EQ(cfg.nr_doe, 0);
	CHECK(!cfg.ide.present);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("short header");
	CHECK_EQ(decode(&b, 63, &cfg), 0);
	CHECK(!cfg.header_valid);
	CHECK_EQ(cfg.malformed, CFG_MAL_SHORT_HEADER);
	CHECK_EQ(cfg.vendor_id, 0);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	CHECK_EQ(pci_cfg_decode(NULL, 0, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_SHORT_HEADER);
	CHECK_EQ(cfg.len, 0);
	CHECK_EQ(pci_cfg_decode(NULL, 4096, &cfg), 0);
	CHECK_EQ(cfg.len, 0);
	pci_cfg_release(&cfg);

	set_test("longer than 4 KiB");
	memcpy(big, b.cfg, sizeof(b.cfg));
	memset(big + sizeof(b.cfg), 0xa5, sizeof(big) - sizeof(b.cfg));
	CHECK_EQ(pci_cfg_decode(big, sizeof(big), &cfg), 0);
	CHECK_EQ(cfg.len, PCI_CFG_EXP_SIZE);
	CHECK(cfg.ext_readable);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);
}

static void test_all_ones(void)
{
	static uint8_t ones[PCI_CFG_EXP_SIZE];
	static const size_t lens[] = { 64, 256, 4096 };
	struct pci_cfg cfg;
	size_t i;

	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		set_test("all ones, %zu bytes", lens[i]);
		CHECK_EQ(pci_cfg_decode(ones, lens[i], &cfg), 0);
		CHECK(!cfg.header_valid);
		CHECK_EQ(cfg.malformed, CFG_MAL_ALL_ONES);
		CHECK_EQ(cfg.vendor_id, 0);
		CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
		CHECK(!cfg.tee_io);
		CHECK_EQ(cfg.nr_doe, 0);
		CHECK(!cfg.ide.present);
		CHECK_EQ(cfg.len, lens[i]);
		pci_cfg_release(&cfg);
	}
}

static void test_std_chain_faults(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("standard loop");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0x50, 0x01);
	put_pcie_cap(&b, 0x60, PCIE_TYPE_ENDPOINT, PCI_EXP_DEVCAP_TEE);
	b.cfg[0x61] = 0x50;
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_LOOP);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_ENDPOINT);	/* found before the loop closed */
	CHECK(cfg.tee_io);
	pci_cfg_release(&cfg);

	set_test("standard self loop");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0x40, 0x01);
	b.cfg[0x41] = 0x40;
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_LOOP);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	pci_cfg_release(&cfg);

	set_test("standard loop through masked pointer");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0x40, 0x01);
	b.cfg[0x41] = 0x43;
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_LOOP);
	pci_cfg_release(&cfg);

	set_test("standard pointer into the header");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0x40, 0x01);
	b.cfg[0x41] = 0x20;
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	b.cfg[0x34] = 0x3c;
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	b.cfg[0x34] = 0x02;
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	pci_cfg_release(&cfg);

	set_test("standard pointer past a short buffer");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_pcie_cap(&b, 0xc0, PCIE_TYPE_ENDPOINT, 0);
	CHECK_EQ(decode(&b, 0x80, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_NONE);
	CHECK_EQ(decode(&b, 0xc4, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_ENDPOINT);
	CHECK_EQ(cfg.devcap, 0);
	CHECK_EQ(decode(&b, 0xc8, &cfg), 0);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("PCIe cap at the very end");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_std_cap(&b, 0xfc, 0x10);
	CHECK_EQ(decode(&b, 256, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK_EQ(cfg.pcie_type, 0);	/* flags at 0xfe are there, DEVCAP is not */
	pci_cfg_release(&cfg);
}

static void test_ext_chain_faults(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("extended loop");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_doe(&b, 0x100);
	put_ide(&b, 0x200, DEVSEC_IDE_CAP, 0, 4, NULL, 1, &(struct test_sel){ .cap = 1 });
	set_ext_next(&b, 0x200, 0x100);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_LOOP);
	CHECK_EQ(cfg.nr_doe, 1);	/* counted once, not per lap */
	CHECK(cfg.ide.present);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	pci_cfg_release(&cfg);

	set_test("extended self loop");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_doe(&b, 0x100);
	set_ext_next(&b, 0x100, 0x100);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_LOOP);
	CHECK_EQ(cfg.nr_doe, 1);
	pci_cfg_release(&cfg);

	set_test("extended pointer below 0x100");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_doe(&b, 0x100);
	set_ext_next(&b, 0x100, 0x0c0);
	put32(&b, 0x0c0, PCI_EXT_CAP_ID_IDE | 1u << 16);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	CHECK(!cfg.ide.present);
	set_ext_next(&b, 0x100, 0x004);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	pci_cfg_release(&cfg);

	set_test("extended pointer unaligned");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_doe(&b, 0x100);
	put_ide(&b, 0x200, 0x00000001, 0, 1, NULL, 0, NULL);
	set_ext_next(&b, 0x100, 0x202);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	CHECK(cfg.ide.present);	/* followed masked, as Linux does */
	CHECK_EQ(cfg.ide.offset, 0x200);
	CHECK_EQ(cfg.ide.nr_link, 1);
	pci_cfg_release(&cfg);
	set_ext_next(&b, 0x100, 0x003);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_POINTER);
	CHECK(!cfg.ide.present);
	pci_cfg_release(&cfg);

	set_test("extended pointer past the end");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_doe(&b, 0x100);
	put_ide(&b, 0x800, 0x00000001, 0, 1, NULL, 0, NULL);
	CHECK_EQ(decode(&b, 0x400, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK_EQ(cfg.nr_doe, 1);
	CHECK(!cfg.ide.present);
	CHECK_EQ(decode(&b, 0x802, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK(!cfg.ide.present);
	pci_cfg_release(&cfg);

	set_test("extended chain at the last dword");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_doe(&b, 0x100);
	put_ext_cap(&b, 0xffc, PCI_EXT_CAP_ID_DOE);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, 0);
	CHECK_EQ(cfg.nr_doe, 2);
	pci_cfg_release(&cfg);
}

/* Counts that run off the end of config space: decode what fits, flag the rest. */
static void test_counts_run_off(void)
{
	static struct builder b;
	struct pci_cfg cfg;
	struct test_sel full = { .cap = 15 };

	set_test("Selective count runs off");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ext_cap(&b, 0x100, PCI_EXT_CAP_ID_AER);
	/* 200-byte blocks from 0xf0c: 0xf0c + 200 = 0xfd4 fits, the second does not */
	put_ide(&b, 0xf00, 0x00ff0002, 0, 0, NULL, 1, &full);
	for (size_t pos = 0xfd4; pos < 4096; pos += 4)
		put32(&b, pos, 15);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_IDE_BLOCKS);
	CHECK_EQ(cfg.ide.sel_streams, 256);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	check_invariants(b.cfg, 4096, &cfg);
	pci_cfg_release(&cfg);

	set_test("Selective cap register past 4 KiB");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ext_cap(&b, 0x100, PCI_EXT_CAP_ID_AER);
	put_ide(&b, 0xff0, 0x00000002, 0, 0, NULL, 0, NULL);
	put32(&b, 0xffc, 0);	/* block 0 cap register at 0xffc, block needs 20 bytes */
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_IDE_BLOCKS);
	CHECK_EQ(cfg.ide.nr_sel, 0);
	CHECK(cfg.ide.sel == NULL);
	pci_cfg_release(&cfg);

	set_test("Link count runs off");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ext_cap(&b, 0x100, PCI_EXT_CAP_ID_AER);
	put_ide(&b, 0xfe0, 0x0000e003, 0, 8, NULL, 1, NULL);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_IDE_BLOCKS);
	CHECK_EQ(cfg.ide.link_tcs, 8);
	CHECK_EQ(cfg.ide.nr_link, 2);	/* 0xfec and 0xff4; 0xffc has only 4 bytes */
	CHECK_EQ(cfg.ide.sel_streams, 1);
	CHECK_EQ(cfg.ide.nr_sel, 0);	/* behind the missing Link blocks */
	check_invariants(b.cfg, 4096, &cfg);
	pci_cfg_release(&cfg);

	set_test("IDE registers past 4 KiB");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ext_cap(&b, 0x100, PCI_EXT_CAP_ID_AER);
	put_ide(&b, 0xffc, 0x00000003, 0, 0, NULL, 0, NULL);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK(cfg.ide.present);
	CHECK_EQ(cfg.ide.offset, 0xffc);
	CHECK_EQ(cfg.ide.cap, 0);
	CHECK(!cfg.ide.link_ide);
	pci_cfg_release(&cfg);

	set_test("IDE control past 4 KiB");
	put_header(&b, 0x1234, 0x5678, 0, 0);
	put_ext_cap(&b, 0x100, PCI_EXT_CAP_ID_AER);
	put_ide(&b, 0xff8, 0x00000003, 0, 0, NULL, 0, NULL);
	CHECK_EQ(decode(&b, 4096, &cfg), 0);
	CHECK_EQ(cfg.malformed, CFG_MAL_CAP_TRUNCATED);
	CHECK_EQ(cfg.ide.cap, 3);
	CHECK_EQ(cfg.ide.nr_link, 0);
	pci_cfg_release(&cfg);
}

/* Named cut points inside the rig's IDE capability. */
static void test_truncated_ide(void)
{
	static const struct { size_t len; bool present; uint32_t cap; unsigned int nr_link, nr_sel; } cuts[] = {
		{ RIG_EP_IDE + 2, false, 0, 0, 0 },
		{ RIG_EP_IDE + 4, true, 0, 0, 0 },
		{ RIG_EP_IDE + 7, true, 0, 0, 0 },
		{ RIG_EP_IDE + 8, true, DEVSEC_IDE_CAP, 0, 0 },
		{ RIG_EP_IDE + 0x0c, true, DEVSEC_IDE_CAP, 0, 0 },
		{ RIG_EP_IDE + 0x13, true, DEVSEC_IDE_CAP, 0, 0 },
		{ RIG_EP_IDE + 0x14, true, DEVSEC_IDE_CAP, 1, 0 },
		{ RIG_EP_IDE + 0x2c, true, DEVSEC_IDE_CAP, 4, 0 },
		{ RIG_EP_IDE_END - 1, true, DEVSEC_IDE_CAP, 4, 0 },
		{ RIG_EP_IDE_END, true, DEVSEC_IDE_CAP, 4, 1 },
	};
	static struct builder b;
	struct pci_cfg cfg;
	size_t i;

	build_rig_endpoint(&b, NULL, NULL);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		set_test("IDE truncated at 0x%zx", cuts[i].len);
		CHECK_EQ(decode(&b, cuts[i].len, &cfg), 0);
		CHECK_EQ(cfg.malformed, cuts[i].len == RIG_EP_IDE_END ? 0 : CFG_MAL_CAP_TRUNCATED);
		CHECK_EQ(cfg.ide.present, cuts[i].present);
		CHECK_EQ(cfg.ide.cap, cuts[i].cap);
		CHECK_EQ(cfg.ide.nr_link, cuts[i].nr_link);
		CHECK_EQ(cfg.ide.nr_sel, cuts[i].nr_sel);
		CHECK_EQ(cfg.nr_doe, 1);
		CHECK(!cfg.ext_readable);
		check_invariants(b.cfg, cuts[i].len, &cfg);
		pci_cfg_release(&cfg);
	}
}

/* Every prefix of the rig's config space: exactly what fits is reported. */

/* Two decoded blocks agree field by field; addr points into each decode's own pool. */
static bool sel_equal(const struct ide_sel_stream *a, const struct ide_sel_stream *b)
{
	struct ide_sel_stream x = *a, y = *b;

	x.addr = y.addr = NULL;
	return !memcmp(&x, &y, sizeof(x)) &&
	       (!a->nr_addr || !memcmp(a->addr, b->addr, a->nr_addr * sizeof(*a->addr)));
}

static void test_every_prefix(void)
{
	static struct builder b;
	const struct test_link link[4] = { [2] = { .ctl = 0x05000001, .status = 2 } };
	const struct test_sel sel = {
		.cap = 1, .ctl = 0x04800201, .status = 2, .rid1 = 0xff00, .rid2 = 0x0101,
		.addr = { { .reg1 = 0x12312301, .reg2 = 0x2, .reg3 = 0x2 } },
	};
	struct pci_cfg full, cfg;
	size_t len;

	build_rig_endpoint(&b, link, &sel);
	set_test("prefix full");
	CHECK_EQ(decode(&b, sizeof(b.cfg), &full), 0);
	CHECK_EQ(full.malformed, 0);
	for (len = 0; len <= PCI_CFG_EXP_SIZE; len++) {
		unsigned int want_mal, want_link, i;
		uint8_t *copy = malloc(len ? len : 1);

		/* an exact-size heap copy, so the sanitizer sees any read past len */
		if (!copy) {
			CHECK(copy != NULL);
			return;
		}
		memcpy(copy, b.cfg, len);
		set_test("prefix len %zu", len);
		CHECK_EQ(pci_cfg_decode(copy, len, &cfg), 0);
		check_invariants(copy, len, &cfg);
		ranged_check_plans(copy, len, &cfg);

		if (len < 64)
			want_mal = CFG_MAL_SHORT_HEADER;
		else if (len == 64 || (len >= 0x48 && len <= 256) || len >= RIG_EP_IDE_END)
			want_mal = 0;
		else
			want_mal = CFG_MAL_CAP_TRUNCATED;
		CHECK_EQ(cfg.malformed, want_mal);
		CHECK_EQ(cfg.header_valid, len >= 64);
		CHECK_EQ(cfg.pcie_type, len >= 0x44 ? PCIE_TYPE_ENDPOINT : PCIE_TYPE_NONE);
		CHECK_EQ(cfg.tee_io, len >= 0x48);
		CHECK_EQ(cfg.nr_doe, len >= RIG_EP_DOE + 4);
		CHECK_EQ(cfg.ide.present, len >= RIG_EP_IDE + 4);
		CHECK_EQ(cfg.ide.cap, len >= RIG_EP_IDE + 8 ? DEVSEC_IDE_CAP : 0);
		want_link = len < RIG_EP_IDE + 0x0c ? 0 : (unsigned int)((len - RIG_EP_IDE - 0x0c) / 8);
		CHECK_EQ(cfg.ide.nr_link, want_link < 4 ? want_link : 4);
		CHECK_EQ(cfg.ide.nr_sel, len >= RIG_EP_IDE_END);
		/* what was decoded agrees with the full decode */
		for (i = 0; i < cfg.ide.nr_link && i < IDE_MAX_LINK_BLOCKS; i++)
			CHECK(!memcmp(&cfg.ide.link[i], &full.ide.link[i], sizeof(cfg.ide.link[i])));
		if (cfg.ide.nr_sel)
			CHECK(sel_equal(cfg.ide.sel, full.ide.sel));
		pci_cfg_release(&cfg);
		free(copy);
	}
	pci_cfg_release(&full);
}

/* Fixed-seed xorshift64*, so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static size_t random_len(void)
{
	static const size_t common[] = { 0, 63, 64, 256, 4096, 4096, 4096, 4096 };

	return rng() % 2 ? common[rng() % 8] : rng() % (PCI_CFG_EXP_SIZE + 1);
}

/* Decode an exact-size heap copy so the sanitizer catches any overread. */
static void decode_and_check(const uint8_t *bytes, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct pci_cfg cfg;

	if (!copy) {
		CHECK(copy != NULL);
		return;
	}
	memcpy(copy, bytes, len);
	CHECK_EQ(pci_cfg_decode(copy, len, &cfg), 0);
	check_invariants(copy, len, &cfg);
	ranged_check_plans(copy, len, &cfg);
	pci_cfg_release(&cfg);
	pci_cfg_release(&cfg);
	free(copy);
}

static void test_random_bytes(void)
{
	static struct builder b;
	unsigned int iter;
	size_t i;

	/* pure noise, half of it with a plausible chain start so the walks get going */
	for (iter = 0; iter < 3000; iter++) {
		set_test("random bytes #%u", iter);
		for (i = 0; i < sizeof(b.cfg); i += 4)
			put32(&b, i, rng());
		if (iter % 2) {
			put16(&b, 0x06, STATUS_CAP_LIST);
			b.cfg[0x0e] &= 0x81;
			b.cfg[0x34] = (uint8_t)(0x40 + rng() % 0xc0);
			put32(&b, 0x100, (iter % 4 == 1 ? PCI_EXT_CAP_ID_IDE : PCI_EXT_CAP_ID_DOE) |
					 (rng() & 0xfff00000u));
		}
		decode_and_check(b.cfg, random_len());
	}

	/* the rig with a few bytes flipped, which reaches deep into the IDE decoder */
	for (iter = 0; iter < 5000; iter++) {
		unsigned int flips = 1 + rng() % 8;

		set_test("mutated rig #%u", iter);
		build_rig_endpoint(&b, NULL, NULL);
		while (flips--) {
			size_t at = rng() % 4 ? RIG_EP_IDE + rng() % 0x50 : rng() % 0x300;

			b.cfg[at] ^= (uint8_t)(1u << (rng() % 8));
			if (rng() % 4 == 0)
				b.cfg[at] = (uint8_t)rng();
		}
		decode_and_check(b.cfg, rng() % 3 ? PCI_CFG_EXP_SIZE : random_len());
	}
}

static void test_release(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("release");
	memset(&cfg, 0, sizeof(cfg));
	pci_cfg_release(&cfg);
	pci_cfg_release(&cfg);
	pci_cfg_release(NULL);
	build_rig_endpoint(&b, NULL, NULL);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(cfg.ide.sel != NULL);
	pci_cfg_release(&cfg);
	CHECK(cfg.ide.sel == NULL);
	CHECK_EQ(cfg.ide.nr_sel, 0);
	CHECK(ide_sel_block(&cfg.ide, 0) == NULL);
	pci_cfg_release(&cfg);
	/* decoding again into a released struct must not leak or reuse */
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	pci_cfg_release(&cfg);
	CHECK(cfg.ide.sel == NULL);
}

/*
 * Found by fuzz-ide: Selective blocks that hold no address association at
 * all leave the capability without a pool, and no block may point into one.
 */
static void test_no_addr_assoc(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("no address associations");
	put_header(&b, 0x8086, 0x7075, 0x060400, 0x01);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_ROOT_PORT, 0);
	put_ide(&b, 0x100, DEVSEC_IDE_CAP, 0, 4, NULL, 1, &(struct test_sel){ .cap = 0 });
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	CHECK(cfg.ide.nr_sel == 1 && cfg.ide.sel[0].nr_addr == 0);
	CHECK(cfg.ide.nr_sel == 1 && cfg.ide.sel[0].addr == NULL);
	CHECK(cfg.ide.addr_pool == NULL);
	pci_cfg_release(&cfg);
}

/* A VF's Vendor and Device ID read 0xffff (SR-IOV 3.4.1.1); the rest of it is a function. */
static void test_vf_header(void)
{
	static struct builder b;
	struct pci_cfg cfg;

	set_test("VF header");
	put_header(&b, 0xffff, 0xffff, 0x020000, 0);
	put_pcie_cap(&b, 0x40, PCIE_TYPE_ENDPOINT, PCI_EXP_DEVCAP_TEE);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(cfg.header_valid);
	CHECK_EQ(cfg.malformed, 0);
	CHECK_EQ(cfg.vendor_id, 0xffff);
	CHECK_EQ(cfg.class_code, 0x020000);
	CHECK_EQ(cfg.pcie_type, PCIE_TYPE_ENDPOINT);
	CHECK(cfg.tee_io);
	pci_cfg_release(&cfg);
}


/* ---- ranged reads: what each plan reads ---------------------------------- */

#define PLAN_DEVICE	(CFG_PART_HEADER | CFG_PART_PCIE | CFG_PART_EXT | CFG_PART_LAYOUT)
#define PLAN_AUDIT	(PLAN_DEVICE | CFG_PART_CHAINS | CFG_PART_LINK | CFG_PART_ENABLED)
#define PLAN_STREAMS	(CFG_PART_EXT | CFG_PART_SEL | CFG_PART_ADDR)

/* The reads a plan made, as "off+n" in order. */
static void check_reads(const struct log_reader *lr, const char *want, int line)
{
	char got[1024] = "";
	size_t used = 0;

	for (unsigned int i = 0; i < lr->reads && i < 64; i++)
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%zx+%zu", i ? " " : "",
					 lr->log[i].off, lr->log[i].n);
	check_str_at(got, want, "reads", line);
}
#define CHECK_READS(lr, want)	check_reads((lr), (want), __LINE__)

static int plan_decode(const struct builder *b, size_t len, unsigned int parts, const uint8_t *sel,
		       struct log_reader *lr, struct pci_cfg *cfg)
{
	struct cfg_want want = { parts, sel };

	return ranged_decode(b->cfg, len, &want, lr, cfg);
}

/* A bridge's windows (0x20-0x2f): 32-bit memory, 64-bit prefetchable, closed ones, not a bridge. */
static void test_bridge_windows(void)
{
	static struct builder b;
	struct log_reader lr;
	struct pci_cfg cfg;

	set_test("bridge windows: memory and 64-bit prefetchable, read alone");
	put_header(&b, 0x8086, 0x352a, 0x060400, 0x01);
	put16(&b, 0x20, 0xa400);	/* memory 0xa4000000-0xa41fffff */
	put16(&b, 0x22, 0xa410);
	put16(&b, 0x24, 0x0001);	/* prefetchable, 64-bit: 0x21000000000-0x2100fffffff */
	put16(&b, 0x26, 0x0ff1);
	put32(&b, 0x28, 0x210);
	put32(&b, 0x2c, 0x210);
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), CFG_PART_WINDOWS, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "0+16 20+16 3f+1 40+1");
	CHECK(cfg.mem_window.valid);
	CHECK_EQ(cfg.mem_window.base, 0xa4000000);
	CHECK_EQ(cfg.mem_window.limit, 0xa41fffff);
	CHECK(cfg.pref_window.valid);
	CHECK_EQ(cfg.pref_window.base, 0x21000000000ull);
	CHECK_EQ(cfg.pref_window.limit, 0x2100fffffffull);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("bridge windows: 32-bit prefetchable ignores the upper halves; closed is not valid");
	put16(&b, 0x24, 0xfff0);	/* base above limit: closed */
	put16(&b, 0x26, 0x0000);
	put16(&b, 0x22, 0xa400);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(!cfg.pref_window.valid);
	CHECK(cfg.mem_window.valid);
	CHECK_EQ(cfg.mem_window.limit, 0xa40fffff);
	pci_cfg_release(&cfg);

	set_test("bridge windows: an endpoint header has none");
	put8(&b, 0x0e, 0x00);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &cfg), 0);
	CHECK(!cfg.mem_window.valid);
	CHECK(!cfg.pref_window.valid);
	pci_cfg_release(&cfg);
}

/* The rig endpoint (PCIe 0x40, DOE 0x100, IDE 0x200, 4 Link blocks, one Selective block). */
static void test_ranged_rig_endpoint(void)
{
	static const uint8_t block0[IDE_MAX_SEL_BLOCKS / 8] = { 0x01 };
	static struct builder b;
	struct log_reader lr;
	struct pci_cfg cfg;

	build_rig_endpoint(&b, NULL, NULL);

	set_test("ranged rig endpoint: streams reads the chain, IDE's capability and block 0");
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_STREAMS, block0, &lr, &cfg), 0);
	CHECK_READS(&lr, "100+4 200+4 204+4 22c+20 240+12");
	CHECK_EQ(lr.bytes, 44);
	CHECK(cfg.header_valid);
	CHECK_EQ(cfg.parts & CFG_PART_HEADER, 0);
	CHECK_EQ(cfg.len, PCI_CFG_EXP_SIZE);
	CHECK(ide_sel_block(&cfg.ide, 0) != NULL);
	CHECK_EQ(cfg.ide.nr_link, 0);
	CHECK_EQ(cfg.malformed, 0);
	pci_cfg_release(&cfg);

	set_test("ranged rig endpoint: devices reads header, PCIe, chain and layout");
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_DEVICE, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "0+16 34+1 40+4 44+4 100+4 200+4 204+4 22c+4");
	CHECK_EQ(lr.cycles, 4 + 1 + 1 + 1 + 1 + 1 + 1 + 1);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	CHECK(ide_sel_block(&cfg.ide, 0) == NULL);	/* located, not decoded */
	CHECK(cfg.tee_io);
	pci_cfg_release(&cfg);

	set_test("ranged rig endpoint: audit adds the Link blocks and whether block 0 is enabled");
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_AUDIT, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "0+16 34+1 40+4 44+4 100+4 200+4 204+4 20c+32 22c+8");
	CHECK_EQ(cfg.ide.nr_link, 4);
	CHECK_EQ(cfg.ide.nr_sel, 1);
	CHECK(ide_sel_block(&cfg.ide, 0) == NULL);	/* disabled: nothing more to know */
	pci_cfg_release(&cfg);

	set_test("ranged rig endpoint: audit, block 0 enabled: its registers, no addresses");
	build_rig_endpoint(&b, NULL, &(struct test_sel){ .cap = 1, .ctl = 0x05000001, .status = 2 });
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_AUDIT, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "0+16 34+1 40+4 44+4 100+4 200+4 204+4 20c+32 22c+8 234+12");
	CHECK(ide_sel_block(&cfg.ide, 0) != NULL);
	CHECK(cfg.ide.nr_sel && cfg.ide.sel[0].regs.stream_id == 5 && cfg.ide.sel[0].regs.state == 2);
	CHECK(cfg.ide.nr_sel && cfg.ide.sel[0].nr_addr == 0 && cfg.ide.sel[0].addr == NULL);
	pci_cfg_release(&cfg);

	set_test("ranged rig endpoint: every part");
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), CFG_PART_ALL, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "0+16 34+1 40+4 44+4 100+4 200+4 204+4 208+36 22c+20 240+12");
	CHECK_EQ(lr.bytes, 16 + 1 + 4 + 4 + 4 + 4 + 4 + 36 + 20 + 12);
	pci_cfg_release(&cfg);
}

/* A root port with eight Selective blocks of one association each, as gen-large makes. */
static void build_eight_blocks(struct builder *b, unsigned int odd, unsigned int odd_assoc)
{
	struct test_sel sel[8];

	memset(sel, 0, sizeof(sel));
	for (unsigned int i = 0; i < 8; i++) {
		sel[i].cap = i == odd ? odd_assoc : 1;
		sel[i].ctl = (i << 24) | 1;
		sel[i].status = 2;
		for (unsigned int a = 0; a < sel[i].cap; a++)
			sel[i].addr[a].reg1 = 0x00100001u + a;
	}
	put_header(b, 0x1022, 0x14ab, 0x060400, 0x81);
	put_pcie_cap(b, 0x40, PCIE_TYPE_ROOT_PORT, 0);
	put_ide(b, 0x100, 0x000700c3, 0, 1, NULL, 8, sel);
}

static void test_ranged_blocks_in_a_row(void)
{
	static const uint8_t two_five[IDE_MAX_SEL_BLOCKS / 8] = { 0x24 };
	static struct builder b;
	struct log_reader lr;
	struct pci_cfg cfg, full;

	set_test("ranged: eight blocks alike are read in two reads");
	build_eight_blocks(&b, 8, 0);
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_STREAMS, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "100+4 104+4 114+160 1b4+96");
	CHECK_EQ(lr.bytes, 8 + 8 * 32);
	CHECK_EQ(cfg.ide.nr_sel, 8);
	for (unsigned int i = 0; i < cfg.ide.nr_sel; i++)
		CHECK(ide_sel_block(&cfg.ide, i) && cfg.ide.sel[i].regs.stream_id == i &&
		      cfg.ide.sel[i].nr_addr == 1);
	pci_cfg_release(&cfg);

	set_test("ranged: a block unlike the others costs one more read, nothing twice");
	build_eight_blocks(&b, 3, 3);
	CHECK_EQ(decode(&b, sizeof(b.cfg), &full), 0);
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_STREAMS, NULL, &lr, &cfg), 0);
	CHECK_READS(&lr, "100+4 104+4 114+160 1b4+120");
	CHECK_EQ(lr.bytes, 8 + 7 * 32 + 56);
	CHECK_EQ(cfg.ide.nr_sel, 8);
	for (unsigned int i = 0; i < cfg.ide.nr_sel && i < full.ide.nr_sel; i++) {
		CHECK(sel_equal(&cfg.ide.sel[i], &full.ide.sel[i]));
		CHECK_EQ(cfg.ide.sel[i].linux_skips, i >= 3);
	}
	pci_cfg_release(&cfg);

	set_test("ranged: blocks 2 and 5 only: the caps before them, and them");
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_STREAMS, two_five, &lr, &cfg), 0);
	CHECK_READS(&lr, "100+4 104+4 114+4 134+4 154+32 174+4 1ac+4 1cc+32");
	CHECK_EQ(cfg.ide.nr_sel, 6);
	for (unsigned int i = 0; i < cfg.ide.nr_sel; i++) {
		CHECK_EQ(!!ide_sel_block(&cfg.ide, i), i == 2 || i == 5);
		if (ide_sel_block(&cfg.ide, i))
			CHECK(sel_equal(&cfg.ide.sel[i], &full.ide.sel[i]));
	}
	pci_cfg_release(&cfg);
	pci_cfg_release(&full);
}

/*
 * A non-root reader gets 64 bytes. Every plan must end up knowing exactly
 * that (needs root), never decide "no IDE capability". The streams plan
 * skips the header: once the extended space reads nothing, it reads the
 * header and two probe bytes to tell.
 */
static void test_ranged_needs_root(void)
{
	static const uint8_t block0[IDE_MAX_SEL_BLOCKS / 8] = { 0x01 };
	static const unsigned int plans[] = { PLAN_STREAMS, PLAN_DEVICE, PLAN_AUDIT, CFG_PART_ALL,
					      CFG_PART_HEADER };
	static struct builder b;
	struct log_reader lr;
	struct pci_cfg cfg;

	build_rig_endpoint(&b, NULL, NULL);
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		set_test("ranged needs root, plan %#x", plans[i]);
		CHECK_EQ(plan_decode(&b, PCI_CFG_HDR_SIZE, plans[i], block0, &lr, &cfg), 0);
		CHECK(cfg.header_valid);
		CHECK_EQ(cfg.len, PCI_CFG_HDR_SIZE);
		CHECK_EQ(cfg.malformed, 0);
		CHECK(!cfg.ide.present);
		CHECK(lr.bytes <= 16 + 1 + 1);
		pci_cfg_release(&cfg);
	}
	set_test("ranged needs root: the streams plan's reads");
	CHECK_EQ(plan_decode(&b, PCI_CFG_HDR_SIZE, PLAN_STREAMS, block0, &lr, &cfg), 0);
	CHECK_READS(&lr, "100+4 0+16 3f+1 40+1");
	pci_cfg_release(&cfg);

	set_test("ranged: 65 bytes is no non-root view");
	CHECK_EQ(plan_decode(&b, PCI_CFG_HDR_SIZE + 1, PLAN_STREAMS, block0, &lr, &cfg), 0);
	CHECK(cfg.header_valid);
	CHECK(cfg.len > PCI_CFG_HDR_SIZE);
	pci_cfg_release(&cfg);

	set_test("ranged: a function that is gone reads all ones, also without the header asked");
	memset(b.cfg, 0xff, sizeof(b.cfg));
	CHECK_EQ(plan_decode(&b, sizeof(b.cfg), PLAN_STREAMS, block0, &lr, &cfg), 0);
	CHECK(!cfg.header_valid);
	CHECK_EQ(cfg.malformed, CFG_MAL_ALL_ONES);
	pci_cfg_release(&cfg);
}

/* A reader error anywhere voids the decode: nothing half-decoded is left. */
static void test_ranged_reader_error(void)
{
	static struct builder b;
	struct cfg_want want = { CFG_PART_ALL, NULL };
	struct cfg_reader rd = { .read = log_read };
	struct log_reader lr;
	struct pci_cfg cfg;

	build_rig_endpoint(&b, NULL, NULL);
	for (unsigned int at = 1; at <= 10; at++) {
		set_test("ranged reader fails at read %u", at);
		memset(&lr, 0, sizeof(lr));
		lr.buf = b.cfg;
		lr.len = sizeof(b.cfg);
		lr.hi = SIZE_MAX;
		lr.fail_at = at;
		rd.priv = &lr;
		CHECK_EQ(pci_cfg_read(&rd, &want, &cfg), -EIO);
		CHECK_EQ(lr.reads, at);
		CHECK(!cfg.header_valid && !cfg.ide.present && !cfg.ide.sel && !cfg.ide.nr_sel);
		CHECK(!cfg.ide.addr_pool);
		pci_cfg_release(&cfg);
	}
}

/* pci_read_config()'s accesses, written out as the kernel's loop. */
static size_t kernel_accesses(size_t off, size_t size)
{
	size_t k = 0;

	if ((off & 1) && size) {
		k++;
		off++;
		size--;
	}
	if ((off & 3) && size > 2) {
		k++;
		off += 2;
		size -= 2;
	}
	while (size > 3) {
		k++;
		size -= 4;
	}
	if (size >= 2) {
		k++;
		size -= 2;
	}
	return k + (size > 0);
}

static void test_accesses(void)
{
	set_test("config cycles per read");
	for (size_t off = 0; off < 12; off++)
		for (size_t n = 0; n < 40; n++)
			check_eq_at(pci_cfg_accesses(off, n), kernel_accesses(off, n), "accesses", __LINE__);
	CHECK_EQ(pci_cfg_accesses(0, 4096), 1024);
	CHECK_EQ(pci_cfg_accesses(0x34, 1), 1);
	CHECK_EQ(pci_cfg_accesses(0x102, 6), 2);
}

int main(void)
{
	test_names();
	test_rig_endpoint();
	test_rig_root_port();
	test_cap_bits();
	test_programmed_stream();
	test_ide_fail_and_states();
	test_linux_skips();
	test_feature_bits_gate_counts();
	test_header_variants();
	test_short_buffers();
	test_all_ones();
	test_vf_header();
	test_no_addr_assoc();
	test_std_chain_faults();
	test_ext_chain_faults();
	test_counts_run_off();
	test_truncated_ide();
	test_every_prefix();
	test_random_bytes();
	test_release();
	test_bridge_windows();
	test_ranged_rig_endpoint();
	test_ranged_blocks_in_a_row();
	test_ranged_needs_root();
	test_ranged_reader_error();
	test_accesses();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
