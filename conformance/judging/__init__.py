"""Judging: from a rendering to verdicts.

Owns how a target is called so that nothing it does can stop the run (`guard`), what a payload
is observed to do (`observe`, over the independent wire locators), the checks of a cell
(`checks`), the rule that a typed refusal never fails a required check (`refusal`), the
canonical bytes of a payload (`payload`), the levels of each rule (`levels`), the deviations
files a target declares (`deviations`) and the properties searched beyond the cells
(`properties`). May import recording, targets, the wire locators, the matrix, the scenarios and the
shared words; never the running, reports or adoption stages above it.
"""
