/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the scan reads of a function for devices -v only (scan-extra.c); the scan's own header. */
#ifndef TSMCTL_SCAN_EXTRA_H
#define TSMCTL_SCAN_EXTRA_H

#include "tsmctl/snapshot.h"

/* F's BARs (its resource file), IOMMU group (its iommu_group link), serial_number; F->dir is set. */
void scan_read_func_extras(struct pci_func *f);

#endif
