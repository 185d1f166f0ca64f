# Shared helpers for the project's scripts (sourced, not run).
# Paths are relative to the repository root so that a fresh clone works wherever it lives.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$REPO_ROOT/.venv}"
CACHE_DIR="${PIPELINE_CACHE_DIR:-$REPO_ROOT/.cache}"
JARS_DIR="${PIPELINE_JARS_DIR:-$CACHE_DIR/jars}"

die() {
  echo "error: $*" >&2
  exit 1
}

info() {
  echo "==> $*" >&2
}

# apt_install PKG...: installs Debian packages when running as root with apt-get available
# (PIPELINE_NO_APT=1 turns this off, for machines where the scripts must not install anything).
apt_install() {
  if [ -n "${PIPELINE_NO_APT:-}" ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    return 1
  fi
  if [ -z "${_APT_UPDATED:-}" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || return 1
    _APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1
}

# require_tool CMD DEBIAN_PACKAGE WHAT: makes CMD available, installing the package if it can.
require_tool() {
  local cmd="$1" package="$2" what="$3"
  command -v "$cmd" >/dev/null 2>&1 && return 0
  info "$cmd not found; installing Debian package $package ($what)"
  apt_install "$package" && command -v "$cmd" >/dev/null 2>&1 && return 0
  die "$cmd is missing and could not be installed: install the Debian package '$package' ($what) and re-run."
}
