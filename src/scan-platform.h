/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the scan reads of the platform state beside the TSM (scan-platform.c, ABI.md §7). */
#ifndef TSMCTL_SCAN_PLATFORM_H
#define TSMCTL_SCAN_PLATFORM_H

#include "tsmctl/snapshot.h"

/* SCAN_PLATFORM and SCAN_MEASUREMENTS of FLAGS into SNAP, its TSMs already read. */
void scan_platform(struct tsm_snapshot *snap, unsigned int flags);
/* F's serial_number (devices -v), F->dir set. */
void scan_read_serial(struct pci_func *f);

#endif
