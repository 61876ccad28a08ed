"""Test peers for vivid-inspect: local stand-ins for remote services, for tests, bench scripts and users.

``vivid_inspect.testing.openai_server`` holds ``FakeOpenAIServer``, an OpenAI-compatible chat server on
127.0.0.1 with scripted answers, per-model latency, fault injection and request counting (the README's
"Test a judge's reply format offline" shows it checking a judge). ``vivid_inspect.testing.faults``
holds the fault plans that decide which requests fail.
"""
