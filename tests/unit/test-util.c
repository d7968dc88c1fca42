// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the string and escape toolkit of src/util.c: the growing
 * buffer (append, appendf, join), strv_join, str_join, and text_escape()'s one
 * policy class by class, with the UTF-8 boundary cases (cut-off sequences,
 * overlongs, surrogates, past U+10FFFF), and the message helper's prefix and
 * escaping (cmd_error, cmd_note). Prints one line per failed check and
 * "N passed, N failed"; exits non-zero if anything failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/log.h"
#include "tsmctl/util.h"
#include "unit.h"

/* S and WANT are the same string; on a mismatch both are shown. */
static void same_at(const char *s, const char *want, const char *what, int line)
{
	int ok = s && !strcmp(s, want);

	check_at(ok, what, line);
	if (!ok)
		printf("  got \"%s\", want \"%s\"\n", s ? s : "(null)", want);
}

#define SAME(s, want) same_at((s), (want), #s, __LINE__)

/* text_escape(IN) is WANT; the result is freed. */
static void escape_at(const char *in, const char *want, int line)
{
	char *got = text_escape(in);

	same_at(got, want, "text_escape", line);
	free(got);
}

#define ESCAPED(in, want) escape_at((in), (want), __LINE__)
/* IN comes out as it went in. */
#define KEPT(in) escape_at((in), (in), __LINE__)

/* ---- the growing buffer ------------------------------------------------ */

static void test_strbuf(void)
{
	struct strbuf b = STRBUF_INIT;
	char *s, *piece;
	size_t fill;

	CHECK(b.s == NULL && b.len == 0);
	s = strbuf_take(&b);
	SAME(s, "");	/* never NULL, even when nothing was appended */
	free(s);

	strbuf_append(&b, "ab");
	strbuf_appendn(&b, "cdef", 2);
	strbuf_append(&b, "");
	SAME(b.s, "abcd");
	CHECK(b.len == 4 && b.cap > b.len);
	strbuf_release(&b);
	CHECK(b.s == NULL && b.len == 0 && b.cap == 0);

	/* appendf: small, then past the first allocation (formatted a second time) */
	strbuf_appendf(&b, "%d-%s", 42, "x");
	SAME(b.s, "42-x");
	strbuf_appendf(&b, "%0200d", 7);
	CHECK(b.len == 4 + 200 && strlen(b.s) == b.len);
	CHECK(b.s[4] == '0' && b.s[4 + 199] == '7');
	CHECK(b.cap > b.len);
	strbuf_release(&b);

	/* a piece that exactly fills the room left, then one byte more */
	strbuf_appendn(&b, "0123456789", 10);
	fill = b.cap - b.len - 1;
	piece = malloc(fill + 1);
	memset(piece, 'y', fill);
	piece[fill] = '\0';
	strbuf_appendf(&b, "%s", piece);
	CHECK(b.len == 10 + fill && b.s[b.len] == '\0' && b.cap > b.len);
	strbuf_appendf(&b, "%s", "z");
	CHECK(b.len == 11 + fill && b.s[b.len - 1] == 'z' && b.s[b.len] == '\0');
	CHECK(!strncmp(b.s, "0123456789yy", 12));
	free(piece);
	strbuf_release(&b);

	/* growth is geometric: a megabyte a byte at a time, capacity within twice the length */
	for (size_t i = 0; i < (1u << 20); i++)
		strbuf_appendn(&b, i % 2 ? "b" : "a", 1);
	CHECK(b.len == (1u << 20) && b.cap > b.len && b.cap <= 2 * (b.len + 1));
	CHECK(b.s[0] == 'a' && b.s[1] == 'b' && b.s[b.len - 1] == 'b' && b.s[b.len] == '\0');
	s = strbuf_take(&b);
	CHECK(b.s == NULL && b.len == 0 && b.cap == 0);
	CHECK(strlen(s) == (1u << 20));
	free(s);
}

static void test_joins(void)
{
	struct strbuf b = STRBUF_INIT;
	char *v[] = { "tsm0", "tsm1", "tsm2" }, *s = NULL;

	strbuf_join(&b, ", ", "%s", "a");
	SAME(b.s, "a");		/* no separator before the first item */
	strbuf_join(&b, ", ", "%s (%d)", "b", 2);
	strbuf_join(&b, " and ", "%s", "c");
	SAME(b.s, "a, b (2) and c");
	strbuf_release(&b);

	s = strv_join(v, 0, ",");
	SAME(s, "");
	free(s);
	s = strv_join(v, 1, ",");
	SAME(s, "tsm0");
	free(s);
	s = strv_join(v, 3, "; ");
	SAME(s, "tsm0; tsm1; tsm2");
	free(s);

	/* str_join: NULL is the empty list; the separator goes after any item, even an empty one */
	s = NULL;
	str_join(&s, "; ", "%s", "one");
	SAME(s, "one");
	str_join(&s, "; ", "%s %u", "two", 2u);
	SAME(s, "one; two 2");
	free(s);
	s = NULL;
	str_join(&s, ", ", "%s", "");
	SAME(s, "");
	str_join(&s, ", ", "%s", "x");
	SAME(s, ", x");
	free(s);
	/* a long list stays whole */
	s = NULL;
	for (int i = 0; i < 1000; i++)
		str_join(&s, ",", "%d", i % 10);
	CHECK(s && strlen(s) == 1999 && !strncmp(s, "0,1,2", 5) && !strcmp(s + 1996, "8,9"));
	free(s);

	s = xasprintf("%s=%d", "n", -1);
	SAME(s, "n=-1");
	free(s);
}

/* ---- text_escape: one class at a time ------------------------------------ */

static void test_escape_classes(void)
{
	/* printable ASCII and valid UTF-8 are kept */
	KEPT("tsm0 pci0000:40/stream0.0.0 ~!\"#$%&'()*+,-./:;<=>?@[]^_`{|}");
	KEPT("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");	/* é € 😀 */
	KEPT("\xc2\xa0\xc2\xbf");		/* U+00A0, U+00BF: past the C1 block */
	KEPT("\xef\xbf\xbd\xf4\x8f\xbf\xbf");	/* U+FFFD, U+10FFFF (the last code point) */
	ESCAPED(NULL, "");
	ESCAPED("", "");

	/* C0: every byte 0x01-0x1f, newline and tab included */
	ESCAPED("\x01", "\\x01");
	ESCAPED("a\nb\tc\r", "a\\x0ab\\x09c\\x0d");
	ESCAPED("\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07");
	ESCAPED("\x1f", "\\x1f");
	/* DEL, and '\' so that an escape is never ambiguous */
	ESCAPED("\x7f", "\\x7f");
	ESCAPED("a\\x1b", "a\\x5cx1b");

	/* C1 as code points (UTF-8 C2 80..C2 9F): both bytes, the 8-bit CSI among them */
	ESCAPED("\xc2\x80", "\\xc2\\x80");
	ESCAPED("\xc2\x9b" "31m", "\\xc2\\x9b31m");
	ESCAPED("\xc2\x9f", "\\xc2\\x9f");
	/* a lone C1 byte is not UTF-8 at all */
	ESCAPED("\x9b" "32m", "\\x9b32m");

	/* bytes that start no valid sequence: one \xNN each, decoding resumes after it */
	ESCAPED("\xff\xfe", "\\xff\\xfe");
	ESCAPED("\xc3\x28", "\\xc3(");			/* lead byte, then no continuation */
	ESCAPED("\x80" "a", "\\x80a");			/* continuation without a lead */
	ESCAPED("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");	/* lead past F4 */
}

static void test_escape_boundaries(void)
{
	/* cut off at the end of the string: never read past the NUL */
	ESCAPED("a\xc3", "a\\xc3");
	ESCAPED("a\xe2\x82", "a\\xe2\\x82");
	ESCAPED("a\xf0\x9f\x98", "a\\xf0\\x9f\\x98");
	ESCAPED("\xe2\x82" "A", "\\xe2\\x82A");		/* cut off, then text */

	/* overlong encodings: '/' as C0 AF, E0 80 AF, F0 80 80 AF; NUL as C0 80 */
	ESCAPED("\xc0\xaf", "\\xc0\\xaf");
	ESCAPED("\xc1\xbf", "\\xc1\\xbf");
	ESCAPED("\xc0\x80", "\\xc0\\x80");
	ESCAPED("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	ESCAPED("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");	/* U+07FF in three bytes */
	KEPT("\xe0\xa0\x80");				/* U+0800, the first real three-byte one */
	ESCAPED("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
	ESCAPED("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");	/* U+FFFF in four bytes */
	KEPT("\xf0\x90\x80\x80");			/* U+10000 */

	/* UTF-16 surrogates (U+D800-U+DFFF) are not characters */
	ESCAPED("\xed\xa0\x80", "\\xed\\xa0\\x80");
	ESCAPED("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
	KEPT("\xed\x9f\xbf");				/* U+D7FF, just below */
	KEPT("\xee\x80\x80");				/* U+E000, just above */

	/* past U+10FFFF */
	ESCAPED("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
}

static void test_escape_writers(void)
{
	struct strbuf b = STRBUF_INIT;
	char *text = NULL, in[257], *out;
	size_t len = 0;
	FILE *mem;

	/* strbuf_append_escaped appends to what is there */
	strbuf_append(&b, "name=");
	strbuf_append_escaped(&b, "tsm\x1b\xc2\x9b\x7f\xff");
	SAME(b.s, "name=tsm\\x1b\\xc2\\x9b\\x7f\\xff");
	strbuf_append_escaped(&b, NULL);
	CHECK(b.len == strlen("name=tsm\\x1b\\xc2\\x9b\\x7f\\xff"));
	strbuf_release(&b);

	/* fputs_escaped writes the same text */
	mem = open_memstream(&text, &len);
	CHECK(mem != NULL);
	if (!mem)
		return;
	fputs_escaped("ok \xc2\x9b" "1m\n", mem);
	fclose(mem);
	SAME(text, "ok \\xc2\\x9b1m\\x0a");
	free(text);

	/* worst case: every byte escaped, four bytes out for each in */
	for (int i = 0; i < 256; i++)
		in[i] = (char)(0x80 + i % 64);
	in[256] = '\0';
	out = text_escape(in);
	CHECK(strlen(out) == 4 * 256);
	free(out);
}

/* TSMCTL_DEBUG names the switches; each switch's own older variable still works. */
static void test_debug_switches(void)
{
	unsetenv("TSMCTL_DEBUG");
	unsetenv("TSMCTL_CONFIG_STATS");
	unsetenv("TSMCTL_NO_OPENAT2");
	CHECK(!debug_on(DEBUG_CONFIG_STATS) && !debug_on(DEBUG_NO_OPENAT2));
	setenv("TSMCTL_DEBUG", "no-openat2", 1);
	CHECK(debug_on(DEBUG_NO_OPENAT2) && !debug_on(DEBUG_CONFIG_STATS));
	setenv("TSMCTL_DEBUG", "config-stats,no-openat2", 1);
	CHECK(debug_on(DEBUG_NO_OPENAT2) && debug_on(DEBUG_CONFIG_STATS));
	setenv("TSMCTL_DEBUG", "config-stat,no-openat2x", 1);	/* whole names only */
	CHECK(!debug_on(DEBUG_NO_OPENAT2) && !debug_on(DEBUG_CONFIG_STATS));
	unsetenv("TSMCTL_DEBUG");
	/* each own variable takes 1 (on) and 0 (off); empty is unset */
	setenv("TSMCTL_CONFIG_STATS", "1", 1);
	setenv("TSMCTL_NO_OPENAT2", "1", 1);
	CHECK(debug_on(DEBUG_CONFIG_STATS) && debug_on(DEBUG_NO_OPENAT2));
	setenv("TSMCTL_CONFIG_STATS", "0", 1);
	setenv("TSMCTL_NO_OPENAT2", "0", 1);
	CHECK(!debug_on(DEBUG_CONFIG_STATS) && !debug_on(DEBUG_NO_OPENAT2));
	setenv("TSMCTL_CONFIG_STATS", "", 1);
	setenv("TSMCTL_NO_OPENAT2", "", 1);
	CHECK(!debug_on(DEBUG_CONFIG_STATS) && !debug_on(DEBUG_NO_OPENAT2));
	unsetenv("TSMCTL_CONFIG_STATS");
	unsetenv("TSMCTL_NO_OPENAT2");
	CHECK(!log_verbose());
	log_set_level(LOG_LEVEL_VERBOSE);
	CHECK(log_verbose());
}

/* vcmd_message(CMD, FMT, ...) into a string (freed by the caller). */
static char *message(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *message(const char *cmd, const char *fmt, ...)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	va_list ap;

	if (!mem)
		return NULL;
	va_start(ap, fmt);
	vcmd_message(mem, cmd, fmt, ap);
	va_end(ap);
	fclose(mem);
	return text;
}

/* What cmd_error() and cmd_note() write on stderr, through a temporary file. */
static char *stderr_of(void (*say)(const char *, const char *, ...), const char *cmd,
		       const char *arg)
{
	FILE *tmp = tmpfile();
	char buf[256] = "";
	int saved;

	if (!tmp)
		return NULL;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(tmp), STDERR_FILENO);
	say(cmd, "device %s gone", arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	if (!fgets(buf, sizeof(buf), tmp))
		buf[0] = '\0';
	fclose(tmp);
	return strdup(buf);
}

static void test_messages(void)
{
	char *got;

	/* the prefix, with and without a command */
	got = message("devices", "no %s", "device");
	SAME(got, "tsmctl devices: no device\n");
	free(got);
	got = message(NULL, "writing standard output: %s", "No space left on device");
	SAME(got, "tsmctl: writing standard output: No space left on device\n");
	free(got);
	got = message("connect tsm0", "%s (%s)", "why", "ENXIO");
	SAME(got, "tsmctl connect tsm0: why (ENXIO)\n");
	free(got);

	/* tree text in an argument never reaches the terminal raw: C0, CSI, '\\', a newline */
	got = message("list", "tsm %s: %c", "evil\x1b[2J\xc2\x9b" "1m\\", '\a');
	SAME(got, "tsmctl list: tsm evil\\x1b[2J\\xc2\\x9b1m\\x5c: \\x07\n");
	free(got);
	got = message("watch", "%s", "two\nlines");
	SAME(got, "tsmctl watch: two\\x0alines\n");
	free(got);
	/* %.*s and numbers as printf has them; the program's words kept as they are */
	got = message("report", "%.*s is %zu bytes: café", 3, "abcdef", (size_t)64);
	SAME(got, "tsmctl report: abc is 64 bytes: café\n");
	free(got);
	/* a speaker from the tree is escaped too */
	got = message("disconnect \x1b]0;x", "nothing");
	SAME(got, "tsmctl disconnect \\x1b]0;x: nothing\n");
	free(got);

	/* cmd_error and cmd_note write the same line on stderr */
	got = stderr_of(cmd_error, "wait", "0000:01:00.0\x1b");
	SAME(got, "tsmctl wait: device 0000:01:00.0\\x1b gone\n");
	free(got);
	got = stderr_of(cmd_note, NULL, "x");
	SAME(got, "tsmctl: device x gone\n");
	free(got);
}

int main(void)
{
	test_strbuf();
	test_debug_switches();
	test_joins();
	test_escape_classes();
	test_escape_boundaries();
	test_escape_writers();
	test_messages();
	return unit_report();
}
