"""The limit on open files: every WebSocket is one, and 10,000 spectators need more than
the soft limit many systems start a process with (1,024)."""

from __future__ import annotations


def raise_nofile() -> int | None:
    """Raise this process's soft limit on open files to its hard limit (each WebSocket is
    one; 10,000 spectators need more than the usual soft limit of 1,024). Returns the new
    limit if it was raised, else None."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard or (hard != resource.RLIM_INFINITY and soft >= hard):
        return None
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):  # pragma: no cover - not allowed here
        return None
    return target
