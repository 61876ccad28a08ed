"""When a judge counts as unable to score: one threshold for the run, the report and the card."""

UNSCORED_SHARE_LIMIT = 0.20
"""A judge whose share of samples with no readable score is above this is named as unable to score."""
