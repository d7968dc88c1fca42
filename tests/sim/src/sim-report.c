// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sim-report.c: configfs-tsm attestation reports, sys/kernel/config/tsm/report
 * (ABI.md §1.4). Entry state and store semantics follow
 * drivers/virt/coco/guest/report.c; which attributes a provider shows and
 * when its report_new() refuses follow sev-guest.c and tdx-guest.c. The
 * reports themselves are a documented deterministic function (README).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define OUTBLOB_SIZE 1184	/* an SNP attestation report's size */
#define AUXBLOB_SIZE 512
#define MANIFESTBLOB_SIZE 256

static const struct {
	const char *name;
	bool bin;
	unsigned mode;
} attrs[RA_COUNT] = {
	[RA_INBLOB] = { "inblob", true, 0200 },
	[RA_OUTBLOB] = { "outblob", true, 0444 },
	[RA_AUXBLOB] = { "auxblob", true, 0444 },
	[RA_MANIFESTBLOB] = { "manifestblob", true, 0444 },
	[RA_PROVIDER] = { "provider", false, 0444 },
	[RA_GENERATION] = { "generation", false, 0444 },
	[RA_PRIVLEVEL] = { "privlevel", false, 0200 },
	[RA_PRIVLEVEL_FLOOR] = { "privlevel_floor", false, 0444 },
	[RA_SERVICE_PROVIDER] = { "service_provider", false, 0200 },
	[RA_SERVICE_GUID] = { "service_guid", false, 0200 },
	[RA_SERVICE_MANIFEST_VERSION] = { "service_manifest_version", false, 0200 },
};

const char *sim_report_attr_name(enum sim_report_attr a)
{
	return attrs[a].name;
}

bool sim_report_attr_is_bin(enum sim_report_attr a)
{
	return attrs[a].bin;
}

unsigned sim_report_attr_mode(enum sim_report_attr a)
{
	return attrs[a].mode;
}

int sim_report_attr_lookup(const char *name)
{
	for (int a = 0; a < RA_COUNT; a++)
		if (!strcmp(attrs[a].name, name))
			return a;
	return -1;
}

const char *sim_report_provider_name(enum sim_report_provider p)
{
	return p == REPORT_SEV_GUEST ? "sev_guest" :
	       p == REPORT_TDX_GUEST ? "tdx_guest" : "";
}

/* the providers' report_attr_visible()/report_bin_attr_visible() */
bool sim_report_attr_visible(const struct sim_model *m, enum sim_report_attr a)
{
	const struct sim_report_cfg *c = &m->report;

	switch (c->provider) {
	case REPORT_TDX_GUEST:
		return a == RA_INBLOB || a == RA_OUTBLOB || a == RA_PROVIDER ||
		       a == RA_GENERATION;
	case REPORT_SEV_GUEST:
		if (a == RA_MANIFESTBLOB || a == RA_SERVICE_PROVIDER ||
		    a == RA_SERVICE_GUID || a == RA_SERVICE_MANIFEST_VERSION)
			return c->svsm;	/* snp_vmpl != 0 */
		return true;
	default:
		return false;
	}
}

struct sim_report_entry *sim_report_find(struct sim_model *m, const char *name)
{
	for (struct sim_report_entry *e = m->reports; e; e = e->next)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static void entry_free(struct sim_report_entry *e)
{
	free(e->name);
	free(e->dir);
	free(e->service_provider);
	free(e);
}

/* tsm_report_make_item(): ENXIO while no provider is registered */
int sim_report_mkdir(struct sim_model *m, const char *name)
{
	struct sim_report_entry *e, **pp;

	if (m->report.provider == REPORT_NONE)
		return -ENXIO;
	if (sim_report_find(m, name))
		return -EEXIST;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->name = sim_xstrdup(name);
	e->dir = sim_xasprintf("%s/%s", REPORT_ROOT, name);
	if (!e->name) {
		entry_free(e);
		return -ENOMEM;
	}
	for (pp = &m->reports; *pp; pp = &(*pp)->next)
		;
	*pp = e;
	return 0;
}

/* rmdir: configfs drops the attributes itself; open handles keep the entry */
int sim_report_rmdir(struct sim_model *m, const char *name)
{
	for (struct sim_report_entry **pp = &m->reports; *pp; pp = &(*pp)->next) {
		struct sim_report_entry *e = *pp;

		if (strcmp(e->name, name))
			continue;
		*pp = e->next;
		e->next = NULL;
		e->dead = true;
		if (!e->refs)
			entry_free(e);
		return 0;
	}
	return -ENOENT;
}

void sim_report_put(struct sim_report_entry *e)
{
	if (--e->refs == 0 && e->dead)
		entry_free(e);
}

void sim_report_free_all(struct sim_model *m)
{
	while (m->reports) {
		struct sim_report_entry *e = m->reports;

		m->reports = e->next;
		entry_free(e);
	}
}

/*
 * try_advance_write_generation(): EBUSY only when write_gen would catch up
 * with read_gen by wrap-around. The concurrent_writer fault adds a phantom
 * writer's store (same value again) right after the Nth successful one.
 */
static int advance(struct sim_model *m, struct sim_report_entry *e)
{
	if (e->write_gen == e->read_gen - 1)
		return -EBUSY;
	e->write_gen++;
	e->input_writes++;
	if (m->report.concurrent_writer &&
	    e->input_writes == m->report.concurrent_writer)
		e->write_gen++;
	return 0;
}

/* kstrtouint(s, 0, ...): 0x/0 prefixes, optional '+', one trailing newline */
static int kstrtouint0(const char *s, unsigned *out)
{
	unsigned long long v = 0;
	unsigned base = 10, digits = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
	    isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (;; s++, digits++) {
		unsigned d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (~0ull - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (v > 0xffffffffull)
		return -ERANGE;
	*out = (unsigned)v;
	return 0;
}

/* guid_parse(): the 36-character form; anything after it is ignored */
static int parse_guid(const char *s, uint8_t g[16])
{
	unsigned n = 0;

	for (unsigned i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
	}
	for (unsigned i = 0; i < 36; i += 2) {
		char hex[3];

		if (s[i] == '-')
			i++;
		hex[0] = s[i];
		hex[1] = s[i + 1];
		hex[2] = '\0';
		g[n++] = (uint8_t)strtoul(hex, NULL, 16);
	}
	return 0;
}

/* A text store; @buf is the NUL-terminated copy configfs hands over. */
int sim_report_store(struct sim_model *m, struct sim_report_entry *e,
		     enum sim_report_attr a, const char *buf)
{
	size_t len = strlen(buf);
	unsigned v;
	char *sp;
	int rc;

	switch (a) {
	case RA_PRIVLEVEL:
		rc = kstrtouint0(buf, &v);
		if (rc)
			return rc;
		if (m->report.privlevel_floor > v || v > REPORT_PRIVLEVEL_MAX)
			return -EINVAL;
		rc = advance(m, e);
		if (!rc)
			e->privlevel = v;
		return rc;
	case RA_SERVICE_PROVIDER:
		rc = advance(m, e);
		if (rc)
			return rc;
		sp = strndup(buf, len && buf[len - 1] == '\n' ? len - 1 : len);
		if (!sp)
			return -ENOMEM;
		free(e->service_provider);
		e->service_provider = sp;
		return 0;
	case RA_SERVICE_GUID:
		/* the generation moves and the GUID is cleared before parsing */
		rc = advance(m, e);
		if (rc)
			return rc;
		memset(e->guid, 0, sizeof(e->guid));
		rc = parse_guid(buf, e->guid);
		if (rc)
			memset(e->guid, 0, sizeof(e->guid));
		return rc;
	case RA_SERVICE_MANIFEST_VERSION:
		rc = kstrtouint0(buf, &v);
		if (rc)
			return rc;
		rc = advance(m, e);
		if (!rc)
			e->manifest_version = v;
		return rc;
	default:
		return -EACCES;	/* not writable: open refuses first */
	}
}

/* tsm_report_inblob_write(), run by configfs when the file is closed */
int sim_report_commit_inblob(struct sim_model *m, struct sim_report_entry *e,
			     const uint8_t *data, size_t len)
{
	int rc;

	if (m->report.commit_errno)
		return -m->report.commit_errno;
	rc = advance(m, e);
	if (rc)
		return rc;
	if (len > REPORT_INBLOB_MAX)
		len = REPORT_INBLOB_MAX;
	if (len)
		memcpy(e->inblob, data, len);
	e->inblob_len = len;
	return 0;
}

/* sev_report_new()/tdx_report_new() refusals, then the injected fault */
static int report_new(struct sim_model *m, struct sim_report_entry *e)
{
	const struct sim_report_cfg *c = &m->report;

	if (e->inblob_len != REPORT_INBLOB_MAX)
		return -EINVAL;	/* both need exactly 64 bytes of user data */
	if (c->provider == REPORT_SEV_GUEST && e->service_provider &&
	    strcmp(e->service_provider, "svsm"))
		return -EINVAL;
	if (c->outblob_errno && (!c->outblob_errno_reads ||
				 e->failed_reads < c->outblob_errno_reads)) {
		e->failed_reads++;
		return -c->outblob_errno;
	}
	return 0;
}

static uint8_t *blob(size_t size, size_t *len)
{
	uint8_t *b = sim_xcalloc(1, size);

	*len = size;
	return b;
}

/* Append @s with its NUL at *@pos. */
static void put_str(uint8_t *b, size_t *pos, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(b + *pos, s, n);
	*pos += n;
}

static void build_report(struct sim_model *m, struct sim_report_entry *e,
			 enum sim_report_attr a, uint8_t **out, size_t *len)
{
	const char *prov = sim_report_provider_name(m->report.provider);
	size_t pos = 0;
	char num[16];
	uint8_t *b;

	if (a == RA_OUTBLOB) {
		/* "PROVIDER\0PRIVLEVEL\0" INBLOB, zero-padded */
		b = blob(OUTBLOB_SIZE, len);
		put_str(b, &pos, prov);
		snprintf(num, sizeof(num), "%u", e->privlevel);
		put_str(b, &pos, num);
		memcpy(b + pos, e->inblob, e->inblob_len);
	} else if (a == RA_AUXBLOB) {
		b = blob(AUXBLOB_SIZE, len);
		put_str(b, &pos, prov);
		put_str(b, &pos, "certs");
	} else if (e->service_provider) {
		/* manifestblob: only the SVSM path returns one */
		const uint8_t *g = e->guid;
		char guid[40];

		snprintf(guid, sizeof(guid),
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8],
			 g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
		b = blob(MANIFESTBLOB_SIZE, len);
		put_str(b, &pos, e->service_provider);
		put_str(b, &pos, guid);
		snprintf(num, sizeof(num), "%u", e->manifest_version);
		put_str(b, &pos, num);
	} else {
		b = blob(1, len);
		*len = 0;
	}
	*out = b;
}

/*
 * What a read of @a returns (the configfs show()/bin read, once per open):
 * text attributes their line; binary ones the report for the current
 * generation, regenerated when an input changed (tsm_report_read()).
 */
int sim_report_show(struct sim_model *m, struct sim_report_entry *e,
		    enum sim_report_attr a, uint8_t **out, size_t *len)
{
	char *s = NULL;
	int rc;

	switch (a) {
	case RA_PROVIDER:
		s = sim_xasprintf("%s\n", sim_report_provider_name(m->report.provider));
		break;
	case RA_GENERATION:
		s = sim_xasprintf("%lu\n", e->write_gen);
		break;
	case RA_PRIVLEVEL_FLOOR:
		s = sim_xasprintf("%u\n", m->report.privlevel_floor);
		break;
	case RA_OUTBLOB:
	case RA_AUXBLOB:
	case RA_MANIFESTBLOB:
		if (!e->inblob_len)
			return -EINVAL;
		if (!e->have_report || e->read_gen != e->write_gen) {
			e->have_report = false;
			rc = report_new(m, e);
			if (rc)
				return rc;
			e->have_report = true;
			/* another process's RTMR extend lands right after the TDREPORT */
			e->extend_pending = m->report.concurrent_extend > 0;
			e->read_gen = e->write_gen;
		}
		build_report(m, e, a, out, len);
		return 0;
	default:
		return -EACCES;
	}
	*out = (uint8_t *)s;
	*len = strlen(s);
	return 0;
}
