"""Command line of the schema registry: `registry --help`."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Avro schema registry (Confluent Schema Registry API) and schema checks."""


if __name__ == "__main__":
    main()
