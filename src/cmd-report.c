// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl report: one configfs-tsm attestation report (ABI.md §1.4). Options
 * are checked and output files opened before the entry is made; report.c
 * runs the session; here the result becomes files, a summary or JSON;
 * explain-report.c turns an errno into advice.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/outfile.h"
#include "tsmctl/output.h"
#include "tsmctl/render.h"
#include "tsmctl/report.h"
#include "tsmctl/sha256.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/stopsig.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define CMD "report"

/* report's own options, raw: check_options() checks them once all are read */
static struct report_param {
	const char *nonce, *inblob, *privlevel, *service_provider, *service_guid,
		   *service_manifest_version, *outblob, *auxblob, *manifestblob;
} param;

/* ---- input validation --------------------------------------------------- */

static int parse_nonce(struct cmd_ctx *ctx, const char *hex, struct report_request *req)
{
	return parse_hex_option(ctx->cmd, "--nonce", hex, req->inblob, REPORT_INBLOB_MAX,
				&req->inblob_len);
}

static int read_inblob(struct cmd_ctx *ctx, const char *file, struct report_request *req)
{
	return read_option_file(ctx->cmd, "--inblob", file, req->inblob, REPORT_INBLOB_MAX,
				&req->inblob_len);
}

/* The 36-character form the kernel's guid_parse() takes, nothing after it. */
static bool uuid_valid(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

static int check_service(struct cmd_ctx *ctx, struct report_request *req)
{
	unsigned long long v;

	if (!param.service_provider) {
		if (param.service_guid || param.service_manifest_version)
			return usage_error(ctx->cmd, "--service-guid and --service-manifest-version "
					   "need --service-provider");
		if (param.manifestblob)
			return usage_error(ctx->cmd, "--manifestblob needs --service-provider "
					   "(only a service report has a manifest)");
		return 0;
	}
	if (!*param.service_provider || strlen(param.service_provider) > 255)
		return usage_error(ctx->cmd, "--service-provider must be 1-255 characters");
	for (const char *p = param.service_provider; *p; p++)
		if (!isgraph((unsigned char)*p))
			return usage_error(ctx->cmd, "--service-provider may hold only printable "
					   "characters without blanks");
	req->service_provider = param.service_provider;
	if (param.service_guid) {
		if (!uuid_valid(param.service_guid))
			return usage_error(ctx->cmd, "invalid --service-guid '%s' (expected "
					   "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", param.service_guid);
		req->service_guid = param.service_guid;
	}
	if (param.service_manifest_version) {
		if (parse_decimal(param.service_manifest_version, UINT_MAX, &v))
			return usage_error(ctx->cmd, "invalid --service-manifest-version '%s' "
					   "(a whole number, 0-%u)", param.service_manifest_version,
					   UINT_MAX);
		req->service_manifest_version = (long long)v;
	}
	return 0;
}

/* ---- output files -------------------------------------------------------- */

/* A blob's destination (outfile.h): stdout for "-", else renamed over the name at the end. */
static int dest_open(struct outfile *d, const char *path, const char *opt)
{
	char *why;
	int rc;

	*d = (struct outfile){ .fd = -1 };
	if (!path)
		return 0;
	rc = outfile_open(d, path, 0600);	/* a report can be sensitive */
	if (!rc)
		return 0;
	why = outfile_error(d, rc);
	cmd_error(CMD, "%s %s", opt, why);
	free(why);
	return EXIT_FAIL;
}

/* Fill and rename into place; 0 or -errno (the temporary file is gone either way). */
static int dest_commit(struct outfile *d, const struct report_blob *b)
{
	int rc;

	if (!d->path)
		return 0;
	rc = outfile_write(d, b->data, b->len);
	return rc ? rc : outfile_commit(d);
}

/* ---- output -------------------------------------------------------------- */

struct blob_view {
	const char *name;
	const struct report_blob *blob;
	const char *path;	/* written to; NULL not saved */
	char sha[SHA256_HEX_SIZE];
};

static struct json_object *blob_json(const struct blob_view *v)
{
	struct json_object *o;

	if (!v->blob->shown)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "size", js_u64(v->blob->len));
	json_object_object_add(o, "sha256", js_str(v->sha));
	json_object_object_add(o, "path", js_str(v->path));
	return o;
}

/*
 * The measurement registers the report covers (ABI.md §7.1): those of the
 * misc device named as the provider (tdx_guest: its TDREPORT holds all
 * eight), read before the report and after it; none for sev_guest.
 */
struct report_mrs {
	struct tsm_snapshot before, after;
	const struct measurements *group;	/* in after, NULL: the provider has none */
};

/* R's value before the report, when it was read and differs from the one after. */
static bool mr_changed(const struct report_mrs *mrs, const struct measurement_register *r)
{
	const struct measurement_register *b = snapshot_find_mr(&mrs->before, r->file, NULL);

	return b && b->value && r->value && (b->len != r->len || memcmp(b->value, r->value, r->len));
}

static void mrs_read(struct report_mrs *mrs, const char *provider)
{
	snapshot_scan(&mrs->after, SCAN_MEASUREMENTS);
	for (size_t i = 0; provider && i < mrs->after.nr_mr_groups; i++)
		if (streq(mrs->after.mr_groups[i].device, provider))
			mrs->group = &mrs->after.mr_groups[i];
}

static struct json_object *mrs_json(const struct report_mrs *mrs)
{
	struct json_object *arr;

	if (!mrs->group)
		return NULL;
	arr = json_object_new_array();
	for (size_t i = 0; i < mrs->group->nr_regs; i++) {
		const struct measurement_register *r = &mrs->group->regs[i];
		struct json_object *o = render_mr_json(mrs->group, r);

		json_object_object_add(o, "extended_during_report", js_bool(mr_changed(mrs, r)));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* "registers:" line, and a note for a register extended while the report was made */
static void mrs_summary(FILE *out, const struct report_mrs *mrs)
{
	struct strbuf names = STRBUF_INIT;
	char *text;

	if (!mrs->group)
		return;
	for (size_t i = 0; i < mrs->group->nr_regs; i++) {
		const struct measurement_register *r = &mrs->group->regs[i];

		strbuf_join(&names, " ", "%s", r->name);
		if (mr_changed(mrs, r))
			cmd_note(CMD, "%s was extended while the report was made: the report holds "
				 "its value from before or after (tsmctl measurements shows it now)",
				 r->file);
	}
	text = strbuf_take(&names);
	fputs("registers:    ", out);
	fputs_escaped(text, out);
	fprintf(out, " (%s's, all in the report; tsmctl measurements shows them)\n",
		mrs->group->device);
	free(text);
}

static long long privlevel_used(const struct report_request *req, const struct report_result *res)
{
	/* the kernel's entry starts at privlevel 0 (a zeroed tsm_report_state) */
	return !res->has_privlevel ? -1 : req->privlevel >= 0 ? req->privlevel : 0;
}

static void print_json(const struct report_request *req, const struct report_result *res,
		       size_t input_len, const char *source, const struct blob_view *views,
		       const struct report_mrs *mrs)
{
	struct json_object *o = json_object_new_object(), *in = json_object_new_object();
	char sha[SHA256_HEX_SIZE];

	json_object_object_add(o, "provider", js_str(res->provider));
	json_object_object_add(o, "generation", js_u64(res->generation));
	json_object_object_add(o, "attempts", js_u64(res->attempts));
	json_object_object_add(o, "privlevel", js_num(privlevel_used(req, res)));
	json_object_object_add(o, "privlevel_floor", js_num(res->privlevel_floor));
	sha256_hex(req->inblob, req->inblob_len, sha);
	json_object_object_add(in, "source", js_str(source));
	json_object_object_add(in, "input_size", js_u64(input_len));
	json_object_object_add(in, "size", js_u64(req->inblob_len));
	json_object_object_add(in, "padded", js_bool(input_len < req->inblob_len));
	json_object_object_add(in, "sha256", js_str(sha));
	json_object_object_add(o, "inblob", in);
	json_object_object_add(o, "service_provider", js_str(req->service_provider));
	json_object_object_add(o, "service_guid", js_str(req->service_guid));
	json_object_object_add(o, "service_manifest_version", js_num(req->service_manifest_version));
	for (int b = 0; b < REPORT_NR_BLOBS; b++)
		json_object_object_add(o, views[b].name, blob_json(&views[b]));
	json_object_object_add(o, "measurement_registers", mrs_json(mrs));
	json_list_single(stdout, "reports", o);
}

static void print_summary(FILE *out, const struct report_request *req, const struct report_result *res,
			  size_t input_len, const char *source, const struct blob_view *views,
			  const struct report_mrs *mrs)
{
	long long pl = privlevel_used(req, res);

	fputs("provider:     ", out);
	fputs_escaped(res->provider, out);	/* the guest driver's text: never raw on a terminal */
	fputc('\n', out);
	fprintf(out, "generation:   %lu\n", res->generation);
	if (pl >= 0)
		fprintf(out, "privlevel:    %lld\n", pl);
	if (input_len < req->inblob_len)
		fprintf(out, "inblob:       %zu bytes (%zu from %s, zero-padded)\n", req->inblob_len,
			input_len, source);
	else
		fprintf(out, "inblob:       %zu bytes (from %s)\n", req->inblob_len, source);
	for (int b = 0; b < REPORT_NR_BLOBS; b++) {
		const struct blob_view *v = &views[b];
		char label[24];

		if (!v->blob->shown)
			continue;
		snprintf(label, sizeof(label), "%s:", v->name);
		fprintf(out, "%-13s %zu byte%s, sha256 %s, %s%s\n", label, v->blob->len,
			v->blob->len == 1 ? "" : "s", v->sha, v->path ? "written to " : "not saved",
			v->path ? v->path : "");
	}
	mrs_summary(out, mrs);
}

/* ---- the command ---------------------------------------------------------- */

/* Output names: one blob at most on stdout, never a terminal's, never two blobs in one file. */
static int check_outputs(struct cmd_ctx *ctx)
{
	const char *const files[] = { param.outblob, param.auxblob, param.manifestblob };
	static const char *const opts[] = { "--outblob", "--auxblob", "--manifestblob" };
	int to_stdout = 0;

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (!files[i])
			continue;
		if (!*files[i])
			return usage_error(ctx->cmd, "%s: empty file name", opts[i]);
		for (size_t j = i + 1; j < ARRAY_SIZE(files); j++)
			if (streq(files[i], files[j]) && !streq(files[i], "-"))
				return usage_error(ctx->cmd, "each blob needs its own file");
		if (!streq(files[i], "-"))
			continue;
		if (++to_stdout > 1)
			return usage_error(ctx->cmd, "only one blob can go to stdout ('-')");
		if (ctx->out.json)
			return usage_error(ctx->cmd, "%s -: stdout carries the JSON with --json", opts[i]);
		if (isatty(STDOUT_FILENO))
			return usage_error(ctx->cmd, "%s -: refusing to write a binary blob to a terminal; "
					   "redirect stdout or give a file", opts[i]);
	}
	return 0;
}

static int check_options(struct cmd_ctx *ctx, struct report_request *req)
{
	unsigned long long v;
	int rc;

	if (ctx->nargs)
		return extra_operand(ctx->cmd, ctx->args[0]);
	if (!param.nonce == !param.inblob)
		return usage_error(ctx->cmd, "give exactly one of --nonce HEX and --inblob FILE");
	req->privlevel = -1;
	req->service_manifest_version = -1;
	req->verbose = ctx->verbose;
	if (param.privlevel) {
		if (parse_decimal(param.privlevel, UINT_MAX, &v) || v > REPORT_PRIVLEVEL_MAX)
			return usage_error(ctx->cmd, "invalid --privlevel '%s' (a whole number, 0-%d)",
					   param.privlevel, REPORT_PRIVLEVEL_MAX);
		req->privlevel = (int)v;
	}
	rc = check_service(ctx, req);
	if (rc)
		return rc;
	rc = check_outputs(ctx);
	if (rc)
		return rc;
	req->want[REPORT_AUXBLOB] = param.auxblob;
	req->want[REPORT_MANIFESTBLOB] = param.manifestblob;
	/* the input last: --inblob - may read stdin, which only makes sense once the rest is valid */
	return param.nonce ? parse_nonce(ctx, param.nonce, req) : read_inblob(ctx, param.inblob, req);
}

static int run_report(struct cmd_ctx *ctx)
{
	struct report_request req = { 0 };
	struct report_result res = { 0 };
	struct outfile dests[REPORT_NR_BLOBS];
	struct blob_view views[REPORT_NR_BLOBS];
	struct report_mrs mrs = { 0 };
	static const char *const opts[REPORT_NR_BLOBS] = { "--outblob", "--auxblob", "--manifestblob" };
	const char *const paths[REPORT_NR_BLOBS] = { param.outblob, param.auxblob, param.manifestblob };
	const char *source = param.nonce ? "--nonce" : "--inblob", *missing;
	bool any_stdout = false;
	size_t input_len;
	int rc, exit_rc = EXIT_OK;

	rc = check_options(ctx, &req);
	if (rc)
		return rc;
	input_len = req.inblob_len;
	/* both providers take exactly 64 bytes of user data (sev-guest.c, tdx-guest.c) */
	if (req.inblob_len < REPORT_INBLOB_MAX) {
		if (ctx->verbose)
			cmd_note(CMD, "%s is %zu byte%s: padded with %zu zero byte%s to the %d "
				 "the providers take", source, input_len, input_len == 1 ? "" : "s",
				 REPORT_INBLOB_MAX - input_len,
				 REPORT_INBLOB_MAX - input_len == 1 ? "" : "s", REPORT_INBLOB_MAX);
		memset(req.inblob + req.inblob_len, 0, REPORT_INBLOB_MAX - req.inblob_len);
		req.inblob_len = REPORT_INBLOB_MAX;
	}
	missing = report_group_missing();
	if (missing) {
		explain_report_group_missing(missing);
		return EXIT_FAIL;
	}
	stopsig_catch(STOPSIG_CLEANUP);
	for (int b = 0; b < REPORT_NR_BLOBS; b++)
		dests[b] = (struct outfile){ .fd = -1 };
	for (int b = 0; b < REPORT_NR_BLOBS; b++) {
		rc = dest_open(&dests[b], paths[b], opts[b]);
		if (rc)
			goto out;
		any_stdout |= dests[b].to_stdout;
	}
	snapshot_scan(&mrs.before, SCAN_MEASUREMENTS);
	rc = report_run(&req, &res, &stop_signal);
	if (res.rmdir_error)
		explain_report_rmdir(&res);
	if (rc == -EINTR || stop_signal) {
		cmd_error(CMD, "interrupted by %s; the report entry was %sremoved",
			  stopsig_name(stop_signal), res.rmdir_error ? "NOT " : "");
		rc = stopsig_exit_status();
		goto out;
	}
	if (rc < 0) {
		explain_report(&req, &res, rc);
		rc = EXIT_FAIL;
		goto out;
	}
	for (int b = 0; b < REPORT_NR_BLOBS; b++) {
		int err;

		views[b] = (struct blob_view){ .name = report_blob_name(b), .blob = &res.blobs[b] };
		if (!res.blobs[b].shown)
			continue;
		sha256_hex(res.blobs[b].data, res.blobs[b].len, views[b].sha);
		err = dest_commit(&dests[b], &res.blobs[b]);
		if (err) {
			char *why = outfile_error(&dests[b], err);

			cmd_error(CMD, "%s %s", opts[b], why);
			free(why);
			exit_rc = EXIT_FAIL;
			continue;
		}
		if (dests[b].to_stdout)
			views[b].path = "-";
		else if (dests[b].path)
			views[b].path = dests[b].path;
	}
	mrs_read(&mrs, res.provider);
	if (ctx->out.json)
		print_json(&req, &res, input_len, source, views, &mrs);
	else if (!any_stdout)
		print_summary(stdout, &req, &res, input_len, source, views, &mrs);
	else if (ctx->verbose)
		print_summary(stderr, &req, &res, input_len, source, views, &mrs);
	rc = res.rmdir_error ? EXIT_FAIL : exit_rc;
out:
	for (int b = 0; b < REPORT_NR_BLOBS; b++)
		outfile_discard(&dests[b]);
	report_result_free(&res);
	snapshot_free(&mrs.before);
	snapshot_free(&mrs.after);
	return rc;
}

static const struct opt_def report_opts[] = {
	OPT_STRING(0, "nonce", &param.nonce, "HEX", "report data: up to 64 bytes as hex digits"),
	OPT_STRING(0, "inblob", &param.inblob, "FILE",
		   "report data: up to 64 bytes from FILE ('-': stdin)"),
	OPT_STRING(0, "privlevel", &param.privlevel, "N", "privilege level of the report (0-3)"),
	OPT_STRING(0, "service-provider", &param.service_provider, "NAME",
		   "service provider of a service report (svsm)"),
	OPT_STRING(0, "service-guid", &param.service_guid, "UUID",
		   "service GUID of a service report"),
	OPT_STRING(0, "service-manifest-version", &param.service_manifest_version, "N",
		   "service manifest version"),
	OPT_STRING(0, "outblob", &param.outblob, "FILE", "write the report to FILE ('-': stdout)"),
	OPT_STRING(0, "auxblob", &param.auxblob, "FILE", "write the auxiliary blob to FILE"),
	OPT_STRING(0, "manifestblob", &param.manifestblob, "FILE",
		   "write the service manifest to FILE"),
	OPT_COMMON(COMMON_JSON), OPT_END()
};

const struct cmd_def cmd_report = {
	.name = "report",
	.args = "--nonce HEX | --inblob FILE",
	.summary = "get a configfs-tsm attestation report (inblob in, outblob out)",
	.description = "Create a fresh entry in /sys/kernel/config/tsm/report, write the report\n"
		       "data (--nonce or --inblob, zero-padded to 64 bytes) and the other inputs,\n"
		       "check with the entry's generation counter that every write took and that\n"
		       "no other writer raced (retrying in a fresh entry up to 3 times), read the\n"
		       "blobs, and remove the entry, also on error, SIGINT and SIGTERM. Blobs go to\n"
		       "files (or stdout with '-', never to a terminal); the summary or -J shows\n"
		       "their sizes and SHA-256 digests",
	.opts = report_opts,
	.json_name = "reports",
	.verbose_help = "say each step (entry, writes, reads, retries) on stderr",
	.run = run_report,
};
