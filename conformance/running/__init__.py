"""Running: the suite as a pytest run.

Owns the configuration of a project (`config`, `options`), the engine behind the thin plugin
(`engine`: test generation, the run's state, snapshots), which part of the matrix runs
(`selection`), the features a target declares not applicable (`applicable`), the properties as
results lines (`property_gate`) and the results file written atomically with a truthful end line
(`runlog`). May import every stage below it (judging, recording, targets, wire, matrix,
scenarios, the shared words); never reports or adoption.
"""
