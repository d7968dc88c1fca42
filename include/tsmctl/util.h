/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small allocation and string helpers; allocation failure is fatal, as in util-linux. */
#ifndef TSMCTL_UTIL_H
#define TSMCTL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Grow *v (of *cap elements of size sz) so that index n fits. */
void xgrow(void *v, size_t *cap, size_t n, size_t sz);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* The one out-of-memory path: say so on stderr and abort (for allocators that return NULL). */
void out_of_memory(void) __attribute__((noreturn));

/*
 * A string that grows geometrically: a loop appending N pieces costs O(N), not
 * a copy of everything so far per piece. STRBUF_INIT is the empty buffer; .s is
 * NULL until something is appended, then always NUL-terminated.
 */
struct strbuf {
	char *s;
	size_t len, cap;
};
#define STRBUF_INIT { NULL, 0, 0 }

void strbuf_append(struct strbuf *b, const char *s);
void strbuf_appendn(struct strbuf *b, const char *s, size_t n);
void strbuf_appendf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vappendf(struct strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* One item of a list: SEP first unless B is still empty ("a, b, c"). */
void strbuf_join(struct strbuf *b, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* B's text, handed over: never NULL ("" when nothing was appended); B is empty again. */
char *strbuf_take(struct strbuf *b);
void strbuf_release(struct strbuf *b);

/* The N strings of V with SEP between them; "" when N is 0. */
char *strv_join(char *const *v, size_t n, const char *sep);
/*
 * strbuf_join() for a list kept in a plain allocated string *S (NULL while
 * empty): SEP unless *S is NULL, then the formatted item. Each call copies
 * *S once at most; a loop over many items builds a struct strbuf instead.
 */
void str_join(char **s, const char *sep, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Write all LEN bytes of BUF to FD (short writes and EINTR retried); 0 or -errno. */
/* Read until LEN bytes or end of file (EINTR retried): the count, or -errno. */
ssize_t read_full(int fd, void *buf, size_t len);
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
 * S for a terminal, the one escape policy of every text writer: each byte of
 * a C0 control (U+0000-U+001F), DEL, '\', a C1 control (U+0080-U+009F, so
 * UTF-8 C2 80..C2 9F, the 8-bit CSI C2 9B among them) and each byte that does
 * not start a valid UTF-8 sequence (RFC 3629: no overlongs, surrogates, code
 * points past U+10FFFF or cut-off sequences) written as \xNN, lowercase hex,
 * as libsmartcols writes table cells; all other UTF-8 kept as it is. Text from
 * the command line or a tree never drives the terminal, and an escape is never
 * ambiguous.
 */
char *text_escape(const char *s);
/* Append S escaped as text_escape() does to B. */
void strbuf_append_escaped(struct strbuf *b, const char *s);
/* Write S escaped as text_escape() does to OUT: tree text on a terminal. */
void fputs_escaped(const char *s, FILE *out);

/*
 * Every message to the user, as util-linux's warnx(): "tsmctl CMD: " (CMD
 * names the speaker: "devices", "connect 0000:01:00.0"; NULL for "tsmctl: ")
 * and the formatted text, the whole line through text_escape(), then a
 * newline, on OUT. Escaping is the helper's, never the caller's: text the
 * caller has escaped already would come out escaped twice.
 */
void vcmd_message(FILE *out, const char *cmd, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Something failed or was refused, on stderr; the first is kept for cmd_first_error(). */
void cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vcmd_error(const char *cmd, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The text of the run's first error (no "tsmctl CMD: "), or NULL: a -J document's cause. */
const char *cmd_first_error(void);
/* A remark the user asked for or should know (-v's progress, what was chosen), on stderr. */
void cmd_note(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* fflush(stdout) for a line that must go out now: 0 or -errno (kept for close_stdout()). */
int stdout_flush(void);
/*
 * Write pending stdout; on an error other than EPIPE say so with its errno
 * text ("writing standard output: No space left on device"): RC, or 1.
 */
int close_stdout(int rc);

/* Join path components with '/'; never NULL (aborts on OOM). */
char *path_join(const char *a, const char *b);
char *path_join3(const char *a, const char *b, const char *c);

/* Last component of PATH (pointer into PATH). */
const char *path_base(const char *path);

/* Free N strings and the array holding them. */
void strv_free(char **v, size_t n);
/*
 * The values of an option's list ARG, separated by commas or blanks, into
 * *ITEMS (*N of them, none for an empty ARG; strv_free()). -EINVAL for an
 * empty value: a comma with nothing before or after it ("a,", ",a", "a,,b").
 */
int list_split(const char *arg, char ***items, size_t *n);

#endif
