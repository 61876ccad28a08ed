"""The ``vivid`` command line: ``vivid run | plan | validate SPEC`` (see :mod:`vivid_inspect.lab.cli.main`)."""
