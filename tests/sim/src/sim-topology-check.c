// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-topology-check.c: the checks a loaded topology must pass as a whole
 * (what no single object can say of itself: duplicates, cross-references).
 */
#include <errno.h>
#include <string.h>

#include "sim.h"

/* 0, or -EINVAL with *err set to the first problem. */
int sim_topology_check(const struct sim_model *m, char **err)
{
	if (m->abi == ABI_NONE && m->nr_tsms) {
		*err = sim_xasprintf("abi \"none\" (no PCI TSM support) cannot have TSMs");
		return -EINVAL;
	}
	for (size_t i = 0; i < m->nr_devs; i++) {
		const struct sim_dev *d = m->devs[i];

		for (size_t j = 0; j < i; j++)
			if (!strcmp(m->devs[j]->name, d->name)) {
				*err = sim_xasprintf("%s: duplicate device", d->name);
				return -EINVAL;
			}
		if (sim_dev_is_pcie(d) && sim_config_ext_end(d) > 4096) {
			*err = sim_xasprintf("%s: extended capabilities exceed 4096 bytes",
					     d->name);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < m->nr_tsms; i++)
		for (size_t j = 0; j < m->tsms[i]->nr_hbs; j++) {
			bool ok = false;

			for (size_t k = 0; k < m->nr_hbs; k++)
				ok |= !strcmp(m->hbs[k]->name, m->tsms[i]->hbs[j]);
			if (!ok) {
				*err = sim_xasprintf("%s: unknown host bridge %s",
						     m->tsms[i]->name, m->tsms[i]->hbs[j]);
				return -EINVAL;
			}
		}
	return 0;
}
