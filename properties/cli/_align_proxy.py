"""``contrastive-bounds align proxy`` and ``align batch-scaling``: Paper B against real SGD (docs/theorems.md B9, B10)."""

from __future__ import annotations

import math
from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.properties.cli._common import EXIT_INTERRUPTED, command, console, emit_json, err_console, output_file

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)


def _floats(name: str, text: str) -> tuple[float, ...]:
    try:
        vals = tuple(float(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise ValueError(f"{name}={text!r} must be comma-separated numbers") from None
    if not vals:
        raise ValueError(f"{name}={text!r} is empty")
    return vals


def _ints(name: str, text: str) -> tuple[int, ...]:
    vals = _floats(name, text)
    if any(v != int(v) for v in vals):
        raise ValueError(f"{name}={text!r} must be comma-separated integers")
    return tuple(int(v) for v in vals)


def _l10(x: float | None) -> str:
    if x is None:
        return "n/a"
    if math.isinf(x):
        return "n/a (vacuous)"
    return f"{x:.4f}"


def proxy(
    model: str = typer.Option("mlp", help="'mlp' (digits encoder + head) or 'free' (free embedding rows)."),
    num_classes: int = typer.Option(10, help="C in [2, 10]: digit classes 0..C-1."),
    reference_size: int = typer.Option(256, help="n reference digits; Sigma has m = 2n rows (both views)."),
    batch_size: int = typer.Option(32, help="B samples per step (shared by CL, NSCL and the proxy)."),
    learning_rate: float = typer.Option(0.02, help="eta of plain SGD (no momentum)."),
    steps: int = typer.Option(300, help="T SGD steps."),
    tau: float = typer.Option(0.5, help="Temperature tau > 0."),
    hidden: int = typer.Option(256, help="Hidden width of the MLP encoder."),
    projection_dim: int = typer.Option(32, help="d of z (free: of each embedding row; d >= m starts orthonormal)."),
    views: str = typer.Option("fixed", help="'fixed' views (the proxy's model) or 'fresh' augmentations each step."),
    record_every: int = typer.Option(10, help="Steps between records of Sigma^SGD."),
    fit_steps: int = typer.Option(10, help="Steps of the eta_eff least-squares fit."),
    eta_estimator: str = typer.Option("fit", help="'fit' (least squares over the first steps) or 'ntk'."),
    eta_eff: Optional[float] = typer.Option(None, help="Use this eta_eff instead of an estimate."),
    tolerance: float = typer.Option(0.1, help="Relative error under which the proxy 'tracks' SGD."),
    delta: float = typer.Option(0.05, help="Failure probability of Theorem 1."),
    seed: int = typer.Option(0, help="Seed of init, views and batches, in [0, 2^32 - 1]."),
    dtype: str = typer.Option("float64", help="'float64' or 'float32' (throughput)."),
    checkpoint: Optional[str] = typer.Option(None, help="Checkpoint .npz (atomic; an existing one is resumed)."),
    yes: bool = typer.Option(False, "--yes", help="Run even when the estimated time is above an hour."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Plain SGD of CL and NSCL vs similarity descent on the same batches: fidelity, d_t, Theorem 1 on real training."""
    from contrastive_bounds.numerics.alignment._proxy import ProxyConfig, check_proxy_inputs, run_proxy_comparison
    from contrastive_bounds.numerics.alignment._sgd import SGDConfig

    cfg = ProxyConfig(sgd=SGDConfig(model=model, num_classes=num_classes, reference_size=reference_size,
                                    batch_size=batch_size, learning_rate=learning_rate, steps=steps, tau=tau, seed=seed,
                                    hidden=hidden, projection_dim=projection_dim, views=views, dtype=dtype),
                      record_every=record_every, fit_steps=fit_steps, eta_estimator=eta_estimator, eta_eff=eta_eff,
                      delta=delta, tolerance=tolerance)
    check_proxy_inputs(cfg)  # before any output: bad input gives one line and exit 2
    from contrastive_bounds.properties.cli._align_cost import mlp_bytes, proxy_seconds

    sizes = (f"--model={model}, --reference-size={reference_size}, --hidden={hidden}, "
             f"--projection-dim={projection_dim}")
    res, s = _guarded_run(lambda **kw: run_proxy_comparison(cfg, checkpoint=checkpoint, **kw), checkpoint=checkpoint,
                          memory=(mlp_bytes(hidden, projection_dim, model=model, reference_size=reference_size), sizes),
                          seconds=(proxy_seconds(reference_size, batch_size, steps, hidden, projection_dim, model),
                                   f"{sizes}, --batch-size={batch_size}, --steps={steps}"),
                          yes=yes, progress=("SGD and proxy", steps), json_out=json_out)
    if json_out:
        return
    e = s["eta"]
    console.print(f"eta_eff = {e['eta_eff']:.6g} ({e['estimator']}); fit {e['eta_fit']:.6g} (gain {e['gain_fit']:.4g}), "
                  f"NTK {e['eta_ntk']:.6g} (gain {e['gain_ntk']:.4g}) over {e['fit_steps']} steps; share of the SGD motion "
                  f"of Sigma along the proxy direction cos^2 = {e['cos2']:.3g} (on the batch block {e['cos2_block']:.3g}; "
                  f"block share of the motion {e['block_share']:.3g}); training in {dtype}")
    table = Table(title=f"proxy vs plain SGD ({model}, m={res.m}, B={batch_size}, eta={learning_rate}, tau={tau})")
    for col in ("step", "rel. error CL", "rel. error NSCL", "d_t real", "d_t proxy", "CKA real", "CKA proxy"):
        table.add_column(col)
    rec, fid = res.records, res.fidelity()
    idx = sorted(set(range(0, len(rec["step"]), max(1, len(rec["step"]) // 12))) | {len(rec["step"]) - 1})
    for i in idx:
        table.add_row(str(int(rec["step"][i])), f"{fid['cl'][i]:.4f}", f"{fid['nscl'][i]:.4f}", f"{rec['d_real'][i]:.5g}",
                      f"{rec['d_proxy'][i]:.5g}", f"{rec['cka_real'][i]:.4f}", f"{rec['cka_proxy'][i]:.4f}")
    console.print(table)
    console.print(f"verdict (tolerance {tolerance:.0%}): {s['verdict']}")
    t1 = s["theorem1_real"]
    console.print(f"Theorem 1 with S = T eta_eff = {t1['eta_sum']:.6g}: real d_T = {t1['d_T_real']:.6g}, proxy d_T = "
                  f"{t1['d_T_proxy']:.6g}; log10 bounds " + ", ".join(f"{k} {_l10(v)}" for k, v in t1["bounds_log10"].items())
                  + "; slack (log10) " + ", ".join(f"{k} {_l10(v)}" for k, v in t1["slack_log10"].items())
                  + f"; holds for the real runs at every record: {all(t1['holds'].values())}; L1 on real states: "
                  f"{t1['l1_real_holds']}; status: {t1['status']}")
    f = s["final"]
    console.print(f"final CKA real {f['cka_real_gram']:.6f} (feature form {f['cka_real_features']:.6f}), proxy "
                  f"{f['cka_proxy_gram']:.6f}; RSA real {f['rsa_real']:.6f}, proxy {f['rsa_proxy']:.6f}")


def batch_scaling(
    batch_sizes: str = typer.Option("16,32,64,128,256", help="Comma-separated batch sizes B."),
    exponents: str = typer.Option("1,0.5,0.25,0", help="Comma-separated a of eta = c B^a."),
    budgets: str = typer.Option("epochs,steps", help="'epochs', 'steps' or both (comma-separated)."),
    seeds: int = typer.Option(3, help="Seeds per cell (>= 2; intervals are over seeds)."),
    seed: int = typer.Option(0, help="First seed."),
    epochs: int = typer.Option(20, help="Epochs of the fixed-epoch budget (fixed steps = epochs x n/B_ref)."),
    reference_batch: int = typer.Option(64, help="B_ref, where every scaling uses --eta-ref."),
    eta_ref: float = typer.Option(0.05, help="Learning rate at B_ref."),
    reference_size: int = typer.Option(512, help="n training = reference digits (m = 2n)."),
    num_classes: int = typer.Option(10, help="C in [2, 10]."),
    tau: float = typer.Option(0.5, help="Temperature."),
    hidden: int = typer.Option(256, help="Hidden width of the MLP."),
    views: str = typer.Option("fresh", help="'fresh' augmentations each step or 'fixed' views."),
    dtype: str = typer.Option("float32", help="Training dtype ('float32' throughput, or 'float64')."),
    delta: float = typer.Option(0.05, help="Failure probability of Theorem 1 (predicted signs)."),
    checkpoint: Optional[str] = typer.Option(None, help="Grid checkpoint .json (finished cells are kept)."),
    yes: bool = typer.Option(False, "--yes", help="Run even when the estimated time is above an hour."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Batch size x learning-rate scaling on digits (paper Fig. 5): CKA/RSA vs B beside the bound's and the paper's trend."""
    from contrastive_bounds.numerics.alignment._batch_scaling import ScalingConfig, check_scaling_inputs, run_batch_scaling
    from contrastive_bounds.numerics.alignment._sgd import SGDConfig

    cfg = ScalingConfig(batch_sizes=_ints("--batch-sizes", batch_sizes), exponents=_floats("--exponents", exponents),
                        budgets=tuple(b.strip() for b in budgets.split(",") if b.strip()), seeds=seeds, seed=seed,
                        epochs=epochs, reference_batch=reference_batch, eta_ref=eta_ref, delta=delta,
                        sgd=SGDConfig(reference_size=reference_size, num_classes=num_classes, tau=tau, hidden=hidden,
                                      views=views, dtype=dtype))
    check_scaling_inputs(cfg)
    from contrastive_bounds.properties.cli._align_cost import batch_scaling_seconds, mlp_bytes

    lanes = len(cfg.exponents) * cfg.seeds
    res, s = _guarded_run(
        lambda **kw: run_batch_scaling(cfg, checkpoint=checkpoint, **kw), checkpoint=checkpoint,
        memory=(mlp_bytes(hidden, 32, lanes), f"--hidden={hidden} with {lanes} lanes (--exponents x --seeds)"),
        seconds=(batch_scaling_seconds(cfg.batch_sizes, cfg.budgets, len(cfg.exponents), seeds, epochs, reference_size,
                                       reference_batch, hidden),
                 f"--batch-sizes={batch_sizes}, --budgets={budgets}, {len(cfg.exponents)} exponents, --seeds={seeds}, "
                 f"--epochs={epochs}, --reference-size={reference_size}, --hidden={hidden}"),
        yes=yes, progress=("grid cells", len(cfg.batch_sizes) * len(cfg.budgets)), json_out=json_out)
    if json_out:
        return
    for metric in ("cka", "rsa"):
        table = Table(title=f"CL-NSCL {metric.upper()} at T (mean [95% interval over {seeds} seeds, within the range of "
                            f"{metric.upper()}]; training in {dtype})")
        table.add_column("budget, a")
        for b in cfg.batch_sizes:
            table.add_column(f"B={b}")
        for budget in cfg.budgets:
            for a in cfg.exponents:
                cells_ = [r for r in s[f"table_{metric}"] if r["budget"] == budget and r["exponent"] == a]
                table.add_row(f"{budget}, a={a:g}", *[_cell(r) for r in cells_])
        console.print(table)
        if any(r.get("clipped") for r in s[f"table_{metric}"]):
            lo_r, hi_r = (0, 1) if metric == "cka" else (-1, 1)
            console.print(f"* the t-interval reached past the range of {metric.upper()}, [{lo_r}, {hi_r}], and is cut "
                          "there (the mean lies in the range, so the coverage is unchanged)", markup=False, highlight=False)
    table = Table(title="trend in B: measured (slope of CKA per doubling of B) vs Theorem 1 and the paper")
    for col in ("budget, a", "slope [95%]", "measured", "bound (S nominal)", "bound (S eff)", "paper", "vs bound",
                "vs paper"):
        table.add_column(col)
    for t in s["trends_cka"]:
        slope = "n/a" if t["slope"] is None else f"{t['slope']:.3g} [{t['lo']:.3g}, {t['hi']:.3g}]"
        table.add_row(f"{t['budget']}, a={t['exponent']:g}", slope, t["measured"], f"{t['bound_direction']}",
                      f"{t['bound_eff_direction']}", t["paper"], t["vs_bound"], t["vs_paper"])
    console.print(table)
    for d in s["diverged"]:
        console.print(f"diverged (not a result): {d['message']} [budget {d['budget']}, a={d['exponent']:g}, seed {d['seed']}]")


def _cell(r: dict) -> str:
    if r.get("mean") is None:
        return f"diverged ({r['diverged']})" if r["diverged"] else "n/a"
    ci = "" if r.get("lo") is None else f" [{r['lo']:.3f}, {r['hi']:.3f}]" + ("*" if r.get("clipped") else "")
    return f"{r['mean']:.3f}{ci}" + (f" ({r['diverged']} diverged)" if r["diverged"] else "")


def register(app: typer.Typer) -> None:
    """Add ``proxy`` and ``batch-scaling`` to the ``align`` sub-app."""
    app.command("proxy")(command(proxy))
    app.command("batch-scaling")(command(batch_scaling))


def _guarded_run(run, *, checkpoint: str | None, memory: tuple[float, str], seconds: tuple[float, str], yes: bool,
                 progress: tuple[str, int], json_out: bool):  # noqa: ANN001, ANN202
    """What ``proxy`` and ``batch-scaling`` do between their validated config and their tables: refuse a bad
    --checkpoint, a run beyond the memory (``memory``: bytes and the options that set them) or, without --yes, beyond an
    hour (``seconds``: estimate and options), run ``run`` inside a progress bar (Ctrl-C: :func:`interrupted`), and with
    --json print the summary. Returns ``(result, summary)``."""
    from contrastive_bounds.properties.cli._align_cost import refuse_costly, refuse_memory
    from contrastive_bounds.properties.cli._common import progress_bar

    if checkpoint is not None:
        output_file(checkpoint, "--checkpoint")
    refuse_memory(*memory)
    refuse_costly(*seconds, yes)
    prog, cb = progress_bar(*progress, json_out)
    res = run_interruptible(run, prog, cb, checkpoint)
    summary = res.summary()
    if json_out:
        emit_json(summary)
    return res, summary


def run_interruptible(fn, prog, cb, checkpoint: str | None):  # noqa: ANN001, ANN201
    """``fn()`` (with ``progress=cb`` inside the progress bar when there is one); Ctrl-C -> :func:`interrupted`
    (what was kept and how to continue, exit 130). Shared by the align commands that checkpoint."""
    try:
        if prog is None:
            return fn()
        with prog:
            return fn(progress=cb)
    except KeyboardInterrupt:
        interrupted(checkpoint)


def interrupted(checkpoint: str | None) -> None:
    """Ctrl-C: say what was kept and how to continue; exit 130."""
    if checkpoint:
        msg = (f"interrupted: the progress is saved in {checkpoint}; rerun the same command (same --checkpoint) to "
               "continue from it")
    else:
        msg = "interrupted: nothing was saved (give --checkpoint FILE to keep the progress of a long run)"
    err_console.print(msg, markup=False, highlight=False)
    raise typer.Exit(EXIT_INTERRUPTED)
