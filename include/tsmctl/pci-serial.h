/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A PCI function's serial_number (ABI.md §1.2, §7.4): Linux 7.x's root-only
 * "%8phD" of its Device Serial Number. devices -v and the evidence set both
 * read it here, so they agree on what the kernel showed.
 */
#ifndef TSMCTL_PCI_SERIAL_H
#define TSMCTL_PCI_SERIAL_H

#include <stdbool.h>

#define PCI_SERIAL_ATTR	"serial_number"

/* TEXT is the kernel's "%8phD": eight pairs of lower-case hex digits joined by '-'. */
bool pci_serial_form_ok(const char *text);

/*
 * The serial_number of the function whose sysfs directory is DIR: 0 with
 * *TEXT (no newline), else *TEXT NULL and -ENOENT (no DSN, or a kernel before
 * 7.x), -EACCES (root only), -EIO (the DSN reads 0 now), -EBADMSG (not
 * "%8phD"), or another error of the read.
 */
int pci_serial_read(const char *dir, char **text);

#endif
