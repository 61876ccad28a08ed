"""Human scores: read, checked and bound to the generation they scored.

Reading and binding sit below the report, which compares judges with people. Making human
scores (blind sheets and ``vivid annotate serve``) sits in `vivid_inspect.lab.humans.annotate`,
above the report, because it reads the logs of the generations it shows.
"""
