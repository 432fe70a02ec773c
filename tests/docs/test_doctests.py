"""The docstring examples (``>>>``) of the package run and print what they show.

Guards the examples a user meets first (bounds and claims, schedules, Kramers and H*, the simulator, a
landscape network, similarity descent, CKA/RSA, ``align compare`` in Python, a custom check): every
docstring of every ``contrastive_bounds`` module with an example is one test, run with float64 JAX on the
CPU (tests/conftest.py) and ``ELLIPSIS | NORMALIZE_WHITESPACE``. Examples that compile a JAX program or run
a search take 2 s or more and are marked slow (:data:`SLOW`). A test also checks that the first-met entry
points keep an example, so deleting one fails here rather than silently shrinking the docs.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

TOP_PACKAGES = ("contrastive_bounds.theory", "contrastive_bounds.numerics", "contrastive_bounds.properties")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

#: Examples that compile JAX programs (the simulator, similarity descent) or search a landscape network
#: (measured 1-15 s on 2 shared cores).
SLOW = ("run_similarity_descent", "simulate", "landscapes.infonce", "landscapes.hessfree")

#: The entry points a user meets first (module suffix, object qualname or "" for the module docstring).
ENTRY_POINTS = (
    ("theory.registry", "get_bound"), ("theory.registry", "get_claim"),
    ("theory.solve", "solve"), ("theory.schedules", "make_schedule"), ("theory.kramers", "eyring_kramers_log_time"),
    ("theory.domains", "check_real"), ("numerics.landscapes.registry", "get_landscape"),
    ("numerics.landscapes.barriers", "landscape_barrier"), ("numerics.langevin.kernel", "langevin_kernel"),
    ("numerics.langevin.driver", "simulate"), ("numerics.langevin.global_set", "global_set_margin"),
    ("numerics.landscapes.infonce", ""), ("numerics.alignment.descent_problem", "make_problem"),
    ("numerics.alignment.descent_run", "run_similarity_descent"), ("numerics.alignment.cka", "linear_cka"),
    ("numerics.alignment.rsa", "rsa"), ("numerics.alignment.compare", "compare_embeddings"),
    ("numerics.stats", "clopper_pearson"), ("properties.checks.framework", "check"),
)


def _modules() -> list[str]:
    """Every module of the three top packages (mapped from theory/, numerics/, properties/ by setuptools, so
    walked from each package's own path)."""
    names = []
    for top in TOP_PACKAGES:
        package = importlib.import_module(top)
        names.append(top)
        names.extend(info.name for info in pkgutil.walk_packages(package.__path__, top + ".")
                     if not info.name.endswith("__main__"))
    return sorted(names)


def _examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = []
    for name in _modules():
        module = importlib.import_module(name)
        tests.extend(t for t in finder.find(module, name) if t.examples)
    return sorted(tests, key=lambda t: t.name)


_TESTS = _examples()


def _param(t: doctest.DocTest):
    short = t.name.removeprefix("contrastive_bounds.")
    marks = [pytest.mark.slow] if any(s in short for s in SLOW) else []
    return pytest.param(t, id=short, marks=marks)


@pytest.mark.parametrize("test", [_param(t) for t in _TESTS])
def test_docstring_example(test: doctest.DocTest):
    """One docstring's examples, in a fresh copy of their globals (what ``pytest --doctest-modules`` does)."""
    test = doctest.DocTest(test.examples, dict(test.globs), test.name, test.filename, test.lineno, test.docstring)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=True)
    assert runner.failures == 0, "".join(out)


def _has_example(module_suffix: str, qualname: str) -> bool:
    """Whether an example exists for the object, wherever the package moves it (a private ``_name`` module
    counts as ``name``)."""
    target = f"{module_suffix}.{qualname}" if qualname else module_suffix
    for t in _TESTS:
        name = t.name.removeprefix("contrastive_bounds.")
        if ".".join(p.lstrip("_") for p in name.split(".")) == target:
            return True
    return False


@pytest.mark.parametrize("module_suffix, qualname", ENTRY_POINTS, ids=[f"{m}.{q}" if q else m for m, q in ENTRY_POINTS])
def test_first_met_entry_points_have_examples(module_suffix, qualname):
    assert _has_example(module_suffix, qualname), f"no >>> example on {module_suffix}.{qualname}"


def test_there_are_at_least_twenty_examples():
    assert len(_TESTS) >= 20, [t.name for t in _TESTS]
