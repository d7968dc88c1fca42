// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl watch: rescan TSMs, connections, IDE streams and stream pools at an
 * interval and print only what changed, one line (or one JSON object) per
 * event. The first scan is the baseline; events are the differences.
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
#include <time.h>

#include "tsmctl/action.h"
#include "tsmctl/cli.h"
#include "tsmctl/metrics.h"
#include "tsmctl/output.h"
#include "tsmctl/render.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

/* What the stream view also needs, no more: no root-port survey, no SR-IOV. */
#define WATCH_SCAN		(SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES)
#define WATCH_DEFAULT_INTERVAL	2.0
#define WATCH_MIN_INTERVAL	0.1
#define WATCH_MAX_INTERVAL	86400.0

/* watch's own options; parse_args() checks the values */
static struct watch_param {
	const char *interval, *count;
	bool exit_on_fail;
} param;

enum severity { SEV_INFO, SEV_FAIL };

/* The part of a snapshot watch compares; owns its strings, so snapshots can go. */
struct w_dev {
	char *bdf;
	char *tsm;		/* connected TSM, NULL when not connected */
};

struct w_stream {
	char *key;		/* "pciDDDD:BB/streamH.R.E" */
	char *endpoint;
	const char *state;	/* metrics_stream_state(): secure / insecure / unknown */
	char *ep_state, *rp_state;
	bool ide_fail;
	bool dangling;		/* the link names no device below its host bridge */
};

struct w_hb {
	char *name;
	long long available;	/* -1: no pool file */
};

struct w_state {
	char **tsms;
	size_t nr_tsms;
	struct w_dev *devs;
	size_t nr_devs;
	struct w_stream *streams;
	size_t nr_streams;
	struct w_hb *hbs;
	size_t nr_hbs;
};

struct watcher {
	bool json;
	bool failed;		/* a failure-class event was printed */
	size_t nr_failed;
	bool baseline;		/* the first scan: only failures, each marked as found at start */
};

static void state_take(struct w_state *w, const struct tsm_snapshot *snap)
{
	memset(w, 0, sizeof(*w));
	w->tsms = xcalloc(snap->nr_tsms + 1, sizeof(*w->tsms));
	for (size_t i = 0; i < snap->nr_tsms; i++)
		w->tsms[w->nr_tsms++] = xstrdup(snap->tsms[i]->name);
	w->devs = xcalloc(snap->nr_funcs + 1, sizeof(*w->devs));
	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];

		if (!f->has_connect)
			continue;
		w->devs[w->nr_devs].bdf = xstrdup(f->bdf);
		w->devs[w->nr_devs++].tsm = func_connected(f) ? xstrdup(f->connect) : NULL;
	}
	w->streams = xcalloc(snap->nr_streams + 1, sizeof(*w->streams));
	for (size_t i = 0; i < snap->nr_streams; i++) {
		const struct ide_stream *s = snap->streams[i];
		struct w_stream *ws = &w->streams[w->nr_streams++];

		ws->key = xasprintf("%s/%s", s->hb->name, s->name);
		ws->endpoint = xstrdup(s->endpoint ? s->endpoint->bdf : s->dangling ? "dangling" :
				       "unknown");
		ws->state = metrics_stream_state(s);
		ws->ep_state = render_partner_state(s, true);
		ws->rp_state = render_partner_state(s, false);
		/* the model's answer: a stray link's blocks are its stream's, told once */
		ws->ide_fail = stream_ide_fail(s);
		ws->dangling = s->dangling;
	}
	w->hbs = xcalloc(snap->nr_hbs + 1, sizeof(*w->hbs));
	for (size_t i = 0; i < snap->nr_hbs; i++) {
		w->hbs[w->nr_hbs].name = xstrdup(snap->hbs[i]->name);
		w->hbs[w->nr_hbs++].available = snap->hbs[i]->available_streams;
	}
}

static void state_free(struct w_state *w)
{
	strv_free(w->tsms, w->nr_tsms);
	for (size_t i = 0; i < w->nr_devs; i++) {
		free(w->devs[i].bdf);
		free(w->devs[i].tsm);
	}
	free(w->devs);
	for (size_t i = 0; i < w->nr_streams; i++) {
		free(w->streams[i].key);
		free(w->streams[i].endpoint);
		free(w->streams[i].ep_state);
		free(w->streams[i].rp_state);
	}
	free(w->streams);
	for (size_t i = 0; i < w->nr_hbs; i++)
		free(w->hbs[i].name);
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
	fflush(stdout);	/* a pipe reader sees each event as it happens */
	free(detail);
	if (sev == SEV_FAIL) {
		w->failed = true;
		w->nr_failed++;
	}
}

/* The element of ARRAY (N of SIZE bytes) whose char * at OFFSET is KEY, or NULL. */
static const void *find_keyed(const void *array, size_t n, size_t size, size_t offset,
			      const char *key)
{
	for (size_t i = 0; i < n; i++) {
		const char *e = (const char *)array + i * size;

		if (streq(*(char *const *)(e + offset), key))
			return e;
	}
	return NULL;
}

static bool has_name(char **v, size_t n, const char *name)
{
	return find_keyed(v, n, sizeof(*v), 0, name);
}

static const struct w_dev *find_dev(const struct w_state *s, const char *bdf)
{
	return find_keyed(s->devs, s->nr_devs, sizeof(*s->devs), offsetof(struct w_dev, bdf), bdf);
}

static const struct w_stream *find_stream(const struct w_state *s, const char *key)
{
	return find_keyed(s->streams, s->nr_streams, sizeof(*s->streams),
			  offsetof(struct w_stream, key), key);
}

static const struct w_hb *find_hb(const struct w_state *s, const char *name)
{
	return find_keyed(s->hbs, s->nr_hbs, sizeof(*s->hbs), offsetof(struct w_hb, name), name);
}

static void diff_tsms(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	for (size_t i = 0; i < now->nr_tsms; i++)
		if (!has_name(old->tsms, old->nr_tsms, now->tsms[i]))
			emit(w, SEV_INFO, "tsm-added", "tsm", now->tsms[i], "registered");
	for (size_t i = 0; i < old->nr_tsms; i++)
		if (!has_name(now->tsms, now->nr_tsms, old->tsms[i]))
			emit(w, SEV_FAIL, "tsm-removed", "tsm", old->tsms[i], "unregistered");
}

static void diff_devices(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	for (size_t i = 0; i < now->nr_devs; i++) {
		const struct w_dev *d = &now->devs[i], *was = find_dev(old, d->bdf);
		const char *before = was ? was->tsm : NULL;

		if (d->tsm && !streq(before, d->tsm))
			emit(w, SEV_INFO, "device-connected", "device", d->bdf, "to %s%s%s", d->tsm,
			     before ? ", was " : "", before ? before : "");
		else if (!d->tsm && before)
			emit(w, SEV_INFO, "device-disconnected", "device", d->bdf, "from %s", before);
	}
	/* a connected device whose tsm/connect went away: removed, or its TSM unregistered */
	for (size_t i = 0; i < old->nr_devs; i++)
		if (old->devs[i].tsm && !find_dev(now, old->devs[i].bdf))
			emit(w, SEV_FAIL, "device-disconnected", "device", old->devs[i].bdf,
			     "from %s: tsm/connect is gone (device removed or TSM unregistered)",
			     old->devs[i].tsm);
}

static void diff_streams(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	for (size_t i = 0; i < now->nr_streams; i++) {
		const struct w_stream *s = &now->streams[i], *was = find_stream(old, s->key);

		if (!was)
			emit(w, SEV_INFO, "stream-added", "stream", s->key,
			     "endpoint %s: endpoint %s, root port %s", s->endpoint, s->ep_state,
			     s->rp_state);
		if (streq(s->state, "insecure") && !(was && streq(was->state, "insecure")))
			emit(w, SEV_FAIL, "stream-insecure", "stream", s->key,
			     "endpoint %s: endpoint %s, root port %s", s->endpoint, s->ep_state,
			     s->rp_state);
		else if (streq(s->state, "secure") && was && !streq(was->state, "secure"))
			emit(w, SEV_INFO, "stream-secure", "stream", s->key,
			     "endpoint %s: secure on both partners again", s->endpoint);
		if (s->ide_fail && !(was && was->ide_fail))
			emit(w, SEV_FAIL, "stream-ide-fail", "stream", s->key,
			     "endpoint %s: IDE_FAIL set (an IDE Fail message was received)",
			     s->endpoint);
		if (s->dangling && !(was && was->dangling) && streq(s->endpoint, "dangling"))
			emit(w, SEV_FAIL, "stream-dangling", "stream", s->key,
			     "the link's target does not exist");
		else if (s->dangling && !(was && was->dangling))
			emit(w, SEV_FAIL, "stream-dangling", "stream", s->key,
			     "the link names %s, which is not below this host bridge", s->endpoint);
		else if (!s->ide_fail && was && was->ide_fail)
			emit(w, SEV_INFO, "stream-ide-fail-cleared", "stream", s->key,
			     "endpoint %s: IDE_FAIL clear", s->endpoint);
	}
	for (size_t i = 0; i < old->nr_streams; i++)
		if (!find_stream(now, old->streams[i].key))
			emit(w, SEV_INFO, "stream-removed", "stream", old->streams[i].key,
			     "endpoint %s", old->streams[i].endpoint);
}

static void diff_pools(struct watcher *w, const struct w_state *old, const struct w_state *now)
{
	for (size_t i = 0; i < now->nr_hbs; i++) {
		const struct w_hb *hb = &now->hbs[i], *was = find_hb(old, hb->name);
		long long before = was ? was->available : -1;

		if (hb->available == 0 && before != 0)
			emit(w, SEV_FAIL, "pool-exhausted", "host_bridge", hb->name,
			     "available_secure_streams 0: no new IDE stream can be set up");
		else if (hb->available > 0 && before == 0)
			emit(w, SEV_INFO, "pool-available", "host_bridge", hb->name,
			     "available_secure_streams %lld", hb->available);
	}
}

/* 0, or EXIT_USAGE */
static int parse_args(struct cmd_ctx *ctx, double *interval, long *count)
{
	unsigned long long n;

	if (ctx->nargs)
		return usage_error(ctx->cmd, "unexpected argument '%s'", ctx->args[0]);
	*interval = WATCH_DEFAULT_INTERVAL;
	if (param.interval && (parse_seconds(param.interval, WATCH_MAX_INTERVAL, interval) ||
			      *interval < WATCH_MIN_INTERVAL))
		return usage_error(ctx->cmd, "invalid --interval value '%s' (decimal seconds, %g-%g)",
				   param.interval, WATCH_MIN_INTERVAL, WATCH_MAX_INTERVAL);
	*count = -1;
	if (param.count) {
		if (parse_decimal(param.count, LONG_MAX, &n) || n < 1)
			return usage_error(ctx->cmd, "invalid --count value '%s' (a positive decimal "
					   "number)", param.count);
		*count = (long)n;
	}
	return 0;
}

/* Sleep SECONDS; signals are blocked outside, so one arriving now ends the sleep. */
static void nap(double seconds, const sigset_t *unblocked)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	ppoll(NULL, 0, &ts, unblocked);
}

static void scan_into(struct w_state *w)
{
	struct tsm_snapshot snap;

	snapshot_scan(&snap, WATCH_SCAN);
	state_take(w, &snap);
	snapshot_free(&snap);
}

static int run_watch(struct cmd_ctx *ctx)
{
	struct watcher w = { .json = ctx->out.json };
	struct w_state old, now, empty = { 0 };
	sigset_t block, unblocked;
	double interval = WATCH_DEFAULT_INTERVAL;
	long count = -1, done = 0;
	int rc = parse_args(ctx, &interval, &count);

	if (rc)
		return rc;
	action_catch_signals();
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	scan_into(&old);
	/* what is failing already: as events against nothing, so --exit-on-fail sees them */
	w.baseline = true;
	diff_streams(&w, &empty, &old);
	diff_pools(&w, &empty, &old);
	w.baseline = false;
	if (tsmctl_verbose)
		fprintf(stderr, "tsmctl watch: %zu TSM%s, %zu stream%s, %zu host bridge%s; %zu "
			"failure%s found at start; checking every %g s\n", old.nr_tsms,
			old.nr_tsms == 1 ? "" : "s", old.nr_streams, old.nr_streams == 1 ? "" : "s",
			old.nr_hbs, old.nr_hbs == 1 ? "" : "s", w.nr_failed,
			w.nr_failed == 1 ? "" : "s", interval);
	while (!action_signal && (count < 0 || done < count) && !(w.failed && param.exit_on_fail)) {
		nap(interval, &unblocked);
		if (action_signal)
			break;
		scan_into(&now);
		diff_tsms(&w, &old, &now);
		diff_devices(&w, &old, &now);
		diff_streams(&w, &old, &now);
		diff_pools(&w, &old, &now);
		state_free(&old);
		old = now;
		done++;
		if (w.failed && param.exit_on_fail)
			break;
	}
	state_free(&old);
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	return w.failed && param.exit_on_fail ? EXIT_FAIL : EXIT_OK;
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
		       "streams added, removed, going insecure or reporting IDE_FAIL, stream pools\n"
		       "running out. The first scan is the baseline: of it only what is failing\n"
		       "already is printed (insecure, IDE_FAIL, dangling streams, used-up pools)",
	.opts = watch_opts,
	.verbose_help = "print the baseline (counts, failures found) on stderr",
	.run = run_watch,
};
