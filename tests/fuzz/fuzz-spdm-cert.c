// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for spdm_chain_decode() (src/evidence/decode/spdm-cert.c). The input is
 * one certificate chain object. Checked besides crashes and leaks: 0 or an
 * error with its offset in the input; the certificates follow each other
 * from where the form says they start, inside the input and the header's
 * Length; a header names a root hash length that fitted; a success
 * accounts for every byte and describes every certificate; decoding twice
 * gives the same result.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tsmctl/spdm-cert.h"
#include "fuzz-assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_certs(const struct spdm_chain *c, const uint8_t *data, size_t size)
{
	size_t next = c->certs_offset;

	FUZZ_ASSERT(c->nr_certs <= SPDM_CHAIN_MAX_CERTS && c->nr_certs <= c->nr_seen);
	for (unsigned int i = 0; i < c->nr_certs; i++) {
		const struct spdm_cert *k = &c->certs[i];

		FUZZ_ASSERT(k->offset == next && k->der == data + k->offset);
		FUZZ_ASSERT(k->der_len && k->offset + k->der_len <= size);
		FUZZ_ASSERT(k->nr_oids <= SPDM_CERT_MAX_OIDS);
		FUZZ_ASSERT(!k->device_info || strlen(k->device_info) <= k->device_info_len);
		next += k->der_len;
	}
}

static void check_form(const struct spdm_chain *c, size_t size)
{
	if (c->form == SPDM_CHAIN_BARE) {
		FUZZ_ASSERT(!c->root_hash && !c->root_hash_len && c->certs_offset == 0);
		return;
	}
	FUZZ_ASSERT(c->length <= size);
	FUZZ_ASSERT(c->root_hash_len == 32 || c->root_hash_len == 48 || c->root_hash_len == 64);
	FUZZ_ASSERT(c->root_hash_fits & (1u << (c->root_hash_len / 16 - 2)));
	FUZZ_ASSERT(c->certs_offset == SPDM_CHAIN_HDR_SIZE + c->root_hash_len);
	for (unsigned int i = 0; i < c->nr_certs; i++)
		FUZZ_ASSERT(c->certs[i].offset + c->certs[i].der_len <= c->length);
}

static void check_success(const struct spdm_chain *c, size_t size)
{
	const struct spdm_cert *leaf = spdm_chain_leaf(c);

	FUZZ_ASSERT(c->nr_certs && c->nr_certs == c->nr_seen);
	FUZZ_ASSERT(leaf->offset + leaf->der_len == (c->form == SPDM_CHAIN_HEADER ? c->length : size));
	for (unsigned int i = 0; i < c->nr_certs; i++)
		FUZZ_ASSERT(c->certs[i].x509 && c->certs[i].subject && c->certs[i].issuer &&
			    c->certs[i].serial && c->certs[i].has_validity);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spdm_chain c, again;
	struct ev_error err, err2;
	size_t hash_len = 0;
	int rc;

	/* the hint varies with the input's length, so each is tried somewhere */
	if (size % 7 == 1)
		hash_len = 48;
	rc = spdm_chain_decode(data, size, hash_len, &c, &err);
	FUZZ_ASSERT(rc == 0 || rc == -EBADMSG || rc == -E2BIG);
	FUZZ_ASSERT(!rc == !err.set);
	FUZZ_ASSERT(!err.set || err.offset <= size);
	check_certs(&c, data, size);
	if (c.nr_certs)
		check_form(&c, size);
	if (!rc)
		check_success(&c, size);

	FUZZ_ASSERT(spdm_chain_decode(data, size, hash_len, &again, &err2) == rc);
	FUZZ_ASSERT(again.nr_certs == c.nr_certs && again.form == c.form &&
		    err2.offset == err.offset && !strcmp(err2.why, err.why));
	for (unsigned int i = 0; !rc && i < c.nr_certs; i++)
		FUZZ_ASSERT(!strcmp(again.certs[i].subject, c.certs[i].subject) &&
			    again.certs[i].not_after == c.certs[i].not_after);
	spdm_chain_release(&again);
	spdm_chain_release(&c);
	return 0;
}
