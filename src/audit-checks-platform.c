// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * audit's checks of the platform state beside the TSM (ABI.md §7.2, §7.3):
 * the security attributes of a SEV-TIO TSM's PSP, and the SEV-SNP
 * mitigations the firmware supports but has not verified. Their rows are
 * in audit-checks.c's table; like the others they read only the snapshot.
 */
#include <errno.h>
#include <stdlib.h>

#include "audit-checks-platform.h"
#include "audit-engine.h"
#include "tsmctl/util.h"

/* What one PSP bit clear means for the TSM's trust, and how bad that is. */
static const struct psp_rule {
	enum psp_bit bit;
	enum audit_status clear;	/* the status when the bit reads 0 */
	const char *set_words;		/* the pass */
	const char *clear_words;	/* what 0 means for the TSM's trust */
	const char *clear_hint;
	const char *what;		/* "whether ..." cannot be read */
} psp_rules[] = {
	{ PSP_FUSED_PART, AUDIT_FAIL, "a fused production part",
	  "a part not fused against tampering (pre-production silicon): the SEV-TIO TSM runs in "
	  "this PSP's firmware, so nothing it attests (device authentication, IDE keys) can be "
	  "trusted on it",
	  "use a production (fused) part for confidential workloads; an unfused one is for "
	  "development only", "whether the part is fused" },
	{ PSP_DEBUG_LOCK_ON, AUDIT_FAIL, "debug locked",
	  "the part is unlocked for debugging: a debugger can reach the PSP that runs the TSM, and "
	  "with it the keys of its IDE streams",
	  "lock debug in the platform firmware, or use a production part: an unlocked part cannot "
	  "be trusted with device security", "whether debug is locked" },
	{ PSP_ANTI_ROLLBACK, AUDIT_WARN, "rollback protection enforced",
	  "the PSP does not enforce rollback protection: its firmware, and with it the TSM, can be "
	  "replaced by an older, vulnerable version",
	  "enable the PSP's anti-rollback in the platform firmware once the firmware you mean to "
	  "keep is installed", "whether rollback protection is enforced" },
	{ PSP_BOOT_INTEGRITY, AUDIT_WARN, "the CPU is the hardware root of trust for boot",
	  "the CPU is not the hardware root of trust for boot: the firmware the TSM starts from is "
	  "not verified from the CPU's root of trust (the platform may use another: its vendor "
	  "says which)",
	  "enable the platform's hardware root of trust for boot (AMD Platform Secure Boot) in the "
	  "firmware, or confirm the vendor's own", "whether boot starts from the CPU's root of "
	  "trust" },
};

bool psp_checks_apply(const struct audit_run *run, const void *obj)
{
	(void)run;
	return ((const struct tsm *)obj)->psp != NULL;
}

static const struct psp_rule *rule_of(enum psp_bit bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(psp_rules); i++)
		if (psp_rules[i].bit == bit)
			return &psp_rules[i];
	abort();	/* a check without its rule is a bug in the table */
}

/* One bit of the PSP of the SEV-TIO TSM OBJ, judged by its rule (ABI.md §7.2). */
static void check_psp_bit(struct audit_run *run, struct audit_finding *f, const void *obj,
			  enum psp_bit bit)
{
	const struct psp_security *p = ((const struct tsm *)obj)->psp;
	const struct psp_rule *r = rule_of(bit);
	const char *attr = psp_bit_attr[bit];
	int v = p->bit[bit];

	if (!psp_reports_security(p))
		result_done(run, f, AUDIT_SKIP,
			    xstrdup("the PSP shows its security state only when its firmware "
				    "reports it (HSTI): update the platform firmware, and use a kernel "
				    "whose ccp has CONFIG_CRYPTO_DEV_SP_PSP"),
			    "the PSP (%s) shows none of the sysfs-driver-ccp security attributes: "
			    "%s cannot be read from Linux", p->function, r->what);
	else if (v == -ENOENT)
		result_done(run, f, AUDIT_SKIP, xstrdup(bit == PSP_BOOT_INTEGRITY ?
			    "a kernel of 7.0 or later shows boot_integrity" :
			    "the PSP shows its security attributes all or none: check the tree"),
			    "the PSP (%s) shows no %s%s: %s cannot be read", p->function, attr,
			    bit == PSP_BOOT_INTEGRITY ? " (added in Linux 7.0)" : "", r->what);
	else if (v < 0)
		result_done(run, f, AUDIT_FAIL, NULL, "%s of the PSP (%s) cannot be read (%s): %s is "
			    "unknown", attr, p->function, v == -EBADMSG ? "malformed" :
			    errno_symbol(-v), r->what);
	else if (v)
		result_done(run, f, AUDIT_PASS, NULL, "%s reads 1: %s (PSP %s)", attr, r->set_words,
			    p->function);
	else
		result_done(run, f, r->clear, xstrdup(r->clear_hint), "%s reads 0 on the PSP (%s): %s",
			    attr, p->function, r->clear_words);
}

void check_psp_fused(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	check_psp_bit(run, f, obj, PSP_FUSED_PART);
}

void check_psp_debug_lock(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	check_psp_bit(run, f, obj, PSP_DEBUG_LOCK_ON);
}

void check_psp_anti_rollback(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	check_psp_bit(run, f, obj, PSP_ANTI_ROLLBACK);
}

void check_psp_boot_integrity(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	check_psp_bit(run, f, obj, PSP_BOOT_INTEGRITY);
}

/* "1, 2" (SEP ", ") */
static char *bits_text(uint64_t v, const char *sep)
{
	char *s = NULL;

	for (unsigned int b = 0; b < 64; b++)
		if (v >> b & 1)
			str_join(&s, sep, "%u", b);
	return s;
}

/* ABI.md §7.3: a result only where the kernel shows the vectors (7.3, SNP initialised). */
void check_sev_mitigations(struct audit_run *run, const struct audit_check *c)
{
	const struct sev_mitigations *m = &run->snap->sev_mit;
	int err = m->supported_err ? m->supported_err : m->verified_err;
	struct audit_finding *f;
	uint64_t open;
	char *bits, *args;

	if (!m->present || !(f = result_start(run, c, &subject_platform)))
		return;
	if (err == -EACCES) {
		result_done(run, f, AUDIT_NEEDS_ROOT, xstrdup("run the audit as root"),
			    "reading /sys/firmware/sev/vulnerabilities needs root "
			    "(supported_mitigations 0400, verified_mitigations 0600)");
		return;
	}
	if (err) {
		result_done(run, f, AUDIT_FAIL, xstrdup("check dmesg for SNP_VERIFY_MITIGATION "
							"errors; the SEV firmware may need an update"),
			    "the SEV-SNP mitigation vectors cannot be read (%s)%s",
			    err == -EBADMSG ? "malformed" : errno_symbol(-err),
			    err == -EBADMSG ? "" : ": the firmware's status command failed");
		return;
	}
	open = sev_mitigations_unverified(m);
	if (!open) {
		result_done(run, f, AUDIT_PASS, NULL, "every SEV-SNP mitigation the firmware supports "
			    "is verified (supported_mitigations 0x%llx, verified_mitigations 0x%llx)",
			    (unsigned long long)m->supported, (unsigned long long)m->verified);
		return;
	}
	bits = bits_text(open, ", ");
	args = bits_text(open, " ");
	result_done(run, f, AUDIT_WARN,
		    xasprintf("read AMD's security bulletin for each bit, then: tsmctl "
			      "verify-mitigation %s", args),
		    "SEV-SNP mitigations supported but not verified: bit%s %s (supported_mitigations "
		    "0x%llx, verified_mitigations 0x%llx): until the firmware verifies them it does "
		    "not vouch that those fixes are in effect", open & (open - 1) ? "s" : "", bits,
		    (unsigned long long)m->supported, (unsigned long long)m->verified);
	free(bits);
	free(args);
}
