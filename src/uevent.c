// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kobject uevent listener and the TSM readiness wait built on it
 * (ABI.md §1.1, §2.8). Events never decide anything: they say "look again".
 */
#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/log.h"
#include "tsmctl/names.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/uevent.h"
#include "tsmctl/util.h"

#define UEVENT_GROUP_KERNEL	1	/* the kernel's own group; udev re-sends on 2 */
#define UEVENT_RCVBUF		(1 << 20)	/* room for a burst such as a PCI rescan */
#define RECHECK_SECONDS		5	/* a look this long after the last, event or none: none may come (a container) */
#define TEXT_OF(n)		#n
#define NUMBER_TEXT(n)		TEXT_OF(n)	/* a macro's value as a string literal */

int uevent_listen(struct uevent_listener *l)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP_KERNEL };
	int size = UEVENT_RCVBUF, rc;

	l->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_KOBJECT_UEVENT);
	if (l->fd < 0)
		return -errno;
	/* FORCE needs CAP_NET_ADMIN; without it the plain request is capped by rmem_max */
	if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(l->fd, (struct sockaddr *)&addr, sizeof(addr))) {
		rc = -errno;
		close(l->fd);
		l->fd = -1;
		return rc;
	}
	return 0;
}

void uevent_close(struct uevent_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

int uevent_recv(struct uevent_listener *l, struct uevent *ev)
{
	char buf[UEVENT_MSG_MAX];
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	n = recvmsg(l->fd, &mh, MSG_TRUNC);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if ((size_t)n > sizeof(buf) || (mh.msg_flags & MSG_TRUNC))
		return -EBADMSG;	/* no kobject uevent is that long */
	/* The sender is not checked (pid 0 = kernel): an event only causes a re-check. */
	return uevent_parse(buf, (size_t)n, l->msg, ev) ? -EBADMSG : 0;
}

void tsm_ready_free(struct tsm_ready *r)
{
	strv_free(r->names, r->n);
	r->names = NULL;
	r->n = 0;
}

/* The wait's view: TSMs whose KOBJ_ADD came while listening, without KOBJ_CHANGE yet. */
struct tsm_waiter {
	char *const *names;
	size_t n;
	char **pending;
	size_t nr_pending, cap_pending;
};

static bool is_pending(const struct tsm_waiter *w, const char *name)
{
	for (size_t i = 0; i < w->nr_pending; i++)
		if (streq(w->pending[i], name))
			return true;
	return false;
}

static void set_pending(struct tsm_waiter *w, const char *name, bool pending)
{
	for (size_t i = 0; i < w->nr_pending; i++) {
		if (!streq(w->pending[i], name))
			continue;
		if (!pending) {
			free(w->pending[i]);
			w->pending[i] = w->pending[--w->nr_pending];
		}
		return;
	}
	if (pending) {
		xgrow(&w->pending, &w->cap_pending, w->nr_pending, sizeof(*w->pending));
		w->pending[w->nr_pending++] = xstrdup(name);
	}
}

/*
 * Is T ready: registered, not "added, not announced" by the events seen, and
 * its PCI side there (ABI.md §1.1, §2.8)? ALL: a scan of every function,
 * taken on first need, for "no group because no DSM candidate".
 */
static bool tsm_ready(const struct tsm_waiter *w, const struct tsm_snapshot *snap,
		      const struct tsm *t, struct tsm_snapshot *all, bool *all_scanned)
{
	if (!t || is_pending(w, t->name))
		return false;
	switch (tsm_pci_side(snap, t)) {
	case TSM_PCI_SHOWN:
		return true;
	case TSM_PCI_NOT_YET:
		return false;
	case TSM_PCI_NO_GROUP:
		break;
	}
	if (!*all_scanned) {
		snapshot_scan(all, SCAN_ALL_FUNCS);
		*all_scanned = true;
	}
	/* no tsm/ anywhere: ready only when no function would show one */
	for (size_t i = 0; i < all->nr_funcs; i++)
		if (func_dsm_candidate(all->funcs[i]))
			return false;
	return true;
}

/* Is the wait over? READY (when not NULL) gets the TSMs that are ready. */
static bool check_ready(const struct tsm_waiter *w, struct tsm_ready *ready)
{
	struct tsm_snapshot snap, all = { 0 };
	bool all_scanned = false, done;
	char **names;
	size_t nr_ok = 0;

	sysfs_forget_cache();	/* the tree changed under us: no stale directory handles */
	snapshot_scan(&snap, SCAN_TSMS | SCAN_DEVICES);
	names = xcalloc((w->n ? w->n : snap.nr_tsms) + 1, sizeof(*names));
	if (w->n) {
		for (size_t i = 0; i < w->n; i++)
			if (tsm_ready(w, &snap, snapshot_find_tsm(&snap, w->names[i]), &all,
				      &all_scanned))
				names[nr_ok++] = xstrdup(w->names[i]);
		done = nr_ok == w->n;
	} else {
		/* any TSM: those ready, in the scan's order (by id) */
		for (size_t i = 0; i < snap.nr_tsms; i++)
			if (tsm_ready(w, &snap, snap.tsms[i], &all, &all_scanned))
				names[nr_ok++] = xstrdup(snap.tsms[i]->name);
		done = nr_ok > 0;
	}
	if (done && ready) {
		ready->names = names;
		ready->n = nr_ok;
	} else {
		strv_free(names, nr_ok);
	}
	if (all_scanned)
		snapshot_free(&all);
	snapshot_free(&snap);
	return done;
}

/* A tsm uevent moves a TSM in or out of "added, not announced yet"; false for other events. */
static bool note_event(struct tsm_waiter *w, const struct uevent *ev)
{
	const char *name = path_base(ev->devpath);
	int id;

	if (!streq(ev->subsystem, "tsm") || tsm_name_parse(name, &id))
		return false;
	/* a coldplug's add of a TSM ready long ago: look again, but the KOBJ_CHANGE it awaits never comes */
	if (ev->synthetic)
		return true;
	if (streq(ev->action, "add"))
		set_pending(w, name, true);
	else if (streq(ev->action, "change") || streq(ev->action, "remove"))
		set_pending(w, name, false);
	return true;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What made tsm_wait() look at sysfs: -v names it after each look. */
enum look_cause { LOOK_NONE, LOOK_LISTENING, LOOK_EVENT, LOOK_OVERRUN, LOOK_DUE, LOOK_DEADLINE };

static const char *const look_causes[] = {
	[LOOK_LISTENING] = "listening now",
	[LOOK_EVENT] = "a tsm uevent",
	[LOOK_OVERRUN] = "a socket overrun, events lost",
	[LOOK_DUE] = "due " NUMBER_TEXT(RECHECK_SECONDS) " s after the last look",
	[LOOK_DEADLINE] = "the deadline",
};

/*
 * Drain the socket. *CAUSE: a tsm event came, or the socket overran (then
 * what was pending is forgotten: only sysfs can tell). 0 or -errno.
 */
static int drain(struct uevent_listener *l, struct tsm_waiter *w, enum look_cause *cause)
{
	struct uevent ev;
	int rc;

	for (;;) {
		rc = uevent_recv(l, &ev);
		if (rc == -EAGAIN)
			return 0;
		if (rc == -EBADMSG)
			continue;
		if (rc == -ENOBUFS) {
			/* overrun: only sysfs can tell now, so trust what it shows */
			strv_free(w->pending, w->nr_pending);
			w->pending = NULL;
			w->nr_pending = w->cap_pending = 0;
			*cause = LOOK_OVERRUN;
			continue;
		}
		if (rc == -EINTR)
			continue;
		if (rc)
			return rc;
		if (note_event(w, &ev) && *cause == LOOK_NONE)
			*cause = LOOK_EVENT;
	}
}

int tsm_wait(char *const *names, size_t n, double seconds, volatile sig_atomic_t *stop,
	     const char *cmd, struct tsm_ready *ready)
{
	struct tsm_waiter w = { .names = names, .n = n };
	struct uevent_listener l = { .fd = -1 };
	double deadline = now_seconds() + seconds, next_look = 0;
	sigset_t block, old;
	int rc;

	if (ready)
		memset(ready, 0, sizeof(*ready));
	if (check_ready(&w, ready))
		return 0;
	if (seconds == 0)
		return -ETIMEDOUT;
	/* Listen first, then look again: an event between the two looks is not lost. */
	rc = uevent_listen(&l);
	if (rc)
		return rc;
	/* Signals are delivered only inside ppoll(), so none slips in between check and sleep. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (log_verbose())
		cmd_note(cmd, "listening for tsm uevents");
	for (enum look_cause cause = LOOK_LISTENING;;) {
		struct pollfd pfd = { .fd = l.fd, .events = POLLIN };
		struct timespec ts;
		double left, now;

		/* other subsystems' events (the kernel sends plenty) change nothing here */
		if (cause != LOOK_NONE) {
			bool done = check_ready(&w, ready);

			/* (not ready at the deadline: the caller says so) */
			if (log_verbose() && (done || cause != LOOK_DEADLINE))
				cmd_note(cmd, "%s (looked at sysfs: %s)", done ? "ready" : "still waiting",
					 look_causes[cause]);
			if (done || cause == LOOK_DEADLINE) {
				rc = done ? 0 : -ETIMEDOUT;
				break;
			}
			next_look = now_seconds() + RECHECK_SECONDS;
		}
		cause = LOOK_NONE;
		if (stop && *stop) {
			rc = -EINTR;
			break;
		}
		now = now_seconds();
		left = next_look - now;
		if (seconds > 0) {
			if (deadline <= now) {
				/* the deadline's own look: sysfs may say what no event did */
				cause = LOOK_DEADLINE;
				continue;
			}
			if (left > deadline - now)
				left = deadline - now;
		}
		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		rc = ppoll(&pfd, 1, &ts, &old);
		if (rc < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (rc > 0 && (rc = drain(&l, &w, &cause)))
			break;
		/* due by the clock: a stream of other events never puts the look off */
		now = now_seconds();
		if (cause == LOOK_NONE && seconds > 0 && deadline <= now)
			cause = LOOK_DEADLINE;
		else if (cause == LOOK_NONE && next_look <= now)
			cause = LOOK_DUE;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	uevent_close(&l);
	strv_free(w.pending, w.nr_pending);
	return rc;
}
