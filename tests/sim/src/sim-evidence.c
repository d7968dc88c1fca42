// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-evidence.c: device evidence (proposed, ABI.md §1.6), what
 * pdev->tsm->evidence holds. Where it exists follows
 * drivers/pci/tsm/evidence.c evidence_available() and the providers
 * (intel-staging/tdx 3cac301a65a8, samples/devsec at 28c48e992e59): the
 * sample link TSM makes it at a DSM's probe with cert0 and measurements
 * pointing at its shared certs/transcript inputs; the sample devsec TSM
 * makes none at lock. The other providers (a guess the issue states: the
 * drivers doing it were not read) give a connected DSM, or a locked TDI of
 * a devsec TSM, the objects the topology names, generated here:
 *
 *   certN         a chain tests/sim/gen-cert-chain built (DSP0274 CERT_CHAIN)
 *   vca           GET_VERSION, VERSION, GET_CAPABILITIES, CAPABILITIES,
 *                 NEGOTIATE_ALGORITHMS, ALGORITHMS concatenated (DSP0274 1.2,
 *                 the VCA of its transcript rules); CAPABILITIES says the
 *                 device signs measurements when it has a leaf key
 *   measurements  a MEASUREMENTS response to "all blocks, signed" (DSP0274
 *                 1.2, MEASUREMENTS response and measurement block tables,
 *                 DMTF measurement specification), signed with slot 0's
 *                 leaf key over the request of the nonce it was sent
 *                 (sim-evidence-sign.c): the uapi's "GET_MEASUREMENTS
 *                 response", or with its request (and VCA) in front as the
 *                 topology's "form" says
 *   report        a TDISP TDI report (PCIe Base 6.x §11.3, DEVICE_INTERFACE_REPORT's
 *                 TDI report structure) whose MMIO ranges are the function's BARs,
 *                 its MSI-X table and PBA pages ranges of their own (marked, and
 *                 non-TEE: a guess of how a device leaves them to the host), or
 *                 broken on purpose (a range past its BAR, a misplaced table)
 *
 * or, where the topology names one, the VCA or MEASUREMENTS that
 * tests/sim/gen-evidence built (SPDM 1.2 and 1.3, every DMTF value type),
 * its responder nonce replaced at each refresh as a responder's would be,
 * and signed as above in place of the signature the file has.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "sim.h"

/* a little-endian byte writer */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct bytes *b, const void *src, size_t n)
{
	if (!n)
		return;		/* an empty piece may have no buffer at all */
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = sim_xrealloc(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void u8(struct bytes *b, unsigned v)
{
	uint8_t c = (uint8_t)v;

	put(b, &c, 1);
}

static void le(struct bytes *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		u8(b, (unsigned)(v >> (8 * i)) & 0xff);
}

/* SPDM message header: SPDMVersion, RequestResponseCode, Param1, Param2 */
static void spdm_hdr(struct bytes *b, unsigned ver, unsigned code, unsigned p1, unsigned p2)
{
	u8(b, ver);
	u8(b, code);
	u8(b, p1);
	u8(b, p2);
}

#define SPDM_10 0x10
#define SPDM_12 0x12
/* BaseAsymAlgo bits (NEGOTIATE_ALGORITHMS), BaseHashAlgo, MeasurementHashAlgo */
#define ASYM_RSASSA_3072 (1u << 2)
#define ASYM_RSAPSS_3072 (1u << 3)
#define ASYM_ECDSA_P384 (1u << 7)
#define HASH_SHA384 (1u << 1)
#define MEAS_HASH_SHA384 (1u << 2)
/* CAPABILITIES flags: CERT, CHAL, MEAS (with signature), MEAS_FRESH, ENCRYPT, MAC, KEY_EX, HBEAT, KEY_UPD */
#define RSP_CAPS 0x000062f6u
#define REQ_CAPS 0x000062c0u
#define MEAS_CAP_MASK (3u << 3)		/* bits 4:3: 1 without signature, 2 signed */
#define MEAS_CAP_NO_SIG (1u << 3)

/* The chain whose leaf key signs the measurements: the topology's signer, else slot 0's. */
static const char *signer(const struct sim_dev *d)
{
	return d->ev_spec->signer ? d->ev_spec->signer : d->ev_spec->chain[0];
}

/* The key type of slot 0's chain, from the name gen-cert-chain gave it. */
static unsigned slot0_asym(const struct sim_dev *d)
{
	const char *c = d->ev_spec ? d->ev_spec->chain[0] : NULL;

	return c && strstr(c, "rsa") ? ASYM_RSASSA_3072 : ASYM_ECDSA_P384;
}

/* ReqAlgStruct / RespAlgStruct: AlgType, AlgCount (2 fixed bytes, no external), the algorithms */
static void alg_struct(struct bytes *b, unsigned type, unsigned algs)
{
	u8(b, type);
	u8(b, 0x20);
	le(b, algs, 2);
}

static void alg_structs(struct bytes *b, unsigned asym)
{
	alg_struct(b, 2, 1u << 4);	/* DHE: secp384r1 */
	alg_struct(b, 3, 1u << 1);	/* AEAD: AES-256-GCM */
	alg_struct(b, 4, asym);		/* ReqBaseAsymAlg */
	alg_struct(b, 5, 1u << 0);	/* KeySchedule: SPDM */
}

static void make_vca(const struct sim_dev *d, struct bytes *b)
{
	unsigned asym = slot0_asym(d);

	spdm_hdr(b, SPDM_10, 0x84, 0, 0);		/* GET_VERSION */
	spdm_hdr(b, SPDM_10, 0x04, 0, 0);		/* VERSION */
	u8(b, 0);					/* Reserved */
	u8(b, 2);					/* VersionNumberEntryCount */
	le(b, 0x1100, 2);				/* 1.1 */
	le(b, 0x1200, 2);				/* 1.2 */
	spdm_hdr(b, SPDM_12, 0xe1, 0, 0);		/* GET_CAPABILITIES */
	u8(b, 0);					/* Reserved */
	u8(b, 12);					/* CTExponent */
	le(b, 0, 2);					/* Reserved */
	le(b, REQ_CAPS, 4);
	le(b, 4096, 4);					/* DataTransferSize */
	le(b, 4096, 4);					/* MaxSPDMmsgSize */
	spdm_hdr(b, SPDM_12, 0x61, 0, 0);		/* CAPABILITIES */
	u8(b, 0);
	u8(b, 12);
	le(b, 0, 2);
	/* a device without a key to sign with measures without signature */
	le(b, signer(d) ? RSP_CAPS : (RSP_CAPS & ~MEAS_CAP_MASK) | MEAS_CAP_NO_SIG, 4);
	le(b, 4096, 4);
	le(b, 4096, 4);
	spdm_hdr(b, SPDM_12, 0xe3, 4, 0);		/* NEGOTIATE_ALGORITHMS, 4 structs */
	le(b, 32 + 4 * 4, 2);				/* Length */
	u8(b, 0x01);					/* MeasurementSpecification: DMTF */
	u8(b, 0x02);					/* OtherParamsSupport: opaque format 1 */
	le(b, ASYM_RSASSA_3072 | ASYM_RSAPSS_3072 | ASYM_ECDSA_P384, 4);	/* BaseAsymAlgo */
	le(b, HASH_SHA384, 4);				/* BaseHashAlgo */
	le(b, 0, 8);					/* Reserved (12 bytes) */
	le(b, 0, 4);
	u8(b, 0);					/* ExtAsymCount */
	u8(b, 0);					/* ExtHashCount */
	le(b, 0, 2);					/* Reserved */
	alg_structs(b, ASYM_RSASSA_3072 | ASYM_ECDSA_P384);
	spdm_hdr(b, SPDM_12, 0x63, 4, 0);		/* ALGORITHMS, 4 structs */
	le(b, 36 + 4 * 4, 2);				/* Length */
	u8(b, 0x01);					/* MeasurementSpecificationSel */
	u8(b, 0x02);					/* OtherParamsSelection */
	le(b, MEAS_HASH_SHA384, 4);			/* MeasurementHashAlgo */
	le(b, asym, 4);					/* BaseAsymSel */
	le(b, HASH_SHA384, 4);				/* BaseHashSel */
	le(b, 0, 8);					/* Reserved (12 bytes) */
	le(b, 0, 4);
	u8(b, 0);					/* ExtAsymSelCount */
	u8(b, 0);					/* ExtHashSelCount */
	le(b, 0, 2);
	alg_structs(b, asym);
}

static void digest(const EVP_MD *md, const void *p, size_t n, uint8_t *out)
{
	unsigned int len = 0;

	if (!EVP_Digest(p, n, out, &len, md, NULL))
		abort();
}

/* DMTF measurement types (DMTFSpecMeasurementValueType bits 6:0; bit 7: raw bit stream) */
enum { MT_ROM = 0, MT_FIRMWARE = 1, MT_HW_CONFIG = 2, MT_FW_CONFIG = 3, MT_VERSION = 6 };

/* One measurement block: Index, MeasurementSpecification, MeasurementSize, DMTF measurement */
static void meas_block(struct bytes *b, unsigned index, unsigned type, bool raw,
		       const void *value, size_t n)
{
	u8(b, index);
	u8(b, 0x01);		/* DMTF */
	le(b, 3 + n, 2);
	u8(b, type | (raw ? 0x80 : 0));
	le(b, n, 2);
	put(b, value, n);
}

/* A block holding the SHA-384 of TEXT, the stand-in for the measured image. */
static void meas_digest(struct bytes *b, unsigned index, unsigned type, const char *text)
{
	uint8_t md[SIM_EV_DIGEST];

	digest(EVP_sha384(), text, strlen(text), md);
	meas_block(b, index, type, false, md, sizeof(md));
}

/* The responder's Nonce: a stand-in for a random value, new at each refresh. */
static void responder_nonce(const struct sim_dev *d, unsigned generation, uint8_t nonce[32])
{
	char seed[96];

	snprintf(seed, sizeof(seed), "tsm-sim responder nonce %s %u", d->name, generation);
	digest(EVP_sha256(), seed, strlen(seed), nonce);
}

/*
 * A gen-evidence MEASUREMENTS response without the signature it may have
 * (header, record, Nonce, opaque data, 1.3's requester context), its Nonce
 * this generation's.
 */
static void file_measurements(const struct sim_dev *d, const struct sim_chain *f,
			      unsigned generation, struct bytes *b)
{
	size_t at = 8 + (f->len >= 8 ? (size_t)(f->data[5] | f->data[6] << 8 | f->data[7] << 16) : 0);
	size_t end = at + 32 + 2;

	if (end > f->len) {
		put(b, f->data, f->len);	/* not a response gen-evidence made: served as it is */
		return;
	}
	end += (size_t)(f->data[at + 32] | f->data[at + 33] << 8) + (f->data[0] >= 0x13 ? 8 : 0);
	put(b, f->data, end < f->len ? end : f->len);
	responder_nonce(d, generation, b->p + at);
}

/* The nonce of a request the provider sent on its own (at connect, lock, another's refresh). */
static void provider_nonce(const struct sim_dev *d, unsigned generation, const char *why,
			   uint8_t nonce[32])
{
	char seed[128];

	snprintf(seed, sizeof(seed), "tsm-sim %s nonce %s %u", why, d->name, generation);
	digest(EVP_sha256(), seed, strlen(seed), nonce);
}

/*
 * The measurements object from the unsigned response RSP: the request it
 * answered, the signature over VCA (from 1.2), request and response, framed
 * as the provider hands it out, and broken where the topology asks.
 */
static void sign_measurements(const struct sim_model *m, const struct sim_dev *d,
			      const struct bytes *vca, const struct bytes *rsp, struct bytes *out)
{
	const struct sim_ev_spec *s = d->ev_spec;
	EVP_PKEY *key = signer(d) && s->sig != SIM_SIG_NONE ? sim_leaf_key(m, signer(d)) : NULL;
	uint8_t version = rsp->len ? rsp->p[0] : SPDM_12, req[64], sig[1024], nonce[32];
	const uint8_t *ctx = version >= 0x13 && rsp->len >= 8 ? rsp->p + rsp->len - 8 : NULL;
	size_t req_len, sig_len = 0;

	memcpy(nonce, d->ev.req_nonce, sizeof(nonce));
	if (s->sig == SIM_SIG_REPLAY)
		provider_nonce(d, 0, "replayed request", nonce);
	req_len = sim_meas_request(req, version, key != NULL, nonce, 0, ctx);
	if (key)
		sig_len = sim_meas_sign(key, version, vca->p, vca->len, req, req_len, rsp->p, rsp->len,
					sig);
	if (s->sig == SIM_SIG_ZERO)
		memset(sig, 0, sig_len);
	if (s->form == SIM_FORM_TRANSCRIPT)
		put(out, vca->p, vca->len);
	if (s->form != SIM_FORM_RESPONSE)
		put(out, req, req_len);
	put(out, rsp->p, rsp->len);
	put(out, sig, sig_len);
	out->len -= s->truncate < out->len ? s->truncate : out->len;
	EVP_PKEY_free(key);
}

static void make_measurements(const struct sim_dev *d, unsigned generation, struct bytes *b)
{
	const char *fw = d->ev_spec->firmware ? d->ev_spec->firmware : "1.0.0";
	struct bytes rec = { 0 };
	char *text;
	uint8_t nonce[32];

	text = sim_xasprintf("%04x:%04x immutable ROM", d->vendor, d->device);
	meas_digest(&rec, 1, MT_ROM, text);
	free(text);
	text = sim_xasprintf("%04x:%04x firmware %s", d->vendor, d->device, fw);
	meas_digest(&rec, 2, MT_FIRMWARE, text);
	free(text);
	text = sim_xasprintf("%04x:%04x class %06x rev %02x", d->vendor, d->device, d->class,
			     d->revision);
	meas_digest(&rec, 3, MT_HW_CONFIG, text);
	free(text);
	text = sim_xasprintf("%s configuration", d->name);
	meas_digest(&rec, 4, MT_FW_CONFIG, text);
	free(text);
	meas_block(&rec, 5, MT_VERSION, true, fw, strlen(fw));
	responder_nonce(d, generation, nonce);
	spdm_hdr(b, SPDM_12, 0x60, 0, 0);	/* MEASUREMENTS: Param1/2 reserved without a signature */
	u8(b, 5);				/* NumberOfBlocks */
	le(b, rec.len, 3);			/* MeasurementRecordLength */
	put(b, rec.p, rec.len);
	put(b, nonce, sizeof(nonce));
	le(b, 0, 2);				/* OpaqueDataLength */
	free(rec.p);
}

/* INTERFACE_INFO bit 1: the TDI issues DMA without PASID */
#define TDI_DMA_NO_PASID (1u << 1)
/* MMIO_RANGE attributes: MSI-X table, PBA, non-TEE; range ID in 31:16 */
#define RANGE_MSIX_TABLE (1u << 0)
#define RANGE_MSIX_PBA (1u << 1)
#define RANGE_NON_TEE (1u << 2)
#define PAGE 4096u

/* the MMIO reporting offset of a "moved" report: 1 GiB, in 4 KiB pages */
#define MOVED_PAGES 0x40000u

static void report_range(struct bytes *b, unsigned *nr, uint64_t first_page, uint64_t pages,
			 unsigned bar, unsigned attrs)
{
	le(b, first_page, 8);		/* FIRST_PAGE (with the MMIO reporting offset) */
	le(b, pages, 4);		/* NUMBER_OF_PAGES */
	le(b, (uint64_t)bar << 16 | attrs, 4);	/* RANGE_ATTRIBUTES: range ID (the BAR) in 31:16 */
	(*nr)++;
}

static void add_cut(uint64_t *cuts, unsigned *n, uint64_t page)
{
	for (unsigned i = 0; i < *n; i++)
		if (cuts[i] == page)
			return;
	cuts[(*n)++] = page;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * BAR I's ranges: the whole BAR, or pieces cut at the pages of the MSI-X
 * table and PBA it holds (those pieces marked, and non-TEE). A misplaced
 * table is reported one page after where the capability puts it.
 */
static void bar_ranges(const struct sim_dev *d, unsigned i, bool misplace, struct bytes *b,
		       unsigned *nr)
{
	const struct sim_bar *bar = &d->bars[i];
	const struct sim_msix *x = &d->msix;
	uint64_t pages = bar->size / PAGE, cuts[6], t0 = 0, t1 = 0, p0 = 0, p1 = 0;
	unsigned n = 0;

	add_cut(cuts, &n, 0);
	add_cut(cuts, &n, pages);
	if (x->present && x->table_bar == i) {
		t0 = x->table_offset / PAGE + (misplace ? 1 : 0);
		t1 = (x->table_offset + 16ull * x->vectors + PAGE - 1) / PAGE + (misplace ? 1 : 0);
		t1 = t1 > pages ? pages : t1;
		add_cut(cuts, &n, t0);
		add_cut(cuts, &n, t1);
	}
	if (x->present && x->pba_bar == i) {
		p0 = x->pba_offset / PAGE;
		p1 = (x->pba_offset + (x->vectors + 63ull) / 64 * 8 + PAGE - 1) / PAGE;
		add_cut(cuts, &n, p0);
		add_cut(cuts, &n, p1);
	}
	qsort(cuts, n, sizeof(*cuts), cmp_u64);
	for (unsigned k = 0; k + 1 < n; k++) {
		uint64_t a = cuts[k], z = cuts[k + 1];
		unsigned attrs = 0;

		if (t1 > t0 && a >= t0 && z <= t1)
			attrs |= RANGE_MSIX_TABLE | RANGE_NON_TEE;
		if (p1 > p0 && a >= p0 && z <= p1)
			attrs |= RANGE_MSIX_PBA | RANGE_NON_TEE;
		if (z > a)
			report_range(b, nr, bar->base / PAGE + a, z - a, i, attrs);
	}
}

/* the little-endian u64 at P */
static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned k = 8; k--;)
		v = v << 8 | p[k];
	return v;
}

/* INTERFACE_INFO bit 5, attribute bit 4: the first reserved bits (PCIe r7.0 §11.3.11) */
#define TDI_INFO_RESERVED5 (1u << 5)
#define RANGE_RESERVED4 (1u << 4)
/* FUNCTION_ID: requester ID 15:0, segment 23:16, segment valid 24 */
#define FUNCTION_ID_SEGMENT_VALID (1u << 24)

/*
 * The DEVICE_INTERFACE_REPORT response around REPORT (PCIe r7.0 §11.3.11,
 * TDISP message header): TDISP 1.0, code 0x04, INTERFACE_ID naming the
 * function RID in segment SEG, PORTION_LENGTH the whole report.
 */
static void report_response(struct bytes *b, const struct bytes *report, unsigned rid, unsigned seg)
{
	u8(b, 0x10);			/* TDISPVersion 1.0 */
	u8(b, 0x04);			/* DEVICE_INTERFACE_REPORT */
	le(b, 0, 2);			/* reserved */
	le(b, FUNCTION_ID_SEGMENT_VALID | seg << 16 | rid, 4);	/* INTERFACE_ID: FUNCTION_ID */
	le(b, 0, 8);			/* INTERFACE_ID: reserved */
	le(b, report->len, 2);		/* PORTION_LENGTH */
	le(b, 0, 2);			/* REMAINDER_LENGTH: all of it */
	put(b, report->p, report->len);
}

static void make_report(const struct sim_dev *d, struct bytes *b)
{
	enum sim_ev_report kind = d->ev_spec->report_kind;
	struct bytes ranges = { 0 }, rep = { 0 };
	unsigned nr = 0, first = 6, rid = d->bus << 8 | d->slot << 3 | d->fn;

	for (unsigned i = 0; i < 6; i++) {
		if (!d->bars[i].present)
			continue;
		first = first < i ? first : i;
		bar_ranges(d, i, kind == SIM_REPORT_MSIX_MISPLACED, &ranges, &nr);
	}
	/* a page just past the first BAR, in that BAR's name */
	if (kind == SIM_REPORT_OUTSIDE_BAR && first < 6)
		report_range(&ranges, &nr, (d->bars[first].base + d->bars[first].size) / PAGE, 1,
			     first, 0);
	/* the first BAR's first page once more, in a range of its own */
	if (kind == SIM_REPORT_OVERLAP && first < 6)
		report_range(&ranges, &nr, d->bars[first].base / PAGE, 1, first, 0);
	/* a reserved attribute bit on the first range */
	if (kind == SIM_REPORT_RESERVED_BITS && nr)
		ranges.p[12] |= RANGE_RESERVED4;
	/* every range 1 GiB further: the offsets within each BAR unchanged */
	for (unsigned i = 0; kind == SIM_REPORT_MOVED && i < nr; i++)
		for (uint64_t v = get_le64(ranges.p + 16 * i) + MOVED_PAGES, k = 0; k < 8; k++)
			ranges.p[16 * i + k] = (uint8_t)(v >> (8 * k));
	/* INTERFACE_INFO */
	le(&rep, TDI_DMA_NO_PASID | (kind == SIM_REPORT_RESERVED_BITS ? TDI_INFO_RESERVED5 : 0), 2);
	le(&rep, 0, 2);			/* Reserved */
	/* MSI_X_MESSAGE_CONTROL as the capability has it (table size N - 1) */
	le(&rep, d->msix.present ? d->msix.vectors - 1 : 0, 2);
	le(&rep, 0, 2);			/* LNR_CONTROL */
	le(&rep, 0, 4);			/* TPH_CONTROL */
	le(&rep, nr, 4);		/* MMIO_RANGE_COUNT */
	put(&rep, ranges.p, ranges.len);
	le(&rep, 0, 4);			/* DEVICE_SPECIFIC_INFO_LEN */
	/* another function's requester ID: bus 0x99, or 0x98 for a device on bus 0x99 */
	if (kind == SIM_REPORT_OTHER_FUNCTION)
		report_response(b, &rep, (d->bus == 0x99 ? 0x98 : 0x99) << 8, d->domain);
	else if (kind == SIM_REPORT_RESPONSE)
		report_response(b, &rep, rid, d->domain);
	else
		put(b, rep.p, rep.len);
	free(ranges.p);
	free(rep.p);
}

static const struct sim_chain *find_chain(const struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_chains; i++)
		if (!strcmp(m->chains[i].name, name))
			return &m->chains[i];
	return NULL;
}

/* A file of at most 64 KiB (an SPDM chain's u16 length); 0 or -errno. */
static int read_file(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = sim_xcalloc(1, 65536 + 1);
	n = fread(buf, 1, 65536 + 1, f);
	fclose(f);
	if (n > 65535 || n < 4) {
		free(buf);
		return -EFBIG;
	}
	*data = buf;
	*len = n;
	return 0;
}

/* The file DIR/NAME.EXT once, under KEY ("NAME" for chains, "vca:NAME", "meas:NAME"). */
static int load_one(struct sim_model *m, const char *dir, const char *key, const char *name,
		    const char *ext, const struct sim_dev *d, char **err)
{
	struct sim_chain c = { 0 };
	char *path;
	int rc;

	if (find_chain(m, key))
		return 0;
	path = sim_xasprintf("%s/%s.%s", dir, name, ext);
	rc = read_file(path, &c.data, &c.len);
	if (rc) {
		*err = sim_xasprintf("%s: evidence %s: %s (make -C tests/sim builds it)", d->name, path,
				     strerror(-rc));
		free(path);
		return rc;
	}
	free(path);
	c.name = sim_xstrdup(key);
	m->chains = sim_xrealloc(m->chains, m->nr_chains + 1, sizeof(*m->chains));
	m->chains[m->nr_chains++] = c;
	return 0;
}

static void generate(const struct sim_model *m, struct sim_dev *d);
static const struct sim_tsm *holder(const struct sim_dev *d);
static bool is_sample(const struct sim_tsm *t);

int sim_evidence_load_chains(struct sim_model *m, const char *dir, char **err)
{
	for (size_t i = 0; i < m->nr_devs; i++) {
		const struct sim_ev_spec *s = m->devs[i]->ev_spec;
		char *key;
		int rc = 0;

		for (int k = 0; s && k < SIM_EV_SLOTS && !rc; k++)
			if (s->chain[k])
				rc = load_one(m, dir, s->chain[k], s->chain[k], "spdm-chain", m->devs[i], err);
		if (!rc && s && s->vca_file) {
			key = sim_xasprintf("vca:%s", s->vca_file);
			rc = load_one(m, dir, key, s->vca_file, "vca", m->devs[i], err);
			free(key);
		}
		if (!rc && s && s->meas_file) {
			key = sim_xasprintf("meas:%s", s->meas_file);
			rc = load_one(m, dir, key, s->meas_file, "meas", m->devs[i], err);
			free(key);
		}
		/* the key that signs the measurements: gen-cert-chain's NAME.leaf.key */
		if (!rc && s && (s->measurements || s->meas_file) && signer(m->devs[i])) {
			key = sim_xasprintf("key:%s", signer(m->devs[i]));
			rc = load_one(m, dir, key, signer(m->devs[i]), "leaf.key", m->devs[i], err);
			free(key);
		}
		if (rc)
			return rc;
	}
	/* contexts of the boot state (connected, locked) were made before the files were read */
	for (size_t i = 0; i < m->nr_devs; i++)
		if (sim_evidence_present(m, m->devs[i]) && !is_sample(holder(m->devs[i])))
			generate(m, m->devs[i]);
	return 0;
}

static bool is_sample(const struct sim_tsm *t)
{
	return t && t->provider == PROV_DEVSEC_SAMPLE;
}

bool sim_evidence_present(const struct sim_model *m, const struct sim_dev *d)
{
	(void)m;
	if (!d->present)
		return false;
	/* a connected DSM (dependents have contexts without evidence) */
	if (d->ctx_tsm && d->ctx_dsm == d && d->ctx_tsm->kind == TSM_LINK)
		return true;
	/* a locked TDI, unless its TSM is the sample's, which makes none at lock */
	return d->lock_tsm && !is_sample(d->lock_tsm);
}

bool sim_sample_evidence_busy(const struct sim_model *m)
{
	for (size_t i = 0; i < m->nr_devs; i++) {
		const struct sim_dev *d = m->devs[i];

		if (d->present && d->ctx_tsm && d->ctx_dsm == d && is_sample(d->ctx_tsm))
			return true;
	}
	return false;
}

static const struct sim_tsm *holder(const struct sim_dev *d)
{
	return d->ctx_tsm ? d->ctx_tsm : d->lock_tsm;
}

/* The generated objects and every object's digest, for generation GEN. */
static void generate(const struct sim_model *m, struct sim_dev *d)
{
	struct sim_evidence *ev = &d->ev;

	for (int t = SIM_EV_VCA; t < SIM_EV_TYPES; t++) {
		free(ev->obj[t]);
		ev->obj[t] = NULL;
		ev->len[t] = 0;
	}
	if (d->ev_spec) {
		struct bytes b[SIM_EV_TYPES] = { 0 }, vca = { 0 }, rsp = { 0 };
		const struct sim_chain *f;
		char *key;

		/* the device negotiated a VCA (its signature covers it) whether handed out or not */
		if (d->ev_spec->vca_file) {
			key = sim_xasprintf("vca:%s", d->ev_spec->vca_file);
			if ((f = find_chain(m, key)))
				put(&vca, f->data, f->len);
			free(key);
		} else {
			make_vca(d, &vca);
		}
		if (d->ev_spec->vca)
			put(&b[SIM_EV_VCA], vca.p, vca.len);
		if (d->ev_spec->meas_file) {
			key = sim_xasprintf("meas:%s", d->ev_spec->meas_file);
			if ((f = find_chain(m, key)))
				file_measurements(d, f, ev->generation, &rsp);
			free(key);
		} else if (d->ev_spec->measurements) {
			make_measurements(d, ev->generation, &rsp);
		}
		if (rsp.len)
			sign_measurements(m, d, &vca, &rsp, &b[SIM_EV_MEASUREMENTS]);
		if (d->ev_spec->report)
			make_report(d, &b[SIM_EV_REPORT]);
		for (int t = SIM_EV_VCA; t < SIM_EV_TYPES; t++) {
			ev->obj[t] = b[t].p;
			ev->len[t] = b[t].len;
		}
		free(vca.p);
		free(rsp.p);
	}
	for (unsigned t = 0; t < SIM_EV_TYPES; t++) {
		const uint8_t *p;
		size_t n;

		ev->digest[t][0] = 0;
		sim_evidence_object(m, d, t, false, &p, &n);
		if (n)
			digest(EVP_sha384(), p, n, ev->digest[t]);
	}
}

void sim_evidence_create(struct sim_model *m, struct sim_dev *d)
{
	d->ev.generation = 1;
	d->ev.validated = -1;
	d->ev.fault = EVF_NONE;
	provider_nonce(d, d->ev.generation, "provider's own", d->ev.req_nonce);
	if (!is_sample(holder(d)))
		generate(m, d);
}

void sim_evidence_object(const struct sim_model *m, const struct sim_dev *d, unsigned type,
			 bool want_digest, const uint8_t **data, size_t *len)
{
	const struct sim_chain *c;

	*data = NULL;
	*len = 0;
	if (is_sample(holder(d))) {
		/* devsec_init_evidence(): cert0 and measurements are the inputs; no digest */
		if (want_digest)
			return;
		if (type == 0) {
			*data = m->sample_certs;
			*len = m->sample_certs_len;
		} else if (type == SIM_EV_MEASUREMENTS) {
			*data = m->sample_transcript;
			*len = m->sample_transcript_len;
		}
		return;
	}
	if (type < SIM_EV_SLOTS) {
		c = d->ev_spec && d->ev_spec->chain[type] ? find_chain(m, d->ev_spec->chain[type]) : NULL;
		if (c) {
			*data = c->data;
			*len = c->len;
		}
	} else if (type < SIM_EV_TYPES) {
		*data = d->ev.obj[type];
		*len = d->ev.len[type];
	}
	/* evidence_len() with the digest flag: the digest, or 0 when the object has none */
	if (want_digest) {
		*data = d->ev.digest[type];
		*len = *len ? SIM_EV_DIGEST : 0;
	}
}

int sim_evidence_refresh(struct sim_model *m, struct sim_dev *d, const uint8_t *nonce, size_t len)
{
	const struct sim_tsm *t = holder(d);

	if (!t || !t->evidence_refresh)
		return -EOPNOTSUPP;	/* pci_tsm_refresh_evidence(): no ops->refresh_evidence */
	d->ev.generation++;
	/* a reader's nonce (up to 32 bytes, zero-padded: a guess), or another reader's refresh */
	memset(d->ev.req_nonce, 0, sizeof(d->ev.req_nonce));
	if (nonce)
		memcpy(d->ev.req_nonce, nonce, len < sizeof(d->ev.req_nonce) ? len : sizeof(d->ev.req_nonce));
	else
		provider_nonce(d, d->ev.generation, "another reader's", d->ev.req_nonce);
	generate(m, d);
	return 0;
}

void sim_evidence_free(struct sim_dev *d)
{
	for (int t = 0; t < SIM_EV_TYPES; t++)
		free(d->ev.obj[t]);
	if (d->ev_spec) {
		for (int k = 0; k < SIM_EV_SLOTS; k++)
			free(d->ev_spec->chain[k]);
		free(d->ev_spec->firmware);
		free(d->ev_spec->vca_file);
		free(d->ev_spec->meas_file);
		free(d->ev_spec->signer);
		free(d->ev_spec);
	}
}
