/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoded evidence for people and scripts (`tsmctl evidence -v`): each
 * object's fields as text and tables on stdout, or as the "decoded" member
 * of its object in -J (schema/evidence.schema.json). No I/O but stdout.
 */
#ifndef TSMCTL_EVIDENCE_VIEW_H
#define TSMCTL_EVIDENCE_VIEW_H

#include <stdint.h>

#include <json.h>

#include "tsmctl/evidence-decoded.h"

/* Object TYPE decoded, null for an empty object. */
struct json_object *ev_view_json(const struct ev_decoded *d, unsigned int type);

/* The objects of MASK that are not empty, one section each; 0 or -errno of the tables. */
int ev_view_print(const struct ev_decoded *d, uint32_t mask);

#endif
