#!/bin/sh
# Installs a kbook release archive, verified: the archive's SHA-256 must be
# the one the release's SHA256SUMS lists (and KBOOK_SHA256, when set), and
# the binary must say it is the version asked for. The GitHub Action
# (action.yml) runs it; it works as well by hand:
#
#   KBOOK_VERSION=v0.3.0 sh hack/install.sh
#
# KBOOK_VERSION     the release: a tag such as v0.3.0, or "latest" (or $1)
# KBOOK_BASE_URL    where releases are (default https://github.com/k0rdent/kbook/releases):
#                   $KBOOK_BASE_URL/download/<tag>/<file>, $KBOOK_BASE_URL/latest/download/<file>
# KBOOK_INSTALL_DIR where kbook goes (default ~/.local/bin)
# KBOOK_SHA256      the archive's SHA-256, to pin it beyond SHA256SUMS (optional)
# KBOOK_OS, KBOOK_ARCH  the platform (default: this machine's; linux or darwin, amd64 or arm64)
#
# In GitHub Actions it also adds the folder to GITHUB_PATH and writes the
# outputs version and path to GITHUB_OUTPUT. Nothing is installed unless
# every check passes.
set -eu

fail() {
	echo "kbook install: $*" >&2
	exit 1
}

version=${KBOOK_VERSION:-${1:-}}
[ -n "$version" ] || fail "no version: set KBOOK_VERSION to a release tag (v0.3.0) or latest"
base=${KBOOK_BASE_URL:-https://github.com/k0rdent/kbook/releases}
base=${base%/}
dir=${KBOOK_INSTALL_DIR:-$HOME/.local/bin}

os=${KBOOK_OS:-$(uname -s | tr '[:upper:]' '[:lower:]')}
case $os in
linux | darwin) ;;
*) fail "no kbook release for $os (linux and darwin are released; elsewhere: go install github.com/k0rdent/kbook/cmd/kbook@$version)" ;;
esac
arch=${KBOOK_ARCH:-$(uname -m)}
case $arch in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no kbook release for $arch (amd64 and arm64 are released)" ;;
esac
archive=kbook-$os-$arch.tar.gz

if [ "$version" = latest ]; then
	url=$base/latest/download
else
	url=$base/download/$version
fi

fetch() { # fetch URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 3 -o "$2" "$1" || fail "download $1 failed"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1" || fail "download $1 failed"
	else
		fail "neither curl nor wget is installed"
	fi
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		fail "neither sha256sum nor shasum is installed: cannot verify the archive"
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch "$url/SHA256SUMS" "$tmp/SHA256SUMS"
fetch "$url/$archive" "$tmp/$archive"
want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || fail "$url/SHA256SUMS lists no $archive"
got=$(sha256 "$tmp/$archive")
[ "$got" = "$want" ] || fail "checksum mismatch for $archive: SHA256SUMS says $want, the download is $got: not installed"
if [ -n "${KBOOK_SHA256:-}" ] && [ "$got" != "$KBOOK_SHA256" ]; then
	fail "checksum mismatch for $archive: KBOOK_SHA256 says $KBOOK_SHA256, the download is $got: not installed"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" kbook || fail "$archive holds no kbook"
said=$("$tmp/x/kbook" version) || fail "the kbook in $archive does not run here"
installed=$(echo "$said" | awk '{ print $2 }')
if [ "$version" != latest ] && [ "$installed" != "$version" ]; then
	fail "$archive of $version holds kbook $installed ($said): not installed"
fi

mkdir -p "$dir"
cp "$tmp/x/kbook" "$dir/.kbook.$$"
chmod 0755 "$dir/.kbook.$$"
mv -f "$dir/.kbook.$$" "$dir/kbook"
echo "installed $said into $dir (sha256 of $archive: $got)"

if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$dir" >>"$GITHUB_PATH"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	echo "version=$installed" >>"$GITHUB_OUTPUT"
	echo "path=$dir/kbook" >>"$GITHUB_OUTPUT"
fi
