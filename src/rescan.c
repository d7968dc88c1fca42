// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A snapshot looked at again, only where it can change without its
 * structure moving (tsmctl watch). A sysfs attribute read again from
 * offset 0 is shown afresh, and config space is read where asked, so the
 * files stay open: a look at a 10,000-function host is a pread per value
 * (each connection, each pool, two Status dwords a stream) and five
 * listings, not a scan. What moves the structure (a TSM or bus added or
 * removed, a connection made or torn down, a pool used) shows in those
 * values; the caller then takes a new snapshot.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/ide.h"
#include "tsmctl/names.h"
#include "tsmctl/rescan.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

/* A file looked at each time: kept open while the budget lasts, else opened for the look. */
struct kept {
	char *path;
	int fd;		/* -1: opened for each look */
};

/* A text attribute and the value the snapshot holds (NULL: it could not be read). */
struct watched_text {
	struct kept *file;
	const char *was;
};

/* A stream partner's block: its Status register, decoded into the snapshot. */
struct watched_status {
	struct kept *file;	/* the partner's config */
	struct ide_sel_stream *block;
};

/* A pool and the count the snapshot holds (-1: absent or unreadable). */
struct watched_pool {
	struct kept *file;
	long long was;
};

/*
 * Where a connected DSM's dependents live (its directory: the slot's other
 * functions and their VFs), as the start listed it; the functions there
 * that the scan saw without a tsm/ group, and the dependents it saw with
 * one: a new VF gets its group after its own add uevent, with none of its
 * own (ABI.md §2.2, §2.8), so only a look can see it come.
 */
struct dsm_dir {
	char *dir;
	char **names;
	size_t n;
	int err;
};

struct rescan {
	struct kept *files;
	size_t nr_files, cap_files, budget;
	struct watched_text *texts;
	size_t nr_texts, cap_texts;
	struct watched_status *status;
	size_t nr_status, cap_status;
	struct watched_pool *pools;
	size_t nr_pools, cap_pools;
	struct listing *listings;	/* WATCHED_DIRS, as the start saw them */
	struct dsm_dir *dsm_dirs;
	size_t nr_dsm_dirs, cap_dsm_dirs;
	char **groupless;		/* DIR/FUNCTION/tsm/dsm the scan did not see */
	size_t nr_groupless, cap_groupless;
	char **grouped;			/* a dependent's DIR/FUNCTION/tsm/dsm the scan saw */
	size_t nr_grouped, cap_grouped;
};

/* A directory whose entries the look compares with the start's. */
struct listing {
	char **names;
	size_t n;
	int err;
};

/*
 * Where a TSM or a host bridge appears or goes: the TSM class; the pci_bus
 * class, where every host bridge's root bus shows, however deep the bridge
 * (below a faux or platform device that came before it, in a VMD domain);
 * and, for trees without that class, the places host bridges are put below
 * sys/devices directly or by a faux or platform device (a bus module).
 */
static const char *const watched_dirs[] = {
	TSM_CLASS, PCI_BUS_CLASS, SYS_DEVICES, SYS_DEVICES_FAUX, SYS_DEVICES_PLATFORM,
};

/*
 * The file PATH kept open while the budget lasts: its index in R->files.
 * A SHARED one (a partner's config, for each stream it has) is kept once.
 */
static size_t keep(struct rescan *r, const char *path, bool shared)
{
	struct kept *k;

	for (size_t i = r->nr_files; shared && i-- > 0;)
		if (streq(r->files[i].path, path))
			return i;
	xgrow(&r->files, &r->cap_files, r->nr_files, sizeof(*r->files));
	k = &r->files[r->nr_files];
	k->path = xstrdup(path);
	k->fd = -1;
	if (r->nr_files < r->budget) {
		int fd = sysfs_open_bin(path);

		k->fd = fd < 0 ? -1 : fd;
	}
	return r->nr_files++;
}

/* An fd for a look at K: its own, or one opened for it (then *opened). -errno. */
static int look_fd(const struct kept *k, bool *opened)
{
	int fd;

	*opened = false;
	if (k->fd >= 0)
		return k->fd;
	fd = sysfs_open_bin(k->path);
	*opened = fd >= 0;
	return fd;
}

static void look_done(int fd, bool opened)
{
	if (opened)
		close(fd);
}

/* The text of K now: 0 and *value, or -errno. */
static int look_text(const struct kept *k, char **value)
{
	bool opened;
	int fd = look_fd(k, &opened), rc;

	*value = NULL;
	if (fd < 0)
		return fd;
	rc = sysfs_pread_text(fd, value);
	look_done(fd, opened);
	return rc;
}

static void watch_text(struct rescan *r, const char *dir, const char *name, const char *was)
{
	char *path = path_join(dir, name);

	xgrow(&r->texts, &r->cap_texts, r->nr_texts, sizeof(*r->texts));
	r->texts[r->nr_texts].file = (struct kept *)(uintptr_t)keep(r, path, false);
	r->texts[r->nr_texts++].was = was;
	free(path);
}

/* The Selective blocks of S's two partners whose Status a look reads. */
static void watch_stream(struct rescan *r, const struct ide_stream *s)
{
	const struct pci_func *partners[] = { s->endpoint, s->root_port };
	const unsigned int blocks[] = { s->e, s->r };

	if (!stream_is_real(s))
		return;	/* a stray link's blocks are its stream's; a dangling one has none */
	for (size_t i = 0; i < 2; i++) {
		struct pci_func *f = (struct pci_func *)partners[i];
		struct ide_sel_stream *b;
		char *path;

		if (!f || !f->dir || !ide_sel_block(&f->cfg.ide, blocks[i]))
			continue;
		b = &f->cfg.ide.sel[blocks[i]];
		path = path_join(f->dir, "config");
		xgrow(&r->status, &r->cap_status, r->nr_status, sizeof(*r->status));
		r->status[r->nr_status].file = (struct kept *)(uintptr_t)keep(r, path, true);
		r->status[r->nr_status++].block = b;
		free(path);
	}
}

static void watch_pool(struct rescan *r, const struct host_bridge *hb)
{
	char *path = path_join(hb->dir, "available_secure_streams");

	xgrow(&r->pools, &r->cap_pools, r->nr_pools, sizeof(*r->pools));
	r->pools[r->nr_pools].file = (struct kept *)(uintptr_t)keep(r, path, false);
	r->pools[r->nr_pools++].was = hb->available_err ? -1 : hb->available_streams;
	free(path);
}

/* Is D's dependents' directory watched already (two DSMs of one bus)? */
static bool dsm_dir_kept(const struct rescan *r, const char *dir)
{
	for (size_t i = 0; i < r->nr_dsm_dirs; i++)
		if (streq(r->dsm_dirs[i].dir, dir))
			return true;
	return false;
}

static void keep_path(char ***v, size_t *n, size_t *cap, char *path)
{
	xgrow(v, cap, *n, sizeof(**v));
	(*v)[(*n)++] = path;
}

/* The function of SNAP in directory PATH, NULL when the scan saw none (no tsm/ group). */
static const struct pci_func *snap_func_at(const struct tsm_snapshot *snap, const char *path)
{
	for (size_t i = 0; i < snap->nr_funcs; i++)
		if (snap->funcs[i]->dir && streq(snap->funcs[i]->dir, path))
			return snap->funcs[i];
	return NULL;
}

/*
 * A connected DSM whose TSM gives dependents contexts (any but SEV-TIO,
 * ABI.md §2.2): its directory's entries now; the tsm/dsm of the functions
 * there that the scan did not see as dependents (one coming is a move), and
 * of the dependents it saw there (one going is a move). Judged by the scan,
 * not by a look now: a context that came or went between the scan and this
 * listing is then still a move.
 */
static void watch_dependents(struct rescan *r, const struct tsm_snapshot *snap,
			     const struct pci_func *d)
{
	const char *slash = d->dir ? strrchr(d->dir, '/') : NULL;
	char *dir, canon[BDF_MAX];
	struct dsm_dir *w;

	if (!slash || !func_connected(d) || tsm_is_sev_tio(d->connected_tsm))
		return;
	dir = xstrndup(d->dir, (size_t)(slash - d->dir));
	if (dsm_dir_kept(r, dir)) {
		free(dir);
		return;
	}
	xgrow(&r->dsm_dirs, &r->cap_dsm_dirs, r->nr_dsm_dirs, sizeof(*r->dsm_dirs));
	w = &r->dsm_dirs[r->nr_dsm_dirs++];
	w->dir = dir;
	w->err = sysfs_list(dir, &w->names, &w->n);
	for (size_t i = 0; i < w->n; i++) {
		char *path;
		const struct pci_func *f;

		if (bdf_canonical(w->names[i], canon) || !streq(canon, w->names[i]))
			continue;
		path = path_join(dir, w->names[i]);
		f = snap_func_at(snap, path);
		/* tsm/dsm, as watch tells a dependent (an empty tsm/ is none: its DSM lacks TEE) */
		if (!f || !f->has_dsm)
			keep_path(&r->groupless, &r->nr_groupless, &r->cap_groupless,
				  path_join3(path, "tsm", "dsm"));
		free(path);
	}
	/* the dependents the scan saw there, gone from the listing or not */
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];

		slash = f->dir ? strrchr(f->dir, '/') : NULL;
		if (slash && !f->has_connect && f->has_dsm && (size_t)(slash - f->dir) == strlen(dir) &&
		    !strncmp(f->dir, dir, strlen(dir)))
			keep_path(&r->grouped, &r->nr_grouped, &r->cap_grouped,
				  path_join3(f->dir, "tsm", "dsm"));
	}
}

/* The files were kept by index while the array grew: now that it stands, by address. */
static void fix_files(struct rescan *r)
{
	for (size_t i = 0; i < r->nr_texts; i++)
		r->texts[i].file = &r->files[(uintptr_t)r->texts[i].file];
	for (size_t i = 0; i < r->nr_status; i++)
		r->status[i].file = &r->files[(uintptr_t)r->status[i].file];
	for (size_t i = 0; i < r->nr_pools; i++)
		r->pools[i].file = &r->files[(uintptr_t)r->pools[i].file];
}

struct rescan *rescan_begin(size_t max_open)
{
	struct rescan *r = xcalloc(1, sizeof(*r));

	r->budget = max_open;
	r->listings = xcalloc(ARRAY_SIZE(watched_dirs), sizeof(*r->listings));
	for (size_t i = 0; i < ARRAY_SIZE(watched_dirs); i++)
		r->listings[i].err = sysfs_list(watched_dirs[i], &r->listings[i].names,
						&r->listings[i].n);
	return r;
}

void rescan_keep(struct rescan *r, struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];
		char *tsmdir;

		if (!f->dir || !(f->has_connect || f->has_lock || f->has_accept))
			continue;
		tsmdir = path_join(f->dir, "tsm");
		if (f->has_connect)
			watch_text(r, tsmdir, "connect", f->connect);
		if (f->has_lock)
			watch_text(r, tsmdir, "lock", f->lock);
		if (f->has_accept)
			watch_text(r, tsmdir, "accept", f->accept);
		free(tsmdir);
	}
	for (size_t i = 0; i < snap->nr_hbs; i++)
		if (snap->hbs[i]->available_streams >= 0 || snap->hbs[i]->available_err)
			watch_pool(r, snap->hbs[i]);
	for (size_t i = 0; i < snap->nr_streams; i++)
		watch_stream(r, snap->streams[i]);
	for (size_t i = 0; i < snap->nr_funcs; i++)
		if (snap->funcs[i]->has_connect)
			watch_dependents(r, snap, snap->funcs[i]);
	fix_files(r);
}

/* DIR's names differ from the N NAMES (or the error ERR) the start saw. */
static bool names_moved(const char *dir, char **names, size_t n, int err)
{
	char **now;
	size_t nr;
	int rc = sysfs_list(dir, &now, &nr);
	bool moved = rc != err || nr != n;

	for (size_t i = 0; i < nr && !moved; i++)
		moved = !streq(now[i], names[i]);
	strv_free(now, nr);
	return moved;
}

static bool text_moved(const struct watched_text *t)
{
	char *value;
	int rc = look_text(t->file, &value);
	bool moved = rc ? t->was != NULL : !t->was || !streq(value, t->was);

	free(value);
	return moved;
}

static bool pool_moved(const struct watched_pool *p)
{
	char *value;
	unsigned long v;
	int rc = look_text(p->file, &value);
	long long now = rc || parse_ulong(value, &v) || v > 0xffff ? -1 : (long long)v;

	free(value);
	return now != p->was;
}

/* Read the block's Status again: false when it cannot be (the device went). */
static bool status_read(const struct watched_status *st)
{
	uint8_t b[4];
	bool opened;
	int fd = look_fd(st->file, &opened);
	ssize_t n;

	if (fd < 0)
		return false;
	n = sysfs_pread(fd, b, sizeof(b), (off_t)ide_sel_status_offset(st->block));
	look_done(fd, opened);
	if (n != (ssize_t)sizeof(b))
		return false;
	ide_sel_set_status(st->block, (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			   (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
	return true;
}

int rescan_look(struct rescan *r)
{
	bool moved = false;

	for (size_t i = 0; i < ARRAY_SIZE(watched_dirs) && !moved; i++)
		moved = names_moved(watched_dirs[i], r->listings[i].names, r->listings[i].n,
				    r->listings[i].err);
	/* a dependent's tsm/ group comes with no uevent: only a look sees it */
	for (size_t i = 0; i < r->nr_dsm_dirs && !moved; i++)
		moved = names_moved(r->dsm_dirs[i].dir, r->dsm_dirs[i].names, r->dsm_dirs[i].n,
				    r->dsm_dirs[i].err);
	for (size_t i = 0; i < r->nr_groupless && !moved; i++)
		moved = sysfs_exists(r->groupless[i]);
	for (size_t i = 0; i < r->nr_grouped && !moved; i++)
		moved = !sysfs_exists(r->grouped[i]);
	for (size_t i = 0; i < r->nr_texts && !moved; i++)
		moved = text_moved(&r->texts[i]);
	for (size_t i = 0; i < r->nr_pools && !moved; i++)
		moved = pool_moved(&r->pools[i]);
	for (size_t i = 0; i < r->nr_status && !moved; i++)
		moved = !status_read(&r->status[i]);
	return moved;
}

void rescan_stop(struct rescan *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_files; i++) {
		if (r->files[i].fd >= 0)
			close(r->files[i].fd);
		free(r->files[i].path);
	}
	free(r->files);
	free(r->texts);
	free(r->status);
	free(r->pools);
	for (size_t i = 0; i < ARRAY_SIZE(watched_dirs); i++)
		strv_free(r->listings[i].names, r->listings[i].n);
	free(r->listings);
	for (size_t i = 0; i < r->nr_dsm_dirs; i++) {
		free(r->dsm_dirs[i].dir);
		strv_free(r->dsm_dirs[i].names, r->dsm_dirs[i].n);
	}
	free(r->dsm_dirs);
	strv_free(r->groupless, r->nr_groupless);
	strv_free(r->grouped, r->nr_grouped);
	free(r);
}
