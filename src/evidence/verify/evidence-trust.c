// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trust store and the pin file (evidence-trust.h). Certificates are
 * added to the X509_STORE one by one (no hashed-directory lookup), so a
 * plain directory of PEM files works without c_rehash.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "tsmctl/evidence-trust.h"
#include "tsmctl/outfile.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/userfile.h"
#include "tsmctl/util.h"

/* The certificates of one file: PEM (any number), else one DER. 0 or -EBADMSG. */
static int add_file(struct ev_trust *t, const char *path, char **why)
{
	uint8_t *data;
	size_t len;
	unsigned int before = t->nr_certs;
	int rc = userfile_read(path, EV_TRUST_MAX_FILE, &data, &len);
	BIO *bio;
	X509 *x;

	if (rc) {
		*why = userfile_error(path, rc, EV_TRUST_MAX_FILE);
		return rc;
	}
	bio = BIO_new_mem_buf(data, (int)len);
	if (!bio)
		out_of_memory();
	while (t->nr_certs < EV_TRUST_MAX_CERTS && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
		X509_STORE_add_cert(t->store, x);	/* a duplicate is not an error worth failing on */
		X509_free(x);
		t->nr_certs++;
	}
	BIO_free(bio);
	if (t->nr_certs == before) {
		const unsigned char *p = data;

		x = d2i_X509(NULL, &p, (long)len);
		if (x && p == data + len) {
			X509_STORE_add_cert(t->store, x);
			t->nr_certs++;
		}
		X509_free(x);
	}
	ERR_clear_error();
	free(data);
	if (t->nr_certs == before) {
		*why = xasprintf("%s: no certificate (PEM or DER) in it", path);
		return -EBADMSG;
	}
	return 0;
}

/* Every regular file of DIR whose name does not start with '.', in name order. */
static int add_dir(struct ev_trust *t, const char *dir, char **why)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0) {
		*why = xasprintf("%s: %s", dir, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]->d_name);
		struct stat st;

		if (!rc && names[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode))
			rc = add_file(t, path, why);
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

int ev_trust_load(const char *path, struct ev_trust *t, char **why)
{
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path ? path : EV_TRUST_DEFAULT);
	if (stat(t->path, &st) < 0) {
		if (!path && errno == ENOENT) {
			t->missing = "does not exist";
			return 0;
		}
		*why = xasprintf("%s: %s", t->path, strerror(errno));
		return -errno;
	}
	t->store = X509_STORE_new();
	if (!t->store)
		out_of_memory();
	rc = S_ISDIR(st.st_mode) ? add_dir(t, t->path, why) : add_file(t, t->path, why);
	if (!rc && !t->nr_certs) {
		X509_STORE_free(t->store);
		t->store = NULL;
		t->missing = "holds no certificate";
	}
	return rc;
}

void ev_trust_release(struct ev_trust *t)
{
	X509_STORE_free(t->store);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* ---- pins ---- */

static void add_pin(struct ev_pins *p, const char *bdf, unsigned int slot, const char *sha384,
		    bool pending)
{
	struct ev_pin *pin;

	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	pin = &p->v[p->n++];
	snprintf(pin->bdf, sizeof(pin->bdf), "%s", bdf);
	pin->slot = slot;
	snprintf(pin->sha384, sizeof(pin->sha384), "%s", sha384);
	pin->pending = pending;
}

static bool is_sha384_hex(const char *s)
{
	return strlen(s) == 96 && strspn(s, "0123456789abcdef") == 96;
}

int ev_pins_load(const char *path, struct ev_pins *p, char **why)
{
	uint8_t *text;
	char *line, *save = NULL;
	size_t len;
	unsigned int lineno = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	p->path = xstrdup(path);
	rc = userfile_read(path, EV_PINS_MAX_FILE, &text, &len);
	if (rc == -ENOENT)
		return 0;
	if (rc) {
		*why = userfile_error(path, rc, EV_PINS_MAX_FILE);
		return rc;
	}
	for (line = strtok_r((char *)text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char bdf[64], sha[128], canon[BDF_MAX];
		unsigned int slot;

		lineno++;
		if (*line == '#' || !line[strspn(line, " \t")])
			continue;
		if (sscanf(line, "%63s %u %127s", bdf, &slot, sha) != 3 || bdf_canonical(bdf, canon) ||
		    slot > 7 || !is_sha384_hex(sha)) {
			*why = xasprintf("%s:%u: not \"BDF SLOT SHA-384\"", path, lineno);
			rc = -EBADMSG;
			break;
		}
		if (!ev_pin_find(p, canon, slot))
			add_pin(p, canon, slot, sha, false);
	}
	free(text);
	return rc;
}

int ev_pins_save(struct ev_pins *p, char **why)
{
	struct strbuf b = STRBUF_INIT;
	struct outfile o;
	char *text;
	int rc;

	strbuf_append(&b, "# tsmctl evidence --pin: BDF SLOT SHA-384 of the root certificate\n");
	for (size_t i = 0; i < p->n; i++)
		strbuf_appendf(&b, "%s %u %s\n", p->v[i].bdf, p->v[i].slot, p->v[i].sha384);
	text = strbuf_take(&b);
	rc = outfile_open(&o, p->path, 0644);
	if (!rc)
		rc = outfile_write(&o, text, strlen(text));
	if (!rc)
		rc = outfile_commit(&o);
	if (rc) {
		*why = outfile_error(&o, rc);
		outfile_discard(&o);
	} else {
		for (size_t i = 0; i < p->n; i++)
			p->v[i].pending = false;
	}
	free(text);
	return rc;
}

void ev_pins_release(struct ev_pins *p)
{
	free(p->v);
	free(p->path);
	memset(p, 0, sizeof(*p));
}

const struct ev_pin *ev_pin_find(const struct ev_pins *p, const char *bdf, unsigned int slot)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (!p->v[i].pending && streq(p->v[i].bdf, bdf) && p->v[i].slot == slot)
			return &p->v[i];
	return NULL;
}

void ev_pin_propose(struct ev_pins *p, const char *bdf, unsigned int slot, const char *sha384)
{
	/* a later proposal for the same slot replaces the earlier one */
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].pending && streq(p->v[i].bdf, bdf) && p->v[i].slot == slot) {
			snprintf(p->v[i].sha384, sizeof(p->v[i].sha384), "%s", sha384);
			return;
		}
	}
	add_pin(p, bdf, slot, sha384, true);
}

void ev_pins_forget_pending(struct ev_pins *p)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->n; i++)
		if (!p->v[i].pending)
			p->v[kept++] = p->v[i];
	p->n = kept;
}

char *ev_pins_pending_text(const struct ev_pins *p)
{
	char *text = NULL;

	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].pending)
			str_join(&text, ", ", "%s slot %u (SHA-384 %.16s...)", p->v[i].bdf, p->v[i].slot,
				 p->v[i].sha384);
	return text;
}
