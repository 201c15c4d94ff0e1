"""The one error of the command line and its exit codes."""

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INFRA = 0, 1, 2, 3


class OrdoError(Exception):
    """A problem the user can act on: one line, and the exit code to end with."""

    def __init__(self, message, code=EXIT_USAGE):
        super().__init__(message)
        self.code = code
