"""Everything built and checked before the first model call of ``vivid run``.

- :mod:`.prepared`: each run block's tasks and items (data read, listed ids checked);
- :mod:`.items` and :mod:`.sampling`: which items a block runs on (all, first N, ids, a sample);
- :mod:`.models`: every generator and judge model, created up front;
- :mod:`.preflight`: one cheap request per endpoint that still has calls to make.
"""
