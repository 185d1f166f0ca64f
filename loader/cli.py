"""Command line of the loader: `loader --help`."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Load every Kafka topic with a registered Avro schema into a Hive/Spark table."""


if __name__ == "__main__":
    main()
