# Shared helpers for the project's scripts (sourced, not run).
# Paths are relative to the repository root so that a fresh clone works wherever it lives.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The Spark line (minor version) an environment is for, from loader/runtime/spark_versions.py: the default line's
# environment is .venv, another line's .venv-spark-<line> (scripts/setup and scripts/test take --spark,
# which sets PIPELINE_SPARK; VENV names an environment outright).
DEFAULT_SPARK_LINE="$(python3 "$REPO_ROOT/loader/runtime/spark_versions.py" default)"
SPARK_LINE="${PIPELINE_SPARK:-$DEFAULT_SPARK_LINE}"
if [ -z "${VENV:-}" ]; then
  if [ "$SPARK_LINE" = "$DEFAULT_SPARK_LINE" ]; then
    VENV="$REPO_ROOT/.venv"
  else
    VENV="$REPO_ROOT/.venv-spark-$SPARK_LINE"
  fi
fi
export VENV
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

# --- Jars from Maven Central ------------------------------------------------------------------------

MAVEN_POM="$REPO_ROOT/jvm/pom.xml"
MAVEN_SETTINGS="${PIPELINE_MAVEN_SETTINGS:-$REPO_ROOT/jvm/settings.xml}"

# pom_property NAME: a version property of jvm/pom.xml (e.g. kafka.version).
pom_property() {
  sed -n "s:.*<$1>\\(.*\\)</$1>.*:\\1:p" "$MAVEN_POM"
}

# maven_fetch PROFILE TARGET [MVN_ARGS...]: the runtime dependencies of the pom's PROFILE, copied into
# TARGET once; TARGET/.complete marks a finished copy, so an interrupted fetch is redone, a finished one
# re-used.
maven_fetch() {
  local profile="$1" target="$2"
  shift 2
  [ -f "$target/.complete" ] && return 0
  maven_copy "$profile" "$target" "$@" \
    || die "could not fetch '$profile' from Maven Central (is the registry reachable?). Maven's words are above."
}

# maven_copy PROFILE TARGET [MVN_ARGS...]: as maven_fetch, but a failure returns 1 (Maven's first error
# line on stderr) instead of ending the script.
maven_copy() {
  local profile="$1" target="$2"
  shift 2
  require_tool mvn maven "fetches jars from Maven Central"
  info "fetching $profile into $target (Maven Central)"
  rm -rf "$target.partial"
  local log
  log="$(mktemp)"
  if ! mvn -B -q -s "$MAVEN_SETTINGS" -f "$MAVEN_POM" -P "$profile" "$@" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$target.partial" >"$log" 2>&1; then
    # Maven's first error line says what failed (an artifact, a plugin, a host); the rest is advice.
    sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -m 1 -E '^\[ERROR\] [^ ]' | cut -c1-400 >&2 || tail -n 5 "$log" >&2
    rm -f "$log" && rm -rf "$target.partial"
    return 1
  fi
  rm -f "$log"
  rm -rf "$target"
  mv "$target.partial" "$target"
  touch "$target/.complete"
}

# fetch_spark_connectors SCALA VERSION TARGET: Spark's connectors (Kafka source, Avro functions) for
# pyspark VERSION into TARGET: at VERSION, or, where Maven Central does not serve all of them at it
# (pyspark can be out before its connectors), the newest patch of the same minor below it that it does.
fetch_spark_connectors() {
  local scala="$1" version="$2" target="$3" candidate
  [ -f "$target/.complete" ] && return 0
  for candidate in $(python3 "$REPO_ROOT/loader/runtime/spark_versions.py" connectors "$version"); do
    if maven_copy spark-connectors "$target" -Dspark.version="$candidate" -Dscala.binary.version="$scala" 2>/dev/null; then
      return 0
    fi
    info "Spark's connectors $candidate are not all served; trying the patch below"
  done
  die "Maven Central serves Spark's connectors (spark-sql-kafka-0-10_$scala, spark-avro_$scala) at no patch of Spark $version's minor up to $version"
}

# free_ports N: N distinct TCP ports on 127.0.0.1 that nothing listens on right now, one a line (all
# bound at once, so that the kernel cannot hand out one twice).
free_ports() {
  "$VENV/bin/python" - "$1" <<'PY'
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in sockets))
PY
}

# launch_service PID_FILE LOG COMMAND...: starts COMMAND in a session of its own (it outlives the script
# and the test that started it), output into LOG, and records its pid.
launch_service() {
  local pid_file="$1" log="$2"
  shift 2
  : >"$log"
  setsid "$@" >"$log" 2>&1 </dev/null &
  echo "$!" >"$pid_file"
}

# pyspark_jars: the directory of the jars pyspark ships (Spark, Hive, Hadoop, Derby, DataNucleus).
pyspark_jars() {
  [ -x "$VENV/bin/python" ] || die "no Python environment at $VENV: run scripts/setup first."
  "$VENV/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))' \
    2>/dev/null || die "pyspark is not installed in $VENV: run scripts/setup first."
}
