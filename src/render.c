// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>

#include "tsmctl/output.h"
#include "tsmctl/pci.h"
#include "tsmctl/render.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

char *render_algorithm(unsigned int alg)
{
	const char *name = ide_algorithm_name(alg);

	/* as the stream state: a reserved value is shown, never dropped (ABI.md §3) */
	return name ? xstrdup(name) : xasprintf("reserved(%u)", alg);
}

/* A JSON string of S, which is freed. */
static struct json_object *js_str_take(char *s)
{
	struct json_object *o = js_str(s);

	free(s);
	return o;
}

const char *render_pcie_type(const struct pci_func *f)
{
	if (!func_cfg_known(f))
		return NULL;
	return f->cfg.pcie_type == PCIE_TYPE_NONE ? "pci" : pcie_type_name(f->cfg.pcie_type);
}

const char *render_func_type(const struct pci_func *f)
{
	static const char *const kinds[] = {
		[FUNC_KIND_UNKNOWN] = NULL, [FUNC_KIND_ENDPOINT] = "endpoint",
		[FUNC_KIND_BRIDGE] = "bridge", [FUNC_KIND_CARDBUS] = "cardbus_bridge",
	};

	return render_pcie_type(f) ? render_pcie_type(f) : kinds[func_header_kind(f)];
}

struct json_object *render_ide_cap_json(const struct pci_func *f)
{
	const struct ide_cap *ide = &f->cfg.ide;
	struct json_object *o, *flags, *algs;
	static const struct { size_t off; const char *name; } bits[] = {
		{ offsetof(struct ide_cap, link_ide), "link_ide" },
		{ offsetof(struct ide_cap, selective_ide), "selective_ide" },
		{ offsetof(struct ide_cap, flow_through), "flow_through" },
		{ offsetof(struct ide_cap, partial_header), "partial_header" },
		{ offsetof(struct ide_cap, aggregation), "aggregation" },
		{ offsetof(struct ide_cap, pcrc), "pcrc" },
		{ offsetof(struct ide_cap, ide_km), "ide_km" },
		{ offsetof(struct ide_cap, sel_cfg), "selective_cfg" },
		{ offsetof(struct ide_cap, tee_limited), "tee_limited" },
		{ offsetof(struct ide_cap, xt), "xt" },
	};

	if (!func_cfg_known(f) || !ide->present)
		return NULL;
	o = json_object_new_object();
	flags = json_object_new_array();
	algs = json_object_new_array();
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		if (*(const bool *)((const char *)ide + bits[i].off))
			json_object_array_add(flags, js_str(bits[i].name));
	json_object_array_add(algs, js_str_take(render_algorithm(ide->algorithms)));
	json_object_object_add(o, "link_ide", js_bool(ide->link_ide));
	json_object_object_add(o, "selective_streams", js_u64(ide->sel_streams));
	json_object_object_add(o, "link_tcs", js_u64(ide->link_tcs));
	json_object_object_add(o, "flags", flags);
	json_object_object_add(o, "algorithms", algs);
	json_object_object_add(o, "malformed", js_bool(f->cfg.malformed & (CFG_MAL_IDE_BLOCKS |
					CFG_MAL_CAP_TRUNCATED)));
	return o;
}

char *render_ide_cap_text(const struct pci_func *f)
{
	const struct ide_cap *ide = &f->cfg.ide;

	if (!func_cfg_known(f))
		return NULL;
	if (!ide->present)
		return xstrdup("-");
	if (ide->link_ide && ide->selective_ide)
		return xasprintf("link:%u,sel:%u", ide->link_tcs, ide->sel_streams);
	if (ide->selective_ide)
		return xasprintf("sel:%u", ide->sel_streams);
	return ide->link_ide ? xasprintf("link:%u", ide->link_tcs) : xstrdup("none");
}

const char *render_read_error_word(int err)
{
	return err == -EBADMSG ? "malformed" : errno_symbol(-err);
}

char *render_attr_cell(const char *value, int err)
{
	/* a malformed value is marked, and shown as read: the cell escapes what it holds */
	if (err == -EBADMSG && value && *value)
		return xasprintf("(malformed) %s", value);
	if (err)
		return xstrdup(err == -EBADMSG ? "(malformed)" : "(unreadable)");
	return value && *value ? xstrdup(value) : NULL;
}

void render_read_error(struct json_object *errors, const char *name, int err)
{
	if (err)
		json_object_object_add(errors, name, js_str(render_read_error_word(err)));
}

/* A function's attributes that exist but could not be read, or read malformed. */
static struct json_object *func_read_errors(const struct pci_func *f)
{
	struct json_object *o = json_object_new_object();

	render_read_error(o, "tsm", f->tsm_err);
	render_read_error(o, "tsm/connect", f->connect_err);
	render_read_error(o, "tsm/dsm", f->dsm_err);
	render_read_error(o, "tsm/bound", f->bound_err);
	render_read_error(o, "tsm/lock", f->lock_err);
	render_read_error(o, "tsm/accept", f->accept_err);
	render_read_error(o, "authenticated", f->auth_err);
	return o;
}

static struct json_object *opt_str(bool present, const char *v)
{
	/* An attribute that exists but is empty is "" only for connect-like files: null. */
	return present && v && *v ? js_str(v) : NULL;
}

struct json_object *render_device_json(const struct pci_func *f, struct json_object *detail)
{
	struct json_object *o = json_object_new_object();
	bool known = func_cfg_known(f);
	bool hdr = f->ids_known;	/* from config space, or the kernel's vendor/device/class */
	char *vendor = hdr ? pci_vendor_name(f->cfg.vendor_id) : NULL;
	char *device = hdr ? pci_device_name(f->cfg.vendor_id, f->cfg.device_id) : NULL;

	json_object_object_add(o, "bdf", js_str(f->bdf));
	json_object_object_add(o, "vendor_id", hdr ? js_u64(f->cfg.vendor_id) : NULL);
	json_object_object_add(o, "device_id", hdr ? js_u64(f->cfg.device_id) : NULL);
	json_object_object_add(o, "class", hdr ? js_u64(f->cfg.class_code) : NULL);
	json_object_object_add(o, "vendor", js_str(vendor));
	json_object_object_add(o, "device", js_str(device));
	json_object_object_add(o, "pcie_type", js_str(render_pcie_type(f)));
	json_object_object_add(o, "tee_io", known ? js_bool(f->cfg.tee_io) : NULL);
	json_object_object_add(o, "ide", render_ide_cap_json(f));
	json_object_object_add(o, "doe_features", f->doe_known ?
			       js_strv(f->doe_features, f->nr_doe_features) : NULL);
	json_object_object_add(o, "tsm_dir", js_bool(f->tsm_dir));
	json_object_object_add(o, "connected", opt_str(f->has_connect, f->connect));
	json_object_object_add(o, "dsm", opt_str(f->has_dsm, f->dsm));
	json_object_object_add(o, "bound", opt_str(f->has_bound, f->bound));
	json_object_object_add(o, "authenticated", opt_str(f->has_authenticated, f->authenticated));
	json_object_object_add(o, "locked", js_str(func_lock_holder(f)));
	json_object_object_add(o, "accepted", func_accepted(f) < 0 ? NULL :
			       js_bool(func_accepted(f)));
	json_object_object_add(o, "driver", js_str(f->driver));
	json_object_object_add(o, "root_port", js_str(f->root_port ? f->root_port->bdf : NULL));
	json_object_object_add(o, "host_bridge", js_str(f->hb ? f->hb->name : NULL));
	json_object_object_add(o, "config_access", js_str(!f->cfg_read ? NULL :
			       f->cfg_err ? "unreadable" : f->needs_root ? "needs_root" :
			       f->cfg.malformed ? "malformed" : "full"));
	json_object_object_add(o, "read_errors", func_read_errors(f));
	json_object_object_add(o, "detail", detail);
	free(vendor);
	free(device);
	return o;
}

char *render_state_word(unsigned int state)
{
	const char *name = ide_state_name(state);

	return name ? xstrdup(name) : xasprintf("reserved(%u)", state);
}

char *render_state(const struct ide_sel_stream *b)
{
	return b ? render_state_word(b->regs.state) : NULL;
}

/* The words of enum partner_state (tsmctl-streams(8), STATES); reserved(N) is built. */
static const char *const partner_words[] = {
	[PARTNER_SECURE] = "secure", [PARTNER_INSECURE] = "insecure",
	[PARTNER_DISABLED] = "disabled", [PARTNER_NO_BLOCK] = "no-block",
	[PARTNER_NEEDS_ROOT] = "needs-root", [PARTNER_UNREADABLE] = "unreadable",
	[PARTNER_NO_ROOT_PORT] = "no-root-port", [PARTNER_DANGLING] = "dangling",
	[PARTNER_DUPLICATE] = "duplicate",
};

char *render_partner_state(const struct ide_stream *s, bool endpoint)
{
	enum partner_state st = stream_partner_state(s, endpoint);
	char *word = st == PARTNER_RESERVED ? render_state(stream_partner_block(s, endpoint)) :
		     xstrdup(partner_words[st]);
	char *with_fail;

	/* an IDE Fail message received is never hidden behind "secure" */
	if (!stream_partner_ide_fail(s, endpoint))
		return word;
	with_fail = xasprintf("%s+ide-fail", word);
	free(word);
	return with_fail;
}

/* How a link fails to name an endpoint below its host bridge, for JSON; NULL when it does. */
static const char *link_error_word(const struct ide_stream *s)
{
	if (!s->dangling)
		return NULL;
	switch (-s->link_err) {
	case 0:		return "other-host-bridge";	/* names a device, below another one */
	case ENOENT:	return "missing";
	case ELOOP:	return "loop";
	case EXDEV:	return "outside-tree";
	case EINVAL:	return "not-a-link";
	case ENODEV:	return "not-a-device";
	default:	return "unreadable";
	}
}

void render_sel_block_json(struct json_object *o, const struct ide_sel_stream *b)
{
	struct json_object *rid = NULL, *addr = json_object_new_array();
	const struct ide_stream_regs *r = b ? &b->regs : NULL;

	if (b) {
		rid = json_object_new_object();
		json_object_object_add(rid, "valid", js_bool(b->rid_valid));
		json_object_object_add(rid, "base", js_u64(b->rid_base));
		json_object_object_add(rid, "limit", js_u64(b->rid_limit));
		json_object_object_add(rid, "segment", js_u64(b->rid_segment));
		for (unsigned int i = 0; i < b->nr_addr; i++) {
			struct json_object *a = json_object_new_object();

			json_object_object_add(a, "valid", js_bool(b->addr[i].valid));
			json_object_object_add(a, "base", js_u64(b->addr[i].base));
			json_object_object_add(a, "limit", js_u64(b->addr[i].limit));
			json_object_array_add(addr, a);
		}
	}
	json_object_object_add(o, "enabled", r ? js_bool(r->enabled) : NULL);
	json_object_object_add(o, "state", js_str_take(render_state(b)));
	json_object_object_add(o, "ide_fail", r ? js_bool(r->ide_fail) : NULL);
	json_object_object_add(o, "stream_id", r ? js_u64(r->stream_id) : NULL);
	json_object_object_add(o, "tc", r ? js_u64(r->tc) : NULL);
	json_object_object_add(o, "algorithm", r ? js_str_take(render_algorithm(r->algorithm)) : NULL);
	json_object_object_add(o, "default_stream", b ? js_bool(b->default_stream) : NULL);
	json_object_object_add(o, "tee_limited", b ? js_bool(b->tee_limited) : NULL);
	json_object_object_add(o, "cfg_requests", b ? js_bool(b->cfg_requests) : NULL);
	json_object_object_add(o, "pcrc", r ? js_bool(r->pcrc) : NULL);
	json_object_object_add(o, "rid", rid);
	json_object_object_add(o, "address", addr);
}

static struct json_object *partner_json(const struct ide_stream *s, bool endpoint)
{
	const struct pci_func *f = stream_partner(s, endpoint);
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "bdf", js_str(f ? f->bdf : NULL));
	json_object_object_add(o, "block", js_u64(endpoint ? s->e : s->r));
	render_sel_block_json(o, stream_partner_block(s, endpoint));
	json_object_object_add(o, "summary", js_str_take(render_partner_state(s, endpoint)));
	json_object_object_add(o, "needs_root", js_bool(f && f->needs_root));
	return o;
}

/* What both stream objects start with: name, host_bridge, (with HRE) h, r, e, and stream_id. */
static struct json_object *stream_head_json(const struct ide_stream *s, bool hre)
{
	struct json_object *o = json_object_new_object();
	const struct ide_sel_stream *ep = stream_partner_block(s, true);

	json_object_object_add(o, "name", js_str(s->name));
	json_object_object_add(o, "host_bridge", js_str(s->hb->name));
	if (hre) {
		json_object_object_add(o, "h", js_u64(s->h));
		json_object_object_add(o, "r", js_u64(s->r));
		json_object_object_add(o, "e", js_u64(s->e));
	}
	json_object_object_add(o, "stream_id", ep ? js_u64(ep->regs.stream_id) : NULL);
	return o;
}

struct json_object *render_stream_json(const struct ide_stream *s)
{
	struct json_object *o = stream_head_json(s, true);

	json_object_object_add(o, "tsm", js_str(stream_connected_tsm(s)));
	json_object_object_add(o, "dangling", js_bool(s->dangling));
	json_object_object_add(o, "link_error", js_str(link_error_word(s)));
	json_object_object_add(o, "duplicate_of", js_str(s->dup_of ? s->dup_of->name : NULL));
	json_object_object_add(o, "target", js_str(s->target ? path_base(s->target) : NULL));
	json_object_object_add(o, "endpoint", partner_json(s, true));
	json_object_object_add(o, "root_port", partner_json(s, false));
	return o;
}

struct json_object *render_stream_brief_json(const struct ide_stream *s)
{
	struct json_object *o = stream_head_json(s, false);

	json_object_object_add(o, "endpoint_state", js_str_take(render_partner_state(s, true)));
	json_object_object_add(o, "root_port_state", js_str_take(render_partner_state(s, false)));
	return o;
}

/* ---- cells a function shows in devices and tree ---- */

static char *empty_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

char *render_func_cell(const struct pci_func *f, enum func_cell col)
{
	char *s;

	switch (col) {
	case FC_BDF: return cell_str(f->bdf);
	case FC_VENDOR_ID: return f->ids_known ? cell_fmt("%04x", f->cfg.vendor_id) : NULL;
	case FC_DEVICE_ID: return f->ids_known ? cell_fmt("%04x", f->cfg.device_id) : NULL;
	case FC_VENDOR: return f->ids_known ? pci_vendor_name(f->cfg.vendor_id) : NULL;
	case FC_DEVICE:
		if (!f->ids_known)
			return NULL;
		s = pci_device_name(f->cfg.vendor_id, f->cfg.device_id);
		return s ? s : cell_fmt("[%04x:%04x]", f->cfg.vendor_id, f->cfg.device_id);
	case FC_TYPE: return cell_str(render_func_type(f));
	case FC_TEE:
		return func_cfg_known(f) ? cell_bool(f->cfg.tee_io) :
		       cell_str(f->needs_root || f->cfg_err ? "?" : NULL);
	case FC_IDE:
		s = render_ide_cap_text(f);
		return s ? s : cell_str(f->needs_root ? "needs-root" : f->cfg_err ? "unreadable" : NULL);
	case FC_DOE:
		return strv_join(f->doe_features, f->nr_doe_features, ",");
	case FC_TSMDIR: return cell_bool(f->tsm_dir);
	/* tsm/ there, its files unseen: the link part's cells are unknown, not empty */
	case FC_CONNECTED: return render_attr_cell(f->connect, f->connect_err ?: f->tsm_err);
	case FC_DSM: return render_attr_cell(f->dsm, f->dsm_err ?: f->tsm_err);
	case FC_BOUND: return render_attr_cell(f->bound, f->bound_err ?: f->tsm_err);
	case FC_AUTH: return render_attr_cell(f->authenticated, f->auth_err);
	case FC_LOCKED:
		return f->lock_err ? render_attr_cell(NULL, f->lock_err) : empty_null(func_lock_holder(f));
	case FC_ACCEPTED:
		if (f->accept_err)
			return render_attr_cell(NULL, f->accept_err);
		return func_accepted(f) < 0 ? NULL : cell_bool(func_accepted(f));
	case FC_DRIVER: return cell_str(f->driver);
	case FC_ROOT_PORT: return cell_str(f->root_port ? f->root_port->bdf : NULL);
	case FC_HB: return cell_str(f->hb ? f->hb->name : NULL);
	case FC_STATE: return render_func_state(f);
	}
	return NULL;
}

char *render_func_state(const struct pci_func *f)
{
	const char *holder = func_lock_holder(f);
	bool dependent = f->dsm && *f->dsm && !streq(f->dsm, f->bdf);
	int errs[] = { f->tsm_err, f->connect_err, f->dsm_err, f->lock_err, f->accept_err,
		       f->bound_err };
	struct strbuf s = STRBUF_INIT;
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(errs) && !err; i++)
		err = errs[i];
	if (func_connected(f) && !dependent)
		strbuf_join(&s, ",", "connected");
	else if (dependent)
		strbuf_join(&s, ",", "dependent");
	else if (func_not_connected(f))
		strbuf_join(&s, ",", "not-connected");
	if (holder)
		strbuf_join(&s, ",", func_accepted(f) == 1 ? "accepted" : "locked");
	else if (f->has_lock && !f->lock_err && !func_connected(f) && !dependent)
		strbuf_join(&s, ",", "unlocked");
	if (f->bound && *f->bound && !f->bound_err)
		strbuf_join(&s, ",", "bound");
	if (err)
		strbuf_join(&s, ",", err == -EBADMSG ? "(malformed)" : "(unreadable)");
	return strbuf_take(&s);
}

/* ---- host bridges ---- */

char *render_pool_cell(const struct host_bridge *hb)
{
	/* no file: no pool at all, unlike a full one (0) */
	if (hb->available_err)
		return render_attr_cell(NULL, hb->available_err);
	return hb->available_streams >= 0 ? cell_fmt("%lld", hb->available_streams) :
	       cell_str(hb_no_pool(hb) ? "none" : NULL);
}

char *render_hb_tsms(const struct host_bridge *hb)
{
	struct strbuf names = STRBUF_INIT;

	for (size_t i = 0; i < hb->nr_tsms; i++)
		strbuf_join(&names, ",", "%s", hb->tsms[i]->name);
	return strbuf_take(&names);
}

/* A SEV-TIO TSM's PSP (ABI.md §7.2): its security bits, versions and read errors; null for NULL. */
static struct json_object *psp_json(const struct psp_security *p)
{
	struct json_object *o, *bits, *errors;

	if (!p)
		return NULL;
	o = json_object_new_object();
	bits = json_object_new_object();
	errors = json_object_new_object();
	for (int i = 0; i < PSP_NR_BITS; i++) {
		json_object_object_add(bits, psp_bit_attr[i], p->bit[i] >= 0 ?
				       js_bool(p->bit[i]) : NULL);
		if (p->bit[i] < 0 && p->bit[i] != -ENOENT)
			render_read_error(errors, psp_bit_attr[i], p->bit[i]);
	}
	json_object_object_add(o, "function", js_str(p->function));
	json_object_object_add(o, "reports_security", js_bool(psp_reports_security(p)));
	json_object_object_add(o, "security", bits);
	json_object_object_add(o, "bootloader_version", js_str(p->bootloader_version));
	json_object_object_add(o, "tee_version", js_str(p->tee_version));
	if (p->bootloader_err != -ENOENT)
		render_read_error(errors, "bootloader_version", p->bootloader_err);
	if (p->tee_err != -ENOENT)
		render_read_error(errors, "tee_version", p->tee_err);
	json_object_object_add(o, "read_errors", errors);
	return o;
}

struct json_object *render_tsm_json(const struct tsm_snapshot *snap, const struct tsm *t)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array(), *errors;
	const char **hbs = xcalloc(snap->nr_hbs + 1, sizeof(*hbs));
	size_t nr_hbs = tsm_hb_names(snap, t, hbs), accepted, locked = tsm_nr_locked(snap, t, &accepted);

	json_object_object_add(o, "name", js_str(t->name));
	json_object_object_add(o, "id", json_object_new_int(t->id));
	json_object_object_add(o, "mode", js_str(t->mode));
	json_object_object_add(o, "provider", js_str(t->provider));
	json_object_object_add(o, "driver", js_str(t->driver));
	json_object_object_add(o, "module", js_str(t->module));
	json_object_object_add(o, "provider_version", js_str(t->provider_version));
	json_object_object_add(o, "connected_devices", js_u64(t->connected_devices));
	json_object_object_add(o, "locked_devices", js_u64(locked));
	json_object_object_add(o, "accepted_devices", js_u64(accepted));
	json_object_object_add(o, "streams", js_u64(t->nr_streams));
	for (size_t i = 0; i < nr_hbs; i++)
		json_object_array_add(arr, js_str(hbs[i]));
	free(hbs);
	json_object_object_add(o, "host_bridges", arr);
	errors = json_object_new_object();
	render_read_error(errors, "pci_mode", t->mode_err);
	json_object_object_add(o, "read_errors", errors);
	json_object_object_add(o, "psp", psp_json(t->psp));
	return o;
}

struct json_object *render_hb_json(const struct host_bridge *hb)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *tsms = json_object_new_array(), *errors;

	for (size_t i = 0; i < hb->nr_streams; i++)
		json_object_array_add(arr, js_str(hb->streams[i]->name));
	for (size_t i = 0; i < hb->nr_tsms; i++)
		json_object_array_add(tsms, js_str(hb->tsms[i]->name));
	json_object_object_add(o, "name", js_str(hb->name));
	json_object_object_add(o, "domain", js_u64(hb->domain));
	json_object_object_add(o, "bus", js_u64(hb->bus));
	json_object_object_add(o, "available_secure_streams", js_num(hb->available_streams));
	json_object_object_add(o, "streams", arr);
	json_object_object_add(o, "tsms", tsms);
	errors = json_object_new_object();
	render_read_error(errors, "available_secure_streams", hb->available_err);
	json_object_object_add(o, "read_errors", errors);
	return o;
}

/* ---- the views' JSON callbacks (struct view .json) ---------------------- */

struct json_object *render_tsm_item_json(const struct tsm_snapshot *snap, const void *item)
{
	return render_tsm_json(snap, item);
}

struct json_object *render_hb_item_json(const struct tsm_snapshot *snap, const void *item)
{
	(void)snap;
	return render_hb_json(item);
}

struct json_object *render_stream_item_json(const struct tsm_snapshot *snap, const void *item)
{
	(void)snap;
	return render_stream_json(item);
}

struct json_object *render_device_item_json(const struct tsm_snapshot *snap, const void *item)
{
	(void)snap;
	return render_device_json(item, NULL);
}
