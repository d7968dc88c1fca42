// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A configfs-tsm report session (ABI.md §1.4). The kernel counts every
 * successful input store in `generation`; an inblob is a binary attribute
 * committed at close whose result configfs drops, so the only proof that
 * the inputs took — and that nobody else wrote to the entry — is reading
 * `generation` after the writes and again after the blobs.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/report.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

static const char *const blob_names[REPORT_NR_BLOBS] = {
	[REPORT_OUTBLOB] = "outblob",
	[REPORT_AUXBLOB] = "auxblob",
	[REPORT_MANIFESTBLOB] = "manifestblob",
};

const char *report_blob_name(enum report_blob_id b)
{
	return blob_names[b];
}

const char *report_group_missing(void)
{
	static const char *const parts[] = { CONFIGFS, CONFIGFS_TSM, REPORT_GROUP };

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (!sysfs_exists(parts[i]))
			return parts[i];
	return NULL;
}

/* tsmctl.PID.RANDOM: unique, and recognisable as ours if one is ever left behind. */
static char *entry_name(void)
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)rand();
	}
	return xasprintf("tsmctl.%ld.%016" PRIx64, (long)getpid(), r);
}

struct session {
	const struct report_request *req;
	struct report_result *res;
	char *dir;		/* REPORT_GROUP/NAME */
	char **attrs;		/* the entry's files */
	size_t nattrs;
};

static void trace(const struct session *s, const char *what, const char *attr, const char *value)
{
	if (!s->req->verbose)
		return;
	char *shown = sysfs_display_path(s->dir);

	/* the path as the administrator would type it: below the root given */
	cmd_note("report", "%s %s%s%s%s%s", what, shown, attr ? "/" : "",
		 attr ? attr : "", value ? ": " : "", value ? value : "");
	free(shown);
}

static bool shown(const struct session *s, const char *attr)
{
	for (size_t i = 0; i < s->nattrs; i++)
		if (streq(s->attrs[i], attr))
			return true;
	return false;
}

static int fail(struct session *s, enum report_step step, const char *attr, int err)
{
	s->res->step = step;
	s->res->attr = attr;
	return err;
}

/* `generation` as the kernel prints it (%lu): digits only. */
static int read_generation(struct session *s, unsigned long *gen)
{
	int rc = sysfs_attr_number(s->dir, "generation", 10, ULONG_MAX, gen);

	if (rc == -EBADMSG)	/* not the kernel's number: the provider broke its protocol */
		rc = -EPROTO;
	return rc ? fail(s, REPORT_STEP_READ_ATTR, "generation", rc) : 0;
}

/* Attributes the request needs but the provider does not show: refuse before writing. */
static int check_attributes(struct session *s)
{
	const struct report_request *req = s->req;
	static const char *const always[] = { "inblob", "outblob", "provider", "generation" };

	for (size_t i = 0; i < ARRAY_SIZE(always); i++)
		if (!shown(s, always[i]))
			return fail(s, REPORT_STEP_UNSUPPORTED, always[i], -EOPNOTSUPP);
	if (req->privlevel >= 0 && !shown(s, "privlevel"))
		return fail(s, REPORT_STEP_UNSUPPORTED, "privlevel", -EOPNOTSUPP);
	if (req->service_provider && !shown(s, "service_provider"))
		return fail(s, REPORT_STEP_UNSUPPORTED, "service_provider", -EOPNOTSUPP);
	if (req->service_guid && !shown(s, "service_guid"))
		return fail(s, REPORT_STEP_UNSUPPORTED, "service_guid", -EOPNOTSUPP);
	if (req->service_manifest_version >= 0 && !shown(s, "service_manifest_version"))
		return fail(s, REPORT_STEP_UNSUPPORTED, "service_manifest_version", -EOPNOTSUPP);
	for (int b = 0; b < REPORT_NR_BLOBS; b++) {
		s->res->blobs[b].shown = shown(s, blob_names[b]);
		if (req->want[b] && !s->res->blobs[b].shown)
			return fail(s, REPORT_STEP_UNSUPPORTED, blob_names[b], -EOPNOTSUPP);
	}
	/* only a service report has a manifest: otherwise it is empty, and not worth a digest */
	if (!req->service_provider)
		s->res->blobs[REPORT_MANIFESTBLOB].shown = false;
	s->res->has_privlevel = shown(s, "privlevel");
	return 0;
}

static int read_identity(struct session *s)
{
	unsigned long v;
	int rc = sysfs_attr_text(s->dir, "provider", &s->res->provider);

	if (rc < 0)
		return fail(s, REPORT_STEP_READ_ATTR, "provider", rc);
	s->res->privlevel_floor = -1;
	if (shown(s, "privlevel_floor")) {
		/* a floor that is no number 0..255 stays unknown (-1) */
		rc = sysfs_attr_number(s->dir, "privlevel_floor", 10, 255, &v);
		if (!rc)
			s->res->privlevel_floor = (int)v;
		else if (rc != -EBADMSG)
			return fail(s, REPORT_STEP_READ_ATTR, "privlevel_floor", rc);
	}
	return 0;
}

/* One counted text store. */
static int store(struct session *s, const char *attr, const char *value)
{
	char *path = path_join(s->dir, attr);
	int rc;

	trace(s, "write", attr, value);
	rc = sysfs_write(path, value);
	free(path);
	if (rc < 0)
		return fail(s, REPORT_STEP_WRITE, attr, rc);
	s->res->writes++;
	return 0;
}

static int write_inputs(struct session *s, volatile sig_atomic_t *stop)
{
	const struct report_request *req = s->req;
	char num[32], *path;
	int rc = 0;

	if (req->privlevel >= 0) {
		snprintf(num, sizeof(num), "%d", req->privlevel);
		rc = store(s, "privlevel", num);
	}
	if (!rc && req->service_provider && !*stop)
		rc = store(s, "service_provider", req->service_provider);
	if (!rc && req->service_guid && !*stop)
		rc = store(s, "service_guid", req->service_guid);
	if (!rc && req->service_manifest_version >= 0 && !*stop) {
		snprintf(num, sizeof(num), "%lld", req->service_manifest_version);
		rc = store(s, "service_manifest_version", num);
	}
	if (rc || *stop)
		return rc;
	snprintf(num, sizeof(num), "%zu bytes", req->inblob_len);
	trace(s, "write", "inblob", num);
	path = path_join(s->dir, "inblob");
	rc = sysfs_write_bin(path, req->inblob, req->inblob_len);
	free(path);
	if (rc < 0)
		return fail(s, REPORT_STEP_WRITE, "inblob", rc);
	s->res->writes++;
	return 0;
}

/* Sleep MS milliseconds unless a signal sets *stop (nanosleep returns early on one). */
static void nap(unsigned ms, volatile sig_atomic_t *stop)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (!*stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* A blob; EBUSY (a quote in flight, say) is retried with backoff. */
static int read_blob(struct session *s, enum report_blob_id b, volatile sig_atomic_t *stop)
{
	struct report_blob *blob = &s->res->blobs[b];
	char *path = path_join(s->dir, blob_names[b]);
	unsigned delay = 100;
	int rc;

	trace(s, "read", blob_names[b], NULL);
	for (unsigned tries = 0;; tries++) {
		rc = sysfs_read_blob(path, REPORT_BLOB_MAX, &blob->data, &blob->len);
		if (rc != -EBUSY || tries == REPORT_BUSY_RETRIES || *stop)
			break;
		s->res->busy_retries++;
		if (s->req->verbose)
			cmd_note("report", "%s busy, again in %u ms", blob_names[b], delay);
		nap(delay, stop);
		delay *= 2;
	}
	free(path);
	return rc < 0 ? fail(s, REPORT_STEP_READ_BLOB, blob_names[b], rc) : 0;
}

static void drop_blobs(struct report_result *res)
{
	for (int b = 0; b < REPORT_NR_BLOBS; b++) {
		free(res->blobs[b].data);
		res->blobs[b].data = NULL;
		res->blobs[b].len = 0;
	}
}

/*
 * One entry from mkdir to the blobs. 1 when another writer moved the
 * generation (try a fresh entry), 0 done, -errno failed. The caller removes
 * the entry.
 */
static int attempt(struct session *s, volatile sig_atomic_t *stop)
{
	struct report_result *res = s->res;
	unsigned long gen, after;
	int rc;

	rc = sysfs_list(s->dir, &s->attrs, &s->nattrs);
	if (rc < 0)
		return fail(s, REPORT_STEP_READ_ATTR, NULL, rc);
	rc = read_identity(s);
	if (!rc)
		rc = check_attributes(s);
	if (!rc && !*stop)
		rc = write_inputs(s, stop);
	if (rc || *stop)
		return rc;
	rc = read_generation(s, &gen);
	if (rc)
		return rc;
	res->generation = gen;
	if (gen < res->writes) {
		res->seen_generation = gen;
		return fail(s, REPORT_STEP_NOT_APPLIED, "inblob", -EIO);
	}
	if (gen > res->writes) {
		res->seen_generation = gen;
		return 1;
	}
	for (int b = 0; b < REPORT_NR_BLOBS && !rc && !*stop; b++)
		if (res->blobs[b].shown)
			rc = read_blob(s, b, stop);
	if (rc || *stop)
		return rc;
	/* a store between the check and the reads would have regenerated the blobs */
	rc = read_generation(s, &after);
	if (rc)
		return rc;
	if (after != gen) {
		res->seen_generation = after;
		return 1;
	}
	return 0;
}

int report_run(const struct report_request *req, struct report_result *res,
	       volatile sig_atomic_t *stop)
{
	struct session s = { .req = req, .res = res };
	unsigned clashes = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->privlevel_floor = -1;
	while (res->attempts < REPORT_ATTEMPTS && !*stop) {
		free(res->entry);
		res->entry = entry_name();
		s.dir = path_join(REPORT_GROUP, res->entry);
		trace(&s, "mkdir", NULL, NULL);
		rc = sysfs_mkdir(s.dir, 0700);
		if (rc == -EEXIST && ++clashes < 16) {
			free(s.dir);
			continue;	/* a name clash, not an attempt */
		}
		if (rc < 0) {
			free(s.dir);
			return fail(&s, REPORT_STEP_MKDIR, NULL, rc);
		}
		res->attempts++;
		res->writes = 0;
		free(res->provider);
		res->provider = NULL;
		drop_blobs(res);
		rc = *stop ? 0 : attempt(&s, stop);
		/* always, whatever happened above: configfs keeps an entry until rmdir */
		trace(&s, "rmdir", NULL, NULL);
		res->rmdir_error = sysfs_rmdir(s.dir);
		strv_free(s.attrs, s.nattrs);
		s.attrs = NULL;
		s.nattrs = 0;
		free(s.dir);
		s.dir = NULL;
		if (rc <= 0 || res->rmdir_error)
			break;
		if (req->verbose)
			cmd_note("report", "generation %lu after %u write%s: another writer "
				 "raced; trying a fresh entry", res->seen_generation, res->writes,
				 res->writes == 1 ? "" : "s");
	}
	if (*stop) {
		drop_blobs(res);
		res->step = REPORT_STEP_INTERRUPTED;
		return -EINTR;
	}
	if (rc == 1) {
		drop_blobs(res);
		return fail(&s, REPORT_STEP_RACE, "generation", -EAGAIN);
	}
	if (rc < 0)
		drop_blobs(res);
	return rc;
}

void report_result_free(struct report_result *res)
{
	drop_blobs(res);
	free(res->provider);
	free(res->entry);
	memset(res, 0, sizeof(*res));
}
