/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stores of the platform state beside the TSM (ABI.md §7): extend a
 * measurement register, verify a SEV-SNP mitigation. Each writes once and
 * reads back what the kernel then shows; the commands judge it.
 */
#ifndef TSMCTL_PLATFORM_STORE_H
#define TSMCTL_PLATFORM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "tsmctl/snapshot.h"

#define MR_VALUE_MAX 128	/* a register is a digest: 64 bytes (SHA-512) at most */

struct mr_extend_result {
	uint8_t before[MR_VALUE_MAX], after[MR_VALUE_MAX];
	size_t before_len, after_len;	/* 0: could not be read */
	int after_err;		/* -errno reading it back */
	int err;		/* the store's -errno */
};

/*
 * Extend R of G with LEN bytes of DATA: its value read, one write(2) of DATA
 * at offset 0, read again (ABI.md §7.1). The store's 0 or -errno.
 */
int mr_extend(const struct measurements *g, const struct measurement_register *r,
	      const uint8_t *data, size_t len, struct mr_extend_result *res);
/*
 * What an extend makes of BEFORE with DATA (both LEN bytes): HASH(BEFORE ||
 * DATA), the TDX module's RTMR extend. 0, -EOPNOTSUPP for a hash libcrypto
 * does not know or of another size.
 */
int mr_extended_value(const char *hash, const uint8_t *before, size_t len, const uint8_t *data,
		      uint8_t *out);
/* FILE ('-': stdin) hashed with HASH ("sha384") into OUT (MR_VALUE_MAX), *LEN its size. 0 or -errno. */
int mr_digest_file(const char *hash, const char *file, uint8_t *out, size_t *len);

/* Write MASK (one bit) to verified_mitigations, read it back into AFTER. The store's 0 or -errno. */
int mitigation_verify(uint64_t mask, struct sev_mitigations *after);

#endif
