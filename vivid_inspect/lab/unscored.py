"""When a judge's replies count as mostly unreadable: one threshold for ``vivid run`` and the judge card.

A judge that gives no readable score on many items cannot stand in for people, and its means rest
on the items it happened to read. ``vivid run`` exits 1 for such a judge cell and the judge card
says so on its first line, both from :data:`UNSCORED_SHARE_LIMIT`.
"""

from __future__ import annotations

UNSCORED_SHARE_LIMIT = 0.20
"""Above this share of judged items left unscored, a judge's replies are mostly unreadable."""


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
