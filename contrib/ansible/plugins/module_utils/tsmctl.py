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

# tsmctl's JSON contract (tsmctl(8), "JSON contract"): a key change bumps it.
SCHEMA_VERSION = 1

COMMON_ARGUMENT_SPEC = dict(
    sysroot=dict(type='path'),
    tsmctl_path=dict(type='path'),
)


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


def stderr_lines(err):
    return [line for line in (err or '').splitlines() if line.strip()]


def run_tsmctl(module, args, json_out=True):
    """Run tsmctl ARGS. Returns (argv, rc, document or None, stderr).

    A document that is not JSON, or of another schema_version, ends the
    module: its keys would be guesses.
    """
    argv = tsmctl_argv(module) + list(args)
    rc, out, err = module.run_command(argv)
    if not json_out:
        return argv, rc, out, err
    doc = None
    if out.strip():
        try:
            doc = json.loads(out)
        except ValueError as e:
            module.fail_json(msg='tsmctl printed no valid JSON (%s): %s' % (e, err.strip() or out[:200]),
                             cmd=argv, rc=rc, stdout=out, stderr=err)
        if not isinstance(doc, dict) or doc.get('schema_version') != SCHEMA_VERSION:
            module.fail_json(msg='tsmctl JSON schema_version %r, this collection reads %d'
                             % (doc.get('schema_version') if isinstance(doc, dict) else None, SCHEMA_VERSION),
                             cmd=argv, rc=rc)
    return argv, rc, doc, err


def fail_tsmctl(module, argv, rc, err, **result):
    """Fail with tsmctl's own message and exit status."""
    msg = '; '.join(stderr_lines(err)) or 'tsmctl exited with status %d' % rc
    module.fail_json(msg=msg, cmd=argv, rc=rc, stderr=err, **result)
