"""Reports: from results files to what a reader sees.

Owns reading and merging results files (`results`), the report model and its Markdown and badges
(`report`), the HTML report (`html`), the gate between two runs (`diff`) and the comparison of
targets and releases (`compare`, `compare_html`, `timeline`), and what a figure may count
(`figures`: capability, unsettled failures, n/a cells). May import running (for the results file's
format), judging (levels), the matrix and the shared words; never adoption.
"""
