"""Shared plumbing for the command line: error handling, JSON output, key=value parsing.

Every command of ``contrastive-bounds`` goes through :func:`command`, so bad input always
exits with code 2 and one line naming the argument, never a traceback. The library names an
argument by its Python name (``chains=0``, ``batch_size=0``); :func:`command` rewrites those names
into the options the command declares for them (``--chains=0``, ``--batch-size=0``), from the
command's own click parameters (:func:`option_names`, :func:`in_option_terms`), so every command
speaks the user's language without repeating its checks.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import typer
from rich.console import Console
from contrastive_bounds.properties._jsonsafe import jsonable

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

# Piped output (files, CI logs) gets a wide console so numbers in tables are never split across lines.
console = Console() if sys.stdout.isatty() else Console(width=160)
err_console = Console(stderr=True, soft_wrap=True)

EXIT_OK = 0
EXIT_VIOLATED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class CLIError(ValueError):
    """Bad command-line input; the message names the argument."""


def current_context() -> Any:
    """The click context of the running command, or None outside one.

    typer may vendor click (``typer._click``, typer >= 0.24) or use the installed click; the context
    lives in whichever typer runs on, so both are asked.
    """
    for module in ("typer._click.globals", "click"):
        try:
            getter = importlib.import_module(module).get_current_context
        except (ImportError, AttributeError):
            continue
        ctx = getter(silent=True)
        if ctx is not None:
            return ctx
    return None


def option_names(ctx: Any, aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{name in a library message: the option the user typed}`` for the command of ``ctx``.

    Every option contributes its Python parameter name (``batch_size``) and each of its option names
    without dashes (``batch-size``, ``batch_size``), all mapped to its first long option
    (``--batch-size``). ``aliases`` maps further library names to a parameter of the command
    (``{"step_size": "eta"}``: the library's ``step_size`` is the command's ``--eta``). A flag's
    ``name=True`` becomes the flag (``--replace``), ``name=False`` its negation (``--no-progress``, or
    ``no --replace`` for a flag without one). Names the
    user gave as ``key=value`` words (landscape or bound parameters) are left out: there the
    library's name *is* what the user typed. Arguments (positional) are mapped only through an
    alias, to their metavar (``{"x_cl": "cl"}``: ``x_cl`` becomes ``CL``).

    Args:
      ctx: the click context of the running command (``None``: an empty mapping).
      aliases: library name -> Python name of one of the command's parameters.
    Returns:
      dict of str -> str (empty without a context).
    """
    if ctx is None or ctx.command is None:
        return {}
    out: dict[str, str] = {}
    arguments: dict[str, str] = {}
    for param in ctx.command.params:
        if getattr(param, "param_type_name", None) == "argument" and param.name is not None:
            arguments[param.name] = getattr(param, "metavar", None) or param.name.upper()  # as usage shows it: CL
            continue
        if getattr(param, "param_type_name", None) != "option" or param.name is None:
            continue
        decls = [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]
        if not decls:
            continue
        on = [o for o in param.opts if o.startswith("--")]
        shown = on[0] if on else decls[0]
        off = [o for o in param.secondary_opts if o.startswith("--")]
        keys = {param.name} | {d.lstrip("-") for d in on} | {d.lstrip("-").replace("-", "_") for d in on}
        for key in keys:
            out[key] = shown
            if getattr(param, "is_flag", False):  # a flag is typed bare: replace=True is --replace
                out[f"{key}=True"] = shown
                out[f"{key}=False"] = off[0] if off else f"no {shown}"
    for library_name, param_name in (aliases or {}).items():
        if param_name in arguments:  # an alias may name a positional argument: its metavar
            out[library_name] = arguments[param_name]
        for suffix in ("", "=True", "=False"):
            if param_name + suffix in out:
                out[library_name + suffix] = out[param_name + suffix]
    for key in _assignment_keys(ctx):
        for suffix in ("", "=True", "=False"):
            out.pop(key + suffix, None)
    return out


def _assignment_keys(ctx: Any) -> set[str]:
    """The keys of every ``key=value`` word among the command's list-valued parameters."""
    keys: set[str] = set()
    for value in ctx.params.values():
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, str) and "=" in item:
                    key = item.split("=", 1)[0].strip()
                    keys |= {key, key.replace("-", "_")}
    return keys


def in_option_terms(message: str, names: Mapping[str, str]) -> str:
    """``message`` with each library argument name replaced by the option the user typed.

    A name is replaced where it is written ``name=...`` (any name), or stands as a whole identifier
    containing ``_`` (``... at most reference_size``); never inside a longer word, a dotted or dashed
    name (``sgd.batch_size``, ``--batch-size``), a path or a quoted string's edge.

    Args:
      message: one line of an exception. names: from :func:`option_names`.
    Returns:
      the rewritten message (unchanged when nothing matches).
    """
    if not names:
        return message
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w.\-/'\"$])({alternatives})(?:(?==)|(?![\w.\-/'\"(\[]))")

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        followed_by_equals = match.string.startswith("=", match.end())
        if not followed_by_equals and "_" not in name and "=" not in name:
            return name  # a plain word ("steps", "seed"): only its name=value form is an argument
        return names[name]

    return pattern.sub(replace, message)


def command(fn: Callable[..., Any] | None = None, *, aliases: Mapping[str, str] | None = None) -> Any:
    """Wrap a typer command: ValueError/KeyError/FileNotFoundError/TypeError/EOFError -> one line on
    stderr, exit 2, with the library's argument names rewritten into the command's options
    (:func:`in_option_terms`).

    Use as ``@command``, ``command(fn)`` or ``@command(aliases={"step_size": "eta"})`` where the
    library names an argument differently from the command (library name -> the command's
    parameter). A MemoryError or XLA out-of-memory error also exits 2 with one line; Ctrl-C not
    caught by the command exits 130.
    """
    if fn is None:
        return lambda f: command(f, aliases=aliases)

    def fail(text: str) -> None:
        try:
            names = option_names(current_context(), aliases)
        except Exception:  # noqa: BLE001 - naming options must never hide the error itself
            names = {}
        text = in_option_terms(text, names)
        err_console.print(f"error: {text}", markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT)

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
            fail(msg)
        except EOFError as exc:  # click would report it as an interrupt ("aborted", exit 130)
            fail(f"a file ended unexpectedly (empty or truncated){f': {exc}' if str(exc) else ''}")
        except OverflowError as exc:  # a size beyond what an int32/float64 index can hold
            fail(f"a size is too large ({exc}); choose smaller sizes")
        except KeyboardInterrupt:  # commands that save progress catch it themselves and say what to rerun
            from contrastive_bounds.properties.cli._app import stopped_by_sigterm

            err_console.print("terminated (SIGTERM)" if stopped_by_sigterm() else "interrupted (Ctrl-C)", markup=False,
                              highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED)
        except Exception as exc:
            if not _out_of_memory(exc):
                raise
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            fail(f"out of memory ({first}); the sizes given need more memory than this machine has: "
                 "choose smaller sizes (widths, batch or reference sizes, points or chains)")

    return wrapper


#: the allowed range as an option's help states it: ``in [a, b]``, ``in (a, b]``, ``>= a``, ``> a``, ``<= b``
_HELP_RANGE = re.compile(r"in [\[(][^\])]*[\])]|[<>]=? ?-?(?:\d[\d.]*(?:e[+-]?\d+)?|inf)")


def help_range(text: str | None) -> str | None:
    """The allowed range an option's help states (``"in [1e-4, 1e4]"``, ``">= 1"``); None where it states none or
    several (``"infonce (>= 3, ...), thomson (>= 2, ...)"``: the caller shows the help itself)."""
    found = set(_HELP_RANGE.findall(text or ""))
    return found.pop() if len(found) == 1 else None


def with_range(err: Exception) -> Exception:
    """A number option's parse error (click's ``BadParameter``) with what the option takes: ``'abc' is not a number
    (--tau takes numbers in [1e-4, 1e4])``, the range read from the option's help. Other errors come back unchanged.

    Args:
      err: an exception raised while a command's options were parsed.
    Returns:
      ``err`` itself, its message rewritten in place where it is a float or int option's.
    """
    param = getattr(err, "param", None)
    bare = getattr(param, "bare_type", None)
    if param is None or not callable(bare) or not isinstance(getattr(err, "message", None), str):
        return err
    try:
        kind = bare()
    except Exception:  # noqa: BLE001 - a type typer cannot name is left to its own message
        return err
    if kind not in ("float", "int"):
        return err
    cause = getattr(err, "__cause__", None)
    try:
        value = cause.errors()[0]["input"] if cause is not None and hasattr(cause, "errors") else None
    except Exception:  # noqa: BLE001 - the raw value is a courtesy
        value = None
    what = "a number" if kind == "float" else "an integer"
    shown = next((o for o in getattr(param, "opts", ()) if o.startswith("--")), getattr(param, "name", "it"))
    text = getattr(param, "help", None) or ""
    allowed = help_range(text)
    several = allowed is None and _HELP_RANGE.search(text)
    err.message = ((f"{value!r} is not {what}" if isinstance(value, str) else f"not {what}")
                   + (f" ({shown}: {text})" if several else
                      f" ({shown} takes {'numbers' if kind == 'float' else 'integers'}" + (f" {allowed})" if allowed else ")")))
    return err


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


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest existing ancestor (``.`` for a relative path with none)."""
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p if p.exists() else Path(".")


def folder_option(text: str, option: str) -> Path:
    """An output folder option as the user typed it, refused when empty or blank (a ``Path`` option would have
    made ``--out ''`` the working folder, ``.``, and written there without a word).

    Raises:
      CLIError: naming ``option`` and echoing what was typed.

    Examples:
      >>> folder_option("n4-report", "--out")
      PosixPath('n4-report')
    """
    if not text.strip():
        raise CLIError(f"{option}={text!r} is empty: give a folder (created if missing), or leave {option} out for "
                       "the default")
    return Path(text)


def output_folder(path: str | Path, option: str, *, create: bool = True) -> Path:
    """Validate an output folder (``--out``) before any computation: it must be a folder or not exist yet, and
    a file must be writable in it (with ``create``, the folder is created and a probe file written and removed;
    without, only the permissions of the nearest existing folder are read: ``--dry-run``).

    Raises:
      CLIError: naming ``option``: an existing file, a folder that cannot be created (a file on its path,
        permission denied) or is not writable (the operating system's reason).
    """
    import os

    from contrastive_bounds.numerics._filemode import probe_writable_folder

    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise CLIError(f"{option}={folder} is an existing file, not a folder: give a folder (created if missing)")
    if create:
        why = probe_writable_folder(folder)
        if why is not None:
            raise CLIError(f"{option}={folder} {why}")
        return folder
    base = _nearest_existing(folder)
    if not base.is_dir():
        raise CLIError(f"{option}={folder} cannot be created ({base} is a file)")
    if not os.access(base, os.W_OK | os.X_OK):
        raise CLIError(f"{option}={folder} " + ("is not writable" if base == folder else
                                                f"cannot be created ({base} is not writable)"))
    return folder


def output_file(path: str | Path, option: str, *, suffix: str | None = None) -> Path:
    """Validate an output file (``--save-log``, ``--checkpoint``, ``--plot``) before any computation: not a folder,
    ending in ``suffix`` when given, in an existing folder where a file can be written (a probe file is written
    and removed). An existing file is replaced atomically at the end, or resumed by the commands that say so.

    Raises:
      CLIError: naming ``option``: a folder given for the file, a wrong suffix, a folder that does not exist,
        is a file, or is not writable (the operating system's reason).
    """
    from contrastive_bounds.numerics._filemode import probe_writable_folder

    file = Path(path)
    if file.is_dir():
        example = file / (f"run{suffix}" if suffix else "run")
        raise CLIError(f"{option}={str(file)!r} is a folder; give a file name (e.g. {str(example)!r})")
    if suffix is not None and not file.name.lower().endswith(suffix):
        raise CLIError(f"{option}={str(file)!r} must end in {suffix}")
    folder = file.parent
    if not folder.exists():
        raise CLIError(f"{option}={str(file)!r}: its folder {str(folder)!r} does not exist (create it first)")
    if not folder.is_dir():
        raise CLIError(f"{option}={str(file)!r}: {str(folder)!r} is a file, not a folder")
    why = probe_writable_folder(folder)
    if why is not None:
        raise CLIError(f"{option}={str(file)!r}: its folder {str(folder)!r} {why}")
    return file


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
