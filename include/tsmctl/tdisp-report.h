/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoder of the TDISP DEVICE_INTERFACE_REPORT (PCIe r7.0 §11.3.11,
 * ABI.md §1.7): interface info, the MSI-X, LNR and TPH controls, the MMIO
 * ranges and the device-specific information. Bytes in, struct out.
 */
#ifndef TSMCTL_TDISP_REPORT_H
#define TSMCTL_TDISP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/ev-decode.h"

#define TDISP_PAGE_SIZE		4096u
#define TDISP_REPORT_HDR_SIZE	16	/* interface info .. MMIO range count */
#define TDISP_RANGE_SIZE	16
#define TDISP_MAX_RANGES	1024	/* decoder cap; the count field is 32 bits */

/* INTERFACE_INFO bits */
#define TDISP_INFO_NO_FW_UPDATE		(1u << 0)	/* no firmware update in CONFIG_LOCKED/RUN */
#define TDISP_INFO_DMA_NO_PASID		(1u << 1)
#define TDISP_INFO_DMA_PASID		(1u << 2)
#define TDISP_INFO_ATS			(1u << 3)
#define TDISP_INFO_PRS			(1u << 4)
#define TDISP_INFO_RESERVED		0xffe0u

/* MMIO range attribute bits (the low 16 bits; the high 16 are the range ID) */
#define TDISP_RANGE_MSIX_TABLE		(1u << 0)
#define TDISP_RANGE_MSIX_PBA		(1u << 1)
#define TDISP_RANGE_NON_TEE		(1u << 2)
#define TDISP_RANGE_UPDATABLE		(1u << 3)
#define TDISP_RANGE_RESERVED		0xfff0u

/*
 * Reserved bits of the controls as the report copies their registers
 * (PCIe r7.0 §11.3.11: MSI-X Message Control 13:11; LN Requester Control
 * 7:2 and 15:13; TPH Requester Control 7:3 and 31:10), and of the response's
 * FUNCTION_ID (31:25).
 */
#define TDISP_MSIX_CTL_RESERVED		0x3800u
#define TDISP_LNR_CTL_RESERVED		0xe0fcu
#define TDISP_TPH_CTL_RESERVED		0xfffffcf8u
#define TDISP_FUNCTION_ID_RESERVED	0xfe000000u

/* How the object arrived: the report itself, or the whole TDISP response message. */
enum tdisp_report_form {
	TDISP_FORM_REPORT,	/* the report structure, as the kernel hands it out */
	TDISP_FORM_RESPONSE,	/* TDISP header, PORTION_LENGTH, REMAINDER_LENGTH, then the report */
};

/*
 * The unit of "first page" (ABI.md §1.7): sources disagree. The default
 * follows the kernel's guest drivers and uapi (4 KiB page numbers).
 */
enum tdisp_page_unit {
	TDISP_UNIT_PAGE,	/* first_page is a 4 KiB page number */
	TDISP_UNIT_BYTE,	/* first_page is a byte address */
};

struct tdisp_mmio_range {
	size_t offset;		/* of the range in the object */
	uint64_t first_page;	/* as written, with the MMIO reporting offset added */
	uint32_t nr_pages;	/* 4 KiB pages */
	uint16_t attributes;	/* bits 15:0 of the attribute dword */
	uint16_t range_id;	/* bits 31:16: for a BAR, the BAR number */
	bool msix_table, msix_pba, non_tee, updatable;
	uint16_t reserved;	/* attribute bits 15:4, should be 0 */
};

struct tdisp_report {
	enum tdisp_report_form form;
	/* TDISP_FORM_RESPONSE only: the message header around the report */
	uint8_t tdisp_version;		/* 0x10 for TDISP 1.0 */
	uint32_t function_id;		/* INTERFACE_ID's FUNCTION_ID, as written */
	uint16_t requester_id;		/* its bits 15:0: bus 15:8, device 7:3, function 2:0 */
	uint8_t segment;		/* bits 23:16, valid when bit 24 is */
	bool segment_valid;
	uint64_t interface_reserved;	/* INTERFACE_ID's 8 reserved bytes, should be 0 */
	uint16_t portion_length, remainder_length;
	size_t report_offset;		/* where the report structure starts */

	uint16_t interface_info;
	bool no_fw_update, dma_no_pasid, dma_pasid, ats, prs;
	uint16_t info_reserved;		/* INTERFACE_INFO bits 15:5 */
	uint16_t reserved;		/* the u16 after INTERFACE_INFO */
	/* MSI-X Message Control as locked: table size (N), function mask, enable */
	uint16_t msix_control;
	unsigned int msix_table_size;
	bool msix_function_mask, msix_enable;
	/* LN Requester Control: enable, CLS, registration limit */
	uint16_t lnr_control;
	bool lnr_enable, lnr_cls;
	unsigned int lnr_registration_limit;
	/* TPH Requester Control: ST mode select, requester enable */
	uint32_t tph_control;
	unsigned int tph_st_mode, tph_requester_enable;

	uint32_t nr_ranges_declared;	/* MMIO_RANGE_COUNT as written */
	unsigned int nr_ranges;		/* decoded into ranges[] */
	struct tdisp_mmio_range *ranges;	/* heap, owned */

	bool has_device_info;		/* the length field was there */
	uint32_t device_info_len;
	const uint8_t *device_info;	/* points into the input buffer */
	size_t device_info_offset;
};

/*
 * Decode LEN bytes at BUF. Returns 0, -EBADMSG (ERR says where and why),
 * -E2BIG (more MMIO ranges than TDISP_MAX_RANGES) or -ENOMEM. On an error
 * REPORT holds what was decoded before it; release it either way. Pointers in
 * REPORT point into BUF.
 */
int tdisp_report_decode(const uint8_t *buf, size_t len, struct tdisp_report *report,
			struct ev_error *err);
void tdisp_report_release(struct tdisp_report *report);

/*
 * The byte range a report range names, with FIRST_PAGE read in UNIT: 0, or
 * -ERANGE when start or end does not fit 64 bits.
 */
int tdisp_range_span(const struct tdisp_mmio_range *range, enum tdisp_page_unit unit,
		     uint64_t *start, uint64_t *size);

/* "msix_table", "msix_pba", "non_tee", "updatable" for attribute bit BIT, or NULL. */
const char *tdisp_range_attr_name(unsigned int bit);

/* "no_fw_update", "dma_no_pasid", "dma_pasid", "ats", "prs" for INTERFACE_INFO bit BIT, or NULL. */
const char *tdisp_info_name(unsigned int bit);

#endif
