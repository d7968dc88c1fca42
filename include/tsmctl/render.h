/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshot objects → JSON objects and table text, shared by the views and the actions. */
#ifndef TSMCTL_RENDER_H
#define TSMCTL_RENDER_H

#include <json.h>
#include <stdarg.h>
#include <stdint.h>

#include "tsmctl/snapshot.h"

/*
 * "0000:41:00.0" style device object for the devices view; DETAIL is the
 * object of its "detail" key (taken over), NULL for null (not devices -v).
 */
struct json_object *render_device_json(const struct pci_func *f, struct json_object *detail);
/*
 * One list view object. LOCKED, ACCEPTED and the host bridges HBS are the
 * model's answers about T (functions whose lock it holds, bridges carrying its streams);
 * "psp" its PSP's security attributes when it is a SEV-TIO TSM (ABI.md §7.2).
 */
struct json_object *render_tsm_json(const struct tsm_snapshot *snap, const struct tsm *t);
/* One host-bridges view object. */
struct json_object *render_hb_json(const struct host_bridge *hb);
/* A Selective block's registers: what a stream partner and devices -v show of it. */
void render_sel_block_json(struct json_object *o, const struct ide_sel_stream *b);
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
/* The same for a status register's state field (a Link block's too). */
char *render_state_word(unsigned int state);
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
/*
 * The TYPE cell: the pcie_type, or, config past the header unreadable, what
 * the header says (func_header_kind(): "endpoint", "bridge"); NULL unknown.
 */
const char *render_func_type(const struct pci_func *f);

/* The columns a function shows in devices (its ids) and tree: one place for their cells. */
enum func_cell {
	FC_BDF, FC_VENDOR_ID, FC_DEVICE_ID, FC_VENDOR, FC_DEVICE, FC_TYPE, FC_TEE, FC_IDE, FC_DOE,
	FC_TSMDIR, FC_CONNECTED, FC_DSM, FC_BOUND, FC_AUTH, FC_LOCKED, FC_ACCEPTED, FC_DRIVER,
	FC_ROOT_PORT, FC_HB, FC_STATE,
};
char *render_func_cell(const struct pci_func *f, enum func_cell col);
/*
 * A function's TSM state in words (tsmctl-tree(8), STATE): connected,
 * not-connected, dependent, locked, accepted, unlocked, with ",bound";
 * "(unreadable)" or "(malformed)" where an attribute could not be used.
 */
char *render_func_state(const struct pci_func *f);
/* ---- the platform state beside the TSM (render-platform.c, ABI.md §7) ---- */

/* N bytes as lower-case hex. */
char *render_hex(const uint8_t *b, size_t n);
/* What a PSP bit's VALUE (1, 0) says: "debug locked", "unlocked for debugging". */
const char *render_psp_bit_words(enum psp_bit bit, int value);
/* render_vline() with the arguments given. */
void render_line(int depth, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* list -v: the PSP's security attributes, one per line at DEPTH. */
void render_psp_text(const struct psp_security *p, int depth);
/* One register of group G (measurements -J, report -J). */
struct json_object *render_mr_json(const struct measurements *g,
				   const struct measurement_register *r);

/* One line of a -v text view, indented DEPTH levels, escaped (render-detail.c). */
void render_vline(int depth, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* devices -v: one function in full, as text on stdout (render-detail.c). */
void render_device_detail_text(const struct tsm_snapshot *snap, const struct pci_func *f);
/* devices -v -J: the device object's "detail". */
struct json_object *render_device_detail_json(const struct tsm_snapshot *snap,
					      const struct pci_func *f);
/*
 * The views' JSON callbacks (struct view .json), ITEM the view's object:
 * a TSM, a host bridge, a stream, a function (devices; devices -v's in render-detail.c).
 */
struct json_object *render_tsm_item_json(const struct tsm_snapshot *snap, const void *item);
struct json_object *render_hb_item_json(const struct tsm_snapshot *snap, const void *item);
struct json_object *render_stream_item_json(const struct tsm_snapshot *snap, const void *item);
struct json_object *render_device_item_json(const struct tsm_snapshot *snap, const void *item);
struct json_object *render_device_detail_item_json(const struct tsm_snapshot *snap,
						   const void *item);
/* A host bridge's pool: available_secure_streams, "none" without one, or why it is unknown. */
char *render_pool_cell(const struct host_bridge *hb);
/* "tsm0,tsm1": the TSMs using a host bridge (a pool may serve several). */
char *render_hb_tsms(const struct host_bridge *hb);

#endif
