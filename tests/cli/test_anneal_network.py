"""``anneal`` on an InfoNCE landscape from a saved search's trap, from the command line (properties/cli/anneal_network.py).

The landscape is decoupled InfoNCE, N = 4 points on S¹, pairs (0,1), (2,3), tau = 0.1: its search (``landscape
... --starts 128``) finds the global minimum m0 (V = -19.3069) and the trap m1 (V = 1/tau + log 2, both pairs
split antipodally) with barrier H* = 0.28190 through a transition state of multiplicity 4. The
Eyring–Kramers predictions are recomputed here independently of the command: the Hessians off the rotation
mode by central finite differences of a numpy implementation of the loss in angles, the rate by
theory.kramers.eyring_kramers_log_time (the Bovier–Gayrard–Klein formula), the escapes under the logarithmic
schedule by the closed form of ∫ (t + t0)^(−H/c) dt, and the band by the allowance of check A4.infonce_landscape
(F = (1 + 3 T(0)/H)·exp(|h/2 (tr H(trap) − tr H(saddle))|)).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics._stats import clopper_pearson
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.theory._kramers import eyring_kramers_log_time

runner = CliRunner()
TAU = 0.1
LANDSCAPE = ["infonce", "--points", "4", "--dim", "2", "--tau", "0.1"]
H_STAR = 0.28190425044606826


@pytest.fixture(scope="module")
def search(tmp_path_factory, infonce_circle_reference):
    """The saved search, from the command line, and the independent Eyring-Kramers data of its trap m1."""
    out = tmp_path_factory.mktemp("n4")
    res = runner.invoke(app, ["landscape", *LANDSCAPE, "--starts", "128", "--hop-rounds", "0", "--ts-rounds", "1",
                              "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    state = json.loads((out / "network.json").read_text())
    trap = state["minima"][1]
    ts = next(t for t in state["transition_states"] if sorted(t["minima"]) == [0, 1] and t["verified"])
    assert trap["energy"] == pytest.approx(1 / TAU + math.log(2), rel=1e-12)
    hess = infonce_circle_reference.hessian_off_rotation
    ex, es = hess(np.array(trap["z"])), hess(np.array(ts["z"]))
    barrier = ts["energy"] - trap["energy"]
    assert barrier == pytest.approx(H_STAR, rel=1e-10)
    count = ts["multiplicity"] / trap["multiplicity"]  # copies of the saddle on one trap configuration (4)

    def log_time(temp):
        return eyring_kramers_log_time([barrier], ex, [es], temp) - math.log(count)

    return {"out": out, "barrier": barrier, "log_time": log_time, "trace_gap": float(np.sum(ex) - np.sum(es))}


def _anneal(search, *args):
    res = runner.invoke(app, ["anneal", *LANDSCAPE, "--search", str(search["out"]), "--start", "m1", *args,
                              "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _band(search, n_escapes, t_hot, h):
    f = (1 + 3 * t_hot / search["barrier"]) * math.exp(abs(0.5 * h * search["trace_gap"]))
    return math.exp(-n_escapes * f), math.exp(-n_escapes / f)


def _meets(out, lo, hi):
    ci = clopper_pearson(out["trapped"]["count"], out["chains"], 0.999)
    return ci.hi >= lo and ci.lo <= hi


@pytest.mark.slow
def test_from_the_trap_chains_stay_far_below_h_star_and_escape_at_the_eyring_kramers_rate(search):
    """Fixed T = H*/20 for t = 10 (Eyring-Kramers: 2e-7 escapes per chain): every chain stays in the trap (never
    reached the global set, and quenches to m1 at the end); the predicted never-escape probability
    exp(-t/tau_EK) equals the independent one (1e-6). Fixed T = H*/4 for t = tau_EK: the prediction is exp(-1) (independent), and
    the trapped fraction's 99.9 % interval meets the band; reached + trapped = all chains, and the chains left in
    the trap's basin are at most those that never reached the global set."""
    cold = _anneal(search, "--schedule", "fixed", f"c={H_STAR / 20!r}", "--chains", "128", "--time", "10")
    assert cold["start_minimum"]["label"] == "m1" and cold["critical_height"] == pytest.approx(H_STAR, rel=1e-12)
    assert cold["trapped"]["count"] == 128 and cold["in_start_basin"]["count"] == 128
    assert cold["final_basins"] == {"m1": 128} and cold["energies"]["final"]["min"] > cold["level"]
    predicted = math.exp(-cold["time"] / math.exp(search["log_time"](H_STAR / 20)))
    assert cold["theory"]["kramers_trap_probability"] == pytest.approx(predicted, rel=1e-6) and predicted > 0.999999
    assert _meets(cold, *cold["theory"]["kramers_trap_band"])

    temp = H_STAR / 4
    tau_ek = math.exp(search["log_time"](temp))
    t_end = round(tau_ek / 0.002) * 0.002
    warm = _anneal(search, "--schedule", "fixed", f"c={temp!r}", "--chains", "384", "--time", repr(t_end),
                   "--step-size", "0.002")
    k = warm["theory"]["kramers"]
    assert k["predicted"] == pytest.approx(math.exp(-t_end / tau_ek), rel=1e-6)
    lo, hi = _band(search, t_end / tau_ek, temp, 0.002)
    assert k["lo"] == pytest.approx(lo, rel=1e-5) and k["hi"] == pytest.approx(hi, rel=1e-5)  # finite-difference Hessians
    assert _meets(warm, lo, hi), (warm["trapped"], lo, hi)
    assert warm["reached"]["count"] + warm["trapped"]["count"] == 384
    # a chain that reached the global set cannot climb back over a 30-unit barrier at T = 0.07; chains that left the
    # trap but are still on their way down (past the saddles at V = 0.69 and 3.19 between copies of m0) are in m0's basin
    assert warm["in_start_basin"]["count"] <= warm["trapped"]["count"] <= warm["in_start_basin"]["count"] + 0.1 * 384
    assert warm["final_basins"].keys() <= {"m0", "m1"} and sum(warm["final_basins"].values()) == 384
    assert warm["hitting_time"]["censored"] == warm["trapped"]["count"]
    assert 0 < warm["hitting_time"]["median"] <= t_end


@pytest.mark.slow
def test_above_h_star_the_log_schedule_reaches_the_global_set_and_below_it_a_trapped_fraction_stays(search):
    """T = c/log(t + t0) from the trap. c = 1.5 H*: HKS says converges, and the chains reach the global set (in
    it at t = 20: 99.9 % interval above 0.95, none left in the trap's basin). c = 0.5 H* with t0 such that the
    Eyring-Kramers trapped probability as t -> inf is 1/2: HKS says it does not converge; at t = 2 t0 the
    command's prediction equals the closed form of the escape integral (1e-6), and the trapped fraction is
    clearly positive and its interval meets the band."""
    hot = _anneal(search, "--schedule", "temperature", f"c={1.5 * H_STAR!r}", "t0=2", "--chains", "256", "--time", "20")
    assert hot["theory"]["converges"] is True and hot["theory"]["regime"] == "slow-enough"
    assert clopper_pearson(hot["success"]["count"], 256, 0.999).lo > 0.95
    assert hot["in_start_basin"]["count"] == 0 and hot["final_basins"] == {"m0": 256}
    c = 0.5 * H_STAR
    log_k = -(search["log_time"](1.0) - search["barrier"])  # log of the rate prefactor: tau = e^{-log_k} e^{H/T}
    a = search["barrier"] / c  # = 2
    t0 = (math.exp(log_k) / ((a - 1) * math.log(2.0))) ** (1 / (a - 1))  # k t0^{1-a}/(a-1) = log 2
    t_end = round(2 * t0 / 0.002) * 0.002
    cool = _anneal(search, "--schedule", "temperature", f"c={c!r}", f"t0={t0!r}", "--chains", "256",
                   "--time", repr(t_end), "--step-size", "0.002")
    assert cool["theory"]["converges"] is False and cool["theory"]["regime"] == "log-below-critical"
    n_esc = math.exp(log_k) * ((t_end + t0) ** (1 - a) - t0 ** (1 - a)) / (1 - a)
    assert cool["theory"]["kramers_trap_probability"] == pytest.approx(math.exp(-n_esc), rel=1e-6)
    lo, hi = _band(search, n_esc, c / math.log(t0), 0.002)
    assert cool["theory"]["kramers_trap_band"] == pytest.approx([lo, hi], rel=1e-5)
    assert clopper_pearson(cool["trapped"]["count"], 256, 0.999).lo > 0.2
    assert _meets(cool, lo, hi), (cool["trapped"], lo, hi)


@pytest.mark.slow
def test_the_folder_alone_anneals_the_saved_landscape_with_the_same_numbers(search):
    """`anneal --search FOLDER` without LANDSCAPE rebuilds the saved landscape (its options printed) and gives the
    same numbers as with the options spelled out (same seed); the human-readable table says the same."""
    args = ["--start", "trap", "--schedule", "fixed", "c=0.1", "--chains", "64", "--time", "2", "--seed", "5"]
    alone = runner.invoke(app, ["anneal", "--search", str(search["out"]), *args, "--json", "--no-progress"])
    assert alone.exit_code == 0, alone.output
    out = json.loads(alone.stdout)
    full = _anneal(search, *args[2:])
    assert out["landscape_options"] == "infonce --points 4 --dim 2 --tau 0.1" and out["start_minimum"]["label"] == "m1"
    for key in ("success", "reached", "trapped", "in_start_basin", "final_basins", "hitting_time", "energies", "theory"):
        assert out[key] == full[key], key
    table = runner.invoke(app, ["anneal", "--search", str(search["out"]), *args, "--no-progress"])
    assert table.exit_code == 0, table.output
    assert "trapped (never reached)" in table.stdout and "Eyring-Kramers" in table.stdout and "m1" in table.stdout


@pytest.mark.parametrize("args, words", [
    (["--search", "{nowhere}"], ["--search=", "does not exist"]),
    (["--search", "{empty}"], ["--search=", "no network.json"]),
    (["--search", "{junk}"], ["--search=", "not JSON"]),
    (["--search", "{out}", "--start", "m7"], ["--start='m7'", "m0, m1"]),
    (["infonce", "--points", "4", "--dim", "2", "--tau", "0.2", "--search", "{out}"],
     ["--tau: saved 0.1, given 0.2", "infonce --points 4 --dim 2 --tau 0.1"]),
    (["infonce", "--points", "6", "--dim", "2", "--tau", "0.1", "--search", "{out}"], ["--points: saved 4, given 6"]),
    (["thomson", "--points", "4", "--dim", "2", "--search", "{out}"], ["LANDSCAPE: saved 'infonce', given 'thomson'"]),
    (["infonce", "--points", "4", "--dim", "2", "--tau", "0.1"], ["--search FOLDER is needed", "landscape infonce"]),
    (["double-well", "--points", "3"], ["--points"]),
    (["--points", "4", "--search", "{out}"], ["describe a LANDSCAPE"]),
    ([], ["LANDSCAPE is missing"]),
    (["--search", "{out}", "--start", "m1", "--delta", "40"], ["--delta=40.0 puts the start minimum m1"]),
    (["--search", "{out}", "--start", "m1", "--step-size", "0.3"], ["--time=1.0 must be a positive whole multiple"]),
])
@pytest.mark.slow
def test_bad_input_exits_2_with_one_line_naming_the_option(search, tmp_path, args, words):
    """Each bad argument: exit 2 and one line naming the option (no traceback)."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "network.json").write_text("{not json")
    paths = {"out": search["out"], "nowhere": tmp_path / "nowhere", "empty": tmp_path / "empty", "junk": tmp_path / "junk"}
    argv = [a.format(**paths) for a in args]
    res = runner.invoke(app, ["anneal", *argv, "--schedule", "fixed", "c=0.1", "--time", "1", "--chains", "8"])
    assert res.exit_code == 2, res.output
    assert all(w in res.output for w in words) and "Traceback" not in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1, res.output


@pytest.mark.slow
def test_a_checkpointed_run_resumes_to_the_same_numbers_and_only_for_its_own_settings(search, tmp_path):
    """--checkpoint FILE keeps the run; the same command with --resume gives the same numbers (the saved run is
    complete: nothing is simulated again, only the final quench); a resume with another schedule is refused
    naming the schedule's constant, and an existing checkpoint is not overwritten without --resume."""
    ck = str(tmp_path / "run.npz")
    args = ["--schedule", "temperature", "c=0.2", "t0=3", "--chains", "32", "--time", "1", "--checkpoint", ck]
    first = _anneal(search, *args)
    again = _anneal(search, *args, "--resume")
    for key in ("success", "trapped", "in_start_basin", "hitting_time", "energies"):
        assert again[key] == first[key], key
    res = runner.invoke(app, ["anneal", *LANDSCAPE, "--search", str(search["out"]), "--start", "m1", "--schedule",
                              "temperature", "c=0.25", "t0=3", "--chains", "32", "--time", "1", "--checkpoint", ck,
                              "--resume"])
    assert res.exit_code == 2 and "belongs to a different run" in res.output and "0.25 / log" in res.output, res.output
    res = runner.invoke(app, ["anneal", *LANDSCAPE, "--search", str(search["out"]), "--start", "m1", *args])
    assert res.exit_code == 2 and "already holds a saved run" in res.output


@pytest.mark.slow
def test_sigint_stops_a_network_run_within_seconds_and_prints_the_resume_command(search, tmp_path):
    """A real `anneal --search` process (8192 chains x 1.25·10^5 steps: about 10^9 chain-steps, minutes): SIGINT once
    it has started; it exits with 130 within a few seconds, saves the run to anneal-interrupted-<id>.ckpt.npz and
    prints the command that resumes it (with --search and --start); that file is this run's (a resume with another
    seed is refused naming the seed)."""
    import os
    import re
    import selectors
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-m", "contrastive_bounds.properties", "anneal", "--search", str(search["out"]), "--start", "m1",
           "--schedule", "fixed", "c=0.05", "--chains", "8192", "--time", "250", "--step-size", "0.002", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env={**os.environ, "JAX_PLATFORMS": "cpu"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        sel, head, deadline = selectors.DefaultSelector(), "", time.monotonic() + 180
        sel.register(proc.stderr, selectors.EVENT_READ)
        while time.monotonic() < deadline and "Ctrl-C" not in head:
            if sel.select(timeout=1.0):
                line = proc.stderr.readline()
                if not line:
                    break
                head += line
        assert "cost: 1.02e+09 chain-steps" in head, head
        time.sleep(3.0)
        assert proc.poll() is None, proc.stderr.read()
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert waited < 10.0, f"took {waited:.1f} s to stop"
    match = re.search(r"state saved to (\S+)\nresume with: (.+)", err)
    assert match, err
    path = tmp_path / match.group(1)
    assert path.exists() and match.group(2).endswith(f"--checkpoint {match.group(1)} --resume")
    assert "--search" in match.group(2) and "--start m1" in match.group(2)
    res = runner.invoke(app, ["anneal", "--search", str(search["out"]), "--start", "m1", "--schedule", "fixed", "c=0.05",
                              "--chains", "8192", "--time", "250", "--step-size", "0.002", "--seed", "1",
                              "--checkpoint", str(path), "--resume"])
    assert res.exit_code == 2 and "seed: 0 in the checkpoint, 1 now" in res.output, res.output


@pytest.mark.slow
def test_on_the_double_well_the_network_prediction_equals_the_exact_s1_trap_prediction(tmp_path):
    """`anneal double-well --search` (the network's trap, Eyring-Kramers modulo symmetry from recomputed Hessians)
    and `anneal double-well` (the exact S¹ trap of the Fourier analysis) predict the same never-escape probability
    under the same schedule (1e-9), start from the same minimum, and find the same global set."""
    out = tmp_path / "dw"
    res = runner.invoke(app, ["landscape", "double-well", "--starts", "16", "--hop-rounds", "1", "--patience", "1",
                              "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    args = ["--schedule", "temperature", "c=1.0", "t0=200", "--chains", "64", "--time", "20", "--json", "--no-progress"]
    net = runner.invoke(app, ["anneal", "double-well", "--search", str(out), *args])
    circle = runner.invoke(app, ["anneal", "double-well", *args])
    assert net.exit_code == 0 and circle.exit_code == 0, net.output + circle.output
    a, b = json.loads(net.stdout), json.loads(circle.stdout)
    assert a["start_minimum"]["energy"] == pytest.approx(-0.5, abs=1e-12) and a["critical_height"] == pytest.approx(1.53125)
    assert a["theory"]["kramers_trap_probability"] == pytest.approx(b["theory"]["kramers_trap_probability"], rel=1e-9)
    assert a["level"] == pytest.approx(b["v_min"] + b["delta"], rel=1e-12)


def test_an_edited_energy_is_refused_and_a_version_1_search_is_open(search, tmp_path):
    """A saved minimum whose energy is not the potential at its saved coordinates is refused (exit 2, naming the
    minimum), so an edited file cannot fake H*; a search saved by state version 1 (the search before closure; a
    fixture written by that version) is reported open, not complete."""
    from pathlib import Path

    state = json.loads((search["out"] / "network.json").read_text())
    args = ["--start", "m1", "--schedule", "fixed", "c=0.05", "--chains", "8", "--time", "1", "--no-progress"]
    edited = tmp_path / "edited"
    edited.mkdir()
    bad = json.loads(json.dumps(state))
    bad["minima"][1]["energy"] = -100.0
    (edited / "network.json").write_text(json.dumps(bad))
    res = runner.invoke(app, ["anneal", "--search", str(edited), *args])
    assert res.exit_code == 2, res.output
    assert "minimum m1 is saved with energy -100.0, but the landscape at its saved coordinates is" in res.output
    old = Path(__file__).parents[1] / "numerics" / "landscapes" / "network" / "data" / "saved" / \
        "v1-infonce-n6-d2-tau0.1-done"
    res = runner.invoke(app, ["anneal", "--search", str(old), *args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)["search"]
    assert out["status"] == "open: closure not attempted (closure=False)" and not out["critical_height_complete"], out


@pytest.mark.slow
def test_a_prime_step_count_does_not_record_every_step_and_the_checkpoint_size_is_as_stated(search, tmp_path):
    """A default step whose count is prime (here 10 007 steps at the trap's cap h = 0.2/lambda_max) had recorded the
    energy trace every step (a prime count has no divisor near n/100: 1 024 chains x 166 667 steps of N = 6 was a 1.4 GB
    checkpoint): the plan takes the next count with a divisor giving at most MAX_TRACE_RECORDS entries (h stays within
    0.1 % and below the cap), the trace holds about 100 entries, and the checkpoint's size is checkpoint_bytes'
    estimate (within 2 KiB); an explicit --step-size with a prime count keeps only the end and says so."""
    from contrastive_bounds.numerics.langevin import default_record_every
    from contrastive_bounds.numerics.landscapes.network.saved import load_saved_search
    from contrastive_bounds.numerics.network_experiment import DEFAULT_STEP_SIZE, MAX_TRACE_RECORDS, STEP_SCALE, \
        plan_anneal, trace_record_every
    from contrastive_bounds.properties.cli._anneal_run import checkpoint_bytes
    from contrastive_bounds.theory._schedules import make_schedule

    assert default_record_every(166667) == trace_record_every(166667) == 166667
    assert trace_record_every(166700) == 1667
    lam = plan_anneal(load_saved_search(search["out"]), make_schedule("fixed", c=0.02), chains=1, t_end=1.0,
                      start="m1").stiffest
    h, prime = min(DEFAULT_STEP_SIZE, STEP_SCALE / lam), 10007
    time = f"{prime * h * (1 + 1e-12):.17g}"
    ckpt = tmp_path / "run.npz"
    out = _anneal(search, "--schedule", "fixed", "c=0.02", "--chains", "8", "--time", time, "--no-quench",
                  "--checkpoint", str(ckpt))
    n = out["num_steps"]
    assert n != prime and n // trace_record_every(n) <= MAX_TRACE_RECORDS
    assert out["step_size"] <= h and out["step_size"] == pytest.approx(h, rel=1e-3)
    records = np.load(ckpt)["energy_trace"].shape[0]
    assert records == n // trace_record_every(n) and 50 <= records <= 200
    assert abs(ckpt.stat().st_size - checkpoint_bytes(8, 4, 2, records)) <= 2048
    given = f"{float(time) / prime:.17g}"
    fixed = _anneal(search, "--schedule", "fixed", "c=0.02", "--chains", "8", "--time", time, "--step-size", given,
                    "--no-quench")
    assert fixed["num_steps"] == prime and any("trace holds only the end" in w for w in fixed["warnings"])
    # without the quench its time is 0, and the simulation is part of the library's run, itself part of the command
    assert fixed["quench_time_s"] == 0.0 and 0 < fixed["simulation_time_s"] <= fixed["run_time_s"] <= fixed["total_time_s"]


def test_small_predicted_probabilities_are_not_printed_as_zero():
    """An Eyring–Kramers probability of 8.4e-24 prints as 8.4e-24 (it printed "0.0000"); from 1e-3 up four decimals
    as before; exactly 0 is "0"."""
    from contrastive_bounds.properties.cli.anneal_network import probability_text

    assert probability_text(8.4e-24) == "8.4e-24" and float(probability_text(1.234e-5)) == 1.23e-5
    assert probability_text(0.5) == "0.5000" and probability_text(1.0) == "1.0000" and probability_text(0.0) == "0"


def test_the_table_says_a_log_constant_below_h_star_in_words_and_no_verdict_from_a_lower_bound():
    """The table's verdict cell is words, never a Python literal (True/False/None): a log schedule with c_T < H*
    reads "no convergence guarantee — logarithmic, c_T below H*" (never "too-fast", which is for schedules faster
    than logarithmic), c_T = H* is borderline (docs/theorems.md A4 states c > H* and c < H* only); where H* is only
    the lower bound a search shows, a constant at or above it is "not decided", whatever the regime value of the
    verdict against it."""
    from contrastive_bounds.properties.cli.anneal_network import verdict_text
    from contrastive_bounds.theory import make_schedule

    def theory(c, h):
        v = make_schedule("temperature", c=c, t0=2.0).converges(h)
        return {"converges": v.converges, "reason": v.reason, "regime": v.regime}

    assert verdict_text(theory(0.5 * H_STAR, H_STAR)) == "no convergence guarantee — logarithmic, c_T below H*"
    assert verdict_text(theory(1.5 * H_STAR, H_STAR)) == "converges in probability — logarithmic, c_T above H*"
    assert verdict_text(theory(H_STAR, H_STAR)) == "borderline (c_T = H*): the theorem decides neither way"
    lower = {**theory(1.5 * H_STAR, H_STAR), "converges": None}  # as run_anneal reports it when H* is not known
    assert verdict_text(lower, known=False) == "not decided: c_T at or above the H* found, which is only a lower bound"
    assert verdict_text(theory(0.5 * H_STAR, H_STAR), known=False) == \
        "no convergence guarantee — logarithmic, c_T below H*"
    fast = make_schedule("sqrt", c=1.0).converges(H_STAR)
    assert verdict_text({"converges": fast.converges, "reason": fast.reason, "regime": fast.regime}) == \
        "no convergence guarantee — faster than logarithmic, can stay trapped"
    for case in (theory(0.5 * H_STAR, H_STAR), theory(1.5 * H_STAR, H_STAR), theory(H_STAR, H_STAR)):
        assert not any(word in verdict_text(case) for word in ("True", "False", "None"))


@pytest.mark.slow
def test_a_search_that_connects_no_trap_gives_no_convergence_verdict(tmp_path):
    """A budgeted search (--max-searches 2) finds the trap m1 but no path from it: H* is not computed (JSON null,
    with the reason), and annealing from m1 with c above the network's 0 gets no verdict ("converges": null, the
    reason says H* is not known), never "converges in probability"."""
    out = tmp_path / "cut"
    res = runner.invoke(app, ["landscape", *LANDSCAPE, "--max-searches", "2", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    land = json.loads(res.stdout)
    assert land["critical_height"] is None and land["critical_height_note"].startswith("not computed")
    got = _anneal({"out": out}, "--schedule", "temperature", "c=0.141", "t0=16.56", "--time", "1", "--chains", "4")
    assert got["theory"]["converges"] is None
    assert got["theory"]["reason"].startswith("no verdict: H* is not known from this search")
    assert "converges in probability" not in got["theory"]["reason"]
