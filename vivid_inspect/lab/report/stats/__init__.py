"""The report's stats: the statistics, as functions of score arrays and frames: agreement, intervals, corrected means, the alternative annotator test, label allocation."""
