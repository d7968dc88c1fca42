// SPDX-License-Identifier: GPL-2.0-or-later
/* Output files the user names: "-" for stdout, else a temporary file renamed over the name. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsmctl/outfile.h"
#include "tsmctl/util.h"

/* What lstat() found where a regular file (or nothing) belongs. */
static const char *file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "an unknown kind of file";
}

int outfile_open(struct outfile *o, const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;

	*o = (struct outfile){ .path = path, .fd = -1 };
	if (streq(path, "-")) {
		o->to_stdout = true;
		return 0;
	}
	/* lstat: a link is refused too, never followed (root writing through a planted link) */
	o->step = "checking the file";
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			o->refused = file_kind(st.st_mode);
			return -EEXIST;
		}
	} else if (errno != ENOENT) {
		return -errno;
	}
	/* beside the target, so the rename cannot cross file systems; a dot name no glob sees */
	dir = slash ? xstrndup(path, (size_t)(slash - path + 1)) : xstrdup("");
	o->tmp = xasprintf("%s.%s.tsmctl-XXXXXX", dir, slash ? slash + 1 : path);
	free(dir);
	o->step = "creating a temporary file";
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0 || fchmod(o->fd, mode) < 0) {
		int err = -errno;

		outfile_discard(o);
		return err;
	}
	return 0;
}

int outfile_write(struct outfile *o, const void *buf, size_t len)
{
	int rc;

	o->step = "writing";
	if (o->to_stdout) {
		/* what stdio holds goes first */
		if (fflush(stdout))
			return -errno;
		return write_full(STDOUT_FILENO, buf, len);
	}
	rc = o->fd < 0 ? -EBADF : write_full(o->fd, buf, len);
	return rc;
}

int outfile_commit(struct outfile *o)
{
	const char *slash;
	char *dir;
	int rc = 0, dfd;

	if (o->to_stdout || o->fd < 0)
		return 0;
	o->step = "syncing";
	if (fsync(o->fd) < 0)
		rc = -errno;
	if (close(o->fd) < 0 && !rc) {
		o->step = "closing";
		rc = -errno;
	}
	o->fd = -1;
	if (!rc) {
		o->step = "renaming the temporary file";
		if (rename(o->tmp, o->path) < 0)
			rc = -errno;
	}
	if (rc) {
		outfile_discard(o);
		return rc;
	}
	free(o->tmp);
	o->tmp = NULL;
	/* the rename itself is durable once the directory is synced */
	slash = strrchr(o->path, '/');
	dir = slash ? xstrndup(o->path, slash == o->path ? 1 : (size_t)(slash - o->path)) :
		      xstrdup(".");
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

void outfile_discard(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

char *outfile_error(const struct outfile *o, int err)
{
	if (err == -EEXIST && o->refused)
		return xasprintf("%s: %s, not a regular file: refusing to replace it (name a "
				 "regular file, or '-' for stdout)", o->path, o->refused);
	return xasprintf("%s%s: %s: %s", o->path, o->to_stdout ? " (standard output)" : "", o->step,
			 strerror(-err));
}
