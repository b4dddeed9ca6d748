"""agent-interrupts, as it is installed: the repository's top-level folders (``models``,
``workflows``, ``activities``, ``app``, ``prompts``, ``teams``) and scripts (``worker.py``,
``client.py``) under one package name, so that no installed module is called ``models`` or
``client``.

In the repository these are links to the folders at the top (the layout the project keeps);
the wheel holds the files themselves."""
