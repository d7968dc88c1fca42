// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-main.c: the tsm-sim command line: "build" a static tree, "mount" a live one. */
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage:\n"
		" tsm-sim build TOPOLOGY.json DIR\n"
		" tsm-sim mount [-f] [-d] [--config-cycle-ns N] TOPOLOGY.json DIR\n"
		" tsm-sim gen-large [--functions N] [--host-bridges H] [--streams S]\n"
		"                   [--abi v6.19|proposed] [--switch-depth D] [--sel-blocks K]\n"
		"                   [--addr-assoc A] [--faulty F] [--ext-caps X] [--dependents]\n"
		"                   [--port-ide] [--tdx] [--fanout] [--empty-slots E] [--vmd]\n"
		"                   [--crowded C] [--evidence] OUT.json\n"
		" tsm-sim modprobe MOUNT [-r] [-q] [--first-time] MODULE [PARAM=VALUE...]\n"
		"\n"
		"Lay out (build) or serve through FUSE (mount) the sysfs tree a\n"
		"Linux v6.19 kernel with PCIe TSM/IDE support would show for\n"
		"TOPOLOGY, with DIR standing for /; or write the topology of a large\n"
		"SEV-TIO host (gen-large) with exactly N PCI functions (10000) under\n"
		"H host bridges (64) and S connected streams (1024), in other shapes: D\n"
		"switches deep (1), K Selective blocks a NIC (2) of A address\n"
		"associations (1), F faulty streams and dangling links (0), X other\n"
		"extended capabilities (0), contexts for a DSM's other functions and\n"
		"VFs, IDE on every port without a stream, or an Intel TDX Connect\n"
		"host (--tdx); with a switch port for every other device (--fanout),\n"
		"E empty hot-plug slots, every host bridge a VMD domain, or C of the\n"
		"streams on one host bridge, device evidence on every connected NIC\n"
		"(--evidence, proposed ABI); or load and remove the topology's\n"
		"modules in a live mount (modprobe).\n"
		"\n"
		"Options for mount:\n"
		" -f  stay in the foreground\n"
		" -d  FUSE debug output (implies -f)\n"
		" --config-cycle-ns N  a config read sleeps N ns per config access (0)\n"
		" -h, --help  show this help\n");
}

/* Load the topology and bring it to its boot state: IDE init, build-time connects. */
static int load(const char *file, struct sim_model **m)
{
	char *err = NULL;
	int rc = sim_topology_load(file, m, &err);

	if (!rc)
		rc = sim_module_boot(*m, &err);
	if (!rc) {
		sim_ide_boot(*m);
		rc = sim_boot_connects(*m, &err);
		if (!rc)
			rc = sim_boot_locks(*m, &err);
		if (rc) {
			sim_model_free(*m);
			*m = NULL;
		}
	}
	if (rc) {
		fprintf(stderr, "tsm-sim: %s\n", err ? err : strerror(-rc));
		free(err);
	}
	return rc;
}

/*
 * The live mount serves device evidence: the certificate chains the
 * topology names, from TSM_SIM_CERTS or the certs/ beside this program
 * (make -C tests/sim builds them there).
 */
static int load_chains(struct sim_model *m)
{
	const char *env = getenv("TSM_SIM_CERTS");
	char exe[4096], *dir, *err = NULL;
	ssize_t n;
	int rc;

	if (env && *env) {
		dir = sim_xstrdup(env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n < 0)
			return -errno;
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		dir = sim_path_join(exe, "certs");
	}
	rc = sim_evidence_load_chains(m, dir, &err);
	if (rc) {
		fprintf(stderr, "tsm-sim: %s\n", err);
		free(err);
	}
	free(dir);
	return rc;
}

/* A decimal count for a gen-large option; false when it is not one. */
static bool count_arg(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out <= max;
}

static int gen_main(int argc, char **argv)
{
	struct sim_gen_params p = {
		.functions = 10000, .host_bridges = 64, .streams = 1024, .abi = "v6.19",
		.switch_depth = 1, .sel_blocks = 2, .addr_assoc = 1,
	};
	static const struct { const char *name; size_t off; } counts[] = {
		{ "--functions", offsetof(struct sim_gen_params, functions) },
		{ "--host-bridges", offsetof(struct sim_gen_params, host_bridges) },
		{ "--streams", offsetof(struct sim_gen_params, streams) },
		{ "--switch-depth", offsetof(struct sim_gen_params, switch_depth) },
		{ "--sel-blocks", offsetof(struct sim_gen_params, sel_blocks) },
		{ "--addr-assoc", offsetof(struct sim_gen_params, addr_assoc) },
		{ "--faulty", offsetof(struct sim_gen_params, faulty) },
		{ "--ext-caps", offsetof(struct sim_gen_params, ext_caps) },
		{ "--empty-slots", offsetof(struct sim_gen_params, empty_slots) },
		{ "--crowded", offsetof(struct sim_gen_params, crowded) },
	};
	static const struct { const char *name; size_t off; } flags[] = {
		{ "--dependents", offsetof(struct sim_gen_params, dependents) },
		{ "--port-ide", offsetof(struct sim_gen_params, port_ide) },
		{ "--fanout", offsetof(struct sim_gen_params, fanout) },
		{ "--vmd", offsetof(struct sim_gen_params, vmd) },
	};
	const char *out = NULL;
	char *err = NULL;
	bool abi_set = false;
	int rc;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		unsigned long *dst = NULL;
		bool *flag = NULL;

		if (a[0] != '-' || !a[1]) {
			if (out) {
				usage(stderr);
				return 2;
			}
			out = a;
			continue;
		}
		for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (!strcmp(a, flags[k].name))
				flag = (bool *)((char *)&p + flags[k].off);
		if (flag) {
			*flag = true;
			continue;
		}
		if (!strcmp(a, "--tdx") || !strcmp(a, "--evidence")) {
			/* TDX Connect and device evidence are the proposed series: its ABI unless told otherwise */
			if (!abi_set)
				p.abi = "proposed";
			p.tdx |= !strcmp(a, "--tdx");
			p.evidence |= !strcmp(a, "--evidence");
			continue;
		}
		v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
			if (n == strlen(counts[k].name) && !strncmp(a, counts[k].name, n))
				dst = (unsigned long *)((char *)&p + counts[k].off);
		if (!dst && !strncmp(a, "--abi", n) && n == 5 && v &&
		    (!strcmp(v, "v6.19") || !strcmp(v, "proposed"))) {
			p.abi = v;
			abi_set = true;
		}
		else if (!dst) {
			fprintf(stderr, "tsm-sim: gen-large: bad option %s\n", a);
			usage(stderr);
			return 2;
		}
		if (dst && !count_arg(v, 100000000, dst)) {
			fprintf(stderr, "tsm-sim: gen-large: %.*s needs a count\n",
				(int)n, a);
			return 2;
		}
	}
	if (!out) {
		usage(stderr);
		return 2;
	}
	rc = sim_gen_large(&p, out, &err);
	if (rc) {
		fprintf(stderr, "tsm-sim: gen-large: %s\n", err ? err : strerror(-rc));
		free(err);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sim_model *m;
	bool fg = false, debug = false;
	int i = 2, rc;

	/*
	 * glibc sizes its arena limit from /sys/devices/system/cpu/online once
	 * there are more than eight; under run-upstream that /sys is this very
	 * mount, and a FUSE thread reading it would wait on itself. A fixed
	 * limit never reads it.
	 */
	mallopt(M_ARENA_MAX, 8);
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
		rc = sim_tree_sync(m, argv[3]);
		if (rc)
			fprintf(stderr, "tsm-sim: writing %s: %s\n", argv[3],
				strerror(-rc));
		sim_model_free(m);
		return rc ? 1 : 0;
	}
	if (!strcmp(argv[1], "gen-large"))
		return gen_main(argc, argv);
	if (!strcmp(argv[1], "modprobe"))
		return sim_modprobe_main(argc, argv);
	if (!strcmp(argv[1], "mount")) {
		for (; i < argc && argv[i][0] == '-'; i++) {
			if (!strcmp(argv[i], "-f"))
				fg = true;
			else if (!strcmp(argv[i], "-d"))
				fg = debug = true;
			else if (!strcmp(argv[i], "--config-cycle-ns") && i + 1 < argc &&
				 !sim_cost_set_cycle_ns(argv[i + 1]))
				i++;
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
		if (load_chains(m)) {
			sim_model_free(m);
			return 1;
		}
		rc = sim_fuse_serve(m, argv[i + 1], fg, debug);
		sim_model_free(m);
		return rc ? 1 : 0;
	}
	usage(stderr);
	return 2;
}
