"""Command ``landscape``: minima, transition states and H* of a landscape by its transition network (A9).

Parse, call the library, print: the options are checked by the library's argument rules before JAX is
imported (:mod:`.landscape_options`), the search is
:func:`~contrastive_bounds.numerics.landscapes.network.landscape_network`, the output its result.

Without ``--out`` every landscape and set of search settings gets its own folder under
``contrastive-bounds-landscape/`` (:func:`default_out`: a readable name plus a hash of the landscape's
fingerprint and the settings; InfoNCE pairs in canonical order, so ``--pairs 2-3,0-1`` is the landscape of
``--pairs 0-1,2-3``), so exploring one landscape after another needs no option; running the same command
again continues the search saved there, or, when it is finished, reports it. An explicit ``--out`` that
already holds a search is never replaced: ``--resume`` continues it. Every run says where its search went.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from contrastive_bounds.numerics.landscapes.network.serial import STATE_FILE
from contrastive_bounds.numerics.landscapes.network.constants import HESSFREE_THRESHOLD
from contrastive_bounds.numerics.landscapes.network.state import PREVIOUS_SINGLE_ENDED_MODES, SearchSettings, at_scale, \
    default_curvature
from contrastive_bounds.theory._domains import MAX_SEED, check_int, check_real

from contrastive_bounds.properties.cli._common import (
    CLIError,
    command,
    emit_json,
    current_context,
    err_console,
    option_names,
)
from contrastive_bounds.properties.cli.landscape_options import LandscapeOptions, check_basin_margin, parse_basin_margin
from contrastive_bounds.properties.cli._landscape_print import print_network

#: the registry's landscapes (for the help; kept equal to ``numerics.landscapes.registry.list_landscapes`` by a
#: test, so listing them needs no JAX)
BUILTIN_LANDSCAPES = ("barrier-H", "double-well", "fourier", "infonce", "infonce-toy", "infonce-toy-soft", "thomson",
                      "triple-well", "vmf", "vmf-mixture")
DEFAULT_OUT = "contrastive-bounds-landscape"
_D = SearchSettings()  # the command's defaults are the search's ...
_S = SearchSettings.at_scale()  # ... and above N·d = HESSFREE_THRESHOLD the budgeted search's
_SMALL_KEYS = ("starts", "seed", "structured_starts", "max_hop_rounds", "patience", "closure", "pair_distance",
               "max_ts_rounds", "max_minima", "max_searches")
CURVATURES = ("auto", "dense", "hessfree")
#: the search's settings named otherwise than the command's options (a resume refusal names the settings)
_ALIASES = {"max_hop_rounds": "hop_rounds", "max_ts_rounds": "ts_rounds"}
EXIT_INTERRUPTED = 130
#: Refusal threshold of :func:`search_cost` (about an hour of one core at 3e7 pair terms a second).
MAX_SEARCH_COST = 1e11
#: L-BFGS iterations a minimisation may take (the minimiser's budget), used by :func:`search_cost`.
ITERATIONS_PER_START = 200


#: ``--curvature dense`` above this ``N·d`` needs ``--yes``: every verified point forms a dense ``(N·d)²`` float64 Hessian
#: (32 MiB here) and its eigendecomposition (``O((N·d)³)``), thousands of times a search; ``auto`` goes Hessian-free
#: from ``N·d = HESSFREE_THRESHOLD`` on.
DENSE_MAX_COORDINATES = 2048


def check_dense_size(curvature: str, num_points: int, dim: int, yes: bool) -> None:
    """Refuse ``--curvature dense`` above ``N·d = DENSE_MAX_COORDINATES`` without ``--yes``, stating the memory one
    dense Hessian needs and the limit.

    Raises:
      CLIError: naming ``--curvature``.
    """
    nd = num_points * dim
    if curvature != "dense" or nd <= DENSE_MAX_COORDINATES or yes:
        return
    need, limit = 8.0 * nd * nd, 8.0 * DENSE_MAX_COORDINATES ** 2
    raise CLIError(f"--curvature=dense at N·d = {num_points}·{dim} = {nd}: each dense Hessian is (N·d)^2 float64 = "
                   f"{_bytes(need)} (plus its eigendecomposition), above the limit N·d <= {DENSE_MAX_COORDINATES} "
                   f"({_bytes(limit)}); use --curvature auto or hessfree (Hessian-vector products, no (N·d)^2 array), "
                   "or add --yes to form them anyway")


def _bytes(x: float) -> str:
    return f"{x / 2**30:.3g} GiB" if x >= 2**30 else f"{x / 2**20:.3g} MiB"


def search_cost(num_points: int, dim: int, starts: int, hop_rounds: int, structured: int = 0) -> float:
    """Pair terms a search evaluates at the most: minimisations x iterations x N² d.

    Each potential evaluation of N points on S^{d-1} (InfoNCE, Thomson) costs about N² d; a search minimises
    ``starts`` random starts, up to ``structured`` structured starts and up to ``starts`` per basin-hopping
    round, each for up to :data:`ITERATIONS_PER_START` iterations (transition-state searches add a
    comparable amount, bounded by the closure's budget).
    """
    return (float(starts) * (1 + hop_rounds) + float(structured)) * ITERATIONS_PER_START * float(num_points) ** 2 * dim


def default_out(land: Any, settings: dict[str, Any], curvature: str = "auto") -> Path:
    """The folder of a search without ``--out``: ``contrastive-bounds-landscape/<name>-<hash>``.

    ``<name>`` says what the landscape is (``infonce-N8-d3-tau0.1``, ``thomson-N12-d3``, ``double-well``);
    ``<hash>`` (12 hex digits of SHA-256) covers the landscape's fingerprint — parameters, pairs, radius,
    a probe of the potential — and every search setting, and a ``curvature`` other than the size's default
    (``auto`` and the default name hash as before), so two different landscapes, settings or Hessian providers never
    share a folder and the same command always finds its own search again.
    """
    p = land.params
    if land.name == "infonce":
        name = (f"infonce-N{land.num_points}-d{land.dim}-tau{p['tau']:g}" + ("-coupled" if p.get("coupled") else "")
                + (f"-R{land.radius:g}" if land.radius != 1.0 else ""))
    elif land.name == "thomson":
        name = f"thomson-N{land.num_points}-d{land.dim}"
    else:
        name = land.name + (f"-R{land.radius:g}" if land.radius != 1.0 else "")
    full = SearchSettings(**settings).to_dict()
    if full["single_ended_modes"] is None:  # hashed as before closure recorded it as unused: old folders are found again
        full["single_ended_modes"] = PREVIOUS_SINGLE_ENDED_MODES
    what = {"landscape": land.fingerprint(), "settings": full}
    if curvature not in ("auto", default_curvature(land.num_points, land.dim)):
        what["curvature"] = curvature
    digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return Path(DEFAULT_OUT) / f"{name}-{digest}"


def check_out(text: str | Path) -> Path:
    """``--out``: an existing folder, or a new one whose parent folder exists (only the last folder of the path is
    created, as ``anneal --checkpoint`` creates no folder: a typo in a parent is refused, not built).

    Raises:
      CLIError: naming ``--out`` and echoing what was typed: empty or blank, the working folder, an existing file,
        or a missing parent folder.
    """
    if not str(text).strip() or Path(text) == Path("."):
        raise CLIError(f"--out={str(text)!r} is empty or the working folder itself: give a folder of its own to save "
                       "the search in (e.g. --out n4-search)")
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out={str(out)!r} is an existing file, not a folder")
    if not out.exists() and not out.parent.is_dir():
        raise CLIError(f"--out={str(out)!r}: its parent folder {str(out.parent)!r} does not exist (create it first; "
                       "--out creates only the last folder of the path)")
    return out


def landscape(
    spec: str = typer.Argument(..., help=f"infonce, thomson, another built-in ({', '.join(BUILTIN_LANDSCAPES)}) or a Fourier file"),
    params: Optional[list[str]] = typer.Argument(None, help="parameters of a built-in landscape, key=value"),
    points: Optional[int] = typer.Option(None, "--points", help="N: infonce (in [3, 1000000], default 8), thomson (in [2, 1000000], default 12)"),
    dim: Optional[int] = typer.Option(None, "--dim", help="ambient dimension d in [2, 16384] (points on S^{d-1}; default 3)"),
    tau: Optional[float] = typer.Option(None, "--tau", help="InfoNCE temperature in [1e-4, 1e4] (default 0.5)"),
    pairs: Optional[str] = typer.Option(None, "--pairs", help="positive pairs i-j,k-l (default 0-1,2-3,...)"),
    coupled: bool = typer.Option(False, "--coupled", help="InfoNCE with the positive in the denominator"),
    radius: float = typer.Option(1.0, "--radius", help="sphere radius R > 0 (InfoNCE: tau -> tau/R^2)"),
    starts: Optional[int] = typer.Option(None, "--starts", help=f"random starts K >= 1 (default {_D.starts}; "
                                         f"{_S.starts} above N·d = {HESSFREE_THRESHOLD})"),
    structured_starts: Optional[int] = typer.Option(None, "--structured-starts", help="InfoNCE: budget of structured templates "
                                                    f"(pair states on spherical codes; default {_D.structured_starts}; above "
                                                    f"N·d = {HESSFREE_THRESHOLD} template families, default "
                                                    f"{_S.structured_starts}) in [0, 1000000]; 0 switches them off"),
    seed: int = typer.Option(0, "--seed", help="random seed, in [0, 2^32 - 1]"),
    hop_rounds: Optional[int] = typer.Option(None, "--hop-rounds", help=f"basin-hopping rounds at most (>= 0; default "
                                             f"{_D.max_hop_rounds}, {_S.max_hop_rounds} at scale)"),
    patience: Optional[int] = typer.Option(None, "--patience", help="stop hopping after this many rounds without a new minimum "
                                           f"(>= 1; default {_D.patience}, {_S.patience} at scale)"),
    closure: bool = typer.Option(_D.closure, "--closure/--no-closure", help="follow every Hessian mode of every minimum until "
                                 "nothing is left to explore (--no-closure: the previous, cheaper search; never complete)"),
    pair_distance: Optional[float] = typer.Option(None, "--pair-distance", help="band searches between every pair of minima within "
                                                  f"this aligned RMS distance per point, in [0, 2] (default {_D.pair_distance:g}, "
                                                  f"{_S.pair_distance:g} at scale)"),
    ts_rounds: Optional[int] = typer.Option(None, "--ts-rounds", help="transition-state (closure) rounds at most (>= 1; default "
                                            f"{_D.max_ts_rounds}, {_S.max_ts_rounds} at scale)"),
    trap_modes: Optional[int] = typer.Option(None, "--trap-modes", help="follow the k softest Hessian modes of each explored "
                                             "minimum (both signs) instead of every mode; per-trap closure is then reported "
                                             "as partial where k is below a minimum's modes (a k that cuts none follows "
                                             f"every mode and the pairs, as 0) (>= 0; 0: every mode; default 0, "
                                             f"{_S.trap_modes} at scale)"),
    max_explored: Optional[int] = typer.Option(None, "--max-explored", help="explore at most this many minima (non-global "
                                               f"first, lowest first; >= 0; 0: all; default 0, {_S.max_explored} at scale)"),
    basin_margin: Optional[str] = typer.Option(None, "--basin-margin", help="Hessian-free searches from a minimum stop once "
                                               "V falls this far below it (they left its basin); a number >= 0 or 'none' "
                                               f"(run every search to its end; default none, {_S.basin_margin:g} at scale)"),
    curvature: str = typer.Option("auto", "--curvature", help="Hessians: dense (exact, small N·d), hessfree (Hessian-vector "
                                  f"products, Lanczos) or auto (dense up to N·d = {HESSFREE_THRESHOLD}, hessfree above; a "
                                  "resumed search keeps its own)"),
    agree_seed: Optional[int] = typer.Option(None, "--agree-seed", help="run the same search with this second seed too (in "
                                             "[0, 2^32 - 1], not --seed) and report how the two agree (minima found by "
                                             "both, barriers, H*)"),
    max_minima: int = typer.Option(_D.max_minima, "--max-minima", help="budget: stop exploring beyond this many minima (>= 1)"),
    max_searches: int = typer.Option(_D.max_searches, "--max-searches", help="budget: single-ended plus band searches (>= 0)"),
    out: Optional[str] = typer.Option(None, "--out", help=f"folder for {STATE_FILE} (saved as found) and the PNG; "
                                       "created if missing, but its parent folder must exist (default: "
                                       f"{DEFAULT_OUT}/<landscape>-<hash of landscape and settings>)"),
    resume: bool = typer.Option(False, "--resume", help=f"continue the search saved in --out/{STATE_FILE}"),
    yes: bool = typer.Option(False, "--yes", help=f"run even beyond {MAX_SEARCH_COST:.0e} pair terms (starts x "
                             f"(1 + hop rounds) x {ITERATIONS_PER_START} iterations x N^2 d), or with --curvature dense "
                             f"above N·d = {DENSE_MAX_COORDINATES} (a dense Hessian of (N·d)^2 float64 per point)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output on stdout"),
) -> None:
    """Minima (with multiplicities), verified transition states, H* and Catoni's D by a transition network.

    By default the search runs to closure (every Hessian mode of every minimum followed, both signs,
    until nothing is left to explore) within the budget --ts-rounds / --max-minima / --max-searches,
    and says plainly when the budget ran out first. Results are saved after every batch, by default in
    a folder of their own per landscape and settings (printed at the end); the same command again
    continues or reports that search, and --resume continues one in an explicit --out. "complete" and
    "barrier-free" are printed only for a closed network (the effort is printed with them).

    Above N·d = 192 the search is Hessian-free and budgeted by default (a few random starts, template families
    with the closed-form minimum, 2 hop rounds, the 8 softest modes of at most 2 minima): it says which
    minima were explored along how many of their modes, and that H* is a value over them ("open").
    """
    if curvature not in CURVATURES:
        raise CLIError(f"--curvature={curvature!r} must be one of {', '.join(CURVATURES)}")
    folder_given = check_out(out) if out is not None else None
    if folder_given is not None and (folder_given / STATE_FILE).exists() and not resume:  # before the potential is built
        raise CLIError(f"--out={str(folder_given)!r} already holds a search ({STATE_FILE}); add --resume to continue it, "
                       "or choose another --out (delete the folder to start afresh)")
    options = LandscapeOptions(spec, tuple(params or ()), points, dim, tau, pairs, coupled, radius)
    recipe = options.recipe()  # the library's argument rules, before JAX is imported
    big = recipe.arguments is not None and at_scale(recipe.arguments.num_points, recipe.arguments.dim)
    base = SearchSettings.at_scale() if big else SearchSettings()  # the defaults for this size
    given = dict(starts=starts, structured_starts=structured_starts, max_hop_rounds=hop_rounds, patience=patience,
                 pair_distance=pair_distance, max_ts_rounds=ts_rounds, trap_modes=trap_modes, max_explored=max_explored)
    v = {k: (getattr(base, k) if x is None else x) for k, x in given.items()}
    settings = dict(base.to_dict(), starts=check_int("--starts", v["starts"], 1, None),
                    seed=check_int("--seed", seed, 0, MAX_SEED),
                    structured_starts=check_int("--structured-starts", v["structured_starts"], 0, 1_000_000),
                    max_hop_rounds=check_int("--hop-rounds", v["max_hop_rounds"], 0, None),
                    patience=check_int("--patience", v["patience"], 1, None), closure=bool(closure),
                    pair_distance=check_real("--pair-distance", v["pair_distance"], 0.0, 2.0, lo_closed=True, hi_closed=True),
                    max_ts_rounds=check_int("--ts-rounds", v["max_ts_rounds"], 1, None),
                    max_minima=check_int("--max-minima", max_minima, 1, None),
                    max_searches=check_int("--max-searches", max_searches, 0, None),
                    trap_modes=check_int("--trap-modes", v["trap_modes"], 0, None),
                    max_explored=check_int("--max-explored", v["max_explored"], 0, None),
                    basin_margin=base.basin_margin if basin_margin is None else parse_basin_margin(basin_margin))
    if not big:  # the settings of a small search stay the ones it always had (its default folder's hash too)
        settings = {k: x for k, x in settings.items() if k in _SMALL_KEYS or x != getattr(_D, k)}
    if agree_seed is not None:
        check_int("--agree-seed", agree_seed, 0, MAX_SEED)
        if agree_seed == settings["seed"]:
            raise CLIError(f"--agree-seed={agree_seed} must differ from --seed={settings['seed']}")
    if recipe.arguments is not None:  # before building the potential (its construction evaluates it)
        n, d = recipe.arguments.num_points, recipe.arguments.dim
        check_dense_size(curvature, n, d, yes)
        cost = search_cost(n, d, settings["starts"], settings["max_hop_rounds"],
                           settings["structured_starts"] if spec == "infonce" else 0)
        if cost > MAX_SEARCH_COST and not yes:
            raise CLIError(f"--points={n}, --dim={d}, --starts={settings['starts']}, --hop-rounds="
                           f"{settings['max_hop_rounds']}: up to {cost:.1e} pair terms, above {MAX_SEARCH_COST:.0e} "
                           "(hours or more); choose fewer points or starts, or add --yes")
    try:
        land = options.spec()  # compiles and probes the potential
    except KeyboardInterrupt:
        err_console.print("interrupted while the potential was being built: nothing was searched or saved yet",
                          markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    n = land.num_points
    check_dense_size(curvature, n, land.dim, yes)
    check_basin_margin(None if basin_margin is None else settings.get("basin_margin"), curvature, n, land.dim)
    explicit = folder_given is not None
    folder = folder_given if folder_given is not None else default_out(land, settings, curvature)
    if not explicit:  # the default folder's parent (contrastive-bounds-landscape/) is the command's own: create it
        folder.parent.mkdir(exist_ok=True)
    saved = (folder / STATE_FILE).exists()
    if not explicit and resume and not saved:
        raise CLIError(f"--resume: nothing to resume for this landscape and these settings (no {STATE_FILE} in "
                       f"{str(folder)!r}); run without --resume to start the search")
    resume = resume or (not explicit and saved)  # the default folder is this search's own: continue it
    if not explicit and saved:
        verb = "reporting the finished" if _finished(folder) else "continuing the"
        err_console.print(f"{verb} search saved in {folder} (same landscape and settings; delete that folder to search "
                          "afresh)", markup=False, highlight=False)
    if spec == "infonce" and pairs is None and n % 2:
        err_console.print(f"note: --points={n} is odd: the default pairs are "
                          f"{', '.join(f'{i}-{j}' for i, j in land.params['pairs'])}; point {n - 1} is a negative only "
                          "(give --pairs to choose)", markup=False, highlight=False)
    from contrastive_bounds.numerics.landscapes.network.search import landscape_network

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
                  TimeElapsedColumn(), console=err_console, transient=True) as bar:
        task = bar.add_task("search", total=None, info="")

        announce = [explicit and resume and saved]  # said once the saved search was accepted (its first progress)

        last = [""]  # where the search stood at its last progress report, for the interrupt message

        def progress(phase: str, done: int, total: int | None, info: str) -> None:
            last[0] = f"{phase} {done}" + (f"/{total}" if total else "") + (f", {info}" if info else "")
            if announce[0]:
                announce[0] = False
                bar.console.print(f"resuming the search saved in {folder / STATE_FILE}", markup=False, highlight=False)
            bar.update(task, description=phase, completed=done, total=total, info=info)

        try:
            chosen = None if curvature == "auto" else curvature
            res = landscape_network(land, out=folder, resume=resume, progress=progress, curvature=chosen, **settings)
            if agree_seed is not None:
                other = {**settings, "seed": agree_seed}
                second = folder.parent / f"{folder.name}-seed{agree_seed}"
                bar.update(task, description=f"second seed {agree_seed}", completed=0, total=None, info="")
                res2 = landscape_network(land, out=second, resume=(second / STATE_FILE).exists(), progress=progress,
                                         curvature=res.curvature, **other)
                from contrastive_bounds.numerics.landscapes.network.agreement import seed_agreement

                res.agreement = seed_agreement(res, res2, land.symmetry, gram_tol=res2.settings["gram_tol"])
        except ValueError as exc:
            if str(exc).startswith("resume refused"):
                raise ValueError(_refusal_in_options(str(exc))) from None
            raise
        except KeyboardInterrupt:
            bar.stop()
            if (folder / STATE_FILE).exists():
                again = "rerun the same command" + (" with --resume" if explicit else "")
                stood = f" (last progress: {last[0]})" if last[0] else ""
                msg = (f"interrupted{stood}: everything found so far is saved in {folder / STATE_FILE}; {again} to "
                       "continue")
            else:
                msg = "interrupted before the first batch of minimisations finished: nothing was saved yet"
            err_console.print(msg, markup=False, highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED)
    where = f"search saved in {folder} ({STATE_FILE}" + (", disconnectivity.png" if res.disconnectivity_png else "") + ")"
    if as_json:
        emit_json(res.to_dict() | {"saved_in": str(folder)})
    else:
        print_network(res)
    err_console.print(where, markup=False, highlight=False)


def _refusal_in_options(text: str) -> str:
    """A resume refusal (``network.serial.check_resume``) with each differing setting or landscape field named as this
    command's option (``starts: saved 8`` -> ``--starts: saved 8``; settings without an option keep their names) and
    what to do about it."""
    names = {**option_names(current_context(), _ALIASES), "num_points": "--points",
             "landscape num_points": "--points", "landscape dim": "--dim", "landscape radius": "--radius"}
    other = re.search(r"landscape name: saved '([^']*)'", text)
    if other:  # another landscape altogether: its parameters are not this command's to match
        return (text + f"; continue it with `contrastive-bounds landscape {other.group(1)} ... --out <that folder> "
                "--resume` (its saved options), or give another --out to search this landscape")
    text = re.sub(r"(in |; )([a-z][a-z_ ]*): saved", lambda m: f"{m.group(1)}{names.get(m.group(2), m.group(2))}: saved",
                  text)
    return text + ("; rerun with the saved values to continue it, or give another --out (or delete that folder) to "
                   "search afresh")


def _finished(folder: Path) -> bool:
    """The search saved in ``folder`` ran to its end (an unreadable one is left to the search to refuse)."""
    from contrastive_bounds.numerics.landscapes.network.serial import read_state

    try:
        return read_state(folder)[0].finished
    except (OSError, ValueError):
        return False


def register(app: typer.Typer) -> None:
    """Add ``landscape`` to ``app``."""
    app.command("landscape")(command(landscape, aliases=_ALIASES))
