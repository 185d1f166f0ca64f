"""Passwords, tokens and private-key passphrases as values that cannot leak by accident.

A secret is read from a file or an environment variable, never taken from a command line (where the process
list shows it to every user of the machine). Once read it is a ``Secret``: its ``repr`` and ``str`` name
where it came from and never its text, so a settings object holding one can be printed, logged or put into
an error message safely; the text is taken out with ``reveal()`` only where a client library needs it.

Shared by the loader and ``registry check``/``push``, so it needs nothing beyond the standard library.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Secret",
    "SecretError",
    "looks_secret",
    "one_secret",
    "secret_from_env",
    "secret_from_file",
    "secret_reference",
]

# Property names whose values are secrets, in Kafka's, librdkafka's and Confluent's client vocabularies.
_SECRET_NAME = re.compile(r"password|secret|jaas|user\.info|(^|\.)token$|(^|\.)key$|\.key\.pem$", re.I)


class SecretError(ValueError):
    """A secret could not be read, or was given where secrets may not be; the message says which and how."""


@dataclass(frozen=True)
class Secret:
    """A secret's text and where it came from (for messages: "file /etc/x", "environment variable X")."""

    text: str = field(repr=False)
    source: str

    def reveal(self) -> str:
        """The text, for the one place that hands it to a client library."""
        return self.text

    def __str__(self) -> str:
        return f"<secret from {self.source}>"

    def __repr__(self) -> str:
        return f"Secret(source={self.source!r})"


def looks_secret(name: str) -> bool:
    """Whether a client property of this name holds a secret (``sasl.password``, ``sasl.jaas.config``,
    ``basic.auth.user.info``, ``ssl.keystore.key``...): it must come from a file or the environment."""
    return bool(_SECRET_NAME.search(name))


def secret_from_file(path: str | Path, what: str) -> Secret:
    """The file's text without its final line break (``echo secret > file`` adds one)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretError(f"cannot read {what} from {path}: {exc.strerror or exc}") from exc
    text = text.removesuffix("\n").removesuffix("\r")
    if not text:
        raise SecretError(f"{what} file {path} is empty")
    return Secret(text, f"file {path}")


def secret_from_env(name: str, environ: Mapping[str, str] | None = None) -> Secret | None:
    """The variable's value as a secret, or None when it is unset or empty."""
    value = (os.environ if environ is None else environ).get(name)
    return Secret(value, f"environment variable {name}") if value else None


def secret_reference(value: object, what: str, environ: Mapping[str, str] | None = None) -> Secret:
    """A secret named in a config file as ``{ file = "/path" }`` or ``{ env = "VARIABLE" }``.

    A plain string is refused: config files are copied, committed and shown in reviews, so they may point at
    secrets but not hold them.
    """
    if isinstance(value, Mapping) and len(value) == 1:
        if "file" in value:
            return secret_from_file(str(value["file"]), what)
        if "env" in value:
            found = secret_from_env(str(value["env"]), environ)
            if found is None:
                raise SecretError(f"{what}: environment variable {value['env']} is not set")
            return found
    raise SecretError(
        f'{what} is a secret: give it as {{ file = "/path/to/file" }} or {{ env = "VARIABLE" }}, '
        "not as a value in the config file"
    )


def one_secret(
    what: str, file: str | Path | None, variable: str, environ: Mapping[str, str] | None = None
) -> Secret | None:
    """A secret given as a file (a setting naming it) or in an environment variable, or None when neither
    is given; both at once is refused, naming both."""
    from_env = secret_from_env(variable, environ)
    if file and from_env is not None:
        raise SecretError(f"{what} is given both as a file ({file}) and in {variable}: give one")
    return secret_from_file(file, what) if file else from_env
