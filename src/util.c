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

const char *errno_symbol(int err)
{
	const char *name = errno_name(err);

	return name ? name : strerrorname_np(err);
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

size_t utf8_seq(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f))
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		if ((p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

/* A byte that must not reach a terminal as it is: C0, DEL, and '\' (the escape itself). */
static bool byte_needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '\\';
}

char *text_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char *out = xmalloc(strlen((const char *)p) * 4 + 1), *q = out;

	while (*p) {
		size_t n = byte_needs_escape(*p) ? 0 : utf8_seq(p);

		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			n = 0;	/* C1 controls (U+0080-U+009F, CSI among them) */
		if (!n) {
			q += sprintf(q, "\\x%02x", *p++);
			continue;
		}
		memcpy(q, p, n);
		q += n;
		p += n;
	}
	*q = '\0';
	return out;
}

void vprint_error(const char *fmt, va_list ap)
{
	char *msg, *shown;

	if (vasprintf(&msg, fmt, ap) < 0)
		oom();
	shown = text_escape(msg);
	fprintf(stderr, "%s\n", shown);
	free(shown);
	free(msg);
}

void print_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_error(fmt, ap);
	va_end(ap);
}

int close_stdout(int rc)
{
	bool failed = ferror(stdout);

	errno = 0;
	failed |= fflush(stdout) != 0;
	if (!failed || errno == EPIPE)
		return rc;	/* a reader that went away is not worth a message */
	if (errno)
		fprintf(stderr, "tsmctl: write error: %s\n", strerror(errno));
	else
		fputs("tsmctl: write error\n", stderr);
	return 1;
}
