// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-iomem.c: proc/iomem, the kernel's resource tree for memory (kernel/resource.c).
 * Host bridge windows first, then each bridge's windows ("PCI Bus DDDD:SS")
 * and each function's memory BARs (named by its BDF), claimed the way
 * request_resource() does (a child of the deepest resource holding it, an
 * equal range included). An accepted device's BARs then get "PCI MMIO
 * Encrypted" through insert_resource(), which puts the new resource above
 * the ones of the same range (pci_tsm_mmio_setup() in the staging tree).
 * Printed as r_show() does: two spaces per level, "%08llx-%08llx : NAME".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct res {
	uint64_t start, end;
	char *name;
	struct res *child, *sibling;
};

static struct res *res_new(uint64_t start, uint64_t end, const char *name)
{
	struct res *r = sim_xcalloc(1, sizeof(*r));

	r->start = start;
	r->end = end;
	r->name = sim_xstrdup(name);
	return r;
}

static bool contains(const struct res *a, const struct res *b)
{
	return a->start <= b->start && a->end >= b->end;
}

/* Link @r among @parent's children, sorted by start address. */
static void link_sorted(struct res *parent, struct res *r)
{
	struct res **pp = &parent->child;

	while (*pp && (*pp)->start <= r->start)
		pp = &(*pp)->sibling;
	r->sibling = *pp;
	*pp = r;
}

/* request_resource(): below the deepest resource that holds it */
static void request(struct res *root, struct res *r)
{
	struct res *p = root;

	for (bool deeper = true; deeper;) {
		deeper = false;
		for (struct res *c = p->child; c; c = c->sibling)
			if (contains(c, r)) {
				p = c;
				deeper = true;
				break;
			}
	}
	link_sorted(p, r);
}

/* insert_resource(): above the resources it covers, equal ranges included */
static void insert(struct res *root, struct res *r)
{
	struct res *p = root, **pp;

	for (bool deeper = true; deeper;) {
		deeper = false;
		for (struct res *c = p->child; c; c = c->sibling)
			if (contains(c, r) && (c->start != r->start || c->end != r->end)) {
				p = c;
				deeper = true;
				break;
			}
	}
	pp = &p->child;
	while (*pp) {
		struct res *c = *pp;

		if (contains(r, c)) {
			*pp = c->sibling;
			c->sibling = NULL;
			link_sorted(r, c);
		} else {
			pp = &c->sibling;
		}
	}
	link_sorted(p, r);
}

static void render(const struct res *r, int depth, FILE *f)
{
	for (; r; r = r->sibling) {
		fprintf(f, "%*s%08llx-%08llx : %s\n", depth * 2, "",
			(unsigned long long)r->start, (unsigned long long)r->end,
			r->name);
		render(r->child, depth + 1, f);
	}
}

static void res_free(struct res *r)
{
	while (r) {
		struct res *n = r->sibling;

		res_free(r->child);
		free(r->name);
		free(r);
		r = n;
	}
}

static void window(struct res *root, const struct sim_dev *d,
		   const struct sim_window *w)
{
	char *name;

	if (!w->present)
		return;
	name = sim_xasprintf("PCI Bus %04x:%02x", d->domain, d->secondary);
	request(root, res_new(w->base, w->limit, name));
	free(name);
}

char *sim_iomem_render(const struct sim_model *m)
{
	struct res root = { .end = UINT64_MAX };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < m->nr_hbs; i++)
		for (size_t j = 0; m->hbs[i]->present && j < m->hbs[i]->nr_windows; j++) {
			const struct sim_hb_window *w = &m->hbs[i]->windows[j];

			request(&root, res_new(w->base, w->limit, w->name));
		}
	for (size_t i = 0; i < m->nr_devs; i++) {
		const struct sim_dev *d = m->devs[i];

		if (!d->present)
			continue;
		window(&root, d, &d->mem);
		window(&root, d, &d->pref);
		for (int b = 0; b < 6; b++)
			if (d->bars[b].present && d->bars[b].size)
				request(&root, res_new(d->bars[b].base,
						       d->bars[b].base + d->bars[b].size - 1,
						       d->name));
	}
	for (size_t i = 0; i < m->nr_devs; i++) {
		const struct sim_dev *d = m->devs[i];

		for (int b = 0; d->present && d->encrypted && b < 6; b++)
			if (d->bars[b].present && d->bars[b].size)
				insert(&root, res_new(d->bars[b].base,
						      d->bars[b].base + d->bars[b].size - 1,
						      "PCI MMIO Encrypted"));
	}
	f = open_memstream(&out, &len);
	if (!f)
		abort();
	render(root.child, 0, f);
	fclose(f);
	res_free(root.child);
	return out;
}
