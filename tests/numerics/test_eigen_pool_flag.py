"""XLA's multithreaded Eigen is turned off before JAX starts (numerics._devices.avoid_eigen_pool_stall): with it on,
a chunk of vmapped Lanczos probes waited forever on 2 busy cores (every XLA worker idle, the main thread blocked on
the result). The flag is added to XLA_FLAGS only while JAX is not imported and only when the user has not set it;
the command line's processes and this test suite run with it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
import os, sys
from contrastive_bounds.numerics import avoid_eigen_pool_stall
first = avoid_eigen_pool_stall()
second = avoid_eigen_pool_stall()
import jax
late = avoid_eigen_pool_stall()
print(first, second, late, repr(os.environ.get("XLA_FLAGS", "")))
"""


@pytest.mark.parametrize("given, added, flags", [
    (None, True, "--xla_cpu_multi_thread_eigen=false"),
    ("--xla_force_host_platform_device_count=2", True,
     "--xla_force_host_platform_device_count=2 --xla_cpu_multi_thread_eigen=false"),
    ("--xla_cpu_multi_thread_eigen=true", False, "--xla_cpu_multi_thread_eigen=true"),  # the user's choice stands
])
def test_the_flag_is_added_once_before_jax_and_never_over_the_users(given, added, flags):
    """In a fresh process: the first call adds the flag (after the user's other flags), a second call and a call
    after ``import jax`` add nothing; a flag the user set is left as set."""
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    if given is not None:
        env["XLA_FLAGS"] = given
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(" ", 3)[:3] == [str(added), "False", "False"], out.stdout
    assert out.stdout.strip().split(" ", 3)[3] == repr(flags), out.stdout


def test_the_command_line_and_this_suite_run_with_it():
    """The test process (conftest) and a command's process (the console entry point) both have the flag."""
    assert "--xla_cpu_multi_thread_eigen=false" in os.environ.get("XLA_FLAGS", "")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    code = ("import os, sys; from contrastive_bounds.properties.cli import _app; sys.argv = ['contrastive-bounds', "
            "'--help']; import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n    try:\n        "
            "_app.main()\n    except SystemExit:\n        pass\nprint(os.environ.get('XLA_FLAGS', ''))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "--xla_cpu_multi_thread_eigen=false" in out.stdout, out.stdout
