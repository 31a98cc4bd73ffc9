# Homebrew formula for a tap (README, "Install"): copy it to Formula/listdiff.rb in a
# repository named homebrew-tap, then `brew install OWNER/tap/listdiff`. Each release sets
# the tag to its version (a test checks that it is the library's).
class Listdiff < Formula
  desc "Diff files of records (JSON, NDJSON, YAML, CSV) matched by key"
  homepage "https://github.com/listdiff/listdiff"
  url "https://github.com/listdiff/listdiff.git", tag: "v0.3.0"
  license "Apache-2.0"
  head "https://github.com/listdiff/listdiff.git", branch: "main"

  depends_on "pkgconf" => :build
  depends_on "libyaml"
  uses_from_macos "swift" => :build

  def install
    system "swift", "build", "--disable-sandbox", "--configuration", "release", "--product", "listdiff"
    bin.install ".build/release/listdiff"
    man1.install "man/listdiff.1"
    generate_completions_from_executable(bin/"listdiff", "--generate-completion-script",
                                         shells: [:bash, :zsh, :fish])
  end

  test do
    (testpath/"old.json").write '[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]'
    (testpath/"new.json").write '[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace Hopper"}]'
    # Exit status 1: the files differ.
    output = shell_output("#{bin}/listdiff old.json new.json", 1)
    assert_match '~ id=2 /name: "Grace" → "Grace Hopper"', output
    assert_match "0 inserted, 0 deleted, 0 moved, 1 updated, 1 unchanged", output
    # Exit status 0: the same records.
    assert_equal "", shell_output("#{bin}/listdiff --quiet old.json old.json")
    assert_match(/\A\d+\.\d+\.\d+\n\z/, shell_output("#{bin}/listdiff --version"))
  end
end
