// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-fuse-configfs.c: configfs-tsm report items in the live mount: mkdir, rmdir, and their attribute files. */
#define FUSE_USE_VERSION 35
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "sim-fuse.h"

/*
 * sys/kernel/config/tsm/report/NAME[/ATTR]: a strdup of NAME (NULL for other
 * paths) and in *@attr what follows NAME/, or NULL.
 */
char *sim_fs_report_item(const char *path, const char **attr)
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
	out = slash ? strndup(name, slash - name) : strdup(name);
	if (!out)
		abort();
	*attr = slash ? slash + 1 : NULL;
	return out;
}

/* A configfs report attribute handle pins its item (config_item refcount). */
void sim_fs_attach_report(struct sim_fs_handle *h, const char *path)
{
	const char *attr;
	char *name = sim_fs_report_item(path, &attr);

	if (!name || !attr || (h->rattr = report_attr_lookup(attr)) < 0) {
		free(name);
		return;
	}
	pthread_mutex_lock(&sim_fs.report_lock);
	h->rep = report_find(sim_fs.m, name);
	if (h->rep)
		h->rep->refs++;
	pthread_mutex_unlock(&sim_fs.report_lock);
	free(name);
}

/* configfs_release_bin_file(): the bin attribute's write() runs, result ignored */
void sim_fs_report_commit(struct sim_fs_handle *h)
{
	if (!h->rep)
		return;
	pthread_mutex_lock(&sim_fs.report_lock);
	if (h->dirty && !h->rep->dead) {
		report_commit_inblob(sim_fs.m, h->rep, h->buf, h->len);
		tree_sync_reports(sim_fs.m, sim_fs.root);
	}
	h->dirty = false;
	pthread_mutex_unlock(&sim_fs.report_lock);
}

/* configfs_read_iter()/configfs_bin_read_iter(): show() once per open */
int sim_fs_report_read(struct sim_fs_handle *h, char *buf, size_t size, off_t off)
{
	int rc = 0;

	pthread_mutex_lock(&sim_fs.report_lock);
	if (!h->filled) {
		free(h->buf);
		h->buf = NULL;
		if (h->rep->dead)
			rc = -ENOENT;
		else
			rc = report_show(sim_fs.m, h->rep, h->rattr, &h->buf, &h->len);
		/* a zero-length blob leaves the fill pending, as configfs does */
		if (!rc)
			h->filled = h->len > 0;
	}
	pthread_mutex_unlock(&sim_fs.report_lock);
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
int sim_fs_report_write_bin(struct sim_fs_handle *h, const char *buf, size_t size,
			    off_t off)
{
	size_t end = (size_t)off + size;
	int rc = (int)size;

	pthread_mutex_lock(&sim_fs.report_lock);	/* configfs' buffer mutex */
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
	pthread_mutex_unlock(&sim_fs.report_lock);
	return rc;
}

/* configfs_write_iter(): every write(2) is one store of a NUL-terminated copy */
int sim_fs_report_write_text(struct sim_fs_handle *h, const char *buf, size_t size)
{
	char *s = strndup(buf, size);
	int rc;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&sim_fs.report_lock);
	if (h->rep->dead) {
		rc = -ENOENT;
	} else {
		rc = report_store(sim_fs.m, h->rep, h->rattr, s);
		tree_sync_reports(sim_fs.m, sim_fs.root);
	}
	pthread_mutex_unlock(&sim_fs.report_lock);
	free(s);
	return rc ? rc : (int)size;
}

int sim_fs_mkdir(const char *path, mode_t mode)
{
	const char *attr;
	char *name = sim_fs_report_item(path, &attr);
	int rc;

	(void)mode;
	/* only configfs-tsm's report group makes items; kernfs has no mkdir */
	if (!name || attr || !sim_fs.m->report.present) {
		free(name);
		return -EPERM;
	}
	pthread_mutex_lock(&sim_fs.report_lock);
	rc = report_mkdir(sim_fs.m, name);
	if (!rc)
		rc = tree_sync_reports(sim_fs.m, sim_fs.root);
	pthread_mutex_unlock(&sim_fs.report_lock);
	free(name);
	return rc;
}

int sim_fs_rmdir(const char *path)
{
	const char *attr;
	char *name = sim_fs_report_item(path, &attr), *dir;
	int rc;

	/* a report item goes with its attributes; the default group stays (EPERM) */
	if (!name || attr) {
		free(name);
		return -EPERM;
	}
	pthread_mutex_lock(&sim_fs.report_lock);
	rc = report_rmdir(sim_fs.m, name);
	if (!rc) {
		dir = xasprintf("%s/%s", REPORT_ROOT, name);
		fs_remove(sim_fs.root, dir);
		free(dir);
	}
	pthread_mutex_unlock(&sim_fs.report_lock);
	free(name);
	return rc;
}
