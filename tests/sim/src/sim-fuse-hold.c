// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-fuse-hold.c: a kernel step the live mount holds until the control
 * file names it (spdm-done BDF: a connect's SPDM phase, spdm_manually;
 * store-done BDF: a tsm/ store with the lock taken, store_manually;
 * pci-tsm-init BDF: a new VF's pci_tsm_init(), vfs.tsm_init_manually), so a
 * test acts on the state in between without racing a timer. The caller arms
 * the hold before the tree shows that state, so a test that sees it always
 * finds the hold waiting. DIR/tsm-sim-holds shows the holds waiting and the
 * processes whose tsm/ show() or store waits for pci_tsm_rwsem behind a held
 * step: what a test waits for before it releases one. Commands are taken
 * without pci_tsm_rwsem, which a held store keeps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim-fuse.h"

/* A hold nobody releases (its test was killed) ends by itself, so the mount can go. */
#define HOLD_MAX_S 600

/* A show() or store waiting for pci_tsm_rwsem, on its thread's stack while it waits. */
struct rwsem_waiter {
	pid_t pid;	/* the reader, as FUSE names it */
	struct rwsem_waiter *next;
};

struct sim_hold {
	const char *verb;	/* the control command that releases it */
	char *bdf;
	bool released;
	struct sim_hold *next;
};

static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static struct sim_hold *holds;
static bool holds_off;		/* "holds-off": a teardown's; no step waits from now on */
static struct rwsem_waiter *waiters;

struct sim_hold *sim_fuse_hold_arm(const char *verb, const char *bdf)
{
	struct sim_hold *h = sim_xcalloc(1, sizeof(*h));

	h->verb = verb;
	h->bdf = sim_xstrdup(bdf);
	pthread_mutex_lock(&hold_lock);
	h->released = holds_off;
	h->next = holds;
	holds = h;
	pthread_mutex_unlock(&hold_lock);
	return h;
}

/* Unlink and free @arg (hold_lock held), then drop the lock: also run if the wait is cancelled. */
static void hold_end(void *arg)
{
	struct sim_hold *h = arg;

	for (struct sim_hold **p = &holds; *p; p = &(*p)->next)
		if (*p == h) {
			*p = h->next;
			break;
		}
	free(h->bdf);
	free(h);
	pthread_mutex_unlock(&hold_lock);
}

/* Until @h is released or HOLD_MAX_S have passed (hold_lock held). */
static void hold_until_released(struct sim_hold *h)
{
	struct timespec end;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += HOLD_MAX_S;
	while (!h->released && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&hold_cond, &hold_lock, &end);
}

void sim_fuse_hold_wait(struct sim_hold *h)
{
	pthread_mutex_lock(&hold_lock);
	pthread_cleanup_push(hold_end, h);
	hold_until_released(h);
	pthread_cleanup_pop(1);
}

/* Release the holds VERB at BDF (hold_lock held): 0, or ENXIO if none waits there. */
static int release(const char *verb, const char *bdf)
{
	int rc = -ENXIO;

	for (struct sim_hold *h = holds; h; h = h->next)
		if (!h->released && !strcmp(h->verb, verb) && !strcmp(h->bdf, bdf)) {
			h->released = true;
			rc = 0;
		}
	return rc;
}

/* Release every hold, and let each one armed later pass at once (hold_lock held). */
static int release_all(void)
{
	holds_off = true;
	for (struct sim_hold *h = holds; h; h = h->next)
		h->released = true;
	return 0;
}

/*
 * VERB BDF: release the hold waiting there; holds-off: every hold, now and
 * later. 1: not a hold command; ENXIO: nothing of that kind waits at BDF (no
 * connect, store or VF add in flight there); EINVAL: the words do not fit.
 */
int sim_fuse_hold_release(const char *buf, size_t len)
{
	char *line = strndup(buf, len), *save = NULL, *w[3] = { 0 };
	int n = 0, rc = 1;

	if (!line)
		return -ENOMEM;
	for (char *t = strtok_r(line, " \t\n", &save); t && n < 3; t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	if (n && (!strcmp(w[0], "spdm-done") || !strcmp(w[0], "store-done") ||
		  !strcmp(w[0], "pci-tsm-init") || !strcmp(w[0], "holds-off"))) {
		bool off = !strcmp(w[0], "holds-off");

		rc = -EINVAL;
		if (n == (off ? 1 : 2)) {
			pthread_mutex_lock(&hold_lock);
			rc = off ? release_all() : release(w[0], w[1]);
			pthread_cond_broadcast(&hold_cond);
			pthread_mutex_unlock(&hold_lock);
		}
	}
	free(line);
	return rc;
}

/*
 * down_read() (a show(), an accept) or down_write() (a store) of
 * pci_tsm_rwsem for process PID, listed in the holds file while it waits.
 */
void sim_fuse_rwsem_lock(pid_t pid, bool write)
{
	struct rwsem_waiter w = { .pid = pid };

	if (!(write ? pthread_rwlock_trywrlock : pthread_rwlock_tryrdlock)(&sim_fuse.rwsem))
		return;
	pthread_mutex_lock(&hold_lock);
	w.next = waiters;
	waiters = &w;
	pthread_mutex_unlock(&hold_lock);
	(write ? pthread_rwlock_wrlock : pthread_rwlock_rdlock)(&sim_fuse.rwsem);
	pthread_mutex_lock(&hold_lock);
	for (struct rwsem_waiter **p = &waiters; *p; p = &(*p)->next)
		if (*p == &w) {
			*p = w.next;
			break;
		}
	pthread_mutex_unlock(&hold_lock);
}

/* DIR/tsm-sim-holds: "held VERB BDF" per hold not yet released, "waiting PID" per process waiting. */
char *sim_fuse_holds_text(size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	pthread_mutex_lock(&hold_lock);
	for (struct sim_hold *h = holds; h; h = h->next)
		if (!h->released)
			fprintf(f, "held %s %s\n", h->verb, h->bdf);
	for (struct rwsem_waiter *w = waiters; w; w = w->next)
		fprintf(f, "waiting %d\n", (int)w->pid);
	pthread_mutex_unlock(&hold_lock);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
