// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one reader of a PCI function's serial_number (pci-serial.h):
 * serial_number_show() in drivers/pci/pci-sysfs.c prints the DSN
 * big-endian as "%8phD", and nothing else is the kernel's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/pci-serial.h"
#include "tsmctl/sysfs.h"

#define SERIAL_LEN	23	/* 8 pairs, 7 dashes */

bool pci_serial_form_ok(const char *text)
{
	if (strlen(text) != SERIAL_LEN)
		return false;
	for (int i = 0; i < SERIAL_LEN; i++)
		if (i % 3 == 2 ? text[i] != '-' : !strchr("0123456789abcdef", text[i]))
			return false;
	return true;
}

int pci_serial_read(const char *dir, char **text)
{
	int rc = sysfs_attr_text(dir, PCI_SERIAL_ATTR, text);

	if (!rc && !pci_serial_form_ok(*text)) {
		free(*text);
		*text = NULL;
		rc = -EBADMSG;
	}
	return rc;
}
