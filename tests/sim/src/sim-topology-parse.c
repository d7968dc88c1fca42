// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-topology-parse.c: reads a topology JSON file into the model.
 * Every object accepts only the keys documented in README.md, so a typo
 * is an error rather than a silently ignored knob; each object's keys are
 * one field_spec table, from which they are both checked and read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct loader {
	struct sim_model *m;
	char *err;
};

static int fail(struct loader *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct loader *L, const char *fmt, ...)
{
	va_list ap;

	if (L->err)
		return -EINVAL;
	va_start(ap, fmt);
	if (vasprintf(&L->err, fmt, ap) < 0)
		L->err = NULL;
	va_end(ap);
	return -EINVAL;
}

#define APPEND(arr, n, item)                                                 \
	do {                                                                 \
		(arr) = sim_xrealloc((arr), (n) + 1, sizeof(*(arr)));       \
		(arr)[(n)++] = (item);                                       \
	} while (0)

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Integers may be JSON numbers or strings such as "0x1022". */
static int get_u64(struct loader *L, json_object *o, const char *key,
		   uint64_t def, uint64_t max, uint64_t *out, const char *what)
{
	json_object *v = get(o, key);

	*out = def;
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		int64_t x = json_object_get_int64(v);

		if (x < 0)
			return fail(L, "%s: %s must not be negative", what, key);
		*out = (uint64_t)x;
	} else if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		char *end;

		errno = 0;
		*out = strtoull(s, &end, 0);
		if (errno || end == s || *end)
			return fail(L, "%s: %s: not a number: \"%s\"", what, key, s);
	} else {
		return fail(L, "%s: %s must be a number or a numeric string", what,
			    key);
	}
	if (*out > max)
		return fail(L, "%s: %s out of range (max %#llx)", what, key,
			    (unsigned long long)max);
	return 0;
}

/* @key's value in *v (NULL when absent); an error when it is not of @type. */
static int get_typed(struct loader *L, json_object *o, const char *key,
		     json_type type, const char *want, json_object **v,
		     const char *what)
{
	*v = get(o, key);
	if (*v && !json_object_is_type(*v, type))
		return fail(L, "%s: %s must be %s", what, key, want);
	return 0;
}

static int get_bool(struct loader *L, json_object *o, const char *key,
		    bool def, bool *out, const char *what)
{
	json_object *v;
	int rc = get_typed(L, o, key, json_type_boolean, "true or false", &v,
			   what);

	*out = v && !rc ? json_object_get_boolean(v) : def;
	return rc;
}

static int get_str(struct loader *L, json_object *o, const char *key,
		   const char **out, const char *what)
{
	json_object *v;
	int rc = get_typed(L, o, key, json_type_string, "a string", &v, what);

	*out = v && !rc ? json_object_get_string(v) : NULL;
	return rc;
}

static const struct {
	const char *name;
	int value;
} errnos[] = {
	{ "EPERM", EPERM },     { "ENOENT", ENOENT },	{ "EINTR", EINTR },
	{ "EIO", EIO },		{ "ENXIO", ENXIO },	{ "EAGAIN", EAGAIN },
	{ "ENOMEM", ENOMEM },	{ "EACCES", EACCES },	{ "EFAULT", EFAULT },
	{ "EBUSY", EBUSY },	{ "EEXIST", EEXIST },	{ "ENODEV", ENODEV },
	{ "EINVAL", EINVAL },	{ "ENOSPC", ENOSPC },	{ "EPROTO", EPROTO },
	{ "ETIMEDOUT", ETIMEDOUT }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "ECONNRESET", ECONNRESET }, { "ENOTTY", ENOTTY },
	{ "EFBIG", EFBIG },	{ "ERANGE", ERANGE },	{ "ENOSYS", ENOSYS },
};

static int parse_errno(struct loader *L, json_object *v, int *out,
		       const char *what)
{
	if (json_object_is_type(v, json_type_int)) {
		*out = json_object_get_int(v);
		if (*out <= 0 || *out > 4095)
			return fail(L, "%s: errno out of range", what);
		return 0;
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);

		for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
			if (!strcmp(errnos[i].name, s)) {
				*out = errnos[i].value;
				return 0;
			}
		return fail(L, "%s: unknown errno name \"%s\"", what, s);
	}
	return fail(L, "%s: errno must be a name like \"EIO\" or a number", what);
}

static int parse_partner(struct loader *L, const char *s, bool *rp, bool *ep,
			 const char *what)
{
	*rp = !strcmp(s, "rp") || !strcmp(s, "both");
	*ep = !strcmp(s, "ep") || !strcmp(s, "both");
	if (!*rp && !*ep)
		return fail(L, "%s: partner is \"rp\", \"ep\" or \"both\"", what);
	return 0;
}

/*
 * An object's keys, one table each: the key check knows no other list, and
 * the scalars are read from it in table order, which is the order their
 * errors have always been reported in.
 */
enum field_type {
	F_OTHER,	/* an array, object or mixed value its parser reads itself */
	F_NUM,		/* get_u64() into an unsigned (or non-negative long) of any width */
	F_BOOL,
	F_STR,		/* const char * into the JSON, NULL when absent */
	F_ERRNO,	/* parse_errno() into an int, left alone when absent */
	F_PARTNER,	/* "rp", "ep" or "both" into a bool[2] (rp, ep), false when absent */
};

struct field_spec {
	const char *key;
	enum field_type type;
	/* 0: read by load_fields(); later ones by read_fields() once what they follow is checked */
	unsigned char step;
	/* the default is what the caller left in the field (known only at run time) */
	bool preset;
	uint64_t def, max;
	size_t offset, size;
};

#define AT(type, member) .offset = offsetof(type, member), .size = sizeof(((type *)0)->member)
#define NFIELDS(spec) (sizeof(spec) / sizeof((spec)[0]))

/* Reject keys not in @spec. */
static int check_fields(struct loader *L, json_object *o, const char *what,
			const struct field_spec *spec, size_t n)
{
	if (!json_object_is_type(o, json_type_object))
		return fail(L, "%s: expected an object", what);
	json_object_object_foreach(o, key, val) {
		bool ok = false;

		(void)val;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(spec[i].key, key))
				ok = true;
		if (!ok)
			return fail(L, "%s: unknown key \"%s\"", what, key);
	}
	return 0;
}

static uint64_t num_field(const void *p, size_t size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return *(const uint16_t *)p;
	case 4:
		return *(const uint32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

static bool fits(uint64_t v, size_t size)
{
	return size >= 8 || !(v >> (8 * size));
}

/* Whether @f's field can hold its type, bound and default. */
static bool field_ok(const struct field_spec *f)
{
	switch (f->type) {
	case F_NUM:
		return (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
		       fits(f->max, f->size) && (f->preset || fits(f->def, f->size));
	case F_BOOL:
		return f->size == sizeof(bool);
	case F_STR:
		return f->size == sizeof(const char *);
	case F_ERRNO:
		return f->size == sizeof(int);
	case F_PARTNER:
		return f->size == 2 * sizeof(bool);
	default:
		return true;
	}
}

static void set_num_field(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(uint64_t *)p = v;
	}
}

static int read_field(struct loader *L, json_object *o, const char *what,
		      const struct field_spec *f, void *dest)
{
	char *p = (char *)dest + f->offset;
	json_object *v;
	const char *s;
	uint64_t n;
	bool b;
	int rc;

	/* a table bug would otherwise truncate or overrun a field silently */
	if (!field_ok(f))
		abort();
	switch (f->type) {
	case F_NUM:
		rc = get_u64(L, o, f->key, f->preset ? num_field(p, f->size) : f->def, f->max, &n,
			     what);
		if (!rc)
			set_num_field(p, f->size, n);
		return rc;
	case F_BOOL:
		rc = get_bool(L, o, f->key, f->preset ? *(bool *)p : (bool)f->def, &b, what);
		*(bool *)p = b;
		return rc;
	case F_STR:
		return get_str(L, o, f->key, (const char **)p, what);
	case F_ERRNO:
		v = get(o, f->key);
		return v ? parse_errno(L, v, (int *)p, what) : 0;
	case F_PARTNER:
		rc = get_str(L, o, f->key, &s, what);
		((bool *)p)[0] = ((bool *)p)[1] = false;
		return !rc && s ? parse_partner(L, s, (bool *)p, (bool *)p + 1, what) : rc;
	default:
		return 0;
	}
}

/* Read @spec's keys of @step (in table order) from @o into @dest; the first error stops. */
static int read_fields(struct loader *L, json_object *o, const char *what,
		       const struct field_spec *spec, size_t n, unsigned step, void *dest)
{
	for (size_t i = 0; i < n; i++) {
		int rc = spec[i].step == step ? read_field(L, o, what, &spec[i], dest) : 0;

		if (rc)
			return rc;
	}
	return 0;
}

/* Check @o's keys against @spec, then read its step-0 keys into @dest. */
static int load_fields(struct loader *L, json_object *o, const char *what,
		       const struct field_spec *spec, size_t n, void *dest)
{
	return check_fields(L, o, what, spec, n) ?: read_fields(L, o, what, spec, n, 0, dest);
}

static int parse_type(struct loader *L, const char *s, int *out,
		      const char *what)
{
	static const struct {
		const char *name;
		int type;
	} types[] = {
		{ "endpoint", PT_ENDPOINT },
		{ "legacy_endpoint", PT_LEGACY_ENDPOINT },
		{ "root_port", PT_ROOT_PORT },
		{ "upstream_port", PT_UPSTREAM },
		{ "downstream_port", PT_DOWNSTREAM },
		{ "pcie_pci_bridge", PT_PCIE_PCI_BRIDGE },
		{ "rciep", PT_RCIEP },
		{ "rcec", PT_RCEC },
		{ "pci", PT_CONVENTIONAL },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, s)) {
			*out = types[i].type;
			return 0;
		}
	return fail(L, "%s: unknown type \"%s\"", what, s);
}

static int parse_bdf(const char *s, unsigned *dom, unsigned *bus,
		     unsigned *slot, unsigned *fn)
{
	char tail;

	if (sscanf(s, "%x:%x:%x.%x%c", dom, bus, slot, fn, &tail) != 4)
		return -EINVAL;
	if (*bus > 0xff || *slot > 0x1f || *fn > 7 || *dom > 0xffffff)
		return -EINVAL;
	return 0;
}

static char *bdf_name(unsigned dom, unsigned bus, unsigned slot, unsigned fn)
{
	return sim_xasprintf("%04x:%02x:%02x.%x", dom, bus, slot, fn);
}

static const struct field_spec window_fields[] = {
	{ "base", F_NUM, .max = UINT64_MAX, AT(struct sim_window, base) },
	{ "limit", F_NUM, .max = UINT64_MAX, AT(struct sim_window, limit) },
};

static int parse_window(struct loader *L, json_object *o, const char *key,
			struct sim_window *w, const char *what)
{
	json_object *v = get(o, key);
	char *wh;
	int rc;

	w->present = false;
	if (!v)
		return 0;
	wh = sim_xasprintf("%s: %s", what, key);
	rc = load_fields(L, v, wh, window_fields, NFIELDS(window_fields), w);
	if (!rc && (w->limit < w->base || (w->base & 0xfffff) ||
		    (w->limit & 0xfffff) != 0xfffff))
		rc = fail(L, "%s: window must be 1 MiB aligned (limit ends in fffff)",
			  wh);
	free(wh);
	w->present = rc == 0;
	return rc;
}

struct ide_raw {
	uint64_t cap, algorithms, link_tcs, streams, addr_assoc;
	bool link, selective, flow_through, partial_header, aggregation, pcrc, ide_km, sel_cfg,
		tee_limited, xt;
};

/* step 1: the capability's fields, read only without "cap"; step 2: addr_assoc as one number */
static const struct field_spec ide_fields[] = {
	{ "cap", F_NUM, .def = UINT64_MAX, .max = UINT64_MAX, AT(struct ide_raw, cap) },
	{ "link", F_BOOL, .step = 1, AT(struct ide_raw, link) },
	{ "selective", F_BOOL, .step = 1, .def = true, AT(struct ide_raw, selective) },
	{ "flow_through", F_BOOL, .step = 1, AT(struct ide_raw, flow_through) },
	{ "partial_header", F_BOOL, .step = 1, AT(struct ide_raw, partial_header) },
	{ "aggregation", F_BOOL, .step = 1, AT(struct ide_raw, aggregation) },
	{ "pcrc", F_BOOL, .step = 1, AT(struct ide_raw, pcrc) },
	{ "ide_km", F_BOOL, .step = 1, .def = true, AT(struct ide_raw, ide_km) },
	{ "sel_cfg", F_BOOL, .step = 1, AT(struct ide_raw, sel_cfg) },
	{ "tee_limited", F_BOOL, .step = 1, AT(struct ide_raw, tee_limited) },
	{ "xt", F_BOOL, .step = 1, AT(struct ide_raw, xt) },
	{ "algorithms", F_NUM, .step = 1, .max = 0x1f, AT(struct ide_raw, algorithms) },
	{ "link_tcs", F_NUM, .step = 1, .def = 1, .max = 8, AT(struct ide_raw, link_tcs) },
	{ "streams", F_NUM, .step = 1, .def = 1, .max = 256, AT(struct ide_raw, streams) },
	{ "addr_assoc", F_NUM, .step = 2, .def = 1, .max = SIM_MAX_ASSOC,
	  AT(struct ide_raw, addr_assoc) },
};

static int parse_ide(struct loader *L, json_object *o, struct sim_dev *d,
		     const char *what)
{
	struct sim_dev_ide *ide = &d->ide;
	struct ide_raw r = { 0 };
	json_object *av;
	char *wh = sim_xasprintf("%s: ide", what);
	int rc;

	rc = load_fields(L, o, wh, ide_fields, NFIELDS(ide_fields), &r);
	if (rc)
		goto out;
	if (r.cap != UINT64_MAX) {
		if (r.cap > 0xffffffffull) {
			rc = fail(L, "%s: cap must be 32 bits", wh);
			goto out;
		}
		ide->cap = (uint32_t)r.cap;
	} else {
		rc = read_fields(L, o, wh, ide_fields, NFIELDS(ide_fields), 1, &r);
		if (rc)
			goto out;
		if (!r.link_tcs || !r.streams) {
			rc = fail(L, "%s: link_tcs and streams start at 1", wh);
			goto out;
		}
		ide->cap = r.link | r.selective << 1 | r.flow_through << 2 | r.partial_header << 3 |
			   r.aggregation << 4 | r.pcrc << 5 | r.ide_km << 6 | r.sel_cfg << 7 |
			   (uint32_t)r.algorithms << 8 | (uint32_t)(r.link_tcs - 1) << 13 |
			   (uint32_t)(r.streams - 1) << 16 | (uint32_t)r.tee_limited << 24 |
			   (uint32_t)r.xt << 25;
	}
	ide->present = true;
	ide->nr_link = (ide->cap & 1) ? ((ide->cap >> 13) & 7) + 1 : 0;
	ide->nr_sel = (ide->cap & 2) ? ((ide->cap >> 16) & 0xff) + 1 : 0;
	ide->sel = sim_xcalloc(ide->nr_sel, sizeof(*ide->sel));
	av = get(o, "addr_assoc");
	if (av && json_object_is_type(av, json_type_array)) {
		if (json_object_array_length(av) != ide->nr_sel) {
			rc = fail(L, "%s: addr_assoc array needs one entry per Selective block (%u)",
				  wh, ide->nr_sel);
			goto out;
		}
		for (unsigned i = 0; i < ide->nr_sel; i++) {
			json_object *e = json_object_array_get_idx(av, i);

			if (!json_object_is_type(e, json_type_int) ||
			    json_object_get_int(e) < 0 ||
			    json_object_get_int(e) > SIM_MAX_ASSOC) {
				rc = fail(L, "%s: addr_assoc entries are 0..15", wh);
				goto out;
			}
			ide->sel[i].nr_assoc = json_object_get_int(e);
		}
	} else {
		rc = read_fields(L, o, wh, ide_fields, NFIELDS(ide_fields), 2, &r);
		if (rc)
			goto out;
		for (unsigned i = 0; i < ide->nr_sel; i++)
			ide->sel[i].nr_assoc = (unsigned)r.addr_assoc;
	}
out:
	free(wh);
	return rc;
}

static int parse_state(struct loader *L, const char *s, int *out,
		       const char *what)
{
	if (!strcmp(s, "secure"))
		*out = STATE_SECURE;
	else if (!strcmp(s, "insecure"))
		*out = STATE_INSECURE;
	else
		return fail(L, "%s: state is \"secure\" or \"insecure\"", what);
	return 0;
}

struct faults_raw {
	struct sim_dev_faults f;
	const char *connect_after;
	bool insecure[2], ide_fail[2], dropped[2];	/* rp, ep */
};

/* step 1: connect_after, checked against connect_errno before the rest is read */
static const struct field_spec faults_fields[] = {
	{ "connect_errno", F_ERRNO, AT(struct faults_raw, f.connect_errno) },
	{ "lock_errno", F_ERRNO, AT(struct faults_raw, f.lock_errno) },
	{ "accept_errno", F_ERRNO, AT(struct faults_raw, f.accept_errno) },
	{ "connect_after", F_STR, .step = 1, AT(struct faults_raw, connect_after) },
	{ "insecure", F_PARTNER, .step = 2, AT(struct faults_raw, insecure) },
	{ "ide_fail", F_PARTNER, .step = 2, AT(struct faults_raw, ide_fail) },
	{ "dropped", F_PARTNER, .step = 2, AT(struct faults_raw, dropped) },
	{ "vanish_after_writes", F_NUM, .step = 2, .max = 1000000,
	  AT(struct faults_raw, f.vanish_after_writes) },
	{ "vanish_after_opens", F_NUM, .step = 2, .max = 1000000,
	  AT(struct faults_raw, f.vanish_after_opens) },
	{ "write_delay_ms", F_NUM, .step = 2, .max = 600000,
	  AT(struct faults_raw, f.write_delay_ms) },
	{ "store_manually", F_BOOL, .step = 2, AT(struct faults_raw, f.store_manually) },
	{ "spdm_manually", F_BOOL, .step = 2, AT(struct faults_raw, f.spdm_manually) },
	{ "stream_alloc_fail", F_BOOL, .step = 2, AT(struct faults_raw, f.stream_alloc_fail) },
	{ "seamcall_fail", F_BOOL, .step = 2, AT(struct faults_raw, f.seamcall_fail) },
};

static int parse_stage(struct loader *L, const char *s, enum sim_fault_stage *out,
		       const char *what)
{
	if (!strcmp(s, "alloc"))
		*out = STAGE_ALLOC;
	else if (!strcmp(s, "register"))
		*out = STAGE_REGISTER;
	else if (!strcmp(s, "setup"))
		*out = STAGE_SETUP;
	else if (!strcmp(s, "enable"))
		*out = STAGE_ENABLE;
	else
		return fail(L, "%s: connect_after is alloc, register, setup or enable", what);
	return 0;
}

static int parse_faults(struct loader *L, json_object *o, struct sim_dev *d,
			const char *what)
{
	struct faults_raw r = { .f = d->faults };
	char *wh = sim_xasprintf("%s: faults", what);
	int rc;

	rc = load_fields(L, o, wh, faults_fields, NFIELDS(faults_fields), &r);
	if (!rc && r.f.connect_errno)
		r.f.connect_after = STAGE_SETUP;
	if (!rc)
		rc = read_fields(L, o, wh, faults_fields, NFIELDS(faults_fields), 1, &r);
	if (!rc && r.connect_after)
		rc = !r.f.connect_errno ? fail(L, "%s: connect_after needs connect_errno", wh) :
		     parse_stage(L, r.connect_after, &r.f.connect_after, wh);
	if (!rc)
		rc = read_fields(L, o, wh, faults_fields, NFIELDS(faults_fields), 2, &r);
	if (r.insecure[0])
		r.f.rp_state = STATE_INSECURE;
	if (r.insecure[1])
		r.f.ep_state = STATE_INSECURE;
	r.f.rp_ide_fail = r.ide_fail[0];
	r.f.ep_ide_fail = r.ide_fail[1];
	r.f.rp_dropped = r.dropped[0];
	r.f.ep_dropped = r.dropped[1];
	d->faults = r.f;
	free(wh);
	return rc;
}

static int want_array(struct loader *L, json_object *v, const char *what)
{
	if (!json_object_is_type(v, json_type_array))
		return fail(L, "%s: must be an array", what);
	return 0;
}

struct preset_raw {
	uint64_t block, stream_id, rid_base, rid_limit;
	const char *state;
	bool ide_fail, is_default, tee_limited, cfg;
};

/* step 1 once the state is checked; preset: rid_base the root port's RID, rid_limit rid_base */
static const struct field_spec preset_fields[] = {
	{ "block", F_NUM, .max = SIM_MAX_BLOCKS - 1, AT(struct preset_raw, block) },
	{ "stream_id", F_NUM, .max = 255, AT(struct preset_raw, stream_id) },
	{ "state", F_STR, AT(struct preset_raw, state) },
	{ "ide_fail", F_BOOL, .step = 1, AT(struct preset_raw, ide_fail) },
	{ "default", F_BOOL, .step = 1, AT(struct preset_raw, is_default) },
	{ "tee_limited", F_BOOL, .step = 1, AT(struct preset_raw, tee_limited) },
	{ "cfg", F_BOOL, .step = 1, AT(struct preset_raw, cfg) },
	{ "rid_base", F_NUM, .step = 1, .preset = true, .max = 0xffff,
	  AT(struct preset_raw, rid_base) },
	{ "rid_limit", F_NUM, .step = 2, .preset = true, .max = 0xffff,
	  AT(struct preset_raw, rid_limit) },
};

static int parse_presets(struct loader *L, json_object *arr, struct sim_dev *d,
			 const char *what)
{
	char *wh = sim_xasprintf("%s: preset_streams", what);
	int rc = want_array(L, arr, wh);

	for (size_t i = 0; !rc && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct preset_raw r = { .rid_base = d->parent ? sim_dev_rid(d->parent) : 0 };
		struct sim_sel_block *b;
		int state = STATE_SECURE;

		rc = load_fields(L, o, wh, preset_fields, NFIELDS(preset_fields), &r);
		if (!rc && r.state)
			rc = parse_state(L, r.state, &state, wh);
		if (!rc)
			rc = read_fields(L, o, wh, preset_fields, NFIELDS(preset_fields), 1, &r);
		r.rid_limit = r.rid_base;
		if (!rc)
			rc = read_fields(L, o, wh, preset_fields, NFIELDS(preset_fields), 2, &r);
		if (rc)
			goto out;
		if (!d->ide.present || r.block >= d->ide.nr_sel) {
			rc = fail(L, "%s: block %llu does not exist", wh,
				  (unsigned long long)r.block);
			goto out;
		}
		/* the hardware state enumeration finds: an enabled block */
		b = &d->ide.sel[r.block];
		b->ctl = (uint32_t)r.stream_id << 24 | 1u | (uint32_t)r.is_default << 22 |
			 (uint32_t)r.tee_limited << 23 | (uint32_t)r.cfg << 9;
		b->sts = (uint32_t)state | (r.ide_fail ? 1u << 31 : 0);
		b->rid1 = (uint32_t)r.rid_limit << 8;
		b->rid2 = 1u | (uint32_t)r.rid_base << 8;
	}
out:
	free(wh);
	return rc;
}

struct connected_raw {
	const char *tsm, *stream;
};

static const struct field_spec connected_fields[] = {
	{ "tsm", F_STR, AT(struct connected_raw, tsm) },
	{ "stream", F_STR, AT(struct connected_raw, stream) },
};

static int parse_connected(struct loader *L, json_object *v, struct sim_dev *d,
			   const char *what)
{
	struct connected_raw r = { 0 };
	int rc = 0;

	d->boot_h = d->boot_r = d->boot_e = -1;
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_string)) {
		r.tsm = json_object_get_string(v);
	} else {
		rc = load_fields(L, v, what, connected_fields, NFIELDS(connected_fields), &r);
		if (rc)
			return rc;
	}
	if (!r.tsm || strncmp(r.tsm, "tsm", 3))
		return fail(L, "%s: connected needs a TSM name like \"tsm0\"", what);
	if (r.stream) {
		unsigned h, rp, e;
		char tail;

		if (sscanf(r.stream, "%u.%u.%u%c", &h, &rp, &e, &tail) != 3 ||
		    h >= SIM_POOL_MAX || rp >= SIM_MAX_BLOCKS ||
		    e >= SIM_MAX_BLOCKS)
			return fail(L, "%s: stream must be \"H.R.E\"", what);
		d->boot_h = h;
		d->boot_r = rp;
		d->boot_e = e;
	}
	d->boot_connect = sim_xstrdup(r.tsm);
	return 0;
}

struct bar_raw {
	uint64_t index, base, size;
	bool is64, prefetch;
};

/* index defaults to the entry's place in the array (preset) */
static const struct field_spec bar_fields[] = {
	{ "index", F_NUM, .preset = true, .max = 5, AT(struct bar_raw, index) },
	{ "base", F_NUM, .max = UINT64_MAX, AT(struct bar_raw, base) },
	{ "size", F_NUM, .def = 0x1000, .max = UINT64_MAX, AT(struct bar_raw, size) },
	{ "64bit", F_BOOL, AT(struct bar_raw, is64) },
	{ "prefetchable", F_BOOL, AT(struct bar_raw, prefetch) },
};

static int parse_bars(struct loader *L, json_object *arr, struct sim_dev *d,
		      const char *what)
{
	char *wh = sim_xasprintf("%s: bars", what);
	int rc = want_array(L, arr, wh);

	for (size_t i = 0; !rc && i < json_object_array_length(arr); i++) {
		struct bar_raw r = { .index = i };

		rc = load_fields(L, json_object_array_get_idx(arr, i), wh, bar_fields,
				 NFIELDS(bar_fields), &r);
		if (rc)
			goto out;
		d->bars[r.index] = (struct sim_bar){ .present = true, .is64 = r.is64,
						     .prefetch = r.prefetch, .base = r.base,
						     .size = r.size };
	}
out:
	free(wh);
	return rc;
}

/* One mailbox's features, "VVVV:TT" each; discovery is always there (pci_doe_cache_features()). */
static int parse_mailbox(struct loader *L, json_object *arr, struct sim_dev *d,
			 const char *what)
{
	struct sim_doe_mb *mb;
	bool disc = false;

	/* in the device before it is filled: a bad entry below frees it with the model */
	APPEND(d->mbs, d->nr_mbs, (struct sim_doe_mb){ 0 });
	mb = &d->mbs[d->nr_mbs - 1];
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		unsigned vid, type;
		char tail, *f;
		const char *s;

		if (!json_object_is_type(e, json_type_string))
			return fail(L, "%s: doe entries are strings", what);
		s = json_object_get_string(e);
		if (sscanf(s, "%4x:%2x%c", &vid, &type, &tail) != 2)
			return fail(L, "%s: bad DOE feature \"%s\"", what, s);
		/* sysfs names use lower-case %04lx:%02lx */
		f = sim_xasprintf("%04x:%02x", vid, type);
		disc |= !strcmp(f, "0001:00");
		APPEND(mb->feat, mb->nr_feat, f);
	}
	if (!disc)
		APPEND(mb->feat, mb->nr_feat, sim_xasprintf("0001:00"));
	/* doe_features/ shows each feature once: a second mailbox's is EEXIST, skipped */
	for (size_t i = 0; i < mb->nr_feat; i++)
		if (!sim_dev_has_doe(d, mb->feat[i]))
			APPEND(d->doe, d->nr_doe, sim_xstrdup(mb->feat[i]));
	return 0;
}

/* "doe": one mailbox's features, or an array of mailboxes (config order) */
static int parse_doe(struct loader *L, json_object *arr, struct sim_dev *d,
		     const char *what)
{
	size_t n;

	if (!json_object_is_type(arr, json_type_array))
		return fail(L, "%s: doe must be an array of \"VVVV:TT\" or of such arrays", what);
	n = json_object_array_length(arr);
	if (!n || !json_object_is_type(json_object_array_get_idx(arr, 0), json_type_array))
		return n ? parse_mailbox(L, arr, d, what) : 0;
	if (n > 8)
		return fail(L, "%s: at most 8 DOE mailboxes", what);
	for (size_t i = 0; i < n; i++) {
		json_object *mb = json_object_array_get_idx(arr, i);
		int rc;

		if (!json_object_is_type(mb, json_type_array))
			return fail(L, "%s: doe mailboxes are arrays of \"VVVV:TT\"", what);
		if ((rc = parse_mailbox(L, mb, d, what)))
			return rc;
	}
	return 0;
}

static int parse_dev(struct loader *L, json_object *o, struct sim_host_bridge *hb,
		     struct sim_dev *parent);

static bool ev_file_name(const char *n)
{
	return *n && strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789-.") == strlen(n) && *n != '.';
}

/* KEY: true/false (generated or none), or the name of a file gen-evidence built. */
static int bool_or_file(struct loader *L, json_object *o, const char *key, bool *on, char **file,
			const char *what)
{
	json_object *v = get(o, key);

	*on = false;
	if (v && json_object_is_type(v, json_type_string)) {
		if (!ev_file_name(json_object_get_string(v)))
			return fail(L, "%s: evidence %s: a file name ([a-z0-9.-]) or true/false", what, key);
		*file = sim_xstrdup(json_object_get_string(v));
		*on = true;
		return 0;
	}
	return get_bool(L, o, key, false, on, what);
}

static const struct {
	const char *name;
	enum sim_ev_report kind;
} report_kinds[] = {
	{ "response", SIM_REPORT_RESPONSE },
	{ "range-outside-bar", SIM_REPORT_OUTSIDE_BAR },
	{ "msix-misplaced", SIM_REPORT_MSIX_MISPLACED },
	{ "other-function", SIM_REPORT_OTHER_FUNCTION },
	{ "reserved-bits", SIM_REPORT_RESERVED_BITS },
	{ "overlap", SIM_REPORT_OVERLAP },
	{ "moved", SIM_REPORT_MOVED },
};

/* "report": true (the BARs), false, the whole TDISP response, or a broken one for verifiers to refuse. */
static int parse_report_kind(struct loader *L, json_object *o, struct sim_ev_spec *s, const char *what)
{
	json_object *v = get(o, "report");
	const char *k;

	if (!v || !json_object_is_type(v, json_type_string))
		return get_bool(L, o, "report", false, &s->report, what);
	k = json_object_get_string(v);
	s->report = true;
	for (size_t i = 0; i < sizeof(report_kinds) / sizeof(report_kinds[0]); i++) {
		if (!strcmp(k, report_kinds[i].name)) {
			s->report_kind = report_kinds[i].kind;
			return 0;
		}
	}
	return fail(L, "%s: evidence report: true, false, \"response\", \"range-outside-bar\", "
		    "\"msix-misplaced\", \"other-function\", \"reserved-bits\", \"overlap\" or \"moved\"", what);
}

struct evidence_raw {
	const char *firmware, *form, *signature, *signer;
	unsigned truncate;
};

/* vca, measurements and report are a bool or a name, read first; the rest then (step 1) */
static const struct field_spec evidence_fields[] = {
	{ "vca", .type = F_OTHER },
	{ "measurements", .type = F_OTHER },
	{ "report", .type = F_OTHER },
	{ "firmware", F_STR, .step = 1, AT(struct evidence_raw, firmware) },
	{ "form", F_STR, .step = 1, AT(struct evidence_raw, form) },
	{ "signature", F_STR, .step = 1, AT(struct evidence_raw, signature) },
	{ "signer", F_STR, .step = 1, AT(struct evidence_raw, signer) },
	{ "truncate", F_NUM, .step = 1, .max = 65535, AT(struct evidence_raw, truncate) },
	{ "certs", .type = F_OTHER },
};

/* NAME's index in NAMES (N of them), or -1. */
static int name_index(const char *name, const char *const *names, int n)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* "form", "signature" and "signer": how the measurements are handed out and signed. */
static int parse_signing(struct loader *L, const struct evidence_raw *r, struct sim_ev_spec *s,
			 const char *what)
{
	static const char *const forms[] = { "response", "exchange", "transcript" };
	static const char *const sigs[] = { "good", "zero", "none", "replay" };
	int f = r->form ? name_index(r->form, forms, 3) : SIM_FORM_RESPONSE;
	int g = r->signature ? name_index(r->signature, sigs, 4) : SIM_SIG_GOOD;

	if (f < 0)
		return fail(L, "%s: evidence form is \"response\", \"exchange\" or \"transcript\"", what);
	if (g < 0)
		return fail(L, "%s: evidence signature is \"good\", \"zero\", \"none\" or \"replay\"",
			    what);
	if (r->signer && (!*r->signer ||
			  strspn(r->signer, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(r->signer)))
		return fail(L, "%s: evidence signer: a chain name ([a-z0-9-])", what);
	s->form = (enum sim_ev_form)f;
	s->sig = (enum sim_ev_sig)g;
	s->signer = r->signer ? sim_xstrdup(r->signer) : NULL;
	s->truncate = r->truncate;
	return 0;
}

/*
 * "evidence": what the device's provider reports once it has a context
 * (sim-evidence.c): "certs" (per slot a chain name gen-cert-chain built,
 * or null), "vca", "measurements" (true or a gen-evidence file's name),
 * "report" (true or a broken kind), "firmware", and how the measurements
 * are handed out and signed: "form", "signature", "signer", "truncate".
 */
static int parse_evidence(struct loader *L, json_object *o, struct sim_dev *d, const char *what)
{
	struct sim_ev_spec *s = sim_xcalloc(1, sizeof(*s));
	struct evidence_raw r = { 0 };
	json_object *c;
	int rc;

	d->ev_spec = s;
	rc = load_fields(L, o, what, evidence_fields, NFIELDS(evidence_fields), &r) ?:
	     bool_or_file(L, o, "vca", &s->vca, &s->vca_file, what) ?:
	     bool_or_file(L, o, "measurements", &s->measurements, &s->meas_file, what) ?:
	     parse_report_kind(L, o, s, what) ?:
	     read_fields(L, o, what, evidence_fields, NFIELDS(evidence_fields), 1, &r);
	if (rc || (rc = parse_signing(L, &r, s, what)))
		return rc;
	s->firmware = r.firmware ? sim_xstrdup(r.firmware) : NULL;
	c = get(o, "certs");
	if (!c)
		return 0;
	if (!json_object_is_type(c, json_type_array) || json_object_array_length(c) > SIM_EV_SLOTS)
		return fail(L, "%s: evidence certs is an array of at most %d chain names", what,
			    SIM_EV_SLOTS);
	for (size_t k = 0; k < json_object_array_length(c); k++) {
		json_object *e = json_object_array_get_idx(c, k);
		const char *n;

		if (!e)
			continue;
		n = json_object_get_string(e);
		if (!json_object_is_type(e, json_type_string) || !*n ||
		    strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(n))
			return fail(L, "%s: evidence certs: a chain name ([a-z0-9-]) or null", what);
		s->chain[k] = sim_xstrdup(n);
	}
	return 0;
}

struct msix_raw {
	uint64_t vectors, table_bar, table_offset, pba_bar, pba_offset;
};

/* step 1: the PBA, by default in the table's BAR right after it (preset from step 0) */
static const struct field_spec msix_fields[] = {
	{ "vectors", F_NUM, .def = 1, .max = 2048, AT(struct msix_raw, vectors) },
	{ "table_bar", F_NUM, .max = 5, AT(struct msix_raw, table_bar) },
	{ "table_offset", F_NUM, .max = 0xfffffff8, AT(struct msix_raw, table_offset) },
	{ "pba_bar", F_NUM, .step = 1, .preset = true, .max = 5, AT(struct msix_raw, pba_bar) },
	{ "pba_offset", F_NUM, .step = 1, .preset = true, .max = 0xfffffff8,
	  AT(struct msix_raw, pba_offset) },
};

/*
 * "msix": { "vectors", "table_bar", "table_offset", "pba_bar", "pba_offset" }:
 * an MSI-X capability whose table and PBA lie inside memory BARs the
 * device has (offsets QWORD aligned, PCI Local Bus 3.0 6.8.2).
 */
static int parse_msix(struct loader *L, json_object *o, struct sim_dev *d, const char *what)
{
	struct sim_msix *x = &d->msix;
	struct msix_raw r = { 0 };
	int rc = load_fields(L, o, what, msix_fields, NFIELDS(msix_fields), &r);

	r.pba_bar = r.table_bar;
	r.pba_offset = r.table_offset + 16 * r.vectors;
	if (!rc)
		rc = read_fields(L, o, what, msix_fields, NFIELDS(msix_fields), 1, &r);
	if (rc)
		return rc;
	if (!sim_dev_is_pcie(d) || !r.vectors || r.table_offset % 8 || r.pba_offset % 8 ||
	    !d->bars[r.table_bar].present || !d->bars[r.pba_bar].present ||
	    r.table_offset + 16 * r.vectors > d->bars[r.table_bar].size ||
	    r.pba_offset + (r.vectors + 63) / 64 * 8 > d->bars[r.pba_bar].size)
		return fail(L, "%s: msix: a PCIe function's 1..2048 vectors whose table and PBA lie "
			    "QWORD aligned inside BARs it has", what);
	*x = (struct sim_msix){ true, (unsigned)r.vectors, (unsigned)r.table_bar,
				(unsigned)r.pba_bar, (uint32_t)r.table_offset,
				(uint32_t)r.pba_offset };
	return 0;
}

struct vfs_raw {
	uint64_t count, total, offset, stride, device;
	bool tee, tsm_init_manually;
	const char *driver;
};

/* device and tee default to the PF's (preset by the caller); step 1: total, preset to count */
static const struct field_spec vfs_fields[] = {
	{ "count", F_NUM, .def = 1, .max = 256, AT(struct vfs_raw, count) },
	{ "total", F_NUM, .step = 1, .preset = true, .max = 256, AT(struct vfs_raw, total) },
	{ "tsm_init_manually", F_BOOL, AT(struct vfs_raw, tsm_init_manually) },
	{ "offset", F_NUM, .def = 1, .max = 0xffff, AT(struct vfs_raw, offset) },
	{ "stride", F_NUM, .def = 1, .max = 0xffff, AT(struct vfs_raw, stride) },
	{ "device", F_NUM, .preset = true, .max = 0xffff, AT(struct vfs_raw, device) },
	{ "tee", F_BOOL, .preset = true, AT(struct vfs_raw, tee) },
	{ "driver", F_STR, AT(struct vfs_raw, driver) },
};

static int make_vfs(struct loader *L, json_object *o, struct sim_dev *pf,
		    const char *what)
{
	struct vfs_raw r = { .device = pf->device, .tee = pf->tee };
	char *wh = sim_xasprintf("%s: vfs", what);
	int rc;

	rc = load_fields(L, o, wh, vfs_fields, NFIELDS(vfs_fields), &r);
	r.total = r.count;
	if (!rc)
		rc = read_fields(L, o, wh, vfs_fields, NFIELDS(vfs_fields), 1, &r);
	if (!rc && r.total < r.count)
		rc = fail(L, "%s: total (sriov_totalvfs) is at least count", wh);
	if (rc)
		goto out;
	pf->nr_vfs_boot = (unsigned)r.count;
	pf->vf_tsm_init_manually = r.tsm_init_manually;
	pf->vf_offset = (unsigned)r.offset;
	pf->vf_stride = (unsigned)r.stride;
	pf->vf_device = (uint16_t)r.device;
	/* every VF the PF can have; those past count come with a write of sriov_numvfs */
	for (unsigned i = 0; i < r.total; i++) {
		unsigned rid = sim_dev_rid(pf) + (unsigned)r.offset + i * (unsigned)r.stride;
		struct sim_dev *vf = sim_xcalloc(1, sizeof(*vf));

		if (rid > 0xffff) {
			free(vf);
			rc = fail(L, "%s: VF %u would be beyond bus ff", wh, i);
			goto out;
		}
		vf->domain = pf->domain;
		vf->bus = rid >> 8;
		vf->slot = (rid >> 3) & 0x1f;
		vf->fn = rid & 7;
		vf->name = bdf_name(vf->domain, vf->bus, vf->slot, vf->fn);
		vf->vendor = pf->vendor;
		vf->device = (uint16_t)r.device;
		vf->subvendor = pf->subvendor;
		vf->subdevice = pf->subdevice;
		vf->class = pf->class;
		vf->revision = pf->revision;
		vf->type = PT_ENDPOINT;
		vf->tee = r.tee;
		vf->flr = true;
		vf->driver = r.driver ? sim_xstrdup(r.driver) : NULL;
		vf->boot_driver = r.driver ? sim_xstrdup(r.driver) : NULL;
		vf->hb = pf->hb;
		vf->parent = pf->parent;
		vf->physfn = pf;
		vf->present = i < r.count;
		vf->boot_h = vf->boot_r = vf->boot_e = -1;
		vf->faults.rp_state = vf->faults.ep_state = STATE_SECURE;
		APPEND(pf->vfs, pf->nr_vfs_total, vf);
		APPEND(L->m->devs, L->m->nr_devs, vf);
		if (pf->parent)
			APPEND(pf->parent->children, pf->parent->nr_children, vf);
		else
			APPEND(pf->hb->devs, pf->hb->nr_devs, vf);
	}
	pf->nr_vfs = pf->nr_vfs_boot;
out:
	free(wh);
	return rc;
}

/* ---- the platform state beside the TSM (sim-platform.c) ---- */

/* "dsn": the Device Serial Number, a number, or { "value", "reads_zero" } */
static const struct field_spec dsn_fields[] = {
	{ "value", F_NUM, .max = UINT64_MAX, AT(struct sim_dev, dsn) },
	{ "reads_zero", F_BOOL, AT(struct sim_dev, dsn_reads_zero) },
};

/* "psp": { "security": {...}, "bootloader_version", "tee_version" } (registers; absent: hidden) */
static const struct field_spec psp_fields[] = {
	{ "security", .type = F_OTHER },
	{ "bootloader_version", F_NUM, .def = 0xffffffff, .max = 0xffffffff,
	  AT(struct sim_psp, bootloader_version) },
	{ "tee_version", F_NUM, .def = 0xffffffff, .max = 0xffffffff,
	  AT(struct sim_psp, tee_version) },
};

/* the HSTI bits; boot_integrity only where the kernel has it (7.0 on) */
static const struct field_spec psp_security_fields[] = {
	{ "fused_part", F_BOOL, AT(struct sim_psp, fused_part) },
	{ "boot_integrity", F_BOOL, AT(struct sim_psp, boot_integrity) },
	{ "debug_lock_on", F_BOOL, AT(struct sim_psp, debug_lock_on) },
	{ "tsme_status", F_BOOL, AT(struct sim_psp, tsme_status) },
	{ "anti_rollback_status", F_BOOL, AT(struct sim_psp, anti_rollback_status) },
	{ "rpmc_production_enabled", F_BOOL, AT(struct sim_psp, rpmc_production_enabled) },
	{ "rpmc_spirom_available", F_BOOL, AT(struct sim_psp, rpmc_spirom_available) },
	{ "hsp_tpm_available", F_BOOL, AT(struct sim_psp, hsp_tpm_available) },
	{ "rom_armor_enforced", F_BOOL, AT(struct sim_psp, rom_armor_enforced) },
};

/* A function's serial number and, on the PSP, its security attributes. */
static int parse_platform_dev(struct loader *L, json_object *o, struct sim_dev *d,
			      const char *what)
{
	json_object *dsn = get(o, "dsn"), *psp = get(o, "psp"), *sec;
	char *wh;
	uint64_t v;
	int rc = 0;

	if (dsn && json_object_is_type(dsn, json_type_object))
		rc = load_fields(L, dsn, what, dsn_fields, NFIELDS(dsn_fields), d);
	else if (dsn && !(rc = get_u64(L, o, "dsn", 0, UINT64_MAX, &v, what)))
		d->dsn = v;
	if (rc)
		return rc;
	if (dsn && (d->type == PT_CONVENTIONAL || !d->dsn))
		return fail(L, "%s: dsn needs a PCIe function and a non-zero value (pci_get_dsn())",
			    what);
	if (!psp)
		return 0;
	wh = sim_xasprintf("%s: psp", what);
	rc = load_fields(L, psp, wh, psp_fields, NFIELDS(psp_fields), &d->psp);
	sec = get(psp, "security");
	if (!rc && sec) {
		rc = load_fields(L, sec, wh, psp_security_fields, NFIELDS(psp_security_fields),
				 &d->psp);
		d->psp.security_reporting = true;
		d->psp.has_boot_integrity = get(sec, "boot_integrity") != NULL;
	}
	d->psp.present = true;
	free(wh);
	return rc;
}

/* 96 hex digits into a 48-byte register */
static int parse_mr(struct loader *L, json_object *v, uint8_t *out, const char *what)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

	if (strlen(s) != 2 * SIM_MR_SIZE)
		return fail(L, "%s: a register is %d hex digits", what, 2 * SIM_MR_SIZE);
	for (int i = 0; i < SIM_MR_SIZE; i++) {
		unsigned b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
			return fail(L, "%s: a register is %d hex digits", what, 2 * SIM_MR_SIZE);
		out[i] = (uint8_t)b;
	}
	return 0;
}

/*
 * "tdx_guest": { "measurements": { "rtmr0": HEX, ..., "mrownerconfig": HEX },
 * "faults": { "extend_errno" } }; a register not given is zero, but mrtd and
 * rtmr0..2 (firmware, boot loader and kernel measure into them): a digest of
 * their name.
 */
static int parse_tdx_guest(struct loader *L, json_object *o)
{
	static const char *const names[SIM_NR_TDX_MRS] = {
		"rtmr0", "rtmr1", "rtmr2", "rtmr3", "mrtd", "mrconfigid", "mrowner", "mrownerconfig",
	};
	static const struct field_spec top[] = {
		{ "measurements", .type = F_OTHER }, { "faults", .type = F_OTHER },
	};
	static const struct field_spec faults[] = {
		{ "extend_errno", F_ERRNO, AT(struct sim_tdx_guest, extend_errno) },
	};
	struct sim_tdx_guest *g = &L->m->tdx_guest;
	json_object *mrs, *f;
	int rc = load_fields(L, o, "tdx_guest", top, NFIELDS(top), g);

	if (rc)
		return rc;
	g->present = true;
	for (int i = 0; i < SIM_NR_TDX_MRS; i++) {
		unsigned len = 0;

		if (i < 3 || i == 4)
			EVP_Digest(names[i], strlen(names[i]), g->mr[i], &len, EVP_sha384(), NULL);
	}
	mrs = get(o, "measurements");
	if (mrs) {
		if (!json_object_is_type(mrs, json_type_object))
			return fail(L, "tdx_guest: measurements must be an object");
		json_object_object_foreach(mrs, key, val) {
			int i = 0;

			while (i < SIM_NR_TDX_MRS && strcmp(names[i], key))
				i++;
			if (i == SIM_NR_TDX_MRS)
				return fail(L, "tdx_guest: measurements: unknown register \"%s\"", key);
			rc = parse_mr(L, val, g->mr[i], "tdx_guest: measurements");
			if (rc)
				return rc;
		}
	}
	f = get(o, "faults");
	return f ? load_fields(L, f, "tdx_guest: faults", faults, NFIELDS(faults), g) : 0;
}

/* "sev_firmware": { "supported_mitigations", "verified_mitigations", "faults": {...} } */
static int parse_sev_firmware(struct loader *L, json_object *o)
{
	static const struct field_spec top[] = {
		{ "supported_mitigations", F_NUM, .max = UINT64_MAX,
		  AT(struct sim_sev_mitigations, supported) },
		{ "verified_mitigations", F_NUM, .max = UINT64_MAX,
		  AT(struct sim_sev_mitigations, verified) },
		{ "faults", .type = F_OTHER },
	};
	static const struct field_spec faults[] = {
		{ "status_errno", F_ERRNO, AT(struct sim_sev_mitigations, status_errno) },
		{ "verify_errno", F_ERRNO, AT(struct sim_sev_mitigations, verify_errno) },
		{ "verify_fail", F_NUM, .max = UINT64_MAX, AT(struct sim_sev_mitigations, verify_fail) },
	};
	struct sim_sev_mitigations *v = &L->m->sev_mit;
	json_object *f;
	int rc = load_fields(L, o, "sev_firmware", top, NFIELDS(top), v);

	if (rc)
		return rc;
	v->present = true;
	f = get(o, "faults");
	return f ? load_fields(L, f, "sev_firmware: faults", faults, NFIELDS(faults), v) : 0;
}

struct dev_raw {
	const char *type, *driver, *locked;
	uint64_t vendor, device, class, revision, subsystem_vendor, subsystem_device, secondary,
		ext_caps;
	bool tee, bound, accepted, flr;
};

/* bdf is read before the key check to name the device; type once the BDF is checked (step 1) */
static const struct field_spec dev_fields[] = {
	{ "bdf", .type = F_OTHER },
	{ "type", F_STR, .step = 1, AT(struct dev_raw, type) },
	/* step 2 once the type is known, which presets the class and flr defaults */
	{ "vendor", F_NUM, .step = 2, .def = 0x1234, .max = 0xffff, AT(struct dev_raw, vendor) },
	{ "device", F_NUM, .step = 2, .def = 0x0001, .max = 0xffff, AT(struct dev_raw, device) },
	{ "class", F_NUM, .step = 2, .preset = true, .max = 0xffffff, AT(struct dev_raw, class) },
	{ "revision", F_NUM, .step = 2, .max = 0xff, AT(struct dev_raw, revision) },
	{ "subsystem_vendor", F_NUM, .step = 2, .max = 0xffff,
	  AT(struct dev_raw, subsystem_vendor) },
	{ "subsystem_device", F_NUM, .step = 2, .max = 0xffff,
	  AT(struct dev_raw, subsystem_device) },
	{ "driver", F_STR, .step = 2, AT(struct dev_raw, driver) },
	{ "tee", F_BOOL, .step = 2, AT(struct dev_raw, tee) },
	{ "bound", F_BOOL, .step = 2, AT(struct dev_raw, bound) },
	{ "locked", F_STR, .step = 2, AT(struct dev_raw, locked) },
	{ "accepted", F_BOOL, .step = 2, AT(struct dev_raw, accepted) },
	{ "flr", F_BOOL, .step = 2, .preset = true, AT(struct dev_raw, flr) },
	{ "secondary", F_NUM, .step = 2, .max = 0xff, AT(struct dev_raw, secondary) },
	{ "ext_caps", F_NUM, .step = 2, .max = SIM_MAX_EXT_CAPS, AT(struct dev_raw, ext_caps) },
	{ "mem_window", .type = F_OTHER },
	{ "pref_window", .type = F_OTHER },
	{ "link", .type = F_OTHER },
	{ "bars", .type = F_OTHER },
	{ "msix", .type = F_OTHER },
	{ "doe", .type = F_OTHER },
	{ "ide", .type = F_OTHER },
	{ "preset_streams", .type = F_OTHER },
	{ "evidence", .type = F_OTHER },
	{ "faults", .type = F_OTHER },
	{ "dsn", .type = F_OTHER },
	{ "psp", .type = F_OTHER },
	{ "connected", .type = F_OTHER },
	{ "vfs", .type = F_OTHER },
	{ "children", .type = F_OTHER },
};

/* an absent "link" takes every default: the port is the device's slot (preset) */
static const struct field_spec link_fields[] = {
	{ "port", F_NUM, .preset = true, .max = 0xff, AT(struct sim_dev, link_port) },
	{ "speed", F_NUM, .def = 4, .max = 0xf, AT(struct sim_dev, link_speed) },
	{ "width", F_NUM, .def = 16, .max = 0x3f, AT(struct sim_dev, link_width) },
};

static int parse_dev(struct loader *L, json_object *o, struct sim_host_bridge *hb,
		     struct sim_dev *parent)
{
	struct sim_dev *d = sim_xcalloc(1, sizeof(*d));
	struct dev_raw r = { 0 };
	const char *bdf;
	json_object *v;
	char *what;
	int rc;

	d->present = true;
	d->faults.rp_state = d->faults.ep_state = STATE_SECURE;
	d->hb = hb;
	d->parent = parent;
	APPEND(L->m->devs, L->m->nr_devs, d);
	if (parent)
		APPEND(parent->children, parent->nr_children, d);
	else
		APPEND(hb->devs, hb->nr_devs, d);

	if (get_str(L, o, "bdf", &bdf, "device") || !bdf)
		return fail(L, "%s: every device needs a \"bdf\"", hb->name);
	what = sim_xasprintf("%s", bdf);
	rc = load_fields(L, o, what, dev_fields, NFIELDS(dev_fields), &r);
	if (rc)
		goto out;
	if (parse_bdf(bdf, &d->domain, &d->bus, &d->slot, &d->fn)) {
		rc = fail(L, "%s: bdf must be DDDD:BB:DD.F", what);
		goto out;
	}
	d->name = bdf_name(d->domain, d->bus, d->slot, d->fn);
	if (d->domain != hb->domain) {
		rc = fail(L, "%s: domain differs from host bridge %s", what, hb->name);
		goto out;
	}
	rc = read_fields(L, o, what, dev_fields, NFIELDS(dev_fields), 1, &r);
	if (rc)
		goto out;
	if (!r.type) {
		rc = fail(L, "%s: \"type\" is required", what);
		goto out;
	}
	rc = parse_type(L, r.type, &d->type, what);
	r.class = d->type == PT_ROOT_PORT || d->type == PT_UPSTREAM ||
		  d->type == PT_DOWNSTREAM ? 0x060400 : 0xff0000;
	r.flr = d->type == PT_ENDPOINT;
	if (!rc)
		rc = read_fields(L, o, what, dev_fields, NFIELDS(dev_fields), 2, &r) ?:
		     parse_window(L, o, "mem_window", &d->mem, what) ?:
		     parse_window(L, o, "pref_window", &d->pref, what);
	if (rc)
		goto out;
	d->vendor = (uint16_t)r.vendor;
	d->device = (uint16_t)r.device;
	d->class = (uint32_t)r.class;
	d->revision = (uint8_t)r.revision;
	d->subvendor = (uint16_t)r.subsystem_vendor;
	d->subdevice = (uint16_t)r.subsystem_device;
	d->secondary = (unsigned)r.secondary;
	d->ext_caps = (unsigned)r.ext_caps;
	d->tee = r.tee;
	d->boot_bound = r.bound;
	d->boot_accepted = r.accepted;
	d->flr = r.flr;
	d->driver = r.driver ? sim_xstrdup(r.driver) : NULL;
	d->boot_driver = r.driver ? sim_xstrdup(r.driver) : NULL;
	if (r.locked && strncmp(r.locked, "tsm", 3)) {
		rc = fail(L, "%s: locked needs a TSM name like \"tsm1\"", what);
		goto out;
	}
	if (d->boot_accepted && !r.locked) {
		rc = fail(L, "%s: accepted needs locked", what);
		goto out;
	}
	d->boot_lock = r.locked ? sim_xstrdup(r.locked) : NULL;
	d->link_port = d->slot;
	v = get(o, "link");
	rc = v ? load_fields(L, v, what, link_fields, NFIELDS(link_fields), d) :
		 read_fields(L, NULL, what, link_fields, NFIELDS(link_fields), 0, d);
	if (rc)
		goto out;
	if (d->type == PT_CONVENTIONAL && (d->tee || get(o, "ide") ||
					   get(o, "doe") || get(o, "vfs") || d->ext_caps)) {
		rc = fail(L, "%s: a conventional PCI device has no extended capabilities",
			  what);
		goto out;
	}
	if ((v = get(o, "bars")) && (rc = parse_bars(L, v, d, what)))
		goto out;
	if ((v = get(o, "msix")) && (rc = parse_msix(L, v, d, what)))
		goto out;
	if ((v = get(o, "doe")) && (rc = parse_doe(L, v, d, what)))
		goto out;
	if ((v = get(o, "ide")) && (rc = parse_ide(L, v, d, what)))
		goto out;
	if ((v = get(o, "preset_streams")) && (rc = parse_presets(L, v, d, what)))
		goto out;
	if ((v = get(o, "evidence")) && (rc = parse_evidence(L, v, d, what)))
		goto out;
	if ((v = get(o, "faults")) && (rc = parse_faults(L, v, d, what)))
		goto out;
	if ((rc = parse_platform_dev(L, o, d, what)))
		goto out;
	rc = parse_connected(L, get(o, "connected"), d, what);
	if (rc)
		goto out;
	if ((v = get(o, "vfs")) && (rc = make_vfs(L, v, d, what)))
		goto out;
	v = get(o, "children");
	if (v) {
		if (!json_object_is_type(v, json_type_array)) {
			rc = fail(L, "%s: children must be an array", what);
			goto out;
		}
		for (size_t i = 0; i < json_object_array_length(v) && !rc; i++)
			rc = parse_dev(L, json_object_array_get_idx(v, i), hb, d);
	}
out:
	free(what);
	return rc;
}

static void set_dirs(struct sim_dev *d, const char *parent_dir)
{
	d->dir = sim_path_join(parent_dir, d->name);
	for (size_t i = 0; i < d->nr_children; i++)
		if (!d->children[i]->physfn)
			set_dirs(d->children[i], d->dir);
	for (unsigned i = 0; i < d->nr_vfs_total; i++)
		d->vfs[i]->dir = sim_path_join(parent_dir, d->vfs[i]->name);
}

/* secondary/subordinate bus numbers from what sits below each bridge */
static unsigned set_buses(struct loader *L, struct sim_dev *d)
{
	unsigned max = d->bus;

	for (unsigned i = 0; i < d->nr_vfs_total; i++)
		if (d->vfs[i]->bus > max)
			max = d->vfs[i]->bus;
	/* an empty slot's bridge: its bus all the same (pci_scan_bridge_extend(), v6.19) */
	if (!d->nr_children && d->secondary) {
		d->subordinate = d->secondary;
		return d->subordinate > max ? d->subordinate : max;
	}
	if (!d->nr_children)
		return max;
	if (!d->secondary)
		d->secondary = d->children[0]->bus;
	d->subordinate = d->secondary;
	for (size_t i = 0; i < d->nr_children; i++) {
		struct sim_dev *c = d->children[i];
		unsigned sub;

		if (!c->physfn && c->bus != d->secondary)
			fail(L, "%s: on bus %02x but its bridge %s has secondary bus %02x",
			     c->name, c->bus, d->name, d->secondary);
		if (c->physfn)
			continue;
		sub = set_buses(L, c);
		if (sub > d->subordinate)
			d->subordinate = sub;
	}
	for (size_t i = 0; i < d->nr_children; i++)
		if (d->children[i]->bus > d->subordinate)
			d->subordinate = d->children[i]->bus;
	return d->subordinate > max ? d->subordinate : max;
}

static struct sim_faux *add_faux(struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_faux; i++)
		if (!strcmp(m->faux[i].name, name))
			return &m->faux[i];
	struct sim_faux f = { .name = sim_xstrdup(name), .present = true,
			      .dir = sim_xasprintf("sys/devices/faux/%s", name) };
	APPEND(m->faux, m->nr_faux, f);
	return &m->faux[m->nr_faux - 1];
}

static struct sim_platform *add_platform(struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_platform; i++)
		if (!strcmp(m->platform[i].name, name))
			return &m->platform[i];
	struct sim_platform p = { .name = sim_xstrdup(name),
				  .dir = sim_xasprintf("sys/devices/platform/%s", name) };
	APPEND(m->platform, m->nr_platform, p);
	return &m->platform[m->nr_platform - 1];
}

static struct sim_driver *add_driver_named(struct sim_model *m, const char *name)
{
	struct sim_driver *drv = sim_model_find_driver(m, name);

	if (!drv) {
		APPEND(m->drivers, m->nr_drivers, (struct sim_driver){ .name = sim_xstrdup(name) });
		drv = &m->drivers[m->nr_drivers - 1];
	}
	return drv;
}

static void add_driver(struct sim_model *m, const char *name)
{
	add_driver_named(m, name);
}

/* "VVVV:DDDD" in lower case, or NULL when @s is not one */
static char *pci_id(const char *s)
{
	unsigned v, d;
	char tail;

	if (sscanf(s, "%4x:%4x%c", &v, &d, &tail) != 2)
		return NULL;
	return sim_xasprintf("%04x:%04x", v, d);
}

struct driver_raw {
	const char *name, *probe_defer_unaccepted;
	bool override_only;
	int probe_accepted_errno;
};

/* step 1, once the name is checked, under the driver's name; the errno keeps an earlier entry's */
static const struct field_spec driver_fields[] = {
	{ "name", F_STR, AT(struct driver_raw, name) },
	{ "probe_defer_unaccepted", F_STR, AT(struct driver_raw, probe_defer_unaccepted) },
	{ "override_only", F_BOOL, .step = 1, AT(struct driver_raw, override_only) },
	{ "probe_accepted_errno", F_ERRNO, .step = 1, AT(struct driver_raw, probe_accepted_errno) },
	{ "ids", .type = F_OTHER },
};

/* drivers[]: a name, or { name, ids, override_only, probe_defer_unaccepted, probe_accepted_errno } */
static int parse_drivers(struct loader *L, json_object *arr)
{
	if (!json_object_is_type(arr, json_type_array))
		return fail(L, "drivers must be an array");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		struct driver_raw r = { 0 };
		struct sim_driver *drv;
		const char *name;
		int rc;

		if (json_object_is_type(o, json_type_string)) {
			name = json_object_get_string(o);
			if (!*name || strchr(name, '/'))
				return fail(L, "drivers: bad name \"%s\"", name);
			add_driver(L->m, name);
			continue;
		}
		rc = load_fields(L, o, "driver", driver_fields, NFIELDS(driver_fields), &r);
		if (rc)
			return rc;
		name = r.name;
		if (!name || !*name || strchr(name, '/'))
			return fail(L, "driver needs a name");
		drv = add_driver_named(L->m, name);
		r.probe_accepted_errno = drv->accepted_errno;
		rc = read_fields(L, o, name, driver_fields, NFIELDS(driver_fields), 1, &r);
		drv->override_only = r.override_only;
		drv->accepted_errno = r.probe_accepted_errno;
		if (rc)
			return rc;
		drv->defer_reason = r.probe_defer_unaccepted ?
				    sim_xstrdup(r.probe_defer_unaccepted) : NULL;
		v = get(o, "ids");
		if (!v)
			continue;
		if (!json_object_is_type(v, json_type_array))
			return fail(L, "%s: ids must be an array of \"VVVV:DDDD\"", name);
		drv->has_ids = true;
		for (size_t j = 0; j < json_object_array_length(v); j++) {
			json_object *e = json_object_array_get_idx(v, j);
			char *id = json_object_is_type(e, json_type_string) ?
				   pci_id(json_object_get_string(e)) : NULL;

			if (!id)
				return fail(L, "%s: ids must be an array of \"VVVV:DDDD\"", name);
			APPEND(drv->ids, drv->nr_ids, id);
		}
	}
	return 0;
}

/* Names in @v (an array of strings without '/'), each passed to @add. */
static int parse_names(struct loader *L, json_object *v, const char *key,
		       void (*add)(struct sim_model *, const char *))
{
	if (!json_object_is_type(v, json_type_array))
		return fail(L, "%s must be an array of names", key);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);
		const char *n = json_object_get_string(e);

		if (!json_object_is_type(e, json_type_string) || !*n ||
		    strchr(n, '/'))
			return fail(L, "%s must be an array of names", key);
		add(L->m, n);
	}
	return 0;
}

static void add_faux_name(struct sim_model *m, const char *name)
{
	add_faux(m, name);
}

static void add_platform_name(struct sim_model *m, const char *name)
{
	add_platform(m, name);
}

struct report_raw {
	struct sim_report_cfg c;
	const char *provider;
};

static const struct field_spec report_fields[] = {
	{ "provider", F_STR, AT(struct report_raw, provider) },
	{ "privlevel_floor", F_NUM, .max = REPORT_PRIVLEVEL_MAX,
	  AT(struct report_raw, c.privlevel_floor) },
	{ "svsm", F_BOOL, AT(struct report_raw, c.svsm) },
	{ "faults", .type = F_OTHER },
};

static const struct field_spec report_fault_fields[] = {
	{ "concurrent_writer", F_NUM, .max = 1000000,
	  AT(struct sim_report_cfg, concurrent_writer) },
	{ "outblob_errno_reads", F_NUM, .max = 1000000,
	  AT(struct sim_report_cfg, outblob_errno_reads) },
	{ "outblob_errno", F_ERRNO, AT(struct sim_report_cfg, outblob_errno) },
	{ "commit_errno", F_ERRNO, AT(struct sim_report_cfg, commit_errno) },
	{ "concurrent_extend", F_NUM, .max = 4, AT(struct sim_report_cfg, concurrent_extend) },
};

static int parse_report(struct loader *L, json_object *o)
{
	struct sim_report_cfg *c = &L->m->report;
	struct report_raw r = { .c = *c };
	const char *prov;
	json_object *f;
	int rc;

	r.c.present = true;
	rc = load_fields(L, o, "report", report_fields, NFIELDS(report_fields), &r);
	*c = r.c;
	if (rc)
		return rc;
	prov = r.provider;
	if (!prov)
		c->provider = REPORT_NONE;
	else if (!strcmp(prov, "sev_guest"))
		c->provider = REPORT_SEV_GUEST;
	else if (!strcmp(prov, "tdx_guest"))
		c->provider = REPORT_TDX_GUEST;
	else
		return fail(L, "report: provider is \"sev_guest\" or \"tdx_guest\"");
	if (c->svsm && c->provider != REPORT_SEV_GUEST)
		return fail(L, "report: svsm needs the sev_guest provider");
	f = get(o, "faults");
	if (!f)
		return 0;
	return load_fields(L, f, "report: faults", report_fault_fields,
			   NFIELDS(report_fault_fields), c);
}

struct hb_raw {
	uint64_t domain, bus, streams, keyp_streams;
	const char *parent, *acpi;
};

/* streams defaults to 256, or 0 without TSM support (preset by the caller) */
static const struct field_spec hb_fields[] = {
	{ "domain", F_NUM, .max = 0xffffff, AT(struct hb_raw, domain) },
	{ "bus", F_NUM, .max = 0xff, AT(struct hb_raw, bus) },
	{ "streams", F_NUM, .preset = true, .max = SIM_POOL_MAX, AT(struct hb_raw, streams) },
	{ "keyp_streams", F_NUM, .def = UINT64_MAX, .max = 255, AT(struct hb_raw, keyp_streams) },
	{ "parent", F_STR, AT(struct hb_raw, parent) },
	{ "acpi", F_STR, AT(struct hb_raw, acpi) },
	{ "dangling_links", .type = F_OTHER },
	{ "windows", .type = F_OTHER },
	{ "devices", .type = F_OTHER },
};

struct dangling_raw {
	const char *name, *target;
};

static const struct field_spec dangling_fields[] = {
	{ "name", F_STR, AT(struct dangling_raw, name) },
	{ "target", F_STR, AT(struct dangling_raw, target) },
};

struct hb_window_raw {
	const char *name;
	uint64_t base, limit;
};

static const struct field_spec hb_window_fields[] = {
	{ "name", F_STR, AT(struct hb_window_raw, name) },
	{ "base", F_NUM, .max = UINT64_MAX, AT(struct hb_window_raw, base) },
	{ "limit", F_NUM, .max = UINT64_MAX, AT(struct hb_window_raw, limit) },
};

static int parse_hb(struct loader *L, json_object *o)
{
	struct sim_host_bridge *hb = sim_xcalloc(1, sizeof(*hb));
	struct hb_raw r = { .streams = L->m->abi == ABI_NONE ? 0 : 256 };
	const char *parent, *acpi;
	json_object *v;
	int rc;

	APPEND(L->m->hbs, L->m->nr_hbs, hb);
	rc = load_fields(L, o, "host bridge", hb_fields, NFIELDS(hb_fields), &r);
	if (rc)
		return rc;
	parent = r.parent;
	acpi = r.acpi;
	if (r.keyp_streams != UINT64_MAX && get(o, "streams"))
		return fail(L, "host bridge: keyp_streams sets the pool, streams must not");
	hb->keyp_streams = r.keyp_streams == UINT64_MAX ? -1 : (int)r.keyp_streams;
	if ((parent && (!*parent || parent[0] == '/' || strstr(parent, ".."))) ||
	    (acpi && (!*acpi || acpi[0] == '/' || strstr(acpi, ".."))))
		return fail(L, "host bridge: parent and acpi are paths below sys/devices");
	hb->acpi = acpi ? sim_xasprintf("sys/devices/%s", acpi) : NULL;
	hb->domain = (unsigned)r.domain;
	hb->bus = (unsigned)r.bus;
	hb->present = true;
	hb->nr_streams = L->m->abi == ABI_NONE ? 0 : (unsigned)r.streams;
	hb->name = sim_xasprintf("pci%04x:%02x", hb->domain, hb->bus);
	if (parent) {
		char *p = sim_xasprintf("sys/devices/%s", parent);

		hb->dir = sim_path_join(p, hb->name);
		free(p);
		/* "faux/NAME[/...]": the bus module NAME creates the faux device */
		if (!strncmp(parent, "faux/", 5) && parent[5]) {
			char *n = sim_xstrdup(parent + 5), *sl = strchr(n, '/');

			if (sl)
				*sl = '\0';
			add_faux(L->m, n);
			hb->owner = n;
		}
	} else {
		hb->dir = sim_xasprintf("sys/devices/%s", hb->name);
	}
	v = get(o, "dangling_links");
	if (v) {
		if (!json_object_is_type(v, json_type_array))
			return fail(L, "%s: dangling_links must be an array", hb->name);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct dangling_raw d = { 0 };
			struct sim_dangling_link dl;

			rc = load_fields(L, json_object_array_get_idx(v, i), hb->name,
					 dangling_fields, NFIELDS(dangling_fields), &d);
			if (rc)
				return rc;
			if (!d.name || !d.target || strchr(d.name, '/'))
				return fail(L, "%s: dangling link needs name and target",
					    hb->name);
			dl.name = sim_xstrdup(d.name);
			dl.target = sim_xstrdup(d.target);
			APPEND(hb->dangling, hb->nr_dangling, dl);
		}
	}
	v = get(o, "windows");
	if (v) {
		if (!json_object_is_type(v, json_type_array))
			return fail(L, "%s: windows must be an array", hb->name);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct hb_window_raw wr = { 0 };
			struct sim_hb_window w;

			rc = load_fields(L, json_object_array_get_idx(v, i), hb->name,
					 hb_window_fields, NFIELDS(hb_window_fields), &wr);
			if (rc)
				return rc;
			if (!wr.name || wr.limit < wr.base)
				return fail(L, "%s: a window needs a name and base <= limit",
					    hb->name);
			w = (struct sim_hb_window){ sim_xstrdup(wr.name), wr.base, wr.limit };
			APPEND(hb->windows, hb->nr_windows, w);
		}
	}
	v = get(o, "devices");
	if (v) {
		if (!json_object_is_type(v, json_type_array))
			return fail(L, "%s: devices must be an array", hb->name);
		for (size_t i = 0; i < json_object_array_length(v) && !rc; i++) {
			rc = parse_dev(L, json_object_array_get_idx(v, i), hb, NULL);
			if (!rc && hb->devs[hb->nr_devs - 1]->bus != hb->bus &&
			    !hb->devs[hb->nr_devs - 1]->physfn)
				rc = fail(L, "%s: not on root bus %02x of %s",
					  hb->devs[hb->nr_devs - 1]->name, hb->bus,
					  hb->name);
		}
	}
	return rc;
}

struct tdx_host_raw {
	const char *version, *seamldr_version;
	uint64_t num_remaining_updates;
};

static const struct field_spec tdx_host_fields[] = {
	{ "version", F_STR, AT(struct tdx_host_raw, version) },
	{ "seamldr_version", F_STR, AT(struct tdx_host_raw, seamldr_version) },
	{ "num_remaining_updates", F_NUM, .max = UINT32_MAX,
	  AT(struct tdx_host_raw, num_remaining_updates) },
};

/*
 * The TDX module's versions on the tdx_host faux device (a TSM's "tdx_module"
 * or the top-level "tdx_host" of a TDX host without TDX Connect): any TDX
 * host has it (drivers/virt/coco/tdx-host/tdx-host.c, torvalds/linux
 * 637315cb400e, tdx_host_init()).
 */
static int parse_tdx_host(struct loader *L, json_object *mod, const char *what)
{
	struct sim_tdx_host *x = &L->m->tdx;
	struct tdx_host_raw r = { 0 };
	int rc;

	if (x->present)
		return fail(L, "%s: the TDX module is described twice (tdx_host, tdx_module)", what);
	if (mod) {
		rc = load_fields(L, mod, what, tdx_host_fields, NFIELDS(tdx_host_fields), &r);
		if (rc)
			return rc;
		if (!r.seamldr_version && get(mod, "num_remaining_updates"))
			return fail(L, "%s: num_remaining_updates needs seamldr_version", what);
	}
	x->present = true;
	x->version = sim_xstrdup(r.version ? r.version : "1.5.16");
	x->seamldr_version = r.seamldr_version ? sim_xstrdup(r.seamldr_version) : NULL;
	x->remaining_updates = (long)r.num_remaining_updates;
	add_faux(L->m, "tdx_host");
	return 0;
}

/* tdx-connect: the link TSM on the tdx_host faux device, the module's Stream IDs and versions */
static int parse_tdx(struct loader *L, json_object *o, struct sim_tsm *t,
		     const char *parent)
{
	json_object *ids = get(o, "stream_ids"), *mod = get(o, "tdx_module");

	if (t->provider != PROV_TDX_CONNECT) {
		if (ids || mod)
			return fail(L, "%s: stream_ids and tdx_module need the tdx-connect provider",
				    t->name);
		return 0;
	}
	if (t->kind != TSM_LINK || !parent || strcmp(parent, "faux:tdx_host"))
		return fail(L, "%s: tdx-connect is a link TSM on faux:tdx_host", t->name);
	if (ids) {
		if (!json_object_is_type(ids, json_type_array))
			return fail(L, "%s: stream_ids must be an array", t->name);
		t->has_module_ids = true;
		for (size_t i = 0; i < json_object_array_length(ids); i++) {
			json_object *e = json_object_array_get_idx(ids, i);
			int64_t id = json_object_get_int64(e);

			if (!json_object_is_type(e, json_type_int) || id < 0 || id > 254)
				return fail(L, "%s: stream_ids holds numbers 0..254", t->name);
			APPEND(t->module_ids, t->nr_module_ids, (unsigned)id);
		}
	}
	/* a top-level tdx_host already describes the module */
	if (!mod && L->m->tdx.present)
		return 0;
	return parse_tdx_host(L, mod, "tdx_module");
}

/*
 * The pools a TDX TSM registered at boot set (tdx_connect_init() ran at
 * tdx_host's probe): later registrations set them when they happen.
 */
static void keyp_pools(struct sim_model *m)
{
	for (size_t i = 0; i < m->nr_tsms; i++)
		if (m->tsms[i]->provider == PROV_TDX_CONNECT && m->tsms[i]->registered &&
		    sim_module_live(m, m->tsms[i]->parent_faux))
			sim_tsm_platform_init(m, m->tsms[i]);
}

struct tsm_raw {
	uint64_t id, register_after_ms, change_after_ms;
	const char *kind, *provider, *parent;
	bool register_manually, change_manually, uevents, evidence_inputs, evidence_refresh;
};

/* id preset to the TSM's place; evidence_refresh (step 1) once the provider presets it */
static const struct field_spec tsm_fields[] = {
	{ "id", F_NUM, .preset = true, .max = 0xffff, AT(struct tsm_raw, id) },
	{ "kind", F_STR, AT(struct tsm_raw, kind) },
	{ "provider", F_STR, AT(struct tsm_raw, provider) },
	{ "parent", F_STR, AT(struct tsm_raw, parent) },
	{ "register_after_ms", F_NUM, .def = UINT64_MAX, .max = 3600000,
	  AT(struct tsm_raw, register_after_ms) },
	{ "register_manually", F_BOOL, AT(struct tsm_raw, register_manually) },
	{ "uevents", F_BOOL, .def = true, AT(struct tsm_raw, uevents) },
	{ "evidence_inputs", F_BOOL, AT(struct tsm_raw, evidence_inputs) },
	{ "change_after_ms", F_NUM, .max = 60000, AT(struct tsm_raw, change_after_ms) },
	{ "change_manually", F_BOOL, AT(struct tsm_raw, change_manually) },
	{ "evidence_refresh", F_BOOL, .step = 1, .preset = true,
	  AT(struct tsm_raw, evidence_refresh) },
	{ "stream_ids", .type = F_OTHER },
	{ "tdx_module", .type = F_OTHER },
	{ "host_bridges", .type = F_OTHER },
};

static int parse_tsm(struct loader *L, json_object *o)
{
	struct sim_tsm *t = sim_xcalloc(1, sizeof(*t));
	struct tsm_raw r;
	const char *kind, *prov, *parent;
	json_object *v;
	int rc;

	APPEND(L->m->tsms, L->m->nr_tsms, t);
	r = (struct tsm_raw){ .id = L->m->nr_tsms - 1 };
	rc = load_fields(L, o, "tsm", tsm_fields, NFIELDS(tsm_fields), &r);
	if (rc)
		return rc;
	kind = r.kind;
	prov = r.provider;
	parent = r.parent;
	t->id = (unsigned)r.id;
	t->name = sim_xasprintf("tsm%u", t->id);
	t->decl_name = sim_xstrdup(t->name);
	t->register_manually = r.register_manually;
	t->uevents = r.uevents;
	t->evidence_inputs = r.evidence_inputs;
	t->register_after_ms = r.register_after_ms == UINT64_MAX ? -1 : (long)r.register_after_ms;
	t->change_after_ms = (long)r.change_after_ms;
	t->change_manually = r.change_manually;
	if (t->register_after_ms >= 0 && t->register_manually)
		return fail(L, "%s: register_after_ms and register_manually exclude each other",
			    t->name);
	if (t->change_manually && t->change_after_ms)
		return fail(L, "%s: change_after_ms and change_manually exclude each other", t->name);
	if (t->change_manually && t->register_after_ms < 0 && !t->register_manually)
		return fail(L, "%s: change_manually needs a late TSM (register_after_ms or "
			    "register_manually)", t->name);
	if (t->evidence_inputs && (!parent || strncmp(parent, "faux:", 5)))
		return fail(L, "%s: evidence_inputs needs a faux:NAME parent", t->name);
	/* registered at boot unless late; late ones register in the live mount */
	t->registered = t->pci_ready = t->register_after_ms < 0 && !t->register_manually;
	for (size_t i = 0; i + 1 < L->m->nr_tsms; i++)
		if (L->m->tsms[i]->id == t->id)
			return fail(L, "%s: duplicate TSM id", t->name);
	if (!kind || !strcmp(kind, "link"))
		t->kind = TSM_LINK;
	else if (!strcmp(kind, "devsec"))
		t->kind = TSM_DEVSEC;
	else
		return fail(L, "%s: kind is \"link\" or \"devsec\"", t->name);
	if (!prov || !strcmp(prov, "generic"))
		t->provider = PROV_GENERIC;
	else if (!strcmp(prov, "sev-tio"))
		t->provider = PROV_SEV_TIO;
	else if (!strcmp(prov, "devsec-sample"))
		t->provider = PROV_DEVSEC_SAMPLE;
	else if (!strcmp(prov, "tdx-connect"))
		t->provider = PROV_TDX_CONNECT;
	else
		return fail(L, "%s: provider is sev-tio, devsec-sample, tdx-connect or generic",
			    t->name);
	/* the sample's pci_tsm_ops have no refresh_evidence (samples/devsec/link_tsm.c) */
	r.evidence_refresh = t->provider != PROV_DEVSEC_SAMPLE;
	rc = read_fields(L, o, "tsm", tsm_fields, NFIELDS(tsm_fields), 1, &r);
	t->evidence_refresh = r.evidence_refresh;
	if (!rc)
		rc = parse_tdx(L, o, t, parent);
	if (rc)
		return rc;
	if (!parent)
		return fail(L, "%s: \"parent\" is required (a BDF, faux:NAME or platform:NAME)",
			    t->name);
	if (!strncmp(parent, "faux:", 5) && parent[5] && !strchr(parent + 5, '/')) {
		struct sim_faux *f = add_faux(L->m, parent + 5);

		t->parent_faux = sim_xstrdup(parent + 5);
		t->parent_dir = sim_xstrdup(f->dir);
		t->dir = sim_xasprintf("%s/tsm/%s", f->dir, t->name);
	} else if (!strncmp(parent, "platform:", 9) && parent[9] &&
		   !strchr(parent + 9, '/')) {
		struct sim_platform *p = add_platform(L->m, parent + 9);

		t->parent_platform = sim_xstrdup(parent + 9);
		t->parent_dir = sim_xstrdup(p->dir);
		t->dir = sim_xasprintf("%s/tsm/%s", p->dir, t->name);
	} else {
		t->parent_pci = sim_model_find_dev(L->m, parent);
		if (!t->parent_pci)
			return fail(L, "%s: parent device %s not in the topology",
				    t->name, parent);
		/* the class glue dir is named after the class: "tsm" */
		t->parent_dir = sim_xstrdup(t->parent_pci->dir);
		t->dir = sim_xasprintf("%s/tsm/%s", t->parent_pci->dir, t->name);
	}
	v = get(o, "host_bridges");
	if (v) {
		if (!json_object_is_type(v, json_type_array))
			return fail(L, "%s: host_bridges must be an array", t->name);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			if (!json_object_is_type(e, json_type_string))
				return fail(L, "%s: host_bridges holds names", t->name);
			APPEND(t->hbs, t->nr_hbs, sim_xstrdup(json_object_get_string(e)));
		}
	}
	return 0;
}

struct module_raw {
	const char *name;
	bool loaded;
};

/* loaded is read (step 1) under the module's name once the name is checked */
static const struct field_spec module_fields[] = {
	{ "name", F_STR, AT(struct module_raw, name) },
	{ "loaded", F_BOOL, .step = 1, .def = true, AT(struct module_raw, loaded) },
	{ "parameters", .type = F_OTHER },
};

static int parse_modules(struct loader *L, json_object *arr)
{
	if (!json_object_is_type(arr, json_type_array))
		return fail(L, "modules must be an array");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct module_raw r = { 0 };
		struct sim_module *mod;
		const char *name;
		json_object *p;
		int rc;

		rc = load_fields(L, o, "module", module_fields, NFIELDS(module_fields), &r);
		if (rc)
			return rc;
		name = r.name;
		if (!name || strchr(name, '/'))
			return fail(L, "module needs a name");
		/* In the model before it is filled: a failure below frees it with the model. */
		APPEND(L->m->modules, L->m->nr_modules, (struct sim_module){ .name = sim_xstrdup(name) });
		mod = &L->m->modules[L->m->nr_modules - 1];
		mod->autoprobe = true;
		rc = read_fields(L, o, name, module_fields, NFIELDS(module_fields), 1, &r);
		mod->loaded = r.loaded;
		if (rc)
			return rc;
		for (size_t j = 0; j + 1 < L->m->nr_modules; j++)
			if (!strcmp(L->m->modules[j].name, name))
				return fail(L, "%s: duplicate module", name);
		p = get(o, "parameters");
		if (p) {
			if (!json_object_is_type(p, json_type_object))
				return fail(L, "%s: parameters must be an object", name);
			json_object_object_foreach(p, key, val) {
				if (!json_object_is_type(val, json_type_string) ||
				    strchr(key, '/'))
					return fail(L, "%s: parameter %s must be a string",
						    name, key);
				size_t nk = mod->nr_params, nd = mod->nr_params;

				APPEND(mod->keys, nk, sim_xstrdup(key));
				APPEND(mod->defaults, nd, sim_xstrdup(json_object_get_string(val)));
				APPEND(mod->vals, mod->nr_params,
				       sim_xstrdup(json_object_get_string(val)));
			}
		}
	}
	return 0;
}

struct top_raw {
	const char *abi;
	bool debugfs;
};

static const struct field_spec top_fields[] = {
	{ "abi", F_STR, AT(struct top_raw, abi) },
	{ "debugfs", F_BOOL, AT(struct top_raw, debugfs) },
	{ "comment", .type = F_OTHER },
	{ "modules", .type = F_OTHER },
	{ "faux", .type = F_OTHER },
	{ "platform", .type = F_OTHER },
	{ "drivers", .type = F_OTHER },
	{ "tdx_host", .type = F_OTHER },
	{ "report", .type = F_OTHER },
	{ "tdx_guest", .type = F_OTHER },
	{ "sev_firmware", .type = F_OTHER },
	{ "host_bridges", .type = F_OTHER },
	{ "tsms", .type = F_OTHER },
};

int sim_topology_load(const char *file, struct sim_model **out, char **err)
{
	struct top_raw r = { 0 };
	struct loader L = { 0 };
	json_object *root, *v;
	const char *abi;
	int rc;

	*out = NULL;
	*err = NULL;
	root = json_object_from_file(file);
	if (!root) {
		*err = sim_xasprintf("%s: %s", file, json_util_get_last_err());
		return -EINVAL;
	}
	L.m = sim_xcalloc(1, sizeof(*L.m));
	L.m->ev_ext_ack = L.m->ev_cap_ack = true;	/* the options tsmctl sets */
	rc = load_fields(&L, root, "topology", top_fields, NFIELDS(top_fields), &r);
	if (rc)
		goto out;
	abi = r.abi;
	L.m->debugfs = r.debugfs;
	/* the released file set is v6.19's in 7.2 and 7.3 too; their drivers differ (ABI.md §2.5) */
	if (!abi || !strcmp(abi, "v7.3") || !strcmp(abi, "v7.2"))
		L.m->abi = ABI_RELEASED;
	else if (!strcmp(abi, "v6.19")) {
		L.m->abi = ABI_RELEASED;
		L.m->release = REL_V619;
	} else if (!strcmp(abi, "proposed"))
		L.m->abi = ABI_PROPOSED;
	else if (!strcmp(abi, "v6.19-rc1") || !strcmp(abi, "proposed-rc1")) {
		/* the TSM-directory stream links of 6.19-rc1 (reverted before v6.19) */
		L.m->abi = abi[0] == 'v' ? ABI_RELEASED : ABI_PROPOSED;
		L.m->release = REL_V619;
		L.m->rc1_links = true;
	}
	else if (!strcmp(abi, "none"))
		L.m->abi = ABI_NONE;
	else {
		rc = fail(&L, "abi is \"v7.3\", \"v7.2\", \"v6.19\", \"v6.19-rc1\", \"proposed\", "
			  "\"proposed-rc1\" or \"none\"");
		goto out;
	}
	if ((v = get(root, "modules")) && (rc = parse_modules(&L, v)))
		goto out;
	if ((v = get(root, "faux")) && (rc = parse_names(&L, v, "faux", add_faux_name)))
		goto out;
	if ((v = get(root, "platform")) &&
	    (rc = parse_names(&L, v, "platform", add_platform_name)))
		goto out;
	if ((v = get(root, "drivers")) && (rc = parse_drivers(&L, v)))
		goto out;
	if ((v = get(root, "tdx_host")) && (rc = parse_tdx_host(&L, v, "tdx_host")))
		goto out;
	if ((v = get(root, "report")) && (rc = parse_report(&L, v)))
		goto out;
	if ((v = get(root, "tdx_guest")) && (rc = parse_tdx_guest(&L, v)))
		goto out;
	if ((v = get(root, "sev_firmware")) && (rc = parse_sev_firmware(&L, v)))
		goto out;
	v = get(root, "host_bridges");
	if (!v || !json_object_is_type(v, json_type_array)) {
		rc = fail(&L, "host_bridges (an array) is required");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(v) && !rc; i++)
		rc = parse_hb(&L, json_object_array_get_idx(v, i));
	if (rc)
		goto out;
	for (size_t i = 0; i < L.m->nr_hbs; i++) {
		struct sim_host_bridge *hb = L.m->hbs[i];

		for (size_t j = 0; j < hb->nr_devs; j++)
			if (!hb->devs[j]->physfn) {
				set_dirs(hb->devs[j], hb->dir);
				set_buses(&L, hb->devs[j]);
			}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(L.m->hbs[j]->name, hb->name))
				rc = fail(&L, "%s: duplicate host bridge", hb->name);
	}
	if (L.err)
		goto out;
	for (size_t i = 0; i < L.m->nr_devs; i++)
		if (L.m->devs[i]->driver)
			add_driver(L.m, L.m->devs[i]->driver);
	v = get(root, "tsms");
	if (v) {
		if (!json_object_is_type(v, json_type_array)) {
			rc = fail(&L, "tsms must be an array");
			goto out;
		}
		for (size_t i = 0; i < json_object_array_length(v) && !rc; i++)
			rc = parse_tsm(&L, json_object_array_get_idx(v, i));
		if (rc)
			goto out;
	}
	keyp_pools(L.m);
	rc = sim_topology_check(L.m, &L.err);
out:
	json_object_put(root);
	if (L.err) {
		rc = -EINVAL;
		*err = L.err;
		sim_model_free(L.m);
		return rc;
	}
	*out = L.m;
	return 0;
}
