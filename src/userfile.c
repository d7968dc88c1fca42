// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading files the user names (userfile.h): fstat() decides what the file
 * is, so a FIFO or a device node never blocks or feeds an endless read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsmctl/userfile.h"
#include "tsmctl/util.h"

int userfile_read(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	struct stat st;
	size_t size;
	ssize_t got;
	uint8_t *b;
	int fd, rc = 0;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (rc) {
		close(fd);
		return rc;
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	size = (size_t)st.st_size;
	b = xmalloc(size + 1);
	/* one byte more than fstat said: a file that grew is noticed, not cut */
	got = read_full(fd, b, size + 1);
	close(fd);
	rc = got < 0 ? (int)got : (size_t)got > size ? -EFBIG : 0;
	if (rc) {
		free(b);
		return rc;
	}
	b[got] = '\0';
	*buf = b;
	*len = (size_t)got;
	return 0;
}

char *userfile_error(const char *path, int err, size_t max)
{
	if (err == -EFBIG)
		return xasprintf("%s: larger than %zu bytes", path, max);
	if (err == -EINVAL)
		return xasprintf("%s: not a regular file", path);
	return xasprintf("%s: %s", path, strerror(-err));
}
