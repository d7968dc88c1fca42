/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict parsers for the names the kernel uses: BDFs, tsmN, pciDDDD:BB, streamH.R.E. */
#ifndef TSMCTL_NAMES_H
#define TSMCTL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define BDF_MAX 24	/* "ffffffff:ff:1f.7" plus slack */

struct bdf {
	unsigned int domain, bus, dev, fn;
};

/*
 * Parse "[DOMAIN:]BB:DD.F" as lspci -s does for a single device (hex, domain
 * up to 8 digits, dev < 32, fn < 8). Nothing else is accepted: no '/', no
 * whitespace, no wildcards. 0 or -EINVAL.
 */
int bdf_parse(const char *s, struct bdf *out);
/* Canonical kernel spelling: "%04x:%02x:%02x.%x". */
void bdf_format(const struct bdf *b, char buf[BDF_MAX]);
/* Canonicalise S into BUF; 0 or -EINVAL. */
int bdf_canonical(const char *s, char buf[BDF_MAX]);

/*
 * lspci -s's slot, "BB:DD" or "DDDD:BB:DD" (no function): every function of
 * it, kept as "DDDD:BB:DD.*" in BUF; 0 or -EINVAL.
 */
int slot_canonical(const char *s, char buf[BDF_MAX]);
/* Is NAME a slot as slot_canonical() writes it? */
bool bdf_is_slot(const char *name);
/* Is the canonical BDF a function of SLOT ("DDDD:BB:DD.*")? */
bool bdf_in_slot(const char *bdf, const char *slot);

/* "tsm" followed by decimal digits only, no leading zeros; *id set. */
int tsm_name_parse(const char *s, int *id);

/* "pciDDDD:BB" (domain >= 4 hex digits, bus 2, lower case). */
int hb_name_parse(const char *s, unsigned int *domain, unsigned int *bus);

/* "streamH.R.E": decimal, no leading zeros, each <= 255 (Stream IDs are 8 bit). */
int stream_name_parse(const char *s, unsigned int *h, unsigned int *r, unsigned int *e);

/*
 * The one strict number parser, for numbers the kernel prints: BASE 10 is
 * "%lu" (digits, no sign, no leading zero), BASE 16 is "0x%x" (the prefix,
 * then hex digits, zero padding allowed). 0, -EINVAL for anything else
 * (a sign, a space, a newline, junk), -ERANGE above MAX; *out set only on 0.
 */
int parse_number(const char *s, int base, unsigned long max, unsigned long *out);

/* Parse an unsigned decimal attribute ("4"), rejecting sign, junk and overflow. */
int parse_ulong(const char *s, unsigned long *out);

#endif
