// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model itself, apart from how scan.c fills it: questions about its
 * objects, answered once for the views, the actions and audit alike (as
 * libcxl's accessors serve both JSON and actions), its orders, lookups and
 * freeing. No file is read here: a snapshot built in memory works the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/names.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

static bool nonempty(const char *s)
{
	return s && *s;
}

bool func_cfg_known(const struct pci_func *f)
{
	return f && f->cfg_read && !f->cfg_err && !f->needs_root && f->cfg.header_valid;
}

bool func_cfg_needs_root(const struct pci_func *f)
{
	return f && (f->needs_root || f->cfg_err == -EACCES || f->cfg_err == -EPERM);
}

enum func_kind func_header_kind(const struct pci_func *f)
{
	unsigned int cls = f->cfg.class_code >> 8;	/* base class and subclass */

	if (f->cfg_read && !f->cfg_err && f->cfg.header_valid && (f->cfg.parts & CFG_PART_HEADER)) {
		switch (f->cfg.header_type) {
		case 0: return FUNC_KIND_ENDPOINT;	/* a type 0 header */
		case 1: return FUNC_KIND_BRIDGE;	/* PCI-to-PCI bridge: a port */
		case 2: return FUNC_KIND_CARDBUS;
		default: return FUNC_KIND_UNKNOWN;
		}
	}
	/* config unreadable: the kernel's class file, read in its stead */
	if (!f->cfg_err || !f->ids_known)
		return FUNC_KIND_UNKNOWN;
	return cls == 0x0604 || cls == 0x0609 ? FUNC_KIND_BRIDGE :
	       cls == 0x0607 ? FUNC_KIND_CARDBUS : FUNC_KIND_ENDPOINT;
}

bool func_connected(const struct pci_func *f)
{
	return f && nonempty(f->connect);
}

const char *func_lock_holder(const struct pci_func *f)
{
	if (!f || !f->has_lock || !nonempty(f->lock))
		return NULL;
	if (nonempty(f->connect) || nonempty(f->dsm))
		return NULL;	/* a link connect (or a connected DSM's dependent) */
	return f->lock;
}

int func_accepted(const struct pci_func *f)
{
	if (!f || !f->has_accept || !f->accept)
		return -1;
	return streq(f->accept, "1") ? 1 : streq(f->accept, "0") ? 0 : -1;
}

bool func_not_connected(const struct pci_func *f)
{
	return f && f->has_connect && f->connect && !f->connect_err && !*f->connect;
}

bool func_is_ancestor(const struct pci_func *a, const struct pci_func *b)
{
	for (const struct pci_func *p = b->parent; p; p = p->parent)
		if (p == a)
			return true;
	return false;
}

const struct pci_func *func_dsm_of(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	const struct pci_func *pf = f, *pf0;
	char name[BDF_MAX];

	if (f->dsm_func && f->dsm_func != f)
		return f->dsm_func;
	if (nonempty(f->dsm))
		return NULL;	/* itself, or a function the scan did not read */
	/* pf0_dev_get(), find_dsm_dev() (drivers/pci/tsm.c): the slot's function 0; a VF's is its PF's */
	if (f->physfn && !(pf = snapshot_find_func(snap, f->physfn)))
		return NULL;
	bdf_format(&(struct bdf){ pf->domain, pf->bus, pf->dev, 0 }, name);
	pf0 = snapshot_find_func(snap, name);
	return pf0 && pf0 != f && pf0->has_connect ? pf0 : NULL;
}

const struct pci_func *func_evidence_holder(const struct tsm_snapshot *snap,
					    const struct pci_func *f)
{
	const struct pci_func *dsm;

	if (func_connected(f) || func_lock_holder(f))
		return f;
	dsm = func_dsm_of(snap, f);
	return dsm && func_connected(dsm) ? dsm : NULL;
}

const char *func_tsm(const struct pci_func *f)
{
	if (nonempty(f->connect))
		return f->connect;
	if (nonempty(f->lock))
		return f->lock;
	if (f->dsm_func && nonempty(f->dsm_func->connect))
		return f->dsm_func->connect;
	return NULL;
}

bool func_has_doe(const struct pci_func *f, const char *feature)
{
	for (size_t i = 0; f && i < f->nr_doe_features; i++)
		if (streq(f->doe_features[i], feature))
			return true;
	return false;
}

/* pci_mode says the TSM is not a devsec one; without pci_mode the kernel must tell. */
bool tsm_not_devsec(const struct tsm *t)
{
	return t->has_pci_mode && t->mode && !streq(t->mode, "devsec");
}

bool tsm_is_link(const struct tsm *t)
{
	return !t->has_pci_mode || streq(t->mode, "link");
}

bool tsm_is_tdx_connect(const struct tsm *t)
{
	return t && streq(t->provider, "tdx_host");
}

enum tsm_pci_side tsm_pci_side(const struct tsm_snapshot *snap, const struct tsm *t)
{
	/* pci_mode appears after pci_tsm_register(), just before the change uevent (ABI.md §1.1) */
	if (t->has_pci_mode)
		return TSM_PCI_SHOWN;
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (snap->tsms[i]->has_pci_mode)
			return TSM_PCI_NOT_YET;	/* a kernel with pci_mode, not shown for T yet */
	/* v6.19: the first link TSM's registration shows tsm/ on every DSM candidate */
	for (size_t i = 0; i < snap->nr_funcs; i++)
		if (snap->funcs[i]->has_connect || snap->funcs[i]->has_lock)
			return TSM_PCI_SHOWN;
	return TSM_PCI_NO_GROUP;
}

/* A VF: its PF known, or its config's Vendor ID reads ffff (SR-IOV). */
static bool func_is_vf(const struct pci_func *f)
{
	return f->physfn || (f->cfg.header_valid && f->cfg.vendor_id == 0xffff);
}

bool func_dsm_candidate(const struct pci_func *f)
{
	const struct pci_func *rp = f ? f->root_port : NULL;
	enum pcie_type type;

	/* a VF is never one: its physfn link, or its Vendor ID reading ffff, says so */
	if (!func_cfg_known(f) || f->fn != 0 || func_is_vf(f))
		return false;
	type = f->cfg.pcie_type;
	if (type != PCIE_TYPE_ENDPOINT && type != PCIE_TYPE_UPSTREAM &&
	    type != PCIE_TYPE_RC_ENDPOINT)
		return false;
	if (f->cfg.tee_io)
		return true;
	/* a Stream ID not claimed at enumeration leaves no usable IDE (ABI.md §2.4) */
	if (!f->cfg.ide.present || !f->cfg.ide.sel_streams || f->ide_claim.state > IDE_CLAIM_OK)
		return false;
	/* pci_ide_init(): an endpoint's IDE counts only when its root port has Selective IDE too */
	return type != PCIE_TYPE_ENDPOINT || !func_cfg_known(rp) ||
	       (rp->cfg.ide.present && rp->cfg.ide.sel_streams);
}

bool tsm_is_sev_tio(const struct tsm *t)
{
	return t && streq(t->driver, "ccp");
}

/* The Arm CCA host's link TSM: an auxiliary device of arm_cca_host (a guess from its id table). */
static bool tsm_is_arm_cca(const struct tsm *t)
{
	return t && t->provider && !strncmp(t->provider, "arm_cca_host.", 13);
}

enum tsm_stream_links tsm_stream_links(const struct tsm *t)
{
	if (t->nr_hb_links || t->nr_stream_links)
		return TSM_LINKS_MADE;
	/* sev-dev-tsm.c: dsm_connect() registers with pci_ide_stream_register() alone */
	if (tsm_is_sev_tio(t) || streq(t->mode, "devsec"))
		return TSM_LINKS_NEVER;
	/* devsec_link_tsm_connect(), tdx-host's stream setup, cca_tsm_connect() call it */
	if (streq(t->provider, "devsec_link_tsm") || tsm_is_tdx_connect(t) || tsm_is_arm_cca(t))
		return TSM_LINKS_MADE;
	return TSM_LINKS_UNKNOWN;
}


bool func_is_devsec_sample_port(const struct pci_func *f)
{
	static const char bus[] = DEVSEC_BUS;
	const char *rest;

	if (!f || !f->hb || !f->hb->dir || !f->dir || strncmp(f->hb->dir, bus, sizeof(bus) - 1))
		return false;
	/* a function right below that host bridge, with the sample's ids where known */
	rest = f->dir + strlen(f->hb->dir);
	if (strncmp(f->dir, f->hb->dir, strlen(f->hb->dir)) || *rest != '/' || strchr(rest + 1, '/'))
		return false;
	return !f->ids_known || (f->cfg.vendor_id == 0x8086 && f->cfg.device_id == 0xffff);
}

size_t tsm_nr_locked(const struct tsm_snapshot *snap, const struct tsm *t, size_t *accepted)
{
	size_t n = 0;

	*accepted = 0;
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];

		if (!streq(func_lock_holder(f), t->name))
			continue;
		n++;
		*accepted += func_accepted(f) == 1;
	}
	return n;
}

size_t tsm_hb_names(const struct tsm_snapshot *snap, const struct tsm *t, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (hb_has_tsm(snap->hbs[i], t))
			out[n++] = snap->hbs[i]->name;
	return n;
}

size_t func_provided_tsms(const struct tsm_snapshot *snap, const struct pci_func *f,
			  const char **out)
{
	size_t n = 0;

	for (size_t i = 0; f && i < snap->nr_tsms; i++)
		if (streq(snap->tsms[i]->provider, f->bdf))
			out[n++] = snap->tsms[i]->name;
	return n;
}

bool hb_has_tsm(const struct host_bridge *hb, const struct tsm *t)
{
	for (size_t i = 0; i < hb->nr_tsms; i++)
		if (hb->tsms[i] == t)
			return true;
	return false;
}

bool hb_no_pool(const struct host_bridge *hb)
{
	return hb && hb->available_streams < 0 && !hb->available_err;
}

bool hb_exhausted(const struct host_bridge *hb)
{
	return hb && hb->available_streams == 0 && !hb->available_err;
}

char *func_no_pool_reason(const struct pci_func *f)
{
	if (!f || !hb_no_pool(f->hb))
		return NULL;
	return xasprintf("its host bridge %s has no IDE stream pool (no "
			 "available_secure_streams)", f->hb->name);
}

char *func_tdx_assoc_blocker(const struct pci_func *f)
{
	const struct pci_func *rp = f ? f->root_port : NULL;

	/* pci_ide_init(): Linux uses block 0's association count for every block */
	if (func_cfg_known(rp) && rp->cfg.ide.present && rp->cfg.ide.nr_sel &&
	    !(rp->cfg.ide.sel[0].cap & 0xf))
		return xasprintf("its root port %s has no IDE address-association blocks, and TDX "
				 "Connect refuses a stream without one for the prefetchable window "
				 "(EFAULT)", rp->bdf);
	if (f && f->upstream && !f->up_pref.valid)
		return xasprintf("the bridge above it (%s) has no prefetchable memory window, and "
				 "TDX Connect refuses a stream whose root port has no address "
				 "association left but that window (EFAULT)%s", f->upstream,
				 f->up_mem.valid ? ": a device with non-prefetchable BARs alone "
				 "cannot be connected" : "");
	return NULL;
}

bool func_doe_mailboxes_ambiguous(const struct pci_func *f)
{
	return func_cfg_known(f) && f->cfg.nr_doe > 1;
}

/*
 * pci_ide_init() stamps the reserved ID into every disabled block only once
 * every claim succeeded: F's blocks say whether its init got that far (true),
 * stopped before (false), or, with every block enabled, cannot tell (false
 * with *KNOWN unset).
 */
static bool init_completed(const struct pci_func *f, bool *known)
{
	const struct ide_cap *ide = &f->cfg.ide;

	*known = false;
	for (unsigned int k = 0; k < ide->nr_sel + ide->nr_link; k++) {
		bool link = k >= ide->nr_sel;
		unsigned int b = link ? k - ide->nr_sel : k;
		const struct ide_stream_regs *r = link ? &ide->link[b].regs : &ide->sel[b].regs;

		if (r->enabled || (!link && ide->sel[b].linux_skips))
			continue;
		*known = true;
		if (r->stream_id == IDE_RESERVED_STREAM_ID)
			return true;
	}
	return false;
}

/*
 * pci_ide_init()'s checks and claims for F, in its order; the first failure
 * into *FAILED, where the kernel stops (STOP; else the rest are claimed too).
 */
static void claim_blocks(struct pci_func *f, const struct pci_func **holders,
			 struct ide_claim *blocks, struct ide_claim *failed, bool stop)
{
	const struct ide_cap *ide = &f->cfg.ide;
	const struct pci_func *rp = f->root_port;

	/* an endpoint's IDE counts only paired with its root port's (checked before any claim) */
	if (f->cfg.pcie_type == PCIE_TYPE_ENDPOINT && rp && rp->ide_claim.state > IDE_CLAIM_OK) {
		*failed = (struct ide_claim){ .state = IDE_CLAIM_ROOT_PORT, .holder = rp };
		return;
	}
	/* the Selective blocks Linux uses, then the Link blocks; the first failure ends it */
	for (unsigned int k = 0; k < ide->nr_sel + ide->nr_link; k++) {
		bool link = k >= ide->nr_sel;
		unsigned int b = link ? k - ide->nr_sel : k;
		const struct ide_stream_regs *r = link ? &ide->link[b].regs : &ide->sel[b].regs;
		unsigned int id = r->stream_id;

		if (!link && ide->sel[b].linux_skips)
			continue;
		if (!r->enabled)
			continue;
		if (id == IDE_RESERVED_STREAM_ID || holders[id]) {
			if (failed->state == IDE_CLAIM_OK)
				*failed = (struct ide_claim){
					.state = id == IDE_RESERVED_STREAM_ID ? IDE_CLAIM_RESERVED :
						 IDE_CLAIM_TAKEN,
					.link = link, .block = b, .stream_id = id,
					.holder = holders[id], .holder_link = blocks[id].link,
					.holder_block = blocks[id].block,
				};
			if (stop)
				return;
			continue;
		}
		holders[id] = f;
		blocks[id] = (struct ide_claim){ .link = link, .block = b };
	}
}

/*
 * The claims of F's IDE as pci_ide_init() makes them, its host bridge's IDs
 * in HOLDERS. A failure is only said where F's idle blocks bear it out (no
 * 255 stamp): a block enabled after enumeration claimed nothing then.
 */
static void judge_claims(struct pci_func *f, const struct pci_func **holders,
			 struct ide_claim *blocks)
{
	struct ide_claim failed = { .state = IDE_CLAIM_OK };
	bool known, done = init_completed(f, &known);

	claim_blocks(f, holders, blocks, &failed, !done);
	f->ide_claim = failed.state == IDE_CLAIM_OK || done ?
		       (struct ide_claim){ .state = IDE_CLAIM_OK } :
		       known ? failed : (struct ide_claim){ .state = IDE_CLAIM_UNKNOWN };
}

/* Its enabled blocks were read: the audit's and devices -v's config plans. */
static bool claims_readable(const struct pci_func *f)
{
	return func_cfg_known(f) && f->cfg.ide.present && f->cfg.ide.selective_ide &&
	       f->cfg.pcie_type != PCIE_TYPE_NONE && (f->cfg.parts & CFG_PART_ENABLED) &&
	       (f->cfg.parts & CFG_PART_LINK);
}

void snapshot_judge_ide_claims(struct tsm_snapshot *snap)
{
	for (size_t h = 0; h < snap->nr_hbs; h++) {
		const struct pci_func *holders[IDE_RESERVED_STREAM_ID + 1] = { 0 };
		/* zeroed: a reserved ID's failure reads its (holderless) entry too */
		struct ide_claim blocks[IDE_RESERVED_STREAM_ID + 1] = { 0 };

		/* funcs are in BDF order: the kernel's within a host bridge; VFs come with SR-IOV */
		for (int vfs = 0; vfs < 2; vfs++)
			for (size_t i = 0; i < snap->nr_funcs; i++) {
				struct pci_func *f = snap->funcs[i];

				if (f->hb == snap->hbs[h] && claims_readable(f) &&
				    func_is_vf(f) == (vfs == 1))
					judge_claims(f, holders, blocks);
			}
	}
}

char *func_ide_unusable_reason(const struct pci_func *f)
{
	const struct ide_claim *c = &f->ide_claim;
	const char *kind = c->link ? "Link" : "Selective";

	switch (c->state) {
	case IDE_CLAIM_RESERVED:
		return xasprintf("its %s block %u was enabled at boot with the reserved Stream ID "
				 "255, which the kernel cannot claim, and the kernel stops at a failed "
				 "claim", kind, c->block);
	case IDE_CLAIM_TAKEN:
		return xasprintf("its %s block %u was enabled at boot with Stream ID %u, which "
				 "%s%s %s block %u had claimed first (one claim per ID and host "
				 "bridge), and the kernel stops at a failed claim",
				 kind, c->block, c->stream_id, c->holder == f ? "" : c->holder->bdf,
				 c->holder == f ? "its own" : "'s", c->holder_link ? "Link" :
				 "Selective", c->holder_block);
	case IDE_CLAIM_ROOT_PORT: {
		char *rp = func_ide_unusable_reason(c->holder), *text;

		text = xasprintf("its root port %s has none (%s), and an endpoint's IDE counts only "
				 "with its root port's", c->holder->bdf, rp);
		free(rp);
		return text;
	}
	case IDE_CLAIM_UNKNOWN:
	case IDE_CLAIM_OK:
		break;
	}
	return NULL;
}

char *func_connect_blocker(const struct pci_func *f, const struct tsm *t)
{
	const struct pci_func *rp = f->root_port;
	/* Arm CCA's cca_tsm_connect() sets up a stream only where it needs one */
	bool needs_stream = !tsm_is_arm_cca(t);
	char *why;

	/* pci_ide_stream_alloc() takes PCIe endpoints with a usable IDE capability only */
	if (needs_stream && func_cfg_known(f) && f->cfg.pcie_type != PCIE_TYPE_ENDPOINT)
		return xasprintf("it is a %s, and the kernel's IDE helpers set up streams only "
				 "for PCIe endpoints", f->cfg.pcie_type == PCIE_TYPE_RC_ENDPOINT ?
				 "root complex integrated endpoint" :
				 f->cfg.pcie_type == PCIE_TYPE_UPSTREAM ? "switch upstream port" :
				 pcie_type_name(f->cfg.pcie_type) ? pcie_type_name(f->cfg.pcie_type) :
				 "conventional PCI function");
	if (needs_stream && func_cfg_known(f) && !f->cfg.ide.present)
		return xstrdup("it has no IDE capability, so no IDE stream can be set up for it");
	if (needs_stream && func_cfg_known(rp) && !rp->cfg.ide.present)
		return xasprintf("its root port %s has no IDE capability, so no IDE stream can be "
				 "set up for it", rp->bdf);
	/* pci_ide_stream_alloc() wants pdev->ide_cap, which a failed claim never set */
	if (needs_stream && (why = func_ide_unusable_reason(f))) {
		char *text = xasprintf("the kernel gave it no usable IDE (%s), so no IDE stream can "
				       "be set up for it", why);

		free(why);
		return text;
	}
	if (f->doe_known && !f->nr_doe_features)
		return xstrdup("it has no DOE mailbox (no doe_features)");
	if (f->doe_known && !func_has_doe(f, DOE_FEATURE_CMA))
		return xstrdup("its DOE mailbox has no CMA/SPDM (doe_features lacks "
			       DOE_FEATURE_CMA ")");
	/* sev-dev-tsm.c dsm_connect(): EFAULT unless the CMA mailbox also does SSESSION */
	if (tsm_is_sev_tio(t) && f->doe_known && !func_has_doe(f, DOE_FEATURE_SSESSION))
		return xasprintf("its DOE mailbox lacks secure SPDM (doe_features lacks "
				 DOE_FEATURE_SSESSION "), which SEV-TIO (%s) requires", t->name);
	why = func_no_pool_reason(f);
	/* tdx-host.c: past pci_ide_stream_alloc(), tdx_ide_stream_create()'s association rule */
	if (!why && tsm_is_tdx_connect(t))
		why = func_tdx_assoc_blocker(f);
	return why;
}

char *snapshot_connect_blocker(const struct tsm_snapshot *snap, const struct pci_func *f)
{
	char *first = NULL;

	for (size_t i = 0; i < snap->nr_tsms; i++) {
		char *why;

		if (!tsm_is_link(snap->tsms[i]))
			continue;
		why = func_connect_blocker(f, snap->tsms[i]);
		if (!why) {
			free(first);
			return NULL;
		}
		if (first)
			free(why);
		else
			first = why;
	}
	return first ? first : func_connect_blocker(f, NULL);
}

const struct pci_func *stream_partner(const struct ide_stream *s, bool endpoint)
{
	return endpoint ? s->endpoint : s->root_port;
}

const struct ide_sel_stream *stream_partner_block(const struct ide_stream *s, bool endpoint)
{
	const struct pci_func *f = stream_partner(s, endpoint);

	if (!func_cfg_known(f))
		return NULL;
	return ide_sel_block(&f->cfg.ide, endpoint ? s->e : s->r);
}

const char *stream_connected_tsm(const struct ide_stream *s)
{
	return func_connected(s->endpoint) ? s->endpoint->connect : NULL;
}

bool stream_is_real(const struct ide_stream *s)
{
	return !s->dangling && !s->dup_of;
}

bool stream_block_secure(const struct ide_stream *s, bool endpoint)
{
	const struct ide_sel_stream *b = stream_partner_block(s, endpoint);

	return b && b->regs.enabled && b->regs.state == IDE_STATE_SECURE;
}

bool stream_block_ide_fail(const struct ide_stream *s, bool endpoint)
{
	const struct ide_sel_stream *b = stream_partner_block(s, endpoint);

	return b && b->regs.ide_fail;
}

bool stream_secure(const struct ide_stream *s)
{
	return stream_is_real(s) && stream_block_secure(s, true) && stream_block_secure(s, false);
}

bool stream_partner_ide_fail(const struct ide_stream *s, bool endpoint)
{
	return stream_is_real(s) && stream_block_ide_fail(s, endpoint);
}

bool stream_ide_fail(const struct ide_stream *s)
{
	return stream_partner_ide_fail(s, true) || stream_partner_ide_fail(s, false);
}

bool stream_insecure(const struct ide_stream *s)
{
	return stream_is_real(s) && stream_partner_block(s, true) &&
	       stream_partner_block(s, false) && !stream_secure(s);
}

bool stream_dangling(const struct ide_stream *s)
{
	return stream_partner_state(s, true) == PARTNER_DANGLING;
}

enum stream_state stream_state(const struct ide_stream *s)
{
	if (stream_dangling(s))
		return STREAM_DANGLING;
	/* an integrity failure outweighs SECURE: IDE_FAIL stays until the stream is torn down */
	if (stream_ide_fail(s))
		return STREAM_IDE_FAIL;
	if (stream_secure(s))
		return STREAM_SECURE;
	return stream_insecure(s) ? STREAM_INSECURE : STREAM_UNKNOWN;
}

const char *stream_state_name(enum stream_state state)
{
	static const char *const names[] = {
		[STREAM_SECURE] = "secure", [STREAM_INSECURE] = "insecure",
		[STREAM_IDE_FAIL] = "ide-fail", [STREAM_DANGLING] = "dangling",
		[STREAM_UNKNOWN] = "unknown",
	};

	return names[state];
}

enum partner_state stream_partner_state(const struct ide_stream *s, bool endpoint)
{
	const struct pci_func *f = stream_partner(s, endpoint);
	const struct ide_sel_stream *b;

	if (s->dangling)
		return PARTNER_DANGLING;
	if (s->dup_of)
		return PARTNER_DUPLICATE;
	if (!f)
		return endpoint ? PARTNER_DANGLING : PARTNER_NO_ROOT_PORT;
	if (f->needs_root)
		return PARTNER_NEEDS_ROOT;
	if (f->cfg_err)
		return PARTNER_UNREADABLE;
	b = stream_partner_block(s, endpoint);
	if (!b)
		return PARTNER_NO_BLOCK;
	if (!b->regs.enabled)
		return PARTNER_DISABLED;
	return b->regs.state == IDE_STATE_SECURE ? PARTNER_SECURE :
	       b->regs.state == IDE_STATE_INSECURE ? PARTNER_INSECURE : PARTNER_RESERVED;
}

enum stream_enable_shape stream_enable_shape(const struct ide_stream *s)
{
	enum partner_state ep = stream_partner_state(s, true), rp = stream_partner_state(s, false);
	const struct ide_sel_stream *eb = stream_partner_block(s, true);
	const struct ide_sel_stream *rb = stream_partner_block(s, false);
	bool ep_on = ep == PARTNER_SECURE || ep == PARTNER_INSECURE || ep == PARTNER_RESERVED;
	bool rp_on = rp == PARTNER_SECURE || rp == PARTNER_INSECURE || rp == PARTNER_RESERVED;

	if (!tsm_is_sev_tio(s->tsm) || !eb || !rb || (ep == PARTNER_SECURE && rp == PARTNER_SECURE))
		return ENABLE_SHAPE_NONE;
	if (ep_on && rp_on)
		return ENABLE_SHAPE_BOTH;
	/* pci_ide_stream_setup() left the endpoint's Stream ID; only an enable was missing */
	if (rp_on && rp != PARTNER_SECURE && ep == PARTNER_DISABLED && eb->regs.ctl &&
	    eb->regs.stream_id == rb->regs.stream_id)
		return ENABLE_SHAPE_RP_FIRST;
	/* pci_ide_stream_disable() writes 0 to the whole control register */
	if (ep_on && ep != PARTNER_SECURE && rp == PARTNER_DISABLED && !rb->regs.ctl)
		return ENABLE_SHAPE_RP_UNDONE;
	return ENABLE_SHAPE_NONE;
}

char *stream_enable_story(const struct ide_stream *s)
{
	bool ep = stream_partner_state(s, true) != PARTNER_SECURE;
	bool rp = stream_partner_state(s, false) != PARTNER_SECURE;

	switch (stream_enable_shape(s)) {
	case ENABLE_SHAPE_BOTH:
		return xasprintf("both partners are enabled and %s SECURE: %s at the enable "
				 "(SEV-TIO since Linux 7.x enables the endpoint, then the root port, "
				 "and keeps both enabled whatever either answers) or dropped since (the "
				 "only way on v6.19, which enabled the root port first)",
				 ep && rp ? "neither is" : ep ? "the endpoint is not" :
				 "the root port is not", ep && rp ? "both failed" : "it failed");
	case ENABLE_SHAPE_RP_FIRST:
		return xstrdup("SEV-TIO enabled the root port first and, as it did not reach SECURE, "
			       "never enabled the endpoint (v6.19's order; 7.x enables the endpoint "
			       "first and keeps both enabled)");
	case ENABLE_SHAPE_RP_UNDONE:
		return xstrdup("the endpoint did not reach SECURE, so SEV-TIO disabled the root port "
			       "it had enabled first again (v6.19's order; 7.x enables the endpoint "
			       "first and keeps both enabled)");
	case ENABLE_SHAPE_NONE:
		break;
	}
	return NULL;
}

/* How strongly S's registers say they are its own; higher first. */
static unsigned int stream_claim(const struct ide_stream *s, long long pool)
{
	const struct ide_sel_stream *ep = stream_partner_block(s, true);
	const struct ide_sel_stream *rp = stream_partner_block(s, false);
	unsigned int claim = 0;

	if (ep && rp && ep->regs.stream_id == rp->regs.stream_id)
		claim += 4;
	if (ep)
		claim += 2;
	if (pool < 0 || s->h < pool)
		claim += 1;
	return claim;
}

/* A and B name the same Selective block of one partner. */
static bool streams_clash(const struct ide_stream *a, const struct ide_stream *b)
{
	return (a->root_port && a->root_port == b->root_port && a->r == b->r) ||
	       (a->endpoint && a->endpoint == b->endpoint && a->e == b->e);
}

struct claim_order {
	struct ide_stream *s;
	unsigned int claim;
};

static int claim_cmp(const void *a, const void *b)
{
	const struct claim_order *x = a, *y = b;

	if (x->claim != y->claim)
		return x->claim > y->claim ? -1 : 1;
	return stream_cmp(&x->s, &y->s);
}

static void hb_mark_duplicates(struct host_bridge *hb)
{
	struct claim_order *order = xcalloc(hb->nr_streams + 1, sizeof(*order));
	long long pool = hb->available_streams;
	size_t n = 0;

	for (size_t i = 0; i < hb->nr_streams; i++)
		if (!hb->streams[i]->dangling)
			n++;
	if (pool >= 0)
		pool += (long long)n;	/* the pool's size: what is free and what links use */
	n = 0;
	for (size_t i = 0; i < hb->nr_streams; i++)
		if (!hb->streams[i]->dangling)
			order[n++] = (struct claim_order){ hb->streams[i],
							   stream_claim(hb->streams[i], pool) };
	if (n > 1)
		qsort(order, n, sizeof(*order), claim_cmp);
	/* the strongest claim keeps its blocks; whoever else names one of them is a stray */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i && !order[i].s->dup_of; j++)
			if (!order[j].s->dup_of && streams_clash(order[i].s, order[j].s))
				order[i].s->dup_of = order[j].s;
	free(order);
}

void snapshot_mark_duplicates(struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (snap->hbs[i]->nr_streams > 1)
			hb_mark_duplicates(snap->hbs[i]);
}

const char *bad_entry_kind(int err)
{
	switch (-err) {
	case ENOTDIR:	return "not a directory";
	case ELOOP:	return "a link loop";
	case ENOENT:	return "a dangling link";
	case EXDEV:	return "a link out of the tree";
	case EACCES:
	case EPERM:	return "not readable";
	case ENODATA:	return "a directory without a TSM's files";
	case EBADMSG:	return "a name the kernel does not give";
	default:	return strerror(-err);
	}
}

/* ---- the model's orders ---- */

/* -1, 0 or 1 for the first of the N pairs (A[i], B[i]) that differ. */
static int cmp_keys(const unsigned int *a, const unsigned int *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

int hb_cmp(const void *a, const void *b)
{
	const struct host_bridge *x = *(struct host_bridge *const *)a;
	const struct host_bridge *y = *(struct host_bridge *const *)b;

	return cmp_keys((unsigned int[]){ x->domain, x->bus },
			(unsigned int[]){ y->domain, y->bus }, 2);
}

int stream_cmp(const void *a, const void *b)
{
	const struct ide_stream *x = *(struct ide_stream *const *)a;
	const struct ide_stream *y = *(struct ide_stream *const *)b;

	return cmp_keys((unsigned int[]){ x->h, x->r, x->e },
			(unsigned int[]){ y->h, y->r, y->e }, 3);
}

int func_cmp(const void *a, const void *b)
{
	const struct pci_func *x = *(struct pci_func *const *)a;
	const struct pci_func *y = *(struct pci_func *const *)b;

	return cmp_keys((unsigned int[]){ x->domain, x->bus, x->dev, x->fn },
			(unsigned int[]){ y->domain, y->bus, y->dev, y->fn }, 4);
}

/* ---- lifetime and lookups ---- */

static void func_free(struct pci_func *f)
{
	free(f->bdf);
	free(f->dir);
	free(f->driver);
	pci_cfg_release(&f->cfg);
	free(f->connect);
	free(f->dsm);
	free(f->bound);
	free(f->authenticated);
	free(f->lock);
	free(f->accept);
	free(f->physfn);
	free(f->sel_want);
	free(f->bars);
	free(f->iommu_group);
	strv_free(f->doe_features, f->nr_doe_features);
	free(f->upstream);
	free(f->serial_number);
	free(f);
}

static void tsm_free(struct tsm *t)
{
	free(t->name);
	free(t->dir);
	free(t->mode);
	free(t->provider);
	free(t->provider_dir);
	free(t->provider_version);
	free(t->driver);
	free(t->module);
	strv_free(t->hb_links, t->nr_hb_links);
	strv_free(t->stream_links, t->nr_stream_links);
	if (t->psp) {
		free(t->psp->bootloader_version);
		free(t->psp->tee_version);
		free(t->psp);
	}
	free(t);
}

static void stream_free(struct ide_stream *s)
{
	free(s->name);
	free(s->target);
	free(s->rp_addr);
	free(s);
}

static void hb_free(struct host_bridge *hb)
{
	free(hb->name);
	free(hb->dir);
	free(hb->streams);
	strv_free(hb->bad_links, hb->nr_bad_links);
	free(hb->tsms);
	free(hb);
}

static void mr_group_free(struct measurements *g)
{
	for (size_t i = 0; i < g->nr_regs; i++) {
		free(g->regs[i].file);
		free(g->regs[i].name);
		free(g->regs[i].hash);
		free(g->regs[i].value);
	}
	free(g->regs);
	free(g->device);
	free(g->dir);
}

void snapshot_free(struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_tsms; i++)
		tsm_free(snap->tsms[i]);
	for (size_t i = 0; i < snap->nr_streams; i++)
		stream_free(snap->streams[i]);
	for (size_t i = 0; i < snap->nr_hbs; i++)
		hb_free(snap->hbs[i]);
	for (size_t i = 0; i < snap->nr_funcs; i++)
		func_free(snap->funcs[i]);
	for (size_t i = 0; i < snap->nr_bad_tsms; i++)
		free(snap->bad_tsms[i].name);
	free(snap->bad_tsms);
	free(snap->tdx_module_version);
	for (size_t i = 0; i < snap->nr_mr_groups; i++)
		mr_group_free(&snap->mr_groups[i]);
	free(snap->mr_groups);
	free(snap->tsms);
	free(snap->streams);
	free(snap->hbs);
	free(snap->funcs);
	memset(snap, 0, sizeof(*snap));
}

struct tsm *snapshot_find_tsm(const struct tsm_snapshot *snap, const char *name)
{
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (streq(snap->tsms[i]->name, name))
			return snap->tsms[i];
	return NULL;
}

const struct tsm *snapshot_first_link_tsm(const struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (tsm_is_link(snap->tsms[i]))
			return snap->tsms[i];
	return NULL;
}

struct host_bridge *snapshot_find_hb(const struct tsm_snapshot *snap, const char *name)
{
	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (streq(snap->hbs[i]->name, name))
			return snap->hbs[i];
	return NULL;
}

struct host_bridge *snapshot_hb_holding(const struct tsm_snapshot *snap, const char *dir)
{
	struct host_bridge *best = NULL;

	for (size_t i = 0; i < snap->nr_hbs; i++) {
		size_t n = strlen(snap->hbs[i]->dir);

		if (!strncmp(dir, snap->hbs[i]->dir, n) && dir[n] == '/' &&
		    (!best || n > strlen(best->dir)))
			best = snap->hbs[i];
	}
	return best;
}

/* funcs is sorted by (domain, bus, dev, fn) once the scan is done: binary search. */
struct pci_func *snapshot_find_func(const struct tsm_snapshot *snap, const char *bdf)
{
	size_t lo = 0, hi = snap->nr_funcs;
	struct pci_func key;
	struct bdf b;

	if (bdf_parse(bdf, &b))
		return NULL;
	key = (struct pci_func){ .domain = b.domain, .bus = b.bus, .dev = b.dev, .fn = b.fn };
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pci_func *key_ptr = &key;
		int c = func_cmp(&key_ptr, &snap->funcs[mid]);

		if (!c)
			return streq(snap->funcs[mid]->bdf, bdf) ? snap->funcs[mid] : NULL;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* ---- the platform state (ABI.md §7) ---- */

/* hsti.c psp_security_attrs[] (ABI.md §7.2) */
const char *const psp_bit_attr[PSP_NR_BITS] = {
	[PSP_FUSED_PART] = "fused_part", [PSP_BOOT_INTEGRITY] = "boot_integrity",
	[PSP_DEBUG_LOCK_ON] = "debug_lock_on", [PSP_TSME_STATUS] = "tsme_status",
	[PSP_ANTI_ROLLBACK] = "anti_rollback_status",
	[PSP_RPMC_PRODUCTION] = "rpmc_production_enabled",
	[PSP_RPMC_SPIROM] = "rpmc_spirom_available", [PSP_HSP_TPM] = "hsp_tpm_available",
	[PSP_ROM_ARMOR] = "rom_armor_enforced",
};

bool psp_reports_security(const struct psp_security *p)
{
	for (int i = 0; p && i < PSP_NR_BITS; i++)
		if (p->bit[i] != -ENOENT)
			return true;
	return false;
}

bool mr_extendable(const struct measurement_register *r)
{
	return !r->err && (r->mode & 0200);
}

const struct measurement_register *snapshot_find_mr(const struct tsm_snapshot *snap,
						    const char *name,
						    const struct measurements **group)
{
	for (size_t g = 0; g < snap->nr_mr_groups; g++)
		for (size_t i = 0; i < snap->mr_groups[g].nr_regs; i++) {
			const struct measurement_register *r = &snap->mr_groups[g].regs[i];

			if (streq(r->file, name) || streq(r->name, name)) {
				if (group)
					*group = &snap->mr_groups[g];
				return r;
			}
		}
	return NULL;
}

uint64_t sev_mitigations_unverified(const struct sev_mitigations *m)
{
	if (!m->present || m->supported_err || m->verified_err)
		return 0;
	return m->supported & ~m->verified;
}
