// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-connect.c: what a store to tsm/connect or tsm/disconnect does in v6.19
 * (drivers/pci/tsm.c) and in the low-level TSM drivers we model: AMD
 * SEV-TIO (ccp), the kernel's devsec sample link TSM, Intel TDX Connect
 * (proposed) and a generic one.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* sscanf(buf, "tsm%d\n"): EINVAL only when no integer follows "tsm" (ABI.md §1.2) */
int sim_parse_tsm_name(const char *buf, size_t len, long *id)
{
	size_t i = 3;
	bool neg = false;
	long v = 0;

	if (len < 4 || memcmp(buf, "tsm", 3))
		return -EINVAL;
	while (i < len && buf[i] && isspace((unsigned char)buf[i]))
		i++;
	if (i < len && buf[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= len || !isdigit((unsigned char)buf[i]))
		return -EINVAL;
	for (; i < len && isdigit((unsigned char)buf[i]); i++) {
		v = v * 10 + (buf[i] - '0');
		if (v > 0x7fffffffL)
			v = 0x7fffffffL;	/* no TSM can have such an id */
	}
	*id = neg ? -v : v;
	return 0;
}

/* sysfs_streq(): equal, ignoring one trailing newline on either side */
bool sim_sysfs_streq(const char *buf, size_t len, const char *name)
{
	size_t i = 0;

	while (i < len && buf[i] && name[i] && buf[i] == name[i])
		i++;
	if ((i == len || !buf[i]) && !name[i])
		return true;
	if (i < len && buf[i] == '\n' && (i + 1 == len || !buf[i + 1]) &&
	    !name[i])
		return true;
	return false;
}

static void siblings(struct sim_dev *d, struct sim_dev ***list, size_t *n)
{
	*list = d->parent ? d->parent->children : d->hb->devs;
	*n = d->parent ? d->parent->nr_children : d->hb->nr_devs;
}

/* pci_get_slot(): a present physical function @fn in @d's slot */
static struct sim_dev *slot_fn(struct sim_dev *d, unsigned fn)
{
	struct sim_dev **sib;
	size_t n;

	siblings(d, &sib, &n);
	for (size_t i = 0; i < n; i++)
		if (sib[i]->present && !sib[i]->physfn &&
		    sib[i]->bus == d->bus && sib[i]->slot == d->slot &&
		    sib[i]->fn == fn)
			return sib[i];
	return NULL;
}

static bool is_dsm(const struct sim_dev *d)
{
	return d && d->ctx_tsm && d->ctx_dsm == d;
}

/* find_dsm_dev(): self, function 0 of the slot, or a DSM upstream switch port */
static struct sim_dev *find_dsm(struct sim_dev *d)
{
	struct sim_dev *pf = d->physfn ? d->physfn : d;
	struct sim_dev *pf0, *gp;

	if (sim_dev_is_pf0(d))
		return d;
	pf0 = pf->fn == 0 ? pf : slot_fn(pf, 0);
	if (is_dsm(pf0))
		return pf0;
	gp = d->parent ? d->parent->parent : NULL;
	if (gp && gp->type == PT_UPSTREAM && is_dsm(gp))
		return gp;
	return NULL;
}

/* ops->probe() for a DSM candidate: 0 or -ENXIO (the NULL return) */
static int probe_pf0(struct sim_tsm *t, struct sim_dev *d)
{
	if (!sim_tsm_serves_dev(t, d) || !sim_dev_is_pf0(d))
		return -ENXIO;
	/* pci_tsm_pf0_constructor(): no CMA mailbox, no context */
	if (!sim_dev_has_doe(d, "0001:01"))
		return -ENXIO;
	return 0;
}

/* ops->probe() for a dependent function after connect */
static void probe_fn(struct sim_tsm *t, struct sim_dev *dsm, struct sim_dev *d)
{
	struct sim_dev *found;

	if (!d->present || sim_dev_has_ctx(d))
		return;
	/* SEV-TIO declines every function but the DSM (ABI.md §2.2) */
	if (t->provider == PROV_SEV_TIO || !sim_tsm_serves_dev(t, d))
		return;
	if (sim_dev_is_pf0(d) && !sim_dev_has_doe(d, "0001:01"))
		return;
	found = find_dsm(d);
	if (found != dsm)
		return;
	d->ctx_tsm = t;
	d->ctx_dsm = dsm;
}

/*
 * pci_tsm_init() (7.2 and 7.3 drivers/pci/tsm.c:843-869), which
 * pci_device_add() calls right after device_add(): a function added below a
 * connected DSM (a new VF) is probed as the connect probed its siblings.
 */
void sim_tsm_init(struct sim_model *m, struct sim_dev *d)
{
	struct sim_dev *dsm;

	if (!d->present || sim_dev_has_ctx(d) || !sim_model_link_tsms(m))
		return;
	dsm = find_dsm(d);
	if (dsm && dsm != d && is_dsm(dsm))
		probe_fn(dsm->ctx_tsm, dsm, d);
}

static void clear_ctx(struct sim_dev *d)
{
	d->ctx_tsm = NULL;
	d->ctx_dsm = NULL;
	d->bound = false;
}

static void walk_subtree(struct sim_dev *d, bool reverse,
			 void (*cb)(struct sim_dev *, void *), void *arg)
{
	for (size_t k = 0; k < d->nr_children; k++) {
		size_t i = reverse ? d->nr_children - 1 - k : k;
		struct sim_dev *c = d->children[i];

		if (!reverse)
			cb(c, arg);
		walk_subtree(c, reverse, cb, arg);
		if (reverse)
			cb(c, arg);
	}
}

/* pci_tsm_walk_fns(): other functions of the slot, all their VFs, a switch's subtree */
static void walk_fns(struct sim_dev *dsm, bool reverse,
		     void (*cb)(struct sim_dev *, void *), void *arg)
{
	if (reverse && dsm->type == PT_UPSTREAM && is_dsm(dsm))
		walk_subtree(dsm, true, cb, arg);
	for (int k = 0; k < 8; k++) {
		unsigned fn = reverse ? 7 - k : k;
		struct sim_dev *pf = slot_fn(dsm, fn);

		if (!pf)
			continue;
		if (!reverse && fn > 0)
			cb(pf, arg);
		for (unsigned j = 0; j < pf->nr_vfs; j++) {
			struct sim_dev *vf = pf->vfs[reverse ? pf->nr_vfs - 1 - j : j];

			if (vf->present)
				cb(vf, arg);
		}
		if (reverse && fn > 0)
			cb(pf, arg);
	}
	if (!reverse && dsm->type == PT_UPSTREAM && is_dsm(dsm))
		walk_subtree(dsm, false, cb, arg);
}

struct probe_arg {
	struct sim_tsm *t;
	struct sim_dev *dsm;
};

static void probe_cb(struct sim_dev *d, void *arg)
{
	struct probe_arg *a = arg;

	probe_fn(a->t, a->dsm, d);
}

static void remove_cb(struct sim_dev *d, void *arg)
{
	struct sim_dev *dsm = arg;

	if (d->ctx_dsm == dsm && d != dsm)
		clear_ctx(d);
}

static void unbind_cb(struct sim_dev *d, void *arg)
{
	(void)arg;
	d->bound = false;
}

static bool fault_hits(const struct sim_dev *d, enum sim_fault_stage st, int *rc)
{
	if (d->faults.connect_errno && d->faults.connect_after == st) {
		*rc = -d->faults.connect_errno;
		return true;
	}
	return false;
}

/*
 * The provider's SPDM session (and IDE_KM) is the slow part of a connect:
 * with spdm_manually the live mount shows the tree as the work so far left
 * it until the control file's spdm-done, while the store holds
 * pci_tsm_rwsem (ABI.md §2.3).
 */
static void spdm_phase(struct sim_model *m, struct sim_dev *d)
{
	if (d->faults.spdm_manually && m->connect_pause)
		m->connect_pause(m, d);
}

/*
 * The core helpers' order after the Stream ID is chosen: register, set up
 * both ends, register with the TSM, enable the endpoint (and first the
 * root port when @enable_rp), with the injected faults between the steps.
 * 0 or -errno; the caller releases the stream on failure.
 */
static int stream_bring_up(struct sim_model *m, struct sim_dev *d,
			   struct sim_ide_stream *s, bool enable_rp)
{
	int rc = sim_ide_stream_register(m, s);

	if (rc || fault_hits(d, STAGE_REGISTER, &rc))
		return rc;
	sim_ide_stream_setup(s, false);
	sim_ide_stream_setup(s, true);
	if (fault_hits(d, STAGE_SETUP, &rc))
		return rc;
	if (enable_rp)	/* the devsec sample, which leaves the RP alone, runs no SPDM session */
		spdm_phase(m, d);
	rc = sim_tsm_stream_register(m, s);
	if (!rc && enable_rp)
		rc = sim_ide_stream_enable(s, true);
	if (!rc)
		rc = sim_ide_stream_enable(s, false);
	if (!rc)
		fault_hits(d, STAGE_ENABLE, &rc);
	return rc;
}

/* Undo a connect that failed part way: the stream, and a sample's Stream ID slot. */
static int connect_abort(struct sim_model *m, struct sim_ide_stream *s, int rc)
{
	if (s->sample_id >= 0)
		s->tsm->sample_ids[s->sample_id] = 0;
	sim_ide_stream_release(m, s);
	return rc;
}

/* The rest of a core-order connect once the Stream ID is chosen. */
static int connect_finish(struct sim_model *m, struct sim_dev *d,
			  struct sim_ide_stream *s, bool enable_rp)
{
	int rc = stream_bring_up(m, d, s, enable_rp);

	if (rc)
		return connect_abort(m, s, rc);
	d->stream = s;
	return 0;
}

/*
 * stream_enable() of sev-dev-tsm.c. 7.x (7.2 and 7.3, lines 56-70): the
 * endpoint first, then the root port, -ENXIO tolerated on each, so both
 * enable bits are written whatever either port answers. v6.19
 * (torvalds/linux 08df88fa142f): the root port first; the endpoint only
 * when it came up SECURE; the root port disabled again when the endpoint
 * did not. dsm_connect() ignores the result either way.
 */
static void sev_tio_enable(const struct sim_model *m, struct sim_ide_stream *s)
{
	if (m->release == REL_7X) {
		sim_ide_stream_enable(s, false);
		sim_ide_stream_enable(s, true);
	} else if (sim_ide_stream_enable(s, true) == 0 && sim_ide_stream_enable(s, false)) {
		sim_ide_stream_disable(s, true);
	}
}

/*
 * drivers/crypto/ccp/sev-dev-tsm.c dsm_connect() (7.2 and 7.3 lines 273-319;
 * torvalds/linux 08df88fa142f the same but for the enable order): the first
 * mailbox with secure SPDM must be the CMA one (pci_tsm_pf0_constructor()
 * took the first with CMA), else EFAULT; stream_alloc() (the pool slot is
 * taken here), failure EFAULT; TIO_DEV_CREATE; streams_setup();
 * TIO_DEV_CONNECT, the slow SPDM and IDE_KM part; streams_enable(), result
 * ignored; streams_register() last, so the link appears only now and a
 * taken Stream ID is EBUSY after the PSP connect, unwound (reclaim,
 * disable, teardown, free). No SEV-TIO version calls tsm_ide_stream_register().
 */
static int sev_tio_connect(struct sim_model *m, struct sim_tsm *t,
			   struct sim_dev *d)
{
	struct sim_ide_stream *s;
	int rc;

	if (sim_dev_doe_mailbox(d, "0001:02") != sim_dev_doe_mailbox(d, "0001:01"))
		return -EFAULT;	/* "CMA DOE MB must support SSESSION" */
	rc = sim_ide_stream_alloc(m, d, &s);
	if (rc)
		return -EFAULT;
	s->tsm = t;
	s->stream_id = s->h;	/* Stream ID = host bridge stream index */
	if (fault_hits(d, STAGE_ALLOC, &rc))
		goto release;
	/* "Forcing CFG/TEE": whole-RID ranges, EP default stream */
	s->ep_default = true;
	s->rp_rid_start = s->ep_rid_start = 0;
	s->rp_rid_end = s->ep_rid_end = 0xffff;
	s->ep_cfg = false;
	s->ep_tee = true;
	s->rp_cfg = true;
	s->rp_tee = false;
	sim_ide_stream_setup(s, false);
	sim_ide_stream_setup(s, true);
	spdm_phase(m, d);
	if (fault_hits(d, STAGE_SETUP, &rc))
		goto release;
	sev_tio_enable(m, s);
	if (fault_hits(d, STAGE_ENABLE, &rc))
		goto release;
	rc = sim_ide_stream_register(m, s);
	if (rc || fault_hits(d, STAGE_REGISTER, &rc))
		goto release;
	d->stream = s;
	return 0;
release:
	sim_ide_stream_release(m, s);
	return rc;
}

/*
 * samples/devsec/link_tsm.c devsec_link_tsm_connect() (intel-staging/tdx
 * 28c48e992e59): the sample's Stream ID bitmap, alloc, register, set up
 * both ends, tsm_ide_stream_register(), enable the endpoint only: the
 * sample's root port (bus.c devsec_bridge_write_ext()) stores the setup
 * writes and nothing enables it ("Model a TSM that handled enabling").
 */
static int sample_connect(struct sim_model *m, struct sim_tsm *t,
			  struct sim_dev *d)
{
	struct sim_ide_stream *s;
	int id = -1, rc;

	for (int i = 0; i < SIM_SAMPLE_IDS; i++)
		if (!t->sample_ids[i]) {
			id = i;
			break;
		}
	if (id < 0)
		return -EBUSY;	/* the sample's 4-entry Stream ID bitmap */
	rc = sim_ide_stream_alloc(m, d, &s);
	if (rc)
		return -ENOMEM;
	t->sample_ids[id] = 1;
	s->tsm = t;
	s->sample_id = id;
	s->stream_id = id;
	if (fault_hits(d, STAGE_ALLOC, &rc))
		return connect_abort(m, s, rc);
	return connect_finish(m, d, s, false);
}

/* pci_ide_stream_alloc() for @t's stream (ENOMEM when it fails), then the alloc-stage fault */
static int stream_alloc_for(struct sim_model *m, struct sim_tsm *t, struct sim_dev *d,
			    struct sim_ide_stream **s)
{
	int rc = sim_ide_stream_alloc(m, d, s);

	if (rc)
		return -ENOMEM;
	(*s)->tsm = t;
	if (fault_hits(d, STAGE_ALLOC, &rc))
		return connect_abort(m, *s, rc);
	return 0;
}

/* A link TSM that uses the core helpers in their documented order (ABI.md §2.3): a guess */
static int generic_connect(struct sim_model *m, struct sim_tsm *t, struct sim_dev *d)
{
	struct sim_ide_stream *s;
	int rc = stream_alloc_for(m, t, d, &s);

	if (rc)
		return rc;
	/* lowest Stream ID free on this host bridge; 255 stays reserved */
	for (int i = 0; i < SIM_RESERVED_ID && s->stream_id < 0; i++)
		if (!s->hb->ids[i])
			s->stream_id = i;
	if (s->stream_id < 0)
		return connect_abort(m, s, -EBUSY);
	return connect_finish(m, d, s, true);
}

static bool module_id_used(struct sim_model *m, struct sim_tsm *t,
			   struct sim_ide_stream *s, unsigned id)
{
	for (struct sim_ide_stream *o = m->streams; o; o = o->next)
		if (o != s && o->tsm == t && o->hb == s->hb &&
		    o->stream_id == (int)id)
			return true;
	return false;
}

/*
 * tdx-host.c tdx_ide_stream_create() (kernelorg-mirror/linux_kernel_git_devsec_tsm
 * 85c942cc1d9a): sel_stream_block_regs() turns the root port's memory
 * association off, and unless exactly one association is left (the
 * prefetchable window of the bridge above the endpoint, in a port with
 * association blocks) the create is EFAULT; so is a failed SEAMCALL. The
 * TDX module returns the Stream ID (the topology's "stream_ids", first one
 * this TSM does not use on the host bridge; without the list the lowest
 * free one: a guess).
 */
static int tdx_stream_create(struct sim_model *m, struct sim_tsm *t,
			     struct sim_ide_stream *s)
{
	s->rp_pref_only = true;
	if (sim_ide_stream_nr_addr(s, true) != 1)
		return -EFAULT;
	if (s->ep->faults.seamcall_fail)
		return -EFAULT;
	if (!t->has_module_ids) {
		for (int i = 0; i < SIM_RESERVED_ID && s->stream_id < 0; i++)
			if (!s->hb->ids[i])
				s->stream_id = i;
		return s->stream_id < 0 ? -EFAULT : 0;
	}
	for (size_t i = 0; i < t->nr_module_ids; i++)
		if (!module_id_used(m, t, s, t->module_ids[i])) {
			s->stream_id = (int)t->module_ids[i];
			return 0;
		}
	return -EFAULT;	/* the module has no stream left to create */
}

/*
 * tdx-host.c tdx_ide_stream_setup() (kernelorg-mirror/linux_kernel_git_devsec_tsm
 * 85c942cc1d9a): alloc (ENOMEM), tdx_ide_stream_create(), register, the
 * endpoint as default stream and its setup, key programming ("enable IDE
 * stream for RP": the TDX module programs and enables the root port; the
 * kernel never writes it), tsm_ide_stream_register(), then the endpoint's
 * enable, the only one checked. What the module writes into the root
 * port's block is a guess: the Stream ID, the RID and address association
 * values the kernel passed, enable; configuration requests, default stream
 * and TEE-limited off (the control value the kernel passes has them 0).
 */
static int tdx_connect(struct sim_model *m, struct sim_tsm *t, struct sim_dev *d)
{
	struct sim_ide_stream *s;
	int rc = stream_alloc_for(m, t, d, &s);

	if (rc)
		return rc;
	if ((rc = tdx_stream_create(m, t, s)))
		return connect_abort(m, s, rc);
	rc = sim_ide_stream_register(m, s);
	if (rc || fault_hits(d, STAGE_REGISTER, &rc))
		return connect_abort(m, s, rc);
	s->ep_default = true;
	sim_ide_stream_setup(s, false);
	if (fault_hits(d, STAGE_SETUP, &rc))
		return connect_abort(m, s, rc);
	/* TDH.IDE.STREAM.KM: the module programs and enables its side; its state is not read */
	spdm_phase(m, d);
	s->rp_cfg = s->rp_tee = s->rp_default = false;
	sim_ide_stream_setup(s, true);
	sim_ide_stream_enable(s, true);
	rc = sim_tsm_stream_register(m, s);
	if (!rc)
		rc = sim_ide_stream_enable(s, false);
	if (!rc)
		fault_hits(d, STAGE_ENABLE, &rc);
	if (rc)
		return connect_abort(m, s, rc);
	d->stream = s;
	return 0;
}

/* connect_store() + pci_tsm_connect() */
int sim_connect(struct sim_model *m, struct sim_dev *d, long tsm_id)
{
	struct sim_tsm *t;
	int rc;

	if (sim_dev_has_ctx(d))
		return -EBUSY;	/* connected already, or locked by a devsec TSM */
	t = sim_model_find_tsm(m, tsm_id);
	if (!t || t->kind != TSM_LINK)
		return -ENXIO;
	rc = probe_pf0(t, d);
	if (rc)
		return rc;
	d->ctx_tsm = t;
	d->ctx_dsm = d;
	switch (t->provider) {
	case PROV_SEV_TIO:
		rc = sev_tio_connect(m, t, d);
		break;
	case PROV_DEVSEC_SAMPLE:
		rc = sample_connect(m, t, d);
		break;
	case PROV_TDX_CONNECT:
		rc = tdx_connect(m, t, d);
		break;
	default:
		rc = generic_connect(m, t, d);
		break;
	}
	if (rc) {
		clear_ctx(d);	/* __free(tsm_remove): connect reads empty again */
		return rc;
	}
	/* the provider's evidence for the new context (ABI.md §1.6), generation 1 */
	sim_evidence_create(m, d);
	/* a later Secure->Insecure transition (link-down like, ABI.md §3) */
	if (d->stream && (d->faults.rp_dropped || d->faults.ep_dropped)) {
		struct sim_ide_stream *s = d->stream;

		if (d->faults.rp_dropped)
			s->rp->ide.sel[s->r].sts &= ~0xfu;
		if (d->faults.ep_dropped)
			s->ep->ide.sel[s->e].sts &= ~0xfu;
	}
	/* the DSM is the arbiter: probe dependents only when it has DEVCAP.TEE */
	if (d->tee) {
		struct probe_arg a = { t, d };

		walk_fns(d, false, probe_cb, &a);
	}
	return 0;
}

/* pci_tsm_disconnect(): unbind, drop dependents in reverse, tear the link down */
static void do_disconnect(struct sim_model *m, struct sim_dev *d)
{
	struct sim_tsm *t = d->ctx_tsm;

	walk_fns(d, true, unbind_cb, NULL);
	d->bound = false;
	walk_fns(d, true, remove_cb, d);
	if (d->stream) {
		if (t->provider == PROV_DEVSEC_SAMPLE && d->stream->sample_id >= 0)
			t->sample_ids[d->stream->sample_id] = 0;
		sim_ide_stream_release(m, d->stream);
		d->stream = NULL;
	}
	clear_ctx(d);
}

/*
 * disconnect_store() (drivers/pci/tsm/core.c, kernelorg-mirror/linux_kernel_git_devsec_tsm
 * 7b30e72c28f0): ENXIO without a context, EINVAL unless @buf names the
 * context's TSM, whichever kind it is. A function 0 locked by a devsec TSM
 * written its own TSM's name reaches pci_tsm_disconnect() with no DSM
 * (to_pci_tsm_pf0() is NULL): a kernel oops the simulator reports as EFAULT,
 * changing nothing (ABI.md §1.2, deviation in tests/sim/README.md).
 */
int sim_disconnect(struct sim_model *m, struct sim_dev *d, const char *buf,
		   size_t len)
{
	struct sim_tsm *holder = d->ctx_tsm ? d->ctx_tsm : d->lock_tsm;

	if (!holder)
		return -ENXIO;
	if (!sim_sysfs_streq(buf, len, holder->name))
		return -EINVAL;
	if (!d->ctx_tsm || d->ctx_dsm != d)
		return -EFAULT;
	do_disconnect(m, d);
	return 0;
}

/*
 * pci_tsm_unregister() (drivers/pci/tsm/core.c 7b30e72c28f0): every context
 * of @t goes, the way a disconnect and an unlock take them (streams
 * unregistered, pools refilled, links gone) - except a locked TDI with a
 * driver bound: pci_tsm_unlock() WARNs and keeps it.
 */
void sim_tsm_teardown(struct sim_model *m, struct sim_tsm *t)
{
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];

		if (is_dsm(d) && d->ctx_tsm == t)
			do_disconnect(m, d);
		if (d->lock_tsm == t && !d->driver)
			sim_unlock_dev(d);
	}
	for (size_t i = 0; i < m->nr_devs; i++)
		if (m->devs[i]->ctx_tsm == t)
			clear_ctx(m->devs[i]);
	/* device_unregister() takes tsmN/pciDDDD:BB with the directory; the entry may stay */
	for (size_t i = 0; i < m->nr_hbs; i++)
		if (m->hbs[i]->link_owner == t && m->hbs[i]->link_refs)
			m->hbs[i]->link_stale = true;
}

static void vanish_one(struct sim_dev *d, void *arg)
{
	struct sim_model *m = arg;

	if (!d->present)
		return;
	/* pci_tsm_destroy(): a DSM disconnects, a dependent just loses its context */
	if (is_dsm(d))
		do_disconnect(m, d);
	else if (d->ctx_tsm)
		clear_ctx(d);
	/* proposed: a locked TDI is unlocked */
	sim_unlock_dev(d);
	/* device_del(): the driver goes, the device leaves the deferred list */
	free(d->driver);
	d->driver = NULL;
	free(d->deferred);
	d->deferred = NULL;
	free(d->driver_override);
	d->driver_override = NULL;
	d->present = false;
}

/* Surprise removal of @d: its subtree and VFs first, then itself. */
void sim_vanish(struct sim_model *m, struct sim_dev *d)
{
	walk_subtree(d, true, vanish_one, m);
	for (unsigned i = d->nr_vfs_total; i > 0; i--)
		vanish_one(d->vfs[i - 1], m);
	vanish_one(d, m);
}

int sim_boot_connects(struct sim_model *m, char **err)
{
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];
		long id;
		int rc;

		if (!d->boot_connect)
			continue;
		rc = sim_parse_tsm_name(d->boot_connect, strlen(d->boot_connect), &id);
		if (!rc)
			rc = sim_connect(m, d, id);
		d->boot_h = d->boot_r = d->boot_e = -1;
		if (rc) {
			*err = sim_xasprintf("%s: build-time connect to %s failed: %s",
					     d->name, d->boot_connect, strerror(-rc));
			return rc;
		}
	}
	/* after all connects, so dependent functions have their contexts */
	for (size_t i = 0; i < m->nr_devs; i++) {
		struct sim_dev *d = m->devs[i];

		if (!d->boot_bound)
			continue;
		if (!d->ctx_tsm) {
			*err = sim_xasprintf("%s: \"bound\" needs a TSM context (connect it or its DSM)",
					     d->name);
			return -EINVAL;
		}
		d->bound = true;
	}
	return 0;
}

/*
 * The devsec sample's test triggers (samples/devsec/link_tsm.c, intel-staging/tdx
 * 28c48e992e59): tsm_bind_store(), tsm_unbind_store(), tsm_request_store().
 * ENODEV without such a device (bus_find_device_by_name()), ENXIO unless
 * this TSM holds its context (pci_tsm_host()); a request goes through
 * pci_tsm_guest_req(): ENXIO unless bound, then the sample answers 0.
 */
int sim_sample_trigger(struct sim_model *m, struct sim_tsm *t, const char *buf,
		       size_t len, enum sim_sample_op op)
{
	struct sim_dev *d = NULL;

	for (size_t i = 0; i < m->nr_devs && !d; i++)
		if (m->devs[i]->present && sim_sysfs_streq(buf, len, m->devs[i]->name))
			d = m->devs[i];
	if (!d)
		return -ENODEV;
	if (!t->registered || d->ctx_tsm != t)
		return -ENXIO;
	if (op == SAMPLE_REQUEST)
		return d->bound ? 0 : -ENXIO;
	d->bound = op == SAMPLE_BIND;
	return 0;
}
