// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The platform state beside the TSM (ABI.md §7) as text and JSON: the PSP's
 * security attributes (list -v), a measurement register (measurements,
 * report, extend), bytes as hex.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsmctl/output.h"
#include "tsmctl/render.h"
#include "tsmctl/util.h"

/* What each PSP bit says set and clear (sysfs-driver-ccp), in psp_bit order. */
static const struct { const char *set, *clear; } psp_words[PSP_NR_BITS] = {
	[PSP_FUSED_PART] = { "fused against tampering", "not fused (a pre-production part)" },
	[PSP_BOOT_INTEGRITY] = { "the CPU is the hardware root of trust for boot",
				 "the CPU is not the hardware root of trust for boot" },
	[PSP_DEBUG_LOCK_ON] = { "debug locked", "unlocked for debugging" },
	[PSP_TSME_STATUS] = { "transparent SME active", "transparent SME not active" },
	[PSP_ANTI_ROLLBACK] = { "rollback protection enforced", "rollback protection not enforced" },
	[PSP_RPMC_PRODUCTION] = { "RPMC production enabled", "RPMC production not enabled" },
	[PSP_RPMC_SPIROM] = { "an RPMC-capable SPI ROM present", "no RPMC-capable SPI ROM" },
	[PSP_HSP_TPM] = { "the HSP TPM activated", "no HSP TPM activated" },
	[PSP_ROM_ARMOR] = { "RomArmor SPI protection enforced", "RomArmor not enforced" },
};

char *render_hex(const uint8_t *b, size_t n)
{
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf_appendf(&s, "%02x", b[i]);
	return strbuf_take(&s);
}

const char *render_psp_bit_words(enum psp_bit bit, int value)
{
	return value == 1 ? psp_words[bit].set : psp_words[bit].clear;
}

void render_line(int depth, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	render_vline(depth, fmt, ap);
	va_end(ap);
}

static const char *version_text(const char *v, int err, char **own)
{
	*own = NULL;
	if (v)
		return v;
	if (err == -ENOENT)
		return "not shown";
	*own = xasprintf("unreadable (%s)", render_read_error_word(err));
	return *own;
}

void render_psp_text(const struct psp_security *p, int depth)
{
	char *a, *b;
	const char *bl = version_text(p->bootloader_version, p->bootloader_err, &a);
	const char *tee = version_text(p->tee_version, p->tee_err, &b);

	if (!psp_reports_security(p)) {
		render_line(depth, "PSP security (%s): not reported: the PSP shows none of the "
		    "sysfs-driver-ccp attributes (it reports no security state to this kernel)",
		    p->function);
	} else {
		render_line(depth, "PSP security (%s, sysfs-driver-ccp):", p->function);
		for (int i = 0; i < PSP_NR_BITS; i++) {
			if (p->bit[i] >= 0)
				render_line(depth + 1, "%s %d: %s", psp_bit_attr[i], p->bit[i],
				    render_psp_bit_words(i, p->bit[i]));
			else if (p->bit[i] == -ENOENT)
				render_line(depth + 1, "%s: not shown by this kernel%s", psp_bit_attr[i],
				    i == PSP_BOOT_INTEGRITY ? " (added in Linux 7.0)" : "");
			else
				render_line(depth + 1, "%s: unreadable (%s)", psp_bit_attr[i],
				    render_read_error_word(p->bit[i]));
		}
	}
	render_line(depth, "PSP firmware: bootloader %s, TEE %s", bl, tee);
	free(a);
	free(b);
}

struct json_object *render_mr_json(const struct measurements *g, const struct measurement_register *r)
{
	struct json_object *o = json_object_new_object();
	char *hex = r->value ? render_hex(r->value, r->len) : NULL;

	json_object_object_add(o, "device", js_str(g->device));
	json_object_object_add(o, "name", js_str(r->name));
	json_object_object_add(o, "file", js_str(r->file));
	json_object_object_add(o, "hash", js_str(r->hash));
	json_object_object_add(o, "size", r->value ? js_u64(r->len) : NULL);
	json_object_object_add(o, "extendable", js_bool(r->mode & 0200));
	json_object_object_add(o, "value", js_str(hex));
	json_object_object_add(o, "read_error", r->err ? js_str(render_read_error_word(r->err)) :
			       NULL);
	free(hex);
	return o;
}
