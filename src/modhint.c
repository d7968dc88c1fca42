// SPDX-License-Identifier: GPL-2.0-or-later
/* Which TSM and report provider modules are loaded, built in or available (modhint.h). */
#include <stdlib.h>

#include <libkmod.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/modhint.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

struct module_hint {
	const char *name, *what;
};

static const struct module_hint providers[] = {
	{ "ccp", "AMD SEV-TIO" },
	{ "tdx_host", "Intel TDX Connect" },
};

/* libkmod only knows the running system's modules: ask it on a live host only. */
static int kmod_available(struct kmod_ctx *kctx, const char *name)
{
	struct kmod_list *list = NULL;
	int found;

	if (!kctx)
		return -1;
	if (kmod_module_new_from_lookup(kctx, name, &list) < 0)
		return -1;
	found = list != NULL;
	kmod_module_unref_list(list);
	return found;
}

/* Configfs-tsm report providers: the guest drivers that register with tsm_report. */
static const struct module_hint report_providers[] = {
	{ "sev_guest", "AMD SEV-SNP guest" },
	{ "tdx_guest", "Intel TDX guest" },
	{ "arm_cca_guest", "Arm CCA realm" },
};

/* The state of each of the COUNT modules in TABLE. */
static size_t modules_state(const struct module_hint *table, size_t count,
			    struct module_state *out, size_t max)
{
	struct kmod_ctx *kctx = sysfs_is_live() ? kmod_new(NULL, NULL) : NULL;
	size_t n = 0;

	if (kctx && kmod_load_resources(kctx) < 0) {
		kmod_unref(kctx);
		kctx = NULL;
	}
	for (size_t i = 0; i < count && n < max; i++, n++) {
		const char *name = table[i].name, *what = table[i].what;
		char *dir = path_join(SYS_MODULE, name), *state = NULL;

		out[n] = (struct module_state){ .name = name, .what = what };
		if (!sysfs_attr_text(dir, "initstate", &state))
			out[n].loaded = streq(state, "live") || streq(state, "coming");
		else if (sysfs_exists(dir))
			out[n].builtin = true;
		out[n].available = (out[n].loaded || out[n].builtin) ? 1 :
				   kmod_available(kctx, name);
		free(state);
		free(dir);
	}
	if (kctx)
		kmod_unref(kctx);
	return n;
}

/* A confidential guest: one of its drivers (the report providers) is loaded or built in. */
static bool in_guest(void)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(report_providers) && !found; i++)
		found = sysfs_attr_exists(SYS_MODULE, report_providers[i].name);
	return found;
}

size_t provider_modules(struct module_state *out, size_t max)
{
	/* inside a guest the guest driver registers the devsec TSM (ABI.md §1.1), not ccp or tdx_host */
	if (in_guest())
		return modules_state(report_providers, ARRAY_SIZE(report_providers), out, max);
	return modules_state(providers, ARRAY_SIZE(providers), out, max);
}

size_t report_provider_modules(struct module_state *out, size_t max)
{
	return modules_state(report_providers, ARRAY_SIZE(report_providers), out, max);
}

static char *modules_summary(const struct module_state *m, size_t n)
{
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const char *state = m[i].loaded ? "loaded" : m[i].builtin ? "built in" :
				    m[i].available == 1 ? "not loaded (available)" :
				    m[i].available == 0 ? "not available" : "not loaded";

		strbuf_join(&s, "; ", "%s (%s): %s", m[i].name, m[i].what, state);
	}
	return strbuf_take(&s);
}

char *provider_modules_summary(void)
{
	struct module_state m[ARRAY_SIZE(providers) + ARRAY_SIZE(report_providers)];

	return modules_summary(m, provider_modules(m, ARRAY_SIZE(m)));
}

char *report_provider_modules_summary(void)
{
	struct module_state m[ARRAY_SIZE(report_providers)];

	return modules_summary(m, report_provider_modules(m, ARRAY_SIZE(m)));
}
