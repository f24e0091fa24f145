"""Running `netsift` as a user does: a real subprocess, or typer's CliRunner in-process.

Both check the promise every command keeps: no traceback reaches the user, whatever fails.
`env` entries set to None are removed from the subprocess's environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel
from typer.testing import CliRunner

from netsift.cli import app

__all__ = ["CliCall", "Run", "in_process", "subprocess_call"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def model(self, cls: type[M]) -> M:
        return cls.model_validate_json(self.stdout)


CliCall = Callable[..., Run]


def _no_traceback(run: Run) -> Run:
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    return run


def subprocess_call(base_env: Mapping[str, str]) -> CliCall:
    """`python -m netsift ARGS` in a subprocess, with `base_env` over the test's environment."""

    def call(
        *args: str, input: str | None = None, env: Mapping[str, str | None] | None = None
    ) -> Run:
        merged: dict[str, str | None] = {**os.environ, **base_env, **(env or {})}
        done = subprocess.run(
            [sys.executable, "-m", "netsift", *args],
            input=input,
            capture_output=True,
            text=True,
            env={key: value for key, value in merged.items() if value is not None},
            timeout=120,
        )
        return _no_traceback(Run(done.returncode, done.stdout, done.stderr))

    return call


def in_process(base_env: Mapping[str, str]) -> CliCall:
    """The same typer app through CliRunner: same code, faster, for option combinations."""
    runner = CliRunner()

    def call(*args: str, input: str | None = None, env: Mapping[str, str] | None = None) -> Run:
        result = runner.invoke(app, list(args), input=input, env={**base_env, **(env or {})})
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(
            result.exception
        )
        return _no_traceback(Run(result.exit_code, result.stdout, result.stderr))

    return call
