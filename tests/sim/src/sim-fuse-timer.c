// SPDX-License-Identifier: GPL-2.0-or-later
/* sim-fuse-timer.c: late TSM registration: the timer thread and the live register/unregister steps. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim-fuse.h"

/* A store's injected delay or a provider's pause, resumed across signals */
void sim_fuse_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A uevent for TSM T, if its topology lets it send them. */
static void tsm_uevent(struct sim_tsm *t, const char *action)
{
	if (t->uevents)
		sim_uevent_send(action, t->dir, "tsm");
}

/*
 * tsm_register(): device_add() (tsmN appears, KOBJ_ADD), then the PCI/TSM
 * registration re-evaluates the tsm/ groups and sends KOBJ_CHANGE (ABI.md §1.1).
 */
void sim_fuse_tsm_register(struct sim_tsm *t)
{
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	if (t->registered) {
		pthread_rwlock_unlock(&sim_fuse.rwsem);
		return;
	}
	sim_tsm_platform_init(sim_fuse.m, t);
	sim_tsm_assign_id(sim_fuse.m, t);
	t->registered = true;
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	tsm_uevent(t, "add");
	/* a provider may take its time before the PCI layer takes it on */
	if (t->change_manually)
		return;	/* until the control file's pci-register */
	if (t->change_after_ms)
		sim_fuse_sleep_ms(t->change_after_ms);
	sim_fuse_tsm_pci_register(t);
}

/* The PCI/TSM registration of a registered TSM: its tsm/ groups, then KOBJ_CHANGE. */
void sim_fuse_tsm_pci_register(struct sim_tsm *t)
{
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	t->pci_ready = true;
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	tsm_uevent(t, "change");
}

/* tsm_unregister(): contexts and the PCI side go first, then device_unregister() (KOBJ_REMOVE). */
void sim_fuse_tsm_unregister(struct sim_tsm *t)
{
	pthread_rwlock_wrlock(&sim_fuse.rwsem);
	sim_tsm_teardown(sim_fuse.m, t);
	t->pci_ready = false;
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
	t->registered = false;
	sim_tree_sync(sim_fuse.m, sim_fuse.root);
	pthread_rwlock_unlock(&sim_fuse.rwsem);
	tsm_uevent(t, "remove");
}

/* Registers the register_after_ms TSMs in the order of their delays. */
static void *timer_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct sim_tsm *next = NULL;
		struct timespec due;

		for (size_t i = 0; i < sim_fuse.m->nr_tsms; i++) {
			struct sim_tsm *t = sim_fuse.m->tsms[i];

			if (t->register_after_ms >= 0 && !t->registered &&
			    (!next || t->register_after_ms < next->register_after_ms))
				next = t;
		}
		if (!next)
			return NULL;
		due = sim_fuse.mounted_at;
		due.tv_sec += next->register_after_ms / 1000;
		due.tv_nsec += (next->register_after_ms % 1000) * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&sim_fuse.timer_lock);
		while (!sim_fuse.stopping &&
		       pthread_cond_timedwait(&sim_fuse.timer_cond, &sim_fuse.timer_lock, &due) != ETIMEDOUT)
			;
		if (sim_fuse.stopping) {
			pthread_mutex_unlock(&sim_fuse.timer_lock);
			return NULL;
		}
		pthread_mutex_unlock(&sim_fuse.timer_lock);
		next->register_after_ms = -1;	/* done: a later unregister is final */
		sim_fuse_tsm_register(next);
	}
}

/* Late TSMs that send uevents need a private network namespace (sim-uevent.c). */
int sim_fuse_check_late_tsms(struct sim_model *m, bool *timer)
{
	bool events = false;
	char *why = NULL;
	int rc;

	*timer = false;
	for (size_t i = 0; i < m->nr_tsms; i++) {
		struct sim_tsm *t = m->tsms[i];

		/* a TSM waiting for its module is not late: modprobe registers it */
		if (t->registered || (t->register_after_ms < 0 && !t->register_manually))
			continue;
		*timer |= t->register_after_ms >= 0;
		events |= t->uevents;
	}
	if (!events)
		return 0;
	rc = sim_uevent_allowed(&why);
	if (rc)
		fprintf(stderr, "tsm-sim: %s\n", why);
	free(why);
	return rc;
}

int sim_fuse_start_timer(void)
{
	pthread_condattr_t ca;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sim_fuse.timer_cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&sim_fuse.timer_lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &sim_fuse.mounted_at);
	rc = -pthread_create(&sim_fuse.timer, NULL, timer_main, NULL);
	sim_fuse.timer_running = !rc;
	return rc;
}

void sim_fuse_stop_timer(void)
{
	if (!sim_fuse.timer_running)
		return;
	pthread_mutex_lock(&sim_fuse.timer_lock);
	sim_fuse.stopping = true;
	pthread_cond_signal(&sim_fuse.timer_cond);
	pthread_mutex_unlock(&sim_fuse.timer_lock);
	pthread_join(sim_fuse.timer, NULL);
	pthread_cond_destroy(&sim_fuse.timer_cond);
	pthread_mutex_destroy(&sim_fuse.timer_lock);
	sim_fuse.timer_running = false;
}
