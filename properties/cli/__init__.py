"""The ``contrastive-bounds`` command line: :mod:`.app` assembles one module per command group."""

from contrastive_bounds.properties.cli.app import main  # noqa: F401
