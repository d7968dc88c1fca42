// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The evidence checks that need no certificate (evidence-verify*.c) on
 * objects built in memory from the specifications' layouts: the resource,
 * MSI-X and Device Serial Number readers, evidence.report-ranges (the BARs'
 * own addresses; offsets from the lowest page only for the SEV-TIO guest,
 * as a risk; ranges past or before a BAR, overlapping, MSI-X tables and PBAs
 * in and out of place), evidence.binding (reserved bits, INTERFACE_ID), the
 * reference manifest's parser, evidence.measurements against it,
 * evidence.generation, and the device files a set reads from a sysroot; and
 * evidence.signature with the openssl-made vectors of tests/unit/sig-vectors
 * (a self-signed leaf as cert0): every form of the measurements object, the
 * nonce sent or not, replays, zeroed and stripped signatures, a missing
 * VCA, with the risk each skip leaves a decision to take; and through the
 * run's certificate cache, each device's signature still its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "bytes.h"
#include "sig-vectors.h"
#include "tsmctl/evidence-device.h"
#include "tsmctl/evidence-reference.h"
#include "tsmctl/evidence-verify.h"
#include "tsmctl/evidence-verify-cache.h"
#include "tsmctl/pci-serial.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "unit.h"

#define MB	(1024u * 1024u)
#define PAGE	4096u

/* A resource file's text: BAR 0 (2 MiB, 64-bit, prefetchable) at BASE, BAR 2 (64 KiB) at BASE2, the rest empty. */
static char *resource(uint64_t base, uint64_t base2)
{
	struct strbuf b = STRBUF_INIT;

	for (int i = 0; i < 13; i++) {
		uint64_t start = 0, end = 0, flags = 0;

		if (i == 0)
			start = base, end = base + 2 * MB - 1, flags = 0x14220c;
		else if (i == 2 && base2)
			start = base2, end = base2 + 0x10000 - 1, flags = 0x40200;
		strbuf_appendf(&b, "0x%016llx 0x%016llx 0x%016llx\n", (unsigned long long)start,
			       (unsigned long long)end, (unsigned long long)flags);
	}
	return strbuf_take(&b);
}

/* Config space (256 bytes) with the PCIe capability at 0x40 and, when VECTORS, MSI-X at 0x80. */
static uint8_t *config(unsigned int vectors, uint32_t table, uint32_t pba, size_t *len)
{
	uint8_t *c = calloc(1, 256);

	c[0x06] = 0x10;			/* status: capability list */
	c[0x34] = 0x40;
	c[0x40] = 0x10;			/* PCI Express */
	if (vectors) {
		c[0x41] = 0x80;
		c[0x80] = 0x11;
		patch_le(&(struct bytes){ c, 256, 256 }, 0x82, vectors - 1, 2);
		patch_le(&(struct bytes){ c, 256, 256 }, 0x84, table, 4);
		patch_le(&(struct bytes){ c, 256, 256 }, 0x88, pba, 4);
	}
	*len = 256;
	return c;
}

struct range {
	uint64_t first_page;
	uint32_t pages;
	uint16_t id;
	uint16_t attrs;
};

/* An interface report: MSI-X control for VECTORS, the ranges, no device-specific information. */
static void report(struct bytes *b, unsigned int vectors, const struct range *r, unsigned int n)
{
	put16(b, 1u << 1);		/* INTERFACE_INFO: DMA without PASID */
	put16(b, 0);
	put16(b, vectors ? vectors - 1 : 0);
	put16(b, 0);
	put32(b, 0);
	put32(b, n);
	for (unsigned int i = 0; i < n; i++) {
		put64(b, r[i].first_page);
		put32(b, r[i].pages);
		put32(b, (uint32_t)r[i].id << 16 | r[i].attrs);
	}
	put32(b, 0);
}

/* A set holding OBJ as object TYPE (generation 1) and the device's files. */
static void set_with(struct evidence_set *s, unsigned int type, const struct bytes *obj)
{
	evset_init(s);
	snprintf(s->bdf, sizeof(s->bdf), "0000:01:00.0");
	s->obj[type] = (struct evset_object){ .present = true, .length = (uint32_t)obj->len,
					      .generation = 1, .received = (uint32_t)obj->len };
	s->obj[type].data = malloc(obj->len);
	memcpy(s->obj[type].data, obj->buf, obj->len);
}

static enum ev_risk verdict_risk;	/* the risk of the last verdict() found */
static struct x509_store_st *verdict_store;	/* the trust store verdict_of() uses: NULL, none */
static struct ev_cache *verdict_cache;		/* and the run's cache: NULL, none */

/* Verify S with REF (LIVE: read just now); the "status: message" of ID about OBJECT into OUT, its risk. */
static enum ev_risk verdict_of(struct evidence_set *s, const struct ev_reference *ref, bool live,
			       const char *id, const char *object, char *out, size_t size)
{
	struct ev_verify_opts o = { .store = verdict_store, .store_path = "/none",
				    .store_missing = "does not exist", .ref = ref, .live = live,
				    .cache = verdict_cache };
	struct ev_decoded d;
	struct ev_results r;

	ev_decode_set(s, &d);
	ev_verify(&d, &o, &r);
	snprintf(out, size, "no result");
	verdict_risk = EV_RISK_NONE;
	for (size_t i = 0; i < r.n; i++) {
		if (strcmp(r.v[i].check->id, id) || strcmp(r.v[i].object, object))
			continue;
		snprintf(out, size, "%s: %s", ev_status_name(r.v[i].status), r.v[i].message);
		verdict_risk = r.v[i].risk;
	}
	ev_results_free(&r);
	ev_decoded_release(&d);
	return verdict_risk;
}

/* The same of evidence read live, its risk in verdict_risk. */
static void verdict(struct evidence_set *s, const struct ev_reference *ref, const char *id,
		    const char *object, char *out, size_t size)
{
	verdict_of(s, ref, true, id, object, out, size);
}

#define EXPECT_PREFIX(got, want) do { \
		CHECK(!strncmp((got), (want), strlen(want))); \
		if (strncmp((got), (want), strlen(want))) \
			printf("  got:  %s\n  want: %s...\n", (got), (want)); \
	} while (0)
#define EXPECT_HAS(got, part) do { \
		CHECK(strstr((got), (part)) != NULL); \
		if (!strstr((got), (part))) \
			printf("  got:  %s\n  lacks: %s\n", (got), (part)); \
	} while (0)

static void test_resource_and_msix(void)
{
	struct ev_bar bars[EV_NR_BARS];
	struct ev_msix x;
	char *text = resource(0x4000000000ull, 0xfe000000);
	size_t len;
	uint8_t *cfg;

	CHECK(ev_parse_resource(text, bars) == 0);
	CHECK(bars[0].present && bars[0].start == 0x4000000000ull && bars[0].end == 0x40001fffffull);
	CHECK(!bars[1].present && bars[2].present && !bars[2].io && !bars[3].present);
	CHECK(ev_parse_resource("0x0 junk\n", bars) == -EBADMSG);
	free(text);
	cfg = config(16, 0x2000, 0x3000 | 2, &len);
	CHECK(ev_find_msix(cfg, len, &x) == 0 && x.present && x.table_size == 16);
	CHECK(x.table_bir == 0 && x.table_offset == 0x2000 && x.pba_bir == 2 && x.pba_offset == 0x3000);
	CHECK(ev_msix_table_bytes(&x) == 256 && ev_msix_pba_bytes(&x) == 8);
	/* what a reader without root gets: the header alone */
	CHECK(ev_find_msix(cfg, 64, &x) == -EACCES);
	/* a list that points back at itself */
	cfg[0x81] = 0x40;
	cfg[0x80] = 0x05;
	CHECK(ev_find_msix(cfg, len, &x) == -EBADMSG);
	cfg[0x06] = 0;
	CHECK(ev_find_msix(cfg, len, &x) == -ENOENT);
	free(cfg);
}

/*
 * A report judged against BAR 0 at BASE (and BAR 2) with MSI-X (VECTORS,
 * table, PBA) or none, the function locked to a TSM of PROVIDER (NULL: none).
 */
static void judge_report_of(const struct range *r, unsigned int n, unsigned int vectors,
			    uint32_t table, uint32_t pba, uint64_t base, const char *provider,
			    char *out, size_t size)
{
	struct bytes b = { 0 };
	struct evidence_set s;

	report(&b, vectors, r, n);
	set_with(&s, 10, &b);
	s.resource = resource(base, 0xfe000000);
	s.config = config(vectors, table, pba, &s.config_len);
	s.tsm_provider = provider ? xstrdup(provider) : NULL;
	verdict(&s, NULL, "evidence.report-ranges", "report", out, size);
	evset_release(&s);
	bytes_free(&b);
}

static void judge_report(const struct range *r, unsigned int n, unsigned int vectors, uint32_t table,
			 uint32_t pba, uint64_t base, char *out, size_t size)
{
	judge_report_of(r, n, vectors, table, pba, base, NULL, out, size);
}

static void test_report_ranges(void)
{
	const uint64_t base = 0x4000000000ull, bp = base / PAGE;
	/* BAR 0 cut at the MSI-X table (page 2) and PBA (page 3), as a device reports it */
	const struct range good[] = {
		{ bp, 2, 0, 0 }, { bp + 2, 1, 0, 0x5 }, { bp + 3, 1, 0, 0x6 }, { bp + 4, 508, 0, 0 },
		{ 0xfe000000 / PAGE, 16, 2, 0 },
	};
	struct range r[5];
	char got[512];

	judge_report(good, 5, 16, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_PREFIX(got, "pass: 5 ranges inside their BARs, as 4 KiB pages (BAR 0: 4, BAR 2: 1); "
		      "MSI-X table (BAR 0 +0x2000) and PBA (BAR 0 +0x3000) where the capability puts "
		      "them; non-TEE: range 1 (BAR 0 +0x2000, 1 page), range 2 (BAR 0 +0x3000, 1 page); "
		      "no two overlap");
	/* BAR 0 elsewhere: the absolute addresses are checked, no reading as offsets */
	judge_report(good, 5, 16, 0x2000, 0x3000, 0x80000000, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 0 (2 pages at BAR 0 +0x3f80000000) ends past BAR 0 (0x200000 "
		      "bytes)");
	judge_report(good, 5, 16, 0x2000, 0x3000, base + 0x10000, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 0 (2 pages at 0x4000000000) starts 0x10000 bytes before BAR 0 "
		      "(0x4000010000)");
	/* the SEV-TIO guest's TSM: offsets from the lowest page, a skip with its risk */
	judge_report_of(good, 5, 16, 0x2000, 0x3000, 0x80000000, "sev-guest", got, sizeof(got));
	EXPECT_PREFIX(got, "skip: 5 ranges inside their BARs by offset from each BAR's lowest "
		      "reported page (BAR 0: 4, BAR 2: 1), no two overlapping; MSI-X table");
	EXPECT_HAS(got, "the function is locked to a TSM of sev-guest, whose reports give offsets: "
		   "their absolute addresses are not proven");
	CHECK(verdict_risk == EV_RISK_REPORT_OFFSETS);
	/* another guest TSM's provider: absolute */
	judge_report_of(good, 5, 16, 0x2000, 0x3000, 0x80000000, "tdx-guest", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 0 ");
	CHECK(verdict_risk == EV_RISK_NONE);
	/* one page past the end, under either reading */
	memcpy(r, good, sizeof(r));
	r[3].pages = 509;
	judge_report(r, 5, 16, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 3 (509 pages at BAR 0 +0x4000) ends past BAR 0 (0x200000 bytes)");
	judge_report_of(r, 5, 16, 0x2000, 0x3000, 0x80000000, "sev-guest", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 3 (509 pages at BAR 0 +0x4000) ends past BAR 0");
	/* two ranges sharing a page, by address and by offset */
	memcpy(r, good, sizeof(r));
	r[3].first_page = bp + 3;
	r[3].pages = 2;
	judge_report(r, 5, 16, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: ranges 2 and 3 overlap");
	judge_report_of(r, 5, 16, 0x2000, 0x3000, 0x80000000, "sev-guest", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: ranges 2 and 3 overlap");
	/* a range naming a BAR the function lacks */
	memcpy(r, good, sizeof(r));
	r[4].id = 4;
	judge_report(r, 5, 16, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 4 names BAR 4, which the function does not have");
	/* the table reported a page late */
	memcpy(r, good, sizeof(r));
	r[1].attrs = 0;
	r[2].attrs = 0x5;
	judge_report(r, 5, 16, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_HAS(got, "range 2 is marked MSI-X table but lies at BAR 0 +0x3000 (1 page)");
	EXPECT_HAS(got, "no range marked MSI-X table holds the one the capability places at BAR 0 +0x2000 (256 bytes)");
	judge_report_of(r, 5, 16, 0x2000, 0x3000, 0x80000000, "sev-guest", got, sizeof(got));
	EXPECT_HAS(got, "range 2 is marked MSI-X table but lies at BAR 0 +0x3000 (1 page)");
	/* the capability says 17 entries: the table runs past its page; the report's control disagrees */
	judge_report(good, 5, 300, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_HAS(got, "fail: ");
	judge_report(good, 5, 0, 0, 0, base, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: ranges are marked MSI-X table or PBA, but the function has no MSI-X "
		      "capability");
	/* the capability places its PBA in BAR 2 */
	judge_report(good, 5, 16, 0x2000, 0x100 | 2, base, got, sizeof(got));
	EXPECT_HAS(got, "range 2 is marked MSI-X PBA but lies at BAR 0 +0x3000 (1 page), where the "
		   "capability has no MSI-X PBA (BAR 2 +0x100, 8 bytes)");
}

/* REPORT wrapped in a DEVICE_INTERFACE_REPORT response whose FUNCTION_ID is FID. */
static void response(struct bytes *b, const struct bytes *report, uint32_t fid, uint64_t reserved)
{
	put8(b, 0x10);
	put8(b, 0x04);
	put16(b, 0);
	put32(b, fid);
	put64(b, reserved);
	put16(b, report->len);
	put16(b, 0);
	put_bytes(b, report->buf, report->len);
}

/* evidence.binding of report object OBJ for the function 0000:41:00.0. */
static void judge_binding(const struct bytes *obj, char *out, size_t size)
{
	struct evidence_set s;

	set_with(&s, 10, obj);
	snprintf(s.bdf, sizeof(s.bdf), "0000:41:00.0");
	verdict(&s, NULL, "evidence.binding", "report", out, size);
	evset_release(&s);
}

static void test_binding(void)
{
	const struct range one[] = { { 0x4000000000ull / PAGE, 2, 0, 0 } }, bad_attr[] = {
		{ 0x4000000000ull / PAGE, 2, 0, 0x10 } };
	struct bytes rep = { 0 }, b = { 0 };
	char got[512];

	report(&rep, 0, one, 1);
	judge_binding(&rep, got, sizeof(got));
	CHECK(!strcmp(got, "pass: every reserved bit is 0; the report structure names no function (a "
		      "whole TDISP response carries INTERFACE_ID): it is 0000:41:00.0's as the kernel "
		      "read it"));
	/* INTERFACE_ID: 41:00.0, segment 0 valid; 99:00.0 instead; another segment */
	response(&b, &rep, 1u << 24 | 0x4100, 0);
	judge_binding(&b, got, sizeof(got));
	CHECK(!strcmp(got, "pass: INTERFACE_ID names 0000:41:00.0, the function judged; every "
		      "reserved bit is 0"));
	bytes_free(&b);
	response(&b, &rep, 0x9900, 0);
	judge_binding(&b, got, sizeof(got));
	CHECK(!strcmp(got, "fail: INTERFACE_ID names 99:00.0 (no segment given), not 0000:41:00.0, "
		      "the function judged"));
	bytes_free(&b);
	response(&b, &rep, 1u << 24 | 3u << 16 | 0x4100, 0);
	judge_binding(&b, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: INTERFACE_ID names 0003:41:00.0, not 0000:41:00.0");
	bytes_free(&b);
	/* reserved bits: FUNCTION_ID 31:25, INTERFACE_ID's bytes, INTERFACE_INFO, a range's attributes */
	response(&b, &rep, 1u << 25 | 0x4100, 0xff);
	judge_binding(&b, got, sizeof(got));
	CHECK(!strcmp(got, "fail: FUNCTION_ID bits 31:25 are 0x02000000; INTERFACE_ID's reserved "
		      "bytes are 0x00000000000000ff"));
	bytes_free(&b);
	bytes_free(&rep);
	report(&rep, 0, bad_attr, 1);
	patch_le(&rep, 0, 1u << 5 | 1u << 1, 2);
	patch_le(&rep, 2, 0x8000, 2);
	patch_le(&rep, 8, 1u << 4, 4);
	judge_binding(&rep, got, sizeof(got));
	CHECK(!strcmp(got, "fail: INTERFACE_INFO sets reserved bits 0x0020; the reserved field after "
		      "INTERFACE_INFO is 0x8000; TPH control sets reserved bits 0x00000010; range 0's "
		      "attributes set reserved bits 0x0010"));
	bytes_free(&rep);
}

/* The Device Serial Number against the leaf's device-info: the parsers, then the check. */
static void test_dsn(void)
{
	static const char *const same[] = {
		"00-11-22-33-44-55-66-77", "00:11:22:33:44:55:66:77", "00 11 22 33 44 55 66 77",
		"0011223344556677", "0x0011223344556677", "00-11-22-33-44-55-66-77",
	};
	static const char *const junk[] = {
		"", "00-11-22-33-44-55-66", "00-11-22-33-44-55-66-77-88", "00-11:22-33-44-55-66-77",
		"0011223344556677 ", "00-11-22-33-44-55-66-7g", "1234567890", "0x001122334455667",
		"00.11.22.33.44.55.66.77",
	};
	const char *serial;
	uint64_t v;
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(same); i++)
		CHECK(!ev_parse_dsn(same[i], strlen(same[i]), &v) && v == 0x0011223344556677ull);
	for (size_t i = 0; i < ARRAY_SIZE(junk); i++)
		CHECK(ev_parse_dsn(junk[i], strlen(junk[i]), &v) == -EBADMSG);
	CHECK(!ev_parse_dsn("FF-EE-DD-CC-BB-AA-99-88", 23, &v) && v == 0xffeeddccbbaa9988ull);
	CHECK(!ev_device_info_serial("ACME:WIDGET:00-11-22-33-44-55-66-77", 35, &serial, &len));
	CHECK(len == 23 && !strncmp(serial, "00-11-22-33-44-55-66-77", len));
	CHECK(!ev_device_info_serial("ACME:WIDGET:00:11:22:33:44:55:66:77", 35, &serial, &len));
	CHECK(len == 23 && !ev_parse_dsn(serial, len, &v) && v == 0x0011223344556677ull);
	CHECK(!ev_device_info_serial("a:b:", 4, &serial, &len) && len == 0);
	CHECK(ev_device_info_serial("ACME:WIDGET", 11, &serial, &len) == -ENOENT);
	CHECK(ev_device_info_serial("", 0, &serial, &len) == -ENOENT);
}

/* What a set reads of the function below a sysroot: serial_number, and its locking TSM's provider. */
static void test_read_device(void)
{
	char root[] = "/tmp/test-evidence-verify.XXXXXX", *path;
	const char *const dirs[] = {
		"sys", "sys/devices", "sys/devices/platform", "sys/devices/platform/sev-guest",
		"sys/devices/platform/sev-guest/tsm", "sys/devices/platform/sev-guest/tsm/tsm0",
		"sys/class", "sys/class/tsm", "sys/bus", "sys/bus/pci", "sys/bus/pci/devices",
		"sys/bus/pci/devices/0000:41:00.0", "sys/bus/pci/devices/0000:41:00.0/tsm",
	};
	static const struct { const char *name, *text; } files[] = {
		{ "sys/bus/pci/devices/0000:41:00.0/serial_number", "00-11-22-33-44-55-66-77\n" },
		{ "sys/bus/pci/devices/0000:41:00.0/tsm/lock", "tsm0\n" },
		{ "sys/bus/pci/devices/0000:41:00.0/resource", "0x0 0x0 0x0\n" },
	};
	struct evidence_set s;
	FILE *f;

	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		path = path_join(root, dirs[i]);
		mkdir(path, 0755);
		free(path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		path = path_join(root, files[i].name);
		f = fopen(path, "w");
		fputs(files[i].text, f);
		fclose(f);
		free(path);
	}
	path = path_join(root, "sys/class/tsm/tsm0");
	CHECK(!symlink("../../devices/platform/sev-guest/tsm/tsm0", path));
	free(path);
	path = path_join(root, "sys/devices/platform/sev-guest/tsm/tsm0/device");
	CHECK(!symlink("../..", path));	/* as tsm-sim makes it; the kernel writes ../../../sev-guest */
	free(path);
	CHECK(sysfs_init(root) == 0);
	evset_init(&s);
	snprintf(s.bdf, sizeof(s.bdf), "0000:41:00.0");
	evset_read_device(&s);
	CHECK(s.serial && !strcmp(s.serial, "00-11-22-33-44-55-66-77") && !s.serial_err);
	CHECK(s.tsm_provider && !strcmp(s.tsm_provider, "sev-guest"));
	CHECK(s.resource && !s.config);
	evset_release(&s);
	/* no DSN (the attribute is not there) and not locked */
	path = path_join(root, "sys/bus/pci/devices/0000:41:00.0/serial_number");
	unlink(path);
	free(path);
	path = path_join(root, "sys/bus/pci/devices/0000:41:00.0/tsm/lock");
	f = fopen(path, "w");
	fclose(f);
	free(path);
	evset_init(&s);
	snprintf(s.bdf, sizeof(s.bdf), "0000:41:00.0");
	evset_read_device(&s);
	CHECK(!s.serial && s.serial_err == -ENOENT && !s.tsm_provider);
	evset_release(&s);
	/* only the kernel's "%8phD" is a serial_number: lspci's ':' or upper case is not */
	path = path_join(root, "sys/bus/pci/devices/0000:41:00.0/serial_number");
	f = fopen(path, "w");
	fputs("00:11:22:33:44:55:66:77\n", f);
	fclose(f);
	free(path);
	evset_init(&s);
	snprintf(s.bdf, sizeof(s.bdf), "0000:41:00.0");
	evset_read_device(&s);
	CHECK(!s.serial && s.serial_err == -EBADMSG);
	evset_release(&s);
	CHECK(pci_serial_form_ok("00-11-22-33-44-55-66-77"));
	CHECK(!pci_serial_form_ok("00-11-22-33-44-55-66-7A"));
	CHECK(!pci_serial_form_ok("00-11-22-33-44-55-66-77-"));
	CHECK(!pci_serial_form_ok("0011223344556677"));
	sysfs_exit();
	path = xasprintf("rm -rf '%s'", root);
	CHECK(system(path) == 0);
	free(path);
}

static const char *const good_ref =
	"{ \"schema_version\": 1, \"measurements\": ["
	"  { \"index\": 1, \"type\": \"immutable_rom\", \"digests\": [\"00\", \"0102\"] },"
	"  { \"index\": 2, \"texts\": [\"1.0\"] },"
	"  { \"index\": 9, \"values\": [\"aa\"], \"optional\": true } ],"
	"  \"device_mode\": { \"operational\": \"normal\", \"debug\": \"inactive\" },"
	"  \"min_security_version\": 3 }";

static void test_reference_parse(void)
{
	static const struct { const char *text, *why; } bad[] = {
		{ "[]", "not a JSON object" },
		{ "{ \"schema_version\": 2 }", "\"schema_version\" must be 1" },
		{ "{ \"schema_version\": 1, \"measurement\": [] }", "unknown member \"measurement\"" },
		{ "{ \"schema_version\": 1, \"measurements\": [ { \"index\": 0 } ] }",
		  "measurements[0]: \"index\" must be a number from 1 to 254" },
		{ "{ \"schema_version\": 1, \"measurements\": [ { \"index\": 3 }, { \"index\": 3 } ] }",
		  "measurements[1]: index 3 is listed twice" },
		{ "{ \"schema_version\": 1, \"measurements\": [ { \"index\": 3, \"digests\": [\"ab\"], "
		  "\"texts\": [\"x\"] } ] }", "\"digests\" excludes \"values\" and \"texts\"" },
		{ "{ \"schema_version\": 1, \"measurements\": [ { \"index\": 3, \"type\": \"rom\" } ] }",
		  "\"type\" must be a DMTF value type name" },
		{ "{ \"schema_version\": 1, \"device_mode\": { \"debug\": \"sometimes\" } }",
		  "\"debug\" must be any, inactive or never" },
		{ "{ \"schema_version\": 1 } trailing", "not JSON" },
	};
	struct ev_reference ref;
	char *why = NULL;

	CHECK(ev_reference_parse(good_ref, strlen(good_ref), &ref, &why) == 0);
	CHECK(ref.nr_entries == 3 && ref.entries[0].nr_digests == 2 && ref.entries[0].type == 0);
	CHECK(ref.entries[1].nr_values == 1 && ref.entries[1].values[0].len == 3);
	CHECK(ref.entries[2].optional && ref.entries[2].values[0].p[0] == 0xaa);
	CHECK(ref.has_device_mode && ref.operational == 2 && ref.debug == EV_REF_DEBUG_INACTIVE);
	CHECK(ref.has_min_svn && ref.min_svn == 3 && ref.base_asym.any && ref.unknown == EV_REF_UNKNOWN_WARN);
	ev_reference_release(&ref);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		CHECK(ev_reference_parse(bad[i].text, strlen(bad[i].text), &ref, &why) == -EINVAL);
		CHECK(why && strstr(why, bad[i].why));
		if (!why || !strstr(why, bad[i].why))
			printf("  %s: %s\n", bad[i].text, why ? why : "(no reason)");
		free(why);
		ev_reference_release(&ref);
	}
}

/* A DMTF measurement block: index, value type (bit 7 raw), value. */
static void block(struct bytes *b, uint8_t index, uint8_t type, const void *value, uint16_t n)
{
	put8(b, index);
	put8(b, 0x01);
	put16(b, 3u + n);
	put8(b, type);
	put16(b, n);
	put_bytes(b, value, n);
}

/* MEASUREMENTS 1.2, unsigned: ROM digest 0102, version "1.0", device mode STATE/DEBUG, SVN, and index 7. */
static void measurements(struct bytes *b, uint32_t op_state, uint32_t debug_state, uint64_t svn)
{
	struct bytes rec = { 0 };
	uint8_t mode[16] = { 0 };
	uint8_t rom[2] = { 1, 2 }, sv[8];

	for (int i = 0; i < 4; i++) {
		mode[4 + i] = (uint8_t)(op_state >> (8 * i));
		mode[12 + i] = (uint8_t)(debug_state >> (8 * i));
	}
	for (int i = 0; i < 8; i++)
		sv[i] = (uint8_t)(svn >> (8 * i));
	block(&rec, 1, 0, rom, 2);
	block(&rec, 2, 0x86, "1.0", 3);
	block(&rec, 5, 0x85, mode, 16);
	block(&rec, 6, 0x87, sv, 8);
	block(&rec, 7, 0x83, "x", 1);
	put8(b, 0x12);
	put8(b, 0x60);
	put16(b, 0);
	put8(b, 5);
	put24(b, rec.len);
	put_bytes(b, rec.buf, rec.len);
	put_pattern(b, 0x40, 32);
	put16(b, 0);
	bytes_free(&rec);
}

static void judge_meas(uint32_t op, uint32_t dbg, uint64_t svn, const char *ref_text,
		       const char *object, char *out, size_t size)
{
	struct ev_reference ref;
	struct evidence_set s;
	struct bytes b = { 0 };
	char *why = NULL;

	measurements(&b, op, dbg, svn);
	set_with(&s, 9, &b);
	CHECK(ev_reference_parse(ref_text, strlen(ref_text), &ref, &why) == 0);
	free(why);
	verdict(&s, &ref, "evidence.measurements", object, out, size);
	ev_reference_release(&ref);
	evset_release(&s);
	bytes_free(&b);
}

static void test_measurements(void)
{
	char got[512];

	judge_meas(1u << 2, 0, 3, good_ref, "measurements/1", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: index 1 (immutable_rom): the digest is one of the 2 the reference accepts");
	judge_meas(1u << 2, 0, 3, good_ref, "measurements/2", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: index 2 (version): the raw value is one of the 1");
	/* index 9 is optional and absent; 5, 6, 7 are not in the manifest: unknown warns */
	judge_meas(1u << 2, 0, 3, good_ref, "measurements/9", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: index 9 is in the reference manifest but not in the measurements (optional)");
	judge_meas(1u << 2, 0, 3, good_ref, "measurements/7", got, sizeof(got));
	EXPECT_PREFIX(got, "warn: index 7 (firmware_config raw value) is not in the reference manifest");
	judge_meas(1u << 2, 0, 3, good_ref, "measurements/device-mode", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: index 5: operational mode normal, device mode state none");
	/* debug was active once: "inactive" allows it, "never" does not; active now is refused */
	judge_meas(1u << 2, 1u << 3, 3, good_ref, "measurements/device-mode", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: index 5: operational mode normal, device mode state invasive_debug_was_active");
	judge_meas(1u << 2, 1u << 1, 3, good_ref, "measurements/device-mode", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: index 5: device mode state invasive_debug_active, the reference "
		      "allows no active debug mode");
	judge_meas(1u << 0, 0, 3, good_ref, "measurements/device-mode", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: index 5: operational mode manufacturing, the reference requires normal");
	judge_meas(1u << 2, 0, 2, good_ref, "measurements/svn", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: index 6: security version 2, the reference requires 3 or later");
	/* a raw value where the manifest lists digests, and a type that differs */
	judge_meas(4, 0, 3, "{ \"schema_version\": 1, \"unknown_indices\": \"ignore\", \"measurements\": "
		   "[ { \"index\": 2, \"digests\": [\"aa\"] }, { \"index\": 1, \"type\": \"mutable_firmware\" } ] }",
		   "measurements/2", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: index 2 (version) is a raw value, the reference lists digests");
	judge_meas(4, 0, 3, "{ \"schema_version\": 1, \"unknown_indices\": \"ignore\", \"measurements\": "
		   "[ { \"index\": 1, \"type\": \"mutable_firmware\" } ] }", "measurements/1", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: index 1 is immutable_rom, the reference says mutable_firmware");
	judge_meas(4, 0, 3, "{ \"schema_version\": 1, \"unknown_indices\": \"ignore\" }",
		   "measurements/6", got, sizeof(got));
	EXPECT_PREFIX(got, "skip: index 6 (svn raw value) is not in the reference manifest, which ignores unknown ones");
}

static void test_generation(void)
{
	struct evidence_set s;
	struct bytes b = { 0 };
	char got[512];

	report(&b, 0, NULL, 0);
	set_with(&s, 10, &b);
	s.obj[8] = (struct evset_object){ .present = true, .generation = 2 };
	verdict(&s, NULL, "evidence.generation", "evidence", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: the objects are of generations 1 to 2: they were not read in one dump");
	s.obj[8].generation = 1;
	s.nonce_len = 32;
	s.generation_before = 1;
	verdict(&s, NULL, "evidence.generation", "refresh", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: a nonce was sent but the generation did not move (1 before, 1 after)");
	s.generation_before = 0;
	verdict(&s, NULL, "evidence.generation", "refresh", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: the nonce refreshed the evidence: generation 0 before, 1 after");
	/* nothing of a report-only set can be verified about chains or algorithms */
	verdict(&s, NULL, "evidence.chain", "certificates", got, sizeof(got));
	EXPECT_PREFIX(got, "skip: cannot be verified from this evidence: every certificate slot is empty");
	verdict(&s, NULL, "evidence.report-ranges", "report", got, sizeof(got));
	EXPECT_PREFIX(got, "skip: cannot be verified from this evidence: the function's resource file");
	evset_release(&s);
	bytes_free(&b);
}

/* ---- evidence.signature ---- */

/* Object TYPE of S becomes B's bytes. */
static void set_obj(struct evidence_set *s, unsigned int type, const struct bytes *b)
{
	free(s->obj[type].data);
	s->obj[type] = (struct evset_object){ .present = true, .length = (uint32_t)b->len,
					      .generation = 1, .received = (uint32_t)b->len };
	s->obj[type].data = b->len ? malloc(b->len) : NULL;
	if (b->len)
		memcpy(s->obj[type].data, b->buf, b->len);
}

/* A signed vector's set: its certificate as cert0, its VCA, MEASUREMENTS as MEAS; NONCE sent. */
static void vector_set(struct evidence_set *s, const char *name, const struct bytes *meas,
		       bool with_vca, const uint8_t *nonce)
{
	struct bytes cert = { 0 }, vca = { 0 };

	read_vector(name, "cert.der", &cert);
	set_with(s, 0, &cert);
	if (with_vca) {
		read_vector(name, "vca", &vca);
		set_obj(s, 8, &vca);
	}
	set_obj(s, 9, meas);
	s->nonce_len = nonce ? 32 : 0;
	if (nonce)
		memcpy(s->nonce, nonce, 32);
	s->generation_before = 0;
	bytes_free(&cert);
	bytes_free(&vca);
}

/* NAME's exchange, or only its response (the request's length cut off the front). */
static void vector_meas(const char *name, bool bare, struct bytes *out)
{
	struct bytes ex = { 0 };
	size_t req = 0;

	read_vector(name, "exchange", &ex);
	if (bare)	/* the request: header, nonce, slot, and 1.3's context */
		req = 4 + 32 + 1 + (ex.buf[0] >= 0x13 ? 8 : 0);
	put_bytes(out, ex.buf + req, ex.len - req);
	bytes_free(&ex);
}

struct sig_case {
	const char *name;	/* the vector */
	bool bare, with_vca, live;
	const uint8_t *nonce;
	void (*mutate)(struct bytes *meas);
	const char *signature;	/* evidence.signature measurements: "status: message" prefix */
	enum ev_risk sig_risk;
	const char *nonce_result;	/* evidence.generation nonce */
	enum ev_risk nonce_risk;
};

static void zero_signature(struct bytes *m)
{
	memset(m->buf + m->len - 96, 0, 96);
}

static void strip_signature(struct bytes *m)
{
	m->len -= 96;
}

static void cut_one(struct bytes *m)
{
	m->len -= 1;
}

static void judge_sig(const struct sig_case *c)
{
	struct evidence_set s;
	struct bytes m = { 0 };
	char got[1024];
	enum ev_risk risk;

	vector_meas(c->name, c->bare, &m);
	if (c->mutate)
		c->mutate(&m);
	vector_set(&s, c->name, &m, c->with_vca, c->nonce);
	risk = verdict_of(&s, NULL, c->live, "evidence.signature", "measurements", got, sizeof(got));
	EXPECT_PREFIX(got, c->signature);
	CHECK(risk == c->sig_risk);
	risk = verdict_of(&s, NULL, c->live, "evidence.generation", "nonce", got, sizeof(got));
	EXPECT_PREFIX(got, c->nonce_result);
	CHECK(risk == c->nonce_risk);
	evset_release(&s);
	bytes_free(&m);
}

static void test_signature(void)
{
	static uint8_t other[32];
	const uint8_t *ours = vector_nonce();
	const struct sig_case cases[] = {
		/* carried request, no nonce of ours: authentic, not shown fresh */
		{ "p384-13", false, true, true, NULL, NULL,
		  "pass: signed by slot 0's leaf (CN=tsmctl vector p384-13, ec 384) with ecdsa_p384 over "
		  "SPDM 1.3's L1: the vca object, 1 GET_MEASUREMENTS request and response carried",
		  EV_RISK_NONE, "skip: no nonce was sent", EV_RISK_NOT_FRESH },
		{ "p384-13", false, true, true, ours, NULL, "pass: signed by slot 0's leaf", EV_RISK_NONE,
		  "pass: the measurements are signed over the 32-byte nonce this reader sent",
		  EV_RISK_NONE },
		/* the carried request names another nonce: a replay */
		{ "p384-13", false, true, true, other, NULL,
		  "fail: signed by slot 0's leaf (CN=tsmctl vector p384-13, ec 384), but over a "
		  "GET_MEASUREMENTS with nonce a0a1", EV_RISK_NONE,
		  "fail: the transcript's GET_MEASUREMENTS carries another nonce", EV_RISK_NONE },
		/* the bare response: rebuilt from the nonce sent, or not at all */
		{ "p384-13", true, true, true, ours, NULL,
		  "pass: signed by slot 0's leaf (CN=tsmctl vector p384-13, ec 384) with ecdsa_p384 over "
		  "SPDM 1.3's L1: the vca object, GET_MEASUREMENTS rebuilt for the nonce sent (every "
		  "block, slot 0, with the requester context), the response", EV_RISK_NONE,
		  "pass: the measurements are signed over", EV_RISK_NONE },
		{ "p384-13", true, true, true, NULL, NULL,
		  "skip: cannot be verified from this evidence: a bare MEASUREMENTS response: the "
		  "GET_MEASUREMENTS it answers is not handed out", EV_RISK_UNSIGNED,
		  "skip: no nonce was sent", EV_RISK_NOT_FRESH },
		{ "p384-13", true, true, true, other, NULL,
		  "fail: the signature does not verify with slot 0's leaf (CN=tsmctl vector p384-13, ec "
		  "384) over any of the 2 GET_MEASUREMENTS requests the nonce sent rebuilds",
		  EV_RISK_NONE, "skip: not shown", EV_RISK_NONE },
		{ "p384-13", true, true, true, ours, zero_signature,
		  "fail: the signature does not verify", EV_RISK_NONE, "skip: not shown", EV_RISK_NONE },
		/* no signature where CAPABILITIES says the device signs */
		{ "p384-13", true, true, true, ours, strip_signature,
		  "fail: the measurements are unsigned, yet CAPABILITIES says the device signs them",
		  EV_RISK_NONE, "skip: not shown", EV_RISK_NONE },
		/* no VCA: not delimited by an algorithm, but the leaf's key says how long it must be */
		{ "p384-13", true, false, true, ours, NULL,
		  "skip: cannot be verified from this evidence: a 96-byte signature, as slot 0's leaf",
		  EV_RISK_UNSIGNED, "skip: cannot be verified from this evidence: only the "
		  "measurements' signature binds the nonce", EV_RISK_UNSIGNED },
		{ "p384-13", true, false, true, ours, cut_one,
		  "fail: 95 bytes follow the opaque data, where slot 0's leaf (CN=tsmctl vector "
		  "p384-13, ec 384) makes 96-byte signatures", EV_RISK_NONE, "skip: not shown",
		  EV_RISK_NONE },
		/* a saved copy is judged the same; only its nonce is not this reader's */
		{ "p384-13", true, true, false, ours, NULL, "pass: signed by slot 0's leaf", EV_RISK_NONE,
		  "skip: the measurements are signed over the nonce the saved manifest records",
		  EV_RISK_NOT_FRESH },
		{ "p384-13", true, true, false, other, NULL, "fail: the signature does not verify",
		  EV_RISK_NONE, "skip: not shown", EV_RISK_NONE },
		/* SPDM 1.1: no VCA in L1, no prefix; RSAPSS, RSASSA and Ed25519 under 1.2 */
		{ "p256-11", true, true, true, ours, NULL,
		  "pass: signed by slot 0's leaf (CN=tsmctl vector p256-11, ec 256) with ecdsa_p256 over "
		  "SPDM 1.1's L1: GET_MEASUREMENTS rebuilt for the nonce sent (every block, slot 0), "
		  "the response", EV_RISK_NONE, "pass", EV_RISK_NONE },
		{ "rsapss-12", true, true, true, ours, NULL, "pass: signed by slot 0's leaf (CN=tsmctl "
		  "vector rsapss-12, rsa 3072) with rsapss_3072", EV_RISK_NONE, "pass", EV_RISK_NONE },
		{ "rsassa-12", false, true, true, ours, NULL, "pass: signed by slot 0's leaf (CN=tsmctl "
		  "vector rsassa-12, rsa 2048) with rsassa_2048", EV_RISK_NONE, "pass", EV_RISK_NONE },
		{ "ed25519-12", true, true, true, ours, NULL, "pass: signed by slot 0's leaf (CN=tsmctl "
		  "vector ed25519-12, ed25519 256) with ed25519", EV_RISK_NONE, "pass", EV_RISK_NONE },
	};

	memcpy(other, ours, sizeof(other));
	other[0] ^= 0xff;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		judge_sig(&cases[i]);
}

/* The transcript with its own VCA; a vca object beside it must be the same one. */
static void test_signature_transcript(void)
{
	struct evidence_set s;
	struct bytes vca = { 0 }, m = { 0 };
	char got[1024];

	read_vector("p384-13", "vca", &vca);
	put_bytes(&m, vca.buf, vca.len);
	vector_meas("p384-13", false, &m);
	vector_set(&s, "p384-13", &m, false, vector_nonce());
	CHECK(verdict_of(&s, NULL, true, "evidence.signature", "measurements", got, sizeof(got)) ==
	      EV_RISK_NONE);
	EXPECT_PREFIX(got, "pass: signed by slot 0's leaf (CN=tsmctl vector p384-13, ec 384) with "
		      "ecdsa_p384 over SPDM 1.3's L1: the VCA it carries, 1 GET_MEASUREMENTS");
	set_obj(&s, 8, &vca);
	verdict(&s, NULL, "evidence.signature", "measurements", got, sizeof(got));
	EXPECT_PREFIX(got, "pass: signed by slot 0's leaf");
	/* another VCA object (CTExponent of GET_CAPABILITIES changed): two negotiations */
	s.obj[8].data[4 + 8 + 5]++;
	verdict(&s, NULL, "evidence.signature", "measurements", got, sizeof(got));
	EXPECT_PREFIX(got, "fail: the transcript's VCA is not the vca object's");
	evset_release(&s);
	bytes_free(&vca);
	bytes_free(&m);
}

/* The slot the response names decides the key: none there is no proof either way. */
static void test_signature_slots(void)
{
	struct evidence_set s;
	struct bytes m = { 0 }, none = { 0 };
	char got[1024];

	vector_meas("p256-11", true, &m);
	m.buf[3] = 3;		/* Param2: slot 3, which has no chain */
	vector_set(&s, "p256-11", &m, true, vector_nonce());
	CHECK(verdict_of(&s, NULL, true, "evidence.signature", "measurements", got, sizeof(got)) ==
	      EV_RISK_UNSIGNED);
	EXPECT_PREFIX(got, "skip: cannot be verified from this evidence: slot 3, whose key signed, "
		      "has no certificate chain");
	m.buf[3] = 0x0f;	/* a key provisioned in the requester */
	set_obj(&s, 9, &m);
	CHECK(verdict_of(&s, NULL, true, "evidence.signature", "measurements", got, sizeof(got)) ==
	      EV_RISK_UNSIGNED);
	EXPECT_PREFIX(got, "skip: cannot be verified from this evidence: the response names slot 15");
	/* no measurements at all: nothing signed binds the device's key */
	set_obj(&s, 9, &none);
	s.obj[9].present = false;
	CHECK(verdict_of(&s, NULL, true, "evidence.signature", "measurements", got, sizeof(got)) ==
	      EV_RISK_UNSIGNED);
	EXPECT_PREFIX(got, "skip: cannot be verified from this evidence: the measurements object is "
		      "empty");
	CHECK(verdict_of(&s, NULL, true, "evidence.measurements", "measurements", got, sizeof(got)) ==
	      EV_RISK_NO_REFERENCE);
	evset_release(&s);
	bytes_free(&m);
}

/* Without a reference manifest the blocks are not judged: a risk a decision may take. */
static void test_no_reference(void)
{
	struct evidence_set s;
	struct bytes b = { 0 };
	char got[512];

	measurements(&b, 1u << 2, 0, 3);
	set_with(&s, 9, &b);
	CHECK(verdict_of(&s, NULL, true, "evidence.measurements", "measurements", got, sizeof(got)) ==
	      EV_RISK_NO_REFERENCE);
	EXPECT_PREFIX(got, "skip: no reference manifest: 5 blocks not judged");
	/* unsigned, no VCA to say whether the device signs: the signature is a risk, not a failure */
	CHECK(verdict_of(&s, NULL, true, "evidence.signature", "measurements", got, sizeof(got)) ==
	      EV_RISK_UNSIGNED);
	EXPECT_PREFIX(got, "skip: cannot be verified from this evidence: the measurements are "
		      "unsigned, and without the VCA");
	evset_release(&s);
	bytes_free(&b);
}

/*
 * Three devices of one certificate, its path verified once through the
 * run's cache: the second one's zeroed signature fails all the same, and the
 * third's good one passes.
 */
static void test_signature_not_cached(void)
{
	static void (*const mutate[])(struct bytes *) = { NULL, zero_signature, NULL };
	static const char *const want[] = { "pass: signed by slot 0's leaf",
					    "fail: the signature does not verify",
					    "pass: signed by slot 0's leaf" };
	struct bytes cert = { 0 };
	const unsigned char *p;
	struct ev_cache cache;
	X509_STORE *store = X509_STORE_new();
	X509 *x;
	char got[1024];

	read_vector("p384-13", "cert.der", &cert);
	p = cert.buf;
	x = d2i_X509(NULL, &p, (long)cert.len);
	CHECK(x && X509_STORE_add_cert(store, x) == 1);
	ev_cache_init(&cache, store);
	verdict_store = store;
	verdict_cache = &cache;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct evidence_set s;
		struct bytes m = { 0 };

		vector_meas("p384-13", true, &m);
		if (mutate[i])
			mutate[i](&m);
		vector_set(&s, "p384-13", &m, true, vector_nonce());
		/* the path verified (a path error would come first); the vector's leaf breaks libspdm's rules */
		verdict_of(&s, NULL, true, "evidence.chain", "cert0", got, sizeof(got));
		EXPECT_PREFIX(got, "fail: the leaf has no keyUsage");
		verdict_of(&s, NULL, true, "evidence.signature", "measurements", got, sizeof(got));
		EXPECT_PREFIX(got, want[i]);
		evset_release(&s);
		bytes_free(&m);
	}
	/* six verifications, one chain path among them */
	CHECK(cache.stats.paths == 1 && cache.stats.path_hits == 5);
	verdict_store = NULL;
	verdict_cache = NULL;
	ev_cache_release(&cache);
	X509_STORE_free(store);
	X509_free(x);
	bytes_free(&cert);
}

int main(void)
{
	test_resource_and_msix();
	test_report_ranges();
	test_binding();
	test_dsn();
	test_read_device();
	test_reference_parse();
	test_measurements();
	test_generation();
	test_signature();
	test_signature_transcript();
	test_signature_slots();
	test_no_reference();
	test_signature_not_cached();
	return unit_report();
}
