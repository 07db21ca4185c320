"""For tests and benchmarks: a scripted model, a stub OpenAI endpoint, the llama.cpp server, free
ports."""
