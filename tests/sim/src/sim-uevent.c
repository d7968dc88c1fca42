// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-uevent.c: the kobject uevents the kernel multicasts on NETLINK_KOBJECT_UEVENT
 * group 1 ("ACTION@DEVPATH\0ACTION=...\0DEVPATH=...\0SUBSYSTEM=...\0SEQNUM=...\0",
 * lib/kobject_uevent.c). A root process may send to that group too; the
 * message then reaches every listener in the sender's network namespace,
 * udev included, so the simulator only sends from a private namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define UEVENT_GROUP 1	/* the kernel's group; udev re-broadcasts on 2 */
#define PROC_NET_INIT_INO 0xeffffff9u	/* init_net's nsfs inode (include/linux/proc_ns.h) */

static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long seqnum;

/*
 * 0 when this process is in another network namespace than PID 1 (the host's
 * udev); when PID 1's is hidden from us, than the initial one.
 */
int sim_uevent_allowed(char **why)
{
	struct stat self, init;
	bool same;

	if (stat("/proc/self/ns/net", &self)) {
		int rc = -errno;

		*why = sim_xasprintf("cannot read /proc/self/ns/net: %s", strerror(-rc));
		return rc;
	}
	if (!stat("/proc/1/ns/net", &init))
		same = self.st_dev == init.st_dev && self.st_ino == init.st_ino;
	else
		same = self.st_ino == PROC_NET_INIT_INO;
	if (same) {
		*why = sim_xasprintf("a TSM registers late and sends uevents, but tsm-sim runs in "
				     "PID 1's network namespace, where they would reach the host's "
				     "udev; run it in a private one (unshare -n, or nsenter --net=FILE)");
		return -EPERM;
	}
	return 0;
}

/* One kobject uevent for the object at DIR ("sys/devices/..."). */
int sim_uevent_send(const char *action, const char *dir, const char *subsystem)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP };
	const char *devpath = dir + 3;	/* kobject paths are relative to /sys */
	char *msg;
	int len, fd, rc = 0;

	pthread_mutex_lock(&send_lock);
	len = asprintf(&msg, "%s@%s%cACTION=%s%cDEVPATH=%s%cSUBSYSTEM=%s%cSEQNUM=%lu%c",
		       action, devpath, 0, action, 0, devpath, 0, subsystem, 0, ++seqnum, 0);
	if (len < 0) {
		pthread_mutex_unlock(&send_lock);
		return -ENOMEM;
	}
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || sendto(fd, msg, (size_t)len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&send_lock);
	free(msg);
	return rc;
}
