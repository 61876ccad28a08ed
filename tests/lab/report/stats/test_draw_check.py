"""Is a human file's set of items a plausible uniform draw (report/stats/draw_check.py)?"""

from __future__ import annotations

import numpy as np

from vivid_inspect.lab.humans.annotate.sheet_export import stratified_ids
from vivid_inspect.lab.report.stats.draw_check import ASSUMED, check_draw, how_drawn

THEMES = ("Love", "Virtues", "Criticism", "Work and Nature", "Social Relationships", "Life Lessons", "Other")


def _generation(seed: int, items: int = 1000):
    rng = np.random.default_rng(seed)
    ids = list(range(1, items + 1))
    themes = {i: THEMES[int(t)] for i, t in zip(ids, rng.choice(7, size=items), strict=True)}
    judge = {i: float(s) for i, s in zip(ids, rng.choice(6, size=items), strict=True)}
    return ids, themes, judge


def test_uniform_draws_as_export_makes_them_rarely_warn():
    alarms = 0
    for seed in range(150):
        ids, themes, judge = _generation(seed)
        chosen = stratified_ids(themes, 200, seed=seed)
        alarms += bool(check_draw(ids, judge, themes, chosen).warnings)
    assert alarms <= 2


def test_the_first_ids_are_named_a_run_of_ids():
    ids, themes, judge = _generation(1)
    check = check_draw(ids, judge, themes, ids[:200])
    assert any("early in the generation's id order" in w for w in check.warnings)
    assert any("assume a uniform random draw" in w for w in check.warnings)


def test_items_chosen_by_the_judges_score_are_named():
    ids, themes, judge = _generation(2)
    top = sorted(ids, key=lambda i: -judge[i])[:200]
    check = check_draw(ids, judge, themes, top)
    assert any("scored the labelled items higher" in w for w in check.warnings)


def test_one_theme_overdrawn_is_named():
    ids, themes, judge = _generation(3)
    rng = np.random.default_rng(3)
    love = [i for i in ids if themes[i] == "Love"]
    chosen = love + [
        int(i) for i in rng.choice([i for i in ids if themes[i] != "Love"], size=60, replace=False)
    ]
    check = check_draw(ids, judge, themes, chosen)
    assert any("themes are not in the generation's proportions" in w for w in check.warnings)


def test_what_the_record_says_of_the_draw():
    assert "seed 7" in how_drawn({"generation": "g1", "sheet_ids": [1, 2], "seed": 7})
    assert how_drawn({"generation": "g1"}) == ASSUMED and how_drawn(None) == ASSUMED


def test_too_few_items_are_not_tested():
    ids, themes, judge = _generation(4, items=30)
    assert check_draw(ids, judge, themes, ids[:3]).p_values == {}
