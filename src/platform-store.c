// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stores of the platform state beside the TSM (ABI.md §7): extending a
 * measurement register, verifying a SEV-SNP mitigation. Each writes once,
 * in the form the kernel takes, and reads back what the kernel shows; the
 * commands judge and explain.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/names.h"
#include "tsmctl/platform-store.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

/* The register's value now, into OUT (room for MR_VALUE_MAX): its length, or -errno. */
static ssize_t mr_read(const struct measurements *g, const struct measurement_register *r,
		       uint8_t *out)
{
	char *path = path_join(g->dir, r->file);
	size_t len = 0;
	int rc = sysfs_read_bin(path, out, MR_VALUE_MAX, &len);

	free(path);
	return rc ? rc : (ssize_t)len;
}

int mr_extend(const struct measurements *g, const struct measurement_register *r,
	      const uint8_t *data, size_t len, struct mr_extend_result *res)
{
	char *path = path_join(g->dir, r->file);
	ssize_t n;

	memset(res, 0, sizeof(*res));
	n = mr_read(g, r, res->before);
	res->before_len = n > 0 ? (size_t)n : 0;
	/* ABI.md §7.1: the whole register in one write(2) at offset 0, else EINVAL */
	res->err = sysfs_write_bin(path, data, len);
	free(path);
	n = mr_read(g, r, res->after);
	res->after_err = n < 0 ? (int)n : 0;
	res->after_len = n > 0 ? (size_t)n : 0;
	return res->err;
}

int mr_extended_value(const char *hash, const uint8_t *before, size_t len, const uint8_t *data,
		      uint8_t *out)
{
	const EVP_MD *md = hash ? EVP_get_digestbyname(hash) : NULL;
	EVP_MD_CTX *ctx;
	unsigned int got = 0;
	int rc = 0;

	if (!md || EVP_MD_get_size(md) != (int)len)
		return -EOPNOTSUPP;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		out_of_memory();
	if (!EVP_DigestInit_ex(ctx, md, NULL) || !EVP_DigestUpdate(ctx, before, len) ||
	    !EVP_DigestUpdate(ctx, data, len) || !EVP_DigestFinal_ex(ctx, out, &got) ||
	    got != len)
		rc = -EIO;
	EVP_MD_CTX_free(ctx);
	return rc;
}

int mr_digest_file(const char *hash, const char *file, uint8_t *out, size_t *len)
{
	const EVP_MD *md = hash ? EVP_get_digestbyname(hash) : NULL;
	int fd = streq(file, "-") ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	EVP_MD_CTX *ctx;
	uint8_t buf[65536];
	unsigned int got = 0;
	int rc = 0;

	if (!md)
		return -EOPNOTSUPP;
	if (fd < 0)
		return -errno;
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		out_of_memory();
	if (!EVP_DigestInit_ex(ctx, md, NULL))
		rc = -EIO;
	while (!rc) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		if (!EVP_DigestUpdate(ctx, buf, (size_t)n))
			rc = -EIO;
	}
	if (!rc && !EVP_DigestFinal_ex(ctx, out, &got))
		rc = -EIO;
	*len = got;
	EVP_MD_CTX_free(ctx);
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}

int mitigation_verify(uint64_t mask, struct sev_mitigations *after)
{
	char *path = path_join(SEV_VULNERABILITIES, "verified_mitigations");
	char value[24];
	unsigned long v;
	int rc;

	/* ABI.md §7.3: kstrtoull(buf, 0): one bit, written as the vector it is */
	snprintf(value, sizeof(value), "0x%llx", (unsigned long long)mask);
	rc = sysfs_write(path, value);
	free(path);
	after->verified_err = sysfs_attr_number(SEV_VULNERABILITIES, "verified_mitigations", 16,
						~0UL, &v);
	after->verified = after->verified_err ? 0 : v;
	return rc;
}
