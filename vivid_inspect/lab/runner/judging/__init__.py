"""The judge phase of ``vivid run``: judged logs of the explanation logs, then panels.

- `.phase`: every judge cell, then every panel cell, a few at a time;
- `.cell`: one judge cell, ``inspect_ai.score`` of one generation log into one judged log;
- `.panel`: one panel cell, the members' scores aggregated (no model calls).
"""
