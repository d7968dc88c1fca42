// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One function in full, for devices -v: every field the model has, as text
 * grouped the way lspci -vv and ip -d link show group theirs, and as the
 * device document's "detail" object (schema/devices.schema.json).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsmctl/names.h"
#include "tsmctl/output.h"
#include "tsmctl/pci.h"
#include "tsmctl/render.h"
#include "tsmctl/util.h"

#define IORESOURCE_IO		0x100		/* include/linux/ioport.h */
#define IORESOURCE_PREFETCH	0x2000
#define IORESOURCE_MEM_64	0x100000

/* DOE features the kernel names (ABI.md §3, other constants). */
static const char *doe_feature_name(const char *f)
{
	return streq(f, "0001:00") ? "discovery" : streq(f, DOE_FEATURE_CMA) ? "CMA/SPDM" :
	       streq(f, DOE_FEATURE_SSESSION) ? "secure CMA/SPDM" : NULL;
}

void render_vline(int depth, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		out_of_memory();
	printf("%*s", 4 * depth, "");
	fputs_escaped(s, stdout);
	putchar('\n');
	free(s);
}

/* One line indented DEPTH levels (spaces, as ip -d: no control byte reaches the terminal); escaped. */
static void line(int depth, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(int depth, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	render_vline(depth, fmt, ap);
	va_end(ap);
}

static const char *pm(bool v)
{
	return v ? "+" : "-";
}

/* lspci's [size=32M]: the largest unit that divides it. */
static char *size_text(uint64_t size)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (size >= 1024 && !(size % 1024) && u < 5) {
		size /= 1024;
		u++;
	}
	return u < 0 ? xasprintf("%llu", (unsigned long long)size) :
	       xasprintf("%llu%c", (unsigned long long)size, units[u]);
}

static const char *attr_text(const char *value, int err, char **own)
{
	*own = render_attr_cell(value, err);
	return *own ? *own : "(empty)";
}

static void print_tsm_attrs(const struct pci_func *f)
{
	static const struct { const char *name; size_t value, has, err; } attrs[] = {
		{ "connect", offsetof(struct pci_func, connect), offsetof(struct pci_func, has_connect),
		  offsetof(struct pci_func, connect_err) },
		{ "dsm", offsetof(struct pci_func, dsm), offsetof(struct pci_func, has_dsm),
		  offsetof(struct pci_func, dsm_err) },
		{ "bound", offsetof(struct pci_func, bound), offsetof(struct pci_func, has_bound),
		  offsetof(struct pci_func, bound_err) },
		{ "lock", offsetof(struct pci_func, lock), offsetof(struct pci_func, has_lock),
		  offsetof(struct pci_func, lock_err) },
		{ "accept", offsetof(struct pci_func, accept), offsetof(struct pci_func, has_accept),
		  offsetof(struct pci_func, accept_err) },
	};
	const char *base = (const char *)f;
	char *state = render_func_state(f), *own;

	if (!f->tsm_dir) {
		line(1, "TSM: no tsm/ attribute group");
	} else if (f->tsm_err) {
		line(1, "TSM: tsm/ is there but its files cannot be read (%s)",
		     render_read_error_word(f->tsm_err));
	} else {
		line(1, "TSM: %s; state: %s", func_tsm(f) ? func_tsm(f) : "none", *state ? state : "-");
		for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
			if (!*(const bool *)(base + attrs[i].has))
				continue;
			line(2, "tsm/%s: %s", attrs[i].name,
			     attr_text(*(char *const *)(base + attrs[i].value),
				       *(const int *)(base + attrs[i].err), &own));
			free(own);
		}
	}
	if (f->has_authenticated) {
		line(2, "authenticated: %s", attr_text(f->authenticated, f->auth_err, &own));
		free(own);
	}
	free(state);
}

/* serial_number (ABI.md §7.4): root only, EIO when the DSN reads 0 at that moment */
static void print_serial(const struct pci_func *f)
{
	if (!f->has_serial)
		return;
	if (f->serial_number)
		line(1, "Serial number: %s", f->serial_number);
	else if (f->serial_err == -EACCES)
		line(1, "Serial number: needs root (serial_number is 0400)");
	else if (f->serial_err == -EIO)
		line(1, "Serial number: unreadable (EIO: the Device Serial Number reads 0 now)");
	else
		line(1, "Serial number: %s", f->serial_err == -EBADMSG ? "malformed" :
		     errno_symbol(-f->serial_err));
}

static void print_connect(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	char *why;

	if (!f->has_connect || f->connect_err || func_connected(f))
		return;
	why = snapshot_connect_blocker(snap, f);
	if (why)
		line(1, "Connect: would fail: %s", why);
	else
		line(1, "Connect: not connected; nothing in the tree rules a connect out");
	free(why);
}

static void print_doe(const struct pci_func *f)
{
	struct strbuf s = STRBUF_INIT;
	char *text;

	if (!f->doe_known) {
		line(1, "DOE: unknown (a DOE mailbox, but no doe_features/)");
		return;
	}
	for (size_t i = 0; i < f->nr_doe_features; i++) {
		const char *name = doe_feature_name(f->doe_features[i]);

		strbuf_join(&s, ", ", "%s%s%s%s", f->doe_features[i], name ? " (" : "",
			    name ? name : "", name ? ")" : "");
	}
	text = strbuf_take(&s);
	line(1, "DOE features: %s", *text ? text : "none (no DOE mailbox)");
	free(text);
}

static void print_bars(const struct pci_func *f)
{
	if (!f->bars_known) {
		line(1, "BARs: unknown (no resource file could be read)");
		return;
	}
	if (!f->nr_bars)
		line(1, "BARs: none");
	for (size_t i = 0; i < f->nr_bars; i++) {
		const struct pci_bar *b = &f->bars[i];
		bool io = b->flags & IORESOURCE_IO;
		char *size = size_text(b->end - b->start + 1);
		char *what = b->index == 6 ? xstrdup("Expansion ROM") :
			     xasprintf("Region %u: %s", b->index, io ? "I/O ports" : "Memory");

		line(1, "%s at 0x%llx (%s, %sprefetchable) [size=%s]", what,
		     (unsigned long long)b->start, b->flags & IORESOURCE_MEM_64 ? "64-bit" :
		     io ? "I/O" : "32-bit", b->flags & IORESOURCE_PREFETCH ? "" : "non-", size);
		free(what);
		free(size);
	}
}

/* The rest of the control fields Link and Selective blocks share (ABI.md §3). */
static void print_regs_more(int depth, const struct ide_stream_regs *r)
{
	line(depth, "PCRC%s, XT%s, Tx aggregation NPR %u PR %u CPL %u, partial header %u",
	     pm(r->pcrc), pm(r->xt), r->aggr_npr, r->aggr_pr, r->aggr_cpl, r->partial_header);
}

/* The control fields Link and Selective blocks share (ABI.md §3). */
static char *regs_text(const struct ide_stream_regs *r)
{
	char *alg = render_algorithm(r->algorithm), *state = render_state_word(r->state);
	char *s;

	s = xasprintf("enable%s, state %s, IDE_FAIL%s, Stream ID %u, TC %u, %s", pm(r->enabled),
		      state, pm(r->ide_fail), r->stream_id, r->tc, alg);
	free(alg);
	free(state);
	return s;
}

static void print_sel_block(unsigned int k, const struct ide_sel_stream *b)
{
	char *regs;

	line(2, "Selective stream %u at %#x: capability %08x, control %08x, status %08x%s", k,
	     b->offset, b->cap, b->regs.ctl, b->regs.status,
	     b->linux_skips ? " (Linux does not use it: its address associations differ)" : "");
	if (!b->decoded)
		return;
	regs = regs_text(&b->regs);
	line(3, "%s", regs);
	free(regs);
	print_regs_more(3, &b->regs);
	line(3, "default stream%s, TEE-limited%s, config requests%s", pm(b->default_stream),
	     pm(b->tee_limited), pm(b->cfg_requests));
	line(3, "RID association: %04x-%04x, valid%s, segment %02x", b->rid_base, b->rid_limit,
	     pm(b->rid_valid), b->rid_segment);
	for (unsigned int i = 0; i < b->nr_addr; i++)
		line(3, "Address association %u: 0x%llx-0x%llx, valid%s", i,
		     (unsigned long long)b->addr[i].base, (unsigned long long)b->addr[i].limit,
		     pm(b->addr[i].valid));
}

static void print_ide(const struct pci_func *f)
{
	const struct ide_cap *ide = &f->cfg.ide;
	char *algs, *why;

	if (!func_cfg_known(f)) {
		line(1, "IDE: unknown (config space %s)", func_cfg_needs_root(f) ?
		     "needs root beyond its first 64 bytes" : "could not be read");
		return;
	}
	if (!ide->present) {
		line(1, "IDE: none");
		return;
	}
	algs = render_algorithm(ide->algorithms);
	line(1, "IDE capability at %#x: capability %08x, control %08x%s", ide->offset, ide->cap,
	     ide->ctl, f->cfg.malformed & (CFG_MAL_IDE_BLOCKS | CFG_MAL_CAP_TRUNCATED) ?
	     " (malformed: its blocks do not fit)" : "");
	line(2, "Link IDE%s, Selective IDE%s, flow-through%s, partial header%s, aggregation%s, "
	     "PCRC%s", pm(ide->link_ide), pm(ide->selective_ide), pm(ide->flow_through),
	     pm(ide->partial_header), pm(ide->aggregation), pm(ide->pcrc));
	line(2, "IDE_KM%s, Selective IDE for config requests%s, TEE-limited stream%s, XT%s",
	     pm(ide->ide_km), pm(ide->sel_cfg), pm(ide->tee_limited), pm(ide->xt));
	line(2, "algorithms: %s; Link IDE TCs: %u; Selective IDE streams: %u; flow-through "
	     "enable%s", algs, ide->link_tcs, ide->sel_streams, pm(ide->ctl & 0x4));
	free(algs);
	if ((why = func_ide_unusable_reason(f)))
		line(2, "No usable IDE in the kernel: %s", why);
	free(why);
	for (unsigned int i = 0; i < ide->nr_link; i++) {
		char *regs = regs_text(&ide->link[i].regs);

		line(2, "Link stream %u at %#x: control %08x, status %08x", i, ide->link[i].offset,
		     ide->link[i].regs.ctl, ide->link[i].regs.status);
		line(3, "%s", regs);
		free(regs);
		print_regs_more(3, &ide->link[i].regs);
	}
	for (unsigned int k = 0; k < ide->nr_sel; k++)
		print_sel_block(k, &ide->sel[k]);
}

static void print_streams(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];
		const struct ide_sel_stream *ep = stream_partner_block(s, true);
		char *eps, *rps, *id;

		if (s->endpoint != f && s->root_port != f)
			continue;
		eps = render_partner_state(s, true);
		rps = render_partner_state(s, false);
		id = ep ? xasprintf(" (Stream ID %u)", ep->regs.stream_id) : xstrdup("");
		if (s->endpoint == f)
			line(1, "Stream %s/%s%s: endpoint here, block %u %s; root port %s, block %u %s",
			     s->hb->name, s->name, id, s->e, eps,
			     s->root_port ? s->root_port->bdf : "-", s->r, rps);
		else
			line(1, "Stream %s/%s%s: root port here, block %u %s; endpoint %s, block %u %s",
			     s->hb->name, s->name, id, s->r, rps, s->endpoint->bdf, s->e, eps);
		free(eps);
		free(rps);
		free(id);
	}
}

void render_device_detail_text(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	char *name = render_func_cell(f, FC_DEVICE), *vendor = render_func_cell(f, FC_VENDOR);
	const char *access = !f->cfg_read ? "not read" : f->cfg_err ? "unreadable" :
			     f->needs_root ? "needs root (the kernel gave this user 64 bytes)" :
			     f->cfg.malformed ? "malformed" : "full";
	const char *type = render_pcie_type(f), *kind = render_func_type(f);

	line(0, "%s %s", f->bdf, name ? name : "");
	if (f->ids_known)
		line(1, "Vendor: %s%s[%04x], device [%04x], class %06x", vendor ? vendor : "",
		     vendor ? " " : "", f->cfg.vendor_id, f->cfg.device_id, f->cfg.class_code);
	/* past the header unreadable: what the header (or the class file) says */
	line(1, "Type: %s%s, TEE-IO%s", kind ? kind : "unknown",
	     !type && kind ? " (by its header; its PCIe type is past it)" : "",
	     func_cfg_known(f) ? pm(f->cfg.tee_io) : "?");
	line(1, "Host bridge: %s, root port: %s", f->hb ? f->hb->name : "-",
	     f->root_port ? f->root_port->bdf : "-");
	line(1, "Driver: %s, IOMMU group: %s", f->driver ? f->driver : "none",
	     f->iommu_group ? f->iommu_group : "none");
	line(1, "Config space: %s", access);
	if (f->physfn)
		line(1, "SR-IOV: a VF of %s", f->physfn);
	else if (f->has_sriov)
		line(1, "SR-IOV: %u VF%s enabled, offset %u, stride %u", f->sriov_numvfs,
		     f->sriov_numvfs == 1 ? "" : "s",
		     f->sriov_offset, f->sriov_stride);
	print_serial(f);
	print_tsm_attrs(f);
	print_connect(snap, f);
	print_doe(f);
	print_bars(f);
	print_ide(f);
	print_streams(snap, f);
	free(name);
	free(vendor);
}

/* ---- JSON ---- */

static struct json_object *bars_json(const struct pci_func *f)
{
	struct json_object *arr;

	if (!f->bars_known)
		return NULL;
	arr = json_object_new_array();
	for (size_t i = 0; i < f->nr_bars; i++) {
		const struct pci_bar *b = &f->bars[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "index", js_u64(b->index));
		json_object_object_add(o, "type", js_str(b->flags & IORESOURCE_IO ? "io" : "memory"));
		json_object_object_add(o, "start", js_u64(b->start));
		json_object_object_add(o, "size", js_u64(b->end - b->start + 1));
		json_object_object_add(o, "is_64bit", js_bool(b->flags & IORESOURCE_MEM_64));
		json_object_object_add(o, "prefetchable", js_bool(b->flags & IORESOURCE_PREFETCH));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The control fields only devices -v shows: raw registers, XT, aggregation, partial header. */
static struct json_object *block_json(unsigned int index, uint16_t offset,
				      const struct ide_stream_regs *r)
{
	struct json_object *o = json_object_new_object(), *aggr = json_object_new_object();

	json_object_object_add(o, "index", js_u64(index));
	json_object_object_add(o, "offset", js_u64(offset));
	json_object_object_add(o, "control", js_u64(r->ctl));
	json_object_object_add(o, "status", js_u64(r->status));
	json_object_object_add(o, "xt", js_bool(r->xt));
	json_object_object_add(aggr, "npr", js_u64(r->aggr_npr));
	json_object_object_add(aggr, "pr", js_u64(r->aggr_pr));
	json_object_object_add(aggr, "cpl", js_u64(r->aggr_cpl));
	json_object_object_add(o, "aggregation", aggr);
	json_object_object_add(o, "partial_header", js_u64(r->partial_header));
	return o;
}

static struct json_object *ide_registers_json(const struct pci_func *f)
{
	const struct ide_cap *ide = &f->cfg.ide;
	struct json_object *o, *link, *sel;

	if (!func_cfg_known(f) || !ide->present)
		return NULL;
	o = json_object_new_object();
	link = json_object_new_array();
	sel = json_object_new_array();
	for (unsigned int i = 0; i < ide->nr_link; i++) {
		struct json_object *b = block_json(i, ide->link[i].offset, &ide->link[i].regs);
		const struct ide_stream_regs *r = &ide->link[i].regs;
		char *state = render_state_word(r->state), *alg = render_algorithm(r->algorithm);

		json_object_object_add(b, "enabled", js_bool(r->enabled));
		json_object_object_add(b, "state", js_str(state));
		json_object_object_add(b, "ide_fail", js_bool(r->ide_fail));
		json_object_object_add(b, "stream_id", js_u64(r->stream_id));
		json_object_object_add(b, "tc", js_u64(r->tc));
		json_object_object_add(b, "algorithm", js_str(alg));
		json_object_object_add(b, "pcrc", js_bool(r->pcrc));
		json_object_array_add(link, b);
		free(state);
		free(alg);
	}
	for (unsigned int k = 0; k < ide->nr_sel; k++) {
		const struct ide_sel_stream *s = &ide->sel[k];
		struct json_object *b = block_json(k, s->offset, &s->regs);

		json_object_object_add(b, "capability", js_u64(s->cap));
		json_object_object_add(b, "linux_skips", js_bool(s->linux_skips));
		render_sel_block_json(b, s->decoded ? s : NULL);
		json_object_array_add(sel, b);
	}
	json_object_object_add(o, "offset", js_u64(ide->offset));
	json_object_object_add(o, "capability", js_u64(ide->cap));
	json_object_object_add(o, "control", js_u64(ide->ctl));
	json_object_object_add(o, "link", link);
	json_object_object_add(o, "selective", sel);
	return o;
}

static struct json_object *streams_json(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];
		struct json_object *o;

		if (s->endpoint != f && s->root_port != f)
			continue;
		o = render_stream_brief_json(s);
		json_object_object_add(o, "role", js_str(s->endpoint == f ? "endpoint" : "root_port"));
		json_object_object_add(o, "endpoint", js_str(s->endpoint->bdf));
		json_object_object_add(o, "root_port", js_str(s->root_port ? s->root_port->bdf : NULL));
		json_object_object_add(o, "e", js_u64(s->e));
		json_object_object_add(o, "r", js_u64(s->r));
		json_object_array_add(arr, o);
	}
	return arr;
}

struct json_object *render_device_detail_json(const struct tsm_snapshot *snap,
					      const struct pci_func *f)
{
	struct json_object *o = json_object_new_object(), *sriov = NULL;
	unsigned long group;
	char *why = f->has_connect && !f->connect_err && !func_connected(f) ?
		    snapshot_connect_blocker(snap, f) : NULL;

	if (f->has_sriov && !f->physfn) {
		sriov = json_object_new_object();
		json_object_object_add(sriov, "numvfs", js_u64(f->sriov_numvfs));
		json_object_object_add(sriov, "offset", js_u64(f->sriov_offset));
		json_object_object_add(sriov, "stride", js_u64(f->sriov_stride));
	}
	json_object_object_add(o, "serial_number", js_str(f->serial_number));
	json_object_object_add(o, "serial_number_error", f->serial_err ?
			       js_str(render_read_error_word(f->serial_err)) : NULL);
	json_object_object_add(o, "iommu_group", f->iommu_group &&
			       !parse_ulong(f->iommu_group, &group) ? js_u64(group) : NULL);
	json_object_object_add(o, "bars", bars_json(f));
	json_object_object_add(o, "physfn", js_str(f->physfn));
	json_object_object_add(o, "sriov", sriov);
	json_object_object_add(o, "connect_blocker", js_str(why));
	free(why);
	why = func_ide_unusable_reason(f);
	json_object_object_add(o, "ide_unusable", js_str(why));
	json_object_object_add(o, "ide_registers", ide_registers_json(f));
	json_object_object_add(o, "streams", streams_json(snap, f));
	free(why);
	return o;
}

struct json_object *render_device_detail_item_json(const struct tsm_snapshot *snap,
						   const void *item)
{
	return render_device_json(item, render_device_detail_json(snap, item));
}
