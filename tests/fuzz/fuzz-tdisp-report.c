// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for tdisp_report_decode() (src/evidence/decode/tdisp-report.c). The input
 * is one interface report object. Checked besides crashes: the result is 0 or
 * an error with its offset inside the input; every range and the device
 * information lie inside the input, ranges follow each other at 16 bytes; a
 * response's INTERFACE_ID fields are its FUNCTION_ID's bits; a success
 * accounts for every byte; decoding twice gives the same result.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/tdisp-report.h"
#include "fuzz-assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ranges(const struct tdisp_report *r, size_t size)
{
	FUZZ_ASSERT(r->nr_ranges <= TDISP_MAX_RANGES && r->nr_ranges <= r->nr_ranges_declared);
	for (unsigned int i = 0; i < r->nr_ranges; i++) {
		const struct tdisp_mmio_range *m = &r->ranges[i];
		uint64_t start, len;

		FUZZ_ASSERT(m->offset == r->report_offset + TDISP_REPORT_HDR_SIZE +
					 (size_t)i * TDISP_RANGE_SIZE);
		FUZZ_ASSERT(m->offset + TDISP_RANGE_SIZE <= size);
		FUZZ_ASSERT(m->msix_table == !!(m->attributes & TDISP_RANGE_MSIX_TABLE));
		FUZZ_ASSERT(m->non_tee == !!(m->attributes & TDISP_RANGE_NON_TEE));
		for (int unit = TDISP_UNIT_PAGE; unit <= TDISP_UNIT_BYTE; unit++) {
			if (tdisp_range_span(m, unit, &start, &len))
				continue;
			FUZZ_ASSERT(!len || start <= UINT64_MAX - (len - 1));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdisp_report r, again;
	struct ev_error err, err2;
	int rc = tdisp_report_decode(data, size, &r, &err);

	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG || rc == -E2BIG);
	FUZZ_ASSERT(!rc == !err.set);
	FUZZ_ASSERT(!err.set || err.offset <= size);
	FUZZ_ASSERT(r.report_offset <= size);
	FUZZ_ASSERT(r.requester_id == (r.function_id & 0xffff) && r.segment == ((r.function_id >> 16) & 255) &&
		    r.segment_valid == !!(r.function_id & (1u << 24)));
	FUZZ_ASSERT(r.form == TDISP_FORM_RESPONSE || (!r.function_id && !r.interface_reserved));
	check_ranges(&r, size);
	if (r.device_info)
		FUZZ_ASSERT(r.device_info == data + r.device_info_offset &&
			    r.device_info_offset + r.device_info_len <= size);
	if (!rc)
		FUZZ_ASSERT(r.report_offset + TDISP_REPORT_HDR_SIZE +
				    (size_t)r.nr_ranges * TDISP_RANGE_SIZE + 4 + r.device_info_len == size);

	FUZZ_ASSERT(tdisp_report_decode(data, size, &again, &err2) == rc);
	FUZZ_ASSERT(again.nr_ranges == r.nr_ranges && err2.offset == err.offset &&
		    !strcmp(err2.why, err.why));
	FUZZ_ASSERT(!r.nr_ranges || !memcmp(again.ranges, r.ranges, r.nr_ranges * sizeof(*r.ranges)));
	tdisp_report_release(&again);
	tdisp_report_release(&r);
	return 0;
}
