"""The spec: its typed model, the YAML it is read from, and every check it must pass.

"Where is a spec validated?" Here, and only here:

- `.yaml_source`: the YAML text, with its limits against YAML bombs;
- `.model`: the typed spec (pydantic), the shape every key must have;
- `.checks`: the spec against the project (tasks, parameters, providers, judges, files);
- `.credentials`: credentials refused wherever they are written;
- `.human_check`: the human scores file and the generation it scored;
- `.load`: the order of all of the above, every problem reported at once;
- `.problems`: one message per problem, at its YAML path.

Nothing here loads data, builds a model or reads an API key, and this package imports nothing
itself: ``vivid --help`` must stay light.
"""
