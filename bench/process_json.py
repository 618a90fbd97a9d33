"""The one reader of a benchmark process's result: the last line it prints on stdout that starts
with '{', as JSON. bench/runtime_load and bench/python_first_launch run each measurement in a fresh
process and read its result with this. Python 3.9+, standard library only."""
from __future__ import annotations

import json
import subprocess


class ProcessFailed(Exception):
    """A measuring process failed, printed no result, or ran past its time; the message names the
    command and holds what it printed."""


def last_json_line(command: list[str], timeout: float, environment: dict | None = None) -> dict:
    """Runs `command` (with `environment`, or this process's) and returns the last line it printed
    on stdout that starts with '{', parsed. ProcessFailed when it exits other than 0, prints no such
    line, or runs longer than `timeout` seconds."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        raise ProcessFailed(f"{' '.join(command)} took longer than {timeout:g} s")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise ProcessFailed(f"{' '.join(command)} exited {done.returncode}\n{done.stdout}{done.stderr}")
    return json.loads(lines[-1])
