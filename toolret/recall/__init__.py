"""The one recall runner, behind ``toolret recall DIR``: recall on benchmark sets, yours or ours.

- ``data``: a benchmark folder (tools or MCP servers, cases, examples) as one ``BenchSet``;
- ``results``: what a run measures (``RankMetrics``, ``BenchRow``, ``BenchResult``);
- ``runner``: both retrievers over every set, mode and example configuration;
- ``studies``: the comparisons behind each ranking choice (template, role, score, hybrid; and for
  catalogs users bring, documents, servers, clauses);
- ``memo``: an embedder wrapper that embeds each text once per run (and, with ``--memo FILE``,
  between runs);
- ``report``: markdown tables and, with the ``[eval]`` extra, recall@k plots.
"""
