// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-modprobe.c: "tsm-sim modprobe MOUNT ARGS" behaves like kmod's modprobe
 * ARGS (tools/modprobe.c) against the live mount at MOUNT: the same options
 * that matter here, messages and exit status. Without --first-time loading
 * a loaded module and removing one that is not loaded succeed silently
 * (rmmod_do_module(), insmod()); an unknown module is FATAL, a built-in one
 * cannot be removed. The work is the mount's (control file "modprobe"/"rmmod").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sim.h"

struct mp {
	const char *mount;
	bool quiet, first_time;
};

/* kmod's log_printf(): "modprobe: LEVEL: message" on stderr, unless -q */
static void say(const struct mp *o, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(const struct mp *o, const char *level, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	fprintf(stderr, "modprobe: %s: ", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* One control-file command; 0 or -errno. */
static int control(const struct mp *o, const char *cmd)
{
	char *p = sim_xasprintf("%s/%s", o->mount, CONTROL_FILE);
	int fd = open(p, O_WRONLY | O_CLOEXEC), rc = 0;
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "tsm-sim: modprobe: %s is not a live tsm-sim mount: %s\n",
			o->mount, strerror(errno));
		free(p);
		return -EBADF;
	}
	n = write(fd, cmd, strlen(cmd));
	if (n < 0)
		rc = -errno;
	close(fd);
	free(p);
	return rc;
}

/* modname_normalize(): '-' and '_' are one */
static char *normalize(const char *name)
{
	char *s = sim_xstrdup(name);

	for (char *c = s; *c; c++)
		if (*c == '-')
			*c = '_';
	return s;
}

/* modprobe's exit status for @rc, once its message is out */
static int finish(char *mod, int rc)
{
	free(mod);
	return rc ? 1 : 0;
}

static int load(const struct mp *o, const char *name, char **params, int n)
{
	char *mod = normalize(name), *cmd = sim_xasprintf("modprobe %s", mod), *t;
	struct utsname u;
	int rc;

	for (int i = 0; i < n; i++) {
		t = sim_xasprintf("%s %s", cmd, params[i]);
		free(cmd);
		cmd = t;
	}
	rc = control(o, cmd);
	free(cmd);
	if (rc == -EBADF)
		return finish(mod, rc);
	if (rc == -EEXIST && !o->first_time)
		rc = 0;	/* already in the kernel: done, unless --first-time */
	switch (rc) {
	case 0:
		break;
	case -ENOENT:
		if (uname(&u))
			strcpy(u.release, "unknown");
		say(o, "FATAL", "Module %s not found in directory /lib/modules/%s\n",
		    mod, u.release);
		break;
	case -EEXIST:
		say(o, "ERROR", "could not insert '%s': Module already in kernel\n", mod);
		break;
	case -EBADMSG:
		say(o, "ERROR", "could not insert '%s': Unknown symbol in module, or unknown parameter (see dmesg)\n",
		    mod);
		break;
	default:
		say(o, "ERROR", "could not insert '%s': %s\n", mod, strerror(-rc));
		break;
	}
	return finish(mod, rc);
}

static int unload(const struct mp *o, const char *name)
{
	char *mod = normalize(name), *cmd = sim_xasprintf("rmmod %s", mod);
	int rc = control(o, cmd);

	free(cmd);
	if (rc == -ESRCH && !o->first_time)
		rc = 0;	/* not in the kernel: done, unless --first-time */
	switch (rc) {
	case 0:
		break;
	case -EBADF:
		break;
	case -ENOENT:
		say(o, "FATAL", "Module %s not found.\n", mod);
		break;
	case -EPERM:
		say(o, "FATAL", "Module %s is builtin.\n", mod);
		break;
	case -ESRCH:
		say(o, "FATAL", "Module %s is not in kernel.\n", mod);
		break;
	default:
		say(o, "ERROR", "could not remove '%s': %s\n", mod, strerror(-rc));
		break;
	}
	return finish(mod, rc);
}

int sim_modprobe_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "remove", no_argument, 0, 'r' },
		{ "all", no_argument, 0, 'a' },
		{ "quiet", no_argument, 0, 'q' },
		{ "first-time", no_argument, 0, 3 },
		{ "help", no_argument, 0, 'h' },
		{ NULL, 0, 0, 0 }
	};
	struct mp o = { 0 };
	bool remove = false, all = false;
	char **args;
	int nargc, c, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "Usage: tsm-sim modprobe MOUNT [-r] [-a] [-q] [--first-time] MODULE [PARAM=VALUE...]\n");
		return 2;
	}
	o.mount = argv[2];
	/* the arguments after MOUNT are modprobe's own, with "modprobe" as argv[0] */
	nargc = argc - 2;
	args = sim_xcalloc(nargc + 1, sizeof(*args));
	args[0] = "modprobe";
	for (int i = 1; i < nargc; i++)
		args[i] = argv[i + 2];
	optind = 1;
	while ((c = getopt_long(nargc, args, "raqh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			remove = true;
			break;
		case 'a':
			all = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 3:
			o.first_time = true;
			break;
		case 'h':
			printf("Usage:\n\tmodprobe [options] modulename [PARAM=VALUE...]\n"
			       "\tmodprobe [options] -r modulename...\n"
			       "Options: -r --remove, -a --all, -q --quiet, --first-time\n");
			free(args);
			return 0;
		default:
			free(args);
			return 1;
		}
	}
	if (optind >= nargc) {
		say(&o, "ERROR", "missing parameters. See -h.\n");
		free(args);
		return 1;
	}
	if (remove) {
		for (int i = optind; i < nargc; i++)
			rc |= unload(&o, args[i]);
	} else if (all) {
		for (int i = optind; i < nargc; i++)
			rc |= load(&o, args[i], NULL, 0);
	} else {
		rc = load(&o, args[optind], args + optind + 1, nargc - optind - 1);
	}
	free(args);
	return rc ? 1 : 0;
}
