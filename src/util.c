// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tsmctl/util.h"

void out_of_memory(void)
{
	fputs("tsmctl: out of memory\n", stderr);
	abort();
}

static void *oom(void)
{
	out_of_memory();
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

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	return vasprintf(&p, fmt, ap) < 0 ? oom() : p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

/* Room for N more bytes and the NUL after them. */
static void strbuf_reserve(struct strbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;

	if (b->len + n < b->cap)
		return;
	while (cap <= b->len + n)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void strbuf_appendn(struct strbuf *b, const char *s, size_t n)
{
	strbuf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_append(struct strbuf *b, const char *s)
{
	strbuf_appendn(b, s, strlen(s));
}

void strbuf_vappendf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	/* format in place when it fits, else once more with room for all of it */
	strbuf_reserve(b, 0);
	va_copy(again, ap);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	if (n < 0)
		out_of_memory();	/* glibc fails a format only for want of memory */
	if ((size_t)n >= b->cap - b->len) {
		strbuf_reserve(b, (size_t)n);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
	}
	va_end(again);
	b->len += (size_t)n;
}

void strbuf_appendf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vappendf(b, fmt, ap);
	va_end(ap);
}

void strbuf_join(struct strbuf *b, const char *sep, const char *fmt, ...)
{
	va_list ap;

	if (b->len)
		strbuf_append(b, sep);
	va_start(ap, fmt);
	strbuf_vappendf(b, fmt, ap);
	va_end(ap);
}

char *strbuf_take(struct strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	*b = (struct strbuf)STRBUF_INIT;
	return s;
}

void strbuf_release(struct strbuf *b)
{
	free(b->s);
	*b = (struct strbuf)STRBUF_INIT;
}

char *strv_join(char *const *v, size_t n, const char *sep)
{
	struct strbuf b = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf_join(&b, sep, "%s", v[i]);
	return strbuf_take(&b);
}

void str_join(char **s, const char *sep, const char *fmt, ...)
{
	size_t len = *s ? strlen(*s) : 0;
	struct strbuf b = { .s = *s, .len = len, .cap = *s ? len + 1 : 0 };
	va_list ap;

	if (*s)
		strbuf_append(&b, sep);
	va_start(ap, fmt);
	strbuf_vappendf(&b, fmt, ap);
	va_end(ap);
	*s = strbuf_take(&b);
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

ssize_t read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
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

void strbuf_append_escaped(struct strbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = byte_needs_escape(*p) ? 0 : utf8_seq(p);

		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			n = 0;	/* C1 controls (U+0080-U+009F, CSI among them) */
		if (!n) {
			strbuf_appendf(b, "\\x%02x", *p++);
			continue;
		}
		strbuf_appendn(b, (const char *)p, n);
		p += n;
	}
}

char *text_escape(const char *s)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_append_escaped(&b, s);
	return strbuf_take(&b);
}

void fputs_escaped(const char *s, FILE *out)
{
	char *shown = text_escape(s);

	fputs(shown, out);
	free(shown);
}

void vcmd_message(FILE *out, const char *cmd, const char *fmt, va_list ap)
{
	struct strbuf line = STRBUF_INIT;
	char *text = xvasprintf(fmt, ap);

	/* the whole line escaped: a %s, %c or %.*s of tree text never reaches the terminal raw */
	strbuf_append_escaped(&line, cmd ? "tsmctl " : "tsmctl");
	strbuf_append_escaped(&line, cmd);
	strbuf_append_escaped(&line, ": ");
	strbuf_append_escaped(&line, text);
	strbuf_append(&line, "\n");
	fputs(line.s, out);
	strbuf_release(&line);
	free(text);
}

static char *first_error;

void vcmd_error(const char *cmd, const char *fmt, va_list ap)
{
	va_list again;

	if (!first_error) {
		va_copy(again, ap);
		first_error = xvasprintf(fmt, again);
		va_end(again);
	}
	vcmd_message(stderr, cmd, fmt, ap);
}

void cmd_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcmd_error(cmd, fmt, ap);
	va_end(ap);
}

const char *cmd_first_error(void)
{
	return first_error;
}

void cmd_note(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcmd_message(stderr, cmd, fmt, ap);
	va_end(ap);
}

/* The errno of the first write to stdout that failed, kept for close_stdout()'s message. */
static int stdout_errno;

int stdout_flush(void)
{
	if (!fflush(stdout))
		return 0;
	if (!stdout_errno)
		stdout_errno = errno;
	return -errno;
}

int close_stdout(int rc)
{
	bool failed = ferror(stdout);
	int err;

	errno = 0;
	failed |= fflush(stdout) != 0;
	/* a failed flush drops what it held: the next one succeeds and its errno is 0 */
	err = errno ? errno : stdout_errno;
	if (!failed || err == EPIPE)
		return rc;	/* a reader that went away is not worth a message */
	if (err)
		cmd_error(NULL, "writing standard output: %s", strerror(err));
	else
		cmd_error(NULL, "writing standard output failed (no error number kept)");
	return 1;
}

/* ---- option lists ---- */

int list_split(const char *arg, char ***items, size_t *n)
{
	const char *p = arg;
	bool comma = false;	/* the last separator run held a comma: a value must follow */

	*items = NULL;
	*n = 0;
	p += strspn(p, " \t");
	if (*p == ',')
		goto empty;
	while (*p) {
		size_t len = strcspn(p, ", \t");

		*items = xrealloc(*items, (*n + 1) * sizeof(**items));
		(*items)[(*n)++] = xstrndup(p, len);
		p += len;
		comma = false;
		while (*p == ',' || *p == ' ' || *p == '\t') {
			/* ",," or ", ,": a comma with nothing before it */
			if (*p == ',' && comma)
				goto empty;
			comma |= *p == ',';
			p++;
		}
	}
	if (!comma)
		return 0;
empty:
	strv_free(*items, *n);
	*items = NULL;
	*n = 0;
	return -EINVAL;
}

/* ---- paths and name lists ---- */

/* A/B/C of N parts, copied once: a scan joins a path for every file it reads. */
static char *join_parts(const char *const *parts, size_t n)
{
	size_t len[3], total = n;
	char *out, *p;

	for (size_t i = 0; i < n; i++) {
		len[i] = strlen(parts[i]);
		total += len[i];
	}
	p = out = xmalloc(total);
	for (size_t i = 0; i < n; i++) {
		memcpy(p, parts[i], len[i]);
		p += len[i];
		*p++ = i + 1 < n ? '/' : '\0';
	}
	return out;
}

char *path_join(const char *a, const char *b)
{
	const char *parts[] = { a, b };

	return join_parts(parts, 2);
}

char *path_join3(const char *a, const char *b, const char *c)
{
	const char *parts[] = { a, b, c };

	return join_parts(parts, 3);
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
