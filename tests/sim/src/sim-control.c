// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-control.c: the live mount's test-only control file, DIR/tsm-sim-control
 * (outside sys/, so no tool reading sysfs meets it). One command per write:
 *
 *   register tsmN          a TSM not registered now (late, or unregistered)
 *                          calls tsm_register()
 *   unregister tsmN        tsm_unregister(): its contexts are torn down first
 *   drop BDF rp|ep|both    the stream of DSM BDF drops to INSECURE on that
 *                          partner (the asynchronous Secure->Insecure transition)
 *   ide-fail BDF rp|ep|both  that partner's status gets bit 31 (received IDE Fail)
 *   modprobe NAME [PARAM=VALUE...]  sim_module_load() (sim-module.c)
 *   rmmod NAME             sim_module_unload()
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
	} else if (n == 3 && (!strcmp(w[0], "drop") || !strcmp(w[0], "ide-fail"))) {
		rc = stream_fault(m, w[0], w[1], w[2]);
	} else if (n >= 2 && !strcmp(w[0], "modprobe")) {
		rc = sim_module_load(m, w[1], w + 2, n - 2);
		*op = CTL_MODULE;
	} else if (n == 2 && !strcmp(w[0], "rmmod")) {
		rc = sim_module_unload(m, w[1]);
		*op = CTL_MODULE;
	}
out:
	free(line);
	return rc;
}
