/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The commands: each cmd-*.c defines its const struct cmd_def (cli.h) and
 * includes this, so a definition is checked against its declaration;
 * tsmctl.c lists them in commands[].
 */
#ifndef TSMCTL_BUILTIN_H
#define TSMCTL_BUILTIN_H

#include "tsmctl/cli.h"

extern const struct cmd_def cmd_list, cmd_devices, cmd_streams, cmd_host_bridges, cmd_tree;
extern const struct cmd_def cmd_audit;
extern const struct cmd_def cmd_connect, cmd_disconnect;
extern const struct cmd_def cmd_report, cmd_evidence;
extern const struct cmd_def cmd_lock, cmd_accept, cmd_unlock;
extern const struct cmd_def cmd_wait, cmd_watch, cmd_metrics, cmd_help;
extern const struct cmd_def cmd_measurements, cmd_extend;	/* ABI.md §7.1 */
extern const struct cmd_def cmd_mitigations, cmd_verify_mitigation;	/* ABI.md §7.3 */

#endif
