"""Where a run's metrics go: a file for node_exporter's textfile collector and/or a Pushgateway group.

Both hold the previous run's samples, which the next run reads back first (see `loader.observability
.metrics`): the file is read as it is; the Pushgateway's group (job `loader`, instance the database's
name, never the run id) is read from its `/metrics`. Writing the file is atomic (a temporary file in the
same directory, then `os.replace`), so the collector never reads half of one; pushing replaces the whole
group (HTTP PUT), so no series of an earlier run is left behind.

A sink that cannot be read or written costs the run nothing but a warning: the metrics are about the
load, never a reason to fail it.
"""

from __future__ import annotations

import os
import tempfile
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from prometheus_client.core import Metric
from prometheus_client.exposition import push_to_gateway

from loader.observability.metrics import Samples, exposition, parse_samples, registry

JOB = "loader"
AUDIT_JOB = "loader_audit"


@dataclass(frozen=True)
class MetricsSinks:
    file: Path | None  # the textfile collector's file (its directory, its `.prom` name)
    pushgateway_url: str | None
    instance: str  # the Pushgateway group's instance label: stable from run to run
    job: str = JOB
    timeout_s: float = 10.0

    @property
    def any(self) -> bool:
        return self.file is not None or self.pushgateway_url is not None

    def previous(self, warn: Callable[[str], None]) -> Samples:
        """The samples the sinks hold from the previous run: the file's, else the Pushgateway group's."""
        if self.file is not None:
            try:
                return parse_samples(self.file.read_text()) if self.file.exists() else {}
            except (OSError, ValueError) as exc:
                warn(f"the previous metrics in {self.file} could not be read ({exc}): counters start at 0")
                return {}
        if self.pushgateway_url is not None:
            try:
                return self._pushed()
            except (OSError, ValueError) as exc:
                warn(f"the Pushgateway {self.pushgateway_url} could not be read ({exc}): counters start at 0")
        return {}

    def _pushed(self) -> Samples:
        url = self.pushgateway_url.rstrip("/") + "/metrics"  # type: ignore[union-attr]
        with urllib.request.urlopen(url, timeout=self.timeout_s) as answer:
            text = answer.read().decode()
        found = parse_samples(
            text, drop=("job", "instance"), only={"job": self.job, "instance": self.instance}
        )
        # The Pushgateway's own samples of the group (push_time_seconds...) are not the loader's.
        return {k: v for k, v in found.items() if k[0].startswith("loader_")}

    def publish(self, families: Iterable[Metric], warn: Callable[[str], None]) -> None:
        held = list(families)
        if self.file is not None:
            try:
                write_atomically(self.file, exposition(held))
            except OSError as exc:
                warn(f"the metrics could not be written to {self.file}: {exc}")
        if self.pushgateway_url is not None:
            try:
                push_to_gateway(
                    self.pushgateway_url,
                    job=self.job,
                    registry=registry(held),
                    grouping_key={"instance": self.instance},
                    timeout=self.timeout_s,
                )
            except OSError as exc:
                warn(f"the metrics could not be pushed to {self.pushgateway_url}: {exc}")


def write_atomically(path: Path, content: bytes) -> None:
    """Writes a temporary file beside `path` and renames it over `path`: a reader sees the old file or
    the new one, never part of one. The temporary name does not end in `.prom`, so the collector never
    reads it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # the collector may run as another user
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def audit_file(run_file: Path) -> Path:
    """`loader audit`'s own file beside the runs' (`loader.prom` -> `loader_audit.prom`): the audit
    never rewrites the runs' file, so the two commands cannot lose each other's samples."""
    return run_file.with_name(f"{run_file.stem}_audit{run_file.suffix or '.prom'}")
