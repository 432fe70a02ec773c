"""Test-suite set-up: float64 in JAX (our own entry point) and the hypothesis profile from the env."""

from contrastive_bounds.numerics._precision import enable_x64
from contrastive_bounds.properties.profiles import load_from_env

enable_x64()
load_from_env()

import math
import os

import numpy as np
import pytest


def pytest_collection_modifyitems(config, items):
    """Tests marked ``heavy`` (a minute or more each; a faster test of the same claim runs in every run, named in
    the marker's reason) run only with ``CONTRASTIVE_BOUNDS_HEAVY=1``, so the whole suite stays a CI run."""
    if os.environ.get("CONTRASTIVE_BOUNDS_HEAVY") == "1":
        return
    for item in items:
        mark = item.get_closest_marker("heavy")
        if mark is not None:
            why = mark.kwargs.get("reason")
            if not why:
                raise pytest.UsageError(f"{item.nodeid}: a heavy mark needs reason= naming the faster test of its claim")
            item.add_marker(pytest.mark.skip(reason=f"heavy, opt-in with CONTRASTIVE_BOUNDS_HEAVY=1; {why}"))


class _InfoNCEOnCircle:
    """Decoupled InfoNCE of N = 4 points on S¹, pairs (0,1), (2,3), in angles, numpy only: an implementation
    independent of the toolkit's, for Hessians by central finite differences (arc length is the metric)."""

    pairs = ((0, 1), (2, 3))

    def __init__(self, tau: float) -> None:
        self.tau = tau

    def energy(self, theta: np.ndarray) -> float:
        """Mean over directed pairs of -s_ap/tau + log sum_k exp(s_ak/tau), k over the other pair's points."""
        s = np.cos(theta[:, None] - theta[None, :])
        terms = []
        for i, j in self.pairs:
            for a, p in ((i, j), (j, i)):
                neg = [k for k in range(4) if k not in (a, p)]
                terms.append(-s[a, p] / self.tau + np.log(np.sum(np.exp(s[a, neg] / self.tau))))
        return float(np.mean(terms))

    def hessian_off_rotation(self, z: np.ndarray) -> np.ndarray:
        """Sorted eigenvalues of the Hessian in the angles of ``z`` (4, 2), restricted off the rotation mode."""
        theta = np.arctan2(z[:, 1], z[:, 0])
        n, e = theta.size, 1e-4
        hess = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                def f(di, dj):
                    t = theta.copy()
                    t[i] += di
                    t[j] += dj
                    return self.energy(t)
                hess[i, j] = (f(e, e) - f(e, -e) - f(-e, e) + f(-e, -e)) / (4 * e * e)
        u = np.ones(n) / math.sqrt(n)  # the rotation mode
        comp = np.linalg.svd(np.eye(n) - np.outer(u, u))[0][:, : n - 1]
        return np.sort(np.linalg.eigvalsh(comp.T @ hess @ comp))


@pytest.fixture(scope="session")
def infonce_circle_reference():
    """The independent numpy InfoNCE of N = 4 on S¹ at tau = 0.1 (energy in angles, Hessian off rotation)."""
    return _InfoNCEOnCircle(0.1)


@pytest.fixture(autouse=True)
def _restore_check_registry():
    """Checks a test defines (user scenario files, hand-built checks) do not outlive it: after each test the
    registry holds the built-in checks plus what it held before, so counts of the built-in checks do not depend
    on the order tests run in. Built-in checks (registered by CHECK_MODULES, perhaps first during the test) stay."""
    import contrastive_bounds.properties.checks._framework as framework
    from contrastive_bounds.properties.checks._registry import CHECK_MODULES

    saved = dict(framework._CHECKS)
    yield
    for cid, spec in list(framework._CHECKS.items()):
        module = getattr(getattr(spec.fn, "__wrapped__", spec.fn), "__module__", "")
        if module in CHECK_MODULES:
            continue
        if cid in saved:
            framework._CHECKS[cid] = saved[cid]
        else:
            del framework._CHECKS[cid]


def _memory_map_count() -> tuple[int, int]:
    """``(mappings the process holds, the kernel's vm.max_map_count)``; ``(0, 0)`` where /proc is absent."""
    try:
        with open("/proc/self/maps", "rb") as f:
            held = f.read().count(b"\n")
        with open("/proc/sys/vm/max_map_count") as f:
            return held, int(f.read())
    except (OSError, ValueError):
        return 0, 0


@pytest.fixture(autouse=True)
def _release_compiled_executables():
    """The whole suite runs in one process, and every XLA CPU executable keeps about three memory mappings until
    its jit cache entry goes; past Linux's vm.max_map_count (65 530 by default) the next compilation's mmap fails
    and XLA dies with a segmentation fault (seen at about 40 % of the suite). After a test that leaves the
    process above half the limit, JAX's caches are cleared, which frees those mappings (later tests recompile
    what they use)."""
    yield
    held, limit = _memory_map_count()
    if limit and held > limit // 2:
        import gc

        import jax

        jax.clear_caches()
        gc.collect()


def _resolve_path(dotted: str):
    """The object a dotted path names: the longest importable module, then attributes; ``None`` if none."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return None
        return obj
    return None


@pytest.fixture
def resolve_path():
    """``resolve(dotted) -> object | None``: what a dotted path a user would type names (a module, or an attribute
    chain below the longest importable module), ``None`` where it names nothing."""
    return _resolve_path


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    """A test that raises ``mpmath.mp.dps`` for its references does not change the precision of the tests after
    it (the order tests run in must not change a printed digit)."""
    import mpmath

    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec


#: a user's check file (one upper-bound check, ``user.square``, with a plot) for the scenario-file tests of the
#: command line (tests/cli/test_check.py) and of properties.scenarios (tests/properties/test_scenarios.py)
USER_CHECKS = '''
from contrastive_bounds.properties.checks._framework import check, compare_upper, Outcome, PlotSpec, Series

@check("user.square", theorem="x^2 <= bound", statement="x^2 <= bound for the given x", paper="B",
       quick={"x": 0.5, "bound": 1.0})
def square(params, seed):
    out = compare_upper(float(params["bound"]), float(params["x"]) ** 2, what="x^2")
    out.plots = [PlotSpec("x^2", "x", "y", [Series("x^2", [0.0, 1.0], [0.0, 1.0])])]
    return out
'''


@pytest.fixture
def write_user_scenarios():
    """``write(folder, body) -> Path``: writes :data:`USER_CHECKS` as ``user_checks.py`` and ``scenarios.toml``
    (``imports = ["user_checks.py"]`` then ``body``) into ``folder``; returns the TOML file."""

    def write(folder, body: str):
        (folder / "user_checks.py").write_text(USER_CHECKS)
        f = folder / "scenarios.toml"
        f.write_text('imports = ["user_checks.py"]\n' + body)
        return f

    return write


@pytest.fixture
def umask_022():
    """The process umask set to 0o022 for the test (restored after): files written then must be 0o644."""
    import os

    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


class _CompileCount:
    """Names of the XLA backend compilations while active (jax.monitoring's compile-duration event)."""

    def __enter__(self) -> "_CompileCount":
        import jax

        self.names: list[str] = []
        jax.monitoring.register_event_duration_secs_listener(self._listen)
        return self

    def _listen(self, event: str, seconds: float, **kwargs) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            self.names.append(str(kwargs.get("fun_name")))

    def __exit__(self, *exc) -> None:
        import jax

        jax.monitoring.unregister_event_duration_listener(self._listen)


@pytest.fixture
def compile_count():
    """``with compile_count() as c: ...`` collects in ``c.names`` the programs JAX compiles inside the block (a
    test that something is data of a compiled program asserts ``c.names == []`` after a warm-up run)."""
    return _CompileCount
