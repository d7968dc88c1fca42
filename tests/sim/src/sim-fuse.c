// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-fuse.c: the live tree. A passthrough over a private backing directory
 * that sim-tree.c keeps in step with the model; stores to tsm/ attributes run
 * the kernel's connect/disconnect logic under one lock that stands in for
 * pci_tsm_rwsem, then re-sync the tree.
 */
#define FUSE_USE_VERSION 35
#define _GNU_SOURCE
#include <dirent.h>
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

#include "sim.h"

#define SYSFS_PAGE 4096
#define CONFIG_USER_BYTES 64	/* pci_read_config() without CAP_SYS_ADMIN */

struct simfs {
	struct sim_model *m;
	char *backing;		/* mkdtemp() dir, removed at exit */
	char *root;		/* backing/root: the tree */
	pthread_rwlock_t rwsem;	/* pci_tsm_rwsem */
	pthread_mutex_t count_lock;	/* fault counters */
	pthread_mutex_t report_lock;	/* sim-report.c's tsm_rwsem and the report subtree */
	/* the late-registration timer (register_after_ms) */
	pthread_t timer;
	bool timer_running, stopping;
	pthread_mutex_t timer_lock;
	pthread_cond_t timer_cond;
	struct timespec mounted_at;	/* CLOCK_MONOTONIC when the mount existed */
	bool uevents_ok;	/* a private network namespace: queued uevents go out */
};

static struct simfs FS;

struct handle {
	int fd;
	bool privileged;	/* opener had uid 0 (CAP_SYS_ADMIN stand-in) */
	struct sim_dev *dev;	/* device the file belongs to, or NULL */
	char *attr;		/* path below the device dir, or the full path */
	char *path;		/* as opened: FUSE passes NULL once it is removed */
	/* configfs report attribute: its configfs_buffer */
	struct sim_report_entry *rep;
	int rattr;		/* enum sim_report_attr */
	uint8_t *buf;		/* read: the show()/report; write: inblob so far */
	size_t len;
	bool filled;		/* read buffer holds the show() result */
	bool dirty;		/* bin write_in_progress: commit at close */
};

static char *backing_path(const char *path)
{
	return xasprintf("%s%s", FS.root, path);
}

/* The device whose directory holds @path (deepest match) and the rest of the path. */
static struct sim_dev *owner(const char *path, const char **attr)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	struct sim_dev *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < FS.m->nr_devs; i++) {
		struct sim_dev *d = FS.m->devs[i];
		size_t n = strlen(d->dir);

		if (n > best_len && !strncmp(rel, d->dir, n) && rel[n] == '/') {
			best = d;
			best_len = n;
		}
	}
	*attr = best ? rel + best_len + 1 : rel;
	return best;
}

/* show() handlers that take pci_tsm_rwsem for read */
static bool locked_attr(const char *attr)
{
	static const char *const names[] = { "tsm/connect", "tsm/dsm",
					      "tsm/bound", "tsm/lock",
					      "tsm/accept", "authenticated",
					      NULL };

	for (const char *const *n = names; *n; n++)
		if (!strcmp(attr, *n))
			return true;
	return false;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void *sim_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* no caching anywhere: every read and lookup must see the current state */
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->hard_remove = 1;
	cfg->use_ino = 1;
	/* handles outlive their path (rmdir of a report item): fh is enough */
	cfg->nullpath_ok = 1;
	return NULL;
}

/*
 * sys/kernel/config/tsm/report/NAME[/ATTR]: a strdup of NAME (NULL for other
 * paths) and in *@attr what follows NAME/, or NULL.
 */
static char *report_item(const char *path, const char **attr)
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

/* resourceN or resourceN_wc: binary, sized as the BAR */
static bool resource_file(const char *name)
{
	unsigned n;
	char tail[4] = "";

	return sscanf(name, "resource%u%3s", &n, tail) >= 1 &&
	       (!tail[0] || !strcmp(tail, "_wc"));
}

static void fix_attr(const char *path, struct stat *st)
{
	const char *attr;
	char *item = report_item(path, &attr);
	int a;

	/* configfs: text attributes PAGE_SIZE, binary ones 0 */
	if (S_ISREG(st->st_mode) && item && attr &&
	    (a = report_attr_lookup(attr)) >= 0)
		st->st_size = report_attr_is_bin(a) ? 0 : SYSFS_PAGE;
	/* procfs files and the size-less binary attributes report 0 */
	else if (S_ISREG(st->st_mode) && (!strncmp(path, "/proc/", 6) ||
					  !strcmp(base_name(path), "certs") ||
					  !strcmp(base_name(path), "transcript")))
		st->st_size = 0;
	/* sysfs reports PAGE_SIZE for text attributes; binary ones keep their size */
	else if (S_ISREG(st->st_mode) && strcmp(base_name(path), "config") &&
		 !resource_file(base_name(path)))
		st->st_size = SYSFS_PAGE;
	free(item);
	st->st_uid = 0;
	st->st_gid = 0;
}

static int sim_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	char *p;
	int rc = 0;

	if (fi) {
		struct handle *h = (struct handle *)(uintptr_t)fi->fh;

		if (fstat(h->fd, st))
			return -errno;
		fix_attr(h->path, st);
		return 0;
	}
	p = backing_path(path);
	if (lstat(p, st))
		rc = -errno;
	else
		fix_attr(path, st);
	free(p);
	return rc;
}

static int sim_readlink(const char *path, char *buf, size_t size)
{
	char *p = backing_path(path);
	ssize_t n = readlink(p, buf, size - 1);
	int rc = 0;

	if (n < 0)
		rc = -errno;
	else
		buf[n] = '\0';
	free(p);
	return rc;
}

/* nullpath_ok: readdir gets no path, so the directory handle keeps it */
static int sim_opendir(const char *path, struct fuse_file_info *fi)
{
	char *p = backing_path(path);
	struct stat st;

	if (lstat(p, &st)) {
		int rc = -errno;

		free(p);
		return rc;
	}
	fi->fh = (uintptr_t)p;
	return 0;
}

static int sim_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	free((char *)(uintptr_t)fi->fh);
	return 0;
}

static int sim_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	DIR *d = opendir((const char *)(uintptr_t)fi->fh);
	struct dirent *de;

	(void)path;
	(void)off;
	(void)flags;
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (fill(buf, de->d_name, NULL, 0, 0))
			break;
	closedir(d);
	return 0;
}

/* Remove @d now if its op counter has run out (caller holds the rwsem for write). */
static void maybe_vanish(struct sim_dev *d, long count, long limit)
{
	if (!limit || count < limit || !d->present)
		return;
	sim_vanish(FS.m, d);
	tree_sync(FS.m, FS.root);
}

static void count_op(struct sim_dev *d, bool write)
{
	long limit = write ? d->faults.vanish_after_writes :
			     d->faults.vanish_after_opens;
	long n;

	if (!limit)
		return;
	pthread_mutex_lock(&FS.count_lock);
	n = write ? ++d->faults.writes : ++d->faults.opens;
	pthread_mutex_unlock(&FS.count_lock);
	if (n < limit)
		return;
	pthread_rwlock_wrlock(&FS.rwsem);
	maybe_vanish(d, n, limit);
	pthread_rwlock_unlock(&FS.rwsem);
}

/* A configfs report attribute handle pins its item (config_item refcount). */
static void attach_report(struct handle *h, const char *path)
{
	const char *attr;
	char *name = report_item(path, &attr);

	if (!name || !attr || (h->rattr = report_attr_lookup(attr)) < 0) {
		free(name);
		return;
	}
	pthread_mutex_lock(&FS.report_lock);
	h->rep = report_find(FS.m, name);
	if (h->rep)
		h->rep->refs++;
	pthread_mutex_unlock(&FS.report_lock);
	free(name);
}

/* configfs_release_bin_file(): the bin attribute's write() runs, result ignored */
static void report_commit(struct handle *h)
{
	if (!h->rep)
		return;
	pthread_mutex_lock(&FS.report_lock);
	if (h->dirty && !h->rep->dead) {
		report_commit_inblob(FS.m, h->rep, h->buf, h->len);
		tree_sync_reports(FS.m, FS.root);
	}
	h->dirty = false;
	pthread_mutex_unlock(&FS.report_lock);
}

static int sim_open(const char *path, struct fuse_file_info *fi)
{
	struct fuse_context *ctx = fuse_get_context();
	int acc = fi->flags & O_ACCMODE;
	struct handle *h;
	const char *attr;
	struct stat st;
	char *p;
	int fd;

	p = backing_path(path);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(p);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	/* kernfs_fop_open(): no write (read) bits means EACCES, even for root */
	if ((acc != O_RDONLY && !(st.st_mode & 0222)) ||
	    (acc != O_WRONLY && !(st.st_mode & 0444)) ||
	    (acc != O_RDONLY && ctx->uid != 0)) {
		close(fd);
		return -EACCES;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		close(fd);
		return -ENOMEM;
	}
	h->fd = fd;
	h->privileged = ctx->uid == 0;
	h->dev = owner(path, &attr);
	h->attr = strdup(attr);
	h->path = strdup(path);
	h->rattr = -1;
	if (!h->dev)
		attach_report(h, path);
	fi->fh = (uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (h->dev)
		count_op(h->dev, false);
	return 0;
}

static int sim_release(const char *path, struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	(void)path;
	report_commit(h);
	if (h->rep) {
		pthread_mutex_lock(&FS.report_lock);
		report_put(h->rep);
		pthread_mutex_unlock(&FS.report_lock);
	}
	close(h->fd);
	free(h->buf);
	free(h->attr);
	free(h->path);
	free(h);
	return 0;
}

/*
 * close(): FUSE sends RELEASE asynchronously, so the configfs commit that
 * the kernel runs at the last close happens here, where close() waits.
 */
static int sim_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	report_commit((struct handle *)(uintptr_t)fi->fh);
	return 0;
}

/* configfs_read_iter()/configfs_bin_read_iter(): show() once per open */
static int report_read(struct handle *h, char *buf, size_t size, off_t off)
{
	int rc = 0;

	pthread_mutex_lock(&FS.report_lock);
	if (!h->filled) {
		free(h->buf);
		h->buf = NULL;
		if (h->rep->dead)
			rc = -ENOENT;
		else
			rc = report_show(FS.m, h->rep, h->rattr, &h->buf, &h->len);
		/* a zero-length blob leaves the fill pending, as configfs does */
		if (!rc)
			h->filled = h->len > 0;
	}
	pthread_mutex_unlock(&FS.report_lock);
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
static int report_write_bin(struct handle *h, const char *buf, size_t size,
			    off_t off)
{
	size_t end = (size_t)off + size;
	int rc = (int)size;

	pthread_mutex_lock(&FS.report_lock);	/* configfs' buffer mutex */
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
	pthread_mutex_unlock(&FS.report_lock);
	return rc;
}

/* configfs_write_iter(): every write(2) is one store of a NUL-terminated copy */
static int report_write_text(struct handle *h, const char *buf, size_t size)
{
	char *s = strndup(buf, size);
	int rc;

	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&FS.report_lock);
	if (h->rep->dead) {
		rc = -ENOENT;
	} else {
		rc = report_store(FS.m, h->rep, h->rattr, s);
		tree_sync_reports(FS.m, FS.root);
	}
	pthread_mutex_unlock(&FS.report_lock);
	free(s);
	return rc ? rc : (int)size;
}

static int sim_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	bool locked = h->dev && locked_attr(h->attr);
	ssize_t n;

	(void)path;
	if (h->rep)
		return report_read(h, buf, size, off);
	if (!h->dev && !strcmp(h->attr, STATS_FILE))
		return cost_stats_read(buf, size, off);
	if (locked)
		pthread_rwlock_rdlock(&FS.rwsem);
	if (h->dev && !h->dev->present) {
		n = -ENODEV;	/* kernfs: the attribute's node was removed */
		goto out;
	}
	/* a memory BAR's resourceN has mmap only: sysfs_kf_bin_read() says EIO */
	if (h->dev && resource_file(base_name(h->attr))) {
		n = -EIO;
		goto out;
	}
	if (h->dev && !strcmp(h->attr, "config") && !h->privileged) {
		/* unprivileged readers see only the standard header */
		if (off >= CONFIG_USER_BYTES) {
			n = 0;
			goto out;
		}
		if ((size_t)off + size > CONFIG_USER_BYTES)
			size = CONFIG_USER_BYTES - off;
	}
	n = pread(h->fd, buf, size, off);
	if (n < 0)
		n = -errno;
out:
	if (n >= 0 && h->dev && !strcmp(h->attr, "config"))
		cost_config_read(h->dev, off, (size_t)n);
	if (locked)
		pthread_rwlock_unlock(&FS.rwsem);
	return (int)n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* kobject uevent_store(): only the known actions are accepted */
static int uevent_store(const char *buf, size_t len)
{
	static const char *const actions[] = { "add", "remove", "change",
					       "move", "online", "offline",
					       "bind", "unbind", NULL };

	for (const char *const *a = actions; *a; a++) {
		size_t n = strlen(*a);

		if (len >= n && !memcmp(buf, *a, n) &&
		    (len == n || buf[n] == '\n' || buf[n] == ' ' || !buf[n]))
			return 0;
	}
	return -EINVAL;
}

/* A store to one of the device's tsm/ attributes, under pci_tsm_rwsem. */
static int tsm_store(struct sim_dev *d, const char *attr, const char *buf,
		     size_t len)
{
	bool conn = !strcmp(attr, "tsm/connect"), lock = !strcmp(attr, "tsm/lock");
	char *str = strndup(buf, len);	/* the NUL-terminated copy kernfs passes */
	long id = 0;
	int rc;

	if (!str)
		return -ENOMEM;
	/* connect and lock parse before taking the lock, as their store()s do */
	if ((conn || lock) && parse_tsm_name(buf, len, &id)) {
		free(str);
		return -EINVAL;
	}
	pthread_rwlock_wrlock(&FS.rwsem);
	if (!d->present) {
		rc = -ENODEV;
		goto out;
	}
	if (d->faults.write_delay_ms)
		sleep_ms(d->faults.write_delay_ms);
	if (conn)
		rc = sim_connect(FS.m, d, id);
	else if (lock)
		rc = sim_lock(FS.m, d, id);
	else if (!strcmp(attr, "tsm/accept"))
		rc = sim_accept(FS.m, d, str);
	else if (!strcmp(attr, "tsm/unlock"))
		rc = sim_unlock(FS.m, d, buf, len);
	else
		rc = sim_disconnect(FS.m, d, buf, len);
	tree_sync(FS.m, FS.root);
out:
	pthread_rwlock_unlock(&FS.rwsem);
	free(str);
	return rc;
}

/* Is @attr sys/devices/faux/FAUX/A (*first = true) or sys/devices/faux/FAUX/B? */
static bool faux_attr_is(const char *attr, const char *faux, const char *a,
			 const char *b, bool *first)
{
	char *pa = xasprintf("sys/devices/faux/%s/%s", faux, a);
	char *pb = xasprintf("sys/devices/faux/%s/%s", faux, b);
	bool hit;

	*first = !strcmp(attr, pa);
	hit = *first || !strcmp(attr, pb);
	free(pa);
	free(pb);
	return hit;
}

/* The devsec sample link TSM whose faux dir holds @attr as tsm_bind/tsm_unbind */
static struct sim_tsm *sample_trigger(const char *attr, bool *bind)
{
	for (size_t i = 0; i < FS.m->nr_tsms; i++) {
		struct sim_tsm *t = FS.m->tsms[i];

		if (t->provider == PROV_DEVSEC_SAMPLE && t->kind == TSM_LINK &&
		    t->parent_faux && t->pci_ready &&
		    faux_attr_is(attr, t->parent_faux, "tsm_bind", "tsm_unbind", bind))
			return t;
	}
	return NULL;
}

enum drv_op { DRV_BIND, DRV_UNBIND, DRV_NEW_ID, DRV_REMOVE_ID };

/* The registered driver whose sys/bus/pci/drivers/NAME/{bind,unbind,new_id,remove_id} @attr is */
static struct sim_driver *driver_trigger(const char *attr, enum drv_op *op)
{
	static const char prefix[] = "sys/bus/pci/drivers/";
	static const char *const ops[] = { "/bind", "/unbind", "/new_id", "/remove_id" };
	const char *name = attr + sizeof(prefix) - 1, *slash;
	struct sim_driver *drv = NULL;
	char *n;

	if (strncmp(attr, prefix, sizeof(prefix) - 1) ||
	    !(slash = strchr(name, '/')))
		return NULL;
	for (int i = 0; i < 4; i++)
		if (!strcmp(slash, ops[i])) {
			*op = (enum drv_op)i;
			n = strndup(name, slash - name);
			if (!n)
				return NULL;
			drv = model_find_driver(FS.m, n);
			free(n);
			break;
		}
	return drv && driver_registered(FS.m, drv) ? drv : NULL;
}

/* Send what the last operation queued (taken under the lock, sent after it). */
static void flush_events(void)
{
	struct sim_event *ev;
	size_t n;

	pthread_rwlock_wrlock(&FS.rwsem);
	ev = FS.m->events;
	n = FS.m->nr_events;
	FS.m->events = NULL;
	FS.m->nr_events = 0;
	pthread_rwlock_unlock(&FS.rwsem);
	for (size_t i = 0; i < n; i++) {
		if (FS.uevents_ok)
			uevent_send(ev[i].action, ev[i].dir, ev[i].subsystem);
		free(ev[i].action);
		free(ev[i].dir);
		free(ev[i].subsystem);
	}
	free(ev);
}

/* The evidence-input TSM whose faux device holds @attr (certs or transcript) */
static struct sim_tsm *evidence_input(const char *attr, bool *certs)
{
	for (size_t i = 0; i < FS.m->nr_tsms; i++) {
		struct sim_tsm *t = FS.m->tsms[i];

		if (t->evidence_inputs &&
		    faux_attr_is(attr, t->parent_faux, "certs", "transcript", certs))
			return t;
	}
	return NULL;
}

#define EVIDENCE_MAX 0x01000000	/* PCI_TSM_MAX_OBJECT_SIZE, 16 MiB */

/* A binary store: the bytes land at their offset, up to the object limit. */
static int evidence_write(struct sim_tsm *t, bool certs, const char *buf,
			  size_t size, off_t off)
{
	uint8_t **data = certs ? &t->certs : &t->transcript;
	size_t *len = certs ? &t->certs_len : &t->transcript_len;
	size_t end = (size_t)off + size;
	int rc = (int)size;

	pthread_rwlock_wrlock(&FS.rwsem);
	if (end > EVIDENCE_MAX) {
		rc = -EFBIG;
	} else {
		if (end > *len) {
			uint8_t *nb = realloc(*data, end);

			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			memset(nb + *len, 0, end - *len);
			*data = nb;
			*len = end;
		}
		memcpy(*data + off, buf, size);
	}
out:
	pthread_rwlock_unlock(&FS.rwsem);
	return rc;
}

/* A uevent for TSM T, if its topology lets it send them. */
static void tsm_uevent(struct sim_tsm *t, const char *action)
{
	if (t->uevents)
		uevent_send(action, t->dir, "tsm");
}

/*
 * tsm_register(): device_add() (tsmN appears, KOBJ_ADD), then the PCI/TSM
 * registration re-evaluates the tsm/ groups and sends KOBJ_CHANGE (ABI.md §1.1).
 */
static void tsm_register_live(struct sim_tsm *t)
{
	pthread_rwlock_wrlock(&FS.rwsem);
	if (t->registered) {
		pthread_rwlock_unlock(&FS.rwsem);
		return;
	}
	tsm_assign_id(FS.m, t);
	t->registered = true;
	tree_sync(FS.m, FS.root);
	pthread_rwlock_unlock(&FS.rwsem);
	tsm_uevent(t, "add");
	/* a provider may take its time before the PCI layer takes it on */
	if (t->change_after_ms)
		sleep_ms(t->change_after_ms);
	pthread_rwlock_wrlock(&FS.rwsem);
	t->pci_ready = true;
	tree_sync(FS.m, FS.root);
	pthread_rwlock_unlock(&FS.rwsem);
	tsm_uevent(t, "change");
}

/* tsm_unregister(): contexts and the PCI side go first, then device_unregister() (KOBJ_REMOVE). */
static void tsm_unregister_live(struct sim_tsm *t)
{
	pthread_rwlock_wrlock(&FS.rwsem);
	sim_tsm_teardown(FS.m, t);
	t->pci_ready = false;
	tree_sync(FS.m, FS.root);
	t->registered = false;
	tree_sync(FS.m, FS.root);
	pthread_rwlock_unlock(&FS.rwsem);
	tsm_uevent(t, "remove");
}

static int control_store(const char *buf, size_t len)
{
	enum sim_control_op op;
	struct sim_tsm *t;
	int rc = cost_control(buf, len);

	if (rc != 1)
		return rc;
	pthread_rwlock_wrlock(&FS.rwsem);
	rc = control_apply(FS.m, buf, len, &op, &t);
	if (!rc && (op == CTL_NONE || op == CTL_MODULE))
		tree_sync(FS.m, FS.root);
	pthread_rwlock_unlock(&FS.rwsem);
	if (!rc && op == CTL_REGISTER)
		tsm_register_live(t);
	else if (!rc && op == CTL_UNREGISTER)
		tsm_unregister_live(t);
	flush_events();
	return rc;
}

static int sim_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	const char *attr = h->attr;
	struct sim_driver *drv;
	struct sim_tsm *t;
	enum drv_op op;
	bool bind;
	int rc;

	(void)path;
	if (!size)
		return 0;
	if (h->rep && report_attr_is_bin(h->rattr))
		return report_write_bin(h, buf, size, off);
	if (!h->dev && (t = evidence_input(attr, &bind)))
		return evidence_write(t, bind, buf, size, off);
	/* sysfs stores see each write() whole, at any offset */
	if (size > SYSFS_PAGE - 1)
		size = SYSFS_PAGE - 1;
	if (h->rep)
		return report_write_text(h, buf, size);
	if (h->dev && !h->dev->present)
		return -ENODEV;
	if (h->dev && (!strcmp(attr, "tsm/connect") ||
		       !strcmp(attr, "tsm/disconnect") ||
		       !strcmp(attr, "tsm/lock") ||
		       !strcmp(attr, "tsm/accept") ||
		       !strcmp(attr, "tsm/unlock"))) {
		rc = tsm_store(h->dev, attr, buf, size);
	} else if (!h->dev && (drv = driver_trigger(attr, &op))) {
		char *str = strndup(buf, size);

		if (!str)
			return -ENOMEM;
		pthread_rwlock_wrlock(&FS.rwsem);
		if (op == DRV_BIND || op == DRV_UNBIND)
			rc = driver_bind_store(FS.m, drv, buf, size, op == DRV_BIND);
		else
			rc = driver_id_store(FS.m, drv, str, op == DRV_NEW_ID);
		tree_sync(FS.m, FS.root);
		pthread_rwlock_unlock(&FS.rwsem);
		free(str);
		flush_events();
	} else if (h->dev && !strcmp(attr, "driver_override")) {
		pthread_rwlock_wrlock(&FS.rwsem);
		rc = h->dev->present ? driver_override_store(h->dev, buf, size) : -ENODEV;
		tree_sync(FS.m, FS.root);
		pthread_rwlock_unlock(&FS.rwsem);
	} else if (h->dev && !strcmp(attr, "config")) {
		rc = -EPERM;	/* deliberate: the tool must never write config */
	} else if (!h->dev && (t = sample_trigger(attr, &bind))) {
		pthread_rwlock_wrlock(&FS.rwsem);
		rc = sim_sample_bind(FS.m, t, buf, size, bind);
		tree_sync(FS.m, FS.root);
		pthread_rwlock_unlock(&FS.rwsem);
	} else if (!h->dev && !strcmp(attr, CONTROL_FILE)) {
		rc = control_store(buf, size);
	} else if (!strcmp(base_name(attr), "uevent")) {
		rc = uevent_store(buf, size);
	} else {
		rc = -EOPNOTSUPP;	/* e.g. sriov_numvfs: not simulated */
	}
	if (h->dev)
		count_op(h->dev, true);
	return rc ? rc : (int)size;
}

static int sim_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct stat st;
	char *p;
	int rc;

	(void)size;
	if (fi) {
		struct handle *h = (struct handle *)(uintptr_t)fi->fh;

		rc = fstat(h->fd, &st) ? -errno : 0;
	} else {
		p = backing_path(path);
		rc = lstat(p, &st) ? -errno : 0;
		free(p);
	}
	if (rc)
		return rc;
	if (!S_ISREG(st.st_mode))
		return -EISDIR;
	/* O_TRUNC on a writable attribute is ignored, as sysfs does */
	return (st.st_mode & 0222) ? 0 : -EACCES;
}

static int sim_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EACCES;	/* kernfs directories have no ->create */
}

static int sim_mknod(const char *path, mode_t mode, dev_t rdev)
{
	(void)path;
	(void)mode;
	(void)rdev;
	return -EACCES;
}

static int sim_mkdir(const char *path, mode_t mode)
{
	const char *attr;
	char *name = report_item(path, &attr);
	int rc;

	(void)mode;
	/* only configfs-tsm's report group makes items; kernfs has no mkdir */
	if (!name || attr || !FS.m->report.present) {
		free(name);
		return -EPERM;
	}
	pthread_mutex_lock(&FS.report_lock);
	rc = report_mkdir(FS.m, name);
	if (!rc)
		rc = tree_sync_reports(FS.m, FS.root);
	pthread_mutex_unlock(&FS.report_lock);
	free(name);
	return rc;
}

static int sim_unlink(const char *path)
{
	(void)path;
	return -EPERM;
}

static int sim_rmdir(const char *path)
{
	const char *attr;
	char *name = report_item(path, &attr), *dir;
	int rc;

	/* a report item goes with its attributes; the default group stays (EPERM) */
	if (!name || attr) {
		free(name);
		return -EPERM;
	}
	pthread_mutex_lock(&FS.report_lock);
	rc = report_rmdir(FS.m, name);
	if (!rc) {
		dir = xasprintf("%s/%s", REPORT_ROOT, name);
		fs_remove(FS.root, dir);
		free(dir);
	}
	pthread_mutex_unlock(&FS.report_lock);
	free(name);
	return rc;
}

static int sim_symlink(const char *target, const char *path)
{
	(void)target;
	(void)path;
	return -EPERM;
}

static int sim_rename(const char *from, const char *to, unsigned int flags)
{
	(void)from;
	(void)to;
	(void)flags;
	return -EPERM;
}

static int sim_link(const char *from, const char *to)
{
	(void)from;
	(void)to;
	return -EPERM;
}

static int sim_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EPERM;	/* deliberate: modes encode the ABI, keep them fixed */
}

static int sim_chown(const char *path, uid_t uid, gid_t gid,
		     struct fuse_file_info *fi)
{
	(void)path;
	(void)uid;
	(void)gid;
	(void)fi;
	return -EPERM;
}

static int sim_utimens(const char *path, const struct timespec tv[2],
		       struct fuse_file_info *fi)
{
	(void)path;
	(void)tv;
	(void)fi;
	return 0;	/* touch(1) on an attribute succeeds and changes nothing */
}

static int sim_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return statvfs(FS.root, st) ? -errno : 0;
}

static const struct fuse_operations sim_ops = {
	.init = sim_init,
	.getattr = sim_getattr,
	.readlink = sim_readlink,
	.opendir = sim_opendir,
	.readdir = sim_readdir,
	.releasedir = sim_releasedir,
	.open = sim_open,
	.release = sim_release,
	.flush = sim_flush,
	.read = sim_read,
	.write = sim_write,
	.truncate = sim_truncate,
	.create = sim_create,
	.mknod = sim_mknod,
	.mkdir = sim_mkdir,
	.unlink = sim_unlink,
	.rmdir = sim_rmdir,
	.symlink = sim_symlink,
	.rename = sim_rename,
	.link = sim_link,
	.chmod = sim_chmod,
	.chown = sim_chown,
	.utimens = sim_utimens,
	.statfs = sim_statfs,
};

/* Registers the register_after_ms TSMs in the order of their delays. */
static void *timer_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct sim_tsm *next = NULL;
		struct timespec due;

		for (size_t i = 0; i < FS.m->nr_tsms; i++) {
			struct sim_tsm *t = FS.m->tsms[i];

			if (t->register_after_ms >= 0 && !t->registered &&
			    (!next || t->register_after_ms < next->register_after_ms))
				next = t;
		}
		if (!next)
			return NULL;
		due = FS.mounted_at;
		due.tv_sec += next->register_after_ms / 1000;
		due.tv_nsec += (next->register_after_ms % 1000) * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&FS.timer_lock);
		while (!FS.stopping &&
		       pthread_cond_timedwait(&FS.timer_cond, &FS.timer_lock, &due) != ETIMEDOUT)
			;
		if (FS.stopping) {
			pthread_mutex_unlock(&FS.timer_lock);
			return NULL;
		}
		pthread_mutex_unlock(&FS.timer_lock);
		next->register_after_ms = -1;	/* done: a later unregister is final */
		tsm_register_live(next);
	}
}

/* Late TSMs that send uevents need a private network namespace (sim-uevent.c). */
static int check_late_tsms(struct sim_model *m, bool *timer)
{
	bool events = false;
	char *why = NULL;
	int rc;

	*timer = false;
	for (size_t i = 0; i < m->nr_tsms; i++) {
		struct sim_tsm *t = m->tsms[i];

		/* a TSM waiting for its module is not late: modprobe registers it */
		if (t->registered || (t->register_after_ms < 0 && !t->register_manually))
			continue;
		*timer |= t->register_after_ms >= 0;
		events |= t->uevents;
	}
	if (!events)
		return 0;
	rc = uevent_allowed(&why);
	if (rc)
		fprintf(stderr, "tsm-sim: %s\n", why);
	free(why);
	return rc;
}

static int start_timer(void)
{
	pthread_condattr_t ca;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&FS.timer_cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&FS.timer_lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &FS.mounted_at);
	rc = -pthread_create(&FS.timer, NULL, timer_main, NULL);
	FS.timer_running = !rc;
	return rc;
}

static void stop_timer(void)
{
	if (!FS.timer_running)
		return;
	pthread_mutex_lock(&FS.timer_lock);
	FS.stopping = true;
	pthread_cond_signal(&FS.timer_cond);
	pthread_mutex_unlock(&FS.timer_lock);
	pthread_join(FS.timer, NULL);
	pthread_cond_destroy(&FS.timer_cond);
	pthread_mutex_destroy(&FS.timer_lock);
	FS.timer_running = false;
}

static int make_backing(void)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	tmpl = xasprintf("%s/tsm-sim.XXXXXX", tmp);
	if (!mkdtemp(tmpl)) {
		int rc = -errno;

		free(tmpl);
		return rc;
	}
	FS.backing = tmpl;
	FS.root = path_join(tmpl, "root");
	return 0;
}

int fuse_serve(struct sim_model *m, const char *mountpoint, bool foreground,
	       bool debug)
{
	char *argv[] = { "tsm-sim", "-o",
			 "allow_other,default_permissions,fsname=tsm-sim,subtype=tsm-sim",
			 debug ? "-d" : NULL, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(debug ? 4 : 3, argv);
	pthread_rwlockattr_t ra;
	struct fuse_loop_config *lc = NULL;
	struct fuse *fuse = NULL;
	bool mounted = false, timer;
	int rc;

	FS.m = m;
	rc = check_late_tsms(m, &timer);
	if (rc)
		return rc;
	{
		char *why = NULL;

		FS.uevents_ok = uevent_allowed(&why) == 0;
		free(why);
	}
	/* writers must not starve behind a stream of readers, as with an rwsem */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&FS.rwsem, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&FS.count_lock, NULL);
	pthread_mutex_init(&FS.report_lock, NULL);
	rc = make_backing();
	if (rc) {
		fprintf(stderr, "tsm-sim: backing dir: %s\n", strerror(-rc));
		return rc;
	}
	rc = tree_sync(m, FS.root) ?:
	     fs_put_str(FS.root, CONTROL_FILE, "", 0200) ?:
	     fs_put_str(FS.root, STATS_FILE, "", 0444);
	if (rc) {
		fprintf(stderr, "tsm-sim: building the tree: %s\n", strerror(-rc));
		goto out;
	}
	fuse = fuse_new(&args, &sim_ops, sizeof(sim_ops), NULL);
	if (!fuse) {
		rc = -EINVAL;
		goto out;
	}
	if (fuse_mount(fuse, mountpoint)) {
		rc = -EIO;
		goto out;
	}
	mounted = true;
	/* the mount exists now; the parent returns and the child serves it */
	if (fuse_daemonize(foreground)) {
		rc = -EIO;
		goto out;
	}
	if (fuse_set_signal_handlers(fuse_get_session(fuse))) {
		rc = -EIO;
		goto out;
	}
	lc = fuse_loop_cfg_create();
	if (!lc) {
		rc = -ENOMEM;
		goto out;
	}
	fuse_loop_cfg_set_max_threads(lc, 16);
	/* after fuse_daemonize(): its fork would not carry the thread along */
	if (timer && (rc = start_timer())) {
		fprintf(stderr, "tsm-sim: timer thread: %s\n", strerror(-rc));
		goto out;
	}
	rc = fuse_loop_mt(fuse, lc) ? -EIO : 0;
	stop_timer();
	fuse_remove_signal_handlers(fuse_get_session(fuse));
out:
	stop_timer();
	if (lc)
		fuse_loop_cfg_destroy(lc);
	if (mounted)
		fuse_unmount(fuse);
	if (fuse)
		fuse_destroy(fuse);
	fuse_opt_free_args(&args);
	fs_rm_rf(FS.backing);
	free(FS.backing);
	free(FS.root);
	pthread_rwlock_destroy(&FS.rwsem);
	pthread_mutex_destroy(&FS.count_lock);
	pthread_mutex_destroy(&FS.report_lock);
	return rc;
}
