#!/usr/bin/env bash
# Builds the test bed's binaries from the Go module proxy into a version-keyed
# cache directory outside the repo and prints that directory (absolute path)
# as the last stdout line; all progress goes to stderr:
#   BIN=$(lib/local-cluster/build-binaries.sh | tail -1)
#
# Binaries: etcd, etcdctl (etcd 3.6), kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl (Kubernetes 1.36), kwok. The directory also holds
# versions.json {"kubernetes":…,"etcd":…,"kwok":…}.
#
# Environment:
#   DSR_K8S_VERSION / DSR_ETCD_VERSION / DSR_KWOK_VERSION  override the pins below
#   DSR_TESTBIN_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/ds-reconciler/testbin)
#   DSR_TESTBIN_DIR    use this ready-made directory instead (validated, never built)
#   SOURCE_DATE_EPOCH  buildDate stamped into the Kubernetes binaries (default:
#                      the release time the module proxy reports, so builds are reproducible)
#   GOPROXY, GOMODCACHE, GOCACHE are honoured as usual.
#
# Idempotent: when every binary is there and reports the expected version, the
# script only prints the directory. A build goes to a temporary directory next
# to the final one and is renamed into place only when complete, under a lock,
# so an interrupted or concurrent run never leaves a half directory that looks
# complete.
#
# Why a wrapper module: k8s.io/kubernetes cannot be `go install`ed (its go.mod
# replaces every staging module k8s.io/<x> with ./staging/src/k8s.io/<x>, and
# requires them at v0.0.0). A throw-away main module requires k8s.io/kubernetes
# and replaces each staging module (the list is read from the real upstream
# go.mod) with its published twin v0.<minor>.<patch>. etcd's server and etcdctl
# modules carry ../ replaces too, but their release go.mods require the sibling
# modules at real versions, so their wrapper needs no replaces. kwok installs
# with plain `go install`.
set -euo pipefail

# Pinned versions: the newest patches on the Go module proxy, resolved 2026-11-23
# with `go list -m -versions k8s.io/kubernetes go.etcd.io/etcd/server/v3
# go.etcd.io/etcd/etcdctl/v3 sigs.k8s.io/kwok` (v1.37.2 existed too; not adopted).
K8S_VERSION="${DSR_K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${DSR_ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${DSR_KWOK_VERSION:-v0.8.0}"
# k8s 1.36, etcd 3.6.16 and kwok 0.8.0 all declare `go 1.26.0`. With overridden
# versions only Go >= 1.23 (`go mod edit -godebug`) is checked up front; each
# module's own `go` line is checked once it is fetched.
if [[ -z "${DSR_K8S_VERSION:-}${DSR_ETCD_VERSION:-}${DSR_KWOK_VERSION:-}" ]]; then MIN_GO="1.26"; else MIN_GO="1.23"; fi

REQUIRED=(etcd etcdctl kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

log() { printf 'build-binaries: %s\n' "$*" >&2; }
die() {
  printf 'build-binaries: error: %s\n' "$*" >&2
  exit 1
}

# version_line DIR BINARY -> the line of BINARY's version output naming its version
version_line() {
  local out
  case "$2" in
    kubectl) out="$("$1/kubectl" version --client 2>&1)" || return 1 ;;
    etcdctl) out="$("$1/etcdctl" version 2>&1)" || return 1 ;;
    *) out="$("$1/$2" --version 2>&1)" || return 1 ;;
  esac
  printf '%s\n' "$out" | sed -n '1p'
}

# expected_version BINARY -> the version string its version output must contain
expected_version() {
  case "$1" in
    etcd | etcdctl) echo "${ETCD_VERSION#v}" ;;
    kwok) echo "$KWOK_VERSION" ;;
    *) echo "$K8S_VERSION" ;;
  esac
}

# complete_dir DIR [strict]: every binary present, executable and runnable; with
# "strict" its version must also match the pins and versions.json must exist.
complete_dir() {
  local d="$1" strict="${2:-}" b line
  [[ -d "$d" ]] || return 1
  for b in "${REQUIRED[@]}"; do
    [[ -f "$d/$b" && -x "$d/$b" ]] || return 1
    line="$(version_line "$d" "$b")" || return 1
    if [[ -n "$strict" && "$line" != *"$(expected_version "$b")"* ]]; then
      return 1
    fi
  done
  [[ -z "$strict" || -s "$d/versions.json" ]]
}

# ---------------------------------------------------------------------------
# 1. Ready-made directory from the environment.
if [[ -n "${DSR_TESTBIN_DIR:-}" ]]; then
  [[ -d "$DSR_TESTBIN_DIR" ]] || die "DSR_TESTBIN_DIR=$DSR_TESTBIN_DIR is not a directory"
  dir="$(cd "$DSR_TESTBIN_DIR" && pwd -P)"
  for b in "${REQUIRED[@]}"; do
    [[ -f "$dir/$b" && -x "$dir/$b" ]] || die "DSR_TESTBIN_DIR=$dir has no executable $b (needs: ${REQUIRED[*]})"
    line="$(version_line "$dir" "$b")" || die "DSR_TESTBIN_DIR=$dir: $b does not run (its version command failed)"
    [[ "$line" == *"$(expected_version "$b")"* ]] ||
      log "warning: $dir/$b reports '$line', not $(expected_version "$b")"
  done
  log "using DSR_TESTBIN_DIR"
  echo "$dir"
  exit 0
fi

# ---------------------------------------------------------------------------
# 2. Version-keyed cache.
CACHE="${DSR_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ds-reconciler/testbin}"
[[ "$CACHE" == /* ]] || CACHE="$PWD/$CACHE"
KEY="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}"
BIN="$CACHE/$KEY"

if complete_dir "$BIN" strict; then
  log "up to date: $BIN"
  echo "$BIN"
  exit 0
fi

# ---------------------------------------------------------------------------
# 3. Prerequisites: Go new enough, module proxy reachable.
command -v go >/dev/null 2>&1 || die "go not found on PATH (need Go >= $MIN_GO)"
GO_VERSION="$(go env GOVERSION 2>/dev/null | grep -oE 'go[0-9]+\.[0-9]+(\.[0-9]+)?' | head -n 1 | sed 's/^go//' || true)"
[[ -n "$GO_VERSION" ]] || die "cannot tell the Go version ($(go version 2>&1 || true)); need Go >= $MIN_GO"
# version_ge A B: A >= B in version order
version_ge() { [[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" == "$2" ]]; }
version_ge "$GO_VERSION" "$MIN_GO" ||
  die "Go $GO_VERSION is too old: these builds need Go >= $MIN_GO (with Go 1.24/1.25 set DSR_K8S_VERSION=v1.34.4 DSR_ETCD_VERSION=v3.6.8 DSR_KWOK_VERSION=v0.7.0)"

export GOTOOLCHAIN=local # never download another toolchain: fail loudly instead
export CGO_ENABLED=0     # upstream builds these binaries static
export GOWORK=off
export GOFLAGS=-mod=mod

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  log "another build holds $CACHE/.lock; waiting"
  flock 9
fi
# The other holder may have just built it.
if complete_dir "$BIN" strict; then
  log "up to date: $BIN"
  echo "$BIN"
  exit 0
fi
# Holding the lock, any leftover temporary directory is from an interrupted run.
rm -rf "$CACHE"/.build-* "$CACHE"/.work-* "$CACHE"/.stale-*

WORK="$(mktemp -d "$CACHE/.work-XXXXXX")" # wrapper modules and logs
STAGE="$(mktemp -d "$CACHE/.build-$KEY.XXXXXX")"
chmod 755 "$STAGE"
trap 'rm -rf "$WORK" "$STAGE"' EXIT
LOGF="$WORK/go.log"
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }

# go_step DESCRIPTION CMD... : runs CMD with its output in $LOGF; on failure
# shows the tail of that output and dies with a one-line message.
go_step() {
  local what="$1"
  shift
  if ! "$@" >"$LOGF" 2>&1; then
    tail -n 25 "$LOGF" >&2
    die "$what failed: $(grep -v '^[[:space:]]*$' "$LOGF" | tail -n 1)"
  fi
  # Show what go said, less the per-module download/resolve chatter.
  grep -Ev '^go: (downloading|added|upgraded|finding) ' "$LOGF" >&2 || true
}

# fetch_gomod MODULE@VERSION -> path of its go.mod in GOMODCACHE (downloads the module)
fetch_gomod() {
  local json gomod
  if ! json="$(cd "$WORK" && go mod download -json "$1" 2>&1)"; then
    local err
    err="$(printf '%s\n' "$json" | sed -n 's/.*"Error": *"\(.*\)",*$/\1/p' | head -n 1)"
    [[ -n "$err" ]] || err="$(printf '%s\n' "$json" | grep -v '^[[:space:]]*$' | tail -n 1)"
    die "cannot fetch $1 from the Go module proxy (GOPROXY=$(go env GOPROXY)): $err"
  fi
  gomod="$(printf '%s\n' "$json" | sed -n 's/.*"GoMod": *"\([^"]*\)".*/\1/p' | head -n 1)"
  [[ -s "$gomod" ]] || die "no go.mod for $1 in the module download"
  local need
  need="$(awk '$1=="go"{print $2; exit}' "$gomod")"
  [[ -z "$need" ]] || version_ge "$GO_VERSION" "$need" ||
    die "$1 needs Go >= $need but Go is $GO_VERSION (GOTOOLCHAIN=local)"
  echo "$gomod"
}

log "Go $GO_VERSION; building $KEY into $BIN (GOMODCACHE=$(go env GOMODCACHE), GOCACHE=$(go env GOCACHE))"
# Probe the proxy with a small request first, so an unreachable proxy fails fast.
if ! probe="$(cd "$WORK" && timeout 180 go list -m -json "k8s.io/kubernetes@${K8S_VERSION}" 2>&1)"; then
  die "Go module proxy unreachable or k8s.io/kubernetes@${K8S_VERSION} unknown (GOPROXY=$(go env GOPROXY)): $(printf '%s\n' "$probe" | grep -v '^[[:space:]]*$' | tail -n 1)"
fi
KMOD="$(fetch_gomod "k8s.io/kubernetes@${K8S_VERSION}")"
EMOD="$(fetch_gomod "go.etcd.io/etcd/server/v3@${ETCD_VERSION}")"
fetch_gomod "go.etcd.io/etcd/etcdctl/v3@${ETCD_VERSION}" >/dev/null
fetch_gomod "sigs.k8s.io/kwok@${KWOK_VERSION}" >/dev/null

# ---------------------------------------------------------------------------
# 4. Kubernetes: wrapper module.
log "[$(elapsed)] Kubernetes ${K8S_VERSION}: wrapper module"
mkdir "$WORK/k8s"
cd "$WORK/k8s"
printf 'module local/dsr-testbin-k8s\n\ngo %s\n' "$(awk '$1=="go"{print $2; exit}' "$KMOD")" >go.mod
# Same runtime GODEBUG defaults as an upstream build (upstream pins e.g. default=go1.26).
while read -r kv; do
  go mod edit -godebug="$kv"
done < <(awk '$1=="godebug" && NF==2 {print $2}' "$KMOD")
STAGING_VERSION="v0.${K8S_VERSION#v1.}" # v1.36.3 -> v0.36.3
mapfile -t STAGING < <(sed -nE 's#^[[:space:]]*(replace[[:space:]]+)?(k8s\.io/[A-Za-z0-9._-]+)[[:space:]]+=>[[:space:]]+\./staging/.*#\2#p' "$KMOD" | sort -u)
((${#STAGING[@]} > 20)) || die "found only ${#STAGING[@]} staging replaces in $KMOD; its layout changed"
for m in "${STAGING[@]}"; do go mod edit -replace="${m}=${m}@${STAGING_VERSION}"; done
if grep -E '=>' "$KMOD" | grep -vq '\./staging/'; then
  log "warning: upstream go.mod has non-staging replaces (not copied):"
  grep -E '=>' "$KMOD" | grep -v '\./staging/' >&2
fi
log "[$(elapsed)] ${#STAGING[@]} staging modules -> ${STAGING_VERSION}; resolving"
go_step "go get k8s.io/kubernetes@${K8S_VERSION}" go get "k8s.io/kubernetes@${K8S_VERSION}"

# Version stamping as hack/lib/version.sh does (gitCommit/gitTreeState are only
# stamped upstream when a commit is known; the module zip carries none).
K8S_MAJOR="$(echo "${K8S_VERSION#v}" | cut -d. -f1)"
K8S_MINOR="$(echo "${K8S_VERSION#v}" | cut -d. -f2)"
if [[ -n "${SOURCE_DATE_EPOCH:-}" ]]; then
  BUILD_DATE="$(date -u -d "@${SOURCE_DATE_EPOCH}" +%Y-%m-%dT%H:%M:%SZ)"
else
  BUILD_DATE="$(printf '%s\n' "$probe" | sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' | head -n 1)"
  [[ -n "$BUILD_DATE" ]] || BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
fi
LDFLAGS="-s -w"
for key_val in "buildDate=${BUILD_DATE}" "gitVersion=${K8S_VERSION}" "gitMajor=${K8S_MAJOR}" "gitMinor=${K8S_MINOR}"; do
  LDFLAGS+=" -X k8s.io/client-go/pkg/version.${key_val} -X k8s.io/component-base/version.${key_val}"
done
log "[$(elapsed)] Kubernetes ${K8S_VERSION}: compiling kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (the slow part)"
# Tags as hack/lib/golang.sh for non-debug builds.
go_step "go build (Kubernetes ${K8S_VERSION})" \
  nice -n 10 go build -p 2 -trimpath -tags selinux,notest,grpcnotrace -ldflags "$LDFLAGS" -o "$STAGE/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl

# ---------------------------------------------------------------------------
# 5. etcd: wrapper module, separate so its dependencies cannot move Kubernetes'.
log "[$(elapsed)] etcd ${ETCD_VERSION}: wrapper module"
mkdir "$WORK/etcd"
cd "$WORK/etcd"
printf 'module local/dsr-testbin-etcd\n\ngo %s\n' "$(awk '$1=="go"{print $2; exit}' "$EMOD")" >go.mod
go_step "go get etcd ${ETCD_VERSION}" \
  go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" "go.etcd.io/etcd/etcdctl/v3@${ETCD_VERSION}"
log "[$(elapsed)] etcd ${ETCD_VERSION}: compiling etcd, etcdctl"
go_step "go build (etcd ${ETCD_VERSION})" \
  nice -n 10 go build -p 2 -trimpath -ldflags "-s -w" -o "$STAGE/etcd" go.etcd.io/etcd/server/v3
go_step "go build (etcdctl ${ETCD_VERSION})" \
  nice -n 10 go build -p 2 -trimpath -ldflags "-s -w" -o "$STAGE/etcdctl" go.etcd.io/etcd/etcdctl/v3

# ---------------------------------------------------------------------------
# 6. kwok: no replaces upstream, so plain `go install` (no main-module flags).
log "[$(elapsed)] kwok ${KWOK_VERSION}: compiling"
cd "$WORK"
go_step "go install kwok ${KWOK_VERSION}" \
  env GOFLAGS= GOBIN="$STAGE" nice -n 10 go install -p 2 -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"

# ---------------------------------------------------------------------------
# 7. Check, then move into place atomically.
printf '{"kubernetes":"%s","etcd":"%s","kwok":"%s"}\n' "$K8S_VERSION" "$ETCD_VERSION" "$KWOK_VERSION" >"$STAGE/versions.json"
for b in "${REQUIRED[@]}"; do
  line="$(version_line "$STAGE" "$b")" || die "built $b does not run"
  [[ "$line" == *"$(expected_version "$b")"* ]] || die "built $b reports '$line', expected $(expected_version "$b")"
  log "  $b: $line"
done
if [[ -e "$BIN" ]]; then
  STALE="$(mktemp -d "$CACHE/.stale-XXXXXX")"
  mv -T "$BIN" "$STALE/old"
fi
mv -T "$STAGE" "$BIN"
[[ -z "${STALE:-}" ]] || rm -rf "$STALE"
log "[$(elapsed)] done: $BIN"
echo "$BIN"
