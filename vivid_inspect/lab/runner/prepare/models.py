"""The models of a spec and their generation options, all created before anything runs.

A model that cannot be created (its provider's API key is not in the environment, its package is
not installed) stops the run before the first call, with every such model listed at its YAML
path, instead of failing half-way through; then one line per distinct missing setting with the next
step (the project's test server for ``openai-api/<service>/...``, the offline models for a paid
provider's key).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import GenerateConfig, Model, get_model

from vivid_inspect.lab.runner.cells import resolved_judge, resolved_model, split_model_args
from vivid_inspect.lab.runner.spec.credentials import env_header_client, env_references
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.model import Judge, ModelEntry, Spec
from vivid_inspect.lab.runner.spec.problems import Problem, SetupError
from vivid_inspect.lab.runner.spec.yaml_source import with_lines
from vivid_inspect.text import unmarked


def shared_config(spec: Spec) -> dict[str, Any]:
    """Generation options the spec sets for every model: concurrency, batch mode, call limits."""
    options = {
        "max_connections": spec.concurrency.max_connections,
        "batch": spec.batch,
        "max_retries": spec.retries.max_retries,
        "timeout": spec.retries.timeout,
        "attempt_timeout": spec.retries.attempt_timeout,
    }
    return {key: value for key, value in options.items() if value is not None}


def generate_config(spec: Spec, overrides: dict[str, Any]) -> GenerateConfig:
    """The spec-wide options with a block's or judge's own ``generate`` options on top.

    A batch call gets no ``attempt_timeout`` unless the spec sets one on purpose (in
    ``retries:`` or ``generate:``): the attempt of a batch call waits for the whole batch, and
    abandoning it would submit the request again in a new batch.
    """
    options = {**shared_config(spec), **overrides}
    chosen = "attempt_timeout" in overrides or "attempt_timeout" in spec.retries.model_fields_set
    if options.get("batch") and not chosen:
        options.pop("attempt_timeout", None)
    return GenerateConfig.model_validate(options)


def model_key(entry: ModelEntry) -> str:
    """Entries with equal keys are the same model."""
    return repr((entry.model, sorted(entry.model_args.items())))


def make_model(
    entry: ModelEntry, config: GenerateConfig | None = None, extra_headers: dict[str, Any] | None = None
) -> Model:
    """Create a model from a spec entry (``base_url`` in ``model_args`` goes to ``get_model``).

    Header values ``${env:NAME}`` (in ``model_args.default_headers``, the config's or the run
    block's ``extra_headers``) are read from the environment as each request is sent, by the
    client of `vivid_inspect.lab.runner.spec.credentials.env_header_client`.
    """
    base_url, args = split_model_args(entry.model_args)
    config = config or GenerateConfig()
    variables = sorted(
        {
            *env_references(args.get("default_headers")).values(),
            *env_references(config.extra_headers).values(),
            *env_references(extra_headers).values(),
        }
    )
    if not variables:
        return get_model(entry.model, base_url=base_url, config=config, **args)
    client = env_header_client(variables)
    return get_model(entry.model, base_url=base_url, config=config, memoize=False, http_client=client, **args)


def make_judge_model(spec: Spec, judge: Judge) -> Model:
    """A judge's model with its generation options (on top of the spec-wide ones).

    Raises:
        ValueError: If the judge has no model (the lexical judge calls none).
    """
    if judge.model is None:
        raise ValueError(f"judge {judge.name!r} ({judge.strategy}) has no model to create")
    entry = ModelEntry(model=judge.model, model_args=judge.model_args)
    return make_model(entry, generate_config(spec, judge.generate))


@dataclass(frozen=True)
class Models:
    """Every model of a spec.

    Attributes:
        generation: Generation models by `model_key` of their resolved entry.
        judges: Judge models by judge name; judges that call no model (lexical) have none.
    """

    generation: dict[str, Model]
    judges: dict[str, Model]


# Inspect's "No OPENAI_API_KEY, ... defined in the environment." names the setting first.
_MISSING = re.compile(r"\bNo ([A-Z][A-Z0-9_]*_(?:API_KEY|BASE_URL))\b.*defined in the environment")
_SERVED = "openai-api"


def next_steps(failed: list[tuple[str, str]]) -> list[str]:
    """What to do about models that cannot be created for a missing setting: one line per cause.

    Args:
        failed: ``(model name, Inspect's reason)`` of each model that cannot be created.

    Returns:
        For each ``openai-api/<service>/...`` service missing its URL or key, the command that starts
        the project's test server and prints its exports; for every other provider missing its key,
        one line naming the keys and the runs that need none. Empty when no setting is missing (a
        package to install: Inspect's reason already says which).
    """
    services: dict[str, None] = {}
    keys: dict[str, None] = {}
    for model, reason in failed:
        missing = _MISSING.search(reason)
        if missing is None:
            continue
        provider, _, rest = model.partition("/")
        if provider == _SERVED and "/" in rest:
            services[rest.partition("/")[0]] = None
        else:
            keys[missing.group(1)] = None
    lines = []
    for service in services:
        prefix = service.upper().replace("-", "_")
        option = "" if service == "local" else f" --service {service}"
        lines.append(
            f"{prefix}_BASE_URL and {prefix}_API_KEY point openai-api/{service}/... at a server: "
            f"`python -m vivid_inspect.testing{option}` starts the project's test server (no key, no "
            "network) and prints the two exports; a real model: docs/recipes/local-model.md"
        )
    if keys:
        lines.append(
            f"no {', '.join(keys)} in the environment (export each to call its provider); no key is needed by "
            "`vivid run offline` (the demo) or by the offline models vivid/oracle, vivid/literal and "
            "the judge vivid/chrf"
        )
    return lines


def build_models(loaded: LoadedSpec) -> Models:
    """Create every generation and judge model of a spec.

    Args:
        loaded: The spec.

    Returns:
        The models.

    Raises:
        SetupError: Models that cannot be created, each at its YAML path with the reason.
    """
    spec = loaded.spec
    generation: dict[str, Model] = {}
    judges: dict[str, Model] = {}
    problems: list[Problem] = []
    failed: list[tuple[str, str]] = []
    for i, block in enumerate(spec.runs):
        for j, entry in enumerate(block.models):
            resolved = resolved_model(entry, loaded.data)
            key = model_key(resolved)
            if key not in generation:
                try:
                    generation[key] = make_model(resolved, extra_headers=block.generate.get("extra_headers"))
                except Exception as error:  # noqa: BLE001 - every model's problem is reported
                    failed.append((entry.model, unmarked(str(error))))
                    problems.append(Problem(("runs", i, "models", j), f"{entry.model}: {failed[-1][1]}"))
    for i, judge in enumerate(spec.judges):
        if judge.model is None:  # the lexical judge: validation allows no model for any other
            continue
        try:
            judges[judge.name] = make_judge_model(spec, resolved_judge(judge, loaded.data))
        except Exception as error:  # noqa: BLE001
            failed.append((judge.model, unmarked(str(error))))
            problems.append(Problem(("judges", i), f"{judge.model}: {failed[-1][1]}"))
    if problems:
        setup = SetupError(with_lines(str(loaded.source), problems), str(loaded.source))
        # The next steps follow the list, once per cause however many models share it.
        setup.args = ("\n".join([str(setup), *next_steps(failed)]),)
        raise setup
    return Models(generation, judges)
