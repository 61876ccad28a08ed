"""The judge phase of ``vivid run``: judged logs of the explanation logs, then panels.

- :mod:`.phase`: every judge cell, then every panel cell, a few at a time;
- :mod:`.cell`: one judge cell, ``inspect_ai.score`` of one generation log into one judged log;
- :mod:`.panel`: one panel cell, the members' scores aggregated (no model calls).
"""
