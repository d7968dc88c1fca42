// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-control.c: the live mount's test-only control file, DIR/tsm-sim-control
 * (outside sys/, so no tool reading sysfs meets it). One command per write:
 *
 *   register tsmN          a TSM not registered now (late, or unregistered)
 *                          calls tsm_register()
 *   pci-register tsmN      a change_manually TSM's PCI registration (KOBJ_CHANGE)
 *   unregister tsmN        tsm_unregister(): its contexts are torn down first
 *   drop BDF rp|ep|both    the stream of DSM BDF drops to INSECURE on that
 *                          partner (the asynchronous Secure->Insecure transition)
 *   ide-fail BDF rp|ep|both  that partner's status gets bit 31 (received IDE Fail)
 *   modprobe NAME [PARAM=VALUE...]  sim_module_load() (sim-module.c)
 *   rmmod NAME             sim_module_unload()
 *   evidence-validate on|off   the device-evidence family offers validate or not
 *   evidence-sockopt ext_ack|cap_ack on|off  the options new connections have
 *   evidence-refresh tsmN on|off   its provider has refresh_evidence or not
 *   evidence-fault BDF refresh AFTER [TIMES]        after AFTER whole dumps of
 *                                                   BDF (and then after each of
 *                                                   TIMES - 1 more), its evidence
 *                                                   is refreshed, as another
 *                                                   reader's nonce refreshes it
 *   evidence-fault BDF eagain|remove-tsm AFTER [TIMES]  the next TIMES (1)
 *                          dumps of BDF's evidence, after AFTER messages, see
 *                          a refresh race them (EAGAIN) or its TSM unregistered
 *
 * The register/unregister steps and their uevents are sim-fuse-timer.c's (they take
 * the lock twice); this file checks the command and does the register edits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define IDE_FAIL_BIT 0x80000000u

static int partner(const char *s, bool *rp, bool *ep)
{
	*rp = !strcmp(s, "rp") || !strcmp(s, "both");
	*ep = !strcmp(s, "ep") || !strcmp(s, "both");
	return *rp || *ep ? 0 : -EINVAL;
}

static int stream_fault(struct sim_model *m, const char *verb, const char *bdf,
			const char *which)
{
	struct sim_dev *d = sim_model_find_dev(m, bdf);
	struct sim_ide_stream *s;
	bool rp, ep;

	if (partner(which, &rp, &ep))
		return -EINVAL;
	if (!d || !d->present)
		return -ENODEV;
	s = d->stream;
	if (!s || !s->name)
		return -ENXIO;	/* no registered stream: nothing to fault */
	if (!strcmp(verb, "drop")) {
		if (rp)
			s->rp->ide.sel[s->r].sts &= ~0xfu;
		if (ep)
			s->ep->ide.sel[s->e].sts &= ~0xfu;
	} else {
		if (rp)
			s->rp->ide.sel[s->r].sts |= IDE_FAIL_BIT;
		if (ep)
			s->ep->ide.sel[s->e].sts |= IDE_FAIL_BIT;
	}
	return 0;
}

static int on_off(const char *s, bool *v)
{
	if (strcmp(s, "on") && strcmp(s, "off"))
		return -EINVAL;
	*v = !strcmp(s, "on");
	return 0;
}

static int count(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || *s < '0' || *s > '9' ? -EINVAL : 0;
}

/* evidence-fault BDF eagain|remove-tsm|refresh AFTER [TIMES]: ENODEV without such a device or evidence */
static int evidence_fault(struct sim_model *m, char **w, int n)
{
	struct sim_dev *d = sim_model_find_dev(m, w[1]);
	long after, times = 1;

	if ((strcmp(w[2], "eagain") && strcmp(w[2], "remove-tsm") && strcmp(w[2], "refresh")) ||
	    count(w[3], &after) || (n == 5 && (count(w[4], &times) || !times)))
		return -EINVAL;
	if (!d || !sim_evidence_present(m, d))
		return -ENODEV;
	d->ev.fault = !strcmp(w[2], "eagain") ? EVF_EAGAIN :
		      !strcmp(w[2], "refresh") ? EVF_REFRESH : EVF_REMOVE_TSM;
	d->ev.fault_after = after;
	d->ev.fault_times = times;
	return 0;
}

static int evidence_knob(struct sim_model *m, char **w, int n)
{
	struct sim_tsm *t;

	if (n == 2 && !strcmp(w[0], "evidence-validate"))
		return on_off(w[1], &m->ev_validate);
	if (n == 3 && !strcmp(w[0], "evidence-sockopt") && !strcmp(w[1], "ext_ack"))
		return on_off(w[2], &m->ev_ext_ack);
	if (n == 3 && !strcmp(w[0], "evidence-sockopt") && !strcmp(w[1], "cap_ack"))
		return on_off(w[2], &m->ev_cap_ack);
	if (n == 3 && !strcmp(w[0], "evidence-refresh")) {
		t = NULL;
		for (size_t i = 0; i < m->nr_tsms && !t; i++)
			if (!strcmp(m->tsms[i]->name, w[1]))
				t = m->tsms[i];
		return t ? on_off(w[2], &t->evidence_refresh) : -ENXIO;
	}
	if ((n == 4 || n == 5) && !strcmp(w[0], "evidence-fault"))
		return evidence_fault(m, w, n);
	return -EINVAL;
}

/* A registered TSM by its name now, else an unregistered one by the topology's name. */
static struct sim_tsm *tsm_by_name(struct sim_model *m, const char *name)
{
	for (size_t i = 0; i < m->nr_tsms; i++)
		if (m->tsms[i]->registered && !strcmp(m->tsms[i]->name, name))
			return m->tsms[i];
	for (size_t i = 0; i < m->nr_tsms; i++)
		if (!m->tsms[i]->registered && !strcmp(m->tsms[i]->decl_name, name))
			return m->tsms[i];
	return NULL;
}

int sim_control_apply(struct sim_model *m, const char *buf, size_t len,
		      enum sim_control_op *op, struct sim_tsm **tsm)
{
	char *line = strndup(buf, len), *w[64] = { 0 }, *save = NULL;
	int n = 0, rc = -EINVAL;

	*op = CTL_NONE;
	*tsm = NULL;
	if (!line)
		return -ENOMEM;
	for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (n == 64)
			goto out;
		w[n++] = t;
	}
	if (n == 2 && (!strcmp(w[0], "register") || !strcmp(w[0], "unregister"))) {
		bool reg = !strcmp(w[0], "register");
		struct sim_tsm *t = tsm_by_name(m, w[1]);

		if (!t)
			rc = -ENXIO;
		else if (reg && t->registered)
			rc = -EEXIST;
		else if (!reg && !t->registered)
			rc = -ENXIO;
		else if (reg && t->parent_faux && !sim_module_live(m, t->parent_faux))
			rc = -ENODEV;	/* its module (the faux parent) is not loaded */
		else {
			*op = reg ? CTL_REGISTER : CTL_UNREGISTER;
			*tsm = t;
			rc = 0;
		}
	} else if (n == 2 && !strcmp(w[0], "pci-register")) {
		struct sim_tsm *t = tsm_by_name(m, w[1]);

		if (!t || !t->registered || !t->change_manually)
			rc = -ENXIO;	/* only a registered TSM that waits for it */
		else if (t->pci_ready)
			rc = -EEXIST;
		else {
			*op = CTL_PCI_REGISTER;
			*tsm = t;
			rc = 0;
		}
	} else if (n == 3 && (!strcmp(w[0], "drop") || !strcmp(w[0], "ide-fail"))) {
		rc = stream_fault(m, w[0], w[1], w[2]);
	} else if (n >= 2 && !strcmp(w[0], "modprobe")) {
		rc = sim_module_load(m, w[1], w + 2, n - 2);
		*op = CTL_MODULE;
	} else if (n == 2 && !strcmp(w[0], "rmmod")) {
		rc = sim_module_unload(m, w[1]);
		*op = CTL_MODULE;
	} else if (n >= 2 && !strncmp(w[0], "evidence-", 9)) {
		rc = evidence_knob(m, w, n);
	}
out:
	free(line);
	return rc;
}
