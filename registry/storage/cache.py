"""A small thread-safe LRU for immutable lookups (schema by id, parsed schemas, subject versions).

Schema ids never change meaning (schemas rows are never deleted), so those entries need no invalidation;
subject-version entries carry the delete ``epoch`` they were read at and are ignored once it moved.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRUCache(Generic[V]):
    """Least-recently-used mapping bounded to ``capacity`` entries."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(0, capacity)
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        #: Told of every lookup (True for a hit), e.g. to export hit rates as metrics.
        self.observer: Callable[[bool], None] | None = None

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is None:
                self.misses += 1
            else:
                self._data.move_to_end(key)
                self.hits += 1
        if self.observer is not None:
            self.observer(value is not None)
        return value

    def put(self, key: Hashable, value: V) -> None:
        if self.capacity == 0:
            return
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
