// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for what a function says of itself that its evidence must
 * agree with (src/evidence/fetch/evidence-device.c): byte 0 picks the parser, the rest is
 * its input. 0: ev_parse_dsn() (the kernel's serial_number, or a leaf's
 * device-info serial) and ev_device_info_serial(); 1: ev_parse_resource()
 * (a resource file's text); 2: ev_find_msix() (config space). Checked
 * besides crashes: 0 or the documented errors; a DSN that parses prints back
 * in the kernel's form and parses to itself; a device-info serial lies
 * inside the input after two ':'; BARs are ordered, I/O or memory, their
 * end at or past their start; MSI-X's BIRs are 0..7 and its table at least
 * one entry; the same twice.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-device.h"
#include "fuzz-assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_dsn(const char *text, size_t len)
{
	uint64_t dsn, again;
	const char *serial;
	size_t serial_len;
	char printed[32];
	int rc = ev_parse_dsn(text, len, &dsn);

	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG);
	FUZZ_ASSERT(ev_parse_dsn(text, len, &again) == rc && (rc || again == dsn));
	if (!rc) {
		/* the kernel's "%8phD" of the number parses back to it */
		snprintf(printed, sizeof(printed), "%02x-%02x-%02x-%02x-%02x-%02x-%02x-%02x",
			 (unsigned int)(dsn >> 56), (unsigned int)(dsn >> 48) & 255,
			 (unsigned int)(dsn >> 40) & 255, (unsigned int)(dsn >> 32) & 255,
			 (unsigned int)(dsn >> 24) & 255, (unsigned int)(dsn >> 16) & 255,
			 (unsigned int)(dsn >> 8) & 255, (unsigned int)dsn & 255);
		FUZZ_ASSERT(!ev_parse_dsn(printed, strlen(printed), &again) && again == dsn);
		FUZZ_ASSERT(len == 16 || len == 18 || len == 23);
	}
	rc = ev_device_info_serial(text, len, &serial, &serial_len);
	FUZZ_ASSERT(rc == 0 || rc == -ENOENT);
	if (!rc) {
		FUZZ_ASSERT(serial >= text + 2 && serial + serial_len == text + len);
		FUZZ_ASSERT(serial[-1] == ':' && memchr(text, ':', (size_t)(serial - text - 1)));
	} else {
		const char *colon = memchr(text, ':', len);

		FUZZ_ASSERT(!colon || !memchr(colon + 1, ':', len - (size_t)(colon + 1 - text)));
	}
}

static void fuzz_resource(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct ev_bar bars[EV_NR_BARS], again[EV_NR_BARS];
	int rc;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = ev_parse_resource(text, bars);
	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG);
	for (unsigned int i = 0; !rc && i < EV_NR_BARS; i++)
		FUZZ_ASSERT(!bars[i].present || bars[i].end >= bars[i].start);
	FUZZ_ASSERT(ev_parse_resource(text, again) == rc);
	FUZZ_ASSERT(rc || !memcmp(bars, again, sizeof(bars)));
	free(text);
}

static void fuzz_msix(const uint8_t *data, size_t size)
{
	struct ev_msix m, again;
	int rc = ev_find_msix(data, size, &m);

	FUZZ_ASSERT(rc == 0 || rc == -ENOENT || rc == -EACCES || rc == -EBADMSG);
	FUZZ_ASSERT(!rc == m.present);
	if (!rc)
		FUZZ_ASSERT(m.table_bir < 8 && m.pba_bir < 8 && m.table_size >= 1 && m.table_size <= 2048 &&
			    !(m.table_offset & 7) && !(m.pba_offset & 7));
	FUZZ_ASSERT(ev_find_msix(data, size, &again) == rc && !memcmp(&m, &again, sizeof(m)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_dsn((const char *)data + 1, size - 1);
		break;
	case 1:
		fuzz_resource(data + 1, size - 1);
		break;
	default:
		fuzz_msix(data + 1, size - 1);
	}
	return 0;
}
