"""The ``agents`` command line, one module per command family: ``run`` (run, follow, list,
status), ``answer`` (resolve, interrupt), ``stack`` (up, down, env), ``export`` (export, stats),
``inbox``; ``session`` is what they share, ``main`` the parser and the entry point."""
