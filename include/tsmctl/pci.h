/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libpci, pointed at the same root as sysfs.c, for vendor and device names. */
#ifndef TSMCTL_PCI_H
#define TSMCTL_PCI_H

#include <stdint.h>

/* Names from pci.ids, or NULL when unknown. libpci is set up on first use. */
char *pci_vendor_name(uint16_t vendor);
char *pci_device_name(uint16_t vendor, uint16_t device);
void pci_names_exit(void);

#endif
