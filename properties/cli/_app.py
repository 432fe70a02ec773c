"""The ``contrastive-bounds`` command line (typer + rich), loaded lazily.

Each group of commands lives in its own module with a ``register(app)`` function. This module
imports none of them up front: :data:`COMMANDS` names each command, the module that registers it
and its one-line help, so ``contrastive-bounds --help`` starts without importing JAX, sympy or the
landscapes, and ``bound``/``list``/``claims`` import only the theory (about half a second). A new
command module adds its commands to :data:`COMMANDS` (a test checks the table against the modules).

float64: :func:`main` asks for JAX's float64 mode without importing JAX
(:func:`~contrastive_bounds.numerics.request_x64`), so commands that never touch JAX do not
pay for it and those that do compute in float64.
"""

from __future__ import annotations

import atexit
import importlib
import inspect
import os
import sys
from typing import Any

import click
import typer
from typer.core import TyperGroup

__all__ = ["app", "main", "COMMANDS", "command_names", "load_command"]

_PACKAGE = "contrastive_bounds.properties.cli"

#: command -> (module under properties/cli that registers it, one-line help shown by --help), in help order; the
#: one-line help is also the loaded command's ``short_help`` (the command list of docs/cli.md).
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("_theory", "Every bound and claim with its source; every parameter a bound accepts, with domain and "
                       "meaning."),
    "bound": ("_theory", "Evaluate a bound at one point (exact input, mpmath at --digits; never overflows), or solve "
                        "it for one parameter."),
    "claims": ("_theory", "A verdict for every claim; exit 1 if any verdict contradicts what the toolkit asserts."),
    "barrier": ("_annealing", "Critical height H* by sublevel-set persistence, with minima, saddles and the error bound."),
    "schedule": ("_annealing", "A schedule in every convention, with the asymptotic verdict and its reason."),
    "kramers": ("_annealing", "Kramers time vs exact mean first-passage time for each non-global minimum of an S¹ "
                             "landscape."),
    "anneal": ("_anneal", "Run annealed Langevin chains; report the success fraction and hitting times beside the "
                         "theory."),
    "landscape": ("landscape", "Minima (with multiplicities), verified transition states, H* and Catoni's D by a "
                               "transition network."),
    "check": ("_check", "Run the checks: bound, empirical value with interval, ratio, verdict; write results.json and "
                       "reports."),
    "sweep": ("_sweep", "Run a grid of checks or simulations on dask (embedded cluster or --scheduler); Parquet rows, "
                       "report."),
    "align": ("_align", "CL vs NSCL alignment (Paper B): simulation, digits training, proxy vs SGD, batch-size "
                       "scaling, comparing your embeddings."),
}


def command_names() -> list[str]:
    """Every command of ``contrastive-bounds``, in the order ``--help`` lists them."""
    return list(COMMANDS)


def load_command(name: str) -> click.Command:
    """Import the module that registers ``name`` and return its click command (or sub-group).

    Raises:
      KeyError: ``name`` is not in :data:`COMMANDS`.
      LookupError: the module does not register ``name`` (a stale :data:`COMMANDS` entry).
    """
    module = importlib.import_module(f"{_PACKAGE}.{COMMANDS[name][0]}")
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    holder.callback()(lambda: None)  # a group even when the module registers one command
    module.register(holder)
    group = typer.main.get_group(holder)
    cmd = group.commands.get(name)
    if cmd is None:
        raise LookupError(f"{module.__name__}.register does not register the command {name!r}")
    cmd.short_help = cmd.short_help or COMMANDS[name][1]
    for sub in getattr(cmd, "commands", {}).values():  # a sub-group's commands (align simulate, ...)
        sub.short_help = sub.short_help or _summary_line(sub.help)
    return cmd


def _summary_line(help_text: str | None) -> str | None:
    r"""The first paragraph of a command's help on one line: its short help in a command list, whole (click would cut
    it at 45 characters mid-sentence, "Every bound and claim with its source;...", in docs/cli.md's lists); None
    for a command without help.

    Examples:
      >>> _summary_line("Run the checks.\n\nLonger text.")
      'Run the checks.'
    """
    if not help_text:
        return None
    return " ".join(inspect.cleandoc(help_text).split("\n\n")[0].split())


class LazyGroup(TyperGroup):
    """A typer group whose commands are imported when invoked (or documented), not at start-up.

    While the top-level help is printed, commands are placeholders carrying the one-line help of
    :data:`COMMANDS`; everything else (running a command, ``COMMAND --help``, docs/cli.md's generator
    :mod:`._cli_docs`) gets the real command.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return command_names() + [n for n in super().list_commands(ctx) if n not in COMMANDS]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        if self._listing and cmd_name not in self.commands:
            return click.Command(cmd_name, help=COMMANDS[cmd_name][1])
        if cmd_name not in self.commands:
            self.commands[cmd_name] = load_command(cmd_name)
        return self.commands[cmd_name]

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a number option that does not parse says what it takes (its range, from its help)."""
        try:
            return super().invoke(ctx)
        except Exception as err:
            if getattr(err, "param", None) is not None:
                from contrastive_bounds.properties.cli._common import with_range

                with_range(err)
            raise

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="contrastive-bounds",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Theorems of contrastive-learning theory as executable, cited objects, checked against simulation."""


#: set once SIGTERM arrived: the command then exits 143 (128 + SIGTERM), not Ctrl-C's 130, after saving alike
_TERMINATED = [False]


def stopped_by_sigterm() -> bool:
    """Whether SIGTERM (not Ctrl-C) stopped the running command (its messages and exit status say which)."""
    return _TERMINATED[0]


def _interrupted_code() -> int:
    """The exit status of a command stopped by a signal: 143 after SIGTERM, else 130 (Ctrl-C)."""
    return 143 if _TERMINATED[0] else 130


def _terminate_like_interrupt() -> None:
    """Make SIGTERM (``kill``, a batch scheduler's stop, a background job whose SIGINT the shell ignores) do what
    Ctrl-C does (the exit status is then 143, 128 + SIGTERM, instead of 130): the handler in place for SIGINT when the signal arrives runs (the long commands' deferred handlers
    then stop at the next block boundary, save and print the resume command; a second signal stops at once), or a
    ``KeyboardInterrupt`` is raised where SIGINT has Python's default handler or is ignored. Main thread only."""
    import signal

    def handler(signum: int, frame: object) -> None:
        _TERMINATED[0] = True
        current = signal.getsignal(signal.SIGINT)
        if callable(current):
            current(signal.SIGINT, frame)
        else:  # SIG_IGN (a background job of a non-interactive shell) or SIG_DFL
            raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # not the main thread, or a platform without SIGTERM
        pass


def main() -> None:
    """Console-script entry point: one JAX CPU device per core and float64 in JAX, both asked for without
    importing JAX (commands that never touch it start fast), then run the app."""
    from contrastive_bounds.numerics._devices import use_host_devices
    from contrastive_bounds.numerics._precision import request_x64

    use_host_devices()  # before JAX starts: the simulator splits its chains over these devices
    request_x64()
    _terminate_like_interrupt()
    from contrastive_bounds.properties.cli._stop_watch import StopWatch

    import signal

    # a second Ctrl-C stops at once, even inside a compiled call; a first one dropped in a gc callback comes again
    watch = StopWatch(signal_of_record=lambda: signal.SIGTERM if _TERMINATED[0] else signal.SIGINT).start()
    finished = False
    try:
        _run_app()
        finished = True
    finally:
        # registered after the command (after JAX's own exit handler, so it runs before it): see _ignore_late_signals
        atexit.register(_ignore_late_signals)
        watch.stop()
    if finished and _TERMINATED[0]:
        print("SIGTERM arrived as the command finished: its output is complete", file=sys.stderr)


def _ignore_late_signals() -> None:
    """At interpreter exit, after the command, SIGINT and SIGTERM have nothing left to stop: ignore them, so that one
    arriving during teardown (JAX's exit handler takes up to a second on a loaded machine) is not printed as a
    ``KeyboardInterrupt`` traceback from an exit handler while the process exits 0. Exit handlers run last-registered
    first, so this one, registered when the command returned, runs before those that JAX registered as it started."""
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, signal.SIG_IGN)
        except (ValueError, OSError):  # not the main thread
            pass


def _run_app() -> None:
    """Run the app; usage errors as one line (exit 2), an interrupted command's exit status (130 or 143)."""
    try:
        code = app(standalone_mode=False)
    except typer.Abort:  # Ctrl-C before a command started (while it was loading)
        print("interrupted (Ctrl-C)" if not _TERMINATED[0] else "terminated (SIGTERM)", file=sys.stderr)
        sys.exit(_interrupted_code())
    except Exception as err:
        # click's usage errors (bad option value, unknown option or command) as ONE line, with their
        # exit code (2), instead of a boxed usage panel; typer may vendor click, so test the interface.
        message, exit_code = getattr(err, "format_message", None), getattr(err, "exit_code", None)
        if message is None or not isinstance(exit_code, int):
            raise
        text = message()
        if text:  # a command group run without a command prints its help and has nothing to add
            print(f"error: {text}", file=sys.stderr)
        sys.exit(exit_code)
    if isinstance(code, int) and code:
        if code == 130:  # interrupted, the state saved and the resume command printed: leave at once
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(_interrupted_code())  # JAX's teardown of its CPU client takes seconds on a loaded machine
        sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
