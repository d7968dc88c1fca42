// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for sysfs.c's typed attribute readers (sysfs_attr_*) on a tree
 * built in a temporary directory used as the sysroot: what each returns for
 * the kernel's formats, for junk, for absence and for a directory.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "unit.h"


#define DEV "sys/devices/pci0000:00/0000:00:01.0"

static char root[] = "/tmp/tsmctl-test-sysfs-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
	free(path);
}

static void mk(const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);

	if (mkdir(path, 0755)) {
		perror(path);
		exit(2);
	}
	free(path);
}

static void ln(const char *target, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);

	if (symlink(target, path)) {
		perror(path);
		exit(2);
	}
	free(path);
}

static void build_tree(void)
{
	if (!mkdtemp(root)) {
		perror(root);
		exit(2);
	}
	mk("sys");
	mk("sys/devices");
	mk("sys/devices/pci0000:00");
	mk(DEV);
	mk(DEV "/tsm");
	put(DEV "/vendor", "0x15b3\n");
	put(DEV "/class", "0x000604\n");
	put(DEV "/device", "0x1ffff\n");	/* above a 16-bit ID */
	put(DEV "/sriov_numvfs", "4\n");
	put(DEV "/sriov_offset", "04\n");	/* "%u" never pads */
	put(DEV "/sriov_stride", "2 \n");
	put(DEV "/empty", "");	/* every sysfs text attribute ends in a newline */
	put(DEV "/blank", "\n");
	put(DEV "/tsm/connect", "tsm0\n");
	put(DEV "/two_lines", "a\nb\n\n");
	ln("../../../bus/pci/drivers/mlx5_core", DEV "/driver");
	ln("../../../kernel/iommu_groups/7", DEV "/iommu_group");
}

static void test_text(void)
{
	char *v = (char *)"unset";

	CHECK(sysfs_attr_text(DEV "/tsm", "connect", &v) == 0 && v && !strcmp(v, "tsm0"));
	free(v);
	CHECK(sysfs_attr_text(DEV, "blank", &v) == 0 && v && !strcmp(v, ""));
	free(v);
	v = (char *)"unset";
	CHECK(sysfs_attr_text(DEV, "empty", &v) == -ENODATA && !v);
	/* one newline goes, as the kernel's one "\n" after a value */
	CHECK(sysfs_attr_text(DEV, "two_lines", &v) == 0 && v && !strcmp(v, "a\nb\n"));
	free(v);
	v = (char *)"unset";
	CHECK(sysfs_attr_text(DEV, "missing", &v) == -ENOENT && !v);
	v = (char *)"unset";
	CHECK(sysfs_attr_text(DEV, "tsm", &v) < 0 && !v);	/* a directory is no attribute */
	CHECK(sysfs_attr_text(DEV, "../../..", &v) == -EINVAL);	/* never above the root */
}

static void test_number(void)
{
	unsigned long v = 99;

	CHECK(sysfs_attr_number(DEV, "vendor", 16, 0xffff, &v) == 0 && v == 0x15b3);
	CHECK(sysfs_attr_number(DEV, "class", 16, 0xffffff, &v) == 0 && v == 0x604);
	CHECK(sysfs_attr_number(DEV, "sriov_numvfs", 10, 0xffff, &v) == 0 && v == 4);
	v = 99;
	CHECK(sysfs_attr_number(DEV, "device", 16, 0xffff, &v) == -EBADMSG && v == 99);
	CHECK(sysfs_attr_number(DEV, "device", 16, 0x1ffff, &v) == 0 && v == 0x1ffff);
	v = 99;
	CHECK(sysfs_attr_number(DEV, "vendor", 10, 0xffff, &v) == -EBADMSG && v == 99);
	CHECK(sysfs_attr_number(DEV, "sriov_offset", 10, 0xffff, &v) == -EBADMSG && v == 99);
	CHECK(sysfs_attr_number(DEV, "sriov_stride", 10, 0xffff, &v) == -EBADMSG && v == 99);
	CHECK(sysfs_attr_number(DEV, "blank", 10, 0xffff, &v) == -EBADMSG && v == 99);
	CHECK(sysfs_attr_number(DEV, "empty", 10, 0xffff, &v) == -ENODATA && v == 99);
	CHECK(sysfs_attr_number(DEV, "sriov_numvfs", 10, 3, &v) == -EBADMSG && v == 99);
	/* a read error stays the read's, not "malformed" */
	CHECK(sysfs_attr_number(DEV, "missing", 10, 0xffff, &v) == -ENOENT && v == 99);
}

static void test_link_and_exists(void)
{
	char *name = (char *)"unset";

	CHECK(sysfs_attr_link_name(DEV, "driver", &name) == 0 && name &&
	      !strcmp(name, "mlx5_core"));
	free(name);
	CHECK(sysfs_attr_link_name(DEV, "iommu_group", &name) == 0 && name && !strcmp(name, "7"));
	free(name);
	name = (char *)"unset";
	CHECK(sysfs_attr_link_name(DEV, "physfn", &name) == -ENOENT && !name);
	name = (char *)"unset";
	CHECK(sysfs_attr_link_name(DEV, "vendor", &name) == -EINVAL && !name);	/* no link */

	CHECK(sysfs_attr_exists(DEV, "vendor"));
	CHECK(sysfs_attr_exists(DEV, "tsm"));
	CHECK(sysfs_attr_exists("sys/devices", "pci0000:00"));
	CHECK(!sysfs_attr_exists(DEV, "physfn"));
	CHECK(!sysfs_attr_exists(DEV, "driver"));	/* dangling inside the tree: absent */
}

int main(void)
{
	char *cmd;
	int rc;

	build_tree();
	if (sysfs_init(root)) {
		perror(root);
		return 2;
	}
	test_text();
	test_number();
	test_link_and_exists();
	sysfs_exit();
	cmd = xasprintf("rm -rf '%s'", root);
	rc = system(cmd);
	free(cmd);
	if (rc)
		fprintf(stderr, "could not remove %s\n", root);
	return unit_report();
}
