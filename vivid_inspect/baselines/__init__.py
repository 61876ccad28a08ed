"""Offline reference models: ``vivid/oracle`` (a ceiling) and ``vivid/literal`` (a floor)."""
