// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TDISP DEVICE_INTERFACE_REPORT decoder (ABI.md §1.7). The layout is the
 * one the kernel reads in pci_tsm_mmio_alloc() (drivers/pci/tsm/core.c) and
 * the AMD guest driver's TDI_REPORT_* accessors: a 16-byte header, 16 bytes
 * per MMIO range, a u32 length and the device-specific information.
 */
#include <errno.h>
#include <stdlib.h>

#include "tsmctl/tdisp-report.h"

/*
 * TDISP message header: version, message type, reserved[2], INTERFACE_ID
 * (12 bytes: FUNCTION_ID, then 8 reserved)
 */
#define TDISP_MSG_HDR_SIZE		16
#define TDISP_RSP_DEVICE_INTERFACE_REPORT 0x04
#define TDISP_RSP_PREFIX_SIZE		(TDISP_MSG_HDR_SIZE + 4)	/* + PORTION_LENGTH, REMAINDER_LENGTH */

#define MSIX_CTL_TABLE_SIZE		0x07ffu
#define MSIX_CTL_FUNCTION_MASK		(1u << 14)
#define MSIX_CTL_ENABLE			(1u << 15)
#define LNR_CTL_ENABLE			(1u << 0)
#define LNR_CTL_CLS			(1u << 1)
#define LNR_CTL_REG_LIMIT_SHIFT		8
#define LNR_CTL_REG_LIMIT_MASK		0x1fu
#define TPH_CTL_ST_MODE_MASK		0x7u
#define TPH_CTL_REQ_ENABLE_SHIFT	8
#define TPH_CTL_REQ_ENABLE_MASK		0x3u

static const char *const info_names[] = {
	"no_fw_update", "dma_no_pasid", "dma_pasid", "ats", "prs",
};

static const char *const attr_names[] = {
	"msix_table", "msix_pba", "non_tee", "updatable",
};

const char *tdisp_info_name(unsigned int bit)
{
	return bit < sizeof(info_names) / sizeof(info_names[0]) ? info_names[bit] : NULL;
}

const char *tdisp_range_attr_name(unsigned int bit)
{
	return bit < sizeof(attr_names) / sizeof(attr_names[0]) ? attr_names[bit] : NULL;
}

/*
 * The whole TDISP response rather than the report alone? Its first bytes
 * (version 1.x, type 0x04, reserved 0) would be INTERFACE_INFO 0x04_1x,
 * which sets reserved bit 10: no report starts that way.
 */
static bool is_response_message(const uint8_t *buf, size_t len)
{
	return len >= TDISP_RSP_PREFIX_SIZE && (buf[0] >> 4) == 1 &&
	       buf[1] == TDISP_RSP_DEVICE_INTERFACE_REPORT && buf[2] == 0 && buf[3] == 0;
}

/* The response wrapper: a complete report follows, exactly PORTION_LENGTH bytes. */
static int decode_response(const uint8_t *buf, size_t len, struct tdisp_report *r,
			   struct ev_error *err)
{
	r->form = TDISP_FORM_RESPONSE;
	r->tdisp_version = buf[0];
	r->function_id = (uint32_t)ev_le(buf + 4, 4);
	r->requester_id = (uint16_t)r->function_id;
	r->segment = (uint8_t)(r->function_id >> 16);
	r->segment_valid = r->function_id & (1u << 24);
	r->interface_reserved = ev_le(buf + 8, 8);
	r->portion_length = (uint16_t)ev_le(buf + TDISP_MSG_HDR_SIZE, 2);
	r->remainder_length = (uint16_t)ev_le(buf + TDISP_MSG_HDR_SIZE + 2, 2);
	r->report_offset = TDISP_RSP_PREFIX_SIZE;
	if (r->remainder_length) {
		ev_fail(err, TDISP_MSG_HDR_SIZE + 2,
			"a portion of the report: REMAINDER_LENGTH says %u more bytes",
			r->remainder_length);
		return -EBADMSG;
	}
	if (r->portion_length != len - TDISP_RSP_PREFIX_SIZE) {
		ev_fail(err, TDISP_MSG_HDR_SIZE,
			"PORTION_LENGTH %u, but the message carries %zu report bytes",
			r->portion_length, len - TDISP_RSP_PREFIX_SIZE);
		return -EBADMSG;
	}
	return 0;
}

static void decode_controls(struct tdisp_report *r)
{
	r->no_fw_update = r->interface_info & TDISP_INFO_NO_FW_UPDATE;
	r->dma_no_pasid = r->interface_info & TDISP_INFO_DMA_NO_PASID;
	r->dma_pasid = r->interface_info & TDISP_INFO_DMA_PASID;
	r->ats = r->interface_info & TDISP_INFO_ATS;
	r->prs = r->interface_info & TDISP_INFO_PRS;
	r->info_reserved = r->interface_info & TDISP_INFO_RESERVED;
	r->msix_table_size = (r->msix_control & MSIX_CTL_TABLE_SIZE) + 1u;
	r->msix_function_mask = r->msix_control & MSIX_CTL_FUNCTION_MASK;
	r->msix_enable = r->msix_control & MSIX_CTL_ENABLE;
	r->lnr_enable = r->lnr_control & LNR_CTL_ENABLE;
	r->lnr_cls = r->lnr_control & LNR_CTL_CLS;
	r->lnr_registration_limit = (r->lnr_control >> LNR_CTL_REG_LIMIT_SHIFT) & LNR_CTL_REG_LIMIT_MASK;
	r->tph_st_mode = r->tph_control & TPH_CTL_ST_MODE_MASK;
	r->tph_requester_enable = (r->tph_control >> TPH_CTL_REQ_ENABLE_SHIFT) & TPH_CTL_REQ_ENABLE_MASK;
}

static void decode_range(struct ev_cursor *c, struct tdisp_mmio_range *m)
{
	uint32_t attr;

	m->offset = c->off;
	m->first_page = ev_u64(c);
	m->nr_pages = ev_u32(c);
	attr = ev_u32(c);
	m->attributes = (uint16_t)attr;
	m->range_id = (uint16_t)(attr >> 16);
	m->msix_table = attr & TDISP_RANGE_MSIX_TABLE;
	m->msix_pba = attr & TDISP_RANGE_MSIX_PBA;
	m->non_tee = attr & TDISP_RANGE_NON_TEE;
	m->updatable = attr & TDISP_RANGE_UPDATABLE;
	m->reserved = attr & TDISP_RANGE_RESERVED;
}

/* The ranges: the count checked against the bytes before anything is allocated. */
static int decode_ranges(struct ev_cursor *c, struct tdisp_report *r, struct ev_error *err)
{
	size_t count_off = c->off - 4;
	unsigned int n;

	if ((uint64_t)r->nr_ranges_declared * TDISP_RANGE_SIZE > ev_left(c)) {
		ev_fail(err, count_off, "MMIO_RANGE_COUNT %u needs %llu bytes of ranges, %zu left",
			r->nr_ranges_declared,
			(unsigned long long)r->nr_ranges_declared * TDISP_RANGE_SIZE, ev_left(c));
		return -EBADMSG;
	}
	n = r->nr_ranges_declared < TDISP_MAX_RANGES ? r->nr_ranges_declared : TDISP_MAX_RANGES;
	if (n) {
		r->ranges = calloc(n, sizeof(*r->ranges));
		if (!r->ranges)
			return -ENOMEM;
	}
	for (r->nr_ranges = 0; r->nr_ranges < n; r->nr_ranges++)
		decode_range(c, &r->ranges[r->nr_ranges]);
	if (r->nr_ranges_declared > TDISP_MAX_RANGES) {
		ev_fail(err, count_off, "%u MMIO ranges, more than the %u this decoder takes "
			"(the first %u decoded)", r->nr_ranges_declared, TDISP_MAX_RANGES,
			TDISP_MAX_RANGES);
		return -E2BIG;
	}
	return 0;
}

static int decode_report(struct ev_cursor *c, struct tdisp_report *r, struct ev_error *err)
{
	int rc;

	if (!ev_need(c, TDISP_REPORT_HDR_SIZE, "the interface report header", err))
		return -EBADMSG;
	r->interface_info = ev_u16(c);
	r->reserved = ev_u16(c);
	r->msix_control = ev_u16(c);
	r->lnr_control = ev_u16(c);
	r->tph_control = ev_u32(c);
	r->nr_ranges_declared = ev_u32(c);
	decode_controls(r);
	rc = decode_ranges(c, r, err);
	if (rc)
		return rc;
	if (!ev_need(c, 4, "DEVICE_SPECIFIC_INFO_LEN", err))
		return -EBADMSG;
	r->has_device_info = true;
	r->device_info_len = ev_u32(c);
	if (!ev_need(c, r->device_info_len, "the device-specific information", err))
		return -EBADMSG;
	r->device_info_offset = c->off;
	r->device_info = ev_skip(c, r->device_info_len);
	if (ev_left(c)) {
		ev_fail(err, c->off, "%zu bytes after the device-specific information", ev_left(c));
		return -EBADMSG;
	}
	return 0;
}

int tdisp_report_decode(const uint8_t *buf, size_t len, struct tdisp_report *report,
			struct ev_error *err)
{
	struct ev_cursor c;
	int rc;

	rc = ev_begin(report, sizeof(*report), &buf, len, err);
	if (rc)
		return rc;
	if (is_response_message(buf, len)) {
		rc = decode_response(buf, len, report, err);
		if (rc)
			return rc;
	}
	c = ev_cursor(buf, len);
	c.off = report->report_offset;
	return decode_report(&c, report, err);
}

void tdisp_report_release(struct tdisp_report *report)
{
	free(report->ranges);
	report->ranges = NULL;
	report->nr_ranges = 0;
}

int tdisp_range_span(const struct tdisp_mmio_range *range, enum tdisp_page_unit unit,
		     uint64_t *start, uint64_t *size)
{
	uint64_t s = range->first_page, n = (uint64_t)range->nr_pages * TDISP_PAGE_SIZE;

	if (unit == TDISP_UNIT_PAGE) {
		if (s > UINT64_MAX / TDISP_PAGE_SIZE)
			return -ERANGE;
		s *= TDISP_PAGE_SIZE;
	}
	/* the last byte, start + size - 1, must fit too */
	if (n && s > UINT64_MAX - (n - 1))
		return -ERANGE;
	*start = s;
	*size = n;
	return 0;
}
