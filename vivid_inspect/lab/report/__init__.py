"""Reporting: judge-vs-human agreement statistics and human annotation files."""
