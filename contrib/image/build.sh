#!/usr/bin/env bash
# An appliance image: Debian bookworm, Steward and the chosen plugins, the hardened unit enabled.
#
#   contrib/image/build.sh DIR [PLUGIN...]        (make image IMAGE=DIR PLUGINS="system websearch")
#
# DIR becomes a root file system that `systemd-nspawn --boot -D DIR` boots, and DIR.tar the same
# as a tarball for an image tool (podman import, mkosi). Run as root; needs mmdebstrap and
# systemd-nspawn (Debian's mmdebstrap and systemd-container). Every step is written out in
# docs/operations.md, "Appliance images", for builders who follow it with another tool.
#
# Packages come from Debian's archive, Python packages from Python's registry, both at build time
# only: Steward and its dependencies are installed in a container without a network, from wheels
# built from this checkout and the wheels requirements-lock.txt pins by hash.
#
# Environment:
#   STEWARD_IMAGE_CACHE   downloaded .debs and dependency wheels, reused by later builds
#                         (default ~/.cache/steward/image)
#   STEWARD_IMAGE_BASE    a tarball of step 1's Debian root file system: written when missing,
#                         used instead of step 1 when present (several images, one debootstrap)
#   STEWARD_IMAGE_MIRROR  a Debian mirror URL (default: mmdebstrap's, with security updates)
#   PYTHON                the Python that builds Steward's wheels (default python3)
set -euo pipefail

readonly SUITE=bookworm
# systemd to boot and run the unit, libnss-systemd to name its dynamic user, Python for Steward
readonly PACKAGES=systemd,systemd-sysv,dbus,libnss-systemd,python3,python3-venv,ca-certificates
readonly VENV=/opt/steward/.venv
readonly RELEASE_FILE=usr/lib/steward/image-release

usage() {
    echo "usage: $0 DIR [PLUGIN...]   (plugins: $(ls "$ROOT/plugins" | tr '\n' ' '))" >&2
    exit 2
}

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -ge 1 && -n $1 ]] || usage
IMAGE=$(realpath -m "$1")
shift
PLUGINS=("$@")
[[ ${#PLUGINS[@]} -gt 0 ]] || mapfile -t PLUGINS < <(ls "$ROOT/plugins")
for plugin in "${PLUGINS[@]}"; do
    [[ -f $ROOT/plugins/$plugin/pyproject.toml ]] || { echo "no plugin named '$plugin'" >&2; usage; }
done
CACHE=${STEWARD_IMAGE_CACHE:-$HOME/.cache/steward/image}
BASE=${STEWARD_IMAGE_BASE:-}
PYTHON=${PYTHON:-python3}

[[ $(id -u) == 0 ]] || { echo "building an image needs root (mmdebstrap, systemd-nspawn)" >&2; exit 1; }
for tool in mmdebstrap systemd-nspawn systemctl; do
    command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install mmdebstrap systemd-container" >&2; exit 1; }
done
# rm -rf of a directory someone else filled would be a disaster: replace only an image of ours
if [[ $IMAGE == / ]] || { [[ -d $IMAGE && -n $(ls -A "$IMAGE") ]] && [[ ! -f $IMAGE/$RELEASE_FILE ]]; }; then
    echo "$IMAGE is not empty and not a Steward image: refusing to replace it" >&2
    exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
started=$SECONDS
step_started=$SECONDS
step() {
    local size
    size=$(du -sm --one-file-system "$IMAGE" 2>/dev/null | cut -f1)
    printf '%-44s %4d s  image %5s MB\n' "$1" $((SECONDS - step_started)) "${size:-0}"
    step_started=$SECONDS
}
# a command inside the image, not booted; no network unless asked for with --network
in_image() {
    local network=(--private-network)
    if [[ $1 == --network ]]; then network=(--resolv-conf=copy-host); shift; fi
    systemd-nspawn --quiet --register=no --keep-unit --pipe "${network[@]}" \
        --setenv=PIP_NO_CACHE_DIR=1 --setenv=PIP_DISABLE_PIP_VERSION_CHECK=1 -D "$IMAGE" "$@"
}

# 1. Debian's root file system, from Debian's packages
rm -rf "$IMAGE" "$IMAGE.tar"
mkdir -p "$(dirname "$IMAGE")"
if [[ -n $BASE && -f $BASE ]]; then
    mkdir -p "$IMAGE"
    tar --numeric-owner --xattrs -C "$IMAGE" -xf "$BASE"
else
    mkdir -p "$CACHE/debs"
    # the .debs are kept in the cache and given back to the next build (mmdebstrap(1), EXAMPLES)
    mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
        --skip=download/empty --skip=essential/unlink \
        --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
        --setup-hook="sync-in $CACHE/debs /var/cache/apt/archives/" \
        --customize-hook="sync-out /var/cache/apt/archives $CACHE/debs" \
        --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
        "$SUITE" "$IMAGE" ${STEWARD_IMAGE_MIRROR:+"$STEWARD_IMAGE_MIRROR"}
    if [[ -n $BASE ]]; then
        mkdir -p "$(dirname "$BASE")"
        tar --numeric-owner --xattrs -C "$IMAGE" -cf "$BASE.partial" . && mv "$BASE.partial" "$BASE"
    fi
fi
echo steward >"$IMAGE/etc/hostname"
mkdir -p "$(dirname "$IMAGE/$RELEASE_FILE")"
echo "PARTIAL=1" >"$IMAGE/$RELEASE_FILE"
step "1. Debian $SUITE root file system"

# 2. Steward's own wheels, from this checkout
isolation=()
"$PYTHON" -c 'import hatchling' 2>/dev/null && isolation=(--no-build-isolation)   # the backend is here
"$PYTHON" -m pip wheel --quiet --no-deps "${isolation[@]}" --wheel-dir "$WORK/wheels" \
    "$ROOT/core" "${PLUGINS[@]/#/$ROOT/plugins/}"
step "2. wheels of steward-host and ${#PLUGINS[@]} plugin(s)"

# 3. the locked dependencies as wheels for the image's own Python (its version decides markers
#    such as redis's async-timeout on Python < 3.11.3), hash-checked, downloaded once per lock
in_image /usr/bin/python3 -m venv "$VENV"
python_version=$(in_image "$VENV/bin/python" -c 'import platform; print(platform.python_version())')
lock_digest=$(sha256sum "$ROOT/requirements-lock.txt" | cut -c1-16)
deps=$CACHE/wheels/python-$python_version-$lock_digest
if [[ ! -f $deps/.complete ]]; then
    mkdir -p "$deps"
    # with the build host's trust and proxy (a company CA, a TLS-inspecting proxy): only this step
    ca_bundle=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
    proxies=()
    for name in PIP_INDEX_URL https_proxy HTTPS_PROXY http_proxy HTTP_PROXY no_proxy NO_PROXY; do
        [[ -n ${!name:-} ]] && proxies+=("--setenv=$name=${!name}")
    done
    in_image --network --bind="$deps:/run/steward-build/deps" "${proxies[@]}" \
        --bind-ro="$ca_bundle:/run/steward-build/ca-certificates.crt" \
        --setenv=PIP_CERT=/run/steward-build/ca-certificates.crt \
        --bind-ro="$ROOT/requirements-lock.txt:/run/steward-build/requirements-lock.txt" \
        "$VENV/bin/pip" download --quiet --require-hashes --only-binary=:all: \
        --dest /run/steward-build/deps -r /run/steward-build/requirements-lock.txt
    touch "$deps/.complete"
fi
step "3. dependency wheels for Python $python_version"

# 4. install, offline: the container has no network at all. First which locked distributions the
#    chosen plugins need (pip's resolver, dry run, the image's Python), so a left-out plugin's
#    dependencies stay out too; then those, hash-checked, and our wheels.
mkdir -p "$WORK/plan"
in_image --bind-ro="$deps:/run/steward-build/deps" --bind-ro="$WORK/wheels:/run/steward-build/wheels" \
    --bind-ro="$ROOT/constraints.txt:/run/steward-build/constraints.txt" --bind="$WORK/plan:/run/steward-build/plan" \
    /bin/sh -ec "$VENV/bin/pip install --quiet --no-index --dry-run --report /run/steward-build/plan/report.json \
        --find-links /run/steward-build/deps -c /run/steward-build/constraints.txt /run/steward-build/wheels/*.whl"
"$PYTHON" "$ROOT/contrib/image/locked_subset.py" "$WORK/plan/report.json" "$ROOT/requirements-lock.txt" \
    >"$WORK/plan/requirements.txt"
in_image --bind-ro="$deps:/run/steward-build/deps" --bind-ro="$WORK/wheels:/run/steward-build/wheels" \
    --bind-ro="$WORK/plan:/run/steward-build/plan" \
    /bin/sh -ec "
        $VENV/bin/pip install --quiet --no-index --find-links /run/steward-build/deps \
            --require-hashes -r /run/steward-build/plan/requirements.txt
        $VENV/bin/pip install --quiet --no-index --no-deps /run/steward-build/wheels/*.whl
        $VENV/bin/pip check >/dev/null
        $VENV/bin/steward plugins --strict-plugins >/dev/null"
step "4. Steward installed offline in $VENV"

# 5. configuration, the hardened unit, enabled
install -D -m 0644 "$ROOT/contrib/steward.toml" "$IMAGE/etc/steward/steward.toml"
install -D -m 0644 "$ROOT/contrib/systemd/steward.service" "$IMAGE/etc/systemd/system/steward.service"
install -D -m 0644 "$ROOT/README.md" "$IMAGE/usr/share/doc/steward/README.md"
install -D -m 0644 "$ROOT/docs/operations.md" "$IMAGE/usr/share/doc/steward/operations.md"
systemctl --root="$IMAGE" --quiet enable steward.service
cat >"$IMAGE/$RELEASE_FILE" <<EOF
PLUGINS="${PLUGINS[*]}"
PYTHON=$python_version
BUILT=$(date -u +%Y-%m-%dT%H:%M:%SZ)
SOURCE=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)
EOF
step "5. configuration and unit"

# 6. the tarball
tar --numeric-owner --xattrs -C "$IMAGE" -cf "$IMAGE.tar.partial" . && mv "$IMAGE.tar.partial" "$IMAGE.tar"
step "6. $(basename "$IMAGE").tar ($(du -m "$IMAGE.tar" | cut -f1) MB)"
echo "built $IMAGE in $((SECONDS - started)) s: systemd-nspawn --boot -D $IMAGE"
