//! The `openai-completions` wire: OpenAI Chat Completions and compatible servers (Ollama, vLLM, llama.cpp, OpenRouter, ...).
