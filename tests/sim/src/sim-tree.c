// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-tree.c: mirrors the model into a sysfs-shaped tree. It is idempotent:
 * every call makes the tree match the model (writing only what changed and
 * removing what the kernel would no longer show), so the static build and
 * the live mount share one writer.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define RO 0444
#define RW 0644
#define WO 0200

struct tw {
	struct sim_model *m;
	const char *root;
	int rc;		/* first error */
};

static void note(struct tw *w, int rc)
{
	if (rc && !w->rc)
		w->rc = rc;
}

static void attr(struct tw *w, const char *dir, const char *name,
		 const char *content, unsigned mode)
{
	char *p = sim_path_join(dir, name);

	note(w, sim_fs_put_str(w->root, p, content, mode));
	free(p);
}

static void attrf(struct tw *w, const char *dir, const char *name,
		  unsigned mode, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* attr() with printf-style content */
static void attrf(struct tw *w, const char *dir, const char *name,
		  unsigned mode, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sim_xvasprintf(fmt, ap);
	va_end(ap);
	attr(w, dir, name, s, mode);
	free(s);
}

static void attr_opt(struct tw *w, const char *dir, const char *name,
		     bool visible, const char *content, unsigned mode)
{
	char *p = sim_path_join(dir, name);

	if (visible)
		note(w, sim_fs_put_str(w->root, p, content, mode));
	else
		note(w, sim_fs_remove(w->root, p));
	free(p);
}

static void link_to(struct tw *w, const char *dir, const char *name,
		    const char *target_path)
{
	char *p = sim_path_join(dir, name);
	char *t = sim_rel_link(dir, target_path);

	note(w, sim_fs_link(w->root, p, t));
	free(t);
	free(p);
}

static void rm(struct tw *w, const char *dir, const char *name)
{
	char *p = name ? sim_path_join(dir, name) : sim_xstrdup(dir);

	note(w, sim_fs_remove(w->root, p));
	free(p);
}

/* Remove symlinks in @dir starting with @prefix that @keep rejects. */
static void prune_links(struct tw *w, const char *dir, const char *prefix,
			bool (*keep)(struct tw *, const void *, const char *),
			const void *ctx)
{
	char *p = sim_path_join(w->root, dir);
	DIR *dh = opendir(p);
	struct dirent *de;

	free(p);
	if (!dh)
		return;
	while ((de = readdir(dh)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)) &&
		    de->d_type == DT_LNK && !keep(w, ctx, de->d_name))
			rm(w, dir, de->d_name);
	closedir(dh);
}

/* Class device DIR (class CLASS, NAME) of OWNER: uevent, device, subsystem, sys/class/CLASS/NAME */
static void write_class_dev(struct tw *w, const char *class, const char *name, const char *dir,
			    const char *owner)
{
	char *cls = sim_xasprintf("sys/class/%s", class);

	note(w, sim_fs_mkdir_p(w->root, dir));
	attr(w, dir, "uevent", "", RW);
	link_to(w, dir, "device", owner);
	link_to(w, dir, "subsystem", cls);
	note(w, sim_fs_mkdir_p(w->root, cls));
	link_to(w, cls, name, dir);
	free(cls);
}

/*
 * firmware_upload_register(dev, "tdx_module") (tdx-host.c seamldr_init(),
 * torvalds/linux 637315cb400e): a "firmware" class device below tdx_host
 * with the upload attributes of drivers/base/firmware_loader/sysfs.c
 * (loading, data) and sysfs_upload.c (status, error, cancel, remaining_size).
 */
static void write_fw_upload(struct tw *w, const struct sim_faux *f, bool present)
{
	char *dir = sim_xasprintf("%s/firmware/tdx_module", f->dir);
	char *glue = sim_xasprintf("%s/firmware", f->dir);

	if (!present) {
		rm(w, "sys/class/firmware", "tdx_module");
		rm(w, glue, NULL);
	} else {
		write_class_dev(w, "firmware", "tdx_module", dir, f->dir);
		attr(w, dir, "loading", "0\n", RW);
		attr(w, dir, "data", "", RW);
		attr(w, dir, "cancel", "", WO);
		attr(w, dir, "status", "idle\n", RO);
		attr(w, dir, "error", "", RO);
		attr(w, dir, "remaining_size", "0\n", RO);
	}
	free(glue);
	free(dir);
}

/*
 * tdx-host.c (torvalds/linux 637315cb400e): the module version on any TDX
 * host (tdx_host_group), the P-SEAMLDR's admin-only attributes and the
 * tdx_module upload device only with runtime updates (seamldr_group_visible(),
 * seamldr_init()).
 */
static void write_tdx_host(struct tw *w, const struct sim_faux *f)
{
	const struct sim_tdx_host *x = &w->m->tdx;
	char *n;

	if (!x->present || strcmp(f->name, "tdx_host"))
		return;
	attrf(w, f->dir, "version", RO, "%s\n", x->version);
	n = x->seamldr_version ? sim_xasprintf("%s\n", x->seamldr_version) : NULL;
	attr_opt(w, f->dir, "seamldr_version", n, n ? n : "", 0400);
	free(n);
	n = sim_xasprintf("%ld\n", x->remaining_updates);
	attr_opt(w, f->dir, "num_remaining_updates", x->seamldr_version, n, 0400);
	free(n);
	write_fw_upload(w, f, x->seamldr_version);
}

/* samples/devsec/link_tsm.c devsec_link_groups: with the faux device, from module load */
static bool has_sample_triggers(const struct sim_model *m, const struct sim_faux *f)
{
	for (size_t i = 0; i < m->nr_tsms; i++)
		if (m->tsms[i]->provider == PROV_DEVSEC_SAMPLE && m->tsms[i]->kind == TSM_LINK &&
		    m->tsms[i]->parent_faux && !strcmp(m->tsms[i]->parent_faux, f->name))
			return true;
	return false;
}

static void write_faux(struct tw *w, const struct sim_faux *f)
{
	char *bl = sim_xasprintf("sys/bus/faux/devices/%s", f->name);
	char *dl = sim_xasprintf("sys/bus/faux/drivers/faux_driver/%s", f->name);
	bool evidence = false;

	if (!f->present) {
		/* faux_device_destroy() */
		if (w->m->tdx.present && !strcmp(f->name, "tdx_host"))
			write_fw_upload(w, f, false);
		rm(w, f->dir, NULL);
		rm(w, bl, NULL);
		rm(w, dl, NULL);
		free(dl);
		free(bl);
		return;
	}
	free(dl);
	free(bl);
	note(w, sim_fs_mkdir_p(w->root, f->dir));
	/* the devsec sample's evidence inputs: binary, 0644 (common.c BIN_ATTR_RW) */
	for (size_t i = 0; i < w->m->nr_tsms; i++)
		evidence |= w->m->tsms[i]->evidence_inputs &&
			    !strcmp(w->m->tsms[i]->parent_faux, f->name);
	attr_opt(w, f->dir, "certs", evidence, "", RW);
	attr_opt(w, f->dir, "transcript", evidence, "", RW);
	if (has_sample_triggers(w->m, f)) {
		attr(w, f->dir, "tsm_bind", "", WO);
		attr(w, f->dir, "tsm_unbind", "", WO);
		attr(w, f->dir, "tsm_request", "", WO);
	}
	write_tdx_host(w, f);
	attr(w, f->dir, "uevent", "DRIVER=faux_driver\n", RW);
	link_to(w, f->dir, "subsystem", "sys/bus/faux");
	link_to(w, f->dir, "driver", "sys/bus/faux/drivers/faux_driver");
	note(w, sim_fs_mkdir_p(w->root, "sys/bus/faux/devices"));
	note(w, sim_fs_mkdir_p(w->root, "sys/bus/faux/drivers/faux_driver"));
	link_to(w, "sys/bus/faux/devices", f->name, f->dir);
	link_to(w, "sys/bus/faux/drivers/faux_driver", f->name, f->dir);
}

/* platform devices: only those bound to the driver of their own name occur */
static void write_platform(struct tw *w, const struct sim_platform *p)
{
	char *drv = sim_xasprintf("sys/bus/platform/drivers/%s", p->name);
	char *ue = sim_xasprintf("DRIVER=%s\nMODALIAS=platform:%s\n", p->name,
				 p->name);
	char *ma = sim_xasprintf("platform:%s\n", p->name);

	note(w, sim_fs_mkdir_p(w->root, p->dir));
	attr(w, p->dir, "uevent", ue, RW);
	attr(w, p->dir, "modalias", ma, RO);
	attr(w, p->dir, "driver_override", "(null)\n", RW);
	link_to(w, p->dir, "subsystem", "sys/bus/platform");
	link_to(w, p->dir, "driver", drv);
	note(w, sim_fs_mkdir_p(w->root, "sys/bus/platform/devices"));
	note(w, sim_fs_mkdir_p(w->root, drv));
	link_to(w, "sys/bus/platform/devices", p->name, p->dir);
	link_to(w, drv, p->name, p->dir);
	free(ma);
	free(ue);
	free(drv);
}

/* sys/bus/pci/drivers/NAME with the driver core's and PCI's store-only attributes */
static void write_driver(struct tw *w, const struct sim_driver *drv)
{
	static const char *const stores[] = { "bind", "unbind", "uevent",
					      "new_id", "remove_id" };
	char *dir = sim_xasprintf("sys/bus/pci/drivers/%s", drv->name);

	if (!sim_driver_registered(w->m, drv)) {
		rm(w, dir, NULL);
	} else {
		note(w, sim_fs_mkdir_p(w->root, dir));
		for (size_t i = 0; i < sizeof(stores) / sizeof(stores[0]); i++)
			attr(w, dir, stores[i], "", WO);
		if (sim_model_find_module(w->m, drv->name)) {
			char *mod = sim_xasprintf("sys/module/%s", drv->name);

			link_to(w, dir, "module", mod);
			free(mod);
		}
	}
	free(dir);
}

static void write_module(struct tw *w, const struct sim_module *mod)
{
	char *dir = sim_xasprintf("sys/module/%s", mod->name);
	char *pdir = sim_path_join(dir, "parameters");

	if (!mod->loaded) {
		rm(w, dir, NULL);
		free(pdir);
		free(dir);
		return;
	}
	note(w, sim_fs_mkdir_p(w->root, dir));
	attr(w, dir, "initstate", "live\n", RO);
	attr(w, dir, "refcnt", "0\n", RO);
	for (size_t i = 0; i < mod->nr_params; i++) {
		char *v = sim_xasprintf("%s\n", mod->vals[i]);

		attr(w, pdir, mod->keys[i], v, RO);
		free(v);
	}
	free(pdir);
	free(dir);
}

static bool keep_stream(struct tw *w, const void *ctx, const char *name)
{
	return sim_ide_stream_name_taken(w->m, ctx, name);
}

/*
 * The pci_bus class device of bus DOMAIN:BUS below its owner (the host
 * bridge for a root bus, the bridge for the others): OWNER/pci_bus/DDDD:BB
 * and sys/class/pci_bus/DDDD:BB (drivers/pci/probe.c pci_register_host_bridge(),
 * pci_add_new_bus(); attributes of drivers/pci/pci-sysfs.c pcibus_attrs).
 */
static void write_pci_bus(struct tw *w, const char *owner, unsigned domain,
			  unsigned bus, bool present)
{
	char *name = sim_xasprintf("%04x:%02x", domain, bus);
	char *dir = sim_xasprintf("%s/pci_bus/%s", owner, name);

	if (!present) {
		rm(w, "sys/class/pci_bus", name);
	} else {
		write_class_dev(w, "pci_bus", name, dir, owner);
		attr(w, dir, "cpuaffinity", "ff\n", RO);
		attr(w, dir, "cpulistaffinity", "0-7\n", RO);
		attr(w, dir, "rescan", "", WO);
	}
	free(dir);
	free(name);
}

/* Every directory on the way to a host bridge is a kobject: each has a uevent. */
static void write_hb_parents(struct tw *w, const struct sim_host_bridge *hb)
{
	char *p = sim_xstrdup(hb->dir), *slash;

	while ((slash = strrchr(p, '/')) && slash - p > (ptrdiff_t)strlen("sys/devices")) {
		char *u;

		*slash = '\0';
		u = sim_path_join(p, "uevent");
		if (!sim_fs_exists(w->root, u))
			note(w, sim_fs_put_str(w->root, u, "", RW));
		free(u);
	}
	free(p);
}

static void write_hb(struct tw *w, struct sim_host_bridge *hb)
{
	char *v;

	if (!hb->present) {
		write_pci_bus(w, hb->dir, hb->domain, hb->bus, false);
		rm(w, hb->dir, NULL);
		return;
	}
	v = sim_xasprintf("%u\n", sim_hb_available(hb));
	note(w, sim_fs_mkdir_p(w->root, hb->dir));
	write_hb_parents(w, hb);
	attr(w, hb->dir, "uevent", "", RW);
	write_pci_bus(w, hb->dir, hb->domain, hb->bus, true);
	if (hb->acpi) {
		/* ACPI companion: firmware_node and its physical_node back */
		note(w, sim_fs_mkdir_p(w->root, hb->acpi));
		attr(w, hb->acpi, "uevent", "", RW);
		attr(w, hb->acpi, "path", "\\_SB_.PCI0\n", RO);
		link_to(w, hb->dir, "firmware_node", hb->acpi);
		link_to(w, hb->acpi, "physical_node", hb->dir);
	}
	/* hidden when the pool size is 0 (pci_ide_attr_visible) */
	attr_opt(w, hb->dir, "available_secure_streams", hb->nr_streams > 0, v,
		 RO);
	free(v);
	prune_links(w, hb->dir, "stream", keep_stream, hb);
	for (struct sim_ide_stream *s = w->m->streams; s; s = s->next)
		if (s->hb == hb && s->name)
			link_to(w, hb->dir, s->name, s->ep->dir);
	for (size_t i = 0; i < hb->nr_dangling; i++) {
		char *p = sim_path_join(hb->dir, hb->dangling[i].name);

		note(w, sim_fs_link(w->root, p, hb->dangling[i].target));
		free(p);
	}
}

static void remove_dev(struct tw *w, struct sim_dev *d)
{
	char *bl = sim_xasprintf("sys/bus/pci/devices/%s", d->name);

	if (sim_config_is_bridge(d) && d->secondary)
		write_pci_bus(w, d->dir, d->domain, d->secondary, false);
	rm(w, d->dir, NULL);
	rm(w, bl, NULL);
	free(bl);
	for (size_t i = 0; i < w->m->nr_drivers; i++) {
		char *dl = sim_xasprintf("sys/bus/pci/drivers/%s/%s",
					 w->m->drivers[i].name, d->name);

		rm(w, dl, NULL);
		free(dl);
	}
	if (d->physfn && d->physfn->present) {
		for (unsigned i = 0; i < d->physfn->nr_vfs_total; i++)
			if (d->physfn->vfs[i] == d) {
				char *n = sim_xasprintf("virtfn%u", i);

				rm(w, d->physfn->dir, n);
				free(n);
			}
	}
}

static void write_ids(struct tw *w, struct sim_dev *d)
{
	attrf(w, d->dir, "vendor", RO, "0x%04x\n", d->vendor);
	attrf(w, d->dir, "device", RO, "0x%04x\n", d->device);
	attrf(w, d->dir, "class", RO, "0x%06x\n", d->class);
	attrf(w, d->dir, "subsystem_vendor", RO, "0x%04x\n", d->subvendor);
	attrf(w, d->dir, "subsystem_device", RO, "0x%04x\n", d->subdevice);
	attrf(w, d->dir, "revision", RO, "0x%02x\n", d->revision);
	attrf(w, d->dir, "uevent", RW,
	      "%s%s%sPCI_CLASS=%X\nPCI_ID=%04X:%04X\n"
	      "PCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n"
	      "MODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n",
	      d->driver ? "DRIVER=" : "", d->driver ? d->driver : "",
	      d->driver ? "\n" : "", d->class, d->vendor, d->device,
	      d->subvendor, d->subdevice, d->name, d->vendor, d->device,
	      d->subvendor, d->subdevice, d->class >> 16,
	      (d->class >> 8) & 0xff, d->class & 0xff);
}

/* pci_speed_string() + " PCIe", as current_link_speed/max_link_speed print it */
static const char *link_speed(unsigned speed)
{
	static const char *const names[] = {
		"Unknown", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
		"16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe",
	};

	return speed < sizeof(names) / sizeof(names[0]) ? names[speed] : "Unknown";
}

/* a memory BAR's resource flags: IORESOURCE_MEM|SIZEALIGN[|PREFETCH][|MEM_64] and the BAR's low bits */
static uint64_t bar_flags(const struct sim_bar *b)
{
	uint64_t f = 0x200 | 0x40000;

	if (b->prefetch)
		f |= 0x2000 | 0x8;
	if (b->is64)
		f |= 0x100000 | 0x4;
	return f;
}

/*
 * resource_show(): 13 lines (BARs, ROM, SR-IOV BARs), 17 for a bridge (its
 * windows after); "0x%016llx 0x%016llx 0x%016llx" start, end, flags. A
 * 64-bit bridge window shows as zeros ("for backwards compatibility").
 */
static char *resource_text(const struct sim_dev *d, bool bridge)
{
	char *s = sim_xstrdup(""), *n;

	for (int i = 0; i < (bridge ? 17 : 13); i++) {
		uint64_t start = 0, end = 0, flags = 0;

		if (i < 6 && d->bars[i].present && d->bars[i].size) {
			start = d->bars[i].base;
			end = start + d->bars[i].size - 1;
			flags = bar_flags(&d->bars[i]);
		} else if (i == 14 && bridge && d->mem.present) {
			start = d->mem.base;
			end = d->mem.limit;
			flags = 0x200;
		}
		n = sim_xasprintf("%s0x%016llx 0x%016llx 0x%016llx\n", s,
				  (unsigned long long)start, (unsigned long long)end,
				  (unsigned long long)flags);
		free(s);
		s = n;
	}
	return s;
}

/* runtime PM as a device without a driver asking for it shows (drivers/base/power/sysfs.c) */
static void write_power(struct tw *w, const struct sim_dev *d)
{
	static const char *const files[][2] = {
		{ "async", "enabled\n" }, { "control", "on\n" },
		{ "runtime_active_kids", "0\n" }, { "runtime_active_time", "0\n" },
		{ "runtime_enabled", "forbidden\n" }, { "runtime_status", "active\n" },
		{ "runtime_suspended_time", "0\n" }, { "runtime_usage", "0\n" },
	};
	char *dir = sim_path_join(d->dir, "power");

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		attr(w, dir, files[i][0], files[i][1],
		     !strcmp(files[i][0], "async") || !strcmp(files[i][0], "control") ? RW : RO);
	free(dir);
}

/*
 * The rest of a PCI function's attributes as v6.19 shows them
 * (drivers/pci/pci-sysfs.c pci_dev_attrs, pcie_dev_attrs, pci_bridge_attrs,
 * the resource files of pci_create_resource_files(), reset): what lspci and
 * other tools read besides the ids and config. The host has 8 CPUs, no NUMA.
 */
static void write_std_attrs(struct tw *w, struct sim_dev *d)
{
	bool bridge = sim_config_is_bridge(d);
	bool link = sim_dev_is_pcie(d) && d->type != PT_RCIEP && d->type != PT_RCEC;
	char *s;

	s = resource_text(d, bridge);
	attr(w, d->dir, "resource", s, RO);
	free(s);
	attr(w, d->dir, "irq", "0\n", RO);
	attr(w, d->dir, "local_cpus", "ff\n", RO);
	attr(w, d->dir, "local_cpulist", "0-7\n", RO);
	attr(w, d->dir, "numa_node", "-1\n", RW);
	attr(w, d->dir, "enable", d->driver ? "1\n" : "0\n", RW);
	attr(w, d->dir, "msi_bus", "1\n", RW);
	attr(w, d->dir, "power_state", "D0\n", RO);
	attr(w, d->dir, "dma_mask_bits", "32\n", RO);
	attr(w, d->dir, "consistent_dma_mask_bits", "32\n", RO);
	attr(w, d->dir, "broken_parity_status", "0\n", RW);
	attr(w, d->dir, "ari_enabled", "0\n", RO);
	attr(w, d->dir, "d3cold_allowed", "1\n", RW);
	attr(w, d->dir, "remove", "", WO);
	attr(w, d->dir, "rescan", "", WO);
	attrf(w, d->dir, "modalias", RO,
	      "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X\n", d->vendor,
	      d->device, d->subvendor, d->subdevice, d->class >> 16,
	      (d->class >> 8) & 0xff, d->class & 0xff);
	/* reset and reset_method only where a reset method exists (FLR, or a bus reset below a bridge) */
	attr_opt(w, d->dir, "reset", d->flr || d->parent, "", WO);
	s = sim_xasprintf("%s%s%s\n", d->flr ? "flr" : "", d->flr && d->parent ? " " : "",
			  d->parent ? "bus" : "");
	attr_opt(w, d->dir, "reset_method", d->flr || d->parent, s, RW);
	free(s);
	if (sim_dev_is_pcie(d)) {
		unsigned speed = link ? d->link_speed : 0, width = link ? d->link_width : 0;

		attr(w, d->dir, "current_link_speed", link_speed(speed), RO);
		attr(w, d->dir, "max_link_speed", link_speed(speed), RO);
		s = sim_xasprintf("%u\n", width);
		attr(w, d->dir, "current_link_width", s, RO);
		attr(w, d->dir, "max_link_width", s, RO);
		free(s);
	}
	if (bridge) {
		attrf(w, d->dir, "secondary_bus_number", RO, "%u\n", d->secondary);
		attrf(w, d->dir, "subordinate_bus_number", RO, "%u\n", d->subordinate);
	}
	for (int i = 0; i < 6; i++) {
		const struct sim_bar *b = &d->bars[i];
		char *n;

		if (!b->present || !b->size)
			continue;
		/* binary, size of the BAR, root only; _wc for prefetchable memory */
		n = sim_xasprintf("%s/resource%d", d->dir, i);
		note(w, sim_fs_put_sized(w->root, n, b->size, 0600));
		free(n);
		if (b->prefetch) {
			n = sim_xasprintf("%s/resource%d_wc", d->dir, i);
			note(w, sim_fs_put_sized(w->root, n, b->size, 0600));
			free(n);
		}
		if (b->is64)
			i++;	/* the upper half is no BAR of its own */
	}
	write_power(w, d);
}

static void write_sriov(struct tw *w, struct sim_dev *d)
{
	char *s;

	if (d->physfn) {
		link_to(w, d->dir, "physfn", d->physfn->dir);
		return;
	}
	if (!d->nr_vfs_total)
		return;
	for (unsigned i = 0; i < d->nr_vfs_total; i++) {
		char *n = sim_xasprintf("virtfn%u", i);

		if (i < d->nr_vfs && d->vfs[i]->present)
			link_to(w, d->dir, n, d->vfs[i]->dir);
		else
			rm(w, d->dir, n);
		free(n);
	}
	s = sim_xasprintf("%u\n", d->nr_vfs_total);
	attr(w, d->dir, "sriov_totalvfs", s, RO);
	free(s);
	s = sim_xasprintf("%u\n", d->nr_vfs);
	attr(w, d->dir, "sriov_numvfs", s, 0664);
	free(s);
	attrf(w, d->dir, "sriov_offset", RO, "%u\n", d->vf_offset);
	attrf(w, d->dir, "sriov_stride", RO, "%u\n", d->vf_stride);
	attrf(w, d->dir, "sriov_vf_device", RO, "%x\n", d->vf_device);
	attr(w, d->dir, "sriov_drivers_autoprobe", "1\n", RW);
}

static void write_doe(struct tw *w, struct sim_dev *d)
{
	char *dir = sim_path_join(d->dir, "doe_features");

	if (d->nr_doe) {
		note(w, sim_fs_mkdir_p(w->root, dir));
		for (size_t i = 0; i < d->nr_doe; i++) {
			char *v = sim_xasprintf("%s\n", d->doe[i]);
			bool disc = !strcmp(d->doe[i], "0001:00");

			/* discovery shows up under its own name (ABI.md §1.2) */
			attr(w, dir, disc ? "doe_discovery" : d->doe[i], v, RO);
			free(v);
		}
	}
	free(dir);
}

static void write_tsm_group(struct tw *w, struct sim_dev *d)
{
	struct sim_model *m = w->m;
	char *dir = sim_path_join(d->dir, "tsm");
	/* connect and lock both name the context's TSM, whichever kind */
	const char *ctx = d->ctx_tsm ? d->ctx_tsm->name :
			  d->lock_tsm ? d->lock_tsm->name : "";
	bool con = sim_vis_connect(m, d), dsm = sim_vis_dsm(m, d), bnd = sim_vis_bound(m, d);
	bool dev = sim_vis_devsec(m, d);
	/* connect_show() names pdev->tsm's TSM of either kind (drivers/pci/tsm/core.c 7b30e72c28f0) */
	char *c = sim_xasprintf("%s\n", ctx);
	/* dsm/bound of a locked function 0 oops in the kernel (no DSM): read empty here */
	char *s = sim_xasprintf("%s\n", d->ctx_tsm ? d->ctx_dsm->name : "");
	char *b = sim_xasprintf("%s\n", d->bound ? ctx : "");

	attr_opt(w, dir, "connect", con, c, RW);
	attr_opt(w, dir, "disconnect", con, "", WO);
	attr_opt(w, dir, "dsm", dsm, s, RO);
	attr_opt(w, dir, "bound", bnd, b, RO);
	attr_opt(w, dir, "lock", dev, c, RW);
	attr_opt(w, dir, "accept", dev, d->accepted ? "1\n" : "0\n", RW);
	attr_opt(w, dir, "unlock", dev, "", WO);
	if (!(con || dsm || bnd || dev)) {
		/* rmdir only succeeds when empty: the PSP's class glue dir stays */
		char *p = sim_path_join(w->root, dir);

		rmdir(p);
		free(p);
	}
	attr_opt(w, d->dir, "authenticated", sim_vis_link_group(m, d), c, RO);
	free(b);
	free(s);
	free(c);
	free(dir);
}

static void write_dev(struct tw *w, struct sim_dev *d)
{
	size_t sz = sim_config_size(d);
	uint8_t *cfg;
	char *p;

	if (!d->present) {
		remove_dev(w, d);
		return;
	}
	note(w, sim_fs_mkdir_p(w->root, d->dir));
	write_ids(w, d);
	cfg = sim_xcalloc(1, sz);
	sim_config_build(d, cfg);
	p = sim_path_join(d->dir, "config");
	note(w, sim_fs_put(w->root, p, cfg, sz, RW));
	free(p);
	free(cfg);
	link_to(w, d->dir, "subsystem", "sys/bus/pci");
	link_to(w, "sys/bus/pci/devices", d->name, d->dir);
	if (d->driver) {
		char *drv = sim_xasprintf("sys/bus/pci/drivers/%s", d->driver);

		link_to(w, d->dir, "driver", drv);
		link_to(w, drv, d->name, d->dir);
		free(drv);
	} else {
		rm(w, d->dir, "driver");
	}
	/* a driver bound at run time may have been unbound, or replaced */
	for (size_t i = 0; i < w->m->nr_drivers; i++)
		if (!d->driver || strcmp(d->driver, w->m->drivers[i].name)) {
			char *dl = sim_xasprintf("sys/bus/pci/drivers/%s/%s",
						 w->m->drivers[i].name, d->name);

			rm(w, dl, NULL);
			free(dl);
		}
	attrf(w, d->dir, "driver_override", RW, "%s\n",
	      d->driver_override ? d->driver_override : "(null)");
	write_std_attrs(w, d);
	/* every bridge scanned has its secondary bus, an empty slot's too (set_buses()) */
	if (sim_config_is_bridge(d) && d->secondary)
		write_pci_bus(w, d->dir, d->domain, d->secondary, true);
	write_sriov(w, d);
	write_doe(w, d);
	write_tsm_group(w, d);
	note(w, sim_platform_dev_sync(w->m, d, w->root));
}

static bool keep_pci_link(struct tw *w, const void *ctx, const char *name)
{
	for (size_t i = 0; i < w->m->nr_hbs; i++)
		if (!strcmp(w->m->hbs[i]->name, name))
			return sim_hb_links_tsm(w->m, w->m->hbs[i], ctx);
	return false;
}

static bool keep_tsm_stream(struct tw *w, const void *ctx, const char *name)
{
	for (struct sim_ide_stream *s = w->m->streams; w->m->rc1_links && s; s = s->next)
		if (s->tsm == ctx && s->tsm_registered && s->name &&
		    !strcmp(s->name, name))
			return true;
	return false;
}

/* Before tsm_register() (late TSMs) or after tsm_unregister(): no class device. */
static void remove_tsm(struct tw *w, struct sim_tsm *t)
{
	char *glue = sim_xstrdup(t->dir), *slash = strrchr(glue, '/'), *p;
	bool taken = false;

	/* another TSM may carry the number now (ida) */
	for (size_t i = 0; i < w->m->nr_tsms; i++)
		taken |= w->m->tsms[i] != t && w->m->tsms[i]->registered &&
			 !strcmp(w->m->tsms[i]->name, t->name);
	if (!taken)
		rm(w, "sys/class/tsm", t->name);
	rm(w, t->dir, NULL);
	/* the driver core drops the class glue dir ("tsm") with its last child */
	if (slash) {
		*slash = '\0';
		p = sim_path_join(w->root, glue);
		rmdir(p);
		free(p);
	}
	free(glue);
}

static void write_tsm(struct tw *w, struct sim_tsm *t)
{
	const char *parent = t->parent_pci ? t->parent_pci->dir : NULL;

	for (size_t i = 0; !parent && t->parent_faux && i < w->m->nr_faux; i++)
		if (!strcmp(w->m->faux[i].name, t->parent_faux))
			parent = w->m->faux[i].dir;
	for (size_t i = 0; !parent && i < w->m->nr_platform; i++)
		if (!strcmp(w->m->platform[i].name, t->parent_platform))
			parent = w->m->platform[i].dir;
	if (!t->registered) {
		remove_tsm(w, t);
		return;
	}
	note(w, sim_fs_mkdir_p(w->root, t->dir));
	attr(w, t->dir, "uevent", "", RW);
	link_to(w, t->dir, "device", parent);
	link_to(w, t->dir, "subsystem", "sys/class/tsm");
	link_to(w, "sys/class/tsm", t->name, t->dir);
	/*
	 * tsm_pci_visible(): pci_mode once pci_ops is set; tsm_register_pci_or_reset()
	 * updates the group after pci_tsm_register(), just before KOBJ_CHANGE
	 * (intel-staging/tdx da2ae199703c, drivers/virt/coco/tsm-core.c)
	 */
	attr_opt(w, t->dir, "pci_mode", w->m->abi == ABI_PROPOSED && t->pci_ready,
		 t->kind == TSM_LINK ? "link\n" : "devsec\n", RO);
	/* proposed: tsmN/pciDDDD:BB while this TSM has streams there */
	prune_links(w, t->dir, "pci", keep_pci_link, t);
	for (size_t i = 0; i < w->m->nr_hbs; i++)
		if (sim_hb_links_tsm(w->m, w->m->hbs[i], t))
			link_to(w, t->dir, w->m->hbs[i]->name, w->m->hbs[i]->dir);
	/* 6.19-rc1: tsmN/streamH.R.E -> the endpoint */
	prune_links(w, t->dir, "stream", keep_tsm_stream, t);
	for (struct sim_ide_stream *s = w->m->streams; w->m->rc1_links && s; s = s->next)
		if (s->tsm == t && s->tsm_registered && s->name)
			link_to(w, t->dir, s->name, s->ep->dir);
}

/* proc/iomem, and debugfs' devices_deferred (drivers/base/dd.c deferred_devs_show) */
static void write_proc(struct tw *w)
{
	char *s = sim_iomem_render(w->m);

	attr(w, "proc", "iomem", s, RO);
	free(s);
	if (!w->m->debugfs)
		return;
	s = sim_xstrdup("");
	for (size_t i = 0; i < w->m->nr_devs; i++) {
		const struct sim_dev *d = w->m->devs[i];
		char *n;

		if (!d->present || !d->deferred)
			continue;
		n = sim_xasprintf("%s%s\t%s", s, d->name, d->deferred);
		free(s);
		s = n;
	}
	attr(w, "sys/kernel/debug", "devices_deferred", s, RO);
	free(s);
}

int sim_tree_sync(struct sim_model *m, const char *root)
{
	struct tw w = { .m = m, .root = root };

	if (mkdir(root, 0755) && errno != EEXIST)
		return -errno;
	note(&w, sim_fs_mkdir_p(root, "sys/devices"));
	note(&w, sim_fs_mkdir_p(root, "sys/bus/pci/devices"));
	note(&w, sim_fs_mkdir_p(root, "sys/bus/pci/drivers"));
	note(&w, sim_fs_mkdir_p(root, "sys/module"));
	for (size_t i = 0; i < m->nr_faux; i++)
		write_faux(&w, &m->faux[i]);
	for (size_t i = 0; i < m->nr_platform; i++)
		write_platform(&w, &m->platform[i]);
	for (size_t i = 0; i < m->nr_drivers; i++)
		write_driver(&w, &m->drivers[i]);
	/* configfs-tsm: the report group; its items are sim_tree_sync_reports()' */
	if (m->report.present)
		note(&w, sim_fs_mkdir_p(root, REPORT_ROOT));
	for (size_t i = 0; i < m->nr_modules; i++)
		write_module(&w, &m->modules[i]);
	for (size_t i = 0; i < m->nr_hbs; i++)
		write_hb(&w, m->hbs[i]);
	for (size_t i = 0; i < m->nr_devs; i++)
		write_dev(&w, m->devs[i]);
	if (m->nr_tsms)
		note(&w, sim_fs_mkdir_p(root, "sys/class/tsm"));
	else
		rm(&w, "sys/class/tsm", NULL);
	for (size_t i = 0; i < m->nr_tsms; i++)
		if (!m->tsms[i]->registered)
			write_tsm(&w, m->tsms[i]);
	for (size_t i = 0; i < m->nr_tsms; i++)
		if (m->tsms[i]->registered)
			write_tsm(&w, m->tsms[i]);
	write_proc(&w);
	note(&w, sim_platform_sync(m, root));
	return w.rc;
}

/* The mkdir'ed report items and their provider-visible attributes. */
int sim_tree_sync_reports(struct sim_model *m, const char *root)
{
	struct tw w = { .m = m, .root = root };

	for (struct sim_report_entry *e = m->reports; e; e = e->next) {
		note(&w, sim_fs_mkdir_p(root, e->dir));
		for (int a = 0; a < RA_COUNT; a++) {
			uint8_t *v = NULL;
			size_t len = 0;
			char *p;

			if (!sim_report_attr_visible(m, a))
				continue;
			/* a backing copy of the read-only text lines; reads are served live */
			if (!sim_report_attr_is_bin(a) && sim_report_attr_mode(a) == RO &&
			    sim_report_show(m, e, a, &v, &len))
				len = 0;
			p = sim_path_join(e->dir, sim_report_attr_name(a));
			note(&w, sim_fs_put(root, p, v ? v : (const uint8_t *)"", len,
					    sim_report_attr_mode(a)));
			free(p);
			free(v);
		}
	}
	return w.rc;
}
