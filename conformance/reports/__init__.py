"""Reports: from results files to what a reader sees.

Owns the records of a results file (`lines`), reading them (`results`) and merging shards
(`shards`), the committed results folder (`store`), the report model (`report`) with its Markdown
(`markdown`) and badges (`badges`), what a figure may count (`figures`: capability, unsettled
failures, n/a cells), the HTML report (`html`), the gate between two runs (`diff`), the comparison
of targets and releases (`compare`, `compare_html`, `timeline`, with the words a cell shows in
`words` and findings by reason in `findings`) and the static site with its JSON API (`site`,
`site_api`, `site_pages`, `site_assets`). May import running (for the results file's format),
judging (levels), recording (snapshot media, for the site's payloads), the matrix and the shared
words; never adoption.
"""
