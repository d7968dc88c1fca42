/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Looking again at what a snapshot showed, where it changes without the
 * structure moving (tsmctl watch): where TSMs and host bridges appear, each
 * function's tsm/connect (lock and accept where it has them), each
 * host bridge's pool, the Status register of both partners' block
 * of each stream, and beside each connected DSM whose TSM gives dependents
 * contexts, the functions there and whether each has a context (tsm/dsm),
 * against what the scan saw (a new VF's comes after its add uevent, with
 * no uevent of its own). The files stay open between looks.
 */
#ifndef TSMCTL_RESCAN_H
#define TSMCTL_RESCAN_H

#include <stddef.h>

#include "tsmctl/snapshot.h"

struct rescan;

/*
 * A handle whose looks keep at most MAX_OPEN files open (the others are
 * opened for each look). It lists where TSMs and host bridges appear now:
 * call it before taking the snapshot, so that one registered while the
 * snapshot is taken shows as a move at the next look, not as the start.
 */
struct rescan *rescan_begin(size_t max_open);

/* Open what SNAP's next looks read. SNAP must outlive the handle. */
void rescan_keep(struct rescan *r, struct tsm_snapshot *snap);

/*
 * Look again: the Status registers are updated in the snapshot. 1 when
 * the structure moved (a TSM or a host bridge came or went, a connection,
 * lock or pool changed, a file vanished or could not be read as before):
 * take a new snapshot then, and a new handle. 0 otherwise. A host bridge
 * nested deeper than a faux or platform device (a VMD domain) is only
 * seen to come by the uevents of its functions.
 */
int rescan_look(struct rescan *r);

void rescan_stop(struct rescan *r);

#endif
