"""Local servers for tests and benchmarks: a stub OpenAI endpoint, the llama.cpp server."""
