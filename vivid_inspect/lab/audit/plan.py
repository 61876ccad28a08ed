"""``vivid audit --plan``: the calls, tokens and cost of an audit, before anything runs.

The candidates are derived exactly as the run derives them (offline), so the judge prompts are
rendered on the real items and candidates and their tokens estimated with ``vivid plan``'s rule
(`vivid_inspect.lab.usage_events.tokens`). Output tokens are the judge's ``max_tokens`` per
call, an upper bound. Every call is counted: Inspect's cache answers the calls of an earlier run
of the same audit for free, so a re-run costs at most this, usually nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vivid_inspect.judge_id import check_language
from vivid_inspect.lab.audit.probe_texts import TRANSLATOR_PROMPT
from vivid_inspect.lab.audit.probes import ENGLISH
from vivid_inspect.lab.audit.run import prepare_items
from vivid_inspect.lab.audit.task import TRANSLATION_ATTEMPTS, TRANSLATOR_CONFIG
from vivid_inspect.lab.usage_events import tokens
from vivid_inspect.scorers.judge import get_strategy
from vivid_inspect.scorers.judge_prompts import judge_template, render_judge_prompt


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """Dollars for this many tokens."""
        return (input_tokens * self.input + output_tokens * self.output) / 1e6


@dataclass(frozen=True)
class RoleCalls:
    """The calls one model makes in an audit.

    Attributes:
        role: ``grader`` (the audited judge) or ``translator``.
        model: The model's name.
        calls: Calls when every reply is readable.
        max_calls: Calls with every retry used.
        input_tokens: Estimated prompt tokens of ``calls`` calls.
        output_tokens: Output tokens of ``calls`` calls at most (``max_tokens`` per call).
        price: The model's price, when given.
    """

    role: str
    model: str
    calls: int
    max_calls: int
    input_tokens: int
    output_tokens: int
    price: Price | None = None

    @property
    def cost(self) -> float | None:
        """US dollars for the calls, at most; None without a price."""
        return None if self.price is None else self.price.cost(self.input_tokens, self.output_tokens)


@dataclass(frozen=True)
class AuditPlan:
    """What an audit would call.

    Attributes:
        judge: The audited judge.
        strategy: The judge strategy.
        language: The language of the judge's instructions.
        data: The data source.
        items: Items audited.
        probes: Probes run, in card order.
        roles: The calls per model.
        left_out: One line per probe the data cannot make and the default left out (``english``
            without translations), saying how to add it.
    """

    judge: str
    strategy: str
    language: str
    data: str
    items: int
    probes: tuple[str, ...]
    roles: tuple[RoleCalls, ...]
    left_out: tuple[str, ...] = ()

    def text(self) -> str:
        """The plan as a markdown table with its totals and footnote."""
        lines = [
            f"## Audit plan: {self.judge} ({self.strategy}, {self.language})",
            "",
            f"{self.items} items of {self.data} × {len(self.probes)} probes ({', '.join(self.probes)}).",
            *(f"{line}." if not line.endswith(".") else line for line in self.left_out),
            "",
            "| role | model | calls | with retries | input tokens | output tokens (max) | cost |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for role in self.roles:
            cost = "-" if role.cost is None else f"${role.cost:,.2f}"
            lines.append(
                f"| {role.role} | {role.model} | {role.calls:,} | {role.max_calls:,} | "
                f"{role.input_tokens:,} | {role.output_tokens:,} | {cost} |"
            )
        total = sum(role.calls for role in self.roles)
        lines += [
            "",
            f"{total:,} calls in all; nothing has been called. Tokens are estimated from the rendered "
            "prompts at about 2.9 characters per token; output tokens are the max_tokens bound. A retry "
            "(after an unreadable verdict) resends its prompt, up to the calls with retries. Calls Inspect's cache already holds (an earlier run of the same audit) cost nothing. "
            "Cost: the given price (--price) in US dollars per million tokens, '-' without one.",
        ]
        return "\n".join(lines) + "\n"


def make_audit_plan(
    judge: str,
    *,
    strategy: str = "aspect",
    language: str = "vi",
    data: str | None = "sample",
    limit: int | None = None,
    seed: int = 0,
    probes: Sequence[str] | str | None = None,
    translator: str | None = None,
    retries: int = 1,
    price: Price | None = None,
) -> AuditPlan:
    """Work out an audit's calls without making any.

    Args:
        judge: The judge model's name.
        strategy: The judge strategy.
        language: The language of the judge's instructions.
        data: The data source.
        limit: Items drawn with ``seed`` (None: all).
        seed: Seed of the draw and the derivations.
        probes: Probes to run (default all).
        translator: The translator model's name, when the english probe uses one.
        retries: The judge's retries after an unreadable reply (the judge scorer's default, 1).
        price: The judge's price (the translator's calls are shown without one).

    Returns:
        The plan.

    Raises:
        ValueError: What `prepare_items` raises, or an unknown
            strategy or language.
    """
    spec = get_strategy(strategy)
    check_language(language)
    template = judge_template(strategy, language)
    prepared = prepare_items(data=data, limit=limit, seed=seed, probes=probes, translator=translator)
    prompt_tokens = 0
    calls = 0
    for name in prepared.probes:
        for item in prepared.items:
            if item.id not in prepared.candidates[name]:
                continue  # left out of this probe (prepared.excluded): no call
            # A translation is not known before the run; the reference stands in for it.
            candidate = prepared.candidates[name][item.id].text or item.meaning
            prompt_tokens += tokens(
                render_judge_prompt(template, idiom=item.idiom, reference=item.meaning, candidate=candidate)
            )
            calls += 1
    roles = [
        RoleCalls(
            "grader", judge, calls, calls * (1 + retries), prompt_tokens, spec.max_tokens * calls, price
        )
    ]
    if prepared.translated and translator is not None and ENGLISH in prepared.probes:
        count = len(prepared.items)
        roles.append(
            RoleCalls(
                "translator",
                translator,
                count,
                count * TRANSLATION_ATTEMPTS,  # an unusable translation is asked again
                sum(tokens(TRANSLATOR_PROMPT.format(meaning=item.meaning)) for item in prepared.items),
                (TRANSLATOR_CONFIG.max_tokens or 0) * count,
            )
        )
    return AuditPlan(
        judge,
        strategy,
        language,
        prepared.source,
        len(prepared.items),
        prepared.probes,
        tuple(roles),
        prepared.left_out,
    )
