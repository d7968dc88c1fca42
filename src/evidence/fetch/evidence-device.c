// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A function's BARs from sysfs resource and its MSI-X capability from config
 * space (evidence-device.h), for checking an interface report against them.
 * resource_show() (drivers/pci/pci-sysfs.c) prints "0x%016llx 0x%016llx
 * 0x%016llx" (start, end, flags) per resource; MSI-X is PCI Local Bus 3.0
 * §6.8.2 (include/uapi/linux/pci_regs.h PCI_MSIX_*). The Device Serial Number
 * is the kernel's serial_number, serial_number_show() in pci-sysfs.c: the
 * 64-bit DSN big-endian, "%8phD" (eight bytes, two lower-case hex digits
 * each, joined by '-', a newline), the form lspci prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tsmctl/evidence-device.h"

#define IORESOURCE_IO		0x00000100
#define IORESOURCE_MEM		0x00000200
#define PCI_STATUS		0x06
#define PCI_STATUS_CAP_LIST	0x10
#define PCI_CAPABILITY_LIST	0x34
#define PCI_CAP_ID_MSIX		0x11
#define PCI_HEADER_SIZE		64
#define PCI_STD_CONFIG_SIZE	256
#define PCI_CAP_MAX_WALK	48	/* the kernel's PCI_FIND_CAP_TTL */
#define PCI_MSIX_FLAGS		2
#define PCI_MSIX_TABLE		4
#define PCI_MSIX_PBA		8
#define PCI_MSIX_BIR		0x7u
#define PCI_MSIX_QSIZE		0x07ffu

int ev_parse_resource(const char *text, struct ev_bar bars[EV_NR_BARS])
{
	const char *p = text;

	memset(bars, 0, sizeof(*bars) * EV_NR_BARS);
	for (int i = 0; i < EV_NR_BARS && *p; i++) {
		uint64_t start, end, flags;
		int n = 0;

		if (sscanf(p, "%" SCNx64 " %" SCNx64 " %" SCNx64 "%n", &start, &end, &flags, &n) != 3)
			return -EBADMSG;
		p += n;
		while (*p == '\n' || *p == ' ')
			p++;
		if (!(flags & (IORESOURCE_MEM | IORESOURCE_IO)) || end < start || (!start && !end))
			continue;
		bars[i] = (struct ev_bar){ .present = true, .start = start, .end = end,
					   .io = (flags & IORESOURCE_IO) != 0 };
	}
	return 0;
}

static uint16_t rd16(const uint8_t *b, size_t off)
{
	return (uint16_t)(b[off] | b[off + 1] << 8);
}

static uint32_t rd32(const uint8_t *b, size_t off)
{
	return (uint32_t)rd16(b, off) | (uint32_t)rd16(b, off + 2) << 16;
}

int ev_find_msix(const uint8_t *cfg, size_t len, struct ev_msix *m)
{
	unsigned int pos;

	memset(m, 0, sizeof(*m));
	if (len < PCI_HEADER_SIZE)
		return -EBADMSG;
	if (!(rd16(cfg, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return -ENOENT;
	if (len < PCI_STD_CONFIG_SIZE)
		return -EACCES;	/* the list lives past the header others may read */
	pos = cfg[PCI_CAPABILITY_LIST];
	for (int ttl = PCI_CAP_MAX_WALK; pos; ttl--) {
		pos &= ~3u;
		if (!ttl || pos < PCI_HEADER_SIZE || pos + 2 > PCI_STD_CONFIG_SIZE)
			return -EBADMSG;
		if (cfg[pos] == PCI_CAP_ID_MSIX) {
			if (pos + PCI_MSIX_PBA + 4 > PCI_STD_CONFIG_SIZE)
				return -EBADMSG;
			uint32_t table = rd32(cfg, pos + PCI_MSIX_TABLE), pba = rd32(cfg, pos + PCI_MSIX_PBA);

			m->present = true;
			m->control = rd16(cfg, pos + PCI_MSIX_FLAGS);
			m->table_size = (m->control & PCI_MSIX_QSIZE) + 1;
			m->table_bir = table & PCI_MSIX_BIR;
			m->table_offset = table & ~PCI_MSIX_BIR;
			m->pba_bir = pba & PCI_MSIX_BIR;
			m->pba_offset = pba & ~PCI_MSIX_BIR;
			return 0;
		}
		pos = cfg[pos + 1];
	}
	return -ENOENT;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ev_parse_dsn(const char *text, size_t len, uint64_t *dsn)
{
	size_t i = 0;
	char sep = 0;

	*dsn = 0;
	if (len == 18 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		i = 2;		/* 0x and sixteen digits */
	else if (len == 23)
		sep = text[2];	/* eight pairs, seven separators */
	if ((len != 16 && len != 23 && i != 2) || (sep && !strchr("-: ", sep)))
		return -EBADMSG;
	for (unsigned int byte = 0; byte < 8; byte++) {
		int hi, lo;

		if (byte && sep && text[i++] != sep)
			return -EBADMSG;
		hi = hex_digit(text[i]);
		lo = hex_digit(text[i + 1]);
		if (hi < 0 || lo < 0)
			return -EBADMSG;
		*dsn = *dsn << 8 | (uint64_t)(hi << 4 | lo);
		i += 2;
	}
	return i == len ? 0 : -EBADMSG;
}

int ev_device_info_serial(const char *info, size_t len, const char **serial, size_t *serial_len)
{
	const char *end = info + len, *first = memchr(info, ':', len), *second;

	second = first ? memchr(first + 1, ':', (size_t)(end - first - 1)) : NULL;
	if (!second)
		return -ENOENT;
	*serial = second + 1;
	*serial_len = (size_t)(end - *serial);
	return 0;
}
