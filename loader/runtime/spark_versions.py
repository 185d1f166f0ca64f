"""The Spark versions the loader supports, and what each needs: declared once, read by the setup scripts
(`python3 loader/runtime/spark_versions.py shell 4.1`), by the loader at run time (`line_for`) and by the
docs' versions table (`python3 loader/runtime/spark_versions.py table`, checked by a test).

A line is a Spark minor version. What differs between lines is here and nowhere else:
- the Scala binary version of its jars (read from pyspark's own jars at setup; stated here for the docs);
- the Apache Iceberg release whose Spark runtime is built for it, or none (then `--table-format iceberg`
  refuses at once, naming the Spark version and the missing runtime);
- Spark's Kafka source and Avro functions come at pyspark's own version, or the newest patch of the same
  minor that Maven Central serves (pyspark can be released before its connectors are published).

Pure data and decisions, standard library only: the setup scripts run it before any virtual environment
exists.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

# The newest line on which both table formats work: the default environment, and the whole test suite's.
DEFAULT_LINE = "4.1"
# The oldest supported line: CI runs the loader's core there too, in an environment of its own.
OLDEST_LINE = "3.5"


@dataclass(frozen=True)
class SparkLine:
    """A supported Spark minor version."""

    minor: str
    scala: str  # the Scala binary version of its jars
    iceberg: str | None  # the newest Iceberg release with a Spark runtime for this minor, if any

    @property
    def iceberg_runtime(self) -> str | None:
        """The Maven artifact of Iceberg's Spark runtime for this line, if one is published."""
        if self.iceberg is None:
            return None
        return f"org.apache.iceberg:iceberg-spark-runtime-{self.minor}_{self.scala}:{self.iceberg}"


# Iceberg's runtimes as Maven Central served them on 2026-11-25: 3.5 up to 1.12.0, 4.0 up to 1.11.0 (its
# last for 4.0), 4.1 from 1.11.0 to 1.12.0, none yet for 4.2.
LINES: dict[str, SparkLine] = {
    line.minor: line
    for line in (
        SparkLine("3.5", scala="2.12", iceberg="1.12.0"),
        SparkLine("4.0", scala="2.13", iceberg="1.11.0"),
        SparkLine("4.1", scala="2.13", iceberg="1.12.0"),
        SparkLine("4.2", scala="2.13", iceberg=None),
    )
}

# Apache Kafka brokers the broker-facing tests run against (scripts/kafka, KAFKA_VERSION).
KAFKA_BROKERS = ("4.4.0", "3.9.1")


class UnsupportedSparkVersion(ValueError):
    """The running Spark is not one of the supported lines."""


def minor_of(version: str) -> str:
    """`4.1.3` -> `4.1` (also for `4.2.0-preview1` or `3.5.9.dev0`)."""
    parts = version.split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise UnsupportedSparkVersion(f"not a Spark version: {version!r}")
    return f"{parts[0]}.{parts[1]}"


def line_for(version: str) -> SparkLine:
    """The supported line of Spark `version`; refuses an unsupported one, naming the supported ones."""
    minor = minor_of(version)
    try:
        return LINES[minor]
    except KeyError:
        supported = ", ".join(LINES)
        raise UnsupportedSparkVersion(
            f"Spark {version} is not supported by the loader; supported: {supported} (docs/loader.md, "
            f'"Versions")'
        ) from None


def iceberg_refusal(version: str) -> str | None:
    """Why `--table-format iceberg` cannot run on Spark `version`, or None when it can."""
    line = line_for(version)
    if line.iceberg is None:
        return (
            f"Apache Iceberg publishes no Spark runtime for Spark {line.minor} yet (the running Spark is "
            f"{version}): use --table-format hive, or Spark "
            f"{', '.join(m for m, x in LINES.items() if x.iceberg)}"
        )
    return None


def connector_candidates(version: str) -> list[str]:
    """The Spark releases whose connectors suit pyspark `version`, best first: that version, then each
    older patch of the same minor (`4.1.4` -> 4.1.4, 4.1.3, ... 4.1.0). Tried one by one at setup, not as
    a Maven version range: a range would take a preview (`4.2.0-preview5` sorts after `4.2.0` there)."""
    minor = minor_of(version)
    patch = version.split(".")[2] if version.count(".") >= 2 else "0"
    digits = "".join(c for c in patch if c.isdigit()) or "0"
    return [f"{minor}.{p}" for p in range(int(digits), -1, -1)]


def shell_assignments(minor: str) -> str:
    """Shell variable assignments for the setup scripts: the line's Scala, Iceberg and pyspark pin."""
    line = LINES.get(minor)
    if line is None:
        raise UnsupportedSparkVersion(f"Spark {minor} is not supported; supported: {', '.join(LINES)}")
    return "\n".join(
        [
            f"SPARK_LINE={line.minor}",
            f"SPARK_SCALA={line.scala}",
            f"ICEBERG_VERSION={line.iceberg or ''}",
            f"PYSPARK_REQUIREMENT='pyspark=={line.minor}.*'",
        ]
    )


def versions_table() -> str:
    """The versions table of the docs (Markdown), from `LINES`."""
    rows = [
        "| Spark | Scala | connectors (Kafka source, Avro) | Iceberg runtime | tables | tested in CI |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for line in LINES.values():
        iceberg = f"{line.iceberg}" if line.iceberg else "none published"
        formats = "Hive ORC, Iceberg" if line.iceberg else "Hive ORC"
        tested = (
            "default and full tiers (default)"
            if line.minor == DEFAULT_LINE
            else "a smoke; loader core in the full tier"
            if line.minor == OLDEST_LINE
            else "loader core, by hand"
        )
        rows.append(
            f"| {line.minor}.x | {line.scala} | pyspark's, or the newest served patch of {line.minor} | "
            f"{iceberg} | {formats} | {tested} |"
        )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "shell":
        try:
            print(shell_assignments(argv[1]))
        except UnsupportedSparkVersion as refused:
            print(f"error: {refused}", file=sys.stderr)
            return 2
        return 0
    if argv == ["default"]:
        print(DEFAULT_LINE)
        return 0
    if argv == ["oldest"]:
        print(OLDEST_LINE)
        return 0
    if argv == ["table"]:
        print(versions_table())
        return 0
    if len(argv) == 2 and argv[0] == "connectors":
        print(" ".join(connector_candidates(argv[1])))
        return 0
    print(
        "usage: spark_versions.py shell MINOR | default | oldest | table | connectors VERSION",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
