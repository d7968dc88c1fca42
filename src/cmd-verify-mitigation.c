// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl verify-mitigation: ask the SEV-SNP firmware to verify mitigations,
 * one bit per store as the kernel takes them (ABI.md §7.3), refusing before
 * the write a bit the firmware does not support and one it has verified
 * already (the kernel would send that to the firmware again: a no-op).
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
#include "tsmctl/names.h"
#include "tsmctl/output.h"
#include "tsmctl/platform-store.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define CMD "verify-mitigation"

static struct vm_param {
	bool dry_run, strict, keep_going, force, no_syslog;
} param;

struct vm_result {
	unsigned int bit;
	const char *result;	/* ok, already, dry-run, failed, skipped */
	int err;
	char *message;
	bool have_verified;
	uint64_t verified;	/* verified_mitigations afterwards */
};

/* BIT: a bit number 0-63, or a vector 0x... with exactly one bit set. 0 or EXIT_USAGE. */
static int parse_bit(const struct cmd_def *cmd, const char *arg, unsigned int *bit)
{
	unsigned long long v;
	unsigned long x;

	if (!strncmp(arg, "0x", 2)) {
		if (parse_number(arg, 16, ~0UL, &x))
			return usage_error(cmd, "'%s' is no vector (0x and hex digits)", arg);
		if (__builtin_popcountl(x) != 1)
			return usage_error(cmd, "'%s' has %d bits set: the kernel verifies exactly one "
					   "per store (else EINVAL); name each bit", arg,
					   __builtin_popcountl(x));
		*bit = (unsigned int)__builtin_ctzl(x);
		return 0;
	}
	if (parse_decimal(arg, 63, &v))
		return usage_error(cmd, "'%s' is no mitigation: a bit number 0-63, a vector 0x... "
				   "with one bit, or all", arg);
	*bit = (unsigned int)v;
	return 0;
}

/* The bits the arguments name, in order, each once: into BITS (64), *N of them. */
static int parse_targets(struct cmd_ctx *ctx, const struct sev_mitigations *m, unsigned int *bits,
			 size_t *n)
{
	uint64_t seen = 0;

	*n = 0;
	for (int i = 0; i < ctx->nargs; i++) {
		unsigned int b;
		int rc;

		if (streq(ctx->args[i], "all")) {
			uint64_t open = sev_mitigations_unverified(m);

			for (b = 0; b < 64; b++)
				if ((open >> b & 1) && !(seen >> b & 1)) {
					seen |= (uint64_t)1 << b;
					bits[(*n)++] = b;
				}
			continue;
		}
		rc = parse_bit(ctx->cmd, ctx->args[i], &b);
		if (rc)
			return rc;
		if (!(seen >> b & 1)) {
			seen |= (uint64_t)1 << b;
			bits[(*n)++] = b;
		}
	}
	return 0;
}

/* The vectors must be there and readable before anything is judged: 0 or EXIT_FAIL. */
static int check_vectors(const struct sev_mitigations *m)
{
	int err = m->supported_err ? m->supported_err : m->verified_err;

	if (!m->present) {
		cmd_error(CMD, "no /sys/firmware/sev/vulnerabilities: the kernel is older than 7.3, "
			  "SEV-SNP is not initialised, or the SEV firmware does not offer "
			  "SNP_VERIFY_MITIGATION (tsmctl mitigations says more)");
		return EXIT_FAIL;
	}
	if (err == -EACCES)
		cmd_error(CMD, "reading the mitigation vectors needs root (supported_mitigations is "
			  "0400): run tsmctl as root");
	else if (err)
		cmd_error(CMD, "the mitigation vectors cannot be read (%s)",
			  render_read_error_word(err));
	return err ? EXIT_FAIL : 0;
}

/* One bit: checked against the vectors read, then one store and its verification. */
static void verify_one(const struct sev_mitigations *m, unsigned int bit, struct vm_result *r)
{
	uint64_t mask = (uint64_t)1 << bit;
	struct sev_mitigations after = { 0 };
	char *path, *shown, *object;

	r->bit = bit;
	r->have_verified = true;
	r->verified = m->verified;
	r->result = "failed";
	if (!(m->supported & mask)) {
		r->message = xasprintf("not written: bit %u is no mitigation the SEV firmware supports "
				       "(supported_mitigations 0x%llx), so it cannot verify it", bit,
				       (unsigned long long)m->supported);
		return;
	}
	if (m->verified & mask) {
		r->result = "already";
		r->message = xasprintf("verified already (verified_mitigations 0x%llx); nothing "
				       "written", (unsigned long long)m->verified);
		return;
	}
	path = path_join(SEV_VULNERABILITIES, "verified_mitigations");
	shown = sysfs_display_path(path);
	if (param.dry_run) {
		r->result = "dry-run";
		r->message = xasprintf("would write 0x%llx to %s", (unsigned long long)mask, shown);
	} else if (!param.force && !sysfs_takes_stores()) {
		r->err = -EROFS;
		r->message = explain_store_refused("verified_mitigations");
	} else {
		if (log_verbose())
			cmd_note(CMD, "writing 0x%llx to %s", (unsigned long long)mask, shown);
		r->err = mitigation_verify(mask, &after);
		object = xasprintf("0x%llx", (unsigned long long)mask);
		if (!param.no_syslog)
			auditlog_store_object("verify-mitigation", "mitigation", object, NULL, r->err);
		free(object);
		r->have_verified = !after.verified_err;
		r->verified = after.verified;
		if (r->err)
			r->message = explain_verify_mitigation(bit, r->err);
		else if (after.verified_err)
			r->message = xasprintf("the kernel took the store, but verified_mitigations "
					       "cannot be read back (%s)",
					       render_read_error_word(after.verified_err));
		else if (!(after.verified & mask))
			r->message = xasprintf("the kernel took the store, but verified_mitigations "
					       "(0x%llx) still lacks bit %u",
					       (unsigned long long)after.verified, bit);
		else {
			r->result = "ok";
			r->message = xasprintf("verified; verified_mitigations now 0x%llx",
					       (unsigned long long)after.verified);
		}
	}
	free(shown);
	free(path);
}

static struct json_object *result_json(const struct vm_result *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "bit", js_u64(r->bit));
	json_object_object_add(o, "mask", js_u64((uint64_t)1 << r->bit));
	json_object_object_add(o, "action", js_str("verify-mitigation"));
	json_object_object_add(o, "result", js_str(r->result));
	json_object_object_add(o, "errno", r->err ? js_str(errno_symbol(-r->err)) : NULL);
	json_object_object_add(o, "message", js_str(r->message));
	json_object_object_add(o, "verified_mitigations", r->have_verified ? js_u64(r->verified) :
			       NULL);
	return o;
}

static bool failed(const struct vm_result *r)
{
	return streq(r->result, "failed") || (param.strict && streq(r->result, "already"));
}

static void print_results(const struct cmd_ctx *ctx, const struct vm_result *res, size_t n)
{
	struct json_list w;
	size_t ok = 0;

	if (ctx->out.json)
		json_list_begin(&w, stdout, "results");
	for (size_t i = 0; i < n; i++) {
		const struct vm_result *r = &res[i];

		ok += streq(r->result, "ok") || streq(r->result, "already") ||
		      streq(r->result, "dry-run");
		if (ctx->out.json)
			json_list_item(&w, result_json(r));
		else if (streq(r->result, "failed") || streq(r->result, "skipped"))
			cmd_error(CMD, "bit %u (0x%llx): %s", r->bit, 1ULL << r->bit, r->message);
		else if (streq(r->result, "already"))
			cmd_note(CMD, "bit %u (0x%llx): %s", r->bit, 1ULL << r->bit, r->message);
		else
			printf("bit %u (0x%llx): %s\n", r->bit, 1ULL << r->bit, r->message);
	}
	if (ctx->out.json)
		json_list_end(&w);
	else if (n)
		printf("%s %zu of %zu mitigation%s\n", param.dry_run ? "would verify" : "verified",
		       ok, n, n == 1 ? "" : "s");
}

static int run_verify_mitigation(struct cmd_ctx *ctx)
{
	struct tsm_snapshot snap;
	unsigned int bits[64];
	struct vm_result res[64];
	size_t n = 0;
	bool stop = false;
	int rc;

	if (!ctx->nargs)
		return usage_error(ctx->cmd, "which mitigation: a bit number, a vector 0x... with one "
				   "bit, or all (tsmctl mitigations lists them)");
	for (int i = 0; i < ctx->nargs; i++)	/* usage errors before any read */
		if (!streq(ctx->args[i], "all") && (rc = parse_bit(ctx->cmd, ctx->args[i], bits)))
			return rc;
	snapshot_scan(&snap, SCAN_PLATFORM);
	rc = check_vectors(&snap.sev_mit) ?: parse_targets(ctx, &snap.sev_mit, bits, &n);
	if (!rc && !n)
		cmd_note(CMD, "nothing to verify: every supported mitigation is verified "
			 "(supported 0x%llx, verified 0x%llx)",
			 (unsigned long long)snap.sev_mit.supported,
			 (unsigned long long)snap.sev_mit.verified);
	for (size_t i = 0; !rc && i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		if (stop) {
			res[i] = (struct vm_result){ .bit = bits[i], .result = "skipped",
						     .message = xstrdup("not tried: an earlier one "
									"failed (--keep-going tries "
									"each)") };
			continue;
		}
		verify_one(&snap.sev_mit, bits[i], &res[i]);
		/* the next bit is judged against what the kernel shows now */
		if (res[i].have_verified)
			snap.sev_mit.verified = res[i].verified;
		stop = failed(&res[i]) && !param.keep_going;
	}
	if (!rc) {
		print_results(ctx, res, n);
		for (size_t i = 0; i < n; i++) {
			rc |= failed(&res[i]) || streq(res[i].result, "skipped") ? EXIT_FAIL : 0;
			free(res[i].message);
		}
	} else if (ctx->out.json) {
		json_list_empty(stdout, "results");
	}
	snapshot_free(&snap);
	return rc;
}

static const struct opt_def vm_opts[] = {
	OPT_BOOLEAN(0, "dry-run", &param.dry_run, "say what would be written where; change nothing"),
	OPT_BOOLEAN(0, "keep-going", &param.keep_going, "go on with the next bit after a failure"),
	OPT_BOOLEAN(0, "strict", &param.strict, "treat a bit verified already as a failure"),
	OPT_BOOLEAN(0, "force", &param.force,
		    "write even into a tree that is not a kernel's sysfs (a copy)"),
	OPT_BOOLEAN(0, "no-syslog", &param.no_syslog,
		    "do not log the stores to the system log (audit trail)"),
	OPT_COMMON(COMMON_JSON), OPT_END()
};

const struct cmd_def cmd_verify_mitigation = {
	.name = "verify-mitigation",
	.args = "BIT...|all",
	.summary = "ask the SEV-SNP firmware to verify a mitigation",
	.description = "Ask the SEV-SNP firmware to verify vulnerability mitigations\n"
		       "(/sys/firmware/sev/vulnerabilities/verified_mitigations, Linux 7.3), one\n"
		       "bit per store as the kernel takes them. BIT is a bit number (2) or a\n"
		       "vector with one bit (0x4); all names every supported, unverified one. A\n"
		       "bit the firmware does not support or has verified already is not written",
	.opts = vm_opts,
	.json_name = "results",	/* refused before any store: none */
	.run = run_verify_mitigation,
};
