"""When a judge's unscored replies are too many to ignore: one threshold for every reader.

A judge that cannot score (a base model that echoes the prompt, a context too small for the judge
prompt) leaves its explanations unscored (``Score.unscored``). A mean over the few it did score is
no measurement of the model judged, so ``vivid run`` exits 1 when a judge cell's unscored share
exceeds this limit (``--unscored-limit`` changes it for one run), and the judge card says so first.
"""

from __future__ import annotations

UNSCORED_SHARE_LIMIT = 0.20
"""Largest share of a judge cell's explanations that may be unscored before the judge is named as
one that cannot score (``vivid run`` exits 1, the card's first line says so): 20 %."""
