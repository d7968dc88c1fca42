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
 * One kobject uevent for the object at DIR ("sys/devices/..."): ACTION, DEVPATH,
 * SUBSYSTEM, then ENVP's keys (NULL: none), then SEQNUM, as kobject_uevent_env() orders them.
 */
int sim_uevent_send(const char *action, const char *dir, const char *subsystem,
		    char *const *envp)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP };
	const char *devpath = dir + 3;	/* kobject paths are relative to /sys */
	char *msg = NULL;
	size_t len = 0;
	FILE *f;
	int fd, rc = 0;

	pthread_mutex_lock(&send_lock);
	f = open_memstream(&msg, &len);
	if (!f) {
		pthread_mutex_unlock(&send_lock);
		return -ENOMEM;
	}
	fprintf(f, "%s@%s%cACTION=%s%cDEVPATH=%s%cSUBSYSTEM=%s%c",
		action, devpath, 0, action, 0, devpath, 0, subsystem, 0);
	for (size_t i = 0; envp && envp[i]; i++)
		fprintf(f, "%s%c", envp[i], 0);
	fprintf(f, "SEQNUM=%lu%c", ++seqnum, 0);
	if (fclose(f)) {
		pthread_mutex_unlock(&send_lock);
		free(msg);
		return -ENOMEM;
	}
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || sendto(fd, msg, len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&send_lock);
	free(msg);
	return rc;
}

/* lib/uuid.c uuid_is_valid(): 36 characters, hyphens at 8, 13, 18, 23, hex digits elsewhere */
static bool uuid_valid(const char *s)
{
	for (int i = 0; i < UUID_STRING_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

/* lib/kobject_uevent.c action_arg_word_end(): alphanumerics up to DELIM, at least one */
static const char *word_end(const char *buf, const char *buf_end, char delim)
{
	const char *next = buf;

	while (next <= buf_end && *next != delim)
		if (!isalnum((unsigned char)*next++))
			return NULL;
	return next == buf ? NULL : next;
}

/* append one key to a NULL-terminated list */
static void env_add(char ***envp, size_t *n, char *key)
{
	char **grown = realloc(*envp, (*n + 2) * sizeof(**envp));

	if (!grown)
		abort();	/* as sim_xasprintf() */
	*envp = grown;
	(*envp)[(*n)++] = key;
	(*envp)[*n] = NULL;
}

/* lib/kobject_uevent.c kobject_action_args(): "UUID[ KEY=VALUE...]" into SYNTH_UUID, SYNTH_ARG_* */
static int action_args(const char *buf, size_t count, char ***envp)
{
	const char *next, *buf_end, *key;
	size_t n = 0;
	int key_len;

	if (count && (buf[count - 1] == '\n' || buf[count - 1] == '\0'))
		count--;
	if (!count)
		return -EINVAL;
	if (count < UUID_STRING_LEN || !uuid_valid(buf))
		return -EINVAL;
	env_add(envp, &n, sim_xasprintf("SYNTH_UUID=%.*s", UUID_STRING_LEN, buf));
	next = buf + UUID_STRING_LEN;
	buf_end = buf + count - 1;
	while (next <= buf_end) {
		if (*next != ' ')
			return -EINVAL;
		key = ++next;
		if (key > buf_end)
			return -EINVAL;
		next = word_end(key, buf_end, '=');
		if (!next || next > buf_end || *next != '=')
			return -EINVAL;
		key_len = (int)(next - key);
		if (++next > buf_end)
			return -EINVAL;
		buf = next;
		next = word_end(buf, buf_end, ' ');
		if (!next)
			return -EINVAL;
		env_add(envp, &n, sim_xasprintf("SYNTH_ARG_%.*s=%.*s", key_len, key,
						(int)(next - buf), buf));
	}
	return 0;
}

void sim_uevent_env_free(char **envp)
{
	for (size_t i = 0; envp && envp[i]; i++)
		free(envp[i]);
	free(envp);
}

int sim_uevent_synth_parse(const char *buf, size_t count, const char **action, char ***envp)
{
	static const char *const actions[] = { "add", "remove", "change", "move",
					       "online", "offline", "bind", "unbind" };
	const char *args = NULL;
	size_t count_first, full = count;
	int rc;

	*action = NULL;
	*envp = NULL;
	/* kobject_action_type(): one trailing newline or NUL, then the first word */
	if (count && (buf[count - 1] == '\n' || buf[count - 1] == '\0'))
		count--;
	if (!count)
		return -EINVAL;
	args = memchr(buf, ' ', count);
	count_first = args ? (size_t)(args - buf) : count;
	if (args)
		args++;
	for (size_t i = 0; i < sizeof(actions) / sizeof(*actions); i++)
		if (!strncmp(actions[i], buf, count_first) && !actions[i][count_first])
			*action = actions[i];
	if (!*action)
		return -EINVAL;
	/* kobject_synth_uevent(): no arguments is SYNTH_UUID=0 */
	if (!args) {
		size_t n = 0;

		env_add(envp, &n, sim_xasprintf("SYNTH_UUID=0"));
		return 0;
	}
	rc = action_args(args, full - (size_t)(args - buf), envp);
	if (rc) {
		sim_uevent_env_free(*envp);
		*envp = NULL;
	}
	return rc;
}
