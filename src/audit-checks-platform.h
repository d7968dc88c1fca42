/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The platform checks (audit-checks-platform.c) the table in audit-checks.c points at. */
#ifndef TSMCTL_AUDIT_CHECKS_PLATFORM_H
#define TSMCTL_AUDIT_CHECKS_PLATFORM_H

#include "tsmctl/audit.h"

/* psp.*: a SEV-TIO TSM whose PSP the scan read (SCAN_PLATFORM), ABI.md §7.2 */
bool psp_checks_apply(const struct audit_run *run, const void *obj);
void check_psp_fused(struct audit_run *run, struct audit_finding *f, const void *obj);
void check_psp_debug_lock(struct audit_run *run, struct audit_finding *f, const void *obj);
void check_psp_anti_rollback(struct audit_run *run, struct audit_finding *f, const void *obj);
void check_psp_boot_integrity(struct audit_run *run, struct audit_finding *f, const void *obj);
/* platform.sev-mitigations, ABI.md §7.3 */
void check_sev_mitigations(struct audit_run *run, const struct audit_check *c);

#endif
