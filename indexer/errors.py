"""The one exception family of tg-index; the CLI turns it into `error: ...`."""


class TgIndexError(Exception):
    """A problem the user can fix; its message is one line that names the fix."""


class SourceError(TgIndexError):
    """A source file of the checkout that cannot be read as expected (carries file:line)."""


class Interrupted(TgIndexError):
    """The user stopped a build (Ctrl-C); the index on disk is the one from before."""
