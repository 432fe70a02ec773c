"""theory.domains validation: check_int keeps exact integers exact (a seed above 2**53 had gone through a
float and come back as another integer), check_real names the float64 range for integers beyond it, and
check_seed accepts exactly the seeds ``jax.random.key`` distinguishes, [0, 2**32 - 1]."""

from __future__ import annotations

import numpy as np
import pytest

from contrastive_bounds.theory._domains import MAX_SEED, check_int, check_real, check_seed

BIG = 10**400
TOO_BIG = MAX_SEED + 1


def test_large_python_and_numpy_integers_stay_exact():
    """check_int keeps Python and numpy integers above 2**53 exact and shows a huge out-of-range one exactly."""
    big = 2**53 + 1
    assert float(big) != big  # a float cannot hold it
    assert check_int("seed", big, 0, None) == big
    assert check_int("seed", np.int64(big), 0, None) == big
    assert check_int("seed", np.uint64(2**64 - 1), 0, None) == 2**64 - 1
    with pytest.raises(ValueError, match=r"^seed=99999999999999999999999 is outside its domain: integers in \[0, 2147483646\]$"):
        check_int("seed", 99999999999999999999999, 0, 2**31 - 2)


def test_integral_floats_and_bad_values_as_before():
    """Integral floats are accepted; fractions, bools and infinities are refused."""
    assert check_int("chains", 4.0, 1, None) == 4
    with pytest.raises(ValueError, match=r"^chains=2.5 must be an integer"):
        check_int("chains", 2.5, 1, None)
    with pytest.raises(ValueError, match="not a bool"):
        check_int("chains", True, 1, None)
    with pytest.raises(ValueError, match="must be an integer"):
        check_int("chains", float("inf"), 1, None)


def test_check_real_names_the_argument_and_the_range():
    """An integer beyond float64 is a ValueError naming the argument and the float64 range, not an
    OverflowError."""
    with pytest.raises(ValueError, match=r"^H=1.0e\+400 is beyond the float64 range \(\|x\| <= 1.8e308\)"):
        check_real("H", BIG, 0.0)


def test_the_range_is_what_jax_keys_distinguish():
    """check_seed accepts 0..2**32 - 1 (numpy integers too) and refuses -1 and 2**32 naming seed and the
    range: outside it jax.random.key aliases (x64 off) or overflows (x64 on, above 2**63)."""
    assert MAX_SEED == 2**32 - 1
    assert check_seed(MAX_SEED) == MAX_SEED and check_seed(np.uint32(7)) == 7
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside its domain: integers in \[0, 4294967295\]$"):
        check_seed(TOO_BIG)
    with pytest.raises(ValueError, match=r"^seed=-1 is outside"):
        check_seed(-1)



def test_nan_is_refused_with_the_allowed_range_like_every_other_number_error():
    """A NaN names the argument and its allowed range, as an out-of-range value does: float, numpy, Decimal and
    mpmath NaNs through check_real, check_int and a bound parameter's exact check."""
    from decimal import Decimal

    import mpmath

    from contrastive_bounds.theory._registry import get_bound

    with pytest.raises(ValueError, match=r"^tau=nan is not allowed \(NaN\); domain \(0, inf\)$"):
        check_real("tau", float("nan"), 0.0)
    with pytest.raises(ValueError, match=r"^delta=nan is not allowed \(NaN\); domain \(0, 1\)$"):
        check_real("delta", np.float32("nan"), 0.0, 1.0)
    with pytest.raises(ValueError, match=r"^chains=nan is not allowed \(NaN\); domain integers in \[1, inf\)$"):
        check_int("chains", float("nan"), 1, None)
    with pytest.raises(ValueError, match=r"^steps=nan is not allowed \(NaN\); domain integers in \[0, 10\]$"):
        check_int("steps", Decimal("NaN"), 0, 10)
    with pytest.raises(ValueError, match=r"^tau=nan is not allowed \(NaN\); domain \(0, inf\)$"):
        get_bound("alignment.frobenius").evaluate(tau=mpmath.mpf("nan"), eta_sum=10, batch_size=256, num_classes=100,
                                                   delta=0.05, steps=1000)
    # a whole-line check (realness only, the caller's range comes after) does not print "(-inf, inf)" as a range
    with pytest.raises(ValueError, match=r"^level=nan is not allowed \(NaN\); give a real number$"):
        check_real("level", float("nan"))
