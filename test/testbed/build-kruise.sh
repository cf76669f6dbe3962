#!/usr/bin/env bash
# Builds OpenKruise's kruise-manager v1.9.1 from the Go module proxy for the
# Kruise oracle (test/integration/kruise-oracle.test.ts) and caches it, with
# the module's 18 CRDs, under ~/.cache/ds-reconciler/kruise-v1.9.1/.
#
# Idempotent: a cached binary and CRDs are reused (prints the cache dir and
# exits). `go install …@v1.9.1` does not work (the proxy refuses @v/list), so
# the module is fetched with `go mod download`, copied, patched and built.
# The one patch: the webhook server binds WEBHOOK_BIND_HOST (127.0.0.1 on the
# test bed) instead of 0.0.0.0 (main.go, ctrlwebhook.Options.Host; an empty
# value binds every interface, as upstream).
#
# Cold: ~5.5 min on 2 cores (nice -n 19, one package at a time so the rest of
# the machine stays usable); warm Go build cache: seconds.
# Env: KRUISE_CACHE_DIR (cache dir), KRUISE_BUILD_JOBS (go build -p, default 1).
set -euo pipefail

readonly VERSION=v1.9.1
readonly MODULE=github.com/openkruise/kruise
readonly CACHE="${KRUISE_CACHE_DIR:-$HOME/.cache/ds-reconciler/kruise-$VERSION}"
readonly BIN="$CACHE/kruise-manager"
readonly CRDS="$CACHE/crds"
readonly CRD_COUNT=18

fail() {
  echo "build-kruise.sh: $*" >&2
  exit 1
}

is_cached() {
  [[ -x "$BIN" ]] && [[ -f "$CACHE/.complete" ]] &&
    [[ "$(find "$CRDS" -name '*.yaml' 2>/dev/null | wc -l)" -eq "$CRD_COUNT" ]]
}

if is_cached; then
  echo "$CACHE"
  exit 0
fi

command -v go >/dev/null || fail "needs Go (>= 1.24) on PATH to build kruise-manager $VERSION"
mkdir -p "$CACHE"
# One build at a time; a second caller waits and then finds the cache.
exec 9>"$CACHE/.lock"
flock 9
if is_cached; then
  echo "$CACHE"
  exit 0
fi

work="$(mktemp -d "$CACHE/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$(date +%s)

echo "build-kruise.sh: downloading $MODULE@$VERSION" >&2
info="$(nice -n 19 go mod download -json "$MODULE@$VERSION")" ||
  fail "go mod download $MODULE@$VERSION failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
dir="$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[[ -n "$dir" && -f "$dir/main.go" ]] || fail "go mod download gave no module directory: $info"

cp -r "$dir" "$work/src"
chmod -R u+w "$work/src"
sed -i 's|^\([[:space:]]*Host:[[:space:]]*\)"0\.0\.0\.0",$|\1os.Getenv("WEBHOOK_BIND_HOST"),|' "$work/src/main.go"
grep -q 'Host:[[:space:]]*os.Getenv("WEBHOOK_BIND_HOST"),' "$work/src/main.go" ||
  fail "patch did not apply: main.go has no 'Host: \"0.0.0.0\",' line (upstream changed?)"

echo "build-kruise.sh: building (nice -n 19, -p ${KRUISE_BUILD_JOBS:-1}); cold takes ~5 min" >&2
(
  cd "$work/src"
  CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -p=${KRUISE_BUILD_JOBS:-1} -buildvcs=false" \
    nice -n 19 go build -trimpath -o "$work/kruise-manager" .
) || fail "go build of kruise-manager $VERSION failed (see the compiler output above)"

rm -rf "$CRDS"
mkdir -p "$CRDS"
cp "$work/src/config/crd/bases/"*.yaml "$CRDS/"
count="$(find "$CRDS" -name '*.yaml' | wc -l)"
[[ "$count" -eq "$CRD_COUNT" ]] || fail "expected $CRD_COUNT CRDs in config/crd/bases, found $count"
mv "$work/kruise-manager" "$BIN"
touch "$CACHE/.complete"
echo "build-kruise.sh: built $BIN in $(($(date +%s) - started)) s" >&2
echo "$CACHE"
