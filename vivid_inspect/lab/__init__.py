"""The laboratory: experiments, reports, audits and human annotation, on top of the benchmark core.

The core (``vivid_inspect`` outside this package: tasks, data, solvers, scorers, baselines, the log
contract) imports nothing from here (``tests/test_architecture.py``). The laboratory meets the core
through Inspect's logs and `vivid_inspect.log_contract`.
"""
