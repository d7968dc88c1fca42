/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reference manifest `evidence --verify --reference FILE` judges
 * measurements and algorithms by (schema/reference.schema.json,
 * tsmctl-evidence(8)):
 *
 *   { "schema_version": 1,
 *     "measurements": [ { "index": 1, "type": "immutable_rom",
 *                         "digests": ["<hex>", ...] },
 *                       { "index": 7, "texts": ["1.2.3"] },
 *                       { "index": 9, "values": ["<hex>"], "optional": true } ],
 *     "unknown_indices": "warn" | "fail" | "ignore",
 *     "device_mode": { "operational": "normal", "debug": "never" | "inactive" | "any" },
 *     "min_security_version": 3,
 *     "algorithms": { "base_asym": ["ecdsa_p384"], "base_hash": ["sha384"],
 *                     "measurement_hash": ["sha384"] } }
 */
#ifndef TSMCTL_EVIDENCE_REFERENCE_H
#define TSMCTL_EVIDENCE_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EV_REF_MAX_FILE		(1u << 20)
#define EV_REF_MAX_ENTRIES	254	/* indices 1..254 */

struct ev_ref_bytes {
	uint8_t *p;
	size_t len;
};

struct ev_ref_entry {
	unsigned int index;		/* 1..254 */
	int type;			/* enum spdm_meas_type, -1 when not named */
	bool optional;			/* absent is fine */
	struct ev_ref_bytes *digests;	/* accepted digests (the block must be a digest) */
	size_t nr_digests;
	struct ev_ref_bytes *values;	/* accepted raw values ("values" hex and "texts") */
	size_t nr_values;
};

enum ev_ref_unknown { EV_REF_UNKNOWN_WARN, EV_REF_UNKNOWN_FAIL, EV_REF_UNKNOWN_IGNORE };
enum ev_ref_debug { EV_REF_DEBUG_ANY, EV_REF_DEBUG_INACTIVE, EV_REF_DEBUG_NEVER };

/* A list of allowed algorithm names; ANY when the manifest does not restrict them. */
struct ev_ref_names {
	bool any;
	char **v;
	size_t n;
};

struct ev_reference {
	char *path;
	struct ev_ref_entry *entries;
	size_t nr_entries;
	enum ev_ref_unknown unknown;
	bool has_device_mode;
	int operational;		/* OperationalModeState bit required, -1 any */
	enum ev_ref_debug debug;
	bool has_min_svn;
	uint64_t min_svn;
	struct ev_ref_names base_asym, base_hash, meas_hash;
};

/*
 * Parse LEN bytes of manifest text (pure). 0, or -EINVAL with *WHY
 * (allocated) naming the member that is wrong; release REF either way.
 */
int ev_reference_parse(const char *text, size_t len, struct ev_reference *ref, char **why);
/* Read and parse PATH: 0, or -errno with *WHY (nothing left to release). */
int ev_reference_load(const char *path, struct ev_reference *ref, char **why);
void ev_reference_release(struct ev_reference *ref);

const struct ev_ref_entry *ev_reference_entry(const struct ev_reference *ref, unsigned int index);
bool ev_ref_allows(const struct ev_ref_names *names, const char *name);

/* DSP0274 OperationalModeState bit names: "manufacturing", ..., NULL past the last. */
const char *ev_operational_mode_name(unsigned int bit);
/* DeviceModeState bit names: "non_invasive_debug_active", ... */
const char *ev_device_mode_name(unsigned int bit);

#endif
