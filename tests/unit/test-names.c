// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for src/names.c, the strict parsers of kernel names. Inputs the
 * fuzzer (tests/fuzz/fuzz-names.c) turned up are kept here as regressions.
 * Prints one line per failed check and "N passed, N failed"; exits non-zero
 * if anything failed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tsmctl/names.h"

static unsigned long passed, failed;

static void check_at(int ok, const char *what, const char *input, int line)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL line %d: %s (input \"%s\")\n", line, what, input);
}

#define CHECK(cond, input) check_at(!!(cond), #cond, (input), __LINE__)

/* ---- BDF ---------------------------------------------------------------- */

static void bdf_ok(const char *s, unsigned int dom, unsigned int bus, unsigned int dev,
		   unsigned int fn, const char *canon, int line)
{
	struct bdf b = { 0 }, again = { 0 };
	char buf[BDF_MAX], twice[BDF_MAX];
	int rc = bdf_parse(s, &b);

	check_at(rc == 0, "bdf_parse accepts", s, line);
	check_at(b.domain == dom && b.bus == bus && b.dev == dev && b.fn == fn,
		 "bdf_parse value", s, line);
	check_at(bdf_canonical(s, buf) == 0 && !strcmp(buf, canon), "bdf_canonical", s, line);
	/* The canonical form parses back to the same value and is a fixed point. */
	check_at(bdf_parse(buf, &again) == 0 && again.domain == dom && again.bus == bus &&
		 again.dev == dev && again.fn == fn, "canonical round trip", s, line);
	check_at(bdf_canonical(buf, twice) == 0 && !strcmp(buf, twice), "canonical fixed point",
		 s, line);
}

static void bdf_bad(const char *s, int line)
{
	struct bdf b = { 1, 2, 3, 4 };
	char buf[BDF_MAX] = "untouched";

	check_at(bdf_parse(s, &b) == -EINVAL, "bdf_parse rejects", s, line);
	check_at(b.domain == 1 && b.bus == 2 && b.dev == 3 && b.fn == 4, "rejected: out untouched",
		 s, line);
	check_at(bdf_canonical(s, buf) == -EINVAL, "bdf_canonical rejects", s, line);
}

#define BDF_OK(s, d, b, dv, f, c) bdf_ok((s), (d), (b), (dv), (f), (c), __LINE__)
#define BDF_BAD(s) bdf_bad((s), __LINE__)

static void test_bdf(void)
{
	BDF_OK("0000:41:00.0", 0, 0x41, 0, 0, "0000:41:00.0");
	BDF_OK("41:00.0", 0, 0x41, 0, 0, "0000:41:00.0");
	BDF_OK("10000:01:00.0", 0x10000, 1, 0, 0, "10000:01:00.0");
	BDF_OK("ffffffff:ff:1f.7", 0xffffffff, 0xff, 0x1f, 7, "ffffffff:ff:1f.7");
	BDF_OK("0:0:0.0", 0, 0, 0, 0, "0000:00:00.0");
	/* lspci -s accepts upper case; the kernel's spelling is lower case. */
	BDF_OK("0000:4A:1F.3", 0, 0x4a, 0x1f, 3, "0000:4a:1f.3");
	BDF_OK("00000000:00:00.0", 0, 0, 0, 0, "0000:00:00.0");

	BDF_BAD("");
	BDF_BAD("0000");
	BDF_BAD("0000:41:00");
	BDF_BAD("0000:41:00.");
	BDF_BAD("0000:41:00.8");	/* fn < 8 */
	BDF_BAD("0000:41:00.9");
	BDF_BAD("0000:41:20.0");	/* dev < 32 */
	BDF_BAD("0000:41:00.0x");
	BDF_BAD("0000:41:00.0\n");
	BDF_BAD(" 0000:41:00.0");
	BDF_BAD("0000:41:00.00");
	BDF_BAD("123456789:00:00.0");	/* domain at most 8 hex digits */
	BDF_BAD("0000:141:00.0");
	BDF_BAD("0000:41:000.0");
	BDF_BAD("0:0:0:0.0");
	BDF_BAD("0000:41:00.*");
	BDF_BAD("../41:00.0");
	BDF_BAD("0000:-1:00.0");
	BDF_BAD("0000:+1:00.0");
	BDF_BAD("0000::00.0");
	BDF_BAD(":41:00.0");
	BDF_BAD("0x00:41:00.0");
	BDF_BAD("g000:41:00.0");
}

/* ---- slots: lspci -s's BB:DD ------------------------------------------- */

static void test_slot(void)
{
	static const struct { const char *s, *canon; } good[] = {
		{ "41:00", "0000:41:00.*" }, { "0000:41:00", "0000:41:00.*" },
		{ "1:2", "0000:01:02.*" }, { "10000:e1:1f", "10000:e1:1f.*" },
	};
	static const char *const bad[] = {
		"", "41", "41:00.0", "41:00.*", "41:20", "0000:41:00:00", "41:0g", " 41:00",
		"ffffffffff:41:00", "41:00 ",
	};
	char buf[BDF_MAX];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK(slot_canonical(good[i].s, buf) == 0 && !strcmp(buf, good[i].canon), good[i].s);
		CHECK(bdf_is_slot(buf), good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(slot_canonical(bad[i], buf) == -EINVAL, bad[i]);

	CHECK(!bdf_is_slot("0000:41:00.0") && !bdf_is_slot("*") && !bdf_is_slot(".*"), "not slots");
	CHECK(bdf_in_slot("0000:41:00.0", "0000:41:00.*"), "function 0");
	CHECK(bdf_in_slot("0000:41:00.7", "0000:41:00.*"), "function 7");
	CHECK(!bdf_in_slot("0000:41:01.0", "0000:41:00.*"), "another device");
	CHECK(!bdf_in_slot("10000:41:00.0", "0000:41:00.*"), "a longer domain");
	CHECK(!bdf_in_slot("0000:41:00.0", "0000:41:00.0"), "a BDF is no slot");
	CHECK(!bdf_in_slot("0000:41:00.10", "0000:41:00.*"), "longer than a function");
}

/* ---- tsmN --------------------------------------------------------------- */

static void test_tsm(void)
{
	static const struct { const char *s; int id; } good[] = {
		{ "tsm0", 0 }, { "tsm1", 1 }, { "tsm10", 10 }, { "tsm2147483647", 2147483647 },
	};
	static const char *const bad[] = {
		"", "t", "ts", "tsm", "tsm-1", "tsm+1", "TSM0", "Tsm0", "tsm01", "tsm00",
		"tsm0junk", "tsm0\n", " tsm0", "tsm 0", "tsm2147483648", "tsm99999999999999999999",
		"tsmA", "tsm0x1", "xtsm0",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int id = -1;

		CHECK(tsm_name_parse(good[i].s, &id) == 0 && id == good[i].id, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int id = -7;

		CHECK(tsm_name_parse(bad[i], &id) == -EINVAL && id == -7, bad[i]);
	}
}

/* ---- pciDDDD:BB --------------------------------------------------------- */

static void test_hb(void)
{
	static const struct { const char *s; unsigned int domain, bus; } good[] = {
		{ "pci0000:00", 0, 0 }, { "pci0000:40", 0, 0x40 }, { "pci10000:00", 0x10000, 0 },
		{ "pci10001:02", 0x10001, 2 }, { "pciffffffff:ff", 0xffffffff, 0xff },
		{ "pci12345:ab", 0x12345, 0xab }, { "pcie0000:00", 0xe0000, 0 },	/* "e" is a digit */
	};
	static const char *const bad[] = {
		"", "pci", "pci:", "pci000:00", "pci0000:0", "pci0000:000", "pci0000:4A",
		"pci000A:00", "PCI0000:00", "pci0000:00\n", "pci0000:00 ", "pci123456789:00",
		"pci0000-00", "pci0000:00:00", "pci+000:00", "pci0000:-1",
		/* fuzz-names: "%04x" never pads past 4 digits, so these are not kernel names */
		"pci00000:00", "pci01234:56", "pci00000000:00", "pci000010000:00",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		unsigned int d = 7, b = 7;

		CHECK(hb_name_parse(good[i].s, &d, &b) == 0 && d == good[i].domain &&
		      b == good[i].bus, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned int d = 7, b = 7;

		CHECK(hb_name_parse(bad[i], &d, &b) == -EINVAL && d == 7 && b == 7, bad[i]);
	}
}

/* ---- streamH.R.E -------------------------------------------------------- */

static void test_stream(void)
{
	static const struct { const char *s; unsigned int h, r, e; } good[] = {
		{ "stream0.0.0", 0, 0, 0 }, { "stream3.2.0", 3, 2, 0 },
		{ "stream255.255.255", 255, 255, 255 }, { "stream10.1.100", 10, 1, 100 },
	};
	static const char *const bad[] = {
		"", "stream", "stream0", "stream0.0", "stream0.0.", "stream0.0.0.0", "stream.0.0",
		"stream0..0", "stream256.0.0", "stream0.256.0", "stream0.0.256",
		"stream99999999999999999999.0.0", "stream0.0.99999999999999999999", "streamA.B.C",
		"stream01.0.0", "stream0.00.0", "stream-1.0.0", "stream+1.0.0", "stream 0.0.0",
		"stream0.0.0\n", "Stream0.0.0", "stream0.0.0:0000:41:00.0", "stream0x1.0.0",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		unsigned int h = 9, r = 9, e = 9;

		CHECK(stream_name_parse(good[i].s, &h, &r, &e) == 0 && h == good[i].h &&
		      r == good[i].r && e == good[i].e, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned int h = 9, r = 9, e = 9;

		CHECK(stream_name_parse(bad[i], &h, &r, &e) == -EINVAL && h == 9 && r == 9 &&
		      e == 9, bad[i]);
	}
}

/* ---- unsigned decimal attributes ----------------------------------------- */

static void test_ulong(void)
{
	static const struct { const char *s; unsigned long v; } good[] = {
		{ "0", 0 }, { "4", 4 }, { "256", 256 }, { "18446744073709551615", (unsigned long)-1 },
	};
	static const char *const bad[] = {
		"", "-1", "+4", " 4", "4 ", "4\n", "04", "00", "0x10", "1e3", "4.0",
		"18446744073709551616", "99999999999999999999999", "four",
	};
	unsigned long v = 0;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 7;
		CHECK(parse_ulong(good[i].s, &v) == 0 && v == good[i].v, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		CHECK(parse_ulong(bad[i], &v) == -EINVAL && v == 7, bad[i]);
	}
	CHECK(parse_ulong(NULL, &v) == -EINVAL, "(null)");
}

/* ---- numbers the kernel prints, with base and bound ---------------------- */

static void test_number(void)
{
	static const struct { const char *s; int base; unsigned long max, v; } good[] = {
		{ "0", 10, 0, 0 }, { "65535", 10, 0xffff, 65535 }, { "255", 10, 255, 255 },
		{ "0x15b3", 16, 0xffff, 0x15b3 }, { "0xffff", 16, 0xffff, 0xffff },
		{ "0x000604", 16, 0xffffff, 0x604 },	/* the kernel's "0x%06x" pads */
		{ "0x0", 16, 0, 0 }, { "0xABcd", 16, 0xffff, 0xabcd },
		{ "0xffffffffffffffff", 16, (unsigned long)-1, (unsigned long)-1 },
	};
	static const struct { const char *s; int base; unsigned long max; int err; } bad[] = {
		{ "65536", 10, 0xffff, -ERANGE }, { "256", 10, 255, -ERANGE },
		{ "4", 10, 3, -ERANGE }, { "0xf", 16, 9, -ERANGE }, { "1", 10, 0, -ERANGE },
		{ "18446744073709551616", 10, (unsigned long)-1, -ERANGE },
		{ "0x10000", 16, 0xffff, -ERANGE }, { "0x1000000", 16, 0xffffff, -ERANGE },
		{ "0x10000000000000000", 16, (unsigned long)-1, -ERANGE },
		{ "", 10, 9, -EINVAL }, { "04", 10, 9, -EINVAL }, { "-1", 10, 9, -EINVAL },
		{ "4\n", 10, 9, -EINVAL }, { " 4", 10, 9, -EINVAL }, { "0x4", 10, 9, -EINVAL },
		{ "15b3", 16, 0xffff, -EINVAL }, { "0x", 16, 0xffff, -EINVAL },
		{ "0X15b3", 16, 0xffff, -EINVAL }, { "0x15b3 ", 16, 0xffff, -EINVAL },
		{ "0x-1", 16, 0xffff, -EINVAL }, { "0x15g3", 16, 0xffff, -EINVAL },
		{ " 0x1", 16, 0xffff, -EINVAL }, { "4", 8, 9, -EINVAL }, { "4", 0, 9, -EINVAL },
	};
	unsigned long v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 7;
		CHECK(parse_number(good[i].s, good[i].base, good[i].max, &v) == 0 &&
		      v == good[i].v, good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		CHECK(parse_number(bad[i].s, bad[i].base, bad[i].max, &v) == bad[i].err && v == 7,
		      bad[i].s);
	}
	CHECK(parse_number(NULL, 10, 9, &v) == -EINVAL, "(null)");
}

int main(void)
{
	test_bdf();
	test_slot();
	test_tsm();
	test_hb();
	test_stream();
	test_ulong();
	test_number();
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
