"""Engine errors: every failure crosses the process boundary as a plain {type, code, message}."""

from __future__ import annotations

import re
from typing import Literal

ErrorType = Literal[
    "protocol", "unknown_method", "invalid_params", "state", "context_overflow", "cancelled", "internal"
]


class EngineError(Exception):
    """An error with a protocol `type`, a short snake_case `code` and a human message."""

    def __init__(self, type: ErrorType, code: str, message: str) -> None:
        super().__init__(message)
        self.type: ErrorType = type
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"type": self.type, "code": self.code, "message": self.message}


def invalid(field: str, problem: str, code: str = "invalid_params") -> EngineError:
    """An `invalid_params` error whose message starts with the offending field's path."""
    return EngineError("invalid_params", code, f"{field}: {problem}")


def not_loaded() -> EngineError:
    return EngineError("state", "not_loaded", "no model is loaded; call `load` first")


def context_overflow(field: str, length: int, context_length: int) -> EngineError:
    return EngineError(
        "context_overflow",
        "context_overflow",
        f"{field}: {length} tokens do not fit the model's context of {context_length} tokens",
    )


def internal(exc: BaseException) -> EngineError:
    """Wrap an unexpected exception; the code is its class name in snake_case."""
    name = type(exc).__name__
    code = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    if "out of memory" in str(exc).lower():
        code = "out_of_memory"
    return EngineError("internal", code, f"{name}: {exc}")
