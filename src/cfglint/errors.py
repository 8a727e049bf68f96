"""Errors that end a run with exit code 2 and one line on stderr."""


class UsageError(Exception):
    """The command line asks for something that does not exist (a format, a consumer, a rule)."""
