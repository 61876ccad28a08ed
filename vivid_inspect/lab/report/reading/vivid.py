"""VIVID's adapter side of the seam: what the report's VIVID-only tables and cards take from the benchmark.

The statistics, tables and cards import no VIVID benchmark module (`tests/test_architecture.py`,
``BENCHMARK``): the paper's taxonomy and headings, its judges' strategies and languages, the log
contract's roles and records come through this module, beside the adapter that reads VIVID's logs
(`vivid_inspect.lab.report.reading.score_rows`). Another eval's logs never need them: their rows
come from `vivid_inspect.lab.report.reading.any_eval`, and the tables that read these names (the
paper's Tables 3-5 and comparisons, the audit cards, the choice of the paper's judge) leave such
rows in their generic columns.
"""

from vivid_inspect.data.sources import hf_label as hf_label
from vivid_inspect.judge_id import DEFAULT_LANGUAGE as DEFAULT_LANGUAGE
from vivid_inspect.judge_id import DEFAULT_STRATEGY as DEFAULT_STRATEGY
from vivid_inspect.judge_id import LLM_STRATEGIES as LLM_STRATEGIES
from vivid_inspect.judge_id import PANEL_STRATEGY as PANEL_STRATEGY
from vivid_inspect.judge_id import JudgeId as JudgeId
from vivid_inspect.log_contract import GRADER_ROLE as GRADER_ROLE
from vivid_inspect.log_contract import AuditRecord as AuditRecord
from vivid_inspect.log_contract import read_audit_record as read_audit_record
from vivid_inspect.taxonomy import PAPER_HEADINGS as PAPER_HEADINGS
from vivid_inspect.taxonomy import THEME_NAMES as THEME_NAMES
from vivid_inspect.taxonomy import TRAIT_NAMES as TRAIT_NAMES
