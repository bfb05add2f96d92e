"""Errors caused by what the user gave us: reported as one clear line, never a traceback."""


class UserError(Exception):
    """A mistake in the user's input (a file, an option, a device URL) that we can explain."""
