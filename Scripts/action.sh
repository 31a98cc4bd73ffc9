#!/usr/bin/env bash
# The GitHub Action's steps (action.yml), kept here so that they run and are tested locally.
#
#   Scripts/action.sh install   installs listdiff (a release archive, or built from this source)
#   Scripts/action.sh diff      diffs INPUT_OLD and INPUT_NEW; report, outputs, sticky comment
#
# Inputs come as INPUT_* variables; GitHub's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# GITHUB_PATH, GITHUB_EVENT_PATH) are written as the runner reads them. The pull request's
# comment is posted, or found by its hidden marker and edited, with `gh api`.
set -euo pipefail
action="$(cd "$(dirname "$0")/.." && pwd)"

# A workflow command's message, escaped as the runner reads it (%, CR and LF).
escape() {
    local text="$*"
    text="${text//%/%25}"
    text="${text//$'\r'/%0D}"
    printf '%s' "${text//$'\n'/%0A}"
}

fail() {
    echo "::error title=listdiff action::$(escape "$*")"
    exit 2
}

# The value of an input, or its default.
input() {
    local name="INPUT_$1"
    printf '%s' "${!name:-${2:-}}"
}

install_listdiff() {
    local dest="${RUNNER_TEMP:-$(mktemp -d)}/listdiff"
    local url version repository archive
    url="$(input ARCHIVE_URL)"
    version="$(input VERSION)"
    if [ -z "$url" ] && [ -n "$version" ]; then
        [[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || fail "version '$version' is not a version number"
        version="${version#v}"
        # The releases of the repository the action comes from (the workflow's own, for uses: ./).
        repository="${ACTION_REPOSITORY:-${GITHUB_REPOSITORY:-}}"
        [ -n "$repository" ] || fail "no repository to download version $version from; give archive-url"
        url="https://github.com/$repository/releases/download/v$version/listdiff-$version-linux-$(uname -m).tar.gz"
    fi
    local work
    work="$(mktemp -d)"
    if [ -n "$url" ]; then
        echo "Downloading $url"
        archive="$work/listdiff.tar.gz"
        curl --fail --silent --show-error --location --retry 3 --output "$archive" "$url" || fail "could not download $url"
    else
        # No release named: build this source (Swift is on GitHub's Ubuntu runners).
        if ! pkg-config --exists yaml-0.1 2>/dev/null; then
            sudo apt-get update -qq && sudo apt-get install -y -qq libyaml-dev pkg-config
        fi
        archive="$("$action/Scripts/release.sh" --output-dir "$work")"
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    tar -xzf "$archive" -C "$dest" --strip-components=1 || fail "$url is not a listdiff release archive"
    [ -x "$dest/bin/listdiff" ] || fail "the archive holds no bin/listdiff"
    rm -rf "$work"
    echo "$dest/bin" >>"${GITHUB_PATH:?}"
    echo "Installed $("$dest/bin/listdiff" --version) in $dest"
}

run_diff() {
    local old new id
    old="$(input OLD)"
    new="$(input NEW)"
    [ -n "$old" ] && [ -n "$new" ] || fail "the inputs old and new are required"
    id="$(input COMMENT_ID listdiff)"
    [[ "$id" =~ ^[A-Za-z0-9._-]+$ ]] || fail "comment-id may hold letters, digits, '.', '_' and '-' only"
    # The further options, split as a shell splits words, but never run by one.
    local -a args=()
    local split
    split="$(mktemp)"
    python3 -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[1])))' \
        "$(input ARGS)" >"$split" || fail "args is not a list of words: $(input ARGS)"
    mapfile -d '' args <"$split"
    rm -f "$split"

    local out="${RUNNER_TEMP:-$(mktemp -d)}/listdiff-$id"
    mkdir -p "$out"
    local changeset="$out/changeset.json" report="$out/report.md"
    local status=0
    listdiff "${args[@]}" --format json --output "$changeset" "$old" "$new" || status=$?
    {
        echo "exit-code=$status"
        echo "changeset=$changeset"
    } >>"${GITHUB_OUTPUT:?}"
    if [ "$status" -ge 2 ]; then
        fail "listdiff exited $status (its message is above)"
    fi
    listdiff "${args[@]}" --format markdown --output "$report" "$old" "$new" || [ $? -eq 1 ] || fail "listdiff could not write the report"
    echo "report=$report" >>"$GITHUB_OUTPUT"
    # The counts, from the changeset's summary.
    python3 - "$changeset" >>"$GITHUB_OUTPUT" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1], encoding="utf-8"))["summary"]
for kind in ("inserted", "deleted", "updated", "moved", "unchanged"):
    print(f"{kind}={int(summary[kind])}")
PY
    if [ "$(input SUMMARY true)" = true ]; then
        cat "$report" >>"${GITHUB_STEP_SUMMARY:?}"
    fi
    if [ "$(input COMMENT false)" = true ]; then
        comment "$id" "$report" "$out"
    fi
    if [ "$status" -eq 1 ] && [ "$(input FAIL_ON_DIFFERENCE false)" = true ]; then
        echo "::error title=listdiff::$(escape "$old and $new differ")"
        exit 1
    fi
}

# Posts the report as the pull request's comment marked with `id`, or edits that comment.
comment() {
    local id="$1" report="$2" out="$3"
    local number
    number="$(python3 - "${GITHUB_EVENT_PATH:?}" <<'PY'
import json, sys
event = json.load(open(sys.argv[1], encoding="utf-8"))
number = (event.get("pull_request") or {}).get("number")
if number is None and (event.get("issue") or {}).get("pull_request"):
    number = event["issue"]["number"]
print(int(number) if number is not None else "")
PY
)"
    if [ -z "$number" ]; then
        echo "::notice title=listdiff::not a pull request's event; no comment posted"
        return
    fi
    local repository="${GITHUB_REPOSITORY:?}" marker="<!-- listdiff-action: $id -->"
    local pages="$out/comments.json" request="$out/comment.json"
    gh api --paginate "repos/$repository/issues/$number/comments" >"$pages" ||
        fail "gh could not read the comments of pull request #$number (is github-token allowed to?)"
    # The first of the pages' comments that holds the marker; the body of the new one, cut to
    # GitHub's limit at a line's end.
    local existing
    existing="$(python3 - "$pages" "$marker" "$report" "$request" <<'PY'
import json, sys
pages, marker, report, request = sys.argv[1:]
text, decoder, at, found = open(pages, encoding="utf-8").read(), json.JSONDecoder(), 0, ""
while not found:
    while at < len(text) and text[at].isspace():
        at += 1
    if at == len(text):
        break
    page, at = decoder.raw_decode(text, at)
    found = next((str(int(c["id"])) for c in page if marker in (c.get("body") or "")), "")
body = open(report, encoding="utf-8").read()
limit = 60000
if len(body) > limit:
    body = body[: body.rfind("\n", 0, limit) + 1] + "\n*The report is cut here; the job summary has all of it.*\n"
json.dump({"body": marker + "\n" + body}, open(request, "w", encoding="utf-8"))
print(found)
PY
)"
    if [ -n "$existing" ]; then
        gh api --method PATCH "repos/$repository/issues/comments/$existing" --input "$request" >/dev/null ||
            fail "gh could not edit comment $existing (the job needs permissions: pull-requests: write)"
        echo "Updated comment $existing on pull request #$number"
    else
        gh api --method POST "repos/$repository/issues/$number/comments" --input "$request" >/dev/null ||
            fail "gh could not comment on pull request #$number (the job needs permissions: pull-requests: write)"
        echo "Commented on pull request #$number"
    fi
}

case "${1:-}" in
    install) install_listdiff ;;
    diff) run_diff ;;
    *)
        echo "usage: Scripts/action.sh install|diff" >&2
        exit 2
        ;;
esac
