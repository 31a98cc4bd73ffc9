#!/usr/bin/env bash
# Builds the release archive, or installs one (README, "Install").
#
#   Scripts/release.sh [--output-dir DIR]       builds dist/listdiff-VERSION-linux-ARCH.tar.gz
#   Scripts/release.sh install PREFIX [ARCHIVE]  installs ARCHIVE (default: one built now) in PREFIX
#
# The binary is linked with the static Swift standard library and a static libyaml, so that
# it runs on a machine without Swift or libyaml; `ldd` then names only parts of the C
# library. The archive is a PREFIX tree: bin/, share/man/man1/, and the folders bash, zsh and
# fish load completions from. The build goes to .build-release, beside the debug build.
set -euo pipefail
repository="$(cd "$(dirname "$0")/.." && pwd)"

# What `ldd` may name: glibc's libraries, the loader, and the C++ and GCC runtime libraries.
allowed='^(linux-vdso|linux-gate|libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libutil|ld-linux[-a-z0-9_]*)\.so'

# Temporary folders, removed on exit.
temporary=()
trap 'rm -rf "${temporary[@]}"' EXIT

die() {
    echo "release.sh: $*" >&2
    exit 2
}

# Checks that `binary` needs no shared library beyond the C library's own parts.
check_links() {
    local binary="$1" name extra=()
    while read -r name _; do
        [ -z "$name" ] && continue
        name="${name##*/}"
        [[ "$name" =~ $allowed ]] || extra+=("$name")
    done < <(ldd "$binary")
    [ ${#extra[@]} -eq 0 ] || die "$binary links ${extra[*]}, which a machine without Swift may lack"
}

build() {
    local out="$repository/dist"
    if [ "${1:-}" = "--output-dir" ]; then
        [ $# -eq 2 ] || die "--output-dir takes a folder"
        mkdir -p "$2"
        out="$(cd "$2" && pwd)"
    elif [ $# -gt 0 ]; then
        die "unknown argument '$1' (usage: Scripts/release.sh [--output-dir DIR] | install PREFIX [ARCHIVE])"
    fi
    local scratch="$repository/.build-release"
    # libyaml's static archive, alone in a folder that a pkg-config file of its own names:
    # the linker's -lyaml (CYAML's module map asks for it) then finds it there, before the
    # system's folder, where libyaml.so would win. The normal build reads the system's file.
    local libdir version_yaml static="$scratch/static-libs"
    libdir="$(pkg-config --variable=libdir yaml-0.1 2>/dev/null)" || die "libyaml is missing (apt-get install libyaml-dev pkg-config)"
    version_yaml="$(pkg-config --modversion yaml-0.1)"
    [ -f "$libdir/libyaml.a" ] || die "$libdir/libyaml.a is missing (apt-get install libyaml-dev)"
    mkdir -p "$static/pkgconfig"
    ln -sf "$libdir/libyaml.a" "$static/libyaml.a"
    printf 'Name: LibYAML\nDescription: libyaml, linked statically\nVersion: %s\nCflags: %s\nLibs: -L%s -lyaml\n' \
        "$version_yaml" "$(pkg-config --cflags yaml-0.1)" "$static" >"$static/pkgconfig/yaml-0.1.pc"
    PKG_CONFIG_PATH="$static/pkgconfig" swift build --package-path "$repository" --scratch-path "$scratch" \
        -c release --product listdiff --static-swift-stdlib >&2
    local binary="$scratch/release/listdiff"
    check_links "$binary"

    local version arch name stage
    version="$("$binary" --version)"
    arch="$(uname -m)"
    name="listdiff-$version-linux-$arch"
    stage="$(mktemp -d)"
    temporary+=("$stage")
    local root="$stage/$name"
    install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
        "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d" "$root/share/doc/listdiff"
    install -m 755 -s "$binary" "$root/bin/listdiff"
    install -m 644 "$repository/man/listdiff.1" "$root/share/man/man1/listdiff.1"
    # The scripts as the binary writes them, with the repairs it applies (Main.swift).
    "$binary" --generate-completion-script bash >"$root/share/bash-completion/completions/listdiff"
    "$binary" --generate-completion-script zsh >"$root/share/zsh/site-functions/_listdiff"
    "$binary" --generate-completion-script fish >"$root/share/fish/vendor_completions.d/listdiff.fish"
    chmod 644 "$root/share/bash-completion/completions/listdiff" "$root/share/zsh/site-functions/_listdiff" \
        "$root/share/fish/vendor_completions.d/listdiff.fish"
    install -m 644 "$repository/README.md" "$repository/CHANGELOG.md" "$repository/LICENSE" "$root/share/doc/listdiff/"
    # The same bytes for the same files: sorted names, no owner, one time.
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' \
        -C "$stage" -czf "$out/$name.tar.gz" "$name"
    echo "$out/$name.tar.gz"
}

# Copies an archive's tree into PREFIX (under DESTDIR, for packagers), each file with its mode.
install_archive() {
    [ $# -ge 1 ] && [ $# -le 2 ] || die "usage: Scripts/release.sh install PREFIX [ARCHIVE]"
    local prefix="$1" archive="${2:-}"
    [ -n "$prefix" ] || die "PREFIX is empty"
    local stage
    stage="$(mktemp -d)"
    temporary+=("$stage")
    # No archive named: one is built, beside the files it is unpacked to.
    [ -n "$archive" ] || archive="$(build --output-dir "$stage/archive")"
    [ -f "$archive" ] || die "no archive at $archive"
    mkdir -p "$stage/tree"
    tar -C "$stage/tree" -xzf "$archive"
    local root
    root="$(find "$stage/tree" -mindepth 1 -maxdepth 1 -type d)"
    [ -x "$root/bin/listdiff" ] || die "$archive holds no bin/listdiff"
    local target="${DESTDIR:-}$prefix" file
    (cd "$root" && find . -type f | sort) | while read -r file; do
        file="${file#./}"
        if [ "$file" = bin/listdiff ]; then
            install -D -m 755 "$root/$file" "$target/$file"
        else
            install -D -m 644 "$root/$file" "$target/$file"
        fi
        echo "$target/$file"
    done
}

case "${1:-}" in
    install) shift; install_archive "$@" ;;
    *) build "$@" ;;
esac
