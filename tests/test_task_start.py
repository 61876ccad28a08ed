"""The task-start check, in this process: every shape it catches, and when it stays out of the way.

``eval("vivid_inspect/explain", ...)`` builds the task the way ``inspect eval`` does (Inspect
creates the models and roles, then calls the task function), so the shapes that
``tests/test_first_contact_cli.py`` does not run as subprocesses are checked here, faster. The
check is skipped when Python code builds the task itself, reads no more than it must (one
request per endpoint), and binds nothing: the judge is still resolved by its scorer.
"""

from __future__ import annotations

import math
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai import eval, eval_set
from inspect_ai.model import GenerateConfig, Model, get_model

from tests.dead_endpoints import SilentServer, closed_port
from tests.fake_api import default_responder
from vivid_inspect.inspect_private import PrerequisiteError, TaskArgumentError
from vivid_inspect.task_start import PREFLIGHT_ENV, TaskStartError
from vivid_inspect.tasks import argument_problem, explain, topic
from vivid_inspect.testing.openai_server import FakeOpenAIServer

KEY = "fake-key"
WRONG_KEY = "sk-task-start-canary-0123456789"
CHOOSE_JUDGE = "choose the judge: --model-role grader=MODEL (offline: vivid/chrf)"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A healthy server wanting ``KEY``, listing ``gen`` and ``judge``; FAKE_* point at it."""
    with FakeOpenAIServer(responder=default_responder, api_key=KEY) as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
        monkeypatch.setenv("FAKE_API_KEY", KEY)
        yield server


def fake_model(name: str, url: str, key: str = KEY, **config: Any) -> Model:
    return get_model(
        f"openai-api/fake/{name}", base_url=url, api_key=key, config=GenerateConfig(**config), memoize=False
    )


def oracle() -> Model:
    return get_model("vivid/oracle", data="sample", memoize=False)


def start(
    task: str = "explain", model: Model | None = None, roles: dict[str, Model] | None = None, **options: Any
) -> list[Any]:
    """``eval`` of a task by name, as ``inspect eval`` builds it; ``-T`` arguments as ``T_<name>``."""
    task_args = {"data": "sample", **{k[2:]: v for k, v in options.items() if k.startswith("T_")}}
    flags = {k: v for k, v in options.items() if not k.startswith("T_")}
    return eval(
        f"vivid_inspect/{task}",
        model=model or oracle(),
        model_roles=roles,  # type: ignore[arg-type]
        task_args=task_args,
        limit=2,
        display="none",
        **flags,
    )


def refused(*expected: str, **kwargs: Any) -> str:
    """The task-start error of :func:`start` (a plain Inspect error), checked for ``expected``."""
    with pytest.raises(TaskStartError) as caught:
        start(**kwargs)
    error = caught.value
    assert isinstance(error, PrerequisiteError)  # Inspect prints it alone, no traceback
    message = str(error)
    assert message.count("\n") <= 2, message  # one line per model, then the fixes
    assert "Nothing was generated." in message
    for fragment in expected:
        assert fragment in message, message
    return message


# -- the judge -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param(
            {"T_judge": "cot", "T_judge_model": "openai/gpt-4o"},
            "the judge openai/gpt-4o (-T judge_model) cannot be created: No OPENAI_API_KEY",
            id="judge-model-with-cot",
        ),
        pytest.param(
            {"T_judge": "aspect_en,lexical"},
            "the judge openai/gpt-4.1 (the default: no --model-role grader given) cannot be created",
            id="english-strategy-beside-lexical",
        ),
        pytest.param(
            {"T_judge": ["zero_shot", "demonstration"]},  # -T judge=zero_shot,demonstration arrives as a list
            "the judge openai/gpt-4.1 (the default",
            id="comma-list-from-the-command-line",
        ),
        pytest.param(
            {"T_judge_model": "opnai/gpt-4.1"},
            "the judge opnai/gpt-4.1 (-T judge_model) cannot be created: Model API opnai of model "
            "'opnai/gpt-4.1' not recognized. Did you mean openai?",
            id="unknown-provider",
        ),
        pytest.param(
            {"T_judge_model": "vivid/chrff"},
            "cannot be created: unknown vivid model 'vivid/chrff'; did you mean vivid/chrf?",
            id="misspelt-vivid-judge",
        ),
    ],
)
def test_a_judge_that_cannot_be_created_is_named_with_the_fix(options: dict[str, Any], expected: str) -> None:
    refused(expected, CHOOSE_JUDGE, "-T judge=none", **options)


@pytest.mark.parametrize("judge", ["none", "lexical"])
def test_no_llm_judge_needs_no_key_and_no_endpoint(judge: str) -> None:
    (log,) = start(T_judge=judge)
    assert log.status == "success", log.error


def test_the_judge_roles_endpoint_shapes(fake: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    url = fake.base_url
    refused(
        f"the judge openai-api/fake/judgee (--model-role grader) failed its endpoint check: model 'judgee' "
        f"not found: {url}/models lists gen, judge.",
        "(VIVID_PREFLIGHT=0 skips this check.)",  # a server may serve a model it does not list
        roles={"grader": fake_model("judgee", url)},
    )
    message = refused(
        f"the judge openai-api/fake/judge (--model-role grader) failed its endpoint check: HTTP 401 from {url}/models",
        roles={"grader": fake_model("judge", url, key=WRONG_KEY)},
    )
    assert WRONG_KEY not in message and "VIVID_PREFLIGHT" not in message  # a 401 is the key's fault
    closed = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("FAKE_BASE_URL", closed)  # the judge the check creates from its name
    refused(
        f"the judge openai-api/fake/judge (-T judge_model) failed its endpoint check: no connection to {closed}/models",
        T_judge_model="openai-api/fake/judge",
        T_judge="zero_shot",
    )
    assert fake.model_counts == {}  # nothing generated, nothing judged


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "role_config", "expected"),
    [
        pytest.param({}, {"attempt_timeout": 1}, "within 1 s", id="the-roles-attempt-timeout"),
        pytest.param({"timeout": 1}, {}, "within 1 s", id="the-evals-timeout-flag"),
        pytest.param({"attempt_timeout": 2}, {}, "within 2 s", id="the-evals-attempt-timeout-flag"),
    ],
)
def test_a_silent_judge_endpoint_is_given_up_no_later_than_the_users_limits(
    flags: dict[str, Any], role_config: dict[str, Any], expected: str
) -> None:
    with SilentServer() as silent:
        refused(
            f"the judge openai-api/fake/judge (--model-role grader) failed its endpoint check: no answer from "
            f"{silent.base_url}/models {expected}",
            roles={"grader": fake_model("judge", silent.base_url, **role_config)},
            **flags,
        )


# -- the model under test ------------------------------------------------------------------------


def test_the_models_endpoint_is_checked_with_or_without_a_judge(
    fake: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = fake.base_url
    refused(
        f"explain: the model openai-api/fake/gen (--model) failed its endpoint check: HTTP 401 from {url}/models",
        "Fix the model's server, URL or key.",
        model=fake_model("gen", url, key=WRONG_KEY),
        T_judge="none",
    )
    closed = f"http://127.0.0.1:{closed_port()}/v1"
    both = refused(
        f"explain: the model openai-api/fake/gen (--model) failed its endpoint check: no connection to {closed}/models",
        f"explain: the judge openai-api/fake/judge (--model-role grader) failed its endpoint check: no connection to {closed}/models",
        model=fake_model("gen", closed),
        roles={"grader": fake_model("judge", closed)},
    )
    assert both.count("\n") == 2  # two models, one line of fixes

    real = socket.getaddrinfo

    def no_such_host(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "no-such-host.invalid":  # never sent to a resolver: the lookup fails here
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    refused(
        "topic: the model openai-api/fake/gen (--model) failed its endpoint check: no connection to "
        "http://no-such-host.invalid/v1/models (DNS lookup failed: Name or service not known)",
        task="topic",
        model=fake_model("gen", "http://no-such-host.invalid/v1"),
    )
    assert fake.model_counts == {}


@pytest.mark.parametrize(
    ("task", "model", "options", "expected"),
    [
        pytest.param(
            "traits",
            "vivid/chrf",
            {},
            "traits: the model vivid/chrf (--model) grades judge prompts and cannot answer the task.",
            id="grader-as-the-model",
        ),
        pytest.param(
            "explain",
            "vivid/literal",
            {"T_judge_model": "vivid/oracle"},
            "explain: the judge vivid/oracle (-T judge_model) answers tasks and cannot grade.",
            id="baseline-as-the-judge",
        ),
    ],
)
def test_a_vivid_model_in_the_wrong_place_is_named(
    task: str, model: str, options: dict[str, Any], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIVID_DATA", "sample")  # the baselines' own data, without -M data
    refused(expected, "vivid/chrf", task=task, model=get_model(model, memoize=False), **options)


def test_a_baseline_without_the_tasks_items_is_stopped_before_generating() -> None:
    good = Path(__file__).parent / "fixtures" / "data" / "good.csv"
    refused(
        "topic: the model vivid/oracle (--model) answers from vivid_inspect sample",
        "lacks 6 of the task's 6 items",
        f"-M data={good}",
        task="topic",
        T_data=str(good),
    )


# -- when the check stays out of the way ---------------------------------------------------------


def test_python_code_that_builds_the_task_itself_is_not_checked(
    fake: FakeOpenAIServer, tmp_path: Path
) -> None:
    # No key for the default judge, and this judge is not listed: built all the same, before and
    # after an eval and an eval_set in this process (eval_set leaves Inspect's active model set,
    # as `vivid run` does before it builds its judge cells' tasks).
    assert explain(data="sample").scorer
    (log,) = start(T_judge="none")
    assert log.status == "success", log.error
    done, _ = eval_set(
        topic(data="sample"),
        model=fake_model("gen", fake.base_url),
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert done
    assert explain(data="sample", judge_model="openai-api/fake/judgee").scorer
    fake.reset()

    # A Task object given to eval() was built by Python code: not checked, and this judge answers
    # chat calls although the server does not list it.
    (log,) = eval(
        explain(data="sample", judge="zero_shot"),
        model=oracle(),
        model_roles={"grader": fake_model("judgee", fake.base_url)},
        limit=2,
        display="none",
    )
    assert log.status == "success", log.error
    assert fake.get_counts == {}


def test_vivid_preflight_0_skips_the_check(fake: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PREFLIGHT_ENV, "0")
    (log,) = start(T_judge="zero_shot", roles={"grader": fake_model("judgee", fake.base_url)})
    assert log.status == "success", log.error
    assert fake.get_counts == {} and fake.model_counts == {"judgee": 2}


@pytest.mark.slow
def test_each_endpoint_is_asked_once_for_every_task_and_model_of_an_eval(fake: FakeOpenAIServer) -> None:
    gen = fake_model("gen", fake.base_url)
    logs = eval(
        ["vivid_inspect/topic", "vivid_inspect/traits", "vivid_inspect/explain"],
        model=gen,
        model_roles={"grader": fake_model("judge", fake.base_url)},
        task_args={"data": "sample", "judge": "zero_shot"},
        limit=1,
        display="none",
    )
    assert [log.status for log in logs] == ["success"] * 3
    assert fake.get_counts == {"/v1/models": 1}  # three tasks, two models, one endpoint


def test_the_check_binds_nothing_the_scorer_resolves_the_grader_role() -> None:
    # The default judge (GPT-4.1, no key here) is not what the check looks at when a grader role is
    # given, and the scorer, not the check, resolves the role when a sample is scored.
    (log,) = start(T_judge="zero_shot", roles={"grader": get_model("vivid/chrf", memoize=False)})
    assert log.status == "success", log.error
    assert log.samples
    judges = {
        sample.scores["judge_zero_shot"].metadata["judge_model"] for sample in log.samples if sample.scores
    }
    assert judges == {"vivid/chrf"}


# -- -T names the task does not take (issue 31.1) ------------------------------------------------

NAME_CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "word-added": (
        "explain",
        {"judge_strategy": "aspect"},
        "-T judge_strategy is not a parameter of explain (did you mean judge?)",
    ),
    "letter-dropped": (
        "explain",
        {"judg": "cot"},
        "-T judg is not a parameter of explain (did you mean judge?)",
    ),
    "plural": ("explain", {"judges": "cot"}, "(did you mean judge?)"),
    "swapped": ("explain", {"jduge": "cot"}, "(did you mean judge?)"),
    "retries-typo": ("explain", {"judge_retrie": 2}, "(did you mean judge_retries?)"),
    "prefix": (
        "topic",
        {"leakage": 0.8},
        "-T leakage is not a parameter of topic (did you mean leakage_threshold?)",
    ),
    "shot": ("traits", {"shot": 2}, "-T shot is not a parameter of traits (did you mean shots?)"),
    "capitalised": ("topic", {"Shots": 2}, "(did you mean shots?)"),
    "unlike-anything": ("explain", {"colour": "red"}, "-T colour is not a parameter of explain."),
    "other-tasks-name": (
        "topic",
        {"judge": "cot"},
        "-T judge is not a parameter of topic (a parameter of explain)",
    ),
    "explain-given-shots": (
        "explain",
        {"shots": 0},
        "-T shots is not a parameter of explain (a parameter of topic and traits)",
    ),
}


@pytest.mark.parametrize("case", list(NAME_CASES))
def test_a_name_the_task_does_not_take_is_refused_with_the_closest(case: str) -> None:
    task, given, expected = NAME_CASES[case]
    with pytest.raises(TaskArgumentError) as caught:
        start(task, **{f"T_{name}": value for name, value in given.items()})
    message = str(caught.value)
    assert isinstance(caught.value, PrerequisiteError)  # Inspect prints it alone, no traceback
    assert message.startswith(f"{task}: ") and expected in message, message
    assert message.splitlines()[-1].startswith(f"Nothing was generated. {task} takes: "), message
    assert message.count("\n") == 1, message


def test_every_unknown_name_gets_its_line() -> None:
    with pytest.raises(TaskArgumentError) as caught:
        start("explain", T_judg="cot", T_promt="few_shot")
    lines = str(caught.value).splitlines()
    assert [line.split(" (")[0] for line in lines[:2]] == [
        "explain: -T judg is not a parameter of explain",
        "explain: -T promt is not a parameter of explain",
    ]


def test_python_code_passing_a_wrong_name_gets_pythons_own_error() -> None:
    with pytest.raises(TypeError, match="judg"):
        explain(judg="cot", data="sample")  # type: ignore[call-arg]


@pytest.fixture
def in_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # Inspect reads task files by relative path


@pytest.mark.parametrize(
    "tasks",
    [
        pytest.param("vivid_inspect/tasks.py", id="whole-file"),
        pytest.param(["vivid_inspect/tasks.py@topic", "vivid_inspect/tasks.py@explain"], id="two-specs"),
    ],
)
def test_given_to_several_tasks_a_name_no_task_takes_is_refused_and_another_tasks_name_noted(
    in_checkout: None, capsys: pytest.CaptureFixture[str], tasks: str | list[str]
) -> None:
    with pytest.raises(TaskArgumentError) as caught:
        eval(
            tasks,
            model=oracle(),
            task_args={"data": "sample", "judge": "cot", "shot": 2},
            limit=1,
            display="none",
        )
    message = str(caught.value)
    assert "-T shot is not a parameter of any VIVID task (did you mean shots?)" in message, message
    assert "judge" not in message.splitlines()[0]
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == ["topic: note: -T judge is a parameter of explain only; topic runs without it"]


@pytest.mark.slow  # runs two tasks
def test_given_to_several_tasks_another_tasks_name_runs_each_task_as_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    logs = eval(
        ["vivid_inspect/topic", "vivid_inspect/explain"],
        model=oracle(),
        task_args={"data": "sample", "shots": 1, "judge": "none"},
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )
    assert [log.status for log in logs] == ["success", "success"]
    assert [log.eval.task_args.get("shots") for log in logs] == [1, None]
    assert "explain: note: -T shots is a parameter of topic and traits only" in capsys.readouterr().err


# -- -T values: the same check as `vivid validate` (issue 30.6, 31.8) -------------------------------

HUGE = 10**900
BAD_VALUES: dict[str, list[Any]] = {
    "shots": [-1, 6, HUGE, -HUGE, 2.0, True, False, "3", "many", math.nan, math.inf, None, [3]],
    "judge_retries": [-1, 11, HUGE, 1.0, True, "1", math.nan, -math.inf, None, {"a": 1}],
    "leakage_threshold": [
        0.1,
        0.59,
        1.01,
        1e300,
        -0.0,
        math.nan,
        math.inf,
        -math.inf,
        HUGE,
        True,
        False,
        "0.8",
        "1e300",
        None,
        [0.8],
    ],
    "prompt": ["fewshot", "", "ZERO_SHOT", 3, True, None, ["zero_shot"]],
    "judge": ["aspekt", "", ",", "aspect,vibes", 5, 1.5, True, None, {"aspect": 1}],
    "judge_model": [5, True, 1.5, ["openai/gpt-4o"]],
    "data": [5, True, 1.5, ["sample"]],
}
TASK_OF = {"shots": "topic"}


@pytest.mark.parametrize(
    ("name", "value"), [(name, value) for name, values in BAD_VALUES.items() for value in values]
)
def test_every_bad_task_value_is_one_line_naming_its_parameter(name: str, value: Any) -> None:
    task = TASK_OF.get(name, "explain")
    build = cast(Callable[..., Any], explain if task == "explain" else topic)
    with pytest.raises(TaskArgumentError) as caught:
        build(**{"data": "sample", name: value})
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{task}: "), message
    assert name.split("_")[0] in message and len(message) < 400, message
    assert argument_problem(name, value) is not None


@pytest.mark.parametrize(
    ("name", "value", "hint"),
    [
        ("judge", "aspekt", "did you mean aspect?"),
        ("judge", "aspect,cott", "did you mean cot?"),
        ("judge", "al_en", "did you mean all_en?"),
        ("prompt", "fewshot", "did you mean few_shot?"),
        ("prompt", "zero-shot", "did you mean zero_shot?"),
    ],
)
def test_a_mistyped_choice_gets_the_closest(name: str, value: str, hint: str) -> None:
    problem = argument_problem(name, value)
    assert problem is not None and f"({hint})" in problem, problem


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("shots", 0),
        ("shots", 5),
        ("judge_retries", 10),
        ("leakage_threshold", 0.6),
        ("leakage_threshold", 1),
        ("prompt", "few_shot"),
        ("judge", "aspect,lexical"),
        ("judge", ["cot", "aspect_en"]),
        ("judge", "all_en"),
        ("judge", "none"),
        ("judge_model", None),
        ("data", "sample"),
    ],
)
def test_good_task_values_pass_the_check(name: str, value: Any) -> None:
    assert argument_problem(name, value) is None
