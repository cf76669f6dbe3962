#!/usr/bin/env bash
# Builds the test bed's binaries from the Go module proxy into a version-keyed
# cache outside the repo, and prints that directory as the last line:
#   etcd, etcdctl (etcd 3.6), kube-apiserver, kube-controller-manager,
#   kube-scheduler, kubectl (Kubernetes 1.36), kwok.
# Idempotent: a complete cache directory is reused at once. Set DSR_TESTBIN_DIR
# to use binaries you already have instead.
#
# k8s.io/kubernetes cannot be `go install`ed (its go.mod replaces the staging
# modules with ./staging paths), so a wrapper module requires it and replaces
# each staging module with its published twin v0.<minor>.<patch>.
set -euo pipefail

K8S_VERSION="${DSR_K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${DSR_ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${DSR_KWOK_VERSION:-v0.8.0}"
REQUIRED=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

log() { echo "build-binaries: $*" >&2; }
die() { log "error: $*"; exit 1; }

complete_dir() {
  local d="$1" b
  for b in "${REQUIRED[@]}"; do [[ -x "$d/$b" ]] || return 1; done
}

if [[ -n "${DSR_TESTBIN_DIR:-}" ]]; then
  complete_dir "$DSR_TESTBIN_DIR" ||
    die "DSR_TESTBIN_DIR=$DSR_TESTBIN_DIR lacks one of: ${REQUIRED[*]}"
  cd "$DSR_TESTBIN_DIR" && pwd
  exit 0
fi

CACHE="${DSR_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ds-reconciler/testbin}"
BIN="$CACHE/k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}"
if complete_dir "$BIN"; then
  echo "$BIN"
  exit 0
fi

command -v go >/dev/null || die "Go is not installed (need Go >= 1.26 on PATH)"
GO_MINOR="$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')"
[[ "$GO_MINOR" -ge 26 ]] || die "Go $(go env GOVERSION) is too old: Kubernetes ${K8S_VERSION} needs Go >= 1.26"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
mkdir -p "$CACHE"
STAGE="$(mktemp -d "$CACHE/.build-XXXXXX")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK" "$STAGE"' EXIT
started=$(date +%s)

go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" >"$WORK/k8s.json" 2>"$WORK/k8s.err" ||
  die "cannot download k8s.io/kubernetes@${K8S_VERSION} from the Go module proxy ($(go env GOPROXY)): $(tail -1 "$WORK/k8s.err")"
KMOD="$(sed -n 's/.*"GoMod": *"\([^"]*\)".*/\1/p' "$WORK/k8s.json")"
[[ -s "$KMOD" ]] || die "no go.mod for k8s.io/kubernetes@${K8S_VERSION}"

log "Kubernetes ${K8S_VERSION}: wrapper module"
mkdir "$WORK/k8s" && cd "$WORK/k8s"
printf 'module local/dsr-testbin-k8s\n\ngo %s\n' "$(awk '$1=="go"{print $2; exit}' "$KMOD")" >go.mod
awk '$1=="godebug" && NF==2 {print $2}' "$KMOD" | while read -r kv; do go mod edit -godebug="$kv"; done
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
sed -nE 's#^[[:space:]]*(replace[[:space:]]+)?(k8s\.io/[A-Za-z0-9._-]+)[[:space:]]+=>[[:space:]]+\./staging/.*#\2#p' "$KMOD" |
  sort -u | while read -r m; do go mod edit -replace="${m}=${m}@${STAGING_VERSION}"; done
go get "k8s.io/kubernetes@${K8S_VERSION}" >&2
MINOR="$(echo "$K8S_VERSION" | cut -d. -f2)"
BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
LDFLAGS="-s -w"
for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  LDFLAGS+=" -X ${p}.gitVersion=${K8S_VERSION} -X ${p}.gitMajor=1 -X ${p}.gitMinor=${MINOR}"
  LDFLAGS+=" -X ${p}.gitTreeState=clean -X ${p}.buildDate=${BUILD_DATE}"
done
log "Kubernetes ${K8S_VERSION}: building (the slow part)"
nice -n 10 go build -p 2 -trimpath -tags selinux,notest -ldflags "$LDFLAGS" -o "$STAGE/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl >&2

log "etcd ${ETCD_VERSION}"
mkdir "$WORK/etcd" && cd "$WORK/etcd"
printf 'module local/dsr-testbin-etcd\n\ngo 1.25.0\n' >go.mod
go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" "go.etcd.io/etcd/etcdctl/v3@${ETCD_VERSION}" >&2
nice -n 10 go build -p 2 -trimpath -ldflags "-s -w" -o "$STAGE/etcd" go.etcd.io/etcd/server/v3 >&2
nice -n 10 go build -p 2 -trimpath -ldflags "-s -w" -o "$STAGE/etcdctl" go.etcd.io/etcd/etcdctl/v3 >&2

log "kwok ${KWOK_VERSION}"
cd "$WORK"
GOFLAGS= GOBIN="$STAGE" nice -n 10 go install -p 2 -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}" >&2

"$STAGE/kube-apiserver" --version >&2
"$STAGE/etcd" --version | head -1 >&2
"$STAGE/kwok" --version >&2 || true
printf '{"kubernetes":"%s","etcd":"%s","kwok":"%s"}\n' "$K8S_VERSION" "$ETCD_VERSION" "$KWOK_VERSION" >"$STAGE/versions.json"
complete_dir "$STAGE" || die "build finished without every binary"
rm -rf "$BIN"
mv "$STAGE" "$BIN"
log "built in $(($(date +%s) - started)) s"
echo "$BIN"
