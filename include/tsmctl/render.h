/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshot objects → JSON objects and table text, shared by the views and the actions. */
#ifndef TSMCTL_RENDER_H
#define TSMCTL_RENDER_H

#include <json.h>

#include "tsmctl/snapshot.h"

/* "0000:41:00.0" style device object for the devices view. */
struct json_object *render_device_json(const struct pci_func *f);
/* The IDE capability summary, null when unknown (needs root) or absent. */
struct json_object *render_ide_cap_json(const struct pci_func *f);
/* One streams-view object. */
struct json_object *render_stream_json(const struct ide_stream *s);
/* The short form actions report: name, host_bridge, stream_id, endpoint_state, root_port_state. */
struct json_object *render_stream_brief_json(const struct ide_stream *s);

/*
 * An attribute that exists but whose value is unusable (ERR: -errno reading
 * it, -EBADMSG read but malformed): "(unreadable)", or "(malformed) VALUE"
 * in a table cell, else the value (NULL when empty); in JSON a "read_errors"
 * member NAME: "EACCES" or "malformed" (the word), added when ERR is set.
 */
char *render_attr_cell(const char *value, int err);
const char *render_read_error_word(int err);
void render_read_error(struct json_object *errors, const char *name, int err);

/* "aes-gcm-256-96b", or "reserved(N)" for an id the kernel does not define. */
char *render_algorithm(unsigned int alg);
/* "secure", "insecure", "reserved(N)"; NULL when the block is unknown. */
char *render_state(const struct ide_sel_stream *b);
/*
 * A partner's state in the one vocabulary of tables, actions and watch
 * (enum partner_state): "secure", "disabled", "reserved(N)", "needs-root",
 * ..., with "+ide-fail" appended when the block has IDE_FAIL set.
 */
char *render_partner_state(const struct ide_stream *s, bool endpoint);
/* Table text for the IDE capability: "link:4 sel:1" or "-" */
char *render_ide_cap_text(const struct pci_func *f);
/* The device's pcie_type name, NULL when unknown. */
const char *render_pcie_type(const struct pci_func *f);

#endif
