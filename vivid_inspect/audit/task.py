"""One probe as an ordinary Inspect task: a solver writes the probe's candidate, the audited judge scores it.

No model under test is called: :func:`write_candidate` puts the candidate stored in the sample's
metadata into the output, as if a model had written it, and the task's scorer is the audited
judge strategy with its judge bound to the ``grader`` role. The task therefore runs under the
``none/none`` model, and its log is an ordinary judged log: ``inspect view`` shows each sample's
candidate, the judge's prompt and its reply. For ``english`` without shipped translations, the
solver asks the ``translator`` role once per item (cached), and the log shows that call too.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    CachePolicy,
    ChatMessageAssistant,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.audit.probe_texts import TRANSLATOR_PROMPT
from vivid_inspect.audit.probes import PROBE_VERSION, PROBES, Candidate
from vivid_inspect.data import VividItem, item_metadata
from vivid_inspect.languages import DEFAULT_LANGUAGE
from vivid_inspect.log_contract import AUDIT_TAG, AuditRecord
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


class ProbeRunError(RuntimeError):
    """A probe's candidate could not be written (the translator gave an empty reply)."""


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
            prompt = TRANSLATOR_PROMPT.format(meaning=state.metadata["meaning"])
            output = await translator.generate(
                prompt, config=TRANSLATOR_CONFIG, cache=CachePolicy(per_epoch=False)
            )
            text = sanitize(nfc(strip_reasoning(output.completion)).strip())
            if not text:
                raise ProbeRunError(
                    f"the translator {translator} gave an empty translation of item {state.sample_id}"
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
) -> Task:
    """The task of one probe over the audited items.

    Args:
        probe: The probe's name.
        items: The audited items, in sample-id order.
        candidates: Item id -> that item's candidate for this probe.
        record: The audit record of this probe's log (eval metadata ``vivid_audit``).
        data_source: The data's printable source, recorded as the task's ``data``.

    Returns:
        The task, named ``audit_<probe>``, tagged :data:`AUDIT_TAG`.
    """
    samples = []
    for item in items:
        candidate = candidates[item.id]
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
        scorer=judge_scorer(record.strategy or "aspect", language=record.language or DEFAULT_LANGUAGE),
        name=f"audit_{probe}",
        version=PROBE_VERSION,
        metadata={"data": data_source, "probe_description": PROBES[probe].description} | record.metadata(),
        tags=[AUDIT_TAG],
    )
