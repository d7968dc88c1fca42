// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The platform state beside the TSM (ABI.md §7), read into the snapshot:
 * the PSP's security attributes of each SEV-TIO TSM (SCAN_PLATFORM), the
 * SEV-SNP mitigation vectors (SCAN_PLATFORM) and the tsm-mr measurement
 * registers of guest drivers (SCAN_MEASUREMENTS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/names.h"
#include "tsmctl/pci-serial.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "scan-platform.h"

#define MR_MAX 128	/* a register is a digest: SHA-512's 64 bytes at most; more is malformed */

/* "AA.BB.CC.DD", two lower-case hex digits each (sp-pci.c's "%02lx.%02lx.%02lx.%02lx") */
static bool psp_version_ok(const char *s)
{
	if (strlen(s) != 11)
		return false;
	for (int i = 0; i < 11; i++) {
		bool dot = i % 3 == 2;

		if (dot ? s[i] != '.' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

static void read_psp_version(const char *dir, const char *name, char **out, int *err)
{
	*err = sysfs_attr_text(dir, name, out);
	if (!*err && !psp_version_ok(*out))
		*err = -EBADMSG;
	if (*err) {
		free(*out);
		*out = NULL;
	}
}

/* ABI.md §7.2: "%d\n" of one capability bit each, on the PSP's PCI function */
static struct psp_security *read_psp(const struct tsm *t)
{
	struct psp_security *p = xcalloc(1, sizeof(*p));

	p->function = t->provider;
	for (int i = 0; i < PSP_NR_BITS; i++) {
		unsigned long v;
		int rc = sysfs_attr_number(t->provider_dir, psp_bit_attr[i], 10, 1, &v);

		p->bit[i] = rc ? rc : (int)v;
	}
	read_psp_version(t->provider_dir, "bootloader_version", &p->bootloader_version,
			 &p->bootloader_err);
	read_psp_version(t->provider_dir, "tee_version", &p->tee_version, &p->tee_err);
	return p;
}

/* "0x%llx" (sev-dev.c's show()), into *V; -errno or -EBADMSG */
static int read_vector(const char *name, uint64_t *v)
{
	unsigned long n;
	int rc = sysfs_attr_number(SEV_VULNERABILITIES, name, 16, ~0UL, &n);

	if (!rc)
		*v = n;
	return rc;
}

/* ABI.md §7.3: present from 7.3 once SNP is initialised, root only */
static void read_sev_mitigations(struct sev_mitigations *m)
{
	int st = sysfs_dir_state(SEV_VULNERABILITIES);

	m->present = !st || st == -EACCES;
	if (!m->present)
		return;
	m->supported_err = read_vector("supported_mitigations", &m->supported);
	m->verified_err = read_vector("verified_mitigations", &m->verified);
}

static void read_register(const char *dir, const char *file, struct measurement_register *r)
{
	const char *colon = strchr(file, ':');
	char *path = path_join(dir, file);
	uint8_t buf[MR_MAX + 1];
	size_t len = 0;

	r->file = xstrdup(file);
	r->name = colon ? xstrndup(file, (size_t)(colon - file)) : xstrdup(file);
	r->hash = colon ? xstrdup(colon + 1) : NULL;
	r->err = sysfs_attr_mode(dir, file, &r->mode);
	if (!r->err)
		r->err = sysfs_read_bin(path, buf, sizeof(buf), &len);
	/* a register is a digest: empty or longer than any is no register */
	if (!r->err && (!len || len > MR_MAX))
		r->err = -EBADMSG;
	if (!r->err) {
		r->value = xmalloc(len);
		memcpy(r->value, buf, len);
		r->len = len;
	}
	free(path);
}

/* One misc device's measurements/ group (tsm-mr.c: an attribute group of the device). */
static void read_group(struct measurements *g, const char *device, const char *devdir)
{
	char **names;
	size_t n;

	g->device = xstrdup(device);
	g->dir = path_join(devdir, "measurements");
	g->err = sysfs_list(g->dir, &names, &n);
	if (g->err)
		return;
	g->regs = xcalloc(n ? n : 1, sizeof(*g->regs));
	for (size_t i = 0; i < n; i++)
		read_register(g->dir, names[i], &g->regs[g->nr_regs++]);
	strv_free(names, n);
}

/* Every misc device with a measurements/ group: tdx_guest (ABI.md §7.1), the tsm-mr sample. */
static void read_measurements(struct tsm_snapshot *snap)
{
	char **names;
	size_t n;

	if (sysfs_list(MISC_CLASS, &names, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		char *link = path_join(MISC_CLASS, names[i]), *dir = NULL;
		char *group = path_join(link, "measurements");
		int st = sysfs_dir_state(group);

		if ((!st || st == -EACCES) && !sysfs_resolve_link(link, &dir)) {
			snap->mr_groups = xrealloc(snap->mr_groups, (snap->nr_mr_groups + 1) *
						   sizeof(*snap->mr_groups));
			memset(&snap->mr_groups[snap->nr_mr_groups], 0, sizeof(*snap->mr_groups));
			read_group(&snap->mr_groups[snap->nr_mr_groups++], names[i], dir);
		}
		free(dir);
		free(group);
		free(link);
	}
	strv_free(names, n);
}

void scan_platform(struct tsm_snapshot *snap, unsigned int flags)
{
	if (flags & SCAN_PLATFORM) {
		for (size_t i = 0; i < snap->nr_tsms; i++)
			if (tsm_is_sev_tio(snap->tsms[i]) && snap->tsms[i]->provider_dir)
				snap->tsms[i]->psp = read_psp(snap->tsms[i]);
		read_sev_mitigations(&snap->sev_mit);
	}
	if (flags & SCAN_MEASUREMENTS)
		read_measurements(snap);
}

void scan_read_serial(struct pci_func *f)
{
	int rc = pci_serial_read(f->dir, &f->serial_number);

	/* absent is no error: a function without a DSN, or a kernel before 7.x */
	f->has_serial = rc != -ENOENT;
	f->serial_err = f->has_serial ? rc : 0;
}
