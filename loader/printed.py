"""The lines the loader prints for people: a styled label, then text from outside (an error, a path, an
address, a topic, a note) printed as text, never read as Rich markup. Read as markup, an AWS SDK error
such as `Connect to 127.0.0.1:9000 [/127.0.0.1] failed` is a closing tag that matches nothing: the output
ends in a traceback and the operator never sees the cause. Tables escape their cells with
`rich.markup.escape`, as these lines do."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

NOTE = "[yellow]note:[/]"
ERROR = "[bold red]error:[/]"
NOT_STARTED = "[yellow]not started:[/]"


def labelled(console: Console, label: str, text: object, **options: Any) -> None:
    """`label` (markup of the loader's own), then `text` as it is."""
    console.print(f"{label} {escape(str(text))}", **options)


def note(console: Console, text: object) -> None:
    labelled(console, NOTE, text)


def error(console: Console, text: object, **options: Any) -> None:
    labelled(console, ERROR, text, **options)


def not_started(console: Console, text: object) -> None:
    labelled(console, NOT_STARTED, text)
