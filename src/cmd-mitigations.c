// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl mitigations: the SEV-SNP firmware's mitigation vectors (ABI.md §7.3). */
#include <errno.h>
#include <stdlib.h>

#include <libsmartcols.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

#define CMD "mitigations"

enum { COL_BIT, COL_MASK, COL_SUPPORTED, COL_VERIFIED };

static const struct column mit_columns[] = {
	[COL_BIT] = { "BIT", 3, SCOLS_FL_RIGHT, "bit number in the vectors" },
	[COL_MASK] = { "MASK", 18, 0, "the bit as a vector (what verified_mitigations takes)" },
	[COL_SUPPORTED] = { "SUPPORTED", 3, 0, "in supported_mitigations" },
	[COL_VERIFIED] = { "VERIFIED", 3, 0, "in verified_mitigations" },
};

static const int mit_defaults[] = { COL_BIT, COL_MASK, COL_SUPPORTED, COL_VERIFIED };

static struct mit_param {
	bool unverified;
	bool unreadable;	/* the vectors exist but could not be read */
} param;

/* The bit numbers, so an item can point at one. */
static const unsigned int bit_numbers[64] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
	24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
	46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
};

static bool vectors_known(const struct sev_mitigations *m)
{
	return m->present && !m->supported_err && !m->verified_err;
}

/* Bit I among those either vector has set. */
static const void *mit_item(const struct tsm_snapshot *snap, size_t i)
{
	const struct sev_mitigations *m = &snap->sev_mit;
	uint64_t any = vectors_known(m) ? m->supported | m->verified : 0;

	for (unsigned int b = 0; b < 64; b++)
		if ((any >> b & 1) && !i--)
			return &bit_numbers[b];
	return NULL;
}

static bool mit_selected(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
			 const void *item)
{
	(void)ctx;
	return !param.unverified ||
	       (sev_mitigations_unverified(&snap->sev_mit) >> *(const unsigned int *)item & 1);
}

static char *cell(const struct tsm_snapshot *snap, const void *item, int col)
{
	unsigned int b = *(const unsigned int *)item;
	uint64_t mask = (uint64_t)1 << b;

	switch (col) {
	case COL_BIT: return cell_fmt("%u", b);
	case COL_MASK: return cell_fmt("0x%llx", (unsigned long long)mask);
	case COL_SUPPORTED: return cell_bool(snap->sev_mit.supported & mask);
	case COL_VERIFIED: return cell_bool(snap->sev_mit.verified & mask);
	}
	return NULL;
}

static struct json_object *mit_json(const struct tsm_snapshot *snap, const void *item)
{
	unsigned int b = *(const unsigned int *)item;
	uint64_t mask = (uint64_t)1 << b;
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "bit", js_u64(b));
	json_object_object_add(o, "mask", js_u64(mask));
	json_object_object_add(o, "supported", js_bool(snap->sev_mit.supported & mask));
	json_object_object_add(o, "verified", js_bool(snap->sev_mit.verified & mask));
	return o;
}

/* "1, 2" */
static char *bit_list(uint64_t v, const char *sep)
{
	struct strbuf s = STRBUF_INIT;

	for (unsigned int b = 0; b < 64; b++)
		if (v >> b & 1)
			strbuf_join(&s, sep, "%u", b);
	return strbuf_take(&s);
}

static void explain_mits(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap, size_t shown)
{
	const struct sev_mitigations *m = &snap->sev_mit;
	int err = m->supported_err ? m->supported_err : m->verified_err;
	uint64_t open = sev_mitigations_unverified(m);
	char *bits, *args;

	(void)ctx;
	(void)shown;
	if (!m->present) {
		cmd_error(CMD, "no /sys/firmware/sev/vulnerabilities: the kernel is older than 7.3, "
			  "SEV-SNP is not initialised (ccp not loaded, or SNP off in the firmware "
			  "settings), or the SEV firmware does not offer SNP_VERIFY_MITIGATION");
		return;
	}
	if (err) {
		param.unreadable = true;
		if (err == -EACCES)
			cmd_error(CMD, "reading the mitigation vectors needs root "
				  "(supported_mitigations is 0400, verified_mitigations 0600)");
		else
			cmd_error(CMD, "the mitigation vectors cannot be read (%s)%s",
				  render_read_error_word(err), err == -EBADMSG ? "" :
				  ": each read asks the SEV firmware (SNP_VERIFY_MITIGATION), "
				  "which failed");
		return;
	}
	if (!(m->supported | m->verified))
		cmd_note(CMD, "the SEV firmware supports no mitigation to verify (both vectors 0x0)");
	if (!open)
		return;
	bits = bit_list(open, ", ");
	args = bit_list(open, " ");
	cmd_note(CMD, "supported but not verified: bit%s %s; after reading AMD's security "
		 "bulletin for them: tsmctl verify-mitigation %s", open & (open - 1) ? "s" : "",
		 bits, args);
	free(bits);
	free(args);
}

static const struct view mit_view = {
	.scan = SCAN_PLATFORM,
	.defaults = mit_defaults,
	.ndefaults = ARRAY_SIZE(mit_defaults),
	.item = mit_item,
	.selected = mit_selected,
	.cell = cell,
	.json = mit_json,
	.explain = explain_mits,
};

static int run_mitigations(struct cmd_ctx *ctx)
{
	int rc = view_run(ctx, &mit_view, 0);

	return rc ? rc : param.unreadable ? EXIT_FAIL : EXIT_OK;
}

static const struct opt_def mit_options[] = {
	OPT_BOOLEAN(0, "unverified", &param.unverified,
		    "only mitigations the firmware supports and has not verified"),
	OPT_VIEW_OUTPUT(), OPT_END()
};

const struct cmd_def cmd_mitigations = {
	.name = "mitigations",
	.summary = "show the SEV-SNP firmware's mitigation vectors (supported, verified)",
	.description = "Show the bits of the SEV-SNP firmware's vulnerability mitigation vectors\n"
		       "(/sys/firmware/sev/vulnerabilities, Linux 7.3): which mitigations the\n"
		       "firmware supports and which it has verified. Reading them needs root",
	.opts = mit_options,
	.cols = mit_columns,
	.ncols = ARRAY_SIZE(mit_columns),
	.json_name = "mitigations",
	.run = run_mitigations,
};
