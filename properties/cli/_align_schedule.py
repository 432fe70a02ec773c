"""Step-size schedules and Theorem-1 logs on the command line of ``align simulate`` (docs/theorems.md B4).

``--eta-schedule FORM --eta-param key=value ... --warmup-steps W --warmup-start W0`` or
``--eta-file FILE`` become a :class:`~contrastive_bounds.numerics.alignment.StepSizeSchedule`
(eta_t = ``--eta`` * f(t)); ``--save-log FILE.npz --log-every K`` writes the run as a Theorem-1 log
for ``align theorem1``. Messages name the options as typed.
"""

from __future__ import annotations

import math
import re
from typing import Any, Optional

from contrastive_bounds.properties.cli._common import CLIError, output_file, parse_assignments, parse_number

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

_OPTION_NAMES = {"form": "--eta-schedule", "warmup_steps": "--warmup-steps", "warmup_start": "--warmup-start",
                 "step_size": "--eta", "steps": "--steps"}


def _cli_message(msg: str) -> str:
    """A schedule error with Python names rewritten to the options typed (``gamma=`` -> ``--eta-param gamma=``)."""
    from contrastive_bounds.numerics.alignment._step_schedule import SCHEDULE_PARAMETERS

    params = {p for req, opt in SCHEDULE_PARAMETERS.values() for p in (*req, *opt)}

    def repl(match: re.Match) -> str:
        name = match.group(1)
        if name in _OPTION_NAMES:
            return f"{_OPTION_NAMES[name]}="
        return f"--eta-param {name}=" if name in params else match.group(0)

    if " is not a parameter of the " in msg:  # an unknown --eta-param name: say it came from --eta-param
        return "--eta-param " + msg
    return re.sub(r"(?<![\w-])([a-z_0-9]+)=", repl, msg)


def schedule_from_options(eta_schedule: str, eta_param: Optional[list[str]], warmup_steps: int, warmup_start: float,
                          eta_file: Optional[str]) -> Any:
    """The schedule the options describe, or None for the plain constant step (today's runs, bit for bit).

    Raises:
      CLIError: naming the option: an unknown form or parameter, a value outside its domain, a
        malformed ``key=value``, ``--eta-file`` combined with a form, or an unreadable file.
    """
    from contrastive_bounds.numerics.alignment._step_schedule import StepSizeSchedule
    from contrastive_bounds.numerics.alignment._theorem1_log import load_array_file

    from contrastive_bounds.theory._domains import check_real

    try:  # checked whether or not a warm-up is asked for: a value outside its range is never silently ignored
        check_real("--warmup-start", warmup_start, 0.0, 1.0, lo_closed=True, hi_closed=True)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if eta_file is not None:
        if eta_schedule not in ("constant", "array") or eta_param or warmup_steps:
            raise CLIError("--eta-file gives the whole step-size sequence; it cannot be combined with --eta-schedule, "
                           "--eta-param or --warmup-steps")
        values = load_array_file(eta_file, "--eta-file", key=None)
        try:
            return StepSizeSchedule.from_array(values)
        except ValueError as exc:
            raise CLIError(f"--eta-file={eta_file!r}: {exc}") from None
    if eta_schedule == "array":
        raise CLIError("--eta-schedule array needs --eta-file FILE (.npy/.npz of the T step sizes)")
    params = {k: parse_number(f"--eta-param {k}", v) for k, v in parse_assignments(eta_param).items()}
    if eta_schedule == "constant" and not params and not warmup_steps:
        return None
    try:
        return StepSizeSchedule(eta_schedule, params, warmup_steps=warmup_steps, warmup_start=warmup_start)
    except ValueError as exc:
        raise CLIError(_cli_message(str(exc))) from None


def check_config(check, *args: Any) -> None:
    """Run ``check(*args)`` (the run's input validation), naming the options in a schedule's error."""
    try:
        check(*args)
    except ValueError as exc:
        msg = str(exc)
        if re.match(r"(warmup_steps|decay_steps|step_sizes|form)[=\[ ]", msg):
            raise CLIError(_cli_message(msg)) from None
        raise


def check_save_log(path: Optional[str], log_every: int, steps: int, num_samples: int) -> None:
    """Refuse a ``--save-log`` path or ``--log-every`` before the run: a folder, a name not ending in .npz, a
    folder that cannot be created or written (:func:`~._common.output_file`), K outside [1, steps], or a
    trajectory larger than half the free memory."""
    if path is None:
        return
    from contrastive_bounds.numerics.alignment._sgd import available_memory_bytes

    output_file(path, "--save-log", suffix=".npz")
    if not 1 <= log_every <= steps:
        raise CLIError(f"--log-every={log_every} must be in [1, --steps={steps}]")
    m = 2 * num_samples
    need = 2 * (steps // log_every + 2) * m * m * 8
    have = available_memory_bytes()
    if need > have // 2:
        raise CLIError(f"--save-log keeps {steps // log_every + 2} records of two {m} x {m} matrices "
                       f"({need / 2**30:.2f} GiB), more than half the free memory ({have / 2**30:.2f} GiB): "
                       "raise --log-every or lower --num-samples")


def write_log(path: str, result: Any) -> int:
    """Write ``result`` (a run with a trajectory) as a Theorem-1 log; returns the number of records."""
    from contrastive_bounds.numerics.alignment._theorem1_log_io import theorem1_log_arrays, write_theorem1_log

    log = write_theorem1_log(path, theorem1_log_arrays(result))
    return int(log.record_steps.size)


def schedule_line(summary: dict) -> str:
    """``step sizes: cosine (final_fraction=0.1); S = sum eta_t = 123.4, eta_t in [0.01, 1]`` for the text output."""
    from contrastive_bounds.numerics.alignment._step_schedule import StepSizeSchedule

    d = summary["step_sizes"]
    if d["form"] == "array":
        what = f"array of {d['length']} values (times --eta = {summary['step_size']:g})"
    else:
        what = StepSizeSchedule(d["form"], d["params"], warmup_steps=d["warmup_steps"],
                                warmup_start=d["warmup_start"]).describe() + f", peak --eta = {summary['step_size']:g}"
    s = summary["eta_sum"]
    return (f"step sizes: {what}; S = sum eta_t = {s:.6g}" + ("" if math.isfinite(s) else " (overflow)")
            + f", eta_t in [{summary['eta_min']:.6g}, {summary['eta_max']:.6g}]")
