#!/usr/bin/env bash
# Regenerates man/listdiff.1 from the command's own help (argument-parser's generate-manual plugin).
# The plugin's page is then tidied for man(1): a blank line between paragraphs becomes .Pp
# (mdoc warns of empty input lines), and the EXIT STATUS section says what 0, 1 and 2 mean
# instead of the generic "0 on success, >0 on error", which would call a difference an error.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --allow-writing-to-package-directory generate-manual \
    --configuration debug --date 2026-11-21 --authors "the listdiff team" >/dev/null
python3 - .build/plugins/GenerateManual/outputs/listdiff/listdiff.1 man/listdiff.1 <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
lines = [".Pp" if line.strip() == "" else line for line in text.split("\n")[:-1]]
text = "\n".join(lines) + "\n"
text = text.replace(
    ".Sh \"EXIT STATUS\"\n.Ex -std\n",
    ".Sh \"EXIT STATUS\"\n.Nm\nexits 0 when the inputs hold the same records, 1 when they differ (with --fail-on,"
    " only when a change of those kinds occurred), and 2 on trouble: bad usage, an unreadable or malformed input,"
    " a missing or duplicate key (over two folders, trouble at any path, though every other path is still diffed and written). listdiff apply exits 0 when it applied the changeset, and 2 otherwise; listdiff invert, listdiff compose and listdiff join exit 0 when they wrote the changeset, and 2 otherwise, as does listdiff --partition, which writes one shard's; listdiff hash exits 0 when it wrote the hashes, and 2 otherwise;"
    " listdiff check exits 0 when every file reads, and 2 otherwise; listdiff config exits 0, or 2 for a configuration file it cannot read.\n")
# The configuration file, which the commands' help mentions but no option documents.
text = text.replace(
    ".Sh \"EXIT STATUS\"\n",
    ".Sh FILES\n.Bl -tag -width Ds\n.It Pa .listdiff.yaml\n"
    "Settings for the files in its folder and below, found as .editorconfig is: from the file's folder up to the"
    " repository's root (a folder holding .git), or a file that says root: true. It holds profiles, each naming its"
    " files by glob (files: \\(dq*.users.json\\(dq) and setting any of the key, rule, reading and output options of"
    " listdiff diff, by their long names without dashes (key: id, ignore: [/updated_at]). The command line wins over"
    " it, a nearer file over a farther one, a later profile over an earlier one. It cannot set an output file or run"
    " a program. listdiff config PATH prints the settings in force and where each came from.\n.El\n"
    ".Sh \"EXIT STATUS\"\n", 1)
open(sys.argv[2], "w", encoding="utf-8").write(text)
PY
echo "man/listdiff.1 regenerated"
