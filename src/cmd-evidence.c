// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl evidence: a device's evidence objects (certificate chains, VCA,
 * measurements, TDISP interface report) over the proposed device-evidence
 * generic netlink family (ABI.md §1.6, evidence-netlink.c). Each object is
 * streamed as it arrives: hashed (SHA-384, SHA-256) and, with -o DIR,
 * written to its own file, never held whole. A dependent function resolves
 * to its DSM; explain-evidence.c turns a failure into advice from state.
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

#include "tsmctl/action.h"
#include "tsmctl/cli.h"
#include "tsmctl/evidence.h"
#include "tsmctl/explain.h"
#include "tsmctl/names.h"
#include "tsmctl/outfile.h"
#include "tsmctl/output.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define CMD "tsmctl evidence"
#define MANIFEST "manifest.json"

static struct evidence_param {
	const char *types, *nonce, *nonce_file, *dir;
	bool fresh;
} param;

/* The file each object is saved as in -o DIR (tsmctl-evidence(8), FILES). */
static const char *const file_names[EVIDENCE_NR_TYPES] = {
	"cert0.spdm-chain", "cert1.spdm-chain", "cert2.spdm-chain", "cert3.spdm-chain",
	"cert4.spdm-chain", "cert5.spdm-chain", "cert6.spdm-chain", "cert7.spdm-chain",
	"vca.bin", "measurements.bin", "report.bin",
};

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
	/* an empty object is no file: the manifest says its length is 0 */
	if (!f->dir || !length)
		return 0;
	o->path = path_join(f->dir, file_names[type]);
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
		print_error(CMD ": --fresh: no random bytes from getrandom(): %s",
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
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT && mkdir(dir, 0755) == 0)
			return 0;
		print_error(CMD ": --output %s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	if (S_ISDIR(st.st_mode))
		return 0;
	print_error(CMD ": --output %s: %s, not a directory: refusing to write into it",
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
			fprintf(stderr, CMD ": %s is a slot: reading its function 0, %s\n", arg, bdf);
	} else {
		return usage_error(ctx->cmd, "invalid PCI address '%s' (expected [DDDD:]BB:DD.F, or "
				   "[DDDD:]BB:DD for a slot's function 0)", arg);
	}
	if (!action_device_present(bdf)) {
		print_error(CMD ": %s: no such PCI device (see 'tsmctl devices --all')", bdf);
		return EXIT_FAIL;
	}
	snprintf(requested, BDF_MAX, "%s", bdf);
	/* one attribute, not a scan: tsm/dsm names the DSM of a function with a context */
	path = xasprintf("sys/bus/pci/devices/%s/tsm/dsm", bdf);
	if (sysfs_read_text(path, &dsm) == 0 && *dsm && !streq(dsm, bdf) &&
	    bdf_canonical(dsm, bdf) == 0)
		fprintf(stderr, CMD ": %s is a dependent function of the DSM %s: reading the DSM's "
			"evidence\n", requested, bdf);
	free(dsm);
	free(path);
	return 0;
}

/* ---- output ---- */

static struct json_object *hex_json(const uint8_t *b, size_t n)
{
	char *hex = xmalloc(2 * n + 1);
	struct json_object *o;

	for (size_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	hex[2 * n] = '\0';
	o = js_str(hex);
	free(hex);
	return o;
}

struct result {
	const char *requested, *bdf;
	const struct evidence_family *fam;
	const struct evidence_stats *st;
	const uint8_t *nonce;
	size_t nonce_len;
	const char *nonce_source;
	uint32_t mask;
	const struct fetch *f;
};

static struct json_object *document(const struct result *res)
{
	struct json_object *o = json_object_new_object(), *fam = json_object_new_object();
	struct json_object *objs = json_object_new_array();
	long long generation = -1;

	json_object_object_add(o, "bdf", js_str(res->bdf));
	json_object_object_add(o, "requested", js_str(res->requested));
	json_object_object_add(o, "subsys", js_str("pci"));
	json_object_object_add(fam, "id", js_u64(res->fam->id));
	json_object_object_add(fam, "version", js_u64(res->fam->version));
	json_object_object_add(fam, "validate", js_bool(res->fam->has_validate));
	json_object_object_add(o, "family", fam);
	json_object_object_add(o, "nonce", res->nonce_len ? hex_json(res->nonce, res->nonce_len) : NULL);
	json_object_object_add(o, "nonce_source", js_str(res->nonce_source));
	json_object_object_add(o, "attempts", js_u64(res->st->attempts));
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
		json_object_object_add(j, "file", js_str(ob->path ? file_names[t] : NULL));
		json_object_array_add(objs, j);
	}
	json_object_object_add(o, "generation", js_num(generation));
	json_object_object_add(o, "objects", objs);
	return o;
}

static void print_document(FILE *out, const struct result *res)
{
	json_list_begin(out, "evidence");
	json_list_item(out, document(res));
	json_list_end(out);
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
			row[COL_FILE] = cell_str(ob->path ? file_names[ty] : "-");
		table_add_row(t, row);
	}
	return table_print_free(t);
}

/* The files into place, then the manifest (the -J document) beside them. */
static int commit_files(struct fetch *f, const struct result *res)
{
	struct outfile m;
	char *path, *why;
	FILE *mem;
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	for (int t = 0; t < EVIDENCE_NR_TYPES && !rc; t++) {
		if (f->obj[t].path && (rc = outfile_commit(&f->obj[t].out))) {
			why = outfile_error(&f->obj[t].out, rc);
			print_error(CMD ": --output %s", why);
			free(why);
		}
	}
	if (rc)
		return EXIT_FAIL;
	mem = open_memstream(&text, &len);
	if (!mem)
		out_of_memory();
	print_document(mem, res);
	fclose(mem);
	path = path_join(f->dir, MANIFEST);
	rc = outfile_open(&m, path, 0644);
	if (!rc)
		rc = outfile_write(&m, text, len);
	if (!rc)
		rc = outfile_commit(&m);
	if (rc) {
		why = outfile_error(&m, rc);
		print_error(CMD ": --output %s", why);
		free(why);
		outfile_discard(&m);
	}
	free(path);
	free(text);
	return rc ? EXIT_FAIL : 0;
}

static void print_verbose(const struct evidence_conn *c, const struct evidence_stats *st)
{
	const struct evidence_family *fam = evidence_family(c);

	fprintf(stderr, CMD ": %s: family device-evidence id %u version %u, read%s%s\n",
		streq(evidence_transport(c), "netlink") ? "netlink" : "TSMCTL_EVIDENCE_SOCKET",
		fam->id, fam->version, fam->read_admin ? " (admin)" : "",
		fam->has_validate ? ", validate" : "");
	fprintf(stderr, CMD ": %u dump%s, %lu datagrams, %lu messages, %llu bytes received\n",
		st->attempts, st->attempts == 1 ? "" : "s", st->datagrams, st->messages, st->bytes);
}

static int run_evidence(struct cmd_ctx *ctx)
{
	uint8_t nonce[EVIDENCE_NONCE_MAX];
	struct tsm_snapshot snap = { 0 };
	struct fetch f = { .failed_type = -1 };
	struct evidence_error e = { .miss_type = -1 };
	struct evidence_conn *conn = NULL;
	struct evidence_stats st = { 0 };
	struct evidence_request req = { .subsys = "pci", .stop = &cmd_signal };
	const struct evidence_sink sink = { &f, sink_begin, sink_chunk, sink_end, sink_restart };
	char requested[BDF_MAX], bdf[BDF_MAX];
	const char *source;
	size_t nonce_len;
	int rc;

	if (ctx->nargs != 1)
		return usage_error(ctx->cmd, ctx->nargs ? "one device at a time ('%s' too)" :
				   "no device given (BDF)", ctx->nargs ? ctx->args[1] : "");
	rc = parse_types(ctx, &req.type_mask) ?: get_nonce(ctx, nonce, &nonce_len, &source);
	if (rc)
		return rc;
	if (param.dir && (rc = prepare_dir(ctx->cmd, param.dir)))
		return rc;
	for (int t = 0; t < EVIDENCE_NR_TYPES; t++)
		f.obj[t].out.fd = -1;
	f.dir = param.dir;
	rc = resolve_target(ctx, requested, bdf);
	if (rc)
		goto out;
	req.dev = bdf;
	req.nonce = nonce_len ? nonce : NULL;
	req.nonce_len = nonce_len;
	/* a table does not show the nonce: say it where the caller can keep it */
	if (param.fresh && !ctx->out.json && !param.dir) {
		fputs(CMD ": --fresh nonce ", stderr);
		for (size_t i = 0; i < nonce_len; i++)
			fprintf(stderr, "%02x", nonce[i]);
		fputc('\n', stderr);
	}
	cmd_catch_signals();
	rc = evidence_open(&conn, &e);
	if (!rc)
		rc = evidence_fetch(conn, &req, &sink, &st, &e);
	if (conn && ctx->verbose)
		print_verbose(conn, &st);
	if (cmd_signal || e.stage == EVIDENCE_INTERRUPTED) {
		fprintf(stderr, CMD ": interrupted; nothing was saved\n");
		rc = 128 + (cmd_signal ? cmd_signal : SIGINT);
		goto out;
	}
	if (rc) {
		/* the advice reads the tree as it is now, after the failure */
		snapshot_scan(&snap, SCAN_TSMS | SCAN_DEVICES);
		if (e.stage == EVIDENCE_SINK && f.failed_type >= 0) {
			/* the file's own words: refused (a link, a device node) or the write's errno */
			char *why = outfile_error(&f.obj[f.failed_type].out, e.err);

			print_error(CMD " %s: --output %s; nothing was saved", bdf, why);
			free(why);
		} else {
			explain_evidence(&snap, bdf, &e, req.nonce != NULL, st.attempts, NULL);
		}
		rc = EXIT_FAIL;
		goto out;
	}
	{
		struct result res = { requested, bdf, evidence_family(conn), &st, nonce, nonce_len,
				      source, req.type_mask, &f };

		rc = param.dir ? commit_files(&f, &res) : 0;
		if (!rc && ctx->out.json)
			print_document(stdout, &res);
		else if (!rc)
			rc = print_table(&res, &ctx->out) ? EXIT_FAIL : 0;
	}
out:
	sink_restart(&f);
	evidence_close(conn);
	evidence_error_free(&e);
	snapshot_free(&snap);
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
	OPT_COMMON(COMMON_JSON), OPT_END()
};

const struct cmd_def cmd_evidence = {
	.name = "evidence",
	.args = "BDF",
	.summary = "read a device's evidence: certificates, measurements, interface report",
	.description = "Read a device's evidence objects over the proposed device-evidence generic\n"
		       "netlink family in one dump: the SPDM certificate chain of each slot, the\n"
		       "VCA transcript, the measurements and the TDISP interface report. A host\n"
		       "has them for a connected DSM, a guest for a locked TDI; a dependent\n"
		       "function reads its DSM's. With a nonce the provider refreshes them first.\n"
		       "Shows each object's size, generation and digests, or saves the objects\n"
		       "and a manifest in DIR. The evidence is not verified here",
	.opts = evidence_opts,
	.verbose_help = "say the family, the dumps and what was received on stderr",
	.run = run_evidence,
};
