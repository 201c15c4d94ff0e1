"""Command-line values shared by several commands: rank lists and KEY=VALUE pairs."""
from .errors import OrdoError


DEFAULT_RANKS = "1-8"


def parse_ranks(text):
    ranks: list = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-", 1))
                if lo > hi:
                    raise ValueError
                ranks.extend(range(lo, hi + 1))
            else:
                ranks.append(int(part))
    except ValueError:
        ranks = []
    if not ranks or any(r < 1 or r > 1024 for r in ranks):
        raise OrdoError(
            f"--ranks '{text}' is not a list of rank counts such as 1,2,3 or 1-8"
        )
    return sorted(set(ranks))


def parse_env(items):
    env = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key or not key.replace("_", "").isalnum():
            raise OrdoError(f"--env '{item}' is not of the form KEY=VALUE")
        env[key] = value
    return env
