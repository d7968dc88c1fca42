// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-gen.c: "tsm-sim gen-large" writes the topology of a large SEV-TIO-like
 * host for benchmarks: exactly the requested number of PCI functions and
 * of established streams, spread evenly over the host bridges.
 *
 * Per host bridge (domain h/4, root bus (h%4)*0x40, so 63 secondary buses):
 *   - one root port per 8 streams, each with 8 Selective IDE blocks and a
 *     switch below it whose downstream ports lead to one TEE NIC each; the
 *     NIC's PF0 (IDE, DOE CMA+SSESSION, DEVCAP.TEE) is connected at boot;
 *   - the function budget left over goes first to those NICs (a second PF
 *     and VFs, up to 32 functions a NIC), then to extra root ports with a
 *     multi-function NVMe device and its VFs (up to 252 functions a bus);
 *   - host bridge 0 also holds the PSP (tsm0) behind an internal bridge.
 *
 * Options make the other shapes real hosts have (struct sim_gen_params): switches
 * stacked deeper, NICs with more Selective blocks (their stream on block
 * j mod K) and address associations, a TSM that gives a DSM's other
 * functions and VFs contexts, faulty streams and dangling links, IDE on
 * ports without streams, long extended-capability chains; and tree shapes:
 * a switch port for every other device (bridge-heavy), empty hot-plug
 * slots (buses with nothing on them), every host bridge a VMD domain, and
 * one host bridge crowded with streams. Host bridges that need more buses
 * than 0x40 share a domain by two, or have one each. --evidence gives every
 * connected NIC evidence (chains, VCA, signed measurements, report), its
 * chain one of gen-cert-chain's two good ones in turn, so a thousand
 * devices share two roots and two intermediates as a fleet of one vendor's
 * parts would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define STREAMS_PER_RP 8	/* Selective blocks of a root port */
#define NIC_MAX_FNS 32		/* a stream NIC: 2 PFs and their VFs */
#define NIC_FANOUT_FNS 2	/* --fanout: a stream NIC is its PF0 and one VF */
#define FILLER_MAX_FNS 252	/* 4 PFs + 248 VFs fill one bus (ARI) */
#define SWITCH_PORTS 32		/* downstream ports of a switch: one bus of 32 devices */
/* --fanout: root port, switch, a drive on each port (one with two functions) */
#define FANOUT_MAX_FNS (2 + 2 * SWITCH_PORTS + 1)
#define BUSES 0x100		/* bus numbers of a domain */
#define MAX_CROWDED 255		/* Stream ID 255 is reserved on every host bridge */
#define VMD_DOMAIN 0x10000	/* the vmd driver numbers its domains from here */
#define VMD_TOP_BUSES 4		/* the root bus of a VMD endpoint's host bridge, and the PSP's */
#define PSP_FNS 3		/* internal bridge, dummy function 0, the PSP */
#define WINDOW (256ull << 20)	/* prefetchable window per endpoint bus */
#define BAR_SIZE (32ull << 20)	/* BAR0 of each PF */
/* --switch-depth: each switch nests a topology 4 deeper, json-c parses 32 levels */
#define MAX_SWITCH_DEPTH 5

struct hb_gen {
	const struct sim_gen_params *p;
	unsigned domain, bus0, bus_end, next_bus, next_rp;
	unsigned first_slot;	/* root ports from this device number of the root bus */
	unsigned long first_stream;	/* host-wide index of this host bridge's stream 0 */
	unsigned next_stream;		/* streams made on this host bridge so far */
	uint64_t pref_next;	/* next free endpoint window */
	json_object *devices;
	json_object *devices_hb;	/* the host bridge object */
	json_object *dangling;	/* dangling_links, NULL until one is made */
};

static json_object *jstr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static json_object *jstr(const char *fmt, ...)
{
	va_list ap;
	char *s;
	json_object *o;

	va_start(ap, fmt);
	s = sim_xvasprintf(fmt, ap);
	va_end(ap);
	o = json_object_new_string(s);
	free(s);
	return o;
}

static void set(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *bdf(const struct hb_gen *g, unsigned bus, unsigned slot,
			unsigned fn)
{
	return jstr("%04x:%02x:%02x.%x", g->domain, bus, slot, fn);
}

static json_object *window(uint64_t base, uint64_t size)
{
	json_object *w = json_object_new_object();

	set(w, "base", jstr("0x%llx", (unsigned long long)base));
	set(w, "limit", jstr("0x%llx", (unsigned long long)(base + size - 1)));
	return w;
}

/* An IDE capability: Selective blocks of the shape's address associations. */
static json_object *ide_cap(const struct hb_gen *g, unsigned streams, bool link)
{
	json_object *ide = json_object_new_object();

	if (link) {
		set(ide, "link", json_object_new_boolean(true));
		set(ide, "sel_cfg", json_object_new_boolean(true));
	}
	set(ide, "streams", json_object_new_int((int)streams));
	if (g->p->addr_assoc != 1)
		set(ide, "addr_assoc", json_object_new_int((int)g->p->addr_assoc));
	return ide;
}

/* The capabilities a function carries besides those modelled (--ext-caps). */
static void ext_caps(const struct hb_gen *g, json_object *d)
{
	if (g->p->ext_caps)
		set(d, "ext_caps", json_object_new_int((int)g->p->ext_caps));
}

static json_object *port(const struct hb_gen *g, unsigned bus, unsigned slot,
			 unsigned fn, const char *type, unsigned vendor,
			 unsigned device)
{
	json_object *p = json_object_new_object();

	set(p, "bdf", bdf(g, bus, slot, fn));
	set(p, "type", json_object_new_string(type));
	set(p, "vendor", jstr("0x%04x", vendor));
	set(p, "device", jstr("0x%04x", device));
	set(p, "driver", json_object_new_string("pcieport"));
	ext_caps(g, p);
	return p;
}

/* A switch port with no stream of its own: IDE with --port-ide. */
static json_object *idle_port(const struct hb_gen *g, unsigned bus, unsigned slot,
			      const char *type)
{
	json_object *p = port(g, bus, slot, 0, type, 0x1000, 0xc030);

	if (g->p->port_ide)
		set(p, "ide", ide_cap(g, 2, true));
	return p;
}

/*
 * The fault of the host's stream S, if it is one of the --faulty ones (spread
 * evenly): IDE_FAIL on both, a later drop to INSECURE, or (SEV-TIO keeps such
 * a stream; the generic provider, as pci_ide_stream_enable(), refuses it) a
 * partner INSECURE from the start.
 */
static json_object *stream_fault(const struct sim_gen_params *p, unsigned long s)
{
	static const char *const kinds[][2] = {
		{ "ide_fail", "both" }, { "dropped", "ep" }, { "dropped", "rp" },
		{ "insecure", "rp" }, { "insecure", "ep" },
	};
	unsigned long k = s * p->faulty / p->streams;
	json_object *f;

	if (!p->faulty || k == (s + 1) * p->faulty / p->streams)
		return NULL;
	k %= p->dependents ? 3 : 5;
	f = json_object_new_object();
	set(f, kinds[k][0], json_object_new_string(kinds[k][1]));
	return f;
}

static void add_child(json_object *parent, json_object *child)
{
	json_object *c;

	if (!json_object_object_get_ex(parent, "children", &c)) {
		c = json_object_new_array();
		set(parent, "children", c);
	}
	json_object_array_add(c, child);
}

/* A new root port on the root bus: slot first + k/8, function k%8 (function 0 first). */
static json_object *root_port(struct hb_gen *g, unsigned device)
{
	unsigned k = g->next_rp++;
	json_object *rp = port(g, g->bus0, g->first_slot + k / 8, k % 8, "root_port",
			       g->p->tdx ? 0x8086 : 0x1022, g->p->tdx ? 0x352a : device);

	json_object_array_add(g->devices, rp);
	return rp;
}

/*
 * A stream link nothing accounts for, named after the host bridge's stream
 * K, below the first root port: for the host's fault F, odd to a device
 * that is not there, even to the switch port below that root port.
 */
static void dangling_link(struct hb_gen *g, unsigned k, unsigned long f)
{
	json_object *l = json_object_new_object();

	if (!g->dangling) {
		g->dangling = json_object_new_array();
		set(g->devices_hb, "dangling_links", g->dangling);
	}
	set(l, "name", jstr("stream%u.%u.0", 255 - k, k % 8));
	set(l, "target", jstr("%04x:%02x:01.0/%04x:%02x:00.0", g->domain, g->bus0, g->domain,
			      f % 2 ? 0xff : g->bus0 + 1));
	json_object_array_add(g->dangling, l);
}

/*
 * What connected NIC @k hands out (--evidence): slot 0 a chain of the two
 * good ones gen-cert-chain builds (each its own root and intermediate), in
 * turn, the VCA and the measurements generated and signed with its leaf key
 * (after the request they answer), and the report of its BAR.
 */
static json_object *nic_evidence(unsigned long k)
{
	json_object *ev = json_object_new_object(), *certs = json_object_new_array();

	json_object_array_add(certs, json_object_new_string(k % 2 ? "rsa-3072" : "ecdsa-p384"));
	set(ev, "certs", certs);
	set(ev, "vca", json_object_new_boolean(true));
	set(ev, "measurements", json_object_new_boolean(true));
	/* its GET_MEASUREMENTS in front: a reader that sends no nonce (audit) checks the signature */
	set(ev, "form", json_object_new_string("exchange"));
	set(ev, "report", json_object_new_boolean(true));
	return ev;
}

/*
 * A device of @fns functions on @bus: min(@max_pfs, @fns) PFs at
 * 00.0..00.N, the rest as VFs spread over the PFs, packed from 01.0 up.
 * @stream makes PF0 the connected DSM. Functions are appended to @parent.
 */
static void endpoint(struct hb_gen *g, json_object *parent, unsigned bus,
		     unsigned fns, unsigned max_pfs, bool stream,
		     uint64_t base, unsigned rp_block)
{
	unsigned pfs = fns < max_pfs ? fns : max_pfs, vfs = fns - pfs, rid = 8;

	for (unsigned p = 0; p < pfs; p++) {
		unsigned nvf = vfs / pfs + (p < vfs % pfs);
		json_object *d = json_object_new_object(), *bars, *bar, *v;

		set(d, "bdf", bdf(g, bus, 0, p));
		set(d, "type", json_object_new_string("endpoint"));
		set(d, "vendor", jstr("0x%04x", stream ? 0x15b3 : 0x144d));
		set(d, "device", jstr("0x%04x", stream ? 0x1021 : 0xa824));
		set(d, "class", jstr("0x%06x", stream ? 0x020000 : 0x010802));
		set(d, "driver", json_object_new_string(stream ? "mlx5_core" : "nvme"));
		if (stream)
			set(d, "tee", json_object_new_boolean(true));
		bars = json_object_new_array();
		bar = json_object_new_object();
		set(bar, "index", json_object_new_int(0));
		set(bar, "base", jstr("0x%llx", (unsigned long long)(base + p * BAR_SIZE)));
		set(bar, "size", jstr("0x%llx", (unsigned long long)BAR_SIZE));
		set(bar, "64bit", json_object_new_boolean(true));
		set(bar, "prefetchable", json_object_new_boolean(true));
		json_object_array_add(bars, bar);
		set(d, "bars", bars);
		ext_caps(g, d);
		if (stream && p == 0) {
			const struct sim_gen_params *gp = g->p;
			unsigned j = g->next_stream++;
			json_object *doe = json_object_new_array(), *ide, *conn, *fault;

			json_object_array_add(doe, json_object_new_string("0001:01"));
			json_object_array_add(doe, json_object_new_string("0001:02"));
			set(d, "doe", doe);
			ide = ide_cap(g, (unsigned)gp->sel_blocks, false);
			set(ide, "tee_limited", json_object_new_boolean(true));
			set(d, "ide", ide);
			if (gp->sel_blocks == 2) {
				conn = json_object_new_string("tsm0");
			} else {
				/* pinned, to put the stream on a later Selective block */
				conn = json_object_new_object();
				set(conn, "tsm", json_object_new_string("tsm0"));
				set(conn, "stream", jstr("%u.%u.%lu", j, rp_block, j % gp->sel_blocks));
			}
			set(d, "connected", conn);
			if (gp->evidence)
				set(d, "evidence", nic_evidence(g->first_stream + j));
			fault = stream_fault(gp, g->first_stream + j);
			if (fault)
				set(d, "faults", fault);
		}
		if (nvf) {
			v = json_object_new_object();
			set(v, "count", json_object_new_int((int)nvf));
			set(v, "offset", json_object_new_int((int)(rid - p)));
			set(v, "stride", json_object_new_int(1));
			set(v, "device", jstr("0x%04x", stream ? 0x101e : 0xa824));
			set(d, "vfs", v);
			rid += nvf;
		}
		add_child(parent, d);
	}
}

static int take_bus(struct hb_gen *g, unsigned *bus)
{
	if (g->next_bus >= g->bus_end)
		return -ENOSPC;
	*bus = g->next_bus++;
	return 0;
}

/* Room for another root port on the root bus (devices up to 31). */
static bool root_port_room(const struct hb_gen *g)
{
	return g->next_rp < (32 - g->first_slot) * 8;
}

/* The NIC of a stream: up to 32 functions as 2 PFs and their VFs, or PF0 and a VF (--fanout). */
static unsigned nic_max_pfs(const struct sim_gen_params *p)
{
	return p->fanout ? 1 : 2;
}

/*
 * Root port -> switch -> @n downstream ports -> one stream NIC each; with
 * --switch-depth D, D switches in a row (each further one below downstream
 * port 0 of the one above).
 */
static int stream_tree(struct hb_gen *g, unsigned n, const unsigned *fns)
{
	json_object *rp = root_port(g, 0x14ab), *usp, *bridges[2 * MAX_SWITCH_DEPTH + 1];
	unsigned rp_bus, usp_bus, nb = 0;
	uint64_t first = g->pref_next;

	set(rp, "ide", ide_cap(g, STREAMS_PER_RP, true));
	bridges[nb++] = rp;
	if (take_bus(g, &rp_bus) || take_bus(g, &usp_bus))
		return -ENOSPC;
	usp = idle_port(g, rp_bus, 0, "upstream_port");
	add_child(rp, usp);
	bridges[nb++] = usp;
	for (unsigned long level = 1; level < g->p->switch_depth; level++) {
		json_object *dsp = idle_port(g, usp_bus, 0, "downstream_port");
		unsigned bus;

		if (take_bus(g, &bus) || take_bus(g, &usp_bus))
			return -ENOSPC;
		add_child(usp, dsp);
		usp = idle_port(g, bus, 0, "upstream_port");
		add_child(dsp, usp);
		bridges[nb++] = dsp;
		bridges[nb++] = usp;
	}
	for (unsigned i = 0; i < n; i++) {
		json_object *dsp = idle_port(g, usp_bus, i, "downstream_port");
		unsigned bus;

		if (take_bus(g, &bus))
			return -ENOSPC;
		set(dsp, "pref_window", window(g->pref_next, WINDOW));
		endpoint(g, dsp, bus, fns[i], nic_max_pfs(g->p), true, g->pref_next, i);
		g->pref_next += WINDOW;
		add_child(usp, dsp);
	}
	for (unsigned i = 0; i < nb; i++)
		set(bridges[i], "pref_window", window(first, g->pref_next - first));
	return 0;
}

/* An extra root port with an NVMe device of @fns - 1 functions (none if 0). */
static int filler(struct hb_gen *g, unsigned fns)
{
	json_object *rp = root_port(g, 0x14ab);
	unsigned bus;

	if (fns < 2)
		return 0;
	if (take_bus(g, &bus))
		return -ENOSPC;
	if (g->p->port_ide)
		set(rp, "ide", ide_cap(g, STREAMS_PER_RP, true));
	set(rp, "pref_window", window(g->pref_next, WINDOW));
	endpoint(g, rp, bus, fns - 1, 4, false, g->pref_next, 0);
	g->pref_next += WINDOW;
	return 0;
}

/* A root port with a switch below it: the switch's upstream port, the bus of its downstream ports in *DSP_BUS. */
static int switch_below_rp(struct hb_gen *g, json_object **rp, json_object **usp, unsigned *dsp_bus)
{
	unsigned rp_bus;

	if (!root_port_room(g) || take_bus(g, &rp_bus) || take_bus(g, dsp_bus))
		return -ENOSPC;
	*rp = root_port(g, 0x14ab);
	*usp = idle_port(g, rp_bus, 0, "upstream_port");
	add_child(*rp, *usp);
	return 0;
}

/*
 * --fanout, as storage servers are built: a root port and a switch with a
 * single-function NVMe drive on each downstream port, the last drive with
 * two functions when @fns (2 + 2 per drive, at most FANOUT_MAX_FNS) is odd.
 */
static int fanout_filler(struct hb_gen *g, unsigned fns)
{
	unsigned drives = (fns - 2) / 2, dsp_bus;
	uint64_t first = g->pref_next;
	json_object *rp, *usp;

	if (fns < 4)
		return filler(g, fns);
	if (switch_below_rp(g, &rp, &usp, &dsp_bus))
		return -ENOSPC;
	if (g->p->port_ide)
		set(rp, "ide", ide_cap(g, STREAMS_PER_RP, true));
	for (unsigned i = 0; i < drives; i++) {
		json_object *dsp = idle_port(g, dsp_bus, i, "downstream_port");
		unsigned bus;

		if (take_bus(g, &bus))
			return -ENOSPC;
		set(dsp, "pref_window", window(g->pref_next, WINDOW));
		endpoint(g, dsp, bus, i + 1 == drives && fns % 2 ? 2 : 1, 4, false, g->pref_next, 0);
		g->pref_next += WINDOW;
		add_child(usp, dsp);
	}
	set(rp, "pref_window", window(first, g->pref_next - first));
	set(usp, "pref_window", window(first, g->pref_next - first));
	return 0;
}

/*
 * --empty-slots: @n hot-plug downstream ports with nothing in their slot,
 * up to 32 on a switch below a root port of its own. Each has its
 * secondary bus all the same, as the kernel adds one for every bridge it
 * scans (drivers/pci/probe.c pci_scan_bridge_extend(), torvalds/linux v6.19).
 */
static int hotplug_slots(struct hb_gen *g, unsigned long n)
{
	while (n) {
		unsigned k = n < SWITCH_PORTS ? (unsigned)n : SWITCH_PORTS, dsp_bus;
		json_object *rp, *usp;

		if (switch_below_rp(g, &rp, &usp, &dsp_bus))
			return -ENOSPC;
		for (unsigned i = 0; i < k; i++) {
			json_object *dsp = idle_port(g, dsp_bus, i, "downstream_port");
			unsigned bus;

			if (take_bus(g, &bus))
				return -ENOSPC;
			set(dsp, "secondary", jstr("0x%02x", bus));
			add_child(usp, dsp);
		}
		n -= k;
	}
	return 0;
}

/* --crowded: @n root ports on the root bus, a stream NIC right below each. */
static int crowded_tree(struct hb_gen *g, unsigned n, const unsigned *fns)
{
	for (unsigned i = 0; i < n; i++) {
		json_object *rp;
		unsigned bus;

		if (!root_port_room(g) || take_bus(g, &bus))
			return -ENOSPC;
		rp = root_port(g, 0x14ab);
		set(rp, "ide", ide_cap(g, STREAMS_PER_RP, true));
		set(rp, "pref_window", window(g->pref_next, WINDOW));
		endpoint(g, rp, bus, fns[i], nic_max_pfs(g->p), true, g->pref_next, 0);
		g->pref_next += WINDOW;
	}
	return 0;
}

/* Function @fn of the PSP's device (or the accelerator in its place on a TDX host) */
static json_object *psp_fn(const struct hb_gen *g, unsigned bus, unsigned fn,
			   const char *device, const char *class)
{
	json_object *f = json_object_new_object();

	set(f, "bdf", bdf(g, bus, 0, fn));
	set(f, "type", json_object_new_string("endpoint"));
	set(f, "vendor", jstr(g->p->tdx ? "0x8086" : "0x1022"));
	set(f, "device", jstr("%s", device));
	set(f, "class", jstr("%s", class));
	return f;
}

/*
 * The PSP as on an EPYC host: internal bridge, a dummy function 0, then ccp.
 * A TDX host has its TSM on a faux device: there, as many functions of an
 * Intel accelerator (DSA, idxd) take the place, so the counts stay the same.
 */
static int psp(struct hb_gen *g, char **psp_bdf)
{
	bool tdx = g->p->tdx;
	json_object *rp = root_port(g, 0x14a7), *f0, *f1, *bars, *bar;
	unsigned bus;

	if (take_bus(g, &bus))
		return -ENOSPC;
	set(rp, "mem_window", window(0xf0000000, 0x500000));
	f0 = psp_fn(g, bus, 0, tdx ? "0x0b25" : "0x14c9",
		    tdx ? "0x088000" : "0x130000");
	add_child(rp, f0);
	f1 = psp_fn(g, bus, 1, tdx ? "0x0b25" : "0x14ca",
		    tdx ? "0x088000" : "0x108000");
	set(f1, "driver", json_object_new_string(tdx ? "idxd" : "ccp"));
	bars = json_object_new_array();
	bar = json_object_new_object();
	set(bar, "index", json_object_new_int(2));
	set(bar, "base", jstr("0xf0300000"));
	set(bar, "size", jstr("0x100000"));
	json_object_array_add(bars, bar);
	set(f1, "bars", bars);
	add_child(rp, f1);
	*psp_bdf = sim_xasprintf("%04x:%02x:00.1", g->domain, bus);
	return 0;
}

static unsigned long share(unsigned long total, unsigned long parts,
			   unsigned long i)
{
	return total / parts + (i < total % parts);
}

/* Streams of host bridge @h: --crowded puts that many on the last one, the others share the rest. */
static unsigned long hb_streams(const struct sim_gen_params *p, unsigned long h)
{
	unsigned long last = p->host_bridges - 1;

	if (!p->crowded)
		return share(p->streams, p->host_bridges, h);
	return h == last ? p->crowded : share(p->streams - p->crowded, last, h);
}

/* Functions of host bridge @h: an even share; the crowded one at least what its streams need. */
static unsigned long hb_functions(const struct sim_gen_params *p, unsigned long h)
{
	unsigned long last = p->host_bridges - 1, crowd = 2 * p->crowded + p->vmd;

	if (!p->crowded)
		return share(p->functions, p->host_bridges, h);
	if (crowd < p->functions / p->host_bridges)
		crowd = p->functions / p->host_bridges;
	if (h == last)
		return crowd;
	return share(p->functions > crowd ? p->functions - crowd : 0, last, h);
}

/*
 * Where host bridge @h sits: @per_domain of them share a domain's buses
 * (root bus (h mod per_domain) * 0x100/per_domain); the crowded one has
 * a domain of its own, as has each VMD domain (from 10000, bus 0).
 */
static void hb_place(const struct sim_gen_params *p, unsigned long h, unsigned per_domain,
		     struct hb_gen *g)
{
	unsigned span = BUSES / per_domain;

	if (p->vmd) {
		g->domain = VMD_DOMAIN + (unsigned)h;
		g->bus0 = 0;
		g->bus_end = BUSES;
	} else if (p->crowded && h == p->host_bridges - 1) {
		g->domain = (unsigned)((h + per_domain - 1) / per_domain);
		g->bus0 = 0;
		g->bus_end = BUSES;
	} else {
		g->domain = (unsigned)(h / per_domain);
		g->bus0 = (unsigned)(h % per_domain) * span;
		g->bus_end = g->bus0 + span;
	}
	g->next_bus = g->bus0 + 1;
}

/* The host bridges[] entry of @g, its devices to come. */
static json_object *hb_object(struct hb_gen *g, json_object *hbs)
{
	json_object *o = json_object_new_object();

	g->devices = json_object_new_array();
	g->devices_hb = o;
	set(o, "domain", json_object_new_int((int)g->domain));
	set(o, "bus", jstr("0x%02x", g->bus0));
	json_object_array_add(hbs, o);
	return o;
}

/*
 * --vmd: host bridge @h's devices are an Intel VMD domain below the VMD
 * endpoint (8086:28c0, an RCiEP at 0e.0) on a host bridge of its own in
 * domain h/64, whose root bus holds nothing else (but the PSP on the first).
 */
static void vmd_parent(struct hb_gen *top, unsigned long h, json_object *hbs)
{
	unsigned per_domain = BUSES / VMD_TOP_BUSES;
	json_object *vmd = json_object_new_object(), *hb;

	top->domain = (unsigned)(h / per_domain);
	top->bus0 = (unsigned)(h % per_domain) * VMD_TOP_BUSES;
	top->bus_end = top->bus0 + VMD_TOP_BUSES;
	top->next_bus = top->bus0 + 1;
	top->first_slot = 1;
	hb = hb_object(top, hbs);
	set(hb, "devices", top->devices);
	set(vmd, "bdf", bdf(top, top->bus0, 0x0e, 0));
	set(vmd, "type", json_object_new_string("rciep"));
	set(vmd, "vendor", jstr("0x8086"));
	set(vmd, "device", jstr("0x28c0"));
	set(vmd, "class", jstr("0x010400"));
	set(vmd, "driver", json_object_new_string("vmd"));
	json_object_array_add(top->devices, vmd);
}

/* One host bridge, its stream 0 being the host's @first, laid out with @per_domain to a domain. */
static int gen_hb(const struct sim_gen_params *p, unsigned long h, unsigned per_domain,
		  unsigned long first, json_object *hbs, char **psp_bdf, char **err)
{
	unsigned long fns = hb_functions(p, h), streams = hb_streams(p, h);
	bool crowded = p->crowded && h == p->host_bridges - 1;
	unsigned long rps = crowded ? 0 : (streams + STREAMS_PER_RP - 1) / STREAMS_PER_RP;
	unsigned long empty = share(p->empty_slots, p->host_bridges, h);
	unsigned long need = 2 * rps * p->switch_depth + 2 * streams + (h == 0 ? PSP_FNS : 0) +
			     p->vmd + 2 * ((empty + SWITCH_PORTS - 1) / SWITCH_PORTS) + empty;
	unsigned long rest, extra, fillers;
	struct hb_gen g = {
		.p = p,
		.first_slot = crowded ? 0 : 1,
		.first_stream = first,
		.pref_next = 0x10000000000ull + ((uint64_t)h << 36),
	}, top = { .p = p };
	json_object *o;
	unsigned *nic;
	int rc = 0;

	if (p->vmd)
		vmd_parent(&top, h, hbs);
	hb_place(p, h, per_domain, &g);
	o = hb_object(&g, hbs);
	if (p->vmd)
		set(o, "parent", jstr("pci%04x:%02x/%04x:%02x:0e.0", top.domain, top.bus0,
				      top.domain, top.bus0));
	/* TDX: a KEYP entry (16 spare streams) where there are streams, none elsewhere */
	if (p->tdx && streams)
		set(o, "keyp_streams", json_object_new_int((int)(streams + 15 > 255 ? 255 :
								  streams + 15)));
	set(o, "devices", g.devices);
	if (fns < need) {
		*err = sim_xasprintf("host bridge %lu: %lu functions cannot hold %lu streams (%lu needed)",
				     h, fns, streams, need);
		return -EINVAL;
	}
	/* the budget beyond the minimum: first to the NICs, then to fillers */
	rest = fns - need;
	extra = streams * ((p->fanout ? NIC_FANOUT_FNS : NIC_MAX_FNS) - 1);
	if (extra > rest)
		extra = rest;
	rest -= extra;
	nic = sim_xcalloc(streams, sizeof(*nic));
	for (unsigned long i = 0; i < streams; i++)
		nic[i] = 1 + (unsigned)share(extra, streams, i);
	if (crowded)
		rc = crowded_tree(&g, (unsigned)streams, nic);
	for (unsigned long r = 0; r < rps && !rc; r++) {
		unsigned long first = r * STREAMS_PER_RP;
		unsigned long n = streams - first < STREAMS_PER_RP ?
				  streams - first : STREAMS_PER_RP;

		rc = stream_tree(&g, (unsigned)n, nic + first);
	}
	free(nic);
	/* as many dangling links as faulty streams, on the host bridges that have those */
	for (unsigned long s = first; s < first + streams && !rc && rps; s++) {
		if (stream_fault(p, s))
			dangling_link(&g, (unsigned)(s - first), s * p->faulty / p->streams);
	}
	if (!rc && h == 0)
		rc = psp(p->vmd ? &top : &g, psp_bdf);
	if (!rc)
		rc = hotplug_slots(&g, empty);
	fillers = p->fanout ? (rest + FANOUT_MAX_FNS - 1) / FANOUT_MAX_FNS :
			      (rest + FILLER_MAX_FNS) / (FILLER_MAX_FNS + 1);
	for (unsigned long j = 0; j < fillers && !rc; j++) {
		unsigned fill = (unsigned)share(rest, fillers, j);

		if (!root_port_room(&g))
			rc = -ENOSPC;
		else
			rc = p->fanout ? fanout_filler(&g, fill) : filler(&g, fill);
	}
	if (rc == -ENOSPC)
		*err = sim_xasprintf("host bridge %lu: %lu functions and %lu streams need more than %u buses; use more host bridges",
				     h, fns, streams, g.bus_end - g.bus0 - 1);
	return rc;
}

/*
 * Every host bridge, in an array of its own: with @per_domain host bridges
 * to a domain first, and when one needs more buses than that leaves it, by
 * two, then one (so gen-large's own shapes stay as they always were).
 */
static int gen_hbs(const struct sim_gen_params *p, json_object **hbs, char **psp_bdf, char **err)
{
	int rc = -ENOSPC;

	for (unsigned per_domain = 4; per_domain && rc == -ENOSPC; per_domain /= 2) {
		*hbs = json_object_new_array();
		free(*psp_bdf);
		free(*err);
		*psp_bdf = NULL;
		*err = NULL;
		rc = 0;
		for (unsigned long h = 0, first = 0; h < p->host_bridges && !rc; h++) {
			rc = gen_hb(p, h, per_domain, first, *hbs, psp_bdf, err);
			first += hb_streams(p, h);
		}
		if (rc == -ENOSPC && per_domain > 1) {
			json_object_put(*hbs);
			*hbs = NULL;
		}
	}
	return rc;
}

/* tdx-connect on tdx_host; the module hands out Stream IDs from 32 while the most streams of a host bridge fit */
static void tdx_tsm(const struct sim_gen_params *p, json_object *tsm)
{
	unsigned long most = p->crowded > hb_streams(p, 0) ? p->crowded : hb_streams(p, 0);
	json_object *mod = json_object_new_object();

	set(tsm, "provider", json_object_new_string("tdx-connect"));
	set(tsm, "parent", json_object_new_string("faux:tdx_host"));
	if (most <= 255 - 32) {
		json_object *ids = json_object_new_array();

		for (unsigned long i = 0; i < most; i++)
			json_object_array_add(ids, json_object_new_int((int)(32 + i)));
		set(tsm, "stream_ids", ids);
	}
	set(mod, "version", json_object_new_string("2.0.08"));
	set(tsm, "tdx_module", mod);
}

int sim_gen_large(const struct sim_gen_params *p, const char *out, char **err)
{
	json_object *root = json_object_new_object(), *hbs = NULL, *mods, *mod, *par,
		    *tsms, *tsm;
	char *psp_bdf = NULL, *shape = NULL;
	int rc = 0;

	*err = NULL;
	if (!p->host_bridges || p->host_bridges > 4096) {
		*err = sim_xasprintf("--host-bridges must be 1..4096");
		rc = -EINVAL;
		goto out;
	}
	if (p->evidence && strcmp(p->abi, "proposed")) {
		*err = sim_xasprintf("--evidence is the proposed ABI (the device-evidence family)");
		rc = -EINVAL;
		goto out;
	}
	if (p->tdx && (p->dependents || strcmp(p->abi, "proposed"))) {
		*err = sim_xasprintf("--tdx is the proposed ABI, and TDX Connect gives dependents "
				     "contexts itself (no --dependents)");
		rc = -EINVAL;
		goto out;
	}
	if (!p->switch_depth || p->switch_depth > MAX_SWITCH_DEPTH || !p->sel_blocks ||
	    p->sel_blocks > SIM_MAX_BLOCKS || p->addr_assoc > SIM_MAX_ASSOC ||
	    p->faulty > p->streams || p->ext_caps > SIM_MAX_EXT_CAPS) {
		*err = sim_xasprintf("--switch-depth must be 1..%u, --sel-blocks 1..%u, --addr-assoc 0..%u, "
				     "--faulty at most --streams, --ext-caps 0..%u", MAX_SWITCH_DEPTH,
				     SIM_MAX_BLOCKS, SIM_MAX_ASSOC, SIM_MAX_EXT_CAPS);
		rc = -EINVAL;
		goto out;
	}
	/* one bus per crowded stream, and no Stream ID 255; dangling link names would collide */
	if (p->crowded && (p->crowded > MAX_CROWDED || p->crowded > p->streams ||
			   p->host_bridges < 2 || p->faulty)) {
		*err = sim_xasprintf("--crowded must be 1..%u and at most --streams, with 2 or more "
				     "host bridges and no --faulty", MAX_CROWDED);
		rc = -EINVAL;
		goto out;
	}
	/* the tree shapes, named only when asked for: the comment of the others stays as it was */
	shape = sim_xasprintf("%s%s%s%.0lu%s%.0lu", p->fanout ? " --fanout" : "",
			      p->vmd ? " --vmd" : "", p->empty_slots ? " --empty-slots " : "",
			      p->empty_slots, p->crowded ? " --crowded " : "", p->crowded);
	set(root, "comment",
	    jstr("tsm-sim gen-large --functions %lu --host-bridges %lu --streams %lu "
		 "--switch-depth %lu --sel-blocks %lu --addr-assoc %lu --faulty %lu --ext-caps %lu%s%s%s%s%s: "
		 "a large %s; every stream is a TEE NIC's PF0 connected at boot",
		 p->functions, p->host_bridges, p->streams, p->switch_depth, p->sel_blocks,
		 p->addr_assoc, p->faulty, p->ext_caps, p->dependents ? " --dependents" : "",
		 p->port_ide ? " --port-ide" : "", p->tdx ? " --tdx" : "",
		 p->evidence ? " --evidence" : "", shape,
		 p->tdx ? "Intel TDX Connect host, tsm0 on tdx_host" : "SEV-TIO host, tsm0 on the PSP"));
	set(root, "abi", json_object_new_string(p->abi));
	mods = json_object_new_array();
	mod = json_object_new_object();
	par = json_object_new_object();
	set(mod, "name", json_object_new_string(p->tdx ? "tdx_host" : "ccp"));
	if (!p->tdx)
		set(par, "tio", json_object_new_string("Y"));
	set(mod, "parameters", par);
	json_object_array_add(mods, mod);
	set(root, "modules", mods);
	tsms = json_object_new_array();
	set(root, "tsms", tsms);
	rc = gen_hbs(p, &hbs, &psp_bdf, err);
	set(root, "host_bridges", hbs);
	if (rc)
		goto out;
	tsm = json_object_new_object();
	set(tsm, "id", json_object_new_int(0));
	set(tsm, "kind", json_object_new_string("link"));
	if (p->tdx) {
		tdx_tsm(p, tsm);
	} else {
		/* SEV-TIO gives a DSM's other functions no context; the generic provider does */
		set(tsm, "provider", json_object_new_string(p->dependents ? "generic" : "sev-tio"));
		set(tsm, "parent", json_object_new_string(psp_bdf));
	}
	json_object_array_add(tsms, tsm);
	if (json_object_to_file_ext(out, root, JSON_C_TO_STRING_PRETTY |
					       JSON_C_TO_STRING_NOSLASHESCAPE)) {
		*err = sim_xasprintf("%s: %s", out, json_util_get_last_err());
		rc = -EIO;
	}
out:
	free(shape);
	free(psp_bdf);
	json_object_put(root);
	return rc;
}
