// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words for a failed configfs-tsm report (ABI.md §1.4): the step
 * report_run() stopped at, its errno and what the provider showed become
 * advice on stderr. cmd-report.c decides when; this file only says.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/explain.h"
#include "tsmctl/modhint.h"
#include "tsmctl/report.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

#define CMD "report"

static const char *errno_tag(int err)
{
	const char *n = errno_name(err);

	return n ? n : "error";
}

static void say(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (err)
		cmd_error(CMD, "%s (%s)", msg, errno_tag(err));
	else
		cmd_error(CMD, "%s", msg);
	free(msg);
}

void explain_report_group_missing(const char *missing)
{
	char *mods = report_provider_modules_summary(), *path = sysfs_display_path(missing);

	if (streq(missing, CONFIGFS))
		say(ENOENT, "no %s: configfs is not mounted (mount -t configfs none /sys/kernel/config)",
		    path);
	else
		say(ENOENT, "no %s: the kernel lacks configfs-tsm reports (CONFIG_TSM_REPORTS, "
		    "module tsm_report) or it is not loaded [%s]", path, mods);
	free(path);
	free(mods);
}

void explain_report(const struct report_request *req, const struct report_result *res, int rc)
{
	int err = -rc;
	const char *attr = res->attr ? res->attr : "";
	char *mods, *group = sysfs_display_path(REPORT_GROUP);

	switch (res->step) {
	case REPORT_STEP_MKDIR:
		if (err == ENXIO) {
			mods = report_provider_modules_summary();
			say(err, "no attestation report provider is registered: load this guest's "
			    "driver [%s]", mods);
			free(mods);
		} else if (err == EACCES || err == EPERM) {
			say(err, "creating a report entry in %s needs root: run tsmctl as root", group);
		} else if (err == ENOENT) {
			explain_report_group_missing(report_group_missing() ? report_group_missing() : REPORT_GROUP);
		} else {
			say(err, "cannot create a report entry in %s: %s", group, strerror(err));
		}
		break;
	case REPORT_STEP_UNSUPPORTED: {
		static const struct { const char *attr, *opt; } opts[] = {
			{ "privlevel", "--privlevel" }, { "service_provider", "--service-provider" },
			{ "service_guid", "--service-guid" },
			{ "service_manifest_version", "--service-manifest-version" },
			{ "auxblob", "--auxblob" }, { "manifestblob", "--manifestblob" },
		};
		const char *opt = NULL;

		for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
			if (streq(opts[i].attr, attr))
				opt = opts[i].opt;
		if (opt)
			say(0, "the %s provider has no %s attribute: it does not take %s%s; nothing was written",
			    res->provider ? res->provider : "report", attr, opt,
			    strncmp(attr, "service", 7) && !streq(attr, "manifestblob") ? "" :
			    " (service reports need sev_guest below an SVSM)");
		else
			say(0, "the report entry has no %s attribute: not a configfs-tsm report entry?", attr);
		break;
	}
	case REPORT_STEP_READ_ATTR:
		say(err, "cannot read %s of the report entry: %s", *attr ? attr : "the entry",
		    strerror(err));
		break;
	case REPORT_STEP_WRITE:
		if (err == EINVAL && streq(attr, "privlevel") && res->privlevel_floor > req->privlevel)
			say(err, "privlevel %d is below this guest's privlevel_floor %d: the provider "
			    "cannot report for a more privileged level than its own; use --privlevel %d-%d",
			    req->privlevel, res->privlevel_floor, res->privlevel_floor, REPORT_PRIVLEVEL_MAX);
		else if (err == EINVAL && streq(attr, "privlevel") && res->privlevel_floor >= 0)
			say(err, "the provider refused privlevel %d (privlevel_floor %d, at most %d)",
			    req->privlevel, res->privlevel_floor, REPORT_PRIVLEVEL_MAX);
		else if (err == EINVAL && streq(attr, "privlevel"))
			say(err, "the provider refused privlevel %d (at most %d; privlevel_floor not shown)",
			    req->privlevel, REPORT_PRIVLEVEL_MAX);
		else if (err == EBUSY)
			say(err, "writing %s: the entry's generation counter hit its wrap-around guard; "
			    "try again", attr);
		else if (err == EFBIG)
			say(err, "writing %s: more than the %d bytes the kernel takes", attr, REPORT_INBLOB_MAX);
		else if (err == EACCES || err == EPERM)
			say(err, "writing %s needs root: run tsmctl as root", attr);
		else
			say(err, "writing %s: %s", attr, strerror(err));
		break;
	case REPORT_STEP_NOT_APPLIED:
		say(0, "the kernel did not apply the inblob: generation is %lu after %u write%s. configfs "
		    "commits a binary attribute at close and drops the commit's error (e.g. the "
		    "generation guard's EBUSY), so the report would not carry this nonce",
		    res->seen_generation, res->writes, res->writes == 1 ? "" : "s");
		break;
	case REPORT_STEP_RACE:
		say(EAGAIN, "another writer kept changing the report inputs: in each of %u fresh entries "
		    "the generation moved past the %u write%s made (last %lu); find and stop the other "
		    "writer, then try again", res->attempts, res->writes, res->writes == 1 ? "" : "s",
		    res->seen_generation);
		break;
	case REPORT_STEP_READ_BLOB:
		if (err == EBUSY)
			say(err, "reading %s: the provider stayed busy through %u retries (another report "
			    "or a TDX quote in flight?); try again later", attr, REPORT_BUSY_RETRIES);
		else if (err == EFBIG)
			say(err, "reading %s: the report is larger than the kernel's configfs maximum "
			    "(32 KiB up to v6.19, 16 MiB since v7.0)", attr);
		else if (err == EINVAL)
			say(err, "reading %s: the provider refused the inputs%s", attr,
			    req->service_provider ? " (sev_guest takes only the service provider 'svsm')" :
			    " (it needs exactly 64 bytes of inblob)");
		else if (err == ENXIO)
			say(err, "reading %s: the report provider went away (guest driver unloaded?)", attr);
		else
			say(err, "reading %s: %s", attr, strerror(err));
		break;
	case REPORT_STEP_INTERRUPTED:
	case REPORT_STEP_NONE:
		break;
	}
	free(group);
}

void explain_report_rmdir(const struct report_result *res)
{
	char *group = sysfs_display_path(REPORT_GROUP);

	cmd_error(CMD, "could not remove the report entry %s/%s: %s; remove it with "
		  "rmdir (%s)", group, res->entry, strerror(-res->rmdir_error),
		  errno_tag(-res->rmdir_error));
	free(group);
}
