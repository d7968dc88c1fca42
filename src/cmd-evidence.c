// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl evidence: a device's evidence objects (certificate chains, VCA,
 * measurements, TDISP interface report) over the proposed device-evidence
 * generic netlink family (ABI.md §1.6, evidence-netlink.c). Each object is
 * streamed as it arrives: hashed (SHA-384, SHA-256) and, with -o DIR,
 * written to its own file, never held whole, unless -v (decoded views,
 * evidence-view.c) or --verify (evidence-judge.c) needs it in memory. --from
 * DIR reads a saved directory instead, with no kernel involved. A dependent
 * function resolves to its DSM; explain-evidence.c turns a failure into
 * advice from state.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libsmartcols.h>
#include <openssl/evp.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/action.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/evidence.h"
#include "tsmctl/evidence-judge.h"
#include "tsmctl/evidence-results.h"
#include "tsmctl/evidence-view.h"
#include "tsmctl/explain.h"
#include "tsmctl/names.h"
#include "tsmctl/outfile.h"
#include "tsmctl/output.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/stopsig.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define CMD "evidence"
#define MANIFEST "manifest.json"

static struct evidence_param {
	const char *types, *nonce, *nonce_file, *dir, *from;
	bool fresh, verify;
	struct ev_judge_opts judge;
} param;

/* What a -J --verify that read nothing names: the device (once valid) and where it was to be read. */
static struct {
	char bdf[BDF_MAX];
	bool from_dir;
} unread;

struct object {
	bool seen;
	uint32_t length, generation, received;
	EVP_MD_CTX *sha256, *sha384;
	char hex256[2 * 32 + 1], hex384[2 * 48 + 1];
	struct outfile out;
	char *path;		/* DIR/NAME while it is written; NULL for none */
};

struct fetch {
	struct object obj[EVIDENCE_NR_TYPES];
	const char *dir;
	int failed_type;	/* the object a write failed for, else -1 */
	struct evidence_set *keep;	/* -v, --verify: the objects held whole too */
};

/* ---- the sink: digests and files as the bytes arrive ---- */

static void digest_hex(EVP_MD_CTX *ctx, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_DigestFinal_ex(ctx, md, &n))
		out_of_memory();
	for (unsigned int i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * n] = '\0';
}

static void object_drop(struct object *o)
{
	EVP_MD_CTX_free(o->sha256);
	EVP_MD_CTX_free(o->sha384);
	outfile_discard(&o->out);
	free(o->path);
	*o = (struct object){ .out = { .fd = -1 } };
}

static int sink_begin(void *data, unsigned int type, uint32_t generation, uint32_t length)
{
	struct fetch *f = data;
	struct object *o = &f->obj[type];
	int rc;

	object_drop(o);
	o->seen = true;
	o->length = length;
	o->generation = generation;
	o->sha256 = EVP_MD_CTX_new();
	o->sha384 = EVP_MD_CTX_new();
	if (!o->sha256 || !o->sha384 || !EVP_DigestInit_ex(o->sha256, EVP_sha256(), NULL) ||
	    !EVP_DigestInit_ex(o->sha384, EVP_sha384(), NULL))
		out_of_memory();
	if (f->keep && (rc = evset_begin(f->keep, type, generation, length)))
		return rc;
	/* an empty object is no file: the manifest says its length is 0 */
	if (!f->dir || !length)
		return 0;
	o->path = path_join(f->dir, evset_file_name(type));
	rc = outfile_open(&o->out, o->path, 0644);
	if (rc)
		f->failed_type = (int)type;
	return rc;
}

static int sink_chunk(void *data, unsigned int type, const uint8_t *buf, size_t len)
{
	struct fetch *f = data;
	struct object *o = &f->obj[type];
	int rc = 0;

	if (!EVP_DigestUpdate(o->sha256, buf, len) || !EVP_DigestUpdate(o->sha384, buf, len))
		out_of_memory();
	if (f->keep && (rc = evset_chunk(f->keep, type, buf, len)))
		return rc;
	if (o->path)
		rc = outfile_write(&o->out, buf, len);
	if (rc)
		f->failed_type = (int)type;
	o->received += (uint32_t)len;
	return rc;
}

static int sink_end(void *data, unsigned int type)
{
	struct fetch *f = data;
	struct object *o = &f->obj[type];

	digest_hex(o->sha256, o->hex256);
	digest_hex(o->sha384, o->hex384);
	return 0;
}

static void sink_restart(void *data)
{
	struct fetch *f = data;

	for (int t = 0; t < EVIDENCE_NR_TYPES; t++)
		object_drop(&f->obj[t]);
	if (f->keep)
		evset_restart(f->keep);
}

/* The digests of an object held whole (one loaded from a directory). */
static void object_from_set(struct object *o, const struct evset_object *so)
{
	*o = (struct object){ .seen = true, .length = so->length, .generation = so->generation,
			      .received = so->length, .out = { .fd = -1 } };
	o->sha256 = EVP_MD_CTX_new();
	o->sha384 = EVP_MD_CTX_new();
	if (!o->sha256 || !o->sha384 || !EVP_DigestInit_ex(o->sha256, EVP_sha256(), NULL) ||
	    !EVP_DigestInit_ex(o->sha384, EVP_sha384(), NULL) ||
	    !EVP_DigestUpdate(o->sha256, so->data ? so->data : (const uint8_t *)"", so->length) ||
	    !EVP_DigestUpdate(o->sha384, so->data ? so->data : (const uint8_t *)"", so->length))
		out_of_memory();
	digest_hex(o->sha256, o->hex256);
	digest_hex(o->sha384, o->hex384);
	if (so->length)
		o->path = xstrdup(so->file);
}

/* ---- options ---- */

static int parse_types(struct cmd_ctx *ctx, uint32_t *mask)
{
	char *copy, *save = NULL;
	int rc = 0;

	*mask = 0;
	if (!param.types) {
		*mask = EVIDENCE_ALL_TYPES;
		return 0;
	}
	copy = xstrdup(param.types);
	for (char *tok = strtok_r(copy, ", \t", &save); tok && !rc;
	     tok = strtok_r(NULL, ", \t", &save)) {
		int t = streq(tok, "all") ? -2 : evidence_type_parse(tok);

		if (t == -2)
			*mask = EVIDENCE_ALL_TYPES;
		else if (t < 0)
			rc = usage_error(ctx->cmd, "unknown evidence type '%s' (cert0..cert7, vca, "
					 "measurements, report, or 0-10)", tok);
		else
			*mask |= 1u << t;
	}
	free(copy);
	if (!rc && !*mask)
		rc = usage_error(ctx->cmd, "--type needs a value (a list of types, or 'all')");
	return rc;
}

/* The nonce: --nonce HEX, --nonce-file FILE or --fresh (getrandom), at most one. */
static int get_nonce(struct cmd_ctx *ctx, uint8_t *nonce, size_t *len, const char **source)
{
	int given = !!param.nonce + !!param.nonce_file + param.fresh;
	ssize_t n;

	*len = 0;
	*source = NULL;
	if (given > 1)
		return usage_error(ctx->cmd, "--nonce, --nonce-file and --fresh exclude each other");
	if (param.nonce) {
		*source = "hex";
		return parse_hex_option(ctx->cmd, "--nonce", param.nonce, nonce, EVIDENCE_NONCE_MAX,
					len);
	}
	if (param.nonce_file) {
		*source = "file";
		return read_option_file(ctx->cmd, "--nonce-file", param.nonce_file, nonce,
					EVIDENCE_NONCE_MAX, len);
	}
	if (!param.fresh)
		return 0;
	*source = "fresh";
	do
		n = getrandom(nonce, EVIDENCE_NONCE_MAX, 0);
	while (n < 0 && errno == EINTR);
	if (n != EVIDENCE_NONCE_MAX) {
		cmd_error(CMD, "--fresh: no random bytes from getrandom(): %s",
			  strerror(n < 0 ? errno : EIO));
		return EXIT_FAIL;
	}
	*len = EVIDENCE_NONCE_MAX;
	return 0;
}

/* -o DIR: made when missing; an existing one must be a directory, never a link to one. */
static int prepare_dir(const struct cmd_def *cmd, const char *dir)
{
	struct stat st;

	if (!*dir)
		return usage_error(cmd, "--output: empty directory name");
	/* a directory of files is no stream; -J prints the manifest's document on stdout */
	if (streq(dir, "-"))
		return usage_error(cmd, "--output -: the evidence is saved as a directory (an object "
				   "file each and manifest.json), not to stdout: name a directory, or "
				   "use -J for the manifest's document");
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT && mkdir(dir, 0755) == 0)
			return 0;
		cmd_error(CMD, "--output %s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	if (S_ISDIR(st.st_mode))
		return 0;
	cmd_error(CMD, "--output %s: %s, not a directory: refusing to write into it",
		  dir, S_ISLNK(st.st_mode) ? "a symbolic link" : "exists");
	return EXIT_FAIL;
}

/*
 * The device to read: a BDF, or a slot (its function 0). A dependent of a
 * connected DSM reads the DSM's evidence, said in a note (ABI.md §1.6).
 */
static int resolve_target(struct cmd_ctx *ctx, char *requested, char *bdf)
{
	const char *arg = ctx->args[0];
	char *path, *dsm = NULL;

	if (bdf_canonical(arg, bdf) == 0) {
		/* nothing to do: a function */
	} else if (slot_canonical(arg, bdf) == 0) {
		bdf[strlen(bdf) - 1] = '0';	/* "DDDD:BB:DD.*" → its function 0 */
		if (action_device_present(bdf))
			cmd_note(CMD, "%s is a slot: reading its function 0, %s", arg, bdf);
	} else {
		return usage_error(ctx->cmd, "invalid PCI address '%s' (expected [DDDD:]BB:DD.F, or "
				   "[DDDD:]BB:DD for a slot's function 0)", arg);
	}
	snprintf(unread.bdf, sizeof(unread.bdf), "%s", bdf);
	if (!action_device_present(bdf)) {
		cmd_error(CMD, "%s: no such PCI device (see 'tsmctl devices --all')", bdf);
		return EXIT_FAIL;
	}
	snprintf(requested, BDF_MAX, "%s", bdf);
	/* one attribute, not a scan: tsm/dsm names the DSM of a function with a context */
	path = xasprintf(PCI_DEVICES "/%s/tsm/dsm", bdf);
	if (sysfs_read_text(path, &dsm) == 0 && *dsm && !streq(dsm, bdf) &&
	    bdf_canonical(dsm, bdf) == 0)
		cmd_note(CMD, "%s is a dependent function of the DSM %s: reading the DSM's "
			 "evidence", requested, bdf);
	free(dsm);
	free(path);
	return 0;
}

/* ---- output ---- */

struct result {
	const char *requested, *bdf;
	const struct evidence_family *fam;	/* NULL: read from a directory */
	const struct evidence_stats *st;
	const uint8_t *nonce;
	size_t nonce_len;
	const char *nonce_source;
	uint32_t mask;
	const struct fetch *f;
	const struct ev_decoded *decoded;	/* -v: each object's "decoded", else null */
};

static struct json_object *document(const struct result *res)
{
	struct json_object *o = json_object_new_object(), *fam = NULL;
	struct json_object *objs = json_object_new_array();
	long long generation = -1;
	char *nonce = res->nonce_len ? ev_hex(res->nonce, res->nonce_len) : NULL;

	json_object_object_add(o, "bdf", js_str(res->bdf));
	json_object_object_add(o, "requested", js_str(res->requested));
	json_object_object_add(o, "subsys", js_str("pci"));
	json_object_object_add(o, "source", js_str(res->fam ? "kernel" : "directory"));
	if (res->fam) {
		fam = json_object_new_object();
		json_object_object_add(fam, "id", js_u64(res->fam->id));
		json_object_object_add(fam, "version", js_u64(res->fam->version));
		json_object_object_add(fam, "validate", js_bool(res->fam->has_validate));
	}
	json_object_object_add(o, "family", fam);
	json_object_object_add(o, "nonce", js_str(nonce));
	json_object_object_add(o, "nonce_source", js_str(res->nonce_source));
	json_object_object_add(o, "attempts", res->st ? js_u64(res->st->attempts) : NULL);
	for (int t = 0; t < EVIDENCE_NR_TYPES; t++) {
		const struct object *ob = &res->f->obj[t];
		struct json_object *j;

		if (!(res->mask & (1u << t)))
			continue;
		generation = ob->generation;
		j = json_object_new_object();
		json_object_object_add(j, "type", js_str(evidence_type_name((unsigned)t)));
		json_object_object_add(j, "type_id", js_u64((unsigned)t));
		json_object_object_add(j, "length", js_u64(ob->length));
		json_object_object_add(j, "generation", js_u64(ob->generation));
		json_object_object_add(j, "sha256", js_str(ob->length ? ob->hex256 : NULL));
		json_object_object_add(j, "sha384", js_str(ob->length ? ob->hex384 : NULL));
		json_object_object_add(j, "file", js_str(ob->path ? evset_file_name((unsigned)t) : NULL));
		json_object_object_add(j, "decoded",
				       res->decoded ? ev_view_json(res->decoded, (unsigned)t) : NULL);
		json_object_array_add(objs, j);
	}
	json_object_object_add(o, "generation", js_num(generation));
	json_object_object_add(o, "objects", objs);
	free(nonce);
	return o;
}

static void print_document(FILE *out, const struct result *res)
{
	json_list_single(out, "evidence", document(res));
}

enum { COL_TYPE, COL_BYTES, COL_GENERATION, COL_SHA384, COL_SHA256, COL_FILE };
static const struct column columns[] = {
	[COL_TYPE] = { "TYPE", 0, 0, "object type" },
	[COL_BYTES] = { "BYTES", 0, SCOLS_FL_RIGHT, "length in bytes" },
	[COL_GENERATION] = { "GENERATION", 0, SCOLS_FL_RIGHT, "the refresh this read saw" },
	[COL_SHA384] = { "SHA384", 0, 0, "SHA-384 of the object" },
	[COL_SHA256] = { "SHA256", 0, 0, "SHA-256 of the object" },
	[COL_FILE] = { "FILE", 0, 0, "the file in -o DIR" },
};

static int print_table(const struct result *res, const struct output_opts *base)
{
	struct output_opts o = *base;
	struct table *t;

	o.ncols = 0;
	for (int c = COL_TYPE; c <= COL_SHA256; c++)
		o.cols[o.ncols++] = c;
	if (res->f->dir)
		o.cols[o.ncols++] = COL_FILE;
	t = table_new(&o, columns);
	for (int ty = 0; ty < EVIDENCE_NR_TYPES; ty++) {
		const struct object *ob = &res->f->obj[ty];
		char *row[6] = { 0 };

		if (!(res->mask & (1u << ty)))
			continue;
		row[COL_TYPE] = cell_str(evidence_type_name((unsigned)ty));
		row[COL_BYTES] = cell_fmt("%u", ob->length);
		row[COL_GENERATION] = cell_fmt("%u", ob->generation);
		row[COL_SHA384] = cell_str(ob->length ? ob->hex384 : "-");
		row[COL_SHA256] = cell_str(ob->length ? ob->hex256 : "-");
		if (res->f->dir)
			row[COL_FILE] = cell_str(ob->path ? evset_file_name((unsigned)ty) : "-");
		table_add_row(t, row);
	}
	return table_print_free(t);
}

/* BUF into DIR/NAME through a temporary file: 0, or EXIT_FAIL said. */
static int save_file(const char *dir, const char *name, const void *buf, size_t len)
{
	struct outfile m;
	char *path = path_join(dir, name), *why;
	int rc = outfile_open(&m, path, 0644);

	if (!rc)
		rc = outfile_write(&m, buf, len);
	if (!rc)
		rc = outfile_commit(&m);
	if (rc) {
		why = outfile_error(&m, rc);
		cmd_error(CMD, "--output %s", why);
		free(why);
		outfile_discard(&m);
	}
	free(path);
	return rc ? EXIT_FAIL : 0;
}

/* A sysfs attribute's TEXT into DIR/NAME as the kernel prints it (sysfs_read_text() took its newline). */
static int save_text(const char *dir, const char *name, const char *text)
{
	char *line = xasprintf("%s\n", text);
	int rc = save_file(dir, name, line, strlen(line));

	free(line);
	return rc;
}

/*
 * DIR/NAME of an earlier save that this one does not write (an object not
 * asked for with -t, empty now, a device file not read): removed, so the
 * directory holds this save only. 0, or EXIT_FAIL said.
 */
static int remove_stale(const char *dir, const char *name)
{
	char *path = path_join(dir, name);
	int rc = 0;

	if (unlink(path) < 0 && errno != ENOENT) {
		cmd_error(CMD, "--output %s: cannot remove the earlier save's file: %s", path,
			  strerror(errno));
		rc = EXIT_FAIL;
	}
	free(path);
	return rc;
}

/*
 * The files into place, the function's resource, config, serial number and
 * TSM provider, the earlier save's other files removed, then the manifest
 * (the -J document).
 */
static int commit_files(struct fetch *f, const struct result *res, const struct evidence_set *dev)
{
	FILE *mem;
	char *text = NULL, *why;
	size_t len = 0;
	int rc = 0;

	for (int t = 0; t < EVIDENCE_NR_TYPES && !rc; t++) {
		if (f->obj[t].path && (rc = outfile_commit(&f->obj[t].out))) {
			why = outfile_error(&f->obj[t].out, rc);
			cmd_error(CMD, "--output %s", why);
			free(why);
		}
	}
	if (rc)
		return EXIT_FAIL;
	/* what evidence.report-ranges checks the report against, for --from DIR */
	if (dev->resource)
		rc = save_text(f->dir, EVSET_RESOURCE, dev->resource);
	if (!rc && dev->config)
		rc = save_file(f->dir, EVSET_CONFIG, dev->config, dev->config_len);
	/* what evidence.binding compares and how evidence.report-ranges reads the report */
	if (!rc && dev->serial)
		rc = save_text(f->dir, EVSET_SERIAL, dev->serial);
	if (!rc && dev->tsm_provider)
		rc = save_text(f->dir, EVSET_TSM_PROVIDER, dev->tsm_provider);
	for (int t = 0; t < EVIDENCE_NR_TYPES && !rc; t++)
		if (!f->obj[t].path)
			rc = remove_stale(f->dir, evset_file_name((unsigned int)t));
	if (!rc && !dev->resource)
		rc = remove_stale(f->dir, EVSET_RESOURCE);
	if (!rc && !dev->config)
		rc = remove_stale(f->dir, EVSET_CONFIG);
	if (!rc && !dev->serial)
		rc = remove_stale(f->dir, EVSET_SERIAL);
	if (!rc && !dev->tsm_provider)
		rc = remove_stale(f->dir, EVSET_TSM_PROVIDER);
	if (rc)
		return rc;
	mem = open_memstream(&text, &len);
	if (!mem)
		out_of_memory();
	print_document(mem, res);
	fclose(mem);
	rc = save_file(f->dir, EVSET_MANIFEST, text, len);
	free(text);
	return rc;
}

static void print_verbose(const struct evidence_conn *c, const struct evidence_stats *st)
{
	const struct evidence_family *fam = evidence_family(c);

	cmd_note(CMD, "%s: family device-evidence id %u version %u, read%s%s",
		 streq(evidence_transport(c), "netlink") ? "netlink" : "TSMCTL_EVIDENCE_SOCKET",
		 fam->id, fam->version, fam->read_admin ? " (admin)" : "",
		 fam->has_validate ? ", validate" : "");
	cmd_note(CMD, "%u dump%s, %lu datagrams, %lu messages, %llu bytes received",
		 st->attempts, st->attempts == 1 ? "" : "s", st->datagrams, st->messages, st->bytes);
}

/* The objects (and -v's decoded views) as a table or the -J document. */
static int show(const struct cmd_ctx *ctx, struct result *res, const struct evidence_set *set)
{
	struct ev_decoded d;
	int rc;

	if (ctx->verbose)
		ev_decode_set(set, &d);
	res->decoded = ctx->verbose ? &d : NULL;
	if (ctx->out.json) {
		print_document(stdout, res);
		rc = 0;
	} else {
		rc = print_table(res, &ctx->out) ? EXIT_FAIL : 0;
		if (!rc && ctx->verbose)
			rc = ev_view_print(&d, res->mask) ? EXIT_FAIL : 0;
	}
	if (ctx->verbose)
		ev_decoded_release(&d);
	return rc;
}

/*
 * --verify: the checks and the decision (evidence-decision.h); exit 0 only
 * when it accepts, the pins of a first use saved only then. A TDI
 * (NEED_REPORT) must have its interface report proven.
 */
static int show_verdict(const struct cmd_ctx *ctx, struct ev_judge *j, const struct evidence_set *set,
			bool need_report)
{
	struct ev_judgement jm;
	char *why = NULL, *pending;
	int rc;

	ev_judge_run(j, set, !set->from_dir, ev_risk_mask(param.judge.allow), need_report, &jm);
	if (ctx->out.json)
		json_print_document(stdout, ev_judgement_json(&jm, set));
	else {
		ev_judgement_print(stdout, &jm, set, ctx->verbose);
	}
	rc = ev_decision_accepts(&jm.decision) ? 0 : EXIT_FAIL;
	/* a first use is pinned only by a decision that accepts, and said once it is on disk */
	pending = rc ? NULL : ev_judge_pending_pins(j);
	if (ev_judge_save_pins(j, !rc, &why)) {
		cmd_error(CMD, "--pin %s", why);
		rc = EXIT_FAIL;
	} else if (pending) {
		cmd_note(CMD, "pinned %s in %s", pending, param.judge.pin);
	}
	free(pending);
	free(why);
	ev_judgement_release(&jm);
	return rc;
}

/* Is BDF a locked TDI, whose interface report a decision must see proven? The tree says. */
static bool locked_tdi(const char *bdf)
{
	struct tsm_snapshot snap;
	const struct pci_func *f;
	bool tdi;

	snapshot_scan(&snap, SCAN_TSMS | SCAN_DEVICES);
	f = snapshot_find_func(&snap, bdf);
	tdi = f && func_lock_holder(f);
	snapshot_free(&snap);
	return tdi;
}

/* ---- the modes ---- */

/* Options that belong to one mode only. 0 or EXIT_USAGE. */
static int check_modes(struct cmd_ctx *ctx)
{
	const struct ev_judge_opts *j = &param.judge;

	if (param.from && (param.dir || param.nonce || param.nonce_file || param.fresh))
		return usage_error(ctx->cmd, "--from reads a saved directory: -o, --nonce, "
				   "--nonce-file and --fresh need the kernel");
	if (!param.verify && ev_judge_opts_given(j))
		return usage_error(ctx->cmd, "--trust, --reference, --pin, --partial-chain and the "
				   "--allow-* options go with --verify");
	if (param.verify && param.types)
		return usage_error(ctx->cmd, "--verify judges every object: drop --type");
	return 0;
}

/* --verify's inputs, loaded before the kernel is asked anything. 0 or EXIT_FAIL said. */
static int load_judge(struct ev_judge *j)
{
	char *why = NULL;

	if (ev_judge_load(j, &param.judge, &why)) {
		cmd_error(CMD, "%s", why);
		free(why);
		return EXIT_FAIL;
	}
	return 0;
}

/* The objects a saved manifest does not list ("vca, measurements"), saved with -t; NULL: none. */
static char *unsaved(const struct evidence_set *set)
{
	char *list = NULL;

	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++)
		if (!set->obj[t].present)
			str_join(&list, ", ", "%s", evidence_type_name(t));
	return list;
}

/*
 * A saved directory's evidence (DIR, or a capture's tsmctl-evidence/BDF),
 * shown, or judged as a TDI's when NEED_REPORT. OPT names DIR in messages.
 */
static int judge_dir(struct cmd_ctx *ctx, struct ev_judge *j, const char *opt, const char *dir,
		     const char *bdf, bool need_report)
{
	struct evidence_set set;
	struct fetch f = { .failed_type = -1 };
	char *why = NULL, *missing;
	uint32_t mask = 0;
	int rc;

	evset_init(&set);
	rc = parse_types(ctx, &mask);
	if (rc)
		return rc;
	/* a capture's tsmctl-evidence/BDF, or what tsmctl-collect recorded of why there is none */
	rc = param.from ? evset_load_dir(&set, dir, bdf, &why) : evset_load_capture(&set, bdf, &why);
	if (rc) {
		if (rc == -ENOENT && !param.from)
			cmd_error(CMD, "%s%s: no evidence of %s is saved in it (%s/%s/)%s%s", opt, dir,
				  bdf, EVSET_CAPTURE_DIR, bdf, why ? "; tsmctl-collect could not save "
				  "it: " : "", why ? why : "");
		else
			cmd_error(CMD, "%s%s", opt, why);
		free(why);
		evset_release(&set);
		return EXIT_FAIL;
	}
	/* an object never saved is not an empty one: say so, and judge nothing short of all */
	missing = unsaved(&set);
	if (missing && param.verify) {
		cmd_error(CMD, "%s%s was saved with --type: %s %s not saved, and --verify judges every "
			  "object (save them all: tsmctl evidence BDF -o DIR)", opt, set.source, missing,
			  strchr(missing, ',') ? "were" : "was");
		free(missing);
		evset_release(&set);
		return EXIT_FAIL;
	}
	if (missing)
		cmd_note(CMD, "%s holds only what -t asked for: %s not saved", set.source, missing);
	free(missing);
	f.dir = dir;
	for (unsigned int t = 0; t < EVIDENCE_NR_TYPES; t++)
		if (set.obj[t].present)
			object_from_set(&f.obj[t], &set.obj[t]);
		else
			mask &= ~(1u << t);
	if (param.verify) {
		rc = show_verdict(ctx, j, &set, need_report);
	} else {
		struct result res = { set.bdf, set.bdf, NULL, NULL, set.nonce, set.nonce_len, NULL,
				      mask, &f, NULL };

		rc = show(ctx, &res, &set);
	}
	sink_restart(&f);
	evset_release(&set);
	return rc;
}

/* --from DIR [BDF]: a saved directory, no kernel involved. */
static int run_from(struct cmd_ctx *ctx, struct ev_judge *j)
{
	char bdf[BDF_MAX];

	if (ctx->nargs > 1)
		return usage_error(ctx->cmd, "one device at a time ('%s' too)", ctx->args[1]);
	if (ctx->nargs && bdf_canonical(ctx->args[0], bdf))
		return usage_error(ctx->cmd, "invalid PCI address '%s' (expected [DDDD:]BB:DD.F)",
				   ctx->args[0]);
	if (ctx->nargs)
		snprintf(unread.bdf, sizeof(unread.bdf), "%s", bdf);
	return judge_dir(ctx, j, "--from ", param.from, ctx->nargs ? bdf : NULL, false);
}

/*
 * --sysroot of a tree no kernel serves (a tsmctl-collect capture, a copy):
 * its own saved evidence (tsmctl-evidence/BDF), never the running kernel's,
 * which belongs to another machine or another moment.
 */
static int run_capture(struct cmd_ctx *ctx, struct ev_judge *j)
{
	char requested[BDF_MAX], bdf[BDF_MAX];
	int rc;

	if (param.dir || param.nonce || param.nonce_file || param.fresh) {
		cmd_error(CMD, "%s is no kernel's tree (a capture or a copy): its evidence is what was "
			  "saved in it, so -o, --nonce, --nonce-file and --fresh have no kernel to ask",
			  sysfs_root_path());
		return EXIT_FAIL;
	}
	if (ctx->nargs != 1)
		return usage_error(ctx->cmd, ctx->nargs ? "one device at a time ('%s' too)" :
				   "no device given (BDF)", ctx->nargs ? ctx->args[1] : "");
	rc = resolve_target(ctx, requested, bdf);
	if (rc)
		return rc;
	cmd_note(CMD, "%s is no kernel's tree (a capture or a copy): reading the evidence saved in "
		 "it, not the running kernel's", sysfs_root_path());
	return judge_dir(ctx, j, "--sysroot ", sysfs_root_path(), bdf,
			 param.verify && locked_tdi(requested));
}

/* The generation before a nonce's refresh, for evidence.generation (-1 when it cannot be read). */
static long long generation_before(struct evidence_conn *conn, const char *bdf)
{
	struct evidence_error e = { .miss_type = -1 };
	long long g = -1;

	if (evset_peek_generation(conn, bdf, EVIDENCE_NR_TYPES - 1, &g, &e))
		g = -1;
	evidence_error_free(&e);
	return g;
}

static int run_evidence(struct cmd_ctx *ctx)
{
	uint8_t nonce[EVIDENCE_NONCE_MAX];
	struct tsm_snapshot snap = { 0 };
	struct fetch f = { .failed_type = -1 };
	struct evidence_error e = { .miss_type = -1 };
	struct evidence_conn *conn = NULL;
	struct evidence_stats st = { 0 };
	struct evidence_request req = { .subsys = "pci", .stop = &stop_signal };
	const struct evidence_sink sink = { &f, sink_begin, sink_chunk, sink_end, sink_restart };
	struct evidence_set set;
	struct ev_judge judge = { 0 };
	char requested[BDF_MAX], bdf[BDF_MAX];
	const char *source;
	size_t nonce_len;
	int rc = check_modes(ctx);

	evset_init(&set);
	if (!rc && param.verify)
		rc = load_judge(&judge);
	unread.from_dir = param.from || !sysfs_takes_stores();
	if (!rc && unread.from_dir) {
		rc = param.from ? run_from(ctx, &judge) : run_capture(ctx, &judge);
		goto out_judge;
	}
	if (rc)
		goto out_judge;
	if (ctx->nargs != 1) {
		rc = usage_error(ctx->cmd, ctx->nargs ? "one device at a time ('%s' too)" :
				 "no device given (BDF)", ctx->nargs ? ctx->args[1] : "");
		goto out_judge;
	}
	rc = parse_types(ctx, &req.type_mask) ?: get_nonce(ctx, nonce, &nonce_len, &source);
	if (!rc && param.dir)
		rc = prepare_dir(ctx->cmd, param.dir);
	if (rc)
		goto out_judge;
	for (int t = 0; t < EVIDENCE_NR_TYPES; t++)
		f.obj[t].out.fd = -1;
	f.dir = param.dir;
	f.keep = ctx->verbose || param.verify ? &set : NULL;
	rc = resolve_target(ctx, requested, bdf);
	if (rc)
		goto out;
	req.dev = bdf;
	req.nonce = nonce_len ? nonce : NULL;
	req.nonce_len = nonce_len;
	/* a table does not show the nonce: say it where the caller can keep it */
	if (param.fresh && !ctx->out.json && !param.dir) {
		struct strbuf hex = STRBUF_INIT;

		for (size_t i = 0; i < nonce_len; i++)
			strbuf_appendf(&hex, "%02x", nonce[i]);
		cmd_note(CMD, "--fresh nonce %s", hex.s ? hex.s : "");
		strbuf_release(&hex);
	}
	stopsig_catch(STOPSIG_CLEANUP);
	rc = evidence_open(&conn, &e);
	if (!rc && param.verify && nonce_len)
		set.generation_before = generation_before(conn, bdf);
	if (!rc)
		rc = evidence_fetch(conn, &req, &sink, &st, &e);
	if (conn && ctx->verbose)
		print_verbose(conn, &st);
	if (stop_signal || e.stage == EVIDENCE_INTERRUPTED) {
		cmd_error(CMD, "interrupted; nothing was saved");
		rc = stopsig_exit_status();
		goto out;
	}
	if (rc) {
		/* the advice reads the tree as it is now, after the failure */
		snapshot_scan(&snap, SCAN_TSMS | SCAN_DEVICES);
		if (e.stage == EVIDENCE_SINK && f.failed_type >= 0) {
			/* the file's own words: refused (a link, a device node) or the write's errno */
			char *why = outfile_error(&f.obj[f.failed_type].out, e.err);
			char *who = xasprintf(CMD " %s", bdf);

			cmd_error(who, "--output %s; nothing was saved", why);
			free(who);
			free(why);
		} else {
			explain_evidence(&snap, bdf, &e, req.nonce != NULL, st.attempts, NULL);
		}
		rc = EXIT_FAIL;
		goto out;
	}
	snprintf(set.bdf, sizeof(set.bdf), "%s", bdf);
	set.source = xstrdup(evidence_transport(conn));
	memcpy(set.nonce, nonce, nonce_len);
	set.nonce_len = nonce_len;
	evset_read_device(&set);
	{
		struct result res = { requested, bdf, evidence_family(conn), &st, nonce, nonce_len,
				      source, req.type_mask, &f, NULL };

		rc = param.dir ? commit_files(&f, &res, &set) : 0;
		if (!rc && param.verify)
			rc = show_verdict(ctx, &judge, &set, locked_tdi(requested));
		else if (!rc)
			rc = show(ctx, &res, &set);
	}
out:
	sink_restart(&f);
	evidence_close(conn);
	evidence_error_free(&e);
	snapshot_free(&snap);
out_judge:
	evset_release(&set);
	if (param.verify)
		ev_judge_release(&judge);
	return rc;
}

static const struct opt_def evidence_opts[] = {
	OPT_STRING('t', "type", &param.types, "TYPE",
		   "only these objects (cert0..cert7, vca, measurements, report; list)"),
	OPT_STRING(0, "nonce", &param.nonce, "HEX", "refresh first with this nonce (up to 32 bytes)"),
	OPT_STRING(0, "nonce-file", &param.nonce_file, "FILE",
		   "refresh first with the nonce in FILE ('-': stdin)"),
	OPT_BOOLEAN(0, "fresh", &param.fresh, "refresh first with a random 32-byte nonce"),
	OPT_STRING('o', "output", &param.dir, "DIR", "save each object and a manifest in DIR"),
	OPT_STRING(0, "from", &param.from, "DIR",
		   "read a directory saved with -o (or a tsmctl-collect capture), not the kernel"),
	OPT_BOOLEAN(0, "verify", &param.verify,
		    "judge the evidence: chains, root hash, algorithms, measurements, report ranges"),
	OPT_EV_JUDGE(param.judge),
	OPT_COMMON(COMMON_JSON), OPT_END()
};

/*
 * A run that ends before any object was read: the empty list, or --verify's
 * judgement of nothing, unproven, with the first error as the reason.
 */
static void json_empty(const struct cmd_def *cmd)
{
	if (param.verify)
		json_print_document(stdout, ev_unread_json(unread.bdf, unread.from_dir,
							   cmd_first_error()));
	else
		json_list_empty(stdout, cmd->json_name);
}

const struct cmd_def cmd_evidence = {
	.name = "evidence",
	.args = "BDF",
	.summary = "read and verify a device's evidence: certificates, measurements, interface report",
	.description = "Read a device's evidence objects over the proposed device-evidence generic\n"
		       "netlink family in one dump: the SPDM certificate chain of each slot, the\n"
		       "VCA transcript, the measurements and the TDISP interface report. A host\n"
		       "has them for a connected DSM, a guest for a locked TDI; a dependent\n"
		       "function reads its DSM's. With a nonce the provider refreshes them first.\n"
		       "Shows each object's size, generation and digests (-v: decoded), saves the\n"
		       "objects and a manifest in DIR, or judges them (--verify) in named checks;\n"
		       "--from DIR reads a saved directory instead of the kernel",
	.opts = evidence_opts,
	.json_name = "evidence",
	.json_empty = json_empty,
	.verbose_help = "decode each object; say the family and the dumps on stderr; with --verify, "
			"each result's hint",
	.run = run_evidence,
};
