"""theory.domains.check_int keeps exact integers exact (tester3 #13: `--seed 9007199254740993` was
echoed as ...992, i.e. the value went through a float; for `align` seeds, whose range is [0, inf), a
large seed would silently have become another one)."""

from __future__ import annotations

import numpy as np
import pytest

from contrastive_bounds.theory.domains import check_int


def test_large_python_and_numpy_integers_stay_exact():
    big = 2**53 + 1
    assert float(big) != big  # a float cannot hold it
    assert check_int("seed", big, 0, None) == big
    assert check_int("seed", np.int64(big), 0, None) == big
    assert check_int("seed", np.uint64(2**64 - 1), 0, None) == 2**64 - 1
    with pytest.raises(ValueError, match=r"^seed=99999999999999999999999 is outside its domain: integers in \[0, 2147483646\]$"):
        check_int("seed", 99999999999999999999999, 0, 2**31 - 2)


def test_integral_floats_and_bad_values_as_before():
    assert check_int("chains", 4.0, 1, None) == 4
    with pytest.raises(ValueError, match=r"^chains=2.5 must be an integer"):
        check_int("chains", 2.5, 1, None)
    with pytest.raises(ValueError, match="not a bool"):
        check_int("chains", True, 1, None)
    with pytest.raises(ValueError, match="must be an integer"):
        check_int("chains", float("inf"), 1, None)
