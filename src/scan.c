// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One pass over sysfs → struct tsm_snapshot. Reads only what the command asked
 * for, and every file at most once: functions are cached by BDF.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/log.h"
#include "tsmctl/names.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "scan-extra.h"
#include "scan-platform.h"

static bool only_link_tsms(const struct tsm_snapshot *snap);

/* ---- function cache: open hashing on the BDF string ---- */

#define FUNC_HASH_SIZE 4096
#define SCAN_TRIES 4	/* scans of a tree that keeps moving before the last one is kept */

/*
 * The scan's own bookkeeping stays here, out of the public model: the BDF
 * cache chain and the growth of every list. A scan_func and a scan_hb start
 * with the public object, so snapshot_free() frees them as such.
 */
struct scan_func {
	struct pci_func func;
	struct scan_func *hash_next;
	bool stream_endpoint;	/* a stream's endpoint: its VF geometry is judged (audit) */
};

struct scan_hb {
	struct host_bridge hb;
	size_t cap_streams;
};

struct scan_ctx {
	struct tsm_snapshot *snap;
	unsigned int flags;
	unsigned int plan, partner_plan;	/* enum cfg_part: see read_plan() */
	bool audit_plan;	/* audit, metrics: the files the checks judge, not all a view shows */
	bool may_lock;		/* a TSM that may lock functions: devsec, or of unknown mode */
	size_t cfg_funcs, cfg_reads, cfg_bytes, cfg_cycles;	/* what config reads cost */
	size_t cap_tsms, cap_hbs, cap_funcs, cap_streams;	/* the snapshot's lists */
	struct scan_func *hash[FUNC_HASH_SIZE];
};

static unsigned int bdf_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % FUNC_HASH_SIZE;
}

static struct pci_func *cache_lookup(struct scan_ctx *ctx, const char *bdf)
{
	for (struct scan_func *sf = ctx->hash[bdf_hash(bdf)]; sf; sf = sf->hash_next)
		if (streq(sf->func.bdf, bdf))
			return &sf->func;
	return NULL;
}

static struct pci_func *func_new(struct scan_ctx *ctx, const char *bdf)
{
	struct tsm_snapshot *snap = ctx->snap;
	struct scan_func *sf = xcalloc(1, sizeof(*sf));
	struct pci_func *f = &sf->func;
	unsigned int h = bdf_hash(bdf);
	struct bdf b;

	bdf_parse(bdf, &b);
	f->bdf = xstrdup(bdf);
	f->domain = b.domain;
	f->bus = b.bus;
	f->dev = b.dev;
	f->fn = b.fn;
	xgrow(&snap->funcs, &ctx->cap_funcs, snap->nr_funcs, sizeof(*snap->funcs));
	snap->funcs[snap->nr_funcs++] = f;
	sf->hash_next = ctx->hash[h];
	ctx->hash[h] = sf;
	return f;
}

/* ---- host bridges ---- */

static struct host_bridge *hb_get(struct scan_ctx *ctx, const char *name, const char *dir)
{
	struct tsm_snapshot *snap = ctx->snap;
	struct host_bridge *hb = snapshot_find_hb(snap, name);
	unsigned int domain, bus;

	if (hb)
		return hb;
	if (hb_name_parse(name, &domain, &bus))
		return NULL;
	hb = &((struct scan_hb *)xcalloc(1, sizeof(struct scan_hb)))->hb;
	hb->name = xstrdup(name);
	hb->dir = xstrdup(dir);
	hb->domain = domain;
	hb->bus = bus;
	hb->available_streams = -1;
	xgrow(&snap->hbs, &ctx->cap_hbs, snap->nr_hbs, sizeof(*snap->hbs));
	snap->hbs[snap->nr_hbs++] = hb;
	return hb;
}

/*
 * Locate a device dir's host bridge and root port from its canonical path:
 * .../pciDDDD:BB/<root port>/.../<device>. The nearest host bridge counts:
 * an Intel VMD domain's sits below a function of another one.
 */
static void func_place(struct scan_ctx *ctx, struct pci_func *f);

static void func_set_dir(struct scan_ctx *ctx, struct pci_func *f, const char *dir)
{
	if (f->dir)
		return;
	f->dir = xstrdup(dir);
	func_place(ctx, f);
}

static struct pci_func *func_get(struct scan_ctx *ctx, const char *bdf);

static void func_place(struct scan_ctx *ctx, struct pci_func *f)
{
	char *copy = xstrdup(f->dir), *save = NULL, *hb_dir = NULL;
	const char *rp_name = NULL, *hb_name = NULL;
	char *rp_dir = NULL;
	size_t off = 0;

	for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		unsigned int d, b;

		off += strlen(tok) + 1;
		if (!hb_name_parse(tok, &d, &b)) {
			free(hb_dir);
			free(rp_dir);
			hb_dir = xstrndup(f->dir, off - 1);
			hb_name = tok;
			rp_dir = NULL;
			rp_name = NULL;
		} else if (hb_dir && !rp_name) {
			rp_name = tok;
			rp_dir = xstrndup(f->dir, off - 1);
		}
	}
	if (hb_dir)
		f->hb = hb_get(ctx, hb_name, hb_dir);
	if (rp_name && !streq(rp_name, f->bdf)) {
		char canon[BDF_MAX];

		if (!bdf_canonical(rp_name, canon) && streq(canon, rp_name)) {
			f->root_port = func_get(ctx, rp_name);
			func_set_dir(ctx, f->root_port, rp_dir);
		}
	}
	free(rp_dir);
	free(hb_dir);
	free(copy);
}

static struct pci_func *func_get(struct scan_ctx *ctx, const char *bdf)
{
	struct pci_func *f = cache_lookup(ctx, bdf);

	return f ? f : func_new(ctx, bdf);
}

/* Resolve the function's device dir through sys/bus/pci/devices/BDF. */
static void func_resolve(struct scan_ctx *ctx, struct pci_func *f)
{
	char *link, *dir;

	if (f->dir)
		return;
	link = path_join(PCI_DEVICES, f->bdf);
	if (!sysfs_resolve_link(link, &dir)) {
		func_set_dir(ctx, f, dir);
		free(dir);
	}
	free(link);
}

/*
 * The kernel's world-readable vendor, device (and class) files: a VF's own
 * IDs read 0xffff (SR-IOV 3.4.1.1), and a config file the reader may not
 * open at all (a capture kept 0600) still leaves them.
 */
static void func_read_ids(struct pci_func *f, bool with_class)
{
	unsigned long vendor, device, class;

	if (sysfs_attr_number(f->dir, "vendor", 16, 0xffff, &vendor) ||
	    sysfs_attr_number(f->dir, "device", 16, 0xffff, &device))
		return;
	if (with_class && sysfs_attr_number(f->dir, "class", 16, 0xffffff, &class))
		return;
	f->cfg.vendor_id = (uint16_t)vendor;
	f->cfg.device_id = (uint16_t)device;
	if (with_class)
		f->cfg.class_code = (uint32_t)class;
	f->ids_known = true;
}

/*
 * The read plan (pci_cfg_read()): on a host every dword of config is a
 * config cycle, so a scan reads what its commands show.
 *   devices, list, connect, watch: header, PCIe type and DEVCAP, the IDE
 *     capability and where its blocks lie (its "malformed" flag);
 *   audit, metrics (SCAN_IDE_PORTS): also both chains to their end, the
 *     Link blocks, whether each Selective block is enabled and the enabled
 *     ones' registers, but no address ranges;
 *   a stream partner: also its streams' Selective blocks with their address
 *     associations; for streams alone, nothing else.
 */
#define PLAN_DEVICE	(CFG_PART_HEADER | CFG_PART_PCIE | CFG_PART_EXT | CFG_PART_LAYOUT)
#define PLAN_AUDIT	(PLAN_DEVICE | CFG_PART_CHAINS | CFG_PART_LINK | CFG_PART_ENABLED)
#define PLAN_STREAMS	(CFG_PART_EXT | CFG_PART_SEL | CFG_PART_ADDR)

static void read_plan(struct scan_ctx *ctx)
{
	unsigned int flags = ctx->flags;

	/*
	 * Of sysfs, audit and metrics read what the checks judge: the DOE
	 * features of a device not connected (can it be?), the driver of one
	 * with tsm/lock, a dependent's PF, a stream endpoint's VF geometry.
	 */
	ctx->audit_plan = (flags & SCAN_IDE_PORTS) && !(flags & (SCAN_TREE | SCAN_DETAIL));

	ctx->plan = flags & SCAN_IDE_PORTS ? PLAN_AUDIT : PLAN_DEVICE;
	if (!(flags & (SCAN_DEVICES | SCAN_ALL_FUNCS | SCAN_IDE_PORTS)))
		ctx->partner_plan = PLAN_STREAMS;
	else
		ctx->partner_plan = ctx->plan | CFG_PART_SEL |
				    (flags & SCAN_IDE_PORTS ? 0 : CFG_PART_ADDR);
	if (flags & SCAN_DETAIL)	/* devices -v: every register there is */
		ctx->plan = ctx->partner_plan = CFG_PART_ALL;
}

/* Selective block IDX of F is shown: ask for it before F's config is read (once). */
static void want_sel_block(struct pci_func *f, unsigned int idx)
{
	if (!f->sel_want)
		f->sel_want = xcalloc(1, IDE_MAX_SEL_BLOCKS / 8);
	if (idx < IDE_MAX_SEL_BLOCKS)
		f->sel_want[idx / 8] |= (uint8_t)(1u << (idx % 8));
}

/* An open config attribute as the decoder's reader, its reads counted. */
struct cfg_file {
	int fd;
	struct scan_ctx *ctx;
};

static ssize_t cfg_file_read(void *priv, size_t off, uint8_t *buf, size_t n)
{
	struct cfg_file *file = priv;
	ssize_t got = sysfs_pread(file->fd, buf, n, (off_t)off);

	file->ctx->cfg_reads++;
	if (got > 0) {
		file->ctx->cfg_bytes += (size_t)got;
		file->ctx->cfg_cycles += pci_cfg_accesses(off, (size_t)got);
	}
	return got;
}

/* Decode WANT of the config file in DIR, its reads counted: 0 or -errno. */
static int config_read(struct scan_ctx *ctx, const char *dir, const struct cfg_want *want,
		       struct pci_cfg *cfg)
{
	struct cfg_file file = { .ctx = ctx };
	struct cfg_reader rd = { .read = cfg_file_read, .priv = &file };
	char *path = path_join(dir, "config");
	int rc;

	file.fd = sysfs_open_bin(path);
	free(path);
	if (file.fd < 0)
		return file.fd;
	ctx->cfg_funcs++;
	rc = pci_cfg_read(&rd, want, cfg);
	close(file.fd);
	return rc;
}

static void func_read_config(struct scan_ctx *ctx, struct pci_func *f)
{
	struct cfg_want want = { .parts = ctx->plan };

	if (f->cfg_read || !f->dir)
		return;
	f->cfg_read = true;
	if (f->sel_want) {
		want.parts = ctx->partner_plan;
		want.sel = ctx->plan & CFG_PART_SEL ? NULL : f->sel_want;
	}
	f->cfg_err = config_read(ctx, f->dir, &want, &f->cfg);
	if (f->cfg_err) {
		/* a device that is not there (a dangling link's target) is no access problem */
		if ((f->cfg_err == -ENOENT || f->cfg_err == -ENOTDIR) &&
		    (f->gone = sysfs_dir_state(f->dir)))
			return;
		/* a device without its config file (a hand-made tree): unreadable, said once */
		if (!ctx->snap->nr_cfg_unreadable++)
			ctx->snap->cfg_unreadable_err = f->cfg_err;
		func_read_ids(f, true);
		return;
	}
	f->ids_known = f->cfg.header_valid;
	/* a VF's own IDs, for the views that name it; no check judges them */
	if (f->cfg.header_valid && f->cfg.vendor_id == 0xffff && !ctx->audit_plan)
		func_read_ids(f, false);
	/* Non-root readers get the 64-byte header only (ABI.md §3, last line). */
	if (f->cfg.len <= PCI_CFG_HDR_SIZE && f->cfg.header_valid) {
		f->needs_root = true;
		ctx->snap->any_needs_root = true;
	}
}

/*
 * Read one optional attribute NAME of DIR (tsm/ or the device's own):
 * *present whether it exists, *err why it could not be read (0: read, or
 * absent). An error reading it may be its directory's: DIR unreachable then
 * goes to *dir_err, and the attribute counts as unknown, not as present.
 */
static char *read_opt(const char *dir, const char *name, bool *present, int *err, int *dir_err)
{
	char *value = NULL;
	int rc = sysfs_attr_text(dir, name, &value);

	*present = rc != -ENOENT;
	*err = rc == -ENOENT ? 0 : rc;
	if (rc && rc != -ENOENT && (*dir_err || (*dir_err = sysfs_dir_state(dir)))) {
		*present = false;
		*err = 0;
	}
	return rc ? NULL : value;
}

/* A value the kernel would not print: -EBADMSG (shown as malformed), else ERR. */
static int check_format(const char *value, int err, bool ok)
{
	return !err && value && *value && !ok ? -EBADMSG : err;
}

static bool tsm_name_ok(const char *s)
{
	int id;

	return s && !tsm_name_parse(s, &id);
}

static void func_read_driver(struct pci_func *f)
{
	sysfs_attr_link_name(f->dir, "driver", &f->driver);
}

/* Does TEXT name a registered devsec TSM (pci_mode devsec)? */
static bool names_devsec_tsm(const struct tsm_snapshot *snap, const char *text)
{
	const struct tsm *t = text && *text ? snapshot_find_tsm(snap, text) : NULL;

	return t && streq(t->mode, "devsec");
}

/* tsm/connect is read for streams and for devices: once. */
static void func_read_connect(struct tsm_snapshot *snap, struct pci_func *f)
{
	char *tsmdir;

	if (f->connect_read || !f->dir)
		return;
	f->connect_read = true;
	tsmdir = path_join(f->dir, "tsm");
	f->connect = read_opt(tsmdir, "connect", &f->has_connect, &f->connect_err, &f->tsm_err);
	f->connect_err = check_format(f->connect, f->connect_err, tsm_name_ok(f->connect));
	if (func_connected(f))
		f->connected_tsm = snapshot_find_tsm(snap, f->connect);
	/* connect_show() (staging core.c) names a devsec TSM's lock too: no connection */
	if (names_devsec_tsm(snap, f->connect)) {
		f->connect[0] = '\0';
		f->connected_tsm = NULL;
	}
	free(tsmdir);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* doe_features/, the features of a function's DOE mailboxes (its connectability). */
static void func_read_doe(struct pci_func *f)
{
	char *dir = path_join(f->dir, "doe_features"), **names;
	size_t n;

	/* read again (a port above several functions, a function listed again): the last read holds */
	strv_free(f->doe_features, f->nr_doe_features);
	f->doe_features = NULL;
	f->nr_doe_features = 0;
	/* without doe_features/ the features are unknown, unless there is no DOE mailbox at all */
	f->doe_known = func_cfg_known(f) && !f->cfg.nr_doe;
	if (!sysfs_list(dir, &names, &n)) {
		f->doe_known = true;
		for (size_t i = 0; i < n; i++) {
			if (streq(names[i], "doe_discovery")) {
				free(names[i]);
				names[i] = xstrdup("0001:00");
			}
		}
		if (n)
			qsort(names, n, sizeof(*names), cmp_str);
		f->doe_features = names;
		f->nr_doe_features = n;
	}
	free(dir);
}

static void func_read_tsm(struct scan_ctx *ctx, struct pci_func *f)
{
	char *tsmdir = path_join(f->dir, "tsm");
	char canon[BDF_MAX];
	int dev_err = 0;

	func_read_connect(ctx->snap, f);
	f->dsm = read_opt(tsmdir, "dsm", &f->has_dsm, &f->dsm_err, &f->tsm_err);
	f->dsm_err = check_format(f->dsm, f->dsm_err, f->dsm && !bdf_canonical(f->dsm, canon) &&
				  streq(canon, f->dsm));
	f->bound = read_opt(tsmdir, "bound", &f->has_bound, &f->bound_err, &f->tsm_err);
	f->bound_err = check_format(f->bound, f->bound_err, tsm_name_ok(f->bound));
	/* lock and accept exist only while a devsec TSM is registered (ABI.md §1.2) */
	if (ctx->may_lock) {
		f->lock = read_opt(tsmdir, "lock", &f->has_lock, &f->lock_err, &f->tsm_err);
		f->lock_err = check_format(f->lock, f->lock_err, tsm_name_ok(f->lock));
		f->accept = read_opt(tsmdir, "accept", &f->has_accept, &f->accept_err,
				     &f->tsm_err);
		/* even empty is no 0 or 1 */
		if (f->accept && !f->accept_err && !streq(f->accept, "0") && !streq(f->accept, "1"))
			f->accept_err = -EBADMSG;
	}
	/*
	 * A provider's glue dir is also named tsm/: recognise the group by its
	 * files (ABI.md §1.2). One whose files cannot be seen is kept, unknown.
	 */
	f->tsm_dir = f->has_connect || f->has_dsm || f->has_bound || f->has_lock ||
		     (f->tsm_err && f->tsm_err != -ENOENT);
	f->authenticated = read_opt(f->dir, "authenticated", &f->has_authenticated, &f->auth_err,
				    &dev_err);
	f->auth_err = check_format(f->authenticated, f->auth_err,
				   tsm_name_ok(f->authenticated) || streq(f->authenticated, "1") ||
				   streq(f->authenticated, "0"));
	/* authenticated is connect_show() as well: a lock is no authentication by a link TSM */
	if (names_devsec_tsm(ctx->snap, f->authenticated))
		f->authenticated[0] = '\0';
	free(tsmdir);
	if (!ctx->audit_plan || (f->has_connect && !func_connected(f)))
		func_read_doe(f);
	else
		f->doe_known = func_cfg_known(f) && !f->cfg.nr_doe;
}

/*
 * A dependent's PF (physfn: which DSM relation it has), and a stream
 * endpoint's VF RID geometry (do the RID associations cover its VFs).
 */
static void func_read_sriov(struct pci_func *f, bool dependent, bool stream_endpoint)
{
	static const char *const names[] = { "sriov_numvfs", "sriov_offset", "sriov_stride" };
	unsigned long v[3];

	if (dependent)
		sysfs_attr_link_name(f->dir, "physfn", &f->physfn);
	if (!stream_endpoint)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (sysfs_attr_number(f->dir, names[i], 10, 0xffff, &v[i]))
			return;
	f->has_sriov = true;
	f->sriov_numvfs = (unsigned int)v[0];
	f->sriov_offset = (unsigned int)v[1];
	f->sriov_stride = (unsigned int)v[2];
}

/* Everything the devices view shows about a function, read once. */
static void func_read_detail(struct scan_ctx *ctx, struct pci_func *f)
{
	if (f->listed)
		return;
	f->listed = true;
	func_resolve(ctx, f);
	if (!f->dir)
		return;
	func_read_config(ctx, f);
	func_read_tsm(ctx, f);
	if (!ctx->audit_plan || f->has_lock)
		func_read_driver(f);
	if (ctx->audit_plan)
		func_read_sriov(f, f->dsm && *f->dsm && !streq(f->dsm, f->bdf),
				((struct scan_func *)f)->stream_endpoint);
	else if (ctx->flags & (SCAN_IDE_PORTS | SCAN_DETAIL))
		func_read_sriov(f, true, true);
	if (ctx->flags & SCAN_DETAIL)	/* devices -v: all there is */
		scan_read_func_extras(f);
}

/* ---- TSMs ---- */

/* The provider device's own "version" (the tdx_host faux device: the TDX module's, ABI.md §2.6). */
static void read_provider_version(struct tsm *t)
{
	if (sysfs_attr_text(t->provider_dir, "version", &t->provider_version) ||
	    !*t->provider_version) {
		free(t->provider_version);
		t->provider_version = NULL;
	}
}

/* The files every TSM class device has (a capture may keep only some of them). */
static bool has_tsm_files(char **names, size_t n)
{
	static const char *const files[] = { "device", "uevent", "subsystem", "pci_mode" };

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ARRAY_SIZE(files); j++)
			if (streq(names[i], files[j]))
				return true;
	return false;
}

/* NAME in sys/class/tsm is no TSM: ERR says what it is instead (kept for the views to say). */
static void tsm_bad(struct tsm_snapshot *snap, const char *name, int err)
{
	snap->bad_tsms = xrealloc(snap->bad_tsms, (snap->nr_bad_tsms + 1) * sizeof(*snap->bad_tsms));
	snap->bad_tsms[snap->nr_bad_tsms++] = (struct bad_entry){ xstrdup(name), err };
}

/*
 * sys/class/tsm/NAME as a TSM: its directory *DIR and entries, or -errno
 * for what it is instead (struct bad_entry). A TSM is a directory with the
 * TSM's files; anything else is reported, never listed (nor waited for).
 */
static int tsm_entry(const char *name, char **dir, char ***names, size_t *n)
{
	char *link = path_join(TSM_CLASS, name);
	int rc;

	if (sysfs_resolve_link(link, dir))
		*dir = xstrdup(link);
	free(link);
	rc = sysfs_list(*dir, names, n);
	if (!rc && !has_tsm_files(*names, *n))
		rc = -ENODATA;
	if (rc) {
		strv_free(*names, *n);
		free(*dir);
		*dir = NULL;
		*names = NULL;
		*n = 0;
	}
	return rc;
}

static void tsm_read(struct scan_ctx *ctx, const char *name, int id)
{
	struct tsm_snapshot *snap = ctx->snap;
	char *dir, *path;
	struct tsm *t;
	char **names;
	size_t n;
	int rc = tsm_entry(name, &dir, &names, &n);

	if (rc) {
		tsm_bad(snap, name, rc);
		return;
	}
	t = xcalloc(1, sizeof(*t));
	t->name = xstrdup(name);
	t->id = id;
	t->dir = dir;

	t->mode_err = sysfs_attr_text(t->dir, "pci_mode", &t->mode);
	t->has_pci_mode = t->mode_err != -ENOENT;
	if (t->mode_err == -ENOENT)
		t->mode_err = 0;

	path = path_join(t->dir, "device");
	if (!sysfs_resolve_link(path, &t->provider_dir)) {
		t->provider = xstrdup(path_base(t->provider_dir));
		read_provider_version(t);
		if (!sysfs_attr_link_name(t->provider_dir, "driver", &t->driver) &&
		    sysfs_attr_link_name(t->provider_dir, "driver/module", &t->module) &&
		    sysfs_attr_exists(SYS_MODULE, t->driver))
			/* Drivers without a module link: a module of the same name, if loaded. */
			t->module = xstrdup(t->driver);
	}
	free(path);

	for (size_t i = 0; i < n; i++) {
		unsigned int d, b, h, r, e;

		/* 6.19-rc1 flavour: tsmN/streamH.R.E -> the endpoint */
		if (!stream_name_parse(names[i], &h, &r, &e)) {
			if (!t->stream_links)	/* at most one per entry: no regrowth */
				t->stream_links = xcalloc(n, sizeof(char *));
			t->stream_links[t->nr_stream_links++] = xstrdup(names[i]);
			continue;
		}
		if (hb_name_parse(names[i], &d, &b))
			continue;
		if (!t->hb_links)
			t->hb_links = xcalloc(n, sizeof(char *));
		t->hb_links[t->nr_hb_links++] = xstrdup(names[i]);
	}
	strv_free(names, n);
	xgrow(&snap->tsms, &ctx->cap_tsms, snap->nr_tsms, sizeof(*snap->tsms));
	snap->tsms[snap->nr_tsms++] = t;
}

static int cmp_tsm(const void *a, const void *b)
{
	const struct tsm *x = *(struct tsm *const *)a, *y = *(struct tsm *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

static void scan_tsms(struct scan_ctx *ctx)
{
	struct tsm_snapshot *snap = ctx->snap;
	char **names;
	size_t n;

	/* tdx-host.c: the TDX module's version on any TDX host, with TDX Connect or without */
	if (sysfs_read_text(TDX_HOST_VERSION, &snap->tdx_module_version) ||
	    !*snap->tdx_module_version) {
		free(snap->tdx_module_version);
		snap->tdx_module_version = NULL;
	}
	snap->tsm_class_err = sysfs_list(TSM_CLASS, &names, &n);
	if (snap->tsm_class_err)
		return;
	snap->have_tsm_class = true;
	for (size_t i = 0; i < n; i++) {
		int id;

		if (!tsm_name_parse(names[i], &id))
			tsm_read(ctx, names[i], id);
		else
			tsm_bad(snap, names[i], -EBADMSG);	/* the kernel names them tsm%d */
	}
	strv_free(names, n);
	if (snap->nr_tsms)
		qsort(snap->tsms, snap->nr_tsms, sizeof(*snap->tsms), cmp_tsm);
}

/* ---- host bridges and streams ---- */

/*
 * Host bridges are found from the PCI side: each bus's class device
 * sys/class/pci_bus/DDDD:BB lives in OWNER/pci_bus/, below its host bridge
 * wherever the platform put it (below sys/devices, a faux or nested
 * platform device, a VMD endpoint, ACPI dirs). A readlink per bus would
 * cost a bridge-heavy host thousands of system calls, so each domain's
 * buses are taken in order: the kernel gives each host bridge one range
 * of bus numbers (drivers/pci/probe.c), so the lowest bus of a domain is a
 * root bus, and a range ends where the next host bridge's root bus starts.
 * Host bridges directly below sys/devices say where their root buses are
 * (one listing); one readlink confirms each range and bisects one that
 * holds a host bridge found nowhere else.
 */
struct bus_entry {
	unsigned int domain, bus;
	const char *name;	/* DDDD:BB, in the class listing */
	struct host_bridge *root_of;	/* a host bridge listed below sys/devices with it as root bus */
	struct host_bridge *hb;		/* the host bridge its link leads below, once read */
	bool resolved;
};

static int bus_entry_cmp(const void *a, const void *b)
{
	const struct bus_entry *x = a, *y = b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	return (x->bus > y->bus) - (x->bus < y->bus);
}

/* The host bridge nearest above a canonical path: its last pciDDDD:BB component. */
static struct host_bridge *hb_above(struct scan_ctx *ctx, const char *path)
{
	struct host_bridge *hb = NULL;
	const char *p = path, *at = NULL, *end = NULL;

	while (*p) {
		const char *stop = strchrnul(p, '/');
		char *name = xstrndup(p, (size_t)(stop - p));
		unsigned int d, b;

		if (!hb_name_parse(name, &d, &b)) {
			at = p;
			end = stop;
		}
		free(name);
		p = *stop ? stop + 1 : stop;
	}
	if (at) {
		char *name = xstrndup(at, (size_t)(end - at)), *dir = xstrndup(path, (size_t)(end - path));

		hb = hb_get(ctx, name, dir);
		free(name);
		free(dir);
	}
	return hb;
}

/* E's host bridge, from its link: OWNER/pci_bus/DDDD:BB below it (read once). */
static struct host_bridge *bus_hb(struct scan_ctx *ctx, struct bus_entry *e)
{
	char *link, *target, *cut;

	if (e->resolved)
		return e->hb;
	e->resolved = true;
	link = path_join(PCI_BUS_CLASS, e->name);
	if (!sysfs_resolve_link(link, &target)) {
		cut = strrchr(target, '/');
		if (cut && cut - target >= 8 && !strncmp(cut - 8, "/pci_bus", 8) &&
		    streq(cut + 1, e->name)) {
			cut[-8] = '\0';
			e->hb = hb_above(ctx, target);
		}
		free(target);
	}
	free(link);
	return e->hb;
}

/* Host bridges listed directly below sys/devices, marked on their root buses' entries. */
static void mark_listed_roots(struct scan_ctx *ctx, struct bus_entry *e, size_t n)
{
	char **names;
	size_t nr;

	if (sysfs_list(SYS_DEVICES, &names, &nr))
		return;
	for (size_t i = 0; i < nr; i++) {
		struct bus_entry key = { 0 }, *hit;
		char *dir;

		if (hb_name_parse(names[i], &key.domain, &key.bus))
			continue;
		hit = bsearch(&key, e, n, sizeof(*e), bus_entry_cmp);
		if (!hit)
			continue;
		dir = path_join(SYS_DEVICES, names[i]);
		hit->root_of = hb_get(ctx, names[i], dir);
		free(dir);
	}
	strv_free(names, nr);
}

/* The buses E[0..N) of one domain: each range's host bridge, one readlink a range. */
static void find_hbs_in_domain(struct scan_ctx *ctx, struct bus_entry *e, size_t n)
{
	size_t i = 0;

	while (i < n) {
		struct host_bridge *hb = e[i].root_of ? e[i].root_of : bus_hb(ctx, &e[i]);
		size_t next = i + 1, lo, hi;

		while (next < n && !e[next].root_of)
			next++;
		/* the bus before the next known root bus is in this range, or another one starts in it */
		if (!hb || next - 1 == i || bus_hb(ctx, &e[next - 1]) == hb) {
			i = next;
			continue;
		}
		lo = i;
		hi = next - 1;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (bus_hb(ctx, &e[mid]) == hb)
				lo = mid;
			else
				hi = mid;
		}
		i = hi;
	}
}

/* false: no pci_bus class to find them by. */
static bool find_hbs_by_bus(struct scan_ctx *ctx)
{
	struct bus_entry *e;
	char **names;
	size_t n, kept = 0;

	if (sysfs_list(PCI_BUS_CLASS, &names, &n))
		return false;
	e = xcalloc(n ? n : 1, sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		char *hb_name = xasprintf("pci%s", names[i]);
		struct bus_entry one = { .name = names[i] };

		if (!hb_name_parse(hb_name, &one.domain, &one.bus))
			e[kept++] = one;
		else
			bus_hb(ctx, &one);	/* no bus name: what its link says, alone */
		free(hb_name);
	}
	qsort(e, kept, sizeof(*e), bus_entry_cmp);
	mark_listed_roots(ctx, e, kept);
	for (size_t i = 0, j; i < kept; i = j) {
		for (j = i + 1; j < kept && e[j].domain == e[i].domain; j++)
			;
		find_hbs_in_domain(ctx, e + i, j - i);
	}
	free(e);
	strv_free(names, n);
	return true;
}

/*
 * Without the pci_bus class (trees made by hand): host bridges directly
 * below sys/devices, or below a controller or faux device one level down.
 */
static void find_hbs_in(struct scan_ctx *ctx, const char *dir, int depth)
{
	char **names;
	size_t n;

	if (sysfs_list(dir, &names, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned int d, b;
		char *sub = path_join(dir, names[i]);

		if (!hb_name_parse(names[i], &d, &b))
			hb_get(ctx, names[i], sub);
		else if (depth == 0 && (streq(names[i], "faux") || streq(names[i], "platform")))
			find_hbs_in(ctx, sub, 1);
		else if (depth == 1)
			find_hbs_in(ctx, sub, 2);
		free(sub);
	}
	strv_free(names, n);
}

/* Why the resolved link target of S names no device: what is there instead. */
static int link_target_err(const struct ide_stream *s)
{
	int rc = sysfs_dir_state(s->target);

	return rc ? rc : -ENODEV;
}

/* The link and its partners; their config is read once every link is known. */
static void stream_resolve(struct scan_ctx *ctx, struct ide_stream *s)
{
	char *link = path_join(s->link_dir ? s->link_dir : s->hb->dir, s->name);
	const char *bdf;
	char canon[BDF_MAX];

	s->link_err = sysfs_resolve_link(link, &s->target);
	if (s->link_err) {
		s->dangling = true;
		goto out;
	}
	bdf = path_base(s->target);
	if (bdf_canonical(bdf, canon) || !streq(canon, bdf)) {
		s->dangling = true;
		s->link_err = link_target_err(s);
		goto out;
	}
	s->endpoint = func_get(ctx, bdf);
	func_set_dir(ctx, s->endpoint, s->target);
	want_sel_block(s->endpoint, s->e);
	if (s->endpoint->root_port)
		want_sel_block(s->endpoint->root_port, s->r);
out:
	free(link);
}

/* Each partner's config once, for every block its streams use; then tsm/connect. */
static void stream_read_partners(struct scan_ctx *ctx, struct ide_stream *s)
{
	if (!s->endpoint)
		return;
	func_read_config(ctx, s->endpoint);
	/* The config read doubles as the existence check of the link target. */
	if (!streq(s->endpoint->dir, s->target) || s->endpoint->gone) {
		s->link_err = s->endpoint->gone && streq(s->endpoint->dir, s->target) ?
			      s->endpoint->gone : link_target_err(s);
		s->endpoint = NULL;
		s->dangling = true;
		return;
	}
	if (s->endpoint->hb != s->hb)
		s->dangling = true;	/* points below another host bridge */
	((struct scan_func *)s->endpoint)->stream_endpoint = true;
	s->root_port = s->endpoint->root_port;
	if (s->root_port)
		func_read_config(ctx, s->root_port);
	func_read_connect(ctx->snap, s->endpoint);
	/* the endpoint's TSM, else the one whose directory holds the link */
	if (s->endpoint->connected_tsm)
		s->tsm = s->endpoint->connected_tsm;
}

/*
 * What a provider's address-association rule needs (an audit only, so other
 * views pay nothing): root port block R's associations, and the windows of
 * the bridge right above the endpoint, whose ranges the kernel programs.
 */
static void stream_read_assoc(struct scan_ctx *ctx, struct ide_stream *s)
{
	uint8_t sel[IDE_MAX_SEL_BLOCKS / 8] = { 0 };
	struct cfg_want want = { CFG_PART_SEL | CFG_PART_ADDR, sel };
	struct cfg_want windows = { CFG_PART_WINDOWS, NULL };
	const struct ide_sel_stream *b;
	struct pci_cfg cfg;
	char *up;

	if (!s->endpoint || !s->root_port || s->dangling || !s->root_port->dir ||
	    s->r >= IDE_MAX_SEL_BLOCKS)
		return;
	sel[s->r / 8] = (uint8_t)(1u << (s->r % 8));
	if (config_read(ctx, s->root_port->dir, &want, &cfg))
		return;
	b = ide_sel_block(&cfg.ide, s->r);
	if (b && b->nr_addr) {
		s->rp_addr = xcalloc(b->nr_addr, sizeof(*s->rp_addr));
		memcpy(s->rp_addr, b->addr, b->nr_addr * sizeof(*s->rp_addr));
		s->rp_nr_addr = b->nr_addr;
	}
	pci_cfg_release(&cfg);
	if (!b)
		return;
	up = xstrdup(s->endpoint->dir);
	*strrchr(up, '/') = '\0';
	if (!config_read(ctx, up, &windows, &cfg)) {
		s->up_mem = cfg.mem_window;
		s->up_pref = cfg.pref_window;
		s->assoc_read = true;
		pci_cfg_release(&cfg);
	}
	free(up);
}

static void hb_read_port(struct scan_ctx *ctx, struct host_bridge *hb, const char *name)
{
	char canon[BDF_MAX], *dir;
	struct pci_func *f;

	if (bdf_canonical(name, canon) || !streq(canon, name))
		return;
	f = func_get(ctx, name);
	dir = path_join(hb->dir, name);
	func_set_dir(ctx, f, dir);
	free(dir);
	func_read_config(ctx, f);
}

/* A new stream NAME of HB, in its list. */
static struct ide_stream *hb_add_stream(struct host_bridge *hb, const char *name,
					unsigned int h, unsigned int r, unsigned int e)
{
	struct scan_hb *shb = (struct scan_hb *)hb;	/* hb_get() made every host bridge */
	struct ide_stream *s = xcalloc(1, sizeof(*s));

	s->name = xstrdup(name);
	s->h = h;
	s->r = r;
	s->e = e;
	s->hb = hb;
	xgrow(&hb->streams, &shb->cap_streams, hb->nr_streams, sizeof(*hb->streams));
	hb->streams[hb->nr_streams++] = s;
	return s;
}

/* NAMES come sorted from sysfs_list(), so the list stays sorted. */
static void hb_add_bad_link(struct host_bridge *hb, const char *name)
{
	hb->bad_links = xrealloc(hb->bad_links, (hb->nr_bad_links + 1) * sizeof(*hb->bad_links));
	hb->bad_links[hb->nr_bad_links++] = xstrdup(name);
}

static void snap_add_stream(struct scan_ctx *ctx, struct ide_stream *s)
{
	struct tsm_snapshot *snap = ctx->snap;

	xgrow(&snap->streams, &ctx->cap_streams, snap->nr_streams, sizeof(*snap->streams));
	snap->streams[snap->nr_streams++] = s;
}

static void hb_scan(struct scan_ctx *ctx, struct host_bridge *hb)
{
	char **names;
	size_t n;

	if (sysfs_list(hb->dir, &names, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned int h, r, e;

		if (streq(names[i], "available_secure_streams")) {
			unsigned long v;

			/* -EBADMSG: not the kernel's "%u" */
			hb->available_err = sysfs_attr_number(hb->dir, names[i], 10, 0xffff, &v);
			if (!hb->available_err)
				hb->available_streams = (long long)v;
			continue;
		}
		if (stream_name_parse(names[i], &h, &r, &e)) {
			/* the kernel names nothing else stream*: a malformed link (ABI.md §1.3) */
			if (!strncmp(names[i], "stream", 6) && (ctx->flags & SCAN_STREAMS))
				hb_add_bad_link(hb, names[i]);
			continue;
		}
		if (ctx->flags & SCAN_STREAMS)
			hb_add_stream(hb, names[i], h, r, e);
	}
	if (hb->nr_streams)
		qsort(hb->streams, hb->nr_streams, sizeof(*hb->streams), stream_cmp);
	for (size_t i = 0; i < hb->nr_streams; i++) {
		stream_resolve(ctx, hb->streams[i]);
		snap_add_stream(ctx, hb->streams[i]);
	}
	/*
	 * Ports on the root bus of a host bridge with a pool: their IDE blocks
	 * (audit), and (devices -v) the Stream IDs they claimed at enumeration.
	 */
	if ((ctx->flags & (SCAN_IDE_PORTS | SCAN_DETAIL)) &&
	    (hb->available_streams >= 0 || hb->available_err))
		for (size_t i = 0; i < n; i++)
			hb_read_port(ctx, hb, names[i]);
	strv_free(names, n);
}

/*
 * The 6.19-rc1 flavour also names a TSM's streams in its own dir
 * (tsmN/streamH.R.E -> endpoint). Such a link gives its host bridge's
 * stream of that name its TSM; one without a host-bridge link becomes a
 * stream of its own, so both views show a link from whichever form exists.
 */
static void tsm_read_stream_links(struct scan_ctx *ctx, struct tsm *t)
{
	struct tsm_snapshot *snap = ctx->snap;

	for (size_t i = 0; i < t->nr_stream_links; i++) {
		char *link = path_join(t->dir, t->stream_links[i]), *target;
		struct host_bridge *hb = NULL;
		struct ide_stream *s = NULL;
		unsigned int h, r, e;

		if (!sysfs_resolve_link(link, &target)) {
			hb = snapshot_hb_holding(snap, target);
			free(target);
		}
		free(link);
		if (!hb)
			continue;
		for (size_t j = 0; j < hb->nr_streams && !s; j++)
			if (streq(hb->streams[j]->name, t->stream_links[i]))
				s = hb->streams[j];
		if (!s) {
			stream_name_parse(t->stream_links[i], &h, &r, &e);
			s = hb_add_stream(hb, t->stream_links[i], h, r, e);
			s->link_dir = t->dir;
			stream_resolve(ctx, s);
			snap_add_stream(ctx, s);
		}
		if (!s->tsm)
			s->tsm = t;
		s->rc1_tsm = t;
	}
	/* once, not per stream added: a tree may hold thousands of links */
	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (snap->hbs[i]->nr_streams)
			qsort(snap->hbs[i]->streams, snap->hbs[i]->nr_streams,
			      sizeof(struct ide_stream *), stream_cmp);
}

static void scan_hbs(struct scan_ctx *ctx)
{
	struct tsm_snapshot *snap = ctx->snap;
	size_t nr;

	if (!find_hbs_by_bus(ctx))
		find_hbs_in(ctx, SYS_DEVICES, 0);
	if (snap->nr_hbs)
		qsort(snap->hbs, snap->nr_hbs, sizeof(*snap->hbs), hb_cmp);
	nr = snap->nr_hbs;	/* streams may add host bridges seen through links */
	for (size_t i = 0; i < nr; i++)
		hb_scan(ctx, snap->hbs[i]);
	if (ctx->flags & SCAN_STREAMS)
		for (size_t i = 0; i < snap->nr_tsms; i++)
			tsm_read_stream_links(ctx, snap->tsms[i]);
	for (size_t i = 0; i < snap->nr_streams; i++)
		stream_read_partners(ctx, snap->streams[i]);
	if (ctx->flags & SCAN_IDE_PORTS)
		for (size_t i = 0; i < snap->nr_streams; i++)
			if (tsm_is_tdx_connect(snap->streams[i]->tsm))
				stream_read_assoc(ctx, snap->streams[i]);
}

/*
 * TDX Connect's association rule (func_tdx_assoc_blocker()) needs the windows
 * of the bridge above each function a connect could be tried on (16 bytes of
 * its config) and its root port's IDE layout: read only while a TDX Connect
 * TSM is registered.
 */
static void funcs_read_upstream(struct scan_ctx *ctx)
{
	struct cfg_want windows = { CFG_PART_WINDOWS, NULL };
	const struct tsm_snapshot *snap = ctx->snap;
	bool tdx = false;

	for (size_t i = 0; i < snap->nr_tsms; i++)
		tdx |= tsm_is_tdx_connect(snap->tsms[i]);
	for (size_t i = 0; tdx && i < snap->nr_funcs; i++) {
		struct pci_func *f = snap->funcs[i];
		struct pci_cfg cfg;
		char *up;

		if (!f->has_connect || !f->connect || *f->connect || !f->dir || !strchr(f->dir, '/'))
			continue;
		/* and the root port's association blocks (its IDE layout) */
		if (f->root_port)
			func_read_config(ctx, f->root_port);
		up = xstrdup(f->dir);
		*strrchr(up, '/') = '\0';
		/* below the host bridge itself (no config above) or a non-bridge: nothing */
		if (!config_read(ctx, up, &windows, &cfg)) {
			if (cfg.header_valid && cfg.header_type == 1) {
				f->upstream = xstrdup(path_base(up));
				f->up_mem = cfg.mem_window;
				f->up_pref = cfg.pref_window;
			}
			pci_cfg_release(&cfg);
		}
		free(up);
	}
}

/* ---- PCI functions ---- */

/* Read a function when its tsm/ entry exists (a provider's glue dir is not the group). */
static void probe_func(struct scan_ctx *ctx, const char *name)
{
	char *tsm = path_join3(PCI_DEVICES, name, "tsm");
	bool has = sysfs_exists(tsm);
	struct pci_func *f;

	free(tsm);
	if (!has)
		return;
	f = func_get(ctx, name);
	func_read_detail(ctx, f);
	if (!f->tsm_dir)
		f->listed = false;
}

/* A context on anything but a DSM candidate: the TSM gives dependents one. */
static bool is_dependent(const struct pci_func *f)
{
	return f && f->tsm_dir && (f->fn != 0 || (f->dsm && *f->dsm && !streq(f->dsm, f->bdf)));
}

/* Only link TSMs (connect/disconnect): v6.19, or pci_mode "link". */
static bool only_link_tsms(const struct tsm_snapshot *snap)
{
	if (!snap->nr_tsms)
		return false;
	for (size_t i = 0; i < snap->nr_tsms; i++)
		if (snap->tsms[i]->has_pci_mode &&
		    (!snap->tsms[i]->mode || !streq(snap->tsms[i]->mode, "link")))
			return false;
	return true;
}

/* Same slot (DDDD:BB:DD.), from canonical names. */
static bool same_slot_name(const char *a, const char *b)
{
	const char *dot = strrchr(a, '.');

	return dot && !strncmp(a, b, (size_t)(dot - a) + 1);
}

/* The index of NAME in NAMES (sorted as sysfs_list() sorts), or N. */
static size_t name_index(char **names, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(names[mid], name);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

/* The directory holding DIR: a function's siblings (its slot's functions and their VFs). */
static char *parent_dir(const char *dir)
{
	const char *slash = strrchr(dir, '/');

	return slash ? xstrndup(dir, (size_t)(slash - dir)) : NULL;
}

/*
 * Probe the functions a connected DSM D may give contexts (ABI.md §2.2):
 * the other functions of its slot and all their VFs, which sysfs puts
 * beside it. An upstream port's dependents are everything below it, and a
 * DSM of unknown type may be one: false, probe everything then.
 */
static bool probe_dependents(struct scan_ctx *ctx, const struct pci_func *d, char **names,
			     size_t n, bool *probed)
{
	char *parent = d->dir ? parent_dir(d->dir) : NULL, **sib;
	size_t nr;

	if (!parent || !func_cfg_known(d) || d->cfg.pcie_type == PCIE_TYPE_UPSTREAM ||
	    sysfs_list(parent, &sib, &nr)) {
		free(parent);
		return false;
	}
	for (size_t k = 0; k < nr; k++) {
		size_t i = name_index(names, n, sib[k]);

		if (i < n && !probed[i]) {
			probed[i] = true;
			probe_func(ctx, names[i]);
		}
	}
	strv_free(sib, nr);
	free(parent);
	return true;
}

/* A dependent F lies beside one of the connected DSMs DSMS: where probe_dependents() looked. */
static bool dependent_placed(const struct pci_func *f, struct pci_func **dsms, size_t nr)
{
	char *mine = f->dir ? parent_dir(f->dir) : NULL;
	bool placed = false;

	for (size_t k = 0; k < nr && mine && !placed; k++) {
		char *theirs = parent_dir(dsms[k]->dir);

		placed = streq(f->dsm, dsms[k]->bdf) && theirs && streq(mine, theirs);
		free(theirs);
	}
	free(mine);
	return placed;
}

/*
 * Which functions can have a tsm/ group (ABI.md §1.2, §2.1, §2.2): function 0
 * of a slot while a link TSM is registered; any other function only as a
 * dependent of a connected DSM, or under a devsec TSM. So with link TSMs
 * only, the function 0s are probed, then the dependents of each connected
 * DSM with DEVCAP.TEE (the kernel probes no others): its siblings, one
 * listing each. SEV-TIO gives dependents no context, so of its DSMs one
 * sibling each is probed as a sample, and a 10,000-function host costs its
 * slots, not its VFs. Anything unusual (no TSM, a devsec TSM, a DSM that is
 * an upstream port or of unknown type, a dependent found elsewhere) probes
 * everything.
 */
static void probe_funcs(struct scan_ctx *ctx, char **names, size_t n)
{
	bool *probed = xcalloc(n ? n : 1, sizeof(*probed));
	bool everything = !only_link_tsms(ctx->snap), dependents = false;
	struct pci_func **dsms = NULL, **deps = NULL;
	size_t nr_dsms = 0, cap_dsms = 0, nr_deps = 0, cap_deps = 0;

	for (size_t i = 0; i < n && !everything; i++) {
		struct pci_func *f;

		if (names[i][strlen(names[i]) - 1] != '0')
			continue;
		probed[i] = true;
		probe_func(ctx, names[i]);
		f = cache_lookup(ctx, names[i]);
		if (!f || !f->tsm_dir)
			continue;
		/* a DSM candidate whose connection cannot be read: its dependents cannot be placed */
		everything = f->has_connect && (!f->connect || f->connect_err);
		if (is_dependent(f)) {
			xgrow(&deps, &cap_deps, nr_deps, sizeof(*deps));
			deps[nr_deps++] = f;
		}
		/* The kernel probes a DSM's dependents only when it has DEVCAP.TEE (unknown: as if). */
		if (!func_connected(f) || !(f->cfg.tee_io || f->needs_root || !f->cfg.header_valid))
			continue;
		xgrow(&dsms, &cap_dsms, nr_dsms, sizeof(*dsms));
		dsms[nr_dsms++] = f;
		if (!tsm_is_sev_tio(f->connected_tsm))
			dependents = true;
		else if (i + 1 < n && same_slot_name(names[i], names[i + 1])) {
			probed[i + 1] = true;
			probe_func(ctx, names[i + 1]);
			dependents |= is_dependent(cache_lookup(ctx, names[i + 1]));
		}
	}
	dependents |= nr_deps > 0;
	for (size_t k = 0; k < nr_dsms && dependents && !everything; k++)
		everything = !probe_dependents(ctx, dsms[k], names, n, probed);
	for (size_t k = 0; k < nr_deps && !everything; k++)
		everything = !dependent_placed(deps[k], dsms, nr_dsms);
	for (size_t i = 0; i < n && everything; i++)
		if (!probed[i])
			probe_func(ctx, names[i]);
	free(dsms);
	free(deps);
	free(probed);
}

static void scan_funcs(struct scan_ctx *ctx)
{
	struct tsm_snapshot *snap = ctx->snap;
	char **names;
	size_t n, kept = 0;

	snap->pci_devices_err = sysfs_list(PCI_DEVICES, &names, &n);
	if (snap->pci_devices_err)
		return;
	for (size_t i = 0; i < n; i++) {
		char canon[BDF_MAX];

		if (bdf_canonical(names[i], canon) || !streq(canon, names[i]))
			free(names[i]);
		else
			names[kept++] = names[i];
	}
	if (!(ctx->flags & SCAN_ALL_FUNCS)) {
		probe_funcs(ctx, names, kept);
		strv_free(names, kept);
		return;
	}
	for (size_t i = 0; i < kept; i++) {
		struct pci_func *f = func_get(ctx, names[i]);

		f->bus_listed = true;
		func_read_detail(ctx, f);
	}
	strv_free(names, kept);
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		struct pci_func *f = snap->funcs[i];

		if (!f->listed)
			continue;
		/* --all: TSM-capable, or PCIe with IDE or TEE-IO. */
		f->listed = f->tsm_dir || (f->cfg.pcie_type != PCIE_TYPE_NONE &&
			   (f->cfg.ide.present || f->cfg.tee_io)) || f->needs_root;
	}
}

/* SCAN_TREE: each function's bridges up to its host bridge, config read, parent set. */
static void scan_ancestors(struct scan_ctx *ctx)
{
	struct tsm_snapshot *snap = ctx->snap;

	/* the list grows as parents join it, and they get theirs in turn */
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		struct pci_func *f = snap->funcs[i];
		char *up, *cut, canon[BDF_MAX];

		if (!f->dir || f->parent || !(cut = strrchr(f->dir, '/')))
			continue;
		up = xstrndup(f->dir, (size_t)(cut - f->dir));
		if (!bdf_canonical(path_base(up), canon) && streq(canon, path_base(up))) {
			f->parent = func_get(ctx, canon);
			func_set_dir(ctx, f->parent, up);
			func_read_config(ctx, f->parent);
			if (!f->parent->doe_known)	/* a port's mailboxes, known as a device's */
				func_read_doe(f->parent);
		}
		free(up);
	}
}

/* T in HB's list of TSMs, by id, once. */
static void hb_add_tsm(struct host_bridge *hb, struct tsm *t)
{
	size_t at = 0;

	if (hb_has_tsm(hb, t))
		return;
	while (at < hb->nr_tsms && hb->tsms[at]->id < t->id)
		at++;
	hb->tsms = xrealloc(hb->tsms, (hb->nr_tsms + 1) * sizeof(*hb->tsms));
	memmove(hb->tsms + at + 1, hb->tsms + at, (hb->nr_tsms - at) * sizeof(*hb->tsms));
	hb->tsms[at] = t;
	hb->nr_tsms++;
}

/* A real stream of HB whose TSM the scan could not tell. */
static bool hb_stream_of_unknown_tsm(const struct host_bridge *hb)
{
	for (size_t i = 0; i < hb->nr_streams; i++)
		if (stream_is_real(hb->streams[i]) && !hb->streams[i]->tsm)
			return true;
	return false;
}

/*
 * Which TSMs use a host bridge: its streams' TSMs, and a TSM whose proposed
 * tsmN/pciDDDD:BB link names it where the streams cannot say otherwise (one
 * of unknown TSM, or streams not scanned). The staging kernel keys that link
 * by host bridge alone (tsm_ide_stream_register(), ABI.md §1.1): it may name
 * the first TSM for a second one's streams, and outlive the first's own.
 */
static void link_model(struct tsm_snapshot *snap, bool streams_scanned)
{
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		struct pci_func *f = snap->funcs[i];

		if (f->dsm && *f->dsm)
			f->dsm_func = snapshot_find_func(snap, f->dsm);
		if (f->listed && f->connected_tsm && f->has_connect)
			f->connected_tsm->connected_devices++;
	}
	snapshot_mark_duplicates(snap);
	snapshot_judge_ide_claims(snap);
	for (size_t i = 0; i < snap->nr_streams; i++) {
		struct ide_stream *s = snap->streams[i];

		if (!s->tsm || !stream_is_real(s))
			continue;
		s->tsm->nr_streams++;
		hb_add_tsm(s->hb, s->tsm);
	}
	for (size_t i = 0; i < snap->nr_tsms; i++) {
		struct tsm *t = snap->tsms[i];

		for (size_t j = 0; j < t->nr_hb_links; j++) {
			struct host_bridge *hb = snapshot_find_hb(snap, t->hb_links[j]);

			if (hb && (!streams_scanned || hb_stream_of_unknown_tsm(hb)))
				hb_add_tsm(hb, t);
		}
	}
}

static void scan_once(struct tsm_snapshot *snap, unsigned int flags)
{
	struct scan_ctx *ctx = xcalloc(1, sizeof(*ctx));

	memset(snap, 0, sizeof(*snap));
	sysfs_forget_cache();
	ctx->snap = snap;
	ctx->flags = flags;
	read_plan(ctx);
	if (flags & SCAN_STREAMS)
		flags |= SCAN_HBS;
	scan_tsms(ctx);
	if (flags & (SCAN_PLATFORM | SCAN_MEASUREMENTS))
		scan_platform(snap, flags);
	ctx->may_lock = !only_link_tsms(snap);
	if (flags & SCAN_HBS)
		scan_hbs(ctx);
	if (flags & (SCAN_DEVICES | SCAN_ALL_FUNCS))
		scan_funcs(ctx);
	funcs_read_upstream(ctx);
	if (flags & SCAN_TREE)
		scan_ancestors(ctx);
	if (snap->nr_funcs)
		qsort(snap->funcs, snap->nr_funcs, sizeof(*snap->funcs), func_cmp);
	link_model(snap, flags & SCAN_STREAMS);
	/* What config space cost, for benchmarks: on a host each cycle is a config access. */
	if (debug_on(DEBUG_CONFIG_STATS))
		cmd_note(NULL, "config space: %zu functions, %zu reads, %zu bytes, "
			 "%zu config cycles", ctx->cfg_funcs, ctx->cfg_reads, ctx->cfg_bytes,
			 ctx->cfg_cycles);
	free(ctx);
}

/* Is NAME one of HB's stream* entries the scan read (a link of its own dir, or a malformed one)? */
static bool hb_had_link(const struct host_bridge *hb, const char *name)
{
	for (size_t i = 0; i < hb->nr_streams; i++)
		if (!hb->streams[i]->link_dir && streq(hb->streams[i]->name, name))
			return true;
	for (size_t i = 0; i < hb->nr_bad_links; i++)
		if (streq(hb->bad_links[i], name))
			return true;
	return false;
}

/* Does HB show now another pool count, or (STREAMS) other stream* entries, than the scan read? */
static bool hb_moved(const struct host_bridge *hb, bool streams)
{
	size_t n, links = 0, had = hb->nr_bad_links;
	unsigned long v;
	char **names;
	int err = sysfs_attr_number(hb->dir, "available_secure_streams", 10, 0xffff, &v);
	bool moved;

	if (err == -ENOENT)
		moved = hb->available_streams >= 0 || hb->available_err;
	else
		moved = err ? err != hb->available_err : (long long)v != hb->available_streams;
	if (moved || !streams)
		return moved;
	if (sysfs_list(hb->dir, &names, &n))
		return true;
	for (size_t i = 0; i < n && !moved; i++)
		if (!strncmp(names[i], "stream", 6)) {
			links++;
			moved = !hb_had_link(hb, names[i]);
		}
	strv_free(names, n);
	for (size_t i = 0; i < hb->nr_streams; i++)
		had += !hb->streams[i]->link_dir;
	return moved || links != had;
}

/*
 * A connect or disconnect holds pci_tsm_rwsem for its whole run, and every
 * tsm/ show waits for it, while pools and stream links are read without it
 * (ABI.md §2.3): SEV-TIO takes its pool slot at alloc and links the stream
 * last, after the slow SPDM phase. A scan that read a host bridge before a
 * tsm/ attribute may so hold the pool or links from before a store and a
 * connection from after it. Did the host bridges move while the scan ran?
 */
static bool scan_torn(const struct tsm_snapshot *snap, unsigned int flags)
{
	if (!(flags & (SCAN_HBS | SCAN_STREAMS)) ||
	    !(flags & (SCAN_STREAMS | SCAN_DEVICES | SCAN_ALL_FUNCS)))
		return false;
	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (snap->hbs[i]->dir && hb_moved(snap->hbs[i], flags & SCAN_STREAMS))
			return true;
	return false;
}

void snapshot_scan(struct tsm_snapshot *snap, unsigned int flags)
{
	/* a tree that keeps moving: the last scan is kept */
	for (int tries = 1;; tries++) {
		scan_once(snap, flags);
		if (tries == SCAN_TRIES || !scan_torn(snap, flags))
			return;
		snapshot_free(snap);
	}
}

/* ---- what filters name ---- */

/* Does any PCI function of the slot "DDDD:BB:DD.*" exist? */
static bool slot_exists(const char *slot)
{
	bool found = false;
	char **names;
	size_t n;

	if (sysfs_list(PCI_DEVICES, &names, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = bdf_in_slot(names[i], slot);
	strv_free(names, n);
	return found;
}

static bool device_exists(const char *name)
{
	return bdf_is_slot(name) ? slot_exists(name) : sysfs_attr_exists(PCI_DEVICES, name);
}

static bool name_exists(const struct tsm_snapshot *snap, enum snapshot_missing_kind kind,
			const char *name)
{
	switch (kind) {
	case SNAPSHOT_NO_TSM:
		return snapshot_find_tsm(snap, name);
	case SNAPSHOT_NO_HB:
		return snapshot_find_hb(snap, name);
	default:
		return device_exists(name);	/* any PCI device, not only those scanned */
	}
}

int snapshot_find_missing(const struct tsm_snapshot *snap, const struct snapshot_names *want,
			  struct snapshot_missing *missing)
{
	const struct { char *const *v; size_t n; enum snapshot_missing_kind kind; } lists[] = {
		{ want->devices, want->nr_devices, SNAPSHOT_NO_DEVICE },
		{ want->tsms, want->nr_tsms, SNAPSHOT_NO_TSM },
		{ want->hbs, want->nr_hbs, SNAPSHOT_NO_HB },
	};

	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < lists[l].n; i++) {
			const char *name = lists[l].v[i];

			if (name_exists(snap, lists[l].kind, name))
				continue;
			missing->kind = lists[l].kind == SNAPSHOT_NO_DEVICE && bdf_is_slot(name) ?
					SNAPSHOT_NO_SLOT : lists[l].kind;
			missing->name = name;
			return -ENOENT;
		}
	return 0;
}
