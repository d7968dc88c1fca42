// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The evidence checks that need no certificate (evidence-verify*.c) on
 * objects built in memory from the specifications' layouts: the resource
 * and MSI-X readers, evidence.report-ranges (the BARs' own addresses and
 * offsets from the lowest page, ranges past a BAR, MSI-X tables and PBAs in
 * and out of place), the reference manifest's parser, evidence.measurements
 * against it, and evidence.generation; and evidence.signature with the
 * openssl-made vectors of tests/unit/sig-vectors (a self-signed leaf as
 * cert0): every form of the measurements object, the nonce sent or not,
 * replays, zeroed and stripped signatures, a missing VCA, with the risk
 * each skip leaves a decision to take.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "sig-vectors.h"
#include "tsmctl/evidence-device.h"
#include "tsmctl/evidence-reference.h"
#include "tsmctl/evidence-verify.h"
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

/* Verify S with REF (LIVE: read just now); the risk and "status: message" of ID about OBJECT. */
static enum ev_risk verdict_of(struct evidence_set *s, const struct ev_reference *ref, bool live,
			       const char *id, const char *object, char *out, size_t size)
{
	struct ev_verify_opts o = { .store_path = "/none", .store_missing = "does not exist",
				    .ref = ref, .live = live };
	enum ev_risk risk = EV_NR_RISKS;
	struct ev_decoded d;
	struct ev_results r;

	ev_decode_set(s, &d);
	ev_verify(&d, &o, &r);
	snprintf(out, size, "no result");
	for (size_t i = 0; i < r.n; i++) {
		if (strcmp(r.v[i].check->id, id) || strcmp(r.v[i].object, object))
			continue;
		snprintf(out, size, "%s: %s", ev_status_name(r.v[i].status), r.v[i].message);
		risk = r.v[i].risk;
	}
	ev_results_free(&r);
	ev_decoded_release(&d);
	return risk;
}

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

/* A report judged against BAR 0 at BASE (and BAR 2) with MSI-X (VECTORS, table, PBA) or none. */
static void judge_report(const struct range *r, unsigned int n, unsigned int vectors, uint32_t table,
			 uint32_t pba, uint64_t base, char *out, size_t size)
{
	struct bytes b = { 0 };
	struct evidence_set s;

	report(&b, vectors, r, n);
	set_with(&s, 10, &b);
	s.resource = resource(base, 0xfe000000);
	s.config = config(vectors, table, pba, &s.config_len);
	verdict(&s, NULL, "evidence.report-ranges", "report", out, size);
	evset_release(&s);
	bytes_free(&b);
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
		      "them; non-TEE: range 1 (BAR 0 +0x2000, 1 page), range 2 (BAR 0 +0x3000, 1 page)");
	/* a guest's BAR elsewhere: the report's host pages read as offsets from the lowest */
	judge_report(good, 5, 16, 0x2000, 0x3000, 0x80000000, got, sizeof(got));
	EXPECT_PREFIX(got, "pass: 5 ranges inside their BARs, as 4 KiB pages (BAR 0: 4 (by offset "
		      "from its lowest page), BAR 2: 1)");
	/* one page past the end, under either reading */
	memcpy(r, good, sizeof(r));
	r[3].pages = 509;
	judge_report(r, 5, 16, 0x2000, 0x3000, base, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 3 (509 pages at BAR 0 +0x4000) ends past BAR 0 (0x200000 bytes)");
	judge_report(r, 5, 16, 0x2000, 0x3000, 0x80000000, got, sizeof(got));
	EXPECT_PREFIX(got, "fail: range 3 (509 pages at BAR 0 +0x4000) ends past BAR 0");
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

int main(void)
{
	test_resource_and_msix();
	test_report_ranges();
	test_reference_parse();
	test_measurements();
	test_generation();
	test_signature();
	test_signature_transcript();
	test_signature_slots();
	test_no_reference();
	return unit_report();
}
