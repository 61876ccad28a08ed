"""When a judge counts as unable to score: one threshold for the run, the report and the card."""

UNSCORED_SHARE_LIMIT = 0.20
"""A judge whose share of samples with no readable score is above this is named as unable to score."""


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
