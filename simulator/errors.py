"""The simulator's one error for what it is given: callers tell it from a bug by its type."""

from __future__ import annotations


class DesignError(ValueError):
    """A card design or back the simulator was given (a folder, a file, a spec such as
    'blue:dots') that it cannot use; the message names it."""
