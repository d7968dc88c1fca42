// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One device's evidence held whole (evidence-set.h): filled by a dump's
 * sink, or loaded from a directory `evidence -o` saved (manifest.json, the
 * object files, the device's resource, config, serial number and TSM
 * provider), every object file held to the manifest's length and SHA-384 so
 * a changed copy is never judged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>
#include <openssl/evp.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/evidence-set.h"
#include "tsmctl/pci-serial.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/userfile.h"
#include "tsmctl/util.h"

#define MANIFEST_MAX	(1u << 20)

static const char *const file_names[EVIDENCE_NR_TYPES] = {
	"cert0.spdm-chain", "cert1.spdm-chain", "cert2.spdm-chain", "cert3.spdm-chain",
	"cert4.spdm-chain", "cert5.spdm-chain", "cert6.spdm-chain", "cert7.spdm-chain",
	"vca.bin", "measurements.bin", "report.bin",
};

const char *evset_file_name(unsigned int type)
{
	return type < EVIDENCE_NR_TYPES ? file_names[type] : NULL;
}

void evset_init(struct evidence_set *s)
{
	memset(s, 0, sizeof(*s));
	s->generation_before = -1;
}

static void object_clear(struct evset_object *o)
{
	free(o->data);
	memset(o, 0, sizeof(*o));
}

void evset_release(struct evidence_set *s)
{
	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++)
		object_clear(&s->obj[t]);
	free(s->source);
	free(s->resource);
	free(s->config);
	free(s->serial);
	free(s->tsm_provider);
	evset_init(s);
}

int evset_begin(struct evidence_set *s, unsigned int type, uint32_t generation, uint32_t length)
{
	struct evset_object *o = &s->obj[type];

	if (type >= EVIDENCE_NR_TYPES || length > EVIDENCE_OBJECT_MAX)
		return -EINVAL;
	object_clear(o);
	o->present = true;
	o->generation = generation;
	o->length = length;
	o->file = file_names[type];
	/* the reply parser holds every chunk to LENGTH: this is all it can take */
	if (length)
		o->data = xmalloc(length);
	return 0;
}

int evset_chunk(struct evidence_set *s, unsigned int type, const uint8_t *buf, size_t len)
{
	struct evset_object *o = &s->obj[type];

	if (type >= EVIDENCE_NR_TYPES || len > (size_t)(o->length - o->received))
		return -EPROTO;
	if (len)
		memcpy(o->data + o->received, buf, len);
	o->received += (uint32_t)len;
	return 0;
}

void evset_restart(struct evidence_set *s)
{
	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++)
		object_clear(&s->obj[t]);
}

static int sink_begin(void *data, unsigned int type, uint32_t generation, uint32_t length)
{
	return evset_begin(data, type, generation, length);
}

static int sink_chunk(void *data, unsigned int type, const uint8_t *buf, size_t len)
{
	return evset_chunk(data, type, buf, len);
}

static int sink_end(void *data, unsigned int type)
{
	(void)data;
	(void)type;
	return 0;
}

static void sink_restart(void *data)
{
	evset_restart(data);
}

int evset_fetch(struct evidence_set *s, struct evidence_conn *c, const struct evidence_request *req,
		struct evidence_stats *st, struct evidence_error *e)
{
	const struct evidence_sink sink = { s, sink_begin, sink_chunk, sink_end, sink_restart };
	int rc = evidence_fetch(c, req, &sink, st, e);

	if (rc)
		evset_restart(s);
	return rc;
}

/* Only the generation of the first object: its chunks are not kept. */
static int peek_begin(void *data, unsigned int type, uint32_t generation, uint32_t length)
{
	(void)type;
	(void)length;
	*(long long *)data = generation;
	return 0;
}

static int peek_chunk(void *data, unsigned int type, const uint8_t *buf, size_t len)
{
	(void)data;
	(void)type;
	(void)buf;
	(void)len;
	return 0;
}

int evset_peek_generation(struct evidence_conn *c, const char *bdf, unsigned int type,
			  long long *generation, struct evidence_error *e)
{
	const struct evidence_sink sink = { generation, peek_begin, peek_chunk, sink_end, NULL };
	struct evidence_request req = { .subsys = "pci", .dev = bdf, .type_mask = 1u << type };
	struct evidence_stats st;

	*generation = -1;
	return evidence_fetch(c, &req, &sink, &st, e);
}

long long evset_generation(const struct evidence_set *s)
{
	long long g = -1;

	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++) {
		if (!s->obj[t].present)
			continue;
		if (g >= 0 && g != s->obj[t].generation)
			return -1;
		g = s->obj[t].generation;
	}
	return g;
}

/* The provider of the TSM DIR's tsm/lock names: where tsmN/device leads (ABI.md §1.1, §1.2), or NULL. */
static char *lock_provider(const char *dir)
{
	char *tsm = NULL, *provider = NULL, *path, *tsm_dir = NULL, *where;

	if (sysfs_attr_text(dir, "tsm/lock", &tsm) || !*tsm) {
		free(tsm);
		return NULL;
	}
	/* links resolve lexically from a canonical directory: the class link's target first */
	path = xasprintf(TSM_CLASS "/%s", tsm);
	if (!sysfs_resolve_link(path, &tsm_dir)) {
		free(path);
		path = path_join(tsm_dir, "device");
		if (!sysfs_resolve_link(path, &where)) {
			provider = xstrdup(path_base(where));
			free(where);
		}
	}
	free(tsm_dir);
	free(path);
	free(tsm);
	return provider;
}

void evset_read_device(struct evidence_set *s)
{
	char *dir = path_join(PCI_DEVICES, s->bdf);
	int rc;

	/* the kernel's serial_number: admin only, and absent without a DSN (ABI.md §7.4) */
	s->serial_err = pci_serial_read(dir, &s->serial);
	s->tsm_provider = lock_provider(dir);
	rc = sysfs_attr_text(dir, "resource", &s->resource);
	if (rc) {
		s->resource = NULL;
		s->device_err = rc;
		free(dir);
		return;
	}
	free(dir);
	dir = xasprintf(PCI_DEVICES "/%s/config", s->bdf);
	s->config = xmalloc(EVSET_CONFIG_MAX);
	rc = sysfs_read_bin(dir, s->config, EVSET_CONFIG_MAX, &s->config_len);
	free(dir);
	if (rc) {
		free(s->config);
		s->config = NULL;
		s->config_len = 0;
		s->device_err = rc;
	}
}

/* ---- a saved directory ---- */

/*
 * How a saved directory's files are read: one the user names (--from) as
 * any file, one inside a capture's tree below the sysroot as sysfs.c reads
 * the tree, never leaving it (the capture is untrusted input).
 */
struct evset_files {
	int (*read)(const char *path, size_t max, uint8_t **buf, size_t *len);
	char *(*error)(const char *path, int err, size_t max);
};

static const struct evset_files user_files = { userfile_read, userfile_error };

/* A file of the tree, NUL-terminated past *LEN as userfile_read() gives it. */
static int tree_read(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	uint8_t *raw;
	int rc = sysfs_read_blob(path, max, &raw, len);

	if (rc)
		return rc;
	*buf = xmalloc(*len + 1);
	memcpy(*buf, raw, *len);
	(*buf)[*len] = 0;
	free(raw);
	return 0;
}

static char *tree_error(const char *path, int err, size_t max)
{
	char *shown = sysfs_display_path(path), *why;

	why = err == -EFBIG ? xasprintf("%s: larger than %zu bytes", shown, max) :
	      xasprintf("%s: %s", shown, strerror(-err));
	free(shown);
	return why;
}

static const struct evset_files tree_files = { tree_read, tree_error };

static void sha384_hex(const uint8_t *p, size_t n, char hex[97])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (!EVP_Digest(p, n, md, &len, EVP_sha384(), NULL))
		out_of_memory();
	for (unsigned int i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
}

static const char *json_string_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool json_u32_of(json_object *o, const char *key, uint32_t *out)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	n = json_object_get_int64(v);
	if (n < 0 || n > UINT32_MAX)
		return false;
	*out = (uint32_t)n;
	return true;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Lower-case hex digits into bytes: the manifest's nonce. */
static bool unhex(const char *hex, uint8_t *out, size_t max, size_t *len)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > max)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return true;
}

/* One object of the manifest: its file, length and digest as recorded. */
static int load_object(struct evidence_set *s, const struct evset_files *io, const char *dir,
		       json_object *j, char **why)
{
	const char *type = json_string_of(j, "type"), *file, *sha384;
	struct evset_object *o;
	uint32_t length, generation;
	char *path, hex[97] = "";
	uint8_t *data;
	size_t len;
	int t, rc;

	t = type ? evidence_type_parse(type) : -EINVAL;
	if (t < 0 || !json_u32_of(j, "length", &length) || !json_u32_of(j, "generation", &generation) ||
	    length > EVIDENCE_OBJECT_MAX) {
		*why = xasprintf("%s: an object without a known type, length or generation", EVSET_MANIFEST);
		return -EBADMSG;
	}
	o = &s->obj[t];
	if (o->present) {
		*why = xasprintf("%s: %s is listed twice", EVSET_MANIFEST, type);
		return -EBADMSG;
	}
	o->present = true;
	o->length = length;
	o->generation = generation;
	o->file = file_names[t];
	if (!length)
		return 0;
	file = json_string_of(j, "file");
	sha384 = json_string_of(j, "sha384");
	if (!file || !streq(file, file_names[t]) || !sha384) {
		*why = xasprintf("%s: %s (%u bytes) was not saved with it (no file, or not %s)",
				 EVSET_MANIFEST, type, length, file_names[t]);
		return -ENOENT;
	}
	path = path_join(dir, file);
	rc = io->read(path, EVIDENCE_OBJECT_MAX, &data, &len);
	if (rc) {
		*why = io->error(path, rc, EVIDENCE_OBJECT_MAX);
		free(path);
		return rc;
	}
	if (len == length)
		sha384_hex(data, len, hex);
	if (len != length || !streq(hex, sha384)) {
		*why = xasprintf("%s: %s than the manifest says: the directory was changed after it "
				 "was saved", path, len != length ? "other length" : "another SHA-384");
		free(data);
		free(path);
		return -EBADMSG;
	}
	free(path);
	o->data = data;
	o->received = length;
	return 0;
}

/* DIR/NAME's text, one trailing newline dropped, into *TEXT (NULL when absent): 0 or -errno. */
static int load_text(const struct evset_files *io, const char *dir, const char *name, size_t max,
		     char **text)
{
	char *path = path_join(dir, name);
	uint8_t *buf;
	size_t len;
	int rc = io->read(path, max, &buf, &len);

	free(path);
	*text = NULL;
	if (rc)
		return rc;
	if (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	if (strlen((char *)buf) != len) {
		free(buf);
		return -EILSEQ;
	}
	*text = (char *)buf;
	return 0;
}

/* The device's files beside the objects, when they were saved. */
static void load_device(struct evidence_set *s, const struct evset_files *io, const char *dir)
{
	char *path = path_join(dir, EVSET_RESOURCE);
	uint8_t *buf;
	size_t len;
	int rc;

	s->serial_err = load_text(io, dir, EVSET_SERIAL, 64, &s->serial);
	/* what the kernel showed, saved: its form is the kernel's or it is no serial_number */
	if (s->serial && !pci_serial_form_ok(s->serial)) {
		free(s->serial);
		s->serial = NULL;
		s->serial_err = -EBADMSG;
	}
	if (load_text(io, dir, EVSET_TSM_PROVIDER, 256, &s->tsm_provider))
		s->tsm_provider = NULL;
	rc = io->read(path, 65536, &buf, &len);
	free(path);
	if (rc) {
		s->device_err = rc;
		return;
	}
	s->resource = (char *)buf;
	path = path_join(dir, EVSET_CONFIG);
	rc = io->read(path, EVSET_CONFIG_MAX, &s->config, &s->config_len);
	free(path);
	if (rc)
		s->device_err = rc;
}

static int load_manifest(struct evidence_set *s, const struct evset_files *io, const char *dir,
			 json_object *doc, const char *bdf, char **why)
{
	json_object *arr, *ev, *objs;
	const char *got, *nonce;
	int rc = 0;

	if (!json_object_object_get_ex(doc, "evidence", &arr) ||
	    !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) != 1 ||
	    !json_object_is_type((ev = json_object_array_get_idx(arr, 0)), json_type_object) ||
	    !(got = json_string_of(ev, "bdf")) || bdf_canonical(got, s->bdf) ||
	    !json_object_object_get_ex(ev, "objects", &objs) ||
	    !json_object_is_type(objs, json_type_array)) {
		*why = xasprintf("%s/%s: not the manifest of 'tsmctl evidence -o'", dir, EVSET_MANIFEST);
		return -EBADMSG;
	}
	if (bdf && !streq(bdf, s->bdf)) {
		*why = xasprintf("%s holds the evidence of %s, not of %s", dir, s->bdf, bdf);
		return -ENODEV;
	}
	nonce = json_string_of(ev, "nonce");
	if (nonce && !unhex(nonce, s->nonce, sizeof(s->nonce), &s->nonce_len)) {
		*why = xasprintf("%s/%s: the nonce is not hex", dir, EVSET_MANIFEST);
		return -EBADMSG;
	}
	for (size_t i = 0; !rc && i < json_object_array_length(objs); i++)
		rc = load_object(s, io, dir, json_object_array_get_idx(objs, i), why);
	if (!rc)
		load_device(s, io, dir);
	return rc;
}

/* DIR itself, or the capture's tsmctl-evidence/BDF. */
static char *manifest_dir(const char *dir, const char *bdf, char **why)
{
	char *path = path_join(dir, EVSET_MANIFEST), *sub;

	if (!access(path, F_OK)) {
		free(path);
		return xstrdup(dir);
	}
	free(path);
	if (!bdf) {
		*why = xasprintf("%s: no %s (in a tsmctl-collect capture, name the device: "
				 "tsmctl evidence --from %s BDF)", dir, EVSET_MANIFEST, dir);
		return NULL;
	}
	sub = path_join3(dir, EVSET_CAPTURE_DIR, bdf);
	path = path_join(sub, EVSET_MANIFEST);
	if (!access(path, F_OK)) {
		free(path);
		return sub;
	}
	*why = xasprintf("%s: no %s, and no %s/%s/%s (a tsmctl-collect capture of that device's "
			 "evidence)", dir, EVSET_MANIFEST, EVSET_CAPTURE_DIR, bdf, EVSET_MANIFEST);
	free(path);
	free(sub);
	return NULL;
}

/* The manifest in WHERE and the files it lists, read through IO; SHOWN names WHERE in S. */
static int load_where(struct evidence_set *s, const struct evset_files *io, const char *where,
		      char *shown, const char *bdf, char **why)
{
	char *path = path_join(where, EVSET_MANIFEST);
	json_tokener *tok;
	json_object *doc;
	uint8_t *text;
	size_t len;
	int rc;

	rc = io->read(path, MANIFEST_MAX, &text, &len);
	if (rc) {
		*why = io->error(path, rc, MANIFEST_MAX);
		free(path);
		free(shown);
		return rc;
	}
	tok = json_tokener_new();
	doc = json_tokener_parse_ex(tok, (const char *)text, (int)len);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		*why = xasprintf("%s: not JSON", shown);
		free(shown);
		rc = -EBADMSG;
	} else {
		s->from_dir = true;
		s->source = shown;
		rc = load_manifest(s, io, where, doc, bdf, why);
	}
	json_object_put(doc);
	json_tokener_free(tok);
	free(text);
	free(path);
	return rc;
}

int evset_load_dir(struct evidence_set *s, const char *dir, const char *bdf, char **why)
{
	char *where = manifest_dir(dir, bdf, why);
	int rc;

	if (!where)
		return -ENOENT;
	rc = load_where(s, &user_files, where, xstrdup(where), bdf, why);
	free(where);
	return rc;
}

/* The first line of tsmctl-evidence/BDF.unsaved in the tree, allocated; NULL when there is none. */
static char *unsaved_reason(const char *bdf)
{
	char *name = xasprintf("%s%s", bdf, EVSET_UNSAVED), *path = path_join(EVSET_CAPTURE_DIR, name);
	uint8_t *text;
	size_t len;
	char *why = NULL;

	if (!tree_read(path, 4096, &text, &len)) {
		why = xasprintf("%.*s", (int)strcspn((const char *)text, "\n"), (const char *)text);
		free(text);
	}
	free(path);
	free(name);
	return why;
}

int evset_load_capture(struct evidence_set *s, const char *bdf, char **why)
{
	char *sub = path_join(EVSET_CAPTURE_DIR, bdf), *manifest = path_join(sub, EVSET_MANIFEST);
	int rc = -ENOENT;

	*why = NULL;
	if (sysfs_exists(manifest))
		rc = load_where(s, &tree_files, sub, sysfs_display_path(sub), bdf, why);
	else
		*why = unsaved_reason(bdf);
	free(manifest);
	free(sub);
	return rc;
}
