// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The leaf certificate rules evidence.chain applies after the path verified,
 * as libspdm applies them to a responder's chain (libspdm_crypt_cert.c,
 * libspdm_x509_certificate_check(); doc/EVIDENCE.md cites each): X.509 v3;
 * a keyUsage with digitalSignature; no extendedKeyUsage that names the
 * requester role without the responder's (a leaf with no SPDM EKU at all is
 * fine: libspdm's own sample chains carry serverAuth and clientAuth only);
 * basicConstraints cA FALSE when present, and present under SPDM 1.3; and in
 * the alias certificate model (CAPABILITIES ALIAS_CERT_CAP) no
 * id-DMTF-hardware-identity in the leaf. The version and the model come from
 * the VCA; without it the rules that need them are judged as under 1.2 with
 * the device certificate model.
 */
#include <string.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "evidence-verify-int.h"
#include "tsmctl/util.h"

#define SPDM_VERSION_13		0x13
#define RSP_ALIAS_CERT_CAP	(1u << 18)	/* CAPABILITIES flags, DSP0274 1.2 */

/* basicConstraints as libspdm wants a leaf's: absent, or cA FALSE with no pathLenConstraint. */
static bool basic_constraints_leaf(X509 *x, bool *present)
{
	int crit = 0;
	BASIC_CONSTRAINTS *bc = X509_get_ext_d2i(x, NID_basic_constraints, &crit, NULL);
	bool ok = bc && !bc->ca && !bc->pathlen;

	*present = bc || crit != -1;
	BASIC_CONSTRAINTS_free(bc);
	return ok || !*present;
}

char *ev_leaf_misuse(const struct ev_decoded *d, unsigned int k)
{
	const struct spdm_cert *leaf = spdm_chain_leaf(&d->chain[k]);
	bool vca = ev_vca_ok(d), bc, bc_ok = basic_constraints_leaf(leaf->x509, &bc);
	uint32_t ku = X509_get_key_usage(leaf->x509);
	char *bad = NULL;

	if (leaf->version != 3)
		str_join(&bad, "; ", "the leaf is an X.509 v%u certificate, not v3", leaf->version);
	if (!leaf->has_key_usage)
		str_join(&bad, "; ", "the leaf has no keyUsage (it must allow digitalSignature)");
	else if (!(ku & KU_DIGITAL_SIGNATURE))
		str_join(&bad, "; ", "the leaf's keyUsage lacks digitalSignature");
	if (leaf->eku_requester_auth && !leaf->eku_responder_auth)
		str_join(&bad, "; ", "the leaf's extendedKeyUsage names id-DMTF-eku-requester-auth "
			 "(1.3.6.1.4.1.412.274.4) without id-DMTF-eku-responder-auth (.3): it "
			 "authenticates a requester, not a responder");
	if (!bc_ok)
		str_join(&bad, "; ", "the leaf's basicConstraints is not cA FALSE (%s)",
			 leaf->ca ? "it is a CA certificate" : "a pathLenConstraint");
	else if (!bc && vca && d->vca.version >= SPDM_VERSION_13)
		str_join(&bad, "; ", "the leaf has no basicConstraints, which SPDM %u.%u requires "
			 "(cA FALSE)", d->vca.version >> 4, d->vca.version & 15);
	if (leaf->hardware_identity && vca && (d->vca.rsp_caps.flags & RSP_ALIAS_CERT_CAP))
		str_join(&bad, "; ", "the responder uses the alias certificate model (ALIAS_CERT_CAP) "
			 "but the leaf carries id-DMTF-hardware-identity, which only a device "
			 "certificate model's leaf may");
	ERR_clear_error();
	return bad;
}
