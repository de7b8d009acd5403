"""Adoption: what a framework's maintainer runs in their own repository.

Owns `conformance init` and `conformance check` (`init`, with the files it writes in
`templates/`), deviations files written from person-written reasons (`reasons`) and standalone
reproducers of a cell (`repro`). The top stage below the command line: it may import any stage.
"""
