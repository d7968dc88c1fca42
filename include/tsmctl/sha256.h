/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 digests as hex, for what `report` prints of each blob (libcrypto does the hashing). */
#ifndef TSMCTL_SHA256_H
#define TSMCTL_SHA256_H

#include <stddef.h>

#define SHA256_HEX_SIZE 65	/* 32 bytes as lower-case hex, and the NUL */

/*
 * The digest of LEN bytes at BUF as lower-case hex, NUL-terminated. Like
 * xmalloc() it does not return on failure (only libcrypto's own: memory, a
 * failed self-test): it says why and aborts.
 */
void sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX_SIZE]);

#endif
