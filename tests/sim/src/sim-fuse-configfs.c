// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-fuse-configfs.c: configfs-tsm report items in the live mount: mkdir, rmdir, and their attribute files. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim-fuse.h"

/*
 * sys/kernel/config/tsm/report/NAME[/ATTR]: a strdup of NAME (NULL for other
 * paths) and in *@attr what follows NAME/, or NULL.
 */
char *sim_fuse_report_item(const char *path, const char **attr)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	size_t n = strlen(REPORT_ROOT);
	const char *name, *slash;
	char *out;

	*attr = NULL;
	if (strncmp(rel, REPORT_ROOT, n) || rel[n] != '/' || !rel[n + 1])
		return NULL;
	name = rel + n + 1;
	slash = strchr(name, '/');
	out = slash ? sim_xasprintf("%.*s", (int)(slash - name), name) : sim_xstrdup(name);
	*attr = slash ? slash + 1 : NULL;
	return out;
}

/* A configfs report attribute handle pins its item (config_item refcount). */
void sim_fuse_attach_report(struct sim_fuse_handle *h, const char *path)
{
	const char *attr;
	char *name = sim_fuse_report_item(path, &attr);

	if (!name || !attr || (h->rattr = sim_report_attr_lookup(attr)) < 0) {
		free(name);
		return;
	}
	pthread_mutex_lock(&sim_fuse.report_lock);
	h->rep = sim_report_find(sim_fuse.m, name);
	if (h->rep)
		h->rep->refs++;
	pthread_mutex_unlock(&sim_fuse.report_lock);
	free(name);
}

/* configfs_release_bin_file(): the bin attribute's write() runs, result ignored */
void sim_fuse_report_commit(struct sim_fuse_handle *h)
{
	if (!h->rep)
		return;
	pthread_mutex_lock(&sim_fuse.report_lock);
	if (h->dirty && !h->rep->dead) {
		sim_report_commit_inblob(sim_fuse.m, h->rep, h->buf, h->len);
		sim_tree_sync_reports(sim_fuse.m, sim_fuse.root);
	}
	h->dirty = false;
	pthread_mutex_unlock(&sim_fuse.report_lock);
}

/*
 * The report fault concurrent_extend: another process extends RTMR N-1 with
 * 48 bytes of 0x5a once the report is made (under the lock the registers'
 * stores take), so a reader of the registers sees them move.
 */
static void concurrent_extend(struct sim_report_entry *e)
{
	uint8_t data[SIM_MR_SIZE];

	memset(data, 0x5a, sizeof(data));
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	if (e->extend_pending &&
	    !sim_platform_rtmr_extend(sim_fuse.m, sim_fuse.m->report.concurrent_extend - 1, data))
		sim_tree_sync(sim_fuse.m, sim_fuse.root);
	e->extend_pending = false;
	pthread_rwlock_unlock(&sim_fuse.rwsem);
}

/* configfs_read_iter()/configfs_bin_read_iter(): show() once per open */
int sim_fuse_report_read(struct sim_fuse_handle *h, char *buf, size_t size, off_t off)
{
	int rc = 0;

	pthread_mutex_lock(&sim_fuse.report_lock);
	if (!h->filled) {
		free(h->buf);
		h->buf = NULL;
		if (h->rep->dead)
			rc = -ENOENT;
		else
			rc = sim_report_show(sim_fuse.m, h->rep, h->rattr, &h->buf, &h->len);
		/* a zero-length blob leaves the fill pending, as configfs does */
		if (!rc)
			h->filled = h->len > 0;
	}
	pthread_mutex_unlock(&sim_fuse.report_lock);
	if (!rc && h->rep->extend_pending)
		concurrent_extend(h->rep);
	if (rc)
		return rc;
	if ((size_t)off >= h->len)
		return 0;
	if (size > h->len - off)
		size = h->len - off;
	memcpy(buf, h->buf + off, size);
	return (int)size;
}

/* configfs_bin_write_iter(): accumulate at the offset; EFBIG past 64 bytes */
int sim_fuse_report_write_bin(struct sim_fuse_handle *h, const char *buf, size_t size,
			      off_t off)
{
	size_t end = (size_t)off + size;
	int rc = (int)size;

	pthread_mutex_lock(&sim_fuse.report_lock);	/* configfs' buffer mutex */
	h->dirty = true;	/* write_in_progress is set even when this fails */
	if (end > REPORT_INBLOB_MAX) {
		rc = -EFBIG;
		goto out;
	}
	if (end > h->len) {
		uint8_t *nb = realloc(h->buf, end);

		if (!nb) {
			rc = -ENOMEM;
			goto out;
		}
		memset(nb + h->len, 0, end - h->len);
		h->buf = nb;
		h->len = end;
	}
	memcpy(h->buf + off, buf, size);
out:
	pthread_mutex_unlock(&sim_fuse.report_lock);
	return rc;
}

/* configfs_write_iter(): every write(2) is one store of a NUL-terminated copy */
int sim_fuse_report_write_text(struct sim_fuse_handle *h, const char *buf, size_t size)
{
	char *s = strndup(buf, size);
	int rc;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&sim_fuse.report_lock);
	if (h->rep->dead) {
		rc = -ENOENT;
	} else {
		rc = sim_report_store(sim_fuse.m, h->rep, h->rattr, s);
		sim_tree_sync_reports(sim_fuse.m, sim_fuse.root);
	}
	pthread_mutex_unlock(&sim_fuse.report_lock);
	free(s);
	return rc ? rc : (int)size;
}

int sim_fuse_mkdir(const char *path, mode_t mode)
{
	const char *attr;
	char *name = sim_fuse_report_item(path, &attr);
	int rc;

	(void)mode;
	/* only configfs-tsm's report group makes items; kernfs has no mkdir */
	if (!name || attr || !sim_fuse.m->report.present) {
		free(name);
		return -EPERM;
	}
	pthread_mutex_lock(&sim_fuse.report_lock);
	rc = sim_report_mkdir(sim_fuse.m, name);
	if (!rc)
		rc = sim_tree_sync_reports(sim_fuse.m, sim_fuse.root);
	pthread_mutex_unlock(&sim_fuse.report_lock);
	free(name);
	return rc;
}

int sim_fuse_rmdir(const char *path)
{
	const char *attr;
	char *name = sim_fuse_report_item(path, &attr), *dir;
	int rc;

	/* a report item goes with its attributes; the default group stays (EPERM) */
	if (!name || attr) {
		free(name);
		return -EPERM;
	}
	pthread_mutex_lock(&sim_fuse.report_lock);
	rc = sim_report_rmdir(sim_fuse.m, name);
	if (!rc) {
		dir = sim_xasprintf("%s/%s", REPORT_ROOT, name);
		sim_fs_remove(sim_fuse.root, dir);
		free(dir);
	}
	pthread_mutex_unlock(&sim_fuse.report_lock);
	free(name);
	return rc;
}
