"""Tools agents use while they work: a pinned workspace, read-only code tools, episodic memory."""
