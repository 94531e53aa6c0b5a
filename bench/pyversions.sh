#!/bin/sh
# pyversions.sh: the Python frames of every pyenv CPython from 3.7 to
# 3.13 (e2e TestPythonVersions: threads, os.abort(), recursion and
# asyncio programs, each thread's Python frames equal to what
# python -X faulthandler printed at the crash). CI runs Debian's
# python3.11 only. Needs the pyenv builds under $PYENV_ROOT (default
# /root/.pyenv) and core dumps allowed.
set -eu
cd "$(dirname "$0")/.."
COREUNWIND_PY_VERSIONS=all exec go test -count=1 -run 'TestPythonVersions' "$@" ./e2e/
