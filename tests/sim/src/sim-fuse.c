// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-fuse.c: the live mount and its passthrough. FUSE serves a private
 * backing directory that sim-tree.c keeps in step with the model; lookups,
 * opens and reads pass through to it. Writes are sim-fuse-store.c's (they
 * run the kernel's store()s under one lock that stands in for pci_tsm_rwsem,
 * then re-sync the tree), configfs items sim-fuse-configfs.c's, late TSM
 * registration sim-fuse-timer.c's.
 */
/* 3.12: below it fuse_loop_mt() reads our loop config as the old struct (one thread per request) */
#define FUSE_USE_VERSION 312
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
#include <unistd.h>

#include "sim-fuse.h"

#define CONFIG_USER_BYTES 64	/* pci_read_config() without CAP_SYS_ADMIN */

struct sim_fuse sim_fuse;

static char *backing_path(const char *path)
{
	return sim_xasprintf("%s%s", sim_fuse.root, path);
}

/* The device whose directory holds @path (deepest match) and the rest of the path. */
static struct sim_dev *owner(const char *path, const char **attr)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	struct sim_dev *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < sim_fuse.m->nr_devs; i++) {
		struct sim_dev *d = sim_fuse.m->devs[i];
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

const char *sim_fuse_base_name(const char *p)
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

/* resourceN or resourceN_wc: binary, sized as the BAR */
static bool resource_file(const char *name)
{
	unsigned n;
	char tail[4] = "";

	return sscanf(name, "resource%u%3s", &n, tail) >= 1 &&
	       (!tail[0] || !strcmp(tail, "_wc"));
}

/* A sysfs text attribute (a show() of up to PAGE_SIZE through seq_file), not a binary one or procfs. */
static bool sysfs_text_attr(const char *path)
{
	const char *base = sim_fuse_base_name(path);

	return strncmp(path, "/proc/", 6) && strcmp(base, "certs") && strcmp(base, "transcript") &&
	       strcmp(base, "config") && !resource_file(base) &&
	       !sim_platform_bin_attr(sim_fuse.m, path);
}

static void fix_attr(const char *path, struct stat *st)
{
	const char *attr;
	char *item = sim_fuse_report_item(path, &attr);
	int a;

	/* configfs: text attributes PAGE_SIZE, binary ones 0 */
	if (S_ISREG(st->st_mode) && item && attr &&
	    (a = sim_report_attr_lookup(attr)) >= 0)
		st->st_size = sim_report_attr_is_bin(a) ? 0 : SYSFS_PAGE;
	/* procfs files and the size-less binary attributes report 0 */
	else if (S_ISREG(st->st_mode) && (!strncmp(path, "/proc/", 6) ||
					  !strcmp(sim_fuse_base_name(path), "certs") ||
					  !strcmp(sim_fuse_base_name(path), "transcript")))
		st->st_size = 0;
	/* sysfs reports PAGE_SIZE for text attributes; binary ones keep their size */
	else if (S_ISREG(st->st_mode) && sysfs_text_attr(path))
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
		struct sim_fuse_handle *h = (struct sim_fuse_handle *)(uintptr_t)fi->fh;

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
	sim_vanish(sim_fuse.m, d);
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
}

void sim_fuse_count_op(struct sim_dev *d, bool write)
{
	long limit = write ? d->faults.vanish_after_writes :
			     d->faults.vanish_after_opens;
	long n;

	if (!limit)
		return;
	pthread_mutex_lock(&sim_fuse.count_lock);
	n = write ? ++d->faults.writes : ++d->faults.opens;
	pthread_mutex_unlock(&sim_fuse.count_lock);
	if (n < limit)
		return;
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	maybe_vanish(d, n, limit);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
}

static int sim_open(const char *path, struct fuse_file_info *fi)
{
	struct fuse_context *ctx = fuse_get_context();
	int acc = fi->flags & O_ACCMODE;
	struct sim_fuse_handle *h;
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
	h->attr = sim_xstrdup(attr);
	h->path = sim_xstrdup(path);
	h->rattr = -1;
	pthread_mutex_init(&h->read_lock, NULL);
	if (!h->dev)
		sim_fuse_attach_report(h, path);
	h->text = !h->rep && sysfs_text_attr(path);
	fi->fh = (uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (h->dev)
		sim_fuse_count_op(h->dev, false);
	return 0;
}

static int sim_release(const char *path, struct fuse_file_info *fi)
{
	struct sim_fuse_handle *h = (struct sim_fuse_handle *)(uintptr_t)fi->fh;

	(void)path;
	sim_fuse_report_commit(h);
	if (h->rep) {
		pthread_mutex_lock(&sim_fuse.report_lock);
		sim_report_put(h->rep);
		pthread_mutex_unlock(&sim_fuse.report_lock);
	}
	close(h->fd);
	pthread_mutex_destroy(&h->read_lock);
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
	sim_fuse_report_commit((struct sim_fuse_handle *)(uintptr_t)fi->fh);
	return 0;
}

/* A text MAKE makes afresh for this read (DIR/tsm-sim-stats, DIR/tsm-sim-holds): its bytes at OFF. */
static int read_text(char *(*make)(size_t *len), char *buf, size_t size, off_t off)
{
	size_t len;
	char *text = make(&len);

	if (!text)
		return -ENOMEM;
	if ((size_t)off >= len)
		size = 0;
	else if (size > len - (size_t)off)
		size = len - (size_t)off;
	memcpy(buf, text + off, size);
	free(text);
	return (int)size;
}

/*
 * kernfs serves a text attribute through seq_file: a read from offset 0, or
 * from anywhere but where the last one ended, runs show() afresh; the rest of
 * a sequential read comes from that show (seq_read_iter()), so a value that
 * changes between two read(2)s of one open file never comes out half old.
 */
static ssize_t read_shown(struct sim_fuse_handle *h, char *buf, size_t size, off_t off)
{
	ssize_t n = 0;
	struct stat st;

	pthread_mutex_lock(&h->read_lock);
	if (!off || !h->filled || off != h->read_pos) {
		h->filled = false;
		if (fstat(h->fd, &st)) {
			n = -errno;
			goto out;
		}
		/* a page beyond fstat's size: a value that grew since is still read whole */
		free(h->buf);
		h->buf = malloc((size_t)st.st_size + SYSFS_PAGE);
		if (!h->buf) {
			n = -ENOMEM;
			goto out;
		}
		n = sim_fs_pread(h->fd, h->buf, (size_t)st.st_size + SYSFS_PAGE, 0);
		if (n < 0)
			goto out;
		h->len = (size_t)n;
		h->filled = true;
	}
	if ((size_t)off >= h->len)
		size = 0;
	else if (size > h->len - (size_t)off)
		size = h->len - (size_t)off;
	memcpy(buf, h->buf + off, size);
	h->read_pos = off + (off_t)size;
	n = (ssize_t)size;
out:
	pthread_mutex_unlock(&h->read_lock);
	return n;
}

static int sim_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct sim_fuse_handle *h = (struct sim_fuse_handle *)(uintptr_t)fi->fh;
	bool locked = h->dev && locked_attr(h->attr);
	ssize_t n;
	int got;

	(void)path;
	if (h->rep)
		return sim_fuse_report_read(h, buf, size, off);
	if (!h->dev && !strcmp(h->attr, STATS_FILE))
		return read_text(sim_cost_stats_text, buf, size, off);
	if (!h->dev && !strcmp(h->attr, HOLDS_FILE))
		return read_text(sim_fuse_holds_text, buf, size, off);
	if (!h->dev && sim_fuse_evidence_read(h->attr, buf, size, off, &got))
		return got;
	if (locked)
		sim_fuse_rwsem_lock(fuse_get_context()->pid, false);
	if (h->dev && !h->dev->present) {
		n = -ENODEV;	/* kernfs: the attribute's node was removed */
		goto out;
	}
	/* a memory BAR's resourceN has mmap only: sysfs_kf_bin_read() says EIO */
	if (h->dev && resource_file(sim_fuse_base_name(h->attr))) {
		n = -EIO;
		goto out;
	}
	/* a show() that fails (serial_number, the SEV-SNP mitigation vectors) */
	n = sim_platform_read_errno(sim_fuse.m, h->dev, h->attr);
	if (n)
		goto out;
	if (h->dev && !strcmp(h->attr, "config") && !h->privileged) {
		/* unprivileged readers see only the standard header */
		if (off >= CONFIG_USER_BYTES) {
			n = 0;
			goto out;
		}
		if ((size_t)off + size > CONFIG_USER_BYTES)
			size = CONFIG_USER_BYTES - off;
	}
	n = h->text ? read_shown(h, buf, size, off) : sim_fs_pread(h->fd, buf, size, off);
out:
	if (n >= 0 && h->dev && !strcmp(h->attr, "config"))
		sim_cost_config_read(h->dev, off, (size_t)n);
	if (locked)
		pthread_rwlock_unlock(&sim_fuse.rwsem);
	return (int)n;
}

static int sim_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct stat st;
	char *p;
	int rc;

	(void)size;
	if (fi) {
		struct sim_fuse_handle *h = (struct sim_fuse_handle *)(uintptr_t)fi->fh;

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

static int sim_unlink(const char *path)
{
	(void)path;
	return -EPERM;
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
	return statvfs(sim_fuse.root, st) ? -errno : 0;
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
	.write = sim_fuse_write,
	.truncate = sim_truncate,
	.create = sim_create,
	.mknod = sim_mknod,
	.mkdir = sim_fuse_mkdir,
	.unlink = sim_unlink,
	.rmdir = sim_fuse_rmdir,
	.symlink = sim_symlink,
	.rename = sim_rename,
	.link = sim_link,
	.chmod = sim_chmod,
	.chown = sim_chown,
	.utimens = sim_utimens,
	.statfs = sim_statfs,
};

static int make_backing(void)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	tmpl = sim_xasprintf("%s/tsm-sim.XXXXXX", tmp);
	if (!mkdtemp(tmpl)) {
		int rc = -errno;

		free(tmpl);
		return rc;
	}
	sim_fuse.backing = tmpl;
	sim_fuse.root = sim_path_join(tmpl, "root");
	return 0;
}

int sim_fuse_serve(struct sim_model *m, const char *mountpoint, bool foreground,
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
	char *evpath = NULL, *evline;
	int rc;

	/* a daemon keeps no descriptor it inherited: a test harness's output
	 * pipe held open by the server would keep the harness waiting for EOF */
	if (!foreground)
		close_range(3, ~0U, 0);
	sim_fuse.m = m;
	m->connect_pause = sim_fuse_connect_pause;
	rc = sim_fuse_check_late_tsms(m, &timer);
	if (rc)
		return rc;
	{
		char *why = NULL;

		sim_fuse.uevents_ok = sim_uevent_allowed(&why) == 0;
		free(why);
	}
	/* writers must not starve behind a stream of readers, as with an rwsem */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&sim_fuse.rwsem, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&sim_fuse.count_lock, NULL);
	pthread_mutex_init(&sim_fuse.report_lock, NULL);
	pthread_mutex_init(&sim_fuse.accept_lock, NULL);
	rc = make_backing();
	if (rc) {
		fprintf(stderr, "tsm-sim: backing dir: %s\n", strerror(-rc));
		return rc;
	}
	rc = sim_evnl_listen(&evpath);
	if (rc) {
		fprintf(stderr, "tsm-sim: the device-evidence socket: %s\n", strerror(-rc));
		goto out;
	}
	/* the socket's path for TSMCTL_EVIDENCE_SOCKET, beside the control file */
	evline = sim_xasprintf("%s\n", evpath);
	rc = sim_tree_sync(m, sim_fuse.root) ?:
	     sim_fs_put_str(sim_fuse.root, CONTROL_FILE, "", 0200) ?:
	     sim_fs_put_str(sim_fuse.root, STATS_FILE, "", 0444) ?:
	     sim_fs_put_str(sim_fuse.root, HOLDS_FILE, "", 0444) ?:
	     sim_fs_put_str(sim_fuse.root, EVIDENCE_FILE, evline, 0444);
	free(evline);
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
	if (timer && (rc = sim_fuse_start_timer())) {
		fprintf(stderr, "tsm-sim: timer thread: %s\n", strerror(-rc));
		goto out;
	}
	rc = sim_evnl_start();
	if (rc) {
		fprintf(stderr, "tsm-sim: device-evidence thread: %s\n", strerror(-rc));
		goto out;
	}
	rc = fuse_loop_mt(fuse, lc) ? -EIO : 0;
	sim_fuse_stop_timer();
	fuse_remove_signal_handlers(fuse_get_session(fuse));
out:
	sim_fuse_stop_timer();
	sim_evnl_stop();
	if (lc)
		fuse_loop_cfg_destroy(lc);
	if (mounted)
		fuse_unmount(fuse);
	if (fuse)
		fuse_destroy(fuse);
	fuse_opt_free_args(&args);
	sim_fs_rm_rf(sim_fuse.backing);
	free(sim_fuse.backing);
	free(sim_fuse.root);
	pthread_rwlock_destroy(&sim_fuse.rwsem);
	pthread_mutex_destroy(&sim_fuse.count_lock);
	pthread_mutex_destroy(&sim_fuse.accept_lock);
	pthread_mutex_destroy(&sim_fuse.report_lock);
	return rc;
}
