"""The files a schema may import without registering them: protobuf's well-known types
(``google/protobuf/*.proto``, shipped with grpc_tools) and Confluent's ``confluent/meta.proto`` and
``confluent/type/decimal.proto`` (shipped here, ``protos/``), as Confluent's registry resolves them."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

CONFLUENT_FILES = ("confluent/meta.proto", "confluent/type/decimal.proto")


@cache
def include_dirs() -> tuple[str, ...]:
    """The directories protoc looks in for imports no reference names (ours first)."""
    ours = Path(str(files("registry.schema_types.protobuf") / "protos"))
    well_known = Path(str(files("grpc_tools") / "_proto"))
    return (str(ours), str(well_known))


def is_builtin(path: str) -> bool:
    """Whether the import ``path`` resolves without a reference (a reference cannot replace it)."""
    return path in CONFLUENT_FILES or path.startswith("google/protobuf/")


def described() -> str:
    """The built-in imports, as an error message lists them."""
    return "google/protobuf/*.proto, " + ", ".join(CONFLUENT_FILES)
