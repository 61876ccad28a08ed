"""One probe as an ordinary Inspect task: a solver writes the probe's candidate, the audited judge scores it.

No model under test is called: `write_candidate` puts the candidate stored in the sample's
metadata into the output, as if a model had written it, and the task's scorer is the audited
judge strategy with its judge bound to the ``grader`` role. The task therefore runs under the
``none/none`` model, and its log is an ordinary judged log: ``inspect view`` shows each sample's
candidate, the judge's prompt and its reply. For ``english`` without shipped translations, the
solver asks the ``translator`` role once per item (cached), and the log shows that call too.

An unusable translation (empty once its ``<think>`` reasoning is stripped, or cut off at
``max_tokens``) is cached like any reply, so asking again the same way would replay it forever.
The solver therefore asks again under the next cache scope (``attempt``: 1, 2, ...) with twice
the room, and a re-run replays every reply it got for free: the cached unusable ones, then the
good one. Each run makes at most `TRANSLATION_ATTEMPTS` new calls per item, then fails
with a message naming the item.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import CachePolicy, ChatMessageAssistant, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.data import VividItem, item_metadata
from vivid_inspect.judge_id import DEFAULT_LANGUAGE
from vivid_inspect.lab.audit.probe_texts import TRANSLATOR_PROMPT
from vivid_inspect.lab.audit.probes import CONTROL_PROBE, PROBE_VERSION, PROBES, RETEST_REPEAT, Candidate
from vivid_inspect.log_contract import AUDIT_TAG, AuditRecord, sample_meaning
from vivid_inspect.scorers.judge import judge_scorer
from vivid_inspect.text import nfc, sanitize, strip_reasoning

TRANSLATOR_ROLE = "translator"
"""The model role that writes the ``english`` probe's candidates when no translation is shipped."""
CANDIDATE_KEY = "probe_candidate"
"""Sample metadata holding the probe's candidate (None when the translator writes it)."""
PROBE_MODEL = "vivid-audit/probe"
"""The name the solver's written output carries: no model wrote it."""
TRANSLATOR_CONFIG = GenerateConfig(temperature=0.0, max_tokens=400)
"""Greedy, so the cached translation is the one any re-run would get; room for a long meaning."""
TRANSLATION_ATTEMPTS = 3
"""New translator calls per item and run before an unusable translation fails the probe."""
TRANSLATION_SCOPES = 12
"""Cache scopes tried at most per item: past them, only clearing the translator's cache helps."""
TRANSLATOR_MAX_TOKENS = 3200
"""The most room a later attempt gets (each attempt doubles the one before, from 400)."""


class ProbeRunError(RuntimeError):
    """A probe's candidate could not be written (the translator gave no usable translation)."""


def translation_request(attempt: int) -> tuple[GenerateConfig, CachePolicy]:
    """The settings and cache policy of the translator's ``attempt``-th ask (0 first).

    The first ask has no scope, so translations cached before attempts existed still count; each
    later one has its own ``attempt`` scope and twice the room, up to `TRANSLATOR_MAX_TOKENS`.
    """
    room = min((TRANSLATOR_CONFIG.max_tokens or 400) * 2**attempt, TRANSLATOR_MAX_TOKENS)
    config = TRANSLATOR_CONFIG.merge(GenerateConfig(max_tokens=room))
    scopes = {"attempt": str(attempt)} if attempt else {}
    return config, CachePolicy(per_epoch=False, scopes=scopes)


def _was_cached() -> bool:
    # The transcript's last model event says whether the reply came from Inspect's cache.
    for event in reversed(transcript().events):
        if isinstance(event, ModelEvent):
            return event.cache == "read"
    return False


async def translate(translator: Model, meaning: str, item: object) -> str:
    """The translator's English for one meaning, asking again under a new cache scope when unusable.

    Args:
        translator: The ``translator`` role's model.
        meaning: The reference meaning.
        item: The item's id, for the message.

    Returns:
        The translation: NFC, reasoning stripped, not empty, not cut off.

    Raises:
        ProbeRunError: `TRANSLATION_ATTEMPTS` new calls in this run (or
            `TRANSLATION_SCOPES` scopes in all) gave no usable translation.
    """
    prompt = TRANSLATOR_PROMPT.format(meaning=meaning)
    fresh, problem = 0, ""
    for attempt in range(TRANSLATION_SCOPES):
        config, cache = translation_request(attempt)
        output = await translator.generate(prompt, config=config, cache=cache)
        fresh += not _was_cached()
        text = sanitize(nfc(strip_reasoning(output.completion)).strip())
        if output.stop_reason == "max_tokens":
            problem = f"a translation of item {item} cut off at max_tokens={config.max_tokens}"
        elif not text:
            problem = f"an empty translation of item {item} (nothing left once its reasoning is stripped)"
        else:
            return str(text)
        if fresh >= TRANSLATION_ATTEMPTS:
            raise ProbeRunError(
                f"the translator {translator} gave {problem}, {fresh} new calls in a row; each unusable "
                "reply is cached under its own attempt scope, so a re-run asks again"
            )
    raise ProbeRunError(
        f"the translator {translator} gave {problem}, in all {TRANSLATION_SCOPES} cached attempts; clear "
        f"its cache (inspect cache clear --model {translator}) or use another translator"
    )


@solver
def write_candidate() -> Solver:
    """Write the sample's probe candidate as the output; ask the ``translator`` role when there is none.

    Returns:
        The solver.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        text = state.metadata.get(CANDIDATE_KEY)
        model = PROBE_MODEL
        if text is None:
            translator = get_model(role=TRANSLATOR_ROLE)
            text = await translate(
                translator, sample_meaning(state.target.text, state.metadata), state.sample_id
            )
            model = str(translator)
        state.output = ModelOutput.from_content(model=model, content=str(text))
        state.messages.append(ChatMessageAssistant(content=str(text), model=model))
        return state

    return solve


def probe_task(
    probe: str,
    items: Sequence[VividItem],
    candidates: dict[int, Candidate],
    *,
    record: AuditRecord,
    data_source: str,
    retries: int = 1,
) -> Task:
    """The task of one probe over the audited items.

    Args:
        probe: The probe's name.
        items: The audited items, in sample-id order.
        candidates: Item id -> that item's candidate for this probe; an item without one is left
            out of the probe's log.
        record: The audit record of this probe's log (eval metadata ``vivid_audit``).
        data_source: The data's printable source, recorded as the task's ``data``.
        retries: The judge's further asks after an unreadable reply.

    Returns:
        The task, named ``audit_<probe>``, tagged `AUDIT_TAG`. The control's judge asks
        under its own cache scope (`RETEST_REPEAT`), so its
        prompts, the reference's, are sent again rather than read back from the reference's replies.
    """
    samples = []
    for item in items:
        candidate = candidates.get(item.id)
        if candidate is None:
            continue  # the item is left out of this probe (its meaning cannot make the candidate)
        metadata = item_metadata(item) | {
            "probe": probe,
            CANDIDATE_KEY: candidate.text,
            "probe_source_id": candidate.source_id,
            "probe_note": candidate.note,
        }
        samples.append(Sample(id=item.id, input=item.idiom, target=item.meaning, metadata=metadata))
    return Task(
        dataset=MemoryDataset(samples, name="vivid", location=data_source),
        solver=write_candidate(),
        scorer=judge_scorer(
            record.strategy or "aspect",
            language=record.language or DEFAULT_LANGUAGE,
            retries=retries,
            repeat=RETEST_REPEAT if probe == CONTROL_PROBE else 0,
        ),
        name=f"audit_{probe}",
        version=PROBE_VERSION,
        metadata={"data": data_source, "probe_description": PROBES[probe].description} | record.metadata(),
        tags=[AUDIT_TAG],
    )
