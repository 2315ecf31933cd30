"""Hand-written request validation: small readers that name the offending field in their errors."""

from __future__ import annotations

import math
from typing import Any

from .errors import invalid

_MISSING = object()


def obj(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid(field, f"must be an object, got {_kind(value)}", "wrong_type")
    return value


def _get(params: dict[str, Any], key: str, field: str, default: Any) -> Any:
    value = params.get(key, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise invalid(_join(field, key), "is required", "missing_field")
        return default
    return value


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def kind_of(value: Any) -> str:
    """The JSON kind of a value, for error messages ("array", "string", …)."""
    return _kind(value)


def get_str(
    params: dict[str, Any], key: str, prefix: str = "", default: Any = _MISSING, choices: tuple[str, ...] | None = None
) -> Any:
    field = _join(prefix, key)
    value = _get(params, key, prefix, default)
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, str):
        raise invalid(field, f"must be a string, got {_kind(value)}", "wrong_type")
    if choices is not None and value not in choices:
        raise invalid(field, f"must be one of {', '.join(choices)}, got {value!r}", "out_of_range")
    return value


def get_bool(params: dict[str, Any], key: str, prefix: str = "", default: Any = _MISSING) -> Any:
    value = _get(params, key, prefix, default)
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, bool):
        raise invalid(_join(prefix, key), f"must be a boolean, got {_kind(value)}", "wrong_type")
    return value


def as_int(value: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise invalid(field, f"must be an integer, got {_kind(value)}", "wrong_type")
    if lo is not None and value < lo:
        raise invalid(field, f"must be >= {lo}, got {value}", "out_of_range")
    if hi is not None and value > hi:
        raise invalid(field, f"must be <= {hi}, got {value}", "out_of_range")
    return value


def get_int(
    params: dict[str, Any],
    key: str,
    prefix: str = "",
    default: Any = _MISSING,
    lo: int | None = None,
    hi: int | None = None,
) -> Any:
    value = _get(params, key, prefix, default)
    if value is default and default is not _MISSING:
        return value
    return as_int(value, _join(prefix, key), lo, hi)


def as_float(value: Any, field: str, lo: float | None = None, hi: float | None = None, lo_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid(field, f"must be a number, got {_kind(value)}", "wrong_type")
    value = float(value)
    if not math.isfinite(value):
        raise invalid(field, f"must be finite, got {value}", "out_of_range")
    if lo is not None and (value <= lo if lo_open else value < lo):
        raise invalid(field, f"must be {'>' if lo_open else '>='} {lo}, got {value}", "out_of_range")
    if hi is not None and value > hi:
        raise invalid(field, f"must be <= {hi}, got {value}", "out_of_range")
    return value


def get_float(
    params: dict[str, Any],
    key: str,
    prefix: str = "",
    default: Any = _MISSING,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
) -> Any:
    value = _get(params, key, prefix, default)
    if value is default and default is not _MISSING:
        return value
    return as_float(value, _join(prefix, key), lo, hi, lo_open)


def get_list(params: dict[str, Any], key: str, prefix: str = "", default: Any = _MISSING, min_len: int = 0) -> Any:
    field = _join(prefix, key)
    value = _get(params, key, prefix, default)
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, list):
        raise invalid(field, f"must be an array, got {_kind(value)}", "wrong_type")
    if len(value) < min_len:
        raise invalid(field, f"must have at least {min_len} element(s)", "out_of_range")
    return value


def token_ids(value: Any, field: str, vocab_size: int, min_len: int = 0) -> list[int]:
    """A JSON int array of token ids in [0, vocab_size)."""
    if not isinstance(value, list):
        raise invalid(field, f"must be an array of token ids, got {_kind(value)}", "wrong_type")
    if len(value) < min_len:
        raise invalid(field, f"must have at least {min_len} token(s)", "out_of_range")
    for i, t in enumerate(value):
        if isinstance(t, bool) or not isinstance(t, int):
            raise invalid(f"{field}[{i}]", f"must be an integer token id, got {_kind(t)}", "wrong_type")
        if not 0 <= t < vocab_size:
            raise invalid(f"{field}[{i}]", f"token id {t} is outside the vocabulary [0, {vocab_size})", "out_of_range")
    return value


def float_list(value: Any, field: str, length: int, finite_where: list[int] | None = None) -> list[float]:
    """A JSON number array of exactly `length`; entries where `finite_where[i]` is 1 must be finite."""
    if not isinstance(value, list):
        raise invalid(field, f"must be an array of numbers, got {_kind(value)}", "wrong_type")
    if len(value) != length:
        raise invalid(field, f"must have {length} elements (one per token), got {len(value)}", "out_of_range")
    out: list[float] = []
    for i, x in enumerate(value):
        if x is None and finite_where is not None and not finite_where[i]:
            out.append(0.0)  # unread position; null is accepted there
            continue
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise invalid(f"{field}[{i}]", f"must be a number, got {_kind(x)}", "wrong_type")
        if finite_where is not None and finite_where[i] and not math.isfinite(x):
            raise invalid(f"{field}[{i}]", f"must be finite, got {x}", "out_of_range")
        out.append(float(x))
    return out
