"""The ``contrastive-bounds`` command line (typer + rich).

Each group of commands lives in its own module with a ``register(app)`` function; this module only
assembles them and enables float64 in JAX for the process (our own entry point, so it is allowed).
"""

from __future__ import annotations

import os
import sys

import typer

from contrastive_bounds.properties.cli import align, anneal, annealing, check, landscape, sweep, theory

app = typer.Typer(
    name="contrastive-bounds",
    help="Theorems of contrastive-learning theory as executable, cited objects, checked against simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (theory, annealing, anneal, landscape, align, check, sweep):
    _module.register(app)


def main() -> None:
    """Console-script entry point: one JAX CPU device per core, float64 in JAX, then run the app."""
    from contrastive_bounds.numerics.devices import use_host_devices
    from contrastive_bounds.numerics.precision import enable_x64

    use_host_devices()  # before JAX starts: the simulator splits its chains over these devices
    enable_x64()
    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        print("aborted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:
        # click's usage errors (bad option value, unknown option or command) as ONE line, with their
        # exit code (2), instead of a boxed usage panel; typer may vendor click, so test the interface.
        message, exit_code = getattr(err, "format_message", None), getattr(err, "exit_code", None)
        if message is None or not isinstance(exit_code, int):
            raise
        print(f"error: {message()}", file=sys.stderr)
        sys.exit(exit_code)
    if isinstance(code, int) and code:
        if code == 130:  # interrupted, the state saved and the resume command printed: leave at once
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)  # JAX's teardown of its CPU client takes seconds on a loaded machine
        sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
