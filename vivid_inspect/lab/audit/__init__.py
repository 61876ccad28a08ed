"""`vivid audit`: metamorphic probes of a judge, their statistics, verdicts and card."""
