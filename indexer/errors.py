"""The one exception family of tg-index; the CLI turns it into `error: ...`."""

from __future__ import annotations


class TgIndexError(Exception):
    """A problem the user can fix; its message is one line that names the fix."""


class SourceError(TgIndexError):
    """A source file of the checkout that cannot be read as expected (carries file:line)."""


class Interrupted(TgIndexError):
    """The user stopped a build (Ctrl-C); the index on disk is the one from before."""


class WorkerDied(TgIndexError):
    """A worker process of the build ended before its part was done (killed: by the system when memory runs out,
    or by a user); the build stops and the index on disk is the one from before."""

    @classmethod
    def of(cls, what: str, code: int, cause: str | None = None) -> WorkerDied:
        """The error of a worker of `what` that ended with this exit code (negative: the signal), or for the
        cause given."""
        import signal

        if cause is not None:
            how = cause
        elif code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            how = f"killed by {name}" + (", as the system does when memory runs out" if -code == signal.SIGKILL else "")
        else:
            how = f"exit {code}"
        return cls(f"a worker process of the {what} ended before its work was done ({how}); the index is as it "
                   "was: run tg-index again (-j 1 uses less memory)")
