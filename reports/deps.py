"""Third-party modules, each with the Debian package that provides it."""
import importlib

DEBIAN_PACKAGES = {"jsonschema": "python3-jsonschema", "jinja2": "python3-jinja2"}


class MissingModule(Exception):
    """One line that names the Debian package to install."""


def require(*modules):
    """Imports the modules or raises MissingModule naming the first package missing."""
    loaded = []
    for name in modules:
        try:
            loaded.append(importlib.import_module(name))
        except ImportError:
            package = DEBIAN_PACKAGES.get(name, "python3-" + name)
            raise MissingModule(
                f"the python module '{name}' is missing: install it with: "
                f"sudo apt-get install -y {package}"
            ) from None
    return loaded[0] if len(loaded) == 1 else loaded
