"""The report's reading: a log folder read: which files are logs, headers and summaries within the cap, one score row per judged item, each judgement counted once."""
