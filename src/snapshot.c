// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Questions about a snapshot's objects, answered once for the views, the
 * actions and audit alike (as libcxl's accessors serve both JSON and actions).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define PCI_DEVICES	"sys/bus/pci/devices"

static bool nonempty(const char *s)
{
	return s && *s;
}

bool func_cfg_known(const struct pci_func *f)
{
	return f && f->cfg_read && !f->cfg_err && !f->needs_root && f->cfg.header_valid;
}

bool func_cfg_needs_root(const struct pci_func *f)
{
	return f && (f->needs_root || f->cfg_err == -EACCES || f->cfg_err == -EPERM);
}

bool func_connected(const struct pci_func *f)
{
	return f && nonempty(f->connect);
}

const char *func_lock_holder(const struct pci_func *f)
{
	if (!f || !f->has_lock || !nonempty(f->lock))
		return NULL;
	if (nonempty(f->connect) || nonempty(f->dsm))
		return NULL;	/* a link connect (or a connected DSM's dependent) */
	return f->lock;
}

int func_accepted(const struct pci_func *f)
{
	if (!f || !f->has_accept || !f->accept)
		return -1;
	return streq(f->accept, "1") ? 1 : streq(f->accept, "0") ? 0 : -1;
}

const char *func_tsm(const struct pci_func *f)
{
	if (nonempty(f->connect))
		return f->connect;
	if (nonempty(f->lock))
		return f->lock;
	if (f->dsm_func && nonempty(f->dsm_func->connect))
		return f->dsm_func->connect;
	return NULL;
}

bool func_has_doe(const struct pci_func *f, const char *feature)
{
	for (size_t i = 0; f && i < f->nr_doe_features; i++)
		if (streq(f->doe_features[i], feature))
			return true;
	return false;
}

bool tsm_is_link(const struct tsm *t)
{
	return !t->has_pci_mode || streq(t->mode, "link");
}

bool tsm_is_tdx_connect(const struct tsm *t)
{
	return t && streq(t->provider, "tdx_host");
}

bool hb_no_pool(const struct host_bridge *hb)
{
	return hb && hb->available_streams < 0 && !hb->available_err;
}

const struct pci_func *stream_partner(const struct ide_stream *s, bool endpoint)
{
	return endpoint ? s->endpoint : s->root_port;
}

const struct ide_sel_stream *stream_partner_block(const struct ide_stream *s, bool endpoint)
{
	const struct pci_func *f = stream_partner(s, endpoint);

	if (!func_cfg_known(f))
		return NULL;
	return ide_sel_block(&f->cfg.ide, endpoint ? s->e : s->r);
}

const char *stream_connected_tsm(const struct ide_stream *s)
{
	return func_connected(s->endpoint) ? s->endpoint->connect : NULL;
}

/* "DDDD:BB:DD.*": every function of a slot. */
static bool is_slot(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 1] == '*' && name[n - 2] == '.';
}

/* Does any PCI function of the slot "DDDD:BB:DD.*" exist? */
static bool slot_exists(const char *slot)
{
	bool found = false;
	char **names;
	size_t n;

	if (sysfs_list(PCI_DEVICES, &names, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = strlen(names[i]) == strlen(slot) && !strncmp(names[i], slot, strlen(slot) - 1);
	strv_free(names, n);
	return found;
}

static bool device_exists(const char *name)
{
	char *path;
	bool ok;

	if (is_slot(name))
		return slot_exists(name);
	path = path_join(PCI_DEVICES, name);
	ok = sysfs_exists(path);
	free(path);
	return ok;
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
			missing->kind = lists[l].kind == SNAPSHOT_NO_DEVICE && is_slot(name) ?
					SNAPSHOT_NO_SLOT : lists[l].kind;
			missing->name = name;
			return -ENOENT;
		}
	return 0;
}
