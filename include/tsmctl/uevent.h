/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Waiting for TSMs on kobject uevents (NETLINK_KOBJECT_UEVENT, group 1; no
 * udev needed). The kernel sends KOBJ_ADD on tsmN at device_add() and
 * KOBJ_CHANGE once the PCI layer can use it (ABI.md §1.1, §2.8). An event is
 * only a wake-up: every decision is taken from sysfs, so a forged event can
 * at worst cause a re-check.
 */
#ifndef TSMCTL_UEVENT_H
#define TSMCTL_UEVENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define UEVENT_MSG_MAX 8192	/* the kernel's messages stay below 2 KiB + header */

struct uevent {
	const char *action;	/* "add", "change", "remove", ... (into the message) */
	const char *devpath;	/* "/devices/.../tsm/tsm0", relative to /sys */
	const char *subsystem;	/* SUBSYSTEM=, NULL if absent */
	bool synthetic;		/* SYNTH_UUID= present: a write to the object's uevent file, not a change */
};

/*
 * Parse "ACTION@DEVPATH\0KEY=VALUE\0..." (BUF need not be terminated; it is
 * copied into MSG, which the pointers then point into). -EINVAL for any other
 * shape, including ACTION=/DEVPATH= keys that contradict the header.
 */
int uevent_parse(const char *buf, size_t len, char msg[UEVENT_MSG_MAX + 1], struct uevent *ev);

struct uevent_listener {
	int fd;
	char msg[UEVENT_MSG_MAX + 1];
};

/* Open and bind the socket (non-blocking). 0 or -errno. */
int uevent_listen(struct uevent_listener *l);
void uevent_close(struct uevent_listener *l);

/*
 * Take one message: 0 and *ev; -EAGAIN when none is pending; -ENOBUFS when the
 * socket overran (events were lost: re-read the state); -EBADMSG for a message
 * that is not a kobject uevent (skip it); other -errno.
 */
int uevent_recv(struct uevent_listener *l, struct uevent *ev);

/* What tsm_wait() found ready: the names asked for, in that order; or all ready TSMs, sorted. */
struct tsm_ready {
	char **names;
	size_t n;
};
void tsm_ready_free(struct tsm_ready *r);

/*
 * Wait until every TSM in NAMES (or, with N 0, any TSM) is registered and
 * ready for PCI operations: sys/class/tsm/NAME exists, its PCI side is there
 * (tsm_pci_side(): its pci_mode, or on v6.19 the DSM candidates' tsm/, or
 * no candidate at all), and a KOBJ_ADD seen for it while listening has been
 * followed by its KOBJ_CHANGE (a synthetic event, udevadm trigger's coldplug,
 * replays the present state: it only causes a re-check). The state is
 * checked first, then again once the socket listens, on every tsm uevent,
 * RECHECK_SECONDS after the last look whatever other events came (a change
 * no uevent announces: ABI.md §2.8), and at the deadline.
 * SECONDS < 0 waits forever, 0 only checks. CMD names the command in the
 * -v line "listening for tsm uevents". Returns 0 (READY filled when not
 * NULL), -ETIMEDOUT, -EINTR when *STOP became non-zero (SIGINT/SIGTERM;
 * the caller's handler sets it), or the socket's -errno.
 */
int tsm_wait(char *const *names, size_t n, double seconds, volatile sig_atomic_t *stop,
	     const char *cmd, struct tsm_ready *ready);

#endif
