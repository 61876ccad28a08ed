"""A judge's identity: every printed form parses back to it, every unknown name is one clear error.

And every documented ``--scorer`` form resolves to the judge it names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from inspect_ai.util import registry_create, registry_info

from vivid_inspect.judge_id import (
    JUDGE_LANGUAGES,
    LEXICAL,
    LLM_STRATEGIES,
    PANEL_STRATEGY,
    JudgeId,
    UnknownJudge,
    judge_ids,
    llm_judges,
)
from vivid_inspect.lab.report.tables.judges import STRATEGY_ORDER
from vivid_inspect.scorers import judge_prompts
from vivid_inspect.scorers.judge import JUDGE_SCORERS, STRATEGIES

REPO = Path(__file__).resolve().parents[1]
LLM = [
    pytest.param(strategy, language, id=f"{strategy}-{language}")
    for language in JUDGE_LANGUAGES
    for strategy in LLM_STRATEGIES
]


@pytest.mark.parametrize(("strategy", "language"), LLM)
def test_an_llm_judge_round_trips_through_every_form(strategy: str, language: str) -> None:
    judge = JudgeId.llm(strategy, language)
    column = f"judge_{strategy}" if language == "vi" else f"judge_{strategy}_{language}"

    assert (judge.strategy, judge.language, judge.column, str(judge)) == (strategy, language, column, column)
    assert judge.option == column.removeprefix("judge_")
    assert JudgeId.from_column(judge.column) == judge
    assert JudgeId.read_column(judge.column) == judge
    assert JudgeId.from_option(judge.option) == judge
    assert JudgeId.of(strategy, language) == judge
    assert judge.calls_a_model


@pytest.mark.parametrize(
    ("strategy", "column", "option"),
    [
        pytest.param(LEXICAL, "lexical", "lexical", id="lexical"),
        pytest.param(PANEL_STRATEGY, "judge_panel", None, id="panel"),
    ],
)
def test_judges_without_instructions_have_no_language(strategy: str, column: str, option: str | None) -> None:
    judge = JudgeId.of(strategy)
    assert (judge.language, judge.column, judge.calls_a_model) == (None, column, False)
    assert JudgeId.of(strategy, "vi") == judge  # the default language is ignored, as records give it
    assert JudgeId.from_column(column) == judge
    if option is not None:
        assert JudgeId.from_option(option) == judge
    else:
        with pytest.raises(UnknownJudge):
            JudgeId.from_option(judge.option)  # a panel is no task option
    with pytest.raises(ValueError, match="reads no instructions"):
        JudgeId.of(strategy, "en")


def test_every_judge_has_one_column_and_the_llm_judges_are_every_strategy_in_every_language() -> None:
    columns = [judge.column for judge in judge_ids()]
    assert len(columns) == len(set(columns)) == len(LLM_STRATEGIES) * len(JUDGE_LANGUAGES) + 2
    assert {(j.strategy, j.language) for j in llm_judges()} == {
        (s, language) for s in LLM_STRATEGIES for language in JUDGE_LANGUAGES
    }
    # The tables keyed by strategy hold exactly the identity's strategies.
    assert tuple(STRATEGIES) == LLM_STRATEGIES
    for language in JUDGE_LANGUAGES:
        assert tuple(judge_prompts.TEMPLATES_BY_LANGUAGE[language]) == LLM_STRATEGIES
    assert sorted(STRATEGY_ORDER) == sorted(LLM_STRATEGIES)


@pytest.mark.parametrize(
    ("parse", "message"),
    [
        pytest.param(
            lambda: JudgeId.llm("geval"), "unknown judge strategy 'geval'", id="llm-unknown-strategy"
        ),
        pytest.param(lambda: JudgeId.llm(LEXICAL), "unknown judge strategy 'lexical'", id="llm-lexical"),
        pytest.param(
            lambda: JudgeId.llm("cot", "EN"), "unknown judge language 'EN'", id="wrong-case-language"
        ),
        pytest.param(lambda: JudgeId.llm("cot", None), "unknown judge language None", id="no-language"),
        pytest.param(lambda: JudgeId.of("vibes"), "unknown judge strategy 'vibes'", id="of-unknown"),
        pytest.param(lambda: JudgeId.of(3), "unknown judge strategy 3", id="of-not-text"),
        pytest.param(lambda: JudgeId("cot", "fr"), "unknown judge language 'fr'", id="constructed"),
        pytest.param(
            lambda: JudgeId.from_column("judge_geval"), "unknown judge column 'judge_geval'", id="column"
        ),
        pytest.param(lambda: JudgeId.from_column("cot"), "unknown judge column 'cot'", id="option-as-column"),
        pytest.param(
            lambda: JudgeId.from_column("judge_cot_vi"), "unknown judge column", id="default-suffix"
        ),
        pytest.param(
            lambda: JudgeId.from_column("lexical_en"), "unknown judge column", id="lexical-language"
        ),
        pytest.param(
            lambda: JudgeId.from_option("judge_cot"), "unknown judge 'judge_cot'", id="column-as-option"
        ),
        pytest.param(
            lambda: JudgeId.from_option("aspect_fr"), "unknown judge 'aspect_fr'", id="option-language"
        ),
        pytest.param(lambda: JudgeId.from_option(""), "unknown judge ''", id="empty-option"),
    ],
)
def test_an_unknown_name_is_one_clear_error(parse: object, message: str) -> None:
    with pytest.raises(UnknownJudge, match=re.escape(message) + ".*; expected one of ") as error:
        parse()  # type: ignore[operator]
    assert isinstance(error.value, ValueError)
    assert "\n" not in str(error.value)


def test_a_column_found_in_a_log_that_names_no_vivid_judge_reads_as_none() -> None:
    assert JudgeId.read_column("judge_custom") is None
    assert JudgeId.read_column("accuracy") is None


@pytest.mark.parametrize("judge", [pytest.param(j, id=j.column) for j in llm_judges()])
def test_every_llm_judge_is_registered_under_its_column(judge: JudgeId) -> None:
    created = registry_create("scorer", f"vivid_inspect/{judge.column}")
    assert registry_info(created).name == f"vivid_inspect/{judge.column}"
    assert registry_info(JUDGE_SCORERS[judge]).name == f"vivid_inspect/{judge.column}"
    assert (JUDGE_SCORERS[judge].__doc__ or "").count(f"``{judge.column}``") == 1


def _documented_scorer_forms() -> list[tuple[str, str, dict[str, str]]]:
    """Every ``--scorer NAME [-S key=value ...]`` the README and the docs show."""
    forms = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        for match in re.finditer(r"--scorer ([^\s`]+)((?: -S [^\s`=]+=[^\s`]+)*)", path.read_text("utf-8")):
            args = dict(arg.split("=", 1) for arg in re.findall(r"-S ([^\s`]+)", match.group(2)))
            forms.append((path.relative_to(REPO).as_posix(), match.group(1).strip("`"), args))
    return forms


FORMS = _documented_scorer_forms()


def test_the_docs_show_the_alias_and_the_registered_names() -> None:
    names = {name for _, name, _ in FORMS}
    assert {"vivid_inspect/judge", "vivid_inspect/judge_cot", "vivid_inspect/lexical"} <= names


@pytest.mark.parametrize(
    ("name", "args"), [pytest.param(name, args, id=f"{where}:{name}:{args}") for where, name, args in FORMS]
)
def test_every_documented_scorer_form_resolves_to_the_column_it_names(
    name: str, args: dict[str, str]
) -> None:
    # As `inspect score` reads -S values (YAML); a shell variable (`-S repeat=$r`) stands for 1.
    values = {key: 1 if value.startswith("$") else yaml.safe_load(value) for key, value in args.items()}
    created = registry_create("scorer", name, **values)
    alias = name == "vivid_inspect/judge"
    expected = (
        JudgeId.llm(args.get("strategy", "aspect"), args.get("language", "vi")).column
        if alias
        else name.removeprefix("vivid_inspect/")
    )
    assert registry_info(created).name == f"vivid_inspect/{expected}"
