"""Everything built and checked before the first model call of ``vivid run``.

- `.prepared`: each run block's tasks and items (data read, listed ids checked);
- `.items` and `.sampling`: which items a block runs on (all, first N, ids, a sample);
- `.models`: every generator and judge model, created up front;
- `.preflight`: one cheap request per endpoint that still has calls to make.
"""
