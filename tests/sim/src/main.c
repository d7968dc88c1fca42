// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c: the tsm-sim command line: "build" a static tree, "mount" a live one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		" tsm-sim build TOPOLOGY.json DIR\n"
		" tsm-sim mount [-f] [-d] TOPOLOGY.json DIR\n"
		"\n"
		"Lay out (build) or serve through FUSE (mount) the sysfs tree a\n"
		"Linux v6.19 kernel with PCIe TSM/IDE support would show for\n"
		"TOPOLOGY, with DIR standing for /.\n"
		"\n"
		"Options for mount:\n"
		" -f  stay in the foreground\n"
		" -d  FUSE debug output (implies -f)\n"
		" -h, --help  show this help\n");
}

/* Load the topology and bring it to its boot state: IDE init, build-time connects. */
static int load(const char *file, struct sim_model **m)
{
	char *err = NULL;
	int rc = topology_load(file, m, &err);

	if (!rc) {
		ide_boot(*m);
		rc = sim_boot_connects(*m, &err);
		if (!rc)
			rc = sim_boot_locks(*m, &err);
		if (rc) {
			model_free(*m);
			*m = NULL;
		}
	}
	if (rc) {
		fprintf(stderr, "tsm-sim: %s\n", err ? err : strerror(-rc));
		free(err);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct sim_model *m;
	bool fg = false, debug = false;
	int i = 2, rc;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "build")) {
		if (argc != 4) {
			usage(stderr);
			return 2;
		}
		if (load(argv[2], &m))
			return 1;
		rc = tree_sync(m, argv[3]);
		if (rc)
			fprintf(stderr, "tsm-sim: writing %s: %s\n", argv[3],
				strerror(-rc));
		model_free(m);
		return rc ? 1 : 0;
	}
	if (!strcmp(argv[1], "mount")) {
		for (; i < argc && argv[i][0] == '-'; i++) {
			if (!strcmp(argv[i], "-f"))
				fg = true;
			else if (!strcmp(argv[i], "-d"))
				fg = debug = true;
			else {
				usage(stderr);
				return 2;
			}
		}
		if (argc - i != 2) {
			usage(stderr);
			return 2;
		}
		if (load(argv[i], &m))
			return 1;
		rc = fuse_serve(m, argv[i + 1], fg, debug);
		model_free(m);
		return rc ? 1 : 0;
	}
	usage(stderr);
	return 2;
}
