/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A slot ("41:00") named as the target of a verb: the functions it stands for. */
#ifndef TSMCTL_SLOT_H
#define TSMCTL_SLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "tsmctl/names.h"

#define SLOT_MAX_FUNCS	8

/*
 * The targets SLOT ("DDDD:BB:DD.*", as slot_canonical() writes it; ARG as
 * the user wrote it) stands for, into OUT: with DSM_ONLY (connect,
 * disconnect) its function 0, the DSM every function of the slot depends
 * on (ABI.md §2.1, §2.2); else (lock, accept, unlock: a TDI each) every
 * function of it in the tree, function 0 when there is none (whose absence
 * the caller then reports). A note on stderr says what CMD takes it for.
 * Returns how many, at least 1.
 */
size_t slot_targets(const char *cmd, const char *arg, const char *slot, bool dsm_only,
		    char out[SLOT_MAX_FUNCS][BDF_MAX]);

#endif
