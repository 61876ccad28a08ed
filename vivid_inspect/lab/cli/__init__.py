"""The ``vivid`` command line: ``vivid run | plan | validate SPEC`` (see `vivid_inspect.lab.cli.main`)."""
