// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The audit trail in the system log: "op=connect bdf=0000:81:00.0 tsm=tsm0
 * result=ok uid=0 sudo_user=alice" ("op=extend register=tdx_guest/rtmr2:sha384
 * ..." for the platform's stores), one line per store, through syslog(3)
 * or, for tests, an RFC 3164 datagram to TSMCTL_SYSLOG_SOCKET.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/auditlog.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define AUDITLOG_IDENT	"tsmctl"
/* authpriv, as sudo and su log: security decisions, kept where only root reads them */
#define AUDITLOG_FACILITY	LOG_AUTHPRIV

/*
 * Append " KEY=VALUE" to LINE (the first without the space): VALUE as
 * text_escape() shows it, and a space as \x20 too: text from the tree or the
 * environment can start neither a new line nor a new field.
 */
static void add_field(struct strbuf *line, const char *key, const char *value)
{
	char *shown = text_escape(value);

	strbuf_join(line, " ", "%s=", key);
	for (const char *p = shown; *p;) {
		size_t n = strcspn(p, " ");

		strbuf_appendn(line, p, n);
		p += n;
		if (*p) {
			strbuf_append(line, "\\x20");
			p++;
		}
	}
	free(shown);
}

/* The sysroot as an absolute path when it resolves: a fleet log reader needs no cwd. */
static void add_sysroot(struct strbuf *line)
{
	char *abs = realpath(sysfs_root_path(), NULL);

	add_field(line, "sysroot", abs ? abs : sysfs_root_path());
	free(abs);
}

static char *audit_line(const char *op, const char *key, const char *object, const char *tsm,
			int err)
{
	const char *sudo_user = getenv("SUDO_USER");
	struct strbuf line = STRBUF_INIT;
	char *uid;

	add_field(&line, "op", op);
	add_field(&line, key, object);
	if (tsm)
		add_field(&line, "tsm", tsm);
	add_field(&line, "result", err ? "failed" : "ok");
	if (err) {
		const char *name = errno_symbol(-err);
		char num[16];

		snprintf(num, sizeof(num), "%d", -err);
		add_field(&line, "errno", name ? name : num);
	}
	uid = xasprintf("%u", (unsigned)getuid());
	add_field(&line, "uid", uid);
	free(uid);
	if (sudo_user && *sudo_user)
		add_field(&line, "sudo_user", sudo_user);
	/* a simulated or captured tree: never to be mistaken for this host's devices */
	if (!sysfs_is_live())
		add_sysroot(&line);
	return strbuf_take(&line);
}

/* "<PRI>Mmm dd hh:mm:ss tsmctl[PID]: LINE" to the datagram socket PATH, as glibc sends to /dev/log. */
static int send_rfc3164(const char *path, int priority, const char *line)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	char *msg;
	int fd, rc = 0;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	strftime(stamp, sizeof(stamp), "%b %e %H:%M:%S", localtime_r(&now, &tm));
	msg = xasprintf("<%d>%s %s[%d]: %s", AUDITLOG_FACILITY | priority, stamp, AUDITLOG_IDENT,
			(int)getpid(), line);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(msg);
	return rc;
}

int auditlog_store(const char *op, const char *bdf, const char *tsm, int err)
{
	return auditlog_store_object(op, "bdf", bdf, tsm, err);
}

int auditlog_store_object(const char *op, const char *key, const char *object, const char *tsm,
			  int err)
{
	/* a refused store changed nothing, yet someone tried: worth a warning, not an error */
	int priority = err ? LOG_WARNING : LOG_NOTICE;
	/* secure_getenv: a set-user-ID tsmctl never lets its caller divert the trail */
	const char *sock = secure_getenv("TSMCTL_SYSLOG_SOCKET");
	char *line = audit_line(op, key, object, tsm, err);
	int rc = 0;

	if (sock && *sock) {
		rc = send_rfc3164(sock, priority, line);
		if (rc)
			cmd_error(NULL, "audit log: cannot send to TSMCTL_SYSLOG_SOCKET %s: %s", sock,
				  strerror(-rc));
	} else {
		openlog(AUDITLOG_IDENT, LOG_PID, AUDITLOG_FACILITY);
		syslog(priority, "%s", line);
		closelog();
	}
	free(line);
	return rc;
}
