"""Where agents are built: provider-native tool search (Anthropic deferred loading, OpenAI
Responses ``tool_search``), Gemini function declarations with find_tools, and each framework's
own hook: a LangChain agent middleware, a PydanticAI capability, the OpenAI Agents SDK's dynamic
tool enabling.

Each integration is its own module, imported on use, so ``import toolret`` loads no SDK:
``toolret.integrations.anthropic``, ``.openai``, ``.gemini``, ``.langchain``
(``pip install 'toolret[langchain]'``), ``.pydantic_ai`` (``'toolret[pydantic-ai]'``) and
``.openai_agents`` (``'toolret[openai-agents]'``). What the framework hooks share (one selection
per turn, what a round binds) is in ``toolret.retrieval._rounds``; their catalogs, built from the
framework's own tool definitions, in ``_catalogs``.
"""
