// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reference manifest (evidence-reference.h, schema/reference.schema.json):
 * parsed strictly, an unknown member being an error, so that a typo never
 * silently drops a requirement. The device mode bit names are DSP0274 1.2's
 * "Device mode field of a measurement block" (libspdm's spdm.h agrees:
 * SPDM_MEASUREMENT_DEVICE_OPERATION_MODE_*, SPDM_MEASUREMENT_DEVICE_MODE_*).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "tsmctl/evidence-reference.h"
#include "tsmctl/spdm-meas.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/userfile.h"
#include "tsmctl/util.h"

static const char *const operational_names[] = {
	"manufacturing", "validation", "normal", "recovery", "rma", "decommissioned",
};

static const char *const device_mode_names[] = {
	"non_invasive_debug_active", "invasive_debug_active", "non_invasive_debug_was_active",
	"invasive_debug_was_active", "invasive_debug_was_active_after_mfg",
};

const char *ev_operational_mode_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(operational_names) ? operational_names[bit] : NULL;
}

const char *ev_device_mode_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(device_mode_names) ? device_mode_names[bit] : NULL;
}

const struct ev_ref_entry *ev_reference_entry(const struct ev_reference *ref, unsigned int index)
{
	for (size_t i = 0; i < ref->nr_entries; i++)
		if (ref->entries[i].index == index)
			return &ref->entries[i];
	return NULL;
}

bool ev_ref_allows(const struct ev_ref_names *names, const char *name)
{
	if (names->any)
		return true;
	for (size_t i = 0; name && i < names->n; i++)
		if (streq(names->v[i], name))
			return true;
	return false;
}

/* Members of OBJ outside KEYS: the first one's name, or NULL. */
static const char *unknown_member(json_object *obj, const char *const *keys)
{
	json_object_object_foreach(obj, key, val) {
		size_t i = 0;

		(void)val;
		while (keys[i] && !streq(keys[i], key))
			i++;
		if (!keys[i])
			return key;
	}
	return NULL;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool parse_hex(const char *s, struct ev_ref_bytes *out)
{
	size_t n = strlen(s);

	if (!n || n % 2)
		return false;
	out->p = xmalloc(n / 2);
	out->len = n / 2;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(out->p);
			out->p = NULL;
			return false;
		}
		out->p[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/*
 * An array of strings at KEY into *LIST (appended): hex digits, or with TEXT
 * the strings' own bytes. -EINVAL with *WHY for anything else.
 */
static int byte_list(json_object *obj, const char *key, bool text, const char *where,
		     struct ev_ref_bytes **list, size_t *n, char **why)
{
	json_object *arr;

	if (!json_object_object_get_ex(obj, key, &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array) || !json_object_array_length(arr)) {
		*why = xasprintf("%s: \"%s\" must be a non-empty array of strings", where, key);
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);
		struct ev_ref_bytes b = { 0 };

		if (!json_object_is_type(v, json_type_string) ||
		    (!text && !parse_hex(json_object_get_string(v), &b))) {
			*why = xasprintf("%s: \"%s\"[%zu] must be %s", where, key, i,
					 text ? "a string" : "a string of hex digit pairs");
			return -EINVAL;
		}
		if (text) {
			b.len = (size_t)json_object_get_string_len(v);
			b.p = xmalloc(b.len ? b.len : 1);
			memcpy(b.p, json_object_get_string(v), b.len);
		}
		*list = xrealloc(*list, (*n + 1) * sizeof(**list));
		(*list)[(*n)++] = b;
	}
	return 0;
}

static int meas_type_by_name(const char *name)
{
	for (unsigned int t = 0; spdm_meas_type_name(t); t++)
		if (streq(spdm_meas_type_name(t), name))
			return (int)t;
	return -1;
}

static int parse_entry(json_object *o, size_t i, struct ev_reference *ref, char **why)
{
	static const char *const keys[] = { "index", "type", "digests", "values", "texts",
					    "optional", "comment", NULL };
	struct ev_ref_entry *e = &ref->entries[ref->nr_entries];
	char *where = xasprintf("measurements[%zu]", i);
	json_object *v;
	const char *bad;
	int rc = -EINVAL;

	memset(e, 0, sizeof(*e));
	e->type = -1;
	if (!json_object_is_type(o, json_type_object)) {
		*why = xasprintf("%s: not an object", where);
		goto out;
	}
	if ((bad = unknown_member(o, keys))) {
		*why = xasprintf("%s: unknown member \"%s\"", where, bad);
		goto out;
	}
	if (!json_object_object_get_ex(o, "index", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 1 || json_object_get_int64(v) > EV_REF_MAX_ENTRIES) {
		*why = xasprintf("%s: \"index\" must be a number from 1 to %u", where, EV_REF_MAX_ENTRIES);
		goto out;
	}
	e->index = (unsigned int)json_object_get_int64(v);
	if (ev_reference_entry(ref, e->index)) {
		*why = xasprintf("%s: index %u is listed twice", where, e->index);
		goto out;
	}
	if (json_object_object_get_ex(o, "type", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     (e->type = meas_type_by_name(json_object_get_string(v))) < 0)) {
		*why = xasprintf("%s: \"type\" must be a DMTF value type name (immutable_rom, "
				 "mutable_firmware, ...)", where);
		goto out;
	}
	if (json_object_object_get_ex(o, "optional", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			*why = xasprintf("%s: \"optional\" must be true or false", where);
			goto out;
		}
		e->optional = json_object_get_boolean(v);
	}
	ref->nr_entries++;	/* owned now: released with the reference */
	rc = byte_list(o, "digests", false, where, &e->digests, &e->nr_digests, why) ?:
	     byte_list(o, "values", false, where, &e->values, &e->nr_values, why) ?:
	     byte_list(o, "texts", true, where, &e->values, &e->nr_values, why);
	if (!rc && e->nr_digests && e->nr_values) {
		*why = xasprintf("%s: a block is a digest or a raw value: \"digests\" excludes "
				 "\"values\" and \"texts\"", where);
		rc = -EINVAL;
	}
out:
	free(where);
	return rc;
}

static int pick_name(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(s, names[i]))
			return (int)i;
	return -1;
}

static int parse_device_mode(json_object *o, struct ev_reference *ref, char **why)
{
	static const char *const keys[] = { "operational", "debug", NULL };
	static const char *const debug_names[] = { "any", "inactive", "never" };
	json_object *v;
	const char *bad;
	int k;

	if (!json_object_is_type(o, json_type_object)) {
		*why = xstrdup("device_mode: not an object");
		return -EINVAL;
	}
	if ((bad = unknown_member(o, keys))) {
		*why = xasprintf("device_mode: unknown member \"%s\"", bad);
		return -EINVAL;
	}
	ref->has_device_mode = true;
	ref->operational = -1;
	if (json_object_object_get_ex(o, "operational", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    (k = pick_name(json_object_get_string(v), operational_names,
				   ARRAY_SIZE(operational_names))) < 0) {
			*why = xstrdup("device_mode: \"operational\" must be manufacturing, validation, "
				       "normal, recovery, rma or decommissioned");
			return -EINVAL;
		}
		ref->operational = k;
	}
	if (json_object_object_get_ex(o, "debug", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    (k = pick_name(json_object_get_string(v), debug_names, ARRAY_SIZE(debug_names))) < 0) {
			*why = xstrdup("device_mode: \"debug\" must be any, inactive or never");
			return -EINVAL;
		}
		ref->debug = (enum ev_ref_debug)k;
	}
	return 0;
}

static int parse_names(json_object *o, const char *key, struct ev_ref_names *names, char **why)
{
	json_object *arr;

	names->any = true;
	if (!json_object_object_get_ex(o, key, &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array)) {
		*why = xasprintf("algorithms: \"%s\" must be an array of names", key);
		return -EINVAL;
	}
	names->any = false;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(v, json_type_string)) {
			*why = xasprintf("algorithms: \"%s\"[%zu] must be a name", key, i);
			return -EINVAL;
		}
		names->v = xrealloc(names->v, (names->n + 1) * sizeof(*names->v));
		names->v[names->n++] = xstrdup(json_object_get_string(v));
	}
	return 0;
}

static int parse_algorithms(json_object *o, struct ev_reference *ref, char **why)
{
	static const char *const keys[] = { "base_asym", "base_hash", "measurement_hash", NULL };
	const char *bad;

	if (!o) {
		ref->base_asym.any = ref->base_hash.any = ref->meas_hash.any = true;
		return 0;
	}
	if (!json_object_is_type(o, json_type_object) || (bad = unknown_member(o, keys))) {
		*why = xstrdup("algorithms: an object of base_asym, base_hash, measurement_hash");
		return -EINVAL;
	}
	return parse_names(o, "base_asym", &ref->base_asym, why) ?:
	       parse_names(o, "base_hash", &ref->base_hash, why) ?:
	       parse_names(o, "measurement_hash", &ref->meas_hash, why);
}

static int parse_top(json_object *doc, struct ev_reference *ref, char **why)
{
	static const char *const keys[] = { "schema_version", "comment", "measurements",
					    "unknown_indices", "device_mode", "min_security_version",
					    "algorithms", NULL };
	static const char *const unknown_names[] = { "warn", "fail", "ignore" };
	json_object *v, *arr;
	const char *bad;
	int rc, k;

	if (!json_object_is_type(doc, json_type_object)) {
		*why = xstrdup("not a JSON object");
		return -EINVAL;
	}
	if ((bad = unknown_member(doc, keys))) {
		*why = xasprintf("unknown member \"%s\"", bad);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(doc, "schema_version", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != 1) {
		*why = xstrdup("\"schema_version\" must be 1");
		return -EINVAL;
	}
	if (json_object_object_get_ex(doc, "measurements", &arr)) {
		if (!json_object_is_type(arr, json_type_array) ||
		    json_object_array_length(arr) > EV_REF_MAX_ENTRIES) {
			*why = xasprintf("\"measurements\" must be an array of at most %u entries",
					 EV_REF_MAX_ENTRIES);
			return -EINVAL;
		}
		ref->entries = xcalloc(json_object_array_length(arr) + 1, sizeof(*ref->entries));
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			rc = parse_entry(json_object_array_get_idx(arr, i), i, ref, why);
			if (rc)
				return rc;
		}
	}
	if (json_object_object_get_ex(doc, "unknown_indices", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    (k = pick_name(json_object_get_string(v), unknown_names,
				   ARRAY_SIZE(unknown_names))) < 0) {
			*why = xstrdup("\"unknown_indices\" must be warn, fail or ignore");
			return -EINVAL;
		}
		ref->unknown = (enum ev_ref_unknown)k;
	}
	if (json_object_object_get_ex(doc, "device_mode", &v) && (rc = parse_device_mode(v, ref, why)))
		return rc;
	if (json_object_object_get_ex(doc, "min_security_version", &v)) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
			*why = xstrdup("\"min_security_version\" must be a number, 0 or more");
			return -EINVAL;
		}
		ref->has_min_svn = true;
		ref->min_svn = (uint64_t)json_object_get_int64(v);
	}
	if (!json_object_object_get_ex(doc, "algorithms", &v))
		v = NULL;
	return parse_algorithms(v, ref, why);
}

int ev_reference_parse(const char *text, size_t len, struct ev_reference *ref, char **why)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc;
	int rc;

	memset(ref, 0, sizeof(*ref));
	ref->operational = -1;
	if (!tok)
		out_of_memory();
	doc = json_tokener_parse_ex(tok, text, (int)(len > INT32_MAX ? INT32_MAX : len));
	if (!doc || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		*why = xasprintf("not JSON (%s)", json_tokener_error_desc(json_tokener_get_error(tok)));
		rc = -EINVAL;
	} else {
		rc = parse_top(doc, ref, why);
	}
	json_object_put(doc);
	json_tokener_free(tok);
	return rc;
}

int ev_reference_load(const char *path, struct ev_reference *ref, char **why)
{
	uint8_t *text;
	size_t len;
	char *inner = NULL;
	int rc = userfile_read(path, EV_REF_MAX_FILE, &text, &len);

	if (rc) {
		memset(ref, 0, sizeof(*ref));
		*why = userfile_error(path, rc, EV_REF_MAX_FILE);
		return rc;
	}
	rc = ev_reference_parse((const char *)text, len, ref, &inner);
	free(text);
	if (rc) {
		*why = xasprintf("%s: %s", path, inner);
		free(inner);
		ev_reference_release(ref);	/* what was parsed before the error */
		return rc;
	}
	ref->path = xstrdup(path);
	return 0;
}

static void bytes_list_free(struct ev_ref_bytes *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].p);
	free(v);
}

void ev_reference_release(struct ev_reference *ref)
{
	for (size_t i = 0; i < ref->nr_entries; i++) {
		bytes_list_free(ref->entries[i].digests, ref->entries[i].nr_digests);
		bytes_list_free(ref->entries[i].values, ref->entries[i].nr_values);
	}
	free(ref->entries);
	strv_free(ref->base_asym.v, ref->base_asym.n);
	strv_free(ref->base_hash.v, ref->base_hash.n);
	strv_free(ref->meas_hash.v, ref->meas_hash.n);
	free(ref->path);
	memset(ref, 0, sizeof(*ref));
}
