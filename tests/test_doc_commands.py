"""Every command in the README's and the documentation's ``bash`` fences works as written.

The fences are found, not listed, so a command added later is checked too. Each command is
classified by its program and checked as far as it can be here:

- offline and quick (``vivid --help``, ``vivid validate``, ``vivid data check --data sample``): run
  in this process, exit 0;
- offline but slow (``vivid plan``, ``inspect eval`` with ``vivid/*`` models, the local test
  server's recipe): run as written in a shell (``slow``), exit 0 and, for ``inspect eval``, which
  exits 0 whatever happened, every log it wrote ``success``;
- ``vivid run`` of a spec another test runs (``COVERED``): that test must run the same spec;
- needing a key, a network, a GPU or a log of your own: parsed: ``vivid``'s own argument parser,
  Inspect's click commands, the task and its ``-T`` values (by building the task on the bundled
  sample), the ``-S`` names of the scorer, the model providers, the ``grader`` role, the spec file;
- set-up (``pip install -e ".[extra]"``, ``python -m pytest -m ...``, ``ruff``, ``mypy``,
  ``mkdocs``): the extras, markers and tools named exist in ``pyproject.toml``.

A command none of these rules knows fails ``test_every_command_is_classified`` with the way to mark
it: ``<!-- not-checked: why -->`` on the line before its fence. A fence preceded by ``<!-- file:
NAME -->`` is a file the page's commands use (``my_ablation.yaml``): it is written into the folder
they run in. Downloads go to a closed port, so nothing leaves the machine.
"""

from __future__ import annotations

import contextlib
import inspect as pyinspect
import io
import os
import re
import shlex
import shutil
import socket
import subprocess
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from inspect_ai._cli.main import inspect as inspect_cli
from inspect_ai._util.config import parse_cli_args
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.util import registry_create

import vivid_inspect._registry  # noqa: F401  (registers the scorers `inspect score` resolves)
import vivid_inspect.tasks as tasks
from tests.server_process import start_server
from vivid_inspect.baselines.answers import BASELINES
from vivid_inspect.baselines.model import GRADERS, MODEL_ARGS
from vivid_inspect.inspect_private import model_providers
from vivid_inspect.lab.cli.main import build_parser
from vivid_inspect.lab.cli.main import main as vivid_main
from vivid_inspect.lab.runner.bundled import resolve_spec
from vivid_inspect.log_contract import NO_JUDGE
from vivid_inspect.testing.__main__ import DEFAULT_PORT
from vivid_inspect.testing.__main__ import build_parser as server_parser
from vivid_inspect.testing.openai_server import DUMMY_API_KEY

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SHELLS = ("bash", "sh", "shell", "console")
HOW_TO_MARK = (
    "teach tests/test_doc_commands.py its program, or put `<!-- not-checked: why -->` on the line "
    "before its fence"
)

COVERED = {
    # the same spec as the bundled one, which conftest.py's offline_job runs (test_offline_job.py)
    "experiments/offline.yaml": ("tests/lab/cli/test_bundled_spec.py", '"experiments" / "offline.yaml"'),
    "offline": ("tests/conftest.py", '["run", "offline"'),
    "experiments/smoke.yaml": ("tests/lab/runner/test_runner.py", '"experiments" / "smoke.yaml"'),
    "experiments/judge_ablation_local.yaml": (
        "tests/test_local_recipe.py",
        "vivid run experiments/judge_ablation_local.yaml",
    ),
}
"""Offline specs whose ``vivid run`` another test runs: (the test file, what it must contain)."""

SHELL_WORDS = {"for", "do", "done", "wait", "cd"}
SETUP = {"python3", "python", ".", "source", "pip"}
TOOLS = {"ruff": "lint", "mypy": "lint", "mkdocs": "docs"}
"""Tools a fence may run, with the extra of pyproject.toml that installs them."""
PLACEHOLDER = re.compile(r"(^|[/=])[A-Z][A-Z0-9_]*([-.]|$)")
"""A word a reader replaces (``LOG``, ``LOG_DIR``, ``LOG.eval``, ``sheet=FILE``)."""


@dataclass(frozen=True)
class Command:
    """One simple command of a fence (a pipeline or list is split at ``&&``, ``;``, ``&``, ``|``)."""

    page: Path
    line: int
    text: str  # the whole line as written, continuations joined, for messages
    words: tuple[str, ...]
    background: bool = False
    not_checked: str | None = None
    files: tuple[tuple[str, str], ...] = ()

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    @property
    def id(self) -> str:
        return f"{self.where}:{' '.join(self.words)[:60]}"


@dataclass
class _Fence:
    lang: str
    line: int
    lines: list[str]
    marker: str | None
    file: str | None


def _fences(page: Path) -> list[_Fence]:
    fences, current, marker, file = [], None, None, None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if current is not None:
            if line.strip() == "```":
                fences.append(current)
                current = None
            else:
                current.lines.append(line)
            continue
        if line.startswith("```"):
            current = _Fence(line[3:].strip(), number + 1, [], marker, file)
            marker = file = None
        elif found := re.fullmatch(r"<!-- not-checked: (.+) -->", line.strip()):
            marker = found[1]
        elif found := re.fullmatch(r"<!-- file: (\S+) -->", line.strip()):
            file = found[1]
        elif line.strip():
            marker = file = None
    return fences


def _split(text: str) -> list[tuple[tuple[str, ...], bool]]:
    """Simple commands of one line, each with whether it runs in the background (``&``).

    A usage synopsis (``vivid ... [--option K]``) is one command: its ``|`` separates choices
    (``all|SELECTOR``), not the commands of a pipeline.
    """
    if re.match(r"\s*vivid\s", text) and "[" in text:
        return [(tuple(shlex.split(text, comments=True)), False)]
    lexer = shlex.shlex(text, posix=True, punctuation_chars="&|;")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[tuple[tuple[str, ...], bool]] = []
    words: list[str] = []
    for token in lexer:
        if token in ("&&", "||", ";", "|", "&"):
            if words:
                commands.append((tuple(words), token == "&"))
            words = []
        else:
            words.append(token)
    if words:
        commands.append((tuple(words), False))
    return commands


def page_commands(page: Path) -> list[Command]:
    """Every simple command in a page's shell fences."""
    fences = _fences(page)
    files = tuple((f.file, "\n".join(f.lines) + "\n") for f in fences if f.file is not None)
    found: list[Command] = []
    for fence in fences:
        if fence.lang not in SHELLS:
            continue
        pending, start = "", 0
        for offset, line in enumerate(fence.lines):
            if not pending:
                start = fence.line + offset
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            if (
                re.match(r"\s+\[", line)
                and found
                and found[-1].page == page
                and _is_synopsis(found[-1].words)
            ):
                # a usage synopsis wrapped onto an indented line of options: part of the one before
                last = found.pop()
                text = f"{last.text} {line.strip()}"
                found += [Command(page, last.line, text, w, b, fence.marker, files) for w, b in _split(text)]
                continue
            text, pending = pending + line, ""
            for words, background in _split(text):
                found.append(Command(page, start, text.strip(), words, background, fence.marker, files))
    return found


# --- classification ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """How a command is checked: ``kind`` and, for runs, whether it is slow."""

    kind: str
    slow: bool = False
    reason: str = ""


def _program(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words after leading ``NAME=value`` assignments."""
    index = 0
    while index < len(words) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[index]):
        index += 1
    return words[index:]


def _is_synopsis(words: tuple[str, ...]) -> bool:
    """A usage line: an optional part (``[--seed 0]``) or a repeated value (``NAME[,NAME...]``)."""
    return any("[" in word for word in words)


def _eval_models(args: list[str]) -> list[str]:
    """Every model an ``inspect eval`` of a VIVID task would call: ``--model``s and the judge."""
    context = _click("eval", args)
    models = [m for m in (context.params.get("model") or "").split(",") if m]
    task_args = _key_values(context.params.get("t"))
    roles = _roles(context.params.get("model_role"))
    task = _task_name(context.params["tasks"][0])
    if task == "explain" and str(task_args.get("judge", "aspect")) not in (NO_JUDGE, "lexical"):
        models.append(roles.get("grader") or str(task_args.get("judge_model") or "openai/gpt-4.1"))
    return models


def classify(command: Command) -> Check:
    """How to check a command.

    Raises:
        LookupError: No rule knows the command; the message says how to mark it.
    """
    if command.not_checked is not None:
        return Check("not-checked", reason=command.not_checked)
    words = _program(command.words)
    if not words:
        return Check("env")
    program = words[0]
    if program == "export":
        return Check("export")
    if program in SHELL_WORDS:
        return Check("shell")
    if program in TOOLS:
        return Check("tool")
    if program in SETUP:
        if words[:3] == ("python", "-m", "vivid_inspect.testing"):
            return Check("server")  # its run as a process: tests/test_local_recipe.py
        if words[:3] == ("python", "-m", "pytest"):
            return Check("pytest")
        return Check("setup")
    if program == "vivid":
        if _is_synopsis(words):
            return Check("synopsis")
        if "--help" in words or "-h" in words:
            return Check("vivid-run")
        if len(words) > 2 and words[1] == "run" and words[2] in COVERED:
            return Check("covered")
        if any(PLACEHOLDER.search(word) for word in words[1:]):
            return Check("parse")
        if words[1] == "validate":
            return Check("vivid-run")
        if words[1] == "plan":
            return Check("vivid-run", slow=True)  # builds every task of the spec
        if words[1:3] == ("data", "check") and words[3:5] == ("--data", "sample"):
            return Check("vivid-run")
        return Check("parse")  # a run that calls models, a download, a log or a server of your own
    if program == "inspect":
        if len(words) > 1 and words[1] == "eval" and not any(PLACEHOLDER.search(w) for w in words[2:]):
            models = _eval_models(list(words[2:]))
            if all(m.startswith("vivid/") for m in models):
                return Check("inspect-run", slow=True)
            if all(m.startswith(("vivid/", "openai-api/local/")) for m in models):
                return Check("inspect-local", slow=True)
        return Check("parse")
    raise LookupError(f"{command.where}: cannot tell how to check `{command.text}`; {HOW_TO_MARK}")


ALL_COMMANDS = [command for page in PAGES for command in page_commands(page)]


def test_every_command_is_classified() -> None:
    unknown = []
    for command in ALL_COMMANDS:
        try:
            classify(command)
        except LookupError as error:
            unknown.append(str(error))
    assert not unknown, "\n".join(unknown)


def test_the_fences_hold_the_commands_this_test_must_see() -> None:
    texts = {" ".join(c.words) for c in ALL_COMMANDS}
    assert "vivid --help" in texts
    assert "python -m pytest -q" in texts and "python -m pytest -q -m not slow" in texts
    assert "vivid run experiments/judge_ablation_local.yaml" in texts
    assert any(c.words[:3] == ("python", "-m", "vivid_inspect.testing") for c in ALL_COMMANDS)
    kinds = {classify(c).kind for c in ALL_COMMANDS}
    assert {"vivid-run", "inspect-run", "inspect-local", "parse", "covered", "server"} <= kinds


def test_an_unknown_program_says_how_to_mark_it(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n```bash\nfrobnicate --all\n```\n", encoding="utf-8")
    [command] = page_commands(page)
    with pytest.raises(LookupError, match="not-checked: why"):
        classify(Command(REPO / "README.md", command.line, command.text, command.words))
    page.write_text("<!-- not-checked: not ours -->\n```bash\nfrobnicate --all\n```\n", encoding="utf-8")
    [marked] = page_commands(page)
    assert classify(marked) == Check("not-checked", reason="not ours")


def test_a_synopsis_with_choices_and_a_wrapped_line_is_one_command(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\nvivid annotate serve LOG_DIR --generations all|SELECTOR[,SELECTOR...] --annotators NAME\n"
        "                     [-n 200] [--plan]\n```\n",
        encoding="utf-8",
    )
    [command] = page_commands(page)
    assert command.words[-3:] == ("[-n", "200]", "[--plan]")
    assert "all|SELECTOR[,SELECTOR...]" in command.words
    assert classify(command).kind == "synopsis"


# --- parsing -------------------------------------------------------------------------------------


def _click(name: str, args: list[str]) -> click.Context:
    root = inspect_cli.make_context("inspect", [name], resilient_parsing=True)
    command = inspect_cli.get_command(root, name)
    assert command is not None, f"inspect has no command {name!r}"
    return command.make_context(name, list(args), parent=root)


def _key_values(values: tuple[str, ...] | None) -> dict[str, str]:
    """``-T k=v`` as written (Inspect's reading with its YAML types is checked by parse_cli_args)."""
    parse_cli_args(values)
    return {value.split("=", 1)[0]: value.split("=", 1)[1] for value in values or ()}


def _roles(values: tuple[str, ...] | None) -> dict[str, str]:
    parsed = parse_cli_args(values, force_str=False)
    roles = {}
    for role, value in parsed.items():
        assert role == "grader", f"the tasks use the grader role only, not {role!r}"
        model = value.get("model") if isinstance(value, dict) else value
        assert isinstance(model, str), f"--model-role {role}: no model in {value!r}"
        roles[role] = model
    return roles


def _task_name(spec: str) -> str:
    if "@" in spec:
        file, name = spec.split("@", 1)
        assert (REPO / file).is_file(), f"no task file {file}"
        return name
    assert spec.startswith("vivid_inspect/"), spec
    return spec.removeprefix("vivid_inspect/")


def _check_model(name: str) -> None:
    provider = name.split("/", 1)[0]
    assert "/" in name and provider in model_providers(), f"unknown model provider in {name!r}"
    if provider == "vivid":
        assert name.removeprefix("vivid/") in (*BASELINES, *GRADERS), f"unknown vivid model {name!r}"
    if provider == "openai-api":
        assert name.count("/") >= 2, f"{name!r}: openai-api/<service>/<model>"


def _check_inspect(words: tuple[str, ...]) -> None:
    name, args = words[1], list(words[2:])
    if name == "log":
        _click_group("log", args)
        return
    context = _click(name, args)
    _roles(context.params.get("model_role"))
    for model in _roles(context.params.get("model_role")).values():
        _check_model(model)
    if name == "eval":
        for model in (context.params.get("model") or "").split(","):
            _check_model(model)
        task = getattr(tasks, _task_name(context.params["tasks"][0]))
        task_args = _key_values(context.params.get("t"))
        unknown = set(task_args) - set(pyinspect.signature(task).parameters)
        assert not unknown, f"{task.__name__} takes no -T {sorted(unknown)}"
        task(**{**task_args, "data": "sample"})  # every -T value accepted, on the bundled sample
        model_args = _key_values(context.params.get("m"))
        if (context.params.get("model") or "").startswith("vivid/"):
            assert set(model_args) <= set(MODEL_ARGS), (
                f"vivid models take -M {MODEL_ARGS}, not {sorted(model_args)}"
            )
    if name == "score":
        # As `inspect score` resolves it: by registry name (the judge scorers come from one loop).
        # Typed as Inspect's CLI reads -S; a shell variable (`-S repeat=$r` in a loop) stands for the
        # loop's values, the first of which is 0.
        scorer, options = context.params["scorer"], parse_cli_args(context.params.get("s"))
        options = {key: 0 if str(value).startswith("$") else value for key, value in options.items()}
        try:
            registry_create("scorer", scorer, **options)
        except TypeError as error:
            raise AssertionError(f"{scorer} takes no -S {sorted(options)}: {error}") from None


def _click_group(name: str, args: list[str]) -> None:
    root = inspect_cli.make_context("inspect", [name], resilient_parsing=True)
    group = inspect_cli.get_command(root, name)
    assert isinstance(group, click.Group)
    outer = group.make_context(name, [args[0]], parent=root, resilient_parsing=True)
    command = group.get_command(outer, args[0])
    assert command is not None, f"inspect {name} has no command {args[0]!r}"
    command.make_context(args[0], args[1:], parent=outer)


def _subparser(words: tuple[str, ...]) -> tuple[object, list[str]]:
    """The argparse parser of ``vivid a b ...`` and its option strings."""
    import argparse

    parser: argparse.ArgumentParser = build_parser()
    for word in words[1:]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            break
        parser = subs[0].choices[word]
    options = [option for action in parser._actions for option in action.option_strings]
    return parser, options


def _check_parse(command: Command) -> None:
    words = _program(command.words)
    if words[0] == "vivid":
        if _is_synopsis(words):
            _, options = _subparser(words)
            named = {re.sub(r"[\[\]]", "", w) for w in words if w.lstrip("[").startswith("-")}
            assert named <= set(options), f"options not in the parser: {sorted(named - set(options))}"
            return
        with contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                args = build_parser().parse_args(list(words[1:]))
            except SystemExit as exit:
                if exit.code == 0 and ("--help" in words or "-h" in words):
                    return  # the help, printed; test_each_offline_vivid_command_runs runs it
                raise AssertionError(f"vivid refuses the arguments: {err.getvalue()}") from exit
        spec = getattr(args, "spec", None)
        if spec is not None and not PLACEHOLDER.search(spec):
            written = {name for name, _ in command.files}
            bundled = resolve_spec(spec, None)[0] != spec  # `vivid run offline`: a spec in the package
            assert spec in written or bundled or (REPO / spec).is_file(), f"no spec file {spec}"
        for model in (getattr(args, "judge", None),):
            if model and "/" in model:
                _check_model(model)
    elif words[0] == "inspect":
        _check_inspect(words)
    elif words[:3] == ("python", "-m", "vivid_inspect.testing"):
        server_parser().parse_args(list(words[3:]))
    else:
        raise AssertionError(f"no parse check for {words[0]!r}")


def _kind(command: Command) -> str | None:
    """The check's kind, or None for a command no rule knows (test_every_command_is_classified fails)."""
    try:
        return classify(command).kind
    except LookupError:
        return None


PARSE_FIRST = ("parse", "synopsis", "covered", "server", "vivid-run", "inspect-run", "inspect-local")
"""Kinds parsed in the quick run: a command that is also run (slow) fails here first when it is wrong."""
PARSED = [c for c in ALL_COMMANDS if _kind(c) in PARSE_FIRST]


@pytest.mark.parametrize("command", PARSED, ids=[c.id for c in PARSED])
def test_each_command_parses(command: Command) -> None:
    _check_parse(command)


COVERED_COMMANDS = [c for c in ALL_COMMANDS if _kind(c) == "covered"]


@pytest.mark.parametrize("command", COVERED_COMMANDS, ids=[c.id for c in COVERED_COMMANDS])
def test_a_covered_run_is_run_by_its_test(command: Command) -> None:
    spec = build_parser().parse_args(list(_program(command.words)[1:])).spec
    test_file, needle = COVERED[spec]
    assert needle in (REPO / test_file).read_text(encoding="utf-8"), f"{test_file} does not run {spec}"


# --- set-up, tools, exports ----------------------------------------------------------------------

EXTRAS = set(PYPROJECT["project"]["optional-dependencies"])
MARKERS = {line.split(":", 1)[0].strip() for line in PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]}


def _check_setup(words: tuple[str, ...]) -> None:
    if words == ("pip", "install", "."):
        return  # a user's install of the checkout: not editable, no extras (bench/user_install.py)
    if words[0] == "pip":
        assert words[:3] == ("pip", "install", "-e"), words
        found = re.fullmatch(r"\.\[(?P<extras>[a-z,]+)\]", words[3])
        assert found, f"install the checkout with its extras: {words[3]!r}"
        assert set(found["extras"].split(",")) <= EXTRAS, f"extras not in pyproject.toml: {found['extras']}"
    elif words[0] in (".", "source"):
        assert words[1] == ".venv/bin/activate", words
    else:
        assert words[:3] == ("python3", "-m", "venv"), words


def _check_pytest(words: tuple[str, ...]) -> None:
    args = list(words[3:])
    if "-m" in args:
        expression = args[args.index("-m") + 1]
        names = set(re.findall(r"[A-Za-z_]+", expression)) - {"and", "or", "not"}
        assert names <= MARKERS, f"markers not registered in pyproject.toml: {sorted(names - MARKERS)}"
    for arg in args:
        if arg.startswith("tests/"):
            assert (REPO / arg.split("::")[0]).exists(), arg


def _check_tool(words: tuple[str, ...]) -> None:
    extra = TOOLS[words[0]]
    names = [
        re.split(r"[~<>=\[]", d, maxsplit=1)[0] for d in PYPROJECT["project"]["optional-dependencies"][extra]
    ]
    assert words[0] in names, f"{words[0]} is not in the {extra} extra"
    allowed = {
        "ruff": {("check", "."), ("format", "--check", ".")},
        "mypy": {()},
        "mkdocs": {("serve",), ("build", "--strict")},
    }
    assert tuple(words[1:]) in allowed[words[0]], (
        f"`{' '.join(words)}` is not the command CI runs or documents"
    )


def _check_export(command: Command) -> None:
    values = dict(word.split("=", 1) for word in command.words[1:])
    for name in values:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*_(BASE_URL|API_KEY)", name), f"export of {name}"
    if "LOCAL_BASE_URL" in values:  # what `python -m vivid_inspect.testing` prints, as written
        assert values == {
            "LOCAL_BASE_URL": f"http://127.0.0.1:{DEFAULT_PORT}/v1",
            "LOCAL_API_KEY": DUMMY_API_KEY,
        }


CHECKED = [c for c in ALL_COMMANDS if _kind(c) in ("setup", "pytest", "tool", "export")]


@pytest.mark.parametrize("command", CHECKED, ids=[c.id for c in CHECKED])
def test_each_setup_command_names_what_exists(command: Command) -> None:
    kind = classify(command).kind
    words = _program(command.words)
    if kind == "setup":
        _check_setup(words)
    elif kind == "pytest":
        _check_pytest(words)
    elif kind == "tool":
        _check_tool(words)
    else:
        _check_export(command)


README_LINES = 250
"""The README is the front door; the rest is in docs/."""


def test_the_readme_is_a_short_front_door() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_ci_runs_the_documented_full_suite() -> None:
    assert "python -m pytest -q   # the README's test command" in (REPO / ".ci" / "run").read_text("utf-8")


# --- runs ----------------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder holding a copy of experiments/, with downloads sent to a closed port."""
    shutil.copytree(REPO / "experiments", tmp_path / "experiments")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("VIVID_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def _unique(kind: str, slow: bool) -> list[Command]:
    seen: set[tuple[str, ...]] = set()
    chosen = []
    for command in ALL_COMMANDS:
        if _kind(command) != kind:
            continue
        check = classify(command)
        if check.slow == slow and command.words not in seen:
            seen.add(command.words)
            chosen.append(command)
    return chosen


def _params(kind: str) -> list[object]:
    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.slow] if slow else [])
        for slow in (False, True)
        for c in _unique(kind, slow)
    ]


@pytest.mark.parametrize("command", _params("vivid-run"))
def test_each_offline_vivid_command_runs(
    command: Command, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, text in command.files:
        (workdir / name).write_text(text, encoding="utf-8")
    try:
        code = vivid_main(list(_program(command.words)[1:]))
    except SystemExit as exit:  # --help
        code = exit.code
    captured = capsys.readouterr()
    assert code == 0, captured.err


def _run_in_shell(command: Command, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", shlex.join(command.words)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=900,
    )


def _logs_all_succeeded(log_dir: Path) -> None:
    logs = list_eval_logs(str(log_dir))
    assert logs, f"inspect eval wrote no log in {log_dir}"
    for info in logs:
        log = read_eval_log(info, header_only=True)
        assert log.status == "success", (info.name, log.status, log.error)


@pytest.mark.parametrize("command", _params("inspect-run"))
def test_each_offline_inspect_eval_runs(command: Command, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    done = _run_in_shell(command, REPO, {"INSPECT_LOG_DIR": str(logs)})
    assert done.returncode == 0, done.stderr
    _logs_all_succeeded(logs)


@pytest.mark.parametrize("command", _params("inspect-local"))
def test_each_recipe_command_runs_against_the_test_server(command: Command, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    server = start_server(("--port", "0"))
    try:
        done = _run_in_shell(command, REPO, {**server.env, "INSPECT_LOG_DIR": str(logs)})
    finally:
        code, said = server.interrupt()
    assert done.returncode == 0, done.stderr
    assert code == 0, said
    _logs_all_succeeded(logs)


# --- the checks themselves refuse what is broken -----------------------------------------------

BROKEN = [
    pytest.param("inspect eval vivid_inspect/explain --model openai/gpt-4o -T judgee=all", id="unknown-T"),
    pytest.param("inspect eval vivid_inspect/explain --model openai/gpt-4o -T judge=vibes", id="bad-T-value"),
    pytest.param("inspect eval vivid_inspect/explian --model openai/gpt-4o", id="unknown-task"),
    pytest.param(
        "inspect eval vivid_inspect/tasks.py@topic --model vivid/oracle -T shots=9", id="T-out-of-range"
    ),
    pytest.param("inspect eval vivid_inspect/explain --modell openai/gpt-4o", id="unknown-option"),
    pytest.param("inspect eval vivid_inspect/explain --model opnai/gpt-4o", id="unknown-provider"),
    pytest.param(
        "inspect eval vivid_inspect/topic --model vivid/oracel -M data=sample", id="unknown-vivid-model"
    ),
    pytest.param("inspect eval vivid_inspect/topic --model vivid/oracle -M dataa=sample", id="unknown-M"),
    pytest.param(
        "inspect eval vivid_inspect/explain --model openai/gpt-4o --model-role judge=x/y", id="role"
    ),
    pytest.param("inspect eval vivid_inspect/explain --model openai-api/gpt-4o", id="openai-api-service"),
    pytest.param("inspect score LOG --scorer vivid_inspect/judge -S strategyy=cot", id="unknown-S"),
    pytest.param("vivid run experiments/nope.yaml", id="missing-spec"),
    pytest.param("vivid plan experiments/judge_ablation.yaml --frobnicate", id="vivid-option"),
    pytest.param("vivid annotate serve SOURCE --annotators NAME [--overlapp K]", id="synopsis-option"),
    pytest.param("vivid sanity opnai/gpt-4.1", id="vivid-judge-provider"),
    pytest.param("python -m vivid_inspect.testing --prot 0", id="server-option"),
]


@pytest.mark.parametrize("text", BROKEN)
def test_the_parse_checks_refuse_a_broken_command(text: str) -> None:
    command = Command(REPO / "README.md", 1, text, tuple(shlex.split(text)))
    with (
        pytest.raises((AssertionError, click.UsageError, ValueError, SystemExit, AttributeError)),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        _check_parse(command)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('pip install -e ".[tests]"', id="unknown-extra"),
        pytest.param('python -m pytest -q -m "not slowly"', id="unregistered-marker"),
        pytest.param(
            "export LOCAL_BASE_URL=http://127.0.0.1:9999/v1 LOCAL_API_KEY=fake-key", id="server-port"
        ),
        pytest.param("ruff check vivid_inspect", id="not-the-ci-command"),
    ],
)
def test_the_setup_checks_refuse_a_broken_command(text: str) -> None:
    command = Command(REPO / "README.md", 1, text, tuple(shlex.split(text)))
    with pytest.raises(AssertionError):
        test_each_setup_command_names_what_exists(command)
