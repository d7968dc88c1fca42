/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rooted, checked access to sysfs and configfs. Every path is relative to the
 * root (`/` on a live host, --sysroot DIR otherwise) and never resolves
 * outside it. Nothing else in tsmctl opens files below /sys.
 */
#ifndef TSMCTL_SYSFS_H
#define TSMCTL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SYSFS_ATTR_MAX	4096	/* text attributes are one page in sysfs */

/* Open the root directory (NULL or "" means "/"). 0 or -errno. */
int sysfs_init(const char *sysroot);
void sysfs_exit(void);

/* The root as given by the user ("/" when live), for messages and libpci. */
const char *sysfs_root_path(void);
bool sysfs_is_live(void);
/*
 * Does a store here reach a kernel: ROOT is / (the running system, whatever
 * is mounted on its /sys), ROOT/sys is sysfs, or ROOT is a live tsm-sim
 * mount (FUSE, its control file at the top)? A copy or a capture named with
 * --sysroot would take a write as a plain file and show what no kernel did.
 */
bool sysfs_takes_stores(void);
/* PATH as the user sees it: /sys/... live, DIR/sys/... under --sysroot. */
char *sysfs_display_path(const char *path);
/* "the running kernel", or under --sysroot "this tree's kernel": for messages. */
const char *sysfs_kernel_words(void);
/* Is there anything named sys in the root? A wrong --sysroot has none. */
bool sysfs_root_has_sys(void);

/* Does PATH exist (following links inside the root)? */
bool sysfs_exists(const char *path);
/*
 * What PATH is, following links inside the root: 0 a directory this user
 * may list, -ENOTDIR something else, -ENOENT nothing (or a dangling link),
 * -ELOOP a link loop, -EACCES not listable for this user, -EXDEV a link out
 * of the root.
 */
int sysfs_dir_state(const char *path);

/*
 * Read a text attribute: at most SYSFS_ATTR_MAX bytes, one trailing newline
 * removed. -ENOENT when absent, -EISDIR / -EINVAL for a non-regular file,
 * -EILSEQ for NUL bytes, other -errno from open/read.
 */
int sysfs_read_text(const char *path, char **value);

/*
 * Typed readers of the attribute NAME in directory DIR (DIR/NAME, the same
 * system calls as the path-taking functions). 0 or -errno.
 *   _text:   the text as sysfs_read_text() gives it (one newline trimmed);
 *   _number: a number the kernel prints, parse_number()'s BASE (10: "%lu",
 *            16: "0x%x") at most MAX; -EBADMSG for text that is no such number;
 *   _link_name: the last component of the link's target ("driver" → its name);
 *   _exists: sysfs_exists(DIR/NAME).
 */
int sysfs_attr_text(const char *dir, const char *name, char **value);
int sysfs_attr_number(const char *dir, const char *name, int base, unsigned long max,
		      unsigned long *value);
int sysfs_attr_link_name(const char *dir, const char *name, char **last);
bool sysfs_attr_exists(const char *dir, const char *name);
/* DIR/NAME's permission bits (a bin attribute's writability, tsm-mr's registers): 0 or -errno. */
int sysfs_attr_mode(const char *dir, const char *name, unsigned int *mode);

/* Read a binary attribute (config) into buf; *len receives the byte count. */
int sysfs_read_bin(const char *path, uint8_t *buf, size_t size, size_t *len);

/*
 * Open a binary attribute for ranged reads (config: every dword read is a
 * config cycle): the fd, or -errno as sysfs_read_bin() would fail.
 */
int sysfs_open_bin(const char *path);

/* One pread() of up to N bytes at OFF: the count (short only at the end) or -errno. */
ssize_t sysfs_pread(int fd, void *buf, size_t n, off_t off);

/*
 * A text attribute opened with sysfs_open_bin() read again, as
 * sysfs_read_text() reads it: sysfs shows the value afresh to every read
 * from offset 0, so a file kept open costs one system call a look.
 */
int sysfs_pread_text(int fd, char **value);

/* Target of a symbolic link, as stored. */
int sysfs_readlink(const char *path, char **target);

/*
 * Resolve the symbolic link PATH to a canonical root-relative path, lexically
 * (sysfs links are relative and their directories canonical). -EXDEV when the
 * target would leave the root.
 */
int sysfs_resolve_link(const char *path, char **canonical);

/* Drop cached directory handles (before a rescan of a changing tree). */
void sysfs_forget_cache(void);

/* Names in directory PATH (no "." or ".."), sorted; free with strv_free. */
int sysfs_list(const char *path, char ***names, size_t *count);

/* Write VALUE to PATH with a single write(2). 0 or -errno from the kernel. */
int sysfs_write(const char *path, const char *value);


/* ---- configfs: items made with mkdir, binary attributes ------------------ */

/* mkdir / rmdir PATH below the root (its parent resolved as every open is). 0 or -errno. */
int sysfs_mkdir(const char *path, mode_t mode);
int sysfs_rmdir(const char *path);

/*
 * Write LEN bytes to the binary attribute PATH in one write(2), then close:
 * configfs commits a binary attribute at close, so close's result counts too.
 */
int sysfs_write_bin(const char *path, const void *buf, size_t len);

/*
 * Read a whole binary attribute of at most MAX bytes into a new buffer
 * (*buf is NULL only on error). -EFBIG when it holds more than MAX.
 */
int sysfs_read_blob(const char *path, size_t max, uint8_t **buf, size_t *len);

#endif
