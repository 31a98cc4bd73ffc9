# Thin targets over Scripts/release.sh (README, "Install").
#   make release                       writes dist/listdiff-VERSION-linux-ARCH.tar.gz
#   make install PREFIX=~/.local       builds one and installs it (DESTDIR is honoured)
PREFIX ?= /usr/local

.PHONY: release install

release:
	Scripts/release.sh

install:
	DESTDIR="$(DESTDIR)" Scripts/release.sh install "$(PREFIX)"
