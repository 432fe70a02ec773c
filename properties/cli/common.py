"""Shared plumbing for the command line: error handling, JSON output, key=value parsing.

Every command of ``contrastive-bounds`` goes through :func:`command`, so bad input always
exits with code 2 and one line naming the argument, never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable

import typer
from rich.console import Console
from contrastive_bounds.properties.jsonsafe import jsonable

# Piped output (files, CI logs) gets a wide console so numbers in tables are never split across lines.
console = Console() if sys.stdout.isatty() else Console(width=160)
err_console = Console(stderr=True, soft_wrap=True)

EXIT_OK = 0
EXIT_VIOLATED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class CLIError(ValueError):
    """Bad command-line input; the message names the argument."""


def command(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a typer command: ValueError/KeyError/FileNotFoundError -> one line on stderr, exit 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except (ValueError, KeyError, FileNotFoundError, TypeError) as exc:
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if isinstance(exc, KeyError):
                msg = str(exc.args[0]) if exc.args else "unknown key"
            err_console.print(f"error: {msg}", markup=False, highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT)
        except OverflowError as exc:  # a size beyond what an int32/float64 index can hold
            err_console.print(f"error: a size is too large ({exc}); choose smaller sizes", markup=False, highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:  # commands that save progress catch it themselves and say what to rerun
            err_console.print("interrupted (Ctrl-C)", markup=False, highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED)
        except Exception as exc:
            if not _out_of_memory(exc):
                raise
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            err_console.print(f"error: out of memory ({first}); the sizes given need more memory than this machine has: "
                              "choose smaller sizes (widths, batch or reference sizes, points or chains)",
                              markup=False, highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT)

    return wrapper


def _out_of_memory(exc: BaseException) -> bool:
    """A MemoryError, or an XLA allocation failure (``RESOURCE_EXHAUSTED`` / ``Out of memory``)."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc)
    return type(exc).__name__ in ("XlaRuntimeError", "JaxRuntimeError") and (
        "RESOURCE_EXHAUSTED" in text or "Out of memory" in text or "out of memory" in text)


def parse_assignments(items: list[str] | None) -> dict[str, str]:
    """Parse ``key=value`` words into a dict of strings; raise CLIError naming a malformed word."""
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise CLIError(f"argument {item!r} is not of the form key=value")
        key, value = item.split("=", 1)
        key = key.strip().replace("-", "_")
        if not key:
            raise CLIError(f"argument {item!r} has an empty key")
        if key in out:
            raise CLIError(f"argument {key!r} given twice")
        out[key] = value.strip()
    return out


def parse_number(name: str, text: str) -> float | int:
    """Parse an int or float; raise CLIError naming ``name`` when ``text`` is not a number, or is an
    integer beyond float64's range (every caller uses the value as a float; `bound` parses exactly
    with its own parser)."""
    try:
        if text.lstrip("+-").isdigit():
            n = int(text)
            float(n)  # OverflowError beyond 1.8e308
            return n
        return float(text)
    except ValueError:
        raise CLIError(f"{name}={text!r} is not a number") from None
    except OverflowError:
        raise CLIError(f"{name}={text[:12]}... ({len(text.lstrip('+-'))} digits) is beyond the float64 range "
                       "(|x| <= 1.8e308)") from None


def emit_json(obj: Any) -> None:
    """Print ``obj`` as JSON on stdout (non-finite floats become null)."""
    sys.stdout.write(json.dumps(jsonable(obj), indent=2, default=str) + "\n")
    sys.stdout.flush()


def progress_bar(description: str, total: int, quiet: bool):
    """A transient progress bar on a terminal: ``(progress, callback(done, total))``, or ``(None, None)``
    with ``--json`` (``quiet``) or when stdout is not a terminal (rich would print a stray blank line
    there). Call only after every argument is validated; the caller starts and stops ``progress``."""
    if quiet or not console.is_terminal:
        return None, None
    from rich.progress import Progress

    prog = Progress(console=console, transient=True)
    task = prog.add_task(description, total=total)
    return prog, (lambda done, _total: prog.update(task, completed=done))
