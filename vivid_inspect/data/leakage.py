"""Idioms shown to a model or a judge as worked examples, which the data set must leave out.

A model tested on an idiom it was just shown with its answer, or a judge grading an item whose
idiom is one of its own calibration examples (with the answer key in view), measures recall of
the prompt, not understanding. The tasks pass these idioms to :func:`vivid_inspect.data.load_vivid`,
which leaves out every item with the same idiom key and records the ids.
"""

from __future__ import annotations

import re

# How the judge templates introduce each graded example's idiom (one per line).
_EXAMPLE_LINE = re.compile(r"^Thành ngữ/tục ngữ:[ \t]*(?P<idiom>[^\n{}]+?)[ \t]*$", re.MULTILINE)


def judge_example_idioms() -> tuple[str, ...]:
    """The idioms of the graded examples in every judge template, in template order.

    Read from the templates themselves, so an example added to or changed in
    :mod:`vivid_inspect.scorers.judge_prompts` is left out of the data without a second list.
    The idioms of all templates are returned whatever judge a run uses: generation runs with
    ``judge=none`` and is judged later, so the data set must not depend on the judge.

    Returns:
        Each example idiom once.
    """
    from vivid_inspect.scorers.judge_prompts import TEMPLATES

    found = (
        match.group("idiom") for template in TEMPLATES.values() for match in _EXAMPLE_LINE.finditer(template)
    )
    return tuple(dict.fromkeys(found))
