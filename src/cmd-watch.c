// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl watch: look at TSMs, host bridges, connections, IDE streams and
 * stream pools at an interval and print only what changed, one line (or one
 * JSON object) per event. The first scan is the baseline; events are the
 * differences. Between two scans only what can change without the
 * structure moving is looked at again (rescan.c); a uevent, or a look that
 * sees the structure move, takes a new scan.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/log.h"
#include "tsmctl/output.h"
#include "tsmctl/render.h"
#include "tsmctl/rescan.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/stopsig.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/uevent.h"
#include "tsmctl/util.h"

/* What the stream view also needs, no more: no root-port survey, no SR-IOV. */
#define WATCH_SCAN		(SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES)
#define WATCH_DEFAULT_INTERVAL	2.0
#define WATCH_MIN_INTERVAL	0.1
#define WATCH_MAX_INTERVAL	86400.0
#define WATCH_SPARE_FDS		64	/* kept free of the files a watch keeps open */
#define WATCH_SETTLE		0.05	/* no move for this long before the scan: a module adds many devices */
#define WATCH_SETTLE_MAX	1.0	/* the longest a stream of moves puts the scan off */

/* watch's own options; parse_args() checks the values */
static struct watch_param {
	const char *interval, *count;
	bool exit_on_fail;
} param;

enum severity { SEV_INFO, SEV_FAIL };

/*
 * The part of a snapshot watch compares, in the snapshot's order. Strings
 * are the snapshot's: the one compared with stays alive until the diff is
 * done. What a look changes in place (the Status registers) is copied.
 */
struct w_dev {
	const struct pci_func *f;
	const char *tsm;	/* connected TSM, NULL when not connected */
	const char *dsm;	/* a dependent: the DSM tsm/dsm names, NULL without a context */
};

struct w_stream {
	const struct ide_stream *s;
	const char *endpoint;	/* its BDF, "dangling" or "unknown" */
	bool secure, insecure;	/* stream_secure(), stream_insecure(): IDE_FAIL is told apart */
	bool ide_fail;
	bool dangling;		/* the link names no device below its host bridge */
};

struct w_hb {
	const struct host_bridge *hb;
	long long available;	/* -1: no pool file */
};

struct w_state {
	const struct tsm **tsms;
	size_t nr_tsms;
	struct w_dev *devs;
	size_t nr_devs;
	struct w_stream *streams;
	size_t nr_streams;
	struct w_hb *hbs;
	size_t nr_hbs;
};

/* A snapshot being watched: the scan, and what the looks between scans read. */
struct watched {
	struct tsm_snapshot snap;
	struct rescan *rescan;
};

struct watcher {
	bool json;
	bool failed;		/* a failure-class event was printed */
	size_t nr_failed;
	bool baseline;		/* the first scan: only failures, each marked as found at start */
	bool out_failed;	/* stdout took no event (a full disk): the watch ends, exit 1 */
};

static int cmp_dev(const void *a, const void *b)
{
	return func_cmp(&((const struct w_dev *)a)->f, &((const struct w_dev *)b)->f);
}

/* Host bridge, then H.R.E: a 6.19-rc1 link found in a TSM's dir joins its host bridge's. */
static int cmp_stream(const void *a, const void *b)
{
	const struct ide_stream *x = ((const struct w_stream *)a)->s;
	const struct ide_stream *y = ((const struct w_stream *)b)->s;
	int c = hb_cmp(&x->hb, &y->hb);

	return c ? c : stream_cmp(&x, &y);
}

static int cmp_hb(const void *a, const void *b)
{
	return hb_cmp(&((const struct w_hb *)a)->hb, &((const struct w_hb *)b)->hb);
}

/* Each list in the order diff's merges walk: the snapshot's, without a sort where it has one. */
static void state_take(struct w_state *w, const struct tsm_snapshot *snap)
{
	memset(w, 0, sizeof(*w));
	w->tsms = xcalloc(snap->nr_tsms + 1, sizeof(*w->tsms));
	for (size_t i = 0; i < snap->nr_tsms; i++)
		w->tsms[w->nr_tsms++] = snap->tsms[i];
	w->devs = xcalloc(snap->nr_funcs + 1, sizeof(*w->devs));
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];
		bool dependent = !f->has_connect && f->has_dsm;	/* a DSM's function (ABI.md §2.2) */

		if (!f->has_connect && !dependent)
			continue;
		w->devs[w->nr_devs].f = f;
		w->devs[w->nr_devs].dsm = dependent && f->dsm && *f->dsm ? f->dsm : NULL;
		w->devs[w->nr_devs++].tsm = func_connected(f) ? f->connect : NULL;
	}
	/* host bridges a stream link led to come after the sorted ones */
	w->hbs = xcalloc(snap->nr_hbs + 1, sizeof(*w->hbs));
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		w->hbs[w->nr_hbs].hb = snap->hbs[i];
		w->hbs[w->nr_hbs++].available = snap->hbs[i]->available_streams;
	}
	qsort(w->hbs, w->nr_hbs, sizeof(*w->hbs), cmp_hb);
	/* each host bridge's streams are sorted by H.R.E */
	w->streams = xcalloc(snap->nr_streams + 1, sizeof(*w->streams));
	for (size_t i = 0; i < w->nr_hbs; i++) {
		for (size_t j = 0; j < w->hbs[i].hb->nr_streams; j++) {
			const struct ide_stream *s = w->hbs[i].hb->streams[j];
			struct w_stream *ws = &w->streams[w->nr_streams++];

			ws->s = s;
			ws->endpoint = s->endpoint ? s->endpoint->bdf : s->dangling ? "dangling" :
				       "unknown";
			ws->secure = stream_secure(s);
			ws->insecure = stream_insecure(s);
			/* the model's answer: a stray link's blocks are its stream's, told once */
			ws->ide_fail = stream_ide_fail(s);
			ws->dangling = s->dangling;
		}
	}
}

static void state_free(struct w_state *w)
{
	free(w->tsms);
	free(w->devs);
	free(w->streams);
	free(w->hbs);
	memset(w, 0, sizeof(*w));
}

/* ISO 8601 UTC with milliseconds: 2026-02-08T12:00:00.000Z */
static void timestamp(char buf[64])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

static void emit(struct watcher *w, enum severity sev, const char *event, const char *kind,
		 const char *object, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void emit(struct watcher *w, enum severity sev, const char *event, const char *kind,
		 const char *object, const char *fmt, ...)
{
	char when[64], *detail;
	va_list ap;

	/* the baseline is the state, not a change: only what is wrong already is said */
	if (w->baseline && sev != SEV_FAIL)
		return;
	va_start(ap, fmt);
	detail = xvasprintf(fmt, ap);
	va_end(ap);
	if (w->baseline) {
		char *marked = xasprintf("%s (found at start)", detail);

		free(detail);
		detail = marked;
	}
	timestamp(when);
	if (w->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "schema_version", json_object_new_int(1));
		json_object_object_add(o, "time", js_str(when));
		json_object_object_add(o, "event", js_str(event));
		json_object_object_add(o, "severity", js_str(sev == SEV_FAIL ? "fail" : "info"));
		json_object_object_add(o, "kind", js_str(kind));
		json_object_object_add(o, "object", js_str(object));
		json_object_object_add(o, "detail", js_str(detail));
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		printf("%s %s ", when, event);
		fputs_escaped(object, stdout);	/* tree text: no control byte reaches the terminal */
		putchar(' ');
		fputs_escaped(detail, stdout);
		putchar('\n');
	}
	/* a pipe reader sees each event as it happens; one nobody can read ends the watch */
	if (stdout_flush())
		w->out_failed = true;
	free(detail);
	if (sev == SEV_FAIL) {
		w->failed = true;
		w->nr_failed++;
	}
}

/*
 * Walk two lists in the same order side by side: each element of NOW with
 * its match in OLD (NULL: new), then each element of OLD that NOW lacks.
 */
#define MERGE(old_v, old_n, now_v, now_n, cmp, on_now, on_gone)			\
	do {									\
		size_t i_ = 0, j_ = 0;						\
										\
		while (i_ < (now_n) || j_ < (old_n)) {				\
			int c_ = i_ == (now_n) ? 1 : j_ == (old_n) ? -1 :	\
				 cmp(&(now_v)[i_], &(old_v)[j_]);		\
										\
			if (c_ <= 0) {						\
				on_now(&(now_v)[i_], c_ ? NULL : &(old_v)[j_]);	\
				j_ += !c_;					\
				i_++;						\
			} else {						\
				on_gone(&(old_v)[j_]);				\
				j_++;						\
			}							\
		}								\
	} while (0)

static struct watcher *wt;	/* the watcher the MERGE callbacks print through */

static int cmp_tsm(const void *a, const void *b)
{
	const struct tsm *x = *(const struct tsm *const *)a, *y = *(const struct tsm *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

static void tsm_now(const struct tsm **t, const struct tsm **was)
{
	if (!was)
		emit(wt, SEV_INFO, "tsm-added", "tsm", (*t)->name, "registered");
}

static void tsm_gone(const struct tsm **t)
{
	emit(wt, SEV_FAIL, "tsm-removed", "tsm", (*t)->name, "unregistered");
}

static void diff_tsms(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	wt = w;
	MERGE(old->tsms, old->nr_tsms, now->tsms, now->nr_tsms, cmp_tsm, tsm_now, tsm_gone);
}

/* Where a host bridge lives, as the kernel shows it: what a bus module or VMD domain added. */
static char *hb_place(const struct host_bridge *hb)
{
	const char *slash = strrchr(hb->dir, '/');

	return xasprintf("/%.*s", slash ? (int)(slash - hb->dir) : 0, hb->dir);
}

static void hb_added(const struct w_hb *h, const struct w_hb *was)
{
	char *place;

	if (was)
		return;
	place = hb_place(h->hb);
	if (h->available >= 0)
		emit(wt, SEV_INFO, "host-bridge-added", "host_bridge", h->hb->name,
		     "below %s: available_secure_streams %lld", place, h->available);
	else
		emit(wt, SEV_INFO, "host-bridge-added", "host_bridge", h->hb->name,
		     "below %s: no IDE stream pool", place);
	free(place);
}

static void hb_kept(const struct w_hb *h)
{
	(void)h;
}

/* A pool used up (a new host bridge's too), or free again. */
static void hb_pool(const struct w_hb *h, const struct w_hb *was)
{
	if (h->available == 0 && (!was || was->available != 0))
		emit(wt, SEV_FAIL, "pool-exhausted", "host_bridge", h->hb->name,
		     "available_secure_streams 0: no new IDE stream can be set up");
	else if (h->available > 0 && was && was->available == 0)
		emit(wt, SEV_INFO, "pool-available", "host_bridge", h->hb->name,
		     "available_secure_streams %lld", h->available);
}

static void hb_gone(const struct w_hb *h)
{
	emit(wt, SEV_INFO, "host-bridge-removed", "host_bridge", h->hb->name,
	     "gone, with its %zu stream link%s", h->hb->nr_streams, h->hb->nr_streams == 1 ? "" : "s");
}

/* Host bridges that came: before their devices' and streams' events. */
static void diff_hbs_added(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	wt = w;
	MERGE(old->hbs, old->nr_hbs, now->hbs, now->nr_hbs, cmp_hb, hb_added, hb_kept);
}

/* Pools, then the host bridges that went: after their devices' and streams' events. */
static void diff_pools(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	wt = w;
	MERGE(old->hbs, old->nr_hbs, now->hbs, now->nr_hbs, cmp_hb, hb_pool, hb_gone);
}

/* A dependent's context came (its tsm/ group: at a connect, or a VF added later) or went. */
static void dependent_now(const struct w_dev *d, const struct w_dev *was)
{
	const char *before = was ? was->dsm : NULL;
	const char *tsm = d->f->authenticated && *d->f->authenticated ? d->f->authenticated : NULL;

	if (d->dsm && !streq(before, d->dsm))
		emit(wt, SEV_INFO, "dependent-added", "device", d->f->bdf, "a function of DSM %s%s%s%s",
		     d->dsm, tsm ? " (" : "", tsm ? tsm : "", tsm ? ")" : "");
	else if (!d->dsm && before)
		emit(wt, SEV_INFO, "dependent-removed", "device", d->f->bdf, "no longer a function of "
		     "DSM %s", before);
}

static void dev_now(const struct w_dev *d, const struct w_dev *was)
{
	const char *before = was ? was->tsm : NULL;

	if (!d->f->has_connect) {
		dependent_now(d, was);
		return;
	}
	if (d->tsm && !streq(before, d->tsm))
		emit(wt, SEV_INFO, "device-connected", "device", d->f->bdf, "to %s%s%s", d->tsm,
		     before ? ", was " : "", before ? before : "");
	else if (!d->tsm && before)
		emit(wt, SEV_INFO, "device-disconnected", "device", d->f->bdf, "from %s", before);
}

/* a connected device whose tsm/connect went away: removed, or its TSM unregistered */
static void dev_gone(const struct w_dev *d)
{
	if (d->dsm)
		emit(wt, SEV_INFO, "dependent-removed", "device", d->f->bdf, "no longer a function "
		     "of DSM %s: its tsm/ group is gone (disconnect, or the function removed)",
		     d->dsm);
	else if (d->tsm)
		emit(wt, SEV_FAIL, "device-disconnected", "device", d->f->bdf,
		     "from %s: tsm/connect is gone (device removed or TSM unregistered)", d->tsm);
}

static void diff_devices(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	wt = w;
	MERGE(old->devs, old->nr_devs, now->devs, now->nr_devs, cmp_dev, dev_now, dev_gone);
}

/* "pciDDDD:BB/streamH.R.E" of a stream, into BUF */
static const char *stream_key(const struct w_stream *s, char buf[128])
{
	snprintf(buf, 128, "%s/%s", s->s->hb->name, s->s->name);
	return buf;
}

static void stream_now(const struct w_stream *s, const struct w_stream *was)
{
	char key[128], *ep = NULL, *rp = NULL;

	stream_key(s, key);
	if (!was || (s->insecure && !was->insecure)) {
		ep = render_partner_state(s->s, true);
		rp = render_partner_state(s->s, false);
	}
	if (!was)
		emit(wt, SEV_INFO, "stream-added", "stream", key,
		     "endpoint %s: endpoint %s, root port %s", s->endpoint, ep, rp);
	if (s->insecure && !(was && was->insecure))
		emit(wt, SEV_FAIL, "stream-insecure", "stream", key,
		     "endpoint %s: endpoint %s, root port %s", s->endpoint, ep, rp);
	else if (s->secure && was && !was->secure)
		emit(wt, SEV_INFO, "stream-secure", "stream", key,
		     "endpoint %s: secure on both partners again", s->endpoint);
	if (s->ide_fail && !(was && was->ide_fail))
		emit(wt, SEV_FAIL, "stream-ide-fail", "stream", key,
		     "endpoint %s: IDE_FAIL set (an IDE Fail message was received)", s->endpoint);
	if (s->dangling && !(was && was->dangling) && streq(s->endpoint, "dangling"))
		emit(wt, SEV_FAIL, "stream-dangling", "stream", key, "the link's target does not exist");
	else if (s->dangling && !(was && was->dangling))
		emit(wt, SEV_FAIL, "stream-dangling", "stream", key,
		     "the link names %s, which is not below this host bridge", s->endpoint);
	else if (!s->ide_fail && was && was->ide_fail)
		emit(wt, SEV_INFO, "stream-ide-fail-cleared", "stream", key,
		     "endpoint %s: IDE_FAIL clear", s->endpoint);
	free(ep);
	free(rp);
}

static void stream_gone(const struct w_stream *s)
{
	char key[128];

	emit(wt, SEV_INFO, "stream-removed", "stream", stream_key(s, key), "endpoint %s", s->endpoint);
}

static void diff_streams(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	wt = w;
	MERGE(old->streams, old->nr_streams, now->streams, now->nr_streams, cmp_stream, stream_now,
	      stream_gone);
}

/* 0, or EXIT_USAGE */
static int parse_args(struct cmd_ctx *ctx, double *interval, long *count)
{
	unsigned long long n;

	if (ctx->nargs)
		return extra_operand(ctx->cmd, ctx->args[0]);
	*interval = WATCH_DEFAULT_INTERVAL;
	if (param.interval && (parse_seconds(param.interval, WATCH_MAX_INTERVAL, interval) ||
			      *interval < WATCH_MIN_INTERVAL))
		return usage_error(ctx->cmd, "invalid --interval value '%s' (decimal seconds, %g-%g)",
				   param.interval, WATCH_MIN_INTERVAL, WATCH_MAX_INTERVAL);
	*count = -1;
	if (param.count) {
		if (parse_decimal(param.count, LONG_MAX, &n) || n < 1)
			return usage_error(ctx->cmd, "invalid --count value '%s' (a whole number, "
					   "1-%ld)", param.count, LONG_MAX);
		*count = (long)n;
	}
	return 0;
}

/* Is EV one that says the structure moved: a device, bus, driver or TSM came, went or changed? */
static bool uevent_moves(const struct uevent *ev)
{
	static const char *const subsystems[] = { "pci", "pci_bus", "tsm", "faux", "platform" };

	if (!ev->subsystem)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(subsystems); i++)
		if (streq(ev->subsystem, subsystems[i]))
			return true;
	return false;
}

/* Take every pending uevent: true when one (or an overrun: events lost) moved the structure. */
static bool uevents_drain(struct uevent_listener *l)
{
	bool moved = false;
	struct uevent ev;
	int rc;

	while ((rc = uevent_recv(l, &ev)) != -EAGAIN) {
		if (rc == -ENOBUFS || (!rc && uevent_moves(&ev)))
			moved = true;
		else if (rc && rc != -EBADMSG)
			break;
	}
	return moved;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait up to SECONDS for a signal or FD readable (-1: none); signals are blocked outside. */
static bool wait_fd(int fd, double seconds, const sigset_t *unblocked)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ts;

	if (seconds < 0)
		seconds = 0;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	return ppoll(&p, fd >= 0, &ts, unblocked) > 0;
}

/*
 * Sleep until DEADLINE; a uevent that moves the structure ends it early,
 * once the moves have settled (a module adds many devices at once): no move
 * for WATCH_SETTLE, or WATCH_SETTLE_MAX after the first. Other events change
 * nothing, however many come. true: take a new scan.
 */
static bool nap(double deadline, struct uevent_listener *l, const sigset_t *unblocked)
{
	bool moved = false;
	double settled, bound, now;

	while (!stop_signal && !moved && now_s() < deadline)
		if (wait_fd(l->fd, deadline - now_s(), unblocked))
			moved = uevents_drain(l);
	if (!moved)
		return false;
	now = now_s();
	settled = now + WATCH_SETTLE;
	bound = now + WATCH_SETTLE_MAX;
	while (!stop_signal && (now = now_s()) < settled && now < bound)
		if (wait_fd(l->fd, (settled < bound ? settled : bound) - now, unblocked) &&
		    uevents_drain(l))
			settled = now_s() + WATCH_SETTLE;
	return true;
}

/* As many files as a watch may keep open: the soft limit raised to the hard one, less a margin. */
static size_t open_files_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY ? 1u << 20 : rl.rlim_max;

		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > WATCH_SPARE_FDS ? (size_t)(rl.rlim_cur - WATCH_SPARE_FDS) : 0;
}

static void take(struct watched *w, size_t budget)
{
	/* the listings first: what comes while the scan runs is then a move, never lost */
	w->rescan = rescan_begin(budget);
	snapshot_scan(&w->snap, WATCH_SCAN);
	rescan_keep(w->rescan, &w->snap);
}

static void drop(struct watched *w)
{
	rescan_stop(w->rescan);
	snapshot_free(&w->snap);
}

static int run_watch(struct cmd_ctx *ctx)
{
	struct watcher w = { .json = ctx->out.json };
	struct w_state old, now, empty = { 0 };
	struct watched cur, next;
	struct uevent_listener l = { .fd = -1 };
	sigset_t block, unblocked;
	double interval = WATCH_DEFAULT_INTERVAL, deadline;
	long count = -1, done = 0;
	size_t budget;
	int rc = parse_args(ctx, &interval, &count);

	if (rc)
		return rc;
	stopsig_catch(0);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	budget = open_files_budget();
	/* uevents only hasten a scan: without them the looks still see every move */
	if (uevent_listen(&l))
		l.fd = -1;
	take(&cur, budget);
	state_take(&old, &cur.snap);
	/* what is failing already: as events against nothing, so --exit-on-fail sees them */
	w.baseline = true;
	diff_streams(&w, &empty, &old);
	diff_pools(&w, &empty, &old);
	w.baseline = false;
	if (log_verbose())
		cmd_note("watch", "%zu TSM%s, %zu stream%s, %zu host bridge%s; %zu "
			 "failure%s found at start; checking every %g s", old.nr_tsms,
			 old.nr_tsms == 1 ? "" : "s", old.nr_streams, old.nr_streams == 1 ? "" : "s",
			 old.nr_hbs, old.nr_hbs == 1 ? "" : "s", w.nr_failed,
			 w.nr_failed == 1 ? "" : "s", interval);
	deadline = now_s() + interval;
	while (!stop_signal && !w.out_failed && (count < 0 || done < count) &&
	       !(w.failed && param.exit_on_fail)) {
		bool early = nap(deadline, &l, &unblocked), moved;

		if (stop_signal)
			break;
		moved = early || rescan_look(cur.rescan);
		if (moved) {
			/* its files closed first, or the new look gets what the old one leaves of the budget */
			rescan_stop(cur.rescan);
			cur.rescan = NULL;
			take(&next, budget);
		}
		state_take(&now, moved ? &next.snap : &cur.snap);
		diff_tsms(&w, &old, &now);
		diff_hbs_added(&w, &old, &now);
		diff_devices(&w, &old, &now);
		diff_streams(&w, &old, &now);
		diff_pools(&w, &old, &now);
		state_free(&old);
		old = now;
		if (moved) {
			drop(&cur);
			cur = next;
		}
		/* a uevent's scan keeps the interval's beat */
		if (!early || now_s() >= deadline) {
			deadline += interval;
			if (deadline < now_s())
				deadline = now_s() + interval;	/* a scan took longer than the interval */
			done++;
		}
		if (w.failed && param.exit_on_fail)
			break;
	}
	state_free(&old);
	drop(&cur);
	uevent_close(&l);
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	/* close_stdout() says why stdout failed */
	return w.out_failed || (w.failed && param.exit_on_fail) ? EXIT_FAIL : EXIT_OK;
}

static const struct opt_def watch_opts[] = {
	OPT_STRING('i', "interval", &param.interval, "SECONDS", "re-read the state every SECONDS"),
	OPT_COMMON(COMMON_JSON),
	OPT_BOOLEAN(0, "exit-on-fail", &param.exit_on_fail, "exit non-zero at the first failure event"),
	OPT_STRING(0, "count", &param.count, "N", "stop after N intervals"),
	OPT_END()
};

const struct cmd_def cmd_watch = {
	.name = "watch",
	.summary = "print TSM, connection, IDE stream and pool changes as they happen",
	.description = "Rescan at an interval and print one line (or, with -J, one JSON object)\n"
		       "per change: TSMs added or removed, devices connected or disconnected,\n"
		       "functions getting or losing a context as a DSM's dependents,\n"
		       "streams added, removed, going insecure or reporting IDE_FAIL, stream pools\n"
		       "running out. The first scan is the baseline: of it only what is failing\n"
		       "already is printed (insecure, IDE_FAIL, dangling streams, used-up pools)",
	.opts = watch_opts,
	.verbose_help = "print the baseline (counts, failures found) on stderr",
	.run = run_watch,
};
