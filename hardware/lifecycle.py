"""`Service`: the start-and-close life cycle that the box's driver, emulators and simulator share.

`with service:` starts it and closes it on the way out, whatever happens inside.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Service:
    def start(self) -> Self:
        """Start working (threads, processes); the default has nothing to start."""
        return self

    def close(self) -> object:
        """Stop and release everything; what it returns is the subclass's to say."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
