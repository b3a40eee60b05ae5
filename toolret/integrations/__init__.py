"""Where agents are built: provider-native tool search (Anthropic deferred loading, OpenAI
Responses ``tool_search``), Gemini function declarations with find_tools, and a LangChain
agent middleware.

Each integration is its own module, imported on use, so ``import toolret`` loads no SDK:
``toolret.integrations.anthropic``, ``toolret.integrations.openai``,
``toolret.integrations.gemini`` and ``toolret.integrations.langchain`` (the last needs
``pip install 'toolret[langchain]'``).
"""
