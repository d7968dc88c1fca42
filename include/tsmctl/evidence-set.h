/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One device's evidence held whole for decoding and verification: the
 * eleven objects of one read, where they came from (a dump, or a directory
 * saved with `evidence -o` or found in a tsmctl-collect capture), and the
 * device's own facts the interface report is checked against (its BARs from
 * `resource`, its config space for MSI-X). Fetching stays in
 * evidence-netlink.c; this fills a set from a dump's sink or from files.
 */
#ifndef TSMCTL_EVIDENCE_SET_H
#define TSMCTL_EVIDENCE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/evidence.h"
#include "tsmctl/names.h"

#define EVSET_MANIFEST		"manifest.json"
#define EVSET_RESOURCE		"resource"	/* the function's sysfs resource, saved beside the objects */
#define EVSET_CONFIG		"config"	/* its config space, as readable when saved */
#define EVSET_SERIAL		"serial_number"	/* its Device Serial Number, when the kernel showed it */
#define EVSET_TSM_PROVIDER	"tsm-provider"	/* the provider of the TSM it is locked to */
#define EVSET_CAPTURE_DIR	"tsmctl-evidence"	/* in a tsmctl-collect capture: one directory per BDF */
#define EVSET_CONFIG_MAX	4096

struct evset_object {
	bool present;		/* requested and received (or listed in the manifest) */
	uint32_t length, generation;
	uint32_t received;
	uint8_t *data;		/* heap, LENGTH bytes; NULL when empty */
	const char *file;	/* the name it has in a saved directory */
};

struct evidence_set {
	char bdf[BDF_MAX];	/* whose evidence it is (the DSM for a dependent) */
	char *source;		/* "netlink", the simulator's socket, or the directory read */
	bool from_dir;
	struct evset_object obj[EVIDENCE_NR_TYPES];
	uint8_t nonce[EVIDENCE_NONCE_MAX];
	size_t nonce_len;	/* 0: no nonce was sent */
	long long generation_before;	/* before a nonce's refresh; -1 unknown */
	/* the device, for evidence.report-ranges; NULL when not read or not saved */
	char *resource;		/* sysfs resource text */
	uint8_t *config;
	size_t config_len;
	int device_err;		/* why resource/config are missing: -errno, 0 none */
	/* for evidence.binding: the function's serial_number text ("00-11-...-77"), NULL when none */
	char *serial;
	int serial_err;		/* why not: -ENOENT (no DSN, an older kernel), -EACCES (root only), -EIO */
	/* the provider of the TSM the function is locked to ("sev-guest"), NULL when not locked */
	char *tsm_provider;
};

void evset_init(struct evidence_set *s);
void evset_release(struct evidence_set *s);

/* The saved file name of object TYPE ("cert0.spdm-chain", ..., "report.bin"). */
const char *evset_file_name(unsigned int type);

/* A dump's objects into S, as an evidence_sink does (evidence.h). 0 or -errno. */
int evset_begin(struct evidence_set *s, unsigned int type, uint32_t generation, uint32_t length);
int evset_chunk(struct evidence_set *s, unsigned int type, const uint8_t *buf, size_t len);
void evset_restart(struct evidence_set *s);

/* One read dump of REQ's objects into S (evidence_fetch(), retried on EAGAIN). 0 or -errno with E. */
int evset_fetch(struct evidence_set *s, struct evidence_conn *c, const struct evidence_request *req,
		struct evidence_stats *st, struct evidence_error *e);

/*
 * The generation DEV's evidence has now: one dump of the single object TYPE
 * (pick a small one), nothing of it kept. 0 or -errno with E.
 */
int evset_peek_generation(struct evidence_conn *c, const char *dev, unsigned int type,
			  long long *generation, struct evidence_error *e);

/* Every object read holds one generation: it, or -1 (none, or several). */
long long evset_generation(const struct evidence_set *s);

/*
 * The device's resource, config and serial_number below the sysroot
 * (sysfs.c), and the provider of the TSM its tsm/lock names, for a live
 * read. Missing files are left NULL with device_err or serial_err set;
 * never an error.
 */
void evset_read_device(struct evidence_set *s);

/*
 * Load DIR: a directory saved with `evidence -o` (manifest.json), or a
 * capture whose tsmctl-evidence/BDF/ holds one. BDF (canonical, may be NULL
 * for a saved directory) must be the manifest's device. Every object file
 * must have the manifest's length and SHA-384. 0, or -errno with *WHY
 * (allocated) saying what is wrong with the directory.
 */
int evset_load_dir(struct evidence_set *s, const char *dir, const char *bdf, char **why);

#endif
