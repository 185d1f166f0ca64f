"""Where in the source text a JSON pointer points: line and column for messages a person acts on.

The compatibility checker and the policies speak in JSON pointers ("/fields/2/type") because they work on
parsed JSON; an editor needs "page_view.avsc:14:5". ``json`` forgets positions, so this module has its own
small scanner that walks the text once and records where every value starts. It is only ever run on text
that ``json.loads`` already accepted, so it can be strict and short rather than forgiving.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

__all__ = [
    "NOWHERE",
    "Located",
    "Position",
    "SourceIndex",
    "TextIndex",
    "Unlocated",
    "escape_token",
    "join_pointer",
    "split_pointer",
    "text_index",
]


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column (columns count characters, as editors do)."""

    line: int
    column: int


START = Position(1, 1)
#: The file as a whole: where a problem in a text that is not JSON shows when no line can be named for it
#: (a Protobuf schema sent as a descriptor, or a part the new version no longer has; its message names it).
NOWHERE = Position(0, 0)


def escape_token(token: str | int) -> str:
    """One reference token, escaped as RFC 6901 says ("~" then "/")."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join_pointer(*tokens: str | int) -> str:
    """A pointer from its tokens: ``join_pointer("fields", 2)`` is ``"/fields/2"``."""
    return "".join("/" + escape_token(token) for token in tokens)


def split_pointer(pointer: str) -> list[str]:
    """The unescaped tokens of a pointer; ``""`` (the whole document) has none."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON pointer starts with '/': {pointer!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


class ScanError(ValueError):
    """The text is not JSON this scanner understands (never raised for text ``json.loads`` accepts)."""


_WHITESPACE = " \t\n\r"
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")
_NUMBER_CHARS = frozenset("0123456789+-.eE")


class _Scanner:
    """Walks JSON text once, recording each value's start under its pointer."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.starts: dict[str, int] = {}
        self.keys: dict[str, int] = {}

    def scan(self) -> None:
        self._skip_whitespace()
        self._value("")
        self._skip_whitespace()
        if self.offset != len(self.text):
            raise ScanError(f"unexpected text after the JSON value at offset {self.offset}")

    def _skip_whitespace(self) -> None:
        text, offset = self.text, self.offset
        while offset < len(text) and text[offset] in _WHITESPACE:
            offset += 1
        self.offset = offset

    def _peek(self) -> str:
        if self.offset >= len(self.text):
            raise ScanError("unexpected end of the text")
        return self.text[self.offset]

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise ScanError(f"expected {char!r} at offset {self.offset}")
        self.offset += 1

    def _value(self, pointer: str) -> None:
        self.starts[pointer] = self.offset
        char = self._peek()
        if char == "{":
            self._object(pointer)
        elif char == "[":
            self._array(pointer)
        elif char == '"':
            self._string()
        else:
            self._scalar()

    def _object(self, pointer: str) -> None:
        self._expect("{")
        self._skip_whitespace()
        if self._peek() == "}":
            self.offset += 1
            return
        while True:
            self._skip_whitespace()
            key_start = self.offset
            key = self._string()
            member = pointer + "/" + escape_token(key)
            self.keys[member] = key_start
            self._skip_whitespace()
            self._expect(":")
            self._skip_whitespace()
            self._value(member)
            self._skip_whitespace()
            if self._peek() == ",":
                self.offset += 1
                continue
            self._expect("}")
            return

    def _array(self, pointer: str) -> None:
        self._expect("[")
        self._skip_whitespace()
        if self._peek() == "]":
            self.offset += 1
            return
        index = 0
        while True:
            self._skip_whitespace()
            self._value(f"{pointer}/{index}")
            index += 1
            self._skip_whitespace()
            if self._peek() == ",":
                self.offset += 1
                continue
            self._expect("]")
            return

    def _string(self) -> str:
        """Returns the decoded string (keys need it); escapes are decoded the way ``json`` does."""
        self._expect('"')
        text = self.text
        chunks: list[str] = []
        while True:
            end = self.offset
            while end < len(text) and text[end] not in '"\\':
                end += 1
            if end >= len(text):
                raise ScanError("unterminated string")
            chunks.append(text[self.offset : end])
            self.offset = end + 1
            if text[end] == '"':
                return "".join(chunks)
            chunks.append(self._escape())

    def _escape(self) -> str:
        simple = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
        char = self._peek()
        self.offset += 1
        if char in simple:
            return simple[char]
        if char != "u":
            raise ScanError(f"invalid escape at offset {self.offset - 1}")
        code = int(self.text[self.offset : self.offset + 4], 16)
        self.offset += 4
        if 0xD800 <= code < 0xDC00 and self.text[self.offset : self.offset + 2] == "\\u":
            low = int(self.text[self.offset + 2 : self.offset + 6], 16)
            if 0xDC00 <= low < 0xE000:
                self.offset += 6
                return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
        return chr(code)

    def _scalar(self) -> None:
        for literal in _LITERALS:
            if self.text.startswith(literal, self.offset):
                self.offset += len(literal)
                return
        end = self.offset
        while end < len(self.text) and self.text[end] in _NUMBER_CHARS:
            end += 1
        if end == self.offset:
            raise ScanError(f"unexpected character {self.text[self.offset]!r} at offset {self.offset}")
        self.offset = end


class SourceIndex:
    """Pointer → position for one JSON text; built once per file, asked many times.

    If the text cannot be scanned (it should always scan, since callers parse it first) every lookup
    answers 1:1 rather than failing: a message without its exact column beats no message.
    """

    def __init__(self, text: str) -> None:
        self._line_starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self._line_starts.append(index + 1)
        scanner = _Scanner(text)
        try:
            scanner.scan()
        except (ScanError, ValueError, IndexError):
            scanner.starts, scanner.keys = {}, {}
        self._starts = scanner.starts
        self._keys = scanner.keys

    def _position(self, offset: int) -> Position:
        low, high = 0, len(self._line_starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self._line_starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return Position(low + 1, offset - self._line_starts[low] + 1)

    def value(self, pointer: str) -> Position:
        """Where the value at ``pointer`` starts; for a pointer that goes nowhere, its nearest ancestor.

        Falling back to the ancestor matters: a pointer can name a member that is *missing* (a field
        without "default"), and the best place to show then is the object that should have had it.
        """
        try:
            tokens = split_pointer(pointer)
        except ValueError:
            return START
        while True:
            candidate = join_pointer(*tokens)
            if candidate in self._starts:
                return self._position(self._starts[candidate])
            if not tokens:
                return START
            tokens.pop()

    def key(self, pointer: str) -> Position:
        """Where the member name of ``pointer`` starts ("name" in ``"name": ...``), else ``value()``."""
        if pointer in self._keys:
            return self._position(self._keys[pointer])
        return self.value(pointer)

    def __contains__(self, pointer: str) -> bool:
        return pointer in self._starts


class Unlocated:
    """The index of a text that is not JSON (a ``.proto`` file) before it is parsed: no pointer leads into
    it."""

    def value(self, pointer: str) -> Position:
        return NOWHERE

    def key(self, pointer: str) -> Position:
        return NOWHERE

    def __contains__(self, pointer: str) -> bool:
        return False


class Located:
    """The index of a text that is not JSON, from where its type says the pointers lead (a ``.proto``
    file's declarations): a pointer without a place of its own shows at its nearest located parent.
    ``positions`` is asked only when a pointer is (finding them may compile the text again)."""

    def __init__(self, positions: Callable[[], Mapping[str, tuple[int, int]]]) -> None:
        self._find = positions

    @cached_property
    def _positions(self) -> Mapping[str, tuple[int, int]]:
        return self._find()

    def value(self, pointer: str) -> Position:
        if not pointer.startswith("/"):  # the whole file, or a part of a file it imports
            return NOWHERE
        tokens = split_pointer(pointer)
        while tokens:
            found = self._positions.get(join_pointer(*tokens))
            if found is not None:
                return Position(*found)
            tokens = tokens[:-1]
        return NOWHERE

    def key(self, pointer: str) -> Position:
        return self.value(pointer)

    def __contains__(self, pointer: str) -> bool:
        return pointer in self._positions


TextIndex = SourceIndex | Unlocated | Located


def text_index(text: str, is_json: bool) -> TextIndex:
    """Where pointers lead in ``text``: a :class:`SourceIndex` for JSON, else nowhere until the type says
    (:class:`Located`)."""
    return SourceIndex(text) if is_json else Unlocated()
