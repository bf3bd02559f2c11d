#!/usr/bin/env bash
# Install the external engine CLIs into <repo>/.tools, never globally:
#   .tools/npm        npm prefix holding @anthropic-ai/claude-code (its native
#                     binary ships inside the registry package
#                     @anthropic-ai/claude-code-<platform>; nothing else is downloaded)
#   .tools/mpm-venv   a venv of its own for claude-mpm, so its many
#                     dependencies never clash with the app's
#   .tools/bin        claude and claude-mpm links, for PATH or settings
#
# Usage: bash tools/install-cli.sh [REPO_ROOT]
# Idempotent: when the pinned versions are present it only checks the links
# and prints nothing. Env: PYTHON (interpreter for the mpm venv; default the
# base interpreter of .venv), SKIP_MPM=1 to install only claude.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.330
CLAUDE_MPM_VERSION=6.5.83

ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
TOOLS="$ROOT/.tools"
BIN="$TOOLS/bin"
mkdir -p "$BIN"

say() { echo "install-cli: $*" >&2; }

# --- claude (npm) -----------------------------------------------------------
NPM_PREFIX="$TOOLS/npm"
CC_PKG="$NPM_PREFIX/node_modules/@anthropic-ai/claude-code"
CC_BIN="$NPM_PREFIX/node_modules/.bin/claude"

installed_claude_version() {
    # Read package.json rather than running the 380 MB binary: keeps the fast path fast.
    [ -f "$CC_PKG/package.json" ] || return 0
    sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$CC_PKG/package.json" | head -n1
}

# The postinstall step copies the native binary over a small placeholder; if
# npm skipped install scripts, the placeholder (a few KB) is still there.
claude_binary_ok() {
    [ -x "$CC_BIN" ] && [ "$(stat -L -c %s "$CC_BIN")" -gt 1000000 ]
}

if [ "$(installed_claude_version)" != "$CLAUDE_CODE_VERSION" ] || ! claude_binary_ok; then
    command -v npm >/dev/null || { say "npm is not installed (apt-get install npm)"; exit 1; }
    say "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $NPM_PREFIX"
    start=$(date +%s)
    npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2
    if ! claude_binary_ok; then
        # Fall back to the platform package's binary directly (same file the
        # postinstall would have copied).
        native=$(ls "$NPM_PREFIX"/node_modules/@anthropic-ai/claude-code-linux-*/claude 2>/dev/null | head -n1 || true)
        if [ -z "$native" ]; then
            say "the npm package installed without its native binary" \
                "(no @anthropic-ai/claude-code-linux-* optional dependency for $(uname -m))"
            exit 1
        fi
        ln -sfn "$native" "$CC_BIN"
    fi
    version=$("$CC_BIN" --version 2>&1) || { say "claude does not run: $version"; exit 1; }
    say "claude $version installed in $(($(date +%s) - start)) s"
fi
ln -sfn "$CC_BIN" "$BIN/claude"

# --- claude-mpm (PyPI, own venv) ---------------------------------------------
if [ "${SKIP_MPM:-0}" = "1" ]; then
    exit 0
fi
MPM_VENV="$TOOLS/mpm-venv"
if [ -z "${PYTHON:-}" ]; then
    if [ -x "$ROOT/.venv/bin/python" ]; then
        PYTHON=$("$ROOT/.venv/bin/python" -c 'import sys; print(sys._base_executable)')
    else
        PYTHON=python3
    fi
fi

mpm_installed() {
    [ -x "$MPM_VENV/bin/claude-mpm" ] &&
        compgen -G "$MPM_VENV/lib/python*/site-packages/claude_mpm-$CLAUDE_MPM_VERSION.dist-info" >/dev/null
}

if ! mpm_installed; then
    say "installing claude-mpm==$CLAUDE_MPM_VERSION into $MPM_VENV (python: $PYTHON)"
    start=$(date +%s)
    [ -x "$MPM_VENV/bin/python" ] || "$PYTHON" -m venv "$MPM_VENV"
    # pip's output (local index warnings included) goes to a log shown only on failure.
    log="$TOOLS/mpm-install.log"
    if ! "$MPM_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "claude-mpm==$CLAUDE_MPM_VERSION" >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        say "pip could not install claude-mpm==$CLAUDE_MPM_VERSION (full log: $log)"
        exit 1
    fi
    mpm_installed || { say "claude-mpm did not install its console script"; exit 1; }
    say "claude-mpm $CLAUDE_MPM_VERSION installed in $(($(date +%s) - start)) s"
fi
ln -sfn "$MPM_VENV/bin/claude-mpm" "$BIN/claude-mpm"
