"""Optuna behind a small JSON-line protocol, for the campaign runner (src/main/campaign/optuna-client.ts).

Each request is one line `{"id": int, "method": str, "params": {...}}`; each answer one line
`{"id": ..., "result": ...}` or `{"id": ..., "error": {"type", "code", "message"}}`. Requests are
answered in order; bad input gets an error and the loop goes on; EOF on stdin ends the process.

The study lives in an SQLite file (Optuna's RDB storage), so a campaign survives a restart:
`open` loads it when it exists (refusing a changed search space), `recover` fails the trials a
dead runner left RUNNING and enqueues their parameters again so they re-run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, TextIO

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState

optuna.logging.set_verbosity(optuna.logging.WARNING)

STATES = {
    TrialState.RUNNING: "running",
    TrialState.COMPLETE: "complete",
    TrialState.PRUNED: "pruned",
    TrialState.FAIL: "fail",
    TrialState.WAITING: "waiting",
}
TELL_STATES = {"complete": TrialState.COMPLETE, "pruned": TrialState.PRUNED, "fail": TrialState.FAIL}


class ServiceError(Exception):
    def __init__(self, type: str, code: str, message: str) -> None:
        super().__init__(message)
        self.type, self.code, self.message = type, code, message

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "code": self.code, "message": self.message}


def invalid(message: str, code: str = "invalid_params") -> ServiceError:
    return ServiceError("invalid_params", code, message)


def _get(params: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if key not in params or params[key] is None:
        if default is ...:
            raise invalid(f"{key}: required")
        return default
    value = params[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise invalid(f"{key}: expected {kind}, got a boolean")
    if not isinstance(value, kind):
        raise invalid(f"{key}: expected {kind}, got {type(value).__name__}")
    return value


def distribution(name: str, spec: Any) -> BaseDistribution:
    """One search-space entry: {type: float|int, low, high, log?, step?} or {type: categorical, choices}."""
    if not isinstance(spec, dict):
        raise invalid(f"space.{name}: must be an object")
    kind = spec.get("type")
    if kind == "categorical":
        choices = spec.get("choices")
        if not isinstance(choices, list) or not choices:
            raise invalid(f"space.{name}.choices: a non-empty list")
        if not all(c is None or isinstance(c, (bool, int, float, str)) for c in choices):
            raise invalid(f"space.{name}.choices: only null, booleans, numbers and strings")
        return CategoricalDistribution(choices)
    if kind not in ("float", "int"):
        raise invalid(f"space.{name}.type: float, int or categorical")
    low, high = spec.get("low"), spec.get("high")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (low, high)):
        raise invalid(f"space.{name}: low and high must be numbers")
    log, step = bool(spec.get("log", False)), spec.get("step")
    try:
        if kind == "float":
            return FloatDistribution(float(low), float(high), log=log, step=None if step is None else float(step))
        return IntDistribution(int(low), int(high), log=log, step=1 if step is None else int(step))
    except ValueError as exc:
        raise invalid(f"space.{name}: {exc}") from exc


class AskTellGridSampler(optuna.samplers.GridSampler):
    """Optuna's grid sampler without its stop: GridSampler.after_trial calls study.stop() once the grid is
    used up, which only works inside study.optimize() and raises under ask/tell. The runner stops by the
    grid's size instead."""

    def after_trial(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, state: TrialState, values: Any) -> None:
        return None


def make_sampler(spec: dict[str, Any], grid: dict[str, list[Any]] | None) -> optuna.samplers.BaseSampler:
    kind = spec.get("type", "tpe")
    seed = spec.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise invalid("sampler.seed: an integer")
    if kind == "tpe":
        startup = spec.get("startupTrials", 10)
        # constant_liar: parallel trials in flight are not proposed twice.
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=int(startup), constant_liar=True)
    if kind == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if kind == "grid":
        if not grid:
            raise invalid("grid: the grid sampler needs the values of every parameter")
        return AskTellGridSampler(grid, seed=seed)
    raise invalid("sampler.type: tpe, random or grid")


def make_pruner(spec: dict[str, Any]) -> optuna.pruners.BasePruner:
    kind = spec.get("type", "none")
    if kind == "none":
        return optuna.pruners.NopPruner()
    min_resource = spec.get("minResource", 1)
    reduction = spec.get("reductionFactor", 3)
    if kind == "median":
        return optuna.pruners.MedianPruner(
            n_startup_trials=int(spec.get("startupTrials", 2)), n_warmup_steps=int(spec.get("warmupSteps", 0))
        )
    if kind == "successive_halving":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=min_resource, reduction_factor=reduction)
    if kind == "hyperband":
        max_resource = spec.get("maxResource", "auto")
        return optuna.pruners.HyperbandPruner(
            min_resource=int(min_resource), max_resource=max_resource, reduction_factor=reduction
        )
    raise invalid("pruner.type: none, median, successive_halving or hyperband")


def _finite(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise invalid(f"{field}: a finite number")
    return float(value)


def trial_json(t: optuna.trial.FrozenTrial) -> dict[str, Any]:
    def stamp(d: Any) -> float | None:
        return None if d is None else d.timestamp() * 1000

    return {
        "number": t.number,
        "state": STATES.get(t.state, str(t.state)),
        "params": t.params,
        "value": t.value,
        "intermediate": sorted([int(k), v] for k, v in t.intermediate_values.items()),
        "attrs": t.user_attrs,
        "start": stamp(t.datetime_start),
        "complete": stamp(t.datetime_complete),
    }


class Service:
    def __init__(self) -> None:
        self.study: optuna.Study | None = None
        self.space: dict[str, BaseDistribution] = {}
        self.running: dict[int, optuna.Trial] = {}
        self.methods: dict[str, Callable[[dict[str, Any]], Any]] = {
            "open": self.open,
            "ask": self.ask,
            "report": self.report,
            "tell": self.tell,
            "enqueue": self.enqueue,
            "trials": self.trials,
            "recover": self.recover,
            "importance": self.importance,
            "ping": lambda _p: {"optuna": optuna.__version__},
        }

    def _study(self) -> optuna.Study:
        if self.study is None:
            raise ServiceError("state", "not_open", "no study is open; call `open` first")
        return self.study

    def open(self, p: dict[str, Any]) -> dict[str, Any]:
        storage = _get(p, "storage", str)
        name = _get(p, "studyName", str)
        direction = _get(p, "direction", str, "maximize")
        if direction not in ("maximize", "minimize"):
            raise invalid("direction: maximize or minimize")
        raw_space = _get(p, "space", dict)
        self.space = {k: distribution(k, v) for k, v in raw_space.items()}
        grid = p.get("grid")
        if grid is not None and not (isinstance(grid, dict) and all(isinstance(v, list) and v for v in grid.values())):
            raise invalid("grid: an object of non-empty value lists")
        sampler = make_sampler(_get(p, "sampler", dict, {}), grid)
        pruner = make_pruner(_get(p, "pruner", dict, {}))
        fingerprint = json.dumps({"space": raw_space, "grid": grid}, sort_keys=True)
        study = optuna.create_study(
            storage=f"sqlite:///{storage}",
            study_name=name,
            direction=direction,
            sampler=sampler,
            pruner=pruner,
            load_if_exists=True,
        )
        saved = study.user_attrs.get("fingerprint")
        if saved is None:
            study.set_user_attr("fingerprint", fingerprint)
        elif saved != fingerprint:
            raise ServiceError(
                "state",
                "space_changed",
                f"study {name!r} was created with another search space; "
                "give the campaign a new name (or remove its folder) to start over",
            )
        self.study = study
        self.running = {}
        return {"trials": len(study.trials), "optuna": optuna.__version__}

    def ask(self, p: dict[str, Any]) -> dict[str, Any]:
        study = self._study()
        trial = study.ask(self.space)
        defaults = _get(p, "defaultAttrs", dict, {})
        for k, v in defaults.items():
            if k not in trial.user_attrs:
                trial.set_user_attr(k, v)
        self.running[trial.number] = trial
        return {"number": trial.number, "params": trial.params, "attrs": trial.user_attrs}

    def _running(self, p: dict[str, Any]) -> optuna.Trial:
        number = _get(p, "number", int)
        trial = self.running.get(number)
        if trial is None:
            raise ServiceError("state", "unknown_trial", f"trial {number} is not running in this process")
        return trial

    def report(self, p: dict[str, Any]) -> dict[str, Any]:
        trial = self._running(p)
        step = _get(p, "step", int)
        if step < 0:
            raise invalid("step: >= 0")
        trial.report(_finite(p.get("value"), "value"), step)
        return {"prune": bool(trial.should_prune())}

    def tell(self, p: dict[str, Any]) -> dict[str, Any]:
        study = self._study()
        trial = self._running(p)
        state = TELL_STATES.get(_get(p, "state", str))
        if state is None:
            raise invalid("state: complete, pruned or fail")
        for k, v in _get(p, "attrs", dict, {}).items():
            trial.set_user_attr(k, v)
        if state == TrialState.COMPLETE:
            study.tell(trial, _finite(p.get("value"), "value"))
        else:
            study.tell(trial, state=state)
        del self.running[trial.number]
        return {"number": trial.number}

    def enqueue(self, p: dict[str, Any]) -> dict[str, Any]:
        study = self._study()
        params = _get(p, "params", dict)
        unknown = sorted(set(params) - set(self.space))
        if unknown:
            raise invalid(f"params: not in the search space: {', '.join(unknown)}")
        for k, v in params.items():
            dist = self.space[k]
            try:
                ok = dist._contains(dist.to_internal_repr(v))  # noqa: SLF001 - Optuna has no public check
            except (ValueError, TypeError):
                ok = False
            if not ok:
                raise invalid(f"params.{k}: {v!r} is outside {dist}")
        study.enqueue_trial(params, user_attrs=_get(p, "attrs", dict, {}), skip_if_exists=False)
        return {"waiting": sum(1 for t in study.get_trials(deepcopy=False) if t.state == TrialState.WAITING)}

    def trials(self, _p: dict[str, Any]) -> dict[str, Any]:
        return {"trials": [trial_json(t) for t in self._study().get_trials(deepcopy=False)]}

    def recover(self, _p: dict[str, Any]) -> dict[str, Any]:
        """Fails the trials left RUNNING by a runner that died and enqueues their parameters again."""
        study = self._study()
        rerun = []
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            if t.number in self.running:
                continue
            study._storage.set_trial_user_attr(t._trial_id, "interrupted", True)  # noqa: SLF001
            study.tell(t.number, state=TrialState.FAIL)
            attrs = {k: v for k, v in t.user_attrs.items() if k not in ("interrupted", "error", "rerunOf")}
            study.enqueue_trial(t.params, user_attrs={**attrs, "rerunOf": t.number}, skip_if_exists=False)
            rerun.append({"number": t.number, "params": t.params})
        return {"rerun": rerun}

    def importance(self, _p: dict[str, Any]) -> dict[str, Any]:
        study = self._study()
        complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
        if len(complete) < 2:
            return {"importance": None, "reason": "needs at least 2 completed trials"}
        try:
            # Optuna's default evaluator (PED-ANOVA in Optuna 5; fANOVA would need scikit-learn).
            imp = optuna.importance.get_param_importances(study)
        except (ValueError, RuntimeError, ImportError) as exc:
            return {"importance": None, "reason": str(exc)}
        return {"importance": {k: float(v) for k, v in imp.items()}, "reason": None}

    def handle(self, line: str) -> dict[str, Any]:
        request_id: Any = None
        try:
            try:
                request = json.loads(line)
            except ValueError as exc:
                raise ServiceError("protocol", "bad_json", f"not JSON: {exc}") from exc
            if not isinstance(request, dict):
                raise ServiceError("protocol", "not_object", "a request is an object {id, method, params}")
            request_id = request.get("id")
            method = self.methods.get(request.get("method"))  # type: ignore[arg-type]
            if method is None:
                raise ServiceError("unknown_method", "unknown_method", f"unknown method {request.get('method')!r}")
            params = request.get("params") or {}
            if not isinstance(params, dict):
                raise invalid("params: an object")
            return {"id": request_id, "result": method(params)}
        except ServiceError as err:
            return {"id": request_id, "error": err.to_json()}
        except Exception as exc:  # noqa: BLE001 - the loop must survive anything
            return {"id": request_id, "error": {"type": "internal", "code": type(exc).__name__, "message": str(exc)}}


def serve(inp: TextIO, out: TextIO) -> None:
    service = Service()
    for line in inp:
        if not line.strip():
            continue
        answer = service.handle(line)
        try:
            text = json.dumps(answer, allow_nan=False)
        except ValueError as exc:
            text = json.dumps(
                {"id": answer.get("id"), "error": {"type": "internal", "code": "not_json", "message": str(exc)}}
            )
        out.write(text + "\n")
        out.flush()
