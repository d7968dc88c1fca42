/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One configfs-tsm attestation report (ABI.md §1.4): make a fresh entry
 * under sys/kernel/config/tsm/report, write the inputs, check the
 * generation, read the blobs, remove the entry. No output of its own
 * beyond -v tracing: the caller turns results and errors into words.
 */
#ifndef TSMCTL_REPORT_H
#define TSMCTL_REPORT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsmctl/abi-paths.h"

#define REPORT_GROUP		CONFIGFS_TSM "/report"
#define REPORT_INBLOB_MAX	64		/* TSM_REPORT_INBLOB_MAX */
#define REPORT_BLOB_MAX		(16u << 20)	/* TSM_REPORT_OUTBLOB_MAX since v7.0 */
#define REPORT_PRIVLEVEL_MAX	3		/* TSM_PRIVLEVEL_MAX */
#define REPORT_ATTEMPTS		3		/* fresh entries tried when another writer races */
#define REPORT_BUSY_RETRIES	4		/* re-reads of a blob after EBUSY, with backoff */

enum report_blob_id { REPORT_OUTBLOB, REPORT_AUXBLOB, REPORT_MANIFESTBLOB, REPORT_NR_BLOBS };

struct report_request {
	uint8_t inblob[REPORT_INBLOB_MAX];
	size_t inblob_len;
	int privlevel;				/* < 0: not written */
	const char *service_provider;		/* NULL: not written */
	const char *service_guid;		/* NULL: not written */
	long long service_manifest_version;	/* < 0: not written */
	bool want[REPORT_NR_BLOBS];		/* needed: refused when the provider lacks it */
	bool verbose;				/* trace each step on stderr */
};

/* Where a run stopped, so the caller can explain the errno. */
enum report_step {
	REPORT_STEP_NONE,
	REPORT_STEP_MKDIR,
	REPORT_STEP_UNSUPPORTED,	/* the provider does not show attr: nothing written */
	REPORT_STEP_READ_ATTR,		/* provider / privlevel_floor / generation unreadable */
	REPORT_STEP_WRITE,		/* a store to attr failed */
	REPORT_STEP_NOT_APPLIED,	/* generation below the writes made: an input did not take */
	REPORT_STEP_RACE,		/* generation moved by another writer in every attempt */
	REPORT_STEP_READ_BLOB,		/* reading attr failed */
	REPORT_STEP_INTERRUPTED,	/* *stop was set */
};

struct report_blob {
	bool shown;		/* the provider has this attribute */
	uint8_t *data;
	size_t len;
};

struct report_result {
	char *provider;
	unsigned long generation;	/* as read after the last write (= writes on success) */
	unsigned writes;		/* input stores made in the last entry */
	unsigned attempts;		/* entries used */
	unsigned busy_retries;		/* blob re-reads after EBUSY */
	int privlevel_floor;		/* < 0: not shown */
	bool has_privlevel;
	struct report_blob blobs[REPORT_NR_BLOBS];
	/* on failure: */
	enum report_step step;
	const char *attr;		/* the attribute concerned */
	unsigned long seen_generation;	/* NOT_APPLIED / RACE: what generation read */
	char *entry;			/* the last entry's name */
	int rmdir_error;		/* -errno when the entry could not be removed */
};

const char *report_blob_name(enum report_blob_id b);

/*
 * The first missing component of the report group (CONFIGFS,
 * CONFIGFS_TSM, REPORT_GROUP), or NULL when it is there.
 */
const char *report_group_missing(void);

/*
 * Run the whole sequence, retrying in a fresh entry when another writer
 * moved the generation. The entry is always removed. 0 or -errno with
 * res->step saying where; -EINTR when *stop became non-zero.
 */
int report_run(const struct report_request *req, struct report_result *res,
	       volatile sig_atomic_t *stop);
void report_result_free(struct report_result *res);

#endif
