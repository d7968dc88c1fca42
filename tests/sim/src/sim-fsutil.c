// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-fsutil.c: idempotent file/dir/link writers below a root directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

/* Out of memory in a test tool: nothing sensible to recover. */
static void *sim_xcheck(void *p)
{
	if (!p) {
		perror("tsm-sim");
		abort();
	}
	return p;
}

void *sim_xcalloc(size_t n, size_t size)
{
	return sim_xcheck(calloc(n ? n : 1, size ? size : 1));
}

void *sim_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		abort();
	return sim_xcheck(realloc(p, n && size ? n * size : 1));
}

char *sim_xstrdup(const char *s)
{
	return sim_xcheck(strdup(s));
}

char *sim_xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return sim_xcheck(s);
}

char *sim_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sim_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *sim_path_join(const char *a, const char *b)
{
	if (!a || !*a)
		return sim_xasprintf("%s", b);
	return sim_xasprintf("%s/%s", a, b);
}

/* Relative symlink target from directory @from_dir to @to (both below root). */
char *sim_rel_link(const char *from_dir, const char *to)
{
	size_t i = 0, common = 0, ups = 0, len;
	const char *rest;
	char *out;

	/* common prefix that ends on a component boundary in both paths */
	for (;; i++) {
		bool fend = !from_dir[i] || from_dir[i] == '/';
		bool tend = !to[i] || to[i] == '/';

		if (fend && tend)
			common = i;
		if (!from_dir[i] || !to[i] || from_dir[i] != to[i])
			break;
	}
	/* every component of from_dir after the common prefix is one "../" */
	for (const char *p = from_dir + common; *p; p++)
		if (*p != '/' && (p == from_dir || p[-1] == '/'))
			ups++;
	rest = to + common;
	while (*rest == '/')
		rest++;
	len = ups * 3 + strlen(rest) + 2;
	out = sim_xcalloc(1, len);
	for (size_t k = 0; k < ups; k++)
		strcat(out, "../");
	strcat(out, rest);
	len = strlen(out);
	if (len && out[len - 1] == '/')
		out[len - 1] = '\0';
	if (!*out)
		strcpy(out, ".");
	return out;
}

static char *full(const char *root, const char *rel)
{
	return sim_path_join(root, rel);
}

int sim_fs_mkdir_p(const char *root, const char *rel)
{
	char *p = full(root, rel);
	size_t skip = strlen(root);
	int rc = 0;

	/* the common case on a (re)build: the directory or its parent exists */
	if (!mkdir(p, 0755) || errno == EEXIST) {
		free(p);
		return 0;
	}
	for (char *s = p + skip + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST) {
				rc = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return rc;
}

static int mkparent(const char *root, const char *rel)
{
	char *d = sim_xstrdup(rel), *slash;
	int rc = 0;

	if (!d)
		return -ENOMEM;
	slash = strrchr(d, '/');
	if (slash) {
		*slash = '\0';
		rc = sim_fs_mkdir_p(root, d);
	}
	free(d);
	return rc;
}

/*
 * The process umask, read once: the first call comes from the first
 * sim_tree_sync(), before the FUSE threads exist.
 */
static mode_t cur_umask(void)
{
	static bool known;
	static mode_t mask;

	if (!known) {
		mask = umask(0);
		umask(mask);
		known = true;
	}
	return mask;
}

/*
 * A value is rewritten in place (pwrite, then ftruncate when it shrinks), so a
 * read between the two would see the new head on the old tail ("\nsm0"):
 * the rewrite holds this for write, sim_fs_pread() for read. show() computes
 * a value whole, and a read of the backing file must too.
 */
static pthread_rwlock_t sim_fs_values = PTHREAD_RWLOCK_INITIALIZER;

ssize_t sim_fs_pread(int fd, void *buf, size_t size, off_t off)
{
	ssize_t n;

	pthread_rwlock_rdlock(&sim_fs_values);
	n = pread(fd, buf, size, off);
	if (n < 0)
		n = -errno;
	pthread_rwlock_unlock(&sim_fs_values);
	return n;
}

static int fs_put(const char *root, const char *rel, const void *data, size_t len,
		  unsigned mode);

/* Write @data unless the file already holds exactly that; keeps the inode; whole to a reader. */
int sim_fs_put(const char *root, const char *rel, const void *data, size_t len,
	       unsigned mode)
{
	int rc;

	pthread_rwlock_wrlock(&sim_fs_values);
	rc = fs_put(root, rel, data, len, mode);
	pthread_rwlock_unlock(&sim_fs_values);
	return rc;
}

static int fs_put(const char *root, const char *rel, const void *data, size_t len,
		  unsigned mode)
{
	char *p = full(root, rel);
	char *old = NULL;
	struct stat st;
	int fd = -1, rc = 0;

	/* a new file (the usual case of a first build): create and write */
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 && errno == ENOENT) {
		/* parents first, only when they are missing */
		rc = mkparent(root, rel);
		if (rc)
			goto out;
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	}
	if (fd >= 0) {
		/* the umask may have taken bits off */
		if ((mode & cur_umask()) && fchmod(fd, mode))
			rc = -errno;
		else if (len && pwrite(fd, data, len, 0) != (ssize_t)len)
			rc = errno ? -errno : -EIO;
		goto out;
	}
	if (errno != EEXIST) {
		rc = -errno;
		goto out;
	}
	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && !chmod(p, 0600))
		fd = open(p, O_RDWR | O_CLOEXEC);	/* non-root rebuild of a 0444 file */
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if ((st.st_mode & 07777) != mode && fchmod(fd, mode)) {
		rc = -errno;
		goto out;
	}
	if ((size_t)st.st_size == len) {
		old = malloc(len ? len : 1);
		if (!old) {
			rc = -ENOMEM;
			goto out;
		}
		if (pread(fd, old, len, 0) == (ssize_t)len &&
		    memcmp(old, data, len) == 0)
			goto out;
	}
	/* one pwrite, then the tail cut: sim_fs_values keeps readers out between */
	if (pwrite(fd, data, len, 0) != (ssize_t)len) {
		rc = errno ? -errno : -EIO;
		goto out;
	}
	if (ftruncate(fd, len))
		rc = -errno;
out:
	if (fd >= 0)
		close(fd);
	free(old);
	free(p);
	return rc;
}

/* An empty (sparse) file of @size bytes: a binary attribute nothing reads. */
int sim_fs_put_sized(const char *root, const char *rel, uint64_t size, unsigned mode)
{
	char *p = full(root, rel);
	struct stat st;
	int rc = 0;

	if (!lstat(p, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size &&
	    (st.st_mode & 07777) == mode)
		goto out;
	rc = sim_fs_put(root, rel, "", 0, mode);
	if (!rc && truncate(p, (off_t)size))
		rc = -errno;
out:
	free(p);
	return rc;
}

int sim_fs_put_str(const char *root, const char *rel, const char *s, unsigned mode)
{
	return sim_fs_put(root, rel, s, strlen(s), mode);
}

/* Make @rel a symlink to @target, replacing a different link. */
int sim_fs_link(const char *root, const char *rel, const char *target)
{
	char *p = full(root, rel);
	char buf[4096];
	ssize_t n;
	int rc = 0;

	if (!symlink(target, p))
		goto out;
	if (errno == ENOENT) {
		/* parents first, only when they are missing */
		rc = mkparent(root, rel);
		if (!rc && symlink(target, p))
			rc = -errno;
		goto out;
	}
	if (errno != EEXIST) {
		rc = -errno;
		goto out;
	}
	n = readlink(p, buf, sizeof(buf));
	if (n >= 0 && (size_t)n < sizeof(buf) && (size_t)n == strlen(target) &&
	    memcmp(buf, target, n) == 0)
		goto out;
	/* something else has the name: replace it */
	if (n >= 0 ? unlink(p) : sim_fs_rm_rf(p)) {
		rc = n >= 0 ? -errno : -EEXIST;
		goto out;
	}
	if (symlink(target, p))
		rc = -errno;
out:
	free(p);
	return rc;
}

static int rm_rf_at(int atfd, const char *name)
{
	struct stat st;
	int rc = 0;

	if (fstatat(atfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *dir;
		struct dirent *de;

		if (fd < 0)
			return -errno;
		dir = fdopendir(fd);
		if (!dir) {
			close(fd);
			return -errno;
		}
		while ((de = readdir(dir))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			rc = rm_rf_at(dirfd(dir), de->d_name);
			if (rc)
				break;
		}
		closedir(dir);
		if (!rc && unlinkat(atfd, name, AT_REMOVEDIR))
			rc = -errno;
		return rc;
	}
	if (unlinkat(atfd, name, 0))
		return -errno;
	return 0;
}

int sim_fs_rm_rf(const char *path)
{
	return rm_rf_at(AT_FDCWD, path);
}

/* Remove a file, link or whole directory tree; absent is fine. */
int sim_fs_remove(const char *root, const char *rel)
{
	char *p = full(root, rel);
	int rc = sim_fs_rm_rf(p);

	free(p);
	return rc;
}

bool sim_fs_exists(const char *root, const char *rel)
{
	char *p = full(root, rel);
	struct stat st;
	bool ok = lstat(p, &st) == 0;

	free(p);
	return ok;
}
