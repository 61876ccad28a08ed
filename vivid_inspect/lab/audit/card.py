"""The audit card: every probe's verdict as markdown, CSV rows and a forest plot.

`build_card` turns the judge's scores of each probe (probe -> item id -> 0-5, NaN when
unscored) into an `AuditCard`; no Inspect is needed, so the report and tests build cards
from scores alone. The card reads like the former ``vivid sanity``'s report: a verdict header, one table row per
probe, the thresholds used, notes. `AuditCard.write` writes ``audit.md``, ``audit.csv`` and
``audit_shifts.png``, each whole or not at all.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.lab.audit.plot import render_png
from vivid_inspect.lab.audit.verdicts import (
    CONTROL,
    DEFAULT_THRESHOLDS,
    EXPECTS,
    INVARIANCE,
    OWN_SCORE,
    PSEUDO_ITEMS,
    ProbeLike,
    ProbeResult,
    Thresholds,
    bound_text,
    check_seed,
    evaluate,
    percent_text,
    share_text,
    signed_percent_text,
)
from vivid_inspect.lab.humans.sheet_files import neutralise
from vivid_inspect.scorers.judge_parse import MAX_SCORE

FILES = ("audit.md", "audit.csv", "audit_shifts.png")
"""What `AuditCard.write` writes, in this order."""

CARD_COLUMNS = ("judge", "strategy", "language", "data", "seed")
"""The card's identity, repeated on every CSV row so that rows of several audits can be stacked."""

THRESHOLD_USES: dict[str, str] = {
    "high_floor": "`high`: the mean's interval, and each item, at or above it",
    "same_tolerance": "`same` and the control (`repeat`): the shift's interval inside ± it",
    "lower_margin": "`lower`: the shift's interval at or below minus it",
    "not_higher_margin": "`not_higher`: the shift's interval at or below it",
    "within": "`within_1`: the shift's interval, and each item's difference, inside ± it",
    "ceiling": "`at_most_1`: the mean's interval, and each item, at or below it",
    "item_tolerance": "one item's change that still counts as none (`same`, `not_higher`, the control) or "
    "must be exceeded to count as a drop (`lower`)",
    "min_rate": "`lower`, `high`, `at_most_1`: the rate's exact interval at or above it (the invariance "
    "probes' flips beyond the control are held to their shift margin per smallest flip instead)",
    "min_items": "fewer paired (or scored) items: inconclusive",
    "max_unscored": "a larger share of items left out: inconclusive unless failed",
    "confidence": "level of every interval",
}
"""What each threshold decides, one line each, for the card and the docs."""


@dataclass(frozen=True)
class AuditCard:
    """A judge's audit: one result per probe, and what they were measured with.

    Attributes:
        judge: The judge model's name.
        strategy: The judge prompting strategy.
        language: The language of the judge's instructions (``vi`` or ``en``).
        data: The data source of the items.
        n_items: Distinct items over all probes.
        results: One result per probe, in the probes' order.
        thresholds: The bounds the verdicts used.
        seed: The audit's seed (of the item draw and the derivations).
        log_locations: Where Inspect wrote the probe logs (``inspect view`` shows them).
        notes: Anything the reader should know that no single probe says.
    """

    judge: str
    strategy: str
    language: str
    data: str
    n_items: int
    results: tuple[ProbeResult, ...]
    thresholds: Thresholds
    seed: int = 0
    log_locations: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """True when no probe fails (an inconclusive probe is reported, not failed)."""
        return all(result.verdict != "fail" for result in self.results)

    @property
    def verdict(self) -> Literal["pass", "fail", "inconclusive"]:
        """``fail`` when a probe fails, else ``inconclusive`` when one is, else ``pass``.

        An inconclusive card still exits 0: nothing was shown wrong, but not everything was shown right.
        """
        if not self.passed:
            return "fail"
        return "inconclusive" if self.count("inconclusive") else "pass"

    @property
    def exit_code(self) -> int:
        """0 when no probe fails, else 1 (``vivid sanity`` also takes an inconclusive probe as 1)."""
        return 0 if self.passed else 1

    def count(self, verdict: str) -> int:
        """How many probes got ``verdict``."""
        return sum(result.verdict == verdict for result in self.results)

    @property
    def plot_title(self) -> str:
        """The forest plot's title: the judge, its strategy and instructions, the items and data."""
        return (
            f"Judge audit: {self.judge} (strategy {self.strategy}, instructions {self.language}), "
            f"{self.n_items} items of {self.data}"
        )

    def png(self) -> bytes:
        """The forest plot of the probes (``audit_shifts.png``), as PNG bytes."""
        return render_png(self.results, self.thresholds.confidence, self.plot_title)

    def markdown(self) -> str:
        """The card: verdict, one row per probe, why each probe did not pass, thresholds, notes, logs.

        Returns:
            Markdown text.
        """
        t = self.thresholds
        level = share_text(t.confidence)
        lines = [
            f"## Judge audit: {self.verdict.upper()}",
            "",
            f"Judge `{self.judge}` (strategy `{self.strategy}`, instructions in `{self.language}`) on "
            f"{self.n_items} items of {self.data}: {self.count('pass')} pass, {self.count('fail')} fail, "
            f"{self.count('inconclusive')} inconclusive.",
            "",
            *self._noise_floor(),
            f"Scores 0-{MAX_SCORE}. Mean: over the probe's scored items. Paired: the probe's and the "
            "comparison's means over the items the judge scored in both, whose difference is the shift. "
            f"[{level} CI]: Student t over items, its spread counting a pseudo-item above and below the mean, "
            f"as far as an item could lie ({_weight(PSEUDO_ITEMS)} each); rates with exact (Clopper-Pearson) intervals. "
            "Invariance probes: their flips "
            "(items whose score changed, or rose for `not_higher`) beyond the control's on the same items. "
            "The bold figures decide the verdict.",
            "",
            "| probe | expectation | mean | paired: probe − comparison | shift [CI] | rate [CI] | unscored "
            "| verdict |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
            *(self._row(result) for result in self.results),
        ]
        reasons = [r for r in self.results if r.verdict != "pass"]
        if reasons:
            lines += ["", "Not passed:", *(f"- `{r.probe}` {_mark(r.verdict)}: {r.reason}" for r in reasons)]
        lines += [
            "",
            # A whole command, so that it runs as written (the rerun replays Inspect's cached replies).
            f"Thresholds (adjustable: `vivid audit {self.judge} --strategy {self.strategy} --language {self.language} "
            f"--threshold min_rate={t.min_rate}`, any NAME=VALUE below; or `Thresholds(...)` in Python; see docs/audit.md):",
            "",
            "| threshold | value | decides |",
            "| --- | --- | --- |",
            *(f"| `{f.name}` | {getattr(t, f.name)} | {THRESHOLD_USES[f.name]} |" for f in fields(t)),
        ]
        notes = [*self.notes, *(f"`{r.probe}`: {note}" for r in self.results for note in r.notes)]
        if notes:
            lines += ["", "Notes:", *(f"- {note}" for note in notes)]
        if self.log_locations:
            lines += ["", "Logs (`inspect view`):", *(f"- {location}" for location in self.log_locations)]
        return "\n".join(lines) + "\n"

    def _row(self, r: ProbeResult) -> str:
        own = r.expectation in OWN_SCORE
        expects = f"{EXPECTS[r.expectation].format(c=f'`{r.comparison}`')} ({bound_text(r.expectation, self.thresholds)})"
        mean = _num(r.mean)
        if own:
            mean = f"**{mean}** [{_num(r.mean_ci_low)}, {_num(r.mean_ci_high)}]"
        if r.comparison is None:
            comparison = "—"
        elif r.n_paired == 0:
            comparison = f"`{r.comparison}`: no item scored in both"
        else:
            comparison = (
                f"{_num(r.paired_mean)} − `{r.comparison}` {_num(r.comparison_mean)} ({r.n_paired} items)"
            )
        shift = _num(r.shift, "+.2f")
        if not math.isnan(r.shift):
            shift = (
                f"{shift if own else f'**{shift}**'} [{_num(r.ci_low, '+.2f')}, {_num(r.ci_high, '+.2f')}]"
            )
        rate = f"{r.rate_name} {percent_text(r.rate)} [{percent_text(r.rate_ci_low)}, {percent_text(r.rate_ci_high)}]"
        if r.expectation in INVARIANCE and not math.isnan(r.excess_flips):
            rate = (
                f"flips {percent_text(1 - r.rate)} − control {percent_text(r.control_flips)}: **{signed_percent_text(r.excess_flips)}** "
                f"[{signed_percent_text(r.excess_ci_low)}, {signed_percent_text(r.excess_ci_high)}] (≤ {percent_text(r.flip_bound)})"
            )
        elif r.expectation in INVARIANCE:
            rate = f"flips {percent_text(1 - r.rate)}, no control (≤ {percent_text(r.flip_bound)})"
        elif r.expectation != CONTROL:
            rate = f"**{rate}** (≥ {share_text(self.thresholds.min_rate)})"
        unscored = str(r.unscored) if r.comparison is None else f"{r.unscored} / {r.comparison_unscored}"
        return (
            f"| `{r.probe}` | {expects} | {mean} | {comparison} | {shift} | {rate} | {unscored} | "
            f"{_mark(r.verdict)} |"
        )

    def _noise_floor(self) -> list[str]:
        """The control's line, first after the header: how well the judge repeats itself."""
        control = next((r for r in self.results if r.expectation == CONTROL), None)
        if control is None:
            return [
                "No control (`retest`): the judge's test-retest noise is unknown, so no invariance probe "
                "can fail on its flips alone.",
                "",
            ]
        if control.n_paired == 0:
            return [f"Noise floor (`{control.probe}`): no item scored in both calls.", ""]
        return [
            f"Noise floor (`{control.probe}`, `{control.comparison}` judged again as a fresh call): the two "
            f"calls agree on {percent_text(control.rate)} [{percent_text(control.rate_ci_low)}, {percent_text(control.rate_ci_high)}] "
            f"of {control.n_paired} items, shift {_num(control.shift, '+.2f')}; each invariance probe's flips "
            "are counted beyond the control's.",
            "",
        ]

    def rows(self) -> list[dict[str, Any]]:
        """One row per probe for ``audit.csv``: the card's identity, then every statistic.

        Floats are rounded to 4 decimals; a value that could not be computed is None; notes are
        joined with ``; ``.

        Returns:
            The rows, in the probes' order.
        """
        identity = {name: getattr(self, name) for name in CARD_COLUMNS}
        rows = []
        for result in self.results:
            row: dict[str, Any] = dict(identity)
            for f in fields(result):
                value = getattr(result, f.name)
                if f.name == "notes":
                    value = "; ".join(value)
                elif isinstance(value, float):
                    value = round(value, 4) if math.isfinite(value) else None
                row[f.name] = value
            rows.append(row)
        return rows

    def csv_text(self) -> str:
        """`rows` as CSV; text cells a spreadsheet would run as formulas are neutralised."""
        rows = self.rows()
        buffer = io.StringIO()
        columns = list(rows[0]) if rows else [*CARD_COLUMNS, *(f.name for f in fields(ProbeResult))]
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: neutralise(v) if isinstance(v, str) else v for k, v in row.items()})
        return buffer.getvalue()

    def write(self, out_dir: Path) -> dict[str, Path]:
        """Write ``audit.md``, ``audit.csv`` and ``audit_shifts.png`` into ``out_dir``.

        All three are rendered before any is written, so a failure to draw leaves no file behind;
        each is then written to a temporary file and renamed over its name.

        Args:
            out_dir: The folder (created when missing).

        Returns:
            File name -> the path written, in `FILES` order.
        """
        contents: tuple[str | bytes, ...] = (self.markdown(), self.csv_text(), self.png())
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, content in zip(FILES, contents, strict=True):
            write_atomic(out_dir / name, content)
        return {name: out_dir / name for name in FILES}


def build_card(
    scores: Mapping[str, Mapping[Any, Any]],
    probes: Sequence[ProbeLike],
    *,
    judge: str,
    strategy: str,
    language: str,
    data: str,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    seed: int = 0,
    log_locations: Sequence[str] = (),
) -> AuditCard:
    """The audit card of a judge's scores of every probe.

    Args:
        scores: Probe name -> item id -> 0-5 score, NaN (or None) when unscored.
        probes: The probes, in the card's order; one whose scores are absent is left out (a run of
            a subset), and scores of a probe not listed are ignored with a note.
        judge: The judge model's name.
        strategy: The judge prompting strategy.
        language: The language of the judge's instructions.
        data: The data source of the items.
        thresholds: The bounds of the verdicts.
        seed: The audit's seed (of the item draw and the derivations), shown on the card.
        log_locations: Where the probe logs are.

    Returns:
        The card.

    Raises:
        ValueError: No listed probe has scores, a score is off the 0-5 scale, a probe's
            expectation is unknown, or the seed is not a whole number 0 or more.
    """
    check_seed(seed)
    listed = [probe.name for probe in probes]
    if not any(name in scores for name in listed):
        have = ", ".join(map(repr, scores)) or "none"
        raise ValueError(f"no probe of the audit has scores (probes: {', '.join(listed)}; scores of: {have})")
    results = evaluate(scores, probes, thresholds)
    ignored = [name for name in scores if name not in listed]
    notes = [f"scores of probe(s) not in the audit ignored: {', '.join(ignored)}"] if ignored else []
    items = {item for result in results for item in scores[result.probe]}
    return AuditCard(
        judge=judge,
        strategy=strategy,
        language=language,
        data=data,
        n_items=len(items),
        results=results,
        thresholds=thresholds,
        seed=seed,
        log_locations=tuple(log_locations),
        notes=tuple(notes),
    )


def _num(value: float, spec: str = ".2f") -> str:
    return "n/a" if math.isnan(value) else format(value, spec)


def _weight(value: float) -> str:
    return "weight 1" if value == 1 else f"weight {value:g}"


def _mark(verdict: str) -> str:
    return "**FAIL**" if verdict == "fail" else verdict
