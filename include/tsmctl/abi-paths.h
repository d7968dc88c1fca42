/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's directories tsmctl reads and writes, relative to the
 * sysroot (doc/ABI.md): one place for each, so a move in the ABI is one line.
 */
#ifndef TSMCTL_ABI_PATHS_H
#define TSMCTL_ABI_PATHS_H

#define PCI_DEVICES	"sys/bus/pci/devices"		/* BDF links, each with its tsm/ */
#define PCI_DRIVERS	"sys/bus/pci/drivers"		/* DRIVER/unbind */
#define TSM_CLASS	"sys/class/tsm"			/* tsmN */
#define PCI_BUS_CLASS	"sys/class/pci_bus"		/* DDDD:BB links to the bus's bridge */
#define SYS_DEVICES	"sys/devices"			/* host bridges pciDDDD:BB, their streams */
#define SYS_DEVICES_FAUX	"sys/devices/faux"	/* faux bus: tdx_host, the devsec sample */
#define SYS_DEVICES_PLATFORM	"sys/devices/platform"
#define TDX_HOST_VERSION	SYS_DEVICES_FAUX "/tdx_host/version"
#define DEVSEC_BUS	SYS_DEVICES_FAUX "/devsec_bus/"	/* the devsec sample's emulated bus */
#define SYS_MODULE	"sys/module"			/* loaded and built-in modules */
#define CONFIGFS	"sys/kernel/config"
#define CONFIGFS_TSM	CONFIGFS "/tsm"			/* TSM reports */
#define MISC_CLASS	"sys/class/misc"		/* tdx_guest: its measurements/ (tsm-mr) */
#define SEV_VULNERABILITIES	"sys/firmware/sev/vulnerabilities"	/* SEV-SNP mitigations (7.3) */

#endif
