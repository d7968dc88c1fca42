// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoded evidence as text and JSON (evidence-view.h): the certificate
 * chains, the VCA's negotiation, the measurement blocks and the interface
 * report's ranges. Certificate names and values come from the device:
 * table cells go to libsmartcols and other text through fputs_escaped().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libsmartcols.h>

#include "tsmctl/evidence-reference.h"
#include "tsmctl/evidence-view.h"
#include "tsmctl/output.h"
#include "tsmctl/util.h"

/* ---- shared words ---- */

static char *utc(int64_t t)
{
	return ev_time_text(t, false);
}

/* The names of the set bits of V, by NAME(bit), as a list (unknown bits as "bitN"). */
static char *bit_names(uint32_t v, const char *(*name)(unsigned int), const char *sep)
{
	struct strbuf b = STRBUF_INIT;

	for (unsigned int bit = 0; bit < 32; bit++) {
		if (!(v & (1u << bit)))
			continue;
		if (name(bit))
			strbuf_join(&b, sep, "%s", name(bit));
		else
			strbuf_join(&b, sep, "bit%u", bit);
	}
	return strbuf_take(&b);
}

static struct json_object *bit_names_json(uint32_t v, const char *(*name)(unsigned int))
{
	struct json_object *a = json_object_new_array();

	for (unsigned int bit = 0; bit < 32; bit++) {
		char other[16];

		if (!(v & (1u << bit)))
			continue;
		snprintf(other, sizeof(other), "bit%u", bit);
		json_object_array_add(a, js_str(name(bit) ? name(bit) : other));
	}
	return a;
}

/* One selected algorithm's name, or NULL for none (or a reserved bit). */
static const char *one_name(uint32_t sel, const char *(*name)(unsigned int))
{
	for (unsigned int bit = 0; bit < 32; bit++)
		if (sel == 1u << bit)
			return name(bit);
	return NULL;
}

static char *error_text(const struct ev_part *p)
{
	char buf[EV_WHY_SIZE + 64];

	return p->rc ? xstrdup(ev_error_str(&p->err, buf, sizeof(buf))) : NULL;
}

static const char *tdisp_info_bit(unsigned int bit)
{
	return tdisp_info_name(bit);
}

static const char *tdisp_attr_bit(unsigned int bit)
{
	return tdisp_range_attr_name(bit);
}

/* ---- JSON ---- */

static const char *const place_names[] = {
	[SPDM_OID_IN_SPDM_EXTENSION] = "spdm_extension", [SPDM_OID_IN_EKU] = "extended_key_usage",
	[SPDM_OID_IN_SAN] = "subject_alt_name", [SPDM_OID_AS_EXTENSION] = "extension",
};

static struct json_object *cert_json(const struct spdm_cert *c)
{
	struct json_object *o = json_object_new_object(), *oids = json_object_new_array();
	char *nb = utc(c->not_before), *na = utc(c->not_after);

	json_object_object_add(o, "offset", js_u64(c->offset));
	json_object_object_add(o, "der_length", js_u64(c->der_len));
	json_object_object_add(o, "subject", js_str(c->subject));
	json_object_object_add(o, "issuer", js_str(c->issuer));
	json_object_object_add(o, "serial", js_str(c->serial));
	json_object_object_add(o, "not_before", js_str(nb));
	json_object_object_add(o, "not_after", js_str(na));
	json_object_object_add(o, "key_type", js_str(spdm_key_type_name(c->key_type)));
	json_object_object_add(o, "key_bits", js_u64(c->key_bits));
	json_object_object_add(o, "key_group", js_str(*c->key_group ? c->key_group : NULL));
	json_object_object_add(o, "signature_algorithm", js_str(c->sig_alg));
	json_object_object_add(o, "ca", js_bool(c->ca));
	json_object_object_add(o, "self_issued", js_bool(c->self_issued));
	json_object_object_add(o, "hardware_identity", js_bool(c->hardware_identity));
	json_object_object_add(o, "mutable_certificate", js_bool(c->mutable_certificate));
	json_object_object_add(o, "eku_responder_auth", js_bool(c->eku_responder_auth));
	json_object_object_add(o, "eku_requester_auth", js_bool(c->eku_requester_auth));
	json_object_object_add(o, "device_info", js_str(c->device_info));
	for (unsigned int i = 0; i < c->nr_oids; i++) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "oid", js_str(c->oids[i].oid));
		json_object_object_add(j, "name", js_str(spdm_oid_name(c->oids[i].which)));
		json_object_object_add(j, "place", js_str(place_names[c->oids[i].place]));
		json_object_object_add(j, "critical", js_bool(c->oids[i].critical));
		json_object_array_add(oids, j);
	}
	json_object_object_add(o, "dmtf_oids", oids);
	free(nb);
	free(na);
	return o;
}

static struct json_object *chain_json(const struct ev_decoded *d, unsigned int k)
{
	const struct spdm_chain *c = &d->chain[k];
	struct json_object *o = json_object_new_object(), *certs = json_object_new_array();
	bool header = c->form == SPDM_CHAIN_HEADER;
	char *rh = header && c->root_hash ? ev_hex(c->root_hash, c->root_hash_len) : NULL;

	json_object_object_add(o, "form", js_str(header ? "header" : "bare"));
	json_object_object_add(o, "length", header ? js_u64(c->length) : NULL);
	json_object_object_add(o, "root_hash", js_str(rh));
	for (unsigned int i = 0; i < c->nr_certs; i++)
		json_object_array_add(certs, cert_json(&c->certs[i]));
	json_object_object_add(o, "certificates", certs);
	json_object_object_add(o, "certificates_seen", js_u64(c->nr_seen));
	free(rh);
	return o;
}

static struct json_object *version_json(uint8_t v)
{
	char buf[8];

	if (!v)
		return NULL;
	snprintf(buf, sizeof(buf), "%u.%u", v >> 4, v & 15);
	return js_str(buf);
}

static struct json_object *vca_json(const struct ev_decoded *d)
{
	const struct spdm_vca *v = &d->vca;
	const struct spdm_algs *s = &v->selected;
	struct json_object *o = json_object_new_object(), *vs = json_object_new_array();
	struct json_object *off = json_object_new_object();

	for (unsigned int i = 0; i < v->nr_versions; i++)
		json_object_array_add(vs, version_json((uint8_t)(v->versions[i] >> 8)));
	json_object_object_add(o, "version", version_json(v->version));
	json_object_object_add(o, "versions", vs);
	json_object_object_add(o, "requester_capabilities",
			       bit_names_json(v->req_caps.flags, spdm_req_cap_name));
	json_object_object_add(o, "responder_capabilities",
			       bit_names_json(v->rsp_caps.flags, spdm_rsp_cap_name));
	json_object_object_add(o, "ct_exponent", js_u64(v->rsp_caps.ct_exponent));
	json_object_object_add(o, "base_asym", js_str(one_name(s->base_asym, spdm_asym_name)));
	json_object_object_add(o, "base_hash", js_str(one_name(s->base_hash, spdm_hash_name)));
	json_object_object_add(o, "measurement_hash", js_str(one_name(s->meas_hash, spdm_meas_hash_name)));
	json_object_object_add(o, "dhe", js_str(one_name(s->dhe, spdm_dhe_name)));
	json_object_object_add(o, "aead", js_str(one_name(s->aead, spdm_aead_name)));
	json_object_object_add(o, "req_base_asym", js_str(one_name(s->req_base_asym, spdm_asym_name)));
	json_object_object_add(o, "key_schedule", js_str(one_name(s->key_schedule, spdm_key_schedule_name)));
	json_object_object_add(off, "base_asym", bit_names_json(v->offered.base_asym, spdm_asym_name));
	json_object_object_add(off, "base_hash", bit_names_json(v->offered.base_hash, spdm_hash_name));
	json_object_object_add(o, "offered", off);
	json_object_object_add(o, "trailing", js_u64(v->trailing));
	return o;
}

static struct json_object *block_json(const struct spdm_meas_block *b)
{
	struct json_object *o = json_object_new_object(), *mode = NULL;
	char *hex = b->value ? ev_hex(b->value, b->value_len) : NULL;

	json_object_object_add(o, "index", js_u64(b->index));
	json_object_object_add(o, "specification", js_u64(b->spec));
	json_object_object_add(o, "dmtf", js_bool(b->dmtf));
	json_object_object_add(o, "type", js_str(b->dmtf ? spdm_meas_type_name(b->value_type) : NULL));
	json_object_object_add(o, "type_id", b->dmtf ? js_u64(b->value_type) : NULL);
	json_object_object_add(o, "raw", js_bool(b->raw || !b->dmtf));
	json_object_object_add(o, "value", js_str(hex));
	if (b->has_device_mode) {
		mode = json_object_new_object();
		json_object_object_add(mode, "operational_mode_capabilities",
				       bit_names_json(b->device_mode.operational_mode_caps, ev_operational_mode_name));
		json_object_object_add(mode, "operational_mode_state",
				       bit_names_json(b->device_mode.operational_mode_state, ev_operational_mode_name));
		json_object_object_add(mode, "device_mode_capabilities",
				       bit_names_json(b->device_mode.device_mode_caps, ev_device_mode_name));
		json_object_object_add(mode, "device_mode_state",
				       bit_names_json(b->device_mode.device_mode_state, ev_device_mode_name));
	}
	json_object_object_add(o, "device_mode", mode);
	json_object_object_add(o, "svn", b->has_svn ? js_u64(b->svn) : NULL);
	free(hex);
	return o;
}

static struct json_object *meas_json(const struct ev_decoded *d)
{
	static const char *const sig[] = {
		[SPDM_SIG_NONE] = "none", [SPDM_SIG_PRESENT] = "present",
		[SPDM_SIG_UNDELIMITED] = "undelimited",
	};
	const struct spdm_meas *m = d->meas;
	struct json_object *o = json_object_new_object(), *blocks = json_object_new_array();
	char *nonce = m->nonce ? ev_hex(m->nonce, SPDM_NONCE_SIZE) : NULL;
	char *ctx = m->requester_context ? ev_hex(m->requester_context, SPDM_REQ_CONTEXT_SIZE) : NULL;

	json_object_object_add(o, "version", version_json(m->version));
	json_object_object_add(o, "slot_id", js_u64(m->slot_id));
	json_object_object_add(o, "blocks_declared", js_u64(m->nr_blocks_declared));
	for (unsigned int i = 0; i < m->nr_blocks; i++)
		json_object_array_add(blocks, block_json(&m->blocks[i]));
	json_object_object_add(o, "blocks", blocks);
	json_object_object_add(o, "nonce", js_str(nonce));
	json_object_object_add(o, "opaque_length", js_u64(m->opaque_len));
	json_object_object_add(o, "requester_context", js_str(ctx));
	json_object_object_add(o, "signature", js_str(sig[m->sig]));
	json_object_object_add(o, "signature_length", js_u64(m->sig_len));
	free(nonce);
	free(ctx);
	return o;
}

static struct json_object *report_json(const struct ev_decoded *d)
{
	const struct tdisp_report *r = &d->report;
	struct json_object *o = json_object_new_object(), *ranges = json_object_new_array();

	json_object_object_add(o, "form", js_str(r->form == TDISP_FORM_RESPONSE ? "response" : "report"));
	json_object_object_add(o, "interface_info", bit_names_json(r->interface_info, tdisp_info_bit));
	json_object_object_add(o, "msix_control", js_u64(r->msix_control));
	json_object_object_add(o, "msix_table_size", js_u64(r->msix_table_size));
	json_object_object_add(o, "lnr_control", js_u64(r->lnr_control));
	json_object_object_add(o, "tph_control", js_u64(r->tph_control));
	json_object_object_add(o, "ranges_declared", js_u64(r->nr_ranges_declared));
	for (unsigned int i = 0; i < r->nr_ranges; i++) {
		const struct tdisp_mmio_range *m = &r->ranges[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "first_page", js_u64(m->first_page));
		json_object_object_add(j, "pages", js_u64(m->nr_pages));
		json_object_object_add(j, "range_id", js_u64(m->range_id));
		json_object_object_add(j, "attributes", bit_names_json(m->attributes, tdisp_attr_bit));
		json_object_array_add(ranges, j);
	}
	json_object_object_add(o, "ranges", ranges);
	json_object_object_add(o, "device_specific_length", js_u64(r->device_info_len));
	return o;
}

struct json_object *ev_view_json(const struct ev_decoded *d, unsigned int type)
{
	const struct ev_part *p = ev_decoded_part(d, type);
	struct json_object *o;
	char *err;

	if (!p->present)
		return NULL;
	if (type < EV_NR_SLOTS)
		o = chain_json(d, type);
	else if (type == EV_VCA_TYPE)
		o = vca_json(d);
	else if (type == EV_MEAS_TYPE)
		o = meas_json(d);
	else
		o = report_json(d);
	err = error_text(p);
	json_object_object_add(o, "error", js_str(err));
	free(err);
	return o;
}

/* ---- text ---- */

/* A table whose every column is shown. */
static struct table *full_table(const struct column *cols, size_t n)
{
	struct output_opts o = { .ncols = n };

	for (size_t i = 0; i < n; i++)
		o.cols[i] = (int)i;
	return table_new(&o, cols);
}

static void line(const char *label, const char *text)
{
	fputs("  ", stdout);
	fputs(label, stdout);
	fputs(": ", stdout);
	fputs_escaped(*text ? text : "none", stdout);
	fputc('\n', stdout);
}

enum { CC_NR, CC_SUBJECT, CC_ISSUER, CC_SERIAL, CC_FROM, CC_UNTIL, CC_KEY, CC_SPDM };
static const struct column cert_cols[] = {
	[CC_NR] = { "#", 0, SCOLS_FL_RIGHT, "position in the chain, root first" },
	[CC_SUBJECT] = { "SUBJECT", 0.3, 0, "subject (RFC 2253)" },
	[CC_ISSUER] = { "ISSUER", 0.3, 0, "issuer (RFC 2253)" },
	[CC_SERIAL] = { "SERIAL", 0, 0, "serial number" },
	[CC_FROM] = { "NOT-BEFORE", 0, 0, "valid from" },
	[CC_UNTIL] = { "NOT-AFTER", 0, 0, "valid until" },
	[CC_KEY] = { "KEY", 0, 0, "public key" },
	[CC_SPDM] = { "SPDM", 0, 0, "DMTF SPDM extensions" },
};

static char *spdm_flags(const struct spdm_cert *c)
{
	struct strbuf b = STRBUF_INIT;

	if (c->ca)
		strbuf_join(&b, ",", "ca");
	if (c->hardware_identity)
		strbuf_join(&b, ",", "hardware-identity");
	if (c->mutable_certificate)
		strbuf_join(&b, ",", "mutable");
	if (c->eku_responder_auth)
		strbuf_join(&b, ",", "responder-auth");
	if (c->eku_requester_auth)
		strbuf_join(&b, ",", "requester-auth");
	if (c->device_info)
		strbuf_join(&b, ",", "device-info");
	return strbuf_take(&b);
}

static int print_chain(const struct ev_decoded *d, unsigned int k)
{
	const struct spdm_chain *c = &d->chain[k];
	struct table *t = full_table(cert_cols, ARRAY_SIZE(cert_cols));
	char *rh = c->root_hash ? ev_hex(c->root_hash, c->root_hash_len) : NULL, *head;

	if (c->form == SPDM_CHAIN_HEADER)
		head = xasprintf("DSP0274 chain: Length %u, RootHash (%zu bytes) %s", c->length,
				 c->root_hash_len, rh);
	else
		head = xasprintf("bare DER certificates (no DSP0274 header)");
	line("form", head);
	if (c->nr_seen > c->nr_certs)
		printf("  %u certificates, the first %u decoded\n", c->nr_seen, c->nr_certs);
	for (unsigned int i = 0; i < c->nr_certs; i++) {
		const struct spdm_cert *ce = &c->certs[i];
		char *row[ARRAY_SIZE(cert_cols)];

		row[CC_NR] = cell_fmt("%u", i);
		row[CC_SUBJECT] = cell_str(ce->subject);
		row[CC_ISSUER] = cell_str(ce->issuer);
		row[CC_SERIAL] = cell_str(ce->serial);
		row[CC_FROM] = utc(ce->not_before);
		row[CC_UNTIL] = utc(ce->not_after);
		row[CC_KEY] = *ce->key_group ? cell_fmt("%s %u %s", spdm_key_type_name(ce->key_type),
							ce->key_bits, ce->key_group) :
			      cell_fmt("%s %u", spdm_key_type_name(ce->key_type), ce->key_bits);
		row[CC_SPDM] = spdm_flags(ce);
		table_add_row(t, row);
	}
	free(rh);
	free(head);
	return table_print_free(t);
}

static void print_vca(const struct ev_decoded *d)
{
	const struct spdm_vca *v = &d->vca;
	const struct spdm_algs *s = &v->selected;
	struct strbuf b = STRBUF_INIT;
	char *text;

	for (unsigned int i = 0; i < v->nr_versions; i++)
		strbuf_join(&b, ", ", "%u.%u", v->versions[i] >> 12, (v->versions[i] >> 8) & 15);
	text = strbuf_take(&b);
	printf("  SPDM %u.%u (VERSION offered %s)\n", v->version >> 4, v->version & 15, text);
	free(text);
	text = bit_names(v->req_caps.flags, spdm_req_cap_name, ", ");
	line("requester capabilities", text);
	free(text);
	text = bit_names(v->rsp_caps.flags, spdm_rsp_cap_name, ", ");
	line("responder capabilities", text);
	free(text);
	text = xasprintf("BaseAsymAlgo %s, BaseHashAlgo %s, MeasurementHashAlgo %s, DHE %s, AEAD %s, "
			 "ReqBaseAsymAlg %s, KeySchedule %s",
			 one_name(s->base_asym, spdm_asym_name) ?: "none",
			 one_name(s->base_hash, spdm_hash_name) ?: "none",
			 one_name(s->meas_hash, spdm_meas_hash_name) ?: "none",
			 one_name(s->dhe, spdm_dhe_name) ?: "none",
			 one_name(s->aead, spdm_aead_name) ?: "none",
			 one_name(s->req_base_asym, spdm_asym_name) ?: "none",
			 one_name(s->key_schedule, spdm_key_schedule_name) ?: "none");
	line("selected", text);
	free(text);
}

enum { MC_INDEX, MC_TYPE, MC_FORM, MC_SIZE, MC_VALUE };
static const struct column meas_cols[] = {
	[MC_INDEX] = { "INDEX", 0, SCOLS_FL_RIGHT, "measurement index" },
	[MC_TYPE] = { "TYPE", 0, 0, "DMTF value type" },
	[MC_FORM] = { "FORM", 0, 0, "digest or raw value" },
	[MC_SIZE] = { "SIZE", 0, SCOLS_FL_RIGHT, "value bytes" },
	[MC_VALUE] = { "VALUE", 0, SCOLS_FL_WRAP, "the digest or value (hex); device mode and SVN decoded" },
};

static char *block_value(const struct spdm_meas_block *b)
{
	char *hex, *s, *op, *dm;

	if (b->has_svn)
		return xasprintf("%llu", (unsigned long long)b->svn);
	if (b->has_device_mode) {
		op = bit_names(b->device_mode.operational_mode_state, ev_operational_mode_name, "+");
		dm = bit_names(b->device_mode.device_mode_state, ev_device_mode_name, "+");
		s = xasprintf("operational %s, debug %s", *op ? op : "none", *dm ? dm : "none");
		free(op);
		free(dm);
		return s;
	}
	hex = ev_hex(b->value, b->value_len);
	return hex;
}

static int print_meas(const struct ev_decoded *d)
{
	const struct spdm_meas *m = d->meas;
	struct table *t = full_table(meas_cols, ARRAY_SIZE(meas_cols));
	char *nonce = m->nonce ? ev_hex(m->nonce, SPDM_NONCE_SIZE) : xstrdup("");

	printf("  SPDM %u.%u MEASUREMENTS, %u of %u blocks, slot %u, %s (%zu bytes)\n", m->version >> 4,
	       m->version & 15, m->nr_blocks, m->nr_blocks_declared, m->slot_id,
	       m->sig == SPDM_SIG_PRESENT ? "signed" : m->sig == SPDM_SIG_NONE ? "unsigned" :
	       "trailing bytes", m->sig_len);
	line("responder nonce", nonce);
	free(nonce);
	for (unsigned int i = 0; i < m->nr_blocks; i++) {
		const struct spdm_meas_block *b = &m->blocks[i];
		char *row[ARRAY_SIZE(meas_cols)];
		const char *type = b->dmtf ? spdm_meas_type_name(b->value_type) : NULL;

		row[MC_INDEX] = cell_fmt("%u", b->index);
		row[MC_TYPE] = b->dmtf ? (type ? cell_str(type) : cell_fmt("reserved %u", b->value_type)) :
			       cell_fmt("spec 0x%02x", b->spec);
		row[MC_FORM] = cell_str(b->raw || !b->dmtf ? "raw" : "digest");
		row[MC_SIZE] = cell_fmt("%u", b->value_len);
		row[MC_VALUE] = block_value(b);
		table_add_row(t, row);
	}
	return table_print_free(t);
}

enum { RC_NR, RC_FIRST, RC_PAGES, RC_ID, RC_ATTR };
static const struct column range_cols[] = {
	[RC_NR] = { "RANGE", 0, SCOLS_FL_RIGHT, "range in the report" },
	[RC_FIRST] = { "FIRST-PAGE", 0, SCOLS_FL_RIGHT, "first 4 KiB page, with the reporting offset" },
	[RC_PAGES] = { "PAGES", 0, SCOLS_FL_RIGHT, "4 KiB pages" },
	[RC_ID] = { "ID", 0, SCOLS_FL_RIGHT, "range ID (the BAR)" },
	[RC_ATTR] = { "ATTRIBUTES", 0, 0, "MSI-X table, PBA, non-TEE, updatable" },
};

static int print_report(const struct ev_decoded *d)
{
	const struct tdisp_report *r = &d->report;
	struct table *t = full_table(range_cols, ARRAY_SIZE(range_cols));
	char *info = bit_names(r->interface_info, tdisp_info_bit, ", "), *ctl;

	line("interface info", info);
	ctl = xasprintf("MSI-X 0x%04x (%u entries%s%s), LNR 0x%04x, TPH 0x%08x; %u of %u ranges, "
			"%u bytes of device-specific information", r->msix_control, r->msix_table_size,
			r->msix_enable ? ", enabled" : "", r->msix_function_mask ? ", masked" : "",
			r->lnr_control, r->tph_control, r->nr_ranges, r->nr_ranges_declared,
			r->device_info_len);
	line("controls", ctl);
	for (unsigned int i = 0; i < r->nr_ranges; i++) {
		const struct tdisp_mmio_range *m = &r->ranges[i];
		char *row[ARRAY_SIZE(range_cols)];

		row[RC_NR] = cell_fmt("%u", i);
		row[RC_FIRST] = cell_fmt("0x%llx", (unsigned long long)m->first_page);
		row[RC_PAGES] = cell_fmt("%u", m->nr_pages);
		row[RC_ID] = cell_fmt("%u", m->range_id);
		row[RC_ATTR] = bit_names(m->attributes, tdisp_attr_bit, ",");
		table_add_row(t, row);
	}
	free(info);
	free(ctl);
	return table_print_free(t);
}

int ev_view_print(const struct ev_decoded *d, uint32_t mask)
{
	int rc = 0;

	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES && !rc; t++) {
		const struct ev_part *p = ev_decoded_part(d, t);
		char *err;

		if (!(mask & (1u << t)) || !p->present)
			continue;
		printf("\n%s:\n", evidence_type_name(t));
		if ((err = error_text(p))) {
			line("error", err);
			free(err);
		}
		if (t < EV_NR_SLOTS)
			rc = print_chain(d, t);
		else if (t == EV_VCA_TYPE)
			print_vca(d);
		else if (t == EV_MEAS_TYPE)
			rc = print_meas(d);
		else
			rc = print_report(d);
		stdout_flush();
	}
	return rc;
}
