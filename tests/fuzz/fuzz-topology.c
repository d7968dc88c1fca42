// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the simulator's topology loader (tests/sim/src), linked
 * with every simulator object except sim-main.c. The input is a topology file:
 * it is handed over through a memfd, since sim_topology_load() takes a path. A
 * topology that loads is brought to its boot state as `tsm-sim build` does
 * (IDE enumeration, build-time connects and locks) and its config spaces are
 * laid out; nothing is written to disk.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void boot(struct sim_model *m)
{
	char *err = NULL;

	sim_ide_boot(m);
	if (!sim_boot_connects(m, &err))
		sim_boot_locks(m, &err);
	free(err);
	for (size_t i = 0; i < m->nr_devs; i++) {
		size_t n = sim_config_size(m->devs[i]);
		uint8_t *buf = calloc(1, n ? n : 1);

		if (!buf)
			abort();
		sim_config_build(m->devs[i], buf);
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_model *m = NULL;
	char path[64], *err = NULL;
	int fd = memfd_create("topology", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!sim_topology_load(path, &m, &err)) {
		if (!m || err)
			abort();	/* success means a model and no message */
		boot(m);
	} else if (m || !err) {
		abort();	/* failure means no model and a message */
	}
	sim_model_free(m);
	free(err);
	close(fd);
	return 0;
}
