// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * audit's checks, one function per check, and the table (audit_checks[])
 * that orders them, hangs them below their parents and documents them.
 * Pure: every fact comes from struct tsm_snapshot (and the provider-module
 * states handed in); every result goes through audit-engine.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit-checks-platform.h"
#include "audit-engine.h"
#include "tsmctl/ide.h"
#include "tsmctl/names.h"
#include "tsmctl/util.h"

static unsigned int rid_of(const struct pci_func *f)
{
	return (f->bus & 0xff) << 8 | (f->dev & 0x1f) << 3 | (f->fn & 7);
}

/* "ccp (AMD SEV-TIO): loaded; tdx_host (Intel TDX Connect): not available" */
static char *modules_text(const struct audit_opts *o, bool *any_up)
{
	char *s = NULL;

	*any_up = false;
	for (size_t i = 0; i < o->nr_modules; i++) {
		const struct module_state *m = &o->modules[i];
		const char *state = m->loaded ? "loaded" : m->builtin ? "built in" :
				    m->available == 1 ? "not loaded (available)" :
				    m->available == 0 ? "not available" : "not loaded";

		*any_up |= m->loaded || m->builtin;
		audit_text_add(&s, "%s (%s): %s", m->name, m->what, state);
	}
	return s ? s : xstrdup("no provider module known");
}

/* "EACCES", or "malformed" for a value the kernel would not print (-EBADMSG). */
static const char *read_word(int err)
{
	return err == -EBADMSG ? "malformed" : errno_symbol(-err);
}

/* ---- platform ---- */

/* A function whose config was read (the scan's dangling targets do not exist). */
static bool cfg_examined(const struct pci_func *f)
{
	return f->cfg_read && !f->gone;
}

static void check_config_access(struct audit_run *run, const struct audit_check *c)
{
	const struct tsm_snapshot *snap = run->snap;
	struct audit_finding *f = result_start(run, c, &subject_platform);
	size_t n = 0, limited = 0;
	char *which = NULL;

	if (!f)
		return;
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *d = snap->funcs[i];

		if (!cfg_examined(d))
			continue;
		n++;
		if (func_cfg_needs_root(d) && limited++ < 3)
			audit_text_add(&which, "%s", d->bdf);
	}
	if (limited)
		result_done(run, f, AUDIT_NEEDS_ROOT,
			    xstrdup("run the audit as root: the kernel gives other users only the first 64 "
				    "bytes of config, so IDE registers and DEVCAP.TEE are unknown; the "
				    "checks that need them are skipped, not failed"),
			    "config space of %zu of %zu function%s limited to the 64-byte header (%s%s)",
			    limited, n, n == 1 ? "" : "s", which, limited > 3 ? "; ..." : "");
	else
		result_done(run, f, AUDIT_PASS, NULL, "config space of %zu function%s fully readable", n,
			    n == 1 ? "" : "s");
	free(which);
}

static void check_tsm_class(struct audit_run *run, const struct audit_check *c)
{
	struct audit_finding *f = result_start(run, c, &subject_platform);
	bool up;
	char *mods;

	if (!f)
		return;
	if (run->snap->have_tsm_class && run->snap->nr_bad_tsms) {
		const struct bad_entry *b = run->snap->bad_tsms;

		result_done(run, f, AUDIT_WARN,
			    xstrdup("the kernel puts only its TSMs' class devices there: the tree was "
				    "edited by hand or damaged; these entries are not counted as TSMs"),
			    "%s/class/tsm exists, but %zu entr%s no TSM: %s is %s%s", audit_sys(run),
			    run->snap->nr_bad_tsms,
			    run->snap->nr_bad_tsms == 1 ? "y is" : "ies are", b->name,
			    bad_entry_kind(b->err), run->snap->nr_bad_tsms > 1 ? "; ..." : "");
		return;
	}
	if (run->snap->have_tsm_class) {
		result_done(run, f, AUDIT_PASS, NULL, "%s/class/tsm exists", audit_sys(run));
		return;
	}
	if (run->snap->tsm_class_err && run->snap->tsm_class_err != -ENOENT) {
		/* there, but unreadable or no directory: no claim about the kernel's support */
		result_done(run, f, AUDIT_FAIL,
			    xstrdup("a kernel's /sys/class/tsm is a directory anyone may list: check "
				    "the tree (--sysroot) and its permissions"),
			    "%s/class/tsm is %s (%s): whether a TSM is registered is unknown",
			    audit_sys(run), bad_entry_kind(run->snap->tsm_class_err),
			    errno_symbol(-run->snap->tsm_class_err));
		return;
	}
	mods = modules_text(run->opts, &up);
	result_done(run, f, AUDIT_FAIL,
		    xasprintf("the kernel needs PCI TSM support (CONFIG_PCI_TSM, v6.19 or later) and a "
			      "TSM provider: %s", mods),
		    "%s/class/tsm does not exist", audit_sys(run));
	free(mods);
}

/* Every kernel lists its PCI functions in sys/bus/pci/devices: a tree without is no kernel's. */
static void check_pci_devices(struct audit_run *run, const struct audit_check *c)
{
	const struct tsm_snapshot *snap = run->snap;
	struct audit_finding *f = result_start(run, c, &subject_platform);
	int err = snap->pci_devices_err;

	if (!f)
		return;
	if (err)
		result_done(run, f, AUDIT_FAIL, NULL, "%s/bus/pci/devices is %s (%s): no PCI "
			    "function can be looked up, so no device can be audited", audit_sys(run),
			    err == -ENOENT ? "missing" : bad_entry_kind(err), errno_symbol(-err));
	else if (snap->nr_streams && !snap->nr_funcs)
		result_done(run, f, AUDIT_FAIL, NULL, "%s/bus/pci/devices is empty, but host bridges "
			    "hold %zu stream link%s", audit_sys(run), snap->nr_streams,
			    snap->nr_streams == 1 ? "" : "s");
	else
		result_done(run, f, AUDIT_PASS, NULL, "%s/bus/pci/devices lists the PCI functions",
			    audit_sys(run));
}

static void check_tsm_present(struct audit_run *run, const struct audit_check *c)
{
	const struct tsm_snapshot *snap = run->snap;
	struct audit_finding *f = result_start(run, c, &subject_platform);
	char *names = NULL, *mods;
	bool up;

	if (!f)
		return;
	if (snap->nr_tsms) {
		for (size_t i = 0; i < snap->nr_tsms; i++)
			str_join(&names, ", ", "%s", snap->tsms[i]->name);
		result_done(run, f, AUDIT_PASS, NULL, "%zu TSM%s registered: %s", snap->nr_tsms,
			    snap->nr_tsms == 1 ? "" : "s", names);
		free(names);
		return;
	}
	mods = modules_text(run->opts, &up);
	result_done(run, f, AUDIT_FAIL,
		    up ? xasprintf("a provider is loaded but registered no TSM (%s): check dmesg "
				   "(e.g. 'SEV-TIO status'), firmware and IOMMU TIO support, ccp.tio=Y", mods) :
			 xasprintf("load the TSM provider module (%s): modprobe ccp (with tio=Y) for "
				   "SEV-TIO, tdx_host for TDX Connect", mods),
		    "no tsmN in %s/class/tsm", audit_sys(run));
	free(mods);
}

static void check_tsm_mode(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm *t = obj;

	if (!t->has_pci_mode)
		result_done(run, f, AUDIT_PASS, NULL, "no pci_mode: v6.19 ABI: link assumed");
	else if (!t->mode)
		result_done(run, f, AUDIT_FAIL, NULL, "pci_mode exists but could not be read (%s)",
			    read_word(t->mode_err));
	else if (tsm_is_tdx_connect(t) && streq(t->mode, "link"))
		result_done(run, f, AUDIT_PASS, NULL, "pci_mode link: Intel TDX Connect on tdx_host "
			    "(TDX module %s)", t->provider_version ? t->provider_version : "version unknown");
	else if (tsm_is_tdx_connect(t))
		result_done(run, f, AUDIT_FAIL, NULL, "pci_mode '%s' on tdx_host: the TDX Connect TSM "
			    "registers as a link TSM", t->mode);
	else if (streq(t->mode, "link") || streq(t->mode, "devsec"))
		result_done(run, f, AUDIT_PASS, NULL, "pci_mode %s", t->mode);
	else
		result_done(run, f, AUDIT_FAIL, NULL, "pci_mode '%s': neither link nor devsec", t->mode);
}

/* ---- devices ---- */

static bool required(const struct audit_opts *o, const char *bdf)
{
	if (o->require_all)
		return true;
	for (size_t i = 0; i < o->nr_require; i++)
		if (streq(o->require[i], bdf))
			return true;
	return false;
}

/* How to connect D, or why it cannot be (the model's one judgement, func_connect_blocker()). */
static char *connect_hint(const struct tsm_snapshot *snap, const struct pci_func *d)
{
	const struct tsm *t = snapshot_first_link_tsm(snap);
	char *why, *hint;

	if (!t)
		return xstrdup("no link TSM is registered to connect it to");
	why = snapshot_connect_blocker(snap, d);
	/* doe_features is every mailbox's: whether SEV-TIO's CMA one has SSESSION, only a try says */
	if (!why && tsm_is_sev_tio(t) && func_doe_mailboxes_ambiguous(d))
		return xasprintf("connect it: tsmctl connect %s %s (it has %u DOE mailboxes, and SEV-TIO "
				 "needs secure SPDM on the one CMA uses, which doe_features cannot "
				 "show: an EFAULT would say it is elsewhere)", d->bdf, t->name,
				 d->cfg.nr_doe);
	if (!why)
		return xasprintf("connect it: tsmctl connect %s %s", d->bdf, t->name);
	hint = xasprintf("a connect would fail: %s", why);
	free(why);
	return hint;
}

static bool connected_applies(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;

	(void)run;
	return d->has_connect || (d->tsm_dir && d->tsm_err);
}

static void check_connected(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm_snapshot *snap = run->snap;
	const struct pci_func *d = obj;
	char *why;

	if (!d->has_connect)
		result_done(run, f, AUDIT_SKIP, xstrdup("run the audit as root, or check the "
							"tree's permissions"),
			    "tsm/ could not be read (%s): its files, and whether it is connected, "
			    "are unknown", read_word(d->tsm_err));
	else if (!d->connect)
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/connect exists but could not be read (%s)",
			    read_word(d->connect_err));
	else if (d->connect_err)
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/connect reads '%s': no TSM name",
			    d->connect);
	else if (*d->connect && !d->connected_tsm)
		result_done(run, f, AUDIT_FAIL,
			    xasprintf("disconnect it (tsmctl disconnect %s) and connect it to a "
				      "registered TSM", d->bdf),
			    "connected to %s, which is not registered", d->connect);
	else if (*d->connect)
		result_done(run, f, AUDIT_PASS, NULL, "connected to %s", d->connect);
	else if (func_lock_holder(d) && required(run->opts, d->bdf))
		result_done(run, f, AUDIT_FAIL,
			    xasprintf("unlock it (tsmctl unlock %s), then connect it: a device has "
				      "one TSM context at a time", d->bdf),
			    "not connected: locked to %s (TDISP) (required by --require-connected)",
			    func_lock_holder(d));
	else if (func_lock_holder(d))
		result_done(run, f, AUDIT_SKIP, xstrdup("see device.tdisp"),
			    "locked to %s (TDISP, a devsec TSM's context): a device has one TSM "
			    "context at a time, so no link connect", func_lock_holder(d));
	else if (required(run->opts, d->bdf))
		result_done(run, f, AUDIT_FAIL, connect_hint(snap, d),
			    "not connected (required by --require-connected)");
	else if (func_cfg_known(d) && d->cfg.tee_io &&
		 (why = snapshot_connect_blocker(snap, d))) {
		/* a stream enabled at boot took its IDE: ide.untracked says what to do */
		result_done(run, f, AUDIT_SKIP, d->ide_claim.state > IDE_CLAIM_OK ?
			    xstrdup("see ide.untracked of it or its root port: a stream enabled "
				    "at boot keeps the kernel from using its IDE") :
			    xstrdup("nothing to do: a connect would fail (a TSM authenticates a "
				    "device over a CMA/SPDM DOE mailbox and sets up an IDE stream for "
				    "a PCIe endpoint from its host bridge's pool)"),
			    "TEE-IO capable (DEVCAP.TEE), but %s: no TSM can connect it", why);
		free(why);
	}
	else if (func_cfg_known(d) && d->cfg.tee_io)
		result_done(run, f, AUDIT_WARN, connect_hint(snap, d),
			    "TEE-IO capable (DEVCAP.TEE) but not connected to a TSM");
	else if (func_cfg_known(d))
		result_done(run, f, AUDIT_PASS, NULL, "not connected; not TEE-IO capable (IDE only)");
	else if (func_cfg_needs_root(d))
		result_skip_needs_root(run, f, "not connected; DEVCAP.TEE unreadable");
	else
		result_done(run, f, AUDIT_WARN, connect_hint(snap, d),
			    "not connected; TEE-IO capability unknown (config space unreadable)");
}

/* What a --require-* option names, for the devices it names that its check has no object of. */
struct required_list {
	const char *opt, *what;		/* "--require-connected", "connected" */
	char *const *bdfs;
	size_t n;
	const bool *absent;		/* per BDF: no such PCI device in sysfs (NULL: all exist) */
};

/*
 * Each BDF of R the check's own loop did not judge (JUDGED false, or not in
 * the tree) fails: "no such PCI device" when sysfs lacks it (a typo fails
 * rather than passes), else MESSAGE with HINT.
 */
static void required_missing(struct audit_run *run, const struct audit_check *c,
			     const struct required_list *r, bool (*judged)(const struct pci_func *),
			     const char *hint, const char *message)
{
	for (size_t i = 0; i < r->n; i++) {
		const char *bdf = r->bdfs[i];
		const struct pci_func *d = snapshot_find_func(run->snap, bdf);
		struct subject s = { .ptr = bdf, .object = bdf, .dev0 = bdf };
		struct audit_finding *f;

		if (d && judged(d))
			continue;
		if (d)
			s = subject_func(d);
		f = result_start(run, c, &s);
		if (f && !d && r->absent && r->absent[i])
			result_done(run, f, AUDIT_FAIL,
				    xasprintf("check the address: %s names a device this host does not "
					      "have (see 'tsmctl devices --all')", r->opt),
				    "required to be %s, but there is no such PCI device", r->what);
		else if (f)
			result_done(run, f, AUDIT_FAIL, xstrdup(hint), "required to be %s, %s", r->what,
				    message);
	}
}

static bool has_connect(const struct pci_func *d)
{
	return d->has_connect;
}

/* Each function with tsm/connect, then the required devices that are no connectable DSM at all. */
static void check_connected_all(struct audit_run *run, const struct audit_check *c)
{
	const struct required_list r = { "--require-connected", "connected", run->opts->require,
					 run->opts->nr_require, run->opts->require_absent };

	audit_for_each(run, c);
	required_missing(run, c, &r, has_connect,
			 "--require-connected names a device without tsm/connect: check the address, "
			 "and that a link TSM is registered", "but has no tsm/connect");
}

static bool authenticated_applies(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;
	bool link_part = d->has_connect || (d->dsm && *d->dsm);

	(void)run;
	return d->tsm_dir && (d->has_authenticated || link_part);
}

/* authenticated: tsmN/empty (TSM alias of tsm/connect) or 1/0 (native CMA-SPDM). */
static void check_authenticated(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm_snapshot *snap = run->snap;
	const struct pci_func *d = obj;
	const char *a = d->authenticated, *expect;
	int id;

	if (!d->has_authenticated) {
		result_done(run, f, AUDIT_WARN, NULL, "tsm/ group without an authenticated attribute");
		return;
	}
	if (d->tsm_err) {
		result_done(run, f, AUDIT_SKIP, NULL, "tsm/ could not be read (%s): nothing to "
			    "compare authenticated with", read_word(d->tsm_err));
		return;
	}
	if (!a) {
		result_done(run, f, AUDIT_FAIL, NULL, "authenticated exists but could not be read (%s)",
			    read_word(d->auth_err));
		return;
	}
	if (streq(a, "1") || streq(a, "0")) {
		result_done(run, f, AUDIT_PASS, NULL,
			    "native CMA-SPDM flavour: authenticated %s (tsm/connect: %s)", a,
			    func_connected(d) ? d->connect : "none");
		return;
	}
	if (*a && tsm_name_parse(a, &id)) {
		result_done(run, f, AUDIT_FAIL, NULL,
			    "authenticated reads '%s': neither tsmN, empty, 1 nor 0", a);
		return;
	}
	if (d->has_connect) {
		expect = d->connect;
		if (!expect) {
			result_done(run, f, AUDIT_FAIL, NULL,
				    "authenticated '%s', but tsm/connect could not be read", a);
			return;
		}
		if (streq(a, expect))
			result_done(run, f, AUDIT_PASS, NULL, *a ? "authenticated %s = tsm/connect" :
				    "authenticated and tsm/connect both empty%s", *a ? a : "");
		else
			result_done(run, f, AUDIT_FAIL, NULL,
				    "authenticated reads '%s' but tsm/connect reads '%s'", a, expect);
		return;
	}
	/* A dependent function: its context is its DSM's. */
	expect = d->dsm_func ? d->dsm_func->connect : NULL;
	if (expect && streq(a, expect))
		result_done(run, f, AUDIT_PASS, NULL, "authenticated %s = its DSM %s's tsm/connect",
			    *a ? a : "(empty)", d->dsm);
	else if (expect)
		result_done(run, f, AUDIT_FAIL, NULL,
			    "authenticated reads '%s' but its DSM %s is connected to '%s'", a,
			    d->dsm, expect);
	else if (*a && snapshot_find_tsm(snap, a))
		result_done(run, f, AUDIT_PASS, NULL, "authenticated %s", a);
	else
		result_done(run, f, AUDIT_FAIL, NULL,
			    "authenticated reads '%s' and its DSM %s is not in this tree", a, d->dsm);
}

static bool same_slot(const struct pci_func *a, unsigned int domain, unsigned int bus,
		      unsigned int dev)
{
	return a->domain == domain && a->bus == bus && a->dev == dev;
}

/* How D manages dependent function F (ABI.md §2.2), or NULL if it cannot. */
static const char *dsm_relation(const struct pci_func *d, const struct pci_func *f)
{
	struct bdf pf;
	size_t len;

	if (f->physfn) {
		if (d->fn == 0 && !bdf_parse(f->physfn, &pf) && same_slot(d, pf.domain, pf.bus, pf.dev))
			return "a VF of its slot";
		return NULL;
	}
	if (d->fn == 0 && same_slot(d, f->domain, f->bus, f->dev))
		return "a function of its slot";
	if (func_cfg_known(d) && d->cfg.pcie_type == PCIE_TYPE_UPSTREAM && d->dir && f->dir) {
		len = strlen(d->dir);
		if (!strncmp(f->dir, d->dir, len) && f->dir[len] == '/')
			return "below the upstream port";
	}
	return NULL;
}

static bool dsm_applies(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;

	(void)run;
	return d->tsm_dir && (d->has_dsm || (d->has_connect && func_connected(d)));
}

static void check_dsm(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct pci_func *d = obj, *m = d->dsm_func;
	bool conn = func_connected(d);
	const char *rel;

	if (!d->has_dsm) {
		result_done(run, f, AUDIT_WARN, NULL,
			    "connected to %s but has no tsm/dsm attribute", d->connect);
	} else if (!d->dsm) {
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/dsm exists but could not be read (%s)",
			    read_word(d->dsm_err));
	} else if (d->has_connect) {
		if (conn && streq(d->dsm, d->bdf))
			result_done(run, f, AUDIT_PASS, NULL, "connected DSM; tsm/dsm names itself");
		else if (conn)
			result_done(run, f, AUDIT_FAIL, NULL, "connected to %s but tsm/dsm %s%s",
				    d->connect, *d->dsm ? "names " : "is empty", d->dsm);
		else if (!*d->dsm)
			result_done(run, f, AUDIT_PASS, NULL, "not connected; tsm/dsm empty");
		else
			result_done(run, f, AUDIT_FAIL, NULL, "not connected but tsm/dsm names %s",
				    d->dsm);
	} else if (!*d->dsm) {
		result_done(run, f, AUDIT_FAIL, NULL, "dependent function with an empty tsm/dsm");
	} else if (!m) {
		result_done(run, f, AUDIT_FAIL, NULL,
			    "tsm/dsm names %s, which has no tsm/ group", d->dsm);
	} else if (!func_connected(m)) {
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/dsm names %s, which is not connected",
			    d->dsm);
	} else if ((rel = dsm_relation(m, d))) {
		result_done(run, f, AUDIT_PASS, NULL, "managed by %s (%s), connected to %s",
			    d->dsm, rel, m->connect);
	} else {
		result_done(run, f, AUDIT_FAIL, NULL,
			    "tsm/dsm names %s, which is neither function 0 of its slot nor an "
			    "upstream port above it", d->dsm);
	}
}

static bool connected_dsm(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;

	(void)run;
	return d->has_connect && func_connected(d);
}

static void check_has_stream(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm_snapshot *snap = run->snap;
	const struct pci_func *d = obj;
	const struct ide_stream *first = NULL;
	size_t n = 0;

	for (size_t j = 0; j < snap->nr_streams; j++) {
		if (snap->streams[j]->endpoint == d && stream_is_real(snap->streams[j])) {
			if (!n++)
				first = snap->streams[j];
		}
	}

	if (n)
		result_done(run, f, AUDIT_PASS, NULL, "%zu stream link%s: %s/%s%s", n,
			    n == 1 ? "" : "s", first->hb->name, first->name, n > 1 ? ", ..." : "");
	else if (func_cfg_known(d) && d->cfg.pcie_type != PCIE_TYPE_ENDPOINT)
		result_done(run, f, AUDIT_PASS, NULL,
			    "a %s DSM: no IDE stream expected from the kernel's helpers",
			    pcie_type_name(d->cfg.pcie_type) ? pcie_type_name(d->cfg.pcie_type) :
			    "non-endpoint");
	else if (!func_cfg_known(d) && func_cfg_needs_root(d))
		result_skip_needs_root(run, f, "connected to %s, no stream link; PCIe type unreadable",
				       d->connect);
	else
		result_done(run, f, AUDIT_WARN, NULL,
			    "connected to %s but no stream link: link encryption not established",
			    d->connect);
}

/*
 * Guest TDISP (proposed, ABI.md §1.2, §2.5, §2.7): lock, accept, then bind
 * the driver. A driver on a locked device that is not accepted runs it
 * LOCKED, without private DMA/MMIO.
 */
static bool has_lock(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;

	(void)run;
	return d->has_lock;
}

static void check_tdisp(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm_snapshot *snap = run->snap;
	const struct pci_func *d = obj;
	const char *holder = func_lock_holder(d);
	int accepted = func_accepted(d);

	if (!d->lock) {
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/lock exists but could not be read (%s)",
			    read_word(d->lock_err));
	} else if (!*d->lock) {
		if (accepted == 1)
			result_done(run, f, AUDIT_FAIL, NULL, "unlocked but tsm/accept reads 1 "
				    "(unlock drops the accept state)");
		else if (d->driver)
			result_done(run, f, AUDIT_PASS, NULL, "unlocked, driver %s bound: not "
				    "TDISP-managed (a shared, untrusted device)", d->driver);
		else
			result_done(run, f, AUDIT_PASS, NULL,
				    "unlocked, no driver: not TDISP-managed");
	} else if (!holder) {
		result_done(run, f, AUDIT_PASS, NULL,
			    "tsm/lock names link TSM %s's connection, not a TDISP lock", d->lock);
	} else if (!snapshot_find_tsm(snap, holder)) {
		result_done(run, f, AUDIT_FAIL, xasprintf("unbind its driver if any, then tsmctl "
							  "unlock %s", d->bdf),
			    "locked to %s, which is not registered", holder);
	} else if (!d->has_accept) {
		result_done(run, f, AUDIT_SKIP, xstrdup("this kernel offers no tsm/accept"),
			    "locked to %s; no tsm/accept: acceptance cannot be checked", holder);
	} else if (!d->accept) {
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/accept exists but could not be read (%s)",
			    read_word(d->accept_err));
	} else if (accepted < 0) {
		result_done(run, f, AUDIT_FAIL, NULL, "tsm/accept reads '%s': neither 0 nor 1",
			    d->accept);
	} else if (accepted && d->driver) {
		result_done(run, f, AUDIT_PASS, NULL, "locked to %s and accepted; driver %s bound",
			    holder, d->driver);
	} else if (accepted) {
		result_done(run, f, AUDIT_PASS, NULL,
			    "locked to %s and accepted; no driver bound yet", holder);
	} else if (d->driver) {
		result_done(run, f, AUDIT_FAIL,
			    xasprintf("unbind the driver (echo %s > "
				      "/sys/bus/pci/drivers/%s/unbind), tsmctl accept --verify "
				      "%s (it checks the device's evidence first), then bind the "
				      "driver again", d->bdf, d->driver, d->bdf),
			    "driver %s bound while locked to %s but not accepted: the device runs "
			    "without private DMA/MMIO (TDISP LOCKED, not RUN)", d->driver, holder);
	} else {
		result_done(run, f, AUDIT_WARN,
			    xasprintf("tsmctl accept --verify %s (it checks the device's "
				      "evidence first), or tsmctl unlock %s", d->bdf, d->bdf),
			    "locked to %s, waiting for accept", holder);
	}
}

/*
 * A device whose evidence can be judged: a connected DSM, a TDI locked to a
 * devsec TSM (ABI.md §1.6), or a dependent of a connected DSM, judged through
 * its DSM's evidence as `evidence` reads it.
 */
static bool has_evidence(const struct audit_run *run, const struct pci_func *f)
{
	return func_evidence_holder(run->snap, f) != NULL;
}

static bool verified_required(const struct audit_opts *o, const char *bdf)
{
	for (size_t i = 0; i < o->nr_require_verified; i++)
		if (streq(o->require_verified[i], bdf))
			return true;
	return o->require_verified_all;
}

/* A device with evidence, or one --require-verified names (all: those with evidence). */
static bool evidence_applies(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;

	if (has_evidence(run, d))
		return true;
	return verified_required(run->opts, d->bdf) && !run->opts->require_verified_all;
}

static void check_evidence(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct pci_func *d = obj;
	bool req = verified_required(run->opts, d->bdf);
	enum audit_status st = AUDIT_SKIP;
	char *msg = NULL, *hint = NULL;

	if (!has_evidence(run, d)) {
		result_done(run, f, AUDIT_FAIL, xasprintf("connect it (host) or lock it (guest): "
			    "only then has it evidence to verify"), "required to be verified "
			    "(--require-verified), but it has no evidence: neither a connected "
			    "DSM, a locked TDI nor a dependent of a connected DSM");
		return;
	}
	if (run->opts->evidence)
		st = run->opts->evidence(d, run->opts->evidence_arg, &msg, &hint);
	else
		msg = xstrdup("the evidence was not examined");
	if (req && st != AUDIT_PASS)
		result_done(run, f, AUDIT_FAIL, hint, "required to be verified "
			    "(--require-verified): %s", msg);
	else
		result_done(run, f, st, hint, "%s", msg);
	free(msg);
}

static bool in_tree(const struct pci_func *d)
{
	(void)d;
	return true;	/* evidence_applies() judged it, with or without evidence */
}

/* Each device with evidence, then the ones --require-verified names that the tree does not have. */
static void check_evidence_all(struct audit_run *run, const struct audit_check *c)
{
	const struct required_list r = { "--require-verified", "verified", run->opts->require_verified,
					 run->opts->nr_require_verified,
					 run->opts->require_verified_absent };

	audit_for_each(run, c);
	required_missing(run, c, &r, in_tree,
			 "--require-verified names a device without a TSM context: check the address",
			 "but it has no evidence: no tsm/ attributes, so neither a DSM nor a TDI");
}

/* ---- streams ---- */

static size_t live_streams(const struct host_bridge *hb)
{
	size_t n = 0;

	for (size_t i = 0; i < hb->nr_streams; i++)
		n += stream_is_real(hb->streams[i]);
	return n;
}

/* Why a link names no endpoint below its host bridge, and what to do (ABI.md §1.3). */
static void dangling_result(struct audit_run *run, struct audit_finding *f,
			    const struct ide_stream *s)
{
	const struct pci_func *ep = s->endpoint;
	const char *target = base_name(s->target);
	const char *name;

	/* the kernel removes a stream's link at disconnect and at device removal */
	if (ep && ep->hb != s->hb) {
		result_done(run, f, AUDIT_FAIL, NULL, "target %s is below %s, not %s", ep->bdf,
			    ep->hb ? ep->hb->name : "no host bridge", s->hb->name);
		return;
	}
	switch (-s->link_err) {
	case ENOENT:
		result_done(run, f, AUDIT_FAIL,
			    xasprintf("there is no endpoint to disconnect: the kernel removes this link "
				      "when the stream's endpoint is disconnected or removed, so it "
				      "outlived %s (a kernel bug, or a tree captured mid-change); "
				      "report the kernel version", target),
			    "target %s does not exist", target);
		break;
	case ELOOP:
		result_done(run, f, AUDIT_FAIL, xstrdup("not a link the kernel makes (it names the "
							"endpoint's device directory): the tree was "
							"edited by hand"),
			    "the link loops (%s)", target ? target : s->name);
		break;
	case EXDEV:
		result_done(run, f, AUDIT_FAIL, xstrdup("not a link the kernel makes: the tree was "
							"edited by hand"),
			    "the link leads out of the tree");
		break;
	case EINVAL:
		result_done(run, f, AUDIT_FAIL, xstrdup("not an entry the kernel makes: the tree "
							"was edited by hand"),
			    "%s is not a symbolic link", s->name);
		break;
	case ENODEV:
		result_done(run, f, AUDIT_FAIL, xstrdup("not a link the kernel makes: the tree was "
							"edited by hand"),
			    "target %s is not a PCI function", target ? target : "(none)");
		break;
	default:
		name = errno_name(-s->link_err);
		result_done(run, f, AUDIT_FAIL, NULL, "the link's target could not be examined (%s)",
			    name ? name : strerror(-s->link_err));
	}
}

/* S names blocks another link's stream holds: say which, and which of the partners. */
static void duplicate_result(struct audit_run *run, struct audit_finding *f,
			     const struct ide_stream *s)
{
	const struct ide_stream *o = s->dup_of;
	char *which = NULL;

	bool rp = s->root_port && s->root_port == o->root_port && s->r == o->r;
	bool ep = s->endpoint && s->endpoint == o->endpoint && s->e == o->e;

	if (rp)
		str_join(&which, " and ", "root port %s block %u", s->root_port->bdf, s->r);
	if (ep)
		str_join(&which, " and ", "endpoint %s block %u", s->endpoint->bdf, s->e);
	result_done(run, f, AUDIT_FAIL,
		    xasprintf("the kernel makes one link per stream: this one is stray (a hand-edited "
			      "tree, or a kernel bug: report the kernel version); %s is checked on "
			      "its own", o->name),
		    "stray link: %s belong%s to %s", which, rp && ep ? "" : "s", o->name);
	free(which);
}

/* Entries named stream* that are no streamH.R.E (decimal 0..255, no leading zeros). */
static void check_bad_links(struct audit_run *run, const struct audit_check *c)
{
	for (size_t i = 0; i < run->snap->nr_hbs; i++) {
		const struct host_bridge *hb = run->snap->hbs[i];

		for (size_t j = 0; j < hb->nr_bad_links; j++) {
			char *object = xasprintf("%s/%s", hb->name, hb->bad_links[j]);
			struct subject subj = { .ptr = hb->bad_links[j], .object = object,
						.hb = hb->name };
			struct audit_finding *f = result_start(run, c, &subj);

			free(object);
			if (f)
				result_done(run, f, AUDIT_FAIL,
					    xstrdup("not a name the kernel makes (streamH.R.E, each a "
						    "decimal 0..255): the tree was edited by hand, or "
						    "a kernel bug; no view counts it as a stream"),
					    "malformed stream link name");
		}
	}
}

static void check_stream_link(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct ide_stream *s = obj;
	const struct pci_func *ep = s->endpoint, *rp = s->root_port;
	const struct host_bridge *hb = s->hb;
	char *pool = NULL;
	long long size = -1;

	if (s->dangling) {
		dangling_result(run, f, s);
		return;
	}
	if (s->dup_of) {
		duplicate_result(run, f, s);
		return;
	}
	if (!rp) {
		result_done(run, f, AUDIT_FAIL, NULL, "no root port above %s", ep->bdf);
		return;
	}
	if (hb->available_streams >= 0)
		size = hb->available_streams + (long long)live_streams(hb);
	if (size >= 0 && s->h >= size) {
		result_done(run, f, AUDIT_FAIL, NULL,
			    "H %u outside the pool (%lld available + %zu in use)", s->h,
			    hb->available_streams, live_streams(hb));
		return;
	}
	if (!func_cfg_known(ep) || !func_cfg_known(rp)) {
		const struct pci_func *u = func_cfg_known(ep) ? rp : ep;

		if (func_cfg_needs_root(u))
			result_skip_needs_root(run, f, "-> %s via %s; Selective stream counts unreadable",
					       ep->bdf, rp->bdf);
		else
			result_done(run, f, AUDIT_FAIL, NULL, "config space of %s unreadable", u->bdf);
		return;
	}
	if (ep->cfg.pcie_type != PCIE_TYPE_ENDPOINT) {
		result_done(run, f, AUDIT_FAIL, NULL, "target %s is a %s, not an endpoint", ep->bdf,
			    pcie_type_name(ep->cfg.pcie_type) ? pcie_type_name(ep->cfg.pcie_type) :
			    "conventional PCI device");
		return;
	}
	if (rp->cfg.pcie_type != PCIE_TYPE_ROOT_PORT) {
		result_done(run, f, AUDIT_FAIL, NULL, "%s above %s is not a root port", rp->bdf,
			    ep->bdf);
		return;
	}
	if (!rp->cfg.ide.present || !ep->cfg.ide.present) {
		result_done(run, f, AUDIT_FAIL, NULL, "%s has no IDE capability",
			    rp->cfg.ide.present ? ep->bdf : rp->bdf);
		return;
	}
	if (s->r >= rp->cfg.ide.sel_streams || s->e >= ep->cfg.ide.sel_streams) {
		bool r_bad = s->r >= rp->cfg.ide.sel_streams;

		result_done(run, f, AUDIT_FAIL, NULL, "%c %u beyond %s's %u Selective stream%s",
			    r_bad ? 'R' : 'E', r_bad ? s->r : s->e, r_bad ? rp->bdf : ep->bdf,
			    r_bad ? rp->cfg.ide.sel_streams : ep->cfg.ide.sel_streams,
			    (r_bad ? rp->cfg.ide.sel_streams : ep->cfg.ide.sel_streams) == 1 ? "" : "s");
		return;
	}
	if (!stream_partner_block(s, false) || !stream_partner_block(s, true)) {
		result_done(run, f, AUDIT_FAIL, NULL, "Selective block %u of %s could not be decoded",
			    stream_partner_block(s, false) ? s->e : s->r,
			    stream_partner_block(s, false) ? ep->bdf : rp->bdf);
		return;
	}
	if (stream_partner_block(s, false)->linux_skips || stream_partner_block(s, true)->linux_skips) {
		bool r_bad = stream_partner_block(s, false)->linux_skips;

		result_done(run, f, AUDIT_FAIL, NULL,
			    "Selective block %u of %s is one Linux does not use (its address "
			    "association count differs from block 0's)", r_bad ? s->r : s->e,
			    r_bad ? rp->bdf : ep->bdf);
		return;
	}
	if (size >= 0)
		pool = xasprintf("H %u < pool %lld", s->h, size);
	result_done(run, f, AUDIT_PASS, NULL, "-> %s via %s; %s, R %u < %u, E %u < %u", ep->bdf,
		    rp->bdf, pool ? pool : "pool size unknown", s->r, rp->cfg.ide.sel_streams, s->e,
		    ep->cfg.ide.sel_streams);
	free(pool);
}

/* The malformed stream link names first, then each stream. */
static void check_stream_link_all(struct audit_run *run, const struct audit_check *c)
{
	check_bad_links(run, c);
	audit_for_each(run, c);
}

static void check_stream_connected(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct ide_stream *s = obj;
	const struct pci_func *ep = s->endpoint;

	if (!ep)
		result_done(run, f, AUDIT_FAIL, NULL, "no endpoint behind the link");
	else if (!ep->has_connect && ep->tsm_err)
		result_done(run, f, AUDIT_SKIP, xstrdup("run the audit as root, or check the "
							"tree's permissions"),
			    "tsm/ of endpoint %s could not be read (%s): its connection is unknown",
			    ep->bdf, read_word(ep->tsm_err));
	else if (!ep->has_connect || !ep->connect)
		result_done(run, f, AUDIT_FAIL, NULL, "endpoint %s has no readable tsm/connect",
			    ep->bdf);
	else if (!*ep->connect)
		result_done(run, f, AUDIT_FAIL, NULL,
			    "endpoint %s is not connected to a TSM: stale stream link", ep->bdf);
	else if (!ep->connected_tsm)
		result_done(run, f, AUDIT_FAIL, NULL,
			    "endpoint %s is connected to %s, which is not registered", ep->bdf,
			    ep->connect);
	else
		result_done(run, f, AUDIT_PASS, NULL, "endpoint %s connected to %s", ep->bdf,
			    ep->connect);
}

/*
 * Both partners' Selective blocks, or why they are not available:
 * AUDIT_SKIP (needs root) or AUDIT_FAIL with *why set.
 */
static enum audit_status stream_blocks(const struct ide_stream *s,
				       const struct ide_sel_stream **ep,
				       const struct ide_sel_stream **rp, char **why)
{
	const struct pci_func *fs[2] = { s->endpoint, s->root_port };

	*ep = stream_partner_block(s, true);
	*rp = stream_partner_block(s, false);
	if (*ep && *rp)
		return AUDIT_PASS;
	for (int i = 0; i < 2; i++) {
		if (!fs[i]) {
			*why = xstrdup(i ? "no root port partner" : "no endpoint partner");
			return AUDIT_FAIL;
		}
		if (func_cfg_needs_root(fs[i])) {
			*why = xasprintf("IDE registers of %s unreadable", fs[i]->bdf);
			return AUDIT_SKIP;
		}
	}
	*why = xasprintf("Selective block %u of %s not found", *ep ? s->r : s->e,
			 *ep ? fs[1]->bdf : fs[0]->bdf);
	return AUDIT_FAIL;
}

/* A check over both partners' blocks of every stream: C's eval_blocks once they are readable. */
static void check_stream_blocks(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct ide_stream *s = obj;
	const struct ide_sel_stream *ep, *rp;
	char *why = NULL;
	enum audit_status st;

	st = stream_blocks(s, &ep, &rp, &why);
	if (st == AUDIT_SKIP)
		result_skip_needs_root(run, f, "%s", why);
	else if (st != AUDIT_PASS)
		result_done(run, f, st, NULL, "%s", why);
	else
		f->check->eval_blocks(run, f, s, ep, rp);
	free(why);
}

/*
 * BAD says what is wrong with the stream, RP_ONLY whether that is the root
 * port alone; the devsec sample's emulated root port is never enabled (the
 * rig as it is, ABI.md §4): then the root port's part is a skip, not a failure.
 * A failure's hint says what SEV-TIO's enable step left, then reconnecting and FIX.
 */
static void blocks_done(struct audit_run *run, struct audit_finding *f, const struct ide_stream *s,
			char *bad, bool rp_only, const char *pass, const char *fix)
{
	char *why = bad ? stream_enable_story(s) : NULL;

	if (bad && rp_only && func_is_devsec_sample_port(s->root_port))
		result_done(run, f, AUDIT_SKIP, NULL, "%s: the devsec sample's emulated root port only "
			    "stores register writes, and the sample enables the endpoint alone "
			    "(samples/devsec); the endpoint's side is as it should be", bad);
	else if (bad)	/* SEV-TIO's enable step, as the blocks show it, before the fix */
		result_done(run, f, AUDIT_FAIL, why ? xasprintf("%s; disconnect and reconnect the "
								 "endpoint%s", why, fix) : NULL,
			    "%s", bad);
	else
		result_done(run, f, AUDIT_PASS, NULL, "%s", pass);
	free(why);
	free(bad);
}

static void eval_enabled(struct audit_run *run, struct audit_finding *f, const struct ide_stream *s,
			 const struct ide_sel_stream *ep, const struct ide_sel_stream *rp)
{
	char *bad = NULL, *pass;

	if (!ep->regs.enabled)
		audit_text_add(&bad, "endpoint %s block %u disabled (control 0x%08x)", s->endpoint->bdf,
			       s->e, ep->regs.ctl);
	if (!rp->regs.enabled)
		audit_text_add(&bad, "root port %s block %u disabled (control 0x%08x)",
			       s->root_port->bdf, s->r, rp->regs.ctl);
	pass = xasprintf("endpoint block %u and root port block %u enabled", s->e, s->r);
	blocks_done(run, f, s, bad, ep->regs.enabled, pass, "");
	free(pass);
}

static const char *state_text(unsigned int state)
{
	return state == IDE_STATE_SECURE ? "SECURE" : state == IDE_STATE_INSECURE ? "INSECURE" :
	       "reserved";
}

static void eval_secure(struct audit_run *run, struct audit_finding *f, const struct ide_stream *s,
			const struct ide_sel_stream *ep, const struct ide_sel_stream *rp)
{
	char *bad = NULL;

	if (ep->regs.state != IDE_STATE_SECURE)
		audit_text_add(&bad, "endpoint %s block %u %s (status 0x%08x)", s->endpoint->bdf, s->e,
			       state_text(ep->regs.state), ep->regs.status);
	if (rp->regs.state != IDE_STATE_SECURE)
		audit_text_add(&bad, "root port %s block %u %s (status 0x%08x)", s->root_port->bdf, s->r,
			       state_text(rp->regs.state), rp->regs.status);
	blocks_done(run, f, s, bad, ep->regs.state == IDE_STATE_SECURE, "both partners SECURE",
		    "; the kernel treats a drop to INSECURE like link-down: check the link (AER, dmesg)");
}

static void eval_ide_fail(struct audit_run *run, struct audit_finding *f, const struct ide_stream *s,
			  const struct ide_sel_stream *ep, const struct ide_sel_stream *rp)
{
	char *bad = NULL;

	if (stream_block_ide_fail(s, true))
		audit_text_add(&bad, "endpoint %s block %u received an IDE Fail message (status 0x%08x)",
			       s->endpoint->bdf, s->e, ep->regs.status);
	if (stream_block_ide_fail(s, false))
		audit_text_add(&bad, "root port %s block %u received an IDE Fail message (status 0x%08x)",
			       s->root_port->bdf, s->r, rp->regs.status);
	if (bad)
		result_done(run, f, AUDIT_FAIL, NULL, "%s", bad);
	else
		result_done(run, f, AUDIT_PASS, NULL, "no IDE_FAIL on either partner");
	free(bad);
}

static void eval_id(struct audit_run *run, struct audit_finding *f, const struct ide_stream *s,
		    const struct ide_sel_stream *ep, const struct ide_sel_stream *rp)
{
	unsigned int id = ep->regs.stream_id;

	if (id != rp->regs.stream_id) {
		result_done(run, f, AUDIT_FAIL, NULL, "Stream ID %u in endpoint %s, %u in root port %s",
			    id, s->endpoint->bdf, rp->regs.stream_id, s->root_port->bdf);
		return;
	}
	if (id == IDE_RESERVED_STREAM_ID) {
		result_done(run, f, AUDIT_FAIL, NULL, "Stream ID 255 is reserved for idle streams");
		return;
	}
	for (size_t i = 0; i < s->hb->nr_streams; i++) {
		const struct ide_stream *o = s->hb->streams[i];
		const struct ide_sel_stream *oep = o == s || !stream_is_real(o) ? NULL :
						   stream_partner_block(o, true);

		if (oep && oep->regs.stream_id == id) {
			result_done(run, f, AUDIT_FAIL, NULL, "Stream ID %u also used by %s on %s", id, o->name,
				    s->hb->name);
			return;
		}
	}
	result_done(run, f, AUDIT_PASS, NULL, "Stream ID %u on both partners, unique on %s", id,
		    s->hb->name);
}

static bool rid_covers(const struct ide_sel_stream *b, unsigned int lo, unsigned int hi)
{
	return b->rid_base <= lo && hi <= b->rid_limit;
}

static void eval_rid(struct audit_run *run, struct audit_finding *f, const struct ide_stream *s,
		     const struct ide_sel_stream *ep, const struct ide_sel_stream *rp)
{
	const struct pci_func *e = s->endpoint, *r = s->root_port;
	unsigned int erid = rid_of(e), rrid = rid_of(r), vf_lo = 0, vf_hi = 0;
	bool vfs = e->has_sriov && e->sriov_numvfs;
	char *bad = NULL;

	if (vfs) {
		vf_lo = erid + e->sriov_offset;
		vf_hi = vf_lo + (e->sriov_numvfs - 1) * e->sriov_stride;
	}
	if (!rp->rid_valid)
		audit_text_add(&bad, "root port %s RID association not valid", r->bdf);
	else if (!rid_covers(rp, erid, erid))
		audit_text_add(&bad, "root port %s RID %04x-%04x does not cover %s (%04x)", r->bdf,
			       rp->rid_base, rp->rid_limit, e->bdf, erid);
	else if (vfs && !rid_covers(rp, vf_lo, vf_hi))
		audit_text_add(&bad, "root port %s RID %04x-%04x does not cover the VFs of %s (%04x-%04x)",
			       r->bdf, rp->rid_base, rp->rid_limit, e->bdf, vf_lo, vf_hi);
	if (!ep->rid_valid)
		audit_text_add(&bad, "endpoint %s RID association not valid", e->bdf);
	else if (!rid_covers(ep, rrid, rrid))
		audit_text_add(&bad, "endpoint %s RID %04x-%04x does not cover %s (%04x)", e->bdf,
			       ep->rid_base, ep->rid_limit, r->bdf, rrid);
	if (bad)
		result_done(run, f, AUDIT_FAIL, NULL, "%s", bad);
	else if (rp->rid_base == 0 && rp->rid_limit == 0xffff && ep->rid_base == 0 &&
		 ep->rid_limit == 0xffff)
		result_done(run, f, AUDIT_PASS, NULL,
			    "0000-ffff on both partners (the SEV-TIO convention: covers everything)");
	else
		result_done(run, f, AUDIT_PASS, NULL,
			    "root port %04x-%04x covers %s%s; endpoint %04x-%04x covers %s", rp->rid_base,
			    rp->rid_limit, e->bdf, vfs ? " and its VFs" : "", ep->rid_base, ep->rid_limit,
			    r->bdf);
	free(bad);
}

static bool same_range(const struct ide_addr_assoc *a, const struct ide_addr_assoc *b)
{
	return a->base == b->base && a->limit == b->limit;
}

/*
 * TDX Connect programs only the prefetchable window of the endpoint's
 * upstream bridge into the root port's address associations (ABI.md §2.6).
 */
static void eval_tdx_addr(struct audit_run *run, struct audit_finding *f,
			  const struct ide_stream *s)
{
	const struct ide_addr_assoc *pref = &s->up_pref, *mem = &s->up_mem;
	char *bad = NULL;
	bool have_pref = false;

	for (unsigned int i = 0; i < s->rp_nr_addr; i++) {
		const struct ide_addr_assoc *a = &s->rp_addr[i];

		if (!a->valid)
			continue;
		if (pref->valid && same_range(a, pref) && !have_pref)
			have_pref = true;
		else
			audit_text_add(&bad, "association %u %#" PRIx64 "-%#" PRIx64 " is %s", i, a->base,
				       a->limit, mem->valid && same_range(a, mem) ?
				       "the non-prefetchable memory window" : "not the prefetchable window");
	}
	if (pref->valid && !have_pref)
		audit_text_add(&bad, "the prefetchable window %#" PRIx64 "-%#" PRIx64 " is not programmed",
			       pref->base, pref->limit);
	/* tdx_ide_stream_create() refuses (EFAULT) a stream with no association left */
	if (!pref->valid)
		audit_text_add(&bad, "the bridge above the endpoint has no prefetchable window, which "
			       "TDX Connect needs for the stream's one association");
	if (bad)
		result_done(run, f, AUDIT_FAIL, NULL, "root port %s block %u: %s (TDX Connect programs "
			    "the prefetchable window alone)", s->root_port->bdf, s->r, bad);
	else
		result_done(run, f, AUDIT_PASS, NULL, "root port %s block %u: the prefetchable window "
			    "%#" PRIx64 "-%#" PRIx64 " alone, as TDX Connect programs it", s->root_port->bdf,
			    s->r, pref->base, pref->limit);
	free(bad);
}

/* The root port's address associations, by the rule of the stream's provider. */
/* Only providers with a rule of their own; the others program what the core does. */
static bool stream_has_addr_rule(const struct audit_run *run, const void *obj)
{
	const struct ide_stream *s = obj;

	(void)run;
	return tsm_is_tdx_connect(s->tsm);
}

static void check_stream_addr(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct ide_stream *s = obj;

	if (s->root_port && func_cfg_needs_root(s->root_port))
		result_skip_needs_root(run, f, "address associations of %s unreadable",
				       s->root_port->bdf);
	else if (!s->assoc_read)
		result_done(run, f, AUDIT_SKIP, NULL, "the root port's address associations or the "
			    "windows of the bridge above the endpoint could not be read");
	else
		eval_tdx_addr(run, f, s);
}

/* ---- host bridges ---- */

/* A host bridge with a pool or something using one. */
static bool hb_has_pool(const struct audit_run *run, const void *obj)
{
	const struct host_bridge *hb = obj;

	(void)run;
	return !hb_no_pool(hb) || hb->nr_streams;
}

static void check_pool(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct host_bridge *hb = obj;
	size_t used = live_streams(hb);
	const char *name;

	if (hb->available_err == -EBADMSG) {
		result_done(run, f, AUDIT_FAIL, NULL, "available_secure_streams is malformed: "
			    "not the kernel's decimal count");
	} else if (hb->available_err) {
		name = errno_name(-hb->available_err);
		result_done(run, f, AUDIT_FAIL, NULL, "available_secure_streams unreadable (%s)",
			    name ? name : strerror(-hb->available_err));
	} else if (hb->available_streams < 0) {
		result_done(run, f, AUDIT_FAIL, NULL,
			    "%zu stream link%s but no available_secure_streams", hb->nr_streams,
			    hb->nr_streams == 1 ? "" : "s");
	} else if (hb->available_streams == 0) {
		result_done(run, f, AUDIT_WARN, NULL, "0 available, %zu in use: pool exhausted", used);
	} else {
		result_done(run, f, AUDIT_PASS, NULL, "%lld available, %zu in use%s",
			    hb->available_streams, used,
			    hb->available_streams + (long long)used == 256 ?
			    " (the kernel's default pool of 256: capacity unknown)" : "");
	}
}

static bool tsm_links_hb(const struct tsm *t, const char *hb)
{
	for (size_t i = 0; i < t->nr_hb_links; i++)
		if (streq(t->hb_links[i], hb))
			return true;
	return false;
}

static const struct ide_stream *tsm_stream_on(const struct tsm *t, const struct host_bridge *hb)
{
	for (size_t i = 0; i < hb->nr_streams; i++)
		if (stream_is_real(hb->streams[i]) && hb->streams[i]->tsm == t)
			return hb->streams[i];
	return NULL;
}

/* Which form of TSM-directory stream links the tree shows (ABI.md §1.1). */
enum link_flavour { FLAVOUR_NONE, FLAVOUR_HB, FLAVOUR_RC1 };

static enum link_flavour link_flavour(const struct tsm_snapshot *snap)
{
	enum link_flavour fl = FLAVOUR_NONE;

	for (size_t i = 0; i < snap->nr_tsms; i++) {
		if (snap->tsms[i]->nr_stream_links)
			return FLAVOUR_RC1;	/* 6.19-rc1: tsmN/streamH.R.E */
		if (snap->tsms[i]->has_pci_mode || snap->tsms[i]->nr_hb_links)
			fl = FLAVOUR_HB;	/* proposed: tsmN/pciDDDD:BB */
	}
	return fl;
}

/* Another TSM than T linking HB: the staging kernel keys the link by host bridge alone. */
static const struct tsm *hb_link_holder(const struct tsm_snapshot *snap, const struct tsm *t,
					const struct host_bridge *hb)
{
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (snap->tsms[i] != t && tsm_links_hb(snap->tsms[i], hb->name))
			return snap->tsms[i];
	return NULL;
}

/* Another TSM than T with a stream on HB. */
static const struct tsm *other_stream_tsm(const struct tsm_snapshot *snap, const struct tsm *t,
					  const struct host_bridge *hb)
{
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (snap->tsms[i] != t && tsm_stream_on(snap->tsms[i], hb))
			return snap->tsms[i];
	return NULL;
}

struct link_verdict {
	char *bad, *links, *notes, *unjudged;	/* "; "-separated; links: those that match */
	size_t nr_links;
};

/* The 6.19-rc1 form: one tsmN/streamH.R.E per stream of a TSM whose provider makes them. */
static void judge_rc1(const struct tsm *t, const struct host_bridge *hb, struct link_verdict *v)
{
	for (size_t i = 0; i < hb->nr_streams; i++) {
		const struct ide_stream *s = hb->streams[i];

		if (!stream_is_real(s) || s->tsm != t)
			continue;
		if (s->rc1_tsm == t) {
			str_join(&v->links, ", ", "%s/%s", t->name, s->name);
			v->nr_links++;
		} else if (tsm_stream_links(t) == TSM_LINKS_NEVER)
			audit_text_add(&v->notes, "%s: no link expected (%s does not register its "
				       "streams with the TSM)", t->name, t->driver);
		else
			audit_text_add(&v->bad, "%s has %s here but no %s/%s link (the 6.19-rc1 form)",
				       t->name, s->name, t->name, s->name);
	}
}

/* The proposed form: tsmN/pciDDDD:BB while the TSM has a stream here. */
static void judge_hb_link(const struct tsm_snapshot *snap, const struct tsm *t,
			  const struct host_bridge *hb, struct link_verdict *v)
{
	const struct ide_stream *st = tsm_stream_on(t, hb);
	const struct tsm *other;
	bool has = tsm_links_hb(t, hb->name);

	if (st && has) {
		str_join(&v->links, ", ", "%s/%s", t->name, hb->name);
		v->nr_links++;
	} else if (st && tsm_stream_links(t) == TSM_LINKS_NEVER) {
		audit_text_add(&v->notes, "%s: no %s/%s link expected (%s does not register its "
			       "streams with the TSM)", t->name, t->name, hb->name,
			       t->driver ? t->driver : t->provider);
	} else if (st && (other = hb_link_holder(snap, t, hb))) {
		audit_text_add(&v->notes, "%s's streams under %s/%s (the staging kernel keeps one "
			       "link per host bridge, for the first TSM)", t->name, other->name,
			       hb->name);
	} else if (st && tsm_stream_links(t) == TSM_LINKS_MADE) {
		audit_text_add(&v->bad, "%s has %s here but no %s/%s link%s", t->name, st->name, t->name,
			       hb->name, tsm_stream_links(t) == TSM_LINKS_MADE && !t->nr_hb_links ?
			       " (nor the 6.19-rc1 form, tsmN/streamH.R.E)" : "");
	} else if (st) {
		audit_text_add(&v->unjudged, "%s: no %s/%s link, and its provider %s is not known to "
			       "make one", t->name, t->name, hb->name,
			       t->provider ? t->provider : "(unknown)");
	} else if (has && (other = other_stream_tsm(snap, t, hb))) {
		audit_text_add(&v->notes, "%s/%s stays for %s's streams (the staging kernel keeps "
			       "one link per host bridge)", t->name, hb->name, other->name);
	} else if (has) {
		audit_text_add(&v->bad, "%s/%s exists but %s has no stream here", t->name, hb->name,
			       t->name);
	}
}

/* A host bridge with streams, or one a TSM links. */
static bool hb_has_links(const struct audit_run *run, const void *obj)
{
	const struct host_bridge *hb = obj;
	bool linked = false;

	for (size_t j = 0; j < run->snap->nr_tsms; j++)
		linked |= tsm_links_hb(run->snap->tsms[j], hb->name);
	return live_streams(hb) || linked;
}

static void check_tsm_link(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm_snapshot *snap = run->snap;
	enum link_flavour flavour = link_flavour(snap);
	const struct host_bridge *hb = obj;
	struct link_verdict v = { NULL };

	if (flavour == FLAVOUR_NONE) {
		result_done(run, f, AUDIT_PASS, NULL,
			    "v6.19 ABI (no pci_mode): no tsmN/%s link expected", hb->name);
		return;
	}
	for (size_t j = 0; j < snap->nr_tsms; j++) {
		if (flavour == FLAVOUR_RC1)
			judge_rc1(snap->tsms[j], hb, &v);
		else
			judge_hb_link(snap, snap->tsms[j], hb, &v);
	}
	if (v.links)
		str_join(&v.links, "", " match%s the streams here", v.nr_links == 1 ? "es" : "");
	if (v.unjudged)
		audit_text_add(&v.notes, "%s", v.unjudged);
	if (v.bad)
		result_done(run, f, AUDIT_FAIL, NULL, "%s", v.bad);
	else if (v.unjudged && !v.links)
		result_done(run, f, AUDIT_SKIP, xstrdup("only the providers known to register "
							"their streams with the TSM are judged"),
			    "%s", v.notes);
	else
		result_done(run, f, AUDIT_PASS, NULL, "%s%s%s", v.links ? v.links : "",
			    v.links && v.notes ? "; " : "",
			    v.notes ? v.notes : v.links ? "" : "no link");
	free(v.bad);
	free(v.links);
	free(v.notes);
	free(v.unjudged);
}

/* Each host bridge, then the links naming host bridges this tree does not have. */
static void check_tsm_link_all(struct audit_run *run, const struct audit_check *c)
{
	const struct tsm_snapshot *snap = run->snap;

	audit_for_each(run, c);
	for (size_t i = 0; i < snap->nr_tsms; i++) {
		const struct tsm *t = snap->tsms[i];

		for (size_t j = 0; j < t->nr_hb_links; j++) {
			struct subject s = { .ptr = t->hb_links[j], .object = t->hb_links[j],
					     .hb = t->hb_links[j], .tsm = t->name };
			struct audit_finding *f;

			if (snapshot_find_hb(snap, t->hb_links[j]))
				continue;
			f = result_start(run, c, &s);
			if (f)
				result_done(run, f, AUDIT_FAIL, NULL, "%s/%s names no host bridge", t->name,
					    t->hb_links[j]);
		}
	}
}

/* ---- config space ---- */

static bool config_examined(const struct audit_run *run, const void *obj)
{
	(void)run;
	return cfg_examined(obj);
}

static void check_config(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	static const struct { unsigned int bit; const char *what; } bits[] = {
		{ CFG_MAL_ALL_ONES, "reads all ones (device not responding)" },
		{ CFG_MAL_SHORT_HEADER, "shorter than the 64-byte header" },
		{ CFG_MAL_CAP_LOOP, "a capability list loops" },
		{ CFG_MAL_CAP_POINTER, "a capability pointer is out of range or unaligned" },
		{ CFG_MAL_CAP_TRUNCATED, "a capability runs past the end" },
		{ CFG_MAL_IDE_BLOCKS, "the IDE capability claims more blocks than fit" },
	};
	const struct pci_func *d = obj;
	const char *name;
	char *bad = NULL;

	if (d->cfg_err) {
		name = errno_name(-d->cfg_err);
		if (func_cfg_needs_root(d))
			result_skip_needs_root(run, f, "config unreadable (%s)", name ? name : "EACCES");
		else
			result_done(run, f, AUDIT_FAIL, NULL, "config unreadable (%s)",
				    name ? name : strerror(-d->cfg_err));
		return;
	}
	if (d->needs_root) {
		result_skip_needs_root(run, f, "only the 64-byte header is readable");
		return;
	}
	for (size_t b = 0; b < ARRAY_SIZE(bits); b++)
		if (d->cfg.malformed & bits[b].bit)
			audit_text_add(&bad, "%s", bits[b].what);
	if (bad)
		result_done(run, f, AUDIT_FAIL, NULL, "%s", bad);
	else
		result_done(run, f, AUDIT_PASS, NULL, "%zu bytes, well-formed%s", d->cfg.len,
			    d->cfg.ide.present ? ", IDE capability decoded" : "");
	free(bad);
}

static const struct ide_stream *block_owner(const struct tsm_snapshot *snap,
					    const struct pci_func *f, unsigned int idx)
{
	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];

		if (!stream_is_real(s))
			continue;
		if ((s->endpoint == f && s->e == idx) || (s->root_port == f && s->r == idx))
			return s;
	}
	return NULL;
}

/* IDE registers decoded, or unreadable for lack of root (otherwise config.malformed says why). */
static bool ide_examined(const struct audit_run *run, const void *obj)
{
	const struct pci_func *d = obj;

	(void)run;
	if (!cfg_examined(d))
		return false;
	return func_cfg_known(d) ? d->cfg.ide.present : func_cfg_needs_root(d);
}

static void check_untracked(struct audit_run *run, struct audit_finding *f, const void *obj)
{
	const struct tsm_snapshot *snap = run->snap;
	const struct pci_func *d = obj;
	const struct ide_cap *ide = &d->cfg.ide;
	char *bad = NULL, *why = NULL;
	size_t tracked = 0;

	if (!func_cfg_known(d)) {
		result_skip_needs_root(run, f, "IDE registers unreadable");
		return;
	}
	for (unsigned int b = 0; b < ide->nr_sel; b++) {
		const struct ide_stream_regs *r = &ide->sel[b].regs;

		if (!r->enabled)
			continue;
		if (block_owner(snap, d, b)) {
			tracked++;
			continue;
		}
		audit_text_add(&bad, "Selective block %u (Stream ID %u, %s)", b, r->stream_id,
			       ide_state_name(r->state) ? ide_state_name(r->state) : "reserved state");
	}
	for (unsigned int b = 0; b < ide->nr_link; b++) {
		const struct ide_stream_regs *r = &ide->link[b].regs;

		if (r->enabled)
			audit_text_add(&bad, "Link block %u (TC %u, Stream ID %u, %s)", b, r->tc,
				       r->stream_id, ide_state_name(r->state) ?
				       ide_state_name(r->state) : "reserved state");
	}
	if (bad && (why = func_ide_unusable_reason(d)))
		result_done(run, f, AUDIT_FAIL,
			    xstrdup("the kernel cannot use this function's IDE until the stream "
				    "enabled at boot is disabled (in firmware, or by a reset) and the "
				    "device is enumerated again (reboot)"),
			    "enabled with no stream link: %s; no usable IDE in the kernel: %s", bad,
			    why);
	else if (bad)
		result_done(run, f, AUDIT_WARN, NULL, "enabled with no stream link: %s", bad);
	else if (tracked)
		result_done(run, f, AUDIT_PASS, NULL, "%zu enabled Selective block%s, %s", tracked,
			    tracked == 1 ? "" : "s", tracked == 1 ? "named by a stream link" :
			    "all named by stream links");
	else
		result_done(run, f, AUDIT_PASS, NULL, "no enabled IDE stream");
	free(why);
	free(bad);
}

/* ---- the table ---- */

const struct audit_check audit_checks[] = {
	{ "platform.config-access", "platform", NULL, AUDIT_SCOPE_PLATFORM,
	  "Config space past the 64-byte header is readable (the audit runs as root).",
	  "run the audit as root",
	  check_config_access, NULL, NULL, NULL },
	{ "platform.pci-devices", "platform", NULL, AUDIT_SCOPE_PLATFORM,
	  "/sys/bus/pci/devices lists the PCI functions: the tree is a kernel's.",
	  "a kernel always has /sys/bus/pci/devices: check that --sysroot names a whole tree "
	  "(a capture missing it cannot be audited)",
	  check_pci_devices, NULL, NULL, NULL },
	{ "platform.tsm-class", "platform", NULL, AUDIT_SCOPE_PLATFORM,
	  "/sys/class/tsm exists: the kernel was built with PCI TSM support.",
	  "use a kernel with CONFIG_PCI_TSM (v6.19 or later)",
	  check_tsm_class, NULL, NULL, NULL },
	{ "platform.tsm-present", "platform", "platform.tsm-class", AUDIT_SCOPE_PLATFORM,
	  "At least one TSM is registered in /sys/class/tsm.",
	  "load the TSM provider module (ccp with tio=Y for SEV-TIO, tdx_host for TDX Connect)",
	  check_tsm_present, NULL, NULL, NULL },
	{ "platform.tsm-mode", "platform", "platform.tsm-present", AUDIT_SCOPE_TSM,
	  "Each TSM's pci_mode is link or devsec where the attribute exists; the TDX Connect TSM "
	  "(on tdx_host) is link.",
	  "the TSM driver registered PCI operations that are neither link (connect) nor devsec "
	  "(lock); update the provider driver",
	  NULL, NULL, check_tsm_mode, NULL },
	{ "device.connected", "device", "platform.tsm-present", AUDIT_SCOPE_FUNC,
	  "Each TEE-IO capable device with tsm/connect is connected to a TSM.",
	  "connect it with tsmctl connect BDF TSM",
	  check_connected_all, connected_applies, check_connected, NULL },
	{ "device.authenticated", "device", "platform.tsm-present", AUDIT_SCOPE_FUNC,
	  "authenticated agrees with tsm/connect (or is the native CMA-SPDM 1/0).",
	  "the kernel's two views of the connection disagree: re-run the audit; if it persists, "
	  "disconnect and reconnect the device and report the kernel version",
	  NULL, authenticated_applies, check_authenticated, NULL },
	{ "device.dsm", "device", "platform.tsm-present", AUDIT_SCOPE_FUNC,
	  "A connected DSM names itself in tsm/dsm; each dependent function names a connected "
	  "DSM of its slot or upstream port.",
	  "the kernel tracks the wrong device security manager: disconnect and reconnect the DSM "
	  "and report the kernel version",
	  NULL, dsm_applies, check_dsm, NULL },
	{ "device.has-stream", "device", "device.connected", AUDIT_SCOPE_FUNC,
	  "A connected endpoint has at least one IDE stream link.",
	  "the TSM authenticated the device but set up no IDE stream: check "
	  "available_secure_streams, the root port's IDE capability and dmesg, then reconnect",
	  NULL, connected_dsm, check_has_stream, NULL },
	{ "device.tdisp", "device", "platform.tsm-present", AUDIT_SCOPE_FUNC,
	  "A device locked to a devsec TSM is accepted before a driver binds to it.",
	  "in a guest, bring a device up as: tsmctl lock BDF TSM, tsmctl accept --verify BDF "
	  "(it checks the evidence first), then bind its driver",
	  NULL, has_lock, check_tdisp, NULL },
	{ "device.evidence", "device", "platform.tsm-present", AUDIT_SCOPE_FUNC,
	  "Each device with evidence (a connected DSM, a locked TDI, a dependent through its DSM's) "
	  "is proven by it, as evidence --verify decides: identity, the measurements' signature, "
	  "the interface report; --require-verified devices must be.",
	  "put the device vendors' root CA certificates (PEM) in /etc/tsmctl/trust.d/ (or name a "
	  "store with --trust), then see tsmctl evidence --verify -v BDF",
	  check_evidence_all, evidence_applies, check_evidence, NULL },
	{ "stream.link", "stream", "platform.tsm-present", AUDIT_SCOPE_STREAM,
	  "streamH.R.E resolves to an existing endpoint below the same host bridge; H, R and E "
	  "lie within the pool and the partners' Selective stream counts.",
	  "a stream link that does not match the hardware: disconnect the endpoint (tsmctl "
	  "disconnect BDF) so the kernel removes it, and report the kernel version",
	  check_stream_link_all, NULL, check_stream_link, NULL },
	{ "stream.connected", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "The stream's endpoint is connected to a registered TSM.",
	  "a stream without a connection is stale: connect the endpoint again or reboot to clear it",
	  NULL, NULL, check_stream_connected, NULL },
	{ "stream.enabled", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "Selective block E in the endpoint and R in the root port are both enabled.",
	  "the stream is registered but not carrying traffic: disconnect and reconnect the "
	  "endpoint. SEV-TIO (Linux 7.x) enables the endpoint, then the root port, and keeps both "
	  "enabled whatever they answer, so a disabled block was disabled since; v6.19 enabled the "
	  "root port first and left the endpoint disabled when the root port stayed INSECURE",
	  NULL, NULL, check_stream_blocks, eval_enabled },
	{ "stream.secure", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "Both partners' Selective block state is SECURE.",
	  "the link is not protected (the kernel treats a drop to INSECURE like link-down): "
	  "disconnect and reconnect the endpoint; check the link (AER, dmesg). SEV-TIO (Linux "
	  "7.x) enables the endpoint first, then the root port, and keeps a stream whatever "
	  "either answers: the partner that reads INSECURE is the one that failed",
	  NULL, NULL, check_stream_blocks, eval_secure },
	{ "stream.ide-fail", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "Neither partner has the IDE_FAIL (received IDE Fail Message) bit set.",
	  "a partner saw an integrity check failure: the stream must be re-keyed: disconnect and "
	  "reconnect the endpoint; check the link for errors (AER)",
	  NULL, NULL, check_stream_blocks, eval_ide_fail },
	{ "stream.id", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "The Stream ID is equal on both partners, not the reserved 255, and unique within the "
	  "host bridge.",
	  "the partners disagree on the stream's identity: disconnect and reconnect the endpoint; "
	  "never change IDE registers from userspace (setpci)",
	  NULL, NULL, check_stream_blocks, eval_id },
	{ "stream.rid", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "The root port's RID association covers the endpoint and its VFs, the endpoint's covers "
	  "the root port, and both are valid.",
	  "traffic outside the RID association is not protected by the stream: disconnect and "
	  "reconnect the endpoint; never change IDE registers from userspace (setpci)",
	  NULL, NULL, check_stream_blocks, eval_rid },
	{ "stream.addr", "stream", "stream.link", AUDIT_SCOPE_STREAM,
	  "The root port's address associations follow the stream's provider: with Intel TDX "
	  "Connect the prefetchable window of the bridge above the endpoint, and nothing else.",
	  "the root port forwards the wrong address ranges into the stream: disconnect and "
	  "reconnect the endpoint; never change IDE registers from userspace (setpci)",
	  NULL, stream_has_addr_rule, check_stream_addr, NULL },
	{ "hostbridge.pool", "hostbridge", "platform.tsm-present", AUDIT_SCOPE_HB,
	  "available_secure_streams is present where streams exist and not exhausted.",
	  "no further device can get a stream on this host bridge: disconnect devices that do not "
	  "need link encryption",
	  NULL, hb_has_pool, check_pool, NULL },
	{ "hostbridge.tsm-link", "hostbridge", "platform.tsm-present", AUDIT_SCOPE_HB,
	  "Where the tree shows TSM-directory stream links, they match the streams: "
	  "tsmN/pciDDDD:BB (proposed) or tsmN/streamH.R.E (6.19-rc1), from the providers that "
	  "register their streams with the TSM (not SEV-TIO).",
	  "the TSM's per-host-bridge links do not match its streams: disconnect and reconnect the "
	  "affected endpoints and report the kernel version",
	  check_tsm_link_all, hb_has_links, check_tsm_link, NULL },
	{ "config.malformed", "config", NULL, AUDIT_SCOPE_FUNC,
	  "The function's config space reads fully and decodes without errors.",
	  "a config space the decoder cannot walk: check that the device is present and responding "
	  "(lspci -vvv), reset or reseat it",
	  NULL, config_examined, check_config, NULL },
	{ "ide.untracked", "ide", "config.malformed", AUDIT_SCOPE_FUNC,
	  "No Selective or Link IDE stream is enabled in config space without a streamH.R.E link "
	  "accounting for it.",
	  "a stream set up outside the kernel's TSM path (firmware, another OS, setpci): the "
	  "kernel keeps its Stream ID reserved; disable it in firmware or reset the device",
	  NULL, ide_examined, check_untracked, NULL },	/* the platform state beside the TSM (audit-checks-platform.c, ABI.md §7) */
	{ "psp.fused-part", "psp", "platform.tsm-present", AUDIT_SCOPE_TSM,
	  "A SEV-TIO TSM's PSP is a fused production part (fused_part, sysfs-driver-ccp).",
	  "use a production (fused) part for confidential workloads",
	  NULL, psp_checks_apply, check_psp_fused, NULL },
	{ "psp.debug-lock", "psp", "platform.tsm-present", AUDIT_SCOPE_TSM,
	  "A SEV-TIO TSM's PSP is locked against debugging (debug_lock_on).",
	  "lock debug in the platform firmware, or use a production part",
	  NULL, psp_checks_apply, check_psp_debug_lock, NULL },
	{ "psp.anti-rollback", "psp", "platform.tsm-present", AUDIT_SCOPE_TSM,
	  "A SEV-TIO TSM's PSP enforces rollback protection of its firmware "
	  "(anti_rollback_status).",
	  "enable the PSP's anti-rollback in the platform firmware",
	  NULL, psp_checks_apply, check_psp_anti_rollback, NULL },
	{ "psp.boot-integrity", "psp", "platform.tsm-present", AUDIT_SCOPE_TSM,
	  "A SEV-TIO TSM's PSP reports the CPU as the hardware root of trust for boot "
	  "(boot_integrity, Linux 7.0 and later).",
	  "enable the platform's hardware root of trust for boot (AMD Platform Secure Boot)",
	  NULL, psp_checks_apply, check_psp_boot_integrity, NULL },
	{ "platform.sev-mitigations", "platform", NULL, AUDIT_SCOPE_PLATFORM,
	  "Every SEV-SNP mitigation the firmware supports is verified "
	  "(/sys/firmware/sev/vulnerabilities, Linux 7.3; only where the kernel shows it).",
	  "read AMD's security bulletin for each bit, then tsmctl verify-mitigation BIT",
	  check_sev_mitigations, NULL, NULL, NULL },
};
const size_t audit_nr_checks = ARRAY_SIZE(audit_checks);

