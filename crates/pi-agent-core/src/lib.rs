//! The agent loop: the extensible `AgentMessage<C>`, `transform_context` then `convert_to_llm` before every model call, tool execution in call order, and agent events.
