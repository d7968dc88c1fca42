/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files the user names for reading (a saved evidence directory, a trust
 * store, a reference manifest, a pin file): outside the sysroot, so not
 * sysfs.c's; a regular file, read whole, never more than the caller's limit.
 */
#ifndef TSMCTL_USERFILE_H
#define TSMCTL_USERFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * PATH's bytes into a new buffer (NUL-terminated past *LEN, for text). 0, or
 * -errno: -EISDIR / -EINVAL for what is not a regular file, -EFBIG past MAX.
 */
int userfile_read(const char *path, size_t max, uint8_t **buf, size_t *len);

/* "PATH: why" for a failed userfile_read(), allocated. */
char *userfile_error(const char *path, int err, size_t max);

#endif
