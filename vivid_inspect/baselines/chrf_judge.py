"""Reading a rendered judge prompt back, for the offline ``vivid/chrf`` grader."""

from __future__ import annotations

import re

from vivid_inspect.scorers.judge_prompts import DATA_TAGS

_IDIOM_TAG, _REFERENCE_TAG, _CANDIDATE_TAG = DATA_TAGS
_BLOCK = re.compile(
    rf"<{_REFERENCE_TAG}_(?P<nonce>[0-9a-f]{{16}})>\n(?P<reference>.*?)\n</{_REFERENCE_TAG}_(?P=nonce)>"
    rf".*?<{_CANDIDATE_TAG}_(?P=nonce)>\n(?P<candidate>.*?)\n</{_CANDIDATE_TAG}_(?P=nonce)>",
    re.DOTALL,
)


def verdict(score: int) -> str:
    """The grader's reply for a score, in the verdict grammar of every strategy.

    A labelled line alone is a bare-score strategy's verdict and a chain-of-thought reply's final
    score line too (``judge_prompts.VERDICT_GRAMMAR``), so one reply fits every template.

    Args:
        score: The 0-5 score.

    Returns:
        ``"Điểm: N"``.
    """
    return f"Điểm: {score}"


def judge_fields(prompt: str) -> tuple[str, str] | None:
    """The reference meaning and the candidate explanation of a VIVID judge prompt.

    Args:
        prompt: A prompt rendered by `vivid_inspect.scorers.judge_prompts.render_judge_prompt`.

    Returns:
        ``(reference, candidate)`` from the last pair of data blocks that share one nonce, or None
        when the prompt is not a VIVID judge prompt.
    """
    matches = list(_BLOCK.finditer(prompt))
    if not matches:
        return None
    last = matches[-1]
    return last.group("reference"), last.group("candidate")
