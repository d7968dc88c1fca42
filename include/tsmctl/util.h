/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small allocation and string helpers; allocation failure is fatal, as in util-linux. */
#ifndef TSMCTL_UTIL_H
#define TSMCTL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Grow *v (of *cap elements of size sz) so that index n fits. */
void xgrow(void *v, size_t *cap, size_t n, size_t sz);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Write all LEN bytes of BUF to FD (short writes and EINTR retried); 0 or -errno. */
int write_full(int fd, const void *buf, size_t len);

/* "EBUSY" for EBUSY; NULL for an errno we do not name. */
const char *errno_name(int err);
/* errno_name(), else glibc's name for ERR (strerrorname_np); NULL when neither knows it. */
const char *errno_symbol(int err);

/*
 * Length of the valid UTF-8 sequence at P, or 0 (RFC 3629: no overlongs, no
 * surrogates). Stops at a NUL: never reads past the end of a string.
 */
size_t utf8_seq(const unsigned char *p);

/*
 * S with C0 and C1 controls, DEL, '\' and bytes that are not UTF-8 written as
 * \xNN (as libsmartcols writes table cells): text from the command line or
 * from a tree never drives the terminal, and an escape is never ambiguous.
 */
char *text_escape(const char *s);

/* Format a message, escape it (text_escape) and print it on stderr with a newline. */
void print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vprint_error(const char *fmt, va_list ap);

/* Write pending stdout; on an error other than EPIPE say so: RC, or EXIT 1 on failure. */
int close_stdout(int rc);

#endif
