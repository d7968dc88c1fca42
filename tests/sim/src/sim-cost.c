// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-cost.c: the live mount as a cost model of config space. On a host each
 * read of a function's `config` is a run of config accesses: the kernel's
 * pci_read_config() reads a byte and a word to align, then dwords, then a
 * word and a byte, each one access to the device (through ECAM about a
 * microsecond on bare metal, tens of microseconds in a confidential guest
 * where every access traps). The mount counts what it serves, per config
 * file and in total, and shows it in DIR/tsm-sim-stats (outside sys/, like
 * the control file). With a cost per access set (mount --config-cycle-ns N,
 * or "config-cycle-ns N" on the control file), a read sleeps that long per
 * access before it is answered. "stats-reset" on the control file zeroes
 * the counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "sim.h"

#define MAX_CYCLE_NS 1000000000UL	/* one second per access is plenty */

struct cost_file {
	const struct sim_dev *dev;
	unsigned long long reads, bytes, accesses;
};

static struct {
	pthread_mutex_t lock;
	unsigned long cycle_ns;
	struct cost_file total;
	struct cost_file *files;	/* open addressing on the device pointer */
	size_t cap, used;
} C = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* pci_read_config(): a byte to align, a word to align, dwords, a word, a byte. */
static unsigned long long accesses(off_t off, size_t n)
{
	unsigned long long k = 0;

	if ((off & 1) && n) {
		k++;
		off++;
		n--;
	}
	if ((off & 3) && n > 2) {
		k++;
		n -= 2;
	}
	k += n / 4;
	n %= 4;
	if (n >= 2) {
		k++;
		n -= 2;
	}
	return k + n;
}

static size_t slot_of(const struct sim_dev *d, size_t cap)
{
	return ((uintptr_t)d >> 4) * 0x9e3779b97f4a7c15ull % cap;
}

/* The counters of D's config file, made on first use (lock held). */
static struct cost_file *file_of(const struct sim_dev *d)
{
	size_t i;

	if (C.used * 2 >= C.cap) {
		struct cost_file *old = C.files;
		size_t cap = C.cap;

		C.cap = cap ? cap * 2 : 1024;
		C.files = sim_xcalloc(C.cap, sizeof(*C.files));
		for (size_t j = 0; j < cap; j++) {
			if (!old[j].dev)
				continue;
			for (i = slot_of(old[j].dev, C.cap); C.files[i].dev; i = (i + 1) % C.cap)
				;
			C.files[i] = old[j];
		}
		free(old);
	}
	for (i = slot_of(d, C.cap); C.files[i].dev && C.files[i].dev != d; i = (i + 1) % C.cap)
		;
	if (!C.files[i].dev) {
		C.files[i].dev = d;
		C.used++;
	}
	return &C.files[i];
}

static void sleep_ns(unsigned long long ns)
{
	static __thread bool precise;
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	/* the default 50 us timer slack would swamp microsecond costs */
	if (!precise)
		precise = !prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

void sim_cost_config_read(const struct sim_dev *d, off_t off, size_t n)
{
	unsigned long long k = accesses(off, n);
	unsigned long ns;
	struct cost_file *f;

	pthread_mutex_lock(&C.lock);
	f = file_of(d);
	f->reads++;
	f->bytes += n;
	f->accesses += k;
	C.total.reads++;
	C.total.bytes += n;
	C.total.accesses += k;
	ns = C.cycle_ns;
	pthread_mutex_unlock(&C.lock);
	if (ns && k)
		sleep_ns(k * ns);
}

int sim_cost_set_cycle_ns(const char *arg)
{
	char *end;
	unsigned long v;

	if (!arg || *arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || (*end && *end != '\n') || v > MAX_CYCLE_NS)
		return -EINVAL;
	pthread_mutex_lock(&C.lock);
	C.cycle_ns = v;
	pthread_mutex_unlock(&C.lock);
	return 0;
}

int sim_cost_control(const char *buf, size_t len)
{
	static const char cycle[] = "config-cycle-ns ", reset[] = "stats-reset";
	char *arg;
	int rc;

	if (len >= sizeof(reset) - 1 && !memcmp(buf, reset, sizeof(reset) - 1) &&
	    (len == sizeof(reset) - 1 || (len == sizeof(reset) && buf[len - 1] == '\n'))) {
		pthread_mutex_lock(&C.lock);
		memset(&C.total, 0, sizeof(C.total));
		memset(C.files, 0, C.cap * sizeof(*C.files));
		C.used = 0;
		pthread_mutex_unlock(&C.lock);
		return 0;
	}
	if (len < sizeof(cycle) - 1 || memcmp(buf, cycle, sizeof(cycle) - 1))
		return 1;
	arg = strndup(buf + sizeof(cycle) - 1, len - (sizeof(cycle) - 1));
	if (!arg)
		return -ENOMEM;
	rc = sim_cost_set_cycle_ns(arg);
	free(arg);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	const struct cost_file *x = a, *y = b;

	return strcmp(x->dev->name, y->dev->name);
}

char *sim_cost_stats_text(size_t *len)
{
	struct cost_file *list;
	size_t n = 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	pthread_mutex_lock(&C.lock);
	list = calloc(C.used ? C.used : 1, sizeof(*list));
	for (size_t i = 0; list && i < C.cap; i++)
		if (C.files[i].dev)
			list[n++] = C.files[i];
	fprintf(f, "config_cycle_ns %lu\n", C.cycle_ns);
	fprintf(f, "total %llu %llu %llu\n", C.total.reads, C.total.bytes, C.total.accesses);
	pthread_mutex_unlock(&C.lock);
	if (list) {
		qsort(list, n, sizeof(*list), by_name);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s %llu %llu %llu\n", list[i].dev->name, list[i].reads,
				list[i].bytes, list[i].accesses);
	}
	free(list);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
