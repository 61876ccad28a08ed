"""Test peers for vivid-inspect: local stand-ins for remote services, for tests and bench scripts.

`vivid_inspect.testing.openai_server` holds `FakeOpenAIServer`, an OpenAI-compatible chat server on
127.0.0.1 with scripted answers, per-model latency, fault injection and request counting.
"""
