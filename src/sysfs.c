// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rooted sysfs access. Every open goes through open_beneath(): openat2() with
 * RESOLVE_BENEATH keeps the resolution (symlinks included) inside the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tsmctl/log.h"
#include "tsmctl/names.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

static int root_fd = -1;
static char *root_path;
static bool root_has_sys;
static bool have_openat2 = true;

#define SYSFS_MAGIC_NUMBER 0x62656572	/* linux/magic.h SYSFS_MAGIC */
#define FUSE_MAGIC_NUMBER 0x65735546	/* linux/magic.h FUSE_SUPER_MAGIC */
#define SIM_CONTROL_FILE "tsm-sim-control"	/* the top of a live tsm-sim mount (tests/sim) */

/*
 * What can sit where an attribute belongs decides what a read must check:
 * a kernel's sysfs holds only files, directories and links; on a nodev
 * mount a device node cannot be opened, so with the walk kept on that mount
 * (RESOLVE_NO_XDEV) a FIFO or directory is all that can stand in for a file,
 * and a non-blocking read of either ends at once. Anything else gets fstat().
 */
enum tree_kind {
	TREE_PLAIN,	/* any tree: check each opened file's type */
	TREE_NODEV,	/* one nodev mount: device nodes cannot open */
	TREE_SYSFS,	/* ROOT/sys is the kernel's sysfs */
};
static enum tree_kind tree_kind = TREE_PLAIN;
/* The root is a live tsm-sim mount: a FUSE file system with the simulator's control file. */
static bool tree_sim_live;

static bool is_sim_live(int fd)
{
	struct statfs fs;
	struct stat st;

	return !fstatfs(fd, &fs) && fs.f_type == FUSE_MAGIC_NUMBER &&
	       !fstatat(fd, SIM_CONTROL_FILE, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

static enum tree_kind classify_tree(int fd)
{
	enum tree_kind kind = TREE_PLAIN;
	struct statfs root_fs, sys_fs;
	struct stat root_st, sys_st;
	int sys = openat(fd, "sys", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (sys < 0)
		return TREE_PLAIN;
	if (fstatfs(sys, &sys_fs) < 0)
		goto out;
	if (sys_fs.f_type == SYSFS_MAGIC_NUMBER)
		kind = TREE_SYSFS;
	/* nodev, and sys/ on the same file system: the walk may then stay on one mount */
	else if (!fstatfs(fd, &root_fs) && (root_fs.f_flags & ST_NODEV) && (sys_fs.f_flags & ST_NODEV) &&
		 !fstat(fd, &root_st) && !fstat(sys, &sys_st) && root_st.st_dev == sys_st.st_dev)
		kind = TREE_NODEV;
out:
	close(sys);
	return kind;
}

int sysfs_init(const char *sysroot)
{
	struct stat st;

	if (!sysroot || !*sysroot)
		sysroot = "/";
	root_fd = open(sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	if (fstat(root_fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(root_fd);
		root_fd = -1;
		return -ENOTDIR;
	}
	root_path = xstrdup(sysroot);
	/* anything named sys counts: a link that leaves the root is then read as absent */
	root_has_sys = !fstatat(root_fd, "sys", &st, AT_SYMLINK_NOFOLLOW);
	/* For tests of the fallback walk on kernels that do have openat2. */
	if (debug_on(DEBUG_NO_OPENAT2))
		have_openat2 = false;
	tree_kind = classify_tree(root_fd);
	tree_sim_live = tree_kind != TREE_SYSFS && is_sim_live(root_fd);
	return 0;
}

void sysfs_exit(void)
{
	sysfs_forget_cache();
	if (root_fd >= 0)
		close(root_fd);
	root_fd = -1;
	free(root_path);
	root_path = NULL;
}

const char *sysfs_root_path(void)
{
	return root_path ? root_path : "/";
}

bool sysfs_takes_stores(void)
{
	return tree_kind == TREE_SYSFS || tree_sim_live || sysfs_is_live();
}

bool sysfs_is_live(void)
{
	return streq(sysfs_root_path(), "/");
}

char *sysfs_display_path(const char *path)
{
	const char *root = sysfs_root_path();
	size_t len = strlen(root);

	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len == 1 && root[0] == '/')
		return xasprintf("/%s", path);
	return xasprintf("%.*s/%s", (int)len, root, path);
}

const char *sysfs_kernel_words(void)
{
	return sysfs_is_live() ? "the running kernel" : "this tree's kernel";
}

bool sysfs_root_has_sys(void)
{
	return root_has_sys;
}

/* Reject paths that are absolute, empty or climb: callers build them from names. */
static bool path_is_relative_clean(const char *path)
{
	const char *p = path;

	if (!*path || *path == '/')
		return false;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if ((n == 2 && p[0] == '.' && p[1] == '.') || n == 0)
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

#define MAX_LINK_HOPS 40	/* as the kernel's own limit */
#define OPENAT2_RETRIES 128	/* each retry follows a mount/rename elsewhere: rare */

/* Names and link text come from the tree: cmd_note() escapes their control bytes. */
static void report_escape(const char *path, const char *target)
{
	static bool reported;

	if (log_verbose() && !reported)
		cmd_note(NULL, "%s -> %s leaves the root; treated as absent", path, target);
	reported = true;
}

/*
 * Kernels without openat2 (before 5.6): resolve PATH one component at a time
 * below the root, applying symlinks lexically, refusing any that leave it.
 */
static int open_walked(const char *path, int flags)
{
	char *done = xstrdup(""), *todo = xstrdup(path);
	int hops = 0, fd = -1;

	while (*todo) {
		char *slash = strchr(todo, '/'), *rest, *cand, target[4096];
		struct stat st;
		ssize_t n;

		rest = xstrdup(slash ? slash + 1 : "");
		if (slash)
			*slash = '\0';
		if (!*todo || streq(todo, ".")) {
			goto next;
		} else if (streq(todo, "..")) {
			char *cut = strrchr(done, '/');

			if (!*done) {
				fd = -EXDEV;
				free(rest);
				goto out;
			}
			if (cut)
				*cut = '\0';
			else
				*done = '\0';
			goto next;
		}
		cand = *done ? xasprintf("%s/%s", done, todo) : xstrdup(todo);
		if (fstatat(root_fd, cand, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode) ||
		    (!*rest && (flags & O_NOFOLLOW))) {
			free(done);
			done = cand;
			goto next;
		}
		n = readlinkat(root_fd, cand, target, sizeof(target));
		free(cand);
		if (n >= (ssize_t)sizeof(target)) {
			fd = -ENAMETOOLONG;	/* never act on a truncated target */
			free(rest);
			goto out;
		}
		if (n < 0 || ++hops > MAX_LINK_HOPS || target[0] == '/') {
			fd = n < 0 ? -errno : hops > MAX_LINK_HOPS ? -ELOOP : -EXDEV;
			if (fd == -EXDEV)
				report_escape(path, target);
			free(rest);
			goto out;
		}
		target[n] = '\0';
		free(todo);
		todo = *rest ? xasprintf("%s/%s", target, rest) : xstrdup(target);
		free(rest);
		continue;
next:
		free(todo);
		todo = rest;
	}
	fd = openat(root_fd, *done ? done : ".", flags | O_NOFOLLOW);
	fd = fd < 0 ? -errno : fd;
out:
	free(done);
	free(todo);
	return fd;
}

static int open_beneath(const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
			   (tree_kind == TREE_NODEV ? RESOLVE_NO_XDEV : 0),
	};
	int fd;

	if (root_fd < 0)
		return -EBADF;
	if (!path_is_relative_clean(path))
		return -EINVAL;
	if (have_openat2) {
		/* RESOLVE_BENEATH fails with EAGAIN when a mount or rename races the walk: retry. */
		for (int tries = 0; tries < OPENAT2_RETRIES; tries++) {
			fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd >= 0)
			return fd;
		if (errno == EXDEV)
			report_escape(path, "outside");
		if (errno != ENOSYS)
			return -errno;
		have_openat2 = false;
	}
	return open_walked(path, flags);
}

bool sysfs_exists(const char *path)
{
	int fd = open_beneath(path, O_PATH);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int sysfs_dir_state(const char *path)
{
	/* O_RDONLY, not O_PATH: a directory this user may not list is EACCES too */
	int fd = open_beneath(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The walk without openat2 cannot stay on one mount: trust a tree only if it is sysfs. */
static bool must_check_type(void)
{
	return tree_kind == TREE_PLAIN || (tree_kind == TREE_NODEV && !have_openat2);
}

/* Open a regular file for reading without blocking on FIFOs or devices. */
static int open_regular(const char *path)
{
	struct stat st;
	/* O_NOCTTY: a device node planted in a captured tree must not become our tty */
	int fd = open_beneath(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);

	if (fd < 0)
		return fd == -ELOOP ? -EINVAL : fd;
	if (!must_check_type())
		return fd;
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

/*
 * sysfs hands out an attribute's whole value in one read, so a short read
 * is the end (one read(2) per file, not two). A FIFO that slipped through
 * reads as EAGAIN or nothing at all.
 */
static ssize_t read_all(int fd, uint8_t *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		size_t want = size - got;
		ssize_t n = read(fd, buf + got, want);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -EINVAL : -errno;
		}
		got += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	return (ssize_t)got;
}

int sysfs_read_bin(const char *path, uint8_t *buf, size_t size, size_t *len)
{
	int fd = open_regular(path);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read_all(fd, buf, size);
	close(fd);
	if (n < 0)
		return (int)n;
	*len = (size_t)n;
	return 0;
}

int sysfs_open_bin(const char *path)
{
	return open_regular(path);
}

ssize_t sysfs_pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t got;

	do
		got = pread(fd, buf, n, off);
	while (got < 0 && errno == EINTR);
	/* a FIFO that slipped through: as read_all() says it */
	if (got < 0)
		return errno == EAGAIN || errno == ESPIPE ? -EINVAL : -errno;
	return got;
}

/* LEN bytes read from a text attribute as its value: 0, or why they are none. */
static int text_value(uint8_t *buf, size_t len, char **value)
{
	if (len > SYSFS_ATTR_MAX)
		return -EFBIG;
	/* Every sysfs text attribute ends in a newline: nothing at all is no attribute. */
	if (!len)
		return -ENODATA;
	if (memchr(buf, '\0', len))
		return -EILSEQ;
	if (len && buf[len - 1] == '\n')
		len--;
	*value = xstrndup((const char *)buf, len);
	return 0;
}

int sysfs_read_text(const char *path, char **value)
{
	uint8_t buf[SYSFS_ATTR_MAX + 1];
	size_t len;
	int rc;

	*value = NULL;
	rc = sysfs_read_bin(path, buf, sizeof(buf), &len);
	return rc < 0 ? rc : text_value(buf, len, value);
}

int sysfs_attr_text(const char *dir, const char *name, char **value)
{
	char *path = path_join(dir, name);
	int rc = sysfs_read_text(path, value);

	free(path);
	return rc;
}

int sysfs_attr_number(const char *dir, const char *name, int base, unsigned long max,
		      unsigned long *value)
{
	char *text;
	int rc = sysfs_attr_text(dir, name, &text);

	if (rc)
		return rc;
	rc = parse_number(text, base, max, value) ? -EBADMSG : 0;
	free(text);
	return rc;
}

int sysfs_attr_link_name(const char *dir, const char *name, char **last)
{
	char *path = path_join(dir, name), *target;
	int rc = sysfs_readlink(path, &target);

	free(path);
	*last = NULL;
	if (rc)
		return rc;
	*last = xstrdup(path_base(target));
	free(target);
	return 0;
}

bool sysfs_attr_exists(const char *dir, const char *name)
{
	char *path = path_join(dir, name);
	bool present = sysfs_exists(path);

	free(path);
	return present;
}

int sysfs_attr_mode(const char *dir, const char *name, unsigned int *mode)
{
	char *path = path_join(dir, name);
	int fd = open_beneath(path, O_PATH);
	struct stat st;
	int rc = 0;

	free(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else
		*mode = st.st_mode & 07777;
	close(fd);
	return rc;
}

int sysfs_pread_text(int fd, char **value)
{
	uint8_t buf[SYSFS_ATTR_MAX + 1];
	ssize_t n;

	*value = NULL;
	n = sysfs_pread(fd, buf, sizeof(buf), 0);
	return n < 0 ? (int)n : text_value(buf, (size_t)n, value);
}

/*
 * The directory holding PATH's last component, as a borrowed fd: streams are
 * read link after link from one host bridge, and a function's links
 * (physfn, driver) between two of sys/bus/pci/devices, so the last few
 * directories stay open.
 */
#define PARENT_CACHE 4
static struct parent_dir {
	char *path;
	int fd;
} parents[PARENT_CACHE];
static unsigned int parent_next;	/* the slot the next miss takes */

void sysfs_forget_cache(void)
{
	for (size_t i = 0; i < PARENT_CACHE; i++) {
		if (parents[i].path)
			close(parents[i].fd);
		free(parents[i].path);
		parents[i].path = NULL;
	}
	parent_next = 0;
}

static int open_parent(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	struct parent_dir *slot;
	char *dir;
	int fd;

	*name = slash ? slash + 1 : path;
	dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	for (size_t i = 0; i < PARENT_CACHE; i++) {
		if (parents[i].path && streq(parents[i].path, dir)) {
			free(dir);
			return parents[i].fd;
		}
	}
	fd = open_beneath(dir, O_PATH | O_DIRECTORY);
	if (fd < 0) {
		free(dir);
		return fd;
	}
	slot = &parents[parent_next];
	parent_next = (parent_next + 1) % PARENT_CACHE;
	if (slot->path)
		close(slot->fd);
	free(slot->path);
	slot->path = dir;
	slot->fd = fd;
	return fd;
}

int sysfs_readlink(const char *path, char **target)
{
	const char *name;
	char *buf = NULL;
	/* a path's worth in one readlinkat(): deep switch hierarchies pass 256 bytes */
	size_t size = SYSFS_ATTR_MAX;
	int fd, rc = 0;

	*target = NULL;
	if (!path_is_relative_clean(path))
		return -EINVAL;
	fd = open_parent(path, &name);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n;

		buf = xrealloc(buf, size);
		n = readlinkat(fd, name, buf, size);
		if (n < 0) {
			rc = -errno;
			break;
		}
		if ((size_t)n < size) {
			buf[n] = '\0';
			*target = xrealloc(buf, (size_t)n + 1);
			buf = NULL;
			break;
		}
		size *= 2;
	}
	free(buf);
	return rc;
}

/* Lexically apply TARGET to DIR; -EXDEV when it is absolute or climbs out. */
static int join_normalized(const char *dir, const char *target, char **out)
{
	size_t cap = strlen(dir) + strlen(target) + 2, len = 0;
	char *res = xmalloc(cap);
	char *work = xasprintf("%s/%s", dir, target);
	char *save = NULL;

	if (*target == '/') {
		free(work);
		free(res);
		return -EXDEV;
	}
	for (char *tok = strtok_r(work, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (streq(tok, "."))
			continue;
		if (streq(tok, "..")) {
			char *cut;

			if (len == 0) {
				free(work);
				free(res);
				return -EXDEV;
			}
			cut = memrchr(res, '/', len);
			len = cut ? (size_t)(cut - res) : 0;
			continue;
		}
		if (len)
			res[len++] = '/';
		memcpy(res + len, tok, strlen(tok));
		len += strlen(tok);
	}
	res[len] = '\0';
	free(work);
	if (!len) {
		free(res);
		return -EXDEV;
	}
	*out = res;
	return 0;
}

int sysfs_resolve_link(const char *path, char **canonical)
{
	const char *slash = strrchr(path, '/');
	char *target, *dir;
	int rc;

	*canonical = NULL;
	rc = sysfs_readlink(path, &target);
	if (rc < 0)
		return rc;
	dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	rc = join_normalized(dir, target, canonical);
	if (rc == -EXDEV)
		report_escape(path, target);
	free(dir);
	free(target);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What getdents64(2) fills in: struct linux_dirent64 (glibc declares no wrapper before 2.30). */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * getdents64(2) straight into one buffer: readdir() would add an fstat()
 * and two fcntl()s to every listing, a tenth of a scan's system calls.
 */
int sysfs_list(const char *path, char ***names, size_t *count)
{
	static char buf[32768] __attribute__((aligned(8)));
	size_t n = 0, cap = 0;
	char **v = NULL;
	int fd, rc = 0;

	*names = NULL;
	*count = 0;
	fd = open_beneath(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -errno : 0;
			break;
		}
		for (long off = 0; off < got;) {
			const struct dirent64_raw *de = (const void *)(buf + off);

			off += de->d_reclen;
			if (streq(de->d_name, ".") || streq(de->d_name, ".."))
				continue;
			xgrow(&v, &cap, n, sizeof(*v));
			v[n++] = xstrdup(de->d_name);
		}
	}
	close(fd);
	if (rc) {
		strv_free(v, n);
		return rc;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	*count = n;
	return 0;
}

/*
 * Open PATH, write BUF with one write(2), close. The close result counts
 * (configfs commits binary attributes there). EINTR is retried only when
 * RETRY_EINTR: for a sysfs store it is the kernel's answer (ABI.md §1.2).
 */
static int write_once(const char *path, const void *buf, size_t len, bool retry_eintr)
{
	int fd = open_beneath(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return fd;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR && retry_eintr);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int sysfs_write(const char *path, const char *value)
{
	return write_once(path, value, strlen(value), false);
}

/* ---- configfs: items made with mkdir, binary attributes ------------------ */

/* The parent directory of PATH, opened below the root; *name is its last component. */
static int open_item_parent(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!path_is_relative_clean(path))
		return -EINVAL;
	*name = slash ? slash + 1 : path;
	if (streq(*name, "."))
		return -EINVAL;
	dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	fd = open_beneath(dir, O_PATH | O_DIRECTORY);
	free(dir);
	return fd;
}

/* mkdir (REMOVE false) or rmdir of PATH, beneath the root: 0 or -errno. */
static int dir_create_remove(const char *path, bool remove, mode_t mode)
{
	const char *name;
	int fd = open_item_parent(path, &name), rc = 0;

	if (fd < 0)
		return fd;
	if ((remove ? unlinkat(fd, name, AT_REMOVEDIR) : mkdirat(fd, name, mode)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int sysfs_mkdir(const char *path, mode_t mode)
{
	return dir_create_remove(path, false, mode);
}

int sysfs_rmdir(const char *path)
{
	return dir_create_remove(path, true, 0);
}

int sysfs_write_bin(const char *path, const void *buf, size_t len)
{
	return write_once(path, buf, len, true);
}

int sysfs_read_blob(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	size_t cap = 4096, got = 0;
	uint8_t *b;
	int fd, rc = 0;

	*buf = NULL;
	*len = 0;
	fd = open_regular(path);
	if (fd < 0)
		return fd;
	b = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (got == cap) {
			if (cap > max) {
				rc = -EFBIG;
				break;
			}
			cap *= 2;
			b = xrealloc(b, cap);
		}
		n = read(fd, b + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!rc && got > max)
		rc = -EFBIG;
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = got;
	return 0;
}
