// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-uevent.c: the kobject uevents the kernel multicasts on NETLINK_KOBJECT_UEVENT
 * group 1 ("ACTION@DEVPATH\0ACTION=...\0DEVPATH=...\0SUBSYSTEM=...\0SEQNUM=...\0",
 * lib/kobject_uevent.c). A root process may send to that group too; the
 * message then reaches every listener in the sender's network namespace,
 * udev included, so the simulator only sends from a private namespace.
 */
#define _GNU_SOURCE
#include <ctype.h>
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
#define UUID_STRING_LEN 36	/* include/linux/uuid.h */
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

/*
 * One kobject uevent for the object at DIR ("sys/devices/..."), its keys in
 * kobject_uevent_env()'s order (lib/kobject_uevent.c): ACTION, DEVPATH,
 * SUBSYSTEM, the caller's ENV (NULL-terminated, or NULL), SEQNUM. The kset's
 * own keys (dev_uevent(): DRIVER, PCI_SLOT_NAME, ...) are left out: a guess
 * that no listener of the simulator needs them.
 */
static int send_env(const char *action, const char *dir, const char *subsystem,
		    const char *const *env)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP };
	const char *devpath = dir + 3;	/* kobject paths are relative to /sys */
	char *msg = NULL;
	size_t len = 0;
	FILE *f;
	int fd, rc = 0;

	pthread_mutex_lock(&send_lock);
	f = open_memstream(&msg, &len);
	if (!f)
		abort();
	/* "ACTION@DEVPATH\0KEY=VALUE\0...": every string with its NUL */
	fprintf(f, "%s@%s%cACTION=%s%cDEVPATH=%s%cSUBSYSTEM=%s%c", action, devpath, 0, action,
		0, devpath, 0, subsystem, 0);
	for (size_t i = 0; env && env[i]; i++)
		fprintf(f, "%s%c", env[i], 0);
	fprintf(f, "SEQNUM=%lu%c", ++seqnum, 0);
	if (fclose(f))
		abort();
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || sendto(fd, msg, len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&send_lock);
	free(msg);
	return rc;
}

int sim_uevent_send(const char *action, const char *dir, const char *subsystem)
{
	return send_env(action, dir, subsystem, NULL);
}

/* kobject_actions[] (lib/kobject_uevent.c): the words a uevent file takes */
static const char *const synth_actions[] = {
	"add", "remove", "change", "move", "online", "offline", "bind", "unbind", NULL,
};

/* uuid_is_valid() (lib/uuid.c): 8-4-4-4-12 hex digits */
static bool uuid_valid(const char *s)
{
	for (int i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* action_arg_word_end(): alphanumerics up to DELIM or past END; NULL if none or another byte */
static const char *word_end(const char *p, const char *end, char delim)
{
	const char *start = p;

	while (p <= end && *p != delim)
		if (!isalnum((unsigned char)*p++))
			return NULL;
	return p == start ? NULL : p;
}

#define UEVENT_NUM_ENVP		64	/* include/linux/kobject.h */
#define UEVENT_BUFFER_SIZE	2048

/*
 * kobject_action_args(): "UUID[ KEY=VALUE...]" (one trailing newline or NUL
 * dropped) into ENV as SYNTH_UUID= and SYNTH_ARG_KEY=VALUE; 0 or -EINVAL,
 * also when its kobj_uevent_env (64 keys, 2048 bytes) is full.
 */
static int synth_args(const char *buf, size_t count, char **env, size_t *n)
{
	const char *next, *end, *key;
	size_t bytes = 48;	/* "SYNTH_UUID=" and 36 digits with their NUL */
	int key_len;

	if (count && (buf[count - 1] == '\n' || !buf[count - 1]))
		count--;
	if (count < 36 || !uuid_valid(buf))
		return -EINVAL;
	env[(*n)++] = sim_xasprintf("SYNTH_UUID=%.36s", buf);
	next = buf + 36;
	end = buf + count - 1;
	while (next <= end) {
		if (*next != ' ' || (key = ++next) > end)
			return -EINVAL;
		next = word_end(key, end, '=');
		if (!next || next > end || *next != '=')
			return -EINVAL;
		key_len = (int)(next - key);
		if (++next > end)
			return -EINVAL;
		buf = next;
		next = word_end(buf, end, ' ');
		if (!next)
			return -EINVAL;
		bytes += sizeof("SYNTH_ARG_=") + (size_t)key_len + (size_t)(next - buf);
		if (*n >= UEVENT_NUM_ENVP || bytes > UEVENT_BUFFER_SIZE)
			return -EINVAL;
		env[(*n)++] = sim_xasprintf("SYNTH_ARG_%.*s=%.*s", key_len, key,
					    (int)(next - buf), buf);
	}
	return 0;
}

int sim_uevent_synth(const char *dir, const char *subsystem, const char *buf, size_t count,
		     bool send)
{
	const char *args = memchr(buf, ' ', count), *action = NULL;
	size_t first, left = count, n = 0;
	char *env[UEVENT_NUM_ENVP + 1] = { 0 };	/* NULL-terminated */
	int rc = 0;

	/* kobject_action_type(): the exact word, one trailing newline or NUL dropped */
	if (left && (buf[left - 1] == '\n' || !buf[left - 1]))
		left--;
	if (args && (size_t)(args - buf) >= left)
		args = NULL;
	first = args ? (size_t)(args - buf) : left;
	for (const char *const *a = synth_actions; *a && left; a++)
		if (strlen(*a) == first && !memcmp(*a, buf, first))
			action = *a;
	if (!action)
		return -EINVAL;
	/* no arguments: SYNTH_UUID=0; else the arguments from the byte after the blank */
	if (!args)
		env[n++] = sim_xasprintf("SYNTH_UUID=0");
	else
		rc = synth_args(args + 1, count - (size_t)(args + 1 - buf), env, &n);
	/* dev_uevent_filter(): a device on no bus and in no class sends nothing, and that is success */
	if (!rc && subsystem && send)
		rc = send_env(action, dir, subsystem, (const char *const *)env);
	for (size_t i = 0; i < n; i++)
		free(env[i]);
	return rc;
}
