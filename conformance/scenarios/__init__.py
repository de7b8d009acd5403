"""Scenarios: from a cell to the canonical history a target renders.

Owns the tiny real fixture media (`fixtures`), the fixture host that serves URL media on
127.0.0.1 during a run (`host`), the history of each cell (`build.scenario`: a tool call and its
result, parallel calls, error results, tool-produced user content) and the hypothesis strategies
that draw histories beyond the cells (`strategies`). May import only the words every stage shares
(`conformance.history`, `conformance.marker`, `conformance.errors`, `conformance.paths`).
"""
