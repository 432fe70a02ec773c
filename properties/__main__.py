"""``python -m contrastive_bounds.properties`` is the same as ``contrastive-bounds``."""

from .cli import main

main()
