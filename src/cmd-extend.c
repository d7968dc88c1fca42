// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl extend: extend a runtime measurement register (an RTMR of
 * tdx_guest, ABI.md §7.1) with a digest, in the one form the kernel takes
 * (the whole register in one write at offset 0), then check that it reads
 * HASH(old || digest).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/auditlog.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/log.h"
#include "tsmctl/output.h"
#include "tsmctl/platform-store.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define CMD "extend"

static struct extend_param {
	const char *digest, *digest_file, *event;
	bool dry_run, force, no_syslog;
} param;

/* What became of the extend, for the result line and -J. */
struct extend_outcome {
	const char *result;	/* ok, dry-run, failed */
	int err;		/* the store's -errno, 0 */
	char *message;
	char *before, *after, *expected;	/* hex, NULL unknown */
};

/* The data from --digest, --digest-file or --event (hashed once the register is known). */
static int read_data(struct cmd_ctx *ctx, uint8_t *data, size_t *len)
{
	int given = !!param.digest + !!param.digest_file + !!param.event;

	if (given != 1)
		return usage_error(ctx->cmd, given ? "--digest, --digest-file and --event exclude "
				   "each other" : "what to extend with: --digest HEX, --digest-file "
				   "FILE or --event FILE");
	if (ctx->nargs != 1)
		return usage_error(ctx->cmd, ctx->nargs ? "one register at a time" :
				   "which register: tsmctl extend REGISTER (tsmctl measurements "
				   "lists them)");
	if (param.digest)
		return parse_hex_option(ctx->cmd, "--digest", param.digest, data, MR_VALUE_MAX, len);
	if (param.digest_file)
		return read_option_file(ctx->cmd, "--digest-file", param.digest_file, data,
					MR_VALUE_MAX, len);
	return 0;
}

/* The register to extend, refused before any write when it cannot be: 0 or EXIT_FAIL. */
static int find_register(const struct tsm_snapshot *snap, const char *name,
			 const struct measurements **g, const struct measurement_register **r)
{
	*r = snapshot_find_mr(snap, name, g);
	if (!snap->nr_mr_groups) {
		cmd_error(CMD, "no measurement registers: no misc device in /sys/class/misc has a "
			  "measurements/ group (inside a TDX guest: load tdx_guest, Linux 6.16 or "
			  "later)");
		return EXIT_FAIL;
	}
	if (!*r) {
		cmd_error(CMD, "no measurement register '%s' (tsmctl measurements lists them)", name);
		return EXIT_FAIL;
	}
	if ((*r)->err) {
		cmd_error(CMD, "%s cannot be read (%s), so its extend could not be checked",
			  (*r)->file, render_read_error_word((*r)->err));
		return EXIT_FAIL;
	}
	if (!mr_extendable(*r)) {
		cmd_error(CMD, "%s is read-only (mode %04o): the kernel lets root extend only the "
			  "runtime registers (RTMRs, mode 0644)", (*r)->file, (*r)->mode & 07777);
		return EXIT_FAIL;
	}
	return 0;
}

/* Judge what the register reads after the store (ABI.md §7.1). */
static void judge(const struct measurement_register *r, const uint8_t *data,
		  const struct mr_extend_result *res, struct extend_outcome *o)
{
	uint8_t want[MR_VALUE_MAX];
	bool have_want = res->before_len == r->len &&
			 !mr_extended_value(r->hash, res->before, r->len, data, want);

	o->before = res->before_len ? render_hex(res->before, res->before_len) : NULL;
	o->after = res->after_len ? render_hex(res->after, res->after_len) : NULL;
	o->expected = have_want ? render_hex(want, r->len) : NULL;
	o->result = "failed";
	if (res->err) {
		o->err = res->err;
		o->message = explain_extend(r->file, r->len, res->err);
	} else if (!res->after_len) {
		o->message = xasprintf("the kernel took the store, but %s cannot be read back (%s)",
				       r->file, errno_symbol(-res->after_err));
	} else if (have_want && res->after_len == r->len && !memcmp(res->after, want, r->len)) {
		o->result = "ok";
		o->message = xasprintf("extended; now %s", o->after);
	} else if (res->after_len == res->before_len && !memcmp(res->after, res->before, r->len)) {
		o->message = xasprintf("the kernel took the store, but %s did not change", r->file);
	} else if (have_want) {
		o->message = xasprintf("%s reads %s, not %s(old || data) = %s: another extend ran at "
				       "the same time, or the provider extends otherwise", r->file,
				       o->after, r->hash, o->expected);
	} else {
		o->result = "ok";
		o->message = xasprintf("extended; now %s (not checked: tsmctl cannot compute a "
				       "'%s' extend)", o->after, r->hash ? r->hash : "hash-less");
	}
}

static void print_result(const struct cmd_ctx *ctx, const struct measurements *g,
			 const struct measurement_register *r, const uint8_t *data,
			 const struct extend_outcome *o)
{
	struct json_object *obj;
	char *hex;

	if (!ctx->out.json) {
		if (streq(o->result, "failed"))
			cmd_error(CMD, "%s: %s", r->name, o->message);
		else
			printf("%s: %s\n", r->name, o->message);
		return;
	}
	hex = render_hex(data, r->len);
	obj = json_object_new_object();
	json_object_object_add(obj, "register", js_str(r->name));
	json_object_object_add(obj, "file", js_str(r->file));
	json_object_object_add(obj, "device", js_str(g->device));
	json_object_object_add(obj, "action", js_str("extend"));
	json_object_object_add(obj, "result", js_str(o->result));
	json_object_object_add(obj, "errno", o->err ? js_str(errno_symbol(-o->err)) : NULL);
	json_object_object_add(obj, "message", js_str(o->message));
	json_object_object_add(obj, "data", js_str(hex));
	json_object_object_add(obj, "before", js_str(o->before));
	json_object_object_add(obj, "after", js_str(o->after));
	json_object_object_add(obj, "expected", js_str(o->expected));
	json_list_single(stdout, "results", obj);
	free(hex);
}

/* The store, unless --dry-run or a tree no kernel reads: its outcome in O. */
static void extend_now(const struct measurements *g, const struct measurement_register *r,
		       const uint8_t *data, struct extend_outcome *o)
{
	struct mr_extend_result res;
	char *object;
	uint8_t want[MR_VALUE_MAX];

	if (param.dry_run) {
		char *path = path_join(g->dir, r->file), *shown = sysfs_display_path(path);

		o->result = "dry-run";
		o->before = render_hex(r->value, r->len);
		if (!mr_extended_value(r->hash, r->value, r->len, data, want))
			o->expected = render_hex(want, r->len);
		o->message = xasprintf("would write %zu bytes to %s%s%s", r->len, shown,
				       o->expected ? "; it would then read " : "",
				       o->expected ? o->expected : "");
		free(shown);
		free(path);
		return;
	}
	if (!param.force && !sysfs_takes_stores()) {
		o->result = "failed";
		o->err = -EROFS;
		o->message = explain_store_refused(r->file);
		return;
	}
	if (log_verbose()) {
		char *path = path_join(g->dir, r->file), *shown = sysfs_display_path(path);

		cmd_note(CMD, "writing %zu bytes to %s", r->len, shown);
		free(shown);
		free(path);
	}
	mr_extend(g, r, data, r->len, &res);
	object = xasprintf("%s/%s", g->device, r->file);
	if (!param.no_syslog)
		auditlog_store_object("extend", "register", object, NULL, res.err);
	free(object);
	judge(r, data, &res, o);
}

static int run_extend(struct cmd_ctx *ctx)
{
	uint8_t data[MR_VALUE_MAX];
	size_t len = 0;
	struct tsm_snapshot snap;
	const struct measurements *g;
	const struct measurement_register *r;
	struct extend_outcome o = { 0 };
	int rc = read_data(ctx, data, &len);

	if (rc)
		return rc;
	snapshot_scan(&snap, SCAN_MEASUREMENTS);
	rc = find_register(&snap, ctx->args[0], &g, &r);
	if (!rc && param.event) {
		int err = mr_digest_file(r->hash, param.event, data, &len);

		if (err == -EOPNOTSUPP)
			rc = usage_error(ctx->cmd, "--event: %s has no hash tsmctl can compute; give "
					 "--digest", r->file);
		else if (err) {
			cmd_error(CMD, "--event %s: %s", param.event, strerror(-err));
			rc = EXIT_FAIL;
		}
	}
	if (!rc && len != r->len)
		rc = usage_error(ctx->cmd, "the data is %zu bytes; %s takes exactly %zu (the kernel "
				 "refuses any other length with EINVAL)", len, r->file, r->len);
	if (rc) {
		if (ctx->out.json && rc == EXIT_FAIL)
			json_list_empty(stdout, "results");
		snapshot_free(&snap);
		return rc;
	}
	extend_now(g, r, data, &o);
	print_result(ctx, g, r, data, &o);
	rc = streq(o.result, "failed") ? EXIT_FAIL : EXIT_OK;
	free(o.message);
	free(o.before);
	free(o.after);
	free(o.expected);
	snapshot_free(&snap);
	return rc;
}

static const struct opt_def extend_opts[] = {
	OPT_STRING(0, "digest", &param.digest, "HEX", "extend with these bytes (the register's size)"),
	OPT_STRING(0, "digest-file", &param.digest_file, "FILE",
		   "extend with FILE's bytes ('-': stdin), the register's size"),
	OPT_STRING(0, "event", &param.event, "FILE",
		   "extend with FILE's digest in the register's hash ('-': stdin)"),
	OPT_BOOLEAN(0, "dry-run", &param.dry_run, "say what would be written and what it would read"),
	OPT_BOOLEAN(0, "force", &param.force,
		    "write even into a tree that is not a kernel's sysfs (a copy)"),
	OPT_BOOLEAN(0, "no-syslog", &param.no_syslog,
		    "do not log the store to the system log (audit trail)"),
	OPT_COMMON(COMMON_JSON), OPT_END()
};

const struct cmd_def cmd_extend = {
	.name = "extend",
	.args = "REGISTER",
	.summary = "extend a guest's runtime measurement register (RTMR)",
	.description = "Extend a runtime measurement register of a confidential guest (tdx_guest's\n"
		       "RTMR0-3, /sys/class/misc/tdx_guest/measurements) with a digest, as the\n"
		       "kernel takes it (the register's size, one write at offset 0), then check\n"
		       "that it reads HASH(old || digest)",
	.opts = extend_opts,
	.json_name = "results",	/* refused before any write: none */
	.run = run_extend,
};
