"""`vivid audit --from LOG_DIR`: whether judges favour their own family's answers, read from a folder of logs."""
