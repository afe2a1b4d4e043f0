#!/bin/sh
# Put the built reader.app (python packaging/build.py) into a compressed .dmg
# with a link to /Applications, ready to drag and drop. macOS only (hdiutil).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
version=$(cd "$root" && python -c "import reader; print(reader.__version__)")
app="$root/build/dist/reader.app"
dmg="$root/build/reader-$version-macos-$(uname -m).dmg"
[ -d "$app" ] || { echo "make-dmg: $app is missing; run python packaging/build.py first" >&2; exit 2; }
staging=$(mktemp -d)
cp -R "$app" "$staging/"
ln -s /Applications "$staging/Applications"
rm -f "$dmg"
hdiutil create -volname "reader" -srcfolder "$staging" -ov -format UDZO "$dmg"
rm -rf "$staging"
echo "wrote $dmg"
