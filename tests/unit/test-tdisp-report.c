// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/evidence/decode/tdisp-report.c on reports built here field by field
 * (PCIe r7.0 §11.3.11 as the kernel reads it, ABI.md §1.7): several ranges
 * with every attribute, the controls, both the bare report and the TDISP
 * response around it, and hostile input: every truncation, counts that lie
 * or overflow, a count past the cap, trailing bytes, 16 MiB of zeros.
 * `--seeds DIR` also writes the reports built as fuzz seeds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/tdisp-report.h"
#include "bytes.h"
#include "unit.h"

struct range_spec {
	uint64_t first_page;
	uint32_t pages;
	uint16_t attrs, id;
};

/* A report: the 16-byte header, the ranges, DEVICE_SPECIFIC_INFO_LEN and the info. */
static void build_report(struct bytes *b, uint16_t info, uint16_t msix, uint16_t lnr, uint32_t tph,
			 const struct range_spec *r, uint32_t n, const char *dsi)
{
	size_t dsi_len = dsi ? strlen(dsi) : 0;

	put16(b, info);
	put16(b, 0);
	put16(b, msix);
	put16(b, lnr);
	put32(b, tph);
	put32(b, n);
	for (uint32_t i = 0; i < n; i++) {
		put64(b, r[i].first_page);
		put32(b, r[i].pages);
		put32(b, (uint32_t)r[i].id << 16 | r[i].attrs);
	}
	put32(b, dsi_len);
	put_bytes(b, dsi, dsi_len);
}

/* The TDISP DEVICE_INTERFACE_REPORT response around REPORT. */
static void build_response(struct bytes *b, const struct bytes *report, uint16_t remainder)
{
	put8(b, 0x10);		/* TDISP 1.0 */
	put8(b, 0x04);		/* DEVICE_INTERFACE_REPORT */
	put16(b, 0);
	put32(b, 0x00010100);	/* INTERFACE_ID: RID 01:00.0 */
	put64(b, 0);
	put16(b, report->len);
	put16(b, remainder);
	put_bytes(b, report->buf, report->len);
}

static int decode(const struct bytes *b, struct tdisp_report *r, struct ev_error *err)
{
	uint8_t *copy = bytes_exact(b);
	int rc = tdisp_report_decode(copy, b->len, r, err);

	/* pointers into the input must stay inside it: check, then drop them with the copy */
	if (r->device_info)
		CHECK(r->device_info >= copy && r->device_info + r->device_info_len <= copy + b->len);
	r->device_info = NULL;
	free(copy);
	return rc;
}

static const struct range_spec four[] = {
	{ 0x00000, 1, TDISP_RANGE_MSIX_TABLE, 0 },	/* BAR0: MSI-X table */
	{ 0x00001, 1, TDISP_RANGE_MSIX_PBA, 0 },	/* BAR0: PBA */
	{ 0x00400, 16, TDISP_RANGE_NON_TEE, 2 },	/* BAR2: shared */
	{ 0x00800, 256, TDISP_RANGE_UPDATABLE, 4 },	/* BAR4 */
};

static void test_several_ranges(void)
{
	struct bytes b = { 0 };
	struct tdisp_report r;
	struct ev_error err;

	build_report(&b, TDISP_INFO_NO_FW_UPDATE | TDISP_INFO_DMA_NO_PASID | TDISP_INFO_ATS,
		     0xc01f, 0x1f03, 0x0302, four, 4, "tdisp_dev");
	write_seed("four-ranges", b.buf, b.len);
	CHECK(decode(&b, &r, &err) == 0 && !err.set);
	CHECK(r.form == TDISP_FORM_REPORT && r.report_offset == 0);
	CHECK(r.no_fw_update && r.dma_no_pasid && !r.dma_pasid && r.ats && !r.prs);
	CHECK(r.info_reserved == 0);
	CHECK(r.msix_table_size == 32 && r.msix_function_mask && r.msix_enable);
	CHECK(r.lnr_enable && r.lnr_cls && r.lnr_registration_limit == 31);
	CHECK(r.tph_st_mode == 2 && r.tph_requester_enable == 3);
	CHECK(r.nr_ranges_declared == 4 && r.nr_ranges == 4);
	CHECK(r.ranges[0].msix_table && !r.ranges[0].msix_pba && r.ranges[0].range_id == 0);
	CHECK(r.ranges[1].msix_pba && !r.ranges[1].msix_table && r.ranges[1].first_page == 1);
	CHECK(r.ranges[2].non_tee && r.ranges[2].range_id == 2 && r.ranges[2].nr_pages == 16);
	CHECK(r.ranges[3].updatable && !r.ranges[3].non_tee && r.ranges[3].range_id == 4);
	CHECK(r.ranges[3].offset == TDISP_REPORT_HDR_SIZE + 3 * TDISP_RANGE_SIZE);
	CHECK(r.has_device_info && r.device_info_len == 9);
	CHECK(r.device_info_offset == TDISP_REPORT_HDR_SIZE + 4 * TDISP_RANGE_SIZE + 4);
	tdisp_report_release(&r);
	bytes_free(&b);
}

/* The quiet path: no ranges, no info, nothing set, nothing reserved. */
static void test_empty_report(void)
{
	struct bytes b = { 0 };
	struct tdisp_report r;
	struct ev_error err;

	build_report(&b, 0, 0, 0, 0, NULL, 0, NULL);
	write_seed("empty", b.buf, b.len);
	CHECK(b.len == 20);
	CHECK(decode(&b, &r, &err) == 0 && !err.set);
	CHECK(r.nr_ranges == 0 && !r.ranges && r.device_info_len == 0);
	CHECK(!r.no_fw_update && !r.msix_enable && r.msix_table_size == 1 && !r.lnr_enable);
	tdisp_report_release(&r);
	bytes_free(&b);
}

static void test_response_form(void)
{
	struct bytes rep = { 0 }, b = { 0 }, part = { 0 }, bad = { 0 };
	struct tdisp_report r;
	struct ev_error err;

	build_report(&rep, TDISP_INFO_DMA_PASID | TDISP_INFO_PRS, 0, 0, 0, four, 4, "x");
	build_response(&b, &rep, 0);
	write_seed("response", b.buf, b.len);
	CHECK(decode(&b, &r, &err) == 0);
	CHECK(r.form == TDISP_FORM_RESPONSE && r.tdisp_version == 0x10);
	CHECK(r.function_id == 0x00010100 && r.report_offset == 20);
	CHECK(r.requester_id == 0x0100 && r.segment == 1 && !r.segment_valid);
	CHECK(r.interface_reserved == 0);
	CHECK(r.portion_length == rep.len && r.remainder_length == 0);
	CHECK(r.dma_pasid && r.prs && r.nr_ranges == 4);
	CHECK(r.ranges[0].offset == 20 + TDISP_REPORT_HDR_SIZE);
	tdisp_report_release(&r);

	/* FUNCTION_ID of 99:00.0 in segment 0x12 (valid), a reserved bit, reserved bytes: all kept */
	patch_le(&b, 4, 0x03129900, 4);
	patch_le(&b, 8, 0x0102030405060708ull, 8);
	CHECK(decode(&b, &r, &err) == 0 && r.requester_id == 0x9900 && r.segment == 0x12);
	CHECK(r.segment_valid && (r.function_id & TDISP_FUNCTION_ID_RESERVED) == 0x02000000);
	CHECK(r.interface_reserved == 0x0102030405060708ull);
	tdisp_report_release(&r);

	/* a portion, more to come: not a report to judge */
	build_response(&part, &rep, 100);
	CHECK(decode(&part, &r, &err) == -EBADMSG && err.offset == 18);
	CHECK(strstr(err.why, "REMAINDER_LENGTH") != NULL);
	tdisp_report_release(&r);

	/* PORTION_LENGTH that lies about the bytes carried */
	build_response(&bad, &rep, 0);
	patch_le(&bad, 16, rep.len + 1, 2);
	CHECK(decode(&bad, &r, &err) == -EBADMSG && err.offset == 16);
	tdisp_report_release(&r);
	bytes_free(&rep);
	bytes_free(&b);
	bytes_free(&part);
	bytes_free(&bad);
}

/* Every shorter prefix fails cleanly, at an offset inside what it had. */
static void test_truncations(void)
{
	struct bytes b = { 0 };
	struct tdisp_report r;
	struct ev_error err;
	unsigned int bad = 0;

	build_report(&b, 1, 2, 3, 4, four, 4, "device-info");
	for (size_t n = 0; n < b.len; n++) {
		struct bytes cut = { .buf = b.buf, .len = n };

		if (decode(&cut, &r, &err) != -EBADMSG || !err.set || err.offset > n)
			bad++;
		tdisp_report_release(&r);
	}
	CHECK(bad == 0);
	bytes_free(&b);
}

static void test_lying_lengths(void)
{
	struct bytes b = { 0 }, big = { 0 }, trail = { 0 }, dsi = { 0 };
	struct tdisp_report r;
	struct ev_error err;
	char msg[256];

	/* a count that would overflow 32-bit arithmetic, in a 20-byte report */
	build_report(&b, 0, 0, 0, 0, NULL, 0, NULL);
	patch_le(&b, 12, 0xffffffffu, 4);
	CHECK(decode(&b, &r, &err) == -EBADMSG && err.offset == 12 && !r.ranges);
	CHECK(!strcmp(ev_error_str(&err, msg, sizeof(msg)), "malformed at offset 12: "
		      "MMIO_RANGE_COUNT 4294967295 needs 68719476720 bytes of ranges, 4 left"));
	tdisp_report_release(&r);

	/* more ranges than the cap, all there: the first ones decoded, and said */
	build_report(&big, 0, 0, 0, 0, NULL, 0, NULL);
	big.len = 16;
	patch_le(&big, 12, TDISP_MAX_RANGES + 1000, 4);
	for (unsigned int i = 0; i < TDISP_MAX_RANGES + 1000; i++) {
		put64(&big, i);
		put32(&big, 1);
		put32(&big, 0);
	}
	put32(&big, 0);
	CHECK(decode(&big, &r, &err) == -E2BIG && r.nr_ranges == TDISP_MAX_RANGES);
	CHECK(r.ranges[TDISP_MAX_RANGES - 1].first_page == TDISP_MAX_RANGES - 1);
	CHECK(strstr(err.why, "more than the 1024") != NULL);
	tdisp_report_release(&r);

	build_report(&trail, 0, 0, 0, 0, four, 2, "abc");
	put8(&trail, 0xee);
	CHECK(decode(&trail, &r, &err) == -EBADMSG && err.offset == trail.len - 1);
	CHECK(r.nr_ranges == 2 && r.device_info_len == 3);
	tdisp_report_release(&r);

	build_report(&dsi, 0, 0, 0, 0, four, 1, "abc");
	patch_le(&dsi, 16 + 16, 0x7fffffff, 4);
	CHECK(decode(&dsi, &r, &err) == -EBADMSG && err.offset == 36);
	tdisp_report_release(&r);
	bytes_free(&b);
	bytes_free(&big);
	bytes_free(&trail);
	bytes_free(&dsi);
}

/* What devsec.sh's cert0 is, given as a report: zeros are a header, then trailing bytes. */
static void test_zero_blob(void)
{
	struct tdisp_report r;
	struct ev_error err;

	CHECK(tdisp_report_decode(zero_blob(), ZERO_BLOB_SIZE, &r, &err) == -EBADMSG &&
	      err.offset == 20 && r.nr_ranges == 0 && !r.ranges);
	tdisp_report_release(&r);
	CHECK(tdisp_report_decode(NULL, 0, &r, &err) == -EBADMSG && err.offset == 0);
	CHECK(tdisp_report_decode(NULL, 5, &r, &err) == -EINVAL);
}

static void test_reserved_bits(void)
{
	static const struct range_spec odd[] = { { 7, 1, 0xfff0 | TDISP_RANGE_NON_TEE, 9 } };
	struct bytes b = { 0 };
	struct tdisp_report r;
	struct ev_error err;

	build_report(&b, 0xffe0, 0, 0, 0, odd, 1, NULL);
	CHECK(decode(&b, &r, &err) == 0);
	CHECK(r.info_reserved == 0xffe0 && r.ranges[0].reserved == 0xfff0);
	CHECK(r.ranges[0].non_tee && !r.ranges[0].updatable && r.ranges[0].range_id == 9);
	tdisp_report_release(&r);
	bytes_free(&b);
}

static void test_span(void)
{
	struct tdisp_mmio_range m = { .first_page = 0x80, .nr_pages = 4 };
	uint64_t start = 0, size = 0;

	CHECK(tdisp_range_span(&m, TDISP_UNIT_PAGE, &start, &size) == 0);
	CHECK(start == 0x80000 && size == 0x4000);
	CHECK(tdisp_range_span(&m, TDISP_UNIT_BYTE, &start, &size) == 0);
	CHECK(start == 0x80 && size == 0x4000);
	m.first_page = 1ull << 60;
	CHECK(tdisp_range_span(&m, TDISP_UNIT_PAGE, &start, &size) == -ERANGE);
	m.first_page = (UINT64_MAX >> 12);	/* the last page: ends exactly at 2^64 - 1 */
	m.nr_pages = 1;
	CHECK(tdisp_range_span(&m, TDISP_UNIT_PAGE, &start, &size) == 0);
	m.nr_pages = 2;
	CHECK(tdisp_range_span(&m, TDISP_UNIT_PAGE, &start, &size) == -ERANGE);
	m.first_page = UINT64_MAX - 10;
	m.nr_pages = 1;
	CHECK(tdisp_range_span(&m, TDISP_UNIT_BYTE, &start, &size) == -ERANGE);
	CHECK(!strcmp(tdisp_range_attr_name(2), "non_tee") && !tdisp_range_attr_name(4));
	CHECK(!strcmp(tdisp_info_name(0), "no_fw_update") && !tdisp_info_name(5));
}

int main(int argc, char **argv)
{
	seeds_from_args(argc, argv);
	test_several_ranges();
	test_empty_report();
	test_response_form();
	test_truncations();
	test_lying_lengths();
	test_zero_blob();
	test_reserved_bits();
	test_span();
	return unit_report();
}
