/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim-fuse.h: what the live mount's files (sim-fuse*.c) share, and nothing else includes. */
#ifndef TSM_SIM_FUSE_H
#define TSM_SIM_FUSE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sim.h"

#define SYSFS_PAGE 4096

struct fuse_file_info;

struct sim_fuse {
	struct sim_model *m;
	char *backing;		/* mkdtemp() dir, removed at exit */
	char *root;		/* backing/root: the tree */
	pthread_rwlock_t rwsem;	/* pci_tsm_rwsem */
	pthread_mutex_t count_lock;	/* fault counters */
	pthread_mutex_t report_lock;	/* sim-report.c's tsm_rwsem and the report subtree */
	pthread_mutex_t accept_lock;	/* the device locks accepts take under pci_tsm_rwsem read */
	/* the late-registration timer (register_after_ms) */
	pthread_t timer;
	bool timer_running, stopping;
	pthread_mutex_t timer_lock;
	pthread_cond_t timer_cond;
	struct timespec mounted_at;	/* CLOCK_MONOTONIC when the mount existed */
	bool uevents_ok;	/* a private network namespace: queued uevents go out */
};

struct sim_fuse_handle {
	int fd;
	bool privileged;	/* opener had uid 0 (CAP_SYS_ADMIN stand-in) */
	struct sim_dev *dev;	/* device the file belongs to, or NULL */
	char *attr;		/* path below the device dir, or the full path */
	char *path;		/* as opened: FUSE passes NULL once it is removed */
	/* configfs report attribute: its configfs_buffer */
	struct sim_report_entry *rep;
	int rattr;		/* enum sim_report_attr */
	uint8_t *buf;		/* read: the show()/report; write: inblob so far */
	size_t len;
	bool filled;		/* read buffer holds the show() result */
	bool dirty;		/* bin write_in_progress: commit at close */
	/* a sysfs text attribute: read as seq_file serves it (read_shown()) */
	bool text;
	off_t read_pos;		/* where the last read of the show in buf ended */
	pthread_mutex_t read_lock;	/* seq_file's m->lock */
};

/* the mounted simulator (one per process) */
extern struct sim_fuse sim_fuse;

/* sim-fuse.c: the passthrough */
const char *sim_fuse_base_name(const char *p);
void sim_fuse_count_op(struct sim_dev *d, bool write);

/* sim-fuse-configfs.c */
char *sim_fuse_report_item(const char *path, const char **attr);
void sim_fuse_attach_report(struct sim_fuse_handle *h, const char *path);
void sim_fuse_report_commit(struct sim_fuse_handle *h);
int sim_fuse_report_read(struct sim_fuse_handle *h, char *buf, size_t size, off_t off);
int sim_fuse_report_write_bin(struct sim_fuse_handle *h, const char *buf, size_t size,
			      off_t off);
int sim_fuse_report_write_text(struct sim_fuse_handle *h, const char *buf, size_t size);
int sim_fuse_mkdir(const char *path, mode_t mode);
int sim_fuse_rmdir(const char *path);

/* sim-fuse-store.c */
/* A read of the sample's certs or transcript (memory_read_from_buffer()): true and *GOT, else false. */
bool sim_fuse_evidence_read(const char *attr, char *buf, size_t size, off_t off, int *got);
void sim_fuse_connect_pause(struct sim_model *m, struct sim_dev *d);
int sim_fuse_write(const char *path, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi);

/* sim-fuse-hold.c: steps held until the control file names them (DIR/tsm-sim-holds) */
#define HOLDS_FILE "tsm-sim-holds"
struct sim_hold;
struct sim_hold *sim_fuse_hold_arm(const char *verb, const char *bdf);
void sim_fuse_hold_wait(struct sim_hold *h);
/* 0 or -errno for a hold command on the control file, 1 for any other */
int sim_fuse_hold_release(const char *buf, size_t len);
void sim_fuse_rwsem_lock(pid_t pid, bool write);
char *sim_fuse_holds_text(size_t *len);

/* sim-fuse-timer.c */
void sim_fuse_sleep_ms(long ms);
void sim_fuse_tsm_register(struct sim_tsm *t);
void sim_fuse_tsm_pci_register(struct sim_tsm *t);
void sim_fuse_tsm_unregister(struct sim_tsm *t);
int sim_fuse_check_late_tsms(struct sim_model *m, bool *timer);
int sim_fuse_start_timer(void);
void sim_fuse_stop_timer(void);

#endif
