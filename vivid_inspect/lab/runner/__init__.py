"""The declarative experiment runner behind ``vivid run | plan | validate SPEC.yaml``.

A spec (`.spec`) names run blocks (tasks × prompts × models on chosen
items), judges, an optional panel and a human scores file. ``spec.load.load_spec`` validates it
and reports every problem with its YAML path; ``plan.make_plan`` lists its cells and the calls
still to make; ``execute.run_spec`` generates with ``inspect_ai.eval_set``, judges the explanation
logs with ``inspect_ai.score``, aggregates the panel and builds the report, skipping finished work.
This package imports nothing itself: ``vivid --help`` must stay light.
"""
