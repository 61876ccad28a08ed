"""The report's tables: the report's tables, built from score rows with the statistics, and their markdown, CSV and LaTeX forms."""
