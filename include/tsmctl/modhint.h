/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel modules that provide TSMs and attestation reports, and their
 * state: loaded, built in, or available to load (libkmod, on a live host
 * only). A model question the advice (explain.h), audit and metrics ask.
 */
#ifndef TSMCTL_MODHINT_H
#define TSMCTL_MODHINT_H

#include <stdbool.h>
#include <stddef.h>

struct module_state {
	const char *name;	/* "ccp" */
	const char *what;	/* "AMD SEV-TIO" */
	bool loaded;		/* sys/module/NAME/initstate = live */
	bool builtin;		/* sys/module/NAME without initstate */
	int available;		/* 1 found by libkmod, 0 not found, -1 unknown */
};

/*
 * The TSM provider modules and their state: ccp and tdx_host on a host; inside
 * a confidential guest (a guest driver loaded or built in) the guest drivers
 * that register its devsec TSM. Never fails if kmod cannot initialise.
 */
size_t provider_modules(struct module_state *out, size_t max);
/* One line such as "ccp (AMD SEV-TIO): not loaded, available; tdx_host (...)". */
char *provider_modules_summary(void);
/* The same for the attestation report providers (sev_guest, tdx_guest, arm_cca_guest). */
size_t report_provider_modules(struct module_state *out, size_t max);
char *report_provider_modules_summary(void);

#endif
