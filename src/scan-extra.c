// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a few commands read beyond the one scan: a function's BARs, IOMMU
 * group and serial number for devices -v (SCAN_DETAIL), and the host bridge of any PCI
 * function a filter names (host-bridges -d), looked up as the filters' names
 * are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/names.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "scan-extra.h"
#include "scan-platform.h"

#define IORESOURCE_IO	0x100	/* include/linux/ioport.h */
#define IORESOURCE_MEM	0x200
#define NR_BAR_LINES	7	/* resource_show(): BARs 0-5, then the ROM (PCI_ROM_RESOURCE) */

/* "0x%016llx" as resource_show() prints it: 0, or -EINVAL. */
static int parse_hex64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	for (size_t i = 2; i < len; i++) {
		int c = s[i];
		unsigned int d = c >= '0' && c <= '9' ? (unsigned int)(c - '0') :
				 c >= 'a' && c <= 'f' ? (unsigned int)(c - 'a' + 10) : 16;

		if (d > 15)
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* One resource line "START END FLAGS" into B: 0, or -EINVAL. */
static int parse_resource_line(const char *line, size_t len, struct pci_bar *b)
{
	uint64_t v[3];
	size_t pos = 0;

	for (int i = 0; i < 3; i++) {
		size_t n = 0;

		while (pos + n < len && line[pos + n] != ' ')
			n++;
		if (parse_hex64(line + pos, n, &v[i]))
			return -EINVAL;
		pos += n + (i < 2);
		if (i < 2 && pos > len)
			return -EINVAL;
	}
	if (pos != len)
		return -EINVAL;
	b->start = v[0];
	b->end = v[1];
	b->flags = v[2];
	return 0;
}

/* drivers/pci/pci-sysfs.c resource_show(): one line per resource; those in use kept. */
static void read_bars(struct pci_func *f)
{
	char *text = NULL;
	struct pci_bar *bars = xcalloc(NR_BAR_LINES, sizeof(*bars));
	const char *line;
	size_t n = 0;
	unsigned int i = 0;

	if (sysfs_attr_text(f->dir, "resource", &text))
		goto fail;
	for (line = text; *line && i < NR_BAR_LINES; i++) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct pci_bar b = { .index = i };

		if (parse_resource_line(line, len, &b))
			goto fail;	/* not what the kernel prints: unknown, not "none" */
		if (b.flags & (IORESOURCE_IO | IORESOURCE_MEM))
			bars[n++] = b;
		line += len + (nl != NULL);
	}
	f->bars = bars;
	f->nr_bars = n;
	f->bars_known = true;
	free(text);
	return;
fail:
	free(bars);
	free(text);
}

/* drivers/iommu/iommu.c iommu_group_add_device(): iommu_group -> ../../kernel/iommu_groups/N */
static void read_iommu_group(struct pci_func *f)
{
	unsigned long id;

	if (!sysfs_attr_link_name(f->dir, "iommu_group", &f->iommu_group) &&
	    parse_ulong(f->iommu_group, &id)) {
		free(f->iommu_group);
		f->iommu_group = NULL;
	}
}

void scan_read_func_extras(struct pci_func *f)
{
	read_bars(f);
	read_iommu_group(f);
	scan_read_serial(f);
}

void snapshot_device_hbs(const struct tsm_snapshot *snap, const char *name,
			 const struct host_bridge **hbs, size_t *n)
{
	bool slot = bdf_is_slot(name);

	for (unsigned int fn = 0; fn < (slot ? 8 : 1); fn++) {
		char *bdf = slot ? xasprintf("%.*s%u", (int)strlen(name) - 1, name, fn) :
			    xstrdup(name);
		char *link = path_join(PCI_DEVICES, bdf), *dir;
		const struct host_bridge *hb = NULL;
		size_t i;

		if (!sysfs_resolve_link(link, &dir)) {
			hb = snapshot_hb_holding(snap, dir);
			free(dir);
		}
		for (i = 0; hb && i < *n && hbs[i] != hb; i++)
			;
		if (hb && i == *n)
			hbs[(*n)++] = hb;
		free(link);
		free(bdf);
	}
}
