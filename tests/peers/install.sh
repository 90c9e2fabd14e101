#!/usr/bin/env bash
# Install the real A2A clients that cannot share the test environment, from pinned versions.
#
#   tests/peers/install.sh [CACHE_DIR]     (default: ${A2A_LAB_PEERS:-$HOME/.cache/a2a-lab-peers})
#
# CACHE_DIR/sdk03    a venv with a2a-sdk[http-server]==0.3.26 (the genuine 0.3 line) and uvicorn (to serve it)
# CACHE_DIR/handler  a venv with a2a-handler==0.4.0 (a CLI on a2a-sdk 1.3)
# CACHE_DIR/frameworks  a venv with the A2A clients of two agent frameworks on a2a-sdk 0.3.26:
#                    strands-agents[a2a]==1.62.0 and beeai-framework[a2a]==0.1.85 (one venv: they resolve together,
#                    and share most of what they pull in)
# CACHE_DIR/nat      a venv with nvidia-nat-a2a==1.9.0 on a2a-sdk 0.3.26 (its own: nvidia-nat-core 1.9.0 needs
#                    aiofiles~=25.1, beeai-framework 0.1.85 aiofiles<25)
# CACHE_DIR/js       @a2a-js/sdk 1.3.0 and express (the server's peer dependency) through `npm ci` from
#                    tests/peers/clients/package-lock.json, with js_client.mjs and tests/personas/js_server.mjs
#                    (the real JS server the persona's fidelity test compares) linked in so that they resolve the
#                    packages installed beside them
# The a2a-sdk 1.3.0 client needs nothing here: it is in the test environment (the `test` extra).
# Idempotent: what is already installed at the pinned version is left alone. Skips the JS client, with a
# message, when node or npm is missing. Exits non-zero when pip or npm fails. PYTHON picks the interpreter
# for the venvs (default python3).
set -euo pipefail

SDK03_VERSION=0.3.26
# The server side of the 0.3 persona fidelity test (tests/personas) runs the 0.3.26 server under uvicorn.
UVICORN_VERSION=0.54.0
HANDLER_VERSION=0.4.0
# The agent frameworks' A2A clients all speak A2A 0.3 through a2a-sdk, pinned to the genuine 0.3 line.
STRANDS_VERSION=1.62.0
BEEAI_VERSION=0.1.85
NAT_A2A_VERSION=1.9.0
JS_SDK_VERSION=1.3.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
clients="$here/clients"
personas="$(cd "$here/../personas" && pwd)"
cache="${1:-${A2A_LAB_PEERS:-$HOME/.cache/a2a-lab-peers}}"
python="${PYTHON:-python3}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
echo "peers: installing into $cache"

die() {
    echo "peers: ERROR: $*" >&2
    exit 1
}

# installed_version VENV DIST: the version of DIST in VENV, or nothing.
installed_version() {
    [ -x "$1/bin/python" ] || return 0
    "$1/bin/python" -c "import importlib.metadata as m, sys
try:
    print(m.version(sys.argv[1]))
except m.PackageNotFoundError:
    pass" "$2" 2>/dev/null || true
}

# python_peer NAME DIST VERSION REQUIREMENT [EXTRA==VERSION...]: a venv CACHE/NAME holding REQUIREMENT, DIST at
# VERSION, and each pinned EXTRA at its version (an EXTRA may name extras: `dist[a2a]==1.0`).
python_peer() {
    local name="$1" dist="$2" version="$3"
    shift 3
    local venv="$cache/$name"
    local have missing=""
    have="$(installed_version "$venv" "$dist")"
    local extra
    for extra in "${@:2}"; do
        local extra_dist="${extra%%==*}"
        [ "$(installed_version "$venv" "${extra_dist%%\[*}")" = "${extra##*==}" ] || missing="$missing ${extra}"
    done
    if [ "$have" = "$version" ] && [ -z "$missing" ]; then
        echo "peers: $name: $dist $version already installed ($venv)"
        return 0
    fi
    echo "peers: $name: installing $* into $venv${have:+ (found $dist $have)}"
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv" || die "$name: could not create a venv with $python"
    fi
    "$venv/bin/python" -m pip install --quiet "$@" \
        || die "$name: pip install $* failed (see pip's message above)"
    have="$(installed_version "$venv" "$dist")"
    [ "$have" = "$version" ] || die "$name: expected $dist $version in $venv, found '${have:-nothing}'"
    echo "peers: $name: installed $dist $version"
}

python_peer sdk03 a2a-sdk "$SDK03_VERSION" "a2a-sdk[http-server]==$SDK03_VERSION" "uvicorn==$UVICORN_VERSION"
python_peer handler a2a-handler "$HANDLER_VERSION" "a2a-handler==$HANDLER_VERSION"
python_peer frameworks strands-agents "$STRANDS_VERSION" "strands-agents[a2a]==$STRANDS_VERSION" \
    "beeai-framework[a2a]==$BEEAI_VERSION" "a2a-sdk==$SDK03_VERSION"
python_peer nat nvidia-nat-a2a "$NAT_A2A_VERSION" "nvidia-nat-a2a==$NAT_A2A_VERSION" "a2a-sdk==$SDK03_VERSION"

js="$cache/js"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "peers: js: SKIPPED: node and npm are needed for @a2a-js/sdk $JS_SDK_VERSION and are not on PATH"
    echo "peers: done (without the JS client)"
    exit 0
fi
mkdir -p "$js"
installed_js=""
if [ -f "$js/node_modules/@a2a-js/sdk/package.json" ]; then
    installed_js="$(node -p "require(process.argv[1]).version" "$js/node_modules/@a2a-js/sdk/package.json")"
fi
if [ "$installed_js" = "$JS_SDK_VERSION" ] && cmp -s "$clients/package-lock.json" "$js/package-lock.json" \
    && cmp -s "$clients/package.json" "$js/package.json"; then
    echo "peers: js: @a2a-js/sdk $JS_SDK_VERSION already installed ($js)"
else
    echo "peers: js: npm ci of @a2a-js/sdk $JS_SDK_VERSION into $js (node $(node --version), npm $(npm --version))"
    cp "$clients/package.json" "$clients/package-lock.json" "$js/"
    (cd "$js" && npm ci --no-audit --no-fund --loglevel=error) || die "js: npm ci failed (see npm's message above)"
    installed_js="$(node -p "require(process.argv[1]).version" "$js/node_modules/@a2a-js/sdk/package.json")"
    [ "$installed_js" = "$JS_SDK_VERSION" ] || die "js: expected @a2a-js/sdk $JS_SDK_VERSION, found '$installed_js'"
    echo "peers: js: installed @a2a-js/sdk $JS_SDK_VERSION"
fi
# The scripts stay in the repo; the links let `node --preserve-symlinks-main CACHE/js/js_client.mjs` (and
# js_server.mjs) find the packages beside them.
ln -sfn "$clients/js_client.mjs" "$js/js_client.mjs"
ln -sfn "$personas/js_server.mjs" "$js/js_server.mjs"
echo "peers: done"
