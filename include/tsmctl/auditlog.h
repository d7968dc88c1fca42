/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit trail: one system-log line per store that changes security
 * state (connect, disconnect, lock, accept, unlock; extend, verify-mitigation),
 * with who asked, the device (or register, mitigation), the TSM, the
 * operation and what the kernel answered.
 */
#ifndef TSMCTL_AUDITLOG_H
#define TSMCTL_AUDITLOG_H

/*
 * Log the store of OP ("connect", ...) to BDF for TSM (NULL: not known)
 * that the kernel answered with ERR (0 or -errno). Through syslog(3), or to
 * the unix datagram socket TSMCTL_SYSLOG_SOCKET names (tests). Returns 0 or
 * the -errno of that socket; syslog(3) itself reports nothing.
 */
int auditlog_store(const char *op, const char *bdf, const char *tsm, int err);
/* The same for a store to another object: KEY=OBJECT instead of bdf=BDF ("register", ...). */
int auditlog_store_object(const char *op, const char *key, const char *object, const char *tsm,
			  int err);

#endif
