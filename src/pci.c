// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libpci is only used for the ID database. It is initialised lazily, so
 * commands that print no names (streams, audit) never load pci.ids.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <pci/pci.h>

#include "tsmctl/pci.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

static struct pci_access *pacc;
static bool pacc_failed;

static void quiet(char *msg, ...)
{
	(void)msg;
}

static struct pci_access *names_access(void)
{
	char *path;

	if (pacc || pacc_failed)
		return pacc;
	pacc = pci_alloc();
	if (!pacc) {
		pacc_failed = true;
		return NULL;
	}
	pacc->warning = quiet;
	pacc->debug = quiet;
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	/* Same root as every other read (issue: rooted access). */
	path = xasprintf("%s/sys/bus/pci", sysfs_is_live() ? "" : sysfs_root_path());
	pci_set_param(pacc, "sysfs.path", path);
	free(path);
	/* No ID cache: on a miss libpci looks up ~ via getpwuid() and reads ~/.pciids-cache. */
	pci_set_param(pacc, "net.cache_name", "");
	pci_init(pacc);
	return pacc;
}

static char *lookup(int flags, unsigned int a, unsigned int b)
{
	struct pci_access *acc = names_access();
	char buf[256], *name;

	if (!acc)
		return NULL;
	name = pci_lookup_name(acc, buf, sizeof(buf),
			       flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, a, b);
	return name ? xstrdup(name) : NULL;
}

char *pci_vendor_name(uint16_t vendor)
{
	return lookup(PCI_LOOKUP_VENDOR, vendor, 0);
}

char *pci_device_name(uint16_t vendor, uint16_t device)
{
	return lookup(PCI_LOOKUP_DEVICE, vendor, device);
}

void pci_names_exit(void)
{
	if (pacc)
		pci_cleanup(pacc);
	pacc = NULL;
}
