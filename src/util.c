// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tsmctl/util.h"

static void *oom(void)
{
	fputs("tsmctl: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	return p ? p : oom();
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	return p ? p : oom();
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	return p ? p : oom();
}

void xgrow(void *v, size_t *cap, size_t n, size_t sz)
{
	void **pv = v;
	size_t ncap;

	if (n < *cap)
		return;
	ncap = *cap ? *cap * 2 : 8;
	while (ncap <= n)
		ncap *= 2;
	*pv = xrealloc(*pv, ncap * sz);
	memset((char *)*pv + *cap * sz, 0, (ncap - *cap) * sz);
	*cap = ncap;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	return p ? p : oom();
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	return p ? p : oom();
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&p, fmt, ap);
	va_end(ap);
	return rc < 0 ? oom() : p;
}

const char *errno_name(int err)
{
	static const struct { int err; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
		{ EIO, "EIO" }, { ENXIO, "ENXIO" }, { E2BIG, "E2BIG" },
		{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
		{ EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" },
		{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { EINVAL, "EINVAL" },
		{ EFBIG, "EFBIG" }, { ENOSPC, "ENOSPC" }, { EROFS, "EROFS" },
		{ ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" }, { ELOOP, "ELOOP" },
		{ ENOTTY, "ENOTTY" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EOVERFLOW, "EOVERFLOW" },
		{ EILSEQ, "EILSEQ" }, { ENAMETOOLONG, "ENAMETOOLONG" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	return NULL;
}

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
