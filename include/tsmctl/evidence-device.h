/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a function itself says about the MMIO its interface report must
 * describe: its BARs (sysfs resource, one "start end flags" line per
 * resource, BARs 0-5 first) and its MSI-X capability (config space: the
 * table's and PBA's BAR indicator and offset, the table size). Pure.
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
