// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-platform.c: the platform state an administrator checks beside the
 * TSM, as Linux 7.2 and 7.3 show it (doc/sim-sources.md, "The platform state
 * beside the TSM", has the file:line of each rule):
 *
 *  - tsm-mr's measurement registers of the tdx_guest misc device
 *    (drivers/virt/coco/guest/tsm-mr.c, drivers/virt/coco/tdx-guest/tdx-guest.c):
 *    binary attributes of 48 bytes; an RTMR extends with exactly 48 bytes at
 *    offset 0 (sysfs_kf_bin_write() and tm_digest_write());
 *  - the PSP's security attributes (drivers/crypto/ccp/hsti.c, sp-pci.c);
 *  - the SEV-SNP mitigation vectors (drivers/crypto/ccp/sev-dev.c, 7.3);
 *  - PCI serial_number (drivers/pci/pci-sysfs.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define RO 0444
#define ADMIN_RO 0400	/* DEVICE_ATTR_ADMIN_RO, __ATTR_RO_MODE(..., 0400) */
#define ADMIN_RW 0600	/* __ATTR_RW_MODE(..., 0600) */
#define RTMR_MODE 0644	/* TSM_MR_F_READABLE (0444) | TSM_MR_F_WRITABLE (0200) */
#define NR_RTMRS 4

/* tdx-guest.c tdx_mrs[]: names as tsm_mr_create_attribute_group() makes them ("MR:HASH" unless NOHASH) */
static const char *const mr_files[SIM_NR_TDX_MRS] = {
	"rtmr0:sha384", "rtmr1:sha384", "rtmr2:sha384", "rtmr3:sha384",
	"mrtd:sha384", "mrconfigid", "mrowner", "mrownerconfig",
};

/* hsti.c psp_security_attrs[], in its order; boot_integrity (7.0) second */
static const struct {
	const char *name;
	size_t off;
} psp_bits[] = {
	{ "fused_part", offsetof(struct sim_psp, fused_part) },
	{ "boot_integrity", offsetof(struct sim_psp, boot_integrity) },
	{ "debug_lock_on", offsetof(struct sim_psp, debug_lock_on) },
	{ "tsme_status", offsetof(struct sim_psp, tsme_status) },
	{ "anti_rollback_status", offsetof(struct sim_psp, anti_rollback_status) },
	{ "rpmc_production_enabled", offsetof(struct sim_psp, rpmc_production_enabled) },
	{ "rpmc_spirom_available", offsetof(struct sim_psp, rpmc_spirom_available) },
	{ "hsp_tpm_available", offsetof(struct sim_psp, hsp_tpm_available) },
	{ "rom_armor_enforced", offsetof(struct sim_psp, rom_armor_enforced) },
};

#define PSP_VERSION_HIDDEN 0xffffffffu	/* psp_firmware_is_visible(): "it will be all f's" */

static bool tdx_guest_live(const struct sim_model *m)
{
	return m->tdx_guest.present && sim_module_live(m, "tdx_guest");
}

/* sev_snp_register_verify_mitigation() ran: SNP initialised by ccp, the feature reported */
static bool sev_vuln_live(const struct sim_model *m)
{
	return m->sev_mit.present && sim_module_live(m, "ccp");
}

/* the ccp driver's dev_groups (sp-pci.c psp_groups) exist while it is bound */
static bool psp_live(const struct sim_dev *d)
{
	return d->present && d->psp.present && d->driver && !strcmp(d->driver, "ccp");
}

static int put_or_remove(const char *root, const char *dir, const char *name, bool visible,
			 const char *text, unsigned mode)
{
	char *p = sim_path_join(dir, name);
	int rc = visible ? sim_fs_put_str(root, p, text, mode) : sim_fs_remove(root, p);

	free(p);
	return rc;
}

/* The misc device tdx_guest (misc_register()) and its measurements group. */
static int sync_tdx_guest(const struct sim_model *m, const char *root)
{
	const char *dir = SIM_TDX_GUEST_DIR;
	char *mdir;
	int rc = 0;

	if (!tdx_guest_live(m)) {
		sim_fs_remove(root, "sys/class/misc/tdx_guest");
		return sim_fs_remove(root, dir);
	}
	mdir = sim_path_join(dir, "measurements");
	rc = sim_fs_mkdir_p(root, mdir) ?: sim_fs_mkdir_p(root, "sys/class/misc");
	if (!rc)
		rc = put_or_remove(root, dir, "uevent", true, "MAJOR=10\nMINOR=122\nDEVNAME=tdx_guest\n",
				   0644) ?:
		     put_or_remove(root, dir, "dev", true, "10:122\n", RO) ?:
		     sim_fs_link(root, "sys/devices/virtual/misc/tdx_guest/subsystem",
				 "../../../../class/misc") ?:
		     sim_fs_link(root, "sys/class/misc/tdx_guest",
				 "../../devices/virtual/misc/tdx_guest");
	for (int i = 0; !rc && i < SIM_NR_TDX_MRS; i++) {
		char *p = sim_path_join(mdir, mr_files[i]);

		rc = sim_fs_put(root, p, m->tdx_guest.mr[i], SIM_MR_SIZE,
				i < NR_RTMRS ? RTMR_MODE : RO);
		free(p);
	}
	free(mdir);
	return rc;
}

/* sys/firmware/sev/vulnerabilities: kobjects, no uevent file; the vectors as show() prints them */
static int sync_sev_vuln(const struct sim_model *m, const char *root)
{
	const struct sim_sev_mitigations *v = &m->sev_mit;
	char *sup, *ver;
	int rc;

	if (!sev_vuln_live(m))
		return sim_fs_remove(root, "sys/firmware/sev");
	sup = sim_xasprintf("0x%llx\n", (unsigned long long)v->supported);
	ver = sim_xasprintf("0x%llx\n", (unsigned long long)v->verified);
	rc = sim_fs_mkdir_p(root, SIM_SEV_VULN_DIR) ?:
	     put_or_remove(root, SIM_SEV_VULN_DIR, "supported_mitigations", true, sup, ADMIN_RO) ?:
	     put_or_remove(root, SIM_SEV_VULN_DIR, "verified_mitigations", true, ver, ADMIN_RW);
	free(sup);
	free(ver);
	return rc;
}

int sim_platform_sync(const struct sim_model *m, const char *root)
{
	return sync_tdx_guest(m, root) ?: sync_sev_vuln(m, root);
}

/* "%02lx.%02lx.%02lx.%02lx" of the register, or NULL when it reads all ones (hidden) */
static char *psp_version(uint64_t reg)
{
	uint32_t v = (uint32_t)reg;

	if (v == PSP_VERSION_HIDDEN)
		return NULL;
	return sim_xasprintf("%02x.%02x.%02x.%02x\n", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff,
			     v & 0xff);
}

static int sync_psp(const struct sim_dev *d, const char *root)
{
	const struct sim_psp *p = &d->psp;
	bool live = psp_live(d);
	char *bl = live ? psp_version(p->bootloader_version) : NULL;
	char *tee = live ? psp_version(p->tee_version) : NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(psp_bits) / sizeof(psp_bits[0]); i++) {
		bool on = *(const bool *)((const char *)p + psp_bits[i].off);
		bool shown = live && p->security_reporting &&
			     (strcmp(psp_bits[i].name, "boot_integrity") || p->has_boot_integrity);

		rc = put_or_remove(root, d->dir, psp_bits[i].name, shown, on ? "1\n" : "0\n", RO);
	}
	if (!rc)
		rc = put_or_remove(root, d->dir, "bootloader_version", bl, bl ? bl : "", RO) ?:
		     put_or_remove(root, d->dir, "tee_version", tee, tee ? tee : "", RO);
	free(bl);
	free(tee);
	return rc;
}

/* serial_number_show(): "%8phD" of the DSN in big-endian byte order */
static char *dsn_text(uint64_t dsn)
{
	char t[3 * 8 + 1];
	size_t pos = 0;

	for (int i = 7; i >= 0; i--)
		pos += (size_t)snprintf(t + pos, sizeof(t) - pos, "%02x%s",
					(unsigned)(dsn >> (8 * i)) & 0xff, i ? "-" : "\n");
	return sim_xstrdup(t);
}

int sim_platform_dev_sync(const struct sim_model *m, const struct sim_dev *d, const char *root)
{
	char *s = dsn_text(d->dsn);
	int rc;

	(void)m;
	/* pci_dev_attrs_are_visible(): only with a non-zero DSN at enumeration */
	rc = put_or_remove(root, d->dir, "serial_number", d->present && d->dsn, s, ADMIN_RO) ?:
	     sync_psp(d, root);
	free(s);
	return rc;
}

/* mr_files[] index of REL, -1 when it is none of tdx_guest's registers */
static int mr_index(const struct sim_model *m, const char *rel)
{
	static const char prefix[] = SIM_TDX_GUEST_DIR "/measurements/";

	if (!tdx_guest_live(m) || strncmp(rel, prefix, sizeof(prefix) - 1))
		return -1;
	for (int i = 0; i < SIM_NR_TDX_MRS; i++)
		if (!strcmp(rel + sizeof(prefix) - 1, mr_files[i]))
			return i;
	return -1;
}

bool sim_platform_bin_attr(const struct sim_model *m, const char *rel)
{
	return mr_index(m, rel[0] == '/' ? rel + 1 : rel) >= 0;
}

int sim_platform_read_errno(const struct sim_model *m, const struct sim_dev *d, const char *attr)
{
	/* serial_number_show(): pci_get_dsn() reads 0 now → EIO */
	if (d && !strcmp(attr, "serial_number") && d->dsn && d->dsn_reads_zero)
		return -EIO;
	/* supported_/verified_mitigations_show(): the STATUS subcommand's error */
	if (!d && sev_vuln_live(m) && m->sev_mit.status_errno &&
	    !strncmp(attr, SIM_SEV_VULN_DIR "/", sizeof(SIM_SEV_VULN_DIR)))
		return -m->sev_mit.status_errno;
	return 0;
}

/* lib/kstrtox.c kstrtoull(s, 0, ...): a '+', 0x hex, 0 octal, else decimal; one '\n' at the end */
static int kstrtoull0(const char *s, unsigned long long *out)
{
	unsigned base = 10, rv = 0;
	unsigned long long res = 0;
	bool overflow = false;

	if (*s == '+')
		s++;
	if (s[0] == '0')
		base = (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]) ? 16 : 8;
	if (base == 16)
		s += 2;
	for (;; s++, rv++) {
		unsigned c = (unsigned char)*s, lc = c | 0x20, val;

		if (c >= '0' && c <= '9')
			val = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			val = lc - 'a' + 10;
		else
			break;
		if (val >= base)
			break;
		if (__builtin_mul_overflow(res, base, &res) || __builtin_add_overflow(res, val, &res))
			overflow = true;
	}
	if (overflow)
		return -ERANGE;
	if (!rv)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*out = res;
	return 0;
}

/*
 * verified_mitigations_store(): kstrtoull(buf, 0), exactly one bit (else
 * EINVAL), SNP_VERIFY_MITIGATION's VERIFY, a failure status EINVAL. Which
 * status the firmware gives a bit it does not support is not public: a
 * failure status here (a guess, doc/sim-sources.md).
 */
static ssize_t verify_store(struct sim_model *m, const char *buf, size_t size)
{
	struct sim_sev_mitigations *v = &m->sev_mit;
	char *s = strndup(buf, size);	/* kernfs passes a NUL-terminated copy */
	unsigned long long vec;
	int rc;

	if (!s)
		return -ENOMEM;
	rc = kstrtoull0(s, &vec);
	free(s);
	if (rc)
		return rc;
	if (__builtin_popcountll(vec) != 1)
		return -EINVAL;
	if (v->verify_errno)
		return -v->verify_errno;
	if (!(vec & v->supported) || (vec & v->verify_fail))
		return -EINVAL;
	v->verified |= vec;
	return (ssize_t)size;
}

/* The TDX module's RTMR extend: SHA-384 of the register's value followed by the 48 bytes given. */
int sim_platform_rtmr_extend(struct sim_model *m, unsigned i, const uint8_t *data)
{
	uint8_t in[2 * SIM_MR_SIZE];
	unsigned len = 0;

	if (i >= NR_RTMRS)
		return -ENXIO;	/* TDCALL_INVALID_OPERAND */
	if (m->tdx_guest.extend_errno)
		return -m->tdx_guest.extend_errno;
	memcpy(in, m->tdx_guest.mr[i], SIM_MR_SIZE);
	memcpy(in + SIM_MR_SIZE, data, SIM_MR_SIZE);
	if (!EVP_Digest(in, sizeof(in), m->tdx_guest.mr[i], &len, EVP_sha384(), NULL) ||
	    len != SIM_MR_SIZE)
		return -EIO;
	return 0;
}

/*
 * sysfs_kf_bin_write() then tm_digest_write(): past the size EFBIG; the
 * count cut to what fits; anything but the whole 48 bytes at offset 0 EINVAL;
 * the read-only registers never get here (no write bit: EACCES at open).
 */
static ssize_t mr_store(struct sim_model *m, int i, const char *buf, size_t size, off_t off)
{
	int rc;

	if (i >= NR_RTMRS)
		return -EIO;	/* no ->write: sysfs_kf_bin_write() */
	if (off >= SIM_MR_SIZE)
		return -EFBIG;
	if (size > (size_t)(SIM_MR_SIZE - off))
		size = (size_t)(SIM_MR_SIZE - off);
	if (off != 0 || size != SIM_MR_SIZE)
		return -EINVAL;
	rc = sim_platform_rtmr_extend(m, (unsigned)i, (const uint8_t *)buf);
	return rc ? rc : (ssize_t)size;
}

bool sim_platform_store(struct sim_model *m, const char *rel, const char *buf, size_t size,
			off_t off, ssize_t *rc)
{
	int i;

	if (rel[0] == '/')
		rel++;
	i = mr_index(m, rel);
	if (i >= 0) {
		*rc = mr_store(m, i, buf, size, off);
		return true;
	}
	if (sev_vuln_live(m) && !strcmp(rel, SIM_SEV_VULN_DIR "/verified_mitigations")) {
		*rc = verify_store(m, buf, size);
		return true;
	}
	return false;
}
