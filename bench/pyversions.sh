#!/bin/sh
# pyversions.sh: the Python frames of every pyenv CPython from 3.7 to
# 3.13 (e2e TestPythonVersions: threads, os.abort(), recursion and
# asyncio programs, each thread's Python frames equal to what
# python -X faulthandler printed at the crash), and each libpython's
# DWARF layouts against the generated table (pylayout
# TestDWARFMatchesTablePyenv). CI runs Debian's
# python3.11 only. Needs the pyenv builds under $PYENV_ROOT (default
# /root/.pyenv) and core dumps allowed.
set -eu
cd "$(dirname "$0")/.."
export COREUNWIND_PY_VERSIONS=all
go test -count=1 -run 'TestDWARFMatchesTablePyenv' "$@" ./pyruntime/pylayout/
exec go test -count=1 -run 'TestPythonVersions' "$@" ./e2e/
