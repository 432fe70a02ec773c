"""The package's doctested example (the closed-form simplex minimum certified Hessian-free) runs as printed."""

from __future__ import annotations

import doctest

import pytest

import contrastive_bounds.numerics.landscapes.hessfree as hessfree


@pytest.mark.slow
def test_package_example_runs_as_printed():
    """The example in the package docstring: certificate verified, kind minimum, energy equal to the closed form."""
    result = doctest.testmod(hessfree, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0
