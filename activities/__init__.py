"""Activities: every side effect of a run (LLM calls, tools, storage), one typed input each."""
