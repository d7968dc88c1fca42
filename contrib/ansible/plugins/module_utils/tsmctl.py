# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the tsmctl modules share: the common options and one way to run tsmctl.

Only the standard library and Ansible's own module_utils (which Ansible ships
with every module): the managed host needs tsmctl and nothing else.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os
import re

# tsmctl's JSON contract (tsmctl(8), "JSON contract"): each document has its
# own schema_version, raised when a change could break a consumer. The versions
# this collection reads, by the array each document carries.
SCHEMA_VERSIONS = dict(tsms=1, devices=1, streams=1, host_bridges=2, results=1, checks=1)

COMMON_ARGUMENT_SPEC = dict(
    sysroot=dict(type='path'),
    tsmctl_path=dict(type='path'),
)

# The risks a decision over evidence may take on trust, one option each, as
# tsmctl names them (--allow-first-use, ...): tsmctl decides, the modules only
# pass the operator's choice on (tsmctl-evidence(8), THE DECISION).
RISKS = ('allow_first_use', 'allow_unsigned_measurements', 'allow_no_reference', 'allow_replay',
         'allow_report_offsets')
RISK_ARGUMENT_SPEC = dict((k, dict(type='bool', default=False)) for k in RISKS)


def risk_args(params):
    """tsmctl's --allow-* options for the risks PARAMS accept."""
    return ['--' + k.replace('_', '-') for k in RISKS if params[k]]


def tsmctl_argv(module):
    """The tsmctl binary and the options every command takes."""
    path = module.params['tsmctl_path']
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            module.fail_json(msg='tsmctl_path %s is not an executable file' % path)
    else:
        path = module.get_bin_path('tsmctl', required=True)
    argv = [path]
    if module.params['sysroot']:
        argv += ['--sysroot', module.params['sysroot']]
    return argv


# What Ansible hands over for an unquoted 0000:41:00.0: YAML 1.1 reads it as a
# base-60 number (2460.0).
SEXAGESIMAL = re.compile(r'^[0-9]+(\.[0-9]*)?$')


def check_addresses(module, *keys):
    """Fail on a PCI address YAML turned into a number before tsmctl sees it."""
    for key in keys:
        for value in module.params[key] or []:
            if SEXAGESIMAL.match(value):
                module.fail_json(msg='%s: %s is not a PCI address: YAML reads an unquoted address such as '
                                 '0000:41:00.0 as a base-60 number; quote it ("0000:41:00.0")' % (key, value))


def stderr_lines(err):
    return [line for line in (err or '').splitlines() if line.strip()]


def run_tsmctl(module, args, document=None):
    """Run tsmctl ARGS. Returns (argv, rc, output, stderr).

    With DOCUMENT (the array a -J document carries: tsms, results, checks...),
    output is that JSON document, or None when tsmctl printed nothing. One that
    is not JSON, lacks the array or has another schema_version ends the module:
    its keys would be guesses. Without DOCUMENT, output is stdout as text.
    """
    argv = tsmctl_argv(module) + list(args)
    rc, out, err = module.run_command(argv)
    if document is None or not out.strip():
        return argv, rc, (out if document is None else None), err
    try:
        doc = json.loads(out)
    except ValueError as e:
        module.fail_json(msg='tsmctl printed no valid JSON (%s): %s' % (e, err.strip() or out[:200]),
                         cmd=argv, rc=rc, stdout=out, stderr=err)
    want = SCHEMA_VERSIONS[document]
    got = doc.get('schema_version') if isinstance(doc, dict) else None
    if got != want or not isinstance(doc.get(document), list):
        module.fail_json(msg='tsmctl printed a %s document of schema_version %r; this collection reads %s '
                         'of schema_version %d (tsmctl and the collection come from different releases)'
                         % (document, got, document, want), cmd=argv, rc=rc, stderr=err)
    return argv, rc, doc, err


def fail_tsmctl(module, argv, rc, err, **result):
    """Fail with tsmctl's own message and exit status."""
    msg = '; '.join(stderr_lines(err)) or 'tsmctl exited with status %d' % rc
    module.fail_json(msg=msg, cmd=argv, rc=rc, stderr=err, **result)
