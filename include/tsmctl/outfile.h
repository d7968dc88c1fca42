/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output files the user names (metrics --output-file, report --outblob ...):
 * "-" is stdout; anything else is written to a temporary file beside it and
 * renamed over it at the end, so a reader never sees half a file. A name that
 * exists and is not a regular file (a device node, FIFO, socket, directory,
 * or a symbolic link, e.g. /dev/stdout) is refused: a rename would replace it.
 */
#ifndef TSMCTL_OUTFILE_H
#define TSMCTL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct outfile {
	const char *path;	/* as given */
	bool to_stdout;		/* "-" */
	char *tmp;		/* the temporary file beside path */
	int fd;
	const char *refused;	/* why PATH was refused: "a symbolic link", ... */
	const char *step;	/* what failed: "creating a temporary file", ... */
};

/*
 * Check PATH and create its temporary file with MODE. 0, or -errno with
 * o->step set; -EEXIST with o->refused set when PATH is not a regular file.
 */
int outfile_open(struct outfile *o, const char *path, mode_t mode);

/* Write all of BUF (to stdout for "-"); 0 or -errno. */
int outfile_write(struct outfile *o, const void *buf, size_t len);

/* fsync, close and rename into place, then sync the directory; 0 or -errno with o->step. */
int outfile_commit(struct outfile *o);

/* Drop the temporary file (after a failure, or when nothing is to be written). */
void outfile_discard(struct outfile *o);

/* "FILE: is a symbolic link, not a regular file: refusing to replace it ..." for a failed open. */
char *outfile_error(const struct outfile *o, int err);

#endif
