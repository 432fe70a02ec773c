"""The cores a process may use: its affinity capped by its control group's CPU quota (numerics._devices), read from
cgroup v2's cpu.max or v1's cfs quota and period in a folder laid out like /sys/fs/cgroup."""

from __future__ import annotations

import os

import pytest

from contrastive_bounds.numerics import _devices
from contrastive_bounds.numerics._devices import cgroup_cpu_limit, usable_cores


@pytest.mark.parametrize("text, cores", [("200000 100000\n", 2), ("150000 100000", 2), ("50000 100000", 1),
                                          ("max 100000\n", None), ("6400000 100000", 64), ("garbage", None)])
def test_cgroup_v2_quota_in_whole_cores_rounded_up(tmp_path, text, cores):
    """cpu.max "<quota> <period>": ceil(quota/period), at least 1; "max" (no quota) or unreadable text: None."""
    (tmp_path / "cpu.max").write_text(text)
    assert cgroup_cpu_limit(str(tmp_path)) == cores


@pytest.mark.parametrize("quota, period, cores", [("-1", "100000", None), ("300000", "100000", 3),
                                                  ("250000", "100000", 3)])
def test_cgroup_v1_cfs_quota(tmp_path, quota, period, cores):
    """v1 cpu/cpu.cfs_quota_us over cpu.cfs_period_us (-1: no quota)."""
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text(quota + "\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text(period + "\n")
    assert cgroup_cpu_limit(str(tmp_path)) == cores


def test_no_cgroup_files_is_no_limit(tmp_path):
    assert cgroup_cpu_limit(str(tmp_path / "absent")) is None


def test_usable_cores_is_the_affinity_capped_by_the_quota(monkeypatch):
    """A quota below the affinity caps the count; none, or one above it, leaves the affinity."""
    affinity = len(os.sched_getaffinity(0))
    monkeypatch.setattr(_devices, "cgroup_cpu_limit", lambda root="/sys/fs/cgroup": 1)
    assert usable_cores() == 1
    monkeypatch.setattr(_devices, "cgroup_cpu_limit", lambda root="/sys/fs/cgroup": None)
    assert usable_cores() == affinity
    monkeypatch.setattr(_devices, "cgroup_cpu_limit", lambda root="/sys/fs/cgroup": affinity + 10)
    assert usable_cores() == affinity
