"""When a judge's unscored replies are too many to ignore: one threshold for every reader.

A judge that cannot score (a base model that echoes the prompt, a context too small for the judge
prompt) leaves its explanations unscored (``Score.unscored``). A mean over the few it did score is
no measurement of the model judged, so ``vivid run`` exits 1 when a judge cell's unscored share
exceeds this limit (``--unscored-limit`` changes it for one run), and the judge card and the
report's summary say so first.
"""

from __future__ import annotations

UNSCORED_SHARE_LIMIT = 0.20
"""Largest share of a judge's explanations that may be unscored before the judge is named as one
that cannot score (``vivid run`` exits 1, the card's and the summary's first line say so): 20 %."""


def mostly_unscored(unscored: int, judged: int, limit: float = UNSCORED_SHARE_LIMIT) -> bool:
    """Whether more than ``limit`` of the ``judged`` items were left unscored.

    Args:
        unscored: Items the judge gave no readable score.
        judged: Items the judge replied on (scored or not).
        limit: The share above which the replies count as mostly unreadable.

    Returns:
        True when ``unscored / judged`` exceeds ``limit`` (False for no judged item).
    """
    return judged > 0 and unscored / judged > limit
