"""Input file formats other than the VIVID data itself (see :mod:`vivid_inspect.data`)."""
