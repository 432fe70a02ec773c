"""The ``contrastive-bounds`` command line (typer + rich).

Each group of commands lives in its own module with a ``register(app)`` function; this module only
assembles them and enables float64 in JAX for the process (our own entry point, so it is allowed).
"""

from __future__ import annotations

import typer

from . import cli_align, cli_annealing, cli_check, cli_langevin, cli_theory

app = typer.Typer(
    name="contrastive-bounds",
    help="Theorems of contrastive-learning theory as executable, cited objects, checked against simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (cli_theory, cli_annealing, cli_langevin, cli_align, cli_check):
    _module.register(app)


def main() -> None:
    """Console-script entry point: enable float64 in JAX, then run the app."""
    from contrastive_bounds.numerics.precision import enable_x64

    enable_x64()
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
