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
	fix_files(r);
}

/* DIR's names differ from those (or the error) the start saw. */
static bool names_moved(const char *dir, const struct listing *was)
{
	char **now;
	size_t nr;
	int rc = sysfs_list(dir, &now, &nr);
	bool moved = rc != was->err || nr != was->n;

	for (size_t i = 0; i < nr && !moved; i++)
		moved = !streq(now[i], was->names[i]);
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
		moved = names_moved(watched_dirs[i], &r->listings[i]);
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
	free(r);
}
