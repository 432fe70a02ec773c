"""``contrastive-bounds align``: CL vs NSCL similarity descent and real-data training (Paper B)."""

from __future__ import annotations

import math
import os
from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.properties.cli._common import command, console, emit_json, output_file, progress_bar
from contrastive_bounds.properties._statements import compare_text

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

align_app = typer.Typer(name="align", help="CL vs NSCL alignment (Paper B): simulation, digits training, proxy vs SGD, "
                        "batch-size scaling, comparing your embeddings.",
                        no_args_is_help=True)


@align_app.command("simulate")
@command(aliases={"step_size": "eta"})  # DescentConfig calls --eta step_size
def simulate(
    num_samples: int = typer.Option(1000, help="n samples (m = 2n view rows of Sigma)."),
    num_classes: int = typer.Option(10, help="C classes, as balanced as n allows (sample i has class i mod C), "
                                     "so pi_max = ceil(n/C)/n (= 1/C when C divides n)."),
    batch_size: int = typer.Option(64, help="B samples per batch (shared by both runs)."),
    tau: float = typer.Option(0.5, help="Temperature tau > 0."),
    eta: float = typer.Option(1.0, help="Step size eta >= 0: constant, or the peak of --eta-schedule (eta_t = eta * f(t)); "
                              "eta = 0: nothing moves, d_T = 0 = every bound."),
    eta_schedule: str = typer.Option("constant", help="Step-size schedule f(t): constant, step, exponential, cosine, "
                                     "linear, polynomial, inverse-sqrt, inverse-time (docs/alignment-numerics.md)."),
    eta_param: Optional[list[str]] = typer.Option(None, help="Schedule parameter key=value (repeatable), e.g. gamma=0.5 "
                                                  "period=100, final_fraction=0.01, decay_steps=400, power=2, t0=10."),
    warmup_steps: int = typer.Option(0, help="Linear warm-up over the first W steps (any schedule)."),
    warmup_start: float = typer.Option(0.0, help="Warm-up's first multiplier w0 in [0, 1] (eta_0 = w0 * eta)."),
    eta_file: Optional[str] = typer.Option(None, help=".npy/.npz with the T step sizes (eta_t = eta * value_t; "
                                           "keep --eta 1 for the values themselves)."),
    steps: int = typer.Option(500, help="T steps."),
    seed: int = typer.Option(0, help="Seed of Sigma_0 and of the batches, in [0, 2^32 - 1]."),
    delta: float = typer.Option(0.05, help="Failure probability of Theorem 1."),
    coupled: bool = typer.Option(False, help="Coupled denominators (positive inside)."),
    symmetrize: bool = typer.Option(False, help="Symmetrised updates (G + G^T)/2."),
    both_views: bool = typer.Option(False, help="Both views as anchors."),
    replace: bool = typer.Option(False, help="Batches with replacement (i.i.d.)."),
    stratified: bool = typer.Option(False, help="Stratified batches."),
    save_log: Optional[str] = typer.Option(None, help="Write the run as a Theorem-1 log (.npz) for `align theorem1`."),
    log_every: int = typer.Option(1, help="Record Sigma every K steps in --save-log (and at the last step)."),
    empty_negatives: str = typer.Option("error", help="An anchor whose batch has no other-class sample (an empty "
                                        "NSCL denominator): 'error' (refused before any step) or 'exclude' (the "
                                        "anchor is skipped and counted)."),
    checkpoint: Optional[str] = typer.Option(None, help="Checkpoint .npz, written atomically after every chunk of "
                                             "steps; an existing one of the same run is continued (Ctrl-C keeps it)."),
    yes: bool = typer.Option(False, "--yes", help="Run even when the estimated time is above an hour."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Coupled CL/NSCL similarity descent: d_T against each proof link's bound, slack budget, CKA/RSA."""
    import contrastive_bounds.properties.cli._align_schedule as sched
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, check_run_inputs, make_problem
    from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent
    from contrastive_bounds.properties.cli._align_cost import refuse_costly, refuse_memory, simulate_bytes, simulate_seconds
    from contrastive_bounds.theory._domains import check_int

    # sizes first: Sigma_0 (m x m, m = 2n) is built before the run's own checks
    n = check_int("num_samples", num_samples, 2)
    check_int("batch_size", batch_size, 2)
    check_int("steps", steps, 1, 2**31 - 1)
    _check_exponent_fits(tau, eta, steps, batch_size)
    refuse_memory(simulate_bytes(n), f"--num-samples={n} (m = {2 * n} rows of Sigma)")
    refuse_costly(simulate_seconds(n, batch_size, steps), f"--num-samples={n}, --batch-size={batch_size}, "
                  f"--steps={steps}", yes)
    # output paths before any computation (a folder given for --save-log once lost a finished run)
    sched.check_save_log(save_log, log_every, steps, num_samples)
    if checkpoint is not None:
        output_file(checkpoint, "--checkpoint")
    sigma0, labels = make_problem(num_samples, num_classes, seed=seed)
    cfg = DescentConfig(batch_size=batch_size, steps=steps, tau=tau, step_size=eta, seed=seed, delta=delta,
                        anchors="both" if both_views else "first", coupled=coupled, symmetrize=symmetrize,
                        replace=replace, stratified=stratified, empty_negatives=empty_negatives,
                        schedule=sched.schedule_from_options(eta_schedule, eta_param, warmup_steps, warmup_start, eta_file))
    sched.check_config(check_run_inputs, sigma0, labels, cfg)  # before any output: bad input gives one line and exit 2
    if checkpoint is not None and os.path.exists(checkpoint):
        _check_descent_checkpoint(checkpoint)
    from contrastive_bounds.properties.cli._align_proxy import run_interruptible

    traj = log_every if save_log else None
    prog, cb = progress_bar("similarity descent", steps, json_out)
    res = run_interruptible(lambda **kw: run_similarity_descent(sigma0, labels, cfg, checkpoint=checkpoint,
                                                                trajectory_every=traj, **kw),
                            prog, cb, checkpoint)
    summary = _with_vacuity(res.summary())
    if save_log:
        summary["log"] = {"path": save_log, "records": sched.write_log(save_log, res)}
    if json_out:
        emit_json(summary)
        return
    table = Table(title=f"CL vs NSCL similarity descent (m={summary['m']}, B={batch_size}, T={steps}, tau={tau})")
    for col in ("quantity", "value", "log10 value", "slack (log10)", "holds at every step"):
        table.add_column(col)
    d_l10 = summary["d_T_log10"]
    table.add_row("measured d_T", f"{summary['d_T']:.6g}", f"{d_l10:.4f}" if d_l10 is not None else "n/a (d_T = 0)", "", "")
    for link, lv in summary["bounds_log10"].items():
        table.add_row(f"bound {link}", _fmt_value(lv), _fmt_log10(lv), _fmt_slack(summary["slack_log10"][link], summary),
                      "n/a (vacuous: infinite bound)" if lv == math.inf else str(summary["holds"][link]))
    table.add_row("L1 per step", "", "", "", str(summary["holds"]["L1_step"]))
    console.print(table)
    reason = f" ({summary['reason']})" if summary["reason"] else ""
    console.print(f"Delta = {_fmt_value(summary['delta_log10'])} (pi_max = {summary['pi_max']:.4g}, epsilon = "
                  f"{summary['epsilon']:.4g}); status: {summary['status']}{reason}")
    console.print(sched.schedule_line(summary))
    console.print(f"batch event (same-class fraction <= pi_max + epsilon at every step): {summary['batch_event']}")
    console.print(f"{_fmt_lower('CKA', summary['cka'], summary['cka_lower'], summary['cka_lower_vacuous'])} "
                  f"(rho = {summary['rho']:.4g}); "
                  f"{_fmt_lower('RSA', summary['rsa'], summary['rsa_lower'], summary['rsa_lower_vacuous'])} "
                  f"(r = {summary['r']:.4g})")
    if save_log:
        console.print(f"Theorem-1 log written to {save_log} ({summary['log']['records']} records): "
                      f"contrastive-bounds align theorem1 {save_log}")


def _check_descent_checkpoint(path: str) -> None:
    """Refuse, before the run, a --checkpoint file that is not a readable checkpoint of align simulate."""
    from contrastive_bounds.numerics.alignment._descent_run import read_checkpoint_arrays

    read_checkpoint_arrays(path)


def _check_exponent_fits(tau: float, eta: float, steps: int, batch_size: int) -> None:
    """Refuse a run whose Theorem-1 exponent S/(2 tau^2 B) (S = T eta) is beyond float64 even in log space.

    The run's link bounds are evaluated in float64 log space; below tau of about 1e-150 their exponent
    itself overflows. ``contrastive-bounds bound alignment.frobenius`` evaluates the bound exactly there.
    """
    if not (tau > 0 and math.isfinite(tau) and eta > 0 and math.isfinite(eta)):
        return  # the run's own checks name tau or eta
    log_exponent = math.log(steps * eta) - math.log(2 * batch_size) - 2 * math.log(tau)
    if log_exponent > math.log(1e300):
        raise ValueError(f"--tau={tau!r}: the Theorem-1 exponent S/(2 tau^2 B) = 10^{log_exponent / math.log(10):.4g} "
                         f"(S = --steps x --eta = {steps * eta:g}) is beyond float64 even in log space, so the run's "
                         "link bounds cannot be evaluated; choose a larger --tau, or evaluate the bound exactly with "
                         "`contrastive-bounds bound alignment.frobenius`")


# summary key of a corollary lower bound -> (registered bound that states it, its parameter, summary key)
_COROLLARIES = {"cka_lower": ("alignment.cka_lower", "rho", "rho"), "rsa_lower": ("alignment.rsa_lower", "r", "r")}


def _with_vacuity(summary: dict) -> dict:
    """``summary`` plus ``<key>_vacuous`` (the reason, or None) for each measured corollary lower bound.

    Vacuity is decided by the registered bound itself (``Bound.evaluate`` and its ``Vacuity``
    conditions, as ``contrastive-bounds bound alignment.cka_lower rho=...`` reports it), not re-derived
    here. The a-priori forms are vacuous when their value is <= 0 (rho_bar >= 1, or Delta infinite),
    which is ``alignment.cka_lower_apriori``'s condition; the reason names that bound. Existing keys
    keep their values, so readers of ``cka_lower`` etc. are unaffected.
    """
    from contrastive_bounds.theory._registry import get

    out = dict(summary)
    for key, (bound_name, param, value_key) in _COROLLARIES.items():
        res = get(bound_name).evaluate(**{param: out[value_key]})
        out[f"{key}_vacuous"] = res.reason if res.vacuous else None
        prior = out.get(f"{key}_prior")
        if prior is not None:
            out[f"{key}_prior_vacuous"] = (
                None if prior > 0 else
                f"a-priori bound (Theorem 1 in place of the measured {param}) is {prior:.4g} <= 0: "
                f"{param}_bar >= 1 or Delta infinite, no guarantee"
            )
    return out


def _fmt_lower(name: str, measured: float, value: float, vacuous: str | None) -> str:
    """``CKA = 0.912345 >= 0.5`` with the sign computed from the two numbers, or, for a vacuous bound, the
    measurement and the bound's value marked vacuous with the reason (never as a bound)."""
    if vacuous:
        return f"{name} = {measured:.6f} (corollary bound {value:.6f} is vacuous: {vacuous})"
    return compare_text(f"{name} =", measured, "", value, ".6f", weak=True)


def _fmt_value(log10_value: float) -> str:
    """A non-negative quantity given by its log10: plain when it fits a float, ``10^k`` when not."""
    if log10_value == -math.inf:
        return "0"
    if log10_value == math.inf:
        return "n/a (vacuous)"
    return f"{10.0 ** log10_value:.6g}" if log10_value < 300 else f"10^{log10_value:.4f}" if log10_value < 1e6 else f"10^({log10_value:.6g})"


def _fmt_log10(log10_value: float) -> str:
    if log10_value == -math.inf:
        return "n/a (bound = 0)"
    if log10_value == math.inf:
        return "n/a (vacuous)"
    return f"{log10_value:.4f}" if abs(log10_value) < 1e6 else f"{log10_value:.6g}"


def _fmt_slack(slack: float | None, summary: dict) -> str:
    if slack is not None and math.isfinite(slack):
        return f"{slack:.4f}" if abs(slack) < 1e6 else f"{slack:.6g}"
    return "n/a (vacuous)" if summary["status"] == "vacuous" else "n/a (d_T = 0)"


@align_app.command("train")
@command
def train(
    dataset: str = typer.Option("digits", help="Dataset; only 'digits' (scikit-learn, no download)."),
    num_classes: int = typer.Option(10, help="C in [2, 10]: classes 0..C-1."),
    tau: float = typer.Option(0.5, help="Temperature of CL, NSCL, SupCon."),
    epochs: int = typer.Option(30, help="Epochs."),
    batch_size: int = typer.Option(128, help="Batch size."),
    learning_rate: float = typer.Option(1e-3, help="Adam learning rate."),
    seed: int = typer.Option(0, help="Seed of init, split, batches and augmentations, in [0, 2^32 - 1]."),
    plot: Optional[str] = typer.Option(None, help="Write a PNG of the per-epoch metrics to this file."),
    yes: bool = typer.Option(False, "--yes", help="Run even when the estimated time is above an hour."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Train CL, NSCL, SupCon (SCL) and CE on digits under shared randomness; per-epoch CKA/RSA and loss gap."""
    from contrastive_bounds.numerics.alignment._training import TrainConfig, check_train_config, train_alignment

    if dataset != "digits":
        raise ValueError(f"dataset={dataset!r} is not available; choose 'digits'")
    cfg = TrainConfig(num_classes=num_classes, tau=tau, epochs=epochs, batch_size=batch_size,
                      learning_rate=learning_rate, seed=seed)
    check_train_config(cfg)  # before any output: bad input gives one line and exit 2
    from contrastive_bounds.properties.cli._align_cost import refuse_costly, train_seconds

    refuse_costly(train_seconds(epochs, batch_size), f"--epochs={epochs}, --batch-size={batch_size}", yes)
    if plot is not None:
        _check_plot_path(plot)
    prog, cb = progress_bar("training", epochs, json_out)
    if prog is not None:
        with prog:
            res = train_alignment(cfg, progress=cb)
    else:
        res = train_alignment(cfg)
    if plot is not None:
        _plot(res, plot)
    if json_out:
        out = res.to_dict()
        out["loss_gap_within_bound_every_epoch"] = all(h["loss_gap_cl_holds"] and h["loss_gap_nscl_holds"] for h in res.history)
        if plot is not None:
            out["plot"] = plot
        emit_json(out)
        return
    table = Table(title=f"digits, C={num_classes}, tau={tau}: CL vs other models (float32 training)")
    cols = ["epoch"] + [f"CKA_z {p}" for p in ("nscl", "supcon", "ce")] + [f"RSA {p}" for p in ("nscl", "supcon", "ce")] + \
        ["probe acc cl/nscl/scl/ce", "gap CL", "gap bound"]
    for col in cols:
        table.add_column(col)
    for h in res.history:
        table.add_row(
            str(h["epoch"]), *[f"{h['cka_z']['cl-' + p]:.3f}" for p in ("nscl", "supcon", "ce")],
            *[f"{h['rsa']['cl-' + p]:.3f}" for p in ("nscl", "supcon", "ce")],
            "/".join(f"{h['probe_accuracy'][m]:.2f}" for m in ("cl", "nscl", "supcon", "ce")),
            f"{h['loss_gap_cl']:.4f}", f"{h['loss_gap_bound']:.4f}",
        )
    console.print(table)
    last = res.history[-1]["cka_z"]
    order = sorted(("nscl", "supcon", "ce"), key=lambda p: -last["cl-" + p])
    console.print(f"measured order of CKA(CL, .) at the last epoch: {' > '.join(order)} (paper: nscl > ce > supcon)")


def _check_plot_path(path: str) -> None:
    """Refuse ``--plot`` before training unless it is a .png name in an existing writable folder
    (:func:`~._common.output_file`)."""
    output_file(path, "--plot", suffix=".png")


def _plot(res, path: str) -> None:
    from contrastive_bounds.numerics._filemode import write_atomically

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in res.history]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for p in ("nscl", "supcon", "ce"):
        axes[0].plot(epochs, [h["cka_z"]["cl-" + p] for h in res.history], label=f"CKA_z CL-{p}")
        axes[1].plot(epochs, [h["rsa"]["cl-" + p] for h in res.history], label=f"RSA CL-{p}")
    axes[0].set_title("CKA on cosine Grams of z")
    axes[1].set_title("RSA (Pearson, 1 - cosine)")
    axes[2].plot(epochs, [h["loss_gap_cl"] for h in res.history], label="L_DCL - L_NSCL (CL model)")
    axes[2].plot(epochs, [h["loss_gap_nscl"] for h in res.history], label="L_DCL - L_NSCL (NSCL model)")
    axes[2].plot(epochs, [h["loss_gap_bound"] for h in res.history], "k--", label="bound")
    axes[2].set_title("loss gap")
    for ax in axes:
        ax.set_xlabel("epoch")
        ax.legend(fontsize=8)
    fig.tight_layout()
    try:  # the mode open(path, "w") would give, not mkstemp's 0600
        write_atomically(path, lambda fh: fig.savefig(fh, format="png", dpi=100), prefix=".plot-", suffix=".png")
    except OSError as exc:
        raise ValueError(f"--plot={path!r}: writing the figure failed ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)


def register(app: typer.Typer) -> None:
    """Add the ``align`` sub-app (``simulate``, ``train``, ``proxy``, ``batch-scaling``, ``compare``) to ``app``."""
    import contrastive_bounds.properties.cli._align_compare as align_compare
    import contrastive_bounds.properties.cli._align_proxy as align_proxy
    import contrastive_bounds.properties.cli._align_theorem1 as align_theorem1

    align_proxy.register(align_app)
    align_compare.register(align_app)
    align_theorem1.register(align_app)
    app.add_typer(align_app, name="align")
