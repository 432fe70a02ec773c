"""``python -m contrastive_bounds.properties`` is the same as ``contrastive-bounds``."""

from contrastive_bounds.properties.cli import main

main()
