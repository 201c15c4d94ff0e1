"""The waivers a job is judged with: the adapter's file (reports/waivers.py
locates, validates and matches it; the harness matches the same file in C++),
the library's release they are matched against, and today's date."""
import datetime

from reports import waivers as matcher
from .errors import OrdoError


class JobWaivers:
    """The adapter's waivers; library_version: the release (e.g. "4.0.2"), or a
    function that finds it, called only when a waiver names releases and a
    record needs judging."""

    def __init__(self, adapter, library_version=""):
        self.path = matcher.locate(adapter)
        try:
            self.waivers = matcher.load(self.path) if self.path else []
        except matcher.WaiverFileError as e:
            raise OrdoError(str(e))
        self._version = library_version

    @property
    def library_version(self):
        if callable(self._version):
            self._version = self._version() or ""
        return self._version

    def flag(self):
        """The harness's --ordo-waivers setting (None: no waivers file)."""
        return str(self.path) if self.path else None

    def apply(self, record):
        """A crash or timeout that a waiver names (one of its outcomes, and its
        signature: the message's text, signal or exit code, or a hang) is
        recorded as waived, with the waiver's reason; one that does not apply
        says why."""
        if not self.waivers:
            return record
        needs_version = any(w.get("library_versions") for w in self.waivers)
        return matcher.apply(
            record,
            self.waivers,
            today=datetime.date.today().isoformat(),
            library_version=self.library_version if needs_version else "",
        )


def library_release(version_string):
    """The release in run.json's library_version string ("4.0.2")."""
    return matcher.parse_library_version(version_string or "")
