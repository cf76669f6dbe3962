#!/usr/bin/env bash
# Prints the bin directory of a venv that holds the pinned Python linters of
# requirements.txt (checkov, cfn-lint), creating the venv on first use.
#
# The venv lives under ${XDG_CACHE_HOME:-$HOME/.cache}/ds-reconciler/, named
# after a hash of the requirements, the interpreter version and the machine,
# so a changed pin gets a fresh venv and an unchanged one is reused (a warm
# call costs a stat). Concurrent callers (parallel Vitest workers, two
# checkouts) wait on one lock; the `.complete` marker is written last, so an
# interrupted install is redone rather than trusted.
#
# Needs python3 with the venv module and access to PyPI (or a pip mirror set
# through the usual PIP_INDEX_URL). PYTHON overrides the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"
python="${PYTHON:-python3}"

version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
key="$(
  {
    echo "$version $(uname -sm)"
    cat "$requirements"
  } | "$python" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest()[:16])'
)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ds-reconciler"
venv="$cache/pytools-$key"

if [[ -f "$venv/.complete" ]]; then
  echo "$venv/bin"
  exit 0
fi

mkdir -p "$cache"
lock="$venv.lock"
if command -v flock >/dev/null; then
  # Released by the kernel when this process exits, however it exits.
  exec 9>"$lock"
  flock 9
else
  # No flock (macOS): a directory is created atomically. A holder killed
  # without its trap leaves the directory behind; remove it by hand.
  until mkdir "$lock.d" 2>/dev/null; do sleep 1; done
  trap 'rmdir "$lock.d"' EXIT
fi

# Another caller may have finished the install while this one waited.
if [[ ! -f "$venv/.complete" ]]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # Progress goes to stderr: stdout carries only the answer.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$requirements" >&2
  touch "$venv/.complete"
fi
echo "$venv/bin"
