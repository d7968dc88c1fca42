/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a function itself says that its evidence must agree with: its BARs
 * (sysfs resource, one "start end flags" line per resource, BARs 0-5
 * first) and its MSI-X capability (config space: the table's and PBA's BAR
 * indicator and offset, the table size), which the interface report must
 * describe, and its Device Serial Number (sysfs serial_number), which the
 * leaf certificate's device-info may name. Pure.
 */
#ifndef TSMCTL_EVIDENCE_DEVICE_H
#define TSMCTL_EVIDENCE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EV_NR_BARS		6
#define EV_MSIX_ENTRY_SIZE	16	/* bytes per MSI-X table entry */

struct ev_bar {
	bool present;		/* a memory BAR with a size */
	uint64_t start, end;	/* inclusive, as resource_show() prints them */
	bool io;		/* an I/O BAR (not MMIO) */
};

struct ev_msix {
	bool present;
	unsigned int table_size;	/* entries: Message Control 10:0 + 1 */
	unsigned int table_bir, pba_bir;
	uint32_t table_offset, pba_offset;
	uint16_t control;
};

/* The BARs of a resource file's text. 0, or -EBADMSG when a line does not read. */
int ev_parse_resource(const char *text, struct ev_bar bars[EV_NR_BARS]);

/*
 * Walk CFG's capability list for MSI-X (ID 0x11). 0 found, -ENOENT none,
 * -EACCES when only the 64-byte header is there (read without root), or
 * -EBADMSG for a list that loops or points outside.
 */
int ev_find_msix(const uint8_t *cfg, size_t len, struct ev_msix *m);

/*
 * A Device Serial Number from TEXT (LEN bytes, no newline): eight bytes in
 * hex, most significant first, two digits each, joined by '-' (the kernel's
 * serial_number and lspci), ':' or ' ', or not at all (sixteen digits, an
 * optional 0x first). 0, or -EBADMSG for anything else.
 */
int ev_parse_dsn(const char *text, size_t len, uint64_t *dsn);

/*
 * The serial field of a DMTF device-info string (SAN otherName
 * id-DMTF-device-info, "manufacturer:product:serial"): what follows the
 * second ':' of INFO (LEN bytes). 0, or -ENOENT with fewer than three fields.
 */
int ev_device_info_serial(const char *info, size_t len, const char **serial, size_t *serial_len);

/* Bytes of the table and of the PBA (one bit per entry, in whole QWORDs). */
static inline uint64_t ev_msix_table_bytes(const struct ev_msix *m)
{
	return (uint64_t)m->table_size * EV_MSIX_ENTRY_SIZE;
}

static inline uint64_t ev_msix_pba_bytes(const struct ev_msix *m)
{
	return ((uint64_t)m->table_size + 63) / 64 * 8;
}

#endif
