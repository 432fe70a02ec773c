"""Malformed input files on the ``align`` commands: exit 2 with one line naming the argument and what is
wrong. An empty file used to print ``aborted`` and exit 130 (click read numpy's EOFError as an
interrupt), a text file got numpy's advice to unpickle, a 1-D array was silently one feature (every
cosine +-1) and (n, 1) labels passed although the message demanded (n,)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

runner = CliRunner()
PROXY = ["align", "proxy", "--model", "free", "--reference-size", "8", "--batch-size", "4", "--steps", "4",
         "--record-every", "2", "--fit-steps", "2", "--projection-dim", "4"]
GRID = ["align", "batch-scaling", "--batch-sizes", "4,8", "--exponents", "1,0", "--seeds", "2", "--epochs", "1",
        "--reference-batch", "4", "--reference-size", "16", "--hidden", "8", "--budgets", "epochs"]


@pytest.fixture()
def d(tmp_path):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "a.npy", rng.standard_normal((30, 5)))
    np.save(tmp_path / "b.npy", rng.standard_normal((30, 4)))
    np.save(tmp_path / "one.npy", rng.standard_normal(30))
    np.save(tmp_path / "col.npy", (np.arange(30) % 3)[:, None])
    (tmp_path / "empty.npy").write_bytes(b"")
    (tmp_path / "text.npy").write_text("1 2 3\n4 5 6\n")
    (tmp_path / "garbage.npz").write_bytes(b"PK\x03\x04 not really a zip archive")
    (tmp_path / "pickle.npy").write_bytes(pickle.dumps({"a": 1}))
    return tmp_path


def _one_line(res, start: str, *words: str) -> None:
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(start), res.output
    for w in words:
        assert w in lines[0], lines[0]
    assert "allow_pickle" not in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("args, start, words", [
    (["empty.npy", "b.npy"], "error: CL=", ("is empty (0 bytes)",)),
    (["a.npy", "empty.npy"], "error: NSCL=", ("is empty (0 bytes)",)),
    (["a.npy", "b.npy", "--labels", "empty.npy"], "error: --labels=", ("is empty (0 bytes)",)),
    (["text.npy", "b.npy"], "error: CL=", ("is a text file", "text is not parsed")),
    (["a.npy", "b.npy", "--labels", "text.npy"], "error: --labels=", ("is a text file",)),
    (["garbage.npz", "b.npy"], "error: CL=", ("is damaged or truncated",)),
    (["a.npy", "b.npy", "--labels", "garbage.npz"], "error: --labels=", ("is damaged or truncated",)),
    (["pickle.npy", "b.npy"], "error: CL=", ("is a Python pickle", "never loaded")),
    (["one.npy", "b.npy"], "error: CL=", ("is 1-D (shape (30,)): embeddings must be 2-D",)),
    (["a.npy", "b.npy", "--labels", "col.npy"], "error: --labels=", ("has shape (30, 1): labels must be 1-D of shape "
                                                                    "(30,)", "labels.ravel()")),
])
def test_compare_refuses_malformed_files(d, args, start, words):
    """Each malformed file: exit 2, one line starting with the argument as typed, what is wrong."""
    res = runner.invoke(app, ["align", "compare", *[str(d / a) if a.endswith(("npy", "npz")) else a for a in args]])
    _one_line(res, start, *words)


def test_an_empty_file_exits_2_not_130_from_the_console_script(d):
    """The installed entry point (not only the test runner): exit 2 and the message, never 'aborted' / 130."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    code = "from contrastive_bounds.properties.cli._app import main; main()"
    proc = subprocess.run([sys.executable, "-c", code, "align", "compare", str(d / "empty.npy"), str(d / "b.npy")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "aborted" not in proc.stderr and "is empty (0 bytes)" in proc.stderr


@pytest.mark.parametrize("name, words", [
    ("empty.npy", ("is empty (0 bytes)", "use another checkpoint path, or delete the file")),
    ("text.npy", ("is a text file",)),
    ("garbage.npz", ("is damaged or truncated",)),
    ("pickle.npy", ("is a Python pickle",)),
    ("a.npy", ("is not a checkpoint of this toolkit (no fingerprint)",)),
])
@pytest.mark.slow
def test_proxy_refuses_a_malformed_checkpoint_and_keeps_it(d, name, words):
    """A --checkpoint file that is not ours is refused before any step and left as it was."""
    before = (d / name).read_bytes()
    _one_line(runner.invoke(app, [*PROXY, "--checkpoint", str(d / name)]), "error: --checkpoint=", *words)
    assert (d / name).read_bytes() == before


@pytest.mark.parametrize("name, words", [
    ("empty.npy", ("is not valid JSON", "not a grid checkpoint")),
    ("a.npy", ("is a binary file, not a grid checkpoint",)),
    ("b.json", ("is JSON without 'fingerprint' and 'cells'",)),
])
def test_batch_scaling_refuses_a_malformed_checkpoint(d, name, words):
    """The grid checkpoint (JSON) likewise, also for JSON of another shape; the file is kept."""
    (d / "b.json").write_text('{"cells": [1, 2]}')
    before = (d / name).read_bytes()
    _one_line(runner.invoke(app, [*GRID, "--checkpoint", str(d / name)]), "error: --checkpoint=", *words)
    assert (d / name).read_bytes() == before


@pytest.mark.slow
def test_batch_scaling_ignores_the_sgd_batch_size_it_never_uses(monkeypatch):
    """A reference set of 16 was refused with 'batch_size=32 is outside [2, 16]', an option batch-scaling
    does not have (its cells set their own batch sizes): now only the grid's sizes are checked, and the
    run reaches its cells (stubbed here) with the reference set loaded."""
    import contrastive_bounds.numerics.alignment._batch_scaling as bs

    res = runner.invoke(app, [*GRID[:-2], "--batch-sizes", "4,32"])
    _one_line(res, "error: --batch-sizes=32 is outside its domain: integers in [2, 16]")
    seen = []

    def cell(config, b, g, ref):  # noqa: ANN001, ANN202
        seen.append((b, g, ref.labels.shape[0]))
        raise ValueError("the cells were reached")

    monkeypatch.setattr(bs, "run_cell", cell)
    _one_line(runner.invoke(app, GRID), "error: the cells were reached")
    assert seen == [(4, "epochs", 16)]
