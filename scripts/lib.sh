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

# --- Background services (the Kafka broker, the Hive metastore) -------------------------------------
# A service is a JVM started with setsid (so that it outlives the script and the test that started it),
# its pid in a file; start waits until it accepts connections on its port.

# service_pid PID_FILE: prints the pid when that process is alive.
service_pid() {
  [ -f "$1" ] || return 1
  local pid
  pid="$(cat "$1")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# wait_for_service NAME PID PORT TIMEOUT_S LOG [READY_PATTERN]: until PORT accepts connections (and LOG
# shows READY_PATTERN, if given); fails with the log's tail when the process dies or time runs out.
wait_for_service() {
  local name="$1" pid="$2" port="$3" timeout="$4" log="$5" pattern="${6:-}" waited=0
  until { [ -z "$pattern" ] || grep -q "$pattern" "$log" 2>/dev/null; } \
      && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$log" >&2 || true
      die "$name exited during start-up (full log in $log)"
    fi
    if [ "$waited" -ge "$((timeout * 5))" ]; then
      kill "$pid" 2>/dev/null || true
      die "$name did not answer on port $port within ${timeout}s (log in $log)"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
}

# stop_service NAME PID_FILE: SIGTERM, up to 30 s for a clean shutdown, then SIGKILL.
stop_service() {
  local name="$1" pid_file="$2" pid
  if ! pid="$(service_pid "$pid_file")"; then
    echo "$name is not running" >&2
    rm -f "$pid_file"
    return 0
  fi
  kill -TERM "$pid"
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$name did not stop within 30s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
  info "$name stopped"
}

# pyspark_jars: the directory of the jars pyspark ships (Spark, Hive, Hadoop, Derby, DataNucleus).
pyspark_jars() {
  [ -x "$VENV/bin/python" ] || die "no Python environment at $VENV: run scripts/setup first."
  "$VENV/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))' \
    2>/dev/null || die "pyspark is not installed in $VENV: run scripts/setup first."
}
