"""The deployment guide's "Running it" section names only what an installed toolret has.

Every shell command there — in its ``sh`` blocks, and the ``toolret …`` and ``arq …`` commands
quoted in its text — is checked against the installed package, not the checkout: a ``toolret``
subcommand and its options must exist; an ``arq`` settings path must import from an empty
directory (a pip install has no ``workers`` package); a variable set must be one toolret reads.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main

from toolret._settings import Settings
from toolret.cli._app import app

GUIDE = (Path(__file__).resolve().parent.parent / "docs" / "deployment.md").read_text("utf-8")
SECTION = GUIDE.split("\n## Running it\n", 1)[1].split("\n## ", 1)[0]
PROGRAMS = ("toolret", "arq")
OTHER_VARIABLES = {"PYTHONPATH"}
"""Variables a command there may set that are not toolret's."""


def _shell_lines() -> list[str]:
    """Each command line of the section's ``sh`` blocks (comments cut), and each ``toolret``
    or ``arq`` command quoted inline in its text."""
    blocks = re.findall(r"```sh\n(.*?)```", SECTION, re.DOTALL)
    lines = [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines()]
    text = re.sub(r"```.*?```", "", SECTION, flags=re.DOTALL)
    spans = [span.split() for span in re.findall(r"`([^`]+)`", text)]
    quoted = [
        " ".join(words) for words in spans if len(words) > 1 and words[0] in (*PROGRAMS, "export")
    ]
    return [line for line in lines + quoted if line]


def _commands(line: str) -> list[tuple[dict[str, str], list[str]]]:
    """(variables set, words) of each command in ``line``: split at ``&&`` and ``;``, with
    ``$(…)`` substitutions taken as commands of their own."""
    inner = re.findall(r"\$\(([^)]*)\)", line)
    found = []
    for part in re.split(r"&&|;", re.sub(r"\$\([^)]*\)", "VALUE", line)) + inner:
        words = shlex.split(part.replace("…", "x"))
        if words and words[0] == "export":
            words = words[1:]
        variables: dict[str, str] = {}
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            name, _, value = words.pop(0).partition("=")
            variables[name] = value
        found.append((variables, words))
    return found


LINES = _shell_lines()
COMMANDS = [command for line in LINES for command in _commands(line)]


def test_the_section_has_the_commands_a_deployment_needs() -> None:
    programs = [words[0] for _, words in COMMANDS if words]
    assert {"toolret", "arq"} <= set(programs), LINES
    assert all(program in (*PROGRAMS, "cd") for program in programs), programs


def _toolret_variables() -> set[str]:
    names = set()
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        names |= {str(choice) for choice in choices} if choices else {f"TOOLRET_{name.upper()}"}
    return names


@pytest.mark.parametrize(("variables", "words"), COMMANDS, ids=lambda value: str(value)[:60])
def test_a_deployment_command_names_what_the_installed_package_has(
    variables: dict[str, str], words: list[str], tmp_path: Path
) -> None:
    unknown = set(variables) - _toolret_variables() - OTHER_VARIABLES
    assert not unknown, f"toolret reads no {sorted(unknown)}"
    if not words or words[0] == "cd":
        return
    if words[0] == "toolret":
        _assert_toolret_command(words[1:])
    else:
        _assert_arq_settings(words[1:], tmp_path)


def _assert_toolret_command(arguments: list[str]) -> None:
    command: Any = typer.main.get_command(app)  # a group has .commands (typer's own click)
    path = ["toolret"]
    for argument in arguments:
        subcommands = getattr(command, "commands", None)
        if subcommands is not None and argument in subcommands:
            command = subcommands[argument]
            path.append(argument)
        elif subcommands is not None and not argument.startswith("-"):
            pytest.fail(f"{' '.join(path)} has no subcommand {argument!r}")
    assert not hasattr(command, "commands"), f"{' '.join(path)} is a group, not a command"
    options = {name for parameter in command.params for name in parameter.opts}
    for argument in arguments:
        if argument.startswith("-"):
            assert argument.split("=")[0] in options, f"{' '.join(path)} has no {argument}"


def _assert_arq_settings(arguments: list[str], tmp_path: Path) -> None:
    (spec,) = [argument for argument in arguments if not argument.startswith("-")]
    assert set(arguments) - {spec} <= {"--check", "--burst", "--watch", "-v"}, arguments
    module, _, attribute = spec.rpartition(".")
    found = subprocess.run(
        [sys.executable, "-c", f"import {module} as m; print(type(m.{attribute}).__name__)"],
        cwd=tmp_path,  # an empty directory: the checkout's own packages are not on the path
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 0, f"arq {spec}: not in the installed package: {found.stderr}"
