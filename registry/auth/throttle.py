"""Slows down password guessing: after too many failures for one user name from one client address
within a window, that pair is refused (429) until the window has passed since the last failures.

In memory, per server process: with N gunicorn workers an attacker gets at most N times the limit, which
still turns millions of guesses into tens; every failure is also logged for the operator's alerting.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

#: Keys remembered at most; past it, expired keys and then keys below the limit are forgotten.
MAX_KEYS = 100_000


class FailureThrottle:
    def __init__(
        self,
        max_failures: int,
        window_s: float,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self.clock = clock
        self.max_keys = max_keys
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        failures = self._failures.get(key, deque())
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if failures:
            self._failures[key] = failures
        else:
            self._failures.pop(key, None)
        return failures

    def retry_after(self, key: str) -> int:
        """Seconds until `key` may try again; 0 when it may now."""
        with self._lock:
            now = self.clock()
            failures = self._recent(key, now)
            if len(failures) < self.max_failures:
                return 0
            return max(1, int(failures[-self.max_failures] + self.window_s - now + 0.999))

    def failed(self, key: str) -> int:
        """Records a failure; returns how many there are in the window now."""
        with self._lock:
            now = self.clock()
            failures = self._recent(key, now)
            failures.append(now)
            self._failures[key] = failures
            if len(self._failures) > self.max_keys:
                self._shrink(now)
            return len(failures)

    def _shrink(self, now: float) -> None:
        """Bounds memory under a flood of made-up user names without lifting a lock-out.

        Expired keys go first, then keys below the limit; a locked-out key is kept, or the flood itself
        would reset the lock-out it was sent to escape.
        """
        for key in list(self._failures):
            self._recent(key, now)
        if len(self._failures) > self.max_keys:
            for key, failures in list(self._failures.items()):
                if len(failures) < self.max_failures:
                    del self._failures[key]

    def __len__(self) -> int:
        """How many keys are remembered."""
        return len(self._failures)

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)
