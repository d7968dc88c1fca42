/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsmtest: what tsmtest_bus offers tsmtest_link. Written for tsmctl's
 * make check-kernel; not kernel code, a test rig for the kernel's own
 * PCI TSM core (drivers/pci/tsm.c) and IDE helpers (drivers/pci/ide.c).
 */
#ifndef TSMTEST_H
#define TSMTEST_H

struct pci_dev;
struct pci_host_bridge;

/* Is @pdev below one of tsmtest_bus's host bridges? */
bool tsmtest_bus_owns(struct pci_dev *pdev);
/* The @i-th host bridge of tsmtest_bus, NULL past the last. */
struct pci_host_bridge *tsmtest_bus_bridge(int i);

#endif
